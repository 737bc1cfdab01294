"""NLP Sandbox PHI annotation files: a JSON list of Annotation objects, one per note.

Each object names its note in ``annotationSource.resourceSource.name`` (the note id is the
*basename* of that path, as the official evaluation pairs notes) and holds one array per PHI
category::

    [{"annotationSource": {"resourceSource": {"name": "notes/0001"}},
      "textDateAnnotations": [{"start": 20, "length": 10, "text": "11/21/2019",
                               "dateFormat": "MM/DD/YYYY", "confidence": 100}],
      "textLocationAnnotations": [...], ...}, ...]

Both schema generations are read: locations are ``textLocationAnnotations`` with
``locationType`` (schemas 1.2+) or ``textPhysicalAddressAnnotations`` with ``addressType``
(1.1.x).  Every item needs ``start`` and ``length`` (non-negative integers) and ``text`` (a
string); the category's type field is optional (absent, a string, or ``null``); ``confidence``
and other fields are ignored.

Reading keeps the file order (the official scoring lets the *last* annotation at one start win)
and merges objects whose note ids (basenames) coincide, in file order, as the official pooling
does.  A missing category array is read as empty and counted (the official script stops with a
``KeyError``).  Anything else that is not the shape above raises :class:`InputError` naming the
file and the JSON path of the item, e.g.
``pred.json: [3].textDateAnnotations[7].length: expected a non-negative integer``.  Offsets
above :data:`MAX_OFFSET` (2**53 - 1) are refused the same way, and so is an integer too long for
Python to read (more than 4,300 digits: the official script stops with a ``ValueError``) and a
note name holding a lone surrogate (``"\\ud800"``: the note id is printed, and cannot be); JSON
nested deeper than the decoder can follow names the file, the top-level item and its line.

One reader, :func:`read_sandbox`, gives each category as integer columns in file order
(:class:`CategoryColumns`), texts and type values numbered (:class:`Numbering`: equal strings,
equal numbers).  The JSON list is decoded one object at a time, :data:`CHUNK` objects a chunk,
each chunk read by the fast scan (:func:`_scan_chunk`) or, where it declines, by the checked
parser (:func:`_parse_chunk`, the only place that names file and JSON path): the same rows.
"""

from __future__ import annotations

import json
import posixpath
import re
from array import array
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, filterfalse, islice, repeat
from operator import ne
from pathlib import Path
from typing import Any, Final

from annoscore.errors import InputError
from annoscore.formats.files import Cut, cut_of, read_cut, reading, saw
from annoscore.model import AnnotatedDocument, Attribute, Mention, Span


@dataclass(frozen=True, slots=True)
class Category:
    """One PHI category: its name, JSON arrays (newest schema first) and type fields."""

    name: str
    arrays: tuple[str, ...]
    type_fields: tuple[str, ...]


CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category("date", ("textDateAnnotations",), ("dateFormat",)),
        Category("person", ("textPersonNameAnnotations",), ("personType",)),
        Category(
            "location",
            ("textLocationAnnotations", "textPhysicalAddressAnnotations"),
            ("locationType", "addressType"),
        ),
        Category("id", ("textIdAnnotations",), ("idType",)),
        Category("contact", ("textContactAnnotations",), ("contactType",)),
        Category("covid-symptom", ("textCovidSymptomAnnotations",), ("condition",)),
    )
}
"""The categories in the official evaluation order, by name."""

MAX_OFFSET: Final = 2**53 - 1
"""The largest ``start`` or ``length`` read (a character offset; larger ones are refused)."""

CHUNK: Final = 400
"""Objects scanned (or parsed) together."""


class _Absent:
    """The type value of an item without a type field (the official NaN)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""Type value of an item that has no type field; numbered 0 in every type :class:`Numbering`."""


