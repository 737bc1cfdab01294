"""CodiEsp (CLEF eHealth 2020): D and P (ranked codes: MAP, and micro P/R/F1), X (explainable).

Official rules (``spec/codiesp.md``), all defaults here (:class:`RankedOptions`,
:class:`ExplainableOptions`):

- Codes are lower-cased on both sides (``lowercase``); predictions whose code is not in the
  valid-code list are dropped **before** ranking, so they leave no gap; gold codes are **not**
  filtered (``filter_gold=False``).  Duplicate (document, code) lines keep the first.
- D/P MAP: line order is the rank; ranks beyond ``depth`` (1000) are cut after filtering;
  AP(doc) = sum of P@k over the relevant ranks / distinct gold codes of the doc.  A gold
  document with no valid prediction is left out of MAP (``missing_docs=ignore``); a predicted
  document absent from the gold counts AP 0 (``extra_docs=zero``).
- D/P ``--measure``: trec_eval's other ranked measures (``P.5,10``, ``ndcg_cut.10``, the sets
  ``official`` and ``all_trec``) on the lists MAP ranks, beside MAP and over the same documents
  (:func:`annoscore.metrics.ranked_codes.measure_columns`); nothing else changes.
- D/P P/R/F1 (the later F1 script): micro over all (document, code) pairs, no depth cut;
  predicted documents absent from the gold count against precision.
- X: a (document, code) pair is a true positive when any predicted position matches any gold
  reference of that code (:mod:`annoscore.align.references`: one-sided 10-character tolerance
  ``contain``); the label column is ignored (``check_label=False``).
- P = tp/(tp+fp), R = tp/(tp+fn) and F1 = 2PR/(P+R) as the official scripts compute them, with
  the one rule (:mod:`annoscore.metrics.prf`) where they print ``nan`` or crash.

Every quirk that moves a number is reported in ``warnings`` with the number it would give
(:mod:`annoscore.tasks.codiesp_warnings`).

The data flow: each file is read once (:mod:`annoscore.formats.codiesp`), the two sides are put
on one index of documents and codes (:mod:`annoscore.align.codes`, X:
:mod:`annoscore.align.references`), counted per document under the options
(:mod:`annoscore.metrics.ranked_codes`, :func:`annoscore.tasks.codiesp_warnings.rank` and
``match``) and scored (:mod:`annoscore.metrics.codiesp`).  ``score_codiesp_*`` take files,
``count_codiesp_*`` the same data in memory; both share one inner function per kind of task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from annoscore.align.codes import RankedInput
from annoscore.align.documents import MissingDocs
from annoscore.align.references import ToleranceMode
from annoscore.code_lists import CodeReference
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.codiesp import (
    code_rows_of,
    read_code_file,
    read_gold_reference_file,
    read_predicted_reference_file,
    read_valid_code_file,
)
from annoscore.formats.codiesp_scan import code_seed
from annoscore.metrics.codiesp import CodiespDetails, ranked_scores
from annoscore.metrics.prf import prf_scores
from annoscore.metrics.ranked_codes import (
    INTEGER_COLUMNS,
    CodeRanking,
    TieOrder,
    corpus_counts,
    count_columns,
    measure_columns,
    measure_outputs,
    numeric_map_columns,
    numeric_positions,
)
from annoscore.options import TaskOptions, option
from annoscore.result import CountMatrix, Names, Result
from annoscore.scale import chunked, keep, keeping
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.codiesp_chunks import After, Kept, pooled
from annoscore.tasks.codiesp_warnings import (
    collapsed,
    explainable_warnings,
    invalid_predictions,
    lowercase_may_move,
    lowercased,
    match,
    numeric_ids_warning,
    rank,
    ranked_warnings,
    x_lowercase_warnings,
)
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from annoscore.align.span_sides import SpanSides

__all__ = [
    "OFFICIAL_DEPTH",
    "ExplainableOptions",
    "RankedOptions",
    "TieOrder",
    "ToleranceMode",
    "count_codiesp_d",
    "count_codiesp_p",
    "count_codiesp_x",
    "score_codiesp_d",
    "score_codiesp_p",
    "score_codiesp_x",
]

# --- the options -----------------------------------------------------------------------------

OFFICIAL_DEPTH = 1000

_LOWERCASE = (
    "Lower-case the codes (official since 2020-09-30); --no-lowercase keeps their case against "
    "the lower-cased valid list, as during the 2020 campaign."
)
_FILTER_GOLD = "Also drop gold codes that are not in the valid list (the official keeps them)."


@dataclass(frozen=True, slots=True)
class RankedOptions(TaskOptions):
    """The options of CodiEsp D and P (official defaults); ``codes`` is required."""

    codes: Path | None = option(
        None,
        "Valid-code TSV (code in the first column).",
        flags=("--codes", "-c"),
        moves=False,
        required=True,
    )
    missing_docs: Literal[MissingDocs.ignore, MissingDocs.zero] = option(
        MissingDocs.ignore,
        "A gold document with no valid prediction: ignore = left out of MAP (official), "
        "zero = AP 0.",
    )
    extra_docs: Literal[MissingDocs.zero, MissingDocs.ignore] = option(
        MissingDocs.zero,
        "A predicted document absent from the gold: zero = AP 0 in MAP (official), "
        "ignore = left out of MAP.",
    )
    filter_gold: bool = option(False, _FILTER_GOLD)
    depth: int | None = option(
        OFFICIAL_DEPTH, "Ranks kept per document for MAP (official 1000; 0 = all).", low=0
    )
    lowercase: bool = option(True, _LOWERCASE)
    tie_order: TieOrder = option(
        TieOrder.file,
        "Rank of a document's predictions in MAP: file = line order (trectools 0.0.42, which "
        "the official script pins); code = alphabetical by code (trectools 0.0.50, other MAPs "
        "on the same files).",
    )
    measures: tuple[str, ...] = option(
        (),
        "Other trec_eval measures to report beside MAP, on the lists MAP ranks (its depth, "
        "ties, duplicates and invalid codes; the gold codes relevant): names as annoscore trec "
        "-m takes them (P.5,10, ndcg_cut.10, recip_rank) or the sets official and all_trec; "
        "repeatable.",
        flags=("-m", "--measure", "--measures"),
        omitted_at_default=True,
    )

    def __post_init__(self) -> None:
        """Checked as every option is; a depth of 0 is no cut, as ``None`` (one signature)."""
        TaskOptions.__post_init__(self)
        if self.depth == 0:
            object.__setattr__(self, "depth", None)


@dataclass(frozen=True, slots=True)
class ExplainableOptions(TaskOptions):
    """The options of CodiEsp X (official defaults); ``codes_d`` and ``codes_p`` are required."""

    codes_d: Path | None = option(None, "Valid D codes TSV.", moves=False, required=True)
    codes_p: Path | None = option(None, "Valid P codes TSV.", moves=False, required=True)
    tolerance: int = option(10, "Characters of tolerance (official 10).", low=0)
    tolerance_mode: ToleranceMode = option(
        ToleranceMode.contain,
        "contain: the prediction contains the reference, overhanging at most TOLERANCE per side "
        "(official); symmetric: each boundary within TOLERANCE.",
    )
    check_label: bool = option(False, "The label must match too (the official ignores it).")
    filter_gold: bool = option(False, _FILTER_GOLD)
    lowercase: bool = option(True, _LOWERCASE)


def _valid_codes(
    given: Iterable[str] | None, task: str, *lists: tuple[Path | None, str]
) -> tuple[frozenset[str], list[ScoreWarning]]:
    """The valid codes, lower-cased as the reader lower-cases a list's: ``given`` (in memory),
    else the union of the lists of the options ``lists`` (path, option name), read, with the
    reader's warnings."""
    if given is None:
        for path, name in lists:
            if path is None:
                raise InputError(f"{task} needs the option {name} (a valid-code TSV)")
        read = [read_valid_code_file(path) for path, _ in lists if path is not None]
        codes = frozenset[str]().union(*(r.codes for r in read))
        return codes, [w for r in read for w in r.warnings]
    if isinstance(given, str):
        raise InputError("valid: expected a collection of codes, not one string")
    listed = list(given)
    for code in listed:
        if not isinstance(code, str):
            raise InputError(f"valid: expected codes as strings, not {code!r}")
    codes = frozenset(c.lower() for c in listed if c.strip())
    if not codes:
        raise InputError("the valid-code list is empty: expected at least one code")
    return codes, []


