from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.brat import (
    AnnFile,
    parse_ann_file,
    read_ann_file,
    read_brat,
    read_brat_corpus,
)
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
    doc = parse_ann_file(FULL, tmp_path / "d.ann", "d", TEXT).document()
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
    doc = parse_ann_file(
        "T1\tDose 15 21;8 11\t100 table\n", tmp_path / "d.ann", "d", TEXT
    ).document()
    assert doc.mentions[0].span.fragments == ((8, 11), (15, 21))
    (warning,) = doc.warnings
    assert "d.ann:1" in warning and "'100 table'" in warning and "'100 tablet'" in warning


def test_text_past_the_end_is_a_warning(tmp_path: Path) -> None:
    doc = parse_ann_file("T1\tDrug 20 40\tx\n", tmp_path / "d.ann", "d", TEXT).document()
    assert "past the end" in doc.warnings[0]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("T1\tDrug 10\tx", "START END"),
        ("T1\tDrug ten 20\tx", "bad offsets"),
        ("T1\tDrug 20 10\tx", "end before start"),
        ("T1\tDrug 10 10\tx", "zero-length"),
        ("T1\tDrug \u0661 5\tx", "ASCII digits"),
        ("T1\tDrug 1_0 20\tx", "ASCII digits"),
        ("T1\tDrug 0 99999999999999999999999\tx", "beyond any text"),
        ("\tDrug 0 5\tx", "annotation id is empty"),
        (" \tDrug 0 5\tx", "annotation id is empty"),
        ("T1\tDrug 0 5\x00\tx", "NUL byte"),
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
        parse_ann_file("T9\tDrug 0 1\ta\n\n" + line + "\n", tmp_path / "bad.ann").document()
    assert error.value.line == 3
    assert str(error.value).startswith(f"{tmp_path / 'bad.ann'}:3: ")
    assert reason in str(error.value)


def test_space_separated_text_is_read_with_one_warning_per_file(tmp_path: Path) -> None:
    doc = parse_ann_file(
        "T1\tDrug 0 7 aspirin\nT2\tDrug 8 11  100\n", tmp_path / "d.ann"
    ).document()
    assert [m.text for m in doc.mentions] == ["aspirin", "100"]
    assert [m.span for m in doc.mentions] == [Span.of(0, 7), Span.of(8, 11)]
    (warning,) = doc.warnings
    assert "2 entity line(s)" in warning and "d.ann:1" in warning


def test_duplicate_id_is_a_warning(tmp_path: Path) -> None:
    doc = parse_ann_file(
        "T1\tDrug 0 7\taspirin\nT1\tDrug 8 11\t100\n", tmp_path / "d.ann"
    ).document()
    (warning,) = doc.warnings
    assert "d.ann:2 (id T1, first on line 1)" in warning and "already used" in warning


def test_non_utf8_file_is_an_input_error_with_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.ann"
    path.write_bytes("T1\tDrug 0 7\taspirin\nT2\tDrug 8 9\tcaf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin.ann:2: not UTF-8"):
        read_ann_file(path).document()


def test_txt_beside_the_ann_is_used_and_crlf_counts_two(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(b"a\r\nbc")
    (tmp_path / "d.ann").write_text("T1\tX 3 5\tbc\n")
    doc = read_ann_file(tmp_path / "d.ann").document()
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


# --- one rule for every reader (issue 15) ---------------------------------------------------


def test_byte_order_mark_is_removed_with_a_warning_or_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.ann"
    file = parse_ann_file("\ufeffT1\tDrug 0 7\taspirin\n", path)
    assert (file.types, file.starts, file.ends) == (["Drug"], [0], [7])
    (warning,) = file.warnings
    assert warning.code == "formats.bom" and warning.tolerated
    with pytest.raises(InputError, match=r"d.ann:1: .*byte-order mark"):
        parse_ann_file("\ufeffT1\tDrug 0 7\taspirin\n", path, strict_input=True)


def test_lines_split_at_newline_only(tmp_path: Path) -> None:
    content = "T1\tDrug 0 3\ta\u2028b\nT2\tDrug 4 5\tc\x0cd\u0085\nT3\tDrug 20 10\tx\n"
    with pytest.raises(InputError) as error:
        parse_ann_file(content, tmp_path / "d.ann")
    assert error.value.line == 3


def test_space_separated_text_refused_with_strict_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"d.ann:2: .*--strict-input"):
        parse_ann_file(
            "T1\tDrug 0 7\ta\nT2\tDrug 0 7 aspirin\n", tmp_path / "d.ann", strict_input=True
        )


