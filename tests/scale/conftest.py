"""The time limit of every test here (:mod:`tests.scale.watchdog`): many fork worker pools, and
a forked pool once hung; such a test fails after its limit instead of holding the suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.scale.watchdog import limited


@pytest.fixture(autouse=True)
def _time_limit() -> Iterator[None]:
    yield from limited()
