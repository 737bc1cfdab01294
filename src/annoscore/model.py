"""The few shapes every task is made of.

Readers in :mod:`annoscore.formats` build these; aligners and metrics consume them.  All are frozen
(immutable, hashable) dataclasses.  Offsets are character offsets into the document text, spans are
half-open ``[start, end)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    Int32Array = npt.NDArray[np.int32]


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """One or more half-open character fragments, sorted, e.g. brat's ``10 20;25 30``.

    A continuous span has one fragment.  ``start`` is the first fragment's start and ``end`` the
    last fragment's end.
    """

    fragments: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not self.fragments:
            raise ValueError("a span needs at least one fragment")
        for start, end in self.fragments:
            if start < 0 or end < start:
                raise ValueError(f"bad fragment {start}-{end}: need 0 <= start <= end")

    @classmethod
    def of(cls, start: int, end: int) -> Span:
        """A continuous span ``[start, end)``."""
        return cls(((start, end),))

    @property
    def start(self) -> int:
        return self.fragments[0][0]

    @property
    def end(self) -> int:
        return self.fragments[-1][1]

    @property
    def length(self) -> int:
        """Characters covered (the gaps of a discontinuous span do not count)."""
        return sum(end - start for start, end in self.fragments)

    @property
    def is_discontinuous(self) -> bool:
        return len(self.fragments) > 1

    def overlap(self, other: Span) -> int:
        """Characters covered by both spans (0 when they only touch)."""
        total = 0
        for a_start, a_end in self.fragments:
            for b_start, b_end in other.fragments:
                total += max(0, min(a_end, b_end) - max(a_start, b_start))
        return total

    def __str__(self) -> str:
        return ";".join(f"{s} {e}" for s, e in self.fragments)


@dataclass(frozen=True, slots=True)
class Mention:
    """A typed span: an entity, a PHI mention, a markable.

    Equality and hashing use the span and the type only; the id, text and source line are
    carried along for reports and error messages.
    """

    span: Span
    type: str
    id: str = field(default="", compare=False)
    text: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Normalization:
    """brat ``N`` line: ``N1<TAB>Reference T1 Wikipedia:534366<TAB>Barack Obama``."""

    id: str
    type: str
    target: str
    resource: str
    reference: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Attribute:
    """brat ``A``/``M`` line: a binary (``value is None``) or multi-valued attribute."""

    id: str
    name: str
    target: str
    value: str | None = None


@dataclass(frozen=True, slots=True)
class Relation:
    """brat ``R`` line (``R1<TAB>Origin Arg1:T3 Arg2:T4``) or ``*`` equivalence line."""

    id: str
    type: str
    arguments: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Event:
    """brat ``E`` line: ``E1<TAB>MARRY:T2 Arg1:T1 Arg2:T3``."""

    id: str
    type: str
    trigger: str
    arguments: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Note:
    """brat ``#`` line: ``#1<TAB>AnnotatorNotes T1<TAB>free text`` (PharmaCoNER puts codes here)."""

    id: str
    type: str
    target: str
    text: str


