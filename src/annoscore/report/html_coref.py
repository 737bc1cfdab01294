"""The coreference sections of an HTML report (``coref``, MUC coreference, ARE 2 and 4): the
errors after Kummerfeld and Klein (2013) with the score each costs, and the entity viewer.

The errors and the repaired responses are :mod:`annoscore.metrics.coref_errors`'s, rescored
with the project's metrics; what the page shows is embedded once as
``<script type="application/json" id="annoscore-coref">`` beside the result's JSON (which stays
the ``--format json`` object): ``counts`` (per kind of error), ``scores`` (of the response, then
after each repair, the last the key's), ``gains`` (per kind, the difference its repair makes;
``null`` where a score is undefined) and per document its key and response entities (mention
labels: ``first-last`` token spans, or the task's mention ids) and its counts.  Every number of
the errors table names its place in that object (``data-coref-path``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annoscore.counts import Counts
from annoscore.metrics.coref import METRICS, coref_scores
from annoscore.metrics.coref_errors import (
    CATEGORIES,
    LABELS,
    coref_errors,
    stage_counts,
    token_span_fixes,
)
from annoscore.report.html_page import embedded_json, escape, fmt_count, fmt_score, table

COREF_ID = "annoscore-coref"


@dataclass(frozen=True, slots=True)
class CorefSides:
    """Each document's key and response partitions, as the task scored them (``spans``: the
    mentions are ``(first token, last token)`` spans, whose span errors are found by overlap;
    otherwise ids, whose pairing the task already made), and the metrics it scored."""

    documents: Mapping[str, tuple[Sequence[Iterable[Any]], Sequence[Iterable[Any]]]]
    spans: bool = True
    metrics: tuple[str, ...] = field(default=METRICS)
    note: str = ""
    """Said under the errors table."""


def details_sides(details: Any) -> CorefSides | None:
    """The partitions of a result's details, where they are a coreference task's: MUC
    coreference (markables by key id, the alignment the task made; a response markable aligned
    with none shown ``r`` + its id), ARE task 2 (members by id) or 4 (mentions by token
    positions, span errors by overlap); else ``None``."""
    from annoscore.metrics.anaphora_items import AreDetails
    from annoscore.metrics.muc import MucDetails

    if isinstance(details, MucDetails) and details.coref is not None:
        aligned = {a.document: a.partitions() for a in details.coref}
        return CorefSides(aligned, spans=False, metrics=("muc",))
    if not isinstance(details, AreDetails) or details.task not in (2, 4):
        return None
    links = details.chains
    if links is None:
        return None
    documents: dict[str, tuple[list[list[Any]], list[list[Any]]]] = {
        key: ([], []) for key in details.keys
    }
    for k, (side, rows) in enumerate(
        ((links.gold, details.gold_rows), (links.system, details.system_rows))
    ):
        chains: dict[tuple[int, int], list[Any]] = {}
        for member, (chain, document) in enumerate(
            zip(side.member_chain.tolist(), side.member_document.tolist(), strict=True)
        ):
            row = rows[member]
            if details.task == 2:
                mention: Any = details.labels(document, row)
            else:
                mention = (int(row[0]), int(row[1]))
            chains.setdefault((document, chain), []).append(mention)
        for (document, _), members in chains.items():
            documents[details.keys[document]][k].append(members)
    note = (
        " ARE task 4 is rescored here with MUC over exact mentions (the task's overlap credit "
        "is left out), after span errors are repaired by overlap."
        if details.task == 4
        else ""
    )
    return CorefSides(documents, spans=details.task == 4, metrics=("muc",), note=note)


def _label(mention: Any) -> str:
    if isinstance(mention, tuple) and len(mention) == 2:
        return f"{mention[0]}-{mention[1]}"
    text = str(mention)
    return "r" + text[1:] if text.startswith("\x00") else text


def _gain(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else after - before


def analyse(sides: CorefSides) -> dict[str, Any]:
    """The embedded object (see the module doc)."""
    metrics = tuple(m for m in sides.metrics if m in METRICS) or METRICS
    stages: list[Counts] = [Counts() for _ in range(len(CATEGORIES) + 1)]
    counts = Counts()
    documents: dict[str, Any] = {}
    for name, (key, response) in sides.documents.items():
        key = [list(e) for e in key if e]
        response = [list(e) for e in response if e]
        fixes = token_span_fixes(key, response) if sides.spans else {}
        errors = coref_errors(key, response, fixes)
        stages = [a + b for a, b in zip(stages, stage_counts(key, errors, metrics), strict=True)]
        counts = counts + errors.counts
        documents[name] = {
            "key": [[_label(m) for m in e] for e in key],
            "response": [[_label(m) for m in e] for e in response],
            "fixes": {_label(r): _label(k) for r, k in fixes.items()},
            "counts": {c: errors.counts[c] for c in CATEGORIES},
            "n": sum(errors.counts.values()),
        }
    scores = [coref_scores(stage, metrics) for stage in stages]
    keys = [k for k in scores[0] if k.endswith("_f1") and not k.startswith("mentions")]
    keys.sort(key=lambda k: k != "conll_f1")
    gains = {
        c: {k: _gain(scores[i + 1][k], scores[i][k]) for k in keys}
        for i, c in enumerate(CATEGORIES)
    }
    return {
        "categories": list(CATEGORIES),
        "labels": LABELS,
        "keys": keys,
        "counts": {c: counts[c] for c in CATEGORIES},
        "scores": [{k: s[k] for k in keys} for s in scores],
        "gains": gains,
        "documents": documents,
    }


def _cell(value: float | int | None, path: Sequence[Any], *, gain: bool = False) -> str:
    shown = fmt_count(value) if not gain and isinstance(value, int) else fmt_score(value)
    classes = "num"
    if gain and value is not None:
        shown = ("+" if value >= 0 else "") + shown
        classes += " pos" if value > 1e-12 else " neg" if value < -1e-12 else ""
    title = "" if value is None else f' title="{escape(repr(value))}"'
    where = escape(json.dumps(list(path)))
    return f'<td class="{classes}" data-coref-path="{where}"{title}>{shown}</td>'


def _errors_table(data: Mapping[str, Any]) -> str:
    keys = data["keys"]
    head = "<th>error</th><th class='num'>count</th>" + "".join(
        f"<th class='num'>{escape(k)}</th>" for k in keys
    )
    rows = [
        "<tr><td class='name'><i>the response</i></td><td></td>"
        + "".join(_cell(data["scores"][0][k], ["scores", 0, k]) for k in keys)
        + "</tr>"
    ]
    for c in data["categories"]:
        cells = f'<td class="name">{escape(data["labels"][c])}</td>'
        cells += _cell(data["counts"][c], ["counts", c])
        cells += "".join(_cell(data["gains"][c][k], ["gains", c, k], gain=True) for k in keys)
        rows.append(f'<tr data-kind="{escape(c)}">{cells}</tr>')
    last = len(data["scores"]) - 1
    rows.append(
        "<tr><td class='name'><i>every error repaired (the key)</i></td><td></td>"
        + "".join(_cell(data["scores"][last][k], ["scores", last, k]) for k in keys)
        + "</tr>"
    )
    return table(head, rows, scroll=True)


NOTE = (
    "Kummerfeld and Klein's (2013) errors: the response is turned into the key by repairs, in "
    "the order of the rows (each applied to what the previous left); a row's count is the "
    "number of its repairs, its other columns the score gained by them, rescored with the same "
    "metrics. Span errors pair a wrong mention with the key mention it overlaps most."
)


def sections(sides: CorefSides) -> tuple[list[tuple[str, str, str, str]], str]:
    """The coreference sections, as (anchor, nav label, title, body) cards, and the embedded
    data."""
    data = analyse(sides)
    viewer = (
        '<div class="controls"><select id="cdoc" aria-label="document"></select>'
        '<span id="ccounts" class="muted"></span></div>'
        '<p class="note">Each mention is coloured by its key entity (grey: no key mention) and '
        "tagged with the entity of the other side; click an entity to see its mentions on both "
        "sides and what it was split into or merged with.</p>"
        '<div id="cinfo" class="cinfo"></div>'
        '<div class="cpair"><div><h3>Key entities</h3><div id="ckey"></div></div>'
        '<div><h3>Response entities</h3><div id="cresp"></div></div></div>'
    )
    cards = [
        (
            "coref-errors",
            "Errors",
            "Coreference errors",
            _errors_table(data) + f'<p class="note">{escape(NOTE + sides.note)}</p>',
        ),
        ("entities", "Entities", "Entity viewer", viewer),
    ]
    element = embedded_json(data, COREF_ID)
    return cards, element


CSS = """
.cpair{display:grid;grid-template-columns:1fr 1fr;gap:18px}
.cpair h3{font-size:13px;margin:0 0 6px}
.ent{border:1px solid var(--line);border-radius:6px;padding:4px 8px;margin:0 0 6px;cursor:pointer;
background:#fff}
.ent.on{outline:2px solid #1f2a44}
.ent .lab{font-weight:600;font-size:12px;margin-right:6px}
.ment{display:inline-block;margin:2px 3px;padding:0 5px;border-radius:4px;font:12px/18px
ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border:2px solid var(--e);
background:color-mix(in srgb,var(--e) 18%,#fff)}
.ment.none{--e:#9aa3b2;border-style:dashed;background:#f3f4f7}
.ment.hit{box-shadow:0 0 0 2px #1f2a44}
.ment sub{font-size:9px;color:var(--muted);margin-left:2px}
.cinfo{min-height:20px;margin:0 0 8px;font-size:13px}
"""

JS = r"""
(function(){
"use strict";
var node=document.getElementById("annoscore-coref");if(!node)return;
var C=JSON.parse(node.textContent);window.annoscoreCoref=C;
var PALETTE=["#0072B2","#E69F00","#009E73","#CC79A7","#56B4E9","#D55E00","#F0E442","#000000",
  "#8c564b","#7f7f7f","#bcbd22","#17becf"];
var names=Object.keys(C.documents);
names.sort(function(a,b){return C.documents[b].n-C.documents[a].n||(a<b?-1:a>b?1:0);});
var select=document.getElementById("cdoc"),keyBox=document.getElementById("ckey");
var respBox=document.getElementById("cresp"),info=document.getElementById("cinfo");
var counts=document.getElementById("ccounts");
var frag=document.createDocumentFragment();
names.forEach(function(n){var o=document.createElement("option");o.value=n;
  o.textContent=n+" ("+C.documents[n].n+" errors)";frag.appendChild(o);});
select.appendChild(frag);
function draw(name){var d=C.documents[name];keyBox.textContent="";respBox.textContent="";
  info.textContent="";
  counts.textContent=C.categories.filter(function(c){return d.counts[c];}).map(function(c){
    return C.labels[c]+": "+d.counts[c];}).join(", ")||"no errors";
  var keyOf={},respOf={};
  d.key.forEach(function(e,k){e.forEach(function(m){keyOf[m]=k;});});
  d.response.forEach(function(e,r){e.forEach(function(m){respOf[m]=r;});});
  function chip(m,k,other,tag){var s=document.createElement("span");s.className="ment";
    s.setAttribute("data-m",m);
    if(k===undefined){s.classList.add("none");}else{s.style.setProperty("--e",PALETTE[k%PALETTE.length]);}
    s.appendChild(document.createTextNode(m));var sub=document.createElement("sub");
    sub.textContent=tag;s.appendChild(sub);return s;}
  function box(list,label,own,other,parent,side){list.forEach(function(e,i){
    var div=document.createElement("div");div.className="ent";div.setAttribute("data-side",side);
    div.setAttribute("data-entity",String(i));
    var lab=document.createElement("span");lab.className="lab";lab.textContent=label+(i+1);
    div.appendChild(lab);
    e.forEach(function(m){var k=keyOf[m],o=other[m];
      var tag=side==="k"?(o===undefined?(d.fixes&&Object.keys(d.fixes).some(function(r){
        return d.fixes[r]===m;})?"span":"missing"):"R"+(o+1)):(k===undefined?
        (d.fixes&&d.fixes[m]!==undefined?"span":"extra"):"K"+(k+1));
      var fixed=k===undefined&&d.fixes&&d.fixes[m]!==undefined?keyOf[d.fixes[m]]:k;
      var c=chip(m,side==="k"?i:fixed,o,tag);
      c.setAttribute("data-tag",tag);div.appendChild(c);});
    div.addEventListener("click",function(){pick(side,i);});parent.appendChild(div);});}
  box(d.key,"K",keyOf,respOf,keyBox,"k");box(d.response,"R",respOf,keyOf,respBox,"r");
  function pick(side,i){Array.prototype.forEach.call(document.querySelectorAll(".ent.on,.ment.hit"),
      function(x){x.classList.remove("on","hit");});
    var list=side==="k"?d.key[i]:d.response[i];var map=side==="k"?respOf:keyOf;
    var partners={},lacking=0;list.forEach(function(m){var o=map[m];
      if(o===undefined)lacking++;else partners[o]=1;
      Array.prototype.forEach.call(document.querySelectorAll(".ment"),function(x){
        if(x.getAttribute("data-m")===m)x.classList.add("hit");});});
    var other=Object.keys(partners).map(Number).sort(function(a,b){return a-b;});
    var mine=(side==="k"?"K":"R")+(i+1),theirs=side==="k"?"R":"K";
    var text=mine+": "+list.length+" mention"+(list.length===1?"":"s");
    var named=other.map(function(o){return theirs+(o+1);}).join(", ");
    if(other.length>1)text+=(side==="k"?"; split over ":"; merges ")+named;
    else if(other.length===1)text+="; with "+theirs+(other[0]+1);
    if(lacking)text+="; "+lacking+(side==="k"?" missing from the response":" not in the key");
    info.textContent=text;
    var own=document.querySelector(".ent[data-side='"+side+"'][data-entity='"+i+"']");
    if(own)own.classList.add("on");
    other.forEach(function(o){var x=document.querySelector(".ent[data-side='"+(side==="k"?"r":"k")+
      "'][data-entity='"+o+"']");if(x)x.classList.add("on");});}
  window.annoscorePick=pick;}
select.addEventListener("change",function(){draw(select.value);});
window.annoscoreShowEntities=function(name){select.value=name;draw(name);};
if(names.length)draw(names[0]);
})();
"""
