"""BIO tag scoring held to its peers on random tag sequences.

- ``annoscore seqeval`` against seqeval 1.2.2 itself (the test extra): ``classification_report
  (output_dict=True)`` (per type, micro, macro, weighted; support = gold count) and
  ``accuracy_score``, default mode and strict mode for every scheme seqeval has, on random
  sentences; default mode also on odd tags (bare labels, ``.``, prefixes without type, types
  with hyphens), where seqeval reads character by character.
- ``annoscore conlleval`` against seqeval's default mode on IOB and IOE files without S tags
  (seqeval's own tests hold that the two agree there; with E then B of one type conlleval makes
  one phrase, so the IOE files have no B and the IOB files no E).

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import bisect
import math
import os
import random
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from annoscore.metrics.seqeval import Mode, Scheme
from annoscore.tasks.conlleval import count_conlleval
from annoscore.tasks.seqeval import SeqevalOptions, count_seqeval

seqeval_metrics = pytest.importorskip("seqeval.metrics")
seqeval_scheme = pytest.importorskip("seqeval.scheme")

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 200 * SCALE

PREFIXES = {
    Scheme.iob1: "IOB",
    Scheme.iob2: "IOB",
    Scheme.ioe1: "IOE",
    Scheme.ioe2: "IOE",
    Scheme.iobes: "IOBES",
    Scheme.bilou: "BILOU",
}
ODD = ["PER", "B", "I", "X", "B-", "BX-Y", "I-X-Z", ".", "E", "S", "L-X", "U-X", "[", "]"]


def _sentences(rng: random.Random, tags: Sequence[str], sentences: int) -> list[list[str]]:
    return [[rng.choice(tags) for _ in range(rng.randint(0, 9))] for _ in range(sentences)]


def _pair(rng: random.Random, tags: Sequence[str]) -> tuple[list[list[str]], list[list[str]]]:
    gold: list[list[str]] = []
    while not any(gold):  # seqeval's accuracy divides by the number of tokens
        gold = _sentences(rng, tags, rng.randint(1, 6))
    guess = []
    for sentence in gold:  # predictions near the gold: most tags kept
        guess.append([t if rng.random() < 0.7 else rng.choice(tags) for t in sentence])
    return gold, guess


def _peer(gold: list[list[str]], guess: list[list[str]], **kwargs: object) -> dict[str, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = seqeval_metrics.classification_report(gold, guess, output_dict=True, **kwargs)
        accuracy = seqeval_metrics.accuracy_score(gold, guess)
    return {"report": report, "accuracy": accuracy}


def _same_report(ours: dict[str, dict[str, float | None]], theirs: dict[str, object]) -> None:
    assert set(ours) == set(theirs)
    for key, row in theirs.items():
        assert isinstance(row, dict)
        for name, value in row.items():
            if math.isnan(value):  # seqeval's mean of no type: annoscore's None
                assert ours[key][name] is None, (key, name)
                continue
            assert ours[key][name] == pytest.approx(float(value), rel=1e-12, abs=1e-15), (key, name)


def _tags(scheme: Scheme, types: str = "XY") -> list[str]:
    return ["O"] + [f"{p}-{t}" for p in PREFIXES[scheme] if p != "O" for t in types]


@pytest.mark.parametrize("scheme", list(PREFIXES))
def test_strict_mode_is_seqeval_for_every_scheme(scheme: Scheme) -> None:
    rng = random.Random(f"strict-{scheme.value}")
    peer_scheme = getattr(seqeval_scheme, scheme.value.upper())
    tags = _tags(scheme)
    for _ in range(CASES):
        gold, guess = _pair(rng, tags)
        if not any(gold) or not any(guess):
            continue
        ours = count_seqeval(gold, guess, SeqevalOptions(mode=Mode.strict, scheme=scheme))
        peer = _peer(gold, guess, mode="strict", scheme=peer_scheme)
        if not peer["report"]:
            assert ours.counts["tp"] + ours.counts["fp"] + ours.counts["fn"] == 0
            continue
        _same_report(ours.extra["seqeval"], peer["report"])  # type: ignore[arg-type]
        assert ours.scores["accuracy"] == pytest.approx(peer["accuracy"])


@pytest.mark.parametrize("tags", ["iobes", "odd"])
def test_default_mode_is_seqeval_get_entities(tags: str) -> None:
    rng = random.Random(f"default-{tags}")
    pool = _tags(Scheme.iobes) if tags == "iobes" else _tags(Scheme.iobes) + ODD
    for _ in range(CASES):
        gold, guess = _pair(rng, pool)
        ours = count_seqeval(gold, guess)
        peer = _peer(gold, guess)
        if not peer["report"]:
            assert ours.counts["tp"] + ours.counts["fp"] + ours.counts["fn"] == 0
            continue
        _same_report(ours.extra["seqeval"], peer["report"])  # type: ignore[arg-type]


def test_auto_detection_is_seqevals() -> None:
    rng = random.Random("auto")
    schemes = list(PREFIXES)
    for scheme in schemes:
        for _ in range(CASES // 4):
            pool = _tags(scheme)
            if rng.random() < 0.3:  # prefixes of two schemes: some sets seqeval refuses
                pool += _tags(rng.choice(schemes))
            gold, guess = _pair(rng, pool)
            flat = {t[0] for s in gold for t in s}
            try:
                peer = _peer(gold, guess, mode="strict")
            except (
                Exception
            ):  # seqeval refuses (no scheme, or a prefix outside it): so does annoscore
                from annoscore.errors import InputError

                with pytest.raises(InputError):
                    count_seqeval(gold, guess, SeqevalOptions(mode=Mode.strict))
                continue
            ours = count_seqeval(gold, guess, SeqevalOptions(mode=Mode.strict))
            if peer["report"]:
                _same_report(ours.extra["seqeval"], peer["report"])  # type: ignore[arg-type]
            assert flat  # a detected scheme needs prefixes


@pytest.mark.parametrize("prefixes", ["IOB", "IOE"])
def test_conlleval_is_seqeval_default_mode_on_files_without_s(prefixes: str) -> None:
    rng = random.Random(f"conlleval-{prefixes}")
    tags = ["O"] + [f"{p}-{t}" for p in prefixes if p != "O" for t in "XYZ"]
    for _ in range(CASES):
        gold, guess = _pair(rng, tags)
        ours = count_conlleval(gold, guess)
        peer = count_seqeval(gold, guess)
        assert ours.counts["tp"] == peer.counts["tp"]
        assert ours.counts["fp"] == peer.counts["fp"]
        assert ours.counts["fn"] == peer.counts["fn"]
        assert ours.counts["tokens"] == peer.counts["tokens"]
        assert ours.counts["correct_tokens"] == peer.counts["correct_tokens"]
        assert {k: v.counts for k, v in ours.types.items()} == {
            k: v.counts for k, v in peer.types.items()
        }


# --- annoscore's fast paths against the plain references ---------------------------------------

TAGS = ["O", "B-X", "I-X", "E-X", "S-X", "B-Y", "I-Y", "E-Y", "PER", "B", "I", "B-", "O-X"]
TAGS += [".", "[", "]", "0", "B-0", "NONE", "I-X-Z", "B-ORG\r", "O\r"]


def test_conlleval_counts_are_the_token_by_token_reading() -> None:
    from annoscore.metrics.conlleval import conlleval_counts
    from tests.oracles.bio import plain_conlleval_counts

    rng = random.Random("conlleval-vectorised")
    for case in range(CASES * 5):
        n = rng.randint(0, 40) if case % 50 else rng.randint(500, 3000)
        gold = [rng.choice(TAGS) for _ in range(n)]
        guess = [g if rng.random() < 0.6 else rng.choice(TAGS) for g in gold]
        boundary = [rng.random() < 0.1 for _ in range(n)]
        cuts = {rng.randint(1, n - 1) for _ in range(rng.randint(0, 4))} if n > 1 else set()
        starts = sorted({0} | cuts)
        raw = rng.random() < 0.3
        outside = rng.choice(["O", "NONE"])
        expected = plain_conlleval_counts(gold, guess, boundary, starts, raw=raw, outside=outside)
        assert conlleval_counts(gold, guess, boundary, starts, raw=raw, outside=outside) == expected


DELIMITERS = [(" ", (-2, -1)), (None, (-1,)), ("[ \t]", (-2, -1)), ("|", (0, -1)), (" *", (-2, -1))]
"""Perl split rules: one space, runs of white space (not Perl), a class, an empty pattern
(between every character), a pattern that matches empty or blanks."""
FIELDS = ["a", "B-X", "O", "I-Y", "-X-", "-DOCSTART-", "é", "x\r", "", "\t", "d1"]


def test_the_tag_reader_is_the_line_by_line_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checked reading (split in blocks of lines, to the first wrong width: blocks of 1, 3
    and 7 lines too) against the reference."""
    from annoscore.errors import InputError
    from annoscore.formats import conll_bio
    from annoscore.formats.conll_bio import read_tag_text
    from tests.oracles.bio import plain_read_tags

    rng = random.Random("reader")
    for case in range(CASES * 5):
        monkeypatch.setattr(conll_bio, "ROW_BLOCK", [1, 3, 7, 1 << 16][case % 4])
        width = rng.randint(1, 4)
        lines = []
        for _ in range(rng.randint(0, 30) if case % 50 else 2000):
            if rng.random() < 0.15:
                lines.append(rng.choice(["", "", " ", "\r"]))
                continue
            fields = [rng.choice(FIELDS[:7]) for _ in range(width)]
            if rng.random() < 0.05:  # a bad line: empty field, other width, tabs, CR
                fields.append(rng.choice(FIELDS))
            lines.append(" ".join(fields))
        text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
        for delimiter, columns in DELIMITERS:
            try:
                expected = plain_read_tags(text, "f", delimiter=delimiter, columns=columns)
            except InputError as error:
                with pytest.raises(InputError) as raised:
                    read_tag_text(text, "f", delimiter=delimiter, columns=columns)
                assert str(raised.value) == str(error)
                continue
            got = read_tag_text(text, "f", delimiter=delimiter, columns=columns)
            assert got.replaced(line=list(got.line)) == expected


