# ruff: noqa: E501  (the manual's report lines and inline template files are wider than 100)
"""MUC TE/TR/ST scoring end to end: the manual's report summary example, the synthetic TE sample,
alignment order, TR/ST optional objects, text filtering, and properties.
"""

from __future__ import annotations

import gc
import importlib.util
import random
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.muc import MucAligner
from annoscore.cli.common import cyclic_gc_paused
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.muc_config import parse_muc_config
from annoscore.formats.muc_template import parse_templates
from annoscore.metrics.muc import MucDetails
from annoscore.metrics.tallies import Tally
from annoscore.report.muc import report_summary, score_report
from annoscore.report.muc_history import map_history, map_history_tcl, to_json
from annoscore.tasks.muc import TemplateOptions, score_muc_template_element
from tests.conftest import shared_data
from tests.helpers import texts
from tests.muc_scoring import score_configured
from tests.oracles.tcl import to_tcl

MANUAL_SUMMARY = [
    "COR |                 | <PERSON-9301060123-8>                      | <PERSON-9301060123-8>",
    "cor | PER_NAME:       |      Joe Roth                              |      JOE ROTH",
    "cor | PER_ALIAS:      |      Roth                                  |      ROTH",
    "cor | PER_TITLE:      |      Mr.                                   |      MR.",
    "COR |                 | <PERSON-9301060123-2>                      | <PERSON-9301060123-2>",
    "inc | PER_NAME:       |      Rupert Murdoch                        |      MURDOCH",
    "cor | PER_TITLE:      |      Mr.                                   |      MR.",
    "mis | PER_ALIAS:      |      Murdoch                               |      ",
    "SPU |                 |                                            | <PERSON-9301060123-5>",
    "spu | PER_NAME:       |                                            |      SMITH BARNEY",
    "SPU |                 |                                            | <PERSON-9301060123-12>",
    "spu | PER_NAME:       |                                            |      RUPERT",
    "COR |                 | <ORGANIZATION-9301130133-1>                | <ORGANIZATION-9301130133-1>",
    "cor | ORG_NAME:       |      EMI Records Group                     |      EMI RECORDS GROUP",
    "cor | ORG_TYPE:       |      COMPANY                               |      COMPANY",
    "mis | ORG_ALIAS:      |      EMI Records                           |      ",
    "mis | ORG_DESCRIPTOR: |      a unit of London's Thorn EMI PLC      |      ",
    "COR |                 | <ORGANIZATION-9301130133-2>                | <ORGANIZATION-9301130133-2>",
    "uns | COMMENT:        |      the alias 'EMI' is here assumed...    |",
    "cor | ORG_NAME:       |      Thorn EMI PLC                         |      THORN EMI PLC.",
    "cor | ORG_TYPE:       |      COMPANY                               |      COMPANY",
    "mis | ORG_ALIAS:      |      EMI                                   |      ",
    "mis | ORG_LOCALE:     |      London CITY                           |      ",
    "mis | ORG_COUNTRY:    |      United Kingdom                        |      ",
]

SUMMARY_CONFIG = """:scoring_task template_element
:class_defs
    "PERSON        person        scored  0"
    "ORGANIZATION  organization  scored  0"
:slot_defs
    "PERSON        PER_NAME        name        scored    100  string"
    "PERSON        PER_ALIAS       alias       scored    100  string"
    "PERSON        PER_TITLE       title       scored    100  string"
    "ORGANIZATION  COMMENT         comment     unscored  0    string"
    "ORGANIZATION  ORG_NAME        name        scored    100  string"
    "ORGANIZATION  ORG_ALIAS       alias       scored    100  string"
    "ORGANIZATION  ORG_DESCRIPTOR  descriptor  scored    100  string"
    "ORGANIZATION  ORG_TYPE        type        scored    100  set"
    "ORGANIZATION  ORG_LOCALE      locale      scored    100  string"
    "ORGANIZATION  ORG_COUNTRY     country     scored    100  string"
:premodifiers a an the
:postmodifiers "." ","
:corporate_designators corp inc plc
:key_file key.tpl
:response_file response.tpl
"""