class Numbering:
    """Distinct values numbered 0, 1, 2, ...; ``values()`` lists them by number.

    Values are dictionary keys: two strings get one number only if they are equal.

    >>> texts = Numbering()
    >>> texts.number(["Jon", "Ann", "Jon"]), texts.number(["May", "Ann"]), texts.values()
    ([0, 1, 0], [2, 1], ['Jon', 'Ann', 'May'])
    """

    __slots__ = ("ids",)

    def __init__(self, first: Iterable[Hashable] = ()) -> None:
        self.ids: dict[Hashable, int] = {value: k for k, value in enumerate(first)}

    def number(self, values: list[Any]) -> list[int]:
        """The numbers of ``values``, numbering the new ones (C-level passes, no Python loop)."""
        ids = self.ids
        fresh = list(filterfalse(ids.__contains__, dict.fromkeys(values)))
        ids.update(zip(fresh, count(len(ids))))
        return list(map(ids.__getitem__, values))

    def values(self) -> list[Any]:
        """The values, in the order of their numbers."""
        return list(self.ids)


def type_numbering() -> Numbering:
    """A numbering of type values with :data:`ABSENT` as 0 and JSON ``null`` as 1."""
    return Numbering((ABSENT, None))


@dataclass(frozen=True, slots=True)
class CategoryColumns:
    """One category of one file, one entry per annotation in file order (``array('q')``).

    ``note`` indexes :attr:`SandboxFile.note_ids`; ``text`` numbers the text in the shared text
    :class:`Numbering`; ``kind`` numbers the type value in the category's type numbering
    (0: no type field, 1: ``null``).  ``missing_array`` counts the objects without the
    category's array (read as empty; an object with both location arrays has them read one
    after the other); ``length_mismatch`` the items whose ``length`` is not the length of their
    ``text``.
    """

    note: array[int] = field(default_factory=lambda: array("q"))
    start: array[int] = field(default_factory=lambda: array("q"))
    length: array[int] = field(default_factory=lambda: array("q"))
    text: array[int] = field(default_factory=lambda: array("q"))
    kind: array[int] = field(default_factory=lambda: array("q"))
    tally: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def missing_array(self) -> int:
        return self.tally[0]

    @property
    def length_mismatch(self) -> int:
        return self.tally[1]


@dataclass(frozen=True, slots=True)
class SandboxFile:
    """A whole file: the note ids in file order (merged by basename) and the categories asked
    for, each as :class:`CategoryColumns`."""

    path: Path
    note_ids: tuple[str, ...]
    categories: dict[str, CategoryColumns]
    objects: int
    merged_notes: int
    """Objects whose note id (basename) an earlier object already had."""

    def present(self, category: str) -> bool:
        """Whether any object in the file has this category's array."""
        return self.categories[category].missing_array < self.objects


# --- JSON decoding ------------------------------------------------------------------------------


class HugeNumber:
    """An integer of the file too long for Python to read (more than 4,300 digits by default):
    kept as its digit count, so that the item holding it is refused with its JSON path (or
    ignored, in a field the reader ignores)."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"HugeNumber({self.digits} digits)"


def _parse_int(text: str) -> int | HugeNumber:
    try:
        return int(text)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        return HugeNumber(len(text.lstrip("-")))


_CHECKED_DECODER: Final = json.JSONDecoder(parse_int=_parse_int)
"""The decoder used where the plain one met an integer too long to read (slower: a Python call
per integer)."""


class _NestedTooDeeply(InputError):
    """JSON nested deeper than Python's decoder follows."""


def _too_deep(path: Path, text: str, at: int, where: str) -> InputError:
    return _NestedTooDeeply(
        f"{where}: the JSON is nested too deeply to read (more levels than Python's JSON "
        "decoder follows)",
        path,
        text.count("\n", 0, at) + 1,
    )


def _read_text(path: Path) -> str:
    """The file decoded as ``json.load`` decodes it (UTF-8, -16 or -32, BOM allowed)."""
    with reading(path):  # no such file, a folder, unreadable: named
        raw = path.read_bytes()
    try:
        return raw.decode(json.detect_encoding(raw), "surrogatepass")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", path) from None


def _decode(path: Path, text: str) -> Any:
    """``json.loads(text)`` with every failure an :class:`InputError` naming the file."""
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer too long to read: read it as HugeNumber
            return _CHECKED_DECODER.decode(text)
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} (column {error.colno})"
        raise InputError(message, path, error.lineno) from None
    except RecursionError:
        raise _too_deep(path, text, 0, "the file") from None


