"""The whole-folder path of the brat reader: a folder's plain ``.ann`` files scanned together.

A plain file (entity lines ``T<n>\t<type> <start> <end>\t<text>`` only, ids increasing, ASCII,
no ``\r``, no byte-order mark, at most ``_CHUNK_BYTES``) is read with the others about a
megabyte at a time in NumPy: the positions of newlines, tabs and spaces in one pass each,
offsets parsed eight digits at a time inside a 64-bit word, entity texts compared with the
``.txt`` eight bytes at a time, type names numbered from their bytes.  The folder's entities
become one :class:`EntityBlock`; each file's :class:`~annoscore.formats.brat.AnnFile` builds its
Python lists only when asked (re-reading the file with :func:`~annoscore.formats.brat._fast`).
Any other file, and any file the scan doubts, is left to the checked per-file reader of
:mod:`annoscore.formats.brat`, so every error and warning is that reader's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from annoscore.formats.brat import MAX_OFFSET, AnnFile, _fast


@dataclass(slots=True)
class EntityBlock:
    """The entities of the files read by the whole-folder path, as numpy arrays (one row per
    entity, files one after another): ``starts``, ``ends`` and ``type_codes`` (positions in
    ``type_names``).  A file's :attr:`AnnFile.rows` says which rows are its own."""

    starts: Any
    ends: Any
    type_codes: Any
    type_names: list[str]


class FileRows:
    """Rows ``lo:hi`` of an :class:`EntityBlock`: one file's entities.  Its columns as lists
    are built only when asked for, by :func:`_fast` on the file's bytes (which reads every file
    the whole-folder path takes, to the same columns)."""

    __slots__ = ("block", "data", "doc_id", "hi", "lo", "parsed", "path")

    def __init__(self, block: EntityBlock, lo: int, hi: int, data: bytes, path: str, doc_id: str):
        self.block, self.lo, self.hi = block, lo, hi
        self.data, self.path, self.doc_id = data, path, doc_id
        self.parsed: AnnFile | None = None

    def column(self, name: str) -> Sequence[Any]:
        if self.parsed is None:
            parsed = _fast(self.data.decode("utf-8"), self.path, self.doc_id)
            if parsed is None or len(parsed) != self.hi - self.lo:  # pragma: no cover
                raise AssertionError(f"{self.path}: the whole-folder path and _fast disagree")
            self.parsed = parsed
        return getattr(self.parsed, name)  # type: ignore[no-any-return]


class _Column(Sequence[Any]):
    """A column of a file read by the whole-folder path: its length is known, its items are
    built on first use."""

    __slots__ = ("_name", "_rows")

    def __init__(self, rows: FileRows, name: str) -> None:
        self._rows, self._name = rows, name

    def __len__(self) -> int:
        return self._rows.hi - self._rows.lo

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self._rows.column(self._name)[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows.column(self._name))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


_CHUNK_BYTES = 1 << 20
"""The whole-folder path scans the ``.ann`` bytes about this many at a time, and leaves larger
files to the per-file path (its arrays take up to ~16 bytes per scanned byte)."""

_PAD = b"00000000"
"""Eight bytes before and after the scanned bytes: every 8-byte word read is inside."""

_MAX_TYPE_BYTES = 64
_LOW_BYTES = tuple((1 << (8 * k)) - 1 for k in range(9))
"""``_LOW_BYTES[k]`` keeps the ``k`` lowest bytes of a 64-bit word."""


