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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.scale.chunks import LineChunk, Wrap
from annoscore.scale.cut_json import _Lines
from annoscore.scale.cut_lines import _mapped, _regular_pair

if TYPE_CHECKING:
    from annoscore.formats.conll_bio import TagColumns

_CUT = re.compile(rb"\n\n-DOCSTART-(?=[ \t\n])")
"""A ``-DOCSTART-`` line after a blank line (the cut is before the ``-``)."""
_DOCSTART = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?-DOCSTART-(?=[ \t\r\n]|\Z)")


def _docstarts(data: Any, start: int, stop: int) -> int:
    """The ``-DOCSTART-`` lines between ``start`` (a line's start) and ``stop`` (as the bytes
    show them: checked against the chunks' readers, :func:`chained`)."""
    return sum(1 for _ in _DOCSTART.finditer(data, start, stop))


def split_tag_files(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """Two tag files cut into at most ``parts`` chunks (more for a large gold file) before
    ``-DOCSTART-`` lines that follow a blank line: each gold cut the first such line after an
    even share of the bytes whose line in the system file is one too (the next ones
    otherwise).  ``None`` when the files are not two distinct regular files of
    :data:`~annoscore.scale.cut_lines.MIN_LINE_BYTES` or more together, or give one chunk."""
    parts = _regular_pair(gold, system, parts)
    if not parts:
        return None
    with _mapped(gold, system) as (gold_data, system_data):
        size = len(gold_data)
        gold_lines, system_lines = _Lines(gold_data), _Lines(system_data)
        cuts: list[tuple[int, int, int]] = []  # gold offset, system offset, lines before
        last = (0, 0)
        for n in range(1, parts):
            at = max(size * n // parts, last[0] + 1) - 2
            for _ in range(16):  # the next documents when the system's line is not one
                found = _CUT.search(gold_data, max(0, at))
                if found is None:
                    break
                start = found.start() + 2
                at = start
                line = gold_lines.number(start)
                where = system_lines.start(line)
                if (
                    where > last[1]
                    and start > last[0]
                    and system_data[where - 2 : where] == b"\n\n"
                    and _CUT.match(system_data, where - 2) is not None
                ):
                    last = (start, where)
                    cuts.append((start, where, line - 1))
                    break
        if not cuts:
            return None
        chunks = []
        begins = [(0, 0, 0), *cuts]
        ends = [*((c[0], c[1]) for c in cuts), (size, len(system_data))]
        documents = [0, 0]
        for (g, s, lines), (g_end, s_end) in zip(begins, ends, strict=True):
            chunks.append(
                LineChunk(
                    str(gold),
                    str(system),
                    (g, g_end),
                    (s, s_end),
                    lines,
                    lines,
                    Wrap(b"", b"", None, documents[0]),
                    Wrap(b"", b"", None, documents[1]),
                )
            )
            documents[0] += _docstarts(gold_data, g, g_end)
            documents[1] += _docstarts(system_data, s, s_end)
    return chunks


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
    chunks before it, and their token lines have as many fields.

    >>> chained([TagChunk(0, 2, True, 4), TagChunk(2, 1, True, 4)])
    True
    >>> chained([TagChunk(0, 2, True, 4), TagChunk(3, 1, True, 4)])
    False
    """
    before = 0
    for k, side in enumerate(sides):
        if side.before != before or (k and not side.begins) or side.fields != sides[0].fields:
            return False
        before += side.found
    return True
