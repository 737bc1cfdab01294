"""trec_eval-style MAP on TREC qrels and run files, with trec_eval's rules:

- Within a query, documents are ranked by score, highest first; ties are broken by document id,
  **descending** (trec_eval's order; the run's rank column is ignored).
- A document is relevant when its qrels relevance is at least ``relevance_level`` (1, trec_eval
  ``-l``); AP divides by the number of relevant documents of the query in the qrels.
- Queries in the run but not in the qrels are ignored.  Queries in the qrels but not in the run
  are ignored too, unless ``complete`` (trec_eval ``-c``) counts them with AP 0.
- A document retrieved twice for one query is an input error (trec_eval refuses such runs).

``scores``: ``map``; ``counts``: ``ap_sum``, ``queries``, ``relevant``, ``retrieved``,
``relevant_retrieved`` (additive per query; MAP = ap_sum / queries).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.trec import TrecColumns, read_qrels, read_run
from annoscore.metrics.ranking import map_scores, mean_average_precision, ranking_stats
from annoscore.result import CountMatrix, Result, ScoreWarning
from annoscore.signature import Signature

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]
    WordArray = npt.NDArray[np.uint64]


def _pair_keys(query: IntArray, doc_hash: WordArray) -> WordArray:
    """One 64-bit key per (query, document) row."""
    import numpy as np

    mixed = (query.astype(np.uint64) + np.uint64(1)) * np.uint64(0xD6E8FEB86659FD93)
    mixed ^= mixed >> np.uint64(32)
    keys: WordArray = doc_hash ^ mixed
    return keys


def _same_document(a: TrecColumns, rows_a: IntArray, b: TrecColumns, rows_b: IntArray) -> BoolArray:
    """Whether row ``rows_a[i]`` of ``a`` and row ``rows_b[i]`` of ``b`` have the same id."""
    import numpy as np

    same: BoolArray = a.doc_length[rows_a] == b.doc_length[rows_b]
    for k in range(max(len(a.doc_words), len(b.doc_words))):
        left = a.doc_words[k][rows_a] if k < len(a.doc_words) else np.uint64(0)
        right = b.doc_words[k][rows_b] if k < len(b.doc_words) else np.uint64(0)
        same &= left == right
    return same


def score_trec(
    qrels_path: Path,
    run_path: Path,
    *,
    complete: bool = False,
    relevance_level: int = 1,
) -> Result:
    """MAP of a run against qrels (trec_eval ``map``); every query is a document of the count
    matrix (``complete``: trec_eval ``-c``; ``relevance_level``: ``-l``).

    A retrieved document counts as relevant only when it is judged with a relevance of at least
    ``relevance_level``: an unjudged document is never relevant, whatever the level (with
    ``-l 0`` the judged-0 documents are relevant, so AP and MAP stay within [0, 1]).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_trec(SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt")
    >>> r.counts["queries"], round(r.scores["map"], 4)
    (3, 0.6389)
    """
    import numpy as np

    with ThreadPoolExecutor(1) as pool:  # NumPy releases the GIL: the two files read at once
        reading_qrels = pool.submit(read_qrels, qrels_path)
        run = read_run(run_path)
        qrels = reading_qrels.result()
    # judgments: (query, document) pairs, the last of duplicates wins
    qrels_key = _pair_keys(qrels.query, qrels.doc_hash)
    by_key = np.argsort(qrels_key)
    sorted_key = qrels_key[by_key]
    last = np.ones(len(by_key), dtype=bool)
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=last[:-1])
    duplicate_judgments = int(len(last) - np.count_nonzero(last))
    if duplicate_judgments:  # rare: a stable order, so that the last line of each wins
        by_key = np.argsort(qrels_key, kind="stable")
        sorted_key = qrels_key[by_key]
        repeated = np.flatnonzero(~last)
        if not bool(_same_document(qrels, by_key[repeated], qrels, by_key[repeated + 1]).all()):
            raise RuntimeError("two document ids of the qrels share a 64-bit hash")
    judged_rows = by_key[last]
    judged_key = sorted_key[last]
    relevance = qrels.value[judged_rows]
    judged_query = qrels.query[judged_rows]
    relevant_per_query = np.bincount(
        judged_query[relevance >= relevance_level], minlength=len(qrels.queries)
    ).astype(np.int64)

    # the run: queries numbered as in the qrels (-1: not judged), each row relevant or not
    qrels_index = {q: i for i, q in enumerate(qrels.queries)}
    run_to_qrels = np.array([qrels_index.get(q, -1) for q in run.queries], dtype=np.int64)
    row_query = run_to_qrels[run.query]
    relevant_all = _judged_relevant(
        run, row_query, qrels, judged_rows, judged_key, judged_query, relevance_level
    )
    scored = np.flatnonzero(row_query >= 0)
    relevant = relevant_all[scored]

    # rank: by query (run order), score descending, document id descending
    queries_in_run = [q for q in run.queries if q in qrels_index]
    local = {q: i for i, q in enumerate(queries_in_run)}
    run_local = np.array([local.get(q, -1) for q in run.queries], dtype=np.int64)
    query = run_local[run.query[scored]]
    order = _trec_order(run, scored, query)
    query, relevant = query[order], relevant[order]

    pairing = pair_documents(
        qrels.queries,
        run.queries,
        gold_only="empty" if complete else "ignore",
        system_only="ignore",
    )
    queries = [q for q in pairing.scored if q in local]
    missing, unjudged = list(pairing.gold_only), list(pairing.system_only)
    names = queries + (missing if complete else [])
    # rows are numbered by the run's query order; the matrix follows the qrels' order
    position = np.array([local[q] for q in queries], dtype=np.int64)
    renumber = np.empty(len(queries_in_run), dtype=np.int64)
    renumber[position] = np.arange(len(queries))
    query = renumber[query] if len(query) else query
    regroup = np.argsort(query, kind="stable")
    query, relevant = query[regroup], relevant[regroup]
    num_relevant = relevant_per_query[[qrels_index[q] for q in names]]
    stats = ranking_stats(query, relevant, np.asarray(num_relevant, dtype=np.int64))
    matrix = CountMatrix.from_columns(
        names, stats.columns(), integer=("queries", "relevant", "retrieved", "relevant_retrieved")
    )
    counts = matrix.total()
    warnings: list[ScoreWarning | str] = [*qrels.warnings, *run.warnings]
    if unjudged:
        warnings.append(
            f"{len(unjudged)} queries of the run have no judgments and are ignored, as trec_eval "
            f"does (e.g. {', '.join(unjudged[:5])})"
        )
    if missing:
        if complete:
            alt = mean_average_precision(
                Counts(ap_sum=counts["ap_sum"], queries=counts["queries"] - len(missing))
            )
            warnings.append(
                f"{len(missing)} judged queries are not in the run and count as AP 0 (-c); "
                f"without -c MAP would be {'undefined' if alt is None else f'{alt:.4f}'}"
            )
        else:
            alt = mean_average_precision(
                Counts(ap_sum=counts["ap_sum"], queries=counts["queries"] + len(missing))
            )
            warnings.append(
                f"{len(missing)} judged queries are not in the run and are ignored, as trec_eval "
                f"does without -c; with -c MAP would be {alt:.4f}"
            )
    if duplicate_judgments:
        examples = np.sort(qrels.line[by_key[np.flatnonzero(~last) + 1]])[:5]
        warnings.append(
            ScoreWarning(
                "trec.duplicate-judgments",
                "{count} duplicate judgments (same query and document): the last wins",
                duplicate_judgments,
                tuple(f"{qrels_path}:{n}" for n in examples.tolist()),
            )
        )
    tags = sorted(run.tags)
    return Result.from_counts(
        "trec",
        Signature.of("trec", complete=complete, relevance_level=relevance_level),
        matrix,
        map_scores,
        warnings=warnings,
        details={"runid": tags[0] if len(tags) == 1 else ",".join(tags)},
    )


def _judged_relevant(
    run: TrecColumns,
    row_query: IntArray,
    qrels: TrecColumns,
    judged_rows: IntArray,
    judged_key: WordArray,
    judged_query: IntArray,
    relevance_level: int,
) -> BoolArray:
    """Whether each row of the run retrieves a document its query judges relevant
    (``row_query``: the row's query numbered as in the qrels, -1 if not judged; ``judged_*``:
    the distinct judgments, sorted by their (query, document) key).

    Each run row gets a (query, document) key (queries not judged numbered after the judged
    ones); the keys sorted once serve the duplicate check (:func:`_refuse_duplicates`) and the
    lookup of the judgments (a lookup of sorted keys walks the judgments in order: several
    times faster than unsorted ones).  A key found is confirmed on the document's bytes and the
    query, so a hash collision cannot make a row relevant.  Its temporaries (several arrays of
    one word per row) end with this function, before the ranking allocates its own.
    """
    import numpy as np

    numbered = np.where(row_query >= 0, row_query, len(qrels.queries) + run.query)
    run_key = _pair_keys(numbered, run.doc_hash)
    del numbered
    key_order = np.argsort(run_key)
    ordered_key = run_key[key_order]
    _refuse_duplicates(run, run_key, ordered_key)
    del run_key
    relevant: BoolArray = np.zeros(len(run), dtype=bool)
    if len(judged_key) and len(run):
        at = np.minimum(np.searchsorted(judged_key, ordered_key), len(judged_key) - 1)
        found = np.flatnonzero(judged_key[at] == ordered_key)
        rows = judged_rows[at[found]]
        hit = key_order[found]
        exact = _same_document(run, hit, qrels, rows)
        exact &= judged_query[at[found]] == row_query[hit]
        relevant[hit[exact]] = qrels.value[rows[exact]] >= relevance_level
    return relevant


def _refuse_duplicates(run: TrecColumns, key: WordArray, ordered_key: WordArray) -> None:
    """An :class:`InputError` at the second line retrieving a document again for a query
    (``key``: the rows' (query, document) keys; ``ordered_key``: the same, sorted)."""
    import numpy as np

    if not bool((ordered_key[1:] == ordered_key[:-1]).any()):
        return
    by_key = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[by_key[1:]] == key[by_key[:-1]])
    if not len(repeated):
        return
    first, second = by_key[repeated], by_key[repeated + 1]
    same = _same_document(run, first, run, second) & (run.query[first] == run.query[second])
    if not bool(same.any()):
        return
    at = int(np.argmin(np.where(same, run.line[second], np.iinfo(np.int64).max)))
    a, b = int(first[at]), int(second[at])
    raise InputError(
        f"document {run.document(b)} is retrieved twice for query {run.queries[run.query[b]]} "
        f"(also on line {int(run.line[a])}); trec_eval refuses duplicates",
        run.path,
        int(run.line[b]),
    )


def _trec_order(run: TrecColumns, rows: IntArray, query: IntArray) -> IntArray:
    """The order of ``rows`` by query, score descending, then document id descending (byte
    order, as ``strcmp``): vectorised, the id compared word by word in big-endian order."""
    import numpy as np

    score = run.value[rows]
    n = len(rows)
    if n < 2:
        return np.arange(n)
    grouped = bool((query[1:] >= query[:-1]).all())
    descending = grouped and bool(((query[1:] != query[:-1]) | (score[1:] <= score[:-1])).all())
    order = np.arange(n) if descending else np.lexsort((-score, query))
    q, s = query[order], score[order]
    tie = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not bool(tie.any()):
        return order
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    group = np.cumsum(np.append(True, ~tie))  # one id per run of equal (query, score)
    at = np.flatnonzero(in_tie)
    keys = [
        ~run.doc_words[k][rows[order[at]]].byteswap() for k in reversed(range(len(run.doc_words)))
    ]
    within = np.lexsort((*keys, group[at]))
    order[at] = order[at][within]
    return order
