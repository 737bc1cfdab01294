"""The span sections of an HTML report (``spans``, ``pharmaconer ner``): error categories per
type, the type confusion matrix, the most frequent missed and spurious strings, the worst
documents and the document viewer with gold and predictions overlaid.

The categories are :mod:`annoscore.align.span_errors`'s.  What the viewer needs is embedded
once, as compact JSON in ``<script type="application/json" id="annoscore-errors">``, beside the
result's JSON (which stays the ``--format json`` object): per document its text (or, beyond
the size budget, context windows around the mentions; nothing with ``--no-text``) and its gold
mentions, predictions and items.  The viewer draws a document on demand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.align.span_errors import CATEGORIES, categorize
from annoscore.formats.brat_model import Dialect
from annoscore.report.html_page import embedded_json, escape

ERRORS_ID = "annoscore-errors"
WINDOW = 60
"""Characters of context kept on each side of a mention when texts are cut to windows."""
MENTION_BYTES = 24
"""About how many bytes one mention takes in the embedded data (for the size budget)."""
FREQUENT = 15
"""Missed and spurious strings listed per list."""

LABELS = {
    "correct": "correct",
    "type": "wrong type",
    "boundary": "boundary",
    "type+boundary": "wrong type and boundary",
    "missed": "missed",
    "spurious": "spurious",
}


@dataclass(frozen=True, slots=True)
class SpanSides:
    """Both sides' documents by id, each mention as (fragments, type, surface text), and the
    documents' texts where known."""

    gold: Mapping[str, list[tuple[tuple[tuple[int, int], ...], str, str]]]
    system: Mapping[str, list[tuple[tuple[tuple[int, int], ...], str, str]]]
    texts: Mapping[str, str | None]


def _mentions(doc: Any) -> list[tuple[tuple[tuple[int, int], ...], str, str]]:
    fragments = getattr(doc, "fragments", None)
    columns = zip(doc.types, doc.starts, doc.ends, doc.texts, strict=True)
    if fragments is None or not any(fragments):  # all continuous: the bounds are the span
        return [(((s, e) if s <= e else (e, s),), kind, surface) for kind, s, e, surface in columns]
    out = []
    for k, (kind, start, end, surface) in enumerate(columns):
        frags = fragments[k]
        if frags:
            spans = tuple((int(a), int(b)) for a, b in frags)
        else:
            spans = ((int(min(start, end)), int(max(start, end))),)
        out.append((spans, str(kind), str(surface)))
    return out


def read_sides(
    gold: Path,
    system: Path,
    *,
    strict_input: bool = False,
    dialect: Dialect = "brat",
    every_file: bool = False,
) -> SpanSides:
    """Both sides of a brat span task read again for the report, as the task reads them
    (``dialect``, and ``every_file`` for the system folder: PharmaCoNER's reading)."""
    from annoscore.align.documents import paired_files
    from annoscore.formats.brat import read_brat_corpus

    gold_files = read_brat_corpus(gold, strict_input=strict_input, dialect=dialect).files
    system_files = read_brat_corpus(
        system,
        strict_input=strict_input,
        dialect=dialect,
        check_text=dialect == "brat",
        every_file=every_file,
    ).files
    gold_docs, system_docs = paired_files(gold, system, gold_files, system_files)
    texts = {d: getattr(f, "text", None) for d, f in gold_docs.items()}
    return SpanSides(
        {d: _mentions(f) for d, f in gold_docs.items()},
        {d: _mentions(f) for d, f in system_docs.items()},
        texts,
    )


def _windows(text: str, mentions: list[Any]) -> list[list[Any]]:
    """Pieces ``[offset, text]`` of ``text`` around the mentions (merged where they meet)."""
    spans = sorted(
        (max(0, m[0][0][0] - WINDOW), min(len(text), m[0][-1][1] + WINDOW)) for m in mentions
    )
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [[start, text[start:end]] for start, end in merged]


