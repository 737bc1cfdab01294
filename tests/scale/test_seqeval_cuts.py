"""``annoscore seqeval`` on two CoNLL tag files cut before documents (:mod:`annoscore.scale.
cut_tags`, :mod:`annoscore.tasks.seqeval_chunks`): random adversarial files scored with
``--jobs`` 1, 2 and 3 and with one process scoring small chunks one after the other give
identical bytes (JSON with documents, types and seqeval's report; the command line's text),
warnings and errors included.

The files are those of the conlleval cuts (``tests/scale/test_tag_cuts.py``: ``-DOCSTART-``
lines named or not, inside sentences, runs of blank lines, a byte-order mark, carriage returns,
documents named twice, other numbers of fields, the system unlike the gold), with bare labels
and IOBES tags in either side, in default mode and strict mode with the scheme given or
detected; in strict mode some documents hold only ``O`` or ``I-`` tags, so that a chunk alone
detects another scheme than the whole (or none) and the input is scored in one run.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of files (default 1).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import annoscore.scale as scale
from annoscore.scale.cut_tags import split_tag_files
from tests.scale.test_lines import MULTIPLIER, _chunks_of, _jobs, _same
from tests.scale.test_tag_cuts import _document, _files

CASES = max(4, int(24 * MULTIPLIER))

MODES: list[dict[str, Any]] = [
    {},
    {"mode": "strict"},
    {"mode": "strict", "scheme": "iob2"},
    {"mode": "strict", "scheme": "iobes"},
]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _seqeval_files(rng: random.Random, root: Path, clean: bool) -> None:
    """conlleval's random files, some gold documents' tags made only O or I- (a chunk may then
    detect another scheme than the whole file)."""
    _files(rng, root, clean)
    if rng.random() < 0.4:
        gold = (root / "gold.conll").read_text(encoding="utf-8").split("\n")
        documents = [k for k, line in enumerate(gold) if line.startswith("-DOCSTART-")]
        start = rng.choice(documents)
        end = next((k for k in documents if k > start), len(gold))
        change = rng.choice(["O", "I"])
        for k in range(start + 1, end):
            fields = gold[k].rsplit(maxsplit=1)
            if len(fields) == 2 and fields[1] != "O":
                tag = "O" if change == "O" else "I-" + fields[1].partition("-")[2]
                gold[k] = gold[k][: -len(fields[1])] + tag
        (root / "gold.conll").write_text("\n".join(gold), encoding="utf-8")


def test_random_tag_files_give_the_same_bytes_warnings_included(
    tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random("seqeval-cuts")
    kept = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0
        _seqeval_files(rng, root, clean)
        options = MODES[case % len(MODES)]
        exact.clear()
        one = _same(
            "seqeval",
            root / "gold.conll",
            root / "system.conll",
            rng.choice([100, 300, 1000]),
            jobs=_jobs(case),
            **options,
        )
        if clean and not one.startswith("error") and not options.get("scheme"):
            clean_total += 1
            kept += bool(exact) and all(exact)
    assert kept >= 1, (kept, clean_total)


def _cli(*args: str) -> tuple[int, str]:
    from annoscore.cli import app

    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_the_command_line_gives_the_same_text_with_1_2_and_3_jobs(
    tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random("seqeval-cli")
    for case in range(max(2, CASES // 4)):
        root = tmp_path / str(case)
        root.mkdir()
        _seqeval_files(rng, root, case % 2 == 0)
        strict = ["--mode", "strict", "--per-type", "--per-doc"]
        for options in (["--per-type"], strict, ["-f", "html"], [*strict, "-f", "html"]):
            files = [str(root / "gold.conll"), str(root / "system.conll")]
            one = _cli("seqeval", *files, *options)
            for jobs in ("2", "3"):
                assert _cli("seqeval", *files, *options, "--jobs", jobs) == one
            with _chunks_of(200):
                assert _cli("seqeval", *files, *options) == one


def test_a_naive_byte_split_would_cut_a_document_the_cut_never_does(
    tmp_path: Path, exact: list[bool]
) -> None:
    gold = [line for k in range(31) for line in _document(k)]
    system = [line for k in range(31) for line in _document(k, "B-PER O PER")]
    texts = ["\n".join(gold) + "\n", "\n".join(system) + "\n"]
    (tmp_path / "g.conll").write_text(texts[0], encoding="utf-8")
    (tmp_path / "s.conll").write_text(texts[1], encoding="utf-8")
    half = len(texts[0]) // 2
    assert texts[0][half - 2 : half + 10] != "\n\n-DOCSTART-"  # a naive cut splits a document
    chunks = split_tag_files(tmp_path / "g.conll", tmp_path / "s.conll", 2)
    assert chunks is not None and len(chunks) == 2
    for side, start in zip(
        texts, (chunks[1].gold_range[0], chunks[1].system_range[0]), strict=True
    ):
        assert side.encode()[start - 2 : start + 10] == b"\n\n-DOCSTART-"
    exact.clear()
    one = _same("seqeval", tmp_path / "g.conll", tmp_path / "s.conll", 150)
    assert exact and all(exact)
    assert "no prefix and hyphen" in one and "s.conll:11" in one  # the system's bare tag


def test_a_chunk_that_detects_another_scheme_is_scored_in_one_run(
    tmp_path: Path, exact: list[bool]
) -> None:
    # the first documents' gold tags are IOB2 with I- only after B-, the last ones' only O:
    # a chunk of them alone detects no scheme; the whole file detects IOB2
    gold = [line for k in range(20) for line in _document(k)]
    gold += [line for k in range(20) for line in _document(k, "O O O")]
    system = [line for k in range(40) for line in _document(k, "B-PER O B-LOC")]
    (tmp_path / "g.conll").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "s.conll").write_text("\n".join(system) + "\n", encoding="utf-8")
    exact.clear()
    one = _same("seqeval", tmp_path / "g.conll", tmp_path / "s.conll", 150, mode="strict")
    assert not one.startswith("error") and exact and not all(exact)


# --- one file holding both sides --------------------------------------------------------------


def _one_file(rng: random.Random, root: Path, clean: bool) -> Path:
    """The two random files joined line by line, each gold line with the system line's tag
    (``annoscore seqeval FILE``: the gold and predicted tags in the last two fields)."""
    _seqeval_files(rng, root, clean)
    gold = (root / "gold.conll").read_text(encoding="utf-8").split("\n")
    system = (root / "system.conll").read_text(encoding="utf-8").split("\n")
    lines = [
        g if not g.strip() else f"{g} {s.split()[-1] if s.strip() else 'O'}"
        for g, s in zip(gold, system, strict=False)
    ]
    path = root / "tagged.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_random_single_files_give_the_same_bytes_with_jobs_and_chunks(
    tmp_path: Path, exact: list[bool]
) -> None:
    """``annoscore seqeval FILE`` cut before documents as two files are: the text and the JSON
    (documents, types, seqeval's report) with ``--jobs`` 2 or 3 and with one process scoring
    small chunks one after the other are one run's, warnings and errors included."""
    rng = random.Random("seqeval-one-file")
    kept = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0
        path = _one_file(rng, root, clean)
        mode = MODES[case % len(MODES)]
        flags = [f"--{k}={v}" for k, v in mode.items()]
        exact.clear()
        for args in (["--per-type"], ["-f", "json", "--per-doc", "--per-type"]):
            one = _cli("seqeval", str(path), *flags, *args)
            for jobs in map(str, _jobs(case)):
                assert _cli("seqeval", str(path), *flags, *args, "--jobs", jobs) == one
            with _chunks_of(rng.choice([100, 300, 1000])):
                assert _cli("seqeval", str(path), *flags, *args) == one, (case, args)
        if clean and one[0] == 0 and not mode.get("scheme"):
            clean_total += 1
            kept += bool(exact) and all(exact)
    assert kept >= 1, (kept, clean_total)


def test_a_large_single_file_is_scored_chunk_by_chunk_with_one_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatch: a file of ``_LARGE_BYTES`` or more goes through the chunks even where
    :mod:`annoscore.scale` is not loaded; standard input never does."""
    import sys

    from annoscore.tasks import seqeval

    path = tmp_path / "tagged.txt"
    path.write_text("-DOCSTART- O O\n\nJohn B-PER B-PER\n", encoding="utf-8")
    monkeypatch.setattr(seqeval, "_LARGE_BYTES", path.stat().st_size)
    monkeypatch.delitem(sys.modules, "annoscore.scale", raising=False)
    called: list[tuple[Path, Path]] = []
    monkeypatch.setattr(seqeval, "_one_file_cut", lambda: lambda g, s, o: called.append((g, s)))
    seqeval.score_seqeval_file(path)
    assert called == [(path, path)]
    monkeypatch.setattr(seqeval, "_LARGE_BYTES", path.stat().st_size + 1)
    assert seqeval.score_seqeval_file(path).counts["tp"] == 1
    assert seqeval.score_seqeval_file(path, text=path.read_text()).counts["tp"] == 1
    assert called == [(path, path)]


def test_a_naive_byte_split_of_a_single_file_would_cut_a_document_the_cut_never_does(
    tmp_path: Path, exact: list[bool]
) -> None:
    from tests.scale.test_tag_file_cuts import documents_in_one_file

    path, _ = documents_in_one_file(tmp_path)
    one = _cli("seqeval", str(path), "-f", "json", "--per-doc")
    exact.clear()
    with _chunks_of(150):
        assert _cli("seqeval", str(path), "-f", "json", "--per-doc") == one
    assert exact and all(exact)  # cut, and every chunk kept
