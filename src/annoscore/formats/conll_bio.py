"""Tag columns of CoNLL-style files (one token per line), read as conlleval.pl reads them.

Layout: one token per line, fields split by a delimiter, blank lines between sentences::

    -DOCSTART- -X- O O
    <blank line>
    John NNP B-PER B-PER
    lives VBZ O O

Rules (``../shared/spec/formats.md``, conlleval.pl 2004-01-26, "observed"):

* Lines end at ``\\n`` only: a CRLF file keeps ``\\r`` in its last field (conlleval does; the
  task warns).  A leading UTF-8 byte-order mark is removed (the task warns): conlleval would
  keep it in the first token, where it hides a first ``-X-`` or ``-DOCSTART-``.  A NUL byte
  is an error naming its line.
* A line is split by a regular expression with **Perl's** ``split`` rules (:func:`perl_split`):
  the default delimiter is one space, so two spaces make an empty field; trailing empty fields
  are dropped, so a line of delimiters only is blank.  ``delimiter=None`` splits on any run of
  whitespace (the Python way, for tag files that are not read as conlleval reads them).
* The number of fields is fixed by the first non-blank line; another number on a later line is
  an :class:`~annoscore.errors.InputError` naming the line (conlleval dies with "unexpected
  number of features").
* A blank line, or a line whose first field is ``-X-``, is a **boundary**: it ends chunks and is
  not a token.  A ``-DOCSTART-`` line is an ordinary token (conlleval counts it); it also starts
  a document for ``--per-doc`` (:attr:`TagColumns.documents`).
* The tag columns are picked by index (``-2, -1``: conlleval's gold and guess).

A document's id is what its ``-DOCSTART-`` line holds between the token and the tag columns,
``-X-`` fillers left out (``-DOCSTART- doc7 O`` is ``doc7``), or its number (``1``, ``2``, ...)
when that is nothing; tokens before the first ``-DOCSTART-`` are document ``0``; a file without
``-DOCSTART-`` is one document named by the file's name (two such files, gold and system, pair by
position whatever their names: :func:`pair_tag_files`).

>>> t = read_tag_text("-DOCSTART- -X- O O\\n\\nJohn NNP B-PER B-PER\\nlives VBZ O B-LOC\\n", "x")
>>> t.columns
([\'O\', \'O\', \'B-PER\', \'O\'], [\'O\', \'O\', \'B-PER\', \'B-LOC\'])
>>> t.boundary, [d.name for d in t.documents]
([False, True, False, False], [\'1\'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.errors import InputError
from annoscore.formats.files import check_no_nul, cut_of, read_text, reading, without_bom
from annoscore.records import Fields, Record, set_fields

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, ByteArray, IntArray, WordArray


BOUNDARY = "-X-"
"""The first field of a line conlleval reads as a sentence boundary."""

DOCSTART = "-DOCSTART-"
"""The first field of a line that starts a document (a token for conlleval)."""


def perl_split(pattern: re.Pattern[str], line: str) -> list[str]:
    """``line`` split by ``pattern`` as Perl's ``split(/pattern/, $line)`` splits it: a
    zero-length match at the start, or where the previous match ended, does not split; trailing
    empty fields are dropped (so a line of delimiters only has no field).

    >>> perl_split(re.compile(" "), "a  b c  ")
    ['a', '', 'b', 'c']
    >>> perl_split(re.compile("|"), "ab|c")
    ['a', 'b', '|', 'c']
    >>> perl_split(re.compile("x*"), "axxb")
    ['a', 'b']
    """
    fields: list[str] = []
    start = 0
    pos = 0
    last_end = -1
    n = len(line)
    while pos <= n:
        m = pattern.search(line, pos)
        if m is None:
            break
        s, e = m.span()
        if s == e and (s == 0 or s == last_end or s >= n):
            pos = s + 1
            continue
        fields.append(line[start:s])
        start = e
        last_end = e
        pos = e if e > s else e + 1
    fields.append(line[start:])
    while fields and fields[-1] == "":
        fields.pop()
    return fields


class Document(Record):
    """A document of a tag file: its id, its first item and its ``-DOCSTART-`` line (0: the
    items before the first ``-DOCSTART-``)."""

    __slots__ = ("name", "start", "line")  # noqa: RUF023 (the fields' order)
    name: str
    start: int
    line: int

    def __init__(self, name: str, start: int, line: int) -> None:
        set_fields(self, name=name, start=start, line=line)


class TagColumns(Record):
    """The items of a tag file in order: every line that is a token or a boundary.

    ``columns[k][i]``: item ``i``'s tag in the ``k``-th column asked for (``"O"`` at a
    boundary); ``boundary[i]``: whether item ``i`` is a boundary (a blank or ``-X-`` line);
    ``tokens[i]``: its first field (``-X-`` at a boundary); ``line[i]``: its line number (1-based;
    as read, ``range(1, n + 1)``: item ``i`` is line ``i + 1``);
    ``documents``: where each document starts (at least one when there is an item);
    ``fields``: the number of fields of a token line (0 for an empty file).
    """

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "path",
        "columns",
        "boundary",
        "tokens",
        "line",
        "documents",
        "fields",
        "bom",
    )
    path: str
    columns: tuple[list[str], ...]
    boundary: list[bool]
    tokens: list[str]
    line: Sequence[int]
    documents: list[Document]
    fields: int
    bom: bool

    def __init__(
        self,
        path: str,
        columns: tuple[list[str], ...],
        boundary: list[bool],
        tokens: list[str],
        line: Sequence[int],
        documents: list[Document] | None = None,
        fields: int = 0,
        bom: bool = False,
    ) -> None:
        set_fields(
            self,
            path=path,
            columns=columns,
            boundary=boundary,
            tokens=tokens,
            line=line,
            documents=[] if documents is None else documents,
            fields=fields,
            bom=bom,
        )

    def __len__(self) -> int:
        return len(self.boundary)


def _split_function(delimiter: str | None) -> tuple[object, bool]:
    if delimiter is None:
        return None, True
    if delimiter == " ":
        return None, False
    try:
        return re.compile(delimiter), False
    except re.error as error:
        raise InputError(f"-d {delimiter!r}: not a regular expression ({error})") from None


def read_tags(
    path: Path, *, delimiter: str | None = " ", columns: Sequence[int] = (-2, -1)
) -> TagColumns:
    """The tag columns of the file at ``path`` (:func:`read_tag_text`); a leading byte-order
    mark is removed (:attr:`TagColumns.bom` says so: the task warns)."""
    text, bom = without_bom(read_text(path))
    cut = cut_of(path)
    if cut is not None:  # a chunk of the file (annoscore.scale): named and numbered as in it
        columns_read = read_tag_text(
            text, str(path), delimiter=delimiter, columns=columns, named_from=cut.documents
        )
        line = columns_read.line  # range(1, n + 1) as read: shifted, not one int a line
        assert isinstance(line, range)  # (read_tag_text numbers every line so)
        columns_read = columns_read.replaced(
            line=range(line.start + cut.line, line.stop + cut.line, line.step),
            documents=[
                d.replaced(line=d.line + cut.line) if d.line else d for d in columns_read.documents
            ],
        )
    else:
        columns_read = read_tag_text(text, str(path), delimiter=delimiter, columns=columns)
    return columns_read.replaced(bom=True) if bom else columns_read


def _rows(lines: list[str], delimiter: str | None) -> list[list[str]]:
    """Each line's fields (the module doc's splitting rules)."""
    pattern, whitespace = _split_function(delimiter)
    if whitespace:
        return list(map(str.split, lines))
    if pattern is not None:
        return [perl_split(pattern, line) for line in lines]  # type: ignore[arg-type]
    rows = list(map(str.split, lines, repeat(" ")))
    for row in rows:  # Perl drops trailing empty fields
        if not row[-1]:
            while row and not row[-1]:
                row.pop()
    return rows


ROW_BLOCK = 1 << 16
"""Lines split into fields at a time by the checked reading (:func:`_rows_to_the_first_width`)."""


def _rows_to_the_first_width(lines: list[str], delimiter: str | None) -> list[list[str]]:
    """Each line's fields (:func:`_rows`), split :data:`ROW_BLOCK` lines at a time, up to the
    end of the block that holds the first line with another number of fields than the first
    non-blank one: the reading stops at that line's error, so the lines after it are not split
    (a wrong line near the top of a large file was an error only after every line was a list:
    20 s and 2.2 GB for 63 MB)."""
    rows: list[list[str]] = []
    width = 0
    for start in range(0, len(lines), ROW_BLOCK):
        block = _rows(lines[start : start + ROW_BLOCK], delimiter)
        rows += block
        width = width or next((len(row) for row in block if row), 0)
        if width and any(row and len(row) != width for row in block):
            break
    return rows


def _check_first(width: int, columns: Sequence[int], path: str, line: int) -> None:
    positions = [c + width if c < 0 else c for c in columns]
    if any(p < 0 or p >= width for p in positions) or (width < 2 and len(columns) > 1):
        raise InputError(
            f"{width} field(s) on the first line; expected a token and "
            f"{len(columns)} tag column(s) (columns {', '.join(map(str, columns))})",
            path,
            line,
        )


def _width_error(
    rows: list[list[str]], widths: list[int], width: int, columns: Sequence[int], path: str
) -> InputError | None:
    """The first line with another number of fields than the first non-blank one, as an error
    (conlleval's "unexpected number of features"), after the first line's own check."""
    if not width:
        return None
    _check_first(width, columns, path, widths.index(width) + 1)
    if widths.count(width) + widths.count(0) == len(widths):
        return None
    number = next(i for i, w in enumerate(widths) if w and w != width) + 1
    fields = rows[number - 1]
    hint = " (a CRLF line end leaves \\r on a blank line)" if fields == ["\r"] else ""
    return InputError(
        f"unexpected number of features: {len(fields)} ({width}); every token line "
        f"must have as many fields as the first one{hint}",
        path,
        number,
    )


_OTHER_WHITESPACE = "\t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _scan_fields(
    text: str, delimiter: str | None
) -> tuple[int, list[str], list[bool], list[int]] | None:
    """The fast scan of the common file (fields split by single spaces, every non-blank line
    with as many fields): ``(width, flat, blank, dashed)``, ``flat`` every line's fields one
    after the other, a blank line's as :data:`BOUNDARY` and ``"O"`` (``width`` of them),
    ``blank`` whether each line is blank, ``dashed`` the lines whose first field begins with
    ``-`` (where ``-X-`` and ``-DOCSTART-`` are); ``None`` to decline (any other file:
    :func:`_rows` splits it line by line).

    The separators are found in NumPy on the bytes (spaces and line ends: no empty field, no
    line of spaces, as many fields on every non-blank line); each blank line gets its fields
    in the bytes, and the whole text is split once."""
    if delimiter not in (" ", None) or not text:
        return None
    plain = text.isascii() and not any(c in text for c in _OTHER_WHITESPACE)
    if delimiter is None and not plain:
        return None  # str.split() splits at these too
    import numpy as np

    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    separators = np.flatnonzero((data == 32) | (data == 10))
    is_end = data[separators] == 10
    if text[-1] != "\n":  # the last line ends where the text does
        separators = np.append(separators, len(data))
        is_end = np.append(is_end, True)
    if separators.size > 1:  # two separators side by side, unless two line ends: empty field
        side_by_side = separators[1:] - separators[:-1] == 1
        if bool((side_by_side & ~(is_end[1:] & is_end[:-1])).any()):
            return None
    if separators[0] == 0 and not is_end[0]:
        return None  # a space first
    ends_at = np.flatnonzero(is_end)  # each line's end among the separators
    spaces = np.diff(ends_at, prepend=-1) - 1  # each line's spaces
    line_ends = separators[ends_at]
    line_starts = np.empty_like(line_ends)
    line_starts[0] = 0
    line_starts[1:] = line_ends[:-1] + 1
    blank = line_ends == line_starts
    if blank.all():
        return None
    counts = spaces[~blank]
    width = int(counts[0]) + 1
    if width < 2 or not bool((counts == width - 1).all()):
        return None
    dashed = np.flatnonzero(~blank & (data[np.minimum(line_starts, len(data) - 1)] == 45))
    if blank.any():  # a blank line gets -X- and O's before its line end
        fill = np.frombuffer(" ".join([BOUNDARY] + ["O"] * (width - 1)).encode(), np.uint8)
        at = line_ends[blank]
        data = np.insert(data, np.repeat(at, fill.size), np.tile(fill, at.size))
    filled = data.tobytes().decode("ascii" if plain else "utf-8")
    if plain:
        flat = filled.split()
    else:
        flat = (filled[:-1] if filled[-1] == "\n" else filled).replace("\n", " ").split(" ")
    return width, flat, blank.tolist(), dashed.tolist()


def positions_of(items: list[str], value: str) -> list[int]:
    """Where ``value`` is in ``items``, in order (``list.index`` at C speed between hits).

    >>> positions_of(["a", "b", "a"], "a")
    [0, 2]
    """
    out: list[int] = []
    at = -1
    for _ in range(items.count(value)):
        at = items.index(value, at + 1)
        out.append(at)
    return out


def read_tag_text(
    text: str,
    path: str,
    *,
    delimiter: str | None = " ",
    columns: Sequence[int] = (-2, -1),
    named_from: int = 0,
) -> TagColumns:
    """The tag columns of ``text`` (the module doc gives the rules); ``path`` names it in
    errors.  ``columns``: the indices of the tag columns (negative from the end);
    ``named_from``: the ``-DOCSTART-`` documents before ``text`` (a chunk of a file: its
    documents without a name are named by their place in the whole file).

    Every line is an item (item ``i`` is line ``i + 1``); the columns are taken from the
    lines' fields with list operations, and only the lines that need it (a boundary, a
    ``-DOCSTART-``, a wrong number of fields) are looked at one by one.
    """
    check_no_nul(text, Path(path))
    scanned = _scan_fields(text, delimiter)
    if scanned is None:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        n_lines = len(lines)
        rows = _rows_to_the_first_width(lines, delimiter)
        widths = list(map(len, rows))
        width = next((w for w in widths if w), 0)
        bad = _width_error(rows, widths, width, columns, path)
        if bad is not None and bad.line is not None:
            rows = rows[: bad.line - 1]  # read up to the bad line, to report what comes first
        first_line = widths.index(width) + 1 if width else 0
        positions = [c + width if c < 0 else c for c in columns]
        tokens = [row[0] if row else BOUNDARY for row in rows]
        tags = tuple([row[p] if row else "O" for row in rows] for p in positions)
        boundary = [not row for row in rows]

        def fields_of(i: int) -> list[str]:
            return rows[i]
    else:
        width, flat, boundary, dashed = scanned
        n_lines = len(boundary)
        bad = None
        first_line = boundary.index(False) + 1
        positions = [c + width if c < 0 else c for c in columns]
        tokens = flat[0::width]
        tags = tuple(flat[p::width] for p in positions)
        for p, column in zip(positions, tags, strict=True):
            if p == 0:  # the token column as tags: O, not the -X- filled in, at a blank line
                for i in [i for i, b in enumerate(boundary) if b]:
                    column[i] = "O"

        def fields_of(i: int) -> list[str]:
            return flat[i * width : (i + 1) * width]

    if not width:
        n = n_lines
        return TagColumns(
            path,
            tuple(["O"] * n for _ in columns),
            [True] * n,
            [BOUNDARY] * n,
            range(1, n + 1),
            [Document(Path(path).name, 0, 0)] if n else [],
            0,
        )
    _check_first(width, columns, path, first_line)
    if scanned is not None:  # the tokens that begin with "-" only
        ruled = [i for i in dashed if tokens[i] == BOUNDARY]
        starts = [i for i in dashed if tokens[i] == DOCSTART]
    else:
        ruled, starts = positions_of(tokens, BOUNDARY), positions_of(tokens, DOCSTART)
    for i in ruled:  # blank lines (already O) and -X- lines
        if not boundary[i]:
            boundary[i] = True
            for column in tags:
                column[i] = "O"
    first_tag = min(positions)
    documents: list[Document] = []
    names: dict[str, int] = {}
    for i in starts:
        extra = [f for f in fields_of(i)[1:first_tag] if f != BOUNDARY]
        name = " ".join(extra) if extra else str(named_from + len(documents) + 1)
        if bad is not None and bad.line is not None and bad.line <= i + 1:
            raise bad
        if name in names:
            raise InputError(
                f"document id {name!r} is used again (first on line {names[name]})",
                path,
                i + 1,
            )
        names[name] = i + 1
        documents.append(Document(name, i, i + 1))
    if bad is not None:
        raise bad
    if not documents:
        documents = [Document(Path(path).name, 0, 0)]
    elif not all(boundary[: documents[0].start]):
        if "0" in names:
            raise InputError(
                "document id '0' is taken by the tokens before the first -DOCSTART- line",
                path,
                names["0"],
            )
        documents.insert(0, Document("0", 0, 0))
    else:  # blank lines before the first -DOCSTART- belong to it
        documents[0] = Document(documents[0].name, 0, documents[0].line)
    return TagColumns(path, tags, boundary, tokens, range(1, n_lines + 1), documents, width)


def whole_file(columns: TagColumns) -> bool:
    """Whether ``columns`` is one document named after its file: a file without a
    ``-DOCSTART-`` line (no document id of its own)."""
    return len(columns.documents) == 1 and columns.documents[0].line == 0


def _in_order(gold: TagColumns, system: TagColumns) -> TagColumns:
    """``system`` with its documents in the gold's order (documents paired by id); an
    :class:`InputError` naming a document one side lacks.

    Two files without ``-DOCSTART-`` lines (:func:`whole_file`: each one document named after
    its file) pair by position, whatever their names: the document is the gold file's, named
    after it in every output (per-document rows, warnings).  Files with ``-DOCSTART-`` lines
    pair by id."""
    gold_names = [d.name for d in gold.documents]
    system_names = [d.name for d in system.documents]
    if gold_names == system_names:
        return system
    if whole_file(gold) and whole_file(system):
        return system.replaced(documents=list(gold.documents))
    if set(gold_names) != set(system_names) or len(gold.documents) < 2:
        missing = [n for n in gold_names if n not in system_names]
        extra = [n for n in system_names if n not in gold_names]
        what = (
            f"has no document {missing[0]!r} of the gold file"
            if missing
            else f"has document {extra[0]!r}, which the gold file lacks"
            if extra
            else "names its documents otherwise than the gold file"
        )
        raise InputError(f"{what}; the two files must hold the same documents", system.path)
    bounds = {
        d.name: (
            d.start,
            system.documents[k + 1].start if k + 1 < len(system.documents) else len(system),
        )
        for k, d in enumerate(system.documents)
    }
    order = [i for name in gold_names for i in range(*bounds[name])]
    documents = []
    at = 0
    for name in gold_names:
        first, last = bounds[name]
        documents.append(Document(name, at, system.line[first]))
        at += last - first
    return TagColumns(
        system.path,
        tuple([column[i] for i in order] for column in system.columns),
        [system.boundary[i] for i in order],
        [system.tokens[i] for i in order],
        [system.line[i] for i in order],
        documents,
        system.fields,
        system.bom,
    )


def pair_tag_files(gold: TagColumns, system: TagColumns) -> TagColumns:
    """``system`` paired with ``gold``: its documents in the gold's order (paired by id; two
    files without ``-DOCSTART-`` by position, :func:`_in_order`), then line for line; an
    :class:`InputError` where they do not pair (another number of items, a boundary against a
    token, or another token)."""
    system = _in_order(gold, system)
    for i, (a, b) in enumerate(zip(gold.boundary, system.boundary, strict=False)):
        if a != b or gold.tokens[i] != system.tokens[i]:
            what = "a blank or -X- line" if b else f"token {system.tokens[i]!r}"
            expected = "a blank or -X- line" if a else f"token {gold.tokens[i]!r}"
            raise InputError(
                f"{what} where the gold file has {expected} (line {gold.line[i]}); the two "
                "files must hold the same tokens, line for line",
                system.path,
                system.line[i],
            )
    if len(gold) != len(system):
        longer, shorter = (gold, system) if len(gold) > len(system) else (system, gold)
        raise InputError(
            f"more tokens than {shorter.path} ({len(longer)} items, {len(shorter)} there); "
            "the two files must hold the same tokens, line for line",
            longer.path,
            longer.line[len(shorter)],
        )
    return system


# --- the tag columns as codes (what seqeval's default mode counts) ---------------------------


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