def _load(path: Path, text: str) -> list[Any]:
    data = _decode(path, text)
    if not isinstance(data, list):
        raise InputError(
            f"expected a JSON list of annotation objects (one per note), found a JSON "
            f"{type(data).__name__.replace('dict', 'object')}",
            path,
        )
    return data


def _syntax_first(path: Path, text: str) -> None:
    """Raise the file's JSON syntax error, if it has one (reported before any shape error, as
    when the whole file is decoded first); nothing if the whole file cannot be decoded for its
    depth (the error at hand stands)."""
    try:
        _load(path, text)
    except _NestedTooDeeply:
        return


_SPACE = re.compile(r"[ \t\n\r]*")


def _next_item(path: Path, text: str, at: int, index: int, scan: Any) -> tuple[Any, int] | None:
    """The JSON value at ``at`` and where it ends, or ``None`` where there is none (a syntax
    error: ``json.loads`` of the file reports it)."""
    try:
        try:
            found: tuple[Any, int] = scan(text, at)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer too long to read: read it as HugeNumber
            found = _CHECKED_DECODER.scan_once(text, at)  # type: ignore[attr-defined]
    except (StopIteration, json.JSONDecodeError):
        return None
    except RecursionError:
        raise _too_deep(path, text, at, f"[{index}]") from None
    return found


def _objects(path: Path, text: str) -> Iterator[Any]:
    """The items of the file's top-level JSON list, decoded one at a time.

    Anything that is not a well-formed list is handed to ``json.loads`` for its own message.
    """
    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

    def space(text: str, at: int) -> int:
        matched = _SPACE.match(text, at)
        return matched.end() if matched else at  # always matched (maybe empty)

    at = space(text, 0)
    if text[at : at + 1] != "[":
        _load(path, text)  # raises: not JSON, or not a list
        return
    at = space(text, at + 1)
    index = 0
    if text[at : at + 1] == "]":
        at = space(text, at + 1)
    else:
        while True:
            found = _next_item(path, text, at, index, scan)
            if found is None:
                break
            item, end = found
            yield item
            index += 1
            at = space(text, end)
            mark = text[at : at + 1]
            if mark == ",":
                at = space(text, at + 1)
            elif mark == "]":
                at = space(text, at + 1)
                if at == len(text):
                    return
                break
            else:
                break
    if at != len(text):
        _load(path, text)  # raises with json's message, line and column
        raise InputError("not valid JSON", path)  # pragma: no cover (json found no error)


def read_notes(path: Path) -> dict[str, str]:
    """The clinical notes of a notes file, text by identifier: a JSON array of NLP Sandbox
    ``Note`` objects (``identifier``, ``text``, ``type``, ``patientId``; only the first two are
    read), or the data node's answer ``{"notes": [...]}``.  An annotation names its note by the
    basename of ``annotationSource.resourceSource.name``, which is matched with ``identifier``.

    An :class:`InputError` names the file and the item: not an array of objects, an
    ``identifier`` or ``text`` that is not a string, an identifier given twice.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "notes.json"
    >>> _ = path.write_text('{"notes": [{"identifier": "n1", "text": "On 2/18", "type": "x"}]}')
    >>> read_notes(path)
    {'n1': 'On 2/18'}
    """
    data = _decode(path, _read_text(path))
    prefix = ""
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        data, prefix = data["notes"], "notes"
    if not isinstance(data, list):
        raise InputError('expected a JSON array of notes (or {"notes": [...]})', path)
    notes: dict[str, str] = {}
    for index, item in enumerate(data):
        where = f"{prefix}[{index}]"
        if not isinstance(item, dict):
            raise _fail(path, where, "expected a note object")
        identifier, text = item.get("identifier"), item.get("text")
        if not isinstance(identifier, str) or not identifier:
            raise _fail(path, f"{where}.identifier", "expected the note's identifier (a string)")
        if not isinstance(text, str):
            raise _fail(path, f"{where}.text", "expected the note's text (a string)")
        if identifier in notes:
            raise _fail(path, f"{where}.identifier", f"note {identifier!r} is given twice")
        notes[identifier] = text
    return notes


