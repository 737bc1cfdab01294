"""TREC qrels and run readers: columns, line numbers in errors, the shared reader rules."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats import trec, trec_scan
from annoscore.formats.trec import read_qrels, read_run
from annoscore.tasks.trec import score_trec


def write(tmp_path: Path, text: str, name: str = "f") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_reads_qrels_and_run(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "q1 0 d1 1\n\nq1 0 d2 -1\nq2\t0\td10\t+2\n"))
    assert qrels.queries == [b"q1", b"q2"] and qrels.query.tolist() == [0, 0, 1]
    assert [qrels.document(i) for i in range(3)] == [b"d1", b"d2", b"d10"]
    assert qrels.value.tolist() == [1, -1, 2] and qrels.line.tolist() == [1, 3, 4]
    assert qrels.value.dtype == "int64"
    [blank] = qrels.warnings  # trec_eval refuses a qrels file with an empty line
    assert blank.code == "trec.blank-line" and blank.examples == (f"{tmp_path / 'f'}:2",)
    run = read_run(write(tmp_path, "q1\tQ0\td1\t1\t2.5e0\ttag\r\nq1 Q0 d2 2 -0.125 tag", "r"))
    assert run.value.tolist() == [2.5, -0.125] and run.tags == (b"tag",)
    assert run.document(1) == b"d2" and run.line.tolist() == [1, 2] and not run.warnings


def test_a_blank_run_line_is_skipped_with_a_warning_as_trec_eval_refuses_it(
    tmp_path: Path,
) -> None:
    """trec.md: trec_eval refuses an empty line; annoscore skips it and says so, in a run file
    as in qrels (tolerated: ``--strict-input`` refuses it)."""
    run = read_run(write(tmp_path, "q1 Q0 d1 1 2.0 t\n\n \t\nq1 Q0 d2 2 1.0 t\n\n"))
    assert run.line.tolist() == [1, 4]
    [blank] = run.warnings
    assert blank.code == "trec.blank-line" and blank.count == 3 and blank.tolerated
    assert blank.examples == tuple(f"{tmp_path / 'f'}:{n}" for n in (2, 3, 5))
    assert "run file" in blank.message
    assert not read_run(write(tmp_path, "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")).warnings


def test_plain_decimals_parse_exactly_as_float(tmp_path: Path) -> None:
    scores = ["0.1", "12.3456", "-7", "999999999999999", "0.000000000000001", "3.", ".5"]
    text = "".join(f"q Q0 d{i} {i} {s} t\n" for i, s in enumerate(scores))
    assert read_run(write(tmp_path, text)).value.tolist() == [float(s) for s in scores]


@pytest.mark.parametrize(
    ("reader", "text", "line", "message"),
    [
        (read_qrels, "q1 0 d1 1\nq1 0 d2\n", 2, "expected 4"),
        (read_qrels, "q1 0 d1 yes\n", 1, "not an integer"),
        (read_qrels, "q1 0 d1 1_0\n", 1, "not an integer"),  # int() reads it as 10
        (read_qrels, "q1 0 d1 \u0661\n", 1, "not an integer"),  # Arabic-Indic one
        (read_qrels, "q1 0 d1 .5\n", 1, "not an integer"),
        (read_qrels, "q1 0 d1 1e3\n", 1, "not an integer"),
        (read_qrels, "q1 0 d1 1 x\n", 1, "expected 4"),
        (read_qrels, "q1 0 d1 1\nq1 0 d2 " + "9" * 5000 + "\n", 2, "64-bit integer"),
        (read_qrels, "q1 0 d1 1\nq1 0 d2 9223372036854775808\n", 2, "64-bit integer"),
        (read_run, "q1 Q0 d1 1 2.0\n", 1, "expected at least 6"),
        (read_run, "q1 Q0 d1 1 " + "9" * 5000 + " t\n", 1, "range of a 64-bit float"),
        (read_run, "q1 Q0 d1 1 1e999 t\n", 1, "range of a 64-bit float"),
        (read_run, "q1 Q0 d1 1 0x1p3 t\n", 1, "not a number"),
        (read_run, "q1 Q0 d1 1 1.5\x1f t\n", 1, "not a number"),
        (read_run, "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 high t\n", 2, "not a number"),
        (read_run, "q1 Q0 d1 1 nan t\n", 1, "NaN"),
        (read_run, "q1 Q0 d1 1 1_0 t\n", 1, "ASCII digits"),
        (read_run, "q1 Q0 d1 1 \u0661.5 t\n", 1, "ASCII digits"),
        (read_run, "q1 Q0 d1 1 1.0 t\nq1 Q0 d\x002 2 1.0 t\n", 2, "NUL"),
    ],
)
def test_bad_lines(tmp_path: Path, reader, text: str, line: int, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=message) as error:
        reader(write(tmp_path, text))
    assert error.value.line == line


def test_line_numbers_ignore_unicode_line_breaks(tmp_path: Path) -> None:
    text = "q1 Q0 d\u2028x 1 1.0 t\nq1 Q0 dy\u0085 2 1.0 t\nq1 Q0 d3 3 bad t\n"
    with pytest.raises(InputError, match="not a number") as error:
        read_run(write(tmp_path, text))
    assert error.value.line == 3


def test_byte_order_mark_is_removed_with_a_warning(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "\ufeffq1 0 d1 1\n"))
    assert qrels.queries == [b"q1"]
    [warning] = qrels.warnings
    assert warning.code == "formats.bom" and warning.tolerated


def test_comment_lines_are_skipped_with_a_warning_as_trec_eval_master_skips_them(
    tmp_path: Path,
) -> None:
    """A line whose first byte is ``#`` is a comment (trec_eval master); ``#`` anywhere else
    is a byte of the line (a document id of MS MARCO holds one; " #" begins a line of data)."""
    text = "#run of\tthe day\n\ufeffx\nq1 Q0 d#1 1 2.0 t\n##\n#\nq1 Q0 d2 2 1.0 t\n# \xff\n"
    run = read_run(write(tmp_path, text.replace("\ufeffx\n", "")))
    assert [run.document(0), run.document(1)] == [b"d#1", b"d2"] and run.line.tolist() == [2, 5]
    [comments] = run.warnings
    assert comments.code == "trec.comment-line" and comments.count == 4 and comments.tolerated
    assert comments.examples == tuple(f"{tmp_path / 'f'}:{n}" for n in (1, 3, 4, 6))
    qrels = read_qrels(write(tmp_path, "\ufeff# judged by A\nq1 0 d1 1\n\n#q1 0 d2 1\n", "q"))
    assert qrels.queries == [b"q1"] and qrels.line.tolist() == [2]
    codes = [(w.code, w.examples) for w in qrels.warnings]
    path = tmp_path / "q"
    assert codes == [  # the blank line 3 is one (trec_eval refuses it), the comments are not
        ("formats.bom", (str(path),)),
        ("trec.comment-line", (f"{path}:1", f"{path}:4")),
        ("trec.blank-line", (f"{path}:3",)),
    ]
    with pytest.raises(InputError, match="expected at least 6") as error:
        read_run(write(tmp_path, " # not a comment\n", "s"))
    assert error.value.line == 1
    with pytest.raises(InputError, match="empty"):
        read_qrels(write(tmp_path, "# only a comment\n", "e"))


def test_without_comments_a_hash_line_is_a_line_like_any_other(tmp_path: Path) -> None:
    """trec_eval 9.0.8 has no comments: ``#`` is a query id, a short line an error."""
    run = read_run(write(tmp_path, "# Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"), comments=False)
    assert run.queries == [b"#", b"q1"] and not run.warnings
    with pytest.raises(InputError, match="expected 4") as error:
        read_qrels(write(tmp_path, "q1 0 d1 1\n# judged\n", "q"), comments=False)
    assert error.value.line == 2


