"""``annoscore validate TASK SUBMISSION``: every problem at once, named by file and line as
uploaded; litter, a top folder and a zip inside a folder tolerated and named; exit 0 / 2."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from annoscore.samples import SAMPLES
from tests.conftest import Cli

NER_GOLD = SAMPLES / "pharmaconer" / "gold" / "subtrack1" / "sample"
NER_SYSTEM = SAMPLES / "pharmaconer" / "system" / "subtrack1" / "sample"
CODIESP = SAMPLES / "codiesp"


def _ann_copy(target: Path) -> Path:
    target.mkdir(parents=True)
    for path in NER_SYSTEM.glob("*.ann"):
        shutil.copyfile(path, target / path.name)
    return target


def _report(cli: Cli, *args: object) -> tuple[int, dict[str, object]]:
    result = cli("validate", *args, "--format", "json")
    return result.exit_code, json.loads(result.stdout)


def test_the_gold_standard_as_a_submission_is_valid(cli: Cli) -> None:
    status, report = _report(cli, "pharmaconer-ner", NER_GOLD, "--gold", NER_GOLD)
    assert status == 0 and report["valid"] is True and report["problems"] == []


def test_every_bad_line_of_every_file_is_named_with_its_line_as_uploaded(
    cli: Cli, tmp_path: Path
) -> None:
    run = _ann_copy(tmp_path / "run")
    first, second = sorted(run.glob("*.ann"))[:2]
    lines = first.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(1, "T90\tDRUG 1 x\tbad\n")  # line 2
    lines.insert(3, "T91\tDRUG y 4\tbad\n")  # line 4 (line 3 of the copy once 2 is removed)
    first.write_text("".join(lines), encoding="utf-8")
    second.write_text("T92\tDRUG 1 z\tbad\n" + second.read_text(encoding="utf-8"))
    status, report = _report(cli, "pharmaconer-ner", run, "--gold", NER_GOLD)
    assert status == 2 and report["valid"] is False
    found = {(Path(str(p["file"])).name, p["line"]) for p in report["problems"]}  # type: ignore[index,union-attr]
    assert found == {(first.name, 2), (first.name, 4), (second.name, 1)}


def test_codiesp_lines_with_the_wrong_columns_each_named(cli: Cli, tmp_path: Path) -> None:
    pred = tmp_path / "pred.tsv"
    body = (CODIESP / "gs_D.tsv").read_text(encoding="utf-8")  # valid lines, every document
    pred.write_text("a\tb\tc\n" + body + "x\n", encoding="utf-8")
    last = 1 + len(body.splitlines()) + 1
    result = cli(
        "validate",
        "codiesp-d",
        pred,
        "--gold",
        CODIESP / "gs_D.tsv",
        "--option",
        f"codes={CODIESP / 'codes-D.tsv'}",
    )
    assert result.exit_code == 2
    assert f"{pred}:1: expected 2 tab-separated columns" in result.stdout
    assert f"{pred}:{last}: expected 2 tab-separated columns" in result.stdout
    assert "(2 problem(s))" in result.stdout


def test_a_zip_in_a_top_folder_with_litter_is_valid_and_each_tolerance_named(
    cli: Cli, tmp_path: Path
) -> None:
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as archive:
        for path in NER_SYSTEM.glob("*.ann"):
            archive.write(path, f"run1/{path.name}")
            archive.write(path, f"__MACOSX/run1/._{path.name}")
        archive.writestr("run1/.DS_Store", "x")
    outer = tmp_path / "upload"
    (outer / "team").mkdir(parents=True)
    shutil.copyfile(inner, outer / "team" / "run1.zip")
    (outer / "Thumbs.db").write_text("x")
    status, report = _report(cli, "pharmaconer-ner", outer, "--gold", NER_GOLD)
    assert status == 0, report
    notes = " ".join(report["notes"])  # type: ignore[arg-type]
    assert "Thumbs.db" in notes and "top folder 'team/'" in notes and "run1.zip" in notes
    assert "__MACOSX" in notes and "top folder 'run1/'" in notes


def test_unknown_documents_make_a_submission_invalid(cli: Cli, tmp_path: Path) -> None:
    run = _ann_copy(tmp_path / "run")
    (run / "not-a-document.ann").write_text("T1\tPROTEINAS 0 5\tabcde\n", encoding="utf-8")
    status, report = _report(cli, "pharmaconer-ner", run, "--gold", NER_GOLD)
    assert status == 2
    assert any("not-a-document" in str(p["message"]) for p in report["problems"])  # type: ignore[index,union-attr]


def test_an_empty_zip_fails_with_one_line(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    result = cli("validate", "pharmaconer-ner", empty, "--gold", NER_GOLD)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "the submission is empty" in result.stderr


def test_one_file_expected_several_given(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    shutil.copyfile(CODIESP / "pred_D.tsv", folder / "a.tsv")
    shutil.copyfile(CODIESP / "pred_D.tsv", folder / "b.tsv")
    codes = f"codes={CODIESP / 'codes-D.tsv'}"
    result = cli("validate", "codiesp-d", folder, "--gold", CODIESP / "gs_D.tsv", "--option", codes)
    assert result.exit_code == 2 and "expected one file, found 2" in result.stderr


def test_an_unknown_task_is_named(cli: Cli, tmp_path: Path) -> None:
    result = cli("validate", "no-such-task", tmp_path)
    assert result.exit_code == 2 and "unknown task" in result.stderr


def _problems(report: dict[str, object]) -> set[tuple[str | None, int | None, str]]:
    """The report's problems as (file name, line, message)."""
    return {
        (None if p["file"] is None else Path(p["file"]).name, p["line"], p["message"])
        for p in report["problems"]  # type: ignore[attr-defined]
    }


