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

The document element, number section, sections and quote character are one
:class:`SgmlMarkup` (the configuration's, or the manual's defaults).

Errors name the file, line and column: an unclosed tag (task, section or document), a closing
tag without an opening one, a tag across a document boundary, a tag that is not closed by ``>``,
a document without a number, a document whose tags nest so deep that they enclose more than
:func:`enclosed_limit` characters in all (memory stays linear in the file).

>>> docs = parse_sgml('<DOC><DOCNO> 12-3 </DOCNO><TEXT><ENAMEX TYPE=PERSON>Ann</ENAMEX> ran'
...                   '</TEXT></DOC>', "k.sgml", {"ENAMEX"}, SgmlMarkup(sections=("TEXT",)))
>>> d = docs[0]
>>> d.number, d.tags[0].attributes, d.tags[0].start, d.tags[0].end, d.tags[0].section
('123', {'TYPE': 'PERSON'}, 27, 30, 'TEXT')
>>> d.text[27:30]
'Ann'
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, repeat
from operator import sub
from pathlib import Path
from typing import NamedTuple

from annoscore.errors import InputError
from annoscore.formats.files import check_no_nul, read_text, saw
from annoscore.formats.muc_config import once_per_run
from annoscore.records import Record, set_fields

DEFAULT_SECTIONS = ("DOC", "DATELINE", "DD", "HEADLINE", "TEXT")
"""The manual's default ``:doc_sections``."""


class SgmlMarkup(Record):
    """How a MUC SGML task file marks its documents up (the manual's defaults; a configuration
    gives its own: :func:`~annoscore.tasks.muc_sgml.sgml_markup`).

    ``doc_gid``: the element of a document (``:sgml_DOC_gid``); ``docnum_gid``: the section
    that holds its number (``:sgml_DOCNUM_gid``); ``sections``: the sections whose task tags
    are read (``:doc_sections`` and the sections its groups name); ``quote_char``: what stands
    for ``"`` in attribute values (``:sgml_attribute_quote_char``; empty: nothing does).
    """

    __slots__ = ("doc_gid", "docnum_gid", "sections", "quote_char")  # noqa: RUF023 (their order)
    doc_gid: str
    docnum_gid: str
    sections: tuple[str, ...]
    quote_char: str

    def __init__(
        self,
        doc_gid: str = "DOC",
        docnum_gid: str = "DOCNO",
        sections: tuple[str, ...] = DEFAULT_SECTIONS,
        quote_char: str = "*",
    ) -> None:
        set_fields(
            self, doc_gid=doc_gid, docnum_gid=docnum_gid, sections=sections, quote_char=quote_char
        )


ENCLOSED_PER_CHARACTER = 10
ENCLOSED_EXTRA = 1_000_000
"""A document's task tags may enclose at most ``ENCLOSED_PER_CHARACTER`` times its text's
length plus ``ENCLOSED_EXTRA`` characters in all (:func:`enclosed_limit`): each tag keeps its
text, so tags nested without limit would make memory grow with the square of the file."""


def enclosed_limit(length: int) -> int:
    """The characters the task tags of a document of ``length`` characters may enclose."""
    return ENCLOSED_PER_CHARACTER * length + ENCLOSED_EXTRA


_TOKEN = re.compile(r"<(?:(/?)([A-Za-z][\w.\-]*+)|!--)")
"""The start of a tag (``<``, an optional ``/``, the generic identifier) or of a comment; any
other ``<`` is text."""
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


_OpenTag = tuple[str, dict[str, str], int, int]
"""An open task or section tag: (name, attributes, offset in the document text, offset in the
file).  Its line and column are computed from the file offset only when needed."""


def parse_sgml(
    source: str, path: str | Path, task_gids: Collection[str], markup: SgmlMarkup = SgmlMarkup()
) -> list[SgmlDocument]:
    """The documents of an SGML task file marked up as ``markup`` says (see the module
    docstring).

    One reader, two steps (../shared/spec/design.md, "Fast paths"): :func:`_scan_sgml` reads a
    well-formed file without comments or ``<`` inside a tag (one regular expression finds only
    the task, document and section tags; other tags and the text are skipped at C speed) and
    declines (None) on anything else; then :func:`_parse_sgml`, the checked parser (one step
    per ``<``), reads the file, names the first error (file, line, column) or handles the
    comments and odd tags.  Both give the same documents (tags outside every section counted
    alike); tests/equivalence/test_muc_readers.py holds them equal.  A task tag's attributes
    are parsed once per distinct attribute text (a corpus repeats ``TYPE="PERSON"`` thousands
    of times: the parsed mapping is shared, read-only).
    """
    documents = _scan_sgml(source, str(path), task_gids, markup)
    if documents is None:
        documents = _parse_sgml(source, path, task_gids, markup)
    return documents


