from __future__ import annotations

import io
import json
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
