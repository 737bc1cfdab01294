"""fsspec URLs for gold and system (``file://``, ``memory://``; ``s3://`` and ``gs://`` take the
same code): the same JSON as the local files (their paths named as URLs), in one process, with
``--jobs 2``, on a ``LocalCluster`` of two worker processes (``file://``) and of two threads
(``memory://`` is one process's memory: threads share it, processes do not); files of lines cut
into chunks whose byte ranges the workers read themselves; brat folders whose files each worker
lists and reads itself; errors of one line naming the URL (exit 2).  Needs ``annoscore[dask]``.
"""

from __future__ import annotations

import functools
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.distributed
import annoscore.scale as scale
from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.result import Result
from annoscore.samples import SAMPLES
from annoscore.scale.folders import split_folders
from annoscore.tasks.registry import TASKS, sample_paths
from tests.conftest import Cli
from tests.scale import test_lines
from tests.scale.test_jobs import MODES, _corpus

fsspec = pytest.importorskip("fsspec", reason="needs the extra annoscore[dask]")
distributed = pytest.importorskip("distributed", reason="needs the extra annoscore[dask]")


def _bytes(result: Result) -> str:
    return render(result.shown(documents=True, types=True, averages=True), "json")


def _outcome(run: Any, task: str, gold: object, system: object, **options: Any) -> str:
    try:
        return _bytes(run(task, gold, system, **options))
    except InputError as error:
        return f"error: {error}"


@pytest.fixture
def memory() -> Iterator[Any]:
    """This process's ``memory://`` file system, emptied after the test."""
    fs = fsspec.filesystem("memory")
    yield fs
    for path in fs.ls("/", detail=False):
        fs.rm(path, recursive=True)


@pytest.fixture(scope="module")
def processes() -> Iterator[Any]:
    """The two-process ``LocalCluster`` of ``--dask local`` (workers see ``file://``)."""
    from annoscore.distributed import connected

    with connected("local") as client:
        yield client


@pytest.fixture(scope="module")
def threads() -> Iterator[Any]:
    """A ``LocalCluster`` of two worker threads of this process (they see ``memory://``)."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _urls(prefix: str, *paths: Path) -> list[str]:
    return [prefix + str(p)[len(str(SAMPLES)) :] for p in paths]


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_gives_the_json_of_the_local_files_from_urls(name: str, memory: Any) -> None:
    memory.put(str(SAMPLES), "/samples", recursive=True)
    gold, system, options = sample_paths(TASKS[name])
    one = _bytes(annoscore.score(name, gold, system, **options))
    for prefix in ("memory://samples", f"file://{SAMPLES}"):
        urls = _urls(prefix, gold, system)
        expected = one.replace(str(SAMPLES), prefix)
        assert _bytes(annoscore.score(name, *urls, **options)) == expected, prefix
        assert _bytes(annoscore.score(name, *urls, jobs=2, **options)) == expected, prefix


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_gives_the_json_of_the_local_files_from_urls_on_a_local_cluster(
    name: str, memory: Any, processes: Any, threads: Any
) -> None:
    memory.put(str(SAMPLES), "/samples", recursive=True)
    gold, system, options = sample_paths(TASKS[name])
    one = _bytes(annoscore.score(name, gold, system, **options))
    for prefix, client in (("memory://samples", threads), (f"file://{SAMPLES}", processes)):
        urls = _urls(prefix, gold, system)
        on_dask = annoscore.distributed.score(name, *urls, client=client, **options)
        assert _bytes(on_dask) == one.replace(str(SAMPLES), prefix), prefix


@pytest.mark.parametrize("task", list(test_lines.CORPORA))
def test_files_of_lines_from_urls_are_cut_and_read_by_two_workers(
    task: str,
    tmp_path: Path,
    memory: Any,
    processes: Any,
    threads: Any,
    monkeypatch: pytest.MonkeyPatch,
    exact: list[bool],
) -> None:
    """Random files of lines (clean ones and adversarial ones) cut at document boundaries found
    in the URL's bytes, each worker reading its own byte ranges through fsspec: the bytes of the
    local files in one run, cut (and the cut kept) exactly when the local files are."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    write, gold_name, system_name = test_lines.CORPORA[task]
    rng = random.Random(f"urls-{task}")
    kept = 0
    for case in range(max(2, int(4 * test_lines.MULTIPLIER))):
        root = tmp_path / str(case)
        root.mkdir()
        options = write(rng, root, case % 2 == 0)
        local = root / gold_name, root / system_name
        for path in local:
            memory.pipe(f"/{case}/{path.name}", path.read_bytes())
        one = _outcome(annoscore.score, task, *local, **options)
        exact.clear()
        _outcome(functools.partial(annoscore.score, jobs=2), task, *local, **options)
        cut = list(exact)  # the local files: cut, and the cut kept or not
        runs: list[tuple[str, Any]] = [
            ("memory:/", functools.partial(annoscore.score, jobs=2)),
            ("memory:/", functools.partial(annoscore.distributed.score, client=threads)),
            ("file://", functools.partial(annoscore.distributed.score, client=processes)),
        ]
        for prefix, run in runs:
            base = f"memory://{case}" if prefix == "memory:/" else f"file://{root}"
            urls = [f"{base}/{p.name}" for p in local]
            exact.clear()
            got = _outcome(run, task, *urls, **options)
            assert got == one.replace(str(root), base), (case, prefix)
            assert exact == cut, (case, prefix)  # cut as the local files are
        kept += cut == [True]
    assert kept, "no corpus was cut"


