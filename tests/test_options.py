"""annoscore.options: a value an option cannot take is an InputError naming the option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.options import Setting, _field, convert


@pytest.mark.parametrize(
    ("annotation", "default", "value", "message"),
    [
        (int, 3, None, "--x: a value is needed, not None"),
        (Path, Path("a"), "", "--x: expected a path, not ''"),
        (Path, Path("a"), 3, "--x: expected a path, not 3"),
        (tuple[str, ...], (), 3, "--x: expected comma-separated names, not 3"),
        (tuple[str, ...], (), ["a", 2], "--x: expected comma-separated names, not ['a', 2]"),
        (str, "r", 3, "--x: expected text, not 3"),
    ],
)
def test_a_value_an_option_cannot_take_is_named(
    annotation: Any, default: Any, value: Any, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        convert(_field("x", annotation, default, Setting("")), value, "--x")
    assert str(caught.value) == message


def test_an_option_of_a_type_no_option_takes_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^option x: unsupported type <class 'complex'>$"):
        _field("x", complex, 1j, Setting(""))
