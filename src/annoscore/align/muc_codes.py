"""MUC equality codes: the slot comparison of :mod:`annoscore.align.muc_compare`, made fast.

The second step of the MUC alignment flow.  Most slots are plain (one fill or none on each side,
no alternatives, no optional mark, no ``[minimum]`` string); two plain single fills compare
through precomputed *codes*, so that scoring a candidate pair (:mod:`annoscore.align.muc_mapping`)
and recording an aligned one (:meth:`CodedComparison._aligned_pair`) rarely need
:meth:`~annoscore.align.muc_compare.SlotComparison.compare_slot`:

- a fill's code is ``(correct, partial)``: two single fills are COR exactly when their correct
  codes are equal, else PAR exactly when their partial codes are
  (:meth:`~CodedComparison._fill_code`); each string is normalized once (cached);
- a slot's code is None (empty), its fill's code (one plain fill) or ``()`` (only
  ``compare_slot`` can score it); an object's codes are those of its scored slots, and its
  *tokens* every code of the fills of its indexed slots (what the candidate index looks up).

With :attr:`CodedComparison.shared_slots` on (the named entity reader shares slot objects of equal
content and makes no pointer fills), codes, tokens, slot records and whole aligned pairs are
remembered by the identity of the slots (each entry holds what its key names, so an identity found
is its own) and shared, read-only, by every equal pair.  The records are those ``compare_slot``
and ``compare_objects`` make: F and weighted score are the same sums in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from annoscore.align.muc_compare import DocumentContext, SlotComparison, fraction
from annoscore.align.muc_records import FillPair, ObjectPair, SlotPair
from annoscore.formats.muc_config import MucConfig, SlotDef
from annoscore.templates import TemplateFill, TemplateObject, TemplateSlot

Code = tuple[str, str | None]
"""Equality codes ``(correct, partial)`` of one single fill (:meth:`CodedComparison._fill_code`)."""
SlotCode = Code | tuple[()] | None
"""A scored slot of a candidate object (:meth:`CodedComparison._object_codes`)."""
_ObjectEntry = tuple[
    tuple[TemplateSlot, ...], dict[str, TemplateSlot], list[SlotCode], list[list[str]] | None
]
"""An object's slots tuple, slots by lower-case name, codes and tokens."""
SlotPairEntry = tuple[TemplateSlot | None, TemplateSlot | None, SlotPair, int, int, float]
"""A slot record compared by codes: both slots, the record, credit, total and weighted score
(:meth:`CodedComparison._coded_slot_pair`)."""
PairRecord = tuple[tuple[TemplateSlot, ...], tuple[TemplateSlot, ...], list[SlotPair], float, float]
"""Both slots tuples, the slot records, F and weighted score of a pair aligned by codes alone
(:meth:`CodedComparison._aligned_pair`)."""
_second = itemgetter(1)
_third = itemgetter(2)
_fourth = itemgetter(3)


