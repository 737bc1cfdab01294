"""The formats every task shares: JSON (the contract), CSV, Markdown and a plain text table.

The table has one row for the corpus (``all``), then one per type (``type:NAME``) and one per
document (``doc:ID``) when the result carries them, and one column per score and per count.
Scores print as fractions with 4 decimals; undefined scores print as ``-`` (``null`` in JSON, an
empty cell in CSV).
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from annoscore.counts import Counts, Number
from annoscore.report.html_page import fmt_count, fmt_score
from annoscore.result import Result, Scores

FORMATS = ("text", "json", "csv", "markdown", "html")


def json_safe(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinity) as None, tuples as lists:
    what JSON can hold.

    >>> json_safe({"a": [float("nan"), 1.5], "b": (float("inf"),)})
    {'a': [None, 1.5], 'b': [None]}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


PRETTY_JSON_LIMIT = 1_000_000
"""JSON up to this many characters is indented for people; larger output stays on one line."""


def render_json(result: Result) -> str:
    """One JSON object (cli.md): scores as unrounded fractions, ``null`` where undefined.

    Indented when small; a large object (per-document tables of a big corpus, a MUC map
    history) is written compact, because Python's fast C encoder does not indent (an indented
    dump of a few hundred megabytes takes tens of seconds).
    """
    data = result.to_dict()
    documents = data.get("documents")
    if documents is not None and len(documents) > _SHARED_DOCUMENTS:
        text = _compact_with_shared_documents(data, documents)
        if text is not None and len(text) > PRETTY_JSON_LIMIT + 1:
            return text
    return json_text(data)


_SHARED_DOCUMENTS = 1000
"""Documents beyond which :func:`render_json` writes each shared document object's text once."""

_MARKER = "\0documents\0"


def _compact_with_shared_documents(data: dict[str, Any], documents: dict[str, Any]) -> str | None:
    """The compact JSON text of ``data`` and its newline (:func:`json_text`'s, beyond its
    limit), with the text of each distinct object of ``documents`` (documents of equal counts
    share one: :meth:`Result.to_dict`) encoded once and written for each document that holds
    it, instead of the C encoder encoding the object again for every document (40% of the CPU
    of a CodiEsp ``--per-doc -f json`` run).  Each name is encoded by the encoder
    ``json.dumps`` uses for keys, joined with its object's text by the default separators, a
    block of documents at a time, and the documents' text put where a marker stands in the text
    of the rest.  ``None`` when the documents hold more than half as many distinct objects as
    there are documents, when a text shows a non-finite float (``NaN``, ``Infinity``) or when
    the marker is not found exactly once: :func:`json_text` then writes it the plain way.

    >>> shared = {"f": 0.5}
    >>> data = {"a": 1, "documents": {"d1": shared, "d\u00e9": shared, 'q"': shared}, "z": []}
    >>> print(_compact_with_shared_documents(data, data["documents"]), end="")
    {"a": 1, "documents": {"d1": {"f": 0.5}, "d\u00e9": {"f": 0.5}, "q\\"": {"f": 0.5}}, "z": []}
    """
    import json
    from json.encoder import encode_basestring  # (C's, as json.dumps's without ensure_ascii)

    rest = dict(data)
    rest["documents"] = _MARKER
    head = json.dumps(rest, ensure_ascii=False)
    marker = json.dumps(_MARKER)
    if head.count(marker) != 1:
        return None
    objects = documents.values()
    distinct = dict(zip(map(id, objects), objects, strict=True))  # (no list of every document)
    if 2 * len(distinct) > len(documents):  # (their texts held beside the documents': no gain)
        return None
    texts = {k: json.dumps(v, ensure_ascii=False) for k, v in distinct.items()}
    if any(map(_shows_non_finite, (head, *texts.values()))):
        return None
    before, after = head.split(marker)
    pieces = [before, "{"]
    names, held = iter(documents), iter(objects)
    while block := list(itertools.islice(names, _BLOCK)):  # (no list of every document)
        keys = map(str.__add__, map(encode_basestring, block), itertools.repeat(": "))
        values = map(texts.__getitem__, map(id, itertools.islice(held, len(block))))
        if len(pieces) > 2:
            pieces.append(", ")
        pieces.append(", ".join(map(str.__add__, keys, values)))
    return "".join([*pieces, "}", after, "\n"])  # (the text made once)


_BLOCK = 10_000
"""Documents whose text :func:`_compact_with_shared_documents` makes at a time."""


