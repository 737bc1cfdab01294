"""The progress line of a run not cut into chunks (:func:`annoscore.scale.counted`): the task
counts its documents one after the other, and beside the command line's spinner on a terminal
(:data:`~annoscore.scale.run.SHOWN_BY`) the same line as a run by chunks is told (documents
done, rate, time left); in a pipe, under ``CI``, in a library's call or in a chunk of a map,
the documents are given back as they are, so nothing else changes."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import annoscore
from annoscore.scale import Progress, Run, counted, files_read
from annoscore.scale.run import SHOWN_BY
from annoscore.tasks.registry import TASKS, sample_paths


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What the spinner is told, on a terminal (a line after every document)."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(Progress, "EVERY", 0.0)
    lines: list[str] = []
    token = SHOWN_BY.set(lines.append)
    try:
        yield lines
    finally:
        SHOWN_BY.reset(token)


def _copies(text: str, number: str, copies: int) -> str:
    """``text`` (one document numbered ``number``) ``copies`` times, each numbered anew."""
    return "".join(text.replace(number, f"{number[:-3]}{k:03d}") for k in range(copies))


def _copied(name: str, number: str, root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    """Task ``name``'s sample files, their one document (``number``) three times."""
    gold, system, options = sample_paths(TASKS[name])
    for path in (gold, system):
        (root / path.name).write_text(_copies(path.read_text(), number, 3))
    return name, root / gold.name, root / system.name, options


