"""Start-up stays cheap: the speed targets include interpreter start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_cli_import_loads_neither_scipy_nor_numpy() -> None:
    code = (
        "import sys, annoscore.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'numpy'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", "imported at start-up; import it lazily where it is used"


def test_the_command_runs_openblas_with_one_thread_unless_told_otherwise() -> None:
    """NumPy's OpenBLAS would start a thread per core at import (about 0.06 s per process)."""
    code = (
        "import os, sys\n"
        "from annoscore.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stderr.strip() == "1"
    env["OPENBLAS_NUM_THREADS"] = "4"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stderr.strip() == "4"


def test_the_collector_is_paused_while_the_command_starts_and_runs_with_the_command() -> None:
    """The cyclic collector is paused for the imports and the start-up (the objects made then
    are no cyclic garbage) and runs while the command scores (memory stays bounded whatever
    the run makes) over the run's objects only (the start-up's frozen), paused again until
    ``main`` ends, everything thawed; the importer of ``annoscore.cli`` finds it as it was."""
    code = (
        "import gc, sys\n"
        "import annoscore.cli\n"
        "print('imported', gc.isenabled(), file=sys.stderr)\n"
        "import typer.main\n"
        "built = typer.main.get_command\n"
        "def spy(app):\n"
        "    print('starting', gc.isenabled(), file=sys.stderr)\n"
        "    return built(app)\n"
        "typer.main.get_command = spy\n"
        "import annoscore.tasks.trec as trec\n"
        "scored = trec.score_trec\n"
        "def spy_score(*args, **kwargs):\n"
        "    print('scoring', gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)\n"
        "    return scored(*args, **kwargs)\n"
        "trec.score_trec = spy_score\n"
        "from annoscore.samples import SAMPLES\n"
        "try:\n"
        "    annoscore.cli.main(['trec', str(SAMPLES / 'trec/qrels.txt'),\n"
        "                        str(SAMPLES / 'trec/run.txt'), '-f', 'json'])\n"
        "except SystemExit as done:\n"
        "    print('exit', done.code, gc.isenabled(), gc.get_freeze_count(), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.splitlines() == [
        "imported True",
        "starting False",
        "scoring True True",
        "exit 0 True 0",
    ]


def test_what_a_paused_run_keeps_is_frozen_until_main_ends(tmp_path: Path) -> None:
    """A command run with the collector paused (``annoscore muc``: ``cyclic_gc_paused``)
    leaves what it keeps frozen beside the start-up's, so the collector running again walks
    none of it (the caches a cut run keeps: 0.06-0.1 s of CPU after the last chunk); ``main``
    thaws everything at its end."""
    code = (
        "import contextlib, gc, sys\n"
        "import annoscore.cli\n"
        "import annoscore.cli.muc as muc\n"
        "from annoscore.samples import SAMPLES\n"
        "paused = muc.cyclic_gc_paused\n"
        "KEPT = []\n"
        "@contextlib.contextmanager\n"
        "def spy():\n"
        "    with paused():\n"
        "        yield\n"
        "        KEPT.append([[n] for n in range(100)])\n"
        "    walked = {id(o) for g in range(3) for o in gc.get_objects(g)}\n"
        "    print('after', gc.isenabled(), id(KEPT[0]) in walked, file=sys.stderr)\n"
        "muc.cyclic_gc_paused = spy\n"
        "try:\n"
        "    annoscore.cli.main(['muc', str(SAMPLES / 'muc/ne.config'), '--no-files',\n"
        "                        '-f', 'json', '-o', 'out.json', '--jobs', '2'])\n"
        "except SystemExit as done:\n"
        "    walked = {id(o) for g in range(3) for o in gc.get_objects(g)}\n"
        "    print('exit', done.code, gc.isenabled(), gc.get_freeze_count(),\n"
        "          id(KEPT[0]) in walked, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.stderr.splitlines() == ["after True False", "exit 0 True 0 True"]
    assert (tmp_path / "out.json").is_file()


def test_every_command_runs_with_the_collector() -> None:
    import gc

    from annoscore.cli import _collector_paused
    from annoscore.cli.common import guarded

    seen: list[bool] = []

    def command() -> None:
        seen.append(gc.isenabled())

    assert gc.isenabled()
    with _collector_paused():
        guarded(command)()
        paused = not gc.isenabled()
    assert seen == [True]
    assert paused and gc.isenabled()
    gc.disable()  # paused by the caller, not by main: left as it is
    try:
        guarded(command)()
    finally:
        gc.enable()
    assert seen == [True, False]


def test_option_records_are_read_only_and_equal_by_value() -> None:
    """:class:`~annoscore.options.Setting` and ``OptionField`` are plain classes (a
    dataclass's generated code costs every command's start-up) that behave as the frozen
    dataclasses they were: read-only, equal and hashed by value, pickled."""
    import pickle

    import pytest

    from annoscore.options import OptionField, Setting, fields
    from annoscore.tasks.trec import TrecOptions

    setting = Setting("Ranks kept.", low=0)
    assert setting == Setting("Ranks kept.", low=0) != Setting("Ranks kept.", low=1)
    assert hash(setting) == hash(Setting("Ranks kept.", low=0))
    assert setting.low == 0 and setting.flags == () and setting.moves
    with pytest.raises(AttributeError, match="read-only"):
        setting.low = 1
    with pytest.raises(AttributeError, match="read-only"):
        del setting.help
    spec = fields(TrecOptions)[1]
    assert isinstance(spec, OptionField)
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert repr(spec).startswith("OptionField(name='complete', annotation=<class 'bool'>")
    with pytest.raises(AttributeError, match="read-only"):
        spec.name = "other"


def test_a_group_builds_only_the_sub_command_it_runs() -> None:
    """``annoscore codiesp D`` builds D's command alone (Typer would build the options of D, P,
    X and their hidden lower-case aliases); the group's help and an unknown name see them all."""
    code = (
        "import sys\n"
        "import typer.main\n"
        "from annoscore.cli import main\n"
        "from annoscore.samples import SAMPLES\n"
        "built = typer.main.get_command_from_info\n"
        "names = []\n"
        "def spy(command_info, **kwargs):\n"
        "    names.append(command_info.name)\n"
        "    return built(command_info, **kwargs)\n"
        "typer.main.get_command_from_info = spy\n"
        "folder = SAMPLES / 'codiesp'\n"
        "words = {'run': ['codiesp', 'D', '-g', str(folder / 'gs_D.tsv'), '-p',\n"
        "                 str(folder / 'pred_D.tsv'), '-c', str(folder / 'codes-D.tsv')],\n"
        "         'alias': ['codiesp', 'x', '--help'], 'help': ['codiesp', '--help'],\n"
        "         'unknown': ['codiesp', 'Q']}[sys.argv[1]]\n"
        "try:\n"
        "    main(words)\n"
        "except SystemExit as done:\n"
        "    print(done.code, sorted(names), file=sys.stderr)\n"
    )
    every = "['D', 'P', 'X', 'd', 'p', 'x']"
    for words, expected in [
        ("run", "0 ['D']"),
        ("alias", "0 ['x']"),
        ("help", f"0 {every}"),
        ("unknown", f"2 {every}"),
    ]:
        done = subprocess.run([sys.executable, "-c", code, words], capture_output=True, text=True)
        assert done.stderr.splitlines()[-1] == expected, done.stderr


def test_the_command_ends_without_the_interpreter_s_shutdown(tmp_path: Path) -> None:
    """The ``annoscore`` command's process ends once its exit functions ran and its output is
    flushed, without tearing the interpreter down (a module-level object is never finalized);
    a program calling ``main`` itself, or one with a thread still running, ends as usual."""
    from annoscore.samples import SAMPLES

    script = tmp_path / "annoscore"
    script.write_text(
        "import atexit, sys, threading\n"
        "from annoscore.cli import main\n"
        "atexit.register(lambda: print('atexit', file=sys.stderr))\n"
        "class Finalized:\n"
        "    def __del__(self):\n"
        "        print('shutdown', file=sys.stderr)\n"
        "kept = Finalized()\n"
        "alive = threading.Event()\n"
        "if sys.argv.pop() == 'thread':  # a thread alive until main ends\n"
        "    threading.Thread(target=alive.wait).start()\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    alive.set()\n"
    )
    qrels, run = SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt"
    for thread, name, ended in [
        ("", "annoscore", ["atexit"]),
        ("thread", "annoscore", ["atexit", "shutdown"]),
        ("", "other", ["atexit", "shutdown"]),
    ]:
        started = script.rename(tmp_path / name)
        args = [sys.executable, str(started), "trec", str(qrels), str(run), "-m", "map", thread]
        done = subprocess.run(args, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.startswith("map"), done.stderr
        assert [e for e in done.stderr.splitlines() if e in ("atexit", "shutdown")] == ended
        failed = subprocess.run([*args[:3], str(qrels), "missing", thread], capture_output=True)
        assert failed.returncode == 2 and b"missing: no such file" in failed.stderr
        started.rename(script)
