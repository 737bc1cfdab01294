"""MUC slot comparison: how one key/response object pair scores, slot by slot (TE, TR, ST).

The first step of the MUC alignment flow: :class:`SlotComparison` compares the slots of one
object pair, the way the seed manual's "Calculation of Scores" does, and everything faster
(:mod:`annoscore.align.muc_codes`), the choice of the pairs (:mod:`annoscore.align.muc_mapping`)
and the per-document driver (:mod:`annoscore.align.muc`) builds on it.  It writes the records of
:mod:`annoscore.align.muc_records`.

Slot comparison (decision 11): the response multi-fill is compared with every key alternative and
the best F wins (ties: fewer key fills, then the earlier alternative); other alternatives' fills
are NON.  Two multi-fills pair their single fills greedily by F (COR 100, PAR 50, INC 0), ties by
key then response order; leftovers are MIS and SPU.  A scored slot empty on both sides, or optional
in the key and empty in the response, counts one NON.  An unscored slot counts NON per key fill.
A pointer fill is correct when its key target is aligned with its response target (with
``:equatable_objects``, any object identical to the target will do); a key pointer to an optional
key object left unaligned is *removed* (``rem``: it counts nothing).

A pair's F-score is ``F = 2 * (COR + PAR/2) / (POS + ACT)`` over the single fills of its scored
slots (the P&R F, 0 when nothing agrees), and its weighted score is
``sum(weight(slot) * 100 * F(slot))``.

What pointer comparison reads about the document is its :class:`DocumentContext`: the objects
aligned so far, the optional key objects and the equatable objects' representatives.  Implicit
optional key objects (:func:`optional_keys`): TR, an object pointing to an optional object; ST, an
object all of whose incoming pointers sit in optional slots, in one alternative but not another of
their slot, or in optional objects (the manual, "TR and ST scoring").

Bound (issue 25): the full slot comparisons of one document (slots with several fills,
alternatives, optional marks or ``[minimum]`` strings, each pair of their single fills compared)
make at most :data:`MAX_COMPARISONS` comparisons; more is an :class:`~annoscore.errors.InputError`
naming the document.

>>> fraction(3, 4), fraction(0, 0)
(0.75, 0.0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from annoscore.align.muc_records import FillPair, ObjectPair, SlotPair
from annoscore.align.muc_strings import StringRules
from annoscore.errors import InputError
from annoscore.formats.muc_config import MucConfig, SlotDef
from annoscore.templates import TemplateFill, TemplateObject, TemplateSlot

_RANK = {"cor": 0, "par": 1, "inc": 2}
_CREDIT = {"cor": 2, "par": 1, "inc": 0}

MAX_COMPARISONS = 2_000_000
"""Comparisons the full slot comparisons of one document may make: 2 per slot compared
(:meth:`SlotComparison.compare_slot`) and 1 per pair of single fills (:meth:`SlotComparison._multi`)
(about 1.5 microseconds each, so about 3 s); more is an :class:`InputError`."""


def fraction(credit: int, denominator: int) -> float:
    """``credit / denominator``, 0 when the denominator is 0 (a pair or slot with no fills)."""
    return credit / denominator if denominator else 0.0


def exact_weighted(pair: ObjectPair) -> Fraction:
    """The weighted score of a compared pair, exactly: the sum over its scored slots of the
    slot's weight (as written) x 100 x its F (``credit / total``, 0 when the slot has no
    fills).

    >>> from annoscore.formats.muc_config import SlotDef
    >>> slot = SlotDef("a", "s", "s", True, 0.07, "set", exact_weight=Fraction("0.07"))
    >>> exact_weighted(ObjectPair("cor", None, None, [SlotPair(slot, None, None,
    ...                                                        [FillPair("cor")])]))
    Fraction(7, 1)
    """
    total = Fraction(0)
    for slot in pair.slots:
        definition = slot.definition
        if not definition.scored:
            continue
        credit, denominator = slot.credit_and_total()
        if credit and denominator:
            total += definition.weight_value * 100 * Fraction(credit, denominator)
    return total


class DocumentContext:
    """Per-document state: alignments so far, optional keys, equivalences."""

    __slots__ = (
        "k2r",
        "key_rep",
        "optional",
        "r2k",
        "rsp_members",
        "rsp_rep",
    )

    def __init__(self) -> None:
        self.k2r: dict[str, str] = {}
        self.r2k: dict[str, str] = {}
        self.optional: set[str] = set()
        self.key_rep: dict[str, str] = {}
        self.rsp_rep: dict[str, str] = {}
        self.rsp_members: dict[str, list[str]] = {}


def document_context(
    key_objects: Sequence[TemplateObject],
    rsp_objects: Sequence[TemplateObject],
    task: str,
    equatable: set[str],
) -> DocumentContext:
    """The context of a document before any class is aligned: its optional key objects
    (:func:`optional_keys`) and both sides' representatives (:func:`representatives`)."""
    ctx = DocumentContext()
    ctx.optional = optional_keys(key_objects, task)
    ctx.key_rep = representatives(key_objects, equatable)
    ctx.rsp_rep = representatives(rsp_objects, equatable)
    for member, rep in ctx.rsp_rep.items():
        ctx.rsp_members.setdefault(rep, []).append(member)
    return ctx


