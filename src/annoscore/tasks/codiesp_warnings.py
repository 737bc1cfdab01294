"""CodiEsp's counts under a setting of its options, and its warnings: each quirk that moved a
number, and what the number would be without it (codiesp.md's "Decisions for annoscore").

:func:`rank` (D/P) and :func:`match` (X) count under the options
(:class:`annoscore.tasks.codiesp.RankedOptions`, ``ExplainableOptions``): the task counts with
them once, and each warning that gives the other number counts again with one option flipped.
Nothing here reads a file: the lower-casing warning of D/P takes its other view of the codes from
the same reading (:meth:`annoscore.align.codes.RankedInput.view`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from annoscore.align.codes import EXAMPLES, RankedCodes, RankedInput, RankedView
from annoscore.align.references import ToleranceMode, match_code_references
from annoscore.code_lists import CodeReference, CodeRows
from annoscore.counts import Counts
from annoscore.metrics.codiesp import ranked_scores
from annoscore.metrics.prf import prf_scores, ratio
from annoscore.metrics.ranked_codes import (
    RankedCodeStats,
    TieOrder,
    code_order,
    corpus_counts,
    rank_codes,
)
from annoscore.result import Scores
from annoscore.score_warnings import ScoreWarning

if TYPE_CHECKING:
    from annoscore.arrays import IntArray
    from annoscore.tasks.codiesp import ExplainableOptions, RankedOptions


def rank(
    data: RankedCodes, options: RankedOptions, vocabulary: list[str], keep_lists: bool = False
) -> RankedCodeStats:
    """:func:`annoscore.metrics.ranked_codes.rank_codes` under ``options`` (``vocabulary``: the
    codes that ``data``'s code ids index, for ``--tie-order code``; ``keep_lists``: keep the
    ranked lists, for ``--measure``)."""
    code_rank = code_order(vocabulary) if options.tie_order is TieOrder.code else None
    return rank_codes(
        data,
        depth=options.depth,
        filter_gold=options.filter_gold,
        count_extra_docs=options.extra_docs.rule == "empty",
        count_missing_docs=options.missing_docs.rule == "empty",
        code_rank=code_rank,
        keep_lists=keep_lists,
    )


def match(
    gold: Sequence[CodeReference],
    pred: Sequence[CodeReference],
    valid: frozenset[str],
    options: ExplainableOptions,
) -> dict[str, Counts]:
    """Per document ``tp``, ``fp``, ``fn`` of X under ``options``: ``pred`` are the valid
    predictions; with ``filter_gold`` gold references whose code is not valid are dropped."""
    return match_code_references(
        [g for g in gold if g.code in valid] if options.filter_gold else gold,
        pred,
        tolerance=options.tolerance,
        mode=options.tolerance_mode,
        check_label=options.check_label,
    )


def fmt(value: float | None) -> str:
    """A number of a warning: 4 decimals, or ``undefined``."""
    return "undefined" if value is None else f"{value:.4f}"


# --- D and P ---------------------------------------------------------------------------------


def headline(view: RankedView, options: RankedOptions) -> tuple[float | None, float | None]:
    """MAP and F1 of ``view`` under ``options``, as :mod:`annoscore.tasks.codiesp` computes
    them (MAP from the ids as the MAP script reads them)."""
    counts = corpus_counts(rank(view.data, options, view.vocabulary))
    f1 = ranked_scores(counts)["f1"]
    if view.numeric is not None:
        counts = corpus_counts(rank(view.numeric, options, view.vocabulary))
    return ratio(counts["ap_sum"], counts["queries"]), f1


def numeric_ids_warning(
    view: RankedView, as_text: float | None, as_numbers: float | None
) -> list[ScoreWarning]:
    """Numeric-looking document ids: MAP follows the MAP script (numbers), P/R/F1 the F1 script
    (text); a warning when the two readings give different MAPs."""
    from annoscore.formats.codiesp import integer_ids

    if as_text == as_numbers:
        return []
    data = view.data
    renamed = [
        f"{doc} is {number}"
        for rows in (data.gold, data.pred)
        for doc, number in zip(rows.documents, integer_ids(rows.documents) or [], strict=False)
        if doc != number
    ]
    return [
        ScoreWarning(
            "codiesp.numeric-ids",
            "{count} document id(s) look like integers and the MAP script (pandas) "
            "reads them as numbers, so ids such as 0001 and 1 are one document there; "
            "MAP follows it, P/R/F1 compare the ids as text as the F1 script does; "
            f"MAP with the ids as text would be {fmt(as_text)}",
            len(renamed),
            tuple(renamed[:5]),
            tolerated=True,
        )
    ]


def lowercase_may_move(view: RankedView, options: RankedOptions) -> bool:
    """Whether the other setting of ``--lowercase`` can give other numbers: with lower-casing,
    when a code had an upper-case letter; with ``--no-lowercase``, when a gold code has one or
    a predicted code missed the (lower-cased) valid list."""
    data = view.data
    if options.lowercase:
        return bool(data.pred.uppercase + data.gold.uppercase)
    return bool(data.invalid_pred_rows) or any(c != c.lower() for c in data.gold.codes)


def lowercase_warnings(
    read: RankedInput | None, view: RankedView, options: RankedOptions
) -> list[str]:
    """The lower-casing quirk (official since 2020-09-30): upper-case codes lower-cased, with
    MAP and F1 of the other setting when they differ.  The other view of the codes (from the same
    reading, ``read``: ``None`` when :func:`lowercase_may_move` says it cannot differ) is
    counted only when it can differ."""
    if read is None or not lowercase_may_move(view, options):
        return []
    flipped = replace(options, lowercase=not options.lowercase)
    alt_map, alt_f1 = headline(read.view(lowercase=flipped.lowercase), flipped)
    # both settings' numbers computed alike, so that equal numbers compare equal
    moved = (alt_map, alt_f1) != headline(view, options)
    effect = f"MAP {fmt(alt_map)} and F1 {fmt(alt_f1)}"
    counted = (view.data.pred.uppercase, view.data.gold.uppercase)
    return _lowercase_text(options.lowercase, *counted, moved, effect, "", "valid list")


def _lowercase_text(
    lowercase: bool, pred: int, gold: int, moved: bool, effect: str, also: str, lists: str
) -> list[str]:
    """The lower-casing warning of D/P or X: ``pred`` and ``gold`` upper-case codes, the
    other setting's numbers ``effect`` (given when they differ: ``moved``)."""
    if lowercase:
        text = (
            f"{pred + gold} codes ({pred} predicted, {gold} gold) had upper-case letters and "
            "were lower-cased, as the official script does since 2020-09-30"
        )
        if moved:
            text += f"; with their case kept (--no-lowercase, the 2020 campaign{also}): {effect}"
        return [text]
    if not moved:
        return []
    return [
        "codes keep their case (--no-lowercase, the 2020 campaign), so upper-case codes miss "
        f"the lower-cased {lists} and the gold; the official script lower-cases them since "
        f"2020-09-30: {effect}"
    ]


