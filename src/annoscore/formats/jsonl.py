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
from operator import itemgetter
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
    """The mention texts of a reading, ``bodies[doc[k]][starts[k]:ends[k]]``, made into
    strings on first use (most commands never ask)."""

    __slots__ = ("_bodies", "_built", "_doc", "_ends", "_starts")

    def __init__(self, bodies: list[str], doc: Any, starts: list[int], ends: list[int]) -> None:
        self._bodies, self._doc, self._starts, self._ends = bodies, doc, starts, ends
        self._built: list[str] | None = None

    def strings(self) -> list[str]:
        if self._built is None:
            bodies = self._bodies
            self._built = [
                bodies[d][s:e]
                for d, s, e in zip(self._doc.tolist(), self._starts, self._ends, strict=True)
            ]
        return self._built


_IDS: list[str] = []
"""``T1``, ``T2``, ...: the mention ids of a document, shared (grown on demand)."""


class _ScanColumns:
    """The columns of every document of one scan, each document's lists made on first use
    (:class:`_ScannedFile`)."""

    __slots__ = ("bounds", "ends", "labels", "numbers", "starts", "texts")

    def __init__(
        self,
        bounds: list[int],
        starts: list[int],
        ends: list[int],
        labels: list[str],
        texts: _Slices,
        numbers: list[int],
    ) -> None:
        self.bounds, self.starts, self.ends, self.labels = bounds, starts, ends, labels
        self.texts, self.numbers = texts, numbers

    def field(self, name: str, d: int) -> Any:
        """Document ``d``'s value of :class:`~annoscore.formats.brat_model.AnnFile` field
        ``name``."""
        lo, hi = self.bounds[d], self.bounds[d + 1]
        if name == "ids":
            if len(_IDS) < hi - lo:
                _IDS.extend(f"T{k}" for k in range(len(_IDS) + 1, hi - lo + 1))
            return _IDS[: hi - lo]
        if name == "types":
            return self.labels[lo:hi]
        if name == "starts":
            return self.starts[lo:hi]
        if name == "ends":
            return self.ends[lo:hi]
        if name == "texts":
            return LazyRows(self.texts, lo, hi)
        if name == "lines":
            return [self.numbers[d]] * (hi - lo)
        return ()  # normalizations, attributes, relations, events, notes


_LAZY = frozenset(
    {"ids", "types", "starts", "ends", "texts", "lines"}
    | {"normalizations", "attributes", "relations", "events", "notes"}
)
"""The fields of a :class:`_ScannedFile` made on first use."""


class _ScannedFile(AnnFile):
    """A document the scan read: an :class:`~annoscore.formats.brat_model.AnnFile` whose id,
    path, text, rows, fragments and warnings are set when read (what the ``spans`` task asks
    of every document) and whose other fields are made from the scan's columns when first
    asked for (then kept)."""

    __slots__ = ("columns", "number")

    columns: _ScanColumns
    number: int

    def __getattr__(self, name: str) -> Any:  # a field not yet set
        if name not in _LAZY:
            raise AttributeError(name)
        value = self.columns.field(name, self.number)
        object.__setattr__(self, name, value)
        return value


_START_END_LABEL = itemgetter("start", "end", "label")


def _names(items: list[dict[str, Any]], numbers: list[int]) -> list[str]:
    """Each document's id (:func:`explicit_id`, else its line number): in C-level passes when
    no item has an ``id`` and every one a non-empty string ``meta.id``, one by one otherwise."""
    get: Any = dict.get
    metas = list(map(get, items, repeat("meta")))
    names = list(map(get, metas, repeat("id"))) if not set(map(type, metas)) - {dict} else [""]
    if (
        not set(map(type, names)) - {str}
        and "" not in set(names)
        and not set(map(get, items, repeat("id"))) - {None}
    ):
        return names
    return [_document_id(item, number) for item, number in zip(items, numbers, strict=True)]


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
    get: Any = dict.get  # the types are checked
    if form == "prodigy-jsonl":
        keep = [item.get("answer", "accept") in answers for item in items]
        if not all(keep):
            skipped = len(keep) - sum(keep)
            items = [item for item, kept in zip(items, keep, strict=True) if kept]
            kept_lines = [k for k, kept in zip(kept_lines, keep, strict=True) if kept]
    bodies: list[str] = list(map(get, items, repeat("text")))
    if set(map(type, bodies)) - {str}:
        return None
    names = _names(items, kept_lines)
    if len(set(names)) != len(names):
        return None
    span_lists = [found or [] for found in map(get, items, repeat(key))]
    if set(map(type, span_lists)) - {list}:
        return None
    flat = list(chain.from_iterable(span_lists))
    try:  # a span that is not an object, or without one of the three: the parser's error
        rows = list(map(_START_END_LABEL, flat))
    except (KeyError, TypeError, IndexError):
        return None
    n = len(flat)
    start_list, end_list, label_list = map(list, zip(*rows, strict=True)) if n else ([], [], [])
    try:
        type_names = list(dict.fromkeys(label_list))  # in first-seen order
    except TypeError:  # a label that is a list or an object
        return None
    if (
        set(map(type, start_list)) - {int}
        or set(map(type, end_list)) - {int}
        or set(map(type, type_names)) - {str}
        or "" in type_names
    ):
        return None
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
    texts = _Slices(bodies, doc, start_list, end_list)
    if sum(map(len, flat)) != 3 * n:  # a span with more than its three: maybe its text
        written = list(map(dict.get, flat, repeat("text")))
        if set(map(type, written)) - {type(None)}:  # some span carries its text: compared
            strings = texts.strings()
            if any(isinstance(w, str) and w != s for w, s in zip(written, strings, strict=True)):
                return None
    position = {name: k for k, name in enumerate(type_names)}
    codes = np.fromiter(map(position.__getitem__, label_list), dtype=np.int64, count=n)
    block = EntityBlock()
    block.add_arrays(starts, ends, codes, type_names)
    bounds = [0, *np.cumsum(sizes).tolist()]
    columns = _ScanColumns(bounds, start_list, end_list, label_list, texts, kept_lines)
    out: dict[str, AnnFile | AnnotatedDocument] = {}
    new = _ScannedFile.__new__
    for d, (name, body, number, lo, hi) in enumerate(
        zip(names, bodies, kept_lines, bounds[:-1], bounds[1:], strict=True)
    ):
        file = out[name] = new(_ScannedFile)
        file.id, file.path, file.text = name, f"{path}:{number}", body
        file.rows, file.fragments, file.warnings = FileRows(block, lo, hi), None, []
        file.columns, file.number = columns, d
    return out, skipped
