"""The warnings of CodiEsp D, P and X on chunks of their two files, pooled as one run makes
them (:mod:`annoscore.scale`; the files are cut at document boundaries by
:func:`~annoscore.scale.split_lines`).

One run's warnings, in order (before :meth:`~annoscore.result.Result.from_counts` merges those
of one code and message, and adds the undefined-score notes the reduce makes again): the
valid-code lists' reader warnings, the gold reader's (a byte-order mark, CSV quotes), the
predictions' reader's, then D/P: the numeric ids, an empty prediction file, the gold documents
without a valid prediction, the predicted documents not in the gold, the predicted codes not in
the valid list, the gold codes not in it, the depth cut-off, the duplicate predictions, the
duplicate gold lines, the lower-casing; X: the repeated gold pairs, the repeated valid
predicted pairs, an empty prediction file, the predicted codes not in the valid lists, the gold
codes not in them, the tolerance rule, the tolerance, the label, no valid prediction, the
lower-casing.

Pooled from the chunks (each keeps its warnings by group, :class:`Kept` and :class:`After`):
the lists' warnings (the same in every chunk: the first chunk's, once), the readers' CSV quotes
and the repeated lines (a count and the first lines, in file order: the chunks' in order,
counts added and examples capped by :func:`~annoscore.score_warnings.merge_warnings`), a byte-order
mark (of the first chunk only) and the predicted codes not in the valid list (counts added, the
first five distinct codes of the chunks' in order: each chunk's first five are enough). Every
other warning is made from the whole corpus (a MAP or F1 of the other setting, documents paired
across the files) or means something else in one chunk (an empty prediction range), so the
input is then scored in one run; so it is when a chunk has an invalid predicted code under
``--no-lowercase`` (the lower-casing warning then compares the whole's numbers, which may move
where no chunk's did; the other code that can move them, an upper-case gold code, is not in the
lower-cased valid list: its chunk warns of it, which is not pooled).  A chunk of a URL's bytes
names the URL in its warnings and in what it keeps, as one run does
(:func:`~annoscore.scale.score_line_chunk`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.align.codes import EXAMPLES
from annoscore.records import Record, set_fields
from annoscore.score_warnings import ScoreWarning, warned_as_kept
from annoscore.tasks.codiesp_warnings import invalid_text

READER = frozenset({"formats.bom", "codiesp.quotes"})
"""What a D/P/X file's reader may say of a chunk that one run says of the whole file."""

AFTER = (
    {"codiesp.duplicate-predictions": 4, "codiesp.duplicate-gold": 5},
    {"codiesp.collapsed-references": 3, "codiesp.collapsed-predictions": 4},
)
"""The group of each pooled warning after the readers' (D/P, then X)."""

INVALID = (3, 5)
"""The group of the predicted codes not in the valid list (D/P, then X)."""


class Kept(Record):
    """What a chunk's reading keeps (:func:`annoscore.scale.keep`): the warnings of the
    valid-code lists' reader, of the gold reader and of the predictions' reader; ``ranked``: D
    or P (not X)."""

    __slots__ = ("ranked", "lists", "gold", "pred")  # noqa: RUF023 (the order of the fields)
    ranked: bool
    lists: tuple[ScoreWarning, ...]
    gold: tuple[ScoreWarning, ...]
    pred: tuple[ScoreWarning, ...]

    def __init__(
        self,
        ranked: bool,
        lists: tuple[ScoreWarning, ...],
        gold: tuple[ScoreWarning, ...],
        pred: tuple[ScoreWarning, ...],
    ) -> None:
        set_fields(self, ranked=ranked, lists=lists, gold=gold, pred=pred)


class After(Record):
    """What a chunk's scoring keeps: its other warnings, in one run's order, and its predicted
    codes not in the valid list (``invalid``: how many, the first five distinct in file
    order)."""

    __slots__ = ("warnings", "invalid")  # noqa: RUF023 (the order of the fields)
    warnings: tuple[ScoreWarning | str, ...]
    invalid: tuple[int, tuple[str, ...]]

    def __init__(
        self, warnings: tuple[ScoreWarning | str, ...], invalid: tuple[int, tuple[str, ...]]
    ) -> None:
        set_fields(self, warnings=warnings, invalid=invalid)


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (``warned``: each chunk's, in chunk order, checked
    against what it kept; ``kept``: each chunk's :class:`Kept`); ``None`` when they cannot be
    pooled (the module doc)."""
    if not any(warned):  # no chunk warned: nothing to pool
        return []
    chunks: list[tuple[Kept, After]] = []
    for items, warnings in zip(kept, warned, strict=True):
        if len(items) != 2 or not isinstance(items[0], Kept) or not isinstance(items[1], After):
            return None
        read, after = items
        if not warned_as_kept((*read.lists, *read.gold, *read.pred, *after.warnings), warnings):
            return None
        chunks.append((read, after))
    if not chunks:
        return None
    first = chunks[0][0]
    ranked = first.ranked
    groups: list[list[ScoreWarning | str]] = [[] for _ in range(6)]
    groups[0] += first.lists
    count, examples = 0, list[str]()
    for c, (read, after) in enumerate(chunks):
        if read.ranked is not ranked or read.lists != first.lists:
            return None
        for side, said in ((1, read.gold), (2, read.pred)):
            for reader in said:
                if reader.code not in READER or (reader.code == "formats.bom" and c):
                    return None
                groups[side].append(reader)
        text = invalid_text(*after.invalid, ranked) if after.invalid[0] else None
        if text is not None and text not in after.warnings:
            return None
        for warning in after.warnings:
            if isinstance(warning, str):
                if warning != text:
                    return None
                continue
            at = AFTER[not ranked].get(warning.code)
            if at is None:
                return None
            groups[at].append(warning)
        count += after.invalid[0]
        examples += after.invalid[1]
    if count:
        if not options.lowercase:
            return None
        firsts = list(dict.fromkeys(examples))[:EXAMPLES]
        groups[INVALID[not ranked]].append(invalid_text(count, firsts, ranked))
    return [warning for group in groups for warning in group]
