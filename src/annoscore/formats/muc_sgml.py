"""MUC SGML task files: the key and response texts of the named entity and coreference tasks.

The reader is a small explicit state machine over the markup (no regular expression over the
whole file): it jumps from ``<`` to ``<``, reads one tag at a time (generic identifier, then its
attributes, quoted with ``"`` or ``'`` or unquoted), and keeps three states: outside a document,
inside a document (a stack of open sections), inside task tags (a stack of open task tags).

- Documents are the ``<DOC> ... </DOC>`` elements (``:sgml_DOC_gid``); text outside them is
  ignored.  A document's number is every digit of its ``<DOCNO>`` section (``:sgml_DOCNUM_gid``);
  a document without one is an error.
- Offsets are counted per document, from the first character after the ``<DOC>`` tag, over the
  text with the *task's own* tags removed (``ENAMEX``/``TIMEX``/``NUMEX`` or ``COREF``); every
  other tag counts as text (../shared/spec/muc.md, decision 6).  Spans are half-open.
- Sections (``:doc_sections``) nest; a task tag belongs to the innermost open section.  A task
  tag outside every configured section is not an object (the manual: only those sections are
  parsed); :attr:`SgmlDocument.outside` counts them for a warning.
- Task tags nest (``<COREF ID="2"><COREF ID="3">his</COREF> company</COREF>``); a closing tag
  must close the innermost open task tag.
- Attribute names are upper-cased; in values the ``:sgml_attribute_quote_char`` (``*``) stands
  for ``"`` and is turned back.

Errors name the file, line and column: an unclosed tag (task, section or document), a closing
tag without an opening one, a tag across a document boundary, a tag that is not closed by ``>``,
a document without a number.

>>> docs = parse_sgml('<DOC><DOCNO> 12-3 </DOCNO><TEXT><ENAMEX TYPE=PERSON>Ann</ENAMEX> ran'
...                   '</TEXT></DOC>', "k.sgml", {"ENAMEX"}, sections=("TEXT",))
>>> d = docs[0]
>>> d.number, d.tags[0].attributes, d.tags[0].start, d.tags[0].end, d.tags[0].section
('123', {'TYPE': 'PERSON'}, 27, 30, 'TEXT')
>>> d.text[27:30]
'Ann'
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from annoscore.errors import InputError
from annoscore.formats.files import read_text
from annoscore.model import TemplateDocument

DEFAULT_SECTIONS = ("DOC", "DATELINE", "DD", "HEADLINE", "TEXT")
"""The manual's default ``:doc_sections``."""

_NAME = re.compile(r"<(/?)([A-Za-z][\w.\-]*)")
_ATTRIBUTE_TEXT = r"([A-Za-z_][\w.:\-]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+)))?"
_TAG_REST = re.compile(
    r"((?:\s+[A-Za-z_][\w.:\-]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?)*)\s*/?>"
)
"""What follows a tag's generic identifier: its attributes (group 1), then ``>``."""
_ATTRIBUTES = re.compile(_ATTRIBUTE_TEXT)
"""One attribute: name, then a double-quoted, single-quoted or bare value (or none)."""


class SgmlTag(NamedTuple):
    """One task tag: its generic identifier (upper-case), attributes, half-open offsets in the
    document text (task tags removed), the enclosed text, its innermost section and where its
    open tag is in the file.  (A named tuple: there are hundreds of thousands in a corpus.)"""

    name: str
    attributes: dict[str, str]
    start: int
    end: int
    text: str
    section: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class SgmlDocument:
    """One ``<DOC>``: its number, text (task tags removed), task tags in open-tag order."""

    number: str
    text: str
    tags: tuple[SgmlTag, ...]
    line: int
    path: str
    outside: int = 0
    """Task tags outside every configured section (not objects)."""


