"""Plain references for BIO tag scoring, for ``tests/equivalence/test_bio.py``, written from
``../shared/spec/formats.md`` ("conlleval.pl (version 2004-01-26), exact rules" and "seqeval
(1.2.2), default vs strict"): a tag file read line by line, conlleval's chunks counted token by
token as the script streams them, seqeval's default-mode entities token by token.  The column
reading of :mod:`annoscore.formats.conll_bio` and the vectorised counting of
:mod:`annoscore.metrics.conlleval` and :mod:`annoscore.metrics.seqeval` are held to these.
Only data classes (``Counts``, ``ConllevalDetails``, ``Document``, ``TagColumns``) and
``InputError`` come from annoscore: the splitting of tags and lines and the chunk rules are
written here again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll_bio import Document, TagColumns
from annoscore.metrics.conlleval import ConllevalDetails

# --------------------------------------------------------------------------- conlleval


def _prefix_and_type(tag: str) -> tuple[str, str]:
    """conlleval: split at the first hyphen; no hyphen: all prefix, empty type."""
    hyphen = tag.find("-")
    if hyphen < 0:
        return tag, ""
    return tag[:hyphen], tag[hyphen + 1 :]


def _starts(p: str, pt: str, c: str, ct: str) -> bool:
    """conlleval's chunk start between the previous tag (p, pt) and the current (c, ct)."""
    if (p == "B" and c == "B") or (p == "I" and c == "B") or (p == "O" and c == "B"):
        return True
    if (p == "O" and c == "I") or (p == "E" and c == "E") or (p == "E" and c == "I"):
        return True
    if p == "O" and c == "E":
        return True
    if c != "O" and c != "." and pt != ct:
        return True
    return c == "[" or c == "]"


def _ends(p: str, pt: str, c: str, ct: str) -> bool:
    """conlleval's chunk end before the current tag (c, ct), after the previous (p, pt)."""
    if (p == "B" and c == "B") or (p == "B" and c == "O") or (p == "I" and c == "B"):
        return True
    if (p == "I" and c == "O") or (p == "E" and c == "E") or (p == "E" and c == "I"):
        return True
    if p == "E" and c == "O":
        return True
    if p != "O" and p != "." and pt != ct:
        return True
    return p == "[" or p == "]"


def _add(table: dict[str, int], kind: str) -> None:
    table[kind] = table.get(kind, 0) + 1


Tags = Sequence[str]
Flags = Sequence[bool]
Items = Sequence[int]


def plain_conlleval_counts(
    gold: Tags, guess: Tags, boundary: Flags, at: Items, raw: bool = False, outside: str = "O"
) -> tuple[list[Counts], ConllevalDetails]:
    """Per document (document ``d`` starts at item ``at[d]``), conlleval's counts: tokens,
    correct tokens, and chunks found on each side and correct, each chunk in the document where
    it starts.  A boundary item is ``O`` on both sides and not a token.

    >>> counts, _ = plain_conlleval_counts(
    ...     ["B-X", "E-X", "B-X", "E-X"], ["B-X", "I-X", "I-X", "E-X"], [False] * 4, [0])
    >>> counts[0]["tp"], counts[0]["fp"], counts[0]["fn"]
    (1, 0, 0)
    """
    documents = len(at)
    document_of = []
    d = 0
    for item in range(len(gold)):
        while d + 1 < documents and at[d + 1] <= item:
            d += 1
        document_of.append(d)

    def read(tag: str, is_boundary: bool) -> tuple[str, str]:
        if is_boundary:
            return "O", ""
        if raw:
            tag = "O" if tag == outside else "B-" + tag
        return _prefix_and_type(tag)

    token_count = [0] * documents
    right_count = [0] * documents
    gold_found: list[dict[str, int]] = [{} for _ in range(documents)]
    guess_found: list[dict[str, int]] = [{} for _ in range(documents)]
    correct_found: list[dict[str, int]] = [{} for _ in range(documents)]

    # the script's state: the previous tags, and whether a correct chunk is open
    last_gold, last_gold_type = "O", ""
    last_guess, last_guess_type = "O", ""
    in_correct = False
    correct_from = 0  # the document where the open correct chunk started
    for item in range(len(gold)):
        doc = document_of[item]
        gold_tag, gold_type = read(gold[item], boundary[item])
        guess_tag, guess_type = read(guess[item], boundary[item])
        gold_ends = _ends(last_gold, last_gold_type, gold_tag, gold_type)
        guess_ends = _ends(last_guess, last_guess_type, guess_tag, guess_type)
        gold_starts = _starts(last_gold, last_gold_type, gold_tag, gold_type)
        guess_starts = _starts(last_guess, last_guess_type, guess_tag, guess_type)
        if in_correct:
            if gold_ends and guess_ends and last_gold_type == last_guess_type:
                _add(correct_found[correct_from], last_gold_type)
                in_correct = False
            elif gold_ends != guess_ends or gold_type != guess_type:
                in_correct = False
        if gold_starts and guess_starts and gold_type == guess_type:
            in_correct = True
            correct_from = doc
        if gold_starts:
            _add(gold_found[doc], gold_type)
        if guess_starts:
            _add(guess_found[doc], guess_type)
        if not boundary[item]:
            token_count[doc] += 1
            if gold_tag == guess_tag and gold_type == guess_type:
                right_count[doc] += 1
        last_gold, last_gold_type = gold_tag, gold_type
        last_guess, last_guess_type = guess_tag, guess_type
    if in_correct:  # the stream ends a chunk
        _add(correct_found[correct_from], last_gold_type)

    results = []
    for d in range(documents):
        values: dict[str, int] = {
            "tokens": token_count[d],
            "correct_tokens": right_count[d],
        }
        tp = 0
        for n in correct_found[d].values():
            tp += n
        values["tp"] = tp
        values["fp"] = -tp
        for n in guess_found[d].values():
            values["fp"] += n
        values["fn"] = -tp
        for n in gold_found[d].values():
            values["fn"] += n
        kinds = set(gold_found[d]) | set(guess_found[d])
        for kind in sorted(kinds):
            hits = correct_found[d].get(kind, 0)
            values["type:" + kind + ":tp"] = hits
            values["type:" + kind + ":fp"] = guess_found[d].get(kind, 0) - hits
            values["type:" + kind + ":fn"] = gold_found[d].get(kind, 0) - hits
        results.append(Counts(values))
    gold_kinds: set[str] = set()
    guess_kinds: set[str] = set()
    for d in range(documents):
        gold_kinds |= set(gold_found[d])
        guess_kinds |= set(guess_found[d])
    return results, ConllevalDetails(frozenset(gold_kinds), frozenset(guess_kinds))


