"""The tag columns of a CoNLL-style file as codes, what seqeval's default mode counts
(:class:`TagCodes`): a fast scan of the bytes of the common file (:func:`_scan_tag_codes`: tags
of at most eight bytes, each packed into one 64-bit word, equal words equal tags, no hash), else
the checked reader of :mod:`annoscore.formats.conll_bio` with whitespace as the delimiter (which
names file and line in its errors), its columns numbered (:func:`tag_codes_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.formats.conll_bio import (
    BOUNDARY,
    DOCSTART,
    Document,
    TagColumns,
    positions_of,
    read_tag_text,
    read_tags,
)
from annoscore.formats.files import reading, without_bom
from annoscore.records import Fields

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, ByteArray, IntArray, WordArray


class TagCodes(Fields):
    """The tag columns of a tag file read with whitespace as the delimiter (as
    :func:`read_tags` with ``delimiter=None`` reads them), each tag as a code: item ``i``'s tag
    in the ``k``-th column asked for is ``tags[codes[k][i]]`` (``"O"`` at a boundary).

    ``tags``: the distinct tags in the order they are first seen, the first column's items
    before the second's; ``boundary[i]``: item ``i`` is a blank or ``-X-`` line; ``docstart[i]``:
    a ``-DOCSTART-`` line; item ``i`` is line ``i + 1``; ``documents`` and ``bom`` as in
    :class:`TagColumns`.
    """

    # plain fields: a dataclass costs ``annoscore seqeval``'s start-up its code
    __slots__ = ("bom", "boundary", "codes", "docstart", "documents", "path", "tags")
    path: str
    tags: list[str]
    codes: tuple[IntArray, ...]
    boundary: BoolArray
    docstart: BoolArray
    documents: list[Document]
    bom: bool

    def __len__(self) -> int:
        return len(self.boundary)


def tag_codes(*columns: Sequence[str]) -> tuple[list[str], tuple[IntArray, ...]]:
    """The distinct tags of ``columns`` (first seen, column after column) and each column as
    codes into them.

    >>> tags, (a, b) = tag_codes(["O", "B-X"], ["B-Y", "O"])
    >>> tags, a.tolist(), b.tolist()
    (['O', 'B-X', 'B-Y'], [0, 1], [2, 0])
    """
    import numpy as np

    tags = list(dict.fromkeys(chain.from_iterable(columns)))
    index = {tag: k for k, tag in enumerate(tags)}
    return tags, tuple(
        np.fromiter(map(index.__getitem__, column), dtype=np.int64, count=len(column))
        for column in columns
    )


def read_tag_codes(
    path: Path, columns: Sequence[int] = (-2, -1), text: str | None = None
) -> TagCodes:
    """The tag columns of the file at ``path`` (or of ``text`` already read, standard input,
    named ``path``) as codes (:class:`TagCodes`): the fast scan of the common file
    (:func:`_scan_tag_codes`), else the checked reader (:func:`read_tag_text` with whitespace
    as the delimiter, which names file and line in its errors)."""
    if text is None:
        with reading(path):
            data = path.read_bytes()
    else:
        data = text.encode("utf-8")
    scanned = _scan_tag_codes(data, str(path), columns)
    if scanned is not None:
        return scanned
    if text is None:
        return tag_codes_of(read_tags(path, delimiter=None, columns=columns))
    text, bom = without_bom(text)
    read = read_tag_text(text, str(path), delimiter=None, columns=columns)
    return tag_codes_of(read.replaced(bom=True) if bom else read)


def tag_codes_of(read: TagColumns) -> TagCodes:
    """:class:`TagCodes` of what the checked reader (:func:`read_tags`) read."""
    import numpy as np

    tags, codes = tag_codes(*read.columns)
    docstart = np.zeros(len(read), dtype=bool)
    docstart[positions_of(read.tokens, DOCSTART)] = True
    return TagCodes(
        path=read.path,
        tags=tags,
        codes=codes,
        boundary=np.array(read.boundary, dtype=bool),
        docstart=docstart,
        documents=read.documents,
        bom=read.bom,
    )


_DECLINED = (b"\0", b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
"""Bytes the scan leaves to the checked reader: NUL (an error) and the whitespace other than
space and line end that ``str.split`` splits at."""

_PACKED = 8
"""The longest tag the scan reads (bytes): a tag is packed into one 64-bit word, byte for byte
(equal words, equal tags: no hash)."""

_SCAN_DISTINCT = 64
"""The most distinct tags the scan numbers (one pass each to find where each is first seen)."""

_SLOTS_BITS = 12
_GOLDEN = 0x9E3779B97F4A7C15


def _numbered(words: WordArray) -> tuple[IntArray, list[int]] | None:
    """Each word's number among the distinct words, numbered in the order they are first seen,
    and the distinct words; ``None`` when there are more than :data:`_SCAN_DISTINCT` or two of
    them share a slot of the table (the words themselves are compared: a slot only finds
    the candidate).

    >>> import numpy as np
    >>> codes, found = _numbered(np.array([7, 3, 7, 9], dtype=np.uint64))
    >>> codes.tolist(), found
    ([0, 1, 0, 2], [7, 3, 9])
    """
    import numpy as np

    size = 1 << _SLOTS_BITS
    slot = ((words * np.uint64(_GOLDEN)) >> np.uint64(64 - _SLOTS_BITS)).astype(np.intp)
    held = np.zeros(size, dtype=np.uint64)
    held[slot] = words
    if not np.array_equal(held[slot], words):
        return None  # two words in one slot
    if words.all():  # the slots used hold a word other than 0
        used = np.flatnonzero(held)
    else:
        seen = np.zeros(size, dtype=bool)
        seen[slot] = True
        used = np.flatnonzero(seen)
    if len(used) > _SCAN_DISTINCT:
        return None
    # where each slot is first seen: looked for in growing pieces until every one is found
    first = np.full(size, len(words), dtype=np.intp)
    at, step, missing = 0, 4096, len(used)
    there = np.zeros(size, dtype=bool)
    while missing:
        piece = slot[at : at + step]
        there[:] = False
        there[piece] = True
        for s in np.flatnonzero(there & (first == len(words))).tolist():
            first[s] = at + int(np.argmax(piece == s))
            missing -= 1
        at += step
        step *= 4
    order = used[np.argsort(first[used], kind="stable")]
    rank = np.zeros(size, dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[slot], [int(v) for v in held[order]]


_SCAN_PIECE = 1 << 17
"""The scan reads the bytes in pieces of about this many (cut after a line end): its arrays stay
small, in the processor's cache and in memory already used, which a fresh process pays for."""