# --- D and P ---------------------------------------------------------------------------------


def _joined_details(chunks: Sequence[CodiespDetails], _order: Sequence[int]) -> CodiespDetails:
    """The details of a corpus cut into chunks of whole documents (:mod:`annoscore.scale`):
    the chunks' gold documents one after the other (each chunk in gold order; joined as one
    string when each chunk sent them so, :class:`~annoscore.result.Names`)."""
    return CodiespDetails(Names.chained([c.gold_documents for c in chunks]))


@chunked("codiesp-d", "lines", order="gold-first", details=_joined_details, pooled=pooled)
def score_codiesp_d(gold: Path, pred: Path, options: RankedOptions = RankedOptions()) -> Result:
    """CodiEsp-D (ICD-10 diagnosis codes) from files: MAP as ``codiespD_P_evaluation.py``
    computes it and micro P/R/F1 as ``comp_f1_diag_proc.py`` does, in one run.

    Counts per document, additive: ``tp``, ``fp``, ``fn`` over distinct (document, code)
    pairs, predictions whose code is not in ``options.codes`` dropped first; ``ap_sum`` (the
    document's AP, when it counts in MAP) and ``queries`` (1 when it counts).  MAP = ap_sum /
    queries, AP = the sum of P@k over the relevant ranks (the first ``depth``) / the document's
    distinct gold codes; P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2PR/(P+R).

    Undefined (``None``, named in the warnings): MAP when no document counts in it, P when no
    valid code is predicted (R and F1 are then 0 where the F1 script prints ``nan|0.0|nan``), R
    when no gold code counts (``filter_gold`` dropped them all), F1 when neither side has one.

    Settings that move a number (:class:`RankedOptions`; official default): ``missing_docs``
    (``ignore``: a gold document without a valid prediction is left out of MAP),
    ``extra_docs`` (``zero``), ``filter_gold`` (off), ``depth`` (1000), ``lowercase`` (on),
    ``tie_order`` (``file``).

    Document ids: the F1 script compares them as text; the MAP script reads a file whose ids all
    look like integers as numbers (``0001`` and ``1`` are one document).  Each number follows its
    own script (MAP's ``ap_sum``/``queries`` on the first document of each number), with a
    warning when the two readings give different MAPs.

    >>> from annoscore.samples import SAMPLES
    >>> c = SAMPLES / "codiesp"
    >>> options = RankedOptions(codes=c / "codes-D.tsv")
    >>> r = score_codiesp_d(c / "gs_D.tsv", c / "pred_D.tsv", options)
    >>> [round(r.scores[k], 3) for k in ("map", "precision", "recall", "f1")]
    [0.444, 0.444, 0.4, 0.421]
    """
    return _score_ranked("codiesp-d", gold, pred, options)


