"""MUC tallies of one aligned document, as additive :class:`Counts`.

Keys (``T`` is each of ``cor par inc mis spu non pos act``, see :mod:`annoscore.metrics.tallies`):

``T``                           ALL SLOTS: the sum of every slot row (the number the report ends on)
``obj:CLASS:T``                 OBJ SCORES row of a class (shown, not added into ALL SLOTS)
``slot:CLASS:SLOT:T``           SLOT SCORES row
``slot:CLASS:SLOT:rem``         key pointers to unaligned optional objects, removed from scoring
``text_filter:T``               ST TEXT FILTERING row (one item per document)

Class and slot names are lower-cased.  A slot tally counts each single fill once by its status;
``uns`` (unscored slot) counts NON, ``opt`` and ``rem`` count nothing; an empty or optional-and-
unfilled scored slot adds one NON (decision 11 of ../shared/spec/muc.md).
"""

from __future__ import annotations

from annoscore.align.muc import DocumentAlignment
from annoscore.counts import Counts, Number
from annoscore.metrics.tallies import Tally

_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5}


def document_counts(alignment: DocumentAlignment) -> Counts:
    """The tallies of one document (see the module docstring)."""
    values: dict[str, Number] = {}
    all_slots = [0] * 6
    for cls in alignment.classes:
        name = cls.definition.name.lower()
        obj = [0] * 6
        slots: dict[str, list[int]] = {}
        removed: dict[str, int] = {}
        for pair in cls.pairs:
            obj[_INDEX[pair.status]] += 1
            for slot in pair.slots:
                row = slots.setdefault(slot.definition.name.lower(), [0] * 6)
                for i, value in enumerate(slot.tally()):
                    row[i] += value
                if slot.removed:
                    key = slot.definition.name.lower()
                    removed[key] = removed.get(key, 0) + slot.removed
        values.update(Tally(*obj).as_counts(f"obj:{name}:"))
        for slot_name, row in slots.items():
            values.update(Tally(*row).as_counts(f"slot:{name}:{slot_name}:"))
            for i in range(6):
                all_slots[i] += row[i]
        for slot_name, count in removed.items():
            values[f"slot:{name}:{slot_name}:rem"] = count
    values.update(Tally(*all_slots).as_counts())
    if alignment.text_filter is not None:
        text_filter = [0] * 6
        text_filter[_INDEX[alignment.text_filter]] = 1
        values.update(Tally(*text_filter).as_counts("text_filter:"))
    return Counts(values)


def tally_of(counts: Counts, prefix: str = "") -> Tally:
    """The :class:`Tally` stored under ``prefix`` in ``counts``."""
    return Tally.from_counts(counts, prefix)
