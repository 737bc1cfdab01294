"""NLP Sandbox tasks: the spec's conformance table, and every count against nlpsandbox-client.

The client (nlpsandbox-client 4.3.1, ``nlpsandboxclient.evaluation``) is run in the same test on
the same files; its counts are read where it prints each table (``Evaluation.print_out(tp, fp,
fn, ...)``).  4.3.1 ships no covid-symptom evaluator class; the test declares one the way the
others are declared (evaluation type, type field, JSON array) on the client's base class, and
compares its instance and token counts only: its type level (``condition``) has no official
behaviour to compare with (this stand-in class counts no type match at all).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nlpsandboxclient.evaluation as official
import pytest

from annoscore.counts import Counts
from annoscore.formats.nlpsandbox import CATEGORIES
from annoscore.metrics.phi import Quotes, SameStart, Tokenizer, official_prf
from annoscore.result import Result
from annoscore.tasks import nlpsandbox as tasks
from annoscore.tasks.nlpsandbox import (
    NlpSandboxOptions,
    score_nlpsandbox_all,
    score_nlpsandbox_date,
    score_nlpsandbox_location,
)
from tests.conftest import shared_data
from tests.helpers import texts


class CovidSymptomEvaluation(official.Evaluation):  # type: ignore[misc]
    evaluation_type = "covid-symptom"
    annotation = "covid_symptom_annotations"
    col = "condition"
    post_path = "textCovidSymptomAnnotations"


EVALUATORS = {
    "date": official.DateEvaluation,
    "person": official.PersonNameEvaluation,
    "location": official.LocationEvaluation,
    "id": official.IdEvaluation,
    "contact": official.ContactEvaluation,
    "covid-symptom": CovidSymptomEvaluation,
}
METRIC_OF = {"relax": "instance_relax", "strict": "instance_strict"}


def official_counts(
    category: str, gold: Path, pred: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, int]:
    """The client's tp/fp/fn per metric, named as annoscore names them."""
    seen: dict[str, int] = {}

    def capture(self: Any, tp: int, fp: int, fn: int, level: str, mode: str) -> None:
        name = (
            "token_strict"
            if level == "token"
            else METRIC_OF[mode]
            if level == "instance"
            else "type"
        )
        seen.update({f"{name}_tp": tp, f"{name}_fp": fp, f"{name}_fn": fn})

    with monkeypatch.context() as patch:
        patch.setattr(official.Evaluation, "print_out", capture)
        evaluator = EVALUATORS[category]()
        evaluator.convert_dict(str(pred), str(gold))
        evaluator.eval()
    return seen


def score_category(category: str, gold: Path, pred: Path) -> Result:
    """``score_nlpsandbox_<category>`` with the default options."""
    return getattr(tasks, "score_nlpsandbox_" + category.replace("-", "_"))(gold, pred)  # type: ignore[no-any-return]


def ours(counts: Counts, category: str | None = None) -> dict[str, int]:
    """The counts of one category (of ``all`` counts when ``category`` is given), hipaa left out."""
    prefix = "" if category is None else category.replace("-", "_") + "_"
    return {k: int(v) for k, v in counts.select(prefix).items() if not k.startswith("hipaa")}


# --- the spec's table ------------------------------------------------------------------------

SPEC_TABLE = {  # (F1, P, R) of instance relax, instance strict, token strict, type
    "date": [(0.75, 0.75, 0.75), (0.5, 0.5, 0.5), (0.67, 0.6, 0.75), None],  # type: NaN
    "person": [(0.5, 0.5, 0.5), (0.5, 0.5, 0.5), (0.77, 0.83, 0.71), None],
    "location": [(0.75, 0.75, 0.75), (0.5, 0.5, 0.5), (0.8, 1.0, 0.67), (0.5, 0.5, 0.5)],
    "id": [(1.0, 1.0, 1.0)] * 4,
    "contact": [(1.0, 1.0, 1.0)] * 4,
    "covid-symptom": [(0, 0, 0)] * 4,
}


