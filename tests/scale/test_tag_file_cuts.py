"""``annoscore conlleval`` on one file in conlleval's layout (gold and guessed tags in its last
two fields) cut before documents (:func:`annoscore.scale.cut_tags.split_tag_file`): random
adversarial files scored with ``--jobs`` 1, 2 and 3 and with one process scoring small chunks
one after the other give identical bytes (conlleval's text, ``-l``, and JSON with documents and
types), warnings and errors included.  The files are those of the two-file cuts
(``tests/scale/test_tag_cuts.py``) joined line by line.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of files (default 1).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import annoscore.scale as scale
from annoscore.scale.cut_tags import split_tag_file
from tests.scale.test_lines import MULTIPLIER, _chunks_of, _jobs
from tests.scale.test_tag_cuts import _document, _files

CASES = max(3, int(16 * MULTIPLIER))


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _joined(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    """The two files of the two-file cuts joined: each gold line with the system line's tag."""
    options = _files(rng, root, clean)
    sep = "\t" if options.get("delimiter") else " "
    gold = (root / "gold.conll").read_text(encoding="utf-8").split("\n")
    system = (root / "system.conll").read_text(encoding="utf-8").split("\n")
    lines = [
        g if not g.strip() else f"{g}{sep}{s.rsplit(sep, 1)[-1] if s.strip() else 'O'}"
        for g, s in zip(gold, system, strict=False)
    ]
    (root / "tagged.txt").write_text("\n".join(lines), encoding="utf-8")
    return options


def _cli(path: Path, options: dict[str, Any], *args: str) -> tuple[int, str]:
    from annoscore.cli import app

    flags = [*(["-d", options["delimiter"]] if "delimiter" in options else [])]
    flags += ["-r"] if options.get("raw") else []
    result = CliRunner().invoke(app, ["conlleval", str(path), *flags, *args])
    return result.exit_code, result.output


def _same(
    path: Path, options: dict[str, Any], chunk: int, jobs: tuple[str, ...] = ("2", "3")
) -> list[tuple[int, str]]:
    """One run's outputs (text, LaTeX, JSON), checked equal with each number of ``jobs``
    (random cases take turns: :func:`tests.scale.test_lines._jobs`) and with one process
    scoring chunks of ``chunk`` bytes."""
    outputs = []
    for args in ([], ["-l"], ["-f", "json", "--per-doc"], ["-f", "html"]):
        one = _cli(path, options, *args)
        for jobs_n in jobs:
            assert _cli(path, options, *args, "--jobs", jobs_n) == one, (path, args, jobs_n)
        with _chunks_of(chunk):
            assert _cli(path, options, *args) == one, (path, args, chunk)
        outputs.append(one)
    return outputs


def test_random_files_give_the_same_bytes_warnings_included(
    tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random("tag-file-cuts")
    kept = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0
        options = _joined(rng, root, clean)
        exact.clear()
        chunk = rng.choice([100, 300, 1000])
        outputs = _same(root / "tagged.txt", options, chunk, tuple(map(str, _jobs(case))))
        if clean and outputs[0][0] == 0:
            clean_total += 1
            kept += bool(exact) and all(exact)
    assert kept >= clean_total // 2, (kept, clean_total)


def documents_in_one_file(root: Path) -> tuple[Path, str]:
    """31 documents of the two-file cuts in one file of both sides (each gold tag again as the
    guessed one), written to ``root``, and its text, whose middle a naive byte split would
    cut inside a document."""
    lines = [line for k in range(31) for line in _document(k)]
    lines = [f"{line} {line.rsplit(' ', 1)[-1]}" if line else line for line in lines]
    text = "\n".join(lines) + "\n"
    path = root / "tagged.txt"
    path.write_text(text, encoding="utf-8")
    half = len(text) // 2
    assert text[half - 2 : half + 10] != "\n\n-DOCSTART-"  # a naive cut splits a document
    return path, text


def test_a_naive_byte_split_would_cut_a_document_the_cut_never_does(
    tmp_path: Path, exact: list[bool]
) -> None:
    path, text = documents_in_one_file(tmp_path)
    chunks = split_tag_file(path, path, 3)
    assert chunks is not None and len(chunks) == 3
    for chunk in chunks[1:]:
        assert chunk.gold_range == chunk.system_range and chunk.gold == chunk.system
        assert text.encode()[chunk.gold_range[0] - 2 :].startswith(b"\n\n-DOCSTART-")
    exact.clear()
    outputs = _same(path, {}, 150)
    assert exact and all(exact)
    assert "-DOCSTART- lines are counted as tokens" in outputs[0][1]
