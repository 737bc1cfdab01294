"""Token-span overlap and the one-to-one mention alignment of ARE tasks 3 and 4.

A mention is a pair of token *positions* ``(first, last)``, inclusive: the positions of its start
and end ``<node>`` in the input text (``../shared/spec/are.md``, decision 8: lengths are counted
in the order of the input's nodes, never by id arithmetic).

**Overlap** (the seed's measure)::

    overlap(s1, s2) = |positions shared by s1 and s2| / max(len(s1), len(s2))

lengths in tokens.  "the government of Zair" vs "the government" shares 2 of max(4, 2) tokens:
0.5; "the government of Zair" vs "Zair's government" (another place in the text) shares none: 0,
whatever the words.

>>> overlap((10, 13), (10, 11))      # the government of Zair / the government
0.5
>>> overlap((10, 13), (20, 21))      # the government of Zair / Zair's government
0.0
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence

from annoscore.align.assignment import max_weight_matching

Mention = tuple[int, int]
"""A mention: the positions of its first and last token, inclusive."""


def overlap(first: Mention, second: Mention) -> float:
    """The seed's overlap: shared token positions over the longer mention's length (see above)."""
    shared = min(first[1], second[1]) - max(first[0], second[0]) + 1
    if shared <= 0:
        return 0.0
    return shared / max(first[1] - first[0] + 1, second[1] - second[0] + 1)


def overlapping_pairs(
    rows: Sequence[Mention], columns: Sequence[Mention]
) -> list[tuple[int, int, float]]:
    """Every ``(row index, column index, overlap)`` with overlap > 0.

    A sweep, not a comparison of every pair: the columns sorted by first position, each row
    looks only at the columns that start between ``row first - longest column + 1`` and ``row
    last`` (binary search), so mentions far apart are never compared.
    """
    order = sorted(range(len(columns)), key=columns.__getitem__)
    starts = [columns[j][0] for j in order]
    reach = max((last - first for first, last in columns), default=0)
    edges = []
    for i, (first, last) in enumerate(rows):
        length = last - first + 1
        for k in range(bisect_left(starts, first - reach), bisect_right(starts, last)):
            j = order[k]
            other_first, other_last = columns[j]
            if other_last >= first:
                shared = min(last, other_last) - max(first, other_first) + 1
                edges.append((i, j, shared / max(length, other_last - other_first + 1)))
    return edges


def align_mentions(gold: Sequence[Mention], system: Sequence[Mention]) -> list[tuple[int, int]]:
    """The one-to-one alignment of gold to system mentions that maximises the total overlap.

    Returns ``(gold index, system index)`` pairs; pairs with overlap 0 are never made.  It is the
    project's optimal assignment (:func:`annoscore.align.assignment.max_weight_matching`), keyed
    by the mentions themselves (first, then last position), so among several optimal alignments
    the one chosen depends only on where the mentions are, never on the order of the input.

    >>> align_mentions([(0, 3), (5, 5)], [(0, 1), (5, 5), (2, 3)])
    [(0, 0), (1, 1)]
    """
    edges = overlapping_pairs(gold, system)
    row_edges = Counter([i for i, _, _ in edges])
    column_edges = Counter([j for _, j, _ in edges])
    # a pair of mentions that touch only each other is a component of its own, which the
    # assignment would match as it is: match it here and give the assignment the rest
    alone = [row_edges[i] == 1 and column_edges[j] == 1 for i, j, _ in edges]
    direct = [(i, j) for (i, j, _), single in zip(edges, alone, strict=True) if single]
    if len(direct) == len(edges):
        return sorted(direct)
    matched = max_weight_matching(
        (gold[i], system[j], w)
        for (i, j, w), single in zip(edges, alone, strict=True)
        if not single
    )
    gold_index = {mention: i for i, mention in enumerate(gold)}
    system_index = {mention: j for j, mention in enumerate(system)}
    return sorted(direct + [(gold_index[g], system_index[s]) for g, s in matched])
