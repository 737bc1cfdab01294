"""The run in force and its workers: how many jobs, forked worker processes, the progress line.

:func:`using` and :func:`scaled` set the run (``jobs``, a Dask client, whether ranked lists
travel back); :meth:`Run.map` maps a chunk function over chunks in this process, in processes
forked from it (results spooled through ``/dev/shm`` when they are large) or on Dask workers,
and gives the results in chunk order.  A run longer than a couple of seconds on a terminal shows
a :class:`Progress` line on standard error.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from annoscore.errors import InputError

T = TypeVar("T")

CHUNKS_PER_WORKER = 2
"""How many chunks of folders each worker gets (each chunk lists the folders again)."""


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
    documents: bool = True
    """Chunks send every document's scores (the output shows them: ``--per-doc``, a report);
    otherwise only the columns ``macro_doc`` is made of
    (:func:`annoscore.scale.reduce._macro_part`), which the parent unpickles and adds up in a
    fraction of the time (brat 20,000 documents: 0.03 s of the worker's CPU to pickle, 0.03 s
    of the parent's to unpickle, 0.03 s after the last chunk to average them)."""

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
        items: Sequence[Any] | Callable[[], Sequence[Any]],
        until: Callable[[Any], bool] | None = None,
        ready: Callable[[], object] | None = None,
    ) -> list[Any]:
        """``function`` of each item, in the items' order (a progress line on a terminal);
        with ``until``, the results before the first one it holds true of (the items after it
        are not scored, or no longer waited for: a shorter list).  ``items`` may be the
        function that makes them: with forked workers, called once they are forked, each
        worker running ``ready`` meanwhile (:meth:`_forked`)."""
        progress = Progress(0)
        found: list[Any] = []
        mapping = _IN_MAP.set(True)  # a chunk's own count shows nothing (:func:`counted`)

        def take(part: Any) -> bool:
            if until is not None and until(part):
                return False
            found.append(part)
            progress.done(part)
            return True

        try:
            if callable(items) and (self.client is not None or self.jobs == 1):
                items = items()
            if not callable(items):
                progress.chunks = len(items)
            if callable(items) or (self.client is None and self.jobs > 1 and len(items) > 1):
                self._forked(function, items, take, ready, progress)
            elif self.client is not None:
                futures = self.client.map(function, list(items), pure=False)
                for n, future in enumerate(futures):  # in order: each result as it comes
                    if not take(future.result()):
                        self.client.cancel(futures[n + 1 :])
                        break
            else:
                for item in items:  # one at a time: one chunk held, then only its counts
                    if not take(function(item)):
                        break
        finally:
            _IN_MAP.reset(mapping)
            progress.close()
        return found

    def _forked(
        self,
        function: Callable[[Any], Any],
        items: Sequence[Any] | Callable[[], Sequence[Any]],
        take: Callable[[Any], bool],
        ready: Callable[[], object] | None,
        progress: Progress,
    ) -> None:
        """:meth:`map` on forked workers: what this process imported is there already, the
        items are small (paths and byte ranges) and each worker reads its own chunk.

        The workers are a :class:`concurrent.futures.ProcessPoolExecutor`, not a
        :class:`multiprocessing.pool.Pool`: a worker of a ``Pool`` that dies (the system's
        out-of-memory killer, a signal) is replaced and its item never comes back, so the map
        waited for it for ever (``tests/scale/test_pool.py`` shows it), and one that dies
        while it waits for an item leaves the lock of the pool's queue held, the other workers
        blocked on it.  Here a dead worker breaks the pool: the items whose results did not
        come back are scored in this process, in order, so the map ends with the same
        results.  Once every result is back, the workers of the command line's process
        (:attr:`own_process`) end while it reduces and reports (:func:`finish_workers`).

        This process scores items too, beside ``jobs - 1`` workers (:func:`_claimed`): while
        it waits for the next result, it takes the first item no worker has begun, so it
        begins scoring as soon as the workers are forked, its share of the results is neither
        pickled nor spooled, and what it does with the results as they come back (the rows
        stacked, the ids collected) takes its own core's time, not a worker's (a forked
        worker more beside it would share the cores with it: PubTator 10^5 documents, the
        parent's 0.12 s of CPU between the first and the last result).

        ``items`` made here (a function) are made once the workers are forked: each runs
        ``ready`` (imports what its items need, NumPy among them) while this process makes
        them, and is sent them pickled (a worker forked before they were made does not
        inherit them).  brat folders of 20,000 documents: the listing and the plan, 0.09 s
        of this process's CPU, and the imports, 0.08 s of each process's, ran one after the
        other before the fork; the worker now begins its first chunk when the plan is made."""
        import gc
        import multiprocessing
        import shutil
        import tempfile
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        from annoscore.scale.spool import spool_folder

        global _WORK
        finish_workers()  # a map's workers before: ended before these are forked
        context = multiprocessing.get_context("fork")
        stop = context.Event()  # set: the workers skip the items not yet begun
        spool = tempfile.mkdtemp(prefix="annoscore-", dir=spool_folder())
        plan = items if callable(items) else None
        made: Sequence[Any] = () if callable(items) else items
        _WORK = (function, made, stop, spool)  # inherited by the workers: not pickled
        frozen = _before_fork(numpy=plan is None)
        removed_later = False  # the folder: removed once the workers have ended
        try:
            # the workers are forked at the first submit, before the executor starts a thread
            pool = ProcessPoolExecutor(
                self.jobs - 1 if plan is not None else min(self.jobs - 1, len(made) - 1),
                mp_context=context,
                initializer=_worker_started,
                initargs=() if plan is None else (ready or _ready,),
            )
            done = False
            try:
                if plan is not None:
                    pool.submit(int)  # forks the workers (each gets ready: _worker_started)
                    made = plan()  # sent to the workers, forked before
                    progress.chunks = len(made)
                futures = [
                    pool.submit(_work, n) if plan is None else pool.submit(_work, n, item)
                    for n, item in enumerate(made)
                ]
                # the items scored in this process until their turn (or the error each raised,
                # raised in its turn: a map that stops before it does not raise it)
                here: dict[int, tuple[Any, Exception | None]] = {}
                after = 0  # no item before it is left to claim
                for n, future in enumerate(futures):
                    while n not in here and not future.done():
                        k = _claimed(spool, max(n, after), len(made))
                        if k < 0:  # every item begun: wait for the workers'
                            break
                        here[k], after = _scored(function, made[k]), k + 1
                    try:
                        if n in here:
                            part, error = here.pop(n)
                            if error is not None:
                                raise error
                        else:
                            part = _received(future.result())
                    except BrokenProcessPool:  # a worker died: this item scored here
                        part = function(made[n])
                    if not take(part):
                        # the chunks in flight end, the others are skipped
                        stop.set()
                        for waiting in futures[n + 1 :]:
                            waiting.cancel()
                        break
                else:
                    done = True
            except BaseException:
                stop.set()  # an interrupt: the workers begin no other item
                raise
            finally:
                # every result here, in the command line's process: the workers end while it
                # goes on, the thread that joins them waited for later (the executor forgets
                # it once shut down); elsewhere (a library's caller) they are waited for here
                # (the items this process scored are still queued for the worker: ``stop``
                # makes it skip them, and their folder is removed once it has ended, not
                # while it may still mark an item in it)
                later = done and self.own_process
                ending = getattr(pool, "_executor_manager_thread", None) if later else None
                if ending is not None:
                    stop.set()
                    pool.shutdown(wait=False, cancel_futures=True)
                    _ENDING.append((ending, spool))
                    removed_later = True
                else:
                    pool.shutdown(wait=True, cancel_futures=True)
        finally:
            _WORK = None
            if frozen:
                gc.unfreeze()
            if not removed_later:
                shutil.rmtree(spool, ignore_errors=True)


