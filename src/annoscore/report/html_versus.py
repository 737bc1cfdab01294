"""Where two systems differ, on the page of several systems (``annoscore report``, span tasks):
the gold mentions the baseline predicts exactly and another system does not ("A right, B
wrong"), and the reverse, per type and by their most frequent texts.

Right is the ``correct`` category of :mod:`annoscore.align.span_errors` (same fragments and
type), as in the buckets.  Both systems are scored on one gold standard, so their gold mentions
are the same rows; each is matched by document, offsets and type name.  Embedded as
``<script type="application/json" id="annoscore-versus">``: per other system ``[name, {"types":
{type: [a_right_b_wrong, b_right_a_wrong]}, "texts": [[type, text, n], ...] twice]}``; every
number shown names its place there (``data-versus-path``).  With ``--no-text`` the texts are
left out (their lists empty).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from annoscore.align.span_errors import CORRECT
from annoscore.report.html_page import embedded_json, escape

VERSUS_ID = "annoscore-versus"
FREQUENT = 15
"""Texts listed per direction."""


def _rights(data: Mapping[str, Any]) -> tuple[Any, Any]:
    """Per gold mention of an analysis (:func:`annoscore.report.html_span_data.analyse`), a key
    (document, start, end, type name) and whether the system predicts it exactly."""
    import numpy as np

    ids, types, g, _, errors = data["columns"]
    names = np.asarray(types, dtype=object)[g.kind] if len(types) else np.zeros(0, dtype=object)
    key = (np.asarray(ids, dtype=object)[g.doc], g.start, g.end, names)
    return key, errors.gold_category == CORRECT


def versus(analyses: Mapping[str, Mapping[str, Any]], *, text: bool = True) -> list[Any]:
    """Each system against the first (``analyses``: per system name its analysis): per type
    how many gold mentions the first predicts exactly and the other not, and the reverse, and
    the most frequent texts of each (``text`` False: none)."""
    import numpy as np

    from annoscore.report.html_span_data import _rows, _surface

    names = list(analyses)
    base = analyses[names[0]]
    (b_doc, b_start, b_end, b_type), b_right = _rights(base)
    texts, gold_files, _ = base["sources"]
    bounds = _rows(base["columns"][2].doc, len(base["columns"][0]))
    g = base["columns"][2]
    out = []
    for name in names[1:]:
        (o_doc, o_start, o_end, o_type), o_right = _rights(analyses[name])
        same = (
            len(o_doc) == len(b_doc)
            and bool(np.array_equal(o_start, b_start) and np.array_equal(o_end, b_end))
            and bool((o_doc == b_doc).all() and (o_type == b_type).all())
        )
        if not same:  # pragma: no cover - one gold standard reads the same for every system
            raise AssertionError("the systems' gold mentions differ")
        per_type: dict[str, list[int]] = {}
        texts_of: list[list[list[Any]]] = []
        for k, rows in enumerate(
            (np.flatnonzero(b_right & ~o_right), np.flatnonzero(o_right & ~b_right))
        ):
            counted: Counter[tuple[str, str]] = Counter()
            for r in rows.tolist():
                kind = str(b_type[r])
                per_type.setdefault(kind, [0, 0])[k] += 1
                if text:
                    counted[(kind, _surface(gold_files, texts, g, bounds, r))] += 1
            texts_of.append([[t, s, n] for (t, s), n in counted.most_common(FREQUENT)])
        out.append([name, {"types": dict(sorted(per_type.items())), "texts": texts_of}])
    return out


def _cell(value: int, path: Sequence[Any]) -> str:
    where = escape(json.dumps(list(path)))
    return f'<td class="num" data-versus-path="{where}" title="{value}">{value}</td>'


def section(data: list[Any], baseline: str, *, text: bool = True) -> tuple[str, str]:
    """The card's body (per other system: the counts per type, the frequent texts of each
    direction; ``text`` False: a line saying they are left out) and its embedded data."""
    parts = []
    for i, (name, found) in enumerate(data):
        a, b = escape(baseline), escape(name)
        head = f"<th>type</th><th class='num'>{a} right, {b} wrong</th>"
        head += f"<th class='num'>{b} right, {a} wrong</th>"
        rows = "".join(
            f'<tr><td class="name">{escape(t)}</td>'
            + _cell(n[0], [i, 1, "types", t, 0])
            + _cell(n[1], [i, 1, "types", t, 1])
            + "</tr>"
            for t, n in found["types"].items()
        )
        rows = rows or '<tr><td class="muted" colspan="3">none</td></tr>'
        lists = []
        for k, label in enumerate((f"{a} right, {b} wrong", f"{b} right, {a} wrong")):
            if not text:
                lists.append(
                    f'<div><h3>Most often {label}</h3><p class="muted">Texts left out '
                    "(--no-text).</p></div>"
                )
                continue
            items = "".join(
                f'<tr><td class="name">{escape(t)}</td><td class="name surface">'
                f"{escape(s)}</td>" + _cell(n, [i, 1, "texts", k, j, 2]) + "</tr>"
                for j, (t, s, n) in enumerate(found["texts"][k])
            )
            items = items or '<tr><td class="muted" colspan="3">none</td></tr>'
            lists.append(
                f"<div><h3>Most often {label}</h3><table><thead><tr><th>type</th><th>text</th>"
                f"<th class='num'>n</th></tr></thead><tbody>{items}</tbody></table></div>"
            )
        parts.append(
            f"<h3>{a} against {b}</h3><div class='scroll'><table class='sort'><thead><tr>{head}"
            f"</tr></thead><tbody>{rows}</tbody></table></div>"
            f'<div class="pair" style="margin-top:10px">{"".join(lists)}</div>'
        )
    return "".join(parts), embedded_json(data, VERSUS_ID)
