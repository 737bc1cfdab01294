"""CodiEsp (CLEF eHealth 2020): D and P (ranked codes: MAP, and micro P/R/F1), X (explainable).

Official rules (``spec/codiesp.md``), all defaults here:

- Codes are lower-cased on both sides (``lowercase``); predictions whose code is not in the
  valid-code list are dropped **before** ranking, so they leave no gap; gold codes are **not**
  filtered (``filter_gold=False``).  Duplicate (document, code) lines keep the first.
- D/P MAP: line order is the rank; ranks beyond ``depth`` (1000) are cut after filtering;
  AP(doc) = sum of P@k over the relevant ranks / distinct gold codes of the doc.  A gold
  document with no valid prediction is left out of MAP (``missing_docs="ignore"``); a predicted
  document absent from the gold counts AP 0 (``extra_docs="zero"``).
- D/P P/R/F1 (the later F1 script): micro over all (document, code) pairs, no depth cut;
  predicted documents absent from the gold count against precision.
- X: a (document, code) pair is a true positive when any predicted position matches any gold
  reference of that code (:mod:`annoscore.align.references`: one-sided 10-character tolerance
  ``contain``); the label column is ignored (``check_label=False``).
- F1 = 2PR/(P+R) as the official scripts compute it; where they print ``nan`` or crash
  (no valid prediction, per-document P/R of a document without true positive) annoscore gives
  0 for a zero count over a positive denominator and ``None`` (JSON null) for 0/0.

Every quirk that moves a number is reported in ``warnings`` with the number it would give
(:mod:`annoscore.tasks.codiesp_warnings`).

The data flow: each file is read once (:mod:`annoscore.formats.codiesp`), the two sides are put
on one index of documents and codes (:mod:`annoscore.align.codes`, X:
:mod:`annoscore.align.references`), counted per document (:mod:`annoscore.metrics.ranked_codes`)
and scored (:mod:`annoscore.metrics.codiesp`); the options and the counting under them are in
:mod:`annoscore.tasks.codiesp_options`.
"""

from __future__ import annotations

from pathlib import Path

from annoscore.align.codes import RankedInput
from annoscore.align.documents import MissingDocs
from annoscore.counts import Counts
from annoscore.formats.codiesp import (
    read_code_file,
    read_gold_reference_file,
    read_predicted_reference_file,
    read_valid_code_file,
)
from annoscore.metrics.codiesp import ranked_scores, set_scores
from annoscore.metrics.ranked_codes import (
    INTEGER_COLUMNS,
    corpus_counts,
    count_columns,
    numeric_map_columns,
)
from annoscore.result import CountMatrix, Result, ScoreWarning
from annoscore.signature import Signature
from annoscore.tasks.codiesp_options import (
    OFFICIAL_DEPTH,
    ExplainableOptions,
    RankedOptions,
    TieOrder,
    ToleranceMode,
    match,
    rank,
)
from annoscore.tasks.codiesp_warnings import (
    ExplainableInput,
    collapsed,
    explainable_warnings,
    lowercase_may_move,
    lowercased,
    numeric_ids_warning,
    ranked_warnings,
    x_lowercase_warnings,
)
from annoscore.tasks.registry import first_fixed

__all__ = [
    "OFFICIAL_DEPTH",
    "ExplainableOptions",
    "RankedOptions",
    "TieOrder",
    "ToleranceMode",
    "score_codiesp_d",
    "score_codiesp_p",
    "score_codiesp_ranked",
    "score_codiesp_x",
    "score_explainable",
    "score_ranked",
]

# --- D and P ---------------------------------------------------------------------------------


def read_ranked(
    gold_path: Path, pred_path: Path, codes_path: Path
) -> tuple[RankedInput, list[ScoreWarning]]:
    """Both D/P files and the valid-code list, each read once, codes as written; and the
    readers' warnings."""
    valid = read_valid_code_file(codes_path)
    gold = read_code_file(gold_path, "gold", lowercase=False)
    pred = read_code_file(pred_path, "predictions", lowercase=False, allow_empty=True)
    warnings = [*valid.warnings, *gold.warnings, *pred.warnings]
    return RankedInput(gold.rows, pred.rows, valid.codes), warnings


