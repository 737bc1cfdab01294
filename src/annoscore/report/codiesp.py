"""The official CodiEsp text layouts.

D/P: the MAP script's ``MAP estimate: x`` line (an empty line before and after; ``--per-doc``
adds each document's average precision below it), then the F1 script's per-document tables
(Precision, Recall, F-score, one block each, documents sorted), a ``MICRO-AVERAGE STATISTICS``
block and the final ``P|R|F1`` line.  X: the same tables without the MAP line and without the
``P|R|F1`` line.  Values are Python's ``round(v, 3)``.

Where the official scripts print ``nan`` for a defined value (a document with predictions but no
true positive, F1 when P+R = 0 or when nothing is predicted) the value is printed; a truly
undefined value (0/0) prints ``-``, but for MAP, which prints ``nan`` as the MAP script does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annoscore.counts import Counts
from annoscore.metrics.codiesp import CodiespDetails
from annoscore.result import Result, Scores, SharedUnits

if TYPE_CHECKING:
    from annoscore.metrics.trec_measures import Output

RULE = "-" * 53
_BLOCKS = (("precision", "Precision"), ("recall", "Recall"), ("f1", "F-score"))


def _value(value: float | None) -> str:
    return "-" if value is None else str(round(value, 3))


def _column(documents: list[str], shared: SharedUnits, key: str) -> list[str]:
    """Each document's line (its name, two tabs, its ``key`` score) and a rule, as one string
    (none when there is no document): a score printed once for the documents of equal counts
    (``shared``: :meth:`Result.units_of` of ``documents``; ``-`` for a document the counts
    lack), the lines joined in C."""
    if not documents:
        return []
    units, at = shared
    values = [None if u is None else u.scores.get(key) for u in units]
    ends = [f"\t\t{_value(value)}\n{RULE}" for value in values]
    return ["\n".join(map(str.__add__, documents, map(ends.__getitem__, at)))]


def _tables(result: Result) -> list[str]:
    details = result.details
    documents = sorted(details.gold_documents if isinstance(details, CodiespDetails) else ())
    shared = result.units_of(documents)
    lines: list[str] = []
    for key, title in _BLOCKS:
        lines += [RULE, f"Clinical case name\t\t\t{title}", RULE]
        lines += _column(documents, shared, key)
        name = "F-score" if key == "f1" else title.lower()
        lines += ["", f"Micro-average {name} = {_value(result.scores.get(key))}", ""]
    lines += [RULE, "MICRO-AVERAGE STATISTICS:", RULE]
    lines += [f"Micro-average precision = {_value(result.scores.get('precision'))}", ""]
    lines += [f"Micro-average recall = {_value(result.scores.get('recall'))}", ""]
    lines += [f"Micro-average F-score = {_value(result.scores.get('f1'))}", ""]
    return lines


def render_ranked(result: Result) -> str:
    """CodiEsp D/P: the MAP line, then the F1 script's tables and ``P|R|F1``; with
    ``--per-doc`` (which the official layout has no place for: its tables are per document
    already) each document's average precision, in a table of the same kind, after the MAP
    line (``-``: a document MAP leaves out).  The other ranked measures chosen
    (``--measure``) come next, in trec_eval's layout (:func:`_measure_lines`)."""
    s = result.scores
    lines = ["", f"MAP estimate: {_value(s.get('map')).replace('-', 'nan')}", ""]
    if result.view.documents:
        lines += [RULE, "Clinical case name\t\t\tAverage precision", RULE]
        documents = sorted(result.matrix.documents)
        lines += _column(documents, result.units_of(documents), "map")
        lines.append("")
    lines += _measure_lines(result)
    lines += _tables(result)
    lines.append("|".join(_value(s.get(k)) for k in ("precision", "recall", "f1")))
    return "\n".join(lines) + "\n"


def _measure_lines(result: Result) -> list[str]:
    """The measures ``--measure`` chose, as ``trec_eval`` prints them (``measure<TAB>document
    <TAB>value``, 4 decimals, counts as integers; ``-`` where undefined): with ``--per-doc``
    each document's lines first (documents sorted; not ``num_q`` nor the geometric means, as
    trec_eval), then the ``all`` lines (``num_q``: the documents in MAP), and an empty line;
    nothing when none was chosen."""
    details = result.details
    outputs = details.outputs if isinstance(details, CodiespDetails) else ()
    if not outputs:
        return []
    from annoscore.metrics.trec_measures import text_value  # the measures' module: --measure only

    def line(output: Output, name: str, scores: Scores, counts: Counts) -> str:
        value = counts[output.column] if output.kind == "count" else scores.get(output.name)
        return f"{output.name:<22}\t{name}\t{text_value(output, value)}"

    lines = []
    if result.view.documents:
        for doc, unit in sorted(result.documents.items()):
            lines += [line(o, doc, unit.scores, unit.counts) for o in outputs if o.per_query]
    for o in outputs:
        if o.kind == "num_q":
            lines.append(f"{o.name:<22}\tall\t{int(result.counts['queries'])}")
        else:
            lines.append(line(o, "all", result.scores, result.counts))
    return [*lines, ""]


def render_explainable(result: Result) -> str:
    """CodiEsp X: the per-document tables and the micro-average block."""
    return "\n".join(_tables(result)) + "\n"
