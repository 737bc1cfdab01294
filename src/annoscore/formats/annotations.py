"""Annotated documents from any entity format annoscore reads, by name or recognised.

Format names, the same in every option and command (``../shared/spec/formats.md``):
``brat``, ``bioc-xml``, ``bioc-json``, ``pubtator``, ``i2b2-xml``, ``prodigy-jsonl``,
``spacy-jsonl``, ``conll-bio``, ``nlpsandbox-json``.  :func:`read_annotations` reads a file (or
a brat folder) into :class:`~annoscore.model.AnnotatedDocument` objects, whatever the format:
what ``spans``, the report and ``convert`` take on either side (an NLP Sandbox annotation file:
:func:`~annoscore.formats.nlpsandbox.read_sandbox_documents`, documents without text).

**BIO becomes spans at the door** (:func:`bio_documents`): a CoNLL tag file's chunks (seqeval's
default reading, which knows IOBES; the last field is the tag) become mentions whose offsets
are character offsets into the document text made of its tokens joined by one space, sentences
by a line end; each ``-DOCSTART-`` block is a document.

:func:`detect_format` recognises a file from its name and its first bytes and says why.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.conll"
>>> _ = path.write_text("John B-PER\\nSmith I-PER\\nruns O\\n")
>>> detect_format(path)
('conll-bio', 'token lines with a tag last')
>>> [(m.span.start, m.span.end, m.type, m.text) for m in read_annotations(path)[0].mentions]
[(0, 10, 'PER', 'John Smith')]
"""

from __future__ import annotations

import json
import os
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from annoscore.errors import InputError
from annoscore.model import AnnotatedDocument, Mention, Span
from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from collections.abc import Mapping

    from annoscore.formats.brat_model import AnnFile

Format = Literal[
    "brat",
    "bioc-xml",
    "bioc-json",
    "pubtator",
    "i2b2-xml",
    "prodigy-jsonl",
    "spacy-jsonl",
    "conll-bio",
    "nlpsandbox-json",
    "spacy-docbin",
]
"""A format's name, as every option and command spells it (``spacy-docbin``: spaCy's binary
DocBin, read only with spaCy installed)."""

FORMATS: tuple[str, ...] = typing.get_args(Format)

OffsetUnit = Literal["chars", "utf8-bytes", "auto"]
"""What BioC offsets count (:mod:`annoscore.formats.bioc`): characters, UTF-8 bytes, or
characters unless only bytes make the annotation texts match."""

Answer = Literal["accept", "reject", "ignore"]
"""A Prodigy task's ``answer``: the lines kept are those whose answer is listed (``accept``
by default; a line without one is ``accept``)."""


class ReaderOptions(Record):
    """How the readers take what a format leaves open: one record, passed whole from the
    command line (``annoscore spans``, ``annoscore convert``) through :func:`read_corpus` and
    :func:`read_columns` to the BioC and Prodigy readers; each format reads its own fields and
    leaves the others.

    ``type_infon``: the BioC infon that names an annotation's type; ``id_infon``: the BioC
    infon that holds its concept id; ``offsets``: what BioC offsets count
    (:data:`OffsetUnit`); ``answers``: the Prodigy answers whose lines are kept
    (:data:`Answer`).

    >>> ReaderOptions()
    ReaderOptions(type_infon='type', id_infon='identifier', offsets='chars', answers=('accept',))
    """

    __slots__ = ("type_infon", "id_infon", "offsets", "answers")  # noqa: RUF023 (their order)
    type_infon: str
    id_infon: str
    offsets: OffsetUnit
    answers: tuple[Answer, ...]

    def __init__(
        self,
        type_infon: str = "type",
        id_infon: str = "identifier",
        offsets: OffsetUnit = "chars",
        answers: tuple[Answer, ...] = ("accept",),
    ) -> None:
        set_fields(self, type_infon=type_infon, id_infon=id_infon, offsets=offsets, answers=answers)


def left_out(path: Path | str, skipped: int, answers: tuple[str, ...]) -> str:
    """The warning that ``skipped`` Prodigy lines of ``path`` were left out, their answer not
    one of ``answers``.

    >>> left_out("a.jsonl", 2, ("accept",)), left_out("a.jsonl", 1, ("accept", "ignore"))
    ('a.jsonl: 2 line(s) left out (answer not accept)', \
'a.jsonl: 1 line(s) left out (answer not accept or ignore)')
    """
    return f"{path}: {skipped} line(s) left out (answer not {' or '.join(answers)})"


