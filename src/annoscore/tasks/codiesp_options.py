"""CodiEsp's options (official defaults) and the counts under a given setting of them.

:func:`rank` and :func:`match` are the counting step of :mod:`annoscore.tasks.codiesp` with the
options spelled out; the warnings (:mod:`annoscore.tasks.codiesp_warnings`) call them again
with one option flipped to say what the number would be without a quirk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from annoscore.align.codes import RankedCodes
from annoscore.align.documents import MissingDocs
from annoscore.align.references import match_code_references
from annoscore.counts import Counts
from annoscore.metrics.ranked_codes import RankedCodeStats, code_order, rank_codes
from annoscore.model import CodeReference

OFFICIAL_DEPTH = 1000


class ToleranceMode(str, Enum):
    contain = "contain"
    symmetric = "symmetric"


class TieOrder(str, Enum):
    """How the MAP script's trectools orders a document's predictions (all have score 10).

    ``file``: line order (trectools 0.0.42, the version the official script pins: the official
    number); ``code``: by code, alphabetically (trectools 0.0.50 breaks the tie by document id,
    which gives other MAPs on the same files).
    """

    file = "file"
    code = "code"


@dataclass(frozen=True, slots=True)
class RankedOptions:
    """The settings of CodiEsp D/P that move a number (official defaults)."""

    missing_docs: MissingDocs = MissingDocs.ignore
    """A gold document with no valid prediction: left out of MAP (official) or AP 0 (zero)."""
    extra_docs: MissingDocs = MissingDocs.zero
    """A predicted document absent from the gold: AP 0 in MAP (official) or left out."""
    filter_gold: bool = False
    depth: int | None = OFFICIAL_DEPTH
    lowercase: bool = True
    tie_order: TieOrder = TieOrder.file
    """The rank of tied predictions in MAP: file order (trectools 0.0.42, official) or code."""


@dataclass(frozen=True, slots=True)
class ExplainableOptions:
    """The settings of CodiEsp X that move a number (official defaults)."""

    tolerance: int = 10
    tolerance_mode: ToleranceMode = ToleranceMode.contain
    check_label: bool = False
    filter_gold: bool = False
    lowercase: bool = True


def rank(data: RankedCodes, options: RankedOptions, vocabulary: list[str]) -> RankedCodeStats:
    """:func:`annoscore.metrics.ranked_codes.rank_codes` under ``options`` (``vocabulary``: the
    codes that ``data``'s code ids index, for ``--tie-order code``)."""
    code_rank = code_order(vocabulary) if options.tie_order is TieOrder.code else None
    return rank_codes(
        data,
        depth=options.depth,
        filter_gold=options.filter_gold,
        count_extra_docs=options.extra_docs.rule == "empty",
        count_missing_docs=options.missing_docs.rule == "empty",
        code_rank=code_rank,
    )


def match(
    gold: Sequence[CodeReference],
    pred: Sequence[CodeReference],
    valid: frozenset[str],
    options: ExplainableOptions,
) -> dict[str, Counts]:
    """Per document ``tp``, ``fp``, ``fn`` of X under ``options``: ``pred`` are the valid
    predictions; with ``filter_gold`` gold references whose code is not valid are dropped."""
    return match_code_references(
        [g for g in gold if g.code in valid] if options.filter_gold else gold,
        pred,
        tolerance=options.tolerance,
        mode=options.tolerance_mode.value,
        check_label=options.check_label,
    )