# --- one chunk of objects: the rows both readings give ------------------------------------------


@dataclass(slots=True)
class _Rows:
    """One category of one chunk of objects, one entry per annotation in file order: the
    object it belongs to (its position in the chunk), ``start``, ``length``, ``text`` and type
    value (:data:`ABSENT` without a type field); with the objects lacking the category's array
    and the length mismatches."""

    owner: list[int] = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    length: list[int] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    kind: list[Any] = field(default_factory=list)
    missing: int = 0
    mismatched: int = 0


Chunk = list[tuple[int, Any]]
"""Consecutive objects of a file, each with its index in the file."""

Scanned = tuple[list[str], list[_Rows]]
"""What a chunk reads as: the note id of each object, and the rows of each wanted category."""


def _scan_items(items: list[Any], type_fields: Sequence[str], rows: _Rows) -> bool:
    """Append well-formed ``items`` to ``rows`` (C-level passes); ``False`` at anything else."""
    if set(map(type, items)) != {dict}:
        return False
    get: Any = dict.get
    starts = list(map(get, items, repeat("start")))
    lengths = list(map(get, items, repeat("length")))
    for offsets in (starts, lengths):
        if set(map(type, offsets)) != {int} or min(offsets) < 0 or max(offsets) > MAX_OFFSET:
            return False
    texts = list(map(get, items, repeat("text")))
    if set(map(type, texts)) != {str}:
        return False
    values = list(map(get, items, repeat(type_fields[0]), repeat(ABSENT)))
    for other in type_fields[1:]:
        if ABSENT in values:
            later = map(get, items, repeat(other), repeat(ABSENT))
            values = [v if v is not ABSENT else w for v, w in zip(values, later, strict=True)]
    if not set(map(type, values)) <= {str, type(None), _Absent}:
        return False
    rows.start += starts
    rows.length += lengths
    rows.text += texts
    rows.kind += values
    rows.mismatched += sum(map(ne, map(len, texts), lengths))
    return True


def _scan_chunk(chunk: Chunk, wanted: Sequence[Category]) -> Scanned | None:
    """The chunk read by C-level passes, or ``None`` (declined) at the first thing it does not
    accept: then :func:`_parse_chunk` reads it."""
    objects = [item for _, item in chunk]
    get: Any = dict.get
    names: list[Any] = objects
    for key in ("annotationSource", "resourceSource", "name"):
        if set(map(type, names)) - {dict}:  # exactly JSON objects (data given in memory too)
            return None
        names = list(map(get, names, repeat(key)))
    if names and set(map(type, names)) != {str}:
        return None
    try:
        "".join(names).encode()
    except UnicodeEncodeError:  # a lone surrogate ("\\ud800")
        return None
    note_ids = list(map(posixpath.basename, names))
    if "" in note_ids:
        return None
    out = []
    for category in wanted:
        rows = _Rows()
        arrays: list[Any] = []
        for position, item in enumerate(objects):
            found = False
            for name in category.arrays:
                if name in item:
                    found = True
                    arrays.append(item[name])
                    rows.owner.append(position)
            rows.missing += not found
        if set(map(type, arrays)) - {list}:
            return None
        owners = rows.owner
        rows.owner = list(chain.from_iterable(map(repeat, owners, map(len, arrays))))
        items = list(chain.from_iterable(arrays))
        if items and not _scan_items(items, category.type_fields, rows):
            return None
        out.append(rows)
    return note_ids, out


def _fail(path: Path, where: str, message: str) -> InputError:
    return InputError(f"{where}: {message}", path)


