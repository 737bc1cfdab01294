"""The progress line of a run in chunks: on a terminal only, not under ``CI``, not in a pipe,
and only once the run has taken a couple of seconds."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from annoscore.scale import Part, Progress, Run


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Matrix:
    def __init__(self, n: int) -> None:
        self.documents = tuple(str(k) for k in range(n))


class Rows:
    def __init__(self, n: int) -> None:
        self.matrix = Matrix(n)


def _parts(n: int) -> list[Part]:
    return [Part(Rows(n), ()) for _ in range(4)]  # type: ignore[arg-type]


def _shown(stream: io.StringIO, jobs: int, n: int) -> str:
    """What a map of 4 chunks of ``n`` documents writes on standard error (set here, in the
    test's own phase: pytest sets its capture again when a test starts)."""
    with contextlib.redirect_stderr(stream):
        Run(jobs).map(lambda part: part, _parts(n))
    return stream.getvalue()


@pytest.fixture(autouse=True)
def _terminal_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(Progress, "AFTER", 0.0)


def test_a_terminal_shows_documents_rate_and_time_left_then_erases_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for jobs in (1, 2):
        shown = _shown(Terminal(), jobs, 250)
        assert "1,000 documents" in shown and "/s" in shown and "s left" in shown
        assert "[##########" in shown
        assert shown.endswith("\r" + " " * 78 + "\r")


def test_nothing_under_ci_or_before_the_first_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert _shown(Terminal(), 2, 10) == ""
    monkeypatch.delenv("CI")
    monkeypatch.setattr(Progress, "AFTER", 3600.0)
    assert _shown(Terminal(), 2, 10) == ""


def test_nothing_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _shown(io.StringIO(), 2, 10) == ""  # not a terminal


def test_a_command_in_a_pipe_writes_on_standard_error_what_one_job_writes() -> None:
    from annoscore.tasks.registry import TASKS, sample_paths

    gold, system, _ = sample_paths(TASKS["spans"])
    args = [sys.executable, "-m", "annoscore", "spans", str(gold), str(system)]
    one = subprocess.run(args, capture_output=True, text=True, check=True)
    two = subprocess.run([*args, "-j", "2"], capture_output=True, text=True, check=True)
    assert (two.stdout, two.stderr) == (one.stdout, one.stderr)
