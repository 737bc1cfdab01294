"""The worst queries with their ranked lists (trec, CodiEsp D/P) after a run cut into chunks
(``-j 2``: each chunk keeps its worst queries' lists, metrics/worst_lists.py) are the lists of a
run in one process, and the page of several systems (``annoscore report``) shows each system's,
the same as its own page does."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.report.html_trec import RANKED_ID
from tests.report.browser import open_report


def _trec(folder: Path, seed: int, queries: int = 160) -> tuple[Path, Path]:
    """Many queries (more than the 50 listed, so each chunk keeps only some), ties of score
    between queries (one ranks them by name), one query without any relevant judgment."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        name = f"q{q:03d}"
        for d in range(12):
            qrels.append(f"{name} 0 d{d} {rng.choice((0, 1, 2)) if q != 7 else 0}")
        for rank, d in enumerate(rng.sample(range(24), rng.randrange(1, 20))):
            score = rng.choice((1.0, 2.5, 3.0)) if q % 5 else 1.0
            run.append(f"{name} Q0 d{d} {rank} {score} tag")
    (folder / "qrels").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "run").write_text("\n".join(run) + "\n", encoding="utf-8")
    return folder / "qrels", folder / "run"


def _codes(folder: Path, seed: int, documents: int = 150) -> tuple[Path, Path, Path]:
    rng = random.Random(seed)
    codes = [f"c{k:02d}" for k in range(40)]
    gold, pred = [], []
    for k in range(documents):
        mine = rng.sample(codes, rng.randrange(1, 6))
        gold += [f"doc{k:03d}\t{c}" for c in mine]
        guess = dict.fromkeys(rng.sample(codes, rng.randrange(1, 5)) + mine[: rng.randrange(3)])
        pred += [f"doc{k:03d}\t{c}" for c in guess]
    (folder / "codes.tsv").write_text("\n".join(codes) + "\n", encoding="utf-8")
    (folder / "gold.tsv").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (folder / "pred.tsv").write_text("\n".join(pred) + "\n", encoding="utf-8")
    return folder / "gold.tsv", folder / "pred.tsv", folder / "codes.tsv"


def _ranked(path: Path, suffix: str = "") -> Any:
    page = path.read_text(encoding="utf-8")
    found = re.search(
        rf'<script type="application/json" id="{RANKED_ID}{suffix}">(.*?)</script>', page, re.S
    )
    assert found is not None, f"no {RANKED_ID}{suffix} in {path.name}"
    return json.loads(found.group(1))


@pytest.fixture
def cut(monkeypatch: pytest.MonkeyPatch, exact: list[bool]) -> list[bool]:
    """Small files are cut; whether each cut run was combined (True) or scored again."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    return exact


@pytest.mark.parametrize("task", ["trec", "codiesp-d", "codiesp-p"])
def test_the_lists_after_two_jobs_are_those_of_one(
    cli: Any, cut: list[bool], tmp_path: Path, task: str
) -> None:
    for seed in range(3):
        folder = tmp_path / str(seed)
        folder.mkdir()
        if task == "trec":
            gold, system = _trec(folder, seed)
            args: list[Any] = [task, gold, system]
        else:
            gold, system, codes = _codes(folder, seed)
            args = ["codiesp", task[-1].upper(), "-g", gold, "-p", system, "--codes", codes]
        pages = {}
        for jobs in (1, 2):
            out = folder / f"j{jobs}.html"
            done = cli(*args, "-j", jobs, "-f", "html", "-o", out)
            assert done.exit_code == 0, done.output
            pages[jobs] = _ranked(out)
        assert cut and all(cut), "the run with -j 2 was not cut: the test tests nothing"
        assert len(pages[1]["queries"]) == 50
        assert pages[2] == pages[1]
        cut.clear()


def test_one_process_cutting_a_large_file_keeps_the_lists(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``annoscore trec -f html`` in a fresh process (where the run module is not imported
    beforehand) with a gold file over LINE_CHUNK_BYTES: ``-j 1`` scores it chunk by chunk, and
    the report's lists are those of one run, not dropped as chunks without a report drop them."""
    gold, system = _trec(tmp_path, 4, queries=30_000)
    assert gold.stat().st_size > scale.cut_lines.LINE_CHUNK_BYTES  # cut even with one process
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 1 << 40)  # in this process: one run
    whole = tmp_path / "whole.html"
    assert cli("trec", gold, system, "-f", "html", "-o", whole).exit_code == 0
    chunked = tmp_path / "chunked.html"
    command = [sys.executable, "-m", "annoscore", "trec", str(gold), str(system)]
    done = subprocess.run(
        [*command, "-j", "1", "-f", "html", "-o", str(chunked)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(_ranked(whole)["queries"]) == 50
    assert _ranked(chunked) == _ranked(whole)


def test_no_lists_are_sent_without_a_report(cut: list[bool], tmp_path: Path) -> None:
    from annoscore.tasks.trec import score_trec

    qrels, run = _trec(tmp_path, 5)
    with scale.using(2):
        result = score_trec(qrels, run)
    assert cut == [True]
    assert result.details.ranking is None  # type: ignore[union-attr]


def test_the_page_of_several_systems_lists_each_ones_worst(
    cli: Any, browser: Any, tmp_path: Path
) -> None:
    qrels, run = _trec(tmp_path, 1)
    other = tmp_path / "other"
    lines = run.read_text(encoding="utf-8").splitlines()
    other.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")  # same lists
    second = tmp_path / "second"
    second.mkdir()
    _, run2 = _trec(second, 2)
    alone = {}
    for name, path in (("run", run), ("run2", run2)):
        out = tmp_path / f"{name}.html"
        assert cli("trec", qrels, path, "-f", "html", "-o", out).exit_code == 0
        alone[name] = _ranked(out)
    out = tmp_path / "many.html"
    done = cli("report", "trec", qrels, run, run2, "--names", "a,b", "--samples", "50", "-o", out)
    assert done.exit_code == 0, done.output
    assert _ranked(out, "-0") == alone["run"] and _ranked(out, "-1") == alone["run2"]
    opened = open_report(browser, out)
    page = opened.page
    try:
        assert opened.errors == []
        for k, name in ((0, "run"), (1, "run2")):
            queries = alone[name]["queries"]
            shown = page.eval_on_selector_all(
                f"#rlist-{k} td.name", "es => es.map(e => e.textContent)"
            )
            assert shown == [row[0] for row in queries[0][4]]
            page.select_option(f"#rquery-{k}", "3")
            shown = page.eval_on_selector_all(
                f"#rlist-{k} td.name", "es => es.map(e => e.textContent)"
            )
            assert shown == [row[0] for row in queries[3][4]]
            summary = page.eval_on_selector(f"#rsum-{k}", "e => e.textContent")
            assert summary == f"{queries[3][3]} of {queries[3][2]} relevant documents retrieved"
        assert page.eval_on_selector_all("a[href='#worst-1']", "es => es.length") == 1
        assert opened.errors == []
    finally:
        page.close()
