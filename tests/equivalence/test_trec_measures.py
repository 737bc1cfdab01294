"""The vectorised pieces of trec_eval's measures (:mod:`annoscore.metrics.ranking_measures`)
against the plain references of ``tests/oracles/trec_measures.py``, bit for bit:

- each query's running sum (:meth:`QueryRows.prefix`: the queries put in tables by width, one
  ``cumsum`` a table) equal to a sum added rank after rank, on queries of every size around the
  widths (0, 1, 2, powers of two and one past them, all of one size or mixed, one long query
  among short ones), values with -0.0, 0.0, tiny and huge magnitudes so that every rounding
  shows;
- DCG at a cut-off read from that running sum (:meth:`Ndcg.dcg_at`, plus 0.0) equal to a
  sum from 0.0 over the first ranks, the per-query totals (``ndcg``) too;
- the ideal rankings (:func:`annoscore.metrics.ranking_gains.ideal_rankings`: one integer sort
  when the relevances span a small range, else a lexicographic sort) equal to a plain sort by
  query then gain highest first, with default and custom gains (negative, fractional, -0.0,
  which the integer sort declines), and relevances spanning a small or a huge range.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import itertools
import os
import random
import struct
from typing import Any

import numpy as np
import pytest

from annoscore.metrics import ranking_gains
from annoscore.metrics.ranking_gains import Ndcg, row_gains
from annoscore.metrics.ranking_rows import QueryRows
from tests.oracles.trec_measures import ideal_rankings, running_sums, sum_from_zero

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
SIZES = (0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 300)


def bits(values: list[float]) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def random_sizes(rng: random.Random) -> list[int]:
    queries = rng.randint(1, 40)
    style = rng.randrange(5)
    if style == 0:  # every query of one size: the rows are one table
        return [rng.choice(SIZES)] * queries
    if style == 1:  # one long query among short ones
        sizes = [rng.randint(0, 3) for _ in range(queries)]
        sizes[rng.randrange(queries)] = rng.randint(100, 2000)
        return sizes
    if style == 2:
        return [rng.choice(SIZES) for _ in range(queries)]
    if style == 3:  # one width, sizes within it
        top = rng.choice((2, 4, 8, 16, 64, 128))
        return [rng.randint(top // 2 + 1, top) for _ in range(queries)]
    return [rng.randint(0, 40) for _ in range(queries)]


def random_value(rng: random.Random) -> float:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice((0.0, -0.0))
    if kind == 1:
        return rng.choice((1e300, -1e300, 1e-300, 5e-324)) * rng.random()
    if kind == 2:
        return float(rng.randint(-3, 3))
    return rng.uniform(-2, 2) / rng.choice((1, 3, 7, 1e8))


def test_running_sums_equal_a_sum_rank_after_rank() -> None:
    rng = random.Random(20261129)
    for case in range(400 * SCALE):
        sizes = random_sizes(rng)
        groups = [[random_value(rng) for _ in range(size)] for size in sizes]
        _, flat = assert_running_sums(groups, case)
        assert bits(flat.tolist()) == bits([v for g in groups for v in g])  # input untouched


def assert_running_sums(groups: list[list[float]], case: int) -> tuple[QueryRows, Any]:
    """:meth:`QueryRows.prefix` of ``groups`` (a query each) against sums rank after rank, bit for
    bit; the rows and the values it was given."""
    sizes = [len(g) for g in groups]
    rows = QueryRows(np.repeat(np.arange(len(sizes)), sizes), len(sizes))
    flat = np.array([v for g in groups for v in g], dtype=np.float64)
    got = rows.prefix(flat).tolist()
    expected = [v for g in running_sums(groups) for v in g]
    assert bits(got) == bits(expected), (case, sizes)
    return rows, flat


def test_whole_number_running_sums_equal_a_sum_rank_after_rank() -> None:
    """:meth:`QueryRows.whole_prefix` (one running sum over every row less the sum before each
    query, for whole numbers whose sizes add up below 2**53; else the tables of
    :meth:`QueryRows.prefix`) equal to a sum added rank after rank, bit for bit: small whole
    numbers of both signs, whole numbers near 2**52 (past the bound), fractions, -0.0."""
    rng = random.Random(53)
    for case in range(400 * SCALE):
        sizes = random_sizes(rng)
        pool = rng.choice(
            (
                [0.0, 1.0, 2.0, 3.0],
                [-5.0, -1.0, 0.0, 1.0, 4.0],
                [2.0**52, 2.0**52 + 1, 2.0**51, 3.0],
                [1.0, 2.0, 0.5],
                [1.0, -0.0, -1.0],
            )
        )
        groups = [[rng.choice(pool) for _ in range(size)] for size in sizes]
        rows = QueryRows(np.repeat(np.arange(len(sizes)), sizes), len(sizes))
        flat = np.array([v for g in groups for v in g], dtype=np.float64)
        got = rows.whole_prefix(flat).tolist()
        expected = [v for g in running_sums(groups) for v in g]
        assert bits(got) == bits(expected), (case, sizes, pool)


def test_dcg_at_a_cut_off_equals_a_sum_from_zero() -> None:
    rng = random.Random(7)
    for case in range(300 * SCALE):
        sizes = random_sizes(rng)
        n = len(sizes)
        query = np.repeat(np.arange(n), sizes)
        rows = QueryRows(query, n)
        judged = np.array([rng.random() < 0.7 for _ in range(len(query))], dtype=bool)
        value = np.array([rng.randint(-2, 4) for _ in range(len(query))], dtype=np.int64)
        gains = rng.choice(((), ((1, -0.0), (2, -0.0)), ((1, 0.5), (3, -2.0)), ((0, -1.0),)))
        # the ideal side: one judgement per retrieved judged document, and a few more
        qrels_query = np.concatenate([query[judged], rng.choices(range(n), k=3)]).astype(np.int64)
        qrels_value = np.concatenate([value[judged], [1, 2, -1]]).astype(np.int64)
        gain = row_gains(value, judged, gains)
        dcg = Ndcg(rows, ranking_gains.ideal_rankings(qrels_query, qrels_value, gains), gain)
        discounted = (gain / np.log2(rows.rank + 1.0)).tolist()
        starts = [0, *np.cumsum(sizes).tolist()]
        per_query = [discounted[a:b] for a, b in itertools.pairwise(starts)]
        for cut in (1, 2, 5, 64, 65, 10**6, *rng.sample(range(1, 300), 3)):
            expected = [sum_from_zero(values[:cut]) for values in per_query]
            assert bits(dcg.dcg_at(cut).tolist()) == bits(expected), (case, cut, sizes)
        whole = [sum_from_zero(values) for values in per_query]
        assert bits(dcg.dcg_at(rows.sizes).tolist()) == bits(whole), (case, sizes)


@pytest.mark.parametrize("spread", [6, 70_000, 10**12])
def test_ideal_rankings_equal_a_plain_sort(spread: int) -> None:
    rng = random.Random(spread)
    gain_choices: list[dict[int, float]] = [
        {},
        {1: 0.0, 2: 3.0},
        {0: -1.0, 1: 2.5, 3: 0.25},
        {1: -0.0},
        {-2: 4.0, 5: 1e-300},
    ]
    for case in range(250 * SCALE):
        n = rng.randint(0, 300)
        queries = [rng.randrange(rng.randint(1, 30)) for _ in range(n)]
        low = -rng.randint(0, 3)
        values = [rng.choice((low, low + spread, rng.randint(low, low + spread))) for _ in range(n)]
        values = [rng.choice((v, rng.randint(-2, 5))) for v in values]
        gains = rng.choice(gain_choices)
        query, gain = ranking_gains.ideal_rankings(
            np.array(queries, dtype=np.int64),
            np.array(values, dtype=np.int64),
            tuple(sorted(gains.items())),
        )
        expected = ideal_rankings(queries, values, gains)
        assert query.tolist() == [q for q, _ in expected], case
        assert bits(gain.tolist()) == bits([g for _, g in expected]), (case, gains)


def _queries(rng: random.Random) -> list[tuple[list[int | None], list[int]]]:
    """Random queries: each a ranking (the judgement of each retrieved document, ``None`` when
    not judged) and every judgement of the query."""
    out: list[tuple[list[int | None], list[int]]] = []
    for _ in range(rng.randint(1, 25)):
        judgements = [rng.randint(-2, 4) for _ in range(rng.choice((0, 1, 3, 12, 40)))]
        retrieved: list[int | None] = [
            judgements[i] for i in range(len(judgements)) if rng.random() < 0.6
        ]
        retrieved += [None] * rng.choice((0, 1, 5, 30))
        rng.shuffle(retrieved)
        out.append((retrieved, judgements))
    return out


def _columns(
    rng: random.Random, queries: list[tuple[list[int | None], list[int]]]
) -> tuple[Any, Any, Any, Any, Any]:
    """The run's columns (query number, judged, judgement value) of ``queries`` and the qrels'
    (query number, value), the qrels rows shuffled or grouped by query in order (the two
    ways ``ranking_measures`` cuts them into pieces): what ``ranking_measures`` takes."""
    query = np.array([q for q, (r, _) in enumerate(queries) for _ in r], dtype=np.int64)
    ranked = [v for r, _ in queries for v in r]
    judged = np.array([v is not None for v in ranked], dtype=bool)
    value = np.array([0 if v is None else v for v in ranked], dtype=np.int64)
    judgements = [(q, v) for q, (_, j) in enumerate(queries) for v in j]
    if rng.random() < 0.5:
        rng.shuffle(judgements)
    qrels_query = np.array([q for q, _ in judgements], dtype=np.int64)
    qrels_value = np.array([v for _, v in judgements], dtype=np.int64)
    return query, judged, value, qrels_query, qrels_value


@pytest.mark.parametrize("piece", [1, 3, 17, 100])
def test_measures_in_pieces_equal_the_reference(piece: int) -> None:
    """:func:`ranking_measures` cut into pieces of whole queries (a piece size made tiny) gives
    every query the plain reference's values (as ``tests/tasks/test_trec_measures.py`` compares
    them), and the same bits as in one piece."""
    from unittest import mock

    from annoscore.metrics import ranking_measures as module
    from annoscore.metrics.trec_measures import MeasureSet
    from tests.oracles.trec_measures import per_query

    measures = MeasureSet.parse(["all_trec"])
    rng = random.Random(piece)
    for case in range(40 * SCALE):
        queries = _queries(rng)
        level = rng.choice((-1, 0, 1, 2))
        query, judged, value, qrels_query, qrels_value = _columns(rng, queries)
        arguments = (query, judged, value, qrels_query, qrels_value, len(queries), level)
        whole = module.ranking_measures(*arguments, measures)
        with mock.patch.object(module, "_PIECE_ROWS", piece):
            pieces = module.ranking_measures(*arguments, measures)
        assert whole.keys() == pieces.keys()
        for key in whole:
            assert whole[key].tobytes() == pieces[key].tobytes(), (case, key)
        for q, (ranking, judged_values) in enumerate(queries):
            expected = per_query(ranking, judged_values, level)
            for output in measures.outputs():
                if output.kind in ("runid", "num_q", "relstring"):
                    continue
                got = float(pieces[output.column][q])
                assert got == pytest.approx(expected[output.name], abs=1e-12), (
                    case,
                    output.name,
                    ranking,
                )


def _lines_query_by_query(result: Any) -> str:
    """trec_eval's ``-q`` lines written from each query's own result (its counts and scores),
    one query after the other, then the ``all`` lines as the renderer writes them."""
    from annoscore.metrics.trec_measures import text_value

    details = result.details
    lines = []
    for index, (query, unit) in enumerate(result.documents.items()):
        for output in details.outputs:
            if not output.per_query:
                continue
            if output.kind == "relstring":
                value: Any = details.relstrings[index]
            elif output.kind == "count":
                value = unit.counts[output.column]
            else:
                value = unit.scores.get(output.name)
            lines.append(f"{output.name:<22}\t{query}\t{text_value(output, value)}\n")
    return "".join(lines)


def test_per_query_lines_equal_each_querys_own_result() -> None:
    """``-q``: the lines the renderer reads from the count matrix's columns equal the lines
    written from each query's own result, on random runs (every measure, -0.0 and undefined
    values included through custom gains and empty rankings)."""
    from annoscore.report.trec import render_trec_eval
    from annoscore.tasks.trec import TrecOptions, count_trec

    rng = random.Random(11)
    choices = (
        ("all_trec",),
        ("official", "relstring.3"),
        ("ndcg.1=-0,2=-0", "ndcg_cut.1,2", "utility.1,-1,0,0", "set_F.0.5", "G"),
    )
    for case in range(150 * SCALE):
        qrels: dict[str, dict[str, int]] = {}
        run: dict[str, dict[str, float]] = {}
        for q in range(rng.randint(1, 6)):
            docs = [f"d{i}" for i in range(rng.choice((1, 4, 15)))]
            qrels[f"q{q}"] = {d: rng.randint(-1, 3) for d in docs if rng.random() < 0.6}
            qrels[f"q{q}"].setdefault("d0", rng.randint(0, 2))
            if rng.random() < 0.9:
                run[f"q{q}"] = {d: float(rng.randint(0, 4)) for d in docs if rng.random() < 0.7}
        if not any(run.values()):
            run["q0"] = {"d0": 1.0}
        options = TrecOptions(measures=rng.choice(choices), complete=rng.random() < 0.5)
        result = count_trec(qrels, {q: r for q, r in run.items() if r}, options)
        text = render_trec_eval(result.shown(documents=True))
        per_query = _lines_query_by_query(result)
        assert text.startswith(per_query), case
        assert text[len(per_query) :] == render_trec_eval(result), case


EXACT = ("P_", "recall_", "relative_P_", "success_", "Rprec", "map_cut_", "iprec_at_recall_")
"""Measures whose value is the reference's to the bit: counts at cut-offs (read from one running
count), sums of rel(k)/k (a running sum over the relevant ranks) and their maxima."""
EXACT_NAMES = ("11pt_avg", "G", "num_nonrel_judged_ret", "unj_5", "unj_10", "unj_20", "map")


@pytest.mark.parametrize("piece", [3, 1 << 19])
def test_counts_sums_and_maxima_equal_the_reference_bit_for_bit(piece: int) -> None:
    """The measures read from running counts (rel(c) of every cut-off, unj, the judged
    non-relevant retrieved), from running sums over the relevant ranks (map_cut, G's gains so
    far) and from running maxima from the end (iprec_at_recall, 11pt_avg): the plain
    reference's bits, queries past every width of the running tables and cut-offs past every
    query's size, in pieces or whole."""
    from unittest import mock

    from annoscore.metrics import ranking_measures as module
    from annoscore.metrics.trec_measures import MeasureSet
    from tests.oracles.trec_measures import per_query

    measures = MeasureSet.parse(["all_trec"])
    rng = random.Random(1000 + piece)
    checked = 0
    for case in range(40 * SCALE):
        queries = _queries(rng)
        if rng.random() < 0.3:  # long rankings: tables of width 128 and more
            size = rng.choice((65, 129, 300))
            judgements_of = [rng.choice((-1, 0, 1, 2)) for _ in range(size)]
            long: list[int | None] = [v for v in judgements_of if rng.random() < 0.7]
            long += [None] * (size - len(long))
            rng.shuffle(long)
            queries.append((long, judgements_of))
        level = rng.choice((-1, 0, 1, 2))
        query, judged, value, qrels_query, qrels_value = _columns(rng, queries)
        with mock.patch.object(module, "_PIECE_ROWS", piece):
            got = module.ranking_measures(
                query, judged, value, qrels_query, qrels_value, len(queries), level, measures
            )
        for q, (ranking, judged_values) in enumerate(queries):
            expected = per_query(ranking, judged_values, level)
            for output in measures.outputs():
                name = output.name
                if not (name.startswith(EXACT) or name in EXACT_NAMES):
                    continue
                if output.kind == "count":
                    assert int(got[output.column][q]) == expected[name], (case, name, ranking)
                else:
                    pair = [float(got[output.column][q]), float(expected[name])]
                    assert bits(pair[:1]) == bits(pair[1:]), (case, name, ranking, pair)
                checked += 1
    assert checked > 1000


