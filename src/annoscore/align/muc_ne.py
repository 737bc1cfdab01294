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

>>> from annoscore.model import TemplateObject
>>> def tag(start: int, end: int) -> TemplateObject:
...     return TemplateObject("X", "enamex", "1", "1", (), start=start, end=end)
>>> overlapping_partners([tag(0, 5), tag(10, 12)], [tag(5, 8), tag(3, 11), tag(11, 20)])
[[1], [1, 2]]
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import repeat

from annoscore.align.muc import MucAligner, ObjectPair, _DocumentContext
from annoscore.formats.muc_config import ClassDef, MucConfig
from annoscore.model import TemplateObject


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


class NeAligner(MucAligner):
    """:class:`MucAligner` whose candidate pairs overlap in the text (see the module doc)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config, prune=False)
        self.shared_slots = True  # ne_objects shares equal TYPE and TEXT slots

    def _partners(
        self,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        prune: bool,
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> Sequence[Sequence[int]]:
        return overlapping_partners(keys, rsps)

    def _align_class(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: _DocumentContext,
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
        equal)."""
        if not self.shared_slots or not keys or not rsps:
            return super()._align_class(definition, keys, rsps, ctx)
        name = definition.name.lower()
        partners = overlapping_partners(keys, rsps)
        self.pairs_scored += sum(map(len, partners))
        uses = [0] * len(rsps)
        for js in partners:
            for j in js:
                uses[j] += 1
        records = self._pair_records
        chosen: dict[int, ObjectPair] = {}
        used: set[int] = set()
        rest: list[int] = []  # keys left to the general path
        k2r, r2k = ctx.k2r, ctx.r2k
        for i, js in enumerate(partners):
            if len(js) == 1 and uses[js[0]] == 1:
                j = js[0]
                key, rsp = keys[i], rsps[j]
                key_slots, rsp_slots = key.slots, rsp.slots
                whole = records.get((id(key_slots), id(rsp_slots), name))
                if whole is not None and whole[0] is key_slots and whole[1] is rsp_slots:
                    chosen[i] = ObjectPair("cor", key, rsp, whole[2], whole[3], whole[4])
                    used.add(j)
                    k2r[key.id] = rsp.id
                    r2k[rsp.id] = key.id
                    continue
            rest.append(i)
        if rest:
            self._align_rest(definition, keys, rsps, partners, rest, chosen, used, ctx)
        pairs = [chosen[i] for i in sorted(chosen)]
        pairs.extend(self.leftover(k, True, ctx) for i, k in enumerate(keys) if i not in chosen)
        pairs.extend(self.leftover(r, False, ctx) for j, r in enumerate(rsps) if j not in used)
        return pairs

    def _align_rest(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        partners: list[list[int]],
        rest: list[int],
        chosen: dict[int, ObjectPair],
        used: set[int],
        ctx: _DocumentContext,
    ) -> None:
        """The general greedy alignment of the keys ``rest`` (ascending indices) and the
        responses not in ``used``, added to ``chosen`` and ``used`` (see
        :meth:`_align_class`)."""
        name = definition.name.lower()
        if name not in self.indexed:
            self.indexed[name] = [False] * len(self.scored_defs[name])
        free = [j for j in range(len(rsps)) if j not in used]
        position = {j: p for p, j in enumerate(free)}
        sub_keys = [keys[i] for i in rest]
        sub_rsps = [rsps[j] for j in free]
        sub_partners = [[position[j] for j in partners[i]] for i in rest]
        key_slots, key_codes, _ = self._objects_codes(name, sub_keys, True, ctx)
        rsp_slots, rsp_codes, _ = self._objects_codes(name, sub_rsps, False, ctx)
        candidates = self._candidates(
            definition, sub_partners, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
        candidates.sort()
        taken: set[int] = set()
        records = self._pair_records
        for _, a, b in candidates:
            i, j = rest[a], free[b]
            if i in chosen or b in taken:
                continue
            key, rsp = sub_keys[a], sub_rsps[b]
            whole = records.get((id(key.slots), id(rsp.slots), name))
            if whole is not None:
                chosen[i] = ObjectPair("cor", key, rsp, whole[2], whole[3], whole[4])
            else:
                chosen[i] = self._aligned_pair(
                    key, rsp, key_slots[a], rsp_slots[b], key_codes[a], rsp_codes[b], ctx
                )
            taken.add(b)
            used.add(j)
            ctx.k2r[key.id] = rsp.id
            ctx.r2k[rsp.id] = key.id