def _field_scan_case(rng: random.Random, case: int) -> str:
    """A tag file the field scan of :func:`read_tag_text` takes (single spaces, one width),
    with blank lines anywhere (first, last, in runs), ``-X-`` and ``-DOCSTART-`` lines, tokens
    beginning with ``-``, multi-byte text, a tab or CR inside a field, no last line end; now
    and then what makes it decline (a double space, a space first or last, another width)."""
    width = rng.randint(2, 5)
    pool = ["O", "B-X", "I-X", "B-PER", "I-PER", "E-X", "S-X", "O-X", "B-DNA-binding", "-"]
    tokens = ["w", "-", "--", "-X-a", "-DOCSTARTx", "-LRB-", "a1", "0", "-X-", "-DOCSTART-"]
    if rng.random() < 0.3:
        tokens += ["é", "中文", "x\ty", "a\r", "\u00a0", "\x85"]
        pool += ["B-É", "O\r"]
    lines = []
    size = rng.randint(0, 40) if case % 40 else rng.randint(2000, 5000)
    for _ in range(size):
        if rng.random() < 0.15:
            lines.append("")
            continue
        token = rng.choice(tokens)
        middle = [f"d{rng.randint(0, 3)}" if token == "-DOCSTART-" else rng.choice(pool)]
        fields = [token] + (middle * (width - 2)) + [rng.choice(pool)][: width - 1]
        line = " ".join(fields[:width])
        if rng.random() < 0.003:
            line = rng.choice([line + " ", " " + line, line.replace(" ", "  ", 1), line + " O"])
        lines.append(line)
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


