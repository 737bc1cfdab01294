"""The command line as a new user meets it: one-line errors, outputs never written over inputs,
no half-written files, and the demo from a folder whose path has a space and non-ASCII letters.

Issue 25's findings each have a case here: outputs that are devices, FIFOs, links or standard
output (written where they point, never replaced; the device cases in a private mount
namespace, :mod:`tests.reliability.private_dev`), full disks, closed pipes, signals, negative
seeds, unbounded resamples, piped inputs read twice, messages broken by names.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annoscore.result import CountMatrix
from annoscore.samples import SAMPLES
from tests.conftest import Cli
from tests.reliability.commands import COMMANDS, Command
from tests.reliability.private_dev import run_private
from tests.reliability.runner import Runner

SRC = Path(__file__).resolve().parents[2] / "src"
GOLD = SAMPLES / "pharmaconer/gold/subtrack1/sample"
SYSTEM = SAMPLES / "pharmaconer/system/subtrack1/sample"


def run(
    *args: object, cwd: Path | None = None, src: Path = SRC
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-m", "annoscore", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["spans", GOLD, SYSTEM, "--mode", "fuzzy"], "'fuzzy' is not one of 'strict', 'exact'"),
        (["spans"], "Missing argument 'gold'"),
        (["nope"], "No such command 'nope'"),
        (["spans", GOLD, SYSTEM, "--bogus"], "No such option: --bogus"),
        (["trec", "a", "b", "-l", "x"], "'x' is not a valid int"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(args: list[object], expected: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("annoscore: error: ")
    assert expected in done.stderr


def test_an_output_over_an_input_is_refused_before_anything_is_written(
    cli: Cli, tmp_path: Path
) -> None:
    gold, system = tmp_path / "gold", tmp_path / "system"
    shutil.copytree(GOLD, gold)
    shutil.copytree(SYSTEM, system)
    target = gold / sorted(p.name for p in gold.glob("*.ann"))[0]
    before = target.read_bytes()
    for output in (target, system / "new.json"):
        result = cli("pharmaconer", "ner", gold, system, "-o", output)
        assert result.exit_code == 2, output
        assert "refusing to write the output" in result.stderr
    assert cli("pharmaconer", "ner", gold, system, "-o", gold).exit_code == 2  # a folder
    assert target.read_bytes() == before
    assert not (system / "new.json").exists()
    trec = tmp_path / "run.txt"
    shutil.copy(SAMPLES / "trec/run.txt", trec)
    assert cli("trec", SAMPLES / "trec/qrels.txt", trec, "-o", trec).exit_code == 2
    assert trec.read_bytes() == (SAMPLES / "trec/run.txt").read_bytes()


def test_output_is_written_whole_through_a_rename(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "scores.json"
    assert cli("pharmaconer", "ner", GOLD, SYSTEM, "-f", "json", "-o", out).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("{")
    assert [p.name for p in tmp_path.iterdir()] == ["scores.json"]  # no temporary file left
    missing = tmp_path / "no" / "such" / "folder" / "x.json"
    result = cli("pharmaconer", "ner", GOLD, SYSTEM, "-o", missing)
    assert result.exit_code == 2 and "cannot write the output" in result.stderr


def test_a_path_too_long_is_bad_input_not_an_internal_error() -> None:
    done = run("spans", "x" * 5000, SYSTEM)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1


def test_the_demo_runs_from_a_folder_with_a_space_and_non_ascii_letters(tmp_path: Path) -> None:
    home = tmp_path / "Mes documents ñandú"
    shutil.copytree(SRC / "annoscore", home / "annoscore")
    done = run("demo", cwd=tmp_path, src=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("=== ") >= 9
    assert "Total (15 docs)" in done.stdout


# --- issue 25: outputs never damage anything --------------------------------------------------

TREC = SAMPLES / "trec"
TREC_ARGS = ("trec", TREC / "qrels.txt", TREC / "run.txt")


def one_line(stderr: str, *expected: str) -> str:
    """The one line of ``stderr`` (an ``annoscore: error:`` line), containing ``expected``."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("annoscore: error: "), stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return lines[0]


def big_trec(folder: Path) -> tuple[Path, Path]:
    """qrels and a run whose per-query text report is about 100 KB."""
    qrels, ranking = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} 1\n" for q in range(400) for d in range(0, 60, 7)), "utf-8"
    )
    ranking.write_text(
        "".join(f"q{q} Q0 d{d} {d} {1 / (d + 1)} run\n" for q in range(400) for d in range(60)),
        "utf-8",
    )
    return qrels, ranking


