"""The document viewer of the page of several systems (``annoscore report TASK GOLD SYS1 SYS2``;
report/html_spans.py ``systems_viewer``): a select chooses the system, the viewer then draws
what that system's own page draws; the texts are embedded once for every system; the size
budget is the page's."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from annoscore.align.span_sides import read_sides
from annoscore.report.html import render_html
from annoscore.report.html_span_data import analyse
from annoscore.report.html_spans import ERRORS_ID, TEXTS_ID
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.report.browser import at, check_number, open_report
from tests.report.test_html_spans import TEXT, decoded, handmade

SECOND = "Metformin 500 mg twice a day; no insulin. Renal function normal.\n"

BARS = (
    "d => {window.annoscoreShow(d); return Array.from(document.querySelectorAll('#vtext .bar'))"
    ".map(b => [b.getAttribute('data-cat'), b.getAttribute('data-side'),"
    " b.getAttribute('data-type'), b.parentElement.firstChild.textContent]).sort()}"
)


def _ann(folder: Path, name: str, text: str, items: list[tuple[str, str, str]]) -> None:
    (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    lines = []
    for k, (kind, surface, after) in enumerate(items, 1):
        start = text.index(surface, text.index(after) if after else 0)
        lines.append(f"T{k}\t{kind} {start} {start + len(surface)}\t{surface}")
    (folder / f"{name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")


def three(folder: Path) -> tuple[Path, Path, Path]:
    """Gold and two systems of two documents: ``d1`` the handmade one (the first system holds
    every category, the second is the gold less its first two mentions plus a spurious one),
    ``d2`` one the first system gets right and the second half wrong."""
    gold, system = handmade(folder)
    other = folder / "other"
    shutil.copytree(gold, other)
    lines = (other / "d1.ann").read_text(encoding="utf-8").splitlines()[2:]
    start = TEXT.index("normal")
    lines.append(f"T20\tDrug {start} {start + 6}\tnormal")
    (other / "d1.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    right = [("Drug", "Metformin", ""), ("Dose", "500 mg", ""), ("Drug", "insulin", "")]
    for side in (gold, system):
        _ann(side, "d2", SECOND, right)
    _ann(other, "d2", SECOND, [("Dose", "Metformin", ""), ("Dose", "500 mg twice", "")])
    return gold, system, other


def _elements(page: str, prefix: str) -> dict[str, str]:
    return dict(
        re.findall(
            r'<script type="application/json" id="(' + prefix + r'[^"]*)">(.*?)</script>',
            page,
            re.S,
        )
    )


def test_the_page_of_several_systems_has_the_viewer_of_each(
    cli: Any, browser: Any, tmp_path: Path
) -> None:
    gold, system, other = three(tmp_path)
    out = tmp_path / "many.html"
    done = cli("report", "spans", gold, system, other, "--samples", "50", "-o", out)
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    found = _elements(text, ERRORS_ID)
    assert sorted(found) == [f"{ERRORS_ID}-0", f"{ERRORS_ID}-1"]  # no element of one system
    for k, sys in enumerate((system, other)):
        own = json.loads(analyse(read_sides(gold, sys))["embedded"])
        here = json.loads(found[f"{ERRORS_ID}-{k}"])
        assert here.pop("shared") is True and "t" not in here and own.pop("t") == [TEXT, SECOND]
        assert here == own  # the mentions as the system's own page embeds them, the texts apart
    assert json.loads(_elements(text, TEXTS_ID)[TEXTS_ID]) == {"d1": TEXT, "d2": SECOND}
    # the page of each system alone: what its viewer draws, document by document
    alone: dict[int, dict[str, Any]] = {}
    for k, sys in enumerate((system, other)):
        path = tmp_path / f"one-{k}.html"
        done = cli("report", "spans", gold, sys, "-o", path)
        assert done.exit_code == 0, done.output
        opened = open_report(browser, path)
        try:
            alone[k] = {
                d: (
                    opened.page.evaluate(BARS, d),
                    opened.page.eval_on_selector("#vpos", "e => e.textContent"),
                )
                for d in ("d1", "d2")
            }
            assert opened.errors == []
        finally:
            opened.page.close()
    opened = open_report(browser, out)
    page = opened.page
    try:
        assert opened.errors == []
        assert page.eval_on_selector("#vsys", "e => e.value") == "0"
        names = page.eval_on_selector_all("#vsys option", "es => es.map(e => e.textContent)")
        assert names == ["system (baseline)", "other"]
        for k in (0, 1, 0):  # and back to the baseline
            page.select_option("#vsys", str(k))
            for d in ("d1", "d2"):
                bars, pos = alone[k][d]
                assert (
                    page.evaluate(BARS, d),
                    page.eval_on_selector("#vpos", "e => e.textContent"),
                ) == (bars, pos), (k, d)
            errors = decoded(found[f"{ERRORS_ID}-{k}"])
            options = page.eval_on_selector_all("#vdoc option", "es => es.map(e => e.textContent)")
            assert sorted(options) == sorted(
                f"{d} ({errors[d]['errors']} errors)" for d in ("d1", "d2")
            )
        # the two systems differ where the test is made to: the switch is seen
        assert alone[0]["d2"][1] == "no errors" and alone[1]["d2"][1] == "3 errors"
        assert alone[0]["d1"][0] != alone[1]["d1"][0]
        # next and previous error, on the second system's second document
        page.select_option("#vsys", "1")
        page.select_option("#vdoc", "d2")
        page.click("#vnext")
        assert page.eval_on_selector("#vpos", "e => e.textContent") == "error 1 of 3"
        assert page.eval_on_selector_all("#vtext .hit", "es => es.length") == 1
        page.click("#vprev")
        page.click("#vprev")
        assert page.eval_on_selector("#vpos", "e => e.textContent") == "error 2 of 3"
        # a filter set before a switch holds after it
        page.uncheck("input[data-cat='correct']")
        page.select_option("#vsys", "0")
        assert page.eval_on_selector("#vdoc", "e => e.value") == "d2"
        bars = page.eval_on_selector_all("#vtext .bar", "es => es.map(e => e.className)")
        assert bars and all(" off" in b for b in bars)  # d2: all correct for the baseline
        page.click("#vnext")  # one listener per control: no error found twice, none thrown
        assert page.eval_on_selector("#vpos", "e => e.textContent") == "no errors"
        data = opened.data()
        numbers = opened.numbers()
        assert numbers
        for where, shown, title in numbers:
            check_number(at(data, where), shown, title)
        assert opened.errors == []
    finally:
        page.close()


def test_the_several_systems_share_the_size_budget(cli: Any, browser: Any, tmp_path: Path) -> None:
    gold, system, other = three(tmp_path)
    filler = "The patient was seen again in clinic and was well. " * 120  # a long document
    for side in (gold, system, other):
        for k in range(3):
            _ann(
                side,
                f"long{k}",
                filler + SECOND,
                [("Drug", "Metformin", ""), ("Drug", "insulin", "")],
            )
    whole = tmp_path / "whole.html"
    several = ["report", "spans", gold, system, other, "--samples", "50"]
    done = cli(*several, "-o", whole)
    assert done.exit_code == 0, done.output
    page = whole.read_text(encoding="utf-8")
    assert page.count("Renal function normal") == 4  # the texts once, not once per system
    assert "larger than the size budget" not in page
    out = tmp_path / "cut.html"
    budget = (whole.stat().st_size - 1) / 1e6
    done = cli(*several, "--max-html-mb", budget, "-o", out)
    assert done.exit_code == 0, done.output
    assert out.stat().st_size <= budget * 1e6
    page = out.read_text(encoding="utf-8")
    assert "larger than the size budget (--max-html-mb)" in page
    assert f'id="{TEXTS_ID}"' not in page
    for k, sys in enumerate((system, other)):
        cut = json.loads(_elements(page, ERRORS_ID)[f"{ERRORS_ID}-{k}"])
        assert cut["windows"] and "w" in cut and "t" not in cut
        own = decoded(analyse(read_sides(gold, sys))["embedded"])
        mine = decoded(json.dumps(cut))
        assert {d: e["errors"] for d, e in mine.items()} == {d: e["errors"] for d, e in own.items()}
    opened = open_report(browser, out)
    try:
        page_ = opened.page
        page_.select_option("#vsys", "1")
        page_.select_option("#vdoc", "d2")
        assert page_.eval_on_selector("#vpos", "e => e.textContent") == "3 errors"
        assert "Metformin" in page_.eval_on_selector("#vtext", "e => e.textContent")
        assert opened.errors == []
    finally:
        opened.page.close()
    done = cli(*several, "--max-html-mb", 0.001, "-o", out)  # below the tables themselves
    assert done.exit_code == 0, done.output
    assert "even cut to windows" in out.read_text(encoding="utf-8")
    done = cli(*several, "--no-text", "-o", out)
    page = out.read_text(encoding="utf-8")
    assert done.exit_code == 0 and "Metformin" not in page and f'id="{TEXTS_ID}"' not in page
    assert "Texts left out (--no-text): the viewer shows offsets." in page


def test_the_page_of_one_system_is_unchanged(tmp_path: Path) -> None:
    """The one-system page holds one element ``annoscore-errors`` and no system select."""
    gold, system = handmade(tmp_path)
    page = render_html(score_spans(gold, system, SpanOptions()), spans=read_sides(gold, system))
    assert sorted(_elements(page, ERRORS_ID)) == [ERRORS_ID]
    assert 'id="vsys"' not in page and f'id="{TEXTS_ID}"' not in page


SHOWN = (
    "ds => ds.map(d => {window.annoscoreShow(d);"
    " return [d, document.getElementById('vpos').textContent,"
    " Array.from(document.querySelectorAll('#vtext .bar')).map(b => b.getAttribute('data-cat'))"
    ".sort().join()];})"
)


NOTICES = "#viewer p.notice"


@pytest.mark.parametrize("task", ["conlleval", "seqeval", "codiesp-x", "nlpsandbox-date"])
def test_every_task_with_span_sides_has_the_viewer(
    task: str, cli: Any, browser: Any, tmp_path: Path
) -> None:
    """The tag tasks, CodiEsp X and the NLP Sandbox: the viewer of each system on the page of
    two draws each document as that system's own page does."""
    from annoscore.tasks import registry

    gold, system, options = registry.sample_paths(registry.get(task))
    second = system if task == "codiesp-x" else gold  # CodiEsp's gold file is no system file
    given = [x for k, v in options.items() for x in ("--option", f"{k}={v}")]
    drawn = []
    for k, sys in enumerate((system, second)):
        path = tmp_path / f"one-{k}.html"
        done = cli("report", task, gold, sys, *given, "-o", path)
        assert done.exit_code == 0, done.output
        opened = open_report(browser, path)
        try:
            docs = opened.page.evaluate("() => window.annoscoreErrors.docs")
            drawn.append(opened.page.evaluate(SHOWN, docs))
            notes = opened.page.eval_on_selector_all(NOTICES, "es => es.map(e => e.textContent)")
            assert opened.errors == []
        finally:
            opened.page.close()
    out = tmp_path / "two.html"
    done = cli("report", task, gold, system, second, *given, "--samples", "20", "-o", out)
    assert done.exit_code == 0, done.output
    opened = open_report(browser, out)
    try:
        said = opened.page.eval_on_selector_all(NOTICES, "es => es.map(e => e.textContent)")
        assert said == notes  # what the sides say of their documents, as on the one page
        for k in (1, 0):
            opened.page.select_option("#vsys", str(k))
            docs = [d for d, _, _ in drawn[k]]
            assert opened.page.evaluate(SHOWN, docs) == drawn[k], k
        assert opened.errors == []
    finally:
        opened.page.close()
    if second == gold:
        assert any(pos != "no errors" for _, pos, _ in drawn[0])
        assert all(pos == "no errors" for _, pos, _ in drawn[1])


