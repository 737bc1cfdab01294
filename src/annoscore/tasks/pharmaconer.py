"""PharmaCoNER (BioNLP OST 2019): sub-track 1 (NER offsets) and sub-track 2 (concept indexing).

Official rules (``spec/pharmaconer.md``), all defaults here:

- NER: a document is the set of its (type, fragments) entities; duplicates collapse, the text is
  ignored, the type must match exactly.  Indexing: a document is the set of its codes.
- tp/fp/fn per document (:mod:`annoscore.metrics.sets`), micro P/R/F1 over the documents.
- Documents present on one side only (``missing_docs=official``): the plain script scores every
  gold document, one without a system file with all its items missed (it counts in
  ``Total (N docs)``), and leaves a system document without gold out; the CodaLab scorer
  (``codalab``) scores only the documents on both sides.  ``ignore`` leaves out both kinds,
  ``count`` scores both against nothing.  A warning names how many there were either way.
- Where a score is undefined the corpus scores show 0.0 (``undefined=zero``); per-document and
  per-type scores and macro averages follow the rule (:class:`annoscore.result.Undefined`).

Quirks of the test-phase CodaLab scorer (``codalab=True``): NER drops ``UNCLEAR`` entities from
gold and system; indexing drops a gold code only when every mention it normalises is UNCLEAR
(linked through the ``#... AnnotatorNotes T<n><TAB>CODE`` lines of the gold ``.ann`` files,
``gold_ann``; a code with no link is kept), looked up in the notes of the document its TSV row
names (not always its file's; a row naming a document with no ``.ann`` file is kept), and keeps
system codes as they are.

Reading as the official scripts read (every tolerated line a warning naming file and line, or
exit 2 with ``strict_input``): entities by :mod:`annoscore.formats.brat`'s ``pharmaconer``
dialect, every file of a system folder read as brat whatever its extension (plain script),
codes by :mod:`annoscore.formats.pharmaconer`.  With no scored document the counts are all 0.
Offsets above 2^53 and options with no effect are input errors.

Beyond the official: per-type scores with macro averages, per-document scores, discontinuous
entities (the official script crashes on them; here they match only identical fragments), and the
generic span modes (``mode``: ``exact``, ``overlap``, ``relaxed``;
:mod:`annoscore.metrics.span_corpus`) scored with PharmaCoNER's pairing, UNCLEAR and set rules.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from annoscore.align.documents import Rule, pair_documents, paired_files
from annoscore.align.span_modes import Duplicates, OverlapBasis, SpanMode, match_options
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import AnnFile, place, read_brat_corpus
from annoscore.formats.pharmaconer import CodeSet, read_code_tsvs
from annoscore.metrics.sets import PharmaconerDetails, set_counts, typed_set_counts
from annoscore.model import AnnotatedDocument, Mention
from annoscore.options import TaskOptions, constant, option
from annoscore.result import CountMatrix, Result, Undefined
from annoscore.scale import chunked
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning, merge_warnings
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides

UNCLEAR = "UNCLEAR"

NerMode = Literal[SpanMode.strict, SpanMode.exact, SpanMode.overlap, SpanMode.relaxed]
"""The span modes offered on PharmaCoNER input (a subset of
:class:`~annoscore.align.span_modes.SpanMode`); ``strict`` is the official one."""


class Missing(Enum):
    """``missing_docs``: what a document found on one side only counts for (module doc)."""

    official = "official"  # as the chosen script: plain: gold counted, system left out
    ignore = "ignore"  # both left out
    count = "count"  # both scored against an empty other side

    def rules(self, codalab: bool) -> tuple[Rule, Rule]:
        """The pairing rule of a gold-only and of a system-only document
        (:func:`~annoscore.align.documents.pair_documents`)."""
        if self is Missing.count:
            return "empty", "empty"
        if self is Missing.official and not codalab:
            return "empty", "ignore"
        return "ignore", "ignore"


_CODALAB = "Test-phase CodaLab rules (UNCLEAR removed) and its scores.txt layout."
_MISSING = (
    "official: as the script (plain: a gold document without a system file counts its items "
    "as missed, a system document without gold is left out; --codalab: both left out); "
    "ignore: both left out; count: both count all their items as missed or spurious."
)
_UNDEFINED = (
    "What the corpus scores show where a denominator is 0: 'zero' (the official scripts' "
    "0.0) or 'null' (undefined); per-document and per-type scores and the macro averages "
    "are undefined there either way."
)


@dataclass(frozen=True, slots=True)
class NerOptions(TaskOptions):
    """The options of ``annoscore pharmaconer ner`` (the plain official script's defaults)."""

    codalab: bool = option(False, _CODALAB)
    mode: NerMode = option(
        SpanMode.strict,
        "strict (official): same type and offsets; exact: same offsets, any type; overlap: "
        "same type, overlapping; relaxed: same type, start and end within --tolerance.",
    )
    min_overlap: float = option(
        0.0, "overlap: shared fraction of the gold span (other modes: exit 2).", low=0.0, high=1.0
    )
    overlap_basis: OverlapBasis = constant(
        OverlapBasis.gold, "--min-overlap is a fraction of the gold span's length."
    )
    tolerance: int = option(
        0, "relaxed: characters off at each end (other modes: exit 2, no effect).", low=0
    )
    matching: str = constant(
        "one-to-one-optimal", "In the span modes, a gold and a system entity pair at most once."
    )
    duplicates: Duplicates = constant(
        Duplicates.collapse,
        "Identical entities of a document count once (a set, as the official script).",
    )
    missing_docs: Missing = option(Missing.official, _MISSING)
    undefined: Undefined = option(Undefined.zero, _UNDEFINED)


@dataclass(frozen=True, slots=True)
class IndexingOptions(TaskOptions):
    """The options of ``annoscore pharmaconer indexing`` (the plain official script's
    defaults)."""

    codalab: bool = option(False, _CODALAB)
    gold_ann: Path | None = option(
        None,
        "With --codalab: the gold sub-track 1 .ann folder linking codes to mentions (without "
        "--codalab: exit 2, it would have no effect).",
        moves=False,
    )
    missing_docs: Missing = option(Missing.official, _MISSING)
    undefined: Undefined = option(Undefined.zero, _UNDEFINED)


def _run_name(system: Path) -> str:
    """The official run id: the name of the folder holding the system files."""
    folder = system if system.is_dir() else system.parent
    return folder.resolve().name


def _check_modes(gold: Path, system: Path) -> bool:
    """True for file mode; both paths must be files or both folders."""
    for path in (gold, system):
        if not path.exists():
            raise InputError("no such file or folder", path)
    if gold.is_file() != system.is_file():
        raise InputError(
            "GOLD and SYSTEM must both be files or both be folders",
            system if gold.is_dir() else gold,
        )
    return gold.is_file()


Entity = tuple[str, tuple[tuple[int, int], ...]]
"""What the official script compares: (type, fragments), offsets as written."""


def _entity_set(file: AnnFile | None, strict_input: bool, repeated: list[str]) -> set[Entity]:
    """The file's entities as a set; each repeat of an entity is appended to ``repeated``
    (``path:line``), or refused with ``strict_input``."""
    if file is None:
        return set()
    entities = list(zip(file.types, file.entity_fragments(), strict=True))
    unique = set(entities)
    if len(unique) != len(entities):
        first: dict[Entity, int] = {}
        for k, entity in enumerate(entities):
            if entity not in first:
                first[entity] = k
                continue
            where = place(file.path, file.line_of(k))
            if strict_input:
                raise InputError(
                    f"entity repeats line {file.line_of(first[entity])} (same type and "
                    "offsets; the official script counts it once; --strict-input refuses it)",
                    file.path,
                    file.line_of(k),
                )
            repeated.append(where)
    return unique


def _without_unclear(files: Mapping[str, AnnFile]) -> tuple[dict[str, AnnFile], int]:
    out, dropped = {}, 0
    for doc_id, file in files.items():
        out[doc_id], removed = file.without_type(UNCLEAR)
        dropped += removed
    return out, dropped


PRF_DOCUMENTS = ("tp", "fp", "fn", "documents")


def _empty_matrix(names: tuple[str, ...]) -> CountMatrix:
    """The matrix of no document, with its columns (so the counts still read 0)."""
    return CountMatrix.from_columns([], {name: [] for name in names}, integer=names)


def _strict_counts(
    gold_docs: dict[str, AnnFile],
    system_docs: dict[str, AnnFile],
    scored: tuple[str, ...],
    strict_input: bool,
    repeated: list[str],
) -> dict[str, Counts]:
    """Per-document tp/fp/fn of the sets of (type, fragments), with ``type:NAME:stat`` columns
    and ``documents`` = 1."""
    per_document: dict[str, Counts] = {}
    for doc_id in scored:
        g_set = _entity_set(gold_docs.get(doc_id), strict_input, repeated)
        s_set = _entity_set(system_docs.get(doc_id), strict_input, repeated)
        counts, by_type = typed_set_counts(g_set, s_set, itemgetter(0))
        typed = {f"type:{name}:{k}": v for name, c in by_type.items() for k, v in c.items()}
        per_document[doc_id] = counts + Counts(typed, documents=1)
    return per_document


def _check_comparable(files: dict[str, AnnFile], mode: str) -> None:
    """Span modes need ``0 <= start <= end``: reversed offsets (read as written for the
    official strict mode) are an :class:`InputError` naming the line."""
    for file in files.values():
        for k, (start, end) in enumerate(zip(file.starts, file.ends, strict=True)):
            if end < start or start < 0:
                raise InputError(
                    f"offsets {start} {end} cannot be compared in --mode {mode} (need "
                    "0 <= start <= end; --mode strict compares them as written, as the official "
                    "script)",
                    file.path,
                    file.line_of(k),
                )


def _two_folders(gold: Path, system: Path, options: object) -> bool:
    """Whether two folders may be cut by file (:mod:`annoscore.scale`): not one folder as both
    sides (its files' warnings could not be told apart by side); fsspec URLs compared as
    written."""
    from annoscore.formats.files import url_of

    urls = url_of(gold), url_of(system)
    if urls != (None, None):
        return urls[0] != urls[1]
    try:
        return not os.path.samefile(gold, system)
    except OSError:
        return False


# one run's warnings: the folders' own (gold's, then the system's), unpaired documents, the
# documents' files (strict: a document's gold file then its system file, in document order;
# the span modes: every gold file, then every system file), duplicates, UNCLEAR
@chunked(
    "pharmaconer-ner",
    warnings=(
        "formats.skipped-entries",
        "pharmaconer.non-ann-files",
        "documents.gold-only",
        "documents.system-only",
        "*",
        "pharmaconer.duplicates",
        "spans.duplicates",
        "pharmaconer.unclear",
    ),
    interleaved=lambda options: (
        ("*", "pharmaconer.duplicates") if options.mode is SpanMode.strict else ()
    ),
    folders_when=_two_folders,
)
def score_pharmaconer_ner(gold: Path, system: Path, options: NerOptions = NerOptions()) -> Result:
    """Sub-track 1: entity offsets in two brat files, or two folders of them (documents paired
    by file name), scored as the official script scores them.

    A document is the set of its (type, fragments) entities (duplicates collapse, the text is
    ignored); per document and type tp = |G & S|, fp = |S - G|, fn = |G - S|, and
    ``documents`` = 1.  P = tp/(tp+fp), R = tp/(tp+fn), F1 their harmonic mean, micro over
    the scored documents (:mod:`annoscore.metrics.prf`).
    Undefined: P when nothing was predicted, R when there was nothing to find, F1 when both;
    the corpus scores show 0.0 there (``undefined=zero``, official) or ``None``, and a
    warning names them; per-document and per-type scores and macro averages leave them out.
    Settings that move a number (:class:`NerOptions`): ``codalab`` (off: ``UNCLEAR`` entities
    kept), ``missing_docs`` (official), ``mode`` (strict: same type and fragments; the generic
    ``exact``, ``overlap`` with ``min_overlap``, ``relaxed`` with ``tolerance``, scored with
    PharmaCoNER's pairing, UNCLEAR and set rules), ``undefined`` (zero).  The files are read as
    the official script reads them (module doc); ``strict_input`` refuses every line that reading
    tolerates, and every repeated entity.

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = score_pharmaconer_ner(folder / "gold/subtrack1/sample",
    ...                           folder / "system/subtrack1/sample")
    >>> r.counts.as_dict(), round(r.score, 4)
    ({'documents': 15, 'fn': 2, 'fp': 1, 'tp': 54}, 0.973)
    """
    match_options(options)  # an option with no effect is refused before reading
    file_mode = _check_modes(gold, system)
    gold_corpus = read_brat_corpus(gold, dialect="pharmaconer", strict_input=options.strict_input)
    system_corpus = read_brat_corpus(
        system,
        check_text=False,
        dialect="pharmaconer",
        strict_input=options.strict_input,
        every_file=not options.codalab,
    )
    gold_docs, system_docs = paired_files(gold, system, gold_corpus.files, system_corpus.files)
    return _ner_result(
        gold_docs,
        system_docs,
        options,
        [*gold_corpus.warnings, *system_corpus.warnings],
        PharmaconerDetails(1, _run_name(system), file_mode),
    )


Document = AnnFile | AnnotatedDocument | Iterable[Mention]
"""A document in memory: a reader's :class:`~annoscore.formats.brat.AnnFile`, the brat model's
:class:`~annoscore.model.AnnotatedDocument`, or its mentions."""


def pharmaconer_ner_sides(
    gold: Path, system: Path, options: NerOptions, result: Result | None = None
) -> SpanSides:
    """Both sides' brat files for the HTML report (the registration's ``sides``), read again
    as :func:`score_pharmaconer_ner` reads them (its dialect; without ``codalab`` every file
    of the system folder; with it, ``UNCLEAR`` entities removed from both sides, as the
    CodaLab scorer counts; ``result`` is not read)."""
    from annoscore.align.span_sides import SpanSides, read_sides

    sides = read_sides(
        gold,
        system,
        strict_input=options.strict_input,
        dialect="pharmaconer",
        every_file=not options.codalab,
    )
    if not options.codalab:
        return sides
    (gold_files, _), (system_files, _) = map(_without_unclear, (sides.gold, sides.system))
    return SpanSides(gold_files, system_files, "UNCLEAR entities are left out (CodaLab rule).")


def count_pharmaconer_ner(
    gold_docs: Mapping[str, Document],
    system_docs: Mapping[str, Document],
    options: NerOptions = NerOptions(),
) -> Result:
    """:func:`score_pharmaconer_ner` of documents in memory, keyed by document id (the run is
    named ``system`` in the official layout).

    >>> from annoscore.model import Span
    >>> gold = {"d1": [Mention(Span.of(0, 5), "PROTEINAS")], "d2": []}
    >>> system = {"d1": [Mention(Span.of(0, 4), "PROTEINAS")], "d2": []}
    >>> r = count_pharmaconer_ner(gold, system)
    >>> r.scores, r.documents["d2"].scores["f1"]
    ({'precision': 0.0, 'recall': 0.0, 'f1': 0.0}, None)
    >>> count_pharmaconer_ner(gold, system, NerOptions(mode=SpanMode.overlap)).score
    1.0
    """
    return _ner_result(_ann_files(gold_docs), _ann_files(system_docs), options, [], _IN_MEMORY_NER)


_IN_MEMORY_NER = PharmaconerDetails(1, "system", False)


def _ann_files(docs: Mapping[str, Document]) -> dict[str, AnnFile]:
    """Documents in memory as a reader's columns."""

    def columns(doc_id: str, doc: Document) -> AnnFile:
        if isinstance(doc, AnnFile | AnnotatedDocument):
            return doc if isinstance(doc, AnnFile) else AnnFile.of(doc)
        return AnnFile.of(AnnotatedDocument(doc_id, tuple(doc)))

    return {doc_id: columns(doc_id, doc) for doc_id, doc in docs.items()}


def _ner_result(
    gold_docs: dict[str, AnnFile],
    system_docs: dict[str, AnnFile],
    options: NerOptions,
    read: list[ScoreWarning],
    details: PharmaconerDetails,
) -> Result:
    """The NER result of both sides' files (``read``: the readers' warnings)."""
    match = match_options(options)
    gold_rule, system_rule = options.missing_docs.rules(options.codalab)
    dropped = 0
    if options.codalab:
        gold_docs, dropped_gold = _without_unclear(gold_docs)
        system_docs, dropped_system = _without_unclear(system_docs)
        dropped = dropped_gold + dropped_system
    warnings: list[ScoreWarning | str] = [*read]
    matrix: CountMatrix | dict[str, Counts]
    if options.mode is SpanMode.strict:
        pairing = pair_documents(
            gold_docs, system_docs, gold_only=gold_rule, system_only=system_rule, sort=True
        )
        repeated: list[str] = []
        per_document = _strict_counts(
            gold_docs, system_docs, pairing.scored, options.strict_input, repeated
        )
        scored = [
            d
            for doc_id in pairing.scored
            for d in (gold_docs.get(doc_id), system_docs.get(doc_id))
            if d is not None  # a file with no entity is falsy, and its warnings count most
        ]
        warnings += [*pairing.warnings(), *merge_warnings(w for d in scored for w in d.warnings)]
        if repeated:
            warnings.append(
                ScoreWarning(
                    "pharmaconer.duplicates",
                    "{count} entit(ies) repeat an earlier one of the same document and count "
                    "once (a set, as the official script)",
                    len(repeated),
                    tuple(repeated[:5]),
                    tolerated=True,
                )
            )
        matrix = per_document or _empty_matrix(PRF_DOCUMENTS)
    else:
        from annoscore.metrics.span_corpus import count_span_documents

        _check_comparable(gold_docs, options.mode)
        _check_comparable(system_docs, options.mode)
        span_matrix, span_warnings = count_span_documents(
            gold_docs,
            system_docs,
            options.mode,
            match,
            (gold_rule, system_rule),
            options.duplicates,
        )
        warnings += span_warnings
        matrix = span_matrix.with_column("documents", 1)
    if dropped:
        warnings.append(
            ScoreWarning(
                "pharmaconer.unclear",
                "{count} UNCLEAR entities removed from gold and system (CodaLab rule)",
                dropped,
            )
        )
    return get("pharmaconer-ner").result(options, matrix, warnings=warnings, details=details)


def unclear_only_codes(file: AnnFile) -> set[str]:
    """Codes whose ``AnnotatorNotes`` all normalise ``UNCLEAR`` mentions (at least one link,
    every linked mention UNCLEAR); a note whose target is not an entity of the file links
    nothing."""
    types = dict(zip(file.ids, file.types, strict=True))
    linked: dict[str, set[str]] = {}
    for link in file.notes:
        if link.type == "AnnotatorNotes" and link.target in types:
            linked.setdefault(link.text.strip(), set()).add(types[link.target])
    return {code for code, kinds in linked.items() if kinds == {UNCLEAR}}


def _codalab_gold_codes(
    doc: CodeSet, unclear: Mapping[str, set[str]], moved: list[str]
) -> set[str]:
    """The gold codes of ``doc`` the CodaLab scorer keeps: each row's code unless it is an
    UNCLEAR-only code of the document the row names (``unclear``: by document id; a document
    with no ``.ann`` file filters nothing).  A code dropped by the notes of another document
    than the file's is named in ``moved``."""
    kept: set[str] = set()
    for name, codes in doc.named.items():
        dropped = unclear.get(name, set())
        kept |= codes - dropped
        if name != doc.id and codes & dropped:
            moved.append(f"{Path(doc.path).name} (rows naming {name[:30]})")
    return kept


# one run's warnings: the folders' own (gold's, then the system's), unpaired documents, the
# documents' files (a document's gold file then its system file, in document order); with
# --codalab (a third folder, the gold notes, read whole) the folders are not cut
@chunked(
    "pharmaconer-indexing",
    warnings=("formats.skipped-entries", "documents.gold-only", "documents.system-only", "*"),
    interleaved=lambda options: ("*",),
    suffix=".tsv",
    folders_when=lambda gold, system, options: (
        not options.codalab and _two_folders(gold, system, options)
    ),
)
def score_pharmaconer_indexing(
    gold: Path, system: Path, options: IndexingOptions = IndexingOptions()
) -> Result:
    """Sub-track 2: the set of concept codes of each document, in two TSV files or two folders
    of them (documents paired by file name).

    Per document tp = |G & S|, fp = |S - G|, fn = |G - S| of the code sets (codes compared as
    written, :mod:`annoscore.formats.pharmaconer`) and ``documents`` = 1; P, R and F1 micro.
    Undefined: as in :func:`score_pharmaconer_ner`.
    Settings that move a number (:class:`IndexingOptions`): ``codalab`` (off; with it,
    ``gold_ann``, the gold sub-track 1 ``.ann`` folder, drops the gold codes that normalise
    only UNCLEAR mentions: module doc), ``missing_docs`` (official), ``undefined`` (zero).

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> score_pharmaconer_indexing(folder / "gold/subtrack2/sample",
    ...                            folder / "system/subtrack2/sample").score
    1.0
    """
    if options.codalab and options.gold_ann is None:
        raise InputError("--codalab indexing needs --gold-ann, the gold sub-track 1 .ann folder")
    if options.gold_ann is not None and not options.codalab:
        raise InputError("--gold-ann has no effect without --codalab", options.gold_ann)
    file_mode = _check_modes(gold, system)
    gold_read, gold_skipped = read_code_tsvs(gold, strict_input=options.strict_input)
    system_read, system_skipped = read_code_tsvs(system, strict_input=options.strict_input)
    gold_docs, system_docs = paired_files(gold, system, gold_read, system_read)
    read: list[ScoreWarning] = [*gold_skipped, *system_skipped]
    notes: dict[str, AnnFile] = {}
    if options.gold_ann is not None:
        ann_corpus = read_brat_corpus(
            options.gold_ann,
            check_text=False,
            dialect="pharmaconer",
            strict_input=options.strict_input,
        )
        notes = ann_corpus.files
        missing = sorted(set(gold_docs) - set(notes))
        if missing:
            raise InputError(
                f"{len(missing)} gold document(s) have no .ann file here (first: {missing[0]})",
                options.gold_ann,
            )
        read += ann_corpus.all_warnings()
    return _indexing_result(
        gold_docs,
        system_docs,
        options,
        notes,
        read,
        PharmaconerDetails(2, _run_name(system), file_mode),
    )


def count_pharmaconer_indexing(
    gold_docs: Mapping[str, CodeSet | Iterable[str]],
    system_docs: Mapping[str, CodeSet | Iterable[str]],
    gold_notes: Mapping[str, Document] | None = None,
    options: IndexingOptions = IndexingOptions(),
) -> Result:
    """:func:`score_pharmaconer_indexing` of code sets in memory, keyed by document id;
    ``codalab`` needs ``gold_notes``, the gold sub-track 1 documents whose ``AnnotatorNotes``
    link codes to mentions (``options.gold_ann`` is not read).

    >>> r = count_pharmaconer_indexing({"d1": ["A", "B"]}, {"d1": ["A", "C"]})
    >>> r.counts.as_dict(), r.score
    ({'documents': 1, 'fn': 1, 'fp': 1, 'tp': 1}, 0.5)
    """
    if options.codalab and gold_notes is None:
        raise InputError("CodaLab indexing needs the gold documents' notes (gold_notes)")

    def code_sets(docs: Mapping[str, CodeSet | Iterable[str]]) -> dict[str, CodeSet]:
        return {d: c if isinstance(c, CodeSet) else _code_set(d, c) for d, c in docs.items()}

    notes = _ann_files(gold_notes or {})
    return _indexing_result(
        code_sets(gold_docs), code_sets(system_docs), options, notes, [], _IN_MEMORY_INDEXING
    )


_IN_MEMORY_INDEXING = PharmaconerDetails(2, "system", False)


def _code_set(doc_id: str, codes: Iterable[str]) -> CodeSet:
    unique = frozenset(codes)
    return CodeSet(doc_id, unique, named={doc_id: unique})


def _indexing_result(
    gold_docs: dict[str, CodeSet],
    system_docs: dict[str, CodeSet],
    options: IndexingOptions,
    notes: Mapping[str, AnnFile],
    read: list[ScoreWarning],
    details: PharmaconerDetails,
) -> Result:
    """The indexing result of both sides' code sets (``notes``: the gold ``.ann`` files by
    document id, with ``codalab``; ``read``: the readers' warnings)."""
    gold_rule, system_rule = options.missing_docs.rules(options.codalab)
    unclear: dict[str, set[str]] = {}
    if options.codalab:
        named = {name for doc in gold_docs.values() for name in doc.named}
        unclear = {d: unclear_only_codes(notes[d]) for d in sorted(named) if d in notes}
    pairing = pair_documents(
        gold_docs, system_docs, gold_only=gold_rule, system_only=system_rule, sort=True
    )
    per_document: dict[str, Counts] = {}
    dropped = 0
    moved: list[str] = []
    for doc_id in pairing.scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_codes = set(g_doc.codes) if g_doc else set()
        if options.codalab and g_doc is not None:
            kept = _codalab_gold_codes(g_doc, unclear, moved)
            dropped += len(g_codes) - len(kept)
            g_codes = kept
        per_document[doc_id] = set_counts(g_codes, s_doc.codes if s_doc else ()) + Counts(
            documents=1
        )
    warnings: list[ScoreWarning | str] = [*read, *pairing.warnings()]
    scored = [
        d
        for doc_id in pairing.scored
        for d in (gold_docs.get(doc_id), system_docs.get(doc_id))
        if d
    ]
    warnings += merge_warnings(w for d in scored for w in d.warnings)
    if dropped:
        warnings.append(
            ScoreWarning(
                "pharmaconer.unclear-codes",
                "{count} gold code(s) normalise only UNCLEAR mentions and were dropped "
                "(CodaLab rule)",
                dropped,
            )
        )
    if moved:
        warnings.append(
            ScoreWarning(
                "pharmaconer.unclear-other-document",
                "{count} gold file(s) have rows naming another document whose UNCLEAR-only "
                "codes dropped their code, as the CodaLab scorer looks a row up in the notes "
                "of the document it names",
                len(moved),
                tuple(moved[:EXAMPLES_SHOWN]),
                tolerated=True,
            )
        )
    return get("pharmaconer-indexing").result(
        options, per_document or _empty_matrix(PRF_DOCUMENTS), warnings=warnings, details=details
    )