def test_codiesp_unknown_and_missing_documents_and_invalid_codes_are_problems(
    cli: Cli, tmp_path: Path
) -> None:
    gold = CODIESP / "gs_D.tsv"
    pred = tmp_path / "pred.tsv"
    lines = [line for line in gold.read_text(encoding="utf-8").splitlines() if "S0210" not in line]
    lines[1] = lines[1].split("\t")[0] + "\tnot.a.code"  # line 2
    lines.append("NO-SUCH-DOC\tq64.4")  # the last line
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    codes = f"codes={CODIESP / 'codes-D.tsv'}"
    status, report = _report(cli, "codiesp-d", pred, "--gold", gold, "--option", codes)
    assert status == 2 and report["valid"] is False
    assert _problems(report) == {
        ("pred.tsv", 2, "code 'not.a.code' is not in the valid-code list (codes-D.tsv)"),
        ("pred.tsv", len(lines), "document 'NO-SUCH-DOC' is not in the gold standard (gs_D.tsv)"),
        ("gs_D.tsv", None, "document 'S0210-48062005000700013-1' is missing from the submission"),
    }
    # and the text names file and line as the other problems
    result = cli("validate", "codiesp-d", pred, "--gold", gold, "--option", codes)
    assert result.exit_code == 2 and f"{pred}:2: code 'not.a.code'" in result.stdout
    assert f"{gold}: document 'S0210-48062005000700013-1' is missing" in result.stdout


def test_codiesp_x_unknown_and_missing_documents_are_problems(cli: Cli, tmp_path: Path) -> None:
    gold = tmp_path / "gold.tsv"
    gold.write_text(
        "D1\tDIAGNOSTICO\tn20.0\tlitiasis\t10 18\nD2\tDIAGNOSTICO\tm81.0\tosteo\t0 5\n",
        encoding="utf-8",
    )
    pred = tmp_path / "pred.tsv"
    pred.write_text("D1\t10 18\tDIAGNOSTICO\tn20.0\nD9\t0 5\tDIAGNOSTICO\tm81.0\n")
    options = [f"codes_{x}={CODIESP / f'codes-{x.upper()}.tsv'}" for x in "dp"]
    status, report = _report(
        cli, "codiesp-x", pred, "--gold", gold, "--option", options[0], "--option", options[1]
    )
    assert status == 2
    assert _problems(report) == {
        ("pred.tsv", 2, "document 'D9' is not in the gold standard (gold.tsv)"),
        ("gold.tsv", None, "document 'D2' is missing from the submission"),
    }


def _sandbox(path: Path, notes: dict[str, list[tuple[int, str]]]) -> Path:
    objects = [
        {
            "annotationSource": {"resourceSource": {"name": f"notes/{note}"}},
            "textDateAnnotations": [
                {"start": start, "length": len(text), "text": text} for start, text in dates
            ],
        }
        for note, dates in notes.items()
    ]
    path.write_text(json.dumps(objects), encoding="utf-8")
    return path


