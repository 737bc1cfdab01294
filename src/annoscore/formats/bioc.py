"""BioC collections, XML (read through defusedxml) or JSON, into annotated documents.

Tree (``../shared/spec/formats.md``): ``collection / document(id, infon*, passage+, annotation*,
relation*)``; ``passage(infon*, offset, text | sentence*, annotation*, relation*)``;
``annotation(@id, infon*, location*(@offset, @length), text)``; ``relation(@id, infon*,
node*(@refid, @role))``.  BioC JSON holds the same tree (``documents``, ``passages``,
``annotations``, ``locations``, ``relations``, ``nodes``; ``infons`` a mapping).

Rules (annoscore's decisions):

* Offsets are **document-absolute**: each passage's (or sentence's) text sits at its offset in
  the document text (the gaps between passages are spaces); passages may not overlap.
* An annotation's type is its infon ``type_infon`` (``type``), its concept id the infon
  ``id_infon`` (``identifier``), kept as a normalization when present.  Several locations make
  a discontinuous mention (its fragments sorted).  (These and ``offsets`` are the fields of a
  :class:`~annoscore.formats.annotations.ReaderOptions`, each reader's ``options``.)
* ``offsets``: ``chars`` (the default: most corpora), ``utf8-bytes`` (offsets, the passages'
  too, count UTF-8 bytes of the document text, as some producers write them), or ``auto``
  (characters, unless some annotation texts do not match at character offsets and all do at
  byte offsets: then bytes, and a warning says so).
* Each annotation's text is checked against the document text at its locations (fragments
  joined by a space): a difference is a warning naming both strings.  A location outside the
  passage or sentence that holds the annotation (outside the document text for a document-level
  annotation) is an :class:`~annoscore.errors.InputError` naming the document and annotation;
  so is a location that is not a pair of whole numbers, or XML/JSON that is not a BioC tree.

Reading (``../shared/spec/design.md``, "Fast paths"): fast steps first, each of which may
decline, the checked parser last, the same documents and warnings either way.  First the whole
file at once, when it is of the common layout and nothing in it is in error
(:func:`_scan_xml_corpus`, :func:`_scan_json_corpus`: one regular-expression pass over its
rows, JSON without ``json.loads``; the documents checked together in columns by
:func:`_corpus_files`; character offsets, or ``auto`` when every text matches).  Then, XML: a
scan by regular expressions over the tags of the common layout (:func:`_scan_xml`; anything
else, or anything in error, is declined) before defusedxml and ElementTree
(:func:`parse_xml`, which names the line of an error).  JSON: after ``json.loads``, the whole
collection in columns (:func:`_scan_json`) before the checked walk.  Documents come as columns
(:class:`BiocFile`, what ``annoscore spans`` scores: no object per annotation), and
:func:`read_bioc` builds the model objects from them.

>>> xml = ('<collection><source/><date/><key/><document><id>d1</id><passage><offset>0</offset>'
...        '<text>Aspirin helps</text><annotation id="A1"><infon key="type">Chemical</infon>'
...        '<infon key="identifier">D001241</infon><location offset="0" length="7"/>'
...        '<text>Aspirin</text></annotation></passage></document></collection>')
>>> doc = read_bioc_text(xml, "x.xml", "bioc-xml").documents[0]
>>> [(m.span.start, m.span.end, m.type, m.id) for m in doc.mentions]
[(0, 7, 'Chemical', 'A1')]
>>> doc.normalizations[0].reference
'D001241'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import add
from pathlib import Path
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.annotations import ReaderOptions
from annoscore.formats.bioc_corpus import _JSON_HEAD, _scan_json_corpus, _scan_xml_corpus
from annoscore.formats.bioc_json import _json_documents
from annoscore.formats.bioc_tree import (
    BiocFile,
    _Annotation,
    _Block,
    _differs,
    _Document,
    _infon,
    _number,
    _past,
    json_array_items,
)
from annoscore.formats.bioc_xml import _xml_documents
from annoscore.formats.files import Cut, cut_of, read_text
from annoscore.model import AnnotatedDocument, Relation

FORMATS = ("bioc-xml", "bioc-json")
OFFSET_UNITS = ("chars", "utf8-bytes", "auto")


@dataclass(frozen=True, slots=True)
class BiocCorpus:
    """The documents of a BioC collection and the reader's warnings (offset units chosen)."""

    documents: list[AnnotatedDocument]
    warnings: list[str] = field(default_factory=list)


def read_bioc(path: Path, form: str, options: ReaderOptions = ReaderOptions()) -> BiocCorpus:
    """The documents of a BioC XML or JSON file (:func:`read_bioc_text`)."""
    return read_bioc_text(read_text(path), str(path), form, options)


