"""``annoscore trec`` against the plain reference of ``tests/oracles/trec.py`` on random
adversarial files: counts, scores (per query and MAP), warnings and refusals equal.

The generator is built to hit what the vectorised reader and the exact join can get wrong: query
and document ids from :mod:`tests.equivalence.ids` (1-40 bytes, across every word boundary,
shared prefixes, last-byte variants, numeric-looking forms, multi-byte UTF-8), chosen
independently for the qrels and the run, some longer than the words the reader keeps
(:data:`annoscore.formats.trec_scan.KEY_BYTES`) and sharing those bytes, some not UTF-8; judgments
repeated; queries on one side only; tied scores; relevances and scores in every written form;
blank lines, comment lines, extra fields, tabs, ``\\r``; malformed lines now and then; the
reader's pieces cut small in some cases (down to one line each: the lines of a query, blank
lines, comments, bad bytes and errors fall on both sides of piece boundaries) and, in a few
cases, files past its 512 KiB piece; and the candidate hash of the join made weak, so that
collisions happen.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from annoscore.align import trec as trec_join
from annoscore.errors import InputError
from annoscore.formats import trec as trec_format
from annoscore.formats import trec_scan
from annoscore.result import Result
from annoscore.tasks.trec import TrecOptions, score_trec
from tests.equivalence.ids import id_pool, split_sides
from tests.oracles import trec as oracle

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
SEPARATORS = " \t\r\x0b\x0c"
_NAMES = itertools.count()


def _zeros(columns: list[Any], out: Any) -> None:
    out[:] = 0


def _query_only(columns: list[Any], out: Any) -> None:
    out[:] = columns[0] << 40


def _two_bits(columns: list[Any], out: Any) -> None:
    out[:] = (columns[-1] & 3) << 62


WEAK_HASHES = [_zeros, _query_only, _two_bits]
"""Candidate hashes that collide on purpose (the join must stay exact): all equal, the query
only, two bits of the last key column."""


COMMENTS = [b"#", b"# a comment", b"#q 0 d 1", b"## x y z w v u", b"#\xff\xfe\r", b"#\t"]
"""Comment lines (a ``#`` first: skipped); ``" #"`` would be a line of data."""


def _pool(rng: random.Random, size: int) -> list[bytes]:
    ids = [i.encode() for i in id_pool(rng, size, forbidden=SEPARATORS + "\n")]
    extra: list[bytes] = []
    if rng.random() < 0.3:  # long ids sharing the bytes the reader keeps as words, and more
        stem = rng.choice(ids) * (40 // max(1, len(rng.choice(ids))) + 2)
        stem = stem[: rng.randint(30, 40)]
        extra += [stem + bytes([c]) for c in b"ab"] + [stem, stem[:-1], stem + b"ab"]
    if rng.random() < 0.1:
        extra.append(b"L" * rng.randint(100, 3000))
    if rng.random() < 0.15:  # not UTF-8, and one that reads like it once escaped
        extra += [b"d\xff", b"\xfe\xff" * rng.randint(1, 20), b"x\xc3"]
    return list(dict.fromkeys(ids + extra)) or [b"d"]


def _relevance_text(rng: random.Random, value: int) -> bytes:
    forms = [str(value)] * 6 + [f"{value}.0", f"+{value}" if value >= 0 else str(value)]
    forms += [f"00{value}" if value >= 0 else str(value), f"{value}.5", f"{value}."]
    return rng.choice(forms).encode()


def _score_text(rng: random.Random, value: float) -> bytes:
    forms = [repr(value), f"{value:.3f}", f"{value:e}", f"{value:.20f}", f"{value:+}"]
    forms += [f"{value:.17g}", repr(value).replace("e", "E")]
    return rng.choice(forms).encode()


def _sep(rng: random.Random) -> bytes:
    return rng.choice([b" ", b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c"])


def _line(rng: random.Random, fields: list[bytes]) -> bytes:
    out = rng.choice([b"", b"", b"", b" ", b"\t"])
    for i, item in enumerate(fields):
        out += (_sep(rng) if i else b"") + item
    return out + rng.choice([b"", b"", b"", b"\r", b" "])


def case(rng: random.Random) -> tuple[bytes, bytes, dict[str, Any]]:
    """One random qrels file, run file and options."""
    queries = _pool(rng, rng.randint(1, 8))
    documents = _pool(rng, rng.randint(1, 40))
    judged, retrieved = split_sides(rng, queries)
    if not judged and not retrieved:
        judged = retrieved = queries[:1]
    qrels_lines: list[bytes] = []
    for query in judged:
        for _ in range(rng.randint(0, 12)):
            document = rng.choice(documents)  # repeats: duplicate judgments
            relevance = rng.choice([-2, -1, 0, 0, 1, 1, 1, 2, 3])
            qrels_lines.append(
                _line(
                    rng,
                    [
                        query,
                        rng.choice([b"0", b"Q0", b"1"]),
                        document,
                        _relevance_text(rng, relevance),
                    ],
                )
            )
    run_lines: list[bytes] = []
    values = [
        rng.choice([0.0, 0.5, 1.0, 2.0, -1.0]) if rng.random() < 0.6 else rng.uniform(-5, 5)
        for _ in range(6)
    ]
    tag = rng.choice([b"run", b"sys-1", b"r\xff"])
    # now and then several tags, alike at their ends (a run's tag is found by its bytes)
    tags = [tag, b"x" + tag, tag[1:] or b"n"] if rng.random() < 0.2 else [tag]
    for query in retrieved:
        chosen = rng.sample(documents, rng.randint(0, min(len(documents), 30)))
        for rank, document in enumerate(chosen, 1):
            fields = [
                query,
                b"Q0",
                document,
                str(rank).encode(),
                _score_text(rng, rng.choice(values)),
                tag if len(tags) == 1 or rng.random() < 0.9 else rng.choice(tags),
            ]
            if rng.random() < 0.05:
                fields += [b"extra"] * rng.randint(1, 3)
            run_lines.append(_line(rng, fields))
    if not rng.random() < 0.7:  # lines of one query need not be together
        rng.shuffle(qrels_lines)
        rng.shuffle(run_lines)
    for lines in (qrels_lines, run_lines):
        if lines and rng.random() < 0.15:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice([b"", b"  ", b"\t\r"]))
        for _ in range(rng.choice([0, 0, 0, 1, 3])):  # comments (trec_eval master's)
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(COMMENTS))
    if run_lines and rng.random() < 0.05:  # a document retrieved twice
        run_lines.append(rng.choice(run_lines))
    if rng.random() < 0.08:  # something malformed
        bad = rng.choice(
            [
                b"q 0 d",
                b"q 0 d x",
                b"q 0 d 1e3",
                b"q 0 d " + b"9" * 30,
                b"q Q0 d 1 2",
                b"q Q0 d 1 nan r",
                b"q Q0 d 1 1e999 r",
                b"q Q0 d 1 0x10 r",
                b"q\x00 0 d 1",
            ]
        )
        target = qrels_lines if bad.count(b" ") == 3 or b"\x00" in bad else run_lines
        target.insert(rng.randrange(len(target) + 1), bad)
    qrels = b"\n".join(qrels_lines)
    run = b"\n".join(run_lines)
    if rng.random() < 0.8:
        qrels += b"\n"
    if rng.random() < 0.8:
        run += b"\n"
    if rng.random() < 0.05:
        qrels = b"\xef\xbb\xbf" + qrels
    if rng.random() < 0.05:
        run = b"\xef\xbb\xbf" + run
    options = {
        "complete": rng.random() < 0.5,
        "relevance_level": rng.choice([-2, -1, 0, 1, 1, 1, 2, 3]),
        "max_docs": rng.choice([None, None, None, 1, 2, 3, 5, 10]),
        "trec_eval": rng.choice(["master", "master", "master", "9.0.8"]),
    }
    if options["trec_eval"] == "9.0.8" and rng.random() < 0.5:  # ties in 32-bit floats only
        run = run.replace(b" 0.5 ", b" 0.50000001 ").replace(b" 1.0 ", b" 1.0000000001 ")
    return qrels, run, options


def observed(result: Result) -> dict[str, Any]:
    """What the reference gives, read from a result."""
    matrix = result.matrix
    per_query = {}
    for d, name in enumerate(matrix.documents):
        row = dict(zip(matrix.names, matrix.values[d].tolist(), strict=True))
        per_query[name] = (
            row["map_sum"],
            int(row["num_rel"]),
            int(row["num_ret"]),
            int(row["num_rel_ret"]),
        )
    warnings = [
        (w.code, w.count, list(w.examples), w.message if w.code == "note" else "")
        for w in result.warnings
    ]
    return {
        "per_query": per_query,
        "map": result.scores["map"],
        "counts": dict(result.counts),
        "warnings": warnings,
        "runid": result.details.runid,
    }


def expected(reference: oracle.OracleResult) -> dict[str, Any]:
    return {
        "per_query": reference.per_query,
        "map": reference.map,
        "counts": reference.counts,
        "warnings": [
            (w.code, w.count, w.examples, w.text if w.code == "note" else "")
            for w in reference.warnings
        ],
        "runid": reference.runid,
    }


@contextmanager
def _reading(chunk: int | None, weak: Any) -> Iterator[None]:
    with (
        mock.patch.object(trec_format, "_CHUNK", chunk or trec_format._CHUNK),
        mock.patch.object(trec_join, "_candidate_hash", weak or trec_join._candidate_hash),
    ):
        yield


def check(
    folder: Path,
    qrels: bytes,
    run: bytes,
    options: dict[str, Any],
    *,
    chunk: int | None = None,
    weak: Any = None,
) -> str:
    """Score one case both ways and assert they agree; returns "ok" or "refused"."""
    # new names each time: rewriting a file in place makes some file systems flush it (slow)
    qrels_path, run_path = folder / f"qrels-{next(_NAMES)}.txt", folder / f"run-{next(_NAMES)}.txt"
    qrels_path.write_bytes(qrels)
    run_path.write_bytes(run)
    try:
        return _check(qrels_path, run_path, qrels, run, options, chunk, weak)
    finally:  # thousands of cases: the folder keeps none of them
        qrels_path.unlink()
        run_path.unlink()


def _check(
    qrels_path: Path,
    run_path: Path,
    qrels: bytes,
    run: bytes,
    options: dict[str, Any],
    chunk: int | None,
    weak: Any,
) -> str:
    try:
        reference = oracle.score(qrels, run, str(qrels_path), str(run_path), **options)
    except oracle.OracleError as refused:
        with _reading(chunk, weak), pytest.raises(InputError) as error:
            score_trec(qrels_path, run_path, TrecOptions(**options))
        path = qrels_path if refused.file == "qrels" else run_path
        assert (error.value.path, error.value.line) == (str(path), refused.line), (
            refused,
            error.value,
        )
        return "refused"
    with _reading(chunk, weak):
        result = score_trec(qrels_path, run_path, TrecOptions(**options))
    assert observed(result) == expected(reference)
    return "ok"


def _cases(seed: int, count: int, folder: Path, **how: Any) -> dict[str, int]:
    outcomes = {"ok": 0, "refused": 0}
    for i in range(count):
        rng = random.Random(seed * 1_000_003 + i)
        qrels, run, options = case(rng)
        chunk = rng.choice([None] * 10 + [1, 100, 500, 2000]) if how.get("chunk") else None
        try:
            outcomes[check(folder, qrels, run, options, chunk=chunk, weak=how.get("weak"))] += 1
        except AssertionError as failure:
            raise AssertionError(f"case seed={seed} i={i} chunk={chunk}: {failure}") from None
    return outcomes


@pytest.mark.parametrize("seed", range(8))
def test_random_cases_equal_the_reference(tmp_path: Path, seed: int) -> None:
    outcomes = _cases(seed, 180 * SCALE, tmp_path, chunk=True)
    assert outcomes["ok"] > outcomes["refused"] > 0  # both paths are exercised


@pytest.mark.parametrize("weak", range(3))
def test_hash_collisions_change_nothing(tmp_path: Path, weak: int) -> None:
    """The join's hash only orders candidates: with hashes that collide all the time, the
    judgments found, the duplicates and every number stay the reference's."""
    outcomes = _cases(100 + weak, 120 * SCALE, tmp_path, weak=WEAK_HASHES[weak])
    assert outcomes["ok"] > 0


def _large(rng: random.Random, topics: int, *, long_ids: bool) -> tuple[bytes, bytes]:
    qrels, run = [], []
    for t in range(topics):
        query = (
            f"{t:0{rng.randint(1, 6)}d}".encode() if rng.random() < 0.5 else f"topic-{t}".encode()
        )
        docs = [f"doc{rng.randrange(400):04d}".encode() for _ in range(60)]
        if long_ids:
            docs = [b"clueweb12-" + b"0" * 24 + d + (b"x" * rng.randint(0, 3)) for d in docs]
        docs = list(dict.fromkeys(docs))
        for d in docs[:25] + docs[:3]:
            qrels.append(b"%s 0 %s %d" % (query, d, rng.choice([0, 0, 1, 2])))
        for i, d in enumerate(docs[5:], 1):
            run.append(
                b"%s Q0 %s %d %s r" % (query, d, i, repr(round(rng.random() * 4, 1)).encode())
            )
    return b"\n".join(qrels) + b"\n", b"\n".join(run) + b"\n"


@pytest.mark.parametrize("long_ids", [False, True])
def test_files_past_the_readers_piece(tmp_path: Path, long_ids: bool) -> None:
    """Files of more than 512 KiB (several pieces at the default size), ties, repeated
    judgments, ids under and over the words the reader keeps."""
    rng = random.Random(7 + long_ids)
    for topics in [400] * SCALE:
        qrels, run = _large(rng, topics * (2 if not long_ids else 1), long_ids=long_ids)
        assert len(run) > trec_format._CHUNK
        for options in ({}, {"complete": True, "relevance_level": 2, "max_docs": 20}):
            check(
                tmp_path,
                qrels,
                run,
                {"complete": False, "relevance_level": 1, "max_docs": None, **options},
            )


@pytest.mark.parametrize("weak", [None, 2])
def test_join_keyed_by_the_hash_alone(tmp_path: Path, weak: int | None) -> None:
    """The join's sort key without the query above the hash (as when the query's and the row
    number's bits leave fewer than ``_HASH_BITS`` bits of it): the same judgments, duplicates
    and numbers, with the real hash and with one that collides."""
    with mock.patch.object(trec_join, "_HASH_BITS", 64):
        outcomes = _cases(
            200 + (weak or 0),
            80 * SCALE,
            tmp_path,
            weak=None if weak is None else WEAK_HASHES[weak],
        )
    assert outcomes["ok"] > 0


_WHITESPACE = rb"[\t\n\x0b\x0c\r ]+"


def _plain_rows(piece: bytes, columns: int) -> tuple[list[tuple[int, list[tuple[int, int]]]], int]:
    """The rows of a piece (text between two newlines) split by plain Python: each line with
    tokens, numbered from 1, with its tokens' (start, end) in the piece; and the line of the
    first line with a wrong number of tokens (0: none), the rows stopping before it."""
    import re

    rows: list[tuple[int, list[tuple[int, int]]]] = []
    at = 1
    for number, line in enumerate(piece[1:-1].split(b"\n"), 1):
        tokens = [
            (at + m.start(), at + m.end()) for m in re.finditer(rb"[^\t\n\x0b\x0c\r ]+", line)
        ]
        at += len(line) + 1
        if not tokens:
            continue
        if len(tokens) < columns or (columns == 4 and len(tokens) > 4):
            return rows, number
        rows.append((number, tokens))
    return rows, 0


def _piece(rng: random.Random, columns: int) -> bytes:
    """Lines of ``columns`` tokens joined by one space (the reader's regular case) most of the
    time, now and then another separator, a blank line, a line with more or fewer tokens,
    whitespace at its end; a third of the pieces with Windows line ends (``\\r\\n``)."""
    lines = []
    # a control byte inside tokens in half the pieces (it is no separator)
    alphabet = b"ab1.-\x01\xc3" if rng.random() < 0.5 else b"ab1.-\xc3"
    for _ in range(rng.randint(0, 30)):
        count = columns
        roll = rng.random()
        if roll < 0.05:
            count = rng.choice((0, 1, columns - 1, columns + 1, columns + 3))
        tokens = [
            bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(count)
        ]
        separator = b" " if rng.random() < 0.9 else rng.choice((b"\t", b"  ", b"\r", b"\x0b"))
        end = b"" if rng.random() < 0.95 else rng.choice((b" ", b"\r", b"\t"))
        lines.append(separator.join(tokens) + end)
    newline = b"\r\n" if rng.random() < 0.3 else b"\n"
    return b"\n" + newline.join(lines) + (newline if lines else b"")


@pytest.mark.parametrize("columns", [4, 6])
def test_token_bounds_equal_a_plain_split(columns: int) -> None:
    """The reader's bounds of a piece (lines of exactly ``columns`` tokens taken as every n-th
    token, and the general search of the newlines among the tokens) against a plain split of
    each line: the rows, their lines, each used field's start and end, the error's line."""
    import numpy as np

    rng = random.Random(columns)
    regular = by_separators = with_tabs = windows = 0
    plain_separators = trec_scan.by_separators
    found: list[Any] = []

    def separators(*args: Any) -> Any:
        found.append(plain_separators(*args))
        return found[-1]

    # a token too few, the line ending in a space,
    # or after a Windows line a token more after a \r, or a control byte (a token's) before
    # the newline: as many separators as a regular line
    short = [b"\n" + b" ".join([b"a"] * (columns - 1)) + b" " + end for end in (b"\n", b"\r\n")]
    windows_line = b"\n" + b" ".join([b"a"] * columns) + b"\r"
    short += [
        windows_line + b"\n" + b" ".join([b"a"] * columns) + end for end in (b"\rb\n", b"\x01\n")
    ]
    # a tab after a \r instead of the newline: one line of twice the tokens, with the
    # separators and control bytes of two Windows lines
    short.append(windows_line + b"\t" + b" ".join([b"a"] * columns) + b"\r\n")
    # a control byte (a token's) where the last separator would be: a token too few
    short += [
        b"\n" + b" ".join([b"a"] * (columns - 1)) + b"\x01a" + end for end in (b"\n", b"\r\n")
    ]
    for case in range(1500 * SCALE + len(short)):
        piece = short[case] if case < len(short) else _piece(rng, columns)
        raw = np.frombuffer(piece, dtype=np.uint8)
        expected, bad = _plain_rows(piece, columns)
        found.clear()
        with mock.patch.object(trec_scan, "by_separators", separators):
            bounds = trec_scan.token_bounds(raw, columns, "fields", Path("f"))
        if found[0] is not None:  # the separators alone found the rows
            by_separators += 1
            with_tabs += b"\t" in piece
            windows += b"\r\n" in piece
        regular += bounds.first_token is None
        assert (bounds.error.line if bounds.error else 0) == bad, (case, piece)
        assert bounds.line.tolist() == [n for n, _ in expected], (case, piece)
        assert bounds.lines == piece.count(b"\n") - 1
        for k in (0, 2, columns - 1):
            start, length = bounds.field(k)
            assert list(zip(start.tolist(), (start + length).tolist(), strict=True)) == [
                tokens[k] for _, tokens in expected
            ], (case, k, piece)
    assert 0.2 * 1500 * SCALE < regular < 0.9 * 1500 * SCALE  # both ways taken
    assert 0.05 * 1500 * SCALE < by_separators < regular  # and the separators' way, with tabs too
    assert with_tabs > 10 * SCALE
    assert windows > 20 * SCALE  # Windows line ends read the separators' way too


@pytest.mark.parametrize("final_newline", [True, False])
def test_files_of_the_shortest_lines(tmp_path: Path, final_newline: bool) -> None:
    """Files whose every line is as short as a line can be (one byte a field): as many rows as
    the columns are allocated for, read whole."""
    qrels = b"\n".join([b"1 0 d 1"] * 3000) + (b"\n" if final_newline else b"")
    run = b"\n".join([b"1 Q d 1 1 r"] * 2 + [b"1 Q e 1 1 r"]) + (b"\n" if final_newline else b"")
    for text, reader in ((qrels, trec_format.qrels_of_text), (run, trec_format.run_of_text)):
        columns = reader(text)
        assert len(columns) == text.count(b"\n") + (not final_newline)
    check(tmp_path, qrels, run, {"complete": False, "relevance_level": 1, "max_docs": None})


def test_run_tags_found_by_their_bytes_equal_a_plain_split() -> None:
    """The run's distinct tags (the reader compares each line's tag field with the first
    line's as words, :func:`annoscore.formats.trec_scan.one_tag`, before it finds the distinct
    tags): one tag, tags of 1 to 40 bytes (one word and several), tags that end or begin
    alike or differ in one byte of any word, another separator before a tag, fields after
    the tag, a last line without a newline, pieces cut small (the shortcut per piece),
    against the reference's reading."""
    rng = random.Random(11)
    hit = 0
    for case in range(400 * SCALE):
        tag = rng.choice(
            [b"r", b"run", b"sys-1", b"r\xff", b"abcdefghij", b"t" * rng.randint(7, 40)]
        )
        at = rng.randrange(len(tag))
        others = [b"x" + tag, tag[1:] or b"n", tag + b"x", tag[:-1] + b"\xfe"]
        others.append(tag[:at] + bytes([tag[at] ^ 1]) + tag[at + 1 :])  # one byte differs
        lines = []
        for i in range(rng.randint(1, 60)):
            line_tag = tag if rng.random() < 0.97 else rng.choice(others)
            before = b" " if rng.random() < 0.98 else rng.choice([b"\t", b"  ", b"\x0b"])
            if rng.random() < 0.02:  # a seventh field: the tag is still the sixth
                line_tag += rng.choice([b" extra", b"\tx"])
            lines.append(b"q%d Q0 d%d %d 1.5%s%s" % (i % 3, i, i, before, line_tag))
        text = b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b"")
        expected = oracle.read(text, "run", "r").tags
        pieces = rng.choice([trec_format._CHUNK, 1, 40, 200])
        with mock.patch.object(trec_format, "_CHUNK", pieces):
            assert list(trec_format.run_of_text(text).tags) == expected, (case, text)
        hit += len(expected) == 1
    assert 0 < hit < 400 * SCALE


def _number_token(rng: random.Random) -> bytes:
    """A score or relevance as files write them, now and then malformed: 1 to 20 bytes,
    a sign, a point anywhere (or two), leading zeros, exponents, letters."""
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 18)))
    point = rng.randint(0, len(digits))
    text = rng.choice(
        [
            digits,
            digits[:point] + "." + digits[point:],
            digits[: rng.randint(1, 4)] + "." + digits[:2],
            "0" * rng.randint(1, 3) + digits[:3],
            digits[:3] + "e" + digits[:1],
            digits[:2] + "." + digits[2:4] + "." + digits[4:5],
            rng.choice(["inf", "-Infinity", "x1", "1x", "..", ".", "+", "1_0", "nan"]),
        ]
    )
    if rng.random() < 0.3:
        text = rng.choice("+-") + text
    return text.encode()


