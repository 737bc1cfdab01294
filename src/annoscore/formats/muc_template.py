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
"""

from __future__ import annotations

import re
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import read_text, without_bom
from annoscore.model import TemplateDocument, TemplateFill, TemplateObject, TemplateSlot

_ID = re.compile(r"([^\s<>\-]+)-([^\s<>]+)-([^\s<>\-]+)")
_HEADER = re.compile(r"\s*<([^<>]*)>\s*:=\s*$")
_SLOT = re.compile(r"\s*([A-Za-z][\w.\-]*):(?=[\s/\"'<]|$)")
_PLAIN_HEADER = re.compile(r"[ \t]*<(([^\s<>\-]+)-([^\s<>]+)-([^\s<>\-]+))>[ \t]*:=[ \t]*$")
"""A header line with a well-formed id (groups: id, class, document, number)."""
_PLAIN_SLOT = re.compile(
    r"[ \t]*([A-Za-z][\w.\-]*):"
    r"(?:[ \t]*(?:\"([^\"\[]*)\"|'([^'\[]*)'|<([^\s<>]*)>)|[ \t]+([^\s\"'<\[/][^\s\"'<\[]*))?"
    r"[ \t]*$"
)
"""A slot line with at most one fill and no ``/`` or ``[``: the fast path of the reader."""


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

    def __init__(self, name: str, line: int, fills: list[TemplateFill] | None = None) -> None:
        self.name = name
        self.line = line
        self.optional = False
        self.alternatives: list[list[TemplateFill]] = [fills if fills is not None else []]

    def build(self) -> TemplateSlot:
        alternatives = self.alternatives
        if len(alternatives) == 1:
            return TemplateSlot(self.name, (tuple(alternatives[0]),), self.optional, self.line)
        return TemplateSlot(
            self.name, tuple(tuple(a) for a in alternatives), self.optional, self.line
        )


class _ObjectBuilder:
    __slots__ = ("class_name", "document", "id", "line", "names", "number", "slots")

    def __init__(self, id: str, class_name: str, document: str, number: str, line: int) -> None:
        self.id = id
        self.class_name = class_name
        self.document = document
        self.number = number
        self.line = line
        self.slots: list[_SlotBuilder | TemplateSlot] = []
        self.names: set[str] = set()


class _Reader:
    def __init__(self, path: Path, keys_syntax: bool, status_slot: str) -> None:
        self.path = path
        self.keys_syntax = keys_syntax
        self.status_slot = status_slot.lower()
        self.objects: list[_ObjectBuilder] = []
        self.slot: _SlotBuilder | None = None

    def error(self, message: str, line: int) -> InputError:
        return InputError(message, self.path, line)

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
        i, n = 0, len(text)
        first = on_slot_line
        while i < n:
            char = text[i]
            if char.isspace():
                i += 1
                continue
            if char == "/":
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
                i += 1
                continue
            first = False
            if char in "\"'":
                end = text.find(char, i + 1)
                if end < 0:
                    raise self.error(f"unclosed {char} quote; a fill must end on its line", line)
                slot.alternatives[-1].append(self.fill(text[i + 1 : end], True, line))
                i = end + 1
            elif char == "<":
                end = text.find(">", i)
                if end < 0:
                    raise self.error("unclosed '<' in a pointer fill", line)
                slot.alternatives[-1].append(self.fill(text[i : end + 1], False, line))
                i = end + 1
            else:
                j = i
                while j < n and not text[j].isspace() and text[j] not in "\"'<":
                    j += 1
                slot.alternatives[-1].append(self.fill(text[i:j], False, line))
                i = j

    def new_slot(self, name: str, line: int) -> _SlotBuilder:
        obj = self.objects[-1]
        lowered = name.lower()
        if lowered in obj.names:
            raise self.error(f"slot {name} appears twice in <{obj.id}>", line)
        obj.names.add(lowered)
        slot = _SlotBuilder(name, line)
        obj.slots.append(slot)
        return slot

    def reopen(self) -> _SlotBuilder | None:
        """The slot a continuation line adds to: the last one, made a builder again if it was
        read whole by the fast path."""
        if self.slot is None and self.objects:
            obj = self.objects[-1]
            if obj.slots and isinstance(obj.slots[-1], TemplateSlot):
                last = obj.slots[-1]
                self.slot = _SlotBuilder(last.name, last.line, list(last.alternatives[0]))
                obj.slots[-1] = self.slot
        return self.slot

    def read(self, text: str) -> list[TemplateDocument]:
        plain_slot = _PLAIN_SLOT.match
        valid_id = _ID.fullmatch
        header_line = _PLAIN_HEADER.match
        status_slot = self.status_slot
        obj: _ObjectBuilder | None = None
        for number, raw in enumerate(text.splitlines(), start=1):
            plain = plain_slot(raw)
            if plain is not None and obj is not None:
                # the common line, ``NAME: fill`` with one plain fill or none, read whole into
                # a slot; anything else (and any error) takes the general path below
                name, double, single, pointer, word = plain.groups()
                lowered = name.lower()
                fills: tuple[TemplateFill, ...] | None = None
                if lowered in obj.names or lowered == status_slot:
                    pass  # a repeated slot (an error) or the status slot: general path
                elif pointer is not None:
                    if valid_id(pointer) is not None:  # else the general path says why
                        fills = (TemplateFill(pointer, True, None, number),)
                elif double is not None:
                    fills = (TemplateFill(double, False, None, number),)
                elif word is not None:
                    fills = (TemplateFill(word, False, None, number),)
                elif single is not None:
                    fills = (TemplateFill(single, False, None, number),)
                else:
                    fills = ()
                if fills is not None:
                    obj.names.add(lowered)
                    obj.slots.append(TemplateSlot(name, (fills,), False, number))
                    self.slot = None
                    continue
            elif plain is None:
                plain_header = header_line(raw)
                if plain_header is not None:
                    whole, cls, doc, one_up = plain_header.groups()
                    obj = _ObjectBuilder(whole, cls, doc, one_up, number)
                    self.objects.append(obj)
                    self.slot = None
                    continue
            stripped = raw.strip()
            if not stripped or stripped[0] in ";#":
                continue
            header = _HEADER.match(raw)
            if header is not None:
                cls, doc, one_up = parse_object_id(header.group(1), self.path, number)
                obj = _ObjectBuilder(header.group(1), cls, doc, one_up, number)
                self.objects.append(obj)
                self.slot = None
                continue
            open_slot = self.reopen()
            if stripped.startswith("<") and ":=" not in stripped and open_slot is None:
                raise self.error("an object header is '<CLASS-DOCNUM-N> :=' on one line", number)
            slot_match = _SLOT.match(raw)
            if slot_match is not None:
                if not self.objects:
                    raise self.error("a slot before the first object header", number)
                self.slot = self.new_slot(slot_match.group(1), number)
                self.fills(raw[slot_match.end() :], number, on_slot_line=True)
                continue
            if open_slot is None:
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
        return self.documents()

    def documents(self) -> list[TemplateDocument]:
        order: list[str] = []
        grouped: dict[str, list[TemplateObject]] = {}
        seen_ids: dict[str, int] = {}
        current: list[TemplateObject] = []
        current_doc: str | None = None
        for obj in self.objects:
            if obj.id in seen_ids:
                raise self.error(
                    f"object <{obj.id}> is defined twice (first on line {seen_ids[obj.id]})",
                    obj.line,
                )
            seen_ids[obj.id] = obj.line
            if obj.document != current_doc:
                if obj.document in grouped:
                    raise self.error(
                        f"the objects of document {obj.document} must be contiguous in the "
                        "file (the MUC manual's caveat)",
                        obj.line,
                    )
                current_doc = obj.document
                order.append(current_doc)
                current = grouped[current_doc] = []
            current.append(self.finish(obj))
        return [TemplateDocument(doc, tuple(grouped[doc]), str(self.path)) for doc in order]

    def finish(self, obj: _ObjectBuilder) -> TemplateObject:
        slots: list[TemplateSlot] = []
        optional = False
        for builder in obj.slots:
            if isinstance(builder, TemplateSlot):
                slots.append(builder)
                continue
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


def parse_templates(
    text: str, path: Path, *, keys_syntax: bool, status_slot: str = "OBJ_STATUS"
) -> list[TemplateDocument]:
    """Parse a template file's text into documents (in file order) of objects (in file order)."""
    return _Reader(path, keys_syntax, status_slot).read(text)


def read_templates(
    path: Path, *, keys_syntax: bool, status_slot: str = "OBJ_STATUS"
) -> list[TemplateDocument]:
    """Read a key (``keys_syntax=True``) or response template file."""
    text, _ = without_bom(read_text(path))  # reported by the task (files.bom_warnings)
    return parse_templates(text, path, keys_syntax=keys_syntax, status_slot=status_slot)
