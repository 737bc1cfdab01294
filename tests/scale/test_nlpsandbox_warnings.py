"""NLP Sandbox files that warn, cut at notes (``annoscore.scale.cut_json.split_json``): the chunks'
warnings pooled from what each kept (``tasks/nlpsandbox.py``: ``_pooled``; counts added,
examples in file order, capped at five) give one run's bytes with ``--jobs`` 1, 2 and 3, one
process scoring chunks one after the other, and a two-worker ``LocalCluster``.

Random adversarial corpora (note ids from ``tests/equivalence/ids.py``) warn on purpose: an
annotation overwritten at the same start, a note's objects one after the other (merged), an
object without an array, a declared length other than the text's, notes on one side only,
location types with no HIPAA flag, quoted texts (``quote-offsets``), a byte-order mark, and
``--notes`` with texts that differ and notes it lacks.  Warned corpora whose notes are in file
order on both sides are checked to be really cut (not scored again in one run).
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.scale.reduce import DERIVED_CODES
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.nlpsandbox import _pooled, _Tally
from tests.equivalence.ids import id_pool
from tests.scale.test_json_arrays import ARRAYS, _dumps, _names
from tests.scale.test_lines import _jobs, _output, _same

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(2, int(8 * MULTIPLIER))

TWICE = 0.03
"""How often a note's objects come twice in a row (merged-notes; a cut between them is not
exact, and the input is scored in one run)."""
TEXTS = ["12/01/2020", "Boston", 'say "hi"', "ñu 中文", "John Smith", "(617) 555-0142", "a]b"]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _annotations(rng: random.Random, category: str, note_text: str) -> list[dict[str, Any]]:
    _, field, kinds = ARRAYS[category]
    anns = []
    starts = rng.sample(range(0, 60), 6)
    for _ in range(rng.randint(0, 4)):
        text = rng.choice(TEXTS)
        start = rng.choice(starts)  # sometimes a start twice: one overwritten
        if rng.random() < 0.3:  # the note's own text at the offsets
            start = rng.randrange(0, 40)
            text = note_text[start : start + rng.randint(1, 12)] or "x"
        length = len(text) if rng.random() < 0.9 else len(text) + 1  # a length mismatch
        ann: dict[str, Any] = {"start": start, "length": length, "text": text}
        if rng.random() < 0.8:
            ann[field] = rng.choice(kinds)  # "zz": a location type without a HIPAA flag
        anns.append(ann)
    return anns


def _warned_corpus(
    rng: random.Random, root: Path, ordered: bool
) -> tuple[Path, Path, dict[str, Any]]:
    """A gold and a system file (and maybe notes) that warn; with ``ordered`` the notes of
    both sides come in one order (the cut can be exact)."""
    ids = [i for i in id_pool(rng, rng.randint(3, 40)) if i and "/" not in i]
    ids = list(dict.fromkeys(ids)) or ["n1", "n2", "n3"]
    names = _names(rng, ids)
    texts = {i: "".join(rng.choice(TEXTS) + " " for _ in range(8)) for i in ids}
    categories = rng.sample(list(ARRAYS), rng.randint(1, len(ARRAYS)))

    def objects(note: str, twice: bool) -> list[dict[str, Any]]:
        out = []
        for _ in range(2 if twice else 1):
            item: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": names[note]}}}
            for category in categories:
                if rng.random() < 0.9:  # else no array: missing-array
                    item[ARRAYS[category][0]] = _annotations(rng, category, texts[note])
            out.append(item)
        return out

    gold: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    for note in ids:
        roll = rng.random()
        if roll > 0.1:
            gold += objects(note, rng.random() < TWICE)  # twice: merged-notes
        if roll < 0.1 or roll > 0.2:
            system += objects(note, rng.random() < TWICE)
    if not ordered:
        rng.shuffle(system)
    data = [_dumps(rng, gold), _dumps(rng, system)]
    if rng.random() < 0.15:
        side = rng.randrange(2)
        data[side] = "\ufeff" + data[side]
    gold_path, system_path = root / "gold.json", root / "pred.json"
    gold_path.write_text(data[0], encoding="utf-8")
    system_path.write_text(data[1], encoding="utf-8")
    options: dict[str, Any] = {}
    if rng.random() < 0.4:  # the notes: some texts changed, some notes left out
        notes = [
            {"identifier": i, "text": texts[i] if rng.random() < 0.7 else texts[i][::-1]}
            for i in ids
            if rng.random() < 0.85
        ]
        (root / "notes.json").write_text(json.dumps(notes), encoding="utf-8")
        options["notes"] = root / "notes.json"
    if rng.random() < 0.2:
        options["same_start"] = "first"
    if rng.random() < 0.2:
        options["quotes"] = "official"
    return gold_path, system_path, options


@pytest.mark.parametrize("task", ["nlpsandbox-location", "nlpsandbox-all"])
def test_warned_files_give_the_same_bytes_with_1_2_and_3_jobs(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"nlpsandbox-warned-{task}")
    cut = warned = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        ordered = case % 4 != 3
        gold, system, options = _warned_corpus(rng, root, ordered)
        exact.clear()
        one = _same(task, gold, system, rng.choice([150, 400, 1200]), jobs=_jobs(case), **options)
        found = annoscore.score(task, gold, system, **options).warnings
        if (
            ordered
            and not one.startswith("error")
            and any(w.code not in DERIVED_CODES for w in found)
        ):
            warned += 1
            cut += len(exact) == 2 and all(exact)  # --jobs 2 or 3, and 1 in chunks
    assert warned >= CASES // 2 and cut >= warned // 2, (cut, warned)


def test_a_warned_input_is_cut_and_its_warnings_are_one_runs(
    tmp_path: Path, exact: list[bool]
) -> None:
    # forty notes, each warning: examples from the whole file's first notes, counts of all
    notes = []
    for n in range(40):
        dates = [{"start": 5, "length": 4, "text": "2020"}, {"start": 5, "length": 3, "text": "1"}]
        notes.append(
            {
                "annotationSource": {"resourceSource": {"name": f"n{n:02d}"}},
                "textDateAnnotations": dates,
            }
        )
    (tmp_path / "g.json").write_text(json.dumps(notes[:35], indent=1), encoding="utf-8")
    (tmp_path / "p.json").write_text(json.dumps(notes[5:], indent=1), encoding="utf-8")
    gold, system = tmp_path / "g.json", tmp_path / "p.json"
    one = annoscore.score("nlpsandbox-date", gold, system)
    codes = {w.code: w for w in one.warnings}  # of a side's warnings, the prediction's
    assert codes["same-start"].count == 35 and codes["length-mismatch"].count == 35
    assert codes["gold-only-notes"].examples == ("n00", "n01", "n02", "n03", "n04")
    assert codes["prediction-only-notes"].examples == ("n35", "n36", "n37", "n38", "n39")
    for jobs in (2, 3):
        exact.clear()
        assert _output("nlpsandbox-date", gold, system, jobs) == _output(
            "nlpsandbox-date", gold, system, 1
        )
        assert exact == [True], jobs  # cut, pooled: not scored again in one run


def _tally(code: str, count: int, *examples: str) -> _Tally:
    return _Tally(code, (("name", "g.json"),), (count,), (examples,))


def test_pooling_adds_counts_keeps_the_first_examples_and_declines_what_it_cannot_pool() -> None:
    first = [_tally("gold-only-notes", 4, "a", "b", "c", "d"), _tally("quote-offsets", 0)]
    second = [_tally("gold-only-notes", 3, "e", "f", "g"), _tally("quote-offsets", 2)]
    pooled = _pooled(None, [[], []], [((first, [], 2),), ((second, [], 2),)])
    assert pooled is not None
    assert [(w.code, w.count, w.examples) for w in pooled] == [
        ("gold-only-notes", 7, ("a", "b", "c", "d", "e")),
        ("quote-offsets", 2, ()),
    ]
    bom = [ScoreWarning("formats.bom", "{count} file(s)", 1, ("g.json",))]
    assert _pooled(None, [[], []], [((first, bom, 2),), ((second, [], 2),)]) is None
    assert _pooled(None, [[], []], [((first, [], 2),), ((second[:1], [], 2),)]) is None
    doubts = [_tally("tokenizer-engine", 1)]
    assert _pooled(None, [[]], [((doubts, [], 1),)]) is None  # distinct texts: one run
    assert _pooled(None, [[]], [()]) is None
    assert _pooled(None, [[]], [((first, None, 2),)]) is None  # a URL's mark unseen


def test_warned_files_give_the_same_bytes_on_a_local_cluster(
    tmp_path: Path, exact: list[bool]
) -> None:
    pytest.importorskip("distributed", reason="needs the extra annoscore[dask]")
    import annoscore.distributed
    from annoscore.distributed import connected
    from annoscore.report.generic import render

    rng = random.Random("nlpsandbox-warned-dask")
    with connected("local") as client:
        for case in range(3):
            root = tmp_path / str(case)
            root.mkdir()
            gold, system, options = _warned_corpus(rng, root, True)
            one = annoscore.score("nlpsandbox-all", gold, system, **options)
            on_dask = annoscore.distributed.score(
                "nlpsandbox-all", gold, system, client=client, **options
            )
            shown = [r.shown(documents=True, types=True, averages=True) for r in (one, on_dask)]
            assert render(shown[1], "json") == render(shown[0], "json"), case
    assert any(exact)  # some were cut on the cluster