def test_device_outputs_are_opened_never_replaced(tmp_path: Path) -> None:
    """``-o /dev/null``, ``/dev/full``, ``/dev/stdout`` (and muc's report files, and the files a
    MUC configuration names) are written where they point: the nodes and links stay as they
    are.  In a private mount namespace with its own ``/dev`` (root only)."""
    shutil.copytree(SAMPLES / "muc", tmp_path / "muc")
    config = tmp_path / "muc" / "ne.config"
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":report_summary_file /dev/null\n:dump_map_history yes\n")
        handle.write(":map_history_file /dev/stdout\n")
    appended = tmp_path / "appended.txt"
    appended.write_text("before\n", encoding="utf-8")
    json_out = run(*TREC_ARGS, "-f", "json").stdout
    runs = [
        {"argv": [*map(str, TREC_ARGS), "-o", "/dev/null"]},
        {"argv": [*map(str, TREC_ARGS), "-o", "/dev/full"]},
        {"argv": [*map(str, TREC_ARGS), "-f", "json", "-o", "/dev/stdout"]},
        {
            "argv": [*map(str, TREC_ARGS), "-f", "json", "-o", "/dev/stdout"],
            "stdout": str(appended),
            "append": True,
        },
        {"argv": [*map(str, TREC_ARGS), "-f", "json"], "stdout": "/dev/full"},
        {"argv": ["muc", str(config), "--totals-only", "-o", "/dev/null"]},
        {
            "argv": [
                "muc",
                "--task",
                "co",
                "--key",
                str(SAMPLES / "muc/co.key.sgml"),
                "--response",
                str(SAMPLES / "muc/co.response.sgml"),
                "--partitions",
                "/dev/full",
            ]
        },
        {
            "argv": [
                "muc",
                "--task",
                "co",
                "--key",
                str(SAMPLES / "muc/co.key.sgml"),
                "--response",
                str(SAMPLES / "muc/co.response.sgml"),
                "--partitions",
                "/dev/stdout",
                "-o",
                "/dev/null",
            ]
        },
    ]
    expected_dev = {
        "fd": "link -> /proc/self/fd",
        "full": "char 1:7",
        "null": "char 1:3",
        "random": "char 1:8",
        "stderr": "link -> /proc/self/fd/2",
        "stdin": "link -> /proc/self/fd/0",
        "stdout": "link -> /proc/self/fd/1",
        "urandom": "char 1:9",
        "zero": "char 1:5",
    }
    results = run_private(tmp_path, runs)
    for result in results:
        assert result["dev"] == expected_dev, result
        assert "Traceback" not in result["stderr"]
    null, full, stdout, append, stdout_full, muc, partitions, partitions_out = results
    assert null["status"] == 0 and null["stdout"] == "", null
    assert full["status"] == 2 and full["stdout"] == ""
    one_line(full["stderr"], "/dev/full: cannot write the output: No space left on device")
    assert stdout["status"] == 0 and stdout["stdout"] == json_out
    assert append["status"] == 0
    assert appended.read_text(encoding="utf-8") == "before\n" + json_out
    assert stdout_full["status"] == 2
    one_line(stdout_full["stderr"], "cannot write standard output: No space left on device")
    assert muc["status"] == 0, muc["stderr"]
    assert muc["stdout"].startswith("{\n{-docnum 9301010001"), muc["stdout"][:80]
    assert partitions["status"] == 2
    one_line(partitions["stderr"], "/dev/full", "No space left on device")
    assert partitions_out["status"] == 0 and partitions_out["stdout"], partitions_out
    # a /dev where no file can be made, as for a normal user: the common idioms work
    user = run_private(tmp_path, [runs[0], runs[2], runs[5]], read_only=True)
    assert [r["status"] for r in user] == [0, 0, 0], [r["stderr"] for r in user]
    assert user[1]["stdout"] == json_out
    assert all(r["dev"] == expected_dev for r in user)


