"""PubTator files: title, abstract, annotation and relation lines, in blocks per document.

::

    12345|t|Title text
    12345|a|Abstract text
    12345<TAB>0<TAB>5<TAB>Title<TAB>Disease<TAB>D003920
    12345<TAB>CID<TAB>D003920<TAB>D001241
    <blank line>

Rules (``../shared/spec/formats.md``, "Decisions for annoscore"):

* The document text is the title, one separator (a space), then the abstract: annotation offsets
  count into it, end exclusive.
* An annotation line has at least 5 tab-separated fields (PMID, start, end, mention, type) and
  usually a concept id (6th; ``-1`` or empty means no id; composite mentions join ids with ``|``,
  kept as written); more fields (a composite mention's sub-mention texts) are kept.  Fields are
  **not** stripped: an empty last column stays an annotation (``bioc.pubtator`` strips the line
  and then reads it as a relation).
* A relation line has 4 fields: PMID, relation type, id 1, id 2.
* Each annotation's mention text is checked against the document text at its offsets: a
  difference is a warning naming both strings; offsets outside the text are an error.
* Errors (:class:`~annoscore.errors.InputError` naming file and line): a line that is none of the
  above, a PMID other than its block's, offsets that are not integers or not in order, a
  document id used twice.  A line end ``\\r\\n`` is read as ``\\n``.

Two readings: :func:`read_pubtator` gives model objects
(:class:`~annoscore.model.AnnotatedDocument`); :func:`read_pubtator_columns` gives the columns the
``spans`` task scores from (a document without reader warnings as a :class:`PubTatorFile`, one with
warnings as the model object that carries them).  The columns come from a fast step first,
:func:`_scan_pubtator` (NumPy on the file's bytes, no Python code per annotation line; it declines,
``None``, anything unusual: a ``\\r`` but a line end's, a byte-order mark, a document without an
abstract, a mention text that differs from the document text, any error), then from the checked
parser (:func:`read_pubtator_text`, the only one that names file and line); both give the same
columns (``tests/equivalence/test_pubtator.py``).

>>> docs = read_pubtator_text(
...     "1|t|Aspirin helps\\n1|a|Pain goes.\\n1\\t0\\t7\\tAspirin\\tChemical\\tD001241\\n", "x")
>>> [(m.span.start, m.span.end, m.type, m.text) for m in docs[0].mentions]
[(0, 7, 'Chemical', 'Aspirin')]
>>> docs[0].normalizations[0].reference
'D001241'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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
from annoscore.model import AnnotatedDocument, Mention, Normalization, Relation, Span

SEPARATOR = " "
"""What stands between the title and the abstract in the document text (one character)."""

NO_ID = frozenset({"", "-1"})
"""Concept ids that mean "no id"."""


def read_pubtator(path: Path) -> list[AnnotatedDocument]:
    """The documents of a PubTator file (:func:`read_pubtator_text`)."""
    return read_pubtator_text(read_text(path), str(path), first_line(path))


@dataclass(slots=True)
class PubTatorFile(AnnFile):
    """One PubTator document as the columns of an :class:`~annoscore.formats.brat_model.AnnFile`,
    with each annotation's concept id as written (``concepts``: the 6th column, ``""`` when
    there is none): :meth:`document` gives its normalizations (``-1`` and ``""`` are no id)."""

    concepts: Sequence[str] = ()
    """Each annotation's concept id as written (``""`` for ``-1`` or none)."""

    def document(self) -> AnnotatedDocument:
        """The document as :func:`read_pubtator_text` gives it."""
        document = AnnFile.document(self)
        normalizations = tuple(
            Normalization(f"N{k}", "Reference", f"T{k}", "", concept, written)
            for k, (concept, written) in enumerate(zip(self.concepts, self.texts, strict=True), 1)
            if concept not in NO_ID
        )
        return replace(document, normalizations=normalizations)


def read_pubtator_columns(path: Path) -> dict[str, AnnFile | AnnotatedDocument]:
    """The documents of a PubTator file by id as the ``spans`` task scores them: a document
    without reader warnings as columns (:class:`PubTatorFile`, its entities rows of one
    :class:`~annoscore.formats.brat_model.EntityBlock` of the file), one with warnings as the
    model object (its warnings are sentences).  The scan reads the file when it can, the
    checked parser otherwise: the same columns either way.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("1|t|Aspirin helps\\n1|a|Pain.\\n1\\t0\\t7\\tAspirin\\tDrug\\t-1\\n")
    >>> doc = read_pubtator_columns(path)["1"]
    >>> list(doc.starts), list(doc.ends), list(doc.types), list(doc.texts), doc.text
    ([0], [7], ['Drug'], ['Aspirin'], 'Aspirin helps Pain.')
    """
    text, name, first = read_text(path), str(path), first_line(path)  # a chunk's first line
    scanned = _scan_pubtator(text, name, first)
    if scanned is not None:
        return scanned
    documents = read_pubtator_text(text, name, first)
    return {d.id: d if d.warnings else _columns_of(d) for d in documents}