def optional_keys(objects: Sequence[TemplateObject], task: str) -> set[str]:
    """The ids of the optional key objects: marked so, or implicitly (see the module doc).

    >>> from annoscore.templates import TemplateFill, TemplateSlot
    >>> person = TemplateObject("PERSON-1-1", "PERSON", "1", "1", (), optional=True)
    >>> points = TemplateSlot("PERSON", ((TemplateFill("PERSON-1-1", is_pointer=True),),))
    >>> relation = TemplateObject("EMPLOYEE_OF-1-1", "EMPLOYEE_OF", "1", "1", (points,))
    >>> sorted(optional_keys([person, relation], "template_relation"))
    ['EMPLOYEE_OF-1-1', 'PERSON-1-1']
    >>> sorted(optional_keys([person, relation], "template_element"))
    ['PERSON-1-1']
    """
    optional = {o.id for o in objects if o.optional}
    if task == "template_relation" and optional:
        pointing: dict[str, list[str]] = {}  # target -> the objects pointing to it
        for obj in objects:
            for target in {f.text for s in obj.slots for f in s.fills if f.is_pointer}:
                pointing.setdefault(target, []).append(obj.id)
        queue = deque(optional)
        while queue:
            for source in pointing.get(queue.popleft(), ()):
                if source not in optional:
                    optional.add(source)
                    queue.append(source)
    elif task == "scenario_template":
        ids = {o.id for o in objects}
        strong: dict[
            str, int
        ] = {}  # target -> pointers to it not weak whose source is not optional
        outgoing: dict[str, list[str]] = {}  # source -> the targets it points to (not weakly)
        pointed: list[str] = []
        for obj in objects:
            for slot in obj.slots:
                for fill in {f.text for f in slot.fills if f.is_pointer}:
                    if fill not in strong:
                        strong[fill] = 0
                        pointed.append(fill)
                    weak = slot.optional or any(
                        all(f.text != fill for f in alt) for alt in slot.alternatives
                    )
                    if not weak:
                        strong[fill] += 1
                        outgoing.setdefault(obj.id, []).append(fill)
        # a pointed-to object is optional once every pointer to it is weak or comes from an
        # optional object: the least fixed point of that rule, one pointer at a time
        queue = deque(optional)
        for target in pointed:
            if not strong[target] and target in ids and target not in optional:
                optional.add(target)
                queue.append(target)
        while queue:
            for target in outgoing.get(queue.popleft(), ()):
                strong[target] -= 1
                if not strong[target] and target in ids and target not in optional:
                    optional.add(target)
                    queue.append(target)
    return optional


def representatives(objects: Sequence[TemplateObject], equatable: set[str]) -> dict[str, str]:
    """For each object of an ``:equatable_objects`` class (lower-case names), the first object
    of the same class and content (slot names, fills in any case)."""
    reps: dict[str, str] = {}
    if not equatable:
        return reps
    seen: dict[tuple[object, ...], str] = {}
    for obj in objects:
        if obj.class_name.lower() not in equatable:
            continue
        content = tuple(
            sorted(
                (
                    s.name.lower(),
                    tuple(tuple(f.text.lower() for f in a) for a in s.alternatives),
                )
                for s in obj.slots
            )
        )
        signature = (obj.class_name.lower(), content)
        reps[obj.id] = seen.setdefault(signature, obj.id)
    return reps


