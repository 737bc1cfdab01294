"""PubTator's fast scan (:func:`annoscore.formats.pubtator._scan_pubtator`) held to the checked
parser (:func:`~annoscore.formats.pubtator.read_pubtator_text`) and to a plain reading from the
rules (``tests/oracles/pubtator.py``) on random files: adversarial document ids
(``tests/equivalence/ids.py``: composite-looking, numeric-looking, multi-byte), multi-byte and
astral characters in the texts (offsets count code points), ``|`` and tabs inside titles,
composite concept ids, ``-1`` and empty last columns, 7-column lines, relation lines, CRLF (in
files the scan reads too), a ``\\r`` elsewhere, byte-order marks, a last line without its
newline, documents without an abstract, mention texts that differ from the document text (a
warning), offsets out of range or not numbers (an error naming the line), lines of too few
fields, duplicate document ids; many type names (past the scan's few-types numbering) and type
names of 64 bytes and longer (past the scan's limit: the parser reads them).  The ``spans``
scores of two random files read as columns equal those of the plain reading scored by
``tests/oracles/spans.py``.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from annoscore.align.span_modes import SpanMode
from annoscore.errors import InputError
from annoscore.formats import pubtator as reader
from annoscore.formats.brat_model import AnnFile
from annoscore.model import AnnotatedDocument
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.equivalence.ids import id_pool
from tests.oracles.pubtator import PubTatorError, plain_pubtator
from tests.oracles.spans import plain_corpus_counts

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 600 * SCALE
WORDS = ["aspirin", "héparine", "BRCA1", "γ-globulin", "😀", "a|t|b", "x\ty", "中文", "of", "-1"]
TYPES = ["Chemical", "Disease", "Gène", "", "T|x", "😀", "x" * 8]
LONG_TYPES = ["Tÿpe" * 16, "L" * 64, "L" * 65]  # 80, 64 and 65 bytes: the scan takes up to 64


def _document(rng: random.Random, pmid: str, clean: bool, many_types: bool) -> tuple[str, bool]:
    """One block of lines, and whether it is meant to be read without error or warning."""
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
    abstract = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))
    text = title + " " + abstract
    lines = [f"{pmid}|t|{title}", f"{pmid}|a|{abstract}"]
    fine = True
    if not clean and rng.random() < 0.05:
        lines.pop(1)  # no abstract: read, but the scan declines
        text = title
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.15:
            lines.append(f"{pmid}\t{rng.choice(['CID', 'Bind'])}\tD{rng.randint(1, 9)}\tC1")
            continue
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        written = text[start:end]
        first, last = str(start), str(end)
        if not clean:
            r = rng.random()
            if r < 0.03:
                last = str(len(text) + rng.randint(1, 3))
                fine = False
            elif r < 0.06:
                written = written + "x"
                fine = False
            elif r < 0.07:
                first = rng.choice(["", "1a", "+1", "١", " 1"])
                fine = False
            elif r < 0.08:
                first, last = last, first
                fine = fine and first == last
            elif r < 0.09:
                first = "0" * rng.randint(1, 20) + first
            elif r < 0.095:
                lines.append(f"{pmid}\t{first}\t{last}")
                fine = False
                continue
        fine = fine and "\t" not in written  # a tab in the mention: other fields, a warning
        kind = f"Type{rng.randint(0, 40)}" if many_types else rng.choice(TYPES)
        kind = rng.choice(LONG_TYPES) if rng.random() < 0.02 else kind
        fine = fine and len(kind.encode()) <= 64  # a longer type: the parser reads the file
        concept = rng.choice(["D001241", "D003920|D001241", "-1", "", "MESH:D0000", pmid])
        fields = [pmid, first, last, written, kind]
        r = rng.random()
        if r < 0.8:
            fields.append(concept)
        if r < 0.1:
            fields.append("sub|mentions")
        lines.append("\t".join(fields))
    return "\n".join(lines), fine


def _file(rng: random.Random, case: int) -> tuple[str, bool]:
    """A PubTator file, and whether it is meant to be read without error or warning."""
    clean = case % 3 == 0
    pool = id_pool(rng, 12, forbidden="|\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029")
    pool = [p for p in pool if p.strip()]
    many_types = case % 50 == 7
    blocks, fine = [], True
    n_docs = 300 if case % 100 == 11 else rng.randint(0, 6)
    used: set[str] = set()
    for d in range(n_docs):
        pmid = rng.choice(pool) if n_docs < 50 else f"{rng.choice(pool)}{d}"
        if pmid in used:
            if clean:
                continue
            fine = False
        used.add(pmid)
        block, ok = _document(rng, pmid, clean, many_types)
        blocks.append(block)
        fine = fine and ok
    separator = "\n\n" if clean or rng.random() < 0.8 else rng.choice(["\n \n", "\n\n\n", "\n"])
    text = separator.join(blocks) + ("\n" if clean or rng.random() < 0.9 else "")
    roll = rng.random()
    if roll < 0.15:  # Windows line ends (clean files: the scan reads them)
        lines = text.split("\n")
        if roll < 0.05:  # and a \r ending annotations' last field: text the parser keeps
            lines = [x + "\r" if "\t" in x and rng.random() < 0.5 else x for x in lines]
            fine = fine and not any(x.endswith("\r") for x in lines)  # (the scan declines)
        text = "\r\n".join(lines)
    if not clean:
        if rng.random() < 0.05:  # a \r that is text (a title's last character, say)
            at = rng.randint(0, len(text))
            text = text[:at] + rng.choice(["\r", "\r\r\n"]) + text[at:]
            fine = False
        if rng.random() < 0.03:
            text = "\ufeff" + text
    return text, fine


def _columns(document: AnnFile | AnnotatedDocument) -> dict[str, Any]:
    """What a read document holds, whatever its shape."""
    if isinstance(document, AnnotatedDocument):
        model = document
        concept = {n.target: n.reference for n in model.normalizations}
        mentions = [
            (m.span.start, m.span.end, m.type, m.text, m.line, concept.get(m.id, ""))
            for m in model.mentions
        ]
    else:
        assert isinstance(document, reader.PubTatorFile)
        model = document.document()
        assert list(document.ids) == [f"T{k}" for k in range(1, len(document) + 1)]
        mentions = list(
            zip(
                document.starts,
                document.ends,
                document.types,
                document.texts,
                document.lines or [],
                document.concepts,
                strict=True,
            )
        )
        assert document.rows is None or document.rows.hi - document.rows.lo == len(document)
        if document.rows is not None:
            block = document.rows.block
            lo, hi = document.rows.lo, document.rows.hi
            assert block.starts[lo:hi].tolist() == list(document.starts)
            assert block.ends[lo:hi].tolist() == list(document.ends)
            names = block.type_names
            assert [names[c] for c in block.type_codes[lo:hi].tolist()] == list(document.types)
    return {
        "id": model.id,
        "text": model.text,
        "mentions": mentions,
        "relations": [(r.type, r.arguments[0][1], r.arguments[1][1]) for r in model.relations],
        "warnings": list(model.warnings),
    }


def test_scan_parser_and_plain_reading_agree(tmp_path: Path) -> None:
    rng = random.Random(29)
    taken = refused = warned = 0
    for case in range(CASES):
        text, fine = _file(rng, case)
        path = tmp_path / f"c{case % 7}.txt"
        path.write_bytes(text.encode("utf-8"))
        name = str(path)
        try:
            expected: list[dict[str, Any]] | int = plain_pubtator(text, name)
        except PubTatorError as error:
            expected = error.line
        scanned = reader._scan_pubtator(text, name)
        try:
            read = reader.read_pubtator_columns(path)
        except InputError as error:
            assert expected == error.line, (case, text, error)
            assert scanned is None
            with pytest.raises(InputError) as parsed:
                reader.read_pubtator_text(text, name)
            assert parsed.value.line == error.line
            refused += 1
            continue
        assert not isinstance(expected, int), (case, text)
        assert [_columns(d) for d in read.values()] == expected, (case, text)
        assert list(read) == [d["id"] for d in expected]
        parsed_docs = reader.read_pubtator_text(text, name)
        assert [d.document() if isinstance(d, AnnFile) else d for d in read.values()] == (
            parsed_docs
        )
        if scanned is not None:
            taken += 1
            assert [_columns(d) for d in scanned.values()] == expected
            # a copy (two files of one document each pair under the gold's id) reads alike
            fresh = reader._scan_pubtator(text, name) or {}  # no field made yet
            copies = [replace(d, id=d.id) for d in fresh.values()]
            assert [_columns(d) for d in copies] == expected
        if any(d["warnings"] for d in expected):
            warned += 1
            assert scanned is None
        if fine and case % 3 == 0 and expected:
            assert scanned is not None, (case, text)  # the scan takes every clean file
    assert taken >= CASES // 8 and refused >= CASES // 20 and warned >= CASES // 50


@pytest.mark.parametrize(
    "text",
    [
        "1|t|abc\n1|a|def\n\n1\t0\t3\tabc\tT\n",  # a block begins with an annotation line
        "1\t0\t3\tabc\tT\n\n1|t|abc\n1|a|def\n",  # the file does
        "12|t|abc\n1|a|def\n1\t0\t3\tabc\tT\n",  # an abstract's PMID a prefix of the title's
        "12|t|abc\n12|a|def\n1\t0\t3\tabc\tT\n",  # an annotation's PMID: the same
        "1|t|abc\n1|a|def\n1\t\t3\tabc\tT\n",  # an empty start offset
        "1|t|abc\n1|a|def\n1\t0\t\tabc\tT\n",  # an empty end offset
    ],
)
def test_edge_files_read_as_the_parser_reads_them(text: str) -> None:
    """Files at the edges of the scan's checks: the scan declines, or reads what the parser
    reads; an error names the line the plain reading names."""
    try:
        expected: list[dict[str, Any]] | int = plain_pubtator(text, "p")
    except PubTatorError as error:
        expected = error.line
    scanned = reader._scan_pubtator(text, "p")
    try:
        parsed = reader.read_pubtator_text(text, "p")
    except InputError as error:
        assert scanned is None and error.line == expected
        return
    assert [_columns(d) for d in parsed] == expected
    if scanned is not None:
        assert [_columns(d) for d in scanned.values()] == expected


MODES = (SpanMode.strict, SpanMode.exact, SpanMode.overlap, SpanMode.token)


def test_spans_scores_of_the_columns_equal_the_plain_scores(tmp_path: Path) -> None:
    rng = random.Random(2929)
    compared = 0
    for case in range(CASES // 6):
        sides = []
        for side in ("gold", "system"):
            text, _ = _file(rng, 3 * case if rng.random() < 0.7 else case)
            path = tmp_path / f"{side}.txt"
            path.write_bytes(text.encode("utf-8"))
            try:
                plain = plain_pubtator(text, str(path))
            except PubTatorError:
                plain = None
            sides.append((path, plain))
        (gold, gold_docs), (system, system_docs) = sides
        if gold_docs is None or system_docs is None:
            continue
        mode = MODES[case % len(MODES)]
        options = SpanOptions(mode=mode, gold_format="pubtator", system_format="pubtator")
        result = score_spans(gold, system, options)
        totals = plain_corpus_counts(mode.value, gold_docs, system_docs)
        assert result.counts.as_dict() == totals, (case, mode)
        compared += 1
    assert compared >= CASES // 30
