"""MUC object alignment ("mapping"): the seed manual's "Calculation of Scores", for TE, TR and ST.

Per document, classes are aligned in ``:class_defs`` order.  Within a class:

1. every (key, response) pair is compared slot by slot (below); its F-score is
   ``F = 2 * (COR + PAR/2) / (POS + ACT)`` over the single fills of its scored slots (the P&R F,
   0 when nothing agrees), and its weighted score is ``sum(weight(slot) * 100 * F(slot))``;
2. pairs whose weighted score strictly exceeds the class's map threshold are sorted by F,
   descending, ties by key order then response order (exact and stable, decision 2), and taken
   greedily while both objects are still free;
3. leftovers: an unaligned optional key object is non-committal (all its fills NON), another
   unaligned key object is missing (MIS), an unaligned response object spurious (SPU).

The ``:template_name`` class (``TEMPLATE``) is not searched: the document's key and response
template objects are paired directly; its object row counts NON (the manual's ST report).

Slot comparison (decision 11): the response multi-fill is compared with every key alternative and
the best F wins (ties: fewer key fills, then the earlier alternative); other alternatives' fills
are NON.  Two multi-fills pair their single fills greedily by F (COR 100, PAR 50, INC 0), ties by
key then response order; leftovers are MIS and SPU.  A scored slot empty on both sides, or optional
in the key and empty in the response, counts one NON.  An unscored slot counts NON per key fill.
A pointer fill is correct when its key target is aligned with its response target (with
``:equatable_objects``, any object identical to the target will do); a key pointer to an optional
key object left unaligned is *removed* (``rem``: it counts nothing).

Implicit optional key objects: TR, an object pointing to an optional object; ST, an object all of
whose incoming pointers sit in optional slots, in one alternative but not another of their slot,
or in optional objects (the manual, "TR and ST scoring").

Cost: linear in documents; within a document and class, at most quadratic in its objects.  With
a threshold and weights >= 0 (the usual case) only the pairs that share a fill code in a slot of
positive weight are scored (an index from code to response objects finds them); any other pair
has weighted score 0 and could not align.  Plain slots (one fill or none on each side) compare
precomputed codes (the cleaned string, the set value, the aligned pointer target); only slots with
alternatives, several fills, optional marks or ``[minimum]`` strings go through the full
comparison.  Each string is normalized once (cached).  ``MucAligner(prune=False)`` scores every
pair, as the manual describes it; a property test holds both equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter

from annoscore.align.muc_strings import StringRules
from annoscore.errors import InputError
from annoscore.formats.muc_config import ClassDef, MucConfig, SlotDef
from annoscore.model import TemplateDocument, TemplateFill, TemplateObject, TemplateSlot
from annoscore.result import ScoreWarning

COUNTED = ("cor", "par", "inc", "mis", "spu", "non")
"""Fill statuses that are tallies; ``uns`` counts as NON; ``opt`` and ``rem`` count nothing."""

_TALLY_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5, "uns": 5}
"""Position of a fill status in a (COR, PAR, INC, MIS, SPU, NON) tally."""
_RANK = {"cor": 0, "par": 1, "inc": 2}
_CREDIT = {"cor": 2, "par": 1, "inc": 0}

_Code = tuple[str, str | None]
"""Equality codes ``(correct, partial)`` of a single fill (:meth:`MucAligner._fill_code`)."""
_SlotCode = _Code | tuple[()] | None
"""A scored slot of a candidate object (:meth:`MucAligner._object_codes`)."""
_ObjectEntry = tuple[
    tuple[TemplateSlot, ...], dict[str, TemplateSlot], list[_SlotCode], list[list[str]] | None
]
"""An object's slots tuple, slots by lower-case name, codes and tokens."""
_SlotPairEntry = tuple[TemplateSlot | None, TemplateSlot | None, "SlotPair", int, int, float]
"""A slot record compared by codes: both slots, the record, credit, total and weighted score
(:meth:`MucAligner._coded_slot_pair`)."""
_slots_of = attrgetter("slots")
_second = itemgetter(1)
_third = itemgetter(2)
_fourth = itemgetter(3)


