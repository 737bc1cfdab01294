"""CodiEsp findings of issues 24 and 25, one test each: inputs read once (pipes), huge numbers
are exit 2 naming file and line, the D/P scan and parser read a file alike, code identity is
exact, and the reading stays linear in the input's bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from annoscore.errors import InputError
from annoscore.formats import codiesp_scan
from annoscore.formats.codiesp import read_code_file, read_code_rows
from annoscore.tasks.codiesp import RankedOptions, score_codiesp_d
from tests.conftest import Cli

SRC = Path(__file__).resolve().parents[2] / "src"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return path


def run_bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in bash (for ``<(cat FILE)``), ``annoscore`` being this checkout's."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "ANNOSCORE": f"{sys.executable} -m annoscore"}
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=120,
    )


@pytest.fixture
def abcd(tmp_path: Path) -> Path:
    """Gold {D1: a, b; D2: c}, valid codes a-d, predictions with upper-case codes."""
    write(tmp_path, "codes.tsv", "a\nb\nc\nd\n")
    write(tmp_path, "gold.tsv", "D1\ta\nD1\tb\nD2\tc\n")
    write(tmp_path, "gold_crlf.tsv", "D1\ta\r\nD1\tb\r\nD2\tc\r\n")
    write(tmp_path, "pred.tsv", "D1\tD\nD1\tA\nD1\tb\nD2\tx\n")
    return tmp_path


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for <(cat FILE)")
def test_pipes_are_read_once_and_score_as_files(abcd: Path) -> None:
    """Issue 25: ``<(cat FILE)`` was read twice: the lower-casing warning's second reading got
    an empty valid-code list (exit 2), and a gold file the scan declined (CRLF) was read again
    by the parser and found empty.  Every input is now read once."""
    files = run_bash("$ANNOSCORE codiesp D -g gold_crlf.tsv -p pred.tsv -c codes.tsv -f json", abcd)
    pipes = run_bash(
        "$ANNOSCORE codiesp D -g <(cat gold_crlf.tsv) -p <(cat pred.tsv) -c <(cat codes.tsv) "
        "-f json",
        abcd,
    )
    assert files.returncode == 0, files.stderr
    assert pipes.returncode == 0, pipes.stderr
    assert "MAP 0.5000 and F1 0.5000" in files.stdout  # the lower-casing warning's numbers
    assert pipes.stdout.count("MAP 0.5000 and F1 0.5000") == 1
    strip = [line for line in files.stdout.splitlines() if "tsv" not in line]
    assert [line for line in pipes.stdout.splitlines() if "/dev/fd/" not in line] == strip


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_read_once_by_the_reader(abcd: Path) -> None:
    """A FIFO can be opened and read once: the reader reads it into memory when it cannot
    seek, so the parser (after the scan declined on CRLF) reads the same bytes."""
    import threading

    fifo = abcd / "fifo"
    os.mkfifo(fifo)
    data = (abcd / "gold_crlf.tsv").read_bytes()
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    rows = read_code_rows(fifo, "gold")
    writer.join(timeout=10)
    assert rows.documents == ["D1", "D2"] and rows.codes == ["a", "b", "c"]


def test_a_5000_digit_position_is_exit_2_naming_file_and_line(cli: Cli, tmp_path: Path) -> None:
    """Issue 25: a CodiEsp-X position of 5,000 digits was an internal error (exit 1, Python's
    4,300-digit limit)."""
    codes = write(tmp_path, "codes.tsv", "a\n")
    gold = write(tmp_path, "g.tsv", "D1\tDIAGNOSTICO\ta\tx\t1 5\n")
    pred = write(tmp_path, "p.tsv", "D1\t1 5\tDIAGNOSTICO\ta\nD1\t1 " + "9" * 5000 + "\tL\ta\n")
    args = ["codiesp", "X", "-g", gold, "-p", pred, "--codes-d", codes, "--codes-p", codes]
    result = cli(*args)
    assert result.exit_code == 2
    assert f"{pred}:2: bad position" in result.output and "5000 digits" in result.output
    assert len(result.output.strip().splitlines()) == 1
    big = write(tmp_path, "big.tsv", "D1\t1 9223372036854775808\tL\ta\n")
    too_big = cli(*args[:5], big, *args[6:])
    assert too_big.exit_code == 2 and f"{big}:1: bad position" in too_big.output
    edge = write(tmp_path, "edge.tsv", "D1\t1 9223372036854775807\tL\ta\n")
    assert cli(*args[:5], edge, *args[6:]).exit_code == 0


def test_5000_digit_numeric_document_ids_are_read(tmp_path: Path) -> None:
    """Numeric-looking ids are one number for MAP: a 5,000-digit id was an internal error
    (``int()``); the number is now written in its shortest form by string operations."""
    long = "7" * 5000
    codes = write(tmp_path, "codes.tsv", "a\nb\n")
    gold = write(tmp_path, "gold.tsv", f"00{long}\ta\n1\tb\n")
    pred = write(tmp_path, "pred.tsv", f"{long}\ta\n01\tb\n")
    result = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    assert result.scores["map"] == 1.0  # 00777... and 777... are one document for MAP
    assert result.scores["recall"] == 0.0  # and two documents for P/R/F1 (text)
    assert [w for w in result.warnings if w.code == "codiesp.numeric-ids"]


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize(
    ("line", "message"),
    [("D1\t \n", "empty code"), (" \ta\n", "empty clinical case"), ("D1\t\x1f\n", "empty code")],
)
def test_the_scan_and_the_parser_refuse_a_blank_field_alike(
    tmp_path: Path, ending: str, line: str, message: str
) -> None:
    """Issue 24: the vectorised path read ``D1<TAB><space>`` as the code " " (exit 0) where the
    line path, which a CRLF file takes, refused it ("empty code", exit 2)."""
    text = ("D1\ta\n" + line).replace("\n", ending)
    with pytest.raises(InputError, match=message) as error:
        read_code_file(write(tmp_path, "p.tsv", text), "predictions")
    assert error.value.line == 2


def test_codes_are_equal_only_when_their_bytes_are(tmp_path: Path) -> None:
    """Codes of 8 and 9 bytes sharing 8, upper-case non-ASCII letters (lower-cased as
    ``str.lower`` does, as the official scripts do), the Kelvin sign (its lower case is ASCII k)
    and ASCII variants are told apart or merged exactly as Python's strings are."""
    codes = ["abcdefgh", "abcdefghi", "ABCDEFGH", "Äb", "äb", "\u212a1", "k1", "K1", "a", "A"]
    lines = [f"D{i % 3}\t{c}\n" for i, c in enumerate(codes * 3)]
    rows = read_code_rows(write(tmp_path, "p.tsv", "".join(lines)), "p")
    expected = [c.lower() for c in codes * 3]
    assert [rows.codes[c] for c in rows.code.tolist()] == expected
    written = read_code_rows(tmp_path / "p.tsv", "p", lowercase=False)
    assert [written.codes[c] for c in written.code.tolist()] == codes * 3


