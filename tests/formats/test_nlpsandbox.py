"""The NLP Sandbox JSON reader: both schema generations, note pairing, errors with JSON paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats.nlpsandbox import PhiAnnotation, read_sandbox


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
