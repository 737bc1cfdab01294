"""The span matching choices, listed once (numpy-free, so the command line can offer them
without importing the matching code).

- :data:`MODES`: how a gold and a predicted mention match (see :mod:`annoscore.align.spans`);
  :data:`CORPUS_MODES` adds ``semeval`` (the four SemEval-2013 schemes at once).
- :data:`SCHEMES`: the SemEval-2013 schemes.
- :data:`OVERLAP_BASES`: what ``min_overlap`` is a fraction of.
- :data:`DUPLICATE_POLICIES`: identical mentions each scored, or collapsed to one.
- :class:`MatchOptions`: the parameters of the modes (``min_overlap``, ``overlap_basis``,
  ``tolerance``); :data:`MatchKind`: the matchings of one document (a mode, or one SemEval
  scheme).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SpanMode = Literal["strict", "exact", "overlap", "relaxed", "token"]
CorpusMode = Literal["strict", "exact", "overlap", "relaxed", "token", "semeval"]
SemevalScheme = Literal["strict", "exact", "partial", "type"]
OverlapBasis = Literal["gold", "predicted", "shorter", "longer", "union"]
Duplicates = Literal["count", "collapse"]

MODES: tuple[SpanMode, ...] = ("strict", "exact", "overlap", "relaxed", "token")
CORPUS_MODES: tuple[CorpusMode, ...] = (*MODES, "semeval")
SCHEMES: tuple[SemevalScheme, ...] = ("strict", "exact", "partial", "type")
OVERLAP_BASES: tuple[OverlapBasis, ...] = ("gold", "predicted", "shorter", "longer", "union")
DUPLICATE_POLICIES: tuple[Duplicates, ...] = ("count", "collapse")

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
    overlap_basis: OverlapBasis = "gold"
    tolerance: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be a fraction in [0, 1], not {self.min_overlap}")
        if self.overlap_basis not in OVERLAP_BASES:
            raise ValueError(
                f"overlap_basis must be one of {', '.join(OVERLAP_BASES)}, "
                f"not {self.overlap_basis!r}"
            )
        if self.tolerance < 0:
            raise ValueError(f"tolerance must be >= 0, not {self.tolerance}")
