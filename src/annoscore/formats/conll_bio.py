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
from itertools import repeat
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import check_no_nul, cut_of, read_text, without_bom
from annoscore.records import Record, set_fields

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


def read_tags(
    path: Path, *, delimiter: str | None = " ", columns: Sequence[int] = (-2, -1)
) -> TagColumns:
    """The tag columns of the file at ``path`` (:func:`read_tag_text`); a leading byte-order
    mark is removed (:attr:`TagColumns.bom` says so: the task warns)."""
    text, bom = without_bom(read_text(path))
    cut = cut_of(path)  # a chunk of the file (annoscore.scale): named and numbered as in it
    named_from = 0 if cut is None else cut.documents
    columns_read = read_tag_text(
        text, str(path), delimiter=delimiter, columns=columns, named_from=named_from
    )
    if cut is not None:
        line = columns_read.line  # range(1, n + 1) as read: shifted, not one int a line
        assert isinstance(line, range)  # (read_tag_text numbers every line so)
        columns_read = columns_read.replaced(
            line=range(line.start + cut.line, line.stop + cut.line, line.step),
            documents=[
                d.replaced(line=d.line + cut.line) if d.line else d for d in columns_read.documents
            ],
        )
    return columns_read.replaced(bom=True) if bom else columns_read


def _rows(lines: list[str], delimiter: str | None) -> list[list[str]]:
    """Each line's fields (the module doc's splitting rules)."""
    if delimiter is None:
        return list(map(str.split, lines))
    if delimiter != " ":
        try:
            pattern = re.compile(delimiter)
        except re.error as error:
            raise InputError(f"-d {delimiter!r}: not a regular expression ({error})") from None
        return [perl_split(pattern, line) for line in lines]
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
    return system.replaced(
        columns=tuple([column[i] for i in order] for column in system.columns),
        boundary=[system.boundary[i] for i in order],
        tokens=[system.tokens[i] for i in order],
        line=[system.line[i] for i in order],
        documents=documents,
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
