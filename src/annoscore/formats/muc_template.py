"""MUC template files: the key and response records of the TE, TR and ST tasks.

A record is a header line ``<CLASS-DOCNUM-N> :=`` and slot lines ``NAME: fill fill ...``; fills
continue on the following (indented) lines.  A fill is a quoted string (``"..."`` or ``'...'``,
the quotes removed and nothing else), a pointer ``<CLASS-DOCNUM-N>`` or one blank-free word
(``COMPANY``); a fill with blanks must be quoted (decision 14 of ../shared/spec/muc.md).  In keys:

- a ``/`` at the start of a continuation line (or after fills on a line) starts an alternative
  multi-fill: every fill after it, up to the next ``/`` or slot, belongs to that alternative;
- a ``/`` before the first fill on the slot's own line marks the slot optional
  (``ORG_TYPE: /COMPANY``);
- ``OBJ_STATUS: OPTIONAL`` (or ``OPT``; the slot named by ``:optional_status_slot``) marks the
  object optional; the status slot itself is not kept as a slot;
- one ``[...]`` part in a string fill is its minimum string (brackets removed from the text).

Responses may not use ``/`` or the status slot (the manual: a response slot holds one
multi-fill), unless ``keys_syntax`` is on (key2key scoring compares two keys).  Whole-line comments
start with ``;`` or ``#``.  The document of an object is the middle part of its id.  Objects of one
document must be contiguous (the manual's caveat); every error names the file and line.

Lines and NUL bytes follow :mod:`annoscore.formats.files`.  :func:`_scan_templates` reads a file
of common lines only (headers, slot lines with at most one plain fill, blank lines) with one
regular expression and declines (None) any other; :func:`_parse_templates`, the checked parser,
then reads it line by line and names the first error.  Both give equal objects, no warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import accumulate, compress, count, repeat
from operator import itemgetter, ne
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import (
    check_no_nul,
    first_line,
    read_text,
    saw,
    split_lines,
    without_bom,
)
from annoscore.templates import TemplateDocument, TemplateFill, TemplateObject, TemplateSlot

_ID = re.compile(r"([^\s<>\-]+)-([^\s<>]+)-([^\s<>\-]+)")
_HEADER = re.compile(r"\s*<([^<>]*)>\s*:=\s*$")
_SLOT = re.compile(r"\s*([A-Za-z][\w.\-]*):(?=[\s/\"'<]|$)")
_FILL_TOKEN = re.compile(r"\s*+(?:(/)|\"([^\"]*+)\"|'([^']*+)'|(<[^>]*+>)|([^\s\"'<]++)|([\"'<]))")
"""The next token of a line's fills (groups): ``/``; a double- or single-quoted string; a
pointer ``<...>``; a word (up to a blank, a quote or ``<``); or a quote or ``<`` that is
never closed on the line.  Every character but blanks is in one token."""
_ID_PART = r"[!-,.-;=?-~]+"
"""Printable ASCII but ``-<>`` (the class and the number of a common id)."""
_ID_MIDDLE = r"[!-;=?-~]+"
"""Printable ASCII but ``<>`` (the document of a common id)."""
_WORD = r"[!#-&(-.0-;=-Z\\\]-~][!#-&(-;=-Z\\\]-~]*+"
"""A common word fill: printable ASCII but ``"'<[``, not starting with ``/``."""
_ROW = re.compile(
    r"[ \t]*+(?:"
    rf"<({_ID_PART}-{_ID_MIDDLE}-{_ID_PART})>[ \t]*+:="
    r"|([A-Za-z][A-Za-z0-9_.\-]*+):(?:[ \t]*+(?:[\"']|(<))?("
    r"(?<=[ \t:]\")[^\"\[\n]++(?=\")"
    r"|(?<=[ \t:]')[^'\[\n]++(?=')"
    rf"|(?<=[ \t:]<){_ID_PART}-{_ID_MIDDLE}-{_ID_PART}(?=>)"
    rf"|(?<=[ \t]){_WORD}(?![\"'<])"
    r")[\"'>]?)?"
    r"|)[ \t]*+\n"
    r"|([^\n]*+)\n"
)
"""One line of a text ending in a newline; ``split`` gives the 5 groups of every line:

1. a common header's id (a well-formed one);
2. a common slot line's name,
3. ``<`` if its fill is a pointer,
4. its fill's text (a nonempty double- or single-quoted string without ``[``, the id of a
   well-formed pointer, or a word), none if the slot is empty;
5. any other line's text (a blank line has no group).

Names, ids and words are printable ASCII on a common line (anything else makes the scan
decline), so no Unicode class (``\\s``, ``\\w``) is needed here."""
_GROUPS = 5
_NO_FILL: tuple[tuple[TemplateFill, ...], ...] = ((),)