def invalid_text(count: int, examples: Sequence[str], ranked: bool) -> str:
    """The warning of ``count`` predicted codes outside the valid list (D/P: ``ranked``) or
    lists (X), the first few distinct of them ``examples`` (in file order)."""
    if ranked:
        return (
            f"{count} predicted codes are not in the valid-code list and were dropped before "
            f"ranking, as the official script does (e.g. {', '.join(examples)})"
        )
    return (
        f"{count} predicted codes are not in the valid-code lists and were dropped, as the "
        f"official script does (e.g. {', '.join(examples)})"
    )


def invalid_predictions(
    pred_all: Sequence[CodeReference], valid: frozenset[str]
) -> tuple[int, tuple[str, ...]]:
    """X: how many predicted references have a code outside ``valid``, and the first
    :data:`~annoscore.align.codes.EXAMPLES` distinct such codes in file order (as D/P's)."""
    invalid = [p.code for p in pred_all if p.code not in valid]
    return len(invalid), tuple(list(dict.fromkeys(invalid))[:EXAMPLES])


def _line_examples(rows: CodeRows, row_indexes: IntArray) -> tuple[str, ...]:
    lines = row_indexes + 1 if rows.lines is None else rows.lines[row_indexes]
    return tuple(f"{rows.path}:{n}" for n in lines.tolist())


