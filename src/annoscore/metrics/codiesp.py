"""CodiEsp's scorer of D and P (MAP beside micro P/R/F1), and what its official layout needs.

``counts`` are additive (:class:`annoscore.counts.Counts`): ``tp``, ``fp``, ``fn`` over distinct
(document, code) pairs, and for D/P ``ap_sum`` and ``queries`` (the documents in MAP, see
:mod:`annoscore.metrics.ranked_codes`).  P/R/F1 are :func:`annoscore.metrics.prf.prf_scores`
(X's scorer): gold codes and no valid prediction give precision undefined, recall 0 and F1 0
(the official F1 script prints ``nan`` there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from annoscore.counts import Counts
from annoscore.metrics.prf import prf_scores, ratio
from annoscore.result import Details, Names, Scores

if TYPE_CHECKING:
    from annoscore.metrics.ranked_codes import CodeRanking
    from annoscore.metrics.trec_measures import Output
    from annoscore.metrics.worst_lists import WorstLists


def ranked_scores(counts: Counts) -> Scores:
    """The scorer of D and P: ``map`` = ``ap_sum / queries`` (of one document: its AP, ``None``
    when it is left out of MAP), the other ranked measures chosen (``--measure``: each
    ``M_sum`` over ``queries``, named as trec_eval names them,
    :func:`annoscore.metrics.trec_measures.means`) and the micro ``precision``, ``recall``,
    ``f1``.

    >>> ranked_scores(Counts(tp=1, fp=1, fn=0, ap_sum=0.5, queries=1))
    {'map': 0.5, 'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    >>> ranked_scores(Counts(tp=0, fp=0, fn=2, ap_sum=0.0, queries=0))
    {'map': None, 'precision': None, 'recall': 0.0, 'f1': 0.0}
    >>> ranked_scores(Counts(tp=1, fp=1, fn=0, ap_sum=0.5, queries=2, P_5_sum=0.2))["P_5"]
    0.1
    """
    queries = counts["queries"]
    scores: Scores = {"map": ratio(counts["ap_sum"], queries)}
    if any(k.endswith(("_sum", "_logsum")) for k in counts if k != "ap_sum"):
        from annoscore.metrics.trec_measures import means

        scores.update(means(counts, queries, skip=("ap_sum",)))
    return {**scores, **prf_scores(counts)}


@dataclass(frozen=True, slots=True)
class CodiespDetails(Details):
    """What the official CodiEsp layouts need beyond the counts: the gold documents, in gold
    order (the F1 scripts' per-document tables list those only; after a cut run, the chunks'
    joined as :class:`~annoscore.result.Names`, made into strings only when listed)."""

    gold_documents: Sequence[str]
    outputs: tuple[Output, ...] = ()
    """The other ranked measures chosen (``--measure``), in trec_eval's order."""
    ranking: CodeRanking | WorstLists | None = field(default=None, compare=False, repr=False)
    """D and P: the ranked lists MAP is computed on (for the HTML report's worst documents;
    ``None`` where the MAP script reads the ids as numbers; after a run cut in chunks, the
    worst documents' lists only: :class:`~annoscore.metrics.worst_lists.WorstLists`).  A pickled
    copy (a worker's result, :mod:`annoscore.scale`) leaves full lists out: they are references
    to arrays of this process, and would cost a copy of every ranked row."""

    def __reduce__(self) -> tuple[Any, ...]:
        from annoscore.metrics.worst_lists import WorstLists

        kept = self.ranking if isinstance(self.ranking, WorstLists) else None
        # the names as one string (a chunk's: the parent joins them, making none)
        return (CodiespDetails, (Names.of(self.gold_documents), self.outputs, kept))