def _accepted(kind: str, token: bytes) -> bool:
    if kind == "qrels":
        return oracle._relevance(token) is not None
    return not isinstance(oracle._score(token), str)


def test_numbers_read_as_the_reference() -> None:
    """Scores and relevances read by the vectorised reader
    (:func:`annoscore.formats.trec._numbers`: the bytes of each token as one word when the
    piece's longest has at most 8, else two; the digits, the point and the sign counted per
    column; relevances of one byte as that digit) equal the reference's reading, refusals at
    the same line, with pieces cut small (pieces whose numbers all fit one word, or one byte,
    and others) and whole."""
    rng = random.Random(12)
    checked = {"run": 0, "qrels": 0}
    for case in range(300 * SCALE):
        kind = rng.choice(["run", "qrels"])
        short = rng.random() < 0.5  # every token of at most 8 bytes: one word
        tokens = [_number_token(rng) for _ in range(rng.randint(1, 40))]
        if short:
            tokens = [t[:8] for t in tokens]
        if rng.random() < 0.2:  # one byte each (a relevance is then read as its digit)
            tokens = [bytes([rng.choice(b"0123456789+-.eE/:x\xff")]) for _ in tokens]
        if rng.random() < 0.8:  # mostly well formed: the reading goes past the first line
            tokens = [t for t in tokens if _accepted(kind, t)] or [b"1"]
        lines = [
            b"q%d 0 d%d %s" % (i % 2, i, t) if kind == "qrels" else b"q Q0 d%d 1 %s t" % (i, t)
            for i, t in enumerate(tokens)
        ]
        text = b"\n".join(lines) + b"\n"
        pieces = rng.choice([trec_format._CHUNK, 1, 30, 120])
        read = trec_format.qrels_of_text if kind == "qrels" else trec_format.run_of_text
        try:
            expected = [row[2] for row in oracle.read(text, kind, "f").rows]
        except oracle.OracleError as refused:
            with mock.patch.object(trec_format, "_CHUNK", pieces), pytest.raises(InputError) as e:
                read(text)
            assert e.value.line == refused.line, (case, text, e.value, refused)
            continue
        with mock.patch.object(trec_format, "_CHUNK", pieces):
            got = read(text).value.tolist()
        assert [repr(v) for v in got] == [repr(v) for v in expected], (case, text)
        checked[kind] += 1
    assert min(checked.values()) > 20 * SCALE


