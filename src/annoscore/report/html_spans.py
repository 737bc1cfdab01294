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

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.align.span_errors import (
    BOUNDARY,
    CATEGORIES,
    CORRECT,
    MISSED,
    SIDES,
    SPURIOUS,
    TYPE_BOUNDARY,
    MentionErrors,
    categorize_columns,
    categorize_mentions,
)
from annoscore.formats.brat_model import AnnFile, Dialect
from annoscore.report.html_page import embedded_json, escape

ERRORS_ID = "annoscore-errors"
BUCKETS_ID = "annoscore-buckets"
WINDOW = 60
"""Characters of context kept on each side of a mention when texts are cut to windows."""
LONG = 3000
"""Characters beyond which the viewer shows a document as context windows around its errors
(a box unticked shows the whole text)."""
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
    """Both sides' documents by id, as a reader's entity columns (the files the task scored)."""

    gold: Mapping[str, AnnFile]
    system: Mapping[str, AnnFile]


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
    return SpanSides(*paired_files(gold, system, gold_files, system_files))


@dataclass(slots=True)
class _Side:
    """One side's mentions of every document as columns (rows of a document together)."""

    doc: Any
    start: Any
    end: Any
    kind: Any
    fragments: dict[int, list[list[int]]]
    """The fragments of each discontinuous mention, by row."""


def _rows(doc: Any, n_docs: int) -> Any:
    import numpy as np

    return np.searchsorted(doc, np.arange(n_docs + 1))


def _columns(
    gold: Sequence[AnnFile], pred: Sequence[AnnFile]
) -> tuple[tuple[str, ...], _Side, _Side, MentionErrors]:
    """Both sides as columns and the item of every mention: continuous documents all at once
    (:func:`categorize_columns`), a document with a discontinuous mention on its own
    (:func:`categorize_mentions`)."""
    import numpy as np

    from annoscore.metrics.span_corpus import entity_columns

    types, g, p, discontinuous = entity_columns(gold, pred)
    sides = []
    for doc, starts, ends, kinds in (g, p):
        low, high = np.minimum(starts, ends), np.maximum(starts, ends)  # reversed (pharmaconer)
        sides.append(_Side(doc, low, high, kinds, {}))
    errors = categorize_columns(
        (g[0], sides[0].start, sides[0].end, g[3]), (p[0], sides[1].start, sides[1].end, p[3])
    )
    if discontinuous.any():
        rank = {t: k for k, t in enumerate(types)}
        bounds = [_rows(side.doc, len(gold)) for side in sides]
        for d in np.flatnonzero(discontinuous).tolist():
            lists = []
            for side, files, at in zip(sides, (gold, pred), bounds, strict=True):
                lo, hi = int(at[d]), int(at[d + 1])
                file = files[d]
                frags = [
                    tuple((min(a, b), max(a, b)) for a, b in f) for f in file.entity_fragments()
                ]
                if len(frags) != hi - lo:  # pragma: no cover - the columns are the file's
                    raise AssertionError("a file's rows and its entities disagree")
                for k, f in enumerate(frags):
                    if len(f) > 1:
                        side.fragments[lo + k] = [list(x) for x in f]
                        side.start[lo + k], side.end[lo + k] = f[0][0], f[-1][1]
                lists.append((lo, [(f, rank[t]) for f, t in zip(frags, file.types, strict=True)]))
            (g_lo, g_items), (p_lo, p_items) = lists
            one = categorize_mentions(g_items, p_items)
            rows_g = slice(g_lo, g_lo + len(g_items))
            rows_p = slice(p_lo, p_lo + len(p_items))
            errors.gold_category[rows_g] = one.gold_category
            errors.gold_side[rows_g] = one.gold_side
            errors.gold_partner[rows_g] = np.where(
                one.gold_partner < 0, -1, one.gold_partner + p_lo
            )
            errors.pred_category[rows_p] = one.pred_category
            errors.pred_partner[rows_p] = np.where(
                one.pred_partner < 0, -1, one.pred_partner + g_lo
            )
    return types, sides[0], sides[1], errors


