"""The input errors of ``annoscore are`` after reading: each names the file, the line and the
element of the first problem of a document, as it is written.

:mod:`annoscore.align.are` finds, with arrays, which documents have a problem; the first of them
is walked here, element by element in the order a reader meets them, and the first problem met
raises its :class:`~annoscore.errors.InputError`:

1. the document has no counterpart in ``--input`` (tasks 1, 3, 4);
2. the gold chains, then the system chains, member by member: tasks 1-2 a member without an id,
   an id that is not an ``<entity>`` of the input (when the input marks entities), an id
   already in a chain of that side; tasks 3-4 a member without its start and end, a start or
   end that is not a token ``<node>`` of the input, a start after its end, a mention already in
   a chain of that side;
3. the system pairs, pronoun then antecedent (tasks 1 and 3), with the same checks but the last;
4. task 1: a pronoun listed twice in ``<anaphoric_pronouns>``, or no list and no gold
   ``type="pronoun"`` member to take it from.

Lines come from :meth:`annoscore.formats.are.AreFile.lines` (the checked parser's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from annoscore.align.are_documents import Corpus, DocumentSet, Placed, item_starts
from annoscore.errors import InputError
from annoscore.formats.are import ABSENT, AreFile, Refs

NEEDS_INPUT = {
    1: "the pronouns to resolve and the candidates",
    3: "the input's token <node> elements to count mention lengths",
    4: "the input's token <node> elements to count mention lengths",
}


def raise_first_error(corpus: Corpus, document: int, task: int) -> None:
    """Raise the first problem of ``document`` (see the module doc); return if it has none."""
    doc = corpus.documents[document]
    if task != 2 and doc.input is None:
        where = doc.gold or doc.system
        assert where is not None
        prefix = f"document {doc.key!r} has no counterpart in --input; task {task} needs "
        raise InputError(
            prefix + NEEDS_INPUT[task], where.file.path, where.file.lines().documents[where.index]
        )
    if task in (1, 2):
        _ids(doc, task)
    else:
        _mentions(doc, task)


# --- the items of one document ----------------------------------------------------------------


class _Items:
    """The items of document ``index`` of ``file``, with their lines."""

    def __init__(self, placed: Placed) -> None:
        self.file: AreFile = placed.file
        self.path: Path = placed.file.path
        self.index = placed.index
        self.starts = item_starts(self.file, self.index)
        self.lines = self.file.lines()

    def text(self, code: int) -> str | None:
        return None if code == ABSENT else self.file.text(code)

    def members(self) -> Iterator[tuple[int, int, str, int]]:
        """``(member, line, element, chain line)`` of every chain member, in order."""
        f = self.file
        chain = self.starts["chains"]
        member = self.starts["members"]
        for c in range(chain, chain + int(f.chain_counts[self.index])):
            for m in range(member, member + int(f.chain_sizes[c])):
                yield m, self.lines.members[m], self.lines.elements[m], self.lines.chains[c]
            member += int(f.chain_sizes[c])

    def pair_parts(self) -> Iterator[tuple[int, str, Refs, int]]:
        """``(pair, element, its columns, line)`` of each pair's pronoun, then its antecedent."""
        f, lines, first = self.file, self.lines, self.starts["pairs"]
        for pair in range(first, first + int(f.pair_counts[self.index])):
            yield pair, "pronoun", f.pronouns, lines.pronouns[pair]
            yield pair, "antecedent", f.antecedents, lines.antecedents[pair]

    def codes(self, column: str, size: str) -> list[int]:
        first = self.starts[column]
        values: list[int] = getattr(self.file, column)[
            first : first + int(getattr(self.file, size)[self.index])
        ].tolist()
        return values


def _input(doc: DocumentSet) -> _Items | None:
    return None if doc.input is None else _Items(doc.input)


# --- tasks 1 and 2 ----------------------------------------------------------------------------


def _known(source: _Items | None) -> set[str] | None:
    """The entity and listed ids of an input that marks entities, else ``None``."""
    if source is None or not int(source.file.entity_sizes[source.index]):
        return None
    texts = source.codes("entities", "entity_sizes") + source.codes("listed", "listed_sizes")
    return {source.file.text(code) for code in texts}


