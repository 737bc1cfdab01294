"""trec cut at query boundaries with warnings, pooled (:mod:`annoscore.tasks.trec_chunks`):
random adversarial qrels and run files scored with ``--jobs 2`` and one process scoring small
chunks one after the other give the bytes of one run (JSON with documents, and trec_eval's
text layout), and the cut is kept when the chunks' warnings pool and dropped when one does
not.

Every warning trec gives, sprinkled at random places, several per chunk, on both sides, more
examples than one run shows: a byte-order mark, comment lines, ids that are not UTF-8, blank
lines, decimal relevances, run lines of more than six fields, queries of the run without
judgments, duplicate judgments, queries without a judged document under ``-J`` with trec_eval
9.0.8 (lines numbered as in the whole file).  In some corpora one warning that cannot be
pooled: judged queries not in the run (its message quotes the whole corpus's MAP).
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.score_warnings import ScoreWarning, merge_warnings, note
from annoscore.tasks.trec_chunks import Kept, pooled, unjudged_text
from tests.scale.test_lines import MULTIPLIER, _ids, _same

CASES = max(6, int(18 * MULTIPLIER))

POOLED = (
    "bom",
    "comment",
    "blank",
    "decimal",
    "extra",
    "unjudged",
    "duplicate",
    "nan",
)
"""The warnings a chunk may give and still be used (their kinds as the generator names them)."""

DECLINED = ("missing", "non-utf8")
"""The warnings that make the input be scored in one run: judged queries not in the run (a
MAP of the whole corpus), ids that are not UTF-8 (one run orders the queries by their bytes)."""

CODES = {
    "bom": "formats.bom",
    "comment": "trec.comment-line",
    "non-utf8": "trec.non-utf8",
    "blank": "trec.blank-line",
    "decimal": "trec.decimal-relevance",
    "extra": "trec.extra-fields",
    "duplicate": "trec.duplicate-judgments",
    "nan": "trec.nan-in-9.0.8",
}


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _sprinkled(rng: random.Random, blocks: list[list[bytes]], extra: list[bytes]) -> None:
    """``extra`` lines put between the ``blocks`` of lines (the queries: a cut may fall before
    one; one inside a query's lines may make the query be in two chunks: not exact) at random
    places, one or two at a time."""
    for _ in range(len(blocks) // 4 + 1):
        at = rng.randrange(len(blocks) + 1)
        blocks[at:at] = [[rng.choice(extra)] * rng.choice([1, 1, 2])]


def _corpus(rng: random.Random, root: Path, kinds: set[str]) -> dict[str, Any]:
    """A qrels and a run file (``root``/qrels, ``root``/run) warning of ``kinds``; the options
    to score them with."""
    names = [i for i in _ids(rng, rng.randint(6, 30), " \t\n\r\v\f") if i[:1] not in "#\ufeff"]
    queries = [n.encode() for n in dict.fromkeys(names)]
    documents = [d.encode() for d in _ids(rng, 40, " \t\n\r\v\f")]
    if "non-utf8" in kinds:  # bytes that are not UTF-8 in some ids (shown as \x escapes)
        queries = [
            q + b"\xff" if k == 0 or rng.random() < 0.2 else q for k, q in enumerate(queries)
        ]
        documents = [d + b"\xfe\x80" if rng.random() < 0.2 else d for d in documents]
    qrels: list[list[bytes]] = []  # the lines of each query
    run: list[list[bytes]] = []
    no_judged = {q for q in queries if "nan" in kinds and rng.random() < 0.3}
    for k, query in enumerate(queries):
        judged = rng.sample(documents, rng.randint(1, 8))
        qrels.append([])
        for document in judged:
            relevance = rng.choice([b"0", b"1", b"1", b"2", b"-1"])
            if "decimal" in kinds and rng.random() < 0.2:
                relevance = rng.choice([b"1.0", b"2.5", b"0.9"])
            qrels[-1].append(b"%s 0 %s %s" % (query, document, relevance))
            if "duplicate" in kinds and rng.random() < 0.15:  # judged again: the last wins
                qrels[-1].append(b"%s 0 %s %s" % (query, document, rng.choice([b"0", b"2"])))
        if "missing" in kinds and (k == len(queries) // 2 or rng.random() < 0.1):
            continue  # a judged query not in the run
        if query in no_judged:  # nothing judged retrieved: nan in 9.0.8 with -J
            ranked = [b"unjudged-%d" % n for n in range(rng.randint(1, 4))]
        else:
            ranked = rng.sample(documents, rng.randint(1, 10))
        run.append([])
        for rank, document in enumerate(ranked):
            score = rng.choice([b"1", b"0.5", b"-2.25", b"3e-2", b"7"])
            line = b"%s Q0 %s %d %s runA" % (query, document, rank, score)
            if "extra" in kinds and rng.random() < 0.15:
                line += rng.choice([b" x", b" x y z"])
            run[-1].append(line)
        if "unjudged" in kinds and rng.random() < 0.25:  # a query of the run only
            run.append([b"only-run-%d Q0 %s 0 1 runA" % (k, documents[0])])
    for blocks in (qrels, run):
        if "blank" in kinds:
            _sprinkled(rng, blocks, [b"", b" ", b"\t"])
        if "comment" in kinds:  # a header, and comments between queries (never cut at)
            blocks.insert(0, rng.sample([b"#", b"# tuned", b"#q 0 d 1"], rng.randint(1, 2)))
            _sprinkled(rng, blocks, [b"#", b"# tuned", b"#q 0 d 1", b"#" + blocks[-1][0]])
    texts = [b"\n".join(line for b in side for line in b) + b"\n" for side in (qrels, run)]
    if "bom" in kinds:
        side = rng.choice([[0], [1], [0, 1]])
        texts = [b"\xef\xbb\xbf" + t if n in side else t for n, t in enumerate(texts)]
    (root / "qrels").write_bytes(texts[0])
    (root / "run").write_bytes(texts[1])
    options: dict[str, Any] = {}
    if "nan" in kinds:
        options = {"judged_only": True, "measures": ("official", "11pt_avg")}
        if "comment" not in kinds:  # 9.0.8 reads a comment as a line of data
            options["trec_eval"] = "9.0.8"
    if rng.random() < 0.3:
        options["measures"] = ("map", "P.5", "relstring")
    if "missing" in kinds and rng.random() < 0.5:
        options["complete"] = True
    return options


@pytest.mark.parametrize("jobs", [1, 2])
def test_warned_trec_chunks_give_the_bytes_of_one_run(
    jobs: int, tmp_path: Path, exact: list[bool]
) -> None:
    """Random warned qrels and run files: the bytes of one run, with ``--jobs 2`` or by chunks
    with ``--jobs 1``; the cut kept unless a judged query is not in the run."""
    rng = random.Random(f"trec-warnings-{jobs}")
    kept = 0
    seen: set[str] = set()
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        kinds = {k for k in POOLED if rng.random() < 0.5}
        pools = case % 3 != 2
        if not pools:
            kinds.add(rng.choice(DECLINED))
        options = _corpus(rng, root, kinds)
        exact.clear()
        chunk = rng.choice([80, 200, 500])
        one = _same(
            "trec",
            root / "qrels",
            root / "run",
            chunk if jobs == 1 else None,
            jobs=(jobs,) if jobs > 1 else (),
            **options,
        )
        assert not one.startswith("error"), (case, one)
        warned = annoscore.score("trec", root / "qrels", root / "run", **options).warnings
        codes = {w.code for w in warned} | {
            "unjudged" for w in warned if "no judgments" in w.message
        }
        seen.update(k for k in (*POOLED, *DECLINED) if CODES.get(k, k) in codes)
        assert exact, (case, kinds)  # cut
        assert exact == [pools], (case, kinds, exact)
        kept += pools and bool(kinds)
    assert kept >= CASES // 3
    assert seen >= {*POOLED, "non-utf8"}, set(POOLED) - seen  # every warning trec gives


def _chunk(kept: Kept) -> tuple[list[ScoreWarning], tuple[Kept]]:
    """What a chunk that kept ``kept`` warned of (one run's merge of its warnings), and kept."""
    grouped = (*kept.qrels, *kept.run, *kept.after)
    warned = merge_warnings(w if isinstance(w, ScoreWarning) else note(w) for w in grouped)
    return list(warned), (kept,)


def _pool(*chunks: Kept) -> list[ScoreWarning | str] | None:
    made = [_chunk(k) for k in chunks]
    return pooled(None, [w for w, _ in made], [k for _, k in made])


def test_pooling_adds_counts_keeps_the_first_examples_and_declines_what_it_cannot_pool() -> None:
    def lines(code: str, path: str, *numbers: int) -> ScoreWarning:
        where = tuple(f"{path}:{n}" for n in numbers)
        return ScoreWarning(code, "{count} lines", len(numbers), where, tolerated=True)

    bom = ScoreWarning("formats.bom", "{count} marks", 1, ("q",), tolerated=True)
    unjudged = unjudged_text(3, ["a", "b", "c"])
    first = Kept(
        (bom, lines("trec.blank-line", "q", 2, 3)),
        (lines("trec.extra-fields", "r", 1),),
        (unjudged, lines("trec.duplicate-judgments", "q", 4)),
        (3, ("a", "b", "c")),
    )
    second = Kept(
        (lines("trec.comment-line", "q", 9), lines("trec.blank-line", "q", 7, 8, 10, 11)),
        (lines("trec.extra-fields", "r", 5, 6),),
        (unjudged_text(4, ["d", "e", "f", "g"]),),
        (4, ("d", "e", "f", "g")),
    )
    assert _pool(first, second) == [
        bom,
        lines("trec.comment-line", "q", 9),  # the reader's order: comments before blank lines
        ScoreWarning(
            "trec.blank-line",
            "{count} lines",
            6,
            ("q:2", "q:3", "q:7", "q:8", "q:10"),
            tolerated=True,
        ),
        ScoreWarning(
            "trec.extra-fields", "{count} lines", 3, ("r:1", "r:5", "r:6"), tolerated=True
        ),
        unjudged_text(7, ["a", "b", "c", "d", "e"]),
        lines("trec.duplicate-judgments", "q", 4),
    ]
    assert _pool(second, first) is None  # a byte-order mark after the first chunk
    missing = "2 judged queries are not in the run and are ignored; with -c MAP would be 0.5"
    for other in (
        second.replaced(after=(missing,)),  # a MAP of the whole corpus
        second.replaced(qrels=(lines("trec.non-utf8", "q", 8),)),  # ordered by bytes
        second.replaced(after=(unjudged_text(4, ["d", "e", "f", "x"]),)),  # not what it kept
    ):
        assert _pool(first, other) is None, other
    extra = lines("trec.extra-fields", "r", 5)
    assert _pool(first, second.replaced(run=(replace(extra, message="other {count}"),))) is None
    assert pooled(None, [[], []], [(first,), (second,)]) == []  # no chunk warned
    warned, kept = _chunk(first)
    assert pooled(None, [warned[1:]], [kept]) is None  # a warning it did not keep
