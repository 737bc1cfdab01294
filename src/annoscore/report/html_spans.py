"""The span sections of an HTML report (``spans``, ``pharmaconer ner``): error categories per
type, the type confusion matrix, the most frequent missed and spurious strings, the worst
documents and the document viewer with gold and predictions overlaid.

The categories are :mod:`annoscore.align.span_errors`'s, the counts and the viewer's data
:mod:`annoscore.report.html_span_data`'s (:func:`~annoscore.report.html_span_data.analyse`).
What the viewer needs is embedded once, as compact JSON in ``<script type="application/json"
id="annoscore-errors">``, beside the result's JSON (which stays the ``--format json`` object):
per document its text (or, beyond the size budget, context windows around the mentions;
nothing with ``--no-text``) and its gold mentions, predictions and items.  The viewer draws a
document on demand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from annoscore.align.span_errors import CATEGORIES, CORRECT, SIDES, SPURIOUS
from annoscore.align.span_sides import SpanSides
from annoscore.report.html_page import embedded_json, escape, table
from annoscore.report.html_span_data import LABELS, LONG, WINDOW, analyse

ERRORS_ID = "annoscore-errors"
TEXTS_ID = "annoscore-texts"
BUCKETS_ID = "annoscore-buckets"


def _categories_table(data: dict[str, Any]) -> str:
    cats = CATEGORIES
    head = "<th>type</th>" + "".join(
        f'<th class="num"><i class="key c-{escape(c.replace("+", "_"))}"></i>'
        f"{escape(LABELS[c])}</th>"
        for c in cats
    )
    rows = []
    totals: Counter[str] = Counter()
    for kind, counts in data["types"].items():
        totals.update(counts)
        cells = "".join(
            f'<td class="num" data-err="{escape(c)}">{counts.get(c, 0)}</td>' for c in cats
        )
        rows.append(f'<tr><td class="name">{escape(kind)}</td>{cells}</tr>')
    cells = "".join(f'<td class="num"><b>{totals.get(c, 0)}</b></td>' for c in cats)
    rows.append(f"<tr><td class='name'><b>all</b></td>{cells}</tr>")
    return table(head, rows, ' class="sort"', scroll=True)


def side_label(side: str) -> str:
    """A boundary error's side as words.

    >>> side_label("left+ right-"), side_label("frag")
    ('left extended, right shrunk', 'inner fragments only')
    """
    if side == "frag":
        return "inner fragments only"
    words = {"+": "extended", "-": "shrunk"}
    return ", ".join(f"{part[:-1]} {words[part[-1]]}" for part in side.split())


def _boundary_table(data: dict[str, Any]) -> str:
    """Per type, its boundary errors (wrong type and boundary included) by side: which end of
    the prediction is off, and whether it reaches beyond the gold (extended) or short of it
    (shrunk)."""
    boundary: dict[str, dict[str, int]] = data["boundary"]
    if not boundary:
        return ""
    found = [s for s in SIDES if any(s in row for row in boundary.values())]
    head = "<th>type</th>" + "".join(f'<th class="num">{escape(side_label(s))}</th>' for s in found)
    rows = []
    for kind, counts in boundary.items():
        cells = "".join(
            f'<td class="num" data-side="{escape(s)}">{counts.get(s, 0)}</td>' for s in found
        )
        rows.append(f'<tr><td class="name">{escape(kind)}</td>{cells}</tr>')
    return (
        "<h3>Boundary errors by side</h3>"
        + table(head, rows, ' class="sort" id="boundary-table"', scroll=True)
        + '<p class="note">The gold mentions of a boundary error (wrong type and boundary '
        "included) by the end of the prediction that is off: extended, the prediction reaches "
        "beyond the gold; shrunk, it stops short.</p>"
    )


def _confusion_table(data: dict[str, Any]) -> str:
    confusion: dict[str, dict[str, int]] = data["confusion"]
    rows_names = [r for r in confusion if r != "(spurious)"] + (
        ["(spurious)"] if "(spurious)" in confusion else []
    )
    columns: list[str] = sorted({c for row in confusion.values() for c in row} - {"(missed)"})
    if any("(missed)" in row for row in confusion.values()):
        columns.append("(missed)")
    top = max((n for row in confusion.values() for n in row.values()), default=1)
    head = "<th>gold \\ predicted</th>" + "".join(
        f"<th class='num'>{escape(c)}</th>" for c in columns
    )
    rows = []
    for r in rows_names:
        cells = ""
        for c in columns:
            n = confusion[r].get(c, 0)
            diagonal = r == c
            shade = 0 if not n else 0.12 + 0.6 * n / top
            colour = "11,122,83" if diagonal else "179,38,30"
            style = f' style="background:rgba({colour},{shade:.2f})"' if n else ""
            cells += (
                f'<td class="num cm" data-gold="{escape(r)}" data-pred="{escape(c)}"{style}>'
                f"{n if n else ''}</td>"
            )
        rows.append(f'<tr><td class="name">{escape(r)}</td>{cells}</tr>')
    return (
        table(head, rows, ' id="confusion-table"', scroll=True)
        + '<p class="note">Click a cell for its instances; click an instance to open its document '
        "in the viewer.</p>"
        '<div id="cmlist" class="cmlist"></div>'
    )


def _frequent(data: dict[str, Any]) -> str:
    if not data["text"]:
        return '<p class="muted">Left out (--no-text).</p>'
    parts = []
    for what in ("missed", "spurious"):
        rows = "".join(
            f'<tr data-freq="{what}" data-type="{escape(t)}" data-text="{escape(s)}">'
            f'<td class="name">{escape(t)}</td><td class="name surface">{escape(s)}</td>'
            f'<td class="num">{n}</td></tr>'
            for t, s, n in data[what]
        )
        parts.append(
            f"<div><h3>Most often {what}</h3><table><thead><tr><th>type</th><th>text</th>"
            f'<th class="num">n</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
    return (
        f'<div class="pair">{"".join(parts)}</div>'
        '<p class="note">Click a row for its occurrences; click one to open its document in the '
        "viewer.</p>"
        '<div id="freqlist" class="cmlist"></div>'
    )


def _viewer(systems: Sequence[str] = ()) -> str:
    """The viewer's controls and its drawing area; ``systems``: the names of the page of
    several systems, a select choosing whose predictions are drawn (the first, the baseline,
    first)."""
    buttons = "".join(
        f'<label><input type="checkbox" data-cat="{escape(c)}" checked>'
        f'<i class="key c-{escape(c.replace("+", "_"))}"></i>{escape(LABELS[c])}</label>'
        for c in CATEGORIES
    )
    choose = ""
    if systems:
        options = "".join(
            f'<option value="{k}">{escape(n)}{" (baseline)" if k == 0 else ""}</option>'
            for k, n in enumerate(systems)
        )
        choose = (
            f'<label>gold against <select id="vsys" aria-label="system">{options}</select></label>'
        )
    return (
        f'<div class="controls">{choose}<select id="vdoc" aria-label="document"></select>'
        '<button id="vprev" type="button">&larr; previous error</button>'
        '<button id="vnext" type="button">next error &rarr;</button>'
        '<select id="vtype" aria-label="type"><option value="">every type</option></select>'
        '<label><input type="checkbox" id="vwhole"> whole text</label>'
        '<span id="vpos" class="muted"></span></div>'
        f'<div class="controls cats">{buttons}</div>'
        '<p class="note">Gold mentions are bars in the colour and line of their category '
        "(solid: correct, long dashes: wrong type, short dashes: boundary, dash and dot: wrong "
        "type and boundary, dots: missed), predictions diagonally hatched bars in the colour of "
        "theirs, stacked where they nest or overlap; the fragments of a discontinuous mention "
        "share a number. Hover "
        f"a bar for its type and category. A document longer than {LONG} characters shows "
        f"{WINDOW} characters of context around each error unless the whole text is asked "
        "for.</p>"
        '<div id="vtext" class="viewer"></div>'
    )


def sections(
    sides: SpanSides,
    *,
    text: bool,
    max_bytes: int | None,
    bootstrap: tuple[int, float, int | None] | None = None,
) -> tuple[list[tuple[str, str, str, str]], str]:
    """The span sections, as (anchor, nav label, title, body) cards, and the embedded data
    (``max_bytes``: what the sections may take, the viewer's data within it; ``bootstrap``:
    samples, confidence and seed of the buckets' intervals, none without)."""
    from annoscore.report import html_buckets

    data = analyse(sides, text=text, embed=False)
    buckets = html_buckets.bucket_data(html_buckets.bucket_matrices(data), bootstrap)
    said = f'<p class="notice">{escape(sides.note)}</p>' if sides.note else ""
    cards = [
        (
            "errors",
            "Errors",
            "Error categories per type",
            said + _categories_table(data) + _boundary_table(data),
        ),
        ("confusion", "Confusion", "Type confusion (gold x predicted)", _confusion_table(data)),
        ("frequent", "Frequent errors", "Frequent missed and spurious strings", _frequent(data)),
        (
            "buckets",
            "Buckets",
            "Buckets: length, text and type frequency, document, fragments, nesting",
            html_buckets.bucket_tables(buckets)
            + f'<p class="note">{escape(html_buckets.NOTE)}</p>',
        ),
    ]
    buckets_element = embedded_json(buckets, BUCKETS_ID)
    if max_bytes is not None:  # what the page holds beside the viewer's data
        used = sum(len(part.encode("utf-8")) for card in cards for part in card)
        used += len(buckets_element.encode("utf-8"))
        max_bytes -= used + len(_viewer()) + 1024  # the cards, the viewer's and their frames
    data["embedded"], data["windows"], data["dropped"] = data["embedding"](max_bytes)
    notice = _notice(windows=data["windows"], dropped=data["dropped"], text=text)
    cards.append(("viewer", "Viewer", "Document viewer", said + notice + _viewer()))
    element = f'<script type="application/json" id="{ERRORS_ID}">{data["embedded"]}</script>'
    return cards, element + buckets_element


def _notice(*, windows: bool, dropped: bool, text: bool) -> str:
    """What the viewer says of its texts: cut to windows or left out by the size budget, or
    left out by ``--no-text``."""
    notice = ""
    if windows:
        notice = (
            '<p class="notice">The documents are larger than the size budget (--max-html-mb): '
            f"the viewer shows the errors only, with {WINDOW} characters of context around "
            "each.</p>"
        )
    if dropped:
        notice = (
            '<p class="notice">The documents are larger than the size budget (--max-html-mb) '
            "even cut to windows around the errors: the viewer lists the errors by offset.</p>"
        )
    elif not text:
        notice = '<p class="notice">Texts left out (--no-text): the viewer shows offsets.</p>'
    return notice


def systems_note(names: Sequence[str], sides: Sequence[SpanSides]) -> str:
    """What each system's span sides say of their documents (:attr:`~annoscore.report.
    html_span_data.SpanSides.note`), for the viewer of several systems: once if every
    system's says the same, else each after its system's name.

    >>> a, b = SpanSides({}, {}, "tokens"), SpanSides({}, {}, "cut")
    >>> systems_note(["x", "y"], [a, a]), systems_note(["x", "y"], [a, b])
    ('tokens', 'x: tokens y: cut')
    """
    said = [(name, s.note) for name, s in zip(names, sides, strict=False) if s.note]
    if len({note for _, note in said}) <= 1:
        return said[0][1] if said else ""
    return " ".join(f"{name}: {note}" for name, note in said)


def _errors(data: Mapping[str, Any]) -> int:
    """How many errors an analysis holds: its gold mentions not correct and its spurious
    predictions (what its texts cut to windows are around)."""
    errors = data["columns"][4]
    wrong = int((errors.gold_category != CORRECT).sum())
    return wrong + int((errors.pred_category == SPURIOUS).sum())


def systems_viewer(
    analyses: Mapping[str, Mapping[str, Any]],
    *,
    text: bool,
    max_bytes: int | None,
    note: str = "",
) -> tuple[tuple[str, str, str, str], str]:
    """The document viewer of the page of several systems, as an (anchor, nav label, title,
    body) card, and its embedded data (``analyses``: per system name its
    :func:`~annoscore.report.html_span_data.analyse`, the baseline first; ``max_bytes``: what
    the viewer's data may take; ``note``: said above it).

    One element per system, ``annoscore-errors-K`` (K its position), holds that system's
    mentions as the page of one system embeds them (``id="annoscore-errors"``); a select
    (``vsys``) chooses whose the viewer draws.  The texts, the same gold documents for every
    system, are held once, in ``annoscore-texts`` (document id: text), by the systems whose
    every document's text is the same as the others' (each marked ``"shared":true``); a system
    whose texts differ keeps its own.  When that is beyond ``max_bytes``, each system in turn,
    the one with the fewest errors first, gets an equal share of what the ones before left,
    within which its texts are cut to windows around its own errors as on the page of one
    system (a system with few errors leaves the rest to the others)."""
    names = list(analyses)
    said = f'<p class="notice">{escape(note)}</p>' if note else ""
    if max_bytes is not None:  # the card less its data: the controls, the note, a notice
        max_bytes -= len((said + _viewer(names)).encode("utf-8")) + 512
    known: dict[str, str] = {}
    for data in analyses.values():
        ids, texts = data["columns"][0], data["sources"][0]
        for d, t in zip(ids, texts, strict=True):
            if t is not None:
                known.setdefault(d, t)
    agree = [
        text
        and all(
            known.get(d) == t for d, t in zip(data["columns"][0], data["sources"][0], strict=True)
        )
        for data in analyses.values()
    ]
    embedded = [
        data["embedding"](None, with_texts=not same, hidden=not text)[0]
        for data, same in zip(analyses.values(), agree, strict=True)
    ]
    shared = ""
    if any(agree):
        used = {
            d: known[d]
            for data, same in zip(analyses.values(), agree, strict=True)
            if same
            for d in data["columns"][0]
            if d in known
        }
        shared = embedded_json(used, TEXTS_ID)
    size = sum(len(x.encode("utf-8")) + 60 for x in embedded) + len(shared.encode("utf-8"))
    windows = dropped = False
    if max_bytes is not None and size > max_bytes:
        shared, embedded = "", [""] * len(names)
        left = max_bytes
        fewest = sorted(range(len(names)), key=lambda k: _errors(analyses[names[k]]))
        for at, k in enumerate(fewest):  # an equal share of what the ones before left
            share = left // (len(names) - at) - 60  # the element's frame
            one, cut, gone = analyses[names[k]]["embedding"](share, hidden=not text)
            embedded[k] = one
            left -= len(one.encode("utf-8")) + 60
            windows, dropped = windows or cut, dropped or gone
    notice = _notice(windows=windows, dropped=dropped, text=text)
    elements = "".join(
        f'<script type="application/json" id="{ERRORS_ID}-{k}">{one}</script>'
        for k, one in enumerate(embedded)
    )
    card = ("viewer", "Viewer", "Document viewer", said + notice + _viewer(names))
    return card, shared + elements


CSS = """
i.key{display:inline-block;width:14px;height:4px;margin:0 5px 3px 0;vertical-align:middle}
.c-correct{--c:#009E73;--p:var(--c) 0 12px}
.c-type{--c:#CC79A7;--p:var(--c) 0 9px,transparent 9px 12px}
.c-boundary{--c:#E69F00;--p:var(--c) 0 3px,transparent 3px 5px}
.c-type_boundary{--c:#56B4E9;--p:var(--c) 0 7px,transparent 7px 9px,var(--c) 9px 11px,
transparent 11px 13px}
.c-missed{--c:#D55E00;--p:var(--c) 0 2px,transparent 2px 4px}
.c-spurious{--c:#0072B2;--p:var(--c) 0 12px}
i.key{background:repeating-linear-gradient(90deg,var(--p))}
.cats label{display:inline-flex;align-items:center;gap:2px;font-size:12px}
.pair{display:flex;gap:28px;flex-wrap:wrap}.pair h3{font-size:13px;margin:0 0 6px}
td.surface{max-width:300px;white-space:pre-wrap}
.viewer{font:14px/1 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;
word-break:break-word;border:1px solid var(--line);border-radius:6px;padding:12px;max-height:560px;
overflow:auto;background:#fcfcfd}
.viewer .seg{position:relative;display:inline-block;line-height:18px;white-space:pre-wrap}
.viewer .bar{position:absolute;left:0;right:0;height:3px;
background:repeating-linear-gradient(90deg,var(--p))}
.viewer .bar.p{height:4px;background:repeating-linear-gradient(135deg,var(--c) 0 2px,
transparent 2px 4px)}
.viewer .bar.off,.viewer .bar.offt{display:none}
.viewer .seg.hit{outline:2px solid #1f2a44;outline-offset:1px}
.viewer sup{font-size:9px;color:var(--muted)}
.viewer .gap{color:var(--muted);display:block;margin:6px 0}
.viewer .list{white-space:normal;font-family:inherit}
.cmlist ul{margin:4px 0;padding-left:18px;max-height:260px;overflow:auto;font-size:13px}
.cmlist h3{font-size:13px;margin:8px 0 4px}
p.notice{background:#eef4ff;border:1px solid #c9dafc;border-radius:6px;padding:6px 10px}
"""

_JS_OPEN = r"""
(function(){
"use strict";
"""
_JS_LOAD = r"""var node=document.getElementById("annoscore-errors");if(!node)return;
var E=JSON.parse(node.textContent);window.annoscoreErrors=E;
"""
_JS_VIEWER = r"""var C=E.categories.length,D=E.docs.length,gOff=[0],pOff=[0],index={};
for(var k=0;k<D;k++){gOff.push(gOff[k]+E.gn[k]);pOff.push(pOff[k]+E.pn[k]);index[E.docs[k]]=k;}
function side(x,lo,hi,frags){var out=[],at=0;for(var r=lo;r<hi;r++){at+=E[x+"s"][r];
  var f=frags&&frags[r]?frags[r]:[[at,at+E[x+"l"][r]]];
  out.push([f,E.typenames[Math.floor(E[x+"k"][r]/C)]]);}return out;}
function decode(k){var d={text:E.t?E.t[k]:null,pieces:E.w?E.w[k]:null,errors:E.n[k]};
  d.gold=side("g",gOff[k],gOff[k+1],E.gf);d.pred=side("p",pOff[k],pOff[k+1],E.pf);d.items=[];
  var paired={};
  for(var r=gOff[k];r<gOff[k+1];r++){var j=E.gp[r];if(j>=0)paired[j]=1;
    d.items.push([E.categories[E.gk[r]%C],r-gOff[k],j<0?null:j,E.gd[r]?E.sides[E.gd[r]-1]:""]);}
  for(var r2=pOff[k];r2<pOff[k+1];r2++){if(!paired[r2-pOff[k]])
    d.items.push([E.categories[E.pk[r2]%C],null,r2-pOff[k],""]);}
  return d;}
var names=E.docs.slice();
names.sort(function(a,b){return E.n[index[b]]-E.n[index[a]]||(a<b?-1:a>b?1:0);});
var select=document.getElementById("vdoc"),view=document.getElementById("vtext");
var pos=document.getElementById("vpos");var off={};var current=-1;var errs=[];
var onlyType="",typeSel=document.getElementById("vtype"),whole=document.getElementById("vwhole");
whole.addEventListener("change",function(){if(select.value)draw(select.value);});
E.typenames.forEach(function(t){var o=document.createElement("option");o.value=t;o.textContent=t;
  typeSel.appendChild(o);});
typeSel.addEventListener("change",function(){onlyType=typeSel.value;
  Array.prototype.forEach.call(view.querySelectorAll(".bar"),function(b){
    b.classList.toggle("offt",!!onlyType&&b.getAttribute("data-type")!==onlyType);});
  Array.prototype.forEach.call(view.querySelectorAll(".item"),function(li){
    li.style.display=shownErr(li)||li.getAttribute("data-ecat")==="correct"&&
      (!onlyType||li.getAttribute("data-etype")===onlyType)?"":"none";});
  if(current>=0&&!shownErr(errs[current])){errs[current].classList.remove("hit");current=-1;}
  update();});
var options=document.createDocumentFragment();
names.forEach(function(n){var o=document.createElement("option");o.value=n;
  o.textContent=n+" ("+E.n[index[n]]+" errors)";options.appendChild(o);});
select.appendChild(options);
function cls(c){return "c-"+c.replace("+","_");}
function first(m){return m[0][0][0];}
function last(m){return m[0][m[0].length-1][1];}
function lanes(list){var ends=[];return list.map(function(m){var s=first(m),e=last(m);
  for(var k=0;k<ends.length;k++){if(ends[k]<=s){ends[k]=e;return k;}}
  ends.push(e);return ends.length-1;});}
function draw(name){var d=decode(index[name]);view.textContent="";errs=[];current=-1;
  var marks=[];var cat={g:{},p:{}};var seen={};
  d.items.forEach(function(it,k){if(it[1]!==null)cat.g[it[1]]=[it[0],it[3],k];
    if(it[2]!==null)cat.p[it[2]]=[it[0],it[3],k];});
  function order(list){return list.map(function(m,i){return i;}).sort(function(a,b){
    return first(list[a])-first(list[b])||last(list[b])-last(list[a]);});}
  var og=order(d.gold),op=order(d.pred);
  var lg=lanes(og.map(function(i){return d.gold[i];}));
  var lp=lanes(op.map(function(i){return d.pred[i];}));
  var ng=lg.length?Math.max.apply(null,lg)+1:0,np=lp.length?Math.max.apply(null,lp)+1:0;
  og.forEach(function(i,k){var m=d.gold[i];m[0].forEach(function(f,fi){marks.push({s:f[0],e:f[1],
    side:"g",lane:lg[k],i:i,n:m[0].length>1?fi+1:0,m:m,c:cat.g[i]});});});
  op.forEach(function(i,k){var m=d.pred[i];m[0].forEach(function(f,fi){marks.push({s:f[0],e:f[1],
    side:"p",lane:ng+lp[k],i:i,n:m[0].length>1?fi+1:0,m:m,c:cat.p[i]});});});
  var pieces=d.text!==null&&d.text!==undefined?[[0,d.text]]:(d.pieces||null);
  if(d.text!==null&&d.text!==undefined&&!whole.checked){var all=Array.from(d.text);
    if(all.length>E.long){var spans=[];d.items.forEach(function(it){if(it[0]==="correct")return;
        [it[1]!==null?d.gold[it[1]]:null,it[2]!==null?d.pred[it[2]]:null].forEach(function(m){
          if(m)spans.push([Math.max(0,first(m)-E.window),Math.min(all.length,last(m)+E.window)]);});});
      spans.sort(function(x,y){return x[0]-y[0];});var merged=[];
      spans.forEach(function(w){var top=merged[merged.length-1];
        if(top&&w[0]<=top[1])top[1]=Math.max(top[1],w[1]);else merged.push([w[0],w[1]]);});
      if(merged.length)pieces=merged.map(function(w){
        return [w[0],all.slice(w[0],w[1]).join("")];});}}
  if(!pieces){var ul=document.createElement("div");ul.className="list";
    d.items.forEach(function(it){var li=document.createElement("div");
      var g=it[1]!==null?d.gold[it[1]]:null,p=it[2]!==null?d.pred[it[2]]:null;
      li.className="item "+cls(it[0]);li.setAttribute("data-cat",it[0]);
      li.setAttribute("data-ecat",it[0]);li.setAttribute("data-etype",(g||p)[1]);
      var k=document.createElement("i");k.className="key "+cls(it[0]);li.appendChild(k);
      li.appendChild(document.createTextNode(E.labels[it[0]]+(it[3]?" ("+it[3]+")":"")+
        ": gold "+(g?g[1]+" "+JSON.stringify(g[0]):"-")+
        ", predicted "+(p?p[1]+" "+JSON.stringify(p[0]):"-")));
      ul.appendChild(li);if(it[0]!=="correct")errs.push(li);});
    view.appendChild(ul);update();return;}
  var h=(ng+np)*5+4;
  pieces.forEach(function(piece,pi){var base=piece[0],chars=Array.from(piece[1]);
    var end=base+chars.length;
    if(pi>0){var gap=document.createElement("span");gap.className="gap";
      gap.textContent="\u2026";view.appendChild(gap);}
    var cuts={};cuts[base]=1;cuts[end]=1;
    marks.forEach(function(m){if(m.s>base&&m.s<end)cuts[m.s]=1;if(m.e>base&&m.e<end)cuts[m.e]=1;});
    var pts=Object.keys(cuts).map(Number).sort(function(a,b){return a-b;});
    for(var k=0;k+1<pts.length;k++){var a=pts[k],b=pts[k+1];
      var t=chars.slice(a-base,b-base).join("");
      var on=marks.filter(function(m){return m.s<=a&&m.e>=b&&m.s<m.e;});
      if(!on.length){view.appendChild(document.createTextNode(t));continue;}
      var seg=document.createElement("span");seg.className="seg";seg.textContent=t;
      seg.style.paddingBottom=h+"px";
      on.forEach(function(m){var bar=document.createElement("i");
        var c=m.c?m.c[0]:"correct";bar.className="bar "+m.side+" "+cls(c);
        bar.setAttribute("data-cat",c);bar.setAttribute("data-side",m.side);
        bar.setAttribute("data-type",m.m[1]);
        bar.style.bottom=(2+(m.side==="g"?m.lane:m.lane)*5)+"px";
        bar.title=(m.side==="g"?"gold ":"predicted ")+m.m[1]+" "+JSON.stringify(m.m[0])+": "+
          E.labels[c]+(m.c&&m.c[1]?" ("+m.c[1]+")":"");
        if(off[c])bar.classList.add("off");if(onlyType&&m.m[1]!==onlyType)bar.classList.add("offt");
        seg.appendChild(bar);
        if(m.n&&m.s===a&&!seg.querySelector("sup")){var sup=document.createElement("sup");
          sup.textContent=String(m.n);seg.appendChild(sup);}
        if(m.c&&m.c[0]!=="correct"&&m.s===a&&m.n<=1&&!seen[m.c[2]]){seen[m.c[2]]=1;
          seg.setAttribute("data-item",m.c[2]);seg.setAttribute("data-ecat",m.c[0]);
          seg.setAttribute("data-etype",m.m[1]);}});
      view.appendChild(seg);
      if(seg.hasAttribute("data-item")&&errs.indexOf(seg)<0)errs.push(seg);}});
  update();}
function shownErr(el){return !off[el.getAttribute("data-ecat")]&&
  (!onlyType||el.getAttribute("data-etype")===onlyType);}
function update(){var n=errs.filter(shownErr).length;
  var at=errs.slice(0,current+1).filter(shownErr).length;
  pos.textContent=n?(current<0?n+" errors":"error "+at+" of "+n):"no errors";}
function go(step){if(!errs.some(shownErr))return;
  if(current>=0)errs[current].classList.remove("hit");
  do{current=(current+step+errs.length)%errs.length;}while(!shownErr(errs[current]));
  errs[current].classList.add("hit");errs[current].scrollIntoView({block:"center"});update();}
document.getElementById("vnext").addEventListener("click",function(){go(1);});
document.getElementById("vprev").addEventListener("click",function(){go(-1);});
select.addEventListener("change",function(){draw(select.value);});
Array.prototype.forEach.call(document.querySelectorAll(".cats input"),function(box){
  box.addEventListener("change",function(){off[box.getAttribute("data-cat")]=!box.checked;
    Array.prototype.forEach.call(view.querySelectorAll(".bar[data-cat='"+box.getAttribute("data-cat")+"']"),
      function(b){b.classList.toggle("off",!box.checked);});
    if(current>=0&&!shownErr(errs[current])){errs[current].classList.remove("hit");current=-1;}
    update();});});
window.annoscoreShow=function(name){select.value=name;draw(name);};
var SPU=E.categories.indexOf("spurious");
var list=document.getElementById("cmlist");
function instances(gold,pred,limit){var out=[],total=0;
  for(var k=0;k<D;k++){var at=0,g0=gOff[k],p0=pOff[k];
    var pstart=[],pat=0;for(var j=p0;j<pOff[k+1];j++){pat+=E.ps[j];pstart.push(pat);}
    for(var r=g0;r<gOff[k+1];r++){at+=E.gs[r];var gt=E.typenames[Math.floor(E.gk[r]/C)];
      if(gt!==gold)continue;var j2=E.gp[r];
      var pt=j2<0?"(missed)":E.typenames[Math.floor(E.pk[p0+j2]/C)];if(pt!==pred)continue;
      total++;if(out.length<limit)out.push([E.docs[k],[at,at+E.gl[r]],j2<0?null:
        [pstart[j2],pstart[j2]+E.pl[p0+j2]]]);}
    if(gold==="(spurious)"){for(var j3=p0;j3<pOff[k+1];j3++){
      if(E.pk[j3]%C!==SPU||E.typenames[Math.floor(E.pk[j3]/C)]!==pred)continue;total++;
      if(out.length<limit)out.push([E.docs[k],null,[pstart[j3-p0],pstart[j3-p0]+E.pl[j3]]]);}}}
  return [out,total];}
Array.prototype.forEach.call(document.querySelectorAll("td.cm"),function(td){
  if(!td.textContent)return;td.style.cursor="pointer";
  td.addEventListener("click",function(){var g=td.getAttribute("data-gold"),
      p=td.getAttribute("data-pred");var found=instances(g,p,200);list.textContent="";
    var h=document.createElement("h3");h.textContent="gold "+g+", predicted "+p+": "+found[1]+
      " instance"+(found[1]===1?"":"s")+(found[1]>found[0].length?" (the first "+
      found[0].length+" listed)":"");list.appendChild(h);
    if(E.windows&&g===p)list.appendChild(document.createTextNode(
      "Beyond the size budget the page holds the errors only: correct instances are not listed."));
    var ul=document.createElement("ul");found[0].forEach(function(x){
      var li=document.createElement("li");var a=document.createElement("a");a.href="#viewer";
      a.textContent=x[0]+": gold "+(x[1]?"["+x[1][0]+", "+x[1][1]+")":"-")+
        ", predicted "+(x[2]?"["+x[2][0]+", "+x[2][1]+")":"-");
      a.setAttribute("data-doc",x[0]);
      a.addEventListener("click",function(){window.annoscoreShow(x[0]);});
      li.appendChild(a);ul.appendChild(li);});list.appendChild(ul);});});
var cps={};
function chars(k){if(!(k in cps))cps[k]=E.t&&E.t[k]!==null?Array.from(E.t[k]):null;return cps[k];}
function surface(k,frags){return frags.map(function(f){var c=chars(k);
    if(c)return c.slice(f[0],f[1]).join("");
    var ps=E.w?E.w[k]:null;if(!ps)return null;
    for(var i=0;i<ps.length;i++){var pc=Array.from(ps[i][1]);
      var o=ps[i][0];if(o<=f[0]&&f[1]<=o+pc.length)return pc.slice(f[0]-o,f[1]-o).join("");}
    return null;}).join(" ");}
var freq=document.getElementById("freqlist");
Array.prototype.forEach.call(document.querySelectorAll("tr[data-freq]"),function(tr){
  tr.style.cursor="pointer";
  tr.addEventListener("click",function(){var what=tr.getAttribute("data-freq"),
      type=tr.getAttribute("data-type"),text=tr.getAttribute("data-text"),found=[];
    for(var k=0;k<D;k++){var d=decode(k);d.items.forEach(function(it){if(it[0]!==what)return;
      var m=what==="missed"?d.gold[it[1]]:d.pred[it[2]];
      if(m[1]===type&&surface(k,m[0])===text)found.push([E.docs[k],m[0]]);});}
    freq.textContent="";var h=document.createElement("h3");
    h.textContent=what+" "+type+" “"+text+"”: "+found.length+" occurrence"+
      (found.length===1?"":"s")+(found.length>200?" (the first 200 listed)":"");
    freq.appendChild(h);var ul=document.createElement("ul");
    found.slice(0,200).forEach(function(x){var li=document.createElement("li");
      var a=document.createElement("a");a.href="#viewer";a.setAttribute("data-doc",x[0]);
      a.textContent=x[0]+": "+x[1].map(function(f){return "["+f[0]+", "+f[1]+")";}).join(" ");
      a.addEventListener("click",function(){window.annoscoreShow(x[0]);});
      li.appendChild(a);ul.appendChild(li);});freq.appendChild(ul);});});
var docfilter=document.getElementById("docfilter");
if(docfilter&&window.annoscoreDocsDraw){
  var dt=document.createElement("select");dt.id="doctype";dt.setAttribute("aria-label","type");
  var o0=document.createElement("option");o0.value="";o0.textContent="errors of every type";
  dt.appendChild(o0);
  E.typenames.forEach(function(t){var o=document.createElement("option");o.value=t;
    o.textContent="errors of "+t;dt.appendChild(o);});
  docfilter.parentNode.insertBefore(dt,docfilter.nextSibling);
  dt.addEventListener("change",function(){var t=dt.value;
    if(!t){window.annoscoreDocKeep=null;window.annoscoreDocNote="";window.annoscoreDocsDraw();return;}
    var keep={};
    for(var k=0;k<D;k++){var p0=pOff[k];
      for(var r=gOff[k];r<gOff[k+1];r++){if(E.gk[r]%C===0)continue;var j=E.gp[r];
        if(E.typenames[Math.floor(E.gk[r]/C)]===t||
           (j>=0&&E.typenames[Math.floor(E.pk[p0+j]/C)]===t))keep[E.docs[k]]=1;}
      for(var q=p0;q<pOff[k+1];q++){if(E.pk[q]%C===SPU&&
        E.typenames[Math.floor(E.pk[q]/C)]===t)keep[E.docs[k]]=1;}}
    window.annoscoreDocKeep=function(n){return !!keep[n];};
    window.annoscoreDocNote=", documents with an error of type "+t;window.annoscoreDocsDraw();});}
if(names.length)draw(names[0]);
"""
_JS_CLOSE = """})();
"""
JS = _JS_OPEN + _JS_LOAD + _JS_VIEWER + _JS_CLOSE

SYSTEMS_JS = (
    _JS_OPEN
    + r"""var shared=document.getElementById("annoscore-texts");
var T=shared?JSON.parse(shared.textContent):null;
function viewer(id){
var node=document.getElementById(id);if(!node)return;
var E=JSON.parse(node.textContent);window.annoscoreErrors=E;
if(E.shared&&T)E.t=E.docs.map(function(d){
  return Object.prototype.hasOwnProperty.call(T,d)?T[d]:null;});
"""
    + _JS_VIEWER
    + r"""}
function fresh(el){var copy=el.cloneNode(true);el.parentNode.replaceChild(copy,el);return copy;}
var sys=document.getElementById("vsys");
if(sys)sys.addEventListener("change",function(){
  var doc=document.getElementById("vdoc").value,type=document.getElementById("vtype").value;
  ["vdoc","vprev","vnext","vtype","vwhole"].forEach(function(id){
    fresh(document.getElementById(id));});
  var boxes=Array.prototype.map.call(document.querySelectorAll(".cats input"),fresh);
  document.getElementById("vdoc").textContent="";
  var vt=document.getElementById("vtype");while(vt.options.length>1)vt.remove(1);
  viewer("annoscore-errors-"+sys.value);
  boxes.forEach(function(b){if(!b.checked)b.dispatchEvent(new Event("change"));});
  var vt2=document.getElementById("vtype");
  if(type&&Array.prototype.some.call(vt2.options,function(o){return o.value===type;})){
    vt2.value=type;vt2.dispatchEvent(new Event("change"));}
  if(doc&&window.annoscoreErrors.docs.indexOf(doc)>=0)window.annoscoreShow(doc);});
viewer("annoscore-errors-"+(sys?sys.value:"0"));
"""
    + _JS_CLOSE
)
"""The viewer's script on the page of several systems: the one of :data:`JS`, run again on
the chosen system's element (``annoscore-errors-K``) when the select ``vsys`` changes, on
fresh copies of its controls (which drops the listeners of the one before); the type, the
categories and the document shown are kept."""
