"""CoNLL-2011/2012 coreference files, read the way reference scorer v8.01 reads them.

Layout (one token per line, documents delimited by comment lines)::

    #begin document (bc/cctv/00/cctv_0000); part 000
    bc/cctv/00/cctv_0000  0  0  In      ...  (12
    bc/cctv/00/cctv_0000  0  1  China   ...  12)|(3)
    <blank line between sentences>
    #end document

Rules (../shared/spec/coref.md, "Decisions for annoscore"; files.py for the shared ones):

* Text, byte-order mark, line ends and NUL bytes as :mod:`annoscore.formats.files` says.  A
  carriage return that does not end a CRLF line end is read as scorer.pl reads it, as part of
  its line, with a warning (a file with CR-only line ends reads as one line: no token).
* A document starts at a line ``#begin document NAME`` (spaces or tabs allowed after ``#``); NAME
  is the rest of the line, trailing spaces included.  A line containing ``#end document`` closes
  it.  Non-blank lines outside documents are ignored (counted, with their line numbers).
* Fields are separated by spaces or tabs; the coreference field is the **last** one.  ``-`` and
  ``_`` mean "no mention".  Old SemEval split-antecedent cells ``(N+M)`` are discarded (counted).
* Blank lines (spaces and tabs only) do not advance the token counter: a mention is
  ``(first token, last token)`` with tokens numbered over the non-blank lines of the document.
* Brackets are read as the reference does, whatever the separators: first every single-token
  ``(N)``, then every opening ``(N``, then every closing ``N)``, with N made of ASCII digits (an
  entity id is compared as written: ``(01)`` and ``(1)`` are two entities; ``(٤)`` is not a
  bracket).  Openings go on a stack per entity id and a closing pops the latest opening of its
  id, so ``(1(3(3`` works and ``1)|(1`` is a one-token mention plus a longer one.
* Text in the coreference field that is none of the above (e.g. ``x``) is ignored and counted.

What the reference tolerates, annoscore tolerates too, each with a warning naming file and line
(``--strict-input`` makes them exit 2):

* a document still open at the end of the file (no ``#end document``) is read up to the end;
* a document name used twice in one file: the **last** document with that name is the one
  scored (:meth:`ConllFile.by_name`), the earlier ones are ignored;
* a file without any ``#begin document`` line reads as no documents (the task decides: a key
  without documents is an error, a response without documents is an empty response).

Errors (:class:`~annoscore.errors.InputError` naming file, line and document): a closing bracket
without opening, an opening never closed, ``#end document`` outside a document, a second
``#begin document`` inside an open document, NUL bytes, bytes that are not UTF-8.

Repeated mentions (the same span twice in a document) are *kept* by the reader, in the order
their brackets open (:attr:`ConllDocument.mentions`); which repeats are removed depends on the
other side and is decided by :meth:`ConllDocument.partition`.

Speed: a token line without a mention (last field ``-`` or ``_``) is only counted, found by
``str.endswith`` mapped over the lines; the Python loop sees the other lines and every line that
holds ``document``.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import not_
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import (
    bom_warning,
    check_no_nul,
    first_line,
    read_text,
    without_bom,
)
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

_BEGIN = re.compile(r"#[ \t]*begin document (.*)$")
_END = re.compile(r"#[ \t]*end document")
_SPLIT_ANTECEDENT = re.compile(r"\([0-9]+\+[0-9]+\)")
_SINGLE = re.compile(r"\(([0-9]+)\)")
_OPEN = re.compile(r"\(([0-9]+)")
_CLOSE = re.compile(r"([0-9]+)\)")
_NOTHING = frozenset("-_|")
_NO_MENTION_ENDINGS = ("\t-", " -", "\t_", " _")
_BLANK = " \t\r"

Span = tuple[int, int]
"""A mention as written: (first token, last token), counted over the document's token lines."""

