"""The ``annoscore`` command: one sub-command per task family, each a thin shell over a task.

Each module in this package has ``register(app)``.  The root group knows the sub-commands by name
(:data:`COMMANDS`) and imports a module only when its command is run or its help is asked for, so
``annoscore --help`` and every command start without importing the others (start-up is part of
every timing a user feels).
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import errno
import gc
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Annotated, Any

_COLLECTING = gc.isenabled()
gc.disable()  # while Typer is imported: see main
try:
    import typer
    from typer.core import TyperGroup

    from annoscore import __version__
finally:
    if _COLLECTING:
        gc.enable()

COMMANDS: dict[str, str] = {
    "pharmaconer": "PharmaCoNER: sub-track 1 NER offsets, sub-track 2 indexing.",
    "codiesp": "CodiEsp: D and P ranked codes (MAP, P/R/F1), X explainable coding.",
    "nlpsandbox": "NLP Sandbox PHI annotation: instance, token, type, HIPAA.",
    "muc": "The MUC scorer: TE, TR, ST templates; named entity and coreference SGML.",
    "are": "Anaphora Resolution Exercise 2007, tasks 1-4, from XML.",
    "coref": "CoNLL coreference: MUC, B3, CEAFm, CEAFe, BLANC, LEA, CoNLL score.",
    "spans": "Generic span scoring of brat files: six matching modes, SemEval.",
    "trec": "trec_eval-style MAP of a run against qrels.",
    "conlleval": "conlleval.pl on BIO-tagged CoNLL files, byte for byte.",
    "seqeval": "seqeval's entity scores of tag sequences: default or strict per scheme.",
    "compare": "Paired significance tests of several systems on one gold standard.",
    "report": "One HTML report of one or several systems on one gold standard.",
    "convert": "Convert between formats (MUC SGML to brat).",
    "validate": "Check a submission against a task: every problem, file and line.",
    "codabench": "A Codabench competition bundle: init, score, check.",
    "collect": "Score every team's runs offline: leaderboard, reports, tests.",
    "demo": "Score every registered task on the built-in sample data.",
}
"""Sub-command name (its module in this package) -> its one-line help in the root help."""

_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
"""The settings of the root group and of every sub-command's."""


class LazyGroup(TyperGroup):
    """The root command group: sub-commands are built from their module on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        ctx.meta[_NEXT_WORD] = tuple(args[:2])
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(f"annoscore.cli.{cmd_name}")
        holder = typer.Typer(**_SETTINGS)
        module.register(holder)
        words = ctx.meta.get(_NEXT_WORD, ())
        if len(words) == 2 and words[0] == cmd_name:
            _only_named(holder, words[1])
        return typer.main.get_group(holder).get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(list(COMMANDS.items()))


_NEXT_WORD = "annoscore.next_word"
"""The key of :attr:`click.Context.meta` holding the sub-command's name and the word after it."""


def _only_named(holder: typer.Typer, word: str) -> None:
    """A command group's sub-command named ``word`` alone, when it names one (``annoscore codiesp
    D``): Typer builds every sub-command of a group (its options, their types), which only
    its help lists; otherwise (its help, an unknown name) every one."""
    for group in holder.registered_groups:
        instance = group.typer_instance
        if instance is None or instance.registered_groups:
            continue
        named = [
            info
            for info in instance.registered_commands
            if word == (info.name or typer.main.get_command_name(info.callback.__name__))  # type: ignore[union-attr]
        ]
        if len(named) == 1:
            group.typer_instance = copy.copy(instance)
            group.typer_instance.registered_commands = named


app = typer.Typer(
    name="annoscore",
    cls=LazyGroup,
    help=(
        "Score NLP annotation output against a gold standard, reproducing the official numbers "
        "of CodiEsp, PharmaCoNER, NLP Sandbox, the MUC scorer and the Anaphora Resolution "
        "Exercise, plus the CoNLL coreference metrics, generic span scoring, trec_eval-style MAP "
        "and significance tests.\n\n"
        "Every scoring command takes --format text|json|csv|markdown, -o FILE, --per-doc and "
        "--bootstrap N. Run 'annoscore demo' to see every task on built-in sample data."
    ),
    no_args_is_help=True,
    **_SETTINGS,
)


def _version(value: bool) -> None:
    if value:
        print(f"annoscore {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """annoscore: the official numbers, explained, fast."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point.

    Usage errors (an unknown option, a bad choice, a missing argument) are one line on stderr
    naming what is wrong and where help is, with exit status 2, like every other bad input.

    NumPy's OpenBLAS starts a thread per core when it loads (about 0.06 s per process on two
    cores); no command multiplies large matrices, so the command runs it with one thread unless
    ``OPENBLAS_NUM_THREADS`` is set.

    Python's cyclic garbage collector is paused while the command starts (the imports, the
    command built from its module, the arguments read: the objects made then are no cyclic
    garbage, and collecting them cost about 4% of a small command); the command itself runs
    with it, over the objects it makes (:func:`collector_resumed`: memory stays bounded
    whatever the run makes), and the process ends without a last collection: the ``annoscore``
    command itself ends without the interpreter's shutdown (:func:`_exit_now`).

    Standard output is flushed and checked before the exit (help, ``--version``): a write that
    fails is exit 2 "cannot write standard output: ..." (a full disk), a reader that closed the
    pipe a quiet exit 141 (:func:`finish_stdout`).
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.stdout is None:  # started with standard output closed
        sys.stdout = ClosedOutput()
    try:
        with _collector_paused():
            status = _run(argv)
    except BrokenPipeError:  # help or --version to a closed pipe
        silence_stdout()
        status = CLOSED_PIPE_STATUS
    except OSError as error:  # the commands handle their own: help or --version not written
        silence_stdout()
        _say(f"cannot write standard output: {error.strerror or error}")
        status = 2
    else:
        failed = finish_stdout()
        if failed is not None and not status:
            status = failed
    status = status if isinstance(status, int) else 0
    if argv is None and _ending_alone():
        _exit_now(status)
    sys.exit(status)


