"""Texts written by the chunks of a run to files of a spool folder, copied out by the parent.

A chunk (a worker of ``--jobs N``) that writes its documents' texts itself (``annoscore muc``:
:mod:`annoscore.tasks.muc_chunks`) puts them in a file of a folder made by the run
(:func:`spool_folder`: ``/dev/shm`` when there is one), one text after another
(:meth:`Spooled.written`), and sends the file's name and the texts' offsets
(:class:`SpoolFile`); the parent copies the bytes into its outputs as they are, in document
order (:meth:`Spooled.encoded`), file to file in the kernel (:class:`FileBytes`): no string
is pickled, joined, decoded or encoded there, and no byte read.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple


def spool_folder() -> str | None:
    """Where workers leave their results: ``/dev/shm`` (memory) when there is one, else the
    system's temporary folder (``None``).

    >>> spool_folder() in ("/dev/shm", None)
    True
    """
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


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

    def encoded(self, start: int, stop: int) -> Iterator[bytes | FileBytes]:
        """Texts ``start`` to ``stop`` as an output file holds them (a lone surrogate written
        as ``\\udcff``, as every output is): the stretches of this file between the texts
        held aside (:class:`FileBytes`, copied by the writer without being read here:
        :class:`~annoscore.cli.writing.OutputFiles`) and the held texts' bytes."""
        k = start
        for h in sorted(h for h in self.held if start <= h < stop):
            if self.offsets[h] > self.offsets[k]:
                yield FileBytes(self.fd, self.offsets[k], self.offsets[h], self)
            yield self.held[h].encode("utf-8", "backslashreplace")
            k = h + 1
        if self.offsets[stop] > self.offsets[k]:
            yield FileBytes(self.fd, self.offsets[k], self.offsets[stop], self)


class FileBytes(NamedTuple):
    """Bytes ``start`` to ``stop`` of the open file ``fd`` (a chunk's spooled texts): an
    output file takes them from file to file in the kernel (``os.sendfile``), never read into
    this process (named entity, 1,000 documents, 136 MB of map history: 0.06-0.08 s of system
    time to copy, where reading them in blocks and writing those took 0.08-0.43 s and 4,096
    page faults); :meth:`blocks` reads them where it cannot.  ``owner`` is what closes ``fd``
    when it is freed (a :class:`SpoolFile`): held here, the descriptor stays open, and its
    number is not given to another file, while the bytes wait in a writer's queue."""

    fd: int
    start: int
    stop: int
    owner: object = None

    def blocks(self) -> Iterator[bytes]:
        """The bytes, read in blocks of at most :data:`BLOCK` bytes."""
        for at in range(self.start, self.stop, BLOCK):
            yield _read(self.fd, at, min(self.stop, at + BLOCK))


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

    def encoded(self) -> Iterator[bytes | FileBytes]:
        """The texts as an output file holds them (:meth:`SpoolFile.encoded`)."""
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
