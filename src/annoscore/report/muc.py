"""The MUC scorer's reports, in the seed manual's layouts.

- :func:`score_report`: one page per document and a totals page, each with TEXT FILTERING (ST),
  OBJ SCORES, SLOT SCORES, ALL SLOTS and F-MEASURES (P&R, 2P&R, P&2R).  Columns
  ``POS ACT| COR PAR INC | MIS SPU NON| REC PRE UND OVG SUB ERR``: a 12-character name, POS and
  ACT ``%6d``, COR ``%4d`` PAR ``%4d`` INC ``%5d``, MIS ``%4d`` SPU ``%5d`` NON ``%5d``, then six
  percentages ``%4d`` rounded half up (exactly, from the integer tallies).  An undefined
  percentage prints ``*`` (decision 5); ``undefined="0"`` prints 0 as the manual's pages do.
  Pages are separated by a form feed.
- :func:`report_summary`: the information-extraction report summary: an upper-case line per
  object pair (``COR``/``MIS``/``SPU``/``OPT``), a lower-case line per single fill (``cor inc
  par mis spu opt uns rem non``), four fields separated by ``:report_field_separator``.
- :func:`map_history` / :func:`map_history_tcl`: the manual's nested attribute/value list
  (``-docnum``, ``-class_pairs``, ``-obj_pairs``, ``-slot_pairs``, ``-single_fill_pairs`` ...),
  as Python data (JSON) and as a Tcl-style list.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from annoscore.align.muc import COUNTED, DocumentAlignment, ObjectPair, SlotPair
from annoscore.align.muc_coref import CorefAlignment
from annoscore.counts import Counts
from annoscore.formats.muc_config import MucConfig
from annoscore.metrics.muc import tally_of
from annoscore.metrics.tallies import TALLY_NAMES, Tally
from annoscore.model import TemplateFill
from annoscore.result import Result


@dataclass(slots=True)
class MucDetails:
    """What the official layouts need beyond scores and counts (filled by the MUC preset)."""

    config: MucConfig
    documents: list[DocumentAlignment]
    key_path: Path
    response_path: Path
    pairs_scored: int = 0
    """Candidate key/response pairs scored during alignment (see :mod:`annoscore.align.muc`)."""
    coref: list[CorefAlignment] | None = None
    """Coreference: each document's markables, classes and alignment (else None)."""
    section_rows: tuple[str, ...] = ()
    """Named entity: the SECT SCORES row names (groups, else sections)."""
    subtasks: tuple[tuple[str, str, str], ...] = ()
    """Named entity: the SUBTASK SCORES rows ``(class, slot, value)``."""


RULE = "-" * 78
HEADER = "               POS   ACT| COR PAR INC | MIS  SPU  NON| REC PRE UND OVG SUB ERR"
SPLIT = "-" * 24 + "+" + "-" * 13 + "+" + "-" * 14 + "+" + "-" * 24
_BLANK = " " * 13 + "|" + " " * 14 + "|"


def _percent(twice_num: int, twice_den: int, undefined: str) -> str:
    """``round_half_up(100 * num / den)`` computed exactly, as ``%4d``."""
    if twice_den == 0:
        return f"{undefined:>4}"
    return f"{(200 * twice_num + twice_den) // (2 * twice_den):4d}"


def score_row(label: str, t: Tally, undefined: str = "*") -> str:
    """One score report row (see the module docstring)."""
    counted = t.cor + t.par + t.inc
    ratios = (
        (2 * t.cor + t.par, 2 * t.pos),
        (2 * t.cor + t.par, 2 * t.act),
        (2 * t.mis, 2 * t.pos),
        (2 * t.spu, 2 * t.act),
        (2 * t.inc + t.par, 2 * counted),
        (2 * t.inc + t.par + 2 * t.mis + 2 * t.spu, 2 * (counted + t.mis + t.spu)),
    )
    return (
        f"{label[:12]:<12}{t.pos:6d}{t.act:6d}|{t.cor:4d}{t.par:4d}{t.inc:5d}|"
        f"{t.mis:4d}{t.spu:5d}{t.non:5d}|" + "".join(_percent(n, d, undefined) for n, d in ratios)
    )


@functools.lru_cache(maxsize=1 << 16)
def _row_text(label: str, values: tuple[int, ...], undefined: str) -> str:
    return score_row(label, Tally(*values), undefined)


