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
  a discontinuous mention (its fragments sorted).
* ``offsets``: ``chars`` (the default: most corpora), ``utf8-bytes`` (offsets count UTF-8
  bytes of the document text, as some producers write them), or ``auto`` (characters, unless
  some annotation texts do not match at character offsets and all do at byte offsets: then
  bytes, and a warning says so).
* Each annotation's text is checked against the document text at its locations (fragments
  joined by a space): a difference is a warning naming both strings.  A location outside the
  passage or sentence that holds the annotation (outside the document text for a document-level
  annotation) is an :class:`~annoscore.errors.InputError` naming the document and annotation;
  so is a location that is not a pair of whole numbers, or XML/JSON that is not a BioC tree.

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

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.files import read_text
from annoscore.model import AnnotatedDocument, Mention, Normalization, Relation, Span

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

FORMATS = ("bioc-xml", "bioc-json")
OFFSET_UNITS = ("chars", "utf8-bytes", "auto")


@dataclass(frozen=True, slots=True)
class BiocCorpus:
    """The documents of a BioC collection and the reader's warnings (offset units chosen)."""

    documents: list[AnnotatedDocument]
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Annotation:
    id: str
    infons: dict[str, str]
    locations: list[tuple[str, str]]
    text: str
    holder: tuple[int, int] | None  # (offset, length) of its passage or sentence


@dataclass
class _Document:
    id: str
    pieces: list[tuple[int, str]] = field(default_factory=list)
    annotations: list[_Annotation] = field(default_factory=list)
    relations: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = field(default_factory=list)


def read_bioc(
    path: Path,
    form: str,
    *,
    type_infon: str = "type",
    id_infon: str = "identifier",
    offsets: str = "chars",
) -> BiocCorpus:
    """The documents of a BioC XML or JSON file (:func:`read_bioc_text`)."""
    return read_bioc_text(
        read_text(path), str(path), form, type_infon=type_infon, id_infon=id_infon, offsets=offsets
    )


# --- the two syntaxes into one tree ----------------------------------------------------------


def _scan_xml(text: str) -> Element | None:
    """The fast scan of BioC XML: a document with no document type declaration (so no entity
    is declared: nothing for defusedxml to refuse) parsed by the standard library's C parser;
    ``None`` to decline (a declaration, or XML that is not well-formed: :func:`_parse_xml`
    reads it, and names the error)."""
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        return None
    from xml.etree.ElementTree import ParseError, fromstring

    try:
        return fromstring(text)
    except ParseError:
        return None


