"""The MUC scorer's map history (the manual's "Map History"): what became of every object,
slot and single fill of every document, as a nested attribute/value list.

- :func:`map_history`: as Python data (mappings and lists; JSON through :func:`to_json`);
- :func:`map_history_chunks` / :func:`map_history_tcl`: the file the scorer writes (a Tcl list,
  one document a line: mappings as ``{-name value ...}``, lists as ``{item ...}``, a ``None``
  value as a flag attribute), written straight from the alignment records by
  :class:`_TclHistoryWriter` with the same text as the Tcl words of :func:`map_history` (tests
  hold them equal).

Levels: ``-docnum -doctallies [-text_filter] -class_pairs``; ``-class_name -class_tallies
-obj_pairs``; ``-key_obj_id [-key_obj_optional] -rsp_obj_id`` (SGML tasks: ``-key_obj_start_offset
-key_obj_end_offset -rsp_obj_start_offset -rsp_obj_end_offset -doc_section``) ``-obj_pair_status
[-f_score] -obj_pair_tallies -slot_pairs``; ``-slot_name -slot_tallies [-key_slot_optional]
-multi_fill_pairs``; ``-key_alternative -rsp_alternative -multi_fill_tallies -single_fill_pairs``;
``-single_fill_pair_status -single_fill_pair_tallies -key_single_fill -rsp_single_fill``
(``-type -fill [-clean_fill]``).  Tallies are ``{POS ACT COR PAR INC MIS SPU NON}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from annoscore.align.muc_records import COUNTED, DocumentAlignment, ObjectPair, SlotPair
from annoscore.formats.muc_config import kept_per_process
from annoscore.metrics.tallies import Tally
from annoscore.templates import TemplateFill

if TYPE_CHECKING:
    from annoscore.metrics.muc import MucDetails

Node = dict[str, Any]
"""One level of the map history: attribute -> value (``None`` for a flag attribute)."""


def _tallies(t: Tally) -> list[int]:
    """possible, actual, correct, partial, incorrect, missing, spurious, noncommittal."""
    return [t.pos, t.act, t.cor, t.par, t.inc, t.mis, t.spu, t.non]


_SINGLE_TALLIES = {
    name: _tallies(Tally(**{name: 1})) for name in ("cor", "par", "inc", "mis", "spu", "non")
}
_NO_TALLY = _tallies(Tally())


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
    from annoscore.report.muc import written

    config = written(details).config
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


_SPECIAL_ASCII = bytes(sorted(ord(c) for c in _TCL_SPECIAL if c.isascii()))
"""The ASCII characters of :data:`_TCL_SPECIAL`."""


def _plain_words(words: list[str]) -> bool:
    """Whether :func:`_tcl_word` writes every one of ``words`` as it is (each non-empty and
    free of special characters), checked all at once (an ASCII text through one C-level
    ``bytes.translate``).

    >>> _plain_words(["ENAMEX-1-1", "TIMEX-1-2"]), _plain_words(["A-1", ""]), _plain_words(["a b"])
    (True, False, False)
    """
    if not all(words):
        return False
    text = "".join(words)
    if text.isascii():
        return len(text.encode("ascii").translate(None, _SPECIAL_ASCII)) == len(text)
    return _TCL_SPECIAL.isdisjoint(text)


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

_FIELD_BITS = 40
_FIELD_MASK = (1 << _FIELD_BITS) - 1


def _packed(tally: Sequence[int]) -> int:
    """A ``(cor, par, inc, mis, spu, non)`` tally as one integer, 40 bits a field, so that
    tallies add with one ``+`` (a field holds up to 2**40 - 1 fills, far more than a file
    holds; the counts are never negative).

    >>> _unpacked(_packed((1, 0, 2, 0, 0, 3)) + _packed((0, 1, 0, 0, 5, 0)))
    (1, 1, 2, 0, 5, 3)
    """
    packed = 0
    for shift, value in enumerate(tally):
        packed |= value << (_FIELD_BITS * shift)
    return packed


def _unpacked(packed: int) -> tuple[int, int, int, int, int, int]:
    """The ``(cor, par, inc, mis, spu, non)`` tally of :func:`_packed`."""
    c, p, n, m, u, o = ((packed >> (_FIELD_BITS * shift)) & _FIELD_MASK for shift in range(6))
    return c, p, n, m, u, o


class _TclHistoryWriter:
    """Writes :func:`map_history` as Tcl straight from the alignment records, with the same
    text as the Tcl words of the nested mappings (a test holds them equal).

    What repeats is written once and reused: each slot record's node (by the record's
    identity, then by what it shows: the named entity aligner shares the records of equal
    slots, and equal fills recur), the end of each object pair's node from
    ``-obj_pair_tallies`` on (by the identity of the pair's list of records, which the aligner
    shares between equal pairs), each single fill, tally, section, status and F score.  Each
    cache entry keyed by an identity holds the record, so the identity stays its own.

    Tallies are summed as :func:`_packed` integers (one ``+`` per pair)."""

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
        self.tallies: dict[int, str] = {}
        """Each tally written, by its :func:`_packed` value."""
        self.names: dict[str, str] = {}
        self.slots_by_value: dict[tuple[object, ...], tuple[str, int]] = {}
        """Each slot node with at most one single fill pair, and its (packed) tally, by what
        it shows."""
        self.slots_by_record: dict[int, tuple[SlotPair, str, int]] = {}
        """Each slot node and (packed) tally, by the identity of its record."""
        self.by_records: dict[int, tuple[list[SlotPair], int, str]] = {}
        """Each pair's (packed) tally and the end of its node (``-obj_pair_tallies ...
        -slot_pairs {...}}``), by the identity of the pair's list of slot records."""
        self.words: dict[str, str] = {}
        """Sections and statuses as Tcl words."""
        self.middles: dict[tuple[str, str, float | None], str] = {}
        """The middle of an SGML pair's node (:meth:`middle`), by section, status and F."""

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

    def word(self, text: str) -> str:
        """:func:`_tcl_word`, each distinct text once."""
        shown = self.words.get(text)
        if shown is None:
            shown = self.words[text] = _tcl_word(text)
        return shown

    def slot(self, slot: SlotPair, tally: int) -> str:
        """A slot record's node."""
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

    def slot_node(self, slot: SlotPair) -> tuple[str, int]:
        """A slot record's node and tally; a record with at most one single fill pair (most
        records: a named entity's TYPE and TEXT, its empty STATUS and ALT) by what it shows,
        each distinct one written once."""
        fills = slot.fills
        if len(fills) > 1:
            tally = _packed(slot.tally())
            return self.slot(slot, tally), tally
        key_slot = slot.key
        signature: tuple[object, ...]
        if fills:
            fill = fills[0]
            key, rsp = fill.key, fill.response
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
        else:  # only the slot's own NON, if any
            signature = (
                slot.definition.name,
                slot.slot_non,
                slot.key_alternative,
                slot.response_alternative,
                key_slot is not None and key_slot.optional,
            )
        written = self.slots_by_value.get(signature)
        if written is None:
            tally = _packed(slot.tally())
            written = self.slots_by_value[signature] = (self.slot(slot, tally), tally)
        return written

    def pair_end(self, records: list[SlotPair]) -> tuple[list[SlotPair], int, str]:
        """The (packed) tally of a pair's slot records and the end of its node
        (``-obj_pair_tallies {...} -slot_pairs {...}}``), each distinct list written once."""
        known = self.by_records.get(id(records))
        if known is not None:
            return known
        by_record = self.slots_by_record
        nodes: list[str] = []
        tally = 0
        for slot in records:
            entry = by_record.get(id(slot))
            if entry is None:
                text, slot_tally = self.slot_node(slot)
                entry = by_record[id(slot)] = (slot, text, slot_tally)
            nodes.append(entry[1])
            tally += entry[2]
        slots_text = " ".join(nodes)
        closing = f" -obj_pair_tallies {self.tcl_tallies(tally)} -slot_pairs {{{slots_text}}}}}"
        known = self.by_records[id(records)] = (records, tally, closing)
        return known

    def middle(self, section: str, status: str, f_score: float | None) -> str:
        """``-doc_section -obj_pair_status -f_score`` of an SGML pair (the parts present)."""
        written = self.middles.get((section, status, f_score))
        if written is None:
            place = " -doc_section " + _tcl_word(section) if section else ""
            score = "" if f_score is None else f" -f_score {f_score:.2f}"
            written = f"{place} -obj_pair_status {_tcl_word(status)}{score}"
            self.middles[section, status, f_score] = written
        return written

    def pair_head(self, pair: ObjectPair, separator: str) -> str:
        """A pair's node up to its ``-obj_pair_tallies`` (any pair: see :meth:`document`)."""
        key, rsp = pair.key, pair.response
        status = pair.status
        parts: list[str] = []
        if key is not None:
            parts.append("-key_obj_id " + _tcl_word(key.id))
            if key.optional or status == "non":
                parts.append("-key_obj_optional")
        if rsp is not None:
            parts.append("-rsp_obj_id " + _tcl_word(rsp.id))
        owner = key if key is not None else rsp
        if owner is not None and owner.start >= 0:  # SGML tasks: where it is
            if key is not None and key.start >= 0:
                parts.append(f"-key_obj_start_offset {key.start} -key_obj_end_offset {key.end}")
            if rsp is not None and rsp.start >= 0:
                parts.append(f"-rsp_obj_start_offset {rsp.start} -rsp_obj_end_offset {rsp.end}")
            if owner.section:
                parts.append("-doc_section " + self.word(owner.section))
        parts.append("-obj_pair_status " + self.word(status))
        if pair.f_score is not None:
            parts.append(f"-f_score {pair.f_score:.2f}")
        return separator + "{" + " ".join(parts)

    def document(self, alignment: DocumentAlignment, out: list[str]) -> None:
        """Append one document's node to ``out``, as pieces (the caller joins them): two
        pieces per object pair, its head (ids, offsets, status) and the end of its list of
        records (written once per list).

        The ids of an SGML task's objects are written as they are, then checked all at once
        (:func:`_plain_words`); in the rare document where one is not a plain word, the
        document is written again, each id through :func:`_tcl_word`."""
        start = len(out)
        ids: list[str] = []
        self._document(alignment, out, ids)
        if not _plain_words(ids):
            del out[start:]
            self._document(alignment, out, None)

    def _document(
        self, alignment: DocumentAlignment, out: list[str], ids: list[str] | None
    ) -> None:
        """:meth:`document`: SGML ids appended to ``ids`` as they are, or (None) each written
        through :func:`_tcl_word`."""
        by_records = self.by_records
        pair_end = self.pair_end

        def word(text: str) -> str:
            if ids is None:
                return _tcl_word(text)
            ids.append(text)
            return text

        # the middle of an SGML pair's node (section, status, F), kept while they repeat
        shown_status: str | None = None
        shown_section: str | None = None
        score: float | None = None
        middle = ""
        append = out.append
        doc_head = len(out)
        append("")  # the document's head, once its tallies are known
        doc_total = 0
        for number, cls in enumerate(alignment.classes):
            class_head = len(out)
            append("")  # the class's head, once its tallies are known
            class_total = 0
            separator = "{"
            for pair in cls.pairs:
                records = pair.slots
                known = by_records.get(id(records))
                if known is None:
                    known = pair_end(records)
                class_total += known[1]
                key, rsp = pair.key, pair.response
                # an SGML task's pair (every pair of named entity): one f-string
                if key is not None and key.start >= 0 and (rsp is None or rsp.start >= 0):
                    status, f_score, section = pair.status, pair.f_score, key.section
                elif key is None and rsp is not None and rsp.start >= 0:
                    status, f_score, section = pair.status, pair.f_score, rsp.section
                else:  # a template task's pair
                    append(self.pair_head(pair, separator))
                    append(known[2])
                    separator = " "
                    continue
                if status is not shown_status or section is not shown_section or f_score != score:
                    shown_status, shown_section, score = status, section, f_score
                    middle = self.middle(section, status, f_score)
                if key is None:
                    assert rsp is not None
                    append(
                        f"{separator}{{-rsp_obj_id {word(rsp.id)} -rsp_obj_start_offset "
                        f"{rsp.start} -rsp_obj_end_offset {rsp.end}{middle}"
                    )
                else:
                    key_id = word(key.id)
                    optional = " -key_obj_optional" if key.optional or status == "non" else ""
                    if rsp is None:
                        append(
                            f"{separator}{{-key_obj_id {key_id}{optional} -key_obj_start_offset "
                            f"{key.start} -key_obj_end_offset {key.end}{middle}"
                        )
                    else:
                        append(
                            f"{separator}{{-key_obj_id {key_id}{optional} -rsp_obj_id "
                            f"{word(rsp.id)} "
                            f"-key_obj_start_offset {key.start} -key_obj_end_offset {key.end} "
                            f"-rsp_obj_start_offset {rsp.start} -rsp_obj_end_offset {rsp.end}"
                            f"{middle}"
                        )
                append(known[2])
                separator = " "
            if separator == "{":  # no pair
                append("{")
            append("}}")
            doc_total += class_total
            out[class_head] = (
                f"{' ' if number else ''}{{-class_name {_tcl_word(cls.definition.name)} "
                f"-class_tallies {self.tcl_tallies(class_total)} -obj_pairs "
            )
        if not alignment.classes:
            append("{")
        append("}}")
        text_filter = ""
        if alignment.text_filter is not None:
            text_filter = " -text_filter " + _tcl_word(alignment.text_filter)
        out[doc_head] = (
            f"{{-docnum {_tcl_word(alignment.document)} "
            f"-doctallies {self.tcl_tallies(doc_total)}"
            f"{text_filter} -class_pairs " + ("{" if alignment.classes else "")
        )

    def tcl_tallies(self, tally: int) -> str:
        """:func:`_tcl_tallies` of a :func:`_packed` tally, each distinct one written once."""
        written = self.tallies.get(tally)
        if written is None:
            written = self.tallies[tally] = _tcl_tallies(_unpacked(tally))
        return written


