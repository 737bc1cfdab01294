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

from collections.abc import Iterable
from enum import Enum

from annoscore.counts import Counts
from annoscore.model import CodeReference


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


def any_position_matches(
    gold: Iterable[tuple[int, int]],
    pred: Iterable[tuple[int, int]],
    tolerance: int = 10,
    mode: ToleranceMode = ToleranceMode.contain,
) -> bool:
    """Whether some predicted position matches some gold reference ("one is enough")."""
    pred = list(pred)
    return any(position_matches(g, p, tolerance, mode) for g in gold for p in pred)


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
    reference of it (:func:`any_position_matches`); with ``check_label`` only positions with
    the reference's label count.  Documents appear in first-seen order, gold first.
    """
    references: dict[tuple[str, str], list[CodeReference]] = {}
    for ref in gold:
        references.setdefault((ref.document, ref.code), []).append(ref)
    positions: dict[tuple[str, str], list[CodeReference]] = {}
    for ref in pred:
        positions.setdefault((ref.document, ref.code), []).append(ref)
    tp: dict[str, int] = {}
    predicted: dict[str, int] = {}
    gold_count: dict[str, int] = {}
    for doc, _ in references:
        gold_count[doc] = gold_count.get(doc, 0) + 1
    for key, preds in positions.items():
        doc = key[0]
        predicted[doc] = predicted.get(doc, 0) + 1
        refs = references.get(key)
        if not refs:
            continue
        if check_label:
            found = any(
                any_position_matches(
                    [(g.start, g.end)],
                    [(p.start, p.end) for p in preds if p.label == g.label],
                    tolerance,
                    mode,
                )
                for g in refs
            )
        else:
            found = any_position_matches(
                [(g.start, g.end) for g in refs], [(p.start, p.end) for p in preds], tolerance, mode
            )
        tp[doc] = tp.get(doc, 0) + int(found)
    out: dict[str, Counts] = {}
    for doc in dict.fromkeys([*gold_count, *predicted]):
        t = tp.get(doc, 0)
        out[doc] = Counts(tp=t, fp=predicted.get(doc, 0) - t, fn=gold_count.get(doc, 0) - t)
    return out
