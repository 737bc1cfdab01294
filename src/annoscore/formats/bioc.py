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

Reading (``../shared/spec/design.md``, "Fast paths"): fast steps first, each of which may
decline, the checked parser last, the same documents and warnings either way.  First the whole
file at once, when it is of the common layout and nothing in it is in error
(:func:`_scan_xml_corpus`, :func:`_scan_json_corpus`: one regular-expression pass over its
rows, JSON without ``json.loads``; the documents checked together in columns by
:func:`_corpus_files`; character offsets, or ``auto`` when every text matches).  Then, XML: a
scan by regular expressions over the tags of the common layout (:func:`_scan_xml`; anything
else, or anything in error, is declined) before defusedxml and ElementTree
(:func:`_parse_xml`, which names the line of an error).  JSON: after ``json.loads``, the whole
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

import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, pairwise
from operator import add, itemgetter, methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.brat_model import AnnFile
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


_Annotation = tuple[Any, Any, list[tuple[Any, Any]], Any, "tuple[int, int] | None"]
"""One annotation as read: (id, infons (a mapping), locations ((offset, length) as written),
text, the (offset, length) of its passage or sentence, ``None`` for a document's own)."""


@dataclass(slots=True)
class _Block:
    """The annotations of one passage in columns (the fast steps' shape): each has one
    location, given as whole numbers; ``types`` and ``concepts`` are the values of the
    ``type_infon`` and ``id_infon`` infons (empty when absent)."""

    holder: tuple[int, int] | None
    ids: Sequence[str]
    types: Sequence[str]
    concepts: Sequence[str]
    starts: Sequence[int]
    lengths: Sequence[int]
    texts: Sequence[str]

    def annotations(self, type_infon: str, id_infon: str) -> list[_Annotation]:
        """The same annotations one by one, as the checked parsers give them."""
        return [
            (i, {type_infon: t} | ({id_infon: c} if c else {}), [(s, n)], x, self.holder)
            for i, t, c, s, n, x in zip(
                self.ids,
                self.types,
                self.concepts,
                self.starts,
                self.lengths,
                self.texts,
                strict=True,
            )
        ]


class _Document:
    """One document as read: its id, its passages' (offset, text), its annotations in order
    (one by one, or a passage's in columns) and its relations."""

    __slots__ = ("annotations", "id", "pieces", "relations")

    def __init__(self, id: str) -> None:
        self.id = id
        self.pieces: list[tuple[int, str]] = []
        self.annotations: list[_Annotation | _Block] = []
        self.relations: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = []


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


def read_bioc_files(
    path: Path,
    form: str,
    *,
    type_infon: str = "type",
    id_infon: str = "identifier",
    offsets: str = "chars",
) -> tuple[list[BiocFile], list[str]]:
    """The documents of a BioC XML or JSON file as columns (:class:`BiocFile`, no object per
    annotation), and the reader's warnings: what ``annoscore spans`` scores."""
    return read_bioc_columns(
        read_text(path), str(path), form, type_infon=type_infon, id_infon=id_infon, offsets=offsets
    )


# --- the two syntaxes into one tree ----------------------------------------------------------


