"""Set agreement: the counts behind micro P/R/F when items either match exactly or not at all.

For one document with gold set G and predicted set S::

    tp = |G & S|     fp = |S - G|     fn = |G - S|

Duplicates collapse (these are sets).  With types, each item is counted under its own type: a
predicted item of type A that is absent from gold is a false positive of A, a gold item of type B
that was not predicted a false negative of B; ``tp`` of a type counts items of that type found on
both sides.  Per-type counts sum to the overall counts.

PharmaCoNER's two sub-tracks are scored so; :class:`PharmaconerDetails` is what their official
text layouts need beyond the counts.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from annoscore.counts import Counts
from annoscore.result import Details

T = TypeVar("T", bound=Hashable)


def set_counts(gold: Iterable[T], predicted: Iterable[T]) -> Counts:
    """``tp``, ``fp``, ``fn`` of two sets."""
    g, s = set(gold), set(predicted)
    tp = len(g & s)
    return Counts(tp=tp, fp=len(s) - tp, fn=len(g) - tp)


def typed_set_counts(
    gold: Iterable[T], predicted: Iterable[T], type_of: Callable[[T], str]
) -> tuple[Counts, dict[str, Counts]]:
    """Overall ``tp``/``fp``/``fn`` and the same per type (``type_of(item)`` names the type)."""
    g, s = set(gold), set(predicted)
    per_type: dict[str, dict[str, int]] = {}
    for item in g | s:
        key = "tp" if item in g and item in s else ("fn" if item in g else "fp")
        bucket = per_type.setdefault(type_of(item), {"tp": 0, "fp": 0, "fn": 0})
        bucket[key] += 1
    return set_counts(g, s), {name: Counts(values) for name, values in sorted(per_type.items())}


@dataclass(frozen=True, slots=True)
class PharmaconerDetails(Details):
    """What the PharmaCoNER scripts' layouts need beyond the counts
    (:mod:`annoscore.report.pharmaconer`): the sub-track (1: NER, 2: indexing), the run's name
    (the name of the folder holding the system files) and whether two files were scored
    (file mode: per-document blocks only)."""

    subtrack: int
    run: str
    file_mode: bool
