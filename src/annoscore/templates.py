"""MUC template objects: one object model for every MUC task (templates, entities, coreference).

Readers in :mod:`annoscore.formats` (``muc_template``, ``muc_sgml``) build these; the MUC aligner
and metrics consume them.
"""

from __future__ import annotations

from dataclasses import dataclass


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
