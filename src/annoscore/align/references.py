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

TOLERANCE_MODES = ("contain", "symmetric")


def position_matches(
    gold: tuple[int, int], pred: tuple[int, int], tolerance: int = 10, mode: str = "contain"
) -> bool:
    """Whether ``pred`` matches ``gold`` under the tolerance rule.

    >>> position_matches((1560, 1572), (1550, 1582))  # overhang 10 on both sides
    True
    >>> position_matches((10, 20), (11, 20))  # starts 1 late
    False
    >>> position_matches((10, 20), (11, 20), mode="symmetric")
    True
    """
    start_gap = gold[0] - pred[0]
    end_gap = pred[1] - gold[1]
    if mode == "contain":
        return 0 <= start_gap <= tolerance and 0 <= end_gap <= tolerance
    if mode == "symmetric":
        return abs(start_gap) <= tolerance and abs(end_gap) <= tolerance
    raise ValueError(f"unknown tolerance mode {mode!r}; expected one of {TOLERANCE_MODES}")


def any_position_matches(
    gold: Iterable[tuple[int, int]],
    pred: Iterable[tuple[int, int]],
    tolerance: int = 10,
    mode: str = "contain",
) -> bool:
    """Whether some predicted position matches some gold reference ("one is enough")."""
    pred = list(pred)
    return any(position_matches(g, p, tolerance, mode) for g in gold for p in pred)
