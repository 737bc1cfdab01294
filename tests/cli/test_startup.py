"""Start-up stays cheap: the speed targets include interpreter start-up."""

from __future__ import annotations

import subprocess
import sys


def test_cli_import_loads_neither_scipy_nor_numpy() -> None:
    code = (
        "import sys, annoscore.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'numpy'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", "imported at start-up; import it lazily where it is used"
