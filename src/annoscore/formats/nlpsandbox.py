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
above :data:`MAX_OFFSET` (2**53 - 1) are refused the same way.

Two readers give the same annotations: :func:`read_sandbox` builds one :class:`PhiAnnotation`
per item, grouped by note (the reference, and handy for a few notes);
:func:`read_columns` is the fast path the tasks use: the JSON list is decoded one object at a
time by the C scanner (the file's objects are never all in memory at once), each category's
items are checked and turned into integer columns a few hundred notes at a time with C-level
passes (``map``/``set``, no Python code per item), and texts and type values are numbered
(:class:`Numbering`).  When a quick check fails, the reference reader reads that stretch of the
file, so the error (or the tolerated input) is exactly the reference's.
"""

from __future__ import annotations

import json
import posixpath
import re
from array import array
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, filterfalse, repeat
from operator import ne
from pathlib import Path
from typing import Any, Final, Generic, NamedTuple, Protocol, TypeVar

from annoscore.errors import InputError


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


class PhiAnnotation(NamedTuple):
    """One annotation: offsets, text and type value.

    ``typed`` is False when the item has no type field (the official NaN, which never matches);
    an explicit JSON ``null`` is ``typed=True, type=None`` (and, as officially, equals another
    ``null``).
    """

    start: int
    length: int
    text: str
    type: str | None
    typed: bool


@dataclass(frozen=True, slots=True)
class CategoryNotes:
    """One category of one file: note id -> its annotations in file order.

    ``missing_array`` counts the objects without the category's array (read as empty; an object
    with both location arrays has them read one after the other); ``length_mismatch`` the items
    whose ``length`` is not the length of their ``text``.
    """

    notes: dict[str, list[PhiAnnotation]]
    missing_array: int = 0
    length_mismatch: int = 0


class _MissingArrays(Protocol):
    """A category of a file that counts the objects without its array."""

    @property
    def missing_array(self) -> int: ...


CategoryT = TypeVar("CategoryT", bound=_MissingArrays)


@dataclass(frozen=True, slots=True)
class PhiFile(Generic[CategoryT]):
    """A whole file: the note ids in file order (merged by basename) and the categories asked
    for, each as its reader makes it (:class:`SandboxFile`, :class:`ColumnFile`)."""

    path: Path
    note_ids: tuple[str, ...]
    categories: dict[str, CategoryT]
    objects: int
    merged_notes: int
    """Objects whose note id (basename) an earlier object already had."""

    def present(self, category: str) -> bool:
        """Whether any object in the file has this category's array."""
        return self.categories[category].missing_array < self.objects


@dataclass(frozen=True, slots=True)
class SandboxFile(PhiFile[CategoryNotes]):
    """A whole file as :func:`read_sandbox` reads it: annotation objects grouped by note."""


MAX_OFFSET: Final = 2**53 - 1
"""The largest ``start`` or ``length`` read (a character offset; larger ones are refused)."""


def _fail(path: Path, where: str, message: str) -> InputError:
    return InputError(f"{where}: {message}", path)


def _note_id(path: Path, item: dict[str, Any], index: int) -> str:
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
    note_id = posixpath.basename(name)
    if not note_id:
        raise _fail(path, where, f"the note id (basename of {name!r}) is empty")
    return note_id


def _items(
    path: Path,
    array: object,
    where: str,
    type_fields: Sequence[str],
    out: list[PhiAnnotation],
) -> int:
    """Append the annotations of one JSON array to ``out``; return the length mismatches."""
    if not isinstance(array, list):
        raise _fail(path, where, "expected a list of annotations")
    mismatches = 0
    for k, item in enumerate(array):
        if not isinstance(item, dict):
            raise _fail(path, f"{where}[{k}]", "expected an annotation object")
        start = item.get("start")
        length = item.get("length")
        text = item.get("text")
        if type(start) is not int or start < 0:
            raise _fail(path, f"{where}[{k}].start", "expected a non-negative integer")
        if type(length) is not int or length < 0:
            raise _fail(path, f"{where}[{k}].length", "expected a non-negative integer")
        if start > MAX_OFFSET or length > MAX_OFFSET:
            name = "start" if start > MAX_OFFSET else "length"
            raise _fail(path, f"{where}[{k}].{name}", f"expected an offset up to {MAX_OFFSET}")
        if not isinstance(text, str):
            raise _fail(path, f"{where}[{k}].text", "expected a string")
        kind: str | None = None
        typed = False
        for field_name in type_fields:
            if field_name in item:
                value = item[field_name]
                if value is not None and not isinstance(value, str):
                    raise _fail(path, f"{where}[{k}].{field_name}", "expected a string or null")
                kind, typed = value, True
                break
        if len(text) != length:
            mismatches += 1
        out.append(PhiAnnotation(start, length, text, kind, typed))
    return mismatches