def _surface(
    files: Sequence[AnnFile], texts: Sequence[str | None], side: _Side, bounds: Any, r: int
) -> str:
    """The text of row ``r`` of ``side``: of its document where that is known, else its file's
    (``bounds``: :func:`_rows` of the side)."""
    d = int(side.doc[r])
    text = texts[d]
    if text is None:
        return str(files[d].texts[r - int(bounds[d])])
    frags = side.fragments.get(r)
    if frags is None:
        return text[int(side.start[r]) : int(side.end[r])]
    return " ".join(text[a:b] for a, b in frags)


def _windows(texts: Sequence[str | None], doc: Any, start: Any, end: Any) -> list[Any]:
    """Per document, pieces ``[offset, text]`` of its text around the given mentions (merged
    where they meet); ``None`` for a document without text."""
    import numpy as np

    n_docs = len(texts)
    sizes = np.array([len(t or "") for t in texts], dtype=np.int64)
    has = np.array([t is not None for t in texts], dtype=bool)
    keep = has[doc] if doc.size else np.zeros(0, dtype=bool)
    doc, start, end = doc[keep], start[keep], end[keep]
    lo = np.clip(start - WINDOW, 0, sizes[doc])
    hi = np.clip(end + WINDOW, 0, sizes[doc])
    order = np.lexsort([lo, doc])
    doc, lo, hi = doc[order], lo[order], hi[order]
    base = np.cumsum(sizes + 1) - (sizes + 1)  # documents one after another on one line
    reach = np.maximum.accumulate(hi + base[doc]) if doc.size else hi
    new = np.ones(doc.shape[0], dtype=bool)
    new[1:] = (doc[1:] != doc[:-1]) | (lo[1:] + base[doc[1:]] > reach[:-1])
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], doc.shape[0]) - 1
    out: list[Any] = [[] if t is not None else None for t in texts]
    for d, a, b in zip(
        doc[firsts].tolist(),
        lo[firsts].tolist(),
        (reach[lasts] - base[doc[lasts]]).tolist(),
        strict=True,
    ):
        out[d].append([a, texts[d][a:b]])
    assert len(out) == n_docs
    return out


def _flat(values: Any) -> str:
    """A whole-number array as a JSON list, written digit by digit with array operations (as
    ``json.dumps(values.tolist())`` writes it, without a Python object per number).

    >>> import numpy as np
    >>> _flat(np.array([0, -1, 305, 12])), _flat(np.array([], dtype=np.int64))
    ('[0,-1,305,12]', '[]')
    """
    import numpy as np

    v = np.asarray(values, dtype=np.int64).ravel()
    n = v.shape[0]
    if n == 0:
        return "[]"
    negative = v < 0
    rest = np.abs(v)
    digits = np.ones(n, dtype=np.int64)
    top, power = int(rest.max()), 10
    while power <= top:
        digits += rest >= power
        power *= 10
    width = digits + negative + 1  # the number, its sign and the comma after it
    ends = np.cumsum(width)
    out = np.empty(int(ends[-1]) + 2, dtype=np.uint8)
    scratch = out.shape[0] - 1  # where the digits a number lacks are written, then cut
    out[0], out[ends] = ord("["), ord(",")
    last = ends - 1
    for k in range(int(digits.max())):
        out[np.where(digits > k, last - k, scratch)] = 48 + rest % 10
        rest //= 10
    out[np.where(negative, ends - width + 1, scratch)] = ord("-")
    out[-2] = ord("]")
    return out[:-1].tobytes().decode("ascii")


def _flat_size(values: Any) -> int:
    """The length of :func:`_flat` of ``values``, counted without writing it.

    >>> import numpy as np
    >>> _flat_size(np.array([0, -1, 305, 12])), _flat_size(np.array([], dtype=np.int64))
    (13, 2)
    """
    import numpy as np

    v = np.asarray(values, dtype=np.int64).ravel()
    if v.shape[0] == 0:
        return 2
    rest = np.abs(v)
    size = 2 * v.shape[0] + 1 + int(np.count_nonzero(v < 0))  # digit, comma; "[", minus signs
    top, power = int(rest.max()), 10
    while power <= top:
        size += int(np.count_nonzero(rest >= power))
        power *= 10
    return size


