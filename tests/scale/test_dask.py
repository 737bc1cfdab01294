"""Dask: the chunks of ``--jobs`` on the workers of a ``distributed.LocalCluster`` of two worker
processes started and stopped here; the same bytes as one process.  Needs ``annoscore[dask]``
(the README's test command installs it); without it, the tests are skipped with the reason."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.distributed
from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.result import Result
from annoscore.scale.folders import split_folders
from annoscore.tasks.registry import TASKS, sample_paths
from tests.scale.test_jobs import MODES, _corpus

distributed = pytest.importorskip("distributed", reason="needs the extra annoscore[dask]")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """The two-worker ``LocalCluster`` of ``--dask local``, started and stopped by the test."""
    from annoscore.distributed import connected

    with connected("local") as client:
        yield client


def _bytes(result: Result) -> str:
    return render(result.shown(documents=True, types=True, averages=True), "json")


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_gives_the_same_bytes_on_a_local_cluster(name: str, client: Any) -> None:
    gold, system, options = sample_paths(TASKS[name])
    one = _bytes(annoscore.score(name, gold, system, **options))
    on_dask = annoscore.distributed.score(name, gold, system, client=client, **options)
    assert _bytes(on_dask) == one


def test_random_brat_folders_give_the_same_bytes_on_a_local_cluster(
    tmp_path: Path, client: Any
) -> None:
    gold, system = _corpus(random.Random(5), tmp_path)
    assert split_folders(gold, system, 4) is not None
    for options in MODES:
        outcomes = []
        for run in (annoscore.score, functools.partial(annoscore.distributed.score, client=client)):
            try:
                outcomes.append(_bytes(run("spans", gold, system, **options)))
            except InputError as error:  # token mode without a text: the same error
                outcomes.append(f"error: {error}")
        assert outcomes[1] == outcomes[0], options


def test_the_local_workers_keep_freed_memory(client: Any) -> None:
    from annoscore.scale.run import KEPT_MEMORY, allocator_chosen

    if allocator_chosen():  # the environment's own choice is kept (and passed on by Dask)
        return
    seen = client.run(lambda: {name: os.environ.get(name) for name in KEPT_MEMORY})
    assert len(seen) == 2
    for environ in seen.values():
        assert environ == {name: str(value) for name, value in KEPT_MEMORY.items()}


def test_the_allocator_the_environment_sets_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import dask

    from annoscore.distributed import _workers_keep_freed_memory
    from annoscore.scale.run import KEPT_MEMORY

    key = "distributed.nanny.pre-spawn-environ"
    for name in [n for n in os.environ if n.startswith("MALLOC_") or n == "GLIBC_TUNABLES"]:
        monkeypatch.delenv(name)
    before = dict(dask.config.get(key))
    with _workers_keep_freed_memory():
        assert dask.config.get(key) == {**before, **{k: str(v) for k, v in KEPT_MEMORY.items()}}
    assert dask.config.get(key) == before
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")
    with _workers_keep_freed_memory():
        assert dask.config.get(key) == before


def test_dask_local_on_the_command_line(tmp_path: Path) -> None:
    gold, system, _ = sample_paths(TASKS["spans"])
    args = [sys.executable, "-m", "annoscore", "spans", str(gold), str(system), "--format", "json"]
    one = subprocess.run(args, capture_output=True, text=True, check=True)
    on_dask = subprocess.run(
        [*args, "--dask", "local"], capture_output=True, text=True, check=True, timeout=300
    )
    assert on_dask.stdout == one.stdout


def test_the_help_imports_no_dask() -> None:
    code = "import sys; from annoscore.cli import main; sys.argv=['annoscore','--help'];\n"
    code += "try:\n main()\nexcept SystemExit: pass\n"
    code += "names = ('dask', 'distributed', 'fsspec')\n"
    code += "print(sorted(m for m in sys.modules if m.split('.')[0] in names))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("task", ["codiesp-d", "trec"])
def test_random_single_files_give_the_same_bytes_on_a_local_cluster(
    task: str, tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """Files of lines cut at document boundaries, read by the cluster's workers from their own
    byte ranges: one process's bytes, and the cut is kept (exact) on a clean corpus."""
    import annoscore.scale as scale
    from tests.scale import test_lines

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    write, gold_name, system_name = test_lines.CORPORA[task]
    rng = random.Random(f"dask-{task}")
    for case in range(6):
        root = tmp_path / str(case)
        root.mkdir()
        options = write(rng, root, case % 2 == 0)
        if task == "trec" and case % 3 == 1:
            options["trec_eval"] = "9.0.8"
        gold, system = root / gold_name, root / system_name
        outcomes = []
        for run in (annoscore.score, functools.partial(annoscore.distributed.score, client=client)):
            try:
                outcomes.append(_bytes(run(task, gold, system, **options)))
            except InputError as error:
                outcomes.append(f"error: {error}")
        assert outcomes[1] == outcomes[0], case
    assert any(exact)