def test_the_field_scan_is_the_line_by_line_reading() -> None:
    from annoscore.errors import InputError
    from annoscore.formats.conll_bio import _scan_fields, read_tag_text
    from tests.oracles.bio import plain_read_tags

    rng = random.Random("field-scan")
    scanned = 0
    for case in range(CASES * 4):
        text = _field_scan_case(rng, case)
        delimiter = rng.choice([" ", " ", None])
        columns = rng.choice([(-2, -1), (-1,), (1, -1), (0, -1), (-1, 1)])
        scanned += _scan_fields(text, delimiter) is not None
        try:
            expected = plain_read_tags(text, "f", delimiter=delimiter, columns=columns)
        except InputError as error:
            with pytest.raises(InputError) as raised:
                read_tag_text(text, "f", delimiter=delimiter, columns=columns)
            assert str(raised.value) == str(error), case
            continue
        got = read_tag_text(text, "f", delimiter=delimiter, columns=columns)
        assert got.replaced(line=list(got.line)) == expected, case
    assert scanned > CASES * 2  # the generator hits the scan


def test_seqeval_default_counts_are_the_token_by_token_reading_per_document() -> None:
    import numpy as np

    from annoscore.counts import Counts
    from annoscore.formats.tag_codes import tag_codes
    from annoscore.metrics.seqeval import default_mode_item_counts
    from tests.oracles.bio import plain_default_entities, plain_entity_counts

    rng = random.Random("seqeval-vectorised")
    for case in range(CASES * 3):
        sentences = rng.randint(0, 8) if case % 50 else 800
        docs = rng.randint(1, 3)
        gold_s = [
            [rng.choice(TAGS + ODD) for _ in range(rng.randint(0, 8))] for _ in range(sentences)
        ]
        guess_s = [[t if rng.random() < 0.6 else rng.choice(TAGS) for t in s] for s in gold_s]
        doc = sorted(rng.randrange(docs) for _ in range(sentences))
        gold = [t for s in gold_s for t in s]
        guess = [t for s in guess_s for t in s]
        names, (gold_codes, guess_codes) = tag_codes(gold, guess)
        # the sentences joined with one separator after each (its codes are not read)
        joined: list[list[int]] = [[], [], []]  # gold, guess, document of each item
        separators, at = [], 0
        for k, s in enumerate(gold_s):
            for _ in s:
                joined[0].append(int(gold_codes[at]))
                joined[1].append(int(guess_codes[at]))
                joined[2].append(doc[k])
                at += 1
            separators.append(len(joined[0]))
            for column, value in zip(joined, (0, 0, doc[k]), strict=True):
                column.append(value)
        g, p, item_doc, at_separators = (np.array(x, dtype=np.int64) for x in (*joined, separators))
        got = default_mode_item_counts(names, g, p, at_separators, item_doc, docs)
        sentence_of = [k for k, s in enumerate(gold_s) for _ in range(len(s) + 1)]
        found = []
        for side in (gold_s, guess_s):
            per: list[set[tuple[str, int, int]]] = [set() for _ in range(docs)]
            for entity in plain_default_entities([t for s in side for t in (*s, "O")]):
                per[doc[sentence_of[entity[1]]]].add(entity)
            found.append(per)
        for d in range(docs):
            members = [k for k in range(sentences) if doc[k] == d]
            tokens = sum(len(gold_s[k]) for k in members)
            right = sum(a == b for k in members for a, b in zip(gold_s[k], guess_s[k], strict=True))
            expected = Counts(
                tokens=tokens, correct_tokens=right, **plain_entity_counts(found[0][d], found[1][d])
            )
            assert got[d] == expected, (case, d)


