"""MUC named entity alignment: the template alignment, restricted to tags at the same place.

The manual ("Named Entity (NE) Task Scoring"): NE is scored like the template element task,
"except that the objects which are aligned must come from SGML elements in the same position of
the original text file".  So :class:`NeAligner` is :class:`~annoscore.align.muc.MucAligner`
(same pair F, same weighted threshold, same greedy order, same tallies) whose candidate pairs are
the key and response objects of a class whose spans *overlap*: half-open spans, touching spans do
not overlap (../shared/spec/muc.md, decision 6).  An overlapping pair that agrees in nothing has
weighted score 0 and does not align (decision 15a): the key tallies MIS, the response SPU.

Candidates are found by a sweep over the responses sorted by start (bisection), so the work per
document is about linear in its tags (quadratic only if every tag overlaps every other).

>>> from annoscore.model import TemplateObject
>>> def tag(start: int, end: int) -> TemplateObject:
...     return TemplateObject("X", "enamex", "1", "1", (), start=start, end=end)
>>> overlapping_partners([tag(0, 5), tag(10, 12)], [tag(5, 8), tag(3, 11), tag(11, 20)])
[[1], [1, 2]]
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from annoscore.align.muc import MucAligner
from annoscore.formats.muc_config import MucConfig
from annoscore.model import TemplateObject


def overlapping_partners(
    keys: Sequence[TemplateObject], rsps: Sequence[TemplateObject]
) -> list[list[int]]:
    """For each key object, the response objects (ascending index) whose span overlaps it (an
    object without a place in the text counts as the empty span at 0)."""
    bounds = [(r.start, r.end) if r.start >= 0 else (0, 0) for r in rsps]
    order = sorted(range(len(rsps)), key=bounds.__getitem__)
    starts = [bounds[j][0] for j in order]
    longest = max((end - start for start, end in bounds), default=0)
    out: list[list[int]] = []
    left, right = bisect.bisect_right, bisect.bisect_left
    for key in keys:
        start, end = (key.start, key.end) if key.start >= 0 else (0, 0)
        found = []
        for position in range(left(starts, start - longest), right(starts, end)):
            j = order[position]  # earlier starts end by `start`: skipped by the bisection
            r_start, r_end = bounds[j]
            if r_end > start and r_start < end:
                found.append(j)
        if len(found) > 1:
            found.sort()
        out.append(found)
    return out


class NeAligner(MucAligner):
    """:class:`MucAligner` whose candidate pairs overlap in the text (see the module doc)."""

    def __init__(self, config: MucConfig) -> None:
        super().__init__(config, prune=False)
        self.shared_slots = True  # ne_objects shares equal TYPE and TEXT slots

    def _partners(
        self,
        keys: Sequence[TemplateObject],
        rsps: Sequence[TemplateObject],
        prune: bool,
        key_tokens: Sequence[list[list[str]] | None],
        rsp_tokens: Sequence[list[list[str]] | None],
    ) -> Sequence[Sequence[int]]:
        return overlapping_partners(keys, rsps)
