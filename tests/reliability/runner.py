"""Run the ``annoscore`` command many times, quickly, as real processes with limits.

A *fork server* (one child Python process that has imported annoscore and every command once)
forks a process per run, so each run costs milliseconds instead of an interpreter start-up, yet
is a process of its own: its exit status, its standard output and error as bytes, the time it
took, its peak memory, and limits that cannot leak into the test run:

- memory: ``resource.setrlimit(RLIMIT_AS)`` in the child (:data:`MEMORY_LIMIT`, 1 GiB of
  address space: a run that needs more fails, which the fuzzer reports);
- time: the child (and anything it started: its own process group) is killed after
  ``timeout`` seconds and reported ``timed_out``.

Inputs can be pipes: ``feeds`` maps a descriptor number to bytes that a thread of the server
writes into a pipe the child has open at that number (the child names it ``/dev/fd/N``, as a
shell's ``<(...)`` does), then closes.  ``fifos`` maps the path of a FIFO to bytes a thread
writes into it once, when the run opens it for reading (a run that opens it a second time waits
for a writer that never comes, as it would with ``mkfifo`` and one ``cat > fifo``).

The protocol is one JSON object a line on the server's standard input and output; the child's
output goes to files, never to the protocol's pipe.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEMORY_LIMIT = 1 << 30
"""Address space of one run at most (1 GiB; the server's own imports take about 150 MB)."""

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    """What one run did."""

    status: int
    """Exit status; ``-N`` if killed by signal ``N`` (a timeout kills with SIGKILL)."""
    stdout: bytes
    stderr: bytes
    seconds: float
    peak_kb: int
    """The child's peak resident memory (``ru_maxrss``), the server's shared pages included."""
    timed_out: bool

    @property
    def messages(self) -> list[str]:
        return self.stderr.decode("utf-8", "replace").splitlines()


def _preload() -> None:
    """Import everything a command needs, so that forks start warm."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import importlib
    import pkgutil

    import numpy  # noqa: F401

    import annoscore

    for module in pkgutil.walk_packages(annoscore.__path__, "annoscore."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    for slow in ("nltk.tokenize", "scipy.sparse.csgraph", "scipy.optimize"):  # imported lazily
        with contextlib.suppress(ImportError):
            importlib.import_module(slow)


def _child(request: dict[str, Any], out: int, err: int, feeds: dict[int, int]) -> None:
    """In the forked child: limits, descriptors, then the console script; never returns."""
    import io
    import resource
    import traceback

    status = 1
    try:
        os.setpgid(0, 0)
        limit = int(request.get("memory", MEMORY_LIMIT))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.chdir(request.get("cwd") or ".")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for target, source in feeds.items():
            os.dup2(source, target)
            os.set_inheritable(target, True)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "rb", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "wb", closefd=False), write_through=False)
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "wb", closefd=False), errors="backslashreplace", line_buffering=True
        )
        for name, value in request.get("env", {}).items():
            os.environ[name] = value
        from annoscore.cli import main

        try:
            main(request["argv"])
            status = 0
        except SystemExit as done:
            status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # what Python would report at exit: a failed final flush
                status = 120 if status == 0 else status
    except BaseException:
        try:
            sys.stderr.write(traceback.format_exc())
            sys.stderr.flush()
        except BaseException:
            pass
        status = 1
    os._exit(status)


def _feed(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:  # the reader went away: what a pipe's writer sees
        pass
    finally:
        os.close(fd)


def _feed_fifo(path: str, data: bytes, ended: threading.Event) -> None:
    """Write ``data`` into the FIFO ``path`` once its reader opens it (never, if the run ends
    first)."""
    while not ended.is_set():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader yet
            time.sleep(0.002)
            continue
        os.set_blocking(fd, True)
        _feed(fd, data)
        return


def _run_one(request: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        feeds: dict[int, int] = {}
        writers: list[tuple[int, bytes]] = []
        for number, text in request.get("feeds", {}).items():
            read, write = os.pipe()
            feeds[int(number)] = read
            writers.append((write, base64.b64decode(text)))
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            for write, _ in writers:
                os.close(write)
            _child(request, out_file.fileno(), err_file.fileno(), feeds)
        for read in feeds.values():
            os.close(read)
        threads = [threading.Thread(target=_feed, args=w, daemon=True) for w in writers]
        ended = threading.Event()
        threads += [
            threading.Thread(
                target=_feed_fifo, args=(path, base64.b64decode(text), ended), daemon=True
            )
            for path, text in request.get("fifos", {}).items()
        ]
        for thread in threads:
            thread.start()
        deadline = started + float(request.get("timeout", 20.0))
        timed_out = False
        pause = 0.0005
        while True:
            done, wait_status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                timed_out = True
                try:
                    os.killpg(pid, 9)
                except OSError:
                    os.kill(pid, 9)
                done, wait_status, usage = os.wait4(pid, 0)
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.01)
        seconds = time.monotonic() - started
        ended.set()
        with contextlib.suppress(OSError):  # anything the run left behind in its group
            os.killpg(pid, 9)
        for thread in threads:
            thread.join(1.0)
        out_file.seek(0)
        err_file.seek(0)
        status = os.waitstatus_to_exitcode(wait_status)
        return {
            "status": status,
            "stdout": base64.b64encode(out_file.read()).decode(),
            "stderr": base64.b64encode(err_file.read()).decode(),
            "seconds": seconds,
            "peak_kb": usage.ru_maxrss,
            "timed_out": timed_out,
        }


def serve() -> None:
    """The fork server's loop: a request a line in, a result a line out."""
    _preload()
    channel_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    channel_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a stray print goes to the test's error output, not into the protocol
    for line in channel_in:
        if not line.strip():
            continue
        channel_out.write(json.dumps(_run_one(json.loads(line))) + "\n")
        channel_out.flush()


class Runner:
    """A fork server and the runs it makes (see the module doc).  Start it with ``with``."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Runner:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        env.pop("ANNOSCORE_DEBUG", None)
        env["OPENBLAS_NUM_THREADS"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from tests.reliability.runner import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        return self

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __call__(
        self,
        *argv: object,
        cwd: Path | None = None,
        feeds: dict[int, bytes] | None = None,
        fifos: dict[Path, bytes] | None = None,
        timeout: float = 20.0,
        memory: int = MEMORY_LIMIT,
        env: dict[str, str] | None = None,
    ) -> Outcome:
        """Run ``annoscore ARGV`` (``feeds``: pipes at those descriptors, ``fifos``: FIFOs
        written once; see the module doc)."""
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        request = {
            "argv": [str(a) for a in argv],
            "cwd": str(cwd) if cwd is not None else None,
            "feeds": {str(k): base64.b64encode(v).decode() for k, v in (feeds or {}).items()},
            "fifos": {str(k): base64.b64encode(v).decode() for k, v in (fifos or {}).items()},
            "timeout": timeout,
            "memory": memory,
            "env": env or {},
        }
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("the fork server ended")
        data = json.loads(line)
        return Outcome(
            data["status"],
            base64.b64decode(data["stdout"]),
            base64.b64decode(data["stderr"]),
            data["seconds"],
            data["peak_kb"],
            data["timed_out"],
        )
