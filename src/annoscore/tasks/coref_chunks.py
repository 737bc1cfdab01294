"""The warnings of ``annoscore coref`` on chunks of its two files, pooled as one run makes them
(:mod:`annoscore.scale`; the files are cut before ``#begin document`` lines by
:func:`~annoscore.scale.cut_json.split_marked`).

One run's warnings, in order: what the reader tolerated in the key (a byte-order mark, carriage
returns, lines outside documents, split antecedents, unreadable cells, an unclosed document,
repeated names), the same of the response, the unpaired documents of each side, then the
repeated mentions (key repeats, response repeats dropped, response repeats kept).  Each is a
count with the first few places in file order, so pooled in the chunks' order (file order, on
each side) with :func:`~annoscore.score_warnings.merge_warnings` they are one run's.  An input is
scored in one run instead when a chunk's warning means something else in the whole file: a document
left open before the last chunk (one run reports a ``#begin document`` inside it as an error),
a chunk's response without documents (one run: the response's documents are elsewhere), or a
warning of another kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.score_warnings import ScoreWarning, merge_warnings

READER = (
    "formats.bom",
    "coref.carriage_return",
    "coref.outside_document",
    "coref.split_antecedent",
    "coref.unreadable_cell",
    "coref.unclosed_document",
    "coref.repeated_document",
)
"""The reader's warnings of one file, in the order it gives them."""

AFTER = (
    "documents.gold-only",
    "documents.system-only",
    "coref.key_repeat",
    "coref.response_repeat",
    "coref.response_repeat_kept",
)
"""The warnings after both files' reader warnings, in one run's order."""


def _rank(warning: ScoreWarning, key: str) -> int | None:
    """Where ``warning`` stands in one run's list (``None``: a kind not pooled)."""
    if warning.code in READER:
        if warning.code == "formats.bom":
            side = 0 if key in warning.examples else 1
        else:
            side = 1 if "the response " in warning.message else 0
        return side * len(READER) + READER.index(warning.code)
    if warning.code in AFTER:
        return 2 * len(READER) + AFTER.index(warning.code)
    return None


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (``warned``, in chunk order; ``kept``: each chunk's
    key and response paths); ``None`` when they cannot be pooled (the module doc)."""
    if not kept or not kept[0]:
        return None
    key = kept[0][0][0]
    items: list[tuple[int, int, int, ScoreWarning]] = []
    for c, warnings in enumerate(warned):
        for n, warning in enumerate(warnings):
            rank = _rank(warning, key)
            if rank is None:
                return None
            if warning.code == "coref.unclosed_document" and c < len(warned) - 1:
                return None
            items.append((rank, c, n, warning))
    items.sort(key=lambda item: item[:3])
    return list(merge_warnings(item[3] for item in items))
