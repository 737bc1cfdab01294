"""Start-up stays cheap: the speed targets include interpreter start-up."""

from __future__ import annotations

import subprocess
import sys


def test_cli_import_does_not_load_scipy() -> None:
    code = (
        "import sys, annoscore.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", "scipy is imported at start-up; import it lazily"