def score_ranked(
    subtask: str,
    gold_path: Path,
    pred_path: Path,
    codes_path: Path,
    options: RankedOptions | None = None,
) -> Result:
    """Score CodiEsp D or P: MAP (``codiespD_P_evaluation.py``) and micro P/R/F1
    (``comp_f1_diag_proc.py``) in one run.

    ``scores``: ``map``, ``precision``, ``recall``, ``f1``; ``counts``: ``tp``, ``fp``, ``fn``,
    ``ap_sum`` and ``queries`` (documents in MAP).  Every gold and predicted document is a row of
    the count matrix (its ``map`` is its AP, ``None`` when it is left out of MAP).

    Document ids: the F1 script compares them as text; the MAP script reads a file whose ids all
    look like integers as numbers (``0001`` and ``1`` are one document).  Each number follows its
    own script: P/R/F1 from the ids as text, MAP from the ids as the MAP script reads them (its
    ``ap_sum``/``queries`` on the first document of each number), with a warning when the two
    readings give different MAPs.  An empty prediction file scores recall 0, precision and MAP
    undefined, with a warning (the MAP script crashes on it, the F1 script prints
    ``nan|0.0|nan``).
    """
    options = options or RankedOptions()
    read, reader_warnings = read_ranked(gold_path, pred_path, codes_path)
    view = read.view(lowercase=options.lowercase)
    # the codes as written are needed again only for the other setting of lower-casing
    other: RankedInput | None = read if lowercase_may_move(view, options) else None
    del read
    data = view.data
    outcome = rank(data, options, view.vocabulary)
    columns = count_columns(outcome)
    warnings: list[ScoreWarning | str] = list(reader_warnings)
    # MAP's sums as the warnings use them: correctly rounded (corpus_counts), with the ids as
    # the MAP script reads them
    map_counts = corpus_counts(outcome)
    if view.numeric is not None:
        numeric_outcome = rank(view.numeric, options, view.vocabulary)
        as_text = ranked_scores(map_counts)["map"]
        map_counts = corpus_counts(numeric_outcome)
        columns["ap_sum"], columns["queries"] = numeric_map_columns(
            data, view.numeric, numeric_outcome
        )
        warnings += numeric_ids_warning(view, as_text, ranked_scores(map_counts)["map"])
    matrix = CountMatrix.from_columns(data.documents, columns, integer=INTEGER_COLUMNS)
    counts = matrix.total()
    warnings += ranked_warnings(other, view, outcome, options, map_counts, ranked_scores(counts))
    task = f"codiesp-{subtask.lower()}"
    signature = Signature.of(
        task,
        missing_docs=options.missing_docs.value,
        extra_docs=options.extra_docs.value,
        filter_gold=options.filter_gold,
        depth=options.depth,
        lowercase=options.lowercase,
        tie_order=options.tie_order.value,
    )
    gold_docs = len(data.gold.documents)
    return Result.from_counts(
        task,
        signature,
        matrix,
        ranked_scores,
        warnings=warnings,
        details={"gold_documents": data.documents[:gold_docs]},
    )


def score_codiesp_ranked(
    subtask: str,
    gold: Path,
    pred: Path,
    *,
    codes: Path,
    missing_docs: MissingDocs | str = MissingDocs.ignore,
    extra_docs: MissingDocs | str = MissingDocs.zero,
    filter_gold: bool = False,
    depth: int | None = OFFICIAL_DEPTH,
    lowercase: bool = True,
    tie_order: TieOrder | str = TieOrder.file,
) -> Result:
    """CodiEsp-D or -P (``subtask``) from paths: :func:`score_ranked` with the options of
    :class:`RankedOptions` given one by one, official defaults (``depth`` 0 or None: no cut).

    >>> from annoscore.samples import SAMPLES
    >>> c = SAMPLES / "codiesp"
    >>> r = score_codiesp_ranked("D", c / "gs_D.tsv", c / "pred_D.tsv", codes=c / "codes-D.tsv")
    >>> [round(r.scores[k], 3) for k in ("map", "precision", "recall", "f1")]
    [0.444, 0.444, 0.4, 0.421]
    """
    options = RankedOptions(
        MissingDocs(missing_docs),
        MissingDocs(extra_docs),
        filter_gold,
        depth or None,
        lowercase,
        TieOrder(tie_order),
    )
    return score_ranked(subtask, gold, pred, codes, options)


score_codiesp_d = first_fixed(
    score_codiesp_ranked,
    "D",
    name="score_codiesp_d",
    doc="""CodiEsp-D from paths: ``score_codiesp_d(gold, pred, *, codes, ...)`` is
:func:`score_codiesp_ranked` with ``subtask="D"`` (the registry's score function).""",
)
score_codiesp_p = first_fixed(
    score_codiesp_ranked,
    "P",
    name="score_codiesp_p",
    doc="""CodiEsp-P from paths: :func:`score_codiesp_ranked` with ``subtask="P"``.""",
)


