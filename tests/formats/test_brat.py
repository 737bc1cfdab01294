from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.brat import parse_ann, read_ann, read_brat
from annoscore.model import Span

FULL = """T1\tDrug 0 7\taspirin
T2\tDose 8 11;15 21\t100 tablet
N1\tReference T1 SNOMED:387458008\taspirin
A1\tNegated T1
M1\tConfidence T2 High
R1\tDoseOf Arg1:T2 Arg2:T1
*\tEquiv T1 T2
E1\tTreat:T1 Theme:T2
#1\tAnnotatorNotes T1\t387458008

"""
TEXT = "aspirin 100 mg tablets"


def test_reads_every_line_kind(tmp_path: Path) -> None:
    doc = parse_ann(FULL, tmp_path / "d.ann", "d", TEXT)
    assert [m.id for m in doc.mentions] == ["T1", "T2"]
    assert doc.mentions[1].span == Span(((8, 11), (15, 21)))
    assert doc.normalizations[0].resource == "SNOMED"
    assert doc.normalizations[0].reference == "387458008"
    assert [(a.name, a.value) for a in doc.attributes] == [
        ("Negated", None),
        ("Confidence", "High"),
    ]
    assert doc.relations[0].arguments == (("Arg1", "T2"), ("Arg2", "T1"))
    assert doc.relations[1].type == "Equiv"
    assert doc.events[0].trigger == "T1"
    assert doc.notes[0].text == "387458008"
    assert doc.warnings == ()


def test_discontinuous_fragments_are_sorted_and_joined_by_a_space_for_the_text_check(
    tmp_path: Path,
) -> None:
    doc = parse_ann("T1\tDose 15 21;8 11\t100 table\n", tmp_path / "d.ann", "d", TEXT)
    assert doc.mentions[0].span.fragments == ((8, 11), (15, 21))
    (warning,) = doc.warnings
    assert "d.ann:1" in warning and "'100 table'" in warning and "'100 tablet'" in warning


def test_text_past_the_end_is_a_warning(tmp_path: Path) -> None:
    doc = parse_ann("T1\tDrug 20 40\tx\n", tmp_path / "d.ann", "d", TEXT)
    assert "past the end" in doc.warnings[0]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("T1\tDrug 10\tx", "START END"),
        ("T1\tDrug ten 20\tx", "bad offsets"),
        ("T1\tDrug 20 10\tx", "start <= end"),
        ("X1\tfoo", "not a brat annotation line"),
        ("T1", "not a brat annotation line"),
        ("N1\tReference T1 nocolon\tx", "RESOURCE:ID"),
        ("R1\tRel Arg1:T1", "Arg2"),
        ("R1\tRel Arg1 T2", "ROLE:ID"),
        ("A1\tNeg", "NAME TARGET"),
        ("E1\tTreat Theme:T1", "TYPE:TRIGGER"),
        ("#1\tAnnotatorNotes\tx", "TARGET"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    with pytest.raises(InputError) as error:
        parse_ann("T9\tDrug 0 1\ta\n\n" + line + "\n", tmp_path / "bad.ann")
    assert error.value.line == 3
    assert str(error.value).startswith(f"{tmp_path / 'bad.ann'}:3: ")
    assert reason in str(error.value)


def test_space_separated_text_is_read_with_one_warning_per_file(tmp_path: Path) -> None:
    doc = parse_ann("T1\tDrug 0 7 aspirin\nT2\tDrug 8 11  100\n", tmp_path / "d.ann")
    assert [m.text for m in doc.mentions] == ["aspirin", "100"]
    assert [m.span for m in doc.mentions] == [Span.of(0, 7), Span.of(8, 11)]
    (warning,) = doc.warnings
    assert "2 entity line(s)" in warning and "d.ann:1" in warning


def test_duplicate_id_is_a_warning(tmp_path: Path) -> None:
    doc = parse_ann("T1\tDrug 0 7\taspirin\nT1\tDrug 8 11\t100\n", tmp_path / "d.ann")
    assert "already used on line 1" in doc.warnings[0]


def test_non_utf8_file_is_an_input_error_with_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.ann"
    path.write_bytes("T1\tDrug 0 7\taspirin\nT2\tDrug 8 9\tcaf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin.ann:2: not UTF-8"):
        read_ann(path)


def test_txt_beside_the_ann_is_used_and_crlf_counts_two(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(b"a\r\nbc")
    (tmp_path / "d.ann").write_text("T1\tX 3 5\tbc\n")
    doc = read_ann(tmp_path / "d.ann")
    assert doc.text == "a\r\nbc" and doc.warnings == ()


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        read_brat(tmp_path / "missing")
    with pytest.raises(InputError, match="has no brat annotations"):
        read_brat(tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match=r"expected a brat \.ann file"):
        read_brat(tmp_path / "notes.txt")


def test_folder_is_keyed_by_file_stem(tmp_path: Path) -> None:
    (tmp_path / "b.ann").write_text("T1\tX 0 1\ta\n")
    (tmp_path / "a.ann").write_text("")
    assert list(read_brat(tmp_path)) == ["a", "b"]


def test_reader_warnings_are_capped_with_a_count() -> None:
    from annoscore.formats.brat import reader_warnings
    from annoscore.model import AnnotatedDocument

    docs = [AnnotatedDocument(str(i), (), warnings=(f"w{i}",)) for i in range(5)]
    assert reader_warnings(docs) == ["w0", "w1", "w2", "... and 2 more such reader warnings"]
    assert reader_warnings(docs[:3]) == ["w0", "w1", "w2"]