@functools.lru_cache(maxsize=1 << 12)
def _tally_keys(prefix: str) -> tuple[str, ...]:
    return tuple(prefix + name for name in TALLY_NAMES)


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


_PagePlan = list[str | tuple[str, tuple[str, ...]]]
"""A score page's lines before the counts: a fixed line, or a row's label and tally keys."""


def _page_plan(details: MucDetails) -> _PagePlan:
    """The lines of every score page up to the ALL SLOTS row (see :func:`score_page`)."""
    config = details.config
    plan: _PagePlan = [RULE, HEADER, SPLIT]
    if config.scoring_task == "scenario_template":
        plan.append(("TEXT FILTERING", _tally_keys("text_filter:")))
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
            plan.append((" " + value, _tally_keys(subtask_key(cls, slot, value))))
        plan.append(SPLIT)
        plan.append(_section("SECT SCORES"))
        for name in details.section_rows:
            plan.append((name, _tally_keys(f"section:{name}:")))
        plan.append(SPLIT)
    plan.append(_section("OBJ SCORES"))
    for cdef in config.class_defs:
        if cdef.scored:
            plan.append((cdef.report_name, _tally_keys(f"obj:{cdef.name.lower()}:")))
    plan.append(SPLIT)
    plan.append(_section("SLOT SCORES"))
    for cdef in config.class_defs:
        plan.append(_section(cdef.report_name[:24]))
        for sdef in config.slots_of(cdef.name):
            prefix = f"slot:{cdef.name.lower()}:{sdef.name.lower()}:"
            plan.append((" " + sdef.report_name, _tally_keys(prefix)))
    plan.append(SPLIT)
    return plan


def score_page(
    details: MucDetails, counts: Counts, undefined: str = "*", plan: _PagePlan | None = None
) -> list[str]:
    """One page of the score report for ``counts`` (a document's or the corpus's); ``plan``
    is :func:`_page_plan` of ``details`` (made once for every page of a report)."""
    if plan is None:
        plan = _page_plan(details)
    get = dict(counts.items()).get  # absent keys read as 0, as in Counts
    zeros = repeat(0)
    lines: list[str] = []
    for entry in plan:
        if isinstance(entry, str):
            lines.append(entry)
        else:
            label, keys = entry
            lines.append(_row_text(label, tuple(map(int, map(get, keys, zeros))), undefined))
    total = tally_of(counts)
    lines.append(score_row("ALL SLOTS", total, undefined))
    lines.extend(f_measure_lines(total))
    return lines


def score_report(result: Result, undefined: str = "*", document_pages: bool = True) -> str:
    """The score report: a page per document (unless ``document_pages`` is off) and the totals.

    Coreference has its own table (:func:`coref_score_report`)."""
    details = result.details
    assert isinstance(details, MucDetails)
    if details.coref is not None:
        return coref_score_report(result, document_rows=document_pages)
    pages: list[list[str]] = []
    plan = _page_plan(details)
    if document_pages:
        for doc, counts in result.document_counts().items():
            pages.append([f"Document {doc}", *score_page(details, counts, undefined, plan)])
    title = f"TOTAL SCORES ({len(result.matrix.documents)} documents)"
    pages.append([title, *score_page(details, result.counts, undefined, plan)])
    return "\f\n".join("\n".join(page) + "\n" for page in pages)


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
    """The report summary of every document: the coreference one (:func:`coref_summary`), the
    named entity one (:func:`ne_summary`), or the information-extraction one (TE, TR, ST, and
    NE or CO with ``:use_IE_report_summary`` on)."""
    details = result.details
    assert isinstance(details, MucDetails)
    if not details.config.flag("use_ie_report_summary"):
        if details.coref is not None:
            return coref_summary(details)
        if details.config.scoring_task == "named_entity":
            return ne_summary(details)
    separator = details.config.value("report_field_separator")
    lines: list[str] = []
    for alignment in details.documents:
        lines.extend(summary_lines(alignment, separator))
    return "\n".join(lines) + "\n" if lines else ""


# ------------------------------------------------------------------ map history
Node = dict[str, Any]
"""One level of the map history: attribute -> value (``None`` for a flag attribute)."""


def _tallies(t: Tally) -> list[int]:
    """possible, actual, correct, partial, incorrect, missing, spurious, noncommittal."""
    return [t.pos, t.act, t.cor, t.par, t.inc, t.mis, t.spu, t.non]


