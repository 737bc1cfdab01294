"""NLP Sandbox JSON files cut at top-level elements of their arrays
(``annoscore.scale.cut_json.split_json``): random files scored with ``--jobs`` 1, 2 and 3, and
by one process in chunks, give the same bytes (JSON with documents, types and averages, and the
official text layout), warnings and errors included.

Adversarial files: note ids from ``tests/equivalence/ids.py`` (multi-byte UTF-8, shared
prefixes, numeric-looking forms) written escaped or not, as paths or bare; annotation texts
holding ``]``, ``}``, quotes, backslashes, ``, {"annotationSource":`` and escapes; indented or
compact; the note object's keys in either order; a note's objects apart in the array; notes on
one side only; the system in another order; byte-order marks; nested objects whose first key
looks like a note's; and broken files (a syntax error, a bad offset) whose error names the same
line or JSON path as one run.  Clean files are checked to be really cut.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of files (default 1).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.scale.cut_json import split_json
from annoscore.tasks.nlpsandbox import _NOTES
from tests.equivalence.ids import id_pool
from tests.scale.test_lines import _jobs, _same

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(10 * MULTIPLIER))

ARRAYS: dict[str, tuple[str, str, list[str | None]]] = {
    "date": ("textDateAnnotations", "dateFormat", ["MM/DD/YYYY", "YYYY", None]),
    "person": ("textPersonNameAnnotations", "personType", ["patient", "doctor"]),
    "location": ("textLocationAnnotations", "locationType", ["city", "street", "zz"]),
    "id": ("textIdAnnotations", "idType", ["ssn", None]),
}
TEXTS = ["12/01/2020", "Boston", "a]b", "}{", 'say "hi"', "back\\slash", "ñu 中文",
         ', {"annotationSource": 1}', "\u2028x", "tab\there", "John Smith"]  # fmt: skip


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _note(rng: random.Random, name: str, clean: bool, categories: list[str]) -> dict[str, Any]:
    """One annotation object: a few annotations of some categories, starts distinct in a clean
    file (no overwritten annotation: no warning), lengths those of their texts."""
    item: dict[str, Any] = {}
    source = {"annotationSource": {"resourceSource": {"name": name}}}
    first = rng.random() < 0.7
    if first:
        item.update(source)
    starts = rng.sample(range(0, 400), 12)
    for category in categories:
        array, field, kinds = ARRAYS[category]
        anns = []
        for _ in range(rng.randint(0, 3)):
            text = rng.choice([t for t in TEXTS if not clean or '"' not in t])
            ann: dict[str, Any] = {"start": starts.pop(), "length": len(text), "text": text}
            if rng.random() < 0.8:
                ann[field] = rng.choice([k for k in kinds if not clean or k != "zz"])
            if rng.random() < 0.1:
                ann["confidence"] = rng.choice([95.5, 100])
            if rng.random() < 0.1:  # an ignored field, quoting a note's start
                ann["comment"] = '"}], {"annotationSource": {"resourceSource": {"name": "x"}}'
            anns.append(ann)
        item[array] = anns
    if not first:
        item.update(source)
    return item


def _names(rng: random.Random, ids: list[str]) -> dict[str, str]:
    return {i: rng.choice(["", "notes/", "a/b/"]) + i for i in ids}


def _dumps(rng: random.Random, items: list[Any]) -> str:
    indent = rng.choice([None, None, 1, 2])
    separators = rng.choice([None, (",", ":"), (", ", ": ")]) if indent is None else None
    return json.dumps(items, indent=indent, separators=separators,
                      ensure_ascii=rng.random() < 0.5)  # fmt: skip


def _corpus(rng: random.Random, root: Path, clean: bool) -> tuple[Path, Path]:
    ids = [i for i in id_pool(rng, rng.randint(2, 40)) if i and "/" not in i]
    ids = list(dict.fromkeys(ids)) or ["n1", "n2"]
    names = _names(rng, ids)
    categories = list(ARRAYS) if clean else rng.sample(list(ARRAYS), rng.randint(1, len(ARRAYS)))
    gold = [_note(rng, names[i], clean, categories) for i in ids]
    system = []
    for item in gold:
        guess = json.loads(json.dumps(item))
        for array in (ARRAYS[c][0] for c in categories):
            guess[array] = [a for a in guess[array] if clean or rng.random() < 0.8]
        system.append(guess)
    if not clean:
        roll = rng.random()
        if roll < 0.15 and len(system) > 2:
            system.pop(rng.randrange(len(system)))  # a gold-only note
        elif roll < 0.3:
            system.append(_note(rng, "only-in-system", True, categories))
        elif roll < 0.45 and len(gold) > 2:  # a note's objects apart
            k = rng.randrange(len(gold))
            gold.append(_note(rng, gold[k]["annotationSource"]["resourceSource"]["name"],
                              True, categories))  # fmt: skip
        if rng.random() < 0.3:
            rng.shuffle(system)
        if rng.random() < 0.1:  # a nested object whose first key is a note's
            gold[-1]["extra"] = [{"annotationSource": {"x": 1}}, {"annotationSource": 2}]
    texts = [_dumps(rng, gold), _dumps(rng, system)]
    if not clean:
        roll = rng.random()
        side = rng.randrange(2)
        if roll < 0.1:
            texts[side] = "\ufeff" + texts[side]
        elif roll < 0.2:  # a syntax error inside an element
            at = texts[side].rfind('"start"')
            if at > 0:
                texts[side] = texts[side][:at] + "," + texts[side][at:]
        elif roll < 0.3:  # a bad offset: an error naming its JSON path
            texts[side] = texts[side].replace('"start": ', '"start": -', 1)
        elif roll < 0.35:
            texts[side] += " x"
    for name, text in zip(("gold.json", "pred.json"), texts, strict=True):
        (root / name).write_text(text, encoding="utf-8")
    return root / "gold.json", root / "pred.json"


TASK_NAMES = ["nlpsandbox-date", "nlpsandbox-location", "nlpsandbox-all"]


@pytest.mark.parametrize("task", TASK_NAMES)
def test_random_json_arrays_give_the_same_bytes_with_1_2_and_3_jobs(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"json-arrays-{task}")
    cut = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        gold, system = _corpus(rng, root, clean)
        options: dict[str, Any] = {}
        if rng.random() < 0.2:
            options["same_start"] = "first"
        if rng.random() < 0.2:
            options["tokenizer"] = "whitespace"
        exact.clear()
        _same(task, gold, system, rng.choice([100, 300, 1000]), jobs=_jobs(case), **options)
        if clean:
            clean_total += 1
            cut += len(exact) == 2 and all(exact)
    assert cut >= clean_total // 2, (cut, clean_total)


def _elements(data: bytes, chunk: tuple[int, int]) -> list[Any]:
    parsed: list[Any] = json.loads(b"[" + data[chunk[0] : chunk[1]] + b"]")
    return parsed


def test_a_naive_byte_split_would_cut_a_note_the_element_cut_never_does(tmp_path: Path) -> None:
    # strings holding brackets, braces, commas and a note's first key: the middle byte falls
    # inside a string; the cuts fall between top-level elements, and each chunk is whole notes
    notes = [
        {
            "annotationSource": {"resourceSource": {"name": f"notes/n{n:02d}"}},
            "textDateAnnotations": [
                {"start": 0, "length": 30, "text": '}], {"annotationSource": {"x": "]"}}, {'}
            ]
            * 3,
        }
        for n in range(12)
    ]
    data = json.dumps(notes).encode()
    (tmp_path / "g.json").write_bytes(data)
    (tmp_path / "p.json").write_bytes(data)
    middle = len(data) // 2
    with pytest.raises(json.JSONDecodeError):
        json.loads(data[:middle] + b"]")  # a naive cut: no array of whole notes
    chunks = split_json(tmp_path / "g.json", tmp_path / "p.json", 4, _NOTES)
    assert chunks is not None and len(chunks) == 4
    gold = [item for c in chunks for item in _elements(data, c.gold_range)]
    system = [item for c in chunks for item in _elements(data, c.system_range)]
    assert gold == notes and system == notes
    for c in chunks:
        assert _elements(data, c.gold_range) == _elements(data, c.system_range)
    one = _same("nlpsandbox-date", tmp_path / "g.json", tmp_path / "p.json", 200)
    assert '"n11"' in one


def test_the_system_cut_finds_each_note_in_another_layout(tmp_path: Path) -> None:
    notes = [
        {
            "annotationSource": {"resourceSource": {"name": f"d/é{n}"}},
            "textIdAnnotations": [{"start": 1, "length": 3, "text": 'a"b', "idType": "ssn"}],
        }
        for n in range(20)
    ]
    gold = json.dumps(notes, indent=2, ensure_ascii=False).encode()
    system = json.dumps(notes, separators=(",", ":")).encode()  # é escaped, compact
    (tmp_path / "g.json").write_bytes(gold)
    (tmp_path / "p.json").write_bytes(system)
    chunks = split_json(tmp_path / "g.json", tmp_path / "p.json", 5, _NOTES)
    assert chunks is not None and len(chunks) == 5
    for c in chunks:
        assert _elements(gold, c.gold_range) == _elements(system, c.system_range)


def test_an_error_in_a_chunk_is_the_error_of_one_run(tmp_path: Path, exact: list[bool]) -> None:
    notes: list[dict[str, Any]] = [
        {
            "annotationSource": {"resourceSource": {"name": f"n{n}"}},
            "textDateAnnotations": [{"start": n, "length": 4, "text": "2020"}],
        }
        for n in range(30)
    ]
    (tmp_path / "g.json").write_text(json.dumps(notes, indent=1), encoding="utf-8")
    notes[25]["textDateAnnotations"][0]["length"] = -4
    (tmp_path / "p.json").write_text(json.dumps(notes, indent=1), encoding="utf-8")
    one = _same("nlpsandbox-date", tmp_path / "g.json", tmp_path / "p.json", 300)
    assert one.startswith("error: ") and "[25].textDateAnnotations[0].length" in one, one
    assert exact and not any(exact)


def test_a_file_whose_elements_do_not_decode_is_the_error_of_one_run(tmp_path: Path) -> None:
    """No element of the system's array decodes (a syntax error in each): the cut's search
    gives up on each (its window stops growing at the file's end) and the error is one run's."""
    notes: list[dict[str, Any]] = [
        {
            "annotationSource": {"resourceSource": {"name": f"n{n}"}},
            "textDateAnnotations": [{"start": n, "length": 4, "text": "2020"}],
        }
        for n in range(30)
    ]
    text = json.dumps(notes, indent=1)
    (tmp_path / "g.json").write_text(text, encoding="utf-8")
    (tmp_path / "p.json").write_text(text.replace('"length"', ', "length"'), encoding="utf-8")
    one = _same("nlpsandbox-date", tmp_path / "g.json", tmp_path / "p.json", 300)
    assert one.startswith("error: "), one
