"""The official NLP Sandbox text layout: one four-column table per metric, official rounding.

For each metric, in the official order (instance relax, instance strict, type, token strict)::

    instance                 F1             Precision      Recall
    ---------------------------------------------------------------------------
    relax                    0.75           0.75           0.75
    <blank>
    <blank>

Rows are ``"{:<25}{:<15}{:<15}{:<20}"`` (trailing spaces kept, as the official prints them); the
type table's title is the category (``date``, ``location``, ...) and its mode ``strict``.
Values are rounded as officially (:func:`annoscore.metrics.phi.official_prf`), so a leaderboard
number can be compared by eye.  The official prints the date and person type tables with
``nan``: so do we, and then add a fifth table with the computed value (``dateFormat``,
``personType``); for locations the fifth table is ``hipaa`` (neither computed officially).

``annoscore nlpsandbox all`` prints a ``[category]`` title line before each category's tables;
``--per-doc`` adds the generic per-note table after them.
"""

from __future__ import annotations

from annoscore.counts import Counts
from annoscore.metrics.phi import CATEGORY_PREFIXES, official_prf
from annoscore.report.generic import render_table
from annoscore.result import Result

_ROW = "{:<25}{:<15}{:<15}{:<20}"
_RULE = "-" * 75
_CATEGORY_NAMES = {prefix: prefix.replace("_", "-") for prefix in CATEGORY_PREFIXES}


OFFICIAL_TYPE_TITLE = {"date": "dateFormat", "person": "personType"}
"""Categories whose official type table prints ``nan``; annoscore adds its own table after."""


def official_table(title: str, mode: str, tp: int, fp: int, fn: int, nan: bool = False) -> str:
    """One official table (header, rule, values, two blank lines).

    >>> table = official_table("instance", "relax", 1, 12, 0)
    >>> print(table, end="")  # doctest: +NORMALIZE_WHITESPACE
    instance                 F1             Precision      Recall
    ---------------------------------------------------------------------------
    relax                    0.15           0.08           1.0
    """
    f1, precision, recall = ("nan", "nan", "nan") if nan else official_prf(tp, fp, fn)
    lines = [
        _ROW.format(title, "F1", "Precision", "Recall"),
        _RULE,
        _ROW.format(mode, str(f1), str(precision), str(recall)),
        "",
        "",
    ]
    return "\n".join(lines) + "\n"


def _stats(counts: Counts, prefix: str) -> tuple[int, int, int]:
    tp, fp, fn = (counts[f"{prefix}{k}"] for k in ("tp", "fp", "fn"))
    return int(tp), int(fp), int(fn)


def category_tables(counts: Counts, category: str, prefix: str = "") -> str:
    """The official tables of one category (``prefix`` selects it in ``all`` counts)."""
    parts = [
        official_table("instance", "relax", *_stats(counts, f"{prefix}instance_relax_")),
        official_table("instance", "strict", *_stats(counts, f"{prefix}instance_strict_")),
        official_table(
            category,
            "strict",
            *_stats(counts, f"{prefix}type_"),
            nan=category in OFFICIAL_TYPE_TITLE,
        ),
        official_table("token", "strict", *_stats(counts, f"{prefix}token_strict_")),
    ]
    if category in OFFICIAL_TYPE_TITLE:
        title = OFFICIAL_TYPE_TITLE[category]
        parts.append(official_table(title, "strict", *_stats(counts, f"{prefix}type_")))
    if f"{prefix}hipaa_tp" in counts:
        parts.append(official_table("hipaa", "strict", *_stats(counts, f"{prefix}hipaa_")))
    return "".join(parts)


def render_official(result: Result) -> str:
    """The official tables of the result's category, or of every category for ``all``."""
    if result.task == "nlpsandbox-all":
        blocks = []
        for prefix in CATEGORY_PREFIXES:
            if f"{prefix}_instance_relax_tp" in result.counts:
                name = _CATEGORY_NAMES[prefix]
                blocks.append(f"[{name}]\n" + category_tables(result.counts, name, f"{prefix}_"))
        text = "".join(blocks)
    else:
        text = category_tables(result.counts, result.task.removeprefix("nlpsandbox-"))
    if result.view.documents:
        text += render_table(result)
    return text