def analyse(
    sides: SpanSides, *, text: bool = True, max_bytes: int | None = None, embed: bool = True
) -> dict[str, Any]:
    """The error analysis of ``sides``: the summary tables' counts (``types``: per type and
    category; ``confusion``: gold type x predicted type; ``missed`` and ``spurious``: the most
    frequent strings) and ``embedded``, the viewer's data as a JSON text (see :func:`embed`).
    Beyond ``max_bytes`` the texts are cut to windows around the errors (``windows``), and
    beyond it even so left out (``dropped``).  ``embedding``: the function that writes it
    within a given budget (``embed`` False: not called yet)."""
    import numpy as np

    ids = list(dict.fromkeys([*sides.gold, *sides.system]))
    empty = AnnFile("", "", [], [], [], [], [])
    gold = [sides.gold.get(d, empty) for d in ids]
    pred = [sides.system.get(d, empty) for d in ids]
    texts = [g.text if g.text is not None else p.text for g, p in zip(gold, pred, strict=True)]
    types, g, p, errors = _columns(gold, pred)
    n_types, n_cats = len(types), len(CATEGORIES)
    g_cat, p_cat = errors.gold_category.astype(np.int64), errors.pred_category.astype(np.int64)
    spurious = np.flatnonzero(p_cat == SPURIOUS)
    table = np.bincount(g.kind * n_cats + g_cat, minlength=n_types * n_cats)
    table += np.bincount(p.kind[spurious] * n_cats + SPURIOUS, minlength=n_types * n_cats)
    by_type = {
        types[t]: {CATEGORIES[c]: int(n) for c, n in enumerate(row) if n}
        for t, row in enumerate(table.reshape(n_types, n_cats))
        if row.any()
    }
    at_boundary = np.isin(g_cat, (BOUNDARY, TYPE_BOUNDARY))
    n_sides = len(SIDES)
    by_side = np.bincount(
        g.kind[at_boundary] * n_sides + errors.gold_side[at_boundary].astype(np.int64),
        minlength=n_types * n_sides,
    ).reshape(n_types, n_sides)
    boundary = {
        types[t]: {SIDES[k]: int(n) for k, n in enumerate(row) if n}
        for t, row in enumerate(by_side)
        if row.any()
    }
    partner = errors.gold_partner
    column = np.full(partner.shape[0], n_types, dtype=np.int64)  # (missed)
    paired = partner >= 0
    column[paired] = p.kind[partner[paired]]
    pairs = np.bincount(g.kind * (n_types + 1) + column, minlength=n_types * (n_types + 1))
    confusion: dict[str, dict[str, int]] = {}
    for t, row in enumerate(pairs.reshape(n_types, n_types + 1)):
        cells = {(types[c] if c < n_types else "(missed)"): int(n) for c, n in enumerate(row) if n}
        if cells:
            confusion[types[t]] = cells
    predicted = np.bincount(p.kind[spurious], minlength=n_types)
    if predicted.any():
        confusion["(spurious)"] = {types[t]: int(n) for t, n in enumerate(predicted) if n}
    confusion = {k: confusion[k] for k in sorted(confusion)}
    from annoscore.report.html_buckets import text_features

    columns = (ids, types, g, p, errors)
    features = text_features({"columns": columns, "sources": (texts, gold, pred)})
    frequent: dict[str, list[list[Any]]] = {"missed": [], "spurious": []}
    if text:
        numbers = features[3]
        for what, side, files, rows, number in (
            ("missed", g, gold, np.flatnonzero(g_cat == MISSED), numbers[0]),
            ("spurious", p, pred, spurious, numbers[1]),
        ):
            if not rows.size:
                continue
            # (type, text) pairs by their numbers: most frequent first, ties in row order
            keys = side.kind[rows] * (int(number.max()) + 1) + number[rows]
            _, firsts, counts = np.unique(keys, return_index=True, return_counts=True)
            top = np.lexsort((firsts, -counts))[:FREQUENT]
            bounds = _rows(side.doc, len(ids))
            for k in top.tolist():
                r = int(rows[firsts[k]])
                surface = _surface(files, texts, side, bounds, r)
                frequent[what].append([types[int(side.kind[r])], surface, int(counts[k])])
    errors_per_doc = np.bincount(g.doc[g_cat != CORRECT], minlength=len(ids)) + np.bincount(
        p.doc[spurious], minlength=len(ids)
    )
    common = {
        "categories": list(CATEGORIES),
        "labels": LABELS,
        "sides": list(SIDES),
        "typenames": list(types),
        "docs": ids,
        "n": errors_per_doc.tolist(),
        "text": text,
        "long": LONG,
        "window": WINDOW,
    }

    def embedding(max_bytes: int | None) -> tuple[str, bool, bool]:
        """The viewer's data within ``max_bytes``: its JSON text, and whether the texts
        were cut to windows and whether even these were left out."""
        shown = texts if text else [None] * len(ids)
        head = json.dumps(common, ensure_ascii=False, separators=(",", ":"))[:-1]
        body = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
        members = _mention_members(len(ids), g, p, errors)
        windows = dropped = False
        if max_bytes is not None:
            closing = '"t":,"windows":false}'
            size = sum(_member_size(k, v) for k, v in members)  # each with its comma
            size += _size(head) + 1 + _size(body) + len(closing)
            windows = size > max_bytes
        if windows:
            keep = (np.flatnonzero(g_cat != CORRECT), np.flatnonzero(p_cat != CORRECT))
            members = _mention_members(len(ids), g, p, errors, keep)
            both = (
                np.concatenate([side.doc[rows] for side, rows in zip((g, p), keep, strict=True)]),
                np.concatenate([side.start[rows] for side, rows in zip((g, p), keep, strict=True)]),
                np.concatenate([side.end[rows] for side, rows in zip((g, p), keep, strict=True)]),
            )
            body = json.dumps(_windows(shown, *both), ensure_ascii=False, separators=(",", ":"))
            parts = [head, _members(members), f'"w":{body}', '"windows":true']
            if max_bytes is not None and sum(_size(x) for x in parts) + len(parts) > max_bytes:
                dropped = True
                parts = [head, _members(members), '"windows":true']
        else:
            parts = [head, _members(members), f'"t":{body}', '"windows":false']
        embedded = ",".join(parts).replace("<", "\\u003c") + "}"  # no text can close the element
        return embedded, windows, dropped

    data: dict[str, Any] = {
        "types": by_type,
        "boundary": boundary,
        "confusion": confusion,
        "missed": frequent["missed"],
        "spurious": frequent["spurious"],
        "text": text,
        "embedding": embedding,
        "columns": columns,
        "sources": (texts, gold, pred),
        "features": features,
    }
    if embed:
        data["embedded"], data["windows"], data["dropped"] = embedding(max_bytes)
    return data


