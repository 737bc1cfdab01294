"""``annoscore conlleval`` on chunks of two tag files (:mod:`annoscore.scale.cut_tags`): the
warnings of one run made of the chunks', and their details joined.

One run's warnings, in order: carriage returns, bare labels, IOBES tags, ``-DOCSTART-`` lines
(each a count over every token and its first examples in file order: counts added, examples
in chunk order, the first shown; the accuracy without ``-DOCSTART-`` lines from the chunks'
tokens, :class:`~annoscore.tasks.conlleval.DocstartTokens`), then a byte-order mark (the first
chunk's: no later chunk begins a file).  The chunks must read as the whole files do
(:func:`~annoscore.scale.cut_tags.chained`); a warning of another kind, or anything else kept,
makes the input be scored in one run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.metrics.conlleval import ConllevalDetails
from annoscore.scale.cut_tags import TagChunk, chained, pooled_in_order
from annoscore.score_warnings import ScoreWarning

ORDER = (
    "conlleval.crlf",
    "conlleval.bare-labels",
    "conlleval.iobes",
    "conlleval.docstart",
    "formats.bom",
)


def joined_details(details: Sequence[Any], order: Sequence[int]) -> ConllevalDetails:
    """The types seen on each side by any chunk (the whole's)."""
    return ConllevalDetails(
        frozenset().union(*(d.gold_types for d in details)),
        frozenset().union(*(d.guessed_types for d in details)),
    )


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (the module doc); ``None`` when the chunks do not
    read as the whole files or warned of another kind."""
    from annoscore.tasks.conlleval import DocstartTokens, docstart_warning

    sides: list[list[TagChunk]] = [[], []]
    tokens = right = 0
    for items in kept:
        chunk = [item for item in items if isinstance(item, tuple)]
        if len(chunk) != 1 or not all(isinstance(side, TagChunk) for side in chunk[0]):
            return None
        for n, side in enumerate(chunk[0]):
            sides[n].append(side)
        counted = [item for item in items if isinstance(item, DocstartTokens)]
        if len(counted) != 1 or len(items) != 2:
            return None
        tokens, right = tokens + counted[0].tokens, right + counted[0].right
    if not (chained(sides[0]) and chained(sides[1])):
        return None

    def made(code: str, count: int, examples: tuple[str, ...]) -> ScoreWarning | None:
        if code != "conlleval.docstart":
            return None
        return docstart_warning(count, tokens, right, examples)

    return pooled_in_order(warned, ORDER, made)