def json_text(data: Any) -> str:
    """``data`` as JSON text, :func:`json_safe` (non-finite floats as ``null``), indented up to
    :data:`PRETTY_JSON_LIMIT` characters, on one line beyond."""
    import json  # here: a text table needs neither json nor csv (start-up)

    data, compact = finite_json(data)
    if len(compact) > PRETTY_JSON_LIMIT:
        return compact + "\n"
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def finite_json(data: Any) -> tuple[Any, str]:
    """``data`` made :func:`json_safe`, and its compact JSON text.

    The walk of :func:`json_safe` (a Python call per value: 6% of a run writing the per-query
    tables of 5,000 trec queries) is made only where the C encoder's text shows a non-finite
    float, which it prints as ``NaN``, ``Infinity`` or ``-Infinity``: text without those
    letters had none, and is what the walked data gives (a tuple is an array either way).

    >>> finite_json({"a": (1.5, float("nan")), "b": "NaN"})
    ({'a': [1.5, None], 'b': 'NaN'}, '{"a": [1.5, null], "b": "NaN"}')
    """
    import json

    compact = json.dumps(data, ensure_ascii=False)
    if _shows_non_finite(compact):
        data = json_safe(data)
        compact = json.dumps(data, ensure_ascii=False)
    return data, compact


def _shows_non_finite(text: str) -> bool:
    """Whether JSON text from the C encoder may hold a non-finite float, which it prints as
    ``NaN``, ``Infinity`` or ``-Infinity`` (or those letters in a string: then checked the
    slow way)."""
    return "NaN" in text or "Infinity" in text


def _rows(result: Result) -> Iterator[tuple[str, str, Scores, Counts]]:
    yield "corpus", "all", result.scores, result.counts
    if result.view.averages:
        for name, scores in result.averages.items():
            yield "average", name, scores, Counts()
    if result.view.types:
        for name, unit in result.types.items():
            yield "type", name, unit.scores, unit.counts
    if result.view.documents:  # scored once per distinct row of counts
        names, (units, at) = result.document_units()
        for name, k in zip(names, at, strict=True):
            shared = units[k]
            if shared is not None:  # (every document of the matrix has one)
                yield "document", name, shared.scores, shared.counts


def _columns(result: Result) -> tuple[list[str], list[str]]:
    score_keys: dict[str, None] = {}  # first seen first, as dict.fromkeys keeps them
    count_keys: dict[str, None] = {}
    for _, _, scores, counts in _rows(result):
        score_keys.update(dict.fromkeys(scores))
        count_keys.update(dict.fromkeys(counts))
    return list(score_keys), list(count_keys)


def _grid(result: Result) -> tuple[list[str], list[list[str]]]:
    """The text table's header and rows: undefined scores ``-``, a count a row lacks empty."""
    score_keys, count_keys = _columns(result)
    header = ["scope", "name", *score_keys, *count_keys]
    body = []
    for scope, name, scores, counts in _rows(result):
        row = [scope, name]
        row += [fmt_score(scores.get(k)) for k in score_keys]
        row += [fmt_count(counts[k]) if k in counts else "" for k in count_keys]
        body.append(row)
    return header, body


MAX_TABLE_WIDTH = 120
"""A wider table is split into one block per column family (see :func:`render_table`)."""


