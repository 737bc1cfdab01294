"""Generic span scoring: ``annoscore spans GOLD SYSTEM`` and :func:`score_spans` from Python.

Modes (see :mod:`annoscore.align.spans` for the matching rules, :mod:`annoscore.metrics.spans`
for the counts and the attribution to types):

=========  ===========================================================  ======================
mode       a gold and a predicted mention match when                     scores
=========  ===========================================================  ======================
strict     same fragments and same type                                  precision recall f1
exact      same fragments (any type)                                     precision recall f1
overlap    same type, shared characters >= ``min_overlap`` of the basis  precision recall f1
relaxed    same type, start and end each within ``tolerance``            precision recall f1
token      per whitespace token of the text (needs the ``.txt``)         precision recall f1
semeval    SemEval-2013 strict / exact / partial / type schemes         ``{scheme}_precision``…
=========  ===========================================================  ======================

Matching is one-to-one and optimal and never depends on the order of the input.  ``Result``
carries the micro scores (``scores``, ``counts``), the macro averages by type and by document
(``averages["macro_type"]``, ``averages["macro_doc"]``: plain means over the units where the
score is defined), and on request the per-type (``types``) and per-document (``documents``)
tables.  Undefined scores (nothing to divide by) are ``None``.

Choices that move a number, each an option recorded in the signature:

- ``missing_docs`` (:class:`~annoscore.align.documents.MissingDocs` or its value): ``count``
  (default) scores a document present on one side only as if the
  other side were empty (all its mentions are fn, or fp); ``ignore`` leaves it out (the
  PharmaCoNER rule).  A warning names how many documents were unpaired either way.
- ``duplicates``: ``count`` (default) scores identical mentions (same fragments and type, same
  side, same document) each on its own; ``collapse`` keeps one (set semantics, as PharmaCoNER).
  A warning names how many there were either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import numpy as np

from annoscore.align.documents import MissingDocs, pair_documents
from annoscore.align.spans import Array, MatchOptions, OverlapBasis
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import reader_warnings
from annoscore.metrics.spans import (
    PRF_NAMES,
    SEMEVAL_NAMES,
    CorpusMode,
    CountTable,
    SpanCorpus,
    prf_scores,
    semeval_scores,
)
from annoscore.model import AnnotatedDocument
from annoscore.result import Result, ScoredUnit, Scores
from annoscore.signature import Signature

Duplicates = Literal["count", "collapse"]

SPAN_MODES: tuple[CorpusMode, ...] = ("strict", "exact", "overlap", "relaxed", "token", "semeval")


def _signature(
    task: str,
    mode: CorpusMode,
    options: MatchOptions,
    duplicates: Duplicates,
    missing_docs: MissingDocs,
) -> Signature:
    settings: dict[str, object] = {"mode": mode}
    if mode in ("overlap", "semeval"):
        settings["min_overlap"] = options.min_overlap
        settings["overlap_basis"] = options.overlap_basis
    if mode == "relaxed":
        settings["tolerance"] = options.tolerance
    settings["matching"] = "one-to-one-optimal"
    settings["duplicates"] = duplicates
    settings["missing_docs"] = missing_docs.value
    return Signature.of(task, **settings)


def unit_scores(counts: Counts, mode: CorpusMode) -> Scores:
    """The scores of one unit's (document, type or corpus) plain-keyed counts."""
    return semeval_scores(counts) if mode == "semeval" else prf_scores(counts)


def _vector_scores(values: Array, mode: CorpusMode) -> dict[str, Array]:
    """Scores of many units at once (rows of ``values``), NaN where undefined."""
    names = SEMEVAL_NAMES if mode == "semeval" else PRF_NAMES
    column = {name: values[:, k].astype(np.float64) for k, name in enumerate(names)}
    groups: list[tuple[str, Array, Array, Array]] = []
    if mode == "semeval":
        for scheme in ("strict", "exact", "partial", "type"):
            cor, inc, par = (column[f"{scheme}_{k}"] for k in ("cor", "inc", "par"))
            mis, spu = column[f"{scheme}_mis"], column[f"{scheme}_spu"]
            credit = cor + 0.5 * par
            groups.append((f"{scheme}_", credit, cor + inc + par + spu, cor + inc + par + mis))
    else:
        tp = column["tp"]
        groups.append(("", tp, tp + column["fp"], tp + column["fn"]))
    out: dict[str, Array] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for prefix, numerator, actual, possible in groups:
            precision = np.where(actual > 0, numerator / actual, np.nan)
            recall = np.where(possible > 0, numerator / possible, np.nan)
            total = precision + recall
            f1 = np.where(total > 0, 2 * precision * recall / total, 0.0)
            f1 = np.where(np.isnan(total), np.nan, f1)
            out[f"{prefix}precision"] = precision
            out[f"{prefix}recall"] = recall
            out[f"{prefix}f1"] = f1
    return out


