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
