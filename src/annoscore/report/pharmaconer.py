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
format: 0.97297 -> ``0.973``, 1.0 -> ``1.0``).  Verbose folder mode and file mode first print two
blank lines, the title and a ``Document ID`` header, then a Precision/Recall/F1 block per
document.  (The official NER blocks leave the document-id column empty, a bug; here it shows the
id, which moves no number.)

CodaLab scorer (``--codalab``): ``scores.txt``'s three lines ``F1 : <repr>``, ``Precision :``,
``Recall :`` at full precision.

``--per-doc`` shows the per-document blocks (as ``--verbose``); ``--per-type`` (and ``--per-doc``
with ``--codalab``) adds annoscore's generic table of those rows after the official layout, which
stays unchanged above it.
"""

from __future__ import annotations

from dataclasses import dataclass

from annoscore.report.generic import render_table
from annoscore.result import Result, Scores


@dataclass(frozen=True, slots=True)
class Layout:
    """What the official text layout needs to know beyond the scores (filled by the preset)."""

    subtrack: int
    run: str
    file_mode: bool


_ROW = "{:<35}{:<15}{:<20}"
_RULE = "-" * 60
_HEADERS = {1: "SubTrack 1 [NER]", 2: "SubTrack 2 [Indexing]"}


def _value(score: float | None) -> str:
    return "-" if score is None else f"{score:.4}"


def _block(label: str, scores: Scores) -> list[str]:
    return [
        _ROW.format(label, "Precision", _value(scores["precision"])),
        _ROW.format("", "Recall", _value(scores["recall"])),
        _ROW.format("", "F1", _value(scores["f1"])),
    ]


def render_official(result: Result, verbose: bool = False) -> str:
    """The plain script's report; per-document blocks in file mode or when ``verbose``."""
    layout: Layout = result.details
    title = f"Report (SYSTEM: {layout.run}):"
    lines: list[str] = []
    documents = result.documents
    if verbose or layout.file_mode or result.view.documents:
        lines += ["", "", title, _RULE, _ROW.format("Document ID", "Measure", "Micro"), _RULE]
        for doc_id in sorted(documents):
            lines += _block(doc_id, documents[doc_id].scores)
            lines.append(_RULE)
    if not layout.file_mode:
        n_docs = len(documents)
        lines += [_ROW.format("", "", ""), title, _RULE]
        lines += [_ROW.format(_HEADERS[layout.subtrack], "Measure", "Micro"), _RULE]
        lines += _block(f"Total ({n_docs} docs)", result.scores)
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
