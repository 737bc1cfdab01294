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

from collections.abc import Iterator
from operator import itemgetter
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


BLOCK = 1 << 16
"""Documents a piece of a table holds (about 4 MB of text): the pieces are written as they are
made (:func:`ranked_pieces`), a table of 10^6 documents never held whole."""


def _lines(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def _named(documents: list[str]) -> list[list[str]]:
    """The pieces of :data:`BLOCK` documents of a table: each a list of its names, each name
    followed by a slot for its line's end (:func:`_column` fills them).  Made once for the three
    tables of the same documents (10^6 documents: 16 MB of slots held, 0.03 s of CPU a table
    saved)."""
    pieces = []
    for start in range(0, len(documents), BLOCK):
        names = documents[start : start + BLOCK]
        texts = [""] * (2 * len(names))
        texts[::2] = names
        pieces.append(texts)
    return pieces


def _column(named: list[list[str]], shared: SharedUnits, key: str) -> Iterator[str]:
    """Each document's line (its name, two tabs, its ``key`` score) and a rule, each ending with
    a newline, in the pieces of :func:`_named`: a score printed once for the documents of
    equal counts (``shared``: :meth:`Result.units_of` of the documents; ``-`` for a document
    the counts lack), each piece joined in C from the names and their ends one after the other
    (no string made per document)."""
    units, at = shared
    values = [None if u is None else u.scores.get(key) for u in units]
    ends = [f"\t\t{_value(value)}\n{RULE}\n" for value in values]
    start = 0
    for texts in named:
        picks = at[start : start + len(texts) // 2]  # each end taken in C (one item: a str)
        texts[1::2] = itemgetter(*picks)(ends) if len(picks) > 1 else [ends[picks[0]]]
        start += len(picks)
        yield "".join(texts)


def explainable_pieces(result: Result) -> Iterator[str]:
    """:func:`render_explainable`'s text in pieces (:func:`ranked_pieces`): the per-document
    tables and the micro-average block, which D/P print too."""
    details = result.details
    documents = sorted(details.gold_documents if isinstance(details, CodiespDetails) else ())
    shared = result.units_of(documents)
    named = _named(documents)
    for key, title in _BLOCKS:
        yield _lines(RULE, f"Clinical case name\t\t\t{title}", RULE)
        yield from _column(named, shared, key)
        name = "F-score" if key == "f1" else title.lower()
        yield _lines("", f"Micro-average {name} = {_value(result.scores.get(key))}", "")
    yield _lines(RULE, "MICRO-AVERAGE STATISTICS:", RULE)
    yield _lines(f"Micro-average precision = {_value(result.scores.get('precision'))}", "")
    yield _lines(f"Micro-average recall = {_value(result.scores.get('recall'))}", "")
    yield _lines(f"Micro-average F-score = {_value(result.scores.get('f1'))}", "")


def render_ranked(result: Result) -> str:
    """CodiEsp D/P: the MAP line, then the F1 script's tables and ``P|R|F1``; with
    ``--per-doc`` (which the official layout has no place for: its tables are per document
    already) each document's average precision, in a table of the same kind, after the MAP
    line (``-``: a document MAP leaves out).  The other ranked measures chosen
    (``--measure``) come next, in trec_eval's layout (:func:`_measure_lines`)."""
    return "".join(ranked_pieces(result))


def ranked_pieces(result: Result) -> Iterator[str]:
    """:func:`render_ranked`'s text in pieces, each made when the one before is taken (what
    the command writes: a layout of 10^6 documents is 222 MB of text)."""
    s = result.scores
    yield _lines("", f"MAP estimate: {_value(s.get('map')).replace('-', 'nan')}", "")
    if result.view.documents:
        yield _lines(RULE, "Clinical case name\t\t\tAverage precision", RULE)
        documents = sorted(result.matrix.documents)
        yield from _column(_named(documents), result.units_of(documents), "map")
        yield _lines("")
    yield _lines(*_measure_lines(result))
    yield from explainable_pieces(result)
    yield _lines("|".join(_value(s.get(k)) for k in ("precision", "recall", "f1")))


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
    return "".join(explainable_pieces(result))
