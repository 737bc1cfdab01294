"""``annoscore conlleval``: conlleval.pl (2004-01-26) byte for byte on the shared data, and the
spec's probes (formats.md): E followed by B, ``S-X S-X``, bare labels, ``-r -o``, ``-d`` as a
regular expression, CRLF, ``-DOCSTART-``, the doubled empty-type line, empty input."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.report.conlleval import render_conlleval, render_conlleval_latex
from annoscore.tasks.conlleval import (
    ConllevalOptions,
    count_conlleval,
    score_conlleval,
    score_conlleval_file,
    score_conlleval_text,
)
from tests.conftest import Cli

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "bio"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/bio is not here")


@needs_data
@pytest.mark.parametrize(
    ("source", "expected", "latex"),
    [
        ("iob2.txt", "iob2.conlleval.txt", False),
        ("iob2.txt", "iob2.conlleval-l.txt", True),
        ("iobes.txt", "iobes.conlleval.txt", False),
    ],
)
def test_byte_for_byte_the_official_output(source: str, expected: str, latex: bool) -> None:
    result = score_conlleval_file(DATA / source)
    render = render_conlleval_latex if latex else render_conlleval
    assert render(result).encode() == (DATA / expected).read_bytes()


@needs_data
def test_the_command_line_prints_the_official_bytes_from_stdin_and_a_file(cli: Cli) -> None:
    expected = (DATA / "iob2.conlleval.txt").read_text()
    assert cli("conlleval", DATA / "iob2.txt").stdout == expected
    from typer.testing import CliRunner

    from annoscore.cli import app

    piped = CliRunner().invoke(app, ["conlleval"], input=(DATA / "iob2.txt").read_bytes())
    assert piped.exit_code == 0 and piped.stdout == expected
    latex = CliRunner().invoke(
        app, ["conlleval", "-l", "-"], input=(DATA / "iob2.txt").read_bytes()
    )
    assert latex.stdout == (DATA / "iob2.conlleval-l.txt").read_text()


def _report(text: str, **options: object) -> str:
    return render_conlleval(score_conlleval_text(text, "probe", ConllevalOptions(**options)))  # type: ignore[arg-type]


def _lines(*rows: str) -> str:
    return "".join(row + "\n" for row in rows)


def test_e_followed_by_b_of_one_type_does_not_end_a_phrase() -> None:
    text = _lines("a B-X B-X", "b E-X I-X", "c B-X I-X", "d E-X E-X")
    result = score_conlleval_text(text, "probe")
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1, 0, 0)
    assert _report(text).startswith(
        "processed 4 tokens with 1 phrases; found: 1 phrases; correct: 1."
    )
    assert any(w.code == "conlleval.iobes" for w in result.warnings)


def test_adjacent_s_tags_of_one_type_are_one_phrase() -> None:
    result = score_conlleval_text(_lines("a S-X S-X", "b S-X S-X"), "probe")
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1, 0, 0)


def test_bare_labels_find_no_phrase_without_r_and_one_token_phrases_with_it() -> None:
    text = _lines("a PER PER", "b PER PER", "c O LOC")
    plain = score_conlleval_text(text, "probe")
    assert plain.counts["tp"] + plain.counts["fp"] + plain.counts["fn"] == 0
    assert any(w.code == "conlleval.bare-labels" for w in plain.warnings)
    assert _report(text).startswith("processed 3 tokens with 0 phrases; found: 0 phrases")
    raw = score_conlleval_text(text, "probe", ConllevalOptions(raw=True))
    assert (raw.counts["tp"], raw.counts["fp"], raw.counts["fn"]) == (2, 1, 0)


def test_the_outside_tag_acts_only_with_r() -> None:
    text = _lines("a NONE NONE", "b PER NONE", "c NONE PER")
    raw = score_conlleval_text(text, "probe", ConllevalOptions(raw=True, outside_tag="NONE"))
    assert (raw.counts["tp"], raw.counts["fp"], raw.counts["fn"]) == (0, 1, 1)
    assert raw.scores["accuracy"] == pytest.approx(1 / 3)
    # without -r, NONE is an unprefixed tag: after a typed tag it starts a phrase of the empty
    # type, whose line is printed twice (once per side it appears on)
    typed = _lines("a B-PER B-PER", "b NONE NONE")
    plain = score_conlleval_text(typed, "probe", ConllevalOptions(outside_tag="NONE"))
    assert plain.counts["tp"] == 2 and plain.counts["fn"] == 0
    report = render_conlleval(plain)
    empty = [line for line in report.splitlines() if line.startswith(" " * 17 + ":")]
    assert len(empty) == 2


def test_delimiter_is_a_perl_regular_expression() -> None:
    assert _report(_lines("a\tB-X\tB-X"), delimiter="\\t").startswith(
        "processed 1 tokens with 1 phrases; found: 1 phrases; correct: 1."
    )
    # an unescaped bar splits between every character: gold '|', guess 'B'
    result = score_conlleval_text(_lines("a|B|B"), "probe", ConllevalOptions(delimiter="|"))
    assert result.counts["tokens"] == 1
    assert result.counts["fp"] == 1 and result.counts["fn"] == 0
    escaped = score_conlleval_text(_lines("a|B-X|B-X"), "p", ConllevalOptions(delimiter="\\|"))
    assert escaped.counts["tp"] == 1
    # two spaces make an empty field: another number of fields than the first line
    with pytest.raises(InputError, match="unexpected number of features: 4 \\(3\\)"):
        score_conlleval_text(_lines("a B-X B-X", "b  O O"), "probe")


def test_crlf_keeps_the_carriage_return_so_types_never_match() -> None:
    result = score_conlleval_text("a B-ORG B-ORG\r\nb O O\r\n", "probe")
    # the guess ORG\r never matches ORG, and O\r is no O: it starts a phrase of the empty type
    assert result.counts["tp"] == 0 and result.counts["fp"] == 2 and result.counts["fn"] == 1
    assert "ORG\r: precision" in render_conlleval(result)
    crlf = [w for w in result.warnings if w.code == "conlleval.crlf"]
    assert crlf and crlf[0].tolerated
    with pytest.raises(InputError, match="CRLF"):  # a blank line is then one field: \r
        score_conlleval_text("a B-ORG B-ORG\r\n\r\nb O O\r\n", "probe")


def test_docstart_is_a_token_and_a_boundary_line_is_not() -> None:
    text = _lines("-DOCSTART- -X- O O", "", "a NN B-X B-X", "-X- ignored O O", "b NN O B-X")
    result = score_conlleval_text(text, "probe")
    assert result.counts["tokens"] == 3  # -DOCSTART-, a, b
    assert result.counts["correct_tokens"] == 2
    docstart = [w for w in result.warnings if w.code == "conlleval.docstart"]
    assert docstart and "50.00%" in str(docstart[0])


def test_empty_input_prints_only_the_first_line() -> None:
    assert _report("") == "processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"


def test_type_split_at_the_first_hyphen_and_undefined_prints_zero() -> None:
    report = _report(_lines("a B-DNA-binding O"))
    assert "processed 1 tokens with 1 phrases; found: 0 phrases; correct: 0." in report
    assert "accuracy:   0.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00" in report
    assert "      DNA-binding: precision:   0.00%; recall:   0.00%; FB1:   0.00  0" in report


def test_two_files_pair_by_document_then_line() -> None:
    gold = _lines("-DOCSTART- d1 O", "a NN B-X", "-DOCSTART- d2 O", "b NN B-Y")
    system = _lines("-DOCSTART- d2 O", "b NN B-Y", "-DOCSTART- d1 O", "a NN O")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        g, s = Path(folder) / "g", Path(folder) / "s"
        g.write_text(gold)
        s.write_text(system)
        result = score_conlleval(g, s)
        assert result.document_counts()["d1"]["fn"] == 1
        assert result.document_counts()["d2"]["tp"] == 1
        s.write_text(_lines("-DOCSTART- d1 O", "z NN B-X", "-DOCSTART- d2 O", "b NN B-Y"))
        with pytest.raises(InputError, match="token 'z' where the gold file has token 'a'"):
            score_conlleval(g, s)


def test_in_memory_sentences_are_separated_by_boundaries() -> None:
    result = count_conlleval([["B-X"], ["I-X"]], [["B-X"], ["I-X"]])
    assert result.counts["tp"] == 2  # the boundary ends the first phrase; O->I starts one


def test_json_carries_accuracy_and_per_type(cli: Cli) -> None:
    from annoscore.samples import sample_path

    data = cli.json(
        "conlleval", sample_path("bio", "gold.conll"), sample_path("bio", "system.conll")
    )
    assert set(data["scores"]) == {"accuracy", "precision", "recall", "f1"}
    assert set(data["types"]) == {"LOC", "MISC", "ORG", "PER"}
    assert data["counts"]["tokens"] == 23


def test_bad_input_exits_2_with_file_and_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("a B-X B-X\nb O\n")
    result = cli("conlleval", bad)
    assert result.exit_code == 2
    assert f"{bad}:2" in result.stderr


def test_a_bare_label_opens_a_phrase_that_o_does_not_close() -> None:
    tags = [["B-X", "PER", "O", "B-X"]]
    result = count_conlleval(tags, tags)  # a perfect guess, by conlleval's rules not 1.0
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (2, 1, 1)
    assert result.scores["accuracy"] == 1.0


def test_strict_input_refuses_the_crlf_quirk(cli: Cli, tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"a B-ORG B-ORG\r\nb O O\r\n")
    assert cli("conlleval", crlf).exit_code == 0
    refused = cli("conlleval", crlf, "--strict-input")
    assert refused.exit_code == 2 and "carriage return" in refused.stderr


def _untitled(folder: Path, name: str, tags: str) -> Path:
    """A tag file of two sentences without a ``-DOCSTART-`` line (one document: the file)."""
    words = ["John", "lives", "", "in", "Paris"]
    rows = [f"{w} NNP {t}" if w else "" for w, t in zip(words, tags.split(" "), strict=True)]
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(*rows))
    return path


def test_two_files_without_docstart_pair_by_position_whatever_their_names(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold = _untitled(tmp_path, "g.txt", "B-PER O  O B-LOC")
    system = _untitled(tmp_path, "s1.txt", "B-PER B-LOC  O B-LOC")
    text = cli("conlleval", gold, system)
    assert text.exit_code == 0, text.output
    assert "processed 4 tokens with 2 phrases; found: 3 phrases; correct: 2." in text.stdout
    # the same numbers as the files named alike in two folders (paired by name)
    alike = _untitled(tmp_path / "a", "g.txt", "B-PER O  O B-LOC")
    alike_system = _untitled(tmp_path / "b", "g.txt", "B-PER B-LOC  O B-LOC")
    assert cli("conlleval", alike, alike_system).stdout == text.stdout
    one = cli.json("conlleval", gold, system, "--per-doc")
    assert list(one["documents"]) == ["g.txt"]  # the gold file's name
    assert one["documents"]["g.txt"]["counts"]["fp"] == 1
    import annoscore.scale as scale

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)  # small files are cut
    for args in ((gold, system), (gold, system, "--per-doc", "--format", "json")):
        jobs = cli("conlleval", *args, "--jobs", "2")
        assert jobs.exit_code == 0 and jobs.stdout == cli("conlleval", *args).stdout


def test_files_with_docstart_still_pair_by_id_and_refuse_other_ids(tmp_path: Path) -> None:
    gold, system, untitled = tmp_path / "g.txt", tmp_path / "s.txt", tmp_path / "u.txt"
    gold.write_text(_lines("-DOCSTART- d1 O", "a NN B-X", "", "b NN B-Y"))
    system.write_text(_lines("-DOCSTART- d2 O", "a NN B-X", "", "b NN B-Y"))
    untitled.write_text(_lines("a NN B-X", "", "b NN B-Y"))
    with pytest.raises(InputError, match="has no document 'd1' of the gold file"):
        score_conlleval(gold, system)
    # one side with a -DOCSTART- line, the other without: paired by id, refused
    with pytest.raises(InputError, match="has no document 'd1' of the gold file"):
        score_conlleval(gold, untitled)
    with pytest.raises(InputError, match=r"has no document 'u\.txt' of the gold file"):
        score_conlleval(untitled, gold)
    both = tmp_path / "same.txt"
    both.write_text(_lines("-DOCSTART- d1 O", "a NN B-X", "", "b NN O"))
    assert score_conlleval(gold, both).counts["fn"] == 1  # the same id: paired


@pytest.mark.parametrize("task", ["conlleval", "seqeval"])
def test_compare_and_report_take_tag_files_without_docstart(
    cli: Cli, tmp_path: Path, task: str
) -> None:
    gold = _untitled(tmp_path, "gold.txt", "B-PER O  O B-LOC")
    one = _untitled(tmp_path, "pred1.txt", "B-PER B-LOC  O B-LOC")
    two = _untitled(tmp_path, "pred2.txt", "B-PER O  O O")
    compared = cli("compare", task, gold, one, two, "--samples", "10")
    assert compared.exit_code == 0, compared.output
    assert "pred2.txt" in compared.stdout
    page = tmp_path / "report.html"
    reported = cli("report", task, gold, one, two, "--samples", "10", "-o", page)
    assert reported.exit_code == 0, reported.output
    assert "pred2.txt" in page.read_text()


def test_a_warning_names_the_file_and_line_of_the_tag_that_shows_it(tmp_path: Path) -> None:
    """Two files: a CRLF, a bare label or an S-/E- tag of the system file is named by the system
    file and its own line (its documents in another order than the gold's); -DOCSTART- lines by
    the gold file."""
    gold = tmp_path / "g.txt"
    system = tmp_path / "s.txt"
    gold.write_bytes(
        b"-DOCSTART- d1 O\n\nJohn NNP B-PER\nruns VBZ O\n\n-DOCSTART- d2 O\n\nMary NNP B-PER\n"
        b"sings VBZ O\n\n"
    )
    system.write_bytes(
        b"-DOCSTART- d2 O\n\nMary NNP PER\nsings VBZ O\n\n-DOCSTART- d1 O\n\nJohn NNP S-PER\n"
        b"runs VBZ O\r\n\n"
    )
    result = score_conlleval(gold, system)
    found = {w.code: w.examples for w in result.warnings}
    assert found["conlleval.bare-labels"] == (f"{system}:9", f"{system}:3")  # "O\\r" is one
    assert found["conlleval.iobes"] == (f"{system}:8",)
    assert found["conlleval.crlf"] == (f"{system}:9",)
    assert found["conlleval.docstart"] == (f"{gold}:1", f"{gold}:6")
