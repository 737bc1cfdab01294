"""Error categories of predicted spans against gold spans, for people reading a report.

The SemEval-2013 categories, extended by side: each gold and each predicted mention of a
document falls in exactly one item:

- ``correct``: same fragments, same type;
- ``type``: same fragments, another type;
- ``boundary``: overlapping, same type, other fragments; ``side`` says how: ``left`` and/or
  ``right`` (the start or end differs), each ``+`` (the prediction reaches further: extended) or
  ``-`` (it stops short: shrunk), ``frag`` when only the inner fragments differ;
- ``type+boundary``: overlapping, another type, other fragments;
- ``missed``: a gold mention no prediction is paired with;
- ``spurious``: a prediction paired with no gold mention.

Pairing is one-to-one and does not depend on the input order: equal fragments first (same type
before another type), then overlapping mentions by the most shared characters (same type first),
ties broken by position and type.  This is a view for error analysis: the scores come from the
task's own matching (:mod:`annoscore.align.spans`), which may pair differently in some modes.

>>> g = [(((0, 5),), "Drug"), (((10, 20),), "Dose")]
>>> p = [(((0, 5),), "Gene"), (((8, 20),), "Dose"), (((30, 31),), "Drug")]
>>> [(e.category, e.side) for e in categorize(g, p)]
[('type', ''), ('boundary', 'left+'), ('spurious', '')]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Fragments = tuple[tuple[int, int], ...]
Item = Sequence[Any]
"""A mention: its fragments ((start, end) pairs) and its type."""

CATEGORIES = ("correct", "type", "boundary", "type+boundary", "missed", "spurious")


@dataclass(frozen=True, slots=True)
class SpanError:
    """One item: ``gold`` and ``pred`` are indices into the two lists (``None`` on the side it
    lacks)."""

    category: str
    gold: int | None
    pred: int | None
    side: str = ""


def _fragments(fragments: Sequence[Sequence[int]]) -> Fragments:
    return tuple((int(a), int(b)) for a, b in fragments)


def _shared(a: Fragments, b: Fragments) -> int:
    return sum(max(0, min(ae, be) - max(ast, bst)) for ast, ae in a for bst, be in b)


def _side(gold: Fragments, pred: Fragments) -> str:
    parts = []
    if pred[0][0] != gold[0][0]:
        parts.append("left" + ("+" if pred[0][0] < gold[0][0] else "-"))
    if pred[-1][1] != gold[-1][1]:
        parts.append("right" + ("+" if pred[-1][1] > gold[-1][1] else "-"))
    return " ".join(parts) or "frag"


def categorize(
    gold: Sequence[Item], pred: Sequence[Item], *, plain: bool = False
) -> list[SpanError]:
    """The items of one document (``gold`` and ``pred``: (fragments, type) pairs, or longer
    tuples starting with them), in the order: paired items by gold position, then missed, then
    spurious.  ``plain``: the fragments are already tuples of int pairs and the types str."""
    if plain:
        g = [(m[0], m[1]) for m in gold]
        p = [(m[0], m[1]) for m in pred]
    else:
        g = [(_fragments(m[0]), str(m[1])) for m in gold]
        p = [(_fragments(m[0]), str(m[1])) for m in pred]
    free_g = set(range(len(g)))
    free_p = set(range(len(p)))
    pairs: list[SpanError] = []
    by_fragments: dict[Fragments, list[int]] = {}
    for j in sorted(range(len(p)), key=lambda j: (p[j], j)):
        by_fragments.setdefault(p[j][0], []).append(j)
    for same_type in (True, False):
        for i in sorted(free_g, key=lambda i: (g[i], i)):
            for j in by_fragments.get(g[i][0], ()):
                if j in free_p and (p[j][1] == g[i][1]) == same_type:
                    free_g.discard(i)
                    free_p.discard(j)
                    pairs.append(SpanError("correct" if same_type else "type", i, j))
                    break
    candidates = []
    ordered_p = sorted(free_p, key=lambda j: (p[j][0][0][0], j))
    for i in free_g:
        start, end = g[i][0][0][0], g[i][0][-1][1]
        for j in ordered_p:
            if p[j][0][0][0] >= end:
                break
            if p[j][0][-1][1] <= start:
                continue
            shared = _shared(g[i][0], p[j][0])
            if shared > 0:
                candidates.append((p[j][1] != g[i][1], -shared, g[i], p[j], i, j))
    for different, _, _, _, i, j in sorted(candidates):
        if i in free_g and j in free_p:
            free_g.discard(i)
            free_p.discard(j)
            category = "type+boundary" if different else "boundary"
            pairs.append(SpanError(category, i, j, _side(g[i][0], p[j][0])))
    pairs.sort(key=lambda e: (g[e.gold], e.gold) if e.gold is not None else ((), 0))
    pairs += [SpanError("missed", i, None) for i in sorted(free_g, key=lambda i: (g[i], i))]
    pairs += [SpanError("spurious", None, j) for j in sorted(free_p, key=lambda j: (p[j], j))]
    return pairs


SIDES = tuple(
    " ".join(p for p in (left, right) if p) or "frag"
    for left in ("", "left+", "left-")
    for right in ("", "right+", "right-")
)
"""The ``side`` of a boundary item by code, ``3 * left + right`` (0 the same, 1 extended, 2
shrunk): ``SIDES[0]`` is ``frag`` (only the inner fragments differ)."""

CORRECT, TYPE, BOUNDARY, TYPE_BOUNDARY, MISSED, SPURIOUS = range(len(CATEGORIES))


@dataclass(frozen=True, slots=True)
class MentionErrors:
    """The item of every mention of a corpus, by row (see :func:`categorize_columns`):
    ``gold_category`` and ``pred_category`` (positions in :data:`CATEGORIES`), ``gold_partner``
    (the predicted row paired with each gold row, -1 for a missed one), ``pred_partner`` (the
    reverse) and ``gold_side`` (positions in :data:`SIDES`, 0 unless a boundary item)."""

    gold_category: Any
    gold_partner: Any
    gold_side: Any
    pred_category: Any
    pred_partner: Any


def _packed(columns: Sequence[Any]) -> Any:
    """The non-negative ``columns`` as one int64 key ordered as they are (the first most
    significant), or ``None`` when it would not fit in 62 bits."""
    import numpy as np

    radices = [int(c.max(initial=0)) + 1 for c in columns]
    if any(int(c.min(initial=0)) < 0 for c in columns) or math.prod(radices) >= 1 << 62:
        return None
    key = np.zeros(columns[0].shape[0], dtype=np.int64)
    for column, radix in zip(columns, radices, strict=True):
        key *= radix
        key += column
    return key


def _paired_runs(
    gold_keys: Sequence[Any], pred_keys: Sequence[Any], gold_order: Any, pred_order: Any
) -> tuple[Any, Any]:
    """Pair the rows of two lists whose ``keys`` are equal: in each group of equal keys, the
    k-th gold row with the k-th predicted row, each side ordered by its ``order`` column and
    then its position.  Returns the paired positions in the gold and the predicted list."""
    import numpy as np

    n_gold = gold_keys[0].shape[0]
    keys = [np.concatenate([g, p]) for g, p in zip(gold_keys, pred_keys, strict=True)]
    n = keys[0].shape[0]
    side = np.concatenate([np.zeros(n_gold, dtype=np.int8), np.ones(n - n_gold, dtype=np.int8)])
    within = np.concatenate([gold_order, pred_order])
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    packed = _packed([*keys, side, within])
    if packed is not None:  # one key: a stable sort keeps the positions in order
        order = np.argsort(packed, kind="stable")
        group_key = packed[order] // (2 * (int(within.max(initial=0)) + 1))
        new[1:] = group_key[1:] != group_key[:-1]
    else:
        order = np.lexsort([np.arange(n), within, side, *keys[::-1]])
        for key in keys:
            ordered = key[order]
            new[1:] |= ordered[1:] != ordered[:-1]
    group = np.cumsum(new) - 1
    firsts = np.flatnonzero(new)
    golds = np.bincount(group, weights=side[order] == 0, minlength=firsts.shape[0]).astype(np.int64)
    sizes = np.diff(np.append(firsts, n))
    rank = np.arange(n) - firsts[group]
    is_gold = side[order] == 0
    take = np.flatnonzero(is_gold & (rank < sizes[group] - golds[group]))
    partner = firsts[group[take]] + golds[group[take]] + rank[take]
    return order[take], order[partner] - n_gold


def categorize_columns(
    gold: tuple[Any, Any, Any, Any], pred: tuple[Any, Any, Any, Any]
) -> MentionErrors:
    """:func:`categorize` of every document at once, for continuous mentions given as columns
    (document, start, end, type rank: ranks ordered as the type names are; rows of one
    document together and in its order).  The pairing is :func:`categorize`'s, done with array
    operations: equal spans of the same type (the k-th gold mention of a span and type with the
    k-th prediction), equal spans of another type (by type, then position), then overlapping
    spans greedily by (another type, most shared characters, gold span and type, predicted span
    and type, positions), where a pair no other candidate touches is taken at once and the
    others in that order.

    >>> import numpy as np
    >>> g = tuple(np.array(c) for c in ([0, 0], [0, 10], [5, 20], [0, 1]))
    >>> p = tuple(np.array(c) for c in ([0, 0, 0], [0, 8, 30], [5, 20, 31], [1, 1, 0]))
    >>> e = categorize_columns(g, p)
    >>> [CATEGORIES[c] for c in e.gold_category], e.gold_partner.tolist(), SIDES[e.gold_side[1]]
    (['type', 'boundary'], [0, 1], 'left+')
    >>> [CATEGORIES[c] for c in e.pred_category]
    ['type', 'boundary', 'spurious']
    """
    import numpy as np

    g_doc, g_start, g_end, g_type = (np.asarray(c, dtype=np.int64) for c in gold)
    p_doc, p_start, p_end, p_type = (np.asarray(c, dtype=np.int64) for c in pred)
    n_gold, n_pred = g_doc.shape[0], p_doc.shape[0]
    gold_category = np.full(n_gold, MISSED, dtype=np.int8)
    pred_category = np.full(n_pred, SPURIOUS, dtype=np.int8)
    gold_partner = np.full(n_gold, -1, dtype=np.int64)
    pred_partner = np.full(n_pred, -1, dtype=np.int64)
    gold_side = np.zeros(n_gold, dtype=np.int8)

    def pair(g_rows: Any, p_rows: Any, category: Any) -> None:
        gold_category[g_rows] = category
        pred_category[p_rows] = category
        gold_partner[g_rows] = p_rows
        pred_partner[p_rows] = g_rows

    g_all, p_all = np.arange(n_gold), np.arange(n_pred)
    zeros_g, zeros_p = np.zeros(n_gold, np.int64), np.zeros(n_pred, np.int64)
    # equal spans, the same type
    gi, pj = _paired_runs(
        [g_doc, g_start, g_end, g_type], [p_doc, p_start, p_end, p_type], zeros_g, zeros_p
    )
    pair(g_all[gi], p_all[pj], CORRECT)
    # equal spans, another type (what is left of a span has one side's types only)
    g_free = np.flatnonzero(gold_partner < 0)
    p_free = np.flatnonzero(pred_partner < 0)
    gi, pj = _paired_runs(
        [g_doc[g_free], g_start[g_free], g_end[g_free]],
        [p_doc[p_free], p_start[p_free], p_end[p_free]],
        g_type[g_free],
        p_type[p_free],
    )
    pair(g_free[gi], p_free[pj], TYPE)
    # overlapping spans
    g_free = np.flatnonzero((gold_partner < 0) & (g_end > g_start))
    p_free = np.flatnonzero((pred_partner < 0) & (p_end > p_start))
    if g_free.size and p_free.size:
        n_docs = int(max(g_doc.max(), p_doc.max())) + 1
        extent = np.zeros(n_docs, dtype=np.int64)
        np.maximum.at(extent, g_doc[g_free], g_end[g_free])
        np.maximum.at(extent, p_doc[p_free], p_end[p_free])
        longest = int((p_end[p_free] - p_start[p_free]).max())
        offset = np.cumsum(extent + longest + 2) - (extent + longest + 2)
        key = p_start[p_free] + offset[p_doc[p_free]]
        by_key = np.argsort(key, kind="stable")
        key = key[by_key]
        base = offset[g_doc[g_free]]
        lo = np.searchsorted(key, g_start[g_free] - longest + 1 + base, "left")
        hi = np.searchsorted(key, g_end[g_free] + base, "left")
        sizes = hi - lo
        cand_g = g_free[np.repeat(np.arange(g_free.shape[0]), sizes)]
        firsts = np.cumsum(sizes) - sizes
        at = np.repeat(lo - firsts, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)
        cand_p = p_free[by_key[at]]
        shared = np.minimum(g_end[cand_g], p_end[cand_p]) - np.maximum(
            g_start[cand_g], p_start[cand_p]
        )
        keep = shared > 0
        cand_g, cand_p, shared = cand_g[keep], cand_p[keep], shared[keep]
        other = g_type[cand_g] != p_type[cand_p]
        order = np.lexsort(
            [
                cand_p,
                cand_g,
                p_type[cand_p],
                p_end[cand_p],
                p_start[cand_p],
                g_type[cand_g],
                g_end[cand_g],
                g_start[cand_g],
                -shared,
                other,
                g_doc[cand_g],
            ]
        )
        cand_g, cand_p = cand_g[order], cand_p[order]
        alone = (np.bincount(cand_g, minlength=n_gold)[cand_g] == 1) & (
            np.bincount(cand_p, minlength=n_pred)[cand_p] == 1
        )
        taken_g, taken_p = list(cand_g[alone].tolist()), list(cand_p[alone].tolist())
        used_g: set[int] = set()
        used_p: set[int] = set()
        for i, j in zip(cand_g[~alone].tolist(), cand_p[~alone].tolist(), strict=True):
            if i not in used_g and j not in used_p:
                used_g.add(i)
                used_p.add(j)
                taken_g.append(i)
                taken_p.append(j)
        rows_g = np.array(taken_g, dtype=np.int64)
        rows_p = np.array(taken_p, dtype=np.int64)
        different = g_type[rows_g] != p_type[rows_p]
        pair(rows_g, rows_p, np.where(different, TYPE_BOUNDARY, BOUNDARY))
        left = np.sign(g_start[rows_g] - p_start[rows_p])  # 1: extended, -1: shrunk
        right = np.sign(p_end[rows_p] - g_end[rows_g])
        gold_side[rows_g] = 3 * np.where(left < 0, 2, left) + np.where(right < 0, 2, right)
    return MentionErrors(gold_category, gold_partner, gold_side, pred_category, pred_partner)


def categorize_mentions(gold: Sequence[Item], pred: Sequence[Item]) -> MentionErrors:
    """:func:`categorize` of one document as :class:`MentionErrors` (rows: positions in
    ``gold`` and ``pred``); for mentions of any shape (discontinuous ones too)."""
    import numpy as np

    errors = MentionErrors(
        np.full(len(gold), MISSED, dtype=np.int8),
        np.full(len(gold), -1, dtype=np.int64),
        np.zeros(len(gold), dtype=np.int8),
        np.full(len(pred), SPURIOUS, dtype=np.int8),
        np.full(len(pred), -1, dtype=np.int64),
    )
    number = {c: k for k, c in enumerate(CATEGORIES)}
    for item in categorize(gold, pred):
        if item.gold is not None and item.pred is not None:
            errors.gold_category[item.gold] = errors.pred_category[item.pred] = number[
                item.category
            ]
            errors.gold_partner[item.gold] = item.pred
            errors.pred_partner[item.pred] = item.gold
            if item.side:
                errors.gold_side[item.gold] = SIDES.index(item.side)
    return errors