def _columns(file: AnnFile) -> tuple[object, ...]:
    return (file.ids, file.types, file.starts, file.ends, file.texts, file.entity_fragments())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Drug", "Dose", "UNCLEAR"]),
            st.integers(0, 40),
            st.integers(1, 9),
            st.sampled_from(["\t", " "]),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_the_whole_file_path_and_the_line_path_read_the_same(
    rows: list[tuple[str, int, int, str]], crlf: bool
) -> None:
    text = "abcdefghij" * 6
    lines = [
        f"T{k}\t{kind} {start} {start + length}{sep}{text[start : start + length]}"
        for k, (kind, start, length, sep) in enumerate(rows, start=1)
    ]
    content = ("\r\n" if crlf else "\n").join(lines) + "\n"
    path = Path("d.ann")
    fast = parse_ann_file(content, path, text=text)
    slow = parse_ann_file("\n" + content, path, text=text)  # a blank line: the line path
    assert _columns(fast) == _columns(slow)
    assert [fast.line_of(k) + 1 for k in range(len(fast))] == [
        slow.line_of(k) for k in range(len(slow))
    ]
    assert [w.code for w in fast.warnings] == [w.code for w in slow.warnings]


def test_entity_text_is_checked_against_the_txt_with_a_structured_warning(tmp_path: Path) -> None:
    file = parse_ann_file(
        "T1\tDrug 0 7\taspirin\nT2\tDrug 8 11\t999\n", tmp_path / "d.ann", text=TEXT
    )
    (warning,) = file.warnings
    assert warning.code == "brat.text-mismatch" and warning.count == 1
    assert warning.examples[0].startswith("d.ann:2: '999'")


# --- the official PharmaCoNER reading (dialect "pharmaconer") --------------------------------


@pytest.mark.parametrize(
    ("line", "code", "read"),
    [
        ("T1 Drug 0 5\tx", "pharmaconer.unsplittable", None),
        ("T1\tDrug\t0 5\tx", "pharmaconer.unsplittable", None),
        ("T1\tDrug 0\tx", "pharmaconer.unsplittable", None),
        ("  T1\tDrug 0 5\tx", "pharmaconer.indented", ("Drug", ((0, 5),))),
        ("\ufeffT1\tDrug 0 5\tx", "pharmaconer.bom-line", None),
        ("T1\tDrug \u0661 5\tx", "pharmaconer.number", ("Drug", ((1, 5),))),
        ("T1\tDrug +0 5\tx", "pharmaconer.number", ("Drug", ((0, 5),))),
        ("T1\tDrug 10 8\tx", "pharmaconer.reversed", ("Drug", ((10, 8),))),
        ("T1\tDrug 5 5\tx", "pharmaconer.empty-span", ("Drug", ((5, 5),))),
        ("T1\tDrug 10 20;25 30\tx", "pharmaconer.discontinuous", ("Drug", ((10, 20), (25, 30)))),
        ("R1\tRel Arg1:T1", "pharmaconer.ignored-line", None),
        ("\tDrug 0 5\tx", "pharmaconer.ignored-line", None),
    ],
)
def test_official_reading_tolerates_each_line_with_a_warning_naming_file_and_line(
    tmp_path: Path, line: str, code: str, read: tuple[str, tuple[tuple[int, int], ...]] | None
) -> None:
    path = tmp_path / "d.ann"
    content = "T9\tDose 40 41\ty\n" + line + "\n"
    file = parse_ann_file(content, path, dialect="pharmaconer")
    entities = list(zip(file.types, file.entity_fragments(), strict=True))
    assert entities[0] == ("Dose", ((40, 41),))
    assert entities[1:] == ([read] if read else [])
    (warning,) = file.warnings
    assert (warning.code, warning.count, warning.examples) == (code, 1, ("d.ann:2",))
    assert warning.tolerated
    with pytest.raises(InputError) as error:
        parse_ann_file(content, path, dialect="pharmaconer", strict_input=True)
    assert (error.value.path, error.value.line) == (str(path), 2)


