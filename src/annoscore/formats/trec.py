"""TREC qrels and run files (whitespace-separated, as trec_eval reads them), read as columns.

- qrels: ``query iteration document relevance`` per line (exactly 4 fields).  A relevance is an
  integer of at most 64 bits (trec_eval's C ``long``), ASCII digits with an optional sign; one
  written with a decimal point (``1.0``, ``2.5``) is read as its integer part, as trec_eval's
  ``atol`` reads it, with a warning.
- run: ``query Q0 document rank score tag`` per line (at least 6 fields: trec_eval ignores the
  fields after the sixth, and so does this reader, with a warning).  The rank field is ignored
  (trec_eval ranks by score); a score is a decimal number (exponent allowed) or an infinity
  spelled out (``inf``, ``-Infinity``), the range of a 64-bit float: NaN, ``1_0``, non-ASCII
  digits, hexadecimal and a number too large for a double (``1e999``, 5,000 digits) are refused.

Fields are separated by ASCII whitespace (space, tab, ``\\r``, ``\\v``, ``\\f``, as trec_eval's
C reading does); lines end at ``\\n``.  Ids are bytes, compared byte for byte as trec_eval
compares them: bytes that are not UTF-8 are read, with a warning naming the lines (they are shown
with ``\\x`` escapes).  A UTF-8 byte-order mark is removed with a warning; a blank line is
skipped with a warning (trec_eval refuses an empty line); a comment line, one whose
first byte is ``#``, is skipped with a warning, as trec_eval master skips it (``comments``;
without, as trec_eval 9.0.8 reads it, it is a line like any other, most often one of too few
fields); a NUL byte, a line with too few (or, in qrels, too many) fields and a bad number are an
:class:`InputError` naming the file and line.

The reading is vectorised (NumPy over the bytes: token boundaries, then each field as 64-bit
words): a file becomes a :class:`TrecColumns` with no Python object per line; only the first
line of each run of equal query ids, ids longer than :data:`KEY_BYTES` and numbers that are not
plain decimals go through Python (the columnar scan is :mod:`annoscore.formats.trec_scan`;
the numbers it cannot read are parsed here, checked).  Every array is a fixed number of words
per line (never one sized by the longest id), so time and memory stay linear in the file's
bytes.

Identity is exact: :func:`document_keys` gives the document ids of several files one set of
key columns, equal exactly when the ids' bytes are equal.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.files import bom_warning, cut_of, first_line, read_cut, reading, saw
from annoscore.formats.trec_scan import (
    KEY_BYTES,
    KEY_WORDS,
    Words,
    digit_grid,
    equal_runs,
    id_words,
    one_tag,
    plain_decimals,
    token_bounds,
)
from annoscore.records import Fields
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

if TYPE_CHECKING:
    from annoscore.arrays import AnyArray, ByteArray, IntArray, WordArray


_BOM = b"\xef\xbb\xbf"
QRELS_FIELDS = "query iteration document relevance"
RUN_FIELDS = "query Q0 document rank score tag"


# the classes of this module are plain classes with __slots__, not dataclasses: made at import
# (every ``trec`` command imports them), they cost a fiftieth of a dataclass


class TrecColumns(Fields):
    """A qrels or run file as columns, one entry per line with fields, in file order.

    ``query[i]`` indexes ``queries`` (distinct ids as bytes, first-seen order); the first
    :data:`KEY_BYTES` bytes of the document id of row ``i`` are the little-endian words
    ``doc_words[k][i]`` (zero beyond the id; one to :data:`KEY_WORDS` columns), the whole of
    it when no longer; a longer one's row is in ``long_rows`` (ascending), its bytes
    ``data[long_start[j]:long_start[j] + long_length[j]]`` (:meth:`document`); ``value`` is
    the relevance (qrels, int64) or the score (run, float64); ``line`` the 1-based line
    number; ``tags`` the run's distinct tags.
    """

    __slots__ = (
        "_line",
        "data",
        "doc_words",
        "long_length",
        "long_rows",
        "long_start",
        "path",
        "queries",
        "query",
        "tags",
        "value",
        "warnings",
    )
    path: Path
    queries: list[bytes]
    query: IntArray
    doc_words: tuple[WordArray, ...]
    long_rows: IntArray
    long_start: IntArray
    long_length: IntArray
    value: AnyArray
    _line: IntArray | None  # None: row i is line i + 1 (no blank line before a row)
    tags: tuple[bytes, ...]
    warnings: tuple[ScoreWarning, ...]
    data: bytearray

    def __len__(self) -> int:
        return len(self.query)

    @property
    def line(self) -> IntArray:
        """The 1-based line of each row (made when asked: only messages name lines)."""
        if self._line is not None:
            return self._line
        import numpy as np

        return np.arange(1, len(self.query) + 1)

    def document(self, row: int) -> bytes:
        """The document id of ``row``: its words without the zeros past its end (there is no
        NUL in the text), a longer one from the text."""
        import numpy as np

        at = int(np.searchsorted(self.long_rows, row))
        if at < len(self.long_rows) and int(self.long_rows[at]) == row:
            start = int(self.long_start[at])
            return bytes(self.data[start : start + int(self.long_length[at])])
        return b"".join(int(w[row]).to_bytes(8, "little") for w in self.doc_words).rstrip(b"\0")


def shown(token: bytes) -> str:
    r"""An id as text: UTF-8, bytes that are not UTF-8 as ``\x`` escapes.

    >>> shown(b"d1"), shown("é".encode()), shown(b"d\xff")
    ('d1', 'é', 'd\\xff')
    """
    return token.decode("utf-8", "backslashreplace")


def qrels_of_text(text: bytes, name: str = "<qrels>", comments: bool = True) -> TrecColumns:
    """The judgments of qrels lines given as bytes (``name`` stands for the file in
    messages): the same reading as :func:`read_qrels`."""
    return _read(Path(name), 4, QRELS_FIELDS, _padded(text), comments)


def run_of_text(text: bytes, name: str = "<run>", comments: bool = True) -> TrecColumns:
    """The retrieved documents of run lines given as bytes: the same reading as
    :func:`read_run`."""
    return _read(Path(name), 6, RUN_FIELDS, _padded(text), comments)


def read_qrels(path: Path, comments: bool = True) -> TrecColumns:
    """The judgments of a qrels file (``value`` holds the integer relevance); ``comments``:
    lines that begin with ``#`` are comments, skipped (trec_eval master), or lines like any
    other (trec_eval 9.0.8)."""
    return _read(path, 4, QRELS_FIELDS, comments=comments)


def read_run(path: Path, comments: bool = True) -> TrecColumns:
    """The retrieved documents of a run file (``value`` holds the score); ``-`` reads the run
    from standard input (as trec_eval does); ``comments`` as :func:`read_qrels` takes it."""
    if str(path) == "-":
        import sys

        return run_of_text(sys.stdin.buffer.read(), "<stdin>", comments)
    return _read(path, 6, RUN_FIELDS, comments=comments)


class DocumentKeys(Fields):
    """Exact keys for the document ids of a file, made with those of other files
    (:func:`document_keys`): two ids are equal exactly when all their :attr:`columns` are.

    ``words``: each id's first :data:`KEY_BYTES` bytes as little-endian words (zero beyond the
    id), as many columns as the files need; ``code``: ``None`` when no id of the files is
    longer, else 0 for an id of at most :data:`KEY_BYTES` bytes and 1 + the rank of the id among
    the distinct long ids of all the files in byte order.  So the words read big-endian, then
    the code, order the ids as their bytes order (:meth:`descending`).
    """

    __slots__ = ("code", "words")
    words: tuple[WordArray, ...]
    code: WordArray | None

    @property
    def columns(self) -> tuple[WordArray, ...]:
        return self.words if self.code is None else (*self.words, self.code)

    def take(self, rows: IntArray) -> DocumentKeys:
        """The keys of ``rows``."""
        return DocumentKeys(
            words=tuple(word[rows] for word in self.words),
            code=None if self.code is None else self.code[rows],
        )

    def descending(self) -> list[WordArray]:
        """Sort keys, most significant first, that order the ids by their bytes descending
        (``np.lexsort`` wants them reversed)."""
        keys = [~word.byteswap() for word in self.words]
        if self.code is not None:
            keys.append(~self.code)
        return keys


def document_keys(*files: TrecColumns) -> list[DocumentKeys]:
    """Keys for the document ids of ``files``, one set for all of them: two ids, of one file or
    of two, are equal exactly when their keys are (:class:`DocumentKeys`).  Long ids are compared
    as Python bytes: the cost is linear in their bytes.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "q").write_text("1 0 abcdefgh 1\\n1 0 " + "x" * 33 + " 0\\n")
    >>> _ = (folder / "r").write_text("1 Q0 abcdefghi 1 1 r\\n")
    >>> qrels, run = document_keys(read_qrels(folder / "q"), read_run(folder / "r"))
    >>> len(qrels.words), len(run.words), qrels.code.tolist(), run.code.tolist()
    (4, 4, [0, 1], [0])
    """
    import numpy as np

    width = max(len(f.doc_words) for f in files)
    words = [
        tuple(
            f.doc_words[k] if k < len(f.doc_words) else np.zeros(len(f), dtype=np.uint64)
            for k in range(width)
        )
        for f in files
    ]
    long_rows = [f.long_rows for f in files]
    if not any(len(rows) for rows in long_rows):
        return [DocumentKeys(words=w, code=None) for w in words]
    ids = [
        [
            bytes(f.data[s : s + n])
            for s, n in zip(f.long_start.tolist(), f.long_length.tolist(), strict=True)
        ]
        for f in files
    ]
    rank = {doc: i + 1 for i, doc in enumerate(sorted({d for part in ids for d in part}))}
    keys = []
    for f, w, rows, part in zip(files, words, long_rows, ids, strict=True):
        code = np.zeros(len(f), dtype=np.uint64)
        code[rows] = np.array([rank[d] for d in part], dtype=np.uint64)
        keys.append(DocumentKeys(words=w, code=code))
    return keys


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

    cut = cut_of(path)
    if cut is not None and cut.url is None:  # a chunk of the file (annoscore.scale)
        return _padded_range(path, cut.start, cut.stop)
    if cut is not None:  # a chunk of a URL's bytes
        return _padded(read_cut(path, cut))
    with reading(path), path.open("rb") as handle:
        expected = os.fstat(handle.fileno()).st_size
        buffer = _empty_padded(expected)
        got = handle.readinto(memoryview(buffer)[1 : 1 + expected])
        rest = handle.read()
    if got == expected and not rest:
        return buffer, expected
    # not a regular file (a pipe has no size), or one that changed while it was read
    return _padded(bytes(memoryview(buffer)[1 : 1 + got]) + rest)


def _padded_range(path: Path, start: int, stop: int) -> tuple[bytearray, int]:
    """The bytes ``[start, stop)`` of the file at ``path`` (nothing else of it) padded as
    :func:`_padded_bytes` pads a file, read straight into the padded buffer (no copy of them
    held besides; an unbuffered file's ``readinto``, which every platform has, unlike
    ``os.preadv``).  A file shorter than ``stop`` gives what it holds."""
    buffer = _empty_padded(stop - start)
    view = memoryview(buffer)
    at = start
    with reading(path), open(path, "rb", buffering=0) as handle:
        handle.seek(start)
        while at < stop:
            got = handle.readinto(view[1 + at - start : 1 + min(stop, at + (1 << 24)) - start])
            if not got:
                break
            at += got
    if at == stop:
        view.release()
        return buffer, stop - start
    return _padded(bytes(view[1 : 1 + at - start]))


def _empty_padded(length: int) -> bytearray:
    """A zeroed buffer for ``length`` bytes between two newlines, and a spare word past the
    last one a token's :data:`KEY_WORDS` words can start at (:class:`Words`), whole words."""
    buffer = bytearray(length + 2 + _SPARE + (-(length + 2)) % 8)
    buffer[0] = buffer[length + 1] = 10
    return buffer