def test_a_line_file_from_a_url_is_read_by_the_workers_not_the_parent(
    tmp_path: Path, memory: Any, threads: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent reads a few lines around each cut of a URL, the workers their ranges: no
    whole-file fetch (``fetched`` copies nothing) when the cut is exact."""
    import annoscore.formats.files as files

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    write, gold_name, system_name = test_lines.CORPORA["trec"]
    write(random.Random(3), tmp_path, True)
    for name in (gold_name, system_name):
        memory.pipe(f"/t/{name}", (tmp_path / name).read_bytes())
    copied: list[str] = []
    original = files._copy

    def copy(fs: Any, where: str, *rest: Any) -> None:
        copied.append(where)
        original(fs, where, *rest)

    monkeypatch.setattr(files, "_copy", copy)
    one = _bytes(annoscore.score("trec", tmp_path / gold_name, tmp_path / system_name))
    urls = f"memory://t/{gold_name}", f"memory://t/{system_name}"
    assert _bytes(annoscore.distributed.score("trec", *urls, client=threads)) == one
    assert copied == []


def test_brat_folders_from_urls_are_listed_and_read_by_each_worker(
    tmp_path: Path, memory: Any, threads: Any
) -> None:
    gold, system = _corpus(random.Random(7), tmp_path)
    assert split_folders(gold, system, 4) is not None
    memory.put(str(tmp_path), "/brat", recursive=True)
    urls = [f"memory://brat/{p.name}" for p in (gold, system)]
    assert split_folders(urls[0], urls[1], 4) is not None  # listed through fsspec, cut
    for options in MODES:
        one = _outcome(annoscore.score, "spans", gold, system, **options)
        expected = one.replace(str(tmp_path), "memory://brat")
        for run in (
            functools.partial(annoscore.score, jobs=2),
            functools.partial(annoscore.distributed.score, client=threads),
        ):
            assert _outcome(run, "spans", *urls, **options) == expected, options


def test_the_command_line_reads_urls_with_dask_local() -> None:
    gold, system, _ = sample_paths(TASKS["spans"])
    args = ["spans", "--mode", "semeval", "--format", "json"]
    command = [sys.executable, "-m", "annoscore", *args]
    one = subprocess.run([*command, str(gold), str(system)], capture_output=True, text=True)
    urls = _urls(f"file://{SAMPLES}", gold, system)
    on_dask = subprocess.run(
        [*command, *urls, "--dask", "local"], capture_output=True, text=True, timeout=300
    )
    assert (on_dask.returncode, on_dask.stdout) == (0, one.stdout)


def test_warnings_on_the_command_line_name_the_url(cli: Cli) -> None:
    gold, system, options = sample_paths(TASKS["codiesp-d"])
    args = ("--codes", options["codes"], "--format", "json")
    local = cli("codiesp", "D", "-g", gold, "-p", system, *args)
    urls = _urls(f"file://{SAMPLES}", gold, system)
    remote = cli("codiesp", "D", "-g", urls[0], "-p", urls[1], *args)
    assert remote.exit_code == 0, remote.output
    assert f"file://{SAMPLES}" in remote.stdout
    assert remote.stdout == local.stdout.replace(str(SAMPLES), f"file://{SAMPLES}")


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        ("file:///no/such/qrels.txt", "no such file"),
        ("memory://no/such/qrels.txt", "no such file"),
        ("nosuch://x/qrels.txt", "cannot read the URL: Protocol not known: nosuch"),
    ],
)
def test_a_missing_url_or_an_unknown_scheme_is_one_line_and_exit_2(
    cli: Cli, gold: str, message: str
) -> None:
    """The error of the local path, naming the URL (a reader's own words for a missing file);
    a scheme fsspec does not know said so."""
    _, run, _ = sample_paths(TASKS["trec"])
    for task in ("trec", "spans"):
        out = cli(task, gold, f"file://{run}")
        assert out.exit_code == 2
        local = cli(task, "/no/such/qrels.txt", run)
        expected = local.stderr.replace("/no/such/qrels.txt", gold)
        if "nosuch" in gold:
            expected = f"annoscore: error: {gold}: {message}\n"
        assert out.stderr == expected
    with pytest.raises(InputError, match=f"^{gold}: {message}$"):
        annoscore.score("trec", gold, str(run))


def test_a_url_without_the_extra_is_one_line_saying_to_install_it() -> None:
    gold, system, _ = sample_paths(TASKS["trec"])
    code = (
        "import sys; sys.modules['fsspec'] = None  # the extra not installed\n"
        "from annoscore.cli import main\n"
        f"sys.argv = ['annoscore', 'trec', 'file://{gold}', '{system}']\n"
        "sys.exit(main())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr == (
        f"annoscore: error: file://{gold}: reading a URL needs the optional extra: "
        "pip install 'annoscore[dask]'\n"
    )


def test_a_run_on_local_files_imports_no_fsspec() -> None:
    gold, system, _ = sample_paths(TASKS["trec"])
    code = (
        "import sys\nfrom annoscore.cli import main\n"
        f"sys.argv = ['annoscore', 'trec', '{gold}', '{system}', '--jobs', '2']\n"
        "try:\n main()\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fsspec', 'dask')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_report_reads_urls_whole(cli: Cli, tmp_path: Path) -> None:
    """``--format html`` (the span viewer reads the documents after scoring): the local
    files' page, their paths named as URLs."""
    gold, system, _ = sample_paths(TASKS["spans"])
    pages = []
    for name, paths in (
        ("local", (gold, system)),
        ("url", _urls(f"file://{SAMPLES}", gold, system)),
    ):
        out = cli("spans", *paths, "--format", "html", "-o", tmp_path / f"{name}.html")
        assert out.exit_code == 0, out.output
        pages.append((tmp_path / f"{name}.html").read_text(encoding="utf-8"))
    assert pages[1] == pages[0].replace(str(SAMPLES), f"file://{SAMPLES}")


def test_remote_bytes_find_and_rfind_equal_those_of_bytes() -> None:
    """The windows of :class:`annoscore.scale.RemoteBytes` (4 KiB growing to 1 MiB, a
    needle across two windows) find what ``bytes.find``/``rfind`` find, on random data
    (offsets from the start: the callers')."""
    import io

    rng = random.Random(3107)
    for _ in range(int(300 * test_lines.MULTIPLIER)):
        size = rng.choice([0, 1, 7, 4095, 4096, 4097, 9000, 70_000])
        data = bytes(rng.choice(b"ab\n") for _ in range(size))
        remote = scale.RemoteBytes(io.BytesIO(data), size)
        needle = rng.choice([b"\n", b"ab", b"\nb\n", b"bbbbbbbbbbbb", b"x"])
        start = rng.randint(0, size + 2)  # callers give offsets, never from the end
        end = rng.choice([None, rng.randint(0, size + 2)])
        assert remote.find(needle, start, end) == data.find(needle, start, end)
        assert remote.rfind(needle, start, end) == data.rfind(needle, start, end)


def test_a_file_option_given_as_a_url_is_read_by_a_local_cluster_s_workers(
    memory: Any, processes: Any, threads: Any
) -> None:
    """``codes=URL`` on a ``LocalCluster``: read whole once, in the process that starts the run
    (its local copy seen by the workers of this machine), the chunks cut and read as with a
    local file of codes."""
    memory.put(str(SAMPLES), "/samples", recursive=True)
    gold, system, options = sample_paths(TASKS["codiesp-d"])
    one = _bytes(annoscore.score("codiesp-d", gold, system, **options))
    for prefix, client in (("memory://samples", threads), (f"file://{SAMPLES}", processes)):
        urls = _urls(prefix, gold, system, options["codes"])
        on_dask = annoscore.distributed.score("codiesp-d", *urls[:2], client=client, codes=urls[2])
        assert _bytes(on_dask) == one.replace(str(SAMPLES), prefix), prefix


def _warned_corpus(
    task: str, rng: random.Random, root: Path, case: int
) -> tuple[str, str, dict[str, Any]]:
    """A random corpus of a line-cut task that warns (most cases name a file in a warning),
    clean or faulty by turns: the names of its gold and system files and its options."""
    clean = case % 2 == 0
    if task in ("codiesp-d", "codiesp-p", "codiesp-x"):
        from tests.scale.test_codiesp_warnings import _kinds, _ranked_corpus, _x_corpus

        write = _x_corpus if task == "codiesp-x" else _ranked_corpus
        return "gold.tsv", "pred.tsv", write(rng, root, _kinds(rng, task, case)[0])
    if task == "trec":
        from tests.scale.test_trec_warnings import DECLINED, POOLED
        from tests.scale.test_trec_warnings import _corpus as _trec

        kinds = {k for k in POOLED if rng.random() < 0.5}
        if case % 3 == 2:
            kinds.add(rng.choice(DECLINED))
        return "qrels", "run", _trec(rng, root, kinds)
    if task == "spans":
        from tests.scale.test_span_lines import _pubtator

        return "gold.txt", "system.txt", _pubtator(rng, root, clean)
    if task == "coref":
        from tests.scale.test_coref_lines import _corpus

        _corpus(rng, root, clean)
        return "key.conll", "response.conll", {}
    if task.startswith("nlpsandbox"):
        from tests.scale.test_nlpsandbox_warnings import _warned_corpus as _sandbox

        gold, system, options = _sandbox(rng, root, case % 4 != 3)
        return gold.name, system.name, options
    if task == "seqeval":
        from tests.scale.test_seqeval_cuts import MODES, _seqeval_files

        _seqeval_files(rng, root, clean)
        return "gold.conll", "system.conll", dict(MODES[case % len(MODES)])
    from tests.scale.test_tag_cuts import _files

    return "gold.conll", "system.conll", _files(rng, root, clean)


CUT_FROM_URLS = ["codiesp-d", "codiesp-p", "codiesp-x", "spans", "trec"]
"""The tasks whose files of lines are cut with warnings pooled (:mod:`annoscore.scale`), from
URLs too (:func:`~annoscore.scale.split_lines`: PubTator for ``spans``)."""

WARNED = [*CUT_FROM_URLS, "coref", "conlleval", "seqeval", "nlpsandbox-location"]
"""Those and the tasks whose local files are cut with warnings pooled but whose URLs are read
whole (their cutters read local files only)."""


def _command(task: str, gold: str, system: str, options: dict[str, Any]) -> list[Any]:
    """The command line of ``task`` on ``gold`` and ``system`` with ``options``."""
    from tests.cli.test_options import cli_args

    sample_gold, sample_system, _ = sample_paths(TASKS[task])
    given = {sample_gold: gold, sample_system: system}
    return [given.get(a, a) if isinstance(a, Path) else a for a in cli_args(TASKS[task], options)]


def _shown(cli: Cli, command: list[Any], out: Path) -> tuple[Any, ...]:
    """What a command gives: exit code, standard output and error of the text layout, then of
    JSON written to ``out`` (its bytes)."""
    text = cli(*command)
    out.unlink(missing_ok=True)
    written = cli(*command, "--format", "json", "-o", out)
    page = out.read_text(encoding="utf-8") if out.exists() else None
    return text.exit_code, text.stdout, text.stderr, written.exit_code, written.stderr, page


@pytest.mark.parametrize("task", WARNED)
def test_warned_chunks_of_urls_are_kept_and_give_the_output_of_one_run(
    task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool], cli: Cli
) -> None:
    """A chunk of a URL's bytes reads a stand-in path of its own: its warnings and what it keeps
    for their pooling name the URL, as one run's do, so a warned input is cut as its local files
    are (the cut kept exactly when theirs is) and the command gives one run's exit code,
    standard output and error and ``-o`` file, the local paths named as the URLs."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    rng = random.Random(f"urls-warned-{task}")
    kept = 0
    out = tmp_path / "out.json"
    for case in range(max(4, int(8 * test_lines.MULTIPLIER))):
        root = tmp_path / str(case)
        root.mkdir()
        gold, system, options = _warned_corpus(task, rng, root, case)
        local = _command(task, str(root / gold), str(root / system), options)
        urls = _command(task, f"file://{root}/{gold}", f"file://{root}/{system}", options)
        url = f"file://{root}/"
        one: tuple[Any, ...] = _shown(cli, local, out)
        for name in (gold, system):  # (not the files of options: local paths)
            one = tuple(
                x.replace(f"{root}/{name}", url + name) if isinstance(x, str) else x for x in one
            )
        assert _shown(cli, urls, out) == one, case  # one run of the URLs
        assert "annoscore-url-" not in str(one)
        size = rng.choice([60, 200, 600])
        for jobs in (1, 2):
            with test_lines._chunks_of(size):
                exact.clear()
                _shown(cli, [*local, "--jobs", jobs], out)
                cut = list(exact)  # the local files: cut, and the cut kept or not
                exact.clear()
                assert _shown(cli, [*urls, "--jobs", jobs], out) == one, (case, jobs)
            if task in CUT_FROM_URLS:
                assert exact == cut, (case, jobs)  # the URLs cut as the local files are
                kept += url in one[2] + str(one[5]) and cut[:1] == [True]
    assert kept or task not in CUT_FROM_URLS, "no warned corpus naming a file was cut"