def _read_text(path: Path) -> str:
    """The file decoded as ``json.load`` decodes it (UTF-8, -16 or -32, BOM allowed)."""
    try:
        raw = path.read_bytes()
        return raw.decode(json.detect_encoding(raw), "surrogatepass")
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("expected a JSON file, found a folder", path) from None
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", path) from None


def _load(path: Path, text: str | None = None) -> list[Any]:
    try:
        data = json.loads(_read_text(path) if text is None else text)
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} (column {error.colno})"
        raise InputError(message, path, error.lineno) from None
    if not isinstance(data, list):
        raise InputError(
            f"expected a JSON list of annotation objects (one per note), found a JSON "
            f"{type(data).__name__.replace('dict', 'object')}",
            path,
        )
    return data


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
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} (column {error.colno})"
        raise InputError(message, path, error.lineno) from None
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


def read_sandbox(path: Path | str, categories: Iterable[str] | None = None) -> SandboxFile:
    """Read one gold or prediction file, for ``categories`` (default: all six).

    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pred.json"
    >>> _ = f.write_text(json.dumps([{"annotationSource": {"resourceSource": {"name": "a/n1"}},
    ...     "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"}]}]))
    >>> read_sandbox(f, ["date"]).categories["date"].notes
    {'n1': [PhiAnnotation(start=3, length=4, text='2/18', type=None, typed=False)]}
    >>> _ = f.write_text('[{"annotationSource": {"resourceSource": {"name": "n"}},'
    ...     ' "textDateAnnotations": [{"start": 3, "length": -4, "text": "x"}]}]')
    >>> try:
    ...     read_sandbox(f, ["date"])
    ... except InputError as error:
    ...     print(error.message)
    [0].textDateAnnotations[0].length: expected a non-negative integer
    """
    path = Path(path)
    text = _read_text(path)
    try:
        return _read_objects(path, _objects(path, text), categories)
    except InputError:
        _load(path, text)  # a JSON syntax error anywhere in the file is reported first
        raise


def _read_objects(
    path: Path, objects: Iterable[Any], categories: Iterable[str] | None
) -> SandboxFile:
    """:func:`read_sandbox` of the file's objects, decoded one at a time (fewer objects alive
    at once: the garbage collector has less to walk, and memory is the size of one note)."""
    wanted = [CATEGORIES[name] for name in (categories or CATEGORIES)]
    notes: dict[str, dict[str, list[PhiAnnotation]]] = {c.name: {} for c in wanted}
    missing = dict.fromkeys(notes, 0)
    mismatched = dict.fromkeys(notes, 0)
    note_ids: dict[str, None] = {}
    merged = 0
    index = -1
    for index, item in enumerate(objects):
        if not isinstance(item, dict):
            raise _fail(path, f"[{index}]", "expected an annotation object")
        note_id = _note_id(path, item, index)
        if note_id in note_ids:
            merged += 1
        note_ids[note_id] = None
        for category in wanted:
            found = [name for name in category.arrays if name in item]
            if not found:
                missing[category.name] += 1
            annotations = notes[category.name].setdefault(note_id, [])
            for name in found:
                mismatched[category.name] += _items(
                    path, item[name], f"[{index}].{name}", category.type_fields, annotations
                )
    return SandboxFile(
        path,
        tuple(note_ids),
        {
            name: CategoryNotes(by_note, missing[name], mismatched[name])
            for name, by_note in notes.items()
        },
        index + 1,
        merged,
    )


# --- the columnar reader (the fast path) -------------------------------------------------------