_ENDING: list[tuple[Any, str]] = []
"""The threads that end the workers of the maps whose results all came back (each executor's
own thread, which joins its workers: :func:`finish_workers`), each with its map's folder."""


def finish_workers() -> None:
    """Wait for the workers of the maps before to end (and their executors' threads).  In
    the command line's process, a map whose results all came back does not wait for its
    workers to exit (each gives back its memory, some hundredths of a second that the reduce
    and the report then overlap): the run's end (:func:`using`) waits, as does the next map,
    before it forks (no thread of an executor left running while a process is forked).  Then
    each map's folder is removed (its worker may mark an item there until it has ended)."""
    import shutil

    while _ENDING:
        ending, spool = _ENDING.pop()
        ending.join()
        shutil.rmtree(spool, ignore_errors=True)


def _before_fork(numpy: bool = True) -> bool:
    """Make what every worker would do alike once, here, before the workers are forked:
    import NumPy (every chunk and the reduce use it; imported in each worker, it cost each
    0.08 s of CPU and 1,700 page faults, and this process imports it for the reduce anyway),
    and move every object this process holds out of the garbage collector's generations
    (``gc.freeze``): a collection in a worker then never walks the inherited objects, whose
    pages would otherwise be copied into it (a write to each object's header) for nothing.
    :meth:`Run._forked` unfreezes them when the map is done.  Not when the process froze
    objects itself (an application that uses ``gc.freeze``: its own choice is kept); whether
    they were frozen here.  ``numpy``: whether to import it (not when each worker imports
    what it needs itself: :meth:`Run._forked`)."""
    import gc

    if numpy:
        import numpy as _  # noqa: F401  (imported for the workers: see above)

    if gc.get_freeze_count():
        return False
    gc.freeze()
    return True


