"""``annoscore seqeval``: seqeval 1.2.2's numbers on the shared data, its traps named, the
command line's contract."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from annoscore.cli import app
from annoscore.errors import InputError
from annoscore.metrics.seqeval import Mode, Scheme
from annoscore.samples import sample_path
from annoscore.tasks.seqeval import SeqevalOptions, count_seqeval, score_seqeval_file
from tests.conftest import Cli

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "bio"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/bio is not here")


@needs_data
@pytest.mark.parametrize(
    ("source", "key", "options"),
    [
        ("iob2.txt", "default", SeqevalOptions()),
        ("iob2.txt", "strict_IOB2", SeqevalOptions(mode=Mode.strict, scheme=Scheme.iob2)),
        ("iobes.txt", "default", SeqevalOptions()),
        ("iobes.txt", "strict_IOBES", SeqevalOptions(mode=Mode.strict, scheme=Scheme.iobes)),
        ("iob2.txt", "strict_IOB2", SeqevalOptions(mode=Mode.strict)),  # detected
    ],
)
def test_the_classification_report_of_seqeval_on_the_shared_files(
    source: str, key: str, options: SeqevalOptions
) -> None:
    expected = json.loads((DATA / "seqeval_1.2.2.json").read_text())[source][key]
    report = score_seqeval_file(DATA / source, options).extra["seqeval"]
    assert report == expected  # exact: the same arithmetic as seqeval


def test_iob2_data_read_as_iob1_loses_first_tokens_and_says_so() -> None:
    result = count_seqeval(
        [["B-X", "I-X", "O"]],
        [["B-X", "I-X", "O"]],
        SeqevalOptions(mode=Mode.strict, scheme=Scheme.iob1),
    )
    assert result.counts["tp"] == 1  # the entity (1, 2): seqeval's reading
    ill = [w for w in result.warnings if w.code == "seqeval.ill-formed-gold"]
    assert ill and "IOB1 starts no entity at a B after O" in str(ill[0])


def test_ill_formed_sequences_score_zero_with_a_warning_not_an_exception() -> None:
    options = SeqevalOptions(mode=Mode.strict, scheme=Scheme.iob2)
    result = count_seqeval([["I-X", "I-X"]], [["I-X", "I-X"]], options)
    assert result.counts["tp"] + result.counts["fp"] + result.counts["fn"] == 0
    codes = {w.code for w in result.warnings}
    assert {"seqeval.ill-formed-gold", "seqeval.ill-formed-predicted", "undefined"} <= codes


def test_a_prefix_the_scheme_does_not_allow_is_an_error_naming_the_token() -> None:
    expected = r"'S-X': its prefix is not one the IOB2.*\(sentence 1 token 2\)"
    with pytest.raises(InputError, match=expected):
        count_seqeval(
            [["B-X", "S-X"]], [["B-X", "O"]], SeqevalOptions(mode=Mode.strict, scheme=Scheme.iob2)
        )


def test_iob1_is_never_detected() -> None:
    with pytest.raises(InputError, match="never IOB1"):
        count_seqeval([["I-X", "O"]], [["I-X", "O"]], SeqevalOptions(mode=Mode.strict))


def test_bare_labels_score_one_in_default_mode_with_a_warning() -> None:
    result = count_seqeval([["PER", "O"]], [["PER", "O"]])
    assert result.scores["f1"] == 1.0
    bare = [w for w in result.warnings if w.code == "seqeval.bare-labels"]
    assert bare and "'PER': prefix 'P', type 'ER'" in str(bare[0])


def test_default_mode_ends_at_e_and_s_where_conlleval_does_not() -> None:
    result = count_seqeval([["B-X", "E-X", "B-X", "E-X"]], [["B-X", "I-X", "I-X", "E-X"]])
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (0, 1, 2)
    adjacent = count_seqeval([["S-X", "S-X"]], [["S-X", "S-X"]])
    assert adjacent.counts["tp"] == 2


def test_json_contract_and_report(cli: Cli, tmp_path: Path) -> None:
    data = cli.json(
        "seqeval",
        sample_path("bio", "gold.conll"),
        sample_path("bio", "system.conll"),
        "--per-type",
    )
    assert data["task"] == "seqeval"
    assert set(data["scores"]) == {"accuracy", "precision", "recall", "f1"}
    assert {"micro avg", "macro avg", "weighted avg", "LOC"} <= set(data["seqeval"])
    assert data["seqeval"]["LOC"]["support"] == 2  # the gold count
    gold, pred = tmp_path / "gold.json", tmp_path / "pred.json"
    gold.write_text(json.dumps([["B-PER", "E-PER", "O"], ["S-LOC"]]))
    pred.write_text(json.dumps([["B-PER", "E-PER", "O"], ["O"]]))
    strict = cli.json("seqeval", gold, pred, "--mode", "strict", "--scheme", "iobes")
    assert strict["counts"]["tp"] == 1 and strict["counts"]["fn"] == 1
    assert "mode:strict|scheme:iobes" in strict["signature"]


def test_bad_input_exits_2(cli: Cli, tmp_path: Path) -> None:
    gold, pred = tmp_path / "gold.json", tmp_path / "pred.json"
    gold.write_text(json.dumps([["B-PER", "O"]]))
    pred.write_text(json.dumps([["B-PER"]]))
    result = cli("seqeval", gold, pred)
    assert result.exit_code == 2 and "sentence 1 has 1 tags where the gold has 2" in result.stderr
    tagged = tmp_path / "t.txt"
    tagged.write_text("a B-X B-X\nb S-X O\n")
    result = cli("seqeval", tagged, "--mode", "strict", "--scheme", "iob2")
    assert result.exit_code == 2 and f"{tagged}:2" in result.stderr


def test_standard_input_is_named_stdin_and_scores_as_the_file(cli: Cli, tmp_path: Path) -> None:
    """Tags from standard input: errors and warnings name ``<stdin>`` and its line (no
    temporary file's path), and the scores are those of the same bytes in a file; the checked
    reader (a line the fast scan declines) and a byte-order mark too."""
    bad = "a B-X B-X\nb S-X O\n"
    result = cli.runner.invoke(
        app, ["seqeval", "-", "--mode", "strict", "--scheme", "iob2"], input=bad
    )
    assert result.exit_code == 2 and "<stdin>:2" in result.stderr and "tmp" not in result.stderr
    for text in ("a B-X B-X\nb I-X O\n\nc B-Y B-Y\n", "\ufeffa B-X\tB-X\nb I-X   O\n"):
        tagged = tmp_path / "t.txt"
        tagged.write_text(text, encoding="utf-8")
        from_file = cli.json("seqeval", tagged)
        piped = cli.runner.invoke(app, ["seqeval", "-", "--format", "json"], input=text)
        assert piped.exit_code == 0, piped.output
        from_stdin = json.loads(piped.stdout)
        assert from_stdin["scores"] == from_file["scores"]
        assert [w.replace(str(tagged), "<stdin>") for w in from_file["warnings"]] == from_stdin[
            "warnings"
        ]


def test_io_scheme_is_runs_of_one_type() -> None:
    options = SeqevalOptions(mode=Mode.strict, scheme=Scheme.io)
    result = count_seqeval(
        [["I-X", "I-X", "I-Y", "O", "I-X"]], [["I-X", "I-X", "O", "O", "I-X"]], options
    )
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (2, 0, 1)


def test_per_doc_documents_are_docstart_blocks(cli: Cli) -> None:
    data = cli.json(
        "seqeval", sample_path("bio", "gold.conll"), sample_path("bio", "system.conll"), "--per-doc"
    )
    assert set(data["documents"]) == {"doc1", "doc2"}
    assert data["documents"]["doc2"]["counts"]["fn"] == 0


def test_two_large_tag_files_are_scored_chunk_by_chunk_with_one_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annoscore.scale.cut_lines import MIN_LINE_BYTES
    from annoscore.tasks import seqeval

    assert seqeval._LARGE_BYTES == MIN_LINE_BYTES  # the size from which the files are cut
    gold, system = sample_path("bio/gold.conll"), sample_path("bio/system.conll")
    both = gold.stat().st_size + system.stat().st_size
    monkeypatch.setattr(seqeval, "_LARGE_BYTES", both)
    assert seqeval._large(gold, system)
    assert not seqeval._large(gold, tmp_path / "missing.conll")  # the reader says why
    monkeypatch.setattr(seqeval, "_LARGE_BYTES", both + 1)
    assert not seqeval._large(gold, system)
    # the dispatch: large files go through the chunks even where annoscore.scale is not loaded
    monkeypatch.setattr(seqeval, "_LARGE_BYTES", both)
    monkeypatch.delitem(sys.modules, "annoscore.scale", raising=False)
    called: list[tuple[Path, Path]] = []
    monkeypatch.setattr(seqeval, "_cut", lambda: lambda g, s, o: called.append((g, s)))
    seqeval.score_seqeval(gold, system)
    assert called == [(gold, system)]


@pytest.mark.parametrize(
    "mode", [[], ["--mode", "strict"], ["--mode", "strict", "--scheme", "iob2"]]
)
def test_two_files_without_docstart_pair_by_position_whatever_their_names(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: list[str]
) -> None:
    gold, system = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text("John B-PER\nlives O\n\nin O\nParis B-LOC\n")
    system.write_text("John B-PER\nlives B-LOC\n\nin O\nParis B-LOC\n")
    data = cli.json("seqeval", gold, system, "--per-doc", *mode)
    assert (data["counts"]["tp"], data["counts"]["fp"], data["counts"]["fn"]) == (2, 1, 0)
    assert list(data["documents"]) == ["gold.txt"]  # the gold file's name
    import annoscore.scale as scale

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)  # small files are cut
    for args in ((), ("--per-doc", "--format", "json")):
        one = cli("seqeval", gold, system, *mode, *args)
        assert one.exit_code == 0, one.output
        assert cli("seqeval", gold, system, *mode, *args, "--jobs", "2").stdout == one.stdout


def test_problems_of_the_predicted_file_name_it_and_its_lines(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """Ill-formed sequences, tags the scheme does not allow, bare labels and empty tags name
    the file they are in (the predicted one's own lines, its documents in another order than
    the gold's); the scheme detected from the gold tags names the gold file."""
    gd, sd = tmp_path / "gd", tmp_path / "sd"
    gd.mkdir()
    sd.mkdir()
    strict = ("--mode", "strict", "--scheme", "iob2", "--format", "json")
    (gd / "w2.txt").write_text("John B-PER\nlives O\n\nin O\nParis B-LOC\n")
    (sd / "w2.txt").write_text("John B-PER\nlives I-LOC\n\nin O\nParis B-LOC\n")
    data = cli.json("seqeval", gd / "w2.txt", sd / "w2.txt", *strict[:-2])
    assert data["warnings"][0].endswith(f"(e.g. {sd / 'w2.txt'}:2)")
    data = cli.json("seqeval", sd / "w2.txt", gd / "w2.txt", *strict[:-2])  # gold ill-formed
    assert data["warnings"][0].startswith("1 non-O gold tokens")
    assert data["warnings"][0].endswith(f"(e.g. {sd / 'w2.txt'}:2)")
    # documents in another order: the predicted file's own line
    (gd / "d.txt").write_text("-DOCSTART- d1 O\na N B-X\nb N O\n-DOCSTART- d2 O\nc N B-Y\n")
    (sd / "d.txt").write_text("-DOCSTART- d2 O\nc N B-Y\n-DOCSTART- d1 O\na N B-X\nb N I-Y\n")
    data = cli.json("seqeval", gd / "d.txt", sd / "d.txt", *strict[:-2])
    assert data["warnings"][0].endswith(f"(e.g. {sd / 'd.txt'}:5)")
    (sd / "s.txt").write_text("-DOCSTART- d2 O\nc N B-Y\n-DOCSTART- d1 O\na N B-X\nb N S-Y\n")
    result = cli("seqeval", gd / "d.txt", sd / "s.txt", *strict)
    assert result.exit_code == 2
    assert f"{sd / 's.txt'}:5: predicted tag 'S-Y'" in result.stderr
    result = cli("seqeval", sd / "s.txt", gd / "d.txt", *strict)
    assert result.exit_code == 2 and f"{sd / 's.txt'}:5: gold tag 'S-Y'" in result.stderr
    # bare labels in default mode: each side's examples in its file
    (sd / "bare.txt").write_text("John B-PER\nlives PER\n\nin O\nParis B-LOC\n")
    data = cli.json("seqeval", gd / "w2.txt", sd / "bare.txt")
    assert data["warnings"][0].endswith(f"(e.g. {sd / 'bare.txt'}:2)")
    # JSON sentences: the predicted file, sentence and token
    (gd / "bad.json").write_text(json.dumps([["B-PER", "O"]]))
    (sd / "bad.json").write_text(json.dumps([["B-PER", "PER"]]))
    result = cli("seqeval", gd / "bad.json", sd / "bad.json", *strict)
    assert result.exit_code == 2
    assert f"{sd / 'bad.json'}: predicted tag 'PER'" in result.stderr
    assert "(sentence 1 token 2)" in result.stderr
    (sd / "empty.json").write_text(json.dumps([["B-PER", ""]]))
    result = cli("seqeval", gd / "bad.json", sd / "empty.json")
    assert result.exit_code == 2
    assert f"{sd / 'empty.json'}: an empty tag (sentence 1 token 2)" in result.stderr
    (sd / "ill.json").write_text(json.dumps([["B-PER", "I-LOC"]]))
    data = cli.json("seqeval", gd / "bad.json", sd / "ill.json", *strict[:-2])
    assert data["warnings"][0].endswith(f"(e.g. {sd / 'ill.json'}: sentence 1 token 2)")
    # the scheme is detected from the gold tags: the error names the gold file
    (gd / "io.txt").write_text("John I-PER\nlives O\n")
    (sd / "io.txt").write_text("John B-PER\nlives O\n")
    result = cli("seqeval", gd / "io.txt", sd / "io.txt", "--mode", "strict")
    assert result.exit_code == 2 and f"{gd / 'io.txt'}: cannot detect" in result.stderr
    # cut into chunks (--jobs 2): the same bytes, the same file named
    import annoscore.scale as scale
    from annoscore.scale.cut_tags import split_tag_files

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)  # small files are cut
    gold = "".join(f"-DOCSTART- d{k} O\n\na N B-X\nb N O\n\n" for k in range(20))
    (gd / "many.txt").write_text(gold)
    system = gold.replace("b N O\n\n-DOCSTART- d7", "b N I-Y\n\n-DOCSTART- d7")
    (sd / "many.txt").write_text(system)
    assert split_tag_files(gd / "many.txt", sd / "many.txt", 2) is not None
    for options in (strict[:-2], ("--mode", "strict", "--per-doc", "--format", "json")):
        one = cli("seqeval", gd / "many.txt", sd / "many.txt", *options)
        assert f"(e.g. {sd / 'many.txt'}:34)" in one.output
        exact.clear()
        jobs = cli("seqeval", gd / "many.txt", sd / "many.txt", *options, "--jobs", "2")
        assert (jobs.exit_code, jobs.stdout, jobs.stderr) == (0, one.stdout, one.stderr)
        assert exact == [True]  # cut, and the chunks combined


@pytest.mark.parametrize(
    ("system", "message"),
    [
        ('[["B-X"], ["O"]]', "{s}: 2 sentences where the gold has 1; both sides need as many"),
        ('[["B-X"', "{s}:1: not JSON: Expecting ',' delimiter"),
        ('{"a": 1}', "{s}: expected a JSON list of sentences, each a list of tag strings"),
        ('[["B-X", 3]]', "{s}: expected a JSON list of sentences, each a list of tag strings"),
    ],
)
def test_json_tag_lists_that_cannot_be_scored_are_named(
    tmp_path: Path, system: str, message: str
) -> None:
    from annoscore.tasks.seqeval import score_seqeval

    (tmp_path / "gold.json").write_text('[["B-X"]]')
    (tmp_path / "system.json").write_text(system)
    with pytest.raises(InputError) as caught:
        score_seqeval(tmp_path / "gold.json", tmp_path / "system.json")
    assert str(caught.value) == message.format(s=tmp_path / "system.json")
