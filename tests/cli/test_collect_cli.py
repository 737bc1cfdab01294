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


def test_a_run_number_taken_already_leaves_the_entry_its_own_name(tmp_path: Path) -> None:
    from annoscore.cli.collect import find_runs

    for name in ("a/run1", "a/x-1", "a/run2.zip", "b/run3/sub", "b/x-3/sub", "b/top/sub"):
        (tmp_path / "teams" / name).mkdir(parents=True)
    (tmp_path / "work").mkdir()
    found = find_runs(tmp_path / "teams", tmp_path / "work", None, one_file=False)
    assert [(r.team, r.name) for r in found if r.team == "a"] == [
        ("a", "run1"),
        ("a", "run2"),
        ("a", "x-1"),
    ]
    found = find_runs(tmp_path / "teams", tmp_path / "work", "sub", one_file=False)
    assert [(r.team, r.name) for r in found if r.team == "b"] == [
        ("b", "run3"),
        ("b", "top/sub"),
        ("b", "x-3/sub"),
    ]


def test_sub_task_folders_inside_each_team_s_runs_give_one_leaderboard_per_sub_task(
    cli: Cli, tmp_path: Path
) -> None:
    """Codabench-style runs (``run1/subtask1/``), CodiEsp-style (``subtask1/run1/``) and a
    team that entered one sub-task only (a zip with one top folder and litter)."""
    from tests.conftest import shared_data

    base = shared_data("pharmaconer", "codalab")
    ref = {s: base / s / "input" / "ref" / s for s in ("subtask1", "subtask2")}
    res = {s: base / s / "input" / "res" / s for s in ("subtask1", "subtask2")}
    gold = tmp_path / "gold"
    for subtask, path in ref.items():
        shutil.copytree(path, gold / subtask)
    teams = tmp_path / "teams"
    shutil.copytree(res["subtask1"], teams / "alpha" / "run1" / "subtask1")
    shutil.copytree(res["subtask2"], teams / "alpha" / "run1" / "subtask2")
    _anns(ref["subtask1"], teams / "alpha" / "run2" / "subtask1")
    for run in ("run1", "run2"):
        shutil.copytree(res["subtask1"], teams / "gamma" / "SubTask1" / run)
    with zipfile.ZipFile(teams / "beta.zip", "w") as archive:
        for path in sorted(res["subtask2"].iterdir()):
            archive.write(path, f"beta/subtask2/{path.name}")
            archive.writestr(f"__MACOSX/beta/subtask2/._{path.name}", b"x")
    out = tmp_path / "out"
    result = cli(
        "collect", teams, "--task", "subtask1=pharmaconer-ner",
        "--task", "subtask2=pharmaconer-indexing", "--gold", gold, "--option", "codalab=true",
        "--option", f"subtask2:gold_ann={base / 'subtask2/input/ref/subtask1'}", "--out", out,
        "--samples", "50",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    runs = {}
    for subtask in ("subtask1", "subtask2"):
        board = json.loads((out / subtask / "leaderboard.json").read_text())
        runs[subtask] = {(r["team"], r["run"]): r["scores"] for r in board["runs"]}
        assert (out / subtask / "leaderboard.tex").exists()
        assert (out / subtask / "significance.json").exists()
    assert sorted(runs["subtask1"]) == [
        ("alpha", "run1"), ("alpha", "run2"), ("gamma", "run1"), ("gamma", "run2"),
    ]  # fmt: skip
    assert sorted(runs["subtask2"]) == [("alpha", "run1"), ("beta", "run1")]
    for subtask in ("subtask1", "subtask2"):  # the CodaLab numbers
        official = {}
        for line in (base / subtask / "output" / "scores.txt").read_text().splitlines():
            name, _, value = line.partition(" : ")
            official[name.lower()] = float(value)
        scores = runs[subtask][("alpha", "run1")]
        assert {k: scores[k] for k in official} == official
    assert runs["subtask1"][("alpha", "run2")]["f1"] == 1.0
    assert runs["subtask1"][("gamma", "run2")] == runs["subtask1"][("alpha", "run1")]
    assert "## subtask1 (pharmaconer-ner)" in result.stdout
    assert "## subtask2 (pharmaconer-indexing)" in result.stdout
    assert "team beta: no sub-task folder 'subtask1'" in result.stderr
    assert "| alpha | run1 |" in (out / "subtask2" / "leaderboard.md").read_text()


def test_sub_task_collect_syntax_errors(cli: Cli, tmp_path: Path) -> None:
    teams = tmp_path / "teams"
    (teams / "a").mkdir(parents=True)
    base = ["collect", teams, "--task", "s1=pharmaconer-ner", "--task", "s2=codiesp-d"]
    for args, message in (
        (["--gold", f"s1={NER_GOLD}"], "no gold standard for the sub-task(s) s2"),
        (["--gold", f"s3={NER_GOLD}"], "NAME=PATH once for each sub-task (s1, s2)"),
        (["--gold", tmp_path / "none"], "expected a folder holding one folder per sub-task"),
        (["--gold", f"s1={NER_GOLD}", "--gold", "s2=x", "--subtask", "s1"], "--subtask: with"),
    ):
        done = cli(*base, *args, "--out", tmp_path / "o")
        assert done.exit_code == 2 and message in done.stderr, (args, done.stderr)
    shown = cli("collect", "--help")
    assert "subtask1=pharmaconer-ner" in " ".join(shown.stdout.split())
