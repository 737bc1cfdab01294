"""The span sections of the HTML report: error categories (align/span_errors.py), the analysis
embedded for the viewer, --no-text and the size budget, and the viewer in Chromium on a handmade
document holding every category, nested, overlapping and discontinuous mentions, and markup."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from annoscore.align.span_errors import CATEGORIES, categorize
from annoscore.align.span_sides import read_sides
from annoscore.report.html import render_html
from annoscore.report.html_span_data import analyse
from annoscore.report.html_spans import ERRORS_ID
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.report.browser import check_number, open_report

TEXT = (
    "Patient took <script>alert(1)</script> aspirin 100 mg daily & ibuprofen; the left "
    "ventricle wall and the right ventricle were normal. Beta blockers stopped.\n"
)


def _at(text: str, start_after: int = 0) -> tuple[int, int]:
    i = TEXT.index(text, start_after)
    return i, i + len(text)


def handmade(folder: Path) -> tuple[Path, Path]:
    """Gold and system folders of one document with every category (see the test names)."""
    aspirin, dose, ibu = _at("aspirin"), _at("100 mg"), _at("ibuprofen")
    wall, part = _at("left ventricle wall"), _at("ventricle wall")
    left, right = _at("left"), _at("ventricle", _at("right")[0])
    beta, script = _at("Beta blockers"), _at("<script>alert(1)</script>")
    gold = [
        ("T1", "Drug", [aspirin]),  # correct
        ("T2", "Dose", [dose]),  # boundary, right extended
        ("T3", "Drug", [ibu]),  # wrong type
        ("T4", "Anatomy", [wall]),  # boundary, left shrunk; T5 nested inside
        ("T5", "Part", [part]),  # correct, nested
        ("T6", "Anatomy", [left, right]),  # correct, discontinuous, overlapping T4
        ("T7", "Drug", [beta]),  # wrong type and boundary
        ("T8", "Code", [script]),  # missed
    ]
    system = [
        ("T1", "Drug", [aspirin]),
        ("T2", "Dose", [(dose[0], dose[1] + 6)]),
        ("T3", "Gene", [ibu]),
        ("T4", "Anatomy", [(wall[0] + 5, wall[1])]),
        ("T5", "Part", [part]),
        ("T6", "Anatomy", [left, right]),
        ("T9", "Drug", [_at("daily")]),  # spurious
        ("T10", "Gene", [(beta[0], beta[0] + 4)]),
    ]
    paths = []
    for name, items in (("gold", gold), ("system", system)):
        side = folder / name
        side.mkdir()
        (side / "d1.txt").write_text(TEXT, encoding="utf-8")
        lines = [
            f"{tid}\t{kind} {';'.join(f'{s} {e}' for s, e in frags)}\t"
            f"{' '.join(TEXT[s:e] for s, e in frags)}"
            for tid, kind, frags in items
        ]
        (side / "d1.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(side)
    return paths[0], paths[1]


def decoded(embedded: str) -> dict[str, dict[str, Any]]:
    """The viewer's data (html_spans.analyse's ``embedded``) per document, as the page's script
    reads it: text or pieces, gold and predicted mentions ([fragments, type]) and items
    ([category, gold, prediction, side])."""
    e = json.loads(embedded)
    n_cats = len(e["categories"])
    out: dict[str, dict[str, Any]] = {}
    rows = {"g": 0, "p": 0}
    for k, doc in enumerate(e["docs"]):
        entry: dict[str, Any] = {
            "text": e["t"][k] if "t" in e else None,
            "pieces": e["w"][k] if "w" in e else None,
            "errors": e["n"][k],
        }
        for x in "gp":
            mentions, kinds, at = [], [], 0
            for r in range(rows[x], rows[x] + e[x + "n"][k]):
                at += e[x + "s"][r]
                frags = e.get(x + "f", {}).get(str(r), [[at, at + e[x + "l"][r]]])
                mentions.append(
                    [[tuple(f) for f in frags], e["typenames"][e[x + "k"][r] // n_cats]]
                )
                kinds.append(e["categories"][e[x + "k"][r] % n_cats])
            entry[x] = mentions
            entry[x + "cat"] = kinds
        g0 = rows["g"]
        items = []
        for i, cat in enumerate(entry["gcat"]):
            side = e["gd"][g0 + i]
            partner = e["gp"][g0 + i]
            items.append(
                [cat, i, None if partner < 0 else partner, e["sides"][side - 1] if side else ""]
            )
        paired = {i[2] for i in items}
        items += [[c, None, j, ""] for j, c in enumerate(entry["pcat"]) if j not in paired]
        entry["items"] = items
        rows["g"] += e["gn"][k]
        rows["p"] += e["pn"][k]
        out[doc] = entry
    return out


def test_each_category_and_side() -> None:
    gold = [
        (((0, 5),), "A"),
        (((10, 20),), "A"),
        (((30, 40),), "A"),
        (((50, 60),), "A"),
        (((70, 80),), "A"),
        (((90, 95), (97, 99)), "A"),
    ]
    pred = [
        (((0, 5),), "A"),  # correct
        (((8, 22),), "A"),  # boundary left+ right+
        (((32, 40),), "B"),  # type+boundary left-
        (((50, 60),), "B"),  # type
        (((90, 95), (98, 99)), "A"),  # boundary, inner fragment
        (((100, 101),), "A"),  # spurious
    ]
    found = [(e.category, e.gold, e.pred, e.side) for e in categorize(gold, pred)]
    assert found == [
        ("correct", 0, 0, ""),
        ("boundary", 1, 1, "left+ right+"),
        ("type+boundary", 2, 2, "left-"),
        ("type", 3, 3, ""),
        ("boundary", 5, 4, "frag"),
        ("missed", 4, None, ""),
        ("spurious", None, 5, ""),
    ]


def test_every_mention_is_in_one_item_whatever_the_order() -> None:
    rng = random.Random(7)
    for _ in range(300):

        def mentions(n: int) -> list[tuple[tuple[tuple[int, int], ...], str]]:
            out = []
            for _ in range(n):
                start = rng.randrange(40)
                out.append((((start, start + rng.randrange(1, 8)),), rng.choice("AB")))
            return out

        gold, pred = mentions(rng.randrange(8)), mentions(rng.randrange(8))
        items = categorize(gold, pred)
        assert sorted(e.gold for e in items if e.gold is not None) == list(range(len(gold)))
        assert sorted(e.pred for e in items if e.pred is not None) == list(range(len(pred)))
        order = list(range(len(pred)))
        rng.shuffle(order)
        shuffled = categorize(gold, [pred[j] for j in order])
        assert sorted(e.category for e in shuffled) == sorted(e.category for e in items)
        # strict matches are exactly the correct items
        assert (
            sum(e.category == "correct" for e in items) == len(set(gold) & set(pred))
            or len(set(gold)) != len(gold)
            or len(set(pred)) != len(pred)
        )


def test_the_analysis_of_the_handmade_document(tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    data = analyse(read_sides(gold, system))
    assert data["types"] == {
        "Anatomy": {"boundary": 1, "correct": 1},
        "Code": {"missed": 1},
        "Dose": {"boundary": 1},
        "Drug": {"correct": 1, "type": 1, "type+boundary": 1, "spurious": 1},
        "Part": {"correct": 1},
    }
    assert data["confusion"]["Drug"] == {"Drug": 1, "Gene": 2}
    assert data["confusion"]["(spurious)"] == {"Drug": 1}
    assert data["missed"] == [["Code", "<script>alert(1)</script>", 1]]
    document = decoded(data["embedded"])["d1"]
    sides = {i[0]: i[3] for i in document["items"]}
    assert sides["boundary"] in ("right+", "left-")
    assert sorted(i[3] for i in document["items"] if i[0] == "boundary") == ["left-", "right+"]
    assert document["text"] == TEXT
    assert len(document["items"]) == 9 and document["errors"] == 6
    assert [m[1] for m in document["g"]] == [
        "Drug",
        "Dose",
        "Drug",
        "Anatomy",
        "Part",
        "Anatomy",
        "Drug",
        "Code",
    ]
    assert document["g"][5][0] == [_at("left"), _at("ventricle", _at("right")[0])]
    # the strict matches are the correct items: the categories agree with the score
    result = score_spans(gold, system, SpanOptions())
    assert result.counts["tp"] == sum(n.get("correct", 0) for n in data["types"].values())


def test_no_text_and_the_size_budget(tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    sides = read_sides(gold, system)
    hidden = analyse(sides, text=False)
    assert decoded(hidden["embedded"])["d1"]["text"] is None
    assert "alert" not in hidden["embedded"] and "aspirin" not in hidden["embedded"]
    assert hidden["missed"] == [] and hidden["spurious"] == []
    whole = len(analyse(sides)["embedded"].encode("utf-8"))
    assert not analyse(sides, max_bytes=whole)["windows"]
    cut = analyse(sides, max_bytes=whole - 1)
    document = decoded(cut["embedded"])["d1"]
    pieces = document["pieces"]
    assert cut["windows"] and not cut["dropped"] and document["text"] is None
    assert len(cut["embedded"].encode("utf-8")) <= whole - 1
    assert all(TEXT[start : start + len(part)] == part for start, part in pieces)
    assert len(document["items"]) == 6  # the errors only
    dropped = analyse(sides, max_bytes=10)
    assert dropped["windows"] and dropped["dropped"]
    assert decoded(dropped["embedded"])["d1"]["pieces"] is None
    page = render_html(score_spans(gold, system, SpanOptions()), spans=sides, text=False)
    assert "alert(1)" not in page  # neither the text nor the surface strings
    assert "Texts left out (--no-text)" in page


def test_the_command_writes_the_viewer(cli: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    out = tmp_path / "r.html"
    done = cli("spans", gold, system, "--format", "html", "-o", out)
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    found = re.findall(
        r'<script type="application/json" id="' + ERRORS_ID + r'">(.*?)</script>', page, re.S
    )
    assert json.loads(found[0])["t"] == [TEXT]
    done = cli("spans", gold, system, "--format", "html", "--no-text", "-o", out)
    assert done.exit_code == 0 and "alert(1)" not in out.read_text(encoding="utf-8")
    done = cli("spans", gold, system, "--format", "html", "-o", out)
    budget = (out.stat().st_size - 1) / 1e6  # one byte less than the whole page
    done = cli("spans", gold, system, "--format", "html", "--max-html-mb", budget, "-o", out)
    page = out.read_text(encoding="utf-8")
    assert done.exit_code == 0 and "larger than the size budget" in page
    assert out.stat().st_size <= budget * 1e6
    found = re.findall(
        r'<script type="application/json" id="' + ERRORS_ID + r'">(.*?)</script>', page, re.S
    )
    cut = decoded(found[0])["d1"]
    assert cut["text"] is None and len(cut["items"]) == 6  # the errors only


def test_the_viewer_marks_every_category(browser: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    path = tmp_path / "viewer.html"
    result = score_spans(gold, system, SpanOptions()).shown(types=True)
    path.write_text(render_html(result, spans=read_sides(gold, system)), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        assert opened.errors == []
        assert page.evaluate("() => window.alerted") is None
        text = page.eval_on_selector("#vtext", "e => e.textContent")
        assert "<script>alert(1)</script>" in text and "&" in text
        bars = page.eval_on_selector_all(
            "#vtext .bar",
            "es => es.map(e => [e.getAttribute('data-cat'), e.getAttribute('data-side'),"
            " e.parentElement.firstChild.textContent])",
        )
        seen = {(cat, side) for cat, side, _ in bars}
        for category in CATEGORIES:
            sides = {"missed": {"g"}, "spurious": {"p"}}.get(category, {"g", "p"})
            assert {(category, s) for s in sides} <= seen, category
        marked = {(cat, side, t) for cat, side, t in bars}
        assert ("missed", "g", "<script>alert(1)</script>") in marked
        assert ("spurious", "p", "daily") in marked
        # the discontinuous mention: both fragments marked, numbered, not the gap between
        assert ("correct", "g", "left") in marked and ("correct", "g", "ventricle") in marked
        assert ("correct", "g", " wall and the right ") not in marked
        # nested mentions stack: "ventricle wall" has two gold bars at different heights
        heights = page.eval_on_selector_all(
            "#vtext .seg",
            "es => es.filter(e => e.firstChild.textContent === 'ventricle wall')"
            ".map(e => Array.from(e.querySelectorAll('.bar.g')).map(b => b.style.bottom))",
        )
        assert any(len(h) >= 2 and len(set(h)) == len(h) for h in heights)
        page.click("#vnext")
        assert page.eval_on_selector_all("#vtext .hit", "es => es.length") == 1
        assert "error 1 of" in page.eval_on_selector("#vpos", "e => e.textContent")
        page.uncheck("input[data-cat='correct']")
        hidden = page.eval_on_selector_all("#vtext .bar.off", "es => es.length")
        assert hidden == sum(1 for cat, _, _ in bars if cat == "correct")
        assert opened.errors == []
    finally:
        page.close()


def test_the_buckets_add_up_to_the_strict_counts(tmp_path: Path) -> None:
    from annoscore.report.html_buckets import bucket_data, bucket_matrices

    gold, system = handmade(tmp_path)
    data = analyse(read_sides(gold, system), embed=False)
    buckets = bucket_data(bucket_matrices(data), (200, 0.9, 7))
    strict = score_spans(gold, system, SpanOptions()).counts
    from annoscore.report.html_buckets import KINDS

    assert list(buckets) == list(KINDS)
    for kind in KINDS:
        rows = buckets[kind]
        for k in ("tp", "fp", "fn"):
            assert sum(r[1][k] for r in rows) == strict[k], (kind, k)
        assert sum(r[1]["gold"] for r in rows) == 8
        for _, _, scores, intervals in rows:
            for key, value in scores.items():
                bounds = intervals[key]
                if value is not None and bounds is not None:
                    assert bounds[0] - 1e-12 <= value <= bounds[1] + 1e-12
    assert [r[0] for r in buckets["length"]] == [  # no mention of 1-3 characters
        "4-6 characters",
        "7-10 characters",
        "11-20 characters",
        "21+ characters",
    ]
    unseen = {r[0]: r[1] for r in buckets["frequency"]}["types not in the gold"]
    assert unseen == {"tp": 0, "fp": 2, "fn": 0, "gold": 0}  # the two Gene predictions


def test_the_buckets_on_the_page_are_the_embedded_ones(browser: Any, tmp_path: Path) -> None:
    from annoscore.report.html_spans import BUCKETS_ID
    from annoscore.significance import with_intervals

    gold, system = handmade(tmp_path)
    result = with_intervals(score_spans(gold, system, SpanOptions()), samples=50, seed=3)
    path = tmp_path / "buckets.html"
    path.write_text(render_html(result, spans=read_sides(gold, system)), encoding="utf-8")
    opened = open_report(browser, path)
    try:
        assert opened.errors == []
        embedded = opened.data(BUCKETS_ID)
        cells = opened.page.eval_on_selector_all(
            "[data-bucket-path]",
            "es => es.map(e => [e.getAttribute('data-bucket-path'), e.textContent, e.title])",
        )
        assert len(cells) >= 10
        assert any(json.loads(p)[2] == 3 for p, _, _ in cells)  # the intervals are shown
        for where, shown, title in cells:
            value: Any = embedded
            for step in json.loads(where):
                value = value[step]
            check_number(value, shown, title or None)
    finally:
        opened.page.close()


def test_annoscore_report_compares_the_buckets(cli: Any, browser: Any, tmp_path: Path) -> None:
    import shutil

    from annoscore.report.html_buckets import bucket_data, bucket_matrices
    from annoscore.report.html_spans import BUCKETS_ID

    gold, system = handmade(tmp_path)
    perfect = tmp_path / "perfect"
    shutil.copytree(gold, perfect)
    out = tmp_path / "one.html"
    done = cli("report", "spans", gold, system, "-o", out)
    assert done.exit_code == 0, done.output
    assert f'id="{ERRORS_ID}"' in out.read_text(encoding="utf-8")  # one system: the viewer
    out = tmp_path / "many.html"
    done = cli("report", "spans", gold, system, perfect, "--samples", "200", "-o", out)
    assert done.exit_code == 0, done.output
    opened = open_report(browser, out)
    try:
        assert opened.errors == []
        embedded = opened.data(BUCKETS_ID)
        own = bucket_data(bucket_matrices(analyse(read_sides(gold, system), embed=False)), None)
        for kind, rows in embedded.items():
            alone = {r[0]: r[2]["f1"] for r in own[kind]}
            for bucket, systems in rows:
                assert systems["system"]["scores"]["f1"] == alone[bucket]
                assert systems["perfect"]["scores"]["f1"] in (1.0, None)
        cells = opened.page.eval_on_selector_all(
            "[data-bucket-path]",
            "es => es.map(e => [e.getAttribute('data-bucket-path'), e.textContent, e.title])",
        )
        assert any("p_value" in p for p, _, _ in cells)
        for where, shown, title in cells:
            value: Any = embedded
            for step in json.loads(where):
                value = value[step]
            check_number(value, shown, title or None)
    finally:
        opened.page.close()


def test_confusion_cells_list_their_instances(browser: Any, tmp_path: Path) -> None:
    gold, system = handmade(tmp_path)
    path = tmp_path / "confusion.html"
    result = score_spans(gold, system, SpanOptions())
    path.write_text(render_html(result, spans=read_sides(gold, system)), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        cells = page.eval_on_selector_all(
            "td.cm",
            "es => es.filter(e => e.textContent).map(e => [e.getAttribute('data-gold'),"
            " e.getAttribute('data-pred'), e.textContent])",
        )
        assert len(cells) >= 6
        for gold_type, pred_type, n in cells:
            page.click(f"td.cm[data-gold='{gold_type}'][data-pred='{pred_type}']")
            head = page.eval_on_selector("#cmlist h3", "e => e.textContent")
            assert head.startswith(f"gold {gold_type}, predicted {pred_type}: {n} instance")
            items = page.eval_on_selector_all("#cmlist li", "es => es.map(e => e.textContent)")
            assert len(items) == int(n)
        page.click("td.cm[data-gold='Drug'][data-pred='Gene']")
        items = page.eval_on_selector_all("#cmlist li", "es => es.map(e => e.textContent)")
        ibuprofen, beta = _at("ibuprofen"), _at("Beta blockers")
        assert sorted(items) == sorted(
            [
                f"d1: gold [{ibuprofen[0]}, {ibuprofen[1]}), predicted "
                f"[{ibuprofen[0]}, {ibuprofen[1]})",
                f"d1: gold [{beta[0]}, {beta[1]}), predicted [{beta[0]}, {beta[0] + 4})",
            ]
        )
        page.click("#cmlist li a")
        assert page.eval_on_selector("#vdoc", "e => e.value") == "d1"
        assert opened.errors == []
    finally:
        page.close()


def test_the_report_command_takes_no_text_and_the_size_budget(cli: Any, tmp_path: Path) -> None:
    """``annoscore report`` has the scoring commands' --no-text and --max-html-mb: the page of
    one system as ``--format html`` writes it, that of several without the frequent texts."""
    gold, system = handmade(tmp_path)
    out = tmp_path / "r.html"
    done = cli("report", "spans", gold, system, "-o", out)
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    found = re.findall(
        r'<script type="application/json" id="' + ERRORS_ID + r'">(.*?)</script>', page, re.S
    )
    assert json.loads(found[0])["t"] == [TEXT]
    done = cli("report", "spans", gold, system, "--no-text", "-o", out)
    page = out.read_text(encoding="utf-8")
    assert done.exit_code == 0 and "alert(1)" not in page and "aspirin" not in page
    assert "Texts left out (--no-text)" in page and "Error categories per type" in page
    budget = (out.stat().st_size - 1) / 1e6 / 2  # well below the whole page
    done = cli("report", "spans", gold, system, "--max-html-mb", budget, "-o", out)
    page = out.read_text(encoding="utf-8")
    assert done.exit_code == 0 and "larger than the size budget (--max-html-mb)" in page
    several = ["report", "spans", gold, system, gold, "--samples", "50", "-o", out]
    done = cli(*several)
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    assert "ibuprofen" in page and "Texts left out" not in page
    done = cli(*several, "--no-text")
    page = out.read_text(encoding="utf-8")
    assert done.exit_code == 0 and "Texts left out (--no-text)" in page
    assert "ibuprofen" not in page and "alert(1)" not in page
    assert 'id="versus"' in page  # the counts per type stay
    help_text = cli("report", "--help").stdout
    assert "--no-text" in help_text and "--max-html-mb" in help_text