def _padded(data: bytes) -> tuple[bytearray, int]:
    """``data`` in a buffer padded as :func:`_padded_bytes` pads a file."""
    buffer = _empty_padded(len(data))
    buffer[1 : 1 + len(data)] = data
    return buffer, len(data)


_SPARE = 8 * (KEY_WORDS + 1)
"""Zero bytes after the text's final newline: the words of a token are read (and masked) up
to :data:`KEY_WORDS` words past where it starts, whatever its length."""

_CHUNK = 1 << 19


class _Lines:
    """Line numbers a warning names: how many, and the first few."""

    def __init__(self) -> None:
        self.count = 0
        self.first: list[int] = []

    def add(self, lines: list[int]) -> None:
        self.count += len(lines)
        if len(self.first) < EXAMPLES_SHOWN:
            self.first.extend(lines[: EXAMPLES_SHOWN - len(self.first)])

    def warning(self, code: str, message: str, path: Path) -> list[ScoreWarning]:
        if not self.count:
            return []
        where = tuple(f"{path}:{n}" for n in self.first)
        return [ScoreWarning(code, message, self.count, where, tolerated=True)]


def _read(
    path: Path,
    columns: int,
    names: str,
    padded: tuple[bytearray, int] | None = None,
    comments: bool = True,
) -> TrecColumns:
    import numpy as np

    buffer, length = _padded_bytes(path) if padded is None else padded
    # the lines before the text's first (a chunk of the file: annoscore.scale), so that rows
    # and warnings name the lines of the whole file
    before = 0 if padded is not None else first_line(path) - 1
    warnings: list[ScoreWarning] = []
    bom = buffer.startswith(_BOM, 1)
    if bom:  # the byte-order mark becomes spaces
        buffer[1 : 1 + len(_BOM)] = b" " * len(_BOM)
        warnings.append(replace(bom_warning([str(path)]), tolerated=True))
    nul = buffer.find(b"\0", 1, 1 + length)
    if nul >= 0:
        line = buffer.count(b"\n", 1, nul) + 1 + before
        raise InputError("NUL byte in the text (binary data?)", path, line)
    size = length + 2
    raw = np.frombuffer(buffer, dtype=np.uint8, count=size)
    commented = _blank_comments(buffer, raw, 1 + len(_BOM) if bom else 1) if comments else []
    if before:
        commented = [n + before for n in commented]
    skipped = frozenset(commented)  # the comments' lines: blank lines now, not warned as such
    ascii_only = int(raw.max()) < 128  # (the padding is ASCII; bytearray.isascii: 15x slower)
    words = Words(buffer)
    # the text in pieces of about _CHUNK bytes, each between two newlines: every temporary
    # array stays small (in cache, its memory reused), so the time per line stays flat; a
    # piece numbers its lines from 1, made absolute here
    pieces: list[tuple[int, int, int]] = []
    first = 0
    # the lines are at most the bytes below 32 (newlines among them; the buffer's last byte is
    # one), counted piece by piece, each piece's count handed to token_bounds
    bound = 1
    # a text that ends with a newline ends there: the padding's newline after it would make an
    # empty last line (no line), which keeps the last piece off the regular path
    end = size - 2 if length and buffer[length] == 10 else size - 1
    while first < end:
        last = buffer.find(b"\n", min(first + _CHUNK, end))
        controls = int(np.count_nonzero(raw[first:last] < 32))  # (bytearray.count: 4x slower)
        pieces.append((first, last + 1, controls + 1))
        # (an upper bound from the bytes instead saves this pass but not memory: the larger
        # columns made the allocator keep more, peak memory 124 -> 142 MB at 20,000 queries)
        bound += controls
        first = last

    # each piece's columns are written into whole columns allocated once, as long as the
    # file has lines (a row is a line; pages past the rows are never touched), then cut to
    # the rows: no piece is held twice
    queries: dict[bytes, int] = {}
    tags: dict[bytes, None] = {}
    out: dict[str, Any] = {
        "query": np.empty(bound, dtype=np.int64),
        "long_rows": [np.zeros(0, dtype=np.int64)],  # (the ids longer than KEY_BYTES: few)
        "long_start": [np.zeros(0, dtype=np.int64)],
        "long_length": [np.zeros(0, dtype=np.int64)],
    }
    line_column: IntArray | None = None  # while row i is line i + 1: none
    out["value"] = np.empty(bound, dtype=np.int64 if columns == 4 else np.float64)
    doc_words: list[WordArray] = []  # zeros beyond the words a piece's ids need
    rows = 0
    non_utf8, blank, extra, decimal = _Lines(), _Lines(), _Lines(), _Lines()
    comment = _Lines()
    comment.add(commented)
    lines = before
    try:
        for first, stop, controls in pieces:
            chunk = _read_chunk(raw, words, buffer, first, stop, controls, columns, names, path)
            heads = [queries.setdefault(q, len(queries)) for q in chunk.heads]
            here = slice(rows, rows + len(chunk.line))
            np.take(np.array(heads, dtype=np.int64), chunk.head_of_row, out=out["query"][here])
            out["long_rows"].append(chunk.long_rows + rows)
            out["long_start"].append(chunk.long_start)
            out["long_length"].append(chunk.long_length)
            out["value"][here] = chunk.value
            regular = rows == lines and int(chunk.line[-1:].sum()) == len(chunk.line)
            if line_column is None and not regular:  # (rows increase: the last tells)
                line_column = np.empty(bound, dtype=np.int64)
                line_column[:rows] = np.arange(1, rows + 1)
            if line_column is not None:
                np.add(chunk.line, lines, out=line_column[here])
            while len(doc_words) < len(chunk.doc_words):
                doc_words.append(np.zeros(bound, dtype="<u8"))
            for column, part in zip(doc_words, chunk.doc_words, strict=False):
                column[here] = part
            rows = here.stop
            tags.update(dict.fromkeys(chunk.tags))
            blank.add([n + lines for n in chunk.blank if n + lines not in skipped])
            extra.add([n + lines for n in chunk.extra])
            decimal.add([n + lines for n in chunk.decimal])
            if not ascii_only:
                non_utf8.add([n + lines for n in _non_utf8_lines(buffer, first, stop)])
            lines += chunk.lines
    except InputError as error:  # the first piece with an error: its line in the file
        where = None if error.line is None else error.line + lines
        raise InputError(error.message, error.path, where) from None
    if not rows:
        raise InputError(f"the file is empty: expected lines of {names}", path)
    warnings += comment.warning(
        "trec.comment-line",
        "{count} comment line(s) (beginning with #) skipped, as trec_eval master skips them "
        "(trec_eval 9.0.8 reads them as lines like any other: --trec-eval 9.0.8)",
        path,
    )
    warnings += non_utf8.warning(
        "trec.non-utf8",
        "{count} line(s) hold bytes that are not UTF-8: ids are compared byte for byte, as "
        "trec_eval compares them, and shown with \\x escapes",
        path,
    )
    if columns == 4:
        warnings += blank.warning(
            "trec.blank-line",
            "{count} blank line(s) of a qrels file skipped; trec_eval refuses such a file",
            path,
        )
        warnings += decimal.warning(
            "trec.decimal-relevance",
            "{count} relevance value(s) written with a decimal point are read as their integer "
            "part, as trec_eval reads them (1.0 and 1.5 are 1)",
            path,
        )
    else:
        warnings += blank.warning(
            "trec.blank-line",
            "{count} blank line(s) of a run file skipped; trec_eval refuses an empty line",
            path,
        )
        warnings += extra.warning(
            "trec.extra-fields",
            "{count} run line(s) have more than 6 fields; the fields after the sixth are "
            "ignored, as trec_eval ignores them",
            path,
        )

    saw(path, queries)  # the query ids of a chunk of the file (annoscore.scale)
    return TrecColumns(
        path=path,
        queries=list(queries),
        query=out["query"][:rows],
        doc_words=tuple(column[:rows] for column in doc_words),
        long_rows=np.concatenate(out["long_rows"]),
        long_start=np.concatenate(out["long_start"]),
        long_length=np.concatenate(out["long_length"]),
        value=out["value"][:rows],
        _line=None if line_column is None else line_column[:rows],
        tags=tuple(tags) if columns == 6 else (),
        warnings=tuple(warnings),
        data=buffer,
    )


