"""Settings for every test pytest collects, the doctests of ``src/annoscore`` included."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _doctests_write_under_tmp_path(request: pytest.FixtureRequest) -> Iterator[None]:
    """A doctest's ``tempfile.mkdtemp()`` makes its folder under the test's ``tmp_path``,
    which pytest removes: the examples stay as a reader would run them and leave nothing in
    the machine's temporary folder."""
    if not isinstance(request.node, pytest.DoctestItem):
        yield
        return
    folder = request.getfixturevalue("tmp_path")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(folder))
        yield