def test_running_counts_and_maxima_equal_plain_loops() -> None:
    """``QueryRows.upto`` (flagged rows at ranks 1..c, c one number or one per query, 0 and past
    the end included), ``QueryRows.cumulative`` and ``QueryRows.suffix_max`` against loops over each
    query's rows."""
    rng = random.Random(31)
    for case in range(200 * SCALE):
        sizes = random_sizes(rng)
        n = len(sizes)
        query = np.repeat(np.arange(n), sizes)
        rows = QueryRows(query, n)
        flags = np.array([rng.random() < 0.4 for _ in range(len(query))], dtype=bool)
        values = [random_value(rng) for _ in range(len(query))]
        starts = [0, *np.cumsum(sizes).tolist()]
        groups = [flags[a:b].tolist() for a, b in itertools.pairwise(starts)]
        for cut in (0, 1, 2, 63, 64, 65, 10**6, rng.randint(0, 40)):
            expected = [sum(g[:cut]) for g in groups]
            assert rows.upto(flags, cut).tolist() == expected, (case, cut, sizes)
        cuts = [rng.randint(0, s + 2) for s in sizes]
        expected = [sum(g[:c]) for g, c in zip(groups, cuts, strict=True)]
        assert rows.upto(flags, np.array(cuts, dtype=np.int64)).tolist() == expected, case
        at = np.flatnonzero(flags)
        ranks = rows.rank[at].tolist()
        expected = [sum(groups[int(q)][:k]) for q, k in zip(query[at].tolist(), ranks, strict=True)]
        assert rows.cumulative(flags, at).tolist() == expected, (case, sizes)
        got = rows.suffix_max(np.array(values, dtype=np.float64)).tolist()
        expected_max = [
            max(values[a + i : b]) for a, b in itertools.pairwise(starts) for i in range(b - a)
        ]
        assert bits(got) == bits(expected_max), (case, sizes)