@chunked("codiesp-p", "lines", order="gold-first", details=_joined_details, pooled=pooled)
def score_codiesp_p(gold: Path, pred: Path, options: RankedOptions = RankedOptions()) -> Result:
    """CodiEsp-P (ICD-10 procedure codes) from files, by the two scripts that score D: counts,
    formulas (MAP = ap_sum / queries; P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2PR/(P+R)) and
    document ids as in :func:`score_codiesp_d`.  Undefined: as there (MAP when no document
    counts in it, P when no valid code is predicted, R when no gold code counts, F1 when
    neither side has one).  Settings: :class:`RankedOptions`, as there.

    >>> from annoscore.samples import SAMPLES
    >>> c = SAMPLES / "codiesp"
    >>> options = RankedOptions(codes=c / "codes-P.tsv")
    >>> r = score_codiesp_p(c / "gs_P.tsv", c / "pred_P.tsv", options)
    >>> r.task, r.counts["tp"], r.headline
    ('codiesp-p', 3, 'map')
    """
    return _score_ranked("codiesp-p", gold, pred, options)


def count_codiesp_d(
    gold: Mapping[str, Sequence[str]],
    pred: Mapping[str, Sequence[str]],
    valid: Iterable[str] | None = None,
    options: RankedOptions = RankedOptions(),
) -> Result:
    """CodiEsp-D of data in memory: ``document id -> codes`` on each side (predictions in rank
    order), scored as :func:`score_codiesp_d` scores the same lines in files.  ``valid``: the
    valid codes (lower-cased as from a file); ``None``: ``options.codes`` is read.

    >>> r = count_codiesp_d({"D1": ["a", "b"]}, {"D1": ["c", "a"]}, ["a", "b", "c"])
    >>> r.scores
    {'map': 0.25, 'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    return _count_in_memory("codiesp-d", gold, pred, options, valid)


def count_codiesp_p(
    gold: Mapping[str, Sequence[str]],
    pred: Mapping[str, Sequence[str]],
    valid: Iterable[str] | None = None,
    options: RankedOptions = RankedOptions(),
) -> Result:
    """CodiEsp-P of data in memory, as :func:`count_codiesp_d`.

    >>> count_codiesp_p({"D1": ["bw03zzz"]}, {"D1": ["bw03zzz"]}, ["BW03ZZZ"]).score
    1.0
    """
    return _count_in_memory("codiesp-p", gold, pred, options, valid)


def _score_ranked(task: str, gold: Path, pred: Path, options: RankedOptions) -> Result:
    """D or P from files: each read once, codes as written, from the seed of the valid codes
    (:class:`~annoscore.formats.codiesp_scan.CodeSeed`: made once per process, so that a chunk's
    work is per code outside the valid list, not per valid code it uses)."""

    def read() -> tuple[RankedInput, list[ScoreWarning | str]]:
        valid, warnings = _valid_codes(None, task, (options.codes, "codes"))
        seed = code_seed(valid)
        gold_file = read_code_file(gold, "gold", lowercase=False, seed=seed)
        pred_file = read_code_file(
            pred, "predictions", lowercase=False, allow_empty=True, seed=seed
        )
        both = RankedInput(gold_file.rows, pred_file.rows, valid, seed)
        if keeping():  # a chunk (annoscore.scale): its warnings by group, for the pooling
            keep(Kept(True, tuple(warnings), gold_file.warnings, pred_file.warnings))
        return both, [*warnings, *gold_file.warnings, *pred_file.warnings]

    return _count_ranked(task, read, options)


def _count_in_memory(
    task: str,
    gold: Mapping[str, Sequence[str]],
    pred: Mapping[str, Sequence[str]],
    options: RankedOptions,
    given: Iterable[str] | None,
) -> Result:
    def read() -> tuple[RankedInput, list[ScoreWarning | str]]:
        valid, warnings = _valid_codes(given, task, (options.codes, "codes"))
        gold_rows = code_rows_of(gold, "gold")
        pred_rows = code_rows_of(pred, "predictions", allow_empty=True)
        return RankedInput(gold_rows, pred_rows, valid), list(warnings)

    return _count_ranked(task, read, options)


def _count_ranked(
    task: str,
    load: Callable[[], tuple[RankedInput, list[ScoreWarning | str]]],
    options: RankedOptions,
) -> Result:
    """The result of D or P from both sides as ``load`` reads them (codes as written) with the
    valid codes and the readers' warnings.  Read here, not by the caller, so that the rows as
    written are freed once the view the options ask for is made (unless the other setting of
    lower-casing needs them): no caller's frame holds them while the codes are ranked."""
    measures = None
    if options.measures:
        from annoscore.metrics.trec_measures import MeasureSet

        measures = MeasureSet.parse(options.measures, "--measure")
    read, warnings = load()
    read_warnings = len(warnings)
    view = read.view(lowercase=options.lowercase)
    # the codes as written are needed again only for the other setting of lower-casing
    other: RankedInput | None = read if lowercase_may_move(view, options) else None
    del read
    data = view.data
    # the other measures are computed on the lists MAP ranks: those of the ids as the MAP
    # script reads them; the lists are kept for the HTML report too (references to arrays
    # ranking makes anyway: no time spent)
    lists = view.numeric is None
    outcome = rank(data, options, view.vocabulary, keep_lists=lists)
    columns = count_columns(outcome)
    integer = list(INTEGER_COLUMNS)
    if measures is not None:
        integer += [o.column for o in measure_outputs(measures) if o.kind == "count"]
        if outcome.ranked is not None:
            columns.update(measure_columns(data, outcome, measures, options.depth))
    # MAP's sums as the warnings use them: correctly rounded (corpus_counts), with the ids as
    # the MAP script reads them
    map_counts = corpus_counts(outcome)
    if view.numeric is not None:
        numeric_outcome = rank(view.numeric, options, view.vocabulary, measures is not None)
        as_text = ranked_scores(map_counts)["map"]
        map_counts = corpus_counts(numeric_outcome)
        columns["ap_sum"], columns["queries"] = numeric_map_columns(
            data, view.numeric, numeric_outcome
        )
        if measures is not None:
            columns.update(
                _on_text_ids(
                    measure_columns(view.numeric, numeric_outcome, measures, options.depth),
                    numeric_positions(data, view.numeric),
                    len(data.documents),
                )
            )
        warnings += numeric_ids_warning(view, as_text, ranked_scores(map_counts)["map"])
    matrix = CountMatrix.from_columns(data.documents, columns, integer=tuple(integer))
    warnings += ranked_warnings(other, view, outcome, options, map_counts)
    if keeping():  # a chunk (annoscore.scale): its other warnings, for the pooling
        invalid = (data.invalid_pred_rows, tuple(data.invalid_pred_examples))
        keep(After(tuple(warnings[read_warnings:]), invalid))
    gold_documents: Sequence[str] = tuple(data.documents[: len(data.gold.documents)])
    if len(gold_documents) == len(data.documents):  # every document a gold one (the usual)
        if keeping():  # a chunk of a cut run: the names as one string, sent once for both
            matrix = replace(matrix, documents=Names.of(matrix.documents))
        gold_documents = matrix.documents
    outputs = () if measures is None else tuple(measure_outputs(measures, shown=True))
    ranking = None
    if outcome.ranked is not None:
        ranking = CodeRanking(data.documents, data.pred_global, outcome.ranked, view.vocabulary)
    details = CodiespDetails(gold_documents, outputs, ranking)
    return get(task).result(options, matrix, warnings=warnings, details=details)