def _columns_of(document: AnnotatedDocument) -> PubTatorFile:
    """A document the parser read as :class:`PubTatorFile` columns."""
    concept = {n.target: n.reference for n in document.normalizations}
    file = AnnFile.of(document)
    return PubTatorFile(
        file.id,
        file.path,
        file.ids,
        file.types,
        file.starts,
        file.ends,
        file.texts,
        file.lines,
        None,
        file.text,
        relations=file.relations,
        concepts=[concept.get(m.id, "") for m in document.mentions],
    )


class _Block:
    def __init__(self, pmid: str, line: int) -> None:
        self.pmid = pmid
        self.line = line
        self.title: str | None = None
        self.abstract: str | None = None
        self.annotations: list[tuple[int, list[str]]] = []
        self.relations: list[tuple[int, list[str]]] = []


def _text_line(line: str) -> tuple[str, str, str] | None:
    first = line.find("|")
    if first <= 0 or "\t" in line[:first]:
        return None
    kind = line[first + 1 : first + 3]
    if kind not in ("t|", "a|"):
        return None
    return line[:first], kind[0], line[first + 3 :]


def read_pubtator_text(text: str, path: str, first: int = 1) -> list[AnnotatedDocument]:
    """The documents of PubTator ``text`` (the module doc gives the rules); ``path`` names it
    in errors and warnings, whose line numbers count from ``first`` (a chunk of a file)."""
    blocks: list[_Block] = []
    block: _Block | None = None
    for number, raw in enumerate(text.split("\n"), first):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            block = None
            continue
        titled = _text_line(line)
        if titled is not None:
            pmid, kind, body = titled
            if block is None or block.pmid != pmid:
                if block is not None and (kind == "a" and block.abstract is None):
                    raise InputError(
                        f"abstract of document {pmid!r} inside the block of {block.pmid!r}",
                        path,
                        number,
                    )
                block = _Block(pmid, number)
                blocks.append(block)
            if kind == "t":
                if block.title is not None:
                    raise InputError(f"a second title for document {pmid!r}", path, number)
                block.title = body
            else:
                if block.abstract is not None:
                    raise InputError(f"a second abstract for document {pmid!r}", path, number)
                block.abstract = body
            continue
        fields = line.split("\t")
        if block is None:
            raise InputError(
                "an annotation or relation line before any title or abstract line "
                "(expected PMID|t|title)",
                path,
                number,
            )
        if fields[0] != block.pmid:
            raise InputError(
                f"document id {fields[0]!r} inside the block of {block.pmid!r}", path, number
            )
        if len(fields) == 4:
            block.relations.append((number, fields))
        elif len(fields) >= 5:
            block.annotations.append((number, fields))
        else:
            raise InputError(
                f"{len(fields)} tab-separated fields; expected PMID|t|title, PMID|a|abstract, "
                "an annotation (PMID start end mention type [id]) or a relation (PMID type "
                "id1 id2)",
                path,
                number,
            )
    documents: list[AnnotatedDocument] = []
    seen: dict[str, int] = {}
    for block in blocks:
        if block.pmid in seen:
            raise InputError(
                f"document {block.pmid!r} again (first on line {seen[block.pmid]})",
                path,
                block.line,
            )
        seen[block.pmid] = block.line
        documents.append(_document(block, path))
    return documents


def _offset(value: str, path: str, line: int) -> int:
    if not value.isascii() or not value.isdigit():
        raise InputError(f"offset {value!r} is not a whole number", path, line)
    return int(value)