def _parse_xml(text: str, path: str) -> Element:
    """BioC XML parsed through defusedxml (entity declarations refused), errors naming the file
    and line."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root: Element = fromstring(text)
    except ParseError as error:
        line = error.position[0] if hasattr(error, "position") else None
        raise InputError(f"not well-formed XML ({error})", path, line) from None
    except DefusedXmlException as error:
        raise InputError(f"XML refused ({error})", path) from None
    return root


def _xml_documents(text: str, path: str) -> Iterator[_Document]:
    root = _scan_xml(text)
    if root is None:
        root = _parse_xml(text, path)
    if root.tag != "collection":
        raise InputError(f"expected a BioC <collection>, not <{root.tag}>", path)

    def child_text(node: Element, tag: str, default: str = "") -> str:
        found = node.find(tag)
        return default if found is None else (found.text or "")

    def infons(node: Element) -> dict[str, str]:
        return {i.get("key", ""): i.text or "" for i in node.findall("infon")}

    def annotations(node: Element, holder: tuple[int, int] | None) -> list[_Annotation]:
        return [
            _Annotation(
                a.get("id", ""),
                infons(a),
                [(loc.get("offset", ""), loc.get("length", "")) for loc in a.findall("location")],
                child_text(a, "text"),
                holder,
            )
            for a in node.findall("annotation")
        ]

    def relations(node: Element) -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
        return [
            (
                r.get("id", ""),
                infons(r),
                [(n.get("role", ""), n.get("refid", "")) for n in r.findall("node")],
            )
            for r in node.findall("relation")
        ]

    for k, node in enumerate(root.findall("document"), 1):
        document = _Document(child_text(node, "id") or str(k))
        for passage in node.findall("passage"):
            offset = _whole(child_text(passage, "offset", "0"), document.id, "passage offset", path)
            body = passage.find("text")
            if body is not None:
                document.pieces.append((offset, body.text or ""))
                held = (offset, len(body.text or ""))
                document.annotations.extend(annotations(passage, held))
            for sentence in passage.findall("sentence"):
                s_offset = _whole(
                    child_text(sentence, "offset", "0"), document.id, "sentence offset", path
                )
                s_text = child_text(sentence, "text")
                if body is None:
                    document.pieces.append((s_offset, s_text))
                document.annotations.extend(annotations(sentence, (s_offset, len(s_text))))
                document.relations.extend(relations(sentence))
            if body is None and passage.find("sentence") is None:
                document.annotations.extend(annotations(passage, (offset, 0)))
            document.relations.extend(relations(passage))
        document.annotations.extend(annotations(node, None))
        document.relations.extend(relations(node))
        yield document


def _json_documents(text: str, path: str) -> Iterator[_Document]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON ({error.msg})", path, error.lineno) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("documents"), list):
        raise InputError('expected a BioC JSON collection (an object with "documents")', path)

    def items(node: Any, key: str, where: str) -> list[Any]:
        value = node.get(key) or [] if isinstance(node, Mapping) else None
        if not isinstance(value, list):
            raise InputError(f'{where}: "{key}" is not a list', path)
        return value

    def infons(node: Mapping[str, Any]) -> dict[str, str]:
        value = node.get("infons") or {}
        return {str(k): "" if v is None else str(v) for k, v in value.items()}

    def annotations(node: Any, holder: tuple[int, int] | None, where: str) -> list[_Annotation]:
        out = []
        for a in items(node, "annotations", where):
            locations = [
                (str(loc.get("offset", "")), str(loc.get("length", "")))
                for loc in items(a, "locations", where)
            ]
            out.append(
                _Annotation(str(a.get("id", "")), infons(a), locations, a.get("text") or "", holder)
            )
        return out

    def relations(node: Any, where: str) -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
        return [
            (
                str(r.get("id", "")),
                infons(r),
                [
                    (str(n.get("role", "")), str(n.get("refid", "")))
                    for n in items(r, "nodes", where)
                ],
            )
            for r in items(node, "relations", where)
        ]

    for k, node in enumerate(data["documents"], 1):
        if not isinstance(node, Mapping):
            raise InputError(f"documents[{k - 1}] is not an object", path)
        document = _Document(str(node.get("id") or k))
        where = f"document {document.id!r}"
        for passage in items(node, "passages", where):
            offset = _whole(str(passage.get("offset", 0)), document.id, "passage offset", path)
            body = passage.get("text")
            sentences = items(passage, "sentences", where)
            if body is not None:
                document.pieces.append((offset, body))
                document.annotations.extend(annotations(passage, (offset, len(body)), where))
            for sentence in sentences:
                s_offset = _whole(
                    str(sentence.get("offset", 0)), document.id, "sentence offset", path
                )
                s_text = sentence.get("text") or ""
                if body is None:
                    document.pieces.append((s_offset, s_text))
                document.annotations.extend(annotations(sentence, (s_offset, len(s_text)), where))
                document.relations.extend(relations(sentence, where))
            if body is None and not sentences:
                document.annotations.extend(annotations(passage, (offset, 0), where))
            document.relations.extend(relations(passage, where))
        document.annotations.extend(annotations(node, None, where))
        document.relations.extend(relations(node, where))
        yield document


def _whole(value: str, document: str, what: str, path: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"document {document!r}: {what} {value!r} is not a whole number", path)
    return int(text)


# --- one document ----------------------------------------------------------------------------


def _document_text(document: _Document, path: str) -> str:
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
        length = offset + len(body)
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
    for offset, length in annotation.locations:
        where = f"document {document.id!r}, annotation {annotation.id!r}"
        start = _whole(offset, document.id, f"annotation {annotation.id!r} offset", path)
        size = _whole(length, document.id, f"annotation {annotation.id!r} length", path)
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


def _inside(
    fragments: list[tuple[int, int]],
    holder: tuple[int, int] | None,
    text: str,
    byte_map: dict[int, int] | None,
) -> bool:
    low, high = 0, len(text)
    if holder is not None and holder[1] > 0:
        low, high = holder[0], holder[0] + holder[1]
        if byte_map is not None:  # the holder's offset counts bytes too
            low = byte_map.get(low, low)
            high = low + holder[1]
    return all(low <= start <= end <= high for start, end in fragments)


def _matches(fragments: list[tuple[int, int]], text: str, written: str) -> bool:
    return " ".join(text[s:e] for s, e in fragments) == written


def read_bioc_text(
    text: str,
    path: str,
    form: str,
    *,
    type_infon: str = "type",
    id_infon: str = "identifier",
    offsets: str = "chars",
) -> BiocCorpus:
    """The documents of BioC ``text`` in ``form`` (``bioc-xml`` or ``bioc-json``; the module
    doc gives the rules); ``path`` names it in errors and warnings."""
    if form not in FORMATS:
        raise InputError(f"unknown BioC format {form!r}; expected one of {', '.join(FORMATS)}")
    if offsets not in OFFSET_UNITS:
        raise InputError(f"offsets {offsets!r}: expected one of {', '.join(OFFSET_UNITS)}")
    read = _xml_documents if form == "bioc-xml" else _json_documents
    documents: list[AnnotatedDocument] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for document in read(text, path):
        if document.id in seen:
            raise InputError(f"document {document.id!r} appears twice", path)
        seen.add(document.id)
        body = _document_text(document, path)
        unit = offsets
        if offsets == "auto":
            unit = _auto_unit(document, body, path)
            if unit == "utf8-bytes":
                warnings.append(
                    f"{path}: document {document.id!r}: annotation texts match at UTF-8 byte "
                    "offsets, not at character offsets: read as bytes (--offsets auto)"
                )
        documents.append(_build(document, body, path, unit, type_infon, id_infon))
    return BiocCorpus(documents, warnings)


def _auto_unit(document: _Document, body: str, path: str) -> str:
    if body.isascii():
        return "chars"
    byte_map = _char_of_byte(body)
    by_chars = by_bytes = True
    for annotation in document.annotations:
        if not annotation.text:
            continue
        chars = _fragments(document, annotation, path, None)
        by_chars = by_chars and _matches(chars, body, annotation.text)
        try:
            in_bytes = _fragments(document, annotation, path, byte_map)
        except InputError:
            by_bytes = False
            continue
        by_bytes = by_bytes and _matches(in_bytes, body, annotation.text)
    return "utf8-bytes" if by_bytes and not by_chars else "chars"


def _build(
    document: _Document, body: str, path: str, unit: str, type_infon: str, id_infon: str
) -> AnnotatedDocument:
    byte_map = _char_of_byte(body) if unit == "utf8-bytes" else None
    mentions: list[Mention] = []
    normalizations: list[Normalization] = []
    warnings: list[str] = []
    for k, annotation in enumerate(document.annotations, 1):
        name = annotation.id or f"A{k}"
        if not annotation.locations:
            continue  # a document-level annotation without a place: no mention
        fragments = _fragments(document, annotation, path, byte_map)
        if not _inside(fragments, annotation.holder, body, byte_map):
            raise InputError(
                f"document {document.id!r}, annotation {name!r}: location "
                f"{';'.join(f'{s}-{e}' for s, e in fragments)} is past its passage "
                f"(or the document text, {len(body)} characters)",
                path,
            )
        if annotation.text and not _matches(fragments, body, annotation.text):
            found = " ".join(body[s:e] for s, e in fragments)
            warnings.append(
                f"{path}: document {document.id!r}, annotation {name!r}: text "
                f"{annotation.text!r} where the document has {found!r}"
            )
        kind = annotation.infons.get(type_infon, "")
        mentions.append(Mention(Span(tuple(fragments)), kind, name, annotation.text, 0))
        concept = annotation.infons.get(id_infon, "")
        if concept:
            normalizations.append(
                Normalization(f"N{k}", "Reference", name, id_infon, concept, annotation.text)
            )
    relations = [
        Relation(rid or f"R{k}", infons.get("type", infons.get("relation", "")), tuple(nodes))
        for k, (rid, infons, nodes) in enumerate(document.relations, 1)
    ]
    return AnnotatedDocument(
        document.id,
        tuple(mentions),
        body,
        normalizations=tuple(normalizations),
        relations=tuple(relations),
        path=path,
        warnings=tuple(warnings),
    )
