"""What every scoring command shares: output options, rendering, errors and exit codes.

Exit status (cli.md): 0 scored; 2 bad usage or bad input, with a one-line message on stderr naming
file and line; 1 an internal error (set ``ANNOSCORE_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gc
import inspect
import os
import signal
import sys
import threading
import typing
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer

from annoscore.cli import CLOSED_PIPE_STATUS, collector_resumed
from annoscore.cli.writing import OutputClosed, _inputs, write_output, write_stdout
from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.tasks.registry import Task
from annoscore.options import MAX_SAMPLES
from annoscore.score_warnings import one_line


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    html = "html"


FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="text (the official layout where there is one), json, csv, markdown, or html (a "
        "self-contained report page: give -o FILE).",
        case_sensitive=False,
    ),
]


def _dash_is_stdout(value: Path | None) -> Path | None:
    """``-o -`` is standard output, as ``-`` is for most commands (not a file named ``-``)."""
    return None if value is not None and str(value) == "-" else value


OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the output to this file instead of stdout (- is stdout).",
        dir_okay=False,
        callback=_dash_is_stdout,
    ),
]
PerDocOption = Annotated[
    bool, typer.Option("--per-doc", help="Add per-document scores and counts.")
]
PerTypeOption = Annotated[bool, typer.Option("--per-type", help="Add per-type scores and counts.")]
BootstrapOption = Annotated[
    int,
    typer.Option(
        "--bootstrap",
        min=0,
        max=MAX_SAMPLES,
        help="Add percentile confidence intervals for every score from N bootstrap resamples "
        "of the documents (0: none; at most 1,000,000).",
        rich_help_panel="Confidence intervals",
    ),
]
ConfidenceOption = Annotated[
    float,
    typer.Option(
        "--confidence",
        min=0.5,
        max=0.999,
        help="With --bootstrap: the interval's confidence level.",
        rich_help_panel="Confidence intervals",
    ),
]
NoTextOption = Annotated[
    bool,
    typer.Option(
        "--no-text",
        help="With --format html: leave the document texts out of the report (the viewer "
        "shows offsets), so detailed results do not leak test texts.",
        rich_help_panel="HTML report",
    ),
]
MaxHtmlOption = Annotated[
    float,
    typer.Option(
        "--max-html-mb",
        min=0.0,
        help="With --format html: the size budget in MB; beyond it full texts are replaced by "
        "context windows around the mentions, with a notice.",
        rich_help_panel="HTML report",
    ),
]
SeedOption = Annotated[
    int,
    typer.Option(
        "--seed",
        min=0,
        help="With --bootstrap: the random seed, a whole number >= 0 (recorded in the signature).",
        rich_help_panel="Confidence intervals",
    ),
]
SubtaskOptions = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="A task option NAME=VALUE (with sub-tasks: SUBTASK:NAME=VALUE, or "
        "NAME=VALUE for every sub-task whose task has it).",
    ),
]
"""``--option`` of the commands that score a bundle of sub-tasks (``codabench``, ``collect``)."""


def choice(values: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``typer.Option`` arguments for a choice generated from the one list a lower layer
    declares: the choices shown in the help, a value outside them a usage error (exit 2)."""
    allowed = {v.lower(): v for v in values}

    def parse(value: str) -> str:
        if isinstance(value, str) and value.lower() in allowed:
            return allowed[value.lower()]
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(values)}")

    return {"parser": parse, "metavar": "[" + "|".join(values) + "]"}


P = ParamSpec("P")
R = TypeVar("R")


MESSAGE_LIMIT = 2000
"""Characters of one message shown at most: a longer one (a message quoting a megabyte token)
keeps its start and end, which name the place and what is wrong."""


def tell(kind: str, message: str) -> None:
    """Print ``annoscore: KIND: message`` on stderr, always one line: the one place messages are
    written.  Names and excerpts in ``message`` are escaped (:func:`one_line`: a file name with
    a newline, a CR from the input) and a very long message is shortened in the middle.  A
    standard error that cannot be written is left alone (the exit status still tells)."""
    text = one_line(_named_text(message))
    if len(text) > MESSAGE_LIMIT:
        half = MESSAGE_LIMIT // 2
        text = f"{text[:half]} ... {text[-half:]}"
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no stderr (``2>&-``)
        sys.stderr.write(f"annoscore: {kind}: {text}\n")
        sys.stderr.flush()