def test_a_pipe_reads_as_the_file_it_carries(tmp_path: Path) -> None:
    """A pipe has no size: the reader reads on to its end (bash ``<(...)`` gives such paths)."""
    import os
    import threading

    text = "".join(f"q{i % 3} Q0 doc-{i} {i} {i / 7:.3f} tag\n" for i in range(2000))
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    piped = read_run(fifo)
    writer.join()
    plain = read_run(write(tmp_path, text))
    assert piped.queries == plain.queries and piped.value.tolist() == plain.value.tolist()
    assert [piped.document(i) for i in (0, 1999)] == [b"doc-0", b"doc-1999"]
    assert piped.line.tolist() == plain.line.tolist()


def test_a_file_that_grows_while_read_is_read_to_its_end(tmp_path: Path) -> None:
    path = write(tmp_path, "q1 Q0 d1 1 2.0 t\n")
    real_fstat = trec.os.fstat

    def smaller(descriptor: int) -> object:  # the size seen before more lines were added
        found = real_fstat(descriptor)
        return mock.Mock(st_size=found.st_size - 9)

    with mock.patch.object(trec.os, "fstat", smaller):
        run = read_run(path)
    assert [run.document(0)] == [b"d1"] and run.value.tolist() == [2.0]


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        read_run(write(tmp_path, "\n"))
    with pytest.raises(InputError, match="empty"):
        read_qrels(write(tmp_path, "\ufeff"))


