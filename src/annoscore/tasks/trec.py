"""trec_eval's measures on TREC qrels and run files, with trec_eval's rules:

- Within a query, documents are ranked by score, highest first; ties are broken by document id,
  **descending** in byte order (trec_eval's order; the run's rank column is ignored).
  ``max_docs`` (trec_eval ``-M``) keeps only the first N documents of each query's ranking.
- A document is relevant when it is judged with a relevance of at least ``relevance_level`` (1,
  trec_eval ``-l``) and at least 0: a judgement below 0 is never relevant, nor is an unjudged
  document.  AP divides by the number of relevant documents of the query in the qrels.
- Queries in the run but not in the qrels are ignored.  Queries in the qrels but not in the run
  are ignored too, unless ``complete`` (trec_eval ``-c``) counts them with AP 0.
- A document retrieved twice for one query is an input error (trec_eval refuses such runs); a
  document judged twice for one query keeps its last judgment, with a warning.
- Query and document ids are the same only when their bytes are (:func:`judge`).

- ``measures`` (trec_eval ``-m``) chooses what is reported: any measure of trec_eval's
  ``all_trec`` set with its parameters, or the sets ``official`` and ``all_trec``
  (:mod:`annoscore.metrics.trec_measures`; computed by
  :mod:`annoscore.metrics.ranking_measures`).  ``judged_only`` (``-J``) ranks the judged
  documents only.

``scores``: each measure chosen, named as trec_eval names it (``map``, ``P_10``); ``counts``:
``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret`` and each measure's per-query sum
(``map_sum``: MAP = map_sum / num_q), all additive per query.  The default reports trec_eval's
``runid``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret`` and ``map``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.align.documents import pair_documents
from annoscore.errors import InputError
from annoscore.formats.trec import (
    DocumentKeys,
    TrecColumns,
    document_keys,
    read_qrels,
    read_run,
    shown,
)
from annoscore.metrics.ranking_measures import ranking_measures, relstrings
from annoscore.metrics.trec_measures import DEFAULT, MeasureSet, RankedLists, TrecDetails
from annoscore.options import TaskOptions, option
from annoscore.result import CountMatrix, Result, ScoreWarning
from annoscore.scale import NotExact, chunked
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.formats.trec import BoolArray, FloatArray, IntArray, WordArray


class Judged:
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

    def __init__(
        self,
        queries: list[bytes],
        judged_queries: int,
        run_queries: IntArray,
        run_query: IntArray,
        judgment: IntArray,
        judgments: IntArray,
        duplicate_lines: IntArray,
        run_keys: DocumentKeys,
    ) -> None:
        self.queries = queries
        self.judged_queries = judged_queries
        self.run_queries = run_queries
        self.run_query = run_query
        self.judgment = judgment
        self.judgments = judgments
        self.duplicate_lines = duplicate_lines
        self.run_keys = run_keys


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


def _query_names(judged: Judged, qrels: TrecColumns, run: TrecColumns) -> list[str]:
    """Every query id as text; an :class:`InputError` when an id that is not UTF-8 reads like
    another once its bytes are shown as ``\\x`` escapes (never two queries under one name)."""
    import numpy as np

    names = [shown(q) for q in judged.queries]
    if len(set(names)) == len(names):
        return names
    seen: dict[str, bytes] = {}
    for name, query in zip(names, judged.queries, strict=True):
        other = seen.setdefault(name, query)
        if other == query:
            continue
        odd = query if name.encode() != query else other
        for file in (qrels, run):
            if odd in file.queries:
                row = int(np.argmax(file.query == file.queries.index(odd)))
                raise InputError(
                    f"query id {name!r} is not UTF-8 and reads like another query id once its "
                    "bytes are shown as \\x escapes; rename one of them",
                    file.path,
                    int(file.line[row]),
                )
    raise AssertionError("two distinct query ids read alike, and neither is in the files")


_PARALLEL_BYTES = 1 << 20


def _in_worker() -> bool:
    """Whether this process is a worker of ``--jobs N`` (:mod:`annoscore.scale`'s forked
    pool), or the process that runs that pool (it scores chunks too): every core then scores
    a chunk already, so a second thread only takes turns with the other workers
    (multiprocessing is imported in such a process, and only asked then)."""
    import sys

    from annoscore.scale.run import cores_taken

    if cores_taken():
        return True
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is not None and multiprocessing.parent_process() is not None


def _read_both(qrels_path: Path, run_path: Path) -> tuple[TrecColumns, TrecColumns]:
    """Both files, the run first (its errors come first); read at once in two threads (NumPy
    releases the GIL) when the qrels file is large enough for that to pay, and not in a worker
    of ``--jobs N`` (:func:`_in_worker`)."""
    try:
        large = qrels_path.stat().st_size >= _PARALLEL_BYTES
    except OSError:  # the reader says what is wrong
        large = False
    if not large or str(run_path) == "-" or _in_worker():
        run = read_run(run_path)
        return read_qrels(qrels_path), run
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        # in the reading thread, the cut of a chunk (annoscore.scale) holds as here
        reading_qrels = pool.submit(contextvars.copy_context().run, read_qrels, qrels_path)
        run = read_run(run_path)
        return reading_qrels.result(), run


@dataclass(frozen=True, slots=True)
class TrecOptions(TaskOptions):
    """The options of ``annoscore trec`` (trec_eval's defaults)."""

    complete: bool = option(
        False,
        "Judged queries missing from the run count, as empty rankings (AP 0; trec_eval -c).",
        flags=("-c", "--complete"),
    )
    relevance_level: int = option(
        1,
        "Minimum relevance of a judged document that counts (trec_eval -l); unjudged "
        "documents, and judgements below 0, never count.",
        flags=("-l", "--relevance-level"),
    )
    max_docs: int | None = option(
        None,
        "Only the first N ranked documents of each query count (trec_eval -M; default: all).",
        flags=("-M", "--max-docs"),
        low=1,
    )
    judged_only: bool = option(
        False,
        "Rank only the judged documents: unjudged ones are removed before anything is "
        "computed (trec_eval -J).",
        flags=("-J", "--judged-only"),
    )
    collection_size: int | None = option(
        None,
        "Number of documents in the collection (trec_eval -N): accepted as trec_eval accepts "
        "it; no measure annoscore computes uses it.",
        flags=("-N", "--collection-size"),
        low=1,
        moves=False,
    )
    measures: tuple[str, ...] = option(
        DEFAULT,
        "trec_eval measures to report, as -m names them: MEASURE[.params] (P.5,10, "
        "ndcg_cut.10, ndcg.1=0,2=3) or the sets official and all_trec; repeatable.",
        flags=("-m", "--measure", "--measures"),
        moves=False,
    )


def _joined_details(chunks: Sequence[TrecDetails], order: Sequence[int]) -> TrecDetails:
    """The details of a run cut into chunks of whole queries (:mod:`annoscore.scale`): one
    run tag and the same lines to print in every chunk (else :class:`NotExact`), the queries'
    relstrings in the order of the rows."""
    first = chunks[0]
    if any(c.runid != first.runid or c.outputs != first.outputs for c in chunks):
        raise NotExact("the chunks' run tags differ")
    strings = [s for chunk in chunks for s in chunk.relstrings]
    if not strings:
        return first
    if len(strings) != len(order):
        raise NotExact("not one relstring per query")
    return replace(first, relstrings=tuple(map(strings.__getitem__, order)))


@chunked("trec", "lines", separators=b" \t", order="sorted", details=_joined_details)
def score_trec(qrels: Path, run: Path, options: TrecOptions = TrecOptions()) -> Result:
    """trec_eval's measures (``options.measures``; by default ``map``) of a run file against a
    qrels file; every query is a document of the count matrix.

    A retrieved document counts as relevant only when it is judged with a relevance of at least
    ``relevance_level`` and at least 0: an unjudged document, or one judged below 0, is never
    relevant, whatever the level (with ``-l 0`` the judged-0 documents are relevant, so AP and
    MAP stay within [0, 1]).  Every measure is a per-query value added over the queries and
    divided by ``num_q`` (``gm_map``, ``gm_bpref``: a geometric mean), the formulas in
    :mod:`annoscore.metrics.ranking_measures`.  Undefined: every measure of no query
    (``None``).  Settings that move a number: ``complete`` (off), ``relevance_level`` (1),
    ``max_docs`` (none), ``judged_only`` (off), gains given to ``ndcg`` in ``measures``.

    >>> from annoscore.samples import SAMPLES
    >>> r = score_trec(SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt",
    ...                TrecOptions(measures=("map", "P.2")))
    >>> r.counts["num_q"], round(r.score, 4), r.scores["P_2"]
    (3, 0.6389, 0.5)
    """
    qrels_columns, run_columns = _read_both(qrels, run)
    return count_trec_columns(qrels_columns, run_columns, options)


def count_trec(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    options: TrecOptions = TrecOptions(),
) -> Result:
    """trec_eval's measures of a run given in memory, as pytrec_eval takes it:
    ``qrels[query][document]`` is a relevance, ``run[query][document]`` a score (ids without
    whitespace, as in the files).

    >>> r = count_trec({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.9}})
    >>> r.score, r.counts["num_rel_ret"]
    (0.5, 1)
    """
    from annoscore.formats.trec import qrels_of_text, run_of_text

    def line(*fields: str) -> str:
        for text in fields:
            if not text or any(c in text for c in " \t\n\r\v\f"):
                raise InputError(f"id {text!r}: empty, or holds whitespace")
        return " ".join(fields) + "\n"

    qrels_text = "".join(
        line(q, "0", d, str(int(r))) for q, docs in qrels.items() for d, r in docs.items()
    )
    run_text = "".join(
        line(q, "Q0", d, "0", repr(float(v)), "run")
        for q, docs in run.items()
        for d, v in docs.items()
    )
    return count_trec_columns(
        qrels_of_text(qrels_text.encode()), run_of_text(run_text.encode()), options
    )


def count_trec_columns(qrels: TrecColumns, run: TrecColumns, options: TrecOptions) -> Result:
    """The result of a qrels and a run read into columns (:mod:`annoscore.formats.trec`)."""
    import numpy as np

    measures = MeasureSet.parse(options.measures)
    judged = judge(qrels, run)
    names_of = _query_names(judged, qrels, run)

    judgment_query = qrels.query[judged.judgments]
    judgment_value = qrels.value[judged.judgments].astype(np.int64, copy=False)

    # rank: by query (run order), score descending, document id descending
    queries_in_run = np.flatnonzero(judged.run_queries < judged.judged_queries)
    every = len(queries_in_run) == len(run.queries)  # every row scored: no copy of the columns
    scored = (
        np.arange(len(run)) if every else np.flatnonzero(judged.run_query < judged.judged_queries)
    )
    if every:  # the run's own query numbers are the local ones
        query = run.query
    else:
        run_local = np.full(len(run.queries), -1, dtype=np.int64)
        run_local[queries_in_run] = np.arange(len(queries_in_run))
        query = run_local[run.query[scored]]
    order, query, moved = _trec_order(
        run.value if every else run.value[scored], judged.run_keys, scored, query
    )
    rows = order if every else scored[order]

    qrels_names = names_of[: judged.judged_queries]
    run_names = [names_of[i] for i in judged.run_queries.tolist()]
    pairing = pair_documents(
        qrels_names,
        run_names,
        gold_only="empty" if options.complete else "ignore",
        system_only="ignore",
    )
    local = {run_names[i]: k for k, i in enumerate(queries_in_run.tolist())}
    missing, unjudged = list(pairing.gold_only), list(pairing.system_only)
    # every query scored, in trec_eval's order: by id (bytes)
    qrels_index = {q: i for i, q in enumerate(qrels_names)}
    kept = [q for q in pairing.scored if q in local] + (missing if options.complete else [])
    names = sorted(kept, key=lambda q: judged.queries[qrels_index[q]])
    # the measures are computed with the queries numbered as the run's rows come (``query``
    # is in that order: no regrouping of the rows), then put in ``names``' order (each
    # query's values are its own)
    kept_set = set(kept)
    ranked = [q for q in local if q in kept_set]
    if len(ranked) != len(local):  # a query of the run not scored: its rows left out
        renumber = np.full(len(local), -1, dtype=np.int64)
        renumber[[local[q] for q in ranked]] = np.arange(len(ranked))
        keep = renumber[query] >= 0 if len(query) else np.zeros(0, dtype=bool)
        query, rows = renumber[query[keep]], rows[keep]
    numbered = ranked + (missing if options.complete else [])
    number = {q: k for k, q in enumerate(numbered)}
    to_names = np.array([number[q] for q in names], dtype=np.int64)
    if every and moved is not None:  # rows is the identity but at ``moved``
        judgment = judged.judgment.copy()
        judgment[moved] = judged.judgment[rows[moved]]
    else:
        judgment = judged.judgment[rows]
    is_judged: BoolArray = judgment >= 0
    # -1 (not judged) reads the last judgement, masked out
    value = np.where(is_judged, qrels.value[judgment], 0).astype(np.int64, copy=False)
    del judgment
    if options.judged_only:  # trec_eval -J: only judged documents are ranked
        keep = is_judged & (value >= 0)
        query, is_judged, value, rows = query[keep], is_judged[keep], value[keep], rows[keep]
    if options.max_docs is not None and len(query):
        starts = np.searchsorted(query, query)
        keep = np.arange(len(query)) - starts < options.max_docs
        query, is_judged, value, rows = query[keep], is_judged[keep], value[keep], rows[keep]
    qrels_to_number = np.full(len(qrels_names), -1, dtype=np.int64)
    for q, k in number.items():
        qrels_to_number[qrels_index[q]] = k
    judgment_number = qrels_to_number[judgment_query]
    in_scope = judgment_number >= 0
    if not bool(in_scope.all()):  # (every judgment in scope: no copies)
        judgment_number = np.compress(in_scope, judgment_number)
        judgment_value = np.compress(in_scope, judgment_value)
    by_number = ranking_measures(
        query,
        is_judged,
        value,
        judgment_number,
        judgment_value,
        len(numbered),
        options.relevance_level,
        measures,
    )
    columns = {key: column[to_names] for key, column in by_number.items()}
    integer = [o.column for o in measures.outputs() if o.kind in ("count", "num_q")]
    matrix = CountMatrix.from_columns(names, columns, integer=("num_q", *integer))
    warnings: list[ScoreWarning | str] = [*qrels.warnings, *run.warnings]
    if unjudged:
        warnings.append(
            f"{len(unjudged)} queries of the run have no judgments and are ignored, as trec_eval "
            f"does (e.g. {', '.join(unjudged[:5])})"
        )
    if missing:
        headline = next((o for o in measures.outputs() if o.kind == "mean"), None)
        alt = ""
        if headline is not None:
            counts = matrix.total()
            total = counts[headline.column]
            other = counts["num_q"] + (-len(missing) if options.complete else len(missing))
            figure = None if not other else total / other
            label = "MAP" if headline.name == "map" else headline.name
            shown_figure = "undefined" if figure is None else f"{figure:.4f}"
            alt = f"; {label} would be {shown_figure}"
        if options.complete:
            warnings.append(
                f"{len(missing)} judged queries are not in the run and count as AP 0 (-c)"
                + alt.replace("; ", "; without -c ")
            )
        else:
            warnings.append(
                f"{len(missing)} judged queries are not in the run and are ignored, as trec_eval "
                "does without -c" + alt.replace("; ", "; with -c ")
            )
    if len(judged.duplicate_lines):
        warnings.append(
            ScoreWarning(
                "trec.duplicate-judgments",
                "{count} duplicate judgments (same query and document): the last wins",
                len(judged.duplicate_lines),
                tuple(f"{qrels.path}:{n}" for n in judged.duplicate_lines[:5].tolist()),
            )
        )
    tags = sorted(shown(tag) for tag in run.tags)
    relstring = measures.get("relstring")
    strings: tuple[str, ...] = ()
    if relstring is not None:
        texts = relstrings(query, is_judged, value, len(numbered), int(relstring.params[0]))
        strings = tuple(texts[k] for k in to_names.tolist())
    custom = measures.custom()
    return get("trec").result(
        options,
        matrix,
        read=(("measures", custom),) if custom else (),
        warnings=warnings,
        details=TrecDetails(
            tags[0] if len(tags) == 1 else ",".join(tags),
            tuple(measures.outputs()),
            strings,
            RankedLists(
                tuple(numbered),
                query,
                rows,
                value,
                is_judged,
                np.bincount(
                    np.compress(judgment_value >= options.relevance_level, judgment_number),
                    minlength=len(numbered),
                ),
                options.relevance_level,
                run,
            ),
        ),
    )


def _trec_order(
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
