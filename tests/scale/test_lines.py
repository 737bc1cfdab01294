"""Single files cut at document boundaries (``annoscore.scale.split_lines``): CodiEsp D, P and
X TSV, trec qrels and run.  Random corpora, with ``--jobs`` 1, 2 and 3: identical bytes (JSON with
documents, types and averages, and the official text layout), warnings and errors included.

Adversarial files: ids from ``tests/equivalence/ids.py`` (shared prefixes, last-byte variants,
multi-byte UTF-8, numeric-looking forms), a document's lines not adjacent (a naive cut at a line
would split it), the system in another document order, documents on one side only, duplicates,
a byte-order mark, blank and broken lines, an id that is a prefix of the next document's.  A
clean corpus is checked to be really cut (the cut is exact); any other is scored the same, cut
or not.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.tasks.registry import TASKS
from tests.equivalence.ids import id_pool

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(24 * MULTIPLIER))


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _output(task: str, gold: Path, system: Path, jobs: int, **options: Any) -> str:
    try:
        result = annoscore.score(task, gold, system, jobs=jobs, **options)
    except InputError as error:
        return f"error: {error}"
    text = TASKS[task].text_renderer()
    shown = result.shown(documents=True, types=True, averages=True)
    return render(shown, "json") + (text(result) if text is not None else "")


def _same(
    task: str,
    gold: Path,
    system: Path,
    chunk: int | None = None,
    *,
    jobs: tuple[int, ...] = (2, 3),
    **options: Any,
) -> str:
    """One run's bytes, checked equal to those of each number of ``jobs`` (``--jobs`` 2 and 3;
    a random test's cases take turns, :func:`_jobs`) and, with ``chunk`` (bytes of gold per
    chunk), of one process scoring chunks of that size one after the other (the bounded-memory
    path of ``--jobs 1``)."""
    one = _output(task, gold, system, 1, **options)
    for jobs_n in jobs:
        assert _output(task, gold, system, jobs_n, **options) == one, (task, jobs_n, options)
    if chunk is not None:
        with _chunks_of(chunk):
            assert _output(task, gold, system, 1, **options) == one, (task, chunk)
    return one


def _jobs(case: int) -> tuple[int, ...]:
    """The numbers of jobs a random test's ``case`` is checked with: 2 or 3, in turns of two
    cases (each costs worker processes; over a test's cases both are checked, on clean and on
    faulty corpora alike, as the tests make every other case clean)."""
    return (2 + case // 2 % 2,)


@contextlib.contextmanager
def _chunks_of(size: int) -> Iterator[None]:
    """Chunks of ``size`` bytes of gold (:data:`annoscore.scale.cut_lines.LINE_CHUNK_BYTES`)."""
    saved = scale.cut_lines.LINE_CHUNK_BYTES
    scale.cut_lines.LINE_CHUNK_BYTES = size
    try:
        yield
    finally:
        scale.cut_lines.LINE_CHUNK_BYTES = saved


def _ids(rng: random.Random, n: int, forbidden: str) -> list[str]:
    pool = [i for i in id_pool(rng, n * 2) if i.strip() == i and i]
    pool = [i for i in pool if not any(c in i for c in forbidden)]
    if rng.random() < 0.3 and pool:  # an id that is a prefix of another one
        pool.append(pool[0] + "x")
    rng.shuffle(pool)
    return pool[:n]


def _arranged(
    rng: random.Random, lines: list[tuple[str, str]], clean: bool, ordered: bool
) -> list[str]:
    """The lines of a side, grouped by document (sorted when ``ordered``); in an unclean
    corpus, sometimes a document's lines apart, or the documents in another order."""
    by_doc: dict[str, list[str]] = {}
    for doc, line in lines:
        by_doc.setdefault(doc, []).append(line)
    docs = list(by_doc)
    if ordered:  # sorted: the cut is shown exact by the first and last ids alone
        docs.sort(key=lambda doc: doc.encode())
    if not clean and rng.random() < 0.3:
        rng.shuffle(docs)
    out = [line for doc in docs for line in by_doc[doc]]
    if not clean and rng.random() < 0.3 and len(out) > 2:  # a document's lines apart
        out.append(out.pop(rng.randrange(len(out) - 1)))
    return out