SUMMARY_KEY = """<PERSON-9301060123-8> :=
    PER_NAME: "Joe Roth"
    PER_ALIAS: "Roth"
    PER_TITLE: "Mr."
<PERSON-9301060123-2> :=
    PER_NAME: "Rupert Murdoch"
    PER_ALIAS: "Murdoch"
    PER_TITLE: "Mr."
<ORGANIZATION-9301130133-1> :=
    ORG_NAME: "EMI Records Group"
    ORG_ALIAS: "EMI Records"
    ORG_DESCRIPTOR: "a unit of London's Thorn EMI PLC"
    ORG_TYPE: COMPANY
<ORGANIZATION-9301130133-2> :=
    COMMENT: "the alias 'EMI' is here assumed to name the parent"
    ORG_NAME: "Thorn EMI PLC"
    ORG_ALIAS: "EMI"
    ORG_TYPE: COMPANY
    ORG_LOCALE: "London CITY"
    ORG_COUNTRY: "United Kingdom"
"""

SUMMARY_RESPONSE = """<PERSON-9301060123-8> :=
    PER_NAME: "JOE ROTH"
    PER_ALIAS: "ROTH"
    PER_TITLE: "MR."
<PERSON-9301060123-2> :=
    PER_NAME: "MURDOCH"
    PER_TITLE: "MR."
<PERSON-9301060123-5> :=
    PER_NAME: "SMITH BARNEY"
<PERSON-9301060123-12> :=
    PER_NAME: "RUPERT"
<ORGANIZATION-9301130133-1> :=
    ORG_NAME: "EMI RECORDS GROUP"
    ORG_TYPE: COMPANY
<ORGANIZATION-9301130133-2> :=
    ORG_NAME: "THORN EMI PLC."
    ORG_TYPE: COMPANY
"""


def write(folder: Path, config: str, key: str, response: str) -> Path:
    (folder / "key.tpl").write_text(key, encoding="utf-8")
    (folder / "response.tpl").write_text(response, encoding="utf-8")
    path = folder / "muc.config"
    path.write_text(config, encoding="utf-8")
    return path


def test_manual_report_summary_example_reproduced_exactly(tmp_path: Path) -> None:
    result = score_configured(write(tmp_path, SUMMARY_CONFIG, SUMMARY_KEY, SUMMARY_RESPONSE))
    assert report_summary(result).splitlines() == MANUAL_SUMMARY
    # and the numbers behind it: 11 scored key fills, 9 response fills
    assert Tally.from_counts(result.counts).pos == 15
    assert (result.counts["cor"], result.counts["inc"], result.counts["mis"]) == (8, 1, 6)
    # NON: the unscored COMMENT, and one per slot empty on both sides of an aligned pair
    assert (result.counts["spu"], result.counts["non"]) == (2, 4)


def test_synthetic_te_sample_hand_counted() -> None:
    """../shared/data/muc/te with the shipped configuration, counted by hand fill by fill."""
    folder = shared_data("muc", "te")
    from annoscore.samples import sample_path

    result = score_muc_template_element(
        folder / "key.synthetic.tpl",
        folder / "response.synthetic.tpl",
        TemplateOptions(config=sample_path("muc", "te.config")),
    )
    c = result.counts
    assert [c[k] for k in ("pos", "act", "cor", "par", "inc", "mis", "spu", "non")] == [
        17,
        16,
        12,
        0,
        1,
        4,
        3,
        7,
    ]
    assert result.scores["recall"] == pytest.approx(12 / 17)
    assert result.scores["precision"] == pytest.approx(0.75)
    assert result.scores["f_pr"] == pytest.approx(24 / 33)
    # corporate designator and case: "Acme Widget Corp." == "ACME WIDGET"
    assert Tally.from_counts(c, "slot:organization:org_name:").cor == 1
    # bracketed minimum: "a [maker] of industrial widgets" accepts "the maker"; the "/" alternative is NON
    assert Tally.from_counts(c, "slot:organization:org_descriptor:").cor == 1
    # optional object ORGANIZATION-2 left unaligned: its 3 fills NON, its pointer removed
    assert c["obj:organization:non"] == 1 and c["slot:template:content:rem"] == 1
    # alternative set: "Dr." / "Mr." against "Mr." -> COR + NON
    assert Tally.from_counts(c, "slot:person:per_title:").non == 1
    assert any("removed" in w for w in texts(result))


CLASSES = """:scoring_task {task}
:class_defs
    "A  a  scored  {threshold}"
    "R  r  scored  0"
:slot_defs
    "A  NAME  name  scored  1  string"
    "A  TYPE  type  scored  1  set"
    "R  ARG   arg   scored  1  pointer"
    "R  KIND  kind  scored  1  set"
"""


