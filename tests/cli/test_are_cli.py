"""``annoscore are 1|2|3|4``: the JSON contract, the report, exit 2 on unsafe or bad XML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from annoscore.report.generic import render
from annoscore.samples import SAMPLES
from tests.conftest import Cli
from tests.formats.test_are import BILLION_LAUGHS, EXTERNAL_ENTITY

ARE = SAMPLES / "are"
RUNS = {
    "1": ("task1-gold.xml", "task1-system.xml", "task1-input.xml"),
    "2": ("task1-gold.xml", "task2-system.xml", "task1-input.xml"),
    "3": ("task3-gold.xml", "task3-system.xml", "task3-input.xml"),
    "4": ("task3-gold.xml", "task4-system.xml", "task3-input.xml"),
}


def args(task: str) -> list[object]:
    gold, pred, source = RUNS[task]
    return ["are", task, "--gold", ARE / gold, "--pred", ARE / pred, "--input", ARE / source]


@pytest.mark.parametrize("task", ["1", "2", "3", "4"])
def test_json_contract(cli: Cli, task: str) -> None:
    data = cli.json(*args(task))
    assert data["task"] == f"are-{task}" and f"|task:are-{task}|" in data["signature"]
    expected = ["success_rate"] if task == "1" else ["recall", "precision", "f1"]
    assert list(data["scores"]) == expected
    assert all(0.0 <= v <= 1.0 for v in data["scores"].values())
    assert "documents" not in data


def test_json_counts_that_add_up(cli: Cli) -> None:
    one = cli.json(*args("1"))
    assert (one["counts"]["credit_sum"], one["counts"]["pronouns"]) == (2.5, 4)
    three = cli.json(*args("3"), "--per-doc")
    assert three["counts"]["pairs"] == 4 and three["counts"]["pronouns"] == 3
    assert three["documents"]["are-sample"]["counts"] == three["counts"]


def test_text_report_shows_every_pronoun_and_what_it_earned(cli: Cli) -> None:
    result = cli(*args("1"))
    assert result.exit_code == 0
    assert "pronoun 4 -> 5: credit 0.5" in result.stdout
    assert "pronoun 5 -> -: credit 0, not resolved" in result.stdout
    assert "success_rate 0.6250" in result.stdout
    assert "1 pronoun(s) to resolve have no answer" in result.stderr
    three = cli(*args("3")).stdout
    assert "pronoun 6 -> 1..2  vs 1..4 (overlap 0.5): credit 0.5" in three


def test_text_report_shows_every_chain(cli: Cli) -> None:
    four = cli(*args("4")).stdout
    assert "gold chain 1 (3 members) cut by the system chains: {1..4 6 14} w=0.8333" in four
    two = cli(*args("2")).stdout
    assert "system chain 2 (3 members) cut by the gold chains: {5} {6 7}: earns 1 of 2" in two


def test_per_doc_and_folders(cli: Cli, tmp_path: Path) -> None:
    for side, name in (
        ("g", "task3-gold.xml"),
        ("p", "task3-system.xml"),
        ("i", "task3-input.xml"),
    ):
        (tmp_path / side).mkdir()
        for doc in ("a", "b"):
            (tmp_path / side / f"{doc}.xml").write_bytes((ARE / name).read_bytes())
    data = cli.json(
        "are",
        "3",
        "--gold",
        tmp_path / "g",
        "--pred",
        tmp_path / "p",
        "--input",
        tmp_path / "i",
        "--per-doc",
    )
    assert sorted(data["documents"]) == ["a", "b"]
    assert data["counts"]["pairs"] == 8 and data["scores"]["recall"] == 2.5 / 3


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL_ENTITY])
def test_unsafe_xml_exits_2(cli: Cli, tmp_path: Path, text: str) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(text, encoding="utf-8")
    for task in ("1", "2", "3", "4"):
        gold, _, source = RUNS[task]
        result = cli("are", task, "--gold", ARE / gold, "--pred", bad, "--input", ARE / source)
        assert result.exit_code == 2
        assert f"{bad}:" in result.stderr and "entity declaration" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("task", "text", "words"),
    [
        ("1", "<r>\n<pair><pronoun id='2'/></pair>", "not well-formed"),
        ("1", "<r>\n<pair><pronoun id='2'/></pair></r>", "has no <antecedent>"),
        ("1", "<r>\n<pair><pronoun id='2'/><antecedent id='99'/></pair></r>", "not an <entity>"),
        (
            "3",
            '<r>\n<pair><pronoun start="6" end="6"/><antecedent start="4" end="1"/></pair></r>',
            "start comes after the end",
        ),
        (
            "4",
            '<r><chain>\n<mention start="1" end="1"/><mention start="1" end="1"/></chain></r>',
            "already in the chain",
        ),
    ],
)
def test_bad_input_exits_2_naming_file_line_and_element(
    cli: Cli, tmp_path: Path, task: str, text: str, words: str
) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(text, encoding="utf-8")
    gold, _, source = RUNS[task]
    result = cli("are", task, "--gold", ARE / gold, "--pred", bad, "--input", ARE / source)
    assert result.exit_code == 2, result.output
    assert f"{bad}:2:" in result.stderr and words in result.stderr


@pytest.mark.parametrize("task", ["1", "2", "3", "4"])
def test_the_command_the_api_and_compare_give_one_answer(cli: Cli, task: str) -> None:
    """``annoscore are N``, ``annoscore.score("are-N", ...)`` and ``annoscore compare are-N
    --option input-path=...`` read the one options class: the same JSON, the same signature."""
    import annoscore

    gold, pred, source = (ARE / name for name in RUNS[task])
    by_cli = cli.json(*args(task))
    api = annoscore.score(f"are-{task}", gold, pred, input_path=str(source))
    assert json.loads(render(api, "json")) == by_cli
    by_compare = cli.json(
        "compare", f"are-{task}", gold, pred, pred, "--samples", 20,
        "--option", f"input-path={source}",
    )  # fmt: skip
    tail = "|test:bootstrap|samples:20|confidence:0.95|seed:12345"
    assert by_compare["signature"] == by_cli["signature"] + tail
    assert all(s["scores"] == by_cli["scores"] for s in by_compare["systems"].values())
    if task != "2":
        with pytest.raises(annoscore.InputError, match=f"are-{task}.* needs input_path"):
            annoscore.score(f"are-{task}", gold, pred)


def test_missing_input_exits_2(cli: Cli) -> None:
    """Tasks 1, 3 and 4 need ``--input`` (their options class says so); task 2 does not."""
    for task in ("1", "3", "4"):
        gold, pred, _ = RUNS[task]
        result = cli("are", task, "--gold", ARE / gold, "--pred", ARE / pred)
        assert result.exit_code == 2 and "Missing option '--input'" in result.stderr
    assert (
        cli("are", "2", "--gold", ARE / RUNS["2"][0], "--pred", ARE / RUNS["2"][1]).exit_code == 0
    )


def test_help_writes_out_the_definitions(cli: Cli) -> None:
    text = " ".join(cli("are", "--help").stdout.split())
    for words in ("success rate", "0.5", "Zair", "Vilain", "(|P| - 1) x mean w"):
        assert words in text


def test_are_module_is_not_imported_at_start_up() -> None:
    code = "import sys, annoscore.cli; print(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(eval(done.stdout))
    assert not loaded & {"annoscore.tasks.are", "annoscore.formats.are", "defusedxml"}


def test_strict_input_refuses_ignored_pairs(cli: Cli) -> None:
    result = cli(*args("1"), "--strict-input")
    assert result.exit_code == 2 and "--strict-input" in result.stderr
    assert cli(*args("2"), "--strict-input").exit_code == 0
