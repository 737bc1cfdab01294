"""Differential tests of PharmaCoNER scoring, NER and indexing, plain and ``--codalab`` (issue
24): random folders written with the official scripts' edge cases, scored by
:func:`~annoscore.tasks.pharmaconer.score_pharmaconer_ner` /
:func:`~annoscore.tasks.pharmaconer.score_pharmaconer_indexing` and by the plain reference of
``tests/oracles/pharmaconer.py``: the same counts per document (per type too), scores, warnings
and ``Total (N docs)``, or the same refusal.

The generator writes what the official readings tolerate (indented lines, lines the script
cannot split, a byte-order mark before an entity, ``int()`` digits, reversed and empty spans,
discontinuous spans, text after a space, ignored lines, repeated entities and ids, files of a
system folder without ``.ann``; TSV rows with trailing or leading whitespace, rows naming another
document, repeated codes, blank lines, a byte-order mark, CRLF), documents on one side only,
UNCLEAR entities and the AnnotatorNotes that link codes to them, document ids and codes from
``tests/equivalence/ids.py``.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.report.pharmaconer import render_official
from annoscore.tasks.pharmaconer import (
    IndexingOptions,
    NerOptions,
    score_pharmaconer_indexing,
    score_pharmaconer_ner,
)
from tests.equivalence.ids import id_pool
from tests.equivalence.test_spans import lower_thresholds
from tests.oracles import brat as oracle_brat
from tests.oracles import pharmaconer as oracle
from tests.oracles import spans as oracle_spans

MULTIPLIER = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1") or 1))

TYPES = ("NORMALIZABLES", "PROTEINAS", "UNCLEAR", "NO_NORMALIZABLES")
TEXT = "el paciente recibió ácido fólico 5 mg y beta-HCG; UNCLEAR cigarrillos. " * 3


def _doc_ids(rng: random.Random, n: int) -> list[str]:
    pool = id_pool(rng, 3 * n, forbidden="/\x00 \t", wide=rng.random() < 0.5)
    return [d for d in pool if not d.startswith(".")][:n] or ["d"]


def _entity_line(rng: random.Random, k: int, kind: str, start: int, end: int) -> str:
    text = TEXT[start:end]
    fate = rng.random()
    if fate < 0.80:
        return f"T{k}\t{kind} {start} {end}\t{text}"
    return rng.choice(
        (
            f"  T{k}\t{kind} {start} {end}\t{text}",  # indented
            f"T{k} {kind} {start} {end}\t{text}",  # cannot be split
            f"T{k}\t{kind}\t{start} {end}\t{text}",  # cannot be split
            f"T{k}\t{kind} +{start} {end}\t{text}",  # int() digits
            f"T{k}\t{kind} {start} \u0661{end}\t{text}"
            if end < 10
            else f"T{k}\t{kind} {start} {end}",
            f"T{k}\t{kind} {end} {start}\t{text}",  # reversed
            f"T{k}\t{kind} {start} {start}\t",  # empty
            f"T{k}\t{kind} {start} {start + 2};{end + 3} {end + 6}\t{text}",  # discontinuous
            f"T{k}\t{kind} {start} {end} {text.strip() or 'x'}",  # text after a space
            "R1\tRel Arg1:T1",  # ignored
            "\t\tx",  # ignored
        )
    )


def _ann(rng: random.Random, entities: list[tuple[str, int, int]], codes: list[str]) -> str:
    lines = []
    for k, (kind, start, end) in enumerate(entities, start=1):
        lines.append(_entity_line(rng, k, kind, start, end))
        if codes and rng.random() < 0.6:
            lines.append(f"#{k}\tAnnotatorNotes T{k}\t{rng.choice(codes)}")
    if entities and rng.random() < 0.1:  # a repeated entity, another id
        kind, start, end = rng.choice(entities)
        lines.append(f"T{len(entities) + 1}\t{kind} {start} {end}\tx")
    if lines and rng.random() < 0.05:
        lines[0] = "\ufeff" + lines[0]
    if rng.random() < 0.015:
        lines.insert(
            rng.randrange(len(lines) + 1),
            rng.choice(("T9\tX zero 5\tx", "T9\tX 0 " + "9" * 5000 + "\tx", "T9\tX 5 5;7 9\tx")),
        )
    end = "\r\n" if rng.random() < 0.05 else "\n"
    return "".join(line + end for line in lines)


def _entities(rng: random.Random, types: list[str]) -> list[tuple[str, int, int]]:
    out = []
    for _ in range(rng.randint(0, 8)):
        start = rng.randrange(len(TEXT) - 20)
        out.append((rng.choice(types), start, start + rng.randint(1, 12)))
    return out


def _perturbed(
    rng: random.Random, entities: list[tuple[str, int, int]], types: list[str]
) -> list[tuple[str, int, int]]:
    out = []
    for kind, start, end in entities:
        fate = rng.random()
        if fate < 0.6:
            out.append((kind, start, end))
        elif fate < 0.7:
            out.append((rng.choice(types), start, end))
        elif fate < 0.85:
            out.append((kind, start, end + rng.choice((-1, 1))))
    out.extend(_entities(rng, types)[: rng.randint(0, 2)])
    return out


def ner_case(rng: random.Random, root: Path) -> tuple[Path, Path]:
    types = [*TYPES, *id_pool(rng, 2, max_bytes=24, forbidden=" ", wide=False)]
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    for doc_id in _doc_ids(rng, rng.randint(1, 6)):
        entities = _entities(rng, types)
        side = rng.random()
        if side < 0.8:
            (gold / f"{doc_id}.ann").write_text(_ann(rng, entities, ["1", "2"]), "utf-8")
            if rng.random() < 0.5:
                (gold / f"{doc_id}.txt").write_text(TEXT, "utf-8")
        if side > 0.15:
            name = f"{doc_id}.ann" if rng.random() < 0.9 else doc_id
            content = _ann(rng, _perturbed(rng, entities, types), [])
            (system / name).write_text(content, "utf-8")
    if rng.random() < 0.1:
        (system / "notes.txt").write_text("some words\n", "utf-8")
    for folder in (gold, system):
        if not any(p.suffix == ".ann" for p in folder.iterdir()):
            (folder / "empty.ann").write_text("", "utf-8")
    return gold, system


def _nonzero(counts: Any) -> dict[str, int]:
    return {k: int(v) for k, v in dict(counts.items()).items() if v}


def _warnings(result: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in result.warnings:
        out[w.code] = out.get(w.code, 0) + w.count
    return out


def _same(result: Any, expected: oracle.Outcome) -> None:
    counts = {d: _nonzero(c) for d, c in result.document_counts().items()}
    assert counts == expected.documents
    assert _warnings(result) == expected.warnings
    for key, value in expected.scores.items():
        got = result.scores[key]
        assert (got is None and value is None) or math.isclose(got, value, rel_tol=1e-12)
    if result.details.file_mode is False:
        assert f"Total ({len(expected.documents)} docs)" in render_official(result)


def _refused(expected: oracle.Outcome, function: Any, *args: Any, **kwargs: Any) -> bool:
    """Whether ``function(*args, **kwargs)`` is refused, as ``expected`` says it must be (same
    file and line); else its result is what ``expected`` says."""
    try:
        result = function(*args, **kwargs)
    except InputError as error:
        assert expected.error is not None, str(error)
        path, line = expected.error
        assert (error.path, error.line) == (path, line), (str(error), expected.error)
        return True
    assert expected.error is None, f"scored what the reference refuses: {expected.error}"
    _same(result, expected)
    return False


@pytest.mark.parametrize("seed", range(6))
def test_ner_counts_what_the_official_reading_counts(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for case in range(80 * MULTIPLIER):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system = ner_case(rng, root)
        codalab = rng.random() < 0.4
        missing = rng.choice(("official", "official", "ignore", "count"))
        undefined = rng.choice(("zero", "zero", "null"))
        expected = oracle.score_ner(
            gold, system, codalab=codalab, missing=missing, undefined=undefined
        )
        options = NerOptions(codalab=codalab, missing_docs=missing, undefined=undefined)
        _refused(expected, score_pharmaconer_ner, gold, system, options)


def _span_mode_expected(
    gold: Path, system: Path, codalab: bool, missing: str, mode: str, options: dict[str, Any]
) -> oracle.Outcome:
    """The generic span modes on PharmaCoNER input: its reading, pairing, UNCLEAR and set
    rules; the span reference's counts (reversed offsets cannot be compared: refused)."""
    out = oracle.Outcome()
    try:
        gold_docs, _ = oracle.read_ann_folder(gold, every_file=False, check_text=True)
        system_docs, others = oracle.read_ann_folder(
            system, every_file=not codalab, check_text=False
        )
    except oracle_brat.OracleError as error:
        out.error = (error.path, error.line)
        return out
    dropped = 0
    for folder, documents in ((gold, gold_docs), (system, system_docs)):
        for document in documents.values():
            if codalab:
                kept = [e for e in document.entities if e.type != oracle.UNCLEAR]
                dropped += len(document.entities) - len(kept)
                document.entities = kept
            for entity in document.entities:
                if any(e < s for s, e in entity.fragments):
                    path = _path_of(folder, documents, document)
                    out.error = (path, entity.line)
                    return out
    out.warn("pharmaconer.non-ann-files", others)
    repeated = 0
    for doc_id in oracle.pairing(set(gold_docs), set(system_docs), missing, codalab, out):
        sides = []
        for documents in (gold_docs, system_docs):
            document = documents.get(doc_id)
            items = [] if document is None else [(e.type, e.fragments) for e in document.entities]
            repeated += len(items) - len(dict.fromkeys(items))
            sides.append(list(dict.fromkeys(items)))
            if document is not None:
                for code, n in document.warnings.items():
                    out.warn(code, n)
        table = oracle_spans.mode_table(mode, sides[0], sides[1], **options)
        flat: dict[str, int] = {"documents": 1}
        for type_name, stats in table.items():
            for stat, n in stats.items():
                flat[stat] = flat.get(stat, 0) + n
                flat[f"type:{type_name}:{stat}"] = n
        out.documents[doc_id] = {k: v for k, v in flat.items() if v}
    out.warn("spans.duplicates", repeated)
    out.warn("pharmaconer.unclear", dropped)
    oracle.score(out, "zero")
    return out


