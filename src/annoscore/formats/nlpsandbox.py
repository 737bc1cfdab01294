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
``pred.json: [3].textDateAnnotations[7].length: expected a non-negative integer``.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

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


@dataclass(frozen=True, slots=True)
class SandboxFile:
    """A whole file: the note ids in file order and the categories asked for."""

    path: Path
    note_ids: tuple[str, ...]
    categories: dict[str, CategoryNotes]
    objects: int
    merged_notes: int
    """Objects whose note id (basename) an earlier object already had."""

    def present(self, category: str) -> bool:
        """Whether any object in the file has this category's array."""
        return self.categories[category].missing_array < self.objects


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


def _load(path: Path) -> list[Any]:
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("expected a JSON file, found a folder", path) from None
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", path) from None
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
    wanted = [CATEGORIES[name] for name in (categories or CATEGORIES)]
    data = _load(path)
    notes: dict[str, dict[str, list[PhiAnnotation]]] = {c.name: {} for c in wanted}
    missing = dict.fromkeys(notes, 0)
    mismatched = dict.fromkeys(notes, 0)
    note_ids: dict[str, None] = {}
    merged = 0
    for index, item in enumerate(data):
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
        len(data),
        merged,
    )
