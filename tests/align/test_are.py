"""Token-span overlap and the task 4 alignment: the alignment is decision 9's call,
``linear_sum_assignment`` over each whole document (gold rows and system columns in document
order), whichever way it is computed; and the exact keys ids and mentions are compared by."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from annoscore.align import are
from annoscore.align.are import ChainColumns, Keys, MentionChains, align_mentions, overlap
from annoscore.align.documents import row_keys
from annoscore.errors import InputError

spans = st.lists(
    st.tuples(st.integers(0, 12), st.integers(0, 4)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=9,
    unique=True,
)


def test_overlap_is_shared_positions_over_the_longer_mention() -> None:
    assert overlap((0, 3), (2, 5)) == 2 / 4
    assert overlap((0, 0), (0, 0)) == 1.0
    assert overlap((0, 2), (3, 4)) == 0.0  # adjacent, nothing shared


def _side(documents: list[list[tuple[int, int]]]) -> ChainColumns:
    """One chain per document holding its mentions."""
    sizes = np.array([len(d) for d in documents], dtype=np.int64)
    first = np.array([m[0] for d in documents for m in d], dtype=np.int64)
    last = np.array([m[1] for d in documents for m in d], dtype=np.int64)
    chain = np.repeat(np.arange(len(documents)), sizes)
    return ChainColumns(np.arange(len(documents)), sizes, chain, chain, first, last)


def _aligned(
    gold: list[list[tuple[int, int]]], system: list[list[tuple[int, int]]]
) -> set[tuple[int, tuple[int, int], tuple[int, int], float]]:
    gold_side, system_side = _side(gold), _side(system)
    width = 1 + max([m[1] for d in gold + system for m in d], default=0)
    starts = np.arange(len(gold)) * width
    rows, cols, weights = align_mentions(
        MentionChains(gold_side, system_side, None, starts, len(gold) * width),
        [str(d) for d in range(len(gold))],
    )
    out = set()
    for i, j, w in zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True):
        d = int(gold_side.member_document[i])
        assert d == int(system_side.member_document[j])
        mention_g = (int(gold_side.first[i]), int(gold_side.last[i]))
        mention_s = (int(system_side.first[j]), int(system_side.last[j]))
        out.add((d, mention_g, mention_s, w))
    return out


def _decision_9(
    gold: list[tuple[int, int]], system: list[tuple[int, int]]
) -> set[tuple[tuple[int, int], tuple[int, int], float]]:
    rows, cols = sorted(gold), sorted(system)
    if not rows or not cols:
        return set()
    matrix = np.array([[overlap(g, s) for s in cols] for g in rows])
    chosen = linear_sum_assignment(-matrix)
    return {
        (rows[i], cols[j], float(matrix[i, j]))
        for i, j in zip(*chosen, strict=True)
        if matrix[i, j] > 0
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(spans, spans), min_size=1, max_size=3), st.randoms())
def test_the_alignment_is_linear_sum_assignment_over_each_document(documents, rnd) -> None:  # type: ignore[no-untyped-def]
    gold = [list(g) for g, _ in documents]
    system = [list(s) for _, s in documents]
    for d in gold + system:
        rnd.shuffle(d)  # the order of the input never matters: document order decides
    found = _aligned(gold, system)
    expected = {
        (d, g, s, w) for d, (gs, ss) in enumerate(documents) for g, s, w in _decision_9(gs, ss)
    }
    assert found == expected


@settings(max_examples=100, deadline=None)
@given(spans, spans)
def test_the_alignment_is_one_to_one_and_optimal(gold, system) -> None:  # type: ignore[no-untyped-def]
    pairs = _aligned([gold], [system])
    assert len({g for _, g, _, _ in pairs}) == len(pairs) == len({s for _, _, s, _ in pairs})
    assert all(w == overlap(g, s) > 0 for _, g, s, w in pairs)
    if len(gold) <= 5 and len(system) <= 5:  # brute force the best total
        small, large = (gold, system) if len(gold) <= len(system) else (system, gold)
        best = max(
            sum(overlap(a, large[j]) for a, j in zip(small, perm, strict=True))
            for perm in itertools.permutations(range(len(large)), len(small))
        )
        assert abs(sum(w for *_, w in pairs) - best) < 1e-9


def test_a_tie_is_broken_as_linear_sum_assignment_breaks_it() -> None:
    """Found by the differential test: the project's component-wise matching chose another of
    the optimal alignments than decision 9's call on the whole document (the total is the same,
    the fractional MUC not)."""
    gold = [(1, 1), (1, 2), (0, 0)]
    system = [(2, 2), (1, 2)]  # (1, 1)-(1, 2) + (1, 2)-(2, 2) = 0.5 + 0.5 = (1, 2)-(1, 2) = 1
    found = {(g, s) for _, g, s, _ in _aligned([gold], [system])}
    assert found == {(g, s) for g, s, _ in _decision_9(gold, system)} == {((1, 2), (1, 2))}


def test_a_document_too_large_for_the_assignment_is_an_input_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(are, "MAX_CELLS", 5)
    gold, system = [[(0, 1), (2, 3), (5, 5)]], [[(1, 2), (4, 5)]]  # 3 x 2 = 6 cells
    with pytest.raises(InputError, match="3 gold and 2 system mentions with 3 overlapping") as e:
        _aligned(gold, system)
    assert e.value.document == "0"
    # isolated pairs need no assignment, whatever the size
    assert len(_aligned([[(0, 0), (2, 2), (4, 4)]], [[(0, 1), (2, 2)]])) == 2


def test_row_keys_are_exact_past_64_bits() -> None:
    big = np.array([0, 2**62, 2**62 + 1, 5], dtype=np.int64)
    (a, b), first = row_keys((big, big), (np.array([2**62 + 1, 3]), np.array([2**62 + 1, 5])))
    assert len(set(a.tolist())) == 4 and b[0] == a[2] and b[1] not in set(a.tolist())
    assert first(a).tolist() == big.tolist() and first(b).tolist() == [2**62 + 1, 3]


def test_keys_by_rank_when_documents_times_ids_pass_64_bits() -> None:
    ids = np.array([10**18 - 1, 0, 5], dtype=np.int64)
    keys = Keys(100, ids)
    assert keys.values is not None  # ranks
    found = keys(np.array([99, 99, 0]), ids)
    assert len(set(found.tolist())) == 3
    assert keys(np.array([99]), np.array([10**18 - 1]))[0] == found[0]
    small = Keys(2, np.array([3, 7]))
    assert small.values is None and small(np.array([1]), np.array([7]))[0] == 1 * 5 + 4
