"""The readers' options on ``annoscore spans`` (and ``compare``/``report`` through ``--option``):
BioC's ``--offsets chars|utf8-bytes|auto`` and Prodigy's ``--answers``, from
:class:`~annoscore.tasks.spans.SpanOptions` to the readers; at their defaults every output is
the one it was (the signature leaves them out)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import annoscore
from annoscore.cli import app
from annoscore.errors import InputError
from annoscore.tasks.spans import SpanOptions, score_spans

TEXT = "Ñu café: aspirin works"
MENTIONS = [(0, 2, "Animal"), (9, 16, "Chemical")]


def _bioc_xml(path: Path, unit: str, mentions: list[tuple[int, int, str]] = MENTIONS) -> Path:
    """One document whose annotations count characters (``chars``) or UTF-8 bytes."""
    notes = ""
    for k, (start, end, kind) in enumerate(mentions, 1):
        offset, length = start, end - start
        if unit == "bytes":
            offset, length = len(TEXT[:start].encode()), len(TEXT[start:end].encode())
        notes += (
            f'<annotation id="A{k}"><infon key="type">{kind}</infon>'
            f'<location offset="{offset}" length="{length}"/><text>{TEXT[start:end]}</text>'
            "</annotation>"
        )
    path.write_text(
        "<collection><source/><date/><key/><document><id>d1</id><passage><offset>0</offset>"
        f"<text>{TEXT}</text>{notes}</passage></document></collection>",
        encoding="utf-8",
    )
    return path


def _bioc_json(path: Path, unit: str) -> Path:
    notes = []
    for k, (start, end, kind) in enumerate(MENTIONS, 1):
        offset, length = start, end - start
        if unit == "bytes":
            offset, length = len(TEXT[:start].encode()), len(TEXT[start:end].encode())
        notes.append(
            {
                "id": f"A{k}",
                "infons": {"type": kind},
                "text": TEXT[start:end],
                "locations": [{"offset": offset, "length": length}],
            }
        )
    passage = {"offset": 0, "infons": {}, "text": TEXT, "annotations": notes}
    path.write_text(
        json.dumps({"source": "", "documents": [{"id": "d1", "passages": [passage]}]}),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("form", ["bioc-xml", "bioc-json"])
def test_offsets_reach_the_bioc_reader(tmp_path: Path, form: str) -> None:
    write = _bioc_xml if form == "bioc-xml" else _bioc_json
    chars = write(tmp_path / "chars", "chars")
    in_bytes = write(tmp_path / "bytes", "bytes")
    named = {"gold_format": form, "system_format": form}
    # read as characters, the byte offsets are other mentions: nothing matches
    assert score_spans(chars, in_bytes, SpanOptions(**named)).counts["tp"] == 0  # type: ignore[arg-type]
    misread = score_spans(in_bytes, in_bytes, SpanOptions(**named))  # type: ignore[arg-type]
    assert "text 'Ñu' where the document has 'Ñu '" in misread.warnings[0].message
    both = score_spans(in_bytes, in_bytes, SpanOptions(offsets="utf8-bytes", **named))  # type: ignore[arg-type]
    assert both.counts.as_dict() == {"fn": 0, "fp": 0, "tp": 2} and not both.warnings
    assert "offsets:utf8-bytes" in str(both.signature)
    auto = score_spans(chars, in_bytes, SpanOptions(offsets="auto", **named))  # type: ignore[arg-type]
    assert auto.counts.as_dict() == {"fn": 0, "fp": 0, "tp": 2}
    assert [w.message for w in auto.warnings] == [
        f"{in_bytes}: document 'd1': annotation texts match at UTF-8 byte offsets, not at "
        "character offsets: read as bytes (--offsets auto)"
    ]
    assert str(auto.signature).endswith("|missing-docs:count|offsets:auto")
    assert "offsets" not in str(score_spans(chars, chars, SpanOptions(**named)).signature)  # type: ignore[arg-type]


def _prodigy(path: Path, answers: list[str | None]) -> Path:
    lines = []
    for k, answer in enumerate(answers):
        item: dict[str, object] = {
            "text": "Ann met Bo",
            "spans": [{"start": 0, "end": 3, "label": "PER"}],
            "meta": {"id": f"d{k}"},
        }
        if answer is not None:
            item["answer"] = answer
        lines.append(json.dumps(item))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_answers_reach_the_prodigy_reader(tmp_path: Path) -> None:
    gold = _prodigy(tmp_path / "gold.jsonl", ["accept", "reject", "ignore", None])
    system = _prodigy(tmp_path / "system.jsonl", ["accept", "accept", "accept", "accept"])
    named = {"gold_format": "prodigy-jsonl", "system_format": "prodigy-jsonl"}
    plain = score_spans(gold, system, SpanOptions(**named))  # type: ignore[arg-type]
    assert plain.counts.as_dict() == {"fn": 0, "fp": 2, "tp": 2}
    assert f"{gold}: 2 line(s) left out (answer not accept)" in [w.message for w in plain.warnings]
    assert "answers" not in str(plain.signature)
    kept = SpanOptions(answers=("accept", "ignore"), **named)  # type: ignore[arg-type]
    result = score_spans(gold, system, kept)
    assert result.counts.as_dict() == {"fn": 0, "fp": 1, "tp": 3}
    assert f"{gold}: 1 line(s) left out (answer not accept or ignore)" in [
        w.message for w in result.warnings
    ]
    assert str(result.signature).endswith("|missing-docs:count|answers:accept,ignore")
    every = SpanOptions(answers=("accept", "reject", "ignore"), **named)  # type: ignore[arg-type]
    assert score_spans(gold, system, every).counts.as_dict() == {"fn": 0, "fp": 0, "tp": 4}
    with pytest.raises(InputError, match="'maybe' is not one of accept, reject, ignore"):
        SpanOptions(answers=("maybe",))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="name one answer at least"):
        score_spans(gold, system, SpanOptions(answers=(), **named))  # type: ignore[arg-type]


def test_options_with_no_effect_are_named_in_a_warning(tmp_path: Path) -> None:
    gold = _prodigy(tmp_path / "gold.jsonl", ["accept"])
    chars = _bioc_xml(tmp_path / "c.xml", "chars")
    named = {"gold_format": "prodigy-jsonl", "system_format": "prodigy-jsonl"}
    result = score_spans(gold, gold, SpanOptions(offsets="auto", **named))  # type: ignore[arg-type]
    assert [(w.code, w.message) for w in result.warnings] == [
        (
            "spans.option-unused",
            "--offsets 'auto' has no effect: neither side is BioC (prodigy-jsonl, prodigy-jsonl)",
        )
    ]
    bioc = SpanOptions(answers=("reject",), gold_format="bioc-xml", system_format="bioc-xml")
    assert [(w.code, w.message) for w in score_spans(chars, chars, bioc).warnings] == [
        (
            "spans.option-unused",
            "--answers 'reject' has no effect: neither side is Prodigy JSONL (bioc-xml, bioc-xml)",
        )
    ]
    plain = SpanOptions(gold_format="bioc-xml", system_format="bioc-xml")
    assert score_spans(chars, chars, plain).warnings == ()


def test_the_command_line_compare_and_report_take_them(tmp_path: Path) -> None:
    chars = _bioc_xml(tmp_path / "c.xml", "chars")
    in_bytes = _bioc_xml(tmp_path / "b.xml", "bytes")
    runner = CliRunner()
    done = runner.invoke(
        app, ["spans", str(chars), str(in_bytes), "--offsets", "auto", "-f", "json"]
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["counts"] == {"fn": 0, "fp": 0, "tp": 2}
    gold = _prodigy(tmp_path / "gold.jsonl", ["accept", "reject"])
    system = _prodigy(tmp_path / "system.jsonl", ["accept", "accept"])
    for flags in (["--answers", "accept,reject"], ["--answers", "accept", "--answers", "REJECT"]):
        done = runner.invoke(app, ["spans", str(gold), str(system), *flags, "-f", "json"])
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["counts"] == {"fn": 0, "fp": 0, "tp": 2}
    done = runner.invoke(app, ["spans", str(gold), str(system), "--answers", "no"])
    assert done.exit_code == 2 and "'no' is not one of accept, reject, ignore" in done.output
    # the Python API and compare/report's --option NAME=VALUE read them as the flags do
    through = annoscore.score("spans", chars, in_bytes, offsets="utf8-bytes")
    assert through.counts["tp"] == 0  # chars read as bytes: other mentions
    read = SpanOptions.from_values({"offsets": "auto", "answers": "accept,reject"}, cli=True)
    assert (read.offsets, read.answers) == ("auto", ("accept", "reject"))


def test_convert_takes_them_on_the_formats_they_read(tmp_path: Path) -> None:
    runner = CliRunner()
    in_bytes = _bioc_xml(tmp_path / "b.xml", "bytes")
    for flags, expected in (([], "T2\tChemical 11 18\tpirin w"), (["--offsets", "utf8-bytes"], "")):
        out = tmp_path / f"brat{len(flags)}"
        done = runner.invoke(app, ["convert", "bioc-xml", "brat", str(in_bytes), str(out), *flags])
        assert done.exit_code == 0, done.output
        ann = (out / "d1.ann").read_text(encoding="utf-8")
        assert expected in ann if expected else "T2\tChemical 9 16\taspirin" in ann, ann
    gold = _prodigy(tmp_path / "gold.jsonl", ["accept", "reject", "ignore"])
    out = tmp_path / "kept.jsonl"
    args = ["convert", "prodigy-jsonl", "spacy-jsonl", str(gold), str(out), "--answers", "reject"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["d1"]
    assert f"{gold}: 2 line(s) left out (answer not reject)" in done.output
    done = runner.invoke(
        app, ["convert", "prodigy-jsonl", "brat", str(gold), str(out), "--answers", "x"]
    )
    assert (
        done.exit_code == 2 and "--answers: 'x' is not one of accept, reject, ignore" in done.output
    )
    # each flag only where its format is read
    for source, flag in (
        ("brat", "--offsets"),
        ("bioc-xml", "--answers"),
        ("pubtator", "--offsets"),
    ):
        done = runner.invoke(app, ["convert", source, "brat", str(gold), str(out), flag, "auto"])
        assert done.exit_code == 2 and f"No such option: {flag}" in done.output, done.output
