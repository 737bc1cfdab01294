"""Every path a command reads may be an fsspec URL (``memory://``, ``file://``; ``s3://`` and
``gs://`` take the same code), read by one helper (:func:`annoscore.formats.files.input_path`):
the task options that name a file (``--codes``, ``--config``, ``--notes``, ``--gold-ann``,
``--input``), the files a MUC configuration names, and the inputs of ``compare``, ``report``,
``validate``, ``collect``, ``codabench``, ``conlleval``/``seqeval`` and ``convert``.  Each gives
the bytes of the local paths (their names written as the URLs); a URL that cannot be read is
one line and exit 2; an output that is a URL is refused (exit 2, nothing written); the local
copies are removed when the command ends.  Needs ``annoscore[dask]``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import annoscore
from annoscore.report.generic import render
from annoscore.samples import SAMPLES
from annoscore.tasks.registry import TASKS, sample_paths
from tests.cli.test_options import PATHS, cli_args, options, settings
from tests.conftest import Cli

fsspec = pytest.importorskip("fsspec", reason="needs the extra annoscore[dask]")

S = str(SAMPLES)


@pytest.fixture
def roots(tmp_path: Path) -> Iterator[list[tuple[str, dict[str, str]]]]:
    """The samples and ``tmp_path`` in this process's ``memory://``, and how each run names
    them: by local path, by ``memory://`` URL and by ``file://`` URL (emptied after)."""
    memory = fsspec.filesystem("memory")
    memory.put(S, "/urls-samples", recursive=True)
    local = {S: S, str(tmp_path): str(tmp_path)}
    yield [
        ("local", local),
        ("memory", {S: "memory://urls-samples", str(tmp_path): "memory://urls-tmp"}),
        ("file", {k: f"file://{k}" for k in local}),
    ]
    for path in memory.ls("/", detail=False):
        if path.startswith("/urls-"):
            memory.rm(path, recursive=True)


def _put(tmp_path: Path) -> None:
    """``tmp_path`` (its inputs written) into ``memory://urls-tmp``."""
    memory = fsspec.filesystem("memory")
    if memory.exists("/urls-tmp"):
        memory.rm("/urls-tmp", recursive=True)
    memory.put(str(tmp_path), "/urls-tmp", recursive=True)


def _as(names: dict[str, str], args: list[Any]) -> list[str]:
    """``args`` with each path under a root named as ``names`` names it (inside ``NAME=PATH``
    too)."""
    out = []
    for arg in map(str, args):
        for root, name in sorted(names.items(), key=lambda item: -len(item[0])):
            if root in arg:
                arg = arg.replace(root, name)
                break
        out.append(arg)
    return out


def _content(path: Path) -> bytes:
    """The bytes of ``path``; of a zip, its members' names and bytes (not the times of the
    files it was made from: those of a local copy are the time it was read)."""
    if path.suffix != ".zip":
        return path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        return repr([(i.filename, archive.read(i)) for i in archive.infolist()]).encode()


def _same_from_urls(
    cli: Cli, roots: list[tuple[str, dict[str, str]]], args: list[Any], files: Path | None = None
) -> None:
    """The command ``args`` gives the same exit status, standard output and error, and (when
    ``files``: the folder it writes) the same files, from local paths and from URLs (the
    local paths' names replaced by the URLs)."""
    seen: list[tuple[int, str, str, dict[str, bytes]]] = []
    for label, names in roots:
        if files is not None and files.exists():
            for path in sorted(files.rglob("*"), reverse=True):
                path.rmdir() if path.is_dir() else path.unlink()
        done = cli(*_as(names, args))
        written = {}
        if files is not None and files.exists():
            written = {
                str(p.relative_to(files)): _content(p) for p in files.rglob("*") if p.is_file()
            }
        named = {v: k for k, v in names.items()}  # the URLs written as the local paths

        def text(shown: str, named: dict[str, str] = named) -> str:
            # collect and codabench score name their own temporary folder, a new one each run
            shown = _as(named, [shown])[0]
            return re.sub(r"annoscore-(collect|codabench)-[^/]+/", r"annoscore-\1-*/", shown)

        seen.append(
            (
                done.exit_code,
                text(done.stdout),
                text(done.stderr),
                {k: text(v.decode("utf-8", "replace")) for k, v in written.items()},
            )
        )
        assert seen[-1] == seen[0], (label, done.stderr)
    assert seen[0][0] == 0, seen[0][2]


