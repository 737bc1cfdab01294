"""``annoscore muc``: exit codes, the cli.md JSON keys, report files and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

from annoscore.samples import sample_path


def sample_copy(tmp_path: Path) -> Path:
    for name in ("te.config", "key.synthetic.tpl", "response.synthetic.tpl"):
        shutil.copy(sample_path("muc", name), tmp_path / name)
    return tmp_path / "te.config"


def test_json_has_the_cli_contract_keys(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = cli.json("muc", sample_copy(tmp_path))
    assert data["task"] == "muc-template-element"
    for key in ("recall", "precision", "f_pr", "f_2pr", "f_p2r"):
        assert key in data["scores"]
    for key in ("pos", "act", "cor", "par", "inc", "mis", "spu", "non"):
        assert isinstance(data["counts"][key], int)
    assert data["counts"]["pos"] == 17 and data["counts"]["cor"] == 12
    assert "slot:person:per_title:non" in data["counts"]
    assert data["signature"].startswith("annoscore:")


def test_text_report_and_files_as_configured(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":report_summary_file summary.txt\n:dump_map_history yes\n")
    result = cli("muc", config, "--totals-only")
    assert result.exit_code == 0, result.output
    assert "ALL SLOTS       17    16|  12   0    1|   4    3    7|  71  75  24  19   8  40" in (
        result.stdout
    )
    assert "F-MEASURES                                        72.73     74.07     71.43" in (
        result.stdout
    )
    assert (
        (tmp_path / "summary.txt")
        .read_text()
        .startswith("COR |                 | <ORGANIZATION-9901010001-1>")
    )
    assert (tmp_path / "map_history").read_text().startswith("{\n{-docnum 9901010001")
    data = cli.json("muc", config, "--no-files", "--per-doc")
    assert "map_history" in data and "9901010001" in data["documents"]


def test_key_response_and_task_override_the_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    key = tmp_path / "key.synthetic.tpl"
    data = cli.json("muc", config, "--key", key, "--task", "tr")
    assert data["task"] == "muc-template-relation"
    assert data["counts"]["pos"] == 17
    # a response equal to the key without its key-only marks scores 1
    perfect = tmp_path / "perfect.tpl"
    text = key.read_text().replace("OBJ_STATUS: OPTIONAL", "")
    text = (
        text.replace('/ "widget maker"', "")
        .replace('/ "Mr."', "")
        .replace("/ ", "")
        .replace("[", "")
        .replace("]", "")
    )
    perfect.write_text(text)
    data = cli.json("muc", config, "--response", perfect, "--task", "template_element")
    assert data["scores"]["recall"] == 1.0 and data["scores"]["precision"] == 1.0


def test_bad_input_exits_2_with_file_and_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    (tmp_path / "bad.tpl").write_text("<ORGANIZATION-1-1> :=\n    ORG_NAME: x\n    / y\n")
    result = cli("muc", config, "--response", tmp_path / "bad.tpl")
    assert result.exit_code == 2
    assert "bad.tpl:3:" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "unknown.tpl").write_text("<ORGANIZATION-1-1> :=\n    NO_SUCH: x\n")
    result = cli("muc", config, "--response", tmp_path / "unknown.tpl")
    assert result.exit_code == 2 and "unknown.tpl:2:" in result.stderr
    config.write_text(config.read_text() + ":bogus 1\n")
    result = cli("muc", config)
    assert result.exit_code == 2 and "unknown option :bogus" in result.stderr
    result = cli("muc", tmp_path / "missing.config")
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_help_has_an_example(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("muc", "--help")
    assert result.exit_code == 0 and "Example: annoscore muc" in result.stdout
