"""``annoscore spans`` on two single files cut into chunks (:mod:`annoscore.scale`): PubTator
(cut at the first field) and JSON Lines (``prodigy-jsonl``, ``spacy-jsonl``: one document a
line, cut by document id), their warnings pooled as one run makes them
(:mod:`annoscore.tasks.spans_chunks`).  Random adversarial corpora scored with ``--jobs`` 1, 2
and 3 and with one process scoring small chunks one after the other: identical bytes (JSON with
documents, types and averages), warnings and errors included.

The corpora warn on purpose: mentions whose written text differs from the document's (reader
warnings naming file and line), documents whose text differs between the sides, documents on
one side only, repeated mentions, Prodigy lines
whose answer is not ``accept``, documents without an id (named by their line), a side without
concept ids; and they break: a byte-order mark, CRLF line ends, no final newline, a document
twice, a line that is not JSON, offsets outside the text.  Most corpora that only warn are
checked to be really cut (the cut is exact and kept).  ``ANNOSCORE_EQUIVALENCE_CASES``
multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, TypeVar

import pytest

import annoscore.scale as scale
from annoscore.scale.cut_json import split_json_lines
from tests.equivalence.ids import id_pool
from tests.scale.test_lines import MULTIPLIER, _chunks_of, _jobs, _output, _same

T = TypeVar("T")

MODES: list[dict[str, Any]] = [
    {"mode": "strict"},
    {"mode": "overlap", "min_overlap": 0.5},
    {"mode": "semeval"},
    {"mode": "token"},
    {"mode": "concepts"},
    {"mode": "strict", "missing_docs": "ignore"},
    {"mode": "strict", "duplicates": "collapse"},
]

CASES = max(3, int(15 * MULTIPLIER))

WORDS = ["aspirina", "dosis", "de", "mg", "BRCA1", "ñu", "中文", "x"]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _ids(rng: random.Random, n: int, forbidden: str) -> list[str]:
    if rng.random() < 0.4:
        return [str(k) for k in rng.sample(range(1, 10**6), n)]
    pool = [i for i in id_pool(rng, n * 3) if i and i.strip() == i]
    pool = [i for i in dict.fromkeys(pool) if not any(c in i for c in forbidden)]
    rng.shuffle(pool)
    return pool[:n]


def _documents(rng: random.Random, clean: bool) -> list[dict[str, Any]]:
    """Documents of both sides: id, text, and each side's mentions (start, end, type, id,
    written text), ``None`` for a side that lacks the document."""
    out = []
    for name in _ids(rng, rng.randint(2, 30), "|\t\n\r \\\"'"):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 20)))
        gold = []
        for _ in range(rng.randint(0, 5)):
            start = rng.randrange(len(text))
            end = min(len(text), start + rng.randint(1, 8))
            concept = rng.choice(["D1", "D2", "-1"])
            written = text[start:end] if rng.random() < 0.85 else text[start:end] + "?"
            gold.append((start, end, rng.choice(["Chemical", "Gene"]), concept, written))
        if gold and rng.random() < 0.15:
            gold.append(gold[0])  # a repeated mention
        system = [m for m in gold if rng.random() < 0.7]
        if rng.random() < 0.3:
            system.append((0, 1, "Gene", "D1", text[0:1]))
        sides: list[list[Any] | None] = [gold, system]
        if not clean or rng.random() < 0.3:  # a document on one side only
            roll = rng.random()
            if roll < 0.1:
                sides[0] = None
            elif roll < 0.2:
                sides[1] = None
        out.append({"id": name, "texts": (text, _other_text(rng, text)), "sides": sides})
    return out


def _other_text(rng: random.Random, text: str) -> str:
    """The system side's text: mostly the gold side's; else with a space made two (every
    later offset moves: ``spans.text-differs``), a word more at its end (a warning too) or
    spaces after it (the same offsets: no warning)."""
    roll = rng.random()
    if roll < 0.8:
        return text
    if roll < 0.87:
        return text.replace(" ", "  ", 1)
    return text + (" x" if roll < 0.94 else "  ")


def _order(rng: random.Random, lines: list[T], clean: bool) -> list[T]:
    if rng.random() < 0.4:  # sorted by id: the cut is shown exact by the first and last ids
        return lines
    if not clean and rng.random() < 0.3:
        rng.shuffle(lines)
    return lines


def _finish(rng: random.Random, lines: list[str], clean: bool, blank: str = "") -> bytes:
    text = "\n".join(lines) + "\n"
    if not clean:
        roll = rng.random()
        if roll < 0.1:
            text = "\ufeff" + text
        elif roll < 0.2:
            text = text.replace("\n", "\r\n")
        elif roll < 0.3:
            text = text.rstrip("\n")
        elif roll < 0.4:
            text += blank
    return text.encode("utf-8")


def _pubtator(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    documents = _documents(rng, clean)
    if rng.random() < 0.5:
        documents.sort(key=lambda d: d["id"].encode())
    no_ids = rng.random() < 0.2  # a side without concept ids
    for n, name in enumerate(("gold.txt", "system.txt")):
        blocks = []
        for document in documents:
            mentions = document["sides"][n]
            if mentions is None:
                continue
            doc, text = document["id"], document["texts"][n]
            half = len(text) // 2
            lines = [f"{doc}|t|{text[:half]}", f"{doc}|a|{text[half:]}"]
            for a, b, kind, concept, written in mentions:
                tail = "" if no_ids and n == 1 else f"\t{concept}"
                lines.append(f"{doc}\t{a}\t{b}\t{written}\t{kind}{tail}")
            blocks.append(lines)
        if not clean and rng.random() < 0.3 and len(blocks) > 2:  # a document's lines apart
            blocks[-1].append(blocks[0].pop())
        if not clean and rng.random() < 0.05:
            blocks.append(blocks[0])  # a document twice: an error
        if not clean and rng.random() < 0.05:
            blocks[-1].append(f"{documents[0]['id']}\t0\t99999\tx\tGene")  # outside the text
        lines = [line for block in _order(rng, blocks, clean) for line in [*block, ""]]
        (root / name).write_bytes(_finish(rng, lines, clean, "\n\n"))
    return {"gold_format": "pubtator", "system_format": "pubtator"}


def _jsonl(rng: random.Random, root: Path, clean: bool, form: str) -> dict[str, Any]:
    documents = _documents(rng, clean)
    if rng.random() < 0.5:
        documents.sort(key=lambda d: d["id"].encode())
    named = rng.choice(["id", "meta", "_input_hash", "line"])
    if named == "_input_hash":
        for k, document in enumerate(documents):
            document["id"] = str(rng.randrange(-(10**9), 10**9)) if k else "0"
    key = "spans" if form == "prodigy-jsonl" else "ents"
    for n, name in enumerate(("gold.jsonl", "system.jsonl")):
        lines = []
        for document in documents:
            mentions = document["sides"][n]
            if mentions is None and named != "line":
                continue
            item: dict[str, Any] = {"text": document["texts"][n]}
            if named == "id":
                item["id"] = document["id"]
            elif named == "meta":
                item["meta"] = {"id": document["id"], "source": "x"}
            elif named == "_input_hash":
                item["_input_hash"] = int(document["id"])
            spans = []
            for a, b, kind, _concept, written in mentions or []:
                span: dict[str, Any] = {"start": a, "end": b, "label": kind}
                if rng.random() < 0.5:
                    span["text"] = written
                spans.append(span)
            item[key] = spans
            if form == "prodigy-jsonl":
                item["answer"] = "accept" if clean or rng.random() < 0.9 else "reject"
                if rng.random() < 0.3:
                    item["_annotator_id"] = "ann-1"
            if rng.random() < 0.5:
                item = dict(reversed(list(item.items())))  # the id after the text
            lines.append(json.dumps(item, ensure_ascii=rng.random() < 0.5))
        if not clean and rng.random() < 0.05:
            lines.append(lines[0])  # a document twice (or a line-named one): an error or not
        if not clean and rng.random() < 0.05:
            lines.insert(len(lines) // 2, '{"text": "broken"')  # not JSON: an error
        if not clean and rng.random() < 0.05 and lines:
            lines.insert(len(lines) // 2, "")  # a blank line moves the numbers after it
        (root / name).write_bytes(_finish(rng, _order(rng, lines, clean), clean, "\n \n"))
    return {"gold_format": form, "system_format": form}


def _prodigy(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    return _jsonl(rng, root, clean, "prodigy-jsonl")


def _spacy(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    return _jsonl(rng, root, clean, "spacy-jsonl")


WRITERS = {"pubtator": _pubtator, "prodigy-jsonl": _prodigy, "spacy-jsonl": _spacy}


@pytest.mark.parametrize("form", list(WRITERS))
def test_random_span_files_give_the_same_bytes_warnings_included(
    form: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"span-lines-{form}")
    kept = warned = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0  # clean: may warn, never breaks
        options = WRITERS[form](rng, root, clean)
        options.update(rng.choice(MODES))
        gold, system = (
            (root / "gold.txt", root / "system.txt")
            if form == "pubtator"
            else (root / "gold.jsonl", root / "system.jsonl")
        )
        exact.clear()
        one = _same("spans", gold, system, rng.choice([60, 200, 700]), jobs=_jobs(case), **options)
        if clean and not one.startswith("error"):
            warned += '"warnings": [\n' in one
            kept += bool(exact) and all(exact)
    # the warned, clean corpora are really cut and pooled, most of the time
    assert warned >= CASES // 4 and kept >= CASES // 3, (warned, kept)


def test_a_naive_byte_split_would_cut_a_pubtator_document(tmp_path: Path) -> None:
    # the middle byte of the file falls inside document 2's block; the cut moves to its end
    lines = ["1|t|a", "1|a|b", "", "2|t|" + "w " * 50, "2|a|x", "2\t0\t1\tw\tGene", "", "3|t|c"]
    (tmp_path / "g.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = (tmp_path / "g.txt").read_bytes()
    middle = len(data) // 2
    assert data.rfind(b"\n2|t|", 0, middle) >= 0 and data.find(b"\n3|t|", middle) > middle
    chunks = scale.split_lines(tmp_path / "g.txt", tmp_path / "s.txt", 2, b"|\t")
    assert chunks is not None and len(chunks) == 2
    assert data[chunks[1].gold_range[0] :].startswith(b"3|t|")


def test_json_lines_cut_at_the_line_of_the_same_document(tmp_path: Path) -> None:
    # the system lists the documents in another layout (keys in another order, one line more):
    # each system cut is the line of the gold cut's document, found by its id
    gold = [json.dumps({"id": f"d{k}", "text": "abc " * k, "spans": []}) for k in range(1, 30)]
    system = [json.dumps({"spans": [], "text": "abc " * k, "id": f"d{k}"}) for k in range(1, 30)]
    system.insert(3, json.dumps({"id": "extra", "text": "z", "spans": []}))
    (tmp_path / "g.jsonl").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.jsonl").write_text("\n".join(system) + "\n", encoding="utf-8")
    chunks = split_json_lines(tmp_path / "g.jsonl", tmp_path / "s.jsonl", 4)
    assert chunks is not None and len(chunks) == 4
    gold_bytes = (tmp_path / "g.jsonl").read_bytes()
    system_bytes = (tmp_path / "s.jsonl").read_bytes()
    for chunk in chunks[1:]:
        first = json.loads(gold_bytes[chunk.gold_range[0] :].split(b"\n", 1)[0])
        other = json.loads(system_bytes[chunk.system_range[0] :].split(b"\n", 1)[0])
        assert first["id"] == other["id"]
        assert chunk.gold_line == gold_bytes[: chunk.gold_range[0]].count(b"\n")
        assert chunk.system_line == system_bytes[: chunk.system_range[0]].count(b"\n")


def test_documents_named_by_their_line_are_named_as_in_the_whole_file(
    tmp_path: Path, exact: list[bool]
) -> None:
    gold = [json.dumps({"text": "Ann met Bo", "ents": [{"start": 0, "end": 3, "label": "P"}]})]
    gold *= 40
    system = [json.dumps({"text": "Ann met Bo", "ents": [{"start": 4, "end": 7, "label": "P"}]})]
    system *= 40
    (tmp_path / "g.jsonl").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.jsonl").write_text("\n".join(system) + "\n", encoding="utf-8")
    options = {"gold_format": "spacy-jsonl", "system_format": "spacy-jsonl"}
    one = _same("spans", tmp_path / "g.jsonl", tmp_path / "s.jsonl", 300, **options)
    assert '"40": {' in one and exact and all(exact)


def test_a_chunk_of_one_document_a_side_is_not_paired_as_two_files_are(
    tmp_path: Path, exact: list[bool]
) -> None:
    # two files of one document each are that one document (paired_files); a chunk holding
    # gold document 1 alone and system document 9 alone must not be scored so
    gold = "".join(f"{d}|t|Aspirin\n{d}\t0\t7\tAspirin\tChem\n\n" for d in (1, 2, 3, 4))
    system = "9|t|Aspirin\n9\t0\t7\tAspirin\tChem\n\n" + "".join(
        f"{d}|t|Aspirin\n{d}\t0\t7\tAspirin\tChem\n\n" for d in (2, 3, 4)
    )
    (tmp_path / "g.txt").write_text(gold, encoding="utf-8")
    (tmp_path / "s.txt").write_text(system, encoding="utf-8")
    options = {"gold_format": "pubtator", "system_format": "pubtator"}
    with _chunks_of(len(gold) // 4):
        chunks = scale.split_lines(tmp_path / "g.txt", tmp_path / "s.txt", 4, b"|\t")
    assert chunks is not None and chunks[0].system_range[1] > 0
    one = _same("spans", tmp_path / "g.txt", tmp_path / "s.txt", len(gold) // 4, **options)
    assert '"tp": 3' in one and '"fp": 1' in one and '"fn": 1' in one
    assert _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 1, **options) == one


def test_prodigy_answers_reach_every_path(tmp_path: Path, exact: list[bool]) -> None:
    """``--answers`` on random Prodigy corpora whose lines answer accept, reject, ignore or
    nothing: one run, ``--jobs`` 2 and 3 and small chunks give the same bytes (the lines left
    out pooled), and they are those of the same corpus whose kept lines answer ``accept`` and
    the others ``reject``, read with the default (a path keeping only ``accept`` would
    differ)."""
    rng = random.Random("span-lines-answers")
    cut = 0
    for case in range(CASES):
        answers = rng.choice([("accept", "ignore"), ("reject",), ("ignore", "reject", "accept")])
        asked, plain = tmp_path / str(case) / "asked", tmp_path / str(case) / "plain"
        asked.mkdir(parents=True)
        plain.mkdir()
        options = _prodigy(rng, asked, True)
        for name in ("gold.jsonl", "system.jsonl"):
            lines = [json.loads(line) for line in (asked / name).read_text().splitlines()]
            for item in lines:
                item.pop("answer")
                roll = rng.choice(["accept", "reject", "ignore", None])
                if roll is not None:
                    item["answer"] = roll
            (asked / name).write_text("".join(json.dumps(i) + "\n" for i in lines))
            for item in lines:
                item["answer"] = "accept" if item.get("answer", "accept") in answers else "reject"
            (plain / name).write_text("".join(json.dumps(i) + "\n" for i in lines))
        options.update(rng.choice(MODES))
        exact.clear()
        one = _same("spans", asked / "gold.jsonl", asked / "system.jsonl", rng.choice([60, 200]),
                    jobs=_jobs(case), answers=answers, **options)  # fmt: skip
        cut += bool(exact) and all(exact)
        reference = _output("spans", plain / "gold.jsonl", plain / "system.jsonl", 1, **options)
        same = (
            one.replace(str(asked), str(plain))
            .replace("|answers:" + ",".join(answers), "")
            .replace(f"(answer not {' or '.join(answers)})", "(answer not accept)")
        )
        assert same == reference, (case, answers)
    assert cut > 0


def test_one_document_a_side_in_two_chunks_is_paired_as_one_run_pairs_it(
    tmp_path: Path, exact: list[bool]
) -> None:
    """Two files of one document each are that document, whatever their ids (one run); when
    Prodigy lines left out leave one document a side, in two chunks, the chunks are not used
    (they would leave both unpaired)."""

    def line(name: str, answer: str, start: int) -> str:
        spans = [{"start": start, "end": start + 3, "label": "PER"}]
        item = {"id": name, "text": "Ann met Bob", "spans": spans, "answer": answer}
        return json.dumps(item) + "\n"

    gold, system = tmp_path / "gold.jsonl", tmp_path / "system.jsonl"
    gold.write_text(line("a", "accept", 0) + "".join(line(f"r{k}", "reject", 0) for k in range(30)))
    system.write_text(
        "".join(line(f"r{k}", "reject", 0) for k in range(30)) + line("z", "accept", 0)
    )
    one = _same(
        "spans", gold, system, 60, gold_format="prodigy-jsonl", system_format="prodigy-jsonl"
    )
    assert '"tp": 1' in one and "no system file" not in one
    assert exact and not any(exact)