def _scan_tag_codes(data: bytes, path: str, columns: Sequence[int]) -> TagCodes | None:
    """The fast scan of the common tag file: ASCII, fields split by single spaces, every
    non-blank line with as many fields, tags of at most :data:`_PACKED` bytes, no ``-X-`` or
    ``-DOCSTART-`` line; ``None`` to decline (any other file: the checked reader reads it).

    Found with NumPy on the bytes, piece by piece (:func:`_scan_piece`): the line ends and
    spaces, each line's fields from its spaces, each tag packed into a 64-bit word (its bytes,
    zero-padded); then the distinct words numbered in the order they are first seen.
    """
    if not data or not data.isascii() or any(b in data for b in _DECLINED):
        return None
    first = len(data) - len(data.lstrip(b"\n"))
    if first == len(data):
        return None  # blank lines only
    first_end = data.find(b"\n", first)
    width = data.count(b" ", first, len(data) if first_end < 0 else first_end) + 1
    positions = [c + width if c < 0 else c for c in columns]
    if width < 2 or any(p < 0 or p >= width for p in positions):
        return None
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    blanks = []
    packed: list[list[WordArray]] = [[] for _ in positions]
    at = 0
    while at < len(data):
        cut = data.find(b"\n", at + _SCAN_PIECE)
        cut = len(data) if cut < 0 else cut + 1
        piece = _scan_piece(data, raw, at, cut, width, positions)
        if piece is None:
            return None
        blanks.append(piece[0])
        for column, words in zip(packed, piece[1], strict=True):
            column.append(words)
        at = cut
    blank = np.concatenate(blanks)
    n = len(blank)
    filled = ~blank
    every = np.full(n * len(positions), ord("O"), dtype=np.uint64)  # "O" at a boundary
    for k, column in enumerate(packed):
        every[k * n : (k + 1) * n][filled] = np.concatenate(column)
    numbered = _numbered(every)
    if numbered is None:
        return None
    codes, found = numbered
    tags = [v.to_bytes(8, "little").rstrip(b"\0").decode("ascii") for v in found]
    return TagCodes(
        path=path,
        tags=tags,
        codes=tuple(codes[k * n : (k + 1) * n] for k in range(len(positions))),
        boundary=blank,
        docstart=np.zeros(n, dtype=bool),
        documents=[Document(Path(path).name, 0, 0)],
        bom=False,
    )