def run(
    tmp_path: Path, key: str, response: str, task: str = "template_element", threshold: str = "0"
) -> tuple[Counts, MucDetails]:
    path = write(
        tmp_path,
        CLASSES.format(task=task, threshold=threshold)
        + ":key_file key.tpl\n:response_file response.tpl\n",
        key,
        response,
    )
    result = score_configured(path)
    assert isinstance(result.details, MucDetails)
    return result.counts, result.details


def aligned(details: MucDetails) -> list[tuple[str, str]]:
    return [
        (p.key.id, p.response.id)
        for d in details.documents
        for c in d.classes
        for p in c.pairs
        if p.key is not None and p.response is not None
    ]


def test_alignment_is_greedy_by_f_with_ties_to_key_then_response_order(tmp_path: Path) -> None:
    key = "<A-1-1> :=\n NAME: x\n TYPE: t\n<A-1-2> :=\n NAME: y\n TYPE: t\n"
    response = "<A-1-7> :=\n NAME: q\n TYPE: t\n<A-1-8> :=\n NAME: y\n TYPE: t\n"
    _, details = run(tmp_path, key, response)
    # (2, 8) has F 100 and goes first; then the tie (1, 7) is the only free pair
    assert aligned(details) == [("A-1-1", "A-1-7"), ("A-1-2", "A-1-8")]
    _, details = run(
        tmp_path, "<A-1-1> :=\n TYPE: t\n<A-1-2> :=\n TYPE: t\n", "<A-1-7> :=\n TYPE: t\n"
    )
    assert aligned(details) == [("A-1-1", "A-1-7")]


def test_threshold_must_be_exceeded_so_pairs_sharing_nothing_never_align(tmp_path: Path) -> None:
    counts, details = run(tmp_path, "<A-1-1> :=\n NAME: x\n", "<A-1-2> :=\n NAME: y\n")
    assert aligned(details) == []
    assert (counts["mis"], counts["spu"], counts["inc"]) == (1, 1, 0)
    # weighted score here is 1 * 100 * 1.0 = 100 (NAME cor): a threshold of 100 is not exceeded
    _, details = run(tmp_path, "<A-1-1> :=\n NAME: x\n", "<A-1-2> :=\n NAME: x\n", threshold="100")
    assert aligned(details) == []
    _, details = run(tmp_path, "<A-1-1> :=\n NAME: x\n", "<A-1-2> :=\n NAME: x\n", threshold="99.5")
    assert aligned(details) == [("A-1-1", "A-1-2")]


def test_pointer_fill_is_correct_only_when_its_targets_are_aligned(tmp_path: Path) -> None:
    key = "<A-1-1> :=\n NAME: x\n<A-1-2> :=\n NAME: y\n<R-1-1> :=\n ARG: <A-1-1>\n KIND: k\n<R-1-2> :=\n ARG: <A-1-2>\n KIND: j\n"
    response = "<A-1-5> :=\n NAME: x\n<R-1-5> :=\n ARG: <A-1-5>\n KIND: k\n<R-1-6> :=\n ARG: <A-1-9>\n KIND: j\n"
    counts, _ = run(tmp_path, key, response)
    assert Tally.from_counts(counts, "slot:r:arg:").cor == 1
    assert Tally.from_counts(counts, "slot:r:arg:").inc == 1


def test_pointee_class_listed_later_is_an_error(tmp_path: Path) -> None:
    config = CLASSES.replace(
        '"A  a  scored  {threshold}"\n    "R  r  scored  0"',
        '"R  r  scored  0"\n    "A  a  scored  {threshold}"',
    )
    path = write(
        tmp_path,
        config.format(task="template_relation", threshold=0)
        + ":key_file key.tpl\n:response_file response.tpl\n",
        "<A-1-1> :=\n NAME: x\n<R-1-1> :=\n ARG: <A-1-1>\n",
        "",
    )
    with pytest.raises(InputError, match="list pointed-to classes first"):
        score_configured(path)


def test_tr_relation_pointing_to_an_optional_object_is_implicitly_optional(tmp_path: Path) -> None:
    key = "<A-1-1> :=\n NAME: x\n OBJ_STATUS: OPTIONAL\n<R-1-1> :=\n ARG: <A-1-1>\n KIND: k\n"
    counts, _ = run(tmp_path, key, "", task="template_relation")
    assert (counts["mis"], counts["obj:r:non"], counts["obj:r:mis"]) == (0, 1, 0)
    counts, _ = run(tmp_path, key, "", task="template_element")
    assert counts["obj:r:mis"] == 1 and counts["slot:r:arg:rem"] == 1


