"""annoscore.formats.pharmaconer: the concept-indexing .tsv files read one or a folder at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.pharmaconer import read_code_tsvs
from annoscore.samples import SAMPLES

FOLDER = SAMPLES / "pharmaconer" / "gold" / "subtrack2" / "sample"


def test_one_tsv_file_is_read_as_its_document_of_the_folder() -> None:
    path = sorted(FOLDER.glob("*.tsv"))[0]
    codes, warnings = read_code_tsvs(path)
    assert list(codes) == [path.stem] and warnings == []
    assert codes[path.stem] == read_code_tsvs(FOLDER)[0][path.stem]
    assert codes[path.stem].codes


def test_a_path_that_does_not_exist_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_code_tsvs(tmp_path / "nope")
    assert str(caught.value) == f"{tmp_path / 'nope'}: no such file or folder"
