"""MUC named entity alignment: the template alignment, restricted to tags at the same place.

The manual ("Named Entity (NE) Task Scoring"): NE is scored like the template element task,
"except that the objects which are aligned must come from SGML elements in the same position of
the original text file".  So :class:`NeAligner` is :class:`~annoscore.align.muc.MucAligner`
(same pair F, same weighted threshold, same greedy order, same tallies) whose candidate pairs are
the key and response objects of a class whose spans *overlap*: half-open spans, touching spans do
not overlap (../shared/spec/muc.md, decision 6).  An overlapping pair that agrees in nothing has
weighted score 0 and does not align (decision 15a): the key tallies MIS, the response SPU.

Candidates are found by a sweep over both sides in order of start (:func:`overlapping_partners`),
in time linear in the tags and the overlapping pairs (up to sorting); more than
:data:`~annoscore.align.muc_mapping.MAX_PAIRS` overlapping pairs of a class in one document is an
:class:`~annoscore.errors.InputError`.

>>> from annoscore.templates import TemplateObject, TemplateSlot
>>> def tag(start: int, end: int) -> TemplateObject:
...     return TemplateObject("X", "enamex", "1", "1", (), start=start, end=end)
>>> overlapping_partners([tag(0, 5), tag(10, 12)], [tag(5, 8), tag(3, 11), tag(11, 20)])
[[1], [1, 2]]
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from itertools import chain, islice, repeat
from operator import attrgetter, eq, le
from typing import Literal

from annoscore.align.muc import MucAligner
from annoscore.align.muc_codes import SlotCode
from annoscore.align.muc_compare import DocumentContext, fraction
from annoscore.align.muc_mapping import MAX_PAIRS
from annoscore.align.muc_records import ObjectPair, SlotPair
from annoscore.formats.muc_config import ClassDef, MucConfig, SlotDef
from annoscore.templates import TemplateObject, TemplateSlot


def overlapping_partners(
    keys: Sequence[TemplateObject], rsps: Sequence[TemplateObject], limit: int | None = None
) -> list[list[int]] | None:
    """For each key object, the response objects (ascending index) whose span overlaps it: a
    response ``[a, b)`` overlaps a key ``[s, e)`` when ``a < e`` and ``s < b`` (an object
    without a place in the text counts as the empty span at 0); None when there are more than
    ``limit`` such pairs in all.

    One sweep over the keys by start: the responses that started before the key and end after
    its start (the *active* ones, kept from one key to the next: a response that ends by one
    key's start ends by every later one's) and those starting inside the key (bisection).
    Each response joins and leaves the active ones once, and each active one is a pair found,
    so the work is linear in the tags and the overlapping pairs (up to sorting)."""
    r_starts, r_ends = _places(rsps)
    k_starts, k_ends = _places(keys)
    order = _by_start(r_starts)
    in_order = order is None  # then ``found`` below is ascending as built
    if order is None:
        order = list(range(len(rsps)))
        starts = r_starts
    else:
        starts = [r_starts[j] for j in order]
    has_empty = any(map(eq, r_starts, r_ends))
    out: list[list[int]] = [[] for _ in keys]
    active: list[int] = []  # responses starting before the key's start, ending after it
    passed = 0  # responses of ``order`` started before the current key
    total = 0
    left_of = bisect.bisect_left
    for i in _by_start(k_starts) or range(len(keys)):
        start = k_starts[i]
        if passed < len(starts) and starts[passed] < start:
            started = left_of(starts, start, passed)
            active += order[passed:started]
            passed = started
        if active:
            active = [j for j in active if r_ends[j] > start]  # a < s < b: they overlap
        inside = order[passed : left_of(starts, k_ends[i], passed)]  # s <= a < e
        if has_empty:  # an empty response at s does not overlap
            inside = [j for j in inside if r_ends[j] > start]
        found = active + inside if active else inside
        if not in_order and len(found) > 1:
            found.sort()
        out[i] = found
        total += len(found)
        if limit is not None and total > limit:
            return None
    return out


def _places(objects: Sequence[TemplateObject]) -> tuple[list[int], list[int]]:
    """The objects' starts and ends (an object without a place: the empty span at 0)."""
    starts = list(map(_start_of, objects))
    ends = list(map(_end_of, objects))
    if starts and min(starts) < 0:
        ends = [end if start >= 0 else 0 for start, end in zip(starts, ends, strict=True)]
        starts = [max(start, 0) for start in starts]
    return starts, ends


