"""Counts of generic span scoring for a whole corpus at once, as arrays: the array path.

The ``*_table`` functions score a corpus of :class:`~annoscore.align.span_arrays.SpanArrays`
(gold and predicted mentions of many documents as columns) into a ``(documents, types,
statistics)`` integer array (:class:`CountTable`), with the keys, the attribution to types and
the formulas of :mod:`annoscore.metrics.spans`.  ``tests/equivalence/test_spans.py`` holds them
to the plain reference of ``tests/oracles/spans.py`` on random corpora.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

import numpy as np

from annoscore.align.assignment import sparse_max_weight_partners
from annoscore.align.span_arrays import (
    Array,
    CandidatePairs,
    SpanArrays,
    candidate_pairs,
    expand_ranges,
    isolated_pairs,
    match_ambiguous,
    maximum_cardinality,
)
from annoscore.align.span_dense import (
    MAX_KEY_PAIRS,
    dense_clusters,
    greedy_overlap_matching,
    key_flows,
    window_sizes,
)
from annoscore.align.span_modes import SCHEMES, MatchKind, MatchOptions
from annoscore.align.span_tokens import TokenIndex
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.spans import SEMEVAL_NAMES, counts_by_type, type_key
from annoscore.records import Record, set_fields
from annoscore.result import CountMatrix


class CountTable(Record):
    """Per-document, per-type counts: ``values[d, t, k]`` is statistic ``names[k]``."""

    __slots__ = ("names", "types", "values")
    names: tuple[str, ...]
    types: tuple[str, ...]
    values: Array

    def __init__(self, names: tuple[str, ...], types: tuple[str, ...], values: Array) -> None:
        set_fields(self, names=names, types=types, values=values)

    def document(self, d: int) -> Counts:
        """Document ``d``'s counts, with the same keys as :func:`mode_counts` gives."""
        cells = self.values[d]
        per_type = {
            self.types[t]: dict(zip(self.names, cells[t].tolist(), strict=True))
            for t in np.flatnonzero(cells.any(axis=1)).tolist()
        }
        return counts_by_type(per_type, self.names)

    def corpus(self) -> Counts:
        """The overall counts of the whole corpus (no per-type keys)."""
        totals = self.values.sum(axis=(0, 1)).tolist()
        return Counts(dict(zip(self.names, totals, strict=True)))

    def by_document(self) -> Array:
        """``(documents, statistics)``: each document's overall counts."""
        result: Array = self.values.sum(axis=1)
        return result

    def matrix(self, doc_ids: Sequence[str]) -> CountMatrix:
        """The documents x statistics matrix: the overall columns, then ``type:NAME:stat``
        columns for every type that has a count."""
        columns: dict[str, Array] = dict(zip(self.names, self.by_document().T, strict=True))
        seen = self.values.any(axis=(0, 2))
        for t in np.flatnonzero(seen).tolist():
            for k, name in enumerate(self.names):
                columns[type_key(self.types[t], name)] = self.values[:, t, k]
        return CountMatrix.from_columns(doc_ids, columns, integer=columns)


def _bincount(cells: Array, size: int, weights: Array | None = None) -> Array:
    counted = np.bincount(cells, weights=weights, minlength=size)
    result: Array = np.rint(counted).astype(np.int64) if weights is not None else counted
    return result


def keys_fit(n_docs: int, max_end: int, n_types: int) -> bool:
    """Whether the packed (document, start, length, type) keys of the array path fit in 62 bits
    (so that a key doubled plus a side bit still fits in int64)."""
    return n_docs * (max_end + 1) * (max_end + 1) * max(n_types, 1) < 2**62


