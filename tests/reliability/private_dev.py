"""Run ``annoscore`` against device nodes and a full disk without touching the machine's own.

:func:`run_private` starts this module under ``unshare -m --propagation private`` (root only): in
that private mount namespace a tmpfs is mounted over ``/dev`` with its own ``null``, ``full``,
``zero``, ``urandom`` nodes and ``fd``, ``stdin``, ``stdout``, ``stderr`` links, and a small tmpfs
(a disk that fills up) where asked.  The machine's ``/dev`` is never written: whatever a run does
to a node happens to the copy, which disappears with the namespace.  ``/dev`` can be made
read-only after the nodes are made: then no file can be created in it, as for a normal user.

Each run gives its exit status, its standard output (a pipe), its standard error, and what
``/dev`` holds afterwards (``char 1:3``, ``link -> /proc/self/fd/1``, ``file``...).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}
LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
}


def describe(path: Path) -> str:
    """What ``path`` is: ``char MAJOR:MINOR``, ``link -> TARGET``, ``file``, ``folder``..."""
    try:
        info = path.lstat()
    except OSError:
        return "missing"
    if stat.S_ISLNK(info.st_mode):
        return f"link -> {os.readlink(path)}"
    if stat.S_ISCHR(info.st_mode):
        return f"char {os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    if stat.S_ISFIFO(info.st_mode):
        return "fifo"
    return "file"


def _private_dev(read_only: bool) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755,size=1m", "tmpfs", "/dev"], check=True)
    for name, (major, minor) in NODES.items():
        os.mknod(f"/dev/{name}", 0o666 | stat.S_IFCHR, os.makedev(major, minor))
    for name, target in LINKS.items():
        os.symlink(target, f"/dev/{name}")
    if read_only:
        subprocess.run(["mount", "-o", "remount,ro", "/dev"], check=True)


def _run(run: dict[str, Any]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("ANNOSCORE_DEBUG", None)
    command = [sys.executable, "-m", "annoscore", *run["argv"]]
    stdout: Any = subprocess.PIPE
    target = run.get("stdout")
    if target is not None:  # a file (appended to with "append") or a device
        stdout = open(target, "ab" if run.get("append") else "wb")  # noqa: SIM115
    try:
        done = subprocess.run(
            command, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=run.get("cwd"), timeout=60
        )
    finally:
        if target is not None:
            stdout.close()
    return {
        "status": done.returncode,
        "stdout": (done.stdout or b"").decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
        "dev": {p.name: describe(p) for p in sorted(Path("/dev").iterdir())},
    }


def main() -> None:
    """In the namespace: ``python -m tests.reliability.private_dev REQUEST RESULT``."""
    request = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    _private_dev(request.get("read_only", False))
    small = request.get("small")
    if small is not None:  # a disk with a few kilobytes free
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={request['small_size']}", "tmpfs", small],
            check=True,
        )
        Path(small, "filler").write_bytes(b"\0" * request.get("fill", 0))
    results = []
    for run in request["runs"]:
        result = _run(run)
        if small is not None:
            result["small"] = sorted(p.name for p in Path(small).iterdir())
        results.append(result)
    Path(sys.argv[2]).write_text(json.dumps(results), encoding="utf-8")


def run_private(
    folder: Path,
    runs: list[dict[str, Any]],
    *,
    read_only: bool = False,
    small: Path | None = None,
    small_size: str = "64k",
    fill: int = 0,
) -> list[dict[str, Any]]:
    """Do ``runs`` in a private mount namespace (see the module doc); skip the test when that
    cannot be had (not root, no ``unshare``)."""
    if os.geteuid() != 0:
        pytest.skip("device nodes and a full disk need root: a private mount namespace")
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("device nodes and a full disk need unshare(1) and mount(8)")
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "true"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr.decode().strip()}")
    request = folder / "request.json"
    result = folder / "result.json"
    if small is not None:
        small.mkdir(exist_ok=True)
    request.write_text(
        json.dumps(
            {
                "runs": runs,
                "read_only": read_only,
                "small": None if small is None else str(small),
                "small_size": small_size,
                "fill": fill,
            }
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [
            *("unshare", "-m", "--propagation", "private", sys.executable, "-m"),
            __name__,
            str(request),
            str(result),
        ],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    data: list[dict[str, Any]] = json.loads(result.read_text(encoding="utf-8"))
    return data


if __name__ == "__main__":
    main()
