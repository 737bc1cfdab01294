"""Generic span scoring: ``annoscore spans GOLD SYSTEM``, :func:`score_spans` on brat files and
:func:`count_spans` on documents in memory.

Modes: ``strict``, ``exact``, ``overlap``, ``relaxed`` and ``token`` score precision, recall
and f1, ``semeval`` ``{scheme}_precision``... per SemEval-2013 scheme (matching rules:
:mod:`annoscore.align.spans`; counts and types: :mod:`annoscore.metrics.spans`); ``concepts``
scores items of fragments, type and concept id, and each document's (type, id) pairs
(``ids_precision``...).

Matching is one-to-one and optimal and never depends on the order of the input.  F is
undefined only when a unit has no mention on either side, so a document whose mentions were all
missed has F 0 and pulls ``macro_doc`` down (:mod:`annoscore.metrics.prf`).  An option that has
no effect in the chosen mode (``tolerance`` outside ``relaxed``, ``min_overlap`` or
``overlap_basis`` outside ``overlap`` and ``semeval``) is an :class:`~annoscore.errors.InputError`.

``concepts`` mode (:mod:`annoscore.metrics.concepts`) reads the concept ids the readers carry
(BioC's ``id_infon`` infon, PubTator's 6th column, brat's ``N`` lines without the resource;
``-1`` is no id); items are sets.  A side with no concept id at all is named in a warning, and
so are ``type_infon``, ``id_infon`` and ``offsets`` given when neither side is BioC, and
``answers`` when neither is Prodigy JSONL (they have no effect).

Input: any entity format of :mod:`annoscore.formats.annotations` on either side (recognised
when ``gold_format`` or ``system_format`` is ``None``), documents paired by id.  Offsets are
compared as given; a paired document whose two sides both carry a text, and texts that differ
other than by a whitespace character for another or trailing whitespace (a CoNLL BIO file's
text is its tokens joined by spaces: a .txt with line ends there agrees, one with two spaces
does not), is named in the warning ``spans.text-differs``
(:func:`~annoscore.align.documents.texts_differ_at`); ``strict_input`` does not refuse it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from annoscore.align.documents import MissingDocs, paired_files
from annoscore.align.span_modes import Duplicates, OverlapBasis, SpanMode, match_options
from annoscore.errors import InputError
from annoscore.formats.annotations import (
    Answer,
    Format,
    OffsetUnit,
    ReaderOptions,
    detect_format,
    read_columns,
)
from annoscore.formats.brat import AnnFile, read_brat_corpus
from annoscore.formats.files import not_exact, saw
from annoscore.model import AnnotatedDocument, Mention
from annoscore.options import TaskOptions, constant, option
from annoscore.result import Result
from annoscore.scale import Splitter, chunked, counted, files_read, keep, keeping
from annoscore.score_warnings import ScoreWarning, note
from annoscore.tasks.registry import get
from annoscore.tasks.spans_chunks import kept, pooled

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides
    from annoscore.metrics.span_corpus import SpanDocument


_READER = ReaderOptions()
"""The readers' defaults: those of ``type_infon``, ``id_infon``, ``offsets`` and ``answers``."""


