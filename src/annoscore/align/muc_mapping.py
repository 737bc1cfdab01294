"""MUC mapping: which key object of a class goes with which response object, in one document.

The third step of the MUC alignment flow (the seed manual's "Calculation of Scores", for TE, TR
and ST), between the comparison of one pair (:mod:`annoscore.align.muc_compare`,
:mod:`annoscore.align.muc_codes`) and the per-document driver (:mod:`annoscore.align.muc`).
Within a class (:meth:`ClassMapping._align_class`):

1. every candidate (key, response) pair is scored: its F-score and weighted score, as
   :meth:`~annoscore.align.muc_compare.SlotComparison.compare_objects` has them;
2. pairs whose weighted score strictly exceeds the class's map threshold are sorted by F,
   descending, ties by key order then response order (exact and stable, decision 2), and taken
   greedily while both objects are still free (:meth:`ClassMapping._greedy`);
3. leftovers (:meth:`ClassMapping.leftover`): an unaligned optional key object is non-committal
   (all its fills NON), another unaligned key object is missing (MIS), an unaligned response
   object spurious (SPU).

Cost: within a document and class, at most quadratic in its objects.  With a threshold >= 0 (the
usual case; weights are never negative) only the pairs that share a fill code in a slot of
positive weight are scored (an index from code to response objects finds them,
:meth:`ClassMapping._sharing_pairs`): any other pair has weighted score 0 and could not align,
so the pairs found, their F and their order are those of scoring every pair.  Plain slots
compare precomputed codes (:mod:`annoscore.align.muc_codes`); only slots with alternatives,
several fills, optional marks or ``[minimum]`` strings go through the full comparison.

Bounds (issue 25): a class of one document whose candidate pairs number more than
:data:`MAX_PAIRS`, or a document whose full slot comparisons make more than
:data:`~annoscore.align.muc_compare.MAX_COMPARISONS` comparisons, is an
:class:`~annoscore.errors.InputError` naming the document and the count (exit 2), rather than
hours of work or gigabytes of memory.

Exactness: F orders the pairs as ``credit / total`` (equal fractions give equal floats, unequal
ones unequal floats for any realistic total); a weighted score within rounding distance of the
threshold is decided on exact fractions (:meth:`ClassMapping._exceeds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from annoscore.align.muc_codes import CodedComparison, SlotCode
from annoscore.align.muc_compare import DocumentContext, exact_weighted
from annoscore.align.muc_records import FillPair, ObjectPair, SlotPair
from annoscore.errors import InputError
from annoscore.formats.muc_config import ClassDef, MucConfig
from annoscore.templates import TemplateObject, TemplateSlot

MAX_PAIRS = 4_000_000
"""Candidate pairs the alignment of one class in one document may score (each is kept for the
greedy choice, about 100 bytes and a microsecond each); more is an :class:`InputError`."""


class ClassMapping(CodedComparison):
    """Aligns the objects of one class in one document (see the module docstring)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config)
        self._bands: dict[str, tuple[float, float]] = {}
        """:meth:`_threshold_band` of each class."""
        self.pairs_scored = 0
        """Key/response pairs whose F was computed (the quadratic part of the work)."""
        self._leftovers: dict[
            tuple[int, str, bool, str], tuple[tuple[TemplateSlot, ...], list[SlotPair]]
        ] = {}
        """Slot records of leftover objects (:meth:`leftover`), by the identity of the
        slots tuple (the entry holds it), class, side and status, when :attr:`shared_slots`
        is on."""

    def _align_class(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: DocumentContext,
    ) -> list[ObjectPair]:
        """Greedy alignment by F of one class (see the module docstring).

        The candidates are the pairs :meth:`_partners` gives (with a threshold >= 0, those
        sharing a fill code in a slot of positive weight: any other pair has weighted score
        0, which does not exceed the threshold; else every pair); the pairs found, their F and
        their order are those of scoring every pair."""
        name = definition.name.lower()
        if name not in self.indexed:
            self.indexed[name] = [
                self._prunable(definition) and d.weight > 0 for d in self.scored_defs[name]
            ]
        key_slots, key_codes, key_tokens = self._objects_codes(name, keys, True, ctx)
        rsp_slots, rsp_codes, rsp_tokens = self._objects_codes(name, rsps, False, ctx)
        partners = self._partners(definition, keys, rsps, key_tokens, rsp_tokens)
        count = sum(map(len, partners))
        self.pairs_scored += count
        self.document_pairs += count
        candidates = self._candidates(
            definition, partners, keys, rsps, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
        chosen, used = self._greedy(
            candidates, keys, rsps, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
        pairs = [chosen[i] for i in sorted(chosen)]
        pairs.extend(self.leftover(k, True, ctx) for i, k in enumerate(keys) if i not in chosen)
        pairs.extend(self.leftover(r, False, ctx) for j, r in enumerate(rsps) if j not in used)
        return pairs

    def _prunable(self, definition: ClassDef) -> bool:
        """Whether a pair sharing no fill code in a slot of positive weight cannot align: its
        weighted score is 0 (weights are never negative), which must not exceed the
        threshold."""
        scored = self.scored_defs[definition.name.lower()]
        return definition.threshold_value >= 0 and all(d.weight_value >= 0 for d in scored)

    def _partners(
        self,
        definition: ClassDef,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> Sequence[Sequence[int]]:
        """For each key object, the response objects (ascending) it may align with: those
        sharing a fill code in a slot of positive weight (:meth:`_sharing_pairs`) when
        :meth:`_prunable`, else all.  A subclass may restrict them (the named entity task: the
        objects whose spans overlap, :mod:`annoscore.align.muc_ne`).  More than
        :data:`MAX_PAIRS` is an :class:`InputError` (:meth:`_too_many_pairs`)."""
        if self._prunable(definition):
            partners = self._sharing_pairs(key_tokens, rsp_tokens, MAX_PAIRS)
            if partners is None:
                raise self._too_many_pairs(definition, keys, rsps, MAX_PAIRS)
            return partners
        if len(keys) * len(rsps) > MAX_PAIRS:
            raise self._too_many_pairs(definition, keys, rsps, MAX_PAIRS)
        return [range(len(rsps))] * len(keys)

    def _too_many_pairs(
        self,
        definition: ClassDef,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        limit: int,
    ) -> InputError:
        """The error of a class whose candidate pairs in one document exceed ``limit``
        (:data:`MAX_PAIRS`)."""
        return InputError(
            f"{len(keys)} key and {len(rsps)} response objects of class {definition.name} "
            f"make more than {limit:,} candidate pairs (of the "
            f"{len(keys) * len(rsps):,} key/response pairs, those that may align), more than "
            "the greedy alignment scores in one document; split the document, or give weight "
            "0 to slots that most objects share (a set fill like a type)",
            self.document_path,
            document=self.document,
        )

    def _greedy(
        self,
        candidates: list[tuple[float, int, int]],
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        key_slots: list[dict[str, TemplateSlot]],
        rsp_slots: list[dict[str, TemplateSlot]],
        key_codes: list[list[SlotCode]],
        rsp_codes: list[list[SlotCode]],
        ctx: DocumentContext,
    ) -> tuple[dict[int, ObjectPair], set[int]]:
        """The aligned pairs by key index, and the response indices taken: ``candidates``
        (``(-F, key index, response index)``, :meth:`_candidates`) sorted, each taken while
        both its objects are free (step 2 of the module docstring), recorded in ``ctx``."""
        candidates.sort()
        chosen: dict[int, ObjectPair] = {}
        used: set[int] = set()
        for _, i, j in candidates:
            if i in chosen or j in used:
                continue
            key, rsp = keys[i], rsps[j]
            chosen[i] = self._aligned_pair(
                key, rsp, key_slots[i], rsp_slots[j], key_codes[i], rsp_codes[j], ctx
            )
            used.add(j)
            ctx.k2r[key.id] = rsp.id
            ctx.r2k[rsp.id] = key.id
        return chosen, used

    @staticmethod
    def _sharing_pairs(
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
        limit: int,
    ) -> list[list[int]] | None:
        """For each key object, the response objects (ascending) sharing a token with it in
        the same slot; an object whose tokens are None pairs with every object.  None when
        there are more than ``limit`` pairs in all (found before they are all built)."""
        everyone = list(range(len(rsp_tokens)))
        indexes: dict[tuple[int, str], list[int]] = {}
        wild: list[int] = []
        for j, tokens in enumerate(rsp_tokens):
            if tokens is None:
                wild.append(j)
                continue
            for position, slot_tokens in enumerate(tokens):
                for token in slot_tokens:
                    indexes.setdefault((position, token), []).append(j)
        out: list[list[int]] = []
        total = 0
        for tokens in key_tokens:
            if tokens is None:
                found = everyone
            else:
                shared: set[int] = set(wild)
                for position, slot_tokens in enumerate(tokens):
                    for token in slot_tokens:
                        shared.update(indexes.get((position, token), ()))
                found = sorted(shared)
            total += len(found)
            if total > limit:
                return None
            out.append(found)
        return out

    def _candidates(
        self,
        definition: ClassDef,
        partners: Sequence[Sequence[int]],
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        key_slots: list[dict[str, TemplateSlot]],
        rsp_slots: list[dict[str, TemplateSlot]],
        key_codes: list[list[SlotCode]],
        rsp_codes: list[list[SlotCode]],
        ctx: DocumentContext,
    ) -> list[tuple[float, int, int]]:
        """``(-F, key index, response index)`` of every pair of ``partners`` whose weighted
        score exceeds the class threshold (:meth:`_exceeds`), F and weighted score as
        :meth:`compare_objects` has them (F as the fraction ``credit / total``).  Plain slots
        compare codes; the others go through :meth:`compare_slot`."""
        scored = self.scored_defs[definition.name.lower()]
        names = self.scored_names[definition.name.lower()]
        weights = [d.weight for d in scored]
        positions = range(len(scored))
        # weighted scores within rounding distance of the threshold are decided exactly
        above, below = self._threshold_band(definition)
        candidates: list[tuple[float, int, int]] = []
        for i, js in enumerate(partners):
            kcodes = key_codes[i]
            for j in js:
                rcodes = rsp_codes[j]
                credit = total = 0
                weighted = 0.0
                for s in positions:
                    a = kcodes[s]
                    b = rcodes[s]
                    if a is None and b is None:
                        continue
                    if (a is None and b) or (b is None and a):
                        total += 1
                        continue
                    if a and b:
                        if a[0] == b[0]:
                            slot_credit = 2
                        elif a[1] is not None and a[1] == b[1]:
                            slot_credit = 1
                        else:
                            total += 2
                            continue
                        slot_total = 2
                    else:
                        name = names[s]
                        slot_credit, slot_total = self.compare_slot(
                            scored[s], key_slots[i].get(name), rsp_slots[j].get(name), ctx
                        ).credit_and_total()
                    credit += slot_credit
                    total += slot_total
                    weight = weights[s]
                    if weight and slot_credit:
                        weighted += weight * 100.0 * slot_credit / slot_total
                if weighted > above or (
                    weighted >= below and self._exceeds(definition, keys[i], rsps[j], ctx)
                ):
                    candidates.append((-credit / total if total else 0.0, i, j))
        return candidates

    def _threshold_band(self, definition: ClassDef) -> tuple[float, float]:
        """``(above, below)``: a pair whose weighted score, as a float sum, is over ``above``
        exceeds the class threshold, one under ``below`` does not; in between (rounding
        distance: 1e-9 of the largest weighted score a pair can have) :meth:`_exceeds`
        decides exactly."""
        band = self._bands.get(definition.name)
        if band is None:
            threshold = definition.threshold
            most = 100.0 * sum(d.weight for d in self.scored_defs[definition.name.lower()])
            margin = 1e-9 * max(1.0, abs(threshold), most)
            band = self._bands[definition.name] = (threshold + margin, threshold - margin)
        return band

    def _exceeds(
        self, definition: ClassDef, key: TemplateObject, rsp: TemplateObject, ctx: DocumentContext
    ) -> bool:
        """Whether a pair's weighted score exceeds the class threshold, exactly: the weighted
        score of its full comparison (:func:`~annoscore.align.muc_compare.exact_weighted`:
        the weights and threshold as written, each slot's F a fraction)."""
        exact = exact_weighted(self.compare_objects(key, rsp, ctx))
        return exact > definition.threshold_value

    def leftover(self, obj: TemplateObject, is_key: bool, ctx: DocumentContext) -> ObjectPair:
        """An object left unaligned: MIS (key), SPU (response) or NON (optional).

        With :attr:`shared_slots` on (no pointer fills: the records depend on the slots
        alone), the records are made once per (slots tuple, class, side, status) and shared
        (read-only)."""
        if is_key:
            status = "non" if obj.id in ctx.optional else "mis"
        else:
            status = "non" if obj.optional else "spu"
        if self.shared_slots:
            signature = (id(obj.slots), obj.class_name, is_key, status)
            known = self._leftovers.get(signature)
            if known is None or known[0] is not obj.slots:
                records = self._leftover_slots(obj, is_key, status, ctx)
                known = self._leftovers[signature] = (obj.slots, records)
            return ObjectPair(status, obj if is_key else None, None if is_key else obj, known[1])
        slots = self._leftover_slots(obj, is_key, status, ctx)
        return ObjectPair(status, obj if is_key else None, None if is_key else obj, slots)

    def _leftover_slots(
        self, obj: TemplateObject, is_key: bool, status: str, ctx: DocumentContext
    ) -> list[SlotPair]:
        """The slot records of :meth:`leftover`."""
        slots: list[SlotPair] = []
        for definition in self.slot_defs[obj.class_name.lower()]:
            slot = obj.slot(definition.name)
            pair = SlotPair(definition, slot if is_key else None, None if is_key else slot)
            slots.append(pair)
            if slot is None:
                continue
            if is_key:
                alternatives, removed = self._key_alternatives(slot, ctx)
            else:
                alternatives, removed = [list(a) for a in slot.alternatives], []
            fills: list[FillPair] = []
            if not definition.scored:
                if is_key:
                    fills = [FillPair("uns", f, None) for alt in alternatives for f in alt]
            else:
                chosen = min(range(len(alternatives)), key=lambda i: (len(alternatives[i]), i))
                for i, alt in enumerate(alternatives):
                    own = status if i == chosen and not slot.optional else "non"
                    fills.extend(
                        FillPair(own, f, None) if is_key else FillPair(own, None, f) for f in alt
                    )
                if is_key:
                    pair.key_alternative = chosen
                else:
                    pair.response_alternative = chosen
            pair.fills = fills + removed
        return slots
