"""trec_eval's text layout: ``measure<TAB>query<TAB>value`` lines, the measure name padded to 22
characters; with ``--per-doc`` (trec_eval ``-q``) each query's lines first (queries by id),
then the ``all`` lines.  Values as trec_eval prints them (``%.4f``, whole counts as integers)."""

from __future__ import annotations

from annoscore.metrics.trec_measures import TrecDetails, text_value
from annoscore.result import Result


def render_trec_eval(result: Result) -> str:
    """The lines ``trec_eval [-q] -m ...`` prints for the measures chosen."""
    details = result.details
    assert isinstance(details, TrecDetails)
    lines: list[str] = []
    if result.view.documents:
        documents = result.documents
        for index, query in enumerate(result.matrix.documents):
            unit = documents[query]
            for output in details.outputs:
                if not output.per_query:
                    continue
                if output.kind == "relstring":
                    value: float | int | str | None = details.relstrings[index]
                elif output.kind == "count":
                    value = unit.counts[output.column]
                else:
                    value = unit.scores.get(output.name)
                lines.append(f"{output.name:<22}\t{query}\t{text_value(output, value)}\n")
    for output in details.outputs:
        if output.kind == "relstring":
            continue
        if output.kind == "runid":
            value = details.runid
        elif output.kind in ("count", "num_q"):
            value = result.counts[output.column]
        else:
            value = result.scores.get(output.name)
        lines.append(f"{output.name:<22}\tall\t{text_value(output, value)}\n")
    return "".join(lines)