class _Decline(Exception):
    """The scan met something it is not sure of: the checked parser reads the file."""


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
    if not (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ):
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
    :func:`_parse_xml` reads it, and names the error)."""
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
            p_text,
            p_region,
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
        if p_offset is not None:  # a common passage
            if depth != 2:
                raise _Decline
            where = int(p_offset)
            document.pieces.append((where, p_text))
            document.annotations.append(
                _block((where, len(p_text)), p_region, type_infon, id_infon)
            )
        elif d_id is not None:  # a document and its id
            if depth != 1 or closed:
                raise _Decline
            document, own, seen_id = _Document(d_id), [], True
            depth = 2
        elif a_inner is not None:  # any other annotation
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
            if (depth, shut) not in ((1, "collection"), (2, "document"), (3, "passage")):
                raise _Decline
            depth -= 1
            if shut == "document":
                if not document.id:
                    document.id = str(len(documents) + 1)
                document.annotations.extend(own)
                documents.append(document)
            elif shut == "passage":
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


# --- the whole file at once (the first fast step) ---------------------------------------------

_PLAIN_NAME = re.compile(f"[^<>&\"'\\\\\t\n\r{_NOT_XML}\\x7f-\\x9f]+")
"""An infon name the corpus scans find as written (nothing XML or JSON would escape in it)."""

_STRUCTURE = re.compile("(?:d(?:pa*q)*e)*")
"""The rows of a corpus scan in order: documents (``d`` ... ``e``) of passages (``p`` ... ``q``)
of annotations (``a``)."""

_SPACE = " \t\n"

_ROWS_OF = {kind: bytes(int(i == ord(kind)) for i in range(256)) for kind in "dpa"}
"""For each kind of row, a table that makes the kinds of a corpus scan's rows (as bytes) the
mask of the rows of that kind."""


@functools.lru_cache(maxsize=8)
def _xml_rows(type_infon: str, id_infon: str) -> re.Pattern[str]:
    """A row of the documents of BioC XML in the common layout (:func:`_scan_xml_corpus`):
    group 1 its kind (``a``, ``p``, ``d``, ``/p``, ``/d``: an annotation, passage or document,
    the end of a passage or document; empty: the rest of the text from any other character on,
    one row, which the scan declines);
    2-7 an annotation's id, type, concept id, offset, length and text; 8, 9 a passage's offset
    and text; 10 a document's id.  Characters XML refuses are looked for once in the whole
    text (:func:`_refused`), and every repetition stops at a character it cannot take
    (possessive: nothing to give back)."""
    s = f"{_S}*+"
    kind, concept = re.escape(type_infon), re.escape(id_infon)
    infon = '<infon key="[^"<]*+"(?:>[^<]*+</infon>|/>)'
    other = f'<infon key="(?!{kind}"|{concept}")[^"<&\t\n]*+"(?:>[^<]*+</infon>|/>)'
    return re.compile(
        f"{s}(?:<(/?[a-z])(?:"
        f'(?<=<a)nnotation id="([^"<]*+)">(?:{s}(?:<infon key="{kind}">([^<]*+)</infon>'
        f'|<infon key="{concept}">([^<]*+)</infon>|{other}))*+{s}'
        f'<location offset="([0-9]{{1,16}}+)" length="([0-9]{{1,16}}+)"/>{s}'
        f"<text>([^<]*+)</text>{s}</annotation>"
        f"|(?<=<p)assage>(?:{s}{infon})*+{s}<offset>([0-9]{{1,16}}+)</offset>{s}"
        "<text>([^<]*+)</text>"
        f"|(?<=<d)ocument>{s}<id>([^<]*+)</id>(?:{s}{infon})*+"
        "|(?<=</p)assage>|(?<=</d)ocument>)"
        r"|[\s\S]++)"
    )


_CONTROLS = bytes([*range(9), 11, 12, *range(14, 32)])
_NOT_CONTROLS = bytes(sorted(set(range(256)) - set(_CONTROLS)))


def _refused(text: str) -> bool:
    """Whether ``text`` holds a character XML 1.0 refuses (:data:`_NOT_XML`): the controls
    looked for in its UTF-8 bytes (one C pass), a surrogate when it cannot be encoded."""
    if text.isascii():
        data = text.encode("ascii")
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a surrogate
            return True
        if "\ufffe" in text or "\uffff" in text:
            return True
    return bool(data.translate(None, _NOT_CONTROLS))


_XML_HEAD = _xml_pattern(
    f"<collection>(?:{_S}*(?:<(source|date|key)>[^<]*</\\1>|<(?:source|date|key)/>"
    f'|<infon key="[^"<]*"(?:>[^<]*</infon>|/>)))*'
)


def _scan_xml_corpus(
    text: str, path: str, type_infon: str, id_infon: str, auto: bool = False
) -> list[BiocFile] | None:
    """The first fast step of BioC XML: the whole file in columns (:func:`_corpus_files`) when
    it is in the common layout (a ``collection`` of ``source``, ``date``, ``key`` and ``infon``
    elements, then documents; a document of an ``id``, infons and passages; a passage of
    infons, an ``offset``, a ``text`` and annotations; an annotation of an ``id`` attribute,
    infons, one ``location`` and a ``text``, in this order, attributes as written here) and
    nothing in it is in error; ``None`` to decline (:func:`_scan_xml` and the checked parser
    read it).  ``auto``: offsets ``auto``, read as characters when every text matches."""
    try:
        return _scanned_xml_corpus(text, path, type_infon, id_infon, auto)
    except _Decline:
        return None


def _scanned_xml_corpus(
    text: str, path: str, type_infon: str, id_infon: str, auto: bool
) -> list[BiocFile] | None:
    if not (_PLAIN_NAME.fullmatch(type_infon) and _PLAIN_NAME.fullmatch(id_infon)):
        return None
    if type_infon == id_infon or ("]" in text and "]]>" in text) or _refused(text):
        return None  # (one character is found faster than three)
    if "&" in text:  # every reference one XML knows (those in values are replaced later)
        found = _REFERENCE.findall(text)
        if len(found) != text.count("&"):
            return None
        for decimal, hexadecimal, name in found:
            if not name:
                _character(decimal, hexadecimal)
    if "\r" in text:  # XML reads every line end as \n before anything else
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    prolog = _PROLOG.match(text)
    head = _XML_HEAD.match(text, prolog.end() if prolog is not None else 0)
    end = text.rfind("</collection>")
    if head is None or end < head.end() or text[end + 13 :].strip(_SPACE):
        return None
    while end > head.end() and text[end - 1] in _SPACE:
        end -= 1
    rows = _xml_rows(type_infon, id_infon).findall(text, head.end(), end)
    if not rows:
        return []
    (kinds, a_ids, a_types, a_concepts, a_offsets, a_lengths, a_texts, p_offsets, p_texts,
     d_ids) = zip(*rows, strict=True)  # fmt: skip
    order = "".join(kinds).replace("/p", "q").replace("/d", "e")
    if len(order) != len(rows) or not _STRUCTURE.fullmatch(order):
        return None  # a row of another character, or rows out of order
    codes = order.encode("ascii")
    at = {kind: codes.translate(table) for kind, table in _ROWS_OF.items()}
    documents = list(map(_content, compress(d_ids, at["d"])))
    passages = (
        [int(o) for o in compress(p_offsets, at["p"])],
        list(map(_content, compress(p_texts, at["p"]))),
    )
    ids = list(compress(a_ids, at["a"]))
    names = "".join(ids)
    if "&" in names or "\t" in names or "\n" in names:
        ids = list(map(_attribute, ids))
    columns = [list(compress(column, at["a"])) for column in (a_types, a_concepts, a_texts)]
    for n, column in enumerate(columns):
        if "&" in "".join(column):
            columns[n] = list(map(_content, column))
    types, concepts, written = columns
    return _corpus_files(
        order,
        documents,
        passages,
        (
            ids,
            types,
            concepts,
            list(compress(a_offsets, at["a"])),
            list(compress(a_lengths, at["a"])),
            written,
        ),
        path,
        id_infon,
        auto,
    )


def _corpus_files(
    order: str,
    documents: list[str],
    passages: tuple[list[int], list[str]],
    annotations: tuple[list[str], list[str], list[str], list[str], list[str], list[str]],
    path: str,
    id_infon: str,
    auto: bool,
) -> list[BiocFile] | None:
    """The documents a corpus scan read as columns, checked at once: ``order`` the kinds of
    its rows (:data:`_STRUCTURE`), ``documents`` each document's id, ``passages`` each
    passage's offset and text, ``annotations`` each annotation's id, type, concept id, offset
    and length (whole numbers, as written) and text.  ``None`` to decline: a document id given
    twice, passages that overlap, a location past its passage (or in a passage without text),
    the errors the checked steps name; with ``auto``, a text that differs (the checked steps
    try bytes)."""
    import numpy as np

    p_offsets, p_texts = passages
    ids, types, concepts, a_offsets, a_lengths, written = annotations
    n_docs = len(documents)
    names = [d or str(k) for k, d in enumerate(documents, 1)]
    if len(set(names)) != n_docs:
        return None
    codes = np.frombuffer(order.encode("ascii"), dtype=np.uint8)
    in_document = np.cumsum(codes == ord("d")) - 1
    is_passage = codes == ord("p")
    is_annotation = codes == ord("a")
    a_document = in_document[is_annotation]
    a_passage = (np.cumsum(is_passage) - 1)[is_annotation]
    p_counts = np.bincount(in_document[is_passage], minlength=n_docs).tolist()
    bounds = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(a_document, minlength=n_docs), out=bounds[1:])
    if p_counts.count(1) == n_docs:  # one passage a document
        bodies = [" " * o + t if o else t for o, t in zip(p_offsets, p_texts, strict=True)]
    else:
        bodies = []
        first = 0
        for count in p_counts:
            pieces = sorted(
                zip(p_offsets[first : first + count], p_texts[first : first + count], strict=True),
                key=itemgetter(0),
            )
            first += count
            parts: list[str] = []
            length = 0
            for offset, body in pieces:
                if offset < length:
                    return None  # passages that overlap: an error
                parts.append(" " * (offset - length))
                parts.append(body)
                length = offset + len(body)
            bodies.append("".join(parts))
    starts = np.array(a_offsets, dtype=np.int64)
    lengths = np.array(a_lengths, dtype=np.int64)
    ends = starts + lengths
    p_at = np.array(p_offsets, dtype=np.int64)
    p_length = np.fromiter(map(len, p_texts), dtype=np.int64, count=len(p_texts))
    low, size = p_at[a_passage], p_length[a_passage]
    if ids and not ((size > 0).all() and (starts >= low).all() and (ends <= low + size).all()):
        return None  # a location past its passage (an error), or a passage without text
    start_list, end_list = starts.tolist(), ends.tolist()
    holders = list(map(p_texts.__getitem__, a_passage.tolist()))
    warned: dict[int, list[str]] = {}
    # each text where its location says (no string cut out), and as long as the location
    if not (
        all(map(str.startswith, holders, written, (starts - low).tolist()))
        and (np.fromiter(map(len, written), dtype=np.int64, count=len(written)) == lengths).all()
    ):
        if auto:
            return None
        for j, (holder, text) in enumerate(zip(holders, written, strict=True)):
            there = holder[start_list[j] - int(low[j]) : end_list[j] - int(low[j])]
            if text and there != text:
                d = int(a_document[j])
                name = ids[j] or f"A{j - int(bounds[d]) + 1}"
                place = ((start_list[j], end_list[j]),)
                warned.setdefault(d, []).append(
                    _differs(_Document(names[d]), name, text, place, bodies[d], path)
                )
    if "" in ids:  # an annotation without an id is named by its place in its document
        place = (np.arange(len(ids), dtype=np.int64) - bounds[a_document] + 1).tolist()
        ids = [i or f"A{k}" for i, k in zip(ids, place, strict=True)]
    edges = bounds.tolist()
    held: list[list[tuple[int, str, str, Any]]] = [[] for _ in range(n_docs)]
    if any(concepts):
        for j, concept in enumerate(concepts):
            if concept:
                d = int(a_document[j])
                held[d].append((j - edges[d] + 1, ids[j], concept, written[j]))
    return [
        BiocFile(  # every field in order (five times faster than by name: FILE_FIELDS)
            names[d],
            path,
            ids[lo:hi],
            types[lo:hi],
            start_list[lo:hi],
            end_list[lo:hi],
            written[lo:hi],
            None,  # lines
            None,  # fragments
            bodies[d],
            (),  # normalizations
            (),  # attributes
            (),  # relations
            (),  # events
            (),  # notes
            [],  # warnings
            None,  # rows
            held[d],
            id_infon,
            tuple(warned.get(d, ())),
        )
        for d, (lo, hi) in enumerate(pairwise(edges))
    ]


_W = "[ \t\n\r]*+"  # JSON white space
_JSON_STRING = r'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+"'
_JSON_BODY = _JSON_STRING[1:-1]  # a string's characters as written (captured, then decoded)
_JSON_SCALAR = (
    f"(?:{_JSON_STRING}|-?+(?:0|[1-9][0-9]*+)(?:\\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+"
    "|true|false|null)"
)
_JSON_MEMBER = f"{_JSON_STRING}{_W}:{_W}{_JSON_SCALAR}"
_JSON_FLAT = f"\\{{{_W}(?:{_JSON_MEMBER}(?:{_W},{_W}{_JSON_MEMBER})*+)?+{_W}\\}}"
_JSON_EMPTY = f"\\[{_W}\\]"
_JSON_KNOWN = (
    "id|infons|text|offset|length|locations|passages|annotations|documents|sentences|relations"
)
_JSON_OTHER = f'"(?!(?:{_JSON_KNOWN})")[^"\\\\\\x00-\\x1f]*+"{_W}:{_W}{_JSON_SCALAR}'
"""A member of another name (written as it reads: no escape) and a scalar value, which every
step leaves aside."""
_JSON_WHOLE = "0|[1-9][0-9]{0,15}+"


@functools.lru_cache(maxsize=8)
def _json_rows(type_infon: str, id_infon: str) -> re.Pattern[str]:
    """A row of the documents of BioC JSON in the common layout (:func:`_scan_json_corpus`),
    after a comma or not (group ``comma``): an annotation, the end of a list and its object,
    the start of a passage (up to its ``annotations``) or of a document (up to its
    ``passages``); groups ``annotation``, ``end``, ``passage`` and ``document`` mark the kind
    of the row (``}``, ``]``, ``a``, ``p``; none: the rest of the text from any other
    character on, one row, which the scan declines); ``tail`` marks an end with
    ``annotations`` (a document's: a passage's would be its second).  The members of an
    object come in the order BioC's writers give them (the ``bioc`` package's and
    annoscore's), each but the list at most once."""
    w = _W
    kind, concept = re.escape(type_infon), re.escape(id_infon)
    infon = (
        f'(?:"{kind}"{w}:{w}"(?P<type>{_JSON_BODY})"|"{concept}"{w}:{w}"(?P<concept>{_JSON_BODY})"'
        f'|"(?!{kind}"|{concept}")[^"\\\\\\x00-\\x1f]*+"{w}:{w}{_JSON_SCALAR})'
    )
    infons = f'\\{{(?:{w}{infon}{w}(?:,(?={w}")|(?=\\}})))*+{w}\\}}'
    others = f"(?:{_JSON_OTHER}{w},{w})*+"
    flat = f'(?:"infons"{w}:{w}{_JSON_FLAT}{w},{w})?+'
    tail = (
        f'"(?:relations|sentences)"{w}:{w}{_JSON_EMPTY}|"annotation(?P<tail>s)"{w}:{w}'
        f'{_JSON_EMPTY}|"infons"{w}:{w}{_JSON_FLAT}|{_JSON_OTHER}'
    )
    return re.compile(
        f"{w}(?:(?P<comma>,?+){w}(?:"
        f'\\{{{w}{others}(?:"id"{w}:{w}"(?P<a_id>{_JSON_BODY})"{w},{w})?+'
        f'(?:"infons"{w}:{w}{infons}{w},{w})?+(?:"text"{w}:{w}"(?P<a_text>{_JSON_BODY})"{w},{w})?+'
        f'"locations"{w}:{w}\\[{w}\\{{{w}"offset"{w}:{w}(?P<a_offset>{_JSON_WHOLE}){w},{w}'
        f'"length"{w}:{w}(?P<a_length>{_JSON_WHOLE}){w}\\}}{w}\\]{w}(?P<annotation>\\}})'
        f"|(?P<end>\\])(?:{w},{w}(?:{tail}))*+{w}\\}}"
        f'|\\{{{w}{others}(?:"offset"{w}:{w}(?P<p_offset>{_JSON_WHOLE}){w},{w})?+{flat}'
        f'"text"{w}:{w}"(?P<p_text>{_JSON_BODY})"{w},{w}'
        f'(?:"sentences"{w}:{w}{_JSON_EMPTY}{w},{w})?+"(?P<passage>a)nnotations"{w}:{w}\\['
        f'|\\{{{w}{others}(?:"id"{w}:{w}"(?P<d_id>{_JSON_BODY})"{w},{w})?+{flat}'
        f'"(?P<document>p)assages"{w}:{w}\\[)'
        r"|[\s\S]++)"
    )


