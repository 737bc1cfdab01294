"""MUC coreference counts and scores: the coreference metrics on the MUC scorer's partitions.

Per document (additive :class:`~annoscore.counts.Counts`):

``{metric}_recall_num`` ...     :func:`annoscore.metrics.coref.coref_counts` of the key and
                                response partitions (:meth:`CorefAlignment.partitions`), for
                                each chosen metric (``muc`` by default; ``blanc`` has
                                ``blanc_coref_*`` and ``blanc_noncoref_*``)
``key_classes``                 key equivalence classes (after removing unaligned optional
``response_classes``            markables), response classes: the score report's Cls columns
``markables:cor``               key markables aligned with a response markable
``markables:mis``               key markables left unaligned (not optional)
``markables:spu``               response markables left unaligned
``markables:opt``               optional key markables left unaligned (removed)

Scores (:func:`coreference_scores`) of the first metric present in the order of
:data:`annoscore.metrics.coref.METRICS` with MUC first (so MUC when it is chosen): ``recall``,
``precision``, the score report's three F-measures of them ``f_pr``, ``f_2pr``, ``f_p2r``
(:data:`annoscore.metrics.tallies.F_MEASURE_BETAS`, the keys every ``annoscore muc`` result
carries) and the metric's own ``f1`` (``f_pr``, but for BLANC, whose F is the mean of its two
link F's).  Undefined: recall and precision on a zero denominator (``None``, the report's ``*``,
../shared/spec/muc.md, decision 5); the F's only when both denominators are 0 (the one rule,
:mod:`annoscore.metrics.prf`).  Then ``{metric}_recall``, ``{metric}_precision``,
``{metric}_f1`` of every metric present (:func:`annoscore.metrics.coref.coref_scores`), and
``conll_f1`` when MUC, B³ and CEAFe are all there.

>>> c = Counts(muc_recall_num=1, muc_recall_den=3, muc_precision_num=1, muc_precision_den=3)
>>> s = coreference_scores(c)
>>> round(s["recall"], 4), round(s["f_pr"], 4), round(s["f1"], 4), round(s["muc_f1"], 4)
(0.3333, 0.3333, 0.3333, 0.3333)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

from annoscore.align.muc_coref import CorefAlignment
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.coref import METRICS, coref_counts, coref_scores
from annoscore.metrics.prf import f_beta, ratio
from annoscore.metrics.tallies import F_MEASURE_BETAS

ORDER = ("muc", *(m for m in METRICS if m != "muc"))
"""Metric names, MUC first: the first one present gives ``recall``/``precision``/``f1``."""


MetricName = Literal["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea"]
"""A metric ``--metric`` names: one of :data:`annoscore.metrics.coref.METRICS` (a test holds the
two equal)."""


def parse_metrics(names: str | Sequence[str]) -> tuple[MetricName, ...]:
    """Metric names as given (``"muc,bcub"``, or a list of them) in order, each once: ``b3`` is
    ``bcub``, ``all`` every metric; an unknown name is an :class:`InputError`.

    >>> parse_metrics("MUC,b3"), parse_metrics(["ceafe", "muc", "ceafe"])
    (('muc', 'bcub'), ('ceafe', 'muc'))
    """
    given = names.split(",") if isinstance(names, str) else [p for n in names for p in n.split(",")]
    out: list[str] = []
    for raw in given:
        name = raw.strip().lower().replace("b3", "bcub")
        if not name:
            continue
        if name == "all":
            out.extend(m for m in METRICS if m not in out)
            continue
        if name not in METRICS:
            raise InputError(f"--metric {raw!r}: expected some of {', '.join(METRICS)} or all")
        if name not in out:
            out.append(name)
    if not out:
        raise InputError(f"--metric: name at least one of {', '.join(METRICS)}")
    return cast("tuple[MetricName, ...]", tuple(out))


def metrics_of(counts: Counts) -> list[str]:
    """The metrics whose counts are in ``counts``, in :data:`ORDER`."""
    present = []
    for name in ORDER:
        probe = "blanc_coref_recall_den" if name == "blanc" else f"{name}_recall_den"
        if probe in counts:
            present.append(name)
    return present


def coref_document_counts(alignment: CorefAlignment, metrics: Sequence[str] = ("muc",)) -> Counts:
    """The counts of one document (see the module docstring)."""
    key, response = alignment.partitions()
    counts = coref_counts(key, response, metrics)
    mis = sum(1 for m in alignment.key if m.id not in alignment.key_to_response) - len(
        alignment.removed
    )
    extra = Counts(
        {
            "key_classes": len(alignment.key_classes),
            "response_classes": len(alignment.response_classes),
            "markables:cor": len(alignment.key_to_response),
            "markables:mis": mis,
            "markables:spu": len(alignment.response) - len(alignment.key_to_response),
            "markables:opt": len(alignment.removed),
        }
    )
    return counts + extra


def coreference_scores(counts: Counts) -> dict[str, float | None]:
    """The scorer of a MUC coreference result (see the module docstring)."""
    present = metrics_of(counts)
    scores: dict[str, float | None] = {}
    if present and present[0] != "blanc":
        first = present[0]
        recall_den, precision_den = (
            counts[f"{first}_recall_den"],
            counts[f"{first}_precision_den"],
        )
        recall = ratio(counts[f"{first}_recall_num"], recall_den)
        precision = ratio(counts[f"{first}_precision_num"], precision_den)
        # where one of R and P is undefined, F is 0 unless both sides are empty (the one rule)
        f_zero = 0.0 if recall_den or precision_den else None
        f1 = f_beta(precision, recall, 1.0, f_zero)
    elif present:
        recall, precision, f1 = coref_scores(counts, ["blanc"]).values()  # never undefined
        f_zero = 0.0
    if present:
        scores.update(recall=recall, precision=precision)
        for name, beta in F_MEASURE_BETAS.items():
            scores[name] = f_beta(precision, recall, beta, f_zero)
        scores["f1"] = f1
    scores.update(coref_scores(counts, present))
    return scores
