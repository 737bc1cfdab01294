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

Every quirk that moves a number is reported in ``warnings`` with the number it would give.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.align.documents import MissingDocs, pair_documents
from annoscore.align.references import match_code_references
from annoscore.counts import Counts
from annoscore.formats.codiesp import (
    integer_ids,
    read_code_file,
    read_gold_reference_file,
    read_predicted_reference_file,
    read_valid_code_file,
)
from annoscore.metrics.prf import ratio
from annoscore.metrics.ranked_codes import (
    INTEGER_COLUMNS,
    RankedCodes,
    RankedCodeStats,
    corpus_counts,
    count_columns,
    rank_codes,
)
from annoscore.model import CodeReference, CodeRows
from annoscore.result import CountMatrix, Result, Scores, ScoreWarning
from annoscore.signature import Signature
from annoscore.tasks.registry import first_fixed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
    BoolArray = npt.NDArray[np.bool_]

OFFICIAL_DEPTH = 1000


class ToleranceMode(str, Enum):
    contain = "contain"
    symmetric = "symmetric"


class TieOrder(str, Enum):
    """How the MAP script's trectools orders a document's predictions (all have score 10).

    ``file``: line order (trectools 0.0.42, the version the official script pins: the official
    number); ``code``: by code, alphabetically (trectools 0.0.50 breaks the tie by document id,
    which gives other MAPs on the same files).
    """

    file = "file"
    code = "code"


@dataclass(frozen=True, slots=True)
class RankedOptions:
    """The settings of CodiEsp D/P that move a number (official defaults)."""

    missing_docs: MissingDocs = MissingDocs.ignore
    """A gold document with no valid prediction: left out of MAP (official) or AP 0 (zero)."""
    extra_docs: MissingDocs = MissingDocs.zero
    """A predicted document absent from the gold: AP 0 in MAP (official) or left out."""
    filter_gold: bool = False
    depth: int | None = OFFICIAL_DEPTH
    lowercase: bool = True
    tie_order: TieOrder = TieOrder.file
    """The rank of tied predictions in MAP: file order (trectools 0.0.42, official) or code."""


@dataclass(frozen=True, slots=True)
class ExplainableOptions:
    """The settings of CodiEsp X that move a number (official defaults)."""

    tolerance: int = 10
    tolerance_mode: ToleranceMode = ToleranceMode.contain
    check_label: bool = False
    filter_gold: bool = False
    lowercase: bool = True


def f1_official(
    precision: float | None, recall: float | None, tp: float, fp: float, fn: float
) -> float | None:
    """F1 as the official scripts compute it: 2PR/(P+R).

    CodiEsp's named rule (design.md lets an official preset keep its own): F1 is undefined when
    P or R is (nothing predicted, or nothing in the gold: the official script prints ``nan``),
    and 0 when both are defined and P + R = 0 (the official ``nan`` of 0/0 there is a number).
    The project rule would give F 0 for a document with gold codes and no prediction; CodiEsp's
    F1 script never defines it, so neither does this preset.
    """
    if precision is None or recall is None:
        return None
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def set_scores(counts: Counts) -> Scores:
    """Micro precision, recall and F1 of ``tp``, ``fp``, ``fn`` counts."""
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1_official(precision, recall, tp, fp, fn),
    }


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


# --- D and P ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _RankedInput:
    """What :func:`score_ranked` read: the corpus as the F1 script sees it (``data``), and as
    the MAP script sees it when pandas reads numeric-looking ids as numbers (``numeric``)."""

    data: RankedCodes
    numeric: RankedCodes | None
    vocabulary: list[str]
    warnings: list[ScoreWarning]
    empty_prediction_file: bool
    codes_path: Path


