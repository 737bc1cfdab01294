"""PharmaCoNER folders cut by file (``annoscore pharmaconer ner`` and ``indexing``): random
corpora scored with 1, 2 and 3 jobs give the same bytes (JSON with documents, types and
averages, and the official text layout), warnings and errors included.

Adversarial folders: documents on one side only, repeated entities, UNCLEAR mentions and notes,
discontinuous entities, byte-order marks, a system folder holding files that do not end in
``.ann`` (the official script reads them as brat), ``.ANN`` names, stems whose sorted order is
not their files' (``s1-b.ann`` < ``s1.ann`` but ``s1`` < ``s1-b``), broken lines that are
errors naming file and line, every span mode, ``--codalab``, ``--missing-docs``,
``--strict-input``.  Clean corpora are checked to be really cut.  ``ANNOSCORE_EQUIVALENCE_CASES``
multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.scale import Run
from annoscore.scale.folders import split_folders
from tests.scale.test_lines import _same

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(40 * MULTIPLIER))
PROCESS_CASES = max(1, int(3 * MULTIPLIER))

TYPES = ("NORMALIZABLES", "PROTEINAS", "NO_NORMALIZABLES", "UNCLEAR")
WORDS = ("ácido", "dosis", "de", "mg", "PSA", "ñu", "中文", "x")


def _stems(rng: random.Random, clean: bool) -> list[str]:
    stems = []
    for n in range(rng.randint(2, 24)):
        base = rng.choice(["S0004-0614", "doc", "a.b", "ü", "s"]) + f"{n:03d}"
        stems.append(base)
        if not clean and rng.random() < 0.1:  # sorts otherwise than its files' names
            stems.append(base + rng.choice(["-b", ".b", "_b", " b"]))
    return stems


def _entities(rng: random.Random, text: str, clean: bool) -> list[tuple[str, str, str]]:
    """(type, offsets, text) of some mentions of ``text``."""
    out = []
    for _ in range(rng.randint(0, 6)):
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randint(1, 10))
        offsets = f"{start} {end}"
        words = text[start:end]
        if rng.random() < 0.05 and end + 2 < len(text):  # discontinuous
            offsets = f"{start} {end};{end + 1} {end + 2}"
            words = f"{words} {text[end + 1 : end + 2]}"
        out.append((rng.choice(TYPES), offsets, words))
    if out and rng.random() < (0.03 if clean else 0.2):
        out.append(out[0])  # a repeated entity
    return out


def _ann(
    rng: random.Random, entities: list[tuple[str, str, str]], clean: bool, codes: list[str]
) -> str:
    lines = [f"T{n}\t{kind} {offsets}\t{words}" for n, (kind, offsets, words) in
             enumerate(entities, 1)]  # fmt: skip
    lines += [
        f"#{n}\tAnnotatorNotes T{n}\t{rng.choice(codes)}"
        for n in range(1, len(entities) + 1)
        if rng.random() < 0.5
    ]
    if not clean and lines and rng.random() < 0.1:
        roll = rng.randrange(4)
        if roll == 0:
            lines.insert(rng.randrange(len(lines)), "T77\tPROTEINAS 4 x\tbroken")  # an error
        elif roll == 1:
            lines.append(lines[0])  # a repeated id
        elif roll == 2:
            lines.append("")  # a blank line
        else:
            lines.append("T66\tPROTEINAS 0 2 ab")  # text after a space
    bom = "\ufeff" if not clean and rng.random() < 0.05 else ""
    return bom + "".join(line + "\n" for line in lines)


def _ner_corpus(rng: random.Random, root: Path, clean: bool) -> tuple[Path, Path]:
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    codes = [str(rng.randint(1, 10**9)) for _ in range(6)]
    for stem in _stems(rng, clean):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 25)))
        mine = _entities(rng, text, clean)
        guess = [e for e in mine if rng.random() < 0.7] + _entities(rng, text, clean)[:2]
        side = rng.random() if not clean else 0.5
        if side > 0.1:
            (gold / f"{stem}.ann").write_text(_ann(rng, mine, clean, codes), encoding="utf-8")
            (gold / f"{stem}.txt").write_text(text, encoding="utf-8")
        if side < 0.9:
            (system / f"{stem}.ann").write_text(_ann(rng, guess, clean, codes), encoding="utf-8")
            if not clean and rng.random() < 0.05:  # read as brat by the plain script
                (system / f"{stem}.a2").write_text(_ann(rng, guess, True, codes), "utf-8")
    if not clean and rng.random() < 0.1:
        (gold / "zz.ANN").write_text("T1\tPROTEINAS 0 1\tx\n", encoding="utf-8")
    for folder in (gold, system):
        if not any(folder.glob("*.ann")):
            (folder / "zz-last.ann").write_text("T1\tPROTEINAS 0 1\tx\n", encoding="utf-8")
    return gold, system


def _ner_options(rng: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = rng.choice(
        [
            {},
            {},
            {"mode": "exact"},
            {"mode": "overlap", "min_overlap": 0.5},
            {"mode": "relaxed", "tolerance": 2},
        ]
    )
    options = dict(options)
    if rng.random() < 0.3:
        options["codalab"] = True
    if rng.random() < 0.3:
        options["missing_docs"] = rng.choice(["ignore", "count", "official"])
    if rng.random() < 0.2:
        options["undefined"] = "null"
    if rng.random() < 0.1:
        options["strict_input"] = True
    return options


def _indexing_corpus(rng: random.Random, root: Path, clean: bool) -> tuple[Path, Path]:
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    codes = [str(rng.randint(1, 10**6)) for _ in range(12)] + ["<null>"]
    for stem in _stems(rng, clean):
        mine = rng.sample(codes, rng.randint(1, 5))
        guess = [c for c in mine if rng.random() < 0.7] + rng.sample(codes, rng.randint(0, 2))
        side = rng.random() if not clean else 0.5
        for folder, found, present in ((gold, mine, side > 0.1), (system, guess, side < 0.9)):
            if not present:
                continue
            lines = [f"{stem}\t{code}" for code in found]
            if not clean and lines and rng.random() < 0.15:
                roll = rng.randrange(6)
                if roll == 0:
                    lines.append(lines[0])  # a repeated code
                elif roll == 1:
                    lines.insert(0, "")  # a blank line
                elif roll == 2:
                    lines.append(f"other\t{codes[0]}")  # names another document
                elif roll == 3:
                    lines.append(f"{stem}\t {codes[1]}  ")  # whitespace
                elif roll == 4:
                    lines.append(f"{stem}\t{codes[2]}\textra")  # an error
                else:
                    lines[0] = "\ufeff" + lines[0]
            (folder / f"{stem}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
            if rng.random() < 0.1:
                (folder / f"{stem}.txt").write_text("not read", encoding="utf-8")
    if not clean and rng.random() < 0.1:
        (system / "zz.TSV").write_text(f"zz\t{codes[0]}\n", encoding="utf-8")
    for folder in (gold, system):
        if not any(folder.glob("*.tsv")):
            (folder / "zz-last.tsv").write_text(f"zz-last\t{codes[0]}\n", encoding="utf-8")
    return gold, system


def _indexing_options(rng: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if rng.random() < 0.4:
        options["missing_docs"] = rng.choice(["ignore", "count", "official"])
    if rng.random() < 0.2:
        options["undefined"] = "null"
    if rng.random() < 0.1:
        options["strict_input"] = True
    return options


CORPORA = {
    "pharmaconer-ner": (_ner_corpus, _ner_options, ".ann"),
    "pharmaconer-indexing": (_indexing_corpus, _indexing_options, ".tsv"),
}


def _inline(
    self: Run, function: Any, items: Any, until: Any = None, ready: Any = None
) -> list[Any]:
    found = []
    for item in items() if callable(items) else items:  # made by a plan, or given
        part = function(item)
        if until is not None and until(part):
            break
        found.append(part)
    return found


@pytest.mark.parametrize("task", list(CORPORA))
def test_random_pharmaconer_folders_cut_by_file_give_the_same_bytes(
    task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, combined: list[bool]
) -> None:
    """The cut and the reduce with the chunks scored in this process (many cases)."""
    monkeypatch.setattr(Run, "map", _inline)
    write, choose, suffix = CORPORA[task]
    rng = random.Random(f"pharmaconer-folders-{task}")
    cut = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        gold, system = write(rng, root, clean)
        options = {} if clean else choose(rng)
        combined.clear()
        _same(task, gold, system, **options)
        if clean:
            clean_total += 1
            plan = split_folders(gold, system, 4, suffix)
            cut += plan is not None and combined == [True, True]
    assert cut >= clean_total * 3 // 4, (cut, clean_total)


@pytest.mark.parametrize("task", list(CORPORA))
def test_random_pharmaconer_folders_give_the_same_bytes_with_worker_processes(
    task: str, tmp_path: Path
) -> None:
    write, choose, _ = CORPORA[task]
    rng = random.Random(f"pharmaconer-processes-{task}")
    for case in range(PROCESS_CASES):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system = write(rng, root, case % 2 == 0)
        _same(task, gold, system, **choose(rng))


def test_an_error_in_a_later_gold_file_is_named_before_one_in_an_earlier_system_file(
    tmp_path: Path, combined: list[bool]
) -> None:
    # one run reads every gold file before the system's: the gold error of the last chunk is
    # the one named, not the system error of the first chunk
    gold, system = tmp_path / "gold", tmp_path / "system"
    gold.mkdir()
    system.mkdir()
    for n in range(12):
        for folder in (gold, system):
            (folder / f"d{n:02d}.ann").write_text("T1\tPROTEINAS 0 3\tabc\n", encoding="utf-8")
    (system / "d00.ann").write_text("T1\tPROTEINAS x 3\tabc\n", encoding="utf-8")
    (gold / "d11.ann").write_text("T1\tPROTEINAS 0 y\tabc\n", encoding="utf-8")
    one = _same("pharmaconer-ner", gold, system)
    assert one.startswith("error: ") and "d11.ann" in one, one
    assert combined == [] or not any(combined)


def test_stems_sorted_otherwise_than_their_names_are_one_chunk(tmp_path: Path) -> None:
    gold, system = tmp_path / "gold", tmp_path / "system"
    gold.mkdir()
    system.mkdir()
    for stem in ("a", "a-b", "c", "d"):
        for folder in (gold, system):
            (folder / f"{stem}.ann").write_text("T1\tPROTEINAS 0 1\tx\n", encoding="utf-8")
    assert split_folders(gold, system, 4) is None  # a-b.ann < a.ann, but a < a-b
    (gold / "a-b.ann").rename(gold / "b.ann")
    (system / "a-b.ann").rename(system / "b.ann")
    assert split_folders(gold, system, 4) is not None


def test_codalab_indexing_with_its_notes_folder_is_one_chunk(
    tmp_path: Path, combined: list[bool]
) -> None:
    from annoscore.samples import SAMPLES

    folder = SAMPLES / "pharmaconer"
    gold, system = folder / "gold/subtrack2/sample", folder / "system/subtrack2/sample"
    options = {"codalab": True, "gold_ann": folder / "gold/subtrack1/sample"}
    _same("pharmaconer-indexing", gold, system, **options)
    assert combined == []
    _same("pharmaconer-indexing", gold, system)
    assert combined == [True, True]


@pytest.mark.parametrize("task", list(CORPORA))
def test_random_pharmaconer_folders_cut_with_one_process_give_the_bytes_of_one_run(
    task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, combined: list[bool]
) -> None:
    """Folders of more than ``FOLDER_CHUNK_DOCUMENTS`` documents, scored chunk by chunk in one
    process (the bounded-memory path of ``--jobs 1``), against one run of the whole."""
    import annoscore.scale.folders as folders
    from tests.scale.test_lines import _output

    write, choose, _ = CORPORA[task]
    rng = random.Random(f"pharmaconer-one-process-{task}")
    for case in range(max(1, CASES // 2)):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system = write(rng, root, case % 2 == 0)
        options = {} if case % 2 == 0 else choose(rng)
        monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", 1 << 40)
        one = _output(task, gold, system, 1, **options)
        monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", rng.randint(1, 3))
        assert _output(task, gold, system, 1, **options) == one, (case, options)
    assert True in combined  # some were cut and combined