# --- X ---------------------------------------------------------------------------------------


def score_explainable(
    gold_path: Path,
    pred_path: Path,
    codes_d_path: Path,
    codes_p_path: Path,
    options: ExplainableOptions | None = None,
) -> Result:
    """Score CodiEsp X (``codiespX_evaluation.py``): micro P/R/F1 over (document, code) pairs
    whose predicted position matches a gold reference.

    The valid codes are the union of the D and P lists, so the label is never checked against
    them.  ``counts``: ``tp``, ``fp``, ``fn``.
    """
    options = options or ExplainableOptions()
    codes_d, codes_p = read_valid_code_file(codes_d_path), read_valid_code_file(codes_p_path)
    valid = codes_d.codes | codes_p.codes
    # read as written: the lower-cased codes (official) and the warning on the other setting
    # both come from it
    gold_file = read_gold_reference_file(gold_path, lowercase=False)
    pred_file = read_predicted_reference_file(pred_path, lowercase=False, allow_empty=True)
    gold_as_written, pred_as_written = gold_file.references, pred_file.references
    gold, pred_all = gold_as_written, pred_as_written
    if options.lowercase:
        gold, pred_all = lowercased(gold), lowercased(pred_all)
    pred = [p for p in pred_all if p.code in valid]
    invalid = [p.code for p in pred_all if p.code not in valid]
    data = ExplainableInput(
        gold=gold,
        pred=pred,
        invalid_gold=sum(g.code not in valid for g in gold),
        invalid_pred=len(invalid),
        invalid_pred_examples=list(dict.fromkeys(invalid))[:5],
        documents=list(
            dict.fromkeys([*(g.document for g in gold), *(p.document for p in pred_all)])
        ),
    )
    per_document = match(gold, pred, valid, options)
    every = {doc: per_document.get(doc, Counts(tp=0, fp=0, fn=0)) for doc in data.documents}
    scores = set_scores(Counts.total(every.values()))
    warnings: list[ScoreWarning | str] = [
        *codes_d.warnings,
        *codes_p.warnings,
        *gold_file.warnings,
        *pred_file.warnings,
    ]
    warnings += collapsed(gold_path, gold, "gold references", "one reference is enough")
    warnings += collapsed(pred_path, pred, "valid predictions", "however many positions")
    if not pred_all:
        warnings.append(
            ScoreWarning(
                "codiesp.empty-predictions",
                "the prediction file has no line: recall 0, precision undefined (the official "
                "script crashes on it)",
                examples=(str(pred_path),),
            )
        )
    warnings += explainable_warnings(data, valid, options, scores, pred_all)
    warnings += x_lowercase_warnings(gold_as_written, pred_as_written, valid, options, scores)
    signature = Signature.of(
        "codiesp-x",
        tolerance=options.tolerance,
        tolerance_mode=options.tolerance_mode.value,
        check_label=options.check_label,
        filter_gold=options.filter_gold,
        lowercase=options.lowercase,
    )
    gold_docs = list(dict.fromkeys(g.document for g in gold))
    return Result.from_counts(
        "codiesp-x",
        signature,
        every,
        set_scores,
        warnings=warnings,
        details={"gold_documents": gold_docs},
    )


def score_codiesp_x(
    gold: Path,
    pred: Path,
    *,
    codes_d: Path,
    codes_p: Path,
    tolerance: int = 10,
    tolerance_mode: ToleranceMode | str = ToleranceMode.contain,
    check_label: bool = False,
    filter_gold: bool = False,
    lowercase: bool = True,
) -> Result:
    """CodiEsp-X from paths (:func:`score_explainable`; the options of
    :class:`ExplainableOptions`).

    >>> from annoscore.samples import SAMPLES
    >>> c = SAMPLES / "codiesp"
    >>> r = score_codiesp_x(c / "gs_X.tsv", c / "pred_X.tsv", codes_d=c / "codes-D.tsv",
    ...                     codes_p=c / "codes-P.tsv")
    >>> [round(r.scores[k], 4) for k in ("precision", "recall", "f1")]
    [0.5385, 0.5385, 0.5385]
    """
    options = ExplainableOptions(
        tolerance, ToleranceMode(tolerance_mode), check_label, filter_gold, lowercase
    )
    return score_explainable(gold, pred, codes_d, codes_p, options)
