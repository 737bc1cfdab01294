from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from annoscore.cli import common
from annoscore.samples import SAMPLES
from tests.conftest import Cli


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_indicator_is_silent_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with common.working_indicator("x"):
        print("result")
    captured = capsys.readouterr()
    assert captured.out == "result\n" and captured.err == ""


def test_indicator_on_a_terminal_leaves_stdout_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal, out = FakeTerminal(), io.StringIO()
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", out)
    with common.working_indicator("x"):
        common.stop_working_indicator()
        sys.stdout.write("result\n")
    assert out.getvalue() == "result\n"
    assert "result" not in terminal.getvalue()


def test_indicator_is_off_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = FakeTerminal()
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(sys, "stderr", terminal)
    with common.working_indicator("x"):
        pass
    assert terminal.getvalue() == ""


def test_output_dash_is_standard_output(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o -`` prints, as ``-`` means for most commands; it once made a file named ``-``."""
    monkeypatch.chdir(tmp_path)
    trec = SAMPLES / "trec"
    done = cli("trec", trec / "qrels.txt", trec / "run.txt", "-o", "-", "--format", "json")
    assert done.exit_code == 0
    assert json.loads(done.stdout)["task"] == "trec"
    assert not (tmp_path / "-").exists()


def test_messages_are_one_line_and_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """:func:`common.tell` is the one place messages are written: names and excerpts escaped
    (a newline, a CR, an escape sequence), a very long message cut in its middle."""
    common.tell("error", "gold\nfile.tsv:3: bad line 'a\rb\x1b[2J'")
    assert capsys.readouterr().err == (
        "annoscore: error: gold\\nfile.tsv:3: bad line 'a\\rb\\x1b[2J'\n"
    )
    common.tell("warning", "x.tsv:1: " + "9" * 10_000 + " is too long")
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and len(line) < common.MESSAGE_LIMIT + 50
    assert line.startswith("annoscore: warning: x.tsv:1: 999") and line.endswith("is too long\n")


def test_sigterm_and_sighup_interrupt_like_sigint() -> None:
    import signal

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(common.Interrupted) as stopped, common.signals_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.signum == signal.SIGTERM
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (OSError(13, "Permission denied", "x.txt"), 2, "x.txt: Permission denied"),
        (OSError("boom"), 1, "internal error: OSError: boom"),
        (OverflowError("big"), 2, "a number in the input or the options is too large"),
        (
            ValueError("oops"),
            1,
            "internal error: ValueError: oops (set ANNOSCORE_DEBUG=1 for the traceback)",
        ),
    ],
)
def test_a_command_ends_on_an_error_with_its_status_and_one_line(
    error: Exception,
    status: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import typer

    monkeypatch.delenv("ANNOSCORE_DEBUG", raising=False)

    def command() -> None:
        raise error

    with pytest.raises(typer.Exit) as caught:
        common.guarded(command)()
    assert caught.value.exit_code == status
    assert capsys.readouterr().err == f"annoscore: error: {message}\n"


def test_annoscore_debug_lets_the_traceback_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANNOSCORE_DEBUG", "1")

    def command() -> None:
        raise ValueError("oops")

    with pytest.raises(ValueError, match="oops"):
        common.guarded(command)()
