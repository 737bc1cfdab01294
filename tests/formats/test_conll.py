from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.conll import parse_conll, read_conll
from tests.conftest import shared_data


def doc(*cells: str, name: str = "(d); part 000") -> str:
    """A one-document CoNLL text, one token line per cell (``""`` = blank line)."""
    lines = [f"#begin document {name}"]
    lines += [f"d 0 {i} w {c}" if c else "" for i, c in enumerate(cells)]
    return "\n".join([*lines, "#end document", ""])


def spans(text: str) -> set[frozenset[tuple[int, int]]]:
    return set(parse_conll(text).documents[0].entities)


def test_reads_reference_key_tab_separated() -> None:
    parsed = read_conll(shared_data("coref", "reference", "TC-A.key"))
    (document,) = parsed.documents
    assert document.name == "(LuoTestCase); "  # trailing space kept, as the reference does
    assert document.tokens == 20  # the blank line between sentences is not a token
    assert set(document.entities) == {
        frozenset({(0, 1)}),
        frozenset({(3, 6), (9, 9)}),
        frozenset({(11, 12), (14, 14), (16, 18)}),
    }


def test_reads_space_separated_two_column_files() -> None:
    (document,) = read_conll(shared_data("coref", "reference", "TC-B.key")).documents
    assert document.name == "(nw/xinhua/00/chtb_0009); part 000"
    assert sum(len(e) for e in document.entities) == 5


def test_blank_lines_do_not_advance_the_token_counter() -> None:
    assert spans(doc("(1", "", "1)", "", "", "(1)")) == {frozenset({(0, 1), (2, 2)})}


def test_openings_without_separator_like_reference() -> None:
    # TC-A-8 style: '(1(3' opens two mentions on one token (coval drops the first)
    assert spans(doc("(1(3", "-", "3)1)")) == {frozenset({(0, 2)})}  # same span twice: one kept
    assert spans(doc("(1(3", "3)", "1)")) == {frozenset({(0, 2)}), frozenset({(0, 1)})}


def test_single_token_mentions_read_before_openings_and_closings() -> None:
    # '1)|(1' closes and reopens entity 1: openings are read before closings, so the closing
    # pops the opening of the same cell (a one-token mention) and the first opening stays open.
    assert spans(doc("(1", "1)|(1", "1)")) == {frozenset({(1, 1), (0, 2)})}
    assert spans(doc("(2)|(1", "(2)|1)")) == {frozenset({(0, 0), (1, 1)}), frozenset({(0, 1)})}


def test_nested_same_entity_is_lifo() -> None:
    assert spans(doc("(1", "(1", "1)", "1)")) == {frozenset({(1, 2), (0, 3)})}


def test_duplicate_mention_first_opening_wins_like_reference_a8() -> None:
    parsed = parse_conll(doc("(1(3", "-", "3)1)", "(3)"))
    assert set(parsed.documents[0].entities) == {frozenset({(0, 2)}), frozenset({(3, 3)})}
    assert parsed.duplicates == 1
    assert "1 repeated mention(s) in the response removed" in parsed.warnings("response")[0]


def test_reference_a9_ten_repeats_are_removed_not_refused() -> None:
    parsed = read_conll(shared_data("coref", "reference", "TC-A-9.response"))
    assert parsed.duplicates == 10


def test_dash_and_underscore_mean_no_mention() -> None:
    assert spans(doc("-", "_", "(4)")) == {frozenset({(2, 2)})}


def test_split_antecedent_cells_are_discarded_and_counted() -> None:
    parsed = parse_conll(doc("(1+2)", "(1)"))
    assert set(parsed.documents[0].entities) == {frozenset({(1, 1)})}
    assert parsed.split_antecedents == 1 and "(N+M)" in parsed.warnings("key")[0]


def test_unreadable_cell_text_is_counted() -> None:
    parsed = parse_conll(doc("x", "(1)"))
    assert parsed.unreadable_cells == 1 and parsed.warnings("key")


def test_several_documents_and_lines_outside_documents() -> None:
    text = "junk\n" + doc("(1)", name="a") + doc("(1", "1)", name="b")
    parsed = parse_conll(text)
    assert [d.name for d in parsed.documents] == ["a", "b"]
    assert parsed.ignored_lines == 1
    assert parsed.documents[1].line == 5


def test_crlf_line_endings() -> None:
    parsed = parse_conll(doc("(1", "1)", name="x").replace("\n", "\r\n"))
    assert parsed.documents[0].name == "x"
    assert set(parsed.documents[0].entities) == {frozenset({(0, 1)})}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (doc("(1", "-"), 2, "'(1' is never closed"),
        (doc("-", "1)"), 3, "closing bracket '1)' without an opening"),
        (doc("(2", "1)"), 3, "without an opening"),
        ("#begin document x\nd (1)\n", 1, "not closed"),
        ("#begin document x\n#begin document y\n", 2, "inside an open document"),
        (doc("(1)", name="x") + doc("(1)", name="x"), 4, "document name repeated"),
        ("d 0 (1)\n", None, "no '#begin document' line"),
        ("", None, "no '#begin document' line"),
        ("#end document\n", 1, "without '#begin document'"),
    ],
)
def test_bad_input_names_file_line_and_document(text: str, line: int | None, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_conll(text, "f.conll")
    error = caught.value
    assert error.path == "f.conll" and error.line == line and words in error.message
    if line is not None and "#begin document x" in text and "repeated" not in words:
        assert error.document is not None


def test_missing_file_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_conll(tmp_path / "nope.conll")
    bad = tmp_path / "bad.conll"
    bad.write_bytes(b"#begin document x\nd \xff\n#end document\n")
    with pytest.raises(InputError, match="not UTF-8"):
        read_conll(bad)