def _scan_case(rng: random.Random, case: int) -> str:
    """A tag file the scan of :func:`read_tag_codes` takes (ASCII, single spaces, one width,
    short tags), with now and then what makes it decline: a tag past 8 bytes, many distinct
    tags, -X- and -DOCSTART- lines, a double space, a tab or CR, a line of another width,
    non-ASCII text."""
    width = rng.randint(2, 4)
    pool = ["O", "B-X", "I-X", "E-X", "S-X", "B-PER", "I-PER", "B-MISC", "I-MISC", "PER"]
    pool += ["B-", "X", "I-ORG", "12345678", "B-ORGAN", "O-X"]
    if rng.random() < 0.1:
        pool += [f"T{k}" for k in range(rng.randint(60, 80))]  # past the numbered distinct tags
    if rng.random() < 0.1:
        pool.append(rng.choice(["B-DNA-binding", "I-123456789", "é", "B-X\t"]))
    tokens = ["w", "-", "-X-a", "--", "-DOCSTARTx", "x-X-", "a1", "the", "0", "-LRB-"]
    if rng.random() < 0.1:
        tokens += ["-X-", "-DOCSTART-"]
    lines = []
    size = rng.randint(0, 40) if case % 40 else rng.randint(2000, 5000)
    for _ in range(size):
        if rng.random() < 0.12:
            lines.append("")
            continue
        fields = [rng.choice(tokens)] + [rng.choice(pool) for _ in range(width - 1)]
        if rng.random() < 0.01:
            fields.append(rng.choice(pool))
        line = " ".join(fields)
        if rng.random() < 0.005:
            line = rng.choice([line + " ", " " + line, line.replace(" ", "  ", 1), line + "\r"])
        elif rng.random() < 0.005:  # a field fewer and a space more: as many spaces as width
            line = " ".join(fields[:-1]).replace(" ", "  ", 1) or line
        lines.append(line)
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


