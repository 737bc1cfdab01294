"""MUC named entity alignment: the template alignment, restricted to tags at the same place.

The manual ("Named Entity (NE) Task Scoring"): NE is scored like the template element task,
"except that the objects which are aligned must come from SGML elements in the same position of
the original text file".  So :class:`NeAligner` is :class:`~annoscore.align.muc.MucAligner`
(same pair F, same weighted threshold, same greedy order, same tallies) whose candidate pairs are
the key and response objects of a class whose spans *overlap*: half-open spans, touching spans do
not overlap (../shared/spec/muc.md, decision 6).  An overlapping pair that agrees in nothing has
weighted score 0 and does not align (decision 15a): the key tallies MIS, the response SPU.

Candidates are found by a sweep over the responses sorted by start (bisection), so the work per
document is about linear in its tags (quadratic only if every tag overlaps every other).

>>> from annoscore.model import TemplateObject, TemplateSlot
>>> def tag(start: int, end: int) -> TemplateObject:
...     return TemplateObject("X", "enamex", "1", "1", (), start=start, end=end)
>>> overlapping_partners([tag(0, 5), tag(10, 12)], [tag(5, 8), tag(3, 11), tag(11, 20)])
[[1], [1, 2]]
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, sub
from typing import Literal

from annoscore.align.muc import MucAligner
from annoscore.align.muc_codes import SlotCode
from annoscore.align.muc_compare import DocumentContext, fraction
from annoscore.align.muc_records import ObjectPair, SlotPair
from annoscore.formats.muc_config import ClassDef, MucConfig, SlotDef
from annoscore.model import TemplateObject, TemplateSlot


def overlapping_partners(
    keys: Sequence[TemplateObject], rsps: Sequence[TemplateObject]
) -> list[list[int]]:
    """For each key object, the response objects (ascending index) whose span overlaps it (an
    object without a place in the text counts as the empty span at 0)."""
    bounds = [(r.start, r.end) if r.start >= 0 else (0, 0) for r in rsps]
    order = sorted(range(len(rsps)), key=bounds.__getitem__)
    starts = [bounds[j][0] for j in order]
    longest = max((end - start for start, end in bounds), default=0)
    places = [(k.start, k.end) if k.start >= 0 else (0, 0) for k in keys]
    # the responses starting in [start - longest, end): earlier starts end by `start`
    lows = map(bisect.bisect_right, repeat(starts), [start - longest for start, _ in places])
    highs = map(bisect.bisect_left, repeat(starts), [end for _, end in places])
    out: list[list[int]] = []
    for (start, end), low, high in zip(places, lows, highs, strict=True):
        if high - low == 1:  # one response to look at (the usual case)
            j = order[low]
            r_start, r_end = bounds[j]
            out.append([j] if r_end > start and r_start < end else [])
            continue
        found = []
        for position in range(low, high):
            j = order[position]
            r_start, r_end = bounds[j]
            if r_end > start and r_start < end:
                found.append(j)
        if len(found) > 1:
            found.sort()
        out.append(found)
    return out


_slots_of = attrgetter("slots")


def _overlap_runs(
    keys: Sequence[TemplateObject], rsps: Sequence[TemplateObject]
) -> tuple[list[int], list[int]] | None:
    """For each key, the run ``[low, high)`` of the responses (file order) overlapping it, when
    both sides have spans (start >= 0) whose starts and ends, in file order, never decrease;
    else None (see :meth:`NeAligner._align_class`).

    A response ends after the key starts from ``low`` on (ends ascending) and starts before
    the key ends up to ``high`` (starts ascending); ``high < low`` (empty spans at one point)
    is an empty run.
    """
    key_starts = [k.start for k in keys]
    key_ends = [k.end for k in keys]
    rsp_starts = [r.start for r in rsps]
    rsp_ends = [r.end for r in rsps]
    for values in (key_starts, key_ends, rsp_starts, rsp_ends):
        if (values and values[0] < 0) or values != sorted(values):
            return None
    lows = list(map(bisect.bisect_right, repeat(rsp_ends), key_starts))
    highs = list(map(bisect.bisect_left, repeat(rsp_starts), key_ends))
    return lows, highs


class NeAligner(MucAligner):
    """:class:`MucAligner` whose candidate pairs overlap in the text (see the module doc)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config, prune=False)
        self.shared_slots = True  # ne_objects shares equal TYPE and TEXT slots
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
        self, keys: Sequence[TemplateObject], rsps: Sequence[TemplateObject]
    ) -> Sequence[Sequence[int]]:
        return overlapping_partners(keys, rsps)

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

        When each side's spans, in file order, have non-decreasing starts and non-decreasing
        ends (no tag inside another of its side: the usual case), the responses overlapping a
        key are a run ``[low, high)`` of the responses, found by bisection for every key at
        once, and a key's single partner ``j = low`` is its alone exactly when the previous
        key's run ends by ``j`` and the next key's starts after it (both bounds move forward
        with the keys).  Otherwise :func:`overlapping_partners` finds them."""
        if not self.shared_slots or not keys or not rsps:
            return super()._align_class(definition, keys, rsps, ctx)
        name = definition.name.lower()
        runs = _overlap_runs(keys, rsps)
        if runs is None:
            partners: Sequence[Sequence[int]] = overlapping_partners(keys, rsps)
            lows, single = self._isolated(partners, len(rsps))
            self.pairs_scored += sum(map(len, partners))
        else:
            lows, highs = runs
            widths = list(map(sub, highs, lows))  # < 0: empty spans at one point, no overlap
            single = [
                width == 1 and previous_high <= low < next_low
                for width, low, previous_high, next_low in zip(
                    widths, lows, [0, *highs[:-1]], [*lows[1:], len(rsps) + 1], strict=True
                )
            ]
            self.pairs_scored += sum(width for width in widths if width > 0)
            partners = list(map(range, lows, highs))
        # the aligned record of each key and its first partner, if any (the entry holds both
        # tuples: an identity found is the tuple's own)
        firsts = [*rsps, None]  # None: no partner
        rsp_tuples = [*map(id, map(_slots_of, rsps)), 0]
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
                keys, map(firsts.__getitem__, lows), single, wholes, strict=True
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
        if not weighted > definition.threshold:
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
    def _isolated(partners: Sequence[Sequence[int]], count: int) -> tuple[list[int], list[bool]]:
        """For each key, its first partner (0 when none) and whether it is its only partner
        and overlaps no other key."""
        uses = [0] * count
        for js in partners:
            for j in js:
                uses[j] += 1
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
            definition, sub_partners, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
        return self._greedy(
            candidates, sub_keys, sub_rsps, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
