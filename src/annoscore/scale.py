"""Scoring on every core or on a Dask cluster: a map over chunks of documents, then one reduce.

A task's counts are additive per document, so scoring a corpus is a *map* (read, align and
count one chunk of its documents) and a *reduce* (stack the chunks' count rows in document
order, pool their warnings).  There is one path: the chunk function is the task's own score
function, run on a chunk of the input, in this process (``jobs=1``), in worker processes
(``jobs=N``) or on Dask workers (:mod:`annoscore.distributed`); the reduce rebuilds the result
with :meth:`~annoscore.tasks.registry.Task.result` from the stacked rows, so everything derived
from the whole corpus (the corpus counts, the undefined-score and macro-average notes) is
computed once, from every document, as without chunks.

How a task's input is cut is declared by decorating its score function with :func:`chunked`:

- ``"folders"``: two folders of one file per document (brat) are cut by document (file stem):
  a worker runs the score function on the two folders themselves, their readers seeing only the
  chunk's files (:func:`~annoscore.formats.files.selected_files`), so each worker reads its own
  files and the paths in warnings and errors are the folders' own.  Two files, or folders with
  entries the reader would skip or warn about by folder, are one chunk.

- ``"lines"``: two single files of lines whose first field is the document id (CodiEsp TSV,
  trec qrels and run) are cut at document boundaries found in the bytes (:func:`split_lines`):
  the parent reads a few lines around each cut, never the corpus; a worker reads its own byte
  ranges (:func:`~annoscore.formats.files.cut_files`) with the task's own reader, which
  records the ids it found.  The cut is kept only when it is exact: no document is in two
  chunks (on either side), no chunk raised an error and no chunk warned (the warnings of these
  tasks are made from the whole corpus, so a warned input is scored in one run, as is an input
  whose lines of one document are not adjacent: their order is kept, never regrouped).  The
  first chunk that raised, warned or was read otherwise ends the map (:func:`unusable`): the
  chunks after it are not scored, so a warned input costs the chunks up to it plus one run.
  A file of more than :data:`LINE_CHUNK_BYTES` of gold is cut with ``jobs=1`` too: its chunks
  are scored one after the other in this process, so that memory holds one chunk and the
  count rows, not the corpus.

A task not decorated, or an input that cannot be cut, is one chunk: ``jobs`` does not change
what it computes, only where.

Gold and system may be fsspec URLs (:func:`score_given`; ``s3://``, ``gs://``, ``file://``,
``memory://``): the parent plans the cuts from a few lines read through fsspec
(:class:`RemoteBytes`) or from a listing, and each worker reads its own byte ranges or its own
files; an input read whole (a task not decorated, a cut not kept) is fetched in this process.

Workers are forked from this process (no pickling of the corpus, no import repeated in a
worker), started as soon as the chunks are planned, and send back count rows and warnings.  On
a terminal (not in a pipe or under ``CI``) a run longer than a couple of seconds shows a
progress line on standard error (documents done, rate, time left; :class:`Progress`).

Whether to cut is decided by the run in force (:func:`using`): ``annoscore ... --jobs N``,
``annoscore.score(..., jobs=N)`` and :func:`annoscore.distributed.score` set it.  ``jobs=1``
(the default) calls the score function on the whole input directly, except for a file of lines
larger than :data:`LINE_CHUNK_BYTES` (above).

>>> resolve_jobs(0) >= 1, resolve_jobs(3)
(True, 3)
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.options import TaskOptions
    from annoscore.result import CountMatrix, Result, ScoreWarning

F = TypeVar("F", bound=Callable[..., Any])

CHUNKS_PER_WORKER = 2
"""How many chunks of folders each worker gets (each chunk lists the folders again)."""

DERIVED_CODES = frozenset({"undefined", "average.left-out"})
"""Warnings a result derives from its whole matrix: dropped from the chunks, made again once."""


def resolve_jobs(jobs: int) -> int:
    """The number of worker processes of ``jobs`` (0: every core; at least 1)."""
    if jobs < 0:
        raise InputError(f"--jobs must be 0 (every core) or more, not {jobs}")
    if jobs:
        return jobs
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class Run:
    """Where chunks run: ``jobs`` local processes, or a Dask ``client`` (any object with
    ``map`` and ``gather`` as ``distributed.Client`` has them)."""

    jobs: int = 1
    client: Any = None
    lists: bool = False
    """Chunks keep the ranked lists of their worst queries (an HTML report is written:
    :func:`annoscore.metrics.worst_lists.for_chunk`)."""

    @property
    def serial(self) -> bool:
        return self.client is None and self.jobs == 1

    @property
    def workers(self) -> int:
        if self.client is not None:
            try:
                return max(1, len(self.client.scheduler_info().get("workers", {})))
            except Exception:  # a client that cannot say: assume two
                return 2
        return self.jobs

    def map(
        self,
        function: Callable[[Any], Any],
        items: Sequence[Any],
        until: Callable[[Any], bool] | None = None,
    ) -> list[Any]:
        """``function`` of each item, in the items' order (a progress line on a terminal);
        with ``until``, the results before the first one it holds true of (the items after it
        are not scored, or no longer waited for: a shorter list)."""
        progress = Progress(len(items))
        found: list[Any] = []

        def take(part: Any) -> bool:
            if until is not None and until(part):
                return False
            found.append(part)
            progress.done(part)
            return True

        try:
            if self.client is not None:
                futures = self.client.map(function, list(items), pure=False)
                for n, future in enumerate(futures):  # in order: each result as it comes
                    if not take(future.result()):
                        self.client.cancel(futures[n + 1 :])
                        break
            elif self.jobs == 1 or len(items) <= 1:
                for item in items:  # one at a time: one chunk held, then only its counts
                    if not take(function(item)):
                        break
            else:
                self._forked(function, items, take)
        finally:
            progress.close()
        return found

    def _forked(
        self, function: Callable[[Any], Any], items: Sequence[Any], take: Callable[[Any], bool]
    ) -> None:
        """:meth:`map` on forked workers: what this process imported is there already, the
        items are small (paths and byte ranges) and each worker reads its own chunk."""
        import multiprocessing

        global _WORK
        context = multiprocessing.get_context("fork")
        stop = context.Event()  # set: the workers skip the items not yet begun
        _WORK = (function, items, stop)  # inherited by the forked workers: nothing pickled
        try:
            pool = context.Pool(min(self.jobs, len(items)), initializer=_worker_started)
            try:
                taking = True
                for part in pool.imap(_work, range(len(items))):
                    if taking and not take(part):
                        # the chunks in flight end, the others are skipped; the pool is not
                        # ended while it hands out items (terminate() can then hang)
                        taking = False
                        stop.set()
                pool.close()  # every item done or skipped: the workers end on their own
            finally:
                pool.terminate()
                pool.join()
        finally:
            _WORK = None


_WORK: tuple[Callable[[Any], Any], Sequence[Any], Any] | None = None
"""The function and items of the running :meth:`Run.map`, and the event that tells its forked
workers to skip the items left, as they inherit them."""


def _worker_started() -> None:
    """In a new worker: the default signal handlers (the command line's, inherited, would
    report the pool's ending of a worker as an interruption)."""
    import signal

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


def _work(n: int) -> Any:
    """Item ``n`` of the running map, in a forked worker (``None`` once the map stopped)."""
    assert _WORK is not None
    function, items, stop = _WORK
    return None if stop.is_set() else function(items[n])


class Progress:
    """A progress line on standard error while chunks come back: documents done, rate and
    time left (by chunks), shown only on a terminal, not under ``CI``, and only once the run
    has taken :attr:`AFTER` seconds; erased at the end."""

    AFTER = 2.0

    def __init__(self, chunks: int) -> None:
        import sys
        import time

        self.chunks, self.finished, self.documents = chunks, 0, 0
        self.start = time.monotonic()
        self.shown = False
        stream = sys.stderr
        self.stream = stream
        self.on = (
            chunks > 1
            and stream is not None
            and stream.isatty()
            and not os.environ.get("CI")
            and os.environ.get("TERM") != "dumb"
        )

    def done(self, part: Any) -> None:
        """One more chunk back (its documents counted when it says how many)."""
        import time

        self.finished += 1
        self.documents += _documents_of(part)
        if not self.on:
            return
        elapsed = time.monotonic() - self.start
        if elapsed < self.AFTER:
            return
        self.stream.write("\r" + self.line(elapsed))
        self.stream.flush()
        self.shown = True

    def line(self, elapsed: float) -> str:
        """The progress line after ``elapsed`` seconds.

        >>> p = Progress(4)
        >>> p.finished, p.documents = 1, 2500
        >>> p.line(5.0)
        '[#####...............]  2,500 documents, 500/s, 15 s left '
        """
        width = 20
        full = width * self.finished // max(1, self.chunks)
        rate = self.documents / elapsed if elapsed > 0 else 0.0
        left = elapsed * (self.chunks - self.finished) / max(1, self.finished)
        bar = "#" * full + "." * (width - full)
        return f"[{bar}]  {self.documents:,} documents, {rate:,.0f}/s, {left:,.0f} s left "

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 78 + "\r")
            self.stream.flush()