def test_st_object_pointed_to_only_from_an_optional_slot_is_implicitly_optional(
    tmp_path: Path,
) -> None:
    key = "<A-1-1> :=\n NAME: x\n<A-1-2> :=\n NAME: y\n<R-1-1> :=\n ARG: / <A-1-1>\n KIND: k\n<R-1-2> :=\n ARG: <A-1-2>\n KIND: k\n"
    counts, _ = run(tmp_path, key, "", task="scenario_template")
    assert counts["obj:a:non"] == 1 and counts["obj:a:mis"] == 1


def test_alternatives_tie_goes_to_the_smaller_alternative_others_non(tmp_path: Path) -> None:
    key = "<A-1-1> :=\n NAME: a b\n   / c\n TYPE: t\n"
    counts, _ = run(tmp_path, key, "<A-1-2> :=\n TYPE: t\n")
    assert Tally.from_counts(counts, "slot:a:name:").mis == 1
    assert Tally.from_counts(counts, "slot:a:name:").non == 2


TEMPLATE_CONFIG = """:scoring_task scenario_template
:class_defs
    "A         a         scored  0"
    "TEMPLATE  template  scored  0"
:slot_defs
    "A         NAME     name     scored  1  string"
    "TEMPLATE  CONTENT  content  scored  1  pointer"
:key_file key.tpl
:response_file response.tpl
"""


@pytest.mark.parametrize(
    ("mode", "expected"), [("agreement", (1, 0, 1, 0, 0, 0)), ("relevance", (1, 0, 0, 1, 1, 1))]
)
def test_text_filter_agreement_per_manual_or_relevance_per_muc6(
    tmp_path: Path, mode: str, expected: tuple[int, ...]
) -> None:
    key = "<TEMPLATE-1-1> :=\n CONTENT: <A-1-1>\n<A-1-1> :=\n NAME: x\n<TEMPLATE-2-1> :=\n CONTENT:\n<TEMPLATE-3-1> :=\n CONTENT: <A-3-1>\n<A-3-1> :=\n NAME: z\n<TEMPLATE-4-1> :=\n CONTENT:\n"
    response = "<TEMPLATE-1-1> :=\n CONTENT: <A-1-2>\n<A-1-2> :=\n NAME: x\n<TEMPLATE-2-1> :=\n CONTENT: <A-2-2>\n<A-2-2> :=\n NAME: w\n<TEMPLATE-3-1> :=\n CONTENT:\n<TEMPLATE-4-1> :=\n CONTENT:\n"
    path = write(tmp_path, TEMPLATE_CONFIG, key, response)
    result = score_configured(path, text_filter=mode)
    t = Tally.from_counts(result.counts, "text_filter:")
    if mode == "agreement":
        assert (t.cor, t.inc, t.pos, t.act) == (2, 2, 4, 4)
    else:
        assert (t.cor, t.mis, t.spu, t.non) == (1, 1, 1, 1)
    assert "TEXT FILTERI" in score_report(result)
    assert result.counts["obj:template:non"] == 4


def test_more_than_one_template_object_is_named_only_when_a_side_has_several(
    tmp_path: Path,
) -> None:
    # document 1: a template in the key only (missing, no warning); 2: two in the key
    key = (
        "<TEMPLATE-1-1> :=\n CONTENT:\n<TEMPLATE-2-1> :=\n CONTENT:\n<TEMPLATE-2-2> :=\n CONTENT:\n"
    )
    response = "<TEMPLATE-2-1> :=\n CONTENT:\n"
    result = score_configured(write(tmp_path, TEMPLATE_CONFIG, key, response))
    named = [w for w in map(str, result.warnings) if "more than one TEMPLATE" in w]
    assert len(named) == 1 and "document 2" in named[0] and "document 1" not in named[0], named


def test_key2key_both_sides_may_have_alternatives_and_optional_marks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        CLASSES.format(task="template_element", threshold=0)
        + ":scoring_method key2key\n:key_file key.tpl\n:response_file response.tpl\n",
        "<A-1-1> :=\n NAME: a\n   / b\n",
        "<A-1-2> :=\n NAME: c\n   / b\n<A-1-3> :=\n NAME: z\n OBJ_STATUS: OPT\n",
    )
    result = score_configured(path)
    name = Tally.from_counts(result.counts, "slot:a:name:")
    assert (name.cor, name.non) == (1, 3)  # b == b; a and c NON; the optional response object NON
    assert result.counts["obj:a:non"] == 1