def test_official_reading_stops_where_the_script_crashes(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"d.ann:1: .*not a number"):
        parse_ann_file("T1\tDrug zero 5\tx\n", tmp_path / "d.ann", dialect="pharmaconer")


def test_official_reading_keeps_notes_for_the_codalab_links(tmp_path: Path) -> None:
    file = parse_ann_file(FULL, tmp_path / "d.ann", dialect="pharmaconer")
    assert [(n.target, n.text) for n in file.notes] == [("T1", "387458008")]
    assert [(w.code, w.examples) for w in file.warnings] == [
        ("pharmaconer.discontinuous", ("d.ann:2",))
    ]


# --- folders ------------------------------------------------------------------------------


def test_folder_entries_that_are_not_read_are_counted_in_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.ann").write_text("T1\tX 0 1\ta\n")
    (tmp_path / "b.ANN").write_text("T1\tX 0 1\ta\n")
    (tmp_path / "sub.ann").mkdir()
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "pipe.ann")
    (tmp_path / "loop.ann").symlink_to(tmp_path / "loop.ann")
    (tmp_path / "notes.json").write_text("{}")
    corpus = read_brat_corpus(tmp_path)
    assert list(corpus.files) == ["a"]
    (warning,) = corpus.warnings
    assert warning.code == "formats.skipped-entries" and warning.count == 5
    assert any("b.ANN" in e and "case-sensitive" in e for e in warning.examples)
    assert any("loop.ann" in e and "leads nowhere" in e for e in warning.examples)


def test_every_file_reads_any_extension_and_merges_a_document(tmp_path: Path) -> None:
    (tmp_path / "a.ann").write_text("T1\tX 0 1\ta\n")
    (tmp_path / "a.txt").write_text("T2\tX 2 3\tb\nsome text\n")
    (tmp_path / "b").write_text("T1\tY 0 1\ta\n")
    corpus = read_brat_corpus(tmp_path, dialect="pharmaconer", every_file=True, check_text=False)
    assert {k: f.types for k, f in corpus.files.items()} == {"a": ["X", "X"], "b": ["Y"]}
    codes = {w.code: w.count for w in corpus.all_warnings()}
    assert codes == {"pharmaconer.non-ann-files": 2, "pharmaconer.ignored-line": 1}
    with pytest.raises(InputError, match=r"not a \.ann file"):
        read_brat_corpus(tmp_path, dialect="pharmaconer", every_file=True, strict_input=True)


# --- the whole-folder path (arrays over every file of a folder) ------------------------------

_ODD_LINES = [
    "",  # a blank line
    "T7\tDrug 3 9\tdefghi",  # ids not increasing after T9 below
    "T01\tDrug 0 2\tab",
    "T1\tDrug 0 2\tab",  # repeated id
    "T3\tDrug 0 2\tAB",  # text differs from the .txt
    "T3\tDrug 0 2\tab\tx",  # a tab in the text
    "T3\tDrug 0 2 ab",  # text after a space
    "T3\tDrug 2 2\t",  # zero-length: an error
    "T3\tDrug 0 2;4 6\tab ef",  # discontinuous
    "T3\tDrüg 0 2\tab",  # a type beyond ASCII
    "T3\tDrug 0 2\taé",  # text beyond ASCII
    "T3\tDrug 0 99\tab",  # past the end of the .txt
    "T3\tDrug 000000000000 000000000002\tab",  # long numbers
    "T3\tDrug 0 2\tab\r",  # a carriage return
    "T3\tDrug  0 2\tab",  # two spaces
    "T123456789\tDrug 0 2\tab",  # a long id
    "TX\tDrug 0 2\tab",
    "T\tDrug 0 2\tab",
    "N1\tReference T1 X:1\tab",
    "#1\tAnnotatorNotes T1\tnote",
    "T3\tA_very_long_type_name_that_goes_on_and_on_and_on_for_more_than_64_bytes 0 2\tab",
]