def _nested(counts: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (row, column), n in counts.items():
        out.setdefault(row, {})[column] = n
    return {row: out[row] for row in sorted(out)}


def analyse(sides: SpanSides, *, text: bool = True, max_bytes: int | None = None) -> dict[str, Any]:
    """The embedded error data (see the module doc) of ``sides``."""
    by_type: Counter[tuple[str, str]] = Counter()
    by_pair: Counter[tuple[str, str]] = Counter()
    missed: Counter[tuple[str, str]] = Counter()
    spurious: Counter[tuple[str, str]] = Counter()
    documents: dict[str, Any] = {}
    total_text = 0
    for doc in dict.fromkeys([*sides.gold, *sides.system]):
        gold = sides.gold.get(doc, [])
        pred = sides.system.get(doc, [])
        items = categorize(gold, pred, plain=True)
        errors = 0
        for item in items:
            category, g, p = item.category, item.gold, item.pred
            if g is None:
                kind = pred[p][1]  # type: ignore[index]
                by_pair[("(spurious)", kind)] += 1
                spurious[(kind, pred[p][2])] += 1  # type: ignore[index]
            else:
                kind = gold[g][1]
                if p is None:
                    by_pair[(kind, "(missed)")] += 1
                    missed[(kind, gold[g][2])] += 1
                else:
                    by_pair[(kind, pred[p][1])] += 1
            by_type[(kind, category)] += 1
            errors += category != "correct"
        body = sides.texts.get(doc) if text else None
        total_text += len(body or "")
        documents[doc] = {
            "text": body,
            "gold": [[m[0], m[1], m[2] if text else None] for m in gold],
            "pred": [[m[0], m[1], m[2] if text else None] for m in pred],
            "items": [[i.category, i.gold, i.pred, i.side] for i in items],
            "errors": errors,
        }
    mentions = sum(len(e["gold"]) + len(e["pred"]) for e in documents.values())
    windows = max_bytes is not None and total_text + MENTION_BYTES * mentions > max_bytes
    if windows:  # beyond the budget: the errors only, with context windows around them
        for entry in documents.values():
            keep = [i for i in entry["items"] if i[0] != "correct"]
            shown = [entry["gold"][i[1]] for i in keep if i[1] is not None]
            shown += [entry["pred"][i[2]] for i in keep if i[2] is not None]
            if entry["text"] is not None:
                entry["pieces"] = _windows(entry["text"], shown)
                entry["text"] = None
            gold_at = {i[1]: n for n, i in enumerate(x for x in keep if x[1] is not None)}
            pred_at = {i[2]: n for n, i in enumerate(x for x in keep if x[2] is not None)}
            entry["gold"] = [entry["gold"][i] for i in gold_at]
            entry["pred"] = [entry["pred"][i] for i in pred_at]
            entry["items"] = [
                [c, None if g is None else gold_at[g], None if p is None else pred_at[p], side]
                for c, g, p, side in keep
            ]
    return {
        "categories": list(CATEGORIES),
        "labels": LABELS,
        "types": _nested(by_type),
        "confusion": _nested(by_pair),
        "missed": [[t, s, n] for (t, s), n in missed.most_common(FREQUENT)] if text else [],
        "spurious": [[t, s, n] for (t, s), n in spurious.most_common(FREQUENT)] if text else [],
        "documents": documents,
        "text": text,
        "windows": windows,
    }


def compact(data: dict[str, Any]) -> dict[str, Any]:
    """The analysis as embedded: per document, flat columns (start, end, type number per
    mention; fragments only for discontinuous ones; category number, gold and prediction
    index per item, -1 for none), no surface strings (the page's script reads them back)."""
    names: dict[str, int] = {}
    number = {c: k for k, c in enumerate(data["categories"])}
    documents = {}
    for doc, entry in data["documents"].items():
        out: dict[str, Any] = {"n": entry["errors"]}
        if entry["text"] is not None:
            out["t"] = entry["text"]
        if "pieces" in entry:
            out["w"] = entry["pieces"]
        for side, key in (("gold", "g"), ("pred", "p")):
            flat: list[int] = []
            parts: dict[str, Any] = {}
            for k, (frags, kind, _) in enumerate(entry[side]):
                flat += [frags[0][0], frags[-1][1], names.setdefault(kind, len(names))]
                if len(frags) > 1:
                    parts[str(k)] = frags
            out[key] = flat
            if parts:
                out[key + "f"] = parts
        items: list[int] = []
        sides = {}
        for k, (category, g, p, side) in enumerate(entry["items"]):
            items += [number[category], -1 if g is None else g, -1 if p is None else p]
            if side:
                sides[str(k)] = side
        out["i"] = items
        if sides:
            out["s"] = sides
        documents[doc] = out
    return {
        "categories": data["categories"],
        "labels": data["labels"],
        "typenames": list(names),
        "documents": documents,
        "windows": data["windows"],
        "text": data["text"],
    }


def _categories_table(data: dict[str, Any]) -> str:
    cats = data["categories"]
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
    return (
        f'<div class="scroll"><table class="sort"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
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
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _frequent(data: dict[str, Any]) -> str:
    if not data["text"]:
        return '<p class="muted">Left out (--no-text).</p>'
    parts = []
    for what in ("missed", "spurious"):
        rows = "".join(
            f'<tr><td class="name">{escape(t)}</td><td class="name surface">{escape(s)}</td>'
            f'<td class="num">{n}</td></tr>'
            for t, s, n in data[what]
        )
        parts.append(
            f"<div><h3>Most often {what}</h3><table><thead><tr><th>type</th><th>text</th>"
            f'<th class="num">n</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
    return f'<div class="pair">{"".join(parts)}</div>'


def _viewer() -> str:
    buttons = "".join(
        f'<label><input type="checkbox" data-cat="{escape(c)}" checked>'
        f'<i class="key c-{escape(c.replace("+", "_"))}"></i>{escape(LABELS[c])}</label>'
        for c in CATEGORIES
    )
    return (
        '<div class="controls"><select id="vdoc" aria-label="document"></select>'
        '<button id="vprev" type="button">&larr; previous error</button>'
        '<button id="vnext" type="button">next error &rarr;</button>'
        '<span id="vpos" class="muted"></span></div>'
        f'<div class="controls cats">{buttons}</div>'
        '<p class="note">Gold mentions are solid bars, predictions hatched bars, stacked where '
        "they nest or overlap; the fragments of a discontinuous mention share a number. Hover "
        "a bar for its type and category.</p>"
        '<div id="vtext" class="viewer"></div>'
    )


def sections(
    sides: SpanSides, *, text: bool, max_bytes: int | None
) -> tuple[list[tuple[str, str, str, str]], str]:
    """The span sections, as (anchor, nav label, title, body) cards, and the embedded data."""
    data = analyse(sides, text=text, max_bytes=max_bytes)
    notice = ""
    if data["windows"]:
        notice = (
            '<p class="notice">The documents are larger than the size budget (--max-html-mb): '
            f"the viewer shows the errors only, with {WINDOW} characters of context around "
            "each.</p>"
        )
    elif not text:
        notice = '<p class="notice">Texts left out (--no-text): the viewer shows offsets.</p>'
    cards = [
        ("errors", "Errors", "Error categories per type", _categories_table(data)),
        ("confusion", "Confusion", "Type confusion (gold x predicted)", _confusion_table(data)),
        ("frequent", "Frequent errors", "Frequent missed and spurious strings", _frequent(data)),
        ("viewer", "Viewer", "Document viewer", notice + _viewer()),
    ]
    return cards, embedded_json(compact(data), ERRORS_ID)


CSS = """
i.key{display:inline-block;width:14px;height:4px;margin:0 5px 3px 0;vertical-align:middle}
.c-correct{--c:#009E73}.c-type{--c:#CC79A7}.c-boundary{--c:#E69F00}
.c-type_boundary{--c:#56B4E9}.c-missed{--c:#D55E00}.c-spurious{--c:#0072B2}
i.key{background:var(--c)}
.cats label{display:inline-flex;align-items:center;gap:2px;font-size:12px}
.pair{display:flex;gap:28px;flex-wrap:wrap}.pair h3{font-size:13px;margin:0 0 6px}
td.surface{max-width:300px;white-space:pre-wrap}
.viewer{font:14px/1 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;
word-break:break-word;border:1px solid var(--line);border-radius:6px;padding:12px;max-height:560px;
overflow:auto;background:#fcfcfd}
.viewer .seg{position:relative;display:inline-block;line-height:18px;white-space:pre-wrap}
.viewer .bar{position:absolute;left:0;right:0;height:3px;background:var(--c)}
.viewer .bar.p{background:repeating-linear-gradient(90deg,var(--c) 0 4px,transparent 4px 6px)}
.viewer .bar.off{display:none}
.viewer .seg.hit{outline:2px solid #1f2a44;outline-offset:1px}
.viewer sup{font-size:9px;color:var(--muted)}
.viewer .gap{color:var(--muted);display:block;margin:6px 0}
.viewer .list{white-space:normal;font-family:inherit}
p.notice{background:#eef4ff;border:1px solid #c9dafc;border-radius:6px;padding:6px 10px}
"""

JS = r"""
(function(){
"use strict";
var node=document.getElementById("annoscore-errors");if(!node)return;
var E=JSON.parse(node.textContent);window.annoscoreErrors=E;
function decode(c){var d={text:c.t===undefined?null:c.t,pieces:c.w||null,errors:c.n};
  function side(flat,parts){var out=[];for(var k=0;k*3<flat.length;k++){
    var f=parts&&parts[k]?parts[k]:[[flat[3*k],flat[3*k+1]]];
    out.push([f,E.typenames[flat[3*k+2]]]);}return out;}
  d.gold=side(c.g,c.gf);d.pred=side(c.p,c.pf);d.items=[];
  for(var k=0;k*3<c.i.length;k++){d.items.push([E.categories[c.i[3*k]],
    c.i[3*k+1]<0?null:c.i[3*k+1],c.i[3*k+2]<0?null:c.i[3*k+2],(c.s&&c.s[k])||""]);}
  return d;}
var names=Object.keys(E.documents);
names.sort(function(a,b){return E.documents[b].n-E.documents[a].n||(a<b?-1:a>b?1:0);});
var select=document.getElementById("vdoc"),view=document.getElementById("vtext");
var pos=document.getElementById("vpos");var off={};var current=-1;var errs=[];
names.forEach(function(n){var o=document.createElement("option");o.value=n;
  o.textContent=n+" ("+E.documents[n].n+" errors)";select.appendChild(o);});
function cls(c){return "c-"+c.replace("+","_");}
function first(m){return m[0][0][0];}
function last(m){return m[0][m[0].length-1][1];}
function lanes(list){var ends=[];return list.map(function(m){var s=first(m),e=last(m);
  for(var k=0;k<ends.length;k++){if(ends[k]<=s){ends[k]=e;return k;}}
  ends.push(e);return ends.length-1;});}
function draw(name){var d=decode(E.documents[name]);view.textContent="";errs=[];current=-1;
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
  if(!pieces){var ul=document.createElement("div");ul.className="list";
    d.items.forEach(function(it){var li=document.createElement("div");
      var g=it[1]!==null?d.gold[it[1]]:null,p=it[2]!==null?d.pred[it[2]]:null;
      li.className="item "+cls(it[0]);li.setAttribute("data-cat",it[0]);
      var k=document.createElement("i");k.className="key "+cls(it[0]);li.appendChild(k);
      li.appendChild(document.createTextNode(E.labels[it[0]]+(it[3]?" ("+it[3]+")":"")+
        ": gold "+(g?g[1]+" "+JSON.stringify(g[0]):"-")+
        ", predicted "+(p?p[1]+" "+JSON.stringify(p[0]):"-")));
      ul.appendChild(li);if(it[0]!=="correct")errs.push(li);});
    view.appendChild(ul);update();return;}
  var h=(ng+np)*5+4;
  pieces.forEach(function(piece,pi){var base=piece[0],text=piece[1],end=base+text.length;
    if(pi>0){var gap=document.createElement("span");gap.className="gap";
      gap.textContent="\u2026";view.appendChild(gap);}
    var cuts={};cuts[base]=1;cuts[end]=1;
    marks.forEach(function(m){if(m.s>base&&m.s<end)cuts[m.s]=1;if(m.e>base&&m.e<end)cuts[m.e]=1;});
    var pts=Object.keys(cuts).map(Number).sort(function(a,b){return a-b;});
    for(var k=0;k+1<pts.length;k++){var a=pts[k],b=pts[k+1];
      var t=text.slice(a-base,b-base);
      var on=marks.filter(function(m){return m.s<=a&&m.e>=b&&m.s<m.e;});
      if(!on.length){view.appendChild(document.createTextNode(t));continue;}
      var seg=document.createElement("span");seg.className="seg";seg.textContent=t;
      seg.style.paddingBottom=h+"px";
      on.forEach(function(m){var bar=document.createElement("i");
        var c=m.c?m.c[0]:"correct";bar.className="bar "+m.side+" "+cls(c);
        bar.setAttribute("data-cat",c);bar.setAttribute("data-side",m.side);
        bar.style.bottom=(2+(m.side==="g"?m.lane:m.lane)*5)+"px";
        bar.title=(m.side==="g"?"gold ":"predicted ")+m.m[1]+" "+JSON.stringify(m.m[0])+": "+
          E.labels[c]+(m.c&&m.c[1]?" ("+m.c[1]+")":"");
        if(off[c])bar.classList.add("off");seg.appendChild(bar);
        if(m.n&&m.s===a&&!seg.querySelector("sup")){var sup=document.createElement("sup");
          sup.textContent=String(m.n);seg.appendChild(sup);}
        if(m.c&&m.c[0]!=="correct"&&m.s===a&&m.n<=1&&!seen[m.c[2]]){seen[m.c[2]]=1;
          seg.setAttribute("data-item",m.c[2]);}});
      view.appendChild(seg);
      if(seg.hasAttribute("data-item")&&errs.indexOf(seg)<0)errs.push(seg);}});
  update();}
function update(){pos.textContent=errs.length?(current<0?errs.length+" errors":
  "error "+(current+1)+" of "+errs.length):"no errors";}
function go(step){if(!errs.length)return;if(current>=0)errs[current].classList.remove("hit");
  current=(current+step+errs.length)%errs.length;errs[current].classList.add("hit");
  errs[current].scrollIntoView({block:"center"});update();}
document.getElementById("vnext").addEventListener("click",function(){go(1);});
document.getElementById("vprev").addEventListener("click",function(){go(-1);});
select.addEventListener("change",function(){draw(select.value);});
Array.prototype.forEach.call(document.querySelectorAll(".cats input"),function(box){
  box.addEventListener("change",function(){off[box.getAttribute("data-cat")]=!box.checked;
    Array.prototype.forEach.call(view.querySelectorAll(".bar[data-cat='"+box.getAttribute("data-cat")+"']"),
      function(b){b.classList.toggle("off",!box.checked);});});});
window.annoscoreShow=function(name){select.value=name;draw(name);};
if(names.length)draw(names[0]);
})();
"""
