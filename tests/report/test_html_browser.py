"""The HTML report in a real browser (headless Chromium, tests/report/browser.py): a report of
every task family loads from file:// with no console error and no network request, every number
shown equals the embedded JSON read from the rendered page, markup in the input shows as text,
and the per-document table sorts and filters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annoscore.report.html import render_html
from annoscore.significance import with_intervals
from annoscore.tasks import registry
from tests.report.browser import at, check_number, open_report
from tests.report.test_html import _hostile, sample_result

FAMILIES = sorted(
    {
        "pharmaconer-ner",
        "pharmaconer-indexing",
        "spans",
        "coref",
        "muc-template-element",
        "muc-named-entity",
        "muc-coreference",
        "codiesp-d",
        "codiesp-x",
        "trec",
        "nlpsandbox-location",
        "are-1",
        "are-2",
        "are-4",
        "conlleval",
        "seqeval",
    }
)


def test_every_family_is_listed() -> None:
    families = {name.split("-")[0] for name in registry.TASKS}
    assert families <= {name.split("-")[0] for name in FAMILIES}


def _check_page(opened: Any) -> int:
    data = opened.data()
    numbers = opened.numbers()
    for path, shown, title in numbers:
        check_number(at(data, path), shown, title)
    coref = opened.page.query_selector("#annoscore-coref")
    if coref is not None:  # the coreference errors table: numbers of its own JSON
        embedded = json.loads(coref.text_content() or "")
        cells = opened.page.eval_on_selector_all(
            "[data-coref-path]",
            "es => es.map(e => [e.getAttribute('data-coref-path'), e.textContent, e.title])",
        )
        assert cells
        for where, shown, title in cells:
            value = at(embedded, json.loads(where))
            if isinstance(value, float) and shown.startswith("+"):
                shown = shown[1:]
            check_number(value, shown, title or None)
        assert embedded["scores"][-1] and all(v == 1.0 for v in embedded["scores"][-1].values())
    # no number in a table goes unchecked
    unchecked = opened.page.eval_on_selector_all(
        "td.num:not([data-path]):not([data-coref-path]), span.num:not([data-path])",
        "es => es.map(e => e.textContent).filter(t => /[0-9]/.test(t))",
    )
    assert unchecked == []
    documents = opened.page.eval_on_selector("[data-count='documents']", "e => e.textContent")
    assert int(documents) == len(data.get("documents", {}))
    return len(numbers)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_report_of_each_family_loads_and_shows_the_json(
    browser: Any, tmp_path: Path, name: str
) -> None:
    result = sample_result(name)
    if name in ("spans", "coref", "trec"):
        result = with_intervals(result, samples=30, seed=3)
    path = tmp_path / f"{name}.html"
    path.write_text(render_html(result, command=f"annoscore {name} ..."), encoding="utf-8")
    opened = open_report(browser, path)
    try:
        assert opened.errors == []
        shown = _check_page(opened)
        data = opened.data()
        rows = opened.page.eval_on_selector_all("#docs tbody tr", "es => es.length")
        assert rows == min(200, len(data["documents"]))
        assert shown >= len(data["scores"]) + rows
        if "intervals" in data:
            assert any(p[0] == "intervals" for p, _, _ in opened.numbers())
    finally:
        opened.page.close()


def test_markup_in_a_document_shows_as_text(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "hostile.html"
    path.write_text(render_html(_hostile()), encoding="utf-8")
    opened = open_report(browser, path)
    try:
        assert opened.errors == []
        assert opened.page.evaluate("() => window.pwned") is None
        assert opened.page.eval_on_selector_all("main b, main i, main img", "es => es.length") == 0
        names = opened.page.eval_on_selector_all(
            "#docs td.name", "es => es.map(e => e.textContent)"
        )
        assert "</script><script>window.pwned=1</script>&amp;<b>" in names
        warning = opened.page.eval_on_selector("details.warn li", "e => e.textContent")
        assert warning == "a warning quoting </script><i>x</i> & more"
        _check_page(opened)
    finally:
        opened.page.close()


def test_documents_are_worst_first_filterable_and_sortable(browser: Any, tmp_path: Path) -> None:
    result = sample_result("pharmaconer-ner")
    path = tmp_path / "docs.html"
    path.write_text(render_html(result), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:

        def column(i: int) -> list[str]:
            return list(
                page.eval_on_selector_all(
                    f"#docs tbody tr td:nth-child({i})", "es => es.map(e => e.textContent)"
                )
            )

        header = page.eval_on_selector_all("#docs thead th", "es => es.map(e => e.textContent)")
        f1 = header.index("f1") + 1
        values = [float(v) for v in column(f1) if v != "-"]
        assert values == sorted(values) and values[0] < values[-1]
        assert column(f1)[-1] == "-"  # undefined last
        page.fill("#docfilter", "000900013")
        assert column(1) == ["S0004-06142005000900013-1"]
        page.fill("#docfilter", "")
        page.click(f"#docs thead th:nth-child({f1})")
        page.click(f"#docs thead th:nth-child({f1})")
        values = [float(v) for v in column(f1) if v != "-"]
        assert values == sorted(values, reverse=True)
        assert opened.errors == []
    finally:
        page.close()


def test_the_page_works_without_javascript_and_prints(browser: Any, tmp_path: Path) -> None:
    result = sample_result("spans").shown(types=True)
    path = tmp_path / "nojs.html"
    path.write_text(render_html(result), encoding="utf-8")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(path.as_uri())
        assert page.eval_on_selector_all("#scores td.num", "es => es.length") >= 3
        assert page.eval_on_selector_all("#types tbody tr", "es => es.length") >= 1
        assert page.pdf()[:5] == b"%PDF-"  # it prints
    finally:
        context.close()


def _comparison_page(browser: Any, tmp_path: Path, name: str, intervals: bool = False) -> Any:
    """The page of ``name``'s sample system ("run") beside its gold ("oracle"), opened."""
    from annoscore.report.html import render_comparison_html
    from annoscore.significance import paired_test

    task = registry.get(name)
    gold, system, options = registry.sample_paths(task)
    results = {"run": task.run(gold, system, **options), "oracle": task.run(gold, gold, **options)}
    if intervals:
        results = {n: with_intervals(r, samples=30, seed=2) for n, r in results.items()}
    comparison = paired_test(
        results["run"], {"oracle": results["oracle"]}, samples=100, baseline_name="run"
    )
    path = tmp_path / "many.html"
    path.write_text(render_comparison_html(results, comparison), encoding="utf-8")
    return open_report(browser, path)


