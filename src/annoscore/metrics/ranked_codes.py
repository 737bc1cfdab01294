"""Ranked code predictions against gold code sets: the counts behind CodiEsp D/P MAP and P/R/F1.

One vectorised pass over the whole corpus (numpy arrays of document and code ids, as read by
:func:`annoscore.formats.codiesp.read_code_rows` and put on one index by
:func:`annoscore.align.codes.align_ranked`) marks each predicted row relevant or not, then
:func:`annoscore.metrics.ranking.ranking_stats` gives the average precision of each document.
The per-document results add up: ``ap_sum`` / ``queries`` is MAP, ``tp``/``fp``/``fn`` give
micro P/R/F1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from annoscore.align.codes import RankedCodes
from annoscore.counts import Counts
from annoscore.formats.codiesp import integer_ids
from annoscore.metrics.ranking import group_rows, ranking_stats
from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from annoscore.arrays import AnyArray, AnyIntArray, BoolArray, FloatArray, IntArray
    from annoscore.metrics.trec_measures import MeasureSet, Output


EXAMPLE_ROWS = 5
"""How many rows of dropped duplicates are kept as examples."""


class TieOrder(str, Enum):
    """How the MAP script's trectools orders a document's predictions (all have score 10).

    ``file``: line order (trectools 0.0.42, the version the official script pins: the official
    number); ``code``: by code, alphabetically (trectools 0.0.50 breaks the tie by document id,
    which gives other MAPs on the same files): :func:`rank_codes` with ``code_rank`` of
    :func:`code_order`.
    """

    file = "file"
    code = "code"


@dataclass(slots=True)
class RankedCodeStats:
    """What :func:`rank_codes` found, per global document index."""

    ap: FloatArray
    """Per global document: AP (0 where not counted)."""
    counted: BoolArray
    tp: IntArray
    predicted: IntArray
    gold: IntArray
    beyond_depth_docs: int
    duplicate_pred: int
    duplicate_gold: int
    duplicate_pred_rows: IntArray
    """Rows (0-based, of the prediction file) of the first few duplicates dropped, in order."""
    duplicate_gold_rows: IntArray
    """Rows of the gold file of the first few duplicates collapsed, in order."""
    ranked: RankedLists | None = None
    """The ranked lists MAP is computed on (``keep_lists`` of :func:`rank_codes`)."""


class RankedLists(Record):
    """The ranked lists of :func:`rank_codes`, as MAP ranks them before the depth cut-off:
    ``query[i]`` the predicted document (index of ``data.pred.documents``) of row ``i``, rows of
    a document contiguous, documents in index order, each in rank order; ``relevant[i]`` whether
    its code is one of the document's gold codes."""

    __slots__ = ("query", "relevant", "code", "gold")  # noqa: RUF023 (the fields' order)
    query: AnyIntArray
    relevant: BoolArray
    code: AnyIntArray
    """The code (index of the vocabulary) of each row."""
    gold: IntArray
    """The distinct gold pairs, sorted, each ``document * codes + code`` (``document``: the
    global index, ``codes``: the size of the vocabulary)."""

    def __init__(
        self,
        query: AnyIntArray,
        relevant: BoolArray,
        code: AnyIntArray,
        gold: IntArray,
    ) -> None:
        set_fields(self, query=query, relevant=relevant, code=code, gold=gold)


