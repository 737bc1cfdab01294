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
  entries the reader would skip or warn about by folder, are one chunk; so are folders whose
  files sorted by name are not in the order of their stems (``a-b.ann`` < ``a.ann``).  The
  chunks' warnings are pooled in the order of one run (by side, or in document order for the
  groups a task names ``interleaved``); a chunk with an error, warnings quoting an example
  twice, or an example naming a file both sides hold, leave the input to one run.

- ``"json"``: two files each one JSON array of objects (NLP Sandbox: a note's annotations)
  are cut at top-level elements found in the bytes (:func:`split_json`), each chunk read as
  an array of its own, and combined as chunks of lines (below): kept only when every
  document is in one chunk and no chunk raised or warned.

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

- The same with another way to find documents in the bytes (``cut_when``): JSON Lines of
  ``spans`` (one document a line, the system's line found by the document's id:
  :func:`split_json_lines`) and CoNLL coreference files (documents begun by ``#begin document
  NAME``: :func:`split_marked`).  A task that knows how its warnings add up (``pooled``:
  ``spans``, ``coref``) keeps a chunk that warned and makes one run's warnings of the chunks'
  (counts added, examples in document order, capped as one run caps them); the chunks'
  lines are then numbered as in the whole file (:func:`numbered`, counted only for the chunks
  that warned, which are scored again with them).

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
import re
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
    own_process: bool = False
    """The process is annoscore's own (the command line: :func:`scaled`), so its memory
    allocator may be tuned for chunks of lines (:func:`reuse_freed_memory`)."""

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
        import shutil
        import tempfile

        global _WORK
        context = multiprocessing.get_context("fork")
        stop = context.Event()  # set: the workers skip the items not yet begun
        spool = tempfile.mkdtemp(prefix="annoscore-", dir=_spool_folder())
        _WORK = (function, items, stop, spool)  # inherited by the forked workers: not pickled
        try:
            pool = context.Pool(min(self.jobs, len(items)), initializer=_worker_started)
            try:
                taking = True
                for sent in pool.imap(_work, range(len(items))):
                    part = _received(sent)
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
            shutil.rmtree(spool, ignore_errors=True)


_WORK: tuple[Callable[[Any], Any], Sequence[Any], Any, str] | None = None
"""The function and items of the running :meth:`Run.map`, the event that tells its forked
workers to skip the items left, and the folder where they leave their results
(:func:`_work`), as they inherit them."""


def _spool_folder() -> str | None:
    """Where workers leave their results: ``/dev/shm`` (memory) when there is one, else the
    system's temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _worker_started() -> None:
    """In a new worker: the default signal handlers (the command line's, inherited, would
    report the pool's ending of a worker as an interruption)."""
    import signal

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


def _work(n: int) -> str | bytes:
    """Item ``n`` of the running map, in a forked worker (``None`` once the map stopped),
    pickled into a file of the map's folder (its path is sent back: the parent reads a
    chunk's count rows and ids in one read, where a pipe passes them 64 KB at a time at a cost
    of CPU on both sides), or sent pickled when the file cannot be written (a full
    ``/dev/shm``)."""
    import pickle

    assert _WORK is not None
    function, items, stop, spool = _WORK
    data = pickle.dumps(None if stop.is_set() else function(items[n]), pickle.HIGHEST_PROTOCOL)
    path = os.path.join(spool, f"{n}.pickle")
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return data
    return path


def _received(sent: str | bytes) -> Any:
    """The result :func:`_work` sent (its file read and removed)."""
    import pickle

    if isinstance(sent, str):
        with open(sent, "rb") as handle:
            data = handle.read()
        os.unlink(sent)
        sent = data
    return pickle.loads(sent)


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
def using(
    jobs: int = 1, client: Any = None, lists: bool = False, own_process: bool = False
) -> Iterator[Run]:
    """Score with ``jobs`` processes (0: every core) or on a Dask ``client`` inside the block
    (``lists``, ``own_process``: :attr:`Run.lists`, :attr:`Run.own_process`)."""
    run = Run(resolve_jobs(jobs), client, lists, own_process)
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
        with using(jobs, lists=lists, own_process=True) as run:
            yield run
        return
    from annoscore.distributed import connected

    with connected(dask) as client, using(1, client, lists) as run:
        yield run


def reuse_freed_memory() -> bool:
    """Have this process's allocator (glibc's, on Linux) keep the memory a chunk of lines frees
    for the next chunk instead of giving it back to the system: arrays up to 32 MB come from
    the heap (``M_MMAP_THRESHOLD``) and up to 256 MB of freed heap is kept (``M_TRIM_THRESHOLD``).
    Chunks allocate and free the same large columns one after the other; given back, every
    chunk faults its pages in again (trec, 20,000 queries x 1,000: 540,000 page faults and
    2.4 s of system time of 7.5 s; kept: 120,000 and 0.5-1.0 s, 20% less wall time, peak
    memory 445 -> 546 MB with one job, 488 -> 560 MB in the largest process with two).
    Only in annoscore's own process (the command line), never where ``MALLOC_*`` or
    ``GLIBC_TUNABLES`` set the allocator already; workers forked later inherit it.  Whether
    it was applied."""
    import sys

    if not sys.platform.startswith("linux") or "GLIBC_TUNABLES" in os.environ:
        return False
    if any(name.startswith("MALLOC_") for name in os.environ):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(-3, 32 << 20) and mallopt(-1, 256 << 20))  # MMAP, TRIM thresholds


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


def split_folders(
    gold: Path | str, system: Path | str, parts: int, suffix: str = ".ann"
) -> list[FolderChunk] | None:
    """Two folders cut into at most ``parts`` chunks of whole documents (a document is a file
    stem, every file of that stem on both sides goes with it), in the sorted order of the
    stems, each chunk with a file ending in ``suffix`` on both sides; ``None`` when they are
    not two plain folders, hold fewer than two documents, or the chunks' order is not the
    order of each folder's sorted file names (:func:`_in_name_order`).  A URL (a string) is
    listed through fsspec."""
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
        sides[0] = sides[0] or _has_suffix(gold_files.get(stem, ()), suffix)
        sides[1] = sides[1] or _has_suffix(system_files.get(stem, ()), suffix)
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
    return chunks if _in_name_order(chunks) else None


def _has_suffix(names: Sequence[str], suffix: str) -> bool:
    return any(n.endswith(suffix) for n in names)


def _in_name_order(chunks: Sequence[FolderChunk]) -> bool:
    """Whether every file name of each side's chunk comes before those of the chunks after it
    (a reader lists a folder's files sorted by name, and one run quotes them in that order;
    stems and names may sort otherwise: ``a-b.ann`` < ``a.ann`` but ``a`` < ``a-b``).

    >>> def chunk(*names): return FolderChunk("g", "s", names, names)
    >>> _in_name_order([chunk("a.ann", "a.txt"), chunk("b.ann")])
    True
    >>> _in_name_order([chunk("a.ann"), chunk("a-b.ann")])
    False
    """
    for side in (0, 1):
        last: str | None = None
        for chunk in chunks:
            names = chunk.gold_names if side == 0 else chunk.system_names
            if not names:
                continue
            if last is not None and min(names) <= last:
                return False
            last = max(names)
    return True


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
        distinct = list(dict.fromkeys(ids))
        if all(type(k) is str for k in distinct):
            # strings as they are: UTF-8 (surrogates passed) orders bytes as code points, so
            # the order is the bytes' order, and the ids are encoded once, joined
            texts: list[str] = distinct  # type: ignore[assignment]
            ordered = texts == sorted(texts)  # distinct: sorted is strictly increasing
            joined = "\n".join(texts).encode("utf-8", "surrogatepass")
            first, last = (_utf8(texts[0]), _utf8(texts[-1])) if texts else (b"", b"")
            return cls(first, last, ordered, len(texts), joined)
        keys = [
            k if isinstance(k, bytes) else str(k).encode("utf-8", "surrogatepass") for k in distinct
        ]
        ordered = all(a < b for a, b in itertools.pairwise(keys))
        first, last = (keys[0], keys[-1]) if keys else (b"", b"")
        return cls(first, last, ordered, len(keys), b"\n".join(keys))

    def ids(self) -> frozenset[bytes]:
        return frozenset(self.joined.split(b"\n")) if self.count else frozenset()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True, slots=True)
