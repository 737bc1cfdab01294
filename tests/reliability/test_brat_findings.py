"""One test per finding of issues 24 and 25 fixed in the brat reader, ``spans`` and PharmaCoNER,
each through the command line as a user meets it (exit status, one-line message naming file and
line, the numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli


def _folder(root: Path, name: str, files: dict[str, str]) -> Path:
    folder = root / name
    folder.mkdir()
    for file_name, content in files.items():
        (folder / file_name).write_text(content, encoding="utf-8")
    return folder


def _one_line_error(done: object, *parts: str) -> None:
    assert getattr(done, "exit_code") == 2, getattr(done, "output")  # noqa: B009
    stderr: str = getattr(done, "stderr")  # noqa: B009
    assert stderr.count("\n") == 1 and stderr.startswith("annoscore: error: "), stderr
    for part in parts:
        assert part in stderr, stderr


def test_a_type_name_of_17_bytes_or_more_is_read(cli: Cli, tmp_path: Path) -> None:
    """Issue 24: the folder scan's ``_type_keys`` read past its buffer (IndexError, exit 1)."""
    folder = _folder(tmp_path, "g", {"d.ann": "T1\tABCDEFGHIJKLMNOPQ 0 1\ta\nT2\tX 0 1\ta\n"})
    data = cli.json("spans", folder, folder, "--per-type")
    assert data["counts"] == {"fn": 0, "fp": 0, "tp": 2}
    assert set(data["types"]) == {"ABCDEFGHIJKLMNOPQ", "X"}


def test_type_names_equal_in_their_first_words_are_told_apart(cli: Cli, tmp_path: Path) -> None:
    """Issue 24: type names are equal only when their bytes are (no hash, every word)."""
    long = "Chemical_compound_of_class_"
    gold = _folder(tmp_path, "g", {"d.ann": f"T1\t{long}A 0 1\ta\nT2\t{long}B 2 3\tb\n"})
    system = _folder(tmp_path, "s", {"d.ann": f"T1\t{long}B 0 1\ta\nT2\t{long}B 2 3\tb\n"})
    data = cli.json("spans", gold, system)
    assert data["counts"] == {"fn": 1, "fp": 1, "tp": 1}


@pytest.mark.parametrize("command", [("spans",), ("pharmaconer", "ner")])
def test_a_5000_digit_offset_is_exit_2_naming_file_and_line(
    cli: Cli, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Issue 25: Python's 4,300-digit limit made it an internal error (exit 1)."""
    huge = "1" * 5000
    folder = _folder(tmp_path, "g", {"d.ann": f"T1\tX 0 1\ta\nT2\tX 0 {huge}\ta\n"})
    _one_line_error(cli(*command, folder, folder), "d.ann:2:", "beyond any text")


def test_a_5000_digit_offset_of_leading_zeros_is_its_value(cli: Cli, tmp_path: Path) -> None:
    zeros = "0" * 5000
    gold = _folder(tmp_path, "g", {"d.ann": "T1\tX 0 5\ta\n"})
    system = _folder(tmp_path, "s", {"d.ann": f"T1\tX {zeros} {zeros}5\ta\n"})
    assert cli.json("spans", gold, system)["counts"] == {"fn": 0, "fp": 0, "tp": 1}


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("R1\tRel Arg1:T1 Arg2:T9", "the relation refers to 'T9'"),
        ("#1\tAnnotatorNotes T9\tnote", "the note refers to 'T9'"),
        ("A1\tNegated T9", "the attribute refers to 'T9'"),
        ("M1\tConfidence T9 High", "the attribute refers to 'T9'"),
        ("N1\tReference T9 SNOMED:1\tx", "the normalisation refers to 'T9'"),
        ("E1\tTreat:T9 Theme:T1", "the event refers to 'T9'"),
        ("E1\tTreat:T1 Theme:T9", "the event refers to 'T9'"),
        ("*\tEquiv T1 T9", "the equivalence refers to 'T9'"),
    ],
)
def test_spans_refuses_an_annotation_pointing_to_a_missing_one(
    cli: Cli, tmp_path: Path, line: str, what: str
) -> None:
    """Issue 25: the generic commands refuse malformed input (exit 2, file and line)."""
    folder = _folder(tmp_path, "g", {"d.ann": f"T1\tX 0 1\ta\n{line}\nT2\tX 2 3\tb\n"})
    _one_line_error(cli("spans", folder, folder), "d.ann:2:", what)


