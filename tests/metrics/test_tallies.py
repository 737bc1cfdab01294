"""The MUC tally formulas against the worked numbers of the MUC scorer manual (seed 003)."""

from __future__ import annotations

import pytest

from annoscore.counts import Counts
from annoscore.metrics.tallies import Tally


def pct(value: float | None) -> float:
    assert value is not None
    return round(100 * value, 2)


def test_manual_scenario_template_all_slots_f_measures() -> None:
    # ALL SLOTS     2856  2307|1058   0  368|1430  881 1280|  37  46  50  38  26  72
    # F-MEASURES                                        40.98     43.78     38.53
    all_slots = Tally(cor=1058, par=0, inc=368, mis=1430, spu=881, non=1280)
    assert (all_slots.pos, all_slots.act) == (2856, 2307)
    assert [pct(all_slots.f_measure(b)) for b in (1.0, 0.5, 2.0)] == [40.98, 43.78, 38.53]
    row = [
        all_slots.recall,
        all_slots.precision,
        all_slots.undergeneration,
        all_slots.overgeneration,
        all_slots.substitution,
        all_slots.error,
    ]
    assert [int(100 * v + 0.5) for v in row if v is not None] == [37, 46, 50, 38, 26, 72]


def test_manual_named_entity_all_slots_f_measures() -> None:
    # ALL SLOTS     2260  2300|2139   0   51|  70  110  103|  95  93   3   5   2  10
    # F-MEASURES                                        93.82     93.32     94.31
    t = Tally(cor=2139, inc=51, mis=70, spu=110, non=103)
    assert (t.pos, t.act) == (2260, 2300)
    assert [pct(t.f_measure(b)) for b in (1.0, 0.5, 2.0)] == [93.82, 93.32, 94.31]


def test_manual_text_filter_row() -> None:
    # TEXT FILTERI   100   100|  86   0   14|   0    0    0|  86  86   0   0  14  14
    t = Tally(cor=86, inc=14)
    assert [
        int(100 * v + 0.5)
        for v in (t.recall, t.precision, t.substitution, t.error)
        if v is not None
    ] == [86, 86, 14, 14]


def test_partial_counts_half() -> None:
    t = Tally(cor=1, par=2, mis=1)
    assert t.recall == pytest.approx(0.5)
    assert t.precision == pytest.approx(2 / 3)
    assert t.substitution == pytest.approx(1 / 3)


def test_undefined_when_nothing_possible_or_actual() -> None:
    t = Tally(non=5)
    assert t.recall is None and t.precision is None and t.f_measure() is None
    assert t.error is None


def test_f_is_zero_when_precision_is_zero() -> None:
    t = Tally(mis=3, spu=2)
    assert t.recall == 0 and t.precision == 0 and t.f_measure() == 0


def test_tallies_add_and_round_trip_through_counts() -> None:
    a, b = Tally(1, 2, 3, 4, 5, 6), Tally(6, 5, 4, 3, 2, 1)
    assert a + b == Tally(7, 7, 7, 7, 7, 7)
    counts = Counts(x_cor=1, x_par=2, x_inc=3, x_mis=4, x_spu=5, x_non=6)
    assert Tally.from_counts(counts, "x_") == a and a.pos == 10


def test_f_comes_from_the_counts_one_empty_side_is_0_not_undefined() -> None:
    """The one rule (metrics/prf.py): F_beta = (1 + b^2) credit / (b^2 POS + ACT), undefined only
    when neither side has a fill.  Before, F was undefined whenever P or R was, so a document
    whose response filled nothing dropped out of a macro average instead of counting 0."""
    missed = Tally(mis=4, non=2)
    assert missed.precision is None and missed.recall == 0.0
    assert [missed.f_measure(b) for b in (1.0, 0.5, 2.0)] == [0.0, 0.0, 0.0]
    invented = Tally(spu=3)
    assert invented.recall is None and invented.f_measure() == 0.0
    assert Tally(non=5).f_measure() is None
    for t in (Tally(cor=3, par=1, inc=2, mis=1, spu=4), Tally(par=1, mis=2), Tally(cor=1)):
        credit = t.cor + t.par / 2
        for beta in (1.0, 0.5, 2.0):
            expected = (1 + beta**2) * credit / (beta**2 * t.pos + t.act)
            assert t.f_measure(beta) == pytest.approx(expected, rel=1e-15)