def _path_of(folder: Path, documents: dict[str, Any], document: Any) -> str:
    stem = next(d for d, doc in documents.items() if doc is document)
    candidates = sorted(str(p) for p in folder.iterdir() if os.path.splitext(p.name)[0] == stem)
    return next((c for c in candidates if c.endswith(".ann")), candidates[0])


@pytest.mark.parametrize("seed", range(3))
def test_ner_span_modes_count_what_the_span_reference_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(100 + seed)
    for case in range(30 * MULTIPLIER):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system = ner_case(rng, root)
        codalab = rng.random() < 0.4
        missing = rng.choice(("official", "ignore", "count"))
        mode = rng.choice(("exact", "overlap", "relaxed"))
        options: dict[str, Any] = {}
        if mode == "overlap":
            options["min_overlap"] = rng.choice((0.0, 0.5, 1.0))
        if mode == "relaxed":
            options["tolerance"] = rng.choice((0, 1, 3))
        expected = _span_mode_expected(gold, system, codalab, missing, mode, options)
        with monkeypatch.context() as patched:
            lower_thresholds(rng, patched)
            chosen = NerOptions(codalab=codalab, missing_docs=missing, mode=mode, **options)
            _refused(expected, score_pharmaconer_ner, gold, system, chosen)


# -------------------------------------------------------------------------------- indexing


