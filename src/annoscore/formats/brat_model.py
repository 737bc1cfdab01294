"""What the brat reader gives: one ``.ann`` file's annotations, entities as columns.

:class:`AnnFile` is the one shape of a read file, whichever step of the reader read it (the
columnar scan of :mod:`annoscore.formats.brat_scan` or the checked line parser of
:mod:`annoscore.formats.brat_lines`): the entities as columns (ids, types, outer starts and
ends, texts, fragments where some entity is discontinuous), the other annotations as model
objects, and structured warnings naming file and line.  The entities of every file of one
reading are also rows of one :class:`EntityBlock` (NumPy columns, built on first use), and
each file's :attr:`AnnFile.rows` says which rows are its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, overload

from annoscore.errors import InputError
from annoscore.model import (
    AnnotatedDocument,
    Attribute,
    Event,
    Mention,
    Normalization,
    Note,
    Relation,
    Span,
)
from annoscore.score_warnings import ScoreWarning, note

Dialect = Literal["brat", "pharmaconer"]
Fragments = tuple[tuple[int, int], ...]

MAX_OFFSET = 2**53
"""Offsets above this are an input error (no text is that long; larger numbers would overflow
the 64-bit arrays of the span modes)."""

MAX_OFFSET_DIGITS = 16
"""Decimal digits of :data:`MAX_OFFSET` (a number with more significant digits is above it)."""

# What each tolerated line becomes: (what was seen, what was done).
_TOLERATED: dict[str, tuple[str, str]] = {
    "brat.space-text": (
        "entity line(s) separate the text from the offsets with a space instead of a tab",
        "read as text",
    ),
    "pharmaconer.unsplittable": (
        "entity line(s) cannot be split as TYPE START END after the first tab (a space "
        "instead of the tab after the id, a tab inside the offsets, or missing offsets)",
        "skipped, as the official script skips them with its 'ERROR!' message",
    ),
    "pharmaconer.indented": (
        "line(s) begin with whitespace",
        "read after stripping it, as the official script does",
    ),
    "pharmaconer.bom-line": (
        "entity line(s) begin with a UTF-8 byte-order mark",
        "left out: the official script does not recognise them as entities",
    ),
    "pharmaconer.number": (
        "offset(s) are not plain ASCII digits (a sign, other digits, '_')",
        "read with Python's int(), as the official script reads them",
    ),
    "pharmaconer.reversed": (
        "entity line(s) have an end before their start",
        "kept and compared as written, as the official script does",
    ),
    "pharmaconer.empty-span": (
        "entity line(s) have a zero-length span (end = start)",
        "kept and compared as written, as the official script does",
    ),
    "pharmaconer.discontinuous": (
        "discontinuous entity line(s) (START END;START END)",
        "read; each matches only an entity with the same fragments "
        "(the official script stops with an error on them)",
    ),
    "pharmaconer.ignored-line": (
        "line(s) are neither entities nor valid brat annotations",
        "ignored, as the official script ignores every line not starting with T",
    ),
}


def tolerated_warning(code: str, count: int, examples: tuple[str, ...]) -> ScoreWarning:
    """The warning of ``count`` tolerated lines of one kind (``code``), a few quoted."""
    seen, done = _TOLERATED[code]
    return ScoreWarning(code, "{count} " + f"{seen}: {done}", count, examples, tolerated=True)


def tolerated_refusal(code: str, excerpt: str) -> str:
    """What ``--strict-input`` says of a line of kind ``code`` (``excerpt``: the line, quoted)."""
    seen, done = _TOLERATED[code]
    return (
        f"{seen.split(' ', 1)[-1]}: {excerpt} (the default would warn: {done}; "
        "--strict-input refuses it)"
    )


def place(path: Path | str, line: int) -> str:
    """``name:line``, the short form warnings quote (the examples are capped in length).

    >>> place("gold/a.ann", 3)
    'a.ann:3'
    """
    return f"{os.path.basename(os.fspath(path))}:{line}"


class Strings(Protocol):
    """A column of strings built on first use (a reader's mention texts or concept ids)."""

    def strings(self) -> list[str]: ...


class LazyColumn(Sequence[Any]):
    """A column whose items are built on first use (:meth:`items`), its length known before:
    equal to the list of its items."""

    __slots__ = ()

    def items(self) -> list[Any]:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.items()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class LazyRows(LazyColumn):
    """Rows ``lo:hi`` of a :class:`Strings` column: one document's strings, built with the
    whole column when first read (a reader of columns builds no string per annotation until
    someone asks)."""

    __slots__ = ("_hi", "_lo", "_strings")

    def __init__(self, strings: Strings, lo: int, hi: int) -> None:
        self._strings, self._lo, self._hi = strings, lo, hi

    def __len__(self) -> int:
        return self._hi - self._lo

    def items(self) -> list[str]:
        return self._strings.strings()[self._lo : self._hi]


class EntityBlock:
    """The entities of the files of one reading as NumPy columns, one row per entity line:
    ``starts`` and ``ends`` (outer bounds, as :attr:`AnnFile.starts` and :attr:`AnnFile.ends`)
    and ``type_codes`` (positions in ``type_names``).

    The reader adds each file's rows as it reads them (:meth:`add_arrays` for rows the scan
    gave as arrays, :meth:`add_lists` for a file the parser read), and the columns are built
    on first use: a command that never asks for them never imports NumPy for them.
    """

    __slots__ = ("_columns", "_parts", "_size")

    def __init__(self) -> None:
        # in row order: arrays (starts, ends, codes, names) or lists [starts, ends, types]
        self._parts: list[tuple[Any, Any, Any, list[str]] | list[list[Any]]] = []
        self._size = 0
        self._columns: tuple[Any, Any, Any, list[str]] | None = None

    def __len__(self) -> int:
        return self._size

    def add_arrays(self, starts: Any, ends: Any, codes: Any, names: list[str]) -> int:
        """Add rows given as arrays (``codes`` index ``names``); the position of the first."""
        first = self._size
        self._parts.append((starts, ends, codes, names))
        self._size += int(starts.shape[0])
        self._columns = None
        return first

    def add_lists(self, starts: Sequence[int], ends: Sequence[int], types: Sequence[str]) -> int:
        """Add one file's rows given as lists; the position of the first."""
        last = self._parts[-1] if self._parts else None
        if not isinstance(last, list):
            last = [[], [], []]
            self._parts.append(last)
        last[0].extend(starts)
        last[1].extend(ends)
        last[2].extend(types)
        first = self._size
        self._size += len(types)
        self._columns = None
        return first

    def _built(self) -> tuple[Any, Any, Any, list[str]]:
        if self._columns is None:
            import numpy as np

            number: dict[str, int] = {}
            starts, ends, codes = [], [], []
            for part in self._parts:
                if isinstance(part, list):
                    part_starts, part_ends, types = part
                    starts.append(np.array(part_starts, dtype=np.int64))
                    ends.append(np.array(part_ends, dtype=np.int64))
                    codes.append(
                        np.fromiter(
                            (number.setdefault(t, len(number)) for t in types),
                            dtype=np.int64,
                            count=len(types),
                        )
                    )
                else:
                    part_starts, part_ends, part_codes, names = part
                    remap = [number.setdefault(t, len(number)) for t in names]
                    starts.append(part_starts)
                    ends.append(part_ends)
                    numbers = np.array(remap, dtype=np.int64)
                    codes.append(numbers[part_codes] if names else part_codes)
            empty = np.zeros(0, dtype=np.int64)
            self._columns = (
                np.concatenate(starts) if starts else empty,
                np.concatenate(ends) if ends else empty,
                np.concatenate(codes) if codes else empty,
                list(number),
            )
        return self._columns

    @property
    def starts(self) -> Any:
        return self._built()[0]

    @property
    def ends(self) -> Any:
        return self._built()[1]

    @property
    def type_codes(self) -> Any:
        return self._built()[2]

    @property
    def type_names(self) -> list[str]:
        return self._built()[3]


_IDS: list[str] = []
"""``T1``, ``T2``, ...: the mention ids of a document, shared (grown on demand)."""


class ScanColumns:
    """The columns of every document of one scan (``block``, each document's rows
    ``bounds[d]:bounds[d + 1]`` of it), made into Python lists for the whole file at once when a
    document first asks for one (:meth:`whole`): the types, starts and ends; a reader's
    subclass adds its own columns (:meth:`column`) and gives each field of a document
    (``field(name, d)``)."""

    __slots__ = ("block", "bounds", "built")

    def __init__(self, block: EntityBlock, bounds: list[int]) -> None:
        self.block, self.bounds = block, bounds
        self.built: dict[str, list[Any]] = {}

    def whole(self, name: str) -> list[Any]:
        """Column ``name`` of the whole file as a list, built once."""
        found = self.built.get(name)
        if found is None:
            found = self.built[name] = self.column(name)
        return found

    def column(self, name: str) -> list[Any]:
        """Column ``name`` built: ``types`` (the type names by row), ``starts``, ``ends``."""
        import numpy as np

        block = self.block
        if name == "types":
            names = np.array(block.type_names or [""], dtype=object)
            found: list[Any] = names[block.type_codes].tolist()
            return found
        rows: list[Any] = getattr(block, name).tolist()
        return rows

    def field(self, name: str, d: int) -> Any:
        """Document ``d``'s value of field ``name`` (each reader's subclass gives its own)."""
        raise NotImplementedError(name)

    def mention_ids(self, d: int) -> list[str]:
        """``["T1", ..., "Tn"]``, the ids of document ``d``'s ``n`` mentions where a reader
        numbers them (a slice of one shared list)."""
        count = self.bounds[d + 1] - self.bounds[d]
        if len(_IDS) < count:
            _IDS.extend(f"T{k}" for k in range(len(_IDS) + 1, count + 1))
        return _IDS[:count]


class ScannedFields:
    """A document a scan read whose fields in :attr:`LAZY` are made from the scan's columns
    (``columns``, a :class:`ScanColumns`; the document's place ``number``) when first asked
    for, then kept: mixed into a reader's file class before it, whose slots hold them."""

    __slots__ = ()

    LAZY: ClassVar[frozenset[str]] = frozenset(
        {"ids", "types", "starts", "ends", "texts", "lines"}
        | {"normalizations", "attributes", "relations", "events", "notes"}
    )
    """The fields made on first use: these of a brat file (a reader whose file class has more
    adds its own)."""
    columns: ScanColumns
    number: int

    def __getattr__(self, name: str) -> Any:  # a field not yet set
        if name not in type(self).LAZY:
            raise AttributeError(name)
        value = self.columns.field(name, self.number)
        object.__setattr__(self, name, value)
        return value


class FileRows(NamedTuple):
    """Rows ``lo:hi`` of an :class:`EntityBlock`: one file's entities (a named tuple: a reader
    makes one per document, four times faster than a frozen dataclass)."""

    block: EntityBlock
    lo: int
    hi: int


def file_rows(block: EntityBlock, bounds: list[int]) -> Iterator[FileRows]:
    """The :class:`FileRows` of each document of a reading, rows ``bounds[d]:bounds[d + 1]``
    of ``block`` (made by ``tuple.__new__`` in a C-level ``map``: no Python call a document).

    >>> [(rows.lo, rows.hi) for rows in file_rows(EntityBlock(), [0, 2, 2, 5])]
    [(0, 2), (2, 2), (2, 5)]
    """
    return map(tuple.__new__, repeat(FileRows), zip(repeat(block), bounds[:-1], bounds[1:]))


@dataclass(slots=True)
class AnnFile:
    """The annotations of one ``.ann`` file, entities as columns (one entry per entity line).

    ``starts``/``ends`` are the outer bounds (as written in the ``pharmaconer`` dialect, where
    they may be reversed); ``fragments[k]`` is set only when some entity is discontinuous.
    ``warnings`` are structured (:class:`~annoscore.score_warnings.ScoreWarning`) and name file and
    line.  ``rows`` (set for every file the reader reads) says which rows of the reading's
    :class:`EntityBlock` are this file's entities; a file made from others
    (:meth:`without_type`, :meth:`merged`) has none.
    """

    id: str
    path: str
    ids: Sequence[str]
    types: Sequence[str]
    starts: Sequence[int]
    ends: Sequence[int]
    texts: Sequence[str]
    lines: list[int] | None = None
    fragments: list[Fragments] | None = None
    text: str | None = None
    normalizations: tuple[Normalization, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    notes: tuple[Note, ...] = ()
    warnings: list[ScoreWarning] = field(default_factory=list)
    rows: FileRows | None = None

    def __len__(self) -> int:
        return len(self.types)

    def line_of(self, k: int) -> int:
        """The line number of entity ``k``."""
        return self.lines[k] if self.lines is not None else k + 1

    def entity_fragments(self) -> list[Fragments]:
        """Every entity's fragments (``((start, end),)`` for a continuous one)."""
        if self.fragments is not None:
            return self.fragments
        return [((s, e),) for s, e in zip(self.starts, self.ends, strict=True)]

    @property
    def has_discontinuous(self) -> bool:
        return self.fragments is not None and any(len(f) > 1 for f in self.fragments)

    def mentions(self) -> tuple[Mention, ...]:
        """The entities as :class:`~annoscore.model.Mention` objects (built on demand).

        Reversed offsets (read only in the ``pharmaconer`` dialect) have no span: an
        :class:`InputError` naming the line.
        """
        out = []
        for k, fragments in enumerate(self.entity_fragments()):
            try:
                span = Span(fragments)
            except ValueError:
                raise InputError(
                    f"offsets {fragments} cannot be compared in this mode (need 0 <= start <= "
                    "end; only the official strict mode compares them as written)",
                    self.path,
                    self.line_of(k),
                ) from None
            out.append(Mention(span, self.types[k], self.ids[k], self.texts[k], self.line_of(k)))
        return tuple(out)

    def without_type(self, name: str) -> tuple[AnnFile, int]:
        """This file without the entities of type ``name``, and how many were removed."""
        keep = [k for k, t in enumerate(self.types) if t != name]
        if len(keep) == len(self.types):
            return self, 0

        smaller = replace(
            self,
            ids=[self.ids[k] for k in keep],
            types=[self.types[k] for k in keep],
            starts=[self.starts[k] for k in keep],
            ends=[self.ends[k] for k in keep],
            texts=[self.texts[k] for k in keep],
            lines=[self.line_of(k) for k in keep],
            fragments=None if self.fragments is None else [self.fragments[k] for k in keep],
            rows=None,
        )
        return smaller, len(self.types) - len(keep)

    def merged(self, other: AnnFile) -> AnnFile:
        """Two files read as one document (the official plain script's system folder)."""
        lines = [self.line_of(k) for k in range(len(self))]
        lines += [other.line_of(k) for k in range(len(other))]
        return replace(
            self,
            ids=[*self.ids, *other.ids],
            types=[*self.types, *other.types],
            starts=[*self.starts, *other.starts],
            ends=[*self.ends, *other.ends],
            texts=[*self.texts, *other.texts],
            lines=lines,
            fragments=self.entity_fragments() + other.entity_fragments(),
            notes=self.notes + other.notes,
            normalizations=self.normalizations + other.normalizations,
            attributes=self.attributes + other.attributes,
            relations=self.relations + other.relations,
            events=self.events + other.events,
            warnings=self.warnings + other.warnings,
            rows=None,
        )

    @classmethod
    def of(cls, document: AnnotatedDocument) -> AnnFile:
        """A document as columns, the inverse of :meth:`document` (a mention without a line
        number has its position)."""
        mentions = document.mentions
        return cls(
            id=document.id,
            path=document.path,
            ids=[m.id for m in mentions],
            types=[m.type for m in mentions],
            starts=[m.span.start for m in mentions],
            ends=[m.span.end for m in mentions],
            texts=[m.text for m in mentions],
            lines=[m.line or k for k, m in enumerate(mentions, start=1)],
            fragments=[m.span.fragments for m in mentions],
            text=document.text,
            normalizations=document.normalizations,
            attributes=document.attributes,
            relations=document.relations,
            events=document.events,
            notes=document.notes,
            warnings=[note(w) for w in document.warnings],
        )

    def document(self) -> AnnotatedDocument:
        """The file as an :class:`~annoscore.model.AnnotatedDocument` (warnings as sentences)."""
        return AnnotatedDocument(
            id=self.id,
            mentions=self.mentions(),
            text=self.text,
            normalizations=self.normalizations,
            attributes=self.attributes,
            relations=self.relations,
            events=self.events,
            notes=self.notes,
            path=self.path,
            warnings=tuple(_warning_sentence(w) for w in self.warnings),
        )


def _warning_sentence(warning: ScoreWarning) -> str:
    text = warning.message.replace("{count}", str(warning.count))
    if warning.examples:
        text = f"{', '.join(warning.examples)}: {text}"
    return text
