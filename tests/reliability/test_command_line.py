"""The command line as a new user meets it: one-line errors, outputs never written over inputs,
no half-written files, and the demo from a folder whose path has a space and non-ASCII letters."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from annoscore.samples import SAMPLES
from tests.conftest import Cli

SRC = Path(__file__).resolve().parents[2] / "src"
GOLD = SAMPLES / "pharmaconer/gold/subtrack1/sample"
SYSTEM = SAMPLES / "pharmaconer/system/subtrack1/sample"


def run(
    *args: object, cwd: Path | None = None, src: Path = SRC
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-m", "annoscore", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["spans", GOLD, SYSTEM, "--mode", "fuzzy"], "'fuzzy' is not one of strict, exact"),
        (["spans"], "Missing argument 'gold'"),
        (["nope"], "No such command 'nope'"),
        (["spans", GOLD, SYSTEM, "--bogus"], "No such option: --bogus"),
        (["trec", "a", "b", "-l", "x"], "'x' is not a valid int"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(args: list[object], expected: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("annoscore: error: ")
    assert expected in done.stderr


def test_an_output_over_an_input_is_refused_before_anything_is_written(
    cli: Cli, tmp_path: Path
) -> None:
    gold, system = tmp_path / "gold", tmp_path / "system"
    shutil.copytree(GOLD, gold)
    shutil.copytree(SYSTEM, system)
    target = gold / sorted(p.name for p in gold.glob("*.ann"))[0]
    before = target.read_bytes()
    for output in (target, system / "new.json"):
        result = cli("pharmaconer", "ner", gold, system, "-o", output)
        assert result.exit_code == 2, output
        assert "refusing to write the output" in result.stderr
    assert cli("pharmaconer", "ner", gold, system, "-o", gold).exit_code == 2  # a folder
    assert target.read_bytes() == before
    assert not (system / "new.json").exists()
    trec = tmp_path / "run.txt"
    shutil.copy(SAMPLES / "trec/run.txt", trec)
    assert cli("trec", SAMPLES / "trec/qrels.txt", trec, "-o", trec).exit_code == 2
    assert trec.read_bytes() == (SAMPLES / "trec/run.txt").read_bytes()


def test_output_is_written_whole_through_a_rename(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "scores.json"
    assert cli("pharmaconer", "ner", GOLD, SYSTEM, "-f", "json", "-o", out).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("{")
    assert [p.name for p in tmp_path.iterdir()] == ["scores.json"]  # no temporary file left
    missing = tmp_path / "no" / "such" / "folder" / "x.json"
    result = cli("pharmaconer", "ner", GOLD, SYSTEM, "-o", missing)
    assert result.exit_code == 2 and "cannot write the output" in result.stderr


def test_a_path_too_long_is_bad_input_not_an_internal_error() -> None:
    done = run("spans", "x" * 5000, SYSTEM)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1


def test_the_demo_runs_from_a_folder_with_a_space_and_non_ascii_letters(tmp_path: Path) -> None:
    home = tmp_path / "Mes documents ñandú"
    shutil.copytree(SRC / "annoscore", home / "annoscore")
    done = run("demo", cwd=tmp_path, src=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("=== ") >= 9
    assert "Total (15 docs)" in done.stdout
