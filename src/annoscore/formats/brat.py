"""brat standoff (``.ann``) files, read properly.

One annotation per line, fields separated by tabs::

    T1<TAB>Drug 10 20;25 30<TAB>aspirin tablets     entity; fragments separated by ';'
    N1<TAB>Reference T1 SNOMED:387458008<TAB>aspirin  normalisation
    A1<TAB>Negated T1        M1<TAB>Confidence T1 High    attribute (binary or valued)
    R1<TAB>Dose Arg1:T1 Arg2:T2                            relation
    *<TAB>Equiv T1 T2                                      equivalence set
    E1<TAB>Treat:T3 Theme:T1                               event
    #1<TAB>AnnotatorNotes T1<TAB>387458008                 note

Blank lines are skipped.  Any other malformed line is an :class:`InputError` naming file and
line.  One leniency, because official submissions rely on it: an entity line whose text follows the
offsets after a space instead of a tab (``T1<TAB>Drug 10 17 aspirin``) is read, with one warning per
file saying how many lines do this.  When the document's ``.txt`` is beside the ``.ann`` (or
given), each entity's text is checked against the text at its offsets (fragments joined by one
space, brat's convention) and a mismatch is a warning naming file, line, expected and found text.
Offsets count characters of the ``.txt`` exactly as stored (``\\r\\n`` counts two).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import list_folder, read_text
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

_OFFSETS = re.compile(r"(\d+[ \t]+\d+(?:[ \t]*;[ \t]*\d+[ \t]+\d+)*)(?:[ \t]+(.*))?$")
"""Offsets ``START END(;START END)*`` and, leniently, text after them on the same field."""


def _fragments(offsets: str, path: Path, line: int) -> Span:
    fragments = []
    for piece in offsets.split(";"):
        bounds = piece.split()
        if len(bounds) != 2:
            raise InputError(
                f"bad offsets {offsets!r}: expected 'START END' fragments separated by ';'",
                path,
                line,
            )
        try:
            start, end = int(bounds[0]), int(bounds[1])
        except ValueError:
            raise InputError(
                f"bad offsets {offsets!r}: offsets must be whole numbers", path, line
            ) from None
        if start < 0 or end < start:
            raise InputError(f"bad offsets {start} {end}: need 0 <= start <= end", path, line)
        fragments.append((start, end))
    return Span(tuple(sorted(fragments)))


def _arguments(tokens: list[str], path: Path, line: int) -> tuple[tuple[str, str], ...]:
    arguments = []
    for token in tokens:
        role, sep, target = token.partition(":")
        if not sep or not role or not target:
            raise InputError(f"bad argument {token!r}: expected ROLE:ID", path, line)
        arguments.append((role, target))
    return tuple(arguments)


def parse_ann(
    content: str, path: Path, doc_id: str | None = None, text: str | None = None
) -> AnnotatedDocument:
    """Parse an ``.ann`` file's content; ``text`` is the document text to check offsets against."""
    mentions: list[Mention] = []
    normalizations: list[Normalization] = []
    attributes: list[Attribute] = []
    relations: list[Relation] = []
    events: list[Event] = []
    notes: list[Note] = []
    warnings: list[str] = []
    seen_ids: dict[str, int] = {}
    space_separated_text = 0
    first_space_separated = 0

    for number, raw in enumerate(content.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        fields = line.split("\t")
        ann_id = fields[0].strip()
        kind = ann_id[:1]
        if kind not in "TNAMR*E#" or len(fields) < 2 or not fields[1].strip():
            raise InputError(
                f"not a brat annotation line: {line[:60]!r} (expected ID<TAB>...; "
                "IDs start with T, N, A, M, R, E, * or #)",
                path,
                number,
            )
        if kind != "*":
            if ann_id in seen_ids:
                warnings.append(
                    f"{path}:{number}: annotation id {ann_id} is already used "
                    f"on line {seen_ids[ann_id]}"
                )
            seen_ids[ann_id] = number
        body = fields[1].split()
        if kind == "T":
            if len(body) < 3:
                raise InputError(
                    f"entity line needs 'TYPE START END', found {fields[1]!r}", path, number
                )
            after_type = fields[1][len(body[0]) :].strip()
            matched = _OFFSETS.match(after_type)
            if matched is None:
                _fragments(after_type, path, number)  # raises, saying what is wrong
                raise InputError(f"bad offsets {after_type!r}", path, number)
            span = _fragments(matched.group(1), path, number)
            mention_text = "\t".join(fields[2:])
            if matched.group(2) is not None:
                if not space_separated_text:
                    first_space_separated = number
                space_separated_text += 1
                mention_text = matched.group(2) + ("\t" + mention_text if mention_text else "")
            mentions.append(Mention(span, body[0], ann_id, mention_text, number))
            if text is not None:
                warning = _check_text(text, span, mention_text, path, number)
                if warning:
                    warnings.append(warning)
        elif kind == "N":
            if len(body) != 3 or ":" not in body[2]:
                raise InputError(
                    f"normalisation needs 'TYPE TARGET RESOURCE:ID', found {fields[1]!r}",
                    path,
                    number,
                )
            resource, _, reference = body[2].partition(":")
            normalizations.append(
                Normalization(ann_id, body[0], body[1], resource, reference, "\t".join(fields[2:]))
            )
        elif kind in "AM":
            if len(body) not in (2, 3):
                raise InputError(
                    f"attribute needs 'NAME TARGET [VALUE]', found {fields[1]!r}", path, number
                )
            attributes.append(
                Attribute(ann_id, body[0], body[1], body[2] if len(body) == 3 else None)
            )
        elif kind == "R":
            arguments = _arguments(body[1:], path, number)
            if len(arguments) != 2:
                raise InputError(
                    f"relation needs 'TYPE Arg1:ID Arg2:ID', found {fields[1]!r}", path, number
                )
            relations.append(Relation(ann_id, body[0], arguments))
        elif kind == "*":
            if len(body) < 3:
                raise InputError(
                    f"equivalence needs 'TYPE ID ID ...', found {fields[1]!r}", path, number
                )
            relations.append(Relation(ann_id, body[0], tuple(("Arg", t) for t in body[1:])))
        elif kind == "E":
            etype, sep, trigger = body[0].partition(":")
            if not sep or not etype or not trigger:
                raise InputError(
                    f"event needs 'TYPE:TRIGGER ROLE:ID ...', found {fields[1]!r}", path, number
                )
            events.append(Event(ann_id, etype, trigger, _arguments(body[1:], path, number)))
        else:  # '#'
            if len(body) != 2:
                raise InputError(
                    f"note needs 'TYPE TARGET<TAB>TEXT', found {fields[1]!r}", path, number
                )
            notes.append(Note(ann_id, body[0], body[1], "\t".join(fields[2:])))

    if space_separated_text:
        warnings.append(
            f"{path}:{first_space_separated}: {space_separated_text} entity line(s) separate the "
            "text from the offsets with a space instead of a tab; read as text"
        )
    return AnnotatedDocument(
        id=doc_id if doc_id is not None else path.stem,
        mentions=tuple(mentions),
        text=text,
        normalizations=tuple(normalizations),
        attributes=tuple(attributes),
        relations=tuple(relations),
        events=tuple(events),
        notes=tuple(notes),
        path=str(path),
        warnings=tuple(warnings),
    )


def _check_text(text: str, span: Span, found: str, path: Path, line: int) -> str | None:
    if span.end > len(text):
        return (
            f"{path}:{line}: offsets {span} run past the end of the text ({len(text)} characters)"
        )
    expected = " ".join(text[start:end] for start, end in span.fragments)
    if found != expected:
        return f"{path}:{line}: entity text is {found!r} but the .txt has {expected!r} at {span}"
    return None


def read_ann(
    path: Path, text_path: Path | None = None, *, check_text: bool = True
) -> AnnotatedDocument:
    """Read one ``.ann`` file; the ``.txt`` beside it (or ``text_path``) checks the offsets."""
    content = read_text(path)
    text = None
    if check_text:
        candidate = text_path if text_path is not None else path.with_suffix(".txt")
        if candidate.is_file():
            text = read_text(candidate)
        elif text_path is not None:
            raise InputError("no such text file", text_path)
    return parse_ann(content, path, path.stem, text)


def read_brat(path: Path, *, check_text: bool = True) -> dict[str, AnnotatedDocument]:
    """One ``.ann`` file, or every ``.ann`` in a folder, keyed by document id (file stem)."""
    if path.is_file():
        if path.suffix != ".ann":
            raise InputError("expected a brat .ann file or a folder of them", path)
        files = [path]
    else:
        files = list_folder(path, (".ann",), "brat annotations")
    return {f.stem: read_ann(f, check_text=check_text) for f in files}


def reader_warnings(documents: Iterable[AnnotatedDocument], limit: int = 3) -> list[str]:
    """The readers' warnings of many documents: the first ``limit`` in full, then their count.

    A corpus with a systematic oddity (every file of a submission separating the text with a
    space, say) would otherwise bury the other warnings under hundreds of lines.
    """
    found = [w for doc in documents for w in doc.warnings]
    if len(found) > limit:
        return [*found[:limit], f"... and {len(found) - limit} more such reader warnings"]
    return found