def _note_id(path: Path, item: object, index: int) -> str:
    if not isinstance(item, dict):
        raise _fail(path, f"[{index}]", "expected an annotation object")
    source = item.get("annotationSource")
    if not isinstance(source, dict):
        raise _fail(path, f"[{index}].annotationSource", "expected an object")
    resource = source.get("resourceSource")
    if not isinstance(resource, dict):
        raise _fail(path, f"[{index}].annotationSource.resourceSource", "expected an object")
    name = resource.get("name")
    where = f"[{index}].annotationSource.resourceSource.name"
    if not isinstance(name, str):
        raise _fail(path, where, "expected a string (the note name)")
    try:
        name.encode()
    except UnicodeEncodeError as error:
        bad = name[error.start]
        raise _fail(
            path, where, f"not Unicode text: a lone surrogate {bad!a} (the note id is printed)"
        ) from None
    note_id = posixpath.basename(name)
    if not note_id:
        raise _fail(path, where, f"the note id (basename of {name!r}) is empty")
    return note_id


def _offset(path: Path, where: str, value: object) -> int:
    if isinstance(value, HugeNumber):
        raise _fail(
            path, where, f"a number of {value.digits} digits: expected an offset up to {MAX_OFFSET}"
        )
    if type(value) is not int or value < 0:
        raise _fail(path, where, "expected a non-negative integer")
    return value


def _parse_items(
    path: Path, array: object, where: str, type_fields: Sequence[str], owner: int, rows: _Rows
) -> None:
    """Append the annotations of one JSON array to ``rows``, checking each item."""
    if not isinstance(array, list):
        raise _fail(path, where, "expected a list of annotations")
    for k, item in enumerate(array):
        if not isinstance(item, dict):
            raise _fail(path, f"{where}[{k}]", "expected an annotation object")
        start = _offset(path, f"{where}[{k}].start", item.get("start"))
        length = _offset(path, f"{where}[{k}].length", item.get("length"))
        if start > MAX_OFFSET or length > MAX_OFFSET:
            name = "start" if start > MAX_OFFSET else "length"
            raise _fail(path, f"{where}[{k}].{name}", f"expected an offset up to {MAX_OFFSET}")
        text = item.get("text")
        if not isinstance(text, str):
            raise _fail(path, f"{where}[{k}].text", "expected a string")
        kind: object = ABSENT
        for field_name in type_fields:
            if field_name in item:
                kind = item[field_name]
                if kind is not None and not isinstance(kind, str):
                    raise _fail(path, f"{where}[{k}].{field_name}", "expected a string or null")
                break
        rows.owner.append(owner)
        rows.start.append(start)
        rows.length.append(length)
        rows.text.append(text)
        rows.kind.append(kind)
        rows.mismatched += len(text) != length


def _parse_chunk(path: Path, chunk: Chunk, wanted: Sequence[Category]) -> Scanned:
    """The chunk read item by item, in file order: the first thing that is not the documented
    shape raises :class:`InputError` naming the file and its JSON path."""
    note_ids = []
    out = [_Rows() for _ in wanted]
    for position, (index, item) in enumerate(chunk):
        note_ids.append(_note_id(path, item, index))
        for category, rows in zip(wanted, out, strict=True):
            found = [name for name in category.arrays if name in item]
            rows.missing += not found
            for name in found:
                where = f"[{index}].{name}"
                _parse_items(path, item[name], where, category.type_fields, position, rows)
    return note_ids, out


@dataclass(slots=True)
class _Reading:
    """What :func:`read_sandbox` has read of one file so far."""

    wanted: Sequence[Category]
    columns: dict[str, CategoryColumns]
    texts: Numbering
    kinds: dict[str, Numbering]
    note_ids: dict[str, int] = field(default_factory=dict)
    merged: int = 0

    def add(self, scanned: Scanned) -> None:
        """Number the chunk's notes, texts and type values and append its rows."""
        names, all_rows = scanned
        note_ids = self.note_ids
        numbers = []
        for name in names:
            number = note_ids.get(name)
            if number is None:
                number = note_ids[name] = len(note_ids)
            else:
                self.merged += 1
            numbers.append(number)
        for category, rows in zip(self.wanted, all_rows, strict=True):
            out = self.columns[category.name]
            out.note.extend(map(numbers.__getitem__, rows.owner))
            out.start.extend(rows.start)
            out.length.extend(rows.length)
            out.text.extend(self.texts.number(rows.text))
            out.kind.extend(self.kinds[category.name].number(rows.kind))
            out.tally[0] += rows.missing
            out.tally[1] += rows.mismatched


