"""A plain reference for the error categories of :mod:`annoscore.align.span_errors`, written
from the module's definition, one pair of mentions at a time (no index, no sorting trick).

Pairing is one-to-one.  First equal fragments: gold mentions in order of (fragments, type,
position), each taking the first free prediction, in order of (fragments, type, position), with
the same fragments and the same type; then the same with another type.  Then overlapping
mentions: every free pair sharing at least one character, in order of (another type, most
shared characters, gold fragments and type, predicted fragments and type, gold position,
predicted position), taken when both are still free.  The side of a boundary pair: ``left+``
(the prediction starts before) or ``left-``, ``right+`` (it ends after) or ``right-``, joined by
a space, ``frag`` when only inner fragments differ.

Returns, per gold and per predicted mention, its category, its partner (or ``None``) and, per
gold mention, its side (``""`` unless a boundary pair).
"""

from __future__ import annotations

from typing import Any

Mention = tuple[tuple[tuple[int, int], ...], str]


def _shared(a: Mention, b: Mention) -> int:
    total = 0
    for a_start, a_end in a[0]:
        for b_start, b_end in b[0]:
            total += max(0, min(a_end, b_end) - max(a_start, b_start))
    return total


def _side(g: Mention, p: Mention) -> str:
    words = []
    if p[0][0][0] < g[0][0][0]:
        words.append("left+")
    elif p[0][0][0] > g[0][0][0]:
        words.append("left-")
    if p[0][-1][1] > g[0][-1][1]:
        words.append("right+")
    elif p[0][-1][1] < g[0][-1][1]:
        words.append("right-")
    return " ".join(words) if words else "frag"


def categories(gold: list[Mention], pred: list[Mention]) -> dict[str, list[Any]]:
    gold_cat: list[str] = ["missed"] * len(gold)
    pred_cat: list[str] = ["spurious"] * len(pred)
    gold_partner: list[int | None] = [None] * len(gold)
    pred_partner: list[int | None] = [None] * len(pred)
    gold_side = [""] * len(gold)
    gold_order = sorted(range(len(gold)), key=lambda i: (gold[i][0], gold[i][1], i))
    pred_order = sorted(range(len(pred)), key=lambda j: (pred[j][0], pred[j][1], j))
    for same in (True, False):
        for i in gold_order:
            if gold_partner[i] is not None:
                continue
            for j in pred_order:
                if pred_partner[j] is not None or pred[j][0] != gold[i][0]:
                    continue
                if (pred[j][1] == gold[i][1]) != same:
                    continue
                gold_partner[i], pred_partner[j] = j, i
                gold_cat[i] = pred_cat[j] = "correct" if same else "type"
                break
    candidates = []
    for i in range(len(gold)):
        for j in range(len(pred)):
            if gold_partner[i] is None and pred_partner[j] is None:
                shared = _shared(gold[i], pred[j])
                if shared > 0:
                    other = gold[i][1] != pred[j][1]
                    candidates.append((other, -shared, gold[i], pred[j], i, j))
    candidates.sort()
    for other, _, _, _, i, j in candidates:
        if gold_partner[i] is None and pred_partner[j] is None:
            gold_partner[i], pred_partner[j] = j, i
            gold_cat[i] = pred_cat[j] = "type+boundary" if other else "boundary"
            gold_side[i] = _side(gold[i], pred[j])
    return {
        "gold": gold_cat,
        "pred": pred_cat,
        "gold_partner": gold_partner,
        "pred_partner": pred_partner,
        "side": gold_side,
    }
