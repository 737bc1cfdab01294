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

D/P files can be large, so :func:`read_code_file` returns columns (NumPy arrays of document and
code indexes), read once: the columnar scan of :mod:`annoscore.formats.codiesp_scan` (plain
files) or :func:`_parse_code_rows` (the checked parser), codes as written; :func:`recode`
lower-cases and indexes the distinct codes.  The scan may start from the valid codes
(:class:`~annoscore.formats.codiesp_scan.CodeSeed`, made once per process), so that a file's
(or a chunk's) work is per code outside the valid list, not per valid code it uses.
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from annoscore.code_lists import CodeReference, CodeRows
from annoscore.errors import InputError
from annoscore.formats.codiesp_scan import CodeSeed, _scan_code_rows
from annoscore.formats.files import (
    bom_warning,
    check_no_nul,
    cut_of,
    decode_utf8,
    first_line,
    not_exact,
    once,
    read_cut,
    reading,
    saw,
    split_lines,
    without_bom,
)
from annoscore.records import Record, set_fields
from annoscore.score_warnings import ScoreWarning

_EXAMPLES = 5


class CodeFile(Record):
    """A D/P file read: its rows, and what the reader tolerated to read it as pandas does."""

    __slots__ = ("rows", "warnings")
    rows: CodeRows
    warnings: tuple[ScoreWarning, ...]

    def __init__(self, rows: CodeRows, warnings: tuple[ScoreWarning, ...] = ()) -> None:
        set_fields(self, rows=rows, warnings=warnings)


class ReferenceFile(Record):
    """An X file read: its references, and what the reader tolerated."""

    __slots__ = ("references", "warnings")
    references: list[CodeReference]
    warnings: tuple[ScoreWarning, ...]

    def __init__(
        self, references: list[CodeReference], warnings: tuple[ScoreWarning, ...] = ()
    ) -> None:
        set_fields(self, references=references, warnings=warnings)


class ValidCodes(Record):
    """A valid-code list read: the lower-cased codes, and what the reader tolerated."""

    __slots__ = ("codes", "warnings")
    codes: frozenset[str]
    warnings: tuple[ScoreWarning, ...]

    def __init__(self, codes: frozenset[str], warnings: tuple[ScoreWarning, ...] = ()) -> None:
        set_fields(self, codes=codes, warnings=warnings)


@contextmanager
def _opened(path: Path) -> Iterator[io.BufferedIOBase]:
    """``path`` opened once for reading bytes; an input that cannot seek (a pipe, a FIFO,
    ``<(cat FILE)``) is read into memory first, so that it can be read from the start again
    (its writer sends it only once).  The operating system's errors are :class:`InputError`."""
    cut = cut_of(path)
    if cut is not None:  # a chunk of the file (annoscore.scale)
        yield io.BytesIO(read_cut(path, cut))
        return
    with reading(path), path.open("rb") as handle:
        if handle.seekable():
            yield handle
        else:
            yield io.BytesIO(handle.read())


def _read_all(handle: io.BufferedIOBase, path: Path) -> bytes:
    with reading(path):
        handle.seek(0)
        return handle.read()


def _text(data: bytes, path: Path) -> tuple[str, list[ScoreWarning]]:
    """The text of ``data`` (read from ``path``) without a byte-order mark (pandas removes it:
    a tolerated warning); bytes that are not UTF-8 and a NUL byte are :class:`InputError`
    naming the line."""
    text, had_bom = without_bom(decode_utf8(data, path))
    check_no_nul(text, path)
    return text, [replace(bom_warning([str(path)]), tolerated=True)] if had_bom else []


def _file_text(path: Path) -> tuple[str, list[ScoreWarning]]:
    """:func:`_text` of the whole file, read once."""
    with _opened(path) as handle:
        return _text(_read_all(handle, path), path)


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
    text: str, path: Path, columns: int, names: str
) -> tuple[list[tuple[int, list[str]]], list[ScoreWarning]]:
    """The non-blank lines of ``text`` as ``(line number, fields)`` with ``columns`` fields
    each, read as pandas reads them (CSV quotes removed, with a warning)."""
    out = []
    warnings: list[ScoreWarning] = []
    quoted_lines: list[int] = []
    quoted = 0
    # a chunk of the file (annoscore.scale) numbers its lines as the whole file does
    for number, line in enumerate(split_lines(text), start=first_line(path)):
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
    reader's warnings (a byte-order mark or CSV quotes removed, as pandas does); read once
    for all the chunks of a cut run (:func:`~annoscore.formats.files.once`)."""
    return once(("valid-codes", os.path.abspath(path)), lambda: _read_valid_codes(path))


def _read_valid_codes(path: Path) -> ValidCodes:
    text, warnings = _file_text(path)
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


def read_code_file(
    path: Path,
    what: str,
    *,
    lowercase: bool = True,
    vocabulary: Sequence[str] | None = None,
    allow_empty: bool = False,
    seed: CodeSeed | None = None,
) -> CodeFile:
    """Read a 2-column ``clinical_case<TAB>code`` file (CodiEsp D or P, gold or predictions).

    ``what`` names the file in error messages ("gold", "predictions").  Codes are lower-cased
    unless ``lowercase`` is false.  With ``vocabulary``, codes are indexed into it (-1 when
    absent); without, the file's own distinct codes form ``codes`` (:func:`recode`; read with
    ``lowercase=False`` and no vocabulary, the rows hold the codes as written, and
    :func:`recode` gives any other view of them without reading again).  A missing file, a line
    without exactly 2 columns and an empty field are :class:`InputError`; so is a file with no
    line unless ``allow_empty`` (then it has no rows).  With ``seed`` (read as written, no
    vocabulary), a plain file's rows may start from its codes (:class:`CodeSeed`: the same
    rows on ids that put the seed's codes first; the checked parser does not use it).
    """
    seeded = seed if not lowercase and vocabulary is None else None
    with _opened(path) as handle:
        rows = _scan_code_rows(handle, path, seeded)
        if rows is not None:
            first = first_line(path)
            if first > 1:  # a chunk of the file: its rows named by the whole file's lines
                import numpy as np

                rows = rows.replaced(lines=np.arange(first, first + len(rows), dtype=np.int64))
            read = CodeFile(rows)
        else:
            read = _parse_code_rows(_read_all(handle, path), path, what, allow_empty)
    saw(path, read.rows.documents)
    if cut_of(path) is not None:
        # pandas reads every id of the file as a number when every one looks like an integer:
        # a property of the whole file, which a chunk cannot see
        numbers = integer_ids(read.rows.documents)
        if numbers is not None and numbers != read.rows.documents:
            not_exact(path)
    if not lowercase and vocabulary is None:
        return read
    return CodeFile(recode(read.rows, lowercase=lowercase, vocabulary=vocabulary), read.warnings)


def read_code_rows(
    path: Path, what: str, *, lowercase: bool = True, vocabulary: Sequence[str] | None = None
) -> CodeRows:
    """The rows of :func:`read_code_file` (its warnings are left to the caller who asks)."""
    return read_code_file(path, what, lowercase=lowercase, vocabulary=vocabulary).rows


def code_rows_of(
    codes: Mapping[str, Sequence[str]], what: str, *, allow_empty: bool = False
) -> CodeRows:
    """The rows of a D/P corpus given in memory, ``document id -> codes`` (in rank order), as
    :func:`read_code_file` reads a file of those lines: codes as written, row ``i`` named
    ``<what>:i+1`` in warnings (a document with no code is absent, as from a file).  An id or
    a code that is not text or is blank, or a string given as a document's codes, is an
    :class:`InputError`; so is no row at all unless ``allow_empty``.

    >>> rows = code_rows_of({"D1": ["A1", "b2"], "D2": ["b2"]}, "gold")
    >>> rows.documents, rows.codes, rows.doc.tolist(), rows.code.tolist(), str(rows.path)
    (['D1', 'D2'], ['A1', 'b2'], [0, 0, 1], [0, 1, 1], '<gold>')
    """
    import numpy as np

    doc_index: dict[str, int] = {}
    code_index: dict[str, int] = {}
    docs: list[int] = []
    code_ids: list[int] = []
    for document, ranked in codes.items():
        if isinstance(ranked, str):
            raise InputError(f"{what}: document {document!r}: expected a list of codes, not text")
        for code in ranked:
            for value, name in ((document, "document id"), (code, "code")):
                if not isinstance(value, str) or not value.strip():
                    raise InputError(
                        f"{what}: document {document!r}: {name} {value!r} is not a non-blank string"
                    )
            docs.append(doc_index.setdefault(document, len(doc_index)))
            code_ids.append(code_index.setdefault(code, len(code_index)))
    if not docs and not allow_empty:
        raise InputError(f"the {what} codes are empty: expected at least one document's code")
    doc, ids = np.array(docs, dtype=np.int32), np.array(code_ids, dtype=np.int32)
    return CodeRows(Path(f"<{what}>"), list(doc_index), list(code_index), doc, ids, None)


def recode(
    rows: CodeRows, *, lowercase: bool = True, vocabulary: Sequence[str] | None = None
) -> CodeRows:
    """``rows`` (codes as written) with their codes lower-cased (``str.lower``, as the official
    scripts do) when ``lowercase``, and indexed into ``vocabulary`` (-1 where absent, counted
    in ``unknown``) when given, else into their own distinct codes in order of first
    appearance.  The work is per distinct code, plus one gather over the rows.

    >>> import numpy as np
    >>> rows = CodeRows(Path("p"), ["D1"], ["A1", "a1", "B2"], np.zeros(3, np.int32),
    ...                 np.array([0, 1, 2], np.int32), None)
    >>> low = recode(rows)
    >>> low.codes, low.code.tolist(), low.uppercase
    (['a1', 'b2'], [0, 0, 1], 2)
    >>> known = recode(rows, vocabulary=["b2"])
    >>> known.code.tolist(), known.unknown, known.unknown_distinct, known.unknown_examples
    ([-1, -1, 0], 2, 1, ('a1',))
    """
    import numpy as np

    written = list(rows.codes)
    codes = list(map(str.lower, written)) if lowercase else written
    per_code = None
    uppercase = 0
    if codes is not written and codes != written:
        upper = [i for i, (c, w) in enumerate(zip(codes, written, strict=True)) if c != w]
        per_code = np.bincount(rows.code, minlength=len(written))
        uppercase = int(per_code[upper].sum())
    if vocabulary is None:
        index: dict[str, int] = dict.fromkeys(codes, 0)
        if len(index) == len(codes):  # distinct (the reader's codes, not lower-cased together)
            # each code keeps its id: the rows as they are, none outside the codes
            return rows.replaced(
                codes=list(codes),
                unknown=0,
                unknown_distinct=0,
                unknown_examples=(),
                uppercase=uppercase,
            )
        else:
            index = {}
            remap = [index.setdefault(c, len(index)) for c in codes]
            names = list(index)
    else:
        # each code's first place in the vocabulary (reversed: the first place is set last)
        last = len(vocabulary) - 1
        index = dict(zip(reversed(vocabulary), range(last, -1, -1), strict=True))
        remap = list(map(index.get, codes, itertools.repeat(-1)))
        names = list(vocabulary)
    identity = remap == list(range(len(remap)))
    code = rows.code if identity else np.array(remap, dtype=np.int32)[rows.code]
    unknown = unknown_distinct = 0
    examples: tuple[str, ...] = ()
    missing = [i for i, r in enumerate(remap) if r < 0] if -1 in remap else []
    if missing:
        if per_code is None:
            per_code = np.bincount(rows.code, minlength=len(written))
        unknown = int(per_code[missing].sum())
        distinct = list(dict.fromkeys(codes[i] for i in missing))
        unknown_distinct, examples = len(distinct), tuple(distinct[:_EXAMPLES])
    return rows.replaced(
        codes=names,
        code=code,
        unknown=unknown,
        unknown_distinct=unknown_distinct,
        unknown_examples=examples,
        uppercase=uppercase,
    )


def read_gold_reference_file(path: Path, *, lowercase: bool = True) -> ReferenceFile:
    """CodiEsp-X gold: ``clinical_case, label, code, reference text, position`` per line."""
    return _reference_file(path, True, lowercase, "gold")


def read_predicted_reference_file(
    path: Path, *, lowercase: bool = True, allow_empty: bool = False
) -> ReferenceFile:
    """CodiEsp-X predictions: ``clinical_case, position, label, code`` per line (an empty file
    is an :class:`InputError` unless ``allow_empty``)."""
    return _reference_file(path, False, lowercase, None if allow_empty else "prediction")


def _reference_file(path: Path, gold: bool, lowercase: bool, empty: str | None) -> ReferenceFile:
    """An X file of either side; no line is an error naming the ``empty`` file, if given."""
    out: list[CodeReference] = []
    text, warnings = _file_text(path)
    names = "label, code, reference, position" if gold else "position, label, code"
    lines, quotes = _columns(text, path, 5 if gold else 4, "clinical_case, " + names)
    for number, fields in lines:
        if gold:
            document, label, code, reference, position = fields
        else:
            (document, position, label, code), reference = fields, ""
        _need(document, "clinical case", path, number)
        _need(code, "code", path, number)
        start, end = parse_position(position, path, number)
        code = code.lower() if lowercase else code
        out.append(CodeReference(document, label, code, start, end, number, reference))
    if not out and empty is not None:
        columns = 5 if gold else 4
        raise InputError(
            f"the {empty} file is empty: expected {columns} tab-separated columns", path
        )
    saw(path, (r.document for r in out))
    return ReferenceFile(out, (*warnings, *quotes))


MAX_POSITION = (1 << 63) - 1
"""The largest position read (a 64-bit integer, as NumPy and pandas hold a column of
positions); a larger one is an :class:`InputError`, never Python's digit limit."""