class CodeRanking(Record):
    """Every document's ranked list as MAP ranks it, with its gold codes (what the HTML report
    shows of the worst documents): ``lists`` of :func:`rank_codes` on ``documents``
    (``pred_global`` of its data), ``vocabulary`` the codes its code ids index."""

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "documents",
        "pred_global",
        "lists",
        "vocabulary",
    )
    documents: list[str]
    pred_global: IntArray
    lists: RankedLists
    vocabulary: list[str]

    def __init__(
        self, documents: list[str], pred_global: IntArray, lists: RankedLists, vocabulary: list[str]
    ) -> None:
        set_fields(
            self, documents=documents, pred_global=pred_global, lists=lists, vocabulary=vocabulary
        )

    @property
    def names(self) -> list[str]:
        return self.documents

    level = 1
    """A gold code is relevant (1), another is not (0)."""

    def query_lists(self, names: Iterable[str], first: int) -> dict[str, Any]:
        """The :class:`~annoscore.metrics.worst_lists.QueryList` of each of ``names`` (of
        ``documents``): its gold codes, those it ranks, its first ``first`` ranked codes as
        ``(code, 1 or 0)`` and its gold codes never predicted, sorted (as text: not in the
        order of the code ids, which a chunk of the corpus numbers otherwise)."""
        from annoscore.metrics.worst_lists import QueryList

        position = {name: k for k, name in enumerate(self.documents)}
        out = {}
        for name in names:
            ranked, missed, found = self.ranked(position[name], first)
            rows = tuple((code, int(relevant)) for code, relevant in ranked)
            out[name] = QueryList(found + len(missed), found, rows, tuple(sorted(missed)))
        return out

    def ranked(self, at: int, first: int) -> tuple[list[tuple[str, bool]], list[str], int]:
        """Of the document ``at`` (index of ``documents``): its first ``first`` ranked codes
        (code, relevant), its gold codes never ranked (in code id order) and how many of its
        ranked codes are relevant.

        >>> from annoscore.align.codes import RankedInput
        >>> from annoscore.formats.codiesp import code_rows_of
        >>> gold = code_rows_of({"D1": ["a", "b", "d"]}, "gold")
        >>> pred = code_rows_of({"D1": ["c", "a", "b"]}, "predictions")
        >>> view = RankedInput(gold, pred, frozenset("abcd")).view(lowercase=True)
        >>> outcome = rank_codes(view.data, depth=None, filter_gold=False,
        ...     count_extra_docs=True, count_missing_docs=False, keep_lists=True)
        >>> assert outcome.ranked is not None
        >>> lists = CodeRanking(view.data.documents, view.data.pred_global, outcome.ranked,
        ...     view.vocabulary)
        >>> lists.ranked(0, 2)
        ([('c', False), ('a', True)], ['d'], 2)
        """
        import numpy as np

        lists, n_codes = self.lists, len(self.vocabulary)
        lo = hi = 0
        where = np.flatnonzero(self.pred_global == at)
        if len(where):
            k = int(where[0])
            bounds = np.array([k, k + 1], dtype=lists.query.dtype)  # no cast of the column
            lo, hi = np.searchsorted(lists.query, bounds).tolist()
        bounds = np.array([at * n_codes, (at + 1) * n_codes], dtype=lists.gold.dtype)
        g_lo, g_hi = np.searchsorted(lists.gold, bounds).tolist()
        gold = (lists.gold[g_lo:g_hi] - at * n_codes).tolist()
        codes = lists.code[lo:hi].tolist()
        relevant = lists.relevant[lo:hi].tolist()
        ranked = set(codes)
        vocabulary = self.vocabulary
        shown = [(vocabulary[c], r) for c, r in zip(codes[:first], relevant[:first], strict=True)]
        return shown, [vocabulary[c] for c in gold if c not in ranked], sum(relevant)


