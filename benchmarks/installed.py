"""Timed ``annoscore`` processes run from compiled bytecode, as an installed package does.

``pip install`` compiles a package's modules to bytecode, and the peers timed here were installed
that way.  This checkout is installed editable, and this machine sets
``PYTHONDONTWRITEBYTECODE=1``, so without help every ``annoscore`` process would compile each
module it imports again (about 0.05 s per process).  :func:`compile_package` writes the
bytecode next to the sources (``__pycache__``, ignored by git), once per benchmark run; Python
reads it whatever ``PYTHONDONTWRITEBYTECODE`` says, and ignores it for a source changed since.
A benchmark's ``--no-bytecode`` removes it instead, to time the environment as given.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "annoscore"


def compile_package(bytecode: bool = True) -> None:
    """Compile annoscore's modules to bytecode (or, with ``bytecode=False``, remove it)."""
    if not bytecode:
        for folder in PACKAGE.rglob("__pycache__"):
            shutil.rmtree(folder)
        return
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(PACKAGE)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
