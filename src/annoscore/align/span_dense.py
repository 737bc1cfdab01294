"""Dense clusters: thousands of spans overlapping each other in one document, found and matched
without enumerating their pairs into an assignment matrix (time and memory bounds), for the
array path of :mod:`annoscore.align.span_arrays`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Literal

import numpy as np

from annoscore.align.span_arrays import Array, SpanArrays, candidate_windows
from annoscore.align.span_modes import MatchOptions

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
    (:func:`~annoscore.align.span_arrays.candidate_windows`, before the filters of
    :func:`~annoscore.align.span_arrays.candidate_pairs`): an upper bound of its candidates,
    found without making a pair."""
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
