"""A TREC run joined with its qrels and ranked, as trec_eval joins and ranks them.

- :func:`judge`: each run row's judgment (the qrels row of the same query and document, the
  last of duplicates), by exact identity: two ids are the same only when their bytes are
  (a hash only orders candidates; equal hashes are compared on every key column); a document
  retrieved twice for one query is an :class:`InputError`.
- :func:`trec_order`: the run's rows by query, score descending, then document id descending
  in byte order (trec_eval's order; the run's rank column is ignored).
- :func:`float32_scores`: the scores as trec_eval 9.0.8 ranks them (32-bit floats).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annoscore.errors import InputError
from annoscore.formats.trec import (
    DocumentKeys,
    TrecColumns,
    document_keys,
    shown,
)
from annoscore.records import Fields

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, FloatArray, IntArray, WordArray


class Judged(Fields):
    """A run joined with its qrels, each (query, document) identified by its bytes.

    ``queries``: every query id, the qrels' first (first-seen order, indices below
    ``judged_queries``), then the run's others; ``run_queries``: where each of the run's own
    query ids (``run.queries``) is there; ``run_query``: each run row's query there;
    ``judgment``: the qrels row that judges each run row (the last line of duplicates), -1 if
    none; ``judgments``: the qrels rows that count (the last line of each judged (query,
    document)); ``duplicate_lines``: the qrels lines that repeat an earlier
    (query, document), in file order; ``run_keys``: the run's document keys
    (:func:`annoscore.formats.trec.document_keys`).
    """

    __slots__ = (
        "duplicate_lines",
        "judged_queries",
        "judgment",
        "judgments",
        "queries",
        "run_keys",
        "run_queries",
        "run_query",
    )
    duplicate_lines: IntArray
    judged_queries: int
    judgment: IntArray
    judgments: IntArray
    queries: list[bytes]
    run_keys: DocumentKeys
    run_queries: IntArray
    run_query: IntArray


def judge(qrels: TrecColumns, run: TrecColumns) -> Judged:
    """Join ``run`` with ``qrels`` by exact (query, document) identity; an :class:`InputError`
    at the second line retrieving a document again for a query.

    Every row of both files gets key columns (its query, then its document's key columns,
    exact: :func:`document_keys`); the rows are sorted by a hash of their keys with their row
    number as the tie-break (qrels rows first, in file order), and neighbours with equal hashes
    are compared on every column.  Rows whose hashes collide without their keys being equal are
    sorted again by the keys themselves, so a collision costs time, never a judgment.  Each
    group of equal keys then holds a (query, document)'s judgments in line order, then the run
    rows retrieving it.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from annoscore.formats.trec import read_qrels, read_run
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "q").write_text("1 0 abcdefgh 1\\n1 0 abcdefghi 0\\n")
    >>> _ = (folder / "r").write_text("1 Q0 abcdefgh 1 1 r\\n1 Q0 x 2 0.5 r\\n")
    >>> judge(read_qrels(folder / "q"), read_run(folder / "r")).judgment.tolist()
    [0, -1]
    """
    import numpy as np

    index = {q: i for i, q in enumerate(qrels.queries)}
    queries = list(qrels.queries)
    run_to_all = []
    for q in run.queries:
        at = index.get(q)
        if at is None:
            at = index[q] = len(queries)
            queries.append(q)
        run_to_all.append(at)
    run_queries = np.array(run_to_all, dtype=np.int64)
    # the run's queries numbered as the qrels' first ones, in order: its own numbers are these
    same_numbers = bool((run_queries == np.arange(len(run_queries))).all())
    run_query = run.query if same_numbers else run_queries[run.query]
    qrels_keys, run_keys = document_keys(qrels, run)
    judged = len(qrels)
    rows = _Rows(
        [
            [qrels.query.view(np.uint64), *qrels_keys.columns],
            [run_query.view(np.uint64), *run_keys.columns],
        ]
    )
    order, same = _exact_groups(rows)
    del rows
    # the positions whose row equals the one before (few: the rest is read only there)
    equal_to_previous = np.flatnonzero(same)
    run_here = order[equal_to_previous] >= judged
    run_before = order[equal_to_previous - 1] >= judged
    # a run row after a run row of its group: the document is retrieved again
    again = equal_to_previous[run_here & run_before]
    if len(again):
        second = order[again] - judged
        at = int(np.argmin(run.line[second]))
        a, b = int(order[again[at] - 1] - judged), int(second[at])
        raise InputError(
            f"document {shown(run.document(b))} is retrieved twice for query "
            f"{shown(run.queries[run.query[b]])} (also on line {int(run.line[a])}); "
            "trec_eval refuses duplicates",
            run.path,
            int(run.line[b]),
        )
    # a qrels row after a qrels row of its group repeats a judgment (the last one counts)
    repeated = equal_to_previous[~run_here & ~run_before]
    duplicate_lines = np.sort(qrels.line[order[repeated]])
    last = order < judged
    last[repeated - 1] = False
    judgments = np.compress(last, order)  # (a boolean index costs twice as much)
    # the first run row of a group that holds a judgment: the judgment just before it
    hit = equal_to_previous[run_here & ~run_before]
    judgment = np.full(len(run), -1, dtype=np.int64)
    judgment[order[hit] - judged] = order[hit - 1]
    return Judged(
        queries=queries,
        judged_queries=len(qrels.queries),
        run_queries=run_queries,
        run_query=run_query,
        judgment=judgment,
        judgments=judgments,
        duplicate_lines=duplicate_lines,
        run_keys=run_keys,
    )


def _candidate_hash(columns: list[WordArray], out: WordArray) -> None:
    """A 64-bit hash of each row of ``columns`` into ``out`` (equal rows, equal hashes): a sum of
    the columns times odd constants, then mixed.  It only orders candidates:
    :func:`_exact_groups` compares the columns themselves, so rows that collide cost time,
    never a wrong group."""
    import numpy as np

    np.multiply(columns[0], np.uint64(0x9E3779B97F4A7C15), out=out)
    term = np.empty_like(out)
    for i, column in enumerate(columns[1:]):
        np.multiply(column, np.uint64(0xBF58476D1CE4E5B9 + 2 * i), out=term)
        out += term
    del term
    out ^= out >> np.uint64(31)
    out *= np.uint64(0x94D049BB133111EB)
    out ^= out >> np.uint64(29)


class _Rows:
    """The rows of tables that have the same columns, numbered one table after the other,
    without copying them into one table."""

    def __init__(self, tables: list[list[WordArray]]) -> None:
        self.tables = tables
        self.starts = [0]
        for table in tables:
            self.starts.append(self.starts[-1] + len(table[0]))

    def __len__(self) -> int:
        return self.starts[-1]

    def hash_into(self, out: WordArray) -> None:
        """:func:`_candidate_hash` of every row into ``out``."""
        for table, start, stop in zip(self.tables, self.starts, self.starts[1:], strict=False):
            _candidate_hash(table, out[start:stop])

    def largest_first(self) -> int:
        """The largest value of the first column (0 without rows)."""
        return max((int(table[0].max()) for table in self.tables if len(table[0])), default=0)

    def first_into(self, out: WordArray, shift: int) -> None:
        """Put the first column, shifted left by ``shift`` bits, into ``out``'s bits above it
        (``out``'s bits there are zero)."""
        import numpy as np

        for table, start, stop in zip(self.tables, self.starts, self.starts[1:], strict=False):
            out[start:stop] |= table[0] << np.uint64(shift)

    def grouped(self) -> tuple[IntArray, IntArray] | None:
        """Where each row goes when the rows are grouped by their first column, in increasing
        order (within a value, each table's rows in order, one table after the other), and
        the number of rows of each value 0, 1, ...; ``None`` unless every table's first column
        is non-decreasing (its rows grouped so already)."""
        import numpy as np

        firsts = [table[0] for table in self.tables]
        if any(not bool((f[1:] >= f[:-1]).all()) for f in firsts):
            return None
        values = np.arange(self.largest_first() + 2, dtype=np.uint64)
        bounds = [np.searchsorted(f, values) for f in firsts]
        sizes = np.zeros(len(values) - 1, dtype=np.int64)
        for b in bounds:
            sizes += np.diff(b)
        at = np.cumsum(sizes) - sizes  # where each value's rows start
        positions = np.empty(len(self), dtype=np.int64)
        for b, start, stop in zip(bounds, self.starts, self.starts[1:], strict=False):
            count = np.diff(b)  # the rows of each value, one after the other (sorted)
            np.add(
                np.repeat(at - b[:-1], count), np.arange(stop - start), out=positions[start:stop]
            )
            at = at + count
        return positions, sizes

    def columns(self, rows: IntArray, which: list[int]) -> list[WordArray]:
        """Columns ``which`` of ``rows`` (the rows of each table found once)."""
        import numpy as np

        out = [np.empty(len(rows), dtype=np.uint64) for _ in which]
        for table, start, stop in zip(self.tables, self.starts, self.starts[1:], strict=False):
            if len(self.tables) == 1:
                inside, local = None, rows
            else:
                inside = np.flatnonzero((rows >= start) & (rows < stop))
                local = rows[inside] - start
            for column, k in zip(out, which, strict=True):
                if inside is None:
                    column[:] = table[k][local]
                else:
                    column[inside] = table[k][local]
        return out

    def equal(self, a: IntArray, b: IntArray) -> BoolArray:
        """Whether rows ``a[i]`` and ``b[i]`` are equal in every column."""
        import numpy as np

        equal: BoolArray = np.ones(len(a), dtype=bool)
        if len(self.tables) == 2 and len(a):
            split = self.starts[1]
            if int(a.max()) < split <= int(b.min()):  # each a of the first table, b of the second
                first, second = self.tables
                local = b - split
                for left, right in zip(first, second, strict=True):
                    equal &= left[a] == right[local]
                return equal
        which = list(range(len(self.tables[0])))
        for left, right in zip(self.columns(a, which), self.columns(b, which), strict=True):
            equal &= left == right
        return equal


_HASH_BITS = 20
"""Bits of the candidate hash kept below the query in :func:`_exact_groups`' sort key: fewer
would make collisions (which cost a sort of their runs, never a judgment) frequent."""


def _exact_groups(rows: _Rows) -> tuple[IntArray, BoolArray]:
    """An order of ``rows`` in which equal rows (equal in every column) are contiguous and in
    row order, and for each position whether its row equals the one before.

    The rows are sorted by one key of plain integers: the first column (the query) in the
    highest bits when it leaves at least :data:`_HASH_BITS` bits, then the high bits of
    :func:`_candidate_hash`, then the row number in the low bits (unique keys: the order is
    stable by construction, whatever the sort); neighbours with equal bits above the row number are
    compared on every column, and the groups where that finds a collision are sorted again by
    the columns themselves.
    """
    import numpy as np

    n = len(rows)
    bits = max(1, (n - 1).bit_length())
    mask = np.uint64((1 << bits) - 1)
    key = np.empty(n, dtype=np.uint64)
    rows.hash_into(key)
    query_bits = rows.largest_first().bit_length() if n else 0
    grouped = None
    if query_bits and 64 - query_bits - bits >= _HASH_BITS:
        key >>= np.uint64(query_bits)
        key &= ~mask
        rows.first_into(key, 64 - query_bits)
        grouped = rows.grouped()
    else:
        key &= ~mask
    key |= np.arange(n, dtype=np.uint64)
    # the keys are distinct: any sort gives this order (NumPy's SIMD sort is fastest)
    if grouped is None:
        key.sort()
    else:  # the query is the keys' highest bits: each query's keys sorted alone are in order
        positions, sizes = grouped
        by_query = np.empty_like(key)
        by_query[positions] = key
        key = by_query
        _sort_segments(key, sizes)
    order: IntArray = (key & mask).view(np.int64)
    key >>= np.uint64(bits)
    candidate = np.flatnonzero(key[1:] == key[:-1])
    same: BoolArray = np.zeros(n, dtype=bool)
    if len(candidate):
        equal = rows.equal(order[candidate], order[candidate + 1])
        if not bool(equal.all()):
            order, moved = _sorted_exactly(rows, order, key, candidate[~equal])
            # only the runs sorted again changed: a candidate and its next are in one run
            touched = np.zeros(n, dtype=bool)
            touched[moved] = True
            again = np.flatnonzero(touched[candidate])
            at = candidate[again]
            equal[again] = rows.equal(order[at], order[at + 1])
        same[candidate + 1] = equal
    return order, same


def _sort_segments(values: WordArray, sizes: IntArray) -> None:
    """Sort each segment of ``values`` (one after the other, of ``sizes``) in place: the
    segments as the rows of a table, padded with the largest word to a power-of-two width (one
    table per width there is), each row sorted alone (n log s work rather than n log n).

    >>> import numpy as np
    >>> values = np.array([3, 1, 2, 9, 5, 0, 7, 6, 4], dtype=np.uint64)
    >>> _sort_segments(values, np.array([3, 0, 1, 5]))
    >>> values.tolist()
    [1, 2, 3, 9, 0, 4, 5, 6, 7]
    """
    import numpy as np

    if len(sizes) and bool((sizes == sizes[0]).all()):  # a table already, of no padding
        if sizes[0] > 1:
            values.reshape(len(sizes), -1).sort(axis=1)
        return
    starts = np.cumsum(sizes) - sizes
    exponent = np.frexp(np.maximum(sizes - 1, 1))[1].astype(np.int64)  # 2**exponent >= size
    exponent[sizes < 2] = 0  # a segment of 0 or 1 values is in order
    for e in (np.flatnonzero(np.bincount(exponent)[1:]) + 1).tolist():
        segments = np.flatnonzero(exponent == e)
        size = sizes[segments]
        within = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
        at = np.repeat(starts[segments], size) + within
        cell = np.repeat(np.arange(len(segments)) << e, size) + within
        table = np.full(len(segments) << e, np.iinfo(np.uint64).max, dtype=np.uint64)
        table[cell] = values[at]
        table.reshape(len(segments), -1).sort(axis=1)
        values[at] = table[cell]


def _sorted_exactly(
    rows: _Rows, order: IntArray, key: WordArray, collided: IntArray
) -> tuple[IntArray, IntArray]:
    """``order`` with the positions of every run of equal ``key`` (sorted) that holds a
    collision (``collided``: positions whose row differs from the next one's) sorted by the
    columns, then by row number (in place: the runs are found by binary search, so the cost
    is in the rows of those runs, not in all the rows), and those positions."""
    import numpy as np

    values = np.unique(key[collided])
    starts = np.searchsorted(key, values, "left")
    lengths = np.searchsorted(key, values, "right") - starts
    offsets = np.cumsum(lengths) - lengths
    run = np.repeat(np.arange(len(values)), lengths)
    positions = np.arange(int(lengths.sum())) + (starts - offsets)[run]
    taken = order[positions]
    columns = rows.columns(taken, list(range(len(rows.tables[0]))))
    within = np.lexsort((taken, *reversed(columns), run))
    order[positions] = taken[within]
    return order, positions


def float32_scores(score: FloatArray) -> FloatArray:
    """``score`` as trec_eval 9.0.8 (and pytrec-eval-terrier) ranks it: each score, read as a
    double, rounded to the nearest 32-bit float (ties to even, as C's double to float
    conversion), given back as doubles (exactly).  Scores equal as 32-bit floats then tie, and
    :func:`trec_order` orders them by document id: 0.1 and 0.1 + 1e-9 are one float; beyond
    the range of a 32-bit float a score becomes +-inf (1e39 ties with 2e39); below half its
    smallest subnormal (1.4e-45) it becomes 0 (1e-46 and -1e-46 tie with 0, as -0.0 and 0.0
    do).

    >>> import numpy as np
    >>> float32_scores(np.array([0.1 + 1e-9, 1e39, -1e39, 1e-46, 3.0])).tolist()
    [0.10000000149011612, inf, -inf, 0.0, 3.0]
    """
    import numpy as np

    with np.errstate(over="ignore"):  # out of range: inf, as in C, without a warning
        return score.astype(np.float32).astype(np.float64)


def trec_order(
    score: FloatArray, keys: DocumentKeys, rows: IntArray, query: IntArray
) -> tuple[IntArray, IntArray, IntArray | None]:
    """The order of ``rows`` (of ``score`` and ``query``, which hold theirs; ``keys`` holds
    every row's) by query, score descending, then document id descending (byte order, as
    ``strcmp``): vectorised, ties ordered by the ids' keys
    (:meth:`annoscore.formats.trec.DocumentKeys.descending`); ``query`` in that order; and
    when the order is the identity but at some positions (the rows came ranked, but for
    the order within ties), those positions, else ``None``."""
    import numpy as np

    n = len(score)
    if n < 2:
        return np.arange(n), query, np.zeros(0, dtype=np.int64)
    grouped = bool((query[1:] >= query[:-1]).all())
    descending = grouped and bool(((query[1:] != query[:-1]) | (score[1:] <= score[:-1])).all())
    if descending:  # the rows are in order already: no copy of them
        order, q, s = np.arange(n), query, score
    else:
        order = np.lexsort((-score, query))
        q, s = query[order], score[order]
    tie = q[1:] == q[:-1]
    tie &= s[1:] == s[:-1]
    pairs = np.flatnonzero(tie)  # position p ties with p + 1
    moved = np.zeros(0, dtype=np.int64) if descending else None
    if not len(pairs):
        return order, q, moved
    in_tie = np.zeros(n, dtype=bool)
    in_tie[pairs] = True
    in_tie[pairs + 1] = True
    at = np.flatnonzero(in_tie)  # every position in a tie, in order
    # a run of equal (query, score) starts where a position does not tie with the one before
    starts = np.ones(len(at), dtype=bool)
    later = at > 0
    starts[later] = ~tie[at[later] - 1]
    group = np.cumsum(starts)
    tied = order[at]
    order[at] = tied[_within_ties(keys.take(rows[tied]).descending(), group, starts)]
    return order, q, at if descending else None


def _within_ties(keys: list[WordArray], group: IntArray, starts: BoolArray) -> IntArray:
    """The order of tied positions (``group``: their run of equal (query, score), numbered
    in order; ``starts``: where each run begins) by run, then ``keys`` (most significant
    first), stably: ``np.lexsort((*reversed(keys), group))``.  A run of two (most ties) is
    put in order by comparing its two rows; longer runs are sorted."""
    import numpy as np

    size = np.bincount(group)[group]
    first = np.flatnonzero(starts & (size == 2))
    second = first + 1
    before = np.zeros(len(first), dtype=bool)  # the second row's keys come first
    equal = np.ones(len(first), dtype=bool)
    for key in keys:
        a, b = key[first], key[second]
        before |= equal & (b < a)
        equal &= a == b
    within = np.arange(len(group))
    within[first[before]] = second[before]
    within[second[before]] = first[before]
    longer = np.flatnonzero(size > 2)
    if len(longer):
        within[longer] = longer[np.lexsort((*reversed([k[longer] for k in keys]), group[longer]))]
    return within
