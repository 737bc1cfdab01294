"""brat standoff (``.ann``) files, read properly and fast.

One annotation per line, fields separated by tabs::

    T1<TAB>Drug 10 20;25 30<TAB>aspirin tablets     entity; fragments separated by ';'
    N1<TAB>Reference T1 SNOMED:387458008<TAB>aspirin  normalisation
    A1<TAB>Negated T1        M1<TAB>Confidence T2 High    attribute (binary or valued)
    R1<TAB>Dose Arg1:T1 Arg2:T2                            relation
    *<TAB>Equiv T1 T2                                      equivalence set
    E1<TAB>Treat:T3 Theme:T1                               event
    #1<TAB>AnnotatorNotes T1<TAB>387458008                 note

Two readings of the same files (``dialect``):

``"brat"`` (the generic commands, :func:`read_ann`): blank lines are skipped and any other
malformed line is an :class:`InputError` naming file and line: an empty id, offsets that are not
ASCII digits (``int()`` would take Arabic-Indic digits or ``1_0``), a fragment with ``end <=
start`` (zero-length or reversed), offsets above :data:`MAX_OFFSET`, a NUL byte.  Tolerated,
each with a warning naming file and line: a UTF-8 byte-order mark (removed), an entity whose
text follows the offsets after a space instead of a tab (``T1<TAB>Drug 10 17 aspirin``: read
as text), a repeated annotation id, and an entity text that differs from the ``.txt`` at its
offsets (fragments joined by one space, brat's convention).

``"pharmaconer"`` (the PharmaCoNER presets): entity lines are read as the official script reads
them.  It strips each line, takes the lines that then begin with ``T``, splits them at tabs and
reads ``TYPE START END`` from the second field with Python's ``int()``.  So, each tolerated line
a warning naming file and line (``strict_input=True`` makes it an :class:`InputError`):

- a ``T`` line it cannot split (a space instead of the tab after the id, a tab between the type
  and the offsets, fewer than three words) is skipped, as the script skips it with its
  "ERROR!" message;
- an indented line is read; a line beginning with a byte-order mark is dropped (the script
  does not recognise it as an entity);
- offsets ``int()`` reads but that are not plain ASCII digits (``+5``, Arabic-Indic digits),
  reversed offsets (``10 8``) and zero-length spans are kept as written and compared as
  written;
- a discontinuous entity (``10 20;25 30``) is read (the script stops with an error on it);
- a non-entity line the generic reading rejects is ignored, as the script ignores it.

Offsets that even ``int()`` cannot read stop the official script: an :class:`InputError`.

Offsets count characters of the ``.txt`` exactly as stored (``\\r\\n`` counts two).  Lines end at
``\\n`` only (a trailing ``\\r`` is dropped): U+2028 or a form feed inside a text is text.

Speed, three paths that give the same result:

- a folder (:func:`read_brat_corpus`): every file is read with one ``os.read``; the ``.ann``
  files whose every line is a plain continuous entity line ``T<id><TAB>TYPE START END<TAB>text``
  (the usual output of a system; ids increasing, ASCII names and digits, the text as in an ASCII
  ``.txt``) are scanned together, a few megabytes at a time, in numpy arrays: positions of the
  newlines, tabs and spaces, offsets parsed eight digits at once, entity texts compared with
  the ``.txt`` eight bytes at once, type names numbered by their bytes.  No Python code runs
  per line; the entities of the folder become one :class:`EntityBlock` (starts, ends, type
  codes) and each file an :class:`AnnFile` whose columns are built only if asked for
  (:attr:`AnnFile.rows` says which rows are its own).  Any other file, and any file the scan
  finds the least thing unusual in, is read by the per-file paths below, which give its errors
  and warnings;
- a file (:func:`_fast`): a plain file is split at tabs and newlines in one go;
- the line-by-line path (:class:`_Builder`) reads everything else, line by line.

Entities are kept as columns (:class:`AnnFile`); :class:`~annoscore.model.Mention` objects are
built only when asked for (:meth:`AnnFile.document`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from operator import sub
from pathlib import Path
from sys import intern
from typing import Any, Literal, overload

from annoscore.errors import InputError
from annoscore.formats.files import BOM, check_no_nul, folder_files, read_text
from annoscore.model import (
    AnnotatedDocument,
    Attribute,
    Event,
    Mention,
    Normalization,
    Note,
    Relation,
    Span,
)
from annoscore.result import EXAMPLE_LENGTH, EXAMPLES_SHOWN, ScoreWarning, merge_warnings

Dialect = Literal["brat", "pharmaconer"]
Fragments = tuple[tuple[int, int], ...]

MAX_OFFSET = 2**53
"""Offsets above this are an input error (no text is that long; larger numbers would overflow
the 64-bit arrays of the span modes)."""

_OFFSETS = re.compile(r"([0-9]+[ \t]+[0-9]+(?:[ \t]*;[ \t]*[0-9]+[ \t]+[0-9]+)*)(?:[ \t]+(.*))?$")
"""Offsets ``START END(;START END)*`` and, leniently, text after them on the same field."""

# What each tolerated line becomes: (warning code, what was seen, what was done).
_TOLERATED: dict[str, tuple[str, str]] = {
    "brat.space-text": (
        "entity line(s) separate the text from the offsets with a space instead of a tab",
        "read as text",
    ),
    "pharmaconer.unsplittable": (
        "entity line(s) cannot be split as TYPE START END after the first tab (a space "
        "instead of the tab after the id, a tab inside the offsets, or missing offsets)",
        "skipped, as the official script skips them with its 'ERROR!' message",
    ),
    "pharmaconer.indented": (
        "line(s) begin with whitespace",
        "read after stripping it, as the official script does",
    ),
    "pharmaconer.bom-line": (
        "entity line(s) begin with a UTF-8 byte-order mark",
        "left out: the official script does not recognise them as entities",
    ),
    "pharmaconer.number": (
        "offset(s) are not plain ASCII digits (a sign, other digits, '_')",
        "read with Python's int(), as the official script reads them",
    ),
    "pharmaconer.reversed": (
        "entity line(s) have an end before their start",
        "kept and compared as written, as the official script does",
    ),
    "pharmaconer.empty-span": (
        "entity line(s) have a zero-length span (end = start)",
        "kept and compared as written, as the official script does",
    ),
    "pharmaconer.discontinuous": (
        "discontinuous entity line(s) (START END;START END)",
        "read; each matches only an entity with the same fragments "
        "(the official script stops with an error on them)",
    ),
    "pharmaconer.ignored-line": (
        "line(s) are neither entities nor valid brat annotations",
        "ignored, as the official script ignores every line not starting with T",
    ),
}


def tolerated_warning(code: str, count: int, examples: tuple[str, ...]) -> ScoreWarning:
    """The warning of ``count`` tolerated lines of one kind (``code``), a few quoted."""
    seen, done = _TOLERATED[code]
    return ScoreWarning(code, "{count} " + f"{seen}: {done}", count, examples, tolerated=True)


def place(path: Path | str, line: int) -> str:
    """``name:line``, the short form warnings quote (the examples are capped in length)."""
    return f"{Path(path).name}:{line}"


def _excerpt(line: str) -> str:
    return repr(line[: EXAMPLE_LENGTH // 2])


@dataclass(slots=True)
class _Tolerances:
    """Tolerated lines of one file, counted per kind (or refused with ``strict``)."""

    path: Path
    strict: bool
    seen: dict[str, list[str]] = field(default_factory=dict)

    def add(self, code: str, line_number: int, line: str) -> None:
        if self.strict:
            seen, done = _TOLERATED[code]
            raise InputError(
                f"{seen.split(' ', 1)[-1]}: {_excerpt(line)} (the default would warn: {done}; "
                "--strict-input refuses it)",
                self.path,
                line_number,
            )
        self.seen.setdefault(code, []).append(place(self.path, line_number))

    def warnings(self) -> list[ScoreWarning]:
        return [
            tolerated_warning(code, len(places), tuple(places[:EXAMPLES_SHOWN]))
            for code, places in self.seen.items()
        ]


@dataclass(slots=True)
class AnnFile:
    """The annotations of one ``.ann`` file, entities as columns (one entry per entity line).

    ``starts``/``ends`` are the outer bounds (as written in the ``pharmaconer`` dialect, where
    they may be reversed); ``fragments[k]`` is set only when some entity is discontinuous.
    ``warnings`` are structured (:class:`~annoscore.result.ScoreWarning`) and name file and
    line.  ``rows`` is set for a file read by the whole-folder path: its entities are rows
    ``rows.lo:rows.hi`` of the folder's :class:`EntityBlock` arrays, and its column sequences
    are built from the file only when used.
    """

    id: str
    path: str
    ids: Sequence[str]
    types: Sequence[str]
    starts: Sequence[int]
    ends: Sequence[int]
    texts: Sequence[str]
    lines: list[int] | None = None
    fragments: list[Fragments] | None = None
    text: str | None = None
    normalizations: tuple[Normalization, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    notes: tuple[Note, ...] = ()
    warnings: list[ScoreWarning] = field(default_factory=list)
    rows: FileRows | None = None

    def __len__(self) -> int:
        return len(self.types)

    def line_of(self, k: int) -> int:
        """The line number of entity ``k``."""
        return self.lines[k] if self.lines is not None else k + 1

    def entity_fragments(self) -> list[Fragments]:
        """Every entity's fragments (``((start, end),)`` for a continuous one)."""
        if self.fragments is not None:
            return self.fragments
        return [((s, e),) for s, e in zip(self.starts, self.ends, strict=True)]

    @property
    def has_discontinuous(self) -> bool:
        return self.fragments is not None and any(len(f) > 1 for f in self.fragments)

    def mentions(self) -> tuple[Mention, ...]:
        """The entities as :class:`~annoscore.model.Mention` objects (built on demand).

        Reversed offsets (read only in the ``pharmaconer`` dialect) have no span: an
        :class:`InputError` naming the line.
        """
        out = []
        for k, fragments in enumerate(self.entity_fragments()):
            try:
                span = Span(fragments)
            except ValueError:
                raise InputError(
                    f"offsets {fragments} cannot be compared in this mode (need 0 <= start <= "
                    "end; only the official strict mode compares them as written)",
                    self.path,
                    self.line_of(k),
                ) from None
            out.append(Mention(span, self.types[k], self.ids[k], self.texts[k], self.line_of(k)))
        return tuple(out)

    def without_type(self, name: str) -> tuple[AnnFile, int]:
        """This file without the entities of type ``name``, and how many were removed."""
        keep = [k for k, t in enumerate(self.types) if t != name]
        if len(keep) == len(self.types):
            return self, 0

        smaller = replace(
            self,
            ids=[self.ids[k] for k in keep],
            types=[self.types[k] for k in keep],
            starts=[self.starts[k] for k in keep],
            ends=[self.ends[k] for k in keep],
            texts=[self.texts[k] for k in keep],
            lines=[self.line_of(k) for k in keep],
            fragments=None if self.fragments is None else [self.fragments[k] for k in keep],
            rows=None,
        )
        return smaller, len(self.types) - len(keep)

    def merged(self, other: AnnFile) -> AnnFile:
        """Two files read as one document (the official plain script's system folder)."""
        lines = [self.line_of(k) for k in range(len(self))]
        lines += [other.line_of(k) for k in range(len(other))]
        return replace(
            self,
            ids=[*self.ids, *other.ids],
            types=[*self.types, *other.types],
            starts=[*self.starts, *other.starts],
            ends=[*self.ends, *other.ends],
            texts=[*self.texts, *other.texts],
            lines=lines,
            fragments=self.entity_fragments() + other.entity_fragments(),
            notes=self.notes + other.notes,
            normalizations=self.normalizations + other.normalizations,
            attributes=self.attributes + other.attributes,
            relations=self.relations + other.relations,
            events=self.events + other.events,
            warnings=self.warnings + other.warnings,
            rows=None,
        )

    def document(self) -> AnnotatedDocument:
        """The file as an :class:`~annoscore.model.AnnotatedDocument` (warnings as sentences)."""
        return AnnotatedDocument(
            id=self.id,
            mentions=self.mentions(),
            text=self.text,
            normalizations=self.normalizations,
            attributes=self.attributes,
            relations=self.relations,
            events=self.events,
            notes=self.notes,
            path=self.path,
            warnings=tuple(_warning_sentence(w) for w in self.warnings),
        )


