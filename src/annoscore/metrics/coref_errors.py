"""Coreference errors after Kummerfeld and Klein (2013), and the score each costs.

A response is turned into the key by a fixed sequence of repairs, each a kind of error; the
number of repairs of each kind is its count, and the score gained by each is the difference of
the project's own metrics (:func:`annoscore.metrics.coref.coref_counts`) before and after it.
The repairs, in this order, each applied to the response the previous ones left:

1. ``span``: a response mention whose span is wrong, paired with an overlapping key mention the
   response lacks (``spans``: the caller's pairing, e.g. the span pairing of
   :func:`annoscore.align.span_errors.categorize`): its span is corrected;
2. ``extra_mention``: a response mention that is no key mention, in an entity that holds some
   key mention: removed;
3. ``extra_entity``: a response entity without any key mention: removed (one per entity);
4. ``missing_mention``: a key mention the response lacks, of a key entity some of whose mentions
   it has: added to the response entity holding most of them (the first such on a tie);
5. ``missing_entity``: a key entity none of whose mentions the response has: added whole;
6. ``conflated``: a response entity holding mentions of several key entities: split by key
   entity (one count per split, the number of its key entities less one);
7. ``divided``: a key entity spread over several response entities: merged (one count per
   merge, the number of those entities less one).

After the seventh the response is the key, so the gains add up to the difference between the
key's score against itself and the response's.  Counts and the stages' metric counts are
additive over documents (:class:`~annoscore.counts.Counts`), so corpus gains are the scores of
summed stages.

>>> key = [[1, 2, 3], [4, 5]]
>>> response = [[1, 2, 4], [3], [9]]
>>> found = coref_errors(key, response)
>>> {k: v for k, v in found.counts.items() if v}
{'extra_entity': 1, 'missing_mention': 1, 'conflated': 1, 'divided': 1}
>>> [sorted(map(sorted, s)) for s in found.stages][-1]
[[1, 2, 3], [4, 5]]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from annoscore.counts import Counts
from annoscore.metrics.coref import METRICS, coref_counts

M = TypeVar("M", bound=Hashable)

CATEGORIES = (
    "span",
    "extra_mention",
    "extra_entity",
    "missing_mention",
    "missing_entity",
    "conflated",
    "divided",
)
"""The kinds of error, in the order they are repaired."""

LABELS = {
    "span": "span error",
    "extra_mention": "extra mention",
    "extra_entity": "extra entity",
    "missing_mention": "missing mention",
    "missing_entity": "missing entity",
    "conflated": "conflated entities",
    "divided": "divided entity",
}


@dataclass(frozen=True, slots=True)
class CorefErrors:
    """The errors of one document: ``counts`` per kind, and ``stages``: the response before
    any repair, then after each (in :data:`CATEGORIES` order; the last is the key)."""

    counts: Counts
    stages: tuple[tuple[tuple[Any, ...], ...], ...]


def _frozen(partition: Iterable[Iterable[Any]]) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(entity) for entity in partition if entity)


def coref_errors(
    key: Sequence[Iterable[M]], response: Sequence[Iterable[M]], spans: Mapping[M, M] | None = None
) -> CorefErrors:
    """The errors of ``response`` against ``key`` (partitions of mention ids) and the repaired
    responses (see the module doc); ``spans`` maps a wrong response mention to the key mention
    it stands for (both absent from the other side)."""
    key_entities = [list(dict.fromkeys(e)) for e in key if e]
    owner = {m: k for k, entity in enumerate(key_entities) for m in entity}
    current = [list(e) for e in response if e]
    counts = dict.fromkeys(CATEGORIES, 0)
    stages = [_frozen(current)]
    # 1. spans
    fixes = dict(spans or {})
    present = {m for e in current for m in e}
    fixes = {r: k for r, k in fixes.items() if r in present and r not in owner and k in owner}
    fixes = {r: k for r, k in fixes.items() if k not in present}
    if len(set(fixes.values())) != len(fixes):
        raise ValueError("two response mentions stand for one key mention")
    counts["span"] = sum(1 for e in current for m in e if m in fixes)
    current = [[fixes.get(m, m) for m in e] for e in current]
    stages.append(_frozen(current))
    # 2. extra mentions (in an entity with a key mention)
    kept = []
    for entity in current:
        if any(m in owner for m in entity):
            counts["extra_mention"] += sum(1 for m in entity if m not in owner)
            entity = [m for m in entity if m in owner]
        kept.append(entity)
    current = kept
    stages.append(_frozen(current))
    # 3. extra entities
    counts["extra_entity"] = sum(1 for e in current if e and not any(m in owner for m in e))
    current = [e for e in current if any(m in owner for m in e)]
    stages.append(_frozen(current))
    # 4. missing mentions, 5. missing entities
    where = {m: r for r, e in enumerate(current) for m in e}
    added: list[list[M]] = []
    for entity in key_entities:
        holders = [where[m] for m in entity if m in where]
        missing = [m for m in entity if m not in where]
        if holders and missing:
            most = max(dict.fromkeys(holders), key=holders.count)  # the first on a tie
            current[most] = current[most] + missing
            counts["missing_mention"] += len(missing)
        elif not holders:
            added.append(list(entity))
    stages.append(_frozen(current))
    counts["missing_entity"] = len(added)
    current += added
    stages.append(_frozen(current))
    # 6. conflated entities: split by key entity
    split: list[list[M]] = []
    for entity in current:
        parts: dict[int, list[M]] = {}
        for m in entity:
            parts.setdefault(owner[m], []).append(m)
        counts["conflated"] += len(parts) - 1
        split.extend(parts.values())
    current = split
    stages.append(_frozen(current))
    # 7. divided entities: merge by key entity
    merged: dict[int, list[M]] = {}
    for entity in current:
        merged.setdefault(owner[entity[0]], []).extend(entity)
    counts["divided"] = len(current) - len(merged)
    current = [merged[k] for k in sorted(merged)]
    stages.append(_frozen(current))
    return CorefErrors(Counts(counts), tuple(stages))


def stage_counts(
    key: Sequence[Iterable[M]], errors: CorefErrors, metrics: Iterable[str] = METRICS
) -> tuple[Counts, ...]:
    """The metrics' counts of each stage of ``errors`` against ``key`` (additive over
    documents): the first the response's, each next one after one more kind of repair."""
    chosen = tuple(metrics)
    entities = [tuple(entity) for entity in key]
    return tuple(coref_counts(entities, stage, chosen) for stage in errors.stages)


def token_span_fixes(
    key: Iterable[Iterable[tuple[int, int]]], response: Iterable[Iterable[tuple[int, int]]]
) -> dict[tuple[int, int], tuple[int, int]]:
    """The span errors of token-span mentions (``(first token, last token)``): each response
    mention that is no key mention paired with an overlapping key mention the response lacks,
    by the span pairing of the span report (:func:`annoscore.align.span_errors.categorize`:
    most shared tokens first, ties by position).

    >>> token_span_fixes([[(0, 1), (5, 5)]], [[(0, 2)], [(5, 5)], [(8, 9)]])
    {(0, 2): (0, 1)}
    """
    from annoscore.align.span_errors import categorize

    key_mentions = {m for entity in key for m in entity}
    response_mentions = {m for entity in response for m in entity}
    lacking = sorted(key_mentions - response_mentions)
    wrong = sorted(response_mentions - key_mentions)
    items = categorize(
        [(((s, e + 1),), "") for s, e in lacking],
        [(((s, e + 1),), "") for s, e in wrong],
        plain=True,
    )
    return {
        wrong[i.pred]: lacking[i.gold]
        for i in items
        if i.category == "boundary" and i.gold is not None and i.pred is not None
    }