def read_bioc_files(
    path: Path, form: str, options: ReaderOptions = ReaderOptions()
) -> tuple[list[BiocFile], list[str]]:
    """The documents of a BioC XML or JSON file as columns (:class:`BiocFile`, no object per
    annotation), and the reader's warnings: what ``annoscore spans`` scores."""
    cut = cut_of(path) if form == "bioc-json" else None
    if cut is None or cut.check is not json_array_items:
        return read_bioc_columns(read_text(path), str(path), form, options)
    return _json_chunk(path, cut, options)


def _json_chunk(path: Path, cut: Cut, options: ReaderOptions) -> tuple[list[BiocFile], list[str]]:
    """:func:`read_bioc_files` of a chunk of a BioC JSON file: its range of the documents
    array between the file's head (up to the array's ``[``) and tail (``]``, ``}``), which
    must be whole values of the array (:func:`json_array_items`,
    :func:`~annoscore.scale.cut_xml.split_bioc_json`).  The corpus scan, when it reads the
    chunk, shows that on the way, and the range is not parsed a second time: it takes a
    collection whose ``documents`` array opens where the head ends (its head, members of
    scalar values and flat infons, holds no other ``[``) and holds rows of whole documents,
    separated by commas, up to the ``]`` that closes it, followed by ``}`` alone, the tail's
    (the parent checked the tail to be ``]``, ``}`` and white space).  Otherwise the range is
    checked here, as :func:`~annoscore.formats.files.read_cut` would have."""
    cut.check = None  # checked below, or shown by the scan
    try:
        text = read_text(path)
    finally:
        cut.check = json_array_items
    name = str(path)
    files = None
    if options.offsets != "utf8-bytes":
        auto = options.offsets == "auto"
        files = _scan_json_corpus(text, name, options.type_infon, options.id_infon, auto)
    head = _JSON_HEAD.match(text)
    at = len(cut.head.decode("utf-8"))
    if files is None or head is None or head.end() != at:
        data = text[at : len(text) - len(cut.tail.decode("utf-8"))]
        if not json_array_items(data.encode("utf-8")):
            cut.exact = False
    if files is not None:
        return files, []
    return read_bioc_columns(text, name, "bioc-json", options, scanned=True)


# --- one document ----------------------------------------------------------------------------


def _document_text(document: _Document, path: str, in_bytes: bool = False) -> str:
    """The document's text: each passage's (or sentence's) text at its offset, in characters
    or (``in_bytes``) in UTF-8 bytes of the text before it, spaces between them."""
    if len(document.pieces) == 1:
        offset, body = document.pieces[0]
        return " " * offset + body
    parts: list[str] = []
    length = 0
    for offset, body in sorted(document.pieces, key=lambda piece: piece[0]):
        if offset < length:
            raise InputError(
                f"document {document.id!r}: a passage at offset {offset} overlaps the one "
                f"before it (which ends at {length})",
                path,
            )
        parts.append(" " * (offset - length))
        parts.append(body)
        length = offset + (len(body.encode("utf-8")) if in_bytes else len(body))
    return "".join(parts)


def _char_of_byte(text: str) -> dict[int, int]:
    out = {}
    at = 0
    for i, char in enumerate(text):
        out[at] = i
        at += len(char.encode("utf-8"))
    out[at] = len(text)
    return out


def _fragments(
    document: _Document, annotation: _Annotation, path: str, byte_map: dict[int, int] | None
) -> list[tuple[int, int]]:
    out = []
    name = annotation[0]
    for offset, length in annotation[2]:
        where = f"document {document.id!r}, annotation {name!r}"
        start = _number(offset, document.id, f"annotation {name!r} offset", path)
        size = _number(length, document.id, f"annotation {name!r} length", path)
        end = start + size
        if byte_map is not None:
            if start not in byte_map or end not in byte_map:
                raise InputError(
                    f"{where}: byte offsets {start}-{end} fall inside a character or past the text",
                    path,
                )
            start, end = byte_map[start], byte_map[end]
        out.append((start, end))
    return sorted(out)


def _bounds(
    holder: tuple[int, int] | None, text: str, byte_map: dict[int, int] | None
) -> tuple[int, int]:
    """Where the locations of an annotation held by ``holder`` may lie."""
    low, high = 0, len(text)
    if holder is not None and holder[1] > 0:
        low, high = holder[0], holder[0] + holder[1]
        if byte_map is not None:  # the holder's offset counts bytes too
            low = byte_map.get(low, low)
            high = low + holder[1]
    return low, high


def _matches(fragments: Sequence[tuple[int, int]], text: str, written: str) -> bool:
    return " ".join(text[s:e] for s, e in fragments) == written


def read_bioc_text(
    text: str, path: str, form: str, options: ReaderOptions = ReaderOptions()
) -> BiocCorpus:
    """The documents of BioC ``text`` in ``form`` (``bioc-xml`` or ``bioc-json``; the module
    doc gives the rules), read with ``options``' infons and offset units; ``path`` names it in
    errors and warnings."""
    files, warnings = read_bioc_columns(text, path, form, options)
    return BiocCorpus([f.document() for f in files], warnings)


