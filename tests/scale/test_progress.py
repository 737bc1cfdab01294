"""The progress line of a run in chunks: on a terminal only, not under ``CI``, not in a pipe,
and only once the run has taken a couple of seconds."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

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


def test_beside_the_spinner_the_line_is_its_text_not_a_second_line() -> None:
    """The command line's spinner (:func:`annoscore.cli.common.working_indicator`) shows the
    progress line as its text, so the two do not draw over each other; its own text again at
    the end."""
    from annoscore.scale.run import SHOWN_BY

    told: list[str] = []
    token = SHOWN_BY.set(told.append)
    try:
        written = _shown(Terminal(), 1, 250)
    finally:
        SHOWN_BY.reset(token)
    assert written == ""
    assert told[-1] == "" and "[##########" in told[-2] and "1,000 documents" in told[-2]
    assert not any(line.endswith(" ") for line in told)


def test_the_spinner_shows_a_long_run_of_one_process_by_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Large folders scored with one process go by chunks, so the spinner of a terminal shows
    documents done, rate and time left as its text (drawn as text: rich's markup would take
    the bar's brackets for a tag), then its own text again."""
    import io as stdio

    from rich.console import Console

    import annoscore
    import annoscore.scale.folders as folders
    from annoscore.cli import common
    from annoscore.scale.run import SHOWN_BY

    for n in range(8):
        for side in ("gold", "system"):
            (tmp_path / side).mkdir(exist_ok=True)
            (tmp_path / side / f"d{n}.ann").write_text("T1\tDrug 0 1\ta\n", encoding="utf-8")
    monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", 2)
    monkeypatch.setattr(common, "is_terminal", lambda stream: True)
    told: list[str] = []
    with contextlib.redirect_stderr(Terminal()), common.working_indicator("spans"):
        live, show = common._indicator.get()
        live.console.file = stdio.StringIO()  # the test's terminal

        def drawn() -> str:
            console = Console(file=stdio.StringIO(), width=100)
            console.print(live.get_renderable())
            return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]

        assert SHOWN_BY.get() == show
        SHOWN_BY.set(lambda text: (told.append(text), show(text)))
        annoscore.score("spans", tmp_path / "gold", tmp_path / "system")
        assert "annoscore spans: working... 0 s" in drawn()
        show("[##....]  8 documents")
        assert "annoscore spans: [##....]  8 documents" in drawn()
    assert any(t.startswith("[#####") and "8 documents" in t for t in told), told
    assert told[-1] == ""
