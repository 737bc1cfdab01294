"""The worst documents of CodiEsp D/P in an HTML report (report/html_trec.py, the renderer of
trec's worst queries): each with its codes as MAP ranks them, gold codes marked and the gold
codes never predicted listed after; checked against per-document AP and the gold computed here
from the files and from random data, and in Chromium."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

from annoscore.metrics.codiesp import CodiespDetails
from annoscore.metrics.ranked_codes import TieOrder
from annoscore.report.html import render_html
from annoscore.report.html_trec import RANKED_ID, ranked_data
from annoscore.samples import SAMPLES
from annoscore.tasks.codiesp import (
    RankedOptions,
    count_codiesp_d,
    score_codiesp_d,
    score_codiesp_p,
)
from tests.report.browser import open_report


def _pairs(path: Path) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [(d.strip(), c.strip().lower()) for d, c in rows]


def _check(
    data: dict[str, Any],
    gold: dict[str, list[str]],
    pred: dict[str, list[str]],
    by_code: bool = False,
) -> None:
    """Every listed document against ``gold`` and ``pred`` (valid codes, in file order): its
    ranked codes are its distinct predictions in order, marked relevant exactly when gold, the
    missed ones are its gold codes never predicted, and AP recomputed from the list is the
    document's score."""
    assert data["unit"] == "document" and data["item"] == "code" and data["level"] == 1
    for name, score, relevant, found, ranked, missed in data["queries"]:
        gold_codes = set(gold.get(name, []))
        predicted = list(dict.fromkeys(pred.get(name, [])))
        if by_code:  # --tie-order code: each document's codes in code order
            predicted.sort()
        assert [c for c, _ in ranked] == predicted[: data["shown"]]
        assert [bool(r) for _, r in ranked] == [c in gold_codes for c in predicted]
        assert sorted(missed) == sorted(gold_codes - set(predicted))
        assert relevant == len(gold_codes)
        assert found == sum(c in gold_codes for c in predicted)
        if name in gold and predicted:
            hits, ap = 0, 0.0
            for k, (_, r) in enumerate(ranked, 1):
                if r:
                    hits += 1
                    ap += hits / k
            assert score is not None and abs(ap / relevant - score) < 1e-12, name
        elif predicted:  # a predicted document absent from the gold: AP 0 (extra_docs zero)
            assert score == 0.0 and relevant == found == 0
        else:  # a gold document without prediction is left out of MAP (missing_docs ignore)
            assert score is None and ranked == []


def test_the_sample_lists_agree_with_ap_and_the_gold() -> None:
    c = SAMPLES / "codiesp"
    for kind, score in (("D", score_codiesp_d), ("P", score_codiesp_p)):
        valid = {
            line.split("\t")[0].strip().lower()
            for line in (c / f"codes-{kind}.tsv").read_text(encoding="utf-8").splitlines()
            if line.strip()
        }
        result = score(
            c / f"gs_{kind}.tsv",
            c / f"pred_{kind}.tsv",
            RankedOptions(codes=c / f"codes-{kind}.tsv"),
        )
        shown = result.shown(documents=True)
        data = ranked_data(shown.details, shown.documents, "map")
        assert data is not None and data["queries"], kind
        gold: dict[str, list[str]] = {}
        for d, code in _pairs(c / f"gs_{kind}.tsv"):
            gold.setdefault(d, []).append(code)
        pred: dict[str, list[str]] = {}
        for d, code in _pairs(c / f"pred_{kind}.tsv"):
            if code in valid:
                pred.setdefault(d, []).append(code)
        _check(data, gold, pred)
        scores = [q[1] for q in data["queries"]]
        defined = [s for s in scores if s is not None]
        assert defined == sorted(defined) and scores[: len(defined)] == defined
        assert {q[0] for q in data["queries"]} == set(gold) | set(pred)


def test_random_lists_agree_with_ap_and_the_gold() -> None:
    rng = random.Random(7)
    codes = ["a", "b", "c", "d", "e", "f", "<i>", "a1"]
    for _ in range(150):
        gold = {f"d{k}": rng.sample(codes, rng.randrange(1, 5)) for k in range(rng.randrange(1, 6))}
        pred = {
            f"d{k}": [rng.choice(codes) for _ in range(rng.randrange(1, 8))]
            for k in range(rng.randrange(0, 7))
        }
        by_code = rng.random() < 0.5
        options = RankedOptions(tie_order=TieOrder.code if by_code else TieOrder.file)
        result = count_codiesp_d(gold, pred, codes, options).shown(documents=True)
        data = ranked_data(result.details, result.documents, "map")
        assert data is not None
        _check(data, gold, pred, by_code)


def test_a_pickled_copy_leaves_the_lists_out() -> None:
    result = count_codiesp_d({"D1": ["a"]}, {"D1": ["a", "b"]}, ["a", "b"])
    assert isinstance(result.details, CodiespDetails) and result.details.ranking is not None
    copy = pickle.loads(pickle.dumps(result.details))
    assert copy == result.details and copy.ranking is None


def test_no_lists_where_map_reads_numeric_ids() -> None:
    result = count_codiesp_d({"1": ["a"]}, {"001": ["a"]}, ["a"])
    assert isinstance(result.details, CodiespDetails) and result.details.ranking is None
    assert ranked_data(result.details, result.shown(documents=True).documents, "map") is None


def test_the_worst_documents_in_chromium(browser: Any, tmp_path: Path) -> None:
    markup = "<b>&x</b>"
    gold = {"D1": ["a", markup, "c"], "D2": ["b"], "D3": ["c", "d"]}
    pred = {"D1": ["z", markup, "a"], "D2": ["b"], "D3": ["z", "e"]}
    result = count_codiesp_d(gold, pred, ["a", "b", "c", "d", "e", "z", markup])
    path = tmp_path / "codiesp.html"
    path.write_text(render_html(result), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        assert opened.errors == []
        embedded = opened.data(RANKED_ID)
        assert [q[0] for q in embedded["queries"]] == ["D3", "D1", "D2"]
        rows = page.eval_on_selector_all(
            "#rlist tbody tr",
            "es => es.map(e => [e.getAttribute('data-rel'), e.cells[1].textContent])",
        )
        assert rows == [["0", "z"], ["0", "e"], ["missed", "c"], ["missed", "d"]]
        page.select_option("#rquery", "1")
        rows = page.eval_on_selector_all(
            "#rlist tbody tr",
            "es => es.map(e => [e.getAttribute('data-rel'), e.cells[1].textContent])",
        )
        assert rows == [["0", "z"], ["1", markup], ["1", "a"], ["missed", "c"]]
        marks = page.eval_on_selector_all(
            "#rlist tbody tr", "es => es.map(e => e.cells[2].textContent)"
        )
        assert marks == ["not gold", "gold", "gold", "gold, not predicted"]
        assert page.eval_on_selector_all("main b", "es => es.length") == 0
        summary = page.eval_on_selector("#rsum", "e => e.textContent")
        assert summary == "2 of 3 relevant codes retrieved"
        assert opened.errors == []
    finally:
        page.close()
