"""The trec findings of issues 24 and 25, one test each: exact identity of ids across the two
files, time and memory linear in the bytes, and the inputs trec_eval master reads (or refuses)
that annoscore read differently."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path
from unittest import mock

import pytest

from annoscore.align import trec as trec_join
from annoscore.errors import InputError
from annoscore.tasks.trec import TrecOptions, score_trec
from tests.conftest import Cli


def files(tmp_path: Path, qrels: bytes | str, run: bytes | str) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(qrels.encode() if isinstance(qrels, str) else qrels)
    r.write_bytes(run.encode() if isinstance(run, str) else run)
    return q, r


def test_one_id_is_one_document_in_both_files(cli: Cli, tmp_path: Path) -> None:
    """Issue 24: a longer id in the qrels changed how the qrels hashed ``abcdefgh`` (trec_eval:
    map 1.0; annoscore gave 0.0)."""
    q, r = files(tmp_path, "1 0 abcdefgh 1\n1 0 abcdefghi 0\n", "1 Q0 abcdefgh 1 1 r\n")
    assert cli.json("trec", q, r)["scores"]["map"] == 1.0
    q, r = files(tmp_path, "1 0 abcdefgh 1\n", "1 Q0 abcdefgh 1 1 r\n1 Q0 " + "z" * 41 + " 2 0 r\n")
    assert cli.json("trec", q, r)["scores"]["map"] == 1.0


def test_ids_longer_than_the_words_differ_after_them(tmp_path: Path) -> None:
    """Ids that share the bytes kept as words (32) and differ after them are two documents, and
    rank as their bytes order (descending on a tie)."""
    stem = "p" * 40
    q, r = files(tmp_path, f"1 0 {stem}a 1\n", f"1 Q0 {stem}b 1 1 r\n1 Q0 {stem}a 2 1 r\n")
    result = score_trec(q, r)
    assert result.scores["map"] == 0.5  # ...b ranks first on the tie, ...a second


def test_a_hash_collision_is_neither_a_crash_nor_a_lost_judgment(tmp_path: Path) -> None:
    """The join's hash only orders candidates: with every hash equal, the duplicate judgment
    is still found (the last line wins), no ``RuntimeError``, every judgment found."""
    import numpy as np

    q, r = files(
        tmp_path,
        "1 0 a 0\n1 0 b 1\n1 0 a 1\n2 0 a 1\n",
        "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 b 1 1 r\n",
    )
    plain = score_trec(q, r)

    def collide(columns: list[np.ndarray], out: np.ndarray) -> None:
        out[:] = 0

    with mock.patch.object(trec_join, "_candidate_hash", collide):
        colliding = score_trec(q, r)
    assert colliding.scores == plain.scores == {"map": 0.5}
    assert colliding.counts == plain.counts
    assert [w.examples for w in colliding.warnings] == [w.examples for w in plain.warnings]


def _bounded(qrels: Path, run: Path, seconds: float, megabytes: float) -> None:
    tracemalloc.start()
    start = time.process_time()
    try:
        score_trec(qrels, run)
        used = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert used < seconds and peak < megabytes, (used, peak)


def test_one_long_id_costs_its_bytes_not_rows_times_its_length(tmp_path: Path) -> None:
    """Issue 25: a 100,000-line run with one 40,000-character document id took 9 s and 4.5 GB
    (columns as wide as the longest id for every row)."""
    run = "".join(
        f"{i % 1000} Q0 {'x' * 40_000 if i == 50_000 else f'd{i}'} 1 {i % 97} r\n"
        for i in range(100_000)
    )
    qrels = "".join(f"{i % 1000} 0 d{i} 1\n" for i in range(0, 100_000, 3))
    _bounded(*files(tmp_path, qrels, run), seconds=5, megabytes=150)


def test_a_five_megabyte_token_is_read_in_linear_time(tmp_path: Path) -> None:
    """Issue 25: a 5 MB token ran past 20 s (a document id, and a query id)."""
    run = (
        "1 Q0 "
        + "y" * 5_000_000
        + " 1 1.0 r\n"
        + "".join(f"1 Q0 d{i} 1 0.5 r\n" for i in range(999))
    )
    qrels = "1 0 " + "y" * 5_000_000 + " 1\n" + "7" * 5_000_000 + " 0 d1 1\n"
    _bounded(*files(tmp_path, qrels, run), seconds=5, megabytes=200)


def test_max_docs_keeps_the_first_n_of_each_ranking(cli: Cli, tmp_path: Path) -> None:
    """trec_eval -M: only the first N ranked documents of each query (ranked by score, not
    by line)."""
    q, r = files(tmp_path, "1 0 a 1\n1 0 b 1\n", "1 Q0 b 1 1 r\n1 Q0 a 2 2 r\n1 Q0 c 3 3 r\n")
    out = cli.json("trec", q, r, "-M", "2")
    assert out["scores"]["map"] == pytest.approx(0.25)  # c, a: a at rank 2 of 2 relevant
    assert out["counts"]["num_ret"] == 2 and "max-docs:2" in out["signature"]
    assert cli.json("trec", q, r)["scores"]["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert score_trec(q, r, TrecOptions(max_docs=2)).scores == out["scores"]
    assert cli("trec", q, r, "-M", "0").exit_code == 2
    with pytest.raises(InputError, match="max_docs: expected at least 1"):
        TrecOptions(max_docs=0)


def test_judgements_below_zero_are_never_relevant(cli: Cli, tmp_path: Path) -> None:
    """trec_eval with -l -1 (any level <= 0): a judgement below 0 is never relevant."""
    q, r = files(tmp_path, "1 0 a -1\n1 0 b 0\n1 0 c -3\n", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n")
    out = cli.json("trec", q, r, "-l", "-1")
    assert out["counts"]["num_rel"] == 1 and out["scores"]["map"] == 0.5  # only b (judged 0)
    assert cli.json("trec", q, r, "-l", "-5")["counts"]["num_rel"] == 1


def test_run_lines_with_more_fields_are_read_with_a_warning(cli: Cli, tmp_path: Path) -> None:
    q, r = files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1 r extra fields\n")
    out = cli.json("trec", q, r)
    assert out["scores"]["map"] == 1.0
    assert any("more than 6 fields" in w and f"{r}:1" in w for w in out["warnings"])
    assert cli("trec", q, r, "--strict-input").exit_code == 2


def test_relevance_written_as_a_decimal_or_with_a_plus(cli: Cli, tmp_path: Path) -> None:
    """trec_eval reads ``1.0`` and ``+1`` (atol: the integer part); annoscore too, the decimal
    with a warning."""
    q, r = files(tmp_path, "1 0 a 1.0\n1 0 b +1\n1 0 c 0.9\n", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    result = score_trec(q, r)
    assert result.scores["map"] == 1.0 and result.counts["num_rel"] == 2  # 0.9 is 0
    [warning] = result.warnings
    assert warning.code == "trec.decimal-relevance" and warning.count == 2
    assert warning.examples == (f"{q}:1", f"{q}:3")


def test_document_ids_that_are_not_utf8(cli: Cli, tmp_path: Path) -> None:
    """trec_eval compares ids as bytes: they are read (today exit 2), with a warning."""
    q, r = files(tmp_path, b"1 0 d\xff 1\n1 0 d\xfe 1\n", b"1 Q0 d\xff 1 2 r\n1 Q0 x 2 1 r\n")
    out = cli.json("trec", q, r)
    assert out["scores"]["map"] == 0.5
    assert any("not UTF-8" in w and f"{q}:1" in w and f"{r}:1" in w for w in out["warnings"])
    text = cli("trec", q, r, "--per-doc")
    assert text.exit_code == 0


def test_query_ids_that_read_alike_once_escaped_are_refused(cli: Cli, tmp_path: Path) -> None:
    q, r = files(tmp_path, b"q\xff 0 a 1\nq\\xff 0 a 1\n", b"q\xff Q0 a 1 1 r\n")
    result = cli("trec", q, r)
    assert result.exit_code == 2 and f"{q}:1:" in result.stderr


def test_an_empty_line_in_the_qrels_is_named(cli: Cli, tmp_path: Path) -> None:
    """trec_eval refuses a qrels file with an empty line; annoscore scored it silently."""
    q, r = files(tmp_path, "1 0 a 1\n\n1 0 b 1\n  \n", "1 Q0 a 1 1 r\n")
    out = cli.json("trec", q, r)
    assert any("blank line" in w and f"{q}:2" in w and f"{q}:4" in w for w in out["warnings"])
    assert cli("trec", q, r, "--strict-input").exit_code == 2


@pytest.mark.parametrize(
    ("qrels", "run", "where"),
    [
        ("1 0 a " + "9" * 5000 + "\n", "1 Q0 a 1 1 r\n", "qrels.txt:1:"),
        ("1 0 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 2 " + "9" * 5000 + " r\n", "run.txt:2:"),
        ("1 0 a 1\n", "1 Q0 a 1 1e400 r\n", "run.txt:1:"),
    ],
)
def test_numbers_of_5000_digits_are_exit_2(
    cli: Cli, tmp_path: Path, qrels: str, run: str, where: str
) -> None:
    """A relevance of 5,000 digits was an internal error (exit 1, Python's int limit)."""
    result = cli("trec", *files(tmp_path, qrels, run))
    assert result.exit_code == 2 and where in result.stderr and "range" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
