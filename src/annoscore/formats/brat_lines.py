"""The line grammar of brat ``.ann`` files: the reader's checked parser.

:func:`parse_lines` reads one file line by line, by the rules of its dialect (see
:mod:`annoscore.formats.brat`), and is the only step of the reader that names file and line:
every malformed line is an :class:`InputError` there, every tolerated one a warning (or, with
``strict_input``, an error).  It also checks the entity texts against the document's ``.txt``
and, in the generic dialect, that every annotation refers to an annotation of the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.brat_model import (
    MAX_OFFSET,
    MAX_OFFSET_DIGITS,
    AnnFile,
    Dialect,
    Fragments,
    place,
    tolerated_refusal,
    tolerated_warning,
)
from annoscore.formats.files import BOM, bom_warning, check_no_nul
from annoscore.model import Attribute, Event, Normalization, Note, Relation
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

_OFFSETS = re.compile(r"([0-9]+[ \t]+[0-9]+(?:[ \t]*;[ \t]*[0-9]+[ \t]+[0-9]+)*)(?:[ \t]+(.*))?$")
"""Offsets ``START END(;START END)*`` and, leniently, text after them on the same field."""

_AFTER_THREE_WORDS = re.compile(r"\s*\S+\s+\S+\s+\S+\s*(.*)$", re.DOTALL)
"""What follows ``TYPE START END`` in a field (``\\s`` is what ``str.split`` splits at)."""


_EXCERPT_LENGTH = 40
"""How many characters of a skipped line a warning quotes."""


def _excerpt(line: str) -> str:
    return repr(line[:_EXCERPT_LENGTH])


@dataclass(slots=True)
class _Tolerances:
    """Tolerated lines of one file, counted per kind (or refused with ``strict``)."""

    path: str
    strict: bool
    seen: dict[str, list[int]] = field(default_factory=dict)

    def add(self, code: str, line_number: int, line: str) -> None:
        if self.strict:
            raise InputError(tolerated_refusal(code, _excerpt(line)), self.path, line_number)
        self.seen.setdefault(code, []).append(line_number)

    def warnings(self) -> list[ScoreWarning]:
        return [
            tolerated_warning(
                code, len(lines), tuple(place(self.path, k) for k in lines[:EXAMPLES_SHOWN])
            )
            for code, lines in self.seen.items()
        ]


def _digits_value(token: str, path: str, line: int) -> int:
    """The value of ASCII digits ``token`` (``0 <= value <= MAX_OFFSET``, else an error): a
    long number loses its leading zeros first, so thousands of digits cost no more than their
    length (``int()`` refuses more than 4,300)."""
    if len(token) > MAX_OFFSET_DIGITS:
        token = token.lstrip("0") or "0"
        if len(token) > MAX_OFFSET_DIGITS:
            raise InputError(f"offset {token[:30]} is beyond any text (above 2^53)", path, line)
    value = int(token)
    if value > MAX_OFFSET:
        raise InputError(f"offset {token[:30]} is beyond any text (above 2^53)", path, line)
    return value


def _number(token: str, offsets: str, path: str, line: int) -> int:
    if not (token.isascii() and token.isdigit()):
        raise InputError(
            f"bad offsets {offsets!r}: offsets must be whole numbers in ASCII digits", path, line
        )
    return _digits_value(token, path, line)


def _fragments(offsets: str, path: str, line: int) -> Fragments:
    """The sorted fragments of ``START END(;START END)*`` (generic rules: an error otherwise)."""
    fragments = []
    for piece in offsets.split(";"):
        bounds = piece.split()
        if len(bounds) != 2:
            raise InputError(
                f"bad offsets {offsets!r}: expected 'START END' fragments separated by ';'",
                path,
                line,
            )
        start, end = (
            _number(bounds[0], offsets, path, line),
            _number(bounds[1], offsets, path, line),
        )
        if end <= start:
            what = "a zero-length span" if end == start else "end before start"
            raise InputError(f"bad offsets {start} {end}: {what}; need start < end", path, line)
        fragments.append((start, end))
    return tuple(sorted(fragments))


def _arguments(tokens: list[str], path: str, line: int) -> tuple[tuple[str, str], ...]:
    arguments = []
    for token in tokens:
        role, sep, target = token.partition(":")
        if not sep or not role or not target:
            raise InputError(f"bad argument {token!r}: expected ROLE:ID", path, line)
        arguments.append((role, target))
    return tuple(arguments)


def _official_int(token: str, offsets: str, path: str, line: int) -> tuple[int, bool]:
    """``int(token)`` as the official script reads it, and whether it was plain ASCII digits."""
    if token.isascii() and token.isdigit():
        return _digits_value(token, path, line), True
    try:
        value = int(token)
    except ValueError:
        raise InputError(
            f"bad offsets {offsets!r}: not a number (the official script stops here)", path, line
        ) from None
    if abs(value) > MAX_OFFSET:
        raise InputError(f"offset {token[:30]} is beyond any text (above 2^53)", path, line)
    return value, False


_REFERRING = {
    "N": "normalisation",
    "A": "attribute",
    "M": "attribute",
    "R": "relation",
    "*": "equivalence",
    "E": "event",
    "#": "note",
}


@dataclass(slots=True)
class _Builder:
    """Collects one file's annotations line by line."""

    path: str
    dialect: Dialect
    tolerances: _Tolerances
    ids: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    fragments: list[Fragments] = field(default_factory=list)
    normalizations: list[Normalization] = field(default_factory=list)
    attributes: list[Attribute] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    seen_ids: dict[str, int] = field(default_factory=dict)
    repeated_ids: list[str] = field(default_factory=list)
    references: list[tuple[str, str, int]] = field(default_factory=list)

    def entity(self, ann_id: str, type_: str, fragments: Fragments, text: str, line: int) -> None:
        self.ids.append(ann_id)
        self.types.append(type_)
        self.starts.append(fragments[0][0])
        self.ends.append(fragments[-1][1])
        self.texts.append(text)
        self.lines.append(line)
        self.fragments.append(fragments)

    def check_id(self, ann_id: str, kind: str, number: int) -> None:
        if kind == "*":
            return
        if ann_id in self.seen_ids:
            self.repeated_ids.append(
                f"{place(self.path, number)} (id {ann_id[:20]}, first on line "
                f"{self.seen_ids[ann_id]})"
            )
        else:
            self.seen_ids[ann_id] = number

    def refers(self, kind: str, targets: Sequence[str], number: int) -> None:
        self.references.extend((kind, target, number) for target in targets)

    def generic_line(self, line: str, number: int) -> None:
        """One line by the generic rules (an :class:`InputError` if malformed)."""
        path = self.path
        fields = line.split("\t")
        ann_id = fields[0].strip()
        kind = ann_id[:1]
        if not ann_id or kind not in "TNAMR*E#" or len(fields) < 2 or not fields[1].strip():
            what = "the annotation id is empty" if not ann_id else "not a brat annotation line"
            raise InputError(
                f"{what}: {line[:60]!r} (expected ID<TAB>...; IDs start with T, N, A, M, R, E, "
                "* or #)",
                path,
                number,
            )
        body = fields[1].split()
        if kind == "T":
            if len(body) < 3:
                raise InputError(
                    f"entity line needs 'TYPE START END', found {fields[1]!r}", path, number
                )
            after_type = fields[1][len(fields[1]) - len(fields[1].lstrip()) :][len(body[0]) :]
            after_type = after_type.strip()
            matched = _OFFSETS.match(after_type)
            if matched is None:
                _fragments(after_type, path, number)  # raises, saying what is wrong
                raise InputError(f"bad offsets {after_type!r}", path, number)
            fragments = _fragments(matched.group(1), path, number)
            mention_text = self.spaced_text(matched.group(2), fields, line, number)
            self.entity(ann_id, body[0], fragments, mention_text, number)
        elif kind == "N":
            if len(body) != 3 or ":" not in body[2]:
                raise InputError(
                    f"normalisation needs 'TYPE TARGET RESOURCE:ID', found {fields[1]!r}",
                    path,
                    number,
                )
            resource, _, reference = body[2].partition(":")
            self.refers(kind, body[1:2], number)
            self.normalizations.append(
                Normalization(ann_id, body[0], body[1], resource, reference, "\t".join(fields[2:]))
            )
        elif kind in "AM":
            if len(body) not in (2, 3):
                raise InputError(
                    f"attribute needs 'NAME TARGET [VALUE]', found {fields[1]!r}", path, number
                )
            self.refers(kind, body[1:2], number)
            self.attributes.append(
                Attribute(ann_id, body[0], body[1], body[2] if len(body) == 3 else None)
            )
        elif kind == "R":
            arguments = _arguments(body[1:], path, number)
            if len(arguments) != 2:
                raise InputError(
                    f"relation needs 'TYPE Arg1:ID Arg2:ID', found {fields[1]!r}", path, number
                )
            self.refers(kind, [target for _, target in arguments], number)
            self.relations.append(Relation(ann_id, body[0], arguments))
        elif kind == "*":
            if len(body) < 3:
                raise InputError(
                    f"equivalence needs 'TYPE ID ID ...', found {fields[1]!r}", path, number
                )
            self.refers(kind, body[1:], number)
            self.relations.append(Relation(ann_id, body[0], tuple(("Arg", t) for t in body[1:])))
        elif kind == "E":
            etype, sep, trigger = body[0].partition(":")
            if not sep or not etype or not trigger:
                raise InputError(
                    f"event needs 'TYPE:TRIGGER ROLE:ID ...', found {fields[1]!r}", path, number
                )
            arguments = _arguments(body[1:], path, number)
            self.refers(kind, [trigger, *(target for _, target in arguments)], number)
            self.events.append(Event(ann_id, etype, trigger, arguments))
        else:  # '#'
            if len(body) != 2:
                raise InputError(
                    f"note needs 'TYPE TARGET<TAB>TEXT', found {fields[1]!r}", path, number
                )
            self.refers(kind, body[1:2], number)
            self.notes.append(Note(ann_id, body[0], body[1], "\t".join(fields[2:])))
        self.check_id(ann_id, kind, number)  # a line that is not read defines no id

    def spaced_text(self, spaced: str | None, fields: list[str], line: str, number: int) -> str:
        """An entity's text: its third field, after the text that followed its offsets after a
        space (``spaced``, tolerated with a warning)."""
        text = "\t".join(fields[2:])
        if spaced:
            self.tolerances.add("brat.space-text", number, line)
            text = spaced + ("\t" + text if text else "")
        return text

    def official_line(self, line: str, number: int) -> None:
        """One line as the official PharmaCoNER script reads it (see
        :mod:`annoscore.formats.brat`)."""
        stripped = line.strip()
        indented = bool(stripped) and line[:1].isspace()
        if not stripped.startswith("T"):
            if stripped.startswith(BOM):
                if stripped[1:].lstrip().startswith("T"):  # not 'T' for the script: no entity
                    self.tolerances.add("pharmaconer.bom-line", number, line)
                    return
                stripped = stripped[1:]
            try:
                self.generic_line(stripped, number)
            except InputError:
                self.tolerances.add("pharmaconer.ignored-line", number, line)
                return
            if indented:
                self.tolerances.add("pharmaconer.indented", number, line)
            return
        if indented:
            self.tolerances.add("pharmaconer.indented", number, line)
        fields = stripped.split("\t")
        words = fields[1].split() if len(fields) > 1 else []
        if len(words) < 3:
            self.tolerances.add("pharmaconer.unsplittable", number, line)
            return
        ann_id = fields[0]
        self.check_id(ann_id, "T", number)
        offsets = fields[1][fields[1].index(words[0]) + len(words[0]) :].strip()
        matched = _OFFSETS.match(offsets)
        if matched is not None and ";" in matched.group(1):
            self.tolerances.add("pharmaconer.discontinuous", number, line)
            fragments = _fragments(matched.group(1), self.path, number)
            spaced = matched.group(2)
        elif ";" in words[2]:
            raise InputError(
                f"bad discontinuous offsets {offsets!r} (the official script stops here)",
                self.path,
                number,
            )
        else:
            start, plain_start = _official_int(words[1], offsets, self.path, number)
            end, plain_end = _official_int(words[2], offsets, self.path, number)
            if not (plain_start and plain_end):
                self.tolerances.add("pharmaconer.number", number, line)
            if end < start:
                self.tolerances.add("pharmaconer.reversed", number, line)
            elif end == start:
                self.tolerances.add("pharmaconer.empty-span", number, line)
            fragments = ((start, end),)
            spaced = None
            if len(words) > 3:
                after = _AFTER_THREE_WORDS.match(fields[1].strip())
                spaced = after.group(1) if after is not None else None
        # the text as written: the official script strips the line, but reads no text
        as_written = fields if stripped == line else line.lstrip().split("\t")
        text = self.spaced_text(spaced, as_written, line, number)
        self.entity(ann_id, words[0], fragments, text, number)

    def check_references(self) -> None:
        """Every annotation refers to an annotation of the file (generic rules)."""
        for kind, target, number in self.references:
            if target not in self.seen_ids:
                raise InputError(
                    f"the {_REFERRING[kind]} refers to {target[:40]!r}, which no annotation of "
                    "the file defines",
                    self.path,
                    number,
                )