_WORK: tuple[Callable[[Any], Any], Sequence[Any], Any, str] | None = None
"""The function and items of the running :meth:`Run.map`, the event that tells its forked
workers to skip the items left, and the folder where they leave their results
(:func:`_work`), as they inherit them."""


def cores_taken() -> bool:
    """Whether this process scores an item of a forked map beside other processes that score
    the others (a worker, or the parent, which scores items too: :meth:`Run._forked`): every
    core is taken, so a thread of its own would only take turns with them."""
    return _WORK is not None


def _worker_started(ready: Callable[[], object] | None = None) -> None:
    """In a new worker: the default signal handlers (the command line's, inherited, would
    report the pool's ending of a worker as an interruption), then ``ready``."""
    import signal

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)
    if ready is not None:
        ready()


def _ready() -> None:
    """What a worker forked before its items were made does first, unless told: import
    NumPy (every chunk uses it: :func:`_before_fork`)."""
    import numpy as _  # noqa: F401


def _work(n: int, *sent: Any) -> tuple[str, int, tuple[tuple[int, int], ...]] | bytes:
    """Item ``n`` of the running map (``sent``, or inherited), in a forked worker (``None``
    once the map stopped),
    pickled into a file of the map's folder, its arrays' bytes apart (:func:`_spooled`), and
    the file's path sent back with where its parts are: the parent maps the file and the
    arrays it unpickles are views of it (:func:`_received`), where a pipe passed the pickle
    64 KB at a time at a cost of CPU on both sides, and a read then an unpickling copied each
    array twice more into memory faulted in for it.  Sent pickled (the arrays inside) when
    the file cannot be written (a full ``/dev/shm``)."""
    import pickle

    assert _WORK is not None
    function, items, stop, spool = _WORK
    if stop.is_set() or _mark(spool, n) is False:  # skipped, or the parent scores it
        return pickle.dumps(None)
    result = function(sent[0] if sent else items[n])
    path = os.path.join(spool, f"{n}.pickle")
    try:
        return path, *_spooled(result, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return pickle.dumps(result, pickle.HIGHEST_PROTOCOL)


def _mark(spool: str, k: int) -> bool | None:
    """Mark item ``k`` of the map whose folder is ``spool`` begun by this process: whether it
    was not begun before (``None``: no mark can be made there, a full or removed folder).
    The mark is a file made only if it is not there (``O_EXCL``, atomic), so the parent and
    its workers never both score an item, and a worker that dies holds no lock (a shared
    lock held by a killed worker would block the others for ever)."""
    try:
        os.close(os.open(os.path.join(spool, f"{k}.begun"), os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return None
    return True


def _claimed(spool: str, start: int, stop: int) -> int:
    """The first item from ``start`` to ``stop`` that no process has begun, now marked begun
    by this one (:func:`_mark`); -1: none, or no mark can be made (the workers then score
    every item).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _claimed(folder, 0, 3), _claimed(folder, 0, 3), _claimed(folder, 1, 2)
    (0, 1, -1)
    >>> _claimed("/nonexistent/folder", 0, 3)
    -1
    """
    for k in range(start, stop):
        marked = _mark(spool, k)
        if marked is None:
            return -1
        if marked:
            return k
    return -1


def _scored(function: Callable[[Any], Any], item: Any) -> tuple[Any, Exception | None]:
    """``function(item)`` and ``None``, or ``None`` and the error it raised."""
    try:
        return function(item), None
    except Exception as error:
        return None, error


ALIGN = 64
"""Where each array's bytes begin in a spooled result (a multiple of it: aligned for NumPy)."""


def _spooled(result: Any, path: str) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Write ``result`` to ``path``: its pickle (protocol 5) with the bytes of its contiguous
    arrays left out of band, then each array's bytes at the next multiple of :data:`ALIGN`;
    the pickle's length and each array's (offset, length)."""
    import pickle

    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(result, 5, buffer_callback=buffers.append)
    places: list[tuple[int, int]] = []
    with open(path, "wb") as handle:
        handle.write(data)
        at = len(data)
        for buffer in buffers:
            raw = buffer.raw()
            pad = -at % ALIGN
            handle.write(bytes(pad))
            places.append((at + pad, raw.nbytes))
            handle.write(raw)
            at += pad + raw.nbytes
    return len(data), tuple(places)


def _received(sent: tuple[str, int, tuple[tuple[int, int], ...]] | bytes) -> Any:
    """The result :func:`_work` sent: its file mapped (private pages: an array of it may be
    written, the file is not) and removed, the pickle read from the mapping and its arrays
    made views of it (no copy); read into memory when it cannot be mapped."""
    import mmap
    import pickle

    if isinstance(sent, bytes):
        return pickle.loads(sent)
    path, size, places = sent
    with open(path, "rb") as handle:
        try:
            view = memoryview(
                mmap.mmap(
                    handle.fileno(),
                    0,
                    flags=mmap.MAP_PRIVATE,
                    prot=mmap.PROT_READ | mmap.PROT_WRITE,
                )
            )
        except (OSError, ValueError, AttributeError):  # no mmap here, or not of this file
            view = memoryview(bytearray(handle.read()))
    os.unlink(path)
    # each array holds its slice, which holds the mapping: unmapped when the last is freed
    return pickle.loads(view[:size], buffers=[view[at : at + length] for at, length in places])


SHOWN_BY: ContextVar[Callable[[str], None] | None] = ContextVar("annoscore_shown_by", default=None)
"""Where :class:`Progress` shows its line instead of writing it on standard error: the command
line's spinner (:func:`annoscore.cli.common.working_indicator`) sets it, so that one line shows
the run, not two drawing over each other; told ``""`` at the end (the spinner's own text)."""


_IN_MAP: ContextVar[bool] = ContextVar("annoscore_in_map", default=False)
"""Whether a :meth:`Run.map` is running in this context (its chunks scored here, or in a
worker forked from here): its own :class:`Progress` shows the run, :func:`counted` nothing."""


class Progress:
    """A progress line on standard error while chunks come back: documents done, rate and
    time left (by chunks), shown only on a terminal, not under ``CI``, and only once the run
    has taken :attr:`AFTER` seconds; erased at the end.  Beside the command line's spinner
    (:data:`SHOWN_BY`) it is the spinner's text instead, from the first chunk on.  A run not
    cut into chunks tells the same line, by documents, as its task counts them
    (:func:`counted`, :meth:`each`)."""

    AFTER = 2.0
    EVERY = 0.25
    """Seconds between two lines of :meth:`each` (the spinner is drawn 4 times a second)."""

    def __init__(self, chunks: int, unit: str = "documents") -> None:
        import sys
        import time

        self.chunks, self.finished, self.documents = chunks, 0, 0
        self.unit = unit  # what the line counts: documents, or the files a reader reads
        self.start = time.monotonic()
        self.shown = False
        stream = sys.stderr
        self.stream = stream
        self.on = (  # and more than one chunk (:attr:`chunks` may be set once they are made)
            stream is not None
            and stream.isatty()
            and not os.environ.get("CI")
            and os.environ.get("TERM") != "dumb"
        )

    def done(self, part: Any) -> None:
        """One more chunk back (its documents counted when it says how many)."""
        import time

        self.finished += 1
        self.documents += _documents_of(part)
        if not self.on or self.chunks <= 1:
            return
        elapsed = time.monotonic() - self.start
        show = SHOWN_BY.get()
        if show is not None:  # the spinner's text: from the first chunk on
            show(self.line(elapsed).rstrip())
            self.shown = True
            return
        if elapsed < self.AFTER:
            return
        self.shown = True
        self.stream.write("\r" + self.line(elapsed))
        self.stream.flush()

    def each(self, documents: Sequence[T]) -> Iterator[T]:
        """``documents``, one after the other, this progress line (:attr:`chunks`: their
        number, each one a chunk) told the spinner (:data:`SHOWN_BY`) after each document
        counted once :attr:`EVERY` seconds have gone since the last line, and ``""`` once
        they are all counted (or the count stopped): the clock read once a document, the
        line made 4 times a second at most."""
        import time

        show = SHOWN_BY.get()
        if show is None:  # no spinner: the line is for one only
            yield from documents
            return
        clock, every = time.monotonic, self.EVERY
        due = self.start + every
        try:
            for done, document in enumerate(documents, 1):
                yield document
                now = clock()
                if now >= due:
                    self.finished = self.documents = done
                    show(self.line(now - self.start).rstrip())
                    self.shown = True
                    due = now + every
        finally:
            self.close()

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
        return f"[{bar}]  {self.documents:,} {self.unit}, {rate:,.0f}/s, {left:,.0f} s left "

    def close(self) -> None:
        if not self.shown:
            return
        show = SHOWN_BY.get()
        if show is not None:
            show("")
            return
        self.stream.write("\r" + " " * 78 + "\r")
        self.stream.flush()


def counted(documents: Sequence[T], unit: str = "documents") -> Iterable[T]:
    """``documents`` as a run that is not cut into chunks counts them, one after the other
    (read -> align -> count, document by document): beside the command line's spinner on a
    terminal (:data:`SHOWN_BY`, :class:`Progress`'s own conditions), its progress line by
    documents (done, rate, time left: :meth:`Progress.each`); otherwise ``documents``
    themselves, nothing wrapped (a pipe, ``CI``, a library's call, a chunk of a
    :meth:`Run.map`, whose own line shows the run: :data:`_IN_MAP`).  ``unit``: what the
    line says they are (``"files read"``: a reader's files, given it by its caller, where
    reading is most of the run: :func:`files_read`).

    >>> counted(("a", "b"))  # no spinner here
    ('a', 'b')
    """
    if SHOWN_BY.get() is None or _IN_MAP.get() or len(documents) < 2:
        return documents
    progress = Progress(len(documents), unit)
    return progress.each(documents) if progress.on else documents


def files_read(files: Sequence[T]) -> Iterable[T]:
    """:func:`counted` of the files a reader parses one after the other, the line saying
    ``files read`` (the reader of a folder of brat files, given it by a task:
    :func:`annoscore.formats.brat.read_brat_corpus`'s ``each``)."""
    return counted(files, "files read")


def _documents_of(part: Any) -> int:
    result = getattr(part, "result", None)
    matrix = getattr(result, "matrix", None)
    return len(matrix.documents) if matrix is not None else 0


_SERIAL = Run()
_RUN: ContextVar[Run] = ContextVar("annoscore_run", default=_SERIAL)


@contextlib.contextmanager
def using(
    jobs: int = 1,
    client: Any = None,
    lists: bool = False,
    own_process: bool = False,
    documents: bool = True,
) -> Iterator[Run]:
    """Score with ``jobs`` processes (0: every core) or on a Dask ``client`` inside the block
    (``lists``, ``own_process``, ``documents``: :attr:`Run.lists`, :attr:`Run.own_process`,
    :attr:`Run.documents`)."""
    run = Run(resolve_jobs(jobs), client, lists, own_process, documents)
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)
        finish_workers()


@contextlib.contextmanager
def scaled(
    jobs: int = 1, dask: str | None = None, lists: bool = False, documents: bool = True
) -> Iterator[Run]:
    """:func:`using` ``jobs`` processes, or a Dask client of the scheduler at ``dask``
    (``"local"``: a :class:`distributed.LocalCluster` started and stopped here), imported only
    then (:mod:`annoscore.distributed`)."""
    if dask is None:
        with using(jobs, lists=lists, own_process=True, documents=documents) as run:
            yield run
        return
    from annoscore.distributed import connected

    with connected(dask) as client, using(1, client, lists, documents=documents) as run:
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

    if not sys.platform.startswith("linux") or allocator_chosen():
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mmap, trim = KEPT_MEMORY.values()
    return bool(mallopt(-3, mmap) and mallopt(-1, trim))  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


KEPT_MEMORY = {"MALLOC_MMAP_THRESHOLD_": 32 << 20, "MALLOC_TRIM_THRESHOLD_": 256 << 20}
"""glibc's thresholds of a process that scores chunks one after the other
(:func:`reuse_freed_memory`), as the environment variables that set them in a new process."""


def allocator_chosen() -> bool:
    """Whether the environment sets glibc's allocator (``MALLOC_*``, ``GLIBC_TUNABLES``): a
    choice annoscore then keeps."""
    return "GLIBC_TUNABLES" in os.environ or any(name.startswith("MALLOC_") for name in os.environ)


def current() -> Run:
    """The run in force (:func:`using`)."""
    return _RUN.get()
