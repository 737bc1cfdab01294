"""What report.md asks of a span report beyond the scores, each on handmade documents: boundary
errors by side, the viewer filtered by type (next/previous error through that type only), the
per-document table filtered by type, the frequent errors opening their occurrences, offsets
beyond the Basic Multilingual Plane, and on the page of several systems the gold mentions one
system gets right and the other wrong (``annoscore report``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annoscore.align.span_sides import read_sides
from annoscore.report.html import render_html
from annoscore.report.html_span_data import analyse
from annoscore.report.html_versus import VERSUS_ID
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.report.browser import check_number, open_report
from tests.report.test_html_buckets import corpus
from tests.report.test_html_spans import TEXT, _at, handmade


def _page(tmp_path: Path, gold: Path, system: Path, name: str = "page.html") -> Path:
    path = tmp_path / name
    result = score_spans(gold, system, SpanOptions())
    path.write_text(render_html(result, spans=read_sides(gold, system)), encoding="utf-8")
    return path


def test_boundary_errors_by_side(browser: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    data = analyse(read_sides(gold, system), embed=False)
    # T2 Dose ends 6 characters late; T4 Anatomy starts 5 late; T7 Drug ("Beta blockers",
    # predicted "Beta" as Gene) ends early
    assert data["boundary"] == {
        "Anatomy": {"left-": 1},
        "Dose": {"right+": 1},
        "Drug": {"right-": 1},
    }
    opened = open_report(browser, _page(tmp_path, gold, system))
    try:
        rows = opened.page.eval_on_selector_all(
            "#boundary-table tbody tr",
            "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))",
        )
        heads = opened.page.eval_on_selector_all(
            "#boundary-table th", "es => es.map(e => e.textContent)"
        )
        assert heads == ["type", "right extended", "right shrunk", "left shrunk"]
        assert rows == [
            ["Anatomy", "0", "0", "1"],
            ["Dose", "1", "0", "0"],
            ["Drug", "0", "1", "0"],
        ]
        assert opened.errors == []
    finally:
        opened.page.close()


def test_the_viewer_filtered_by_type(browser: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    opened = open_report(browser, _page(tmp_path, gold, system))
    page = opened.page
    try:
        assert page.eval_on_selector("#vpos", "e => e.textContent") == "6 errors"
        page.select_option("#vtype", "Drug")
        # Drug: ibuprofen (wrong type), Beta blockers (wrong type and boundary), daily (spurious)
        assert page.eval_on_selector("#vpos", "e => e.textContent") == "3 errors"
        shown = page.eval_on_selector_all(
            "#vtext .bar:not(.offt)", "es => [...new Set(es.map(e => e.dataset.type))]"
        )
        assert shown == ["Drug"]
        seen = []
        for step in range(4):
            page.click("#vnext")
            hit = page.eval_on_selector("#vtext .hit", "e => [e.dataset.etype, e.textContent]")
            seen.append(hit[0])
            assert page.eval_on_selector("#vpos", "e => e.textContent") == (
                f"error {step % 3 + 1} of 3"
            )
        assert seen == ["Drug"] * 4
        page.uncheck("input[data-cat='spurious']")
        assert page.eval_on_selector("#vpos", "e => e.textContent").endswith(" of 2") or (
            page.eval_on_selector("#vpos", "e => e.textContent") == "2 errors"
        )
        page.select_option("#vtype", "")
        assert page.eval_on_selector_all("#vtext .bar.offt", "es => es.length") == 0
        assert opened.errors == []
    finally:
        page.close()


def test_the_documents_filtered_by_type_and_the_frequent_errors(
    browser: Any, tmp_path: Path
) -> None:
    gold, system = corpus(tmp_path)
    opened = open_report(browser, _page(tmp_path, gold, system))
    page = opened.page
    try:

        def listed() -> list[str]:
            return sorted(
                page.eval_on_selector_all("#docs tbody td.name", "es => es.map(e => e.textContent)")
            )

        assert listed() == ["a", "b", "c"]
        for kind, documents in (("Y", ["a"]), ("Z", ["b"]), ("X", ["a", "b", "c"])):
            page.select_option("#doctype", kind)
            assert listed() == documents, kind
            assert f"with an error of type {kind}" in page.eval_on_selector(
                "#doccount", "e => e.textContent"
            )
        page.select_option("#doctype", "")
        assert listed() == ["a", "b", "c"]
        # the frequent spurious "naïve" (X, document c) opens its occurrence, then its document
        page.click("tr[data-freq='spurious'][data-text='naïve']")
        head = page.eval_on_selector("#freqlist h3", "e => e.textContent")
        assert head == "spurious X \u201cnaïve\u201d: 1 occurrence"
        items = page.eval_on_selector_all("#freqlist li", "es => es.map(e => e.textContent)")
        assert items == ["c: [4, 9)"]
        page.click("#freqlist li a")
        assert page.eval_on_selector("#vdoc", "e => e.value") == "c"
        assert opened.errors == []
    finally:
        page.close()


def test_offsets_past_the_basic_plane(browser: Any, tmp_path: Path) -> None:
    text = "\U0001f600\U0001f600 aspirin and \U0001d400 ibuprofen.\n"
    for side, kind in (("gold", "Drug"), ("system", "Gene")):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "d.txt").write_text(text, encoding="utf-8")
        a = text.index("aspirin")
        i = text.index("ibuprofen")
        (folder / "d.ann").write_text(
            f"T1\tDrug {a} {a + 7}\taspirin\nT2\t{kind} {i} {i + 9}\tibuprofen\n", encoding="utf-8"
        )
    opened = open_report(browser, _page(tmp_path, tmp_path / "gold", tmp_path / "system"))
    try:
        segments = opened.page.eval_on_selector_all(
            "#vtext .seg", "es => es.map(e => e.firstChild.textContent)"
        )
        assert segments == ["aspirin", "ibuprofen"]
        assert opened.errors == []
    finally:
        opened.page.close()


def test_right_and_wrong_between_two_systems(cli: Any, browser: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    out = tmp_path / "many.html"
    done = cli(
        "report", "spans", gold, system, gold, "--names", "a,b", "--samples", "50", "-o", out
    )
    assert done.exit_code == 0, done.output
    opened = open_report(browser, out)
    page = opened.page
    try:
        embedded = opened.data(VERSUS_ID)
        name, found = embedded[0]
        assert name == "b"
        # b is the gold itself: it gets every gold mention right that a (system) gets wrong
        assert found["types"] == {"Anatomy": [0, 1], "Code": [0, 1], "Dose": [0, 1], "Drug": [0, 2]}
        assert found["texts"][0] == []
        wrong = sorted(s for _, s, _ in found["texts"][1])
        expected = ["100 mg", "<script>alert(1)</script>", "Beta blockers", "ibuprofen"]
        expected.append(TEXT[slice(*_at("left ventricle wall"))])
        assert wrong == sorted(expected)
        cells = page.eval_on_selector_all(
            "[data-versus-path]",
            "es => es.map(e => [e.getAttribute('data-versus-path'), e.textContent, e.title])",
        )
        assert len(cells) == 4 * 2 + 5
        for where, shown, title in cells:
            value: Any = embedded
            for step in json.loads(where):
                value = value[step]
            check_number(value, shown, title or None)
        assert page.eval_on_selector_all("main script, main b", "es => es.length") == 0
        assert opened.errors == []
    finally:
        page.close()


def test_a_long_document_shows_windows_around_its_errors(browser: Any, tmp_path: Path) -> None:
    from annoscore.report.html_span_data import LONG, WINDOW

    filler = "word " * (LONG // 5)
    text = f"aspirin {filler}ibuprofen {filler}heparin.\n"
    spans = {
        k: (text.index(k), text.index(k) + len(k)) for k in ("aspirin", "ibuprofen", "heparin")
    }
    for side in ("gold", "system"):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "d.txt").write_text(text, encoding="utf-8")
        kept = ("aspirin", "ibuprofen", "heparin") if side == "gold" else ("ibuprofen",)
        lines = [f"T{k}\tDrug {spans[w][0]} {spans[w][1]}\t{w}" for k, w in enumerate(kept, 1)]
        (folder / "d.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    opened = open_report(browser, _page(tmp_path, tmp_path / "gold", tmp_path / "system"))
    page = opened.page
    try:
        shown = page.eval_on_selector("#vtext", "e => e.textContent")
        # the two missed drugs, each with its context; the correct one far from both is left out
        assert shown.startswith("aspirin ") and "heparin." in shown and "ibuprofen" not in shown
        assert len(shown) <= 2 * (2 * WINDOW + len("aspirin")) + 2
        assert page.eval_on_selector_all("#vtext .gap", "es => es.length") == 1
        page.check("#vwhole")
        assert page.eval_on_selector("#vtext", "e => e.textContent") == text
        assert page.eval_on_selector_all("#vtext .gap", "es => es.length") == 0
        assert opened.errors == []
    finally:
        page.close()


def test_the_macro_averages_have_intervals(browser: Any, tmp_path: Path) -> None:
    import random

    from annoscore.counts import Counts
    from annoscore.metrics.prf import prf_scores
    from annoscore.report.html_macro import MACRO_ID, macro_intervals
    from annoscore.result import Result
    from annoscore.signature import Signature
    from annoscore.significance import with_intervals

    rng = random.Random(8)
    rows = {}
    for k in range(30):
        counts = {"tp": 0, "fp": 0, "fn": 0}
        for kind in ("A", "B", "C"):
            tp, fp, fn = rng.randrange(4), rng.randrange(3), rng.randrange(3)
            counts |= {f"type:{kind}:tp": tp, f"type:{kind}:fp": fp, f"type:{kind}:fn": fn}
            counts["tp"] += tp
            counts["fp"] += fp
            counts["fn"] += fn
        rows[f"d{k}"] = Counts(counts)
    result = Result.from_counts("spans", Signature.of("spans"), rows, prf_scores)
    found = macro_intervals(result, samples=300, confidence=0.9, seed=4)
    for name, scores in result.averages.items():
        for key, value in scores.items():
            bounds = found[name][key]
            assert bounds is not None and bounds[0] < value < bounds[1], (name, key)
    same = Result.from_counts(
        "spans", Signature.of("spans"), {f"d{k}": rows["d0"] for k in range(5)}, prf_scores
    )
    for name, scores in macro_intervals(same, samples=50, confidence=0.9, seed=1).items():
        for key, bounds in scores.items():
            value = same.averages[name][key]
            assert bounds is not None and value is not None
            assert abs(bounds[0] - value) < 1e-12 and abs(bounds[1] - value) < 1e-12
    # on the page: each bound the embedded one
    gold, system = handmade(tmp_path)
    shown = with_intervals(score_spans(gold, system, SpanOptions()), samples=60, seed=2)
    path = tmp_path / "macro.html"
    path.write_text(render_html(shown, spans=read_sides(gold, system)), encoding="utf-8")
    opened = open_report(browser, path)
    try:
        embedded = opened.data(MACRO_ID)
        assert set(embedded) == {"macro_type", "macro_doc"}
        cells = opened.page.eval_on_selector_all(
            "[data-macro-path]",
            "es => es.map(e => [e.getAttribute('data-macro-path'), e.textContent, e.title])",
        )
        assert len(cells) == 2 * 3 * 2
        for where, text, title in cells:
            name, key, i = json.loads(where)
            check_number(embedded[name][key][i], text, title or None)
        assert opened.errors == []
    finally:
        opened.page.close()
