"""Optimal one-to-one assignment (maximum total weight), fast on the sparse graphs scoring makes.

Scoring problems give sparse bipartite graphs: a gold span overlaps one or two predicted
spans, a key entity shares mentions with a few response entities.  :func:`max_weight_matching`
splits the graph into connected components; a component with one edge is solved directly, a
small one by an exact Hungarian algorithm in pure Python, a larger one by
``scipy.optimize.linear_sum_assignment`` (imported on first use: the import alone costs about
half a second), and one above :data:`DENSE_CELLS` cells by scipy's sparse exact solver, so that
no dense matrix is ever built for a large component (thousands of overlapping spans).

Order invariance: the result is a maximum-weight matching; among several optimal matchings the one
returned is fixed by the *keys* of the items (``(row_key, col_key)`` in sorted order), never by the
order in which edges were given.  Only edges with weight > 0 are considered, so an item is never
matched to one it does not touch.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

R = TypeVar("R", bound=Hashable)
C = TypeVar("C", bound=Hashable)

SCIPY_THRESHOLD = 60
"""Components with more rows and more columns than this go to scipy."""

DENSE_CELLS = 40_000
"""Components with more rows x columns than this are never written out as a matrix: they go
to scipy's sparse exact solver (:func:`_sparse_solve`), whose time and memory follow the
number of edges.  Among several optimal matchings it may return another one than the key
order would pick (the total weight is the same)."""


def _hungarian(weights: list[list[float]]) -> list[int]:
    """Exact maximum-weight assignment for an ``n x m`` matrix with ``n <= m``.

    Returns ``column[i]`` for every row (shortest augmenting paths with potentials, O(n^2 m)).
    Weights are maximised by minimising their negation; every row gets a column, and a row
    assigned to a zero-weight column counts as unmatched for the caller.
    """
    n, m = len(weights), len(weights[0])
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)  # owner[j] = row (1-based) assigned to column j, 0 = free
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = inf
            j1 = 0
            row = weights[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = -row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while True:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
            if j0 == 0:
                break
    column = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            column[owner[j] - 1] = j - 1
    return column


def sparse_max_weight_partners(row: Any, col: Any, weight: Any, n_rows: int, n_cols: int) -> Any:
    """Exact maximum-weight matching of a sparse bipartite graph without a dense matrix.

    ``row``, ``col``, ``weight`` (arrays) are the edges.  Returns each row's partner column, or
    a value >= ``n_cols`` for a row left unmatched.  Solved by
    ``scipy.sparse.csgraph.min_weight_full_bipartite_matching`` (LAPJVsp) on the costs
    ``ceiling - weight``, with one dummy column per row at cost ``ceiling`` so that a full
    matching always exists and a row may stay unmatched (a row matched to its dummy is
    unmatched).  Minimising the total cost maximises the total weight.
    """
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    ceiling = float(weight.max()) + 1.0
    graph = csr_matrix(
        (
            np.concatenate((ceiling - weight, np.full(n_rows, ceiling))),
            (
                np.concatenate((row, np.arange(n_rows))),
                np.concatenate((col, n_cols + np.arange(n_rows))),
            ),
        ),
        shape=(n_rows, n_cols + n_rows),
    )
    return min_weight_full_bipartite_matching(graph)[1]


def _sparse_solve(
    n_rows: int, n_cols: int, edges: list[tuple[int, int, float]]
) -> list[tuple[int, int]]:
    """:func:`sparse_max_weight_partners` of a large component given as an edge list."""
    import numpy as np

    row = np.fromiter((e[0] for e in edges), dtype=np.int64, count=len(edges))
    col = np.fromiter((e[1] for e in edges), dtype=np.int64, count=len(edges))
    weight = np.fromiter((e[2] for e in edges), dtype=np.float64, count=len(edges))
    partner = sparse_max_weight_partners(row, col, weight, n_rows, n_cols)
    return [(i, j) for i, j in enumerate(partner.tolist()) if j < n_cols]


def _solve(rows: list[R], cols: list[C], weight: dict[tuple[R, C], float]) -> list[tuple[R, C]]:
    if len(rows) * len(cols) > DENSE_CELLS:
        row_at = {r: i for i, r in enumerate(rows)}
        col_at = {c: j for j, c in enumerate(cols)}
        edges = [
            (row_at[r], col_at[c], w) for (r, c), w in weight.items() if r in row_at and c in col_at
        ]
        return [(rows[i], cols[j]) for i, j in _sparse_solve(len(rows), len(cols), edges)]
    transpose = len(rows) > len(cols)
    if transpose:  # the Hungarian solver wants no more rows than columns
        matrix = [[weight.get((r, c), 0.0) for r in rows] for c in cols]
    else:
        matrix = [[weight.get((r, c), 0.0) for c in cols] for r in rows]
    if len(matrix) > SCIPY_THRESHOLD:
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        r_idx, c_idx = linear_sum_assignment(np.asarray(matrix), maximize=True)
        chosen = list(zip(r_idx.tolist(), c_idx.tolist(), strict=True))
    else:
        chosen = list(enumerate(_hungarian(matrix)))
    if transpose:
        return [(rows[j], cols[i]) for i, j in chosen if matrix[i][j] > 0]
    return [(rows[i], cols[j]) for i, j in chosen if matrix[i][j] > 0]


def max_weight_matching(edges: Iterable[tuple[R, C, float]]) -> list[tuple[R, C]]:
    """A one-to-one matching of rows to columns with the largest total weight.

    ``edges`` are ``(row, col, weight)``; edges with weight <= 0 are ignored, a repeated edge keeps
    its largest weight.  Rows and columns must be sortable for the tie rule (see the module doc).
    Returns the matched ``(row, col)`` pairs, sorted.

    >>> max_weight_matching([("g1", "p1", 3), ("g1", "p2", 2), ("g2", "p1", 2)])
    [('g1', 'p2'), ('g2', 'p1')]
    """
    weight: dict[tuple[R, C], float] = {}
    for row, col, w in edges:
        if w > 0 and w > weight.get((row, col), 0.0):
            weight[(row, col)] = w
    by_row: dict[R, list[C]] = {}
    by_col: dict[C, list[R]] = {}
    for row, col in weight:
        by_row.setdefault(row, []).append(col)
        by_col.setdefault(col, []).append(row)

    pairs: list[tuple[R, C]] = []
    seen_rows: set[R] = set()
    for start in sorted(by_row):  # type: ignore[type-var]
        if start in seen_rows:
            continue
        if len(by_row[start]) == 1 and len(by_col[by_row[start][0]]) == 1:
            seen_rows.add(start)
            pairs.append((start, by_row[start][0]))
            continue
        comp_rows: list[R] = []
        comp_cols: set[C] = set()
        stack = [start]
        seen_rows.add(start)
        while stack:
            row = stack.pop()
            comp_rows.append(row)
            for col in by_row[row]:
                if col not in comp_cols:
                    comp_cols.add(col)
                    for other in by_col[col]:
                        if other not in seen_rows:
                            seen_rows.add(other)
                            stack.append(other)
        rows_sorted = sorted(comp_rows)  # type: ignore[type-var]
        cols_sorted = sorted(comp_cols)  # type: ignore[type-var]
        pairs.extend(_solve(rows_sorted, cols_sorted, weight))
    pairs.sort()
    return pairs