_JSON_HEAD = re.compile(
    f'{_W}\\{{(?:{_W}(?:"infons"{_W}:{_W}{_JSON_FLAT}|{_JSON_OTHER}){_W},)*+{_W}"documents"'
    f"{_W}:{_W}\\["
)
_JSON_PASSAGE = "a(?:\\}(?:,\\})*)?\\]"
_JSON_DOCUMENT = f"p(?:{_JSON_PASSAGE}(?:,{_JSON_PASSAGE})*)?\\]"
_JSON_STRUCTURE = re.compile(f"(?:{_JSON_DOCUMENT}(?:,{_JSON_DOCUMENT})*)?\\]")
"""The rows of a JSON corpus scan in order (commas between the items of a list): documents
(``p`` ... ``]``) of passages (``a`` ... ``]``) of annotations (``}``), then the end of the
collection's documents (``]``)."""
_JSON_KINDS = str.maketrans({"p": "d", "a": "p", "}": "a", "]": "q"})


def _scan_json_corpus(
    text: str, path: str, type_infon: str, id_infon: str, auto: bool = False
) -> list[BiocFile] | None:
    """The first fast step of BioC JSON: the whole file in columns (:func:`_corpus_files`)
    without building its objects, when it is in the common layout (a collection of
    ``documents``; a document of an ``id``, ``infons`` and ``passages`` then empty
    ``annotations`` and ``relations``; a passage of an ``offset``, ``infons``, a ``text`` and
    empty ``sentences`` then ``annotations`` then empty ``relations``; an annotation of an
    ``id``, flat ``infons``, a ``text`` and one location, in this order; string ids, texts and
    infons, whole numbers; members of other names with scalar values anywhere) and nothing in
    it is in error; ``None`` to decline (``json.loads`` and the next steps read it).
    ``auto``: offsets ``auto``, read as characters when every text matches."""
    if not (_PLAIN_NAME.fullmatch(type_infon) and _PLAIN_NAME.fullmatch(id_infon)):
        return None
    head = _JSON_HEAD.match(text)
    if type_infon == id_infon or head is None:
        return None
    end = len(text)
    while end > head.end() and text[end - 1] in " \t\n\r":
        end -= 1
    pattern = _json_rows(type_infon, id_infon)
    rows = pattern.findall(text, head.end(), end)
    columns = dict(zip(pattern.groupindex, zip(*rows, strict=True), strict=True))
    if not rows:
        return None
    marks = (columns[name] for name in ("comma", "document", "passage", "annotation", "end"))
    kinds = "".join(chain.from_iterable(zip(*marks, strict=True)))
    order = kinds.replace(",", "").translate(_JSON_KINDS)
    if len(order) != len(rows) or not _JSON_STRUCTURE.fullmatch(kinds):
        return None  # a row of another character, or rows out of order
    codes = order.encode("ascii")
    at = {kind: codes.translate(table) for kind, table in _ROWS_OF.items()}
    if any(columns["tail"]):  # an end with annotations: a document's, or declined
        import numpy as np

        kind = np.frombuffer(codes, dtype=np.uint8)
        ends_passage = np.zeros(kind.shape[0], dtype=bool)
        ends_passage[1:] = (kind[1:] == ord("q")) & np.isin(kind[:-1], (ord("p"), ord("a")))
        if any(compress(columns["tail"], ends_passage.tolist())):
            return None
    p_offsets = [int(o) if o else 0 for o in compress(columns["p_offset"], at["p"])]
    a = at["a"]
    return _corpus_files(
        order,
        _json_strings(list(compress(columns["d_id"], at["d"]))),
        (p_offsets, _json_strings(list(compress(columns["p_text"], at["p"])))),
        (
            _json_strings(list(compress(columns["a_id"], a))),
            _json_strings(list(compress(columns["type"], a))),
            _json_strings(list(compress(columns["concept"], a))),
            list(compress(columns["a_offset"], a)),
            list(compress(columns["a_length"], a)),
            _json_strings(list(compress(columns["a_text"], a))),
        ),
        path,
        id_infon,
        auto,
    )


