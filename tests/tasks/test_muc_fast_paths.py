"""The MUC SGML tasks' fast paths pinned to the plain paths on random data.

- ``ne_objects(..., shared_slots=...)`` / ``coref_objects(..., shared_slots=...)``: equal slots
  are one object across the corpus; the objects must equal those built per document (lines
  aside: a shared slot keeps its first tag's line).
- ``NeAligner`` remembers each shared slot's codes (``shared_slots``); the alignment records
  must equal the aligner's without the memory.
- The map history writer writes each distinct one-fill slot once; its text must equal
  :func:`to_tcl` of the :func:`map_history` mappings.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.align.muc_ne import NeAligner
from annoscore.formats.muc_sgml import SgmlMarkup, parse_sgml
from annoscore.formats.muc_sgml_objects import SharedSlots, coref_objects
from annoscore.metrics.muc import MucDetails
from annoscore.metrics.muc_ne import ne_document_counts
from annoscore.report.muc_history import map_history, map_history_tcl
from annoscore.tasks.muc import score_muc_coreference
from annoscore.tasks.muc_sgml import section_groups, subtasks_of
from tests.muc_random import NeReader, NeShape, ne_files, nested_ne_files, without_lines
from tests.oracles.tcl import to_tcl


@pytest.mark.parametrize("seed", range(8))
def test_shared_slots_and_remembered_codes_change_nothing(seed: int) -> None:
    rng = random.Random(seed)
    reader = NeReader()
    config = reader.config
    key_text, rsp_text = ne_files(rng, NeShape(optional=0.15, alternatives=0.2))
    shared = SharedSlots()
    fast, plain = NeAligner(config), NeAligner(config)
    plain.shared_slots = False
    fast_docs, plain_docs = [], []
    for key, rsp in reader.documents(key_text, rsp_text, ("HL", "TXT")):
        k1, r1, k2, r2 = reader.shared_and_plain(key, rsp, shared)
        assert without_lines(k1) == without_lines(k2)
        assert without_lines(r1) == without_lines(r2)
        fast_docs.append(fast.align(key.number, k1, r1))
        plain_docs.append(plain.align(key.number, k2, r2))
    subtasks, groups = subtasks_of(config), section_groups(config)
    for a, b in zip(fast_docs, plain_docs, strict=True):
        assert ne_document_counts(a, subtasks, groups) == ne_document_counts(b, subtasks, groups)
    assert fast.pairs_scored == plain.pairs_scored
    fast_details = MucDetails(config, fast_docs)
    plain_details = MucDetails(config, plain_docs)
    written = map_history_tcl(fast_details)
    assert written == map_history_tcl(plain_details)
    assert written == "{\n" + "".join(to_tcl(d) + "\n" for d in map_history(plain_details)) + "}\n"


@pytest.mark.parametrize("seed", range(6))
def test_shared_slots_across_sides_and_documents(seed: int) -> None:
    """In the chunks of a cut run (``read_once``) the key's and the response's tags of one
    attribute text share one mapping, and one SharedSlots serves every document of both
    sides: what a mapping makes (ALT values, STATUS, slots, ignored attributes) is kept
    once for the corpus by side.  Each side read with the key's tags (ALT and STATUS mean
    something only in keys), then the response's, must equal each document read alone."""
    from annoscore.formats.files import read_once

    rng = random.Random(seed)
    reader = NeReader()
    key_text, rsp_text = ne_files(rng, NeShape(optional=0.3, alternatives=0.3))
    with read_once():  # one mapping per attribute text for both files
        documents = reader.documents(key_text, rsp_text, ("HL", "TXT"))
    shared = SharedSlots()
    for key, rsp in documents:
        for document in (key, rsp):
            for keys_syntax in (True, False):
                built = reader.objects(document, keys_syntax=keys_syntax, shared=shared)
                alone = reader.objects(document, keys_syntax=keys_syntax)
                assert without_lines(built) == without_lines(alone)
    assert any(k[2] for k in shared.made) and any(not k[2] for k in shared.made)