@dataclass(slots=True)
class FillPair:
    """The fate of one key and/or response single fill."""

    status: str
    key: TemplateFill | None = None
    response: TemplateFill | None = None


@dataclass(slots=True)
class SlotPair:
    """How one slot of a key/response object pair (or of a leftover object) was scored."""

    definition: SlotDef
    key: TemplateSlot | None
    response: TemplateSlot | None
    fills: list[FillPair] = field(default_factory=list)
    slot_non: int = 0
    key_alternative: int = 0
    response_alternative: int = 0

    def tally(self) -> tuple[int, int, int, int, int, int]:
        """(COR, PAR, INC, MIS, SPU, NON) of this slot."""
        c = [0, 0, 0, 0, 0, self.slot_non]
        for pair in self.fills:
            index = _TALLY_INDEX.get(pair.status)
            if index is not None:
                c[index] += 1
        return c[0], c[1], c[2], c[3], c[4], c[5]


@dataclass(slots=True)
class ObjectPair:
    """An aligned pair (status ``cor``; ``non`` for templates) or a leftover (``mis``/``spu``/
    ``non`` for an optional key object).

    With :attr:`MucAligner.shared_slots` on, pairs of equal slots share one ``slots`` list
    (and its records): read-only once made, so that the reports can do the work of each list
    once."""

    status: str
    key: TemplateObject | None
    response: TemplateObject | None
    slots: list[SlotPair]
    f_score: float | None = None
    weighted: float | None = None


@dataclass(slots=True)
class ClassAlignment:
    definition: ClassDef
    pairs: list[ObjectPair]


@dataclass(slots=True)
class DocumentAlignment:
    """Everything the reports need about one document: the map history."""

    document: str
    classes: list[ClassAlignment]
    text_filter: str | None = None
    in_key: bool = True
    in_response: bool = True


def _by_class(objects: Sequence[TemplateObject]) -> dict[str, list[TemplateObject]]:
    """The objects of each class (lower-case name), in order."""
    grouped: dict[str, list[TemplateObject]] = {}
    for obj in objects:
        members = grouped.get(obj.class_name)
        if members is None:
            members = grouped[obj.class_name] = []
        members.append(obj)
    out = {name.lower(): members for name, members in grouped.items()}
    if len(out) < len(grouped):  # a class written in two cases: one list, in file order
        out = {}
        for obj in objects:
            out.setdefault(obj.class_name.lower(), []).append(obj)
    return out


def _fraction(credit: int, denominator: int) -> float:
    return credit / denominator if denominator else 0.0


class _DocumentContext:
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