def detect_format(path: Path) -> tuple[str, str]:
    """The format of ``path`` and why: a folder is brat (i2b2 XML when it has ``.xml`` files
    and no ``.ann``), and so is a ``.ann`` file; a ``.spacy`` file is spaCy's DocBin; otherwise
    the first
    bytes decide (an XML root ``<collection>`` is BioC, one with ``<TEXT>`` i2b2; a JSON object
    with ``documents`` BioC JSON, a list of notes NLP Sandbox; JSON lines with ``spans`` or
    ``answer`` Prodigy, with ``ents`` spaCy; ``ID|t|`` PubTator; token lines CoNLL BIO); an
    :class:`InputError` when nothing fits."""
    if path.is_dir():
        from annoscore.formats.files import selected_names

        # a chunk's names (a subset of the folder's entries) with a .ann: the folder not opened
        if any(name.endswith(".ann") for name in selected_names(path) or ()):
            return "brat", "a folder with .ann files"
        xml = False
        with os.scandir(path) as entries:
            for entry in entries:  # the first .ann decides: a brat folder is not listed whole
                if entry.name.endswith(".ann"):
                    return "brat", "a folder with .ann files"
                xml = xml or entry.name.endswith(".xml")
        if xml:
            return "i2b2-xml", "a folder of .xml files"
        return "brat", "a folder"
    if path.suffix == ".ann":
        return "brat", "a .ann file"
    if path.suffix == ".spacy":
        return "spacy-docbin", "a .spacy file"
    try:
        with path.open("rb") as handle:
            head = handle.read(65536).decode("utf-8", errors="replace")
    except OSError as error:
        raise InputError(f"cannot read ({error.strerror})", path) from None
    start = head.lstrip("\ufeff \t\r\n")
    if start.startswith("<"):
        if "<collection" in head:
            return "bioc-xml", "an XML <collection>"
        if "<TEXT" in head:
            return "i2b2-xml", "XML with a <TEXT> element"
    first_line = start.split("\n", 1)[0]
    if start.startswith("{") and path.suffix != ".jsonl" and '"documents"' in head:
        return "bioc-json", 'a JSON object with "documents"'
    if start.startswith("{"):
        try:
            item = json.loads(first_line)
        except json.JSONDecodeError:
            item = None
        if isinstance(item, dict):
            if "spans" in item or "answer" in item:
                return "prodigy-jsonl", 'JSON lines with "spans" or "answer"'
            if "ents" in item:
                return "spacy-jsonl", 'JSON lines with "ents"'
    if start.startswith("["):
        return "nlpsandbox-json", "a JSON list"
    if "|t|" in first_line or "|a|" in first_line:
        return "pubtator", "an ID|t|title line"
    if first_line.split():
        return "conll-bio", "token lines with a tag last"
    raise InputError(f"cannot tell the format; give it ({', '.join(FORMATS)})", path)


def bio_documents(path: Path) -> list[AnnotatedDocument]:
    """The documents of a CoNLL BIO file as mentions over its tokens (the module doc)."""
    from annoscore.formats.bio_tags import default_entities
    from annoscore.formats.conll_bio import DOCSTART, read_tags

    columns = read_tags(path, delimiter=None, columns=(-1,))
    starts = [d.start for d in columns.documents] + [len(columns)]
    out = []
    for k, document in enumerate(columns.documents):
        pieces: list[str] = []
        offsets: list[tuple[int, int]] = []
        tags: list[str] = []
        at = 0
        for i in range(starts[k], starts[k + 1]):
            token = columns.tokens[i]
            if columns.boundary[i] or token == DOCSTART:
                if pieces and pieces[-1] != "\n":
                    pieces.append("\n")
                    at += 1
                tags.append("O")
                offsets.append((at, at))
                continue
            if pieces and pieces[-1] != "\n":
                pieces.append(" ")
                at += 1
            offsets.append((at, at + len(token)))
            pieces.append(token)
            at += len(token)
            tags.append(columns.columns[0][i])
        text = "".join(pieces)
        mentions = tuple(
            Mention(
                Span.of(offsets[begin][0], offsets[end - 1][1]),
                kind,
                f"T{n}",
                text[offsets[begin][0] : offsets[end - 1][1]],
                columns.line[starts[k] + begin],
            )
            for n, (kind, begin, end) in enumerate(default_entities(tags), 1)
        )
        out.append(AnnotatedDocument(document.name, mentions, text, path=str(path)))
    return out


class AnnotationCorpus(Record):
    """The documents of one file (or brat folder) by id, its format, and the reader's warnings
    about the whole file (a recognised format is named in one)."""

    __slots__ = ("form", "documents", "warnings")  # noqa: RUF023 (the fields' order)
    form: str
    documents: dict[str, AnnotatedDocument]
    warnings: tuple[str, ...]

    def __init__(
        self, form: str, documents: dict[str, AnnotatedDocument], warnings: tuple[str, ...] = ()
    ) -> None:
        set_fields(self, form=form, documents=documents, warnings=warnings)


def read_corpus(
    path: Path,
    form: str | None = None,
    options: ReaderOptions = ReaderOptions(),
) -> AnnotationCorpus:
    """:func:`read_annotations` keyed by document id, with the file's warnings: which format
    was recognised when ``form`` is ``None`` (unless brat), BioC's offset units, Prodigy's
    answers left out.  A document id given twice is an :class:`InputError`.  ``options``: the
    BioC infons and offset units, the Prodigy answers kept (:class:`ReaderOptions`).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("1|t|Aspirin works\\n1\\t0\\t7\\tAspirin\\tChemical\\tD001241\\n")
    >>> corpus = read_corpus(path)
    >>> corpus.form, list(corpus.documents), corpus.warnings[0].split(": ")[1]
    ('pubtator', ['1'], 'read as pubtator (recognised from an ID|t|title line)')
    """
    warnings: list[str] = []
    if form is None:
        form, why = detect_format(path)
        if form != "brat":
            warnings.append(f"{path}: read as {form} (recognised from {why})")
    documents, found = _read(path, form, options)
    warnings += found
    by_id: dict[str, AnnotatedDocument] = {}
    for document in documents:
        if document.id in by_id:
            raise InputError(
                f"document {document.id!r} appears twice ({by_id[document.id].path or path} "
                f"and {document.path or path}); a side gives each document once",
                path,
            )
        by_id[document.id] = document
    return AnnotationCorpus(form, by_id, tuple(warnings))


