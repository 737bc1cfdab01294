"""NeAligner's isolated-pair paths pinned to the general greedy path on random data.

The fast paths (isolated pairs seen before reusing their record; isolated pairs not seen before
composed from their slots' records) must give the records, counts and pairs scored of
``MucAligner`` scoring every overlapping pair (``shared_slots`` off), including nested tags, empty
spans and pairs below a threshold; the sweep that finds the overlapping pairs must find the pairs
of the definition.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from annoscore.align.muc_ne import NeAligner, overlapping_partners
from annoscore.formats.muc_sgml_objects import SharedSlots
from annoscore.metrics.muc_ne import ne_document_counts
from annoscore.tasks.muc import load_config
from annoscore.tasks.muc_sgml import section_groups, subtasks_of
from annoscore.templates import TemplateObject
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


@pytest.mark.parametrize("seed", range(60))
def test_overlapping_partners_are_the_pairs_that_overlap(seed: int) -> None:
    """The sweep finds exactly the pairs ``a < e and s < b`` (half-open spans; an object with
    no place counts as the empty span at 0): nested, empty, equal and touching spans."""
    rng = random.Random(seed)

    def tags(n: int) -> list[TemplateObject]:
        out = []
        for _ in range(n):
            start = rng.randint(-1, 12) if rng.random() < 0.9 else -1
            end = start + rng.choice([0, 0, 1, 2, 3, 8]) if start >= 0 else -1
            out.append(TemplateObject("X", "enamex", "1", "1", (), start=start, end=end))
        return out

    keys, rsps = tags(rng.randint(0, 15)), tags(rng.randint(0, 15))

    def place(obj: TemplateObject) -> tuple[int, int]:
        return (obj.start, obj.end) if obj.start >= 0 else (0, 0)

    expected = [
        [j for j, r in enumerate(rsps) if place(r)[0] < place(k)[1] and place(k)[0] < place(r)[1]]
        for k in keys
    ]
    assert overlapping_partners(keys, rsps) == expected
    total = sum(map(len, expected))
    assert overlapping_partners(keys, rsps, total) == expected
    if total:
        assert overlapping_partners(keys, rsps, total - 1) is None
