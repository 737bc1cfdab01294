"""The error analysis behind the span sections of an HTML report (of every task whose
registration names its ``sides``: ``spans``, ``pharmaconer-ner``, ...): both sides read again
as the task read them (:class:`~annoscore.align.span_sides.SpanSides`), every mention's
category (:mod:`annoscore.align.span_errors`), the summary counts and the viewer's data as
compact JSON within a size budget (:func:`analyse`).  :mod:`annoscore.report.html_spans`
renders them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
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
from annoscore.align.span_sides import SpanSides
from annoscore.formats.brat_model import AnnFile

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
    if not doc.size:  # no mention (no error at all): no piece
        return [[] if t is not None else None for t in texts]
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

    def embedding(
        max_bytes: int | None, *, with_texts: bool = True, hidden: bool = False
    ) -> tuple[str, bool, bool]:
        """The viewer's data within ``max_bytes``: its JSON text, and whether the texts
        were cut to windows and whether even these were left out.  ``with_texts`` False: the
        mentions whole and no text, but ``"shared":true`` (the page of several systems holds
        the texts once, for every system; ``max_bytes`` is not looked at).  ``hidden``: the
        texts left out, as ``text`` False leaves them (``--no-text``)."""
        shown = texts if text and not hidden else [None] * len(ids)
        head = json.dumps(
            {**common, "text": False} if hidden else common,
            ensure_ascii=False,
            separators=(",", ":"),
        )[:-1]
        members = _mention_members(len(ids), g, p, errors)
        if not with_texts:
            parts = [head, _members(members), '"shared":true', '"windows":false']
            return ",".join(parts).replace("<", "\\u003c") + "}", False, False
        body = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
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
