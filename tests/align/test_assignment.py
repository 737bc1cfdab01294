from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from annoscore.align import assignment
from annoscore.align.assignment import max_weight_matching

weights = st.lists(
    st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 3.0]), min_size=1, max_size=7),
    min_size=1,
    max_size=7,
).map(lambda rows: [r + [0.0] * (7 - len(r)) for r in rows])


def _edges(matrix: list[list[float]]) -> list[tuple[int, int, float]]:
    return [(i, j, w) for i, row in enumerate(matrix) for j, w in enumerate(row)]


@settings(max_examples=200, deadline=None)
@given(weights, st.randoms(use_true_random=False))
def test_optimal_one_to_one_and_order_invariant(
    matrix: list[list[float]], rnd: random.Random
) -> None:
    edges = _edges(matrix)
    pairs = max_weight_matching(edges)
    rnd.shuffle(edges)
    assert max_weight_matching(edges) == pairs
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    rows, cols = linear_sum_assignment(np.asarray(matrix), maximize=True)
    assert sum(matrix[i][j] for i, j in pairs) == np.asarray(matrix)[rows, cols].sum()
    assert all(matrix[i][j] > 0 for i, j in pairs)


def test_large_components_use_scipy_with_the_same_total(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(7)
    matrix = [[rnd.choice([0.0, 1.0, 2.5]) for _ in range(80)] for _ in range(70)]
    big = max_weight_matching(_edges(matrix))
    monkeypatch.setattr(assignment, "SCIPY_THRESHOLD", 10_000)
    small = max_weight_matching(_edges(matrix))
    total = sum(matrix[i][j] for i, j in big)
    assert total == sum(matrix[i][j] for i, j in small)


def test_repeated_edge_keeps_largest_weight_and_nonpositive_edges_are_ignored() -> None:
    assert max_weight_matching([("a", "x", 1), ("a", "x", 5), ("b", "x", 3), ("b", "y", 0)]) == [
        ("a", "x")
    ]


@settings(max_examples=100, deadline=None)
@given(weights, st.randoms(use_true_random=False))
def test_the_sparse_solver_for_large_components_is_optimal_and_order_invariant(
    matrix: list[list[float]], rnd: random.Random
) -> None:
    saved = assignment.DENSE_CELLS
    assignment.DENSE_CELLS = 0  # every component takes the sparse path
    try:
        edges = _edges(matrix)
        pairs = max_weight_matching(edges)
        rnd.shuffle(edges)
        assert max_weight_matching(edges) == pairs
    finally:
        assignment.DENSE_CELLS = saved
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    rows, cols = linear_sum_assignment(np.asarray(matrix), maximize=True)
    assert sum(matrix[i][j] for i, j in pairs) == np.asarray(matrix)[rows, cols].sum()
    assert all(matrix[i][j] > 0 for i, j in pairs)


def test_a_large_component_builds_no_dense_matrix() -> None:
    import tracemalloc

    n = 3000  # a chain: each row touches 3 columns; 9 million cells if written out
    edges = [(i, j, 1.0 + (i + j) % 3) for i in range(n) for j in (i - 1, i, i + 1) if 0 <= j < n]
    tracemalloc.start()
    pairs = max_weight_matching(edges)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(pairs) == n and peak < 50_000_000