def test_shared_coreference_slots_change_nothing(tmp_path: Path) -> None:
    from annoscore.samples import sample_path

    text = sample_path("muc", "co.key.sgml").read_text()
    documents = parse_sgml(text, "k", {"COREF"}, SgmlMarkup(sections=("TEXT", "TXT")))
    shared = SharedSlots()
    for document in documents:
        assert without_lines(coref_objects(document, shared_slots=shared)) == without_lines(
            coref_objects(document)
        )
    assert shared.slots  # something was shared
    result = score_muc_coreference(
        sample_path("muc", "co.key.sgml"),
        sample_path("muc", "co.response.sgml"),
    )
    assert 0 < result.counts["muc_recall_num"] <= result.counts["muc_recall_den"]


@pytest.mark.parametrize("seed", range(10))
def test_the_isolated_pair_short_cut_changes_nothing(seed: int) -> None:
    """NeAligner reuses the record of an isolated pair of slots tuples aligned before; the
    records, counts, pairs scored and map history must equal the general path's."""
    rng = random.Random(seed)
    reader = NeReader()
    config = reader.config
    # few words and types: most pairs repeat an earlier pair exactly (the short cut); some tags
    # are longer, nest or split, so that some pairs are not isolated
    key_text, rsp_text = nested_ne_files(
        rng,
        documents=(5, 10),
        tags=(10, 25),
        types={"ENAMEX": ("PERSON", "LOCATION")},
        words=("Acme", "Bank", "of"),
        odd=0.0,
    )
    documents = reader.documents(key_text, rsp_text, ("TXT",))
    assert [key.text for key, _ in documents] == [rsp.text for _, rsp in documents]

    class Counting(NeAligner):
        general = 0

        def _align_rest(self, *args: Any) -> None:
            Counting.general += len(args[4])
            super()._align_rest(*args)

    shared = SharedSlots()
    fast, plain = Counting(config), NeAligner(config)
    plain.shared_slots = False  # the general path of MucAligner
    fast_docs, plain_docs = [], []
    total = 0
    for key, rsp in documents:
        k1, r1, k2, r2 = reader.shared_and_plain(key, rsp, shared)
        total += len(k1.objects)
        fast_docs.append(fast.align(key.number, k1, r1))
        plain_docs.append(plain.align(key.number, k2, r2))
    assert without_lines(fast_docs) == without_lines(plain_docs)
    subtasks, groups = subtasks_of(config), section_groups(config)
    for a, b in zip(fast_docs, plain_docs, strict=True):
        assert ne_document_counts(a, subtasks, groups) == ne_document_counts(b, subtasks, groups)
    assert fast.pairs_scored == plain.pairs_scored
    written = map_history_tcl(MucDetails(config, fast_docs))
    assert written == map_history_tcl(MucDetails(config, plain_docs))
    assert Counting.general < total  # the short cut was taken


@pytest.mark.parametrize("seed", range(20))
def test_overlapping_partners_are_every_overlapping_pair(seed: int) -> None:
    from annoscore.align.muc_ne import overlapping_partners
    from annoscore.templates import TemplateObject

    rng = random.Random(seed)

    def tags(n: int) -> list[TemplateObject]:
        out = []
        for _ in range(n):
            start = rng.randint(-1, 30)
            end = start + rng.randint(0, 6) if start >= 0 else -1
            out.append(TemplateObject("X", "enamex", "1", "1", (), start=start, end=end))
        return out

    keys, rsps = tags(rng.randint(0, 15)), tags(rng.randint(0, 15))

    def place(o: TemplateObject) -> tuple[int, int]:
        return (o.start, o.end) if o.start >= 0 else (0, 0)

    expected = [
        [j for j, r in enumerate(rsps) if place(r)[1] > place(k)[0] and place(r)[0] < place(k)[1]]
        for k in keys
    ]
    assert overlapping_partners(keys, rsps) == expected