def read_bioc_columns(
    text: str,
    path: str,
    form: str,
    options: ReaderOptions = ReaderOptions(),
    *,
    scanned: bool = False,
) -> tuple[list[BiocFile], list[str]]:
    """:func:`read_bioc_text` as columns (:class:`BiocFile`), and the reader's warnings
    (``scanned``: the corpus scan has declined the text already)."""
    type_infon, id_infon, offsets = options.type_infon, options.id_infon, options.offsets
    if form not in FORMATS:
        raise InputError(f"unknown BioC format {form!r}; expected one of {', '.join(FORMATS)}")
    if offsets not in OFFSET_UNITS:
        raise InputError(f"offsets {offsets!r}: expected one of {', '.join(OFFSET_UNITS)}")
    if offsets != "utf8-bytes" and not scanned:  # the whole file at once, when nothing in it
        # is unusual (byte offsets: one annotation at a time, below)
        scan = _scan_xml_corpus if form == "bioc-xml" else _scan_json_corpus
        files = scan(text, path, type_infon, id_infon, offsets == "auto")
        if files is not None:
            return files, []
    try:
        return _read_columns(text, path, form, options)
    except InputError as error:
        if error.line is not None or form != "bioc-xml":
            raise
        try:  # the same error again, read by the parse that knows the lines
            _read_columns(text, path, form, options, lined=True)
        except InputError as placed:
            if placed.message == error.message and placed.path == error.path:
                raise placed from None
        raise


def _read_columns(
    text: str, path: str, form: str, options: ReaderOptions, lined: bool = False
) -> tuple[list[BiocFile], list[str]]:
    """:func:`read_bioc_columns` past the corpus scan (``lined``: XML parsed, not scanned, so
    that an error names its line)."""
    type_infon, id_infon, offsets = options.type_infon, options.id_infon, options.offsets
    documents: list[BiocFile] = []
    warnings: list[str] = []
    seen: set[str] = set()
    read = (
        _xml_documents(text, path, type_infon, id_infon, lined)
        if form == "bioc-xml"
        else _json_documents(text, path, type_infon, id_infon)
    )
    for document in read:
        if document.id in seen:
            raise document.placed(InputError(f"document {document.id!r} appears twice", path))
        seen.add(document.id)
        try:
            body = _document_text(document, path, offsets == "utf8-bytes")
        except InputError as error:
            raise document.placed(error) from None
        if offsets != "chars":  # other units: one annotation at a time
            document.annotations = [
                one
                for item in document.annotations
                for one in (
                    item.annotations(type_infon, id_infon) if isinstance(item, _Block) else [item]
                )
            ]
        unit: str = offsets
        if offsets == "auto":
            in_bytes: str | None = body
            if not body.isascii():
                try:
                    in_bytes = _document_text(document, path, True)
                except InputError:  # passages that overlap in bytes: characters
                    in_bytes = None
            unit = "chars" if in_bytes is None else _auto_unit(document, body, in_bytes, path)
            if unit == "utf8-bytes" and in_bytes is not None:
                body = in_bytes
                warnings.append(
                    f"{path}: document {document.id!r}: annotation texts match at UTF-8 byte "
                    "offsets, not at character offsets: read as bytes (--offsets auto)"
                )
        documents.append(_columns(document, body, path, unit, type_infon, id_infon))
    return documents, warnings


def _auto_unit(document: _Document, body: str, in_bytes: str, path: str) -> str:
    """``utf8-bytes`` when the document's annotation texts all match at byte offsets into its
    text in bytes (``in_bytes``: passages at byte offsets) and some do not at character
    offsets into ``body``; else ``chars``."""
    if body.isascii():
        return "chars"
    byte_map = _char_of_byte(in_bytes)
    by_chars = by_bytes = True
    for annotation in document.annotations:
        if isinstance(annotation, _Block):  # pragma: no cover - expanded before
            raise AssertionError("columns where annotations one by one were expected")
        if not annotation[3]:
            continue
        try:
            chars = _fragments(document, annotation, path, None)
        except InputError as error:
            raise document.placed(error, annotation) from None
        by_chars = by_chars and _placed(chars, annotation, body, None)
        try:
            places = _fragments(document, annotation, path, byte_map)
        except InputError:
            by_bytes = False
            continue
        by_bytes = by_bytes and _placed(places, annotation, in_bytes, byte_map)
    return "utf8-bytes" if by_bytes and not by_chars else "chars"