def parse_position(text: str, path: Path, line: int) -> tuple[int, int]:
    """``"start end"`` or ``"s1 e1;s2 e2"`` -> (first start, last end); ASCII digits only, each
    number at most :data:`MAX_POSITION`.

    >>> parse_position("385 397;405 411", Path("g.tsv"), 1)
    (385, 411)
    """
    fragments = []
    for part in text.split(";"):
        pieces = part.split()
        if len(pieces) != 2 or not all(p.isascii() and p.isdigit() for p in pieces):
            raise InputError(
                f"bad position {text[:40]!r}: expected 'start end' or 's1 e1;s2 e2' with "
                "non-negative integers in ASCII digits",
                path,
                line,
            )
        for piece in pieces:
            if len(piece.lstrip("0")) > 19 or int(piece) > MAX_POSITION:
                raise InputError(
                    f"bad position: {piece[:20]}{'...' if len(piece) > 20 else ''} "
                    f"({len(piece)} digits) is larger than {MAX_POSITION}, the largest "
                    "64-bit integer",
                    path,
                    line,
                )
        fragments.append((int(pieces[0]), int(pieces[1])))
    return fragments[0][0], fragments[-1][1]


def _need(value: str, name: str, path: Path, line: int) -> None:
    if not value.strip():
        raise InputError(f"empty {name}", path, line)