def _documents_of(part: Any) -> int:
    result = getattr(part, "result", None)
    matrix = getattr(result, "matrix", None)
    return len(matrix.documents) if matrix is not None else 0


_SERIAL = Run()
_RUN: ContextVar[Run] = ContextVar("annoscore_run", default=_SERIAL)


@contextlib.contextmanager
def using(jobs: int = 1, client: Any = None, lists: bool = False) -> Iterator[Run]:
    """Score with ``jobs`` processes (0: every core) or on a Dask ``client`` inside the block
    (``lists``: :attr:`Run.lists`)."""
    run = Run(resolve_jobs(jobs), client, lists)
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)


@contextlib.contextmanager
def scaled(jobs: int = 1, dask: str | None = None, lists: bool = False) -> Iterator[Run]:
    """:func:`using` ``jobs`` processes, or a Dask client of the scheduler at ``dask``
    (``"local"``: a :class:`distributed.LocalCluster` started and stopped here), imported only
    then (:mod:`annoscore.distributed`)."""
    if dask is None:
        with using(jobs, lists=lists) as run:
            yield run
        return
    from annoscore.distributed import connected

    with connected(dask) as client, using(1, client, lists) as run:
        yield run


def current() -> Run:
    """The run in force (:func:`using`)."""
    return _RUN.get()


# --- cutting the input -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FolderChunk:
    """Some documents of two folders: the file names of each side to link."""

    gold: str
    system: str
    gold_names: tuple[str, ...]
    system_names: tuple[str, ...]


def _listing(folder: Path | str) -> dict[str, list[str]] | None:
    """The regular files of ``folder`` by stem, or ``None`` when cutting it could change what
    its reader reports (any entry that is not a plain regular file).  A URL is listed through
    fsspec (:func:`_url_listing`)."""
    from annoscore.formats.files import url_of

    by_stem: dict[str, list[str]] = {}
    url = url_of(folder)
    if url is not None:
        return _url_listing(url)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        try:
            if not entry.is_file():  # a folder, a special file, a link leading nowhere
                return None
        except OSError:
            return None
        stem = os.path.splitext(entry.name)[0]
        by_stem.setdefault(stem, []).append(entry.name)
    return by_stem


def _url_listing(url: str) -> dict[str, list[str]] | None:
    """:func:`_listing` of the folder at ``url``, listed through fsspec."""
    from annoscore.formats.files import url_fs

    fs, where = url_fs(url)
    by_stem: dict[str, list[str]] = {}
    try:
        entries = fs.ls(where, detail=True)
    except OSError:
        return None
    for entry in entries:
        if entry.get("type") != "file":
            return None
        name = str(entry["name"]).rstrip("/").rpartition("/")[2]
        by_stem.setdefault(os.path.splitext(name)[0], []).append(name)
    return by_stem