def _size(text: str) -> int:
    """The bytes ``text`` takes embedded (each ``<`` written ``\\u003c``)."""
    return len(text.encode("utf-8")) + 5 * text.count("<")


def _mention_members(
    n_docs: int, g: _Side, p: _Side, errors: MentionErrors, keep: tuple[Any, Any] | None = None
) -> list[tuple[str, Any]]:
    """The mentions as JSON members (name, array or object; :func:`_members` writes them): columns
    over every document, read by the page's script a document at a time. Per document the number
    of gold and predicted mentions (``gn``, ``pn``); per mention its start as the distance from
    the previous mention's start in its document (``gs``, ``ps``), its length (``gl``, ``pl``),
    its type and category as one number (``gk``, ``pk``: type x the number of categories +
    category, a type a position in ``typenames``, a category one in ``categories``); per gold
    mention its prediction (``gp``: position among its document's predictions, -1 for none) and
    the side of a boundary error (``gd``: 1 + a position in ``sides``, 0 for another category);
    the fragments of discontinuous mentions by row (``gf``, ``pf``). ``keep``: the rows shown
    (the errors only), each side's."""
    import numpy as np

    category = {"g": errors.gold_category, "p": errors.pred_category}
    rows = keep or (np.arange(g.doc.shape[0]), np.arange(p.doc.shape[0]))
    parts: list[tuple[str, Any]] = []
    position = []
    for name, side, kept in zip("gp", (g, p), rows, strict=True):
        number = np.full(side.doc.shape[0] + 1, -1, dtype=np.int64)  # the last: for none
        doc = side.doc[kept]
        counts = np.bincount(doc, minlength=n_docs)
        firsts = np.cumsum(counts) - counts
        number[kept] = np.arange(kept.shape[0]) - firsts[doc]
        position.append(number)
        start = side.start[kept]
        previous = np.zeros(doc.shape[0], dtype=np.int64)
        previous[1:] = np.where(doc[1:] == doc[:-1], start[:-1], 0)
        parts.append((name + "n", counts))
        parts.append((name + "s", start - previous))
        parts.append((name + "l", side.end[kept] - start))
        kinds = side.kind[kept] * len(CATEGORIES) + category[name][kept]
        parts.append((name + "k", kinds))
        if side.fragments:
            at = None if keep is None else {r: k for k, r in enumerate(kept.tolist())}
            frags = {
                str(r if at is None else at[r]): f
                for r, f in side.fragments.items()
                if at is None or r in at
            }
            parts.append((name + "f", frags))
    parts.append(("gp", position[1][errors.gold_partner[rows[0]]]))
    boundary = np.isin(errors.gold_category[rows[0]], (BOUNDARY, TYPE_BOUNDARY))
    parts.append(("gd", np.where(boundary, errors.gold_side[rows[0]] + 1, 0)))
    return parts


