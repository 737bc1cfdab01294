"""BioC XML into documents (:func:`_xml_documents`): the regular-expression scan of a passage
(:func:`_scan_xml`) first, declining anything unusual, the checked parse of ``xml.etree``
(:func:`parse_xml`) second, the only step that names what is wrong."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.files import is_xml_character

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

from annoscore.formats.bioc_tree import _Annotation, _Block, _Decline, _Document, _whole

_S = "[ \t\n]"  # XML white space (after line ends are normalised)
_NOT_XML = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
"""Characters XML 1.0 refuses anywhere: no text or attribute value of the scan holds one (and
its tokens cover the file), so it declines a file that has one."""


def _xml_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled with no character XML refuses in its text or values."""
    return re.compile(pattern.replace("[^", f"[^{_NOT_XML}"))


_VALUE = "(?:\"([^\"<]*)\"|'([^'<]*)')"  # an attribute value, in either quotes
_ANY_VALUE = "(?:\"[^\"<]*\"|'[^'<]*')"
_LOCATION = (
    f"<location{_S}+(?:offset|length){_S}*={_S}*{_ANY_VALUE}{_S}+(?:offset|length){_S}*={_S}*"
    f"{_ANY_VALUE}{_S}*/>"
)
_INFON = f"<infon{_S}+key{_S}*={_S}*{_ANY_VALUE}{_S}*(?:>[^<]*</infon>|/>)"


def _common(open_group: str) -> str:
    """An annotation of up to two infons, one location and its text (its parts in groups
    opened by ``open_group``: ``(`` to capture them, ``(?:`` not)."""
    o = open_group
    infon = f'<infon key="{o}[^"<]*)">{o}[^<]*)</infon>'
    return (
        f'<annotation id="{o}[^"<]*)">{_S}*(?:{infon}{_S}*)?(?:{infon}{_S}*)?'
        f'<location offset="{o}[0-9]+)" length="{o}[0-9]+)"/>{_S}*<text>{o}[^<]*)</text>{_S}*'
        "</annotation>"
    )