def _by_start(starts: list[int]) -> list[int] | None:
    """The indices in order of start (stable); None when that is their own order."""
    if all(map(le, starts, islice(starts, 1, None))):
        return None
    return sorted(range(len(starts)), key=starts.__getitem__)


_start_of = attrgetter("start")
_end_of = attrgetter("end")
_slots_of = attrgetter("slots")


class NeAligner(MucAligner):
    """:class:`MucAligner` whose candidate pairs overlap in the text (see the module doc)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config)
        self.shared_slots = True  # ne_objects shares equal TYPE and TEXT slots
        # the candidates are the overlapping pairs: no slot's codes are indexed
        self.indexed = {name: [False] * len(slots) for name, slots in self.scored_defs.items()}
        self._in_order: dict[
            tuple[str, int], tuple[tuple[TemplateSlot, ...], tuple[TemplateSlot | None, ...]]
        ] = {}
        """The slots of a shared slots tuple in ``:slot_defs`` order, by class and the tuple's
        identity (:meth:`_slots_in_order`)."""
        self._definition_ids = {
            name: [id(definition) for definition in definitions]
            for name, definitions in self.slot_defs.items()
        }
        """By class: the identity of each slot definition (:meth:`_composed_pair`)."""

    def _partners(
        self,
        definition: ClassDef,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> Sequence[Sequence[int]]:
        """The overlapping pairs (:func:`overlapping_partners`), at most :data:`MAX_PAIRS`."""
        partners = overlapping_partners(keys, rsps, MAX_PAIRS)
        if partners is None:
            raise self._too_many_pairs(definition, keys, rsps, MAX_PAIRS)
        return partners

    def _align_class(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: DocumentContext,
    ) -> list[ObjectPair]:
        """:meth:`MucAligner._align_class`, with a short cut for isolated pairs seen before.

        A key object whose only overlapping response overlaps no other key object forms an
        *isolated* pair: no other candidate pair involves either object, so the greedy order
        cannot affect it, and it aligns exactly when its weighted score exceeds the threshold.
        When a pair of the same two (shared) slots tuples was aligned before (an entry of the
        aligned pair records, made only for pairs above the threshold and compared by codes
        alone), the pair's record is reused without computing codes or F (most pairs of a
        named entity corpus: the same type and text on both sides).  The other objects go
        through the general greedy alignment, their indices kept in order, so candidates sort
        as they would among all objects; the result is the general path's (a test holds them
        equal).

        Without pointer fills (:attr:`shared_slots`), nothing reads which objects are aligned
        with which (``ctx.k2r``, ``ctx.r2k``: pointer comparisons only), so the short cut does
        not record them.

        tests/equivalence/test_muc.py holds the result to the general path's and to the plain
        reference (tests/oracles/muc.py), on inputs that take and skip each part of it."""
        if not self.shared_slots or not keys or not rsps:
            return super()._align_class(definition, keys, rsps, ctx)
        name = definition.name.lower()
        partners = self._partners(definition, keys, rsps, (), ())
        lows, single = self._isolated(partners)
        count = sum(map(len, partners))
        self.pairs_scored += count
        self.document_pairs += count
        # the aligned record of each key and its first partner (the entry holds both tuples:
        # an identity found is the tuple's own)
        rsp_tuples = list(map(id, map(_slots_of, rsps)))
        wholes = list(
            map(
                self._pair_records.get,
                zip(
                    map(id, map(_slots_of, keys)),
                    map(rsp_tuples.__getitem__, lows),
                    repeat(name),
                ),
            )
        )
        aligned: list[ObjectPair | None] = [
            ObjectPair("cor", key, rsp, whole[2], whole[3], whole[4])
            if alone and whole is not None
            else None
            for key, rsp, alone, whole in zip(
                keys, map(rsps.__getitem__, lows), single, wholes, strict=True
            )
        ]
        used = {j for j, pair in zip(lows, aligned, strict=True) if pair is not None}
        fresh: list[tuple[int, int]] = []  # isolated pairs not seen before
        rest: list[int] = []  # keys with a partner left to the general path
        if len(used) < len(keys):
            fresh = [
                (i, j)
                for i, (alone, j, pair) in enumerate(zip(single, lows, aligned, strict=True))
                if alone and pair is None
            ]
            rest = [
                i
                for i, (alone, js) in enumerate(zip(single, partners, strict=True))
                if not alone and js
            ]
        if fresh:
            undecided: list[tuple[int, int]] = []
            for i, j in fresh:
                outcome = self._composed_pair(definition, keys[i], rsps[j], ctx)
                if outcome is None:
                    undecided.append((i, j))
                elif isinstance(outcome, ObjectPair):
                    aligned[i] = outcome
                    used.add(j)
            if undecided:
                self._align_isolated(definition, keys, rsps, undecided, aligned, used, ctx)
        if rest:
            chosen: dict[int, ObjectPair] = {}
            self._align_rest(definition, keys, rsps, partners, rest, chosen, used, ctx)
            for i, pair in chosen.items():
                aligned[i] = pair
        pairs = [pair for pair in aligned if pair is not None]
        if len(pairs) < len(keys):
            pairs.extend(
                self.leftover(k, True, ctx)
                for k, pair in zip(keys, aligned, strict=True)
                if pair is None
            )
        if len(used) < len(rsps):
            pairs.extend(self.leftover(r, False, ctx) for j, r in enumerate(rsps) if j not in used)
        return pairs

    def _slots_in_order(
        self, name: str, held: tuple[TemplateSlot, ...]
    ) -> tuple[tuple[TemplateSlot, ...], tuple[TemplateSlot | None, ...]]:
        """``held`` and the slot of each ``:slot_defs`` entry of class ``name`` in it (None
        when absent), remembered by the tuple's identity (the entry holds the tuple)."""
        known = self._in_order.get((name, id(held)))
        if known is None:
            by_name = {slot.name.lower(): slot for slot in held}
            found = tuple(map(by_name.get, self.slot_names_in_order[name]))
            known = self._in_order[name, id(held)] = (held, found)
        return known

    def _slot_code(
        self, definition: SlotDef, slot: TemplateSlot | None, is_key: bool, ctx: DocumentContext
    ) -> SlotCode:
        """The code of one scored slot (:meth:`MucAligner._object_codes`)."""
        if slot is None:
            return None
        known = self._slot_codes.get((id(slot), definition.kind, is_key))
        if known is not None:  # the entry holds the slot
            return known[1]
        name = definition.name.lower()
        codes, _ = self._object_codes((definition,), (name,), (False,), {name: slot}, is_key, ctx)
        return codes[0]

    def _composed_pair(
        self, definition: ClassDef, key: TemplateObject, rsp: TemplateObject, ctx: DocumentContext
    ) -> ObjectPair | Literal[False] | None:
        """An isolated pair not seen before, made of its slots' records (each remembered by
        the two slots, see :meth:`MucAligner._aligned_pair`): the aligned pair when its
        weighted score exceeds the class threshold, False when it does not, None when a slot
        needs :meth:`MucAligner.compare_slot` (the general path decides).

        F and the weighted score are those :meth:`MucAligner._candidates` and
        :meth:`MucAligner._aligned_pair` compute: the same sums in the same order (a slot
        decided by codes scores credit 0, 1 or 2 out of 1 or 2, exact in binary)."""
        name = definition.name.lower()
        in_order = self._in_order
        key_slots = in_order.get((name, id(key.slots)))
        if key_slots is None:
            key_slots = self._slots_in_order(name, key.slots)
        rsp_slots = in_order.get((name, id(rsp.slots)))
        if rsp_slots is None:
            rsp_slots = self._slots_in_order(name, rsp.slots)
        known = self._slot_pairs
        entries = list(
            map(
                known.get,
                zip(
                    self._definition_ids[name],
                    map(id, key_slots[1]),
                    map(id, rsp_slots[1]),
                    strict=True,
                ),
            )
        )
        if None in entries:
            for position, (slot_definition, kslot, rslot, entry) in enumerate(
                zip(self.slot_defs[name], key_slots[1], rsp_slots[1], entries, strict=True)
            ):
                if entry is not None:
                    continue
                if not slot_definition.scored:
                    if kslot is not None:
                        return None
                    entry = (kslot, rslot, SlotPair(slot_definition, None, rslot), 0, 0, 0.0)
                else:
                    entry = self._coded_slot_pair(
                        slot_definition,
                        kslot,
                        rslot,
                        self._slot_code(slot_definition, kslot, True, ctx),
                        self._slot_code(slot_definition, rslot, False, ctx),
                    )
                    if entry is None:
                        return None
                known[id(slot_definition), id(kslot), id(rslot)] = entry  # it holds both slots
                entries[position] = entry
        slots: list[SlotPair] = []
        credit = total = 0
        weighted = 0.0
        for entry in entries:
            assert entry is not None
            slots.append(entry[2])
            credit += entry[3]
            total += entry[4]
            weighted += entry[5]
        above, below = self._threshold_band(definition)
        if below <= weighted <= above:
            return None  # at the threshold, within rounding: the general path decides exactly
        if weighted < below:
            return False
        f_score = 100.0 * fraction(credit, total)
        return self._remembered_pair(key, rsp, name, slots, f_score, weighted)

    def _align_isolated(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        fresh: list[tuple[int, int]],
        aligned: list[ObjectPair | None],
        used: set[int],
        ctx: DocumentContext,
    ) -> None:
        """The isolated pairs ``fresh`` (key index, response index) that score above the
        threshold, put in ``aligned`` and ``used``: each is its key's and its response's only
        candidate, so the greedy choice takes every one (see :meth:`_align_class`)."""
        sub_keys = [keys[i] for i, _ in fresh]
        sub_rsps = [rsps[j] for _, j in fresh]
        own = [(t,) for t in range(len(fresh))]
        chosen, _ = self._align_among(definition, sub_keys, sub_rsps, own, ctx)
        for t, pair in chosen.items():
            i, j = fresh[t]
            aligned[i] = pair
            used.add(j)

    @staticmethod
    def _isolated(partners: Sequence[Sequence[int]]) -> tuple[list[int], list[bool]]:
        """For each key, its first partner (0 when none: then it is not alone) and whether it
        is its only partner and overlaps no other key."""
        uses = Counter(chain.from_iterable(partners))
        firsts = [js[0] if js else 0 for js in partners]
        alone = [len(js) == 1 and uses[js[0]] == 1 for js in partners]
        return firsts, alone

    def _align_rest(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        partners: Sequence[Sequence[int]],
        rest: list[int],
        chosen: dict[int, ObjectPair],
        used: set[int],
        ctx: DocumentContext,
    ) -> None:
        """The general greedy alignment of the keys ``rest`` (ascending indices) and the
        responses not in ``used``, added to ``chosen`` and ``used`` (see
        :meth:`_align_class`)."""
        # the responses some key of ``rest`` overlaps (no other takes part in the greedy choice)
        free = sorted({j for i in rest for j in partners[i]} - used)
        position = {j: p for p, j in enumerate(free)}
        sub_keys = [keys[i] for i in rest]
        sub_rsps = [rsps[j] for j in free]
        sub_partners = [[position[j] for j in partners[i]] for i in rest]
        among, taken = self._align_among(definition, sub_keys, sub_rsps, sub_partners, ctx)
        for a, pair in among.items():
            chosen[rest[a]] = pair
        used.update(free[b] for b in taken)

    def _align_among(
        self,
        definition: ClassDef,
        sub_keys: list[TemplateObject],
        sub_rsps: list[TemplateObject],
        sub_partners: Sequence[Sequence[int]],
        ctx: DocumentContext,
    ) -> tuple[dict[int, ObjectPair], set[int]]:
        """:meth:`~annoscore.align.muc_mapping.ClassMapping._greedy` among some objects of a
        class, each key (position in ``sub_keys``) with the positions in ``sub_rsps`` of its
        partners: the aligned pairs by key position and the response positions taken."""
        name = definition.name.lower()
        if name not in self.indexed:
            self.indexed[name] = [False] * len(self.scored_defs[name])
        key_slots, key_codes, _ = self._objects_codes(name, sub_keys, True, ctx)
        rsp_slots, rsp_codes, _ = self._objects_codes(name, sub_rsps, False, ctx)
        candidates = self._candidates(
            definition,
            sub_partners,
            sub_keys,
            sub_rsps,
            key_slots,
            rsp_slots,
            key_codes,
            rsp_codes,
            ctx,
        )
        return self._greedy(
            candidates, sub_keys, sub_rsps, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
