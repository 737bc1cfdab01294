"""trec_eval's summary lines, the text layout of ``annoscore trec``."""

from __future__ import annotations

from annoscore.metrics.ranking import RankingDetails
from annoscore.result import Result


def _map_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _query_rows(result: Result) -> list[tuple[str, str, str]]:
    """trec_eval ``-q``'s per-query lines (``--per-doc``): each query's num_ret, num_rel,
    num_rel_ret and map, queries in sorted order, before the summary."""
    rows = []
    for query, unit in sorted(result.documents.items()):
        c = unit.counts
        rows += [
            ("num_ret", query, str(c["retrieved"])),
            ("num_rel", query, str(c["relevant"])),
            ("num_rel_ret", query, str(c["relevant_retrieved"])),
            ("map", query, _map_text(unit.scores.get("map"))),
        ]
    return rows


def render_trec_eval(result: Result) -> str:
    """trec_eval's summary lines: ``measure<TAB>all<TAB>value``; with ``--per-doc`` first the
    per-query lines of ``trec_eval -q`` (``measure<TAB>query<TAB>value``)."""
    c = result.counts
    runid = result.details.runid if isinstance(result.details, RankingDetails) else ""
    rows = _query_rows(result) if result.view.documents else []
    rows += [
        ("runid", "all", runid),
        ("num_q", "all", str(c["queries"])),
        ("num_ret", "all", str(c["retrieved"])),
        ("num_rel", "all", str(c["relevant"])),
        ("num_rel_ret", "all", str(c["relevant_retrieved"])),
        ("map", "all", _map_text(result.scores["map"])),
    ]
    return "".join(f"{name:<22}\t{scope}\t{text}\n" for name, scope, text in rows)