_NAME_TEXT = re.compile(r"[A-Za-z][\w.\-]*")
_SCANNERS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _scanner(tasks: Collection[str], others: Collection[str]) -> re.Pattern[str]:
    """The tags of the task names and the other names (upper-case; any case in the file).

    Groups 1-3, a whole task element whose content has no ``<``, closed by a tag of the same
    name: the name as written, the open tag's attribute text, the content.  Groups 4-7, one
    opening or closing tag: ``/``, the name as written, the attribute text, ``>`` (None when
    the rest of the tag is malformed).  Group 8, what only :func:`_parse_sgml` reads as the
    first implementation did: a comment, a ``<`` (or the end of the file) before the ``>`` of
    another tag, a tag name with a non-ASCII letter."""
    key = (
        *sorted(tasks, key=lambda n: (-len(n), n)),
        "",
        *sorted(others, key=lambda n: (-len(n), n)),
    )
    pattern = _SCANNERS.get(key)
    if pattern is None:

        def alternatives(names: Collection[str]) -> str:
            names = sorted(names, key=lambda n: (-len(n), n))
            return "|".join(re.escape(n) for n in names if _NAME_TEXT.fullmatch(n)) or "(?!)"

        attributes = (
            r"((?:\s+[A-Za-z_][\w.:\-]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?)*)\s*/?"
        )
        pattern = _SCANNERS[key] = re.compile(
            rf"<(?:((?ai:{alternatives(tasks)}))(?![\w.\-]){attributes}>([^<]*+)"
            r"</(?ai:\1)\s*/?>"
            rf"|(/?)((?ai:{alternatives({*tasks, *others})}))(?![\w.\-])(?:{attributes}(>))?"
            r"|(!--|/?[A-Za-z][^<>]*+(?:<|\Z)|/?[A-Za-z][A-Za-z0-9_.\-]*+[^\W\x00-\x7f]))"
        )
    return pattern


def _parsed_attributes(quote_char: str) -> dict[str, dict[str, str]]:
    """Each attribute text's attributes as a reading parses them (with ``quote_char``), shared
    read-only by its tags; a new mapping for each file read, one per process through the
    chunks of one cut run (:func:`~annoscore.formats.files.read_once`), as one reading of
    the whole file shares them: the tags of a worker's chunks then share their attributes,
    and what is made of a tag's attributes (the named entity slots:
    :class:`~annoscore.formats.muc_sgml_objects.SharedSlots`) is made once, not in each chunk
    again.  A pure function of the text and ``quote_char``.

    >>> _parsed_attributes('"') is _parsed_attributes('"')
    False
    """
    return once_per_run(("annoscore.muc_sgml.attributes", quote_char), dict)


