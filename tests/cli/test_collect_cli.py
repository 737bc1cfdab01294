"""``annoscore collect TEAMS_DIR --task TASK --gold GOLD``: every team's runs scored offline,
the leaderboard in CSV, Markdown, LaTeX and JSON, a report per run, the paired tests."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile
from pathlib import Path

import annoscore
from annoscore.samples import SAMPLES
from tests.conftest import Cli

NER_GOLD = SAMPLES / "pharmaconer" / "gold" / "subtrack1" / "sample"
NER_SYSTEM = SAMPLES / "pharmaconer" / "system" / "subtrack1" / "sample"
CODIESP = SAMPLES / "codiesp"


def _anns(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for path in source.glob("*.ann"):
        shutil.copyfile(path, target / path.name)
    return target


def _teams(root: Path) -> Path:
    teams = root / "teams"
    _anns(NER_SYSTEM, teams / "alpha" / "run1")
    _anns(NER_GOLD, teams / "alpha" / "run2")
    with zipfile.ZipFile(teams / "beta_team.zip", "w") as archive:  # one top folder, litter
        for path in sorted(NER_SYSTEM.glob("*.ann")):
            archive.write(path, f"beta/run_1/{path.name}")
            archive.writestr(f"__MACOSX/beta/run_1/._{path.name}", b"x")
    bad = _anns(NER_SYSTEM, teams / "gamma" / "run1")
    first = sorted(bad.iterdir())[0]
    first.write_text("T1\tDRUG 1 x\tbad\n" + first.read_text(encoding="utf-8"))
    return teams


def test_every_run_scored_and_ranked_with_the_numbers_of_the_task(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = cli(
        "collect", _teams(tmp_path), "--task", "pharmaconer-ner", "--gold", NER_GOLD,
        "--out", out, "--samples", "100",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    with open(out / "leaderboard.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["team"], r["run"], r["rank"]) for r in rows] == [
        ("alpha", "run2", "1"),
        ("alpha", "run1", "2"),
        ("beta_team", "run1", "3"),
        ("gamma", "run1", ""),
    ]
    system = annoscore.score("pharmaconer-ner", NER_GOLD, NER_SYSTEM).scores
    assert rows[1]["f1"] == f"{system['f1']:.4f}" and rows[0]["f1"] == "1.0000"
    assert (
        rows[3]["status"].startswith("not scored: gamma.run1/")
        and ":1: bad offsets" in rows[3]["status"]
    )
    board = json.loads((out / "leaderboard.json").read_text())
    assert board["runs"][1]["scores"] == dict(system)
    assert "beta\\_team & run1" in (out / "leaderboard.tex").read_text()
    assert "| 1 | alpha | run2 |" in (out / "leaderboard.md").read_text()
    assert result.stdout == (out / "leaderboard.md").read_text()
    assert json.loads((out / "runs" / "alpha.run1.json").read_text())["scores"] == dict(system)
    assert "Report (SYSTEM:" in (out / "runs" / "alpha.run1.txt").read_text()  # official
    assert "bad offsets" in (out / "runs" / "gamma.run1.txt").read_text()
    tests = json.loads((out / "significance.json").read_text())
    assert tests["baseline"] == "alpha.run2"
    assert "gamma.run1 not scored" in result.stderr


def test_sub_task_folders_and_numbered_file_runs(cli: Cli, tmp_path: Path) -> None:
    teams = tmp_path / "teams"
    for team, runs in (("one", 2), ("two", 1)):
        folder = teams / team / "CodiEsp-D"
        folder.mkdir(parents=True)
        for number in range(1, runs + 1):
            shutil.copyfile(CODIESP / "pred_D.tsv", folder / f"{team}-run{number}.tsv")
    (teams / "three" / "CodiEsp-P").mkdir(parents=True)
    result = cli(
        "collect", teams, "--task", "codiesp-d", "--gold", CODIESP / "gs_D.tsv",
        "--option", f"codes={CODIESP / 'codes-D.tsv'}", "--subtask", "codiesp-d",
        "--out", tmp_path / "out", "--samples", "50",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert sorted((r["team"], r["run"]) for r in board["runs"]) == [
        ("one", "run1"),
        ("one", "run2"),
        ("two", "run1"),
    ]
    assert "team three: no sub-task folder 'codiesp-d'" in result.stderr
    assert {r["scores"]["map"] for r in board["runs"]} == {0.4444444444444444}


def test_no_run_scored_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    teams = tmp_path / "teams"
    (teams / "a").mkdir(parents=True)
    (teams / "a" / "x.ann").write_text("T1\tDRUG 1 x\tbad\n")
    result = cli(
        "collect", teams, "--task", "pharmaconer-ner", "--gold", NER_GOLD, "--out", tmp_path / "o"
    )
    assert result.exit_code == 2 and "no run could be scored" in result.stderr