def _json_strings(column: list[str]) -> list[str]:
    """JSON strings as written (without their quotes) as ``json.loads`` reads them: one call
    for the column when some string has an escape."""
    if "\\" not in "".join(column):
        return column
    decoded: list[str] = json.loads("[" + ",".join(map('"{}"'.format, column)) + "]")
    return decoded


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


def _xml_documents(text: str, path: str, type_infon: str, id_infon: str) -> Iterator[_Document]:
    scanned = _scan_xml(text, type_infon, id_infon)
    if scanned is not None:
        yield from scanned
        return
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
            (
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


def _scan_json(documents: list[Any], type_infon: str, id_infon: str) -> list[_Document] | None:
    """The fast step of BioC JSON: the whole collection in columns (each column one pass over
    every passage or annotation of the file) when every document is an object of passages and
    nothing else, every passage an object of a whole-number offset, a text and annotations
    (no sentences, no relations), every annotation as :func:`_json_annotations` takes it;
    ``None`` to decline (the checked walk reads the file, and names what is wrong)."""
    if not documents:
        return []
    if _types(documents) != {dict}:
        return None
    if any([d.get("annotations") or d.get("relations") for d in documents]):
        return None
    groups = [d.get("passages") or [] for d in documents]
    if _types(groups) != {list}:
        return None
    passages = [p for group in groups for p in group]
    if not passages:
        return [_Document(str(d.get("id") or k)) for k, d in enumerate(documents, 1)]
    if _types(passages) != {dict}:
        return None
    if any([p.get("sentences") or p.get("relations") for p in passages]):
        return None
    offsets = [p.get("offset", 0) for p in passages]
    texts = [p.get("text") for p in passages]
    if _types(offsets) != {int} or min(offsets) < 0 or _types(texts) != {str}:
        return None
    held = [p.get("annotations") or [] for p in passages]
    if _types(held) != {list}:
        return None
    columns = _json_annotations([a for group in held for a in group], type_infon, id_infon)
    if columns is None:
        return None
    ids, types, concepts, starts, lengths, texts_ = columns
    out = []
    p = a = 0  # the first passage and annotation of the document
    for k, (node, group) in enumerate(zip(documents, groups, strict=True), 1):
        document = _Document(str(node.get("id") or k))
        for q in range(p, p + len(group)):
            body = texts[q]
            offset = offsets[q]
            document.pieces.append((offset, body))
            n = a + len(held[q])
            document.annotations.append(
                _Block(
                    (offset, len(body)),
                    ids[a:n],
                    types[a:n],
                    concepts[a:n],
                    starts[a:n],
                    lengths[a:n],
                    texts_[a:n],
                )
            )
            a = n
        p += len(group)
        out.append(document)
    return out


def _json_annotations(
    annotations: list[Any], type_infon: str, id_infon: str
) -> tuple[Sequence[Any], ...] | None:
    """Annotations as the columns of a :class:`_Block` (ids, types, concepts, starts, lengths,
    texts) when each is an object with an id, infons (an object), a text (a string) and one
    location of whole numbers; ``None`` to decline.  Each column is one pass of C code."""
    if not annotations:
        return (), (), (), (), (), ()
    if _types(annotations) != {dict}:
        return None
    try:
        locations = list(map(_LOCATIONS, annotations))
        if _types(locations) != {list} or set(map(len, locations)) != {1}:
            return None
        first = list(map(_FIRST, locations))
        if _types(first) != {dict}:
            return None
        starts = list(map(_OFFSET, first))
        lengths = list(map(_LENGTH, first))
        infons = list(map(_INFONS, annotations))
        texts = list(map(_TEXT, annotations))
        ids = list(map(_ID, annotations))
    except KeyError:
        return None
    if _types(starts) != {int} or _types(lengths) != {int} or min(starts) < 0 or min(lengths) < 0:
        return None
    if _types(infons) != {dict} or _types(texts) != {str}:
        return None
    return (
        ids if _types(ids) == {str} else list(map(str, ids)),
        _strings(list(map(methodcaller("get", type_infon), infons))),
        _strings(list(map(methodcaller("get", id_infon), infons))),
        starts,
        lengths,
        texts,
    )


_LOCATIONS, _INFONS, _TEXT, _ID = map(itemgetter, ("locations", "infons", "text", "id"))
_FIRST, _OFFSET, _LENGTH = itemgetter(0), itemgetter("offset"), itemgetter("length")


def _types(values: list[Any]) -> set[type]:
    return set(map(type, values))


def _strings(values: list[Any]) -> Sequence[str]:
    """Infon values as strings (``None``, or no such infon: empty)."""
    if _types(values) == {str}:
        return values
    return ["" if v is None else v if type(v) is str else str(v) for v in values]


def _json_block(
    annotations: Any, holder: tuple[int, int], type_infon: str, id_infon: str
) -> _Block | None:
    """The fast step of one JSON passage the collection's step declined: its annotations in
    columns (:func:`_json_annotations`), or ``None``."""
    if type(annotations) is not list:
        return None
    columns = _json_annotations(annotations, type_infon, id_infon)
    return None if columns is None else _Block(holder, *columns)


def _json_documents(text: str, path: str, type_infon: str, id_infon: str) -> Iterator[_Document]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON ({error.msg})", path, error.lineno) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("documents"), list):
        raise InputError('expected a BioC JSON collection (an object with "documents")', path)
    scanned = _scan_json(data["documents"], type_infon, id_infon)
    if scanned is not None:
        yield from scanned
        return

    def items(node: Any, key: str, where: str) -> list[Any]:
        value = node.get(key) or [] if isinstance(node, Mapping) else None
        if not isinstance(value, list):
            raise InputError(f'{where}: "{key}" is not a list', path)
        for n, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise InputError(f'{where}: "{key}"[{n}] is not an object', path)
        return value

    def infons_of(node: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        value = node.get("infons") or {}
        if not isinstance(value, Mapping):
            raise InputError(f'{where}: "infons" is not an object', path)
        return value

    def infons(node: Mapping[str, Any], where: str) -> dict[str, str]:
        value = infons_of(node, where)
        return {str(k): "" if v is None else str(v) for k, v in value.items()}

    def annotations(node: Any, holder: tuple[int, int] | None, where: str) -> list[_Annotation]:
        # infons stay as written (their values are made strings where they are read), so are
        # locations (a whole number stays one; anything else is made a string and checked)
        out: list[_Annotation] = []
        for a in items(node, "annotations", where):
            value = infons_of(a, f"{where}, annotation {a.get('id', '')!r}")
            out.append(
                (
                    str(a.get("id", "")),
                    value,
                    [
                        (loc.get("offset", ""), loc.get("length", ""))
                        for loc in items(a, "locations", where)
                    ],
                    a.get("text") or "",
                    holder,
                )
            )
        return out

    def relations(node: Any, where: str) -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
        return [
            (
                str(r.get("id", "")),
                infons(r, f"{where}, relation {r.get('id', '')!r}"),
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
                held = (offset, len(body))
                block = _json_block(passage.get("annotations"), held, type_infon, id_infon)
                if block is not None:
                    document.annotations.append(block)
                else:
                    document.annotations.extend(annotations(passage, held, where))
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


def _number(value: Any, document: str, what: str, path: str) -> int:
    """A location's offset or length as written (a JSON whole number, or a string)."""
    if type(value) is int and value >= 0:
        return value
    return _whole(str(value), document, what, path)


def _infon(infons: Mapping[str, Any], key: str) -> str:
    value = infons.get(key)
    return "" if value is None else str(value)


# --- one document ----------------------------------------------------------------------------


def _document_text(document: _Document, path: str) -> str:
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
    files, warnings = read_bioc_columns(
        text, path, form, type_infon=type_infon, id_infon=id_infon, offsets=offsets
    )
    return BiocCorpus([f.document() for f in files], warnings)


def read_bioc_columns(
    text: str,
    path: str,
    form: str,
    *,
    type_infon: str = "type",
    id_infon: str = "identifier",
    offsets: str = "chars",
) -> tuple[list[BiocFile], list[str]]:
    """:func:`read_bioc_text` as columns (:class:`BiocFile`), and the reader's warnings."""
    if form not in FORMATS:
        raise InputError(f"unknown BioC format {form!r}; expected one of {', '.join(FORMATS)}")
    if offsets not in OFFSET_UNITS:
        raise InputError(f"offsets {offsets!r}: expected one of {', '.join(OFFSET_UNITS)}")
    if offsets != "utf8-bytes":  # the whole file at once, when nothing in it is unusual
        # (byte offsets: one annotation at a time, below)
        scan = _scan_xml_corpus if form == "bioc-xml" else _scan_json_corpus
        files = scan(text, path, type_infon, id_infon, offsets == "auto")
        if files is not None:
            return files, []
    read = _xml_documents if form == "bioc-xml" else _json_documents
    documents: list[BiocFile] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for document in read(text, path, type_infon, id_infon):
        if document.id in seen:
            raise InputError(f"document {document.id!r} appears twice", path)
        seen.add(document.id)
        body = _document_text(document, path)
        if offsets != "chars":  # other units: one annotation at a time
            document.annotations = [
                one
                for item in document.annotations
                for one in (
                    item.annotations(type_infon, id_infon) if isinstance(item, _Block) else [item]
                )
            ]
        unit = offsets
        if offsets == "auto":
            unit = _auto_unit(document, body, path)
            if unit == "utf8-bytes":
                warnings.append(
                    f"{path}: document {document.id!r}: annotation texts match at UTF-8 byte "
                    "offsets, not at character offsets: read as bytes (--offsets auto)"
                )
        documents.append(_columns(document, body, path, unit, type_infon, id_infon))
    return documents, warnings


def _auto_unit(document: _Document, body: str, path: str) -> str:
    if body.isascii():
        return "chars"
    byte_map = _char_of_byte(body)
    by_chars = by_bytes = True
    for annotation in document.annotations:
        if isinstance(annotation, _Block):  # pragma: no cover - expanded before
            raise AssertionError("columns where annotations one by one were expected")
        if not annotation[3]:
            continue
        chars = _fragments(document, annotation, path, None)
        by_chars = by_chars and _matches(chars, body, annotation[3])
        try:
            in_bytes = _fragments(document, annotation, path, byte_map)
        except InputError:
            by_bytes = False
            continue
        by_bytes = by_bytes and _matches(in_bytes, body, annotation[3])
    return "utf8-bytes" if by_bytes and not by_chars else "chars"


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
        fragments = tuple(_fragments(document, item, path, byte_map))
        start, end = fragments[0][0], fragments[-1][1]
        out.discontinuous = out.discontinuous or len(fragments) > 1
        low, high = _bounds(holder, body, byte_map)
        if not all(low <= s <= e <= high for s, e in fragments):
            raise _past(document, name, fragments, body, path)
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
                raise _past(document, name, ((start, end),), body, path)
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


def _past(
    document: _Document, name: str, fragments: Sequence[tuple[int, int]], body: str, path: str
) -> InputError:
    return InputError(
        f"document {document.id!r}, annotation {name!r}: location "
        f"{';'.join(f'{s}-{e}' for s, e in fragments)} is past its passage "
        f"(or the document text, {len(body)} characters)",
        path,
    )


def _differs(
    document: _Document,
    name: str,
    written: Any,
    fragments: Sequence[tuple[int, int]],
    body: str,
    path: str,
) -> str:
    found = " ".join(body[s:e] for s, e in fragments)
    return (
        f"{path}: document {document.id!r}, annotation {name!r}: text "
        f"{written!r} where the document has {found!r}"
    )


@dataclass(slots=True)
class BiocFile(AnnFile):
    """One BioC document as columns (:class:`~annoscore.formats.brat_model.AnnFile`), its
    concept ids and warnings kept apart until :meth:`document` builds the model objects.

    ``normalizations`` stays empty here: the concept ids are ``concepts`` (position, mention
    id, id, text); ``sentences`` are the reader's warnings (a document's text checks), as
    sentences.
    """

    concepts: list[tuple[int, str, str, Any]] = field(default_factory=list)
    id_infon: str = "identifier"
    sentences: tuple[str, ...] = ()

    def document(self) -> AnnotatedDocument:
        """The document as the model holds it: a :class:`Mention` per annotation (fragments
        sorted), a ``Reference`` :class:`Normalization` per concept id."""
        return AnnotatedDocument(
            self.id,
            tuple(
                Mention(Span(f), t, i, x, 0)
                for f, t, i, x in zip(
                    self.entity_fragments(), self.types, self.ids, self.texts, strict=True
                )
            ),
            self.text,
            normalizations=tuple(
                Normalization(f"N{k}", "Reference", name, self.id_infon, concept, written)
                for k, name, concept, written in self.concepts
            ),
            relations=self.relations,
            path=self.path,
            warnings=self.sentences,
        )


FILE_FIELDS = (
    "id",
    "path",
    "ids",
    "types",
    "starts",
    "ends",
    "texts",
    "lines",
    "fragments",
    "text",
    "normalizations",
    "attributes",
    "relations",
    "events",
    "notes",
    "warnings",
    "rows",
    "concepts",
    "id_infon",
    "sentences",
)
"""The fields of :class:`BiocFile` in order, as the corpus scans give them (a test holds them
to the class: a field added to :class:`~annoscore.formats.brat_model.AnnFile` shows there)."""
