from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annoscore.metrics.prf import f_beta, prf, prf_of
from annoscore.result import macro_average


def test_pharmaconer_sample_numbers() -> None:
    r = prf(54, 1, 2)
    assert f"{r.precision:.4}" == "0.9818" and f"{r.recall:.4}" == "0.9643"
    assert f"{r.f1:.4}" == "0.973"


def test_seed_example_sub_track_1() -> None:
    # PharmaCoNER seed: TP 6, FP 0, FN 3 -> P 1.0, R 0.6667, F1 0.8
    r = prf(6, 0, 3)
    assert r.precision == 1.0 and round(r.recall or 0, 4) == 0.6667 and r.f1 == pytest.approx(0.8)


def test_zero_division_is_null_unless_named() -> None:
    assert prf(0, 0, 0).precision is None
    assert prf(0, 0, 0, zero_division=0.0).f1 == 0.0
    assert prf(0, 3, 0).recall is None and prf(0, 3, 0).precision == 0.0


def test_f_beta_weights() -> None:
    assert f_beta(1.0, 0.5, beta=2.0) == pytest.approx(5 * 0.5 / (4 + 0.5))
    assert f_beta(0.0, 0.0) == 0.0


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_scores_stay_in_unit_interval(tp: int, fp: int, fn: int) -> None:
    for value in prf(tp, fp, fn).as_dict().values():
        assert value is None or 0.0 <= value <= 1.0


def test_macro_average_skips_undefined() -> None:
    assert macro_average([{"p": 1.0, "r": None}, {"p": 0.5, "r": 0.5}]) == {"p": 0.75, "r": 0.5}
    assert macro_average([{"p": None}]) == {"p": None}


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_f_is_undefined_only_when_nothing_is_on_either_side(tp: int, fp: int, fn: int) -> None:
    """design.md: P undefined iff tp+fp = 0, R iff tp+fn = 0, F iff tp+fp+fn = 0; F equals the
    count formula 2tp / (2tp + fp + fn) wherever it is defined."""
    r = prf_of({"tp": tp, "fp": fp, "fn": fn})
    assert (r.precision is None) == (tp + fp == 0)
    assert (r.recall is None) == (tp + fn == 0)
    assert (r.f1 is None) == (tp + fp + fn == 0)
    if r.f1 is not None:
        assert r.f1 == pytest.approx(2 * tp / (2 * tp + fp + fn))
