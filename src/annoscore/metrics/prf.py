"""Precision, recall and F over sets: the counts ``tp``, ``fp``, ``fn``.

Formulas::

    precision = tp / (tp + fp)
    recall    = tp / (tp + fn)
    F_beta    = (1 + beta^2) * P * R / (beta^2 * P + R)

Edge cases, as in scikit-learn: a zero denominator makes P or R undefined, returned as
``zero_division`` (``None`` by default, i.e. JSON ``null``; official scripts that print 0.0 pass
``zero_division=0.0``).  F is undefined when P or R is; when both are defined and both 0, F is 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from annoscore.counts import Counts, Number


def ratio(
    numerator: Number, denominator: Number, zero_division: float | None = None
) -> float | None:
    """``numerator / denominator`` as a float, or ``zero_division`` when the denominator is 0."""
    if denominator == 0:
        return zero_division
    return numerator / denominator


def f_beta(
    precision: float | None,
    recall: float | None,
    beta: float = 1.0,
    zero_division: float | None = None,
) -> float | None:
    """The weighted harmonic mean of P and R; beta > 1 favours recall, beta < 1 precision.

    ``None`` (or ``zero_division``) if either input is undefined; 0.0 if both are 0.
    """
    if precision is None or recall is None:
        return zero_division
    b2 = beta * beta
    denominator = b2 * precision + recall
    if denominator == 0:
        return 0.0
    return (1 + b2) * precision * recall / denominator


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F (fractions, or ``None`` where undefined)."""

    precision: float | None
    recall: float | None
    f1: float | None

    def as_dict(self, prefix: str = "") -> dict[str, float | None]:
        return {
            f"{prefix}precision": self.precision,
            f"{prefix}recall": self.recall,
            f"{prefix}f1": self.f1,
        }


def prf(
    tp: Number, fp: Number, fn: Number, *, beta: float = 1.0, zero_division: float | None = None
) -> PRF:
    """P, R and F_beta from true positives, false positives and false negatives.

    >>> prf(54, 1, 2).f1
    0.972972972972973
    >>> prf(0, 0, 0)
    PRF(precision=None, recall=None, f1=None)
    >>> prf(0, 0, 0, zero_division=0.0)
    PRF(precision=0.0, recall=0.0, f1=0.0)
    """
    precision = ratio(tp, tp + fp, zero_division)
    recall = ratio(tp, tp + fn, zero_division)
    return PRF(precision, recall, f_beta(precision, recall, beta, zero_division))


def prf_of(counts: Counts, prefix: str = "", **options: float | None) -> PRF:
    """:func:`prf` of the ``{prefix}tp``, ``{prefix}fp``, ``{prefix}fn`` entries of ``counts``."""
    beta = options.get("beta")
    return prf(
        counts[prefix + "tp"],
        counts[prefix + "fp"],
        counts[prefix + "fn"],
        beta=1.0 if beta is None else beta,
        zero_division=options.get("zero_division"),
    )
