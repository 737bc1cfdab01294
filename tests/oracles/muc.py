"""A plain MUC scorer written from ../shared/spec/muc.md, for the differential tests.

It reads nothing itself: it takes what the real readers give (template documents, SGML documents
and the parsed configuration) and computes, the slow and obvious way, what the manual and the
spec's decisions define:

- string fills (decision 12: ``ORIG``, ``STRAIGHTENED``, ``CLEAN`` with premodifiers,
  postmodifiers and corporate designators, ``[minimum]`` strings), set fills (case-insensitive)
  and pointers (correct when their targets are aligned to each other, decision 2; with
  ``:equatable_objects``, any object of the same class and content will do);
- slot comparison (decision 11): every pair of alternatives, multi-fills paired best first (COR,
  then PAR, then INC; ties by key then response order), the best pair of alternatives by F (ties:
  fewer key fills, fewer response fills, earlier key alternative, earlier response one), the
  other alternatives' fills NON, one NON for a slot left empty on both sides (or optional in the
  key and empty in the response), NON per key fill of an unscored slot;
- the greedy-by-F mapping (decisions 2 and 13): every pair of a class whose weighted score (sum
  of weight x 100 x slot F, in exact fractions) exceeds the threshold, sorted by F descending
  (exact fractions), ties by key then response order, taken while both are free; classes in
  ``:class_defs`` order; the template class paired first with first;
- leftovers (decisions 3 and 11) and optional objects (TR: pointing to an optional object; ST:
  every pointer to it weak or from an optional object; a key pointer to an optional object left
  unaligned is removed);
- the tallies COR PAR INC MIS SPU NON per class, slot, ALL SLOTS, text filter, and for named
  entities the subtask and section rows;
- named entities (decision 6): tags as objects with TYPE, TEXT (``ALT`` alternatives) and the
  other defined attributes, candidates the pairs whose spans overlap;
- coreference (decisions 7 and 15): REF classes, MIN-and-extent alignment longest first,
  unaligned optional markables removed, MUC recall and precision of Vilain et al. (1995).

Nothing here imports the code under test beyond the readers' data classes and the parsed
configuration.  Where the spec leaves a choice open (the order postmodifiers are replaced in,
which premodifier or designator sequence is removed first), the choice documented in
``annoscore.align.muc_strings`` is taken: longest first, ties in the configuration's order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from annoscore.formats.muc_config import MucConfig, SlotDef
from annoscore.formats.muc_sgml import SgmlDocument
from annoscore.templates import TemplateDocument
from tests.oracles.muc_sgml import reference_parse

MANUAL_SECTIONS = ("DOC", "DATELINE", "DD", "HEADLINE", "TEXT")
"""The manual's default ``:doc_sections``: "<DOC>, <DATELINE>, <DD>, <HEADLINE>, and <TEXT>"."""
SUBTASK_ROWS = tuple(
    f"{kind} type {value}"
    for kind, values in (
        ("enamex", ("organization", "person", "location", "other")),
        ("timex", ("date", "time", "other")),
        ("numex", ("money", "percent", "other")),
    )
    for value in values
)
"""The default ``:ne_subtask_names``: the rows of the "TASK SUBCATEGORIZATION SCORES" table
(muc.md section 7: Enamex organization/person/location/other, Timex date/time/other, Numex
money/percent/other)."""

TALLIES = ("cor", "par", "inc", "mis", "spu", "non")
Warnings = Counter[tuple[str, int]]
"""Warnings as (code, count) pairs, with multiplicity."""


# --------------------------------------------------------------------------- objects


@dataclass
class Fill:
    text: str
    pointer: bool = False
    minimum: str | None = None


@dataclass
class Slot:
    name: str
    alternatives: list[list[Fill]]
    optional: bool = False


@dataclass
class Obj:
    id: str
    cls: str
    """Lower-case class name."""
    slots: dict[str, Slot]
    """By lower-case slot name."""
    optional: bool = False
    start: int = -1
    end: int = -1
    section: str = ""


def from_template(document: TemplateDocument) -> list[Obj]:
    """A reader's template document as plain objects."""
    out = []
    for obj in document.objects:
        slots = {
            s.name.lower(): Slot(
                s.name,
                [[Fill(f.text, f.is_pointer, f.minimum) for f in a] for a in s.alternatives],
                s.optional,
            )
            for s in obj.slots
        }
        out.append(Obj(obj.id, obj.class_name.lower(), slots, obj.optional, obj.start, obj.end))
    return out


# --------------------------------------------------------------------------- strings


def _tokens_of(values: Iterable[str]) -> list[tuple[str, ...]]:
    """Configured word sequences, lower-cased, longest first, ties in configuration order."""
    seen: list[tuple[str, ...]] = []
    for value in values:
        words = tuple(value.lower().split())
        if words and words not in seen:
            seen.append(words)
    return sorted(seen, key=len, reverse=True)


