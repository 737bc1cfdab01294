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
  per line (:mod:`annoscore.formats.brat_columns`); the entities of the folder become one
  ``EntityBlock`` (starts, ends, type codes) and each file an :class:`AnnFile` whose columns
  are built only if asked for (:attr:`AnnFile.rows` says which rows are its own).  Any other
  file, and any file the scan finds the least thing unusual in, is read by the per-file paths
  below, which give its errors and warnings;
- a file (:func:`_fast`): a plain file is split at tabs and newlines in one go;
- the line-by-line path (:class:`_Builder`) reads everything else, line by line.

Entities are kept as columns (:class:`AnnFile`); :class:`~annoscore.model.Mention` objects are
built only when asked for (:meth:`AnnFile.document`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from operator import sub
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Literal

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

if TYPE_CHECKING:
    from annoscore.formats.brat_columns import FileRows

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
    ``rows.lo:rows.hi`` of the folder's ``EntityBlock`` arrays
    (:mod:`annoscore.formats.brat_columns`), and its column sequences are built from the file
    only when used.
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


def _subfolders_with_ann(folder: Path, shown: int = 3) -> str:
    """A hint for a folder with no ``.ann`` file: its subfolders that hold some (a corpus such
    as PharmaCoNER's keeps its documents one level down, ``gold/subtrack1/sample``).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "sample").mkdir()
    >>> _ = (root / "sample" / "a.ann").write_text("")
    >>> _subfolders_with_ann(root)
    '; its subfolder sample has some: give that folder'
    >>> _subfolders_with_ann(root / "sample")
    ''
    """
    try:
        found = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.is_dir() and any(n.endswith(".ann") for n in os.listdir(entry.path))
        )
    except OSError:
        return ""
    if not found:
        return ""
    if len(found) == 1:
        return f"; its subfolder {found[0]} has some: give that folder"
    return f"; its subfolders {', '.join(found[:shown])} have some: give one of them"


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
        raise InputError(
            "the folder has no brat annotations (.ann files)" + _subfolders_with_ann(path), path
        )
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
    from annoscore.formats.brat_columns import _read_plain_files

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
