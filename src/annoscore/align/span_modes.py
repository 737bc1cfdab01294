"""The span matching choices, each one enum declared once (numpy-free, so the command line can
offer them without importing the matching code); a preset offers all of a choice's members or a
subset of them (PharmaCoNER: four of the modes).

- :class:`SpanMode`: how a gold and a predicted mention match (see :mod:`annoscore.align.spans`);
  ``semeval`` scores the four SemEval-2013 schemes (:data:`SCHEMES`) at once.
- :class:`OverlapBasis`: what ``min_overlap`` is a fraction of.
- :class:`Duplicates`: identical mentions each scored, or collapsed to one.
- :class:`MatchOptions`: the parameters of the modes (``min_overlap``, ``overlap_basis``,
  ``tolerance``), and :data:`READ_BY` the modes that read each; :data:`MatchKind`: the
  matchings of one document (a mode, or one SemEval scheme).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Literal

from annoscore.errors import InputError
from annoscore.options import fields


class SpanMode(StrEnum):
    """How spans match (:mod:`annoscore.align.spans`; ``token`` needs the text)."""

    strict = "strict"
    exact = "exact"
    overlap = "overlap"
    relaxed = "relaxed"
    token = "token"
    semeval = "semeval"
    concepts = "concepts"


class OverlapBasis(StrEnum):
    """What ``min_overlap`` is a fraction of: the gold span's length, the predicted one's, the
    shorter, the longer, or their union (the Jaccard index)."""

    gold = "gold"
    predicted = "predicted"
    shorter = "shorter"
    longer = "longer"
    union = "union"


class Duplicates(Enum):
    """Identical mentions (same fragments and type, same side, same document): each counted on
    its own (``count``), or collapsed to one (``collapse``: set semantics).  A plain enum: a
    ``str`` has a ``count`` method."""

    count = "count"
    collapse = "collapse"


SCHEMES = ("strict", "exact", "partial", "type")
"""The SemEval-2013 schemes :data:`SpanMode.semeval` scores."""

MatchKind = Literal[
    "strict",
    "exact",
    "overlap",
    "relaxed",
    "semeval_strict",
    "semeval_exact",
    "semeval_partial",
    "semeval_type",
]


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """The parameters of the matching modes (see the module doc for their meaning).

    ``min_overlap`` is a fraction in [0, 1] of the ``overlap_basis`` length; ``tolerance`` is the
    number of characters start and end may each be off in relaxed mode.
    """

    min_overlap: float = 0.0
    overlap_basis: OverlapBasis = OverlapBasis.gold
    tolerance: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be a fraction in [0, 1], not {self.min_overlap}")
        if self.overlap_basis not in tuple(OverlapBasis):
            raise ValueError(
                f"overlap_basis must be one of {', '.join(OverlapBasis)}, "
                f"not {self.overlap_basis!r}"
            )
        object.__setattr__(self, "overlap_basis", OverlapBasis(self.overlap_basis))
        if self.tolerance < 0:
            raise ValueError(f"tolerance must be >= 0, not {self.tolerance}")


READ_BY: dict[str, tuple[SpanMode, ...]] = {
    "min_overlap": (SpanMode.overlap, SpanMode.semeval),
    "overlap_basis": (SpanMode.overlap, SpanMode.semeval),
    "tolerance": (SpanMode.relaxed,),
}
"""The modes that read each parameter of :class:`MatchOptions` (the others ignore it)."""


def match_options(options: Any) -> MatchOptions:
    """The matching parameters of a task's options (``mode``, ``min_overlap``,
    ``overlap_basis``, ``tolerance``: :class:`~annoscore.options.TaskOptions` fields, an
    option or a constant), checked against the mode: a parameter given another value than its
    default in a mode that does not read it is an :class:`~annoscore.errors.InputError` (it
    would be silently ignored), as is a tolerance beyond any text."""
    from annoscore.formats.brat import MAX_OFFSET

    match = MatchOptions(options.min_overlap, options.overlap_basis, options.tolerance)
    declared = {f.name: f for f in fields(type(options))}
    offered = declared["mode"].choices
    for name, modes in READ_BY.items():
        spec = declared[name]
        if getattr(match, name) != spec.default and options.mode not in modes:
            flag = (spec.setting.flags or (spec.flag,))[0]
            where = " and ".join(m.value for m in modes if m.value in offered)
            raise InputError(f"{flag} has no effect with --mode {options.mode} (only with {where})")
    if match.tolerance > MAX_OFFSET:
        raise InputError(f"--tolerance {match.tolerance} is beyond any text (above 2^53)")
    return match
