"""The forked workers of ``--jobs`` (:meth:`annoscore.scale.run.Run.map`): a worker that dies
does not hang the map, and the workers of a map are ended by the end of the run.

A ``multiprocessing.Pool`` (what the map used before) waits for ever for the item of a worker
that died: the pool replaces the worker, but the item is lost (the test below shows it on a
child process, stopped after a few seconds).  A pool worker blocked for 23 minutes on the
pool's queue lock, the test waiting for it, was seen once under load 19; the machine's kernel
log shows its out-of-memory killer ending processes that day.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import annoscore.scale as scale
from annoscore.scale import run as run_module

_PARENT = os.getpid()


def _square_or_die(n: int) -> int:
    """``n * n``; item 3 kills the worker scoring it (not this process)."""
    if n == 3 and os.getpid() != _PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.01)
    return n * n


def test_a_worker_that_dies_does_not_hang_the_map_and_its_items_are_scored_here() -> None:
    started = time.monotonic()
    assert scale.Run(jobs=2).map(_square_or_die, range(10)) == [n * n for n in range(10)]
    assert time.monotonic() - started < 120


def test_a_map_with_until_stops_and_a_dead_worker_changes_nothing() -> None:
    found = scale.Run(jobs=2).map(_square_or_die, range(10), until=lambda part: part >= 25)
    assert found == [0, 1, 4, 9, 16]


def _double(n: int) -> int:
    return 2 * n


def test_the_workers_of_a_map_are_ended_by_the_end_of_the_run() -> None:
    """The command line's run (its workers end while it reports) and a library's."""
    for own_process in (True, False):
        with scale.using(jobs=2, own_process=own_process) as run:
            assert run.map(_double, range(6)) == [0, 2, 4, 6, 8, 10]
            assert len(run_module._ENDING) == own_process
        assert not run_module._ENDING
        assert not multiprocessing.active_children()


def test_a_map_ends_the_workers_of_the_map_before_it_before_it_forks() -> None:
    first = scale.Run(jobs=2, own_process=True)
    assert first.map(_double, range(4)) == [0, 2, 4, 6]
    assert scale.Run(jobs=2, own_process=True).map(_double, range(5)) == [0, 2, 4, 6, 8]
    assert len(run_module._ENDING) <= 1  # only the last map's, still ending
    run_module.finish_workers()
    assert not run_module._ENDING and not multiprocessing.active_children()


def test_a_multiprocessing_pool_waits_for_ever_for_the_item_of_a_worker_that_died() -> None:
    """Why the map does not use ``multiprocessing.Pool`` (in a child process, stopped)."""
    code = textwrap.dedent(
        """
        import multiprocessing, os, signal, sys
        def work(n):
            if n == 1:
                os.kill(os.getpid(), signal.SIGKILL)
            return n
        pool = multiprocessing.get_context("fork").Pool(2)
        print(list(pool.imap(work, range(4))), flush=True)
        """
    )
    child = subprocess.Popen(  # its own process group: its pool's workers are ended with it
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        child.wait(timeout=5)
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    assert hung


_WORKER_BEGAN = multiprocessing.get_context("fork").Event()
"""Set by a worker as it begins an item (forked workers inherit it)."""


def _noted(folder: str, n: int) -> tuple[int, int]:
    """``n * n`` and the process that scored it, noted in a file of ``folder`` per item; this
    process waits until a worker has begun one (under load, a worker may start late)."""
    with open(os.path.join(folder, f"{n}.{os.getpid()}"), "x"):
        pass
    if os.getpid() == _PARENT:
        _WORKER_BEGAN.wait(60)
    else:
        _WORKER_BEGAN.set()
    time.sleep(0.05)
    return n * n, os.getpid()


def test_the_parent_scores_items_beside_its_workers_each_item_once_in_order(tmp_path) -> None:
    """With ``jobs=2`` one worker is forked and this process scores the items no worker has
    begun while it waits: every item is scored once, by one process, the results in order."""
    import functools

    _WORKER_BEGAN.clear()
    found = scale.Run(jobs=2).map(functools.partial(_noted, str(tmp_path)), range(12))
    assert [square for square, _ in found] == [n * n for n in range(12)]
    notes = sorted(p.name for p in tmp_path.iterdir())
    assert sorted(f"{n}.{pid}" for n, (_, pid) in enumerate(found)) == notes  # once each
    scorers = {pid for _, pid in found}
    assert _PARENT in scorers and len(scorers) == 2


_FOLDERS: list[str] = []
"""The folders of the maps :func:`_slow_in_the_worker` was scored in (by this process)."""


def _slow_in_the_worker(folder: str, n: int) -> tuple[int, int]:
    """``n * n`` and the process that scored it, noted as :func:`_noted` does; a worker's
    item takes 0.5 s, so this process scores every item after it meanwhile."""
    with open(os.path.join(folder, f"{n}.{os.getpid()}"), "x"):
        pass
    if os.getpid() == _PARENT:
        _WORKER_BEGAN.wait(60)
        if run_module._WORK is not None:
            _FOLDERS.append(run_module._WORK[3])
    else:
        _WORKER_BEGAN.set()
        time.sleep(0.5)
    return n * n, os.getpid()


def test_the_items_the_parent_scored_are_not_scored_again_after_the_map(tmp_path) -> None:
    """In the command line's process (``own_process``) a map whose results all came back
    does not wait for its worker to end, though the items this process scored are still
    queued for it: the worker skips them, and the map's folder is removed once the worker
    has ended.  (Removed at once, a worker that then tried to mark such an item found no
    folder, scored the item again, and could leave the folder behind, marked, in
    ``/dev/shm``.)"""
    import functools

    _WORKER_BEGAN.clear()
    _FOLDERS.clear()
    with run_module.using(jobs=2, own_process=True) as run:
        found = run.map(functools.partial(_slow_in_the_worker, str(tmp_path)), range(12))
        time.sleep(0.3)  # the worker goes through the items left in its queue
    assert [square for square, _ in found] == [n * n for n in range(12)]
    notes = sorted(p.name for p in tmp_path.iterdir())
    assert sorted(f"{n}.{pid}" for n, (_, pid) in enumerate(found)) == notes  # once each
    assert _PARENT in {pid for _, pid in found} and len({pid for _, pid in found}) == 2
    assert _FOLDERS and not any(os.path.exists(folder) for folder in _FOLDERS)


def _square_or_die_in_a_worker(n: int) -> int:
    """``n * n``; any worker that scores an item dies (this process does not)."""
    if os.getpid() != _PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.02)
    return n * n


def test_a_worker_dying_on_its_first_item_leaves_every_item_to_the_parent() -> None:
    assert scale.Run(jobs=2).map(_square_or_die_in_a_worker, range(8)) == [n * n for n in range(8)]


def _square_or_raise(n: int) -> int:
    if n == 4:
        raise ValueError("item 4")
    time.sleep(0.02)
    return n * n


def test_an_error_is_raised_in_its_turn_whichever_process_scored_it() -> None:
    """The parent may score item 4 before items 0-3 come back: its error waits for its turn, so
    a map that stops before it returns the items before, as when a worker raised it."""
    for _ in range(3):
        found = scale.Run(jobs=2).map(_square_or_raise, range(8), until=lambda part: part >= 9)
        assert found == [0, 1, 4]
        try:
            scale.Run(jobs=2).map(_square_or_raise, range(8))
        except ValueError as error:
            assert str(error) == "item 4"
        else:
            raise AssertionError("item 4's error was not raised")


_READY: list[int] = []
"""The processes that ran :func:`_get_ready` (in a worker: its own pid)."""


def _get_ready() -> None:
    _READY.append(os.getpid())


def _scored_where(item: str) -> tuple[str, int, bool]:
    time.sleep(0.02)
    return item, os.getpid(), os.getpid() in _READY


def test_items_made_once_the_workers_are_forked_are_sent_to_them_ready() -> None:
    """A map of a plan (``items`` a function): the workers are forked before it is made, each
    runs ``ready`` first, and scores items it could not inherit (a token made after the fork);
    the results come back in the items' order.  A plan of no items maps nothing."""
    made: list[str] = []

    def plan() -> list[str]:
        made[:] = [f"{os.urandom(4).hex()}-{n}" for n in range(20)]
        return made

    for jobs in (2, 3):
        found = scale.Run(jobs=jobs).map(_scored_where, plan, ready=_get_ready)
        assert [item for item, _, _ in found] == made
        assert {pid for _, pid, _ in found} - {_PARENT}  # a worker scored some
        assert all(ready == (pid != _PARENT) for _, pid, ready in found)
    assert not _READY  # never run in this process
    assert scale.Run(jobs=2).map(_double, list) == []
    assert scale.Run(jobs=1).map(_double, lambda: [1, 2]) == [2, 4]
    assert not multiprocessing.active_children()
