"""CoNLL tag files cut before documents: one token a line, blank lines between sentences,
``-DOCSTART-`` lines beginning documents (``annoscore conlleval``: gold and system hold the same
tokens line for line).

A cut falls before a ``-DOCSTART-`` line that follows a blank line, in both files at the same
line: a blank line ends every phrase, as the start of a file does, so each chunk counts its
documents as the whole file does.  A chunk numbers its lines as the whole file does (the lines
before it counted: :attr:`~annoscore.scale.chunks.LineChunk.gold_line`) and names the documents
whose ``-DOCSTART-`` line gives no name by their place in the whole file (the parent counts
the ``-DOCSTART-`` lines before each cut: :attr:`~annoscore.scale.chunks.Wrap.documents`).

What the parent finds in the bytes is checked against what the chunks' readers found
(:func:`chained`): each chunk after the first begins with a ``-DOCSTART-`` document as its
reader splits the fields, the documents before each chunk are those the chunks before it
found, and every chunk's token lines have as many fields as the first's (a file whose lines
differ is an error of one run).  Otherwise the input is scored in one run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.scale.chunks import LineChunk, Wrap
from annoscore.scale.cut_lines import _Lines, _mapped, split_pair
from annoscore.score_warnings import EXAMPLES_SHOWN

if TYPE_CHECKING:
    from annoscore.formats.conll_bio import TagColumns
    from annoscore.score_warnings import ScoreWarning

_CUT = re.compile(rb"\n\n-DOCSTART-(?=[ \t\n])")
"""A ``-DOCSTART-`` line after a blank line (the cut is before the ``-``)."""
_DOCSTART = b"-DOCSTART-"
"""The word of a ``-DOCSTART-`` line (:func:`docstart_lines` checks where its line begins)."""
_AFTER = (b" ", b"\t", b"\r", b"\n")
"""What may follow the word on a ``-DOCSTART-`` line (or the end)."""
_BOM = b"\xef\xbb\xbf"


def docstart_lines(data: Any, start: int, stop: int) -> int:
    """How many lines of ``data[start:stop]`` (``start`` a line's start) begin with the field
    ``-DOCSTART-`` (after a byte-order mark, maybe): what a multi-line pattern
    ``^(?:BOM)?-DOCSTART-(?=[ \\t\\r\\n]|\\Z)`` finds, found by searching for the word (a
    literal search: the pattern tried at every line start cost 1.5 s of the parent's time on
    a 63 MB file; a literal pattern's search 0.03 s on a 44 MB file, ``find`` 0.02 s) and
    checking its line's start and the byte after it.

    >>> data = b"-DOCSTART-\\nx -DOCSTART-\\n\\xef\\xbb\\xbf-DOCSTART- a\\n-DOCSTART-x\\n-DOCSTART-"
    >>> docstart_lines(data, 0, len(data)), docstart_lines(data, 11, len(data) - 2)
    (3, 1)
    >>> docstart_lines(b"-DOCSTART--DOCSTART- a", 0, 22), docstart_lines(b"-DOCSTART-\\n", 0, 10)
    (0, 1)
    """
    count = 0
    width = len(_DOCSTART)
    at = data.find(_DOCSTART, start, stop)
    while at >= 0:
        end = at + width
        if end == stop or data[end : end + 1] in _AFTER:
            line = at - 3 if at - 3 >= start and data[at - 3 : at] == _BOM else at
            if line == 0 or data[line - 1 : line] == b"\n":
                count += 1
        at = data.find(_DOCSTART, at + 1, stop)
    return count


def split_tag_files(
    gold: Path, system: Path, parts: int, alone: bool = False
) -> list[LineChunk] | None:
    """Two tag files cut before ``-DOCSTART-`` lines that follow a blank line, at the same line
    in both files (:func:`~annoscore.scale.cut_lines.split_pair`; ``alone``: one file given
    twice, conlleval's layout of both sides: :func:`split_tag_file`)."""

    def searches(gold_data: Any, system_data: Any) -> Any:
        gold_lines, system_lines = _Lines(gold_data), _Lines(system_data)
        starts: dict[int, int] = {}  # the gold offset of each line found (one file: its own)

        def docstart(at: int, low: int) -> tuple[int, int, int] | None:
            found = _CUT.search(gold_data, max(0, at - 2))
            if found is None:
                return None
            start = found.start() + 2
            line = gold_lines.number(start)
            starts[line] = start
            return start, start + 2, line

        def same(line: int, after: int, near: int) -> int:
            where = starts[line] if alone else system_lines.start(line)
            if where > after and _CUT.match(system_data, where - 2) is not None:
                return where
            return -1

        return ((0, len(gold_data)), (0, len(system_data))), docstart, same

    cut = split_pair(gold, system, parts, searches, alone=alone)
    if cut is None:
        return None
    chunks, lines = cut
    documents = [0, 0]  # named by position, before each chunk (as the bytes show them:
    found = []  # checked against the chunks' readers, chained)
    with _mapped(gold, system) as data:
        for chunk, line in zip(chunks, [1, *lines], strict=True):
            wraps = [Wrap(b"", b"", None, n) for n in documents]
            found.append(replace(chunk, gold_line=line - 1, system_line=line - 1))
            found[-1] = replace(found[-1], gold_wrap=wraps[0], system_wrap=wraps[1])
            counted = docstart_lines(data[0], *chunk.gold_range)
            documents[0] += counted
            documents[1] += counted if alone else docstart_lines(data[1], *chunk.system_range)
    return found


def split_tag_file(path: Path, same: Path, parts: int) -> list[LineChunk] | None:
    """One tag file holding gold and system tags (conlleval's layout; ``same`` is ``path``)
    cut as :func:`split_tag_files` cuts two: each chunk's two ranges are one."""
    return split_tag_files(path, same, parts, alone=True)


@dataclass(frozen=True, slots=True)
class TagChunk:
    """What a chunk's reader found of one side: the documents named by position before it (as
    the parent counted them), the ``-DOCSTART-`` documents in it, whether it begins with one,
    and the fields of its token lines."""

    before: int
    found: int
    begins: bool
    fields: int


def tag_chunk(path: Path, columns: TagColumns) -> TagChunk | None:
    """The :class:`TagChunk` of the chunk of ``path`` being read (``None`` outside a chunk)."""
    from annoscore.formats.files import cut_of

    cut = cut_of(path)
    if cut is None:
        return None
    documents = columns.documents
    found = sum(1 for d in documents if d.line)  # "0": the tokens before the first -DOCSTART-
    begins = bool(documents) and documents[0].start == 0 and documents[0].line > 0
    return TagChunk(cut.documents, found, begins, columns.fields)


def chained(sides: Sequence[TagChunk]) -> bool:
    """Whether the chunks of one side (in order) read as the whole file: each after the first
    begins with a ``-DOCSTART-`` document, the documents before each are those found by the
    chunks before it, their token lines have as many fields, and each holds a ``-DOCSTART-``
    document (a first chunk of the tokens before the first one alone names them by the file,
    the whole file ``0``).

    >>> chained([TagChunk(0, 2, True, 4), TagChunk(2, 1, True, 4)])
    True
    >>> chained([TagChunk(0, 2, True, 4), TagChunk(3, 1, True, 4)])
    False
    >>> chained([TagChunk(0, 0, False, 4), TagChunk(0, 1, True, 4)])
    False
    """
    before = 0
    for k, side in enumerate(sides):
        if side.before != before or (k and not side.begins) or side.fields != sides[0].fields:
            return False
        if len(sides) > 1 and not side.found:
            return False
        before += side.found
    return True


def pooled_in_order(
    warned: Sequence[Sequence[ScoreWarning]],
    order: Sequence[str],
    made: Callable[[str, int, tuple[str, ...]], ScoreWarning | None],
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the warnings of tag chunks (``warned``, in chunk order): one a
    code of ``order``, in that order, its counts added and its first examples in chunk order,
    made by ``made(code, count, examples)`` (``None``: the first chunk's warning with them);
    ``None`` for a code not in ``order`` or a byte-order mark after the first chunk."""
    grouped: dict[str, list[ScoreWarning]] = {}
    for k, warnings in enumerate(warned):
        for warning in warnings:
            if warning.code not in order or (warning.code == "formats.bom" and k):
                return None
            grouped.setdefault(warning.code, []).append(warning)
    out: list[ScoreWarning | str] = []
    for code in order:
        if found := grouped.get(code):
            count = sum(w.count for w in found)
            examples = tuple(e for w in found for e in w.examples)[:EXAMPLES_SHOWN]
            out.append(
                made(code, count, examples) or replace(found[0], count=count, examples=examples)
            )
    return out