def merged_runs(gold_keys: Array, pred_keys: Array) -> tuple[Array, Array, Array]:
    """The distinct keys of two sorted int64 arrays (keys < 2**62) and how often each side has
    each: ``(keys, gold_n, pred_n)``.

    The keys are doubled with a side bit and sorted: two sorted runs, which timsort merges in
    linear time.
    """
    both = np.concatenate((gold_keys * 2, pred_keys * 2 + 1))
    both.sort(kind="stable")
    keys = both >> 1
    if keys.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    pred_seen = np.concatenate(([0], np.cumsum(both & 1)))
    ends = np.append(first[1:], keys.shape[0])
    pred_n = pred_seen[ends] - pred_seen[first]
    return keys[first], ends - first - pred_n, pred_n


def exact_table(
    gold: SpanArrays, pred: SpanArrays, n_docs: int, n_types: int, *, typed: bool
) -> Array:
    """tp/fp/fn of ``strict`` (``typed``) or ``exact`` mode, in closed form (no matching).

    Rows are packed into one int64 key per (document, start, length, type), already in sorted
    order.  For each distinct key with ``G`` gold and ``P`` predicted rows, ``min(G, P)``
    same-type pairs are made.  In exact mode the leftovers of a span (all keys that differ only
    in type) are then paired too, ``min(sum of gold leftovers, sum of predicted leftovers)``
    of them, taken from the leftovers in type order on each side; a pair counts under its gold
    type.
    """
    scale = int(max(gold.end.max(initial=0), pred.end.max(initial=0))) + 1
    t = max(n_types, 1)

    def packed(rows: SpanArrays) -> Array:
        key: Array = ((rows.doc * scale + rows.start) * scale + (rows.end - rows.start)) * t
        return key + rows.type

    keys, gold_n, pred_n = merged_runs(packed(gold), packed(pred))
    gold_used = pred_used = np.minimum(gold_n, pred_n)
    if not typed and keys.shape[0]:
        gold_left, pred_left = gold_n - gold_used, pred_n - pred_used
        span = keys // t
        span_first = np.flatnonzero(np.concatenate(([True], span[1:] != span[:-1])))
        span_of = np.cumsum(np.concatenate(([0], (span[1:] != span[:-1]).astype(np.int64))))
        budget = np.minimum(
            np.add.reduceat(gold_left, span_first), np.add.reduceat(pred_left, span_first)
        )[span_of]
        first_of = span_first[span_of]

        def fill(left: Array) -> Array:
            """Hand the span's budget out to its keys in type order, each at most ``left``."""
            before = np.cumsum(left) - left
            result: Array = np.clip(budget - (before - before[first_of]), 0, left)
            return result

        gold_used = gold_used + fill(gold_left)
        pred_used = pred_used + fill(pred_left)
    size = n_docs * t
    cells = (keys // (t * scale * scale)) * t + keys % t
    tp = _bincount(cells, size, gold_used.astype(np.float64))
    fn = _bincount(cells, size, (gold_n - gold_used).astype(np.float64))
    fp = _bincount(cells, size, (pred_n - pred_used).astype(np.float64))
    return np.stack((tp, fp, fn), axis=1).reshape(n_docs, t, 3)


def _cells(rows: SpanArrays, n_types: int) -> Array:
    cells: Array = rows.doc * max(n_types, 1) + rows.type
    return cells


CARDINALITY_THRESHOLD = 20_000
"""Ambiguous candidate pairs above which overlap and relaxed mode count with Hopcroft-Karp
(importing scipy costs ~0.3 s; the pure-Python assignment ~5 microseconds a pair)."""


def matched_table(
    gold: SpanArrays,
    pred: SpanArrays,
    mode: Literal["overlap", "relaxed"],
    options: MatchOptions,
    n_docs: int,
    n_types: int,
) -> Array:
    """tp/fp/fn of ``overlap`` or ``relaxed`` mode: candidate pairs, then the optimal matching.

    Candidates join mentions of one type in one document, so a connected group of them belongs
    to one count cell, and every optimal matching (most pairs first) has the same number of
    pairs in each group: the counts are those of *any* maximum-cardinality matching.  With more
    than :data:`CARDINALITY_THRESHOLD` ambiguous pairs one is found by Hopcroft-Karp in scipy
    (``maximum_cardinality``), not by the exact closeness-ordered assignment.
    """
    size = n_docs * max(n_types, 1)
    gold_cells, pred_cells = _cells(gold, n_types), _cells(pred, n_types)
    tp = np.zeros(size, dtype=np.int64)
    matched_pred = np.zeros(size, dtype=np.int64)
    ordinary_gold, ordinary_pred = gold, pred
    dense = dense_clusters(gold, pred, mode, options)
    if dense:
        keep_gold = np.ones(len(gold), dtype=bool)
        keep_pred = np.ones(len(pred), dtype=bool)
        for g_rows, p_rows in dense:
            keep_gold[g_rows] = keep_pred[p_rows] = False
            g_match, p_match = dense_matched(gold, pred, mode, options, g_rows, p_rows)
            tp += _bincount(gold_cells[g_rows], size, g_match.astype(np.float64))
            matched_pred += _bincount(pred_cells[p_rows], size, p_match.astype(np.float64))
        ordinary_gold, ordinary_pred = gold.take(keep_gold), pred.take(keep_pred)
    pairs = candidate_pairs(ordinary_gold, ordinary_pred, mode, options)
    isolated = isolated_pairs(pairs, len(ordinary_gold), len(ordinary_pred))
    ambiguous = np.flatnonzero(~isolated)
    if ambiguous.shape[0] > CARDINALITY_THRESHOLD:
        extra = maximum_cardinality(pairs, ambiguous)
    else:
        extra = match_ambiguous(pairs, ambiguous, mode, ordinary_gold, ordinary_pred, options)
    chosen = np.concatenate((np.flatnonzero(isolated), extra))
    ordinary_gold_cells = _cells(ordinary_gold, n_types)
    ordinary_pred_cells = _cells(ordinary_pred, n_types)
    tp += _bincount(ordinary_gold_cells[pairs.gold[chosen]], size)
    matched_pred += _bincount(ordinary_pred_cells[pairs.pred[chosen]], size)
    fn = _bincount(gold_cells, size) - tp
    fp = _bincount(pred_cells, size) - matched_pred
    return np.stack((tp, fp, fn), axis=1).reshape(n_docs, max(n_types, 1), 3)


# ------------------------------------------------------------------ dense clusters (issue 15)


def _sub(rows: SpanArrays, index: Array) -> SpanArrays:
    """The rows at the (ascending) positions ``index``, still sorted."""
    return SpanArrays(rows.doc[index], rows.start[index], rows.end[index], rows.type[index])


def _enumerated(
    gold: SpanArrays,
    pred: SpanArrays,
    g_rows: Array,
    p_rows: Array,
    kind: Any,
    options: MatchOptions,
) -> CandidatePairs:
    """The candidate pairs of one dense cluster (row positions of the whole arrays), within the
    :data:`~annoscore.align.span_dense.MAX_KEY_PAIRS` bound."""
    g_sub, p_sub = _sub(gold, g_rows), _sub(pred, p_rows)
    bound = int(window_sizes(g_sub, p_sub, kind, options).sum())
    if bound > MAX_KEY_PAIRS:
        raise InputError(
            f"a document has {g_rows.shape[0]} gold and {p_rows.shape[0]} predicted spans "
            f"overlapping each other ({bound} candidate pairs): more than an exact matching in "
            f"this mode handles ({MAX_KEY_PAIRS}); --mode overlap and strict count any density"
        )
    pairs = candidate_pairs(g_sub, p_sub, kind, options)
    return CandidatePairs(
        g_rows[pairs.gold], p_rows[pairs.pred], pairs.same_bounds, pairs.same_type
    )


def _key_matching(
    gold: SpanArrays,
    pred: SpanArrays,
    g_rows: Array,
    p_rows: Array,
    kind: Any,
    options: MatchOptions,
) -> tuple[Array, Array]:
    """How many rows of each gold row and predicted row a maximum-cardinality matching uses
    (0 or 1 each), found on the *distinct* spans of the cluster (identical spans are one node
    with a multiplicity: :func:`~annoscore.align.span_dense.key_flows`)."""

    def distinct(rows: SpanArrays, index: Array) -> tuple[Array, Array, Array]:
        key = np.stack((rows.start[index], rows.end[index], rows.type[index]), axis=1)
        _, first, inverse, mult = np.unique(
            key, axis=0, return_index=True, return_inverse=True, return_counts=True
        )
        return index[first], inverse.ravel(), mult

    g_first, g_inverse, g_mult = distinct(gold, g_rows)
    p_first, p_inverse, p_mult = distinct(pred, p_rows)
    order_g, order_p = np.argsort(g_first), np.argsort(p_first)
    pairs = _enumerated(gold, pred, g_first[order_g], p_first[order_p], kind, options)
    g_key = np.searchsorted(g_first[order_g], pairs.gold)
    p_key = np.searchsorted(p_first[order_p], pairs.pred)
    g_used, p_used = key_flows(g_mult[order_g], p_mult[order_p], g_key, p_key)
    # hand each key's matched count to its rows in row order
    g_take = np.zeros(g_rows.shape[0], dtype=np.int64)
    p_take = np.zeros(p_rows.shape[0], dtype=np.int64)
    for take, inverse, used, order in (
        (g_take, g_inverse, g_used, order_g),
        (p_take, p_inverse, p_used, order_p),
    ):
        rank_of_key = np.empty_like(order)
        rank_of_key[order] = np.arange(order.shape[0])
        key_of_row = rank_of_key[inverse]
        seen = np.zeros(order.shape[0], dtype=np.int64)
        for r, k in enumerate(key_of_row.tolist()):
            if seen[k] < used[k]:
                take[r] = 1
                seen[k] += 1
    return g_take, p_take


def _no_empty(gold: SpanArrays, pred: SpanArrays, g_rows: Array, p_rows: Array) -> bool:
    return bool(
        (gold.end[g_rows] > gold.start[g_rows]).all()
        and (pred.end[p_rows] > pred.start[p_rows]).all()
    )


def dense_matched(
    gold: SpanArrays,
    pred: SpanArrays,
    mode: Literal["overlap", "relaxed"],
    options: MatchOptions,
    g_rows: Array,
    p_rows: Array,
) -> tuple[Array, Array]:
    """Matched flags (0/1) of the gold rows ``g_rows`` and predicted rows ``p_rows`` of one
    dense cluster, by a maximum-cardinality matching per type (the tp/fp/fn counts of overlap
    and relaxed mode depend on nothing else, see :func:`matched_table`).

    Overlap mode without ``min_overlap`` (and no zero-length span) uses
    :func:`~annoscore.align.span_dense.greedy_overlap_matching`, whatever the density; otherwise the
    distinct spans' candidate pairs go to a maximum flow."""
    g_match = np.zeros(g_rows.shape[0], dtype=np.int64)
    p_match = np.zeros(p_rows.shape[0], dtype=np.int64)
    greedy = (
        mode == "overlap" and options.min_overlap == 0 and _no_empty(gold, pred, g_rows, p_rows)
    )
    for t in np.intersect1d(gold.type[g_rows], pred.type[p_rows]).tolist():
        g_at = np.flatnonzero(gold.type[g_rows] == t)
        p_at = np.flatnonzero(pred.type[p_rows] == t)
        g_idx, p_idx = g_rows[g_at], p_rows[p_at]
        if greedy:
            for i, j in greedy_overlap_matching(
                gold.start[g_idx].tolist(),
                gold.end[g_idx].tolist(),
                pred.start[p_idx].tolist(),
                pred.end[p_idx].tolist(),
            ):
                g_match[g_at[i]] = 1
                p_match[p_at[j]] = 1
        else:
            g_take, p_take = _key_matching(gold, pred, g_idx, p_idx, mode, options)
            g_match[g_at] = g_take
            p_match[p_at] = p_take
    return g_match, p_match


def _lexicographic_pairs(pairs: CandidatePairs, credit: Array) -> Array:
    """Positions in ``pairs`` of a matching with the most credit, then the most pairs (exact;
    ties between such matchings broken by the solver), by
    :func:`~annoscore.align.assignment.sparse_max_weight_partners` (a pair's weight is its
    credit scaled above any number of pairs, plus 1)."""
    if pairs.gold.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    rows, row_of = np.unique(pairs.gold, return_inverse=True)
    cols, col_of = np.unique(pairs.pred, return_inverse=True)
    n_rows, n_cols = rows.shape[0], cols.shape[0]
    scale = min(n_rows, n_cols) + 1
    weight = scale * credit.astype(np.float64) + 1.0
    partner = sparse_max_weight_partners(row_of, col_of, weight, n_rows, n_cols)
    real = np.flatnonzero(partner < n_cols)
    keys = row_of * n_cols + col_of
    order = np.argsort(keys, kind="stable")
    found = np.searchsorted(keys[order], real * n_cols + partner[real])
    result: Array = order[found]
    return result


def _closed_form(
    g_keys: Sequence[tuple[int, ...]], p_keys: Sequence[tuple[int, ...]]
) -> list[tuple[int, int]]:
    """Pairs of a complete bipartite cluster: rows with equal keys first, then the leftovers
    of each side in row order."""
    by_key: dict[tuple[int, ...], list[int]] = {}
    for j, key in enumerate(p_keys):
        by_key.setdefault(key, []).append(j)
    pairs, free_gold = [], []
    used = [False] * len(p_keys)
    for i, key in enumerate(g_keys):
        partners = by_key.get(key)
        if partners:
            j = partners.pop(0)
            used[j] = True
            pairs.append((i, j))
        else:
            free_gold.append(i)
    free_pred = [j for j in range(len(p_keys)) if not used[j]]
    pairs.extend(zip(free_gold, free_pred, strict=False))
    return pairs


def dense_semeval_pairs(
    gold: SpanArrays, pred: SpanArrays, options: MatchOptions, g_rows: Array, p_rows: Array
) -> dict[str, tuple[Array, Array]]:
    """Each SemEval scheme's matched (gold rows, predicted rows) in one dense cluster.

    The matching maximises credit, then the number of pairs, exactly, as the ordinary path
    does; closeness, which only breaks ties between such matchings, is not used here (ties go
    to row order or to the solver), so in a dense cluster the per-type split of INC, PAR and MIS
    may differ from the closeness rule while every corpus count is the same.

    - Every gold span overlapping every prediction (spans that share a point, the
      "mutually overlapping" case, ``min_overlap`` 0): closed form.  Strict and exact pair
      identical spans (and types), type pairs the same types, partial identical spans first;
      then the leftovers pair in row order.
    - Otherwise strict and exact pair identical spans first, then the leftovers by
      :func:`~annoscore.align.span_dense.greedy_overlap_matching`; type and partial (and anything
      with ``min_overlap``) by :func:`_lexicographic_pairs` on the enumerated pairs.
    """
    gs, ge, gt = (a[g_rows].tolist() for a in (gold.start, gold.end, gold.type))
    ps, pe, pt = (a[p_rows].tolist() for a in (pred.start, pred.end, pred.type))
    plain = options.min_overlap == 0 and _no_empty(gold, pred, g_rows, p_rows)
    complete = plain and max(max(gs), max(ps)) < min(min(ge), min(pe))
    Keys = list[tuple[int, ...]]
    bounds: tuple[Keys, Keys] = (list(zip(gs, ge, strict=True)), list(zip(ps, pe, strict=True)))
    keys: dict[str, tuple[Keys, Keys]] = {
        "strict": (list(zip(gs, ge, gt, strict=True)), list(zip(ps, pe, pt, strict=True))),
        "exact": bounds,
        "type": ([(k,) for k in gt], [(k,) for k in pt]),
        "partial": bounds,
    }
    out: dict[str, tuple[Array, Array]] = {}
    enumerated: CandidatePairs | None = None
    for scheme in SCHEMES:
        g_keys, p_keys = keys[scheme]
        if complete:
            chosen = _closed_form(g_keys, p_keys)
        elif plain and scheme in ("strict", "exact"):
            exact_pairs = [
                (i, j) for i, j in _closed_form(g_keys, p_keys) if g_keys[i] == p_keys[j]
            ]
            used_g = {i for i, _ in exact_pairs}
            used_p = {j for _, j in exact_pairs}
            left_g = [i for i in range(len(gs)) if i not in used_g]
            left_p = [j for j in range(len(ps)) if j not in used_p]
            more = greedy_overlap_matching(
                [gs[i] for i in left_g],
                [ge[i] for i in left_g],
                [ps[j] for j in left_p],
                [pe[j] for j in left_p],
            )
            chosen = exact_pairs + [(left_g[a], left_p[b]) for a, b in more]
        else:
            if enumerated is None:
                enumerated = _enumerated(gold, pred, g_rows, p_rows, "semeval", options)
            credit = np.asarray(_SCHEME_CREDIT[scheme])[
                2 * enumerated.same_bounds.astype(np.int64) + enumerated.same_type
            ]
            at = _lexicographic_pairs(enumerated, credit)
            out[scheme] = (enumerated.gold[at], enumerated.pred[at])
            continue
        index = np.asarray(chosen, dtype=np.int64).reshape(-1, 2)
        out[scheme] = (g_rows[index[:, 0]], p_rows[index[:, 1]])
    return out


_OUTCOMES = 4
"""Pair outcomes: ``2 * same_bounds + same_type`` (0 neither, 1 type, 2 bounds, 3 both)."""

_SCHEME_CREDIT: dict[str, tuple[int, int, int, int]] = {
    # credit in half points (0 INC, 1 PAR, 2 COR) of each outcome, as pair_credit gives it
    "strict": (0, 0, 0, 2),
    "exact": (0, 0, 2, 2),
    "partial": (1, 1, 2, 2),
    "type": (0, 2, 0, 2),
}


def semeval_table(
    gold: SpanArrays, pred: SpanArrays, options: MatchOptions, n_docs: int, n_types: int
) -> Array:
    """The SemEval tallies (:data:`SEMEVAL_NAMES` order) of the corpus, one matching per scheme.

    The candidate pairs are found once.  A pair whose rows have no other candidate is matched
    in every scheme; its outcome (same bounds? same type?) is counted once per cell, and each
    scheme reads its COR/INC/PAR from those outcome counts.  Only the ambiguous pairs are
    matched again for each scheme.
    """
    t = max(n_types, 1)
    size = n_docs * t
    gold_cells, pred_cells = _cells(gold, n_types), _cells(pred, n_types)
    gold_total, pred_total = _bincount(gold_cells, size), _bincount(pred_cells, size)

    def pair_tallies(g_rows: Array, p_rows: Array) -> tuple[Array, Array]:
        """(cells x outcomes) counts of matched rows under the gold cell, and matched pred
        rows per cell (rows of the whole arrays)."""
        same_bounds = (gold.start[g_rows] == pred.start[p_rows]) & (
            gold.end[g_rows] == pred.end[p_rows]
        )
        outcome = 2 * same_bounds.astype(np.int64) + (gold.type[g_rows] == pred.type[p_rows])
        by_outcome = _bincount(gold_cells[g_rows] * _OUTCOMES + outcome, size * _OUTCOMES).reshape(
            size, _OUTCOMES
        )
        return by_outcome, _bincount(pred_cells[p_rows], size)

    no_pairs = (np.zeros((size, _OUTCOMES), dtype=np.int64), np.zeros(size, dtype=np.int64))
    dense_extra: dict[str, tuple[Array, Array]] = dict.fromkeys(SCHEMES, no_pairs)
    ordinary_gold, ordinary_pred = gold, pred
    gold_index = np.arange(len(gold), dtype=np.int64)
    pred_index = np.arange(len(pred), dtype=np.int64)
    dense = dense_clusters(gold, pred, "semeval", options)
    if dense:
        keep_gold = np.ones(len(gold), dtype=bool)
        keep_pred = np.ones(len(pred), dtype=bool)
        for g_rows, p_rows in dense:
            keep_gold[g_rows] = keep_pred[p_rows] = False
            for scheme, (g_pairs, p_pairs) in dense_semeval_pairs(
                gold, pred, options, g_rows, p_rows
            ).items():
                by_outcome_d, pred_d = pair_tallies(g_pairs, p_pairs)
                before = dense_extra[scheme]
                dense_extra[scheme] = (before[0] + by_outcome_d, before[1] + pred_d)
        ordinary_gold, ordinary_pred = gold.take(keep_gold), pred.take(keep_pred)
        gold_index, pred_index = gold_index[keep_gold], pred_index[keep_pred]
    pairs = candidate_pairs(ordinary_gold, ordinary_pred, "semeval", options)
    isolated = isolated_pairs(pairs, len(ordinary_gold), len(ordinary_pred))
    ambiguous = np.flatnonzero(~isolated)

    def tallies(positions: Array) -> tuple[Array, Array]:
        return pair_tallies(gold_index[pairs.gold[positions]], pred_index[pairs.pred[positions]])

    common, common_pred = tallies(np.flatnonzero(isolated))
    columns: list[Array] = []
    for scheme in SCHEMES:
        kind = cast(MatchKind, f"semeval_{scheme}")
        chosen = match_ambiguous(pairs, ambiguous, kind, ordinary_gold, ordinary_pred, options)
        extra, extra_pred = tallies(chosen)
        extra = extra + dense_extra[scheme][0]
        extra_pred = extra_pred + dense_extra[scheme][1]
        by_outcome = common + extra
        credit = np.asarray(_SCHEME_CREDIT[scheme])
        cor = by_outcome[:, credit == 2].sum(axis=1)
        par = by_outcome[:, credit == 1].sum(axis=1)
        inc = by_outcome[:, credit == 0].sum(axis=1)
        mis = gold_total - by_outcome.sum(axis=1)
        spu = pred_total - common_pred - extra_pred
        columns.extend((cor, inc, par, mis, spu))
    return np.stack(columns, axis=1).reshape(n_docs, t, len(SEMEVAL_NAMES))


TOKEN_CHUNK_CHARS = 1 << 19
"""Token mode works on runs of whole documents of about this many characters at a time, so that
its per-character arrays stay in the processor cache (and memory is reused, not faulted in)."""


TOKEN_UNION_FACTOR = 2
"""Token mode merges the token ranges of each type (their union) before listing the units
when listing them one by one would make more than this many units per token and row: spans
that overlap each other many times over would otherwise cost their number times their
length."""


def _union_ranges(first: Array, last: Array, types: Array) -> tuple[Array, Array, Array]:
    """The union of the token ranges ``[first, last)`` of each type, as disjoint ranges
    ``(first, last, type)``: every (token, type) of the input once."""
    keep = last > first
    first, last, types = first[keep], last[keep], types[keep]
    if first.shape[0] == 0:
        return first, last, types
    span = int(last.max()) + 1
    low, high = types * span + first, types * span + last  # one line per type
    order = np.argsort(low, kind="stable")
    low, reach = low[order], np.maximum.accumulate(high[order])
    new = np.ones(low.shape[0], dtype=bool)
    new[1:] = low[1:] > reach[:-1]  # a gap before it: a new range (touching ranges merge)
    ends = reach[np.append(np.flatnonzero(new)[1:] - 1, low.shape[0] - 1)]
    starts = low[new]
    merged_types = starts // span
    return starts - merged_types * span, ends - merged_types * span, merged_types


def _token_chunk(gold: SpanArrays, pred: SpanArrays, texts: Sequence[str], n_types: int) -> Array:
    """tp/fp/fn of token mode for ``texts`` (rows' ``doc`` index ``texts``)."""
    index = TokenIndex.of(texts)
    t = max(n_types, 1)
    n_docs = len(texts)
    n_tokens = int(index.first_token[-1])

    def units(rows: SpanArrays, side: int) -> Array:
        first, last = index.touched(rows)
        types = rows.type
        listed = int(np.maximum(last - first, 0).sum())
        if listed > TOKEN_UNION_FACTOR * (n_tokens + len(rows)):
            first, last, types = _union_ranges(first, last, types)
        owner, token = expand_ranges(first, last)
        result: Array = (token * t + types[owner]) * 2 + side
        return result

    tagged = np.concatenate((units(gold, 0), units(pred, 1)))
    if tagged.shape[0] == 0:
        return np.zeros((n_docs, t, 3), dtype=np.int64)
    tagged.sort(kind="stable")  # timsort: two nearly sorted halves
    tagged = tagged[np.concatenate(([True], tagged[1:] != tagged[:-1]))]
    unit = tagged >> 1
    distinct = np.concatenate(([True], unit[1:] != unit[:-1]))
    paired = np.concatenate((~distinct[1:], [False]))  # the gold entry of a unit on both sides
    outcome = np.where(paired, 2, tagged & 1)[distinct]  # 0 fn, 1 fp, 2 tp
    unit = unit[distinct]
    cells = index.document_of(unit // t) * t + unit % t
    size = n_docs * t
    counted = _bincount(cells * 3 + outcome, size * 3).reshape(size, 3)
    result: Array = counted[:, [2, 1, 0]].reshape(n_docs, t, 3)
    return result


def token_table(gold: SpanArrays, pred: SpanArrays, texts: Sequence[str], n_types: int) -> Array:
    """tp/fp/fn of ``token`` mode; ``texts[d]`` is document ``d``'s text.

    Each row becomes the typed token units ``token * types + type`` it touches (found by two
    look-ups in a per-character token count, :class:`~annoscore.align.span_tokens.TokenIndex`).  The
    units of both sides, doubled with a side bit, are sorted together once; a distinct unit
    seen on both sides is a tp, on the gold side only a fn, on the predicted side only a fp.
    Documents are taken in runs of about :data:`TOKEN_CHUNK_CHARS` characters.
    """
    n_docs = len(texts)
    t = max(n_types, 1)
    values = np.zeros((n_docs, t, 3), dtype=np.int64)
    lengths = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n_docs) + 1)
    begin = 0
    while begin < n_docs:
        above = int(lengths[begin - 1]) if begin else 0
        end = int(np.searchsorted(lengths, above + TOKEN_CHUNK_CHARS, side="right"))
        end = min(max(end, begin + 1), n_docs)
        values[begin:end] = _token_chunk(
            gold.documents(begin, end), pred.documents(begin, end), texts[begin:end], n_types
        )
        begin = end
    return values


ROW_CHUNK = 1 << 18
"""The array modes count runs of whole documents of about this many rows (both sides) at a time,
so that their temporary arrays stay in the processor cache."""


def in_runs(
    gold: SpanArrays,
    pred: SpanArrays,
    n_docs: int,
    count: Callable[[SpanArrays, SpanArrays, int], Array],
) -> Array:
    """``count(gold rows, pred rows, documents)`` of runs of whole documents of about
    :data:`ROW_CHUNK` rows, stacked along the document axis.  Every count of a document depends
    on that document's rows only, so the runs give what one call on the whole corpus gives."""
    if n_docs == 0:
        return count(gold, pred, 0)
    rows = np.cumsum(
        np.bincount(gold.doc, minlength=n_docs) + np.bincount(pred.doc, minlength=n_docs)
    )
    parts = []
    begin = 0
    while begin < n_docs:
        above = int(rows[begin - 1]) if begin else 0
        end = int(np.searchsorted(rows, above + ROW_CHUNK, side="right"))
        end = min(max(end, begin + 1), n_docs)
        parts.append(count(gold.documents(begin, end), pred.documents(begin, end), end - begin))
        begin = end
    result: Array = np.concatenate(parts)
    return result
