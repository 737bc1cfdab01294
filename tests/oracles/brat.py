"""A plain reader of brat ``.ann`` files, written from the format's rules (README, "Reading
rules"; ``formats.md``), for the lines the generators of ``tests/equivalence/`` write.

One line at a time, one Python object per entity, no arrays and nothing shared with
``annoscore.formats``.  Entity lines are ``ID<TAB>TYPE START END(;START END)*<TAB>TEXT`` with
single spaces (the generators write no other spacing), or the text after one more space
(tolerated: ``brat.space-text``).  What is read or refused:

- generic dialect: a byte-order mark is removed (``formats.bom``); lines end at ``\\n``, one
  trailing ``\\r`` dropped; blank lines skipped; a repeated id is ``brat.repeated-id``; a
  fragment with ``end <= start``, and an annotation referring to an id no annotation of the
  file has, are errors naming the line; fragments are sorted; the entity text is checked against
  the ``.txt`` (fragments joined by one space): ``brat.text-mismatch``, or ``brat.past-end``
  when an entity ends past the text;
- PharmaCoNER dialect (``official=True``): each line stripped; lines starting with ``T`` split
  at tabs, ``TYPE START END`` read from the second field's words with ``int()`` (fewer than three
  words: skipped), reversed and empty spans kept as written; every other line ignored unless it
  is a valid annotation (notes are kept); a line starting with a byte-order mark and ``T`` is
  dropped.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

Fragments = tuple[tuple[int, int], ...]

_ENTITY = re.compile(r"^([0-9]+ [0-9]+(?:;[0-9]+ [0-9]+)*)(?: (.*))?$", re.DOTALL)


class OracleError(Exception):
    """A file the reader refuses: ``line`` of ``path``."""

    def __init__(self, path: str, line: int, what: str) -> None:
        super().__init__(f"{path}:{line}: {what}")
        self.path, self.line, self.what = path, line, what


@dataclass
class Entity:
    id: str
    type: str
    fragments: Fragments
    text: str
    line: int
    start: int = field(init=False)  # where the first fragment, as written, starts
    end: int = field(init=False)  # where the last fragment, as written, ends

    def __post_init__(self) -> None:
        first, last = self.fragments[0], self.fragments[len(self.fragments) - 1]
        self.start, self.end = first[0], last[1]


@dataclass
class Note:
    id: str
    type: str
    target: str
    text: str


@dataclass
class File:
    """One file as read: its entities, notes, warning counts (by code) and text."""

    entities: list[Entity] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)
    places: dict[str, list[int]] = field(default_factory=dict)
    text: str | None = None

    def warn(self, code: str, line: int = 0) -> None:
        self.warnings[code] = self.warnings.get(code, 0) + 1
        self.places.setdefault(code, []).append(line)


MAX_OFFSET = 2**53


def _number(digits: str, path: str, number: int) -> int:
    """ASCII digits as a number; above 2^53 (more than 16 digits after the leading zeros, or
    a larger value) is an error."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > 16 or int(significant) > MAX_OFFSET:
        raise OracleError(path, number, "beyond any text")
    return int(significant)


def _official_number(word: str, path: str, number: int) -> int:
    """A number as Python's ``int()`` reads it (what the official script does); a word it
    cannot read stops the script: an error."""
    if word.isascii() and word.isdigit():
        return _number(word, path, number)
    try:
        value = int(word)
    except ValueError:
        raise OracleError(path, number, "not a number") from None
    if abs(value) > MAX_OFFSET:
        raise OracleError(path, number, "beyond any text")
    return value


def _fragments(offsets: str, path: str, number: int) -> Fragments:
    out = []
    for piece in offsets.split(";"):
        start_text, end_text = piece.split(" ")
        start, end = _number(start_text, path, number), _number(end_text, path, number)
        if end <= start:
            raise OracleError(path, number, "end <= start")
        out.append((start, end))
    return tuple(sorted(out))


