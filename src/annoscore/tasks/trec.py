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
- Query and document ids are the same only when their bytes are
  (:func:`annoscore.align.trec.judge`, which joins the run with its qrels;
  :func:`annoscore.align.trec.trec_order` ranks it).

- ``trec_eval`` chooses whose numbers: trec_eval master's (the default), or release 9.0.8's
  (pytrec-eval-terrier's), which differs in four ways: each score is rounded to the nearest
  32-bit float before ranking (:func:`annoscore.align.trec.float32_scores`: scores equal as
  32-bit floats tie, and are ordered by document id); ``iprec_at_recall`` and ``11pt_avg``
  follow its recall rule (:mod:`annoscore.metrics.ranking_measures`); ``rbp``
  (``rbp_resid``) and ``unj``, measures of master only, are not there (the sets leave them
  out; asked for by name, an :class:`InputError`); and it has no comment lines: a line that
  begins with ``#``, which master skips (with a warning here), is a line of data.
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
from typing import TYPE_CHECKING, Literal

from annoscore.align.documents import pair_documents
from annoscore.align.trec import Judged, float32_scores, judge, trec_order
from annoscore.errors import InputError
from annoscore.formats.trec import TrecColumns, read_qrels, read_run, shown
from annoscore.metrics.ranking_measures import ranking_measures, recall_rank, relstrings
from annoscore.metrics.trec_measures import DEFAULT, MeasureSet, RankedLists, TrecDetails
from annoscore.options import TaskOptions, option
from annoscore.result import CountMatrix, Result
from annoscore.scale import NotExact, chunked, keeping
from annoscore.scale import keep as keep_chunk
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.registry import get
from annoscore.tasks.trec_chunks import SHOWN, Kept, pooled, unjudged_text

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, IntArray


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


def _read_both(qrels_path: Path, run_path: Path, comments: bool) -> tuple[TrecColumns, TrecColumns]:
    """Both files, the run first (its errors come first), lines that begin with ``#`` read as
    comments or not (:func:`annoscore.formats.trec.read_qrels`); read at once in two threads
    (NumPy releases the GIL) when the qrels file is large enough for that to pay, and not in a
    worker of ``--jobs N`` (:func:`_in_worker`)."""
    try:
        large = qrels_path.stat().st_size >= _PARALLEL_BYTES
    except OSError:  # the reader says what is wrong
        large = False
    if not large or str(run_path) == "-" or _in_worker():
        run = read_run(run_path, comments)
        return read_qrels(qrels_path, comments), run
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        # in the reading thread, the cut of a chunk (annoscore.scale) holds as here
        reading_qrels = pool.submit(
            contextvars.copy_context().run, read_qrels, qrels_path, comments
        )
        run = read_run(run_path, comments)
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
    trec_eval: Literal["master", "9.0.8"] = option(
        "master",
        "The trec_eval whose numbers to give: master (10.0-rc3), or release 9.0.8 (as "
        "pytrec-eval-terrier): scores rounded to 32-bit floats before ranking, its "
        "iprec_at_recall and 11pt_avg recall rule, no rbp or unj, no # comment lines.",
        flags=("--trec-eval",),
        omitted_at_default=True,
    )


def _nan_in_9_0_8(
    measures: MeasureSet,
    query: IntArray,
    judgment_number: IntArray,
    judgment_value: IntArray,
    ranked: int,
    level: int,
) -> list[int]:
    """The queries of the run (numbers below ``ranked``) to which trec_eval 9.0.8 gives nan:
    no document ranked (``-J`` removed them all) and a recall level of ``iprec_at_recall`` or
    ``11pt_avg`` it reaches before the first relevant document (its rule,
    :func:`annoscore.metrics.ranking_measures.recall_rank`, gives floor(xR + 0.9) = 0:
    x = 0, or xR < 0.1), where it divides 0 by 0 (seen with pytrec-eval-terrier)."""
    import numpy as np

    chosen = (measures.get(name) for name in ("iprec_at_recall", "11pt_avg"))
    levels = [x for measure in chosen if measure is not None for x in measure.params]
    if not levels or not ranked:
        return []
    empty = np.bincount(query, minlength=ranked)[:ranked] == 0
    if not bool(empty.any()):
        return []
    in_run = judgment_number < ranked
    R = np.bincount(
        np.compress(in_run & (judgment_value >= max(level, 0)), judgment_number), None, ranked
    )
    at_rank_0 = np.zeros(ranked, dtype=bool)
    for x in levels:
        at_rank_0 |= recall_rank(x, R, "9.0.8", least=0) == 0
    found: list[int] = np.flatnonzero(empty & at_rank_0).tolist()
    return found


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


@chunked(
    "trec",
    "lines",
    separators=b" \t",
    comments=b"#",  # trec_eval master's comment lines: no cut falls at one
    order="sorted",
    details=_joined_details,
    pooled=pooled,
)
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
    ``max_docs`` (none), ``judged_only`` (off), gains given to ``ndcg`` in ``measures``,
    ``trec_eval`` (``master``; ``9.0.8``: 32-bit scores, its recall rule, no ``rbp``/``unj``,
    no comment lines).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_trec(SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt",
    ...                TrecOptions(measures=("map", "P.2")))
    >>> r.counts["num_q"], round(r.score, 4), r.scores["P_2"]
    (3, 0.6389, 0.5)
    """
    # trec_eval master skips comment lines; 9.0.8 reads them as data
    qrels_columns, run_columns = _read_both(qrels, run, options.trec_eval == "master")
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
    return count_trec_columns(  # ids given as data: one that begins with # is no comment
        qrels_of_text(qrels_text.encode(), comments=False),
        run_of_text(run_text.encode(), comments=False),
        options,
    )


def count_trec_columns(qrels: TrecColumns, run: TrecColumns, options: TrecOptions) -> Result:
    """The result of a qrels and a run read into columns (:mod:`annoscore.formats.trec`)."""
    import numpy as np

    measures = MeasureSet.parse(options.measures, version=options.trec_eval)
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
    score = run.value if every else run.value[scored]
    if options.trec_eval == "9.0.8":  # its scores are 32-bit floats
        score = float32_scores(score)
    order, query, moved = trec_order(score, judged.run_keys, scored, query)
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
    # (every query of ``local`` is judged and in the run, so scored: ``query`` numbers it)
    numbered = list(local) + (missing if options.complete else [])
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
    after_readers = len(warnings)
    if unjudged:
        warnings.append(unjudged_text(len(unjudged), unjudged))
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
                "9.0.8 does without -c (trec_eval master exits on such a run unless -c)"
                + alt.replace("; ", "; with -c ")
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
    if options.trec_eval == "9.0.8" and options.judged_only:
        emptied = _nan_in_9_0_8(
            measures, query, judgment_number, judgment_value, len(local), options.relevance_level
        )
        if emptied:
            warnings.append(
                ScoreWarning(
                    "trec.nan-in-9.0.8",
                    "{count} queries of the run have no judged document to rank (-J): "
                    "trec_eval 9.0.8 gives them nan for iprec_at_recall at the levels it "
                    "reaches before the first relevant document (such as 0.00) and for "
                    "11pt_avg; annoscore gives 0, as trec_eval master does",
                    len(emptied),
                    tuple(numbered[k] for k in emptied[:5]),
                )
            )
    if keeping():  # a chunk (annoscore.scale): its warnings by group, for the pooling
        shown_unjudged = (len(unjudged), tuple(unjudged[:SHOWN]))
        keep_chunk(
            Kept(qrels.warnings, run.warnings, tuple(warnings[after_readers:]), shown_unjudged)
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
                names=tuple(numbered),
                query=query,
                rows=rows,
                value=value,
                is_judged=is_judged,
                relevant=np.bincount(
                    np.compress(judgment_value >= options.relevance_level, judgment_number),
                    minlength=len(numbered),
                ),
                level=options.relevance_level,
                run=run,
            ),
        ),
    )
