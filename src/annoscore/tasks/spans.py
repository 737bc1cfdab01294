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
carries the micro scores (``scores``, ``counts``), the count matrix (documents x statistics,
per-type columns ``type:NAME:stat`` included), and from it the per-type (``types``) and
per-document (``documents``) tables and the macro averages by type and by document
(``averages["macro_type"]``, ``averages["macro_doc"]``: plain means over the units where the
score is defined).  Undefined scores (nothing to divide by) are ``None``; F is undefined only
when a unit has no mention on either side, so a document whose mentions were all missed has
F 0 and pulls ``macro_doc`` down (:mod:`annoscore.metrics.prf`).

Choices that move a number, each an option recorded in the signature:

- ``missing_docs`` (:class:`~annoscore.align.documents.MissingDocs` or its value): ``count``
  (default) scores a document present on one side only as if the
  other side were empty (all its mentions are fn, or fp); ``ignore`` leaves it out (the
  PharmaCoNER rule).  A warning names how many documents were unpaired either way.
- ``duplicates``: ``count`` (default) scores identical mentions (same fragments and type, same
  side, same document) each on its own; ``collapse`` keeps one (set semantics, as PharmaCoNER).
  A warning names how many there were either way.

In :func:`score_span_files` (the command), an option that has no effect in the chosen mode
(``tolerance`` outside ``relaxed``, ``min_overlap`` or ``overlap_basis`` outside ``overlap`` and
``semeval``) is an :class:`~annoscore.errors.InputError` (exit 2): it would otherwise be
silently ignored.

Input (:func:`score_span_files`): brat files read by the generic rules of
:mod:`annoscore.formats.brat` (malformed lines are errors naming file and line; a byte-order mark
and text separated from the offsets by a space are tolerated with a warning, refused with
``strict_input``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from annoscore.align.documents import MissingDocs, Rule, pair_documents, paired_files
from annoscore.align.span_modes import (
    CORPUS_MODES,
    DUPLICATE_POLICIES,
    CorpusMode,
    Duplicates,
    MatchOptions,
    OverlapBasis,
)
from annoscore.errors import InputError
from annoscore.formats.brat import MAX_OFFSET, AnnFile, read_brat_corpus, reader_warnings
from annoscore.metrics.span_corpus import SpanCorpus, scorer_of
from annoscore.model import AnnotatedDocument, Mention
from annoscore.result import CountMatrix, Result, ScoreWarning, View, merge_warnings
from annoscore.signature import Signature

SpanDocument = AnnotatedDocument | AnnFile
"""A document side: the model object (Python callers) or a reader's columns (the command)."""


class _MentionColumns:
    """An :class:`~annoscore.model.AnnotatedDocument`'s mentions seen as entity columns."""

    __slots__ = ("_mentions", "ends", "has_discontinuous", "starts", "types")

    def __init__(self, mentions: tuple[Mention, ...]) -> None:
        self._mentions = mentions
        self.types = [m.type for m in mentions]
        self.starts = [m.span.start for m in mentions]
        self.ends = [m.span.end for m in mentions]
        self.has_discontinuous = any(m.span.is_discontinuous for m in mentions)

    def mentions(self) -> tuple[Mention, ...]:
        return self._mentions


def check_mode_options(mode: str, options: MatchOptions) -> None:
    """An :class:`InputError` for an option with no effect in ``mode`` (a value other than its
    default), and for a tolerance above :data:`~annoscore.formats.brat.MAX_OFFSET`."""
    if options.tolerance and mode != "relaxed":
        raise InputError(f"--tolerance has no effect with --mode {mode} (only with relaxed)")
    if options.tolerance > MAX_OFFSET:
        raise InputError(f"--tolerance {options.tolerance} is beyond any text (above 2^53)")
    if options.min_overlap and mode not in ("overlap", "semeval"):
        raise InputError(
            f"--min-overlap has no effect with --mode {mode} (only with overlap and semeval)"
        )
    if options.overlap_basis != "gold" and mode not in ("overlap", "semeval"):
        raise InputError(
            f"--overlap-of has no effect with --mode {mode} (only with overlap and semeval)"
        )


def span_signature(
    task: str,
    mode: CorpusMode,
    options: MatchOptions,
    duplicates: Duplicates,
    missing_docs: str,
    leading: Mapping[str, object] | None = None,
    trailing: Mapping[str, object] | None = None,
) -> Signature:
    """The settings of a span mode that move a number, between a preset's own ``leading``
    and ``trailing`` settings."""
    values: dict[str, object] = {**(leading or {}), "mode": mode}
    if mode in ("overlap", "semeval"):
        values["min_overlap"] = options.min_overlap
        values["overlap_basis"] = options.overlap_basis
    if mode == "relaxed":
        values["tolerance"] = options.tolerance
    values["matching"] = "one-to-one-optimal"
    values["duplicates"] = duplicates
    values["missing_docs"] = missing_docs
    return Signature.of(task, **values, **(trailing or {}))


def _columns(doc: SpanDocument) -> AnnFile | _MentionColumns:
    return doc if isinstance(doc, AnnFile) else _MentionColumns(doc.mentions)


def count_spans(
    gold_docs: Mapping[str, SpanDocument],
    pred_docs: Mapping[str, SpanDocument],
    *,
    mode: CorpusMode,
    options: MatchOptions,
    pairing: tuple[Rule, Rule],
    duplicates: Duplicates,
) -> tuple[CountMatrix, list[ScoreWarning | str]]:
    """The count matrix of a span corpus (documents x statistics, per-type columns included)
    and the warnings of pairing, reading and duplicates: what :func:`score_spans` and the
    PharmaCoNER preset's span modes both score.  ``pairing``: the rule of a gold-only and of
    a system-only document (:func:`~annoscore.align.documents.pair_documents`)."""
    if mode not in CORPUS_MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(CORPUS_MODES)}")
    if duplicates not in DUPLICATE_POLICIES:
        raise ValueError(f"unknown duplicates policy {duplicates!r}")
    paired = pair_documents(
        gold_docs, pred_docs, gold_only=pairing[0], system_only=pairing[1], sort=True
    )
    doc_ids = list(paired.scored)
    warnings: list[ScoreWarning | str] = [*paired.warnings()]
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
    models = [d for d in (*gold_list, *pred_list) if isinstance(d, AnnotatedDocument)]
    warnings.extend(reader_warnings(models))
    warnings.extend(
        merge_warnings(
            w for d in (*gold_list, *pred_list) if isinstance(d, AnnFile) for w in d.warnings
        )
    )
    if len(models) == len(gold_list) + len(pred_list):  # model objects: the mention columns
        corpus = SpanCorpus.from_mentions(
            doc_ids,
            [g.mentions for g in models[: len(gold_list)]],
            [p.mentions for p in models[len(gold_list) :]],
            texts,
        )
    else:  # a reader's columns: no mention object is built
        corpus = SpanCorpus.from_columns(
            doc_ids, [_columns(g) for g in gold_list], [_columns(p) for p in pred_list], texts
        )
    deduplicated, repeated = corpus.deduplicated()
    if repeated:
        fate = (
            "each scored" if duplicates == "count" else "collapsed to one (--duplicates collapse)"
        )
        warnings.append(
            ScoreWarning(
                "spans.duplicates",
                "{count} mention(s) repeat another with the same span and type in the same "
                f"document and side: {fate}",
                repeated,
            )
        )
    if duplicates == "collapse":
        corpus = deduplicated
    return corpus.table(mode, options).matrix(corpus.doc_ids), warnings


