from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
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


class Chunked:
    """``os.write`` that writes at most ``size`` bytes a call (a pipe, a nearly full disk),
    or fails with ``error`` once ``fail_after`` bytes are written."""

    def __init__(self, size: int, fail_after: int | None = None, error: int = 28) -> None:
        self.size, self.fail_after, self.error = size, fail_after, error
        self.written = bytearray()

    def __call__(self, fd: int, data: bytes) -> int:
        if self.fail_after is not None and len(self.written) >= self.fail_after:
            raise OSError(self.error, os.strerror(self.error))
        piece = bytes(data[: self.size])
        self.written += piece
        return len(piece)


def test_standard_output_is_written_whole_or_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write to standard output is checked: a short write is continued, a failure is an
    InputError (exit 2) "cannot write standard output", a closed pipe :class:`OutputClosed`."""
    import errno

    from annoscore.errors import InputError

    class Terminal(io.StringIO):
        def fileno(self) -> int:
            return 1

    monkeypatch.setattr(sys, "stdout", Terminal())
    short = Chunked(7)
    monkeypatch.setattr(common.os, "write", short)
    common.write_stdout(["a" * 100, "\u00e9\n"])
    assert bytes(short.written) == b"a" * 100 + "\u00e9\n".encode()
    monkeypatch.setattr(common.os, "write", Chunked(4096, fail_after=4096))
    with pytest.raises(
        InputError, match=r"^cannot write standard output: No space left on device$"
    ):
        common.write_stdout("x" * 10_000)
    monkeypatch.setattr(common.os, "write", Chunked(10, fail_after=0, error=errno.EPIPE))
    with pytest.raises(common.OutputClosed):
        common.write_stdout("x")


def test_an_interrupt_while_writing_removes_the_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"

    def chunks() -> Iterator[str]:
        yield "first piece\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), common.OutputFiles() as files:
        files.write(tmp_path / "done.txt", ["whole\n"])
        files.write(target, chunks())
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_path_that_cannot_be_written_fails_in_its_turn(tmp_path: Path) -> None:
    """The outputs given before it are put in place, as when writing it fails; its chunks are
    never made."""
    from annoscore.errors import InputError

    def never() -> Iterator[str]:
        raise AssertionError("the chunks of a refused output were made")
        yield ""

    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="it is a folder"), common.OutputFiles() as files:
        files.write(tmp_path / "first.txt", ["one\n"])
        files.write(tmp_path / "folder", never())
    assert (tmp_path / "first.txt").read_text(encoding="utf-8") == "one\n"


def test_outputs_are_classified_by_what_the_path_is(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to("target")
    assert common._classify(Path("/dev/stdout")) == ("descriptor", Path("/dev/stdout"))
    assert common._classify(Path("/dev/null")) == ("opened", Path("/dev/null"))
    assert common._classify(fifo) == ("opened", fifo)
    assert common._classify(link) == ("replaced", (tmp_path / "target").resolve())
    assert common._classify(tmp_path / "new.txt")[0] == "replaced"


def test_sigterm_and_sighup_interrupt_like_sigint() -> None:
    import signal

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(common.Interrupted) as stopped, common.signals_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.signum == signal.SIGTERM
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) == before