def _blank_comments(buffer: bytearray, raw: ByteArray, first: int) -> list[int]:
    """The numbers of the comment lines of the text in ``buffer`` (between its padding
    newlines, ``raw`` its bytes up to the last; its first line begins at ``first``, past a
    byte-order mark made spaces), each made a blank line: every byte of it before its newline
    a space.  A comment line is one whose first byte is ``#`` (trec_eval master's comments;
    ``" #"`` begins with a space and is a line of data).  A file with no ``#`` at all (almost
    every file) costs one ``memchr``; one with comments two passes of NumPy, and a loop over
    its comment lines.

    >>> import numpy as np
    >>> buffer = bytearray(b"\\n#a b\\nq 0 d#1 1\\n #x\\n##\\n")
    >>> _blank_comments(buffer, np.frombuffer(buffer, dtype=np.uint8), 1), bytes(buffer)
    ([1, 4], b'\\n    \\nq 0 d#1 1\\n #x\\n  \\n')
    >>> _blank_comments(bytearray(b"\\nq 0 d#1 1\\n"), np.zeros(0, dtype=np.uint8), 1)
    []
    """
    import numpy as np

    if buffer.find(b"#") < 0 or (buffer.find(b"\n#") < 0 and buffer[first] != 35):
        return []
    newlines = np.flatnonzero(raw == 10)
    starts = newlines[:-1] + 1
    starts = starts[raw[starts] == 35]
    if buffer[first] == 35 and first > 1:  # the first line, past a byte-order mark
        starts = np.concatenate([np.array([first], dtype=starts.dtype), starts])
    at = np.searchsorted(newlines, starts)  # the newlines before each (the padding's too)
    for start, end in zip(starts.tolist(), newlines[at].tolist(), strict=True):
        raw[start:end] = 32  # (a view of buffer: its bytes)
    numbers: list[int] = at.tolist()
    return numbers


