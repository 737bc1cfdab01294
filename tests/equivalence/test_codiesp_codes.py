"""CodiEsp D/P codes put on one vocabulary (``formats.codiesp.recode``,
``align.codes.align_ranked``) against a plain reference written from their definitions, on
random code lists.

The fast paths under test: a list whose lower-cased codes stay distinct is returned as it is
(each code keeps its id); a vocabulary is indexed by one ``dict`` (each code's first place);
the valid codes the gold lacks come from the valid list sorted once per list (kept between
calls) and filtered; the examples of invalid predicted codes are sought only when some row's
code is invalid.  The generator draws codes that collide once lower-cased (``K1``, ``k1``, the
Kelvin sign, ``İ``, ``ß``), vocabularies with repeats and without the codes, valid lists shared
between calls and lists changed between them, and rows that use each written code (as the
readers give them).

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from annoscore.align import codes as align_codes
from annoscore.align.codes import align_ranked
from annoscore.code_lists import CodeRows
from annoscore.formats.codiesp import recode
from annoscore.formats.codiesp_scan import CodeSeed, code_seed

SCALE = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(3000 * SCALE))
BATCH = 500
LETTERS = ("a", "b", "K", "k", "\u212a", "\u0130", "i", "\u00df", "S", "s", "1", ".", "\u00c4")


def random_codes(rng: random.Random, size: int) -> list[str]:
    """Distinct codes as written (as a reader lists them), often equal once lower-cased."""
    codes: dict[str, None] = {}
    while len(codes) < size:
        codes["".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 3)))] = None
    return list(codes)


def random_rows(rng: random.Random, written: list[str]) -> CodeRows:
    """Rows using every written code at least once (the readers' codes are those of rows)."""
    code = list(range(len(written))) + [
        rng.randrange(len(written)) for _ in range(rng.randint(0, 9))
    ]
    rng.shuffle(code)
    doc = sorted(rng.randrange(4) for _ in code)
    documents = [f"D{k}" for k in range(max(doc) + 1)]
    return CodeRows(
        Path("x"), documents, written, np.array(doc, np.int32), np.array(code, np.int32), None
    )


def reference_recode(
    rows: CodeRows, lowercase: bool, vocabulary: list[str] | None
) -> tuple[list[str], list[int], int, int, tuple[str, ...], int]:
    """names, each row's code id, unknown rows, unknown distinct codes, their first five, rows
    whose code changed when lower-cased: from the definitions."""
    seen = [rows.codes[c] for c in rows.code.tolist()]
    lowered = [c.lower() if lowercase else c for c in seen]
    uppercase = sum(a != b for a, b in zip(seen, lowered, strict=True))
    by_written = [c.lower() if lowercase else c for c in rows.codes]
    if vocabulary is None:
        names: list[str] = []
        for c in by_written:
            if c not in names:
                names.append(c)
    else:
        names = list(vocabulary)
    ids = [names.index(c) if c in names else -1 for c in lowered]
    outside = [c for c in by_written if c not in names]
    distinct = list(dict.fromkeys(outside))
    unknown = sum(i < 0 for i in ids)
    return names, ids, unknown, len(distinct), tuple(distinct[:5]), uppercase


@pytest.mark.parametrize("batch", range(max(1, CASES // BATCH)))
def test_recode_equals_the_reference(batch: int) -> None:
    for k in range(BATCH):
        seed = 10_000 * batch + k
        rng = random.Random(seed)
        rows = random_rows(rng, random_codes(rng, rng.randint(1, 8)))
        lowercase = rng.random() < 0.7
        vocabulary = None
        if rng.random() < 0.6:  # repeats, codes of the rows and others
            vocabulary = [c.lower() for c in random_codes(rng, rng.randint(1, 8))]
            vocabulary += rng.sample(vocabulary, rng.randint(0, len(vocabulary)))
            rng.shuffle(vocabulary)
        got = recode(rows, lowercase=lowercase, vocabulary=vocabulary)
        names, ids, unknown, distinct, examples, uppercase = reference_recode(
            rows, lowercase, vocabulary
        )
        case = f"seed {seed}"
        assert got.codes == names, case
        assert got.code.tolist() == ids, case
        assert (got.unknown, got.unknown_distinct, got.unknown_examples) == (
            unknown,
            distinct,
            examples,
        ), case
        assert got.uppercase == uppercase, case
        assert got.doc.tolist() == rows.doc.tolist() and got.documents == rows.documents, case


@pytest.mark.parametrize("batch", range(max(1, CASES // BATCH)))
def test_align_ranked_equals_the_reference(batch: int) -> None:
    valid_lists = [frozenset(random_codes(random.Random(n), 6)) for n in range(3)]
    for k in range(BATCH):
        seed = 10_000 * batch + k
        rng = random.Random(seed)
        pool = random_codes(rng, rng.randint(2, 10))
        gold = random_rows(rng, rng.sample(pool, rng.randint(1, len(pool))))
        pred = random_rows(rng, rng.sample(pool, rng.randint(1, len(pool))))
        lowercase = rng.random() < 0.7
        if rng.random() < 0.5:  # a list met before (kept sorted between calls)
            valid = rng.choice(valid_lists)
        else:
            valid = frozenset(c.lower() for c in rng.sample(pool, rng.randint(1, len(pool))))
        view = align_ranked(gold, pred, valid, lowercase=lowercase)
        gold_names = reference_recode(gold, lowercase, None)[0]
        vocabulary = gold_names + sorted(valid - set(gold_names))
        case = f"seed {seed}"
        assert view.vocabulary == vocabulary, case
        data = view.data
        assert data.code_valid.tolist() == [c in valid for c in vocabulary], case
        pred_ids = reference_recode(pred, lowercase, vocabulary)[1]
        assert data.pred.code.tolist() == pred_ids, case
        written = [c.lower() if lowercase else c for c in pred.codes]
        examples = list(dict.fromkeys(c for c in written if c not in valid))[:5]
        assert data.invalid_pred_examples == examples, case
        invalid = sum(i < 0 or vocabulary[i] not in valid for i in pred_ids)
        assert data.invalid_pred_rows == invalid, case
        documents = list(gold.documents) + [d for d in pred.documents if d not in gold.documents]
        assert data.documents == documents, case
        where = [documents.index(d) for d in pred.documents]
        assert data.pred_global.tolist() == where, case


def seeded_rows(rows: CodeRows, seed: CodeSeed) -> CodeRows:
    """``rows`` as the scan reads them from ``seed``: the seed's codes first (a code written
    as one of them takes its id), then the others in order of first appearance."""
    others = [c for c in rows.codes if c not in seed.index]
    at = {c: len(seed.names) + k for k, c in enumerate(others)}
    remap = [seed.index[c] if c in seed.index else at[c] for c in rows.codes]
    code = np.array(remap, dtype=np.int32)[rows.code]
    return CodeRows(rows.path, rows.documents, [*seed.names, *others], rows.doc, code, None)


def row_codes(rows: CodeRows, names: list[str]) -> list[str | None]:
    return [names[i] if i >= 0 else None for i in rows.code.tolist()]


@pytest.mark.parametrize("batch", range(max(1, CASES // BATCH)))
def test_seeded_align_ranked_equals_the_plain_one(batch: int) -> None:
    """Rows read from the seed of the valid codes (:class:`CodeSeed`: their codes after the
    seed's) give, code by code, what the plain alignment gives (other code ids: the same
    codes, counts and examples)."""
    for k in range(BATCH):
        case_seed = 20_000 * batch + k
        rng = random.Random(case_seed)
        pool = random_codes(rng, rng.randint(2, 10))
        gold = random_rows(rng, rng.sample(pool, rng.randint(1, len(pool))))
        pred = random_rows(rng, rng.sample(pool, rng.randint(1, len(pool))))
        lowercase = rng.random() < 0.7
        valid = frozenset(c.lower() for c in rng.sample(pool, rng.randint(1, len(pool))))
        valid |= frozenset(c.lower() for c in random_codes(rng, rng.randint(0, 4)))  # no row's
        seed = code_seed(valid)
        assert seed is not None
        plain = align_ranked(gold, pred, valid, lowercase=lowercase)
        # each side read from the seed, or one of them by the parser (the plain path's turn)
        sides = rng.choice([(True, True), (True, True), (True, False), (False, True)])
        read = (
            seeded_rows(gold, seed) if sides[0] else gold,
            seeded_rows(pred, seed) if sides[1] else pred,
        )
        fast = align_ranked(*read, valid, lowercase=lowercase, seed=seed)
        case = f"seed {case_seed}"
        ran = align_codes._seeded(*read, valid, lowercase, seed) is not None
        assert ran or not all(sides), case
        for a, b in ((plain.data, fast.data), (plain.numeric, fast.numeric)):
            assert (a is None) == (b is None), case
            if a is None or b is None:
                continue
            for side_a, side_b in ((a.gold, b.gold), (a.pred, b.pred)):
                codes_a = row_codes(side_a, plain.vocabulary)
                assert codes_a == row_codes(side_b, fast.vocabulary), case
                assert (side_a.unknown, side_a.unknown_distinct, side_a.unknown_examples) == (
                    side_b.unknown,
                    side_b.unknown_distinct,
                    side_b.unknown_examples,
                ), case
                assert side_a.uppercase == side_b.uppercase, case
                assert side_a.documents == side_b.documents, case
                assert side_a.doc.tolist() == side_b.doc.tolist(), case
            valid_a = dict(zip(plain.vocabulary, a.code_valid.tolist(), strict=True))
            valid_b = dict(zip(fast.vocabulary, b.code_valid.tolist(), strict=True))
            assert valid_a == valid_b, case
            assert a.documents == b.documents and a.pred_global.tolist() == b.pred_global.tolist()
            assert (a.invalid_gold_rows, a.invalid_pred_rows, a.invalid_pred_examples) == (
                b.invalid_gold_rows,
                b.invalid_pred_rows,
                b.invalid_pred_examples,
            ), case
