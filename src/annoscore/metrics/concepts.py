"""Concept scoring of annotated documents (BioCreative-style normalisation): mentions matched by
span, type and concept id, and each document's set of concept ids.

A mention's concept ids are the references of the normalizations that target it
(:class:`~annoscore.model.Normalization`; PubTator's 6th column, BioC's ``identifier`` infon);
a composite id (``D001|D002``, PubTator) is split at ``|``; a part that is empty or ``-1``
(PubTator's and BioCreative's "no id") is none, and a mention without an id has none.

Counts of one document (:func:`concept_counts`):

- ``tp``, ``fp``, ``fn``: mentions as (fragments, type, id) items, one per id of a mention,
  compared as sets (a mention with two ids is two items; duplicates count once), and per type
  (``type:NAME:tp``...);
- ``ids_tp``, ``ids_fp``, ``ids_fn``: the document's set of (type, id) pairs, each pair once.

P = tp / (tp + fp), R = tp / (tp + fn), F1 their harmonic mean (:mod:`annoscore.metrics.prf`),
and the same for the ``ids_`` counts (:func:`concept_scores`).  Ids are compared as written
(exact strings).

>>> from annoscore.model import AnnotatedDocument, Mention, Normalization, Span
>>> m = Mention(Span.of(0, 7), "Chemical", "T1")
>>> gold = AnnotatedDocument("d", (m,), normalizations=(
...     Normalization("N1", "Reference", "T1", "", "D001241"),))
>>> system = AnnotatedDocument("d", (m,), normalizations=(
...     Normalization("N1", "Reference", "T1", "", "D999"),))
>>> c = concept_counts(gold, system)
>>> c["tp"], c["fp"], c["fn"], c["ids_tp"]
(0, 1, 1, 0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from annoscore.counts import Counts, Number
from annoscore.metrics.prf import prf
from annoscore.model import AnnotatedDocument

NO_ID = frozenset({"", "-1"})
"""Concept ids that mean "no id"."""

ConceptItem = tuple[tuple[tuple[int, int], ...], str, str]
"""A mention's fragments, type and one of its concept ids."""


def concept_items(document: AnnotatedDocument) -> set[ConceptItem]:
    """The (fragments, type, id) items of ``document`` (the module doc).

    >>> from annoscore.model import Mention, Normalization, Span
    >>> doc = AnnotatedDocument("d", (Mention(Span.of(0, 3), "Gene", "T1"),), normalizations=(
    ...     Normalization("N1", "Reference", "T1", "", "672|675"),))
    >>> sorted(concept_items(doc))
    [(((0, 3),), 'Gene', '672'), (((0, 3),), 'Gene', '675')]
    """
    ids: dict[str, list[str]] = {}
    for normalization in document.normalizations:
        for part in normalization.reference.split("|"):
            if part not in NO_ID:
                ids.setdefault(normalization.target, []).append(part)
    return {
        (mention.span.fragments, mention.type, concept)
        for mention in document.mentions
        for concept in ids.get(mention.id, ())
    }


def concept_counts(gold: AnnotatedDocument | None, system: AnnotatedDocument | None) -> Counts:
    """The counts of one document (the module doc); ``None``: the document is missing on that
    side (nothing annotated)."""
    gold_items = concept_items(gold) if gold is not None else set()
    system_items = concept_items(system) if system is not None else set()
    gold_ids = {(kind, concept) for _, kind, concept in gold_items}
    system_ids = {(kind, concept) for _, kind, concept in system_items}
    hits = gold_items & system_items
    ids_tp = len(gold_ids & system_ids)
    data: dict[str, Number] = {
        "tp": len(hits),
        "fp": len(system_items) - len(hits),
        "fn": len(gold_items) - len(hits),
        "ids_tp": ids_tp,
        "ids_fp": len(system_ids) - ids_tp,
        "ids_fn": len(gold_ids) - ids_tp,
    }
    hit, found, wanted = (Counter(item[1] for item in s) for s in (hits, system_items, gold_items))
    for kind in sorted(found.keys() | wanted.keys()):
        data[f"type:{kind}:tp"] = hit[kind]
        data[f"type:{kind}:fp"] = found[kind] - hit[kind]
        data[f"type:{kind}:fn"] = wanted[kind] - hit[kind]
    return Counts(data)


def concept_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """``precision``, ``recall``, ``f1`` of the mention items and ``ids_precision``,
    ``ids_recall``, ``ids_f1`` of the document id sets (``None`` where undefined).

    >>> concept_scores(Counts(tp=1, fn=1, ids_tp=1))["ids_f1"]
    1.0
    """
    return {
        **prf(counts["tp"], counts["fp"], counts["fn"]).as_dict(),
        **prf(counts["ids_tp"], counts["ids_fp"], counts["ids_fn"]).as_dict("ids_"),
    }
