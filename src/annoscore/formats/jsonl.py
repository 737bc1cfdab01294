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
line checked together, in C-level passes and NumPy, or read from the bytes when they are
written as ``json.dumps`` writes plain spans; it declines, ``None``, anything unusual:
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
from json.scanner import make_scanner
from operator import itemgetter
from pathlib import Path
from typing import Any, cast

from annoscore.errors import InputError
from annoscore.formats.brat_model import (
    AnnFile,
    EntityBlock,
    LazyRows,
    ScanColumns,
    ScannedFields,
    file_rows,
)
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

    def __init__(self, bodies: list[str], doc: Any, starts: Any, ends: Any) -> None:
        self._bodies, self._doc, self._starts, self._ends = bodies, doc, starts, ends
        self._built: list[str] | None = None

    def strings(self) -> list[str]:
        if self._built is None:
            bodies = self._bodies
            self._built = [
                bodies[d][s:e]
                for d, s, e in zip(
                    self._doc.tolist(), self._starts.tolist(), self._ends.tolist(), strict=True
                )
            ]
        return self._built


class _ScanColumns(ScanColumns):
    """The columns of every document of one scan, each document's lists made on first use
    (:class:`_ScannedFile`)."""

    __slots__ = ("numbers", "texts")

    def __init__(
        self, block: EntityBlock, bounds: list[int], texts: _Slices, numbers: list[int]
    ) -> None:
        super().__init__(block, bounds)
        self.texts, self.numbers = texts, numbers

    def field(self, name: str, d: int) -> Any:
        """Document ``d``'s value of :class:`~annoscore.formats.brat_model.AnnFile` field
        ``name``."""
        lo, hi = self.bounds[d], self.bounds[d + 1]
        if name == "ids":
            return self.mention_ids(d)
        if name in ("types", "starts", "ends"):
            return self.whole(name)[lo:hi]
        if name == "texts":
            return LazyRows(self.texts, lo, hi)
        if name == "lines":
            return [self.numbers[d]] * (hi - lo)
        return ()  # normalizations, attributes, relations, events, notes


class _ScannedFile(ScannedFields, AnnFile):
    """A document the scan read: an :class:`~annoscore.formats.brat_model.AnnFile` whose id,
    path, text, rows, fragments and warnings are set when read (what the ``spans`` task asks
    of every document) and whose other fields are made from the scan's columns when first
    asked for (then kept)."""

    __slots__ = ("columns", "number")


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


Spans = tuple[Any, Any, Any, Any, list[str], list[Any] | None]
"""Each document's number of spans, and every span's start, end and type code (NumPy), the
type names and, when some span carries its own text, each span's ``text`` value (else
``None``)."""


def _spans_of(items: list[dict[str, Any]], key: str) -> Spans | None:
    """The spans of the documents read by ``json.loads`` (``None``: one the scan declines)."""
    import numpy as np

    get: Any = dict.get
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
    written = None
    if sum(map(len, flat)) != 3 * n:  # a span with more than its three: maybe its text
        written = list(map(dict.get, flat, repeat("text")))
        if not set(map(type, written)) - {type(None)}:
            written = None
    position = {name: k for k, name in enumerate(type_names)}
    codes = np.fromiter(map(position.__getitem__, label_list), dtype=np.int64, count=n)
    return sizes, starts, ends, codes, type_names, written


def _kept_rows(spans: Spans, keep: list[bool] | None) -> Spans:
    """``spans`` of the documents kept (``keep``: each one's answer accepted; ``None``: all)."""
    if keep is None or all(keep):
        return spans
    import numpy as np

    sizes, starts, ends, codes, type_names, _ = spans
    kept = np.array(keep, dtype=bool)
    rows = np.repeat(kept, sizes)
    return sizes[kept], starts[rows], ends[rows], codes[rows], type_names, None


_OBJECT_START = b'{"start": '
_END = b', "end": '
_LABEL = b', "label": "'
_MAX_DIGITS = 16


def _literal(buf: Any, at: Any, literal: bytes) -> Any:
    """Whether ``buf`` holds ``literal`` (1 to 16 bytes) at each position of ``at`` (at most
    ``buf.size - 16``): its bytes compared as two 64-bit words."""
    import numpy as np

    from annoscore.formats.brat_scan import _words

    padded = literal.ljust(16, b"\0")
    low, high = int.from_bytes(padded[:8], "little"), int.from_bytes(padded[8:], "little")
    first = _words(buf, at)
    if len(literal) < 8:
        first &= np.uint64((1 << (8 * len(literal))) - 1)
    same = first == np.uint64(low)
    if len(literal) > 8:
        second = _words(buf, at + 8) & np.uint64((1 << (8 * (len(literal) - 8))) - 1)
        same &= second == np.uint64(high)
    return same