def test_a_long_token_beside_short_ones_at_the_end_of_the_file(tmp_path: Path) -> None:
    """The column reader gathers as many words as the longest token has for every token: a short
    token near the end of the buffer must read zeros there, not past the buffer."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 " + "d" * 41 + " 1\n", encoding="utf-8")
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 " + "d" * 41 + " 1 2.0 x\nq1 Q0 d1 2 1.0 x\n", encoding="utf-8")
    result = score_trec(qrels, run)
    assert result.scores["map"] == 1.0


def _reference_run(data: bytes) -> tuple[list[bytes], list[float], list[int]]:
    """A plain reading of a run file: fields split at ASCII whitespace (9-13, 32)."""
    documents, scores, lines = [], [], []
    for number, line in enumerate(data.split(b"\n"), 1):
        fields = _split(line)
        if fields:
            documents.append(fields[2])
            scores.append(float(fields[4]))
            lines.append(number)
    return documents, scores, lines


def _split(line: bytes) -> list[bytes]:
    fields, current = [], bytearray()
    for byte in line:
        if byte in (9, 10, 11, 12, 13, 32):
            if current:
                fields.append(bytes(current))
            current = bytearray()
        else:
            current.append(byte)
    if current:
        fields.append(bytes(current))
    return fields


_token = st.text(alphabet="abcXYZ019-_.\x01\x1f\x7f", min_size=1, max_size=20)
# ids past the bytes held as words (32) too: read from the text (TrecColumns.long_rows)
_document = _token | st.text(alphabet="ab\x01\x7fé", min_size=28, max_size=70)
_score = st.one_of(
    st.from_regex(r"\A[+-]?[0-9]{1,17}(\.[0-9]{0,6})?\Z"),
    st.from_regex(r"\A[+-]?\.[0-9]{1,6}\Z"),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
_gap = st.sampled_from([" ", "\t", "  ", " \t ", "\x0b", "\x0c", "\r "])


@given(
    st.lists(
        st.tuples(_token, _document, _score, st.lists(_gap, min_size=6, max_size=6), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([1, 40, 200, 1 << 21]),
)
@settings(max_examples=150, deadline=None, derandomize=True)
def test_run_columns_equal_a_plain_reading(tmp_path_factory, rows, chunk) -> None:  # type: ignore[no-untyped-def]
    """Any whitespace between fields, control characters inside tokens, blank lines, long and
    short numbers, the file read in pieces of any size: the vectorised reader gives what
    splitting each line gives."""
    text = ""
    for query, document, score, gaps, blank in rows:
        if blank:
            text += gaps[0] + "\n"
        text += gaps[0].lstrip("\r") + query + gaps[1] + "Q0" + gaps[2] + document + gaps[3]
        text += "1" + gaps[4] + score + gaps[5] + "tag\n"
    data = text.encode()
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_bytes(data)
    with mock.patch.object(trec, "_CHUNK", chunk):
        run = read_run(path)
    documents, scores, lines = _reference_run(data)
    assert [run.document(i) for i in range(len(run))] == documents
    assert run.value.tolist() == scores
    assert run.line.tolist() == lines
    assert run.queries == list(dict.fromkeys(q.encode() for q, *_ in rows))
    assert run.query.tolist() == [run.queries.index(q.encode()) for q, *_ in rows]


@pytest.mark.parametrize("chunk", [1, 30, 1 << 21])
def test_errors_name_the_first_bad_line_whatever_the_pieces(tmp_path: Path, chunk: int) -> None:
    text = "q1 Q0 d1 1 1.0 t\n\nq1 Q0 d2 2 1.0 t\nq1 Q0 d3 3 x t\nq1 Q0 d4 4\n"
    with mock.patch.object(trec, "_CHUNK", chunk), pytest.raises(InputError) as error:
        read_run(write(tmp_path, text))
    assert error.value.line == 4 and "not a number" in str(error.value)
    with mock.patch.object(trec, "_CHUNK", chunk), pytest.raises(InputError, match="empty"):
        read_run(write(tmp_path, "\n \n\t\n"))


def test_words_at_any_offset_equal_the_bytes() -> None:
    """``Words.words`` (a token's words gathered from views of the buffer at every byte
    offset, then masked to its length) against the token's bytes read by Python: 1 to
    :data:`KEY_WORDS` words, tokens at every offset of a word (0 to 7), of every length (0,
    shorter and longer than the words), at the start and at the very end of the buffer (its
    padding), bytes of every value (0xFF: a mask that keeps a byte too many shows)."""
    import random

    import numpy as np

    rng = random.Random(30)
    for case in range(300):
        size = rng.randint(0, 200)
        data = bytes(
            rng.choice([0x20, 0x41, 0xFF, 0x80, rng.randrange(1, 256)]) for _ in range(size)
        )
        buffer, length = trec._padded(data)
        words = trec_scan.Words(buffer)
        count = rng.randint(1, trec_scan.KEY_WORDS)
        # tokens inside the text (between its two newlines) and at its end
        inside = sorted(rng.randint(1, length + 1) for _ in range(rng.randint(0, 20)))
        start = np.array([*inside, length + 1], dtype=np.int64)
        span = np.array([rng.randint(0, length + 1 - s) for s in start.tolist()], dtype=np.int64)
        got = words.words(start, count, span)
        assert got.shape == (len(start), count) and got.flags.c_contiguous, case
        for row, (s, n) in enumerate(zip(start.tolist(), span.tolist(), strict=True)):
            token = bytes(buffer[s : s + n]).ljust(8 * count, b"\0")[: 8 * count]
            expected = [int.from_bytes(token[8 * k : 8 * k + 8], "little") for k in range(count)]
            assert got[row].tolist() == expected, (case, s, n, count)
        one = rng.randint(0, 12)  # one length for every token, or lengths close to it
        for lengths in (one, np.array([one + rng.randint(0, 2) for _ in start.tolist()])):
            got = words.words(start, count, lengths)
            spans = np.broadcast_to(lengths, start.shape).tolist()
            for row, (s, n) in enumerate(zip(start.tolist(), spans, strict=True)):
                token = bytes(buffer[s : s + n]).ljust(8 * count, b"\0")[: 8 * count]
                expected = [
                    int.from_bytes(token[8 * k : 8 * k + 8], "little") for k in range(count)
                ]
                assert got[row].tolist() == expected, (case, s, n, count)