class Strings:
    """Decision 12 of the spec."""

    def __init__(self, config: MucConfig) -> None:
        self.pre = _tokens_of(config.items("premodifiers"))
        posts: list[str] = []
        for value in config.items("postmodifiers"):
            if value and value.lower() not in posts:
                posts.append(value.lower())
        self.post = sorted(posts, key=len, reverse=True)
        self.designators = _tokens_of(config.items("corporate_designators"))
        self.correct = config.value("stringfill_correct_comparison").upper()
        self.partial = config.value("stringfill_partial_comparison").upper()

    def normal(self, text: str, mode: str) -> str:
        if mode == "ORIG":
            return text
        if mode == "STRAIGHTENED":
            return " ".join(text.split())
        text = text.lower()
        for post in self.post:
            text = text.replace(post, " ")
        words = text.split()
        while True:  # premodifiers at the start, repeatedly
            for pre in self.pre:
                if tuple(words[: len(pre)]) == pre:
                    words = words[len(pre) :]
                    break
            else:
                break
        kept: list[str] = []
        at = 0
        while at < len(words):  # designators anywhere, from the left
            here = [d for d in self.designators if tuple(words[at : at + len(d)]) == d]
            if here:  # the first one listed that stands here is taken out
                at += len(here[0])
            else:
                kept.append(words[at])
                at += 1
        return " ".join(kept)

    def matches(self, key: Fill, rsp: Fill, mode: str) -> bool:
        k, r = self.normal(key.text, mode), self.normal(rsp.text, mode)
        if k == r:
            return True

        def inside(outer: str, inner: str) -> bool:
            return f" {inner} " in f" {outer} "

        if key.minimum is not None:
            m = self.normal(key.minimum, mode)
            if inside(r, m) and inside(k, r):
                return True
        if rsp.minimum is not None:
            m = self.normal(rsp.minimum, mode)
            if inside(k, m) and inside(r, k):
                return True
        return False


# --------------------------------------------------------------------------- comparison


@dataclass
class SlotResult:
    """The fate of the fills of one slot: (status, shown fill text) each, one NON for an empty
    slot, removed key pointers."""

    definition: SlotDef
    fills: list[tuple[str, str]] = field(default_factory=list)
    slot_non: int = 0
    removed: int = 0

    def credit_total(self) -> tuple[int, int]:
        c = Counter(status for status, _ in self.fills)
        return 2 * c["cor"] + c["par"], 2 * (c["cor"] + c["par"] + c["inc"]) + c["mis"] + c["spu"]


@dataclass
class State:
    """One document's alignment so far."""

    k2r: dict[str, str] = field(default_factory=dict)
    r2k: dict[str, str] = field(default_factory=dict)
    optional: set[str] = field(default_factory=set)
    key_rep: dict[str, str] = field(default_factory=dict)
    rsp_rep: dict[str, str] = field(default_factory=dict)