def _on_text_ids(
    columns: dict[str, npt.NDArray[Any]], at: npt.NDArray[np.int64], documents: int
) -> dict[str, npt.NDArray[Any]]:
    """Columns of the numeric-id corpus, each document's value on the text document ``at``
    gives it (as ``ap_sum``), 0 on the others."""
    import numpy as np

    out = {}
    for name, column in columns.items():
        placed = np.zeros(documents, dtype=column.dtype)
        np.add.at(placed, at, column)
        out[name] = placed
    return out


# --- X ---------------------------------------------------------------------------------------


@chunked("codiesp-x", "lines", order="gold-first", details=_joined_details, pooled=pooled)
def score_codiesp_x(
    gold: Path, pred: Path, options: ExplainableOptions = ExplainableOptions()
) -> Result:
    """CodiEsp-X (codes with the text that supports them) from files: micro P/R/F1 over
    (document, code) pairs as ``codiespX_evaluation.py`` computes them.

    Counts per document, additive: ``tp`` (pairs of which some predicted position matches some
    gold reference: "one reference is enough"), ``fp`` (other predicted pairs), ``fn`` (other
    gold pairs); predictions whose code is in neither ``options.codes_d`` nor
    ``options.codes_p`` are dropped first (their union is the valid list, so the label is never
    checked against them).  P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2PR/(P+R).

    Undefined (``None``, named in the warnings): P when no valid code is predicted (R and F1 are
    then 0), R when no gold code counts (``filter_gold`` dropped them all), F1 when neither side
    has one.

    Settings that move a number (:class:`ExplainableOptions`; official default): ``tolerance``
    (10 characters), ``tolerance_mode`` (``contain``: the prediction holds the reference and
    overhangs it by at most the tolerance), ``check_label`` (off), ``filter_gold`` (off),
    ``lowercase`` (on).

    >>> from annoscore.samples import SAMPLES
    >>> c = SAMPLES / "codiesp"
    >>> options = ExplainableOptions(codes_d=c / "codes-D.tsv", codes_p=c / "codes-P.tsv")
    >>> r = score_codiesp_x(c / "gs_X.tsv", c / "pred_X.tsv", options)
    >>> [round(r.scores[k], 4) for k in ("precision", "recall", "f1")]
    [0.5385, 0.5385, 0.5385]
    """
    valid, warnings = _valid_codes(None, "codiesp-x", *_x_lists(options))
    # read as written: the lower-cased codes (official) and the warning on the other setting
    # both come from it
    gold_file = read_gold_reference_file(gold, lowercase=False)
    pred_file = read_predicted_reference_file(pred, lowercase=False, allow_empty=True)
    if keeping():  # a chunk (annoscore.scale): its warnings by group, for the pooling
        keep(Kept(False, tuple(warnings), gold_file.warnings, pred_file.warnings))
    return _count_explainable(
        (gold_file.references, str(gold)),
        (pred_file.references, str(pred)),
        valid,
        options,
        [*warnings, *gold_file.warnings, *pred_file.warnings],
    )