# --------------------------------------------------------------------------- seqeval


def _seqeval_parts(tag: str) -> tuple[str, str]:
    """seqeval's default mode: the prefix is the first character, the type what follows the
    first hyphen after it (or all of the rest when there is none); an empty type is ``_``."""
    rest = tag[1:]
    hyphen = rest.find("-")
    kind = rest[hyphen + 1 :] if hyphen >= 0 else rest
    return tag[0], kind if kind else "_"


def _seqeval_end(p: str, pt: str, c: str, ct: str) -> bool:
    """Whether an entity ends before (c, ct): E and S always end one; B and I end one before
    B, S and O; any type change ends one unless the previous prefix is O or ``.``."""
    if p == "E" or p == "S":
        return True
    if (p == "B" or p == "I") and (c == "B" or c == "S" or c == "O"):
        return True
    return p != "O" and p != "." and pt != ct


def _seqeval_start(p: str, pt: str, c: str, ct: str) -> bool:
    """Whether an entity starts at (c, ct): B and S always start one; so do E->E, E->I, S->E,
    S->I, O->E, O->I, and a type change unless the current prefix is O or ``.``."""
    if c == "B" or c == "S":
        return True
    if (p == "E" or p == "S" or p == "O") and (c == "E" or c == "I"):
        return True
    return c != "O" and c != "." and pt != ct


