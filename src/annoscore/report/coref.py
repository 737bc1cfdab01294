"""Text layouts of ``annoscore coref``: a clean table, and the reference scorer's totals block.

``render_reference`` prints what ``perl scorer.pl <metric> KEY RESPONSE none`` prints for each
metric, so the two outputs can be diffed line by line: numerators and denominators with 15
significant digits (Perl's default number format), percentages **truncated** to two decimals
(``int(x * 10000) / 100``: 0.698963 prints 69.89, where rounding would give 69.90), and 0 for a
score that is undefined (a zero denominator), as scorer.pl prints it.
"""

from __future__ import annotations

import math

from annoscore.counts import Counts, Number
from annoscore.formats.conll import shown_name
from annoscore.metrics.coref import blanc_rpf, metrics_in, rpf
from annoscore.report.generic import aligned
from annoscore.result import Result

RULE = "-" * 74

_TITLES = {
    "mentions": "Mentions",
    "muc": "MUC",
    "bcub": "B3",
    "ceafm": "CEAFm",
    "ceafe": "CEAFe",
    "blanc": "BLANC",
    "lea": "LEA",
}


def perl_number(value: Number) -> str:
    """A number as Perl prints it by default (``%.15g``): ``6``, ``1.8``, ``2.33333333333333``."""
    text = f"{value:.15g}"
    return "0" if text == "-0" else text


def truncated_percent(fraction: float | None) -> str:
    """``int(fraction * 10000) / 100`` printed the Perl way: 0.797979 -> ``79.79``; an
    undefined score (``None``) prints as scorer.pl prints it, ``0``."""
    return perl_number(math.trunc((fraction or 0.0) * 10000) / 100)


def reference_line(label: str, counts: Counts, prefix: str) -> str:
    """One ``LABEL: Recall: (n / d) x%<TAB>Precision: (n / d) y%<TAB>F1: z%`` line."""
    recall, precision, f1 = rpf(counts, prefix)
    return (
        f"{label}: Recall: ({perl_number(counts[prefix + 'recall_num'])} / "
        f"{perl_number(counts[prefix + 'recall_den'])}) {truncated_percent(recall)}%\t"
        f"Precision: ({perl_number(counts[prefix + 'precision_num'])} / "
        f"{perl_number(counts[prefix + 'precision_den'])}) {truncated_percent(precision)}%\t"
        f"F1: {truncated_percent(f1)}%"
    )


def blanc_lines(counts: Counts, prefix: str = "blanc_") -> list[str]:
    """The three BLANC lines: coreference links, non-coreference links, BLANC."""
    recall, precision, f1 = blanc_rpf(counts, prefix)
    return [
        reference_line("Coreference links", counts, prefix + "coref_"),
        reference_line("Non-coreference links", counts, prefix + "noncoref_"),
        f"BLANC: Recall: ({perl_number(recall or 0)} / 1) {truncated_percent(recall)}%\t"
        f"Precision: ({perl_number(precision or 0)} / 1) {truncated_percent(precision)}%\t"
        f"F1: {truncated_percent(f1)}%",
    ]


def render_reference(result: Result) -> str:
    """The totals block of the reference scorer, one per metric (mentions are in each block)."""
    counts = result.counts
    lines: list[str] = []
    for name in metrics_in(result.counts):
        if name == "mentions":
            continue
        lines += [f"METRIC {name}:", "", "====== TOTALS ======="]
        lines += [reference_line("Identification of Mentions", counts, "mentions_"), RULE]
        if name == "blanc":
            for line in blanc_lines(counts):
                lines += [line, RULE]
        else:
            lines += [reference_line("Coreference", counts, f"{name}_"), RULE]
        lines.append("")
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def render_table(result: Result) -> str:
    """Recall, precision and F1 in percent per metric (then per document), and the CoNLL score.

    Warnings are not part of the table: the command prints them on stderr (JSON and Markdown
    carry them inside)."""
    names = metrics_in(result.counts)
    parts = ("recall", "precision", "f1")
    rows = [[_TITLES[n], *(_cell(result.scores.get(f"{n}_{p}")) for p in parts)] for n in names]
    lines = [f"{result.task}  ({result.signature})", "", *aligned(["metric", *parts], rows, left=1)]
    if "conll_f1" in result.scores:
        conll = _cell(result.scores["conll_f1"])
        lines += ["", f"CoNLL score (mean of MUC, B3, CEAFe F1): {conll}"]
    if result.view.documents:
        doc_header = ["document", *(f"{_TITLES[n]} F1" for n in names)]
        doc_rows = [
            [shown_name(doc), *(_cell(unit.scores.get(f"{n}_f1")) for n in names)]
            for doc, unit in result.documents.items()
        ]
        lines += ["", *aligned(doc_header, doc_rows, left=1)]
    return "\n".join(lines) + "\n"
