from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annoscore.counts import Counts

keys = st.sampled_from(["tp", "fp", "fn", "cor"])
counts = st.dictionaries(keys, st.integers(0, 100)).map(Counts)


def test_missing_key_reads_zero() -> None:
    assert Counts(tp=1)["fn"] == 0
    assert "fn" not in Counts(tp=1)


def test_sum_starts_from_zero() -> None:
    assert sum([Counts(tp=1), Counts(tp=2, fp=1)]) == Counts(tp=3, fp=1)


def test_as_dict_turns_whole_floats_into_ints() -> None:
    assert Counts(a=2.0, b=0.5).as_dict() == {"a": 2, "b": 0.5}


def test_prefix_and_select_round_trip() -> None:
    c = Counts(tp=1, fp=2)
    assert c.prefixed("x_").select("x_") == c


@given(st.lists(counts, max_size=8))
def test_total_equals_sum_in_any_order(items: list[Counts]) -> None:
    assert Counts.total(items) == sum(items, Counts()) == Counts.total(reversed(items))


@given(counts, counts)
def test_addition_commutes(a: Counts, b: Counts) -> None:
    assert a + b == b + a


def test_counts_add_and_compare_only_with_counts_mappings_and_zero() -> None:
    with pytest.raises(TypeError):
        Counts(tp=1) + "x"  # type: ignore[operator]
    assert Counts(tp=1) != 1 and not (Counts(tp=1) == 1)  # noqa: SIM201
