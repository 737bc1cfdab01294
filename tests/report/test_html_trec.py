"""The worst queries of a trec report (report/html_trec.py): the queries of lowest per-query
score with their ranked lists as trec_eval ranks them, relevant documents marked; checked
against the result's own per-query counts and trec_eval's relstring, and in Chromium."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from annoscore.report.html import render_html
from annoscore.report.html_trec import RANKED_ID, ranked_data
from annoscore.tasks.trec import TrecOptions, score_trec
from tests.report.browser import open_report


def _files(folder: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(8):
        docs = [f"d{k}" for k in range(rng.randrange(3, 25))]
        for d in docs:
            if rng.random() < 0.6:
                qrels.append(f"q{q} 0 {d} {rng.choice((0, 1, 1, 2))}")
        for d in rng.sample(docs, rng.randrange(1, len(docs))):
            run.append(f"q{q} Q0 {d} 0 {rng.choice((1.0, 2.5, 2.5, 3.0, 7.25))} tag")
    qrels.append("q8 0 <b>&x</b> 1")  # markup in an id
    run.append("q8 Q0 <b>&x</b> 0 1.0 tag")
    run.append("q8 Q0 other 0 1.0 tag")
    (folder / "qrels").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "run").write_text("\n".join(run) + "\n", encoding="utf-8")
    return folder / "qrels", folder / "run"


def test_the_ranked_lists_are_trec_evals(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path, 3)
    options = TrecOptions(measures=("map", "relstring", "num_rel", "num_rel_ret"))
    result = score_trec(qrels, run, options)
    shown = result.shown(documents=True)
    data = ranked_data(shown.details, shown.documents, "map")
    assert data is not None and data["queries"]
    maps = [q[1] for q in data["queries"]]
    assert maps == sorted(maps)
    relstrings = dict(zip(shown.documents, shown.details.relstrings, strict=True))  # type: ignore[union-attr]
    for name, _, relevant, found, ranked, missed in data["queries"]:
        assert missed == []
        counts = shown.documents[name].counts
        assert relevant == counts["num_rel"] and found == counts["num_rel_ret"]
        marks = "".join("-" if r is None else str(r) for _, r in ranked)
        official = relstrings[name].strip("'")  # trec_eval quotes it
        assert official and marks.startswith(official), (name, official, marks)


def test_the_worst_queries_in_chromium(browser: Any, tmp_path: Path) -> None:
    qrels, run = _files(tmp_path, 4)
    result = score_trec(qrels, run, TrecOptions())
    path = tmp_path / "trec.html"
    path.write_text(render_html(result), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        assert opened.errors == []
        embedded = opened.data(RANKED_ID)
        first = embedded["queries"][0]
        rows = page.eval_on_selector_all(
            "#rlist tbody tr",
            "es => es.map(e => [e.getAttribute('data-rel'), e.cells[1].textContent])",
        )
        assert [r[1] for r in rows] == [d for d, _ in first[4]]
        assert [r[0] == "1" for r in rows] == [v is not None and v >= 1 for _, v in first[4]]
        where = [q[0] for q in embedded["queries"]].index("q8")
        page.select_option("#rquery", str(where))
        names = page.eval_on_selector_all("#rlist td.name", "es => es.map(e => e.textContent)")
        assert "<b>&x</b>" in names  # markup shown as text
        assert page.eval_on_selector_all("main b", "es => es.length") == 0
        assert opened.errors == []
    finally:
        page.close()
