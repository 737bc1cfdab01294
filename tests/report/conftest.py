"""The report tests' headless Chromium: one launch per test process (a launch costs about a
second of CPU), each test's pages closed after it as a browser of its own would be."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.report.browser import launched_browser


@pytest.fixture(scope="session")
def _chromium() -> Iterator[Any]:
    yield from launched_browser()


class _TestsBrowser:
    """The session's browser as one test sees it: the pages and contexts it opens are closed
    when the test ends (each ``new_page`` has a context of its own)."""

    def __init__(self, launched: Any) -> None:
        self._launched = launched
        self._contexts: list[Any] = []

    def new_page(self, **options: Any) -> Any:
        page = self._launched.new_page(**options)
        self._contexts.append(page.context)
        return page

    def new_context(self, **options: Any) -> Any:
        context = self._launched.new_context(**options)
        self._contexts.append(context)
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._launched, name)

    def close_all(self) -> None:
        for context in self._contexts:
            context.close()  # a no-op for one the test closed itself


@pytest.fixture
def browser(_chromium: Any) -> Iterator[Any]:
    """Headless Chromium (tests/report/browser.py), shared by the session's tests."""
    opened = _TestsBrowser(_chromium)
    try:
        yield opened
    finally:
        opened.close_all()
