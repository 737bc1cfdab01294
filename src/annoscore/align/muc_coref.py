"""MUC coreference alignment: markables, key and response classes, and the partitions to score.

The COREF tags of a document are read as objects ``<COREF-DOCNUM-ID>`` (one object model, see
:func:`annoscore.formats.muc_sgml_objects.coref_objects`); this module turns them into scorable
partitions (../shared/spec/muc.md, decisions 7 and 15):

1. **Classes**: REF links are symmetric and transitive; the classes are the connected
   components over all markables of a side (optional key markables included).  A REF with
   alternatives (``REF="3|5"``) links to the first one (counted in
   :attr:`CorefAlignment.extra_refs`).
2. **Alignment**, one to one: a response markable is eligible for a key markable when it lies
   inside the key's extent and contains the key's MIN string (any of its alternatives; the
   exact extent when the key has no MIN, or a MIN that does not occur in the key's text, which is
   reported).  Eligible pairs are taken by shared length in characters, longest first, ties by
   key start, then response start.  MIN strings are compared with whitespace runs as one space.
3. **Optional markables**: a key markable marked ``STATUS="OPT"`` that no response markable
   aligns with is removed from its class; the class keeps its other members.
4. **Partitions**: key classes are partitions of key ids; in the response classes an aligned
   markable stands for its key markable's id, an unaligned one for itself.  Any metric of
   :mod:`annoscore.metrics.coref` then scores the two partitions (MUC: Vilain et al. 1995).

Work per document: markables sorted once; each key looks at the response markables starting
inside its extent (bisection), so it is about linear unless markables nest deeply; more than
:data:`~annoscore.align.muc_mapping.MAX_PAIRS` such pairs in a document is an
:class:`~annoscore.errors.InputError` naming it.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from annoscore.align.muc_mapping import MAX_PAIRS
from annoscore.align.muc_records import ClassAlignment, DocumentAlignment, ObjectPair
from annoscore.errors import InputError
from annoscore.formats.muc_config import ClassDef
from annoscore.formats.muc_sgml_objects import DEFAULT_SLOTS, SgmlSlots, ref_classes
from annoscore.templates import TemplateDocument, TemplateObject, TemplateSlot

COREF_CLASS = ClassDef("COREF", "coref", True, 0.0)
"""The class of COREF objects in the alignment records (map history)."""


@dataclass(slots=True)
class Markable:
    """One COREF markable: its object and what alignment and reports read from it.

    Read-only by convention, not frozen: a frozen dataclass's constructor sets each field
    through ``object.__setattr__`` and costs about four times as much (a corpus has hundreds
    of thousands of markables)."""

    object: TemplateObject
    id: str
    ref: str | None
    mins: tuple[str, ...]
    start: int
    end: int
    text: str
    optional: bool
    flat: str = ""
    """``text`` with whitespace runs as one space (what MIN strings are looked for in)."""
    usable_mins: tuple[str, ...] = ()
    """The MIN strings that occur in ``flat`` (the others cannot be satisfied)."""

    @property
    def ref_shown(self) -> str:
        """The REF as the partition file prints it (``NULL`` when there is none)."""
        return self.ref if self.ref is not None else "NULL"


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def markables_of(
    document: TemplateDocument | None, slots: SgmlSlots = DEFAULT_SLOTS
) -> tuple[list[Markable], int]:
    """The markables of a document in text order (start, longer first), and how many REF
    alternatives beyond the first were ignored."""
    if document is None:
        return [], 0
    out: list[Markable] = []
    extra = 0
    ref_name, min_name, text_name = slots.ref.upper(), slots.min.upper(), slots.text.upper()
    names: dict[str, str] = {}  # slot name -> upper-case
    mins_of: dict[int, tuple[TemplateSlot, tuple[str, ...]]] = {}  # by shared MIN slot
    for obj in document.objects:
        ref = None
        mins: tuple[str, ...] = ()
        text = ""
        for slot in obj.slots:
            name = names.get(slot.name)
            if name is None:
                name = names[slot.name] = slot.name.upper()
            if name == ref_name:
                fills = slot.alternatives[0]
                if fills:
                    # the pointer <COREF-DOCNUM-ID>: the ID is what follows the object's own
                    # class and document (an ID may hold '-': never split at the last one)
                    prefix = f"{obj.class_name}-{obj.document}-"
                    target = fills[0].text
                    ref = target[len(prefix) :] if target.startswith(prefix) else target
                    extra += len(fills) - 1
            elif name == min_name:
                known = mins_of.get(id(slot))
                if known is None or known[0] is not slot:
                    squeezed = (_squeeze(f.text) for a in slot.alternatives for f in a)
                    known = mins_of[id(slot)] = (slot, tuple(m for m in squeezed if m))
                mins = known[1]
            elif name == text_name and slot.alternatives[0]:
                text = slot.alternatives[0][0].text
        start, end = (obj.start, obj.end) if obj.start >= 0 else (0, 0)
        flat = _squeeze(text)
        usable = tuple(m for m in mins if m in flat) if mins else ()
        out.append(
            Markable(obj, obj.number, ref, mins, start, end, text, obj.optional, flat, usable)
        )
    out.sort(key=lambda m: (m.start, -m.end))
    return out, extra


def classes_of(markables: Sequence[Markable]) -> list[list[Markable]]:
    """The REF closure (:func:`~annoscore.formats.muc_sgml_objects.ref_classes`): connected
    components, each in text order, ordered by first member."""
    ids = [m.id for m in markables]
    refs = [(m.id, m.ref) for m in markables if m.ref is not None]
    return [[markables[k] for k in members] for members in ref_classes(ids, refs)]


@dataclass(slots=True)
class CorefAlignment:
    """One document's coreference alignment: everything the reports and the metrics need."""

    document: str
    key: list[Markable]
    response: list[Markable]
    key_to_response: dict[str, str]
    key_classes: list[list[Markable]]
    """Key classes after removing the unaligned optional markables (empty ones dropped)."""
    response_classes: list[list[Markable]]
    removed: list[Markable]
    """Optional key markables no response markable aligned with."""
    record: DocumentAlignment
    """The same alignment as MUC object pairs (``cor``/``mis``/``spu``/``non``): the map history."""
    min_not_in_text: list[Markable] = field(default_factory=list)
    extra_refs: int = 0

    @property
    def response_to_key(self) -> dict[str, str]:
        return {r: k for k, r in self.key_to_response.items()}

    def partitions(self) -> tuple[list[list[str]], list[list[str]]]:
        """Key and response partitions over one id space (see the module docstring)."""
        response_to_key = self.response_to_key
        key = [[m.id for m in cls] for cls in self.key_classes]
        response = [
            [response_to_key.get(m.id, "\x00" + m.id) for m in cls] for cls in self.response_classes
        ]
        return key, response