def _document(block: _Block, path: str) -> AnnotatedDocument:
    title = block.title or ""
    text = title if block.abstract is None else title + SEPARATOR + block.abstract
    mentions: list[Mention] = []
    normalizations: list[Normalization] = []
    relations: list[Relation] = []
    warnings: list[str] = []
    for k, (line, fields) in enumerate(block.annotations, 1):
        start, end = _offset(fields[1], path, line), _offset(fields[2], path, line)
        if end < start or end > len(text):
            raise InputError(
                f"offsets {start}-{end} outside the text of document {block.pmid!r} "
                f"({len(text)} characters) or out of order",
                path,
                line,
            )
        mention_id = f"T{k}"
        written = fields[3]
        if text[start:end] != written:
            warnings.append(
                f"{path}:{line}: mention {written!r} where the text has {text[start:end]!r}"
            )
        mentions.append(Mention(Span.of(start, end), fields[4], mention_id, written, line))
        concept = fields[5] if len(fields) > 5 else ""
        if concept not in NO_ID:
            normalizations.append(
                Normalization(f"N{k}", "Reference", mention_id, "", concept, written)
            )
    for k, (_line, fields) in enumerate(block.relations, 1):
        relations.append(Relation(f"R{k}", fields[1], (("Arg1", fields[2]), ("Arg2", fields[3]))))
    return AnnotatedDocument(
        block.pmid,
        tuple(mentions),
        text,
        normalizations=tuple(normalizations),
        relations=tuple(relations),
        path=path,
        warnings=tuple(warnings),
    )


# --- the scan --------------------------------------------------------------------------------

_MAX_TYPE_BYTES = 64
"""Type names longer than this (in UTF-8 bytes) are declined (the parser reads them)."""


class _Strings:
    """Texts of a file cut at character positions ``lo[k]:hi[k]`` (``lo[k] == -1``: none, read
    as ``""``; so is ``nothing``), made into Python strings on first use (most commands never
    ask)."""

    __slots__ = ("_built", "_hi", "_lo", "_nothing", "_text")

    def __init__(self, text: str, lo: Any, hi: Any, nothing: str = "") -> None:
        self._text, self._lo, self._hi, self._nothing = text, lo, hi, nothing
        self._built: list[str] | None = None

    def strings(self) -> list[str]:
        if self._built is None:
            text, nothing = self._text, self._nothing
            pairs = zip(self._lo.tolist(), self._hi.tolist(), strict=True)
            built = [text[a:b] if a >= 0 else "" for a, b in pairs]
            self._built = [s if s != nothing else "" for s in built] if nothing else built
        return self._built


class _ScanColumns(ScanColumns):
    """The columns of every document of one scan, made into each document's lists on first
    use (:class:`_ScannedFile`): with the types and offsets, the lines, the written mention
    texts, the concept ids and the relations."""

    __slots__ = ("concepts", "lines", "relations", "written")

    def __init__(
        self,
        block: EntityBlock,
        bounds: list[int],
        lines: Any,
        written: _Strings,
        concepts: _Strings,
        relations: dict[int, tuple[Relation, ...]],
    ) -> None:
        super().__init__(block, bounds)
        self.lines, self.written, self.concepts, self.relations = (
            lines,
            written,
            concepts,
            relations,
        )

    def column(self, name: str) -> list[Any]:
        if name == "lines":
            found: list[Any] = self.lines.tolist()
            return found
        return super().column(name)

    def field(self, name: str, d: int) -> Any:
        """Document ``d``'s value of :class:`PubTatorFile` field ``name``."""
        lo, hi = self.bounds[d], self.bounds[d + 1]
        if name in ("types", "starts", "ends", "lines"):
            return self.whole(name)[lo:hi]
        if name == "ids":
            return self.mention_ids(d)
        if name == "texts":
            return LazyRows(self.written, lo, hi)
        if name == "concepts":
            return LazyRows(self.concepts, lo, hi)
        if name == "relations":
            return self.relations.get(d, ())
        return ()  # normalizations (from the concepts: PubTatorFile.document), attributes, ...


class _ScannedFile(ScannedFields, PubTatorFile):
    """A document the scan read: a :class:`PubTatorFile` whose id, path, text, rows, fragments
    and warnings are set when read (what the ``spans`` task asks of every document) and whose
    other fields are made from the scan's columns when first asked for (then kept)."""

    __slots__ = ("columns", "number")

    LAZY = ScannedFields.LAZY | {"concepts"}
    """The fields made on first use."""