def fail(message: str, status: int = 2) -> typer.Exit:
    """Print ``annoscore: error: message`` on stderr (:func:`tell`) and return the Exit to
    raise."""
    tell("error", message)
    return typer.Exit(status)


def registered(name: str) -> Task:
    """The task registered as ``name``; an :class:`InputError` naming the known ones otherwise
    (the registry's own ``KeyError``, which :func:`annoscore.score` keeps, as a user error)."""
    from annoscore.tasks import registry

    try:
        return registry.get(name)
    except KeyError as error:
        raise InputError(str(error.args[0])) from None


_indicator: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "annoscore_indicator", default=None
)


@contextlib.contextmanager
def working_indicator(name: str) -> Iterator[None]:
    """A transient spinner on stderr while a command works: ``annoscore NAME: working... 12 s``
    (the seconds since it began), or the line of a run scored by chunks (documents done, rate,
    time left: :class:`annoscore.scale.Progress`, told through :data:`SHOWN_BY`) or of
    resampling (:func:`progress`) while there is one.

    Shown only when stderr is a terminal and ``CI`` is not set, so pipes, files and CI logs get
    nothing.  :meth:`annoscore.cli.options.Output.emit` stops it before writing, so it never
    mixes with the output; stdout is not redirected.  Rich is imported only when the spinner is
    shown.
    """
    if os.environ.get("CI") or not is_terminal(sys.stderr):
        yield
        return
    import time

    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner
    from rich.text import Text

    from annoscore.scale.run import SHOWN_BY

    class Working:
        """The spinner and its text, the seconds counted when it is drawn."""

        def __init__(self) -> None:
            self.spinner, self.text, self.start = Spinner("dots"), "", time.monotonic()

        def show(self, text: str) -> None:  # a progress line, or "" (working again)
            self.text = text

        def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
            seconds = time.monotonic() - self.start
            text = self.text or f"working... {seconds:.0f} s"
            self.spinner.update(text=Text(f"annoscore {name}: {text}"))  # "[##..]": no markup
            yield self.spinner

    working = Working()
    live = Live(
        working,
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    token = _indicator.set((live, working.show))
    shown_by = SHOWN_BY.set(working.show)
    live.start()
    try:
        yield
    finally:
        live.stop()
        SHOWN_BY.reset(shown_by)
        _indicator.reset(token)


def stop_working_indicator() -> None:
    """Clear the spinner of :func:`working_indicator`, if one is shown (before writing output)."""
    shown = _indicator.get()
    if shown is not None:
        shown[0].stop()


def progress(done: int, total: int) -> None:
    """Show ``done`` of ``total`` (resamples, trials) beside the spinner of
    :func:`working_indicator`; nothing when no spinner is shown (pipes, files, CI)."""
    shown = _indicator.get()
    if shown is None:
        return
    share = done / total if total else 1.0
    shown[1](f"resampling {done:,}/{total:,} ({share:.0%})")


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a command reads, scores and writes.

    Reading builds hundreds of thousands of small objects without reference cycles, which the
    collector's full passes walk again for nothing (reading MUC templates takes twice as long
    with it running; about 10% of a ``spans`` run).  The previous state comes back on exit,
    even on an error.  Only the command line does this: the library never touches it.

    When objects were frozen before (``gc.freeze``: the command line's start-up, thawed at its
    end by :func:`annoscore.cli.collector_resumed`), the objects still alive on exit are frozen
    with them before the collector runs again: its first pass would otherwise walk every one
    of them, all made since its last pass (``annoscore muc --jobs 2``, whose command process
    keeps a cut run's caches past the run,
    :func:`~annoscore.formats.muc_config.once_per_run`: 1,000 documents, named entity 290,000
    objects, 0.06-0.1 s of its CPU after the last chunk, template relation 0.06-0.1 s).
    Without such a freeze (a benchmark, a test) nothing is frozen: no one would thaw it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count():
                gc.freeze()
            gc.enable()


OUTPUT_PARAMETERS = frozenset({"output", "summary", "history", "partitions", "out"})
"""Parameters that name files a command writes: every other path parameter is an input."""


