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
* A document's id: its ``id``, else ``meta.id`` (when ``meta`` is an object), else Prodigy's
  ``_input_hash``, else its line number.  Prodigy lines whose ``answer`` is not in ``answers``
  (``accept`` by default) are left out; ``_annotator_id`` is kept
  (:attr:`JsonlCorpus.annotators`); two kept lines with one document id are an error naming
  both lines (several annotators: keep one with ``answers`` or split the file).
* An empty line is skipped; a line that is not a JSON object is an error.

Two readings: :func:`read_jsonl` gives model objects; :func:`read_jsonl_columns` gives the
columns the ``spans`` task scores from (a document without reader warnings as an
:class:`~annoscore.formats.brat_model.AnnFile` whose entities are rows of one
:class:`~annoscore.formats.brat_model.EntityBlock`, one with warnings as the model object that
carries them).  The columns come from a fast step first, :func:`_scan_jsonl` (the spans of every
line checked together, in C-level passes and NumPy; it declines, ``None``, anything unusual:
a line that is not an object, a span that is not a dict of whole numbers and a label, offsets
outside the text, a mention text that differs, a document id twice), then from the checked
parser (:func:`read_jsonl_text`, the only one that names file and line); both give the same
columns (``tests/equivalence/test_jsonl.py``).

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
from itertools import chain, repeat
from pathlib import Path
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.brat_model import AnnFile, EntityBlock, FileRows, LazyRows
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
    meta = item.get("meta")
    meta_id = meta.get("id") if isinstance(meta, dict) else None  # a meta not an object: none
    for value in (item.get("id"), meta_id, item.get("_input_hash")):
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


def read_jsonl_columns(
    path: Path, form: str, answers: Collection[str] = ("accept",)
) -> tuple[dict[str, AnnFile | AnnotatedDocument], int]:
    """The documents of a Prodigy or spaCy JSONL file by id as the ``spans`` task scores them
    (a document without reader warnings as columns, one with warnings as the model object),
    and how many lines were left out (their answer not in ``answers``).  The scan reads the
    file when it can, the checked parser otherwise: the same columns either way.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = path.write_text('{"text": "Ann met Bo", "ents": [{"start": 0, "end": 3, '
    ...                     '"label": "PER"}]}\\n')
    >>> documents, skipped = read_jsonl_columns(path, "spacy-jsonl")
    >>> doc = documents["1"]
    >>> list(doc.starts), list(doc.ends), list(doc.types), list(doc.texts), skipped
    ([0], [3], ['PER'], ['Ann'], 0)
    """
    text, name, first = read_text(path), str(path), first_line(path)  # a chunk's first line
    scanned = _scan_jsonl(text, name, form, answers, first)
    if scanned is not None:
        return scanned
    corpus = read_jsonl_text(text, name, form, answers, first)
    return {d.id: d if d.warnings else AnnFile.of(d) for d in corpus.documents}, corpus.skipped


class _Slices:
    """The mention texts of a reading, ``bodies[k][starts[k]:ends[k]]``, made into strings on
    first use (most commands never ask)."""

    __slots__ = ("_bodies", "_built", "_ends", "_starts")

    def __init__(self, bodies: list[str], starts: list[int], ends: list[int]) -> None:
        self._bodies, self._starts, self._ends = bodies, starts, ends
        self._built: list[str] | None = None

    def strings(self) -> list[str]:
        if self._built is None:
            self._built = [
                b[s:e] for b, s, e in zip(self._bodies, self._starts, self._ends, strict=True)
            ]
        return self._built


_IDS: list[str] = []
"""``T1``, ``T2``, ...: the mention ids of a document, shared (grown on demand)."""


