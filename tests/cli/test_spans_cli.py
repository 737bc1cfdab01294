"""``annoscore spans``: the cli.md JSON contract, options, exit codes, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annoscore.samples import sample_path
from tests.conftest import Cli

GOLD = sample_path("pharmaconer", "gold", "subtrack1", "sample")
SYSTEM = sample_path("pharmaconer", "system", "subtrack1", "sample")


@pytest.mark.parametrize("mode", ["strict", "exact", "overlap", "relaxed", "token"])
def test_json_contract_of_the_tp_fp_fn_modes(cli: Cli, mode: str) -> None:
    data = cli.json("spans", GOLD, SYSTEM, "--mode", mode)
    assert data["task"] == "spans"
    assert f"mode:{mode}" in data["signature"]
    assert set(data["scores"]) == {"precision", "recall", "f1"}
    assert set(data["counts"]) == {"tp", "fp", "fn"}
    assert isinstance(data["warnings"], list)
    assert set(data["averages"]) == {"macro_type", "macro_doc"}


def test_strict_on_the_sample_is_the_pharmaconer_count(cli: Cli) -> None:
    data = cli.json("spans", GOLD, SYSTEM)
    assert data["counts"] == {"fn": 2, "fp": 1, "tp": 54}


def test_json_contract_of_semeval(cli: Cli) -> None:
    data = cli.json("spans", GOLD, SYSTEM, "--mode", "semeval", "--per-type", "--per-doc")
    schemes = ("strict", "exact", "partial", "type")
    assert set(data["scores"]) == {
        f"{s}_{k}" for s in schemes for k in ("precision", "recall", "f1")
    }
    assert set(data["counts"]) == {
        f"{s}_{k}" for s in schemes for k in ("cor", "inc", "par", "mis", "spu")
    }
    assert data["counts"]["partial_par"] == 1
    assert len(data["documents"]) == 15
    assert set(data["types"]) == {"NORMALIZABLES", "PROTEINAS", "UNCLEAR"}


def test_options_reach_the_signature(cli: Cli) -> None:
    data = cli.json(
        "spans", GOLD, SYSTEM, "--mode", "overlap", "--min-overlap", "0.5", "--overlap-of", "union"
    )
    assert "min-overlap:0.5|overlap-basis:union" in data["signature"]
    relaxed = cli.json("spans", GOLD, SYSTEM, "--mode", "relaxed", "--tolerance", "1")
    assert relaxed["counts"]["tp"] == 55 and "tolerance:1" in relaxed["signature"]


def test_two_files_are_one_document_whatever_their_names(cli: Cli, tmp_path: Path) -> None:
    gold = tmp_path / "g.ann"
    system = tmp_path / "s.ann"
    gold.write_text("T1\tDrug 0 5\tabcde\n", encoding="utf-8")
    system.write_text("T1\tDrug 0 4\tabcd\n", encoding="utf-8")
    assert cli.json("spans", gold, system, "--mode", "overlap")["counts"]["tp"] == 1


def test_text_csv_markdown_and_output_file(cli: Cli, tmp_path: Path) -> None:
    text = cli("spans", GOLD, SYSTEM)
    assert text.exit_code == 0 and "0.9818" in text.stdout
    assert cli("spans", GOLD, SYSTEM, "-f", "csv").stdout.startswith("scope,name,precision")
    assert cli("spans", GOLD, SYSTEM, "-f", "markdown").exit_code == 0
    out = tmp_path / "r.json"
    assert cli("spans", GOLD, SYSTEM, "-f", "json", "-o", out).exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8"))["counts"]["tp"] == 54


def test_bad_ann_line_exits_2_naming_file_and_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "sys"
    bad.mkdir()
    (bad / "S0004-06142005000500011-1.ann").write_text(
        "T1\tDrug 0 5\tabcde\nT2\tDrug five 9\tx\n", encoding="utf-8"
    )
    result = cli("spans", GOLD, bad)
    assert result.exit_code == 2
    assert "S0004-06142005000500011-1.ann:2:" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_path_and_bad_option_exit_2(cli: Cli, tmp_path: Path) -> None:
    assert cli("spans", tmp_path / "nope", SYSTEM).exit_code == 2
    assert cli("spans", GOLD, SYSTEM, "--mode", "fuzzy").exit_code == 2
    assert cli("spans", GOLD, SYSTEM, "--min-overlap", "50").exit_code == 2


def test_token_mode_without_text_exits_2(cli: Cli, tmp_path: Path) -> None:
    gold = tmp_path / "g.ann"
    gold.write_text("T1\tDrug 0 5\tabcde\n", encoding="utf-8")
    result = cli("spans", gold, gold, "--mode", "token")
    assert result.exit_code == 2 and "token mode needs the document text" in result.stderr


def test_missing_docs_warning_goes_to_stderr_in_text_mode(cli: Cli, tmp_path: Path) -> None:
    system = tmp_path / "sys"
    system.mkdir()
    (system / "S0004-06142005000500011-1.ann").write_text("", encoding="utf-8")
    result = cli("spans", GOLD, system)
    assert result.exit_code == 0
    assert "14 gold document(s) have no system file" in result.stderr
    ignored = cli.json("spans", GOLD, system, "--missing-docs", "ignore")
    assert ignored["counts"]["fn"] < cli.json("spans", GOLD, system)["counts"]["fn"]


def test_help_has_an_example(cli: Cli) -> None:
    result = cli("spans", "--help")
    assert result.exit_code == 0 and "annoscore spans gold/ system/" in result.stdout


def _pair(tmp_path: Path, gold: str, system: str) -> tuple[Path, Path]:
    (tmp_path / "g.ann").write_text(gold, encoding="utf-8")
    (tmp_path / "s.ann").write_text(system, encoding="utf-8")
    return tmp_path / "g.ann", tmp_path / "s.ann"


def _one_line_error(result: object, *parts: str) -> None:
    assert result.exit_code == 2  # type: ignore[attr-defined]
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    for part in parts:
        assert part in stderr


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("\tDrug 0 5\tabcde", "annotation id is empty"),
        ("T1\tDrug 5 5\t", "zero-length"),
        ("T1\tDrug 0 \u0665\tabcde", "ASCII digits"),
        ("T1\tDrug 0 " + "9" * 30 + "\tx", "beyond any text"),
    ],
)
def test_bad_values_exit_2_naming_file_and_line(
    cli: Cli, tmp_path: Path, line: str, reason: str
) -> None:
    gold, system = _pair(tmp_path, "T1\tDrug 0 5\tabcde\n", "T9\tDrug 0 5\tabcde\n" + line + "\n")
    _one_line_error(cli("spans", gold, system), "s.ann:2:", reason)


def test_options_with_no_effect_in_the_mode_exit_2(cli: Cli) -> None:
    _one_line_error(cli("spans", GOLD, SYSTEM, "--tolerance", "2"), "--tolerance has no effect")
    _one_line_error(
        cli("spans", GOLD, SYSTEM, "--mode", "relaxed", "--min-overlap", "0.5"), "--min-overlap"
    )
    _one_line_error(cli("spans", GOLD, SYSTEM, "--overlap-of", "union"), "--overlap-of")


def test_byte_order_mark_is_a_warning_or_refused_with_strict_input(
    cli: Cli, tmp_path: Path
) -> None:
    gold, system = _pair(tmp_path, "T1\tDrug 0 5\tabcde\n", "\ufeffT1\tDrug 0 5\tabcde\n")
    data = cli.json("spans", gold, system)
    assert data["counts"]["tp"] == 1
    assert any("byte-order mark" in w for w in data["warnings"])
    _one_line_error(cli("spans", gold, system, "--strict-input"), "s.ann:1:", "byte-order mark")


def test_skipped_folder_entries_are_counted_in_a_warning(cli: Cli, tmp_path: Path) -> None:
    for side in ("g", "s"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "a.ann").write_text("T1\tDrug 0 5\tabcde\n", encoding="utf-8")
    (tmp_path / "s" / "b.ANN").write_text("T1\tDrug 0 5\tabcde\n", encoding="utf-8")
    (tmp_path / "s" / "nested").mkdir()
    data = cli.json("spans", tmp_path / "g", tmp_path / "s")
    assert any(w.startswith("2 folder entr(ies) were not read") for w in data["warnings"])


def test_dense_overlaps_stay_fast(cli: Cli, tmp_path: Path) -> None:
    n = 2000  # nested spans: every gold span overlaps every prediction
    gold = "".join(f"T{k}\tDrug {k} {2 * n + 1 - k}\t\n" for k in range(1, n + 1))
    system = "".join(f"T{k}\tDrug {k} {2 * n + 2 - k}\t\n" for k in range(1, n + 1))
    gold_path, system_path = _pair(tmp_path, gold, system)
    for mode in ("overlap", "semeval"):
        data = cli.json("spans", gold_path, system_path, "--mode", mode)
        key = "tp" if mode == "overlap" else "type_cor"
        assert data["counts"][key] == n


def test_every_flag_spelling_is_kept(cli: Cli) -> None:
    short = cli.json("spans", GOLD, SYSTEM, "-m", "overlap", "--overlap-basis", "shorter")
    assert "|mode:overlap|min-overlap:0.0|overlap-basis:shorter|" in short["signature"]
    same = cli.json("spans", GOLD, SYSTEM, "--mode", "overlap", "--overlap-of", "shorter")
    assert same["signature"] == short["signature"]


def test_undefined_scores_are_named_in_a_warning(cli: Cli, tmp_path: Path) -> None:
    gold, system = _pair(tmp_path, "", "")
    data = cli.json("spans", gold, system)
    assert data["scores"] == {"precision": None, "recall": None, "f1": None}
    assert "undefined (a zero denominator, JSON null): precision, recall, f1" in data["warnings"]
    assert any(w.startswith("macro_doc leaves out the documents") for w in data["warnings"])