def _is_folder(path: Path | str) -> bool:
    """Whether ``path`` (a URL or a URL's stand-in: through fsspec) is a folder."""
    from annoscore.formats.files import url_fs, url_of

    url = url_of(path)
    if url is None:
        return Path(path).is_dir()
    fs, where = url_fs(url)
    try:
        return bool(fs.isdir(where))
    except OSError:
        return False


def _where(path: Path | str) -> str:
    """The URL ``path`` stands for, or ``path`` itself (what a worker is sent)."""
    from annoscore.formats.files import url_of

    return url_of(path) or str(path)


def split_folders(gold: Path | str, system: Path | str, parts: int) -> list[FolderChunk] | None:
    """Two folders cut into at most ``parts`` chunks of whole documents (a document is a file
    stem, every file of that stem on both sides goes with it), in the sorted order of the
    stems; ``None`` when they are not two plain folders or hold fewer than two documents.
    A URL (a string) is listed through fsspec."""
    if parts < 2 or not (_is_folder(gold) and _is_folder(system)):
        return None
    gold_files, system_files = _listing(gold), _listing(system)
    if not gold_files or not system_files:
        return None
    stems = sorted(gold_files.keys() | system_files.keys())
    if len(stems) < 2:
        return None
    size = -(-len(stems) // min(parts, len(stems)))
    groups: list[list[str]] = [[]]
    sides = [False, False]
    for stem in stems:
        group = groups[-1]
        group.append(stem)
        sides[0] = sides[0] or _has_ann(gold_files.get(stem, ()))
        sides[1] = sides[1] or _has_ann(system_files.get(stem, ()))
        if len(group) >= size and all(sides):
            groups.append([])
            sides = [False, False]
    if not groups[-1]:
        groups.pop()
    elif len(groups) > 1:  # a side without a file would be read as an empty folder
        groups[-2].extend(groups.pop())
    if len(groups) < 2:
        return None
    chunks = [
        FolderChunk(
            _where(gold),
            _where(system),
            tuple(name for s in group for name in gold_files.get(s, ())),
            tuple(name for s in group for name in system_files.get(s, ())),
        )
        for group in groups
    ]
    return chunks


def _has_ann(names: Sequence[str]) -> bool:
    return any(n.endswith(".ann") for n in names)


@dataclass(frozen=True, slots=True)
class Seen:
    """The distinct document ids a reader found in a chunk of one side, as bytes: the first
    and the last, whether they came in strictly increasing order, how many, and all of them
    joined by newlines (no id of a file of lines holds one; read only when the order does not
    settle the question, as unpickling a set of a million ids costs more than sending bytes).

    >>> Seen.of(["b", "a", "b"])
    Seen(first=b'b', last=b'a', ordered=False, count=2, joined=b'b\\na')
    >>> sorted(Seen.of([b"x", b"y"]).ids()), Seen.of([]).ids()
    ([b'x', b'y'], frozenset())
    """

    first: bytes
    last: bytes
    ordered: bool
    count: int
    joined: bytes

    @classmethod
    def of(cls, ids: Sequence[object]) -> Seen:
        keys = [
            k if isinstance(k, bytes) else str(k).encode("utf-8", "surrogatepass")
            for k in dict.fromkeys(ids)
        ]
        ordered = all(a < b for a, b in itertools.pairwise(keys))
        first, last = (keys[0], keys[-1]) if keys else (b"", b"")
        return cls(first, last, ordered, len(keys), b"\n".join(keys))

    def ids(self) -> frozenset[bytes]:
        return frozenset(self.joined.split(b"\n")) if self.count else frozenset()


@dataclass(frozen=True, slots=True)
class Part:
    """A chunk's result, and its warnings each with its side (:func:`_sided`)."""

    result: Result | None
    warnings: tuple[tuple[int, ScoreWarning], ...]
    seen: tuple[Seen, Seen] | None = None
    """The document ids the readers found in a chunk of lines: (gold's, system's)."""


UNKNOWN_SIDE = -1
"""The side of an example naming a file that both folders of a chunk hold (``a.ann:4``)."""


def _side(example: str, chunk: FolderChunk) -> int:
    """0 (gold) or 1 (system) when ``example`` names a file of one side only (its path, or its
    name before a ``:``), :data:`UNKNOWN_SIDE` when the name is on both sides, 2 when it names
    no file of the chunk."""
    prefixes = sorted(
        ((os.path.join(folder, ""), side) for side, folder in ((0, chunk.gold), (1, chunk.system))),
        key=lambda item: -len(item[0]),  # the longer first: one folder may hold the other
    )
    for prefix, side in prefixes:
        if example.startswith(prefix):
            return side
    name = example.partition(":")[0]
    in_gold, in_system = name in chunk.gold_names, name in chunk.system_names
    if in_gold and in_system:
        return UNKNOWN_SIDE
    return 0 if in_gold else 1 if in_system else 2


def _sided(warning: ScoreWarning, chunk: FolderChunk) -> list[tuple[int, ScoreWarning]]:
    """``warning`` cut by the side its examples name (a reader quotes the files it tolerated):
    (0, gold examples), (1, system examples), (2, examples naming no file), (UNKNOWN_SIDE, ...);
    the count goes with the first part (counts only add)."""
    examples: dict[int, list[str]] = {}
    for example in warning.examples:
        examples.setdefault(_side(example, chunk), []).append(example)
    parts = sorted(examples.items())
    if len(parts) <= 1:
        return [(parts[0][0] if parts else 2, warning)]
    return [
        (side, replace(warning, examples=tuple(found), count=warning.count if n == 0 else 0))
        for n, (side, found) in enumerate(parts)
    ]


def score_folder_chunk(task: str, chunk: FolderChunk, options: TaskOptions) -> Part:
    """The chunk function of ``"folders"`` tasks: ``task``'s score function (undecorated) on
    the two folders, their readers seeing only the chunk's files
    (:func:`~annoscore.formats.files.selected_files`), so paths in warnings and errors are the
    folders' own.  Runs in a worker (or in this process)."""
    from annoscore.formats.files import (
        is_url,
        local_copy,
        named_error,
        named_warning,
        selected_files,
    )
    from annoscore.tasks.registry import get

    function = get(task).score_function()
    function = getattr(function, "__wrapped__", function)
    same = chunk.gold == chunk.system or (
        not is_url(chunk.gold) and os.path.abspath(chunk.gold) == os.path.abspath(chunk.system)
    )
    names: dict[str, str] = {}
    token = _RUN.set(_SERIAL)
    try:
        with contextlib.ExitStack() as stack:
            gold, system = chunk.gold, chunk.system
            for side, (url, wanted) in enumerate(
                [(chunk.gold, chunk.gold_names), (chunk.system, chunk.system_names)][: 2 - same]
            ):
                if is_url(url):  # the chunk's own files, read through fsspec
                    wanted = (*chunk.gold_names, *chunk.system_names) if same else wanted
                    local, named = stack.enter_context(local_copy(url, wanted))
                    names.update(named)
                    gold, system = (str(local), system) if side == 0 else (gold, str(local))
            system = gold if same else system
            selection = {gold: chunk.gold_names, system: chunk.system_names}
            if same:
                selection = {gold: (*chunk.gold_names, *chunk.system_names)}
            with selected_files(selection):
                result: Result = function(Path(gold), Path(system), options)
    except InputError as error:
        raise named_error(error, names) from None
    finally:
        _RUN.reset(token)
    return Part(
        _sent(result),
        tuple(item for w in result.warnings for item in _sided(named_warning(w, names), chunk)),
    )


def _sent(result: Result, carry: bool = True, lists: bool = False) -> Result:
    """``result`` as a chunk sends it: no warnings (sent apart), and of what it cached only
    every document's scores (computed in the worker, in parallel: :func:`_carry_documents`),
    unless ``carry`` is false (then nothing: a large corpus's parts would hold about five
    times the memory of their count rows; the whole's scores are computed when asked); a
    ranked task's lists only for its worst queries, and only when ``lists`` (a report is
    written: :func:`annoscore.metrics.worst_lists.for_chunk`)."""
    from annoscore.metrics.worst_lists import for_chunk

    kept = {k: v for k, v in result._cache.items() if k == "documents" and carry}
    return for_chunk(replace(result, warnings=(), _cache=kept), lists)


def _carry_documents(result: Result, parts: Sequence[Result], order: Sequence[int] | None) -> None:
    """Give ``result`` (the chunks' rows stacked, in ``order`` when given) the per-document
    scores its chunks computed, when every chunk computed them on the same columns as the
    stacked matrix (then each row and each score is the same: the same counts, the same
    scorer); otherwise they are computed again when asked."""
    names, integer = result.matrix.names, result.matrix.integer
    if not parts or any(
        "documents" not in r._cache or r.matrix.names != names or r.matrix.integer != integer
        for r in parts
    ):
        return
    units = [unit for r in parts for unit in r._cache["documents"].items()]
    if order is not None:
        units = [units[i] for i in order]
    if len(units) != len(result.matrix.documents) or any(
        a != b for a, (b, _) in zip(result.matrix.documents, units, strict=True)
    ):
        return
    result._cache["documents"] = dict(units)


# --- the reduce -------------------------------------------------------------------------------


def stack(matrices: Sequence[CountMatrix]) -> CountMatrix:
    """The rows of ``matrices`` one after the other; columns in first-seen order (a chunk
    without a column reads 0 there, as :meth:`CountMatrix.of` reads a missing key)."""
    import numpy as np

    from annoscore.result import CountMatrix

    column: dict[str, int] = {}
    whole: dict[str, bool] = {}
    for m in matrices:
        for name, integer in zip(m.names, m.integer, strict=True):
            column.setdefault(name, len(column))
            whole[name] = whole.get(name, True) and integer
    rows = sum(len(m.documents) for m in matrices)
    values = np.zeros((rows, len(column)), dtype=np.float64)
    at = 0
    for m in matrices:
        values[at : at + len(m.documents), [column[n] for n in m.names]] = m.values
        at += len(m.documents)
    documents = tuple(itertools.chain.from_iterable(m.documents for m in matrices))
    return CountMatrix(documents, tuple(column), values, tuple(whole[n] for n in column))


def merge_in_order(
    lists: Sequence[Sequence[tuple[int, ScoreWarning]]], order: Sequence[str] = ("*",)
) -> list[ScoreWarning]:
    """The chunks' warnings merged by code and message as one run over every document merges
    them.  A task emits its warnings in groups (``order``: codes, or code prefixes ending in
    ``.``, ``"*"`` for every other code), each group over every document before the next; a
    reader reports the gold side before the system side; inside that, in document order.  Each
    warning comes with its side (``0`` gold, ``1`` system, ``2`` none: :func:`_sided`), so a
    merged warning stands at (its group, side, first chunk and place), and its examples are
    pooled in that order.

    >>> from annoscore.result import ScoreWarning as W
    >>> a, b, c = W("late", "{count} a"), W("early", "{count} b"), W("x", "{count} c")
    >>> [w.code for w in merge_in_order([[(2, c), (2, a)], [(2, b), (2, a)]], ("early", "*",
    ...                                                                        "late"))]
    ['early', 'x', 'late']
    """
    from annoscore.result import merge_warnings

    def group(code: str) -> int:
        for n, name in enumerate(order):
            if code == name or (name.endswith(".") and code.startswith(name)):
                return n
        return order.index("*") if "*" in order else len(order)

    items = sorted(
        ((group(w.code), side, c, n), w)
        for c, chunk in enumerate(lists)
        for n, (side, w) in enumerate(chunk)
    )
    return list(merge_warnings(w for _, w in items))


def combine(
    task: str, options: TaskOptions, parts: Sequence[Part], order: Sequence[str] = ("*",)
) -> Result | None:
    """One result of the chunks' results: rows stacked in order, warnings pooled, then what
    the whole corpus derives (corpus counts, scores, undefined and macro-average notes) made
    once by :meth:`~annoscore.tasks.registry.Task.result`; the first chunk's view, headline,
    details and extra fields kept (a task whose details are not additive is not cut).

    ``None`` when the order of the warnings in one run cannot be known: an example names a file
    both sides hold (``a.ann:4``: one run reports the gold side's reading before the system
    side's); the caller then scores the input in one run (rare: tolerated input)."""
    from annoscore.tasks.registry import get

    first = parts[0].result
    assert first is not None
    if any(side == UNKNOWN_SIDE for part in parts for side, _ in part.warnings):
        return None  # where one run quotes it among the others cannot be known: one run
    warnings = merge_in_order(
        [[(side, w) for side, w in p.warnings if w.code not in DERIVED_CODES] for p in parts],
        order,
    )
    result = get(task).result(
        options,
        stack([p.result.matrix for p in parts if p.result is not None]),
        warnings=warnings,
        details=first.details,
        extra=first.extra,
        undefined=first.undefined,
    )
    result = replace(result, headline=first.headline, signature=first.signature)
    _carry_documents(result, [p.result for p in parts if p.result is not None], None)
    view = first.view
    return result.shown(documents=view.documents, types=view.types, averages=view.averages)


Details = Callable[[Sequence[Any], Sequence[int]], Any]
"""How a task's details of the chunks make the details of the whole, given the order of the
rows (the stacked rows' positions; ``None``: the first chunk's); raises :class:`NotExact` when
they cannot."""


class NotExact(Exception):
    """The chunks' results cannot make the result of one run exactly: score in one run."""


def chunked(
    task: str,
    how: str = "folders",
    warnings: Sequence[str] = ("*",),
    *,
    separators: bytes = b"\t",
    order: str = "gold-first",
    details: Details | None = None,
    lines_when: Callable[[Path, Path, Any], bytes | None] | None = None,
) -> Callable[[F], F]:
    """Declare how ``task``'s score function ``(gold, system, options) -> Result`` is cut (see
    the module doc): ``"folders"``, with the order of its warnings' groups
    (:func:`merge_in_order`); or ``"lines"``, with the bytes that end a line's first field
    (``separators``), the order of the documents of one run (``order``: ``"gold-first"``,
    gold's first-seen order then the others', or ``"sorted"``, by the ids' bytes) and how
    the chunks' ``details`` make the whole's.  A ``"folders"`` task may cut two files as
    ``"lines"`` too: ``lines_when(gold, system, options)`` gives the separators when they are
    files of lines (``None`` otherwise).  With a run of more than one job in force, it
    scores the chunks of its input by the same function and combines them; otherwise, and
    when the input cannot be cut, it is called as it is."""
    if how not in ("folders", "lines"):
        raise ValueError(f"unknown way to cut an input: {how!r}")
    if order not in ("gold-first", "sorted"):
        raise ValueError(f"unknown order of documents: {order!r}")

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def score(gold: Path, system: Path, options: Any = None) -> Result:
            run = _RUN.get()
            if options is None:
                options = get_options(task)
            cuts_lines = how == "lines" or lines_when is not None
            if run.serial and not cuts_lines:
                return _one_run(function, gold, system, options)
            combined: Result | None = None
            if how == "folders" and not run.serial and _is_folder(gold) and _is_folder(system):
                # each worker lists the folders and takes its share (the parent lists nothing:
                # the listing is done in parallel)
                shares = run.workers * CHUNKS_PER_WORKER
                where = _where(gold), _where(system)
                plan = (os.urandom(8),) if where != (str(gold), str(system)) else ()
                parts = run.map(
                    functools.partial(_folder_share, task, options, *where),
                    [(k, shares, *plan) for k in range(shares)],
                )
                if all(p.result is not None for p in parts if p.seen is None):
                    kept = [p for p in parts if p.result is not None]
                    combined = combine(task, options, kept, warnings) if kept else None
            elif cuts_lines:
                cut_by = separators if lines_when is None else lines_when(gold, system, options)
                lines = None
                if cut_by is not None:
                    # one process: chunks of LINE_CHUNK_BYTES scored one after the other, so
                    # that no more than one chunk is held at a time
                    parts_wanted = 1 if run.serial else run.workers * LINE_CHUNKS_PER_WORKER
                    lines = split_lines(Path(gold), Path(system), parts_wanted, cut_by)
                if lines is not None:
                    combined = score_lines(task, options, run, lines, order, details)
            if combined is None:  # not cut, or not exactly: one run
                return _one_run(function, gold, system, options)
            return combined

        score.cuts_urls = True  # type: ignore[attr-defined]
        return score  # type: ignore[return-value]

    return decorate


def _one_run(function: Callable[..., Result], gold: Path, system: Path, options: Any) -> Result:
    """``function`` on the whole input; a URL's stand-in filled first, through fsspec, and named
    in the warnings and errors (:func:`~annoscore.formats.files.fetched`)."""
    from annoscore.formats.files import fetched, named_result, url_of

    if url_of(gold) is None and url_of(system) is None:
        return function(gold, system, options)
    with fetched(gold, system):
        return named_result(function(gold, system, options))


def score_given(
    task: str, gold: str | PathLike[str], system: str | PathLike[str], **options: Any
) -> Result:
    """``task`` run on ``gold`` and ``system`` (:meth:`~annoscore.tasks.registry.Task.run`),
    either of them an fsspec URL (``s3://``, ``gs://``, ``file://``, ``memory://``): given to
    the task as a stand-in path (:func:`~annoscore.formats.files.given`), read through fsspec
    in chunks by the workers when the task cuts its input (:func:`chunked`), otherwise whole
    in this process; the warnings and errors name the URL.  ``annoscore.score`` and
    :func:`annoscore.distributed.score` call it."""
    from annoscore.formats.files import fetched, forget, given, is_url, named_error, named_result
    from annoscore.tasks.registry import get

    chosen = get(task)
    if not (is_url(gold) or is_url(system)):
        return chosen.run(gold, system, **options)
    gold, system = given(gold), given(system)
    cuts = getattr(chosen.score_function(), "cuts_urls", False)
    try:
        with fetched(*(() if cuts else (gold, system))):
            return named_result(chosen.run(gold, system, **options))
    except InputError as error:
        raise named_error(error) from None
    finally:
        forget(gold, system)


def get_options(task: str) -> TaskOptions:
    from annoscore.tasks.registry import get

    return get(task).options_class()()


_PLANS: dict[tuple[object, ...], list[FolderChunk] | None] = {}
"""The folder plans a worker made (a worker scores several shares of one plan)."""


def _folder_share(
    task: str, options: TaskOptions, gold: str, system: str, share: tuple[Any, ...]
) -> Part:
    """Share ``k`` of ``n`` of two folders (:func:`split_folders`, planned once in each worker):
    its part; a part without a result when the folders cannot be cut (then every share says
    so), and an empty part (``seen`` set) when the plan has fewer chunks than shares."""
    k, n = share[:2]
    from annoscore.formats.files import is_url

    try:
        key: tuple[object, ...] = (
            (gold, system, n, *share[2:])  # URLs: planned once in each worker for this map
            if is_url(gold) or is_url(system)
            else (gold, system, n, os.stat(gold).st_mtime_ns, os.stat(system).st_mtime_ns)
        )
    except OSError:
        return Part(None, ())
    if key not in _PLANS:
        _PLANS.clear()
        sides = [p if is_url(p) else Path(p) for p in (gold, system)]
        _PLANS[key] = split_folders(sides[0], sides[1], n)
    plan = _PLANS[key]
    if plan is None:
        return Part(None, ())
    if k >= len(plan):
        return Part(None, (), (Seen.of([]), Seen.of([])))  # nothing to score in this share
    return score_folder_chunk(task, plan[k], options)


# --- single files of lines -------------------------------------------------------------------

LINE_CHUNKS_PER_WORKER = 2
"""Chunks of a single file per worker (each chunk reads the task's other files again)."""

LINE_CHUNK_BYTES = 4 << 20
"""At most about this many bytes of the gold file per chunk of lines (more chunks than
:data:`LINE_CHUNKS_PER_WORKER` per worker when the file is larger): with one chunk in flight per
worker, memory stays bounded whatever the size of the corpus."""

MIN_LINE_BYTES = 16 << 20
"""Files smaller than this (gold and system together) are one chunk: forking and reading the
task's other files in each chunk cost more than they save (about 10^5 CodiEsp documents)."""


@dataclass(frozen=True, slots=True)
class LineChunk:
    """Byte ranges ``[start, stop)`` of two files, whole lines: some documents of each."""

    gold: str
    system: str
    gold_range: tuple[int, int]
    system_range: tuple[int, int]


def _key(data: Any, start: int, separators: bytes) -> bytes:
    """The first field of the line at ``start`` of ``data`` (up to a separator or its end)."""
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    for separator in separators:
        found = data.find(bytes((separator,)), start, end)
        if found >= 0:
            end = found
    return bytes(data[start:end])


def _next_run(data: Any, start: int, separators: bytes) -> tuple[int, bytes] | None:
    """The start and key of the first line after ``start`` whose key is not the key of the
    line at ``start`` (the next document's first line when a document's lines are adjacent);
    ``None`` at the end."""
    key = _key(data, start, separators)
    while True:
        newline = data.find(b"\n", start)
        if newline < 0 or newline + 1 >= len(data):
            return None
        start = newline + 1
        other = _key(data, start, separators)
        if other != key and other.strip():  # a blank line belongs to the document before
            return start, other


def _find_line(data: Any, key: bytes, separators: bytes, after: int) -> int:
    """The start of the first line at or after ``after`` whose first field is ``key``
    (-1: none).  One search for the key at a line's start, each hit checked for a separator
    after it: a separator the file does not use costs nothing (searching for each separator
    apart scanned to the end of the file for the ones never found).

    >>> data = b"q1 a\\nq10 b\\nq1\\tc\\nq1 d\\n"
    >>> _find_line(data, b"q1", b" \\t", 0), _find_line(data, b"q1", b" \\t", 1)
    (0, 11)
    >>> _find_line(data, b"q10", b"\\t", 0), _find_line(data, b"q2", b" ", 0)
    (-1, -1)
    """
    ends = tuple(bytes((s,)) for s in separators)  # what a slice of one byte equals
    if after == 0 and data[: len(key)] == key and data[len(key) : len(key) + 1] in ends:
        return 0
    needle = b"\n" + key
    at: int = max(0, after - 1)
    while True:
        at = int(data.find(needle, at))
        if at < 0:
            return -1
        end = at + len(needle)
        if data[end : end + 1] in ends:
            return at + 1
        at += 1


def split_lines(
    gold: Path, system: Path, parts: int, separators: bytes = b"\t"
) -> list[LineChunk] | None:
    """Two files of lines (a document's id in the first field) cut into at most ``parts``
    chunks (more when the gold file holds more than :data:`LINE_CHUNK_BYTES` per chunk) at
    document boundaries found in the bytes: each gold cut is the first line of a
    document near an even share of the bytes (after every line of the document before, when
    they are adjacent), each system cut the first line of that document in the system file
    (the next gold document when the system has none; a cut that would not move forward in
    both is left out).  Only the lines around the cuts are read (``mmap``).  ``None`` when
    the files are not two distinct regular files of :data:`MIN_LINE_BYTES` or more together,
    or give one chunk.  Whether the cut is exact is checked after the chunks are read
    (:func:`combine_lines`), by the ids their readers found.  A URL (or its stand-in) is read
    through fsspec, the same few lines (:class:`RemoteBytes`)."""
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
    parts = max(parts, -(-stats[0].st_size // LINE_CHUNK_BYTES))
    if parts < 2:
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
        cuts: list[tuple[int, int]] = []
        last = (0, 0)
        for n in range(1, parts):
            at = max(size * n // parts, last[0] + 1)
            newline = gold_data.find(b"\n", at - 1)
            if newline < 0 or newline + 1 >= size:
                break
            found = _next_run(gold_data, newline + 1, separators)
            for _ in range(16):  # the next documents when the system has none of this one
                if found is None:
                    break
                start, key = found
                where = _find_line(system_data, key, separators, last[1])
                if where > last[1]:
                    last = (start, where)
                    cuts.append(last)
                    break
                found = _next_run(gold_data, start, separators)
        if not cuts:
            return None
        ends = [*cuts, (size, len(system_data))]
        begins = [(0, 0), *cuts]
        return [
            LineChunk(*urls, (b[0], e[0]), (b[1], e[1])) for b, e in zip(begins, ends, strict=True)
        ]


def _url_size(url: str) -> os.stat_result | None:
    """A stand-in for the ``os.stat`` of the file at ``url`` (its size; a regular file or a
    folder), ``None`` when it cannot be read (the one run then says why)."""
    import stat

    from annoscore.formats.files import url_fs

    fs, where = url_fs(url)
    try:
        info = fs.info(where)
    except (OSError, ValueError):
        return None
    kind = stat.S_IFREG if info.get("type") == "file" else stat.S_IFDIR
    return os.stat_result((kind, 0, 0, 0, 0, 0, int(info.get("size") or 0), 0, 0, 0))


class RemoteBytes:
    """A file read through fsspec as :func:`split_lines` reads a mapped file (its length,
    slices and ``find``): only the bytes searched are read, in windows that grow from 4 KiB to
    1 MiB, none of them kept.

    >>> import io
    >>> data = RemoteBytes(io.BytesIO(b"a\\tx\\nb\\ty\\n"), 8)
    >>> len(data), data.find(b"\\n", 4), data[2:3], data.find(b"z")
    (8, 7, b'x', -1)
    """

    def __init__(self, handle: Any, size: int) -> None:
        self.handle, self.size = handle, size

    @classmethod
    @contextlib.contextmanager
    def opened(cls, url: str, size: int) -> Iterator[RemoteBytes]:
        from annoscore.formats.files import reading, url_fs

        fs, where = url_fs(url)
        with reading(url), fs.open(where, "rb") as handle:
            yield cls(handle, size)

    def __len__(self) -> int:
        return self.size

    def _read(self, start: int, stop: int) -> bytes:
        if stop <= start:
            return b""
        self.handle.seek(start)
        return bytes(self.handle.read(stop - start))

    def __getitem__(self, index: slice) -> bytes:
        start, stop, _ = index.indices(self.size)
        return self._read(start, stop)

    def find(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        end = self.size if end is None else min(end, self.size)
        at, window = max(0, start), 1 << 12
        while at < end:
            stop = min(end, at + window)
            found = self._read(at, min(end, stop + len(sub) - 1)).find(sub)
            if found >= 0:
                return at + found
            at, window = stop, min(window * 2, 1 << 20)
        return -1


def score_line_chunk(
    task: str, chunk: LineChunk, options: TaskOptions, carry: bool = True, lists: bool = False
) -> Part:
    """The chunk function of ``"lines"`` tasks: ``task``'s score function (undecorated) on the
    two files, their readers reading only the chunk's ranges
    (:func:`~annoscore.formats.files.cut_files`) and recording the ids found there.  An error
    in a chunk, or a reader's word that the chunk may read otherwise than the whole file
    (:func:`~annoscore.formats.files.not_exact`), gives a part without a result (the input is
    then scored in one run, which reports the error as one run does).  Runs in a worker (or
    in this process)."""
    from annoscore.formats.files import Cut, cut_files, is_url, stand_in
    from annoscore.tasks.registry import get

    function = get(task).score_function()
    function = getattr(function, "__wrapped__", function)
    gold, system = Cut(*chunk.gold_range), Cut(*chunk.system_range)
    # a URL: its stand-in is read, its range through fsspec (Cut.url)
    gold.url, system.url = (u if is_url(u) else None for u in (chunk.gold, chunk.system))
    paths = tuple(
        stand_in(p, register=False) if is_url(p) else Path(p) for p in (chunk.gold, chunk.system)
    )
    token = _RUN.set(_SERIAL)
    try:
        with cut_files({str(paths[0]): gold, str(paths[1]): system}):
            result: Result = function(*paths, options)
    except InputError:
        return Part(None, ())
    finally:
        _RUN.reset(token)
    if not (gold.exact and system.exact):  # a reader says the chunk reads otherwise
        return Part(None, ())
    return Part(
        _sent(result, carry, lists),
        tuple((2, w) for w in result.warnings),
        (Seen.of(gold.seen), Seen.of(system.seen)),
    )


def _line_part(task: str, options: TaskOptions, lists: bool, carry: bool, chunk: LineChunk) -> Part:
    return score_line_chunk(task, chunk, options, carry, lists)


CARRY_CHUNKS = 16
"""Chunks of lines send their documents' scores when the input has at most this many chunks
(:func:`_sent`): beyond, the memory of the parts would grow with the corpus five times faster
than its count rows."""


def score_lines(
    task: str,
    options: TaskOptions,
    run: Run,
    lines: Sequence[LineChunk],
    order: str = "gold-first",
    details: Details | None = None,
) -> Result | None:
    """The result of the chunks of lines ``lines`` scored by ``run`` (:func:`combine_lines`),
    or ``None`` when the cut is not exact or a chunk is :func:`unusable` (then the chunks after
    it are not scored: the input is scored in one run)."""
    carry = len(lines) <= CARRY_CHUNKS
    score = functools.partial(_line_part, task, options, run.lists, carry)
    parts = run.map(score, lines, until=unusable)
    if len(parts) < len(lines):
        return None
    return combine_lines(task, options, parts, order, details)


def unusable(part: Part) -> bool:
    """Whether a chunk of lines cannot be part of a cut result: it raised an error, its reader
    said it reads otherwise than the whole file, or it warned (these tasks' warnings are made
    from the whole corpus).  The first such chunk ends the map: the input is then scored in
    one run, and the chunks after it are not scored for nothing."""
    return part.result is None or any(w.code not in DERIVED_CODES for _, w in part.warnings)


def exact_cut(parts: Sequence[Part]) -> bool:
    """Whether the chunks of lines hold every document whole: no document in two chunks of one
    side, none in one chunk of gold and another of the system; and every chunk read.  When
    every chunk's ids came in increasing order, their first and last ids may settle it (chunk
    n's system ids lie strictly between the gold ids of chunks n-1 and n+1); otherwise the sets
    of ids are compared.

    >>> r = object()
    >>> def part(gold, system): return Part(r, (), (Seen.of(gold), Seen.of(system)))
    >>> exact_cut([part("ab", "az"), part("cd", "c")])
    True
    >>> exact_cut([part("ba", "a"), part("cd", "b")])
    False
    >>> exact_cut([part("ab", "a"), part("cd", "b")])
    False
    """
    seen = [part.seen for part in parts]
    if any(part.result is None for part in parts) or any(s is None for s in seen):
        return False
    sides = [(s[0], s[1]) for s in seen if s is not None]
    if all(g.ordered and p.ordered for g, p in sides) and _ordered_exact(sides):
        return True
    gold = [g.ids() for g, _ in sides]
    system = [p.ids() for _, p in sides]
    every_gold = frozenset().union(*gold)
    every_system = frozenset().union(*system)
    if len(every_gold) != sum(map(len, gold)) or len(every_system) != sum(map(len, system)):
        return False  # a document in two chunks of one side
    # a system document of chunk n that gold holds is in gold's chunk n
    return all(s.difference(g).isdisjoint(every_gold) for g, s in zip(gold, system, strict=True))


def _ordered_exact(sides: Sequence[tuple[Seen, Seen]]) -> bool:
    """Whether the first and last ids of chunks whose ids each came in increasing order show
    the cut exact (``False``: they do not show it; the sets may)."""
    for side in (0, 1):
        found = [s[side] for s in sides if s[side].count]
        if any(a.last >= b.first for a, b in itertools.pairwise(found)):
            return False
    for n, (_, system) in enumerate(sides):
        if not system.count:
            continue
        before = [g for g, _ in sides[:n] if g.count]
        after = [g for g, _ in sides[n + 1 :] if g.count]
        if (before and system.first <= before[-1].last) or (
            after and system.last >= after[0].first
        ):
            return False
    return True


def combine_lines(
    task: str,
    options: TaskOptions,
    parts: Sequence[Part],
    order: str = "gold-first",
    details: Details | None = None,
) -> Result | None:
    """One result of the chunks of lines (:func:`combine`), its rows in the order of one run
    (``order``); ``None`` when the cut was not exact (:func:`exact_cut`) or a chunk warned
    (these tasks' warnings are made from the whole corpus)."""
    import numpy as np

    from annoscore.result import CountMatrix
    from annoscore.tasks.registry import get

    if not exact_cut(parts):
        return None
    if any(w.code not in DERIVED_CODES for part in parts for _, w in part.warnings):
        return None
    results = [part.result for part in parts if part.result is not None]
    first = results[0]
    whole = stack([r.matrix for r in results])
    names = whole.documents
    permutation: list[int] | range
    if order == "sorted":
        permutation = sorted(range(len(names)), key=lambda i: names[i].encode("utf-8", "replace"))
    elif all(
        part.seen is not None and len(result.matrix.documents) == part.seen[0].count
        for part, result in zip(parts, results, strict=True)
    ):  # every row a gold document: the chunks' rows are in gold order already
        permutation = range(len(names))
    else:
        gold_rows: list[int] = []
        other_rows: list[int] = []
        at = 0
        for part, result in zip(parts, results, strict=True):
            golden = part.seen[0].ids() if part.seen is not None else frozenset()
            for k, name in enumerate(result.matrix.documents):
                key = name.encode("utf-8", "surrogatepass")
                (gold_rows if key in golden else other_rows).append(at + k)
            at += len(result.matrix.documents)
        permutation = gold_rows + other_rows
    if not isinstance(permutation, range) and permutation != list(range(len(names))):
        index = np.asarray(permutation, dtype=np.int64)
        whole = CountMatrix(
            tuple(names[i] for i in permutation), whole.names, whole.values[index], whole.integer
        )
    try:
        merged = (
            first.details if details is None else details([r.details for r in results], permutation)
        )
    except NotExact:
        return None
    from annoscore.metrics.worst_lists import joined

    merged = joined(merged, [r.details for r in results])
    result = get(task).result(
        options, whole, details=merged, extra=first.extra, undefined=first.undefined
    )
    result = replace(result, headline=first.headline, signature=first.signature)
    _carry_documents(result, results, None if isinstance(permutation, range) else permutation)
    view = first.view
    return result.shown(documents=view.documents, types=view.types, averages=view.averages)
