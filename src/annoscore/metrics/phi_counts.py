"""NLP Sandbox counts, every note of a category at once, from the reader's integer columns.

The definitions are in :mod:`annoscore.metrics.phi`.  Here the (note, start) and (note, start,
length) keys are packed into int64 and compared by sorting (numpy): packing is exact
(:func:`annoscore.align.documents.row_keys`: a mixed-radix number of the columns when it fits in 62
bits, else the row's rank among the distinct rows), so two keys are equal only when their
columns are.  The per-note counts are
``bincount`` s of the matches.  ``tests/equivalence/test_nlpsandbox.py`` holds every count to a
plain reference written from the definitions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from annoscore.align.documents import row_keys
from annoscore.metrics.phi import SameStart
from annoscore.metrics.phi_tokens import SpanTable

if TYPE_CHECKING:
    from annoscore.arrays import IntArray


@dataclass(frozen=True, slots=True)
class Columns:
    """One side of one category, one row per annotation in file order (int64 arrays).

    ``note`` is the document number, ``text`` the text's number in the :class:`SpanTable`,
    ``kind`` the type value's number: 0 for no type field (never matches), 1 for ``null``
    (equals ``null``), then the strings.
    """

    note: IntArray
    start: IntArray
    length: IntArray
    text: IntArray
    kind: IntArray


@dataclass(frozen=True, slots=True)
class CategoryTally:
    """Per-document counts of one category (``{metric}_{tp,fp,fn}`` -> array) and its quirks."""

    columns: dict[str, IntArray]
    overwritten_gold: int
    overwritten_pred: int
    unknown_hipaa: int
    quote_fixes: int


def _kept(keys: IntArray, same_start: SameStart) -> IntArray:
    """Row numbers of the annotation each distinct key keeps, in key order.

    ``same_start`` last: the last row of each key (the official overwriting), first: the first.
    Sorts ``key * n + row`` (one plain sort) when it fits in 63 bits, else a stable argsort.
    """
    import numpy as np

    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if (int(keys.max()) + 1) * n < 2**63:
        combined = np.sort(keys * n + np.arange(n, dtype=np.int64))
        key, row = np.divmod(combined, n)
    else:
        order = np.argsort(keys, kind="stable")
        key, row = keys[order], order
    change = key[1:] != key[:-1]
    if same_start is SameStart.first:
        return row[np.concatenate(([True], change))]
    return row[np.concatenate((change, [True]))]


def _distinct(keys: IntArray) -> IntArray:
    """The distinct keys, sorted (a plain sort: ``np.unique`` hashes, slowly on big arrays)."""
    import numpy as np

    ordered = np.sort(keys)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _common(left: IntArray, right: IntArray) -> tuple[IntArray, IntArray]:
    """Positions ``(i, j)`` with ``left[i] == right[j]``, both sorted and distinct."""
    import numpy as np

    at = np.searchsorted(left, right)
    inside = at < len(left)
    found = np.zeros(len(right), dtype=bool)
    found[inside] = left[at[inside]] == right[inside]
    return at[found], np.flatnonzero(found)


def _token_rows(side: Columns, table: SpanTable) -> tuple[IntArray, IntArray, IntArray]:
    """(document, absolute start, length) of every token of every annotation of ``side``."""
    import numpy as np

    entry = table.entry[side.text]
    size = table.size[entry]
    total = int(size.sum())
    row = np.repeat(table.first[entry] - (np.cumsum(size) - size), size) + np.arange(total)
    start = np.repeat(side.start, size) + table.offset[row]
    return np.repeat(side.note, size), start, table.length[row]


def category_counts(
    gold: Columns,
    pred: Columns,
    table: SpanTable,
    documents: int,
    *,
    relax_margin: int = 2,
    same_start: SameStart = SameStart.last,
    hipaa: IntArray | None = None,
) -> CategoryTally:
    """Per-document counts of one category, all notes at once (``{metric}_{tp,fp,fn}`` as
    :mod:`annoscore.metrics.phi` defines them, one entry per document).

    ``hipaa`` (per type number, from :func:`annoscore.metrics.phi.hipaa_flags`) adds the
    ``hipaa_*`` level.
    """
    import numpy as np

    def per_document(notes: IntArray) -> IntArray:
        return np.bincount(notes, minlength=documents).astype(np.int64)

    (g_keys, p_keys), _ = row_keys((gold.note, gold.start), (pred.note, pred.start))
    g_rows, p_rows = _kept(g_keys, same_start), _kept(p_keys, same_start)
    gi, pi = _common(g_keys[g_rows], p_keys[p_rows])
    g_at, p_at = g_rows[gi], p_rows[pi]
    note = gold.note[g_at]
    difference = np.abs(pred.length[p_at] - gold.length[g_at])
    strict = difference == 0
    g_kind, p_kind = gold.kind[g_at], pred.kind[p_at]
    tps = {
        "instance_relax": difference <= relax_margin,
        "instance_strict": strict,
        "type": strict & (g_kind == p_kind) & (g_kind != 0),
    }
    unknown = 0
    if hipaa is not None:
        g_flag = hipaa[g_kind]
        tps["hipaa"] = strict & (g_flag >= 0) & (g_flag == hipaa[p_kind])
        for side, rows in ((gold, g_rows), (pred, p_rows)):
            kinds = side.kind[rows]
            unknown += int(np.count_nonzero((kinds != 0) & (hipaa[kinds] < 0)))
    n_gold, n_pred = per_document(gold.note[g_rows]), per_document(pred.note[p_rows])
    columns: dict[str, IntArray] = {}
    for name, matched in tps.items():
        tp = per_document(note[matched])
        columns[f"{name}_tp"] = tp
        columns[f"{name}_fp"] = n_pred - tp
        columns[f"{name}_fn"] = n_gold - tp
    g_token, p_token = _token_rows(gold, table), _token_rows(pred, table)
    (g_keys, p_keys), document_of = row_keys(g_token, p_token)
    g_keys, p_keys = _distinct(g_keys), _distinct(p_keys)
    both = p_keys[_common(g_keys, p_keys)[1]]
    tp = per_document(document_of(both))
    columns["token_strict_tp"] = tp
    columns["token_strict_fp"] = per_document(document_of(p_keys)) - tp
    columns["token_strict_fn"] = per_document(document_of(g_keys)) - tp
    fixes = int(table.fixed[table.entry[gold.text]].sum()) + int(
        table.fixed[table.entry[pred.text]].sum()
    )
    return CategoryTally(
        columns, len(gold.note) - len(g_rows), len(pred.note) - len(p_rows), unknown, fixes
    )
