"""The buckets of the span report (report/html_buckets.py), each kind on handmade documents
whose answer is counted by hand below: length in characters and in tokens, how often the
mention's text is a gold mention's, the type's frequency, the document's length, continuous or
discontinuous, flat, nested or overlapping; with and without the document's text."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from annoscore.align.span_sides import SpanSides, read_sides
from annoscore.formats.brat_model import AnnFile
from annoscore.report.html_buckets import KINDS, _nesting, bucket_data, bucket_matrices
from annoscore.report.html_span_data import analyse
from annoscore.tasks.spans import SpanOptions, score_spans

A = "alpha beta gamma delta epsilon zeta eta theta"  # eta at 36-39
B = " ".join(f"w{k}" for k in range(150))  # 150 tokens
C = "é\u3000ü naïve café alpha beta"  # 6 tokens, one of them after an ideographic space


def _at(text: str, part: str) -> tuple[int, int]:
    i = text.index(part)
    return i, i + len(part)


def _write(folder: Path, docs: dict[str, tuple[str, list[Any]]]) -> Path:
    folder.mkdir()
    for name, (text, items) in docs.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        lines = [
            f"T{k}\t{kind} {';'.join(f'{s} {e}' for s, e in frags)}\t"
            f"{' '.join(text[s:e] for s, e in frags)}"
            for k, (kind, frags) in enumerate(items, 1)
        ]
        (folder / f"{name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def corpus(tmp_path: Path) -> tuple[Path, Path]:
    """Three documents; gold G1-G9, predictions P1-P9 (the comments: what each is)."""
    gold = {
        "a": (
            A,
            [
                ("X", [_at(A, "alpha beta")]),  # G1 tp: 10 characters, 2 tokens
                ("X", [_at(A, "gamma")]),  # G2 fn (P2 extends it): 5, 1
                ("Y", [_at(A, "delta epsilon zeta")]),  # G3 tp: 18, 3, holds G4
                ("X", [_at(A, "epsilon")]),  # G4 tp: 7, 1, within G3
                ("Y", [(36, 39), _at(A, "theta")]),  # G5 fn: discontinuous, 9 outer, 2
            ],
        ),
        "b": (B, [("Z", [(0, 2)]), ("Z", [(3, 5)])]),  # G6 tp "w0", G7 fn "w1"
        "c": (C, [("X", [_at(C, "alpha beta")]), ("X", [_at(C, "café")])]),  # G8 tp, G9 fn
    }
    system = {
        "a": (
            A,
            [
                ("X", [_at(A, "alpha beta")]),  # P1 tp
                ("X", [_at(A, "gamma delta")]),  # P2 fp: 11, 2; overlaps P3
                ("Y", [_at(A, "delta epsilon zeta")]),  # P3 tp, holds P4
                ("X", [_at(A, "epsilon")]),  # P4 tp
                ("Y", [(38, 42)]),  # P5 fp: "a th", 4 characters touching 2 tokens
            ],
        ),
        "b": (B, [("Z", [(0, 2)]), ("X", [(6, 8)])]),  # P6 tp, P7 fp "w2"
        "c": (C, [("X", [_at(C, "alpha beta")]), ("X", [_at(C, "naïve")])]),  # P8 tp, P9 fp
    }
    return _write(tmp_path / "gold", gold), _write(tmp_path / "system", system)


def _counts(buckets: dict[str, Any]) -> dict[str, dict[str, tuple[int, int, int]]]:
    return {
        kind: {name: (c["tp"], c["fp"], c["fn"]) for name, c, _, _ in rows}
        for kind, rows in buckets.items()
    }


EXPECTED = {  # (tp, fp, fn), counted by hand from the comments of corpus()
    "length": {
        "1-3 characters": (1, 1, 1),  # G6, P7, G7
        "4-6 characters": (0, 2, 2),  # P5 P9, G2 G9
        "7-10 characters": (3, 0, 1),  # G1 G4 G8, G5 (outer bounds)
        "11-20 characters": (1, 1, 0),  # G3, P2
    },
    "tokens": {
        "1 token": (2, 2, 3),  # G4 G6, P7 P9, G2 G7 G9
        "2 tokens": (2, 2, 1),  # G1 G8, P2 P5 (a partial token counts), G5
        "3 tokens": (1, 0, 0),  # G3
    },
    "surface": {
        "text never a gold mention's": (0, 4, 0),  # P2 P5 P7 P9
        "text of 1 gold mention": (3, 0, 4),  # G3 G4 G6, G2 G5 G7 G9
        "text of 2-5 gold mentions": (2, 0, 0),  # "alpha beta" twice: G1 G8
    },
    "frequency": {  # X 5 gold mentions (frequent), Y and Z 2 each (rare)
        "frequent types": (3, 3, 2),
        "rare types": (2, 1, 2),
    },
    "document": {"0-100 tokens": (4, 3, 3), "101-300 tokens": (1, 1, 1)},
    "discontinuity": {"continuous": (5, 4, 3), "discontinuous": (0, 0, 1)},
    "nesting": {
        "flat": (3, 3, 4),  # G1 G6 G8, P5 P7 P9, G2 G5 G7 G9
        "nested": (2, 0, 0),  # G3 G4 (P3 P4 are correct)
        "overlapping": (0, 1, 0),  # P2 crosses P3
    },
}


def _buckets(gold: Path, system: Path, bootstrap: Any = None) -> dict[str, Any]:
    data = analyse(read_sides(gold, system), embed=False)
    return bucket_data(bucket_matrices(data), bootstrap)


def test_every_kind_of_bucket_on_handmade_documents(tmp_path: Path) -> None:
    gold, system = corpus(tmp_path)
    buckets = _buckets(gold, system, (100, 0.9, 5))
    assert list(buckets) == list(KINDS)
    assert _counts(buckets) == EXPECTED
    strict = score_spans(gold, system, SpanOptions()).counts
    assert (strict["tp"], strict["fp"], strict["fn"]) == (5, 4, 4)
    for rows in buckets.values():
        for _, counts, scores, intervals in rows:
            assert counts["gold"] == counts["tp"] + counts["fn"]
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            assert scores["precision"] == (tp / (tp + fp) if tp + fp else None)
            assert scores["recall"] == (tp / (tp + fn) if tp + fn else None)
            for key, value in scores.items():
                bounds = intervals[key]
                if value is not None and bounds is not None:
                    assert bounds[0] - 1e-12 <= value <= bounds[1] + 1e-12


def test_the_tokens_and_texts_read_from_the_documents() -> None:
    from annoscore.report.html_buckets import _text_features

    side = SimpleNamespace(
        doc=np.array([0, 0, 1, 2, 2], dtype=np.int64),
        start=np.array([0, 2, 1, 1, 5], dtype=np.int64),
        end=np.array([5, 9, 4, 2, 6], dtype=np.int64),
        fragments={},
    )
    texts = ["ab cd\x1cef  gh", None, "\u3000x\u00a0y x"]
    files = [None, AnnFile("d", "", ["T1"], ["X"], [1], [4], ["one two three"]), None]
    chosen = np.array([0, 2, 4])
    tokens, per_doc, seen, numbers = _text_features(
        texts, (side, side), (np.arange(5), chosen), (files, files)
    )
    # "ab cd" 2; " cd\x1cef " 2 (\x1c is whitespace to str.split); no text: the .ann's 3
    assert tokens[0].tolist() == [2, 2, 3, 1, 1]
    assert tokens[1].tolist() == [2, 0, 3, 0, 1]  # the rows not chosen are not read
    assert per_doc.tolist() == [4, -1, 3]
    assert seen[0].tolist() == [1, 1, 1, 2, 2]  # "x" twice (the non-ASCII document)
    assert seen[1].tolist() == [1, 0, 1, 0, 2]
    assert numbers[1][1] == numbers[1][3] == -1  # not chosen
    assert numbers[0][3] == numbers[0][4] == numbers[1][4]  # "x" on either side
    assert len({numbers[0][k] for k in range(4)}) == 4


def test_a_document_without_text_is_bucketed_by_its_mentions_text() -> None:
    gold = AnnFile("d", "", ["T1", "T2"], ["X", "X"], [0, 10], [5, 20], ["a b", "a b"])
    pred = AnnFile("d", "", ["T1"], ["X"], [0], [5], ["a b"])
    data = analyse(SpanSides({"d": gold}, {"d": pred}), embed=False)
    counts = _counts(bucket_data(bucket_matrices(data), None))
    assert counts["document"] == {"text unknown": (1, 0, 1)}
    assert counts["tokens"] == {"2 tokens": (1, 0, 1)}
    assert counts["surface"] == {"text of 2-5 gold mentions": (1, 0, 1)}


def test_nesting_of_repeated_touching_and_crossing_mentions() -> None:
    def nesting(spans: list[tuple[int, int, int]]) -> list[int]:
        doc, start, end = (np.array(c, dtype=np.int64) for c in zip(*spans, strict=True))
        return list(_nesting(SimpleNamespace(doc=doc, start=start, end=end)).tolist())

    # repeated (nested), touching only (flat), crossing (overlapping), other document (flat)
    assert nesting([(0, 0, 4), (0, 0, 4), (0, 4, 6), (0, 8, 12), (0, 10, 14), (1, 9, 13)]) == [
        1,
        1,
        0,
        2,
        2,
        0,
    ]
    # one within another that crosses a third: nested wins for the two, the third overlaps
    assert nesting([(0, 0, 10), (0, 2, 4), (0, 8, 15)]) == [1, 1, 2]
    assert nesting([(0, 5, 9), (1, 0, 20)]) == [0, 0]


def test_equal_texts_are_found_by_their_bytes(monkeypatch: Any) -> None:
    import random

    import annoscore.report.html_buckets as buckets

    rng = random.Random(4)
    for trial in range(300):
        if trial == 150:  # every row the same mix: the rows' bytes decide alone
            monkeypatch.setattr(buckets, "_mix", lambda words: np.zeros(len(words), np.uint64))
        texts = [
            "".join(rng.choice("ab\u00e9") for _ in range(rng.randrange(12))) for _ in range(60)
        ]
        wide = any(not t.isascii() for t in texts) and trial % 2
        points = [np.frombuffer(t.encode("utf-32-le"), dtype="<u4") for t in texts]
        content = np.concatenate(points).astype(np.uint32 if wide else np.uint8)
        if not wide:  # one byte per character: as a text of ASCII is kept
            content = np.frombuffer(
                "".join(t.replace("\u00e9", "c") for t in texts).encode(), np.uint8
            )
            texts = [t.replace("\u00e9", "c") for t in texts]
        length = np.array([len(t) for t in texts], dtype=np.int64)
        offset = np.cumsum(length) - length
        same = buckets._same_texts(content, offset, length).tolist()
        for i in range(len(texts)):
            for j in range(len(texts)):
                assert (same[i] == same[j]) == (texts[i] == texts[j])


def test_the_frequent_errors_are_counted_by_text(tmp_path: Path) -> None:
    """The most frequent missed and spurious (type, text) pairs (html_span_data.analyse, counted by
    the texts' numbers) against a plain count of the strings: most frequent first, ties in the
    order of the first occurrence."""
    import random
    from collections import Counter

    from annoscore.align.span_errors import CATEGORIES

    rng = random.Random(11)
    words = ["ab", "a", "b", "é", "ab a", "x"]
    for case in range(25):
        root = tmp_path / str(case)
        root.mkdir()
        docs: dict[str, dict[str, Any]] = {"gold": {}, "system": {}}
        for d in range(rng.randrange(1, 5)):
            text = " ".join(rng.choice(words) for _ in range(40))
            for side in docs:
                items = []
                for _ in range(rng.randrange(0, 12)):
                    a = rng.randrange(len(text))
                    b = min(len(text), a + rng.randrange(1, 6))
                    items.append((rng.choice("XY"), [(a, b)]))
                docs[side][f"d{d}"] = (text, items)
        gold = _write(root / "gold", docs["gold"])
        system = _write(root / "system", docs["system"])
        data = analyse(read_sides(gold, system), embed=False)
        _, types, g, p, errors = data["columns"]
        texts = data["sources"][0]
        for what, side, category in (
            ("missed", g, errors.gold_category),
            ("spurious", p, errors.pred_category),
        ):
            counted: Counter[tuple[str, str]] = Counter()
            for r in range(side.doc.shape[0]):
                if CATEGORIES[int(category[r])] == what:
                    d = int(side.doc[r])
                    counted[(types[int(side.kind[r])], texts[d][side.start[r] : side.end[r]])] += 1
            expected = [[t, s, n] for (t, s), n in counted.most_common(15)]
            assert data[what] == expected, (case, what)
