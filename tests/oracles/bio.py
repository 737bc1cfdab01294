"""Plain references for BIO tag scoring, for ``tests/equivalence/test_bio.py``: a tag file
read line by line, conlleval's chunks and seqeval's default-mode entities token by token, as
``../shared/spec/formats.md`` states the rules (the streaming form of the scripts), against which
the column reading of :mod:`annoscore.formats.conll_bio` and the vectorised counting of
:mod:`annoscore.metrics.conlleval` and :mod:`annoscore.metrics.seqeval` are held.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.bio_tags import Entity, default_parts
from annoscore.formats.conll_bio import (
    BOUNDARY,
    DOCSTART,
    Document,
    TagColumns,
    _split_function,
    perl_split,
)
from annoscore.metrics.conlleval import (
    ConllevalDetails,
    _document_counts,
    chunk_end,
    chunk_start,
    raw_tag,
    split_tag,
)

_DEFAULT_ENDS = frozenset({("B", "B"), ("B", "S"), ("B", "O"), ("I", "B"), ("I", "S"), ("I", "O")})
_DEFAULT_STARTS = frozenset(
    {("E", "E"), ("E", "I"), ("S", "E"), ("S", "I"), ("O", "E"), ("O", "I")}
)


def plain_conlleval_counts(
    gold: Sequence[str],
    guess: Sequence[str],
    boundary: Sequence[bool],
    starts: Sequence[int],
    *,
    raw: bool = False,
    outside: str = "O",
) -> tuple[list[Counts], ConllevalDetails]:
    """The counts of each document of a tag stream (documents start at ``starts``, the first at
    0): conlleval's chunks and tokens (the module doc).

    >>> counts, _ = plain_conlleval_counts(
    ...     ["B-X", "E-X", "B-X", "E-X"], ["B-X", "I-X", "I-X", "E-X"], [False] * 4, [0])
    >>> counts[0]["tp"], counts[0]["fp"], counts[0]["fn"]
    (1, 0, 0)
    """
    parts: dict[str, tuple[str, str]] = {}
    pairs: dict[tuple[str, str], tuple[bool, bool]] = {}

    def parse(tag: str) -> tuple[str, str]:
        found = parts.get(tag)
        if found is None:
            found = parts[tag] = split_tag(raw_tag(tag, outside) if raw else tag)
        return found

    def events(previous: str, tag: str) -> tuple[bool, bool]:
        found = pairs.get((previous, tag))
        if found is None:
            (p, pt), (c, ct) = parse(previous), parse(tag)
            found = pairs[(previous, tag)] = (chunk_start(p, pt, c, ct), chunk_end(p, pt, c, ct))
        return found

    n_docs = len(starts)
    tokens = [0] * n_docs
    right = [0] * n_docs
    found_gold: list[dict[str, int]] = [{} for _ in range(n_docs)]
    found_guess: list[dict[str, int]] = [{} for _ in range(n_docs)]
    correct: list[dict[str, int]] = [{} for _ in range(n_docs)]
    boundary_tag = "\0O"  # a boundary reads as O on both sides, whatever -r and -o say
    parts[boundary_tag] = ("O", "")
    previous_gold = previous_guess = boundary_tag
    in_correct = False
    correct_doc = 0
    doc = 0
    next_start = starts[1] if n_docs > 1 else -1
    for i, (g, s, b) in enumerate(zip(gold, guess, boundary, strict=True)):
        if i == next_start:
            doc += 1
            next_start = starts[doc + 1] if doc + 1 < n_docs else -1
        if b:
            g = s = boundary_tag
        start_gold, end_gold = events(previous_gold, g)
        start_guess, end_guess = events(previous_guess, s)
        gold_tag, gold_type = parse(g)
        guess_tag, guess_type = parse(s)
        if in_correct:
            if end_gold and end_guess and parse(previous_gold)[1] == parse(previous_guess)[1]:
                in_correct = False
                kind = parse(previous_gold)[1]
                table = correct[correct_doc]
                table[kind] = table.get(kind, 0) + 1
            elif end_gold != end_guess or guess_type != gold_type:
                in_correct = False
        if start_gold and start_guess and guess_type == gold_type:
            in_correct = True
            correct_doc = doc
        if start_gold:
            table = found_gold[doc]
            table[gold_type] = table.get(gold_type, 0) + 1
        if start_guess:
            table = found_guess[doc]
            table[guess_type] = table.get(guess_type, 0) + 1
        if not b:
            tokens[doc] += 1
            if gold_tag == guess_tag and gold_type == guess_type:
                right[doc] += 1
        previous_gold, previous_guess = g, s
    if in_correct:
        kind = parse(previous_gold)[1]
        table = correct[correct_doc]
        table[kind] = table.get(kind, 0) + 1
    out = []
    gold_types: set[str] = set()
    guessed_types: set[str] = set()
    for d in range(n_docs):
        gold_types.update(found_gold[d])
        guessed_types.update(found_guess[d])
        out.append(_document_counts(tokens[d], right[d], found_gold[d], found_guess[d], correct[d]))
    return out, ConllevalDetails(frozenset(gold_types), frozenset(guessed_types))


def plain_default_entities(tags: Sequence[str]) -> list[Entity]:
    """seqeval's ``get_entities`` of one joined sequence (sentences already joined with ``O``),
    end exclusive.

    >>> plain_default_entities(["B-X", "E-X", "B-X", "E-X", "S-Y", "S-Y"])
    [('X', 0, 2), ('X', 2, 4), ('Y', 4, 5), ('Y', 5, 6)]
    """
    parts: dict[str, tuple[str, str]] = {}
    events: dict[tuple[str, str], tuple[bool, bool]] = {}
    out: list[Entity] = []
    previous = ""
    parts[""] = ("O", "")  # before the first tag: prefix O, type ''
    begin = 0
    previous_type = ""
    for i, tag in enumerate((*tags, "O")):
        pair = events.get((previous, tag))
        if pair is None:
            found = parts.get(tag)
            if found is None:
                found = parts[tag] = default_parts(tag)
            p, pt = parts[previous]
            c, ct = found
            end = p in ("E", "S") or (p, c) in _DEFAULT_ENDS or (p not in "O." and pt != ct)
            start = c in ("B", "S") or (p, c) in _DEFAULT_STARTS or (c not in "O." and pt != ct)
            pair = events[(previous, tag)] = (end, start)
        if pair[0]:
            out.append((previous_type, begin, i))
        if pair[1]:
            begin = i
        previous = tag
        previous_type = parts[tag][1]
    return out


def plain_read_tags(
    text: str, path: str, *, delimiter: str | None = " ", columns: Sequence[int] = (-2, -1)
) -> TagColumns:
    """The tag columns of ``text`` (the module doc gives the rules); ``path`` names it in
    errors.  ``columns``: the indices of the tag columns (negative from the end)."""
    pattern, whitespace = _split_function(delimiter)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tags: tuple[list[str], ...] = tuple([] for _ in columns)
    boundary: list[bool] = []
    tokens: list[str] = []
    numbers: list[int] = []
    documents: list[Document] = []
    names: dict[str, int] = {}
    width = 0
    positions: list[int] = []
    first_tag = 0
    for number, line in enumerate(lines, 1):
        if whitespace:
            fields = line.split()
        elif pattern is None:
            fields = line.split(" ")
            while fields and fields[-1] == "":
                fields.pop()
        else:
            fields = perl_split(pattern, line)  # type: ignore[arg-type]
        if not fields:
            boundary.append(True)
            tokens.append(BOUNDARY)
            numbers.append(number)
            for column in tags:
                column.append("O")
            continue
        if not width:
            width = len(fields)
            positions = [c + width if c < 0 else c for c in columns]
            if any(p < 0 or p >= width for p in positions) or (width < 2 and len(columns) > 1):
                raise InputError(
                    f"{width} field(s) on the first line; expected a token and "
                    f"{len(columns)} tag column(s) (columns {', '.join(map(str, columns))})",
                    path,
                    number,
                )
            first_tag = min(positions)
        elif len(fields) != width:
            hint = " (a CRLF line end leaves \\r on a blank line)" if fields == ["\r"] else ""
            raise InputError(
                f"unexpected number of features: {len(fields)} ({width}); every token line "
                f"must have as many fields as the first one{hint}",
                path,
                number,
            )
        token = fields[0]
        if token == BOUNDARY:
            boundary.append(True)
            tokens.append(BOUNDARY)
            numbers.append(number)
            for column in tags:
                column.append("O")
            continue
        if token == DOCSTART:
            extra = [f for f in fields[1:first_tag] if f != BOUNDARY]
            name = " ".join(extra) if extra else str(len(documents) + 1)
            if name in names:
                raise InputError(
                    f"document id {name!r} is used again (first on line {names[name]})",
                    path,
                    number,
                )
            names[name] = number
            documents.append(Document(name, len(boundary), number))
        boundary.append(False)
        tokens.append(token)
        numbers.append(number)
        for column, p in zip(tags, positions, strict=True):
            column.append(fields[p])
    if not documents:
        if boundary:
            documents = [Document(Path(path).name, 0, 0)]
    elif any(not b for b in boundary[: documents[0].start]):
        if "0" in names:
            raise InputError(
                "document id '0' is taken by the tokens before the first -DOCSTART- line",
                path,
                names["0"],
            )
        documents.insert(0, Document("0", 0, 0))
    else:  # blank lines before the first -DOCSTART- belong to it
        documents[0] = Document(documents[0].name, 0, documents[0].line)
    return TagColumns(path, tags, boundary, tokens, numbers, documents, width)


def plain_tag_codes(
    text: str, path: str, columns: Sequence[int] = (-2, -1)
) -> tuple[list[str], list[list[int]], list[bool], list[bool], list[Document]]:
    """The tag columns of ``text`` read with whitespace as the delimiter (:func:`plain_read_tags`)
    as codes: the distinct tags first seen column after column, each column's codes, and each
    item's boundary and ``-DOCSTART-`` flags, and the documents."""
    read = plain_read_tags(text, path, delimiter=None, columns=columns)
    tags: list[str] = []
    number: dict[str, int] = {}
    for column in read.columns:
        for tag in column:
            if tag not in number:
                number[tag] = len(tags)
                tags.append(tag)
    codes = [[number[tag] for tag in column] for column in read.columns]
    docstart = [
        token == DOCSTART and not b for token, b in zip(read.tokens, read.boundary, strict=True)
    ]
    return tags, codes, list(read.boundary), docstart, read.documents
