from __future__ import annotations

import json
from pathlib import Path

from annoscore.samples import sample_path
from tests.conftest import Cli, shared_data

GOLD = sample_path("pharmaconer", "gold", "subtrack1", "sample")
SYSTEM = sample_path("pharmaconer", "system", "subtrack1", "sample")


def test_json_contract(cli: Cli) -> None:
    data = cli.json("pharmaconer", "ner", GOLD, SYSTEM)
    assert data["task"] == "pharmaconer-ner"
    assert (
        data["signature"].startswith("annoscore:") and "|task:pharmaconer-ner|" in data["signature"]
    )
    assert set(data["scores"]) == {"precision", "recall", "f1"}
    assert {data["counts"][k] for k in ("tp", "fp", "fn")} == {54, 1, 2}
    assert data["warnings"] == []
    assert "documents" not in data


def test_per_doc_and_per_type_in_json(cli: Cli) -> None:
    data = cli.json("pharmaconer", "ner", GOLD, SYSTEM, "--per-doc", "--per-type")
    assert len(data["documents"]) == 15
    assert set(data["types"]) == {"NORMALIZABLES", "PROTEINAS", "UNCLEAR"}
    assert set(data["averages"]) == {"macro_type", "macro_doc"}
    assert sum(d["counts"]["tp"] for d in data["documents"].values()) == 54


def test_text_layout_and_verbose_blocks(cli: Cli) -> None:
    plain = cli("pharmaconer", "ner", GOLD, SYSTEM)
    assert plain.exit_code == 0
    assert plain.stdout.splitlines()[:2] == [" " * 70, "Report (SYSTEM: sample):"]
    verbose = cli("pharmaconer", "ner", GOLD, SYSTEM, "-v")
    assert verbose.stdout.count("Precision") == 16


def test_csv_markdown_and_output_file(cli: Cli, tmp_path: Path) -> None:
    csv_out = cli("pharmaconer", "ner", GOLD, SYSTEM, "--format", "csv", "--per-doc")
    assert csv_out.stdout.splitlines()[0] == "scope,name,precision,recall,f1,tp,fp,fn,documents"
    assert len(csv_out.stdout.splitlines()) == 17
    md = cli("pharmaconer", "ner", GOLD, SYSTEM, "--format", "markdown")
    assert "| corpus | all |" in md.stdout
    target = tmp_path / "out.json"
    written = cli("pharmaconer", "ner", GOLD, SYSTEM, "--format", "json", "-o", target)
    assert written.exit_code == 0 and written.stdout == ""
    assert json.loads(target.read_text())["counts"]["tp"] == 54


def test_codalab_indexing_from_the_command_line(cli: Cli) -> None:
    base = shared_data("pharmaconer", "codalab", "subtask2", "input")
    result = cli(
        "pharmaconer",
        "indexing",
        base / "ref" / "subtask2",
        base / "res" / "subtask2",
        "--codalab",
        "--gold-ann",
        base / "ref" / "subtask1",
    )
    expected = shared_data("pharmaconer", "codalab", "subtask2", "output", "scores.txt")
    assert result.exit_code == 0 and result.stdout == expected.read_text()
    assert "68 gold code(s)" in result.stderr


