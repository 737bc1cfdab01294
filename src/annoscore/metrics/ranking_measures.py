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
  mean over the 11 levels 0.0, 0.1, ..., 1.0.
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
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from annoscore.metrics.trec_measures import MIN_GEO_MEAN, MeasureSet

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
    BoolArray = npt.NDArray[np.bool_]

_EPSILON = 0.00001


def _divide(numerator: Any, denominator: Any) -> FloatArray:
    import numpy as np

    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) != 0)
    return out


class _Rows:
    """Per-row helpers of one run (rows grouped by query, in rank order)."""

    def __init__(self, query: IntArray, n_queries: int) -> None:
        import numpy as np

        self.query = query
        self.n = n_queries
        # the rows are grouped by query in query order: each query's first row by binary search
        bounds = np.searchsorted(query, np.arange(n_queries + 1))
        self.sizes = np.diff(bounds)
        self.starts = bounds[:-1]
        self.rank = np.arange(1, len(query) + 1, dtype=np.int64)
        self.rank -= self.per_row(self.starts)
        self._running: dict[int, tuple[BoolArray, Any]] = {}
        self._layout: list[tuple[int, int, IntArray | None, IntArray | None]] | None = None
        self._firsts: tuple[IntArray, IntArray] | None = None  # rows, their queries' first

    def per_row(self, values: Any) -> Any:
        """``values[query]`` (one value per query, repeated over its rows: the rows are grouped
        by query in query order)."""
        import numpy as np

        return np.repeat(values, self.sizes)

    def discount(self, rank: IntArray) -> FloatArray:
        """``log2(rank + 1)`` of each rank (a table of the ranks there are, gathered)."""
        import numpy as np

        top = int(rank.max()) if len(rank) else 0
        table: FloatArray = np.log2(np.arange(1, top + 2, dtype=np.float64))
        out: FloatArray = table[rank]
        return out

    def prefix(self, values: FloatArray) -> FloatArray:
        """Each query's own running sum of ``values`` (one per row), in rank order, added left to
        right from the query's first row, as trec_eval adds them: a running sum over every
        query minus the sum before the query would let the queries before round it (a
        query's value would depend on the others, and on how a corpus is cut).

        The queries are put in tables by width (a power of two at least their size, so the
        tables hold at most twice the rows), each query a row padded with zeros after its
        end, and every row summed at once (``np.cumsum`` along a row adds left to right, one
        addition per element: the same additions as a loop).

        >>> import numpy as np
        >>> _Rows(np.array([0, 0, 0, 2, 2]), 3).prefix(np.array([0.1, 0.2, 0.3, 1.0, 2.0]))
        array([0.1, 0.3, 0.6, 1. , 3. ])
        """
        import numpy as np

        return self._accumulate(values, np.add, 0.0, False)

    def whole_prefix(self, values: FloatArray) -> FloatArray:
        """:meth:`prefix` of whole numbers: one running sum over every row, less the sum
        before each query's first row, when every value is a whole number (not -0.0) and the
        sum of their sizes is below 2**53 (every partial sum is then exact, in any order: the
        same numbers as the query's own sum); else :meth:`prefix`.

        >>> import numpy as np
        >>> _Rows(np.array([0, 0, 0, 2, 2]), 3).whole_prefix(np.array([1.0, 2.0, 3.0, 1.0, 2.0]))
        array([1., 3., 6., 1., 3.])
        """
        import numpy as np

        if not len(values):
            return np.array(values, dtype=np.float64)
        whole = float(np.abs(values).sum()) < 2.0**53 and bool((np.floor(values) == values).all())
        if not whole or bool(np.signbit(values[values == 0]).any()):  # -0.0 starts a sum apart
            return self.prefix(values)
        running: FloatArray = np.cumsum(values, dtype=np.float64)
        before = np.zeros(self.n, dtype=np.float64)
        has = self.starts > 0
        before[has] = running[self.starts[has] - 1]
        running -= self.per_row(before)
        return running

    def suffix_max(self, values: FloatArray) -> FloatArray:
        """The largest of ``values`` at each row and the rows of its query after it (a maximum
        is exact: any order of comparing gives it).

        >>> import numpy as np
        >>> _Rows(np.array([0, 0, 0, 2, 2]), 3).suffix_max(np.array([0.5, 0.2, 0.3, 1.0, 0.4]))
        array([0.5, 0.3, 0.3, 1. , 0.4])
        """
        import numpy as np

        return self._accumulate(values, np.maximum, -np.inf, True)

    def _accumulate(self, values: FloatArray, ufunc: Any, fill: float, reverse: bool) -> FloatArray:
        """``ufunc.accumulate`` along each query's rows (from its last row when ``reverse``),
        in the tables of :meth:`prefix` (padded with ``fill``), each query a column of its
        table (:meth:`layout`): :func:`_along` steps down the columns, all at once."""
        import numpy as np

        out: FloatArray = np.array(values, dtype=np.float64)
        if len(out) < 2 or int(self.sizes.max()) < 2:
            return out
        for w, count, at, cell in self.layout():
            if cell is None:  # every query has the same size: the rows are a table already
                _along(out.reshape(count, w).T, ufunc, reverse)
                continue
            table = np.full(count * w, fill, dtype=np.float64)
            table[cell] = out if at is None else out[at]
            _along(table.reshape(w, count), ufunc, reverse)
            if at is None:
                out = table[cell]
            else:
                out[at] = table[cell]
        return out

    def layout(self) -> list[tuple[int, int, IntArray | None, IntArray | None]]:
        """The tables of :meth:`prefix` (computed once): for each width ``w``, the number of
        queries of that width, the rows in them (``None``: every row) and each row's cell in
        a table of ``w`` rows, one column per query of that width, rank ``k`` in row ``k - 1``
        (``None``: every query has ``w`` rows, and the rows are a table with one query a row)."""
        import numpy as np

        if self._layout is not None:
            return self._layout
        sizes = self.sizes
        exponent = np.frexp(np.maximum(sizes - 1, 1))[1].astype(np.int64)
        width = np.left_shift(np.int64(1), exponent)
        width[sizes < 2] = 0
        # the widths there are, in increasing order (np.unique would import numpy.ma: 10 ms)
        classes = [1 << int(e) for e in np.flatnonzero(np.bincount(exponent[sizes >= 2]))]
        # the rows of a class are all the rows when no query of one row is left out
        row_width = self.per_row(width) if len(classes) > 1 or bool((sizes == 1).any()) else None
        layout: list[tuple[int, int, IntArray | None, IntArray | None]] = []
        for w in classes:
            queries = np.flatnonzero(width == w)
            if row_width is None and len(queries) == self.n and bool((sizes == sizes[0]).all()):
                layout.append((int(sizes[0]), self.n, None, None))
                continue
            at = np.flatnonzero(row_width == w) if row_width is not None else None
            query = self.query if at is None else self.query[at]
            rank = self.rank if at is None else self.rank[at]
            slot = np.zeros(self.n, dtype=np.int64)
            slot[queries] = np.arange(len(queries))
            cell = rank - 1
            cell *= len(queries)
            cell += slot[query]
            layout.append((w, len(queries), at, cell))
        self._layout = layout
        return layout

    def running(self, flags: BoolArray) -> Any:
        """The flagged rows before each row and at the end: ``running(f)[i]`` = ``f[:i].sum()``
        (computed once for each array of flags; whole numbers: a narrower count is the same
        count, and twice as fast)."""
        import numpy as np

        known = self._running.get(id(flags))
        if known is not None and known[0] is flags:
            return known[1]
        total = np.zeros(len(flags) + 1, dtype=np.int32 if len(flags) < 1 << 31 else np.int64)
        np.cumsum(flags, out=total[1:])
        self._running[id(flags)] = (flags, total)
        return total

    def cumulative(self, flags: BoolArray, at: IntArray) -> IntArray:
        """For each row of ``at``, the flagged rows of its query at its rank or before."""
        import numpy as np

        total = self.running(flags)
        known = self._firsts
        if known is None or known[0] is not at:
            known = self._firsts = (at, self.starts[self.query[at]])
        out: IntArray = (total[at + 1] - total[known[1]]).astype(np.int64)
        return out

    def upto(self, flags: BoolArray, cut: Any) -> IntArray:
        """Per query, the flagged rows at ranks 1 to ``cut`` (one cut-off or one per query)."""
        import numpy as np

        total = self.running(flags)
        depth = np.minimum(np.maximum(cut, 0), self.sizes)  # np.clip's wrapper costs more
        out: IntArray = (total[self.starts + depth] - total[self.starts]).astype(np.int64)
        return out