def ranked_warnings(
    read: RankedInput | None,
    view: RankedView,
    outcome: RankedCodeStats,
    options: RankedOptions,
    counts: Counts,
) -> list[ScoreWarning | str]:
    """The warnings of D/P: empty prediction file, documents on one side only, invalid codes,
    the depth cut-off, duplicates and lower-casing (``read``: what was read,
    for the other view of the codes; ``None`` when :func:`lowercase_may_move` is false;
    ``counts``: ``ap_sum`` and ``queries`` of MAP, the sum correctly rounded, so that a number
    given in a warning does not depend on the order of the documents)."""
    data = view.data
    out: list[ScoreWarning | str] = []
    empty_prediction_file = len(data.pred) == 0
    if empty_prediction_file:
        out.append(
            ScoreWarning(
                "codiesp.empty-predictions",
                "the prediction file has no line (the official MAP script crashes on it, the F1 "
                "script prints nan|0.0|nan)",
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
                f"as the official script does; MAP would be {fmt(alt)} if they counted as 0 "
                "(--missing-docs zero)"
            )
        else:
            alt = ratio(counts["ap_sum"], counts["queries"] - missing)
            out.append(
                f"{missing} gold documents have no valid prediction and count as AP 0 "
                f"(--missing-docs zero); the official script leaves them out: MAP {fmt(alt)}"
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
                f"does (MAP would be {fmt(alt)} with --extra-docs ignore)"
            )
        elif extra_with_pred:
            alt = ratio(counts["ap_sum"], counts["queries"] + extra_with_pred)
            text += (
                f"; {extra_with_pred} of them are left out of MAP (--extra-docs ignore); the "
                f"official script counts them as AP 0: MAP {fmt(alt)}"
            )
        out.append(text)
    if data.invalid_pred_rows:
        out.append(invalid_text(data.invalid_pred_rows, data.invalid_pred_examples, True))
    if data.invalid_gold_rows:
        flipped = replace(options, filter_gold=not options.filter_gold)
        alt_counts = corpus_counts(rank(data, flipped, view.vocabulary))
        alt_scores = ranked_scores(alt_counts)
        state = (
            "still count as relevant, as the official script does"
            if not options.filter_gold
            else "were dropped (--filter-gold); the official script keeps them"
        )
        out.append(
            f"{data.invalid_gold_rows} gold lines have a code that is not in the valid-code list "
            f"and {state}; {'with' if not options.filter_gold else 'without'} --filter-gold MAP "
            f"would be {fmt(alt_scores['map'])} and F1 {fmt(alt_scores['f1'])}"
        )
    if outcome.beyond_depth_docs:
        alt_counts = corpus_counts(rank(data, replace(options, depth=None), view.vocabulary))
        out.append(
            f"{outcome.beyond_depth_docs} documents have more than {options.depth} valid "
            "predictions; MAP ignores the ranks beyond (the official trectools depth); without "
            f"the cut-off MAP would be {fmt(ratio(alt_counts['ap_sum'], alt_counts['queries']))}"
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
    out += lowercase_warnings(read, view, options)
    return out


# --- X ---------------------------------------------------------------------------------------


def lowercased(references: list[CodeReference]) -> list[CodeReference]:
    """The references with their codes lower-cased (``str.lower``, as the official script)."""
    return [r if r.code.islower() else replace(r, code=r.code.lower()) for r in references]


def x_lowercase_warnings(
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
        gold, pred = lowercased(gold), lowercased(pred)
    per_doc = match(gold, [p for p in pred if p.code in valid], valid, options)
    alt = prf_scores(Counts.total(per_doc.values()))
    moved = any(alt[k] != scores[k] for k in ("precision", "recall", "f1"))
    effect = f"P {fmt(alt['precision'])}, R {fmt(alt['recall'])}, F1 {fmt(alt['f1'])}"
    readme = " and the README's numbers"
    return _lowercase_text(
        options.lowercase, upper_pred, upper_gold, moved, effect, readme, "valid lists"
    )


def collapsed(
    source: str, references: list[CodeReference], what: str, rule: str
) -> list[ScoreWarning]:
    """A warning counting the lines whose (document, code) pair an earlier line already has:
    the pair counts once, as in the official script (``source``: the file, as examples name
    it)."""
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
            tuple(f"{source}:{n}" for n in lines),
        )
    ]


def explainable_warnings(
    gold: list[CodeReference],
    pred: list[CodeReference],
    pred_all: list[CodeReference],
    valid: frozenset[str],
    options: ExplainableOptions,
    scores: Scores,
) -> list[str]:
    """The warnings of X: invalid codes, the tolerance, the label and no valid prediction
    (``gold``: the references, codes cased as scored; ``pred``: the valid predictions of
    ``pred_all``)."""
    out: list[str] = []

    def f1_with(**changes: object) -> float | None:
        alt = replace(options, **changes)  # type: ignore[arg-type]
        return prf_scores(Counts.total(match(gold, pred, valid, alt).values()))["f1"]

    count, examples = invalid_predictions(pred_all, valid)
    if count:
        out.append(invalid_text(count, examples, False))
    invalid_gold = sum(g.code not in valid for g in gold)
    if invalid_gold:
        state = (
            "still count, as the official script does"
            if not options.filter_gold
            else ("were dropped (--filter-gold); the official script keeps them")
        )
        out.append(
            f"{invalid_gold} gold references have a code that is not in the valid-code lists "
            f"and {state}; F1 would be {fmt(f1_with(filter_gold=not options.filter_gold))}"
        )
    if options.tolerance_mode is ToleranceMode.contain:
        symmetric = f1_with(tolerance_mode=ToleranceMode.symmetric)
        if symmetric != scores["f1"]:
            out.append(
                "some predictions start late or end early within the tolerance and are not "
                "credited (the official one-sided rule); --tolerance-mode symmetric would give "
                f"F1 {fmt(symmetric)}"
            )
    exact = f1_with(tolerance=0)
    if options.tolerance and exact != scores["f1"]:
        out.append(
            f"some true positives rely on the {options.tolerance}-character tolerance; exact "
            f"positions (--tolerance 0) would give F1 {fmt(exact)}"
        )
    labelled = f1_with(check_label=not options.check_label)
    if labelled != scores["f1"]:
        out.append(
            "some true positives have a label that differs from the gold reference; "
            + (
                "the label is ignored as the official script does "
                f"(--check-label: F1 {fmt(labelled)})"
                if not options.check_label
                else "--check-label requires it; the official script ignores it: "
                f"F1 {fmt(labelled)}"
            )
        )
    if not pred and pred_all:
        out.append(
            "no valid prediction: the official script crashes on it ('not enough values to unpack')"
        )
    return out
