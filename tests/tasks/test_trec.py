"""trec_eval rules, checked against pytrec-eval-terrier on generated data."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.tasks.trec import TrecOptions, score_trec
from tests.conftest import shared_data
from tests.equivalence.ids import choose, id_pool, split_sides
from tests.helpers import texts

pytrec_eval = pytest.importorskip("pytrec_eval")


def write_files(
    tmp_path: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> tuple[Path, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text(
        "".join(f"{qid} 0 {d} {r}\n" for qid, docs in qrels.items() for d, r in docs.items())
    )
    r = tmp_path / "run.txt"
    r.write_text(
        "".join(
            f"{qid} Q0 {d} {i} {s!r} tag\n"
            for qid, docs in run.items()
            for i, (d, s) in enumerate(docs.items(), start=1)
        )
    )
    return q, r


def peer_map(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], level: int, complete: bool
) -> float | None:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=level)
    per_query = evaluator.evaluate(run)
    values = [v["map"] for v in per_query.values()]
    if complete:
        values += [0.0] * sum(1 for q in qrels if q not in per_query)
    return sum(values) / len(values) if values else None


def generated(rng: random.Random) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    docs = [f"d{i:03d}" for i in range(40)]
    qrels = {}
    for q in range(rng.randint(1, 12)):
        judged = rng.sample(docs, rng.randint(1, 15))
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 1, 2]) for d in judged}
    run = {}
    for q in range(rng.randint(1, 14)):
        retrieved = rng.sample(docs, rng.randint(1, 25))
        # coarse scores so that ties (broken by document id, descending) are common
        run[f"q{q}"] = {d: float(rng.randint(0, 4)) for d in retrieved}
    return qrels, run


SEEDED = st.integers(0, 2**32 - 1).map(random.Random)
"""A generator seeded by one drawn integer: the adversarial files draw thousands of values, which
Hypothesis's own ``st.randoms`` counts against its entropy budget (a failed health check at
random, not a finding)."""


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(SEEDED, st.sampled_from([1, 2]), st.booleans())
def test_agrees_with_pytrec_eval(
    tmp_path: Path, rng: random.Random, level: int, complete: bool
) -> None:
    qrels, run = generated(rng)
    q, r = write_files(tmp_path, qrels, run)
    result = score_trec(q, r, TrecOptions(complete=complete, relevance_level=level))
    expected = peer_map(qrels, run, level, complete)
    if expected is None:
        assert result.scores["map"] is None
    else:
        assert result.scores["map"] == pytest.approx(expected, abs=1e-12)
    total = Counts.total(u.counts for u in result.documents.values())
    assert all(total[k] == pytest.approx(result.counts[k]) for k in result.counts)


def test_ties_broken_by_document_id_descending(tmp_path: Path) -> None:
    q, r = write_files(tmp_path, {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}})
    assert score_trec(q, r).scores["map"] == 0.5  # b ranks before a


def test_rank_column_is_ignored(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("q 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("q Q0 b 1 1.0 t\nq Q0 a 2 5.0 t\n")
    assert score_trec(q, r).scores["map"] == 1.0


def test_missing_queries_ignored_unless_complete(tmp_path: Path) -> None:
    q, r = write_files(
        tmp_path, {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q3": {"a": 1.0}}
    )
    plain = score_trec(q, r)
    assert plain.scores["map"] == 1.0
    assert any("with -c MAP would be 0.5000" in w for w in texts(plain))
    assert any("no judgments" in w for w in texts(plain))
    assert score_trec(q, r, TrecOptions(complete=True)).scores["map"] == 0.5


def test_duplicate_document_is_an_error(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("q 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("q Q0 a 1 1.0 t\nq Q0 a 2 0.5 t\n")
    with pytest.raises(InputError, match="twice") as error:
        score_trec(q, r)
    assert error.value.line == 2


def test_cli(cli: Any, tmp_path: Path) -> None:
    q, r = write_files(tmp_path, {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0, "b": 2.0}})
    out = cli.json("trec", q, r, "-c")
    assert out["task"] == "trec" and set(out["scores"]) == {"map"}
    assert out["scores"]["map"] == 0.25
    text = cli("trec", q, r)
    assert text.exit_code == 0 and "map                   \tall\t0.5000" in text.stdout
    bad = tmp_path / "bad"
    bad.write_text("q1 Q0 a\n")
    result = cli("trec", q, bad)
    assert result.exit_code == 2 and f"{bad}:1:" in result.stderr


def test_relevance_level_zero_never_counts_unjudged_documents(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("q 0 a 0\nq 0 b 1\n")
    r = tmp_path / "r"
    r.write_text("q Q0 x 1 3.0 t\nq Q0 y 2 2.5 t\nq Q0 a 3 2.0 t\nq Q0 b 4 1.0 t\n")
    result = score_trec(q, r, TrecOptions(relevance_level=0))
    # relevant: a (judged 0) and b; unjudged x, y are not: AP = (1/3 + 2/4) / 2
    assert result.scores["map"] == pytest.approx((1 / 3 + 2 / 4) / 2)
    assert result.counts["num_rel_ret"] == 2
    assert score_trec(q, r).scores["map"] == pytest.approx(1 / 4)


@given(SEEDED, st.integers(-2, 0))
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_map_never_above_one_at_any_level(tmp_path: Path, rng: random.Random, level: int) -> None:
    qrels, run = generated(rng)
    q, r = write_files(tmp_path, qrels, run)
    value = score_trec(q, r, TrecOptions(relevance_level=level)).scores["map"]
    assert value is None or 0.0 <= value <= 1.0


def test_byte_order_mark_does_not_rename_the_first_query(tmp_path: Path) -> None:
    q, r = write_files(tmp_path, {"q1": {"a": 1}}, {"q1": {"a": 1.0}})
    q.write_bytes(b"\xef\xbb\xbf" + q.read_bytes())
    r.write_bytes(b"\xef\xbb\xbf" + r.read_bytes())
    result = score_trec(q, r)
    assert result.scores["map"] == 1.0
    (warning,) = result.warnings  # one warning for both files: warnings of one code add up
    assert warning.code == "formats.bom" and warning.count == 2
    assert warning.examples == (str(q), str(r))


def test_duplicate_judgments_last_wins_with_lines(tmp_path: Path) -> None:
    q = tmp_path / "q"
    q.write_text("q 0 a 1\nq 0 a 0\n")
    r = tmp_path / "r"
    r.write_text("q Q0 a 1 1.0 t\nq Q0 b 2 0.5 t\n")
    result = score_trec(q, r)
    assert result.scores["map"] == 0.0  # the last judgment (0) wins; no relevant document
    assert any(f"{q}:2" in w for w in texts(result))


def test_cli_strict_input_and_bad_numbers(cli: Any, tmp_path: Path) -> None:
    q, r = write_files(tmp_path, {"q1": {"a": 1}}, {"q1": {"a": 1.0}})
    q.write_bytes(b"\xef\xbb\xbf" + q.read_bytes())
    assert cli("trec", q, r).exit_code == 0
    strict = cli("trec", q, r, "--strict-input")
    assert strict.exit_code == 2 and "byte-order mark" in strict.stderr
    bad = tmp_path / "bad"
    bad.write_text("q1 0 a 1_0\n")
    result = cli("trec", bad, r)
    assert result.exit_code == 2 and f"{bad}:1:" in result.stderr
    assert cli("trec", q, r, "-l", str(10**30)).exit_code in (0, 2)


def test_cli_comment_lines_are_skipped_named_and_refused_when_strict(
    cli: Any, tmp_path: Path
) -> None:
    """trec_eval master skips a line that begins with ``#``: the same MAP as without them, a
    warning naming the lines, and exit 2 under ``--strict-input``."""
    q, r = write_files(tmp_path, {"q1": {"a": 1, "b": 1}}, {"q1": {"a": 1.0, "c": 2.0}})
    plain = cli.json("trec", q, r)
    q.write_bytes(b"# judged on 2020-01-01\n" + q.read_bytes())
    r.write_bytes(r.read_bytes() + b"#q1 Q0 b 3 9.0 t\n")
    commented = cli.json("trec", q, r)
    assert commented["scores"] == plain["scores"] == {"map": 0.25}
    [warning] = commented["warnings"]
    assert warning.startswith("2 comment line(s) (beginning with #) skipped")
    assert warning.endswith(f"(e.g. {q}:1, {r}:3)")
    strict = cli("trec", q, r, "--strict-input")
    assert strict.exit_code == 2 and "comment line" in strict.stderr


def test_9_0_8_has_no_comment_lines_and_data_in_memory_none_either(tmp_path: Path) -> None:
    """``--trec-eval 9.0.8`` reads a line that begins with ``#`` as data (a query ``#x``); so
    does :func:`count_trec`, whose ids are data, never lines of a file."""
    from annoscore.tasks.trec import count_trec

    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("#x 0 a 1\nq1 0 b 1\n")
    r.write_text("#x Q0 a 1 1.0 t\nq1 Q0 c 1 1.0 t\n")
    master = score_trec(q, r)
    assert master.counts["num_q"] == 1 and master.scores["map"] == 0.0
    assert [w.code for w in master.warnings] == ["trec.comment-line"]
    old = score_trec(q, r, TrecOptions(trec_eval="9.0.8"))
    assert old.counts["num_q"] == 2 and old.scores["map"] == 0.5 and not old.warnings
    in_memory = count_trec({"#x": {"a": 1}, "q1": {"b": 1}}, {"#x": {"a": 1.0}, "q1": {"c": 1.0}})
    assert in_memory.counts["num_q"] == 2 and in_memory.scores["map"] == 0.5
    q.write_text("q1 0 b 1\n# judged\n")
    with pytest.raises(InputError, match="expected 4") as error:
        score_trec(q, r, TrecOptions(trec_eval="9.0.8"))
    assert error.value.line == 2


def _adversarial(
    rng: random.Random,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Ids from the adversarial pools (no whitespace), each side choosing its own; scores that
    a 32-bit float holds exactly, so pytrec-eval-terrier (which reads scores as floats) ties
    exactly where annoscore (doubles, as trec_eval master) does."""
    separators = " \t\r\n\x0b\x0c"
    queries = id_pool(rng, rng.randint(1, 6), forbidden=separators)
    documents = id_pool(rng, rng.randint(1, 30), forbidden=separators)
    judged, retrieved = split_sides(rng, queries)
    qrels = {
        q: {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in choose(rng, documents, 10)}
        for q in judged
    }
    run = {
        q: {d: rng.randint(-8, 8) / 4 for d in choose(rng, documents, 15, repeats=False)}
        for q in retrieved
    }
    return {q: d for q, d in qrels.items() if d}, {q: d for q, d in run.items() if d}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(SEEDED, st.sampled_from([1, 2, 3]), st.booleans())
