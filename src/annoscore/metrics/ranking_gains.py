"""trec_eval's gain-based measures per query, vectorised: the gains of run rows and of the
ideal rankings, ``G``, the DCG family (``ndcg``, ``ndcg_cut``, ``ndcg_rel``, ``Rndcg``) and
``rbp``/``rbp_resid``.  The formulas are in :mod:`annoscore.metrics.ranking_measures`' module
doc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annoscore.metrics.ranking_rows import QueryRows, divide_or_zero

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, FloatArray, IntArray


def row_gains(
    value: IntArray, judged: BoolArray | None, gains: tuple[tuple[int, float], ...]
) -> FloatArray:
    import numpy as np

    out = np.maximum(value, 0).astype(np.float64)
    for level, gain in gains:
        out[value == level] = gain
    if judged is not None:
        np.copyto(out, 0.0, where=~judged)
    return out


def ideal_rankings(
    qrels_query: IntArray, qrels_value: IntArray, gains: tuple[tuple[int, float], ...]
) -> tuple[IntArray, FloatArray]:
    """Every judgement's query and gain, by query then gain descending: the ideal rankings.
    Judgements of one query with equal gains are alike, so which comes first is not seen.

    One sort of whole numbers (query times the number of distinct gains plus the gain's place
    among them, highest first) when the judgements' values span a small range (a counting
    sort when those numbers are few); else a lexicographic sort of the two.

    >>> import numpy as np
    >>> q, g = ideal_rankings(np.array([1, 0, 1, 0]), np.array([1, 2, 3, -1]), ())
    >>> q.tolist(), g.tolist()
    ([0, 0, 1, 1], [2.0, 0.0, 3.0, 1.0])
    """
    import numpy as np

    gain = row_gains(qrels_value, None, gains)
    if len(gain):
        lo, hi = int(qrels_value.min()), int(qrels_value.max())
        if hi - lo <= max(len(gain), 1 << 16):
            level_gain = row_gains(np.arange(lo, hi + 1, dtype=np.int64), None, gains)
            # a gain of -0.0 equals 0.0 and would be merged with it: not here
            if not bool(((level_gain == 0) & np.signbit(level_gain)).any()):
                distinct, place = np.unique(-level_gain, return_inverse=True)
                width = len(distinct)
                cells = (int(qrels_query.max()) + 1) * width
                if cells < 1 << 62:
                    key = qrels_query.astype(np.int64) * width
                    key += place.reshape(-1)[qrels_value - lo]
                    if cells <= 4 * len(key) + 1024:  # a counting sort: the keys are small
                        key = np.repeat(
                            np.arange(cells, dtype=np.int64), np.bincount(key, None, cells)
                        )
                    else:
                        key.sort(kind="stable")  # the qrels come grouped by query: runs, merged
                    query: IntArray = key // width
                    best: FloatArray = -distinct[key % width]
                    return query, best
    order = np.lexsort((-gain, qrels_query))
    return qrels_query[order], gain[order]


def normalized_gain(
    rows: QueryRows,
    qrels_query: IntArray,
    qrels_value: IntArray,
    ideal: tuple[IntArray, FloatArray],
    gain: FloatArray,
) -> FloatArray:
    """``G`` per query with the default gains (see :mod:`annoscore.metrics.ranking_measures`);
    ``ideal``: the ideal rankings with those gains (:func:`ideal_rankings`), ``gain``: each
    row's (:func:`row_gains`)."""
    import numpy as np

    n = rows.n
    ideal_gain = row_gains(qrels_value, None, ())
    positive = np.flatnonzero(ideal_gain > 0)
    keep = ideal[1] > 0
    best_first = QueryRows(np.compress(keep, ideal[0]), n)
    # whole gains: exact in any order
    ideal_prefix = best_first.whole_prefix(np.compress(keep, ideal[1]))
    total = np.bincount(qrels_query[positive], ideal_gain[positive], n)
    hits = np.flatnonzero(gain > 0)
    q, k = rows.query[hits], rows.rank[hits]
    # C(k) at each gain > 0: the running sum of the gains > 0 alone (the gains left out are
    # 0.0, and x + 0.0 is x for a sum of gains >= 0)
    so_far = QueryRows(q, n).whole_prefix(gain[hits])
    count = best_first.sizes[q]  # at least 1: a retrieved gain > 0 is a judgement with one
    best = ideal_prefix[best_first.starts[q] + np.minimum(k, count) - 1]
    best = np.where(k <= count, best, total[q] + (k - count))
    weights = gain[hits] / np.log2(2 + best - so_far)
    return divide_or_zero(np.bincount(q, weights, n), total)