def test_a_system_whose_texts_differ_keeps_its_own() -> None:
    """A document only systems hold takes its text from the system's file: where two systems'
    differ, the second keeps its own texts (the shared ones are the first's)."""
    from annoscore.align.span_sides import SpanSides
    from annoscore.formats.brat_model import AnnFile
    from annoscore.report.html_spans import systems_viewer

    def file(doc: str, text: str) -> AnnFile:
        return AnnFile(doc, doc, ["T1"], ["Drug"], [0], [4], [text[:4]], text=text)

    gold = {"a": file("a", "aaaa gold")}
    first = SpanSides(gold, {"a": file("a", "aaaa gold"), "x": file("x", "xxxx one")})
    second = SpanSides(gold, {"a": file("a", "aaaa gold"), "x": file("x", "yyyy two")})
    analyses = {"one": analyse(first, embed=False), "two": analyse(second, embed=False)}
    _, elements = systems_viewer(analyses, text=True, max_bytes=None)
    found = _elements(elements, "annoscore-")
    assert json.loads(found[TEXTS_ID]) == {"a": "aaaa gold", "x": "xxxx one"}
    one, two = (json.loads(found[f"{ERRORS_ID}-{k}"]) for k in (0, 1))
    assert one["shared"] is True and "t" not in one
    assert "shared" not in two and two["t"] == ["aaaa gold", "yyyy two"]
    _, elements = systems_viewer(analyses, text=False, max_bytes=None)
    found = _elements(elements, "annoscore-")
    assert TEXTS_ID not in found and "gold" not in elements and "one" not in elements


