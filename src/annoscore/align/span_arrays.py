"""The array path of span alignment: the continuous mentions of a whole corpus as NumPy
columns (:class:`SpanArrays`), their candidate pairs in every mode (:func:`candidate_pairs`) and
the optimal matching of the pairs that compete (:func:`match_ambiguous`), with the rules of
:mod:`annoscore.align.spans`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from annoscore.align.assignment import max_weight_matching
from annoscore.align.span_modes import MatchKind, MatchOptions, OverlapBasis
from annoscore.records import Record, set_fields

Array = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class SpanArrays:
    """Continuous mentions of many documents as int64 columns, sorted by (doc, start, end, type).

    ``doc`` indexes the caller's document list and ``type`` its (sorted) type list, so sorting by
    type id is sorting by type name, the canonical order of the mention path.
    """

    doc: Array
    start: Array
    end: Array
    type: Array

    @classmethod
    def build(
        cls,
        doc: Sequence[int] | Array,
        start: Sequence[int] | Array,
        end: Sequence[int] | Array,
        type_: Sequence[int] | Array,
    ) -> SpanArrays:
        columns = [np.asarray(c, dtype=np.int64) for c in (doc, start, end, type_)]
        n = columns[0].shape[0]
        if n == 0:
            return cls(*columns)
        scale = int(columns[2].max()) + 1
        types = int(columns[3].max()) + 1
        if (int(columns[0].max()) + 1) * scale * scale * types < 2**62 and columns[1].min() >= 0:
            packed = ((columns[0] * scale + columns[1]) * scale + columns[2]) * types + columns[3]
            if bool((packed[1:] >= packed[:-1]).all()):  # in order already (a sorted file)
                return cls(*columns)
            order = np.argsort(packed, kind="stable")
        else:
            order = np.lexsort((columns[3], columns[2], columns[1], columns[0]))
        return cls(*(c[order] for c in columns))

    def __len__(self) -> int:
        return int(self.doc.shape[0])

    def documents(self, first: int, last: int) -> SpanArrays:
        """The rows of documents ``first`` to ``last - 1``, renumbered from 0 (views)."""
        low, high = np.searchsorted(self.doc, (first, last), side="left").tolist()
        return SpanArrays(
            self.doc[low:high] - first,
            self.start[low:high],
            self.end[low:high],
            self.type[low:high],
        )

    def take(self, mask: Array) -> SpanArrays:
        """The rows where ``mask`` is true (order kept)."""
        return SpanArrays(self.doc[mask], self.start[mask], self.end[mask], self.type[mask])

    def unique(self) -> tuple[SpanArrays, int]:
        """Identical rows collapsed; and how many rows were dropped."""
        if len(self) == 0:
            return self, 0
        keep = np.ones(len(self), dtype=bool)
        keep[1:] = (
            (np.diff(self.doc) != 0)
            | (np.diff(self.start) != 0)
            | (np.diff(self.end) != 0)
            | (np.diff(self.type) != 0)
        )
        return self.take(keep), int((~keep).sum())


def expand_ranges(low: Array, high: Array) -> tuple[Array, Array]:
    """For every row r, the positions ``low[r] .. high[r]-1``: (row ids, positions)."""
    sizes = np.maximum(high - low, 0)
    total = int(sizes.sum())
    rows = np.repeat(np.arange(low.shape[0], dtype=np.int64), sizes)
    first = np.cumsum(sizes) - sizes
    positions = np.arange(total, dtype=np.int64) - np.repeat(first - low, sizes)
    return rows, positions


def sorted_rank(keys: Array, queries: Array, side: Literal["left", "right"]) -> Array:
    """``np.searchsorted(keys, queries, side)`` for sorted ``keys`` (int64, below 2**62).

    Keys and queries are doubled with a tie-breaking bit and sorted together (timsort merges the
    two sorted runs in linear time); the rank of the k-th smallest query is its position in the
    merged order minus k.  Queries that are not sorted are sorted first (an argsort, fast on the
    nearly sorted queries of span data).
    """
    if queries.shape[0] > 1 and not bool((queries[1:] >= queries[:-1]).all()):
        order = np.argsort(queries, kind="stable")
        ranks = np.empty(queries.shape[0], dtype=np.int64)
        ranks[order] = sorted_rank(keys, queries[order], side)
        return ranks
    key_bit, query_bit = (1, 0) if side == "left" else (0, 1)
    both = np.concatenate((keys * 2 + key_bit, queries * 2 + query_bit))
    both.sort(kind="stable")
    position = np.flatnonzero((both & 1) == query_bit)
    result: Array = position - np.arange(queries.shape[0], dtype=np.int64)
    return result


class CandidatePairs(Record):
    """Candidate pairs of the array path: row indices into gold and pred, and pair attributes."""

    __slots__ = ("gold", "pred", "same_bounds", "same_type")
    gold: Array
    pred: Array
    same_bounds: Array
    same_type: Array

    def __init__(self, gold: Array, pred: Array, same_bounds: Array, same_type: Array) -> None:
        set_fields(self, gold=gold, pred=pred, same_bounds=same_bounds, same_type=same_type)

    def take(self, positions: Array) -> CandidatePairs:
        """The pairs at ``positions``."""
        return CandidatePairs(
            self.gold[positions],
            self.pred[positions],
            self.same_bounds[positions],
            self.same_type[positions],
        )


def _overlap_closeness(gs: Array, ge: Array, ps: Array, pe: Array, basis: OverlapBasis) -> Array:
    """:func:`~annoscore.align.spans.overlap_fraction` of continuous spans, elementwise."""
    shared = np.minimum(ge, pe) - np.maximum(gs, ps)
    g_len, p_len = ge - gs, pe - ps
    if basis == "gold":
        denominator = g_len
    elif basis == "predicted":
        denominator = p_len
    elif basis == "shorter":
        denominator = np.minimum(g_len, p_len)
    elif basis == "longer":
        denominator = np.maximum(g_len, p_len)
    else:
        denominator = g_len + p_len - shared
    positive = shared > 0
    fraction = np.where(positive, shared / np.where(positive, denominator, 1), 0.0)
    same_bounds = (gs == ps) & (ge == pe)
    result: Array = np.where(same_bounds, 1.0, fraction)
    return result


def candidate_windows(
    gold: SpanArrays,
    pred: SpanArrays,
    kind: Literal["overlap", "relaxed", "semeval"],
    options: MatchOptions,
) -> tuple[Array, Array]:
    """Each gold row's window of predicted rows, ``pred[low[i]:high[i]]``, that may pair with it.

    Both sides are sorted by (document, start), so the key ``document * scale + start`` of the
    predicted rows is sorted (``scale`` exceeds every start, end, length and tolerance, so
    documents never mix).  The window holds the predicted starts from ``start - tolerance`` to
    ``start + tolerance`` in relaxed mode, and from ``start - longest predicted span`` to ``end``
    otherwise (every span that can share a character, or have identical bounds); both bounds
    are found by :func:`sorted_rank`.  No filter is applied: type, end and overlap are
    :func:`candidate_pairs`' to check.
    """
    tol = options.tolerance
    max_len = int((pred.end - pred.start).max(initial=0))
    max_end = int(max(gold.end.max(initial=0), pred.end.max(initial=0)))
    scale = max_end + max_len + tol + 2
    key_p = pred.doc * scale + pred.start
    base_g = gold.doc * scale
    if kind == "relaxed":
        low_value = base_g + np.maximum(gold.start - tol, 0)
        high_value = base_g + gold.start + tol
    else:
        low_value = base_g + np.maximum(gold.start - max_len, 0)
        high_value = base_g + gold.end
    return sorted_rank(key_p, low_value, "left"), sorted_rank(key_p, high_value, "right")


def candidate_pairs(
    gold: SpanArrays,
    pred: SpanArrays,
    kind: Literal["overlap", "relaxed", "semeval"],
    options: MatchOptions,
) -> CandidatePairs:
    """Every candidate pair of the corpus for ``kind`` (``semeval``: any type, overlap rules).

    Each gold row's window of predicted rows (:func:`candidate_windows`) is expanded to pairs
    and filtered: same type (except SemEval), end within the tolerance (relaxed), a shared
    character or identical bounds and ``min_overlap`` (overlap, SemEval).
    """
    low, high = candidate_windows(gold, pred, kind, options)
    g_idx, p_idx = expand_ranges(low, high)
    same_type = gold.type[g_idx] == pred.type[p_idx]
    if kind != "semeval":
        g_idx, p_idx, same_type = g_idx[same_type], p_idx[same_type], same_type[same_type]
    gs, ge = gold.start[g_idx], gold.end[g_idx]
    ps, pe = pred.start[p_idx], pred.end[p_idx]
    same_bounds = (gs == ps) & (ge == pe)
    if kind == "relaxed":
        keep = np.abs(ge - pe) <= options.tolerance
    else:
        keep = same_bounds | (np.minimum(ge, pe) > np.maximum(gs, ps))
        if options.min_overlap > 0:
            closeness = _overlap_closeness(gs, ge, ps, pe, options.overlap_basis)
            keep &= closeness >= options.min_overlap
    return CandidatePairs(g_idx[keep], p_idx[keep], same_bounds[keep], same_type[keep])


def pair_weights(pairs: CandidatePairs, kind: MatchKind, closeness: Array, n: Array) -> Array:
    """:func:`~annoscore.align.spans.pair_weight` of every candidate pair, given its closeness
    and its document's ``n = max(#gold, #predicted) + 1`` (as the mention path)."""
    sb, st = pairs.same_bounds, pairs.same_type
    if kind == "semeval_strict":
        credit = np.where(sb & st, 2, 0)
    elif kind == "semeval_exact":
        credit = np.where(sb, 2, 0)
    elif kind == "semeval_partial":
        credit = np.where(sb, 2, 1)
    elif kind == "semeval_type":
        credit = np.where(st, 2, 0)
    else:
        credit = np.zeros(sb.shape[0], dtype=np.int64)
    weights: Array = n * (n + 1) * credit + n + closeness
    return weights