Partition = tuple[tuple[Span, ...], ...]
"""Entities, each its mentions in the order their brackets open.  A span may be listed more than
once (twice in one entity, or in several) only where :meth:`ConllDocument.partition` keeps a
repeat (a response span that is no key mention, as scorer.pl keeps it)."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """Repeated mentions that :meth:`ConllDocument.partition` removed or kept: the file lines
    where their brackets open."""

    removed: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ConllDocument:
    """One ``#begin document`` block: its name, lines, token count and mentions.

    ``mentions``: ``(entity id, start token, end token, line)`` for every bracket pair, in the
    order the brackets open (single-token mentions of a line before its openings), repeats
    included.  ``line`` is the line of ``#begin document``; ``closed`` says whether an
    ``#end document`` line closed the block.
    """

    name: str
    line: int
    tokens: int
    mentions: tuple[tuple[str, int, int, int], ...]
    path: str = ""
    closed: bool = True

    def partition(self, removable: Container[Span] | None = None) -> tuple[Partition, Dropped]:
        """The coreference partition of the document, and the repeats it dropped or kept.

        Entities come in the order they first occur in the document (their first bracket), and
        a span given again is kept in the entity that occurs first, as scorer.pl does (not in the
        entity whose bracket comes first on the repeated span's token).  A repeat of a span in
        ``removable`` (or of any span, if ``removable`` is ``None``) is removed; any other repeat
        stays, listed again where it is written (as scorer.pl keeps a response span that matches
        no key mention; :mod:`annoscore.metrics.coref` says how each metric counts it).

        >>> d = ConllDocument("d", 1, 9, (("3", 0, 0, 2), ("1", 5, 7, 7), ("3", 5, 7, 7)))
        >>> d.partition()
        ((((0, 0), (5, 7)),), Dropped(removed=(7,), kept=()))
        >>> d.partition(removable=set())[0]
        (((0, 0), (5, 7)), ((5, 7),))

        (entity 3 occurs first, so it keeps (5, 7); entity 1, left with nothing, is dropped; when
        (5, 7) is not removable the repeat stays, in entity 1.)
        """
        mentions = self.mentions
        if len({(start, end) for _, start, end, _ in mentions}) == len(mentions):
            grouped: dict[str, list[Span]] = {}
            for entity, start, end, _ in mentions:
                grouped.setdefault(entity, []).append((start, end))
            return tuple(map(tuple, grouped.values())), Dropped()
        order = {
            entity: index for index, entity in enumerate(dict.fromkeys(m[0] for m in mentions))
        }
        ranked = sorted(mentions, key=lambda m: order[m[0]])  # stable: opening order within
        seen: set[Span] = set()
        removed: list[int] = []
        kept: list[int] = []
        grouped = {}
        for entity, start, end, line in ranked:
            span = (start, end)
            if span in seen:
                if removable is None or span in removable:
                    removed.append(line)
                    continue
                kept.append(line)
            seen.add(span)
            grouped.setdefault(entity, []).append(span)
        entities = tuple(map(tuple, grouped.values()))
        return entities, Dropped(tuple(sorted(removed)), tuple(sorted(kept)))

    @property
    def entities(self) -> Partition:
        """The partition with every repeated mention removed (the entity occurring first keeps
        it): the key's rule."""
        return self.partition()[0]


def _where(path: str, lines: list[int]) -> tuple[str, ...]:
    return tuple(f"{path}:{line}" for line in lines[:EXAMPLES_SHOWN])


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
SHOWN_NAME = 80
"""Characters of a document name a message shows (a longer name is cut, marked with ``...``)."""


def shown_name(name: str) -> str:
    """A document name as a one-line message shows it: control characters (but TAB) and line
    separators escaped (a CR in a name would break the line), cut at :data:`SHOWN_NAME`
    characters.

    >>> shown_name("(bc/cctv/00); part 000\\r")
    '(bc/cctv/00); part 000\\\\r'
    >>> len(shown_name("x" * 500))
    83
    """
    shown = _CONTROL.sub(lambda m: repr(m.group())[1:-1], name)
    return shown if len(shown) <= SHOWN_NAME else shown[:SHOWN_NAME] + "..."


@dataclass(frozen=True, slots=True)
class ConllFile:
    """The documents of one CoNLL file in file order, and what the reader tolerated.

    The ``*_lines`` fields hold line numbers (the first few are quoted in warnings; their
    lengths are the counts).
    """

    path: str
    documents: tuple[ConllDocument, ...]
    ignored_lines: int = 0
    ignored_examples: tuple[int, ...] = ()
    split_antecedent_lines: tuple[int, ...] = ()
    unreadable_lines: tuple[int, ...] = ()
    had_bom: bool = False
    shadowed: tuple[ConllDocument, ...] = field(default=())
    carriage_return_lines: tuple[int, ...] = ()
    """The first few lines holding a carriage return that does not end a CRLF line end."""
    carriage_returns: int = 0
    """How many lines hold one."""

    def by_name(self) -> dict[str, ConllDocument]:
        """Documents by name; of two documents with one name, the last one (scorer.pl's rule)."""
        return {document.name: document for document in self.documents}

    @property
    def unclosed(self) -> tuple[ConllDocument, ...]:
        return tuple(document for document in self.documents if not document.closed)

    def warnings(self, side: str) -> list[ScoreWarning]:
        """What the reader tolerated, as warnings (``side`` is ``key`` or ``response``)."""
        path = self.path
        out = []
        if self.had_bom:
            out.append(bom_warning([path]))
        unclosed = self.unclosed
        tolerated = (  # (code, message, count, the lines of the first few)
            (
                "carriage_return",
                f"{{count}} line(s) of the {side} hold a carriage return (CR) that does not "
                "end a CRLF line end: lines end at LF only, so the CR is read as part of its "
                "line, as scorer.pl reads it (a file with CR-only line ends reads as one line)",
                self.carriage_returns,
                self.carriage_return_lines,
            ),
            (
                "outside_document",
                f"{{count}} non-blank line(s) of the {side} outside any '#begin document' "
                "block ignored, as scorer.pl does",
                self.ignored_lines,
                self.ignored_examples,
            ),
            (
                "split_antecedent",
                f"{{count}} split-antecedent annotation(s) '(N+M)' in the {side} discarded, "
                "as scorer.pl does",
                len(self.split_antecedent_lines),
                self.split_antecedent_lines,
            ),
            (
                "unreadable_cell",
                f"{{count}} coreference cell(s) of the {side} hold text other than brackets "
                "(ASCII-digit ids), '-', '_' or '|'; that text was ignored, as scorer.pl "
                "ignores it",
                len(self.unreadable_lines),
                self.unreadable_lines,
            ),
            (
                "unclosed_document",
                f"{{count}} document(s) of the {side} not closed by '#end document' before "
                "the end of the file, read up to the end and scored, as scorer.pl does",
                len(unclosed),
                tuple(d.line for d in unclosed),
            ),
            (
                "repeated_document",
                f"{{count}} document(s) of the {side} have the name of a later document in "
                "the same file and are ignored: the last one is scored, as scorer.pl does",
                len(self.shadowed),
                tuple(d.line for d in self.shadowed),
            ),
        )
        for code, message, times, lines in tolerated:
            if times:
                where = _where(path, list(lines))
                out.append(ScoreWarning(f"coref.{code}", message, times, where, tolerated=True))
        return out


class _DocumentBuilder:
    """Collects the mentions of one document while its lines are read."""

    __slots__ = ("line", "mentions", "name", "open", "opened", "tokens")

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.tokens = 0
        self.mentions: list[tuple[int, str, int, int, int]] = []  # (order, id, start, end, line)
        self.open: dict[str, list[tuple[int, int, int]]] = {}  # id -> stack of (token, line, order)
        self.opened = 0  # brackets opened so far: the order in which mentions begin

    def close(self, entity: str, token: int, path: str, number: int) -> None:
        stack = self.open.get(entity)
        if not stack:
            raise InputError(
                f"closing bracket '{entity})' without an opening bracket of entity {entity}",
                path,
                number,
                document=shown_name(self.name),
            )
        start, line, order = stack.pop()
        self.mentions.append((order, entity, start, token, line))

    def finish(self, path: str, closed: bool) -> ConllDocument:
        for entity, stack in self.open.items():
            if stack:
                _, line, _ = stack[0]
                raise InputError(
                    f"opening bracket '({entity}' is never closed",
                    path,
                    line,
                    document=shown_name(self.name),
                )
        self.mentions.sort()
        mentions = tuple((e, s, t, line) for _, e, s, t, line in self.mentions)
        return ConllDocument(self.name, self.line, self.tokens, mentions, path, closed)


CHUNK = 1 << 20
"""Characters read per chunk: lines are split a chunk at a time, so the list of lines of a large
file never exists in full (peak memory: the text and one chunk's lines)."""


def _chunks(text: str) -> Iterator[str]:
    """``text`` in pieces of about :data:`CHUNK` characters that end at line ends: joining them
    with ``\\n`` gives it back."""
    size = CHUNK
    start = 0
    while start + size < len(text):
        end = text.find("\n", start + size)
        if end < 0:
            break
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _lines_holding(text: str, word: str) -> list[int]:
    """The (0-based) numbers of the lines of ``text`` holding ``word``, without splitting it."""
    numbers: list[int] = []
    line = last = 0
    at = text.find(word)
    while at >= 0:
        line += text.count("\n", last, at)
        last = at
        if not numbers or numbers[-1] != line:
            numbers.append(line)
        at = text.find(word, at + len(word))
    return numbers


def _lines_holding_cr(text: str, first: int = 1) -> tuple[int, list[int]]:
    """How many lines of ``text`` hold a carriage return, and the first few (numbered from
    ``first``)."""
    count = 0
    examples: list[int] = []
    line = first
    last = 0
    at = text.find("\r")
    while at >= 0:
        line += text.count("\n", last, at)
        last = at
        count += 1
        if len(examples) < EXAMPLES_SHOWN:
            examples.append(line)
        end = text.find("\n", at)
        if end < 0:
            break
        at = text.find("\r", end)
    return count, examples


def _is_id(text: str) -> bool:
    return text.isdigit() and text.isascii()


def parse_conll(text: str, path: str = "<string>", first: int = 1) -> ConllFile:
    """Parse the text of a CoNLL-2011/2012 file (see the module doc for the rules); its lines
    are numbered from ``first`` (a chunk of a file: :func:`~annoscore.formats.files.
    first_line`)."""
    text, had_bom = without_bom(text)
    check_no_nul(text, Path(path))
    cr_lines: list[int] = []
    cr_count = 0
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # and a lone '\r' before '\n' is stripped as blank
        cr_count, cr_lines = _lines_holding_cr(text, first)
    documents: list[ConllDocument] = []
    current: _DocumentBuilder | None = None
    ignored = 0
    ignored_examples: list[int] = []
    split_antecedents: list[int] = []
    unreadable: list[int] = []
    base = first - 1  # lines before the piece
    for chunk in _chunks(text):
        lines = chunk.split("\n")
        # The lines that need a look: those not ending in a no-mention cell, and every line
        # holding the word "document" (a '#begin document x -' line ends like a token line).
        # The others are token lines without a mention: only counted.
        ending = map(str.endswith, lines, repeat(_NO_MENTION_ENDINGS))
        special = list(compress(count(), map(not_, ending)))
        delimiters = _lines_holding(chunk, "document")
        if any(lines[number].endswith(_NO_MENTION_ENDINGS) for number in delimiters):
            special = sorted(set(special).union(delimiters))
        previous = -1
        special.append(len(lines))  # a sentinel: the plain lines after the last special line
        for index in special:
            plain = index - previous - 1
            previous = index
            if plain:
                if current is not None:
                    current.tokens += plain
                else:
                    ignored += plain
                    first = base + index - plain + 1  # each line of the run, as the loop would
                    room = max(0, EXAMPLES_SHOWN - len(ignored_examples))
                    ignored_examples += range(first, first + min(plain, room))
            if index == len(lines):
                break
            line = lines[index]
            number = base + index + 1
            if "document" in line:
                stripped = line.lstrip(_BLANK)
                if stripped.startswith("#"):
                    begin = _BEGIN.match(stripped)
                    if begin:
                        if current is not None:
                            raise InputError(
                                "'#begin document' inside an open document (no '#end document')",
                                path,
                                number,
                                document=shown_name(current.name),
                            )
                        current = _DocumentBuilder(begin.group(1), number)
                        continue
                if "end document" in line and _END.search(line):
                    if current is None:
                        raise InputError("'#end document' without '#begin document'", path, number)
                    documents.append(current.finish(path, closed=True))
                    current = None
                    continue
            body = line.rstrip(_BLANK)
            if not body:
                continue
            if current is None:
                ignored += 1
                if len(ignored_examples) < EXAMPLES_SHOWN:
                    ignored_examples.append(number)
                continue
            token = current.tokens
            current.tokens += 1
            cell = body[max(body.rfind(" "), body.rfind("\t")) + 1 :]
            if cell == "-" or cell == "_":
                continue
            # fast paths: one bracket alone in the cell
            if cell[0] == "(":
                if cell[-1] == ")" and _is_id(cell[1:-1]):
                    current.mentions.append((current.opened, cell[1:-1], token, token, number))
                    current.opened += 1
                    continue
                if _is_id(cell[1:]):
                    current.open.setdefault(cell[1:], []).append((token, number, current.opened))
                    current.opened += 1
                    continue
            elif cell[-1] == ")" and _is_id(cell[:-1]):
                current.close(cell[:-1], token, path, number)
                continue
            if "+" in cell:
                cell, found = _SPLIT_ANTECEDENT.subn("", cell)
                if found:
                    split_antecedents.extend([number] * found)
            rest = cell
            if "(" in cell:
                for entity in _SINGLE.findall(cell):
                    current.mentions.append((current.opened, entity, token, token, number))
                    current.opened += 1
                rest = _SINGLE.sub("", cell)
                for entity in _OPEN.findall(rest):
                    current.open.setdefault(entity, []).append((token, number, current.opened))
                    current.opened += 1
                rest = _OPEN.sub("", rest)
            if ")" in rest:
                for entity in _CLOSE.findall(rest):
                    current.close(entity, token, path, number)
                rest = _CLOSE.sub("", rest)
            if rest and not _NOTHING.issuperset(rest):
                unreadable.append(number)
        base += len(lines)
    if current is not None:
        documents.append(current.finish(path, closed=False))
    last = {document.name: document for document in documents}
    shadowed = tuple(d for d in documents if last[d.name] is not d)
    return ConllFile(
        path,
        tuple(documents),
        ignored,
        tuple(ignored_examples),
        tuple(split_antecedents),
        tuple(unreadable),
        had_bom,
        shadowed,
        tuple(cr_lines),
        cr_count,
    )


def begin_name(line: bytes) -> bytes | None:
    """The document name of ``line`` when it begins a document as :func:`parse_conll` reads it
    (the name's bytes; ``None`` otherwise): what a cut of a file looks for.

    >>> begin_name(b" #\\tbegin document (a/b); part 000\\r"), begin_name(b"# end document")
    (b'(a/b); part 000', None)
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text[:-1] if text.endswith("\r") else text
    begin = _BEGIN.match(text.lstrip(_BLANK)) if "document" in text else None
    return begin.group(1).encode("utf-8") if begin else None


def read_conll(path: Path) -> ConllFile:
    """Read a CoNLL-2011/2012 file (UTF-8); errors are :class:`InputError` with file and line."""
    return parse_conll(read_text(path), str(path), first_line(path))
