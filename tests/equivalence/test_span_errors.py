"""Differential tests of the report's span error categories (issue 27): the array path
(:func:`~annoscore.align.span_errors.categorize_columns`, every document at once, packed sort
keys or, past 62 bits, a lexicographic sort), the per-document path
(:func:`~annoscore.align.span_errors.categorize`, which discontinuous mentions take) and the
report's columns (:func:`annoscore.report.html_span_data.analyse` on brat files, both paths mixed)
against the plain reference of ``tests/oracles/span_errors.py``.

Cases: several documents of random continuous mentions over few positions and types (so that
equal spans, repeated mentions, nesting, ties of shared characters and of position abound),
zero-length spans, documents on one side only, offsets near 10^15 (past the packed keys), and
discontinuous mentions.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np

from annoscore.align.span_errors import CATEGORIES, SIDES, categorize, categorize_columns
from annoscore.align.span_sides import read_sides
from annoscore.report.html_span_data import analyse
from tests.oracles import span_errors as oracle

MULTIPLIER = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1") or 1))
TYPES = ("A", "B", "Ab", "é")


def _mentions(rng: random.Random, n: int, base: int, discontinuous: bool) -> list[Any]:
    out = []
    for _ in range(n):
        start = base + rng.randrange(25)
        if discontinuous and rng.random() < 0.3:
            middle = start + rng.randrange(1, 4)
            frags = ((start, middle), (middle + rng.randrange(1, 3), middle + rng.randrange(3, 7)))
        else:
            frags = ((start, start + rng.choice((0, 1, 1, 2, 3, 4, 6, 9))),)
        out.append((frags, rng.choice(TYPES[: rng.randrange(1, 5)])))
    return out


def _document(rng: random.Random, discontinuous: bool = False) -> tuple[list[Any], list[Any]]:
    base = rng.choice((0, 0, 0, 10**15))
    gold = _mentions(rng, rng.choice((0, 1, 3, 6, 10)), base, discontinuous)
    pred = _mentions(rng, rng.choice((0, 1, 3, 6, 10)), base, discontinuous)
    copies = [(f, t if rng.random() < 0.7 else rng.choice(TYPES)) for f, t in gold]
    pred += [m for m in copies if rng.random() < 0.6]
    rng.shuffle(pred)
    return gold, pred


def _expected(gold: list[Any], pred: list[Any]) -> dict[str, list[Any]]:
    return oracle.categories(gold, pred)


def test_categorize_against_the_reference() -> None:
    rng = random.Random(27)
    for _ in range(4000 * MULTIPLIER):
        gold, pred = _document(rng, discontinuous=rng.random() < 0.3)
        want = _expected(gold, pred)
        found = categorize(gold, pred)
        got = {
            "gold": ["missed"] * len(gold),
            "pred": ["spurious"] * len(pred),
            "gold_partner": [None] * len(gold),
            "pred_partner": [None] * len(pred),
            "side": [""] * len(gold),
        }
        for item in found:
            if item.gold is not None:
                got["gold"][item.gold] = item.category
                got["gold_partner"][item.gold] = item.pred
                got["side"][item.gold] = item.side
            if item.pred is not None:
                got["pred"][item.pred] = item.category
                got["pred_partner"][item.pred] = item.gold
        assert got == want, (gold, pred)


def test_the_array_path_against_the_reference() -> None:
    rng = random.Random(2713)
    for _ in range(1500 * MULTIPLIER):
        documents = [_document(rng) for _ in range(rng.randrange(1, 7))]
        names = sorted(TYPES)
        columns: list[list[list[int]]] = [[[], [], [], []], [[], [], [], []]]
        for d, sides in enumerate(documents):
            for side, mentions in zip(columns, sides, strict=True):
                for frags, kind in mentions:
                    for column, value in zip(
                        side, (d, frags[0][0], frags[0][1], names.index(kind)), strict=True
                    ):
                        column.append(value)
        arrays = [tuple(np.array(c, dtype=np.int64) for c in side) for side in columns]
        errors = categorize_columns(arrays[0], arrays[1])  # type: ignore[arg-type]
        g_at = p_at = 0
        for gold, pred in documents:
            want = _expected(gold, pred)
            rows_g = slice(g_at, g_at + len(gold))
            rows_p = slice(p_at, p_at + len(pred))
            got_g = [CATEGORIES[c] for c in errors.gold_category[rows_g]]
            got_p = [CATEGORIES[c] for c in errors.pred_category[rows_p]]
            partner_g = [None if j < 0 else j - p_at for j in errors.gold_partner[rows_g].tolist()]
            partner_p = [None if i < 0 else i - g_at for i in errors.pred_partner[rows_p].tolist()]
            sides = [
                SIDES[s] if c in ("boundary", "type+boundary") else ""
                for s, c in zip(errors.gold_side[rows_g].tolist(), got_g, strict=True)
            ]
            assert (got_g, got_p, partner_g, partner_p, sides) == (
                want["gold"],
                want["pred"],
                want["gold_partner"],
                want["pred_partner"],
                want["side"],
            ), (gold, pred)
            g_at += len(gold)
            p_at += len(pred)


def _write(folder: Path, documents: dict[str, list[Any]], text: str) -> Path:
    folder.mkdir()
    for doc, mentions in documents.items():
        lines = [
            f"T{k}\t{kind} {';'.join(f'{s} {e}' for s, e in frags)}\t"
            + " ".join(text[s:e] for s, e in frags)
            for k, (frags, kind) in enumerate(mentions, start=1)
        ]
        (folder / f"{doc}.ann").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        (folder / f"{doc}.txt").write_text(text, encoding="utf-8")
    return folder


def test_the_report_columns_against_the_reference(tmp_path: Path) -> None:
    """Brat folders through the reader and the report's analysis (documents with and without
    discontinuous mentions, documents on one side only): every mention's category as the page
    reads it."""
    from tests.report.test_html_spans import decoded

    rng = random.Random(99)
    text = "".join(rng.choice("abc <&>\u00e9") for _ in range(60))
    for case in range(40 * MULTIPLIER):
        gold: dict[str, list[Any]] = {}
        system: dict[str, list[Any]] = {}
        for d in range(rng.randrange(1, 6)):
            g, p = _document(random.Random(rng.random()), discontinuous=rng.random() < 0.4)
            g = [m for m in g if m[0][0][0] < 10**15 and m[0][0][0] < m[0][0][1]]
            p = [m for m in p if m[0][0][0] < 10**15 and m[0][0][0] < m[0][0][1]]
            if rng.random() < 0.9 or not gold:
                gold[f"d{d}"] = g
            if rng.random() < 0.9 or f"d{d}" not in gold or not system:
                system[f"d{d}"] = p
        if case % 10 == 1:  # one side without any mention
            side = gold if case % 20 == 1 else system
            for doc in side:
                side[doc] = []
        root = tmp_path / str(case)
        root.mkdir()
        sides = read_sides(_write(root / "g", gold, text), _write(root / "s", system, text))
        data = analyse(sides)
        shown = decoded(data["embedded"])
        counts: dict[str, dict[str, int]] = {}
        for doc in dict.fromkeys([*gold, *system]):
            g, p = gold.get(doc, []), system.get(doc, [])
            want = _expected(g, p)
            entry = shown[doc]
            assert entry["text"] == text  # the gold document's, else the system's
            assert [(tuple(m[0]), m[1]) for m in entry["g"]] == [(f, t) for f, t in g]
            assert entry["gcat"] == want["gold"] and entry["pcat"] == want["pred"]
            partners = [i[2] for i in entry["items"] if i[1] is not None]
            assert partners == want["gold_partner"]
            assert [i[3] for i in entry["items"] if i[1] is not None] == want["side"]
            for (_, kind), category in zip(g, want["gold"], strict=True):
                counts.setdefault(kind, {}).setdefault(category, 0)
                counts[kind][category] += 1
            for (_, kind), category in zip(p, want["pred"], strict=True):
                if category == "spurious":
                    counts.setdefault(kind, {}).setdefault(category, 0)
                    counts[kind][category] += 1
        assert data["types"] == counts
        assert json.loads(data["embedded"])["docs"] == list(dict.fromkeys([*gold, *system]))