def _templates(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    return _copied("muc-template-element", "9901010001", root)


def _named_entity(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    gold, system, options = sample_paths(TASKS["muc-named-entity"])
    return "muc-named-entity", gold, system, options


def _coreference(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    return _copied("muc-coreference", "9901010002", root)


def _concepts(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    for side, concept in (("gold", "DB:1"), ("system", "DB:2")):
        (root / side).mkdir()
        for name in ("a", "b", "c"):
            (root / side / f"{name}.txt").write_text("aspirina oral", encoding="utf-8")
            lines = "T1\tDrug 0 8\taspirina\nN1\tReference T1 DB:1\taspirina\n"
            lines += f"T2\tRoute 9 13\toral\nN2\tReference T2 {concept}\toral\n"
            (root / side / f"{name}.ann").write_text(lines, encoding="utf-8")
    return "spans", root / "gold", root / "system", {"mode": "concepts"}


def _coref(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    gold, system, options = sample_paths(TASKS["coref"])
    return "coref", gold, system, options


def _strict(root: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    _, gold, system, _ = _concepts(root)
    return "spans", gold, system, {"mode": "strict"}


UNCUT = {
    "muc templates": (_templates, 3),
    "muc named entity": (_named_entity, 2),
    "muc coreference": (_coreference, 3),
    "spans concepts": (_concepts, 3),
    "coref": (_coref, 2),
}
"""Each path scored in one run, document after document, and its number of documents."""


@pytest.mark.parametrize("path", UNCUT)
def test_a_run_not_cut_tells_the_spinner_documents_rate_and_time_left(
    path: str, told: list[str], tmp_path: Path
) -> None:
    make, documents = UNCUT[path]
    task, gold, system, options = make(tmp_path)
    terminal = Terminal()
    with contextlib.redirect_stderr(terminal):  # here: pytest sets its capture at the start
        result = annoscore.score(task, gold, system, **options)
    assert len(result.matrix.documents) == documents
    lines = [line for line in told if " documents, " in line]
    assert len(lines) == documents, told  # one a document (EVERY = 0)
    assert f"{documents:,} documents" in lines[-1] and "/s, " in lines[-1]
    assert lines[-1].startswith("[" + "#" * 20 + "]") and lines[-1].endswith("0 s left")
    assert "  1 documents, " in lines[0] and lines[0].endswith(" s left")
    assert told[-1] == ""  # the spinner's own text again
    assert terminal.getvalue() == ""  # told, never written
    SHOWN_BY.set(None)
    alone = annoscore.score(task, gold, system, **options)
    assert json.dumps(alone.to_dict()) == json.dumps(result.to_dict())


@pytest.mark.parametrize("mode", ["strict", "concepts"])
def test_a_folder_of_brat_files_read_in_one_run_tells_the_files_read(
    mode: str, told: list[str], tmp_path: Path
) -> None:
    """Reading is most of a run of brat folders whose files the checked parser reads (``N``
    lines): each side's files read are told as they are parsed, then (concepts, counted one
    after the other) its documents."""
    _, gold, system, _ = _concepts(tmp_path)
    terminal = Terminal()
    with contextlib.redirect_stderr(terminal):
        result = annoscore.score("spans", gold, system, mode=mode)
    read = [line for line in told if " files read, " in line]
    assert len(read) == 6, told  # 3 a side, a line a file (EVERY = 0)
    assert read[2].startswith("[" + "#" * 20 + "]  3 files read, ") and "1 files read" in read[3]
    assert told[told.index(read[2]) + 1] == ""  # the spinner's own text between the sides
    assert told[-1] == "" and terminal.getvalue() == ""
    SHOWN_BY.set(None)
    alone = annoscore.score("spans", gold, system, mode=mode)
    assert json.dumps(alone.to_dict()) == json.dumps(result.to_dict())


def test_nothing_is_wrapped_without_a_spinner_in_ci_in_a_pipe_or_in_a_chunk(
    told: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = ("a", "b", "c")
    with contextlib.redirect_stderr(Terminal()):
        assert counted(documents) is not documents  # the spinner on a terminal: a line
        token = SHOWN_BY.set(None)
        assert counted(documents) is documents  # no spinner (a library's call)
        SHOWN_BY.reset(token)
        one = documents[:1]
        assert counted(one) is one  # one document: nothing to show
        # a chunk of a map: the map's own line shows the run
        assert all(r is documents for r in Run(1).map(counted, [documents, documents]))
        monkeypatch.setenv("CI", "true")
        assert counted(documents) is documents
        monkeypatch.delenv("CI")
    with contextlib.redirect_stderr(io.StringIO()):  # a pipe
        assert counted(documents) is documents and files_read(documents) is documents
    # the map's own line only (its parts say no documents): its chunks' counts told nothing
    assert told and all(" 0 documents" in line for line in told if line), told


def test_a_count_stopped_by_an_error_gives_the_spinner_its_own_text_back(
    told: list[str],
) -> None:
    with contextlib.redirect_stderr(Terminal()), pytest.raises(ValueError):
        for document in counted(("a", "b", "c")):
            if document == "b":
                raise ValueError(document)
    assert told[-1] == "" and "1 documents" in told[-2]


_WITHOUT = (
    "import sys, annoscore.scale as s, annoscore.scale.run as r\n"
    "s.counted = r.counted = lambda documents, unit='documents': documents\n"
    "s.files_read = r.files_read = lambda files: files\n"
    "from annoscore.cli import main\n"
    "sys.argv[0] = 'annoscore'\n"
    "main()\n"
)
"""The command with :func:`counted` and :func:`files_read` giving back what they are given
always (as before they were)."""


def _arguments(task: str, gold: Path, system: Path, options: dict[str, Any]) -> list[str]:
    """The command that scores ``gold`` and ``system`` as ``annoscore.score`` does."""
    if task.startswith("spans"):
        return ["spans", str(gold), str(system), "--mode", options["mode"]]
    if task == "coref":
        return ["coref", str(gold), str(system)]
    config = [str(options["config"])] if "config" in options else []
    short = {"muc-template-element": "te", "muc-named-entity": "ne", "muc-coreference": "co"}
    return ["muc", *config, "-k", str(gold), "-r", str(system), "--task", short[task]]


@pytest.mark.parametrize("path", [*UNCUT, "spans strict"])
@pytest.mark.parametrize("output", ["text", "json"])
def test_in_a_pipe_the_command_writes_what_it_writes_without_the_line(
    path: str, output: str, tmp_path: Path
) -> None:
    make, documents = UNCUT.get(path, (_strict, 3))
    task, gold, system, options = make(tmp_path)
    arguments = [*_arguments(task, gold, system, options), "--per-doc", "--format", output]
    now = subprocess.run(
        [sys.executable, "-m", "annoscore", *arguments], capture_output=True, check=False
    )
    before = subprocess.run(
        [sys.executable, "-c", _WITHOUT, *arguments], capture_output=True, check=False
    )
    assert now.returncode == 0, now.stderr
    assert (now.stdout, now.stderr, now.returncode) == (
        before.stdout,
        before.stderr,
        before.returncode,
    )
    if output == "json":
        assert len(json.loads(now.stdout)["documents"]) == documents
    assert b"documents," not in now.stderr and b"files read," not in now.stderr