def test_map_history_nests_document_class_object_slot_fill(tmp_path: Path) -> None:
    result = score_configured(write(tmp_path, SUMMARY_CONFIG, SUMMARY_KEY, SUMMARY_RESPONSE))
    assert isinstance(result.details, MucDetails)
    history = to_json(map_history(result.details))
    doc = history[0]
    assert doc["docnum"] == "9301060123"
    obj = doc["class_pairs"][0]["obj_pairs"][0]
    assert obj["key_obj_id"] == "PERSON-9301060123-8" and obj["obj_pair_status"] == "cor"
    fill = obj["slot_pairs"][0]["multi_fill_pairs"][0]["single_fill_pairs"][0]
    assert fill["single_fill_pair_status"] == "cor"
    assert fill["key_single_fill"] == {
        "type": "string",
        "fill": "Joe Roth",
        "clean_fill": "joe roth",
    }
    assert doc["doctallies"] == [6, 7, 4, 0, 1, 1, 2, 0]
    tcl = map_history_tcl(result.details)
    assert "-docnum 9301060123" in tcl and "-fill {Joe Roth}" in tcl
    assert tcl.count("{") == tcl.count("}")


# ------------------------------------------------------------------ properties
PROPERTY_CONFIG = CLASSES.format(task="template_element", threshold=0)

names = st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=6, unique=True)


def _docs(draw_docs: list[list[tuple[str, str]]]) -> str:
    out = []
    for d, objects in enumerate(draw_docs, start=1):
        for n, (name, kind) in enumerate(objects, start=1):
            out.append(f"<A-{d}-{n}> :=\n NAME: {name}{d}\n TYPE: {kind}\n")
    return "".join(out)


documents = st.lists(
    st.lists(
        st.tuples(st.sampled_from("abcdefghij"), st.sampled_from("xy")),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    ),
    min_size=1,
    max_size=4,
)


def _score(tmp: Path, key: str, response: str) -> Counts:
    path = write(
        tmp, PROPERTY_CONFIG + ":key_file key.tpl\n:response_file response.tpl\n", key, response
    )
    result = score_configured(path)
    assert Counts.total(u.counts for u in result.documents.values()) == result.counts
    for value in result.scores.values():
        assert value is None or 0.0 <= value <= 1.0
    return result.counts


@settings(max_examples=30, deadline=None)
@given(key_docs=documents, response_docs=documents, seed=st.integers(0, 10**6))
def test_properties_perfect_bounded_additive_and_order_free(
    tmp_path_factory: pytest.TempPathFactory,
    key_docs: list[list[tuple[str, str]]],
    response_docs: list[list[tuple[str, str]]],
    seed: int,
) -> None:
    tmp = tmp_path_factory.mktemp("muc")
    key = _docs(key_docs)
    perfect = _score(tmp, key, key)
    assert Tally.from_counts(perfect).recall == 1.0 and Tally.from_counts(perfect).precision == 1.0
    counts = _score(tmp, key, _docs(response_docs))
    rng = random.Random(seed)
    # documents in another order: nothing moves.  (Objects in another order may: exact F ties
    # are broken by file order, decision 2 of the spec, tested in
    # test_alignment_is_greedy_by_f_with_ties_to_key_then_response_order.)
    blocks: dict[str, list[str]] = {}
    for d, objects in enumerate(response_docs, start=1):
        for n, (name, kind) in enumerate(objects, start=1):
            blocks.setdefault(str(d), []).append(
                f"<A-{d}-{n}> :=\n NAME: {name}{d}\n TYPE: {kind}\n"
            )
    doc_order = list(blocks)
    rng.shuffle(doc_order)
    again = _score(tmp, key, "".join(b for d in doc_order for b in blocks[d]))
    assert again == counts


