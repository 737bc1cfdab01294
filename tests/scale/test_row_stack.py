"""The rows stacked as the chunks come back (:class:`RowStack`) are :func:`stack`'s, array for
array: random matrices of random sizes (empty ones, one row, more rows than the bytes promise),
their columns of one layout or not, their chunks' bytes any."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from annoscore.result import CountMatrix, Names
from annoscore.scale.reduce import RowStack, stack

CASES = max(1, int(200 * float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))))


def _matrices(rng: random.Random) -> list[CountMatrix]:
    layouts = [("tp", "fp", "fn"), ("tp", "ap"), ("fp", "tp", "fn")]
    layout = rng.choice(layouts)
    found = []
    at = 0
    for _ in range(rng.choice((1, 1, 2, 3, 8, 30))):
        if rng.random() < 0.05:  # another layout now and then
            layout = rng.choice(layouts)
        rows = rng.choice((0, 0, 1, 2, 5, rng.randrange(2000)))
        whole = tuple(rng.random() < 0.8 for _ in layout)
        values = np.array(
            [[rng.randrange(9) if w else rng.random() for w in whole] for _ in range(rows)],
            dtype=np.float64,
        ).reshape(rows, len(layout))
        names = [f"d{at + k}" for k in range(rows)]
        documents = Names.of(names) if rng.random() < 0.8 else tuple(names)
        found.append(CountMatrix(documents, layout, values, whole))
        at += rows
    return found


@pytest.mark.parametrize("seed", range(CASES))
def test_rows_stacked_one_chunk_at_a_time_are_the_stacked_rows(seed: int) -> None:
    rng = random.Random(seed)
    matrices = _matrices(rng)
    sizes = [rng.choice((0, 1, rng.randrange(1, 10**6))) for _ in matrices]
    rows = RowStack(sizes)
    for matrix in matrices:
        rows.add(matrix)
    expected = stack(matrices)
    got = rows.matrix()
    if len({m.names for m in matrices}) > 1:
        assert got is None  # several layouts: stack() then
        return
    assert got is not None
    assert got.names == expected.names and got.integer == expected.integer
    assert tuple(got.documents) == tuple(expected.documents)
    assert type(got.documents) is type(expected.documents)
    assert got.values.dtype == expected.values.dtype
    assert got.values.shape == expected.values.shape
    assert np.array_equal(got.values, expected.values)
