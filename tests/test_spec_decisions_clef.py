"""The binding "Decisions for annoscore" of spec/codiesp.md, spec/pharmaconer.md and
spec/nlpsandbox.md that no other test pinned, one test per decision (named after it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import annoscore
from annoscore.samples import SAMPLES
from annoscore.tasks.codiesp import (
    ExplainableOptions,
    RankedOptions,
    score_codiesp_d,
    score_codiesp_x,
)
from annoscore.tasks.nlpsandbox import NlpSandboxOptions, score_nlpsandbox_all
from annoscore.tasks.pharmaconer import NerOptions, score_pharmaconer_ner
from tests.conftest import Cli
from tests.helpers import texts

CODIESP = SAMPLES / "codiesp"
NLPSANDBOX = SAMPLES / "nlpsandbox"


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- codiesp.md: "each quirk that changes a number ... the warnings say when it bit, with the
# size of the effect": lower-casing (official since 2020-09-30) -------------------------------


def test_x_lowercase_quirk_names_the_readme_numbers() -> None:
    """The sample's upper-case S43.40 is lower-cased (official today: F1 0.5385); the warning
    gives what --no-lowercase gives (the README's March 2020 numbers, F1 0.5833)."""
    gold, pred = CODIESP / "gs_X.tsv", CODIESP / "pred_X.tsv"
    codes_d, codes_p = CODIESP / "codes-D.tsv", CODIESP / "codes-P.tsv"
    official = score_codiesp_x(gold, pred, ExplainableOptions(codes_d=codes_d, codes_p=codes_p))
    kept = score_codiesp_x(
        gold, pred, ExplainableOptions(codes_d=codes_d, codes_p=codes_p, lowercase=False)
    )
    assert round(official.scores["f1"] or 0, 4) == 0.5385
    assert round(kept.scores["f1"] or 0, 4) == 0.5833
    [said] = [w for w in texts(official) if "upper-case" in w]
    assert "--no-lowercase" in said and "F1 0.5833" in said and "P 0.6364" in said
    [back] = [w for w in texts(kept) if "--no-lowercase" in w]
    assert "F1 0.5385" in back


def test_d_lowercase_quirk_gives_its_effect(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.tsv", ["D1\ta", "D1\tb"])
    pred = write(tmp_path / "p.tsv", ["D1\tA", "D1\tb"])
    codes = write(tmp_path / "c.tsv", ["a", "b"])
    official = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    kept = score_codiesp_d(gold, pred, RankedOptions(codes=codes, lowercase=False))
    assert official.scores["map"] == 1.0 and kept.scores["map"] == 0.5
    [said] = [w for w in texts(official) if "upper-case" in w]
    assert "1 predicted" in said and "--no-lowercase" in said
    assert "MAP 0.5000 and F1 0.6667" in said
    [back] = [w for w in texts(kept) if "--no-lowercase" in w]
    assert "MAP 1.0000 and F1 1.0000" in back
    # an upper-case gold code alone (every prediction valid) moves the numbers too
    upper_gold = write(tmp_path / "G.tsv", ["D1\tA", "D1\tb"])
    lower_pred = write(tmp_path / "q.tsv", ["D1\ta", "D1\tb"])
    kept = score_codiesp_d(upper_gold, lower_pred, RankedOptions(codes=codes, lowercase=False))
    assert kept.scores["map"] == 0.25  # gold A is never found; b at rank 2: (1/2) / 2
    [back] = [w for w in texts(kept) if "--no-lowercase" in w]
    assert "MAP 1.0000 and F1 1.0000" in back


def test_lowercase_that_moves_no_number_gives_no_effect(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.tsv", ["D1\ta"])
    pred = write(tmp_path / "p.tsv", ["D1\ta", "D1\tA"])  # the upper-case line is a duplicate
    codes = write(tmp_path / "c.tsv", ["a"])
    [said] = [
        w
        for w in texts(score_codiesp_d(gold, pred, RankedOptions(codes=codes)))
        if "upper-case" in w
    ]
    assert "--no-lowercase" not in said
    kept = score_codiesp_d(gold, pred, RankedOptions(codes=codes, lowercase=False))
    assert not [w for w in texts(kept) if "--no-lowercase" in w]


# --- codiesp.md: where the official crashes or prints nan, the right value -------------------


def test_x_discontinuous_prediction_is_first_start_to_last_end(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.tsv", ["D1\tDIAGNOSTICO\ta\tx\t10 20"])
    codes = write(tmp_path / "c.tsv", ["a"])
    inside = write(tmp_path / "p.tsv", ["D1\t8 12;15 22\tDIAGNOSTICO\ta"])
    options = ExplainableOptions(codes_d=codes, codes_p=codes)
    assert score_codiesp_x(gold, inside, options).counts["tp"] == 1
    late = write(tmp_path / "q.tsv", ["D1\t11 12;15 22\tDIAGNOSTICO\ta"])
    assert score_codiesp_x(gold, late, options).counts["tp"] == 0


def test_x_no_valid_prediction_is_null_precision_not_a_crash(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.tsv", ["D1\tDIAGNOSTICO\ta\tx\t10 20"])
    pred = write(tmp_path / "p.tsv", ["D1\t10 20\tDIAGNOSTICO\tzz"])
    codes = write(tmp_path / "c.tsv", ["a"])
    result = score_codiesp_x(gold, pred, ExplainableOptions(codes_d=codes, codes_p=codes))
    # the one rule: gold codes and nothing found is F1 0 (precision alone is 0/0)
    assert result.scores == {"precision": None, "recall": 0.0, "f1": 0.0}
    assert any("not enough values to unpack" in w for w in texts(result))
    assert "undefined (a zero denominator, JSON null): precision" in texts(result)


def test_d_document_with_predictions_and_no_true_positive_scores_zero(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.tsv", ["D1\ta", "D2\tb"])
    pred = write(tmp_path / "p.tsv", ["D1\tb", "D2\tb"])
    codes = write(tmp_path / "c.tsv", ["a", "b"])
    documents = score_codiesp_d(gold, pred, RankedOptions(codes=codes)).documents
    assert documents["D1"].scores == {"map": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0}


# --- codiesp.md: no intermediate files; a header line in the valid-code list is harmless ---


def test_no_intermediate_files_are_written(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for subtask, valid in (
        ("D", ["--codes", CODIESP / "codes-D.tsv"]),
        ("X", ["--codes-d", CODIESP / "codes-D.tsv", "--codes-p", CODIESP / "codes-P.tsv"]),
    ):
        gold, pred = CODIESP / f"gs_{subtask}.tsv", CODIESP / f"pred_{subtask}.tsv"
        cli.json("codiesp", subtask, "--gold", gold, "--pred", pred, *valid)
    assert os.listdir(work) == []


def test_a_header_line_in_the_valid_code_list_is_harmless(tmp_path: Path) -> None:
    plain = score_codiesp_d(
        CODIESP / "gs_D.tsv", CODIESP / "pred_D.tsv", RankedOptions(codes=CODIESP / "codes-D.tsv")
    )
    lines = (CODIESP / "codes-D.tsv").read_text(encoding="utf-8").splitlines()
    codes = write(tmp_path / "codes.tsv", ["code\tes-description\ten-description", *lines])
    headed = score_codiesp_d(
        CODIESP / "gs_D.tsv", CODIESP / "pred_D.tsv", RankedOptions(codes=codes)
    )
    assert headed.scores == plain.scores and headed.counts == plain.counts


# --- pharmaconer.md: a warning always names how many documents were unpaired --------------


@pytest.mark.parametrize("rule", ["ignore", "count"])
def test_unpaired_documents_are_named_in_both_modes(tmp_path: Path, rule: str) -> None:
    gold, system = tmp_path / "gold", tmp_path / "system"
    gold.mkdir()
    system.mkdir()
    for folder, names in ((gold, ("d1", "d2")), (system, ("d1", "d3", "d4"))):
        for name in names:
            (folder / f"{name}.ann").write_text("T1\tA 0 5\tabcde\n", encoding="utf-8")
    result = score_pharmaconer_ner(gold, system, NerOptions(missing_docs=rule))  # type: ignore[arg-type]
    said = texts(result)
    assert any(w.startswith("1 gold document(s) have no system file") for w in said)
    assert any(w.startswith("2 system document(s) have no gold file") for w in said)
    assert result.counts["fn"] == (1 if rule == "count" else 0)
    assert result.counts["fp"] == (2 if rule == "count" else 0)


# --- nlpsandbox.md: --notes, through every entry point ----------------------------------------


def _notes(tmp_path: Path) -> Path:
    """The notes of the sample, rebuilt from the gold texts (one prediction differs)."""
    gold = json.loads((NLPSANDBOX / "gold.json").read_text(encoding="utf-8"))
    notes = []
    for item in gold:
        text = [" "] * 400
        for key, items in item.items():
            if key.startswith("text"):
                for a in items:
                    text[a["start"] : a["start"] + a["length"]] = a["text"][: a["length"]]
        name = item["annotationSource"]["resourceSource"]["name"].rsplit("/", 1)[-1]
        notes.append({"identifier": name, "text": "".join(text), "type": "t"})
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(notes), encoding="utf-8")
    return path


def test_notes_reach_the_python_api_and_every_category(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    gold, pred = NLPSANDBOX / "gold.json", NLPSANDBOX / "pred.json"
    plain = annoscore.score("nlpsandbox-date", gold, pred)
    checked = annoscore.score("nlpsandbox-date", gold, pred, notes=notes)
    assert checked.scores == plain.scores and checked.signature == plain.signature
    assert [w.code for w in checked.warnings if w.code.startswith("nlpsandbox.")] == [
        "nlpsandbox.text-differs"
    ]
    every = score_nlpsandbox_all(gold, pred, NlpSandboxOptions(notes=notes))
    assert every.scores == score_nlpsandbox_all(gold, pred).scores
    differs = [w for w in every.warnings if w.code == "nlpsandbox.text-differs"]
    assert [w.message.split(" of ")[1].split(" ")[0] for w in differs] == ["pred.json"]
    assert not [w for w in every.warnings if w.code == "nlpsandbox.unknown-note"]


def test_notes_reach_compare(cli: Cli, tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    gold, pred = NLPSANDBOX / "gold.json", NLPSANDBOX / "pred.json"
    out = cli.json("compare", "nlpsandbox-date", gold, pred, pred, "--option", f"notes={notes}")
    assert any("differ from their note's text" in w for w in out["warnings"])
