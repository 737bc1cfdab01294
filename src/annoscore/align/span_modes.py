"""The span matching choices, listed once (numpy-free, so the command line can offer them
without importing the matching code).

- :data:`MODES`: how a gold and a predicted mention match (see :mod:`annoscore.align.spans`);
  :data:`CORPUS_MODES` adds ``semeval`` (the four SemEval-2013 schemes at once).
- :data:`SCHEMES`: the SemEval-2013 schemes.
- :data:`OVERLAP_BASES`: what ``min_overlap`` is a fraction of.
- :data:`DUPLICATE_POLICIES`: identical mentions each scored, or collapsed to one.
"""

from __future__ import annotations

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