def _warning_sentence(warning: ScoreWarning) -> str:
    text = warning.message.replace("{count}", str(warning.count))
    if warning.examples:
        text = f"{', '.join(warning.examples)}: {text}"
    return text


# ----------------------------------------------------------------------------- line parsing


def _number(token: str, offsets: str, path: Path, line: int) -> int:
    if not (token.isascii() and token.isdigit()):
        raise InputError(
            f"bad offsets {offsets!r}: offsets must be whole numbers in ASCII digits", path, line
        )
    value = int(token)
    if value > MAX_OFFSET:
        raise InputError(f"offset {token[:30]} is beyond any text (above 2^53)", path, line)
    return value


def _fragments(offsets: str, path: Path, line: int) -> Fragments:
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


def _arguments(tokens: list[str], path: Path, line: int) -> tuple[tuple[str, str], ...]:
    arguments = []
    for token in tokens:
        role, sep, target = token.partition(":")
        if not sep or not role or not target:
            raise InputError(f"bad argument {token!r}: expected ROLE:ID", path, line)
        arguments.append((role, target))
    return tuple(arguments)


def _official_int(token: str, offsets: str, path: Path, line: int) -> tuple[int, bool]:
    """``int(token)`` as the official script reads it, and whether it was plain ASCII digits."""
    try:
        value = int(token)
    except ValueError:
        raise InputError(
            f"bad offsets {offsets!r}: not a number (the official script stops here)", path, line
        ) from None
    if abs(value) > MAX_OFFSET:
        raise InputError(f"offset {token[:30]} is beyond any text (above 2^53)", path, line)
    return value, token.isascii() and token.isdigit()