def parse_lines(
    content: str,
    path: str,
    doc_id: str,
    dialect: Dialect,
    strict_input: bool,
    text: str | None = None,
) -> AnnFile:
    """One ``.ann`` file's ``content`` read line by line in ``dialect``; ``text``, the
    document's ``.txt``, checks the entity texts (a warning for each that differs)."""
    if "\x00" in content:
        check_no_nul(content, Path(path))
    tolerances = _Tolerances(path, strict_input)
    warnings: list[ScoreWarning] = []
    if content.startswith(BOM) and dialect == "brat":
        if strict_input:
            raise InputError(
                "the file begins with a UTF-8 byte-order mark (--strict-input refuses it)", path, 1
            )
        content = content[1:]
        warnings.append(bom_warning([str(path)]))
    builder = _Builder(path, dialect, tolerances)
    read = builder.official_line if dialect == "pharmaconer" else builder.generic_line
    for number, raw in enumerate(content.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip() and not line.startswith(BOM):
            continue
        read(line, number)
    if dialect == "brat":
        builder.check_references()
    if builder.repeated_ids:
        warnings.append(
            ScoreWarning(
                "brat.repeated-id",
                "{count} annotation id(s) are already used earlier in the same file "
                "(both annotations are kept)",
                len(builder.repeated_ids),
                tuple(builder.repeated_ids[:EXAMPLES_SHOWN]),
            )
        )
    warnings.extend(tolerances.warnings())
    file = AnnFile(
        doc_id,
        path,
        builder.ids,
        builder.types,
        builder.starts,
        builder.ends,
        builder.texts,
        builder.lines,
        builder.fragments,
        text,
        tuple(builder.normalizations),
        tuple(builder.attributes),
        tuple(builder.relations),
        tuple(builder.events),
        tuple(builder.notes),
        warnings,
    )
    if text is not None:
        wrong = _check_texts(text, file.starts, file.ends, file.texts, file.fragments)
        if wrong:
            file.warnings.extend(_text_warnings(path, file, text, wrong))
    return file


def _check_texts(
    text: str,
    starts: Sequence[int],
    ends: Sequence[int],
    found: Sequence[str],
    frags: list[Fragments] | None,
) -> list[int]:
    """Positions of the entities whose text differs from the ``.txt`` (one list comparison when
    all agree)."""
    if frags is None:
        expected = [text[s:e] for s, e in zip(starts, ends, strict=True)]
    else:
        expected = [" ".join(text[s:e] for s, e in f) for f in frags]
    if expected == found and (not ends or max(ends) <= len(text)):
        return []
    return [
        k
        for k, (want, got, end) in enumerate(zip(expected, found, ends, strict=True))
        if want != got or end > len(text)
    ]


def _text_warnings(path: str, file: AnnFile, text: str, wrong: list[int]) -> list[ScoreWarning]:
    past = [k for k in wrong if file.ends[k] > len(text)]
    differ = [k for k in wrong if file.ends[k] <= len(text)]
    out = []
    if past:
        out.append(
            ScoreWarning(
                "brat.past-end",
                "{count} entit(ies) run past the end of the .txt",
                len(past),
                tuple(place(path, file.line_of(k)) for k in past[:EXAMPLES_SHOWN]),
            )
        )
    if differ:
        examples = []
        for k in differ[:EXAMPLES_SHOWN]:
            frags = file.entity_fragments()[k]
            want = " ".join(text[s:e] for s, e in frags)
            examples.append(
                f"{place(path, file.line_of(k))}: {file.texts[k][:20]!r}, .txt {want[:20]!r}"
            )
        out.append(
            ScoreWarning(
                "brat.text-mismatch",
                "{count} entit(ies) have a text that differs from the .txt at their offsets",
                len(differ),
                tuple(examples),
            )
        )
    return out