class Reference:
    """The template comparison and mapping of one configuration."""

    def __init__(self, config: MucConfig) -> None:
        self.config = config
        self.strings = Strings(config)
        self.slots = {
            c.name.lower(): [s for s in config.slot_defs if s.class_name.lower() == c.name.lower()]
            for c in config.class_defs
        }

    # single fills
    def status(self, kind: str, key: Fill, rsp: Fill, state: State) -> str:
        if key.pointer or rsp.pointer:
            if not (key.pointer and rsp.pointer):
                return "inc"
            wanted = state.key_rep.get(key.text, key.text)
            rep = state.rsp_rep.get(rsp.text, rsp.text)
            for member, member_rep in state.rsp_rep.items():
                if member_rep == rep and member in state.r2k:
                    aligned = state.r2k[member]
                    if state.key_rep.get(aligned, aligned) == wanted:
                        return "cor"
            if rsp.text not in state.rsp_rep and rsp.text in state.r2k:
                aligned = state.r2k[rsp.text]
                if state.key_rep.get(aligned, aligned) == wanted:
                    return "cor"
            return "inc"
        if kind == "string":
            if self.strings.matches(key, rsp, self.strings.correct):
                return "cor"
            partial = self.strings.partial
            if partial != "NONE" and self.strings.matches(key, rsp, partial):
                return "par"
            return "inc"
        return "cor" if key.text.lower() == rsp.text.lower() else "inc"

    def multi(
        self, kind: str, key: list[Fill], rsp: list[Fill], state: State
    ) -> list[tuple[str, str]]:
        rank = {"cor": 0, "par": 1, "inc": 2}
        pairs = sorted(
            (rank[self.status(kind, k, r, state)], i, j)
            for i, k in enumerate(key)
            for j, r in enumerate(rsp)
        )
        used_k: dict[int, str] = {}
        used_r: set[int] = set()
        for r_, i, j in pairs:
            if i not in used_k and j not in used_r:
                used_k[i] = ("cor", "par", "inc")[r_]
                used_r.add(j)
        out = [(used_k[i], k.text) for i, k in enumerate(key) if i in used_k]
        out += [("mis", k.text) for i, k in enumerate(key) if i not in used_k]
        out += [("spu", r.text) for j, r in enumerate(rsp) if j not in used_r]
        return out

    def kept(self, slot: Slot | None, state: State) -> tuple[list[list[Fill]], int]:
        """A key slot's alternatives without the pointers to optional objects left unaligned."""
        if slot is None:
            return [[]], 0
        removed = 0
        alternatives = []
        for alternative in slot.alternatives:
            keep = []
            for fill in alternative:
                if fill.pointer and fill.text in state.optional and fill.text not in state.k2r:
                    removed += 1
                else:
                    keep.append(fill)
            alternatives.append(keep)
        return alternatives, removed

    def compare_slot(
        self, definition: SlotDef, key: Slot | None, rsp: Slot | None, state: State
    ) -> SlotResult:
        result = SlotResult(definition)
        key_alts, result.removed = self.kept(key, state)
        if not definition.scored:
            result.fills = [("non", f.text) for a in key_alts for f in a]
            return result
        rsp_alts = [list(a) for a in rsp.alternatives] if rsp is not None else [[]]
        key_empty = not any(key_alts)
        rsp_empty = not any(rsp_alts)
        if rsp_empty and (key_empty or (key is not None and key.optional)):
            result.slot_non = 1
            return result
        if key_empty and rsp is not None and rsp.optional:
            result.slot_non = 1
            return result
        best: tuple[tuple[Fraction, int, int, int, int], list[tuple[str, str]]] | None = None
        for ki, ka in enumerate(key_alts):
            for ri, ra in enumerate(rsp_alts):
                fates = self.multi(definition.kind, ka, ra, state)
                credit = sum({"cor": 2, "par": 1}.get(s, 0) for s, _ in fates)
                size = len(ka) + len(ra)
                f = Fraction(credit, size) if size else Fraction(0)
                rank = (-f, len(ka), len(ra), ki, ri)
                if best is None or rank < best[0]:
                    best = (rank, fates)
        assert best is not None
        (_, _, _, ki, ri), fates = best
        result.fills = list(fates)
        result.fills += [("non", f.text) for i, a in enumerate(key_alts) if i != ki for f in a]
        result.fills += [("non", f.text) for i, a in enumerate(rsp_alts) if i != ri for f in a]
        return result

    def compare(
        self, key: Obj, rsp: Obj, state: State
    ) -> tuple[list[SlotResult], Fraction, Fraction]:
        """Every slot of a pair, its F and its weighted score (exact)."""
        definitions = self.slots[key.cls]
        results = [
            self.compare_slot(
                d, key.slots.get(d.name.lower()), rsp.slots.get(d.name.lower()), state
            )
            for d in definitions
        ]
        scored = [
            (d, r.credit_total()) for d, r in zip(definitions, results, strict=True) if d.scored
        ]
        credit = sum(c for _, (c, _) in scored)
        total = sum(t for _, (_, t) in scored)
        weighted = sum(
            (d.weight_value * 100 * Fraction(c, t) for d, (c, t) in scored if t), Fraction(0)
        )
        return results, (Fraction(credit, total) if total else Fraction(0)), weighted

    def leftover(self, obj: Obj, is_key: bool, status: str, state: State) -> list[SlotResult]:
        results = []
        for definition in self.slots[obj.cls]:
            slot = obj.slots.get(definition.name.lower())
            result = SlotResult(definition)
            results.append(result)
            if slot is None:
                continue
            if is_key:
                alternatives, result.removed = self.kept(slot, state)
            else:
                alternatives = [list(a) for a in slot.alternatives]
            if not definition.scored:
                if is_key:
                    result.fills = [("non", f.text) for a in alternatives for f in a]
                continue
            smallest = min(range(len(alternatives)), key=lambda i: (len(alternatives[i]), i))
            for i, alternative in enumerate(alternatives):
                fate = status if i == smallest and not slot.optional else "non"
                result.fills += [(fate, f.text) for f in alternative]
        return results


# --------------------------------------------------------------------------- documents


@dataclass
class PairRecord:
    status: str
    key: Obj | None
    rsp: Obj | None
    slots: list[SlotResult]


