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
never ranked (trec: not listed, ``[]``).  The page draws one query at a time.  On a page of
several systems each system's card has its own, the ids suffixed (``annoscore-ranked-1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annoscore.report.html_page import embedded_json, escape, table

RANKED_ID = "annoscore-ranked"


def ranked_data(
    details: Any, documents: Mapping[str, Any], key: str | None
) -> dict[str, Any] | None:
    """The embedded object (``documents``: the result's per-query units, ranked by ``key``),
    or ``None`` for a result without ranked lists.  The lists are the details' ``ranking``:
    every query's (one process), or the worst queries' of each chunk (``-j N``:
    :class:`~annoscore.metrics.worst_lists.WorstLists`); the worst of the corpus are the same."""
    from annoscore.metrics.codiesp import CodiespDetails
    from annoscore.metrics.trec_measures import TrecDetails
    from annoscore.metrics.worst_lists import RANKS, worst

    if key is None or not isinstance(details, TrecDetails | CodiespDetails):
        return None
    ranking = details.ranking
    if ranking is None:
        return None
    names = worst(ranking.names, documents, key)
    lists = ranking.query_lists(names, RANKS)
    queries = [
        [
            name,
            documents[name].scores.get(key),
            q.relevant,
            q.found,
            [list(row) for row in q.ranked],
            list(q.missed),
        ]
        for name in names
        for q in (lists[name],)
    ]
    unit, item = ("query", "document") if isinstance(details, TrecDetails) else ("document", "code")
    return {
        "key": key,
        "level": ranking.level,
        "shown": RANKS,
        "unit": unit,
        "item": item,
        "queries": queries,
    }


def section(
    details: Any, documents: Mapping[str, Any], key: str | None, suffix: str = ""
) -> tuple[tuple[str, str, str, str], str] | None:
    """The worst queries card (anchor, nav label, title, body) and its embedded data, or
    ``None``; ``suffix`` tells the elements of one system's card from another's on a page of
    several systems."""
    data = ranked_data(details, documents, key)
    if data is None or not data["queries"]:
        return None
    unit, item, ranks = data["unit"], data["item"], data["shown"]
    if item == "code":
        how = (
            f"each with its first {ranks} codes in the order MAP ranks them; its gold codes are "
            "marked, and the gold codes never predicted are listed after the ranked ones."
        )
    else:
        how = (
            f"each with its first {ranks} ranks as trec_eval ranks them (score descending, "
            "then document id descending); relevant documents (relevance at least "
            f"{data['level']}) are marked, unjudged ones greyed."
        )
    head = (
        '<th class="num">rank</th>'
        f"<th>{item}</th><th class='num'>{'gold' if item == 'code' else 'relevance'}</th>"
    )
    body = (
        f'<div class="controls"><select id="rquery{suffix}" class="rquery" '
        f'aria-label="{unit}"></select><span id="rsum{suffix}" class="muted"></span></div>'
        f'<p class="note">The {len(data["queries"])} {unit}s of lowest '
        f"{escape(data['key'])}, {how}</p>"
    ) + table(head, [], f' id="rlist{suffix}" class="rlist"', scroll=True)
    element = embedded_json(data, RANKED_ID + suffix)
    label = "Worst " + {"query": "queries", "document": "documents"}[unit]
    return (f"worst{suffix}", label, f"{label} and their ranked lists", body), element


CSS = """
.rlist tr.rel td{background:#e3f4ec}
.rlist tr.rel td:first-child{box-shadow:inset 4px 0 0 #009E73}
.rlist tr.unj td{color:#9aa3b2}
.rlist tr.missed td{background:#fbeee6}
.rlist tr.missed td:first-child{box-shadow:inset 4px 0 0 #D55E00}
.rlist td.rank{text-align:right;font-variant-numeric:tabular-nums}
"""

JS = r"""
(function(){
"use strict";
var nodes=document.querySelectorAll("script[id^='annoscore-ranked']");
Array.prototype.forEach.call(nodes,function(node){
var suffix=node.id.slice("annoscore-ranked".length);
var Q=JSON.parse(node.textContent);if(!suffix)window.annoscoreRanked=Q;
var select=document.getElementById("rquery"+suffix);
var body=document.querySelector("#rlist"+suffix+" tbody");
if(!select||!body)return;
var sum=document.getElementById("rsum"+suffix),codes=Q.item==="code";
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
});
})();
"""
