"""The frame of an HTML report: escaping, the embedded JSON, inline CSS and JavaScript.

One self-contained page: no network, no framework, no CDN.  Text is escaped
(:func:`escape`); the result's JSON is embedded once as
``<script type="application/json" id="annoscore-result">`` with every ``<`` written ``\\u003c``
(:func:`embedded_json`), so a document holding ``</script>`` cannot end the element and reads
back unchanged.  Every number the page shows is in an element whose ``data-path`` is the JSON
path of the value it shows (a list of keys, :func:`number_cell`), which the browser tests use to
hold the page to the JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RESULT_ID = "annoscore-result"
"""The id of the ``<script type="application/json">`` element holding the result."""


def escape(text: object) -> str:
    """``text`` safe in HTML text and in quoted attribute values.

    >>> escape('</script><b title="x">&')
    '&lt;/script&gt;&lt;b title=&quot;x&quot;&gt;&amp;'
    """
    import html  # here: this module's formatters are on every command's path, html is not

    return html.escape(str(text), quote=True)


def embedded_json(data: object, element_id: str = RESULT_ID) -> str:
    """``data`` as a JSON script element; ``<`` is escaped as ``\\u003c`` (JSON reads it back
    as ``<``), so no text inside can close the element or open a comment.

    >>> embedded_json({"t": "</script>"}, "x")
    '<script type="application/json" id="x">{"t":"\\\\u003c/script>"}</script>'
    """
    import json

    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        f'<script type="application/json" id="{escape(element_id)}">'
        f"{text.replace('<', chr(92) + 'u003c')}</script>"
    )


def fmt_score(value: float | None) -> str:
    """A score as shown: 4 decimals, ``-`` where undefined (as the text tables)."""
    return "-" if value is None else f"{value:.4f}"


def fmt_count(value: float | int | None) -> str:
    """A count as shown: whole numbers as they are, sums of fractions with 4 decimals."""
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4f}"
    return f"{int(value)}"


def number_cell(
    value: float | int | None,
    path: Sequence[str],
    *,
    score: bool = True,
    tag: str = "td",
    bar: bool = False,
) -> str:
    """One number in its element, ``data-path`` naming where the JSON holds it, the unrounded
    value in ``title`` and, for a score with ``bar``, a bar behind it."""
    shown = fmt_score(value) if score else fmt_count(value)
    style = ""
    if bar and value is not None and 0 <= value <= 1:
        style = f' style="--v:{value:.4f}"'
    classes = "num bar" if bar else "num"
    title = "" if value is None else f' title="{escape(repr(value))}"'
    import json

    data = escape(json.dumps(list(path), ensure_ascii=False))
    sort = "" if value is None else f' data-sort="{escape(repr(value))}"'
    return f'<{tag} class="{classes}" data-path="{data}"{title}{sort}{style}>{shown}</{tag}>'


def table(head: str, rows: Iterable[str], attributes: str = "", *, scroll: bool = False) -> str:
    """A table of one header row (``head``: its cells) and ``rows`` (each ``<tr>...</tr>``;
    ``attributes``: the table element's, each after a space), in a box that scrolls (a long or
    wide table) when ``scroll``."""
    made = (
        f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return f'<div class="scroll">{made}</div>' if scroll else made


CSS = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#dde2ea;--bg:#f6f7fa;--card:#fff;--accent:#2f5fb3;
--bar:#cfe0fa;--good:#0b7a53;--bad:#b3261e;--warn:#8a5a00;--warnbg:#fff6e0;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font-size:14px;line-height:1.45}
header.top{background:#1f2a44;color:#fff;padding:18px 28px 14px}
header.top h1{margin:0 0 4px;font-size:22px;font-weight:600;letter-spacing:.2px}
header.top .sub{color:#c8d2e6;font-size:13px}
header.top code{color:#fff;background:rgba(255,255,255,.12);padding:1px 5px;border-radius:4px;
word-break:break-all}
nav.toc{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);
padding:6px 28px;display:flex;gap:16px;flex-wrap:wrap;font-size:13px}
nav.toc a{color:var(--accent);text-decoration:none}
main{padding:18px 28px 40px;max-width:1400px}
section.card{background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:14px 18px;margin:0 0 18px}
section.card h2{font-size:16px;margin:0 0 10px;font-weight:600}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;font-size:13px}
.meta dt{color:var(--muted)}
.meta dd{margin:0;word-break:break-all}
.meta code{font-size:12px}
.headline{display:flex;gap:14px;flex-wrap:wrap;margin:0 0 12px}
.tile{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:130px;
background:#fbfcfe}
.tile .k{color:var(--muted);font-size:12px}
.tile .v{font-size:24px;font-weight:600;font-variant-numeric:tabular-nums}
.tile .ci{color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
th{background:#f0f3f8;font-weight:600;position:sticky;top:0}
th.sortable{cursor:pointer;user-select:none}
th.sortable:after{content:" \\2195";color:#9aa3b2;font-weight:400}
th.asc:after{content:" \\2191";color:var(--accent)}
th.desc:after{content:" \\2193";color:var(--accent)}
td.num,th.num{text-align:right}
td.name{max-width:420px;overflow:hidden;text-overflow:ellipsis}
td.bar{background:linear-gradient(90deg,var(--bar) calc(var(--v)*100%),transparent 0)}
tr:hover td{background-color:#f5f8fd}
tr:hover td.bar{background:linear-gradient(90deg,#b7cff5 calc(var(--v)*100%),#f5f8fd 0)}
.scroll{overflow:auto;max-height:640px;border:1px solid var(--line);border-radius:6px}
.pos{color:var(--good)}.neg{color:var(--bad)}
.sig{font-weight:600}
details.warn{background:var(--warnbg);border:1px solid #f0d9a0;border-radius:6px;
padding:6px 12px;margin:10px 0 0;color:var(--warn)}
details.warn summary{cursor:pointer;font-weight:600}
details.warn li{color:#4a3a10;margin:3px 0;word-break:break-word}
.controls{display:flex;gap:10px;align-items:center;margin:0 0 8px;flex-wrap:wrap}
.controls input,.controls select{font:inherit;padding:3px 8px;border:1px solid var(--line);
border-radius:5px}
.controls button{font:inherit;padding:3px 10px;border:1px solid var(--line);border-radius:5px;
background:#fff;cursor:pointer}
.muted{color:var(--muted)}
.note{color:var(--muted);font-size:12px;margin:6px 0 0}
svg.hist rect.b{fill:#7aa2e3}
svg.hist text{font-size:10px;fill:#5b6475}
noscript p{color:var(--warn)}
@media print{nav.toc,.controls,noscript{display:none}.scroll{max-height:none;overflow:visible}
body{background:#fff}section.card{break-inside:avoid;border-color:#bbb}
header.top{background:#fff;color:#000;border-bottom:2px solid #000}
header.top .sub,header.top code{color:#000;background:none}}
"""