def _codiesp_corpus(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    docs = _ids(rng, rng.randint(2, 40), "\t\n\r\"'")
    codes = [
        f"{rng.choice('abcdz')}{rng.randint(0, 99):02d}.{rng.randint(0, 9)}" for _ in range(30)
    ]
    codes = list(dict.fromkeys(codes))
    gold: list[tuple[str, str]] = []
    pred: list[tuple[str, str]] = []
    for doc in docs:
        mine = rng.sample(codes, rng.randint(1, 6))
        gold += [(doc, c) for c in mine]
        if clean or rng.random() < 0.9:
            guess = [c for c in mine if rng.random() < 0.7] + rng.sample(codes, rng.randint(0, 3))
            pred += [(doc, c) for c in dict.fromkeys(guess)] or [(doc, mine[0])]
    if not clean and rng.random() < 0.3:
        pred.append(("only-in-system", codes[0]))
    gold_lines = [f"{d}\t{c}" for d, c in gold]
    pred_lines = [f"{d}\t{c}" for d, c in pred]
    ordered = rng.random() < 0.5
    gold_text = "\n".join(
        _arranged(rng, list(zip([d for d, _ in gold], gold_lines, strict=True)), clean, ordered)
    )
    pred_text = "\n".join(
        _arranged(rng, list(zip([d for d, _ in pred], pred_lines, strict=True)), clean, ordered)
    )
    if not clean:
        roll = rng.random()
        if roll < 0.1:
            gold_text = "\ufeff" + gold_text
        elif roll < 0.2:
            pred_text += "\nbroken line without a tab"
        elif roll < 0.3:
            pred_text += "\n" + pred_text.partition("\n")[0].upper()  # upper-cased codes
    (root / "gold.tsv").write_text(gold_text + "\n", encoding="utf-8")
    (root / "pred.tsv").write_text(pred_text + "\n", encoding="utf-8")
    valid = [c for c in codes if clean or rng.random() < 0.95]
    (root / "codes.tsv").write_text("\n".join(valid) + "\n", encoding="utf-8")
    return {"codes": root / "codes.tsv"}


TREC_SCORES = ["1.5", "2.0", "0.25", "3.0", "1.0000000001E-1", "1e-1", "1e39", "2E+39", "-1e-46"]
"""Scores that tie in float32 only (``--trec-eval 9.0.8``) among ones that never do."""


def _trec_corpus(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    queries = _ids(rng, rng.randint(2, 40), " \t\n\r\v\f")
    documents = _ids(rng, 30, " \t\n\r\v\f")
    qrels: list[tuple[str, str]] = []
    run: list[tuple[str, str]] = []
    tag = "runA"
    for query in queries:
        judged = rng.sample(documents, rng.randint(1, 8))
        qrels += [(query, f"{query} 0 {d} {rng.choice([0, 1, 1, 2])}") for d in judged]
        if clean or rng.random() < 0.9:
            ranked = rng.sample(documents, rng.randint(1, 10))
            run += [
                (query, f"{query} Q0 {d} {k} {rng.choice(TREC_SCORES)} {tag}")
                for k, d in enumerate(ranked)
            ]
    if not clean and rng.random() < 0.2:
        run.append(("unjudged", f"unjudged Q0 {documents[0]} 0 1.0 {tag}"))
    if not clean and rng.random() < 0.1:
        run.append((queries[-1], f"{queries[-1]} Q0 {documents[-1]} 9 0.5 otherTag"))
    ordered = rng.random() < 0.5
    qrels_text = "\n".join(_arranged(rng, qrels, clean, ordered))
    run_text = "\n".join(_arranged(rng, run, clean, ordered))
    if not clean and rng.random() < 0.1:
        run_text += "\nbroken"
    if not clean and rng.random() < 0.5:  # comments (trec_eval master's), a cut may fall on one
        qrels_text, run_text = (_commented(rng, text) for text in (qrels_text, run_text))
    (root / "qrels").write_text(qrels_text + "\n", encoding="utf-8")
    (root / "run").write_text(run_text + "\n", encoding="utf-8")
    return {}


def _commented(rng: random.Random, text: str) -> str:
    """``text`` with comment lines among its lines (``#`` first: skipped), a run of them now
    and then, one that looks like a line of the file."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 6)):
        comment = rng.choice(["#", "# tuned on 2019", "#q 0 d 1", "# x y z w v u"])
        at = rng.randrange(len(lines) + 1)
        lines[at:at] = [comment] * rng.choice([1, 1, 3])
    return "\n".join(lines)


def _codiesp_x_corpus(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    docs = _ids(rng, rng.randint(2, 30), "\t\n\r\"'")
    codes = list(dict.fromkeys(f"{rng.choice('abz')}{rng.randint(0, 30):02d}" for _ in range(20)))
    gold: list[tuple[str, str]] = []
    pred: list[tuple[str, str]] = []
    for doc in docs:
        for code in rng.sample(codes, rng.randint(1, 5)) if clean else rng.choices(codes, k=3):
            start = rng.randint(0, 500)
            end = start + rng.randint(1, 20)
            label = rng.choice(["DIAGNOSTICO", "PROCEDIMIENTO"])
            gold.append((doc, f"{doc}\t{label}\t{code}\tsome text\t{start} {end}"))
            if clean or rng.random() < 0.8:
                shift = rng.choice([0, 0, 900] if clean else [0, 3, 15])
                pred.append((doc, f"{doc}\t{start + shift} {end + shift}\t{label}\t{code}"))
        if not pred or pred[-1][0] != doc:
            pred.append((doc, f"{doc}\t0 1\tDIAGNOSTICO\t{codes[0]}"))
    ordered = rng.random() < 0.5
    (root / "gold.tsv").write_text(
        "\n".join(_arranged(rng, gold, clean, ordered)) + "\n", encoding="utf-8"
    )
    (root / "pred.tsv").write_text(
        "\n".join(_arranged(rng, pred, clean, ordered)) + "\n", encoding="utf-8"
    )
    (root / "d.tsv").write_text("\n".join(c for c in codes if c < "b") + "\n", encoding="utf-8")
    (root / "p.tsv").write_text("\n".join(c for c in codes if c >= "b") + "\n", encoding="utf-8")
    return {"codes_d": root / "d.tsv", "codes_p": root / "p.tsv"}


def _pubtator_corpus(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    """PubTator files of the same documents (ids of digits, as PMIDs, or adversarial ones
    without ``|``), for ``spans`` with both formats named."""
    words = ["aspirina", "dosis", "de", "mg", "BRCA1", "ñu", "中文"]
    if rng.random() < 0.5:
        docs = [str(n) for n in rng.sample(range(1, 10**6), rng.randint(2, 30))]
    else:
        docs = _ids(rng, rng.randint(2, 30), "|\t\n\r ")
    gold: list[tuple[str, str]] = []
    system: list[tuple[str, str]] = []
    for doc in docs:
        title = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        abstract = " ".join(rng.choice(words) for _ in range(rng.randint(1, 20)))
        text = f"{title} {abstract}"
        head = [f"{doc}|t|{title}", f"{doc}|a|{abstract}"]
        mentions = []
        for _ in range(rng.randint(0, 5)):
            start = rng.randrange(len(text))
            end = min(len(text), start + rng.randint(1, 8))
            mentions.append((start, end, rng.choice(["Chemical", "Gene"])))
        guessed = [m for m in mentions if rng.random() < 0.7]
        guessed += [(0, 1, "Gene")] if rng.random() < 0.3 else []
        for side, found in ((gold, mentions), (system, guessed)):
            lines = head + [f"{doc}\t{a}\t{b}\t{text[a:b]}\t{t}\tX" for a, b, t in found]
            side.extend((doc, line) for line in [*lines, ""])
    ordered = rng.random() < 0.5
    for name, side in (("gold.txt", gold), ("system.txt", system)):
        (root / name).write_text(
            "\n".join(_arranged(rng, side, clean, ordered)) + "\n", encoding="utf-8"
        )
    return {"gold_format": "pubtator", "system_format": "pubtator"}


CORPORA: dict[str, tuple[Callable[..., dict[str, Any]], str, str]] = {
    "codiesp-d": (_codiesp_corpus, "gold.tsv", "pred.tsv"),
    "codiesp-p": (_codiesp_corpus, "gold.tsv", "pred.tsv"),
    "codiesp-x": (_codiesp_x_corpus, "gold.tsv", "pred.tsv"),
    "trec": (_trec_corpus, "qrels", "run"),
    "spans": (_pubtator_corpus, "gold.txt", "system.txt"),
}

SPAN_MODES: list[dict[str, Any]] = [
    {"mode": "strict"},
    {"mode": "overlap", "min_overlap": 0.5},
    {"mode": "semeval"},
    {"mode": "token"},
    {"mode": "strict", "missing_docs": "ignore"},
]

TREC_OPTIONS: list[dict[str, Any]] = [
    {},
    {"measures": ("all_trec",)},
    {"complete": True, "relevance_level": 2},
    {"measures": ("map", "P.5", "ndcg_cut.10", "relstring"), "max_docs": 5},
    {"judged_only": True, "measures": ("gm_map", "bpref")},
    {"measures": ("all_trec",), "trec_eval": "9.0.8"},
    {"judged_only": True, "measures": ("official", "11pt_avg"), "trec_eval": "9.0.8"},
]


@pytest.mark.parametrize("task", list(CORPORA))
def test_random_single_files_give_the_same_bytes_with_1_2_and_3_jobs(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    write, gold_name, system_name = CORPORA[task]
    rng = random.Random(f"lines-{task}")
    clean_cut = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        options = write(rng, root, clean)
        if task == "trec":
            options = dict(rng.choice(TREC_OPTIONS))
        elif task == "spans":
            options.update(rng.choice(SPAN_MODES))
        elif rng.random() < 0.3 and task != "codiesp-x":
            options["lowercase"] = False
        exact.clear()
        chunk = rng.choice([64, 300, 1000])
        _same(task, root / gold_name, root / system_name, chunk, jobs=_jobs(case), **options)
        if clean:
            clean_total += 1
            clean_cut += all(exact) and len(exact) == 2  # --jobs 2 or 3, and 1 in chunks
    # a clean corpus of two documents or more is really cut, most of the time
    assert clean_cut >= clean_total // 2, (clean_cut, clean_total)


def test_a_document_whose_lines_are_apart_is_never_split(tmp_path: Path, exact: list[bool]) -> None:
    # a naive cut at the middle line would put d1 in both chunks
    gold = "".join(f"d1\tc{n:02d}\n" for n in range(20)) + "d2\tc01\n" + "d1\tc99\n"
    pred = "d1\tc01\nd1\tc99\nd2\tc01\n"
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "p.tsv").write_text(pred, encoding="utf-8")
    codes = "".join(f"c{n:02d}\n" for n in range(100))
    (tmp_path / "codes.tsv").write_text(codes, encoding="utf-8")
    one = _same("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", codes=tmp_path / "codes.tsv")
    assert '"d1"' in one
    assert exact == [False, False]  # cut, found not exact, scored in one run


def test_cuts_fall_on_the_first_line_of_a_document(tmp_path: Path) -> None:
    gold = "".join(f"doc{n % 7}\tc{n}\n" for n in sorted(range(700), key=lambda n: n % 7))
    pred = "".join(f"doc{n}\tc{n}\n" for n in range(7))
    (tmp_path / "g").write_text(gold, encoding="ascii")
    (tmp_path / "p").write_text(pred, encoding="ascii")
    chunks = scale.split_lines(tmp_path / "g", tmp_path / "p", 4)
    assert chunks is not None and len(chunks) >= 2
    data = gold.encode()
    for chunk in chunks[1:]:
        start = chunk.gold_range[0]
        assert data[start - 1 : start] == b"\n"
        key = data[start:].split(b"\t", 1)[0]
        assert data[: start - 1].rsplit(b"\n", 1)[-1].split(b"\t", 1)[0] != key
        system_start = chunk.system_range[0]
        assert pred.encode()[system_start:].startswith(key + b"\t")
    assert chunks[0].gold_range[0] == 0 and chunks[-1].gold_range[1] == len(data)


def test_an_error_in_a_chunk_is_the_error_of_one_run(tmp_path: Path) -> None:
    gold = "".join(f"d{n}\tc{n}\n" for n in range(50))
    pred = "".join(f"d{n}\tc{n}\n" for n in range(50)) + "d49\n"  # no tab, in the last chunk
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "p.tsv").write_text(pred, encoding="utf-8")
    (tmp_path / "codes.tsv").write_text("".join(f"c{n}\n" for n in range(50)), encoding="utf-8")
    one = _same("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", codes=tmp_path / "codes.tsv")
    assert one.startswith("error: ") and "p.tsv" in one and ":51" in one


def test_ids_that_the_map_script_reads_as_one_number_are_never_in_two_chunks(
    tmp_path: Path, exact: list[bool]
) -> None:
    # every id looks like an integer: pandas reads 0000042 and +42 as one document 42
    gold = "".join(f"{doc}\tc{n:02d}\n" for doc in ("0000042", "7", "+42") for n in range(9))
    pred = "".join(f"{doc}\tc{n:02d}\n" for doc in ("0000042", "7", "+42") for n in range(0, 9, 2))
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "p.tsv").write_text(pred, encoding="utf-8")
    (tmp_path / "codes.tsv").write_text("".join(f"c{n:02d}\n" for n in range(9)), "utf-8")
    chunks = scale.split_lines(tmp_path / "g.tsv", tmp_path / "p.tsv", 3)
    assert chunks is not None and len(chunks) == 3
    _same("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", codes=tmp_path / "codes.tsv")
    assert exact and not any(exact)  # cut, found not exact, scored in one run


def test_a_chunk_in_error_ends_the_cut_run_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    # 40 documents in chunks of about 2; the second document's mention ends past its text (an
    # error): one process scores the chunks up to its own, stops there, and scores the input in
    # one run (which reports the error); with 2 jobs the chunks not yet begun are skipped
    lines = []
    for doc in range(1, 41):
        end = 7 if doc != 2 else 700
        mention = f"{doc}\t0\t{end}\tAspirin\tChem\tX"
        lines += [f"{doc}|t|Aspirin works", f"{doc}|a|well", mention, ""]
    (tmp_path / "g.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = {"gold_format": "pubtator", "system_format": "pubtator"}
    scored: list[scale.LineChunk] = []
    original = scale.score_line_chunk

    def counted(task: str, chunk: scale.LineChunk, *args: Any) -> scale.Part:
        scored.append(chunk)
        return original(task, chunk, *args)

    monkeypatch.setattr(scale, "score_line_chunk", counted)
    one = _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 1, **options)
    assert one.startswith("error: ") and ":7" in one and not scored and not exact
    with _chunks_of(150):
        chunks = scale.split_lines(tmp_path / "g.txt", tmp_path / "s.txt", 1, b"|\t")
        assert chunks is not None and len(chunks) > 10
        assert _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 1, **options) == one
        at = (tmp_path / "g.txt").read_bytes().index(b"\t700\t")
        failed = next(k for k, c in enumerate(chunks) if c.gold_range[0] <= at < c.gold_range[1])
        assert [c.gold_range for c in scored] == [c.gold_range for c in chunks[: failed + 1]]
        assert exact == [False]
        for jobs in (2, 3):  # the workers skip the chunks not yet begun
            assert _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", jobs, **options) == one


def test_warned_span_chunks_are_pooled_as_one_run_warns(tmp_path: Path, exact: list[bool]) -> None:
    # every fifth document's mention differs from its text (a reader warning naming the file
    # and line), documents on one side only, repeated mentions: the cut is kept and the
    # warnings are one run's, lines numbered as in the whole file
    gold, system = [], []
    for doc in range(1, 41):
        mention = "Aspirin" if doc % 5 else "Aspirine"
        block = [f"{doc}|t|Aspirin works", f"{doc}|a|well", f"{doc}\t0\t7\t{mention}\tChem\tX"]
        if doc % 7 == 0:
            block.append(block[-1])
        if doc % 9:
            gold += [*block, ""]
        if doc % 11:
            system += [*block, ""]
    (tmp_path / "g.txt").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("\n".join(system) + "\n", encoding="utf-8")
    options = {"gold_format": "pubtator", "system_format": "pubtator"}
    one = _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 1, **options)
    assert "Aspirine" in one and "more such reader warnings" in one and "repeat" in one
    assert "g.txt:36:" in one  # document "10" (the first in sorted order): its mention line
    for size in (150, 400):
        exact.clear()
        with _chunks_of(size):
            assert _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 1, **options) == one
            assert _output("spans", tmp_path / "g.txt", tmp_path / "s.txt", 2, **options) == one
        assert exact == [True, True]


def test_find_line_equals_a_line_by_line_search_on_random_files() -> None:
    """``_find_line`` (one search for the key, each hit checked for a separator) equals reading
    every line from ``after`` on: ids that are prefixes of others, both separators, a key at the
    file's start and end, a key with no separator after it."""
    rng = random.Random(31)
    keys = [b"q1", b"q10", b"q1x", b"1", b"", b"d\xc3\xa9", b"q"]

    def plain(data: bytes, key: bytes, separators: bytes, after: int) -> int:
        starts = [0] + [k + 1 for k in range(len(data)) if data[k : k + 1] == b"\n"]
        for start in starts:
            rest = data[start + len(key) : start + len(key) + 1]
            if start >= after and data[start:].startswith(key) and rest and rest[0] in separators:
                return start
        return -1

    for _ in range(int(3000 * MULTIPLIER)):
        lines = [
            rng.choice(keys) + rng.choice([b" ", b"\t", b"", b"0"]) + rng.choice([b"a", b""])
            for _ in range(rng.randrange(0, 8))
        ]
        data = b"\n".join(lines) + rng.choice([b"\n", b""])
        key = rng.choice([k for k in keys if k])
        separators = rng.choice([b" ", b"\t", b" \t", b"\t "])
        after = rng.randrange(0, len(data) + 2)
        expected = plain(data, key, separators, after)
        assert scale.cut_lines._find_line(data, key, separators, after) == expected, (
            data,
            key,
            after,
        )