class _Absent:
    """The type value of an item without a type field (the official NaN)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""Type value of an item that has no type field; numbered 0 in every type :class:`Numbering`."""


class Numbering:
    """Distinct values numbered 0, 1, 2, ...; ``values()`` lists them by number.

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

    ``note`` indexes :attr:`ColumnFile.note_ids`; ``text`` numbers the text in the shared text
    :class:`Numbering`; ``kind`` numbers the type value in the category's type numbering
    (0: no type field, 1: ``null``).  ``missing_array`` and ``length_mismatch`` are as in
    :class:`CategoryNotes`.
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

    def extend(
        self,
        notes: Iterable[int],
        starts: Iterable[int],
        lengths: Iterable[int],
        texts: Iterable[int],
        kinds: Iterable[int],
        missing: int,
        mismatched: int,
    ) -> None:
        """Append annotations, one value of each column per annotation, and add ``missing``
        objects without the array and ``mismatched`` length mismatches to the tallies."""
        self.note.extend(notes)
        self.start.extend(starts)
        self.length.extend(lengths)
        self.text.extend(texts)
        self.kind.extend(kinds)
        self.tally[0] += missing
        self.tally[1] += mismatched


@dataclass(frozen=True, slots=True)
class ColumnFile(PhiFile[CategoryColumns]):
    """A whole file as :func:`read_columns` reads it: each category as columns."""


_SPACE = re.compile(r"[ \t\n\r]*")
_CHUNK = 400
"""Objects checked and turned into columns together."""


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
    if text[at : at + 1] == "]":
        at = space(text, at + 1)
    else:
        while True:
            try:
                item, at = scan(text, at)
            except (StopIteration, json.JSONDecodeError):
                break
            yield item
            at = space(text, at)
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


def _quick_columns(
    items: list[Any], type_fields: Sequence[str], texts: Numbering, kinds: Numbering
) -> tuple[list[int], list[int], list[int], list[int], int] | None:
    """Columns of a category's items if all are well formed (else ``None``), no Python per item."""
    if set(map(type, items)) != {dict}:
        return None
    get: Any = dict.get
    starts = list(map(get, items, repeat("start")))
    lengths = list(map(get, items, repeat("length")))
    for offsets in (starts, lengths):
        if set(map(type, offsets)) != {int} or min(offsets) < 0 or max(offsets) > MAX_OFFSET:
            return None
    text_values = list(map(get, items, repeat("text")))
    if set(map(type, text_values)) != {str}:
        return None
    values = list(map(get, items, repeat(type_fields[0]), repeat(ABSENT)))
    for other in type_fields[1:]:
        if ABSENT in values:
            later = map(get, items, repeat(other), repeat(ABSENT))
            values = [v if v is not ABSENT else w for v, w in zip(values, later, strict=True)]
    if not set(map(type, values)) <= {str, type(None), _Absent}:
        return None
    mismatched = sum(map(ne, map(len, text_values), lengths))
    return starts, lengths, texts.number(text_values), kinds.number(values), mismatched


Chunk = list[tuple[int, int, dict[str, Any]]]
"""Consecutive objects of a file, each with its index in the file and its note's index."""


@dataclass(frozen=True, slots=True)
class _ColumnsRead:
    """What :func:`read_columns` has read of one file so far: the columns of each ``wanted``
    category, numbering their texts with ``texts`` and their type values with ``kinds``."""

    path: Path
    wanted: Sequence[Category]
    columns: dict[str, CategoryColumns]
    texts: Numbering
    kinds: dict[str, Numbering]


def _add_chunk(read: _ColumnsRead, chunk: Chunk) -> None:
    """Append the annotations of ``chunk`` (object index, note index, object) to the columns:
    checked and turned into columns by C-level passes, or, at the first thing the quick check
    does not accept, by :func:`_add_chunk_slowly` (the reference reader)."""
    wanted, columns, texts, kinds = read.wanted, read.columns, read.texts, read.kinds
    built = []
    for category in wanted:
        arrays: list[Any] = []
        owners: list[int] = []
        missing = 0
        for _, note, item in chunk:
            found = False
            for name in category.arrays:
                if name in item:
                    found = True
                    arrays.append(item[name])
                    owners.append(note)
            missing += not found
        if set(map(type, arrays)) - {list}:
            break
        items = list(chain.from_iterable(arrays))
        quick = (
            _quick_columns(items, category.type_fields, texts, kinds[category.name])
            if items
            else ([], [], [], [], 0)
        )
        if quick is None:
            break
        notes = chain.from_iterable(map(repeat, owners, map(len, arrays)))
        built.append((category, notes, quick, missing))
    else:
        for category, notes, (starts, lengths, text_ids, kind_ids, mismatched), missing in built:
            columns[category.name].extend(
                notes, starts, lengths, text_ids, kind_ids, missing, mismatched
            )
        return
    _add_chunk_slowly(read, chunk)


