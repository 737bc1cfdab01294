"""``annoscore conlleval`` on two CoNLL tag files cut before documents (:mod:`annoscore.scale.
cut_tags`): random adversarial files scored with ``--jobs`` 1, 2 and 3 and with one process
scoring small chunks one after the other give identical bytes (JSON with documents and types,
and conlleval's own layout), warnings and errors included.

The files warn (carriage returns, bare labels, IOBES tags, ``-DOCSTART-`` tokens, a byte-order
mark: counts and the first examples, with their lines, as one run gives them) and are
adversarial: ``-DOCSTART-`` lines without a name (named by their place in the file) or named,
after a blank line or inside a sentence, tagged other than ``O``; runs of blank lines and
``-X-`` lines; tokens before the first ``-DOCSTART-``; a phrase open at a document's end;
tabs as the delimiter.  They break: a document named twice, a line with another number of
fields in a later document, the system's tokens unlike the gold's, the system's documents in
another order.  Most clean files are checked to be really cut.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of files (default 1).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.scale.cut_tags import pooled_in_order, split_tag_files
from annoscore.score_warnings import ScoreWarning
from tests.scale.test_lines import MULTIPLIER, _output, _same

CASES = max(3, int(16 * MULTIPLIER))

WORDS = ["John", "lives", "in", "New", "York", "-DOCSTART-", "-X-", "ñu", "O", "a|b"]
TYPES = ["PER", "LOC", "ORG"]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _tags(rng: random.Random, n: int, scheme: str) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        if rng.random() < 0.5:
            out.append("O")
            continue
        kind = rng.choice(TYPES)
        size = min(n - len(out), rng.randint(1, 3))
        if scheme == "iobes" and size == 1:
            out.append(f"S-{kind}")
        elif scheme == "iobes":
            out += [f"B-{kind}"] + [f"I-{kind}"] * (size - 2) + [f"E-{kind}"]
        else:
            out += [f"B-{kind}"] + [f"I-{kind}"] * (size - 1)
    return out


def _guess(rng: random.Random, tags: list[str], clean: bool) -> list[str]:
    out = []
    for tag in tags:
        roll = rng.random()
        if roll < 0.1:
            tag = "O"
        elif roll < 0.2:
            tag = f"{rng.choice('BI')}-{rng.choice(TYPES)}"
        elif roll < 0.22 and not clean:
            tag = rng.choice(["PER", "S-LOC"])  # bare, IOBES
        out.append(tag)
    return out


def _files(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    """Gold and system files (4 fields: token, POS, chunk, tag) of a few documents."""
    sep = "\t" if rng.random() < 0.2 else " "
    scheme = "iobes" if rng.random() < 0.15 else "iob"
    named = rng.random() < 0.3
    gold: list[str] = []
    system: list[str] = []
    blocks: list[tuple[list[str], list[str]]] = []
    if rng.random() < 0.2:  # tokens before the first -DOCSTART-
        blocks.append(([], []))
    for d in range(rng.randint(2, 25)):
        tag = "O" if rng.random() < 0.9 else "B-PER"
        name = f"doc-{d}" if named else "-X-"
        head = f"-DOCSTART-{sep}{name}{sep}-X-{sep}{tag}"
        g, s = [head], [head]
        blank = "" if rng.random() < 0.9 else f"-X-{sep}-X-{sep}-X-{sep}O"
        g.append(blank)
        s.append(blank)
        blocks.append((g, s))
    for d, (g, s) in enumerate(blocks):
        for _ in range(rng.randint(0 if g else 1, 4)):
            n = rng.randint(1, 8)
            tags = _tags(rng, n, scheme)
            guess = _guess(rng, tags, clean)
            for k in range(n):
                word = rng.choice(WORDS)
                pos, chunk = rng.choice(["NNP", "IN", "-X-"]), "I-NP"
                if word == "-DOCSTART-" and named:  # a document inside a sentence
                    pos = f"inner-{len(g)}-{d}"
                elif word == "-DOCSTART-":
                    pos = chunk = "-X-"
                g.append(f"{word}{sep}{pos}{sep}{chunk}{sep}{tags[k]}")
                s.append(f"{word}{sep}{pos}{sep}{chunk}{sep}{guess[k]}")
            if rng.random() < 0.15:  # a phrase open at the document's end, or a run of blanks
                continue
            extra = [""] * rng.choice([1, 1, 1, 2, 3])
            g += extra
            s += extra
    if not clean:
        roll = rng.random()
        if roll < 0.1 and len(blocks) > 3 and named:  # a document named twice
            blocks[2][0][0] = blocks[1][0][0]
            blocks[2][1][0] = blocks[1][1][0]
        elif roll < 0.2 and len(blocks) > 3:  # another number of fields in a later document
            k = len(blocks) - 1
            blocks[k][1].append(f"x{sep}O")
        elif roll < 0.3 and len(blocks) > 3:  # the system's tokens unlike the gold's
            k = len(blocks) // 2
            blocks[k][1].insert(len(blocks[k][1]) // 2, f"zz{sep}NN{sep}I-NP{sep}O")
        elif roll < 0.4 and named and len(blocks) > 3:  # the system's documents reordered
            system_blocks = [s for _, s in blocks]
            rng.shuffle(system_blocks)
            blocks = [(g, s) for (g, _), s in zip(blocks, system_blocks, strict=True)]
        elif roll < 0.5 and len(blocks) > 2:  # -DOCSTART- inside a sentence, not after a blank
            k = len(blocks) // 2
            g, s = blocks[k]
            if g and g[-1] == "":
                g.pop()
                s.pop()
    for g, s in blocks:
        gold += g
        system += s
    texts = ["\n".join(gold) + "\n", "\n".join(system) + "\n"]
    if not clean:
        roll = rng.random()
        if roll < 0.1:
            texts = ["\ufeff" + t for t in texts]
        elif roll < 0.15:
            texts[1] = texts[1].replace("\n", "\r\n", 3)
    for name, text in zip(("gold.conll", "system.conll"), texts, strict=True):
        (root / name).write_text(text, encoding="utf-8")
    options: dict[str, Any] = {"delimiter": "\\t"} if sep == "\t" else {}
    if rng.random() < 0.15:
        options["raw"] = True
    return options


def test_random_tag_files_give_the_same_bytes_warnings_included(
    tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random("tag-cuts")
    kept = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0
        options = _files(rng, root, clean)
        exact.clear()
        one = _same(
            "conlleval",
            root / "gold.conll",
            root / "system.conll",
            rng.choice([100, 300, 1000]),
            **options,
        )
        if clean:
            assert not one.startswith("error"), one
            clean_total += 1
            kept += bool(exact) and all(exact)
    assert kept >= clean_total // 2, (kept, clean_total)


def _document(k: int, tags: str = "B-PER I-PER O") -> list[str]:
    words = ["John", "Smith", "runs"]
    return ["-DOCSTART- -X- -X- O", ""] + [
        f"{w} NNP I-NP {t}" for w, t in zip(words, tags.split(), strict=True)
    ] + [""]  # fmt: skip


def test_cuts_fall_before_a_docstart_after_a_blank_line_in_both_files(tmp_path: Path) -> None:
    gold = [line for k in range(12) for line in _document(k)]
    system = [line for k in range(12) for line in _document(k, "B-PER O O")]
    gold[14 : 14 + 1] = ["-DOCSTART- -X- -X- I-PER"]  # inside a sentence: never a cut
    system[14 : 14 + 1] = ["-DOCSTART- -X- -X- I-PER"]
    (tmp_path / "g.conll").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.conll").write_text("\n".join(system) + "\n", encoding="utf-8")
    chunks = split_tag_files(tmp_path / "g.conll", tmp_path / "s.conll", 5)
    assert chunks is not None and len(chunks) == 5
    data = (tmp_path / "g.conll").read_bytes(), (tmp_path / "s.conll").read_bytes()
    for before, chunk in itertools.pairwise(chunks):
        for side, (start, _) in zip(data, (chunk.gold_range, chunk.system_range), strict=True):
            assert side[start - 2 : start + 10] == b"\n\n-DOCSTART-"
        assert chunk.gold_line == data[0][: chunk.gold_range[0]].count(b"\n")
        assert chunk.gold_line == chunk.system_line
        assert chunk.gold_wrap is not None and before.gold_wrap is not None
        documents = data[0][before.gold_range[0] : before.gold_range[1]].count(b"-DOCSTART-")
        assert chunk.gold_wrap.documents == before.gold_wrap.documents + documents
    one = _same("conlleval", tmp_path / "g.conll", tmp_path / "s.conll", 200)
    assert '"12": {' in one


def test_documents_without_a_name_are_named_by_their_place_in_the_whole_file(
    tmp_path: Path, exact: list[bool]
) -> None:
    gold = ["Mary NNP I-NP B-PER", ""] + [line for k in range(30) for line in _document(k)]
    system = ["Mary NNP I-NP O", ""] + [
        line for k in range(30) for line in _document(k, "B-PER I-PER B-LOC")
    ]
    (tmp_path / "g.conll").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.conll").write_text("\n".join(system) + "\n", encoding="utf-8")
    exact.clear()
    one = _same("conlleval", tmp_path / "g.conll", tmp_path / "s.conll", 150)
    assert exact and all(exact)
    assert '"0": {' in one and '"30": {' in one and "-DOCSTART- lines" in one


def test_later_documents_with_other_fields_are_the_error_of_one_run(tmp_path: Path) -> None:
    # the last documents' lines have three fields, the first ones' four: each chunk alone
    # reads, the whole file is an error; so is the cut
    for first in range(14, 26):  # one of them is cut where the fields change
        lines = [line for k in range(first) for line in _document(k)]
        lines += [
            line.replace(" I-NP", "").replace(" -X- -X-", " -X-")
            for k in range(40 - first)
            for line in _document(k)
        ]
        text = "\n".join(lines) + "\n"
        (tmp_path / "g.conll").write_text(text, encoding="utf-8")
        (tmp_path / "s.conll").write_text(text, encoding="utf-8")
        one = _same("conlleval", tmp_path / "g.conll", tmp_path / "s.conll", 150)
        assert one.startswith("error") and "number of features" in one


def test_a_docstart_the_reader_does_not_see_is_not_counted_as_a_document(
    tmp_path: Path, exact: list[bool]
) -> None:
    # "-DOCSTART-\tx" is a token of a document when the delimiter is one space: the bytes show
    # one -DOCSTART- line more than the reader finds, and the chunks after it would name their
    # documents one place off; the chunks' readers show it, and the input is scored in one run
    lines = [line for k in range(30) for line in _document(k)]
    lines.insert(14, "-DOCSTART-\tx -X- -X- O")
    text = "\n".join(lines) + "\n"
    (tmp_path / "g.conll").write_text(text, encoding="utf-8")
    (tmp_path / "s.conll").write_text(text, encoding="utf-8")
    exact.clear()
    one = _same("conlleval", tmp_path / "g.conll", tmp_path / "s.conll", 150)
    assert '"30": {' in one and '"31": {' not in one
    exact.clear()
    assert _output("conlleval", tmp_path / "g.conll", tmp_path / "s.conll", 2) == one
    assert exact == [False]


def test_a_first_chunk_without_docstart_in_files_named_otherwise_is_scored_in_one_run(
    tmp_path: Path, exact: list[bool]
) -> None:
    # the tokens before the first -DOCSTART- alone in the first chunk: each side reads it as
    # one document named after its file (paired by position); the whole file names it "0"
    gold = ["Mary NNP I-NP B-PER", ""] * 20 + [line for k in range(4) for line in _document(k)]
    system = ["Mary NNP I-NP O", ""] * 20 + [
        line for k in range(4) for line in _document(k, "B-PER I-PER B-LOC")
    ]
    (tmp_path / "g.conll").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.conll").write_text("\n".join(system) + "\n", encoding="utf-8")
    chunks = split_tag_files(tmp_path / "g.conll", tmp_path / "s.conll", 2)
    assert chunks is not None and chunks[0].gold_range[1] == 20 * len("Mary NNP I-NP B-PER\n\n")
    for task in ("conlleval", "seqeval"):
        exact.clear()
        one = _same(task, tmp_path / "g.conll", tmp_path / "s.conll", 200)
        assert '"0": {' in one and '"4": {' in one and '"g.conll": {' not in one
        assert exact and not any(exact)


def test_pooled_tag_warnings_decline_an_unknown_code_and_a_later_byte_order_mark() -> None:
    """The chunks' warnings pool only when each is of a code the task orders (one it does not
    would be dropped) and a byte-order mark is the first chunk's (later, it is text of a line
    that one run reads otherwise): else ``None``, the input scored in one run."""
    from dataclasses import replace

    def first(code: str, count: int, examples: tuple[str, ...]) -> None:
        return None  # (the first chunk's warning, with the pooled count and examples)

    known = ScoreWarning("a", "{count} a", 1, ("f:1",))
    later = ScoreWarning("a", "{count} a", 2, ("f:9", "f:12"))
    bom = ScoreWarning("formats.bom", "{count} mark", 1, ("f",))
    pooled = pooled_in_order([[bom, known], [later]], ["formats.bom", "a"], first)
    assert pooled == [bom, replace(known, count=3, examples=("f:1", "f:9", "f:12"))]
    assert pooled_in_order([[known], [ScoreWarning("b", "b")]], ["a"], first) is None
    assert pooled_in_order([[known], [bom]], ["formats.bom", "a"], first) is None
