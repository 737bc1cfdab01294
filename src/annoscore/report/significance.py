"""Rendering of paired comparisons (:class:`~annoscore.significance.Comparison`) and intervals.

- JSON (:func:`json_dict`): ``{"task", "signature", "test", "baseline": NAME, "systems": {NAME:
  {"scores", "difference", "interval", "p_value"}}, "warnings"}``; fractions unrounded, ``null``
  where undefined, intervals as ``[low, high]``.  The baseline is a system too: compared with
  itself, its difference is 0, its interval ``[0, 0]`` and its p-value 1.
- Text (:func:`render_text`) and Markdown (:func:`render_markdown`): one table per score key,
  one row per system (the baseline first), with the score, the difference, its interval and the
  p-value, and :data:`MARKER` where p < :data:`ALPHA`.

:func:`format_interval` is the one way an interval is written in a table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annoscore.report.generic import aligned
from annoscore.report.html_page import fmt_score

if TYPE_CHECKING:
    from annoscore.significance import Comparison

ALPHA = 0.05
"""A p-value below this gets :data:`MARKER`."""

MARKER = "*"

TEST_NAMES = {
    "bootstrap": "paired bootstrap resampling (Koehn 2004)",
    "randomization": "approximate randomization (Riezler and Maxwell 2005)",
    "t-test": "paired t-test (Student) on the per-document scores",
}


def format_interval(
    bounds: Sequence[float] | None, digits: int = 4, *, signed: bool = False
) -> str:
    """``[low, high]`` with ``digits`` decimals (a sign when ``signed``), ``-`` when undefined.

    >>> format_interval((0.81234, 0.9)), format_interval(None)
    ('[0.8123, 0.9000]', '-')
    >>> format_interval((-0.02, 0.015), signed=True)
    '[-0.0200, +0.0150]'
    """
    if bounds is None:
        return "-"
    sign = "+" if signed else ""
    low, high = bounds
    return f"[{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" + (f" {MARKER}" if value < ALPHA else "")


def json_dict(comparison: Comparison) -> dict[str, Any]:
    """The JSON object of a comparison (see the module doc)."""
    return {
        "task": comparison.task,
        "signature": str(comparison.signature),
        "test": comparison.test.value,
        "baseline": comparison.baseline,
        "systems": {name: row.to_json_dict() for name, row in comparison.systems.items()},
        "warnings": [str(w) for w in comparison.warnings],
    }


def render_json(comparison: Comparison) -> str:
    """:func:`json_dict`, indented, one object."""
    return json.dumps(json_dict(comparison), indent=2, ensure_ascii=False) + "\n"


def _rows(comparison: Comparison, key: str) -> list[list[str]]:
    rows = []
    for name, row in comparison.systems.items():
        if name == comparison.baseline:
            rows.append([name, fmt_score(row.scores.get(key)), "baseline", "", ""])
            continue
        rows.append(
            [
                name,
                fmt_score(row.scores.get(key)),
                "-" if (d := row.difference.get(key)) is None else f"{d:+.4f}",
                format_interval(row.interval.get(key), signed=True),
                _p(row.p_value.get(key)),
            ]
        )
    return rows


def _header(comparison: Comparison) -> list[str]:
    confidence = float(dict(comparison.signature.settings).get("confidence", "0.95"))
    return ["system", "score", "difference", f"{confidence:.0%} interval", "p-value"]


def _summary(comparison: Comparison) -> str:
    settings = dict(comparison.signature.settings)
    if comparison.test.value == "t-test":
        return (
            f"{TEST_NAMES['t-test']} of {comparison.documents} documents (intervals: "
            f"{settings.get('bootstrap', '?')} paired bootstrap resamples, seed "
            f"{settings.get('seed', '?')}); baseline {comparison.baseline}; {MARKER} p < {ALPHA}"
        )
    unit = "resamples" if comparison.test.value == "bootstrap" else "trials"
    return (
        f"{TEST_NAMES[comparison.test.value]}, {settings.get('samples', '?')} {unit} of "
        f"{comparison.documents} documents, seed {settings.get('seed', '?')}; baseline "
        f"{comparison.baseline}; {MARKER} p < {ALPHA}"
    )


def render_text(comparison: Comparison) -> str:
    """Plain text: the signature, the test, then one table per score key (warnings go to
    stderr, as for every text report)."""
    lines = [f"{comparison.task}  ({comparison.signature})", _summary(comparison)]
    for key in comparison.keys:
        lines += ["", key, *aligned(_header(comparison), _rows(comparison, key), left=1)]
    return "\n".join(lines) + "\n"


def render_markdown(comparison: Comparison) -> str:
    """GitHub-flavoured Markdown: one table per score key, then the warnings."""
    lines = [f"**{comparison.task}** `{comparison.signature}`", "", _summary(comparison)]
    for key in comparison.keys:
        lines += ["", f"**{key}**", "", "| " + " | ".join(_header(comparison)) + " |"]
        lines.append("|---|---:|---:|---:|---:|")
        lines.extend(
            "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
            for row in _rows(comparison, key)
        )
    if comparison.warnings:
        lines.append("")
        lines.extend(f"- {w}" for w in comparison.warnings)
    return "\n".join(lines) + "\n"


def render(comparison: Comparison, fmt: str) -> str:
    """Render ``comparison`` as ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        return render_json(comparison)
    if fmt == "markdown":
        return render_markdown(comparison)
    if fmt == "text":
        return render_text(comparison)
    raise ValueError(f"unknown format {fmt!r}; expected text, json or markdown")
