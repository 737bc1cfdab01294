"""Fixtures of the scale tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import annoscore.scale as scale


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each cut run was combined (True) or scored again in one run (False)."""
    found: list[bool] = []
    original = scale.score_lines

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        found.append(result is not None)
        return result

    monkeypatch.setattr(scale, "score_lines", spy)
    yield found