def test_map_of_adversarial_ids_agrees_with_pytrec_eval(
    tmp_path: Path, rng: random.Random, level: int, complete: bool
) -> None:
    """Per query and overall (pytrec-eval-terrier is trec_eval 9.0.8: scores read as 32-bit
    floats, so near-equal scores tie there; the scores here are exact in 32 bits)."""
    qrels, run = _adversarial(rng)
    if not qrels or not run:
        return
    q, r = write_files(tmp_path, qrels, run)
    result = score_trec(q, r, TrecOptions(complete=complete, relevance_level=level))
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=level).evaluate(run)
    for name, unit in result.documents.items():
        expected = per_query[name]["map"] if name in per_query else 0.0
        assert unit.counts["map_sum"] == pytest.approx(expected, abs=1e-12)
    expected_map = peer_map(qrels, run, level, complete)
    if expected_map is None:
        assert result.scores["map"] is None
    else:
        assert result.scores["map"] == pytest.approx(expected_map, abs=1e-12)


def _trec_eval_lines(path: Path) -> dict[tuple[str, str], str]:
    """trec_eval's output: (measure, query) -> the value as printed."""
    out = {}
    for line in path.read_text().splitlines():
        measure, query, value = (part.strip() for part in line.split("\t"))
        out[(measure, query)] = value
    return out