_MANY_COLUMNS = 64
"""Columns of a table from which :func:`_along` steps down them in a loop of NumPy calls (one
call a row, over every column at once) rather than calling ``accumulate`` on each column."""


def _along(table: FloatArray, ufunc: Any, reverse: bool) -> None:
    """``ufunc.accumulate`` down each column of ``table`` (from its last row when
    ``reverse``), in place: row ``k`` becomes ``ufunc(row k - 1, row k)`` (``ufunc(row k + 1,
    row k)``), the operations and their order that ``accumulate`` makes along a column.  With
    many columns (:data:`_MANY_COLUMNS`) a row at a time, every column in one call; else a
    column at a time.

    >>> import numpy as np
    >>> table = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> _along(table, np.add, False)
    >>> table.tolist()
    [[1.0, 2.0], [4.0, 6.0], [9.0, 12.0]]
    """
    rows, columns = table.shape
    if rows < 2:
        return
    if columns < _MANY_COLUMNS:
        step = table[::-1] if reverse else table
        ufunc.accumulate(step, axis=0, out=step)
        return
    for k in range(rows - 2, -1, -1) if reverse else range(1, rows):
        before = table[k + 1] if reverse else table[k - 1]
        ufunc(before, table[k], out=table[k])


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

    rows = _Rows(query, n_queries)
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
    ndcg: dict[tuple[tuple[int, float], ...], _Ndcg] = {}

    def add(name: str, column: Any) -> None:
        out[name] = column

    levels: dict[float, FloatArray] = {}
    ideals: dict[tuple[tuple[int, float], ...], tuple[IntArray, FloatArray]] = {}
    rbps: dict[float, tuple[FloatArray, FloatArray]] = {}

    run_gains: dict[tuple[tuple[int, float], ...], FloatArray] = {}

    def run_gain(gains: tuple[tuple[int, float], ...]) -> FloatArray:
        """Each row's gain with ``gains`` (each computed once)."""
        if gains not in run_gains:
            run_gains[gains] = _gain(value, judged, gains)
        return run_gains[gains]

    def ideal(gains: tuple[tuple[int, float], ...]) -> tuple[IntArray, FloatArray]:
        """The ideal rankings with ``gains`` (each computed once)."""
        if gains not in ideals:
            ideals[gains] = _ideal(qrels_query, qrels_value, gains)
        return ideals[gains]

    not_judged: list[BoolArray] = []

    def unjudged() -> BoolArray:
        if not not_judged:
            not_judged.append(~judged)
        return not_judged[0]

    hit_rows: list[_Rows] = []

    def by_hit() -> _Rows:
        """The relevant rows as rows of their own (rel(k) is the place of rank k there)."""
        if not hit_rows:
            hit_rows.append(_Rows(hit_query, n_queries))
        return hit_rows[0]

    hit_precision: list[FloatArray] = []

    def rel_over_rank() -> FloatArray:
        """rel(k)/k at each relevant rank k (computed once)."""
        if not hit_precision:
            hit_precision.append(so_far / hit_rank)
        return hit_precision[0]

    scans: dict[str, FloatArray] = {}

    def scan(kind: str) -> FloatArray:
        """Over each query's relevant ranks: the running sum of rel(k)/k (``"sum"``) or the
        largest rel(k)/k from each on (``"max"``), computed once."""
        if kind not in scans:
            hits_of = by_hit()
            scans[kind] = (
                hits_of.prefix(rel_over_rank())
                if kind == "sum"
                else hits_of.suffix_max(rel_over_rank())
            )
        return scans[kind]

    def iprec(x: float) -> FloatArray:
        """Interpolated precision at recall level ``x`` (each level computed once): the largest
        rel(k)/k over the relevant ranks from the ``need``-th on."""
        if x not in levels:
            need = np.maximum(1, np.floor(x * R + 0.5).astype(np.int64))
            found = np.zeros(n_queries, dtype=np.float64)
            has = (need <= rel_ret) & (R > 0)
            found[has] = scan("max")[by_hit().starts[has] + need[has] - 1]
            levels[x] = found
        return levels[x]

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
        if name == "num_ret":
            add(column, ret)
        elif name == "num_rel":
            add(column, R)
        elif name == "num_rel_ret":
            add(column, rel_ret)
        elif name == "num_nonrel_judged_ret":
            add(column, rows.upto(nonrelevant, ret))
        elif name in ("map", "gm_map"):
            if not aps:  # (map and gm_map share it)
                aps.append(_divide(np.bincount(hit_query, rel_over_rank(), n_queries), R))
            ap = aps[0]
            add(column, ap if name == "map" else np.log(np.maximum(ap, MIN_GEO_MEAN)))
        elif name == "Rprec":
            add(column, _divide(at_most(R), R))
        elif name in ("bpref", "gm_bpref"):
            if not bprefs:  # (bpref and gm_bpref share it)
                bprefs.append(_bpref(rows, relevant, nonrelevant, hits, R, N))
            bpref = bprefs[0]
            add(column, bpref if name == "bpref" else np.log(np.maximum(bpref, MIN_GEO_MEAN)))
        elif name == "recip_rank":
            first = so_far == 1
            add(column, np.bincount(hit_query[first], 1.0 / hit_rank[first], n_queries))
        elif family == "iprec_at_recall":
            add(column, iprec(cut))
        elif family == "P":
            add(column, at_most(int(cut)) / cut)
        elif family == "recall":
            add(column, _divide(at_most(int(cut)), R))
        elif name == "infAP":
            add(column, _inf_ap(rows, judged, relevant, nonrelevant, hits, R))
        elif family == "Rprec_mult":
            limit = np.ceil(cut * R).astype(np.int64)
            add(column, _divide(at_most(limit), limit))
        elif name == "utility":
            measure = measures.get("utility")
            assert measure is not None
            a, b, c, _ = measure.params
            add(column, a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret))
        elif name == "11pt_avg":
            measure = measures.get("11pt_avg")
            assert measure is not None
            total = np.zeros(n_queries, dtype=np.float64)
            for x in measure.params:
                total += iprec(x)
            add(column, total / len(measure.params))
        elif name == "binG":
            weights = 1.0 / np.log2(2 + hit_rank - so_far)
            add(column, _divide(np.bincount(hit_query, weights, n_queries), R))
        elif name == "G":
            add(
                column,
                _normalized_gain(rows, qrels_query, qrels_value, ideal(()), run_gain(())),
            )
        elif family in ("ndcg", "ndcg_rel", "ndcg_cut", "Rndcg"):
            chosen = measures.get(family)
            assert chosen is not None
            dcg = ndcg.get(chosen.gains)
            if dcg is None:
                dcg = ndcg[chosen.gains] = _Ndcg(
                    rows,
                    judged,
                    value,
                    qrels_query,
                    qrels_value,
                    chosen.gains,
                    ideal(chosen.gains),
                    run_gain(chosen.gains),
                )
            if family == "ndcg":
                add(column, dcg.full)
            elif family == "ndcg_cut":
                add(column, dcg.cut(int(cut)))
            elif family == "Rndcg":
                add(column, dcg.r_levels(R))
            else:
                add(column, dcg.rel())
        elif family == "map_cut":
            # the sum of rel(k)/k over the relevant ranks k <= c: the running sum at the last
            # one (the same additions in the same order as a sum from 0.0: the terms are > 0)
            found = at_most(int(cut))
            total = np.zeros(n_queries, dtype=np.float64)
            has = found > 0
            total[has] = scan("sum")[by_hit().starts[has] + found[has] - 1]
            add(column, _divide(total, R))
        elif family == "relative_P":
            add(column, _divide(at_most(int(cut)), np.minimum(R, int(cut))))
        elif family == "success":
            add(column, (at_most(int(cut)) > 0).astype(np.float64))
        elif name.startswith("set_"):
            precision, recall = _divide(rel_ret, ret), _divide(rel_ret, R)
            if name == "set_P":
                add(column, precision)
            elif name == "set_recall":
                add(column, recall)
            elif name == "set_relative_P":
                add(column, _divide(rel_ret, np.minimum(ret, R)))
            elif name == "set_map":
                add(column, precision * recall)
            else:
                measure = measures.get("set_F")
                assert measure is not None
                beta2 = measure.params[0] ** 2
                add(column, _divide((1 + beta2) * precision * recall, beta2 * precision + recall))
        elif family == "rbp":
            measure = measures.get("rbp")
            assert measure is not None
            p = measure.params[0]
            if p not in rbps:
                rbps[p] = _rbp(rows, judged, value, hits, ideal(()), p)
            rbp, resid = rbps[p]
            add(column, rbp if name == "rbp" else resid)
        elif family == "unj":
            add(column, rows.upto(unjudged(), int(cut)) / cut)
        else:  # pragma: no cover - the catalogue and this list are kept together
            raise AssertionError(f"no computation for {name}")
    return out