def _members(members: list[tuple[str, Any]]) -> str:
    return ",".join(
        f'"{k}":' + (_flat(v) if hasattr(v, "dtype") else json.dumps(v, separators=(",", ":")))
        for k, v in members
    )


def _member_size(key: str, value: Any) -> int:
    if hasattr(value, "dtype"):
        return len(key) + 4 + _flat_size(value)
    return len(key) + 4 + len(json.dumps(value, separators=(",", ":")))


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
    return (
        f'<div class="scroll"><table class="sort"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


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
        f'<div class="scroll"><table class="sort" id="boundary-table"><thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="note">The gold mentions of a boundary error (wrong type and boundary '
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
        f'<div class="scroll"><table id="confusion-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="note">Click a cell for its instances; click an instance to open its document '
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
    cards = [
        (
            "errors",
            "Errors",
            "Error categories per type",
            _categories_table(data) + _boundary_table(data),
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
    notice = ""
    if data["windows"]:
        notice = (
            '<p class="notice">The documents are larger than the size budget (--max-html-mb): '
            f"the viewer shows the errors only, with {WINDOW} characters of context around "
            "each.</p>"
        )
    if data["dropped"]:
        notice = (
            '<p class="notice">The documents are larger than the size budget (--max-html-mb) '
            "even cut to windows around the errors: the viewer lists the errors by offset.</p>"
        )
    elif not text:
        notice = '<p class="notice">Texts left out (--no-text): the viewer shows offsets.</p>'
    cards.append(("viewer", "Viewer", "Document viewer", notice + _viewer()))
    element = f'<script type="application/json" id="{ERRORS_ID}">{data["embedded"]}</script>'
    return cards, element + buckets_element


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

JS = r"""
(function(){
"use strict";
var node=document.getElementById("annoscore-errors");if(!node)return;
var E=JSON.parse(node.textContent);window.annoscoreErrors=E;
var C=E.categories.length,D=E.docs.length,gOff=[0],pOff=[0],index={};
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
})();
"""
