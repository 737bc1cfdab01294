"""MUC alignment records: what the aligner hands on, the map history of each document.

The last step of the MUC alignment flow (:mod:`annoscore.align.muc_compare` compares the slots
of one object pair, :mod:`annoscore.align.muc_codes` makes the same comparisons from equality
codes, :mod:`annoscore.align.muc_mapping` chooses the pairs of a class, :mod:`annoscore.align.muc`
drives one document) and the first thing the metrics and reports read: a
:class:`DocumentAlignment` holds, class by class, every aligned or leftover object
(:class:`ObjectPair`), every slot of it (:class:`SlotPair`) and the fate of every single fill
(:class:`FillPair`).  The tallies are counted from the statuses of the fills.

>>> from annoscore.formats.muc_config import SlotDef
>>> slot = SlotDef("entity", "TYPE", "TYPE", True, 1.0, "set")
>>> SlotPair(slot, None, None, [FillPair("cor"), FillPair("uns"), FillPair("rem")], 1).tally()
(1, 0, 0, 0, 0, 2)
>>> SlotPair(slot, None, None, [FillPair("par"), FillPair("spu")]).credit_and_total()
(1, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annoscore.formats.muc_config import ClassDef, SlotDef
from annoscore.templates import TemplateFill, TemplateObject, TemplateSlot

COUNTED = ("cor", "par", "inc", "mis", "spu", "non")
"""Fill statuses that are tallies; ``uns`` counts as NON; ``opt`` and ``rem`` count nothing."""

TALLY_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5, "uns": 5}
"""Position of a fill status in a (COR, PAR, INC, MIS, SPU, NON) tally."""


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
            index = TALLY_INDEX.get(pair.status)
            if index is not None:
                c[index] += 1
        return c[0], c[1], c[2], c[3], c[4], c[5]

    def credit_and_total(self) -> tuple[int, int]:
        """The slot's share of its pair's F: credit ``2 * COR + PAR`` out of
        ``2 * (COR + PAR + INC) + MIS + SPU`` (so ``F = credit / total``, the P&R F)."""
        cor, par, inc, mis, spu, _ = self.tally()
        return 2 * cor + par, 2 * (cor + par + inc) + mis + spu


@dataclass(slots=True)
class ObjectPair:
    """An aligned pair (status ``cor``; ``non`` for templates) or a leftover (``mis``/``spu``/
    ``non`` for an optional key object).

    With :attr:`~annoscore.align.muc_codes.CodedComparison.shared_slots` on, pairs of equal
    slots share one ``slots`` list (and its records): read-only once made, so that the reports
    can do the work of each list once."""

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
