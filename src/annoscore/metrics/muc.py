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
_FILL_INDEX = {**_INDEX, "uns": 5, "rem": 6}
"""A fill status's place in a slot row: the six tallies, then the removed pointers."""


def _put(values: dict[str, Number], prefix: str, row: list[int]) -> None:
    """``row``'s tallies, ``pos`` and ``act`` under ``prefix`` (as :meth:`Tally.as_counts`)."""
    cor, par, inc, mis, spu, non = row[:6]
    values[prefix + "cor"] = cor
    values[prefix + "par"] = par
    values[prefix + "inc"] = inc
    values[prefix + "mis"] = mis
    values[prefix + "spu"] = spu
    values[prefix + "non"] = non
    values[prefix + "pos"] = cor + par + inc + mis
    values[prefix + "act"] = cor + par + inc + spu


def document_counts(alignment: DocumentAlignment) -> Counts:
    """The tallies of one document (see the module docstring)."""
    values: dict[str, Number] = {}
    all_slots = [0] * 6
    fill_index = _FILL_INDEX
    for cls in alignment.classes:
        name = cls.definition.name.lower()
        obj = [0] * 6
        rows: dict[str, list[int]] = {}
        for pair in cls.pairs:
            obj[_INDEX[pair.status]] += 1
            for slot in pair.slots:
                slot_name = slot.definition.name
                row = rows.get(slot_name)
                if row is None:
                    row = rows[slot_name] = [0] * 7
                row[5] += slot.slot_non
                for fill in slot.fills:
                    index = fill_index.get(fill.status)
                    if index is not None:
                        row[index] += 1
        _put(values, f"obj:{name}:", obj)
        merged: dict[str, list[int]] = {}
        for slot_name, row in rows.items():
            lowered = slot_name.lower()
            if lowered in merged:
                merged[lowered] = [a + b for a, b in zip(merged[lowered], row, strict=True)]
            else:
                merged[lowered] = row
        for slot_name, row in merged.items():
            _put(values, f"slot:{name}:{slot_name}:", row)
            for i in range(6):
                all_slots[i] += row[i]
        for slot_name, row in merged.items():
            if row[6]:
                values[f"slot:{name}:{slot_name}:rem"] = row[6]
    _put(values, "", all_slots)
    if alignment.text_filter is not None:
        text_filter = [0] * 6
        text_filter[_INDEX[alignment.text_filter]] = 1
        _put(values, "text_filter:", text_filter)
    return Counts(values)


def tally_of(counts: Counts, prefix: str = "") -> Tally:
    """The :class:`Tally` stored under ``prefix`` in ``counts``."""
    return Tally.from_counts(counts, prefix)


def all_slots_scores(counts: Counts) -> dict[str, float | None]:
    """The scorer of a MUC result: the ALL SLOTS row's recall, precision, F-measures and error
    rates (:meth:`annoscore.metrics.tallies.Tally.scores`)."""
    return tally_of(counts).scores()
