"""The PharmaCoNER scripts' text layouts.

Plain script (``evaluate.py``), folder mode::

    <70 spaces>
    Report (SYSTEM: <run>):
    ------------------------------------------------------------
    SubTrack 1 [NER]                   Measure        Micro
    ------------------------------------------------------------
    Total (15 docs)                    Precision      0.9818
                                       Recall         0.9643
                                       F1             0.973
    ------------------------------------------------------------
    <blank>
    <blank>

Every row is ``"{:<35}{:<15}{:<20}"``; values are ``"{:.4}"`` (4 significant digits, general
format: 0.97297 -> ``0.973``, 1.0 -> ``1.0``); an undefined score is ``0.0`` as the scripts print
it (``--undefined zero``, the default), ``-`` with ``--undefined null``.  Verbose folder mode
and file mode first print two blank lines, the title and a ``Document ID`` header, then a
Precision/Recall/F1 block per document.  (The official NER blocks leave the document-id column
empty, a bug; here it shows the id, which moves no number.)

CodaLab scorer (``--codalab``): ``scores.txt``'s three lines ``F1 : <repr>``, ``Precision :``,
``Recall :`` at full precision.

``--per-doc`` shows the per-document blocks (as ``--verbose``); ``--per-type`` (and ``--per-doc``
with ``--codalab``) adds annoscore's generic table of those rows after the official layout, which
stays unchanged above it.
"""

from __future__ import annotations

from annoscore.metrics.sets import PharmaconerDetails
from annoscore.report.generic import render_table
from annoscore.result import Result, Scores, Undefined

_ROW = "{:<35}{:<15}{:<20}"
_RULE = "-" * 60
_HEADERS = {1: "SubTrack 1 [NER]", 2: "SubTrack 2 [Indexing]"}


def _block(label: str, scores: Scores, zero: bool) -> list[str]:
    values = [scores[key] for key in ("precision", "recall", "f1")]
    shown = ["-" if v is None and not zero else f"{v or 0.0:.4}" for v in values]
    return [
        _ROW.format(label, "Precision", shown[0]),
        _ROW.format("", "Recall", shown[1]),
        _ROW.format("", "F1", shown[2]),
    ]


def render_official(result: Result, verbose: bool = False) -> str:
    """The plain script's report; per-document blocks in file mode or when ``verbose``."""
    layout = result.details
    if not isinstance(layout, PharmaconerDetails):
        raise TypeError(f"not a PharmaCoNER result: {result.task}")
    zero = result.undefined is Undefined.zero
    title = f"Report (SYSTEM: {layout.run}):"
    lines: list[str] = []
    documents = result.documents
    if verbose or layout.file_mode or result.view.documents:
        lines += ["", "", title, _RULE, _ROW.format("Document ID", "Measure", "Micro"), _RULE]
        for doc_id in sorted(documents):
            lines += _block(doc_id, documents[doc_id].scores, zero)
            lines.append(_RULE)
    if not layout.file_mode:
        n_docs = len(documents)
        lines += [_ROW.format("", "", ""), title, _RULE]
        lines += [_ROW.format(_HEADERS[layout.subtrack], "Measure", "Micro"), _RULE]
        lines += _block(f"Total ({n_docs} docs)", result.scores, zero)
        lines += [_RULE, "", ""]
    text = "\n".join(lines) + "\n"
    if result.view.types:
        text += "\n" + render_table(result.shown(documents=False))
    return text


def render_codalab(result: Result) -> str:
    """The CodaLab ``scores.txt``: F1, precision and recall with Python's ``repr``."""
    text = "".join(
        f"{label} : {result.scores[key]!r}\n"
        for label, key in (("F1", "f1"), ("Precision", "precision"), ("Recall", "recall"))
    )
    if result.view.types or result.view.documents:
        text += "\n" + render_table(result)
    return text