def _path_options(name: str) -> list[str]:
    return [o for o, spec in options(TASKS[name]).items() if spec.kind == "path"]


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_with_every_file_option_from_urls(
    cli: Cli, tmp_path: Path, roots: Any, name: str
) -> None:
    """Gold, system and each option naming a file (its sample's, or one made here), on the
    command line and through :func:`annoscore.score`: the bytes of the local files."""
    task = TASKS[name]
    gold, system, sample = sample_paths(task)
    given_list = [dict(sample)]
    for option in _path_options(name):
        value = sample.get(option) or PATHS[option](tmp_path)
        given_list.append(settings(task, option, value))
    _put(tmp_path)
    for given in given_list:
        _same_from_urls(cli, roots, [*cli_args(task, given), "--format", "json"])
        one = None
        for _, names in roots:
            urls = _as(names, [gold, system])
            values = {k: _as(names, [v])[0] if isinstance(v, Path) else v for k, v in given.items()}
            shown = render(annoscore.score(name, *urls, **values), "json")
            shown = _as({v: k for k, v in names.items()}, [shown])[0]
            assert shown == (one := one or shown)


def test_a_muc_configuration_from_a_url_reads_the_files_it_names_beside_it(
    cli: Cli, roots: Any, tmp_path: Path
) -> None:
    for config in ("ne.config", "te.config"):
        for extra in ([], ["--totals-only"]):
            args = ["muc", SAMPLES / "muc" / config, "--no-files", *extra]
            _same_from_urls(cli, roots, args)
    # a file the configuration names for writing, beside a configuration read from a URL
    config = tmp_path / "ne.config"
    text = (SAMPLES / "muc" / "ne.config").read_text(encoding="utf-8")
    config.write_text(
        text.replace(":key_file ne.key.sgml", f":key_file {SAMPLES}/muc/ne.key.sgml").replace(
            ":response_file ne.response.sgml", f":response_file {SAMPLES}/muc/ne.response.sgml"
        )
        + ":report_summary_file ne.summary\n",
        encoding="utf-8",
    )
    _put(tmp_path)
    done = cli("muc", "memory://urls-tmp/ne.config")
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == (
        "annoscore: error: memory://urls-tmp/ne.summary: cannot write to a URL: outputs are "
        "local files (write one and copy it, e.g. with fsspec or the cloud's own tool)\n"
    )
    summary = tmp_path / "local.summary"
    done = cli("muc", "memory://urls-tmp/ne.config", "--summary", summary)
    local = cli("muc", config, "--summary", tmp_path / "local2.summary")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == local.stdout.replace(str(config), "memory://urls-tmp/ne.config")
    assert summary.read_bytes() == (tmp_path / "local2.summary").read_bytes()


