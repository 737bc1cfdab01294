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

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Literal

import numpy as np

from annoscore.align.spans import (
    SCHEMES,
    Array,
    CandidatePairs,
    MatchOptions,
    SpanArrays,
    SpanMode,
    align_mentions,
    candidate_pairs,
    canonical,
    match_pairs,
    pair_credit,
    pair_index,
    pair_weights,
    token_spans,
    token_units,
    unique_counts,
    whitespace_tokens,
)
from annoscore.counts import Counts
from annoscore.metrics.prf import prf
from annoscore.metrics.tallies import Tally
from annoscore.model import Mention

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


def semeval_scores(counts: Counts, prefix: str = "") -> dict[str, float | None]:
    """``{scheme}_{precision,recall,f1}`` of the SemEval tallies."""
    out: dict[str, float | None] = {}
    for scheme in SCHEMES:
        tally = Tally(
            cor=int(counts[f"{prefix}{scheme}_cor"]),
            par=int(counts[f"{prefix}{scheme}_par"]),
            inc=int(counts[f"{prefix}{scheme}_inc"]),
            mis=int(counts[f"{prefix}{scheme}_mis"]),
            spu=int(counts[f"{prefix}{scheme}_spu"]),
        )
        out[f"{scheme}_precision"] = tally.precision
        out[f"{scheme}_recall"] = tally.recall
        out[f"{scheme}_f1"] = tally.f_measure(1.0)
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


def _bincount(cells: Array, size: int, weights: Array | None = None) -> Array:
    counted = np.bincount(cells, weights=weights, minlength=size)
    result: Array = np.rint(counted).astype(np.int64) if weights is not None else counted
    return result


def _fill_first(leftover: Array, group: Array, budget: Array) -> Array:
    """Hand ``budget[g]`` out to the rows of group ``g`` in row order, each at most ``leftover``."""
    if leftover.shape[0] == 0:
        return leftover
    running = np.cumsum(leftover) - leftover
    first = np.searchsorted(group, group, side="left")
    before = running - running[first]
    result: Array = np.clip(budget[group] - before, 0, leftover)
    return result


def _lookup(keys: Array, table_keys: Array, table_values: Array) -> Array:
    """``table_values`` at ``keys`` (0 where the key is absent); ``table_keys`` sorted."""
    if table_keys.shape[0] == 0:
        return np.zeros(keys.shape[0], dtype=np.int64)
    position = np.minimum(np.searchsorted(table_keys, keys), table_keys.shape[0] - 1)
    result: Array = np.where(table_keys[position] == keys, table_values[position], 0)
    return result


def keys_fit(n_docs: int, max_end: int, n_types: int) -> bool:
    """Whether the packed (document, start, length, type) keys of the array path fit in int64."""
    return n_docs * (max_end + 1) * (max_end + 1) * max(n_types, 1) < 2**62


