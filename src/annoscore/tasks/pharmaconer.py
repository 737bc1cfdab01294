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

from dataclasses import replace
from enum import Enum
from pathlib import Path

from annoscore.align.documents import MissingDocs, pair_documents, paired_files
from annoscore.align.span_modes import CORPUS_MODES
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import read_brat, reader_warnings
from annoscore.formats.pharmaconer import read_code_tsv
from annoscore.metrics.prf import prf_scores, prf_zero_scores
from annoscore.metrics.sets import set_counts, typed_set_counts
from annoscore.model import AnnotatedDocument, Mention
from annoscore.report.pharmaconer import Layout
from annoscore.result import CountMatrix, Result, Scorer, ScoreWarning
from annoscore.signature import Signature

UNCLEAR = "UNCLEAR"

NER_MODES = tuple(m for m in CORPUS_MODES if m in ("strict", "exact", "overlap", "relaxed"))
"""The span modes offered on PharmaCoNER input (a subset of the one list,
:data:`~annoscore.align.span_modes.CORPUS_MODES`); ``strict`` is the official one."""


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


def _entities(doc: AnnotatedDocument | None, drop_unclear: bool) -> set[Mention]:
    if doc is None:
        return set()
    return {m for m in doc.mentions if not (drop_unclear and m.type == UNCLEAR)}


def _without_unclear(docs: dict[str, AnnotatedDocument]) -> dict[str, AnnotatedDocument]:
    return {k: replace(d, mentions=tuple(_entities(d, True))) for k, d in docs.items()}


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


def _strict_counts(
    gold_docs: dict[str, AnnotatedDocument],
    system_docs: dict[str, AnnotatedDocument],
    scored: tuple[str, ...],
    codalab: bool,
) -> tuple[dict[str, Counts], int]:
    """Per-document tp/fp/fn of the sets of (type, fragments), with ``type:NAME:stat`` columns
    and ``documents`` = 1; and how many UNCLEAR entities the CodaLab rule dropped."""
    per_document: dict[str, Counts] = {}
    dropped = 0
    for doc_id in scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_set, s_set = _entities(g_doc, codalab), _entities(s_doc, codalab)
        if codalab:
            dropped += len(_entities(g_doc, False) - g_set) + len(_entities(s_doc, False) - s_set)
        counts, by_type = typed_set_counts(g_set, s_set, lambda m: m.type)
        typed = {f"type:{name}:{k}": v for name, c in by_type.items() for k, v in c.items()}
        per_document[doc_id] = counts + Counts(typed, documents=1)
    return per_document, dropped