CONFORMANCE = [
    ("all_trec.txt", ["-m", "all_trec"]),
    ("all_trec_q.txt", ["-q", "-m", "all_trec"]),
    ("official_c.txt", ["-c", "-m", "official"]),
    ("official_M10_l2.txt", ["-M", "10", "-l", "2", "-m", "official"]),
]


@pytest.mark.parametrize(("output", "flags"), CONFORMANCE)
def test_trec_eval_master_outputs_of_the_shared_sample(output: str, flags: list[str]) -> None:
    """The text layout of ``annoscore trec`` is what trec_eval 10.0-rc3 printed for
    ``../shared/data/trec`` with the same flags, byte for byte."""
    from typer.testing import CliRunner

    from annoscore.cli import app

    folder = shared_data("trec")
    outcome = CliRunner().invoke(
        app, ["trec", str(folder / "qrels.txt"), str(folder / "run.txt"), *flags]
    )
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout == (folder / output).read_text()


def _columns_of(qrels: Path, run: Path) -> list[bytes]:
    """What ``_read_both`` reads of the two files, as bytes (every column of both)."""
    from annoscore.tasks.trec import _read_both

    out = []
    for columns in _read_both(qrels, run, True):
        out += [b"\n".join(columns.queries), *(a.tobytes() for a in columns.doc_words)]
        out += [columns.query.tobytes(), columns.value.tobytes(), columns.line.tobytes()]
    return out


def _in_child(qrels: Path, run: Path, sender: Any) -> None:
    from annoscore.tasks.trec import _in_worker

    sender.send((_in_worker(), _columns_of(qrels, run)))


def test_a_worker_reads_the_two_files_one_after_the_other_alike(tmp_path: Path) -> None:
    """In a forked multiprocessing process (a worker of ``--jobs N``) the two files are read one
    after the other, not in two threads, and give the same columns as in this process (where a
    qrels file of 1 MiB or more is read in a thread beside the run)."""
    import multiprocessing

    from annoscore.tasks.trec import _PARALLEL_BYTES, _in_worker

    rng = random.Random(31)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    lines = [
        f"q{n // 50} 0 d{rng.randrange(10**6)} {rng.choice((0, 1, 2))}\n" for n in range(70000)
    ]
    qrels.write_text("".join(dict.fromkeys(lines)))
    assert qrels.stat().st_size >= _PARALLEL_BYTES
    run.write_text(
        "".join(f"q{n // 100} Q0 d{n} {n % 100} {rng.random():.3f} r\n" for n in range(20000))
    )
    assert not _in_worker()
    expected = _columns_of(qrels, run)
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_in_child, args=(qrels, run, sender))
    child.start()
    try:
        assert receiver.poll(120), "the forked process sent nothing"
        in_worker, found = receiver.recv()
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()
    assert in_worker
    assert found == expected
