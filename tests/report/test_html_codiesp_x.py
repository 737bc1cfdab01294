"""The span analysis of ``annoscore codiesp X --format html`` (cli/codiesp.py): the references of
both files typed by their label, predictions of invalid codes left out as the task leaves them,
the page saying how this differs from the task's (document, code) pairs and what it lacks (no
text); in Chromium with no error; ``-j 2`` writes the bytes of ``-j 1``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.report.html_spans import ERRORS_ID
from annoscore.samples import SAMPLES
from tests.report.browser import open_report
from tests.report.test_html import element, embedded

CODIESP = SAMPLES / "codiesp"
CODES = ("--codes-d", CODIESP / "codes-D.tsv", "--codes-p", CODIESP / "codes-P.tsv")


def _errors(page: str) -> Any:
    return element(page, ERRORS_ID)


def _page(cli: Any, out: Path, *args: Any) -> str:
    done = cli("codiesp", "X", *args, "-f", "html", "-o", out)
    assert done.exit_code == 0, done.output
    return out.read_text(encoding="utf-8")


def test_the_page_analyses_the_references(cli: Any, tmp_path: Path) -> None:
    args = ("--gold", CODIESP / "gs_X.tsv", "--pred", CODIESP / "pred_X.tsv", *CODES)
    page = _page(cli, tmp_path / "x.html", *args)
    assert embedded(page) == cli.json("codiesp", "X", *args, "--per-doc")  # unchanged
    errors = _errors(page)
    assert len(errors["gk"]) == len((CODIESP / "gs_X.tsv").read_text().splitlines())
    assert "DIAGNOSTICO" in errors["typenames"]
    assert errors["t"] == [None] * len(errors["docs"])
    assert "CodiEsp-X counts (document, code) pairs" in page
    assert "Texts left out" not in page


def test_invalid_codes_are_left_out_and_labels_compared(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "d.tsv").write_text("a00\nb11\n", encoding="utf-8")
    (tmp_path / "p.tsv").write_text("xyz\n", encoding="utf-8")
    gold = "doc\tDIAGNOSTICO\tA00\tfiebre\t0 6\ndoc\tDIAGNOSTICO\tb11\ttos seca\t10 18\n"
    pred = (
        "doc\t0 6\tDIAGNOSTICO\tA00\ndoc\t10 18\tPROCEDIMIENTO\tb11\ndoc\t30 35\tDIAGNOSTICO\tzzz\n"
    )
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "s.tsv").write_text(pred, encoding="utf-8")
    codes = ("--codes-d", tmp_path / "d.tsv", "--codes-p", tmp_path / "p.tsv")
    args = ("--gold", tmp_path / "g.tsv", "--pred", tmp_path / "s.tsv", *codes)
    errors = _errors(_page(cli, tmp_path / "x.html", *args))
    categories = errors["categories"]
    kinds = [categories[k % len(categories)] for k in errors["gk"]]
    assert kinds == ["correct", "type"]  # codes are not compared; zzz (invalid) left out
    assert len(errors["pk"]) == 2
    errors = _errors(_page(cli, tmp_path / "y.html", *args, "--no-lowercase"))
    kinds = [categories[k % len(categories)] for k in errors["gk"]]
    assert kinds == ["missed", "type"]  # A00 as written is no valid code: left out too
    assert len(errors["pk"]) == 1


def test_the_page_loads_in_a_browser(cli: Any, browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "x.html"
    _page(cli, out, "--gold", CODIESP / "gs_X.tsv", "--pred", CODIESP / "pred_X.tsv", *CODES)
    opened = open_report(browser, out)
    try:
        assert opened.errors == []
        assert opened.page.eval_on_selector_all("#errors tbody tr", "rs => rs.length") >= 1
        assert opened.page.eval_on_selector("#vpos", "e => e.textContent")
        assert opened.errors == []
    finally:
        opened.page.close()


def test_two_jobs_write_the_page_of_one(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    rng = random.Random(4)
    codes = [f"c{k:02d}" for k in range(20)]
    (tmp_path / "d.tsv").write_text("\n".join(codes[:10]) + "\n", encoding="utf-8")
    (tmp_path / "p.tsv").write_text("\n".join(codes[10:]) + "\n", encoding="utf-8")
    gold, pred = [], []
    for d in range(60):
        for code in rng.sample(codes, rng.randrange(1, 5)):
            start = rng.randrange(0, 500, 10)  # written 30 later
            label = "DIAGNOSTICO" if code < "c10" else "PROCEDIMIENTO"
            gold.append(f"doc{d:02d}\t{label}\t{code}\tword\t{start + 30} {start + 36}")
            wider = rng.choice((0, 0, 30))  # exact, or beyond the tolerance
            pred.append(f"doc{d:02d}\t{start + 30 - wider} {start + 36 + wider}\t{label}\t{code}")
    (tmp_path / "g.tsv").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.tsv").write_text("\n".join(pred) + "\n", encoding="utf-8")
    codes_args = ("--codes-d", tmp_path / "d.tsv", "--codes-p", tmp_path / "p.tsv")
    args = ("--gold", tmp_path / "g.tsv", "--pred", tmp_path / "s.tsv", *codes_args)
    pages = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.html"
        done = cli("codiesp", "X", *args, "-j", jobs, "-f", "html", "-o", out)
        assert done.exit_code == 0, done.output
        pages[jobs] = out.read_bytes()
    assert exact and all(exact), "the run with -j 2 was not cut: the test tests nothing"
    assert pages[2] == pages[1]
    assert f'id="{ERRORS_ID}"'.encode() in pages[1]
