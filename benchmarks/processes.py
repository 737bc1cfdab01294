"""One timed process, as every benchmark here times a command: files in, report out.

:func:`measured` starts the command, waits for it with ``os.wait4`` and returns its wall time,
its own CPU time (user + system) and its peak resident memory, with what it wrote on standard
output; a command that fails stops the benchmark with its exit status and the end of its
standard error.

The peak memory the system reports for a child starts from its parent's resident memory at the
moment the child was started (the high-water mark survives ``exec``): a benchmark that builds
large data in its own process starts its timed commands first, or from a small process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def annoscore_command() -> list[str]:
    """How a user starts annoscore: the ``annoscore`` command installed beside this Python (a
    console script, which imports the command line directly: about 20 ms less start-up than
    ``python -m annoscore``, whose ``runpy`` imports ``importlib``'s machinery first), or
    ``python -m annoscore`` where there is none."""
    script = Path(sys.executable).with_name("annoscore")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "annoscore"]


@dataclass(frozen=True)
class Measured:
    """What one process took: wall and CPU seconds, peak resident megabytes, its output."""

    seconds: float
    cpu: float
    peak_mb: float
    stdout: str


def measured(
    command: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Measured:
    """Run ``command`` to its end and measure it (see the module doc); ``SystemExit`` if it
    exits with a status other than 0.

    >>> import sys
    >>> m = measured([sys.executable, "-c", "print('hi')"])
    >>> m.stdout, m.seconds > 0, m.peak_mb > 0
    ('hi\\n', True, True)
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-5:]
            raise SystemExit(f"failed ({code}): {' '.join(command)}\n" + "\n".join(tail))
        out.seek(0)
        stdout = out.read().decode()
    return Measured(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout)


def best(call: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` calls in this process, in seconds (an in-memory figure)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)
