"""A plain reference reader of MUC SGML task files, for tests/equivalence/test_muc_readers.py.

Written from the rules (../shared/spec/muc.md, decisions 6 and 10, and the reader's documented
grammar), one character at a time, with no regular expression and nothing of the reader's
code: the reader's scan and its checked parser are held to it (same documents with lines and
columns, or the same error: message, file and line).

The grammar, as read here:

- A tag starts at ``<``, an optional ``/``, then an ASCII letter; its name goes on over letters,
  digits, ``_`` (any script), ``.`` and ``-``.  ``<!--`` starts a comment that ends at the next
  ``-->``.  Any other ``<`` is text.
- A tag whose name (any case) is neither a task name, the document name, the document number
  name nor a section is skipped up to the next ``>`` (its text stays in the document).
- The others are read whole: attributes, each after white space, a name (a letter or ``_``,
  then letters, digits, ``_``, ``.``, ``:``, ``-``), optionally ``=`` (white space around it)
  and a value in ``"..."``, ``'...'`` or bare (no white space, ``>`` or quote); then white
  space, an optional ``/`` and ``>``.  A closing tag has no attributes.  Names are upper-cased;
  the quote character in a value stands for ``"``.
- Offsets count the characters of a document (from the end of its ``<DOC>`` tag to the start of
  its ``</DOC>`` tag) with the task tags taken out.  A task tag belongs to the innermost open
  section; one outside every section is only counted.  A document's number is the digits of
  the text between its number tags.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import SgmlDocument, SgmlTag

MANUAL_SECTIONS = ("DOC", "DATELINE", "DD", "HEADLINE", "TEXT")
"""The manual's default ``:doc_sections``: "<DOC>, <DATELINE>, <DD>, <HEADLINE>, and <TEXT>"."""

PER_CHARACTER = 10
EXTRA = 1_000_000
"""The reader's documented bound: a document's task tags enclose at most
``PER_CHARACTER * len(text) + EXTRA`` characters in all."""


def _is_name_char(c: str) -> bool:
    """A character that may follow the first letter of a tag name."""
    return c.isalnum() or c in "_.-"


def _is_attribute_char(c: str) -> bool:
    """A character that may follow the first character of an attribute name."""
    return c.isalnum() or c in "_.:-"


