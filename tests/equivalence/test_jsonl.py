"""JSON Lines' fast scan (:func:`annoscore.formats.jsonl._scan_jsonl`) held to the checked parser
(:func:`~annoscore.formats.jsonl.read_jsonl_text`) and to a plain reading from the rules
(``tests/oracles/jsonl.py``), Prodigy and spaCy, on random files: adversarial document ids
(``tests/equivalence/ids.py``) as ``id``, ``meta.id`` or ``_input_hash`` (or none: the line
number), answers kept and left out, multi-byte and astral characters (offsets count code
points), spans carrying their own text (equal or not: a warning), offsets that are booleans,
floats, strings, huge, negative, reversed or past the text, labels missing or empty, spans that
are not a list, lines that are not objects or not JSON, blank and whitespace lines, CRLF, a
byte-order mark, duplicate ids; and many labels.  The ``spans`` scores of two random files read
as columns equal those of the plain reading scored by ``tests/oracles/spans.py``.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.align.span_modes import SpanMode
from annoscore.errors import InputError
from annoscore.formats import jsonl as reader
from annoscore.formats.annotations import Answer
from annoscore.formats.brat_model import AnnFile
from annoscore.model import AnnotatedDocument
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.equivalence.ids import id_pool
from tests.oracles.jsonl import JsonlError, plain_jsonl
from tests.oracles.spans import plain_corpus_counts

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 500 * SCALE
WORDS = ["Ann", "héparine", "BRCA1", "γ-globulin", "😀", '"q"', "x\ty", "中文", "met", "\\"]
LABELS = ["PER", "LOC", "Gène", "😀", " "]


def _line(rng: random.Random, form: str, pool: list[str], clean: bool, many: bool) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 10)))
    spans: list[Any] = []
    for _ in range(rng.randint(0, 6)):
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        span: dict[str, Any] = {"start": start, "end": end}
        span["label"] = f"L{rng.randint(0, 40)}" if many else rng.choice(LABELS)
        if rng.random() < 0.3:
            span["text"] = text[start:end]
        if not clean:
            r = rng.random()
            if r < 0.02:
                span["end"] = len(text) + 1
            elif r < 0.04:
                span["start"] = rng.choice([True, 1.0, "0", -1, None, 2**70])
            elif r < 0.05:
                span["label"] = rng.choice(["", 7, None])
            elif r < 0.06:
                del span["label"]
            elif r < 0.09:
                span["text"] = text[start:end] + "x"
            elif r < 0.1:
                span["start"], span["end"] = end, start
        spans.append(span)
    item: dict[str, Any] = {"text": text}
    key = "spans" if form == "prodigy-jsonl" else "ents"
    item[key] = spans
    if not clean and rng.random() < 0.03:
        item[key] = rng.choice([{}, None, 0, "", {"a": 1}, [1]])
    r = rng.random()
    if r < 0.4:
        item["id"] = rng.choice(pool)
    elif r < 0.7:
        item["meta"] = {"id": rng.choice(pool)} if rng.random() < 0.9 else rng.choice(["x", [1]])
    elif r < 0.85:
        item["_input_hash"] = rng.choice([rng.randint(-(2**40), 2**40), rng.choice(pool)])
    if form == "prodigy-jsonl":
        r = rng.random()
        if r < 0.7:
            item["answer"] = "accept"
        elif r < 0.85 and not clean:
            item["answer"] = rng.choice(["reject", "ignore"])
        if rng.random() < 0.3:
            item["_annotator_id"] = rng.choice(["news-alice", "news-bob"])
    if not clean and rng.random() < 0.02:
        return rng.choice(["[1, 2]", "7", '"text"', "{oops", "null", "oops", "]", "{} x"])
    return json.dumps(item, ensure_ascii=rng.random() < 0.3)


def _file(rng: random.Random, case: int, form: str) -> str:
    clean = case % 3 == 0
    pool = id_pool(rng, 10)
    many = case % 50 == 7
    count = 300 if case % 100 == 11 else rng.randint(0, 8)
    lines = [_line(rng, form, pool, clean, many) for _ in range(count)]
    if not clean:
        for _ in range(rng.randint(0, 2)):
            lines.insert(rng.randint(0, len(lines)), rng.choice(["", "  ", "\t"]))
    text = "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")
    if not clean:
        if rng.random() < 0.05:
            text = text.replace("\n", "\r\n")
        if rng.random() < 0.03:
            text = "\ufeff" + text
    return text


def _columns(document: AnnFile | AnnotatedDocument) -> dict[str, Any]:
    """What a read document holds, whatever its shape."""
    model = document if isinstance(document, AnnotatedDocument) else document.document()
    if isinstance(document, AnnFile):
        assert list(document.ids) == [f"T{k}" for k in range(1, len(document) + 1)]
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
        "path": model.path,
        "mentions": [(m.span.start, m.span.end, m.type, m.text, m.line) for m in model.mentions],
        "warnings": list(model.warnings),
    }


ANSWERS: list[tuple[Answer, ...]] = [
    ("accept",),
    ("accept",),
    ("accept", "ignore"),
    ("reject",),
    ("ignore", "reject", "accept"),
]
"""The Prodigy answers kept (``--answers``), the default most often."""


@pytest.mark.parametrize("form", ["prodigy-jsonl", "spacy-jsonl"])
def test_scan_parser_and_plain_reading_agree(tmp_path: Path, form: str) -> None:
    rng = random.Random(f"jsonl {form}")
    taken = refused = warned = 0
    for case in range(CASES):
        text = _file(rng, case, form)
        path = tmp_path / f"c{case % 7}.jsonl"
        path.write_bytes(text.encode("utf-8"))
        name = str(path)
        answers = rng.choice(ANSWERS)
        try:
            expected: tuple[list[dict[str, Any]], int] | int = plain_jsonl(
                text, name, form, answers
            )
        except JsonlError as error:
            expected = error.line
        scanned = reader._scan_jsonl(text, name, form, answers)
        try:
            documents, skipped = reader.read_jsonl_columns(path, form, answers)
        except InputError as error:
            assert expected == error.line, (case, text, error)
            assert scanned is None
            refused += 1
            continue
        assert not isinstance(expected, int), (case, text)
        docs, left_out = expected
        assert skipped == left_out
        assert [_columns(d) for d in documents.values()] == docs, (case, text)
        assert list(documents) == [d["id"] for d in docs]
        parsed = reader.read_jsonl_text(text, name, form, answers)
        assert [d.document() if isinstance(d, AnnFile) else d for d in documents.values()] == (
            parsed.documents
        )
        if scanned is not None:
            taken += 1
            assert [_columns(d) for d in scanned[0].values()] == docs
            assert scanned[1] == left_out
        if any(d["warnings"] for d in docs):
            warned += 1
            assert scanned is None
        if case % 3 == 0 and docs:
            assert scanned is not None, (case, text)  # the scan takes every clean file
    assert taken >= CASES // 5 and refused >= CASES // 20 and warned >= CASES // 50


# --- the spans read from the bytes (_cut_spans) ------------------------------------------------

CUT_WORDS = ["Ann", "met", "Bo", "{", "}", "[", "]", ",", ":", "spans", "ents", "start", "x"]
CUT_LABELS = ["PER", "LOC", "{x}", "a, b", "]", "L:1", "a b", "}", "\x7f", "start"]
ODD_NUMBERS = ["01", "-1", "1.0", "1e2", "true", "12345678901234567", "00", " 1", '"1"']


def _cut_span(rng: random.Random, text: str, odd: bool, many: bool) -> str:
    """One span object as ``json.dumps`` writes it, or (``odd``) one the cut must leave to
    ``json.loads``: another spacing or key order, odd numbers, a raw control byte in the
    label, an empty label, a fourth key, not an object."""
    start = rng.randint(0, len(text))
    end = rng.randint(start, len(text))
    label = f"L{rng.randint(0, 40)}" if many else rng.choice(CUT_LABELS)
    first, second = str(start), str(end)
    if not odd:
        return f'{{"start": {first}, "end": {second}, "label": "{label}"}}'
    r = rng.random()
    if r < 0.2:
        first = rng.choice(ODD_NUMBERS)
    elif r < 0.3:
        second = rng.choice(ODD_NUMBERS)
    elif r < 0.4:
        label = rng.choice(["", "a\tb", "a\nb"])  # empty; raw tab or line end: not JSON
    elif r < 0.5:
        return f'{{"start":{first},"end":{second},"label":"{label}"}}'
    elif r < 0.6:
        return f'{{"end": {second}, "start": {first}, "label": "{label}"}}'
    elif r < 0.7:
        written = text[start:end]
        return f'{{"start": {first}, "end": {second}, "label": "{label}", "text": "{written}"}}'
    elif r < 0.8:
        return f'{{"start": {first}, "end": {second} , "label": "{label}"}}'
    elif r < 0.9:
        first, second = second, first
    else:
        return rng.choice(["[]", "{}", "7", '{"start": 1}', "null"])
    return f'{{"start": {first}, "end": {second}, "label": "{label}"}}'


def _cut_line(rng: random.Random, form: str, pool: list[str], odd: bool, many: bool) -> str:
    """A line the cut takes (ASCII, no backslash, the spans as ``json.dumps`` writes them, any
    place among the members), or (``odd``) one with one thing it must leave to ``json.loads``:
    an odd span, the key in a nested object or twice, written compactly or with other
    spacing, a backslash, non-ASCII, the spans not a list or not closed as written."""
    text = " ".join(rng.choice(CUT_WORDS) for _ in range(rng.randint(0, 12)))
    key = "spans" if form == "prodigy-jsonl" else "ents"
    count = rng.randint(0, 7)
    bad = rng.randrange(count) if odd and count and rng.random() < 0.4 else -1
    spans = ", ".join(_cut_span(rng, text, k == bad, many) for k in range(count))
    members = [f'"text": "{text}"', f'"{key}": [{spans}]']
    r = rng.random()
    if r < 0.3:
        members.append(f'"meta": {{"id": {json.dumps(rng.choice(pool), ensure_ascii=False)}}}')
    elif r < 0.5:
        members.append(f'"id": {json.dumps(rng.choice(pool), ensure_ascii=False)}')
    if form == "prodigy-jsonl" and rng.random() < 0.7:
        members.append(f'"answer": "{rng.choice(["accept", "accept", "reject"])}"')
    if odd and bad < 0:
        r = rng.random()
        if r < 0.1:
            members.append(f'"meta2": {{"{key}": []}}')
        elif r < 0.2:
            members.append(f'"{key}": []')  # twice: json.loads keeps the last
        elif r < 0.3:
            members[1] = members[1].replace(": [", ":[", 1)
        elif r < 0.4:
            members[1] = f'"{key}" : [{spans}]'
        elif r < 0.5:
            members[1] = f'"{key}": {rng.choice(["null", "{}", "7", "[[]]", "[1]"])}'
        elif r < 0.6:
            members[1] = f'"meta3": {{"{key}": [{spans}]}}'  # only nested
        elif r < 0.7:
            members.append('"note": "a\\"b"')  # a backslash: the lines are read whole
        elif r < 0.75:
            members[0] = '"text": "é"'
        elif r < 0.8:
            members[0] = f'"text": "{text}", "text": "{text} x"'
        elif r < 0.85:
            members[1] = f'"{key}": [{spans} ]' if spans else f'"{key}": [ ]'
        elif r < 0.9:
            members = [m for m in members if not m.startswith(f'"{key}"')]
        else:
            line = "{" + ", ".join(members) + "}"
            return rng.choice(
                ["[1, 2]", "{oops", "oops", line + "}", line[:-1], " " + line + " ", line + "\r"]
            )
    rng.shuffle(members)
    return "{" + ", ".join(members) + "}"


def _cut_file(rng: random.Random, case: int, form: str) -> str:
    """A file the cut takes, or (two cases in three) with one line that has one odd thing."""
    pool = [p for p in id_pool(rng, 10) if p.isascii() and "\\" not in p and '"' not in p]
    pool = pool or ["d"]
    count = 300 if case % 100 == 11 else rng.randint(1, 8)
    many = case % 50 == 7
    odd = rng.randrange(count) if case % 3 else -1
    lines = [_cut_line(rng, form, pool, k == odd, many) for k in range(count)]
    if case % 3 and rng.random() < 0.2:
        lines.insert(rng.randint(0, len(lines)), rng.choice(["", "  ", "\t"]))
    text = "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")
    if case % 3 and rng.random() < 0.05:
        text = text.replace("\n", "\r\n")
    return text


@pytest.mark.parametrize("form", ["prodigy-jsonl", "spacy-jsonl"])
def test_the_spans_cut_from_the_bytes_read_as_json_loads_reads_them(
    tmp_path: Path, form: str
) -> None:
    rng = random.Random(f"jsonl cut {form}")
    cut = taken = 0
    for case in range(CASES):
        text = _cut_file(rng, case, form)
        path = tmp_path / f"c{case % 7}.jsonl"
        path.write_bytes(text.encode("utf-8"))
        name = str(path)
        key = "spans" if form == "prodigy-jsonl" else "ents"
        cut += reader._cut_spans(text, key) is not None
        try:
            expected: tuple[list[dict[str, Any]], int] | int = plain_jsonl(text, name, form)
        except JsonlError as error:
            expected = error.line
        scanned = reader._scan_jsonl(text, name, form, ("accept",))
        try:
            documents, skipped = reader.read_jsonl_columns(path, form)
        except InputError as error:
            assert expected == error.line, (case, text, error)
            assert scanned is None
            continue
        assert not isinstance(expected, int), (case, text)
        docs, left_out = expected
        assert skipped == left_out
        assert [_columns(d) for d in documents.values()] == docs, (case, text)
        assert list(documents) == [d["id"] for d in docs]
        if scanned is not None:
            taken += 1
            assert [_columns(d) for d in scanned[0].values()] == docs, (case, text)
            assert scanned[1] == left_out
    assert cut >= CASES // 3 and taken >= CASES // 3, (cut, taken)


JSON_PIECES = ['{"a": 1}', "[]", "7", '"s"', "null", " ", "\t", "\r", "x", "{", "}", "é", ","]


def test_each_line_read_as_json_loads_reads_it() -> None:
    """``_json_lines`` (the C scanner alone where it reads a whole line) gives what
    ``json.loads`` of each line gives, and ``None`` where one of them raises."""
    rng = random.Random("json lines")
    agreed = failed = 0
    for _ in range(20 * CASES):
        lines = [
            "".join(rng.choice(JSON_PIECES) for _ in range(rng.randint(0, 3)))
            for _ in range(rng.randint(1, 4))
        ]
        try:
            expected: list[Any] | None = [json.loads(line) for line in lines]
        except json.JSONDecodeError:
            expected = None
        assert reader._json_lines(lines) == expected, lines
        agreed += expected is not None
        failed += expected is None
    assert agreed >= CASES // 2 and failed >= CASES // 2


MODES = (SpanMode.strict, SpanMode.exact, SpanMode.overlap, SpanMode.token)


def test_spans_scores_of_the_columns_equal_the_plain_scores(tmp_path: Path) -> None:
    rng = random.Random(2930)
    compared = 0
    for case in range(CASES // 5):
        form = ("prodigy-jsonl", "spacy-jsonl")[case % 2]
        answers = ANSWERS[case // 2 % len(ANSWERS)]
        sides = []
        for side in ("gold", "system"):
            text = _file(rng, 3 * case if rng.random() < 0.7 else case, form)
            path = tmp_path / f"{side}.jsonl"
            path.write_bytes(text.encode("utf-8"))
            try:
                plain: list[dict[str, Any]] | None = plain_jsonl(text, str(path), form, answers)[0]
            except JsonlError:
                plain = None
            sides.append((path, plain))
        (gold, gold_docs), (system, system_docs) = sides
        if gold_docs is None or system_docs is None:
            continue
        mode = MODES[case % len(MODES)]
        options = SpanOptions(mode=mode, gold_format=form, system_format=form, answers=answers)  # type: ignore[arg-type]
        result = score_spans(gold, system, options)
        totals = plain_corpus_counts(mode.value, gold_docs, system_docs)
        assert result.counts.as_dict() == totals, (case, mode)
        compared += 1
    assert compared >= CASES // 30