def optional_objects(objects: Sequence[Obj], task: str) -> set[str]:
    """Marked optional, or implicitly so (TR, ST), by repeating the rule until nothing changes."""
    optional = {o.id for o in objects if o.optional}
    ids = {o.id for o in objects}
    changed = True
    while changed:
        changed = False
        for obj in objects:
            if obj.id in optional:
                continue
            if task == "template_relation":
                if any(
                    f.pointer and f.text in optional
                    for s in obj.slots.values()
                    for a in s.alternatives
                    for f in a
                ):
                    optional.add(obj.id)
                    changed = True
            elif task == "scenario_template":
                refs = []
                for source in objects:
                    for slot in source.slots.values():
                        targets = {f.text for a in slot.alternatives for f in a if f.pointer}
                        if obj.id in targets:
                            weak = slot.optional or any(
                                all(f.text != obj.id for f in a) for a in slot.alternatives
                            )
                            refs.append((source.id, weak))
                if refs and obj.id in ids and all(w or s in optional for s, w in refs):
                    optional.add(obj.id)
                    changed = True
    return optional


def representatives(objects: Sequence[Obj], equatable: set[str]) -> dict[str, str]:
    """For each object of an equatable class, the first of its class with the same content."""
    reps: dict[str, str] = {}
    first: dict[object, str] = {}
    for obj in objects:
        if obj.cls not in equatable:
            continue
        content = sorted(
            (name, [[f.text.lower() for f in a] for a in slot.alternatives])
            for name, slot in obj.slots.items()
        )
        key = (obj.cls, repr(content))
        reps[obj.id] = first.setdefault(key, obj.id)
    return reps


def align_document(
    ref: Reference,
    keys: Sequence[Obj],
    rsps: Sequence[Obj],
    *,
    overlap_only: bool = False,
    text_filter: str = "agreement",
) -> tuple[list[tuple[str, list[PairRecord]]], str | None, int]:
    """Every class's pair records, the text filter verdict (ST) and the count of documents with
    more than one template (0 or 1)."""
    config = ref.config
    state = State()
    state.optional = optional_objects(keys, config.scoring_task)
    equatable = {n.lower() for n in config.items("equatable_objects")}
    state.key_rep = representatives(keys, equatable)
    state.rsp_rep = representatives(rsps, equatable)
    template = config.value("template_name").lower()
    out = []
    several_templates = 0
    verdict = None
    for cdef in config.class_defs:
        name = cdef.name.lower()
        ks = [k for k in keys if k.cls == name]
        rs = [r for r in rsps if r.cls == name]
        records: list[PairRecord] = []
        if name == template:
            if len(ks) > 1 or len(rs) > 1:
                several_templates = 1
            if ks and rs:
                slots, _, _ = ref.compare(ks[0], rs[0], state)
                records.append(PairRecord("non", ks[0], rs[0], slots))
                state.k2r[ks[0].id], state.r2k[rs[0].id] = rs[0].id, ks[0].id
                ks, rs = ks[1:], rs[1:]
            if config.scoring_task == "scenario_template":
                verdict = _text_filter(config, keys, rsps, template, text_filter)
            left_k, left_r = ks, rs
        else:
            candidates = []
            for i, k in enumerate(ks):
                for j, r in enumerate(rs):
                    if overlap_only and not _overlap(k, r):
                        continue
                    slots, f, weighted = ref.compare(k, r, state)
                    if weighted > cdef.threshold_value:
                        candidates.append((-f, i, j))
            taken_k: dict[int, int] = {}
            taken_r: set[int] = set()
            for _, i, j in sorted(candidates):
                if i in taken_k or j in taken_r:
                    continue
                taken_k[i] = j
                taken_r.add(j)
                state.k2r[ks[i].id], state.r2k[rs[j].id] = rs[j].id, ks[i].id
            for i in sorted(taken_k):
                j = taken_k[i]
                slots, _, _ = ref.compare(ks[i], rs[j], state)
                records.append(PairRecord("cor", ks[i], rs[j], slots))
            left_k = [k for i, k in enumerate(ks) if i not in taken_k]
            left_r = [r for j, r in enumerate(rs) if j not in taken_r]
        for k in left_k:
            status = "non" if k.id in state.optional else "mis"
            records.append(PairRecord(status, k, None, ref.leftover(k, True, status, state)))
        for r in left_r:
            status = "non" if r.optional else "spu"
            records.append(PairRecord(status, None, r, ref.leftover(r, False, status, state)))
        out.append((name, records))
    return out, verdict, several_templates


def _overlap(key: Obj, rsp: Obj) -> bool:
    ks, ke = (key.start, key.end) if key.start >= 0 else (0, 0)
    rs, re_ = (rsp.start, rsp.end) if rsp.start >= 0 else (0, 0)
    return rs < ke and ks < re_


def _text_filter(
    config: MucConfig, keys: Sequence[Obj], rsps: Sequence[Obj], template: str, mode: str
) -> str:
    content = config.value("content_name").lower()

    def relevant(objects: Sequence[Obj]) -> bool:
        templates = [o for o in objects if o.cls == template]
        if not templates:
            return False
        slot = templates[0].slots.get(content)
        return slot is not None and any(slot.alternatives)

    k, r = relevant(keys), relevant(rsps)
    if mode == "agreement":
        return "cor" if k == r else "inc"
    return "cor" if k and r else "mis" if k else "spu" if r else "non"


