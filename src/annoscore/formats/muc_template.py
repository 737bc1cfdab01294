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

How it reads: one regular expression over the whole text (``_ROW``) splits it into lines and
recognises the common ones: a header with a well-formed id, a slot line with at most one fill
(a nonempty quoted string without ``[``, a pointer with a well-formed id, or a word not starting
with ``/``), and blank lines.  The objects whose lines are all common ones, whose slot names do
not repeat and who have no status slot are built column by column (``map`` over the captured
columns; a line number is the row's index).  Every other object (and anything before the first
header but blank lines) goes through the line reader (``_Reader.read_lines``), which knows the
whole syntax and every error.  :func:`parse_templates_by_line` reads a whole file with it, as
:func:`parse_templates` does for a text holding a line break other than LF and CR LF (lines are
those of ``str.splitlines``).  Both give equal objects and the same first error
(tests/formats/test_muc_template_paths.py pins them on generated files).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, chain, compress, count, repeat
from operator import itemgetter, ne, sub
from pathlib import Path
from typing import cast

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
"""A slot line with at most one fill and no ``/`` or ``[``: the line reader's quick path."""
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

Names, ids and words are printable ASCII on a common line (anything else sends the line to the
line reader), so no Unicode class (``\\s``, ``\\w``) is needed here."""
_GROUPS = 5
_LINE_BREAKS_ASCII = ("\r", "\v", "\f", "\x1c", "\x1d", "\x1e")
_LINE_BREAKS = (*_LINE_BREAKS_ASCII, "\x85", "\u2028", "\u2029")
"""Where ``str.splitlines`` also breaks lines (CR LF is made a newline first when every CR
starts one: replacing it around a lone CR would join two line breaks into one)."""
_NO_FILL: tuple[tuple[TemplateFill, ...], ...] = ((),)
_SAMPLE = 1 << 16
"""Characters of a longer text whose objects decide its path (see :func:`parse_templates`)."""
_MOST_UNCOMMON = 1 / 8
"""Above this share of objects with another line in the sample, the line reader reads all:
the column path then costs more than it saves (measured on keys with continuation lines)."""


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

    # --- the common lines, column by column -------------------------------------------------

    def read(self, text: str) -> list[TemplateDocument]:
        """Read a text whose only line breaks are newlines."""
        # the columns, kept only for the headers' and the slots' lines (the lists of every
        # line are dropped before the objects are built: the cyclic collector, when it runs,
        # walks every live list)
        rows = _ROW.split(text if text.endswith("\n") else text + "\n")
        step = _GROUPS + 1
        lines = len(rows) // step
        ids, names = rows[1::step], rows[2::step]
        header_lines = list(compress(count(1), ids))
        object_ids = list(compress(ids, ids))
        slot_lines = list(compress(count(1), names))
        slot_names = tuple(compress(names, names))
        slot_pointers = list(compress(rows[3::step], names))
        slot_texts = list(compress(rows[4::step], names))
        other_lines = list(compress(count(1), rows[5::step]))
        # the slots of object j: slot_names[starts[j] : ends[j]] (its lines are blank or slots)
        if len(header_lines) + len(slot_lines) == lines:  # no blank line: quicker
            starts = list(map(sub, header_lines, count(1)))
        else:
            starts = list(compress(accumulate(map(bool, names)), ids))
        ends = [*starts[1:], len(slot_names)]
        del rows, ids, names
        # CLASS-DOCNUM-N: the class is up to the first '-', the number after the last one
        heads = list(map(str.partition, object_ids, repeat("-")))
        object_classes = list(map(itemgetter(0), heads))
        tails = list(map(str.rpartition, map(itemgetter(2), heads), repeat("-")))
        del heads
        object_documents = list(map(itemgetter(0), tails))
        object_numbers = list(map(itemgetter(2), tails))
        del tails
        # the line reader reads every segment (0: the lines before the first header, j + 1:
        # object j) holding another line, a slot before the first header, a repeated slot
        # name or the status slot
        irregular = {bisect_right(header_lines, line) for line in other_lines}
        if slot_lines and (not header_lines or slot_lines[0] < header_lines[0]):
            irregular.add(0)
        name_lists = set(map(slot_names.__getitem__, map(slice, starts, ends)))
        unusual = {names for names in name_lists if not self.usual_names(names)}
        if unusual:
            object_names = map(slot_names.__getitem__, map(slice, starts, ends))
            irregular.update(compress(count(1), map(unusual.__contains__, object_names)))
        segments = sorted(irregular)
        every_header_line = header_lines
        if segments:  # the columns of the other objects only
            regular = [True] * len(header_lines)
            for segment in segments:
                if segment:
                    regular[segment - 1] = False
            sizes = list(map(sub, ends, starts))
            # the slots before the first common header are the line reader's (segment 0)
            slot_regular = [False] * (starts[0] if starts else len(slot_names))
            slot_regular += chain.from_iterable(map(repeat, regular, sizes))
            slot_names = tuple(compress(slot_names, slot_regular))
            slot_lines = list(compress(slot_lines, slot_regular))
            slot_texts = list(compress(slot_texts, slot_regular))
            slot_pointers = list(compress(slot_pointers, slot_regular))
            header_lines = list(compress(header_lines, regular))
            object_ids = list(compress(object_ids, regular))
            object_classes = list(compress(object_classes, regular))
            object_documents = list(compress(object_documents, regular))
            object_numbers = list(compress(object_numbers, regular))
            ends = list(accumulate(compress(sizes, regular)))
            starts = [0, *ends[:-1]]

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
        objects: list[TemplateObject | _ObjectBuilder] = list(
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
        if not segments:
            return self.documents(objects, object_ids, object_documents)
        objects = self.read_segments(objects, every_header_line, segments, text.split("\n")[:lines])
        return self.documents(
            objects, [obj.id for obj in objects], [obj.document for obj in objects]
        )

    def usual_names(self, names: tuple[str, ...]) -> bool:
        """Whether an object with these slots (in order) is read whole by the column path: no
        name repeats (an error) and none is the status slot."""
        lowered = {name.lower() for name in names}
        return len(lowered) == len(names) and self.status_slot not in lowered

    def read_segments(
        self,
        objects: list[TemplateObject | _ObjectBuilder],
        header_lines: list[int],
        segments: list[int],
        lines: list[str],
    ) -> list[TemplateObject | _ObjectBuilder]:
        """The objects in file order: ``objects`` (those of no segment) and what the line reader
        reads from the lines of each run of consecutive segments (0: before the first header,
        j + 1: object j; ``header_lines`` has every object's)."""
        runs: list[list[int]] = []
        for segment in segments:
            if runs and segment == runs[-1][1] + 1:
                runs[-1][1] = segment
            else:
                runs.append([segment, segment])
        merged: list[TemplateObject | _ObjectBuilder] = []
        taken = 0  # of objects, merged
        passed = 0  # objects read by the line reader
        for first, last in runs:
            first_object = max(first, 1) - 1
            merged += objects[taken : first_object - passed]
            taken = first_object - passed
            passed += last - first_object
            begin = header_lines[first - 1] - 1 if first else 0
            end = header_lines[last] - 1 if last < len(header_lines) else len(lines)
            read = len(self.objects)
            self.read_lines(lines, begin, end)
            merged += self.objects[read:]
        merged += objects[taken:]
        return merged

    # --- every line, one by one -------------------------------------------------------------

    def read_lines(self, lines: Sequence[str], begin: int, end: int) -> None:
        """Read ``lines[begin:end]`` (``lines[i]`` is line ``i + 1``) into ``self.objects``."""
        plain_slot = _PLAIN_SLOT.match
        valid_id = _ID.fullmatch
        header_line = _PLAIN_HEADER.match
        status_slot = self.status_slot
        obj: _ObjectBuilder | None = None
        for number in range(begin + 1, end + 1):
            raw = lines[number - 1]
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
            lead = stripped[0]  # only '<' may start a header, only a letter a slot
            if lead == "<":
                header = _HEADER.match(raw)
                if header is not None:
                    cls, doc, one_up = parse_object_id(header.group(1), self.path, number)
                    obj = _ObjectBuilder(header.group(1), cls, doc, one_up, number)
                    self.objects.append(obj)
                    self.slot = None
                    continue
            open_slot = self.reopen()
            if lead == "<" and ":=" not in stripped and open_slot is None:
                raise self.error("an object header is '<CLASS-DOCNUM-N> :=' on one line", number)
            slot_match = _SLOT.match(raw) if lead.isascii() and lead.isalpha() else None
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

    def reopen(self) -> _SlotBuilder | None:
        """The slot a continuation line adds to: the last one, made a builder again if it was
        read whole by the quick path."""
        if self.slot is None and self.objects:
            obj = self.objects[-1]
            if obj.slots and isinstance(obj.slots[-1], TemplateSlot):
                last = obj.slots[-1]
                self.slot = _SlotBuilder(last.name, last.line, list(last.alternatives[0]))
                obj.slots[-1] = self.slot
        return self.slot

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

    # --- documents --------------------------------------------------------------------------

    def documents(
        self,
        objects: list[TemplateObject | _ObjectBuilder],
        ids: Sequence[str],
        documents: Sequence[str],
    ) -> list[TemplateDocument]:
        """Group the objects (``ids[i]``, ``documents[i]`` are those of ``objects[i]``) into
        documents, finishing the line reader's ones; the first error in file order if an id
        repeats, a document's objects are not contiguous or a status slot is wrong."""
        if not objects:
            return []
        starts = [0, *compress(count(1), map(ne, documents[1:], documents[:-1]))]
        run_documents = [documents[start] for start in starts]
        if len(set(ids)) != len(ids) or len(set(run_documents)) != len(run_documents):
            raise self.first_order_error(objects)
        finished = cast("list[TemplateObject]", objects)  # no builder: the line reader read none
        if self.objects:  # the line reader's objects are finished here, in file order
            finished = [
                self.finish(obj) if isinstance(obj, _ObjectBuilder) else obj for obj in objects
            ]
        path = str(self.path)
        ends = [*starts[1:], len(finished)]
        return [
            TemplateDocument(document, tuple(finished[start:end]), path)
            for document, start, end in zip(run_documents, starts, ends, strict=True)
        ]

    def first_order_error(self, objects: list[TemplateObject | _ObjectBuilder]) -> InputError:
        """The first error of the objects in file order: a repeated id, a document whose
        objects are not contiguous, or (raised) a wrong status slot."""
        seen_ids: dict[str, int] = {}
        seen_documents: set[str] = set()
        current_document: str | None = None
        for obj in objects:
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
            if isinstance(obj, _ObjectBuilder):
                self.finish(obj)
        raise AssertionError("first_order_error called on objects without an order error")

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
    """Parse a template file's text into documents (in file order) of objects (in file order).

    A text with a line break other than LF and CR LF, or whose sample has many objects with
    uncommon lines (continuation lines, several fills on a line, comments), is read by the line
    reader alone (:func:`parse_templates_by_line`); any other by the column path.
    """
    if "\r" in text and text.count("\r") == text.count("\r\n"):
        text = text.replace("\r\n", "\n")  # the same lines (a lone CR stays: the line reader)
    line_breaks = _LINE_BREAKS_ASCII if text.isascii() else _LINE_BREAKS
    if any(line_break in text for line_break in line_breaks) or not _mostly_common(text):
        return parse_templates_by_line(text, path, keys_syntax=keys_syntax, status_slot=status_slot)
    return _Reader(path, keys_syntax, status_slot).read(text)


def _mostly_common(text: str) -> bool:
    """Whether at most one object in 8 of the text's first ``_SAMPLE`` characters (all of a
    shorter text is taken as yes) has a line that is not a common one: the column path pays
    off then.  Both paths give the same result; this only picks the quicker."""
    if len(text) <= _SAMPLE:
        return True
    rows = _ROW.split(text[: text.find("\n", _SAMPLE) + 1])
    header_lines = list(compress(count(1), rows[1 :: _GROUPS + 1]))
    other_lines = compress(count(1), rows[_GROUPS :: _GROUPS + 1])
    uncommon = {bisect_right(header_lines, line) for line in other_lines}
    return len(uncommon) <= _MOST_UNCOMMON * len(header_lines)


def parse_templates_by_line(
    text: str, path: Path, *, keys_syntax: bool, status_slot: str = "OBJ_STATUS"
) -> list[TemplateDocument]:
    """:func:`parse_templates` reading every line with the line reader (the lines of
    ``str.splitlines``): what it does for a text with a line break other than a newline."""
    reader = _Reader(path, keys_syntax, status_slot)
    lines = text.splitlines()
    reader.read_lines(lines, 0, len(lines))
    objects: list[TemplateObject | _ObjectBuilder] = list(reader.objects)
    return reader.documents(
        objects, [obj.id for obj in reader.objects], [obj.document for obj in reader.objects]
    )


def read_templates(
    path: Path, *, keys_syntax: bool, status_slot: str = "OBJ_STATUS"
) -> list[TemplateDocument]:
    """Read a key (``keys_syntax=True``) or response template file."""
    text, _ = without_bom(read_text(path))  # reported by the task (files.bom_warnings)
    return parse_templates(text, path, keys_syntax=keys_syntax, status_slot=status_slot)
