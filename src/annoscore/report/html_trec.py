"""The worst queries of a ranked task in an HTML report, each with its ranked list: ``trec``
(as trec_eval ranked it, relevant documents marked: :class:`~annoscore.metrics.trec_measures.
RankedLists`) and CodiEsp D/P (the worst documents, each with its codes as MAP ranked them, gold
codes marked and the gold codes never predicted listed after: :class:`~annoscore.metrics.
ranked_codes.CodeRanking`).  One renderer for both.

Embedded once as ``<script type="application/json" id="annoscore-ranked">``: ``key`` (the
per-query score the queries are ranked by), ``level`` (the least relevance that counts),
``shown`` (how many ranks are listed), ``unit`` and ``item`` (what a query and a ranked item
are called: ``query``/``document`` or ``document``/``code``) and ``queries``: the worst first,
each ``[name, score, relevant, retrieved relevant, ranked, missed]`` with ``ranked`` the first
``shown`` rows as ``[item, relevance]`` (``null``: not judged) and ``missed`` the relevant items
never ranked (trec: not listed, ``[]``).  The page draws one query at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annoscore.report.html_page import embedded_json, escape

RANKED_ID = "annoscore-ranked"
WORST = 50
"""Queries listed."""
RANKS = 100
"""Ranks shown of each."""


def ranked_data(
    details: Any, documents: Mapping[str, Any], key: str | None
) -> dict[str, Any] | None:
    """The embedded object (``documents``: the result's per-query units, ranked by ``key``),
    or ``None`` for a result without ranked lists."""
    from annoscore.metrics.codiesp import CodiespDetails
    from annoscore.metrics.trec_measures import TrecDetails

    if key is None:
        return None
    if isinstance(details, TrecDetails) and details.ranking is not None:
        return _trec_data(details, documents, key)
    if isinstance(details, CodiespDetails) and details.ranking is not None:
        return _code_data(details, documents, key)
    return None


def _worst(names: Any, documents: Mapping[str, Any], key: str) -> list[str]:
    """The ``WORST`` of ``names`` (those of ``documents``) of lowest ``key``, undefined last."""

    def value(name: str) -> float:
        v = documents[name].scores.get(key)
        return float("inf") if v is None else float(v)

    import heapq

    return heapq.nsmallest(WORST, (n for n in documents if n in names), key=lambda n: (value(n), n))


def _trec_data(details: Any, documents: Mapping[str, Any], key: str) -> dict[str, Any]:
    import numpy as np

    from annoscore.formats.trec import shown

    lists = details.ranking
    position = {name: k for k, name in enumerate(lists.names)}
    query = np.asarray(lists.query)
    starts = np.searchsorted(query, np.arange(len(lists.names) + 1))
    out = []
    for name in _worst(position, documents, key):
        k = position[name]
        lo, hi = int(starts[k]), int(starts[k + 1])
        relevant = lists.value[lo:hi] >= lists.level
        found = int(np.count_nonzero(relevant & lists.is_judged[lo:hi]))
        top = min(hi, lo + RANKS)
        ranked = [
            [shown(lists.run.document(int(row))), int(v) if judged else None]
            for row, v, judged in zip(
                lists.rows[lo:top].tolist(),
                lists.value[lo:top].tolist(),
                lists.is_judged[lo:top].tolist(),
                strict=True,
            )
        ]
        score = documents[name].scores.get(key)
        out.append([name, score, int(lists.relevant[k]), found, ranked, []])
    return _data(key, lists.level, "query", "document", out)


def _code_data(details: Any, documents: Mapping[str, Any], key: str) -> dict[str, Any]:
    lists = details.ranking
    position = {name: k for k, name in enumerate(lists.documents)}
    out: list[list[Any]] = []
    for name in _worst(position, documents, key):
        ranked, missed, found = lists.ranked(position[name], RANKS)
        rows = [[code, int(relevant)] for code, relevant in ranked]
        relevant = found + len(missed)
        out.append([name, documents[name].scores.get(key), relevant, found, rows, missed])
    return _data(key, 1, "document", "code", out)


def _data(key: str, level: int, unit: str, item: str, queries: list[Any]) -> dict[str, Any]:
    return {
        "key": key,
        "level": level,
        "shown": RANKS,
        "unit": unit,
        "item": item,
        "queries": queries,
    }


def section(
    details: Any, documents: Mapping[str, Any], key: str | None
) -> tuple[tuple[str, str, str, str], str] | None:
    """The worst queries card (anchor, nav label, title, body) and its embedded data, or
    ``None``."""
    data = ranked_data(details, documents, key)
    if data is None or not data["queries"]:
        return None
    unit, item = data["unit"], data["item"]
    if item == "code":
        how = (
            f"each with its first {RANKS} codes in the order MAP ranks them; its gold codes are "
            "marked, and the gold codes never predicted are listed after the ranked ones."
        )
    else:
        how = (
            f"each with its first {RANKS} ranks as trec_eval ranks them (score descending, "
            "then document id descending); relevant documents (relevance at least "
            f"{data['level']}) are marked, unjudged ones greyed."
        )
    body = (
        f'<div class="controls"><select id="rquery" aria-label="{unit}"></select>'
        '<span id="rsum" class="muted"></span></div>'
        f'<p class="note">The {len(data["queries"])} {unit}s of lowest '
        f"{escape(data['key'])}, {how}</p>"
        '<div class="scroll"><table id="rlist"><thead><tr><th class="num">rank</th>'
        f"<th>{item}</th><th class='num'>{'gold' if item == 'code' else 'relevance'}</th>"
        "</tr></thead><tbody></tbody></table>"
        "</div>"
    )
    element = embedded_json(data, RANKED_ID)
    label = "Worst " + {"query": "queries", "document": "documents"}[unit]
    return ("worst", label, f"{label} and their ranked lists", body), element


CSS = """
#rlist tr.rel td{background:#e3f4ec}
#rlist tr.rel td:first-child{box-shadow:inset 4px 0 0 #009E73}
#rlist tr.unj td{color:#9aa3b2}
#rlist tr.missed td{background:#fbeee6}
#rlist tr.missed td:first-child{box-shadow:inset 4px 0 0 #D55E00}
#rlist td.rank{text-align:right;font-variant-numeric:tabular-nums}
"""

JS = r"""
(function(){
"use strict";
var node=document.getElementById("annoscore-ranked");if(!node)return;
var Q=JSON.parse(node.textContent);window.annoscoreRanked=Q;
var select=document.getElementById("rquery"),body=document.querySelector("#rlist tbody");
var sum=document.getElementById("rsum"),codes=Q.item==="code";
Q.queries.forEach(function(q,i){var o=document.createElement("option");o.value=String(i);
  o.textContent=q[0]+" ("+Q.key+" "+(q[1]===null?"-":q[1].toFixed(4))+")";select.appendChild(o);});
function draw(){var q=Q.queries[Number(select.value)];body.textContent="";
  sum.textContent=q[3]+" of "+q[2]+" relevant "+Q.item+"s retrieved";
  q[4].forEach(function(r,i){var tr=body.insertRow();
    var rel=r[1]!==null&&r[1]>=Q.level;tr.className=rel?"rel":(r[1]===null?"unj":"");
    tr.setAttribute("data-rel",rel?"1":"0");
    var c=tr.insertCell();c.className="rank";c.textContent=String(i+1);
    c=tr.insertCell();c.className="name";c.textContent=r[0];c.title=r[0];
    c=tr.insertCell();c.className="rank";
    c.textContent=r[1]===null?"unjudged":(codes?(rel?"gold":"not gold"):String(r[1]));});
  q[5].forEach(function(name){var tr=body.insertRow();tr.className="missed";
    tr.setAttribute("data-rel","missed");
    var c=tr.insertCell();c.className="rank";c.textContent="\u2013";
    c=tr.insertCell();c.className="name";c.textContent=name;c.title=name;
    c=tr.insertCell();c.className="rank";
    c.textContent=codes?"gold, not predicted":"not retrieved";});}
select.addEventListener("change",draw);
if(Q.queries.length)draw();
})();
"""