def test_random_tag_files_give_the_same_bytes_on_a_local_cluster(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """seqeval and conlleval on two tag files, and conlleval on one file in its layout, cut
    before documents and read by the cluster's workers: one process's bytes, cuts kept."""
    import annoscore.scale as scale
    from annoscore.tasks.conlleval import ConllevalOptions, score_conlleval_file
    from tests.scale.test_seqeval_cuts import MODES, _seqeval_files
    from tests.scale.test_tag_file_cuts import _joined

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    rng = random.Random("dask-tags")
    for case in range(4):
        root = tmp_path / str(case)
        root.mkdir()
        _seqeval_files(rng, root, case % 2 == 0)
        gold, system = root / "gold.conll", root / "system.conll"
        for task, options in (("seqeval", MODES[case]), ("conlleval", {})):
            outcomes = []
            for run in (
                annoscore.score,
                functools.partial(annoscore.distributed.score, client=client),
            ):
                try:
                    outcomes.append(_bytes(run(task, gold, system, **options)))
                except InputError as error:
                    outcomes.append(f"error: {error}")
            assert outcomes[1] == outcomes[0], (case, task)
        chosen = ConllevalOptions(**_joined(random.Random(case), root, case % 2 == 0))
        outcomes = []
        for where in (scale.using(1), scale.using(1, client)):
            with where:
                try:
                    outcomes.append(_bytes(score_conlleval_file(root / "tagged.txt", chosen)))
                except InputError as error:
                    outcomes.append(f"error: {error}")
        assert outcomes[1] == outcomes[0], case
    assert any(exact)


@pytest.mark.parametrize("task", ["muc-named-entity", "muc-coreference", "muc-template-element"])
def test_random_muc_files_give_the_same_bytes_on_a_local_cluster(
    task: str, tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """MUC SGML and template files cut before their documents, read by the cluster's workers
    from their own byte ranges, details and warnings made one run's: one process's bytes."""
    import annoscore.scale as scale
    import annoscore.scale.cut_muc
    from annoscore.report import muc as report
    from annoscore.tasks.muc_chunks import rendering
    from tests.scale import test_muc_cuts

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(annoscore.scale.cut_muc, "MUC_MIN_BYTES", 0)
    rng = random.Random(f"dask-{task}")
    for case in range(4):
        root = tmp_path / str(case)
        root.mkdir()
        if task == "muc-template-element":
            test_muc_cuts._template_corpus(rng, root, True)
            gold, system = root / "key.tpl", root / "response.tpl"
            options: dict[str, Any] = {"config": root / "te.config"}
        else:
            short = "ne" if task == "muc-named-entity" else "co"
            options = test_muc_cuts._corpus(rng, root, short, case % 2 == 0)
            gold, system = root / "key.sgml", root / "response.sgml"
        outcomes = []
        for run in (annoscore.score, functools.partial(annoscore.distributed.score, client=client)):
            try:
                # cut as annoscore muc cuts (its chunks, on Dask, send their alignments)
                with rendering(report.rendered(test_muc_cuts.KINDS)):
                    outcomes.append(test_muc_cuts._output_of(run(task, gold, system, **options)))
            except InputError as error:
                outcomes.append(f"error: {error}")
        assert outcomes[1] == outcomes[0], case
    assert any(exact)