def test_the_word_table_is_exact_when_every_word_collides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan's table finds a code only where the stored word equals it: with a hash that
    sends every word to one slot, and chunks small enough to insert in many batches, every
    code still gets its own id."""
    monkeypatch.setattr(codiesp_scan._WordTable, "_MULTIPLIER", 0)
    monkeypatch.setattr(codiesp_scan, "_CHUNK", 256)
    rng = np.random.default_rng(5)
    codes = [f"c{n}" for n in rng.integers(0, 3000, 2000).tolist()]
    path = write(tmp_path, "p.tsv", "".join(f"D{i // 10}\t{c}\n" for i, c in enumerate(codes)))
    with path.open("rb") as handle:
        scanned = codiesp_scan._scan_code_rows(handle, path)
    assert scanned is not None
    assert [scanned.codes[c] for c in scanned.code.tolist()] == codes
    assert scanned.codes == list(dict.fromkeys(codes))


def test_a_long_document_id_among_short_lines_is_linear(tmp_path: Path) -> None:
    """Issue 25: the scan compared every line's document over the longest document's words:
    a 500,000-byte id among 100,000 short lines per chunk took minutes; now the lines still
    equal to the previous one are compared over their own length."""
    path = tmp_path / "long.tsv"
    with path.open("w") as out:
        for _ in range(3):
            out.write("d\tc\n" * 100_000)
            out.write("L" * 500_000 + "\tc\n")
    start = time.process_time()
    with path.open("rb") as handle:
        rows = codiesp_scan._scan_code_rows(handle, path)
    assert time.process_time() - start < 10
    assert rows is not None and len(rows) == 300_003 and rows.documents == ["d", "L" * 500_000]


def test_the_other_lowercase_setting_reads_nothing_again(
    abcd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lower-casing warning's other numbers come from the same reading: each file is
    opened once."""
    opened: list[str] = []
    original = Path.open

    def counting(self: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(self.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting)
    result = score_codiesp_d(
        abcd / "gold.tsv", abcd / "pred.tsv", RankedOptions(codes=abcd / "codes.tsv")
    )
    assert sorted(opened) == ["codes.tsv", "gold.tsv", "pred.tsv"]
    assert any("MAP 0.5000 and F1 0.5000" in str(w.message) for w in result.warnings)
