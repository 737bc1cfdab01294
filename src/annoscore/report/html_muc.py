"""The MUC alignment section of an HTML report (template element, relation, scenario and named
entity tasks): which key object was aligned with which response object, and slot by slot
what became of every fill, as the scorer's map history holds it
(:class:`~annoscore.metrics.muc.MucDetails`).

Embedded once as ``<script type="application/json" id="annoscore-alignment">``: ``documents``,
per document its id, its tallies and its classes, each ``[name, pairs]``; a pair is ``[status,
key id, response id, F, slots]`` (``null`` for a side it lacks or an F it has none of); a slot
``[name, tallies, fills]`` and a fill ``[status, key fill, response fill]``.  Tallies are
``[COR, PAR, INC, MIS, SPU, NON]``.  The page draws one document at a time.
"""

from __future__ import annotations

from typing import Any

from annoscore.report.html_page import embedded_json

ALIGNMENT_ID = "annoscore-alignment"


def alignment_data(details: Any) -> dict[str, Any] | None:
    """The embedded object of a MUC result's details (``None``: not a MUC template or named
    entity result)."""
    from annoscore.metrics.muc import MucDetails

    if not isinstance(details, MucDetails) or details.coref is not None or not details.documents:
        return None
    documents = []
    for alignment in details.documents:
        total = [0] * 6
        classes = []
        for cls in alignment.classes:
            pairs = []
            for pair in cls.pairs:
                slots = []
                for slot in pair.slots:
                    tally = list(slot.tally())
                    total = [a + b for a, b in zip(total, tally, strict=True)]
                    fills = [
                        [
                            fill.status,
                            None if fill.key is None else fill.key.text,
                            None if fill.response is None else fill.response.text,
                        ]
                        for fill in slot.fills
                    ]
                    slots.append([slot.definition.name, tally, fills])
                pairs.append(
                    [
                        pair.status,
                        None if pair.key is None else pair.key.id,
                        None if pair.response is None else pair.response.id,
                        pair.f_score,
                        slots,
                    ]
                )
            classes.append([cls.definition.name, pairs])
        documents.append([alignment.document, total, classes])
    return {"tallies": ["COR", "PAR", "INC", "MIS", "SPU", "NON"], "documents": documents}


def section(details: Any) -> tuple[tuple[str, str, str, str], str] | None:
    """The alignment card (anchor, nav label, title, body) and its embedded data, or
    ``None``."""
    data = alignment_data(details)
    if data is None:
        return None
    body = (
        '<div class="controls"><select id="adoc" aria-label="document"></select>'
        '<label><input type="checkbox" id="aerr"> errors only</label>'
        '<span id="atally" class="muted"></span></div>'
        '<p class="note">Each key object with the response object it was aligned with (status '
        "cor), or left over (mis: a key object no response object matched; spu: the reverse; "
        "non: an optional key object left alone); open a pair for its slots, every fill with its "
        "status.</p>"
        '<div id="aview"></div>'
    )
    element = embedded_json(data, ALIGNMENT_ID)
    return ("alignment", "Alignment", "Object alignment, slot by slot", body), element


CSS = """
.apair{border:1px solid var(--line);border-radius:6px;margin:0 0 5px;background:#fff}
.apair summary{cursor:pointer;padding:4px 8px;font-size:13px;display:flex;gap:10px;
align-items:center;flex-wrap:wrap}
.apair table{margin:4px 8px 8px}
.st{display:inline-block;min-width:34px;text-align:center;border-radius:4px;padding:0 5px;
font:12px/18px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#fff;background:#5b6475}
.st-cor{background:#009E73}.st-par{background:#E69F00}.st-inc{background:#CC79A7}
.st-mis{background:#D55E00}.st-spu{background:#0072B2}.st-non,.st-uns,.st-opt,.st-rem{background:#9aa3b2}
.aclass{margin:10px 0 4px;font-size:13px;font-weight:600}
.fill{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;
white-space:pre-wrap;max-width:380px}
"""

JS = r"""
(function(){
"use strict";
var node=document.getElementById("annoscore-alignment");if(!node)return;
var A=JSON.parse(node.textContent);window.annoscoreAlignment=A;
var select=document.getElementById("adoc"),view=document.getElementById("aview");
var only=document.getElementById("aerr"),tally=document.getElementById("atally");
function errors(t){return t[1]+t[2]+t[3]+t[4];}
var order=A.documents.map(function(d,i){return i;});
order.sort(function(a,b){return errors(A.documents[b][1])-errors(A.documents[a][1])||a-b;});
var frag=document.createDocumentFragment();
order.forEach(function(i){var o=document.createElement("option");o.value=String(i);
  o.textContent=A.documents[i][0]+" ("+errors(A.documents[i][1])+" errors)";frag.appendChild(o);});
select.appendChild(frag);
function badge(s){var b=document.createElement("span");b.className="st st-"+s;b.textContent=s;
  return b;}
function text(parent,value,cls){var t=document.createElement(cls?"span":"span");
  if(cls)t.className=cls;t.textContent=value===null||value===undefined?"\u2013":value;
  parent.appendChild(t);return t;}
function draw(){var d=A.documents[Number(select.value)];view.textContent="";
  tally.textContent=A.tallies.map(function(n,k){return n+" "+d[1][k];}).join(", ");
  d[2].forEach(function(c){var head=document.createElement("div");head.className="aclass";
    head.textContent=c[0]+" ("+c[1].length+" pairs)";view.appendChild(head);
    c[1].forEach(function(p){var bad=p[0]!=="cor"||p[4].some(function(s){
        return errors(s[1])>0;});
      if(only.checked&&!bad)return;
      var det=document.createElement("details");det.className="apair";
      det.setAttribute("data-status",p[0]);
      var sum=document.createElement("summary");sum.appendChild(badge(p[0]));
      text(sum,"key "+(p[1]===null?"\u2013":p[1]));
      text(sum,"response "+(p[2]===null?"\u2013":p[2]));
      if(p[3]!==null&&p[3]!==undefined)text(sum,"F "+p[3].toFixed(2),"muted");
      det.appendChild(sum);
      det.addEventListener("toggle",function(){if(!det.open||det.querySelector("table"))return;
        var table=document.createElement("table");var h=table.createTHead().insertRow();
        ["slot","status","key fill","response fill"].forEach(function(x){
          var th=document.createElement("th");th.textContent=x;h.appendChild(th);});
        var body=table.createTBody();
        p[4].forEach(function(s){if(!s[2].length){var r=body.insertRow();
            text(r.insertCell(),s[0]);r.insertCell();r.insertCell();r.insertCell();return;}
          s[2].forEach(function(f,i){var r=body.insertRow();r.setAttribute("data-fill",f[0]);
            text(r.insertCell(),i?"":s[0]);r.insertCell().appendChild(badge(f[0]));
            text(r.insertCell(),f[1],"fill");text(r.insertCell(),f[2],"fill");});});
        det.appendChild(table);});
      view.appendChild(det);});});}
select.addEventListener("change",draw);only.addEventListener("change",draw);
if(A.documents.length)draw();
})();
"""