def _placed(
    fragments: Sequence[tuple[int, int]],
    annotation: _Annotation,
    body: str,
    byte_map: dict[int, int] | None,
) -> bool:
    """Whether ``fragments`` (in the unit of ``byte_map``) lie inside the annotation's passage
    and hold its text: a location past the text is not a match (a slice past the end of the
    text would be the text's end)."""
    low, high = _bounds(annotation[4], body, byte_map)
    inside = all(low <= s <= e <= high for s, e in fragments)
    return inside and _matches(fragments, body, annotation[3])


def _columns(
    document: _Document, body: str, path: str, unit: str, type_infon: str, id_infon: str
) -> BiocFile:
    """One document's annotations as columns: each location checked against its passage (an
    :class:`InputError` naming the document and annotation), each text against the document's
    (a warning naming both strings)."""
    byte_map = _char_of_byte(body) if unit == "utf8-bytes" else None
    out = _Out()
    k = 0
    for item in document.annotations:
        if isinstance(item, _Block):
            _block_columns(document, item, k, body, path, out)
            k += len(item.ids)
            continue
        k += 1
        aid, infons, locations, written, holder = item
        if not locations:
            continue  # a document-level annotation without a place: no mention
        name = aid or f"A{k}"
        try:
            fragments = tuple(_fragments(document, item, path, byte_map))
        except InputError as error:
            raise document.placed(error, item) from None
        start, end = fragments[0][0], fragments[-1][1]
        out.discontinuous = out.discontinuous or len(fragments) > 1
        low, high = _bounds(holder, body, byte_map)
        if not all(low <= s <= e <= high for s, e in fragments):
            raise document.placed(_past(document, name, fragments, body, path), item)
        if written and not _matches(fragments, body, written):
            out.warnings.append(_differs(document, name, written, fragments, body, path))
        out.ids.append(name)
        out.types.append(_infon(infons, type_infon))
        out.starts.append(start)
        out.ends.append(end)
        out.texts.append(written)
        out.fragments.append(fragments)
        concept = _infon(infons, id_infon)
        if concept:
            out.concepts.append((k, name, concept, written))
    relations = tuple(
        Relation(rid or f"R{k}", infons.get("type", infons.get("relation", "")), tuple(nodes))
        for k, (rid, infons, nodes) in enumerate(document.relations, 1)
    )
    return BiocFile(
        id=document.id,
        path=path,
        ids=out.ids,
        types=out.types,
        starts=out.starts,
        ends=out.ends,
        texts=out.texts,
        fragments=_filled(out) if out.discontinuous else None,
        text=body,
        relations=relations,
        concepts=out.concepts,
        id_infon=id_infon,
        sentences=tuple(out.warnings),
    )


class _Out:
    """The columns of one document as they are built."""

    __slots__ = (
        "concepts",
        "discontinuous",
        "ends",
        "fragments",
        "ids",
        "starts",
        "texts",
        "types",
        "warnings",
    )

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.types: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.texts: list[Any] = []
        self.fragments: list[tuple[tuple[int, int], ...] | None] = []
        self.concepts: list[tuple[int, str, str, Any]] = []
        self.warnings: list[str] = []
        self.discontinuous = False


def _filled(out: _Out) -> list[tuple[tuple[int, int], ...]]:
    """Every annotation's fragments (a block's: its one location)."""
    return [
        ((s, e),) if f is None else f
        for f, s, e in zip(out.fragments, out.starts, out.ends, strict=True)
    ]


def _block_columns(
    document: _Document, block: _Block, k: int, body: str, path: str, out: _Out
) -> None:
    """A block's annotations (the ``k + 1``-th of the document first) added to ``out``, all
    checked at once (in character offsets)."""
    if not block.ids:
        return
    starts = block.starts
    ends: Sequence[int] = tuple(map(add, starts, block.lengths))
    names = block.ids
    if "" in names:
        names = [i or f"A{k + j}" for j, i in enumerate(names, 1)]
    low, high = _bounds(block.holder, body, None)
    if min(starts) < low or max(ends) > high:
        for name, start, end in zip(names, starts, ends, strict=True):
            if not low <= start <= end <= high:
                raise document.placed(_past(document, name, ((start, end),), body, path), (name,))
    texts = block.texts
    found = [body[s:e] for s, e in zip(starts, ends, strict=True)]
    if found != texts:
        for name, start, end, written, there in zip(names, starts, ends, texts, found, strict=True):
            if written and there != written:
                out.warnings.append(_differs(document, name, written, ((start, end),), body, path))
    out.ids.extend(names)
    out.types.extend(block.types)
    out.starts.extend(starts)
    out.ends.extend(ends)
    out.texts.extend(texts)
    out.fragments.extend([None] * len(starts))  # built when some annotation is discontinuous
    if any(block.concepts):
        out.concepts.extend(
            (k + j, names[j - 1], concept, texts[j - 1])
            for j, concept in enumerate(block.concepts, 1)
            if concept
        )