def score_spans(
    gold_docs: Mapping[str, SpanDocument],
    pred_docs: Mapping[str, SpanDocument],
    *,
    mode: CorpusMode = "strict",
    min_overlap: float = 0.0,
    overlap_basis: OverlapBasis = "gold",
    tolerance: int = 0,
    missing_docs: MissingDocs | str = MissingDocs.count,
    duplicates: Duplicates = "count",
    extra_warnings: Sequence[ScoreWarning] = (),
) -> Result:
    """Score predicted mentions against gold, document by document (keys are document ids).

    ``mode`` is one of :data:`~annoscore.align.span_modes.CORPUS_MODES`; ``min_overlap`` (a
    fraction of the ``overlap_basis`` length: ``gold`` span, ``predicted``, ``shorter``,
    ``longer`` or ``union``) applies to ``overlap`` and ``semeval``; ``tolerance`` (characters,
    start and end each) to ``relaxed``.  ``token`` mode needs each document's text (the gold
    document's, else the prediction's).

    Counts: ``tp``, ``fp``, ``fn`` (SemEval: ``{scheme}_{cor,inc,par,mis,spu}``) and the same
    per type.  Undefined: P when nothing was predicted, R when nothing was to be found, F only
    when both (then ``None``).

    >>> from annoscore.model import Mention, Span
    >>> gold = {"d1": AnnotatedDocument("d1", (Mention(Span.of(0, 5), "Drug"),))}
    >>> pred = {"d1": AnnotatedDocument("d1", (Mention(Span.of(0, 4), "Drug"),))}
    >>> score_spans(gold, pred, mode="overlap").scores["f1"]
    1.0
    >>> score_spans(gold, pred, mode="strict").counts.as_dict()
    {'fn': 1, 'fp': 1, 'tp': 0}
    """
    options = MatchOptions(min_overlap, overlap_basis, tolerance)
    policy = MissingDocs(missing_docs)
    matrix, warnings = count_spans(
        gold_docs,
        pred_docs,
        mode=mode,
        options=options,
        pairing=(policy.rule, policy.rule),
        duplicates=duplicates,
    )
    return Result.from_counts(
        "spans",
        span_signature("spans", mode, options, duplicates, policy.value),
        matrix,
        scorer_of(mode),
        warnings=[*extra_warnings, *warnings],
        view=View(averages=True),
        extra={"mode": mode},
    )


def score_span_files(
    gold: Path,
    system: Path,
    *,
    mode: CorpusMode = "strict",
    min_overlap: float = 0.0,
    overlap_basis: OverlapBasis = "gold",
    tolerance: int = 0,
    missing_docs: MissingDocs | str = MissingDocs.count,
    duplicates: Duplicates = "count",
    strict_input: bool = False,
) -> Result:
    """:func:`score_spans` of two brat files (one document, whatever their names) or folders.

    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = score_span_files(folder / "gold/subtrack1/sample", folder / "system/subtrack1/sample")
    >>> r.counts.as_dict()
    {'fn': 2, 'fp': 1, 'tp': 54}
    """
    check_mode_options(mode, MatchOptions(min_overlap, overlap_basis, tolerance))
    gold_corpus = read_brat_corpus(gold, strict_input=strict_input)
    system_corpus = read_brat_corpus(system, strict_input=strict_input)
    gold_docs, system_docs = paired_files(gold, system, gold_corpus.files, system_corpus.files)
    return score_spans(
        gold_docs,
        system_docs,
        mode=mode,
        min_overlap=min_overlap,
        overlap_basis=overlap_basis,
        tolerance=tolerance,
        missing_docs=missing_docs,
        duplicates=duplicates,
        extra_warnings=[*gold_corpus.warnings, *system_corpus.warnings],
    )