def test_ties_put_in_order_equal_a_lexicographic_sort() -> None:
    """The order within runs of tied scores (:func:`annoscore.align.trec._within_ties`: a run
    of two by one comparison of its rows, longer runs sorted) against a plain lexicographic
    sort by run, then the keys, stable: runs of every length, keys equal in some or all
    columns, the largest and smallest words."""
    import numpy as np

    rng = random.Random(2)
    for case in range(2000 * SCALE):
        sizes = [rng.choice([2, 2, 2, 2, 3, 4, 7]) for _ in range(rng.randint(1, 30))]
        group = np.repeat(np.arange(1, len(sizes) + 1), sizes)
        starts = np.concatenate([[True], group[1:] != group[:-1]])
        words = [0, 1, 2, 1 << 63, (1 << 64) - 1]
        keys = [
            np.array([rng.choice(words) for _ in group], dtype=np.uint64)
            for _ in range(rng.randint(1, 3))
        ]
        rows = list(range(len(group)))
        expected = sorted(rows, key=lambda i: (int(group[i]), *(int(k[i]) for k in keys), i))
        assert trec_join._within_ties(keys, group, starts).tolist() == expected, (case, sizes)


def test_join_groups_sorted_query_by_query_equal_one_sort() -> None:
    """The join's sort done query by query when both tables come grouped by query
    (:meth:`annoscore.align.trec._Rows.grouped` and :func:`_sort_segments`: segments of 0, 1,
    2, every width class, all of one size, one huge; a query on one side only) against the
    plain sort of every key (:func:`_exact_groups` with ``grouped`` off): the same order and
    equal neighbours, with the real hash and with colliding ones, and the fallback taken for
    tables that are not grouped."""
    import numpy as np

    rng = random.Random(11)
    for case in range(300 * SCALE):
        n_queries = rng.randint(1, 12)
        tables = []
        for _ in range(2):
            if rng.random() < 0.3:  # every query the same number of rows
                size = rng.randint(0, 6)
                sizes = [size] * n_queries
            else:
                sizes = [rng.choice([0, 0, 1, 2, 3, 5, 9, 17, 40]) for _ in range(n_queries)]
            if rng.random() < 0.05:
                sizes[rng.randrange(n_queries)] = 700
            query = np.repeat(np.arange(n_queries, dtype=np.uint64), sizes)
            if rng.random() < 0.1 and len(query) > 1:  # not grouped: the plain sort
                query = query[::-1].copy()
            words = rng.randint(1, 3)
            docs = [
                np.array([rng.choice([0, 1, 2, (1 << 64) - 1]) for _ in query], dtype=np.uint64)
                for _ in range(words)
            ]
            tables.append([query, *docs])
        width = max(len(t) for t in tables)
        for t in tables:  # the same number of columns: zeros beyond a table's words
            t.extend(np.zeros(len(t[0]), dtype=np.uint64) for _ in range(width - len(t)))
        weak = rng.choice([None, *WEAK_HASHES])
        with mock.patch.object(trec_join, "_candidate_hash", weak or trec_join._candidate_hash):
            order, same = trec_join._exact_groups(trec_join._Rows(tables))
            with mock.patch.object(trec_join._Rows, "grouped", lambda self: None):
                plain_order, plain_same = trec_join._exact_groups(trec_join._Rows(tables))
        assert order.tolist() == plain_order.tolist(), case
        assert same.tolist() == plain_same.tolist(), case


