"""TREC qrels and run files (whitespace-separated, as trec_eval reads them), read as columns.

- qrels: ``query iteration document relevance`` per line (4 fields; relevance an integer, ASCII
  digits with an optional ``-``).
- run: ``query Q0 document rank score tag`` per line (6 fields; the rank field is ignored,
  trec_eval ranks by score; a score is a decimal number, ``1_0``, non-ASCII digits and NaN are
  refused).

Fields are separated by ASCII whitespace (space, tab, ``\\r``, ``\\v``, ``\\f``, as trec_eval's
C reading does); lines end at ``\\n``; blank lines are skipped.  A UTF-8 byte-order mark is
removed with a warning; a NUL byte, a line with another number of fields and a bad number are
an :class:`InputError` naming the file and line.

The reading is vectorised (NumPy over the bytes: token boundaries, then each field as 64-bit
words): a file becomes a :class:`TrecColumns`, document ids as exact words plus a hash, with no
Python object per line; only the first line of each run of equal query ids, and numbers that
are not plain decimals, go through Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.files import bom_warning, read_text, reading
from annoscore.formats.words import WordReader
from annoscore.result import ScoreWarning

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
    WordArray = npt.NDArray[np.uint64]
    BoolArray = npt.NDArray[np.bool_]
    ByteArray = npt.NDArray[np.uint8]

_BOM = b"\xef\xbb\xbf"
QRELS_FIELDS = "query iteration document relevance"
RUN_FIELDS = "query Q0 document rank score tag"


@dataclass(frozen=True, slots=True)
class TrecColumns:
    """A qrels or run file as columns, one entry per non-blank line, in file order.

    ``query[i]`` indexes ``queries`` (distinct ids, first-seen order); the document id of row
    ``i`` is ``doc_words[k][i]`` (its bytes as little-endian words, zero beyond
    ``doc_length[i]``), hashed in ``doc_hash[i]``; ``value`` is the relevance (qrels) or the
    score (run); ``line`` the 1-based line number; ``tags`` the run's distinct tags.
    """

    path: Path
    queries: list[str]
    query: IntArray
    doc_hash: WordArray
    doc_words: tuple[WordArray, ...]
    doc_length: IntArray
    value: FloatArray
    line: IntArray
    tags: tuple[str, ...]
    warnings: tuple[ScoreWarning, ...]
    data: bytearray
    doc_start: IntArray

    def __len__(self) -> int:
        return len(self.query)

    def document(self, row: int) -> str:
        """The document id of ``row``, decoded."""
        start = int(self.doc_start[row])
        return self.data[start : start + int(self.doc_length[row])].decode("utf-8", "replace")


def read_qrels(path: Path) -> TrecColumns:
    """The judgments of a qrels file (``value`` holds the integer relevance)."""
    return _read(path, 4, QRELS_FIELDS)


def read_run(path: Path) -> TrecColumns:
    """The retrieved documents of a run file (``value`` holds the score)."""
    return _read(path, 6, RUN_FIELDS)


def _padded_bytes(path: Path) -> tuple[bytearray, int]:
    """The bytes of the file at ``path`` read once into a buffer that has one newline before and
    after them (so every token has a separator on each side) and zero bytes up to whole 8-byte
    words plus one spare word; and the number of file bytes.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_bytes(b"1 Q0 d 1 2.5 r")
    >>> buffer, length = _padded_bytes(path)
    >>> bytes(buffer[:17]), len(buffer) % 8, length
    (b'\\n1 Q0 d 1 2.5 r\\n\\x00', 0, 14)
    """

    def padded(length: int) -> bytearray:
        buffer = bytearray(length + 2 + 16 + (-(length + 2)) % 8)
        buffer[0] = buffer[length + 1] = 10
        return buffer

    with reading(path), path.open("rb") as handle:
        expected = os.fstat(handle.fileno()).st_size
        buffer = padded(expected)
        got = handle.readinto(memoryview(buffer)[1 : 1 + expected])
        rest = handle.read()
    if got == expected and not rest:
        return buffer, expected
    # not a regular file (a pipe has no size), or one that changed while it was read
    data = bytes(memoryview(buffer)[1 : 1 + got]) + rest
    buffer = padded(len(data))
    buffer[1 : 1 + len(data)] = data
    return buffer, len(data)


def _read(path: Path, columns: int, names: str) -> TrecColumns:
    import numpy as np

    buffer, length = _padded_bytes(path)
    warnings: list[ScoreWarning] = []
    if buffer.startswith(_BOM, 1):  # the byte-order mark becomes spaces
        buffer[1 : 1 + len(_BOM)] = b" " * len(_BOM)
        warnings.append(replace(bom_warning([str(path)]), tolerated=True))
    nul = buffer.find(b"\0", 1, 1 + length)
    if nul >= 0:
        line = buffer.count(b"\n", 1, nul) + 1
        raise InputError("NUL byte in the text (binary data?)", path, line)
    if not buffer.isascii():  # the padding is ASCII
        read_text(path)  # an InputError naming the line if the bytes are not UTF-8
    size = length + 2
    raw = np.frombuffer(buffer, dtype=np.uint8, count=size)
    words = np.frombuffer(buffer, dtype="<u8")
    # the text in pieces of about _CHUNK bytes, each between two newlines: every temporary
    # array stays small (in cache, its memory reused), so the time per line stays flat; a
    # piece numbers its lines from 1, made absolute here
    pieces: list[tuple[int, int]] = []
    first = 0
    while first < size - 1:
        last = buffer.find(b"\n", min(first + _CHUNK, size - 1))
        pieces.append((first, last + 1))
        first = last

    # each piece's columns are kept as parts, one list per column, and each column is joined
    # and its parts dropped in turn: at most one column is held twice
    queries: dict[str, int] = {}
    tags: dict[str, None] = {}
    parts: dict[str, list[Any]] = {
        name: [] for name in ("query", "doc_start", "doc_words", "doc_length", "value", "line")
    }
    lines = 0
    try:
        for first, stop in pieces:
            chunk = _read_chunk(raw, words, buffer, first, stop, columns, names, path)
            heads = [queries.setdefault(q, len(queries)) for q in chunk.heads]
            parts["query"].append(np.array(heads, dtype=np.int64)[chunk.head_of_row])
            parts["doc_start"].append(chunk.doc_start)
            parts["doc_words"].append(chunk.doc_words)
            parts["doc_length"].append(chunk.doc_length)
            parts["value"].append(chunk.value)
            parts["line"].append(chunk.line + lines)
            tags.update(dict.fromkeys(chunk.tags))
            lines += chunk.lines
    except InputError as error:  # the first piece with an error: its line in the file
        where = None if error.line is None else error.line + lines
        raise InputError(error.message, error.path, where) from None
    if not sum(len(part) for part in parts["line"]):
        raise InputError(f"the file is empty: expected lines of {names}", path)

    def joined(name: str) -> Any:
        return np.concatenate(parts.pop(name))

    word_parts: list[tuple[WordArray, ...]] = parts.pop("doc_words")
    doc_words = []
    for k in range(max(len(part) for part in word_parts)):
        doc_words.append(
            np.concatenate(
                [part[k] if k < len(part) else np.zeros(len(part[0]), "<u8") for part in word_parts]
            )
        )
    del word_parts
    doc_length = joined("doc_length")
    return TrecColumns(
        path=path,
        queries=list(queries),
        query=joined("query"),
        doc_hash=hash_words(tuple(doc_words), doc_length),
        doc_words=tuple(doc_words),
        doc_length=doc_length,
        value=joined("value"),
        line=joined("line"),
        tags=tuple(tags) if columns == 6 else (),
        warnings=tuple(warnings),
        data=buffer,
        doc_start=joined("doc_start"),
    )


_CHUNK = 1 << 19


@dataclass(frozen=True, slots=True)
class _Chunk:
    """The rows of one piece of a file: query ids by run (``heads``, decoded, and each row's
    head), document ids as words, values, 1-based lines, distinct tags."""

    lines: int
    heads: list[str]
    head_of_row: IntArray
    doc_start: IntArray
    doc_words: tuple[WordArray, ...]
    doc_length: IntArray
    value: FloatArray
    line: IntArray
    tags: list[str]


def _read_chunk(
    raw: ByteArray,
    words: WordArray,
    buffer: bytes | bytearray,
    first: int,
    stop: int,
    columns: int,
    names: str,
    path: Path,
) -> _Chunk:
    """The rows of ``raw[first:stop]`` (which starts and ends with a newline), lines numbered
    from 1 at ``first``."""
    import numpy as np

    piece = raw[first:stop]
    starts, ends, line, lines, error = _token_bounds(piece, columns, names, path)
    starts = starts + first
    ends = ends + first
    used = (0, 2, columns - 1) if columns == 4 else (0, 2, 4, 5)
    field_start = {k: np.ascontiguousarray(starts[k::columns]) for k in used}
    field_length = {k: ends[k::columns] - field_start[k] for k in used}
    heads, head_of_row = _runs(buffer, words, field_start[0], field_length[0])
    doc_start, doc_length = field_start[2], field_length[2]
    value_field = columns - 1 if columns == 4 else 4
    value = _numbers(
        buffer, words, field_start[value_field], field_length[value_field], line, path, columns
    )
    if error is not None:
        raise error  # after the numbers of the lines before it, which may hold an earlier error
    tags: list[str] = []
    if columns == 6:
        tags = list(dict.fromkeys(_runs(buffer, words, field_start[5], field_length[5])[0]))
    return _Chunk(
        lines=lines,
        heads=heads,
        head_of_row=head_of_row,
        doc_start=doc_start,
        doc_words=_words(words, doc_start, doc_length),
        doc_length=doc_length,
        value=value,
        line=line,
        tags=tags,
    )


def _token_bounds(
    raw: ByteArray, columns: int, names: str, path: Path
) -> tuple[IntArray, IntArray, IntArray, int, InputError | None]:
    """Where the tokens start and end in ``raw`` (a text between two newlines), the 1-based
    line of each non-blank line (counted in ``raw``), the number of lines, and an
    :class:`InputError` for the first line with a number of tokens other than 0 or ``columns``
    (then the tokens and lines are those before it).

    A byte is a separator when it is ASCII whitespace (9-13, 32); every other byte, including
    the other control characters, belongs to a token, as in trec_eval.  Three passes over the
    bytes find the boundaries: whether each byte is a separator, where that changes (a token
    starts after a change at an even place and ends at the next), and the newlines; the tokens
    of each line are counted by locating the newlines among the token bounds.
    """
    import numpy as np

    separator = raw <= 32
    controls = np.count_nonzero(raw < 32)
    newlines = np.flatnonzero(raw == 10)
    if controls != len(newlines):  # tabs, \r, or control characters that are not whitespace
        whitespace = np.subtract(raw, np.uint8(9), dtype=np.uint8) <= 4
        if np.count_nonzero(whitespace) != controls:
            separator = whitespace | (raw == 32)
    bounds = np.flatnonzero(separator[1:] != separator[:-1])
    del separator
    bounds += 1  # alternately where a token starts and where it ends (exclusive)
    # every token before a newline has both bounds at or before it
    tokens_before = np.searchsorted(bounds, newlines, side="right") // 2
    per_line_count = np.diff(tokens_before)
    bad = np.flatnonzero((per_line_count != 0) & (per_line_count != columns))
    error = None
    if len(bad):  # the lines before the bad one are still read (one of them may be worse)
        first = int(bad[0])
        error = InputError(
            f"expected {columns} whitespace-separated columns ({names}), "
            f"found {int(per_line_count[first])}",
            path,
            first + 1,
        )
        bounds = bounds[: 2 * int(tokens_before[first])]
        per_line_count = per_line_count[:first]
    line = np.flatnonzero(per_line_count) + 1
    return bounds[0::2], bounds[1::2], line, len(newlines) - 1, error


def _words(words: WordArray, start: IntArray, length: IntArray) -> tuple[WordArray, ...]:
    reader = WordReader(words, start)
    longest = int(length.max()) if len(length) else 0
    return tuple(reader.word(k, length - 8 * k) for k in range(max(1, (longest + 7) // 8)))


def hash_words(words: tuple[WordArray, ...], length: IntArray, seed: int = 0) -> WordArray:
    """A 64-bit hash of each token from its words and length (equal tokens, equal hashes)."""
    import numpy as np

    multiplier = np.uint64(0x9E3779B97F4A7C15)
    h: WordArray = (length.astype(np.uint64) + np.uint64(seed)) * multiplier
    for word in words:
        h ^= word
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


def _runs(
    data: bytes | bytearray, words: WordArray, start: IntArray, length: IntArray
) -> tuple[list[str], IntArray]:
    """The token of each run of equal tokens (decoded once per run: query ids come grouped)
    and each row's run."""
    import numpy as np

    changed = np.ones(len(start), dtype=bool)
    np.not_equal(length[1:], length[:-1], out=changed[1:])
    for word in _words(words, start, length):
        changed[1:] |= word[1:] != word[:-1]
    heads = np.flatnonzero(changed)
    decoded = [
        data[s : s + n].decode("utf-8")
        for s, n in zip(start[heads].tolist(), length[heads].tolist(), strict=True)
    ]
    return decoded, np.cumsum(changed) - 1