def aligned(header: list[str], body: list[list[str]], left: int = 2) -> list[str]:
    """A plain text table: a header, a rule, the rows; the first ``left`` columns are
    left-justified (names), the others right-justified (numbers).

    >>> aligned(["name", "f1"], [["a", "1.0000"]], left=1)
    ['name      f1', '----  ------', 'a     1.0000']
    """
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = []
    for row in [header, *body]:
        cells = [
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if row is header:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _families(columns: list[str]) -> dict[str, list[int]]:
    """Column positions grouped by name prefix (``strict_f1`` -> ``strict``), in first-seen order.

    A prefix that only one column has is no family; such columns go to the ``""`` family.
    """
    prefix = [c.split("_", 1)[0] if "_" in c else "" for c in columns]
    families: dict[str, list[int]] = {}
    for i, p in enumerate(prefix):
        families.setdefault(p if prefix.count(p) > 1 else "", []).append(i)
    return families


def render_table(result: Result) -> str:
    """A plain, aligned text table under the task name and signature (warnings go to stderr).

    When it would be wider than :data:`MAX_TABLE_WIDTH` characters, the score and count columns
    are split into one block per family of names (``strict_*``, ``exact_*``, ...), each block
    repeating the scope and name columns, so it reads on a terminal.
    """
    header, body = _grid(result)
    lines = [f"{result.task}  ({result.signature})", ""]
    table = aligned(header, body)
    if max(len(line) for line in table) <= MAX_TABLE_WIDTH:
        return "\n".join(lines + table) + "\n" + interval_table(result)
    for name, positions in _families(header[2:]).items():
        keep = [0, 1, *(2 + p for p in positions)]
        lines.append(f"[{name or 'other'}]")
        lines.extend(aligned([header[i] for i in keep], [[r[i] for i in keep] for r in body]))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n" + interval_table(result)


def _interval_rows(result: Result) -> list[list[str]]:
    intervals = result.intervals or {}
    rows = []
    for key, value in result.scores.items():
        if key in intervals:
            bounds = intervals[key]
            low, high = ("-", "-") if bounds is None else (f"{bounds[0]:.4f}", f"{bounds[1]:.4f}")
            rows.append([key, fmt_score(value), low, high])
    return rows


def _interval_title(result: Result) -> str:
    settings = dict(result.signature.settings)
    return (
        f"{float(settings.get('confidence', '0.95')):.0%} bootstrap confidence intervals "
        f"({settings.get('bootstrap', '?')} resamples of the documents, seed "
        f"{settings.get('seed', '?')})"
    )


def interval_table(result: Result) -> str:
    """The confidence intervals of ``result`` as a text table ("" when it has none).

    Printed under every text report (after the official layout, which stays untouched above
    it): one row per score with its value and the interval's low and high ends.
    """
    if not result.intervals:
        return ""
    header = ["score", "value", "low", "high"]
    lines = ["", _interval_title(result), *aligned(header, _interval_rows(result))]
    return "\n".join(lines) + "\n"


def _csv_number(value: float | None) -> str:
    return "" if value is None else repr(value)


def _csv_count(value: Number) -> str:
    """A count as CSV carries it: exact (a sum of fractions such as ``ap_sum`` unrounded)."""
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    return str(int(value))


def render_csv(result: Result) -> str:
    """One row per scope (corpus, averages, types, documents); undefined scores are empty cells.
    Scores and counts are written exactly (``repr``), never rounded.

    With confidence intervals (``--bootstrap``) the last columns are ``SCORE_low`` and
    ``SCORE_high`` of every score that has one, filled on the corpus row.
    """
    import csv

    score_keys, count_keys = _columns(result)
    intervals = result.intervals or {}
    bounded = [k for k in result.scores if k in intervals]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["scope", "name", *score_keys, *count_keys]
        + [f"{k}_{end}" for k in bounded for end in ("low", "high")]
    )
    for scope, name, scores, counts in _rows(result):
        ends: list[str] = []
        for k in bounded:
            bounds = intervals[k] if scope == "corpus" else None
            ends += ["", ""] if bounds is None else [_csv_number(b) for b in bounds]
        writer.writerow(
            [scope, name]
            + [_csv_number(scores.get(k)) for k in score_keys]
            + [_csv_count(counts[k]) if k in counts else "" for k in count_keys]
            + ends
        )
    return buffer.getvalue()


def render_markdown(result: Result) -> str:
    """A GitHub-flavoured Markdown table with the signature and warnings."""
    header, body = _grid(result)
    lines = [f"**{result.task}** `{result.signature}`", ""]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|")
    lines.extend("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body)
    if result.intervals:
        lines += ["", _interval_title(result), "", "| score | value | low | high |"]
        lines.append("|---|---:|---:|---:|")
        lines.extend("| " + " | ".join(row) + " |" for row in _interval_rows(result))
    if result.warnings:
        lines.append("")
        lines.extend(f"- {w}" for w in result.warnings)
    return "\n".join(lines) + "\n"


TextRenderer = Callable[[Result], "str | Iterable[str]"]
"""A task's official layout (``--format text``): its text, or its text in pieces made as they
are taken (a layout listing every document: :func:`annoscore.report.codiesp.ranked_pieces`)."""


def render(result: Result, fmt: str, text: TextRenderer | None = None) -> str:
    """Render ``result`` in ``fmt``; ``text`` is the task's official layout, else the table."""
    made = render_pieces(result, fmt, text)
    return made if isinstance(made, str) else "".join(made)


def render_pieces(
    result: Result, fmt: str, text: TextRenderer | None = None
) -> str | Iterable[str]:
    """:func:`render`'s text, or its pieces in order when ``text`` gives pieces (what a command
    writes as they are made: a large layout is never held whole)."""
    if fmt == "json":
        return render_json(result)
    if fmt == "csv":
        return render_csv(result)
    if fmt == "markdown":
        return render_markdown(result)
    if fmt == "html":
        from annoscore.report.html import render_html

        return render_html(result)
    if fmt == "text":
        if text is None:
            return render_table(result)
        made = text(result)
        if isinstance(made, str):
            return made + interval_table(result)
        return itertools.chain(made, (interval_table(result),))
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
