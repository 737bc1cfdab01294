"""Average precision and MAP: worked examples, depth, and agreement with a plain loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from annoscore.metrics.ranking import group_rows, ranking_stats


def naive_ap(relevant: list[bool], num_relevant: int, depth: int | None) -> float:
    total, hits = 0.0, 0
    for rank, rel in enumerate(relevant[:depth] if depth else relevant, start=1):
        if rel:
            hits += 1
            total += hits / rank
    return total / num_relevant if num_relevant else 0.0


def test_worked_example_from_the_spec() -> None:
    # toy doc S0004: relevant at ranks 1 and 3 of 3 gold codes -> (1/1 + 2/3) / 3
    stats = ranking_stats(np.array([0, 0, 0]), np.array([True, False, True]), np.array([3]))
    assert stats.average_precision[0] == pytest.approx((1 + 2 / 3) / 3)
    assert stats.relevant_retrieved[0] == 2


def test_depth_cuts_ranks_beyond() -> None:
    stats = ranking_stats(
        np.zeros(4, dtype=np.int64), np.array([False, True, False, True]), np.array([2]), depth=2
    )
    assert stats.average_precision[0] == pytest.approx(0.25)
    assert stats.ranked_beyond_depth[0] == 2
    assert stats.retrieved[0] == 2


def test_query_without_relevant_items_has_ap_zero() -> None:
    stats = ranking_stats(np.array([0, 1]), np.array([False, True]), np.array([0, 1]))
    assert stats.average_precision.tolist() == [0.0, 1.0]


def test_query_with_no_rows_has_ap_zero() -> None:
    stats = ranking_stats(np.array([1, 1]), np.array([True, True]), np.array([3, 2]))
    assert stats.average_precision.tolist() == [0.0, 1.0]
    assert stats.retrieved.tolist() == [0, 2]


def test_group_rows() -> None:
    assert group_rows(np.array([0, 0, 1])) is None
    order = group_rows(np.array([1, 0, 1, 0]))
    assert order is not None and order.tolist() == [1, 3, 0, 2]


queries = st.lists(
    st.lists(st.booleans(), max_size=12).flatmap(
        lambda rel: st.tuples(st.just(rel), st.integers(sum(rel), sum(rel) + 3))
    ),
    min_size=1,
    max_size=8,
)


@given(queries, st.sampled_from([None, 1, 3, 1000]))
def test_agrees_with_a_plain_loop(data: list[tuple[list[bool], int]], depth: int | None) -> None:
    query = np.array([q for q, (rel, _) in enumerate(data) for _ in rel], dtype=np.int64)
    relevant = np.array([r for rel, _ in data for r in rel], dtype=bool)
    num_relevant = np.array([n for _, n in data], dtype=np.int64)
    stats = ranking_stats(query, relevant, num_relevant, depth)
    expected = [naive_ap(rel, n, depth) for rel, n in data]
    assert stats.average_precision.tolist() == pytest.approx(expected)
    assert all(0.0 <= ap <= 1.0 for ap in stats.average_precision.tolist())


@given(st.lists(st.integers(1, 20), min_size=1, max_size=10))
def test_perfect_ranking_scores_one(sizes: list[int]) -> None:
    query = np.repeat(np.arange(len(sizes)), sizes)
    stats = ranking_stats(query, np.ones(len(query), dtype=bool), np.array(sizes))
    assert stats.average_precision.tolist() == pytest.approx([1.0] * len(sizes))