def _non_utf8_lines(buffer: bytearray, first: int, stop: int) -> list[int]:
    """The lines of ``buffer[first:stop]`` (which starts and ends with a newline; lines numbered
    from 1 there) that hold bytes that are not UTF-8.  Each decoding stops at the next bad byte
    and the next one starts after its line: linear in the bytes.
    """
    view = memoryview(buffer)
    found: list[int] = []
    position, line, counted = first, 0, first
    while position < stop:
        try:
            codecs.utf_8_decode(view[position:stop], "strict", True)
            break
        except UnicodeDecodeError as error:
            bad = position + error.start
            line += buffer.count(b"\n", counted, bad)
            counted = bad
            found.append(line)
            position = buffer.find(b"\n", bad, stop)
    return found


class _Chunk(Fields):
    """The rows of one piece of a file: query ids by run (``heads``, and each row's head),
    document ids as words (the rows of longer ones, and where they are), values, 1-based
    lines, distinct tags, and the lines that warnings name (blank, with extra fields, with a
    decimal relevance)."""

    __slots__ = (
        "blank",
        "decimal",
        "doc_words",
        "extra",
        "head_of_row",
        "heads",
        "line",
        "lines",
        "long_length",
        "long_rows",
        "long_start",
        "tags",
        "value",
    )
    blank: list[int]
    decimal: list[int]
    doc_words: tuple[WordArray, ...]
    extra: list[int]
    head_of_row: IntArray
    heads: list[bytes]
    line: IntArray
    lines: int
    long_length: IntArray
    long_rows: IntArray
    long_start: IntArray
    tags: list[bytes]
    value: AnyArray