def macro_scores(values: Array, mode: CorpusMode) -> Scores:
    """Plain mean of each score over the units (rows) where it is defined; None if none is."""
    means: Scores = {}
    for name, column in _vector_scores(values, mode).items():
        defined = column[~np.isnan(column)]
        means[name] = float(defined.mean()) if defined.size else None
    return means


def result_from_table(
    table: CountTable,
    mode: CorpusMode,
    doc_ids: tuple[str, ...],
    signature: Signature,
    warnings: list[str],
    *,
    per_doc: bool = False,
    per_type: bool = False,
    task: str = "spans",
) -> Result:
    """Micro scores, macro averages and optional per-type / per-document tables of ``table``."""
    corpus = table.corpus()
    type_sums = table.values.sum(axis=0)
    seen = type_sums.any(axis=1)
    averages = {
        "macro_type": macro_scores(type_sums[seen], mode),
        "macro_doc": macro_scores(table.by_document(), mode),
    }
    types = None
    if per_type:
        types = {
            name: ScoredUnit(unit_scores(counts, mode), counts)
            for name, counts in table.by_type().items()
        }
    documents = None
    if per_doc:
        documents = {}
        for d, doc_id in enumerate(doc_ids):
            counts = Counts(
                dict(zip(table.names, table.values[d].sum(axis=0).tolist(), strict=True))
            )
            documents[doc_id] = ScoredUnit(unit_scores(counts, mode), counts)
    return Result(
        task=task,
        signature=signature,
        scores=unit_scores(corpus, mode),
        counts=corpus,
        warnings=warnings,
        documents=documents,
        types=types,
        averages=averages,
        extra={"mode": mode},
    )


def score_spans(
    gold_docs: Mapping[str, AnnotatedDocument],
    pred_docs: Mapping[str, AnnotatedDocument],
    *,
    mode: CorpusMode = "strict",
    min_overlap: float = 0.0,
    overlap_basis: OverlapBasis = "gold",
    tolerance: int = 0,
    per_doc: bool = False,
    per_type: bool = False,
    missing_docs: MissingDocs | str = MissingDocs.count,
    duplicates: Duplicates = "count",
    task: str = "spans",
) -> Result:
    """Score predicted mentions against gold, document by document (keys are document ids).

    ``mode`` is one of :data:`SPAN_MODES`; ``min_overlap`` (a fraction of the ``overlap_basis``
    length: ``gold`` span, ``predicted``, ``shorter``, ``longer`` or ``union``) applies to
    ``overlap`` and ``semeval``; ``tolerance`` (characters, start and end each) to ``relaxed``.
    ``token`` mode needs each document's text (the gold document's, else the prediction's).
    ``task`` names the result (a task preset reusing this function passes its own name).

    >>> from annoscore.model import Mention, Span
    >>> gold = {"d1": AnnotatedDocument("d1", (Mention(Span.of(0, 5), "Drug"),))}
    >>> pred = {"d1": AnnotatedDocument("d1", (Mention(Span.of(0, 4), "Drug"),))}
    >>> score_spans(gold, pred, mode="overlap").scores["f1"]
    1.0
    >>> score_spans(gold, pred, mode="strict").counts.as_dict()
    {'fn': 1, 'fp': 1, 'tp': 0}
    """
    if mode not in SPAN_MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(SPAN_MODES)}")
    options = MatchOptions(min_overlap, overlap_basis, tolerance)
    policy = MissingDocs(missing_docs)
    pairing = pair_documents(gold_docs, pred_docs, policy)
    doc_ids, warnings = list(pairing.scored), pairing.warnings(policy)
    empty = AnnotatedDocument("", ())
    gold_list = [gold_docs.get(d, empty) for d in doc_ids]
    pred_list = [pred_docs.get(d, empty) for d in doc_ids]
    texts: list[str | None] = []
    for doc_id, g, p in zip(doc_ids, gold_list, pred_list, strict=True):
        text = g.text if g.text is not None else p.text
        if mode == "token" and text is None:
            raise InputError(
                "token mode needs the document text: put the .txt beside the gold .ann",
                g.path or p.path or None,
                document=doc_id,
            )
        texts.append(text)
    warnings.extend(reader_warnings([*gold_list, *pred_list]))
    corpus = SpanCorpus.from_mentions(
        doc_ids, [g.mentions for g in gold_list], [p.mentions for p in pred_list], texts
    )
    deduplicated, repeated = corpus.deduplicated()
    if repeated:
        fate = (
            "each scored" if duplicates == "count" else "collapsed to one (--duplicates collapse)"
        )
        warnings.append(
            f"{repeated} mention(s) repeat another with the same span and type in the same "
            f"document and side: {fate}"
        )
    if duplicates == "collapse":
        corpus = deduplicated
    table = corpus.table(mode, options)
    signature = _signature(task, mode, options, duplicates, policy)
    return result_from_table(
        table,
        mode,
        corpus.doc_ids,
        signature,
        warnings,
        per_doc=per_doc,
        per_type=per_type,
        task=task,
    )
