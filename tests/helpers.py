"""Small helpers shared by the tests."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from annoscore.result import Result


def texts(result: Result) -> list[str]:
    """The result's warnings as the sentences the user reads."""
    return [str(w) for w in result.warnings]


def built_once(
    factory: pytest.TempPathFactory, name: str, build: Callable[[Path], str]
) -> tuple[Path, str]:
    """An empty folder ``name`` filled by ``build(folder)``, and the text ``build`` returned.

    Under pytest-xdist the workers of one run share it: the first worker to ask builds it while
    holding a lock, the others wait for it and reuse it (a module fixture would build it once
    in each worker that runs one of the module's tests).  A build that failed leaves nothing to
    reuse: the next worker to ask builds it again (and fails the same way).  Without xdist it is
    built in a folder of its own on each call.  Nothing may change the folder once it is built:
    a test that changes it copies it first."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = factory.mktemp(name)
        return folder, build(folder)
    shared = factory.getbasetemp().parent / "built-once"  # one folder per run, not per worker
    shared.mkdir(exist_ok=True)
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        folder, done = shared / name, shared / f"{name}.done"
        if not done.exists():
            if folder.exists():  # left half built by a worker whose build failed
                shutil.rmtree(folder)
            folder.mkdir()
            done.write_text(build(folder), encoding="utf-8")
        return folder, done.read_text(encoding="utf-8")