def plain_default_entities(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """seqeval's ``get_entities`` of one joined sequence (sentences already joined with ``O``):
    (type, start, end), end exclusive.

    >>> plain_default_entities(["B-X", "E-X", "B-X", "E-X", "S-Y", "S-Y"])
    [('X', 0, 2), ('X', 2, 4), ('Y', 4, 5), ('Y', 5, 6)]
    """
    entities: list[tuple[str, int, int]] = []
    previous, previous_type = "O", ""
    begin = 0
    for i, tag in enumerate([*tags, "O"]):  # a last O ends the last entity
        current, current_type = _seqeval_parts(tag)
        if _seqeval_end(previous, previous_type, current, current_type):
            entities.append((previous_type, begin, i))
        if _seqeval_start(previous, previous_type, current, current_type):
            begin = i
        previous, previous_type = current, current_type
    return entities


def plain_entity_counts(
    gold: set[tuple[str, int, int]], guess: set[tuple[str, int, int]]
) -> dict[str, int]:
    """tp (entities on both sides), fp (guessed only), fn (gold only), overall and per type
    (``type:NAME:tp``, ...; the types of either side, sorted)."""
    out = {"tp": 0, "fp": 0, "fn": 0}
    kinds = sorted({kind for kind, _, _ in gold} | {kind for kind, _, _ in guess})
    for kind in kinds:
        for stat in ("tp", "fp", "fn"):
            out["type:" + kind + ":" + stat] = 0
    for entity in gold | guess:
        if entity in gold and entity in guess:
            stat = "tp"
        elif entity in guess:
            stat = "fp"
        else:
            stat = "fn"
        out[stat] += 1
        out["type:" + entity[0] + ":" + stat] += 1
    return out


# --------------------------------------------------------------------------- the tag file


def _perl_split(pattern: re.Pattern[str], line: str) -> list[str]:
    """``split(/pattern/, line)`` as Perl does it: a match of some width splits; a match of no
    width splits between two characters, but not at the start of the line nor where the last
    match ended; empty fields at the end are dropped."""
    fields: list[str] = []
    field_start = 0
    last_end = -1
    k = 0
    while k < len(line):
        m = pattern.match(line, k)
        if m is None:
            k += 1
        elif m.end() > k:
            fields.append(line[field_start:k])
            field_start = last_end = m.end()
            k = m.end()
        elif k == 0 or k == last_end:
            k += 1
        else:
            fields.append(line[field_start:k])
            field_start = last_end = k
            k += 1
    fields.append(line[field_start:])
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def _fields(line: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return line.split()  # any run of white space
    try:
        pattern = re.compile(delimiter)
    except re.error as error:
        raise InputError(f"-d {delimiter!r}: not a regular expression ({error})") from None
    return _perl_split(pattern, line)


def plain_read_tags(
    text: str, path: str, *, delimiter: str | None = " ", columns: Sequence[int] = (-2, -1)
) -> TagColumns:
    """The tag columns of ``text`` read line by line (conll_bio's module doc gives the rules);
    ``path`` names it in errors; ``columns``: the tag columns' indices (negative from the end)."""
    lines = text.split("\n")
    if len(lines) > 0 and lines[-1] == "":
        lines = lines[:-1]  # the last line end closes the last line
    tag_columns: tuple[list[str], ...] = tuple([] for _ in columns)
    boundary: list[bool] = []
    tokens: list[str] = []
    width = 0
    picked: list[int] = []
    docstarts: list[tuple[int, int, str]] = []  # (item, line, id)
    for number, line in enumerate(lines, 1):
        fields = _fields(line, delimiter)
        if fields and width == 0:  # the first line with fields fixes their number
            width = len(fields)
            picked = []
            fits = True
            for c in columns:
                p = c + width if c < 0 else c
                picked.append(p)
                fits = fits and 0 <= p < width
            if not fits or (width < 2 and len(columns) > 1):
                shown = ", ".join(str(c) for c in columns)
                message = f"{width} field(s) on the first line; expected a token and "
                message += f"{len(columns)} tag column(s) (columns {shown})"
                raise InputError(message, path, number)
        elif fields and len(fields) != width:
            message = f"unexpected number of features: {len(fields)} ({width}); every token "
            message += "line must have as many fields as the first one"
            if fields == ["\r"]:
                message += " (a CRLF line end leaves \\r on a blank line)"
            raise InputError(message, path, number)
        if not fields or fields[0] == "-X-":  # a sentence boundary
            boundary.append(True)
            tokens.append("-X-")
            for column in tag_columns:
                column.append("O")
            continue
        boundary.append(False)
        tokens.append(fields[0])
        for column, p in zip(tag_columns, picked, strict=True):
            column.append(fields[p])
        if fields[0] == "-DOCSTART-":
            named = [f for f in fields[1 : min(picked)] if f != "-X-"]
            document_id = " ".join(named) if named else str(len(docstarts) + 1)
            for _, first_line, other in docstarts:
                if other == document_id:
                    message = f"document id {document_id!r} is used again (first on line "
                    raise InputError(message + f"{first_line})", path, number)
            docstarts.append((len(boundary) - 1, number, document_id))
    documents = [Document(name, item, line) for item, line, name in docstarts]
    tokens_before_first = False
    if docstarts:
        for item in range(docstarts[0][0]):
            tokens_before_first = tokens_before_first or not boundary[item]
    if len(boundary) > 0 and not docstarts:  # the whole file, named by the file's name
        documents = [Document(Path(path).name, 0, 0)]
    elif tokens_before_first:  # tokens before the first -DOCSTART- are document 0
        for _, line_of_0, name in docstarts:
            if name == "0":
                message = "document id '0' is taken by the tokens before the first "
                raise InputError(message + "-DOCSTART- line", path, line_of_0)
        documents = [Document("0", 0, 0), *documents]
    elif docstarts:  # blank lines before the first -DOCSTART- belong to its document
        documents[0] = Document(docstarts[0][2], 0, docstarts[0][1])
    numbers = list(range(1, len(lines) + 1))
    return TagColumns(path, tag_columns, boundary, tokens, numbers, documents, width)


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
        token == "-DOCSTART-" and not b for token, b in zip(read.tokens, read.boundary, strict=True)
    ]
    return tags, codes, list(read.boundary), docstart, read.documents
