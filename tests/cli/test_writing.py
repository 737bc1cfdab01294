"""Writing a command's output (:mod:`annoscore.cli.writing`): every write checked, output files
put in place only when the run succeeds, each written where its path says."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from annoscore.cli import writing


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
    monkeypatch.setattr(writing.os, "write", short)
    writing.write_stdout(["a" * 100, "\u00e9\n"])
    assert bytes(short.written) == b"a" * 100 + "\u00e9\n".encode()
    monkeypatch.setattr(writing.os, "write", Chunked(4096, fail_after=4096))
    with pytest.raises(
        InputError, match=r"^cannot write standard output: No space left on device$"
    ):
        writing.write_stdout("x" * 10_000)
    monkeypatch.setattr(writing.os, "write", Chunked(10, fail_after=0, error=errno.EPIPE))
    with pytest.raises(writing.OutputClosed):
        writing.write_stdout("x")


def test_an_interrupt_while_writing_removes_the_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"

    def chunks() -> Iterator[str]:
        yield "first piece\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), writing.OutputFiles() as files:
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
    with pytest.raises(InputError, match="it is a folder"), writing.OutputFiles() as files:
        files.write(tmp_path / "first.txt", ["one\n"])
        files.write(tmp_path / "folder", never())
    assert (tmp_path / "first.txt").read_text(encoding="utf-8") == "one\n"


def test_outputs_are_classified_by_what_the_path_is(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to("target")
    assert writing._classify(Path("/dev/stdout")) == ("descriptor", Path("/dev/stdout"))
    assert writing._classify(Path("/dev/null")) == ("opened", Path("/dev/null"))
    assert writing._classify(fifo) == ("opened", fifo)
    assert writing._classify(link) == ("replaced", (tmp_path / "target").resolve())
    assert writing._classify(tmp_path / "new.txt")[0] == "replaced"


def test_a_result_in_pieces_is_written_as_its_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command's output made in pieces (a large official layout) is the pieces' text, in a
    file or on standard output; a failure while they are made leaves the file it replaces as
    it was (and no temporary file); the local copies of URLs are named in the whole text,
    whatever the pieces."""
    from annoscore.cli.common import write_result

    class Terminal(io.StringIO):
        def fileno(self) -> int:
            return 1

    target = tmp_path / "out.txt"
    write_result(iter(["one\n", "", "two\u00e9\n"]), target)
    assert target.read_text(encoding="utf-8") == "one\ntwo\u00e9\n"
    monkeypatch.setattr(sys, "stdout", Terminal())
    written = Chunked(3)
    monkeypatch.setattr(writing.os, "write", written)
    write_result(iter(["one\n", "two\n"]), None)
    assert bytes(written.written) == b"one\ntwo\n"
    # standard output takes a small text in pieces in one write (a reader that stops early
    # gets it whole, as one string), a large one a megabyte's worth of pieces at a time
    texts: list[bytes] = []
    monkeypatch.setattr(writing, "_write_stream", lambda stream, data: texts.append(data))
    write_result(iter(["one\n", "", "two\n"]), None)
    assert texts == [b"one\ntwo\n"]
    texts.clear()
    monkeypatch.setattr(writing, "STDOUT_PIECE_CHARS", 4)
    write_result(iter(["ab", "cd", "e", "fghij", "k"]), None)
    assert texts == [b"abcd", b"efghij", b"k"]
    monkeypatch.undo()

    def failing() -> Iterator[str]:
        yield "new\n"
        raise MemoryError

    with pytest.raises(MemoryError):
        write_result(failing(), target)
    assert target.read_text(encoding="utf-8") == "one\ntwo\u00e9\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    from annoscore.formats import files

    monkeypatch.setitem(files._STAND_INS, "/cache/g.tsv", "https://h/g")
    write_result(iter(["gold /cache/g", ".tsv\n"]), target)
    assert target.read_text(encoding="utf-8") == "gold https://h/g\n"


def test_a_large_output_file_is_handed_to_the_disk_as_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each :data:`~annoscore.cli.writing.HANDED_BYTES` written to an output file (its text or
    another file's bytes) have their write-back started (``posix_fadvise``, ``DONTNEED``),
    each byte once, in order, none past what is written, when it replaces a file; a smaller
    output and a new file never; where the advice fails or cannot be given the file is
    written all the same, and the file it replaces stays as it was until the new one is
    whole."""
    from annoscore.scale.spool import FileBytes

    given: list[tuple[int, int, int]] = []

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert os.fstat(fd).st_size >= offset + length  # written (not in Python's buffer)
        assert target.read_text(encoding="utf-8") == "small\n" * 3  # the old one, meanwhile
        given.append((offset, length, advice))

    monkeypatch.setattr(writing.os, "posix_fadvise", advise, raising=False)
    target = tmp_path / "out.txt"
    writing.write_output(target, ["small\n"] * 3)
    assert given == []
    monkeypatch.setattr(writing, "HANDED_BYTES", 10)
    writing.write_output(tmp_path / "new.txt", ["a new file: left to the kernel\n"] * 3)
    assert given == []
    source = tmp_path / "source.bin"
    source.write_bytes(b"0123456789" * 5)
    with source.open("rb") as copied, writing.OutputFiles() as files:
        files.write(target, ["abc", "defghijk", "lm", FileBytes(copied.fileno(), 3, 38), "z" * 25])
    text = "abcdefghijklm" + ("0123456789" * 5)[3:38] + "z" * 25
    assert target.read_text(encoding="utf-8") == text
    dontneed = os.POSIX_FADV_DONTNEED
    assert given == [(0, 11, dontneed), (11, 37, dontneed), (48, 25, dontneed)]
    for failing in (OSError(22, "Invalid argument"), AttributeError("posix_fadvise")):

        def refuse(*_: object, error: Exception = failing) -> None:
            raise error

        monkeypatch.setattr(writing.os, "posix_fadvise", refuse)
        writing.write_output(target, ["x" * 15, "y" * 15])
        assert target.read_text(encoding="utf-8") == "x" * 15 + "y" * 15
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