def read_sandbox(
    path: Path | str,
    categories: Iterable[str] | None = None,
    *,
    texts: Numbering | None = None,
    kinds: dict[str, Numbering] | None = None,
) -> SandboxFile:
    """Read one gold or prediction file, for ``categories`` (default: all six).

    ``texts`` numbers the annotation texts and ``kinds[category]`` (from :func:`type_numbering`)
    the type values; pass the same numberings for the gold and the prediction file so that equal
    texts and equal types get equal numbers (fresh ones when not given).

    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pred.json"
    >>> _ = f.write_text(json.dumps([{"annotationSource": {"resourceSource": {"name": "a/n1"}},
    ...     "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"},
    ...                             {"start": 9, "length": 3, "text": "May", "dateFormat": "M"}]}]))
    >>> texts, kinds = Numbering(), {"date": type_numbering()}
    >>> read = read_sandbox(f, ["date"], texts=texts, kinds=kinds)
    >>> date = read.categories["date"]
    >>> read.note_ids, date.start.tolist(), date.length.tolist(), date.kind.tolist()
    (('n1',), [3, 9], [4, 3], [0, 2])
    >>> [texts.values()[t] for t in date.text]
    ['2/18', 'May']
    >>> _ = f.write_text('[{"annotationSource": {"resourceSource": {"name": "n"}},'
    ...     ' "textDateAnnotations": [{"start": 3, "length": -4, "text": "x"}]}]')
    >>> try:
    ...     read_sandbox(f, ["date"])
    ... except InputError as error:
    ...     print(error.message)
    [0].textDateAnnotations[0].length: expected a non-negative integer
    """
    path = Path(path)
    cut = cut_of(path)
    text = _read_text(path) if cut is None else _read_cut_text(path, cut)
    try:
        read = read_objects(_objects(path, text), path, categories, texts=texts, kinds=kinds)
    except InputError:
        _syntax_first(path, text)
        raise
    saw(path, read.note_ids)
    return read


def _read_cut_text(path: Path, cut: Cut) -> str:
    """A chunk of the file's top-level array (:mod:`annoscore.scale`: some of its elements,
    UTF-8) read as an array of its own; bytes that are not UTF-8 are an error (the file is
    then read whole, which names it)."""
    try:
        return "[" + read_cut(path, cut).decode("utf-8", "surrogatepass") + "]"
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", path) from None


def note_document(item: object) -> str | None:
    """The note id of an annotation object as :func:`read_sandbox` reads it, ``None`` where
    it would refuse the object (a chunk of a file is cut before such an object's note).

    >>> note_document({"annotationSource": {"resourceSource": {"name": "notes/n1"}}})
    'n1'
    >>> note_document({"annotationSource": {"resourceSource": {"name": "dir/"}}}) is None
    True
    """
    try:
        return _note_id(Path(), item, 0)
    except InputError:
        return None


def read_objects(
    objects: Iterable[Any],
    name: Path,
    categories: Iterable[str] | None = None,
    *,
    texts: Numbering | None = None,
    kinds: dict[str, Numbering] | None = None,
) -> SandboxFile:
    """:func:`read_sandbox` of annotation objects already decoded (a file's top-level list, or
    data in memory, as ``json.load`` gives it); ``name`` is what messages and warnings call
    them.  Objects that are not exactly the JSON types (a tuple for a list, say) are refused.

    >>> note = {"annotationSource": {"resourceSource": {"name": "n1"}},
    ...         "textIdAnnotations": [{"start": 0, "length": 3, "text": "A12", "idType": None}]}
    >>> read_objects([note], Path("gold"), ["id"]).categories["id"].kind.tolist()
    [1]
    """
    wanted = [CATEGORIES[category] for category in (categories or CATEGORIES)]
    texts = Numbering() if texts is None else texts
    kinds = {} if kinds is None else kinds
    for category in wanted:
        kinds.setdefault(category.name, type_numbering())
    columns = {category.name: CategoryColumns() for category in wanted}
    reading = _Reading(wanted, columns, texts, kinds)
    read = 0
    numbered = enumerate(objects)
    while chunk := list(islice(numbered, CHUNK)):
        read += len(chunk)
        reading.add(_scan_chunk(chunk, wanted) or _parse_chunk(name, chunk, wanted))
    return SandboxFile(name, tuple(reading.note_ids), columns, read, reading.merged)


