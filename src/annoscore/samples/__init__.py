"""Small sample data shipped inside the package, for ``annoscore demo`` and the tests.

See ``README.md`` in this folder for the source and licence of each sample.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent


def sample_path(*parts: str) -> Path:
    """The path of a shipped sample file or folder, e.g. ``sample_path("pharmaconer", "gold")``."""
    return SAMPLES.joinpath(*parts)