@dataclass(frozen=True, slots=True)
class SpanOptions(TaskOptions):
    """The options of ``annoscore spans`` (every one recorded in the signature)."""

    mode: SpanMode = option(
        SpanMode.strict,
        "How spans match: strict (same fragments and type), exact (same fragments, any type), "
        "overlap (same type, shared characters; --min-overlap), relaxed (same type, start and "
        "end each within --tolerance), token (whitespace tokens of the .txt), semeval "
        "(SemEval-2013 strict/exact/partial/type with COR/INC/PAR/MIS/SPU), concepts "
        "(same fragments, type and concept id, one item per id; and each document's set of "
        "(type, id) pairs: ids_precision, ids_recall, ids_f1).",
        flags=("--mode", "-m"),
    )
    min_overlap: float = option(
        0.0,
        "overlap/semeval: the shared characters must be at least this fraction (0..1) of the "
        "--overlap-of length; any shared character if 0 (other modes: exit 2).",
        low=0.0,
        high=1.0,
    )
    overlap_basis: OverlapBasis = option(
        OverlapBasis.gold,
        "What --min-overlap is a fraction of: the gold span, the predicted one, the shorter, "
        "the longer, or their union (Jaccard); --overlap-basis is its Python name "
        "(overlap_basis).",
        flags=("--overlap-of", "--overlap-basis"),
    )
    tolerance: int = option(
        0,
        "relaxed: characters start and end may each be off (other modes: exit 2, it would have "
        "no effect).",
        low=0,
    )
    matching: str = constant(
        "one-to-one-optimal",
        "A gold and a predicted mention pair at most once; the pairs maximise the number of "
        "matches, then their closeness, whatever the order of the input.",
    )
    duplicates: Duplicates = option(
        Duplicates.count,
        "count: identical mentions (same span and type) each count; collapse: keep one.",
    )
    missing_docs: Literal[MissingDocs.count, MissingDocs.ignore] = option(
        MissingDocs.count,
        "count: a document on one side only is scored against nothing (its mentions are "
        "missed or spurious); ignore: score only documents on both sides.",
    )
    gold_format: Format | None = option(
        None,
        "The gold file's format: brat, bioc-xml, bioc-json, pubtator, i2b2-xml, prodigy-jsonl, "
        "spacy-jsonl, conll-bio, nlpsandbox-json (an NLP Sandbox annotation file: no text) or "
        "spacy-docbin (spaCy's .spacy files, with spaCy installed: "
        "annoscore[spacy]); recognised from the file when left out (a warning says "
        "which, unless brat).",
        moves=False,
    )
    system_format: Format | None = option(
        None, "The system file's format (as --gold-format).", moves=False
    )
    type_infon: str = option(
        _READER.type_infon,
        "BioC input: the infon that names an annotation's type (other formats: a warning).",
        omitted_at_default=True,
    )
    id_infon: str = option(
        _READER.id_infon,
        "BioC input: the infon that holds an annotation's concept id, read by --mode concepts "
        "(other formats: a warning).",
        omitted_at_default=True,
    )
    offsets: OffsetUnit = option(
        _READER.offsets,
        "BioC input: what the offsets count: chars, utf8-bytes (as some producers write them), "
        "or auto (chars, unless a document's annotation texts match only at UTF-8 byte offsets: "
        "then bytes, and a warning says so; other formats: a warning).",
        omitted_at_default=True,
    )
    answers: tuple[Answer, ...] = option(
        _READER.answers,
        "Prodigy JSONL input: the answers whose lines are kept (accept, reject, ignore; "
        "comma-separated); the others are left out, and a warning counts them (other formats: "
        "a warning).",
        omitted_at_default=True,
    )

    def reader_options(self) -> ReaderOptions:
        """What the readers take of these options: the BioC infons and offset units, the
        Prodigy answers."""
        return ReaderOptions(self.type_infon, self.id_infon, self.offsets, self.answers)


def _folders_cut(gold: Path, system: Path, options: SpanOptions) -> bool:
    """Whether two brat folders may be cut by file: not in ``concepts`` mode, whose warning
    that a side carries no concept id is of the whole corpus (a chunk without one warned where
    one run of every document did not, and its place among the readers' warnings was not one
    run's); its files of lines are cut, their warnings pooled (:mod:`~annoscore.tasks.
    spans_chunks`)."""
    return options.mode is not SpanMode.concepts


# one run's warnings: unpaired documents, then what the readers tolerated (read lazily, document
# by document), then duplicates, then the paired documents whose texts differ
@chunked(
    "spans",
    warnings=(
        "documents.gold-only",
        "documents.system-only",
        "*",
        "spans.duplicates",
        "spans.text-differs",
    ),
    order="sorted",
    folders_when=_folders_cut,
    lines_when=lambda gold, system, options: _pubtator_lines(options),
    cut_when=lambda gold, system, options: _json_lines(gold, system, options),
    pooled=pooled,
)
def score_spans(gold: Path, system: Path, options: SpanOptions = SpanOptions()) -> Result:
    """Predicted spans against gold spans in two brat files (one document, whatever their
    names) or two folders of them (documents paired by file name), or files of any other
    entity format (``options.gold_format``, ``options.system_format``: documents paired by id;
    two files of one document each are that document).

    Counts per document and type: ``tp``, ``fp``, ``fn`` (SemEval: ``{scheme}_{cor,inc,par,
    mis,spu}``); P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2tp/(2tp+fp+fn) (SemEval: credit
    COR + PAR/2 over the predictions and over the gold mentions).
    Undefined: P when nothing was predicted, R when nothing was to be found, F only when both
    (``None``, named in a warning).
    Settings that move a number (:class:`SpanOptions`): ``mode`` (strict), ``min_overlap``
    (0.0) and ``overlap_basis`` (gold) in overlap and semeval, ``tolerance`` (0) in relaxed,
    ``duplicates`` (count), ``missing_docs`` (count).

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = score_spans(folder / "gold/subtrack1/sample", folder / "system/subtrack1/sample")
    >>> r.counts.as_dict(), round(r.score, 4)
    ({'fn': 2, 'fp': 1, 'tp': 54}, 0.973)
    """
    gold_docs, system_docs, read = read_span_documents(gold, system, options)
    if keeping():  # a chunk of two single files: what the pooling of warnings needs
        concepts = options.mode is SpanMode.concepts
        rule = options.missing_docs.rule
        keep(kept(str(gold), str(system), gold_docs, system_docs, concepts, rule))
    return score_span_documents(gold_docs, system_docs, read, options)