def _cut_spans(text: str, key: str) -> tuple[str, Spans] | None:
    """Every ``"KEY": [...]`` list of ``text`` read from the bytes, and ``text`` with each one
    cut out (an empty list ``[\t]`` in its place, for ``json.loads``: a tab is no character of
    a JSON string, so the list read is a value); or ``None`` (the lines are read whole).
    The lists are in file order, each one's spans counted in the first column.

    Taken: an ASCII text without a backslash, ``"KEY"`` written only as ``"KEY": [`` (a JSON
    string cannot hold a quote unescaped: so each is a key of an object), each list holding
    objects ``{"start": N, "end": N, "label": "L"}`` as ``json.dumps`` writes them (``N`` a
    JSON whole number of at most 16 digits, ``L`` a non-empty JSON string) separated by
    ``", "``.  The caller checks that each line read has one and has the empty list as its
    ``KEY``: so the list cut out was the line's spans.

    How: the text is split at ``"KEY"`` (C speed), each list ends at its first ``"}]`` (a
    label holds no quote) or is empty; the lists are joined and checked in NumPy by the
    positions of their quotes, eight an object: the bytes between them are the literals
    above, the numbers digits, the labels without control bytes, the objects one after the
    other, each list whole."""
    if not text.isascii() or "\\" in text:
        return None
    import numpy as np

    from annoscore.formats.brat_scan import _PAD, _digits, _type_keys

    name = f'"{key}"'
    pieces = text.split(name)
    n = len(pieces) - 1
    tails = pieces[1:]
    if not n or not all(map(str.startswith, tails, repeat(": ["))):
        return None  # "KEY" not always followed by : [
    empty = list(map(str.startswith, tails, repeat(": []")))
    found = list(map(str.find, tails, repeat('"}]')))
    stops = [3 if e else f + 2 for e, f in zip(empty, found, strict=True)]
    if 1 in stops:  # a list not closed as written
        return None
    bodies = list(map(str.__getitem__, tails, map(slice, repeat(3), stops)))
    rests = list(map(str.__getitem__, tails, map(slice, stops, repeat(None))))
    cut_text = f"{name}: [\t".join([pieces[0], *rests])
    lengths = np.fromiter(map(len, bodies), dtype=np.int64, count=n)
    pad = len(_PAD)
    joined = "".join(bodies)
    size = len(joined)
    buf = np.frombuffer("".join((_PAD.decode(), joined, _PAD.decode() * 2)).encode(), np.uint8)
    sizes = np.zeros(n, dtype=np.int64)
    if not size:
        no_rows = np.zeros(0, dtype=np.int64)
        return cut_text, (sizes, no_rows, no_rows, no_rows, [], None)
    quotes = np.flatnonzero(buf == 34)
    if quotes.size % 8:
        return None
    q = quotes.reshape(-1, 8)
    objects, q2, q4, q7 = q[:, 0] - 1, q[:, 2], q[:, 4], q[:, 7]
    last = buf.size - 16
    ok = _literal(buf, np.minimum(objects, last), _OBJECT_START)
    ok &= _literal(buf, np.minimum(q2 - 2, last), _END)
    ok &= _literal(buf, np.minimum(q4 - 2, last), _LABEL)
    ok &= (buf[q7 + 1] == 125) & (q7 > q4 + 10)  # "}", a label not empty
    if not ok.all() or objects[0] != pad:
        return None
    # the objects one after another: an object's end is its list's end or ", " and the next
    ends = q7 + 2
    gaps = np.append(objects[1:], pad + size) - ends
    closed = gaps == 0
    if not np.array_equal(ends[closed], np.cumsum(lengths[lengths > 0]) + pad):
        return None
    between = ends[~closed]
    if ((gaps[~closed] != 2) | (buf[between] != 44) | (buf[between + 1] != 32)).any():
        return None
    lo1, hi1, lo2, hi2 = objects + len(_OBJECT_START), q2 - 2, q2 + 7, q4 - 2
    for lo, hi in ((lo1, hi1), (lo2, hi2)):
        digits = hi - lo
        if ((digits < 1) | (digits > _MAX_DIGITS)).any():
            return None
        if ((buf[lo] == 48) & (digits > 1)).any():
            return None  # a leading zero: not JSON
    starts, starts_ok = _digits(buf, lo1, hi1)
    ends_at, ends_ok = _digits(buf, lo2, hi2)
    if not (starts_ok.all() and ends_ok.all()):
        return None
    if (buf[pad : pad + size] < 32).any():  # a control byte inside a label: not JSON
        return None
    codes, type_names = _type_keys(buf, q4 + 10, q7)
    names = [found_name.decode("ascii") for found_name in type_names]
    sizes[lengths > 0] = np.diff(np.flatnonzero(closed), prepend=-1)
    return cut_text, (sizes, starts, ends_at, codes, names, None)


