"""The MUC alignment section of the HTML report (report/html_muc.py): which key object was
aligned with which response object and what became of every fill, in Chromium, with markup in
a fill shown as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annoscore.report.html import render_html
from annoscore.report.html_muc import ALIGNMENT_ID, alignment_data
from tests.report.browser import open_report
from tests.report.test_html import sample_result

TALLIES = ("cor", "par", "inc", "mis", "spu", "non")


@pytest.mark.parametrize(
    "name", ["muc-template-element", "muc-named-entity", "muc-scenario-template"]
)
def test_the_documents_tallies_add_up_to_the_result(name: str) -> None:
    result = sample_result(name)
    data = alignment_data(result.details)
    assert data is not None
    total = [sum(document[1][k] for document in data["documents"]) for k in range(6)]
    assert total == [result.counts[t] for t in TALLIES]
    for _, tally, classes in data["documents"]:  # a document's tallies are its slots'
        slots = [s[1] for _, pairs in classes for p in pairs for s in p[4]]
        assert [sum(s[k] for s in slots) for k in range(6)] == tally


def test_no_section_for_other_results() -> None:
    assert alignment_data(sample_result("muc-coreference").details) is None
    assert alignment_data(sample_result("spans").details) is None


def test_the_alignment_in_chromium(browser: Any, tmp_path: Path) -> None:
    result = sample_result("muc-template-element")
    fill = result.details.documents[0].classes[0].pairs[0].slots[0].fills[0]  # type: ignore[union-attr]
    fill.key.text = "</script><b>Acme</b> & Co"
    path = tmp_path / "muc.html"
    path.write_text(render_html(result), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        assert opened.errors == []
        embedded = opened.data(ALIGNMENT_ID)
        first = embedded["documents"][0]
        shown = page.eval_on_selector_all(
            "#aview details summary", "es => es.map(e => e.textContent)"
        )
        document = max(
            embedded["documents"], key=lambda d: sum(d[1][1:5])
        )  # the page starts with the document of most errors
        pairs = [p for _, ps in document[2] for p in ps]
        assert len(shown) == len(pairs)
        for text, pair in zip(shown, pairs, strict=True):
            assert text.startswith(pair[0])
            assert ("key " + (pair[1] or "\u2013")) in text
            assert ("response " + (pair[2] or "\u2013")) in text
        statuses = page.eval_on_selector_all(
            "#aview details", "es => es.map(e => e.getAttribute('data-status'))"
        )
        assert {"cor", "non", "spu"} <= set(statuses)
        page.select_option("#adoc", "0")
        page.click("#aview details:nth-of-type(1) summary")
        page.wait_for_selector("#aview details[open] tr[data-fill]")  # drawn on the toggle event
        fills = page.eval_on_selector_all(
            "#aview details[open] tr[data-fill]",
            "es => es.map(e => [e.getAttribute('data-fill'),"
            " Array.from(e.cells).map(c => c.textContent)])",
        )
        want = [f for s in first[2][0][1][0][4] for f in s[2]]
        assert [f[0] for f in fills] == [f[0] for f in want]
        assert fills[0][1][2] == "</script><b>Acme</b> & Co"  # markup shown as text
        assert page.eval_on_selector_all("main b", "es => es.length") == 0
        page.check("#aerr")
        kept = page.eval_on_selector_all("#aview details", "es => es.length")
        assert 0 < kept < len([p for _, ps in first[2] for p in ps])
        assert opened.errors == []
    finally:
        page.close()