@pytest.mark.parametrize("category", list(SPEC_TABLE))
def test_client_test_data_gives_the_spec_table(
    category: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    result = score_category(category, gold, pred)
    rows = [
        official_prf(*(result.counts[f"{m}_{k}"] for k in ("tp", "fp", "fn")))
        for m in ("instance_relax", "instance_strict", "token_strict", "type")
    ]
    expected = SPEC_TABLE[category]
    assert rows[:3] == expected[:3]
    # the official eval() reports NaN for the date and person type; annoscore computes it, from
    # the counts the official prints in its type table (compared below with every other count)
    assert rows[3] == expected[3] or expected[3] is None
    assert ours(result.counts) == official_counts(category, gold, pred, monkeypatch)


def test_whitespace_tokenizer_gives_the_pre_2022_location_tokens() -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    options = NlpSandboxOptions(tokenizer=Tokenizer.whitespace)
    result = score_nlpsandbox_location(gold, pred, options)
    c = result.counts
    assert official_prf(c["token_strict_tp"], c["token_strict_fp"], c["token_strict_fn"]) == (
        0.67,
        0.75,
        0.6,
    )
    assert "tokenizer:whitespace" in str(result.signature)


def test_schema_1_1_physical_address_reads_as_location(tmp_path: Path) -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    old = []
    for item in json.loads(pred.read_text()):
        locations = item.pop("textLocationAnnotations")
        for annotation in locations:
            annotation["addressType"] = annotation.pop("locationType")
        item["textPhysicalAddressAnnotations"] = locations
        old.append(item)
    old_pred = tmp_path / "old.json"
    old_pred.write_text(json.dumps(old))
    assert (
        score_nlpsandbox_location(gold, old_pred).counts
        == score_nlpsandbox_location(gold, pred).counts
    )


# --- random pairs against the client ---------------------------------------------------------

WORDS = [
    "Jon", "Smith", "David's", "Boston,", "MA", "(617)", "555-1234", "U.S.", "can't", "O'Neil",
    "St.", "12/25/2020", "Dr.Smith", "#4", "fever", "cough", "e-mail:", "a@b.org", "--", "'s",
    "cannot", "Mass.", "[x]", "100%", "$5", "i.e.", "gonna", "'quoted'", "...", "end.",
]  # fmt: skip
QUOTED = ['"Jon"', '"Boston" MA', 'say "hi"', "''x''", '"']
SPACES = [" ", " ", " ", "  ", "\t", " \n "]
TYPES = ["a", "b", "", None, "city", "zip", "hospital", "room"]


def _word(rnd: random.Random) -> str:
    if rnd.random() < 0.2:  # digits vary: the tokenizer cache shares spans by digit shape
        n = rnd.randint(0, 99999)
        return rnd.choice(
            [f"{n}", f"{n:,}", f"{n % 24}:{n % 60:02d}", f"${n}.", f"'{n}'", f"{n}th"]
        )
    return rnd.choice(WORDS)


def _text(rnd: random.Random, quotes: bool) -> str:
    words = [_word(rnd) for _ in range(rnd.randint(1, 4))]
    if quotes and rnd.random() < 0.15:
        words.insert(rnd.randrange(len(words) + 1), rnd.choice(QUOTED))
    text = words[0]
    for word in words[1:]:
        text += rnd.choice(SPACES) + word
    if rnd.random() < 0.05:
        text = rnd.choice([" ", "  "]) + text
    if rnd.random() < 0.05:
        text += " "
    return text


def _annotation(rnd: random.Random, field: str, quotes: bool) -> dict[str, Any]:
    text = _text(rnd, quotes)
    item: dict[str, Any] = {
        "start": rnd.randrange(0, 60),
        "length": len(text) if rnd.random() < 0.8 else max(0, len(text) + rnd.randint(-3, 3)),
        "text": text,
        "confidence": 50,
    }
    if rnd.random() < 0.85:  # sometimes no type at all
        item[field] = rnd.choice(TYPES)
    return item


def _perturbed(
    rnd: random.Random, gold: dict[str, Any], field: str, quotes: bool
) -> dict[str, Any]:
    item = dict(gold)
    roll = rnd.random()
    if roll < 0.15:  # end moved: inside or outside the relax margin
        item["length"] = max(0, item["length"] + rnd.choice([-3, -2, -1, 1, 2, 3]))
    elif roll < 0.25:  # start moved: never an instance match, tokens may still match
        item["start"] = max(0, item["start"] + rnd.choice([-2, -1, 1, 2]))
    elif roll < 0.35:
        item[field] = rnd.choice(TYPES)
    elif roll < 0.42:
        item.pop(field, None)
    elif roll < 0.5:
        item["text"] = _text(rnd, quotes)
    return item


def _pair(rnd: random.Random, quotes: bool) -> tuple[list[Any], list[Any]]:
    notes = [f"n{k}" for k in range(rnd.randint(1, 5))]
    gold_notes = [n for n in notes if rnd.random() < 0.9] or notes[:1]
    pred_notes = [n for n in notes if rnd.random() < 0.9]  # some notes on one side only
    gold, pred = [], []
    for note in notes:
        g_obj: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": f"dir/{note}"}}}
        p_obj: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": note}}}
        for category in CATEGORIES.values():
            array, field = category.arrays[0], category.type_fields[0]
            g_items = [_annotation(rnd, field, quotes) for _ in range(rnd.randint(0, 6))]
            p_items = []
            for g in g_items:
                if rnd.random() < 0.8:
                    p_items.append(_perturbed(rnd, g, field, quotes))
                if rnd.random() < 0.1:  # another prediction at the same start: last one wins
                    p_items.append({**_annotation(rnd, field, quotes), "start": g["start"]})
            p_items += [_annotation(rnd, field, quotes) for _ in range(rnd.randint(0, 2))]
            rnd.shuffle(p_items)
            g_obj[array], p_obj[array] = g_items, p_items
        if note in gold_notes:
            gold.append(g_obj)
        if note in pred_notes:
            pred.append(p_obj)
    return gold, pred


def _pairs(tmp_path: Path, count: int, seed: int, quotes: bool) -> Iterator[tuple[Path, Path]]:
    rnd = random.Random(seed)
    for k in range(count):
        gold, pred = _pair(rnd, quotes)
        g, p = tmp_path / f"g{k}.json", tmp_path / f"p{k}.json"
        g.write_text(json.dumps(gold))
        p.write_text(json.dumps(pred))
        yield g, p


def _untyped(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if not k.startswith("type_")}


def test_every_count_equals_the_client_on_random_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """240 random pairs (quotes included), ``--quotes official``: every count of every category."""
    compared = 0
    for gold, pred in _pairs(tmp_path, 240, seed=2022, quotes=True):
        result = score_nlpsandbox_all(gold, pred, NlpSandboxOptions(quotes=Quotes.official))
        per_note = Counts.total(result.document_counts().values())
        assert per_note == result.counts  # the notes add up to the pooled counts
        for category in CATEGORIES:
            expected = official_counts(category, gold, pred, monkeypatch)
            got = ours(result.counts, category)
            if category == "covid-symptom":  # no official class: its type level is not compared
                got, expected = _untyped(got), _untyped(expected)
            assert got == expected, (gold.read_text(), category)
            compared += 1
    assert compared == 240 * 6


def test_fixed_quotes_differ_from_the_client_only_on_texts_with_a_double_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The accepted difference (spec, Decisions): the default ``--quotes fixed``."""
    differing = 0
    for gold, pred in _pairs(tmp_path, 60, seed=7, quotes=True):
        result = score_nlpsandbox_all(gold, pred)
        has_quote = '\\"' in gold.read_text() + pred.read_text()
        for category in CATEGORIES:
            expected = official_counts(category, gold, pred, monkeypatch)
            got = ours(result.counts, category)
            if category == "covid-symptom":
                got, expected = _untyped(got), _untyped(expected)
            instance = {k: v for k, v in got.items() if not k.startswith("token")}
            assert instance == {k: v for k, v in expected.items() if not k.startswith("token")}
            if not has_quote:
                assert got == expected
            elif got != expected:
                differing += 1
                assert any("double quote" in w for w in texts(result))
    assert differing > 0  # the generator does produce the case


def test_last_annotation_at_a_start_wins_and_is_counted(tmp_path: Path) -> None:
    def item(start: int, text: str) -> dict[str, Any]:
        return {"start": start, "length": len(text), "text": text}

    def file(name: str, *items: dict[str, Any]) -> Path:
        path = tmp_path / name
        obj = {
            "annotationSource": {"resourceSource": {"name": "n"}},
            "textDateAnnotations": list(items),
        }
        path.write_text(json.dumps([obj]))
        return path

    gold = file("g.json", item(5, "May 1"))
    pred = file("p.json", item(5, "May 1"), item(5, "May"))
    last = score_nlpsandbox_date(gold, pred)
    assert (last.counts["instance_strict_tp"], last.counts["instance_relax_tp"]) == (0, 1)
    assert any("1 prediction annotations" in w and "overwritten" in w for w in texts(last))
    first = score_nlpsandbox_date(gold, pred, NlpSandboxOptions(same_start=SameStart.first))
    assert first.counts["instance_strict_tp"] == 1
    assert "same-start:first" in str(first.signature)


# --- the rule for undefined numbers, the API on data ------------------------------------------


def test_undefined_scores_are_null_named_once_and_printed_0_in_the_official_table() -> None:
    """The client's test data has no covid-symptom annotation: every score is undefined (JSON
    null, one warning naming each), and the official table prints the official int 0."""
    from annoscore.report.nlpsandbox import render_official
    from annoscore.tasks.nlpsandbox import score_nlpsandbox_covid_symptom

    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    result = score_nlpsandbox_covid_symptom(gold, pred)
    assert result.scores and set(result.scores.values()) == {None}
    [named] = [w for w in result.warnings if w.code == "undefined"]
    assert str(named).rpartition(": ")[2].split(", ") == list(result.scores)
    assert "relax                    0              0              0" in render_official(result)
    assert result.score is None
    defined = score_nlpsandbox_location(gold, pred)
    assert not [w for w in defined.warnings if w.code == "undefined"]


def test_every_count_function_equals_its_score_function_on_the_same_data() -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    gold_notes, pred_notes = json.loads(gold.read_text()), json.loads(pred.read_text())
    options = NlpSandboxOptions(tokenizer=Tokenizer.whitespace, relax_margin=0)
    for name in [*(c.replace("-", "_") for c in CATEGORIES), "all"]:
        on_files = getattr(tasks, f"score_nlpsandbox_{name}")(gold, pred, options)
        in_memory = getattr(tasks, f"count_nlpsandbox_{name}")(gold_notes, pred_notes, options)
        named = json.dumps(on_files.to_dict())  # warnings name the data: the file, or the side
        named = named.replace("goldstandard.json", "gold").replace("prediction.json", "prediction")
        assert in_memory.to_dict() == json.loads(named), name
        assert in_memory.matrix.documents == on_files.matrix.documents


def test_data_in_memory_is_refused_as_a_file_is_naming_the_side_and_the_json_path() -> None:
    from annoscore.errors import InputError
    from annoscore.tasks.nlpsandbox import count_nlpsandbox_all, count_nlpsandbox_date

    note = {"annotationSource": {"resourceSource": {"name": "n"}}}
    bad = [{**note, "textDateAnnotations": [{"start": 1, "length": True, "text": "x"}]}]
    with pytest.raises(InputError) as caught:
        count_nlpsandbox_date([note], bad)
    assert str(caught.value) == (
        "prediction: [0].textDateAnnotations[0].length: expected a non-negative integer"
    )
    for wrong in ({"n": note}, "notes.json", [(note,)]):
        with pytest.raises(InputError, match=r"^gold: "):
            count_nlpsandbox_date(wrong, [note])  # type: ignore[arg-type]
    as_tuple = [{**note, "textDateAnnotations": ({"start": 1, "length": 1, "text": "x"},)}]
    with pytest.raises(InputError, match=r"\[0\].textDateAnnotations: expected a list"):
        count_nlpsandbox_date(as_tuple, [note])
    with pytest.raises(InputError, match="no PHI annotation array"):
        count_nlpsandbox_all([note], [note])


def test_all_has_no_headline_score_and_keeps_the_leaderboard_keys() -> None:
    gold = shared_data("nlpsandbox", "goldstandard.json")
    pred = shared_data("nlpsandbox", "prediction.json")
    result = score_nlpsandbox_all(gold, pred)
    with pytest.raises(ValueError, match="names no headline"):
        _ = result.score
    data = result.to_dict()
    assert data["categories"] == list(CATEGORIES)
    assert data["leaderboard"]["location"]["location_F1_token_strict"] == 0.8
    assert score_nlpsandbox_location(gold, pred).score == data["scores"]["location_token_strict_f1"]