def _scan_sgml(
    source: str, where: str, task_gids: Collection[str], markup: SgmlMarkup
) -> list[SgmlDocument] | None:
    """:func:`parse_sgml` of a well-formed file, or None (see :func:`parse_sgml`).

    Only the task, document and section tags are visited; a document's text is the source
    between its task tags, joined; the lines and columns of a document's task tags are counted
    when the document closes (``str.count`` from one open tag to the next, ``str.rfind`` of
    the line start, mapped over the offsets)."""
    tasks = {g.upper() for g in task_gids}
    doc_name = markup.doc_gid.upper()
    docnum_name = markup.docnum_gid.upper()
    section_names = {s.upper(): s for s in markup.sections}
    quote_char = markup.quote_char
    task_only = tasks - {doc_name}
    documents: list[SgmlDocument] = []
    names: dict[str, str] = {}  # as written -> upper-case
    parsed = _parsed_attributes(quote_char)  # attribute text -> attributes (shared)
    find_attributes = _ATTRIBUTES.findall
    count = source.count
    rfind = source.rfind
    new_tag = partial(tuple.__new__, SgmlTag)

    in_doc = False
    doc_offset = doc_line = 0
    pieces: list[str] = []
    piece_start = removed = 0
    section_stack: list[tuple[str, int]] = []  # (section as configured, file offset)
    opened: list[int] = []  # file offsets of the document's open task tags
    task_stack: list[tuple[str, dict[str, str], int, int]] = []  # name, attributes, start, k
    found: list[tuple[int, int, str, dict[str, str], str, int]] = []  # start, end, ..., k
    in_order = True  # found is already in (start, -end) order
    last_start = last_end = 0
    outside = 0
    docnum_start = -1
    docnum_text: str | None = None
    line, counted_to = 1, 0  # the line of offset counted_to

    def tag_attributes(raw: str) -> dict[str, str]:
        """A tag's attributes from its attribute text, parsed once per distinct text."""
        attributes = parsed.get(raw)
        if attributes is None:
            attributes = parsed[raw] = {}
            for key, double, single, bare in find_attributes(raw):
                value = double or single or bare
                if quote_char and quote_char in value:
                    value = value.replace(quote_char, '"')
                attributes[key.upper()] = value
        return attributes

    scanner = _scanner(task_only, {doc_name, docnum_name, *section_names})
    for m in scanner.finditer(source):
        element, raw, content, slash, written, raw_, closer, _ = m.groups()
        i, tag_end = m.span()
        if element is not None:  # <NAME ...>content</NAME>: open and close in one step
            if not in_doc:
                return None
            name = names.get(element)
            if name is None:
                name = names[element] = element.upper()
            pieces.append(source[piece_start:i])
            pieces.append(content)
            piece_start = tag_end
            start = i - doc_offset - removed
            end = start + len(content)
            removed += tag_end - i - len(content)
            if not section_stack:
                outside += 1
                continue
            attributes = tag_attributes(raw) if raw else {}
            if start < last_start or (start == last_start and end > last_end):
                in_order = False
            last_start, last_end = start, end
            found.append((start, end, name, attributes, section_stack[-1][0], len(opened)))
            opened.append(i)
            continue
        if closer is None:  # malformed, a comment, a '<' inside a tag
            return None
        raw = raw_
        name = names.get(written)
        if name is None:
            name = names[written] = written.upper()
        if name in task_only:
            if not in_doc:
                return None
            pieces.append(source[piece_start:i])
            piece_start = tag_end
            if slash:
                if raw or not task_stack:
                    return None
                tag_name, attributes, start, k = task_stack.pop()
                if tag_name != name:
                    return None
                end = i - doc_offset - removed
                removed += tag_end - i
                if not section_stack:
                    outside += 1
                    continue
                if start < last_start or (start == last_start and end > last_end):
                    in_order = False
                last_start, last_end = start, end
                found.append((start, end, tag_name, attributes, section_stack[-1][0], k))
                continue
            attributes = tag_attributes(raw) if raw else {}
            task_stack.append((name, attributes, i - doc_offset - removed, len(opened)))
            opened.append(i)
            removed += tag_end - i
            continue
        closing = slash == "/"
        if closing and raw:
            return None
        if name == doc_name:
            if not closing:
                if in_doc:
                    return None
                in_doc = True
                line += count("\n", counted_to, i)
                counted_to = i
                doc_offset, doc_line = tag_end, line
                pieces, piece_start, removed, opened = [], tag_end, 0, []
                section_stack, task_stack, found = [], [], []
                in_order, last_start, last_end = True, 0, 0
                outside, docnum_start, docnum_text = 0, -1, None
                if name in section_names:
                    section_stack.append((section_names[name], i))
                continue
            if not in_doc or task_stack:
                return None
            if section_stack and section_stack[-1][0].upper() == name:
                section_stack.pop()
            if section_stack or docnum_text is None:
                return None
            number = "".join(c for c in docnum_text if c.isdigit())
            if not number:
                return None
            pieces.append(source[piece_start:i])
            text = "".join(pieces)
            if not in_order:
                found.sort(key=_start_longest_first)
            tags: tuple[SgmlTag, ...] = ()
            if opened:
                # lines of the open tags, one after the other; columns from the line starts
                steps = list(map(count, repeat("\n"), [counted_to, *opened[:-1]], opened))
                lines = list(accumulate(steps, initial=line))[1:]
                line, counted_to = lines[-1], opened[-1]
                columns = list(map(sub, opened, map(rfind, repeat("\n"), repeat(0), opened)))
                if found:  # the tags, column by column, at C speed
                    starts, ends, gids, attributes_of, sections_of, ks = zip(*found, strict=True)
                    if sum(map(sub, ends, starts)) > enclosed_limit(len(text)):
                        return None  # tags nested too deep: the parser's error
                    tags = tuple(
                        map(
                            new_tag,
                            zip(
                                gids,
                                attributes_of,
                                starts,
                                ends,
                                map(text.__getitem__, map(slice, starts, ends)),
                                sections_of,
                                map(lines.__getitem__, ks),
                                map(columns.__getitem__, ks),
                                strict=True,
                            ),
                        )
                    )
            documents.append(SgmlDocument(number, text, tags, doc_line, where, outside))
            in_doc = False
            continue
        if not in_doc:
            if name == docnum_name:
                return None
            continue
        if name == docnum_name:
            if not closing:
                docnum_start = tag_end
            elif docnum_start >= 0:
                docnum_text = source[docnum_start:i]
        if name in section_names:
            if not closing:
                section_stack.append((section_names[name], i))
                continue
            if not section_stack or section_stack[-1][0].upper() != name:
                return None
            opened_at = section_stack.pop()[1]
            if task_stack and opened[task_stack[-1][3]] > opened_at:
                return None
    if in_doc:
        return None
    return documents