JS = r"""
(function(){
"use strict";
var el=document.getElementById("annoscore-result");
var R=JSON.parse(el.textContent);
window.annoscoreResult=R;
function fmtScore(v){return v===null||v===undefined?"-":v.toFixed(4);}
function fmtCount(v){if(v===null||v===undefined)return "-";
  return Number.isInteger(v)?String(v):v.toFixed(4);}
function cell(v,path,score,bar){var td=document.createElement("td");
  td.className=bar?"num bar":"num";td.textContent=score?fmtScore(v):fmtCount(v);
  td.setAttribute("data-path",JSON.stringify(path));
  if(v!==null&&v!==undefined){td.title=String(v);td.setAttribute("data-sort",String(v));
    if(bar&&v>=0&&v<=1)td.style.setProperty("--v",v.toFixed(4));}
  return td;}
function sortable(table){var ths=table.tHead?table.tHead.rows[0].cells:[];
  Array.prototype.forEach.call(ths,function(th,i){th.classList.add("sortable");
    th.addEventListener("click",function(){var body=table.tBodies[0];
      var asc=!th.classList.contains("asc");
      Array.prototype.forEach.call(ths,function(o){o.classList.remove("asc","desc");});
      th.classList.add(asc?"asc":"desc");
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];
        var p=x.getAttribute("data-sort"),q=y.getAttribute("data-sort");
        var r;if(p!==null&&q!==null)r=parseFloat(p)-parseFloat(q);
        else if(p!==null)r=1;else if(q!==null)r=-1;
        else r=x.textContent.localeCompare(y.textContent);
        return asc?r:-r;});
      rows.forEach(function(r){body.appendChild(r);});});});}
Array.prototype.forEach.call(document.querySelectorAll("table.sort"),sortable);
var box=document.getElementById("docs");
if(box&&R.documents){
  var key=box.getAttribute("data-key");
  var names=Object.keys(R.documents);
  var sKeys=[],cKeys=[];
  names.slice(0,2000).forEach(function(n){var u=R.documents[n];
    Object.keys(u.scores).forEach(function(k){if(sKeys.indexOf(k)<0)sKeys.push(k);});
    Object.keys(u.counts).forEach(function(k){if(cKeys.indexOf(k)<0)cKeys.push(k);});});
  if(sKeys.indexOf(key)<0)key=sKeys[0];
  function val(n){var v=R.documents[n].scores[key];return v===null||v===undefined?Infinity:v;}
  names.sort(function(a,b){return val(a)-val(b)||(a<b?-1:a>b?1:0);});
  var shown=200,filter="";
  var input=document.getElementById("docfilter"),more=document.getElementById("docmore");
  var count=document.getElementById("doccount");
  var table=document.createElement("table");table.className="sort";
  var head=table.createTHead().insertRow();
  ["document"].concat(sKeys,cKeys).forEach(function(k,i){var th=document.createElement("th");
    th.textContent=k;if(i)th.className="num";head.appendChild(th);});
  var body=table.createTBody();
  box.appendChild(table);sortable(table);
  function draw(){body.textContent="";var keep=window.annoscoreDocKeep;
    var kept=filter||keep?names.filter(function(n){
      return (!filter||n.toLowerCase().indexOf(filter)>=0)&&(!keep||keep(n));}):names;
    kept.slice(0,shown).forEach(function(n){var u=R.documents[n];var tr=body.insertRow();
      var td=document.createElement("td");td.className="name";td.textContent=n;td.title=n;
      tr.appendChild(td);
      sKeys.forEach(function(k){tr.appendChild(cell(k in u.scores?u.scores[k]:null,
        ["documents",n,"scores",k],true,true));});
      cKeys.forEach(function(k){tr.appendChild(cell(k in u.counts?u.counts[k]:null,
        ["documents",n,"counts",k],false,false));});});
    count.textContent="showing "+Math.min(shown,kept.length)+" of "+kept.length+
      " documents, worst "+key+" first"+(window.annoscoreDocNote||"");
    more.style.display=kept.length>shown?"":"none";}
  input.addEventListener("input",function(){filter=input.value.toLowerCase();shown=200;draw();});
  more.addEventListener("click",function(){shown+=1000;draw();});
  window.annoscoreDocsDraw=function(){shown=200;draw();};
  draw();
}
document.documentElement.setAttribute("data-ready","1");
})();
"""


def page(
    title: str,
    header: str,
    nav: Sequence[tuple[str, str]],
    body: str,
    data: str,
    *,
    css: str = "",
    js: str = "",
) -> str:
    """The whole document: ``header`` and ``body`` are HTML already escaped, ``nav`` the
    (anchor, label) pairs of the table of contents, ``data`` the embedded JSON elements, ``css``
    and ``js`` more style and script (a section's own)."""
    links = "".join(f'<a href="#{escape(a)}">{escape(label)}</a>' for a, label in nav)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta name="generator" content="annoscore">'
        f"<title>{escape(title)}</title><style>{CSS}{css}</style></head><body>"
        f'<header class="top">{header}</header><nav class="toc">{links}</nav>'
        f"<main>{body}</main>{data}<script>{JS}{js}</script></body></html>\n"
    )
