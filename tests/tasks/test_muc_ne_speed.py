"""The named entity fast paths pinned to the straightforward ones, on random data.

- :func:`ne_document_counts` makes every row in one pass; :func:`reference_ne_counts` is the
  first implementation (:func:`document_counts`, then a second pass for the SUBTASK and SECT
  rows): same keys, same order, same values.
- :func:`_tcl_word` tests plain words with a set of characters; it must equal the regular
  expression it replaced.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

import pytest

from annoscore.align.muc_ne import NeAligner
from annoscore.align.muc_records import DocumentAlignment
from annoscore.counts import Counts, Number
from annoscore.formats.muc_sgml_objects import SharedSlots
from annoscore.metrics.muc import document_counts
from annoscore.metrics.muc_ne import ne_document_counts, subtask_key
from annoscore.report.muc_history import _tcl_word
from annoscore.tasks.muc_sgml import section_groups, subtasks_of
from tests.muc_random import NeReader, NeShape, ne_files

_INDEX = {"cor": 0, "par": 1, "inc": 2, "mis": 3, "spu": 4, "non": 5, "uns": 5}


def _put(values: dict[str, Number], prefix: str, row: Sequence[int]) -> None:
    cor, par, inc, mis, spu, _ = row
    for name, value in zip(("cor", "par", "inc", "mis", "spu", "non"), row, strict=True):
        values[prefix + name] = value
    values[prefix + "pos"] = cor + par + inc + mis
    values[prefix + "act"] = cor + par + inc + spu


def reference_ne_counts(
    alignment: DocumentAlignment,
    subtasks: Sequence[tuple[str, str, str]],
    groups: Mapping[str, Sequence[str]],
) -> Counts:
    """The first implementation: the template tallies, then the SUBTASK and SECT rows."""
    values: dict[str, Number] = dict(document_counts(alignment))
    wanted: dict[tuple[str, str], dict[str, list[int]]] = {}
    for class_name, slot_name, value in subtasks:
        wanted.setdefault((class_name.lower(), slot_name.lower()), {})[value.lower()] = [0] * 6
    group_rows = {name: [0] * 6 for name in groups}
    for cls in alignment.classes:
        class_name = cls.definition.name.lower()
        for pair in cls.pairs:
            owner = pair.key if pair.key is not None else pair.response
            assert owner is not None
            rows = [
                group_rows[g]
                for g, members in groups.items()
                if owner.section.lower() in {m.lower() for m in members}
            ]
            for slot in pair.slots:
                buckets = wanted.get((class_name, slot.definition.name.lower()))
                for row in rows:
                    row[5] += slot.slot_non
                for fill in slot.fills:
                    index = _INDEX.get(fill.status)
                    if index is None:
                        continue
                    for row in rows:
                        row[index] += 1
                    shown = fill.key if fill.key is not None else fill.response
                    if buckets is not None and shown is not None:
                        bucket = buckets.get(shown.text.lower())
                        if bucket is not None:
                            bucket[index] += 1
    for (cls_name, slot_name), buckets in wanted.items():
        for value, row in buckets.items():
            _put(values, subtask_key(cls_name, slot_name, value), row)
    for name, row in group_rows.items():
        _put(values, f"section:{name}:", row)
    return Counts(values)


@pytest.mark.parametrize("seed", range(6))
def test_one_pass_named_entity_counts_equal_the_first_implementation(seed: int) -> None:
    rng = random.Random(seed)
    reader = NeReader()
    config = reader.config
    key_text, rsp_text = ne_files(
        rng,
        NeShape(
            sections=("HL", "DD", "TXT"),
            documents=(1, 6),
            tags=(0, 15),
            added_tag='<ENAMEX TYPE="OTHER">',
        ),
    )
    shared = SharedSlots()
    aligner = NeAligner(config)
    subtasks = subtasks_of(config)
    groups_options = [section_groups(config), {"Head": ["HL", "DD"], "Body": ["TXT"]}]
    for key, rsp in reader.documents(key_text, rsp_text, ("HL", "DD", "TXT")):
        k = reader.objects(key, shared=shared)
        r = reader.objects(rsp, keys_syntax=False, shared=shared)
        alignment = aligner.align(key.number, k, r)
        for groups in groups_options:
            ours = ne_document_counts(alignment, subtasks, groups)
            theirs = reference_ne_counts(alignment, subtasks, groups)
            assert list(ours.items()) == list(theirs.items())


_PLAIN = re.compile(r"[^\s{}\[\]$\"\\;]+")
_SPECIAL = re.compile(r"([\s{}\[\]$\"\\;])")


def reference_tcl_word(text: str) -> str:
    """The first implementation (a regular expression decides what is plain)."""
    if _PLAIN.fullmatch(text):
        return text
    depth = 0
    balanced = True
    for char in text:
        depth += char == "{"
        depth -= char == "}"
        if depth < 0:
            balanced = False
    if balanced and depth == 0 and not text.endswith("\\"):
        return "{" + text + "}"
    return _SPECIAL.sub(r"\\\1", text)


def test_tcl_words_equal_the_first_implementation() -> None:
    rng = random.Random(3)
    alphabet = 'aZ9-_.{}[]$"\\;<> \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u2003\u3000\u200bé'
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        assert _tcl_word(text) == reference_tcl_word(text), repr(text)