def _x_lists(options: ExplainableOptions) -> tuple[tuple[Path | None, str], ...]:
    return ((options.codes_d, "codes_d"), (options.codes_p, "codes_p"))


def count_codiesp_x(
    gold: Iterable[CodeReference],
    pred: Iterable[CodeReference],
    valid: Iterable[str] | None = None,
    options: ExplainableOptions = ExplainableOptions(),
) -> Result:
    """CodiEsp-X of references in memory (the reader's :class:`~annoscore.code_lists.CodeReference`
    objects, codes as written; ``line`` names one in warnings), scored as
    :func:`score_codiesp_x` scores the same lines in files.  ``valid``: the valid D and P codes
    (lower-cased as from a file); ``None``: ``options.codes_d`` and ``options.codes_p`` are
    read.

    >>> from annoscore.code_lists import CodeReference as Ref
    >>> gold = [Ref("D1", "DIAGNOSTICO", "a", 10, 20, 1)]
    >>> pred = [Ref("D1", "DIAGNOSTICO", "a", 5, 25, 1), Ref("D1", "DIAGNOSTICO", "b", 0, 4, 2)]
    >>> count_codiesp_x(gold, pred, ["a", "b"], ExplainableOptions(tolerance=5)).scores
    {'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    """
    gold_refs, pred_refs = list(gold), list(pred)
    if not gold_refs:
        raise InputError("the gold references are empty: expected at least one")
    codes, warnings = _valid_codes(valid, "codiesp-x", *_x_lists(options))
    return _count_explainable(
        (gold_refs, "<gold>"), (pred_refs, "<predictions>"), codes, options, warnings
    )


