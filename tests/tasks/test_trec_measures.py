"""trec_eval's measures: random runs scored by ``annoscore trec`` against pytrec-eval-terrier
(trec_eval 9.0.8 in C++) for the measures it exposes, and against the plain-Python reference
(``tests/oracles/trec_measures.py``) for all of them, with ``-l``, ``-M`` and ``-J``.

The 32-bit tie difference: pytrec_eval stores scores as 32-bit floats, so two scores that differ
only beyond float32's precision tie there (and are ordered by document id) while trec_eval
master and annoscore read doubles and order them by score.  The random cases use scores that
are exact in float32 (small integers, ties on purpose) so that both orders are the same;
:func:`test_pytrec_eval_ties_scores_that_differ_beyond_float32` shows the difference.
pytrec_eval's ``iprec_at_recall`` and ``11pt_avg`` follow 9.0.8's recall rule (rel(k)/R >= x),
not master's (rel(k) >= floor(xR + 0.5)): they are compared with the reference only.
"""

from __future__ import annotations

import math
import os
import random
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.metrics.trec_measures import MeasureSet
from annoscore.tasks.trec import TrecOptions, count_trec
from tests.oracles.trec_measures import per_query

pytrec_eval = pytest.importorskip("pytrec_eval")

SCALE = int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
NOT_IN_PYTREC = {"runid", "relstring", "iprec_at_recall", "11pt_avg"}
_counter = iter(range(10**9))


