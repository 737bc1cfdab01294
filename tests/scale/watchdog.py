"""A time limit for tests whose runs fork worker pools: a forked pool once hung inside a test
(a worker blocked on the pool's queue lock, the test waiting for it forever: 23 minutes of a
run of the tag file cuts, 2026-11-30), so such a test fails after its limit instead of
holding the suite.  ``signal.alarm`` in the main thread (pytest's, and each pytest-xdist
worker's): its handler raises out of the wait for the workers.  The limit grows with
``ANNOSCORE_EQUIVALENCE_CASES``; where there is no ``SIGALRM`` the test runs without one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))

SECONDS = 900
"""The limit of one test at the default number of cases (the slowest of these takes under a
minute on a quiet machine, a few under load)."""


class TimedOut(Exception):
    """A test ran past its limit (:func:`limited`)."""


def limited(seconds: float = SECONDS) -> Iterator[None]:
    """The body of an autouse fixture: the test raises :class:`TimedOut` after ``seconds`` x
    the case multiplier."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return
    limit = max(1, int(seconds * max(1.0, MULTIPLIER)))

    def expired(number: int, frame: FrameType | None) -> None:
        raise TimedOut(f"the test ran past its limit of {limit} s (a forked pool hung?)")

    before = signal.signal(signal.SIGALRM, expired)
    signal.alarm(limit)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
