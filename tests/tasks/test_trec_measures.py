"""trec_eval's measures: random runs scored by ``annoscore trec`` against pytrec-eval-terrier
(trec_eval 9.0.8 in C++) for the measures it exposes, and against the plain-Python reference
(``tests/oracles/trec_measures.py``) for all of them, with ``-l``, ``-M`` and ``-J``, for
both trec_eval versions annoscore follows (``--trec-eval master``, the default, and ``9.0.8``).

Where the versions differ:

- 32-bit scores: trec_eval 9.0.8 (and pytrec_eval) stores scores as 32-bit floats, so two
  scores that differ only beyond float32's precision tie there (and are ordered by document id)
  while trec_eval master reads doubles and orders them by score.  The master cases use scores
  that are exact in float32 (small integers, ties on purpose) so that both orders are the same;
  the 9.0.8 cases use scores chosen to differ there (0.1 and 0.1 + 1e-9, 1e39 and 2e39, which
  are inf in float32, 1e-46 which is 0, halfway cases of rounding, negative scores).
- The recall rule of ``iprec_at_recall`` and ``11pt_avg``: a level x is reached at the
  rel(k) >= max(1, floor(xR + 0.9)) relevant document in 9.0.8, at
  rel(k) >= max(1, floor(xR + 0.5)) in master (not, as was believed, rel(k)/R >= x in 9.0.8:
  :func:`annoscore.metrics.ranking_measures.recall_rank` tells how it was found); under
  master they are compared with the reference only, under 9.0.8 with pytrec_eval too.
- ``rbp`` (with ``rbp_resid``) and ``unj`` are master's only.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import replace
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


_SCORES_908 = [
    0.1,
    0.1 + 1e-9,  # one float32 with 0.1
    0.1 - 1e-9,
    1e39,  # inf in float32
    2e39,
    -1e39,  # -inf
    3.4028235e38,  # the largest float32
    1e-46,  # 0 in float32
    -1e-46,  # -0.0
    1e-45,  # the smallest float32 subnormal
    0.0,
    -0.0,
    -2.5,
    -2.5 - 1e-12,
    1.0,
    1.0 + 2.0**-24,  # halfway between two floats: rounded to even, 1.0
    1.0 + 0.75 * 2.0**-23,  # rounded up to 1 + 2**-23
    1.0 + 2.0**-23,
    3.0,
    123456789.0,  # 123456792 in float32
    123456790.0,
]


def _case_908(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """A case of :func:`_case` whose scores differ beyond float32 (:data:`_SCORES_908`), and
    sometimes a judged query missing from the run and a run query without judgements (both
    ignored, by trec_eval 9.0.8 as by annoscore)."""
    qrels, run = _case(rng)
    pool = rng.sample(_SCORES_908, rng.randint(2, len(_SCORES_908)))
    for docs in run.values():
        for document in docs:
            docs[document] = rng.choice(pool)
    if len(run) > 1 and rng.random() < 0.2:
        del run[rng.choice(list(run))]
    if rng.random() < 0.2:
        run[f"unjudged{next(_counter)}"] = {"d0": rng.choice(pool)}
    return qrels, run


def _float32(scores: dict[str, float]) -> dict[str, float]:
    """The scores as trec_eval 9.0.8 ranks them: each the nearest 32-bit float (from the
    C standard library's conversion, through :mod:`ctypes`: not NumPy's, which annoscore uses)."""
    import ctypes

    return {d: ctypes.c_float(v).value for d, v in scores.items()}


def _annoscore(qrels: Any, run: Any, **options: Any) -> dict[str, dict[str, Any]]:
    return _per_query(count_trec(qrels, run, TrecOptions(measures=("all_trec",), **options)))


def _per_query(result: Any) -> dict[str, dict[str, Any]]:
    """Each query's values by measure name (``gm_*``: the log of the floored value)."""
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


@pytest.mark.parametrize("version", ["master", "9.0.8"])
def test_measures_equal_the_reference_on_random_runs(version: str) -> None:
    """Every measure annoscore computes, per query, against the plain-Python reference, with
    levels -1 to 3, -M and -J (600 cases of 1 to 4 queries, times the multiplier), as each
    trec_eval version computes them (9.0.8: scores that differ beyond float32 too, ranked as
    32-bit floats; no rbp or unj, which 9.0.8's all_trec leaves out)."""
    rng = random.Random(31)
    for _ in range(600 * SCALE):
        qrels, run = _case(rng) if version == "master" else _case_908(rng)
        options: dict[str, Any] = {
            "relevance_level": rng.choice([-1, 0, 1, 1, 2, 3]),
            "max_docs": rng.choice([None, None, 1, 3, 10]),
            "judged_only": rng.random() < 0.2,
        }
        ours = _annoscore(qrels, run, trec_eval=version, **options)
        for query, values in ours.items():
            scores = run[query] if version == "master" else _float32(run[query])
            ranking = _ranking(qrels[query], scores, **options)
            expected = per_query(
                ranking, list(qrels[query].values()), options["relevance_level"], version
            )
            assert set(values) - {"num_q"} == set(expected) - {"relstring"}
            for name, value in expected.items():
                if name == "relstring":
                    continue
                assert values[name] == pytest.approx(value, abs=1e-12), (name, ranking, options)