class _Position:
    """Line and column of a character offset of the file (1-based), by bisection."""

    def __init__(self, source: str) -> None:
        self.starts = [0]
        find = source.find
        at = find("\n")
        while at >= 0:
            self.starts.append(at + 1)
            at = find("\n", at + 1)

    def __call__(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class _OpenTag:
    __slots__ = ("attributes", "column", "line", "name", "raw", "start")

    def __init__(
        self, name: str, attributes: dict[str, str], start: int, raw: int, line: int, col: int
    ) -> None:
        self.name = name
        self.raw = raw
        self.attributes = attributes
        self.start = start
        self.line = line
        self.column = col


def parse_sgml(
    source: str,
    path: str | Path,
    task_gids: Collection[str],
    *,
    doc_gid: str = "DOC",
    docnum_gid: str = "DOCNO",
    sections: Sequence[str] = DEFAULT_SECTIONS,
    quote_char: str = "*",
) -> list[SgmlDocument]:
    """The documents of an SGML task file (see the module docstring)."""
    position = _Position(source)
    where = str(path)

    def error(message: str, offset: int) -> InputError:
        line, column = position(offset)
        return InputError(f"column {column}: {message}", where, line)

    tasks = {g.upper() for g in task_gids}
    doc_name = doc_gid.upper()
    docnum_name = docnum_gid.upper()
    section_names = {s.upper(): s for s in sections}
    documents: list[SgmlDocument] = []

    in_doc = False
    doc_offset = doc_line = 0
    pieces: list[str] = []
    piece_start = 0
    removed = 0
    open_sections: list[_OpenTag] = []
    open_tasks: list[_OpenTag] = []
    found: list[tuple[_OpenTag, int, str]] = []  # (open tag, end offset, section)
    outside = 0
    docnum_start = -1
    docnum_text: str | None = None

    find = source.find
    match_name = _NAME.match
    match_tag = _TAG_REST.match
    find_attributes = _ATTRIBUTES.findall
    structural = {doc_name, docnum_name, *section_names}
    i = find("<")
    while i >= 0:
        m = match_name(source, i)
        if m is None:
            if source.startswith("<!--", i):
                close = find("-->", i + 4)
                if close < 0:
                    raise error("comment <!-- not closed by -->", i)
                i = find("<", close + 3)
            else:  # a lone '<' in the text
                i = find("<", i + 1)
            continue
        slash, written = m.groups()
        closing = slash == "/"
        name = written.upper()
        is_task = name in tasks
        at = m.end()
        if not is_task and name not in structural:
            end = find(">", at)
            if end < 0:
                raise error(f"tag <{slash}{written} not closed by '>'", i)
            i = find("<", end + 1)
            continue
        attributes: dict[str, str] = {}
        t = match_tag(source, at)  # the attributes and the closing '>' of this one tag
        if t is not None and not closing and t.group(1):
            for key, double, single, bare in find_attributes(t.group(1)):
                value = double or single or bare
                if quote_char and quote_char in value:
                    value = value.replace(quote_char, '"')
                attributes[key.upper()] = value
        elif t is not None and closing and t.group(1):
            t = None
        if t is None:
            raise error(f"tag <{m.group(1)}{m.group(2)} not closed by '>' (bad attribute?)", i)
        tag_end = t.end()

        if name == doc_name:
            if not closing:
                if in_doc:
                    raise error(f"<{m.group(2)}> inside an unclosed document", i)
                in_doc = True
                doc_offset = tag_end
                doc_line = position(i)[0]
                pieces, piece_start, removed = [], tag_end, 0
                open_sections, open_tasks, found = [], [], []
                outside, docnum_start, docnum_text = 0, -1, None
                if name in section_names:
                    line, col = position(i)
                    open_sections.append(_OpenTag(section_names[name], {}, tag_end, i, line, col))
            else:
                if not in_doc:
                    raise error(f"</{m.group(2)}> without an open <{m.group(2)}>", i)
                if open_tasks:
                    o = open_tasks[-1]
                    raise error(
                        f"<{o.name}> opened on line {o.line}, column {o.column} is not closed "
                        "before the end of its document",
                        i,
                    )
                if open_sections and open_sections[-1].name.upper() == name:
                    open_sections.pop()
                if open_sections:
                    o = open_sections[-1]
                    raise error(
                        f"section <{o.name}> opened on line {o.line}, column {o.column} is not "
                        "closed before the end of its document",
                        i,
                    )
                pieces.append(source[piece_start:i])
                text = "".join(pieces)
                if docnum_text is None:
                    raise error(
                        f"document opened on line {doc_line} has no <{docnum_gid}> section",
                        i,
                    )
                number = "".join(c for c in docnum_text if c.isdigit())
                if not number:
                    raise error(
                        f"the <{docnum_gid}> section of the document opened on line {doc_line} "
                        "has no digit",
                        docnum_start,
                    )
                found.sort(key=lambda item: (item[0].start, -item[1]))
                tags = tuple(
                    SgmlTag(
                        o.name,
                        o.attributes,
                        o.start,
                        end,
                        text[o.start : end],
                        section,
                        o.line,
                        o.column,
                    )
                    for o, end, section in found
                )
                documents.append(SgmlDocument(number, text, tags, doc_line, where, outside))
                in_doc = False
            i = find("<", tag_end)
            continue

        if not in_doc:
            if is_task or name == docnum_name:
                raise error(f"<{m.group(1)}{m.group(2)}> outside a <{doc_gid}> document", i)
            i = find("<", tag_end)
            continue

        offset = i - doc_offset - removed
        if is_task:
            pieces.append(source[piece_start:i])
            piece_start = tag_end
            removed += tag_end - i
            if not closing:
                line, col = position(i)
                open_tasks.append(_OpenTag(name, attributes, offset, i, line, col))
            else:
                if not open_tasks:
                    raise error(f"</{m.group(2)}> without an open <{m.group(2)}>", i)
                o = open_tasks.pop()
                if o.name != name:
                    raise error(
                        f"</{m.group(2)}> closes <{o.name}> opened on line {o.line}, column "
                        f"{o.column}; tags must nest",
                        i,
                    )
                if open_sections:
                    found.append((o, offset, open_sections[-1].name))
                else:
                    outside += 1
        else:
            if name == docnum_name:
                if not closing:
                    docnum_start = tag_end
                elif docnum_start >= 0:
                    docnum_text = source[docnum_start:i]
            if name in section_names:
                if not closing:
                    line, col = position(i)
                    open_sections.append(_OpenTag(section_names[name], {}, tag_end, i, line, col))
                else:
                    if not open_sections or open_sections[-1].name.upper() != name:
                        raise error(
                            f"</{m.group(2)}> without an open <{m.group(2)}>"
                            + (
                                f" (the innermost open section is <{open_sections[-1].name}>)"
                                if open_sections
                                else ""
                            ),
                            i,
                        )
                    opened = open_sections.pop()
                    inner = [o for o in open_tasks if o.raw > opened.raw]
                    if inner:
                        o = inner[0]
                        raise error(
                            f"<{o.name}> opened on line {o.line}, column {o.column} is not "
                            f"closed before </{m.group(2)}>",
                            i,
                        )
        i = find("<", tag_end)
    if in_doc:
        raise error(
            f"document opened on line {doc_line} is not closed by </{doc_gid}>", len(source)
        )
    return documents


def read_sgml(
    path: Path,
    task_gids: Iterable[str],
    *,
    doc_gid: str = "DOC",
    docnum_gid: str = "DOCNO",
    sections: Sequence[str] = DEFAULT_SECTIONS,
    quote_char: str = "*",
) -> list[SgmlDocument]:
    """Read and parse an SGML task file; a document number used twice is an error."""
    documents = parse_sgml(
        read_text(path),
        path,
        set(task_gids),
        doc_gid=doc_gid,
        docnum_gid=docnum_gid,
        sections=sections,
        quote_char=quote_char,
    )
    seen: dict[str, int] = {}
    for document in documents:
        if document.number in seen:
            raise InputError(
                f"document number {document.number} is used again (first on line "
                f"{seen[document.number]})",
                path,
                document.line,
            )
        seen[document.number] = document.line
    return documents


def first_difference(key: str, response: str) -> int | None:
    """The first offset where two document texts differ (None when equal).

    >>> first_difference("abc", "abd"), first_difference("ab", "abc"), first_difference("a", "a")
    (2, 2, None)
    """
    if key == response:
        return None
    n = min(len(key), len(response))
    low, high = 0, n
    while low < high:  # the longest common prefix, by bisection on slices
        mid = (low + high + 1) // 2
        if key[:mid] == response[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def excerpt(text: str, offset: int, width: int = 20) -> str:
    """``width`` characters of ``text`` from ``offset``, newlines shown as spaces."""
    return text[offset : offset + width].replace("\n", " ")


# ------------------------------------------------------------------ tags to MUC objects
OPTIONAL_VALUES = ("OPT", "OPTIONAL")
"""``STATUS`` values that make a key object optional."""


@dataclass(frozen=True, slots=True)
class SgmlSlots:
    """The attribute names the SGML tasks read (``:sgml_*_slot``), upper-case."""

    text: str = "TEXT"
    type: str = "TYPE"
    alt: str = "ALT"
    id: str = "ID"
    ref: str = "REF"
    min: str = "MIN"
    status: str = "STATUS"
    separator: str = "|"


DEFAULT_SLOTS = SgmlSlots()
"""The manual's defaults."""


def flat_text(text: str) -> str:
    """A tag's TEXT fill: its characters with each newline made one space (the manual)."""
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


_MARKUP = re.compile(r"<[/!?]?[A-Za-z][^<>]*>")


def display_text(text: str) -> str:
    r"""A markable's text as the coreference reports show it: other SGML tags inside it removed
    and every whitespace run made one space.

    >>> display_text("Consuela Washington,\n</p>\n<p>  an expert")
    'Consuela Washington, an expert'
    """
    if "<" in text:
        text = _MARKUP.sub(" ", text)
    return " ".join(text.split())


def ne_objects(
    document: SgmlDocument,
    classes: Collection[str],
    defined_slots: dict[str, set[str]],
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    keys_syntax: bool = True,
) -> tuple[TemplateDocument, int]:
    """The named-entity objects of a document, and how many attributes were ignored.

    Each tag of a class in ``classes`` (upper-case generic identifiers) becomes a
    :class:`~annoscore.model.TemplateObject` ``<CLASS-DOCNUM-N>`` (N counts per class) with
    ``span`` and ``section``: the TEXT slot holds the tagged text (newlines made spaces) and, in
    keys, each ``ALT`` value as its own alternative; the TYPE slot the ``TYPE`` value; in keys
    ``STATUS="OPT"`` (or ``OPTIONAL``) makes the object optional.  Any other attribute becomes
    a slot when ``defined_slots[class]`` (lower-case slot names) lists it; otherwise it is
    ignored and counted.  In responses ``ALT`` and ``STATUS`` are ordinary attributes.  Slots
    holding the same attribute value are one shared (immutable) object.
    """
    from annoscore.model import Span, TemplateFill, TemplateObject, TemplateSlot

    numbers: dict[str, int] = {}
    objects: list[TemplateObject] = []
    ignored = 0
    wanted = {c.upper() for c in classes}
    shared: dict[tuple[str, str], TemplateSlot] = {}  # one slot object per attribute value
    alt, status, text_name = slots.alt, slots.status, slots.text.upper()
    defined_upper: dict[str, set[str]] = {}
    separator = slots.separator
    number_text = document.number
    for tag in document.tags:
        name = tag.name
        if name not in wanted:
            continue
        numbers[name] = number = numbers.get(name, 0) + 1
        defined = defined_upper.get(name)
        if defined is None:
            lowered = defined_slots.get(name.lower(), set())
            defined = defined_upper[name] = {n.upper() for n in lowered}
        line = tag.line
        alternatives: list[tuple[TemplateFill, ...]] = [
            (TemplateFill(flat_text(tag.text), line=line),)
        ]
        optional = False
        built: list[TemplateSlot] = []
        for attribute, value in tag.attributes.items():
            if keys_syntax and attribute == alt:
                alternatives.extend(
                    (TemplateFill(v, line=line),) for v in value.split(separator) if v.strip()
                )
                continue
            if attribute == text_name:
                continue
            if keys_syntax and attribute == status and value.upper() in OPTIONAL_VALUES:
                optional = True
            if attribute in defined:
                slot = shared.get((attribute, value))
                if slot is None:
                    slot = shared[attribute, value] = TemplateSlot(
                        attribute, ((TemplateFill(value, line=line),),)
                    )
                built.append(slot)
            else:
                ignored += 1
        if text_name in defined:
            built.insert(0, TemplateSlot(text_name, tuple(alternatives), line=line))
        objects.append(
            TemplateObject(
                f"{name}-{number_text}-{number}",
                name,
                number_text,
                str(number),
                tuple(built),
                optional,
                line,
                Span.of(tag.start, tag.end),
                tag.section,
            )
        )
    return TemplateDocument(document.number, tuple(objects), document.path), ignored


def coref_objects(
    document: SgmlDocument,
    gid: str = "COREF",
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    keys_syntax: bool = True,
) -> TemplateDocument:
    """The coreference markables of a document as objects ``<COREF-DOCNUM-ID>``.

    Slots: TEXT (the markable's text as :func:`display_text` shows it), MIN (key alternatives
    split on ``:sgml_alternative_separator``), REF (a pointer to ``<COREF-DOCNUM-REF>``), TYPE
    and any other attribute as written.  Errors (file, line, column): a markable without ID, an
    ID used twice in the document, a REF to an ID the document does not have.
    """
    from annoscore.model import Span, TemplateFill, TemplateObject, TemplateSlot

    objects: list[TemplateObject] = []
    seen: dict[str, SgmlTag] = {}
    shared: dict[tuple[str, str], TemplateSlot] = {}  # one slot object per attribute value
    name = gid.upper()
    markables = [t for t in document.tags if t.name == name]
    for tag in markables:
        ident = tag.attributes.get(slots.id, "").strip()
        if not ident:
            raise InputError(
                f"column {tag.column}: <{tag.name}> has no {slots.id} attribute",
                document.path,
                tag.line,
            )
        if ident in seen:
            first = seen[ident]
            raise InputError(
                f"column {tag.column}: {slots.id}={ident!r} is used again in document "
                f"{document.number} (first on line {first.line}, column {first.column})",
                document.path,
                tag.line,
            )
        seen[ident] = tag
    for tag in markables:
        ident = tag.attributes[slots.id].strip()
        text = display_text(tag.text)
        built = [TemplateSlot(slots.text, ((TemplateFill(text, line=tag.line),),))]
        optional = False
        for attribute, value in tag.attributes.items():
            if attribute in (slots.id, slots.text):
                continue
            if attribute == slots.ref:
                if slots.separator in value:
                    refs = [v.strip() for v in value.split(slots.separator) if v.strip()]
                else:
                    refs = [value.strip()] if value.strip() else []
                for ref in refs:
                    if ref not in seen:
                        raise InputError(
                            f"column {tag.column}: {slots.ref}={ref!r} names no markable "
                            f"{slots.id} of document {document.number}",
                            document.path,
                            tag.line,
                        )
                fills = tuple(
                    TemplateFill(f"{name}-{document.number}-{ref}", is_pointer=True, line=tag.line)
                    for ref in refs
                )
                built.append(TemplateSlot(attribute, (fills,), line=tag.line))
                continue
            if attribute == slots.min and keys_syntax:
                alternatives = tuple(
                    (TemplateFill(flat_text(v), line=tag.line),)
                    for v in value.split(slots.separator)
                    if v.strip()
                )
                built.append(TemplateSlot(attribute, alternatives or ((),), line=tag.line))
                continue
            if attribute == slots.status and keys_syntax and value.upper() in OPTIONAL_VALUES:
                optional = True
            slot = shared.get((attribute, value))
            if slot is None:
                slot = shared[attribute, value] = TemplateSlot(
                    attribute, ((TemplateFill(flat_text(value), line=tag.line),),)
                )
            built.append(slot)
        objects.append(
            TemplateObject(
                f"{name}-{document.number}-{ident}",
                name,
                document.number,
                ident,
                tuple(built),
                optional,
                tag.line,
                Span.of(tag.start, tag.end),
                tag.section,
            )
        )
    return TemplateDocument(document.number, tuple(objects), document.path)


# ------------------------------------------------------------------ brat export
def _fragments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` split at line breaks (brat's convention for multi-line entities),
    empty pieces dropped."""
    out: list[tuple[int, int]] = []
    at = start
    for piece in text[start:end].split("\n"):
        if piece:
            out.append((at, at + len(piece)))
        at += len(piece) + 1
    return out or [(start, end)]


def brat_annotation(
    document: SgmlDocument,
    gids: Collection[str],
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    coreference: bool = False,
) -> str:
    """The brat ``.ann`` text of a document's task tags, offsets into :attr:`SgmlDocument.text`
    (the document with the task's tags removed, written as the ``.txt``).

    Named entity: one ``T`` line per tag, typed by its TYPE attribute (the tag name if it has
    none).  Coreference: one ``T`` line of type ``COREF`` per markable and one ``*`` equivalence
    line (``Coreference``) per REF class of two or more.  ALT, STATUS and MIN have no brat
    counterpart and are left out.  A tag that spans lines becomes a discontinuous entity, one
    fragment per line, its text the fragments joined by one space (brat's convention).

    >>> doc = parse_sgml('<DOC><DOCNO>1</DOCNO><TEXT><ENAMEX TYPE="PERSON">Ann\\nLee</ENAMEX>'
    ...                  '</TEXT></DOC>', "k", {"ENAMEX"}, sections=("TEXT",))[0]
    >>> print(brat_annotation(doc, {"ENAMEX"}), end="")  # doctest: +NORMALIZE_WHITESPACE
    T1 PERSON 22 25;26 29 Ann Lee
    """
    wanted = {g.upper() for g in gids}
    lines: list[str] = []
    ids: dict[str, str] = {}
    refs: list[tuple[str, str]] = []
    number = 0
    for tag in document.tags:
        if tag.name not in wanted:
            continue
        number += 1
        label = "COREF" if coreference else tag.attributes.get(slots.type, tag.name)
        fragments = _fragments(document.text, tag.start, tag.end)
        where = ";".join(f"{a} {b}" for a, b in fragments)
        text = " ".join(document.text[a:b] for a, b in fragments)
        lines.append(f"T{number}\t{label} {where}\t{text}")
        if coreference:
            ident = tag.attributes.get(slots.id, "").strip()
            if ident:
                ids[ident] = f"T{number}"
            ref = tag.attributes.get(slots.ref, "").split(slots.separator)[0].strip()
            if ident and ref:
                refs.append((ident, ref))
    if coreference and refs:
        parent = {i: i for i in ids}

        def root(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for ident, ref in refs:
            if ref in parent:
                parent[root(ident)] = root(ref)
        classes: dict[str, list[str]] = {}
        for ident in ids:
            classes.setdefault(root(ident), []).append(ids[ident])
        for members in classes.values():
            if len(members) > 1:
                lines.append("*\tCoreference " + " ".join(members))
    return "".join(line + "\n" for line in lines)
