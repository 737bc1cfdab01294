"""``annoscore seqeval`` on chunks of two tag files (:mod:`annoscore.scale.cut_tags`): the
warnings of one run made of the chunks'.

One run's warnings, in order: a byte-order mark (the first chunk's: no later chunk begins a
file), then bare labels (default mode: counts added; the first examples the gold side's
first, over every chunk, then the system side's; the tag shown the first gold one's) or
ill-formed sequences (strict mode, each side: counts added, examples in chunk order).  A
scheme detected from the gold tags (strict mode without ``--scheme``) must be the one each
chunk detected from its own: the union of the chunks' gold prefixes is detected once, and a
chunk that detected another scheme (or none: it raised) makes the input be scored in one
run.  The chunks must read as the whole files do (:func:`~annoscore.scale.cut_tags.chained`);
a warning of another kind, or anything else kept, makes the input be scored in one run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.scale.cut_tags import TagChunk, chained, pooled_in_order
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

ORDER = (
    "formats.bom",
    "seqeval.bare-labels",
    "seqeval.ill-formed-gold",
    "seqeval.ill-formed-predicted",
)


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (the module doc); ``None`` when the chunks do not
    read as the whole files, detected another scheme, or warned of another kind."""
    from annoscore.tasks.seqeval import BareTags, GoldPrefixes, bare_warning, detected

    sides: list[list[TagChunk]] = [[], []]
    bare: list[tuple[BareTags, BareTags]] = []
    prefixes: list[frozenset[str]] = []
    for items in kept:
        for item in items:
            if isinstance(item, GoldPrefixes):
                prefixes.append(item.prefixes)
            elif isinstance(item, tuple) and all(isinstance(s, TagChunk) for s in item):
                sides[0].append(item[0])
                sides[1].append(item[1])
            elif isinstance(item, tuple) and all(isinstance(s, BareTags) for s in item):
                bare.append(item)
            else:
                return None
    if len(sides[0]) != len(kept) or not (chained(sides[0]) and chained(sides[1])):
        return None
    if prefixes:  # every chunk detected the scheme of the whole's gold prefixes
        scheme = detected(frozenset().union(*prefixes))
        if len(prefixes) != len(kept) or any(detected(p) is not scheme for p in prefixes):
            return None

    def made(code: str, count: int, examples: tuple[str, ...]) -> ScoreWarning | None:
        if code != "seqeval.bare-labels":
            return None
        both = [  # each side's tags over the chunks, the first examples the gold side's
            BareTags(
                sum(s.count for s in side),
                [e for s in side for e in s.first][:EXAMPLES_SHOWN],
                next((s.tag for s in side if s.count), ""),
            )
            for side in zip(*bare, strict=True)
        ]
        return bare_warning(*both)

    return pooled_in_order(warned, ORDER, made)
