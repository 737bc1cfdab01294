"""Chunks of BIO-style tag sequences as seqeval's default mode (``get_entities``) reads them:
the decoding both ``annoscore seqeval`` (:mod:`annoscore.metrics.seqeval`) and the BIO reader
of :mod:`annoscore.formats.annotations` use (tags become spans at the door).

A tag's prefix is its first character and its type what follows the first hyphen after it
(``B-X``: ``B``, ``X``; a bare ``PER`` reads as ``P``, ``ER``; no type reads as ``_``).  Between
the previous tag ``p`` and the current one ``c``, a chunk **ends** after ``p`` when ``p`` is E or
S, at B→B, B→S, B→O, I→B, I→S, I→O, or when the type changes and ``p`` is not O or ``.``; a
chunk **starts** at ``c`` when ``c`` is B or S, at E→E, E→I, S→E, S→I, O→E, O→I, or when the
type changes and ``c`` is not O or ``.``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annoscore.arrays import IntArray


Entity = tuple[str, int, int]
"""(type, first token, end token exclusive), tokens numbered over the whole corpus."""

_DEFAULT_ENDS = frozenset({("B", "B"), ("B", "S"), ("B", "O"), ("I", "B"), ("I", "S"), ("I", "O")})
_DEFAULT_STARTS = frozenset(
    {("E", "E"), ("E", "I"), ("S", "E"), ("S", "I"), ("O", "E"), ("O", "I")}
)


def default_parts(tag: str) -> tuple[str, str]:
    """Prefix and type of a tag as seqeval's default mode reads it.

    >>> default_parts("B-DNA-binding"), default_parts("PER"), default_parts("O")
    (('B', 'DNA-binding'), ('P', 'ER'), ('O', '_'))
    """
    return tag[0], tag[1:].split("-", 1)[-1] or "_"


def default_entities(tags: Sequence[str]) -> list[Entity]:
    """seqeval's ``get_entities`` of one joined sequence (sentences already joined with ``O``),
    end exclusive (the entities :func:`annoscore.metrics.seqeval.default_mode_item_counts`
    counts, on a single sequence).

    >>> default_entities(["B-X", "E-X", "B-X", "E-X", "S-Y", "S-Y"])
    [('X', 0, 2), ('X', 2, 4), ('Y', 4, 5), ('Y', 5, 6)]
    """
    from annoscore.formats.tag_codes import tag_codes

    names, (codes,) = tag_codes(tags)
    found = _default_entity_arrays(codes, names)
    kinds = list(dict.fromkeys(_types(names)))
    return [(kinds[t], int(b), int(e)) for t, b, e in zip(*found, strict=True)]


def _types(names: list[str]) -> list[str]:
    """The type of each distinct tag, then of the separator ``O`` and of the start (type codes
    index these with repeats removed, in first-seen order)."""
    return [default_parts(name)[1] for name in names] + ["_", ""]


def _default_entity_arrays(
    codes: IntArray, names: list[str], first: int = 0, separators: IntArray | None = None
) -> tuple[IntArray, ...]:
    """(type code, begin, end) of the entities of a joined sequence of tag codes (indices into
    ``names``; ``len(names)`` is a separator ``O``); type codes index :func:`_types`.

    The end and start decisions of each (previous, current) pair of distinct tags are tabled
    once; an entity ends at each item where a chunk ends (and after the last, before a final
    ``O``), typed by the item before it, and begins at the last item before it where a chunk
    started (``first`` if none: seqeval's first offset).  ``first``: the first token, read as
    the start of the sequence (the items before it must be separators: they end and start
    nothing), so a sequence may begin with separators.  ``separators``: more items read as
    separators, whatever their codes.

    >>> import numpy as np
    >>> names = ["B-X", "I-X", "O"]
    >>> [a.tolist() for a in _default_entity_arrays(np.array([3, 3, 0, 1, 3, 0]), names, 2)]
    [[0, 0], [2, 5], [4, 6]]
    """
    import numpy as np

    parts = [default_parts(name) for name in names] + [("O", "_"), ("O", "")]
    n_parts = len(parts)
    ends = np.zeros((n_parts, n_parts), dtype=bool)
    starts = np.zeros((n_parts, n_parts), dtype=bool)
    for a, (p, pt) in enumerate(parts):
        for b, (c, ct) in enumerate(parts):
            ends[a, b] = p in "ES" or (p, c) in _DEFAULT_ENDS or (p not in "O." and pt != ct)
            starts[a, b] = c in "BS" or (p, c) in _DEFAULT_STARTS or (c not in "O." and pt != ct)
    separator, initial = n_parts - 2, n_parts - 1
    small = np.int16 if n_parts * n_parts < 1 << 15 else np.int64
    current = np.empty(len(codes) + 1, dtype=small)
    current[:-1] = codes
    current[-1] = separator
    if separators is not None:
        current[separators] = separator
    previous = np.empty_like(current)
    previous[1:] = current[:-1]
    previous[: first + 1] = initial
    pair = np.multiply(previous, n_parts, dtype=np.intp)
    pair += current
    end_at = np.flatnonzero(ends.ravel()[pair])
    started = starts.ravel()[pair]
    start_at = np.flatnonzero(started)
    # the starts before each end (no end at item 0: the initial tag ends nothing)
    before = np.cumsum(started, dtype=np.int32 if len(started) < 1 << 31 else np.int64)
    begin = np.concatenate(([first], start_at))[before[end_at - 1]]  # none: seqeval's offset 0
    kinds = _types(names)
    type_index = {kind: k for k, kind in enumerate(dict.fromkeys(kinds))}
    type_of = np.array([type_index[kind] for kind in kinds], dtype=np.int64)
    return type_of[previous[end_at]], begin, end_at
