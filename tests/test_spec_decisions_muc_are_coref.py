"""The binding decisions of spec/muc.md, spec/are.md and spec/coref.md (and design.md's generic
rules) that no other test pinned, one test per decision (named after it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.align.muc_strings import StringRules
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.muc_config import parse_muc_config
from annoscore.formats.muc_template import parse_templates
from annoscore.metrics.tallies import Tally
from annoscore.samples import SAMPLES
from annoscore.tasks.muc import load_config, score_muc_coreference, score_muc_named_entity
from annoscore.templates import TemplateFill
from tests.conftest import Cli
from tests.helpers import texts
from tests.muc_scoring import score_configured

MUC = SAMPLES / "muc"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- muc.md decision 1: --task overrides the file; an override into another family of tasks
# (templates, named entity, coreference) cannot reuse the file's class and slot definitions ---


@pytest.mark.parametrize(
    ("config", "task", "key", "response"),
    [
        ("te.config", "ne", "ne.key.sgml", "ne.response.sgml"),
        ("ne.config", "co", "co.key.sgml", "co.response.sgml"),
        ("ne.config", "te", "key.synthetic.tpl", "response.synthetic.tpl"),
    ],
)
def test_decision_1_task_override_into_another_family_is_an_error_not_an_empty_score(
    cli: Cli, config: str, task: str, key: str, response: str
) -> None:
    """Before: ``annoscore muc te.config --task ne`` scored ORGANIZATION/PERSON "tags" (none in
    the SGML): every score null, exit 0; ``ne.config --task co`` read ENAMEX as markables."""
    result = cli("muc", MUC / config, "--task", task, "-k", MUC / key, "-r", MUC / response)
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and config in message and "--task" in message


def test_decision_1_task_override_within_the_template_family_is_kept(tmp_path: Path) -> None:
    config = load_config(MUC / "te.config", "tr")
    assert config.scoring_task == "template_relation"
    assert load_config(None, "co").scoring_task == "coreference"


def test_decision_1_task_override_from_python_is_checked_the_same_way() -> None:
    import annoscore

    with pytest.raises(InputError, match="cannot score coreference"):
        annoscore.score(
            "muc-coreference",
            MUC / "co.key.sgml",
            MUC / "co.response.sgml",
            config=MUC / "ne.config",
        )


def test_decision_1_values_quoted_with_either_quote_and_continued_on_indented_lines() -> None:
    config = parse_muc_config(
        ":scoring_task template_element\n:class_defs\n    'A  a  scored  0'\n"
        ":slot_defs 'A  NAME  name  scored  1  string'\n"
        ":premodifiers 'the one' \"an\"\n    a\n:key_file k.tpl\n",
        Path("/cfg/x/te.config"),
    )
    assert config.items("premodifiers") == ("the one", "an", "a")
    assert [c.name for c in config.class_defs] == ["A"]


# --- muc.md decisions 4 and 12: string fills, precisely --------------------------------------


def fill(text: str, minimum: str | None = None) -> TemplateFill:
    return TemplateFill(text=text, minimum=minimum)


def test_decision_12_orig_is_equal_as_read_case_sensitive_and_untrimmed() -> None:
    rules = StringRules(correct="ORIG")
    assert rules.compare_strings(fill("Acme"), fill("Acme")) == "cor"
    assert rules.compare_strings(fill("Acme"), fill("ACME")) == "inc"
    assert rules.compare_strings(fill(" Acme"), fill("Acme")) == "inc"


def test_decision_12_straightened_trims_and_collapses_but_keeps_case() -> None:
    rules = StringRules(correct="STRAIGHTENED")
    assert rules.compare_strings(fill("  Acme \t Widget "), fill("Acme Widget")) == "cor"
    assert rules.compare_strings(fill("Acme"), fill("acme")) == "inc"


def test_decision_12_clean_premodifiers_only_at_the_start_repeatedly() -> None:
    rules = StringRules(premodifiers=["The", "a"])  # configured lists compare lower-cased
    assert rules.normalize("the a x", "CLEAN") == "x"
    assert rules.normalize("x the", "CLEAN") == "x the"
    assert rules.compare_strings(fill("THE A Bank"), fill("bank")) == "cor"


def test_decision_12_clean_postmodifiers_become_spaces_everywhere() -> None:
    rules = StringRules(postmodifiers=[".", "'s"])
    assert rules.normalize("U.S. Steel's", "CLEAN") == "u s steel"
    assert rules.compare_strings(fill("A.B"), fill("a b")) == "cor"


def test_decision_12_clean_designators_are_whole_token_sequences_anywhere() -> None:
    rules = StringRules(postmodifiers=["."], corporate_designators=["S A DE C V", "corp"])
    assert rules.normalize("Acme S.A. de C.V. Group", "CLEAN") == "acme group"
    assert rules.normalize("Corp. Acme Corp", "CLEAN") == "acme"
    assert rules.normalize("Corporation", "CLEAN") == "corporation"  # not a substring rule


def test_decision_12_no_default_lists() -> None:
    rules = StringRules()
    assert rules.normalize("The Acme Corp.", "CLEAN") == "the acme corp."


def test_decision_4_set_fills_case_insensitive_and_uncleaned() -> None:
    assert StringRules.compare_sets(fill("COMPANY"), fill("company")) == "cor"
    assert StringRules.compare_sets(fill("the x"), fill("x")) == "inc"


def test_decision_4_bracketed_minimum_accepts_what_lies_between() -> None:
    rules = StringRules()
    key = fill("acme widget corp", minimum="acme")
    assert [
        rules.compare_strings(key, fill(r))
        for r in ("acme", "acme widget", "acme widget corp", "widget", "acme widget corp inc")
    ] == ["cor", "cor", "cor", "inc", "inc"]


def test_decision_4_partial_credit_only_with_a_partial_comparison() -> None:
    assert StringRules(correct="ORIG").compare_strings(fill("X"), fill("x")) == "inc"
    par = StringRules(correct="ORIG", partial="CLEAN")
    assert par.compare_strings(fill("X"), fill("x")) == "par"
    assert par.compare_strings(fill("X"), fill("X")) == "cor"
    assert par.compare_strings(fill("X"), fill("y")) == "inc"


def test_decision_12_the_reader_removes_the_quotes_and_nothing_else() -> None:
    [document] = parse_templates('<A-1-1> :=\n NAME: " x  y "\n', Path("k"), keys_syntax=True)
    [slot] = document.objects[0].slots
    assert [f.text for f in slot.alternatives[0]] == [" x  y "]


# --- muc.md decisions 11 and 14: tallies in detail, names, files, one-sided documents ---------

TALLY_CONFIG = """:scoring_task template_element
:class_defs
    "A  a  scored  0"
