"""CodiEsp-X: does a predicted text position support a gold reference of the same code?

Positions are ``[start, end]`` character offsets; a discontinuous reference is read as its first
start to its last end before it gets here.  Two tolerance modes, ``tolerance`` characters each:

- ``contain`` (the official rule): the prediction must contain the gold reference and may
  overhang it by at most ``tolerance`` characters on each side::

      0 <= gold_start - pred_start <= tolerance  and  0 <= pred_end - gold_end <= tolerance

  so a prediction that starts 1 character late, or ends 1 character early, fails.
- ``symmetric``: each boundary may be off by at most ``tolerance`` in either direction::

      |gold_start - pred_start| <= tolerance  and  |pred_end - gold_end| <= tolerance

A (document, code) pair is found when **any** predicted position matches **any** of its gold
references ("one reference is enough"); matching is therefore a yes/no per pair and does not
depend on the order of the references or positions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import Enum

from annoscore.code_lists import CodeReference
from annoscore.counts import Counts


class ToleranceMode(str, Enum):
    """How a predicted position may differ from a gold reference (see the module doc)."""

    contain = "contain"
    symmetric = "symmetric"


def position_matches(
    gold: tuple[int, int],
    pred: tuple[int, int],
    tolerance: int = 10,
    mode: ToleranceMode = ToleranceMode.contain,
) -> bool:
    """Whether ``pred`` matches ``gold`` under the tolerance rule.

    >>> position_matches((1560, 1572), (1550, 1582))  # overhang 10 on both sides
    True
    >>> position_matches((10, 20), (11, 20))  # starts 1 late
    False
    >>> position_matches((10, 20), (11, 20), mode=ToleranceMode.symmetric)
    True
    """
    start_gap = gold[0] - pred[0]
    end_gap = pred[1] - gold[1]
    if mode == ToleranceMode.contain:
        return 0 <= start_gap <= tolerance and 0 <= end_gap <= tolerance
    if mode == ToleranceMode.symmetric:
        return abs(start_gap) <= tolerance and abs(end_gap) <= tolerance
    raise ValueError(f"unknown tolerance mode {mode!r}; expected one of contain, symmetric")


def match_code_references(
    gold: Iterable[CodeReference],
    pred: Iterable[CodeReference],
    *,
    tolerance: int,
    mode: ToleranceMode,
    check_label: bool,
) -> dict[str, Counts]:
    """Per document: ``tp``, ``fp``, ``fn`` over distinct (document, code) pairs.

    A pair is a true positive when any predicted position of that code matches any gold
    reference of it (:func:`position_matches`: "one reference is enough"); with
    ``check_label`` only positions with the reference's label count.  Documents appear in
    first-seen order, gold first.
    """
    references: dict[tuple[str, str], list[CodeReference]] = {}
    for ref in gold:
        references.setdefault((ref.document, ref.code), []).append(ref)
    positions: dict[tuple[str, str], list[CodeReference]] = {}
    for ref in pred:
        positions.setdefault((ref.document, ref.code), []).append(ref)
    gold_count = Counter(doc for doc, _ in references)
    predicted = Counter(doc for doc, _ in positions)
    tp: Counter[str] = Counter()
    for key, preds in positions.items():
        tp[key[0]] += any(
            position_matches((g.start, g.end), (p.start, p.end), tolerance, mode)
            for g in references.get(key, ())
            for p in preds
            if not check_label or p.label == g.label
        )
    out: dict[str, Counts] = {}
    for doc in dict.fromkeys([*gold_count, *predicted]):
        t = tp.get(doc, 0)
        out[doc] = Counts(tp=t, fp=predicted.get(doc, 0) - t, fn=gold_count.get(doc, 0) - t)
    return out