def _index(
    gold: CodeRows, pred: CodeRows, vocabulary: list[str], code_valid: BoolArray
) -> RankedCodes:
    import numpy as np

    # every gold document, then the predicted ones the gold lacks: MAP's --missing-docs and
    # --extra-docs rules then decide, per document, whether it counts (rank_codes)
    documents = list(pair_documents(gold.documents, pred.documents).scored)
    index = {d: i for i, d in enumerate(documents)}
    pred_global = np.fromiter(
        (index[doc] for doc in pred.documents), dtype=np.int64, count=len(pred.documents)
    )
    pred_code = pred.code
    known_invalid = (pred_code >= 0) & ~code_valid[np.maximum(pred_code, 0)]
    examples = list(pred.unknown_examples)
    if len(examples) < 5 and bool(known_invalid.any()):
        for code in dict.fromkeys(pred_code[known_invalid][:1000].tolist()):
            if len(examples) < 5:
                examples.append(vocabulary[code])
    return RankedCodes(
        gold=gold,
        pred=pred,
        documents=documents,
        pred_global=pred_global,
        code_valid=code_valid,
        invalid_gold_rows=int((~code_valid[gold.code]).sum()),
        invalid_pred_rows=pred.unknown + int(known_invalid.sum()),
        invalid_pred_examples=examples,
    )


def _as_numbers(rows: CodeRows) -> CodeRows | None:
    """The rows with their document ids read as pandas reads a numeric column (``0001`` is
    ``1``), or ``None`` when that changes nothing."""
    import numpy as np

    ids = integer_ids(rows.documents)
    if ids is None or ids == rows.documents:
        return None
    merged: dict[str, int] = {}
    remap = np.fromiter(
        (merged.setdefault(i, len(merged)) for i in ids), dtype=np.int32, count=len(ids)
    )
    return replace(rows, documents=list(merged), doc=remap[rows.doc])


def _read_ranked(
    gold_path: Path, pred_path: Path, codes_path: Path, lowercase: bool
) -> _RankedInput:
    import numpy as np

    valid_file = read_valid_code_file(codes_path)
    valid = valid_file.codes
    gold_file = read_code_file(gold_path, "gold", lowercase=lowercase)
    gold = gold_file.rows
    known = set(gold.codes)
    vocabulary = list(gold.codes) + sorted(valid - known)
    code_valid = np.fromiter((c in valid for c in vocabulary), dtype=bool, count=len(vocabulary))
    pred_file = read_code_file(
        pred_path, "predictions", lowercase=lowercase, vocabulary=vocabulary, allow_empty=True
    )
    pred = pred_file.rows
    data = _index(gold, pred, vocabulary, code_valid)
    numeric = None
    gold_numbers, pred_numbers = _as_numbers(gold), _as_numbers(pred)
    if gold_numbers is not None or pred_numbers is not None:
        numeric = _index(gold_numbers or gold, pred_numbers or pred, vocabulary, code_valid)
    warnings = [*valid_file.warnings, *gold_file.warnings, *pred_file.warnings]
    return _RankedInput(data, numeric, vocabulary, warnings, len(pred) == 0, codes_path)


def _code_rank(vocabulary: list[str]) -> IntArray:
    """The position of each vocabulary code in code (code point) order."""
    import numpy as np

    rank = np.empty(len(vocabulary), dtype=np.int64)
    rank[sorted(range(len(vocabulary)), key=vocabulary.__getitem__)] = np.arange(len(vocabulary))
    return rank


def _rank(
    data: RankedCodes, options: RankedOptions, vocabulary: list[str] | None = None
) -> RankedCodeStats:
    code_rank = None
    if options.tie_order is TieOrder.code and vocabulary is not None:
        code_rank = _code_rank(vocabulary)
    return rank_codes(
        data,
        depth=options.depth,
        filter_gold=options.filter_gold,
        count_extra_docs=options.extra_docs.rule == "empty",
        count_missing_docs=options.missing_docs.rule == "empty",
        code_rank=code_rank,
    )


def ranked_scores(counts: Counts) -> Scores:
    """The scorer of D and P: ``map`` = ``ap_sum / queries`` (of one document: its AP, ``None``
    when it is left out of MAP) and :func:`set_scores`."""
    return {"map": ratio(counts["ap_sum"], counts["queries"]), **set_scores(counts)}