def _start_longest_first(tag: tuple[int, int, str, dict[str, str], str, int]) -> tuple[int, int]:
    return tag[0], -tag[1]


def _parse_sgml(
    source: str, path: str | Path, task_gids: Collection[str], markup: SgmlMarkup
) -> list[SgmlDocument]:
    """:func:`parse_sgml` one ``<`` at a time: any file, every error (see :func:`parse_sgml`)."""
    position = _Position(source)
    where = str(path)

    def error(message: str, offset: int) -> InputError:
        line, column = position(offset)
        return InputError(f"column {column}: {message}", where, line)

    def opened_at(tag: _OpenTag) -> str:
        line, column = position(tag[3])
        return f"line {line}, column {column}"

    tasks = {g.upper() for g in task_gids}
    doc_gid, docnum_gid, quote_char = markup.doc_gid, markup.docnum_gid, markup.quote_char
    doc_name = doc_gid.upper()
    docnum_name = docnum_gid.upper()
    section_names = {s.upper(): s for s in markup.sections}
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
    startswith = source.startswith
    match_tag = _TAG_REST.match
    find_attributes = _ATTRIBUTES.findall
    structural = {doc_name, docnum_name, *section_names}
    names: dict[str, str] = {}  # as written -> upper-case
    parsed = _parsed_attributes(quote_char)  # attribute text -> attributes (shared)
    resume = 0  # tokens before this offset are inside a tag or comment already read
    for m in _TOKEN.finditer(source):
        i = m.start()
        if i < resume:
            continue
        written = m.group(2)
        if written is None:  # <!--
            close = find("-->", i + 4)
            if close < 0:
                raise error("comment <!-- not closed by -->", i)
            resume = close + 3
            continue
        slash = m.group(1)
        closing = slash == "/"
        name = names.get(written)
        if name is None:
            name = names[written] = written.upper()
        at = m.end()
        if name in tasks:
            is_task = True
        elif name in structural:
            is_task = False
        else:
            end = find(">", at)
            if end < 0:
                raise error(f"tag <{slash}{written} not closed by '>'", i)
            resume = end + 1
            continue
        attributes: dict[str, str]
        if startswith(">", at):  # no attribute: the common closing tag
            attributes = {} if not closing else _NO_ATTRIBUTES
            tag_end = at + 1
        else:
            t = match_tag(source, at)  # the attributes and the closing '>' of this one tag
            if t is None or (closing and t.group(1)):
                raise error(f"tag <{slash}{written} not closed by '>' (bad attribute?)", i)
            tag_end = t.end()
            raw = t.group(1)
            if closing or not raw:
                attributes = {} if not closing else _NO_ATTRIBUTES
            else:
                cached = parsed.get(raw)
                if cached is None:
                    cached = {}
                    for key, double, single, bare in find_attributes(raw):
                        value = double or single or bare
                        if quote_char and quote_char in value:
                            value = value.replace(quote_char, '"')
                        cached[key.upper()] = value
                    parsed[raw] = cached
                attributes = cached
        resume = tag_end

        if name == doc_name:
            if not closing:
                if in_doc:
                    raise error(f"<{written}> inside an unclosed document", i)
                in_doc = True
                doc_offset = tag_end
                doc_line = position(i)[0]
                pieces, piece_start, removed = [], tag_end, 0
                open_sections, open_tasks, found = [], [], []
                outside, docnum_start, docnum_text = 0, -1, None
                if name in section_names:
                    open_sections.append((section_names[name], {}, tag_end, i))
            else:
                if not in_doc:
                    raise error(f"</{written}> without an open <{written}>", i)
                if open_tasks:
                    o = open_tasks[-1]
                    raise error(
                        f"<{o[0]}> opened on {opened_at(o)} is not closed before the end of its "
                        "document",
                        i,
                    )
                if open_sections and open_sections[-1][0].upper() == name:
                    open_sections.pop()
                if open_sections:
                    o = open_sections[-1]
                    raise error(
                        f"section <{o[0]}> opened on {opened_at(o)} is not closed before the end "
                        "of its document",
                        i,
                    )
                pieces.append(source[piece_start:i])
                text = "".join(pieces)
                if docnum_text is None:
                    raise error(
                        f"document opened on line {doc_line} has no <{docnum_gid}> section", i
                    )
                number = "".join(c for c in docnum_text if c.isdigit())
                if not number:
                    raise error(
                        f"the <{docnum_gid}> section of the document opened on line {doc_line} "
                        "has no digit",
                        docnum_start,
                    )
                enclosed = sum(end - o[2] for o, end, _ in found)
                if enclosed > enclosed_limit(len(text)):
                    raise error(
                        f"the task tags of the document opened on line {doc_line} enclose "
                        f"{enclosed:,} characters in all, more than {ENCLOSED_PER_CHARACTER} "
                        f"times its {len(text):,} characters plus {ENCLOSED_EXTRA:,} (tags "
                        "nested that deep: each tag keeps its text, so the memory would grow "
                        "with the square of the file)",
                        i,
                    )
                documents.append(
                    SgmlDocument(
                        number, text, _tags(found, text, position), doc_line, where, outside
                    )
                )
                in_doc = False
            continue

        if not in_doc:
            if is_task or name == docnum_name:
                raise error(f"<{slash}{written}> outside a <{doc_gid}> document", i)
            continue

        offset = i - doc_offset - removed
        if is_task:
            pieces.append(source[piece_start:i])
            piece_start = tag_end
            removed += tag_end - i
            if not closing:
                open_tasks.append((name, attributes, offset, i))
            else:
                if not open_tasks:
                    raise error(f"</{written}> without an open <{written}>", i)
                o = open_tasks.pop()
                if o[0] != name:
                    raise error(
                        f"</{written}> closes <{o[0]}> opened on {opened_at(o)}; tags must nest", i
                    )
                if open_sections:
                    found.append((o, offset, open_sections[-1][0]))
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
                    open_sections.append((section_names[name], {}, tag_end, i))
                else:
                    if not open_sections or open_sections[-1][0].upper() != name:
                        raise error(
                            f"</{written}> without an open <{written}>"
                            + (
                                f" (the innermost open section is <{open_sections[-1][0]}>)"
                                if open_sections
                                else ""
                            ),
                            i,
                        )
                    opened = open_sections.pop()
                    inner = [o for o in open_tasks if o[3] > opened[3]]
                    if inner:
                        o = inner[0]
                        raise error(
                            f"<{o[0]}> opened on {opened_at(o)} is not closed before </{written}>",
                            i,
                        )
    if in_doc:
        raise error(
            f"document opened on line {doc_line} is not closed by </{doc_gid}>", len(source)
        )
    return documents


