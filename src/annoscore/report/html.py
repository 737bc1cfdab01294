"""The HTML report of one result (``--format html``) and of several systems (``annoscore report``).

The page embeds the JSON object ``--format json --per-doc --per-type`` prints (for several
systems: each system's object and the paired tests of ``annoscore compare``) and shows it:
header (task, signature, version, command line, documents, warnings), scores with their
bootstrap intervals, macro averages, counts, the per-type table, the distribution of the
per-document headline score and the per-document table, worst first (drawn from the JSON by the
page's script, filterable).  Every number shown is rendered from that JSON and names its place in
it (:func:`annoscore.report.html_page.number_cell`).  The summary tables are plain HTML, so they
show without JavaScript and print.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from annoscore.align.span_sides import SpanSides
from annoscore.metrics.worst_lists import document_key
from annoscore.report.generic import finite_json, json_safe
from annoscore.report.html_coref import CorefSides
from annoscore.report.html_page import (
    embedded_json,
    escape,
    fmt_score,
    number_cell,
    page,
    table,
)
from annoscore.result import Result
from annoscore.version import __version__

Path = Sequence[str]


def report_view(result: Result) -> Result:
    """The result as the report shows it: per-document rows, and per-type rows where the task
    counts types (macro averages kept as the command asked)."""
    return result.shown(documents=True, types=bool(result.types))


def result_data(result: Result) -> dict[str, Any]:
    """The JSON object embedded for ``result`` (what ``--format json`` prints for it)."""
    data: dict[str, Any] = finite_json(result.to_dict())[0]
    return data


def _card(anchor: str, title: str, body: str, note: str = "") -> str:
    extra = f'<p class="note">{escape(note)}</p>' if note else ""
    return (
        f'<section class="card" id="{escape(anchor)}"><h2>{escape(title)}</h2>{body}{extra}'
        "</section>"
    )


def _warnings(warnings: Sequence[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{escape(w)}</li>" for w in warnings)
    plural = "s" if len(warnings) != 1 else ""
    return (
        f'<details class="warn"><summary>{len(warnings)} warning{plural}</summary>'
        f"<ul>{items}</ul></details>"
    )


def _head(task: str, signature: str, command: str | None) -> list[tuple[str, str]]:
    """The first rows of a page's summary: task, signature, version and the command line."""
    rows = [
        ("task", f"<code>{escape(task)}</code>"),
        ("signature", f"<code>{escape(signature)}</code>"),
        ("version", escape(__version__)),
    ]
    if command:
        rows.append(("command", f"<code>{escape(command)}</code>"))
    return rows


