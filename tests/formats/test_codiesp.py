"""CodiEsp readers: the vectorised path agrees with the line path; bad input is an InputError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats import codiesp, codiesp_scan
from annoscore.formats.codiesp import (
    _parse_code_rows,
    parse_position,
    read_code_rows,
    read_gold_reference_file,
    read_predicted_reference_file,
    read_valid_code_file,
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def decoded(rows: codiesp.CodeRows) -> list[tuple[str, str | None]]:
    return [
        (rows.documents[d], rows.codes[c] if c >= 0 else None)
        for d, c in zip(rows.doc.tolist(), rows.code.tolist(), strict=True)
    ]


def test_reads_two_columns_and_lowercases(tmp_path: Path) -> None:
    path = write(tmp_path, "p.tsv", "D1\tA00.1\nD1\tb20\nD2\tA00.1\n")
    rows = read_code_rows(path, "predictions")
    assert decoded(rows) == [("D1", "a00.1"), ("D1", "b20"), ("D2", "a00.1")]
    assert rows.uppercase == 2


def test_no_lowercase_keeps_case(tmp_path: Path) -> None:
    rows = read_code_rows(write(tmp_path, "p.tsv", "D1\tA00.1\n"), "gold", lowercase=False)
    assert decoded(rows) == [("D1", "A00.1")]


def test_vocabulary_marks_unknown_codes(tmp_path: Path) -> None:
    path = write(tmp_path, "p.tsv", "D1\tx1\nD1\tb20\nD2\tx2\nD2\tx1\n")
    rows = read_code_rows(path, "predictions", vocabulary=["b20", "c30"])
    assert decoded(rows) == [("D1", None), ("D1", "b20"), ("D2", None), ("D2", None)]
    assert (rows.unknown, rows.unknown_distinct, rows.unknown_examples) == (3, 2, ("x1", "x2"))


@pytest.mark.parametrize(
    "text",
    [
        "D1\ta\r\nD2\tb\r\n",  # CRLF
        "D1\ta\n\nD2\tb\n",  # blank line
        "D1\ta\nD2\tb",  # no final newline
        "Dé\ta\nD2\tb\n",  # non-ASCII document
        "D1\tlongcode.123\nD2\tb\n",  # code longer than 8 bytes
    ],
)
def test_unusual_files_read_the_same(tmp_path: Path, text: str) -> None:
    rows = read_code_rows(write(tmp_path, "p.tsv", text), "predictions")
    expected = [tuple(line.split("\t")) for line in text.replace("\r", "").split("\n") if line]
    assert decoded(rows) == expected


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("D1\ta\nD2\tb\tc\n", 2, "expected 2 tab-separated columns"),
        ("D1\ta\nD2\n", 2, "found 1"),
        ("D1\ta\n\tb\n", 2, "empty clinical case"),
        ("D1\t\n", 1, "empty code"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, "p.tsv", text)
    with pytest.raises(InputError) as error:
        read_code_rows(path, "predictions")
    assert error.value.line == line and message in error.value.message
    assert str(error.value).startswith(f"{path}:{line}:")


def test_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        read_code_rows(write(tmp_path, "e.tsv", ""), "gold")
    with pytest.raises(InputError, match="empty"):
        read_code_rows(write(tmp_path, "b.tsv", "\n\n"), "gold")
    with pytest.raises(InputError, match="no such file"):
        read_code_rows(tmp_path / "absent.tsv", "gold")
    with pytest.raises(InputError, match="no such file"):
        read_valid_code_file(tmp_path / "absent.tsv")
    with pytest.raises(InputError, match="valid-code list is empty"):
        read_valid_code_file(write(tmp_path, "c.tsv", "\n"))
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"D1\ta\nD2\t\xff\n")
    with pytest.raises(InputError, match="not UTF-8") as error:
        read_code_rows(bad, "gold")
    assert error.value.line == 2


def test_valid_codes_first_column_lowercased(tmp_path: Path) -> None:
    path = write(tmp_path, "c.tsv", "code\tes\ten\nA00.1\tx\ty\r\nb20\n")
    assert read_valid_code_file(path).codes == {"code", "a00.1", "b20"}


def test_chunk_boundaries_do_not_matter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"DOC{i // 7:03d}\tc{i % 13}.{i % 5}\n" for i in range(500)]
    path = write(tmp_path, "p.tsv", "".join(lines))
    whole = decoded(read_code_rows(path, "predictions"))
    monkeypatch.setattr(codiesp_scan, "_CHUNK", 64)
    assert decoded(read_code_rows(path, "predictions")) == whole
    assert decoded(read_code_rows(path, "predictions", vocabulary=["c1.1", "c2.2"])) == [
        (d, c if c in ("c1.1", "c2.2") else None) for d, c in whole
    ]


field = st.text(alphabet="abcdefghijABC0123456789.-_ ", min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(field, field), min_size=1, max_size=30), st.booleans())
def test_scan_equals_parser(tmp_path: Path, pairs: list[tuple[str, str]], lowercase: bool) -> None:
    """The scan, where it does not decline, gives the parser's shape exactly (codes as
    written, both in order of first appearance)."""
    path = write(tmp_path, "h.tsv", "".join(f"{d}\t{c}\n" for d, c in pairs))
    with path.open("rb") as handle:
        scanned = codiesp_scan._scan_code_rows(handle, path)
    parsed = _parse_code_rows(path.read_bytes(), path, "predictions", False).rows
    if scanned is not None:
        assert (scanned.documents, scanned.codes, scanned.lines) == (
            parsed.documents,
            parsed.codes,
            parsed.lines,
        )
        assert scanned.doc.tolist() == parsed.doc.tolist()
        assert scanned.code.tolist() == parsed.code.tolist()
    assert decoded(read_code_rows(path, "p", lowercase=lowercase)) == [
        (d, c.lower() if lowercase else c) for d, c in pairs
    ]


_STEM = "ABCDEFGH" * 40
_LONG_IDS = (
    f"{_STEM}\tx\n"
    + "".join(f"S{i % 7}\tc{i % 5}\n" for i in range(120))
    + f"{_STEM}x\ta\n{_STEM}\tb\n"
)


@pytest.mark.parametrize(
    "text",
    [
        '"D1"\ta\nD2\tb\n',  # a quote as the file's first byte
        "\0D1\ta\nD2\tb\n",  # a NUL as the file's first byte
        "a\tb\tc\nd\n",  # as many tabs as lines: two on a line, none on the next
        # a few long ids among many short (the scan compares only the lines as long as the
        # previous one): a long id after a longer one it is a prefix of, as long as line 1's
        _LONG_IDS,
    ],
)
def test_scan_edge_files_read_as_the_parser_reads_them(tmp_path: Path, text: str) -> None:
    """Files at the edges of the scan's checks: it declines, or gives the parser's rows."""
    path = write(tmp_path, "p.tsv", text)
    try:
        parsed = _parse_code_rows(path.read_bytes(), path, "predictions", False).rows
    except InputError as error:
        with pytest.raises(InputError) as raised:
            read_code_rows(path, "predictions", lowercase=False)
        assert str(raised.value) == str(error)
        return
    assert decoded(read_code_rows(path, "predictions", lowercase=False)) == decoded(parsed)


def test_no_seed_from_upper_case_codes() -> None:
    """A seed's codes are found as written: a valid list with a code not its own lower-case
    (never one a reader gives) has none."""
    assert codiesp_scan.code_seed(frozenset({"A1", "b"})) is None
    assert codiesp_scan.code_seed(frozenset({"a1", "b"})) is not None


@pytest.mark.parametrize("case", range(40))
def test_seeded_scan_reads_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: int
) -> None:
    """Read from the seed of a valid list (:class:`~annoscore.formats.codiesp_scan.CodeSeed`), a
    file gives the same (document, code) rows as read plainly, the seed's codes first (a code
    written as one of them takes its id: the same 64-bit word), then the file's others in
    order of first appearance: codes in both cases, valid or not, of 1 to 9 bytes (9: the
    parser, unseeded), buffers of a few lines (the table grows past the seed's words)."""
    import random

    rng = random.Random(case)
    letters = "aAbB019.-"
    pool = list(
        dict.fromkeys(
            "".join(rng.choice(letters) for _ in range(rng.choice((1, 2, 3, 8, 8, 9))))
            for _ in range(rng.randint(2, 600))
        )
    )
    if rng.random() < 0.8:  # mostly plain codes (a 9-byte one: the parser reads the file)
        pool = [c for c in pool if len(c) <= 8] or ["a"]
    # few valid codes and many others: the table grows (1,024 slots, a quarter full)
    some = rng.randint(1, len(pool) if rng.random() < 0.5 else min(5, len(pool)))
    valid = frozenset(c.lower() for c in rng.sample(pool, some))
    valid |= frozenset(f"z{k}" for k in range(rng.randint(0, 50)))  # no row's
    seed = codiesp_scan.code_seed(valid)
    assert seed is not None
    lines = [f"D{rng.randrange(30)}\t{rng.choice(pool)}\n" for _ in range(rng.randint(1, 900))]
    path = write(tmp_path, "p.tsv", "".join(lines))
    if rng.random() < 0.5:
        monkeypatch.setattr(codiesp_scan, "_CHUNK", rng.choice((64, 256, 4096)))
    plain = codiesp.read_code_file(path, "p", lowercase=False).rows
    seeded = codiesp.read_code_file(path, "p", lowercase=False, seed=seed).rows
    assert decoded(seeded) == decoded(plain)
    assert seeded.documents == plain.documents and seeded.lines is None
    if seeded.codes[: len(seed.names)] == seed.names:
        assert seeded.codes[len(seed.names) :] == [c for c in plain.codes if c not in valid]
    else:  # the parser read it
        assert seeded.codes == plain.codes and any(len(c) > 8 for c in plain.codes)


def test_positions() -> None:
    assert parse_position("385 397;405 411", Path("g"), 1) == (385, 411)
    assert parse_position("10 20", Path("g"), 1) == (10, 20)
    for bad in ("10", "a b", "10 20;", "-1 5", "1 2 3"):
        with pytest.raises(InputError, match="bad position"):
            parse_position(bad, Path("g"), 4)


def test_x_readers(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", "D1\tDIAGNOSTICO\tS43.40\thombro\t405 411;572 581\n")
    [ref] = read_gold_reference_file(gold).references
    assert (ref.document, ref.label, ref.code, ref.start, ref.end, ref.line) == (
        "D1",
        "DIAGNOSTICO",
        "s43.40",
        405,
        581,
        1,
    )
    pred = write(tmp_path, "p.tsv", "\nD1\t1 5;8 9\tDIAGNOSTICO\tA\n")
    [p] = read_predicted_reference_file(pred).references
    assert (p.code, p.start, p.end, p.line) == ("a", 1, 9, 2)
    with pytest.raises(InputError, match="expected 5 tab-separated columns") as error:
        read_gold_reference_file(pred)
    assert error.value.line == 2
    with pytest.raises(InputError, match="bad position"):
        read_predicted_reference_file(write(tmp_path, "q.tsv", "D1\tx y\tL\tc\n"))
    with pytest.raises(InputError, match="empty"):
        read_predicted_reference_file(write(tmp_path, "r.tsv", "\n"))


def test_byte_order_mark_and_csv_quotes_are_removed_as_pandas_does(tmp_path: Path) -> None:
    from annoscore.formats.codiesp import read_code_file

    read = read_code_file(write(tmp_path, "p.tsv", '\ufeff"S1"\t"I10"\nS2\t"a""b"x\n'), "gold")
    assert decoded(read.rows) == [("S1", "i10"), ("S2", 'a"bx')]
    assert [w.code for w in read.warnings] == ["formats.bom", "codiesp.quotes"]
    assert all(w.tolerated for w in read.warnings) and read.warnings[1].count == 2
    with pytest.raises(InputError, match="not closed") as error:
        read_code_file(write(tmp_path, "q.tsv", 'S1\ta\nS1\t"b\n'), "gold")
    assert error.value.line == 2


def test_nul_bytes_and_non_ascii_positions_are_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="NUL") as error:
        read_code_rows(write(tmp_path, "p.tsv", "D1\ta\nD\x002\tb\n"), "gold")
    assert error.value.line == 2
    with pytest.raises(InputError, match="bad position"):
        parse_position("\u0661\u0660 20", Path("g"), 1)


def test_empty_prediction_file_may_be_allowed(tmp_path: Path) -> None:
    from annoscore.formats.codiesp import read_code_file

    assert len(read_code_file(write(tmp_path, "e.tsv", ""), "p", allow_empty=True).rows) == 0