def _words(buf: Any, at: Any) -> Any:
    """The eight bytes ``buf[at[k]:at[k] + 8]`` of each ``k`` as little-endian 64-bit words."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    return sliding_window_view(buf, 8)[at].view(np.dtype("<u8")).ravel()


def _low_bytes(count: Any) -> Any:
    """Masks keeping the ``count`` lowest bytes of a 64-bit word (all of them from 8 up)."""
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


def _few_codes(keys: Any, limit: int = 16) -> tuple[Any, Any] | None:
    """Codes of ``keys`` numbered by first appearance and the first position of each, by one
    comparison per distinct key; ``None`` if there are more than ``limit``."""
    import numpy as np

    codes = np.full(keys.size, -1, dtype=np.int64)
    firsts: list[int] = []
    position = 0
    while position < keys.size:
        if len(firsts) == limit:
            return None
        codes[keys == keys[position]] = len(firsts)
        firsts.append(position)
        unset = np.flatnonzero(codes[position:] < 0)
        position = position + int(unset[0]) if unset.size else keys.size
    return codes, np.array(firsts, dtype=np.int64)


def _type_keys(buf: Any, lo: Any, hi: Any) -> tuple[Any, list[bytes]]:
    """Codes of the names ``buf[lo[k]:hi[k]]`` (1 to 64 bytes) and the names, by code."""
    import numpy as np

    n = lo.size
    lengths = hi - lo
    n_words = max(1, -(-int(lengths.max(initial=1)) // 8))
    words = np.empty((n, n_words), dtype=np.uint64)
    for j in range(n_words):
        words[:, j] = _words(buf, lo + 8 * j) & _low_bytes(lengths - 8 * j)
    hashes = words[:, 0].copy()
    for j in range(1, n_words):
        hashes = hashes * np.uint64(0x9E3779B97F4A7C15) + words[:, j]
    few = _few_codes(hashes)
    if few is not None:
        codes, first = few
    else:
        distinct, codes = np.unique(hashes, return_inverse=True)
        codes = codes.reshape(-1)
        first = np.zeros(distinct.size, dtype=np.int64)
        first[codes[::-1]] = np.arange(n)[::-1]
    if not (words == words[first][codes]).all():  # two names share a hash: compare them
        _, first, codes = np.unique(words, axis=0, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
    names = [bytes(buf[lo[k] : hi[k]]) for k in first.tolist()]
    return codes, names


def _plain_chunk(big: bytes, file_ends: Any, texts: list[bytes | None]) -> tuple[Any, ...]:
    """Scan ``big`` (``.ann`` files one after another between two :data:`_PAD`, each file
    empty or ending with a newline; ``file_ends`` their cumulative ends in ``big``) in arrays,
    no Python code per line.

    Returns, per file, whether every line is a plain continuous entity line
    ``T<number><TAB>TYPE START END<TAB>text`` (ids increasing, no leading zero; id, type and
    offsets printable ASCII, one space between the words; ``0 <= start < end <= 2^53``; the
    text equal to the ``.txt``'s at its offsets when ``texts`` has the file's ASCII ``.txt``);
    and, for the lines of those files, their file, start, end and type code, with the type
    names.  Every such file is one :func:`_fast` reads to the same columns and
    :func:`_check_texts` finds no fault in; the others are left to the per-file path."""
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
    ok &= (space2 - space1 <= 17) & (tab2 - space2 <= 17) & (space1 - tab1 <= _MAX_TYPE_BYTES + 1)
    ok &= tab1 - line_starts <= 8  # ids of 8 bytes at most ('T' and 7 more)
    # bytes other than printable ASCII, tab, space and newline: none in id, type and offsets;
    # \r and NUL nowhere in the file (the line path decides)
    odd = np.flatnonzero(((buf < 0x20) & (buf != 9) & (buf != 10)) | (buf > 0x7E))
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
    if m > 1:  # ids increase within a file (else the per-file path checks them)
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
            text_at, line_end = tab2[at] + 1, newlines[rows[at]]
        else:
            at, owner, first, last = None, row_file, starts, ends
            text_at, line_end = tab2 + 1, newlines[rows]
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


def _file_bytes(path: str) -> bytes | None:
    """The bytes of a file, or ``None`` if it cannot be read (the per-file path then says
    why).  ``os.read`` into one buffer: about twice as fast as ``open().read()`` for the many
    small files of a brat folder."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(handle, 1 << 16)
        if len(data) < 1 << 16:
            return data
        pieces = [data]
        while data:
            data = os.read(handle, 1 << 20)
            pieces.append(data)
        return b"".join(pieces)
    except OSError:
        return None
    finally:
        os.close(handle)


def _read_plain_files(
    names: list[str], text_names: list[str | None], doc_ids: list[str]
) -> list[AnnFile | None]:
    """The files the whole-folder path reads (plain continuous entities, the text as in the
    ``.txt`` where ``text_names`` names one), as :class:`AnnFile` sharing one
    :class:`EntityBlock`; ``None`` for every other file (the per-file path reads it, to the
    same columns, and gives its errors and warnings)."""
    import numpy as np

    contents = list(map(_file_bytes, names))
    texts: list[bytes | None] = []
    taken: list[int] = []
    for k, (data, text_name) in enumerate(zip(contents, text_names, strict=True)):
        text = None
        if data is None or (data and data[-1] != 10) or data.startswith(b"\xef\xbb\xbf"):
            continue
        if len(data) > _CHUNK_BYTES:  # a big file alone: the per-file path, in less memory
            continue
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
        if text_name is not None:
            text = _file_bytes(text_name)
            if text is None or not text.isascii():
                continue
        taken.append(k)
        texts.append(text)
    out: list[AnnFile | None] = [None] * len(names)
    block = EntityBlock(None, None, None, [])
    type_number: dict[bytes, int] = {}
    pieces: list[tuple[Any, Any, Any]] = []
    first_row = 0
    begin = 0
    while begin < len(taken):
        end, size = begin, 0
        while end < len(taken) and (size < _CHUNK_BYTES or end == begin):
            size += len(contents[taken[end]] or b"")
            end += 1
        chunk = taken[begin:end]
        chunk_texts = texts[begin:end]
        file_ends = len(_PAD) + np.cumsum([len(contents[k] or b"") for k in chunk])
        big = b"".join([_PAD, *(contents[k] or b"" for k in chunk), _PAD])
        file_ok, line_file, starts, ends, codes, type_names = _plain_chunk(
            big, file_ends, chunk_texts
        )
        remap = np.array(
            [type_number.setdefault(t, len(type_number)) for t in type_names], dtype=np.int64
        )
        pieces.append((starts, ends, remap[codes]))
        counts = np.bincount(line_file, minlength=len(chunk)).tolist()
        for k, text, good, count in zip(chunk, chunk_texts, file_ok.tolist(), counts, strict=True):
            if not good:
                continue
            rows = FileRows(
                block, first_row, first_row + count, contents[k] or b"", names[k], doc_ids[k]
            )
            first_row += count
            out[k] = AnnFile(
                doc_ids[k],
                names[k],
                _Column(rows, "ids"),
                _Column(rows, "types"),
                _Column(rows, "starts"),
                _Column(rows, "ends"),
                _Column(rows, "texts"),
                text=None if text is None else text.decode("ascii"),
                rows=rows,
            )
        begin = end
    empty = np.zeros(0, dtype=np.int64)
    block.starts = np.concatenate([p[0] for p in pieces]) if pieces else empty
    block.ends = np.concatenate([p[1] for p in pieces]) if pieces else empty
    block.type_codes = np.concatenate([p[2] for p in pieces]) if pieces else empty
    block.type_names = [t.decode("ascii") for t in type_number]
    return out