def read(content: str, path: str, text: str | None = None, *, official: bool = False) -> File:
    """One file's ``content`` (``text``: the ``.txt`` checking it)."""
    file = File(text=text)
    if not official and content.startswith("\ufeff"):
        content = content[1:]
        file.warn("formats.bom")
    seen: set[str] = set()
    references: list[tuple[str, int]] = []
    for number, raw in enumerate(content.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line.strip() == "" and not line.startswith("\ufeff"):
            continue
        if official:
            _official_line(file, line, number, path, seen)
            continue
        fields = line.split("\t")
        ann_id = fields[0].strip()
        if ann_id != "*":
            if ann_id in seen:
                file.warn("brat.repeated-id", number)
            seen.add(ann_id)
        words = fields[1].split()
        if ann_id.startswith("T"):
            kind = words[0]
            rest = fields[1][len(kind) + 1 :]
            matched = _ENTITY.match(rest)
            assert matched is not None, line
            fragments = _fragments(matched.group(1), path, number)
            entity_text = "\t".join(fields[2:])
            if matched.group(2) is not None:
                file.warn("brat.space-text", number)
                entity_text = matched.group(2) + ("\t" + entity_text if entity_text else "")
            file.entities.append(Entity(ann_id, kind, fragments, entity_text, number))
        elif ann_id.startswith("#"):
            file.notes.append(Note(ann_id, words[0], words[1], "\t".join(fields[2:])))
            references.append((words[1], number))
        elif ann_id.startswith("R"):
            references.extend((w.split(":", 1)[1], number) for w in words[1:])
        elif ann_id.startswith("E"):
            references.extend((w.split(":", 1)[1], number) for w in words)
        elif ann_id.startswith(("A", "M", "N")):
            references.append((words[1], number))
        elif ann_id == "*":
            references.extend((w, number) for w in words[1:])
    if not official:
        for target, number in references:
            if target not in seen:
                raise OracleError(path, number, f"refers to {target}")
    if text is not None:
        for entity in file.entities:
            if entity.end > len(text):
                file.warn("brat.past-end", entity.line)
            elif " ".join(text[s:e] for s, e in entity.fragments) != entity.text:
                file.warn("brat.text-mismatch", entity.line)
    return file


def _after_words(text: str, k: int) -> str:
    """What follows the first ``k`` whitespace-separated words of ``text`` (and the whitespace
    after them)."""
    at = 0
    for _ in range(k):
        while at < len(text) and text[at].isspace():
            at += 1
        while at < len(text) and not text[at].isspace():
            at += 1
    while at < len(text) and text[at].isspace():
        at += 1
    return text[at:]


def _official_line(file: File, line: str, number: int, path: str, seen: set[str]) -> None:
    stripped = line.strip()
    if stripped.startswith("\ufeff") and stripped[1:].lstrip().startswith("T"):
        file.warn("pharmaconer.bom-line", number)
        return
    indented = line[:1].isspace()
    if not stripped.startswith("T"):
        if stripped.startswith("\ufeff"):
            stripped = stripped[1:]
        fields = stripped.split("\t")
        words = fields[1].split() if len(fields) > 1 else []
        if fields[0].startswith("#") and len(words) == 2:
            _seen(file, fields[0], number, seen)
            file.notes.append(Note(fields[0], words[0], words[1], "\t".join(fields[2:])))
        else:
            file.warn("pharmaconer.ignored-line", number)
            return
        if indented:
            file.warn("pharmaconer.indented", number)
        return
    if indented:
        file.warn("pharmaconer.indented", number)
    fields = stripped.split("\t")
    words = fields[1].split() if len(fields) > 1 else []
    if len(words) < 3:
        file.warn("pharmaconer.unsplittable", number)
        return
    _seen(file, fields[0], number, seen)
    matched = _ENTITY.match(fields[1].strip()[len(words[0]) + 1 :])
    if matched is not None and ";" in matched.group(1):  # START END;START END...
        file.warn("pharmaconer.discontinuous", number)
        fragments = _fragments(matched.group(1), path, number)
        spaced = matched.group(2)
    elif ";" in words[2]:
        raise OracleError(path, number, "not a number")
    else:
        start = _official_number(words[1], path, number)
        end = _official_number(words[2], path, number)
        if not all(w.isascii() and w.isdigit() for w in words[1:3]):
            file.warn("pharmaconer.number", number)
        if end < start:
            file.warn("pharmaconer.reversed", number)
        elif end == start:
            file.warn("pharmaconer.empty-span", number)
        fragments = ((start, end),)
        spaced = _after_words(fields[1].strip(), 3) if len(words) > 3 else None
    as_written = line.lstrip().split("\t")  # the text as written (the script reads none)
    text = "\t".join(as_written[2:])
    if spaced:
        file.warn("brat.space-text", number)
        text = spaced + ("\t" + text if text else "")
    file.entities.append(Entity(fields[0], words[0], fragments, text, number))


def _seen(file: File, ann_id: str, number: int, seen: set[str]) -> None:
    if ann_id in seen:
        file.warn("brat.repeated-id", number)
    seen.add(ann_id)


def document_names(
    paths: list[str], text_files: set[str], check_text: bool, every_file: bool
) -> tuple[list[str], list[str], list[str | None]]:
    """What a folder's files are, from the format's rules, one file at a time: each file's
    document id (its name without its extension, ``os.path.splitext``), the files not ending in
    ``.ann`` (read only with ``every_file``), and each ``.ann`` file's ``.txt`` beside it (the
    same name but the extension) where ``check_text`` and the folder has one (``text_files``)."""
    ids, others = [], []
    texts: list[str | None] = []
    for path in paths:
        folder, name = os.path.split(path)
        stem, extension = os.path.splitext(name)
        ids.append(stem)
        if every_file and extension != ".ann":
            others.append(path)
        text = os.path.join(folder, stem + ".txt")
        texts.append(text if extension == ".ann" and check_text and text in text_files else None)
    return ids, others, texts