_POW10 = [10.0**k for k in range(23)]


def _numbers(
    data: bytes | bytearray,
    words: WordArray,
    start: IntArray,
    length: IntArray,
    line: IntArray,
    path: Path,
    columns: int,
) -> FloatArray:
    """The numbers of one field: plain decimals (``-12.5``, at most 15 digits) vectorised and
    exact (an integer over a power of ten, both exact doubles: one correctly rounded division,
    as ``float()`` gives); anything else through :func:`_python_number`."""
    import numpy as np

    if not len(start):
        return np.zeros(0, dtype=np.float64)
    reader = WordReader(words, start)
    low, high = reader.word(0, length), reader.word(1, length - 8)
    width = min(16, int(length.max()))
    # (width, rows): byte j of every token, contiguous; 0 beyond a token (no NUL in a file)
    grid = np.stack([low, high], axis=1).view(np.uint8)[:, :width].T.copy()
    n = len(start)
    mantissa = np.zeros(n, dtype=np.int64)
    fraction = np.zeros(n, dtype=np.int8)
    dots = np.zeros(n, dtype=np.int8)
    digits = np.zeros(n, dtype=np.int8)
    ok = length <= 16
    negative = grid[0] == 45
    for j in range(width):
        char = grid[j]
        digit = char - np.uint8(48)
        is_digit = digit < 10
        is_dot = char == 46
        allowed = is_digit | is_dot | (char == 0)
        if j == 0:
            allowed |= (char == 45) | (char == 43)
        ok &= allowed
        fraction += is_digit & (dots > 0)
        dots += is_dot
        digits += is_digit
        np.multiply(mantissa, 10, out=mantissa, where=is_digit)
        np.add(mantissa, digit, out=mantissa, where=is_digit)
    ok &= (dots <= 1) & (digits >= 1) & (digits <= 15)
    if columns == 4:
        ok &= dots == 0
    value: FloatArray = mantissa / np.asarray(_POW10)[np.minimum(fraction, 22)]
    value[negative] = -value[negative]
    for row in np.flatnonzero(~ok).tolist():
        token = data[int(start[row]) : int(start[row]) + int(length[row])].decode("utf-8")
        value[row] = _python_number(token, columns, path, int(line[row]))
    return value


def _python_number(token: str, columns: int, path: Path, line: int) -> float:
    shown = token[:40]
    if columns == 4:
        body = token[1:] if token.startswith("-") else token
        if not (body.isascii() and body.isdigit()):
            raise InputError(f"relevance {shown!r} is not an integer in ASCII digits", path, line)
        return float(int(token))
    if not token.isascii() or "_" in token:
        raise InputError(f"score {shown!r} is not a number in ASCII digits", path, line)
    try:
        number = float(token)
    except ValueError:
        raise InputError(f"score {shown!r} is not a number", path, line) from None
    if number != number:
        raise InputError("score is NaN", path, line)
    return number