# --- the annotations as documents (spans, convert) ----------------------------------------------

TYPE_ATTRIBUTE: Final = "TYPE"
"""The attribute that holds an annotation's type value (``dateFormat``, ``locationType``, ...)
when a file is read as documents: the name i2b2 XML gives a tag's subtype, so the two formats
carry it to each other."""


def read_sandbox_documents(path: Path | str) -> list[AnnotatedDocument]:
    """A file's notes as documents (``--gold-format nlpsandbox-json``, ``annoscore convert``),
    in file order (objects of one note merged, as :func:`read_sandbox` does): each annotation a
    mention typed by its category (``date``, ``person``, ``location``, ``id``, ``contact``,
    ``covid-symptom``), the categories in that order, each in file order, with ids ``T1``,
    ``T2``, ...; the category's type value (``dateFormat``, ``locationType`` or the older
    ``addressType``, ...) an attribute :data:`TYPE_ATTRIBUTE` of the mention (no attribute
    when the item has no type field; a value-less one for ``null``).  A note's text is not in
    the file: the documents have none, so the annotations' texts cannot be checked against it;
    an item whose ``length`` is not its text's length is a warning (the span is ``start`` +
    ``length``).

    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "gold.json"
    >>> _ = f.write_text(json.dumps([{"annotationSource": {"resourceSource": {"name": "a/n1"}},
    ...     "textLocationAnnotations": [{"start": 9, "length": 6, "text": "Boston",
    ...                                  "locationType": "city"}],
    ...     "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"}]}]))
    >>> [doc] = read_sandbox_documents(f)
    >>> [(m.id, m.type, m.span.start, m.span.end, m.text) for m in doc.mentions]
    [('T1', 'date', 3, 7, '2/18'), ('T2', 'location', 9, 15, 'Boston')]
    >>> doc.id, doc.text, doc.attributes
    ('n1', None, (Attribute(id='A1', name='TYPE', target='T2', value='city'),))
    """
    path = Path(path)
    texts = Numbering()
    kinds = {name: type_numbering() for name in CATEGORIES}
    read = read_sandbox(path, texts=texts, kinds=kinds)
    text_values = texts.values()
    mentions: list[list[Mention]] = [[] for _ in read.note_ids]
    attributes: list[list[Attribute]] = [[] for _ in read.note_ids]
    warnings: list[list[str]] = [[] for _ in read.note_ids]
    for name, columns in read.categories.items():
        kind_values = kinds[name].values()
        for note, start, length, text, kind in zip(
            columns.note, columns.start, columns.length, columns.text, columns.kind, strict=True
        ):
            mention_id = f"T{len(mentions[note]) + 1}"
            written = text_values[text]
            mentions[note].append(
                Mention(Span.of(start, start + length), name, mention_id, written)
            )
            if len(written) != length:
                warnings[note].append(
                    f"{path}: note {read.note_ids[note]!r}: {name} {written!r} at {start} has "
                    f"length {length}, not its text's {len(written)} (the span is start + length)"
                )
            if kind != 0:  # 0: no type field
                value = kind_values[kind]
                found = attributes[note]
                found.append(Attribute(f"A{len(found) + 1}", TYPE_ATTRIBUTE, mention_id, value))
    return [
        AnnotatedDocument(
            note_id,
            tuple(mentions[k]),
            None,
            attributes=tuple(attributes[k]),
            path=str(path),
            warnings=tuple(warnings[k]),
        )
        for k, note_id in enumerate(read.note_ids)
    ]
