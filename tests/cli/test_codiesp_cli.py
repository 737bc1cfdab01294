"""``annoscore codiesp``: the cli.md JSON keys, the official text layout, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annoscore.samples import sample_path
from tests.conftest import Cli, shared_data


def toy() -> tuple[Path, Path, Path]:
    return (
        shared_data("codiesp", "toy"),
        shared_data("codiesp", "codes-D.tsv"),
        shared_data("codiesp", "codes-P.tsv"),
    )


def toy_args(
    subtask: str, *, gold: Path | None = None, pred: Path | None = None, codes: Path | None = None
) -> list[Any]:
    """The words of ``annoscore codiesp D`` (``--codes``) or ``X`` (``--codes-d``,
    ``--codes-p``) on the toy files; ``gold``, ``pred`` or ``codes`` (D) replace one."""
    folder, codes_d, codes_p = toy()
    gold = gold or folder / f"gs_{subtask}.tsv"
    pred = pred or folder / f"pred_{subtask}.tsv"
    if subtask == "D":
        valid = ["--codes", codes or codes_d]
    else:
        valid = ["--codes-d", codes_d, "--codes-p", codes_p]
    return ["codiesp", subtask, "--gold", gold, "--pred", pred, *valid]


def test_d_json_contract(cli: Any) -> None:
    out = cli.json(*toy_args("D"))
    assert out["task"] == "codiesp-d"
    assert set(out["scores"]) == {"map", "precision", "recall", "f1"}
    assert round(out["scores"]["map"], 3) == 0.444
    assert {"tp", "fp", "fn"} <= set(out["counts"])
    assert out["signature"].startswith("annoscore:") and "missing-docs:ignore" in out["signature"]
    assert any("left out of MAP" in w for w in out["warnings"])
    assert "documents" not in out


def test_d_per_doc_and_options(cli: Any) -> None:
    folder, codes_d, _ = toy()
    out = cli.json(
        "codiesp",
        "D",
        "-g",
        folder / "gs_D.tsv",
        "-p",
        folder / "pred_D.tsv",
        "-c",
        codes_d,
        "--per-doc",
        "--missing-docs",
        "zero",
        "--depth",
        "0",
        "--filter-gold",
    )
    assert round(out["scores"]["map"], 4) == round((5 / 9 + 1 / 3) / 3, 4)
    assert set(out["documents"]) == {
        "S0004-06142006000900013-1",
        "S0210-48062005000700013-1",
        "S1130-05582003000600004-2",
    }
    assert "depth:none" in out["signature"] and "filter-gold:yes" in out["signature"]


def test_d_text_is_the_official_layout(cli: Any) -> None:
    result = cli(*toy_args("D"))
    assert result.exit_code == 0
    lines = result.stdout.split("\n")
    assert lines[:3] == ["", "MAP estimate: 0.444", ""]
    assert "-" * 53 in lines and "Clinical case name\t\t\tPrecision" in lines
    assert "S0004-06142006000900013-1\t\t0.4" in lines
    assert lines[-2] == "0.444|0.4|0.421"
    assert "annoscore: warning:" in result.stderr


def test_p_command(cli: Any, tmp_path: Path) -> None:
    gold = tmp_path / "g.tsv"
    gold.write_text("D1\tbw40zzz\nD1\tbw03zzz\n")
    pred = tmp_path / "p.tsv"
    pred.write_text("D1\tbw03zzz\n")
    _, _, codes_p = toy()
    out = cli.json("codiesp", "P", "--gold", gold, "--pred", pred, "--codes", codes_p)
    assert out["task"] == "codiesp-p" and out["scores"]["map"] == 0.5


def test_x_json_and_text(cli: Any, tmp_path: Path) -> None:
    args = toy_args("X")
    out = cli.json(*args)
    assert set(out["scores"]) == {"precision", "recall", "f1"}
    assert out["counts"] == {"tp": 7, "fp": 6, "fn": 6}
    text = cli(*args, "--tolerance-mode", "symmetric", "--check-label")
    assert text.exit_code == 0 and "Micro-average F-score" in text.stdout
    target = tmp_path / "out.json"
    assert cli(*args, "-f", "json", "-o", target).exit_code == 0
    assert json.loads(target.read_text())["task"] == "codiesp-x"


def test_bad_input_exits_2_with_file_and_line(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("D1\ta\nD1\ta\tb\n")
    result = cli(*toy_args("D", gold=bad))
    assert result.exit_code == 2
    assert f"{bad}:2:" in result.stderr and "Traceback" not in result.stderr
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    result = cli(*toy_args("D", pred=empty))
    assert result.exit_code == 0 and "MAP estimate: nan" in result.stdout
    assert "prediction file has no line" in result.stderr
    result = cli(*toy_args("D", codes=tmp_path / "nope.tsv"))
    assert result.exit_code == 2 and "nope.tsv" in result.stderr
    position = tmp_path / "pos.tsv"
    position.write_text("D1\t10-20\tDIAGNOSTICO\ta\n")
    result = cli(*toy_args("X", pred=position))
    assert result.exit_code == 2 and f"{position}:1:" in result.stderr


def test_help_has_examples(cli: Any) -> None:
    for sub in ("D", "P", "X"):
        result = cli("codiesp", sub, "--help")
        assert result.exit_code == 0 and "Example: annoscore codiesp" in result.stdout


def test_strict_input_tie_order_and_huge_values(cli: Any, tmp_path: Path) -> None:
    folder, codes_d, codes_p = toy()
    bom = tmp_path / "bom.tsv"
    bom.write_bytes(b"\xef\xbb\xbf" + (folder / "pred_D.tsv").read_bytes())
    args = ["codiesp", "D", "--gold", folder / "gs_D.tsv", "--codes", codes_d]
    plain = cli.json(*args, "--pred", folder / "pred_D.tsv")
    tolerated = cli.json(*args, "--pred", bom)
    assert tolerated["scores"] == plain["scores"]
    assert any("byte-order mark" in w for w in tolerated["warnings"])
    strict = cli(*args, "--pred", bom, "--strict-input")
    assert strict.exit_code == 2 and "byte-order mark" in strict.stderr
    assert len(strict.stderr.strip().splitlines()) == 1
    by_code = cli.json(*args, "--pred", folder / "pred_D.tsv", "--tie-order", "code")
    assert "tie-order:code" in by_code["signature"]
    huge = cli(*args, "--pred", folder / "pred_D.tsv", "--depth", str(10**30))
    assert huge.exit_code in (0, 2) and "Traceback" not in huge.stderr
    x = ["codiesp", "X", "--gold", folder / "gs_X.tsv", "--pred", folder / "pred_X.tsv"]
    x += ["--codes-d", codes_d, "--codes-p", codes_p, "--tolerance", str(10**30)]
    assert cli(*x).exit_code in (0, 2)


def test_per_doc_text_adds_each_documents_average_precision(cli: Cli) -> None:
    """The official layout has per-document P/R/F tables but no per-document AP: ``--per-doc``
    adds it under the MAP line; without it the layout is the official one."""
    folder = sample_path("codiesp")
    args = ("codiesp", "D", "--gold", folder / "gs_D.tsv", "--pred", folder / "pred_D.tsv")
    args += ("--codes", folder / "codes-D.tsv")
    plain, per_doc = cli(*args).stdout, cli(*args, "--per-doc").stdout
    assert "Average precision" not in plain
    assert "Clinical case name\t\t\tAverage precision" in per_doc
    assert "S0004-06142006000900013-1\t\t0.556" in per_doc  # AP 5/9
    head = plain[: plain.index("\n\n", 1) + 2]  # the MAP line and the empty lines around it
    assert per_doc.startswith(head) and per_doc.endswith(plain[len(head) :])


def test_measure_adds_trec_eval_measures_to_every_output(cli: Cli) -> None:
    """``--measure``: the measures as trec_eval names them beside MAP (JSON, CSV, Markdown),
    in trec_eval's layout after the MAP line (text; per document with ``--per-doc``), with
    the official output unchanged around them; a bad one exits 2 naming the option."""
    args = [*toy_args("D"), "-m", "P.1,2", "--measure", "recip_rank", "-m", "num_ret"]
    out = cli.json(*args, "--per-doc")
    assert list(out["scores"]) == ["map", "recip_rank", "P_1", "P_2", "precision", "recall", "f1"]
    assert out["signature"].endswith("|tie-order:file|measures:P.1,2,recip_rank,num_ret")
    assert out["counts"]["num_ret"] == sum(
        d["counts"]["num_ret"] for d in out["documents"].values()
    )
    plain = cli.json(*toy_args("D"), "--per-doc")
    assert {k: out["scores"][k] for k in plain["scores"]} == plain["scores"]
    text = cli(*args).stdout
    official = cli(*toy_args("D")).stdout
    head = "\nMAP estimate: 0.444\n\n"
    assert official.startswith(head + "-----")
    assert text.startswith(head + "num_ret               \tall\t9\n")
    assert "num_ret               \tall\t9\nrecip_rank            \tall\t1.0000\n" in text
    assert "num_q" not in text  # not chosen
    chosen = cli(*args, "-m", "num_q", "-m", "gm_map").stdout
    assert "num_q                 \tall\t2\nnum_ret " in chosen and "gm_map" in chosen
    assert text.endswith(official[len(head) :])
    per_doc = cli(*args, "--per-doc").stdout
    assert "P_1                   \tS0004-06142006000900013-1\t1.0000\n" in per_doc
    assert "P_2                   \tS0210-48062005000700013-1\t-\n" in per_doc
    csv = cli(*args, "--format", "csv").stdout.splitlines()[0].split(",")
    assert csv[:8] == ["scope", "name", "map", "recip_rank", "P_1", "P_2", "precision", "recall"]
    assert "| recip_rank |" in cli(*args, "--format", "markdown").stdout
    bad = cli(*toy_args("D"), "--measure", "nope")
    assert bad.exit_code == 2 and "--measure nope: unknown measure" in bad.output


def test_the_text_layout_written_in_pieces_is_the_whole_text(
    cli: Cli, tmp_path: Path, monkeypatch: Any
) -> None:
    """The command writes the official layout in pieces of ``BLOCK`` documents as they are
    made (a layout of 10^6 documents is never held whole): standard output and ``-o FILE`` hold
    the text one rendering gives, the text of pieces of one document the same as of one
    piece."""
    import annoscore
    from annoscore.report import codiesp as report

    folder = sample_path("codiesp")
    runs = [
        ("codiesp-d", ["codiesp", "D", "--gold", folder / "gs_D.tsv"], ["--codes"], ()),
        ("codiesp-d", ["codiesp", "D", "--gold", folder / "gs_D.tsv"], ["--codes"], ("--per-doc",)),
        ("codiesp-x", ["codiesp", "X", "--gold", folder / "gs_X.tsv"], ["--codes-d"], ()),
    ]
    for n, (task, head, valid, extra) in enumerate(runs):
        subtask = head[1]
        pred, codes = folder / f"pred_{subtask}.tsv", folder / "codes-D.tsv"
        args = [*head, "--pred", pred, *valid, codes]
        if subtask == "X":
            args += ["--codes-p", folder / "codes-P.tsv"]
            result = annoscore.score(
                task, head[3], pred, codes_d=codes, codes_p=folder / "codes-P.tsv"
            )
            whole = report.render_explainable(result)
        else:
            result = annoscore.score(task, head[3], pred, codes=codes)
            whole = report.render_ranked(result.shown(documents=bool(extra)))
        assert whole.count("\t\t") > 4, whole  # tables of several documents
        for block in (1, 2, 1 << 16):
            monkeypatch.setattr(report, "BLOCK", block)
            output = tmp_path / f"{n}-{block}.txt"
            assert cli(*args, *extra).stdout == whole, (args, block)
            assert cli(*args, *extra, "-o", output).exit_code == 0
            assert output.read_text(encoding="utf-8") == whole, (args, block)