@dataclass(slots=True)
class _Builder:
    """Collects one file's annotations line by line (the general path)."""

    path: Path
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
        self.check_id(ann_id, kind, number)
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
            mention_text = "\t".join(fields[2:])
            if matched.group(2) is not None:
                self.tolerances.add("brat.space-text", number, line)
                mention_text = matched.group(2) + ("\t" + mention_text if mention_text else "")
            self.entity(ann_id, body[0], fragments, mention_text, number)
        elif kind == "N":
            if len(body) != 3 or ":" not in body[2]:
                raise InputError(
                    f"normalisation needs 'TYPE TARGET RESOURCE:ID', found {fields[1]!r}",
                    path,
                    number,
                )
            resource, _, reference = body[2].partition(":")
            self.normalizations.append(
                Normalization(ann_id, body[0], body[1], resource, reference, "\t".join(fields[2:]))
            )
        elif kind in "AM":
            if len(body) not in (2, 3):
                raise InputError(
                    f"attribute needs 'NAME TARGET [VALUE]', found {fields[1]!r}", path, number
                )
            self.attributes.append(
                Attribute(ann_id, body[0], body[1], body[2] if len(body) == 3 else None)
            )
        elif kind == "R":
            arguments = _arguments(body[1:], path, number)
            if len(arguments) != 2:
                raise InputError(
                    f"relation needs 'TYPE Arg1:ID Arg2:ID', found {fields[1]!r}", path, number
                )
            self.relations.append(Relation(ann_id, body[0], arguments))
        elif kind == "*":
            if len(body) < 3:
                raise InputError(
                    f"equivalence needs 'TYPE ID ID ...', found {fields[1]!r}", path, number
                )
            self.relations.append(Relation(ann_id, body[0], tuple(("Arg", t) for t in body[1:])))
        elif kind == "E":
            etype, sep, trigger = body[0].partition(":")
            if not sep or not etype or not trigger:
                raise InputError(
                    f"event needs 'TYPE:TRIGGER ROLE:ID ...', found {fields[1]!r}", path, number
                )
            self.events.append(Event(ann_id, etype, trigger, _arguments(body[1:], path, number)))
        else:  # '#'
            if len(body) != 2:
                raise InputError(
                    f"note needs 'TYPE TARGET<TAB>TEXT', found {fields[1]!r}", path, number
                )
            self.notes.append(Note(ann_id, body[0], body[1], "\t".join(fields[2:])))

    def official_line(self, line: str, number: int) -> None:
        """One line as the official PharmaCoNER script reads it (see the module doc)."""
        stripped = line.strip()
        indented = bool(stripped) and line[:1].isspace()
        if not stripped.startswith("T"):
            if stripped.startswith(BOM):
                if stripped[1:2] == "T":
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
        if ";" in words[2] or (len(words) > 3 and words[3].startswith(";")):
            self.tolerances.add("pharmaconer.discontinuous", number, line)
            matched = _OFFSETS.match(offsets)
            if matched is None:
                raise InputError(f"bad discontinuous offsets {offsets!r}", self.path, number)
            fragments = _fragments(matched.group(1), self.path, number)
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
        self.entity(ann_id, words[0], fragments, "\t".join(fields[2:]), number)


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


