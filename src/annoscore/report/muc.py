"""The MUC scorer's reports, in the seed manual's layouts.

- :func:`score_report`: one page per document and a totals page, each with TEXT FILTERING (ST),
  OBJ SCORES, SLOT SCORES, ALL SLOTS and F-MEASURES (P&R, 2P&R, P&2R).  Columns
  ``POS ACT| COR PAR INC | MIS SPU NON| REC PRE UND OVG SUB ERR``: a 12-character name, POS and
  ACT ``%6d``, COR ``%4d`` PAR ``%4d`` INC ``%5d``, MIS ``%4d`` SPU ``%5d`` NON ``%5d``, then six
  percentages ``%4d`` rounded half up (exactly, from the integer tallies).  An undefined
  percentage (``None``, the rule) prints ``*`` (decision 5); a result made with
  ``undefined=zero`` prints 0, as the manual's pages do.  Pages are separated by a form feed.
- :func:`report_summary`: the information-extraction report summary: an upper-case line per
  object pair (``COR``/``MIS``/``SPU``/``OPT``), a lower-case line per single fill (``cor inc
  par mis spu opt uns rem non``), four fields separated by ``:report_field_separator``.
- :func:`map_history` / :func:`map_history_tcl`: the manual's nested attribute/value list
  (``-docnum``, ``-class_pairs``, ``-obj_pairs``, ``-slot_pairs``, ``-single_fill_pairs`` ...),
  as Python data (JSON) and as a Tcl-style list (in :mod:`annoscore.report.muc_history`,
  imported here).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from annoscore.align.muc_coref import CorefAlignment
from annoscore.align.muc_records import DocumentAlignment, ObjectPair, SlotPair
from annoscore.counts import Counts
from annoscore.formats.muc_config import kept_per_process
from annoscore.metrics.muc import MucDetails
from annoscore.metrics.tallies import TALLY_NAMES, Tally
from annoscore.result import CountMatrix, Result, Undefined

if TYPE_CHECKING:
    from annoscore.scale.spool import FileBytes


def _details(result: Result) -> MucDetails:
    details = result.details
    if not isinstance(details, MucDetails):
        raise TypeError(f"a {result.task} result carries no MUC details")
    return details


def written(details: MucDetails) -> MucDetails:
    """``details`` when they hold their alignments; :class:`ValueError` when a chunk wrote
    them per document (:attr:`~annoscore.metrics.muc.MucDetails.rendered`: only the reports
    written there can be had)."""
    if details.rendered is not None:
        raise ValueError(
            "the alignments of this MUC result were written per document by its chunks"
        )
    return details


def undefined_shown(result: Result) -> str:
    """What an undefined percentage prints: ``*`` (the rule, decision 5), ``0`` when the result
    was made with ``undefined=zero``."""
    return "0" if result.undefined is Undefined.zero else "*"


RULE = "-" * 78
HEADER = "               POS   ACT| COR PAR INC | MIS  SPU  NON| REC PRE UND OVG SUB ERR"
SPLIT = "-" * 24 + "+" + "-" * 13 + "+" + "-" * 14 + "+" + "-" * 24
_BLANK = " " * 13 + "|" + " " * 14 + "|"


def _percent(twice_num: int, twice_den: int, undefined: str) -> str:
    """``round_half_up(100 * num / den)`` computed exactly, as ``%4d`` (``undefined``, already
    right-aligned in 4 characters, when ``den`` is 0)."""
    if twice_den == 0:
        return undefined
    return str((200 * twice_num + twice_den) // (2 * twice_den)).rjust(4)


def _row_numbers(values: Sequence[int], undefined: str = "*") -> str:
    """A score row after its 12-character name, from ``(cor, par, inc, mis, spu, non)``
    (``str.rjust``: the ``%6d`` ... of the module docstring, at half the cost of format
    specifications)."""
    cor, par, inc, mis, spu, non = values
    counted = cor + par + inc
    pos, act = counted + mis, counted + spu
    credit = 2 * cor + par
    substituted = 2 * inc + par
    blank = undefined.rjust(4)
    return "".join(
        (
            str(pos).rjust(6),
            str(act).rjust(6),
            "|",
            str(cor).rjust(4),
            str(par).rjust(4),
            str(inc).rjust(5),
            "|",
            str(mis).rjust(4),
            str(spu).rjust(5),
            str(non).rjust(5),
            "|",
            _percent(credit, 2 * pos, blank),
            _percent(credit, 2 * act, blank),
            _percent(2 * mis, 2 * pos, blank),
            _percent(2 * spu, 2 * act, blank),
            _percent(substituted, 2 * counted, blank),
            _percent(substituted + 2 * mis + 2 * spu, 2 * (counted + mis + spu), blank),
        )
    )


def score_row(label: str, t: Tally, undefined: str = "*") -> str:
    """One score report row (see the module docstring)."""
    return f"{label[:12]:<12}" + _row_numbers((t.cor, t.par, t.inc, t.mis, t.spu, t.non), undefined)


def f_measure_lines(t: Tally) -> list[str]:
    """The two F-MEASURES lines (P&R, 2P&R, P&2R, in percent with 2 decimals)."""
    if t.precision is None or t.recall is None:
        return ["F-MEASURES not available - Recall or Precision invalid."]
    values = [100 * (t.f_measure(beta) or 0.0) for beta in (1.0, 0.5, 2.0)]
    return [
        " " * 52 + "P&R" + f"{'2P&R':>10}{'P&2R':>10}",
        f"F-MEASURES{values[0]:45.2f}{values[1]:10.2f}{values[2]:10.2f}",
    ]


def _section(title: str) -> str:
    return f"{title:<24}|" + _BLANK


_PagePlan = list[str | tuple[str, str]]
"""A score page's lines up to the ALL SLOTS row: a fixed line, or a row's label and the prefix
of its tally keys (``obj:enamex:``: the keys are the prefix and ``cor par inc mis spu non``)."""


def _page_plan(details: MucDetails) -> _PagePlan:
    """The lines of every score page up to the ALL SLOTS row (see :func:`score_page`)."""
    config = details.config
    plan: _PagePlan = [RULE, HEADER, SPLIT]
    if config.scoring_task == "scenario_template":
        plan.append(("TEXT FILTERING", "text_filter:"))
        plan.append(SPLIT)
    if config.scoring_task == "named_entity":
        from annoscore.metrics.muc_ne import subtask_key

        plan.append(f"{'SUBTASK SCORES':<24}|" + _BLANK + " " * 24)
        report_names = {c.name.lower(): c.report_name for c in config.class_defs}
        shown_class = None
        for cls, slot, value in details.subtasks:
            if cls.lower() != shown_class:
                shown_class = cls.lower()
                plan.append(_section(report_names.get(shown_class, cls)[:24]))
            plan.append((" " + value, subtask_key(cls, slot, value)))
        plan.append(SPLIT)
        plan.append(_section("SECT SCORES"))
        for name in details.section_rows:
            plan.append((name, f"section:{name}:"))
        plan.append(SPLIT)
    plan.append(_section("OBJ SCORES"))
    for cdef in config.class_defs:
        if cdef.scored:
            plan.append((cdef.report_name, f"obj:{cdef.name.lower()}:"))
    plan.append(SPLIT)
    plan.append(_section("SLOT SCORES"))
    for cdef in config.class_defs:
        plan.append(_section(cdef.report_name[:24]))
        for sdef in config.slots_of(cdef.name):
            plan.append((" " + sdef.report_name, f"slot:{cdef.name.lower()}:{sdef.name.lower()}:"))
    plan.append(SPLIT)
    return plan


@dataclass(frozen=True, slots=True)
class _PageLayout:
    """A score page as fixed text and tally rows: ``heads[r]`` is the text before row ``r``'s
    numbers (the fixed lines since the previous row, then the row's 12-character name), the
    last row is ALL SLOTS; ``keys`` are the counts read, six per row (``cor`` ... ``non``)."""

    heads: tuple[str, ...]
    keys: tuple[str, ...]

    @classmethod
    def of(cls, details: MucDetails) -> _PageLayout:
        heads: list[str] = []
        keys: list[str] = []
        fixed = ""
        for entry in [*_page_plan(details), ("ALL SLOTS", "")]:
            if isinstance(entry, str):
                fixed += entry + "\n"
                continue
            label, prefix = entry
            heads.append(f"{fixed}{label[:12]:<12}")
            keys.extend(prefix + name for name in TALLY_NAMES)
            fixed = ""
        return cls(tuple(heads), tuple(keys))

    def pieces(
        self, titles: Sequence[str], columns: Sequence[Sequence[int]], undefined: str
    ) -> list[str]:
        """The text of a page per title, as pieces: each page is its title, then
        ``heads[r]`` and row ``r``'s numbers for each row; ``columns[k]`` holds the value of
        ``keys[k]`` on each page.  Each distinct row (six numbers) is written once."""
        rows: dict[tuple[int, ...], str] = {}
        totals: dict[tuple[int, ...], str] = {}
        last = len(self.heads) - 1
        numbers: list[list[str]] = []  # per row, per page
        for r in range(last + 1):
            values = list(zip(*columns[6 * r : 6 * r + 6], strict=True))
            written = rows if r < last else totals
            for row in set(values).difference(written):
                if r < last:
                    written[row] = _row_numbers(row, undefined) + "\n"
                else:
                    lines = f_measure_lines(Tally(*row))
                    written[row] = "\n".join([_row_numbers(row, undefined), *lines, ""])
            numbers.append(list(map(written.__getitem__, values)))
        out: list[str] = []
        heads = self.heads
        for title, page in zip(titles, zip(*numbers, strict=True), strict=True):
            out.append(title)
            out.extend(chain.from_iterable(zip(heads, page, strict=True)))
        return out


def score_page(details: MucDetails, counts: Counts, undefined: str = "*") -> list[str]:
    """The lines of one page of the score report for ``counts`` (a document's or the
    corpus's), without its title."""
    layout = _PageLayout.of(details)
    columns = [[int(counts[key])] for key in layout.keys]
    return "".join(layout.pieces([""], columns, undefined)).split("\n")[:-1]


def _whole_columns(matrix: CountMatrix, keys: Sequence[str]) -> list[list[int]]:
    """Each key's column of ``matrix`` as whole numbers (``int`` of each value, as
    :func:`score_page` reads a document's counts), zeros for a key the matrix lacks."""
    import numpy as np

    index = {name: k for k, name in enumerate(matrix.names)}
    present = [index[key] for key in keys if key in index]
    table = iter(matrix.values[:, present].T.astype(np.int64).tolist())
    zeros = [0] * len(matrix.documents)
    return [next(table) if key in index else zeros for key in keys]


def score_report(result: Result, document_pages: bool = True) -> str:
    """The score report: a page per document (unless ``document_pages`` is off) and the totals
    (pages separated by a form feed line); an undefined percentage prints
    :func:`undefined_shown`.

    A document's page reads its row of the result's count matrix (each value as a whole
    number, as :func:`score_page` reads :meth:`~annoscore.result.Result.document_counts`),
    the totals page ``result.counts``.  Coreference has its own table
    (:func:`coref_score_report`)."""
    details = _details(result)
    undefined = undefined_shown(result)
    if details.coref is not None:
        return coref_score_report(result, document_rows=document_pages)
    layout = _PageLayout.of(details)
    matrix = result.matrix
    pieces: list[str] = []
    if document_pages and matrix.documents:
        titles = [f"\f\nDocument {doc}\n" for doc in matrix.documents]
        titles[0] = titles[0][2:]
        pieces = layout.pieces(titles, _whole_columns(matrix, layout.keys), undefined)
    title = f"TOTAL SCORES ({len(matrix.documents)} documents)\n"
    totals = [[int(result.counts[key])] for key in layout.keys]
    pieces += layout.pieces(["\f\n" + title if pieces else title], totals, undefined)
    return "".join(pieces)


def render_totals(result: Result) -> str:
    """The totals page of the score report (what ``annoscore muc --totals-only`` prints)."""
    return score_report(result, document_pages=False)


# ------------------------------------------------------------------ report summary
def _slot_order(pair: ObjectPair) -> list[SlotPair]:
    """The slots of a pair that have fills: unscored first, then those filled on both
    sides, in the key only, in the response only (each group in definition order)."""
    groups: tuple[list[SlotPair], ...] = ([], [], [], [])
    for slot in pair.slots:
        if not slot.fills:
            continue
        if not slot.definition.scored:
            groups[0].append(slot)
            continue
        has_key = has_rsp = False
        for fill in slot.fills:
            if fill.key is not None:
                has_key = True
            if fill.response is not None:
                has_rsp = True
        groups[1 if has_key and has_rsp else 2 if has_key else 3].append(slot)
    return [*groups[0], *groups[1], *groups[2], *groups[3]]


def summary_lines(alignment: DocumentAlignment, separator: str = "|") -> list[str]:
    """The information-extraction report summary lines of one document."""
    lines: list[str] = []
    sep = separator
    continued = f" {sep}{' ' * 17}{sep}"
    empty_key = " " * 44
    for cls in alignment.classes:
        for pair in cls.pairs:
            if pair.key is not None and pair.response is not None:
                status = "COR"
            elif pair.key is not None:
                status = "OPT" if pair.status == "non" else "MIS"
            else:
                status = "OPT" if pair.status == "non" else "SPU"
            key_id = f" <{pair.key.id}>" if pair.key else ""
            rsp_id = f" <{pair.response.id}>" if pair.response else ""
            lines.append(f"{status} {sep}{'':17}{sep}{key_id:<44}{sep}{rsp_id}")
            optional_pair = pair.status == "non"
            for slot in _slot_order(pair):
                name = (slot.key or slot.response or slot.definition).name + ":"
                first = f" {sep} {name:<16}{sep}"
                for i, fill in enumerate(slot.fills):
                    fill_status = fill.status
                    if fill_status == "non" and optional_pair:
                        fill_status = "opt"
                    key = fill.key
                    if key is None:
                        key_text = empty_key
                    else:
                        shown = f"<{key.text}>" if key.is_pointer else key.text
                        if len(shown) > 34:
                            shown = shown[:31] + "..."
                        key_text = f"{'      ' + shown:<44}"
                    rsp = fill.response
                    if fill_status == "uns":
                        rsp_text = ""
                    elif rsp is None:
                        rsp_text = "      "
                    else:
                        rsp_text = "      " + (f"<{rsp.text}>" if rsp.is_pointer else rsp.text)
                    lines.append(
                        f"{fill_status}{first if i == 0 else continued}{key_text}{sep}{rsp_text}"
                    )
    return lines


def report_summary(result: Result) -> str:
    """The report summary of every document: the coreference one
    (:func:`_coref_summary_texts`), the named entity one (:func:`_ne_summary_texts`), or the
    information-extraction one (TE, TR, ST, and NE or CO with ``:use_IE_report_summary``
    on)."""
    return "".join(summary_texts(_details(result)))


def summary_texts(details: MucDetails) -> Iterator[str]:
    """The report summary document by document (each text ends in a newline; a document
    without lines gives an empty text), as :func:`report_summary` joins them."""
    if details.rendered is not None:
        yield from details.rendered.strings("summary")
        return
    if not details.config.flag("use_ie_report_summary"):
        if details.coref is not None:
            yield from _coref_summary_texts(details)
            return
        if details.config.scoring_task == "named_entity":
            yield from _ne_summary_texts(details)
            return
    separator = details.config.value("report_field_separator")
    for alignment in written(details).documents:
        yield _lines(summary_lines(alignment, separator))


def _lines(lines: list[str]) -> str:
    """``lines``, each ended by a newline."""
    return "\n".join(lines) + "\n" if lines else ""


# ------------------------------------------------------------------ named entity summary
NE_SUMMARY_RULE = "-" * 105
NE_SUMMARY_HEADER = (
    f"{'TAG':<11}{'TYPE':<5}{'TEXT':<5}{'KEY_TYPE':<13}{'RSP_TYPE':<13}{'KEY_TEXT':<50}RSP_TEXT"
)


def _ne_fill(slot: SlotPair | None, side: str) -> tuple[str, str]:
    """(verdict, text) of a slot's chosen single fill on one side ("key" or "response"): the
    first fill that is tallied, else the first one (an optional object's)."""
    if slot is None:
        return "", ""
    fallback: tuple[str, str] = ("", "")
    for fill in slot.fills:
        value = fill.key if side == "key" else fill.response
        if value is None:
            continue
        if fill.status != "non":
            return fill.status, value.text
        if not fallback[1]:
            fallback = (fill.status, value.text)
    return fallback


class _NeSummaryWriter:
    """The named entity report summary lines of a corpus's documents (see
    :func:`_ne_summary_texts`), each distinct line made once.

    A line depends only on the pair's slot records, class, sides and status: lines are kept by
    the identity of the pair's list of records (which the aligner shares between equal pairs)
    with the class, sides and status; each slot record's chosen fills by the record's
    identity.  Each entry holds the record it is keyed by, so the identity stays its own."""

    def __init__(self, type_slot: str, text_slot: str) -> None:
        self.type_name, self.text_name = type_slot.lower(), text_slot.lower()
        self.lines: dict[tuple[object, ...], tuple[list[SlotPair], str]] = {}
        self.fills: dict[int, tuple[SlotPair, tuple[str, str], tuple[str, str]]] = {}
        """Each slot record's chosen (verdict, text) on the key and response sides."""

    def slot_fills(self, slot: SlotPair | None) -> tuple[tuple[str, str], tuple[str, str]]:
        if slot is None:
            return ("", ""), ("", "")
        known = self.fills.get(id(slot))
        if known is None:
            known = self.fills[id(slot)] = (
                slot,
                _ne_fill(slot, "key"),
                _ne_fill(slot, "response"),
            )
        return known[1], known[2]

    def line(self, pair: ObjectPair) -> str:
        """The report summary line of one object pair."""
        type_pair = text_pair = None
        for slot in pair.slots:
            name = slot.definition.name.lower()
            if name == self.type_name:
                type_pair = slot
            if name == self.text_name:
                text_pair = slot
        obj = pair.key if pair.key is not None else pair.response
        assert obj is not None
        (type_status, key_type), (rsp_type_status, rsp_type) = self.slot_fills(type_pair)
        (text_status, key_text), (rsp_text_status, rsp_text) = self.slot_fills(text_pair)
        if pair.key is None:
            type_status, text_status = rsp_type_status, rsp_text_status
        elif pair.response is None and pair.status == "non":
            type_status = text_status = "opt"
        return (  # str.ljust: the f-string's "<11" padding, at half the cost
            obj.class_name.upper().ljust(11)
            + (type_status or "non").ljust(5)
            + (text_status or "non").ljust(5)
            + key_type.ljust(13)
            + rsp_type.ljust(13)
            + f'"{key_text}"'.ljust(50)
            + f'"{rsp_text}"'
        )

    def document(self, alignment: DocumentAlignment) -> list[str]:
        """One document's lines: aligned pairs (class order), then missing and optional key
        objects, then spurious responses."""
        lines = self.lines
        aligned: list[str] = []
        missing: list[str] = []
        spurious: list[str] = []
        add_aligned = aligned.append
        for cls in alignment.classes:
            for pair in cls.pairs:
                key, rsp, records = pair.key, pair.response, pair.slots
                signature: tuple[object, ...]
                if key is not None and rsp is not None:
                    signature = (id(records), key.class_name, pair.status)
                    known = lines.get(signature)
                    if known is None:
                        known = lines[signature] = (records, self.line(pair))
                    add_aligned(known[1])
                    continue
                owner = key if key is not None else rsp
                assert owner is not None
                signature = (id(records), owner.class_name, key is None, pair.status)
                known = lines.get(signature)
                if known is None:
                    known = lines[signature] = (records, self.line(pair))
                (missing if key is not None else spurious).append(known[1])
        return [*aligned, *missing, *spurious]


def _ne_summary_texts(details: MucDetails) -> Iterator[str]:
    """The named entity report summary (the manual's "Named Entity Report Summaries")
    document by document: per document a rule, its number, the column header and a rule,
    then aligned pairs (class order), missing and optional key objects, and spurious
    responses.

    Columns: tag (11), TYPE and TEXT verdicts (5 each, lower case), key and response TYPE (13
    each), key TEXT (50, quoted) and response TEXT (quoted).  The key TEXT shown is the
    alternative the response was compared with.  Verdicts are the scored ones (the scorer's
    string comparison), ``opt`` for an optional key object left unaligned."""
    written(details)
    config = details.config
    # its lines kept through a worker's chunks, as one run keeps them for every document
    writer = kept_per_process(
        "named entity summary",
        config,
        lambda: _NeSummaryWriter(config.value("sgml_type_slot"), config.value("sgml_text_slot")),
    )
    for alignment in details.documents:
        yield _lines(
            [
                NE_SUMMARY_RULE,
                f"Document {alignment.document}",
                NE_SUMMARY_HEADER,
                NE_SUMMARY_RULE,
                *writer.document(alignment),
            ]
        )


# ------------------------------------------------------------------ coreference
def _tenths(numerator: float, denominator: float) -> int | None:
    """``round_half_up(1000 * numerator / denominator)``: a percentage in tenths (exact for
    whole numbers), None when the denominator is 0."""
    if not denominator:
        return None
    if isinstance(numerator, int) and isinstance(denominator, int):
        return (2000 * numerator + denominator) // (2 * denominator)
    import math

    return math.floor(1000 * numerator / denominator + 0.5)


def _shown(tenths: int | None, width: int, undefined: str = "*") -> str:
    if tenths is None:
        return f"{undefined:>{width}}" if undefined == "*" else f"{0:>{width}.1f}"
    return f"{tenths / 10:>{width}.1f}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def coref_row(
    label: str, counts: Counts, metric: str = "muc", totals: bool = False, undefined: str = "*"
) -> str:
    """One line of the coreference score report (a document's, or the TOTALS line).

    Columns: document number (17), key and response classes (4 and 6), recall as
    ``num / den`` and percent (one decimal, half up), precision likewise, F (equal weights).
    F is ``2 num / (recall den + precision den)`` when the numerators are equal (MUC: exact);
    ``undefined`` (``*``, or ``0``: 0.0) marks an undefined value, F only where recall or
    precision is (the report's own rule).  The TOTALS line adds ``%`` after each
    percentage."""
    r_num, r_den = counts[f"{metric}_recall_num"], counts[f"{metric}_recall_den"]
    p_num, p_den = counts[f"{metric}_precision_num"], counts[f"{metric}_precision_den"]
    recall, precision = _tenths(r_num, r_den), _tenths(p_num, p_den)
    f: int | None
    if recall is None or precision is None:
        f = None
    elif r_num == p_num and isinstance(r_num, int) and isinstance(r_den, int):
        f = _tenths(2 * r_num, int(r_den) + int(p_den)) if r_num else 0
    else:
        r, p = r_num / r_den, p_num / p_den
        f = _tenths(2 * r * p, r + p) if r + p else 0
    pct = "%" if totals else ""
    width = 6 if totals else 7
    return (
        f"{label:<17}{int(counts['key_classes']):>4}{int(counts['response_classes']):>6}"
        f"{_number(r_num):>8} / {_number(r_den):<4}{_shown(recall, 7, undefined)}{pct}"
        f"{_number(p_num):>{10 - len(pct)}} / {_number(p_den):<4}"
        f"{_shown(precision, 7, undefined)}{pct}{_shown(f, width, undefined)}{pct}"
    )


COREF_HEADER = (
    "                  Key   Rsp\n"
    "Document No.      Cls   Cls           Recall                  Precision       f\n"
)


def coref_score_report(
    result: Result, document_rows: bool = True, metric: str | None = None
) -> str:
    """The coreference score report: a line per document and the TOTALS line (the manual's
    "Coreference Score Report"), for ``metric`` (default: the first scored, MUC unless
    ``--metric`` says otherwise; BLANC, which has two sets of counts, has no such table; other
    metrics' numerators are sums of fractions, printed with 2 decimals); an undefined value
    prints :func:`undefined_shown`."""
    from annoscore.metrics.muc_coref import metrics_of

    if metric is None:
        metric = next((m for m in metrics_of(result.counts) if m != "blanc"), None)
    if metric is None:
        return "No coreference score table for BLANC alone (see --format json).\n"
    undefined = undefined_shown(result)
    lines = [COREF_HEADER]
    if document_rows:
        for doc, counts in result.document_counts().items():
            lines.append(coref_row(doc, counts, metric, undefined=undefined))
    lines.append("")
    lines.append(coref_row("TOTALS:", result.matrix.total(), metric, True, undefined))
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return '"' + text.replace("\n", " ") + '"'


def _coref_summary_texts(details: MucDetails) -> Iterator[str]:
    """The coreference report summary document by document: per document, ``COR`` lines
    (aligned key and response markables), then ``MIS`` (key only), ``SPU`` (response only) and
    ``OPT`` (optional key markables left unaligned), each in text order, with the key and
    response text quoted."""
    written(details)
    assert details.coref is not None
    for alignment in details.coref:
        out = [f"Document {alignment.document}"]
        by_id = {m.id: m for m in alignment.response}
        removed = {m.id for m in alignment.removed}
        mapped = set(alignment.key_to_response.values())
        for m in alignment.key:
            if m.id in alignment.key_to_response:
                rsp = by_id[alignment.key_to_response[m.id]]
                out.append(f"COR {_quoted(m.text)} {_quoted(rsp.text)}")
        out.extend(
            f'MIS {_quoted(m.text)} ""'
            for m in alignment.key
            if m.id not in alignment.key_to_response and m.id not in removed
        )
        out.extend(f'SPU "" {_quoted(m.text)}' for m in alignment.response if m.id not in mapped)
        out.extend(f'OPT {_quoted(m.text)} ""' for m in alignment.removed)
        yield _lines(out)


PARTITION_KEY_RULE = "*" * 52
PARTITION_RESPONSE_RULE = "=" * 52


def partition_blocks(alignment: CorefAlignment) -> list[str]:
    """The partition file lines of one document (see :func:`partition_file`)."""
    lines: list[str] = []
    response_to_key = alignment.response_to_key
    for side, classes, other, rule in (
        ("key", alignment.key_classes, alignment.key_to_response, PARTITION_KEY_RULE),
        ("response", alignment.response_classes, response_to_key, PARTITION_RESPONSE_RULE),
    ):
        owner: dict[str, int] = {}
        for index, cls in enumerate(
            alignment.response_classes if side == "key" else alignment.key_classes
        ):
            for m in cls:
                owner[m.id] = index
        for cls in classes:
            parts: dict[int, list[str]] = {}
            missing: list[list[str]] = []
            for m in cls:
                head = f"{m.start} {max(m.end - 1, m.start)} {m.id} {m.ref_shown}"
                partner = other.get(m.id)
                if partner is None or partner not in owner:
                    missing.append([f"M {head} {_quoted(m.text)}"])
                else:
                    parts.setdefault(owner[partner], []).append(
                        f"C {head} {partner} {_quoted(m.text)}"
                    )
            lines.append(rule)
            for part in [*parts.values(), *missing]:
                lines.append("")
                lines.extend(part)
            lines.extend(["", rule, ""])
    return lines


def partition_file(details: MucDetails) -> str:
    """The coreference partition file: per document, each key class between lines of ``*``,
    then each response class between lines of ``=``.  Within a class the markables are grouped
    by the class of the other side they fall in ("breaks" are blank lines); a ``C`` line is
    ``C start end id ref other-id "text"`` (``end`` is the offset of the last character, as on
    the manual's page; ``ref`` is ``NULL`` when there is none), an ``M`` line (no partner on the
    other side, each a part of its own, after the others) has no other id."""
    assert details.coref is not None
    return "".join(partition_texts(details))


def partition_texts(details: MucDetails) -> Iterator[str]:
    """The partition file document by document (:func:`partition_file` joins them)."""
    assert details.coref is not None
    if details.rendered is not None:
        yield from details.rendered.strings("partitions")
        return
    for alignment in details.coref:
        yield _lines([f"Document {alignment.document}", "", *partition_blocks(alignment)])


def rendered(kinds: Collection[str]) -> Callable[[MucDetails], dict[str, Iterator[str]]]:
    """What a chunk of ``annoscore muc --jobs N`` writes of its details
    (:func:`annoscore.tasks.muc_chunks.rendering`): the reports of ``kinds`` (``summary``,
    ``history``, ``partitions``), each a text per document, made one after another as they
    are read (a chunk writes each to its file as it comes: the texts of its documents are
    never held together)."""
    chosen = tuple(kinds)
    for kind in chosen:
        if kind not in ("summary", "history", "partitions"):
            raise ValueError(f"no MUC report {kind!r}")

    def render(details: MucDetails) -> dict[str, Iterator[str]]:
        from annoscore.report.muc_history import history_texts

        texts: dict[str, Iterator[str]] = {}
        for kind in chosen:
            if kind == "summary":
                texts[kind] = summary_texts(details)
            elif kind == "history":
                texts[kind] = history_texts(details)
            elif details.coref is not None:  # partitions: coreference's only
                texts[kind] = partition_texts(details)
        return texts

    return render


def encoded_pieces(
    details: MucDetails, kind: str, head: str = "", tail: str = ""
) -> Iterator[bytes | FileBytes]:
    """The documents' texts of ``kind`` written by the chunks, as the bytes of an output file
    (UTF-8, a lone surrogate written as ``\\udcff``, as every output is), after ``head`` and
    before ``tail``: the stretches of the chunks' files, as they are, for the writer to copy
    (:meth:`~annoscore.scale.spool.Spooled.encoded`); :class:`ValueError` when the details
    hold the alignments instead."""
    yield head.encode()
    if details.rendered is None:
        raise ValueError("the reports of this MUC result were not written by its chunks")
    yield from details.rendered.of(kind).encoded()
    yield tail.encode()