def _add_chunk_slowly(read: _ColumnsRead, chunk: Chunk) -> None:
    """The reference reader on ``chunk``, item by item: raises the reference's first error."""
    wanted = read.wanted
    by_category: dict[str, list[tuple[int, list[PhiAnnotation], int, int]]] = {
        c.name: [] for c in wanted
    }
    for index, note, item in chunk:
        for category in wanted:
            found = [name for name in category.arrays if name in item]
            annotations: list[PhiAnnotation] = []
            mismatched = 0
            for name in found:
                mismatched += _items(
                    read.path, item[name], f"[{index}].{name}", category.type_fields, annotations
                )
            by_category[category.name].append((note, annotations, mismatched, not found))
    for category in wanted:
        out = read.columns[category.name]
        for note, annotations, mismatched, missing in by_category[category.name]:
            values = [a.type if a.typed else ABSENT for a in annotations]
            out.extend(
                repeat(note, len(annotations)),
                (a.start for a in annotations),
                (a.length for a in annotations),
                read.texts.number([a.text for a in annotations]),
                read.kinds[category.name].number(values),
                missing,
                mismatched,
            )


def read_columns(
    path: Path | str,
    categories: Iterable[str] | None = None,
    *,
    texts: Numbering,
    kinds: dict[str, Numbering],
) -> ColumnFile:
    """Read one file as columns (the same annotations as :func:`read_sandbox`).

    ``texts`` numbers the annotation texts and ``kinds[category]`` (from :func:`type_numbering`)
    the type values; pass the same numberings for the gold and the prediction file so that equal
    texts and equal types get equal numbers.

    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pred.json"
    >>> _ = f.write_text(json.dumps([{"annotationSource": {"resourceSource": {"name": "a/n1"}},
    ...     "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"},
    ...                             {"start": 9, "length": 3, "text": "May", "dateFormat": "M"}]}]))
    >>> texts, kinds = Numbering(), {"date": type_numbering()}
    >>> date = read_columns(f, ["date"], texts=texts, kinds=kinds).categories["date"]
    >>> date.start.tolist(), date.length.tolist(), date.kind.tolist()
    ([3, 9], [4, 3], [0, 2])
    >>> [texts.values()[t] for t in date.text]
    ['2/18', 'May']
    """
    path = Path(path)
    wanted = [CATEGORIES[name] for name in (categories or CATEGORIES)]
    for category in wanted:
        kinds.setdefault(category.name, type_numbering())
    columns = {category.name: CategoryColumns() for category in wanted}
    read = _ColumnsRead(path, wanted, columns, texts, kinds)
    note_ids: dict[str, int] = {}
    merged = 0
    objects = 0
    chunk: Chunk = []
    text = _read_text(path)
    try:
        for index, item in enumerate(_objects(path, text)):
            objects += 1
            try:
                if not isinstance(item, dict):
                    raise _fail(path, f"[{index}]", "expected an annotation object")
                note_id = _note_id(path, item, index)
            except InputError:
                _add_chunk(read, chunk)  # an earlier error first
                raise
            note = note_ids.get(note_id)
            if note is None:
                note = note_ids[note_id] = len(note_ids)
            else:
                merged += 1
            chunk.append((index, note, item))
            if len(chunk) == _CHUNK:
                _add_chunk(read, chunk)
                chunk = []
        _add_chunk(read, chunk)
    except InputError:
        _load(path, text)  # a JSON syntax error further on comes first, as in read_sandbox
        raise
    return ColumnFile(path, tuple(note_ids), columns, objects, merged)
