"""The first fast step of both syntaxes: a file of the common layout read whole by one
regular-expression pass over its rows (:func:`_scan_xml_corpus`, :func:`_scan_json_corpus`),
every document checked at once with NumPy (:func:`_corpus_files`); anything unusual declines to
the steps of :mod:`annoscore.formats.bioc_xml` and :mod:`annoscore.formats.bioc_json`."""

from __future__ import annotations

import functools
import json
import re
from itertools import chain, compress, pairwise
from typing import Any

from annoscore.formats.bioc_tree import BiocFile, _Decline, _differs, _Document
from annoscore.formats.bioc_xml import (
    _NOT_XML,
    _PROLOG,
    _REFERENCE,
    _S,
    _attribute,
    _character,
    _content,
    _xml_pattern,
)
from annoscore.formats.brat_model import EntityBlock, ScanColumns, ScannedFields, file_rows

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


_PIECE = 1 << 18
"""Bytes looked at a time for controls (:func:`_refused`): the masks stay small."""


def _refused(text: str) -> bool:
    r"""Whether ``text`` holds a character XML 1.0 refuses (:data:`_NOT_XML`): the controls
    looked for in its UTF-8 bytes (NumPy, a piece at a time: the bytes below 32 found, then
    any but tab, line feed and carriage return among them), a surrogate when it cannot be
    encoded.

    >>> _refused("a\tb\r\nc"), _refused("a\x0bb"), _refused("\x1f"), _refused("\ud800")
    (False, True, True, True)
    """
    if text.isascii():
        data = text.encode("ascii")
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a surrogate
            return True
        if "\ufffe" in text or "\uffff" in text:
            return True
    import numpy as np

    buf = np.frombuffer(data, dtype=np.uint8)
    for lo in range(0, buf.size, _PIECE):
        piece = buf[lo : lo + _PIECE]
        low = piece[piece < 32]
        if low.size and ((low != 9) & (low != 10) & (low != 13)).any():
            return True
    return False


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
    flat = _xml_rows(type_infon, id_infon).split(text[head.end() : end])
    if len(flat) == 1:
        return []  # no row
    # the rows' ten groups one after another (``None``: a group not in the row), between
    # the text around the rows (empty: the rows cover the text); one list, no tuple a row
    (kinds, a_ids, a_types, a_concepts, a_offsets, a_lengths, a_texts, p_offsets, p_texts,
     d_ids) = (flat[k::11] for k in range(1, 11))  # fmt: skip
    try:
        order = "".join(kinds).replace("/p", "q").replace("/d", "e")
    except TypeError:  # (a None) the rest of the text from another character on: declined
        return None
    if "".join(flat[::11]):  # pragma: no cover - the rows cover the text
        return None
    if len(order) != len(kinds) or not _STRUCTURE.fullmatch(order):
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
        try:
            joined = "".join(column)
        except TypeError:  # (a None) an annotation without this infon
            column = columns[n] = [value or "" for value in column]
            joined = "".join(column)
        if "&" in joined:
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
    p_at = np.array(p_offsets, dtype=np.int64)
    p_length = np.fromiter(map(len, p_texts), dtype=np.int64, count=len(p_texts))
    bodies: list[str] | None
    if p_counts.count(1) == n_docs:  # one passage a document
        bodies = [" " * o + t if o else t for o, t in zip(p_offsets, p_texts, strict=True)]
    else:
        bodies = _bodies(p_at, p_length, p_texts, in_document[is_passage], p_counts)
    if bodies is None:
        return None  # passages that overlap: an error
    numbers = np.fromstring(" ".join(a_offsets + a_lengths), dtype=np.int64, sep=" ")
    if numbers.shape[0] != 2 * len(a_offsets):  # pragma: no cover - the scans read digits
        return None
    starts, lengths = numbers[: len(a_offsets)], numbers[len(a_offsets) :]  # (parsed at once:
    # the join of whole numbers of at most 16 ASCII digits, four times faster than one by one)
    ends = starts + lengths
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
    block = EntityBlock()
    names_of_types = list(dict.fromkeys(types))  # first seen first, as add_lists numbers them
    code_of = dict(zip(names_of_types, range(len(names_of_types)), strict=True))
    codes = np.fromiter(map(code_of.__getitem__, types), dtype=np.int64, count=len(types))
    block.add_arrays(starts, ends, codes, names_of_types)
    columns = _CorpusColumns(
        block, edges, {"ids": ids, "types": types, "starts": start_list, "ends": end_list,
                       "texts": written}, concepts, a_document
    )  # fmt: skip
    out: list[BiocFile] = []
    new = _CorpusFile.__new__
    pairs = zip(names, bodies, file_rows(block, edges), strict=True)
    for d, (name, body, rows) in enumerate(pairs):
        file = new(_CorpusFile)
        file.id, file.path, file.text, file.id_infon = name, path, body, id_infon
        file.rows, file.fragments, file.warnings = rows, None, []
        file.columns, file.number, file.sentences = columns, d, tuple(warned.get(d, ()))
        out.append(file)
    return out