def eligible(key: Markable, response: Markable) -> bool:
    """Whether ``response`` may align with ``key`` (inside its extent, containing its MIN)."""
    if response.start < key.start or response.end > key.end:
        return False
    usable = key.usable_mins
    if not usable:
        return response.start == key.start and response.end == key.end
    text = response.flat
    return any(m in text for m in usable)


def align_markables(
    key: Sequence[Markable], response: Sequence[Markable], limit: int | None = None
) -> dict[str, str] | None:
    """Key id -> response id, one to one (see the module docstring, step 2); None when more
    than ``limit`` (key, response) pairs have the response starting inside the key."""
    order = sorted(range(len(response)), key=lambda j: response[j].start)
    starts = [response[j].start for j in order]
    pairs: list[tuple[int, int, int, int, int]] = []
    examined = 0
    for i, k in enumerate(key):
        low = bisect.bisect_left(starts, k.start)
        high = bisect.bisect_right(starts, k.end)
        examined += high - low
        if limit is not None and examined > limit:
            return None
        for position in range(low, high):
            j = order[position]
            r = response[j]
            if eligible(k, r):
                pairs.append((-(r.end - r.start), k.start, r.start, i, j))
    pairs.sort()
    used_k: set[int] = set()
    used_r: set[int] = set()
    out: dict[str, str] = {}
    for _, _, _, i, j in pairs:
        if i in used_k or j in used_r:
            continue
        used_k.add(i)
        used_r.add(j)
        out[key[i].id] = response[j].id
    return out


def align_coref(
    document: str,
    key_doc: TemplateDocument | None,
    response_doc: TemplateDocument | None,
    slots: SgmlSlots = DEFAULT_SLOTS,
    class_def: ClassDef = COREF_CLASS,
) -> CorefAlignment:
    """Align one document's markables and build its classes (see the module docstring)."""
    key, key_extra = markables_of(key_doc, slots)
    response, rsp_extra = markables_of(response_doc, slots)
    found = align_markables(key, response, MAX_PAIRS)
    if found is None:
        source = key_doc if key_doc is not None else response_doc
        raise InputError(
            f"{len(key)} key and {len(response)} response markables nest so that more than "
            f"{MAX_PAIRS:,} pairs have the response inside the key's extent, more than the "
            "alignment examines in one document; split the document",
            source.path if source is not None and source.path else None,
            document=document,
        )
    mapping = found
    removed = [m for m in key if m.optional and m.id not in mapping]
    removed_ids = {m.id for m in removed}
    key_classes = [
        kept for cls in classes_of(key) if (kept := [m for m in cls if m.id not in removed_ids])
    ]
    response_classes = classes_of(response)
    response_to_key = {r: k for k, r in mapping.items()}
    by_id = {m.id: m for m in response}
    pairs: list[ObjectPair] = []
    for m in key:
        if m.id in mapping:
            pairs.append(ObjectPair("cor", m.object, by_id[mapping[m.id]].object, []))
    for m in key:
        if m.id not in mapping:
            pairs.append(ObjectPair("non" if m.id in removed_ids else "mis", m.object, None, []))
    for m in response:
        if m.id not in response_to_key:
            pairs.append(ObjectPair("spu", None, m.object, []))
    record = DocumentAlignment(document, [ClassAlignment(class_def, pairs)])
    missing_min = [m for m in key if m.mins and not m.usable_mins]
    return CorefAlignment(
        document,
        key,
        response,
        mapping,
        key_classes,
        response_classes,
        removed,
        record,
        missing_min,
        key_extra + rsp_extra,
    )
