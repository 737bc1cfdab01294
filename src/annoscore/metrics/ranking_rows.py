"""The rows of a run grouped by query, in rank order, and what trec_eval's measures compute
over each query's rows: ranks, running sums added as trec_eval adds them (left to right from
the query's first row), running maxima, counts of flagged rows up to a rank, and the one
division rule of a query's ratios (a zero denominator gives 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, FloatArray, IntArray


def divide_or_zero(numerator: Any, denominator: Any) -> FloatArray:
    import numpy as np

    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) != 0)
    return out


class QueryRows:
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
        >>> QueryRows(np.array([0, 0, 0, 2, 2]), 3).prefix(np.array([0.1, 0.2, 0.3, 1.0, 2.0]))
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
        >>> rows = QueryRows(np.array([0, 0, 0, 2, 2]), 3)
        >>> rows.whole_prefix(np.array([1.0, 2.0, 3.0, 1.0, 2.0]))
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
        >>> QueryRows(np.array([0, 0, 0, 2, 2]), 3).suffix_max(np.array([0.5, 0.2, 0.3, 1.0, 0.4]))
        array([0.5, 0.3, 0.3, 1. , 0.4])
        """
        import numpy as np

        return self._accumulate(values, np.maximum, -np.inf, True)

    def _accumulate(self, values: FloatArray, ufunc: Any, fill: float, reverse: bool) -> FloatArray:
        """``ufunc.accumulate`` along each query's rows (from its last row when ``reverse``),
        in the tables of :meth:`prefix` (padded with ``fill``), each query a column of its
        table (:meth:`layout`): :func:`accumulate_down` steps down the columns, all at once."""
        import numpy as np

        out: FloatArray = np.array(values, dtype=np.float64)
        if len(out) < 2 or int(self.sizes.max()) < 2:
            return out
        for w, count, at, cell in self.layout():
            if cell is None:  # every query has the same size: the rows are a table already
                accumulate_down(out.reshape(count, w).T, ufunc, reverse)
                continue
            table = np.full(count * w, fill, dtype=np.float64)
            table[cell] = out if at is None else out[at]
            accumulate_down(table.reshape(w, count), ufunc, reverse)
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


MANY_COLUMNS = 64
"""Columns of a table from which :func:`accumulate_down` steps down them in a loop of NumPy
calls (one call a row, over every column at once) rather than calling ``accumulate`` on each
column."""


def accumulate_down(table: FloatArray, ufunc: Any, reverse: bool) -> None:
    """``ufunc.accumulate`` down each column of ``table`` (from its last row when
    ``reverse``), in place: row ``k`` becomes ``ufunc(row k - 1, row k)`` (``ufunc(row k + 1,
    row k)``), the operations and their order that ``accumulate`` makes along a column.  With
    many columns (:data:`MANY_COLUMNS`) a row at a time, every column in one call; else a
    column at a time.

    >>> import numpy as np
    >>> table = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> accumulate_down(table, np.add, False)
    >>> table.tolist()
    [[1.0, 2.0], [4.0, 6.0], [9.0, 12.0]]
    """
    rows, columns = table.shape
    if rows < 2:
        return
    if columns < MANY_COLUMNS:
        step = table[::-1] if reverse else table
        ufunc.accumulate(step, axis=0, out=step)
        return
    for k in range(rows - 2, -1, -1) if reverse else range(1, rows):
        before = table[k + 1] if reverse else table[k - 1]
        ufunc(before, table[k], out=table[k])
