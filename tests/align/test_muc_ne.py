"""NeAligner's isolated-pair paths pinned to the general greedy path on random data.

The fast paths (runs of overlapping responses found by bisection; isolated pairs seen before
reusing their record; isolated pairs not seen before composed from their slots' records) must
give the records, counts and pairs scored of ``MucAligner`` scoring every overlapping pair
(``shared_slots`` off), including nested tags, empty spans and pairs below a threshold.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import pairwise

import pytest

from annoscore.align.muc_ne import NeAligner, _overlap_runs, overlapping_partners
from annoscore.formats.muc_sgml_objects import SharedSlots
from annoscore.metrics.muc_ne import ne_document_counts
from annoscore.model import TemplateObject
from annoscore.tasks.muc import load_config
from annoscore.tasks.muc_sgml import section_groups, subtasks_of
from tests.muc_random import NeReader, nested_ne_files, without_lines


@pytest.mark.parametrize("seed", range(12))
def test_isolated_pair_paths_equal_the_general_path(seed: int) -> None:
    rng = random.Random(seed)
    config = load_config(None, "ne")
    if seed % 3 == 2:  # a threshold some overlapping pairs do not exceed
        config = replace(
            config, class_defs=tuple(replace(c, threshold=60.0) for c in config.class_defs)
        )
    reader = NeReader(config)
    key_text, rsp_text = nested_ne_files(
        rng, types={"ENAMEX": ("PERSON", "LOCATION"), "TIMEX": ("DATE",), "NUMEX": ("MONEY",)}
    )
    documents = reader.documents(key_text, rsp_text, ("TXT",))
    shared = SharedSlots()
    fast, plain = NeAligner(config), NeAligner(config)
    plain.shared_slots = False  # the general path of MucAligner
    subtasks, groups = subtasks_of(config), section_groups(config)
    for _ in range(2):  # the second time, every isolated pair was seen before
        for key, rsp in documents:
            k1, r1, k2, r2 = reader.shared_and_plain(key, rsp, shared)
            a = fast.align(key.number, k1, r1)
            b = plain.align(key.number, k2, r2)
            assert without_lines(a) == without_lines(b)
            ours = ne_document_counts(a, subtasks, groups)
            assert list(ours.items()) == list(ne_document_counts(b, subtasks, groups).items())
    assert fast.pairs_scored == plain.pairs_scored


@pytest.mark.parametrize("seed", range(30))
def test_overlap_runs_are_the_overlapping_partners(seed: int) -> None:
    rng = random.Random(seed)

    def tags(n: int) -> list[TemplateObject]:
        out = []
        start = 0
        for _ in range(n):  # starts and ends that never decrease (some spans empty)
            start += rng.randint(0, 4)
            end = start + rng.randint(0, 3)
            out.append(TemplateObject("X", "enamex", "1", "1", (), start=start, end=end))
            start = end if rng.random() < 0.8 else start
        return out

    keys, rsps = tags(rng.randint(1, 12)), tags(rng.randint(1, 12))
    runs = _overlap_runs(keys, rsps)
    if any(a.end > b.end for a, b in pairwise(rsps)) or any(
        a.end > b.end for a, b in pairwise(keys)
    ):
        assert runs is None
        return
    assert runs is not None
    lows, highs = runs
    assert [list(range(low, high)) for low, high in zip(lows, highs, strict=True)] == (
        overlapping_partners(keys, rsps)
    )


def test_overlap_runs_leave_nested_or_placeless_tags_to_the_sweep() -> None:
    def tag(start: int, end: int) -> TemplateObject:
        return TemplateObject("X", "enamex", "1", "1", (), start=start, end=end)

    assert _overlap_runs([tag(0, 9), tag(2, 4)], [tag(0, 1)]) is None  # nested keys
    assert _overlap_runs([tag(0, 1)], [tag(-1, -1)]) is None  # no place in the text
    assert _overlap_runs([tag(0, 5), tag(5, 5)], [tag(4, 6)]) == ([0, 0], [1, 1])
