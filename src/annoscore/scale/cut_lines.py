"""Single files of lines cut at document boundaries found in the bytes.

:func:`split_lines` cuts two files whose lines begin with the document id (CodiEsp TSV, trec)
near even shares (:func:`targets`), reading a few lines around each cut, never the corpus.
The sizes that decide whether and how finely a file is cut (:data:`LINE_CHUNK_BYTES`,
:data:`MIN_LINE_BYTES`) are read here only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from annoscore.scale.chunks import LineChunk
from annoscore.scale.remote import RemoteBytes, _url_size, _where
from annoscore.scale.run import current

# --- single files of lines -------------------------------------------------------------------

LINE_CHUNKS_PER_WORKER = 2
"""Chunks of a single file per worker (each chunk reads the task's other files again)."""

LINE_CHUNK_BYTES = 4 << 20
"""At most about this many bytes of the gold file per chunk of lines, and about twice this of
the two files together (:func:`most_gold`; more chunks than :data:`LINE_CHUNKS_PER_WORKER` per
worker when the files are larger): with one chunk in flight per worker, memory stays bounded
whatever the size of the corpus."""

MIN_LINE_BYTES = 16 << 20
"""Files smaller than this (gold and system together) are one chunk: forking and reading the
task's other files in each chunk cost more than they save (about 10^5 CodiEsp documents)."""


def _lines_before(path: str, offsets: Sequence[int]) -> list[int]:
    """How many lines of ``path`` (a file, or an fsspec URL) come before each of ``offsets``
    (increasing): one pass over the bytes up to the last, a block at a time (no more than a
    block held).

    >>> import tempfile
    >>> path = tempfile.mkstemp()[1]
    >>> _ = open(path, "wb").write(b"a\\nb\\n\\nc")
    >>> _lines_before(path, [0, 2, 5, 6])
    [0, 1, 3, 3]
    """
    from annoscore.formats.files import is_url, url_fs

    found: list[int] = []
    block = 1 << 24
    lines = at = 0
    with contextlib.ExitStack() as stack:
        if is_url(path):
            fs, where = url_fs(path)
            handle = stack.enter_context(fs.open(where, "rb"))
        else:
            handle = stack.enter_context(open(path, "rb", buffering=0))
        for offset in offsets:
            while at < offset:
                data = handle.read(min(block, offset - at))
                if not data:
                    break
                lines += data.count(b"\n")
                at += len(data)
            found.append(lines)
    return found


def numbered(chunks: Sequence[LineChunk]) -> list[LineChunk]:
    """``chunks`` with the lines before each range counted, so that a reader numbers a chunk's
    lines as in the whole file (:func:`~annoscore.formats.files.first_line`): what a chunk's
    warnings quote is then what one run quotes, and the warnings can be pooled."""
    gold = _lines_before(chunks[0].gold, [c.gold_range[0] for c in chunks])
    system = _lines_before(chunks[0].system, [c.system_range[0] for c in chunks])
    return [
        replace(c, gold_line=g, system_line=p) for c, g, p in zip(chunks, gold, system, strict=True)
    ]


def _key(data: Any, start: int, separators: bytes) -> bytes:
    """The first field of the line at ``start`` of ``data`` (up to a separator or its end)."""
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    for separator in separators:
        found = data.find(bytes((separator,)), start, end)
        if found >= 0:
            end = found
    return bytes(data[start:end])


def _next_run(
    data: Any, start: int, separators: bytes, comments: bytes = b""
) -> tuple[int, bytes] | None:
    """The start and key of the first line after ``start`` whose key is not the key of the
    line at ``start`` (the next document's first line when a document's lines are adjacent);
    ``None`` at the end.  A line that begins with ``comments`` (when given: trec's ``#``) is
    no document's: never a cut, its key never the one compared (the first line after it that
    is not one gives the key).

    >>> data = b"a 1\\n# x\\na 2\\n#\\nb 1\\nc 1\\n"
    >>> _next_run(data, 4, b" "), _next_run(data, 4, b" ", b"#"), _next_run(data, 12, b" ", b"#")
    ((8, b'a'), (14, b'b'), (18, b'c'))
    """
    key = _key(data, start, separators)
    while True:
        newline = data.find(b"\n", start)
        if newline < 0 or newline + 1 >= len(data):
            return None
        start = newline + 1
        other = _key(data, start, separators)
        if comments and other.startswith(comments):
            continue
        if comments and key.startswith(comments):  # the first line after the comments
            key = other
            continue
        if other != key and other.strip():  # a blank line belongs to the document before
            return start, other


def _find_line(
    data: Any, key: bytes, separators: bytes, after: int, before: int | None = None
) -> int:
    """The start of the first line at or after ``after`` (and before ``before``, when given)
    whose first field is ``key`` (-1: none).  One search for the key at a line's start, each hit
    checked for a separator after it: a separator the file does not use costs nothing
    (searching for each separator apart scanned to the end of the file for the ones never
    found).

    >>> data = b"q1 a\\nq10 b\\nq1\\tc\\nq1 d\\n"
    >>> _find_line(data, b"q1", b" \\t", 0), _find_line(data, b"q1", b" \\t", 1)
    (0, 11)
    >>> _find_line(data, b"q10", b"\\t", 0), _find_line(data, b"q2", b" ", 0)
    (-1, -1)
    >>> _find_line(data, b"q1", b" \\t", 1, 11), _find_line(data, b"q1", b" \\t", 1, 12)
    (-1, 11)
    """
    ends = tuple(bytes((s,)) for s in separators)  # what a slice of one byte equals
    if after == 0 and data[: len(key)] == key and data[len(key) : len(key) + 1] in ends:
        return 0 if before is None or before > 0 else -1
    needle = b"\n" + key
    at: int = max(0, after - 1)
    # a hit's newline is at most before - 2 (its line starts before ``before``)
    stop = len(data) if before is None else max(0, min(len(data), before - 2 + len(needle)))
    while True:
        at = int(data.find(needle, at, stop))
        if at < 0:
            return -1
        end = at + len(needle)
        if data[end : end + 1] in ends:
            return at + 1
        at += 1


_NEAR_BYTES = 1 << 12
"""The width of the first window in which :func:`_find_near` seeks a line."""


def _find_near(data: Any, key: bytes, separators: bytes, after: int, near: int) -> int:
    """:func:`_find_line` from ``after``, sought near ``near`` first: the first line of
    ``key`` in a window around ``near`` (from :data:`_NEAR_BYTES` before it to as far after
    it; then windows reaching 4, 16... times further back, never before ``after``), back to
    the first of the adjacent lines whose first field is ``key`` (the document's first line,
    when its lines are adjacent: lines probed 64, 128, 256...
    bytes back until one is not of ``key``, then the first line of ``key`` after it);
    :func:`_find_line` from ``after`` when no window holds one.  Each search is bounded: a
    document before the window costs a wider window, not a read to the end.  The same line
    as :func:`_find_line` when the lines of ``key`` are adjacent, found without reading the
    file from ``after``; otherwise a later line of the document may be found, and the cut is
    then not exact (:func:`exact_cut`: the input is scored in one run).

    >>> data = b"a 1\\nb 1\\nb 2\\nb 3\\nc 1\\n"
    >>> [_find_near(data, b"b", b" ", 0, near) for near in (0, 4, 9, 14, 19)]
    [4, 4, 4, 4, 4]
    >>> _find_near(data, b"b", b" ", 8, 14), _find_near(data, b"a", b" ", 0, 19)
    (8, 0)
    """
    at = sought_near(
        lambda low, high: _find_line(data, key, separators, low, high), after, near, len(data)
    )
    if at < 0:
        return -1
    # back to the first of the adjacent lines of key: lines probed twice as far back each time
    # until one is not of key, then the first line of key after it (line by line, trec's cuts
    # read 400 lines each: the cuts took 0.064 s of CPU before any worker began, now 0.047 s)
    step = max(1, _NEAR_BYTES // 64)
    while at > after:
        probe = max(after, data.rfind(b"\n", after, max(after, at - step)) + 1)
        if _key(data, probe, separators) != key:
            return _find_line(data, key, separators, probe)
        at, step = probe, step * 2
    return _find_line(data, key, separators, at)


def sought_near(find: Callable[[int, int], int], after: int, near: int, end: int) -> int:
    """``find(low, high)`` (the first hit in ``[low, high)``, -1: none) sought in windows
    around ``near``: from :data:`_NEAR_BYTES` before it to as far after it, then windows
    reaching 4, 16... times further each way, never before ``after``; from ``after`` to
    ``end`` when no window holds a hit.  A search from ``after`` reads the file from the cut
    before (a search unbounded from a little before ``near`` read on to the end of the file
    when the document lay before that point: trec 0.2-5 s of the parent's time for 77 cuts,
    before any worker started; a first window of 1/64 of the way read 110 KB or more per
    cut where ``near``, at the rate of the chunk before (:func:`cut_points`), is a few KB
    off).  A hit in a window may be a later one than the first after ``after``.

    >>> data = b"x" * 100_000 + b"k" + b"x" * 100_000 + b"k"
    >>> seen = []
    >>> def find(low, high):
    ...     seen.append((low, high))
    ...     return data.find(b"k", low, high)
    >>> sought_near(find, 0, 100_500, len(data)), seen
    (100000, [(96404, 104596)])
    >>> sought_near(find, 0, 190_000, len(data)), seen[-1]  # the hit near, not the first
    (200001, (169520, 200002))
    >>> sought_near(find, 100_001, 100_000, len(data)), seen[-1]  # near before after
    (200001, (100001, 200002))
    """
    width, low = _NEAR_BYTES, near
    while low > after:
        low = max(after, low - width)
        at = find(low, min(end, near + width))
        if at >= 0:
            return at
        width *= 4
    return find(after, end)


def most_gold(gold: int, system: int) -> int:
    """The most bytes of a gold file of ``gold`` bytes per chunk, beside a system file of
    ``system`` bytes: :data:`LINE_CHUNK_BYTES`, less when the system file is the larger, so that
    a chunk holds at most about twice that of the two files together.  (trec's run is 20 times
    its qrels: chunks of 4 MB of qrels were 84 MB, and each worker's first chunk faulted in
    about 340 MB of fresh memory, 85,000 page faults and 0.7 s of system time.)

    >>> most_gold(100 << 20, 100 << 20) == LINE_CHUNK_BYTES, most_gold(30, 600) * 21 <= 8 << 20
    (True, True)
    """
    total = max(1, gold + system)
    return max(1, min(LINE_CHUNK_BYTES, 2 * LINE_CHUNK_BYTES * gold // total))


def targets(size: int, parts: int, workers: int = 1, most: int | None = None) -> list[int]:
    """Where to seek the cuts of a gold file of ``size`` bytes (offsets, increasing; empty:
    one chunk).  For one worker, ``parts`` even shares (more when a share would exceed
    ``most``, by default :data:`LINE_CHUNK_BYTES`: :func:`most_gold`).  For several, shares
    that shrink towards the end (each an even share of what is left for twice the workers, at
    most ``most``, at least a sixteenth of an even share): workers take the next chunk as they
    finish one, so with small chunks last they finish together (with equal chunks, one worker
    may score a whole chunk alone at the end).

    >>> targets(100, 4), targets(100, 1)
    ([25, 50, 75], [])
    >>> targets(1000, 4, workers=2)
    [250, 438, 579, 685, 764, 823, 868, 901, 926, 945, 960, 975]
    """
    most = LINE_CHUNK_BYTES if most is None else most
    if workers <= 1:
        parts = max(parts, -(-size // most))
        return [size * n // parts for n in range(1, parts)]
    least = max(1, min(most, size // max(1, parts)) // 16)
    found: list[int] = []
    at = 0
    while True:
        step = min(most, max(least, -(-(size - at) // (2 * workers))))
        if size - at - step < least:  # what is left is the last chunk
            return found
        at += step
        found.append(at)


def split_lines(
    gold: Path,
    system: Path,
    parts: int,
    separators: bytes = b"\t",
    workers: int = 1,
    comments: bytes = b"",
) -> list[LineChunk] | None:
    """Two files of lines (a document's id in the first field) cut as :func:`split_pair` cuts
    (its targets from :func:`targets`, shrinking when ``workers`` share them): each gold cut at
    the first line of a document near its target (never at a line that begins with
    ``comments``: :func:`_next_run`), the system's at the first line of that
    document, sought near where the cut before's rate predicts it (:func:`_find_near`).
    Exact when the ids the chunks' readers found say so (:func:`combine_lines`).  A URL (or
    its stand-in) is read through fsspec, the same few lines (:class:`RemoteBytes`)."""
    import mmap

    urls = _where(gold), _where(system)
    paths = gold, system
    sizes = [_url_size(u) if u != str(p) else None for u, p in zip(urls, paths, strict=True)]
    try:
        stats = [s or os.stat(p) for s, p in zip(sizes, (gold, system), strict=True)]
    except OSError:
        return None
    import stat

    if not all(stat.S_ISREG(s.st_mode) and s.st_size > 0 for s in stats):
        return None
    same = urls[0] == urls[1] if any(sizes) else os.path.samefile(gold, system)
    if same or stats[0].st_size + stats[1].st_size < MIN_LINE_BYTES:
        return None
    wanted = targets(
        stats[0].st_size, parts, workers, most_gold(stats[0].st_size, stats[1].st_size)
    )
    if not wanted:
        return None
    with contextlib.ExitStack() as stack:
        gold_data, system_data = (
            stack.enter_context(RemoteBytes.opened(url, size.st_size))
            if size is not None
            else stack.enter_context(
                mmap.mmap(
                    stack.enter_context(open(path, "rb")).fileno(), 0, access=mmap.ACCESS_READ
                )
            )
            for url, size, path in zip(urls, sizes, (gold, system), strict=True)
        )
        size = len(gold_data)

        def first_of_next(at: int, low: int) -> tuple[int, int, bytes] | None:
            newline = gold_data.find(b"\n", at - 1)
            if newline < 0 or newline + 1 >= size:
                return None
            found = _next_run(gold_data, newline + 1, separators, comments)
            return None if found is None else (found[0], found[0], found[1])

        def system_line(key: bytes, after: int, near: int) -> int:
            return _find_near(system_data, key, separators, after, near)

        frames = ((0, size), (0, len(system_data)))
        cuts = [(g, s) for g, s, _ in cut_points(frames, wanted, first_of_next, system_line)]
        if not cuts:
            return None
        return _between(*urls, [(0, 0), *cuts], [*cuts, (size, len(system_data))])


_BLOCK = 1 << 20
"""The bytes whose newlines :class:`_Lines` counts at a time (one NumPy comparison)."""


class _Lines:
    """Line numbers and line starts of a file, asked in increasing order (each answer counts on
    from the last one, so all of them cost one pass over the bytes), its newlines counted by
    NumPy a block at a time (``bytes.count`` of a newline: 0.06 s of the parent's time per
    44 MB file, before any worker starts; NumPy 0.006 s).

    >>> lines = _Lines(b"a\\nbb\\n\\nc" * 300000)
    >>> [lines.start(n) for n in (1, 2, 4, 899999, 900000, 900001, 900002)]
    [0, 2, 6, 2099995, 2099998, 2099999, -1]
    >>> [lines.number(n) for n in (0, 2, 5, 6, 2099999)]
    [1, 2, 3, 4, 900001]
    """

    def __init__(self, data: Any) -> None:
        self.data = data
        self.at = 0  # an offset at a line's start
        self.line = 1  # the number of that line

    def _newlines(self, start: int, stop: int) -> Any:
        """The newlines of ``data[start:stop]`` as a NumPy array of booleans (a view made and
        dropped here: a mapped file with a view alive cannot be closed)."""
        import numpy as np

        return np.frombuffer(self.data, np.uint8, stop - start, start) == 10

    def number(self, offset: int) -> int:
        """The number of the line starting at ``offset``."""
        import numpy as np

        if offset < self.at:
            self.at, self.line = 0, 1
        while self.at < offset:
            end = min(offset, self.at + _BLOCK)
            self.line += int(np.count_nonzero(self._newlines(self.at, end)))
            self.at = end
        return self.line

    def start(self, line: int) -> int:
        """The offset of the start of line ``line`` (-1: the file has fewer lines, or the line
        would begin at the end)."""
        import numpy as np

        if line < self.line:
            self.at, self.line = 0, 1
        size = len(self.data)
        scan, counted = self.at, 0  # the newlines from self.at up to scan
        while self.line + counted < line:
            end = min(size, scan + _BLOCK)
            if scan >= end:
                return -1
            newlines = self._newlines(scan, end)
            count = int(np.count_nonzero(newlines))
            if counted + count >= line - self.line:  # the line starts in this block
                nth = line - self.line - counted - 1
                first = scan + int(np.flatnonzero(newlines)[nth]) + 1
                if first >= size:
                    return -1
                self.at, self.line = first, line
                break
            scan, counted = end, counted + count
        return self.at


@contextlib.contextmanager
def _mapped(gold: Path, system: Path) -> Iterator[tuple[Any, Any]]:
    """The bytes of two files, mapped (read only as the cutters search them)."""
    import mmap

    with (
        open(gold, "rb") as g,
        open(system, "rb") as p,
        mmap.mmap(g.fileno(), 0, access=mmap.ACCESS_READ) as gold_data,
        mmap.mmap(p.fileno(), 0, access=mmap.ACCESS_READ) as system_data,
    ):
        yield gold_data, system_data


def _between(
    gold: str, system: str, begins: Sequence[tuple[int, int]], ends: Sequence[tuple[int, int]]
) -> list[LineChunk]:
    """The chunks from each ``begins[k]`` to ``ends[k]`` (gold offset, system offset)."""
    return [
        LineChunk(gold, system, (b[0], e[0]), (b[1], e[1]))
        for b, e in zip(begins, ends, strict=True)
    ]


def _regular_pair(
    gold: Path, system: Path, parts: int, alone: bool = False, least: int | None = None
) -> int:
    """How many chunks two files are cut into (:func:`split_lines`' rule: at least ``parts``,
    more for a large gold file), or 0 when they are not two distinct regular files of
    ``least`` bytes (:data:`MIN_LINE_BYTES` unless given) or more together (``alone``: one
    file holding both sides, given twice, of that many bytes)."""
    import stat

    try:
        stats = [os.stat(gold), os.stat(system)]
        if not all(stat.S_ISREG(s.st_mode) and s.st_size > 0 for s in stats):
            return 0
        if os.path.samefile(gold, system) != alone:
            return 0
    except OSError:
        return 0
    sizes = (stats[0].st_size, 0 if alone else stats[1].st_size)
    if sum(sizes) < (MIN_LINE_BYTES if least is None else least):
        return 0
    most = most_gold(*sizes)
    parts = max(parts, -(-stats[0].st_size // most))
    return parts if parts >= 2 else 0


# --- one cutter of two single files ----------------------------------------------------------

GoldSearch = Callable[[int, int], "tuple[int, int, Any] | None"]
"""``(at, low)`` (``low``: the gold cut before) -> the first gold document start at or after
about ``at``: ``(start, where to seek the next one, key)`` (``key`` ``None``: no cut there)."""

SystemSearch = Callable[[Any, int, int], int]
"""``(key, after, near)`` -> the start of the system's document ``key`` after ``after`` (-1:
none); ``near``: where the cut before's rate predicts it (:func:`_find_near` looks there)."""

Searches = Callable[[Any, Any], "tuple[Frames, GoldSearch, SystemSearch] | None"]
"""A format's searches of two mapped files (``None``: not of the format) and the frames
``(start, end)`` of each side's documents."""
Frames = tuple[tuple[int, int], tuple[int, int]]


def cut_points(
    frames: Frames,
    wanted: Sequence[int],
    gold_next: GoldSearch,
    system_find: SystemSearch,
) -> list[tuple[int, int, Any]]:
    """The cuts ``(gold start, system start, key)`` of two files whose documents lie in
    ``frames``: for each target of ``wanted`` (increasing), the first gold document at or after
    it (``gold_next``) whose document the system has after the system cut before
    (``system_find``; else the next of 16 gold documents); each cut moves forward in both.

    >>> gold, system = b"a1 b1 c1 d1 ", b"a22 b22 d22 "
    >>> def gold_next(at, low):
    ...     start = gold.find(b" ", at - 1) + 1
    ...     return (start, start + 1, gold[start : start + 1]) if 0 < start < len(gold) else None
    >>> def system_find(key, after, near):
    ...     return system.find(b" " + key, after) + 1 or -1
    >>> cut_points(((0, 12), (0, 12)), [2, 5], gold_next, system_find)  # no c: d
    [(3, 4, b'b'), (9, 8, b'd')]
    """
    (gold_start, gold_end), (system_start, system_end) = frames
    cuts: list[tuple[int, int, Any]] = []
    last = before = (gold_start, system_start)
    for target in wanted:
        at = max(target, last[0] + 1)
        for _ in range(16):  # the next documents when the system has none of this one
            found = gold_next(at, last[0])
            if found is None:
                break
            start, at, key = found
            if key is None or start <= last[0]:
                continue
            # the same share of the system, at the rate of the chunk before (bytes per
            # document drift with the ids' length: the whole file's rate put trec's cuts
            # megabytes away, each searched for from there; the rate of every chunk before,
            # 100-500 KB away, 0.4 MB read per cut)
            near = (
                last[1] + (start - last[0]) * (last[1] - before[1]) // (last[0] - before[0])
                if last[0] > before[0]
                else system_start
                + (start - gold_start) * (system_end - system_start) // (gold_end - gold_start)
            )
            where = system_find(key, last[1], near)
            if where > last[1]:
                before, last = last, (start, where)
                cuts.append((start, where, key))
                break
    return cuts


def split_pair(
    gold: Path,
    system: Path,
    parts: int,
    searches: Searches,
    end: Callable[[Any, int], int] | None = None,
    alone: bool = False,
    least: int | None = None,
    workers: int | None = None,
) -> tuple[list[LineChunk], list[Any]] | None:
    """Two single files cut into at most ``parts`` chunks (more for a large gold file:
    :func:`_regular_pair`) at documents a format's ``searches`` find near even shares of the
    gold bytes (:func:`cut_points`), and each cut's key; with more than one of ``workers``
    (by default the workers of the run in force when more than one part is asked), near
    shares that shrink towards the end instead (:func:`targets`: the workers then finish
    together, where with even shares one of them scored the last chunk alone: NLP Sandbox's
    JSON arrays, 5,000 notes in 21 even chunks of 0.3 s each, the parent waited for the
    worker's last one).  A chunk ends
    at the next cut's document (``end(data, start)``: before it, the JSON array's comma).
    Only the bytes searched are read (``mmap``).  ``None``: not two distinct regular files of
    :data:`MIN_LINE_BYTES` (or ``least``) bytes or more together (``alone``: one file given
    twice, holding both sides), not of the format, or one chunk."""
    if workers is None:
        workers = current().workers if parts > 1 else 1
    parts = _regular_pair(gold, system, parts, alone, least)
    if not parts:
        return None
    with _mapped(gold, system) as (gold_data, system_data):
        found = searches(gold_data, system_data)
        if found is None:
            return None
        frames, gold_next, system_find = found
        (gold_start, gold_end), (system_start, system_end) = frames
        if workers > 1:
            size = gold_end - gold_start
            most = most_gold(size, system_end - system_start)
            wanted = [gold_start + at for at in targets(size, parts, workers, most)]
        else:
            wanted = [gold_start + (gold_end - gold_start) * n // parts for n in range(1, parts)]
        cuts = cut_points(frames, wanted, gold_next, system_find)
        if not cuts:
            return None
        at = [(g, s) for g, s, _ in cuts]
        ends = at if end is None else [(end(gold_data, g), end(system_data, s)) for g, s in at]
        begins = [(gold_start, system_start), *at]
        chunks = _between(str(gold), str(system), begins, [*ends, (gold_end, system_end)])
    return chunks, [key for _, _, key in cuts]