def _id(
    items: _Items,
    code: int,
    line: int,
    element: str,
    what: str,
    known: set[str] | None,
    source: _Items | None,
) -> str:
    value = items.text(code)
    if value is None:
        raise InputError(
            f"<{element}> {what} has no id attribute (tasks 1 and 2 refer to entities by id)",
            items.path,
            line,
        )
    if known is not None and value not in known:
        assert source is not None
        raise InputError(
            f'<{element} id="{value}">: id {value} is not an <entity> of the input ({source.path})',
            items.path,
            line,
        )
    return value


def _ids(doc: DocumentSet, task: int) -> None:
    source = _input(doc)
    known = _known(source)
    for placed in (doc.gold, doc.system):
        if placed is None:
            continue
        items = _Items(placed)
        seen: dict[str, int] = {}
        ids = items.file.members.id
        for member, line, element, chain_line in items.members():
            value = _id(items, int(ids[member]), line, element, "in a <chain>", known, source)
            if value in seen:
                raise InputError(
                    f'<{element} id="{value}">: id {value} is already in the chain of line '
                    f"{seen[value]}; an id may appear once in one chain and in one chain only",
                    items.path,
                    line,
                )
            seen[value] = chain_line
    if task == 2:
        return
    assert source is not None
    if doc.system is not None:
        items = _Items(doc.system)
        for pair, element, refs, line in items.pair_parts():
            _id(items, int(refs.id[pair]), line, element, "in a <pair>", known, source)
    if source.file.has_list[source.index]:
        listed: set[int] = set()
        first = source.starts["listed"]
        for k, code in enumerate(source.codes("listed", "listed_sizes"), start=first):
            if code in listed:
                raise InputError(
                    f'<pronoun id="{source.file.text(code)}"> is listed twice in '
                    "<anaphoric_pronouns>",
                    source.path,
                    source.lines.listed[k],
                )
            listed.add(code)
        return
    gold = None if doc.gold is None else _Items(doc.gold)
    if gold is None or not any(gold.file.pronominal[m] for m, *_ in gold.members()):
        raise InputError(
            "task 1 needs the pronouns to resolve: the input has no <anaphoric_pronouns> "
            'and the gold marks no <node type="pronoun">',
            source.path,
            source.lines.documents[source.index],
        )


# --- tasks 3 and 4 ----------------------------------------------------------------------------


def _mention(
    items: _Items,
    start: int,
    end: int,
    line: int,
    element: str,
    tokens: dict[str, int],
    source: _Items,
) -> tuple[int, int]:
    """A reference's token positions; raises for a missing or unknown token, or a start after
    its end."""
    first_text, last_text = items.text(start), items.text(end)
    if first_text is None or last_text is None:
        raise InputError(
            f"<{element}> needs start and end attributes (token node ids; tasks 3 and 4 refer "
            "to mentions by their first and last token)",
            items.path,
            line,
        )
    first, last = tokens.get(first_text), tokens.get(last_text)
    for name, value, position in (("start", first_text, first), ("end", last_text, last)):
        if position is None:
            raise InputError(
                f'<{element} {name}="{value}">: {value} is not a token <node> id of the input '
                f"({source.path})",
                items.path,
                line,
            )
    assert first is not None and last is not None
    if first > last:
        raise InputError(
            f'<{element} start="{first_text}" end="{last_text}">: the start comes after the end '
            "in the input text",
            items.path,
            line,
        )
    return first, last


def _mentions(doc: DocumentSet, task: int) -> None:
    source = _input(doc)
    assert source is not None
    tokens = {
        source.file.text(code): position
        for position, code in enumerate(source.codes("tokens", "token_sizes"))
    }
    for placed in (doc.gold, doc.system):
        if placed is None:
            continue
        items = _Items(placed)
        members = items.file.members
        seen: dict[tuple[int, int], int] = {}
        for member, line, element, chain_line in items.members():
            start, end = int(members.start[member]), int(members.end[member])
            mention = _mention(items, start, end, line, element, tokens, source)
            if mention in seen:
                raise InputError(
                    f'<{element} start="{items.text(start)}" end="{items.text(end)}">: this '
                    f"mention is already in the chain of line {seen[mention]}; a mention may "
                    "appear once in one chain and in one chain only",
                    items.path,
                    line,
                )
            seen[mention] = chain_line
    if task == 3 and doc.system is not None:
        items = _Items(doc.system)
        for pair, element, refs, line in items.pair_parts():
            start, end = int(refs.start[pair]), int(refs.end[pair])
            _mention(items, start, end, line, element, tokens, source)