def _is_ascii_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _line_and_column(source: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (lines end at ``\\n`` only)."""
    line = source.count("\n", 0, offset) + 1
    line_start = source.rfind("\n", 0, offset) + 1  # 0 on the first line
    return line, offset - line_start + 1


class _Tag:
    """One tag as read: where it starts and ends in the file, its name, its attributes."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.closing = False
        self.written = ""
        self.attributes: dict[str, str] = {}


class _Pending:
    """An open task tag or section waiting for its closing tag."""

    def __init__(self, name: str, attributes: dict[str, str], offset: int, at: int) -> None:
        self.name = name
        self.attributes = attributes
        self.offset = offset  # in the document text
        self.at = at  # in the file


class _Document:
    """The document being read."""

    def __init__(self, content_start: int, line: int) -> None:
        self.content_start = content_start
        self.line = line
        self.text_parts: list[str] = []
        self.copied_to = content_start  # the file is copied into the text up to here
        self.length = 0  # characters of the text so far (up to copied_to)
        self.sections: list[_Pending] = []
        self.tasks: list[_Pending] = []
        self.closed: list[tuple[_Pending, int, str]] = []  # task, end offset, section
        self.outside = 0
        self.number_from = -1
        self.number_text: str | None = None


class _Reader:
    def __init__(
        self,
        source: str,
        path: str,
        tasks: Collection[str],
        doc_gid: str,
        docnum_gid: str,
        sections: Sequence[str],
        quote_char: str,
    ) -> None:
        self.source = source
        self.path = path
        self.tasks = {t.upper() for t in tasks}
        self.doc_gid = doc_gid
        self.docnum_gid = docnum_gid
        self.doc_name = doc_gid.upper()
        self.docnum_name = docnum_gid.upper()
        self.section_name: dict[str, str] = {}
        for s in sections:
            self.section_name[s.upper()] = s
        self.quote_char = quote_char
        self.documents: list[SgmlDocument] = []
        self.document: _Document | None = None

    # ------------------------------------------------------------------ errors

    def fail(self, message: str, offset: int) -> InputError:
        line, column = _line_and_column(self.source, offset)
        return InputError(f"column {column}: {message}", self.path, line)

    def where(self, pending: _Pending) -> str:
        line, column = _line_and_column(self.source, pending.at)
        return f"line {line}, column {column}"

    # ------------------------------------------------------------------ characters

    def char(self, k: int) -> str:
        """The character at ``k``, or '' past the end."""
        if k < len(self.source):
            return self.source[k]
        return ""

    def skip_space(self, k: int) -> int:
        while self.char(k) != "" and self.char(k).isspace():
            k += 1
        return k

    def read_value(self, k: int) -> tuple[str, int] | None:
        """An attribute value at ``k`` and the offset after it, or None."""
        c = self.char(k)
        if c in ('"', "'"):
            close = self.source.find(c, k + 1)
            if close < 0:
                return None
            return self.source[k + 1 : close], close + 1
        value = ""
        while self.char(k) != "" and not self.char(k).isspace() and self.char(k) not in ">\"'":
            value += self.char(k)
            k += 1
        if value == "":
            return None
        return value, k

    def read_rest(self, tag: _Tag, k: int) -> bool:
        """Read the attributes and the ``>`` of ``tag`` from ``k``; False if malformed."""
        while True:
            after_space = self.skip_space(k)
            c = self.char(after_space)
            if c == ">":
                tag.end = after_space + 1
                return True
            if c == "/" and self.char(after_space + 1) == ">":
                tag.end = after_space + 2
                return True
            if after_space == k or not (_is_ascii_letter(c) or c == "_"):
                return False
            if tag.closing:
                return False  # a closing tag has no attributes
            k = after_space
            name = c
            k += 1
            while self.char(k) != "" and _is_attribute_char(self.char(k)):
                name += self.char(k)
                k += 1
            value = ""
            equals = self.skip_space(k)
            if self.char(equals) == "=":
                found = self.read_value(self.skip_space(equals + 1))
                if found is not None:
                    value, k = found
            if self.quote_char != "":
                value = value.replace(self.quote_char, '"')
            tag.attributes[name.upper()] = value

    # ------------------------------------------------------------------ reading

    def read(self) -> list[SgmlDocument]:
        source = self.source
        k = 0
        while k < len(source):
            if source[k] != "<":
                k += 1
                continue
            if source[k : k + 4] == "<!--":
                close = source.find("-->", k + 4)
                if close < 0:
                    raise self.fail("comment <!-- not closed by -->", k)
                k = close + 3
                continue
            tag = _Tag(k)
            j = k + 1
            if self.char(j) == "/":
                tag.closing = True
                j += 1
            if not _is_ascii_letter(self.char(j)):
                k += 1  # a '<' in the text
                continue
            written = self.char(j)
            j += 1
            while self.char(j) != "" and _is_name_char(self.char(j)):
                written += self.char(j)
                j += 1
            tag.written = written
            slash = "/" if tag.closing else ""
            name = written.upper()
            if not self.known(name):
                gt = source.find(">", j)
                if gt < 0:
                    raise self.fail(f"tag <{slash}{written} not closed by '>'", k)
                k = gt + 1
                continue
            if not self.read_rest(tag, j):
                raise self.fail(f"tag <{slash}{written} not closed by '>' (bad attribute?)", k)
            self.handle(tag, name)
            k = tag.end
        if self.document is not None:
            message = f"document opened on line {self.document.line} is not closed by "
            raise self.fail(message + f"</{self.doc_gid}>", len(source))
        return self.documents

    def known(self, name: str) -> bool:
        """Whether a tag of this name is read (a task, document, number or section tag)."""
        if name in self.tasks or name in self.section_name:
            return True
        return name in (self.doc_name, self.docnum_name)

    def handle(self, tag: _Tag, name: str) -> None:
        if name == self.doc_name:
            if tag.closing:
                self.close_document(tag)
            else:
                self.open_document(tag, name)
            return
        document = self.document
        if document is None:
            if name in self.tasks or name == self.docnum_name:
                slash = "/" if tag.closing else ""
                message = f"<{slash}{tag.written}> outside a <{self.doc_gid}> document"
                raise self.fail(message, tag.start)
            return  # a section outside every document
        # the text up to this tag
        piece = self.source[document.copied_to : tag.start]
        document.text_parts.append(piece)
        document.length += len(piece)
        document.copied_to = tag.start
        offset = document.length
        if name in self.tasks:
            document.copied_to = tag.end  # a task tag is not text
            if tag.closing:
                self.close_task(tag, name, offset)
            else:
                document.tasks.append(_Pending(name, tag.attributes, offset, tag.start))
            return
        if name == self.docnum_name:
            if not tag.closing:
                document.number_from = tag.end
            elif document.number_from >= 0:
                document.number_text = self.source[document.number_from : tag.start]
        if name in self.section_name:
            if tag.closing:
                self.close_section(tag, name)
            else:
                pending = _Pending(self.section_name[name], {}, tag.end, tag.start)
                document.sections.append(pending)

    def open_document(self, tag: _Tag, name: str) -> None:
        if self.document is not None:
            raise self.fail(f"<{tag.written}> inside an unclosed document", tag.start)
        line = _line_and_column(self.source, tag.start)[0]
        self.document = _Document(tag.end, line)
        if name in self.section_name:
            self.document.sections.append(_Pending(self.section_name[name], {}, 0, tag.start))

    def close_task(self, tag: _Tag, name: str, offset: int) -> None:
        document = self.document
        assert document is not None
        if len(document.tasks) == 0:
            raise self.fail(f"</{tag.written}> without an open <{tag.written}>", tag.start)
        pending = document.tasks.pop()
        if pending.name != name:
            message = f"</{tag.written}> closes <{pending.name}> opened on "
            message += f"{self.where(pending)}; tags must nest"
            raise self.fail(message, tag.start)
        if len(document.sections) == 0:
            document.outside += 1
        else:
            document.closed.append((pending, offset, document.sections[-1].name))

    def close_section(self, tag: _Tag, name: str) -> None:
        document = self.document
        assert document is not None
        sections = document.sections
        if len(sections) == 0 or sections[-1].name.upper() != name:
            message = f"</{tag.written}> without an open <{tag.written}>"
            if len(sections) > 0:
                message += f" (the innermost open section is <{sections[-1].name}>)"
            raise self.fail(message, tag.start)
        section = sections.pop()
        for pending in document.tasks:  # the first task tag opened inside the section
            if pending.at > section.at:
                message = f"<{pending.name}> opened on {self.where(pending)} is not closed "
                raise self.fail(message + f"before </{tag.written}>", tag.start)

    def close_document(self, tag: _Tag) -> None:
        document = self.document
        if document is None:
            raise self.fail(f"</{tag.written}> without an open <{tag.written}>", tag.start)
        if document.tasks:
            last = document.tasks[-1]
            message = f"<{last.name}> opened on {self.where(last)} is not closed before the "
            raise self.fail(message + "end of its document", tag.start)
        sections = document.sections
        if sections and sections[-1].name.upper() == self.doc_name:
            sections.pop()  # the document itself as a section
        if sections:
            last = sections[-1]
            message = f"section <{last.name}> opened on {self.where(last)} is not closed "
            raise self.fail(message + "before the end of its document", tag.start)
        document.text_parts.append(self.source[document.copied_to : tag.start])
        text = "".join(document.text_parts)
        if document.number_text is None:
            message = f"document opened on line {document.line} has no <{self.docnum_gid}> "
            raise self.fail(message + "section", tag.start)
        digits = ""
        for c in document.number_text:
            if c.isdigit():
                digits += c
        if digits == "":
            message = f"the <{self.docnum_gid}> section of the document opened on line "
            message += f"{document.line} has no digit"
            raise self.fail(message, document.number_from)
        total = 0
        for pending, end, _ in document.closed:
            total += end - pending.offset
        if total > PER_CHARACTER * len(text) + EXTRA:
            message = f"the task tags of the document opened on line {document.line} enclose "
            message += f"{total:,} characters in all, more than {PER_CHARACTER} times its "
            message += f"{len(text):,} characters plus {EXTRA:,} (tags nested that deep: each "
            message += "tag keeps its text, so the memory would grow with the square of the file)"
            raise self.fail(message, tag.start)
        tags = self.tags(document, text)
        found = SgmlDocument(digits, text, tags, document.line, self.path, document.outside)
        self.documents.append(found)
        self.document = None

    def tags(self, document: _Document, text: str) -> tuple[SgmlTag, ...]:
        """The document's task tags by start, the longer first (then in closing order)."""
        ordered = sorted(document.closed, key=lambda item: (item[0].offset, -item[1]))
        out: list[SgmlTag] = []
        for pending, end, section in ordered:
            line, column = _line_and_column(self.source, pending.at)
            enclosed = text[pending.offset : end]
            what = (pending.name, pending.attributes, pending.offset, end, enclosed, section)
            out.append(SgmlTag(*what, line, column))
        return tuple(out)


def reference_parse(
    source: str,
    path: str | Path,
    task_gids: Collection[str],
    sections: Sequence[str] = MANUAL_SECTIONS,
    quote_char: str = "*",
    doc_gid: str = "DOC",
    docnum_gid: str = "DOCNO",
) -> list[SgmlDocument]:
    """The documents of an SGML task file, read one character at a time (the module doc)."""
    reader = _Reader(source, str(path), task_gids, doc_gid, docnum_gid, sections, quote_char)
    return reader.read()
