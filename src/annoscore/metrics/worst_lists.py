"""The ranked lists of the worst queries, as an HTML report shows them (trec's queries, CodiEsp
D/P's documents), and how a run cut into chunks (:mod:`annoscore.scale`, ``-j N``) keeps them.

A ranked task's details hold every query's ranked list (``ranking``: :class:`~annoscore.metrics.
trec_measures.RankedLists`, :class:`~annoscore.metrics.ranked_codes.CodeRanking`), as references
to the arrays of the process that read the input.  A chunk scored in a worker cannot send them
all back cheaply, and the report needs only the :data:`WORST` queries of lowest per-query score
(:func:`document_key`), each with its first :data:`RANKS` rows.  So a chunk keeps the lists of
its own worst queries (:func:`for_chunk`, a :class:`WorstLists`), and the combined result holds
their union (:func:`joined`): the worst of the whole corpus are among them, since a query's
score is the same in its chunk and in the whole (the same counts, the same scorer), and the
order (score, then name; undefined last) is total.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from annoscore.result import Result

WORST = 50
"""Queries listed."""
RANKS = 100
"""Ranks shown of each."""


@dataclass(frozen=True, slots=True)
class QueryList:
    """One query's list as the report shows it: how many relevant items it has and how many of
    them are ranked, its first ranks as ``(item, relevance)`` (``None``: not judged) and the
    relevant items never ranked (CodiEsp; ``()`` for trec)."""

    relevant: int
    found: int
    ranked: tuple[tuple[str, int | None], ...]
    missed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WorstLists:
    """The lists of some queries only (a chunk's worst, or their union), with the relevance
    level of the full lists (what the report marks relevant)."""

    lists: Mapping[str, QueryList]
    level: int

    @property
    def names(self) -> Iterable[str]:
        return self.lists.keys()

    def query_lists(self, names: Iterable[str], first: int) -> dict[str, QueryList]:
        """The lists of ``names`` held here, each cut to its ``first`` ranks."""
        return {n: replace(q, ranked=q.ranked[:first]) for n in names if (q := self.lists.get(n))}


def document_key(result: Result) -> str | None:
    """The per-document score a report ranks documents by: the headline where documents have
    it, else their first score (``None`` without documents)."""
    documents = result.documents
    if not documents:
        return None
    first = next(iter(documents.values())).scores
    if result.headline in first:
        return result.headline
    return next(iter(first), None)


def worst(
    names: Iterable[str], documents: Mapping[str, Any], key: str, n: int = WORST
) -> list[str]:
    """The ``n`` of ``names`` (those among ``documents``, scored units) of lowest ``key``, ties by
    name, undefined last.

    >>> from types import SimpleNamespace as S
    >>> docs = {"a": S(scores={"f": 0.5}), "b": S(scores={"f": None}), "c": S(scores={"f": 0.5})}
    >>> worst(["c", "b", "a", "z"], docs, "f", 2), worst(docs, docs, "f")
    (['a', 'c'], ['a', 'c', 'b'])
    """

    def order(name: str) -> tuple[float, str]:
        value = documents[name].scores.get(key)
        return (float("inf") if value is None else float(value), name)

    return heapq.nsmallest(n, (m for m in names if m in documents), key=order)


def _lists(details: Any) -> Any:
    ranking = getattr(details, "ranking", None)
    return ranking if hasattr(ranking, "query_lists") else None


def for_chunk(result: Result, keep: bool) -> Result:
    """``result`` as a chunk sends it (:mod:`annoscore.scale`): its ranked lists cut to those
    of its :data:`WORST` queries (``keep``: a report is written), or left out."""
    details: Any = result.details
    ranking = _lists(details)
    if ranking is None:
        return result
    kept = None
    key = document_key(result) if keep else None
    if key is not None:
        names = worst(ranking.names, result.documents, key)
        kept = WorstLists(ranking.query_lists(names, RANKS), ranking.level)
    return replace(result, details=replace(details, ranking=kept))


def joined(details: Any, chunks: Sequence[Any]) -> Any:
    """``details`` (the chunks' joined) with the union of the chunks' :class:`WorstLists`
    (none unless every chunk kept them)."""
    if not hasattr(details, "ranking"):
        return details
    found = [f for c in chunks if isinstance(f := getattr(c, "ranking", None), WorstLists)]
    if not found or len(found) != len(chunks):
        return replace(details, ranking=None)
    union = {name: q for f in found for name, q in f.lists.items()}
    return replace(details, ranking=WorstLists(union, found[0].level))