def test_spans_reads_references_to_annotations_defined_later(cli: Cli, tmp_path: Path) -> None:
    content = "R1\tRel Arg1:T1 Arg2:E1\nE1\tTreat:T2 Theme:T1\nT1\tX 0 1\ta\nT2\tX 2 3\tb\n"
    folder = _folder(tmp_path, "g", {"d.ann": content})
    assert cli.json("spans", folder, folder)["counts"] == {"fn": 0, "fp": 0, "tp": 2}


def test_pharmaconer_ner_warns_of_text_after_a_space(cli: Cli, tmp_path: Path) -> None:
    """Issue 25: the README promises a warning for entity text separated by a space."""
    gold = _folder(tmp_path, "g", {"a.ann": "T1\tDRUG 0 7\taspirin\nT2\tDRUG 8 9\tx\n"})
    system = _folder(tmp_path, "s", {"a.ann": "T1\tDRUG 0 7 aspirin\nT2\tDRUG 8 9  x\n"})
    done = cli("pharmaconer", "ner", gold, system)
    assert done.exit_code == 0 and "Precision      1.0" in done.stdout
    assert "2 entity line(s) separate the text from the offsets with a space" in done.stderr
    assert "a.ann:1" in done.stderr and "a.ann:2" in done.stderr
    _one_line_error(
        cli("pharmaconer", "ner", gold, system, "--strict-input"), "a.ann:1:", "--strict-input"
    )


def test_pharmaconer_indexing_strips_trailing_whitespace(cli: Cli, tmp_path: Path) -> None:
    """Issue 24: the official script strips a TSV line's trailing whitespace, not its leading."""
    gold = _folder(tmp_path, "g", {"a.tsv": "a\t111\na\t222\n"})
    system = _folder(tmp_path, "s", {"a.tsv": "a\t 111\na\t222   \n"})
    data = cli.json("pharmaconer", "indexing", gold, system)
    assert data["counts"] == {"documents": 1, "fn": 1, "fp": 1, "tp": 1}
    assert any("a.tsv:2" in w and "end in whitespace, removed" in w for w in data["warnings"])


@pytest.mark.parametrize("subtrack", ["ner", "indexing"])
def test_pharmaconer_plain_scores_a_gold_document_without_system_file(
    cli: Cli, tmp_path: Path, subtrack: str
) -> None:
    """Issue 24: the plain script counts it (Total (N docs)) and misses its items."""
    if subtrack == "ner":
        files = {"a.ann": "T1\tDRUG 0 5\tx\n", "b.ann": "T1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\n"}
        run = {"a.ann": "T1\tDRUG 0 5\tx\n", "c.ann": "T1\tDRUG 0 5\tx\n"}
    else:
        files = {"a.tsv": "a\t1\n", "b.tsv": "b\t1\nb\t2\n"}
        run = {"a.tsv": "a\t1\n", "c.tsv": "c\t1\n"}
    gold, system = _folder(tmp_path, "g", files), _folder(tmp_path, "s", run)
    done = cli("pharmaconer", subtrack, gold, system)
    assert done.exit_code == 0
    assert "Total (2 docs)" in done.stdout and "Recall         0.3333" in done.stdout
    assert "1 gold document(s) have no system file and are scored" in done.stderr
    assert "1 system document(s) have no gold file and are left out" in done.stderr


def test_codalab_indexing_filters_a_row_by_the_document_it_names(cli: Cli, tmp_path: Path) -> None:
    """Issue 24: the CodaLab script looks a row's code up in the notes of the document the row
    names, which may not be its file's."""
    ann = _folder(
        tmp_path,
        "ann",
        {
            "a.ann": "T1\tUNCLEAR 0 5\tx\n#1\tAnnotatorNotes T1\t111\n",
            "b.ann": "T1\tDRUG 0 5\tx\n#1\tAnnotatorNotes T1\t111\n",
        },
    )
    gold = _folder(tmp_path, "g", {"b.tsv": "a\t111\nb\t222\n"})
    system = _folder(tmp_path, "s", {"b.tsv": "b\t222\n"})
    done = cli("pharmaconer", "indexing", gold, system, "--codalab", "--gold-ann", ann)
    assert done.exit_code == 0
    assert done.stdout.splitlines()[:3] == ["F1 : 1.0", "Precision : 1.0", "Recall : 1.0"]
    assert "b.tsv:1" in done.stderr and "b.tsv (rows naming a)" in done.stderr