def read_span_documents(
    gold: Path, system: Path, options: SpanOptions = SpanOptions()
) -> tuple[dict[str, SpanDocument], dict[str, SpanDocument], list[ScoreWarning]]:
    """Both sides' documents by id as :func:`score_spans` reads them (paired by its rule), and
    the readers' warnings; an option with no effect is refused before reading."""
    match_options(options)
    gold_files, gold_form, gold_warnings = _read_side(gold, options.gold_format, options)
    system_files, system_form, system_warnings = _read_side(system, options.system_format, options)
    read = [*gold_warnings, *system_warnings, *_infon_warnings(options, gold_form, system_form)]
    if len(gold_files) == len(system_files) == 1 and gold_files.keys() != system_files.keys():
        not_exact(gold)  # a chunk of one document a side would pair them (annoscore.scale)
    gold_docs, system_docs = paired_files(gold, system, gold_files, system_files)
    return gold_docs, system_docs, read


def span_sides_of(
    gold_docs: Mapping[str, SpanDocument], system_docs: Mapping[str, SpanDocument]
) -> SpanSides:
    """The documents :func:`read_span_documents` read, as the HTML report's columns."""
    from annoscore.align.span_sides import SpanSides

    def columns(docs: Mapping[str, SpanDocument]) -> dict[str, AnnFile]:
        return {d: f if isinstance(f, AnnFile) else AnnFile.of(f) for d, f in docs.items()}

    return SpanSides(columns(gold_docs), columns(system_docs))


def spans_sides(
    gold: Path, system: Path, options: SpanOptions, result: Result | None = None
) -> SpanSides:
    """Both sides' documents for the HTML report (the registration's ``sides``): two brat
    inputs without a format option read as :func:`~annoscore.align.span_sides.read_sides`
    reads them, any other as :func:`read_span_documents` (``result`` is not read)."""
    from annoscore.align.span_sides import read_sides

    formats = options.gold_format is not None or options.system_format is not None
    if not formats and all(detect_format(p)[0] == "brat" for p in (gold, system)):
        return read_sides(gold, system)
    gold_docs, system_docs, _ = read_span_documents(gold, system, options)
    return span_sides_of(gold_docs, system_docs)


def _infon_warnings(options: SpanOptions, *forms: str) -> list[ScoreWarning]:
    """``type_infon``, ``id_infon`` and ``offsets`` given other values than their defaults when
    neither side is BioC, ``answers`` when neither is Prodigy JSONL: a warning each (they
    change nothing then)."""
    out = []
    if not any(form.startswith("bioc") for form in forms):
        for name in ("type_infon", "id_infon", "offsets"):
            value = getattr(options, name)
            if value != getattr(_READER, name):
                kind = "option" if name == "offsets" else "infon"  # the infons' own code
                out.append(_unused(f"--{name.replace('_', '-')}", value, "BioC", forms, kind))
    if options.answers != _READER.answers and "prodigy-jsonl" not in forms:
        out.append(_unused("--answers", ",".join(options.answers), "Prodigy JSONL", forms))
    return out


def _unused(
    flag: str, value: str, what: str, forms: tuple[str, ...], kind: str = "option"
) -> ScoreWarning:
    return ScoreWarning(
        f"spans.{kind}-unused",
        f"{flag} {value!r} has no effect: neither side is {what} ({', '.join(forms)})",
    )