def _scan_piece(
    data: bytes,
    raw: ByteArray,
    at: int,
    cut: int,
    width: int,
    positions: list[int],
) -> tuple[BoolArray, list[WordArray]] | None:
    """The lines of ``data[at:cut]`` (whole lines; ``raw``: ``data`` as bytes): whether each
    is blank, and each tag column of its non-blank lines packed into words; ``None`` to decline
    (another number of fields, an empty field, a ``-X-`` or ``-DOCSTART-`` line, a tag past
    :data:`_PACKED` bytes)."""
    import numpy as np

    part = raw[at:cut]
    ends = np.flatnonzero(part == 10)
    if cut == len(data) and not data.endswith(b"\n"):
        ends = np.append(ends, cut - at)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    blank = ends == starts
    filled = ~blank
    line_start, line_end = starts[filled], ends[filled]
    spaces = np.flatnonzero(part == 32)
    if len(spaces) != len(line_start) * (width - 1):
        return None
    grid = spaces.reshape(len(line_start), width - 1)
    # each non-blank line holds its own width - 1 spaces, with a field before, between and
    # after them (no empty field; no line of spaces only)
    if bool((grid[:, 0] <= line_start).any()) or bool((grid[:, -1] >= line_end - 1).any()):
        return None
    if width > 2 and bool((np.diff(grid, axis=1) < 2).any()):
        return None
    first_length = grid[:, 0] - line_start
    dashed = np.flatnonzero((first_length == 3) | (first_length == 10))
    dashed = dashed[part[line_start[dashed]] == 45]
    for k in dashed.tolist():
        if data[at + line_start[k] : at + grid[k, 0]] in (BOUNDARY.encode(), DOCSTART.encode()):
            return None  # boundaries and documents: the checked reader
    if cut + _PACKED <= len(data):  # each word reads the 8 bytes from its tag on
        words = np.ndarray((cut - at,), dtype="<u8", buffer=data, offset=at, strides=(1,))
    else:
        padded = np.zeros(cut - at + _PACKED, dtype=np.uint8)
        padded[: cut - at] = part
        words = np.ndarray((cut - at,), dtype="<u8", buffer=padded.data, strides=(1,))
    out = []
    for p in positions:
        begin = line_start if p == 0 else grid[:, p - 1] + 1
        end = line_end if p == width - 1 else grid[:, p]
        length = end - begin
        if len(length) and int(length.max()) > _PACKED:
            return None
        shift = (_PACKED - length).astype(np.uint64)
        shift <<= np.uint64(3)  # the bytes past the tag, in bits
        word = words[begin]
        word <<= shift
        word >>= shift
        out.append(word)
    return blank, out
