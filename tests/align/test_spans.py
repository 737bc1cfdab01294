"""Span matching modes: worked examples, the overlap basis, order invariance, the array path."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.span_arrays import SpanArrays, sorted_rank
from annoscore.align.span_modes import MatchOptions
from annoscore.align.span_tokens import TokenIndex
from annoscore.align.spans import (
    WHITESPACE_CODEPOINTS,
    align_mentions,
    overlap_fraction,
    pair_credit,
    pair_weight,
    token_units,
    whitespace_tokens,
)
from annoscore.model import Mention, Span


def m(start: int, end: int, type_: str = "X") -> Mention:
    return Mention(Span.of(start, end), type_)


def matched(gold: list[Mention], pred: list[Mention], kind: str, **options: object) -> set:
    alignment = align_mentions(gold, pred, kind, MatchOptions(**options))  # type: ignore[arg-type]
    return {(alignment.gold[i], alignment.pred[j]) for i, j in alignment.pairs}


def test_whitespace_table_is_exactly_str_isspace() -> None:
    expected = {c for c in range(0x110000) if chr(c).isspace()}
    assert set(WHITESPACE_CODEPOINTS) == expected


def _index_tokens(texts: list[str]) -> list[str]:
    """The tokens a :class:`TokenIndex` finds in the joined texts (its runs of ``inside``)."""
    index = TokenIndex.of(texts)
    joined = "\n".join(texts)
    inside = index.inside[: len(joined)].tolist()
    tokens, start = [], None
    for k, flag in enumerate([*inside, 0]):
        if flag and start is None:
            start = k
        elif not flag and start is not None:
            tokens.append(joined[start:k])
            start = None
    assert int(index.started[len(joined)]) == len(tokens)
    return tokens


def test_token_index_splits_like_str_split_on_unicode_text() -> None:
    texts = ["dolor\u00a0sit  amet\u3000ñandú", "", "  x\ty\n", "a"]
    assert _index_tokens(texts) == "\n".join(texts).split()
    assert TokenIndex.of(texts).offsets.tolist() == [0, 22, 23, 30, 32]
    assert whitespace_tokens("  ab c") == [(2, 4), (5, 6)]


@pytest.mark.parametrize(
    ("basis", "fraction"),
    [("gold", 0.4), ("predicted", 1.0), ("shorter", 1.0), ("longer", 0.4), ("union", 0.4)],
)
def test_overlap_fraction_bases(basis: str, fraction: float) -> None:
    assert overlap_fraction(Span.of(0, 10), Span.of(6, 10), basis) == fraction  # type: ignore[arg-type]


def test_union_basis_is_jaccard() -> None:
    assert overlap_fraction(Span.of(0, 10), Span.of(5, 15), "union") == 5 / 15


def test_touching_spans_do_not_overlap_but_identical_empty_spans_do() -> None:
    assert overlap_fraction(Span.of(0, 5), Span.of(5, 9)) == 0.0
    assert overlap_fraction(Span.of(4, 4), Span.of(4, 4)) == 1.0
    assert matched([m(0, 5)], [m(5, 9)], "overlap") == set()
    assert matched([m(4, 4)], [m(4, 4)], "overlap") == {(m(4, 4), m(4, 4))}


def test_min_overlap_is_a_fraction_of_the_chosen_basis() -> None:
    gold, pred = [m(0, 10)], [m(6, 10)]
    assert matched(gold, pred, "overlap", min_overlap=0.5) == set()
    assert matched(gold, pred, "overlap", min_overlap=0.5, overlap_basis="predicted")
    assert matched(gold, pred, "overlap", min_overlap=0.4)


def test_match_options_are_validated() -> None:
    with pytest.raises(ValueError, match="fraction"):
        MatchOptions(min_overlap=50)
    with pytest.raises(ValueError, match="tolerance"):
        MatchOptions(tolerance=-1)
    with pytest.raises(ValueError, match="overlap_basis"):
        MatchOptions(overlap_basis="gold span")  # type: ignore[arg-type]


def test_greedy_would_lose_a_pair_optimal_one_to_one_does_not() -> None:
    # p1 overlaps both gold spans; a greedy matcher that takes p1 -> g1 first leaves p2 alone
    # (nervaluate #39/#84).  The optimal matching pairs both, in any input order.
    gold = [m(0, 5), m(5, 10)]
    pred = [m(3, 8), m(0, 4)]
    expected = {(m(0, 5), m(0, 4)), (m(5, 10), m(3, 8))}
    for order in ([0, 1], [1, 0]):
        assert matched([gold[i] for i in order], [pred[i] for i in order], "overlap") == expected


def test_overlap_prefers_the_closer_pair_when_counts_tie() -> None:
    gold = [m(0, 10)]
    pred = [m(0, 3), m(1, 10)]
    assert matched(gold, pred, "overlap") == {(m(0, 10), m(1, 10))}


def test_relaxed_start_and_end_each_within_tolerance() -> None:
    gold = [m(10, 20)]
    assert matched(gold, [m(8, 22)], "relaxed", tolerance=2)
    assert not matched(gold, [m(7, 20)], "relaxed", tolerance=2)
    assert not matched(gold, [m(10, 20, "Y")], "relaxed", tolerance=2)
    assert matched(gold, [m(10, 20)], "relaxed") and not matched(gold, [m(10, 21)], "relaxed")


def test_relaxed_prefers_the_closest_bounds() -> None:
    assert matched([m(10, 20)], [m(12, 20), m(10, 21)], "relaxed", tolerance=2) == {
        (m(10, 20), m(10, 21))
    }


def test_discontinuous_spans_strict_needs_the_same_fragments() -> None:
    gap = Mention(Span(((0, 3), (6, 9))), "X")
    whole = m(0, 9)
    assert not matched([gap], [whole], "strict")
    assert matched([gap], [Mention(Span(((0, 3), (6, 9))), "X")], "strict")
    # overlap counts shared characters only: the gap is not covered
    assert gap.span.overlap(whole.span) == 6
    assert overlap_fraction(whole.span, gap.span) == 6 / 9
    assert not matched([whole], [gap], "overlap", min_overlap=0.7)


def test_exact_pairs_same_type_first_then_leftovers_in_type_order() -> None:
    gold = [m(0, 5, "B"), m(0, 5, "A")]
    pred = [m(0, 5, "C"), m(0, 5, "B")]
    assert matched(gold, pred, "exact") == {
        (m(0, 5, "B"), m(0, 5, "B")),
        (m(0, 5, "A"), m(0, 5, "C")),
    }
    assert matched(gold, pred, "strict") == {(m(0, 5, "B"), m(0, 5, "B"))}


def test_semeval_credit_table() -> None:
    table = {
        (kind, sb, st): pair_credit(kind, sb, st)  # type: ignore[arg-type]
        for kind in ("semeval_strict", "semeval_exact", "semeval_partial", "semeval_type")
        for sb in (True, False)
        for st in (True, False)
    }
    assert [table["semeval_strict", sb, st] for sb in (1, 0) for st in (1, 0)] == [2, 0, 0, 0]
    assert [table["semeval_exact", sb, st] for sb in (1, 0) for st in (1, 0)] == [2, 2, 0, 0]
    assert [table["semeval_partial", sb, st] for sb in (1, 0) for st in (1, 0)] == [2, 2, 1, 1]
    assert [table["semeval_type", sb, st] for sb in (1, 0) for st in (1, 0)] == [2, 0, 2, 0]


def test_semeval_strict_prefers_a_correct_pair_to_more_pairs() -> None:
    # g1 == p1; p1 also overlaps g2, p2 overlaps g1 only.  Two INC pairs would pair everything,
    # but strict credit wants the COR pair.
    gold = [m(0, 10), m(5, 12)]
    pred = [m(0, 10), m(2, 8)]
    assert (m(0, 10), m(0, 10)) in matched(gold, pred, "semeval_strict")


def test_pair_weight_is_lexicographic() -> None:
    n = 4  # at most 3 pairs
    one_credit = pair_weight(1, 0.01, n) + pair_weight(0, 0.01, n)
    three_pairs_no_credit = 3 * pair_weight(0, 1.0, n)
    assert one_credit > three_pairs_no_credit
    assert 2 * pair_weight(0, 0.01, n) > pair_weight(0, 1.0, n)


def test_token_units_claim_whole_tokens_and_ignore_empty_fragments() -> None:
    text = "acute renal failure here"
    units = token_units([m(2, 8, "D"), m(4, 4, "E")], text)
    assert units == {(0, 5, "D"), (6, 11, "D")}


def test_matching_ignores_input_order() -> None:
    rnd = random.Random(5)
    gold = [m(s, s + rnd.randint(1, 6), rnd.choice("XY")) for s in rnd.sample(range(40), 15)]
    pred = [m(s, s + rnd.randint(1, 6), rnd.choice("XY")) for s in rnd.sample(range(40), 15)]
    for kind in ("overlap", "relaxed", "semeval_partial", "semeval_type", "exact"):
        reference = matched(gold, pred, kind, tolerance=2)
        for _ in range(5):
            rnd.shuffle(gold)
            rnd.shuffle(pred)
            assert matched(gold, pred, kind, tolerance=2) == reference


def test_span_arrays_sort_canonically_and_collapse_duplicates() -> None:
    arrays = SpanArrays.build([1, 0, 0, 0], [5, 3, 3, 1], [6, 4, 4, 9], [0, 1, 1, 0])
    assert arrays.doc.tolist() == [0, 0, 0, 1]
    assert arrays.start.tolist() == [1, 3, 3, 5]
    unique, dropped = arrays.unique()
    assert (len(unique), dropped) == (3, 1)


def test_ascii_fast_path_splits_like_str_split() -> None:
    every_ascii = "".join(map(chr, range(128)))
    texts = [every_ascii, "a\x1cb\x1fc\x0bd", every_ascii[::-1] + " tail"]
    assert _index_tokens(texts) == "\n".join(texts).split()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 40), max_size=30),
    st.lists(st.integers(-5, 45), max_size=30),
    st.booleans(),
)
def test_sorted_rank_is_searchsorted(keys: list[int], queries: list[int], ordered: bool) -> None:
    key_array = np.sort(np.array(keys, dtype=np.int64))
    query_array = np.array(sorted(queries) if ordered else queries, dtype=np.int64)
    for side in ("left", "right"):
        expected = np.searchsorted(key_array, query_array, side=side)  # type: ignore[call-overload]
        assert sorted_rank(key_array, query_array, side).tolist() == expected.tolist()  # type: ignore[arg-type]


def test_token_index_finds_the_tokens_a_span_touches() -> None:
    texts = ["ab  cd e", "", "xyz"]
    index = TokenIndex.of(texts)
    # tokens in joined order: ab(0) cd(1) e(2) | xyz(3)
    rows = SpanArrays.build(
        [0, 0, 0, 0, 0, 1, 2, 2],
        [0, 1, 2, 3, 6, 0, 1, 2],
        [1, 5, 4, 3, 99, 5, 2, 2],
        [0] * 8,
    )
    first, last = index.touched(rows)
    found = list(
        zip(
            rows.doc.tolist(),
            rows.start.tolist(),
            rows.end.tolist(),
            first.tolist(),
            last.tolist(),
            strict=True,
        )
    )
    assert found == [
        (0, 0, 1, 0, 1),  # inside "ab"
        (0, 1, 5, 0, 2),  # cuts "ab" and "cd": claims both
        (0, 2, 4, 1, 1),  # only whitespace: nothing
        (0, 3, 3, 1, 1),  # empty: nothing
        (0, 6, 99, 2, 3),  # beyond the text: clipped to it, "e"
        (1, 0, 5, 3, 3),  # empty text: nothing
        (2, 1, 2, 3, 4),  # inside "xyz"
        (2, 2, 2, 3, 3),  # empty: nothing
    ]
    assert index.first_token.tolist() == [0, 3, 3, 4]
    assert index.document_of(np.array([0, 2, 3], dtype=np.int64)).tolist() == [0, 0, 2]