def random_entity_lines(rnd: Any, text: str, count: int) -> list[str]:
    """``count`` entity lines ``T1``.. of random spans (1 to 11 characters) of ``text`` (at
    least 12 characters), of types of every shape a scan meets; ``rnd`` a
    :class:`random.Random`."""
    lines = []
    for k in range(count):
        start = rnd.randint(0, len(text) - 12)
        end = start + rnd.randint(1, 11)
        kind = rnd.choice(["Drug", "Dose", "X", "Gene_or_protein", "Chemical123"])
        lines.append(f"T{k + 1}\t{kind} {start} {end}\t{text[start:end]}")
    return lines


def _random_folder(folder: Path, rnd: object, n_files: int) -> dict[str, str]:
    import random

    assert isinstance(rnd, random.Random)
    text = "abcdefghij klmnopqrs tuvwxyz" * 3
    contents = {}
    for f in range(n_files):
        lines = random_entity_lines(rnd, text, rnd.randint(0, 12))
        if lines and rnd.random() < 0.4:
            lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(_ODD_LINES))
        content = "".join(line + "\n" for line in lines)
        if content and rnd.random() < 0.1:
            content = content[:-1]  # no newline at the end
        name = f"d{f:03d}"
        (folder / f"{name}.ann").write_text(content, encoding="utf-8")
        if rnd.random() < 0.9:
            txt = text if rnd.random() < 0.9 else text.replace("a", "é")
            (folder / f"{name}.txt").write_text(txt, encoding="utf-8")
        contents[name] = content
    return contents


def _scan_spy(monkeypatch: pytest.MonkeyPatch, decline_all: bool = False) -> list[str]:
    """Record the paths of the files the scan takes (or make it decline every file)."""
    from annoscore.formats import brat, brat_scan

    taken: list[str] = []

    def spy(*args: Any, **kwargs: Any) -> list[AnnFile | None]:
        if decline_all:
            return [None] * len(args[3])
        out = brat_scan.scan_files(*args, **kwargs)
        taken.extend(f.path for f in out if f is not None)
        return out

    monkeypatch.setattr(brat, "scan_files", spy)
    return taken


def _folder_columns(corpus: Any) -> dict[str, tuple[object, ...]]:
    out = {}
    for doc_id, file in corpus.files.items():
        rows, block = file.rows, file.rows.block
        out[doc_id] = (
            *_columns(file),
            file.text,
            file.warnings,
            [file.line_of(k) for k in range(len(file))],
            block.starts[rows.lo : rows.hi].tolist(),
            block.ends[rows.lo : rows.hi].tolist(),
            [block.type_names[c] for c in block.type_codes[rows.lo : rows.hi].tolist()],
        )
    return out