def _map_columns_on(
    data: RankedCodes, numeric: RankedCodes, outcome: RankedCodeStats
) -> tuple[FloatArray, FloatArray]:
    """``ap_sum`` and ``queries`` of the numeric-id view, each on the first document (of the
    text-id view) that reads as that number, so the columns still add up to the MAP."""
    import numpy as np

    gold_ids = integer_ids(data.gold.documents)
    pred_ids = integer_ids(data.pred.documents)
    gold_count = len(data.gold.documents)
    names = list(gold_ids or data.gold.documents)
    pred_name = dict(zip(data.pred.documents, pred_ids or data.pred.documents, strict=True))
    names += [pred_name[doc] for doc in data.documents[gold_count:]]
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        first.setdefault(name, i)
    ap_sum = np.zeros(len(data.documents), dtype=np.float64)
    queries = np.zeros(len(data.documents), dtype=np.float64)
    counted = outcome.counted
    for m, name in enumerate(numeric.documents):
        at = first[name]
        ap_sum[at] += outcome.ap[m] if counted[m] else 0.0
        queries[at] += float(counted[m])
    return ap_sum, queries


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
    read = _read_ranked(gold_path, pred_path, codes_path, options.lowercase)
    data = read.data
    outcome = _rank(data, options, read.vocabulary)
    columns = count_columns(outcome)
    counts = corpus_counts(outcome)
    warnings: list[ScoreWarning | str] = list(read.warnings)
    if read.numeric is not None:
        numeric_outcome = _rank(read.numeric, options, read.vocabulary)
        numeric_counts = corpus_counts(numeric_outcome)
        as_text = ratio(counts["ap_sum"], counts["queries"])
        as_numbers = ratio(numeric_counts["ap_sum"], numeric_counts["queries"])
        columns["ap_sum"], columns["queries"] = _map_columns_on(data, read.numeric, numeric_outcome)
        if as_text != as_numbers:
            renamed = [
                f"{doc} is {number}"
                for rows in (data.gold, data.pred)
                for doc, number in zip(
                    rows.documents, integer_ids(rows.documents) or [], strict=False
                )
                if doc != number
            ]
            warnings.append(
                ScoreWarning(
                    "codiesp.numeric-ids",
                    "{count} document id(s) look like integers and the MAP script (pandas) "
                    "reads them as numbers, so ids such as 0001 and 1 are one document there; "
                    "MAP follows it, P/R/F1 compare the ids as text as the F1 script does; "
                    f"MAP with the ids as text would be {_fmt(as_text)}",
                    len(renamed),
                    tuple(renamed[:5]),
                    tolerated=True,
                )
            )
    matrix = CountMatrix.from_columns(data.documents, columns, integer=INTEGER_COLUMNS)
    counts = matrix.total()
    warnings += _ranked_warnings(read, outcome, options, counts, ranked_scores(counts))
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


def _headline(read: _RankedInput, options: RankedOptions) -> tuple[float | None, float | None]:
    """MAP and F1 of ``read`` under ``options``, as :func:`score_ranked` computes them (MAP from
    the ids as the MAP script reads them)."""
    counts = corpus_counts(_rank(read.data, options, read.vocabulary))
    f1 = ranked_scores(counts)["f1"]
    if read.numeric is not None:
        counts = corpus_counts(_rank(read.numeric, options, read.vocabulary))
    return ratio(counts["ap_sum"], counts["queries"]), f1


def _lowercase_warnings(
    read: _RankedInput, options: RankedOptions, scores: Scores
) -> list[ScoreWarning | str]:
    """The lower-casing quirk (official since 2020-09-30): upper-case codes lower-cased, with
    MAP and F1 of the other setting when they differ.  The other reading is read again from the
    files only when it can differ (with lower-casing: an upper-case code; with
    ``--no-lowercase``: an upper-case gold code or a predicted code not in the valid list)."""
    data = read.data
    upper = data.pred.uppercase + data.gold.uppercase
    if options.lowercase and not upper:
        return []
    if not options.lowercase and not (
        # kept case moves a number only through an upper-case gold code or a predicted code
        # that missed the (lower-cased) valid list
        data.invalid_pred_rows or any(c != c.lower() for c in data.gold.codes)
    ):
        return []
    flipped = replace(options, lowercase=not options.lowercase)
    other = _read_ranked(data.gold.path, data.pred.path, read.codes_path, flipped.lowercase)
    alt_map, alt_f1 = _headline(other, flipped)
    moved = (alt_map, alt_f1) != (scores["map"], scores["f1"])
    effect = f"MAP {_fmt(alt_map)} and F1 {_fmt(alt_f1)}"
    if options.lowercase:
        text = (
            f"{upper} codes ({data.pred.uppercase} predicted, {data.gold.uppercase} gold) had "
            "upper-case letters and were lower-cased, as the official script does since "
            "2020-09-30"
        )
        if moved:
            text += f"; with their case kept (--no-lowercase, the 2020 campaign): {effect}"
        return [text]
    if not moved:
        return []
    return [
        "codes keep their case (--no-lowercase, the 2020 campaign), so upper-case codes miss "
        "the lower-cased valid list and the gold; the official script lower-cases them since "
        f"2020-09-30: {effect}"
    ]