_COMMON_ANNOTATIONS = _xml_pattern(_common("("))
_TOKENS = _xml_pattern(
    # 1-3: a passage in the common layout: offset, text, annotations
    f"<passage>{_S}*<offset>([0-9]+)</offset>{_S}*<text>([^<&]*)</text>"
    f"((?:{_S}*{_common('(?:')})*){_S}*</passage>"
    # 4: a document's start and its id
    f"|<document>{_S}*<id>([^<&]*)</id>"
    # 5-7: any annotation of infons, locations and a text
    f"|<annotation(?:{_S}+id{_S}*={_S}*{_VALUE})?{_S}*>"
    f"((?:{_S}*(?:{_INFON}|{_LOCATION}|<text>[^<]*</text>|<text/>))*){_S}*</annotation>"
    # 8: white space between elements
    f"|({_S}+)"
    # 9, 10: an element that holds others opens or closes
    "|<(collection|document|passage)>|</(collection|document|passage)>"
    # 11, 12: an element of text, 13: an empty one (<name/>)
    r"|<(id|offset|text|source|date|key)>([^<]*)</\11>|<(id|offset|text|source|date|key)/>"
    # 14-16: an infon outside annotations (read for its syntax only)
    f"|<infon{_S}+key{_S}*={_S}*{_VALUE}{_S}*>([^<]*)</infon>"
)
_INNER = _xml_pattern(
    f"<(infon){_S}+key{_S}*={_S}*{_VALUE}{_S}*(?:>([^<]*)</infon>|/>)"
    f"|<(location){_S}+(offset|length){_S}*={_S}*{_VALUE}{_S}+(offset|length){_S}*={_S}*"
    f"{_VALUE}{_S}*/>"
    "|<(text)>([^<]*)</text>|<(text)/>"
)
_PROLOG = _xml_pattern(
    f"(?:<\\?xml{_S}+version{_S}*={_S}*([\"'])1\\.0\\1"
    f"(?:{_S}+encoding{_S}*={_S}*([\"'])(?:UTF|utf)-8\\2)?"
    f"(?:{_S}+standalone{_S}*={_S}*([\"'])(?:yes|no)\\3)?{_S}*\\?>)?{_S}*"
    f"(?:<!DOCTYPE{_S}+collection{_S}+SYSTEM{_S}+(?:\"[^\"<>]*\"|'[^'<>]*'){_S}*>{_S}*)?"
)
_REFERENCE = re.compile("&(?:#([0-9]{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _reference(found: re.Match[str]) -> str:
    decimal, hexadecimal, name = found.groups()
    if name:
        return _NAMED[name]
    return _character(decimal, hexadecimal)


def _character(decimal: str, hexadecimal: str) -> str:
    """The character of a reference (its number in decimal or hexadecimal), if XML allows it."""
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if not is_xml_character(code):
        raise _Decline
    return chr(code)


def _content(text: str) -> str:
    """Character data as XML reads it: the five predefined entities and character references
    replaced (any other ``&``: declined)."""
    if "&" not in text:
        return text
    if text.count("&") != len(_REFERENCE.findall(text)):
        raise _Decline
    return _REFERENCE.sub(_reference, text)


def _attribute(first: str, second: str = "") -> str:
    """An attribute value (one of its two quotings matched) as XML reads it: white space
    characters written as such become spaces, then references are replaced."""
    value = first or second
    if "\t" in value or "\n" in value:
        value = value.replace("\t", " ").replace("\n", " ")
    return _content(value)


def _whole_or_decline(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise _Decline
    return int(text)


def _scan_xml(
    text: str, type_infon: str = "type", id_infon: str = "identifier"
) -> list[_Document] | None:
    """The fast scan of BioC XML: the common layout (``collection`` of ``source``, ``date``,
    ``key``, ``infon`` and ``document`` elements; ``document`` of ``id``, ``infon``,
    ``passage`` and ``annotation``; ``passage`` of ``infon``, ``offset``, ``text`` and
    ``annotation``; ``annotation`` of ``infon``, ``location`` and ``text``; no attributes but
    these; an XML declaration of UTF-8 and a ``SYSTEM`` document type at most) read by regular
    expressions over its tags, text decoded as XML decodes it, each passage of the most common
    form read in columns (:class:`_Block`); ``None`` to decline anything else (sentences,
    relations, CDATA, comments, processing instructions, entities other than the five
    predefined, other elements or attributes, anything malformed or in error:
    :func:`parse_xml` reads it, and names the error)."""
    try:
        return _scanned_xml(text, type_infon, id_infon)
    except _Decline:
        return None


def _block(holder: tuple[int, int], region: str, type_infon: str, id_infon: str) -> _Block:
    """The annotations of a common passage (``region``: its annotation elements) as columns."""
    rows = _COMMON_ANNOTATIONS.findall(region)
    if not rows:
        return _Block(holder, (), (), (), (), (), ())
    ids, k1, v1, k2, v2, offsets, lengths, texts = zip(*rows, strict=True)
    if "&" in region:
        v1, v2, texts = (tuple(map(_content, column)) for column in (v1, v2, texts))
    names = "".join(ids) + "".join(k1) + "".join(k2)
    if "&" in names or "\t" in names or "\n" in names:
        ids, k1, k2 = (tuple(map(_attribute, column)) for column in (ids, k1, k2))
    return _Block(
        holder,
        ids,
        _infon_values(type_infon, k1, v1, k2, v2),
        _infon_values(id_infon, k1, v1, k2, v2),
        tuple(map(int, offsets)),
        tuple(map(int, lengths)),
        texts,
    )


def _infon_values(
    key: str,
    k1: Sequence[str],
    v1: Sequence[str],
    k2: Sequence[str],
    v2: Sequence[str],
) -> Sequence[str]:
    """Each annotation's value of infon ``key`` (``k1``/``v1``: the first infon's key and
    value, empty when none; ``k2``/``v2``: the second's, which wins, as in a mapping), empty
    when it has none."""
    if key not in k2:
        if k1.count(key) == len(k1):
            return v1
        if key not in k1:
            return ("",) * len(k1)
    return tuple(
        b if q == key else a if p == key else "" for p, a, q, b in zip(k1, v1, k2, v2, strict=True)
    )


def _scanned_xml(text: str, type_infon: str, id_infon: str) -> list[_Document]:
    if "\r" in text:  # XML reads every line end as \n before anything else
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "]]>" in text or not type_infon or not id_infon:
        raise _Decline  # (an empty infon name would match the infons a passage lacks)
    prolog = _PROLOG.match(text)
    at = prolog.end() if prolog is not None else 0
    scanner = _TOKENS.scanner(text, at)  # type: ignore[attr-defined]
    documents: list[_Document] = []
    seen_id = False
    depth = 0  # 0 outside the root, 1 collection, 2 document, 3 passage
    closed = False
    document = _Document("")
    held: list[_Annotation] = []
    own: list[_Annotation | _Block] = []
    offset: str | None = None
    body: str | None = None
    end = at
    for token in iter(scanner.match, None):
        end = token.end()
        last = token.lastindex
        if last == 3 and depth == 2:  # a common passage
            p_offset, p_text, p_region = token.group(1, 2, 3)
            where = int(p_offset)
            document.pieces.append((where, p_text))
            document.annotations.append(
                _block((where, len(p_text)), p_region, type_infon, id_infon)
            )
            continue
        if last == 4 and depth == 1 and not closed:  # a document and its id
            document, own, seen_id = _Document(token.group(4)), [], True
            depth = 2
            continue
        if last == 10 and depth == 2 and token.group(10) == "document":
            depth = 1
            if not document.id:
                document.id = str(len(documents) + 1)
            document.annotations.extend(own)
            documents.append(document)
            continue
        (
            p_offset,
            _,
            _,
            d_id,
            a_id,
            a_id2,
            a_inner,
            space,
            opened,
            shut,
            leaf,
            leaf_text,
            empty_leaf,
            i1,
            i2,
            i_text,
        ) = token.groups()
        if p_offset is not None or d_id is not None:  # a common passage or a document out of
            raise _Decline  # place (in place: read above)
        if a_inner is not None:  # any other annotation
            if depth not in (2, 3):
                raise _Decline
            infons: dict[str, str] = {}
            locations: list[tuple[Any, Any]] = []
            written = None
            for (
                infon,
                k1,
                k2,
                value,
                location,
                n1,
                v1,
                w1,
                n2,
                v2,
                w2,
                tag,
                inside,
                _,
            ) in _INNER.findall(a_inner):
                if infon:
                    infons[_attribute(k1, k2)] = _content(value)
                elif location:
                    if n1 == n2:
                        raise _Decline  # an attribute twice: not XML
                    first, second = _attribute(v1, w1), _attribute(v2, w2)
                    locations.append((first, second) if n1 == "offset" else (second, first))
                elif written is None:
                    written = _content(inside) if tag else ""
            annotation = (
                _attribute(a_id or "", a_id2 or ""),
                infons,
                locations,
                written or "",
                None,
            )
            (held if depth == 3 else own).append(annotation)
        elif space is not None:
            continue
        elif opened is not None:
            if closed or (depth, opened) not in (
                (0, "collection"),
                (1, "document"),
                (2, "passage"),
            ):
                raise _Decline
            if opened == "document":
                document, own, seen_id = _Document(""), [], False
            elif opened == "passage":
                held, offset, body = [], None, None
            depth += 1
        elif shut is not None:
            if (depth, shut) not in ((1, "collection"), (3, "passage")):  # (a document: above)
                raise _Decline
            depth -= 1
            if shut == "passage":
                where = _whole_or_decline("0" if offset is None else offset)
                if body is not None:
                    document.pieces.append((where, body))
                holder = (where, 0 if body is None else len(body))
                document.annotations.extend((*a[:4], holder) for a in held)
            else:
                closed = True
        elif leaf is not None or empty_leaf is not None:
            name = leaf if leaf is not None else empty_leaf
            value = _content(leaf_text) if leaf is not None else ""
            if depth == 1 and name in ("source", "date", "key"):
                pass
            elif depth == 2 and name == "id" and not seen_id:
                document.id, seen_id = value, True
            elif depth == 3 and name == "offset" and offset is None:
                offset = value
            elif depth == 3 and name == "text" and body is None:
                body = value
            else:
                raise _Decline
        elif i_text is not None:  # an infon of a collection, document or passage
            if depth == 0:
                raise _Decline
            _attribute(i1 or "", i2 or "")
            _content(i_text)
        else:  # pragma: no cover - every alternative is handled above
            raise _Decline
    if not closed or end != len(text):
        raise _Decline
    return documents


def parse_xml(text: str, path: str, lines: dict[int, int] | None = None) -> Element:
    """XML (BioC's, i2b2's) parsed through defusedxml (entity declarations refused), errors
    naming the file and line; with ``lines``, the line where each element starts, by the
    element's ``id``, is put in it (for the errors found in the tree)."""
    from xml.etree.ElementTree import ParseError, TreeBuilder

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import DefusedXMLParser, fromstring

    class Lined(TreeBuilder):
        def start(self, tag: Any, attrs: Any) -> Element:
            element = super().start(tag, attrs)
            if lines is not None:
                lines[id(element)] = parser.parser.CurrentLineNumber
            return element

    try:
        if lines is None:
            root: Element = fromstring(text)
        else:  # as fromstring, with the lines
            parser = DefusedXMLParser(target=Lined())
            parser.feed(text)
            root = parser.close()
    except ParseError as error:
        line = error.position[0] if hasattr(error, "position") else None
        raise InputError(f"not well-formed XML ({error})", path, line) from None
    except DefusedXmlException as error:
        raise InputError(f"XML refused ({error})", path) from None
    return root


def _xml_documents(
    text: str, path: str, type_infon: str, id_infon: str, lined: bool = False
) -> Iterator[_Document]:
    """The documents of BioC XML ``text``: scanned, or parsed (``lined``: parsed, each
    document holding its line and its annotations', :class:`_Document`)."""
    scanned = None if lined else _scan_xml(text, type_infon, id_infon)
    if scanned is not None:
        yield from scanned
        return
    lines: dict[int, int] | None = {} if lined else None
    root = parse_xml(text, path, lines)
    if root.tag != "collection":
        raise InputError(f"expected a BioC <collection>, not <{root.tag}>", path)

    def child_text(node: Element, tag: str, default: str = "") -> str:
        found = node.find(tag)
        return default if found is None else (found.text or "")

    def infons(node: Element) -> dict[str, str]:
        return {i.get("key", ""): i.text or "" for i in node.findall("infon")}

    def annotations(node: Element, holder: tuple[int, int] | None) -> list[_Annotation]:
        out: list[_Annotation] = [
            (
                a.get("id", ""),
                infons(a),
                [(loc.get("offset", ""), loc.get("length", "")) for loc in a.findall("location")],
                child_text(a, "text"),
                holder,
            )
            for a in node.findall("annotation")
        ]
        if lines is not None:
            for item, a in zip(out, node.findall("annotation"), strict=True):
                document.lines[id(item)] = lines[id(a)]
        return out

    def whole(node: Element, what: str) -> int:
        try:
            return _whole(child_text(node, "offset", "0"), document.id, what, path)
        except InputError as error:
            offset = node.find("offset")
            line = None if lines is None else lines[id(node if offset is None else offset)]
            raise InputError(error.message, error.path, line) from None

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
        if lines is not None:
            document.line = lines[id(node)]
        for passage in node.findall("passage"):
            offset = whole(passage, "passage offset")
            body = passage.find("text")
            if body is not None:
                document.pieces.append((offset, body.text or ""))
                held = (offset, len(body.text or ""))
                document.annotations.extend(annotations(passage, held))
            for sentence in passage.findall("sentence"):
                s_offset = whole(sentence, "sentence offset")
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