@pytest.mark.parametrize("seed", range(8))
def test_the_scan_reads_what_the_parser_reads(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    rnd = random.Random(seed)
    _random_folder(tmp_path, rnd, 60)
    with monkeypatch.context() as patched:
        _scan_spy(patched, decline_all=True)
        try:
            parsed = _folder_columns(read_brat_corpus(tmp_path))
        except InputError as error:
            parsed_error: InputError | None = error
        else:
            parsed_error = None
    taken = _scan_spy(monkeypatch)
    try:
        read = _folder_columns(read_brat_corpus(tmp_path))
    except InputError as error:  # the first bad file in name order, named with its line
        assert parsed_error is not None and str(error) == str(parsed_error)
        return
    assert parsed_error is None and read == parsed
    assert len(taken) >= len(read) // 3  # the scan is taken


@pytest.mark.parametrize(
    "line",
    [
        "T2\t 0 2\tab",  # an empty type name
        "T2\tDrug  2\tab",  # an empty start offset (two spaces), a number after
        "T2\tDrug 0 2\tab",  # (a plain line)
    ],
)
def test_the_scan_reads_an_edge_line_as_the_parser_does(
    tmp_path: Path, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines at the edges of the scan's checks, among plain ones: read alike both ways."""
    for k in range(3):
        (tmp_path / f"d{k}.txt").write_text("abcdef")
        (tmp_path / f"d{k}.ann").write_text(
            f"T1\tDrug 0 2\tab\n{line}\nT3\tDose 3 5\tde\n" if k == 1 else "T1\tDrug 0 2\tab\n"
        )
    with monkeypatch.context() as patched:
        _scan_spy(patched, decline_all=True)
        try:
            parsed: object = _folder_columns(read_brat_corpus(tmp_path))
        except InputError as error:
            parsed = str(error)
    taken = _scan_spy(monkeypatch)
    try:
        read: object = _folder_columns(read_brat_corpus(tmp_path))
    except InputError as error:
        read = str(error)
    assert read == parsed
    assert taken  # the scan ran


def test_a_scan_error_names_file_and_line(tmp_path: Path) -> None:
    for k in range(5):
        (tmp_path / f"d{k}.ann").write_text("T1\tDrug 0 2\tab\nT2\tDrug 3 4\tc\n")
    (tmp_path / "d3.ann").write_text("T1\tDrug 0 2\tab\nT2\tDrug 4 3\tc\n")
    with pytest.raises(InputError) as error:
        read_brat_corpus(tmp_path)
    assert (error.value.path, error.value.line) == (str(tmp_path / "d3.ann"), 2)


def test_the_scan_shares_type_numbers_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annoscore.formats import brat_scan

    monkeypatch.setattr(brat_scan, "CHUNK_BYTES", 64)  # a chunk per file or two
    taken = _scan_spy(monkeypatch)
    kinds = ["B", "A", "C", "A", "D"]
    for k, kind in enumerate(kinds):
        (tmp_path / f"d{k}.ann").write_text(f"T1\t{kind} 0 2\tab\nT2\tA 3 4\tc\n")
    corpus = read_brat_corpus(tmp_path)
    assert len(taken) == len(kinds)
    for k, kind in enumerate(kinds):
        file = corpus.files[f"d{k}"]
        assert file.rows is not None
        block, lo, hi = file.rows.block, file.rows.lo, file.rows.hi
        assert [block.type_names[c] for c in block.type_codes[lo:hi]] == [kind, "A"]
        assert list(file.types) == [kind, "A"] and file.ids == ["T1", "T2"]


def test_a_file_larger_than_a_chunk_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annoscore.formats import brat_scan

    monkeypatch.setattr(brat_scan, "CHUNK_BYTES", 40)
    taken = _scan_spy(monkeypatch)
    (tmp_path / "small.ann").write_text("T1\tA 0 2\tab\n")
    (tmp_path / "large.ann").write_text(
        "T1\tA 0 2\tab\nT2\tB 3 4\tc\nT3\tA 5 7\tde\nT4\tA 8 9\tf\n"
    )
    corpus = read_brat_corpus(tmp_path, check_text=False)
    assert taken == [str(tmp_path / "small.ann")]
    assert list(corpus.files["large"].types) == ["A", "B", "A", "A"]
    rows = corpus.files["large"].rows
    assert rows is not None and rows.block.starts[rows.lo : rows.hi].tolist() == [0, 3, 5, 8]


def test_official_reading_a_semicolon_in_the_text_is_not_a_fragment(tmp_path: Path) -> None:
    file = parse_ann_file("T1\tDrug 0 5 ; UNCLEAR\n", tmp_path / "d.ann", dialect="pharmaconer")
    assert (file.types, file.entity_fragments(), file.texts) == (
        ["Drug"],
        [((0, 5),)],
        ["; UNCLEAR"],
    )
    assert [w.code for w in file.warnings] == ["brat.space-text"]


def test_official_reading_an_ignored_line_defines_no_id(tmp_path: Path) -> None:
    content = "R1\tRel Arg1:T1\nR1\tRel Arg1:T1\nT1\tDrug 0 5\tx\n"
    file = parse_ann_file(content, tmp_path / "d.ann", dialect="pharmaconer")
    assert [(w.code, w.count) for w in file.warnings] == [("pharmaconer.ignored-line", 2)]


def test_official_reading_an_entity_after_a_byte_order_mark_and_spaces_is_dropped(
    tmp_path: Path,
) -> None:
    """The script strips the line (not the mark): it does not begin with T, no entity."""
    content = "\ufeff  T1\tDrug 0 5\tx\nT2\tDrug 6 9\ty\n"
    file = parse_ann_file(content, tmp_path / "d.ann", dialect="pharmaconer")
    assert list(file.types) == ["Drug"] and list(file.starts) == [6]
    assert [(w.code, w.examples) for w in file.warnings] == [("pharmaconer.bom-line", ("d.ann:1",))]