def test_trec_eval_9_0_8_equals_pytrec_eval_on_every_measure_and_mean() -> None:
    """``--trec-eval 9.0.8`` against pytrec-eval-terrier (trec_eval 9.0.8) on every measure it
    exposes but ``runid`` and ``relstring`` (pytrec_eval gives 0.0 for both; ``relstring`` is
    held to the reference), ``iprec_at_recall`` and ``11pt_avg`` included, per query and the
    means (pytrec_eval's ``compute_aggregated_measure``), with scores that differ only beyond
    float32, huge, tiny and negative ones, ties, levels 1 to 3, ``-J`` and ``-M`` (pytrec_eval
    has no ``-M``: it is given each query's first M documents in 9.0.8's order, the judged
    ones with ``-J``), judged queries
    missing from the run and run queries without judgements; 400 cases of 1 to 4 judged queries
    (times the equivalence multiplier).  One difference, warned about: a query that ``-J``
    leaves without a ranked document gets nan (0/0) from 9.0.8 for ``iprec_at_recall_0.00``
    (and any level it reaches before the first relevant document) and ``11pt_avg``, 0 from
    master and annoscore."""
    rng = random.Random(33)
    measures = set(pytrec_eval.supported_measures) - {"runid", "relstring"}
    compared = nans = 0
    for _ in range(400 * SCALE):
        qrels, run = _case_908(rng)
        level = rng.choice([1, 1, 2, 3])
        judged_only = rng.random() < 0.2
        depth = rng.choice([None, None, None, 1, 3, 10])
        cut = run
        if depth is not None:
            cut = {}
            for query, docs in run.items():
                ranked = _float32(docs)
                first = sorted(ranked, key=lambda d: (ranked[d], d.encode()), reverse=True)
                if judged_only:  # -J comes first: -M keeps the first judged documents
                    first = [d for d in first if qrels.get(query, {}).get(d, -1) >= 0]
                cut[query] = {d: docs[d] for d in first[:depth]}
        peer = pytrec_eval.RelevanceEvaluator(
            qrels, measures, relevance_level=level, judged_docs_only_flag=judged_only
        ).evaluate(cut)
        result = count_trec(
            qrels,
            run,
            TrecOptions(
                measures=("all_trec",),
                trec_eval="9.0.8",
                relevance_level=level,
                judged_only=judged_only,
                max_docs=depth,
            ),
        )
        ours = _per_query(result)
        assert set(ours) == set(peer)
        case = (qrels, run, level, judged_only, depth)
        names = {name for values in peer.values() for name in values}
        assert names - {"num_q"} <= set(next(iter(ours.values()), names)), case
        nan = {q for q, values in peer.items() if any(map(math.isnan, values.values()))}
        warned = [w for w in result.warnings if str(w).find("trec_eval 9.0.8 gives them nan") > 0]
        assert len(warned) == (1 if nan else 0), case
        for query, values in peer.items():
            for name, value in values.items():
                if name == "num_q":
                    continue
                if math.isnan(value):  # 0/0 in 9.0.8, 0 in master: annoscore's 0, warned
                    assert name.startswith(("iprec_at_recall", "11pt_avg")), (name, case)
                    assert values["num_ret"] == 0 and judged_only, (name, case)
                    value = 0.0
                assert ours[query][name] == pytest.approx(value, abs=1e-12), (name, query, case)
                compared += 1
        for name in names:
            mean = pytrec_eval.compute_aggregated_measure(
                name, [0.0 if math.isnan(v[name]) else v[name] for v in peer.values()]
            )
            got = result.counts[name] if name.startswith("num_") else result.scores[name]
            assert got == pytest.approx(mean, abs=1e-12), (name, case)
            compared += 1
        nans += len(nan)
    assert compared > 50_000 * SCALE
    assert nans > 0  # the nan of 9.0.8 was met (and warned about)


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


