"""TREC qrels and run readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.trec import read_qrels, read_run


def test_reads_qrels_and_run(tmp_path: Path) -> None:
    qrels = tmp_path / "q"
    qrels.write_text("q1 0 d1 1\n\nq1 0 d2 -1\n")
    run = tmp_path / "r"
    run.write_text("q1\tQ0\td1\t1\t2.5e0\ttag\n")
    assert [(j.query, j.document, j.relevance, j.line) for j in read_qrels(qrels)] == [
        ("q1", "d1", 1, 1),
        ("q1", "d2", -1, 3),
    ]
    [r] = read_run(run)
    assert (r.query, r.document, r.score, r.tag) == ("q1", "d1", 2.5, "tag")


@pytest.mark.parametrize(
    ("reader", "text", "line", "message"),
    [
        (read_qrels, "q1 0 d1 1\nq1 0 d2\n", 2, "expected 4"),
        (read_qrels, "q1 0 d1 yes\n", 1, "not an integer"),
        (read_run, "q1 Q0 d1 1 2.0\n", 1, "expected 6"),
        (read_run, "q1 Q0 d1 1 high t\n", 1, "not a number"),
        (read_run, "q1 Q0 d1 1 nan t\n", 1, "NaN"),
    ],
)
def test_bad_lines(tmp_path: Path, reader, text: str, line: int, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "f"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as error:
        reader(path)
    assert error.value.line == line


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("\n")
    with pytest.raises(InputError, match="empty"):
        read_run(path)