def parse_object_id(text: str, path: Path, line: int) -> tuple[str, str, str]:
    """``ORGANIZATION-9303020074-1`` -> (class, document, one-up number)."""
    match = _ID.fullmatch(text)
    if match is None:
        raise InputError(
            f"bad object id <{text}>: expected <CLASS-DOCNUM-N>, e.g. <PERSON-9303020074-57>",
            path,
            line,
        )
    return match.group(1), match.group(2), match.group(3)


class _SlotBuilder:
    __slots__ = ("alternatives", "line", "name", "optional")

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.optional = False
        self.alternatives: list[list[TemplateFill]] = [[]]

    def build(self) -> TemplateSlot:
        return TemplateSlot(
            self.name, tuple(tuple(a) for a in self.alternatives), self.optional, self.line
        )


class _ObjectBuilder:
    __slots__ = ("class_name", "document", "id", "line", "names", "number", "slots")

    def __init__(self, id: str, class_name: str, document: str, number: str, line: int) -> None:
        self.id = id
        self.class_name = class_name
        self.document = document
        self.number = number
        self.line = line
        self.slots: list[_SlotBuilder] = []
        self.names: set[str] = set()


def parse_templates(
    text: str,
    path: Path,
    *,
    keys_syntax: bool,
    status_slot: str = "OBJ_STATUS",
    first: int = 1,
) -> list[TemplateDocument]:
    """Parse a template file's text into documents (in file order) of objects (in file order);
    ``first`` is the number of the text's first line (a chunk of a file: its line there).

    A NUL character is an :class:`InputError` naming its line; then :func:`_scan_templates`
    reads the file, or declines and :func:`_parse_templates` does (see the module docstring).
    """
    check_no_nul(text, path)
    documents = _scan_templates(text, path, status_slot, first)
    if documents is None:
        documents = _parse_templates(text, path, keys_syntax, status_slot, first)
    return documents