class Part:
    """A chunk's result, and its warnings each with its side (:func:`_sided`)."""

    result: Result | None
    warnings: tuple[tuple[int, ScoreWarning], ...]
    seen: tuple[Seen, Seen] | None = None
    """The document ids the readers found in a chunk of lines: (gold's, system's)."""
    kept: tuple[Any, ...] = ()
    """What the task's score function kept of a chunk of lines (:func:`keep`)."""


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


def score_folder_chunk(
    task: str,
    chunk: FolderChunk,
    options: TaskOptions,
    order: Sequence[str] = ("*",),
    interleaved: Sequence[str] = (),
) -> Part:
    """The chunk function of ``"folders"`` tasks: ``task``'s score function (undecorated) on
    the two folders, their readers seeing only the chunk's files
    (:func:`~annoscore.formats.files.selected_files`), so paths in warnings and errors are the
    folders' own (a URL's chunk: its own files copied through fsspec, named as the URL's).
    Its warnings go by side (:func:`_sided`), except those of the groups of ``order`` named in
    ``interleaved``, which one run lists in document order whatever their side (side 2, not
    split).  An error gives a part without a result: the input is then scored in one run,
    which names the error one run names (another chunk, or the other side of an earlier
    chunk, may hold the one it meets first).  Runs in a worker (or in this process)."""
    from annoscore.formats.files import is_url, local_copy, named_warning, selected_files
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
    except InputError:
        return Part(None, ())
    finally:
        _RUN.reset(token)
    groups = {order.index(name) for name in interleaved}
    return Part(
        _sent(result),
        tuple(
            item
            for w in map(named_warning, result.warnings, itertools.repeat(names))
            for item in ([(2, w)] if _group(w.code, order) in groups else _sided(w, chunk))
        ),
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
        where = [column[n] for n in m.names]
        if where == list(range(len(where))):  # the first columns in order: a slice is faster
            values[at : at + len(m.documents), : len(where)] = m.values
        else:
            values[at : at + len(m.documents), where] = m.values
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

    items = sorted(
        ((_group(w.code, order), side, c, n), w)
        for c, chunk in enumerate(lists)
        for n, (side, w) in enumerate(chunk)
    )
    return list(merge_warnings(w for _, w in items))


def _group(code: str, order: Sequence[str]) -> int:
    """The place of a warning's ``code`` among the groups of ``order`` (:func:`merge_in_order`).

    >>> _group("documents.gold-only", ("documents.", "*")), _group("x", ("documents.", "*"))
    (0, 1)
    """
    for n, name in enumerate(order):
        if code == name or (name.endswith(".") and code.startswith(name)):
            return n
    return order.index("*") if "*" in order else len(order)


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
    if _repeated_examples(parts):
        return None  # pooling would drop the repeats one run may quote: one run
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


def _repeated_examples(parts: Sequence[Part]) -> bool:
    """Whether an example is quoted twice by the chunks' warnings of one code (in one warning
    or in two): pooling examples keeps one of each (:meth:`ScoreWarning.merged`), where one
    run may quote both (``a.ann:2`` of gold and of the system, named by file name).

    >>> from annoscore.result import ScoreWarning as W
    >>> def part(*examples): return Part(None, ((2, W("x", "{count}", 1, examples)),))
    >>> _repeated_examples([part("a:1", "b:1"), part("c:1")])
    False
    >>> _repeated_examples([part("a:1"), part("a:1")]), _repeated_examples([part("a:1", "a:1")])
    (True, True)
    """
    seen: set[tuple[str, str]] = set()
    for part in parts:
        for _, warning in part.warnings:
            for example in warning.examples:
                key = (warning.code, example)
                if key in seen:
                    return True
                seen.add(key)
    return False


Details = Callable[[Sequence[Any], Sequence[int]], Any]
"""How a task's details of the chunks make the details of the whole, given the order of the
rows (the stacked rows' positions; ``None``: the first chunk's); raises :class:`NotExact` when
they cannot."""


Finish = Callable[["Result", Sequence["Result"]], "Result | None"]
"""What a task derives from the whole's counts (its ``extra`` fields), made again on the
combined result given the chunks' results; ``None`` when they cannot make one run's."""


class NotExact(Exception):
    """The chunks' results cannot make the result of one run exactly: score in one run."""


Pooled = Callable[[Any, Sequence[Sequence["ScoreWarning"]], Sequence[tuple[Any, ...]]], Any]
"""How a task makes the warnings of one run (``list[ScoreWarning | str]``, in its order, before
what the whole derives) of its chunks of lines' warnings (the :data:`DERIVED_CODES` left out)
and what each chunk kept (:func:`keep`), given the options; ``None`` when it cannot."""

Splitter = Callable[[Path, Path, int], "list[LineChunk] | None"]
"""How two single files are cut into chunks (at most about ``parts``; ``None``: not cut)."""


def chunked(
    task: str,
    how: str = "folders",
    warnings: Sequence[str] = ("*",),
    *,
    separators: bytes = b"\t",
    order: str = "gold-first",
    details: Details | None = None,
    lines_when: Callable[[Path, Path, Any], bytes | None] | None = None,
    suffix: str = ".ann",
    interleaved: Callable[[Any], Sequence[str]] | None = None,
    folders_when: Callable[[Path, Path, Any], bool] | None = None,
    finish: Finish | None = None,
    elements: JsonDocuments | None = None,
    cut_when: Callable[[Path, Path, Any], Splitter | None] | None = None,
    pooled: Pooled | None = None,
) -> Callable[[F], F]:
    """Declare how ``task``'s score function ``(gold, system, options) -> Result`` is cut (see
    the module doc): ``"folders"``, with the order of its warnings' groups
    (:func:`merge_in_order`); or ``"lines"``, with the bytes that end a line's first field
    (``separators``), the order of the documents of one run (``order``: ``"gold-first"``,
    gold's first-seen order then the others', or ``"sorted"``, by the ids' bytes) and how
    the chunks' ``details`` make the whole's (``finish``: its ``extra`` fields).  ``"json"``:
    two files each a JSON array of objects (``elements``), cut at top-level elements
    (:func:`split_json`) and combined as chunks of lines.  A ``"folders"`` task may cut two files as
    ``"lines"`` too: ``lines_when(gold, system, options)`` gives the separators when they are
    files of lines (``None`` otherwise), or ``cut_when(gold, system, options)`` the function
    that cuts them (:data:`Splitter`: files whose documents are not found by a first field);
    ``pooled`` makes one run's warnings of the chunks' (without it, a chunk that warned makes
    the input be scored in one run).  Folders are cut so that each chunk has a file ending in
    ``suffix`` on both sides, and only when ``folders_when(gold, system, options)`` (if given)
    holds; ``interleaved(options)`` names the groups of ``warnings`` whose examples one run
    lists in document order, a document's gold and system files together
    (:func:`score_folder_chunk`).  With a run of more than one job in force, it scores the
    chunks of its input by the same function and combines them; otherwise, and when the
    input cannot be cut, it is called as it is."""
    if how not in ("folders", "lines", "json"):
        raise ValueError(f"unknown way to cut an input: {how!r}")
    if order not in ("gold-first", "sorted"):
        raise ValueError(f"unknown order of documents: {order!r}")
    if (how == "json") != (elements is not None):
        raise ValueError("a JSON array is cut by its elements (and only it)")

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def score(gold: Path, system: Path, options: Any = None) -> Result:
            run = _RUN.get()
            if options is None:
                options = get_options(task)
            cuts_lines = how in ("lines", "json") or lines_when is not None or cut_when is not None
            if run.serial and not cuts_lines:
                return _one_run(function, gold, system, options)
            combined: Result | None = None
            if (
                how == "folders"
                and not run.serial
                and _is_folder(gold)
                and _is_folder(system)
                and (folders_when is None or folders_when(gold, system, options))
            ):
                # each worker lists the folders and takes its share (the parent lists nothing:
                # the listing is done in parallel)
                shares = run.workers * CHUNKS_PER_WORKER
                how_cut = _FolderCut(
                    tuple(warnings),
                    tuple(interleaved(options)) if interleaved is not None else (),
                    suffix,
                )
                where = _where(gold), _where(system)
                plan = (os.urandom(8),) if where != (str(gold), str(system)) else ()
                parts = run.map(
                    functools.partial(_folder_share, task, options, *where, how_cut),
                    [(k, shares, *plan) for k in range(shares)],
                )
                if all(p.result is not None for p in parts if p.seen is None):
                    kept = [p for p in parts if p.result is not None]
                    combined = combine(task, options, kept, warnings) if kept else None
            elif cuts_lines:
                # one process: chunks of LINE_CHUNK_BYTES scored one after the other, so that
                # no more than one chunk is held at a time
                parts_wanted = 1 if run.serial else run.workers * LINE_CHUNKS_PER_WORKER
                splitter = None if cut_when is None else cut_when(gold, system, options)
                lines = None
                if splitter is not None:
                    lines = splitter(Path(gold), Path(system), parts_wanted)
                elif elements is not None:
                    lines = split_json(Path(gold), Path(system), parts_wanted, elements)
                elif cut_by := _separators(separators, lines_when, gold, system, options):
                    lines = split_lines(Path(gold), Path(system), parts_wanted, cut_by, run.workers)
                if lines is not None:
                    combined = score_lines(
                        task, options, run, lines, order, details, finish, pooled
                    )
            if combined is None:  # not cut, or not exactly: one run
                return _one_run(function, gold, system, options)
            return combined

        score.cuts_urls = True  # type: ignore[attr-defined]
        return score  # type: ignore[return-value]

    return decorate


def _separators(
    separators: bytes,
    lines_when: Callable[[Path, Path, Any], bytes | None] | None,
    gold: Path,
    system: Path,
    options: Any,
) -> bytes | None:
    return separators if lines_when is None else lines_when(gold, system, options)


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


@dataclass(frozen=True, slots=True)
class _FolderCut:
    """How a task's folders are cut and its chunks' warnings sided (:func:`chunked`)."""

    order: tuple[str, ...] = ("*",)
    interleaved: tuple[str, ...] = ()
    suffix: str = ".ann"


def _folder_share(
    task: str,
    options: TaskOptions,
    gold: str,
    system: str,
    how: _FolderCut,
    share: tuple[Any, ...],
) -> Part:
    """Share ``k`` of ``n`` of two folders (:func:`split_folders`, planned once in each worker):
    its part; a part without a result when the folders cannot be cut (then every share says
    so), and an empty part (``seen`` set) when the plan has fewer chunks than shares."""
    k, n = share[:2]
    from annoscore.formats.files import is_url

    try:
        key: tuple[object, ...] = (
            (gold, system, n, how.suffix, *share[2:])  # URLs: planned once per worker and map
            if is_url(gold) or is_url(system)
            else (
                gold,
                system,
                n,
                how.suffix,
                os.stat(gold).st_mtime_ns,
                os.stat(system).st_mtime_ns,
            )
        )
    except OSError:
        return Part(None, ())
    if key not in _PLANS:
        _PLANS.clear()
        sides = [p if is_url(p) else Path(p) for p in (gold, system)]
        _PLANS[key] = split_folders(sides[0], sides[1], n, how.suffix)
    plan = _PLANS[key]
    if plan is None:
        return Part(None, ())
    if k >= len(plan):
        return Part(None, (), (Seen.of([]), Seen.of([])))  # nothing to score in this share
    return score_folder_chunk(task, plan[k], options, how.order, how.interleaved)


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
    gold_line: int = -1
    """Lines of the gold file before the range (-1: not counted; :func:`numbered`)."""
    system_line: int = -1


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


def _find_near(data: Any, key: bytes, separators: bytes, after: int, near: int) -> int:
    """:func:`_find_line` from ``after``, sought near ``near`` first: the first line of
    ``key`` after a point a little before ``near``, back to the first of the adjacent lines
    whose first field is ``key`` (the document's first line, when its lines are adjacent),
    and the first line of ``key`` from there; :func:`_find_line` from ``after`` when there is
    none.  The same line as :func:`_find_line` when the lines of ``key`` are adjacent, found
    without reading the file from ``after``; otherwise a later line of the document may be
    found, and the cut is then not exact (:func:`exact_cut`: the input is scored in one run).

    >>> data = b"a 1\\nb 1\\nb 2\\nb 3\\nc 1\\n"
    >>> [_find_near(data, b"b", b" ", 0, near) for near in (0, 4, 9, 14, 19)]
    [4, 4, 4, 4, 4]
    >>> _find_near(data, b"b", b" ", 8, 14), _find_near(data, b"a", b" ", 0, 19)
    (8, 0)
    """
    guess = after + (near - after) * 7 // 8  # a little before: a run is found from its start
    if guess <= after:
        return _find_line(data, key, separators, after)
    at = _find_line(data, key, separators, guess)
    if at < 0:
        return _find_line(data, key, separators, after)
    while at > after:  # back to the first of the adjacent lines of key
        before = max(after, data.rfind(b"\n", after, at - 1) + 1)
        if _key(data, before, separators) != key:
            break
        at = before
    return _find_line(data, key, separators, at)


def targets(size: int, parts: int, workers: int = 1) -> list[int]:
    """Where to seek the cuts of a gold file of ``size`` bytes (offsets, increasing; empty:
    one chunk).  For one worker, ``parts`` even shares (more when a share would exceed
    :data:`LINE_CHUNK_BYTES`).  For several, shares that shrink towards the end (each an even
    share of what is left for twice the workers, at most :data:`LINE_CHUNK_BYTES`, at least an
    eighth of an even share): workers take the next chunk as they finish one, so with small
    chunks last they finish together (with equal chunks, one worker may score a whole chunk
    alone at the end).

    >>> targets(100, 4), targets(100, 1)
    ([25, 50, 75], [])
    >>> targets(1000, 4, workers=2)
    [250, 438, 579, 685, 764, 823, 868, 901, 932, 963]
    """
    if workers <= 1:
        parts = max(parts, -(-size // LINE_CHUNK_BYTES))
        return [size * n // parts for n in range(1, parts)]
    least = max(1, min(LINE_CHUNK_BYTES, size // max(1, parts)) // 8)
    found: list[int] = []
    at = 0
    while True:
        step = min(LINE_CHUNK_BYTES, max(least, -(-(size - at) // (2 * workers))))
        if size - at - step < least:  # what is left is the last chunk
            return found
        at += step
        found.append(at)


def split_lines(
    gold: Path, system: Path, parts: int, separators: bytes = b"\t", workers: int = 1
) -> list[LineChunk] | None:
    """Two files of lines (a document's id in the first field) cut into at most ``parts``
    chunks (more when the gold file holds more than :data:`LINE_CHUNK_BYTES` per chunk, or
    when ``workers`` share them: :func:`targets`) at document boundaries found in the bytes:
    each gold cut is the first line of a document near its target (after every line of the
    document before, when they are adjacent), each system cut the first line of that document
    in the system file, sought near the same share of it (:func:`_find_near`; the next gold
    document when the system has none; a cut that would not move forward in both is left
    out).  Only the lines around the cuts are read (``mmap``).  ``None`` when
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
    wanted = targets(stats[0].st_size, parts, workers)
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
        cuts: list[tuple[int, int]] = []
        last = (0, 0)
        for target in wanted:
            at = max(target, last[0] + 1)
            newline = gold_data.find(b"\n", at - 1)
            if newline < 0 or newline + 1 >= size:
                break
            found = _next_run(gold_data, newline + 1, separators)
            for _ in range(16):  # the next documents when the system has none of this one
                if found is None:
                    break
                start, key = found
                near = start * len(system_data) // size  # the same share of the system
                where = _find_near(system_data, key, separators, last[1], near)
                if where > last[1]:
                    last = (start, where)
                    cuts.append(last)
                    break
                found = _next_run(gold_data, start, separators)
        if not cuts:
            return None
        return _between(*urls, [(0, 0), *cuts], [*cuts, (size, len(system_data))])


# --- single files of JSON arrays -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JsonDocuments:
    """How a task's JSON files hold their documents: a top-level array of objects, one a
    document (or a part of one), whose first key is one of ``first_keys``; ``document`` gives
    the document id of a decoded element (``None``: it cannot say)."""

    first_keys: tuple[str, ...]
    document: Callable[[Any], str | None]


_JSON_SPACE = b" \t\n\r"


def _element_pattern(keys: Sequence[str]) -> re.Pattern[bytes]:
    """A comma, then the start of an object whose first key is one of ``keys`` (group 1): in
    valid JSON never inside a string (a quote there is escaped), maybe nested (a chunk that
    is not a run of whole top-level elements does not parse)."""
    names = b"|".join(re.escape(k.encode()) for k in keys)
    return re.compile(rb',[ \t\n\r]*(\{[ \t\n\r]*"(?:' + names + rb')"[ \t\n\r]*:)')


def _json_array_span(data: Any) -> tuple[int, int] | None:
    r"""Where the elements of a UTF-8 file holding one JSON array lie: after its ``[`` (and a
    byte-order mark, spaces) and before its final ``]`` (spaces after it); ``None`` when the
    file is not so (another encoding, anything else around the array).

    >>> _json_array_span(b'\xef\xbb\xbf [{"a": 1}] \n'), _json_array_span(b'{"a": [1]}')
    ((5, 13), None)
    """
    import json

    head = bytes(data[:4096])
    if json.detect_encoding(head) not in ("utf-8", "utf-8-sig"):
        return None
    start = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    start += len(head[start:]) - len(head[start:].lstrip(_JSON_SPACE))
    if head[start : start + 1] != b"[":
        return None
    tail_from = max(start + 1, len(data) - 4096)
    tail = bytes(data[tail_from:]).rstrip(_JSON_SPACE)
    if not tail.endswith(b"]"):
        return None
    return start + 1, tail_from + len(tail) - 1


def _element_document(data: Any, start: int, elements: JsonDocuments) -> str | None:
    """The document id of the JSON value at ``start`` (read in growing windows; ``None`` when
    it does not decode, is too large or names none)."""
    import json

    decoder = json.JSONDecoder()
    size = 1 << 16
    while True:
        text = bytes(data[start : start + size]).decode("utf-8", "replace")
        try:
            value, _ = decoder.raw_decode(text)
        except (ValueError, RecursionError):
            if start + size >= len(data) or size >= 1 << 26:
                return None
            size *= 4
            continue
        return elements.document(value)


def _element_before(data: Any, pattern: re.Pattern[bytes], at: int, low: int) -> Any:
    """The last element start (:func:`_element_pattern`) between ``low`` and ``at``."""
    window = 1 << 16
    while True:
        begin = max(low, at - window)
        found = None
        for found in pattern.finditer(data, begin, at):  # noqa: B007 (the last one is kept)
            pass
        if found is not None or begin == low:
            return found
        window *= 4


def _find_element(
    data: Any,
    document: str,
    pattern: re.Pattern[bytes],
    elements: JsonDocuments,
    low: int,
    high: int,
) -> tuple[int, int] | None:
    """The comma before, and the start of, the first element after ``low`` (before ``high``)
    whose document is ``document``: found by its id as JSON writes it (escaped or not) closing
    a string, or after a ``/`` (the id may be a path's last part), each hit's element decoded
    and checked."""
    import json

    forms = dict.fromkeys(
        (json.dumps(document)[1:-1], json.dumps(document, ensure_ascii=False)[1:-1])
    )
    for form in forms:
        raw = form.encode("utf-8", "surrogatepass")
        for needle in (b'"' + raw + b'"', b"/" + raw + b'"'):
            at = low
            for _ in range(4):
                hit = data.find(needle, at, high)
                if hit < 0:
                    break
                found = _element_before(data, pattern, hit, low)
                if (
                    found is not None
                    and found.start(1) > low
                    and _element_document(data, found.start(1), elements) == document
                ):
                    return found.start(), found.start(1)
                at = hit + 1
    return None


def split_json(
    gold: Path, system: Path, parts: int, elements: JsonDocuments
) -> list[LineChunk] | None:
    """Two files each one JSON array of objects (:class:`JsonDocuments`) cut into at most
    ``parts`` chunks (more when the gold file holds more than :data:`LINE_CHUNK_BYTES` per
    chunk) at top-level elements found in the bytes: each gold cut is the first element start
    (:func:`_element_pattern`) after an even share of the bytes, each system cut the first
    element of the same document after the system cut before (the next gold elements when
    it has none near; a cut that would not move forward in both is left out).  A chunk is the
    bytes between two cuts without the comma, read as an array of its own by the task's reader
    (``[`` and ``]`` around it); only the elements at the cuts are decoded here.  ``None`` as
    :func:`split_lines` gives it, and when a file is not one UTF-8 array of objects.  That the
    cut is exact is checked after the chunks are read: each parses as an array only if its
    bytes are whole top-level elements, and the ids their readers found show every document
    in one chunk (:func:`combine_lines`)."""
    parts = _regular_pair(gold, system, parts)
    if not parts:
        return None
    pattern = _element_pattern(elements.first_keys)
    with _mapped(gold, system) as (gold_data, system_data):
        spans = _json_array_span(gold_data), _json_array_span(system_data)
        if spans[0] is None or spans[1] is None:
            return None
        (gold_start, gold_end), (system_start, system_end) = spans[0], spans[1]
        cuts: list[tuple[int, int, int, int]] = []  # gold comma, start; system comma, start
        last = (gold_start, system_start)
        for n in range(1, parts):
            at = max(gold_start + (gold_end - gold_start) * n // parts, last[0] + 1)
            for _ in range(16):  # the next elements when the system has none of this one
                found = pattern.search(gold_data, at, gold_end)
                if found is None:
                    break
                document = _element_document(gold_data, found.start(1), elements)
                where = None
                if document is not None:
                    where = _find_element(
                        system_data, document, pattern, elements, last[1], system_end
                    )
                if where is not None:
                    cuts.append((found.start(), found.start(1), *where))
                    last = (found.start(1), where[1])
                    break
                at = found.start(1) + 1
        if not cuts:
            return None
        begins = [(gold_start, system_start), *((c[1], c[3]) for c in cuts)]
        ends = [*((c[0], c[2]) for c in cuts), (gold_end, system_end)]
        return _between(str(gold), str(system), begins, ends)


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


def _regular_pair(gold: Path, system: Path, parts: int) -> int:
    """How many chunks two files are cut into (:func:`split_lines`' rule: at least ``parts``,
    more for a large gold file), or 0 when they are not two distinct regular files of
    :data:`MIN_LINE_BYTES` or more together."""
    import stat

    try:
        stats = [os.stat(gold), os.stat(system)]
        if not all(stat.S_ISREG(s.st_mode) and s.st_size > 0 for s in stats):
            return 0
        if os.path.samefile(gold, system):
            return 0
    except OSError:
        return 0
    if stats[0].st_size + stats[1].st_size < MIN_LINE_BYTES:
        return 0
    parts = max(parts, -(-stats[0].st_size // LINE_CHUNK_BYTES))
    return parts if parts >= 2 else 0


def _json_id(data: Any, start: int) -> tuple[str | None, bool] | None:
    """The document id of the JSON Lines line at ``start`` of ``data`` and whether it is the
    document's own (``(None, False)``: none, the document is named by its line number);
    ``None`` for a blank line or one that is not a JSON object."""
    import json

    from annoscore.formats.jsonl import explicit_id

    end = data.find(b"\n", start)
    line = bytes(data[start : len(data) if end < 0 else end])
    if not line.strip():
        return None
    try:
        item = json.loads(line)
        if not isinstance(item, dict):
            return None
        found = explicit_id(item)
    except ValueError:  # not JSON (a "meta" that is not an object names no id: explicit_id)
        return None
    return found, found is not None


class _Lines:
    """Line numbers of a file asked in increasing order (each answer counts on from the last
    one, so all of them cost one pass over the bytes)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.at = 0  # an offset at a line's start
        self.line = 1  # the number of that line

    def number(self, offset: int) -> int:
        """The number of the line starting at ``offset``."""
        if offset < self.at:
            self.at, self.line = 0, 1
        self.line += _count_newlines(self.data, self.at, offset)
        self.at = offset
        return self.line

    def start(self, line: int) -> int:
        """The offset of the start of line ``line`` (-1: the file has fewer lines)."""
        if line < self.line:
            self.at, self.line = 0, 1
        data = self.data
        while self.line < line:
            newline = int(data.find(b"\n", self.at))
            if newline < 0 or newline + 1 >= len(data):
                return -1
            self.at, self.line = newline + 1, self.line + 1
        return self.at


def _count_newlines(data: Any, start: int, stop: int) -> int:
    count = 0
    block = 1 << 24
    while start < stop:
        end = min(stop, start + block)
        count += bytes(data[start:end]).count(b"\n")
        start = end
    return count


def split_json_lines(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """Two JSON Lines files of one document a line (Prodigy, spaCy: :mod:`annoscore.formats.
    jsonl`) cut into at most ``parts`` chunks (more for a large gold file) at lines found in
    the bytes: each gold cut is the first line near an even share of the bytes, each system cut
    the line of the same document id (found by searching the system for the id's JSON
    spelling, each hit's line parsed; a document without an id is named by its line number,
    so the system's line of that number).  A gold document the system lacks moves the cut to
    the next one; a cut that would not move forward in both is left out.  The lines before
    each range are counted (:func:`numbered`): a chunk numbers its lines, and the documents
    named by them, as the whole file does.  ``None`` as :func:`split_lines` gives it; whether
    the cut is exact is checked by the ids the chunks' readers found (:func:`exact_cut`)."""
    parts = _regular_pair(gold, system, parts)
    if not parts:
        return None
    with _mapped(gold, system) as (gold_data, system_data):
        size = len(gold_data)
        gold_lines, system_lines = _Lines(gold_data), _Lines(system_data)
        cuts: list[tuple[int, int]] = []
        last = (0, 0)
        for n in range(1, parts):
            newline = gold_data.find(b"\n", max(size * n // parts, last[0] + 1) - 1)
            for _ in range(16):  # the next documents when the system has none of this one
                if newline < 0 or newline + 1 >= size:
                    break
                start = newline + 1
                newline = gold_data.find(b"\n", start)
                found = _json_id(gold_data, start)
                if found is None:
                    continue
                key, own = found
                if own and key is not None:
                    where = _json_line_of(system_data, key, last[1])
                else:  # named by its line: the system's line of that number, named so too
                    where = system_lines.start(gold_lines.number(start))
                    if where < 0 or _json_id(system_data, where) != (None, False):
                        where = -1
                if where > last[1] and start > last[0]:
                    last = (start, where)
                    cuts.append(last)
                    break
        if not cuts:
            return None
        chunks = _between(
            str(gold), str(system), [(0, 0), *cuts], [*cuts, (size, len(system_data))]
        )
    return numbered(chunks)


def _json_line_of(data: Any, key: str, after: int) -> int:
    """The start of the line after ``after`` of the JSON Lines ``data`` whose document's own
    id is ``key`` (-1: not found among the first hits of its JSON spellings)."""
    import json

    spellings = dict.fromkeys(
        [json.dumps(key).encode(), json.dumps(key, ensure_ascii=False).encode()]
    )
    if key.lstrip("-").isdigit():
        spellings[key.encode()] = None  # an id given as a number (Prodigy's _input_hash)
    for spelling in spellings:
        at = after
        for _ in range(64):
            at = int(data.find(spelling, at))
            if at < 0:
                break
            start = int(data.rfind(b"\n", 0, at)) + 1
            if start > after and _json_id(data, start) == (key, True):
                return start
            at += 1
    return -1


def split_marked(
    gold: Path,
    system: Path,
    parts: int,
    word: bytes,
    key_of: Callable[[bytes], bytes | None],
) -> list[LineChunk] | None:
    """Two files whose documents each begin at a marked line (``key_of(line)``: the document's
    key, ``None`` for another line; every such line holds ``word`` followed by the key, as
    ``#begin document NAME`` does) cut into at most ``parts`` chunks (more for a large gold
    file) before such lines: each gold cut the first marked line after an even share of the
    bytes, each system cut the marked line of the same key (the next gold document's when the
    system has none of this one; a cut that would not move forward in both is left out).  The
    lines before each range are counted only when a chunk warned (:func:`score_lines`).
    ``None`` as :func:`split_lines`
    gives it; whether the cut is exact is checked by the ids the chunks' readers found
    (:func:`exact_cut`) and by what the chunks say (a task's ``pooled``)."""
    parts = _regular_pair(gold, system, parts)
    if not parts:
        return None
    with _mapped(gold, system) as (gold_data, system_data):
        size = len(gold_data)
        cuts: list[tuple[int, int]] = []
        last = (0, 0)
        for n in range(1, parts):
            at = max(size * n // parts, last[0] + 1)
            for _ in range(16):  # the next documents when the system has none of this one
                found = _marked_line(gold_data, word, key_of, at)
                if found is None:
                    break
                start, at, key = found
                if start <= last[0]:
                    continue
                where = last[1]
                while (hit := _marked_line(system_data, word + key, key_of, where)) is not None:
                    where = hit[1]
                    if hit[2] == key and hit[0] > last[1]:
                        last = (start, hit[0])
                        cuts.append(last)
                        break
                else:
                    continue
                break
        if not cuts:
            return None
        chunks = _between(
            str(gold), str(system), [(0, 0), *cuts], [*cuts, (size, len(system_data))]
        )
    return chunks


def _marked_line(
    data: Any, word: bytes, key_of: Callable[[bytes], bytes | None], at: int
) -> tuple[int, int, bytes] | None:
    """The first marked line (``key_of`` gives its key) holding ``word`` after ``at``: its
    start, its end and its key (``None``: none among the first hits)."""
    for _ in range(64):
        hit = int(data.find(word, at))
        if hit < 0:
            return None
        start = int(data.rfind(b"\n", 0, hit)) + 1
        end = int(data.find(b"\n", hit))
        end = len(data) if end < 0 else end
        key = key_of(bytes(data[start:end]))
        if key is not None:
            return start, end, key
        at = end
    return None


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
    >>> data.rfind(b"\\n"), data.rfind(b"\\n", 0, 7), data.rfind(b"a", 1)
    (7, 3, -1)
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

    def rfind(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        """The last ``sub`` wholly in ``[start, end)``, read backwards in growing windows."""
        end = self.size if end is None else min(end, self.size)
        start, high, window = max(0, start), end, 1 << 12
        while high > start:
            low = max(start, high - window)
            found = self._read(low, min(end, high + len(sub) - 1)).rfind(sub)
            if found >= 0:
                return low + found
            high, window = low, min(window * 2, 1 << 20)
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
    gold = Cut(*chunk.gold_range, line=max(0, chunk.gold_line))
    system = Cut(*chunk.system_range, line=max(0, chunk.system_line))
    # a URL: its stand-in is read, its range through fsspec (Cut.url)
    gold.url, system.url = (u if is_url(u) else None for u in (chunk.gold, chunk.system))
    paths = tuple(
        stand_in(p, register=False) if is_url(p) else Path(p) for p in (chunk.gold, chunk.system)
    )
    token = _RUN.set(_SERIAL)
    kept: list[Any] = []
    keeping = _KEPT.set(kept)
    try:
        with cut_files({str(paths[0]): gold, str(paths[1]): system}):
            result: Result = function(*paths, options)
    except InputError:
        return Part(None, ())
    finally:
        _KEPT.reset(keeping)
        _RUN.reset(token)
    if not (gold.exact and system.exact):  # a reader says the chunk reads otherwise
        return Part(None, ())
    return Part(
        _sent(result, carry, lists),
        tuple((2, w) for w in result.warnings),
        (Seen.of(gold.seen), Seen.of(system.seen)),
        tuple(kept),
    )


_KEPT: ContextVar[list[Any] | None] = ContextVar("annoscore_kept", default=None)
"""What the task's score function keeps of a chunk of lines for the pooling of its warnings
(:func:`keep`); ``None`` outside a chunk."""


def keeping() -> bool:
    """Whether a chunk of lines is being scored (then :func:`keep` keeps)."""
    return _KEPT.get() is not None


def keep(item: Any) -> None:
    """Keep ``item`` with the part of the chunk of lines being scored (:attr:`Part.kept`):
    what a task's ``pooled`` needs to make one run's warnings of the chunks' (nothing outside
    a chunk)."""
    kept = _KEPT.get()
    if kept is not None:
        kept.append(item)


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
    finish: Finish | None = None,
    pooled: Pooled | None = None,
) -> Result | None:
    """The result of the chunks of lines ``lines`` scored by ``run`` (:func:`combine_lines`),
    or ``None`` when the cut is not exact or a chunk is :func:`unusable` (then the chunks after
    it are not scored: the input is scored in one run); with ``pooled``, a chunk that warned
    is used (its warnings pooled), one that raised is not."""
    from annoscore.formats.files import read_once

    carry = len(lines) <= CARRY_CHUNKS
    score = functools.partial(_line_part, task, options, run.lists, carry)
    if run.own_process and len(lines) > 1:
        reuse_freed_memory()
    with read_once():  # what every chunk reads alike, once in each process (forked inside)
        parts = run.map(score, lines, until=unusable if pooled is None else unread)
        if len(parts) < len(lines):
            return None
        if pooled is not None and lines[-1].gold_line < 0:
            # the chunks numbered their lines from 1: those that warned (quoting lines,
            # maybe) are scored again with the lines before them counted (only then: a pass
            # over the bytes up to the last of them)
            again = [
                k
                for k, part in enumerate(parts)
                if k and any(w.code not in DERIVED_CODES for _, w in part.warnings)
            ]
            if again:
                counted = numbered(lines[: again[-1] + 1])
                redone = run.map(score, [counted[k] for k in again], until=unread)
                if len(redone) < len(again):
                    return None
                parts = list(parts)
                for k, part in zip(again, redone, strict=True):
                    parts[k] = part
    return combine_lines(task, options, parts, order, details, finish, pooled)


def unread(part: Part) -> bool:
    """Whether a chunk of lines raised an error or was read otherwise than in the whole file
    (:func:`unusable`, its warnings aside: a task that pools them)."""
    return part.result is None


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
    finish: Finish | None = None,
    pooled: Pooled | None = None,
) -> Result | None:
    """One result of the chunks of lines (:func:`combine`), its rows in the order of one run
    (``order``); ``None`` when the cut was not exact (:func:`exact_cut`), a chunk warned
    (these tasks' warnings are made from the whole corpus) unless ``pooled`` makes one run's
    warnings of theirs (``None`` from it: not exact either), or ``finish`` (the fields a task
    derives from the whole's counts, made again) found the chunks' results unlike."""
    import numpy as np

    from annoscore.result import CountMatrix
    from annoscore.tasks.registry import get

    if not exact_cut(parts):
        return None
    warnings: Any = ()
    if pooled is not None:
        warnings = pooled(
            options,
            [[w for _, w in p.warnings if w.code not in DERIVED_CODES] for p in parts],
            [p.kept for p in parts],
        )
        if warnings is None:
            return None
    elif any(w.code not in DERIVED_CODES for part in parts for _, w in part.warnings):
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
        options,
        whole,
        warnings=warnings,
        details=merged,
        extra=first.extra,
        undefined=first.undefined,
    )
    result = replace(result, headline=first.headline, signature=first.signature)
    if finish is not None:
        finished = finish(result, results)
        if finished is None:
            return None
        result = finished
    _carry_documents(result, results, None if isinstance(permutation, range) else permutation)
    view = first.view
    return result.shown(documents=view.documents, types=view.types, averages=view.averages)