# ------------------------------------------------------------------ speed without change
def test_map_history_tcl_is_to_tcl_of_the_map_history_mappings(tmp_path: Path) -> None:
    """The Tcl map history is written straight from the records: the same text as the
    generic writer of the nested mappings."""
    for config, key, response in (
        (SUMMARY_CONFIG, SUMMARY_KEY, SUMMARY_RESPONSE),
        (
            TEMPLATE_CONFIG,
            "<TEMPLATE-1-1> :=\n CONTENT: <A-1-1>\n<A-1-1> :=\n NAME: / x\n   / 'y z'\n",
            "<TEMPLATE-1-1> :=\n CONTENT: <A-1-2>\n<A-1-2> :=\n NAME: {y}\n",
        ),
    ):
        result = score_configured(write(tmp_path, config, key, response))
        assert isinstance(result.details, MucDetails)
        documents = "".join(to_tcl(doc) + "\n" for doc in map_history(result.details))
        assert map_history_tcl(result.details) == "{\n" + documents + "}\n"


def test_cyclic_gc_paused_restores_the_collector_state() -> None:
    was_enabled = gc.isenabled()
    try:
        gc.enable()
        with pytest.raises(RuntimeError), cyclic_gc_paused():
            assert not gc.isenabled()
            raise RuntimeError
        assert gc.isenabled()
        gc.disable()
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()  # a caller's own pause is left alone
    finally:
        if was_enabled:
            gc.enable()