def rank_codes(
    data: RankedCodes,
    *,
    depth: int | None,
    filter_gold: bool,
    count_extra_docs: bool,
    count_missing_docs: bool,
    code_rank: IntArray | None = None,
    keep_lists: bool = False,
) -> RankedCodeStats:
    """Per-document AP, true positives, predicted and gold counts of ranked code predictions.

    - Gold: distinct (document, code) pairs; with ``filter_gold`` only codes of the valid list.
    - Predictions: codes outside the valid list are dropped **before** ranking (no gap left);
      line order within a document is the rank; a repeated (document, code) keeps its first
      line.  AP is computed on the first ``depth`` ranks (``None``: all), see
      :func:`annoscore.metrics.ranking.ranking_stats`; tp/predicted count every rank.
    - ``code_rank`` (the position of each vocabulary code in code order) ranks the predictions
      of a document by code instead of by line, after duplicates are dropped (trectools 0.0.50
      sorts tied scores by document id; 0.0.42, which the official script pins, keeps file
      order).
    - A document enters MAP (``counted``) when it is in the gold and has a valid prediction;
      also, with ``count_extra_docs``, a predicted document absent from the gold (AP 0), and
      with ``count_missing_docs``, a gold document without prediction (AP 0).
    - ``keep_lists``: the ranked lists are kept in the result (:class:`RankedLists`), for the
      other ranked measures (:func:`measure_columns`).
    """
    import numpy as np

    n_docs = len(data.documents)
    n_codes = len(data.code_valid)
    gold, pred = data.gold, data.pred
    # gold: distinct (doc, code) pairs (gold documents keep their own index)
    gold_key = gold.doc.astype(np.int64) * n_codes + gold.code
    gold_row = None
    if filter_gold:
        gold_row = np.flatnonzero(data.code_valid[gold.code])
        gold_key = gold_key[gold_row]
    gold_unique = np.sort(gold_key)  # np.unique is several times slower on this
    if len(gold_unique) > 1:
        gold_unique = gold_unique[np.append(True, gold_unique[1:] != gold_unique[:-1])]
    duplicate_gold = len(gold_key) - len(gold_unique)
    duplicate_gold_rows = np.zeros(0, dtype=np.int64)
    if duplicate_gold:
        by_gold_key = np.argsort(gold_key, kind="stable")
        repeated = gold_key[by_gold_key[1:]] == gold_key[by_gold_key[:-1]]
        duplicate_gold_rows = np.sort(by_gold_key[1:][repeated])[:EXAMPLE_ROWS]
        if gold_row is not None:
            duplicate_gold_rows = gold_row[duplicate_gold_rows]
    gold_count = np.bincount(gold_unique // n_codes, minlength=n_docs).astype(np.int64)

    # predictions: valid codes only, grouped by document in file order, first of duplicates
    valid_or_not = np.append(data.code_valid, False)  # code -1 (unknown) reads the last entry
    valid_row = valid_or_not[pred.code]
    row: IntArray | None = None  # the file row of each kept row (None: the same)
    if bool(valid_row.all()):
        query, code = pred.doc, pred.code
    else:
        row = np.flatnonzero(valid_row)
        query, code = pred.doc[row], pred.code[row]
    del valid_row
    order = group_rows(query)
    if order is not None:
        query, code = query[order], code[order]
        row = order if row is None else row[order]
    pred_key = query.astype(np.int64)  # query stays 32-bit: one 64-bit column less at the peak
    pred_key *= n_codes
    pred_key += code
    by_key = np.argsort(pred_key, kind="stable")
    sorted_key = pred_key[by_key]
    del pred_key
    first = np.ones(len(sorted_key), dtype=bool)
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=first[1:])
    duplicate_pred = int(len(first) - np.count_nonzero(first))
    duplicate_pred_rows = np.zeros(0, dtype=np.int64)
    if duplicate_pred:
        dropped = by_key[~first]
        duplicate_pred_rows = np.sort(dropped if row is None else row[dropped])[:EXAMPLE_ROWS]
        kept_rows = np.zeros(len(first), dtype=bool)
        kept_rows[by_key[first]] = True
        new_index = np.cumsum(kept_rows) - 1
        query, code = query[kept_rows], code[kept_rows]
        by_key = new_index[by_key[first]]
        sorted_key = sorted_key[first]
    del first

    # relevance: look the gold pairs up among the sorted predicted pairs (1 search per gold pair)
    n_gold_docs = len(gold.documents)
    pred_of_gold = np.full(n_gold_docs, -1, dtype=np.int64)
    in_both = data.pred_global < n_gold_docs
    pred_of_gold[data.pred_global[in_both]] = np.flatnonzero(in_both)
    gold_pred_doc = pred_of_gold[gold_unique // n_codes]
    wanted = np.sort((gold_pred_doc * n_codes + gold_unique % n_codes)[gold_pred_doc >= 0])
    relevant = np.zeros(len(query), dtype=bool)
    if len(sorted_key) and len(wanted):
        at = np.searchsorted(sorted_key, wanted)
        np.minimum(at, len(sorted_key) - 1, out=at)
        found = sorted_key[at] == wanted
        relevant[by_key[at[found]]] = True
    del by_key, sorted_key
    if code_rank is not None and len(query):
        by_code = np.lexsort((code_rank[code], query))
        query, relevant = query[by_code], relevant[by_code]
        if keep_lists:
            code = code[by_code]

    n_pred_docs = len(pred.documents)
    num_relevant = gold_count[data.pred_global]
    stats = ranking_stats(query, relevant, num_relevant, depth)
    predicted_per_pred_doc = stats.retrieved + stats.ranked_beyond_depth
    tp_per_pred_doc = np.bincount(query[np.flatnonzero(relevant)], minlength=n_pred_docs).astype(
        np.int64
    )

    ap = np.zeros(n_docs, dtype=np.float64)
    ap[data.pred_global] = stats.average_precision
    predicted = np.zeros(n_docs, dtype=np.int64)
    predicted[data.pred_global] = predicted_per_pred_doc
    tp = np.zeros(n_docs, dtype=np.int64)
    tp[data.pred_global] = tp_per_pred_doc
    in_gold = np.zeros(n_docs, dtype=bool)
    in_gold[: len(gold.documents)] = True
    if filter_gold:
        in_gold &= gold_count > 0
    has_pred = predicted > 0
    counted = has_pred & in_gold
    if count_extra_docs:
        counted |= has_pred & ~in_gold
    if count_missing_docs:
        counted |= in_gold & ~has_pred
    ap[~counted] = 0.0
    ap[~in_gold] = 0.0
    return RankedCodeStats(
        ap=ap,
        counted=counted,
        tp=tp,
        predicted=predicted,
        gold=gold_count,
        beyond_depth_docs=int((stats.ranked_beyond_depth > 0).sum()),
        duplicate_pred=duplicate_pred,
        duplicate_gold=duplicate_gold,
        duplicate_pred_rows=duplicate_pred_rows,
        duplicate_gold_rows=duplicate_gold_rows,
        ranked=RankedLists(query, relevant, code, gold_unique) if keep_lists else None,
    )


def measure_columns(
    data: RankedCodes, outcome: RankedCodeStats, measures: MeasureSet, depth: int | None
) -> dict[str, AnyArray]:
    """trec_eval's ``measures`` of every document of ``data`` (a column per measure, as
    :func:`annoscore.metrics.ranking_measures.ranking_measures` names them) on the ranked lists
    MAP is computed on (``outcome`` of :func:`rank_codes` with ``keep_lists``): each document's
    valid codes in MAP's rank order, the first ``depth``; relevant, and the only ones judged,
    its gold codes (``outcome.gold`` of them, relevance 1).  A document left out of MAP has 0 in
    every column, as in ``ap_sum``; ``map`` is not among them (MAP is ``ap_sum``).

    >>> import numpy as np
    >>> from annoscore.align.codes import RankedInput
    >>> from annoscore.formats.codiesp import code_rows_of
    >>> from annoscore.metrics.trec_measures import MeasureSet
    >>> gold = code_rows_of({"D1": ["a", "b"]}, "gold")
    >>> pred = code_rows_of({"D1": ["c", "a", "b"]}, "predictions")
    >>> data = RankedInput(gold, pred, frozenset("abc")).view(lowercase=True).data
    >>> outcome = rank_codes(data, depth=None, filter_gold=False, count_extra_docs=True,
    ...     count_missing_docs=False, keep_lists=True)
    >>> columns = measure_columns(data, outcome, MeasureSet.parse(["P.1,2", "recip_rank"]), 2)
    >>> {k: v.tolist() for k, v in columns.items()}
    {'recip_rank_sum': [0.5], 'P_1_sum': [0.0], 'P_2_sum': [0.5]}
    """
    import numpy as np

    from annoscore.metrics.ranking_measures import ranking_measures

    lists = outcome.ranked
    if lists is None:
        raise ValueError("measure_columns needs rank_codes(..., keep_lists=True)")
    n_docs = len(data.documents)
    query = data.pred_global[lists.query]
    order = np.argsort(query, kind="stable")  # each document's rows stay in rank order
    query, relevant = query[order], lists.relevant[order]
    if depth is not None and len(query):
        keep = np.arange(len(query)) - np.searchsorted(query, query) < depth
        query, relevant = query[keep], relevant[keep]
    qrels_query = np.repeat(np.arange(n_docs, dtype=np.int64), outcome.gold)
    computed = ranking_measures(
        query,
        relevant,
        relevant.astype(np.int64),
        qrels_query,
        np.ones(len(qrels_query), dtype=np.int64),
        n_docs,
        1,
        measures,
    )
    counted = outcome.counted
    return {o.column: np.where(counted, computed[o.column], 0) for o in measure_outputs(measures)}


def measure_outputs(measures: MeasureSet, shown: bool = False) -> list[Output]:
    """The outputs of ``measures`` that a document of CodiEsp reports beside MAP: every number
    but ``map`` (the official MAP) and ``num_q`` (the count ``queries``; with ``shown``, the
    lines a report prints, it is kept), not the run's tag nor ``relstring`` (text)."""
    left_out = ("runid", "relstring") if shown else ("runid", "num_q", "relstring")
    return [o for o in measures.outputs() if o.name != "map" and o.kind not in left_out]


def corpus_counts(outcome: RankedCodeStats) -> Counts:
    """``tp``, ``fp``, ``fn``, ``ap_sum`` and ``queries`` (documents in MAP) of the corpus.

    ``ap_sum`` is the correctly rounded sum (``math.fsum``): it does not depend on the order of
    the documents, so two settings whose documents have the same APs give the same MAP."""
    import math

    tp = int(outcome.tp.sum())
    return Counts(
        tp=tp,
        fp=int(outcome.predicted.sum()) - tp,
        fn=int(outcome.gold.sum()) - tp,
        ap_sum=math.fsum(outcome.ap[outcome.counted].tolist()),
        queries=int(outcome.counted.sum()),
    )


def count_columns(outcome: RankedCodeStats) -> dict[str, FloatArray]:
    """The counts of every document as columns (they add up to :func:`corpus_counts`)."""
    import numpy as np

    counted = outcome.counted
    return {
        "tp": outcome.tp,
        "fp": outcome.predicted - outcome.tp,
        "fn": outcome.gold - outcome.tp,
        "ap_sum": np.where(counted, outcome.ap, 0.0),
        "queries": counted.astype(np.float64),
    }


INTEGER_COLUMNS = ("tp", "fp", "fn", "queries")
"""The columns of :func:`count_columns` that count items (the others sum fractions)."""


def code_order(vocabulary: list[str]) -> IntArray:
    """The position of each vocabulary code in code (code point) order: ``code_rank`` of
    :func:`rank_codes` for trectools 0.0.50's tie order.

    >>> code_order(["b", "a", "c"]).tolist()
    [1, 0, 2]
    """
    import numpy as np

    rank = np.empty(len(vocabulary), dtype=np.int64)
    rank[sorted(range(len(vocabulary)), key=vocabulary.__getitem__)] = np.arange(len(vocabulary))
    return rank


def numeric_map_columns(
    data: RankedCodes, numeric: RankedCodes, outcome: RankedCodeStats
) -> tuple[FloatArray, FloatArray]:
    """``ap_sum`` and ``queries`` of the numeric-id corpus (``numeric``, ranked as
    ``outcome``), each on the first document of the text-id corpus (``data``) that reads as
    that number (:func:`numeric_positions`), so the per-document columns still add up to the
    MAP of the numeric ids."""
    import numpy as np

    at = numeric_positions(data, numeric)
    ap_sum = np.zeros(len(data.documents), dtype=np.float64)
    queries = np.zeros(len(data.documents), dtype=np.float64)
    counted = outcome.counted
    np.add.at(ap_sum, at, np.where(counted, outcome.ap, 0.0))
    np.add.at(queries, at, counted.astype(np.float64))
    return ap_sum, queries


def numeric_positions(data: RankedCodes, numeric: RankedCodes) -> IntArray:
    """For each document of the numeric-id corpus (``numeric``), the first document of the
    text-id corpus (``data``; gold first, then predicted) that reads as its number."""
    import numpy as np

    first: dict[str, int] = {}
    for i, name in enumerate(integer_ids(data.gold.documents) or data.gold.documents):
        first.setdefault(name, i)
    pred_names = integer_ids(data.pred.documents) or data.pred.documents
    for name, at in zip(pred_names, data.pred_global.tolist(), strict=True):
        first.setdefault(name, at)
    return np.array([first[name] for name in numeric.documents], dtype=np.int64)