def _case(rng: random.Random, negative: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    tag = next(_counter)  # pytrec_eval caches a query's judgements by its id: never reuse one
    values = [0, 0, 1, 1, 2, 3, 4] + ([-1, -2] if negative else [])
    for q in range(rng.randint(1, 4)):
        query = f"q{tag}_{q}"
        docs = [f"d{i}" for i in range(rng.choice([3, 12, 40]))]
        judged = {d: rng.choice(values) for d in docs if rng.random() < 0.6}
        if not any(v >= 0 for v in judged.values()):  # pytrec_eval crashes without one
            judged[docs[0]] = rng.choice([0, 1, 2])
        qrels[query] = judged
        ranked = [d for d in docs if rng.random() < 0.7] or docs[:1]
        run[query] = {d: float(rng.randint(0, 6)) for d in ranked}
    return qrels, run


def _annoscore(qrels: Any, run: Any, **options: Any) -> dict[str, dict[str, Any]]:
    result = count_trec(qrels, run, TrecOptions(measures=("all_trec",), **options))
    out: dict[str, dict[str, Any]] = {}
    for query, unit in result.documents.items():
        values: dict[str, Any] = dict(unit.scores)
        for key, count in unit.counts.items():
            if key.startswith("num_"):
                values[key] = count
            elif key.endswith("_logsum"):  # per query: the log of the floored value
                values[key[: -len("_logsum")]] = count
        out[query] = values
    return out


def _ranking(qrels: dict[str, int], scores: dict[str, float], **options: Any) -> list[int | None]:
    ordered = sorted(scores, key=lambda d: (scores[d], d.encode()), reverse=True)
    ranking = [qrels.get(d) for d in ordered]
    if options.get("judged_only"):
        ranking = [v for v in ranking if v is not None and v >= 0]
    depth = options.get("max_docs")
    return ranking if depth is None else ranking[:depth]


def test_measures_equal_pytrec_eval_on_random_runs() -> None:
    """Every measure pytrec_eval exposes (and trec_eval 9.0.8 computes as master does), per
    query, on random runs with graded and negative judgements, at levels 1 to 3, with and
    without -J; 400 cases of 1 to 4 queries (times the equivalence multiplier)."""
    rng = random.Random(30)
    measures = set(pytrec_eval.supported_measures) - NOT_IN_PYTREC
    compared = 0
    for _ in range(400 * SCALE):
        qrels, run = _case(rng)
        level = rng.choice([1, 1, 2, 3])
        judged_only = rng.random() < 0.2
        peer = pytrec_eval.RelevanceEvaluator(
            qrels, measures, relevance_level=level, judged_docs_only_flag=judged_only
        ).evaluate(run)
        ours = _annoscore(qrels, run, relevance_level=level, judged_only=judged_only)
        assert set(ours) == set(peer)
        for query, values in peer.items():
            for name, value in values.items():
                if name == "num_q":
                    continue
                assert ours[query][name] == pytest.approx(value, abs=1e-12), (
                    name,
                    qrels[query],
                    run[query],
                    level,
                    judged_only,
                )
                compared += 1
    assert compared > 50_000 * SCALE


def test_measures_equal_the_reference_on_random_runs() -> None:
    """Every measure annoscore computes, per query, against the plain-Python reference, with
    levels -1 to 3, -M and -J (600 cases of 1 to 4 queries, times the multiplier)."""
    rng = random.Random(31)
    for _ in range(600 * SCALE):
        qrels, run = _case(rng)
        options: dict[str, Any] = {
            "relevance_level": rng.choice([-1, 0, 1, 1, 2, 3]),
            "max_docs": rng.choice([None, None, 1, 3, 10]),
            "judged_only": rng.random() < 0.2,
        }
        ours = _annoscore(qrels, run, **options)
        for query, values in ours.items():
            ranking = _ranking(qrels[query], run[query], **options)
            expected = per_query(ranking, list(qrels[query].values()), options["relevance_level"])
            for name, value in expected.items():
                if name == "relstring":
                    continue
                assert values[name] == pytest.approx(value, abs=1e-12), (name, ranking, options)


def test_relstrings_equal_the_reference_on_random_runs() -> None:
    """``relstring`` of every query against the reference: judgements of one digit (written
    as one slice of one string) and of several or negative (one query at a time), with
    ``-M``, ``-J`` and depths 1 to 12 (300 cases, times the multiplier)."""
    rng = random.Random(32)
    for _ in range(300 * SCALE):
        qrels, run = _case(rng, negative=rng.random() < 0.3)
        if rng.random() < 0.2:  # a judgement of two digits somewhere
            query = rng.choice(list(qrels))
            qrels[query][rng.choice(list(qrels[query]))] = rng.choice([10, 123])
        depth = rng.randint(1, 12)
        options: dict[str, Any] = {
            "max_docs": rng.choice([None, None, 1, 3]),
            "judged_only": rng.random() < 0.2,
        }
        measures = (f"relstring.{depth}", "num_ret")
        result = count_trec(qrels, run, TrecOptions(measures=measures, **options))
        shown = dict(zip(result.matrix.documents, result.details.relstrings, strict=True))
        assert set(shown) == set(qrels)
        for query, text in shown.items():
            ranking = _ranking(qrels[query], run[query], **options)[:depth]
            expected = "'" + "".join("-" if v is None else str(v) for v in ranking) + "'"
            assert text == expected, (query, ranking, options)


def test_relstring_in_the_per_query_layout() -> None:
    """``relstring`` (printed by -q only): the judgements of the first ten ranks, ``-`` for a
    document not in the qrels."""
    from annoscore.report.trec import render_trec_eval

    qrels = {"q": {"a": 2, "b": 0, "c": -1}}
    run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0, "c": 0.5}}
    result = count_trec(qrels, run, TrecOptions(measures=("relstring", "num_ret")))
    text = render_trec_eval(result.shown(documents=True))
    assert "relstring             \tq\t'2-0-1'\n" in text
    assert "relstring" not in text.split("\tall\t")[0].splitlines()[-1]


def test_pytrec_eval_ties_scores_that_differ_beyond_float32() -> None:
    """The 32-bit tie difference: 0.1 + 1e-9 and 0.1 are one float32, so pytrec_eval ranks the
    two documents by id (z first) while annoscore, as trec_eval master, ranks by score."""
    qrels = {"tie32": {"a": 1, "z": 0}}
    run = {"tie32": {"a": 0.1 + 1e-9, "z": 0.1}}
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    ours = count_trec(qrels, run, TrecOptions(measures=("recip_rank",)))
    assert peer["tie32"]["recip_rank"] == 0.5
    assert ours.scores["recip_rank"] == 1.0


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        (["P.5,10"], ["P_5", "P_10"]),
        (["P.10", "5"], ["P_5", "P_10"]),  # a comma split by the command line, put back
        (["iprec_at_recall.0.15"], ["iprec_at_recall_0.15"]),
        (["ndcg.1=0,2=3"], ["ndcg"]),
        (["official"], None),
    ],
)
def test_measure_parameters(spec: list[str], names: list[str] | None) -> None:
    chosen = [o.name for o in MeasureSet.parse(spec).outputs()]
    if names is None:
        assert chosen[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
        assert chosen[-1] == "P_1000" and len(chosen) == 30
    else:
        assert chosen == names


@pytest.mark.parametrize("spec", ["nope", "P.x", "P.0", "G.1=2", "ndcg.1", "map.3", "rbp.2"])
def test_bad_measures_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError):
        MeasureSet.parse([spec])