def _pubtator_lines(options: SpanOptions) -> bytes | None:
    """The separators that end a line's document id when both sides are named PubTator files
    (``PMID|t|``, ``PMID|a|``, ``PMID<TAB>start...``): their chunks of lines are cut at document
    boundaries (:mod:`annoscore.scale`), their warnings pooled (:mod:`~annoscore.tasks.
    spans_chunks`)."""
    if options.gold_format == options.system_format == "pubtator":
        import annoscore.formats.pubtator  # noqa: F401  (_chunk_modules)

        _chunk_modules()
        return b"|\t"
    return None


def _chunk_modules() -> None:
    """Import what scoring a chunk of a single file imports (its reader, imported by the
    caller, the alignment, the counts) in this process, before its workers are forked from
    it.  Each worker imported 15 modules on its first chunk of PubTator lines (0.01-0.02 s
    of CPU; BioC: 19 modules, 0.03-0.04 s), and this process imported 7 of them again for
    the reduce after the last chunk (0.006-0.009 s): imported once, here, the run's critical
    path is shorter by the latter (the former only moves into this process)."""
    import annoscore.align.span_arrays
    import annoscore.align.spans
    import annoscore.metrics.concepts
    import annoscore.metrics.span_corpus
    import annoscore.metrics.span_tables
    import annoscore.metrics.spans
    import annoscore.metrics.worst_lists  # noqa: F401


def _json_lines(gold: Path, system: Path, options: SpanOptions) -> Splitter | None:
    """How two files of the same format (named, or recognised as each chunk recognises it:
    from the file's first bytes) are cut: JSON Lines (one document a line:
    :func:`~annoscore.scale.cut_json.split_json_lines`), BioC XML and JSON (documents inside one
    root: :mod:`annoscore.scale.cut_xml`)."""
    forms = []
    for path, form in ((gold, options.gold_format), (system, options.system_format)):
        if form is None and path.is_file():
            try:
                form = detect_format(path)[0]  # type: ignore[assignment]
            except InputError:
                return None  # one run says why
        forms.append(form)
    if forms[0] != forms[1] or forms[0] not in _CUT_FORMATS:
        return None
    from annoscore.scale import cut_json, cut_xml  # their cutters: imported for these formats

    if forms[0].startswith("bioc"):
        import annoscore.formats.bioc  # noqa: F401  (_chunk_modules)

        _chunk_modules()
    return {
        "prodigy-jsonl": cut_json.split_json_lines,
        "spacy-jsonl": cut_json.split_json_lines,
        "bioc-xml": cut_xml.split_bioc_xml,
        "bioc-json": cut_xml.split_bioc_json,
    }[forms[0]]


_CUT_FORMATS = ("prodigy-jsonl", "spacy-jsonl", "bioc-xml", "bioc-json")
"""The formats whose two files :func:`_json_lines` cuts."""


def _read_side(
    path: Path, form: str | None, options: SpanOptions
) -> tuple[Mapping[str, SpanDocument], str, list[ScoreWarning]]:
    """One side's documents by id, its format and the reader's warnings: brat through its own
    reader, any other format (named, or recognised) through
    :func:`~annoscore.formats.annotations.read_columns` (PubTator and JSONL as columns)."""
    if form is None and path.is_dir():
        form = detect_format(path)[0]  # brat, or a folder of i2b2 XML notes
    if form == "brat" or (form is None and path.suffix == ".ann"):
        corpus = read_brat_corpus(path, strict_input=options.strict_input, each=files_read)
        return corpus.files, "brat", list(corpus.warnings)
    form, documents, warnings = read_columns(path, form, options.reader_options())
    saw(path, documents)  # the ids of a chunk of the file (annoscore.scale)
    if form in ("bioc-xml", "bioc-json"):  # a chunk naming a document by its position
        from annoscore.scale.cut_xml import unnamed_documents

        unnamed_documents(path, documents)
    return documents, form, [note(w, "format.read") for w in warnings]


