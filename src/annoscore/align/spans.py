"""Which gold span goes with which predicted span: the matching modes of generic span scoring,
and their alignment of one document's mentions.

The rules are stated here once and applied in two places that give the same answer (the
differential tests of ``tests/equivalence/test_spans.py`` hold both to a plain reference):

- one document's :class:`~annoscore.model.Mention` objects (:func:`align_mentions`,
  :func:`token_units`): a document with a discontinuous mention, or offsets too large for the
  packed keys of the arrays;
- the continuous mentions of a whole corpus as NumPy columns: candidate pairs and their
  matching (:mod:`annoscore.align.span_arrays`), whitespace tokens
  (:mod:`annoscore.align.span_tokens`) and dense clusters of mutually overlapping spans
  (:mod:`annoscore.align.span_dense`).

Modes (``mode``)
----------------
``strict``   same fragments and same type.
``exact``    same fragments, any type.
``overlap``  same type, at least one shared character, and ``shared / basis >= min_overlap``.
``relaxed``  same type, ``|start_g - start_p| <= tolerance`` and ``|end_g - end_p| <= tolerance``
             (overall start and end: a discontinuous span is compared by its outer bounds; the
             spans need not overlap).
``token``    each mention becomes the whitespace tokens of the text it touches (see
             :func:`token_units`); a token of a type counts once per document.
SemEval-2013 (``semeval_strict`` ... ``semeval_type``): candidate pairs are pairs of any type with
an overlap as in ``overlap`` mode; see :func:`pair_credit` for what each scheme rewards.

Overlap fraction (``min_overlap``, ``overlap_basis``)
-----------------------------------------------------
``shared`` is the number of characters both spans cover (``Span.overlap``; gaps of a
discontinuous span cover nothing).  The fraction is ``shared`` divided by the ``basis``: the gold
span's length (``gold``, the default, as nervaluate does), the predicted span's (``predicted``),
the shorter or longer of the two, or the union (``union``: the Jaccard index).  A pair that
shares no character is never a candidate, whatever ``min_overlap``, except identical spans
(which matters only for zero-length spans), whose fraction is 1.

One-to-one, optimal, order-invariant
------------------------------------
Among the candidate pairs of a document, a one-to-one matching is chosen that maximises, in this
order: the credit of the pairs (only the SemEval schemes give credit, see :func:`pair_credit`),
then the number of pairs, then the sum of their *closeness* (the overlap fraction, or
``1 / (1 + |start diff| + |end diff|)`` in relaxed mode).  This is one maximum-weight matching
with the weight ``n(n+1) * credit + n + closeness`` where ``n = max(#gold, #predicted) + 1`` in the
document (:func:`pair_weight`): the terms cannot trade against each other.  Mentions are put in
canonical order (start, end, fragments, type) first and the remaining ties are broken by that
order (:func:`~annoscore.align.assignment.max_weight_matching`), so the result never depends on
the input order.  In ``strict`` and ``exact`` mode the candidates of a group of identical spans
form a complete bipartite graph and the matching is given in closed form: same-type pairs first,
then the leftover gold and predicted mentions of the group in canonical (type) order.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annoscore.align.assignment import max_weight_matching
from annoscore.align.span_modes import MatchKind, MatchOptions, OverlapBasis
from annoscore.model import Mention, Span

__all__ = [
    "WHITESPACE_CODEPOINTS",
    "Alignment",
    "MatchKind",
    "MatchOptions",
    "align_mentions",
    "canonical",
    "canonical_key",
    "overlap_fraction",
    "pair_credit",
    "pair_weight",
    "relaxed_closeness",
    "token_units",
    "whitespace_tokens",
]

WHITESPACE_CODEPOINTS: tuple[int, ...] = (
    *range(0x09, 0x0E),
    *range(0x1C, 0x21),
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
)
"""The characters ``str.isspace()`` (and so ``str.split()``) treats as whitespace."""

_TOKEN = re.compile(r"\S+")


def canonical_key(mention: Mention) -> tuple[int, int, tuple[tuple[int, int], ...], str]:
    """The canonical order of mentions: start, end, fragments, type."""
    span = mention.span
    return (span.start, span.end, span.fragments, mention.type)


def canonical(mentions: Iterable[Mention]) -> tuple[Mention, ...]:
    """``mentions`` in canonical order (the order ties are broken in)."""
    return tuple(sorted(mentions, key=canonical_key))


def _basis_length(gold: int, pred: int, shared: int, basis: OverlapBasis) -> int:
    if basis == "gold":
        return gold
    if basis == "predicted":
        return pred
    if basis == "shorter":
        return min(gold, pred)
    if basis == "longer":
        return max(gold, pred)
    return gold + pred - shared


def overlap_fraction(gold: Span, pred: Span, basis: OverlapBasis = OverlapBasis.gold) -> float:
    """``shared / basis`` (see the module doc); 1.0 for identical spans, 0.0 if none shared."""
    if gold.fragments == pred.fragments:
        return 1.0
    shared = gold.overlap(pred)
    if shared == 0:
        return 0.0
    return shared / _basis_length(gold.length, pred.length, shared, basis)


def relaxed_closeness(gold: Span, pred: Span) -> float:
    """``1 / (1 + |start diff| + |end diff|)``: 1.0 for the same bounds."""
    return 1 / (1 + abs(gold.start - pred.start) + abs(gold.end - pred.end))


def pair_credit(kind: MatchKind, same_bounds: bool, same_type: bool) -> int:
    """Credit of a candidate pair, in half points (0, 1 or 2), for the SemEval schemes.

    ============  ====================================  =====================================
    scheme        COR (credit 2)                        otherwise
    ============  ====================================  =====================================
    strict        same fragments and same type          INC (0)
    exact         same fragments, any type              INC (0)
    partial       same fragments, any type              PAR (1: half credit)
    type          same type (the pair overlaps)         INC (0)
    ============  ====================================  =====================================

    The tp/fp/fn modes give no credit (0): only the number of pairs and closeness count.
    """
    if kind == "semeval_strict":
        return 2 if same_bounds and same_type else 0
    if kind == "semeval_exact":
        return 2 if same_bounds else 0
    if kind == "semeval_partial":
        return 2 if same_bounds else 1
    if kind == "semeval_type":
        return 2 if same_type else 0
    return 0


def pair_weight(credit: int, closeness: float, n: int) -> float:
    """``n(n+1) * credit + n + closeness``: credit first, then the number of pairs, then closeness.

    With ``n = max(#gold, #predicted) + 1`` a matching has at most ``n - 1`` pairs, so the sum of
    the ``n + closeness`` terms stays below ``n(n+1)`` and the sum of closeness below ``n``.
    """
    return n * (n + 1) * credit + n + closeness


@dataclass(frozen=True, slots=True)
class Alignment:
    """The matched pairs of one document: indices into ``gold`` and ``pred`` (canonical order)."""

    gold: tuple[Mention, ...]
    pred: tuple[Mention, ...]
    pairs: tuple[tuple[int, int], ...]

    def unmatched_gold(self) -> list[Mention]:
        matched = {i for i, _ in self.pairs}
        return [m for i, m in enumerate(self.gold) if i not in matched]

    def unmatched_pred(self) -> list[Mention]:
        matched = {j for _, j in self.pairs}
        return [m for j, m in enumerate(self.pred) if j not in matched]


def _closed_form_pairs(
    gold: Sequence[Mention], pred: Sequence[Mention], typed: bool
) -> list[tuple[int, int]]:
    """strict/exact: pair identical spans, same type first, then leftovers in canonical order."""
    gold_groups: dict[tuple[tuple[int, int], ...], list[int]] = defaultdict(list)
    pred_groups: dict[tuple[tuple[int, int], ...], list[int]] = defaultdict(list)
    for i, m in enumerate(gold):
        gold_groups[m.span.fragments].append(i)
    for j, m in enumerate(pred):
        pred_groups[m.span.fragments].append(j)
    pairs: list[tuple[int, int]] = []
    for fragments, gold_ids in gold_groups.items():
        pred_ids = pred_groups.get(fragments, [])
        free_gold: list[int] = []
        free_pred = list(pred_ids)
        for i in gold_ids:  # canonical order: by type
            partner = next((j for j in free_pred if pred[j].type == gold[i].type), None)
            if partner is None:
                free_gold.append(i)
            else:
                free_pred.remove(partner)
                pairs.append((i, partner))
        if not typed:
            pairs.extend(zip(free_gold, free_pred, strict=False))
    return sorted(pairs)


def align_mentions(
    gold: Iterable[Mention],
    pred: Iterable[Mention],
    kind: MatchKind,
    options: MatchOptions | None = None,
) -> Alignment:
    """Align one document's gold and predicted mentions (see the module doc for ``kind``)."""
    options = options or MatchOptions()
    gold_c = canonical(gold)
    pred_c = canonical(pred)
    if kind in ("strict", "exact"):
        return Alignment(
            gold_c, pred_c, tuple(_closed_form_pairs(gold_c, pred_c, kind == "strict"))
        )
    n = max(len(gold_c), len(pred_c)) + 1
    edges: list[tuple[int, int, float]] = []
    for i, g in enumerate(gold_c):
        for j, p in enumerate(pred_c):
            same_type = g.type == p.type
            if kind in ("overlap", "relaxed") and not same_type:
                continue
            if kind == "relaxed":
                tol = options.tolerance
                if abs(g.span.start - p.span.start) > tol or abs(g.span.end - p.span.end) > tol:
                    continue
                closeness = relaxed_closeness(g.span, p.span)
            else:
                closeness = overlap_fraction(g.span, p.span, options.overlap_basis)
                if closeness == 0.0 or closeness < options.min_overlap:
                    continue
            credit = pair_credit(kind, g.span.fragments == p.span.fragments, same_type)
            edges.append((i, j, pair_weight(credit, closeness, n)))
    return Alignment(gold_c, pred_c, tuple(max_weight_matching(edges)))


def whitespace_tokens(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of every maximal run of non-whitespace characters (``str.split``)."""
    return [m.span() for m in _TOKEN.finditer(text)]


def token_units(
    mentions: Iterable[Mention], text: str, tokens: Sequence[tuple[int, int]] | None = None
) -> set[tuple[int, int, str]]:
    """The typed tokens ``(start, end, type)`` the mentions touch.

    A token belongs to a mention when they share at least one character (a fragment that cuts a
    token in half claims the whole token; a zero-length fragment claims nothing); text beyond
    the end of the document is ignored.
    Several mentions of one type touching a token give one unit (the characters each type
    covers are merged first, so overlapping mentions cost no more than the tokens they cover).
    """
    tokens = whitespace_tokens(text) if tokens is None else tokens
    starts = [s for s, _ in tokens]
    ends = [e for _, e in tokens]
    by_type: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for mention in mentions:
        by_type[mention.type].extend((s, e) for s, e in mention.span.fragments if s < e)
    units: set[tuple[int, int, str]] = set()
    for type_name, fragments in by_type.items():
        fragments.sort()
        merged: list[list[int]] = []  # the characters the type covers, as disjoint runs
        for start, end in fragments:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        for start, end in merged:
            first = bisect.bisect_right(ends, start)
            last = bisect.bisect_left(starts, end)
            for k in range(first, last):
                units.add((starts[k], ends[k], type_name))
    return units