def map_history_tcl(details: MucDetails) -> str:
    """The map history as one Tcl-style list, one document per line (the text of
    the Tcl words of each :func:`map_history` document, written straight from the records)."""
    return "".join(map_history_chunks(details))


def map_history_chunks(details: MucDetails, documents: int = 50) -> Iterator[str]:
    """:func:`map_history_tcl` in pieces of ``documents`` documents (a named entity corpus's
    map history is some 130 MB: written piece by piece, it is never held whole)."""
    out: list[str] = ["{\n"]
    for number, text in enumerate(history_texts(details), 1):
        out.append(text)
        if number % documents == 0:
            yield "".join(out)
            out = []
    out.append("}\n")
    yield "".join(out)


def history_texts(details: MucDetails) -> Iterator[str]:
    """The map history's line of each document (with its newline), as
    :func:`map_history_chunks` joins them; the texts a chunk wrote when it did
    (:attr:`~annoscore.metrics.muc.MucDetails.rendered`)."""
    if details.rendered is not None:
        yield from details.rendered.strings("history")
        return
    # what it wrote kept through a worker's chunks, as one run keeps it for every document
    writer = kept_per_process("map history", details.config, lambda: _TclHistoryWriter(details))
    out: list[str] = []
    for alignment in details.documents:
        writer.document(alignment, out)
        out.append("\n")
        yield "".join(out)
        out.clear()
