"""JSON Lines annotations: Prodigy tasks and spaCy's ``Doc.to_json``, one document per line.

Prodigy (``prodigy-jsonl``)::

    {"text": "...", "spans": [{"start": 0, "end": 5, "label": "PER"}], "answer": "accept",
     "_input_hash": 123, "_annotator_id": "news-alice", "meta": {"id": "doc1"}}

spaCy (``spacy-jsonl``, ``Doc.to_json``)::

    {"text": "...", "ents": [{"start": 0, "end": 5, "label": "PER"}], "tokens": [...]}

Rules (``../shared/spec/formats.md``):

* Offsets are characters into ``text``, end exclusive; a span outside the text, or with its end
  before its start, is an :class:`~annoscore.errors.InputError` naming the file and line (and
  the span's index).  A span that carries its own ``text`` is checked against the document
  text (a warning naming both strings).
* A document's id: its ``id``, else ``meta.id``, else Prodigy's ``_input_hash``, else its line
  number.  Prodigy lines whose ``answer`` is not in ``answers`` (``accept`` by default) are
  left out; ``_annotator_id`` is kept (:attr:`JsonlCorpus.annotators`); two kept lines with one
  document id are an error naming both lines (several annotators: keep one with ``answers`` or
  split the file).
* An empty line is skipped; a line that is not a JSON object is an error.

>>> corpus = read_jsonl_text('{"text": "Ann met Bo", "spans": [{"start": 0, "end": 3, '
...                          '"label": "PER"}], "answer": "accept", "meta": {"id": "d1"}}\\n',
...                          "x", "prodigy-jsonl")
>>> [(d.id, [(m.span.start, m.span.end, m.type) for m in d.mentions]) for d in corpus.documents]
[('d1', [(0, 3, 'PER')])]
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.files import first_line, read_text
from annoscore.model import AnnotatedDocument, Mention, Span

FORMATS = ("prodigy-jsonl", "spacy-jsonl")


@dataclass(frozen=True, slots=True)
class JsonlCorpus:
    """The documents of a JSONL file, in file order, and each one's annotator (Prodigy's
    ``_annotator_id``, when given) and line."""

    documents: list[AnnotatedDocument]
    annotators: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    skipped: int = 0


def read_jsonl(path: Path, form: str, answers: Collection[str] = ("accept",)) -> JsonlCorpus:
    """The documents of a Prodigy or spaCy JSONL file (:func:`read_jsonl_text`)."""
    return read_jsonl_text(read_text(path), str(path), form, answers, first_line(path))


def explicit_id(item: dict[str, Any]) -> str | None:
    """A document's own id: its ``id``, else ``meta.id``, else ``_input_hash`` (``None``:
    none, the document is named by its line)."""
    for value in (item.get("id"), (item.get("meta") or {}).get("id"), item.get("_input_hash")):
        if value is not None and value != "":
            return str(value)
    return None


def _document_id(item: dict[str, Any], line: int) -> str:
    found = explicit_id(item)
    return str(line) if found is None else found


def _int(value: Any, what: str, path: str, line: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} is {value!r}, not a whole number", path, line)
    return value


def read_jsonl_text(
    text: str, path: str, form: str, answers: Collection[str] = ("accept",), first: int = 1
) -> JsonlCorpus:
    """The documents of JSONL ``text`` in ``form`` (``prodigy-jsonl`` or ``spacy-jsonl``; the
    module doc gives the rules); ``path`` names it in errors and warnings, whose line numbers
    (and the ids of documents without one) count from ``first`` (a chunk of a file)."""
    if form not in FORMATS:
        raise InputError(f"unknown JSONL format {form!r}; expected one of {', '.join(FORMATS)}")
    key = "spans" if form == "prodigy-jsonl" else "ents"
    documents: list[AnnotatedDocument] = []
    annotators: dict[str, str] = {}
    lines: dict[str, int] = {}
    skipped = 0
    for number, raw in enumerate(text.split("\n"), first):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(
                f"not JSON ({error.msg}, column {error.colno})", path, number
            ) from None
        if not isinstance(item, dict):
            raise InputError("expected a JSON object on each line", path, number)
        if form == "prodigy-jsonl" and item.get("answer", "accept") not in answers:
            skipped += 1
            continue
        body = item.get("text")
        if not isinstance(body, str):
            raise InputError('no "text" string', path, number)
        name = _document_id(item, number)
        if name in lines:
            raise InputError(
                f"document {name!r} again (first on line {lines[name]}); keep one annotator's "
                "answers per file",
                path,
                number,
            )
        lines[name] = number
        if isinstance(item.get("_annotator_id"), str):
            annotators[name] = item["_annotator_id"]
        spans = item.get(key) or []
        if not isinstance(spans, list):
            raise InputError(f'"{key}" is not a list', path, number)
        mentions: list[Mention] = []
        warnings: list[str] = []
        for k, span in enumerate(spans):
            where = f'"{key}"[{k}]'
            if not isinstance(span, dict):
                raise InputError(f"{where} is not an object", path, number)
            start = _int(span.get("start"), f"{where} start", path, number)
            end = _int(span.get("end"), f"{where} end", path, number)
            if start < 0 or end < start or end > len(body):
                raise InputError(
                    f"{where}: offsets {start}-{end} outside the text ({len(body)} characters) "
                    "or out of order",
                    path,
                    number,
                )
            label = span.get("label")
            if not isinstance(label, str) or not label:
                raise InputError(f'{where} has no "label"', path, number)
            written = span.get("text")
            if isinstance(written, str) and written != body[start:end]:
                warnings.append(
                    f"{path}:{number}: {where} text {written!r} where the text has "
                    f"{body[start:end]!r}"
                )
            mentions.append(
                Mention(Span.of(start, end), label, f"T{k + 1}", body[start:end], number)
            )
        documents.append(
            AnnotatedDocument(
                name, tuple(mentions), body, path=f"{path}:{number}", warnings=tuple(warnings)
            )
        )
    return JsonlCorpus(documents, annotators, lines, skipped)