:slot_defs
    "A  NAME  name  scored  1  string"
    "A  TYPE  type  scored  1  set"
    "A  NOTE  note  unscored  0  string"
:key_file key.tpl
:response_file response.tpl
"""


def run_templates(tmp_path: Path, key: str, response: str) -> Counts:
    folder = tmp_path / "configs"
    write(folder / "key.tpl", key)
    write(folder / "response.tpl", response)
    result = score_configured(write(folder / "muc.config", TALLY_CONFIG))
    return result.counts


def test_decision_11_multi_fills_unscored_slots_and_case_insensitive_names(
    tmp_path: Path,
) -> None:
    key = '<a-1-1> :=\n    name: "x" "y" "z"\n    Note: "n1" "n2"\n    TYPE: t\n'
    response = '<A-1-5> :=\n    NAME: "x" "w"\n    NOTE: "n1"\n    type: T\n'
    counts = run_templates(tmp_path, key, response)
    name = Tally.from_counts(counts, "slot:a:name:")
    # COR 1 (x), INC = min(3, 2) - 1 = 1, MIS 1 (the third key fill)
    assert (name.pos, name.act, name.cor, name.inc, name.mis, name.spu) == (3, 2, 1, 1, 1, 0)
    assert counts["slot:a:note:non"] == 2 and counts.get("slot:a:note:pos", 0) == 0
    assert Tally.from_counts(counts, "slot:a:type:").cor == 1


def test_decision_11_unaligned_key_objects_mis_smallest_alternative_non_the_rest(
    tmp_path: Path,
) -> None:
    key = (
        '<A-1-1> :=\n    NAME: "a" "b"\n        / "c"\n    TYPE: / t\n'
        '<A-1-2> :=\n    NAME: "x" "y"\n    TYPE: u\n    OBJ_STATUS: OPTIONAL\n'
    )
    counts = run_templates(tmp_path, key, "")
    # object 1: NAME MIS 1 ("c"), NON 2 ("a", "b"); optional TYPE NON 1.
    # object 2 (optional, unaligned): NON per fill (NAME 2, TYPE 1), the object row NON 1
    assert (counts["slot:a:name:mis"], counts["slot:a:name:non"]) == (1, 4)
    assert counts["slot:a:type:non"] == 2 and counts.get("slot:a:type:mis", 0) == 0
    assert (counts["obj:a:mis"], counts["obj:a:non"]) == (1, 1)


def test_decision_14_relative_files_resolve_against_the_configuration(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "configs"
    write(folder / "key.tpl", '<A-1-1> :=\n    NAME: "q"\n')
    write(folder / "response.tpl", '<A-1-1> :=\n    NAME: "q"\n')
    write(folder / "muc.config", TALLY_CONFIG)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    data = cli.json("muc", folder / "muc.config")
    assert data["counts"]["cor"] == 1


def test_decisions_10_and_14_one_sided_documents_scored_with_a_warning(tmp_path: Path) -> None:
    key = '<A-2-1> :=\n    NAME: "q"\n'
    response = '<A-3-1> :=\n    NAME: "q"\n'
    folder = tmp_path / "configs"
    write(folder / "key.tpl", key)
    write(folder / "response.tpl", response)
    result = score_configured(write(folder / "muc.config", TALLY_CONFIG))
    assert list(result.documents) == ["2", "3"]  # the document number inside <TYPE-DOCNUM-N>
    assert (result.counts["mis"], result.counts["spu"]) == (1, 1)
    said = texts(result)
    assert any("no response" in w and "2" in w for w in said)
    assert any("not in the key" in w and "3" in w for w in said)


# --- muc.md decisions 6 and 10: named entity ---------------------------------------------------

NE_KEY = """<DOC>
<DOCNO> 12-34.5 </DOCNO>
<TXT>
<ENAMEX TYPE="ORGANIZATION" ALT="Acme|Acme Bank">the Acme Bank</ENAMEX> and \
<ENAMEX TYPE="PERSON">Jo</ENAMEX> met <ENAMEX TYPE="PERSON" STATUS="OPT">Al</ENAMEX>.
</TXT>
</DOC>
"""
NE_RESPONSE = """<DOC>
<DOCNO> 12-34.5 </DOCNO>
<TXT>
the <ENAMEX TYPE="ORGANIZATION">Acme Bank</ENAMEX> and <ENAMEX TYPE="LOCATION">Jo</ENAMEX> met Al.
</TXT>
</DOC>
"""


def test_decision_6_alt_values_each_an_alternative_and_opt_objects_optional(
    tmp_path: Path,
) -> None:
    key = write(tmp_path / "k.sgml", NE_KEY)
    response = write(tmp_path / "r.sgml", NE_RESPONSE)
    result = score_muc_named_entity(key, response)
    c = result.counts
    # "Acme Bank" is the second ALT value on its own: TEXT COR; "Jo" TYPE INC, TEXT COR;
    # the optional "Al" left untagged costs nothing (NON)
    assert Tally.from_counts(c, "slot:enamex:text:").cor == 2
    assert Tally.from_counts(c, "slot:enamex:type:").inc == 1
    assert (c["mis"], c["spu"], c["obj:enamex:non"]) == (0, 0, 1)
    # decision 10: the digits of the document number
    assert list(result.documents) == ["12345"]


# --- muc.md decision 15 (b), (c): coreference alignment and REF closure ----------------------


def coref(tmp_path: Path, key: str, response: str) -> dict[str, int]:
    head = "<DOC>\n<DOCNO> 5 </DOCNO>\n<TEXT>\n"
    tail = "\n</TEXT>\n</DOC>\n"
    k = write(tmp_path / "k.sgml", head + key + tail)
    r = write(tmp_path / "r.sgml", head + response + tail)
    result = score_muc_coreference(k, r)
    assert result.warnings == ()
    return {k: int(v) for k, v in result.counts.items()}


def test_decision_15c_ref_closure_runs_through_unaligned_optional_markables(
    tmp_path: Path,
) -> None:
    """Key 1 <- 2 (optional, not in the response) <- 3: 1 and 3 stay one class."""
    key = (
        '<COREF ID="1">Acme</COREF> said <COREF ID="2" REF="1" STATUS="OPT">it</COREF> '
        'and <COREF ID="3" REF="2">the firm</COREF>'
    )
    response = '<COREF ID="1">Acme</COREF> said it and <COREF ID="3" REF="1">the firm</COREF>'
    c = coref(tmp_path, key, response)
    assert (c["muc_recall_num"], c["muc_recall_den"]) == (1, 1)
    assert (c["markables:opt"], c["markables:mis"], c["key_classes"]) == (1, 0, 1)


def test_decision_15b_a_min_string_twice_in_its_key_is_met_by_either(tmp_path: Path) -> None:
    key = '<COREF ID="1">Acme</COREF> and <COREF ID="4" REF="1" MIN="co">co and co</COREF>'
    response = '<COREF ID="1">Acme</COREF> and co and <COREF ID="9" REF="1">co</COREF>'
    c = coref(tmp_path, key, response)
    assert (c["markables:cor"], c["markables:spu"]) == (2, 0)
    assert c["muc_recall_num"] == 1


def test_decision_15b_equal_shared_lengths_go_to_the_earlier_key_start(tmp_path: Path) -> None:
    """Response "x" is eligible for key 1 ("z x", MIN "x") and for the nested key 2 (exactly
    "x"): both share 1 character, so the key that starts first (1) takes it."""
    head = "<DOC>\n<DOCNO> 5 </DOCNO>\n<TEXT>\n"
    key = write(
        tmp_path / "k.sgml",
        head + '<COREF ID="1" MIN="x">z <COREF ID="2">x</COREF></COREF> y\n</TEXT>\n</DOC>\n',
    )
    response = write(tmp_path / "r.sgml", head + 'z <COREF ID="a">x</COREF> y\n</TEXT>\n</DOC>\n')
    result = score_muc_coreference(key, response)
    assert result.details.coref[0].key_to_response == {"1": "a"}
    assert (result.counts["markables:cor"], result.counts["markables:mis"]) == (1, 1)


# --- muc.md decision 9: every output file the manual lists, as configured --------------------


def test_decision_9_use_ie_report_summary_gives_object_records_for_named_entity(
    cli: Cli, tmp_path: Path
) -> None:
    for name in ("ne.config", "ne.key.sgml", "ne.response.sgml"):
        write(tmp_path / name, (MUC / name).read_text(encoding="utf-8"))
    plain = tmp_path / "ne.config"
    ie = write(
        tmp_path / "ie.config", plain.read_text(encoding="utf-8") + ":use_IE_report_summary yes\n"
    )
    assert cli("muc", plain, "--summary", tmp_path / "s1.txt").exit_code == 0
    assert cli("muc", ie, "--summary", tmp_path / "s2.txt").exit_code == 0
    one_line = (tmp_path / "s1.txt").read_text(encoding="utf-8").splitlines()
    records = (tmp_path / "s2.txt").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith("ENAMEX     inc  cor  PERSON") for line in one_line)
    assert [line.split() for line in records[:3]] == [
        ["COR", "|", "|", "<ENAMEX-9301010001-1>", "|", "<ENAMEX-9301010001-1>"],
        ["cor", "|", "TYPE:", "|", "ORGANIZATION", "|", "ORGANIZATION"],
        ["cor", "|", "TEXT:", "|", "Acme", "Widget", "Corp.", "|", "Acme", "Widget", "Corp."],
    ]