def _line_examples(rows: CodeRows, row_indexes: IntArray) -> tuple[str, ...]:
    lines = row_indexes + 1 if rows.lines is None else rows.lines[row_indexes]
    return tuple(f"{rows.path}:{n}" for n in lines.tolist())


def _ranked_warnings(
    read: _RankedInput,
    outcome: RankedCodeStats,
    options: RankedOptions,
    counts: Counts,
    scores: Scores,
) -> list[ScoreWarning | str]:
    data = read.data
    out: list[ScoreWarning | str] = []
    if read.empty_prediction_file:
        out.append(
            ScoreWarning(
                "codiesp.empty-predictions",
                "the prediction file has no line: recall 0, precision and MAP undefined (the "
                "official MAP script crashes on it, the F1 script prints nan|0.0|nan)",
                examples=(str(data.pred.path),),
            )
        )
    gold_docs = len(data.gold.documents)
    has_pred = outcome.predicted > 0
    missing = int((~has_pred[:gold_docs]).sum())
    extra_docs = len(data.documents) - gold_docs
    extra_with_pred = int(has_pred[gold_docs:].sum())
    if missing:
        if options.missing_docs.rule == "ignore":
            alt = ratio(counts["ap_sum"], counts["queries"] + missing)
            out.append(
                f"{missing} gold documents have no valid prediction and are left out of MAP, "
                f"as the official script does; MAP would be {_fmt(alt)} if they counted as 0 "
                "(--missing-docs zero)"
            )
        else:
            alt = ratio(counts["ap_sum"], counts["queries"] - missing)
            out.append(
                f"{missing} gold documents have no valid prediction and count as AP 0 "
                f"(--missing-docs zero); the official script leaves them out: MAP {_fmt(alt)}"
            )
    if extra_docs:
        text = (
            f"{extra_docs} predicted documents are not in the gold standard; their predictions "
            "count as false positives"
        )
        if extra_with_pred and options.extra_docs.rule == "empty":
            alt = ratio(counts["ap_sum"], counts["queries"] - extra_with_pred)
            text += (
                f", and {extra_with_pred} of them count as AP 0 in MAP as the official script "
                f"does (MAP would be {_fmt(alt)} with --extra-docs ignore)"
            )
        elif extra_with_pred:
            alt = ratio(counts["ap_sum"], counts["queries"] + extra_with_pred)
            text += (
                f"; {extra_with_pred} of them are left out of MAP (--extra-docs ignore); the "
                f"official script counts them as AP 0: MAP {_fmt(alt)}"
            )
        out.append(text)
    if data.invalid_pred_rows:
        out.append(
            f"{data.invalid_pred_rows} predicted codes are not in the valid-code list and were "
            "dropped before ranking, as the official script does (e.g. "
            f"{', '.join(data.invalid_pred_examples)})"
        )
    if data.invalid_gold_rows:
        flipped = replace(options, filter_gold=not options.filter_gold)
        alt_counts = corpus_counts(_rank(data, flipped, read.vocabulary))
        alt_scores = ranked_scores(alt_counts)
        state = (
            "still count as relevant, as the official script does"
            if not options.filter_gold
            else "were dropped (--filter-gold); the official script keeps them"
        )
        out.append(
            f"{data.invalid_gold_rows} gold lines have a code that is not in the valid-code list "
            f"and {state}; {'with' if not options.filter_gold else 'without'} --filter-gold MAP "
            f"would be {_fmt(alt_scores['map'])} and F1 {_fmt(alt_scores['f1'])}"
        )
    if outcome.beyond_depth_docs:
        alt_counts = corpus_counts(_rank(data, replace(options, depth=None), read.vocabulary))
        out.append(
            f"{outcome.beyond_depth_docs} documents have more than {options.depth} valid "
            "predictions; MAP ignores the ranks beyond (the official trectools depth); without "
            f"the cut-off MAP would be {_fmt(ratio(alt_counts['ap_sum'], alt_counts['queries']))}"
        )
    if outcome.duplicate_pred:
        out.append(
            ScoreWarning(
                "codiesp.duplicate-predictions",
                "{count} duplicate predictions (same document and code) were dropped, keeping "
                "the first, as the official script does",
                outcome.duplicate_pred,
                _line_examples(data.pred, outcome.duplicate_pred_rows),
                tolerated=True,
            )
        )
    if outcome.duplicate_gold:
        out.append(
            ScoreWarning(
                "codiesp.duplicate-gold",
                "{count} gold lines repeat a (document, code) pair of an earlier line and count "
                "once, as in the official scripts (a code with several references in the text)",
                outcome.duplicate_gold,
                _line_examples(data.gold, outcome.duplicate_gold_rows),
            )
        )
    out += _lowercase_warnings(read, options, scores)
    if scores["map"] is None and not read.empty_prediction_file:
        out.append("no document counts in MAP: MAP is undefined (the official script prints nan)")
    return out


