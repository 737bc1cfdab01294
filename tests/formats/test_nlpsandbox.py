"""The NLP Sandbox JSON reader: both schema generations, note pairing, errors with JSON paths."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats import nlpsandbox as reader
from annoscore.formats.nlpsandbox import (
    ABSENT,
    CATEGORIES,
    Numbering,
    SandboxFile,
    read_sandbox,
)
from tests.oracles import nlpsandbox as oracle


def write(tmp_path: Path, data: Any, name: str = "pred.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def note(name: str, **arrays: Any) -> dict[str, Any]:
    return {"annotationSource": {"resourceSource": {"name": name}}, **arrays}


def annotations(file: SandboxFile, category: str, texts: Numbering, kinds: Numbering) -> Any:
    """Note id -> [(start, length, text, type value or ABSENT)] in file order."""
    text_of, kind_of = texts.values(), kinds.values()
    read = file.categories[category]
    notes: dict[str, list[tuple[int, int, str, object]]] = {n: [] for n in file.note_ids}
    rows = zip(read.note, read.start, read.length, read.text, read.kind, strict=True)
    for n, start, length, text, kind in rows:
        notes[file.note_ids[n]].append((start, length, text_of[text], kind_of[kind]))
    return notes


def read(path: Path, category: str) -> tuple[SandboxFile, Any]:
    texts, kinds = Numbering(), {}  # type: Numbering, dict[str, Numbering]
    file = read_sandbox(path, [category], texts=texts, kinds=kinds)
    return file, annotations(file, category, texts, kinds[category])


def test_note_id_is_the_basename_and_repeated_notes_are_pooled_in_file_order(
    tmp_path: Path,
) -> None:
    a = {"start": 1, "length": 3, "text": "Jon", "personType": "doctor"}
    b = {"start": 1, "length": 3, "text": "Ann"}
    path = write(
        tmp_path,
        [note("x/n1", textPersonNameAnnotations=[a]), note("y/n1", textPersonNameAnnotations=[b])],
    )
    file, notes = read(path, "person")
    assert file.note_ids == ("n1",)
    assert file.merged_notes == 1
    assert notes["n1"] == [(1, 3, "Jon", "doctor"), (1, 3, "Ann", ABSENT)]


def test_both_location_schemas_and_null_types(tmp_path: Path) -> None:
    new = {"start": 0, "length": 2, "text": "WA", "locationType": "state"}
    old = {"start": 5, "length": 2, "text": "MA", "addressType": None}
    path = write(
        tmp_path,
        [note("a", textLocationAnnotations=[new]), note("b", textPhysicalAddressAnnotations=[old])],
    )
    notes = read(path, "location")[1]
    assert notes["a"] == [(0, 2, "WA", "state")]
    assert notes["b"] == [(5, 2, "MA", None)]  # null is a value, not absent


def test_a_missing_array_is_empty_and_counted(tmp_path: Path) -> None:
    path = write(tmp_path, [note("a"), note("b", textDateAnnotations=[])])
    file = read_sandbox(path, ["date", "contact"])
    assert file.categories["date"].missing_array == 1
    assert file.present("date")
    assert not file.present("contact")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[{", "pred.json:1: not valid JSON"),
        ({"a": 1}, "pred.json: expected a JSON list of annotation objects"),
        ([3], "pred.json: [0]: expected an annotation object"),
        ([{"name": "x"}], "pred.json: [0].annotationSource: expected an object"),
        ([note("")], "[0].annotationSource.resourceSource.name: the note id"),
        ([note("dir/")], "[0].annotationSource.resourceSource.name: the note id"),
        ([note("n", textDateAnnotations={})], "[0].textDateAnnotations: expected a list"),
        ([note("n", textDateAnnotations=[{"length": 1, "text": "x"}])], ".start: expected a non"),
        ([note("n", textDateAnnotations=[{"start": 1, "text": "x"}])], ".length: expected a non"),
        (
            [note("n", textDateAnnotations=[{"start": -1, "length": 1, "text": "x"}])],
            "pred.json: [0].textDateAnnotations[0].start: expected a non-negative integer",
        ),
        ([note("n", textDateAnnotations=[{"start": 1.5, "length": 1, "text": "x"}])], ".start"),
        ([note("n", textDateAnnotations=[{"start": True, "length": 1, "text": "x"}])], ".start"),
        ([note("n", textDateAnnotations=[{"start": 1, "length": "2", "text": "x"}])], ".length"),
        ([note("n", textDateAnnotations=[{"start": 1, "length": 1}])], ".text: expected a string"),
        (
            [
                note(
                    "n",
                    textDateAnnotations=[{"start": 1, "length": 1, "text": "x", "dateFormat": 3}],
                )
            ],
            "[0].textDateAnnotations[0].dateFormat: expected a string or null",
        ),
    ],
)
def test_bad_input_names_the_file_and_the_json_path(
    tmp_path: Path, data: Any, message: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(InputError) as caught:
        read_sandbox(path, ["date"])
    assert message in str(caught.value)


def test_the_error_path_counts_items_and_annotations(tmp_path: Path) -> None:
    good = {"start": 1, "length": 1, "text": "x"}
    bad = {"start": 1, "length": -2, "text": "x"}
    path = write(
        tmp_path,
        [note("a"), note("b"), note("c"), note("d", textDateAnnotations=[good] * 7 + [bad])],
    )
    with pytest.raises(InputError, match=r"pred.json: \[3\].textDateAnnotations\[7\].length: "):
        read_sandbox(path)


# --- the fast scan and the checked parser: one shape ----------------------------------------

FIELDS = {
    "date": [("textDateAnnotations", "dateFormat")],
    "person": [("textPersonNameAnnotations", "personType")],
    "location": [
        ("textLocationAnnotations", "locationType"),
        ("textPhysicalAddressAnnotations", "addressType"),
    ],
    "id": [("textIdAnnotations", "idType")],
    "contact": [("textContactAnnotations", "contactType")],
    "covid-symptom": [("textCovidSymptomAnnotations", "condition")],
}


def _random_file(rnd: random.Random, objects: int) -> list[Any]:
    data = []
    for _ in range(objects):
        name = rnd.choice(["", "dir/", "a/b/"]) + f"n{rnd.randrange(objects)}"
        obj: dict[str, Any] = {"annotationSource": {"resourceSource": {"name": name}}}
        for arrays in FIELDS.values():
            for array, type_field in arrays:
                if rnd.random() < 0.15:
                    continue  # no array: counted as missing (unless the other location one)
                items = []
                for _ in range(rnd.randrange(6)):
                    text = rnd.choice(["Jon", "12/25", "Boston, MA", "", "O'Neil  x", 'é"ü'])
                    item: dict[str, Any] = {
                        "text": text,
                        "length": len(text) if rnd.random() < 0.8 else rnd.randrange(9),
                        "start": rnd.randrange(0, 99),
                        "confidence": 0.5,
                    }
                    if rnd.random() < 0.8:
                        item[type_field] = rnd.choice(["city", "zip", "", None, "MM/DD"])
                    if rnd.random() < 0.1:  # both location type fields: the first one counts
                        item["addressType"] = rnd.choice(["room", None])
                    items.append(dict(rnd.sample(sorted(item.items()), len(item))))
                obj[array] = items
        data.append(obj)
    return data


@pytest.mark.parametrize("seed", range(20))
def test_scan_and_parser_give_the_same_rows(seed: int) -> None:
    rnd = random.Random(seed)
    data = _random_file(rnd, rnd.choice([0, 1, 3, 40]))
    chunk = list(enumerate(data))
    wanted = [CATEGORIES[c] for c in rnd.sample(sorted(CATEGORIES), rnd.randint(1, 6))]
    scanned = reader._scan_chunk(chunk, wanted)
    assert scanned is not None
    assert scanned == reader._parse_chunk(Path("f.json"), chunk, wanted)


@pytest.mark.parametrize("seed", range(6))
def test_the_file_reads_as_the_reference_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Objects decoded one at a time, in chunks (1000: several), scanned or parsed: the
    annotations the plain reference reads from the whole file."""
    rnd = random.Random(seed)
    data = _random_file(rnd, rnd.choice([3, 40, 1000]))
    path = tmp_path / "f.json"
    path.write_text(json.dumps(data, indent=rnd.choice([None, 2]), ensure_ascii=seed % 2 == 0))
    if seed % 3 == 2:
        monkeypatch.setattr(reader, "_scan_chunk", lambda chunk, wanted: None)
    expected = oracle.read(path)
    for category in CATEGORIES:
        file, notes = read(path, category)
        assert file.note_ids == tuple(expected.note_ids)
        assert (file.objects, file.merged_notes) == (expected.objects, expected.merged)
        reference = {
            n: [(a.start, a.length, a.text, a.type if a.typed else ABSENT) for a in listed]
            for n, listed in expected.notes[category].items()
        }
        assert notes == reference
        got = file.categories[category]
        assert (got.missing_array, got.length_mismatch) == (
            expected.missing[category],
            expected.mismatched[category],
        )


