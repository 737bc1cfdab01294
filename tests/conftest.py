"""Shared fixtures: where the conformance data lives, a CLI runner, and headless Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from annoscore.cli import app

# No per-example deadline: a property's examples are checked for what they compute, and a
# loaded machine (CI, parallel jobs) makes wall-clock deadlines fail at random.
settings.register_profile("annoscore", deadline=None)
settings.load_profile("annoscore")


def pytest_configure(config: pytest.Config) -> None:
    """Compile annoscore's modules to bytecode once, in the process that starts the run (not in
    each pytest-xdist worker), before any test runs: the many tests that run ``python -m
    annoscore`` as a process then load them instead of compiling each module again, which
    halves such a process's CPU (0.22 -> 0.11 s for a PharmaCoNER sample) where the environment
    sets ``PYTHONDONTWRITEBYTECODE`` (a process then never writes what it compiled).  Where
    the package's folder cannot be written, nothing is compiled and nothing is said."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    import annoscore

    compileall.compile_dir(Path(annoscore.__file__).parent, quiet=2, workers=1)


SHARED = Path(__file__).resolve().parents[2] / "shared"
SHARED_DATA = SHARED / "data"


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data; skips the test (with the reason) when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"conformance data not found at {path} (../shared beside the checkout)")
    return path


class Cli:
    """Run ``annoscore`` in-process; ``.json(...)`` parses the JSON output."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: object) -> Any:
        return self.runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    def json(self, *args: object) -> dict[str, Any]:
        result = self(*args, "--format", "json")
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each run cut into chunks of lines (:mod:`annoscore.scale`) was combined (True)
    or scored again in one run (False)."""
    import annoscore.scale as scale

    yield _results_given(monkeypatch, scale, "score_lines")


@pytest.fixture
def combined(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each run cut into folder chunks (:mod:`annoscore.scale.folders`) was combined
    (True) or left to one run (False)."""
    import annoscore.scale.reduce as reduce

    return _results_given(monkeypatch, reduce, "combine")


def _results_given(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[bool]:
    """Whether each call of ``module.name`` (a spy in its place) gave a result (not None)."""
    found: list[bool] = []
    original = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        found.append(result is not None)
        return result

    monkeypatch.setattr(module, name, spy)
    return found


@pytest.fixture(scope="session")
def _chromium() -> Iterator[Any]:
    """One headless Chromium for the test process (a launch costs about a second of CPU): a
    second Playwright beside it in the same process fails, so every browser test shares it."""
    from tests.report.browser import launched_browser

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
    """Headless Chromium (tests/report/browser.py), shared by the session's tests; the pages
    and contexts a test opens are closed after it, as a browser of its own would be."""
    opened = _TestsBrowser(_chromium)
    try:
        yield opened
    finally:
        opened.close_all()
