"""Headless Chromium for the report tests, driven by Playwright for Python.

The browser is Debian's ``chromium`` (no download: ``executable_path``); ``ANNOSCORE_CHROMIUM``
names another.  Without a browser (or without Playwright) the tests are skipped with that
reason; under ``CI=true`` a missing browser fails instead, so CI cannot pass without running
them.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "chromium", "chromium-browser")


def chromium_path() -> str | None:
    """The Chromium executable to drive, or ``None``."""
    given = os.environ.get("ANNOSCORE_CHROMIUM")
    for candidate in (given,) if given else CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: CI must run the browser tests (.ci/run installs chromium)")
    pytest.skip(reason)


def launched_browser() -> Iterator[Any]:
    """One headless Chromium: the session fixture ``browser`` of ``tests/conftest.py``
    (one launch per test process, not one per module)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install -e '.[test]')")
    path = chromium_path()
    if path is None:
        _missing("no Chromium found (apt-get install chromium, or set ANNOSCORE_CHROMIUM)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


class Opened:
    """A report opened in the browser: its page, and the console errors and page errors seen."""

    def __init__(self, page: Any, errors: list[str]) -> None:
        self.page = page
        self.errors = errors

    def data(self, element: str = "annoscore-result") -> Any:
        """The JSON embedded in the element ``element`` (by default the result), read from
        the rendered page."""
        return json.loads(self.page.eval_on_selector(f"#{element}", "e => e.textContent"))

    def numbers(self) -> list[tuple[list[str], str, str | None]]:
        """Every number shown with a JSON path: (path, text shown, title)."""
        rows = self.page.eval_on_selector_all(
            "[data-path]",
            "es => es.map(e => [e.getAttribute('data-path'), e.textContent, e.title || null])",
        )
        return [(json.loads(p), text, title) for p, text, title in rows]


def open_report(browser: Any, path: Path, width: int = 1280) -> Opened:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))

    def local_only(route: Any) -> None:
        if route.request.url.startswith(("file://", "data:", "about:")):
            route.continue_()
        else:
            errors.append(f"network: {route.request.url}")
            route.abort()

    page.route("**/*", local_only)
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("html[data-ready='1']", timeout=10_000)
    return Opened(page, errors)


def at(data: Any, path: list[str]) -> Any:
    """The value of ``data`` at ``path`` (list positions given as text)."""
    for key in path:
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def check_number(value: Any, shown: str, title: str | None) -> None:
    """``shown`` is ``value`` as the page formats it: ``-`` for null, whole numbers exact,
    other numbers to 4 decimals (within half a unit of the last place) and exact in ``title``."""
    if value is None:
        assert shown == "-"
        return
    assert isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(value, int) or (float(value).is_integer() and "." not in shown):
        assert float(shown) == value, (shown, value)
    else:
        assert len(shown.split(".")[1]) == 4, shown
        assert abs(float(shown) - value) <= 0.5e-4 + 1e-12, (shown, value)
    assert title is not None and float(title) == value, (title, value)