def _tsv(rng: random.Random, doc_id: str, codes: list[str], others: list[str]) -> str:
    lines = []
    for code in codes:
        name = doc_id if rng.random() < 0.85 else rng.choice(others)
        fate = rng.random()
        if fate < 0.85:
            lines.append(f"{name}\t{code}")
        else:
            lines.append(
                rng.choice(
                    (
                        f"{name}\t {code}",
                        f"{name}\t{code}   ",
                        f"{name}\t{code}\u2028",
                        f"{name}\t{code}\t",
                        f"{name}\t{code}\x0c",
                        "",
                        "   ",
                    )
                )
            )
    if lines and rng.random() < 0.1:
        lines.append(rng.choice(lines))
    if rng.random() < 0.01:
        lines.insert(rng.randrange(len(lines) + 1), f"{doc_id}\t1\textra")
    end = "\r\n" if rng.random() < 0.05 else "\n"
    content = "".join(line + end for line in lines)
    if rng.random() < 0.05:
        content = "\ufeff" + content
    return content


def indexing_case(rng: random.Random, root: Path) -> tuple[Path, Path, Path]:
    gold, system, ann = root / "gold", root / "system", root / "ann"
    for folder in (gold, system, ann):
        folder.mkdir()
    doc_ids = _doc_ids(rng, rng.randint(1, 6))
    codes = id_pool(rng, 8, max_bytes=12, forbidden=" \t", wide=False)
    for doc_id in doc_ids:
        mine = [rng.choice(codes) for _ in range(rng.randint(1, 5))]
        side = rng.random()
        if side < 0.8:
            content = _tsv(rng, doc_id, mine, [*doc_ids, "other"])
            (gold / f"{doc_id}.tsv").write_text(content, "utf-8")
        if side > 0.15:
            predicted = [c for c in mine if rng.random() < 0.7] + [rng.choice(codes)]
            (system / f"{doc_id}.tsv").write_text(_tsv(rng, doc_id, predicted, doc_ids), "utf-8")
        if side < 0.8 or rng.random() < 0.5:
            entities = [(rng.choice(("UNCLEAR", "PROTEINAS")), 0, 5) for _ in mine]
            lines = [f"T{k}\t{t} {s} {e}\tx" for k, (t, s, e) in enumerate(entities, start=1)]
            lines += [f"#{k}\tAnnotatorNotes T{k}\t{c}" for k, c in enumerate(mine, start=1)]
            if rng.random() < 0.02:
                lines = lines[1:]  # a note pointing nowhere
            (ann / f"{doc_id}.ann").write_text("".join(f"{line}\n" for line in lines), "utf-8")
    for folder, suffix in ((gold, ".tsv"), (system, ".tsv"), (ann, ".ann")):
        if not any(p.suffix == suffix for p in folder.iterdir()):
            (folder / f"{doc_ids[0]}{suffix}").write_text(
                "" if suffix == ".ann" else f"{doc_ids[0]}\t1\n", "utf-8"
            )
    return gold, system, ann


@pytest.mark.parametrize("seed", range(6))
def test_indexing_counts_what_the_official_reading_counts(tmp_path: Path, seed: int) -> None:
    rng = random.Random(200 + seed)
    for case in range(80 * MULTIPLIER):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system, ann = indexing_case(rng, root)
        codalab = rng.random() < 0.5
        missing = rng.choice(("official", "official", "ignore", "count"))
        undefined = rng.choice(("zero", "zero", "null"))
        gold_ann = ann if codalab else None
        expected = oracle.score_indexing(
            gold, system, codalab=codalab, missing=missing, gold_ann=gold_ann, undefined=undefined
        )
        options = IndexingOptions(
            codalab=codalab, gold_ann=gold_ann, missing_docs=missing, undefined=undefined
        )
        _refused(expected, score_pharmaconer_indexing, gold, system, options)
