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

>>> docs = read_pubtator_text(
...     "1|t|Aspirin helps\\n1|a|Pain goes.\\n1\\t0\\t7\\tAspirin\\tChemical\\tD001241\\n", "x")
>>> [(m.span.start, m.span.end, m.type, m.text) for m in docs[0].mentions]
[(0, 7, 'Chemical', 'Aspirin')]
>>> docs[0].normalizations[0].reference
'D001241'
"""

from __future__ import annotations

from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import first_line, read_text
from annoscore.model import AnnotatedDocument, Mention, Normalization, Relation, Span

SEPARATOR = " "
"""What stands between the title and the abstract in the document text (one character)."""

NO_ID = frozenset({"", "-1"})
"""Concept ids that mean "no id"."""


def read_pubtator(path: Path) -> list[AnnotatedDocument]:
    """The documents of a PubTator file (:func:`read_pubtator_text`)."""
    return read_pubtator_text(read_text(path), str(path), first_line(path))


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
