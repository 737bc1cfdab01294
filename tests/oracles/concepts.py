"""Plain reference for concept scoring (``spans --mode concepts``), written from the definitions
of ``../shared/spec/formats.md`` and :mod:`annoscore.metrics.concepts`: a mention with concept ids
is one (fragments, type, id) item per id, a document's items and its (type, id) pairs are sets,
and a document one side lacks is scored against nothing (or left out with ``ignore``).

Documents are given as ``{doc_id: [(start, end, type, ids), ...]}``, ``ids`` a tuple of single
ids (a composite id already split).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Annotation = tuple[int, int, str, tuple[str, ...]]


def plain_concept_counts(
    gold: Mapping[str, Sequence[Annotation]],
    system: Mapping[str, Sequence[Annotation]],
    *,
    ignore_missing: bool = False,
) -> dict[str, dict[str, int]]:
    """Each scored document's ``tp``, ``fp``, ``fn``, ``ids_tp``, ``ids_fp``, ``ids_fn``.

    >>> plain_concept_counts({"d": [(0, 3, "G", ("1", "2"))]}, {"d": [(0, 3, "G", ("1",))]})
    {'d': {'tp': 1, 'fp': 0, 'fn': 1, 'ids_tp': 1, 'ids_fp': 0, 'ids_fn': 1}}
    """
    out: dict[str, dict[str, int]] = {}
    names = sorted(set(gold) & set(system)) if ignore_missing else sorted(set(gold) | set(system))
    for name in names:
        items = []
        for side in (gold, system):
            found = set()
            for start, end, kind, ids in side.get(name, ()):
                for concept in ids:
                    found.add((start, end, kind, concept))
            items.append(found)
        pairs = [{(kind, concept) for _, _, kind, concept in found} for found in items]
        tp = len(items[0] & items[1])
        ids_tp = len(pairs[0] & pairs[1])
        out[name] = {
            "tp": tp,
            "fp": len(items[1]) - tp,
            "fn": len(items[0]) - tp,
            "ids_tp": ids_tp,
            "ids_fp": len(pairs[1]) - ids_tp,
            "ids_fn": len(pairs[0]) - ids_tp,
        }
    return out