def test_trec_eval_9_0_8_ranks_scores_equal_in_float32_as_ties() -> None:
    """The option matters: ``--trec-eval 9.0.8`` ties 0.1 + 1e-9 with 0.1 (one float32) and
    ranks z first (document id descending), as pytrec_eval does; master ranks a first.  1e39
    and 2e39 (both inf in float32) tie too, and 1e-46 with -1e-46 (both 0)."""
    qrels = {"tie32": {"a": 1, "z": 0}, "inf": {"b": 1, "y": 0}, "zero": {"c": 1, "x": 0}}
    run = {
        "tie32": {"a": 0.1 + 1e-9, "z": 0.1},
        "inf": {"b": 2e39, "y": 1e39},
        "zero": {"c": 1e-46, "x": -1e-46},
    }
    master = count_trec(qrels, run, TrecOptions(measures=("recip_rank",)))
    old = count_trec(qrels, run, TrecOptions(measures=("recip_rank",), trec_eval="9.0.8"))
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    for query in qrels:
        assert master.documents[query].scores["recip_rank"] == 1.0
        assert old.documents[query].scores["recip_rank"] == 0.5 == peer[query]["recip_rank"]
    assert "trec-eval" not in str(master.signature)
    assert str(old.signature).endswith("|trec-eval:9.0.8")


def test_trec_eval_9_0_8_reaches_a_recall_level_by_its_own_rule() -> None:
    """The option matters: 16 relevant documents at ranks 1, 3, 5, ...: master reaches recall
    0.7 at the 11th (floor(11.2 + 0.5)), 9.0.8 at the 12th (floor(11.2 + 0.9)), so
    ``iprec_at_recall_0.70`` is 11/21 and 12/23 (pytrec_eval's); with 3 relevant documents,
    9.0.8 reaches 0.7 at the 2nd (0.7 * 3 is 2.0999999999999996 in doubles), below 2/3."""
    for R, master_value, old_value in ((16, 11 / 21, 12 / 23), (3, 2 / 3, 2 / 3)):
        query = f"levels{R}"
        ranks = range(1, 2 * R)
        qrels = {query: {f"d{k:02d}": k % 2 for k in ranks}}
        run = {query: {f"d{k:02d}": float(2 * R - k) for k in ranks}}
        options = TrecOptions(measures=("iprec_at_recall", "11pt_avg"))
        master = count_trec(qrels, run, options).scores
        old = count_trec(qrels, run, replace(options, trec_eval="9.0.8")).scores
        peer = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)[query]
        assert master["iprec_at_recall_0.70"] == pytest.approx(master_value, abs=1e-15)
        assert old["iprec_at_recall_0.70"] == pytest.approx(old_value, abs=1e-15)
        assert peer["iprec_at_recall_0.70"] == pytest.approx(old_value, abs=1e-15)
        if R == 16:  # 0.2, 0.4, 0.9 too (3.2, 6.4, 14.4): a later rank in 9.0.8
            assert old["11pt_avg"] < master["11pt_avg"]


def test_trec_eval_9_0_8_has_no_rbp_or_unj() -> None:
    """``all_trec`` of 9.0.8 is pytrec_eval's list (master's without rbp and unj), in master's
    order; asked for by name, rbp or unj is an input error of one line."""
    master = MeasureSet.parse(["all_trec"])
    old = MeasureSet.parse(["all_trec"], version="9.0.8")
    assert sorted(m.name for m in old.measures) == sorted(pytrec_eval.supported_measures)
    assert [m for m in master.measures if m.name not in ("rbp", "unj")] == list(old.measures)
    official = MeasureSet.parse(["official"], version="9.0.8")
    assert official.measures == MeasureSet.parse(["official"]).measures
    for spec in ("rbp", "rbp.0.5", "unj.5"):
        with pytest.raises(InputError, match=r"is not in trec_eval 9\.0\.8") as caught:
            MeasureSet.parse(["map", spec], version="9.0.8")
        assert "\n" not in str(caught.value)
        assert MeasureSet.parse([spec]).measures  # master has them
    result = count_trec({"q": {"a": 1}}, {"q": {"a": 1.0}}, TrecOptions(measures=("all_trec",)))
    assert "rbp" in result.scores and "unj_5" in result.scores
    old_result = count_trec(
        {"q": {"a": 1}}, {"q": {"a": 1.0}}, TrecOptions(measures=("all_trec",), trec_eval="9.0.8")
    )
    assert not {"rbp", "rbp_resid", "unj_5"} & set(old_result.scores)


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


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (["utility.1,2"], "-m utility.1,2: utility takes 4 number(s)"),
        (["set_F.1,2"], "-m set_F.1,2: set_F takes 1 number(s)"),
        (["ndcg.1=inf"], "-m ndcg.1=inf: expected level=gain, not '1=inf'"),
        (["ndcg.0=1,1=nan"], "-m ndcg.0=1,1=nan: expected level=gain, not '1=nan'"),
        ([], "-m: no measure chosen"),
    ],
)
def test_bad_measure_parameters_are_named_in_the_error(spec: list[str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        MeasureSet.parse(spec)
    assert str(caught.value) == message


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
