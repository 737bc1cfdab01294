"""Differential test of the folder format's fast path (``formats/annotations.detect_format``).

A chunk of brat folders reads its folders inside :func:`~annoscore.formats.files.selected_files`
(its documents' names); :func:`detect_format` then decides ``brat`` from the chunk's names when
one ends in ``.ann``, without opening the folder.  The plain path is the scan of the whole
folder.  Random folders (names from ``tests/equivalence/ids.py``: multi-byte UTF-8, shared
prefixes, numeric-looking; suffixes ``.ann`` and its near misses ``.ANN``, ``.ann.bak``,
``.annx``, ``.xml``, none) hold files, sub-folders (some named ``*.ann``), links to files and
dangling links; each is detected inside random selections of its entries, listed or not, and
must be detected as the whole folder is.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from annoscore.formats.annotations import detect_format
from annoscore.formats.files import selected_files
from tests.equivalence.ids import random_id

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
SUFFIXES = (".ann", ".ann", ".ANN", ".ann.bak", ".annx", ".xml", ".xml", ".txt", "")


def _folder(rng: random.Random, folder: Path) -> None:
    """1-12 entries: regular files mostly, sub-folders, links to a file, dangling links."""
    folder.mkdir()
    for _ in range(rng.randint(1, 12)):
        name = random_id(rng, max_bytes=30, forbidden="/.") + rng.choice(SUFFIXES)
        if os.path.lexists(folder / name):
            continue
        roll = rng.random()
        if roll < 0.75:
            (folder / name).write_text("T1\tX 0 1\tx\n", encoding="utf-8")
        elif roll < 0.85:
            (folder / name).mkdir()
        elif roll < 0.93:
            target = folder.parent / f"target-{len(os.listdir(folder.parent))}"
            target.write_text("", encoding="utf-8")
            (folder / name).symlink_to(target)
        else:
            (folder / name).symlink_to(folder.parent / "nowhere")


def test_a_chunks_folder_is_detected_as_the_whole_folder_is(tmp_path: Path) -> None:
    rng = random.Random("folder-format")
    kinds = set()
    shortcut = 0
    for case in range(300 * SCALE):
        folder = tmp_path / str(case) / "folder"
        folder.parent.mkdir()
        _folder(rng, folder)
        whole = detect_format(folder)
        kinds.add(whole)
        names = sorted(os.listdir(folder))
        for _ in range(3):
            chosen = rng.sample(names, rng.randint(0, len(names)))
            shortcut += any(name.endswith(".ann") for name in chosen)
            # the selection named by another spelling of the same path (absolute, relative)
            key = str(folder) if rng.random() < 0.5 else os.path.relpath(folder)
            with selected_files({key: chosen}, listed=rng.random() < 0.5):
                assert detect_format(folder) == whole, (case, chosen)
    assert len(kinds) == 3 and shortcut > 100, (kinds, shortcut)