def isolated_pairs(pairs: CandidatePairs, n_gold: int, n_pred: int) -> Array:
    """Whether each pair's gold and predicted rows have no other candidate (such a pair is in
    every maximum-weight matching, whatever the weights)."""
    gold_degree = np.bincount(pairs.gold, minlength=n_gold)
    pred_degree = np.bincount(pairs.pred, minlength=n_pred)
    result: Array = (gold_degree[pairs.gold] == 1) & (pred_degree[pairs.pred] == 1)
    return result


def match_ambiguous(
    pairs: CandidatePairs,
    ambiguous: Array,
    kind: MatchKind,
    gold: SpanArrays,
    pred: SpanArrays,
    options: MatchOptions,
) -> Array:
    """Positions among ``ambiguous`` (positions in ``pairs``) of the optimal matching of those
    pairs, by :func:`~annoscore.align.assignment.max_weight_matching` keyed by row index (the
    canonical order), with the weights of :func:`~annoscore.align.spans.pair_weight`; the
    closeness is :func:`~annoscore.align.spans.relaxed_closeness` in relaxed mode, else
    :func:`~annoscore.align.spans.overlap_fraction` with ``options.overlap_basis``."""
    if ambiguous.shape[0] == 0:
        return ambiguous
    subset = pairs.take(ambiguous)
    docs = gold.doc[subset.gold]
    # n = max(#gold, #predicted) + 1 of each pair's document, counted in the sorted doc columns
    gold_rows = np.searchsorted(gold.doc, docs, "right") - np.searchsorted(gold.doc, docs, "left")
    pred_rows = np.searchsorted(pred.doc, docs, "right") - np.searchsorted(pred.doc, docs, "left")
    n = np.maximum(gold_rows, pred_rows) + 1
    gs, ge = gold.start[subset.gold], gold.end[subset.gold]
    ps, pe = pred.start[subset.pred], pred.end[subset.pred]
    if kind == "relaxed":
        closeness = 1 / (1 + np.abs(gs - ps) + np.abs(ge - pe))
    else:
        closeness = _overlap_closeness(gs, ge, ps, pe, options.overlap_basis)
    weights = pair_weights(subset, kind, closeness, n)
    rows, cols = subset.gold.tolist(), subset.pred.tolist()
    position = {edge: k for k, edge in enumerate(zip(rows, cols, strict=True))}
    chosen = max_weight_matching(zip(rows, cols, weights.tolist(), strict=True))
    picked = np.fromiter((position[edge] for edge in chosen), dtype=np.int64, count=len(chosen))
    result: Array = ambiguous[picked]
    return result


def maximum_cardinality(pairs: CandidatePairs, positions: Array) -> Array:
    """Positions among ``positions`` (in ``pairs``) of *a* maximum-cardinality matching of those
    pairs (Hopcroft-Karp, ``scipy.sparse.csgraph.maximum_bipartite_matching``, imported here).

    Which pairs are chosen among matchings of equal size is scipy's choice, not the closeness
    order: use it only where the counts depend on the number of pairs alone.
    """
    if positions.shape[0] == 0:
        return positions
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    rows, row_of = np.unique(pairs.gold[positions], return_inverse=True)
    cols, col_of = np.unique(pairs.pred[positions], return_inverse=True)
    graph = csr_matrix(
        (np.ones(positions.shape[0]), (row_of, col_of)), shape=(rows.shape[0], cols.shape[0])
    )
    partner = np.asarray(maximum_bipartite_matching(graph, perm_type="column"))
    matched = np.flatnonzero(partner >= 0)
    keys = row_of * cols.shape[0] + col_of
    order = np.argsort(keys, kind="stable")
    found = np.searchsorted(keys[order], matched * cols.shape[0] + partner[matched])
    result: Array = positions[order[found]]
    return result