def _count_explainable(
    gold_side: tuple[list[CodeReference], str],
    pred_side: tuple[list[CodeReference], str],
    valid: frozenset[str],
    options: ExplainableOptions,
    warnings: Sequence[ScoreWarning | str],
) -> Result:
    """The result of X from both sides (references with their codes as written, and the name
    warnings give each side) and the valid codes."""
    (gold_as_written, gold_name), (pred_as_written, pred_name) = gold_side, pred_side
    gold, pred_all = gold_as_written, pred_as_written
    if options.lowercase:
        gold, pred_all = lowercased(gold), lowercased(pred_all)
    pred = [p for p in pred_all if p.code in valid]
    documents = dict.fromkeys([*(g.document for g in gold), *(p.document for p in pred_all)])
    per_document = match(gold, pred, valid, options)
    every = {doc: per_document.get(doc, Counts(tp=0, fp=0, fn=0)) for doc in documents}
    scores = prf_scores(Counts.total(every.values()))
    out: list[ScoreWarning | str] = list(warnings)
    out += collapsed(gold_name, gold, "gold references", "one reference is enough")
    out += collapsed(pred_name, pred, "valid predictions", "however many positions")
    if not pred_all:
        out.append(
            ScoreWarning(
                "codiesp.empty-predictions",
                "the prediction file has no line (the official script crashes on it)",
                examples=(pred_name,),
            )
        )
    out += explainable_warnings(gold, pred, pred_all, valid, options, scores)
    out += x_lowercase_warnings(gold_as_written, pred_as_written, valid, options, scores)
    if keeping():  # a chunk (annoscore.scale): its other warnings, for the pooling
        keep(After(tuple(out[len(warnings) :]), invalid_predictions(pred_all, valid)))
    gold_documents = tuple(dict.fromkeys(g.document for g in gold))
    return get("codiesp-x").result(
        options, every, warnings=out, details=CodiespDetails(gold_documents)
    )