class PathOrUrl:
    """The ``path_type`` of a path argument: a ``Path``, or for an fsspec URL (``s3://``,
    ``memory://``, ...) the local stand-in its readers are given
    (:func:`annoscore.formats.files.given`: a ``Path`` would lose its ``//``), fsspec not
    imported.

    >>> PathOrUrl("gold.tsv")
    PosixPath('gold.tsv')
    """

    def __new__(cls, value: str | os.PathLike[str]) -> Path:  # type: ignore[misc]
        text = os.fspath(value)
        if "://" in text:
            from annoscore.formats.files import given

            return given(text)
        return Path(text)


WRITTEN_PARAMETERS = OUTPUT_PARAMETERS | {"output_dir"}
"""Parameters that name what a command writes, for URLs: such a URL is refused
(:func:`annoscore.formats.files.refuse_url_output`), never read."""


def url_arguments(annotation: Any) -> Any:
    """``annotation`` of a command's parameter: a path it reads (an argument or an
    option, a list of them, not an output: :data:`WRITTEN_PARAMETERS`) made to read URLs too
    (:class:`PathOrUrl`); an output made to keep a URL as one, which the command refuses
    (:func:`guarded`) instead of writing a local file named ``s3:/...``."""
    arguments = typing.get_args(annotation) if typing.get_origin(annotation) is Annotated else ()
    paths = (Path, Path | None, list[Path], list[Path] | None)
    if arguments and arguments[0] in paths:
        for info in arguments[1:]:
            if isinstance(info, typer.models.ParameterInfo) and info.path_type is None:
                info.path_type = PathOrUrl  # type: ignore[assignment]
    return annotation


def all_url_arguments(command: Callable[..., Any]) -> inspect.Signature | None:
    """The signature of ``command`` whose path parameters take URLs (:func:`url_arguments`;
    Typer is to read it, not the annotations' text, which makes new parameter objects)."""
    try:
        signature = inspect.signature(command, eval_str=True)
    except (NameError, TypeError, ValueError):  # not a command whose annotations Typer reads
        return None
    for parameter in signature.parameters.values():
        url_arguments(parameter.annotation)
    return signature


@contextlib.contextmanager
def url_inputs(values: dict[str, Any], lazy: Iterable[str]) -> Iterator[None]:
    """Inside the block (a command's run), the URL inputs among the command's ``values`` are
    read whole through fsspec (:func:`annoscore.formats.files.filled`; ``lazy``: those the
    command reads itself, a scoring command's gold and system that its task may cut), a URL
    output is refused, and the copies are removed at the end.  Nothing is imported when no
    value is a URL."""
    named = any(isinstance(v, str) and "://" in v for v in _items(values))  # --option X=URL
    files = sys.modules.get("annoscore.formats.files")
    if not named and (files is None or not any(files.url_of(path) for path in _paths(values))):
        yield
        return
    from annoscore.formats import files as read

    for name in values.keys() & WRITTEN_PARAMETERS:
        for path in _paths({name: values[name]}):
            read.refuse_url_output(path)
    skipped = set(lazy) | WRITTEN_PARAMETERS
    with read.url_inputs():
        try:
            for path in _paths({k: v for k, v in values.items() if k not in skipped}):
                read.filled(path)
            yield
        except InputError as error:  # named while the local copies are known
            raise read.named_error(error) from None


def _items(values: dict[str, Any]) -> Iterator[Any]:
    for value in values.values():
        yield from value if isinstance(value, list | tuple) else (value,)


def _paths(values: dict[str, Any]) -> Iterator[Path]:
    return (item for item in _items(values) if isinstance(item, Path))


@contextlib.contextmanager
def fetched_inputs(values: Iterable[object], cuts: Callable[[], bool]) -> Iterator[None]:
    """Inside the block, the URL arguments among ``values`` are read whole through fsspec
    (:func:`annoscore.formats.files.fetched`), unless ``cuts()`` says the command's task reads
    them in chunks itself (:func:`annoscore.scale.chunked`)."""
    files = sys.modules.get("annoscore.formats.files")
    urls = [] if files is None else [v for v in values if isinstance(v, Path) and files.url_of(v)]
    if not urls or cuts():
        yield
        return
    assert files is not None
    with files.fetched(*urls):
        yield


def _named(error: InputError) -> InputError:
    """``error`` naming the URLs given where it names their stand-ins."""
    files = sys.modules.get("annoscore.formats.files")
    return error if files is None else files.named_error(error)


