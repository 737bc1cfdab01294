"""Plain reference for BioC XML reading, for ``tests/equivalence/test_bioc.py``: the ``bioc``
package (``../shared/spec/formats.md``: it may cross-check reads) parses the collection, and the
facts annoscore's reader must keep are taken from its objects as the spec states them: each
document's id, and each passage annotation's id, type infon, concept id infon and locations as
document-absolute (offset, length) pairs.
"""

from __future__ import annotations


def plain_bioc_xml_facts(
    text: str, type_infon: str = "type", id_infon: str = "identifier"
) -> list[tuple[str, list[tuple[str, str, str, list[tuple[int, int]]]]]]:
    """``[(document id, [(annotation id, type, concept id, [(offset, length)...])...])...]``
    of the passages' annotations, as the ``bioc`` package reads the collection."""
    from bioc import biocxml

    collection = biocxml.loads(text)
    out = []
    for document in collection.documents:
        found = []
        for passage in document.passages:
            for annotation in passage.annotations:
                found.append(
                    (
                        annotation.id,
                        annotation.infons.get(type_infon) or "",  # empty: None or ""
                        annotation.infons.get(id_infon) or "",
                        sorted((loc.offset, loc.length) for loc in annotation.locations),
                    )
                )
        out.append((document.id, found))
    return out


def plain_bioc_read(
    text: str, form: str, path: str, type_infon: str = "type", id_infon: str = "identifier"
) -> tuple[list[tuple[object, ...]], list[str]] | str:
    """BioC read from the definitions (``src/annoscore/formats/bioc.py``'s module doc), one
    annotation at a time, XML through ``xml.dom.minidom`` (another parser than the reader's):
    each document as ``(id, text, [(fragments, type, mention id, text)...], [(mention id,
    concept id)...], warnings)``, with the file's warnings; or, for a file in error, the
    word ``"error"`` (the reader's message is compared by the other checks).

    Passage annotations are document-absolute; the document text puts each passage's text at
    its offset, spaces between; an annotation's type and concept id are its infons; its name is
    its id, else ``A<position>``; locations outside their passage (the document for its own
    annotations) are an error, annotation texts that differ from the document's a warning.
    Sentences and relations are not generated for this reference.
    """
    try:
        documents = _plain_xml(text) if form == "bioc-xml" else _plain_json(text)
    except _Refused:
        return "error"
    out = []
    seen = set()
    for k, (doc_id, passages, own) in enumerate(documents, 1):
        doc_id = doc_id or str(k)
        if doc_id in seen:
            return "error"
        seen.add(doc_id)
        body = ""
        for offset, passage_text, _ in sorted(
            ((o, t, a) for o, t, a in passages if t is not None), key=lambda p: p[0]
        ):
            if offset < len(body):
                return "error"
            body += " " * (offset - len(body)) + passage_text
        mentions, concepts, warnings = [], [], []
        held = [(a, (o, len(t or ""))) for o, t, annotations in passages for a in annotations]
        held += [(a, None) for a in own]
        for position, ((ann_id, infons, locations, written), holder) in enumerate(held, 1):
            if not locations:
                continue
            name = ann_id or f"A{position}"
            fragments = []
            for offset, length in locations:
                if not (_is_whole(offset) and _is_whole(length)):
                    return "error"
                fragments.append((int(offset), int(offset) + int(length)))
            fragments.sort()
            low, high = 0, len(body)
            if holder is not None and holder[1] > 0:
                low, high = holder[0], holder[0] + holder[1]
            if any(not low <= s <= e <= high for s, e in fragments):
                return "error"
            there = " ".join(body[s:e] for s, e in fragments)
            if written and there != written:
                warnings.append(
                    f"{path}: document {doc_id!r}, annotation {name!r}: text {written!r} "
                    f"where the document has {there!r}"
                )
            kind = infons.get(type_infon)
            mentions.append((tuple(fragments), "" if kind is None else str(kind), name, written))
            concept = infons.get(id_infon)
            if concept not in (None, ""):
                concepts.append((name, str(concept)))
        out.append((doc_id, body, mentions, concepts, warnings))
    return out, []


class _Refused(Exception):
    pass


def _is_whole(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    if isinstance(value, str):
        value = value.strip()
        return value.isascii() and value.isdigit()
    return False


def _plain_xml(text: str) -> list[tuple[str, list[tuple[int, object, list[object]]], list[object]]]:
    import re
    from xml.dom import minidom
    from xml.parsers.expat import ExpatError

    if re.search("&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)", text):
        raise _Refused  # an entity no one declares (expat skips it after an external DTD)

    try:
        dom = minidom.parseString(text.encode("utf-8"))
    except (ExpatError, ValueError):
        raise _Refused from None
    if dom.doctype is not None and dom.doctype.internalSubset:
        raise _Refused  # declarations: refused
    root = dom.documentElement
    if root.tagName != "collection":
        raise _Refused

    def children(node: object, tag: str) -> list[object]:
        return [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE and c.tagName == tag]

    def content(node: object) -> str:
        return "".join(
            c.data for c in node.childNodes if c.nodeType in (c.TEXT_NODE, c.CDATA_SECTION_NODE)
        )

    def first_text(node: object, tag: str, default: str = "") -> str:
        found = children(node, tag)
        return content(found[0]) if found else default

    def annotation(node: object) -> tuple[object, ...]:
        infons = {i.getAttribute("key"): content(i) for i in children(node, "infon")}
        locations = [
            (loc.getAttribute("offset"), loc.getAttribute("length"))
            for loc in children(node, "location")
        ]
        return (node.getAttribute("id"), infons, locations, first_text(node, "text"))

    documents = []
    for document in children(root, "document"):
        passages = []
        for passage in children(document, "passage"):
            offset = first_text(passage, "offset", "0")
            if not _is_whole(offset):
                raise _Refused
            texts = children(passage, "text")
            passages.append(
                (
                    int(offset.strip()),
                    content(texts[0]) if texts else None,
                    [annotation(a) for a in children(passage, "annotation")],
                )
            )
        own = [annotation(a) for a in children(document, "annotation")]
        documents.append((first_text(document, "id"), passages, own))
    return documents


def _plain_json(
    text: str,
) -> list[tuple[str, list[tuple[int, object, list[object]]], list[object]]]:
    import json

    try:
        data = json.loads(text)
    except ValueError:
        raise _Refused from None
    documents = []
    for document in data["documents"]:
        passages = []
        for passage in document.get("passages") or []:
            offset = passage.get("offset", 0)
            if not _is_whole(offset):
                raise _Refused
            passages.append(
                (
                    int(offset.strip()) if isinstance(offset, str) else offset,
                    passage.get("text"),
                    [
                        (
                            str(a.get("id", "")),
                            a.get("infons") or {},
                            [
                                (loc.get("offset", ""), loc.get("length", ""))
                                for loc in a.get("locations") or []
                            ],
                            a.get("text") or "",
                        )
                        for a in passage.get("annotations") or []
                    ],
                )
            )
        own = [
            (
                str(a.get("id", "")),
                a.get("infons") or {},
                [
                    (loc.get("offset", ""), loc.get("length", ""))
                    for loc in a.get("locations") or []
                ],
                a.get("text") or "",
            )
            for a in document.get("annotations") or []
        ]
        documents.append((str(document.get("id") or len(documents) + 1), passages, own))
    return documents
