"""Folders cut by file, differentially on adversarial random folders: the names a chunk's
reader is given (:func:`~annoscore.formats.files.selected_files` with ``listed``, the folder
not listed again) read as the plain listing reads them; the stems as ``os.path.splitext``
makes them; the cut (:func:`~annoscore.scale.folders.split_folders`) against a plain
reference: every file once, whole stems, both sides in every chunk, in name order, and no cut
exactly when a folder's names sort otherwise than their stems or hold something else than
regular files."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest

from annoscore.formats.files import folder_files, name_stem, selected_files
from annoscore.scale.folders import split_folders

CASES = 60
ALPHABET = "ab.-_ A"
SUFFIXES = (".ann", ".txt", ".ANN", ".Ann", ".tsv", "", ".ann.bak", ".")


def _name(rng: random.Random, odd: float = 1.0) -> str:
    """A file name: an odd one (``odd`` of the time) or a document's ``.ann`` or ``.txt``."""
    if rng.random() >= odd:
        return f"d{rng.randrange(30):02d}" + rng.choice([".ann", ".ann", ".txt"])
    stem = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 4)))
    name = (stem + rng.choice(SUFFIXES)).strip() or "x"
    return name if name not in (".", "..") else "x" + name


def test_name_stem_is_splitext_of_a_name() -> None:
    rng = random.Random("stems")
    for _ in range(20_000):
        name = "".join(rng.choice("a.b") for _ in range(rng.randint(1, 7)))
        assert name_stem(name) == os.path.splitext(name)[0], name


def _folder(rng: random.Random, folder: Path, plain: bool, odd: float = 1.0) -> None:
    folder.mkdir()
    for _ in range(rng.randint(1, 25)):
        name = _name(rng, odd)
        roll = rng.random()
        if os.path.lexists(folder / name):
            continue
        if plain or roll < 0.8:
            (folder / name).write_text("T1\tX 0 1\tx\n", encoding="utf-8")
        elif roll < 0.87:
            (folder / name).mkdir()
        elif roll < 0.94:  # a link to a regular file: read as one
            target = folder.parent / f"target-{folder.name}-{name}"
            target.write_text("", encoding="utf-8")
            (folder / name).symlink_to(target)
        else:
            (folder / name).symlink_to(folder.parent / "nowhere")


@pytest.mark.parametrize("every_file", [False, True])
@pytest.mark.parametrize("suffix", [".ann", ".tsv"])
def test_listed_names_read_as_the_folder_listing_reads_them(
    tmp_path: Path, every_file: bool, suffix: str
) -> None:
    rng = random.Random(f"listed-{every_file}-{suffix}")
    for case in range(CASES):
        folder = tmp_path / str(case) / "folder"
        folder.parent.mkdir()
        _folder(rng, folder, plain=False)
        files = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.is_file() and os.path.exists(entry.path)
        )
        chosen = set(rng.sample(files, rng.randint(0, len(files))))
        spelt = rng.choice([str(folder), str(folder) + "/", folder])
        found = []
        for listed in (False, True):
            texts: set[str] = set()
            with selected_files({str(folder): chosen}, listed=listed):
                answer = folder_files(Path(spelt), suffix, every_file, texts)
            found.append((answer, texts))
        assert found[0] == found[1], (case, chosen)


def _stems_in_name_order(names: list[str]) -> bool:
    stems = [os.path.splitext(n)[0] for n in sorted(names)]
    return stems == sorted(stems)


def test_random_folders_are_cut_in_whole_stems_in_name_order(tmp_path: Path) -> None:
    rng = random.Random("cut")
    several = random.Random("cut-workers")  # the workers the chunks are for (shrinking: 2, 3)
    cut = 0
    for case in range(CASES * 2):
        root = tmp_path / str(case)
        root.mkdir()
        plain = rng.random() < 0.8
        gold, system = root / "gold", root / "system"
        odd = rng.choice([0.0, 0.05, 0.3])
        _folder(rng, gold, plain, odd)
        _folder(rng, system, plain and rng.random() < 0.9, odd)
        parts = rng.randint(2, 6)
        workers = several.choice([1, 2, 3])
        chunks = split_folders(gold, system, parts, workers=workers)
        names = [sorted(os.listdir(folder)) for folder in (gold, system)]
        regular = all(entry.is_file() for folder in (gold, system) for entry in os.scandir(folder))
        stems = {os.path.splitext(n)[0] for side in names for n in side}
        suffixed = [{os.path.splitext(n)[0] for n in side if n.endswith(".ann")} for side in names]
        if chunks is None:
            # why not: something else than files, names out of their stems' order, or too few
            # stems with a .ann file on both sides to make two chunks that have them
            assert (
                not regular
                or not all(_stems_in_name_order(side) for side in names)
                or len(suffixed[0] & suffixed[1]) < 2
                or suffixed[0] & suffixed[1] != stems
            ), (case, names)
            continue
        cut += 1
        assert regular and all(_stems_in_name_order(side) for side in names)
        assert len(chunks) >= 2 and (workers > 1 or len(chunks) <= parts)
        for side in (0, 1):
            got = [c.gold_names if side == 0 else c.system_names for c in chunks]
            joined = [n for chunk in got for n in chunk]
            assert joined == names[side]  # every file once, in name order
            for chunk in got:
                assert any(n.endswith(".ann") for n in chunk)
        chunk_stems = [
            {os.path.splitext(n)[0] for n in (*c.gold_names, *c.system_names)} for c in chunks
        ]
        for one, other in itertools.pairwise(chunk_stems):
            assert max(one) < min(other)  # whole stems, in order
    assert cut >= CASES // 2, cut


def _chunk_sizes(root: Path, workers: int) -> list[int]:
    """The gold documents in each of the chunks ``split_folders`` makes of two folders of 101
    documents each, asked for 8 parts."""
    gold, system = root / "gold", root / "system"
    for folder in (gold, system):
        folder.mkdir()
        for n in range(101):
            (folder / f"d{n:03d}.ann").touch()
    chunks = split_folders(gold, system, 8, workers=workers)
    assert chunks is not None
    return [len(c.gold_names) for c in chunks]


def test_chunks_are_about_as_large(tmp_path: Path) -> None:
    sizes = _chunk_sizes(tmp_path, workers=1)
    assert len(sizes) == 8 and max(sizes) - min(sizes) <= 1, sizes


def test_chunks_for_several_workers_shrink_towards_the_end(tmp_path: Path) -> None:
    # as large as even shares at first, never larger, then smaller and smaller: the processes
    # that take the next chunk as they finish one end together
    sizes = _chunk_sizes(tmp_path, workers=2)
    assert sum(sizes) == 101 and len(sizes) > 8, sizes
    assert sizes[0] == 13 and sizes == sorted(sizes, reverse=True) and sizes[-1] < 4, sizes
