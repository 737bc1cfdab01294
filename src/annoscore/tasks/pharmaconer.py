"""PharmaCoNER (BioNLP OST 2019): sub-track 1 (NER offsets) and sub-track 2 (concept indexing).

Official rules (``spec/pharmaconer.md``), all defaults here:

- NER: a document is the set of its (type, fragments) entities; duplicates collapse, the text is
  ignored, the type must match exactly.  Indexing: a document is the set of its codes.
- tp/fp/fn per document (:mod:`annoscore.metrics.sets`), micro P/R/F1 over the documents.
- Only documents present on both sides are scored (``missing_docs=ignore``).
- A zero denominator gives 0.0, not undefined (``undefined=zero``).

Quirks of the test-phase CodaLab scorer (``codalab=True``): NER drops ``UNCLEAR`` entities from
gold and system; indexing drops gold codes that normalise only ``UNCLEAR`` mentions (linked through
the ``#... AnnotatorNotes T<n><TAB>CODE`` lines of the gold ``.ann`` files, ``gold_ann``) and keeps
system codes as they are.

Beyond the official: per-type scores with macro averages, per-document scores, discontinuous
entities (the official script crashes on them; here they match only identical fragments), and the
generic span matching modes on the same inputs (``mode``: ``exact`` ignores the type, ``overlap``
with ``min_overlap``, ``relaxed`` with ``tolerance``; see
:func:`annoscore.tasks.spans.score_spans`),
scored with PharmaCoNER's rules: documents paired as ``missing_docs`` says, duplicates collapsed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from annoscore.align.documents import MissingDocs, pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import read_brat, reader_warnings
from annoscore.formats.pharmaconer import read_code_tsv
from annoscore.metrics.average import macro_average
from annoscore.metrics.prf import prf_of
from annoscore.metrics.sets import set_counts, typed_set_counts
from annoscore.model import AnnotatedDocument, Mention
from annoscore.result import Result, ScoredUnit, Scores
from annoscore.signature import Signature

UNCLEAR = "UNCLEAR"


class Undefined(str, Enum):
    """What a score with a zero denominator reads as."""

    zero = "zero"  # the official scripts' 0.0
    null = "null"  # undefined: JSON null, '-' in tables


@dataclass(frozen=True, slots=True)
class Layout:
    """What the official text layout needs to know beyond the scores."""

    subtrack: int
    run: str
    file_mode: bool
    document_scores: dict[str, Scores]


def _scores(counts: Counts, undefined: Undefined) -> Scores:
    zero = 0.0 if undefined is Undefined.zero else None
    return prf_of(counts, zero_division=zero).as_dict()


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


def _entities(doc: AnnotatedDocument | None, drop_unclear: bool) -> set[Mention]:
    if doc is None:
        return set()
    return {m for m in doc.mentions if not (drop_unclear and m.type == UNCLEAR)}


def _assemble(
    task: str,
    signature: Signature,
    per_doc: dict[str, Counts],
    per_type: dict[str, Counts] | None,
    undefined: Undefined,
    warnings: list[str],
    layout: Layout,
    with_documents: bool,
) -> Result:
    total = Counts.total(per_doc.values())
    document_scores = {doc: _scores(c, undefined) for doc, c in per_doc.items()}
    result = Result(
        task=task,
        signature=signature,
        scores=_scores(total, undefined),
        counts=total + Counts(documents=len(per_doc)),
        warnings=warnings,
        details=replace(layout, document_scores=document_scores),
    )
    if with_documents:
        result.documents = {
            doc: ScoredUnit(document_scores[doc], per_doc[doc]) for doc in sorted(per_doc)
        }
    if per_type is not None:
        result.types = {t: ScoredUnit(_scores(c, undefined), c) for t, c in per_type.items()}
        result.averages["macro_type"] = macro_average(u.scores for u in result.types.values())[0]
        result.averages["macro_doc"] = macro_average(document_scores.values())[0]
    return result


class NerMode(str, Enum):
    """Matching modes offered on PharmaCoNER input; ``strict`` is the official one."""

    strict = "strict"
    exact = "exact"
    overlap = "overlap"
    relaxed = "relaxed"


def _zero_for_undefined(scores: Scores) -> Scores:
    return {k: (0.0 if v is None else v) for k, v in scores.items()}


def _score_ner_by_spans(
    gold_docs: dict[str, AnnotatedDocument],
    system_docs: dict[str, AnnotatedDocument],
    layout: Layout,
    *,
    mode: str,
    min_overlap: float,
    tolerance: int,
    codalab: bool,
    missing_docs: MissingDocs,
    undefined: Undefined,
    per_type: bool,
    per_doc: bool,
    warnings: list[str],
) -> Result:
    from annoscore.tasks.spans import score_spans  # numpy: only the span modes need it

    if codalab:
        gold_docs, system_docs = (
            {k: replace(d, mentions=tuple(_entities(d, True))) for k, d in docs.items()}
            for docs in (gold_docs, system_docs)
        )
    result = score_spans(
        gold_docs,
        system_docs,
        mode=mode,  # type: ignore[arg-type]
        min_overlap=min_overlap,
        tolerance=tolerance,
        per_doc=True,
        per_type=per_type,
        missing_docs=missing_docs,
        duplicates="collapse",
        task="pharmaconer-ner",
    )
    units = [*(result.documents or {}).values(), *(result.types or {}).values()]
    if undefined is Undefined.zero:
        result.scores = _zero_for_undefined(result.scores)
        for unit in units:
            unit.scores = _zero_for_undefined(unit.scores)
    document_scores = {k: u.scores for k, u in (result.documents or {}).items()}
    result.details = replace(layout, document_scores=document_scores)
    result.counts = result.counts + Counts(documents=len(document_scores))
    result.signature = Signature(
        result.signature.task,
        (
            ("codalab", "yes" if codalab else "no"),
            *result.signature.settings,
            ("undefined", undefined.value),
        ),
    )
    result.warnings = warnings + result.warnings  # reader warnings were stripped before
    if not per_doc:
        result.documents = None
    return result


def score_ner(
    gold: Path,
    system: Path,
    *,
    codalab: bool = False,
    missing_docs: MissingDocs = MissingDocs.ignore,
    undefined: Undefined = Undefined.zero,
    per_type: bool = False,
    per_doc: bool = False,
    mode: str = "strict",
    min_overlap: float = 0.0,
    tolerance: int = 0,
) -> Result:
    """Sub-track 1: entity offsets in brat files (or folders of them).

    ``mode`` other than ``strict`` scores the same input with a generic span matching mode.
    """
    if mode not in NerMode.__members__:
        raise InputError(f"unknown mode {mode!r}; expected one of {', '.join(NerMode.__members__)}")
    file_mode = _check_modes(gold, system)
    gold_docs = read_brat(gold)
    system_docs = read_brat(system, check_text=False)
    if file_mode:  # the official script pairs two files whatever their names
        (g,), (s,) = gold_docs.values(), system_docs.values()
        gold_docs, system_docs = {g.id: g}, {g.id: replace(s, id=g.id)}
    if mode != "strict":
        found = reader_warnings(gold_docs.values()) + reader_warnings(system_docs.values())
        stripped = [
            {k: replace(d, warnings=()) for k, d in docs.items()}
            for docs in (gold_docs, system_docs)
        ]
        return _score_ner_by_spans(
            stripped[0],
            stripped[1],
            Layout(1, _run_name(system), file_mode, {}),
            mode=mode,
            min_overlap=min_overlap,
            tolerance=tolerance,
            codalab=codalab,
            missing_docs=missing_docs,
            undefined=undefined,
            per_type=per_type,
            per_doc=per_doc,
            warnings=found,
        )
    pairing = pair_documents(gold_docs, system_docs, missing_docs)
    per_doc_counts: dict[str, Counts] = {}
    type_counts: dict[str, Counts] = {}
    dropped = 0
    for doc_id in pairing.scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_set, s_set = _entities(g_doc, codalab), _entities(s_doc, codalab)
        if codalab:
            dropped += len(_entities(g_doc, False) - g_set) + len(_entities(s_doc, False) - s_set)
        counts, by_type = typed_set_counts(g_set, s_set, lambda m: m.type)
        per_doc_counts[doc_id] = counts
        for name, c in by_type.items():
            type_counts[name] = type_counts.get(name, Counts()) + c

    warnings = pairing.warnings(missing_docs) + reader_warnings(gold_docs.values())
    warnings += reader_warnings(system_docs.values())
    if dropped:
        warnings.append(f"{dropped} UNCLEAR entities removed from gold and system (CodaLab rule)")
    signature = Signature.of(
        "pharmaconer-ner",
        codalab=codalab,
        mode="strict",
        missing_docs=missing_docs.value,
        undefined=undefined.value,
    )
    layout = Layout(1, _run_name(system), file_mode, {})
    return _assemble(
        "pharmaconer-ner",
        signature,
        per_doc_counts,
        dict(sorted(type_counts.items())) if per_type else None,
        undefined,
        warnings,
        layout,
        per_doc,
    )


def codes_of_clear_mentions(doc: AnnotatedDocument) -> set[str]:
    """Codes in the ``AnnotatorNotes`` of at least one mention whose type is not ``UNCLEAR``."""
    types = {m.id: m.type for m in doc.mentions}
    return {
        n.text.strip()
        for n in doc.notes
        if n.type == "AnnotatorNotes" and types.get(n.target, UNCLEAR) != UNCLEAR
    }


def score_indexing(
    gold: Path,
    system: Path,
    *,
    codalab: bool = False,
    gold_ann: Path | None = None,
    missing_docs: MissingDocs = MissingDocs.ignore,
    undefined: Undefined = Undefined.zero,
    per_doc: bool = False,
) -> Result:
    """Sub-track 2: the set of concept codes of each document (TSV files or folders)."""
    if codalab and gold_ann is None:
        raise InputError("--codalab indexing needs --gold-ann, the gold sub-track 1 .ann folder")
    file_mode = _check_modes(gold, system)
    gold_docs = read_code_tsv(gold)
    system_docs = read_code_tsv(system)
    if file_mode:
        (g,), (s,) = gold_docs.values(), system_docs.values()
        gold_docs, system_docs = {g.id: g}, {g.id: s}
    allowed: dict[str, set[str]] = {}
    if gold_ann is not None:
        ann_docs = read_brat(gold_ann, check_text=False)
        missing = sorted(set(gold_docs) - set(ann_docs))
        if missing:
            raise InputError(
                f"{len(missing)} gold document(s) have no .ann file here (first: {missing[0]})",
                gold_ann,
            )
        allowed = {doc_id: codes_of_clear_mentions(ann_docs[doc_id]) for doc_id in gold_docs}

    pairing = pair_documents(gold_docs, system_docs, missing_docs)
    per_doc_counts: dict[str, Counts] = {}
    dropped = 0
    for doc_id in pairing.scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_codes = set(g_doc.codes) if g_doc else set()
        if codalab and doc_id in allowed:
            kept = g_codes & allowed[doc_id]
            dropped += len(g_codes) - len(kept)
            g_codes = kept
        per_doc_counts[doc_id] = set_counts(g_codes, s_doc.codes if s_doc else ())

    warnings = pairing.warnings(missing_docs)
    warnings += [w for d in (*gold_docs.values(), *system_docs.values()) for w in d.warnings]
    if dropped:
        warnings.append(
            f"{dropped} gold code(s) normalise only UNCLEAR mentions and were dropped "
            "(CodaLab rule)"
        )
    signature = Signature.of(
        "pharmaconer-indexing",
        codalab=codalab,
        missing_docs=missing_docs.value,
        undefined=undefined.value,
    )
    layout = Layout(2, _run_name(system), file_mode, {})
    return _assemble(
        "pharmaconer-indexing",
        signature,
        per_doc_counts,
        None,
        undefined,
        warnings,
        layout,
        per_doc,
    )