_SINGLE_TALLIES = {
    name: _tallies(Tally(**{name: 1})) for name in ("cor", "par", "inc", "mis", "spu", "non")
}
_NO_TALLY = _tallies(Tally())
_TALLY_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5, "uns": 5}
"""Position of a fill status in a (COR, PAR, INC, MIS, SPU, NON) tally (as
:meth:`annoscore.align.muc.SlotPair.tally` counts)."""


def _sgml_attributes(pair: ObjectPair) -> Node:
    """SGML tasks: ``key_obj_start_offset``, ``key_obj_end_offset`` (the key's, else the
    response's ``rsp_obj_*``; document offsets, end exclusive) and ``doc_section``."""
    out: Node = {}
    for side, obj in (("key", pair.key), ("rsp", pair.response)):
        if obj is not None and obj.start >= 0:
            out[f"{side}_obj_start_offset"] = obj.start
            out[f"{side}_obj_end_offset"] = obj.end
    owner = pair.key if pair.key is not None else pair.response
    if owner is not None and owner.section:
        out["doc_section"] = owner.section
    return out


def map_history(details: MucDetails) -> list[Node]:
    """The map history as nested attribute/value mappings (one per document)."""
    from annoscore.align.muc_strings import StringRules

    config = details.config
    rules = StringRules(
        config.items("premodifiers"),
        config.items("postmodifiers"),
        config.items("corporate_designators"),
    )
    mode = config.value("stringfill_correct_comparison")
    out: list[Node] = []
    for alignment in details.documents:
        class_nodes: list[Node] = []
        doc_total = Tally()
        for cls in alignment.classes:
            obj_nodes: list[Node] = []
            class_total = Tally()
            for pair in cls.pairs:
                slot_nodes: list[Node] = []
                pair_total = Tally()
                for slot in pair.slots:
                    tally = Tally(*slot.tally())
                    pair_total = pair_total + tally
                    kind = slot.definition.kind
                    fills: list[Node] = []
                    for fill in slot.fills:
                        node: Node = {
                            "single_fill_pair_status": fill.status,
                            "single_fill_pair_tallies": _SINGLE_TALLIES.get(
                                "non" if fill.status == "uns" else fill.status, _NO_TALLY
                            ),
                        }
                        for side, value in (("key", fill.key), ("rsp", fill.response)):
                            if value is None:
                                continue
                            single: Node = {
                                "type": "pointer" if value.is_pointer else kind,
                                "fill": value.text,
                            }
                            if kind == "string" and not value.is_pointer:
                                single["clean_fill"] = rules.normalize(value.text, mode)
                            node[f"{side}_single_fill"] = single
                        fills.append(node)
                    slot_node: Node = {
                        "slot_name": slot.definition.name,
                        "slot_tallies": _tallies(tally),
                    }
                    if slot.key is not None and slot.key.optional:
                        slot_node["key_slot_optional"] = None
                    slot_node["multi_fill_pairs"] = [
                        {
                            "key_alternative": slot.key_alternative,
                            "rsp_alternative": slot.response_alternative,
                            "multi_fill_tallies": _tallies(tally),
                            "single_fill_pairs": fills,
                        }
                    ]
                    slot_nodes.append(slot_node)
                class_total = class_total + pair_total
                obj_node: Node = {}
                if pair.key is not None:
                    obj_node["key_obj_id"] = pair.key.id
                    if pair.key.optional or pair.status == "non":
                        obj_node["key_obj_optional"] = None
                if pair.response is not None:
                    obj_node["rsp_obj_id"] = pair.response.id
                obj_node.update(_sgml_attributes(pair))
                obj_node["obj_pair_status"] = pair.status
                if pair.f_score is not None:
                    obj_node["f_score"] = f"{pair.f_score:.2f}"
                obj_node["obj_pair_tallies"] = _tallies(pair_total)
                obj_node["slot_pairs"] = slot_nodes
                obj_nodes.append(obj_node)
            doc_total = doc_total + class_total
            class_nodes.append(
                {
                    "class_name": cls.definition.name,
                    "class_tallies": _tallies(class_total),
                    "obj_pairs": obj_nodes,
                }
            )
        doc_node: Node = {"docnum": alignment.document, "doctallies": _tallies(doc_total)}
        if alignment.text_filter is not None:
            doc_node["text_filter"] = alignment.text_filter
        doc_node["class_pairs"] = class_nodes
        out.append(doc_node)
    return out