def _put(out: dict[str, int], prefix: str, row: Sequence[int]) -> None:
    for name, value in zip(TALLIES, row, strict=False):
        out[prefix + name] = out.get(prefix + name, 0) + value
    out[prefix + "pos"] = out.get(prefix + "pos", 0) + row[0] + row[1] + row[2] + row[3]
    out[prefix + "act"] = out.get(prefix + "act", 0) + row[0] + row[1] + row[2] + row[4]


def document_counts(
    classes: list[tuple[str, list[PairRecord]]],
    verdict: str | None,
    subtasks: Sequence[tuple[str, str, str]] = (),
    groups: dict[str, list[str]] | None = None,
) -> dict[str, int]:
    """The tallies of one document, named as ``annoscore`` names them (zeros left out)."""
    index = {name: i for i, name in enumerate(TALLIES)}
    out: dict[str, int] = {}
    all_slots = [0] * 6
    wanted = {(c.lower(), s.lower(), v.lower()) for c, s, v in subtasks}
    subtask_rows: dict[tuple[str, str, str], list[int]] = {w: [0] * 6 for w in wanted}
    group_rows = {g: [0] * 6 for g in (groups or {})}
    for cls, records in classes:
        obj = [0] * 6
        for record in records:
            obj[index[record.status]] += 1
            owner = record.key if record.key is not None else record.rsp
            assert owner is not None
            in_groups = [
                g
                for g, members in (groups or {}).items()
                if owner.section.lower() in {m.lower() for m in members}
            ]
            for slot in record.slots:
                name = slot.definition.name.lower()
                row = [0] * 6
                row[5] += slot.slot_non
                for status, shown in slot.fills:
                    row[index[status]] += 1
                    if (cls, name, shown.lower()) in subtask_rows:
                        subtask_rows[cls, name, shown.lower()][index[status]] += 1
                _put(out, f"slot:{cls}:{name}:", row)
                if slot.removed:
                    out[f"slot:{cls}:{name}:rem"] = (
                        out.get(f"slot:{cls}:{name}:rem", 0) + slot.removed
                    )
                for i in range(6):
                    all_slots[i] += row[i]
                for g in in_groups:
                    for i in range(6):
                        group_rows[g][i] += row[i]
        _put(out, f"obj:{cls}:", obj)
    _put(out, "", all_slots)
    if verdict is not None:
        row = [0] * 6
        row[index[verdict]] = 1
        _put(out, "text_filter:", row)
    for (c, s, v), row in subtask_rows.items():
        _put(out, f"subtask:{c}:{s}:{v}:", row)
    for g, row in group_rows.items():
        _put(out, f"section:{g}:", row)
    return {k: v for k, v in out.items() if v}


def pair_ids(key_ids: Sequence[str], rsp_ids: Sequence[str]) -> tuple[list[str], Warnings]:
    """Every document of either side (key order, then the response's own), and the warnings of
    the documents on one side only."""
    warnings: Warnings = Counter()
    only_key = [d for d in key_ids if d not in set(rsp_ids)]
    only_rsp = [d for d in rsp_ids if d not in set(key_ids)]
    if only_key:
        warnings["documents.gold-only", len(only_key)] += 1
    if only_rsp:
        warnings["documents.system-only", len(only_rsp)] += 1
    return [*key_ids, *only_rsp], warnings


def template_reference(
    config: MucConfig,
    keys: Sequence[TemplateDocument],
    rsps: Sequence[TemplateDocument],
    text_filter: str = "agreement",
) -> tuple[dict[str, dict[str, int]], Warnings]:
    """Per-document tallies and the warnings of a template task (TE, TR, ST)."""
    ref = Reference(config)
    key_docs = {d.id: d for d in keys}
    rsp_docs = {d.id: d for d in rsps}
    documents, warnings = pair_ids(list(key_docs), list(rsp_docs))
    warnings["note", 1] += len(config.warnings)
    dangling = 0
    for document in (*keys, *rsps):
        ids = {o.id for o in document.objects}
        dangling += sum(
            1
            for o in document.objects
            for s in o.slots
            for f in s.fills
            if f.is_pointer and f.text not in ids
        )
    per_document: dict[str, dict[str, int]] = {}
    removed = 0
    for doc in documents:
        k = from_template(key_docs[doc]) if doc in key_docs else []
        r = from_template(rsp_docs[doc]) if doc in rsp_docs else []
        classes, verdict, several = align_document(ref, k, r, text_filter=text_filter)
        if several:
            warnings["note", 1] += 1
        counts = document_counts(classes, verdict)
        removed += sum(v for name, v in counts.items() if name.endswith(":rem"))
        per_document[doc] = counts
    if dangling:
        warnings["muc.dangling-pointers", dangling] += 1
    if removed:
        warnings["muc.removed-pointers", removed] += 1
    return per_document, warnings


