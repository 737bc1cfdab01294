"""What every scoring command shares: output options, rendering, errors and exit codes.

Exit status (cli.md): 0 scored; 2 bad usage or bad input, with a one-line message on stderr naming
file and line; 1 an internal error (set ``ANNOSCORE_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gc
import os
import queue
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import IO, Annotated, Any, ParamSpec, TypeVar

import typer

from annoscore.errors import InputError
from annoscore.report.generic import TextRenderer, render, warning_text
from annoscore.result import Result


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    markdown = "markdown"


FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="text (the official layout where there is one), json, csv or markdown.",
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
BootstrapOption = Annotated[
    int,
    typer.Option(
        "--bootstrap",
        min=0,
        help="Add percentile confidence intervals for every score from N bootstrap resamples "
        "of the documents (0: none).",
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
StrictInputOption = Annotated[
    bool,
    typer.Option(
        "--strict-input",
        help="Exit 2 instead of tolerating input the official script skips, changes or "
        "tolerates (each such line is otherwise a warning naming file and line).",
    ),
]
SeedOption = Annotated[
    int,
    typer.Option(
        "--seed",
        help="With --bootstrap: the random seed (recorded in the signature).",
        rich_help_panel="Confidence intervals",
    ),
]


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


def fail(message: str, status: int = 2) -> typer.Exit:
    """Print ``annoscore: error: message`` on stderr and return the Exit to raise."""
    print(f"annoscore: error: {message}", file=sys.stderr)
    return typer.Exit(status)


_indicator: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "annoscore_indicator", default=None
)


@contextlib.contextmanager
def working_indicator(name: str) -> Iterator[None]:
    """A transient spinner with the elapsed time on stderr while a command works.

    Shown only when stderr is a terminal and ``CI`` is not set, so pipes, files and CI logs get
    nothing.  :func:`emit` stops it before writing, so it never mixes with the output; stdout is
    not redirected.  Rich is imported only when the spinner is shown.
    """
    if os.environ.get("CI") or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    live = Live(
        Spinner("dots", text=f"annoscore {name}: working..."),
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    token = _indicator.set(live)
    live.start()
    try:
        yield
    finally:
        live.stop()
        _indicator.reset(token)


def stop_working_indicator() -> None:
    """Clear the spinner of :func:`working_indicator`, if one is shown (before writing output)."""
    live = _indicator.get()
    if live is not None:
        live.stop()


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a command reads, scores and writes.

    Reading and aligning build hundreds of thousands of small objects (strings, tuples, fills,
    alignment records) that hold no reference cycles, so reference counting frees every one of
    them; the cyclic collector finds nothing, yet each of its full passes walks every live object
    again.  Measured: reading MUC templates takes twice as long with it running
    (``benchmarks/muc.py``), about 10% of an end-to-end ``spans`` run and a quarter of ARE's
    reading time.  Memory is unchanged.  The previous state is restored on exit, even on an
    error; a pause the caller already made is left alone.  Only the command line does this: the
    library never touches the collector.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_inputs: contextvars.ContextVar[tuple[Path, ...]] = contextvars.ContextVar(
    "annoscore_inputs", default=()
)
OUTPUT_PARAMETERS = frozenset({"output", "summary", "history", "partitions", "out"})
"""Parameters that name files a command writes: every other path parameter is an input."""


def add_inputs(*paths: Path | None) -> None:
    """Record more input paths (a configuration's key and response files, say): no output may
    be written over them."""
    _inputs.set(_inputs.get() + tuple(p for p in paths if p is not None))


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a looping link, an unreadable folder: compare as given
        return path.expanduser().absolute()


def check_output(path: Path) -> None:
    """Refuse (exit 2, before anything is written) an output path that is an input file, the
    configuration, or a file inside an input folder."""
    target = _resolved(path)
    for given in _inputs.get():
        source = _resolved(given)
        if target == source or (source.is_dir() and source in target.parents):
            what = "is" if target == source else "is inside the input folder"
            raise InputError(f"refusing to write the output: it {what} {given}", path)


def check_output_early(path: Path | None) -> None:
    """Refuse ``-o`` now (an input, or a folder that does not exist) when a command writes other
    files first (``muc``'s report files), so a refused run leaves no file behind."""
    if path is None:
        return
    check_output(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError("cannot write the output: No such file or directory", path)


def _output_mode(path: Path) -> int:
    """The permissions of an output file: those of the file it replaces, else what ``open``
    would give a new file (0o666 less the umask).  The temporary file it is written through is
    private (0o600), and renaming it into place would otherwise keep that."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


def write_output(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (one file of :class:`OutputFiles`)."""
    with OutputFiles() as files:
        files.write(path, [text])


class OutputFiles:
    """Writes output files, each through a temporary file in its folder and a rename (so a
    failed run never leaves half a file), never over an input (:func:`check_output`), the
    bytes in a background thread:
    the caller makes the text (Python) while the thread's write system calls (which run
    without the interpreter lock) put the previous pieces on disk.  A large report (a named
    entity map history: some 130 MB) is given in pieces, never held whole.  Leaving the
    ``with`` block waits for the thread; then the first error is an :class:`InputError`, and
    after an error (or an exception in the block) no file is renamed into place and every
    temporary file is removed."""

    def __init__(self) -> None:
        self.pieces: queue.Queue[tuple[Path, IO[bytes], bytes | None] | None] = queue.Queue(2)
        self.failure: BaseException | None = None
        self.stopped = False
        self.pending: list[IO[bytes]] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> OutputFiles:
        self.thread.start()
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is not None:
            self.stopped = True
        self.pieces.put(None)
        self.thread.join()
        for handle in self.pending:  # not renamed into place
            handle.close()
            with contextlib.suppress(OSError):
                os.unlink(handle.name)
        if self.failure is not None and kind is None:
            raise self.failure

    def write(self, path: Path, chunks: Iterable[str]) -> None:
        """Write ``chunks`` to ``path`` (an :class:`InputError` now if ``path`` is an input)."""
        check_output(path)
        folder = path.parent if str(path.parent) else Path(".")
        try:  # closed by the thread, or on leaving the block
            handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
                "wb", dir=folder, prefix=f".{path.name}.", delete=False
            )
        except OSError as error:
            raise InputError(f"cannot write the output: {error.strerror}", path) from None
        self.pending.append(handle)
        with contextlib.suppress(OSError):  # a file system without modes: keep what it gives
            os.chmod(handle.name, _output_mode(path))
        for chunk in chunks:
            if self.failure is not None:
                break
            self.pieces.put((path, handle, chunk.encode("utf-8")))
        self.pieces.put((path, handle, None))  # close and rename

    def _run(self) -> None:
        while (item := self.pieces.get()) is not None:
            path, handle, data = item
            if self.failure is not None or self.stopped:
                continue
            try:
                if data is not None:
                    handle.write(data)
                    continue
                handle.close()
                os.replace(handle.name, path)
                self.pending.remove(handle)
            except OSError as error:
                self.failure = InputError(f"cannot write the output: {error.strerror}", path)
            except BaseException as error:  # re-raised by __exit__; the queue is still drained
                self.failure = error


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Map :class:`InputError` to exit 2 and any other exception to exit 1, without tracebacks.

    Every path argument that is not an output (a list of paths too: ``compare``'s systems) is
    recorded as an input (:func:`check_output` refuses to write over one).  An operating-system
    error on a named file (a path too long, a permission) and a number too large for the machine
    are the user's input too: exit 2.
    While the command runs, :func:`working_indicator` shows that it is working.
    """

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
            with working_indicator(command.__name__):
                return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except InputError as error:
            raise fail(str(error), 2) from None
        except OSError as error:
            if error.filename is None:
                raise fail(f"internal error: OSError: {error}", 1) from None
            raise fail(f"{error.filename}: {error.strerror or error}", 2) from None
        except OverflowError:
            raise fail("a number in the input or the options is too large", 2) from None
        except KeyboardInterrupt:
            raise fail("interrupted", 130) from None
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

    return wrapper


def emit(
    result: Result,
    fmt: OutputFormat,
    output: Path | None,
    text: TextRenderer | None = None,
    *,
    per_doc: bool = False,
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 12345,
    strict_input: bool = False,
) -> None:
    """Render ``result`` and write it to ``output`` or stdout.

    ``per_doc`` adds the per-document rows; ``bootstrap`` resamples the documents of the count
    matrix that many times and adds percentile intervals (:mod:`annoscore.significance`).
    ``strict_input`` refuses (exit 2) a result that needed tolerated input.
    JSON and Markdown carry the warnings inside; for text and CSV they go to stderr, so the
    official layout on stdout stays byte-for-byte comparable with the official script's.
    An ``output`` that is an input is refused before anything is written.
    """
    if output is not None:
        check_output(output)
    if strict_input:
        tolerated = [w for w in result.warnings if w.tolerated]
        if tolerated:
            raise InputError(
                f"--strict-input: {warning_text(tolerated[0])}"
                + (f" (and {len(tolerated) - 1} more)" if len(tolerated) > 1 else "")
            )
    if per_doc:
        result = result.shown(documents=True)
    if bootstrap:
        from annoscore.significance import with_intervals

        result = with_intervals(result, samples=bootstrap, confidence=confidence, seed=seed)
    rendered = render(result, fmt.value, text)
    stop_working_indicator()
    if output is None:
        sys.stdout.write(rendered)
        sys.stdout.flush()
    else:
        write_output(output, rendered)
    if fmt in (OutputFormat.text, OutputFormat.csv):
        for warning in result.warnings:
            print(f"annoscore: warning: {warning_text(warning)}", file=sys.stderr)