def integer_ids(documents: Sequence[str]) -> list[str] | None:
    """The ids as pandas reads a column in which every id looks like an integer (optional
    surrounding spaces and sign, ASCII digits: ``0001`` -> ``1``), else ``None`` (pandas then
    keeps every id of the column as text).  The number is written in its shortest form by
    string operations (an id of any length, never Python's digit limit).

    >>> integer_ids(["0001", " 2", "+3", "-04", "-0", "000"]), integer_ids(["0001", "S1"])
    (['1', '2', '3', '-4', '0', '0'], None)
    """
    out = []
    for doc in documents:
        token = doc.strip(" ")
        sign = token[:1] in ("+", "-")
        digits = token[1:] if sign else token
        if not (digits and digits.isascii() and digits.isdigit()):
            return None
        number = digits.lstrip("0") or "0"
        out.append("-" + number if token[:1] == "-" and number != "0" else number)
    return out


# --- the checked parser: line by line, names file and line ------------------------------------


def _parse_code_rows(data: bytes, path: Path, what: str, allow_empty: bool) -> CodeFile:
    """The rows of a D/P file from its bytes, line by line: codes as written, documents and
    codes indexed in order of first appearance; every error names the file and line."""
    import numpy as np

    text, warnings = _text(data, path)
    rows, quotes = _columns(text, path, 2, "clinical_case, code")
    doc_index: dict[str, int] = {}
    code_index: dict[str, int] = {}
    docs: list[int] = []
    codes: list[int] = []
    lines: list[int] = []
    for number, (document, code) in rows:
        _need(document, "clinical case", path, number)
        _need(code, "code", path, number)
        docs.append(doc_index.setdefault(document, len(doc_index)))
        codes.append(code_index.setdefault(code, len(code_index)))
        lines.append(number)
    if not docs and not allow_empty:
        raise InputError(f"the {what} file is empty: expected 'clinical_case<TAB>code' lines", path)
    line_numbers = np.array(lines, dtype=np.int64)
    every_line = bool(len(lines) == 0 or lines[-1] == len(lines))  # no blank line skipped
    read = CodeRows(
        path=path,
        documents=list(doc_index),
        codes=list(code_index),
        doc=np.array(docs, dtype=np.int32),
        code=np.array(codes, dtype=np.int32),
        lines=None if every_line else line_numbers,
    )
    return CodeFile(read, (*warnings, *quotes))