def test_bad_input_exits_2_with_file_and_line(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    (tmp_path / "s").mkdir()
    (tmp_path / "g" / "a.ann").write_text("T1\tDRUG 0 x\tbad\n")
    (tmp_path / "s" / "a.ann").write_text("")
    result = cli("pharmaconer", "ner", tmp_path / "g", tmp_path / "s")
    assert result.exit_code == 2
    assert result.stderr.startswith("annoscore: error: ") and "a.ann:1:" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_and_empty_folders_exit_2(cli: Cli, tmp_path: Path) -> None:
    missing = cli("pharmaconer", "ner", tmp_path / "nope", tmp_path)
    assert missing.exit_code == 2 and "no such file or folder" in missing.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty2").mkdir()
    empty = cli("pharmaconer", "ner", tmp_path / "empty", tmp_path / "empty2")
    assert empty.exit_code == 2 and "has no brat annotations" in empty.stderr


def test_bad_option_value_is_a_usage_error(cli: Cli) -> None:
    assert cli("pharmaconer", "ner", GOLD, SYSTEM, "--missing-docs", "maybe").exit_code == 2
    assert cli("pharmaconer", "ner", GOLD, SYSTEM, "--format", "xml").exit_code == 2


def test_demo_runs_every_registered_demo(cli: Cli) -> None:
    result = cli("demo", "--only", "pharmaconer")
    assert result.exit_code == 0
    assert result.stdout.count("=== PharmaCoNER") == 2
    assert cli("demo", "--only", "nothing").exit_code == 2


def test_version(cli: Cli) -> None:
    assert cli("--version").stdout.startswith("annoscore ")


def test_mode_options(cli: Cli) -> None:
    data = cli.json("pharmaconer", "ner", GOLD, SYSTEM, "--mode", "relaxed", "--tolerance", "1")
    assert data["counts"]["tp"] == 55 and "|tolerance:1|" in data["signature"]
    assert cli("pharmaconer", "ner", GOLD, SYSTEM, "--min-overlap", "2").exit_code == 2


def _folders(tmp_path: Path, gold: str, system: str, name: str = "a.ann") -> tuple[Path, Path]:
    for side, content in (("g", gold), ("s", system)):
        (tmp_path / side).mkdir(exist_ok=True)
        (tmp_path / side / name).write_text(content, encoding="utf-8")
    return tmp_path / "g", tmp_path / "s"


def _one_line_error(result: object, *parts: str) -> None:
    assert result.exit_code == 2  # type: ignore[attr-defined]
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("annoscore: error: ") and stderr.count("\n") == 1
    for part in parts:
        assert part in stderr


def test_tolerated_line_is_a_warning_and_strict_input_exits_2(cli: Cli, tmp_path: Path) -> None:
    gold, system = _folders(tmp_path, "T1\tDRUG 0 5\tx\n", "T1\tDRUG 0 5\tx\nT2 DRUG 6 9\ty\n")
    scored = cli("pharmaconer", "ner", gold, system)
    assert scored.exit_code == 0 and "Precision      1.0" in scored.stdout
    assert "1 entity line(s) cannot be split" in scored.stderr and "a.ann:2" in scored.stderr
    refused = cli("pharmaconer", "ner", gold, system, "--strict-input")
    _one_line_error(refused, "a.ann:2:", "--strict-input")


def test_json_with_no_paired_document_carries_zero_counts(cli: Cli, tmp_path: Path) -> None:
    gold, _ = _folders(tmp_path, "T1\tDRUG 0 5\tx\n", "", "a.ann")
    (tmp_path / "s" / "a.ann").rename(tmp_path / "s" / "b.ann")
    data = cli.json("pharmaconer", "ner", gold, tmp_path / "s", "--missing-docs", "ignore")
    assert data["counts"] == {"documents": 0, "fn": 0, "fp": 0, "tp": 0}
    assert data["scores"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_options_with_no_effect_exit_2(cli: Cli, tmp_path: Path) -> None:
    _one_line_error(cli("pharmaconer", "ner", GOLD, SYSTEM, "--tolerance", "1"), "--tolerance")
    gold, system = _folders(tmp_path, "a\t1\n", "a\t1\n", "a.tsv")
    result = cli("pharmaconer", "indexing", gold, system, "--gold-ann", GOLD)
    _one_line_error(result, "--gold-ann has no effect without --codalab")


def test_huge_offsets_exit_2_not_1(cli: Cli, tmp_path: Path) -> None:
    gold, system = _folders(tmp_path, "T1\tDRUG 0 5\tx\n", "T1\tDRUG 0 1" + "0" * 40 + "\tx\n")
    _one_line_error(cli("pharmaconer", "ner", gold, system), "a.ann:1:", "beyond any text")
    _one_line_error(
        cli("pharmaconer", "ner", gold, gold, "--mode", "relaxed", "--tolerance", "9" * 30),
        "--tolerance",
    )


def test_a_folder_one_level_above_the_documents_names_the_subfolder(cli: Cli) -> None:
    """``gold/subtrack1`` as the README's example writes it: the sample keeps its documents in
    ``gold/subtrack1/sample``, and the message says so."""
    done = cli("pharmaconer", "ner", GOLD.parent, SYSTEM.parent)
    assert done.exit_code == 2
    assert "its subfolder sample has some: give that folder" in done.stderr


def test_per_type_macro_doc_leaves_the_document_with_no_entity_out(cli: Cli) -> None:
    """Issue 26: the sample's document with no entity on either side is left out of
    ``macro_doc`` (F1 0.957; scoring it 0 gave 0.893), and a warning says so."""
    data = cli.json("pharmaconer", "ner", GOLD, SYSTEM, "--per-type")
    assert round(data["averages"]["macro_doc"]["f1"], 3) == 0.957
    assert round(data["scores"]["f1"], 3) == 0.973
    assert data["warnings"] == [
        "macro_doc leaves out the documents where a score is undefined: precision of 1, "
        "recall of 1, f1 of 1 (of 15)"
    ]


def test_undefined_corpus_scores_are_named_in_a_warning(cli: Cli, tmp_path: Path) -> None:
    gold, system = _folders(tmp_path, "", "")
    official = cli.json("pharmaconer", "ner", gold, system)
    assert official["scores"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert official["warnings"] == [
        "undefined (a zero denominator): precision, recall, f1; shown as 0.0, the official rule"
    ]
    null = cli.json("pharmaconer", "ner", gold, system, "--undefined", "null", "--per-doc")
    assert null["scores"] == {"precision": None, "recall": None, "f1": None}
    assert null["documents"]["a"]["scores"] == null["scores"]
    assert null["warnings"] == ["undefined (a zero denominator, JSON null): precision, recall, f1"]
    text = cli("pharmaconer", "ner", gold, system, "--undefined", "null", "-v")
    assert "Precision      -" in text.stdout and "undefined (a zero" in text.stderr


def test_pharmaconer_offers_four_of_the_span_modes(cli: Cli) -> None:
    for mode in ("token", "semeval", "fuzzy"):
        refused = cli("pharmaconer", "ner", GOLD, SYSTEM, "--mode", mode)
        assert refused.exit_code == 2
        assert f"'{mode}' is not one of strict, exact, overlap, relaxed" in refused.stderr
    data = cli.json("pharmaconer", "ner", GOLD, SYSTEM, "--mode", "OVERLAP")
    assert "|mode:overlap|" in data["signature"] and data["counts"]["tp"] == 55