# --- X ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _ExplainableInput:
    gold: list[CodeReference]
    pred: list[CodeReference]
    invalid_gold: int
    invalid_pred: int
    invalid_pred_examples: list[str]
    documents: list[str]


def _filter_x(
    data: _ExplainableInput, valid: frozenset[str], filter_gold: bool
) -> list[CodeReference]:
    return [g for g in data.gold if g.code in valid] if filter_gold else data.gold


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
        gold, pred_all = _lowercased(gold), _lowercased(pred_all)
    pred = [p for p in pred_all if p.code in valid]
    invalid = [p.code for p in pred_all if p.code not in valid]
    data = _ExplainableInput(
        gold=gold,
        pred=pred,
        invalid_gold=sum(g.code not in valid for g in gold),
        invalid_pred=len(invalid),
        invalid_pred_examples=list(dict.fromkeys(invalid))[:5],
        documents=list(
            dict.fromkeys([*(g.document for g in gold), *(p.document for p in pred_all)])
        ),
    )
    per_document = match_code_references(
        _filter_x(data, valid, options.filter_gold),
        pred,
        tolerance=options.tolerance,
        mode=options.tolerance_mode.value,
        check_label=options.check_label,
    )
    every = {doc: per_document.get(doc, Counts(tp=0, fp=0, fn=0)) for doc in data.documents}
    scores = set_scores(Counts.total(every.values()))
    warnings: list[ScoreWarning | str] = [
        *codes_d.warnings,
        *codes_p.warnings,
        *gold_file.warnings,
        *pred_file.warnings,
    ]
    warnings += _collapsed(gold_path, gold, "gold references", "one reference is enough")
    warnings += _collapsed(pred_path, pred, "valid predictions", "however many positions")
    if not pred_all:
        warnings.append(
            ScoreWarning(
                "codiesp.empty-predictions",
                "the prediction file has no line: recall 0, precision undefined (the official "
                "script crashes on it)",
                examples=(str(pred_path),),
            )
        )
    warnings += _explainable_warnings(data, valid, options, scores, pred_all)
    warnings += _x_lowercase_warnings(gold_as_written, pred_as_written, valid, options, scores)
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


def _lowercased(references: list[CodeReference]) -> list[CodeReference]:
    return [r if r.code.islower() else replace(r, code=r.code.lower()) for r in references]


def _x_lowercase_warnings(
    gold: list[CodeReference],
    pred: list[CodeReference],
    valid: frozenset[str],
    options: ExplainableOptions,
    scores: Scores,
) -> list[str]:
    """The lower-casing quirk of X (official since 2020-09-30; the README's March 2020 numbers
    come from before it), with P/R/F1 of the other setting when they differ.  ``gold`` and
    ``pred`` are the references as written."""
    upper_gold = sum(r.code != r.code.lower() for r in gold)
    upper_pred = sum(r.code != r.code.lower() for r in pred)
    if not upper_gold + upper_pred:
        return []
    if not options.lowercase:
        gold, pred = _lowercased(gold), _lowercased(pred)
    kept = [p for p in pred if p.code in valid]
    if options.filter_gold:
        gold = [g for g in gold if g.code in valid]
    per_doc = match_code_references(
        gold,
        kept,
        tolerance=options.tolerance,
        mode=options.tolerance_mode.value,
        check_label=options.check_label,
    )
    alt = set_scores(Counts.total(per_doc.values()))
    moved = any(alt[k] != scores[k] for k in ("precision", "recall", "f1"))
    effect = f"P {_fmt(alt['precision'])}, R {_fmt(alt['recall'])}, F1 {_fmt(alt['f1'])}"
    if options.lowercase:
        text = (
            f"{upper_gold + upper_pred} codes ({upper_pred} predicted, {upper_gold} gold) had "
            "upper-case letters and were lower-cased, as the official script does since "
            "2020-09-30"
        )
        if moved:
            text += (
                f"; with their case kept (--no-lowercase, the 2020 campaign and the README's "
                f"numbers): {effect}"
            )
        return [text]
    if not moved:
        return []
    return [
        "codes keep their case (--no-lowercase, the 2020 campaign), so upper-case codes miss "
        "the lower-cased valid lists and the gold; the official script lower-cases them since "
        f"2020-09-30: {effect}"
    ]


