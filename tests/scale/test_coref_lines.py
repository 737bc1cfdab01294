"""``annoscore coref`` on its two CoNLL files cut before ``#begin document`` lines
(:func:`annoscore.scale.cut_json.split_marked`), warnings pooled
(:mod:`annoscore.tasks.coref_chunks`).
Random adversarial corpora scored with ``--jobs`` 1, 2 and 3 and with one process scoring small
chunks one after the other: identical bytes (JSON with documents, and the text report),
warnings and errors included.

The corpora: document names from ``tests/equivalence/ids.py`` (spaces, multi-byte UTF-8, names
that are prefixes of others) in parts, documents on one side only, the response in another
order, repeated mentions, lines outside documents, split antecedents, unreadable cells; and in
broken ones a byte-order mark, CRLF line ends, no final newline, an unclosed document (last: a
warning; earlier: an error), a name used twice, a closing bracket without opening, token counts
that differ.  Most clean corpora are checked to be really cut.  ``ANNOSCORE_EQUIVALENCE_CASES``
multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.formats.conll import begin_name
from annoscore.scale.cut_json import split_marked
from tests.equivalence.ids import id_pool
from tests.scale.test_lines import MULTIPLIER, _jobs, _same

CASES = max(3, int(18 * MULTIPLIER))

OPTIONS: list[dict[str, Any]] = [
    {},
    {"metrics": ("muc", "bcub")},
    {"singletons": "removed"},
    {"metrics": ("blanc", "lea", "ceafm")},
]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _cells(rng: random.Random, tokens: int, repeat: bool) -> list[str]:
    """The coreference cells of a document of ``tokens`` token lines: nested and one-token
    mentions of a few entities, sometimes a mention twice."""
    cells = [[] for _ in range(tokens)]  # type: list[list[str]]
    for _ in range(rng.randint(0, tokens)):
        entity = rng.choice(["1", "2", "3", "01", "10"])
        first = rng.randrange(tokens)
        last = min(tokens - 1, first + rng.choice([0, 0, 1, 2]))
        copies = 2 if repeat and rng.random() < 0.1 else 1
        for _ in range(copies):
            if first == last:
                cells[first].append(f"({entity})")
            else:
                cells[first].append(f"({entity}")
                cells[last].append(f"{entity})")
    return ["|".join(c) if c else rng.choice(["-", "_"]) for c in cells]


def _corpus(rng: random.Random, root: Path, clean: bool) -> None:
    names = [n for n in id_pool(rng, 60) if n and "\n" not in n and "\r" not in n]
    names = list(dict.fromkeys(names))[: rng.randint(2, 14)]
    if rng.random() < 0.3:
        names.append(names[0] + "x")  # a name that begins with another one
    documents = []
    for name in names:
        for part in range(rng.choice([1, 1, 2])):
            tokens = rng.randint(1, 12)
            breaks = sorted(rng.sample(range(1, tokens + 1), min(tokens, rng.randint(0, 2))))
            documents.append(
                (f"({name}); part {part:03d}", tokens, breaks, [_cells(rng, tokens, not clean)])
            )
    sides: list[list[str]] = [[], []]
    order = [list(range(len(documents))), list(range(len(documents)))]
    if rng.random() < 0.3:
        rng.shuffle(order[1])
    for side in (0, 1):
        lines = sides[side]
        for k in order[side]:
            name, tokens, breaks, _ = documents[k]
            if (side == 1 and rng.random() < 0.1) or (side == 0 and rng.random() < 0.05):
                continue  # a document on one side only
            cells = _cells(rng, tokens, not clean) if side == 1 else documents[k][3][0]
            if rng.random() < 0.1:
                lines.append("stray line outside any document")
            lines.append(rng.choice(["#begin document ", "# begin document "]) + name)
            for t in range(tokens):
                word = rng.choice(["a", "la", "ñu", "中"])
                cell = cells[t]
                if not clean and rng.random() < 0.03:
                    cell += rng.choice(["(4+5)", "x"])
                lines.append(f"doc\t0\t{t}\t{word}\t{cell}")
                if t + 1 in breaks:
                    lines.append("")
            lines.append("#end document")
    if not clean:
        for side in (0, 1):
            lines = sides[side]
            roll = rng.random()
            if roll < 0.05 and len(lines) > 3:
                lines.pop()  # the last document left open: a warning
            elif roll < 0.08:
                ends = [k for k, line in enumerate(lines) if line == "#end document"]
                if len(ends) > 1:
                    lines.pop(ends[0])  # an earlier document left open: an error
            elif roll < 0.12:
                first = next(k for k, line in enumerate(lines) if line == "#end document")
                lines.extend(lines[: first + 1])  # a name used twice
            elif roll < 0.15:
                lines.append("#begin document (late)\ndoc\t0\t0\tw\t7)\n#end document")
            elif roll < 0.18 and side == 1:
                lines.insert(2, "doc\t0\t99\textra\t-")  # one token line more: an error
    for side, name in ((0, "key.conll"), (1, "response.conll")):
        text = "\n".join(sides[side]) + "\n"
        if not clean:
            roll = rng.random()
            if roll < 0.1:
                text = "\ufeff" + text
            elif roll < 0.2:
                text = text.replace("\n", "\r\n")
            elif roll < 0.3:
                text = text.rstrip("\n")
            elif roll < 0.35:
                text = text.replace("\n", "\r\n", 3)
        (root / name).write_text(text, encoding="utf-8", newline="")


def test_random_coreference_files_give_the_same_bytes(tmp_path: Path, exact: list[bool]) -> None:
    rng = random.Random("coref-lines")
    clean_cut = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        _corpus(rng, root, clean)
        exact.clear()
        one = _same(
            "coref",
            root / "key.conll",
            root / "response.conll",
            rng.choice([80, 300, 900]),
            jobs=_jobs(case),
            **rng.choice(OPTIONS),
        )
        if clean and not one.startswith("error"):
            clean_total += 1
            clean_cut += bool(exact) and all(exact)
    assert clean_cut >= clean_total // 2 and clean_total >= CASES // 3, (clean_cut, clean_total)


def test_a_naive_byte_split_would_cut_a_coreference_document(tmp_path: Path) -> None:
    # the middle byte falls inside the second document; the cut moves to the third's begin line
    def document(name: str, tokens: int) -> str:
        body = "".join(f"doc 0 {t} w (1)\n" for t in range(tokens))
        return f"#begin document ({name}); part 000\n{body}#end document\n"

    text = document("a", 2) + document("b", 40) + document("c", 2)
    for name in ("key.conll", "response.conll"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    data = text.encode()
    middle = len(data) // 2
    assert data.rfind(b"(b)", 0, middle) >= 0 and data.find(b"(c)", middle) > middle
    chunks = split_marked(
        tmp_path / "key.conll", tmp_path / "response.conll", 2, b"begin document ", begin_name
    )
    assert chunks is not None and len(chunks) == 2
    assert data[chunks[1].gold_range[0] :].startswith(b"#begin document (c)")
    assert chunks[1].gold_line == -1  # lines counted only when a chunk warns
    assert scale.numbered(chunks)[1].gold_line == data[: chunks[1].gold_range[0]].count(b"\n")


def test_a_document_left_open_before_a_cut_is_the_error_of_one_run(
    tmp_path: Path, exact: list[bool]
) -> None:
    # chunk 1 ends with document (b) open: alone it would be read to its end with a warning;
    # the whole file reports the next '#begin document' inside it
    def document(name: str, end: bool = True) -> str:
        body = "".join(f"doc 0 {t} w (1)\n" for t in range(5))
        return f"#begin document ({name}); part 000\n{body}" + ("#end document\n" * end)

    key = document("a") + document("b", end=False) + document("c") + document("d")
    response = document("a") + document("b") + document("c") + document("d")
    (tmp_path / "key.conll").write_text(key, encoding="utf-8")
    (tmp_path / "response.conll").write_text(response, encoding="utf-8")
    one = _same("coref", tmp_path / "key.conll", tmp_path / "response.conll", 60)
    assert one.startswith("error: ") and "inside an open document" in one
    assert exact and not any(exact)  # cut, not used
