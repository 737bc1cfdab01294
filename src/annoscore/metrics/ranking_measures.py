"""trec_eval's per-query measures, vectorised over every query at once.

A run is given as flat arrays in rank order (rows of a query contiguous, best first, already
cut at ``-M``): ``query[i]``, ``judged[i]`` (the document is in the qrels) and ``value[i]`` (its
judgement when judged); the qrels as ``qrels_query`` and ``qrels_value`` (one row per judged
document).  With ``level`` = max(relevance level, 0):

- relevant: judged with value >= level; judged non-relevant: judged with 0 <= value < level;
  a judged document below 0 is neither (it is "in the pool but unjudged" for ``infAP``); a
  document not in the qrels is neither ("not in the pool").
- R = relevant judgements of the query, N = judged non-relevant ones; rank k from 1;
  rel(k) = relevant documents at ranks 1..k.
- ``map`` = sum over relevant ranks k of rel(k)/k, over R; ``map_cut_c`` the same over ranks
  <= c; ``Rprec`` = rel(R)/R; ``recip_rank`` = 1/(first relevant rank); ``P_c`` = rel(c)/c;
  ``recall_c`` = rel(c)/R; ``relative_P_c`` = rel(c)/min(c, R); ``success_c`` = [rel(c) > 0];
  ``Rprec_mult_x`` = rel(ceil(xR))/ceil(xR).
- ``iprec_at_recall_x``: the highest rel(k)/k over the relevant ranks k with
  rel(k) >= max(1, floor(xR + 0.5)) (trec_eval master's rule), 0 if none; ``11pt_avg`` their
  mean over the 11 levels 0.0, 0.1, ..., 1.0.  trec_eval 9.0.8 (``MeasureSet.version``) has
  its own rule: rel(k) >= max(1, floor(xR + 0.9)), xR + 0.9 computed in doubles
  (:func:`recall_rank`).
- ``bpref`` = sum over relevant ranks of 1 - min(n, R)/min(N, R) (1 when n = 0), n the judged
  non-relevant documents above, over R; ``binG`` = sum over relevant ranks k of
  1/log2(2 + k - rel(k)), over R; ``G`` = sum over the retrieved documents with a gain
  g > 0, at rank k, of g/log2(2 + I(k) - C(k)), over the sum of the query's positive gains:
  C(k) the gains at ranks 1..k, I(k) the k largest positive gains of the qrels when k <= G+
  (the judged documents with a gain > 0), else all of them plus k - G+ (with gains 0 and 1
  this is ``binG``; the rule past G+ is the one trec_eval master's outputs show).
- ``infAP`` (Yilmaz and Aslam): at each relevant rank k > 1,
  1/k + (k-1)/k * (p/(k-1)) * (r + e)/(r + n + 2e), p the judged documents above (any value),
  r and n the relevant and judged non-relevant ones, e = 0.00001; 1 at rank 1; sum over R.
- gains: a judged document's gain is its value (or the gain ``-m ndcg.L=G`` gives its level),
  0 if below 0 or not judged.  DCG(c) = sum over ranks k <= c of gain/log2(k + 1); IDCG(c) the
  same over the qrels' gains sorted descending; ``ndcg`` = DCG/IDCG over every rank,
  ``ndcg_cut_c`` = DCG(c)/IDCG(c); ``ndcg_rel`` = (sum of DCG(k)/IDCG(k) over the ranks k of
  documents with a gain > 0, plus ndcg for each such judged document not retrieved) over the
  number of judged documents with a gain > 0; ``Rndcg`` = the mean of DCG(k)/IDCG(k) over the
  R-levels k (the judged documents with a gain of at least each positive gain, highest first,
  and the number retrieved when it exceeds the last level by more than one), 0 when R = 0.
- ``utility`` = a rel + b (ret - rel) + c (R - rel) (+ d, not used); ``set_P`` = rel/ret,
  ``set_recall`` = rel/R, ``set_relative_P`` = rel/min(ret, R), ``set_map`` = set_P set_recall,
  ``set_F`` = (1 + b^2) P R / (b^2 P + R).
- ``rbp`` (persistence p) = (1 - p) sum p^(k-1) g(k)/G, g the gain of a relevant document,
  G the largest judgement of the query; ``rbp_resid`` = (1 - p) sum p^(k-1) over the documents
  not in the qrels, plus p^ret; ``unj_c`` = documents not in the qrels at ranks <= c, over c.
- Any ratio with a zero denominator is 0 (trec_eval's convention for one query).

This module computes the measures that count relevant ranks; the per-query arithmetic over a
run's rows is :mod:`annoscore.metrics.ranking_rows`, the gain-based measures (``G``, the DCG
family, ``rbp``) :mod:`annoscore.metrics.ranking_gains`.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import TYPE_CHECKING, Any

from annoscore.metrics.ranking_gains import (
    Ndcg,
    ideal_rankings,
    normalized_gain,
    rank_biased_precision,
    row_gains,
)
from annoscore.metrics.ranking_rows import QueryRows, divide_or_zero
from annoscore.metrics.trec_measures import MIN_GEO_MEAN, MeasureSet

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, FloatArray, IntArray


_EPSILON = 0.00001


def ranking_measures(
    query: IntArray,
    judged: BoolArray,
    value: IntArray,
    qrels_query: IntArray,
    qrels_value: IntArray,
    n_queries: int,
    level: int,
    measures: MeasureSet,
) -> dict[str, Any]:
    """The per-query columns of ``measures`` (see the module doc), keyed as
    :attr:`annoscore.metrics.trec_measures.Output.column` names them (``num_q`` included).

    >>> import numpy as np
    >>> cols = ranking_measures(np.array([0, 0, 0]), np.array([False, True, True]),
    ...     np.array([0, 1, 2]), np.array([0, 0]), np.array([1, 2]), 1, 1,
    ...     MeasureSet.parse(["map", "P.2"]))
    >>> round(float(cols["map_sum"][0]), 4), float(cols["P_2_sum"][0])
    (0.5833, 0.5)

    The queries are taken in pieces of whole queries of about :data:`_PIECE_ROWS` rows (run
    and qrels), each computed alone and the columns joined: every value is a query's own, so
    the pieces change nothing, and their arrays stay small (a large array is memory the
    system maps afresh, page by page, each time; a small one is reused, and stays in cache).
    """
    import numpy as np

    if len(query) + len(qrels_query) <= _PIECE_ROWS or n_queries < 2:
        return _measures(
            (query, judged, value, qrels_query, qrels_value), n_queries, level, measures
        )
    # the run's rows are grouped by query in query order: each query's first row by binary
    # search; the qrels' too when they come so (else counted, and each piece's found)
    everyone = np.arange(n_queries + 1)
    run_starts = np.searchsorted(query, everyone)
    qrels_sorted = bool((qrels_query[1:] >= qrels_query[:-1]).all())
    if qrels_sorted:
        qrels_starts = np.searchsorted(qrels_query, everyone)
    else:
        qrels_starts = np.concatenate([[0], np.cumsum(np.bincount(qrels_query, None, n_queries))])
    total = run_starts[1:] + qrels_starts[1:]
    # each piece ends at the first query whose rows reach the next multiple of the piece size
    ends = np.searchsorted(total, np.arange(_PIECE_ROWS, int(total[-1]), _PIECE_ROWS), "left")
    bounds = [0, *sorted(set((ends + 1).tolist()) - {0, n_queries}), n_queries]
    pieces: list[dict[str, Any]] = []
    for first, stop in itertools.pairwise(bounds):
        a, b = int(run_starts[first]), int(run_starts[stop])
        if qrels_sorted:
            mine: Any = slice(int(qrels_starts[first]), int(qrels_starts[stop]))
        else:
            mine = np.flatnonzero((qrels_query >= first) & (qrels_query < stop))
        pieces.append(
            _measures(
                (
                    query[a:b] - first,
                    judged[a:b],
                    value[a:b],
                    qrels_query[mine] - first,
                    qrels_value[mine],
                ),
                stop - first,
                level,
                measures,
            )
        )
    return {key: np.concatenate([piece[key] for piece in pieces]) for key in pieces[0]}


def recall_rank(x: float, R: IntArray, version: str = "master", least: int = 1) -> IntArray:
    """For each query of ``R`` relevant judgements, the number of relevant documents a ranking
    must have reached for its recall to count as recall level ``x`` (``iprec_at_recall_x``
    and ``11pt_avg`` take the highest precision from there on):

    - trec_eval master: max(1, floor(xR + 0.5)), the nearest whole number, halves up;
    - trec_eval 9.0.8: max(1, floor(xR + 0.9)), xR + 0.9 in doubles: a whole xR is itself,
      any other is rounded up unless its fraction is 0.1 or less (R = 10: 0.105 needs 1, 0.11
      needs 2).  It is not rel(k)/R >= x: 0.7 * 3 is 2.0999999999999996 in doubles, so with
      R = 3 the level 0.7 needs 2 relevant documents (2/3 < 0.7), with R = 16 it needs 12
      (11.2 + 0.9 = 12.1), and 0.3 with R = 57 (17.099999999999998) needs 17.  Found by
      black-box experiments with pytrec-eval-terrier (trec_eval 9.0.8): rankings with
      relevant documents at ranks 1, 3, 5, ... (each rel(k) its own precision), R = 1 to 30
      at every level 0.000 to 1.000 by 0.001 and R = 1 to 300 at the 11 default levels and
      others (0.05, 0.15, 0.333, 0.6667, 0.95, 0.99, 1.5): this rule gave every one of the
      35,430 values; of the first 30,030, rel(k)/R >= x missed 2,510, and this rule with the
      level read as a 32-bit float 44.

    A level above 1 needs more than R: the value is 0, as it is when R = 0 or the ranking
    holds fewer relevant documents than needed.  ``least``: the fewest relevant documents
    a level needs (1, as both versions take it; 0 shows the levels the rule reaches before
    any relevant document, where 9.0.8 divides 0 by 0 for a query with nothing ranked).

    >>> import numpy as np
    >>> R = np.array([3, 10, 16, 57])
    >>> recall_rank(0.7, R).tolist(), recall_rank(0.7, R, "9.0.8").tolist()
    ([2, 7, 11, 40], [2, 7, 12, 40])
    >>> recall_rank(0.3, R).tolist(), recall_rank(0.3, R, "9.0.8").tolist()
    ([1, 3, 5, 17], [1, 3, 5, 17])
    >>> recall_rank(0.15, R).tolist(), recall_rank(0.15, R, "9.0.8").tolist()
    ([1, 2, 2, 9], [1, 2, 3, 9])
    """
    import numpy as np

    half = 0.9 if version == "9.0.8" else 0.5
    need: IntArray = np.maximum(least, np.floor(x * R + half).astype(np.int64))
    return need


_PIECE_ROWS = 1 << 19
"""The rows (run and qrels) of a piece of :func:`ranking_measures`: its float arrays are 4 MiB."""


def _measures(
    piece: tuple[IntArray, BoolArray, IntArray, IntArray, IntArray],
    n_queries: int,
    level: int,
    measures: MeasureSet,
) -> dict[str, Any]:
    """:func:`ranking_measures` of one piece: its ``query``, ``judged``, ``value``,
    ``qrels_query`` and ``qrels_value``."""
    import numpy as np

    query, judged, value, qrels_query, qrels_value = piece

    rows = QueryRows(query, n_queries)
    rank = rows.rank
    threshold = max(level, 0)
    relevant = judged & (value >= threshold)
    nonrelevant = judged & (value >= 0) & (value < threshold)
    # (np.compress: a boolean index costs twice as much)
    R = np.bincount(np.compress(qrels_value >= threshold, qrels_query), None, n_queries)
    judged_nonrelevant = qrels_value >= 0
    judged_nonrelevant &= qrels_value < threshold
    N = np.bincount(np.compress(judged_nonrelevant, qrels_query), None, n_queries)
    hits = np.flatnonzero(relevant)
    hit_rank = rank[hits]
    hit_query = query[hits]
    so_far = rows.cumulative(relevant, hits)  # rel(k) at each relevant rank
    ret = rows.sizes
    rel_ret = np.bincount(hit_query, minlength=n_queries).astype(np.int64)
    out: dict[str, Any] = {"num_q": np.ones(n_queries, dtype=np.int64)}
    whole_counts = {"num_ret": ret, "num_rel": R, "num_rel_ret": rel_ret}

    @cache
    def run_gain(gains: tuple[tuple[int, float], ...]) -> FloatArray:
        """Each row's gain with ``gains`` (each computed once)."""
        return row_gains(value, judged, gains)

    @cache
    def ideal(gains: tuple[tuple[int, float], ...]) -> tuple[IntArray, FloatArray]:
        """The ideal rankings with ``gains`` (each computed once)."""
        return ideal_rankings(qrels_query, qrels_value, gains)

    @cache
    def ndcg(gains: tuple[tuple[int, float], ...]) -> Ndcg:
        """The DCG columns with ``gains`` (each computed once)."""
        return Ndcg(rows, ideal(gains), run_gain(gains))

    @cache
    def rbp_of(p: float) -> tuple[FloatArray, FloatArray]:
        """Rank-biased precision and its residual with persistence ``p`` (computed once)."""
        return rank_biased_precision(rows, judged, value, hits, ideal(()), p)

    @cache
    def unjudged() -> BoolArray:
        return ~judged

    @cache
    def by_hit() -> QueryRows:
        """The relevant rows as rows of their own (rel(k) is the place of rank k there)."""
        return QueryRows(hit_query, n_queries)

    @cache
    def rel_over_rank() -> FloatArray:
        """rel(k)/k at each relevant rank k (computed once)."""
        return so_far / hit_rank

    @cache
    def scan(kind: str) -> FloatArray:
        """Over each query's relevant ranks: the running sum of rel(k)/k (``"sum"``) or the
        largest rel(k)/k from each on (``"max"``), computed once."""
        hits_of = by_hit()
        return (
            hits_of.prefix(rel_over_rank())
            if kind == "sum"
            else hits_of.suffix_max(rel_over_rank())
        )

    @cache
    def iprec(x: float) -> FloatArray:
        """Interpolated precision at recall level ``x`` (each level computed once): the largest
        rel(k)/k over the relevant ranks from the ``need``-th on."""
        need = recall_rank(x, R, measures.version)
        found = np.zeros(n_queries, dtype=np.float64)
        has = (need <= rel_ret) & (R > 0)
        found[has] = scan("max")[by_hit().starts[has] + need[has] - 1]
        return found

    found_by_cut: dict[int, IntArray] = {}
    bprefs: list[FloatArray] = []
    aps: list[FloatArray] = []

    def at_most(cut: Any) -> IntArray:
        """rel(c) per query for a per-query (or single) cut-off c (a single one computed once:
        ``P``, ``recall``, ``relative_P``, ``success`` and ``map_cut`` share it)."""
        if not isinstance(cut, int):
            return rows.upto(relevant, cut)
        if cut not in found_by_cut:
            found_by_cut[cut] = rows.upto(relevant, cut)
        return found_by_cut[cut]

    for output in measures.outputs():
        name, family, cut = output.name, output.measure, output.param
        if output.kind in ("runid", "num_q", "relstring"):
            continue
        column = output.column
        if name in whole_counts:
            out[column] = whole_counts[name]
        elif name == "num_nonrel_judged_ret":
            out[column] = rows.upto(nonrelevant, ret)
        elif name in ("map", "gm_map"):
            if not aps:  # (map and gm_map share it)
                aps.append(divide_or_zero(np.bincount(hit_query, rel_over_rank(), n_queries), R))
            ap = aps[0]
            out[column] = ap if name == "map" else np.log(np.maximum(ap, MIN_GEO_MEAN))
        elif name == "Rprec":
            out[column] = divide_or_zero(at_most(R), R)
        elif name in ("bpref", "gm_bpref"):
            if not bprefs:  # (bpref and gm_bpref share it)
                bprefs.append(_bpref(rows, nonrelevant, hits, R, N))
            bpref = bprefs[0]
            out[column] = bpref if name == "bpref" else np.log(np.maximum(bpref, MIN_GEO_MEAN))
        elif name == "recip_rank":
            first = so_far == 1
            out[column] = np.bincount(hit_query[first], 1.0 / hit_rank[first], n_queries)
        elif family == "iprec_at_recall":
            out[column] = iprec(cut)
        elif family == "P":
            out[column] = at_most(int(cut)) / cut
        elif family == "recall":
            out[column] = divide_or_zero(at_most(int(cut)), R)
        elif name == "infAP":
            out[column] = _inf_ap(rows, judged, relevant, nonrelevant, hits, R)
        elif family == "Rprec_mult":
            limit = np.ceil(cut * R).astype(np.int64)
            out[column] = divide_or_zero(at_most(limit), limit)
        elif name == "utility":
            measure = measures.get("utility")
            assert measure is not None
            a, b, c, _ = measure.params
            out[column] = a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret)
        elif name == "11pt_avg":
            measure = measures.get("11pt_avg")
            assert measure is not None
            total = np.zeros(n_queries, dtype=np.float64)
            for x in measure.params:
                total += iprec(x)
            out[column] = total / len(measure.params)
        elif name == "binG":
            weights = 1.0 / np.log2(2 + hit_rank - so_far)
            out[column] = divide_or_zero(np.bincount(hit_query, weights, n_queries), R)
        elif name == "G":
            out[column] = normalized_gain(rows, qrels_query, qrels_value, ideal(()), run_gain(()))
        elif family in ("ndcg", "ndcg_rel", "ndcg_cut", "Rndcg"):
            chosen = measures.get(family)
            assert chosen is not None
            dcg = ndcg(chosen.gains)
            if family == "ndcg":
                out[column] = dcg.full
            elif family == "ndcg_cut":
                out[column] = dcg.cut(int(cut))
            elif family == "Rndcg":
                out[column] = dcg.r_levels(R)
            else:
                out[column] = dcg.rel()
        elif family == "map_cut":
            # the sum of rel(k)/k over the relevant ranks k <= c: the running sum at the last
            # one (the same additions in the same order as a sum from 0.0: the terms are > 0)
            found = at_most(int(cut))
            total = np.zeros(n_queries, dtype=np.float64)
            has = found > 0
            total[has] = scan("sum")[by_hit().starts[has] + found[has] - 1]
            out[column] = divide_or_zero(total, R)
        elif family == "relative_P":
            out[column] = divide_or_zero(at_most(int(cut)), np.minimum(R, int(cut)))
        elif family == "success":
            out[column] = (at_most(int(cut)) > 0).astype(np.float64)
        elif name.startswith("set_"):
            precision, recall = divide_or_zero(rel_ret, ret), divide_or_zero(rel_ret, R)
            if name == "set_P":
                out[column] = precision
            elif name == "set_recall":
                out[column] = recall
            elif name == "set_relative_P":
                out[column] = divide_or_zero(rel_ret, np.minimum(ret, R))
            elif name == "set_map":
                out[column] = precision * recall
            else:
                measure = measures.get("set_F")
                assert measure is not None
                beta2 = measure.params[0] ** 2
                out[column] = divide_or_zero(
                    (1 + beta2) * precision * recall, beta2 * precision + recall
                )
        elif family == "rbp":
            measure = measures.get("rbp")
            assert measure is not None
            rbp, resid = rbp_of(measure.params[0])
            out[column] = rbp if name == "rbp" else resid
        elif family == "unj":
            out[column] = rows.upto(unjudged(), int(cut)) / cut
        else:  # pragma: no cover - the catalogue and this list are kept together
            raise AssertionError(f"no computation for {name}")
    return out


