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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annoscore.align.muc_records import DocumentAlignment
from annoscore.counts import Counts, Number
from annoscore.metrics.tallies import Tally
from annoscore.result import Details

if TYPE_CHECKING:
    from annoscore.align.muc_coref import CorefAlignment
    from annoscore.formats.muc_config import MucConfig


@dataclass(frozen=True, slots=True)
class MucDetails(Details):
    """What the MUC scorer's official layouts need beyond scores and counts (filled by the MUC
    tasks, read by :mod:`annoscore.report.muc` and :mod:`annoscore.report.muc_history`): the
    configuration (classes, slots, report names, separators) and every document's alignment."""

    config: MucConfig
    documents: Sequence[DocumentAlignment]
    pairs_scored: int = 0
    """Candidate key/response pairs scored during alignment (see :mod:`annoscore.align.muc`)."""
    coref: Sequence[CorefAlignment] | None = None
    """Coreference: each document's markables, classes and alignment (else None)."""
    section_rows: tuple[str, ...] = ()
    """Named entity: the SECT SCORES row names (groups, else sections)."""
    subtasks: tuple[tuple[str, str, str], ...] = ()
    """Named entity: the SUBTASK SCORES rows ``(class, slot, value)``."""
    rendered: Rendered | None = None
    """A chunk's reports written per document in its worker (``annoscore muc --jobs N``:
    :mod:`annoscore.tasks.muc_chunks`); then ``documents`` and ``coref`` hold no alignment
    (``coref`` is an empty list for coreference) and the reports join these texts."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """Reports written per document by the chunks of a run (each a text per scored document,
    in scoring order), by kind: ``summary`` (the report summary), ``history`` (the map
    history's Tcl lines), ``partitions`` (coreference's partition file); only the kinds asked
    for.  The texts are held in the chunks' files (:class:`~annoscore.scale.spool.Spooled`),
    as UTF-8 bytes that the parent copies as they are (no string sent, decoded or encoded)."""

    texts: dict[str, Any]
    """Each kind's :class:`~annoscore.scale.spool.Spooled` (the scale layer's, above this one)."""

    def of(self, kind: str) -> Any:
        """The documents' texts of ``kind``; :class:`ValueError` when it was not written."""
        texts = self.texts.get(kind)
        if texts is None:
            raise ValueError(f"the MUC {kind} was not written by the chunks of this result")
        return texts

    def strings(self, kind: str) -> Iterator[str]:
        """The documents' texts of ``kind`` as strings."""
        for text in self.of(kind):
            yield text.decode("utf-8") if isinstance(text, bytes) else text


_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5}
_FILL_INDEX = {**_INDEX, "uns": 5, "rem": 6}
"""A fill status's place in a slot row: the six tallies, then the removed pointers."""


def put_tallies(values: dict[str, Number], prefix: str, row: Sequence[int]) -> None:
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


def put_class_rows(
    values: dict[str, Number],
    class_name: str,
    obj: Sequence[int],
    rows: dict[str, list[int]],
    all_slots: list[int],
) -> None:
    """A class's OBJ row and its SLOT rows (slots merged by lower-cased name; the seventh
    place of a row, removed pointers, as ``rem``), each slot row added into ``all_slots``."""
    put_tallies(values, f"obj:{class_name}:", obj)
    merged: dict[str, list[int]] = {}
    for slot_name, row in rows.items():
        lowered = slot_name.lower()
        if lowered in merged:
            merged[lowered] = [a + b for a, b in zip(merged[lowered], row, strict=True)]
        else:
            merged[lowered] = row
    for slot_name, row in merged.items():
        put_tallies(values, f"slot:{class_name}:{slot_name}:", row)
        for i in range(6):
            all_slots[i] += row[i]
    for slot_name, row in merged.items():
        if row[6]:
            values[f"slot:{class_name}:{slot_name}:rem"] = row[6]


def put_document_rows(
    values: dict[str, Number], all_slots: Sequence[int], text_filter: str | None
) -> None:
    """The ALL SLOTS row and, when the task filters texts, the document's TEXT FILTERING item."""
    put_tallies(values, "", all_slots)
    if text_filter is not None:
        row = [0] * 6
        row[_INDEX[text_filter]] = 1
        put_tallies(values, "text_filter:", row)


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
        put_class_rows(values, name, obj, rows, all_slots)
    put_document_rows(values, all_slots, alignment.text_filter)
    return Counts(values)


def all_slots_scores(counts: Counts) -> dict[str, float | None]:
    """The scorer of a MUC result: the ALL SLOTS row's recall, precision, F-measures and error
    rates (:meth:`annoscore.metrics.tallies.Tally.scores`)."""
    return Tally.from_counts(counts).scores()