def _read_chunk(
    raw: ByteArray,
    words: Words,
    buffer: bytearray,
    first: int,
    stop: int,
    controls: int,
    columns: int,
    names: str,
    path: Path,
) -> _Chunk:
    """The rows of ``raw[first:stop]`` (which starts and ends with a newline; ``controls`` of
    its bytes are below 32), lines numbered from 1 at ``first``."""
    import numpy as np

    piece = raw[first:stop]
    bounds = token_bounds(piece, columns, names, path, controls, offset=first)
    used = (0, 2, columns - 1) if columns == 4 else (0, 2, 4, 5)
    field_start: dict[int, IntArray] = {}
    field_length: dict[int, IntArray] = {}
    for k in used:
        field_start[k], field_length[k] = bounds.field(k)
    heads, head_of_row = equal_runs(buffer, words, field_start[0], field_length[0])
    doc_start, doc_length = field_start[2], field_length[2]
    long_rows = np.flatnonzero(doc_length > KEY_BYTES)
    number = columns - 1 if columns == 4 else 4
    value, decimal_rows = _numbers(
        buffer, words, field_start[number], field_length[number], bounds.line, path, columns == 4
    )
    decimal = bounds.line[decimal_rows].tolist()
    if bounds.error is not None:
        raise bounds.error  # after the numbers of the lines before it: one may be worse
    tags: list[bytes] = []
    if columns == 6:
        tags = one_tag(buffer, words, field_start[5], field_length[5]) or list(
            dict.fromkeys(equal_runs(buffer, words, field_start[5], field_length[5])[0])
        )
    return _Chunk(
        lines=bounds.lines,
        heads=heads,
        head_of_row=head_of_row,
        doc_words=tuple(id_words(words, doc_start, doc_length).T),
        long_rows=long_rows,
        long_start=doc_start[long_rows],
        long_length=doc_length[long_rows],
        value=value,
        line=bounds.line,
        tags=tags,
        blank=bounds.blank,
        extra=bounds.extra,
        decimal=decimal,
    )


