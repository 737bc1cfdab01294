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

from pathlib import Path

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.trec import read_qrels, read_run
from annoscore.metrics.ranking import map_scores, mean_average_precision, ranking_stats
from annoscore.model import Retrieved
from annoscore.result import CountMatrix, Result
from annoscore.signature import Signature


def score_trec(
    qrels_path: Path,
    run_path: Path,
    *,
    complete: bool = False,
    relevance_level: int = 1,
) -> Result:
    """MAP of a run against qrels (trec_eval ``map``); every query is a document of the count
    matrix (``complete``: trec_eval ``-c``; ``relevance_level``: ``-l``).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_trec(SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt")
    >>> r.counts["queries"], round(r.scores["map"], 4)
    (3, 0.6389)
    """
    import numpy as np

    judged: dict[str, dict[str, int]] = {}
    duplicate_judgments = 0
    for j in read_qrels(qrels_path):
        of_query = judged.setdefault(j.query, {})
        duplicate_judgments += j.document in of_query
        of_query[j.document] = j.relevance
    by_query: dict[str, dict[str, Retrieved]] = {}
    for r in read_run(run_path):
        seen = by_query.setdefault(r.query, {})
        if r.document in seen:
            raise InputError(
                f"document {r.document} is retrieved twice for query {r.query} (also on line "
                f"{seen[r.document].line}); trec_eval refuses duplicates",
                run_path,
                r.line,
            )
        seen[r.document] = r
    queries = [q for q in judged if q in by_query]
    unjudged = [q for q in by_query if q not in judged]
    missing = [q for q in judged if q not in by_query]
    names = queries + (missing if complete else [])
    query_rows: list[int] = []
    relevant_rows: list[bool] = []
    for index, q in enumerate(queries):
        ranked = sorted(by_query[q].values(), key=lambda r: (r.score, r.document), reverse=True)
        relevance = judged[q]
        query_rows.extend([index] * len(ranked))
        relevant_rows.extend(relevance.get(r.document, 0) >= relevance_level for r in ranked)
    num_relevant = np.array(
        [sum(v >= relevance_level for v in judged[q].values()) for q in names], dtype=np.int64
    )
    stats = ranking_stats(
        np.array(query_rows, dtype=np.int64), np.array(relevant_rows, dtype=bool), num_relevant
    )
    matrix = CountMatrix.from_columns(
        names, stats.columns(), integer=("queries", "relevant", "retrieved", "relevant_retrieved")
    )
    counts = matrix.total()
    warnings = []
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
        warnings.append(
            f"{duplicate_judgments} duplicate judgments (same query and document): the last wins"
        )
    tags = sorted({r.tag for rows in by_query.values() for r in rows.values()})
    return Result.from_counts(
        "trec",
        Signature.of("trec", complete=complete, relevance_level=relevance_level),
        matrix,
        map_scores,
        warnings=warnings,
        details={"runid": tags[0] if len(tags) == 1 else ",".join(tags)},
    )