def test_cyclic_gc_paused_freezes_what_outlives_it_only_beside_a_freeze() -> None:
    """Beside objects frozen before (the command line's start-up), what the paused block made
    and kept is frozen with them, out of every generation the collector walks; without one,
    nothing is frozen (no one would thaw it) and what was kept is collected as usual."""
    was_enabled = gc.isenabled()
    assert gc.get_freeze_count() == 0  # the test process freezes nothing of its own
    try:
        gc.enable()
        with cyclic_gc_paused():
            left = [[n] for n in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert id(left) in {id(o) for generation in range(3) for o in gc.get_objects(generation)}
        gc.freeze()  # as the command line freezes its start-up
        before = gc.get_freeze_count()
        with cyclic_gc_paused():
            kept = [[n] for n in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(kept) + 1
        walked = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
        assert id(kept) not in walked and not any(id(k) in walked for k in kept)
        with pytest.raises(RuntimeError), cyclic_gc_paused():  # an error: frozen alike
            raised = [[1]]
            raise RuntimeError
        assert id(raised) not in {id(o) for o in gc.get_objects(0)} and gc.isenabled()
    finally:
        gc.unfreeze()
        if not was_enabled:
            gc.disable()


PRUNE_CONFIG = """:scoring_task template_relation
:class_defs
    "A  a  scored  {threshold}"
    "R  r  scored  0"
:slot_defs
    "A  NAME  name  scored  {weight}  string"
    "A  TYPE  type  scored  1  set"
    "A  NOTE  note  unscored  0  string"
    "R  ARG   arg   scored  1  pointer"
    "R  KIND  kind  scored  1  set"
"""


def test_pairs_sharing_no_fill_are_not_scored_unless_the_threshold_is_negative() -> None:
    """With a threshold >= 0 a pair that shares no fill cannot align (weighted score 0): it is
    not scored; with a negative threshold every pair is (tests/equivalence/test_muc.py holds
    both to the plain reference)."""
    key = parse_templates('<A-1-1> :=\n NAME: "a"\n TYPE: x\n', Path("k"), keys_syntax=True)[0]
    rsp = parse_templates('<A-1-2> :=\n NAME: "b"\n TYPE: y\n', Path("r"), keys_syntax=False)[0]
    for threshold, weight, scored, aligned in (
        ("0", "1", 0, 0),
        ("-1", "1", 1, 1),
        ("0", "0", 0, 0),
    ):
        config = parse_muc_config(
            PRUNE_CONFIG.format(threshold=threshold, weight=weight), Path("muc.config")
        )
        aligner = MucAligner(config)
        alignment = aligner.align("1", key, rsp)
        assert aligner.pairs_scored == scored
        [a_class, _] = alignment.classes
        assert sum(p.status == "cor" for p in a_class.pairs) == aligned


def _benchmark() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "muc.py"
    spec = importlib.util.spec_from_file_location("muc_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("docs", "per_doc", "tallies", "objects_cor", "f_pr"),
    [
        (20, 50, (1844, 0, 108, 448, 22, 0), (388, 389, 199), 0.8431641518),
        (3, 400, (2217, 0, 117, 546, 9, 0), (467, 463, 237), 0.8489373923),
    ],
)
def test_benchmark_data_totals_are_those_of_scoring_every_pair(
    tmp_path: Path,
    docs: int,
    per_doc: int,
    tallies: tuple[int, ...],
    objects_cor: tuple[int, ...],
    f_pr: float,
) -> None:
    """Totals of benchmarks/muc.py's data, pinned from the scorer before it was made fast."""
    bench = _benchmark()
    key, response = bench.generate(docs, per_doc)
    result = score_configured(write(tmp_path, bench.CONFIG, key, response))
    counts = result.counts
    assert tuple(counts[k] for k in ("cor", "par", "inc", "mis", "spu", "non")) == tallies
    classes = ("person", "organization", "employee_of")
    assert tuple(counts[f"obj:{c}:cor"] for c in classes) == objects_cor
    assert result.scores["f_pr"] == pytest.approx(f_pr, abs=1e-10)


def test_benchmark_data_is_written_to_a_folder_per_task_each_scored_by_its_config(
    tmp_path: Path,
) -> None:
    """``benchmarks/muc.py --write DIR``: each task's files and configuration in ``DIR/TASK``,
    scored as the benchmark's command scores them (every document paired)."""
    bench = _benchmark()
    folders = bench.write_data(tmp_path, ["co", "te", "ne"], 3, 10)
    assert folders == [tmp_path / "co", tmp_path / "te", tmp_path / "ne"]
    for folder, task in zip(
        folders, ("coreference", "template-relation", "named-entity"), strict=True
    ):
        result = score_configured(folder / "muc.config")
        assert result.task == f"muc-{task}"
        assert len(result.documents) == 3
        assert not [w for w in result.warnings if w.code.startswith("documents.")]


def test_pointers_to_missing_objects_or_unknown_classes_are_counted_in_a_warning(
    tmp_path: Path,
) -> None:
    from annoscore.samples import SAMPLES

    for name in ("te.config", "key.synthetic.tpl", "response.synthetic.tpl"):
        shutil.copy(SAMPLES / "muc" / name, tmp_path / name)
    response = tmp_path / "response.synthetic.tpl"
    text = response.read_text(encoding="utf-8")
    old = "             <PERSON-9901010001-4>\n"
    assert old in text
    response.write_text(
        text.replace(
            old, "             <PERSON-9901010001-44>\n             <WIDGET-9901010001-1>\n"
        ),
        encoding="utf-8",
    )
    result = score_configured(tmp_path / "te.config")
    (warning,) = [w for w in result.warnings if w.code == "muc.dangling-pointers"]
    assert warning.count == 2 and warning.tolerated
    assert warning.examples[0].endswith(":5 <PERSON-9901010001-44>")


def test_a_document_the_response_left_empty_counts_0_in_the_macro_average(tmp_path: Path) -> None:
    """One rule for undefined numbers: a document with key fills and no response has precision
    undefined but F 0, so ``macro_doc`` F is the mean of 1 and 0 (before: 1, the empty
    document left out); its score page still says "F-MEASURES not available"."""
    key = '<A-1-1> :=\n NAME: "a"\n TYPE: x\n<A-2-1> :=\n NAME: "b"\n TYPE: y\n'
    response = '<A-1-1> :=\n NAME: "a"\n TYPE: x\n'
    config = CLASSES.format(task="template_element", threshold="0")
    path = write(
        tmp_path, config + ":key_file key.tpl\n:response_file response.tpl\n", key, response
    )
    result = score_configured(path)
    assert result.documents["2"].scores["precision"] is None
    assert result.documents["2"].scores["f_pr"] == 0.0
    assert result.shown(averages=True).averages["macro_doc"]["f_pr"] == 0.5
    page = score_report(result).split("\f\n")[1]
    assert page.startswith("Document 2") and "F-MEASURES not available" in page


def test_documents_given_twice_in_memory_are_refused() -> None:
    """``count_muc_*`` takes documents a user holds: a document id given twice (which the
    reader refuses in one file) is an error, not a silent merge or drop."""
    from annoscore.samples import SAMPLES
    from annoscore.tasks.muc import count_muc_template_element

    [doc] = parse_templates('<PERSON-1-1> :=\n PER_NAME: "Ann"\n', Path("k.tpl"), keys_syntax=True)
    options = TemplateOptions(config=SAMPLES / "muc" / "te.config")
    with pytest.raises(InputError, match="response document 1 is given twice"):
        count_muc_template_element([doc], [doc, doc], options)
    assert count_muc_template_element([doc], [doc], options).scores["f_pr"] == 1.0
