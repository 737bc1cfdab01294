from __future__ import annotations

import io
import sys

import pytest

from annoscore.cli import common


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