def read_columns(
    path: Path,
    form: str | None = None,
    options: ReaderOptions = ReaderOptions(),
) -> tuple[str, Mapping[str, AnnotatedDocument | AnnFile], tuple[str, ...]]:
    """:func:`read_corpus` as the ``spans`` task scores it: its format, its documents by id,
    its warnings; the documents of a PubTator, JSONL or BioC file as columns
    (:func:`~annoscore.formats.pubtator.read_pubtator_columns`,
    :func:`~annoscore.formats.jsonl.read_jsonl_columns`,
    :func:`~annoscore.formats.bioc.read_bioc_files`: a BioC document with sentences as the
    model object), any other's as model objects.  The format is recognised once, here.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("1|t|Aspirin works\\n1|a|x\\n1\\t0\\t7\\tAspirin\\tChemical\\tD1\\n")
    >>> form, documents, warnings = read_columns(path)
    >>> form, list(documents["1"].types), warnings[0].split(": ")[1]
    ('pubtator', ['Chemical'], 'read as pubtator (recognised from an ID|t|title line)')
    """
    warnings: tuple[str, ...] = ()
    if form is None and not path.is_dir():
        form, why = detect_format(path)
        if form != "brat":
            warnings = (f"{path}: read as {form} (recognised from {why})",)
    if form == "pubtator":
        from annoscore.formats.pubtator import read_pubtator_columns

        return form, read_pubtator_columns(path), warnings
    if form in ("prodigy-jsonl", "spacy-jsonl"):
        from annoscore.formats.jsonl import read_jsonl_columns

        documents, skipped = read_jsonl_columns(path, form, _answers(options.answers))
        if skipped:
            warnings += (left_out(path, skipped, options.answers),)
        return form, documents, warnings
    if form in ("bioc-xml", "bioc-json"):
        from annoscore.formats.bioc import read_bioc_files

        files, found = read_bioc_files(path, form, options)
        by_file = {f.id: f.document() if f.sentences else f for f in files}  # ids: each once
        return form, by_file, (*warnings, *found)
    corpus = read_corpus(path, form, options)
    return corpus.form, corpus.documents, (*warnings, *corpus.warnings)


def _answers(answers: tuple[str, ...]) -> tuple[str, ...]:
    """``answers`` when it names one at least (none would leave every Prodigy line out)."""
    if not answers:
        raise InputError("--answers: name one answer at least (accept, reject, ignore)")
    return answers


def read_annotations(path: Path, form: str | None = None) -> list[AnnotatedDocument]:
    """The documents of ``path`` in format ``form`` (recognised when ``None``:
    :func:`detect_format`)."""
    if form is None:
        form, _ = detect_format(path)
    return _read(path, form, ReaderOptions())[0]


def _read(
    path: Path, form: str, options: ReaderOptions
) -> tuple[list[AnnotatedDocument], list[str]]:
    """The documents of ``path`` in format ``form``, read with ``options``, and the reader's
    warnings (BioC's offset units, the Prodigy lines left out)."""
    if form not in FORMATS:
        raise InputError(f"unknown format {form!r}; expected one of {', '.join(FORMATS)}")
    if form == "brat":
        from annoscore.formats.brat import read_brat

        return list(read_brat(path).values()), []
    if form in ("bioc-xml", "bioc-json"):
        from annoscore.formats.bioc import read_bioc

        bioc = read_bioc(path, form, options)
        return bioc.documents, bioc.warnings
    if form in ("prodigy-jsonl", "spacy-jsonl"):
        from annoscore.formats.jsonl import read_jsonl

        jsonl = read_jsonl(path, form, _answers(options.answers))
        skipped = [left_out(path, jsonl.skipped, options.answers)] if jsonl.skipped else []
        return jsonl.documents, skipped
    if form == "pubtator":
        from annoscore.formats.pubtator import read_pubtator

        return read_pubtator(path), []
    if form == "i2b2-xml":
        from annoscore.formats.i2b2 import read_i2b2

        if path.is_dir():  # a folder of notes, one document per .xml file
            return [read_i2b2(p) for p in sorted(path.glob("*.xml")) if p.is_file()], []
        return [read_i2b2(path)], []
    if form == "conll-bio":
        return bio_documents(path), []
    if form == "spacy-docbin":
        from annoscore.formats.spacy_docbin import read_docbin

        return read_docbin(path), []
    from annoscore.formats.nlpsandbox import read_sandbox_documents

    return read_sandbox_documents(path), []