def _text_warnings(path: Path, file: AnnFile, text: str, wrong: list[int]) -> list[ScoreWarning]:
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


def _fast(content: str, path: str, doc_id: str) -> AnnFile | None:
    """The whole-file path: every line a plain continuous entity line
    ``T<id><TAB>TYPE START END<TAB>text`` (one space between the words, ASCII digits, no other
    whitespace in id and type), ids distinct, spans non-empty and within bounds; otherwise
    ``None`` (the line path decides, and gives the same result where this one succeeds).

    The file is split at tabs and newlines in one go and its columns taken by slicing, so no
    Python code runs per line except ``int()``."""
    if not content:
        return AnnFile(doc_id, path, [], [], [], [], [])
    if "\r" in content or "\x00" in content:
        return None
    body = content[:-1] if content[-1] == "\n" else content
    n = body.count("\n") + 1
    if body[:1] != "T" or body.count("\nT") != n - 1:
        return None  # a line that is not an entity, or is indented
    if list(map(str.count, body.split("\n"), repeat("\t"))).count(2) != n:
        return None  # not three tab-separated fields on every line
    flat = body.replace("\n", "\t").split("\t")
    ids, middles, texts = flat[0::3], flat[1::3], flat[2::3]
    if list(map(str.count, middles, repeat(" "))).count(2) != n:
        return None  # not 'TYPE START END' with one space between the words
    words = " ".join(middles).split(" ")
    types, start_texts, end_texts = words[0::3], words[1::3], words[2::3]
    digits = "".join(start_texts) + "".join(end_texts)
    if not (digits.isascii() and digits.isdigit()):
        return None
    names = "".join(ids) + "".join(types)
    if " " in names or not names.isprintable() or "" in types or len(set(ids)) != n:
        return None  # an empty type, whitespace in an id or a type, a repeated id
    try:
        starts, ends = list(map(int, start_texts)), list(map(int, end_texts))
    except ValueError:  # an empty offset
        return None
    if max(ends) > MAX_OFFSET or min(map(sub, ends, starts)) <= 0:
        return None  # huge, zero-length or reversed: the line path says which line
    types = list(map(intern, types))  # a few names shared by every entity: one string each
    return AnnFile(doc_id, path, ids, types, starts, ends, texts)


def parse_ann_file(
    content: str,
    path: Path | str,
    doc_id: str | None = None,
    text: str | None = None,
    *,
    dialect: Dialect = "brat",
    strict_input: bool = False,
) -> AnnFile:
    """Parse an ``.ann`` file's content into columns; ``text`` is the document text to check
    offsets against (see the module doc for ``dialect`` and ``strict_input``)."""
    name = os.fspath(path)
    doc_id = doc_id if doc_id is not None else os.path.splitext(os.path.basename(name))[0]
    file = _fast(content, name, doc_id) if content[:1] != BOM else None
    if file is None:
        file = _parse_lines(content, Path(name), doc_id, dialect, strict_input)
    if text is not None:
        file.text = text
        wrong = _check_texts(text, file.starts, file.ends, file.texts, file.fragments)
        if wrong:
            file.warnings.extend(_text_warnings(Path(name), file, text, wrong))
    return file


