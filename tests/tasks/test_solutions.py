"""The gold standard as the submission that scores best (``Task.solution``,
:mod:`annoscore.tasks.solutions`): where the task's rules cap the score below 1.0, the note
states the best value, and scoring the written submission gives exactly that value."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats.muc_template import read_templates
from annoscore.formats.writers import response_templates_text
from annoscore.samples import SAMPLES
from annoscore.tasks import registry
from annoscore.templates import TemplateDocument

BEST = re.compile(r"the best (\w+) is ([0-9.]+)")


def _solve(task: str, gold: Path, work: Path, **options: Any) -> tuple[list[str], float | None]:
    """The notes of the task's solution of ``gold`` and the headline it scores."""
    entry = registry.get(task)
    parsed = entry.parse_options(options)
    target = work / "solution"
    notes = entry.write_solution(gold, target, parsed)
    assert notes is not None
    files = sorted(target.iterdir())
    submission = files[0] if len(files) == 1 and gold.is_file() else target
    return notes, entry.score_with(gold, submission, parsed).score


def _stated(notes: list[str], headline: str) -> float:
    found = [float(v) for name, v in BEST.findall(" ".join(notes)) if name == headline]
    assert len(found) == 1, notes
    return found[0]


def test_every_task_has_a_solution_or_a_gold_that_is_one() -> None:
    converted = {t.name for t in registry.TASKS.values() if t.solution}
    assert converted == {
        "trec",
        "codiesp-x",
        "muc-template-element",
        "muc-template-relation",
        "muc-scenario-template",
        "are-1",
        "are-3",
    }


# --- trec --------------------------------------------------------------------------------------

QRELS = (
    "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\n"  # a judgement twice: ranked once
    "q2 0 d3 0\nq2 0 d9 -1\n"  # no relevant document
    "q3 0 d4 1\nq3 0 d5 2\nq3 0 d6 2\n"
    "q\xe9 0 d\xff\xfe 1\n"  # bytes that are not UTF-8, kept as they are
)