def count_spans(
    gold_docs: Mapping[str, AnnotatedDocument | AnnFile | Iterable[Mention]],
    system_docs: Mapping[str, AnnotatedDocument | AnnFile | Iterable[Mention]],
    options: SpanOptions = SpanOptions(),
) -> Result:
    """:func:`score_spans` of documents in memory, keyed by document id: the brat model's
    :class:`~annoscore.model.AnnotatedDocument` (or a reader's
    :class:`~annoscore.formats.brat.AnnFile`), or just each document's mentions (``token``
    mode needs the documents, with their text).

    >>> from annoscore.model import Span
    >>> gold = {"d1": [Mention(Span.of(0, 5), "Drug")]}
    >>> system = {"d1": [Mention(Span.of(0, 4), "Drug")]}
    >>> count_spans(gold, system, SpanOptions(mode=SpanMode.overlap)).scores["f1"]
    1.0
    >>> count_spans(gold, system).counts.as_dict()
    {'fn': 1, 'fp': 1, 'tp': 0}
    """

    def documents(
        docs: Mapping[str, AnnotatedDocument | AnnFile | Iterable[Mention]],
    ) -> dict[str, SpanDocument]:
        return {
            doc_id: d
            if isinstance(d, AnnotatedDocument | AnnFile)
            else AnnotatedDocument(doc_id, tuple(d))
            for doc_id, d in docs.items()
        }

    return score_span_documents(documents(gold_docs), documents(system_docs), [], options)


def score_span_documents(
    gold_docs: Mapping[str, SpanDocument],
    system_docs: Mapping[str, SpanDocument],
    read: list[ScoreWarning],
    options: SpanOptions = SpanOptions(),
) -> Result:
    """:func:`score_spans` of the documents :func:`read_span_documents` read (``read``: its
    warnings)."""
    from annoscore.metrics.span_corpus import count_span_documents

    if options.mode is SpanMode.concepts:
        return _concepts_scored(gold_docs, system_docs, options, read)
    rule = options.missing_docs.rule
    matrix, warnings = count_span_documents(
        gold_docs,
        system_docs,
        options.mode,
        match_options(options),
        (rule, rule),
        options.duplicates,
    )
    result = get("spans").result(
        options, matrix, warnings=[*read, *warnings], extra={"mode": options.mode.value}
    )
    if options.mode is SpanMode.semeval:  # no f1: the strict scheme's is the strict mode's
        result = replace(result, headline="strict_f1")
    return result.shown(averages=True)


def _concepts_scored(
    gold_docs: Mapping[str, SpanDocument],
    system_docs: Mapping[str, SpanDocument],
    options: SpanOptions,
    read: list[ScoreWarning],
) -> Result:
    """The ``concepts`` mode's result (:mod:`annoscore.metrics.concepts`): documents paired by
    id, each one's counts of (fragments, type, id) items and of (type, id) pairs."""
    from annoscore.align.documents import differing_texts, pair_documents, text_warnings
    from annoscore.formats.brat import reader_warnings
    from annoscore.metrics.concepts import concept_counts, concept_items

    match_options(options)  # another mode's parameter would be silently ignored

    def model(document: SpanDocument) -> AnnotatedDocument:
        return document if isinstance(document, AnnotatedDocument) else document.document()

    gold = {k: model(d) for k, d in gold_docs.items()}
    system = {k: model(d) for k, d in system_docs.items()}
    rule = options.missing_docs.rule
    paired = pair_documents(gold, system, gold_only=rule, system_only=rule, sort=True)
    warnings: list[ScoreWarning | str] = [*read, *paired.warnings()]
    warnings.extend(reader_warnings([*gold.values(), *system.values()]))
    for name, side in (("gold", gold), ("system", system)):
        mentions = sum(len(d.mentions) for d in side.values())
        if mentions and not any(concept_items(d) for d in side.values()):
            warnings.append(
                ScoreWarning(
                    f"spans.no-concept-ids-{name}",
                    f"the {name} side's {{count}} mention(s) carry no concept id (BioC: the "
                    "--id-infon infon; PubTator: the 6th column; brat: N lines): each of the "
                    "other side's items is scored against nothing",
                    mentions,
                )
            )
    both = [(d, gold[d], system[d]) for d in paired.scored if d in gold and d in system]
    warnings += text_warnings(differing_texts(both))
    per_document = {
        d: concept_counts(gold.get(d), system.get(d)) for d in counted(paired.scored)
    }  # a progress line on a terminal
    result = get("spans").result(
        options, per_document, warnings=warnings, extra={"mode": options.mode.value}
    )
    return result.shown(averages=True)
