"""MUC named entity tallies: the template tallies plus the subtask and section rows.

Every key of :func:`annoscore.metrics.muc.document_counts` (ALL SLOTS, ``obj:CLASS:T``,
``slot:CLASS:SLOT:T``), and (``T`` each of ``cor par inc mis spu non pos act``):

``subtask:CLASS:SLOT:VALUE:T``  SUBTASK SCORES row of one ``:ne_subtask_names`` entry: the
                                single fills of that slot whose value is VALUE, by the key's
                                value for aligned and missing fills, by the response's value for
                                spurious ones (case-insensitive)
``section:NAME:T``              SECT SCORES row: every slot tally of the objects in section NAME
                                (the key object's section; the response's for a spurious one),
                                or in any section of the ``:doc_section_groups`` group NAME

Names are lower-cased except section and group names, kept as configured.  Each row is additive
over documents, so the report's totals page is the sum of its document pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from annoscore.align.muc_records import DocumentAlignment
from annoscore.counts import Counts, Number
from annoscore.metrics.muc import _FILL_INDEX, put_class_rows, put_document_rows, put_tallies

_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5, "uns": 5}


def subtask_key(cls: str, slot: str, value: str) -> str:
    """The counts prefix of a subtask row (``subtask:enamex:type:person:``)."""
    return f"subtask:{cls.lower()}:{slot.lower()}:{value.lower()}:"


def ne_document_counts(
    alignment: DocumentAlignment,
    subtasks: Sequence[tuple[str, str, str]],
    section_groups: Mapping[str, Sequence[str]],
) -> Counts:
    """The tallies of one named entity document (see the module docstring).

    ``subtasks`` are ``(class, slot, value)`` triples; ``section_groups`` maps a row name to
    the section names it sums (``{"TEXT": ["TEXT"]}`` without groups).  One pass over the
    single fills makes every row: the :func:`~annoscore.metrics.muc.document_counts` ones
    (same keys, same order), then the SUBTASK and SECT ones.
    """
    wanted: dict[tuple[str, str], dict[str, list[int]]] = {}
    for class_name, slot_name, value in subtasks:
        wanted.setdefault((class_name.lower(), slot_name.lower()), {})[value.lower()] = [0] * 6
    rows_of_section: dict[str, list[list[int]]] = {}
    group_rows = {name: [0] * 6 for name in section_groups}
    for name, members in section_groups.items():
        for member in members:
            rows_of_section.setdefault(member.lower(), []).append(group_rows[name])
    by_section: dict[str, list[list[int]]] = {}
    fill_index = _FILL_INDEX
    values: dict[str, Number] = {}
    all_slots = [0] * 6
    for cls in alignment.classes:
        class_name = cls.definition.name.lower()
        obj = [0] * 6
        rows: dict[str, list[int]] = {}  # by slot name as defined: COR ... NON, REM
        buckets_of: dict[str, dict[str, list[int]] | None] = {}
        for pair in cls.pairs:
            obj[_INDEX[pair.status]] += 1
            owner = pair.key if pair.key is not None else pair.response
            section_rows: list[list[int]] = []
            if owner is not None:
                known_rows = by_section.get(owner.section)
                if known_rows is None:
                    known_rows = by_section[owner.section] = rows_of_section.get(
                        owner.section.lower(), []
                    )
                section_rows = known_rows
            for slot in pair.slots:
                slot_name = slot.definition.name
                row = rows.get(slot_name)
                if row is None:
                    row = rows[slot_name] = [0] * 7
                    buckets_of[slot_name] = wanted.get((class_name, slot_name.lower()))
                buckets = buckets_of[slot_name]
                if slot.slot_non:
                    row[5] += slot.slot_non
                    for target in section_rows:
                        target[5] += slot.slot_non
                for fill in slot.fills:
                    index = fill_index.get(fill.status)
                    if index is None:
                        continue
                    row[index] += 1
                    if index == 6:  # a removed pointer: only its slot row counts it
                        continue
                    for target in section_rows:
                        target[index] += 1
                    if buckets is not None:
                        shown = fill.key if fill.key is not None else fill.response
                        if shown is not None:
                            bucket = buckets.get(shown.text.lower())
                            if bucket is not None:
                                bucket[index] += 1
        put_class_rows(values, class_name, obj, rows, all_slots)
    put_document_rows(values, all_slots, alignment.text_filter)
    for (cls_name, slot_name), buckets in wanted.items():
        for value, row in buckets.items():
            put_tallies(values, subtask_key(cls_name, slot_name, value), row)
    for name, row in group_rows.items():
        put_tallies(values, f"section:{name}:", row)
    return Counts(values)