@pytest.fixture
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the outputs, outside the folders named by URL."""
    return tmp_path_factory.mktemp("written")


def test_compare_report_and_validate_read_urls(
    cli: Cli, roots: Any, tmp_path: Path, written: Path
) -> None:
    gold, system, sample = sample_paths(TASKS["codiesp-d"])
    codes = f"codes={sample['codes']}"
    other = tmp_path / "other" / system.name  # the same name in another folder
    other.parent.mkdir()
    lines = system.read_bytes().splitlines(keepends=True)
    other.write_bytes(b"".join(lines[: len(lines) // 2]))
    _put(tmp_path)
    compare = ["compare", "codiesp-d", gold, system, other, "--samples", "20", "--option", codes]
    for fmt in ("json", "text"):
        _same_from_urls(cli, roots, [*compare, "--format", fmt])
    _same_from_urls(cli, roots, [*compare[:4], system, "--samples", "20", "--option", codes])
    page = written
    report = ["report", "codiesp-d", gold, system, other, "--samples", "20", "--option", codes]
    _same_from_urls(cli, roots, [*report, "-o", page / "report.html"], files=page)
    spans_gold, spans_system, _ = sample_paths(TASKS["spans"])
    _same_from_urls(
        cli, roots, ["report", "spans", spans_gold, spans_system, "-o", page / "r"], page
    )
    for validate in (
        # the gold as the submission: the sample run has codes outside the list (problems)
        ["validate", "codiesp-d", gold, "--gold", gold, "--option", codes],
        ["validate", "spans", spans_system, "--gold", spans_gold, "--format", "json"],
    ):
        _same_from_urls(cli, roots, validate)


def test_conlleval_and_seqeval_read_one_or_two_urls(cli: Cli, roots: Any) -> None:
    gold, system, _ = sample_paths(TASKS["conlleval"])
    for command in ("conlleval", "seqeval"):
        _same_from_urls(cli, roots, [command, gold, system])
        one_file = SAMPLES / "bio" / "tagged.txt"
        if one_file.exists():
            _same_from_urls(cli, roots, [command, one_file])


def test_convert_reads_urls_and_writes_local_files(cli: Cli, roots: Any, written: Path) -> None:
    gold, _, _ = sample_paths(TASKS["spans"])
    out = written / "out"
    _same_from_urls(cli, roots, ["convert", "brat", "bioc-json", gold, out / "c.json"], files=out)
    muc = SAMPLES / "muc"
    args = ["convert", "muc-sgml", muc / "ne.key.sgml", "--out", out / "brat"]
    _same_from_urls(cli, roots, [*args, "--config", muc / "ne.config"], files=out)


def _teams(root: Path) -> Path:
    system = sample_paths(TASKS["codiesp-d"])[1]
    for team in ("alpha", "beta"):
        run = root / "teams" / team / "run1"
        run.mkdir(parents=True)
        (run / system.name).write_bytes(system.read_bytes())
    with zipfile.ZipFile(root / "teams" / "gamma.zip", "w") as archive:
        archive.write(system, f"gamma/run1/{system.name}")
    return root / "teams"


def test_collect_and_codabench_read_urls(
    cli: Cli, roots: Any, tmp_path: Path, written: Path
) -> None:
    gold, _, sample = sample_paths(TASKS["codiesp-d"])
    inputs = tmp_path / "in"
    inputs.mkdir()
    teams = _teams(inputs)
    _put(inputs.parent)
    codes = f"codes={sample['codes']}"
    out = written / "collected"
    collect = ["collect", teams, "--task", "codiesp-d", "--gold", gold, "--option", codes]
    _same_from_urls(cli, roots, [*collect, "--samples", "20", "--out", out], files=out)
    subtasks = ["collect", teams.parent / "by-task", "--task", "d=codiesp-d", "--gold", f"d={gold}"]
    (teams.parent / "by-task" / "one" / "d").mkdir(parents=True)
    (teams.parent / "by-task" / "one" / "d" / "run.tsv").write_bytes(
        sample_paths(TASKS["codiesp-d"])[1].read_bytes()
    )
    _put(inputs.parent)
    args = [*subtasks, "--option", f"d:{codes}", "--samples", "20", "--out", out]
    _same_from_urls(cli, roots, args, files=out)
    bundle = written / "bundle"
    init = ["codabench", "init", "codiesp-d", "--gold", f"dev={gold}", "--option", codes]
    _same_from_urls(cli, roots, [*init, "--out", bundle / "b"], files=bundle)
    # a bundle read from a URL: checked as the local one (its dry run included)
    cli(*init, "--out", inputs / "bundle")
    _put(inputs.parent)
    _same_from_urls(cli, roots, ["codabench", "check", inputs / "bundle"])
    # the bundle's program on an input folder (ref/, res/) and its configuration read from URLs
    layout = inputs / "input"
    (layout / "ref").mkdir(parents=True)
    (layout / "res").mkdir()
    (layout / "ref" / gold.name).write_bytes(gold.read_bytes())
    (layout / "res" / "pred_D.tsv").write_bytes(sample_paths(TASKS["codiesp-d"])[1].read_bytes())
    _put(inputs.parent)
    config = inputs / "bundle" / "scoring_program" / "annoscore-bundle.json"
    score = ["codabench", "score", layout, written / "scored", "--config", config]
    _same_from_urls(cli, roots, score, files=written / "scored")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("memory://urls-none/codes.tsv", "no such file"),
        ("file:///no/such/codes.tsv", "no such file"),
        ("nosuch://x/codes.tsv", "cannot read the URL: Protocol not known: nosuch"),
    ],
)
def test_an_unreadable_url_of_an_option_or_a_command_is_one_line_and_exit_2(
    cli: Cli, url: str, message: str
) -> None:
    gold, system, sample = sample_paths(TASKS["codiesp-d"])
    runs = [
        ["codiesp", "D", "-g", gold, "-p", system, "--codes", url],
        ["compare", "codiesp-d", gold, system, system, "--option", f"codes={url}"],
        ["validate", "codiesp-d", url, "--gold", gold, "--option", f"codes={sample['codes']}"],
        ["conlleval", url],
        ["convert", "brat", "bioc-json", url, "out.json"],
    ]
    for args in runs:
        done = cli(*args)
        assert done.exit_code == 2, (args, done.output)
        if "nosuch" in url or args[0] == "codiesp":
            assert done.stderr == f"annoscore: error: {url}: {message}\n", args
        else:  # the reader's own words for a missing file, naming the URL
            assert done.stderr.startswith(f"annoscore: error: {url}: "), (args, done.stderr)
            assert "\n" not in done.stderr.rstrip("\n")
    with pytest.raises(annoscore.InputError, match=f"^{url}: {message}$"):
        annoscore.score("codiesp-d", gold, system, codes=url)


def test_an_option_url_without_the_extra_is_one_line_saying_to_install_it() -> None:
    gold, system, sample = sample_paths(TASKS["codiesp-d"])
    code = (
        "import sys; sys.modules['fsspec'] = None  # the extra not installed\n"
        "from annoscore.cli import main\n"
        f"sys.argv = ['annoscore', 'compare', 'codiesp-d', '{gold}', '{system}', '{system}', "
        f"'--option', 'codes=file://{sample['codes']}']\n"
        "sys.exit(main())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        f"annoscore: error: file://{sample['codes']}: reading a URL needs the optional extra: "
        "pip install 'annoscore[dask]'\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["spans", "{gold}", "{system}", "-o", "{out}"],
        ["compare", "spans", "{gold}", "{system}", "{system}", "-o", "{out}"],
        ["report", "spans", "{gold}", "{system}", "-o", "{out}"],
        ["convert", "brat", "bioc-json", "{gold}", "{out}"],
        ["collect", "{gold}", "--task", "spans", "--gold", "{gold}", "--out", "{out}"],
        ["codabench", "init", "spans", "--gold", "dev={gold}", "--out", "{out}"],
    ],
)
def test_an_output_url_is_refused_before_anything_is_read(cli: Cli, args: list[str]) -> None:
    gold, system, _ = sample_paths(TASKS["spans"])
    memory = fsspec.filesystem("memory")
    for out in ("memory://urls-out/x", "file:///tmp/annoscore-urls-never/x"):
        done = cli(*(a.format(gold=gold, system=system, out=out) for a in args))
        assert (done.exit_code, done.stdout) == (2, ""), done.output
        assert done.stderr == (
            f"annoscore: error: {out}: cannot write to a URL: outputs are local files (write one "
            "and copy it, e.g. with fsspec or the cloud's own tool)\n"
        )
        assert not memory.exists("/urls-out") and not os.path.exists("/tmp/annoscore-urls-never")
        assert not Path("memory:").exists() and not Path("file:").exists()


def test_the_local_copies_are_removed_when_the_command_ends(
    cli: Cli, roots: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    gold, system, sample = sample_paths(TASKS["codiesp-d"])
    urls = _as(roots[1][1], [gold, system, sample["codes"]])
    done = cli("compare", "codiesp-d", *urls[:2], urls[1], "--option", f"codes={urls[2]}")
    assert done.exit_code == 0, done.output
    done = cli("codiesp", "D", "-g", urls[0], "-p", urls[1], "--codes", urls[2])
    assert done.exit_code == 0, done.output
    annoscore.score("codiesp-d", gold, system, codes=urls[2])
    assert list((tmp_path / "temp").iterdir()) == []


def test_help_and_local_runs_import_no_fsspec() -> None:
    """``annoscore --help`` and a command's help import neither fsspec nor the module that
    reads URLs (``python -X importtime``)."""
    for args in (["--help"], ["codiesp", "D", "--help"], ["compare", "--help"]):
        code = "import sys; from annoscore.cli import main; sys.argv[0] = 'annoscore'; main()"
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code, *args],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr[-500:]
        imported = [line.rpartition("|")[2].strip() for line in out.stderr.splitlines()]
        assert "fsspec" not in imported, args
        assert args != ["--help"] or "annoscore.formats.files" not in imported
        assert any(name == "annoscore.cli" for name in imported)


def test_a_path_option_reads_a_url_as_the_api_s_string_does(tmp_path: Path, roots: Any) -> None:
    """``annoscore.score(..., codes="memory://...")``: the result of the local file, warnings
    naming the URL (no local copy's name)."""
    gold, system, sample = sample_paths(TASKS["codiesp-d"])
    codes = tmp_path / "codes.tsv"
    codes.write_bytes(b"\xef\xbb\xbf" + Path(sample["codes"]).read_bytes())  # warns (BOM)
    _put(tmp_path)
    local = json.loads(render(annoscore.score("codiesp-d", gold, system, codes=codes), "json"))
    url = "memory://urls-tmp/codes.tsv"
    remote = json.loads(render(annoscore.score("codiesp-d", gold, system, codes=url), "json"))
    assert json.dumps(remote) == json.dumps(local).replace(str(codes), url)