def _message(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        read_sandbox(path)
    return str(caught.value)


def _oracle_message(path: Path) -> str:
    with pytest.raises(oracle.OracleError) as caught:
        oracle.read(path)
    return str(caught.value)


BAD_FILES = [
    "[{",
    "",
    "[1, 2,]",
    "[] x",
    '{"a": 1}',
    "[3]",
    '[{"name": "x"}]',
    [note("")],
    [note("n", textDateAnnotations={})],
    [note("n", textDateAnnotations=[{"length": 1, "text": "x"}])],
    [note("n", textDateAnnotations=[{"start": 1.0, "length": 1, "text": "x"}])],
    [note("n", textDateAnnotations=[{"start": True, "length": 1, "text": "x"}])],
    [note("n", textDateAnnotations=[{"start": 2**70, "length": 1, "text": "x"}])],
    [note("n", textDateAnnotations=[{"start": 1, "length": 2**53, "text": "x"}])],
    [note("n", textDateAnnotations=[{"start": 1, "length": 1, "text": 5}])],
    [note("n", textDateAnnotations=[{"start": 1, "length": 1, "text": "x", "dateFormat": 3}])],
    [note("n", textDateAnnotations=[["start", 1]])],
    # the first error in file order: object 1's location, not object 2's date
    [
        note("a"),
        note("b", textLocationAnnotations=[{"start": 1, "length": -1, "text": "x"}]),
        note("c", textDateAnnotations=[{"start": -1, "length": 1, "text": "x"}]),
    ],
    # an error in a later chunk of objects, after a note-id error would be found
    [note(f"n{k}", textIdAnnotations=[{"start": 1, "length": 1, "text": "x"}]) for k in range(900)]
    + [note("m", textIdAnnotations=[{"start": 1, "length": 1}]), note("")],
    # a note-id error after an item error in the same chunk: the item comes first
    [note("a", textIdAnnotations=[{"start": 1}]), note("")],
    # a shape error before a syntax error: the syntax error is reported
    '[{"annotationSource": 3}, {"annotationSource": }]',
]


@pytest.mark.parametrize("data", BAD_FILES)
@pytest.mark.parametrize("scan", [True, False])
def test_refused_with_the_references_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: Any, scan: bool
) -> None:
    path = write(tmp_path, data)
    if not scan:
        monkeypatch.setattr(reader, "_scan_chunk", lambda chunk, wanted: None)
    assert _message(path) == _oracle_message(path)


def test_what_is_not_read_is_tolerated(tmp_path: Path) -> None:
    """An unwanted category's broken array, NaN confidences, a BOM, UTF-16."""
    item = {"start": 1, "length": 1, "text": "x", "confidence": float("nan")}
    data = [note("a", textDateAnnotations=[item], textIdAnnotations=7)]
    path = tmp_path / "f.json"
    for raw in (json.dumps(data).encode(), b"\xef\xbb\xbf" + json.dumps(data).encode()):
        path.write_bytes(raw)
        assert read_sandbox(path, ["date"]).categories["date"].start.tolist() == [1]
    path.write_bytes(json.dumps(data).encode("utf-16"))
    assert read_sandbox(path, ["date"]).objects == 1
