"""CodiEsp's scorers: micro precision, recall and F1 as the official scripts compute them, and
MAP beside them for D and P.

``counts`` are additive (:class:`annoscore.counts.Counts`): ``tp``, ``fp``, ``fn`` over distinct
(document, code) pairs, and for D/P ``ap_sum`` and ``queries`` (the documents in MAP, see
:mod:`annoscore.metrics.ranked_codes`).  A scorer turns the counts of a corpus, or of one
document, into its scores.
"""

from __future__ import annotations

from annoscore.counts import Counts
from annoscore.metrics.prf import ratio
from annoscore.result import Scores


def f1_official(precision: float | None, recall: float | None) -> float | None:
    """F1 as the official scripts compute it: 2PR/(P+R).

    CodiEsp's named rule (design.md lets an official preset keep its own): F1 is undefined when
    P or R is (nothing predicted, or nothing in the gold: the official script prints ``nan``),
    and 0 when both are defined and P + R = 0 (the official ``nan`` of 0/0 there is a number).
    The project rule would give F 0 for a document with gold codes and no prediction; CodiEsp's
    F1 script never defines it, so neither does this preset.

    >>> f1_official(0.5, 1.0), f1_official(0.0, 0.0), f1_official(None, 0.0)
    (0.6666666666666666, 0.0, None)
    """
    if precision is None or recall is None:
        return None
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def set_scores(counts: Counts) -> Scores:
    """Micro precision, recall and F1 of ``tp``, ``fp``, ``fn`` counts (the scorer of X).

    >>> set_scores(Counts(tp=1, fp=1, fn=0))
    {'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    """
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    return {"precision": precision, "recall": recall, "f1": f1_official(precision, recall)}


def ranked_scores(counts: Counts) -> Scores:
    """The scorer of D and P: ``map`` = ``ap_sum / queries`` (of one document: its AP, ``None``
    when it is left out of MAP) and :func:`set_scores`.

    >>> ranked_scores(Counts(tp=1, fp=1, fn=0, ap_sum=0.5, queries=1))["map"]
    0.5
    """
    return {"map": ratio(counts["ap_sum"], counts["queries"]), **set_scores(counts)}