def exact_table(
    gold: SpanArrays, pred: SpanArrays, n_docs: int, n_types: int, *, typed: bool
) -> Array:
    """tp/fp/fn of ``strict`` (``typed``) or ``exact`` mode, in closed form (no matching).

    Rows are packed into one int64 key per (document, start, length, type); the pairs of a group
    of identical spans are the same-type pairs, then (exact mode) the leftovers in type order.
    """
    scale = int(max(gold.end.max(initial=0), pred.end.max(initial=0))) + 1
    t = max(n_types, 1)

    def packed(rows: SpanArrays) -> Array:
        key: Array = ((rows.doc * scale + rows.start) * scale + (rows.end - rows.start)) * t
        return key + rows.type

    gold_keys, gold_n = unique_counts(packed(gold))
    pred_keys, pred_n = unique_counts(packed(pred))
    gold_used = np.minimum(gold_n, _lookup(gold_keys, pred_keys, pred_n))
    pred_used = np.minimum(pred_n, _lookup(pred_keys, gold_keys, gold_n))
    if not typed:
        gold_left, pred_left = gold_n - gold_used, pred_n - pred_used
        gold_span, pred_span = gold_keys // t, pred_keys // t
        spans = unique_counts(np.concatenate((gold_span, pred_span)))[0]
        gold_group = np.searchsorted(spans, gold_span)
        pred_group = np.searchsorted(spans, pred_span)
        budget = np.minimum(
            _bincount(gold_group, spans.shape[0], gold_left.astype(np.float64)),
            _bincount(pred_group, spans.shape[0], pred_left.astype(np.float64)),
        )
        gold_used = gold_used + _fill_first(gold_left, gold_group, budget)
        pred_used = pred_used + _fill_first(pred_left, pred_group, budget)
    size = n_docs * t
    gold_cell = (gold_keys // (t * scale * scale)) * t + gold_keys % t
    pred_cell = (pred_keys // (t * scale * scale)) * t + pred_keys % t
    tp = _bincount(gold_cell, size, gold_used.astype(np.float64))
    fn = _bincount(gold_cell, size, (gold_n - gold_used).astype(np.float64))
    fp = _bincount(pred_cell, size, (pred_n - pred_used).astype(np.float64))
    return np.stack((tp, fp, fn), axis=1).reshape(n_docs, t, 3)


def _cells(rows: SpanArrays, n_types: int) -> Array:
    cells: Array = rows.doc * max(n_types, 1) + rows.type
    return cells


def matched_table(
    gold: SpanArrays,
    pred: SpanArrays,
    mode: Literal["overlap", "relaxed"],
    options: MatchOptions,
    n_docs: int,
    n_types: int,
) -> Array:
    """tp/fp/fn of ``overlap`` or ``relaxed`` mode: candidate pairs, then the optimal matching."""
    pairs = candidate_pairs(gold, pred, mode, options)
    weights = pair_weights(pairs, mode, gold, pred, n_docs)
    matched_gold, matched_pred = match_pairs(pairs, weights, len(gold), len(pred))
    size = n_docs * max(n_types, 1)
    gold_cells, pred_cells = _cells(gold, n_types), _cells(pred, n_types)
    tp = _bincount(gold_cells[matched_gold], size)
    fn = _bincount(gold_cells, size) - tp
    fp = _bincount(pred_cells, size) - _bincount(pred_cells[matched_pred], size)
    return np.stack((tp, fp, fn), axis=1).reshape(n_docs, max(n_types, 1), 3)


def _scheme_credit(pairs: CandidatePairs, scheme: str, chosen: Array) -> Array:
    sb, st = pairs.same_bounds[chosen], pairs.same_type[chosen]
    if scheme == "strict":
        credit: Array = np.where(sb & st, 2, 0)
    elif scheme == "exact":
        credit = np.where(sb, 2, 0)
    elif scheme == "partial":
        credit = np.where(sb, 2, 1)
    else:
        credit = np.where(st, 2, 0)
    return credit


def semeval_table(
    gold: SpanArrays, pred: SpanArrays, options: MatchOptions, n_docs: int, n_types: int
) -> Array:
    """The SemEval tallies (:data:`SEMEVAL_NAMES` order) of the corpus, one matching per scheme."""
    pairs = candidate_pairs(gold, pred, "semeval", options)
    size = n_docs * max(n_types, 1)
    gold_cells, pred_cells = _cells(gold, n_types), _cells(pred, n_types)
    gold_total, pred_total = _bincount(gold_cells, size), _bincount(pred_cells, size)
    columns: list[Array] = []
    for scheme in SCHEMES:
        kind = f"semeval_{scheme}"
        weights = pair_weights(pairs, kind, gold, pred, n_docs)  # type: ignore[arg-type]
        matched_gold, matched_pred = match_pairs(pairs, weights, len(gold), len(pred))
        chosen = pair_index(pairs, matched_gold, matched_pred, len(pred))
        credit = _scheme_credit(pairs, scheme, chosen)
        cells = gold_cells[matched_gold]
        cor = _bincount(cells[credit == 2], size)
        par = _bincount(cells[credit == 1], size)
        inc = _bincount(cells[credit == 0], size)
        mis = gold_total - _bincount(cells, size)
        spu = pred_total - _bincount(pred_cells[matched_pred], size)
        columns.extend((cor, inc, par, mis, spu))
    return np.stack(columns, axis=1).reshape(n_docs, max(n_types, 1), len(SEMEVAL_NAMES))


def token_table(gold: SpanArrays, pred: SpanArrays, texts: Sequence[str], n_types: int) -> Array:
    """tp/fp/fn of ``token`` mode; ``texts[d]`` is document ``d``'s text."""
    starts, ends, offsets = token_spans(texts)
    t = max(n_types, 1)
    n_docs = len(texts)

    def units(rows: SpanArrays) -> Array:
        base = offsets[rows.doc]
        length = offsets[rows.doc + 1] - 1 - base
        low = base + np.minimum(rows.start, length)
        high = base + np.minimum(rows.end, length)
        first = np.searchsorted(ends, low, side="right")
        last = np.where(high > low, np.searchsorted(starts, high, side="left"), first)
        owner = np.repeat(np.arange(len(rows), dtype=np.int64), np.maximum(last - first, 0))
        sizes = np.maximum(last - first, 0)
        token = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
            np.cumsum(sizes) - sizes - first, sizes
        )
        return unique_counts(token * t + rows.type[owner])[0]

    gold_units, pred_units = units(gold), units(pred)
    both = gold_units[_lookup(gold_units, pred_units, np.ones_like(pred_units)) == 1]
    token_doc = np.searchsorted(offsets, starts, side="right") - 1

    def cells(unit: Array) -> Array:
        result: Array = token_doc[unit // t] * t + unit % t
        return result

    size = n_docs * t
    tp = _bincount(cells(both), size)
    fn = _bincount(cells(gold_units), size) - tp
    fp = _bincount(cells(pred_units), size) - tp
    return np.stack((tp, fp, fn), axis=1).reshape(n_docs, t, 3)


# ------------------------------------------------------------------------------- the corpus

CorpusMode = Literal["strict", "exact", "overlap", "relaxed", "token", "semeval"]


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
        types = tuple(sorted({m.type for side in (gold, pred) for doc in side for m in doc}))
        type_id = {name: i for i, name in enumerate(types)}
        max_end = max((m.span.end for side in (gold, pred) for doc in side for m in doc), default=0)
        fits = keys_fit(len(doc_ids), max_end, len(types))
        by_mentions: dict[int, tuple[tuple[Mention, ...], tuple[Mention, ...]]] = {}
        columns: list[tuple[list[int], list[int], list[int], list[int]]] = [
            ([], [], [], []),
            ([], [], [], []),
        ]
        for d in range(len(doc_ids)):
            if not fits or any(m.span.is_discontinuous for m in (*gold[d], *pred[d])):
                by_mentions[d] = (tuple(gold[d]), tuple(pred[d]))
                continue
            for side, (docs, starts, ends, type_ids) in zip((gold, pred), columns, strict=True):
                for m in side[d]:
                    docs.append(d)
                    starts.append(m.span.start)
                    ends.append(m.span.end)
                    type_ids.append(type_id[m.type])
        gold_arrays, pred_arrays = (SpanArrays.build(*c) for c in columns)
        text_list = tuple(texts) if texts is not None else (None,) * len(doc_ids)
        return cls(tuple(doc_ids), types, gold_arrays, pred_arrays, by_mentions, text_list)

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
        flats = [[e for doc in side for e in doc] for side in (gold, pred)]
        labels = sorted({*map(itemgetter("label"), flats[0]), *map(itemgetter("label"), flats[1])})
        type_id = {name: i for i, name in enumerate(labels)}
        arrays = []
        for side, flat in zip((gold, pred), flats, strict=True):
            n = len(flat)
            arrays.append(
                SpanArrays.build(
                    np.repeat(np.arange(len(side), dtype=np.int64), [len(doc) for doc in side]),
                    np.fromiter(map(itemgetter("start"), flat), dtype=np.int64, count=n),
                    np.fromiter(map(itemgetter("end"), flat), dtype=np.int64, count=n),
                    np.fromiter(
                        map(type_id.__getitem__, map(itemgetter("label"), flat)),
                        dtype=np.int64,
                        count=n,
                    ),
                )
            )
        starts = np.concatenate([arrays[0].start, arrays[1].start])
        ends = np.concatenate([arrays[0].end, arrays[1].end])
        if starts.size and (starts.min() < 0 or (ends < starts).any()):
            raise ValueError("every span needs 0 <= start <= end")
        max_end = int(ends.max(initial=0))
        if not keys_fit(len(gold), max_end, len(labels)):
            raise ValueError("offsets too large for the array path; use from_mentions")
        text_list = tuple(texts) if texts is not None else (None,) * len(gold)
        ids = tuple(str(d) for d in range(len(gold)))
        return cls(ids, tuple(labels), arrays[0], arrays[1], {}, text_list)

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
            values = exact_table(gold, pred, n_docs, n_types, typed=mode == "strict")
        elif mode in ("overlap", "relaxed"):
            values = matched_table(gold, pred, mode, options, n_docs, n_types)
        elif mode == "semeval":
            values = semeval_table(gold, pred, options, n_docs, n_types)
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
