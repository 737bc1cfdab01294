"""trec_eval's text layout: ``measure<TAB>query<TAB>value`` lines, the measure name padded to 22
characters; with ``--per-doc`` (trec_eval ``-q``) each query's lines first (queries by id),
then the ``all`` lines.  Values as trec_eval prints them (``%.4f``, whole counts as integers)."""

from __future__ import annotations

from annoscore.metrics.trec_measures import Output, TrecDetails, text_value
from annoscore.result import Result


def render_trec_eval(result: Result) -> str:
    """The lines ``trec_eval [-q] -m ...`` prints for the measures chosen."""
    details = result.details
    assert isinstance(details, TrecDetails)
    lines: list[str] = []
    if result.view.documents:
        lines = _per_query_lines(result, details)
    value: float | int | str | None
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


def _per_query_lines(result: Result, details: TrecDetails) -> list[str]:
    """Each query's lines (``-q``), queries in the matrix's order, read from the matrix's
    columns as a query's own result reads them: a whole count as it is, a mean as its sum over
    the query's ``num_q`` (1), ``-`` when that is 0."""
    matrix = result.matrix
    names = result.matrix.documents
    column = {name: k for k, name in enumerate(matrix.names)}
    table = matrix.values
    queries = [int(q) for q in table[:, column["num_q"]].tolist()] if len(names) else []
    texts: list[list[str]] = []
    shown: list[Output] = []
    for output in details.outputs:
        if not output.per_query:
            continue
        shown.append(output)
        if output.kind == "relstring":
            texts.append(list(details.relstrings))
        elif output.kind == "count":
            k = column[output.column]
            whole = matrix.integer[k]
            texts.append([text_value(output, int(v) if whole else v) for v in table[:, k].tolist()])
        else:
            values = table[:, column[output.column]].tolist()
            texts.append(
                [
                    text_value(output, v / q if q else None)
                    for v, q in zip(values, queries, strict=True)
                ]
            )
    heads = [f"{output.name:<22}\t" for output in shown]
    return [
        f"{head}{query}\t{text[index]}\n"
        for index, query in enumerate(names)
        for head, text in zip(heads, texts, strict=True)
    ]
