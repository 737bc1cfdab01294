"""What makes ``--jobs 2`` nearly twice as fast (:mod:`annoscore.scale`), each against a plain
reference: the system cut sought in windows that grow back from its share of the file
(bounded searches, never to the end of the file), chunks of lines sized by the two files
together, the workers forked after NumPy is imported and the objects frozen, and the
documents' scores of every chunk carried back.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of random cases (default 1).
"""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys

import pytest

import annoscore.scale as scale
from tests.scale.test_speed import _file, _plain_find

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))


def _plain_find_before(data: bytes, key: bytes, separators: bytes, after: int, before: int) -> int:
    """:func:`_plain_find`, the line starting before ``before`` (-1: none there)."""
    found = _plain_find(data, key, separators, after)
    return found if 0 <= found < before else -1


def test_a_line_sought_before_a_bound_is_the_first_one_that_starts_before_it() -> None:
    rng = random.Random(31)
    for _ in range(int(4000 * MULTIPLIER)):
        separators = rng.choice([b" ", b"\t", b" \t"])
        data, keys = _file(rng, rng.random() < 0.5, separators)
        starts = [0] + [k + 1 for k in range(len(data)) if data[k : k + 1] == b"\n"]
        after = rng.choice(starts)
        before = rng.randrange(0, len(data) + 3)
        key = rng.choice([*keys, b"q2"])
        expected = _plain_find_before(data, key, separators, after, before)
        assert scale.cut_lines._find_line(data, key, separators, after, before) == expected, (
            data,
            key,
            after,
            before,
        )


def test_a_system_cut_sought_in_small_windows_is_the_first_line_of_adjacent_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows of a byte or more (not 4 KB: the files here are small), growing back from
    ``near``: with a key's lines adjacent, ``_find_near`` gives ``_find_line``'s line wherever
    it starts to look; otherwise a line of the key at or after ``after`` (or none)."""
    rng = random.Random(32)
    for _ in range(int(4000 * MULTIPLIER)):
        monkeypatch.setattr(scale.cut_lines, "_NEAR_BYTES", rng.choice([1, 2, 5, 16]))
        grouped = rng.random() < 0.7
        separators = rng.choice([b" ", b"\t", b" \t"])
        data, keys = _file(rng, grouped, separators)
        times = rng.choice([1, 1, 3])  # the keys again further on: their lines not adjacent
        if times > 1:
            data = (data if data.endswith(b"\n") else data + b"\n") * times
        grouped = grouped and times == 1
        starts = [0] + [k + 1 for k in range(len(data)) if data[k : k + 1] == b"\n"]
        after = rng.choice(starts)
        key = rng.choice([*keys, b"q2"])
        near = rng.randrange(0, len(data) + 2)
        expected = _plain_find(data, key, separators, after)
        found = scale.cut_lines._find_near(data, key, separators, after, near)
        if grouped:
            assert found == expected, (data, key, separators, after, near)
        elif expected < 0:
            assert found == -1
        else:
            assert found >= after and found in starts
            assert _plain_find(data, key, separators, found) == found


def _state(_: int) -> tuple[bool, int]:
    """What a worker finds as it begins: NumPy imported, objects frozen."""
    return "numpy" in sys.modules, gc.get_freeze_count()


def test_workers_are_forked_with_the_objects_frozen_then_given_back() -> None:
    assert gc.get_freeze_count() == 0
    found = scale.Run(jobs=2).map(_state, range(4))
    assert len(found) == 4 and all(frozen > 0 for _, frozen in found)
    assert gc.get_freeze_count() == 0  # unfrozen after the map
    gc.freeze()  # an application's own freeze: kept as it was
    try:
        kept = gc.get_freeze_count()
        assert scale.Run(jobs=2).map(_state, range(2))[0][1] <= kept  # not frozen again
        # not unfrozen (0) nor frozen anew (more); a frozen object may die meanwhile (the
        # context a map's ContextVar replaced)
        assert kept - 16 <= gc.get_freeze_count() <= kept
    finally:
        gc.unfreeze()


def test_workers_find_numpy_imported_before_they_were_forked() -> None:
    """In a fresh process (this one imported NumPy long ago)."""
    code = (
        "import sys\n"
        "import annoscore.scale.run as run\n"
        "assert 'numpy' not in sys.modules\n"
        "def began(_):\n"
        "    return 'numpy' in sys.modules\n"
        "print(run.Run(jobs=2).map(began, range(3)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[True, True, True]"