class CodedComparison(SlotComparison):
    """:class:`~annoscore.align.muc_compare.SlotComparison` with codes and remembered records
    (see the module docstring)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config)
        self._string_codes: dict[str, Code] = {}
        self._set_codes: dict[str, Code] = {}
        self._slot_codes: dict[
            tuple[int, str, bool], tuple[TemplateSlot, SlotCode, list[str] | None]
        ] = {}
        """Code and tokens of each slot without pointers (:meth:`_object_codes`), by the
        slot's identity (the entry holds the slot, so the identity is not reused), kind and
        side, when :attr:`shared_slots` is on."""
        self.shared_slots = False
        """Whether the reader shares slot objects of equal content and makes no pointer fills
        (the named entity reader: TYPE and TEXT), so that remembering each slot's codes and
        each compared slot pair's record pays (a subclass turns it on; template files have one
        slot object per slot, and pointers whose codes depend on the document)."""
        self.indexed: dict[str, list[bool]] = {}
        """By class: whether each scored slot's tokens are indexed (set by the mapping,
        :meth:`~annoscore.align.muc_mapping.ClassMapping._align_class`)."""
        self._pair_records: dict[tuple[int, int, str], PairRecord] = {}
        """Slot records, F and weighted score of an aligned pair compared by codes alone, by
        the identities of both slots tuples and the class (:meth:`_aligned_pair`)."""
        self._slot_pairs: dict[tuple[int, int, int], SlotPairEntry] = {}
        """Slot pair records compared by codes (:meth:`_aligned_pair`), by the identities of
        the definition and both slots (the entry holds the slots)."""

    def _pointer_targets(self, target: str, ctx: DocumentContext) -> list[str]:
        """The key representatives a response pointer to ``target`` is correct for: those
        aligned with ``target`` or an object equatable with it (see :meth:`_status`)."""
        members = ctx.rsp_members.get(ctx.rsp_rep.get(target, target), [target])
        found: list[str] = []
        for member in members:
            aligned = ctx.r2k.get(member)
            if aligned is not None:
                rep = ctx.key_rep.get(aligned, aligned)
                if rep not in found:
                    found.append(rep)
        return found

    def _fill_code(
        self, kind: str, fill: TemplateFill, is_key: bool, ctx: DocumentContext
    ) -> Code | None:
        """Equality codes ``(correct, partial)`` of one fill, or None when only :meth:`_status`
        can compare it (a ``[minimum]`` string, a response pointer equatable with several).

        Two single fills are COR exactly when their correct codes are equal, else PAR exactly
        when their partial codes are (``None`` when there is no partial comparison).  The
        first letter keeps the kinds apart: ``p`` a pointer (the key representative it stands
        for, given the classes aligned before), ``u`` a response pointer to an unaligned
        object (equal to no key code), ``s`` a string, ``t`` a set fill.
        """
        if fill.is_pointer:
            if is_key:
                return "p" + ctx.key_rep.get(fill.text, fill.text), None
            targets = self._pointer_targets(fill.text, ctx)
            if len(targets) > 1:
                return None
            return ("p" + targets[0] if targets else "u"), None
        if kind == "string" and fill.minimum is not None:
            return None
        cache = self._set_codes if kind != "string" else self._string_codes
        code = cache.get(fill.text)
        if code is None:
            text = fill.text
            rules = self.rules
            if kind != "string":
                code = "t" + text.lower(), None
            elif rules.partial == "NONE":
                code = "s" + rules.normalize(text, rules.correct), None
            else:
                code = (
                    "s" + rules.normalize(text, rules.correct),
                    "s" + rules.normalize(text, rules.partial),
                )
            cache[text] = code
        return code

    def _slot_tokens(
        self, kind: str, slot: TemplateSlot, is_key: bool, ctx: DocumentContext
    ) -> list[str] | None:
        """Every code of every fill of a slot (all alternatives), or None (may match anything).

        A slot pair earns credit only through a COR or PAR single-fill pair, and two such
        fills share a code."""
        tokens: list[str] = []
        for alternative in slot.alternatives:
            for fill in alternative:
                if fill.is_pointer and not is_key:
                    tokens.extend("p" + rep for rep in self._pointer_targets(fill.text, ctx))
                    continue
                code = self._fill_code(kind, fill, is_key, ctx)
                if code is None:
                    return None
                tokens.append(code[0])
                if code[1] is not None:
                    tokens.append(code[1])
        return tokens

    def _object_codes(
        self,
        scored: Sequence[SlotDef],
        names: Sequence[str],
        indexed: Sequence[bool],
        slots: dict[str, TemplateSlot],
        is_key: bool,
        ctx: DocumentContext,
    ) -> tuple[list[SlotCode], list[list[str]] | None]:
        """Codes of an object's scored slots and the tokens of its ``indexed`` slots.

        A slot's code is ``None`` when it is empty, the codes of its fill when it has one
        plain fill, ``()`` when :meth:`compare_slot` must score it (alternatives, several
        fills, an optional mark, a removed key pointer, a fill without codes).  The tokens
        (:meth:`_slot_tokens`) are None when the object may match anything.
        """
        codes: list[SlotCode] = []
        tokens: list[list[str]] | None = []
        known = self._slot_codes if self.shared_slots else None
        for definition, name, index in zip(scored, names, indexed, strict=True):
            slot = slots.get(name)
            if slot is None:
                codes.append(None)
                if index and tokens is not None:
                    tokens.append([])
                continue
            signature = (id(slot), definition.kind, is_key)
            entry = known.get(signature) if known is not None else None
            if entry is not None and entry[0] is slot:
                codes.append(entry[1])
                if index and tokens is not None:
                    if entry[2] is None:
                        tokens = None
                    else:
                        tokens.append(entry[2])
                continue
            alternatives = slot.alternatives
            code: SlotCode = ()
            if len(alternatives) == 1 and not slot.optional and len(alternatives[0]) <= 1:
                if not alternatives[0]:
                    code = None
                else:
                    fill = alternatives[0][0]
                    fill_code = self._fill_code(definition.kind, fill, is_key, ctx)
                    removed = (
                        is_key
                        and fill.is_pointer
                        and fill.text in ctx.optional
                        and fill.text not in ctx.k2r
                    )
                    if fill_code is not None and not removed:
                        code = fill_code
            codes.append(code)
            slot_tokens: list[str] | None
            if code is None:
                slot_tokens = []
            elif code:
                slot_tokens = [code[0]] if code[1] is None else [code[0], code[1]]
            else:
                slot_tokens = self._slot_tokens(definition.kind, slot, is_key, ctx)
            if index and tokens is not None:
                if slot_tokens is None:
                    tokens = None
                else:
                    tokens.append(slot_tokens)
            if known is not None and not any(
                f.is_pointer for alternative in alternatives for f in alternative
            ):
                known[signature] = (slot, code, slot_tokens)  # ctx-free: the same next time
        return codes, tokens

    def _objects_codes(
        self,
        class_name: str,
        objects: Sequence[TemplateObject],
        is_key: bool,
        ctx: DocumentContext,
    ) -> tuple[list[dict[str, TemplateSlot]], list[list[SlotCode]], list[list[list[str]] | None]]:
        """Each object's slots by lower-case name, codes and tokens (:meth:`_object_codes`;
        with :attr:`shared_slots` on, each shared slot's codes are remembered)."""
        entries = [self._object_entry(obj.slots, class_name, is_key, ctx) for obj in objects]
        all_slots = list(map(_second, entries))
        all_codes = list(map(_third, entries))
        all_tokens = list(map(_fourth, entries))
        return all_slots, all_codes, all_tokens

    def _object_entry(
        self, held: tuple[TemplateSlot, ...], class_name: str, is_key: bool, ctx: DocumentContext
    ) -> _ObjectEntry:
        """(slots tuple, slots by lower-case name, codes, tokens) of one object."""
        slots = {s.name.lower(): s for s in held}
        scored = self.scored_defs[class_name]
        names = self.scored_names[class_name]
        indexed = self.indexed[class_name]
        codes, tokens = self._object_codes(scored, names, indexed, slots, is_key, ctx)
        return held, slots, codes, tokens

    def _aligned_pair(
        self,
        key: TemplateObject,
        rsp: TemplateObject,
        key_slots: dict[str, TemplateSlot],
        rsp_slots: dict[str, TemplateSlot],
        key_codes: list[SlotCode],
        rsp_codes: list[SlotCode],
        ctx: DocumentContext,
    ) -> ObjectPair:
        """:meth:`compare_objects` of an aligned pair, plain slots recorded from their codes.

        With :attr:`shared_slots` on, the record of a slot compared by its codes is made once
        per (definition, key slot, response slot) and shared by every pair with those slots
        (the records are read-only once made)."""
        cls = key.class_name.lower()
        known = self._slot_pairs if self.shared_slots else None
        if known is not None:
            whole = self._pair_records.get((id(key.slots), id(rsp.slots), cls))
            if whole is not None and whole[0] is key.slots and whole[1] is rsp.slots:
                return ObjectPair("cor", key, rsp, whole[2], whole[3], whole[4])
        slots: list[SlotPair] = []
        credit = total = 0
        weighted = 0.0
        position = 0
        by_codes = True  # every slot compared by its codes (else the pair is not remembered)
        for definition, name in zip(
            self.slot_defs[cls], self.slot_names_in_order[cls], strict=True
        ):
            kslot = key_slots.get(name)
            rslot = rsp_slots.get(name)
            signature = (id(definition), id(kslot), id(rslot))
            if known is not None:
                hit = known.get(signature)
                if hit is not None and hit[0] is kslot and hit[1] is rslot:
                    slots.append(hit[2])
                    if definition.scored:
                        position += 1
                        credit += hit[3]
                        total += hit[4]
                        weighted += hit[5]
                    continue
            if not definition.scored:
                if kslot is None:  # what compare_slot gives: no key fill, nothing to tally
                    record = SlotPair(definition, None, rslot)
                    slots.append(record)
                    if known is not None:
                        known[signature] = (kslot, rslot, record, 0, 0, 0.0)
                else:
                    slots.append(self.compare_slot(definition, kslot, rslot, ctx))
                    by_codes = False
                continue
            a = key_codes[position]
            b = rsp_codes[position]
            position += 1
            entry = self._coded_slot_pair(definition, kslot, rslot, a, b)
            if entry is None:  # a slot only compare_slot can score
                pair = self.compare_slot(definition, kslot, rslot, ctx)
                slots.append(pair)
                by_codes = False
                slot_credit, slot_total = pair.credit_and_total()
                credit += slot_credit
                total += slot_total
                if definition.weight:
                    weighted += definition.weight * 100.0 * fraction(slot_credit, slot_total)
                continue
            if known is not None:
                known[signature] = entry
            slots.append(entry[2])
            credit += entry[3]
            total += entry[4]
            weighted += entry[5]
        f_score = 100.0 * fraction(credit, total)
        if known is not None and by_codes:
            return self._remembered_pair(key, rsp, cls, slots, f_score, weighted)
        return ObjectPair("cor", key, rsp, slots, f_score, weighted)

    def _remembered_pair(
        self,
        key: TemplateObject,
        rsp: TemplateObject,
        cls: str,
        slots: list[SlotPair],
        f_score: float,
        weighted: float,
    ) -> ObjectPair:
        """The aligned pair of ``key`` and ``rsp`` (class ``cls``) compared by codes alone, its
        record remembered for every later pair of the same two slots tuples: ``slots`` is
        shared with every equal pair (read-only from here on)."""
        self._pair_records[id(key.slots), id(rsp.slots), cls] = (
            key.slots,
            rsp.slots,
            slots,
            f_score,
            weighted,
        )
        return ObjectPair("cor", key, rsp, slots, f_score, weighted)

    @staticmethod
    def _coded_slot_pair(
        definition: SlotDef,
        kslot: TemplateSlot | None,
        rslot: TemplateSlot | None,
        a: SlotCode,
        b: SlotCode,
    ) -> SlotPairEntry | None:
        """The record of a scored slot whose two codes (:meth:`_object_codes`) decide it, with
        its credit (2 * COR + PAR), total (2 * (COR + PAR + INC) + MIS + SPU) and weighted
        score; None when a code is ``()`` (only :meth:`compare_slot` can score the slot)."""
        if a is None and b is None:  # both empty: one NON
            return kslot, rslot, SlotPair(definition, kslot, rslot, [], 1), 0, 0, 0.0
        if a is None and b:
            assert rslot is not None
            fill = FillPair("spu", None, rslot.alternatives[0][0])
            slot_credit, slot_total = 0, 1
        elif b is None and a:
            assert kslot is not None
            fill = FillPair("mis", kslot.alternatives[0][0], None)
            slot_credit, slot_total = 0, 1
        elif a and b:
            assert kslot is not None and rslot is not None
            if a[0] == b[0]:
                status, slot_credit = "cor", 2
            elif a[1] is not None and a[1] == b[1]:
                status, slot_credit = "par", 1
            else:
                status, slot_credit = "inc", 0
            fill = FillPair(status, kslot.alternatives[0][0], rslot.alternatives[0][0])
            slot_total = 2
        else:
            return None
        added = 0.0
        if definition.weight:
            added = definition.weight * 100.0 * fraction(slot_credit, slot_total)
        record = SlotPair(definition, kslot, rslot, [fill])
        return kslot, rslot, record, slot_credit, slot_total, added