def test_a_report_of_several_systems_shows_the_json(browser: Any, tmp_path: Path) -> None:
    opened = _comparison_page(browser, tmp_path, "pharmaconer-ner", intervals=True)
    try:
        assert opened.errors == []
        data = opened.data()
        numbers = opened.numbers()
        for where, shown, title in numbers:
            check_number(at(data, where), shown, title)
        seen = {tuple(p[:4]) for p, _, _ in numbers}
        assert ("comparison", "systems", "oracle", "p_value") in seen
        assert ("comparison", "systems", "oracle", "interval") in seen
        assert ("systems", "run", "intervals", "f1") in seen
        assert ("systems", "oracle", "types", "PROTEINAS") in seen
    finally:
        opened.page.close()


def test_a_report_of_several_systems_sets_their_macro_averages_side_by_side(
    browser: Any, tmp_path: Path
) -> None:
    """Each macro average (over types, over documents) of each system is a cell of the
    "Macro averages" card, showing the number the system's JSON holds."""
    opened = _comparison_page(browser, tmp_path, "spans")
    try:
        assert opened.errors == []
        data = opened.data()
        cells = opened.page.eval_on_selector_all(
            "#averages td[data-path]", "es => es.map(e => e.getAttribute('data-path'))"
        )
        shown = {tuple(json.loads(c)) for c in cells}
        expected = {
            ("systems", n, "averages", average, key)
            for n in ("run", "oracle")
            for average, scores in data["systems"][n]["averages"].items()
            for key in scores
        }
        assert shown == expected and len(expected) >= 2 * 2 * 3
        for where, text, title in opened.numbers():
            check_number(at(data, where), text, title)
        assert data["systems"]["oracle"]["averages"]["macro_doc"]["strict_f1"] == 1.0
    finally:
        opened.page.close()
