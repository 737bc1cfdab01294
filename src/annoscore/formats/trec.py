"""TREC qrels and run files (whitespace-separated, as trec_eval reads them).

- qrels: ``query iteration document relevance`` per line (4 columns; relevance an integer).
- run: ``query Q0 document rank score tag`` per line (6 columns; the rank column is ignored,
  trec_eval ranks by score).

Blank lines are skipped; any other line without the right columns, or with a relevance or score
that is not a number, is an :class:`InputError` naming the file and line.
"""

from __future__ import annotations

import math
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import column_lines
from annoscore.model import Judgment, Retrieved


def _lines(path: Path, columns: int, names: str) -> list[tuple[int, list[str]]]:
    lines = column_lines(path, columns, names, separator=None)
    if not lines:
        raise InputError(f"the file is empty: expected lines of {names}", path)
    return lines


def read_qrels(path: Path) -> list[Judgment]:
    """The judgments of a qrels file, in file order."""
    out = []
    for number, (query, _, document, relevance) in _lines(
        path, 4, "query iteration document relevance"
    ):
        try:
            value = int(relevance)
        except ValueError:
            raise InputError(f"relevance {relevance!r} is not an integer", path, number) from None
        out.append(Judgment(query, document, value, number))
    return out


def read_run(path: Path) -> list[Retrieved]:
    """The retrieved documents of a run file, in file order."""
    out = []
    for number, (query, _, document, _rank, score, tag) in _lines(
        path, 6, "query Q0 document rank score tag"
    ):
        try:
            value = float(score)
        except ValueError:
            raise InputError(f"score {score!r} is not a number", path, number) from None
        if math.isnan(value):
            raise InputError("score is NaN", path, number)
        out.append(Retrieved(query, document, value, tag, number))
    return out