def test_a_full_disk_is_exit_2_and_leaves_no_file(tmp_path: Path) -> None:
    """On a full file system (a small tmpfs in a private mount namespace, root only) standard
    output, ``-o`` and ``convert --out`` fail with exit 2 and one line, leaving nothing."""
    qrels, ranking = big_trec(tmp_path)
    assert len(run("trec", qrels, ranking, "--per-doc").stdout) > 20_000
    small = tmp_path / "small"
    runs = [
        {"argv": ["trec", str(qrels), str(ranking), "--per-doc"], "stdout": str(small / "out.txt")},
        {"argv": ["trec", str(qrels), str(ranking), "--per-doc", "-o", str(small / "o.txt")]},
        {
            "argv": [
                "convert",
                "muc-sgml",
                str(SAMPLES / "muc/ne.key.sgml"),
                "--out",
                str(small / "brat"),
            ]
        },
    ]
    # 16 KiB with 12 KiB filled: a page is left, so the first write is cut short, the next fails
    results = run_private(tmp_path, runs, small=small, small_size="16k", fill=12_288)
    stdout, output, convert = results
    assert stdout["status"] == 2
    one_line(stdout["stderr"], "cannot write standard output: No space left on device")
    assert output["status"] == 2 and output["stdout"] == ""
    one_line(output["stderr"], "o.txt: cannot write the output: No space left on device")
    assert "o.txt" not in output["small"] and not [n for n in output["small"] if n.startswith(".")]
    assert convert["status"] == 2
    one_line(convert["stderr"], "No space left on device")
    assert convert["small"] == ["filler", "out.txt"], convert["small"]


def test_a_fifo_output_gets_the_whole_output(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = run(*TREC_ARGS, "-f", "json", "-o", fifo)
    reader.join(20)
    assert done.returncode == 0, done.stderr
    assert received == [run(*TREC_ARGS, "-f", "json").stdout.encode()]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_link_is_followed_and_kept(tmp_path: Path) -> None:
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    expected = run(*TREC_ARGS, "-f", "json").stdout
    link.symlink_to(target.name)  # leads nowhere yet: the target is created
    for _ in range(2):  # then replaced
        done = run(*TREC_ARGS, "-f", "json", "-o", link)
        assert done.returncode == 0, done.stderr
        assert link.is_symlink() and os.readlink(link) == target.name
        assert target.read_text(encoding="utf-8") == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "target.json"]
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    done = run(*TREC_ARGS, "-o", loop)
    assert done.returncode == 2
    one_line(done.stderr, "loop: cannot write the output: Too many levels of symbolic links")


def test_an_inherited_descriptor_is_written_where_it_points(tmp_path: Path) -> None:
    """``-o /dev/fd/N`` (a shell's ``>(...)``): the pipe gets the output."""
    read, write = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with subprocess.Popen(
        [sys.executable, "-m", "annoscore", *map(str, TREC_ARGS), "-o", f"/dev/fd/{write}"],
        pass_fds=(write,),
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        process.wait(60)
    assert process.returncode == 0
    assert data.decode() == run(*TREC_ARGS).stdout


CLOSED_PIPE_COMMANDS = {
    "trec": [*map(str, TREC_ARGS), "--per-doc"],
    "trec -o /dev/stdout": [*map(str, TREC_ARGS), "--per-doc", "-o", "/dev/stdout"],
    "compare": ["compare", *map(str, TREC_ARGS), str(TREC / "run.txt")],
    "demo": ["demo"],
    "help": ["--help"],
}


@pytest.mark.parametrize("command", list(CLOSED_PIPE_COMMANDS))
def test_a_closed_pipe_ends_quietly_with_141(command: str) -> None:
    """``annoscore ... | head -1``: the reader went away; no message, exit 141 (128 + SIGPIPE,
    what a shell reports for a tool a closed pipe stopped), no traceback."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with subprocess.Popen(
        [sys.executable, "-m", "annoscore", *CLOSED_PIPE_COMMANDS[command]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before the command has written anything
        stderr = process.stderr.read().decode()
        process.wait(60)
    assert process.returncode == 141, stderr
    assert "error" not in stderr and "Traceback" not in stderr


@pytest.mark.parametrize(
    "args", [[*map(str, TREC_ARGS), "--per-doc"], ["demo"], ["--help"], ["--version"]]
)
def test_standard_output_that_cannot_be_written_is_exit_2(args: list[str]) -> None:
    """Standard output on a full device (``> /dev/full``: the shell opens the device, which stays
    as it is) or closed (``>&-``): exit 2 and one line, never 0, never a traceback."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "annoscore", *args]
    with open("/dev/full", "wb") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, env=env, check=False)
    assert done.returncode == 2
    one_line(done.stderr.decode(), "cannot write standard output: No space left on device")
    closed = subprocess.run(
        command, stderr=subprocess.PIPE, env=env, preexec_fn=lambda: os.close(1), check=False
    )
    assert closed.returncode == 2
    one_line(closed.stderr.decode(), "cannot write standard output")


