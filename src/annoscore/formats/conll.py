"""CoNLL-2011/2012 coreference files, read the way reference scorer v8.01 reads them.

Layout (one token per line, documents delimited by comment lines)::

    #begin document (bc/cctv/00/cctv_0000); part 000
    bc/cctv/00/cctv_0000  0  0  In      ...  (12
    bc/cctv/00/cctv_0000  0  1  China   ...  12)|(3)
    <blank line between sentences>
    #end document

Rules (../shared/spec/coref.md, "Decisions for annoscore"):

* A document starts at a line ``#begin document NAME`` (any spaces after ``#``); NAME is the rest
  of the line, trailing spaces included (only the line ending is removed).  A line containing
  ``#end document`` closes it.  Lines outside documents are ignored (counted in a warning).
* Fields are split on any whitespace; the coreference field is the **last** one.  ``-`` and ``_``
  mean "no mention".  Old SemEval split-antecedent cells ``(N+M)`` are discarded (counted).
* Blank lines do not advance the token counter: a mention is ``(first token, last token)`` with
  tokens numbered over the non-blank lines of the document.
* Brackets are read as the reference does, whatever the separators: first every single-token
  ``(N)``, then every opening ``(N``, then every closing ``N)``.  Openings go on a stack per
  entity id and a closing pops the latest opening of its id, so ``(1(3(3`` works and ``1)|(1``
  is a one-token mention plus a longer one.
* A closing without opening, an opening never closed, a document without ``#end document``, a
  second ``#begin document`` inside a document, a repeated document name and a file without any
  document are :class:`~annoscore.errors.InputError` naming file, line and document.
* A mention (span) given twice in a document is kept once: the one whose bracket opens first
  wins (``(1(3`` ... ``3)1)`` keeps the mention in entity 1, as the reference's expected values
  for its cases A8 and A9 require); the others are counted in ``CorefDocument.duplicates``.
* Text in the coreference field that is none of the above (e.g. ``x``) is ignored and counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import read_text
from annoscore.model import CorefDocument, TokenSpan

_BEGIN = re.compile(r"#\s*begin document (.*)$")
_END = re.compile(r"#\s*end document")
_SPLIT_ANTECEDENT = re.compile(r"\(\d+\+\d+\)")
_SINGLE = re.compile(r"\((\d+)\)")
_OPEN = re.compile(r"\((\d+)")
_CLOSE = re.compile(r"(\d+)\)")
_NOTHING = frozenset("-_|")
_NO_MENTION_ENDINGS = frozenset({"\t-", " -", "\t_", " _"})


@dataclass(frozen=True, slots=True)
class ConllFile:
    """The documents of one CoNLL file in file order, and what the reader ignored."""

    path: str
    documents: tuple[CorefDocument, ...]
    ignored_lines: int = 0
    split_antecedents: int = 0
    unreadable_cells: int = 0

    def by_name(self) -> dict[str, CorefDocument]:
        return {document.name: document for document in self.documents}

    @property
    def duplicates(self) -> int:
        return sum(document.duplicates for document in self.documents)

    def warnings(self, side: str) -> list[str]:
        """Sentences for the JSON ``warnings`` (``side`` is ``key`` or ``response``)."""
        out = []
        if self.duplicates:
            out.append(
                f"{self.duplicates} repeated mention(s) in the {side} removed (first occurrence "
                f"kept) in {self.path}"
            )
        if self.ignored_lines:
            out.append(
                f"{self.ignored_lines} non-blank line(s) outside any document ignored in "
                f"{self.path}"
            )
        if self.split_antecedents:
            out.append(
                f"{self.split_antecedents} split-antecedent annotation(s) '(N+M)' discarded in "
                f"{self.path}, as the reference scorer does"
            )
        if self.unreadable_cells:
            out.append(
                f"{self.unreadable_cells} coreference cell(s) with text other than brackets, "
                f"'-', '_' or '|' in {self.path}; that text was ignored"
            )
        return out


class _DocumentBuilder:
    """Collects the mentions of one document while its lines are read."""

    __slots__ = ("line", "mentions", "name", "open", "opened", "tokens")

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.tokens = 0
        self.mentions: list[tuple[int, str, TokenSpan]] = []  # (opening order, id, span)
        self.open: dict[str, list[tuple[int, int, int]]] = {}  # id -> stack of (token, line, order)
        self.opened = 0  # brackets opened so far: the order in which mentions begin

    def add(self, entity: str, span: TokenSpan, order: int) -> None:
        self.mentions.append((order, entity, span))

    def finish(self, path: str) -> CorefDocument:
        for entity, stack in self.open.items():
            if stack:
                _, line, _ = stack[0]
                raise InputError(
                    f"opening bracket '({entity}' is never closed", path, line, document=self.name
                )
        entities: dict[str, list[TokenSpan]] = {}
        seen: set[TokenSpan] = set()
        duplicates = 0
        for _, entity, span in sorted(self.mentions):
            if span in seen:
                duplicates += 1
            else:
                seen.add(span)
                entities.setdefault(entity, []).append(span)
        return CorefDocument(
            name=self.name,
            entities=tuple(frozenset(spans) for spans in entities.values()),
            tokens=self.tokens,
            line=self.line,
            path=path,
            duplicates=duplicates,
        )


def parse_conll(text: str, path: str = "<string>") -> ConllFile:
    """Parse the text of a CoNLL-2011/2012 file (see the module doc for the rules)."""
    documents: list[CorefDocument] = []
    first_line: dict[str, int] = {}
    current: _DocumentBuilder | None = None
    ignored = split_antecedents = unreadable = 0
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    for number, line in enumerate(text.split("\n"), start=1):
        if current is not None and line[-2:] in _NO_MENTION_ENDINGS and "#" not in line:
            current.tokens += 1  # fast path: the usual token line without a mention
            continue
        if "#" in line and line.lstrip().startswith("#"):
            begin = _BEGIN.match(line.lstrip())
            if begin:
                name = begin.group(1)
                if current is not None:
                    raise InputError(
                        "'#begin document' inside an open document (missing '#end document')",
                        path,
                        number,
                        document=current.name,
                    )
                if name in first_line:
                    raise InputError(
                        f"document name repeated (first at line {first_line[name]})",
                        path,
                        number,
                        document=name,
                    )
                first_line[name] = number
                current = _DocumentBuilder(name, number)
                continue
        if "end document" in line and _END.search(line):
            if current is None:
                raise InputError("'#end document' without '#begin document'", path, number)
            documents.append(current.finish(path))
            current = None
            continue
        if not line or line.isspace():
            continue
        if current is None:
            ignored += 1
            continue
        token = current.tokens
        current.tokens += 1
        cell = line.rsplit(None, 1)[-1]
        if cell == "-" or cell == "_":
            continue
        if "+" in cell:
            cell, found = _SPLIT_ANTECEDENT.subn("", cell)
            split_antecedents += found
        rest = cell
        if "(" in cell:
            for entity in _SINGLE.findall(cell):
                current.add(entity, (token, token), current.opened)
                current.opened += 1
            rest = _SINGLE.sub("", cell)
            for entity in _OPEN.findall(rest):
                current.open.setdefault(entity, []).append((token, number, current.opened))
                current.opened += 1
            rest = _OPEN.sub("", rest)
        if ")" in rest:
            for entity in _CLOSE.findall(rest):
                stack = current.open.get(entity)
                if not stack:
                    raise InputError(
                        f"closing bracket '{entity})' without an opening bracket of entity "
                        f"{entity}",
                        path,
                        number,
                        document=current.name,
                    )
                start, _, order = stack.pop()
                current.add(entity, (start, token), order)
            rest = _CLOSE.sub("", rest)
        if rest and not _NOTHING.issuperset(rest):
            unreadable += 1
    if current is not None:
        raise InputError(
            "document not closed by '#end document' before the end of the file",
            path,
            current.line,
            document=current.name,
        )
    if not documents:
        raise InputError("no '#begin document' line: not a CoNLL-2011/2012 coreference file", path)
    return ConllFile(path, tuple(documents), ignored, split_antecedents, unreadable)


def read_conll(path: Path) -> ConllFile:
    """Read a CoNLL-2011/2012 file (UTF-8); errors are :class:`InputError` with file and line."""
    return parse_conll(read_text(path), str(path))
