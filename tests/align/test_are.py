"""Token-span overlap and the task 4 alignment: the sweep finds every overlapping pair, the
alignment is a maximum-total-overlap matching, whatever the order of the input."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.are import align_mentions, overlap, overlapping_pairs

spans = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 6)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=8,
    unique=True,
)


def test_overlap_is_shared_positions_over_the_longer_mention() -> None:
    assert overlap((0, 3), (2, 5)) == 2 / 4
    assert overlap((0, 0), (0, 0)) == 1.0
    assert overlap((0, 2), (3, 4)) == 0.0  # adjacent, nothing shared


@settings(max_examples=200, deadline=None)
@given(spans, spans)
def test_overlapping_pairs_finds_every_pair_with_shared_tokens(rows, columns) -> None:  # type: ignore[no-untyped-def]
    brute = {
        (i, j, overlap(r, c))
        for (i, r), (j, c) in itertools.product(enumerate(rows), enumerate(columns))
        if overlap(r, c) > 0
    }
    assert set(overlapping_pairs(rows, columns)) == brute


@settings(max_examples=100, deadline=None)
@given(spans, spans, st.randoms(use_true_random=False))
def test_alignment_is_optimal_one_to_one_and_order_invariant(gold, system, rnd) -> None:  # type: ignore[no-untyped-def]
    pairs = align_mentions(gold, system)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    total = sum(overlap(gold[i], system[j]) for i, j in pairs)
    if len(gold) <= 5 and len(system) <= 5:  # brute force the best total
        small, large = (gold, system) if len(gold) <= len(system) else (system, gold)
        best = max(
            sum(overlap(a, large[j]) for a, j in zip(small, perm, strict=True))
            for perm in itertools.permutations(range(len(large)), len(small))
        )
        assert abs(total - best) < 1e-9
    shuffled_gold, shuffled_system = list(gold), list(system)
    rnd.shuffle(shuffled_gold)
    rnd.shuffle(shuffled_system)
    again = {
        (shuffled_gold[i], shuffled_system[j])
        for i, j in align_mentions(shuffled_gold, shuffled_system)
    }
    assert again == {(gold[i], system[j]) for i, j in pairs}


@settings(max_examples=300, deadline=None)
@given(spans, spans)
def test_alignment_equals_the_plain_assignment_on_every_edge(gold, system) -> None:  # type: ignore[no-untyped-def]
    """Pairs that touch only each other are matched before the assignment: the same result
    as giving the assignment every edge."""
    from annoscore.align.assignment import max_weight_matching

    edges = overlapping_pairs(gold, system)
    plain = max_weight_matching((gold[i], system[j], w) for i, j, w in edges)
    expected = sorted((gold.index(g), system.index(s)) for g, s in plain)
    assert align_mentions(gold, system) == expected
