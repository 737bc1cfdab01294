"""``annoscore nlpsandbox`` held to a plain reference and, on a subset, to nlpsandbox-client 4.3.1.

The generator aims at what the reader and the columnar counts do fast: note ids from the
adversarial pool (``ids.py``: 1-40 bytes, multi-byte, shared prefixes, last-byte variants,
numeric-looking), notes on one side only, notes given in several objects (pooled), shared
starts, overlapping annotations, missing and ``null`` types, both location schemas, rewritten
quotes, multi-byte and odd-whitespace texts, digit variants (the tokenizer caches spans by digit
shape), offsets near 2**53 (keys that no longer fit one int64: the other packing paths), files
past the reader's chunk of objects, and one bad item (the reader's message, compared).  Each case
runs through :func:`annoscore.tasks.nlpsandbox.score_nlpsandbox_all` (or one category's score
function) with random options, with the reader's fast scan on or forced to decline, through the
same task's ``count_nlpsandbox_*`` on the data in memory in one case of 4, and through
``tests/oracles/nlpsandbox.py``: per-note and corpus counts, scores (the undefined ones named in
one warning), official leaderboard values and warnings equal.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import annoscore.formats.nlpsandbox as reader
from annoscore.errors import InputError
from annoscore.metrics.phi import Quotes, SameStart, Tokenizer
from annoscore.metrics.phi_tokens import TokenSpans
from annoscore.tasks import nlpsandbox as tasks
from annoscore.tasks.nlpsandbox import NlpSandboxOptions, score_nlpsandbox_all
from tests.equivalence.ids import id_pool, split_sides
from tests.oracles import nlpsandbox as oracle

SCALE = int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))

WORDS = [
    "Jon", "Smith", "David's", "Boston,", "MA", "(617)", "U.S.", "can't", "O'Neil", "St.",
    "Dr.Smith", "#4", "fever", "e-mail:", "a@b.org", "--", "'s", "cannot", "[x]", "100%", "$5",
    "i.e.", "gonna", "'quoted'", "...", "end.", "Zoë", "José's", "北京", "Ωmega", "😀", "naïve",
    "Straße", "Ж.", "né(e)", "x/y", "1/2",
]  # fmt: skip
QUOTED = ['"Jon"', '"Boston" MA', 'say "hi"', "''x''", '"', '"北京"']
SPACES = [" ", " ", " ", "  ", "\t", " \n ", "\u00a0", "\u2003", " \u2028 "]
TYPES = ["a", "", None, "city", "City", "zip", "hospital", "room", "planet", "location-other",
         "MM/DD", "doctor", "ürt"]  # fmt: skip
FIELDS = {name: fields for name, (_, fields) in oracle.CATEGORY_FIELDS.items()}
ARRAYS = {name: arrays for name, (arrays, _) in oracle.CATEGORY_FIELDS.items()}


def _word(rng: random.Random) -> str:
    if rng.random() < 0.25:  # digits vary: the tokenizer cache shares spans by digit shape
        n = rng.randint(0, 99999)
        return rng.choice(
            [f"{n}", f"{n:,}", f"{n % 24}:{n % 60:02d}", f"${n}.", f"'{n}'", f"{n}th", f"{n}-{n}"]
        )
    return rng.choice(WORDS)


def _text(rng: random.Random, quotes: bool) -> str:
    if rng.random() < 0.03:
        return rng.choice(["", " ", "\t"])
    words = [_word(rng) for _ in range(rng.randint(1, 3))]
    if quotes and rng.random() < 0.15:
        words.insert(rng.randrange(len(words) + 1), rng.choice(QUOTED))
    text = words[0]
    for word in words[1:]:
        text += rng.choice(SPACES) + word
    if rng.random() < 0.05:
        text = rng.choice([" ", "  "]) + text
    if rng.random() < 0.05:
        text += " "
    return text


def _item(rng: random.Random, category: str, quotes: bool, far: bool, first: int) -> Any:
    """One annotation; ``first`` > 0: what the client reads (starts from ``first``, the 1.2
    type field only)."""
    text = _text(rng, quotes)
    start = rng.randrange(first, 40)
    if far and rng.random() < 0.5:
        start = reader.MAX_OFFSET - rng.randrange(0, 60)
    roll = rng.random()
    length = len(text) if roll < 0.75 else max(0, len(text) + rng.randint(-3, 3))
    if far and roll > 0.97:
        length = reader.MAX_OFFSET
    item: dict[str, Any] = {"start": start, "length": length, "text": text, "confidence": 95.5}
    fields = FIELDS[category]
    if rng.random() < 0.85:
        item[fields[0] if first or rng.random() < 0.8 else fields[-1]] = rng.choice(TYPES)
    if category == "location" and not first and rng.random() < 0.1:  # both: the first counts
        item[fields[-1]] = rng.choice(TYPES)
    return dict(rng.sample(sorted(item.items()), len(item)))


def _perturbed(rng: random.Random, gold: dict[str, Any], category: str, quotes: bool) -> Any:
    item = dict(gold)
    roll = rng.random()
    fields = FIELDS[category]
    if roll < 0.15:  # the end moved: inside or outside the relax margin
        item["length"] = max(0, item["length"] + rng.choice([-3, -2, -1, 1, 2, 3]))
    elif roll < 0.25:  # the start moved: never an instance match, tokens may still match
        item["start"] = max(0, item["start"] + rng.choice([-2, -1, 1, 2]))
    elif roll < 0.35:
        item[fields[0]] = rng.choice(TYPES)
    elif roll < 0.42:
        for name in fields:
            item.pop(name, None)
    elif roll < 0.5:
        item["text"] = _text(rng, quotes)
    return item


def _names(rng: random.Random, note: str) -> str:
    return rng.choice(["", "", "dir/", "a/b/", "/abs/", "./"]) + note


def _case(
    rng: random.Random, objects: int, *, official: bool = False, size: int = 3
) -> tuple[list[Any], list[Any]]:
    """A gold and a prediction list, up to ``size`` gold annotations per note and category.
    ``official``: what the client reads (every array present in every object, the 1.2
    location schema, starts from 1, no offsets near 2**53)."""
    pool = id_pool(rng, max(1, objects), wide=True)
    gold_notes, pred_notes = split_sides(rng, pool)
    quotes = rng.random() < 0.5
    far = not official and rng.random() < 0.15
    first = 1 if official else 0
    gold: list[Any] = []
    pred: list[Any] = []
    for note in dict.fromkeys(gold_notes + pred_notes):
        for _ in range(1 if official or rng.random() < 0.85 else 2):  # pooled objects
            g_obj: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": ""}}}
            p_obj: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": ""}}}
            g_obj["annotationSource"]["resourceSource"]["name"] = _names(rng, note)
            p_obj["annotationSource"]["resourceSource"]["name"] = _names(rng, note)
            for category in oracle.CATEGORY_FIELDS:
                g_items = [
                    _item(rng, category, quotes, far, first) for _ in range(rng.randint(0, size))
                ]
                p_items = []
                for g in g_items:
                    if rng.random() < 0.8:
                        p_items.append(_perturbed(rng, g, category, quotes))
                    if rng.random() < 0.1:  # another prediction at the same start
                        p_items.append(
                            {**_item(rng, category, quotes, far, first), "start": g["start"]}
                        )
                p_items += [
                    _item(rng, category, quotes, far, first) for _ in range(rng.randint(0, 2))
                ]
                rng.shuffle(p_items)
                for obj, items in ((g_obj, g_items), (p_obj, p_items)):
                    arrays = ARRAYS[category]
                    if official:
                        obj[arrays[0]] = items
                        continue
                    roll = rng.random()
                    if roll < 0.1:
                        continue  # no array: read as empty, counted
                    if len(arrays) > 1 and roll < 0.25:  # the 1.1 schema, or both arrays
                        cut = rng.randint(0, len(items))
                        obj[arrays[1]] = items[cut:]
                        if roll < 0.18:
                            obj[arrays[0]] = items[:cut]
                        continue
                    obj[arrays[0]] = items
            if note in gold_notes:
                gold.append(g_obj)
            if note in pred_notes:
                pred.append(p_obj)
    if not official and rng.random() < 0.3:
        rng.shuffle(gold)
        rng.shuffle(pred)
    return gold, pred


def _corrupt(rng: random.Random, data: list[Any]) -> Any:
    """The data with one thing the reader refuses (or a shape it reads anyway)."""
    if not data or rng.random() < 0.05:
        return rng.choice([{"notes": data}, "text", 3, None])
    k = rng.randrange(len(data))
    obj = data[k]
    roll = rng.random()
    if roll < 0.1:
        data[k] = rng.choice([[obj], "x", 7, None])
    elif roll < 0.2:
        obj["annotationSource"] = rng.choice(["x", [], None, {"resourceSource": "n"}])
    elif roll < 0.3:
        bad_names = ["dir/", "", 5, None, "n\ud800x", "a/\udfff"]
        obj["annotationSource"]["resourceSource"]["name"] = rng.choice(bad_names)
    else:
        arrays = [name for name in obj if name != "annotationSource"]
        if not arrays:
            obj["textIdAnnotations"] = {}
            return data
        array = rng.choice(arrays)
        if rng.random() < 0.15 or not obj[array]:
            obj[array] = rng.choice([{}, "x", 1, None])
            return data
        item = rng.choice(obj[array])
        key, value = rng.choice(
            [
                ("start", -1),
                ("start", 1.0),
                ("start", True),
                ("start", "3"),
                ("length", None),
                ("length", 2**53),
                ("start", 2**70),
                ("text", 5),
                ("text", None),
                ("dateFormat", 3),
                ("locationType", ["city"]),
                ("idType", False),
            ]
        )
        if rng.random() < 0.2:
            item.pop(rng.choice(["start", "length", "text"]))
        else:
            item[key] = value
    return data


def _write(path: Path, data: Any, rng: random.Random) -> Path:
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, None, 1]))
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def _warnings(result: Any) -> Counter[tuple[str, int, tuple[str, ...]]]:
    return Counter((w.code, w.count, tuple(w.examples)) for w in result.warnings)


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def _compare(result: Any, expected: oracle.Outcome, context: str) -> None:
    per_note = {note: dict(counts) for note, counts in result.document_counts().items()}
    assert list(per_note) == list(expected.per_note), context
    assert per_note == expected.per_note, context
    assert dict(result.counts) == expected.counts, context
    assert set(result.scores) == set(expected.scores), context
    for key, value in expected.scores.items():
        assert _close(result.scores[key], value), (key, result.scores[key], value, context)
    boards = result.extra["leaderboard"]
    if "categories" not in result.extra:
        boards = {next(iter(expected.leaderboard)): boards}
    assert boards == expected.leaderboard, context
    assert _warnings(result) == expected.warnings, context
    undefined = [k for k, v in expected.scores.items() if v is None]
    named = [
        w.message.rpartition(": ")[2].split(", ") for w in result.warnings if w.code == "undefined"
    ]
    assert named == ([undefined] if undefined else []), context


OPTIONS: dict[str, list[Any]] = {
    "tokenizer": list(Tokenizer),
    "quotes": list(Quotes),
    "same_start": list(SameStart),
    "relax_margin": [0, 1, 2, 2, 3],
}


def _run(gold: Any, pred: Any, category: str | None, options: dict[str, Any]) -> Any:
    """The task's score function on files, or (``gold`` and ``pred`` lists) its count
    function on the data in memory."""
    kind = "score" if isinstance(gold, Path) else "count"
    name = "all" if category is None else category.replace("-", "_")
    return getattr(tasks, f"{kind}_nlpsandbox_{name}")(gold, pred, NlpSandboxOptions(**options))


def _oracle(gold: Path, pred: Path, category: str | None, options: dict[str, Any]) -> Any:
    plain = {k: getattr(v, "value", v) for k, v in options.items()}
    return oracle.score(gold, pred, category, **plain)


_TOKENIZED: dict[tuple[Tokenizer, Quotes, str], tuple[Any, bool, int]] = {}


@pytest.fixture
def tokenized_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """NLTK is slow (a quarter of a millisecond a text): each distinct text is tokenized once
    in this module (:meth:`TokenSpans._tokenize`, a function of the settings and the exact
    text; what annoscore does with its result, the digit-shape cache included, runs as ever)."""
    tokenize = TokenSpans._tokenize

    def once(self: TokenSpans, text: str) -> tuple[Any, bool]:
        key = (self.tokenizer, self.quotes, text)
        if key not in _TOKENIZED:
            before = self.quote_fixes
            spans, lost = tokenize(self, text)
            _TOKENIZED[key] = (spans, lost, self.quote_fixes - before)
            self.quote_fixes = before
        spans, lost, fixes = _TOKENIZED[key]
        self.quote_fixes += fixes
        return spans, lost

    monkeypatch.setattr(TokenSpans, "_tokenize", once)


@pytest.mark.usefixtures("tokenized_once")
@pytest.mark.parametrize("block", range(3))
def test_random_cases_equal_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """400 cases a block (x ``ANNOSCORE_EQUIVALENCE_CASES``): small ones, a few past the reader's
    chunk of objects, one in 15 with a bad item; the fast scan forced to decline in one in 5."""
    rng = random.Random(1000 + block)
    seen = Counter[str]()
    scan = reader._scan_chunk
    for case in range(400 * SCALE):
        large = case % 100 == 99
        objects = reader.CHUNK + rng.randint(1, 60) if large else rng.choice([1, 2, 3, 5, 8])
        gold_data, pred_data = _case(rng, objects, size=1 if large else 3)
        bad = rng.random() < 1 / 15
        if bad:
            if rng.random() < 0.5:
                pred_data = _corrupt(rng, pred_data)
            else:
                gold_data = _corrupt(rng, gold_data)
        gold = _write(tmp_path / f"g{case % 7}.json", gold_data, rng)
        pred = _write(tmp_path / f"p{case % 7}.json", pred_data, rng)
        category = None if bad or rng.random() < 0.3 else rng.choice(list(oracle.CATEGORY_FIELDS))
        options = {name: rng.choice(values) for name, values in OPTIONS.items()}
        declined = rng.random() < 0.2
        context = f"block {block} case {case} {category} {options} declined={declined}"
        monkeypatch.setattr(reader, "_scan_chunk", (lambda c, w: None) if declined else scan)
        in_memory = rng.random() < 0.25
        try:
            expected = _oracle(gold, pred, category, options)
        except oracle.OracleError as error:
            with pytest.raises(InputError) as caught:
                _run(gold, pred, category, options)
            assert str(caught.value) == str(error), context
            seen["refused"] += 1
            if in_memory:  # the same refusal, naming the side instead of the file
                with pytest.raises(InputError) as caught:
                    _run(gold_data, pred_data, category, options)
                if isinstance(gold_data, list) and isinstance(pred_data, list):
                    named = str(error).replace(str(gold), "gold").replace(str(pred), "prediction")
                    assert str(caught.value) == named, context
                seen["refused in memory"] += 1
            continue
        result = _run(gold, pred, category, options)
        _compare(result, expected, context)
        if in_memory:
            _compare(_run(gold_data, pred_data, category, options), expected, context)
            seen["in memory"] += 1
        seen.update(code for code, _, _ in expected.warnings)
        seen["large"] += objects > reader.CHUNK
        seen["far"] += any(
            a.start > 2**52 for notes in oracle.read(gold).notes.values() for n in notes.values()
            for a in n
        )  # fmt: skip
    # the generator does reach what it aims at
    for code in ("same-start", "merged-notes", "missing-array", "length-mismatch",
                 "prediction-only-notes", "gold-only-notes", "unknown-location-type",
                 "quote-offsets", "undefined", "refused", "large", "far", "in memory",
                 "refused in memory"):  # fmt: skip
        assert seen[code], (code, seen)


# --- against the official client -----------------------------------------------------------


def _official(category: str, gold: Path, pred: Path) -> tuple[dict[str, int], dict[str, Any]]:
    """The client's tp/fp/fn per metric (as annoscore names them) and its ``eval()`` values as
    the controller flattens them (NaN values dropped)."""
    import nlpsandboxclient.evaluation as client

    class CovidSymptom(client.Evaluation):  # type: ignore[misc]  # 4.3.1 ships none
        evaluation_type = "covid-symptom"
        annotation = "condition"
        col = "covid_symptom_annotations"
        post_path = "textCovidSymptomAnnotations"

    classes = {
        "date": client.DateEvaluation,
        "person": client.PersonNameEvaluation,
        "location": client.LocationEvaluation,
        "id": client.IdEvaluation,
        "contact": client.ContactEvaluation,
        "covid-symptom": CovidSymptom,
    }
    counts: dict[str, int] = {}
    evaluator = classes[category]()
    original = evaluator.print_out

    def capture(tp: int, fp: int, fn: int, level: str, mode: str) -> None:
        name = {"instance": f"instance_{mode}", "token": "token_strict"}.get(level, "type")
        counts.update({f"{name}_tp": tp, f"{name}_fp": fp, f"{name}_fn": fn})
        original(tp, fp, fn, level, mode)

    evaluator.print_out = capture
    with contextlib.redirect_stdout(io.StringIO()):
        evaluator.convert_dict(str(pred), str(gold))
        out = evaluator.eval()
    board: dict[str, Any] = {}
    for entry in out[f"{category}_location"]:
        board[f"location_{entry['metric']}_{entry['type']}_{entry['mode']}"] = entry["value"]
    for entry in out[f"{category}_type"]:
        board[f"type_{entry['metric']}"] = entry["value"]
    return counts, {k: v for k, v in board.items() if not (isinstance(v, float) and v != v)}


@pytest.mark.usefixtures("tokenized_once")
def test_a_subset_equals_nlpsandbox_client(tmp_path: Path) -> None:
    """40 cases (x ``ANNOSCORE_EQUIVALENCE_CASES``) the client can read, every category, with
    ``--quotes official``: the client's counts and leaderboard values are annoscore's."""
    rng = random.Random(4321)
    compared = 0
    for case in range(40 * SCALE):
        gold_data, pred_data = _case(rng, rng.choice([1, 2, 4, 6]), official=True)
        gold = _write(tmp_path / f"g{case % 3}.json", gold_data, rng)
        pred = _write(tmp_path / f"p{case % 3}.json", pred_data, rng)
        result = score_nlpsandbox_all(gold, pred, NlpSandboxOptions(quotes=Quotes.official))
        expected = _oracle(gold, pred, None, {"quotes": Quotes.official})
        _compare(result, expected, f"case {case}")
        for category in oracle.CATEGORY_FIELDS:
            counts, board = _official(category, gold, pred)
            prefix = category.replace("-", "_") + "_"
            ours = {
                k.removeprefix(prefix): v
                for k, v in result.counts.items()
                if k.startswith(prefix) and not k.startswith(prefix + "hipaa")
            }
            theirs_board = dict(board)
            if category == "covid-symptom":  # a stand-in class: its type level is not official
                ours = {k: v for k, v in ours.items() if not k.startswith("type")}
                counts = {k: v for k, v in counts.items() if not k.startswith("type")}
                theirs_board = {k: v for k, v in theirs_board.items() if not k.startswith("type")}
            assert ours == counts, (category, case)
            mine = {
                k: v for k, v in result.extra["leaderboard"][category].items() if k in theirs_board
            }
            assert mine == theirs_board, (category, case)
            assert all(type(mine[k]) is type(v) for k, v in theirs_board.items())  # 0 vs 0.0
            compared += 1
    assert compared == 40 * SCALE * 6
