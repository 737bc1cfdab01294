"""Start-up stays cheap: the speed targets include interpreter start-up."""

from __future__ import annotations

import os
import subprocess
import sys


def test_cli_import_loads_neither_scipy_nor_numpy() -> None:
    code = (
        "import sys, annoscore.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'numpy'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", "imported at start-up; import it lazily where it is used"


def test_the_command_runs_openblas_with_one_thread_unless_told_otherwise() -> None:
    """NumPy's OpenBLAS would start a thread per core at import (about 0.06 s per process)."""
    code = (
        "import os, sys\n"
        "from annoscore.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stderr.strip() == "1"
    env["OPENBLAS_NUM_THREADS"] = "4"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stderr.strip() == "4"