def _bpref(
    rows: QueryRows,
    nonrelevant: BoolArray,
    hits: IntArray,
    R: IntArray,
    N: IntArray,
) -> FloatArray:
    import numpy as np

    above = rows.cumulative(nonrelevant, hits) - nonrelevant[hits]
    q = rows.query[hits]
    r, n = R[q], N[q]
    term = np.ones(len(hits), dtype=np.float64)
    some = above > 0
    term[some] = 1.0 - np.minimum(above[some], r[some]) / np.minimum(n[some], r[some])
    return divide_or_zero(np.bincount(q, term, rows.n), R)


def _inf_ap(
    rows: QueryRows,
    judged: BoolArray,
    relevant: BoolArray,
    nonrelevant: BoolArray,
    hits: IntArray,
    R: IntArray,
) -> FloatArray:
    import numpy as np

    k = rows.rank[hits].astype(np.float64)
    pooled = (rows.cumulative(judged, hits) - judged[hits]).astype(np.float64)
    rel = (rows.cumulative(relevant, hits) - 1).astype(np.float64)
    nonrel = (rows.cumulative(nonrelevant, hits) - nonrelevant[hits]).astype(np.float64)
    term = np.ones(len(hits), dtype=np.float64)
    later = k > 1
    kk, pp, rr, nn = k[later], pooled[later], rel[later], nonrel[later]
    term[later] = 1.0 / kk + (kk - 1) / kk * (pp / (kk - 1)) * (
        (rr + _EPSILON) / (rr + nn + 2 * _EPSILON)
    )
    return divide_or_zero(np.bincount(rows.query[hits], term, rows.n), R)