class SlotComparison:
    """The configuration's tables and the full comparison of slots and object pairs (see the
    module docstring); :class:`~annoscore.align.muc.MucAligner` is built on it."""

    def __init__(self, config: MucConfig) -> None:
        self.config = config
        self.rules = StringRules(
            config.items("premodifiers"),
            config.items("postmodifiers"),
            config.items("corporate_designators"),
            config.value("stringfill_correct_comparison"),
            config.value("stringfill_partial_comparison"),
        )
        self.classes = config.class_defs
        self.order = {c.name.lower(): i for i, c in enumerate(self.classes)}
        self.slot_defs = {c.name.lower(): config.slots_of(c.name) for c in self.classes}
        self.scored_defs = {
            name: tuple(s for s in slots if s.scored) for name, slots in self.slot_defs.items()
        }
        self.slot_names = {
            name: {s.name.lower() for s in slots} for name, slots in self.slot_defs.items()
        }
        self.slot_names_in_order = {
            name: [s.name.lower() for s in slots] for name, slots in self.slot_defs.items()
        }
        self.scored_names = {
            name: [s.name.lower() for s in slots] for name, slots in self.scored_defs.items()
        }
        self.template = config.value("template_name").lower()
        self.content = config.value("content_name").lower()
        self.task = config.scoring_task
        self.key2key = config.key2key
        self.equatable = {name.lower() for name in config.items("equatable_objects")}
        self.document = ""
        """The document being aligned (named by the errors of the bounds)."""
        self.document_path: Path | None = None
        """The key file of the document being aligned (else its response file)."""
        self.comparisons = 0
        """Comparisons made in the document being aligned (:meth:`_count`)."""
        self.document_pairs = 0
        """Candidate pairs of the document being aligned, so far."""

    def _status(self, kind: str, key: TemplateFill, rsp: TemplateFill, ctx: DocumentContext) -> str:
        if key.is_pointer or rsp.is_pointer:
            if not (key.is_pointer and rsp.is_pointer):
                return "inc"
            key_rep = ctx.key_rep.get(key.text, key.text)
            members = ctx.rsp_members.get(ctx.rsp_rep.get(rsp.text, rsp.text), [rsp.text])
            for member in members:
                aligned = ctx.r2k.get(member)
                if aligned is not None and ctx.key_rep.get(aligned, aligned) == key_rep:
                    return "cor"
            return "inc"
        if kind == "string":
            return self.rules.compare_strings(key, rsp)
        return self.rules.compare_sets(key, rsp)

    def _multi(
        self,
        kind: str,
        key: Sequence[TemplateFill],
        rsp: Sequence[TemplateFill],
        ctx: DocumentContext,
    ) -> tuple[list[FillPair], int]:
        """Pair two multi-fills greedily by F; returns the pairs and 2*COR + PAR."""
        self._count(1 + len(key) * len(rsp))
        if len(key) == 1 and len(rsp) == 1:
            status = self._status(kind, key[0], rsp[0], ctx)
            return [FillPair(status, key[0], rsp[0])], _CREDIT[status]
        if not key or not rsp:
            return [FillPair("mis", k, None) for k in key] + [
                FillPair("spu", None, r) for r in rsp
            ], 0
        candidates = sorted(
            (_RANK[self._status(kind, k, r, ctx)], i, j)
            for i, k in enumerate(key)
            for j, r in enumerate(rsp)
        )
        used_k: dict[int, tuple[int, str]] = {}
        used_r: set[int] = set()
        statuses = ("cor", "par", "inc")
        for rank, i, j in candidates:
            if i in used_k or j in used_r:
                continue
            used_k[i] = (j, statuses[rank])
            used_r.add(j)
        pairs: list[FillPair] = []
        credit = 0
        for i, k in enumerate(key):
            if i in used_k:
                j, status = used_k[i]
                pairs.append(FillPair(status, k, rsp[j]))
                credit += _CREDIT[status]
        pairs.extend(FillPair("mis", k, None) for i, k in enumerate(key) if i not in used_k)
        pairs.extend(FillPair("spu", None, r) for j, r in enumerate(rsp) if j not in used_r)
        return pairs, credit

    def _count(self, units: int) -> None:
        """Add ``units`` to the document's :attr:`comparisons`: more than
        :data:`MAX_COMPARISONS` is an :class:`InputError` naming the document."""
        self.comparisons += units
        if self.comparisons > MAX_COMPARISONS:
            raise InputError(
                f"comparing the slots with several fills, alternatives, optional marks or "
                f"[minimum] strings of its {self.document_pairs:,} candidate pairs takes more "
                f"than {MAX_COMPARISONS:,} comparisons (2 per slot, 1 per pair of single "
                "fills), more than annoscore makes for one document; split the document or "
                "its multi-fills",
                self.document_path,
                document=self.document,
            )

    def _key_alternatives(
        self, slot: TemplateSlot | None, ctx: DocumentContext
    ) -> tuple[list[list[TemplateFill]], list[FillPair]]:
        """The slot's alternatives without removed pointers, and the removed ones."""
        if slot is None:
            return [[]], []
        removed: list[FillPair] = []
        alternatives: list[list[TemplateFill]] = []
        for alternative in slot.alternatives:
            kept = []
            for fill in alternative:
                if fill.is_pointer and fill.text in ctx.optional and fill.text not in ctx.k2r:
                    removed.append(FillPair("rem", fill, None))
                else:
                    kept.append(fill)
            alternatives.append(kept)
        return alternatives, removed

    def compare_slot(
        self,
        definition: SlotDef,
        key: TemplateSlot | None,
        rsp: TemplateSlot | None,
        ctx: DocumentContext,
    ) -> SlotPair:
        """Compare one slot of an aligned (or candidate) pair (see the module docstring)."""
        self._count(2)
        result = SlotPair(definition, key, rsp)
        key_alts, removed = self._key_alternatives(key, ctx)
        if not definition.scored:
            result.fills = [FillPair("uns", f, None) for alt in key_alts for f in alt] + removed
            return result
        rsp_alts: list[list[TemplateFill]] = [list(a) for a in rsp.alternatives] if rsp else [[]]
        key_empty = not any(key_alts)
        rsp_empty = not any(rsp_alts)
        if rsp_empty and (key_empty or (key is not None and key.optional)):
            result.fills = [FillPair("opt", f, None) for alt in key_alts for f in alt] + removed
            result.slot_non = 1
            return result
        if key_empty and rsp is not None and rsp.optional:
            result.fills = [FillPair("opt", None, f) for alt in rsp_alts for f in alt] + removed
            result.slot_non = 1
            return result
        best: tuple[tuple[float, int, int, int, int], list[FillPair]] | None = None
        for ki, ka in enumerate(key_alts):
            for ri, ra in enumerate(rsp_alts):
                pairs, credit = self._multi(definition.kind, ka, ra, ctx)
                rank = (-fraction(credit, len(ka) + len(ra)), len(ka), len(ra), ki, ri)
                if best is None or rank < best[0]:
                    best = (rank, pairs)
        assert best is not None
        (_, _, _, ki, ri), fills = best
        result.key_alternative, result.response_alternative = ki, ri
        for i, alt in enumerate(key_alts):
            if i != ki:
                fills.extend(FillPair("non", f, None) for f in alt)
        for i, alt in enumerate(rsp_alts):
            if i != ri:
                fills.extend(FillPair("non", None, f) for f in alt)
        result.fills = fills + removed
        return result

    def compare_objects(
        self, key: TemplateObject, rsp: TemplateObject, ctx: DocumentContext
    ) -> ObjectPair:
        """All slots of a key/response pair, with the pair's F and weighted score."""
        slots: list[SlotPair] = []
        credit = total = 0
        weighted = 0.0
        for definition in self.slot_defs[key.class_name.lower()]:
            pair = self.compare_slot(
                definition, key.slot(definition.name), rsp.slot(definition.name), ctx
            )
            slots.append(pair)
            if not definition.scored:
                continue
            slot_credit, slot_total = pair.credit_and_total()
            credit += slot_credit
            total += slot_total
            if definition.weight:
                weighted += definition.weight * 100.0 * fraction(slot_credit, slot_total)
        return ObjectPair("cor", key, rsp, slots, 100.0 * fraction(credit, total), weighted)