def _bodies(
    offsets: Any, lengths: Any, texts: list[str], documents: Any, counts: list[int]
) -> list[str] | None:
    """Each document's text from its passages (``offsets``, ``lengths`` and ``texts`` of every
    passage, ``documents`` the document of each, ``counts`` how many each document has): the
    passages in the order of their offsets (those at the same offset as written), the gaps
    between them spaces; ``None`` when two overlap.

    >>> import numpy as np
    >>> texts = ["b", "a", "", "c"]
    >>> lengths = np.array([1, 1, 0, 1])
    >>> _bodies(np.array([2, 0, 0, 1]), lengths, texts, np.array([0, 0, 1, 1]), [2, 2, 0])
    ['a b', ' c', '']
    >>> _bodies(np.array([0, 0]), np.array([1, 1]), ["a", "b"], np.array([0, 0]), [2])
    """
    import numpy as np

    order = np.argsort(offsets, kind="stable")
    order = order[np.argsort(documents[order], kind="stable")]
    at, ends = offsets[order], (offsets + lengths)[order]
    before = np.zeros_like(at)  # where the passage before it in its document ends
    before[1:] = ends[:-1]
    firsts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=firsts[1:])
    before[firsts[:-1][np.asarray(counts) > 0]] = 0
    gaps = at - before
    if gaps.size and gaps.min() < 0:
        return None
    pieces = [
        " " * g + texts[k] if g else texts[k]
        for g, k in zip(gaps.tolist(), order.tolist(), strict=True)
    ]
    return ["".join(pieces[lo:hi]) for lo, hi in pairwise(firsts.tolist())]


class _CorpusColumns(ScanColumns):
    """The columns of every document of a corpus scan (``lists``: the ids, types, starts,
    ends and texts of every annotation; ``concepts``: each one's concept id, empty when none;
    ``documents``: each one's document), each document's own made on first use
    (:class:`_CorpusFile`)."""

    __slots__ = ("concepts", "documents", "held", "lists")

    def __init__(
        self,
        block: EntityBlock,
        bounds: list[int],
        lists: dict[str, list[Any]],
        concepts: list[str],
        documents: Any,
    ) -> None:
        super().__init__(block, bounds)
        self.lists, self.concepts, self.documents = lists, concepts, documents
        self.held: list[list[tuple[int, str, str, Any]]] | None = None

    def field(self, name: str, d: int) -> Any:
        """Document ``d``'s value of :class:`~annoscore.formats.bioc_tree.BiocFile` field
        ``name``."""
        if name in self.lists:
            return self.lists[name][self.bounds[d] : self.bounds[d + 1]]
        if name == "concepts":  # (position in the document, mention id, concept id, text)
            if self.held is None:
                edges, ids, written = self.bounds, self.lists["ids"], self.lists["texts"]
                held: list[list[tuple[int, str, str, Any]]] = [[] for _ in edges[1:]]
                for j in [j for j, concept in enumerate(self.concepts) if concept]:
                    e = int(self.documents[j])
                    held[e].append((j - edges[e] + 1, ids[j], self.concepts[j], written[j]))
                self.held = held
            return self.held[d]
        if name == "lines":
            return None
        return ()  # normalizations, attributes, relations, events, notes


class _CorpusFile(ScannedFields, BiocFile):
    """A document a corpus scan read: a :class:`~annoscore.formats.bioc_tree.BiocFile` whose
    id, path, text, rows, fragments, warnings, concept infon name and reader warnings are set
    when read (what the ``spans`` task asks of every document) and whose other fields are made
    from the scan's columns when first asked for (then kept)."""

    __slots__ = ("columns", "number")

    LAZY = ScannedFields.LAZY | {"concepts"}
    """The fields made on first use."""


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
    flat = pattern.split(text[head.end() : end])  # as the XML scan: no tuple a row
    step = pattern.groups + 1
    if len(flat) == 1 or "".join(flat[::step]):  # no row (or text between rows: none is)
        return None
    columns = {name: flat[k::step] for name, k in pattern.groupindex.items()}
    marks = (columns[name] for name in ("comma", "document", "passage", "annotation", "end"))
    # each row's comma and kind (a group not in its row is None: every one in a row of
    # another character, which so adds nothing)
    kinds = "".join(filter(None, chain.from_iterable(zip(*marks, strict=True))))
    order = kinds.replace(",", "").translate(_JSON_KINDS)
    if len(order) != len(columns["comma"]) or not _JSON_STRUCTURE.fullmatch(kinds):
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


def _json_strings(column: list[Any]) -> list[str]:
    """JSON strings as written (without their quotes; ``None``: none written, an empty
    string) as ``json.loads`` reads them: one call for the column when some string has an
    escape."""
    try:
        joined = "".join(column)
    except TypeError:  # (a None)
        if column.count(None) == len(column):
            return [""] * len(column)
        column = [value or "" for value in column]
        joined = "".join(column)
    if "\\" not in joined:
        return column
    decoded: list[str] = json.loads("[" + ",".join(map('"{}"'.format, column)) + "]")
    return decoded