def to_json(value: Any) -> Any:
    """Mappings stay objects (a flag attribute becomes ``true``), lists stay lists."""
    if isinstance(value, dict):
        return {name: True if v is None else to_json(v) for name, v in value.items()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    return value


_SPECIAL = re.compile(r"([\s{}\[\]$\"\\;])")


_TCL_SPECIAL = frozenset(
    '{}[]$"\\;\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005'
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""The characters a plain Tcl word (written as it is) may not hold: the specials and every
whitespace character (``str.isspace``, what ``\\s`` matches)."""


def _tcl_word(text: str) -> str:
    if text and _TCL_SPECIAL.isdisjoint(text):  # plain (a set test: C speed)
        return text
    depth = 0
    balanced = True
    for char in text:
        depth += char == "{"
        depth -= char == "}"
        if depth < 0:
            balanced = False
    if balanced and depth == 0 and not text.endswith("\\"):
        return "{" + text + "}"
    return _SPECIAL.sub(r"\\\1", text)


def _tcl(value: Any, out: list[str]) -> None:
    """Append the Tcl words of ``value`` to ``out`` (one pass, no intermediate strings)."""
    if isinstance(value, dict):
        out.append("{")
        first = True
        for name, v in value.items():
            out.append("-" + name if first else " -" + name)
            first = False
            if v is not None:
                out.append(" ")
                _tcl(v, out)
        out.append("}")
    elif isinstance(value, list):
        out.append("{")
        for index, v in enumerate(value):
            if index:
                out.append(" ")
            _tcl(v, out)
        out.append("}")
    elif isinstance(value, int):
        out.append(str(value))
    else:
        out.append(_tcl_word(str(value)))


def to_tcl(value: Any) -> str:
    """The Tcl words of a map history node (mappings as ``{-name value ...}``, lists as
    ``{item ...}``, a ``None`` value as a flag attribute)."""
    out: list[str] = []
    _tcl(value, out)
    return "".join(out)


def _tcl_tallies(t: Sequence[int]) -> str:
    """``{possible actual correct partial incorrect missing spurious noncommittal}`` of a
    ``(cor, par, inc, mis, spu, non)`` tally."""
    cor, par, inc, mis, spu, non = t
    counted = cor + par + inc
    return f"{{{counted + mis} {counted + spu} {cor} {par} {inc} {mis} {spu} {non}}}"


_TCL_FILL_HEADS = {
    status: f"{{-single_fill_pair_status {status} -single_fill_pair_tallies "
    + _tcl_tallies(tuple(int(name == ("non" if status == "uns" else status)) for name in COUNTED))
    for status in ("cor", "par", "inc", "mis", "spu", "non", "uns", "opt", "rem")
}
"""The start of a single fill pair node for each status (``uns`` tallies as NON; ``opt`` and
``rem`` tally nothing)."""


class _TclHistoryWriter:
    """Writes :func:`map_history` as Tcl straight from the alignment records, with the same
    text as :func:`to_tcl` of the nested mappings (a test holds them equal); each distinct
    single fill is written once and reused."""

    def __init__(self, details: MucDetails) -> None:
        from annoscore.align.muc_strings import StringRules

        config = details.config
        self.rules = StringRules(
            config.items("premodifiers"),
            config.items("postmodifiers"),
            config.items("corporate_designators"),
        )
        self.mode = config.value("stringfill_correct_comparison")
        self.fills: dict[tuple[str, bool], dict[str, str]] = {}
        """Each single fill written, by (slot kind, pointer or not) and text."""
        self.tallies: dict[tuple[int, ...], str] = {}
        self.names: dict[str, str] = {}
        self.empty_slots: dict[tuple[str, int, int, int, bool], str] = {}
        """Each slot text without fills, by what it shows."""
        self.single_slots: dict[
            tuple[object, ...], tuple[str, tuple[int, int, int, int, int, int]]
        ] = {}
        """Each slot text with one single fill pair, and its tally, by what it shows."""
        self.by_records: dict[
            int, tuple[list[SlotPair], str, tuple[int, int, int, int, int, int], str]
        ] = {}
        """Each ``-slot_pairs`` list, tally and the end of a pair's node (``-obj_pair_tallies
        ... -slot_pairs {...}}``) written, by the identity of the pair's list of slot records
        (the named entity aligner shares the list of equal pairs; the entry holds it)."""
        self.words: dict[str, str] = {}
        """Sections and statuses as Tcl words."""
        self.places: dict[str, str] = {}
        """The ``-doc_section`` attribute of each section (none for no section)."""
        self.scores: dict[float, str] = {}
        """Each ``-f_score`` written, by its value."""

    def single_fill(self, kind: str, fill: TemplateFill) -> str:
        written = self.fills.get((kind, fill.is_pointer))
        if written is None:
            written = self.fills[kind, fill.is_pointer] = {}
        text = written.get(fill.text)
        if text is None:
            word = _tcl_word(fill.text)
            if fill.is_pointer:
                text = f"{{-type pointer -fill {word}}}"
            elif kind == "string":
                clean = _tcl_word(self.rules.normalize(fill.text, self.mode))
                text = f"{{-type string -fill {word} -clean_fill {clean}}}"
            else:
                text = f"{{-type {_tcl_word(kind)} -fill {word}}}"
            written[fill.text] = text
        return text

    def slot(self, slot: SlotPair, tally: tuple[int, int, int, int, int, int]) -> str:
        kind = slot.definition.kind
        fills: list[str] = []
        for fill in slot.fills:
            status = fill.status
            head = _TCL_FILL_HEADS.get(status)
            if head is None:
                head = (
                    f"{{-single_fill_pair_status {_tcl_word(status)} -single_fill_pair_tallies "
                    + _tcl_tallies((0, 0, 0, 0, 0, 0))
                )
            if fill.key is not None:
                head += " -key_single_fill " + self.single_fill(kind, fill.key)
            if fill.response is not None:
                head += " -rsp_single_fill " + self.single_fill(kind, fill.response)
            fills.append(head + "}")
        tallies = self.tcl_tallies(tally)
        name = self.names.get(slot.definition.name)
        if name is None:
            name = self.names[slot.definition.name] = _tcl_word(slot.definition.name)
        optional = " -key_slot_optional" if slot.key is not None and slot.key.optional else ""
        return (
            f"{{-slot_name {name} -slot_tallies {tallies}{optional}"
            f" -multi_fill_pairs {{{{-key_alternative {slot.key_alternative}"
            f" -rsp_alternative {slot.response_alternative} -multi_fill_tallies {tallies}"
            f" -single_fill_pairs {{{' '.join(fills)}}}}}}}}}"
        )

    def single_fill_slot(self, slot: SlotPair) -> tuple[str, tuple[int, int, int, int, int, int]]:
        """The text and tally of a slot with exactly one single fill pair, each distinct one
        written once (most slots of a corpus: a named entity's TYPE and TEXT)."""
        fill = slot.fills[0]
        key, rsp = fill.key, fill.response
        key_slot = slot.key
        signature = (
            slot.definition.name,
            slot.definition.kind,
            fill.status,
            None if key is None else key.text,
            key is not None and key.is_pointer,
            None if rsp is None else rsp.text,
            rsp is not None and rsp.is_pointer,
            slot.key_alternative,
            slot.response_alternative,
            key_slot is not None and key_slot.optional,
            slot.slot_non,
        )
        written = self.single_slots.get(signature)
        if written is None:
            tally = [0, 0, 0, 0, 0, slot.slot_non]
            index = _TALLY_INDEX.get(fill.status)
            if index is not None:
                tally[index] += 1
            counted = (tally[0], tally[1], tally[2], tally[3], tally[4], tally[5])
            written = self.single_slots[signature] = (self.slot(slot, counted), counted)
        return written

    def slot_pairs(
        self, records: Sequence[SlotPair]
    ) -> tuple[str, tuple[int, int, int, int, int, int]]:
        """The ``-slot_pairs`` list of an object pair's slot records and the pair's tally."""
        empty_slots = self.empty_slots
        single_fill_slot = self.single_fill_slot
        slots: list[str] = []
        c = p = n = m = u = o = 0
        for slot in records:
            fills = slot.fills
            if not fills:  # no single fill: only the slot's own NON, if any
                key_slot = slot.key
                signature = (
                    slot.definition.name,
                    slot.slot_non,
                    slot.key_alternative,
                    slot.response_alternative,
                    key_slot is not None and key_slot.optional,
                )
                written = empty_slots.get(signature)
                if written is None:
                    tally = (0, 0, 0, 0, 0, slot.slot_non)
                    written = empty_slots[signature] = self.slot(slot, tally)
                o += slot.slot_non
                slots.append(written)
                continue
            if len(fills) == 1:
                written, tally = single_fill_slot(slot)
            else:
                tally = slot.tally()
                written = self.slot(slot, tally)
            c += tally[0]
            p += tally[1]
            n += tally[2]
            m += tally[3]
            u += tally[4]
            o += tally[5]
            slots.append(written)
        return " ".join(slots), (c, p, n, m, u, o)

    def document(self, alignment: DocumentAlignment, out: list[str]) -> None:
        """Append one document's node to ``out``, as pieces (the caller joins the whole file
        once): a few pieces per object pair, the repeated parts (slot lists, tallies, F
        scores, sections, statuses) each written once and reused."""
        tcl_tallies = self.tcl_tallies
        by_records = self.by_records
        plain = _TCL_SPECIAL.isdisjoint  # what _tcl_word writes as it is (with text)
        words = self.words
        places = self.places
        scores = self.scores
        append = out.append
        doc_head = len(out)
        append("")  # the document's head, once its tallies are known
        doc_total = [0, 0, 0, 0, 0, 0]
        for number, cls in enumerate(alignment.classes):
            class_head = len(out)
            append("")  # the class's head, once its tallies are known
            c_total = p_total = n_total = m_total = u_total = o_total = 0
            separator = "{"
            for pair in cls.pairs:
                records = pair.slots  # a list shared by pairs of equal slots (ObjectPair)
                known = by_records.get(id(records))
                if known is None:  # (the entry holds the list: its id stays its own)
                    slots_text, tally = self.slot_pairs(records)
                    closing = (
                        f" -obj_pair_tallies {tcl_tallies(tally)} -slot_pairs {{{slots_text}}}}}"
                    )
                    known = by_records[id(records)] = (records, slots_text, tally, closing)
                _, slots_text, tally, closing = known
                c, p, n, m, u, o = tally
                c_total += c
                p_total += p
                n_total += n
                m_total += m
                u_total += u
                o_total += o
                key, rsp = pair.key, pair.response
                status = pair.status
                if (
                    key is not None
                    and rsp is not None
                    and key.start >= 0
                    and rsp.start >= 0
                    and pair.f_score is not None
                ):  # an aligned pair of an SGML task (most pairs): one f-string
                    place = places.get(key.section)
                    if place is None:
                        place = places[key.section] = (
                            " -doc_section " + _tcl_word(key.section) if key.section else ""
                        )
                    shown = words.get(status)
                    if shown is None:
                        shown = words[status] = _tcl_word(status)
                    score = scores.get(pair.f_score)
                    if score is None:
                        score = scores[pair.f_score] = f" -f_score {pair.f_score:.2f}"
                    optional = " -key_obj_optional" if key.optional or status == "non" else ""
                    key_id, rsp_id = key.id, rsp.id
                    if not (key_id and plain(key_id)):
                        key_id = _tcl_word(key_id)
                    if not (rsp_id and plain(rsp_id)):
                        rsp_id = _tcl_word(rsp_id)
                    append(
                        f"{separator}{{-key_obj_id {key_id}{optional} -rsp_obj_id {rsp_id} "
                        f"-key_obj_start_offset {key.start} -key_obj_end_offset {key.end} "
                        f"-rsp_obj_start_offset {rsp.start} -rsp_obj_end_offset {rsp.end}{place}"
                        f" -obj_pair_status {shown}{score}"
                    )
                    append(closing)
                    separator = " "
                    continue
                head = separator
                if key is not None:
                    head += "{-key_obj_id " + _tcl_word(key.id)
                    if key.optional or status == "non":
                        head += " -key_obj_optional"
                    if rsp is not None:
                        head += " -rsp_obj_id " + _tcl_word(rsp.id)
                elif rsp is not None:
                    head += "{-rsp_obj_id " + _tcl_word(rsp.id)
                else:
                    head += "{"
                owner = key if key is not None else rsp
                if owner is not None and owner.start >= 0:  # SGML tasks: where it is
                    if key is not None and key.start >= 0:
                        head += f" -key_obj_start_offset {key.start} -key_obj_end_offset {key.end}"
                    if rsp is not None and rsp.start >= 0:
                        head += f" -rsp_obj_start_offset {rsp.start} -rsp_obj_end_offset {rsp.end}"
                    if owner.section:
                        section = words.get(owner.section)
                        if section is None:
                            section = words[owner.section] = _tcl_word(owner.section)
                        head += " -doc_section " + section
                shown = words.get(status)
                if shown is None:
                    shown = words[status] = _tcl_word(status)
                score = ""
                if pair.f_score is not None:
                    score = scores.get(pair.f_score)
                    if score is None:
                        score = scores[pair.f_score] = f" -f_score {pair.f_score:.2f}"
                if head[-1] != "{":
                    head += " "
                append(
                    f"{head}-obj_pair_status {shown}{score} -obj_pair_tallies "
                    f"{tcl_tallies(tally)} -slot_pairs {{"
                )
                append(slots_text)
                append("}}")
                separator = " "
            if separator == "{":  # no pair
                append("{")
            append("}}")
            class_total = (c_total, p_total, n_total, m_total, u_total, o_total)
            for i in range(6):
                doc_total[i] += class_total[i]
            out[class_head] = (
                f"{' ' if number else ''}{{-class_name {_tcl_word(cls.definition.name)} "
                f"-class_tallies {_tcl_tallies(class_total)} -obj_pairs "
            )
        if not alignment.classes:
            append("{")
        append("}}")
        text_filter = ""
        if alignment.text_filter is not None:
            text_filter = " -text_filter " + _tcl_word(alignment.text_filter)
        out[doc_head] = (
            f"{{-docnum {_tcl_word(alignment.document)} -doctallies {_tcl_tallies(doc_total)}"
            f"{text_filter} -class_pairs " + ("{" if alignment.classes else "")
        )

    def tcl_tallies(self, tally: tuple[int, int, int, int, int, int]) -> str:
        """:func:`_tcl_tallies`, each distinct tally written once."""
        written = self.tallies.get(tally)
        if written is None:
            written = self.tallies[tally] = _tcl_tallies(tally)
        return written


def map_history_tcl(details: MucDetails) -> str:
    """The map history as one Tcl-style list, one document per line (the text of
    :func:`to_tcl` of each :func:`map_history` document, written straight from the records)."""
    return "".join(map_history_chunks(details))


def map_history_chunks(details: MucDetails, documents: int = 50) -> Iterator[str]:
    """:func:`map_history_tcl` in pieces of ``documents`` documents (a named entity corpus's
    map history is some 130 MB: written piece by piece, it is never held whole)."""
    writer = _TclHistoryWriter(details)
    out: list[str] = ["{\n"]
    for number, alignment in enumerate(details.documents, 1):
        writer.document(alignment, out)
        out.append("\n")
        if number % documents == 0:
            yield "".join(out)
            out = []
    out.append("}\n")
    yield "".join(out)


def render_json_result(result: Result) -> str:
    """The cli.md JSON of ``result`` (with the map history when ``extra`` carries it)."""
    from annoscore.report.generic import render_json

    return render_json(result)


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


def ne_summary_lines(
    alignment: DocumentAlignment,
    type_slot: str,
    text_slot: str,
    written: dict[tuple[object, ...], tuple[int, str]] | None = None,
) -> list[str]:
    """One document of the named entity report summary: aligned pairs (class order), then
    missing and optional key objects, then spurious responses.

    Columns: tag (11), TYPE and TEXT verdicts (5 each, lower case), key and response TYPE (13
    each), key TEXT (50, quoted) and response TEXT (quoted).  The key TEXT shown is the
    alternative the response was compared with.  Verdicts are the scored ones (the scorer's
    string comparison), ``opt`` for an optional key object left unaligned.

    A line depends only on the pair's slot records, class, sides and status: ``written``
    (pass one dict for every document of a corpus, while its alignments are alive: it is keyed
    by the identity of the pair's list of records, which the aligner shares between equal
    pairs) keeps each distinct line, made once."""
    groups: tuple[list[str], list[str], list[str]] = ([], [], [])
    type_name, text_name = type_slot.lower(), text_slot.lower()
    if written is None:
        written = {}
    for cls in alignment.classes:
        for pair in cls.pairs:
            signature = (
                id(pair.slots),  # a list shared by pairs of equal slots (ObjectPair)
                (pair.key or pair.response).class_name,  # type: ignore[union-attr]
                pair.key is None,
                pair.response is None,
                pair.status,
            )
            known = written.get(signature)
            if known is not None:
                groups[known[0]].append(known[1])
                continue
            slots = {s.definition.name.lower(): s for s in pair.slots}
            obj = pair.key if pair.key is not None else pair.response
            assert obj is not None
            type_pair, text_pair = slots.get(type_name), slots.get(text_name)
            type_status, key_type = _ne_fill(type_pair, "key")
            text_status, key_text = _ne_fill(text_pair, "key")
            rsp_type_status, rsp_type = _ne_fill(type_pair, "response")
            rsp_text_status, rsp_text = _ne_fill(text_pair, "response")
            if pair.key is None:
                type_status, text_status = rsp_type_status, rsp_text_status
                group = 2
            elif pair.response is None:
                group = 1
                if pair.status == "non":
                    type_status = text_status = "opt"
            else:
                group = 0
            tag = obj.class_name.upper()
            line = (
                f"{tag:<11}{type_status or 'non':<5}{text_status or 'non':<5}{key_type:<13}"
                f'{rsp_type:<13}{chr(34) + key_text + chr(34):<50}"{rsp_text}"'
            )
            written[signature] = (group, line)
            groups[group].append(line)
    return [*groups[0], *groups[1], *groups[2]]


def ne_summary(details: MucDetails) -> str:
    """The named entity report summary (the manual's "Named Entity Report Summaries")."""
    config = details.config
    type_slot, text_slot = config.value("sgml_type_slot"), config.value("sgml_text_slot")
    out: list[str] = []
    written: dict[tuple[object, ...], tuple[int, str]] = {}
    for alignment in details.documents:
        out.extend(
            [
                NE_SUMMARY_RULE,
                f"Document {alignment.document}",
                NE_SUMMARY_HEADER,
                NE_SUMMARY_RULE,
                *ne_summary_lines(alignment, type_slot, text_slot, written),
            ]
        )
    return "\n".join(out) + "\n" if out else ""


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


def _shown(tenths: int | None, width: int) -> str:
    return f"{'*':>{width}}" if tenths is None else f"{tenths / 10:>{width}.1f}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def coref_row(label: str, counts: Counts, metric: str = "muc", totals: bool = False) -> str:
    """One line of the coreference score report (a document's, or the TOTALS line).

    Columns: document number (17), key and response classes (4 and 6), recall as
    ``num / den`` and percent (one decimal, half up), precision likewise, F (equal weights).
    F is ``2 num / (recall den + precision den)`` when the numerators are equal (MUC: exact);
    ``*`` marks an undefined value.  The TOTALS line adds ``%`` after each percentage."""
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
        f"{_number(r_num):>8} / {_number(r_den):<4}{_shown(recall, 7)}{pct}"
        f"{_number(p_num):>{10 - len(pct)}} / {_number(p_den):<4}{_shown(precision, 7)}{pct}"
        f"{_shown(f, width)}{pct}"
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
    metrics' numerators are sums of fractions, printed with 2 decimals)."""
    from annoscore.metrics.muc_coref import metrics_of

    if metric is None:
        metric = next((m for m in metrics_of(result.counts) if m != "blanc"), None)
    if metric is None:
        return "No coreference score table for BLANC alone (see --format json).\n"
    lines = [COREF_HEADER]
    if document_rows:
        for doc, counts in result.document_counts().items():
            lines.append(coref_row(doc, counts, metric))
    lines.append("")
    lines.append(coref_row("TOTALS:", result.matrix.total(), metric, totals=True))
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return '"' + text.replace("\n", " ") + '"'


def coref_summary(details: MucDetails) -> str:
    """The coreference report summary: per document, ``COR`` lines (aligned key and response
    markables), then ``MIS`` (key only), ``SPU`` (response only) and ``OPT`` (optional key
    markables left unaligned), each in text order, with the key and response text quoted."""
    assert details.coref is not None
    out: list[str] = []
    for alignment in details.coref:
        out.append(f"Document {alignment.document}")
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
    return "\n".join(out) + "\n" if out else ""


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
    out: list[str] = []
    for alignment in details.coref:
        out.append(f"Document {alignment.document}")
        out.append("")
        out.extend(partition_blocks(alignment))
    return "\n".join(out) + "\n" if out else ""
