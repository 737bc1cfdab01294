"""The columnar scan of brat ``.ann`` files: the reader's fast step, which may decline.

:func:`scan_files` takes the plain files of a reading together: entity lines ``T<id><TAB>TYPE START
END<TAB>text`` only (ids increasing; id, type and offsets printable ASCII with one space between
the words; ``0 <= START < END <= 2^53``; no NUL, no ``\\r`` but before a newline (Windows line
ends), no byte-order mark, a newline at the end; the text equal to the ``.txt``'s at its offsets
where the file has an ASCII ``.txt``).  They are read about :data:`CHUNK_BYTES` at a time in NumPy:
positions of newlines, tabs and spaces in one pass each, offsets parsed eight digits at once inside
a 64-bit word, entity texts compared with the ``.txt`` eight bytes at once (every byte, masked past
the end), type names numbered by their bytes (every byte and the length compared: no hash decides).
No Python code runs per line; a file's columns as Python lists are built from its bytes only when
asked for.

Every other file, and any file the scan finds the least thing unusual in, is declined
(``None``): the checked parser (:mod:`annoscore.formats.brat_lines`) reads it, and gives its
errors and warnings.  A file the scan takes is one the parser reads to the same columns with
no warning, in either dialect (``tests/equivalence/test_spans.py`` holds the two equal).
Memory is linear in the bytes scanned: about 16 bytes per byte of a chunk, and a file larger
than a chunk is declined.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from sys import intern
from typing import Any

from annoscore.formats.brat_model import (
    MAX_OFFSET,
    AnnFile,
    EntityBlock,
    FileRows,
    LazyColumn,
    ScanColumns,
    ScannedFields,
)

CHUNK_BYTES = 1 << 20
"""The scan reads the ``.ann`` bytes about this many at a time, and declines larger files (its
arrays take up to ~16 bytes per scanned byte)."""

MAX_TYPE_BYTES = 64
"""Type names longer than this are declined (the parser reads them)."""

_PAD = b"00000000"
"""Eight bytes before and after the scanned bytes: every 8-byte word read is inside."""

_LOW_BYTES = tuple((1 << (8 * k)) - 1 for k in range(9))
"""``_LOW_BYTES[k]`` keeps the ``k`` lowest bytes of a 64-bit word."""

_FEW_TYPES = 16
"""Up to this many distinct type names in a chunk are numbered by one comparison each."""


class _FileColumns:
    """The columns of a file the scan took, as Python lists, built from its bytes on first
    use (the scan proved every line ``T<id><TAB>TYPE START END<TAB>text``, so splitting at
    newlines, tabs and spaces finds exactly its fields)."""

    __slots__ = ("built", "data", "size")

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size
        self.built: dict[str, list[Any]] | None = None

    def column(self, name: str) -> list[Any]:
        if self.built is None:
            # every line ends with a newline, or a \r and a newline (no other \r: the scan)
            body = self.data.decode("utf-8").replace("\r\n", "\n")[:-1]
            flat = body.replace("\n", "\t").split("\t") if body else []
            words = " ".join(flat[1::3]).split(" ") if body else []
            self.built = {
                "ids": flat[0::3],
                "types": list(map(intern, words[0::3])),  # a few names shared by every entity
                "starts": list(map(int, words[1::3])),
                "ends": list(map(int, words[2::3])),
                "texts": flat[2::3],
            }
            if len(self.built["ids"]) != self.size:  # pragma: no cover - the scan proved it
                raise AssertionError("the scan and the split of a file disagree")
        return self.built[name]


class _Column(LazyColumn):
    """One column of a file the scan took: its length is known, its items built on first use."""

    __slots__ = ("_columns", "_name")

    def __init__(self, columns: _FileColumns, name: str) -> None:
        self._columns, self._name = columns, name

    def __len__(self) -> int:
        return self._columns.size

    def items(self) -> list[Any]:
        return self._columns.column(self._name)


class _ScanFiles(ScanColumns):
    """The files one :func:`scan_files` took, by their place ``k`` in its arguments: each
    file's columns made when first asked for (:class:`_ScannedFile`), as :class:`_Column` of
    one :class:`_FileColumns` (their length known, their items built from the file's bytes
    on first use)."""

    __slots__ = ("contents", "counts", "files")

    def __init__(self, block: EntityBlock, contents: Sequence[bytes | None]) -> None:
        super().__init__(block, [])
        self.contents = contents
        self.counts: dict[int, int] = {}
        self.files: dict[int, _FileColumns] = {}

    def field(self, name: str, d: int) -> Any:
        """File ``d``'s value of :class:`~annoscore.formats.brat_model.AnnFile` field
        ``name``: a scanned file has entity lines only (no line numbers: each entity is on
        the line of its position)."""
        if name in ("ids", "types", "starts", "ends", "texts"):
            columns = self.files.get(d)
            if columns is None:
                columns = self.files[d] = _FileColumns(self.contents[d] or b"", self.counts[d])
            return _Column(columns, name)
        if name == "lines":
            return None
        return ()  # normalizations, attributes, relations, events, notes


class _ScannedFile(ScannedFields, AnnFile):
    """A file the scan took: an :class:`~annoscore.formats.brat_model.AnnFile` whose id,
    path, text, rows, fragments and warnings are set when read (what the ``spans`` task asks
    of every file) and whose other fields are made by its :class:`_ScanFiles` when first
    asked for (then kept)."""

    __slots__ = ("columns", "number")


def _words(buf: Any, at: Any) -> Any:
    """The eight bytes ``buf[at[k]:at[k] + 8]`` of each ``k`` as little-endian 64-bit words
    (read from a view of ``buf`` as a word at every byte: one gather of words)."""
    import numpy as np

    if not buf.flags.c_contiguous:  # pragma: no cover - the scans' buffers are contiguous
        buf = np.ascontiguousarray(buf)
    return np.ndarray((buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))[at]


def _low_bytes(count: Any) -> Any:
    """Masks keeping the ``count`` lowest bytes of a 64-bit word (all of them from 8 up, none
    from 0 down)."""
    import numpy as np

    return np.array(_LOW_BYTES, dtype=np.uint64)[np.clip(count, 0, 8)]


def _eight_digits(buf: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """The numbers written in ``buf[lo[k]:hi[k]]`` (1 to 8 bytes, ``lo >= 8``) and whether
    each is all ASCII digits: eight bytes at once per number (SIMD within a register)."""
    import numpy as np

    u = np.uint64
    word = _words(buf, hi - 8)  # the number in its last bytes, what precedes it first
    number = ~_low_bytes(8 - (hi - lo))
    word &= number  # leading zeros instead of what precedes the number
    zeros = u(0x3030303030303030) & number
    high = u(0xF0F0F0F0F0F0F0F0)
    digits_only = (word & high == zeros) & (
        (word + (u(0x0606060606060606) & number)) & high == zeros
    )
    value = word - zeros
    value = (value * u(10) + (value >> u(8))) & u(0x00FF00FF00FF00FF)
    value = (value * u(100) + (value >> u(16))) & u(0x0000FFFF0000FFFF)
    value = (value * u(10000) + (value >> u(32))) & u(0xFFFFFFFF)
    return value.view(np.int64), digits_only


def _digits(buf: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """The numbers written in ``buf[lo[k]:hi[k]]`` (1 to 16 bytes, ``lo >= 8``) and whether
    each is all ASCII digits."""
    import numpy as np

    values, digits_only = _eight_digits(buf, np.maximum(lo, hi - 8), hi)
    longer = np.flatnonzero(hi - lo > 8)
    if longer.size:
        high, high_ok = _eight_digits(buf, lo[longer], hi[longer] - 8)
        values[longer] += high * 10**8
        digits_only[longer] &= high_ok
    return values, digits_only


def _ordered_words(buf: Any, lo: Any, hi: Any) -> Any:
    """``buf[lo[k]:hi[k]]`` (at most 8 bytes) as numbers ordered as the byte strings of one
    length are (big-endian, zero-filled in front)."""
    import numpy as np

    return (_words(buf, hi - 8) & ~_low_bytes(8 - (hi - lo))).byteswap().view(np.int64)


def _same_bytes(buf: Any, at: Any, other: Any, other_at: Any, lengths: Any) -> Any:
    """Whether ``buf[at[k]:at[k] + lengths[k]]`` equals ``other[other_at[k]:...]`` for each
    ``k``, eight bytes at a time (both buffers padded with 8 bytes at the end)."""
    import numpy as np

    differ = ((_words(buf, at) ^ _words(other, other_at)) & _low_bytes(lengths)) != 0
    same = ~differ
    left = np.flatnonzero(same & (lengths > 8))
    step = 8
    while left.size:
        remaining = lengths[left] - step
        differ = (
            (_words(buf, at[left] + step) ^ _words(other, other_at[left] + step))
            & _low_bytes(remaining)
        ) != 0
        same[left[differ]] = False
        left = left[~differ & (remaining > 8)]
        step += 8
    return same


def _name_keys(buf: Any, lo: Any, hi: Any) -> list[Any]:
    """The names ``buf[lo[k]:hi[k]]`` (1 to :data:`MAX_TYPE_BYTES` bytes) as key columns:
    their lengths, then each 8-byte word of them with the bytes past the end zeroed.  Two names
    are the same bytes exactly when every key column agrees.  (A word past a name's end is
    read at a clipped position and masked to zero: no read leaves ``buf``.)"""
    import numpy as np

    lengths = hi - lo
    n_words = -(-int(lengths.max(initial=0)) // 8)
    last = buf.size - 8
    return [lengths] + [
        _words(buf, np.minimum(lo + 8 * j, last)) & _low_bytes(lengths - 8 * j)
        for j in range(n_words)
    ]


def _type_keys(buf: Any, lo: Any, hi: Any) -> tuple[Any, list[bytes]]:
    """Codes of the names ``buf[lo[k]:hi[k]]`` and the names, by code: two names get the same
    code exactly when their bytes are equal.

    Up to :data:`_FEW_TYPES` distinct names: each is compared with every unnumbered row in
    turn; beyond, the rows are sorted by their key columns and numbered by run."""
    import numpy as np

    n = lo.size
    keys = _name_keys(buf, lo, hi)
    codes = np.full(n, -1, dtype=np.int64)
    firsts: list[int] = []
    position = 0
    while position < n and len(firsts) < _FEW_TYPES:
        same = keys[0] == keys[0][position]
        for key in keys[1:]:
            same &= key == key[position]
        codes[same] = len(firsts)
        firsts.append(position)
        unset = np.flatnonzero(codes[position:] < 0)
        position = position + int(unset[0]) if unset.size else n
    if position < n:  # many names: number them all by sorting
        order = np.lexsort(keys[::-1])
        new = np.zeros(n, dtype=bool)
        new[:1] = True
        for key in keys:
            ordered = key[order]
            new[1:] |= ordered[1:] != ordered[:-1]
        codes = np.empty(n, dtype=np.int64)
        codes[order] = np.cumsum(new) - 1
        firsts = order[new].tolist()
    names = [bytes(buf[lo[k] : hi[k]]) for k in firsts]
    return codes, names


def _scan_chunk(big: bytes, file_ends: Any, texts: list[bytes | None]) -> tuple[Any, ...]:
    """Scan ``big`` (``.ann`` files one after another between two :data:`_PAD`, each file
    empty or ending with a newline; ``file_ends`` their cumulative ends in ``big``) in arrays,
    no Python code per line.

    Returns, per file, whether the scan takes it (see the module doc; ``texts`` holds the
    file's ASCII ``.txt`` or ``None``); and, for the lines of the files taken, their file,
    start, end and type code, with the type names."""
    import numpy as np

    buf = np.frombuffer(big, dtype=np.uint8)
    size = buf.size - len(_PAD)
    file_bad = np.zeros(file_ends.size, dtype=bool)
    newlines = np.flatnonzero(buf == 10)
    n = newlines.size
    line_file = np.searchsorted(file_ends, newlines, side="right")
    line_starts = np.empty(n, dtype=np.int64)
    line_starts[:1] = len(_PAD)
    line_starts[1:] = newlines[:-1] + 1
    tabs = np.flatnonzero(buf == 9)
    if tabs.size == 2 * n:  # two per line if each line has its two in order
        tab1, tab2 = tabs[0::2], tabs[1::2]
        ok = (line_starts < tab1) & (tab2 < newlines)
        ok[:-1] &= tab1[1:] > newlines[:-1]
        if not ok.all():
            ok[:] = False  # some line has another count: every line is checked below
    else:
        ok = np.zeros(n, dtype=bool)
    if not ok.all():
        tab_line = np.searchsorted(newlines, tabs)
        ok = np.bincount(tab_line, minlength=n)[:n] == 2
        first_tab = np.minimum(np.searchsorted(tab_line, np.arange(n)), tabs.size)
        tabs = np.append(tabs, [size, size])
        tab1, tab2 = tabs[first_tab], tabs[first_tab + 1]
    spaces = np.flatnonzero(buf == 32)
    first_space = np.searchsorted(spaces, line_starts)
    spaces = np.append(spaces, [size, size, size])
    space1, space2, space3 = (spaces[first_space + k] for k in range(3))
    ok &= buf[line_starts] == 84  # 'T'
    ok &= (tab1 + 1 < space1) & (space1 + 1 < space2) & (space2 + 1 < tab2) & (tab2 < space3)
    ok &= (space2 - space1 <= 17) & (tab2 - space2 <= 17) & (space1 - tab1 <= MAX_TYPE_BYTES + 1)
    ok &= tab1 - line_starts <= 8  # ids of 8 bytes at most ('T' and 7 more)
    # bytes other than printable ASCII, tab, space and newline: none in id, type and offsets;
    # NUL nowhere in the file, nor \r but before a newline (the parser decides): a line's
    # text ends before its newline, and before a \r there (Windows line ends)
    odd = np.flatnonzero(((buf < 0x20) & (buf != 9) & (buf != 10)) | (buf > 0x7E))
    text_ends = newlines
    if odd.size:
        line_ending = (buf[odd] == 13) & (buf[odd + 1] == 10)
        if line_ending.any():
            odd = odd[~line_ending]
            text_ends = newlines - (buf[newlines - 1] == 13)
    if odd.size:
        ok &= np.searchsorted(odd, tab2) == np.searchsorted(odd, line_starts)
        odd = odd[(buf[odd] == 13) | (buf[odd] == 0)]
        file_bad[np.searchsorted(file_ends, odd, side="right")] = True
    rows = np.flatnonzero(ok)
    m = rows.size
    space1, space2, tab1, tab2 = space1[rows], space2[rows], tab1[rows], tab2[rows]
    starts, good = _digits(buf, space1 + 1, space2)
    ends, ends_digits = _digits(buf, space2 + 1, tab2)
    good &= ends_digits & (ends > starts) & (ends <= MAX_OFFSET)
    row_file = line_file[rows]
    if m > 1:  # ids increase within a file (else the parser checks them)
        ids = _ordered_words(buf, line_starts[rows], tab1)
        id_sizes = tab1 - line_starts[rows]
        good[1:] &= (row_file[1:] != row_file[:-1]) | (
            (id_sizes[1:] > id_sizes[:-1])
            | ((id_sizes[1:] == id_sizes[:-1]) & (ids[1:] > ids[:-1]))
        )
    has_text = np.array([t is not None for t in texts], dtype=bool)
    checked = good & has_text[row_file]
    if checked.any():
        text_sizes = np.array([len(t) if t is not None else 0 for t in texts], dtype=np.int64)
        text_base = np.cumsum(text_sizes) - text_sizes
        text_buf = np.frombuffer(b"".join(t for t in texts if t) + _PAD, dtype=np.uint8)
        if not checked.all():
            at = np.flatnonzero(checked)
            owner, first, last = row_file[at], starts[at], ends[at]
            text_at, line_end = tab2[at] + 1, text_ends[rows[at]]
        else:
            at, owner, first, last = None, row_file, starts, ends
            text_at, line_end = tab2 + 1, text_ends[rows]
        lengths = last - first
        same = (line_end - text_at == lengths) & (last <= text_sizes[owner])  # fits, so far
        fit = None if same.all() else np.flatnonzero(same)
        if fit is not None:  # compare only what fits (the rest differs)
            owner, first, lengths, text_at = owner[fit], first[fit], lengths[fit], text_at[fit]
        equal = _same_bytes(buf, text_at, text_buf, text_base[owner] + first, lengths)
        if fit is None:
            same = equal
        else:
            same[fit] = equal
        if at is None:
            good &= same
        else:
            good[at[~same]] = False
    ok[rows[~good]] = False
    file_bad[line_file[~ok]] = True
    keep = good & ~file_bad[row_file]
    rows = rows[keep]
    codes, names = _type_keys(buf, tab1[keep] + 1, space1[keep])
    return ~file_bad, line_file[rows], starts[keep], ends[keep], codes, names


def _candidate(data: bytes | None, text: bytes | None, has_text: bool) -> bool:
    """Whether a file may be plain, by what one look at its bytes tells: a newline at the end,
    a ``T`` first, no byte-order mark, UTF-8; its ``.txt``, where it is checked, ASCII."""
    if data is None or (data and (data[-1] != 10 or data[0] != 84)):
        return False
    if len(data) > CHUNK_BYTES:  # a big file alone: the parser, in less memory
        return False
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return not has_text or (text is not None and text.isascii())


def scan_files(
    contents: Sequence[bytes | None],
    texts: Sequence[bytes | None],
    check_text: Sequence[bool],
    paths: Sequence[str],
    doc_ids: Sequence[str],
    block: EntityBlock,
) -> list[AnnFile | None]:
    """The files the scan takes, as :class:`AnnFile` whose rows are added to ``block``;
    ``None`` for every file it declines.  ``contents[k]`` are file ``k``'s bytes (``None``:
    unreadable), ``texts[k]`` its ``.txt``'s bytes where ``check_text[k]`` (``None``:
    unreadable: declined)."""
    taken = [k for k in range(len(paths)) if _candidate(contents[k], texts[k], check_text[k])]
    out: list[AnnFile | None] = [None] * len(paths)
    if not taken:
        return out  # NumPy is not even imported
    import numpy as np

    files = _ScanFiles(block, contents)
    new, rows_of = _ScannedFile.__new__, tuple.__new__
    data = [contents[k] or b"" for k in taken]
    data_ends = list(accumulate(map(len, data)))  # where each file ends in all of them
    begin = 0
    while begin < len(taken):  # files from ``begin`` until they hold CHUNK_BYTES (one at least)
        base = data_ends[begin - 1] if begin else 0
        end = min(bisect_left(data_ends, base + CHUNK_BYTES, begin) + 1, len(taken))
        chunk = taken[begin:end]
        chunk_texts = [texts[k] if check_text[k] else None for k in chunk]
        file_ends = len(_PAD) - base + np.array(data_ends[begin:end], dtype=np.int64)
        big = b"".join([_PAD, *data[begin:end], _PAD])
        file_ok, line_file, starts, ends, codes, type_names = _scan_chunk(
            big, file_ends, chunk_texts
        )
        row = block.add_arrays(starts, ends, codes, [t.decode("ascii") for t in type_names])
        counts = np.bincount(line_file, minlength=len(chunk)).tolist()
        for k, text, good, count in zip(chunk, chunk_texts, file_ok.tolist(), counts, strict=True):
            if not good:
                continue
            file = new(_ScannedFile)
            file.id, file.path, file.fragments, file.warnings = doc_ids[k], paths[k], None, []
            file.text = None if text is None else text.decode("ascii")
            file.rows = rows_of(FileRows, (block, row, row + count))
            file.columns, file.number = files, k
            files.counts[k] = count
            out[k] = file
            row += count
        begin = end
    return out
