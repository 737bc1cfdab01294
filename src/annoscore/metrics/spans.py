"""Counts of generic span scoring: tp/fp/fn per mode and the SemEval-2013 tallies, per type.

Keys of a document's :class:`~annoscore.counts.Counts`:

- tp/fp/fn modes: ``tp``, ``fp``, ``fn`` and, for every type seen in the document,
  ``type:NAME:tp`` etc.;
- SemEval: ``{scheme}_{cor,inc,par,mis,spu}`` for the schemes strict, exact, partial and type,
  and ``type:NAME:{scheme}_{...}``.

Attribution to types (so that the per-type counts add up to the overall ones):

- a matched pair counts under the **gold** type (tp, or COR/INC/PAR);
- an unmatched gold mention is a fn (MIS) of its type; an unmatched prediction is a fp (SPU) of
  the **predicted** type.

In ``strict``, ``overlap``, ``relaxed`` and ``token`` mode pairs have one type, so a prediction
with the wrong type is a fp of its type and leaves the gold mention a fn of the gold type.  In
``exact`` mode and the SemEval schemes a pair may join two types: it is credited to the gold type
only, and the predicted type's counts do not see that prediction.

Formulas: P = tp / (tp + fp), R = tp / (tp + fn) (:mod:`annoscore.metrics.prf`); SemEval
P = (COR + PAR/2) / ACT, R = (COR + PAR/2) / POS with POS = COR + INC + PAR + MIS (the gold
mentions) and ACT = COR + INC + PAR + SPU (the predictions) (:mod:`annoscore.metrics.tallies`).

Two implementations: :func:`mode_counts` / :func:`semeval_counts` score one document from its
mentions (the reference), and the ``*_table`` functions score a corpus of
:class:`~annoscore.align.spans.SpanArrays` at once into a ``(documents, types, statistics)``
integer array (:class:`CountTable`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any, Literal, Protocol, cast

import numpy as np

from annoscore.align.assignment import sparse_max_weight_partners
from annoscore.align.span_modes import SCHEMES, CorpusMode, SpanMode
from annoscore.align.spans import (
    MAX_KEY_PAIRS,
    Array,
    CandidatePairs,
    MatchKind,
    MatchOptions,
    SpanArrays,
    TokenIndex,
    align_mentions,
    candidate_pairs,
    canonical,
    dense_clusters,
    expand_ranges,
    greedy_overlap_matching,
    isolated_pairs,
    key_flows,
    match_ambiguous,
    maximum_cardinality,
    pair_credit,
    token_units,
    whitespace_tokens,
    window_sizes,
)
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.prf import prf
from annoscore.model import Mention
from annoscore.result import CountMatrix


class EntityBlockArrays(Protocol):
    """Entities of many documents as arrays (a reader's, say ``formats.brat_columns.EntityBlock``):
    ``starts``, ``ends``, ``type_codes`` (positions in ``type_names``), one row per entity."""

    starts: Array
    ends: Array
    type_codes: Array
    type_names: list[str]


class BlockRows(Protocol):
    """Rows ``lo:hi`` of a block: one document side's entities (continuous ones only)."""

    block: EntityBlockArrays
    lo: int
    hi: int


def _ranges(lo: Array, hi: Array) -> Array:
    """The positions ``lo[k]:hi[k]`` of every ``k``, one after another.

    >>> _ranges(np.array([5, 0, 9]), np.array([7, 0, 10])).tolist()
    [5, 6, 9]
    """
    sizes = hi - lo
    total = int(sizes.sum())
    firsts = np.cumsum(sizes) - sizes
    return np.repeat(lo - firsts, sizes) + np.arange(total, dtype=np.int64)


def _block_columns(
    all_rows: Sequence[BlockRows], type_number: defaultdict[str, int]
) -> tuple[Array, Array, Array, Array]:
    """Document, start, end and type-number columns of documents that are all rows of one
    reader's block (no Python code per entity)."""
    block = all_rows[0].block
    lo = np.fromiter(map(attrgetter("lo"), all_rows), dtype=np.int64, count=len(all_rows))
    hi = np.fromiter(map(attrgetter("hi"), all_rows), dtype=np.int64, count=len(all_rows))
    source = _ranges(lo, hi)
    doc = np.repeat(np.arange(len(all_rows), dtype=np.int64), hi - lo)
    numbers = np.array([type_number[t] for t in block.type_names], dtype=np.int64)
    return doc, block.starts[source], block.ends[source], numbers[block.type_codes[source]]


class EntityColumns(Protocol):
    """One document side's entities as columns: what :meth:`SpanCorpus.from_columns` reads."""

    @property
    def types(self) -> Sequence[str]: ...

    @property
    def starts(self) -> Sequence[int]: ...

    @property
    def ends(self) -> Sequence[int]: ...

    @property
    def has_discontinuous(self) -> bool: ...

    def mentions(self) -> Sequence[Mention]: ...


PRF_NAMES = ("tp", "fp", "fn")
"""The statistics of the tp/fp/fn modes."""

TALLY_KINDS = ("cor", "inc", "par", "mis", "spu")
SEMEVAL_NAMES = tuple(f"{scheme}_{kind}" for scheme in SCHEMES for kind in TALLY_KINDS)
"""The statistics of the SemEval mode, scheme by scheme."""

TYPE_PREFIX = "type:"


def type_key(type_name: str, stat: str) -> str:
    """The Counts key of a per-type statistic: ``type:NAME:stat``."""
    return f"{TYPE_PREFIX}{type_name}:{stat}"


def _counts(per_type: dict[str, dict[str, int]], names: Sequence[str]) -> Counts:
    values: dict[str, int] = dict.fromkeys(names, 0)
    for type_name, stats in per_type.items():
        for name in names:
            value = stats.get(name, 0)
            values[name] += value
            values[type_key(type_name, name)] = value
    return Counts(values)


def _types_of(*groups: Iterable[Mention]) -> dict[str, dict[str, int]]:
    return {m.type: {} for group in groups for m in group}


def mode_counts(
    gold: Iterable[Mention],
    pred: Iterable[Mention],
    mode: SpanMode,
    options: MatchOptions | None = None,
    text: str | None = None,
) -> Counts:
    """tp/fp/fn of one document in ``mode`` (``token`` needs the document ``text``)."""
    gold = list(gold)
    pred = list(pred)
    per_type = _types_of(gold, pred)
    if mode == "token":
        if text is None:
            raise ValueError("token mode needs the document text")
        tokens = whitespace_tokens(text)
        gold_units = token_units(gold, text, tokens)
        pred_units = token_units(pred, text, tokens)
        for units, stat in (
            (gold_units & pred_units, "tp"),
            (gold_units - pred_units, "fn"),
            (pred_units - gold_units, "fp"),
        ):
            for type_name, number in Counter(t for _, _, t in units).items():
                per_type[type_name][stat] = number
        return _counts(per_type, PRF_NAMES)
    alignment = align_mentions(gold, pred, mode, options)
    tally: Counter[tuple[str, str]] = Counter()
    for i, _ in alignment.pairs:
        tally[alignment.gold[i].type, "tp"] += 1
    for m in alignment.unmatched_gold():
        tally[m.type, "fn"] += 1
    for m in alignment.unmatched_pred():
        tally[m.type, "fp"] += 1
    for (type_name, stat), number in tally.items():
        per_type[type_name][stat] = number
    return _counts(per_type, PRF_NAMES)


def semeval_counts(
    gold: Iterable[Mention], pred: Iterable[Mention], options: MatchOptions | None = None
) -> Counts:
    """The SemEval-2013 COR/INC/PAR/MIS/SPU of one document, for each of the four schemes.

    Each scheme has its own optimal matching (see :func:`~annoscore.align.spans.pair_credit`).
    """
    gold = canonical(gold)
    pred = canonical(pred)
    per_type = _types_of(gold, pred)
    tally: Counter[tuple[str, str]] = Counter()
    for scheme in SCHEMES:
        kind: Literal["semeval_strict", "semeval_exact", "semeval_partial", "semeval_type"]
        kind = f"semeval_{scheme}"  # type: ignore[assignment]
        alignment = align_mentions(gold, pred, kind, options)
        for i, j in alignment.pairs:
            g, p = alignment.gold[i], alignment.pred[j]
            credit = pair_credit(kind, g.span.fragments == p.span.fragments, g.type == p.type)
            fate = "cor" if credit == 2 else "par" if credit == 1 else "inc"
            tally[g.type, f"{scheme}_{fate}"] += 1
        for m in alignment.unmatched_gold():
            tally[m.type, f"{scheme}_mis"] += 1
        for m in alignment.unmatched_pred():
            tally[m.type, f"{scheme}_spu"] += 1
    for (type_name, stat), number in tally.items():
        per_type[type_name][stat] = number
    return _counts(per_type, SEMEVAL_NAMES)


def prf_scores(counts: Counts, prefix: str = "") -> dict[str, float | None]:
    """``precision``, ``recall``, ``f1`` of the ``{prefix}tp/fp/fn`` counts (None if undefined)."""
    return prf(counts[prefix + "tp"], counts[prefix + "fp"], counts[prefix + "fn"]).as_dict()


_SEMEVAL_KEYS = tuple(
    (scheme, tuple(f"{scheme}_{kind}" for kind in ("cor", "par", "inc", "mis", "spu")))
    for scheme in SCHEMES
)


def semeval_scores(counts: Counts, prefix: str = "") -> dict[str, float | None]:
    """``{scheme}_{precision,recall,f1}`` of the SemEval tallies
    (:class:`~annoscore.metrics.tallies.Tally`: P = (COR + PAR/2) / ACT, R = (COR + PAR/2) /
    POS, F their harmonic mean; F is 0 when one side is empty, ``None`` when both are).

    The arithmetic of :class:`~annoscore.metrics.tallies.Tally` and
    :func:`~annoscore.metrics.prf.f_beta`, written out: this runs once per document.

    >>> semeval_scores(Counts(strict_cor=1, strict_par=1, strict_spu=2))["strict_precision"]
    0.375
    """
    out: dict[str, float | None] = {}
    stored = dict(counts.items())  # plain dict lookups (a missing count is 0)
    for scheme, keys in _SEMEVAL_KEYS:
        if prefix:
            keys = tuple(prefix + key for key in keys)
        cor, par, inc, mis, spu = map(int, map(stored.get, keys, repeat(0)))
        credit = cor + 0.5 * par
        pos = cor + par + inc + mis
        act = cor + par + inc + spu
        precision = credit / act if act else None
        recall = credit / pos if pos else None
        f1: float | None
        if precision is None or recall is None:
            f1 = 0.0 if pos + act > 0 else None
        else:
            f1 = 0.0 if precision + recall == 0 else 2.0 * precision * recall / (precision + recall)
        out[f"{scheme}_precision"] = precision
        out[f"{scheme}_recall"] = recall
        out[f"{scheme}_f1"] = f1
    return out


# ---------------------------------------------------------------------------- the array path


@dataclass(frozen=True, slots=True)
class CountTable:
    """Per-document, per-type counts: ``values[d, t, k]`` is statistic ``names[k]``."""

    names: tuple[str, ...]
    types: tuple[str, ...]
    values: Array

    def document(self, d: int) -> Counts:
        """Document ``d``'s counts, with the same keys as :func:`mode_counts` gives."""
        cells = self.values[d]
        per_type = {
            self.types[t]: dict(zip(self.names, cells[t].tolist(), strict=True))
            for t in np.flatnonzero(cells.any(axis=1)).tolist()
        }
        return _counts(per_type, self.names)

    def corpus(self) -> Counts:
        """The overall counts of the whole corpus (no per-type keys)."""
        totals = self.values.sum(axis=(0, 1)).tolist()
        return Counts(dict(zip(self.names, totals, strict=True)))

    def by_type(self) -> dict[str, Counts]:
        """Each type's corpus counts (plain keys), for the types that have any count."""
        sums = self.values.sum(axis=0)
        return {
            self.types[t]: Counts(dict(zip(self.names, sums[t].tolist(), strict=True)))
            for t in range(len(self.types))
            if sums[t].any()
        }

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
    :data:`~annoscore.align.spans.MAX_KEY_PAIRS` bound."""
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
    with a multiplicity: :func:`~annoscore.align.spans.key_flows`)."""

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
    :func:`~annoscore.align.spans.greedy_overlap_matching`, whatever the density; otherwise the
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
    gold: SpanArrays,
    pred: SpanArrays,
    options: MatchOptions,
    g_rows: Array,
    p_rows: Array,
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
      :func:`~annoscore.align.spans.greedy_overlap_matching`; type and partial (and anything
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


def _token_chunk(gold: SpanArrays, pred: SpanArrays, texts: Sequence[str], n_types: int) -> Array:
    """tp/fp/fn of token mode for ``texts`` (rows' ``doc`` index ``texts``)."""
    index = TokenIndex.of(texts)
    t = max(n_types, 1)
    n_docs = len(texts)

    def units(rows: SpanArrays, side: int) -> Array:
        first, last = index.touched(rows)
        owner, token = expand_ranges(first, last)
        result: Array = (token * t + rows.type[owner]) * 2 + side
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
    look-ups in a per-character token count, :class:`~annoscore.align.spans.TokenIndex`).  The
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


# ------------------------------------------------------------------------------- the corpus

_START_END_LABEL = itemgetter("start", "end", "label")
_FRAGMENTS = attrgetter("span.fragments")
_TYPE = attrgetter("type")
_FIRST, _SECOND, _LAST = itemgetter(0), itemgetter(1), itemgetter(-1)
_DICT_ROW = np.dtype([("start", np.int64), ("end", np.int64), ("label", object)])


def scorer_of(mode: CorpusMode) -> Callable[[Counts], dict[str, float | None]]:
    """The scorer of a mode's counts: :func:`semeval_scores` or :func:`prf_scores`."""
    return semeval_scores if mode == "semeval" else prf_scores


@dataclass(frozen=True, slots=True)
class SpanCorpus:
    """Gold and predicted mentions of many documents, ready to be counted in any mode.

    Continuous mentions go to the array path.  A document with a discontinuous mention (on
    either side) is scored by the mention path, and so is every document when the packed
    integer keys of the array path would not fit in 64 bits (offsets beyond ~10^8).
    """

    doc_ids: tuple[str, ...]
    types: tuple[str, ...]
    gold: SpanArrays
    pred: SpanArrays
    by_mentions: dict[int, tuple[tuple[Mention, ...], tuple[Mention, ...]]]
    texts: tuple[str | None, ...]

    @classmethod
    def from_mentions(
        cls,
        doc_ids: Sequence[str],
        gold: Sequence[Sequence[Mention]],
        pred: Sequence[Sequence[Mention]],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """``gold[d]`` and ``pred[d]`` are document ``doc_ids[d]``'s mentions."""
        n_docs = len(doc_ids)
        type_number: defaultdict[str, int] = defaultdict()
        type_number.default_factory = type_number.__len__  # first-seen numbering, one pass
        columns = []
        on_mention_path = np.zeros(n_docs, dtype=bool)
        max_end = 0
        for side in (gold, pred):
            sizes = np.fromiter(map(len, side), dtype=np.int64, count=n_docs)
            mentions = list(chain.from_iterable(side))
            n = len(mentions)
            fragments = list(map(_FRAGMENTS, mentions))
            doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
            first_seen = np.fromiter(
                map(type_number.__getitem__, map(_TYPE, mentions)), dtype=np.int64, count=n
            )
            # two numbers per fragment: exactly 2n when every mention is continuous
            bounds = np.fromiter(chain.from_iterable(chain.from_iterable(fragments)), np.int64)
            if bounds.shape[0] == 2 * n:
                starts, ends = bounds[0::2].copy(), bounds[1::2].copy()
            else:
                pieces = np.fromiter(map(len, fragments), dtype=np.int64, count=n)
                starts = np.fromiter(map(_FIRST, map(_FIRST, fragments)), dtype=np.int64, count=n)
                ends = np.fromiter(map(_SECOND, map(_LAST, fragments)), dtype=np.int64, count=n)
                on_mention_path[doc[pieces > 1]] = True
            max_end = max(max_end, int(ends.max(initial=0)))
            columns.append((doc, starts, ends, first_seen))
        return cls._of_columns(
            doc_ids,
            type_number,
            columns,
            on_mention_path,
            max_end,
            texts,
            lambda d: (tuple(gold[d]), tuple(pred[d])),
        )

    @classmethod
    def from_columns(
        cls,
        doc_ids: Sequence[str],
        gold: Sequence[EntityColumns],
        pred: Sequence[EntityColumns],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """``gold[d]`` and ``pred[d]`` are document ``doc_ids[d]``'s entities as columns (a
        reader's :class:`~annoscore.formats.brat.AnnFile`, say): the same corpus as
        :meth:`from_mentions` without building a mention object per entity.  A document with
        a discontinuous entity builds its mentions and takes the mention path."""
        n_docs = len(doc_ids)
        type_number: defaultdict[str, int] = defaultdict()
        type_number.default_factory = type_number.__len__  # first-seen numbering, one pass
        columns = []
        on_mention_path = np.zeros(n_docs, dtype=bool)
        max_end = 0
        for side in (gold, pred):
            found: list[BlockRows | None] = [getattr(c, "rows", None) for c in side]
            block_rows = [r for r in found if r is not None]
            if n_docs and len(block_rows) == n_docs and len({id(r.block) for r in block_rows}) == 1:
                columns.append(_block_columns(block_rows, type_number))  # one reader's block
                max_end = max(max_end, int(columns[-1][2].max(initial=0)))
                continue
            sizes = np.fromiter((len(c.types) for c in side), dtype=np.int64, count=n_docs)
            n = int(sizes.sum())
            doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
            firsts = np.cumsum(sizes) - sizes
            starts = np.empty(n, dtype=np.int64)
            ends = np.empty(n, dtype=np.int64)
            first_seen = np.empty(n, dtype=np.int64)
            in_block: dict[int, tuple[BlockRows, list[int]]] = {}
            listed = []
            for d, c in enumerate(side):
                rows = getattr(c, "rows", None)
                if rows is not None:
                    in_block.setdefault(id(rows.block), (rows, []))[1].append(d)
                else:
                    listed.append(d)
                    if c.has_discontinuous:
                        on_mention_path[d] = True
            for some_rows, docs in in_block.values():  # a reader's arrays: no Python per entity
                block = some_rows.block
                ranges = [side[d].rows for d in docs]  # type: ignore[attr-defined]
                source = _ranges(np.array([r.lo for r in ranges]), np.array([r.hi for r in ranges]))
                target = _ranges(firsts[docs], firsts[docs] + sizes[docs])
                starts[target] = block.starts[source]
                ends[target] = block.ends[source]
                numbers = np.array([type_number[t] for t in block.type_names], dtype=np.int64)
                first_seen[target] = numbers[block.type_codes[source]]
            if listed:
                target = _ranges(firsts[listed], firsts[listed] + sizes[listed])
                count = target.shape[0]
                starts[target] = np.fromiter(
                    chain.from_iterable(side[d].starts for d in listed), np.int64, count
                )
                ends[target] = np.fromiter(
                    chain.from_iterable(side[d].ends for d in listed), np.int64, count
                )
                first_seen[target] = np.fromiter(
                    map(
                        type_number.__getitem__,
                        chain.from_iterable(side[d].types for d in listed),
                    ),
                    np.int64,
                    count,
                )
            max_end = max(max_end, int(ends.max(initial=0)))
            columns.append((doc, starts, ends, first_seen))
        return cls._of_columns(
            doc_ids,
            type_number,
            columns,
            on_mention_path,
            max_end,
            texts,
            lambda d: (tuple(gold[d].mentions()), tuple(pred[d].mentions())),
        )

    @classmethod
    def _of_columns(
        cls,
        doc_ids: Sequence[str],
        type_number: dict[str, int],
        columns: list[tuple[Array, Array, Array, Array]],
        on_mention_path: Array,
        max_end: int,
        texts: Sequence[str | None] | None,
        mentions: Callable[[int], tuple[tuple[Mention, ...], tuple[Mention, ...]]],
    ) -> SpanCorpus:
        n_docs = len(doc_ids)
        labels = list(type_number)
        by_name = sorted(range(len(labels)), key=labels.__getitem__)
        rank = np.empty(len(labels), dtype=np.int64)
        rank[by_name] = np.arange(len(labels), dtype=np.int64)
        types = tuple(labels[i] for i in by_name)
        if not keys_fit(n_docs, max_end, len(types)):
            on_mention_path[:] = True
        by_mentions = {d: mentions(d) for d in np.flatnonzero(on_mention_path).tolist()}
        arrays = []
        for doc, starts, ends, first_seen in columns:
            keep = ~on_mention_path[doc]
            arrays.append(
                SpanArrays.build(doc[keep], starts[keep], ends[keep], rank[first_seen[keep]])
            )
        text_list = tuple(texts) if texts is not None else (None,) * n_docs
        return cls(tuple(doc_ids), types, arrays[0], arrays[1], by_mentions, text_list)

    @classmethod
    def from_dicts(
        cls,
        gold: Sequence[Sequence[dict[str, Any]]],
        pred: Sequence[Sequence[dict[str, Any]]],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """Continuous spans as nervaluate's dicts (``label``, ``start``, ``end`` half-open).

        Documents are numbered ``"0"``, ``"1"``, ...; ``gold`` and ``pred`` are aligned by index.
        """
        if len(gold) != len(pred):
            raise ValueError("gold and pred need the same number of documents")
        type_number: defaultdict[Any, int] = defaultdict()
        type_number.default_factory = type_number.__len__  # first-seen numbering, one pass
        columns = []
        for side in (gold, pred):
            sizes = np.fromiter(map(len, side), dtype=np.int64, count=len(side))
            n = int(sizes.sum())
            # one pass over the dicts (they are scattered in memory: each visit is a cache miss)
            rows = np.fromiter(
                map(_START_END_LABEL, chain.from_iterable(side)), dtype=_DICT_ROW, count=n
            )
            first_seen = np.fromiter(
                map(type_number.__getitem__, rows["label"]), dtype=np.int64, count=n
            )
            columns.append((sizes, rows["start"], rows["end"], first_seen))
        labels = list(type_number)
        if not all(isinstance(label, str) for label in labels):
            raise ValueError("every label must be a string")
        by_name = sorted(range(len(labels)), key=labels.__getitem__)
        rank = np.empty(len(labels), dtype=np.int64)
        rank[by_name] = np.arange(len(labels), dtype=np.int64)
        arrays = []
        for sizes, starts, ends, first_seen in columns:
            if starts.size and (starts.min() < 0 or (ends < starts).any()):
                raise ValueError("every span needs 0 <= start <= end")
            doc = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
            arrays.append(SpanArrays.build(doc, starts, ends, rank[first_seen]))
        max_end = max(int(arrays[0].end.max(initial=0)), int(arrays[1].end.max(initial=0)))
        if not keys_fit(len(gold), max_end, len(labels)):
            raise ValueError("offsets too large for the array path; use from_mentions")
        text_list = tuple(texts) if texts is not None else (None,) * len(gold)
        ids = tuple(str(d) for d in range(len(gold)))
        types = tuple(labels[i] for i in by_name)
        return cls(ids, types, arrays[0], arrays[1], {}, text_list)

    def deduplicated(self) -> tuple[SpanCorpus, int]:
        """The corpus with identical mentions (same fragments and type) collapsed per document
        and side, and how many were dropped."""
        gold, dropped_gold = self.gold.unique()
        pred, dropped_pred = self.pred.unique()
        by_mentions = {}
        dropped = dropped_gold + dropped_pred
        for d, (g, p) in self.by_mentions.items():
            g_set, p_set = tuple(dict.fromkeys(g)), tuple(dict.fromkeys(p))
            dropped += len(g) - len(g_set) + len(p) - len(p_set)
            by_mentions[d] = (g_set, p_set)
        corpus = SpanCorpus(self.doc_ids, self.types, gold, pred, by_mentions, self.texts)
        return corpus, dropped

    def duplicates(self) -> int:
        """How many mentions repeat another one of the same document and side."""
        return self.deduplicated()[1]

    def table(self, mode: CorpusMode, options: MatchOptions | None = None) -> CountTable:
        """Count every document in ``mode`` (``token`` needs ``texts``)."""
        options = options or MatchOptions()
        n_docs, n_types = len(self.doc_ids), len(self.types)
        gold, pred = self.gold, self.pred
        if mode in ("strict", "exact"):
            values = in_runs(
                gold,
                pred,
                n_docs,
                lambda g, p, n: exact_table(g, p, n, n_types, typed=mode == "strict"),
            )
        elif mode in ("overlap", "relaxed"):
            values = in_runs(
                gold,
                pred,
                n_docs,
                lambda g, p, n: matched_table(g, p, mode, options, n, n_types),
            )
        elif mode == "semeval":
            values = in_runs(
                gold, pred, n_docs, lambda g, p, n: semeval_table(g, p, options, n, n_types)
            )
        elif mode == "token":
            missing = [self.doc_ids[d] for d, t in enumerate(self.texts) if t is None]
            if missing:
                raise ValueError(f"token mode needs the text of document {missing[0]}")
            values = token_table(gold, pred, [t or "" for t in self.texts], n_types)
        else:
            raise ValueError(f"unknown mode {mode!r}")
        names = SEMEVAL_NAMES if mode == "semeval" else PRF_NAMES
        type_id = {name: i for i, name in enumerate(self.types)}
        for d, (g, p) in self.by_mentions.items():
            if mode == "semeval":
                counts = semeval_counts(g, p, options)
            else:
                counts = mode_counts(g, p, mode, options, self.texts[d])
            for name in {m.type for m in (*g, *p)}:
                for k, stat in enumerate(names):
                    values[d, type_id[name], k] = counts[type_key(name, stat)]
        return CountTable(names, self.types, values)