def test_nlpsandbox_unknown_and_missing_notes_are_problems(cli: Cli, tmp_path: Path) -> None:
    gold = _sandbox(tmp_path / "gold.json", {"n1": [(3, "2/18")], "n2": [(0, "May")]})
    pred = _sandbox(tmp_path / "pred.json", {"n1": [(3, "2/18")], "n3": [(0, "May")]})
    status, report = _report(cli, "nlpsandbox-date", pred, "--gold", gold)
    assert status == 2
    assert _problems(report) == {
        ("pred.json", None, "note 'n3' is not in the gold standard (gold.json)"),
        ("gold.json", None, "note 'n2' is missing from the submission"),
    }


def test_offsets_beyond_the_gold_text_are_problems(cli: Cli, tmp_path: Path) -> None:
    run = _ann_copy(tmp_path / "run")
    first = sorted(run.glob("*.ann"))[0]
    text = (NER_GOLD / f"{first.stem}.txt").read_text(encoding="utf-8")
    size = len(text)
    body = first.read_text(encoding="utf-8")
    first.write_text(body + f"T99\tPROTEINAS {size - 2} {size + 3}\tabcde\n", encoding="utf-8")
    line = len(body.splitlines()) + 1
    message = (
        f"entity T99 ends at {size + 3}, beyond the text of the document "
        f"({first.stem}.txt: {size} characters)"
    )
    for task in ("pharmaconer-ner", "spans"):
        status, report = _report(cli, task, run, "--gold", NER_GOLD)
        assert status == 2, task
        assert _problems(report) == {(first.name, line, message)}, task
    # NLP Sandbox, with the notes
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([{"identifier": "n1", "text": "On 2/18"}]), encoding="utf-8")
    gold = _sandbox(tmp_path / "gold.json", {"n1": [(3, "2/18")]})
    pred = _sandbox(tmp_path / "pred.json", {"n1": [(3, "2/18"), (5, "18 May")]})
    args = ("--gold", gold, "--option", f"notes={notes}")
    status, report = _report(cli, "nlpsandbox-date", pred, *args)
    assert status == 2
    expected = "note 'n1': a date annotation at 5 (length 6) ends beyond the note's text"
    assert _problems(report) == {("pred.json", None, f"{expected} (7 characters, notes.json)")}
    status, report = _report(cli, "nlpsandbox-date", gold, *args)
    assert status == 0, report


def test_lines_the_official_script_tolerates_are_problems_each_with_its_line(
    cli: Cli, tmp_path: Path
) -> None:
    run = _ann_copy(tmp_path / "run")
    first, second = sorted(run.glob("*.ann"))[:2]
    body = first.read_text(encoding="utf-8")
    first.write_text(body + "T98 PROTEINAS 1 5\tabcd\n T97\tPROTEINAS 1 5\tabcd\n")
    second.write_text("T96 PROTEINAS 1 5\tabcd\n" + second.read_text(encoding="utf-8"))
    status, report = _report(cli, "pharmaconer-ner", run, "--gold", NER_GOLD)
    assert status == 2 and report["valid"] is False
    last = len(body.splitlines())
    found = {(name, line) for name, line, _ in _problems(report)}
    assert found == {(first.name, last + 1), (first.name, last + 2), (second.name, 1)}
    # the scoring program scores them, as the official script does (with warnings)
    assert cli("pharmaconer", "ner", NER_GOLD, run).exit_code == 0


def test_findings_stop_at_the_problem_limit(cli: Cli, tmp_path: Path) -> None:
    from annoscore.cli.campaign import MAX_PROBLEMS

    gold = CODIESP / "gs_D.tsv"
    pred = tmp_path / "pred.tsv"
    valid = gold.read_text(encoding="utf-8")
    pred.write_text(valid + "".join(f"S0210-48062005000700013-1\tx{k}\n" for k in range(150)))
    codes = f"codes={CODIESP / 'codes-D.tsv'}"
    status, report = _report(cli, "codiesp-d", pred, "--gold", gold, "--option", codes)
    problems = report["problems"]
    assert status == 2 and len(problems) == MAX_PROBLEMS + 1  # type: ignore[arg-type]
    assert problems[-1] == {"file": None, "line": None, "message": "more problems not shown"}  # type: ignore[index]
    assert problems[0]["line"] == len(valid.splitlines()) + 1  # type: ignore[index]