@pytest.fixture
def qrels(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.txt"
    path.write_bytes(QRELS.encode("latin-1"))
    return path


def test_trec_ranks_the_relevant_documents_and_leaves_out_queries_without_one(
    qrels: Path, tmp_path: Path
) -> None:
    notes, score = _solve("trec", qrels, tmp_path)
    assert notes == [] and score == 1.0
    run = (tmp_path / "solution" / "run.txt").read_bytes()
    assert run.count(b"q1 Q0 d1 ") == 1 and b"q2" not in run and b"d\xff\xfe" in run


def test_trec_complete_counts_the_queries_without_a_relevant_document(
    qrels: Path, tmp_path: Path
) -> None:
    notes, score = _solve("trec", qrels, tmp_path, complete=True)
    assert "1 judged query(ies) have no relevant document" in notes[0]
    assert score is not None and _stated(notes, "map") == round(score, 4) == 0.75  # 3 of 4


def test_trec_max_docs_caps_a_query_with_more_relevant_documents(
    qrels: Path, tmp_path: Path
) -> None:
    notes, score = _solve("trec", qrels, tmp_path, max_docs=2)
    assert "1 query(ies) have more relevant documents than max_docs (-M 2)" in notes[0]
    assert score is not None and _stated(notes, "map") == round(score, 4) == 0.8889


@pytest.mark.parametrize(("level", "ranked"), [(2, {b"d5", b"d6"}), (0, {b"d2", b"d3"})])
def test_trec_relevance_level_chooses_the_documents(
    qrels: Path, tmp_path: Path, level: int, ranked: set[bytes]
) -> None:
    notes, score = _solve("trec", qrels, tmp_path, relevance_level=level)
    assert notes == [] and score == 1.0
    run = (tmp_path / "solution" / "run.txt").read_bytes()
    assert ranked <= {line.split()[2] for line in run.splitlines()}
    assert b"d9" not in run  # judged below 0: never relevant


# --- codiesp-x ---------------------------------------------------------------------------------


def test_codiesp_x_one_prediction_per_pair_and_invalid_codes_stated(tmp_path: Path) -> None:
    codes = tmp_path / "codes.tsv"
    codes.write_text("a1\tx\nb2\tx\n", encoding="utf-8")
    gold = tmp_path / "gold.tsv"
    gold.write_text(
        "D1\tDIAGNOSTICO\tA1\tpain\t10 14\n"
        "D1\tDIAGNOSTICO\ta1\tpains\t40 45\n"  # the same pair: one reference is enough
        "D1\tPROCEDIMIENTO\tb2\tx ray\t1 2;5 8\n"
        "D2\tDIAGNOSTICO\tzz\tother\t3 9\n",  # not a valid code
        encoding="utf-8",
    )
    options = {"codes_d": codes, "codes_p": codes}
    notes, score = _solve("codiesp-x", gold, tmp_path, **options)
    lines = (tmp_path / "solution" / "gold.tsv").read_text(encoding="utf-8").splitlines()
    assert lines == ["D1\t10 14\tDIAGNOSTICO\tA1", "D1\t1 8\tPROCEDIMIENTO\tb2"]
    assert "1 gold (document, code) pair(s) have a code outside the valid lists" in notes[0]
    assert score is not None and _stated(notes, "f1") == round(score, 4) == 0.8
    notes, score = _solve("codiesp-x", gold, tmp_path / "filtered", filter_gold=True, **options)
    assert notes == [] and score == 1.0


# --- MUC templates -----------------------------------------------------------------------------


def _shape(documents: list[TemplateDocument]) -> list[Any]:
    return [
        (
            d.id,
            [
                (o.id, o.optional, [(s.name, s.optional, [[(f.text, f.is_pointer, f.minimum)
                 for f in a] for a in s.alternatives]) for s in o.slots])
                for o in d.objects
            ],
        )
        for d in documents
    ]  # fmt: skip


def test_a_response_template_file_is_written_as_it_is_read(tmp_path: Path) -> None:
    response = read_templates(SAMPLES / "muc" / "response.synthetic.tpl", keys_syntax=False)
    path = tmp_path / "again.tpl"
    path.write_text(response_templates_text(response), encoding="utf-8")
    assert _shape(read_templates(path, keys_syntax=False)) == _shape(response)


def test_key_syntax_is_refused_by_the_response_writer() -> None:
    key = read_templates(SAMPLES / "muc" / "key.synthetic.tpl", keys_syntax=True)
    with pytest.raises(InputError, match="alternatives and optional slots are key syntax"):
        response_templates_text(key)


@pytest.mark.parametrize(
    "task", ["muc-template-element", "muc-template-relation", "muc-scenario-template"]
)
def test_a_key_with_alternatives_optional_slots_and_objects_becomes_a_perfect_response(
    tmp_path: Path, task: str
) -> None:
    key = SAMPLES / "muc" / "key.synthetic.tpl"
    text = key.read_text(encoding="utf-8")
    assert "/ " in text and "OBJ_STATUS: OPTIONAL" in text and "[maker]" in text
    config = SAMPLES / "muc" / "te.config"
    notes, score = _solve(task, key, tmp_path, config=config)
    assert notes == [] and score == 1.0
    written = (tmp_path / "solution" / key.name).read_text(encoding="utf-8")
    assert "/" not in written.replace("9901010001", "") and "OBJ_STATUS" not in written
    assert '"a maker of industrial widgets"' in written and '"Dr."' in written


# --- ARE tasks 1 and 3 -------------------------------------------------------------------------

ARE1_INPUT = """<document id="d">
<text><entity id="1">Ann</entity> said <entity id="2">she</entity> and <entity id="3">he</entity>
met <entity id="4">him</entity>; <entity id="5">it</entity> rained.</text>
<anaphoric_pronouns><pronoun id="2"/><pronoun id="3"/><pronoun id="4"/><pronoun id="5"/>
</anaphoric_pronouns></document>
"""
ARE1_GOLD = """<document id="d">
<chain><node id="2" type="pronoun"/><node id="1"/></chain>
<chain><node id="3"/><node id="4"/></chain>
<chain><node id="5" type="pronoun"/></chain>
</document>
"""


def test_are_1_pairs_each_pronoun_with_a_noun_phrase_and_states_the_best(tmp_path: Path) -> None:
    source, gold = tmp_path / "input.xml", tmp_path / "gold.xml"
    source.write_text(ARE1_INPUT, encoding="utf-8")
    gold.write_text(ARE1_GOLD, encoding="utf-8")
    notes, score = _solve("are-1", gold, tmp_path, input_path=source)
    # 2 -> 1 (a noun phrase, cataphora too): 1; 3 and 4 are listed, so pronouns, in a chain
    # without a noun phrase: 0.5 each; 5 is alone: 0
    assert notes == [
        "1 pronoun(s) to resolve are in no gold chain or alone in one (0); 2 pronoun(s) are in "
        "chains without a noun phrase (0.5 at most): the best success_rate is 0.5"
    ]
    assert score == 0.5
    written = (tmp_path / "solution" / "gold.xml").read_text(encoding="utf-8")
    assert '<pronoun id="2"/><antecedent id="1"/>' in written and 'pronoun id="5"' not in written


ARE3_INPUT = (
    '<document><text><node id="1"/>The <node id="2"/>man <node id="3"/>said <node id="4"/>he '
    '<node id="5"/>and <node id="6"/>she <node id="7"/>saw <node id="8"/>her <node id="9"/>. '
    '<node id="10"/>It <node id="11"/>ended</text></document>\n'
)
ARE3_GOLD = """<document>
<chain><mention start="1" end="2"/><mention start="4" end="4" type="pronoun"/></chain>
<chain><mention start="6" end="6" type="pronoun"/><mention start="8" end="8" type="pronoun"/>
</chain>
<chain><mention start="10" end="10" type="pronoun"/></chain>
</document>
"""


def test_are_3_pairs_each_gold_pronoun_and_states_the_best(tmp_path: Path) -> None:
    source, gold = tmp_path / "input.xml", tmp_path / "gold.xml"
    source.write_text(ARE3_INPUT, encoding="utf-8")
    gold.write_text(ARE3_GOLD, encoding="utf-8")
    notes, score = _solve("are-3", gold, tmp_path, input_path=source)
    # he -> the man: 1; she and her (a chain of pronouns): 0.5 each; It alone: not counted
    assert notes == [
        "2 pronoun(s) are in chains without a noun phrase (0.5 at most): the best f1 is 0.6667"
    ]
    assert score is not None and round(score, 4) == 0.6667
    written = (tmp_path / "solution" / "gold.xml").read_text(encoding="utf-8")
    assert '<pronoun start="4" end="4"/><antecedent start="1" end="2"/>' in written


def test_are_folders_keep_their_file_names_and_documents(tmp_path: Path) -> None:
    for name in ("a.xml", "b.xml"):
        (tmp_path / "gold").mkdir(exist_ok=True)
        (tmp_path / "input").mkdir(exist_ok=True)
        (tmp_path / "gold" / name).write_text(
            "<r>" + ARE1_GOLD.replace('id="d"', f'id="{name}1"') + "</r>", encoding="utf-8"
        )
        (tmp_path / "input" / name).write_text(
            "<r>" + ARE1_INPUT.replace('id="d"', f'id="{name}1"') + "</r>", encoding="utf-8"
        )
    notes, score = _solve("are-1", tmp_path / "gold", tmp_path, input_path=tmp_path / "input")
    assert sorted(p.name for p in (tmp_path / "solution").iterdir()) == ["a.xml", "b.xml"]
    assert score == 0.5 and _stated(notes, "success_rate") == 0.5
