"""``annoscore nlpsandbox``: cli.md keys, the official text layout, leaderboard keys, exit 2."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import nlpsandboxclient.evaluation as official

from tests.conftest import Cli, shared_data


def test_location_json_keys_and_counts(cli: Cli) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    data = cli.json("nlpsandbox", "location", "--gold", gold, "--pred", pred, "--per-doc")
    for metric in ("instance_relax", "instance_strict", "token_strict", "type", "hipaa"):
        assert {f"{metric}_{s}" for s in ("precision", "recall", "f1")} <= data["scores"].keys()
        assert {f"{metric}_{s}" for s in ("tp", "fp", "fn")} <= data["counts"].keys()
    assert data["scores"]["token_strict_recall"] == 4 / 6  # exact, not rounded
    assert data["leaderboard"]["location_F1_token_strict"] == 0.8
    notes = {str(k) for k in range(6)}
    assert set(data["documents"]) == notes
    assert (
        sum(d["counts"]["hipaa_tp"] for d in data["documents"].values())
        == data["counts"]["hipaa_tp"]
    )


def test_text_is_the_official_stdout(cli: Cli) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        evaluator = official.PersonNameEvaluation()
        evaluator.convert_dict(str(pred), str(gold))
        evaluator.eval()
    result = cli("nlpsandbox", "person", "--gold", gold, "--pred", pred)
    assert result.exit_code == 0
    official_text = printed.getvalue()
    # the official prints the person type table with nan; annoscore too, then its own table
    assert "nan            nan            nan" in official_text
    assert result.stdout.startswith(official_text)
    assert result.stdout[len(official_text) :].startswith("personType")


def test_all_prints_the_leaderboard_keys_of_every_category(cli: Cli) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    data = cli.json("nlpsandbox", "all", "--gold", gold, "--pred", pred)
    assert data["task"] == "nlpsandbox-all"
    assert data["leaderboard"]["location"]["location_F1_token_strict"] == 0.8
    assert "type_F1" not in data["leaderboard"]["date"]  # NaN officially: dropped
    assert data["scores"]["covid_symptom_instance_relax_f1"] is None
    assert data["counts"]["person_token_strict_tp"] == 5


def test_bad_input_exits_2_with_the_json_path(cli: Cli, tmp_path: Path) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = tmp_path / "pred.json"
    items = [{"start": 1, "length": 1, "text": "x"}] * 7 + [{"start": 1, "length": -1, "text": "x"}]
    notes = [{"annotationSource": {"resourceSource": {"name": str(k)}}} for k in range(3)]
    notes.append(
        {"annotationSource": {"resourceSource": {"name": "3"}}, "textDateAnnotations": items}
    )
    pred.write_text(json.dumps(notes))
    result = cli("nlpsandbox", "date", "--gold", gold, "--pred", pred)
    assert result.exit_code == 2
    assert "pred.json: [3].textDateAnnotations[7].length: expected a non-negative integer" in (
        result.stderr
    )
    pred.write_text("not json")
    result = cli("nlpsandbox", "all", "--gold", gold, "--pred", pred)
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr


def _annotations(path: Path, note: str, dates: list[tuple[int, str]]) -> Path:
    items = [{"start": start, "length": len(text), "text": text} for start, text in dates]
    objects = [
        {"annotationSource": {"resourceSource": {"name": note}}, "textDateAnnotations": items}
    ]
    path.write_text(json.dumps(objects), encoding="utf-8")
    return path


def test_notes_check_the_annotation_texts_and_move_no_number(cli: Cli, tmp_path: Path) -> None:
    """``--notes``: an annotation whose text is not the note's text at its offsets is a warning
    naming file, note and offset, and so is a note the notes file lacks; the scores stay."""
    text = "Seen on 2/18 and 3/19."
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([{"identifier": "n1", "text": text, "type": "t"}]))
    gold = _annotations(tmp_path / "gold.json", "n1", [(8, "2/18"), (17, "3/20")])
    pred = _annotations(tmp_path / "pred.json", "n2", [(8, "2/18")])
    args = ("nlpsandbox", "date", "--gold", gold, "--pred", pred)
    plain, checked = cli.json(*args), cli.json(*args, "--notes", notes)
    assert checked["scores"] == plain["scores"] and checked["counts"] == plain["counts"]
    added = [w for w in checked["warnings"] if w not in plain["warnings"]]
    assert len(added) == 2, added
    assert "1 annotations of gold.json differ from their note's text" in added[0]
    assert "note n1 at 17: '3/20', the note has '3/19'" in added[0]
    assert "1 annotations of pred.json name a note the notes file does not have" in added[1]


def test_a_bad_notes_file_is_exit_2_naming_the_item(cli: Cli, tmp_path: Path) -> None:
    gold = _annotations(tmp_path / "gold.json", "n1", [(0, "2/18")])
    notes = tmp_path / "notes.json"
    for content, where in (
        ('{"notes": [{"identifier": "n1"}]}', "notes[0].text"),
        ('[{"identifier": "n1", "text": ""}, {"identifier": "n1", "text": ""}]', "[1].identifier"),
        ("[1]", "[0]: expected a note object"),
        ('{"n1": "text"}', "expected a JSON array of notes"),
    ):
        notes.write_text(content, encoding="utf-8")
        done = cli("nlpsandbox", "date", "--gold", gold, "--pred", gold, "--notes", notes)
        assert done.exit_code == 2 and where in done.stderr, (content, done.stderr)
