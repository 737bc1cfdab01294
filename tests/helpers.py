"""Small helpers shared by the tests."""

from __future__ import annotations

from annoscore.report.generic import warning_text
from annoscore.result import Result


def texts(result: Result) -> list[str]:
    """The result's warnings as the sentences the user reads."""
    return [warning_text(w) for w in result.warnings]