def test_ndcg_gains_move_the_number_and_the_signature() -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    plain = count_trec(qrels, run, TrecOptions(measures=("ndcg",)))
    swapped = count_trec(qrels, run, TrecOptions(measures=("ndcg.1=2,2=1",)))
    assert swapped.scores["ndcg"] == 1.0 and plain.scores["ndcg"] < 1.0
    assert "measures:ndcg.1=2,2=1" in str(swapped.signature)
    assert "measures" not in str(plain.signature)


def test_geometric_means_are_exp_of_the_mean_log() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 1.0}}
    result = count_trec(qrels, run, TrecOptions(measures=("gm_map", "map")))
    assert result.scores["map"] == 0.5
    assert result.scores["gm_map"] == pytest.approx(math.sqrt(1.0 * 0.00001))


def test_paired_t_test_is_students_on_the_per_query_values() -> None:
    """``compare --test t-test``: the p-value is scipy's ``ttest_rel`` on the per-query values
    (pytrec_eval's here), the difference the corpus one."""
    from scipy import stats

    from annoscore.significance import paired_test

    rng = random.Random(32)
    qrels, run = _case(rng, negative=False)
    while len(qrels) < 4:
        more_qrels, more_run = _case(rng, negative=False)
        qrels.update(more_qrels)
        run.update(more_run)
    other = {
        q: {d: s + rng.choice([0.0, 2.0, -2.0]) for d, s in docs.items()} for q, docs in run.items()
    }
    options = TrecOptions(measures=("map", "P.5"))
    a, b = count_trec(qrels, run, options), count_trec(qrels, other, options)
    comparison = paired_test(a, {"b": b}, test="t-test")
    peer_a = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P"}).evaluate(run)
    peer_b = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P"}).evaluate(other)
    for key in ("map", "P_5"):
        x = [peer_a[q][key] for q in sorted(peer_a)]
        y = [peer_b[q][key] for q in sorted(peer_a)]
        got = comparison.systems["b"].p_value[key]
        if x == y:
            assert got == 1.0
        else:
            assert got == pytest.approx(float(stats.ttest_rel(y, x).pvalue), rel=1e-9)
        assert comparison.systems["b"].difference[key] == pytest.approx(
            sum(y) / len(y) - sum(x) / len(x), abs=1e-12
        )


def test_the_command_line_reads_the_run_from_standard_input(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from annoscore.cli import app

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    text = "q1 Q0 b 1 2.0 tag\nq1 Q0 a 2 1.0 tag\n"
    outcome = CliRunner().invoke(app, ["trec", str(qrels), "-", "-q", "-m", "P.1,2"], input=text)
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout == (
        "P_1                   \tq1\t0.0000\nP_2                   \tq1\t0.5000\n"
        "P_1                   \tall\t0.0000\nP_2                   \tall\t0.5000\n"
    )


def test_outputs_are_one_object_each_in_a_process_as_unpickled_ones_are() -> None:
    """A chunk scored in the parent and one unpickled there give the same line objects (the
    parent's join compares them by identity first), equal field by field to fresh ones."""
    import pickle

    from annoscore.metrics.trec_measures import Output

    first = MeasureSet.parse(["all_trec", "P.5,10", "ndcg.1=0,2=3"]).outputs()
    again = MeasureSet.parse(["all_trec", "P.5,10", "ndcg.1=0,2=3"]).outputs()
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert all(pickle.loads(pickle.dumps(o)) is o for o in first)
    fresh = [Output(o.name, o.measure, o.kind, o.param) for o in first]
    assert fresh == first and all(
        type(f.param) is type(o.param) for f, o in zip(fresh, first, strict=True)
    )
