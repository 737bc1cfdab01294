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
- A zero denominator gives 0.0, not undefined (``undefined=zero``).

Quirks of the test-phase CodaLab scorer (``codalab=True``): NER drops ``UNCLEAR`` entities from
gold and system; indexing drops gold codes that normalise only ``UNCLEAR`` mentions (linked through
the ``#... AnnotatorNotes T<n><TAB>CODE`` lines of the gold ``.ann`` files, ``gold_ann``) and keeps
system codes as they are.  A TSV row is filtered by the notes of the document it names (its first
column), which is not always its file's.

Reading as the official scripts read (every tolerated line a warning naming file and line, or
exit 2 with ``strict_input``): entity lines as the plain script splits them (lines it cannot
split skipped, indented lines read, reversed offsets and ``int()`` digits compared as written,
a line beginning with a byte-order mark dropped: :mod:`annoscore.formats.brat`, dialect
``pharmaconer``); every file of a system folder read as brat, whatever its extension (plain
script); indexing codes compared as written, repeated entities and codes counted once
(:mod:`annoscore.formats.pharmaconer`), a line's trailing whitespace removed.  The CodaLab
indexing filter drops a gold code only when every mention it normalises is UNCLEAR (a code with
no link is kept), looked up in the notes of the document its row names (a row naming a document
with no ``.ann`` file is kept).  With no scored document the counts are all 0.  Offsets above
2^53 and options with no effect in the mode (``tolerance`` outside relaxed, ``min_overlap``
outside overlap, ``gold_ann`` without ``codalab``) are input errors.

Beyond the official: per-type scores with macro averages, per-document scores, discontinuous
entities (the official script crashes on them; here they match only identical fragments), and the
generic span matching modes on the same inputs (``mode``: ``exact`` ignores the type, ``overlap``
with ``min_overlap``, ``relaxed`` with ``tolerance``; see
:func:`annoscore.tasks.spans.score_spans`),
scored with PharmaCoNER's rules: documents paired as ``missing_docs`` says, duplicates collapsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from operator import itemgetter
from pathlib import Path
from typing import cast

from annoscore.align.documents import Rule, pair_documents, paired_files
from annoscore.align.span_modes import CORPUS_MODES, CorpusMode
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import MAX_OFFSET, AnnFile, place, read_brat_corpus
from annoscore.formats.pharmaconer import CodeSet, read_code_tsvs
from annoscore.metrics.prf import prf_scores, prf_zero_scores
from annoscore.metrics.sets import set_counts, typed_set_counts
from annoscore.report.pharmaconer import Layout
from annoscore.result import (
    EXAMPLES_SHOWN,
    CountMatrix,
    Result,
    Scorer,
    ScoreWarning,
    merge_warnings,
)
from annoscore.signature import Signature

UNCLEAR = "UNCLEAR"

NER_MODES = tuple(m for m in CORPUS_MODES if m in ("strict", "exact", "overlap", "relaxed"))
"""The span modes offered on PharmaCoNER input (a subset of the one list,
:data:`~annoscore.align.span_modes.CORPUS_MODES`); ``strict`` is the official one."""


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


def _missing(value: Missing | Enum | str) -> Missing:
    """``value`` as a :class:`Missing` (another enum's member by its value); an
    :class:`InputError` naming the choices for anything else."""
    text = value.value if isinstance(value, Enum) else value
    try:
        return Missing(text)
    except ValueError:
        choices = ", ".join(m.value for m in Missing)
        raise InputError(f"unknown --missing-docs {text!r}; expected one of {choices}") from None


class Undefined(str, Enum):
    """What a score with a zero denominator reads as."""

    zero = "zero"  # the official scripts' 0.0
    null = "null"  # undefined: JSON null, '-' in tables


SCORERS: dict[Undefined, Scorer] = {Undefined.zero: prf_zero_scores, Undefined.null: prf_scores}
"""The scorer of each ``undefined`` rule (:mod:`annoscore.metrics.prf`)."""


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


def _duplicate_warning(repeated: list[str], what: str) -> list[ScoreWarning]:
    if not repeated:
        return []
    return [
        ScoreWarning(
            "pharmaconer.duplicates",
            "{count} " + what + " repeat an earlier one of the same document and count once "
            "(a set, as the official script)",
            len(repeated),
            tuple(repeated[:5]),
            tolerated=True,
        )
    ]


def _unclear_warning(dropped: int) -> list[ScoreWarning]:
    if not dropped:
        return []
    return [
        ScoreWarning(
            "pharmaconer.unclear",
            "{count} UNCLEAR entities removed from gold and system (CodaLab rule)",
            dropped,
        )
    ]


def _without_unclear(files: dict[str, AnnFile]) -> tuple[dict[str, AnnFile], int]:
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


def _check_ner_options(mode: str, min_overlap: float, tolerance: int) -> None:
    if mode not in NER_MODES:
        raise InputError(f"unknown mode {mode!r}; expected one of {', '.join(NER_MODES)}")
    if tolerance and mode != "relaxed":
        raise InputError(f"--tolerance has no effect with --mode {mode} (only with relaxed)")
    if min_overlap and mode != "overlap":
        raise InputError(f"--min-overlap has no effect with --mode {mode} (only with overlap)")
    if tolerance > MAX_OFFSET:
        raise InputError(f"--tolerance {tolerance} is beyond any text (above 2^53)")


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


def score_ner(
    gold: Path,
    system: Path,
    *,
    codalab: bool = False,
    missing_docs: Missing | str = Missing.official,
    undefined: Undefined | str = Undefined.zero,
    mode: str = "strict",
    min_overlap: float = 0.0,
    tolerance: int = 0,
    strict_input: bool = False,
) -> Result:
    """Sub-track 1: entity offsets in brat files (or folders of them), micro P/R/F1.

    - ``codalab``: the test-phase rules (``UNCLEAR`` entities removed from both sides).
    - ``missing_docs``: ``official`` (the plain script: a gold document without a system file
      is scored, all its entities missed, and a system document without gold is left out; the
      CodaLab scorer: both left out), ``ignore`` (both left out) or ``count`` (both scored
      against nothing).
    - ``undefined``: ``zero`` (official) reads a zero denominator as 0.0; ``null`` as undefined.
    - ``mode``: ``strict`` (official: same type and fragments) or a generic span mode
      (``exact``, ``overlap`` with ``min_overlap``, ``relaxed`` with ``tolerance``), scored with
      PharmaCoNER's pairing, UNCLEAR and set (duplicates collapse) rules.  An option with no
      effect in the mode is an :class:`InputError`.
    - ``strict_input``: every line the official reading tolerates (see
      :mod:`annoscore.formats.brat`, dialect ``pharmaconer``) and every repeated entity is an
      :class:`InputError` instead of a warning.

    The files are read as the official script reads them (``pharmaconer`` dialect); without
    ``codalab``, every file of a system folder is read as brat, whatever its extension.

    Counts: ``tp``, ``fp``, ``fn``, ``documents`` (1 per scored document) and per type.
    P = tp/(tp+fp), R = tp/(tp+fn), F1 their harmonic mean (:mod:`annoscore.metrics.prf`).

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = score_ner(folder / "gold/subtrack1/sample", folder / "system/subtrack1/sample")
    >>> r.counts.as_dict(), round(r.scores["f1"], 4)
    ({'documents': 15, 'fn': 2, 'fp': 1, 'tp': 54}, 0.973)
    """
    _check_ner_options(mode, min_overlap, tolerance)
    missing_docs, undefined = _missing(missing_docs), Undefined(undefined)
    gold_rule, system_rule = missing_docs.rules(codalab)
    file_mode = _check_modes(gold, system)
    gold_corpus = read_brat_corpus(gold, dialect="pharmaconer", strict_input=strict_input)
    system_corpus = read_brat_corpus(
        system,
        check_text=False,
        dialect="pharmaconer",
        strict_input=strict_input,
        every_file=not codalab,
    )
    gold_docs, system_docs = paired_files(gold, system, gold_corpus.files, system_corpus.files)
    layout = Layout(1, _run_name(system), file_mode)
    dropped = 0
    if codalab:
        gold_docs, dropped_gold = _without_unclear(gold_docs)
        system_docs, dropped_system = _without_unclear(system_docs)
        dropped = dropped_gold + dropped_system
    warnings: list[ScoreWarning | str] = [*gold_corpus.warnings, *system_corpus.warnings]
    if mode == "strict":
        pairing = pair_documents(
            gold_docs, system_docs, gold_only=gold_rule, system_only=system_rule, sort=True
        )
        repeated: list[str] = []
        per_document = _strict_counts(
            gold_docs, system_docs, pairing.scored, strict_input, repeated
        )
        scored = [
            d
            for doc_id in pairing.scored
            for d in (gold_docs.get(doc_id), system_docs.get(doc_id))
            if d is not None  # a file with no entity is falsy, and its warnings count most
        ]
        warnings += [*pairing.warnings(), *merge_warnings(w for d in scored for w in d.warnings)]
        warnings += _duplicate_warning(repeated, "entit(ies)")
        matrix = CountMatrix.of(per_document) if per_document else _empty_matrix(PRF_DOCUMENTS)
        signature = Signature.of(
            "pharmaconer-ner",
            codalab=codalab,
            mode="strict",
            missing_docs=missing_docs.value,
            undefined=undefined.value,
        )
    else:
        from annoscore.align.span_modes import MatchOptions
        from annoscore.tasks.spans import count_spans, span_signature

        span_mode = cast(CorpusMode, mode)
        _check_comparable(gold_docs, mode)
        _check_comparable(system_docs, mode)
        options = MatchOptions(min_overlap, "gold", tolerance)
        span_matrix, span_warnings = count_spans(
            gold_docs,
            system_docs,
            mode=span_mode,
            options=options,
            pairing=(gold_rule, system_rule),
            duplicates="collapse",
        )
        warnings += span_warnings
        matrix = span_matrix.with_column("documents", 1)
        signature = span_signature(
            "pharmaconer-ner",
            span_mode,
            options,
            "collapse",
            missing_docs.value,
            leading={"codalab": codalab},
            trailing={"undefined": undefined.value},
        )
    return Result.from_counts(
        "pharmaconer-ner",
        signature,
        matrix,
        SCORERS[undefined],
        warnings=[*warnings, *_unclear_warning(dropped)],
        details=layout,
    )


def unclear_only_codes(file: AnnFile) -> set[str]:
    """Codes whose ``AnnotatorNotes`` all normalise ``UNCLEAR`` mentions (at least one link,
    every linked mention UNCLEAR); a note whose target is not an entity of the file links
    nothing."""
    types = dict(zip(file.ids, file.types, strict=True))
    linked: dict[str, set[str]] = {}
    for note in file.notes:
        if note.type == "AnnotatorNotes" and note.target in types:
            linked.setdefault(note.text.strip(), set()).add(types[note.target])
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


def score_indexing(
    gold: Path,
    system: Path,
    *,
    codalab: bool = False,
    gold_ann: Path | None = None,
    missing_docs: Missing | str = Missing.official,
    undefined: Undefined | str = Undefined.zero,
    strict_input: bool = False,
) -> Result:
    """Sub-track 2: the set of concept codes of each document (TSV files or folders).

    ``codalab`` (with ``gold_ann``, the gold sub-track 1 ``.ann`` folder) drops a gold code
    only when every mention it normalises is UNCLEAR (a code with no ``AnnotatorNotes`` link
    is kept), in the notes of the document the code's row names (a row naming a document with
    no ``.ann`` file is kept); system codes are kept.
    ``gold_ann`` without ``codalab`` is an :class:`InputError` (it would have no effect).
    ``missing_docs``, ``undefined`` and ``strict_input`` as in :func:`score_ner`.
    Codes are compared as written, a line's trailing whitespace removed
    (:mod:`annoscore.formats.pharmaconer`).
    Counts: ``tp``, ``fp``, ``fn`` of the code sets, ``documents``.
    """
    if codalab and gold_ann is None:
        raise InputError("--codalab indexing needs --gold-ann, the gold sub-track 1 .ann folder")
    if gold_ann is not None and not codalab:
        raise InputError("--gold-ann has no effect without --codalab", gold_ann)
    missing_docs, undefined = _missing(missing_docs), Undefined(undefined)
    gold_rule, system_rule = missing_docs.rules(codalab)
    file_mode = _check_modes(gold, system)
    gold_read, gold_skipped = read_code_tsvs(gold, strict_input=strict_input)
    system_read, system_skipped = read_code_tsvs(system, strict_input=strict_input)
    gold_docs, system_docs = paired_files(gold, system, gold_read, system_read)
    unclear: dict[str, set[str]] = {}
    warnings: list[ScoreWarning | str] = [*gold_skipped, *system_skipped]
    if gold_ann is not None:
        ann_corpus = read_brat_corpus(
            gold_ann, check_text=False, dialect="pharmaconer", strict_input=strict_input
        )
        ann_docs = ann_corpus.files
        missing = sorted(set(gold_docs) - set(ann_docs))
        if missing:
            raise InputError(
                f"{len(missing)} gold document(s) have no .ann file here (first: {missing[0]})",
                gold_ann,
            )
        named = {name for doc in gold_docs.values() for name in doc.named}
        unclear = {d: unclear_only_codes(ann_docs[d]) for d in sorted(named) if d in ann_docs}
        warnings += ann_corpus.all_warnings()

    pairing = pair_documents(
        gold_docs, system_docs, gold_only=gold_rule, system_only=system_rule, sort=True
    )
    per_document: dict[str, Counts] = {}
    dropped = 0
    moved: list[str] = []
    for doc_id in pairing.scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_codes = set(g_doc.codes) if g_doc else set()
        if codalab and g_doc is not None:
            kept = _codalab_gold_codes(g_doc, unclear, moved)
            dropped += len(g_codes) - len(kept)
            g_codes = kept
        per_document[doc_id] = set_counts(g_codes, s_doc.codes if s_doc else ()) + Counts(
            documents=1
        )

    warnings += pairing.warnings()
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
    signature = Signature.of(
        "pharmaconer-indexing",
        codalab=codalab,
        missing_docs=missing_docs.value,
        undefined=undefined.value,
    )
    matrix = (
        CountMatrix.of(per_document)
        if per_document
        else _empty_matrix(("tp", "fp", "fn", "documents"))
    )
    return Result.from_counts(
        "pharmaconer-indexing",
        signature,
        matrix,
        SCORERS[undefined],
        warnings=warnings,
        details=Layout(2, _run_name(system), file_mode),
    )
