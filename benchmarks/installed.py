"""The environment a timed ``annoscore`` process runs in: from compiled bytecode, as installed.

``pip install`` compiles a package's modules to bytecode, and the peers timed here were installed
that way.  This checkout is installed editable, and this machine sets
``PYTHONDONTWRITEBYTECODE=1``, so without help every ``annoscore`` process would compile each
module it imports again (about 0.05 s per process).  :func:`environment` compiles the package
once into a scratch folder (``PYTHONPYCACHEPREFIX``; the checkout is not written to) and returns
the environment that makes a process use it.  ``--no-bytecode`` in a benchmark times the
environment as given instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "annoscore"
BYTECODE = Path(tempfile.gettempdir()) / f"annoscore-bench-bytecode-{os.getuid()}"


def environment(bytecode: bool = True) -> dict[str, str]:
    """``os.environ`` for an ``annoscore`` process, with its bytecode compiled and cached."""
    env = dict(os.environ)
    if not bytecode:
        return env
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(BYTECODE)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(PACKAGE)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return env