_NO_ATTRIBUTES: dict[str, str] = {}
"""The (shared, read-only) attributes of a closing tag."""


def _tags(
    found: list[tuple[_OpenTag, int, str]], text: str, position: _Position
) -> tuple[SgmlTag, ...]:
    """A document's task tags in open-tag order (ties: the longer first), as :class:`SgmlTag`
    (line and column from the open tag's offset in the file)."""
    found.sort(key=lambda item: (item[0][2], -item[1]))
    starts = position.starts
    out: list[SgmlTag] = []
    append = out.append
    bisect_right = bisect.bisect_right
    for (name, attributes, start, raw), end, section in found:
        line = bisect_right(starts, raw)
        append(
            SgmlTag(
                name,
                attributes,
                start,
                end,
                text[start:end],
                section,
                line,
                raw - starts[line - 1] + 1,
            )
        )
    return tuple(out)


def read_sgml(
    path: Path, task_gids: Iterable[str], markup: SgmlMarkup = SgmlMarkup()
) -> list[SgmlDocument]:
    """Read and parse an SGML task file; a document number used twice is an error, and so is a
    NUL byte anywhere in the file (:func:`~annoscore.formats.files.check_no_nul`)."""
    text = read_text(path)
    check_no_nul(text, path)
    documents = parse_sgml(text, path, set(task_gids), markup)
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
    saw(path, seen)  # a chunk's numbers (annoscore.scale: every document in one chunk)
    return documents


def excerpt(text: str, offset: int, width: int = 20) -> str:
    """``width`` characters of ``text`` from ``offset``, newlines shown as spaces."""
    return text[offset : offset + width].replace("\n", " ")
