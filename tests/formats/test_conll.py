from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats import conll
from annoscore.formats.conll import Dropped, parse_conll, read_conll
from tests.conftest import shared_data


def doc(*cells: str, name: str = "(d); part 000") -> str:
    """A one-document CoNLL text, one token line per cell (``""`` = blank line)."""
    lines = [f"#begin document {name}"]
    lines += [f"d 0 {i} w {c}" if c else "" for i, c in enumerate(cells)]
    return "\n".join([*lines, "#end document", ""])


def spans(text: str) -> set[frozenset[tuple[int, int]]]:
    return sets(parse_conll(text).documents[0].entities)


def sets(entities: conll.Partition) -> set[frozenset[tuple[int, int]]]:
    """The entities as sets (none of them lists a span twice)."""
    assert all(len(set(entity)) == len(entity) for entity in entities)
    return {frozenset(entity) for entity in entities}


def test_reads_reference_key_tab_separated() -> None:
    parsed = read_conll(shared_data("coref", "reference", "TC-A.key"))
    (document,) = parsed.documents
    assert document.name == "(LuoTestCase); "  # trailing space kept, as the reference does
    assert document.tokens == 20  # the blank line between sentences is not a token
    assert sets(document.entities) == {
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
    document = parse_conll(doc("(1(3", "-", "3)1)", "(3)")).documents[0]
    assert len(document.mentions) == 3  # the reader keeps the repeat; partition() decides
    entities, dropped = document.partition()
    assert sets(entities) == {frozenset({(0, 2)}), frozenset({(3, 3)})}
    assert dropped.removed == (2,)  # the line where the repeat's bracket opens


def test_repeated_span_stays_in_the_entity_that_occurs_first_in_the_document() -> None:
    # entity 3 occurs first (token 0); on token 1 the bracket of entity 1 comes first, but
    # scorer.pl keeps the span (1, 3) in entity 3, the entity that occurs first in the document
    document = parse_conll(doc("(3)", "(1(3", "-", "3)1)")).documents[0]
    entities, dropped = document.partition()
    assert entities == (((0, 0), (1, 3)),)
    assert dropped.removed == (3,)


def test_repeats_not_removable_are_kept_where_they_are_written() -> None:
    document = parse_conll(doc("(1)|(2)", "(1)|(1)|(3)", "(3)|(3)")).documents[0]
    entities, dropped = document.partition(removable={(1, 1)})
    # (1, 1) is removable: its repeats in entities 1 and 3 go; (0, 0) and (2, 2) are not
    assert entities == (((0, 0), (1, 1)), ((0, 0),), ((2, 2), (2, 2)))
    assert dropped == Dropped(removed=(3, 3), kept=(2, 4))


def test_reference_a9_ten_repeats_are_removed_not_refused() -> None:
    (document,) = read_conll(shared_data("coref", "reference", "TC-A-9.response")).documents
    assert len(document.partition()[1].removed) == 10


def test_dash_and_underscore_mean_no_mention() -> None:
    assert spans(doc("-", "_", "(4)")) == {frozenset({(2, 2)})}


def test_split_antecedent_cells_are_discarded_and_counted() -> None:
    parsed = parse_conll(doc("(1+2)", "(1)"), "k.conll")
    assert sets(parsed.documents[0].entities) == {frozenset({(1, 1)})}
    (warning,) = parsed.warnings("key")
    assert parsed.split_antecedent_lines == (2,) and "(N+M)" in warning.message
    assert warning.examples == ("k.conll:2",) and warning.tolerated


def test_unreadable_cell_text_is_counted() -> None:
    parsed = parse_conll(doc("x", "(1)"))
    assert parsed.unreadable_lines == (2,) and parsed.warnings("key")


def test_several_documents_and_lines_outside_documents() -> None:
    text = "junk\n" + doc("(1)", name="a") + doc("(1", "1)", name="b")
    parsed = parse_conll(text)
    assert [d.name for d in parsed.documents] == ["a", "b"]
    assert parsed.ignored_lines == 1
    assert parsed.documents[1].line == 5


def test_crlf_line_endings() -> None:
    parsed = parse_conll(doc("(1", "1)", name="x").replace("\n", "\r\n"))
    assert parsed.documents[0].name == "x"
    assert sets(parsed.documents[0].entities) == {frozenset({(0, 1)})}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (doc("(1", "-"), 2, "'(1' is never closed"),
        (doc("-", "1)"), 3, "closing bracket '1)' without an opening"),
        (doc("(2", "1)"), 3, "without an opening"),
        ("#begin document x\n#begin document y\n", 2, "inside an open document"),
        ("#begin document x\nd (1\n", 2, "'(1' is never closed"),
        ("#begin document x\nd -\nd \x00 -\n#end document\n", 3, "NUL byte"),
        ("#end document\n", 1, "without '#begin document'"),
    ],
)
def test_bad_input_names_file_line_and_document(text: str, line: int | None, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_conll(text, "f.conll")
    error = caught.value
    assert error.path == "f.conll" and error.line == line and words in error.message
    if line is not None and "#begin document x" in text and "NUL" not in words:
        assert error.document is not None


def test_missing_file_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_conll(tmp_path / "nope.conll")
    bad = tmp_path / "bad.conll"
    bad.write_bytes(b"#begin document x\nd \xff\n#end document\n")
    with pytest.raises(InputError, match="not UTF-8"):
        read_conll(bad)


def test_byte_order_mark_removed_with_a_warning() -> None:
    parsed = parse_conll("\ufeff" + doc("(1)", name="x"), "k.conll")
    assert [d.name for d in parsed.documents] == ["x"]
    (warning,) = parsed.warnings("key")
    assert warning.code == "formats.bom" and warning.examples == ("k.conll",)


def test_lines_split_at_newline_only() -> None:
    # U+2028, U+0085 and a form feed inside words are text, not line ends: line numbers stay right
    text = doc("-", "-", "-", name="x").replace("w -", "w\u2028x\x85y\x0cz -", 2) + "junk\n"
    parsed = parse_conll(text, "k.conll")
    assert parsed.documents[0].tokens == 3 and parsed.ignored_examples == (6,)
    with pytest.raises(InputError) as caught:
        parse_conll(text.replace("d 0 2 w -", "d 0 2 w 1)"), "k.conll")
    assert caught.value.line == 4


def test_non_ascii_digits_are_not_entity_ids() -> None:
    parsed = parse_conll(doc("(\u0664)", "(\u0664", "(1)"), "k.conll")
    assert sets(parsed.documents[0].entities) == {frozenset({(2, 2)})}
    assert parsed.unreadable_lines == (2, 3)


def test_huge_entity_ids_are_ids_as_written() -> None:
    huge = "9" * 40
    parsed = parse_conll(doc(f"({huge}", f"{huge})", "(01)", "(1)"))
    (document,) = parsed.documents
    assert {m[0] for m in document.mentions} == {huge, "01", "1"}
    expected = {frozenset({(0, 1)}), frozenset({(2, 2)}), frozenset({(3, 3)})}
    assert sets(document.entities) == expected


def test_document_not_closed_at_the_end_of_the_file_is_read() -> None:
    parsed = parse_conll(doc("(1)", name="a") + "#begin document b\nd (2\nd 2)\n", "r.conll")
    assert [d.closed for d in parsed.documents] == [True, False]
    assert sets(parsed.by_name()["b"].entities) == {frozenset({(0, 1)})}
    (warning,) = parsed.warnings("response")
    assert warning.code == "coref.unclosed_document" and warning.examples == ("r.conll:4",)


def test_repeated_document_name_the_last_one_counts() -> None:
    parsed = parse_conll(doc("(1)", "-", name="x") + doc("-", "(2)", name="x"), "k.conll")
    assert len(parsed.documents) == 2
    assert sets(parsed.by_name()["x"].entities) == {frozenset({(1, 1)})}
    (warning,) = parsed.warnings("key")
    assert warning.code == "coref.repeated_document" and warning.examples == ("k.conll:1",)


@pytest.mark.parametrize("text", ["", "d 0 (1)\n", "\n\n"])
def test_file_without_documents_reads_as_no_documents(text: str) -> None:
    parsed = parse_conll(text)
    assert parsed.documents == ()
    assert parsed.ignored_lines == text.count("(")


def test_lines_outside_documents_are_counted_with_line_numbers() -> None:
    parsed = parse_conll("a -\nb -\n" + doc("-", name="x") + "c (1)\n", "k.conll")
    assert parsed.ignored_lines == 3 and parsed.ignored_examples == (1, 2, 6)
    assert parsed.warnings("key")[0].examples == ("k.conll:1", "k.conll:2", "k.conll:6")


def test_end_document_anywhere_in_a_line_closes_the_document() -> None:
    text = "#begin document x\nd 0 0 w (1)\nd 0 1 w Speaker#1 -\nsome text #end document -\n"
    parsed = parse_conll(text + "d 0 0 w (1)\n")
    assert parsed.documents[0].tokens == 2 and parsed.ignored_lines == 1


def test_indented_lines_are_read_like_any_other() -> None:
    parsed = parse_conll("  #begin document x\n  d 0 0 w (1)\n\t \n  d 0 1 w -\n #end document\n")
    assert parsed.documents[0].name == "x" and parsed.documents[0].tokens == 2


def test_delimiters_ending_like_a_token_line_are_still_delimiters() -> None:
    text = "#begin document x -\nd 0 0 w (1)\nd 0 1 document -\n#end document -\n"
    parsed = parse_conll(text + "#begin document y _\nd 0 0 w -\n#end document\n")
    assert [(d.name, d.tokens) for d in parsed.documents] == [("x -", 2), ("y _", 1)]


def test_reading_in_chunks_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "junk\n"
        + doc("(1", "", "1)", "-", "(2)|(1)", name="a")
        + "\n\nx (3)\n"
        + doc("(4", "-", "", "4)", name="b")
    )
    whole = parse_conll(text, "k.conll")
    for size in (1, 3, 7, 20, 50):
        monkeypatch.setattr(conll, "CHUNK", size)
        assert parse_conll(text, "k.conll") == whole
    with pytest.raises(InputError) as caught:
        parse_conll(text.replace("4)", "5)"), "k.conll")
    assert caught.value.line == text.count("\n") - 1


def test_each_plain_line_outside_documents_is_an_example() -> None:
    """Lines outside documents that end like a token line without a mention are skipped in a run
    by the fast classification; the warning still names each, as the line-by-line reading does."""
    text = "#begin document a\nd -\n#end document\njunk -\n\t_\nx -\nword\n"
    parsed = parse_conll(text, "k.conll")
    assert parsed.ignored_lines == 4 and parsed.ignored_examples == (4, 5, 6, 7)


def test_a_line_that_is_not_utf_8_begins_no_document_for_a_cut() -> None:
    from annoscore.formats.conll import begin_name

    assert begin_name(b"#begin document (a);\n") == b"(a);"
    assert begin_name(b"#begin document (a\xff);\n") is None