class MucAligner:
    """Aligns and compares the objects of one document at a time (see the module docstring)."""

    def __init__(
        self, config: MucConfig, text_filter: str = "agreement", *, prune: bool = True
    ) -> None:
        """``prune=False`` scores every key/response pair of a class, as the manual describes
        it; the default scores only the pairs that can exceed the threshold (same result,
        see :meth:`_align_class`)."""
        self.config = config
        self.prune = prune
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
        self.text_filter_mode = text_filter
        self.warnings: list[str | ScoreWarning] = []
        self._string_codes: dict[str, _Code] = {}
        self._set_codes: dict[str, _Code] = {}
        self._slot_codes: dict[
            tuple[int, str, bool], tuple[TemplateSlot, _SlotCode, list[str] | None]
        ] = {}
        """Code and tokens of each slot without pointers (:meth:`_object_codes`), by the
        slot's identity (the entry holds the slot, so the identity is not reused), kind and
        side, when :attr:`shared_slots` is on."""
        self.shared_slots = False
        """Whether the reader shares slot objects of equal content and makes no pointer fills
        (the named entity reader: TYPE and TEXT), so that remembering each slot's codes and
        each compared slot pair's record pays (a subclass turns it on; template files have one
        slot object per slot, and pointers whose codes depend on the document)."""
        self._object_entries: dict[tuple[str, bool], dict[int, _ObjectEntry]] = {}
        """Slots by name, codes and tokens of each shared slots tuple, by class and side, then
        by the tuple's identity (:meth:`_objects_codes`)."""
        self._pair_scores: dict[
            str,
            dict[tuple[int, int], tuple[list[_SlotCode], list[_SlotCode], float | None]],
        ] = {}
        """By class, then by the identities of two codes lists of plain objects (the entry
        holds them): the pair's ``-F`` when it may align, else None (:meth:`_candidates`,
        when :attr:`shared_slots` is on)."""
        self.indexed: dict[str, list[bool]] = {}
        """By class: whether each scored slot's tokens are indexed (:meth:`_align_class`)."""
        self._pair_records: dict[
            tuple[int, int, str],
            tuple[tuple[TemplateSlot, ...], tuple[TemplateSlot, ...], list[SlotPair], float, float],
        ] = {}
        """Slot records, F and weighted score of an aligned pair compared by codes alone, by
        the identities of both slots tuples and the class (:meth:`_aligned_pair`)."""
        self._slot_pairs: dict[tuple[int, int, int], _SlotPairEntry] = {}
        """Slot pair records compared by codes (:meth:`_aligned_pair`), by the identities of
        the definition and both slots (the entry holds the slots)."""
        self.pairs_scored = 0
        """Key/response pairs whose F was computed (the quadratic part of the work)."""
        self._leftovers: dict[
            tuple[int, str, bool, str], tuple[tuple[TemplateSlot, ...], list[SlotPair]]
        ] = {}
        """Slot records of leftover objects (:meth:`leftover`), by the identity of the
        slots tuple (the entry holds it), class, side and status, when :attr:`shared_slots`
        is on."""

    # ----------------------------------------------------------------- validation
    def validate(self, document: TemplateDocument) -> None:
        """Classes and slots must be defined; pointers must point to earlier classes.

        A pointer to an object the file does not have, or to a class not in ``:class_defs``, is
        scored as the manual's scorer scores it (a fill that matches nothing) and counted in a
        warning naming file and line.
        """
        path = document.path
        ids = {obj.id for obj in document.objects}
        dangling: list[str] = []
        for obj in document.objects:
            cls = obj.class_name.lower()
            if cls not in self.order:
                raise InputError(
                    f"class {obj.class_name} of <{obj.id}> is not in :class_defs", path, obj.line
                )
            names = self.slot_names[cls]
            for slot in obj.slots:
                if slot.name.lower() not in names:
                    raise InputError(
                        f"slot {slot.name} of class {obj.class_name} is not in :slot_defs",
                        path,
                        slot.line,
                    )
                for fill in (f for alternative in slot.alternatives for f in alternative):
                    if not fill.is_pointer:
                        continue
                    target = fill.text.split("-", 1)[0].lower()
                    if fill.text not in ids:
                        dangling.append(f"{path}:{fill.line} <{fill.text}>")
                    if target in self.order and self.order[target] >= self.order[cls]:
                        raise InputError(
                            f"<{fill.text}> points to class {target}, which :class_defs lists "
                            f"at or after {obj.class_name}; list pointed-to classes first",
                            path,
                            fill.line,
                        )
        if dangling:
            self.warnings.append(
                ScoreWarning(
                    "muc.dangling-pointers",
                    "{count} pointer fill(s) point to an object the file does not have (or of a "
                    "class not in :class_defs); scored as fills that match nothing",
                    len(dangling),
                    tuple(dangling[:5]),
                    tolerated=True,
                )
            )

    # ----------------------------------------------------------------- optional keys
    def _optional_keys(self, objects: Sequence[TemplateObject]) -> set[str]:
        optional = {o.id for o in objects if o.optional}
        if self.task == "template_relation" and optional:
            changed = True
            while changed:
                changed = False
                for obj in objects:
                    if obj.id in optional:
                        continue
                    if any(f.is_pointer and f.text in optional for s in obj.slots for f in s.fills):
                        optional.add(obj.id)
                        changed = True
        elif self.task == "scenario_template":
            ids = {o.id for o in objects}
            incoming: dict[str, list[tuple[str, bool]]] = {}
            for obj in objects:
                for slot in obj.slots:
                    for fill in {f.text for f in slot.fills if f.is_pointer}:
                        weak = slot.optional or any(
                            all(f.text != fill for f in alt) for alt in slot.alternatives
                        )
                        incoming.setdefault(fill, []).append((obj.id, weak))
            changed = True
            while changed:
                changed = False
                for target, refs in incoming.items():
                    if target in optional or target not in ids:
                        continue
                    if all(weak or source in optional for source, weak in refs):
                        optional.add(target)
                        changed = True
        return optional

    def _representatives(self, objects: Sequence[TemplateObject]) -> dict[str, str]:
        reps: dict[str, str] = {}
        if not self.equatable:
            return reps
        seen: dict[tuple[object, ...], str] = {}
        for obj in objects:
            if obj.class_name.lower() not in self.equatable:
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

    # ----------------------------------------------------------------- fill comparison
    def _status(
        self, kind: str, key: TemplateFill, rsp: TemplateFill, ctx: _DocumentContext
    ) -> str:
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
        ctx: _DocumentContext,
    ) -> tuple[list[FillPair], int]:
        """Pair two multi-fills greedily by F; returns the pairs and 2*COR + PAR."""
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

    def _key_alternatives(
        self, slot: TemplateSlot | None, ctx: _DocumentContext
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
        ctx: _DocumentContext,
    ) -> SlotPair:
        """Compare one slot of an aligned (or candidate) pair (see the module docstring)."""
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
                rank = (-_fraction(credit, len(ka) + len(ra)), len(ka), len(ra), ki, ri)
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
        self, key: TemplateObject, rsp: TemplateObject, ctx: _DocumentContext
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
            cor, par, inc, mis, spu, _ = pair.tally()
            slot_credit = 2 * cor + par
            slot_total = 2 * (cor + par + inc) + mis + spu
            credit += slot_credit
            total += slot_total
            if definition.weight:
                weighted += definition.weight * 100.0 * _fraction(slot_credit, slot_total)
        return ObjectPair("cor", key, rsp, slots, 100.0 * _fraction(credit, total), weighted)

    # ----------------------------------------------------------------- candidate pairs
    def _pointer_targets(self, target: str, ctx: _DocumentContext) -> list[str]:
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
        self, kind: str, fill: TemplateFill, is_key: bool, ctx: _DocumentContext
    ) -> _Code | None:
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
        self, kind: str, slot: TemplateSlot, is_key: bool, ctx: _DocumentContext
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
        ctx: _DocumentContext,
    ) -> tuple[list[_SlotCode], list[list[str]] | None]:
        """Codes of an object's scored slots and the tokens of its ``indexed`` slots.

        A slot's code is ``None`` when it is empty, the codes of its fill when it has one
        plain fill, ``()`` when :meth:`compare_slot` must score it (alternatives, several
        fills, an optional mark, a removed key pointer, a fill without codes).  The tokens
        (:meth:`_slot_tokens`) are None when the object may match anything.
        """
        codes: list[_SlotCode] = []
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
            code: _SlotCode = ()
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
        ctx: _DocumentContext,
    ) -> tuple[list[dict[str, TemplateSlot]], list[list[_SlotCode]], list[list[list[str]] | None]]:
        """Each object's slots by lower-case name, codes and tokens (:meth:`_object_codes`).

        With :attr:`shared_slots` on, objects holding the same slots tuple (the reader shares
        the tuples of equal content) share one computation; the entry holds the tuple."""
        if not self.shared_slots:
            entries = [self._object_entry(obj.slots, class_name, is_key, ctx) for obj in objects]
        else:
            # by the identity of the slots tuple: the entry holds the tuple, so an identity
            # found is the tuple's own
            known = self._object_entries.get((class_name, is_key))
            if known is None:
                known = self._object_entries[class_name, is_key] = {}
            found: list[_ObjectEntry | None] = list(
                map(known.get, map(id, map(_slots_of, objects)))
            )
            if None not in found:
                entries = found  # type: ignore[assignment]
            else:
                entries = []
                for obj, entry_found in zip(objects, found, strict=True):
                    if entry_found is not None:
                        entries.append(entry_found)
                        continue
                    entry = self._object_entry(obj.slots, class_name, is_key, ctx)
                    if not any(
                        f.is_pointer for slot in obj.slots for alt in slot.alternatives for f in alt
                    ):
                        known[id(obj.slots)] = entry
                    entries.append(entry)
        all_slots = list(map(_second, entries))
        all_codes = list(map(_third, entries))
        all_tokens = list(map(_fourth, entries))
        return all_slots, all_codes, all_tokens

    def _object_entry(
        self, held: tuple[TemplateSlot, ...], class_name: str, is_key: bool, ctx: _DocumentContext
    ) -> _ObjectEntry:
        """(slots tuple, slots by lower-case name, codes, tokens) of one object."""
        slots = {s.name.lower(): s for s in held}
        scored = self.scored_defs[class_name]
        names = self.scored_names[class_name]
        indexed = self.indexed[class_name]
        codes, tokens = self._object_codes(scored, names, indexed, slots, is_key, ctx)
        return held, slots, codes, tokens

    @staticmethod
    def _sharing_pairs(
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> list[list[int]]:
        """For each key object, the response objects (ascending) sharing a token with it in
        the same slot; an object whose tokens are None pairs with every object."""
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
        for tokens in key_tokens:
            if tokens is None:
                out.append(everyone)
                continue
            found: set[int] = set(wild)
            for position, slot_tokens in enumerate(tokens):
                for token in slot_tokens:
                    found.update(indexes.get((position, token), ()))
            out.append(sorted(found))
        return out

    def _candidates(
        self,
        definition: ClassDef,
        partners: Sequence[Sequence[int]],
        key_slots: list[dict[str, TemplateSlot]],
        rsp_slots: list[dict[str, TemplateSlot]],
        key_codes: list[list[_SlotCode]],
        rsp_codes: list[list[_SlotCode]],
        ctx: _DocumentContext,
    ) -> list[tuple[float, int, int]]:
        """``(-F, key index, response index)`` of every pair of ``partners`` whose weighted
        score exceeds the class threshold, F and weighted score as :meth:`compare_objects`
        has them.  Plain slots compare codes; the others go through :meth:`compare_slot`."""
        scored = self.scored_defs[definition.name.lower()]
        names = self.scored_names[definition.name.lower()]
        weights = [d.weight for d in scored]
        threshold = definition.threshold
        positions = range(len(scored))
        candidates: list[tuple[float, int, int]] = []
        # with shared slots, a pair of plain objects scores by its two codes lists alone
        # (each held by its object entry): remembered by their identities (the entry holds them)
        known = self._pair_scores.setdefault(definition.name.lower(), {})
        remember = self.shared_slots
        for i, js in enumerate(partners):
            kcodes = key_codes[i]
            for j in js:
                rcodes = rsp_codes[j]
                if remember:
                    hit = known.get((id(kcodes), id(rcodes)))
                    if hit is not None:
                        if hit[2] is not None:
                            candidates.append((hit[2], i, j))
                        continue
                credit = total = 0
                weighted = 0.0
                plain = True
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
                        plain = False
                        name = names[s]
                        cor, par, inc, mis, spu, _ = self.compare_slot(
                            scored[s], key_slots[i].get(name), rsp_slots[j].get(name), ctx
                        ).tally()
                        slot_credit = 2 * cor + par
                        slot_total = 2 * (cor + par + inc) + mis + spu
                    credit += slot_credit
                    total += slot_total
                    weight = weights[s]
                    if weight and slot_credit:
                        weighted += weight * 100.0 * slot_credit / slot_total
                score = -100.0 * _fraction(credit, total) if weighted > threshold else None
                if remember and plain:
                    known[id(kcodes), id(rcodes)] = (kcodes, rcodes, score)
                if score is not None:
                    candidates.append((score, i, j))
        return candidates

    def _partners(
        self,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        prune: bool,
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> Sequence[Sequence[int]]:
        """For each key object, the response objects (ascending) it may align with: those
        sharing a token when ``prune``, else all.  A subclass may restrict them further (the
        named entity task: objects whose spans overlap, :mod:`annoscore.align.muc_ne`)."""
        if prune:
            return self._sharing_pairs(key_tokens, rsp_tokens)
        return [range(len(rsps))] * len(keys)

    def _aligned_pair(
        self,
        key: TemplateObject,
        rsp: TemplateObject,
        key_slots: dict[str, TemplateSlot],
        rsp_slots: dict[str, TemplateSlot],
        key_codes: list[_SlotCode],
        rsp_codes: list[_SlotCode],
        ctx: _DocumentContext,
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
                cor, par, inc, mis, spu, _ = pair.tally()
                slot_credit = 2 * cor + par
                slot_total = 2 * (cor + par + inc) + mis + spu
                credit += slot_credit
                total += slot_total
                if definition.weight:
                    weighted += definition.weight * 100.0 * _fraction(slot_credit, slot_total)
                continue
            if known is not None:
                known[signature] = entry
            slots.append(entry[2])
            credit += entry[3]
            total += entry[4]
            weighted += entry[5]
        f_score = 100.0 * _fraction(credit, total)
        if known is not None and by_codes:
            self._pair_records[id(key.slots), id(rsp.slots), cls] = (
                key.slots,
                rsp.slots,
                slots,  # shared with every equal pair (read-only from here on)
                f_score,
                weighted,
            )
        return ObjectPair("cor", key, rsp, slots, f_score, weighted)

    @staticmethod
    def _coded_slot_pair(
        definition: SlotDef,
        kslot: TemplateSlot | None,
        rslot: TemplateSlot | None,
        a: _SlotCode,
        b: _SlotCode,
    ) -> _SlotPairEntry | None:
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
            added = definition.weight * 100.0 * _fraction(slot_credit, slot_total)
        record = SlotPair(definition, kslot, rslot, [fill])
        return kslot, rslot, record, slot_credit, slot_total, added

    def leftover(self, obj: TemplateObject, is_key: bool, ctx: _DocumentContext) -> ObjectPair:
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
        self, obj: TemplateObject, is_key: bool, status: str, ctx: _DocumentContext
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

    # ----------------------------------------------------------------- documents
    def align(
        self, document: str, key: TemplateDocument | None, rsp: TemplateDocument | None
    ) -> DocumentAlignment:
        """Align one document's key and response objects, class by class."""
        key_objects = key.objects if key is not None else ()
        rsp_objects = rsp.objects if rsp is not None else ()
        ctx = _DocumentContext()
        ctx.optional = self._optional_keys(key_objects)
        ctx.key_rep = self._representatives(key_objects)
        ctx.rsp_rep = self._representatives(rsp_objects)
        for member, rep in ctx.rsp_rep.items():
            ctx.rsp_members.setdefault(rep, []).append(member)
        by_class_k = _by_class(key_objects)
        by_class_r = _by_class(rsp_objects)
        classes: list[ClassAlignment] = []
        text_filter: str | None = None
        for definition in self.classes:
            name = definition.name.lower()
            keys = by_class_k.get(name, [])
            rsps = by_class_r.get(name, [])
            if name == self.template:
                pairs = self._align_templates(keys, rsps, ctx, document)
                if self.task == "scenario_template":
                    text_filter = self._text_filter(keys, rsps)
            else:
                pairs = self._align_class(definition, keys, rsps, ctx)
            classes.append(ClassAlignment(definition, pairs))
        return DocumentAlignment(document, classes, text_filter, key is not None, rsp is not None)

    def _align_class(
        self,
        definition: ClassDef,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: _DocumentContext,
    ) -> list[ObjectPair]:
        """Greedy alignment by F of one class (see the module docstring).

        When the class threshold and every weight are >= 0, only pairs sharing a fill code in
        a slot of positive weight are scored (:meth:`_sharing_pairs`): any other pair has
        weighted score 0, which does not exceed the threshold.  Otherwise every pair is
        scored.  Either way the work is at most quadratic in the objects of the class in the
        document, and the pairs found, their F and their order are those of scoring all.
        """
        name = definition.name.lower()
        scored = self.scored_defs[name]
        prune = self.prune and definition.threshold >= 0 and all(d.weight >= 0 for d in scored)
        if name not in self.indexed:
            self.indexed[name] = [prune and d.weight > 0 for d in scored]
        key_slots, key_codes, key_tokens = self._objects_codes(name, keys, True, ctx)
        rsp_slots, rsp_codes, rsp_tokens = self._objects_codes(name, rsps, False, ctx)
        partners = self._partners(keys, rsps, prune, key_tokens, rsp_tokens)
        self.pairs_scored += sum(map(len, partners))
        candidates = self._candidates(
            definition, partners, key_slots, rsp_slots, key_codes, rsp_codes, ctx
        )
        candidates.sort()
        chosen: dict[int, ObjectPair] = {}
        used: set[int] = set()
        records = self._pair_records if self.shared_slots else None
        for _, i, j in candidates:
            if i in chosen or j in used:
                continue
            key, rsp = keys[i], rsps[j]
            # a pair compared before (see _aligned_pair; the entry holds both slots tuples)
            whole = None if records is None else records.get((id(key.slots), id(rsp.slots), name))
            if whole is not None:
                chosen[i] = ObjectPair("cor", key, rsp, whole[2], whole[3], whole[4])
            else:
                chosen[i] = self._aligned_pair(
                    key, rsp, key_slots[i], rsp_slots[j], key_codes[i], rsp_codes[j], ctx
                )
            used.add(j)
            ctx.k2r[key.id] = rsp.id
            ctx.r2k[rsp.id] = key.id
        pairs = [chosen[i] for i in sorted(chosen)]
        pairs.extend(self.leftover(k, True, ctx) for i, k in enumerate(keys) if i not in chosen)
        pairs.extend(self.leftover(r, False, ctx) for j, r in enumerate(rsps) if j not in used)
        return pairs

    def _align_templates(
        self,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: _DocumentContext,
        document: str,
    ) -> list[ObjectPair]:
        pairs: list[ObjectPair] = []
        if keys and rsps:
            pair = self.compare_objects(keys[0], rsps[0], ctx)
            pair.status = "non"
            ctx.k2r[keys[0].id] = rsps[0].id
            ctx.r2k[rsps[0].id] = keys[0].id
            pairs.append(pair)
            keys, rsps = keys[1:], rsps[1:]
        if keys or rsps:
            self.warnings.append(
                f"document {document}: more than one {self.template.upper()} object; the first "
                "of each side are paired, the others scored as missing or spurious"
            )
        pairs.extend(self.leftover(k, True, ctx) for k in keys)
        pairs.extend(self.leftover(r, False, ctx) for r in rsps)
        return pairs

    def _text_filter(self, keys: list[TemplateObject], rsps: list[TemplateObject]) -> str:
        """ST relevance of the document: the first template's content slot filled or not."""

        def relevant(objects: list[TemplateObject]) -> bool:
            if not objects:
                return False
            slot = objects[0].slot(self.content)
            return slot is not None and not slot.is_empty

        in_key, in_rsp = relevant(keys), relevant(rsps)
        if self.text_filter_mode == "agreement":
            return "cor" if in_key == in_rsp else "inc"
        if in_key and in_rsp:
            return "cor"
        if in_key:
            return "mis"
        return "spu" if in_rsp else "non"
