"""The time limit of the tests that fork worker pools (:mod:`tests.scale.watchdog`): a wait
for a child that never ends raises once the limit is past, and the alarm is cleared after."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from tests.scale import watchdog


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_wait_for_a_hung_child_raises_after_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchdog, "MULTIPLIER", 1.0)
    child = os.fork()
    if child == 0:  # a worker that never ends
        time.sleep(60)
        os._exit(0)
    start = time.monotonic()
    limit = watchdog.limited(1)
    try:
        next(limit)
        with pytest.raises(watchdog.TimedOut):
            os.waitpid(child, 0)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        with pytest.raises(StopIteration):
            next(limit)
    assert time.monotonic() - start < 30
    if sys.platform != "win32":
        assert signal.alarm(0) == 0  # cleared