_SCAN_ONCE = make_scanner(cast(Any, json.JSONDecoder()))  # its settings: json.loads's
"""The scanner of ``json.loads`` (C): one JSON value from a position, and where it ends."""


def _json_lines(lines: list[str]) -> list[Any] | None:
    """``json.loads`` of each line (``None``: one is not JSON).  Each line is read by the
    scanner ``json.loads`` calls, without its Python steps around it; a line with white space
    around its value (or none) is given to ``json.loads`` itself (the scanner stops at the
    value's end, and raises ``StopIteration`` where no value starts, which ends the ``map``
    early: the count tells)."""
    try:
        parsed = list(map(_SCAN_ONCE, lines, repeat(0)))
        if len(parsed) == len(lines) and [end for _, end in parsed] == list(map(len, lines)):
            return [value for value, _ in parsed]
        return list(map(json.loads, lines))
    except json.JSONDecodeError:
        return None


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
    is declined.

    When every line's spans are written as ``json.dumps`` writes plain ones
    (:func:`_cut_spans`), they are read from the bytes and ``json.loads`` reads the rest of
    each line; otherwise ``json.loads`` reads the lines whole."""
    if form not in FORMATS:
        return None
    import numpy as np

    key = "spans" if form == "prodigy-jsonl" else "ents"
    cut = _cut_spans(text, key)
    raw_lines = (text if cut is None else cut[0]).split("\n")  # a cut keeps every line end
    kept_lines = [k for k, line in enumerate(raw_lines, first) if line.strip()]
    if cut is not None and len(kept_lines) != cut[1][0].size:
        return None  # not one list a line: the parser reads it
    lines = list(map(raw_lines.__getitem__, [k - first for k in kept_lines]))
    items = _json_lines(lines)
    if items is None or set(map(type, items)) - {dict}:
        return None
    get: Any = dict.get  # the types are checked
    if cut is not None:  # each line's spans cut out, an empty list in their place
        found = list(map(get, items, repeat(key)))
        if set(map(type, found)) - {list} or any(found):
            return None  # the list cut out was not the line's spans: the parser reads it
    skipped = 0
    keep = None
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
    spans = _spans_of(items, key) if cut is None else _kept_rows(cut[1], keep)
    if spans is None:
        return None
    sizes, starts, ends, codes, type_names, written = spans
    n = starts.size
    doc = np.repeat(np.arange(len(items), dtype=np.int64), sizes)
    lengths = np.fromiter(map(len, bodies), dtype=np.int64, count=len(bodies))
    if n and ((starts < 0).any() or (ends < starts).any() or (ends > lengths[doc]).any()):
        return None
    texts = _Slices(bodies, doc, starts, ends)
    if written is not None:  # some span carries its text: compared
        strings = texts.strings()
        if any(isinstance(w, str) and w != s for w, s in zip(written, strings, strict=True)):
            return None
    block = EntityBlock()
    block.add_arrays(starts, ends, codes, type_names)
    bounds = [0, *np.cumsum(sizes).tolist()]
    columns = _ScanColumns(block, bounds, texts, kept_lines)
    out: dict[str, AnnFile | AnnotatedDocument] = {}
    new = _ScannedFile.__new__
    places = map(f"{path}:".__add__, map(str, kept_lines))
    for d, (name, body, place, rows) in enumerate(
        zip(names, bodies, places, file_rows(block, bounds), strict=True)
    ):
        file = out[name] = new(_ScannedFile)
        file.id, file.path, file.text, file.rows = name, place, body, rows
        file.fragments, file.warnings, file.columns, file.number = None, [], columns, d
    return out, skipped
