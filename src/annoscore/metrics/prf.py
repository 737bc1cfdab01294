"""Precision, recall and F: the one place where annoscore divides.

For true positives ``tp``, false positives ``fp`` and false negatives ``fn``::

    precision = tp / (tp + fp)                      undefined when tp + fp = 0
    recall    = tp / (tp + fn)                      undefined when tp + fn = 0
    F_beta    = (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)
                                                    undefined only when tp + fp + fn = 0

F comes from the counts, as in scikit-learn: a document with gold items and no prediction has
precision undefined, recall 0 and **F 0** (so it pulls a macro average down); only a unit with
nothing on either side has no F.  Where P and R are both defined, F is computed as the harmonic
mean ``(1 + b^2) P R / (b^2 P + R)`` (the official scripts' arithmetic, so their digits are kept;
it equals the count formula).

Undefined is ``None`` (JSON ``null``, ``-`` in tables).  Official scripts that print a number
instead keep their rule as a named setting of what a result shows, not as a second copy of this
arithmetic: PharmaCoNER's 0.0 (``undefined=zero``: :class:`annoscore.result.Undefined`, the
corpus scores only), the coreference reference scorer's 0 (:mod:`annoscore.metrics.coref`),
MUC's ``*`` (a rendering of ``None`` in :mod:`annoscore.report.muc`).

"""

from __future__ import annotations

from collections.abc import Mapping

from annoscore.counts import Number
from annoscore.records import Record


def ratio(
    numerator: Number, denominator: Number, zero_division: float | None = None
) -> float | None:
    """``numerator / denominator`` as a float, or ``zero_division`` when the denominator is 0.

    >>> ratio(1, 4), ratio(0, 0), ratio(0, 0, 0.0)
    (0.25, None, 0.0)
    """
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

    ``zero_division`` if either input is undefined; 0.0 if both are 0.  (:func:`prf` decides
    from the counts instead, which also defines F when only one of P and R is.)
    """
    if precision is None or recall is None:
        return zero_division
    b2 = beta * beta
    denominator = b2 * precision + recall
    if denominator == 0:
        return 0.0
    return (1 + b2) * precision * recall / denominator


def f_of(precision: float | None, recall: float | None) -> float | None:
    """F1 of two ratios by the rule: 0 when only one is defined (something on one side only,
    none of it found), ``None`` when neither is.

    >>> f_of(0.5, 1.0), f_of(None, 0.0), f_of(None, None)
    (0.6666666666666666, 0.0, None)
    """
    if precision is None and recall is None:
        return None
    return f_beta(precision, recall, zero_division=0.0)


class PRF(Record):
    """Precision, recall and F (fractions, or ``None`` where undefined)."""

    __slots__ = ("precision", "recall", "f1")  # noqa: RUF023 (the fields' order)
    precision: float | None
    recall: float | None
    f1: float | None

    def __init__(self, precision: float | None, recall: float | None, f1: float | None) -> None:
        # set one by one, not by set_fields: one is made for every document scored
        put = object.__setattr__
        put(self, "precision", precision)
        put(self, "recall", recall)
        put(self, "f1", f1)

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
    >>> prf(0, 0, 5)               # gold items, no prediction: F is 0, not undefined
    PRF(precision=None, recall=0.0, f1=0.0)
    >>> prf(0, 0, 0)
    PRF(precision=None, recall=None, f1=None)
    >>> prf(0, 0, 0, zero_division=0.0)
    PRF(precision=0.0, recall=0.0, f1=0.0)
    """
    precision = ratio(tp, tp + fp, zero_division)
    recall = ratio(tp, tp + fn, zero_division)
    if tp + fp == 0 or tp + fn == 0:  # then tp = 0: F is 0 unless there is nothing at all
        f = zero_division if tp + fp + fn == 0 else 0.0
    else:
        f = f_beta(precision, recall, beta)
    return PRF(precision, recall, f)


def prf_of(counts: Mapping[str, Number], prefix: str = "", **options: float | None) -> PRF:
    """:func:`prf` of the ``{prefix}tp``, ``{prefix}fp``, ``{prefix}fn`` entries of ``counts``."""
    beta = options.get("beta")
    return prf(
        counts.get(prefix + "tp", 0),
        counts.get(prefix + "fp", 0),
        counts.get(prefix + "fn", 0),
        beta=1.0 if beta is None else beta,
        zero_division=options.get("zero_division"),
    )


def prf_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """The scorer of ``tp``/``fp``/``fn`` counts: ``precision``, ``recall``, ``f1``.

    >>> prf_scores({"tp": 1, "fn": 1})
    {'precision': 1.0, 'recall': 0.5, 'f1': 0.6666666666666666}
    """
    return prf_of(counts).as_dict()