def _collapsed(
    path: Path, references: list[CodeReference], what: str, rule: str
) -> list[ScoreWarning]:
    """A warning counting the lines whose (document, code) pair an earlier line already has:
    the pair counts once, as in the official script."""
    seen: set[tuple[str, str]] = set()
    lines: list[int] = []
    count = 0
    for ref in references:
        key = (ref.document, ref.code)
        if key in seen:
            count += 1
            if len(lines) < 5:
                lines.append(ref.line)
        else:
            seen.add(key)
    if not count:
        return []
    return [
        ScoreWarning(
            "codiesp.collapsed-" + what.split()[-1],
            "{count} " + what + " repeat the (document, code) pair of an earlier line; the pair "
            f"counts once, as in the official script ({rule})",
            count,
            tuple(f"{path}:{n}" for n in lines),
        )
    ]


def _explainable_warnings(
    data: _ExplainableInput,
    valid: frozenset[str],
    options: ExplainableOptions,
    scores: Scores,
    pred_all: list[CodeReference],
) -> list[str]:
    out: list[str] = []

    def f1_with(**changes: object) -> float | None:
        alt = replace(options, **changes)  # type: ignore[arg-type]
        per_doc = match_code_references(
            _filter_x(data, valid, alt.filter_gold),
            data.pred,
            tolerance=alt.tolerance,
            mode=alt.tolerance_mode.value,
            check_label=alt.check_label,
        )
        return set_scores(Counts.total(per_doc.values()))["f1"]

    if data.invalid_pred:
        out.append(
            f"{data.invalid_pred} predicted codes are not in the valid-code lists and were "
            f"dropped, as the official script does (e.g. {', '.join(data.invalid_pred_examples)})"
        )
    if data.invalid_gold:
        state = (
            "still count, as the official script does"
            if not options.filter_gold
            else ("were dropped (--filter-gold); the official script keeps them")
        )
        out.append(
            f"{data.invalid_gold} gold references have a code that is not in the valid-code lists "
            f"and {state}; F1 would be {_fmt(f1_with(filter_gold=not options.filter_gold))}"
        )
    if options.tolerance_mode is ToleranceMode.contain:
        symmetric = f1_with(tolerance_mode=ToleranceMode.symmetric)
        if symmetric != scores["f1"]:
            out.append(
                "some predictions start late or end early within the tolerance and are not "
                "credited (the official one-sided rule); --tolerance-mode symmetric would give "
                f"F1 {_fmt(symmetric)}"
            )
    exact = f1_with(tolerance=0)
    if options.tolerance and exact != scores["f1"]:
        out.append(
            f"some true positives rely on the {options.tolerance}-character tolerance; exact "
            f"positions (--tolerance 0) would give F1 {_fmt(exact)}"
        )
    labelled = f1_with(check_label=not options.check_label)
    if labelled != scores["f1"]:
        out.append(
            "some true positives have a label that differs from the gold reference; "
            + (
                "the label is ignored as the official script does "
                f"(--check-label: F1 {_fmt(labelled)})"
                if not options.check_label
                else "--check-label requires it; the official script ignores it: "
                f"F1 {_fmt(labelled)}"
            )
        )
    if scores["precision"] is None and pred_all:
        out.append(
            "no valid prediction: precision is undefined (the official script crashes with "
            "'not enough values to unpack')"
        )
    return out