_POW10 = [10.0**k for k in range(23)]


def _numbers(
    data: bytearray,
    words: Words,
    start: IntArray,
    length: IntArray,
    line: IntArray,
    path: Path,
    relevance: bool,
) -> tuple[AnyArray, IntArray]:
    """The numbers of one field and the rows of relevances written with a decimal point (read
    as their integer part; none for scores).  Relevances of one byte each (a qrels file's
    ``0``, ``1``, ``2``) are their digits, one gather; plain decimals are vectorised
    (:func:`plain_decimals`): a relevance (int64) of at most 16 bytes as the integer part of
    its digits; a score (``-12.5``, at most 15 digits) exact, an integer over a power of ten,
    both exact doubles: one correctly rounded division, as ``float()`` gives.  Anything else
    goes through :func:`_python_relevance` or :func:`_python_score`."""
    import numpy as np

    empty = np.zeros(0, dtype=np.int64)
    if not len(start):
        return (empty if relevance else np.zeros(0, dtype=np.float64)), empty
    if relevance and int(length.max()) == 1:  # one byte each (0, 1, 2): a digit is its value
        digit = np.frombuffer(data, dtype=np.uint8)[start] - np.uint8(48)
        if int(digit.max()) < 10:
            return digit.astype(np.int64), empty
    plain = plain_decimals(digit_grid(words, start, length), length)
    value: AnyArray
    if relevance:
        ok = plain.ok & (plain.before >= 1)
        integer = plain.mantissa // np.power(10, plain.after)  # the integer part
        value = np.where(plain.negative, -integer, integer)
        decimal = ok & plain.dotted
    else:
        digits = plain.before + plain.after
        ok = plain.ok & (digits >= 1) & (digits <= 15)
        value = plain.mantissa / np.asarray(_POW10)[np.minimum(plain.after, 22)]
        np.negative(value, out=value, where=plain.negative)
        decimal = np.zeros(0, dtype=bool)
    for row in np.flatnonzero(~ok).tolist():
        token = bytes(data[int(start[row]) : int(start[row]) + int(length[row])])
        if relevance:
            value[row], decimal[row] = _python_relevance(token, path, int(line[row]))
        else:
            value[row] = _python_score(token, path, int(line[row]))
    return value, np.flatnonzero(decimal)