def score_ner(
    gold: Path,
    system: Path,
    *,
    codalab: bool = False,
    missing_docs: MissingDocs | str = MissingDocs.ignore,
    undefined: Undefined | str = Undefined.zero,
    mode: str = "strict",
    min_overlap: float = 0.0,
    tolerance: int = 0,
) -> Result:
    """Sub-track 1: entity offsets in brat files (or folders of them), micro P/R/F1.

    - ``codalab``: the test-phase rules (``UNCLEAR`` entities removed from both sides).
    - ``missing_docs``: ``ignore`` (official) scores only documents on both sides; ``count``
      scores an unpaired document against nothing.
    - ``undefined``: ``zero`` (official) reads a zero denominator as 0.0; ``null`` as undefined.
    - ``mode``: ``strict`` (official: same type and fragments) or a generic span mode
      (``exact``, ``overlap`` with ``min_overlap``, ``relaxed`` with ``tolerance``), scored with
      PharmaCoNER's pairing, UNCLEAR and set (duplicates collapse) rules.

    Counts: ``tp``, ``fp``, ``fn``, ``documents`` (1 per scored document) and per type.
    P = tp/(tp+fp), R = tp/(tp+fn), F1 their harmonic mean (:mod:`annoscore.metrics.prf`).

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = score_ner(folder / "gold/subtrack1/sample", folder / "system/subtrack1/sample")
    >>> r.counts.as_dict(), round(r.scores["f1"], 4)
    ({'documents': 15, 'fn': 2, 'fp': 1, 'tp': 54}, 0.973)
    """
    if mode not in NER_MODES:
        raise InputError(f"unknown mode {mode!r}; expected one of {', '.join(NER_MODES)}")
    missing_docs, undefined = MissingDocs(missing_docs), Undefined(undefined)
    file_mode = _check_modes(gold, system)
    gold_docs, system_docs = paired_files(
        gold, system, read_brat(gold), read_brat(system, check_text=False)
    )
    layout = Layout(1, _run_name(system), file_mode)
    warnings: list[ScoreWarning | str] = []
    if mode == "strict":
        pairing = pair_documents(
            gold_docs,
            system_docs,
            gold_only=missing_docs.rule,
            system_only=missing_docs.rule,
            sort=True,
        )
        per_document, dropped = _strict_counts(gold_docs, system_docs, pairing.scored, codalab)
        warnings += [*pairing.warnings(), *reader_warnings(gold_docs.values())]
        warnings += reader_warnings(system_docs.values())
        matrix = CountMatrix.of(per_document)
        signature = Signature.of(
            "pharmaconer-ner",
            codalab=codalab,
            mode="strict",
            missing_docs=missing_docs.value,
            undefined=undefined.value,
        )
    else:
        from annoscore.align.spans import MatchOptions  # numpy: only the span modes need it
        from annoscore.tasks.spans import count_spans, span_signature

        dropped = 0
        if codalab:
            dropped = sum(
                len(d.mentions) - len(_entities(d, True))
                for d in (*gold_docs.values(), *system_docs.values())
            )
            gold_docs, system_docs = _without_unclear(gold_docs), _without_unclear(system_docs)
        options = MatchOptions(min_overlap, "gold", tolerance)
        span_matrix, warnings = count_spans(
            gold_docs,
            system_docs,
            mode=mode,
            options=options,
            missing_docs=missing_docs,
            duplicates="collapse",
        )
        matrix = span_matrix.with_column("documents", 1)
        signature = span_signature(
            "pharmaconer-ner",
            mode,
            options,
            "collapse",
            missing_docs,
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
    missing_docs: MissingDocs | str = MissingDocs.ignore,
    undefined: Undefined | str = Undefined.zero,
) -> Result:
    """Sub-track 2: the set of concept codes of each document (TSV files or folders).

    ``codalab`` (with ``gold_ann``, the gold sub-track 1 ``.ann`` folder) drops gold codes that
    normalise only UNCLEAR mentions; ``missing_docs`` and ``undefined`` as in :func:`score_ner`.
    Counts: ``tp``, ``fp``, ``fn`` of the code sets, ``documents``.
    """
    if codalab and gold_ann is None:
        raise InputError("--codalab indexing needs --gold-ann, the gold sub-track 1 .ann folder")
    missing_docs, undefined = MissingDocs(missing_docs), Undefined(undefined)
    file_mode = _check_modes(gold, system)
    gold_docs, system_docs = paired_files(gold, system, read_code_tsv(gold), read_code_tsv(system))
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

    pairing = pair_documents(
        gold_docs,
        system_docs,
        gold_only=missing_docs.rule,
        system_only=missing_docs.rule,
        sort=True,
    )
    per_document: dict[str, Counts] = {}
    dropped = 0
    for doc_id in pairing.scored:
        g_doc, s_doc = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_codes = set(g_doc.codes) if g_doc else set()
        if codalab and doc_id in allowed:
            kept = g_codes & allowed[doc_id]
            dropped += len(g_codes) - len(kept)
            g_codes = kept
        per_document[doc_id] = set_counts(g_codes, s_doc.codes if s_doc else ()) + Counts(
            documents=1
        )

    warnings: list[ScoreWarning | str] = [*pairing.warnings()]
    warnings += [w for d in (*gold_docs.values(), *system_docs.values()) for w in d.warnings]
    if dropped:
        warnings.append(
            ScoreWarning(
                "pharmaconer.unclear-codes",
                "{count} gold code(s) normalise only UNCLEAR mentions and were dropped "
                "(CodaLab rule)",
                dropped,
            )
        )
    signature = Signature.of(
        "pharmaconer-indexing",
        codalab=codalab,
        missing_docs=missing_docs.value,
        undefined=undefined.value,
    )
    return Result.from_counts(
        "pharmaconer-indexing",
        signature,
        per_document,
        SCORERS[undefined],
        warnings=warnings,
        details=Layout(2, _run_name(system), file_mode),
    )
