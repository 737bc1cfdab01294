from __future__ import annotations

import json
from pathlib import Path

import pytest

from annoscore.samples import sample_path
from tests.conftest import Cli, shared_data

KEY = sample_path("coref", "key.conll")
RESPONSE = sample_path("coref", "response.conll")
SCORE_KEYS = {
    f"{m}_{p}"
    for m in ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
    for p in ("recall", "precision", "f1")
} | {"conll_f1"}


def test_json_contract(cli: Cli) -> None:
    data = cli.json("coref", KEY, RESPONSE)
    assert data["task"] == "coref" and "|task:coref|" in data["signature"]
    assert set(data["scores"]) == SCORE_KEYS
    assert all(0.0 <= v <= 1.0 for v in data["scores"].values())
    assert data["counts"]["muc_recall_den"] > 0
    assert isinstance(data["warnings"], list) and "documents" not in data


def test_reference_case_a4_json(cli: Cli) -> None:
    base = shared_data("coref", "reference")
    data = cli.json("coref", base / "TC-A.key", base / "TC-A-4.response", "-m", "muc", "-m", "bcub")
    assert data["scores"]["muc_f1"] == pytest.approx(1 / 3)
    assert data["scores"]["bcub_recall"] == pytest.approx(5 / 9)
    assert "blanc_f1" not in data["scores"] and "conll_f1" not in data["scores"]


def test_a9_repeats_are_scored_with_a_warning(cli: Cli) -> None:
    base = shared_data("coref", "reference")
    data = cli.json("coref", base / "TC-A.key", base / "TC-A-9.response")
    assert data["scores"]["muc_f1"] == pytest.approx(1 / 3)
    assert any(
        w.startswith("10 repeated mention(s) in the response that match a key mention removed")
        for w in data["warnings"]
    )


def test_per_doc(cli: Cli) -> None:
    data = cli.json("coref", KEY, RESPONSE, "--per-doc", "--metric", "conll")
    assert len(data["documents"]) == 2
    total = sum(d["counts"]["muc_recall_num"] for d in data["documents"].values())
    assert total == data["counts"]["muc_recall_num"]


def test_text_reference_csv_markdown_and_output_file(cli: Cli, tmp_path: Path) -> None:
    text = cli("coref", KEY, RESPONSE)
    assert text.exit_code == 0 and "CoNLL score" in text.stdout
    reference = cli("coref", KEY, RESPONSE, "--format", "reference", "-m", "all")
    assert reference.exit_code == 0 and reference.stdout.count("METRIC ") == 6
    assert "Identification of Mentions: Recall: (" in reference.stdout
    for fmt in ("csv", "markdown"):
        assert cli("coref", KEY, RESPONSE, "-f", fmt).exit_code == 0
    out = tmp_path / "out.json"
    assert cli("coref", KEY, RESPONSE, "-f", "json", "-o", out).exit_code == 0
    assert set(json.loads(out.read_text())["scores"]) == SCORE_KEYS


def test_signature_and_singletons_switch(cli: Cli) -> None:
    assert cli.json("coref", KEY, RESPONSE)["signature"].endswith(
        "|task:coref|reference:8.01|metrics:muc+bcub+ceafm+ceafe+blanc+lea|singletons:kept"
        "|duplicates:scorer.pl|blanc-edge:key"
    )
    switched = cli.json("coref", KEY, RESPONSE, "--remove-singletons")
    assert "|singletons:removed|" in switched["signature"]
    assert cli.json("coref", KEY, RESPONSE, "--singletons", "removed") == switched
    assert "metrics:muc+bcub+ceafe|" in cli.json("coref", KEY, RESPONSE, "-m", "conll")["signature"]


def test_undefined_scores_are_zero_in_the_corpus_and_null_per_document(cli: Cli) -> None:
    base = shared_data("coref", "reference")
    data = cli.json("coref", base / "TC-N.key", base / "TC-N-1.response", "--per-doc")
    assert data["scores"]["muc_f1"] == 0.0 and data["scores"]["bcub_f1"] == 1.0
    assert data["scores"]["conll_f1"] == pytest.approx(2 / 3)  # MUC's undefined F1 counts 0
    (document,) = data["documents"].values()
    assert document["scores"]["muc_f1"] is None
    assert data["warnings"] == [
        "undefined (a zero denominator): muc_recall, muc_precision, muc_f1; shown as 0.0, "
        "the official rule"
    ]
    reference = cli("coref", base / "TC-N.key", base / "TC-N-1.response", "-f", "reference")
    assert "Coreference: Recall: (0 / 0) 0%\tPrecision: (0 / 0) 0%\tF1: 0%" in reference.stdout


