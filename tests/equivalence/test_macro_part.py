"""Differential test of the columns a chunk sends for ``macro_doc``
(``annoscore.scale.reduce._macro_part``) against the plain way
(``_macro_part_of_documents``: every document scored, row after row).

The fast way scores each distinct row of counts once (``Result.document_units``) and copies
its scores to the documents of that row.  Random matrices of few distinct rows (repeated
counts, ``-0.0`` beside ``0.0``, float and integer columns, per-type columns, which a document's
scores leave out), scorers that leave scores undefined, return integers or another key order
for some counts, and chunks with the documents already scored: the keys and the arrays must be
equal bit for bit, or both ``None``.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np

from annoscore.counts import Counts
from annoscore.result import CountMatrix, Result
from annoscore.scale.reduce import _macro_part, _macro_part_of_documents
from annoscore.signature import Signature

CASES = max(1, int(300 * float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))))


def _scorer(rng: random.Random) -> Any:
    """A scorer of counts: precision/recall/F1 the usual way, with some oddity at random."""
    odd = rng.choice(["none", "none", "int", "order", "missing"])
    trigger = rng.randrange(4)

    def score(counts: Counts) -> dict[str, Any]:
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        p = tp / (tp + fp) if tp + fp else None
        r = tp / (tp + fn) if tp + fn else None
        f = 2 * p * r / (p + r) if p is not None and r is not None and p + r else None
        out: dict[str, Any] = {"precision": p, "recall": r, "f1": f}
        if odd == "int" and tp == trigger:
            out["precision"] = 1
        elif odd == "order" and fp == trigger:
            out = {"recall": r, "precision": p, "f1": f}
        elif odd == "missing" and fn == trigger:
            del out["f1"]
        return out

    return score


def _counts(rng: random.Random, rows: list[dict[str, Any]]) -> Counts:
    if rows and rng.random() < 0.7:  # most documents repeat a row seen before
        return Counts(rng.choice(rows))
    row: dict[str, Any] = {
        "tp": rng.choice([0, 1, 2, 3, 7]),
        "fp": rng.choice([0, 1, 2]),
        "fn": rng.choice([0, 1, 4]),
    }
    if rng.random() < 0.3:
        row["w"] = rng.choice([0.0, -0.0, 0.5, 1e-16])  # a float column: -0.0 is its own row
    if rng.random() < 0.3:
        row[f"type:{rng.choice('AB')}:tp"] = rng.randrange(3)  # left out of a document's scores
    rows.append(row)
    return Counts(row)


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return bool(
        a[0] == b[0]
        and a[1].shape == b[1].shape
        and a[1].tobytes() == b[1].tobytes()
        and np.array_equal(a[2], b[2])
    )


def test_macro_part_is_the_plain_columns() -> None:
    rng = random.Random(26)
    kinds = {"columns": 0, "none": 0}
    for case in range(CASES):
        rows: list[dict[str, Any]] = []
        documents = {f"d{k}": _counts(rng, rows) for k in range(rng.randrange(0, 40))}
        scorer = _scorer(rng)

        def made(documents: dict[str, Counts] = documents, scorer: Any = scorer) -> Result:
            return Result.from_counts("t", Signature.of("t"), CountMatrix.of(documents), scorer)

        fast, plain = made(), made()
        if rng.random() < 0.2:
            _ = fast.documents  # scored already (a chunk that sends its documents)
        expected = _macro_part_of_documents(plain)
        assert _same(_macro_part(fast), expected), case
        kinds["none" if expected is None else "columns"] += 1
    assert min(kinds.values()) > CASES // 10, kinds


def test_documents_of_equal_counts_are_scored_once() -> None:
    calls: list[Counts] = []

    def scorer(counts: Counts) -> dict[str, Any]:
        calls.append(counts)
        return {"tp": float(counts["tp"])}

    documents = {f"d{k}": Counts(tp=k % 3, fn=1) for k in range(300)}
    result = Result.from_counts("t", Signature.of("t"), CountMatrix.of(documents), scorer)
    calls.clear()
    keys, values, defined = _macro_part(result)  # type: ignore[misc]
    assert len(calls) == 3  # a unit per distinct row, not per document
    assert keys == ("tp",) and values[:, 0].tolist() == [k % 3 for k in range(300)]
    assert defined.all()


def test_documents_named_twice_are_scored_as_the_documents_are() -> None:
    matrix = CountMatrix(("a", "b", "a"), ("tp",), np.array([[1.0], [2.0], [3.0]]), (True,))
    scorer = lambda counts: {"tp": float(counts["tp"])}  # noqa: E731
    result = Result.from_counts("t", Signature.of("t"), matrix, scorer)
    plain = Result.from_counts("t", Signature.of("t"), matrix, scorer)
    assert _same(_macro_part(result), _macro_part_of_documents(plain))
