"""Average precision and MAP over ranked lists, vectorised, additive per query.

A run is given as flat arrays in rank order: ``query[i]`` (the query, i.e. CodiEsp document, of
row ``i``; rows of one query are contiguous and in rank order) and ``relevant[i]`` (whether the
item at that rank is relevant), plus ``num_relevant[q]``, the number of relevant items of each
query in the gold standard (retrieved or not).

Formulas (trec_eval's ``map``, trectools' ``get_map``)::

    rank(i)        = 1 + position of row i within its query, counting only rows kept
    P@k            = (relevant rows at ranks 1..k) / k
    AP(q)          = (sum of P@rank(i) over the relevant rows i of q within the depth)
                     / num_relevant(q)
    MAP            = sum of AP(q) over the queries that count / number of queries that count

Edge cases: ``AP(q) = 0`` when ``num_relevant(q) == 0`` (trec_eval's convention; trectools gives
NaN and then sums it as 0); a query with no retrieved row has AP 0; ``depth`` keeps only ranks
``1..depth`` (``None`` keeps all); MAP of no query is undefined (``None``).

The additive counts per query are :mod:`annoscore.metrics.ranked_codes`'s: ``ap_sum`` (its AP,
a float) and ``queries`` (1 if it counts in MAP); MAP of a corpus is ``ap_sum / queries`` of
the summed counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annoscore.metrics.ranking_rows import divide_or_zero
from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from annoscore.arrays import AnyIntArray, BoolArray, FloatArray, IntArray


class RankingStats(Record):
    """Per-query statistics of one run, as arrays indexed by query."""

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "precision_sum",
        "num_relevant",
        "retrieved",
        "relevant_retrieved",
        "ranked_beyond_depth",
    )

    precision_sum: FloatArray
    """Sum of P@k over the relevant ranks k within the depth."""
    num_relevant: IntArray
    retrieved: IntArray
    """Rows kept within the depth."""
    relevant_retrieved: IntArray
    ranked_beyond_depth: IntArray
    """Rows dropped by the depth cut-off."""

    def __init__(
        self,
        precision_sum: FloatArray,
        num_relevant: IntArray,
        retrieved: IntArray,
        relevant_retrieved: IntArray,
        ranked_beyond_depth: IntArray,
    ) -> None:
        set_fields(
            self,
            precision_sum=precision_sum,
            num_relevant=num_relevant,
            retrieved=retrieved,
            relevant_retrieved=relevant_retrieved,
            ranked_beyond_depth=ranked_beyond_depth,
        )

    @property
    def average_precision(self) -> FloatArray:
        """AP per query; 0 where the query has no relevant item."""
        return divide_or_zero(self.precision_sum, self.num_relevant)


def ranking_stats(
    query: AnyIntArray,
    relevant: BoolArray,
    num_relevant: IntArray,
    depth: int | None = None,
) -> RankingStats:
    """Per-query AP statistics of rows grouped by query, in rank order within each query.

    ``query`` must be non-decreasing (use :func:`group_rows` first if it is not).

    >>> import numpy as np
    >>> s = ranking_stats(np.array([0, 0, 0]), np.array([False, True, True]), np.array([2]))
    >>> float(s.average_precision[0])  # (1/2 + 2/3) / 2
    0.5833333333333333
    """
    import numpy as np

    n_queries = len(num_relevant)
    if depth is not None and depth >= len(relevant):
        depth = None  # keeps every row (and a huge depth never reaches int64 arithmetic)
    sizes = np.bincount(query, minlength=n_queries).astype(np.int64)
    starts = np.cumsum(sizes) - sizes
    # only the relevant rows matter: their rank, and how many relevant rows precede them
    hits = np.flatnonzero(relevant)
    hit_query = query[hits].astype(np.int64, copy=False)
    rank = hits - starts[hit_query] + 1
    if depth is not None:
        keep = rank <= depth
        hits, hit_query, rank = hits[keep], hit_query[keep], rank[keep]
        beyond = np.maximum(sizes - depth, 0)
    else:
        beyond = np.zeros(n_queries, dtype=np.int64)
    hit_count = np.bincount(hit_query, minlength=n_queries).astype(np.int64)
    hit_start = np.cumsum(hit_count) - hit_count
    hits_so_far = np.arange(1, len(hits) + 1, dtype=np.int64) - hit_start[hit_query]
    precision_sum = np.bincount(hit_query, weights=hits_so_far / rank, minlength=n_queries).astype(
        np.float64
    )
    return RankingStats(
        precision_sum=precision_sum,
        num_relevant=np.asarray(num_relevant, dtype=np.int64),
        retrieved=sizes - beyond,
        relevant_retrieved=hit_count,
        ranked_beyond_depth=beyond,
    )


def group_rows(query: AnyIntArray) -> IntArray | None:
    """The stable order that makes ``query`` contiguous, or ``None`` if it already is sorted."""
    import numpy as np

    if len(query) < 2 or bool(np.all(query[1:] >= query[:-1])):
        return None
    order: IntArray = np.argsort(query, kind="stable")
    return order