def _bpref(
    rows: _Rows,
    relevant: BoolArray,
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
    return _divide(np.bincount(q, term, rows.n), R)


def _inf_ap(
    rows: _Rows,
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
    return _divide(np.bincount(rows.query[hits], term, rows.n), R)


def _gain(
    value: IntArray, judged: BoolArray | None, gains: tuple[tuple[int, float], ...]
) -> FloatArray:
    import numpy as np

    out = np.maximum(value, 0).astype(np.float64)
    for level, gain in gains:
        out[value == level] = gain
    if judged is not None:
        np.copyto(out, 0.0, where=~judged)
    return out


def _ideal(
    qrels_query: IntArray, qrels_value: IntArray, gains: tuple[tuple[int, float], ...]
) -> tuple[IntArray, FloatArray]:
    """Every judgement's query and gain, by query then gain descending: the ideal rankings.
    Judgements of one query with equal gains are alike, so which comes first is not seen.

    One sort of whole numbers (query times the number of distinct gains plus the gain's place
    among them, highest first) when the judgements' values span a small range (a counting
    sort when those numbers are few); else a lexicographic sort of the two.

    >>> import numpy as np
    >>> q, g = _ideal(np.array([1, 0, 1, 0]), np.array([1, 2, 3, -1]), ())
    >>> q.tolist(), g.tolist()
    ([0, 0, 1, 1], [2.0, 0.0, 3.0, 1.0])
    """
    import numpy as np

    gain = _gain(qrels_value, None, gains)
    if len(gain):
        lo, hi = int(qrels_value.min()), int(qrels_value.max())
        if hi - lo <= max(len(gain), 1 << 16):
            level_gain = _gain(np.arange(lo, hi + 1, dtype=np.int64), None, gains)
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


def _normalized_gain(
    rows: _Rows,
    qrels_query: IntArray,
    qrels_value: IntArray,
    ideal: tuple[IntArray, FloatArray],
    gain: FloatArray,
) -> FloatArray:
    """``G`` per query with the default gains (see the module doc); ``ideal``: the ideal
    rankings with those gains (:func:`_ideal`), ``gain``: each row's (:func:`_gain`)."""
    import numpy as np

    n = rows.n
    ideal_gain = _gain(qrels_value, None, ())
    positive = np.flatnonzero(ideal_gain > 0)
    keep = ideal[1] > 0
    best_first = _Rows(np.compress(keep, ideal[0]), n)
    # whole gains: exact in any order
    ideal_prefix = best_first.whole_prefix(np.compress(keep, ideal[1]))
    total = np.bincount(qrels_query[positive], ideal_gain[positive], n)
    hits = np.flatnonzero(gain > 0)
    q, k = rows.query[hits], rows.rank[hits]
    # C(k) at each gain > 0: the running sum of the gains > 0 alone (the gains left out are
    # 0.0, and x + 0.0 is x for a sum of gains >= 0)
    so_far = _Rows(q, n).whole_prefix(gain[hits])
    count = best_first.sizes[q]  # at least 1: a retrieved gain > 0 is a judgement with one
    best = ideal_prefix[best_first.starts[q] + np.minimum(k, count) - 1]
    best = np.where(k <= count, best, total[q] + (k - count))
    weights = gain[hits] / np.log2(2 + best - so_far)
    return _divide(np.bincount(q, weights, n), total)


class _Ndcg:
    """The DCG of a run and the ideal DCG of its qrels for one choice of gains, computed once
    and read for ``ndcg``, ``ndcg_cut_c`` and ``ndcg_rel``."""

    def __init__(
        self,
        rows: _Rows,
        judged: BoolArray,
        value: IntArray,
        qrels_query: IntArray,
        qrels_value: IntArray,
        gains: tuple[tuple[int, float], ...],
        ideal: tuple[IntArray, FloatArray] | None = None,
        gain: FloatArray | None = None,
    ) -> None:
        import numpy as np

        n = rows.n
        self.rows = rows
        self.gain = _gain(value, judged, gains) if gain is None else gain
        self.discounted = self.gain / rows.discount(rows.rank)
        self._dcg_prefix: FloatArray | None = None
        # the ideal ranking: every judgement's gain, highest first
        ideal_query, self.ideal_gain = (
            ideal if ideal is not None else _ideal(qrels_query, qrels_value, gains)
        )
        self.ideal = _Rows(ideal_query, n)
        ideal_discounted = self.ideal_gain / self.ideal.discount(self.ideal.rank)
        self.ideal_prefix = self._prefix(self.ideal, ideal_discounted)
        self.with_gain = np.bincount(np.compress(self.ideal_gain > 0, ideal_query), None, n)
        self.full = _divide(self.dcg_at(rows.sizes), self.ideal_at(self.ideal.sizes))

    @staticmethod
    def _prefix(r: _Rows, values: FloatArray) -> FloatArray:
        """Each query's own running sum (:meth:`_Rows.prefix`)."""
        return r.prefix(values)

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
        return _divide(self.dcg_at(depth), self.ideal_at(depth))

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
        ratio = np.zeros(len(q), dtype=np.float64)
        np.divide(dcg, idcg, out=ratio, where=idcg != 0)
        order = np.argsort(q, kind="stable")
        total = np.bincount(q[order], ratio[order], n)
        count = np.bincount(q, minlength=n)
        out = _divide(total, count)
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
        at_rel = np.zeros(len(positive), dtype=np.float64)
        np.divide(dcg_prefix, ideal_here, out=at_rel, where=ideal_here != 0)
        seen = np.bincount(q, minlength=rows.n).astype(np.int64)
        total = np.bincount(q, at_rel, rows.n) + (self.with_gain - seen) * self.full
        return _divide(total, self.with_gain)


def _rbp(
    rows: _Rows,
    judged: BoolArray,
    value: IntArray,
    hits: IntArray,
    ideal: tuple[IntArray, FloatArray],
    p: float,
) -> tuple[FloatArray, FloatArray]:
    """``rbp`` and ``rbp_resid`` per query (``hits``: the relevant rows; ``ideal``: the ideal
    rankings with the default gains, :func:`_ideal`, whose first gain of a query is its largest
    judgement, or 0)."""
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