INTERRUPTED = """
import os, signal, sys
from annoscore.report import muc_history
original = muc_history.map_history_chunks
def chunks(details):
    for number, chunk in enumerate(original(details)):
        yield chunk
        if number == 0:
            if sys.argv[2] == "ignored":
                signal.signal(int(sys.argv[1]), signal.SIG_IGN)
            os.kill(os.getpid(), int(sys.argv[1]))
muc_history.map_history_chunks = chunks
from annoscore.cli import main
from annoscore.samples import SAMPLES
main(["muc", str(SAMPLES / "muc/ne.config"), "--key", str(SAMPLES / "muc/ne.key.sgml"),
      "--response", str(SAMPLES / "muc/ne.response.sgml"), "--map-history", "history.txt",
      "-o", "report.txt"])
"""


@pytest.mark.parametrize(
    ("signum", "status", "message"),
    [
        (signal.SIGINT, 130, "interrupted"),
        (signal.SIGTERM, 143, "terminated by SIGTERM"),
        (signal.SIGHUP, 129, "terminated by SIGHUP"),
    ],
)
def test_a_signal_while_writing_leaves_no_temporary_file(
    tmp_path: Path, signum: int, status: int, message: str
) -> None:
    """SIGTERM and SIGHUP are handled as SIGINT: the command stops, removes its temporary files
    and exits with 128 + the signal, one line on stderr.  (The signal is sent by the run itself
    after the first piece of the map history is written, so the moment is always the same.)"""
    env = {**os.environ, "PYTHONPATH": str(SRC)}

    def default_signals() -> None:
        # a signal ignored by whoever started the suite (nohup: SIGHUP; a background job:
        # SIGINT) stays ignored in the child, and the command rightly leaves it so
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)

    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(int(signum)), "handled"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        preexec_fn=default_signals,
        check=False,
    )
    assert done.returncode == status, done.stderr
    one_line(done.stderr, message)
    assert list(tmp_path.iterdir()) == []


