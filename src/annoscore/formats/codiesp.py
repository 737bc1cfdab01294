"""CodiEsp TSV files: valid-code lists, D/P code files and X reference files.

Formats (no header, tab-separated, one annotation per line; blank lines are skipped as pandas does):

- valid codes: the code is the first column; every line counts (a header line that is not a code is
  harmless); codes are lower-cased.
- D/P gold and predictions: ``clinical_case<TAB>code``.  In a prediction file, line order is the
  rank within each document.
- X gold: ``clinical_case<TAB>label<TAB>code<TAB>reference text<TAB>position``.
- X predictions: ``clinical_case<TAB>position<TAB>label<TAB>code`` (column order differs from gold).
- position: ``start end``, or ``s1 e1;s2 e2;...`` for a discontinuous reference, read as the first
  start to the last end (the official rule; annoscore accepts it on the prediction side as well).

The official scripts read these files with pandas, and so does annoscore's reading, where it
matters for a number: a UTF-8 byte-order mark is removed, CSV quotes are removed
(``"S1"<TAB>"i10"`` is ``S1``, ``i10``; :func:`pandas_fields`), each with a *tolerated* warning
naming the file and lines (``--strict-input`` makes them errors).  Lines split at ``\\n`` only; a
NUL byte, a missing column and an empty field are :class:`InputError` naming file and line.
Positions are ASCII digits.

D/P files can be large (millions of lines), so :func:`read_code_file` returns columns (NumPy
arrays of document and code indexes) rather than one object per line, and has a vectorised path
for plain ASCII files whose codes are at most 8 bytes long (every ICD-10 code is).  Anything else
(a byte-order mark, quotes, ``\\r``, blank lines, long codes) goes through the line-by-line path,
which also gives the error messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.errors import InputError
from annoscore.formats.files import (
    ascii_int,
    bom_warning,
    check_no_nul,
    read_text,
    reading,
    split_lines,
    without_bom,
)
from annoscore.formats.words import WordReader
from annoscore.model import CodeReference, CodeRows
from annoscore.result import ScoreWarning

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    Int32Array = npt.NDArray[np.int32]
    WordArray = npt.NDArray[np.uint64]

_EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class CodeFile:
    """A D/P file read: its rows, and what the reader tolerated to read it as pandas does."""

    rows: CodeRows
    warnings: tuple[ScoreWarning, ...] = ()


@dataclass(frozen=True, slots=True)
class ReferenceFile:
    """An X file read: its references, and what the reader tolerated."""

    references: list[CodeReference]
    warnings: tuple[ScoreWarning, ...] = ()


@dataclass(frozen=True, slots=True)
class ValidCodes:
    """A valid-code list read: the lower-cased codes, and what the reader tolerated."""

    codes: frozenset[str]
    warnings: tuple[ScoreWarning, ...] = ()


def _text(path: Path) -> tuple[str, list[ScoreWarning]]:
    """The file's text without a byte-order mark (pandas removes it: a tolerated warning);
    a NUL byte is an :class:`InputError` naming the line."""
    text, had_bom = without_bom(read_text(path))
    check_no_nul(text, path)
    return text, [replace(bom_warning([str(path)]), tolerated=True)] if had_bom else []


def pandas_fields(line: str, path: Path, number: int) -> tuple[list[str], bool]:
    r"""The tab-separated fields of ``line`` with CSV quotes removed as pandas removes them, and
    whether there were any.

    A field that begins with ``"`` is quoted: it runs to the next lone ``"`` (``""`` inside is
    one ``"``, a tab inside is text) and anything after the closing quote is appended as it is.
    A ``"`` inside an unquoted field is an ordinary character.  A quoted field that does not
    close on its line is an :class:`InputError` (pandas would read on into the next line).

    >>> pandas_fields('"S1"\t"i10"', Path("p.tsv"), 1)
    (['S1', 'i10'], True)
    >>> pandas_fields('"a\tb""c"\tc"d\t"x"y', Path("p.tsv"), 1)
    (['a\tb"c', 'c"d', 'xy'], True)
    """
    if '"' not in line:
        return line.split("\t"), False
    fields: list[str] = []
    at, size, quoted = 0, len(line), False
    while True:
        if line.startswith('"', at):
            quoted = True
            parts: list[str] = []
            at += 1
            while True:
                close = line.find('"', at)
                if close < 0:
                    raise InputError(
                        "a CSV-quoted field is not closed on its line (pandas would read on "
                        "into the next line); close the quote or remove it",
                        path,
                        number,
                    )
                parts.append(line[at:close])
                if line.startswith('"', close + 1):
                    parts.append('"')
                    at = close + 2
                    continue
                at = close + 1
                break
            tab = line.find("\t", at)
            end = size if tab < 0 else tab
            fields.append("".join(parts) + line[at:end])
        else:
            tab = line.find("\t", at)
            end = size if tab < 0 else tab
            fields.append(line[at:end])
        if end == size:
            return fields, quoted
        at = end + 1


def _quote_warning(path: Path, lines: list[int], count: int) -> ScoreWarning:
    return ScoreWarning(
        "codiesp.quotes",
        "{count} line(s) had CSV-quoted fields; the quotes were removed, as pandas (the "
        "official scripts' reader) removes them",
        count,
        tuple(f"{path}:{n}" for n in lines[:_EXAMPLES]),
        tolerated=True,
    )


def _columns(
    path: Path, columns: int, names: str
) -> tuple[list[tuple[int, list[str]]], list[ScoreWarning]]:
    """The non-blank lines as ``(line number, fields)`` with ``columns`` fields each, read as
    pandas reads them (byte-order mark and CSV quotes removed, with warnings)."""
    text, warnings = _text(path)
    out = []
    quoted_lines: list[int] = []
    quoted = 0
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        fields, had_quotes = pandas_fields(line, path, number)
        if had_quotes:
            quoted += 1
            if len(quoted_lines) < _EXAMPLES:
                quoted_lines.append(number)
        if len(fields) != columns:
            raise InputError(
                f"expected {columns} tab-separated columns ({names}), found {len(fields)}",
                path,
                number,
            )
        out.append((number, fields))
    if quoted:
        warnings.append(_quote_warning(path, quoted_lines, quoted))
    return out, warnings


def read_valid_code_file(path: Path) -> ValidCodes:
    """The lower-cased first column of every non-blank line of a valid-code TSV, with the
    reader's warnings (a byte-order mark or CSV quotes removed, as pandas does)."""
    text, warnings = _text(path)
    codes: set[str] = set()
    quoted: list[int] = []
    for number, line in enumerate(split_lines(text), start=1):
        code = line.split("\t", 1)[0]
        if code.startswith('"'):
            code = pandas_fields(line, path, number)[0][0]
            quoted.append(number)
        if code.strip():
            codes.add(code.lower())
    if not codes:
        raise InputError("the valid-code list is empty: expected one code per line", path)
    if quoted:
        warnings.append(_quote_warning(path, quoted, len(quoted)))
    return ValidCodes(frozenset(codes), tuple(warnings))


def read_valid_codes(path: Path) -> frozenset[str]:
    """The lower-cased first column of every non-blank line of a valid-code TSV
    (:func:`read_valid_code_file` without its warnings).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "codes.tsv"
    >>> _ = p.write_text("A00.1\\tes\\ten\\nb20\\n")
    >>> sorted(read_valid_codes(p))
    ['a00.1', 'b20']
    """
    return read_valid_code_file(path).codes


def read_code_file(
    path: Path,
    what: str,
    *,
    lowercase: bool = True,
    vocabulary: Sequence[str] | None = None,
    allow_empty: bool = False,
) -> CodeFile:
    """Read a 2-column ``clinical_case<TAB>code`` file (CodiEsp D or P, gold or predictions).

    ``what`` names the file in error messages ("gold", "predictions").  Codes are lower-cased
    unless ``lowercase`` is false.  With ``vocabulary``, codes are indexed into it (-1 when
    absent); without, the file's own distinct codes form ``codes``.  A missing file, a line
    without exactly 2 columns and an empty field are :class:`InputError`; so is a file with no
    line unless ``allow_empty`` (then it has no rows).
    """
    rows = _fast_code_rows(path, lowercase, vocabulary)
    if rows is not None:
        return CodeFile(rows)
    return _slow_code_rows(path, what, lowercase, vocabulary, allow_empty)


def read_code_rows(
    path: Path,
    what: str,
    *,
    lowercase: bool = True,
    vocabulary: Sequence[str] | None = None,
) -> CodeRows:
    """The rows of :func:`read_code_file` (its warnings are left to the caller who asks)."""
    return read_code_file(path, what, lowercase=lowercase, vocabulary=vocabulary).rows


def read_gold_reference_file(path: Path, *, lowercase: bool = True) -> ReferenceFile:
    """CodiEsp-X gold: ``clinical_case, label, code, reference text, position`` per line."""
    out: list[CodeReference] = []
    lines, warnings = _columns(path, 5, "clinical_case, label, code, reference, position")
    for number, fields in lines:
        document, label, code, text, position = fields
        _need(document, "clinical case", path, number)
        _need(code, "code", path, number)
        start, end = parse_position(position, path, number)
        code = code.lower() if lowercase else code
        out.append(CodeReference(document, label, code, start, end, number, text))
    if not out:
        raise InputError("the gold file is empty: expected 5 tab-separated columns", path)
    return ReferenceFile(out, tuple(warnings))


def read_predicted_reference_file(
    path: Path, *, lowercase: bool = True, allow_empty: bool = False
) -> ReferenceFile:
    """CodiEsp-X predictions: ``clinical_case, position, label, code`` per line (an empty file
    is an :class:`InputError` unless ``allow_empty``)."""
    out: list[CodeReference] = []
    lines, warnings = _columns(path, 4, "clinical_case, position, label, code")
    for number, fields in lines:
        document, position, label, code = fields
        _need(document, "clinical case", path, number)
        _need(code, "code", path, number)
        start, end = parse_position(position, path, number)
        code = code.lower() if lowercase else code
        out.append(CodeReference(document, label, code, start, end, number))
    if not out and not allow_empty:
        raise InputError("the prediction file is empty: expected 4 tab-separated columns", path)
    return ReferenceFile(out, tuple(warnings))


def read_gold_references(path: Path, *, lowercase: bool = True) -> list[CodeReference]:
    """The references of :func:`read_gold_reference_file`."""
    return read_gold_reference_file(path, lowercase=lowercase).references


def read_predicted_references(path: Path, *, lowercase: bool = True) -> list[CodeReference]:
    """The references of :func:`read_predicted_reference_file`."""
    return read_predicted_reference_file(path, lowercase=lowercase).references


def parse_position(text: str, path: Path, line: int) -> tuple[int, int]:
    """``"start end"`` or ``"s1 e1;s2 e2"`` -> (first start, last end); ASCII digits only.

    >>> parse_position("385 397;405 411", Path("g.tsv"), 1)
    (385, 411)
    """
    fragments = []
    for part in text.split(";"):
        pieces = part.split()
        numbers = [ascii_int(p) for p in pieces]
        if len(numbers) != 2 or numbers[0] is None or numbers[1] is None:
            raise InputError(
                f"bad position {text[:40]!r}: expected 'start end' or 's1 e1;s2 e2' with "
                "non-negative integers in ASCII digits",
                path,
                line,
            )
        fragments.append((numbers[0], numbers[1]))
    return fragments[0][0], fragments[-1][1]


def _need(value: str, name: str, path: Path, line: int) -> None:
    if not value.strip():
        raise InputError(f"empty {name}", path, line)


def integer_ids(documents: Sequence[str]) -> list[str] | None:
    """The ids as pandas reads a column in which every id looks like an integer (optional
    surrounding spaces and sign, ASCII digits: ``0001`` -> ``1``), else ``None`` (pandas then
    keeps every id of the column as text).

    >>> integer_ids(["0001", " 2", "+3", "-04"]), integer_ids(["0001", "S1"])
    (['1', '2', '3', '-4'], None)
    """
    out = []
    for doc in documents:
        token = doc.strip(" ")
        sign = token[:1] in ("+", "-")
        value = ascii_int(token[1:] if sign else token)
        if value is None:
            return None
        out.append(str(-value if token[:1] == "-" else value))
    return out


# --- the line-by-line path -------------------------------------------------------------------


def _slow_code_rows(
    path: Path, what: str, lowercase: bool, vocabulary: Sequence[str] | None, allow_empty: bool
) -> CodeFile:
    import numpy as np

    doc_index: dict[str, int] = {}
    code_index: dict[str, int] = (
        {} if vocabulary is None else {c: i for i, c in enumerate(vocabulary)}
    )
    docs: list[int] = []
    codes: list[int] = []
    lines: list[int] = []
    unknown: dict[str, int] = {}
    unknown_rows = 0
    uppercase = 0
    rows, warnings = _columns(path, 2, "clinical_case, code")
    for number, (document, code) in rows:
        _need(document, "clinical case", path, number)
        _need(code, "code", path, number)
        if lowercase:
            lowered = code.lower()
            uppercase += lowered != code
            code = lowered
        docs.append(doc_index.setdefault(document, len(doc_index)))
        if vocabulary is None:
            codes.append(code_index.setdefault(code, len(code_index)))
        else:
            found = code_index.get(code, -1)
            if found < 0:
                unknown_rows += 1
                unknown[code] = unknown.get(code, 0) + 1
            codes.append(found)
        lines.append(number)
    if not docs and not allow_empty:
        raise InputError(f"the {what} file is empty: expected 'clinical_case<TAB>code' lines", path)
    rows_read = CodeRows(
        path=path,
        documents=list(doc_index),
        codes=list(code_index) if vocabulary is None else list(vocabulary),
        doc=np.array(docs, dtype=np.int32),
        code=np.array(codes, dtype=np.int32),
        lines=np.array(lines, dtype=np.int64),
        unknown=unknown_rows,
        unknown_distinct=len(unknown),
        unknown_examples=tuple(list(unknown)[:_EXAMPLES]),
        uppercase=uppercase,
    )
    return CodeFile(rows_read, tuple(warnings))


# --- the vectorised path ---------------------------------------------------------------------
#
# The file is read in chunks of whole lines into one reused buffer (so memory stays small and
# the temporary arrays are recycled), and each chunk is cut into fields with NumPy: newline and
# tab positions, then each code (at most 8 bytes) as one little-endian 64-bit word, looked up in
# a hash table of the vocabulary; documents are compared word by word with the previous line, so
# only the first line of each run of equal documents goes through a Python dict.

_CHUNK = 1 << 20


class _WordTable:
    """An open-addressing hash table from non-zero 64-bit words to ids (0 marks an empty slot)."""

    _MULTIPLIER = 0x9E3779B97F4A7C15

    def __init__(self, keys: list[int], ids: list[int]) -> None:
        import numpy as np

        bits = max(4, (4 * len(keys)).bit_length())
        self.size = 1 << bits
        self.shift = np.uint64(64 - bits)
        self.key = np.zeros(self.size, dtype=np.uint64)
        self.id = np.full(self.size, -1, dtype=np.int64)
        mask = self.size - 1
        for key, ident in zip(keys, ids, strict=True):
            slot = ((key * self._MULTIPLIER) & 0xFFFFFFFFFFFFFFFF) >> (64 - bits)
            while self.id[slot] >= 0:
                slot = (slot + 1) & mask
            self.key[slot] = key
            self.id[slot] = ident

    def lookup(self, query: WordArray) -> IntArray:
        """The id of each query word, -1 where absent."""
        import numpy as np

        slot = ((query * np.uint64(self._MULTIPLIER)) >> self.shift).astype(np.int64)
        id_at = self.id[slot]
        found = self.key[slot] == query
        result: IntArray = np.where(found, id_at, -1)
        pending = np.flatnonzero(~found & (id_at >= 0))
        slots = (slot[pending] + 1) & (self.size - 1)
        while len(pending):  # linear probing for the few words that collided
            id_at = self.id[slots]
            found = self.key[slots] == query[pending]
            result[pending[found]] = id_at[found]
            keep = ~found & (id_at >= 0)
            pending, slots = pending[keep], (slots[keep] + 1) & (self.size - 1)
        return result


def _word_text(word: int) -> str:
    return word.to_bytes(8, "little").rstrip(b"\0").decode("ascii")


class _FastReader:
    """Accumulates the columns of a file read chunk by chunk."""

    def __init__(self, lowercase: bool, vocabulary: Sequence[str] | None) -> None:
        self.lowercase = lowercase
        self.vocabulary = vocabulary
        self.doc_index: dict[str, int] = {}
        self.word_index: dict[int, int] = {}
        self.table: _WordTable | None = None
        if vocabulary is not None:
            first: dict[int, int] = {}
            for i, code in enumerate(vocabulary):
                if code.isascii() and 0 < len(code) <= 8 and "\0" not in code:
                    first.setdefault(int.from_bytes(code.encode("ascii"), "little"), i)
            self.table = _WordTable(list(first), list(first.values()))
        self.doc_parts: list[Int32Array] = []
        self.code_parts: list[Int32Array] = []
        self.unknown = 0
        self.unknown_words: set[int] = set()
        self.examples: list[int] = []
        self.uppercase = 0

    def chunk(self, buffer: bytearray, size: int) -> bool:
        """Add the complete lines in ``buffer[:size]``; False if they need the line path."""
        import numpy as np

        for special in (b"\r", b"\0", b'"'):
            if buffer.find(special, 0, size) >= 0:
                return False
        raw = np.frombuffer(buffer, dtype=np.uint8, count=size)
        newline = np.flatnonzero(raw == 10)
        tab = np.flatnonzero(raw == 9)
        if len(tab) != len(newline):
            return False
        line_start = np.empty_like(newline)
        line_start[0] = 0
        line_start[1:] = newline[:-1] + 1
        if not bool(((tab > line_start) & (tab + 1 < newline)).all()):
            return False
        code_start = tab + 1
        code_length = newline - code_start
        if int(code_length.max()) > 8:
            return False
        words = np.frombuffer(buffer, dtype="<u8")
        code_word = WordReader(words, code_start).word(0, code_length)
        as_bytes = code_word.view(np.uint8)
        upper = (as_bytes - np.uint8(65)) < 26
        uppercase = int(np.count_nonzero(upper.view(np.uint64)))
        self.uppercase += uppercase
        if self.lowercase and uppercase:
            np.add(as_bytes, 32, out=as_bytes, where=upper)

        doc_length = tab - line_start
        changed = np.empty(len(tab), dtype=bool)
        changed[0] = True
        np.not_equal(doc_length[1:], doc_length[:-1], out=changed[1:])
        reader = WordReader(words, line_start)
        longest = int(doc_length.max())
        same_length = longest == int(doc_length.min())
        for k in range((longest + 7) // 8):
            word = reader.word(k, longest - 8 * k if same_length else doc_length - 8 * k)
            changed[1:] |= word[1:] != word[:-1]
        heads = np.flatnonzero(changed)
        index = self.doc_index
        run_doc = np.fromiter(
            (
                index.setdefault(buffer[s:e].decode("ascii"), len(index))
                for s, e in zip(line_start[heads].tolist(), tab[heads].tolist(), strict=True)
            ),
            dtype=np.int64,
            count=len(heads),
        )
        self.doc_parts.append(run_doc[np.cumsum(changed) - 1].astype(np.int32))

        if self.table is None:
            unique, inverse = np.unique(code_word, return_inverse=True)
            seen = self.word_index
            ids = np.array([seen.setdefault(w, len(seen)) for w in unique.tolist()], dtype=np.int64)
            self.code_parts.append(ids[inverse].astype(np.int32))
            return True
        code = self.table.lookup(code_word)
        self.code_parts.append(code.astype(np.int32))
        missing = np.flatnonzero(code < 0)
        if len(missing):
            self.unknown += len(missing)
            self.unknown_words.update(np.unique(code_word[missing]).tolist())
            for word in code_word[missing[: 64 * _EXAMPLES]].tolist():
                if len(self.examples) < _EXAMPLES and word not in self.examples:
                    self.examples.append(word)
        return True

    def rows(self, path: Path) -> CodeRows:
        import numpy as np

        doc = np.concatenate(self.doc_parts)
        code = np.concatenate(self.code_parts)
        if self.vocabulary is None:
            codes = [_word_text(w) for w in self.word_index]
        else:
            codes = list(self.vocabulary)
        return CodeRows(
            path=path,
            documents=list(self.doc_index),
            codes=codes,
            doc=doc,
            code=code,
            lines=None,
            unknown=self.unknown,
            unknown_distinct=len(self.unknown_words),
            unknown_examples=tuple(_word_text(w) for w in self.examples),
            uppercase=self.uppercase,
        )


def _fast_code_rows(
    path: Path, lowercase: bool, vocabulary: Sequence[str] | None
) -> CodeRows | None:
    """Vectorised reading of a well-formed ASCII file; ``None`` means: use the line path."""
    fast = _FastReader(lowercase, vocabulary)
    buffer = bytearray(_CHUNK + 16)
    view = memoryview(buffer)
    carry = 0
    with reading(path), path.open("rb") as handle:
        while True:
            got = handle.readinto(view[carry:_CHUNK])
            end = carry + got
            if got == 0:
                if carry == 0:
                    break
                buffer[carry] = 10  # the last line had no newline
                end = carry + 1
            if not buffer.isascii():
                return None
            last = buffer.rfind(b"\n", 0, end)
            if last < 0:
                return None  # a line longer than the buffer
            size = last + 1
            if not fast.chunk(buffer, size):
                return None
            carry = end - size
            buffer[:carry] = buffer[size:end]
            if got == 0:
                break
    if not fast.doc_parts:
        return None
    return fast.rows(path)