class Ndcg:
    """The DCG of a run and the ideal DCG of its qrels for one choice of gains, computed once
    and read for ``ndcg``, ``ndcg_cut_c`` and ``ndcg_rel``; ``ideal``: the ideal rankings with
    those gains (:func:`ideal_rankings`), ``gain``: each run row's (:func:`row_gains`)."""

    def __init__(
        self, rows: QueryRows, ideal: tuple[IntArray, FloatArray], gain: FloatArray
    ) -> None:
        import numpy as np

        n = rows.n
        self.rows = rows
        self.gain = gain
        self.discounted = self.gain / rows.discount(rows.rank)
        self._dcg_prefix: FloatArray | None = None
        # the ideal ranking: every judgement's gain, highest first
        ideal_query, self.ideal_gain = ideal
        self.ideal = QueryRows(ideal_query, n)
        ideal_discounted = self.ideal_gain / self.ideal.discount(self.ideal.rank)
        self.ideal_prefix = self.ideal.prefix(ideal_discounted)
        self.with_gain = np.bincount(np.compress(self.ideal_gain > 0, ideal_query), None, n)
        self.full = divide_or_zero(self.dcg_at(rows.sizes), self.ideal_at(self.ideal.sizes))

    @property
    def dcg_prefix(self) -> FloatArray:
        """DCG(k) at each row: its query's running sum of the discounted gains (computed once)."""
        if self._dcg_prefix is None:
            self._dcg_prefix = self.rows.prefix(self.discounted)
        return self._dcg_prefix

    def dcg_at(self, cut: Any) -> FloatArray:
        """DCG(c) per query (c per query or one number), as a sum from 0.0 adds it: the running
        sum at rank min(c, size), plus 0.0 (a sum from 0.0 never ends at -0.0)."""
        import numpy as np

        rows = self.rows
        limit = np.minimum(np.broadcast_to(cut, (rows.n,)), rows.sizes)
        out = np.zeros(rows.n, dtype=np.float64)
        has = limit > 0
        out[has] += self.dcg_prefix[rows.starts[has] + limit[has] - 1]
        return out

    def ideal_at(self, cut: Any) -> FloatArray:
        """IDCG(c) per query (c per query or one number)."""
        import numpy as np

        ideal = self.ideal
        limit = np.minimum(np.broadcast_to(cut, (ideal.n,)), ideal.sizes)
        out = np.zeros(ideal.n, dtype=np.float64)
        has = limit > 0
        out[has] = self.ideal_prefix[ideal.starts[has] + limit[has] - 1]
        return out

    def cut(self, depth: int) -> FloatArray:
        return divide_or_zero(self.dcg_at(depth), self.ideal_at(depth))

    def r_levels(self, relevant: IntArray) -> FloatArray:
        """``Rndcg``: the mean of DCG(k)/IDCG(k) over the R-levels k of each query, the number
        of judged documents with a gain of at least each positive gain (gains descending),
        and the number retrieved when it passes the last level by more than one (trec_eval
        master's rule); 0 when the query has no relevant judgement."""
        import numpy as np

        rows, ideal = self.rows, self.ideal
        n = rows.n
        gain = self.ideal_gain
        # the last ideal row of each positive gain of a query: its rank is a level
        last = np.ones(len(gain), dtype=bool)
        last[:-1] = (ideal.query[1:] != ideal.query[:-1]) | (gain[1:] != gain[:-1])
        at = np.flatnonzero(last & (gain > 0))
        q = ideal.query[at]
        levels = ideal.rank[at]
        ret = rows.sizes
        extra = np.flatnonzero((self.with_gain > 0) & (ret > self.with_gain + 1))
        q = np.concatenate([q, extra])
        levels = np.concatenate([levels, ret[extra]])
        dcg_prefix = self.dcg_prefix
        depth = np.minimum(levels, ret[q])
        dcg = np.zeros(len(q), dtype=np.float64)
        has = depth > 0
        dcg[has] = dcg_prefix[rows.starts[q[has]] + depth[has] - 1]
        ideal_depth = np.minimum(levels, ideal.sizes[q])
        idcg = self.ideal_prefix[ideal.starts[q] + ideal_depth - 1]
        ratio = divide_or_zero(dcg, idcg)
        order = np.argsort(q, kind="stable")
        total = np.bincount(q[order], ratio[order], n)
        count = np.bincount(q, minlength=n)
        out = divide_or_zero(total, count)
        out[relevant == 0] = 0.0
        return out

    def rel(self) -> FloatArray:
        import numpy as np

        rows, ideal = self.rows, self.ideal
        positive = np.flatnonzero(self.gain > 0)
        dcg_prefix = self.dcg_prefix[positive]
        q = rows.query[positive]
        limit = np.minimum(rows.rank[positive], ideal.sizes[q])
        ideal_here = self.ideal_prefix[ideal.starts[q] + limit - 1]
        at_rel = divide_or_zero(dcg_prefix, ideal_here)
        seen = np.bincount(q, minlength=rows.n).astype(np.int64)
        total = np.bincount(q, at_rel, rows.n) + (self.with_gain - seen) * self.full
        return divide_or_zero(total, self.with_gain)


def rank_biased_precision(
    rows: QueryRows,
    judged: BoolArray,
    value: IntArray,
    hits: IntArray,
    ideal: tuple[IntArray, FloatArray],
    p: float,
) -> tuple[FloatArray, FloatArray]:
    """``rbp`` and ``rbp_resid`` per query (``hits``: the relevant rows; ``ideal``: the ideal
    rankings with the default gains, :func:`ideal_rankings`, whose first gain of a query is its
    largest judgement, or 0)."""
    import numpy as np

    n = rows.n
    ideal_query, ideal_gain = ideal
    first = np.searchsorted(ideal_query, np.arange(n + 1))
    top = np.zeros(n, dtype=np.float64)
    judged_query = first[1:] > first[:-1]
    top[judged_query] = ideal_gain[first[:-1][judged_query]]
    deepest = int(rows.sizes.max()) if n else 0
    weights = (1 - p) * np.power(p, np.arange(deepest + 1))  # by rank - 1
    q = rows.query[hits]
    best = top[q]
    use, q, best = hits[best > 0], q[best > 0], best[best > 0]
    gains = weights[rows.rank[use] - 1] * value[use] / best
    rbp: FloatArray = np.bincount(q, weights=gains, minlength=n).astype(np.float64)
    # the judged rows add 0.0: a sum from 0.0 is never -0.0, and x + 0.0 is x
    unjudged = np.where(judged, 0.0, weights[rows.rank - 1])
    resid = np.bincount(rows.query, unjudged, n).astype(np.float64, copy=False)
    resid += np.power(p, rows.sizes)
    return rbp, resid