def test_the_tag_code_scan_is_the_line_by_line_reading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import numpy as np

    from annoscore.errors import InputError
    from annoscore.formats import tag_codes
    from annoscore.formats.tag_codes import _scan_tag_codes, read_tag_codes
    from tests.oracles.bio import plain_tag_codes

    rng = random.Random("tag-code-scan")
    scanned = 0
    folder = tmp_path
    for case in range(CASES * 4):
        # the scan reads pieces of the bytes: pieces of one line, of a few, and of the file
        monkeypatch.setattr(tag_codes, "_SCAN_PIECE", rng.choice([1, 9, 50, 300, 1 << 17]))
        text = _scan_case(rng, case)
        path = folder / f"case{case % 7}.txt"
        path.write_bytes(text.encode("utf-8"))
        columns = rng.choice([(-2, -1), (-1,), (1, -1), (-1, 1)])
        scanned += _scan_tag_codes(text.encode(), str(path), columns) is not None
        try:
            tags, codes, boundary, docstart, documents = plain_tag_codes(text, str(path), columns)
        except InputError as error:
            with pytest.raises(InputError) as raised:
                read_tag_codes(path, columns)
            assert str(raised.value) == str(error)
            continue
        got = read_tag_codes(path, columns)
        assert got.tags == tags, case
        assert [c.tolist() for c in got.codes] == codes, case
        assert got.boundary.tolist() == boundary and got.docstart.tolist() == docstart, case
        assert got.documents == documents and not got.bom, case
        assert all(c.dtype == np.int64 for c in got.codes)
    assert scanned > CASES * 2  # the generator hits the scan


def test_seqeval_of_a_tag_file_is_the_token_by_token_reading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from annoscore.errors import InputError
    from annoscore.formats import tag_codes
    from annoscore.metrics.seqeval import entity_counts
    from annoscore.tasks.seqeval import score_seqeval_file
    from tests.oracles.bio import plain_default_entities, plain_read_tags

    rng = random.Random("seqeval-file")
    folder = tmp_path
    several = 0  # cases of several documents read
    for case in range(CASES * 2):
        monkeypatch.setattr(tag_codes, "_SCAN_PIECE", rng.choice([1, 40, 1 << 17]))
        text = _scan_case(rng, case)
        path = folder / "tags.txt"
        path.write_bytes(text.encode("utf-8"))
        try:
            read = plain_read_tags(text, str(path), delimiter=None, columns=(-2, -1))
        except InputError as error:
            with pytest.raises(InputError) as raised:
                score_seqeval_file(path)
            assert str(raised.value) == str(error)
            continue
        # seqeval's reading: sentences end at blank, -X- and -DOCSTART- lines, and are joined
        # with one O after each (its entity offsets count in that joined sequence)
        gold: list[str] = []
        guess: list[str] = []
        doc_of: list[int] = []  # the document of each place of the joined sequence
        tokens = [0] * len(read.documents)
        right = [0] * len(read.documents)
        starts = [d.start for d in read.documents]
        open_sentence = False
        for i, (token, b, g, p) in enumerate(
            zip(read.tokens, read.boundary, *read.columns, strict=True)
        ):
            d = bisect.bisect_right(starts, i) - 1  # documents hold the items from their start
            if b or token == "-DOCSTART-":  # not a token: ends a sentence
                if open_sentence:
                    gold.append("O")
                    guess.append("O")
                    doc_of.append(d)
                open_sentence = False
                continue
            tokens[d] += 1
            right[d] += g == p
            gold.append(g)
            guess.append(p)
            doc_of.append(d)
            open_sentence = True
        result = score_seqeval_file(path)
        for d, document in enumerate(read.documents):  # an entity: its first token's document
            expected = entity_counts(
                {e for e in plain_default_entities([*gold, "O"]) if doc_of[e[1]] == d},
                {e for e in plain_default_entities([*guess, "O"]) if doc_of[e[1]] == d},
            )
            got = result.matrix.row(result.matrix.documents.index(document.name))
            assert (got["tokens"], got["correct_tokens"]) == (tokens[d], right[d]), case
            assert {k: got[k] for k in expected.as_dict()} == expected.as_dict(), case
        assert len(result.matrix.documents) == max(1, len(read.documents)), case  # empty: one
        several += len(read.documents) > 1
    assert several > CASES // 20  # the generator hits -DOCSTART- lines