def test_a_system_without_errors_beyond_the_budget(tmp_path: Path) -> None:
    """Cut to windows around the errors, a system with none has no piece (it raised an
    IndexError; the page of several systems meets it whenever one system is perfect)."""
    gold, _ = handmade(tmp_path)
    whole = len(analyse(read_sides(gold, gold))["embedded"].encode("utf-8"))
    cut = analyse(read_sides(gold, gold), max_bytes=whole - 1)
    assert cut["windows"] and not cut["dropped"]
    assert decoded(cut["embedded"])["d1"]["pieces"] == []


def test_a_system_with_few_errors_leaves_its_share_to_the_others(tmp_path: Path) -> None:
    """Beyond the budget the systems take their shares in turn, the fewest errors first: a
    perfect system's windows are empty, and the rest of the budget goes to the other's."""
    from annoscore.report.html_spans import _viewer, systems_viewer

    gold, system, _ = three(tmp_path)
    filler = "The patient was seen again in clinic and was well. " * 120
    for side in (gold, system):
        _ann(side, "long", filler + SECOND, [("Drug", "Metformin", "")])
    analyses = {
        "system": analyse(read_sides(gold, system), embed=False),
        "perfect": analyse(read_sides(gold, gold), embed=False),
    }
    sizes = []
    for data in analyses.values():
        full = len(data["embedding"](None)[0].encode("utf-8"))
        one, windows, dropped = data["embedding"](full - 1)
        assert windows and not dropped
        sizes.append(len(one.encode("utf-8")))
    frame = len(_viewer(list(analyses)).encode("utf-8")) + 512
    budget = frame + sum(sizes) + 2 * 60 + 10
    assert (budget - frame) // 2 - 60 < sizes[0]  # an equal share would not hold its windows
    card, elements = systems_viewer(analyses, text=True, max_bytes=budget)
    assert len(elements.encode("utf-8")) <= budget - frame
    found = _elements(elements, ERRORS_ID)
    cut = decoded(found[f"{ERRORS_ID}-0"])
    assert cut["d1"]["pieces"] and cut["d1"]["errors"] == 6
    assert decoded(found[f"{ERRORS_ID}-1"])["d1"]["pieces"] == []
    assert "larger than the size budget (--max-html-mb): the viewer shows" in card[3]