def relstrings(
    query: IntArray, judged: BoolArray, value: IntArray, n_queries: int, depth: int
) -> list[str]:
    """trec_eval's ``relstring`` of each query: the judgements of its first ``depth`` ranks
    (``-`` for a document not in the qrels), quoted."""
    import numpy as np

    # the first ``depth`` rows of each query (rows grouped by query, in rank order)
    sizes = np.bincount(query, minlength=n_queries)
    take = np.minimum(sizes, depth)
    start = np.cumsum(sizes) - sizes
    at = np.arange(int(take.sum())) + np.repeat(start - (np.cumsum(take) - take), take)
    q, j, v = query[at], judged[at], value[at]
    shown = v[j]
    if not len(shown) or (int(shown.min()) >= 0 and int(shown.max()) <= 9):
        # one character per rank: the texts are slices of one string
        chars = np.where(j, v + 48, 45).astype(np.uint8).tobytes().decode("ascii")
        bounds = [0, *np.cumsum(np.bincount(q, minlength=n_queries)).tolist()]
        return [f"'{chars[a:b]}'" for a, b in itertools.pairwise(bounds)]
    texts: list[list[str]] = [[] for _ in range(n_queries)]
    for one, is_judged, judgement in zip(q.tolist(), j.tolist(), v.tolist(), strict=True):
        texts[one].append(str(judgement) if is_judged else "-")
    return ["'" + "".join(t) + "'" for t in texts]