def _named_text(text: str) -> str:
    """``text`` naming the URLs given where it names their local copies (nothing imported or
    searched when no URL was given)."""
    return text if not _url_inputs_given() else sys.modules["annoscore.formats.files"].named(text)


def _url_inputs_given() -> bool:
    files = sys.modules.get("annoscore.formats.files")
    return files is not None and bool(files.url_inputs_given())


# --- running a command ---------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled as Python handles SIGINT: the command stops where it is, its
    temporary files are removed, and it exits with 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM and SIGHUP raise :class:`Interrupted` (as SIGINT raises
    ``KeyboardInterrupt``), so the ``with`` blocks that write files clean up.  A signal the
    caller ignores (``nohup``) stays ignored; the previous handlers come back afterwards.  Only
    the main thread can set handlers: elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None or signal.getsignal(number) is signal.SIG_IGN:
            continue
        previous[number] = signal.signal(number, _interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _interrupted(error: KeyboardInterrupt) -> typer.Exit:
    signum = getattr(error, "signum", signal.SIGINT)
    if signum == signal.SIGINT:
        return fail("interrupted", 128 + signum)
    return fail(f"terminated by {signal.Signals(signum).name}", 128 + signum)


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Map :class:`InputError` to exit 2 and any other exception to exit 1, without tracebacks.

    Every path argument that is not an output (a list of paths too: ``compare``'s systems) is
    recorded as an input (:func:`check_output` refuses to write over one).  An operating-system
    error on a named file (a path too long, a permission) and a number too large for the machine
    are the user's input too: exit 2.  A closed standard output (:class:`OutputClosed`) ends
    quietly; SIGINT, SIGTERM and SIGHUP end with 128 + the signal (:func:`signals_interrupt`).
    While the command runs, :func:`working_indicator` shows that it is working.  The command
    runs with the cyclic garbage collector that :func:`annoscore.cli.main` paused for the
    start-up.
    """

    signature = all_url_arguments(command)
    lazy = getattr(command, "lazy_urls", ())

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        inputs = tuple(
            path
            for name, value in kwargs.items()
            if name not in OUTPUT_PARAMETERS
            for path in (value if isinstance(value, list | tuple) else (value,))
            if isinstance(path, Path)
        )
        token = _inputs.set(inputs)
        try:
            with (
                signals_interrupt(),
                working_indicator(command.__name__),
                url_inputs(kwargs, lazy),
                collector_resumed(),
            ):
                return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except OutputClosed:
            raise typer.Exit(CLOSED_PIPE_STATUS) from None
        except InputError as error:
            raise fail(str(_named(error)), 2) from None
        except OSError as error:
            if error.filename is None:
                raise fail(f"internal error: OSError: {error}", 1) from None
            raise fail(f"{error.filename}: {error.strerror or error}", 2) from None
        except OverflowError:
            raise fail("a number in the input or the options is too large", 2) from None
        except KeyboardInterrupt as error:
            raise _interrupted(error) from None
        except Exception as error:
            if os.environ.get("ANNOSCORE_DEBUG"):
                raise
            message = (
                f"internal error: {type(error).__name__}: {error} "
                "(set ANNOSCORE_DEBUG=1 for the traceback)"
            )
            raise fail(message, 1) from None
        finally:
            _inputs.reset(token)

    if signature is not None:
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper


def is_terminal(stream: IO[Any] | None) -> bool:
    """Whether ``stream`` is a terminal (a closed stream is not)."""
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def command_line() -> str | None:
    """The command line of this run as a shell would read it back (the HTML report shows it),
    or ``None`` when annoscore was not started as a command (called from Python)."""
    import shlex

    program = os.path.basename(sys.argv[0]) if sys.argv else ""
    if program not in ("annoscore", "__main__.py"):
        return None
    return shlex.join(["annoscore", *sys.argv[1:]])


def write_result(rendered: str | Iterable[str], output: Path | None) -> None:
    """Write a command's output (its text, or its pieces in order, each written as it is made)
    to ``output`` (:class:`OutputFiles`) or standard output (:func:`write_stdout`), the working
    indicator cleared first."""
    stop_working_indicator()
    if _url_inputs_given():  # the URLs named in the whole text, whatever its pieces
        rendered = _named_text(rendered if isinstance(rendered, str) else "".join(rendered))
    if output is None:
        write_stdout(rendered)
    else:
        write_output(output, rendered)