def _scan_jsonl(
    text: str, path: str, form: str, answers: Collection[str], first: int = 1
) -> tuple[dict[str, AnnFile | AnnotatedDocument], int] | None:
    """The documents of JSONL ``text`` as columns and the lines left out, or ``None``
    (declined: the parser reads it).

    Taken: every non-empty line a JSON object with a ``text`` string and its spans a list (or
    missing, or empty) of objects with whole-number ``start`` and ``end`` (not booleans, at
    most 2^62) inside the text and in order, a non-empty ``label`` string, and, where a span
    carries a ``text`` string, that text equal to the document text at its offsets; every
    document id once.  Anything else (every error and every warning of the parser among it)
    is declined."""
    if form not in FORMATS:
        return None
    import numpy as np

    key = "spans" if form == "prodigy-jsonl" else "ents"
    raw_lines = text.split("\n")
    kept_lines = [k for k, line in enumerate(raw_lines, first) if line.strip()]
    try:
        items = list(map(json.loads, map(raw_lines.__getitem__, [k - first for k in kept_lines])))
    except json.JSONDecodeError:
        return None
    if set(map(type, items)) - {dict}:
        return None
    skipped = 0
    if form == "prodigy-jsonl":
        keep = [item.get("answer", "accept") in answers for item in items]
        if not all(keep):
            skipped = len(keep) - sum(keep)
            items = [item for item, kept in zip(items, keep, strict=True) if kept]
            kept_lines = [k for k, kept in zip(kept_lines, keep, strict=True) if kept]
    get: Any = dict.get  # the types are checked
    bodies: list[str] = list(map(get, items, repeat("text")))
    if set(map(type, bodies)) - {str}:
        return None
    names = [_document_id(item, number) for item, number in zip(items, kept_lines, strict=True)]
    if len(set(names)) != len(names):
        return None
    span_lists = [found or [] for found in map(get, items, repeat(key))]
    if set(map(type, span_lists)) - {list}:
        return None
    flat = list(chain.from_iterable(span_lists))
    if set(map(type, flat)) - {dict}:
        return None
    start_list: list[int] = list(map(get, flat, repeat("start")))
    end_list: list[int] = list(map(get, flat, repeat("end")))
    labels: list[str] = list(map(get, flat, repeat("label")))
    if (
        set(map(type, start_list)) - {int}
        or set(map(type, end_list)) - {int}
        or set(map(type, labels)) - {str}
        or "" in set(labels)
    ):
        return None
    n = len(flat)
    try:
        starts = np.fromiter(start_list, dtype=np.int64, count=n)
        ends = np.fromiter(end_list, dtype=np.int64, count=n)
    except OverflowError:
        return None
    sizes = np.fromiter(map(len, span_lists), dtype=np.int64, count=len(span_lists))
    doc = np.repeat(np.arange(len(items), dtype=np.int64), sizes)
    lengths = np.fromiter(map(len, bodies), dtype=np.int64, count=len(bodies))
    if n and ((starts < 0).any() or (ends < starts).any() or (ends > lengths[doc]).any()):
        return None
    body_of = [bodies[d] for d in doc.tolist()] if n else []
    texts = _Slices(body_of, start_list, end_list)
    written = list(map(dict.get, flat, repeat("text")))
    if set(map(type, written)) - {type(None)}:  # some span carries its text: compared
        strings = texts.strings()
        if any(isinstance(w, str) and w != s for w, s in zip(written, strings, strict=True)):
            return None
    type_names = list(dict.fromkeys(labels))  # in first-seen order
    position = {name: k for k, name in enumerate(type_names)}
    codes = np.fromiter(map(position.__getitem__, labels), dtype=np.int64, count=n)
    block = EntityBlock()
    block.add_arrays(starts, ends, codes, type_names)
    if len(_IDS) < int(sizes.max(initial=0)):
        _IDS.extend(f"T{k}" for k in range(len(_IDS) + 1, int(sizes.max()) + 1))
    bounds = [0, *np.cumsum(sizes).tolist()]
    ids_of: dict[int, list[str]] = {}
    out: dict[str, AnnFile | AnnotatedDocument] = {}
    for name, body, number, lo, hi in zip(
        names, bodies, kept_lines, bounds[:-1], bounds[1:], strict=True
    ):
        count = hi - lo
        out[name] = AnnFile(
            name,
            f"{path}:{number}",
            ids_of.get(count) or ids_of.setdefault(count, _IDS[:count]),
            labels[lo:hi],
            start_list[lo:hi],
            end_list[lo:hi],
            LazyRows(texts, lo, hi),
            [number] * count,
            None,
            body,
            rows=FileRows(block, lo, hi),
        )
    return out, skipped