def _ending_alone() -> bool:
    """Whether this process is the ``annoscore`` command itself (its console script or ``python
    -m annoscore``, not a program calling :func:`main`) with no thread but daemons left: then
    nothing after :func:`main` needs the interpreter's own shutdown."""
    import threading

    started = sys.modules.get("__main__")
    spec = getattr(started, "__spec__", None)
    command = os.path.basename(getattr(started, "__file__", None) or "") == "annoscore"
    if not (command or (spec is not None and spec.name == "annoscore.__main__")):
        return False
    return all(t.daemon for t in threading.enumerate() if t is not threading.main_thread())


def _exit_now(status: int) -> None:
    """End the process with ``status`` once the exit functions ran (:mod:`atexit`: temporary
    folders removed, worker processes joined) and the standard streams are flushed, without
    the interpreter's shutdown: tearing every module down and the collections it runs even
    with the collector paused cost about 6% of a small command (8% of ``--help``), for memory
    the system takes back anyway."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


_paused_by_main: list[bool] = []
"""``[True]`` while :func:`main` runs with the cyclic collector paused that it found running."""

_exit_uncollected: list[bool] = []
"""``[True]`` once :func:`main` asked that the process end without a last collection: Python
collects at exit while the collector runs, walking every object the command made (about 1%
of a small command) for memory the system takes back anyway."""


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    if not gc.isenabled():  # paused by whoever called: left as it is
        yield
        return
    if not _paused_by_main and not _exit_uncollected:  # once a process
        atexit.register(gc.disable)
        _exit_uncollected.append(True)
    gc.disable()
    _paused_by_main.append(True)
    try:
        yield
    finally:
        _paused_by_main.clear()
        gc.enable()


@contextlib.contextmanager
def collector_resumed() -> Iterator[None]:
    """Inside, the cyclic garbage collector runs again if :func:`main` paused it for the
    start-up (a command's run may be long and make cyclic garbage), over the objects the run
    makes only: the start-up's (modules, the command) are frozen (``gc.freeze``), so no
    collection walks them again; paused and thawed after."""
    if not _paused_by_main or gc.isenabled():
        yield
        return
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        gc.disable()
        gc.unfreeze()


def _run(argv: list[str] | None) -> int | Any:
    """Run the command line; its exit status (usage errors reported)."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=argv, prog_name="annoscore", standalone_mode=False)
    except typer.Exit as done:
        status = done.exit_code
    except SystemExit as done:  # click's own exit: on a closed pipe it exits 1, marking stdout
        closed = type(sys.stdout).__name__ == "PacifyFlushWrapper"
        status = 141 if closed and done.code == 1 else done.code
    except typer.Abort:
        _say("interrupted")
        status = 130
    except typer.TyperException as error:  # the command line's usage errors
        message = error.format_message()
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare group: its help, as asked
            print(message)
            status = 0
        else:
            ctx = getattr(error, "ctx", None)
            where = ctx.command_path if ctx is not None else "annoscore"
            text = " ".join(message.split())
            _say(f"{text} (see '{where} --help')")
            status = getattr(error, "exit_code", 2)
    return status


CLOSED_PIPE_STATUS = 141
"""Exit status when standard output's reader closed the pipe: 128 + SIGPIPE, what a shell reports
for a tool that a closed pipe stopped (``set -o pipefail`` sees it; no message is printed)."""


class ClosedOutput:
    """Standard output when the command started without one (``>&-``: Python then has
    ``sys.stdout = None`` and ``print`` writes nothing): every write fails as a closed
    descriptor does, so the command says so (exit 2) instead of exiting 0 having written
    nothing."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        """Nothing is ever buffered."""

    def fileno(self) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def isatty(self) -> bool:
        return False


def finish_stdout() -> int | None:
    """Flush what Python buffered for standard output (help, ``--version``) and report a
    failure: ``None`` when all is written, else the exit status (with the message printed;
    none for a closed pipe).  Here, not in :mod:`annoscore.cli.common`, so that ``--help``
    imports nothing more."""
    stream = sys.stdout
    if stream is None:
        return None
    try:
        stream.flush()
        return None
    except BrokenPipeError:
        status = CLOSED_PIPE_STATUS
    except OSError as error:
        _say(f"cannot write standard output: {error.strerror or error}")
        status = 2
    silence_stdout()
    return status


def silence_stdout() -> None:
    """Point standard output at ``/dev/null`` after it failed, so the interpreter's own flush
    at exit (of what Python still buffers) fails no more."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no stream, or one that is no file
        return
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def _say(message: str) -> None:
    from annoscore.cli.common import tell

    tell("error", message)
