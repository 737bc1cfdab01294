"""annoscore.errors: where an input error says it is."""

from __future__ import annotations

import pytest

from annoscore.errors import InputError


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (InputError("bad tag", "a.txt", 3), "a.txt:3: bad tag"),
        (InputError("bad tag", "a.txt", document="d1"), "a.txt: document d1: bad tag"),
        (InputError("bad tag", line=3), "line 3: bad tag"),
        (InputError("bad tag", line=3, document="d1"), "line 3: document d1: bad tag"),
        (InputError("bad tag"), "bad tag"),
    ],
)
def test_an_input_error_names_its_file_line_and_document(error: InputError, text: str) -> None:
    assert str(error) == text and error.args == (text,)
