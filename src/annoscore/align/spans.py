"""Which gold span goes with which predicted span: the matching modes of generic span scoring.

Two paths give the same answer:

- the **mention path** (:func:`align_mentions`, :func:`token_units`) works on the
  :class:`~annoscore.model.Mention` lists of one document and is the reference;
- the **array path** (:class:`SpanArrays`, :func:`candidate_pairs`, :func:`match_ambiguous`)
  works on the continuous mentions of a whole corpus at once, as numpy columns, and is what the
  task uses for speed.  A property test checks that both give identical counts.

Modes (``mode``)
----------------
``strict``   same fragments and same type.
``exact``    same fragments, any type.
``overlap``  same type, at least one shared character, and ``shared / basis >= min_overlap``.
``relaxed``  same type, ``|start_g - start_p| <= tolerance`` and ``|end_g - end_p| <= tolerance``
             (overall start and end: a discontinuous span is compared by its outer bounds; the
             spans need not overlap).
``token``    each mention becomes the whitespace tokens of the text it touches (see
             :func:`token_units`); a token of a type counts once per document.
SemEval-2013 (``semeval_strict`` ... ``semeval_type``): candidate pairs are pairs of any type with
an overlap as in ``overlap`` mode; see :func:`pair_credit` for what each scheme rewards.

Overlap fraction (``min_overlap``, ``overlap_basis``)
-----------------------------------------------------
``shared`` is the number of characters both spans cover (``Span.overlap``; gaps of a
discontinuous span cover nothing).  The fraction is ``shared`` divided by the ``basis``: the gold
span's length (``gold``, the default, as nervaluate does), the predicted span's (``predicted``),
the shorter or longer of the two, or the union (``union``: the Jaccard index).  A pair that
shares no character is never a candidate, whatever ``min_overlap``, except identical spans
(which matters only for zero-length spans), whose fraction is 1.

One-to-one, optimal, order-invariant
------------------------------------
Among the candidate pairs of a document, a one-to-one matching is chosen that maximises, in this
order: the credit of the pairs (only the SemEval schemes give credit, see :func:`pair_credit`),
then the number of pairs, then the sum of their *closeness* (the overlap fraction, or
``1 / (1 + |start diff| + |end diff|)`` in relaxed mode).  This is one maximum-weight matching
with the weight ``n(n+1) * credit + n + closeness`` where ``n = max(#gold, #predicted) + 1`` in the
document (:func:`pair_weight`): the terms cannot trade against each other.  Mentions are put in
canonical order (start, end, fragments, type) first and the remaining ties are broken by that
order (:func:`~annoscore.align.assignment.max_weight_matching`), so the result never depends on
the input order.  In ``strict`` and ``exact`` mode the candidates of a group of identical spans
form a complete bipartite graph and the matching is given in closed form: same-type pairs first,
then the leftover gold and predicted mentions of the group in canonical (type) order.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from annoscore.align.assignment import max_weight_matching
from annoscore.align.span_modes import (
    OVERLAP_BASES,
    OverlapBasis,
)
from annoscore.model import Mention, Span

Array = npt.NDArray[Any]

MatchKind = Literal[
    "strict",
    "exact",
    "overlap",
    "relaxed",
    "semeval_strict",
    "semeval_exact",
    "semeval_partial",
    "semeval_type",
]


WHITESPACE_CODEPOINTS: tuple[int, ...] = (
    *range(0x09, 0x0E),
    *range(0x1C, 0x21),
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
)
"""The characters ``str.isspace()`` (and so ``str.split()``) treats as whitespace."""

_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """The parameters of the matching modes (see the module doc for their meaning).

    ``min_overlap`` is a fraction in [0, 1] of the ``overlap_basis`` length; ``tolerance`` is the
    number of characters start and end may each be off in relaxed mode.
    """

    min_overlap: float = 0.0
    overlap_basis: OverlapBasis = "gold"
    tolerance: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be a fraction in [0, 1], not {self.min_overlap}")
        if self.overlap_basis not in OVERLAP_BASES:
            raise ValueError(
                f"overlap_basis must be one of {', '.join(OVERLAP_BASES)}, "
                f"not {self.overlap_basis!r}"
            )
        if self.tolerance < 0:
            raise ValueError(f"tolerance must be >= 0, not {self.tolerance}")


# --------------------------------------------------------------------------- the mention path


def canonical_key(mention: Mention) -> tuple[int, int, tuple[tuple[int, int], ...], str]:
    """The canonical order of mentions: start, end, fragments, type."""
    span = mention.span
    return (span.start, span.end, span.fragments, mention.type)


def canonical(mentions: Iterable[Mention]) -> tuple[Mention, ...]:
    """``mentions`` in canonical order (the order ties are broken in)."""
    return tuple(sorted(mentions, key=canonical_key))


def _basis_length(gold: int, pred: int, shared: int, basis: OverlapBasis) -> int:
    if basis == "gold":
        return gold
    if basis == "predicted":
        return pred
    if basis == "shorter":
        return min(gold, pred)
    if basis == "longer":
        return max(gold, pred)
    return gold + pred - shared


def overlap_fraction(gold: Span, pred: Span, basis: OverlapBasis = "gold") -> float:
    """``shared / basis`` (see the module doc); 1.0 for identical spans, 0.0 if none shared."""
    if gold.fragments == pred.fragments:
        return 1.0
    shared = gold.overlap(pred)
    if shared == 0:
        return 0.0
    return shared / _basis_length(gold.length, pred.length, shared, basis)


def relaxed_closeness(gold: Span, pred: Span) -> float:
    """``1 / (1 + |start diff| + |end diff|)``: 1.0 for the same bounds."""
    return 1 / (1 + abs(gold.start - pred.start) + abs(gold.end - pred.end))


def pair_credit(kind: MatchKind, same_bounds: bool, same_type: bool) -> int:
    """Credit of a candidate pair, in half points (0, 1 or 2), for the SemEval schemes.

    ============  ====================================  =====================================
    scheme        COR (credit 2)                        otherwise
    ============  ====================================  =====================================
    strict        same fragments and same type          INC (0)
    exact         same fragments, any type              INC (0)
    partial       same fragments, any type              PAR (1: half credit)
    type          same type (the pair overlaps)         INC (0)
    ============  ====================================  =====================================

    The tp/fp/fn modes give no credit (0): only the number of pairs and closeness count.
    """
    if kind == "semeval_strict":
        return 2 if same_bounds and same_type else 0
    if kind == "semeval_exact":
        return 2 if same_bounds else 0
    if kind == "semeval_partial":
        return 2 if same_bounds else 1
    if kind == "semeval_type":
        return 2 if same_type else 0
    return 0


def pair_weight(credit: int, closeness: float, n: int) -> float:
    """``n(n+1) * credit + n + closeness``: credit first, then the number of pairs, then closeness.

    With ``n = max(#gold, #predicted) + 1`` a matching has at most ``n - 1`` pairs, so the sum of
    the ``n + closeness`` terms stays below ``n(n+1)`` and the sum of closeness below ``n``.
    """
    return n * (n + 1) * credit + n + closeness


@dataclass(frozen=True, slots=True)
class Alignment:
    """The matched pairs of one document: indices into ``gold`` and ``pred`` (canonical order)."""

    gold: tuple[Mention, ...]
    pred: tuple[Mention, ...]
    pairs: tuple[tuple[int, int], ...]

    def unmatched_gold(self) -> list[Mention]:
        matched = {i for i, _ in self.pairs}
        return [m for i, m in enumerate(self.gold) if i not in matched]

    def unmatched_pred(self) -> list[Mention]:
        matched = {j for _, j in self.pairs}
        return [m for j, m in enumerate(self.pred) if j not in matched]


def _closed_form_pairs(
    gold: Sequence[Mention], pred: Sequence[Mention], typed: bool
) -> list[tuple[int, int]]:
    """strict/exact: pair identical spans, same type first, then leftovers in canonical order."""
    gold_groups: dict[tuple[tuple[int, int], ...], list[int]] = defaultdict(list)
    pred_groups: dict[tuple[tuple[int, int], ...], list[int]] = defaultdict(list)
    for i, m in enumerate(gold):
        gold_groups[m.span.fragments].append(i)
    for j, m in enumerate(pred):
        pred_groups[m.span.fragments].append(j)
    pairs: list[tuple[int, int]] = []
    for fragments, gold_ids in gold_groups.items():
        pred_ids = pred_groups.get(fragments, [])
        free_gold: list[int] = []
        free_pred = list(pred_ids)
        for i in gold_ids:  # canonical order: by type
            partner = next((j for j in free_pred if pred[j].type == gold[i].type), None)
            if partner is None:
                free_gold.append(i)
            else:
                free_pred.remove(partner)
                pairs.append((i, partner))
        if not typed:
            pairs.extend(zip(free_gold, free_pred, strict=False))
    return sorted(pairs)


def align_mentions(
    gold: Iterable[Mention],
    pred: Iterable[Mention],
    kind: MatchKind,
    options: MatchOptions | None = None,
) -> Alignment:
    """Align one document's gold and predicted mentions (see the module doc for ``kind``)."""
    options = options or MatchOptions()
    gold_c = canonical(gold)
    pred_c = canonical(pred)
    if kind in ("strict", "exact"):
        return Alignment(
            gold_c, pred_c, tuple(_closed_form_pairs(gold_c, pred_c, kind == "strict"))
        )
    n = max(len(gold_c), len(pred_c)) + 1
    edges: list[tuple[int, int, float]] = []
    for i, g in enumerate(gold_c):
        for j, p in enumerate(pred_c):
            same_type = g.type == p.type
            if kind in ("overlap", "relaxed") and not same_type:
                continue
            if kind == "relaxed":
                tol = options.tolerance
                if abs(g.span.start - p.span.start) > tol or abs(g.span.end - p.span.end) > tol:
                    continue
                closeness = relaxed_closeness(g.span, p.span)
            else:
                closeness = overlap_fraction(g.span, p.span, options.overlap_basis)
                if closeness == 0.0 or closeness < options.min_overlap:
                    continue
            credit = pair_credit(kind, g.span.fragments == p.span.fragments, same_type)
            edges.append((i, j, pair_weight(credit, closeness, n)))
    return Alignment(gold_c, pred_c, tuple(max_weight_matching(edges)))


def whitespace_tokens(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of every maximal run of non-whitespace characters (``str.split``)."""
    return [m.span() for m in _TOKEN.finditer(text)]


def token_units(
    mentions: Iterable[Mention], text: str, tokens: Sequence[tuple[int, int]] | None = None
) -> set[tuple[int, int, str]]:
    """The typed tokens ``(start, end, type)`` the mentions touch.

    A token belongs to a mention when they share at least one character (a fragment that cuts a
    token in half claims the whole token; a zero-length fragment claims nothing); text beyond
    the end of the document is ignored.
    Several mentions of one type touching a token give one unit.
    """
    tokens = whitespace_tokens(text) if tokens is None else tokens
    starts = [s for s, _ in tokens]
    ends = [e for _, e in tokens]
    units: set[tuple[int, int, str]] = set()
    for mention in mentions:
        for start, end in mention.span.fragments:
            if start >= end:
                continue
            first = bisect.bisect_right(ends, start)
            last = bisect.bisect_left(starts, end)
            for k in range(first, last):
                units.add((starts[k], ends[k], mention.type))
    return units


# ---------------------------------------------------------------------------- the array path


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


def unique_counts(values: Array) -> tuple[Array, Array]:
    """Sorted distinct values and how often each occurs (a sort, faster than ``np.unique``'s
    hash path on large int64 arrays)."""
    ordered = np.sort(values, kind="stable")  # timsort: fast on the nearly sorted keys made here
    if ordered.shape[0] == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(first, ordered.shape[0]))
    return ordered[first], counts


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


@dataclass(frozen=True, slots=True)
class CandidatePairs:
    """Candidate pairs of the array path: row indices into gold and pred, and pair attributes."""

    gold: Array
    pred: Array
    same_bounds: Array
    same_type: Array

    def take(self, positions: Array) -> CandidatePairs:
        """The pairs at ``positions``."""
        return CandidatePairs(
            self.gold[positions],
            self.pred[positions],
            self.same_bounds[positions],
            self.same_type[positions],
        )


def _overlap_closeness(gs: Array, ge: Array, ps: Array, pe: Array, basis: OverlapBasis) -> Array:
    """:func:`overlap_fraction` of continuous spans, elementwise."""
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


def pair_closeness(
    pairs: CandidatePairs,
    kind: MatchKind,
    gold: SpanArrays,
    pred: SpanArrays,
    options: MatchOptions,
) -> Array:
    """The closeness of each pair: :func:`relaxed_closeness` in relaxed mode, else
    :func:`overlap_fraction` with ``options.overlap_basis``."""
    gs, ge = gold.start[pairs.gold], gold.end[pairs.gold]
    ps, pe = pred.start[pairs.pred], pred.end[pairs.pred]
    if kind == "relaxed":
        result: Array = 1 / (1 + np.abs(gs - ps) + np.abs(ge - pe))
        return result
    return _overlap_closeness(gs, ge, ps, pe, options.overlap_basis)


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
    """:func:`pair_weight` of every candidate pair, given its closeness and its document's
    ``n = max(#gold, #predicted) + 1`` (as the mention path)."""
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
    canonical order), with the weights of :func:`pair_weight`."""
    if ambiguous.shape[0] == 0:
        return ambiguous
    subset = pairs.take(ambiguous)
    docs = gold.doc[subset.gold]
    # n = max(#gold, #predicted) + 1 of each pair's document, counted in the sorted doc columns
    gold_rows = np.searchsorted(gold.doc, docs, "right") - np.searchsorted(gold.doc, docs, "left")
    pred_rows = np.searchsorted(pred.doc, docs, "right") - np.searchsorted(pred.doc, docs, "left")
    n = np.maximum(gold_rows, pred_rows) + 1
    closeness = pair_closeness(
        subset, "relaxed" if kind == "relaxed" else "overlap", gold, pred, options
    )
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


def _joined_space(texts: Sequence[str]) -> tuple[Array, Array]:
    """Whether each character of the texts joined by ``"\\n"`` is whitespace, and the offsets.

    ``offsets[d]`` is where text ``d`` begins in the joined text; ``offsets[-1]`` is the joined
    length + 1.  Whitespace is what ``str.isspace`` says (:data:`WHITESPACE_CODEPOINTS`).
    """
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    if texts:
        offsets[1:] = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
        offsets[1:] += np.arange(1, len(texts) + 1, dtype=np.int64)
    joined = "\n".join(texts)
    if joined.isascii():  # one byte per character; ASCII whitespace is 9-13 and 28-32
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        low = codes <= 32
        space: Array = low & ((codes >= 28) | ((codes >= 9) & (codes <= 13)))
        return space, offsets
    table = np.zeros(0x3002, dtype=bool)
    table[list(WHITESPACE_CODEPOINTS)] = True
    wide = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    return table[np.minimum(wide, 0x3001)], offsets


def token_spans(texts: Sequence[str]) -> tuple[Array, Array, Array]:
    """Whitespace tokens of many texts, as if joined by one separator: (starts, ends, offsets).

    ``offsets[d]`` is where text ``d`` begins in the joined text; token bounds are in joined
    coordinates.  Whitespace is what ``str.isspace`` says (:data:`WHITESPACE_CODEPOINTS`).
    """
    space, offsets = _joined_space(texts)
    padded = np.concatenate(([True], space, [True]))
    change = np.flatnonzero(padded[1:] != padded[:-1])
    starts = change[0::2].astype(np.int64)
    ends = change[1::2].astype(np.int64)
    return starts, ends, offsets


@dataclass(frozen=True, slots=True)
class TokenIndex:
    """The whitespace tokens of many texts joined by ``"\\n"``, indexed by character.

    ``started[p]`` is the number of tokens that start at or before joined position ``p`` and
    ``inside[p]`` whether ``p`` is part of a token; whitespace positions are added at the end
    so that ``offsets[-1]`` (one past the final separator) is a valid position.
    Tokens are numbered in joined order, so the tokens of document ``d`` are the numbers from
    ``first_token[d]`` to ``first_token[d + 1] - 1``.
    """

    offsets: Array
    started: Array
    inside: Array
    first_token: Array

    @classmethod
    def of(cls, texts: Sequence[str]) -> TokenIndex:
        space, offsets = _joined_space(texts)
        inside = np.zeros(space.shape[0] + 2, dtype=np.int8)
        np.logical_not(space, out=inside[: space.shape[0]], casting="unsafe")
        begins = np.empty_like(inside)
        begins[0] = inside[0]
        np.greater(inside[1:], inside[:-1], out=begins[1:], casting="unsafe")
        wide = np.int32 if inside.shape[0] < 2**31 else np.int64
        started = np.cumsum(begins, dtype=wide)
        first_token = (started[offsets] - inside[offsets]).astype(np.int64)
        return cls(offsets, started, inside, first_token)

    def touched(self, rows: SpanArrays) -> tuple[Array, Array]:
        """``[first, last)``: the numbers of the tokens each row shares a character with.

        A row's offsets are clipped to its document's text; an empty row touches nothing.
        """
        limit = self.offsets[rows.doc + 1] - 1  # the separator after the document's text
        base = self.offsets[rows.doc]
        low = np.minimum(base + rows.start, limit)
        high = np.minimum(base + rows.end, limit)
        # tokens ending at or before ``low`` / starting before ``high``
        first = self.started[low] - self.inside[low]
        last = np.where(high > low, self.started[np.maximum(high - 1, 0)], first)
        return first.astype(np.int64), last.astype(np.int64)

    def document_of(self, tokens: Array) -> Array:
        """The document of each token number of a **sorted** array."""
        bounds = np.searchsorted(tokens, self.first_token[:-1], side="left")
        sizes = np.diff(bounds, append=tokens.shape[0])
        result: Array = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
        return result


# ----------------------------------------------------------------------- dense clusters

DENSE_DOC_PAIRS = 50_000
"""A document whose gold spans have more raw candidate windows than this (thousands of spans
overlapping each other) has its clusters examined (:func:`dense_clusters`)."""

DENSE_CELLS = 10_000
"""A cluster with more gold x predicted rows than this is counted by the dense-cluster methods
(:func:`greedy_overlap_matching`, :func:`key_flows`), never by enumerating its pairs one by one
into an assignment matrix."""

MAX_KEY_PAIRS = 5_000_000
"""Candidate pairs of *distinct* spans a dense cluster may enumerate (for the modes that have
no closed form there); beyond, an input error says which document (time and memory bound)."""


def window_sizes(
    gold: SpanArrays,
    pred: SpanArrays,
    kind: Literal["overlap", "relaxed", "semeval"],
    options: MatchOptions,
) -> Array:
    """How many predicted rows fall in each gold row's candidate window
    (:func:`candidate_windows`, before :func:`candidate_pairs`' filters): an upper bound of its
    candidates, found without making a pair."""
    low, high = candidate_windows(gold, pred, kind, options)
    sizes: Array = high - low
    return sizes


def dense_clusters(
    gold: SpanArrays,
    pred: SpanArrays,
    kind: Literal["overlap", "relaxed", "semeval"],
    options: MatchOptions,
) -> list[tuple[Array, Array]]:
    """The dense clusters of the corpus: ``(gold rows, predicted rows)`` of each.

    A cluster is a maximal run of spans of one document (both sides) whose intervals, widened
    by the tolerance in relaxed mode, overlap or touch one another: every candidate pair lies
    inside one cluster.  Only documents with more than :data:`DENSE_DOC_PAIRS` raw candidates
    are examined, and only clusters with more than :data:`DENSE_CELLS` gold x predicted rows
    are returned; the rest is left to the ordinary path.
    """
    if len(gold) == 0 or len(pred) == 0:
        return []
    sizes = window_sizes(gold, pred, kind, options)
    per_doc = np.bincount(gold.doc, weights=sizes, minlength=int(gold.doc.max()) + 1)
    heavy = np.flatnonzero(per_doc > DENSE_DOC_PAIRS)
    reach = options.tolerance if kind == "relaxed" else 0
    out: list[tuple[Array, Array]] = []
    for d in heavy.tolist():
        g_rows = np.flatnonzero(gold.doc == d)
        p_rows = np.flatnonzero(pred.doc == d)
        if g_rows.shape[0] == 0 or p_rows.shape[0] == 0:
            continue
        starts = np.concatenate((gold.start[g_rows], pred.start[p_rows])) - reach
        ends = np.concatenate((gold.end[g_rows], pred.end[p_rows])) + reach
        order = np.argsort(starts, kind="stable")
        reach_end = np.maximum.accumulate(ends[order])
        new = np.concatenate(([True], starts[order][1:] > reach_end[:-1]))
        label = np.empty(order.shape[0], dtype=np.int64)
        label[order] = np.cumsum(new) - 1
        g_label, p_label = label[: g_rows.shape[0]], label[g_rows.shape[0] :]
        n_labels = int(label.max()) + 1
        g_count = np.bincount(g_label, minlength=n_labels)
        p_count = np.bincount(p_label, minlength=n_labels)
        for c in np.flatnonzero(g_count * p_count > DENSE_CELLS).tolist():
            out.append((g_rows[g_label == c], p_rows[p_label == c]))
    return out


def greedy_overlap_matching(
    gold_start: Sequence[int],
    gold_end: Sequence[int],
    pred_start: Sequence[int],
    pred_end: Sequence[int],
) -> list[tuple[int, int]]:
    """A maximum-cardinality matching of intervals that share at least one character
    (``start < other end`` both ways; no zero-length interval), as index pairs.

    Golds are taken by increasing end, each paired with the free overlapping prediction that
    ends first.  This is optimal (exchange argument: a later gold overlapping that prediction
    also overlaps any other free prediction overlapping the current gold, because those end
    later and start before the current gold's end), and takes O(n log n) plus list moves,
    without ever listing the pairs.
    """
    gold_order = sorted(range(len(gold_end)), key=gold_end.__getitem__)
    pred_order = sorted(range(len(pred_start)), key=pred_start.__getitem__)
    open_ends: list[tuple[int, int]] = []  # (end, pred index) of predictions started so far
    pairs = []
    next_pred = 0
    for g in gold_order:
        g_start, g_end = gold_start[g], gold_end[g]
        while next_pred < len(pred_order) and pred_start[pred_order[next_pred]] < g_end:
            p = pred_order[next_pred]
            bisect.insort(open_ends, (pred_end[p], p))
            next_pred += 1
        at = bisect.bisect_right(open_ends, (g_start, len(pred_end)))
        if at < len(open_ends):
            pairs.append((g, open_ends.pop(at)[1]))
    return pairs


def key_flows(
    gold_mult: Array, pred_mult: Array, key_gold: Array, key_pred: Array
) -> tuple[Array, Array]:
    """A maximum b-matching of distinct spans: ``gold_mult[i]`` copies of gold key ``i``,
    ``pred_mult[j]`` of predicted key ``j``, any copy of ``key_gold[k]`` matchable to any copy
    of ``key_pred[k]``.  Returns how many copies of each gold key and each predicted key are
    matched (a maximum flow, ``scipy.sparse.csgraph.maximum_flow``; identical spans count as
    one node however many times they repeat)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    n_gold, n_pred = gold_mult.shape[0], pred_mult.shape[0]
    source, sink = n_gold + n_pred, n_gold + n_pred + 1
    big = int(min(gold_mult.sum(), pred_mult.sum())) + 1
    rows = np.concatenate((np.full(n_gold, source), key_gold, n_gold + np.arange(n_pred))).astype(
        np.int32
    )
    cols = np.concatenate((np.arange(n_gold), n_gold + key_pred, np.full(n_pred, sink))).astype(
        np.int32
    )
    capacity = np.concatenate((gold_mult, np.full(key_gold.shape[0], big), pred_mult)).astype(
        np.int32
    )
    graph = csr_matrix((capacity, (rows, cols)), shape=(sink + 1, sink + 1))
    flow = maximum_flow(graph, source, sink).flow.tocsr()
    gold_used = np.asarray(flow[source, :n_gold].todense()).ravel()
    pred_used = np.asarray(flow[n_gold : n_gold + n_pred, sink].todense()).ravel()
    return gold_used.astype(np.int64), pred_used.astype(np.int64)