# --------------------------------------------------------------------------- named entities


def _flat(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def ne_objects(
    config: MucConfig, document: SgmlDocument, keys_syntax: bool
) -> tuple[list[Obj], int]:
    """A document's tags as objects (decision 6), and how many attributes were ignored."""
    classes = {c.name.upper(): c.name.lower() for c in config.class_defs}
    defined = {
        c.name.lower(): {
            s.name.lower() for s in config.slot_defs if s.class_name.lower() == c.name.lower()
        }
        for c in config.class_defs
    }
    alt_name = config.value("sgml_alt_slot").upper()
    text_name = config.value("sgml_text_slot").upper()
    separator = config.value("sgml_alternative_separator") or "|"
    numbers: Counter[str] = Counter()
    out = []
    ignored = 0
    for tag in document.tags:
        if tag.name not in classes:
            continue
        cls = classes[tag.name]
        numbers[tag.name] += 1
        slots: dict[str, Slot] = {}
        alts: list[str] = []
        optional = False
        for attribute, value in tag.attributes.items():
            if keys_syntax and attribute == alt_name:
                alts += [v for v in value.split(separator) if v.strip()]
                continue
            if attribute == text_name:
                continue
            if keys_syntax and attribute == "STATUS" and value.upper() in ("OPT", "OPTIONAL"):
                optional = True
            if attribute.lower() in defined[cls]:
                slots[attribute.lower()] = Slot(attribute, [[Fill(value)]])
            else:
                ignored += 1
        if text_name.lower() in defined[cls]:
            slots[text_name.lower()] = Slot(
                text_name, [[Fill(_flat(tag.text))], *[[Fill(v)] for v in alts]]
            )
        out.append(
            Obj(
                f"{tag.name}-{document.number}-{numbers[tag.name]}",
                cls,
                slots,
                optional,
                tag.start,
                tag.end,
                tag.section,
            )
        )
    return out, ignored


def sections_and_groups(config: MucConfig) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for value in config.items("doc_section_groups"):
        words = value.split()
        groups[words[0]] = words[1:]
    if groups:
        return groups
    return {s: [s] for s in (config.items("doc_sections") or MANUAL_SECTIONS)}


def _text_warnings(
    keys: dict[str, SgmlDocument], rsps: dict[str, SgmlDocument], documents: Sequence[str]
) -> Warnings:
    warnings: Warnings = Counter()
    differing = sum(
        1 for d in documents if d in keys and d in rsps and keys[d].text != rsps[d].text
    )
    if differing:
        warnings["muc.text-differs", differing] += 1
    outside = sum(d.outside for d in (*keys.values(), *rsps.values()))
    if outside:
        warnings["muc.outside-sections", outside] += 1
    return warnings


def ne_reference(
    config: MucConfig, keys: Sequence[SgmlDocument], rsps: Sequence[SgmlDocument]
) -> tuple[dict[str, dict[str, int]], Warnings]:
    """Per-document tallies and the warnings of the named entity task."""
    ref = Reference(config)
    key_docs = {d.number: d for d in keys}
    rsp_docs = {d.number: d for d in rsps}
    documents, warnings = pair_ids(list(key_docs), list(rsp_docs))
    warnings["note", 1] += len(config.warnings)
    warnings.update(_text_warnings(key_docs, rsp_docs, documents))
    ignored = 0
    objects: dict[tuple[str, bool], list[Obj]] = {}
    for side, docs, keys_syntax in ((True, key_docs, True), (False, rsp_docs, config.key2key)):
        for number, document in docs.items():
            objects[number, side], n = ne_objects(config, document, keys_syntax)
            ignored += n
    if ignored:
        warnings["muc.ignored-attributes", ignored] += 1
    subtasks = [tuple(v.split()) for v in (config.items("ne_subtask_names") or SUBTASK_ROWS)]
    groups = sections_and_groups(config)
    per_document = {}
    for doc in documents:
        classes, verdict, _ = align_document(
            ref, objects.get((doc, True), []), objects.get((doc, False), []), overlap_only=True
        )
        per_document[doc] = document_counts(classes, verdict, subtasks, groups)  # type: ignore[arg-type]
    return per_document, warnings


# --------------------------------------------------------------------------- coreference


@dataclass
class Markable:
    id: str
    ref: str | None
    mins: list[str]
    start: int
    end: int
    text: str
    optional: bool


_TAG = re.compile(r"<[/!?]?[A-Za-z][^<>]*>")


def _shown(text: str) -> str:
    """A markable's text: other tags removed, whitespace runs one space."""
    return " ".join(_TAG.sub(" ", text).split())


def markables(
    config: MucConfig, document: SgmlDocument, keys_syntax: bool
) -> tuple[list[Markable], int]:
    """A document's markables in text order (start, the longer first), and the REF
    alternatives beyond the first; ValueError for a missing or repeated ID or a REF to an ID
    the document does not have."""
    gid = config.class_defs[0].name.upper()
    id_name = config.value("sgml_id_slot").upper()
    ref_name = config.value("sgml_ref_slot").upper()
    min_name = config.value("sgml_min_slot").upper()
    separator = config.value("sgml_alternative_separator") or "|"
    tags = [t for t in document.tags if t.name == gid]
    ids = [t.attributes.get(id_name, "").strip() for t in tags]
    if "" in ids or len(set(ids)) != len(ids):
        raise ValueError("a markable without ID or an ID twice")
    out = []
    extra = 0
    for tag, ident in zip(tags, ids, strict=True):
        refs: list[str] = []
        for attribute, value in tag.attributes.items():
            if attribute == ref_name:
                refs = [v.strip() for v in value.split(separator) if v.strip()]
        if any(r not in ids for r in refs):
            raise ValueError("a REF to no ID")
        extra += max(0, len(refs) - 1)
        mins: list[str] = []
        raw_min = tag.attributes.get(min_name)
        if raw_min is not None:
            parts = [raw_min]
            if keys_syntax:  # alternatives in keys
                parts = [v for v in raw_min.split(separator) if v.strip()]
            mins = [" ".join(_flat(v).split()) for v in parts]
            mins = [m for m in mins if m]
        optional = keys_syntax and tag.attributes.get("STATUS", "").upper() in ("OPT", "OPTIONAL")
        out.append(
            Markable(
                ident,
                refs[0] if refs else None,
                mins,
                tag.start,
                tag.end,
                _shown(tag.text),
                optional,
            )
        )
    order = sorted(range(len(out)), key=lambda i: (out[i].start, -out[i].end))
    return [out[i] for i in order], extra


def _classes(items: Sequence[Markable]) -> list[set[str]]:
    """REF links, symmetric and transitive: the connected components."""
    groups: list[set[str]] = [{m.id} for m in items]
    for m in items:
        if m.ref is None:
            continue
        a = next(g for g in groups if m.id in g)
        b = next(g for g in groups if m.ref in g)
        if a is not b:
            a |= b
            groups.remove(b)
    return groups


def coref_reference(
    config: MucConfig, keys: Sequence[SgmlDocument], rsps: Sequence[SgmlDocument]
) -> tuple[dict[str, dict[str, int]], Warnings]:
    """Per-document MUC counts and markable tallies, and the warnings of coreference."""
    key_docs = {d.number: d for d in keys}
    rsp_docs = {d.number: d for d in rsps}
    documents, warnings = pair_ids(list(key_docs), list(rsp_docs))
    warnings["note", 1] += len(config.warnings)
    warnings.update(_text_warnings(key_docs, rsp_docs, documents))
    per_document = {}
    no_min = extra_refs = 0
    for doc in documents:
        key, k_extra = markables(config, key_docs[doc], True) if doc in key_docs else ([], 0)
        rsp, r_extra = (
            markables(config, rsp_docs[doc], config.key2key) if doc in rsp_docs else ([], 0)
        )
        extra_refs += k_extra + r_extra
        pairs = []
        for i, k in enumerate(key):
            usable = [m for m in k.mins if m in " ".join(k.text.split())]
            if k.mins and not usable:
                no_min += 1
            for j, r in enumerate(rsp):
                if r.start < k.start or r.end > k.end:
                    continue
                if usable:
                    ok = any(m in " ".join(r.text.split()) for m in usable)
                else:
                    ok = r.start == k.start and r.end == k.end
                if ok:
                    pairs.append((-(r.end - r.start), k.start, r.start, i, j))
        k2r: dict[str, str] = {}
        used: set[int] = set()
        for _, _, _, i, j in sorted(pairs):
            if key[i].id in k2r or j in used:
                continue
            k2r[key[i].id] = rsp[j].id
            used.add(j)
        r2k = {r: k for k, r in k2r.items()}
        removed = {m.id for m in key if m.optional and m.id not in k2r}
        key_classes = [c - removed for c in _classes(key)]
        key_classes = [c for c in key_classes if c]
        rsp_classes = [{r2k.get(x, "\0" + x) for x in c} for c in _classes(rsp)]
        # Vilain et al.: R = sum (|S| - |p(S)|) / sum (|S| - 1) over key classes S, p(S) the
        # parts of S cut by the response classes (a member in none is a part of its own)

        def links(classes: list[set[str]], other: list[set[str]]) -> tuple[int, int]:
            num = den = 0
            for s in classes:
                parts = {next((i for i, o in enumerate(other) if x in o), ("alone", x)) for x in s}
                num += len(s) - len(parts)
                den += len(s) - 1
            return num, den

        r_num, r_den = links(key_classes, rsp_classes)
        p_num, p_den = links(rsp_classes, key_classes)
        counts = {
            "muc_recall_num": r_num,
            "muc_recall_den": r_den,
            "muc_precision_num": p_num,
            "muc_precision_den": p_den,
            "key_classes": len(key_classes),
            "response_classes": len(rsp_classes),
            "markables:cor": len(k2r),
            "markables:mis": len(key) - len(k2r) - len(removed),
            "markables:spu": len(rsp) - len(k2r),
            "markables:opt": len(removed),
        }
        per_document[doc] = {k: v for k, v in counts.items() if v}
    if no_min:
        warnings["muc.min-not-in-text", no_min] += 1
    if extra_refs:
        warnings["muc.ref-alternatives", extra_refs] += 1
    return per_document, warnings


# --------------------------------------------------------------------------- scores


def total(per_document: dict[str, dict[str, int]]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for counts in per_document.values():
        out.update(counts)
    return {k: v for k, v in out.items() if v}


def _f(p: Fraction | None, r: Fraction | None, beta: float, anything: bool) -> Fraction | None:
    """F_beta of P and R; where one of them is undefined, 0 when ``anything`` is on either
    side, else undefined (design.md, "One rule for undefined numbers")."""
    if p is None or r is None:
        return Fraction(0) if anything else None
    b2 = Fraction(beta) ** 2
    return (b2 + 1) * p * r / (b2 * p + r) if b2 * p + r else Fraction(0)


def _ratio(numerator: Fraction | int, denominator: int) -> Fraction | None:
    return Fraction(numerator) / denominator if denominator else None


def tally_scores(counts: dict[str, int]) -> dict[str, Fraction | None]:
    """The ALL SLOTS row's scores (metrics/tallies.py's definitions): recall, precision, the
    three F-measures from the counts, F_beta = (1 + b^2) credit / (b^2 POS + ACT), undefined
    only when POS + ACT = 0, and the four error rates."""
    cor, par, inc = counts.get("cor", 0), counts.get("par", 0), counts.get("inc", 0)
    mis, spu = counts.get("mis", 0), counts.get("spu", 0)
    pos, act = counts.get("pos", 0), counts.get("act", 0)
    credit = Fraction(2 * cor + par, 2)
    scores = {"recall": _ratio(credit, pos), "precision": _ratio(credit, act)}
    for name, beta in (("f_pr", 1), ("f_2pr", Fraction(1, 2)), ("f_p2r", 2)):
        b2 = Fraction(beta) ** 2
        scores[name] = (1 + b2) * credit / (b2 * pos + act) if pos + act else None
    half = Fraction(par, 2)
    scores["undergeneration"] = _ratio(mis, pos)
    scores["overgeneration"] = _ratio(spu, act)
    scores["substitution"] = _ratio(inc + half, cor + par + inc)
    scores["error"] = _ratio(inc + half + mis + spu, cor + par + inc + mis + spu)
    return scores


def coref_scores(counts: dict[str, int]) -> dict[str, Fraction | None]:
    """MUC recall and precision and the three F-measures."""
    r_den, p_den = counts.get("muc_recall_den", 0), counts.get("muc_precision_den", 0)
    recall = _ratio(counts.get("muc_recall_num", 0), r_den)
    precision = _ratio(counts.get("muc_precision_num", 0), p_den)
    anything = bool(r_den or p_den)
    return {
        "recall": recall,
        "precision": precision,
        "f_pr": _f(precision, recall, 1.0, anything),
        "f_2pr": _f(precision, recall, 0.5, anything),
        "f_p2r": _f(precision, recall, 2.0, anything),
    }


def sgml_documents(config: MucConfig, path: Path, gids: Sequence[str]) -> list[SgmlDocument]:
    """The documents of an SGML key or response file as the configuration says to read them,
    by the plain reader of tests/oracles/muc_sgml.py: the sections are ``:doc_sections`` (the
    manual's list when not given) and every section a ``:doc_section_groups`` value names; the
    file is UTF-8, its line ends kept."""
    sections = list(config.items("doc_sections")) or list(MANUAL_SECTIONS)
    for value in config.items("doc_section_groups"):
        for name in value.split()[1:]:  # the first word names the group
            if name.upper() not in [s.upper() for s in sections]:
                sections.append(name)
    return reference_parse(
        path.read_bytes().decode("utf-8"),
        path,
        gids,
        sections=sections,
        quote_char=config.value("sgml_attribute_quote_char"),
        doc_gid=config.value("sgml_doc_gid"),
        docnum_gid=config.value("sgml_docnum_gid"),
    )
