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

import contextlib
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    for.  The texts are held in the chunks' files (:class:`Spooled`), as UTF-8 bytes that the
    parent copies as they are (no string sent, decoded or encoded)."""

    texts: dict[str, Spooled]

    def of(self, kind: str) -> Spooled:
        """The documents' texts of ``kind``; :class:`ValueError` when it was not written."""
        texts = self.texts.get(kind)
        if texts is None:
            raise ValueError(f"the MUC {kind} was not written by the chunks of this result")
        return texts

    def strings(self, kind: str) -> Iterator[str]:
        """The documents' texts of ``kind`` as strings."""
        for text in self.of(kind):
            yield text.decode("utf-8") if isinstance(text, bytes) else text


class SpoolFile:
    """A file of documents' texts (UTF-8) written one after another by a chunk
    (:meth:`Spooled.written`): ``offsets[k]`` to ``offsets[k + 1]`` are text ``k``'s bytes;
    a text that holds a lone surrogate is kept in ``held`` instead (no bytes in the file).
    Pickled (a chunk sends it to the parent), it is sent as its path: the parent opens the
    file and removes its name (its descriptor keeps the bytes until this object is freed), so
    nothing is left in the folder of the run however the result is used."""

    __slots__ = ("fd", "held", "offsets", "path")

    def __init__(self, fd: int, path: str, offsets: array[int], held: dict[int, str]) -> None:
        self.fd, self.path, self.offsets, self.held = fd, path, offsets, held

    def __reduce__(self) -> tuple[Any, ...]:
        return _reopened, (self.path, self.offsets, self.held)

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def text(self, k: int) -> bytes | str:
        """Text ``k``: its UTF-8 bytes, or the string held aside."""
        held = self.held.get(k)
        if held is not None:
            return held
        start, stop = self.offsets[k], self.offsets[k + 1]
        return _read(self.fd, start, stop)

    def encoded(self, start: int, stop: int) -> Iterator[bytes]:
        """The bytes of texts ``start`` to ``stop`` as an output file holds them (a lone
        surrogate written as ``\\udcff``, as every output is), in blocks of at most
        :data:`BLOCK` bytes."""
        k = start
        for h in sorted(h for h in self.held if start <= h < stop):
            yield from _blocks(self.fd, self.offsets[k], self.offsets[h])
            yield self.held[h].encode("utf-8", "backslashreplace")
            k = h + 1
        yield from _blocks(self.fd, self.offsets[k], self.offsets[stop])


BLOCK = 8 << 20
"""The largest block of a spooled file read at once to be written out."""


def _read(fd: int, start: int, stop: int) -> bytes:
    data = os.pread(fd, stop - start, start)
    while len(data) < stop - start:  # a short read (a signal): the rest
        more = os.pread(fd, stop - start - len(data), start + len(data))
        if not more:
            raise OSError(f"a spooled MUC report ends before byte {stop}")
        data += more
    return data


def _blocks(fd: int, start: int, stop: int) -> Iterator[bytes]:
    for at in range(start, stop, BLOCK):
        yield _read(fd, at, min(stop, at + BLOCK))


def _reopened(path: str, offsets: array[int], held: dict[int, str]) -> SpoolFile:
    """A chunk's :class:`SpoolFile` in the process that received it: opened, its name removed."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    with contextlib.suppress(OSError):
        os.unlink(path)
    return SpoolFile(fd, path, offsets, held)


@dataclass(frozen=True, slots=True)
class Spooled:
    """Documents' texts held in spool files: runs of consecutive texts ``(file, start,
    stop)``, in order; iterated, each text's UTF-8 bytes (or the string held aside)."""

    runs: tuple[tuple[SpoolFile, int, int], ...]

    @staticmethod
    def written(folder: str, kinds: Mapping[str, Iterable[str]]) -> dict[str, Spooled]:
        """Each kind's texts written to one new file in ``folder``, kind after kind, each as
        it comes (a text that holds a lone surrogate, which no UTF-8 encodes, kept aside)."""
        fd, path = tempfile.mkstemp(prefix="muc-", dir=folder)
        offsets = array("q", [0])
        held: dict[int, str] = {}
        spans: dict[str, tuple[int, int]] = {}
        at = 0
        try:
            with open(fd, "wb", closefd=False) as handle:
                for kind, texts in kinds.items():
                    first = len(offsets) - 1
                    for text in texts:
                        try:
                            data = text.encode("utf-8")
                        except UnicodeEncodeError:  # a lone surrogate
                            held[len(offsets) - 1] = text
                            data = b""
                        handle.write(data)
                        at += len(data)
                        offsets.append(at)
                    spans[kind] = first, len(offsets) - 1
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        spool = SpoolFile(fd, path, offsets, held)
        return {kind: Spooled(((spool, a, b),)) for kind, (a, b) in spans.items()}

    def __len__(self) -> int:
        return sum(stop - start for _, start, stop in self.runs)

    def __iter__(self) -> Iterator[bytes | str]:
        for spool, start, stop in self.runs:
            for k in range(start, stop):
                yield spool.text(k)

    def encoded(self) -> Iterator[bytes]:
        """The texts' bytes as an output file holds them (:meth:`SpoolFile.encoded`)."""
        for spool, start, stop in self.runs:
            yield from spool.encoded(start, stop)

    @staticmethod
    def joined(parts: Sequence[Spooled], order: Sequence[int] | None = None) -> Spooled:
        """The texts of ``parts`` one after another, or in ``order`` (the joined texts'
        positions, one a text)."""
        if order is None:
            return Spooled(tuple(run for part in parts for run in part.runs))
        texts = [(spool, k) for part in parts for spool, a, b in part.runs for k in range(a, b)]
        runs: list[tuple[SpoolFile, int, int]] = []
        for n in order:
            spool, k = texts[n]
            if runs and runs[-1][0] is spool and runs[-1][2] == k:
                runs[-1] = (spool, runs[-1][1], k + 1)
            else:
                runs.append((spool, k, k + 1))
        return Spooled(tuple(runs))


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