def _ranked_case(rng: random.Random) -> tuple[bytes, bytes, bytes]:
    """A qrels file and a run written as systems write one (each query's lines together, by
    score highest first, ties in any order of documents): the run's queries the qrels' in the
    same order, a prefix of them, or any two sides in any order; and the run's lines
    shuffled."""
    queries = [f"q{i}".encode() for i in range(rng.randint(1, 25))]
    style = rng.randrange(3)
    if style == 0:
        judged, retrieved = queries, list(queries)
    elif style == 1:
        judged, retrieved = queries, queries[: rng.randint(1, len(queries))]
    else:
        judged, retrieved = split_sides(rng, queries)  # type: ignore[arg-type]
        judged, retrieved = judged or queries[:1], retrieved or queries[-1:]
        rng.shuffle(retrieved)
    documents = [f"d{i:03d}".encode() for i in range(60)]
    qrels_lines = [
        b"%s 0 %s %d" % (q, d, rng.choice([-1, 0, 0, 1, 1, 2]))
        for q in judged
        for d in rng.sample(documents, rng.randint(1, 30))
    ]
    values = [rng.choice([0.0, 0.5, 1.0, 2.0]) for _ in range(3)]
    run_lines: list[bytes] = []
    for q in retrieved:
        scored = [
            (rng.choice(values) if rng.random() < 0.7 else rng.uniform(0, 3), d)
            for d in rng.sample(documents, rng.randint(1, 40))
        ]
        scored.sort(key=lambda item: -item[0])  # stable: ties stay in random document order
        run_lines += [b"%s Q0 %s %d %r r" % (q, d, k, s) for k, (s, d) in enumerate(scored, 1)]
    shuffled = list(run_lines)
    rng.shuffle(shuffled)
    return (
        b"\n".join(qrels_lines) + b"\n",
        b"\n".join(run_lines) + b"\n",
        b"\n".join(shuffled) + b"\n",
    )


def test_ranked_runs_equal_the_reference_and_their_shuffled_lines(tmp_path: Path) -> None:
    """A run whose lines come ranked (read without sorting them: the order only fixed within
    ties) equal to the reference, and to the same lines shuffled (sorted as a whole) in every
    measure of ``all_trec``, bit for bit: the run's queries numbered as the qrels' or not,
    queries on one side only, with ``-M`` and ``-c``."""
    rng = random.Random(20261130)
    for i in range(120 * SCALE):
        qrels, ranked, shuffled = _ranked_case(rng)
        options = {
            "complete": rng.random() < 0.3,
            "relevance_level": rng.choice([0, 1, 1, 2]),
            "max_docs": rng.choice([None, None, 3, 10]),
        }
        check(tmp_path, qrels, ranked, options)
        results = []
        for run in (ranked, shuffled):
            qrels_path, run_path = tmp_path / f"q{i}.txt", tmp_path / f"r{i}.txt"
            qrels_path.write_bytes(qrels)
            run_path.write_bytes(run)
            result = score_trec(
                qrels_path, run_path, TrecOptions(measures=("all_trec",), **options)
            )
            results.append((result.matrix.documents, result.matrix.values.tobytes()))
        assert results[0] == results[1], i