def test_an_ignored_hangup_stays_ignored(tmp_path: Path) -> None:
    """Under ``nohup`` SIGHUP is ignored: the command does not start to handle it."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(int(signal.SIGHUP)), "ignored"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.txt", "report.txt"]


# --- issue 25: options and inputs --------------------------------------------------------------

SEEDED = [c for c in COMMANDS if c.name in ("trec", "spans-strict", "coref", "muc-te", "are-2")]


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with Runner() as started:
        yield started


@pytest.mark.parametrize("command", [*SEEDED, "compare"], ids=lambda c: getattr(c, "name", c))
def test_a_negative_seed_is_bad_usage(runner: Runner, command: Command | str) -> None:
    """``--seed -1`` was an internal error (numpy refuses negative seeds) in every command."""
    if isinstance(command, str):
        args = ["compare", "trec", TREC / "qrels.txt", TREC / "run.txt", TREC / "run.txt"]
    else:
        args = [*command.args(SAMPLES), "--bootstrap", "10"]
    done = runner(*args, "--seed", "-1")
    assert done.status == 2
    one_line(done.stderr.decode(), "--seed", "-1 is not in the range x>=0")


def test_every_command_that_takes_a_seed_refuses_a_negative_one() -> None:
    """The seed option is declared once (``SeedOption``, ``min=0``) and ``compare``'s has the
    same range; the library refuses one too."""
    from annoscore.cli.common import SeedOption
    from annoscore.significance import IncomparableResults, resampled_scores

    assert SeedOption.__metadata__[0].min == 0
    with pytest.raises(IncomparableResults, match="seed must be a whole number >= 0"):
        resampled_scores(_matrix(), _mean, ["mean"], samples=5, seed=-1)


def _matrix() -> CountMatrix:
    import numpy as np

    return CountMatrix(("a", "b", "c"), ("x",), np.array([[1.0], [2.0], [3.0]]), (True,))


def _mean(counts: Any) -> dict[str, float | None]:
    return {"mean": float(counts["x"])}


def test_resamples_are_bounded_and_progress_is_told(runner: Runner) -> None:
    """``--bootstrap 10**12`` ran for ever: at most a million resamples (a usage error before
    anything is read), and a long run tells its progress (a spinner on a terminal)."""
    from annoscore import significance

    done = runner(*TREC_ARGS, "--bootstrap", str(10**12))
    assert done.status == 2
    one_line(done.stderr.decode(), "--bootstrap", "0<=x<=1000000")
    compare = ("compare", "trec", TREC / "qrels.txt", TREC / "run.txt", TREC / "run.txt")
    done = runner(*compare, "--samples", str(10**12))
    assert done.status == 2
    one_line(done.stderr.decode(), "--samples", "1<=x<=1000000")
    with pytest.raises(significance.IncomparableResults, match="at most 1,000,000"):
        significance.resampled_scores(_matrix(), _mean, ["mean"], samples=10**12)
    told: list[tuple[int, int]] = []
    scores = significance.resampled_scores(
        _matrix(), _mean, ["mean"], samples=25_000, progress=lambda d, t: told.append((d, t))
    )
    assert len(scores) == 25_000
    assert told == [(10_000, 25_000), (20_000, 25_000), (25_000, 25_000)]


def test_progress_shows_beside_the_spinner(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from annoscore.cli import common

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    with common.working_indicator("trec"):
        common.progress(500, 1000)
        live, _ = common._indicator.get()
        assert "resampling 500/1,000 (50%)" in str(live.get_renderable().text)
    common.progress(1, 2)  # no spinner: nothing happens


@pytest.mark.parametrize("kind", ["fifo", "pipe"])
def test_compare_reads_a_piped_gold_once(runner: Runner, kind: str, tmp_path: Path) -> None:
    """The gold standard is scored once per system: a pipe or FIFO used to give its text to
    the first system only ("the gold file is empty" after)."""
    files = [TREC / "run.txt", TREC / "run.txt"]
    expected = run("compare", "trec", TREC / "qrels.txt", *files, "-f", "json").stdout
    qrels = (TREC / "qrels.txt").read_bytes()
    if kind == "fifo":
        gold = tmp_path / "qrels.fifo"
        os.mkfifo(gold)
        outcome = runner("compare", "trec", gold, *files, "-f", "json", fifos={gold: qrels})
    else:
        outcome = runner("compare", "trec", "/dev/fd/7", *files, "-f", "json", feeds={7: qrels})
    assert outcome.status == 0, outcome.stderr
    assert outcome.stdout.decode() == expected
    bad = b"q1 0 d1\n"
    if kind == "fifo":
        outcome = runner("compare", "trec", gold, *files, fifos={gold: bad})
        name = str(gold)
    else:
        outcome = runner("compare", "trec", "/dev/fd/7", *files, feeds={7: bad})
        name = "/dev/fd/7"
    assert outcome.status == 2
    one_line(outcome.stderr.decode(), f"{name}:1: expected 4")


@pytest.mark.parametrize("odd", ["\n", "\r", "\x1b[2J", "\u2028"])
def test_messages_stay_one_line_whatever_the_names(cli: Cli, tmp_path: Path, odd: str) -> None:
    """A file name with a newline, a CR, an escape sequence or a line separator is escaped in
    errors and in warnings: every message is one line (cli.md)."""
    missing = tmp_path / f"qrels{odd}.txt"
    done = cli("trec", missing, TREC / "run.txt")
    assert done.exit_code == 2
    line = one_line(done.stderr, "no such file")
    assert odd not in line and repr(odd)[1:-1] in line
    system = tmp_path / "system"
    shutil.copytree(SYSTEM, system)
    first = min(system.glob("*.ann"))
    first.rename(system / f"extra{odd}.ann")
    (system / f"extra{odd}.txt").write_text("x", encoding="utf-8")
    done = cli("spans", GOLD, system)
    assert done.exit_code == 0
    warnings = done.stderr.splitlines()
    assert warnings and all(w.startswith("annoscore: warning: ") for w in warnings)
    assert any(repr(odd)[1:-1] in w for w in warnings), warnings


def test_convert_refuses_a_folder_in_the_way_before_writing(cli: Cli, tmp_path: Path) -> None:
    """Each converted file is renamed into an existing folder: a folder in the way of one of
    them is refused first, so no file is replaced and none is half-converted."""
    out = tmp_path / "brat"
    assert cli("convert", "muc-sgml", SAMPLES / "muc/ne.key.sgml", "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / "9301010001.ann").unlink()
    (out / "9301010001.ann").mkdir()
    done = cli("convert", "muc-sgml", SAMPLES / "muc/ne.key.sgml", "--out", out, "--force")
    assert done.exit_code == 2
    one_line(done.stderr, "9301010001.ann")
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == {k: v for k, v in before.items() if k != "9301010001.ann"}
    assert sorted(p.name for p in out.iterdir()) == sorted(before)  # no temporary folder


def test_convert_makes_a_folder_with_the_usual_permissions(cli: Cli, tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        out = tmp_path / "new" / "brat"
        assert cli("convert", "muc-sgml", SAMPLES / "muc/ne.key.sgml", "--out", out).exit_code == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o755
        assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o644}
        assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]
        assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["brat"]
    finally:
        os.umask(mask)