X_NOTE = (
    "CodiEsp-X counts (document, code) pairs: a gold code is found when a prediction of that "
    "code has a position matching one of its references (--tolerance, --tolerance-mode), "
    "however many references it has. The analysis below is of the references themselves, "
    "typed by their label (DIAGNOSTICO, PROCEDIMIENTO): correct means the same position "
    "(first start, last end) and label, codes are not compared, so its counts are not the "
    "scores' tp, fp and fn. The files hold no text: the viewer shows offsets; the strings "
    "listed are the gold references' texts, predictions have none. Predictions of a code in "
    "neither valid list are left out, as the task leaves them out."
)


def codiesp_x_sides(
    gold: Path, pred: Path, options: ExplainableOptions, result: Result | None = None
) -> SpanSides:
    """Both X files' references as documents for the HTML report (the registration's
    ``sides``; :data:`X_NOTE` says what the analysis compares and lacks: not the scores'
    counts, so ``result`` is not read)."""
    from annoscore.align.span_sides import SpanSides
    from annoscore.formats.brat_model import AnnFile

    valid = frozenset[str]().union(
        *(read_valid_code_file(p).codes for p in (options.codes_d, options.codes_p) if p)
    )
    lowercase = options.lowercase
    gold_refs = read_gold_reference_file(gold, lowercase=lowercase).references
    pred_refs = read_predicted_reference_file(pred, lowercase=lowercase, allow_empty=True)
    kept = [r for r in pred_refs.references if r.code in valid]  # as the task keeps them
    if options.filter_gold:
        gold_refs = [r for r in gold_refs if r.code in valid]
    ids = list(dict.fromkeys([*(r.document for r in gold_refs), *(r.document for r in kept)]))

    def documents(refs: list[CodeReference], path: Path) -> dict[str, AnnFile]:
        by_doc: dict[str, list[CodeReference]] = {d: [] for d in ids}
        for r in refs:
            by_doc[r.document].append(r)
        return {
            d: AnnFile(
                id=d,
                path=str(path),
                ids=[f"{r.code}@{r.line}" for r in rows],
                types=[r.label for r in rows],
                starts=[min(r.start, r.end) for r in rows],
                ends=[max(r.start, r.end) for r in rows],
                texts=[r.text for r in rows],
                lines=[r.line for r in rows],
            )
            for d, rows in by_doc.items()
        }

    return SpanSides(documents(gold_refs, gold), documents(kept, pred), X_NOTE)
