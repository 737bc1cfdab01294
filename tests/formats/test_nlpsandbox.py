"""The NLP Sandbox JSON reader: both schema generations, note pairing, errors with JSON paths."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats.nlpsandbox import (
    ABSENT,
    CATEGORIES,
    ColumnFile,
    Numbering,
    PhiAnnotation,
    read_columns,
    read_sandbox,
)


def write(tmp_path: Path, data: Any, name: str = "pred.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def note(name: str, **arrays: Any) -> dict[str, Any]:
    return {"annotationSource": {"resourceSource": {"name": name}}, **arrays}


def test_note_id_is_the_basename_and_repeated_notes_are_pooled_in_file_order(
    tmp_path: Path,
) -> None:
    a = {"start": 1, "length": 3, "text": "Jon", "personType": "doctor"}
    b = {"start": 1, "length": 3, "text": "Ann"}
    path = write(
        tmp_path,
        [note("x/n1", textPersonNameAnnotations=[a]), note("y/n1", textPersonNameAnnotations=[b])],
    )
    read = read_sandbox(path, ["person"])
    assert read.note_ids == ("n1",)
    assert read.merged_notes == 1
    assert read.categories["person"].notes["n1"] == [
        PhiAnnotation(1, 3, "Jon", "doctor", True),
        PhiAnnotation(1, 3, "Ann", None, False),
    ]


def test_both_location_schemas_and_null_types(tmp_path: Path) -> None:
    new = {"start": 0, "length": 2, "text": "WA", "locationType": "state"}
    old = {"start": 5, "length": 2, "text": "MA", "addressType": None}
    path = write(
        tmp_path,
        [note("a", textLocationAnnotations=[new]), note("b", textPhysicalAddressAnnotations=[old])],
    )
    notes = read_sandbox(path, ["location"]).categories["location"].notes
    assert notes["a"] == [PhiAnnotation(0, 2, "WA", "state", True)]
    assert notes["b"] == [PhiAnnotation(5, 2, "MA", None, True)]  # null is a value, not absent


def test_a_missing_array_is_empty_and_counted(tmp_path: Path) -> None:
    path = write(tmp_path, [note("a"), note("b", textDateAnnotations=[])])
    read = read_sandbox(path, ["date"])
    assert read.categories["date"].missing_array == 1
    assert read.present("date")
    assert not read.present("contact") if "contact" in read.categories else True


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


# --- the columnar reader: pinned to the reference reader -----------------------------------------

COLUMN_FIELDS = {
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
        for arrays in COLUMN_FIELDS.values():
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


def _as_notes(file: ColumnFile, category: str, texts: Numbering, kinds: Numbering) -> Any:
    text_of, kind_of = texts.values(), kinds.values()
    read = file.categories[category]
    notes: dict[str, list[PhiAnnotation]] = {note: [] for note in file.note_ids}
    rows = zip(read.note, read.start, read.length, read.text, read.kind, strict=True)
    for note, start, length, text, kind in rows:
        value = kind_of[kind]
        annotation = PhiAnnotation(
            start, length, text_of[text], None if value is ABSENT else value, value is not ABSENT
        )
        notes[file.note_ids[note]].append(annotation)
    return notes


@pytest.mark.parametrize("seed", range(6))
def test_columns_hold_the_reference_readers_annotations(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    data = _random_file(rnd, rnd.choice([3, 40, 1000]))  # 1000: several chunks of objects
    path = tmp_path / "f.json"
    path.write_text(json.dumps(data, indent=rnd.choice([None, 2]), ensure_ascii=seed % 2 == 0))
    wanted = rnd.sample(sorted(CATEGORIES), rnd.randint(1, 6))
    reference = read_sandbox(path, wanted)
    texts, kinds = Numbering(), {}  # type: dict[str, Numbering]
    columns = read_columns(path, wanted, texts=texts, kinds=kinds)
    assert columns.note_ids == reference.note_ids
    assert (columns.objects, columns.merged_notes) == (reference.objects, reference.merged_notes)
    for category in wanted:
        expected = reference.categories[category]
        got = columns.categories[category]
        assert _as_notes(columns, category, texts, kinds[category]) == expected.notes
        assert (got.missing_array, got.length_mismatch) == (
            expected.missing_array,
            expected.length_mismatch,
        )
        assert columns.present(category) == reference.present(category)


def _message(read: Any, path: Path) -> str:
    with pytest.raises(InputError) as caught:
        read(path)
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
]


@pytest.mark.parametrize("data", BAD_FILES)
def test_columns_refuse_what_the_reference_refuses_with_its_message(
    tmp_path: Path, data: Any
) -> None:
    path = write(tmp_path, data)
    expected = _message(lambda p: read_sandbox(p), path)
    got = _message(lambda p: read_columns(p, texts=Numbering(), kinds={}), path)
    assert got == expected


def test_columns_tolerate_what_the_reference_tolerates(tmp_path: Path) -> None:
    """An unwanted category's broken array, NaN confidences, a BOM, UTF-16: read as reference."""
    item = {"start": 1, "length": 1, "text": "x", "confidence": float("nan")}
    data = [note("a", textDateAnnotations=[item], textIdAnnotations=7)]
    path = tmp_path / "f.json"
    for raw in (json.dumps(data).encode(), b"\xef\xbb\xbf" + json.dumps(data).encode()):
        path.write_bytes(raw)
        columns = read_columns(path, ["date"], texts=Numbering(), kinds={})
        assert columns.categories["date"].start.tolist() == [1]
    path.write_bytes(json.dumps(data).encode("utf-16"))
    assert read_columns(path, ["date"], texts=Numbering(), kinds={}).objects == 1


def _whole_file_reading(path: Path) -> object:
    """The reading before objects were decoded one at a time: ``json.loads`` of the file."""
    from annoscore.formats.nlpsandbox import _load, _read_objects

    try:
        return _read_objects(path, _load(path), None)
    except InputError as error:
        return str(error)


@pytest.mark.parametrize("seed", range(40))
def test_objects_decoded_one_at_a_time_read_as_the_whole_file(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    objects = []
    for n in range(rnd.randint(0, 6)):
        item: dict[str, object] = {"annotationSource": {"resourceSource": {"name": f"a/{n % 4}"}}}
        for array in ("textDateAnnotations", "textLocationAnnotations", "textIdAnnotations"):
            if rnd.random() < 0.8:
                item[array] = [
                    {"start": rnd.randint(0, 50), "length": 3, "text": rnd.choice(["abc", "de"])}
                    for _ in range(rnd.randint(0, 3))
                ]
        objects.append(item)
    text = json.dumps(objects, indent=rnd.choice([None, 1]))
    if rnd.random() < 0.3 and objects:  # a shape error
        text = text.replace('"start": ', '"start": -', 1)
    if rnd.random() < 0.3:  # a syntax error somewhere
        at = rnd.randrange(len(text))
        text = text[:at] + rnd.choice(["}", ",", "x", ""]) + text[at:]
    path = tmp_path / "f.json"
    path.write_text(text)
    try:
        streamed: object = read_sandbox(path)
    except InputError as error:
        streamed = str(error)
    assert streamed == _whole_file_reading(path)
