"""CodiEsp D's default text layout (three tables listing every gold document, sorted by name;
``--per-doc`` a fourth) written by ``annoscore codiesp D`` with ``--jobs 2`` and with ``--jobs
1`` by chunks is the layout of one plain run, and its tables are a plain loop's, each document
scored on its own (:func:`tests.equivalence.test_codiesp.check_tables`): the tables are made
from one scoring per distinct row of counts (:meth:`annoscore.result.Result.units_of`, rows
found equal by :func:`annoscore.result._equal_rows`) and joined in pieces of ``BLOCK``
documents (:func:`annoscore.report.codiesp._column`).

Random adversarial corpora: ids of ``tests/equivalence/ids.py`` in no order (wide characters,
one above the Basic Multilingual Plane, whose UTF-16 order is not their code points' order),
many documents of equal counts (a few code patterns repeated), documents only in the gold
(printed ``-`` or 0 as the official script does), documents only in the predictions, an empty
prediction file, and pieces of 1, 2, 3 or 65,536 documents.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.report import codiesp as report
from tests.conftest import Cli
from tests.equivalence.test_codiesp import check_tables
from tests.scale.test_lines import _chunks_of, _ids

CASES = 8


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _corpus(rng: random.Random, root: Path, adversarial: bool) -> tuple[Path, Path, Path]:
    """A gold and a prediction TSV and a valid-code list: documents in random order, many of
    equal counts, some only in the gold, some only predicted, sometimes no prediction; the ids
    ``adversarial`` (numeric-looking ones among them, which the official script may read as
    one: such a corpus is mostly scored in one run) or case names as CodiEsp's."""
    n = rng.randint(3, 60)
    if adversarial:
        docs = _ids(rng, n, "\t\n\r\"'")
    else:
        docs = list(
            dict.fromkeys(f"S{rng.randrange(10**7):07d}-{rng.randint(1, 3)}" for _ in range(n))
        )
    docs += [d + s for d in docs[:2] for s in ("\uff01", "\U0001f600")]  # order of wide ids
    codes = [f"{c}{n:02d}.{n % 7}" for c in "abcz" for n in range(12)]
    patterns = [rng.sample(codes, rng.randint(1, 5)) for _ in range(rng.randint(1, 4))]
    guesses = [  # never none (a gold document without a prediction warns: one run)
        [c for c in p if rng.random() < 0.6] + rng.sample(codes, rng.randint(1, 2))
        for p in patterns
    ]
    gold: list[str] = []
    pred: list[str] = []
    unpredicted = rng.choice([0.0, 0.0, 0.0, 0.2])  # a document only in the gold warns: one run
    for doc in docs:
        k = rng.randrange(len(patterns))  # a few patterns: many documents of equal counts
        gold += [f"{doc}\t{c}" for c in patterns[k]]
        if rng.random() >= unpredicted:
            pred += [f"{doc}\t{c}" for c in dict.fromkeys(guesses[k])]
    if rng.random() < 0.15:
        pred.append(f"only-predicted\t{codes[0]}")
    if rng.random() < 0.15:
        pred = []  # an empty prediction file
    rng.shuffle(docs)
    order = {doc: n for n, doc in enumerate(docs)}  # the documents' lines together, unsorted
    gold.sort(key=lambda line: order.get(line.partition("\t")[0], -1))
    pred.sort(key=lambda line: order.get(line.partition("\t")[0], -1))
    paths = root / "gold.tsv", root / "pred.tsv", root / "codes.tsv"
    for path, lines in zip(paths, (gold, pred, codes), strict=True):
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return paths


@pytest.mark.parametrize("batch", range(2))
def test_the_text_layout_with_two_jobs_and_by_chunks_is_one_plain_runs(
    batch: int, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    rng = random.Random(f"codiesp-text-{batch}")
    cut = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        gold, pred, codes = _corpus(rng, root, adversarial=case % 2 == 1)
        block = rng.choice([1, 2, 3, 1 << 16])
        monkeypatch.setattr(report, "BLOCK", block)
        result = annoscore.score("codiesp-d", gold, pred, codes=codes)
        texts = {
            (): report.render_ranked(result),
            ("--per-doc",): report.render_ranked(result.shown(documents=True)),
        }
        check_tables(result, texts["--per-doc",], f"case {case} block {block}")
        assert texts[()].count("\t\t") >= 3 * len(result.details.gold_documents)
        words = ["codiesp", "D", "-g", gold, "-p", pred, "-c", codes]
        for extra, whole in texts.items():
            for jobs, chunk in (("2", None), ("1", rng.choice([40, 200]))):
                output = root / f"out-{jobs}{''.join(extra)}.txt"
                with _chunks_of(chunk) if chunk else contextlib.nullcontext():
                    ran = cli(*words, *extra, "--jobs", jobs, "-o", output)
                assert ran.exit_code == 0, ran.output
                got = output.read_text(encoding="utf-8")
                assert got == whole, (case, block, extra, jobs, chunk)
        cut += sum(exact)
        exact.clear()
    assert cut >= CASES, cut  # many runs combined from chunks (not scored again in one run)