def _parse_lines(
    content: str, path: Path, doc_id: str, dialect: Dialect, strict_input: bool
) -> AnnFile:
    check_no_nul(content, path)
    tolerances = _Tolerances(path, strict_input)
    warnings: list[ScoreWarning] = []
    if content.startswith(BOM) and dialect == "brat":
        if strict_input:
            raise InputError(
                "the file begins with a UTF-8 byte-order mark (--strict-input refuses it)", path, 1
            )
        content = content[1:]
        warnings.append(
            ScoreWarning(
                "formats.bom",
                "{count} file(s) began with a UTF-8 byte-order mark, removed before reading",
                1,
                (str(path),),
                tolerated=True,
            )
        )
    builder = _Builder(path, dialect, tolerances)
    read = builder.official_line if dialect == "pharmaconer" else builder.generic_line
    for number, raw in enumerate(content.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip() and not line.startswith(BOM):
            continue
        read(line, number)
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
    return AnnFile(
        doc_id,
        str(path),
        builder.ids,
        builder.types,
        builder.starts,
        builder.ends,
        builder.texts,
        builder.lines,
        builder.fragments,
        None,
        tuple(builder.normalizations),
        tuple(builder.attributes),
        tuple(builder.relations),
        tuple(builder.events),
        tuple(builder.notes),
        warnings,
    )


def parse_ann(
    content: str, path: Path, doc_id: str | None = None, text: str | None = None
) -> AnnotatedDocument:
    """Parse an ``.ann`` file's content (generic rules) into an
    :class:`~annoscore.model.AnnotatedDocument`; ``text`` checks the offsets."""
    return parse_ann_file(content, path, doc_id, text).document()


# ------------------------------------------------------------------------------ files, folders


def _decoded(path: str) -> str:
    """The UTF-8 text of ``path``; any problem is left to :func:`read_text` to name."""
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return read_text(Path(path))  # raises, naming the file (and line)


def read_ann_file(
    path: Path | str,
    text_path: Path | None = None,
    *,
    check_text: bool = True,
    dialect: Dialect = "brat",
    strict_input: bool = False,
    doc_id: str | None = None,
) -> AnnFile:
    """Read one ``.ann`` file; the ``.txt`` beside it (or ``text_path``) checks the offsets."""
    name = os.fspath(path)
    content = _decoded(name)
    text = None
    if check_text:
        candidate = os.fspath(text_path) if text_path is not None else name[:-4] + ".txt"
        if text_path is None and not name.endswith(".ann"):
            candidate = os.path.splitext(name)[0] + ".txt"
        try:
            with open(candidate, "rb") as handle:
                data = handle.read()
        except OSError:
            if text_path is not None:
                raise InputError("no such text file", text_path) from None
        else:
            text = data.decode("utf-8") if data.isascii() else read_text(Path(candidate))
    if doc_id is None:
        doc_id = os.path.splitext(os.path.basename(name))[0]
    return parse_ann_file(content, name, doc_id, text, dialect=dialect, strict_input=strict_input)


def read_ann(
    path: Path, text_path: Path | None = None, *, check_text: bool = True
) -> AnnotatedDocument:
    """Read one ``.ann`` file (generic rules); the ``.txt`` beside it (or ``text_path``)
    checks the offsets."""
    return read_ann_file(path, text_path, check_text=check_text).document()


# ------------------------------------------------------------------------- whole-folder path


@dataclass(slots=True)
class EntityBlock:
    """The entities of the files read by the whole-folder path, as numpy arrays (one row per
    entity, files one after another): ``starts``, ``ends`` and ``type_codes`` (positions in
    ``type_names``).  A file's :attr:`AnnFile.rows` says which rows are its own."""

    starts: Any
    ends: Any
    type_codes: Any
    type_names: list[str]


class FileRows:
    """Rows ``lo:hi`` of an :class:`EntityBlock`: one file's entities.  Its columns as lists
    are built only when asked for, by :func:`_fast` on the file's bytes (which reads every file
    the whole-folder path takes, to the same columns)."""

    __slots__ = ("block", "data", "doc_id", "hi", "lo", "parsed", "path")

    def __init__(self, block: EntityBlock, lo: int, hi: int, data: bytes, path: str, doc_id: str):
        self.block, self.lo, self.hi = block, lo, hi
        self.data, self.path, self.doc_id = data, path, doc_id
        self.parsed: AnnFile | None = None

    def column(self, name: str) -> Sequence[Any]:
        if self.parsed is None:
            parsed = _fast(self.data.decode("utf-8"), self.path, self.doc_id)
            if parsed is None or len(parsed) != self.hi - self.lo:  # pragma: no cover
                raise AssertionError(f"{self.path}: the whole-folder path and _fast disagree")
            self.parsed = parsed
        return getattr(self.parsed, name)  # type: ignore[no-any-return]


class _Column(Sequence[Any]):
    """A column of a file read by the whole-folder path: its length is known, its items are
    built on first use."""

    __slots__ = ("_name", "_rows")

    def __init__(self, rows: FileRows, name: str) -> None:
        self._rows, self._name = rows, name

    def __len__(self) -> int:
        return self._rows.hi - self._rows.lo

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self._rows.column(self._name)[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows.column(self._name))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


_CHUNK_BYTES = 1 << 20
"""The whole-folder path scans the ``.ann`` bytes about this many at a time, and leaves larger
files to the per-file path (its arrays take up to ~16 bytes per scanned byte)."""

_PAD = b"00000000"
"""Eight bytes before and after the scanned bytes: every 8-byte word read is inside."""

_MAX_TYPE_BYTES = 64
_LOW_BYTES = tuple((1 << (8 * k)) - 1 for k in range(9))
"""``_LOW_BYTES[k]`` keeps the ``k`` lowest bytes of a 64-bit word."""


def _words(buf: Any, at: Any) -> Any:
    """The eight bytes ``buf[at[k]:at[k] + 8]`` of each ``k`` as little-endian 64-bit words."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    return sliding_window_view(buf, 8)[at].view(np.dtype("<u8")).ravel()


def _low_bytes(count: Any) -> Any:
    """Masks keeping the ``count`` lowest bytes of a 64-bit word (all of them from 8 up)."""
    import numpy as np

    return np.array(_LOW_BYTES, dtype=np.uint64)[np.clip(count, 0, 8)]


def _eight_digits(buf: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """The numbers written in ``buf[lo[k]:hi[k]]`` (1 to 8 bytes, ``lo >= 8``) and whether
    each is all ASCII digits: eight bytes at once per number (SIMD within a register)."""
    import numpy as np

    u = np.uint64
    word = _words(buf, hi - 8)  # the number in its last bytes, what precedes it first
    number = ~_low_bytes(8 - (hi - lo))
    word &= number  # leading zeros instead of what precedes the number
    zeros = u(0x3030303030303030) & number
    high = u(0xF0F0F0F0F0F0F0F0)
    digits_only = (word & high == zeros) & (
        (word + (u(0x0606060606060606) & number)) & high == zeros
    )
    value = word - zeros
    value = (value * u(10) + (value >> u(8))) & u(0x00FF00FF00FF00FF)
    value = (value * u(100) + (value >> u(16))) & u(0x0000FFFF0000FFFF)
    value = (value * u(10000) + (value >> u(32))) & u(0xFFFFFFFF)
    return value.view(np.int64), digits_only


def _digits(buf: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """The numbers written in ``buf[lo[k]:hi[k]]`` (1 to 16 bytes, ``lo >= 8``) and whether
    each is all ASCII digits."""
    import numpy as np

    values, digits_only = _eight_digits(buf, np.maximum(lo, hi - 8), hi)
    longer = np.flatnonzero(hi - lo > 8)
    if longer.size:
        high, high_ok = _eight_digits(buf, lo[longer], hi[longer] - 8)
        values[longer] += high * 10**8
        digits_only[longer] &= high_ok
    return values, digits_only


def _ordered_words(buf: Any, lo: Any, hi: Any) -> Any:
    """``buf[lo[k]:hi[k]]`` (at most 8 bytes) as numbers ordered as the byte strings of one
    length are (big-endian, zero-filled in front)."""
    import numpy as np

    return (_words(buf, hi - 8) & ~_low_bytes(8 - (hi - lo))).byteswap().view(np.int64)


def _same_bytes(buf: Any, at: Any, other: Any, other_at: Any, lengths: Any) -> Any:
    """Whether ``buf[at[k]:at[k] + lengths[k]]`` equals ``other[other_at[k]:...]`` for each
    ``k``, eight bytes at a time (both buffers padded with 8 bytes at the end)."""
    import numpy as np

    differ = ((_words(buf, at) ^ _words(other, other_at)) & _low_bytes(lengths)) != 0
    same = ~differ
    left = np.flatnonzero(same & (lengths > 8))
    step = 8
    while left.size:
        remaining = lengths[left] - step
        differ = (
            (_words(buf, at[left] + step) ^ _words(other, other_at[left] + step))
            & _low_bytes(remaining)
        ) != 0
        same[left[differ]] = False
        left = left[~differ & (remaining > 8)]
        step += 8
    return same


def _few_codes(keys: Any, limit: int = 16) -> tuple[Any, Any] | None:
    """Codes of ``keys`` numbered by first appearance and the first position of each, by one
    comparison per distinct key; ``None`` if there are more than ``limit``."""
    import numpy as np

    codes = np.full(keys.size, -1, dtype=np.int64)
    firsts: list[int] = []
    position = 0
    while position < keys.size:
        if len(firsts) == limit:
            return None
        codes[keys == keys[position]] = len(firsts)
        firsts.append(position)
        unset = np.flatnonzero(codes[position:] < 0)
        position = position + int(unset[0]) if unset.size else keys.size
    return codes, np.array(firsts, dtype=np.int64)


def _type_keys(buf: Any, lo: Any, hi: Any) -> tuple[Any, list[bytes]]:
    """Codes of the names ``buf[lo[k]:hi[k]]`` (1 to 64 bytes) and the names, by code."""
    import numpy as np

    n = lo.size
    lengths = hi - lo
    n_words = max(1, -(-int(lengths.max(initial=1)) // 8))
    words = np.empty((n, n_words), dtype=np.uint64)
    for j in range(n_words):
        words[:, j] = _words(buf, lo + 8 * j) & _low_bytes(lengths - 8 * j)
    hashes = words[:, 0].copy()
    for j in range(1, n_words):
        hashes = hashes * np.uint64(0x9E3779B97F4A7C15) + words[:, j]
    few = _few_codes(hashes)
    if few is not None:
        codes, first = few
    else:
        distinct, codes = np.unique(hashes, return_inverse=True)
        codes = codes.reshape(-1)
        first = np.zeros(distinct.size, dtype=np.int64)
        first[codes[::-1]] = np.arange(n)[::-1]
    if not (words == words[first][codes]).all():  # two names share a hash: compare them
        _, first, codes = np.unique(words, axis=0, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
    names = [bytes(buf[lo[k] : hi[k]]) for k in first.tolist()]
    return codes, names


def _plain_chunk(big: bytes, file_ends: Any, texts: list[bytes | None]) -> tuple[Any, ...]:
    """Scan ``big`` (``.ann`` files one after another between two :data:`_PAD`, each file
    empty or ending with a newline; ``file_ends`` their cumulative ends in ``big``) in arrays,
    no Python code per line.

    Returns, per file, whether every line is a plain continuous entity line
    ``T<number><TAB>TYPE START END<TAB>text`` (ids increasing, no leading zero; id, type and
    offsets printable ASCII, one space between the words; ``0 <= start < end <= 2^53``; the
    text equal to the ``.txt``'s at its offsets when ``texts`` has the file's ASCII ``.txt``);
    and, for the lines of those files, their file, start, end and type code, with the type
    names.  Every such file is one :func:`_fast` reads to the same columns and
    :func:`_check_texts` finds no fault in; the others are left to the per-file path."""
    import numpy as np

    buf = np.frombuffer(big, dtype=np.uint8)
    size = buf.size - len(_PAD)
    file_bad = np.zeros(file_ends.size, dtype=bool)
    newlines = np.flatnonzero(buf == 10)
    n = newlines.size
    line_file = np.searchsorted(file_ends, newlines, side="right")
    line_starts = np.empty(n, dtype=np.int64)
    line_starts[:1] = len(_PAD)
    line_starts[1:] = newlines[:-1] + 1
    tabs = np.flatnonzero(buf == 9)
    if tabs.size == 2 * n:  # two per line if each line has its two in order
        tab1, tab2 = tabs[0::2], tabs[1::2]
        ok = (line_starts < tab1) & (tab2 < newlines)
        ok[:-1] &= tab1[1:] > newlines[:-1]
        if not ok.all():
            ok[:] = False  # some line has another count: every line is checked below
    else:
        ok = np.zeros(n, dtype=bool)
    if not ok.all():
        tab_line = np.searchsorted(newlines, tabs)
        ok = np.bincount(tab_line, minlength=n)[:n] == 2
        first_tab = np.minimum(np.searchsorted(tab_line, np.arange(n)), tabs.size)
        tabs = np.append(tabs, [size, size])
        tab1, tab2 = tabs[first_tab], tabs[first_tab + 1]
    spaces = np.flatnonzero(buf == 32)
    first_space = np.searchsorted(spaces, line_starts)
    spaces = np.append(spaces, [size, size, size])
    space1, space2, space3 = (spaces[first_space + k] for k in range(3))
    ok &= buf[line_starts] == 84  # 'T'
    ok &= (tab1 + 1 < space1) & (space1 + 1 < space2) & (space2 + 1 < tab2) & (tab2 < space3)
    ok &= (space2 - space1 <= 17) & (tab2 - space2 <= 17) & (space1 - tab1 <= _MAX_TYPE_BYTES + 1)
    ok &= tab1 - line_starts <= 8  # ids of 8 bytes at most ('T' and 7 more)
    # bytes other than printable ASCII, tab, space and newline: none in id, type and offsets;
    # \r and NUL nowhere in the file (the line path decides)
    odd = np.flatnonzero(((buf < 0x20) & (buf != 9) & (buf != 10)) | (buf > 0x7E))
    if odd.size:
        ok &= np.searchsorted(odd, tab2) == np.searchsorted(odd, line_starts)
        odd = odd[(buf[odd] == 13) | (buf[odd] == 0)]
        file_bad[np.searchsorted(file_ends, odd, side="right")] = True
    rows = np.flatnonzero(ok)
    m = rows.size
    space1, space2, tab1, tab2 = space1[rows], space2[rows], tab1[rows], tab2[rows]
    starts, good = _digits(buf, space1 + 1, space2)
    ends, ends_digits = _digits(buf, space2 + 1, tab2)
    good &= ends_digits & (ends > starts) & (ends <= MAX_OFFSET)
    row_file = line_file[rows]
    if m > 1:  # ids increase within a file (else the per-file path checks them)
        ids = _ordered_words(buf, line_starts[rows], tab1)
        id_sizes = tab1 - line_starts[rows]
        good[1:] &= (row_file[1:] != row_file[:-1]) | (
            (id_sizes[1:] > id_sizes[:-1])
            | ((id_sizes[1:] == id_sizes[:-1]) & (ids[1:] > ids[:-1]))
        )
    has_text = np.array([t is not None for t in texts], dtype=bool)
    checked = good & has_text[row_file]
    if checked.any():
        text_sizes = np.array([len(t) if t is not None else 0 for t in texts], dtype=np.int64)
        text_base = np.cumsum(text_sizes) - text_sizes
        text_buf = np.frombuffer(b"".join(t for t in texts if t) + _PAD, dtype=np.uint8)
        if not checked.all():
            at = np.flatnonzero(checked)
            owner, first, last = row_file[at], starts[at], ends[at]
            text_at, line_end = tab2[at] + 1, newlines[rows[at]]
        else:
            at, owner, first, last = None, row_file, starts, ends
            text_at, line_end = tab2 + 1, newlines[rows]
        lengths = last - first
        same = (line_end - text_at == lengths) & (last <= text_sizes[owner])  # fits, so far
        fit = None if same.all() else np.flatnonzero(same)
        if fit is not None:  # compare only what fits (the rest differs)
            owner, first, lengths, text_at = owner[fit], first[fit], lengths[fit], text_at[fit]
        equal = _same_bytes(buf, text_at, text_buf, text_base[owner] + first, lengths)
        if fit is None:
            same = equal
        else:
            same[fit] = equal
        if at is None:
            good &= same
        else:
            good[at[~same]] = False
    ok[rows[~good]] = False
    file_bad[line_file[~ok]] = True
    keep = good & ~file_bad[row_file]
    rows = rows[keep]
    codes, names = _type_keys(buf, tab1[keep] + 1, space1[keep])
    return ~file_bad, line_file[rows], starts[keep], ends[keep], codes, names


def _file_bytes(path: str) -> bytes | None:
    """The bytes of a file, or ``None`` if it cannot be read (the per-file path then says
    why).  ``os.read`` into one buffer: about twice as fast as ``open().read()`` for the many
    small files of a brat folder."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(handle, 1 << 16)
        if len(data) < 1 << 16:
            return data
        pieces = [data]
        while data:
            data = os.read(handle, 1 << 20)
            pieces.append(data)
        return b"".join(pieces)
    except OSError:
        return None
    finally:
        os.close(handle)


def _read_plain_files(
    names: list[str], text_names: list[str | None], doc_ids: list[str]
) -> list[AnnFile | None]:
    """The files the whole-folder path reads (plain continuous entities, the text as in the
    ``.txt`` where ``text_names`` names one), as :class:`AnnFile` sharing one
    :class:`EntityBlock`; ``None`` for every other file (the per-file path reads it, to the
    same columns, and gives its errors and warnings)."""
    import numpy as np

    contents = list(map(_file_bytes, names))
    texts: list[bytes | None] = []
    taken: list[int] = []
    for k, (data, text_name) in enumerate(zip(contents, text_names, strict=True)):
        text = None
        if data is None or (data and data[-1] != 10) or data.startswith(b"\xef\xbb\xbf"):
            continue
        if len(data) > _CHUNK_BYTES:  # a big file alone: the per-file path, in less memory
            continue
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
        if text_name is not None:
            text = _file_bytes(text_name)
            if text is None or not text.isascii():
                continue
        taken.append(k)
        texts.append(text)
    out: list[AnnFile | None] = [None] * len(names)
    block = EntityBlock(None, None, None, [])
    type_number: dict[bytes, int] = {}
    pieces: list[tuple[Any, Any, Any]] = []
    first_row = 0
    begin = 0
    while begin < len(taken):
        end, size = begin, 0
        while end < len(taken) and (size < _CHUNK_BYTES or end == begin):
            size += len(contents[taken[end]] or b"")
            end += 1
        chunk = taken[begin:end]
        chunk_texts = texts[begin:end]
        file_ends = len(_PAD) + np.cumsum([len(contents[k] or b"") for k in chunk])
        big = b"".join([_PAD, *(contents[k] or b"" for k in chunk), _PAD])
        file_ok, line_file, starts, ends, codes, type_names = _plain_chunk(
            big, file_ends, chunk_texts
        )
        remap = np.array(
            [type_number.setdefault(t, len(type_number)) for t in type_names], dtype=np.int64
        )
        pieces.append((starts, ends, remap[codes]))
        counts = np.bincount(line_file, minlength=len(chunk)).tolist()
        for k, text, good, count in zip(chunk, chunk_texts, file_ok.tolist(), counts, strict=True):
            if not good:
                continue
            rows = FileRows(
                block, first_row, first_row + count, contents[k] or b"", names[k], doc_ids[k]
            )
            first_row += count
            out[k] = AnnFile(
                doc_ids[k],
                names[k],
                _Column(rows, "ids"),
                _Column(rows, "types"),
                _Column(rows, "starts"),
                _Column(rows, "ends"),
                _Column(rows, "texts"),
                text=None if text is None else text.decode("ascii"),
                rows=rows,
            )
        begin = end
    empty = np.zeros(0, dtype=np.int64)
    block.starts = np.concatenate([p[0] for p in pieces]) if pieces else empty
    block.ends = np.concatenate([p[1] for p in pieces]) if pieces else empty
    block.type_codes = np.concatenate([p[2] for p in pieces]) if pieces else empty
    block.type_names = [t.decode("ascii") for t in type_number]
    return out


@dataclass(frozen=True, slots=True)
class BratCorpus:
    """The ``.ann`` files of a path, by document id, and the warnings of reading them."""

    files: dict[str, AnnFile]
    warnings: tuple[ScoreWarning, ...] = ()

    def all_warnings(self) -> list[ScoreWarning]:
        """The folder's warnings and every file's, merged by kind."""
        return list(
            merge_warnings([*self.warnings, *(w for f in self.files.values() for w in f.warnings)])
        )


def read_brat_corpus(
    path: Path,
    *,
    check_text: bool = True,
    dialect: Dialect = "brat",
    strict_input: bool = False,
    every_file: bool = False,
) -> BratCorpus:
    """One ``.ann`` file, or the ``.ann`` files of a folder (``every_file``: every regular
    file, read as brat whatever its name, as the official PharmaCoNER script reads a system
    folder; files of the same name without extension are one document), keyed by document id
    (the file name without its extension).  The fast public reader of this module.

    A missing path, and a folder with nothing to read, are :class:`InputError`.
    """
    try:
        kind = os.stat(path).st_mode
    except OSError:
        raise InputError("no such file or folder", path) from None
    if not stat.S_ISDIR(kind):
        if path.suffix != ".ann" and not every_file:
            raise InputError("expected a brat .ann file or a folder of them", path)
        if not stat.S_ISREG(kind):
            raise InputError("not a regular file (a FIFO or a device?)", path)
        single = read_ann_file(
            path, check_text=check_text, dialect=dialect, strict_input=strict_input
        )
        return BratCorpus({single.id: single})
    texts: set[str] = set()
    paths, skipped = folder_files(path, every_file=every_file, texts=texts)
    if not paths:
        raise InputError("the folder has no brat annotations (.ann files)", path)
    files: dict[str, AnnFile] = {}
    others = []
    stems, extensions = [], []
    for name in paths:
        stem, extension = os.path.splitext(os.path.basename(name))
        stems.append(stem)
        extensions.append(extension)
    text_names = [
        name[:-4] + ".txt"
        if check_text and extension == ".ann" and name[:-4] + ".txt" in texts
        else None
        for name, extension in zip(paths, extensions, strict=True)
    ]
    plain = _read_plain_files(paths, text_names, stems)
    for name, stem, extension, text_name, read in zip(
        paths, stems, extensions, text_names, plain, strict=True
    ):
        if every_file and extension != ".ann":
            if strict_input:
                raise InputError(
                    "not a .ann file (the official script reads it as brat; --strict-input "
                    "refuses it)",
                    name,
                )
            others.append(name)
        if read is None:
            read = read_ann_file(
                name,
                check_text=text_name is not None,
                dialect=dialect,
                strict_input=strict_input,
                doc_id=stem,
            )
        files[stem] = files[stem].merged(read) if stem in files else read
    warnings = [skipped] if skipped else []
    if others:
        warnings.append(
            ScoreWarning(
                "pharmaconer.non-ann-files",
                "{count} file(s) of the system folder do not end in .ann and were read as brat, "
                "as the official script reads every file of the folder",
                len(others),
                tuple(others[:EXAMPLES_SHOWN]),
                tolerated=True,
            )
        )
    return BratCorpus(files, tuple(warnings))


def read_brat(path: Path, *, check_text: bool = True) -> dict[str, AnnotatedDocument]:
    """One ``.ann`` file, or every ``.ann`` in a folder, keyed by document id (file stem), as
    :class:`~annoscore.model.AnnotatedDocument` objects (generic rules)."""
    corpus = read_brat_corpus(path, check_text=check_text)
    return {doc_id: file.document() for doc_id, file in corpus.files.items()}


def reader_warnings(documents: Iterable[AnnotatedDocument], limit: int = 3) -> list[str]:
    """The readers' warnings of many documents: the first ``limit`` in full, then their count.

    A corpus with a systematic oddity (every file of a submission separating the text with a
    space, say) would otherwise bury the other warnings under hundreds of lines.
    """
    found = [w for doc in documents for w in doc.warnings]
    if len(found) > limit:
        return [*found[:limit], f"... and {len(found) - limit} more such reader warnings"]
    return found