def _meta(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="meta">{body}</dl>'


def _bound_spans(bounds: Sequence[Any], path: Path, between: str) -> str:
    """An interval's two bounds in ``span`` elements, ``between`` them, each naming its place
    (``path`` then ``"0"`` or ``"1"``)."""
    low = number_cell(bounds[0], [*path, "0"], tag="span")
    return low + between + number_cell(bounds[1], [*path, "1"], tag="span")


def _tiles(data: Mapping[str, Any], headline: str | None, root: Path = ()) -> str:
    """The headline score (or the first few) large, with its interval when there is one."""
    scores: Mapping[str, Any] = data["scores"]
    keys: list[str] = [headline] if headline is not None and headline in scores else []
    keys += [k for k in scores if k not in keys][: max(0, 4 - len(keys))]
    intervals = data.get("intervals") or {}
    tiles = []
    for key in keys:
        ci = ""
        bounds = intervals.get(key)
        if bounds is not None:
            shown = _bound_spans(bounds, [*root, "intervals", key], " &ndash; ")
            ci = f'<div class="ci">{shown}</div>'
        value = number_cell(scores[key], [*root, "scores", key], tag="span")
        tiles.append(
            f'<div class="tile"><div class="k">{escape(key)}</div>'
            f'<div class="v">{value}</div>{ci}</div>'
        )
    return f'<div class="headline">{"".join(tiles)}</div>'


def _scores_table(data: Mapping[str, Any], root: Path = ()) -> str:
    intervals = data.get("intervals")
    head = "<th>score</th><th class='num'>value</th>"
    if intervals is not None:
        head += "<th class='num'>low</th><th class='num'>high</th>"
    rows = []
    for key, value in data["scores"].items():
        cells = f'<td class="name">{escape(key)}</td>' + number_cell(
            value, [*root, "scores", key], bar=True
        )
        if intervals is not None:
            bounds = intervals.get(key)
            if bounds is None:
                cells += '<td class="num muted">-</td><td class="num muted">-</td>'
            else:
                cells += number_cell(bounds[0], [*root, "intervals", key, "0"])
                cells += number_cell(bounds[1], [*root, "intervals", key, "1"])
        rows.append(f"<tr>{cells}</tr>")
    return table(head, rows)


def _bounds(where: Sequence[Any], bounds: Sequence[float]) -> str:
    """An interval of the macro averages, each bound naming its place in their JSON."""
    spans = ", ".join(
        f'<span class="mnum" data-macro-path="{escape(json.dumps([*where, i]))}"'
        f' title="{escape(repr(bound))}">{fmt_score(bound)}</span>'
        for i, bound in enumerate(bounds)
    )
    return f'<td class="ci">[{spans}]</td>'


def _averages_table(
    data: Mapping[str, Any], root: Path = (), intervals: Mapping[str, Any] | None = None
) -> str:
    """The macro averages, each score with its interval when ``intervals`` are given
    (:func:`annoscore.report.html_macro.macro_intervals`)."""
    averages: Mapping[str, Mapping[str, Any]] = data.get("averages") or {}
    keys = list(dict.fromkeys(k for scores in averages.values() for k in scores))
    head = "<th>average</th>" + "".join(
        f"<th class='num'>{escape(k)}</th>" + ("<th>interval</th>" if intervals else "")
        for k in keys
    )
    rows = []
    for name, scores in averages.items():
        cells = f'<td class="name">{escape(name)}</td>'
        for k in keys:
            if k in scores:
                cells += number_cell(scores.get(k), [*root, "averages", name, k], bar=True)
            else:
                cells += '<td class="num muted"></td>'
            if intervals:
                bounds = (intervals.get(name) or {}).get(k)
                cells += (
                    '<td class="muted">-</td>' if bounds is None else _bounds([name, k], bounds)
                )
        rows.append(f"<tr>{cells}</tr>")
    return table(head, rows)


_MISSING = object()


def _systems_table(
    systems: Mapping[str, Mapping[str, Any]],
    names: Sequence[str],
    heads: Sequence[str],
    rows: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    sortable: bool = False,
) -> str:
    """Several systems' numbers side by side: a row per ``(labels, path)`` of ``rows`` (its
    ``heads`` columns of labels), a column per system, each cell the number its system's JSON
    holds at ``path`` (``systems.NAME.path``), empty where it holds none there."""

    def at(data: Any, path: Sequence[str]) -> Any:
        for key in path:
            if not isinstance(data, Mapping) or key not in data:
                return _MISSING
            data = data[key]
        return data

    head = "".join(f"<th>{escape(h)}</th>" for h in heads)
    head += "".join(f"<th class='num'>{escape(n)}</th>" for n in names)
    lines = []
    for labels, path in rows:
        cells = "".join(f'<td class="name">{escape(label)}</td>' for label in labels)
        for n in names:
            value = at(systems[n], path)
            if value is _MISSING:
                cells += '<td class="num muted"></td>'
            else:
                cells += number_cell(value, ["systems", n, *path], bar=True)
        lines.append(f"<tr>{cells}</tr>")
    return table(head, lines, ' class="sort"' if sortable else "", scroll=True)


def _counts_table(data: Mapping[str, Any], root: Path = ()) -> str:
    counts: Mapping[str, Any] = data["counts"]
    head = "".join(f"<th class='num'>{escape(k)}</th>" for k in counts)
    cells = "".join(number_cell(v, [*root, "counts", k], score=False) for k, v in counts.items())
    return table(head, [f"<tr>{cells}</tr>"])


def _units_table(units: Mapping[str, Mapping[str, Any]], what: str, root: Path) -> str:
    """A sortable table of scored units (types): one row each, scores then counts."""
    score_keys = list(dict.fromkeys(k for unit in units.values() for k in unit["scores"]))
    count_keys = list(dict.fromkeys(k for unit in units.values() for k in unit["counts"]))
    head = f"<th>{escape(what)}</th>" + "".join(
        f"<th class='num'>{escape(k)}</th>" for k in (*score_keys, *count_keys)
    )
    rows = []
    for name, unit in units.items():
        cells = f'<td class="name" title="{escape(name)}">{escape(name)}</td>'
        for k in score_keys:
            value = unit["scores"].get(k)
            cells += number_cell(value, [*root, name, "scores", k], bar=True)
        for k in count_keys:
            if k in unit["counts"]:
                cells += number_cell(unit["counts"][k], [*root, name, "counts", k], score=False)
            else:
                cells += '<td class="num muted"></td>'
        rows.append(f"<tr>{cells}</tr>")
    return table(head, rows, ' class="sort"', scroll=True)


HISTOGRAM_BINS = 20


def _histogram(values: Sequence[float], key: str) -> str:
    """An inline SVG histogram of per-document scores in [0, 1] (``key``), with its axis."""
    bins = [0] * HISTOGRAM_BINS
    for v in values:
        bins[min(HISTOGRAM_BINS - 1, max(0, int(v * HISTOGRAM_BINS)))] += 1
    top = max(bins) or 1
    width, height, pad = 520, 150, 24
    step = (width - 2 * pad) / HISTOGRAM_BINS
    bars = []
    for i, n in enumerate(bins):
        h = (height - 2 * pad) * n / top
        x = pad + i * step
        low, high = i / HISTOGRAM_BINS, (i + 1) / HISTOGRAM_BINS
        bars.append(
            f'<rect class="b" x="{x + 1:.1f}" y="{height - pad - h:.1f}" '
            f'width="{step - 2:.1f}" height="{h:.1f}"><title>{escape(key)} in '
            f"[{low:.2f}, {high:.2f}{']' if i == HISTOGRAM_BINS - 1 else ')'}: {n} "
            f"document{'s' if n != 1 else ''}</title></rect>"
        )
    axis = "".join(
        f'<text x="{pad + t * (width - 2 * pad):.1f}" y="{height - 8}" '
        f'text-anchor="middle">{t:g}</text>'
        for t in (0.0, 0.25, 0.5, 0.75, 1.0)
    )
    line = (
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="#9aa3b2"/>'
    )
    return (
        f'<svg class="hist" width="{width}" height="{height}" role="img" '
        f'aria-label="distribution of per-document {escape(key)}">{line}{"".join(bars)}{axis}'
        "</svg>"
    )


def _distribution(result: Result, key: str) -> str:
    values = [v for unit in result.documents.values() if (v := unit.scores.get(key)) is not None]
    left = len(result.documents) - len(values)
    note = f"Documents by {key} (hover a bar for its count)." + (
        f" {left} document{'s' if left != 1 else ''} where {key} is undefined "
        f"{'are' if left != 1 else 'is'} left out."
        if left
        else ""
    )
    return _histogram(values, key) + f'<p class="note">{escape(note)}</p>'


def _documents_section(key: str) -> str:
    return (
        '<div class="controls"><input id="docfilter" type="search" '
        'placeholder="filter documents by id" aria-label="filter documents">'
        '<span id="doccount" class="muted"></span></div>'
        f'<div class="scroll" id="docs" data-key="{escape(key)}">'
        "</div>"
        '<div class="controls"><button id="docmore" type="button">show more</button></div>'
        "<noscript><p>The per-document table is drawn by the page's script; the embedded JSON "
        "(element annoscore-result) holds every document's scores and counts.</p></noscript>"
    )


def _header(title: str, signature: str) -> str:
    task = signature.split("|task:", 1)[-1].split("|", 1)[0]
    sub = f"annoscore {escape(__version__)} &middot; task <code>{escape(task)}</code>"
    return f'<h1>{escape(title)}</h1><div class="sub">{sub}</div>'


def render_html(
    result: Result,
    *,
    command: str | None = None,
    spans: SpanSides | None = None,
    text: bool = True,
    max_mb: float | None = None,
    coref: CorefSides | None = None,
    first: Sequence[tuple[str, str, str]] = (),
) -> str:
    """One self-contained HTML page for ``result`` (``command``: the command line that
    reproduces it, shown in the header; ``first``: cards ``(anchor, title, HTML)`` shown before
    the summary, as ``codabench score`` shows the leaderboard's columns).  With ``spans`` (a
    span task's documents), the error analysis and the document viewer too
    (:mod:`annoscore.report.html_spans`): ``text`` False
    leaves the document texts out, ``max_mb`` is the size budget beyond which texts are cut to
    context windows.  With ``coref`` (a coreference task's partitions), the coreference errors
    and the entity viewer (:mod:`annoscore.report.html_coref`)."""
    result = report_view(result)
    data = result_data(result)
    documents = len(result.matrix.documents)
    types = len(result.types)
    meta = _head(result.task, data["signature"], command)
    meta.append(("documents", f'<span data-count="documents">{documents}</span>'))
    if types:
        meta.append(("types", f'<span data-count="types">{types}</span>'))
    summary = _tiles(data, result.headline) + _meta(meta) + _warnings(data["warnings"])
    nav = [*((anchor, title) for anchor, title, _ in first), ("summary", "Summary")]
    nav.append(("scores", "Scores"))
    body = [*(_card(anchor, title, part) for anchor, title, part in first)]
    body.append(_card("summary", "Summary", summary))
    interval_note = ""
    scores = _scores_table(data)
    bootstrap = None
    if "intervals" in data:  # the macro averages' and the buckets' intervals as the scores'
        settings = dict(result.signature.settings)
        interval_note = (
            f"Intervals: {float(settings.get('confidence', '0.95')):.0%} percentile bootstrap, "
            f"{settings.get('bootstrap', '?')} resamples of the documents, seed "
            f"{settings.get('seed', '?')}."
        )
        seed = settings.get("seed", "none")
        bootstrap = (
            int(settings.get("bootstrap", "1000")),
            float(settings.get("confidence", "0.95")),
            None if seed == "none" else int(seed),
        )
    macro_element = ""
    if data.get("averages"):
        macro = None
        if bootstrap is not None:
            from annoscore.report.html_macro import MACRO_ID, macro_intervals

            samples, confidence, seed_value = bootstrap
            macro = macro_intervals(result, samples=samples, confidence=confidence, seed=seed_value)
            macro_element = embedded_json(json_safe(macro), MACRO_ID)
        scores += "<h2 style='margin-top:14px'>Macro averages</h2>" + _averages_table(
            data, intervals=macro
        )
    scores += "<h2 style='margin-top:14px'>Counts</h2>" + _counts_table(data)
    body.append(
        _card(
            "scores",
            "Scores",
            scores,
            interval_note or "Micro scores over the corpus; run with --bootstrap N for intervals.",
        )
    )
    if data.get("types"):
        nav.append(("types", "Per type"))
        body.append(
            _card(
                "types",
                "Per type",
                _units_table(data["types"], "type", ["types"]),
                "Click a column to sort.",
            )
        )
    key = document_key(result)
    if key is not None:
        nav.append(("distribution", "Distribution"))
        body.append(_card("distribution", f"Per-document {key}", _distribution(result, key)))
        nav.append(("documents", "Per document"))
        body.append(_card("documents", "Per document", _documents_section(key)))
    data_elements = embedded_json(data) + macro_element
    css = js = ""

    def before_distribution(cards: Sequence[tuple[str, str, str, str]]) -> None:
        """Insert ``(anchor, label, title, part)`` cards before the distribution (or last)."""
        at = next((i for i, (a, _) in enumerate(nav) if a == "distribution"), len(nav))
        nav[at:at] = [(anchor, label) for anchor, label, _, _ in cards]
        body[at:at] = [_card(anchor, title, part) for anchor, _, title, part in cards]

    if spans is not None:
        from annoscore.report import html_page, html_spans

        max_bytes = None if max_mb is None else int(max_mb * 1_000_000)
        if max_bytes is not None:  # the budget less what the page holds beside the spans
            frame = (data_elements, "".join(body), html_page.CSS, html_page.JS)
            max_bytes -= sum(len(x.encode("utf-8")) for x in frame)
            max_bytes -= len(html_spans.CSS) + len(html_spans.JS) + 1024
        cards, errors = html_spans.sections(
            spans, text=text, max_bytes=max_bytes, bootstrap=bootstrap
        )
        before_distribution(cards)
        data_elements += errors
        css, js = html_spans.CSS, html_spans.JS
    if coref is None and result.details is not None:
        from annoscore.report.html_coref import details_sides

        coref = details_sides(result.details)
    if coref is not None:
        from annoscore.report import html_coref

        cards, element = html_coref.sections(coref)
        before_distribution(cards)
        data_elements += element
        css, js = css + html_coref.CSS, js + html_coref.JS
    if result.details is not None:
        from annoscore.report import html_muc, html_trec

        worst = html_trec.section(result.details, result.documents, key)
        if worst is not None:
            (anchor, label, card_title, part), element = worst
            nav.append((anchor, label))
            body.append(_card(anchor, card_title, part))
            data_elements += element
            css, js = css + html_trec.CSS, js + html_trec.JS
        found = html_muc.section(result.details)
        if found is not None:
            before_distribution([found[0]])
            data_elements += found[1]
            css, js = css + html_muc.CSS, js + html_muc.JS
    title = f"annoscore report: {result.task}"
    return page(
        title,
        _header(title, data["signature"]),
        nav,
        "".join(body),
        data_elements,
        css=css,
        js=js,
    )


def render_comparison_html(
    results: Mapping[str, Result],
    comparison: Any,
    *,
    command: str | None = None,
    buckets: Mapping[str, Any] | None = None,
    versus: list[Any] | None = None,
    text: bool = True,
    spans: Mapping[str, Mapping[str, Any]] | None = None,
    max_mb: float | None = None,
    spans_note: str = "",
) -> str:
    """One page for several systems on one gold standard: each system's scores side by side
    with the difference to the baseline, its interval and p-value (``comparison``, an
    :class:`annoscore.significance.Comparison`), per-type headline scores and the macro
    averages side by side (:func:`_systems_table`), the
    span buckets compared (``buckets``: :func:`annoscore.report.html_buckets.compare_buckets`),
    the gold mentions one system predicts exactly and another not (``versus``:
    :func:`annoscore.report.html_versus.versus`; ``text`` False: without their texts, as
    ``--no-text`` asks) and each system's own tables.  With ``spans`` (per system its span
    analysis, :func:`annoscore.report.html_span_data.analyse`), the document viewer too, with a
    select choosing the system (:func:`annoscore.report.html_spans.systems_viewer`;
    ``spans_note``: said above it), its data within ``max_mb`` (the size budget of the page,
    which the systems share).  The embedded JSON is ``{"comparison": ..., "systems": {name:
    result}}`` (the compare JSON and each system's ``--format json --per-doc --per-type``
    object)."""
    from annoscore.report.significance import json_dict

    shown = {name: report_view(r) for name, r in results.items()}
    systems = {name: result_data(r) for name, r in shown.items()}
    compared = json_safe(json_dict(comparison))
    data = {"comparison": compared, "systems": systems}
    names = list(results)
    first = shown[names[0]]
    keys = list(compared["systems"][names[0]]["scores"]) if names else []
    head = "<th>score</th>" + "".join(f"<th class='num'>{escape(n)}</th>" for n in names)
    head += "".join(
        f"<th class='num'>&Delta; {escape(n)}</th><th class='num'>interval</th>"
        f"<th class='num'>p</th>"
        for n in names[1:]
    )
    rows = []
    for key in keys:
        cells = f'<td class="name">{escape(key)}</td>'
        for n in names:
            value = compared["systems"][n]["scores"].get(key)
            cells += number_cell(value, ["comparison", "systems", n, "scores", key], bar=True)
        for n in names[1:]:
            row = compared["systems"][n]
            diff = row["difference"].get(key)
            path = ["comparison", "systems", n]
            sign = "" if diff is None else ("pos" if diff > 0 else "neg" if diff < 0 else "")
            cells += number_cell(diff, [*path, "difference", key]).replace(
                'class="num"', f'class="num {sign}"', 1
            )
            bounds = row["interval"].get(key)
            if bounds is None:
                cells += '<td class="num muted">-</td>'
            else:
                low_high = _bound_spans(bounds, [*path, "interval", key], ", ")
                cells += f'<td class="num">[{low_high}]</td>'
            p = row["p_value"].get(key)
            cell = number_cell(p, [*path, "p_value", key])
            if p is not None and p < 0.05:
                cell = cell.replace('class="num"', 'class="num sig"', 1)
            cells += cell
        rows.append(f"<tr>{cells}</tr>")
    test = escape(compared["test"])
    note = (
        f"Paired {test} test on the {comparison.documents} documents every system scored; "
        f"baseline {names[0]}; p-values below 0.05 in bold."
    )
    meta = _head(first.task, compared["signature"], command)
    meta.append(("systems", escape(", ".join(names))))
    said = set(compared["warnings"])
    summary = _meta(meta) + _warnings(
        [*compared["warnings"]]
        + [f"{n}: {w}" for n in names for w in systems[n]["warnings"] if w not in said]
    )
    body = [
        _card("summary", "Summary", summary),
        _card("compare", "Systems compared", table(head, rows, scroll=True), note),
    ]
    nav = [("summary", "Summary"), ("compare", "Compared")]
    type_names = list(dict.fromkeys(t for n in names for t in systems[n].get("types", {})))
    headline = first.headline
    if type_names and headline:
        by_type = [((t,), ("types", t, "scores", headline)) for t in type_names]
        body.append(
            _card(
                "types",
                f"Per type: {headline}",
                _systems_table(systems, names, ["type"], by_type, sortable=True),
                "Click a column to sort.",
            )
        )
        nav.append(("types", "Per type"))
    averages = {
        (average, key): None
        for n in names
        for average, scores in (systems[n].get("averages") or {}).items()
        for key in scores
    }
    if averages:  # each system's, side by side
        by_average = [((a, k), ("averages", a, k)) for a, k in averages]
        body.append(
            _card(
                "averages",
                "Macro averages",
                _systems_table(systems, names, ["average", "score"], by_average),
                "Each system's macro averages side by side (over types, over documents; "
                "units whose score is undefined are left out, as design.md's rule says); "
                "the paired tests above are of the micro scores.",
            )
        )
        nav.append(("averages", "Macro"))
    element = ""
    css = js = ""
    if buckets:
        from annoscore.report.html_buckets import comparison_tables
        from annoscore.report.html_spans import BUCKETS_ID

        body.append(
            _card(
                "buckets",
                "Buckets compared",
                comparison_tables(buckets, names),
                f"Each bucket's F1 per system and the paired {compared['test']} test against "
                f"{names[0]} on its counts (strict tp/fp/fn per document); p below 0.05 in bold.",
            )
        )
        nav.append(("buckets", "Buckets"))
        element = embedded_json(buckets, BUCKETS_ID)
    if versus:
        from annoscore.report import html_versus

        part, found = html_versus.section(versus, names[0], text=text)
        body.append(
            _card(
                "versus",
                f"{names[0]} right, other wrong, and the reverse",
                part,
                "Gold mentions one system predicts exactly (span and type) and the other does "
                "not, per type and by their most frequent texts.",
            )
        )
        nav.append(("versus", "Right / wrong"))
        element += found
    for i, n in enumerate(names):
        anchor = f"system-{i}"
        part = _tiles(systems[n], shown[n].headline, ["systems", n])
        part += _scores_table(systems[n], ["systems", n])
        part += "<h2 style='margin-top:14px'>Counts</h2>" + _counts_table(
            systems[n], ["systems", n]
        )
        if systems[n].get("types"):
            part += "<h2 style='margin-top:14px'>Per type</h2>" + _units_table(
                systems[n]["types"], "type", ["systems", n, "types"]
            )
        body.append(_card(anchor, f"System {n}", part))
        nav.append((anchor, n))
        if shown[n].details is not None:
            from annoscore.report import html_trec

            worst = html_trec.section(
                shown[n].details, shown[n].documents, document_key(shown[n]), f"-{i}"
            )
            if worst is not None:
                (card_anchor, label, card_title, card), found = worst
                body.append(_card(card_anchor, f"{n}: {card_title}", card))
                nav.append((card_anchor, f"{n}: {label.lower()}"))
                element += found
                css, js = html_trec.CSS, html_trec.JS
    title = f"annoscore report: {first.task}, {len(names)} systems"
    result_element = embedded_json(data)
    if spans is not None:
        from annoscore.report import html_page, html_spans

        max_bytes = None if max_mb is None else int(max_mb * 1_000_000)
        if max_bytes is not None:  # the budget less what the page holds beside the viewer
            frame = (result_element, element, "".join(body), html_page.CSS, html_page.JS)
            max_bytes -= sum(len(x.encode("utf-8")) for x in frame)
            max_bytes -= len(css) + len(js) + len(html_spans.CSS) + len(html_spans.SYSTEMS_JS)
            max_bytes -= 1024  # the card's frame and the nav's link
        (anchor, label, card_title, part), found = html_spans.systems_viewer(
            {n: spans[n] for n in names}, text=text, max_bytes=max_bytes, note=spans_note
        )
        at = next((k for k, (a, _) in enumerate(nav) if a == "system-0"), len(nav))
        nav.insert(at, (anchor, label))
        body.insert(at, _card(anchor, card_title, part))
        element += found
        css, js = css + html_spans.CSS, js + html_spans.SYSTEMS_JS
    return page(
        title,
        _header(title, compared["signature"]),
        nav,
        "".join(body),
        result_element + element,
        css=css,
        js=js,
    )