def _scan_pubtator(
    text: str, path: str, first_number: int = 1
) -> dict[str, AnnFile | AnnotatedDocument] | None:
    """The documents of PubTator ``text`` as columns, read in NumPy without Python code per
    annotation line, or ``None`` (declined: the parser reads it).

    Taken: blocks of a title line, an abstract line of the same PMID, then annotation lines
    (at least 5 fields, offsets of 1 to 16 ASCII digits in order and inside the text, the
    mention text equal to the document text there, a type of at most
    :data:`_MAX_TYPE_BYTES` bytes) and relation lines (4 fields), each block after a blank line
    (or first), every document id once; no byte-order mark, and no ``\\r`` but before a line's
    ``\\n`` (Windows line ends, which the parser reads as ``\\n``).  Anything else (every error
    and every warning of the parser among it) is declined."""
    if "\r" in text:
        # the parser drops one \r before each \n and keeps any other \r as text: declined
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    if not text or "\ufeff" in text:
        return None
    import numpy as np

    from annoscore.formats.brat_scan import _PAD, _digits, _same_bytes, _type_keys

    data = text.encode("utf-8")
    if data[-1] != 10:  # a last line without its newline reads alike with it
        data += b"\n"
    pad = len(_PAD)
    buf = np.frombuffer(_PAD + data + _PAD, dtype=np.uint8)
    end_of_data = pad + len(data)
    scanned = buf[:end_of_data]
    marks = np.flatnonzero((scanned < 32) | (scanned == 124))  # control bytes (tabs...) and |
    values = buf[marks]
    is_bar = values == 124
    bars = marks[is_bar]
    control = marks[~is_bar]  # newlines, tabs, other control bytes
    values = values[~is_bar]
    is_newline = values == 10
    newlines = control[is_newline]
    n = newlines.size
    starts_of = np.empty(n, dtype=np.int64)
    starts_of[0] = pad
    starts_of[1:] = newlines[:-1] + 1
    blank = newlines == starts_of
    is_tab = values == 9
    tabs = np.append(control[is_tab], np.full(6, end_of_data, dtype=np.int64))
    n_tabs = np.bincount((np.cumsum(is_newline) - is_newline)[is_tab], minlength=n)[:n]
    first_tab_at = np.cumsum(n_tabs) - n_tabs  # each line's first tab in ``tabs``
    bars_upto = np.searchsorted(bars, newlines)  # how many before each line's end
    first_bar_at = np.empty(n, dtype=np.int64)
    first_bar_at[0] = 0
    first_bar_at[1:] = bars_upto[:-1]
    n_bars = bars_upto - first_bar_at
    bars = np.append(bars, [end_of_data])
    first_tab = np.where(n_tabs > 0, tabs[first_tab_at], newlines)
    first_bar = np.where(n_bars > 0, bars[first_bar_at], newlines)
    kind = buf[first_bar + 1]
    is_text = (
        (n_bars > 0)
        & (first_bar > starts_of)
        & (first_tab > first_bar)
        & ((kind == 116) | (kind == 97))
        & (buf[first_bar + 2] == 124)
    )
    is_title = is_text & (kind == 116)
    is_abstract = is_text & (kind == 97)
    other = ~blank & ~is_text
    # each block: blank line (or none) - title - abstract - other lines
    before = np.empty(n, dtype=np.int64)  # what precedes: 0 blank or nothing, 1 title, 2 abstract
    before[0] = 0
    before[1:] = np.where(
        blank[:-1], 0, np.where(is_title[:-1], 1, np.where(is_abstract[:-1], 2, 3))
    )
    if (
        (is_title & (before != 0)).any()
        or (is_abstract & (before != 1)).any()
        or (other & (before < 2)).any()
        or (blank & (before == 1)).any()
    ):
        return None
    titles = np.flatnonzero(is_title)
    n_docs = titles.size
    if n_docs == 0 or titles[-1] + 1 == n:  # a title last: no abstract
        return None
    abstracts = titles + 1
    line_doc = np.cumsum(is_title) - 1
    rows = np.flatnonzero(other)
    row_tabs = n_tabs[rows]
    if (row_tabs < 3).any():
        return None
    # every PMID its title's: the same length, the same bytes
    pmid_at, pmid_end = starts_of[titles], first_bar[titles]
    pmid_size = pmid_end - pmid_at
    owners = np.concatenate([np.arange(n_docs, dtype=np.int64), line_doc[rows]])
    at = np.concatenate([starts_of[abstracts], starts_of[rows]])
    size = np.concatenate([first_bar[abstracts], first_tab[rows]]) - at
    if (size != pmid_size[owners]).any() or not _same_bytes(
        buf, at, buf, pmid_at[owners], size
    ).all():
        return None
    annotations = rows[row_tabs >= 4]
    relations = rows[row_tabs == 3]
    where = first_tab_at[annotations]
    t0, t1, t2, t3 = (tabs[where + k] for k in range(4))  # every annotation line has 4
    t4 = np.where(n_tabs[annotations] >= 5, tabs[where + 4], newlines[annotations])
    t5 = np.where(n_tabs[annotations] >= 6, tabs[where + 5], newlines[annotations])
    for lo, hi in ((t0, t1), (t1, t2)):
        digits = hi - lo - 1
        if ((digits < 1) | (digits > 16)).any():
            return None
    starts, starts_ok = _digits(buf, t0 + 1, t1)
    ends, ends_ok = _digits(buf, t1 + 1, t2)
    if not (starts_ok.all() and ends_ok.all()) or (t4 - t3 - 1 > _MAX_TYPE_BYTES).any():
        return None
    # characters: positions in the text (one per byte when it is ASCII)
    if text.isascii():

        def chars(positions: Any) -> Any:
            return positions - pad

        def byte_of(characters: Any) -> Any:
            return characters + pad
    else:
        char_starts = np.flatnonzero((buf & 0xC0) != 0x80)

        def chars(positions: Any) -> Any:
            return np.searchsorted(char_starts, positions) - pad

        def byte_of(characters: Any) -> Any:
            return char_starts[characters + pad]

    title_at, title_end = chars(first_bar[titles] + 3), chars(newlines[titles])
    abstract_at, abstract_end = chars(first_bar[abstracts] + 3), chars(newlines[abstracts])
    title_size = title_end - title_at
    text_size = title_size + 1 + abstract_end - abstract_at
    doc = line_doc[annotations]
    if (ends < starts).any() or (ends > text_size[doc]).any():
        return None
    # each mention text the document text's at its offsets: in the title, in the abstract, or
    # across the separator (compared as strings below)
    in_title = ends <= title_size[doc]
    in_abstract = starts > title_size[doc]
    offset = np.where(in_title, title_at[doc], abstract_at[doc] - title_size[doc] - 1)
    inside = np.flatnonzero(in_title | in_abstract)
    first = byte_of(offset[inside] + starts[inside])
    length = byte_of(offset[inside] + ends[inside]) - first
    written_at = t2[inside] + 1
    if (t3[inside] - written_at != length).any() or not _same_bytes(
        buf, written_at, buf, first, length
    ).all():
        return None
    across = np.flatnonzero(~(in_title | in_abstract))
    del in_title, in_abstract
    codes, type_names = _type_keys(buf, t3 + 1, t4)
    names = [name.decode("utf-8") for name in type_names]
    # the documents
    written = _Strings(text, chars(t2 + 1), chars(t3))
    concept_at = np.where(n_tabs[annotations] >= 5, chars(t4 + 1), -1)
    concepts = _Strings(text, concept_at, chars(t5), nothing="-1")
    relation_lists: dict[int, list[Relation]] = {}
    if relations.size:
        for line_at, line_end, owner in zip(
            chars(starts_of[relations]).tolist(),
            chars(newlines[relations]).tolist(),
            line_doc[relations].tolist(),
            strict=True,
        ):
            fields = text[line_at:line_end].split("\t")
            if not text[line_at:line_end].strip():
                return None  # a blank line to the parser
            found = relation_lists.setdefault(owner, [])
            found.append(
                Relation(
                    f"R{len(found) + 1}", fields[1], (("Arg1", fields[2]), ("Arg2", fields[3]))
                )
            )
    block = EntityBlock()
    block.add_arrays(starts, ends, codes, names)  # rows 0, 1, ... of a new block
    bounds = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc, minlength=n_docs), out=bounds[1:])
    places = np.stack(
        [chars(pmid_at), chars(pmid_end), title_at, title_end, abstract_at, abstract_end]
    ).tolist()
    bound_list = bounds.tolist()
    columns = _ScanColumns(
        block,
        bound_list,
        annotations + first_number,  # numbered from the chunk's first line
        written,
        concepts,
        {d: tuple(found) for d, found in relation_lists.items()},
    )
    out: dict[str, AnnFile | AnnotatedDocument] = {}
    new = _ScannedFile.__new__
    for d, doc_id_at, doc_id_end, a, b, c, e, rows in zip(
        range(n_docs), *places, file_rows(block, bound_list), strict=True
    ):
        doc_id = text[doc_id_at:doc_id_end]
        if doc_id in out:
            return None
        file = out[doc_id] = new(_ScannedFile)
        file.id, file.path, file.text = doc_id, path, text[a:b] + SEPARATOR + text[c:e]
        file.rows, file.fragments, file.warnings = rows, None, []
        file.columns, file.number = columns, d
    if across.size:  # mentions across the title's end: compared as strings
        bodies = [file.text or "" for file in out.values()]
        for owner, lo, hi, at, end in zip(
            doc[across].tolist(),
            starts[across].tolist(),
            ends[across].tolist(),
            chars(t2[across] + 1).tolist(),
            chars(t3[across]).tolist(),
            strict=True,
        ):
            if bodies[owner][lo:hi] != text[at:end]:
                return None
    return out