@dataclass(frozen=True, slots=True)
class AnnotatedDocument:
    """One document's standoff annotations (a brat ``.ann`` file and, if found, its ``.txt``)."""

    id: str
    mentions: tuple[Mention, ...]
    text: str | None = None
    normalizations: tuple[Normalization, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    notes: tuple[Note, ...] = ()
    path: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class TemplateFill:
    """One MUC single fill: a set fill (``COMPANY``), a string fill or a pointer ``<CLASS-DOC-N>``.

    ``text`` is the fill as written with its enclosing quotes removed (and, in keys, the brackets
    of a minimum string removed); a pointer's ``text`` is the target id without angle brackets.
    ``minimum`` is the bracketed part of a key string (``"a [maker] of widgets"`` -> ``maker``):
    the shortest response string accepted.  Whether a fill is a set or a string fill is decided by
    its slot's definition, not by its quotes.

    The MUC classes (this one, :class:`TemplateSlot`, :class:`TemplateObject`,
    :class:`TemplateDocument`) are not frozen, for speed (a corpus builds hundreds of thousands;
    a frozen ``__init__`` costs three times as much), but immutable by convention (the readers
    share equal slots and fills) and hashed by value (``unsafe_hash``).
    """

    text: str
    is_pointer: bool = False
    minimum: str | None = None
    line: int = 0


@dataclass(slots=True, unsafe_hash=True)
class TemplateSlot:
    """A named slot of a template object: one multi-fill, or in keys several alternative ones.

    ``alternatives[0]`` is the main multi-fill; each further entry is an alternative introduced by
    a ``/`` line.  A response slot has exactly one.  ``optional`` is the key's ``/`` before the
    first fill (the slot may be left empty).  An empty slot has one empty multi-fill.
    Immutable by convention (see :class:`TemplateFill`).
    """

    name: str
    alternatives: tuple[tuple[TemplateFill, ...], ...] = ((),)
    optional: bool = False
    line: int = 0

    @property
    def fills(self) -> tuple[TemplateFill, ...]:
        """Every single fill of every alternative, in file order."""
        return tuple(fill for alternative in self.alternatives for fill in alternative)

    @property
    def is_empty(self) -> bool:
        return not any(self.alternatives)


@dataclass(slots=True, unsafe_hash=True)
class TemplateObject:
    """A MUC top-level object: ``<CLASS-DOCNUM-N> :=`` and its slots (one model for every task).

    Template files give ``id`` (``ORGANIZATION-9303020074-1``), ``class_name``, ``document`` and
    the one-up ``number``.  SGML tasks (named entity, coreference) build the same object from a
    tag: they add where it is (``section`` such as ``TEXT``; ``start`` and ``end``, half-open
    offsets in the document text, -1 for an object of a template file).  ``optional`` is the
    key's ``OBJ_STATUS: OPTIONAL`` (or an SGML ``STATUS="OPT"``).  Immutable by convention (see
    :class:`TemplateFill`).

    >>> o = TemplateObject("ENAMEX-1-1", "ENAMEX", "1", "1", (), start=3, end=7)
    >>> o.span, TemplateObject("A-1-1", "A", "1", "1", ()).span
    (Span(fragments=((3, 7),)), None)
    """

    id: str
    class_name: str
    document: str
    number: str
    slots: tuple[TemplateSlot, ...]
    optional: bool = False
    line: int = 0
    section: str = ""
    start: int = -1
    end: int = -1

    @property
    def span(self) -> Span | None:
        """Where the object is in its document's text (None for a template file's object)."""
        return Span(((self.start, self.end),)) if self.start >= 0 else None

    def slot(self, name: str) -> TemplateSlot | None:
        """The slot called ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        for slot in self.slots:
            if slot.name.lower() == wanted:
                return slot
        return None


@dataclass(slots=True, unsafe_hash=True)
class TemplateDocument:
    """The template objects of one document of a key or response file, in file order.
    Immutable by convention (see :class:`TemplateFill`)."""

    id: str
    objects: tuple[TemplateObject, ...]
    path: str = ""


# --- codes (CodiEsp) and rankings (trec) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CodeRows:
    """The rows of a D/P file as columns, in file order.

    ``documents`` lists the distinct document ids in order of first appearance and ``doc[i]``
    indexes it.  ``code[i]`` indexes ``codes`` (the vocabulary passed to
    :func:`annoscore.formats.codiesp.read_code_rows`, or the distinct codes of the file when
    none was passed); it is -1 for a code outside the vocabulary.  ``unknown`` counts those
    rows, ``unknown_distinct`` their distinct codes, and ``unknown_examples`` shows a few.
    ``lines[i]`` is the 1-based line number of row ``i``.
    """

    path: Path
    documents: list[str]
    codes: list[str]
    doc: Int32Array
    code: Int32Array
    lines: IntArray | None
    """None when row ``i`` is line ``i + 1`` (no blank line)."""
    unknown: int = 0
    unknown_distinct: int = 0
    unknown_examples: tuple[str, ...] = ()
    uppercase: int = 0
    """Rows whose code had upper-case letters before lower-casing."""

    def __len__(self) -> int:
        return len(self.doc)


@dataclass(frozen=True, slots=True)
class CodeReference:
    """One CodiEsp-X line: a code in a document, supported by the text at ``[start, end]``."""

    document: str
    label: str
    code: str
    start: int
    end: int
    line: int
    text: str = ""