_SCORE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(inf|infinity))", re.I
)
_RELEVANCE = re.compile(rb"([+-]?)([0-9]+)(\.[0-9]*)?")
_INT64 = 1 << 63


def _excerpt(token: bytes) -> str:
    """A token as a message shows it: at most 40 characters, with its length when longer."""
    text = shown(token)
    return repr(text) if len(text) <= 40 else f"{text[:40]!r}... ({len(token):,} bytes)"


def _python_score(token: bytes, path: Path, line: int) -> float:
    match = _SCORE.fullmatch(token)
    if match is None:
        if token.lower().lstrip(b"+-") == b"nan":
            raise InputError("score is NaN", path, line)
        if not token.isascii() or b"_" in token:
            raise InputError(f"score {_excerpt(token)} is not a number in ASCII digits", path, line)
        raise InputError(f"score {_excerpt(token)} is not a number", path, line)
    number = float(token)
    if number in (float("inf"), float("-inf")) and match.group(1) is None:
        raise InputError(
            f"score {_excerpt(token)} is out of the range of a 64-bit float", path, line
        )
    return number


def _python_relevance(token: bytes, path: Path, line: int) -> tuple[int, bool]:
    match = _RELEVANCE.fullmatch(token)
    if match is None:
        raise InputError(
            f"relevance {_excerpt(token)} is not an integer in ASCII digits", path, line
        )
    sign, digits, fraction = match.groups()
    digits = digits.lstrip(b"0") or b"0"
    value = int(digits) if len(digits) <= 19 else _INT64  # too many digits: out of range
    value = -value if sign == b"-" else value
    if not -_INT64 <= value < _INT64:
        raise InputError(
            f"relevance {_excerpt(token)} is out of the range of a 64-bit integer "
            "(trec_eval reads a relevance as a C long)",
            path,
            line,
        )
    return value, fraction is not None