def _write(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("#begin document d\nx (1\nx -\n#end document\n", ":2: document d: opening bracket"),
        ("#begin document d\nx -\nx 1)\n#end document\n", ":3: document d: closing bracket"),
        ("#begin document d\nx (1)\nx\x00 -\n#end document\n", ":3: NUL byte"),
    ],
)
def test_bad_response_exits_2_with_file_line_document(
    cli: Cli, tmp_path: Path, body: str, where: str
) -> None:
    key = _write(tmp_path / "key.conll", "#begin document d\nx (1)\nx -\n#end document\n")
    bad = _write(tmp_path / "bad.conll", body)
    result = cli("coref", key, bad)
    assert result.exit_code == 2
    assert f"{bad}" in result.stderr and where in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_token_count_mismatch_exits_2(cli: Cli, tmp_path: Path) -> None:
    key = _write(tmp_path / "key.conll", "#begin document d\nx (1)\nx -\n#end document\n")
    response = _write(tmp_path / "r.conll", "#begin document d\nx (1)\n#end document\n")
    result = cli("coref", key, response)
    assert result.exit_code == 2
    assert f"{response}:1: document d: 1 token lines in the response but 2" in result.stderr


def test_bad_usage_exits_2(cli: Cli, tmp_path: Path) -> None:
    unknown = cli("coref", KEY, RESPONSE, "-m", "muc+nope")
    assert unknown.exit_code == 2
    assert "metrics: 'nope' is not one of muc, bcub," in unknown.stderr
    assert cli("coref", KEY, tmp_path / "missing.conll").exit_code == 2
    assert cli("coref", KEY).exit_code == 2


def test_help_has_an_example(cli: Cli) -> None:
    result = cli("coref", "--help")
    assert result.exit_code == 0 and "annoscore coref key.conll response.conll" in result.stdout


def test_key_without_documents_exits_2(cli: Cli, tmp_path: Path) -> None:
    key = _write(tmp_path / "key.conll", "just text\n")
    result = cli("coref", key, RESPONSE)
    assert result.exit_code == 2 and f"{key}: no '#begin document' line" in result.stderr


def test_tolerated_input_is_a_warning_and_strict_input_exits_2(cli: Cli, tmp_path: Path) -> None:
    key = _write(tmp_path / "key.conll", "#begin document d\nx (1)\nx (1)\n#end document\n")
    empty = _write(tmp_path / "empty.conll", "")
    result = cli("coref", key, empty)
    assert result.exit_code == 0
    assert "each of the 1 key document(s) is scored against an empty response" in result.stderr
    assert f"{empty}:1" in result.stderr
    strict = cli("coref", key, empty, "--strict-input")
    assert strict.exit_code == 2 and "--strict-input" in strict.stderr
    assert len(strict.stderr.strip().splitlines()) == 1
    # a repeated response mention matching no key mention: scored, or exit 2 when strict
    repeat = _write(tmp_path / "r.conll", "#begin document d\nx (1)\nx (4)|(5)\n#end document\n")
    single = _write(tmp_path / "single.conll", "#begin document d\nx (1)\nx -\n#end document\n")
    data = cli.json("coref", single, repeat)
    assert data["counts"]["mentions_precision_den"] == 2  # the repeat is one mention there
    assert data["counts"]["bcub_precision_den"] == 3  # and one more mention here
    assert any("match no key mention and are kept" in w for w in data["warnings"])
    assert cli("coref", single, repeat, "--strict-input").exit_code == 2
    assert cli("coref", key, key, "--strict-input").exit_code == 0


def test_byte_order_mark_is_a_warning(cli: Cli, tmp_path: Path) -> None:
    body = "#begin document d\nx (1)\nx (1)\n#end document\n"
    key = _write(tmp_path / "key.conll", body)
    response = _write(tmp_path / "r.conll", "\ufeff" + body)
    data = cli.json("coref", key, response)
    assert data["scores"]["muc_f1"] == 1.0
    assert any("byte-order mark" in w and str(response) in w for w in data["warnings"])


def test_per_doc_with_the_reference_layout_is_refused(cli: Cli) -> None:
    """The reference scorer's layout is totals only: ``--per-doc`` would be dropped silently."""
    done = cli("coref", KEY, RESPONSE, "--format", "reference", "--per-doc")
    assert done.exit_code == 2
    assert "--per-doc has no effect with --format reference" in done.stderr
    assert cli.json("coref", KEY, RESPONSE, "--per-doc")["documents"]
