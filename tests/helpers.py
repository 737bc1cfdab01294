"""Small helpers shared by the tests."""

from __future__ import annotations

from annoscore.result import Result


def texts(result: Result) -> list[str]:
    """The result's warnings as the sentences the user reads."""
    return [str(w) for w in result.warnings]