def _scan_templates(
    text: str, path: Path, status_slot: str, first: int = 1
) -> list[TemplateDocument] | None:
    """The documents of a file whose lines are all common ones, built column by column; None
    (decline) for any other file: a line that is not a header with a well-formed id, a slot
    line with at most one plain fill or a blank line (``_ROW``); a line break other than LF
    and CR LF; a slot before the first header; a slot name twice in an object or the status
    slot; an object id twice or the objects of a document apart.  It takes no
    ``keys_syntax``: every fill a common line holds reads the same in keys and responses."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None  # a lone CR (text, not a line end): the parser keeps it
        text = text.replace("\r\n", "\n")  # every CR ends a line: the same lines
    rows = _ROW.split(text if text.endswith("\n") else text + "\n")
    step = _GROUPS + 1
    if any(rows[_GROUPS::step]):
        return None  # an uncommon line
    ids, names = rows[1::step], rows[2::step]
    header_lines = list(compress(count(first), ids))
    slot_lines = list(compress(count(first), names))
    if slot_lines and (not header_lines or slot_lines[0] < header_lines[0]):
        return None  # a slot before the first header: the parser's error
    object_ids = list(compress(ids, ids))
    if not object_ids:
        return []  # blank lines only
    if len(set(object_ids)) != len(object_ids):
        return None
    slot_names = tuple(compress(names, names))
    slot_pointers = list(compress(rows[3::step], names))
    slot_texts = list(compress(rows[4::step], names))
    # the slots of object j: slot_names[starts[j] : ends[j]] (its lines are blank or slots)
    starts = list(compress(accumulate(map(bool, names)), ids))
    ends = [*starts[1:], len(slot_names)]
    del rows, ids, names
    status = status_slot.lower()
    for object_names in set(map(slot_names.__getitem__, map(slice, starts, ends))):
        lowered = {name.lower() for name in object_names}
        if len(lowered) != len(object_names) or status in lowered:
            return None  # a slot twice (an error) or the status slot
    # CLASS-DOCNUM-N: the class is up to the first '-', the number after the last one
    heads = list(map(str.partition, object_ids, repeat("-")))
    object_classes = list(map(itemgetter(0), heads))
    tails = list(map(str.rpartition, map(itemgetter(2), heads), repeat("-")))
    del heads
    object_documents = list(map(itemgetter(0), tails))
    object_numbers = list(map(itemgetter(2), tails))
    del tails
    run_starts = [0, *compress(count(1), map(ne, object_documents[1:], object_documents[:-1]))]
    if len({object_documents[start] for start in run_starts}) != len(run_starts):
        return None  # the objects of a document apart: the parser's error
    is_pointer = map(bool, slot_pointers)
    alternatives: Iterator[tuple[tuple[TemplateFill, ...], ...]]
    if all(slot_texts):
        fills = map(TemplateFill, slot_texts, is_pointer, repeat(None), slot_lines)
        alternatives = zip(zip(fills))
    else:  # a slot without a fill has the one empty multi-fill
        has_fill = list(map(bool, slot_texts))
        fills = map(
            TemplateFill,
            compress(slot_texts, has_fill),
            compress(is_pointer, has_fill),
            repeat(None),
            compress(slot_lines, has_fill),
        )
        filled = zip(zip(fills))
        alternatives = (next(filled) if has else _NO_FILL for has in has_fill)
    slots = tuple(map(TemplateSlot, slot_names, alternatives, repeat(False), slot_lines))
    objects = list(
        map(
            TemplateObject,
            object_ids,
            object_classes,
            object_documents,
            object_numbers,
            map(slots.__getitem__, map(slice, starts, ends)),
            repeat(False),
            header_lines,
        )
    )
    return _grouped(objects, object_documents, str(path))


def _grouped(
    objects: Sequence[TemplateObject], documents: Sequence[str], path: str
) -> list[TemplateDocument]:
    """The objects (``documents[i]`` is the document of ``objects[i]``; a document's objects
    contiguous) as documents in file order."""
    if not objects:
        return []
    starts = [0, *compress(count(1), map(ne, documents[1:], documents[:-1]))]
    ends = [*starts[1:], len(objects)]
    return [
        TemplateDocument(documents[start], tuple(objects[start:end]), path)
        for start, end in zip(starts, ends, strict=True)
    ]


def _parse_templates(
    text: str, path: Path, keys_syntax: bool, status_slot: str, first: int = 1
) -> list[TemplateDocument]:
    """The documents of any template file, every line read by the checked parser
    (:class:`_Parser`); the first error in file order is an :class:`InputError`."""
    parser = _Parser(path, keys_syntax, status_slot)
    parser.read_lines(split_lines(text), first)
    return parser.documents()


class _Parser:
    """The checked parser: one line at a time, the whole syntax, every error."""

    def __init__(self, path: Path, keys_syntax: bool, status_slot: str) -> None:
        self.path = path
        self.keys_syntax = keys_syntax
        self.status_slot = status_slot.lower()
        self.objects: list[_ObjectBuilder] = []
        self.slot: _SlotBuilder | None = None

    def error(self, message: str, line: int) -> InputError:
        return InputError(message, self.path, line)

    def read_lines(self, lines: Sequence[str], first: int = 1) -> None:
        """Read ``lines`` (``lines[i]`` is line ``i + first``) into ``self.objects``."""
        for number, raw in enumerate(lines, start=first):
            stripped = raw.strip()
            if not stripped or stripped[0] in ";#":
                continue
            lead = stripped[0]  # only '<' may start a header, only a letter a slot
            if lead == "<":
                header = _HEADER.match(raw)
                if header is not None:
                    cls, doc, one_up = parse_object_id(header.group(1), self.path, number)
                    self.objects.append(_ObjectBuilder(header.group(1), cls, doc, one_up, number))
                    self.slot = None
                    continue
                if ":=" not in stripped and self.slot is None:
                    raise self.error(
                        "an object header is '<CLASS-DOCNUM-N> :=' on one line", number
                    )
            slot_match = _SLOT.match(raw) if lead.isascii() and lead.isalpha() else None
            if slot_match is not None:
                if not self.objects:
                    raise self.error("a slot before the first object header", number)
                self.slot = self.new_slot(slot_match.group(1), number)
                self.fills(raw[slot_match.end() :], number, on_slot_line=True)
                continue
            if self.slot is None:
                raise self.error(
                    f"expected an object header '<CLASS-DOCNUM-N> :=' or a slot 'NAME: fill', "
                    f"got {stripped[:40]!r}",
                    number,
                )
            if not raw[:1].isspace():
                raise self.error(
                    "expected 'NAME: fill' or an indented continuation line, "
                    f"got {stripped[:40]!r}",
                    number,
                )
            self.fills(raw, number, on_slot_line=False)

    def new_slot(self, name: str, line: int) -> _SlotBuilder:
        obj = self.objects[-1]
        lowered = name.lower()
        if lowered in obj.names:
            raise self.error(f"slot {name} appears twice in <{obj.id}>", line)
        obj.names.add(lowered)
        slot = _SlotBuilder(name, line)
        obj.slots.append(slot)
        return slot

    def fill(self, token: str, quoted: bool, line: int) -> TemplateFill:
        if not quoted and token.startswith("<"):
            parse_object_id(token[1:-1], self.path, line)
            return TemplateFill(token[1:-1], is_pointer=True, line=line)
        if self.keys_syntax and "[" in token:
            opens, closes = token.count("["), token.count("]")
            start, end = token.find("["), token.find("]")
            if opens != 1 or closes != 1 or end < start:
                raise self.error(f"a key fill may hold one [minimum] part, got {token!r}", line)
            minimum = token[start + 1 : end]
            return TemplateFill(
                token[:start] + minimum + token[end + 1 :], minimum=minimum, line=line
            )
        return TemplateFill(token, line=line)

    def fills(self, text: str, line: int, on_slot_line: bool) -> None:
        slot = self.slot
        assert slot is not None
        first = on_slot_line
        for slash, double, single, pointer, word, unclosed in _FILL_TOKEN.findall(text):
            if slash:
                if not self.keys_syntax:
                    raise self.error(
                        "'/' (optional slot or alternative) is only allowed in keys; use "
                        ":scoring_method key2key to compare two keys",
                        line,
                    )
                if first and not any(slot.alternatives):
                    slot.optional = True
                else:
                    slot.alternatives.append([])
                first = False
                continue
            first = False
            if unclosed == "<":
                raise self.error("unclosed '<' in a pointer fill", line)
            if unclosed:
                raise self.error(f"unclosed {unclosed} quote; a fill must end on its line", line)
            if pointer or word:
                slot.alternatives[-1].append(self.fill(pointer or word, False, line))
            else:  # a quoted string, perhaps empty
                slot.alternatives[-1].append(self.fill(double or single, True, line))

    def documents(self) -> list[TemplateDocument]:
        """The objects read, finished and grouped into documents; the first error in file
        order if an id repeats, a document's objects are not contiguous or a status slot is
        wrong."""
        objects = self.objects
        ids = [obj.id for obj in objects]
        documents = [obj.document for obj in objects]
        starts = [0, *compress(count(1), map(ne, documents[1:], documents[:-1]))]
        run_documents = [documents[start] for start in starts] if objects else []
        if len(set(ids)) != len(ids) or len(set(run_documents)) != len(run_documents):
            raise self.first_order_error()
        return _grouped([self.finish(obj) for obj in objects], documents, str(self.path))

    def first_order_error(self) -> InputError:
        """The first error of the objects in file order: a repeated id, a document whose
        objects are not contiguous, or (raised) a wrong status slot."""
        seen_ids: dict[str, int] = {}
        seen_documents: set[str] = set()
        current_document: str | None = None
        for obj in self.objects:
            if obj.id in seen_ids:
                return self.error(
                    f"object <{obj.id}> is defined twice (first on line {seen_ids[obj.id]})",
                    obj.line,
                )
            seen_ids[obj.id] = obj.line
            if obj.document != current_document:
                if obj.document in seen_documents:
                    return self.error(
                        f"the objects of document {obj.document} must be contiguous in the "
                        "file (the MUC manual's caveat)",
                        obj.line,
                    )
                current_document = obj.document
                seen_documents.add(current_document)
            self.finish(obj)
        raise AssertionError("first_order_error called on objects without an order error")

    def finish(self, obj: _ObjectBuilder) -> TemplateObject:
        slots: list[TemplateSlot] = []
        optional = False
        for builder in obj.slots:
            if builder.name.lower() != self.status_slot:
                slots.append(builder.build())
                continue
            values = [f.text.upper() for f in builder.alternatives[0]]
            if len(builder.alternatives) > 1 or builder.optional or len(values) > 1:
                raise self.error(f"{builder.name} takes one fill, OPTIONAL or OPT", builder.line)
            if values and values[0] not in ("OPTIONAL", "OPT"):
                raise self.error(
                    f"{builder.name} takes OPTIONAL or OPT, got {values[0]!r}", builder.line
                )
            if values and not self.keys_syntax:
                raise self.error(
                    f"{builder.name}: only keys mark objects optional; use :scoring_method "
                    "key2key to compare two keys",
                    builder.line,
                )
            optional = bool(values)
        return TemplateObject(
            obj.id, obj.class_name, obj.document, obj.number, tuple(slots), optional, obj.line
        )


def read_templates(
    path: Path, *, keys_syntax: bool, status_slot: str = "OBJ_STATUS"
) -> list[TemplateDocument]:
    """Read a key (``keys_syntax=True``) or response template file."""
    text, _ = without_bom(read_text(path))  # reported by the task (files.bom_warnings)
    documents = parse_templates(
        text, path, keys_syntax=keys_syntax, status_slot=status_slot, first=first_line(path)
    )
    saw(path, (d.id for d in documents))  # a chunk's documents (annoscore.scale)
    return documents
