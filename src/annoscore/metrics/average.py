"""Averaging named and explained.

- **micro**: add the counts of every unit (document, type), then score the sum
  (``scorer(Counts.total(units))``).  This is what every official scorer here reports unless it
  says otherwise.
- **macro**: score every unit on its own, then take the plain mean of the scores.  By type
  (``macro_type``) it weighs rare types as much as frequent ones; by document (``macro_doc``) it
  weighs short documents as much as long ones (the i2b2 style).

A unit whose score is undefined (a document with no gold and no prediction has no recall) is left
out of that score's mean, and the mean of nothing is undefined (``None``).
:func:`macro_average` also returns how many units entered each mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Scores = dict[str, float | None]


def macro_average(per_unit: Iterable[Mapping[str, float | None]]) -> tuple[Scores, dict[str, int]]:
    """Mean of each score over the units where it is defined, and how many units that was."""
    totals: dict[str, float] = {}
    defined: dict[str, int] = {}
    keys: list[str] = []
    for scores in per_unit:
        for key, value in scores.items():
            if key not in defined:
                keys.append(key)
                defined[key] = 0
                totals[key] = 0.0
            if value is not None:
                totals[key] += value
                defined[key] += 1
    means: Scores = {k: (totals[k] / defined[k] if defined[k] else None) for k in keys}
    return means, defined
