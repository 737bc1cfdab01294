"""conlleval.pl's layouts (version 2004-01-26), byte for byte: the text report and the LaTeX
table (``-l``).

Text::

    processed T tokens with G phrases; found: F phrases; correct: C.
    accuracy:  AA.AA%; precision:  PP.PP%; recall:  RR.RR%; FB1:  FF.FF
                  LOC: precision:  PP.PP%; recall:  RR.RR%; FB1:  FF.FF  N

The second line and the type lines only when T > 0.  Percentages are computed as the script does
(``100 * correct / found``; F from the unrounded percentages; 0 where undefined).  Type lines are
sorted as strings over the gold and the guessed types; ``N`` is the number of **guessed** phrases
of the type.  A type Perl reads as false (the empty type, or ``0``) is printed once per side it
appears on (its de-duplication test skips false values).
"""

from __future__ import annotations

from annoscore.metrics.conlleval import ConllevalDetails
from annoscore.result import Result

_FALSE_IN_PERL = ("", "0")


def _percent(numerator: float, denominator: float) -> float:
    return 100 * numerator / denominator if denominator else 0.0


def _f(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _type_rows(result: Result) -> list[tuple[str, float, float, float, int]]:
    details = result.details
    gold_types = details.gold_types if isinstance(details, ConllevalDetails) else frozenset()
    guessed_types = details.guessed_types if isinstance(details, ConllevalDetails) else frozenset()
    rows = []
    for name, unit in result.types.items():
        tp, fp, fn = (int(unit.counts[k]) for k in ("tp", "fp", "fn"))
        found, gold = tp + fp, tp + fn
        precision, recall = _percent(tp, found), _percent(tp, gold)
        row = (name, precision, recall, _f(precision, recall), found)
        times = 1
        if name in _FALSE_IN_PERL:
            times = max(1, (name in gold_types) + (name in guessed_types))
        rows.extend([row] * times)
    return rows


def render_conlleval(result: Result) -> str:
    """conlleval.pl's text report of a ``conlleval`` result."""
    counts = result.counts
    tokens, right = int(counts["tokens"]), int(counts["correct_tokens"])
    tp, fp, fn = int(counts["tp"]), int(counts["fp"]), int(counts["fn"])
    found, gold = tp + fp, tp + fn
    out = [
        f"processed {tokens} tokens with {gold} phrases; found: {found} phrases; correct: {tp}.\n"
    ]
    if tokens > 0:
        precision, recall = _percent(tp, found), _percent(tp, gold)
        out.append(
            "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n"  # noqa: UP031
            % (_percent(right, tokens), precision, recall, _f(precision, recall))
        )
        for name, p, r, f, n in _type_rows(result):
            out.append(
                "%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d\n"  # noqa: UP031
                % (name, p, r, f, n)
            )
    return "".join(out)


def render_conlleval_latex(result: Result) -> str:
    """conlleval.pl's LaTeX table (``-l``) of a ``conlleval`` result."""
    counts = result.counts
    tp, fp, fn = int(counts["tp"]), int(counts["fp"]), int(counts["fn"])
    out = ["        & Precision &  Recall  & F$_{\\beta=1} \\\\\\hline\n"]
    rows = _type_rows(result)
    for k, (name, p, r, f, _) in enumerate(rows):
        end = "\\\\\\hline" if k == len(rows) - 1 else "\\\\"
        out.append("%-7s &  %6.2f\\%% & %6.2f\\%% & %6.2f %s\n" % (name, p, r, f, end))  # noqa: UP031
    precision, recall = _percent(tp, tp + fp), _percent(tp, tp + fn)
    out.append(
        "%-7s &  %6.2f\\%% & %6.2f\\%% & %6.2f \\\\\\hline\n"  # noqa: UP031
        % ("Overall", precision, recall, _f(precision, recall))
    )
    return "".join(out)
