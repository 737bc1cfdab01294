"""The MUC SGML reader as first written: the reference its scan and its checked parser are held to.

:func:`reference_parse` is the state machine of the first implementation (one ``str.find`` and
one regular-expression match per ``<``, an object and a line/column per open tag, attributes
parsed per tag).  The reader now finds tag starts with one ``finditer``, parses each distinct
attribute text once, computes positions from offsets and, before that, tries a scan of the task,
document and section tags only; tests/equivalence/test_muc_readers.py holds every step to this
reference on random and mangled files (same documents with lines and columns, or the same error).
It shares the reader's regular expressions for one tag's attributes (the grammar of a tag), not
its scanning.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import (
    _ATTRIBUTES,
    _TAG_REST,
    DEFAULT_SECTIONS,
    SgmlDocument,
    SgmlTag,
    _Position,
)

_NAME = re.compile(r"<(/?)([A-Za-z][\w.\-]*)")


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


def reference_parse(
    source: str,
    path: str | Path,
    task_gids: Collection[str],
    *,
    doc_gid: str = "DOC",
    docnum_gid: str = "DOCNO",
    sections: Sequence[str] = DEFAULT_SECTIONS,
    quote_char: str = "*",
) -> list[SgmlDocument]:
    """The reader as first written (one ``find``/``match`` per ``<``, eager positions)."""
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
