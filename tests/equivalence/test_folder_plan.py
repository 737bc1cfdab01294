"""Differential test of the folder plan (``scale/folders.split_folders``) against a plain one.

The plan merges the two sides' sorted stems into one list of stems (one merge, each stem
once) and finds the first suffixed file of each side from each chunk's start by walking the
names (:func:`~annoscore.scale.folders._first_suffixed`).  The plain plan, below, is the one it
replaced: the stems' set sorted, and every side's suffixed stems listed first and bisected.
Random pairs of folders (stems from ``tests/equivalence/ids.py``: multi-byte UTF-8, shared
prefixes, numeric-looking, stems ending in dots; suffixes ``.ann``, ``.txt`` and near misses;
names only one side holds, sides with few or no ``.ann``) must give the same chunks for every
number of parts and workers.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import bisect
import os
import random
from pathlib import Path

from annoscore.formats.files import name_stem
from annoscore.scale.chunks import FolderChunk
from annoscore.scale.cut_lines import targets
from annoscore.scale.folders import split_folders
from tests.equivalence.ids import random_id

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
SUFFIXES = (".ann", ".ann", ".txt", ".txt", ".ANN", ".ann.bak", ".xml", "")


def _plain_plan(
    gold: Path, system: Path, parts: int, suffix: str, workers: int
) -> list[FolderChunk] | None:
    """The plan as it was made before: the same cut, the plain way (folders of regular files
    only, as the test makes them)."""
    sides = []
    for folder in (gold, system):
        names = sorted(os.listdir(folder))
        if not names:
            return None
        stems = [name_stem(name) for name in names]
        if stems != sorted(stems):
            return None
        suffixed = [stem for stem, name in zip(stems, names, strict=True) if name.endswith(suffix)]
        sides.append((names, stems, suffixed))
    every = sorted({*sides[0][1], *sides[1][1]})
    count = len(every)
    if count < 2:
        return None
    parts = min(parts, count)
    ends = targets(count, parts, workers, -(-count // parts))
    bounds = [0]
    while bounds[-1] < count:
        begin = bounds[-1]
        end = max(begin + 1, ends[len(bounds) - 1] if len(bounds) <= len(ends) else count)
        for _, _, suffixed in sides:
            at = bisect.bisect_left(suffixed, every[begin])
            end = max(
                end,
                bisect.bisect_left(every, suffixed[at]) + 1 if at < len(suffixed) else count + 1,
            )
        if end > count:
            if len(bounds) > 1:
                bounds.pop()
            end = count
        bounds.append(end)
    if len(bounds) < 3:
        return None
    cuts = [
        [bisect.bisect_left(stems, every[k]) for k in bounds[:-1]] + [len(names)]
        for names, stems, _ in sides
    ]
    return [
        FolderChunk(str(gold), str(system), tuple(sides[0][0][g:ge]), tuple(sides[1][0][s:se]))
        for g, ge, s, se in zip(cuts[0], cuts[0][1:], cuts[1], cuts[1][1:], strict=False)
    ]


def _fill(rng: random.Random, folder: Path, stems: list[str], ann: float) -> None:
    """Files of some of ``stems``: a ``.ann`` (``ann`` of the time) or another suffix."""
    folder.mkdir()
    for stem in rng.sample(stems, rng.randint(1, len(stems))):
        for _ in range(rng.randint(1, 2)):
            suffix = ".ann" if rng.random() < ann else rng.choice(SUFFIXES)
            name = stem + suffix
            if name not in (".", "..") and not (folder / name).exists():
                (folder / name).write_text("", encoding="utf-8")


def test_the_plan_is_the_plain_plan(tmp_path: Path) -> None:
    rng = random.Random("folder-plan")
    cut = 0
    for case in range(150 * SCALE):
        root = tmp_path / str(case)
        root.mkdir()
        pool = list(
            {
                random_id(rng, max_bytes=rng.choice([3, 12, 40]), forbidden="/")
                for _ in range(rng.randint(2, 60))
            }
        )
        gold, system = root / "gold", root / "system"
        _fill(rng, gold, pool, rng.choice([0.0, 0.2, 0.6, 1.0]))
        _fill(rng, system, pool, rng.choice([0.0, 0.2, 0.6, 1.0]))
        for parts, workers in ((2, 1), (rng.randint(2, 9), rng.randint(1, 3))):
            found = split_folders(gold, system, parts, ".ann", workers)
            assert found == _plain_plan(gold, system, parts, ".ann", workers), case
            cut += found is not None
    assert cut >= 60 * SCALE, cut