@pytest.mark.parametrize("many", [1, 64, 10**9])
def test_running_sums_and_maxima_by_rows_or_by_columns(
    many: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:func:`annoscore.metrics.ranking_rows.accumulate_down` steps down a table's columns a row
    at a time (every column in one call) from :data:`MANY_COLUMNS` columns on, else accumulates
    column by column: both against sums added rank after rank and maxima of plain loops, bit
    for bit, with hundreds of queries of one width (so that the row-at-a-time steps run: 1
    forces them, 10**9 forbids them), tables of one size (the rows a table already) and mixed
    sizes, values with -0.0, 0.0, tiny and huge magnitudes."""
    from annoscore.metrics import ranking_rows

    monkeypatch.setattr(ranking_rows, "MANY_COLUMNS", many)
    rng = random.Random(20261130 + many)
    for case in range(60 * SCALE):
        queries = rng.randint(1, 300)
        style = rng.randrange(3)
        if style == 0:
            sizes = [rng.choice(SIZES)] * queries
        elif style == 1:
            top = rng.choice((2, 4, 8, 16, 64))
            sizes = [rng.randint(0, top) for _ in range(queries)]
        else:
            sizes = [rng.choice(SIZES[:12]) for _ in range(queries)]
        groups = [[random_value(rng) for _ in range(size)] for size in sizes]
        rows, flat = assert_running_sums(groups, case)
        got = rows.suffix_max(flat).tolist()
        expected_max = [max(g[i:]) for g in groups for i in range(len(g))]
        assert bits(got) == bits(expected_max), (case, sizes)
        assert bits(flat.tolist()) == bits([v for g in groups for v in g])  # input untouched
