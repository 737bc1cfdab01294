"""What every scoring command shares: output options, rendering, errors and exit codes.

Exit status (cli.md): 0 scored; 2 bad usage or bad input, with a one-line message on stderr naming
file and line; 1 an internal error (set ``ANNOSCORE_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import functools
import gc
import inspect
import os
import select
import signal
import stat
import sys
import threading
import typing
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer

from annoscore.cli import CLOSED_PIPE_STATUS, collector_resumed
from annoscore.errors import InputError

if TYPE_CHECKING:
    import queue

    from annoscore.scale.spool import FileBytes
    from annoscore.tasks.registry import Task
from annoscore.options import MAX_SAMPLES
from annoscore.report.generic import TextRenderer, render
from annoscore.result import Result, one_line, refuse_tolerated


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
    """A transient spinner with the elapsed time on stderr while a command works.

    Shown only when stderr is a terminal and ``CI`` is not set, so pipes, files and CI logs get
    nothing.  :func:`emit` stops it before writing, so it never mixes with the output; stdout is
    not redirected.  Rich is imported only when the spinner is shown.
    """
    if os.environ.get("CI") or not is_terminal(sys.stderr):
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
    token = _indicator.set((live, f"annoscore {name}"))
    live.start()
    try:
        yield
    finally:
        live.stop()
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
    from rich.spinner import Spinner

    live, name = shown
    share = done / total if total else 1.0
    live.update(Spinner("dots", text=f"{name}: resampling {done:,}/{total:,} ({share:.0%})"))


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a command reads, scores and writes.

    Reading builds hundreds of thousands of small objects without reference cycles, which the
    collector's full passes walk again for nothing (reading MUC templates takes twice as long
    with it running; about 10% of a ``spans`` run).  The previous state comes back on exit,
    even on an error.  Only the command line does this: the library never touches it.
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


def url_arguments(name: str, annotation: Any) -> Any:
    """``annotation`` of a command's parameter ``name``: a path it reads (an argument or an
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
        url_arguments(parameter.name, parameter.annotation)
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
    files = sys.modules.get("annoscore.formats.files")
    return text if files is None or not files.url_inputs_given() else files.named(text)


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
    configuration, or a file inside an input folder; a URL (outputs are local files)."""
    if "annoscore.formats.files" in sys.modules:
        from annoscore.formats.files import refuse_url_output

        refuse_url_output(path)
    target = _resolved(path)
    for given in _inputs.get():
        source = _resolved(given)
        if target == source or (source.is_dir() and source in target.parents):
            what = "is" if target == source else "is inside the input folder"
            raise InputError(f"refusing to write the output: it {what} {given}", path)


# --- writing: standard output and output files ---------------------------------------------------


class OutputClosed(Exception):
    """The reader of standard output went away (``annoscore ... | head -1``): the command stops
    writing and ends quietly with :data:`annoscore.cli.CLOSED_PIPE_STATUS`, as command-line
    tools do."""


WRITE_CHUNK = 1 << 20
"""Bytes given to one ``write`` system call at most."""


def _encoded(text: str) -> bytes:
    """UTF-8, as every output is; a name that was not UTF-8 on disk (a lone surrogate in Python)
    is written as ``\\udcff``, so the output stays UTF-8 (and JSON reads it back as it was)."""
    return text.encode("utf-8", "backslashreplace")


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``, checking each ``write``: a short write is
    continued, an error raised (never a silent truncation)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view[:WRITE_CHUNK])
        except BlockingIOError:  # a descriptor another program left non-blocking: wait
            select.select([], [fd], [])
            continue
        if written <= 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        view = view[written:]


def _descriptor(stream: IO[Any]) -> int | None:
    """The file descriptor under ``stream``, or ``None`` for a stream that is no file (a test's
    captured output)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _write_stream(stream: IO[Any] | None, data: bytes) -> None:
    """Write ``data`` to a standard stream: straight to its descriptor (after what Python
    buffered), else, for a stream that is no file, through the stream."""
    if stream is None:  # started with the descriptor closed (``>&-``)
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    fd = _descriptor(stream)
    stream.flush()
    if fd is not None:
        _write_all(fd, data)
        return
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8"))
        stream.flush()


def write_stdout(chunks: str | Iterable[str]) -> None:
    """Write text to standard output, checking every write: the reader closing the pipe is
    :class:`OutputClosed` (a quiet end), any other error (a full disk) an :class:`InputError`
    "cannot write standard output: ..." (exit 2), never a truncated output with exit 0."""
    try:
        for chunk in [chunks] if isinstance(chunks, str) else chunks:
            _write_stream(sys.stdout, _encoded(chunk))
    except BrokenPipeError:
        raise OutputClosed from None
    except OSError as error:
        raise InputError(f"cannot write standard output: {error.strerror or error}") from None


_STANDARD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_FD_FOLDERS = ("/dev/fd", "/proc/self/fd", "/proc/thread-self/fd")


def _own_descriptor(path: Path) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``, ``/dev/fd/3``,
    ``/proc/self/fd/1``, or a link to one of them), else ``None``.

    >>> _own_descriptor(Path("/dev/stdout")), _own_descriptor(Path("/dev/fd/63"))
    (1, 63)
    >>> _own_descriptor(Path("out.json")) is None
    True
    """
    name = os.path.abspath(path)
    folders = (*_FD_FOLDERS, f"/proc/{os.getpid()}/fd")
    for _ in range(40):  # the kernel's limit on links followed
        if name in _STANDARD_NAMES:
            return _STANDARD_NAMES[name]
        folder, _, number = name.rpartition("/")
        if folder in folders and number.isascii() and number.isdigit():
            return int(number)
        try:
            link = os.readlink(name)
        except (OSError, ValueError):
            return None
        name = os.path.normpath(os.path.join(os.path.dirname(name), link))
    return None


class _Sink:
    """Where the bytes of one output go (see :func:`_sink`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    def copy(self, piece: FileBytes) -> None:
        """Write the bytes of another file's ``piece``, read in blocks (a regular file takes
        them in the kernel: :meth:`_Replaced.copy`)."""
        for block in piece.blocks():
            self.write(block)

    def finish(self) -> None:
        """Everything is written: put the output in place."""

    def discard(self) -> None:
        """The run failed: remove what was not put in place (a no-op where nothing can be)."""

    def error(self, error: OSError) -> BaseException:
        return InputError(f"cannot write the output: {error.strerror or error}", self.path)


class _Replaced(_Sink):
    """A regular file or a new name: written through a temporary file in the target's folder and
    renamed into place, so a failed run leaves no half file.  A link is followed: the file it
    leads to is replaced and the link kept.  The new file gets the old one's permissions, or
    a new file's (:func:`_output_mode`)."""

    def __init__(self, path: Path, target: Path) -> None:
        super().__init__(path)
        self.target = target
        folder = target.parent if str(target.parent) else Path(".")
        import tempfile  # here: a command writing standard output does not import it

        try:  # closed in finish or discard
            self.handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
                "wb", dir=folder, prefix=f".{target.name}.", delete=False
            )
        except OSError as error:
            raise self.error(error) from None
        with contextlib.suppress(OSError):  # a file system without modes: keep what it gives
            os.chmod(self.handle.name, _output_mode(target))

    def write(self, data: bytes) -> None:
        self.handle.write(data)

    def copy(self, piece: FileBytes) -> None:
        """The bytes copied from file to file by the kernel (``os.sendfile``: never read into
        this process); read in blocks where it cannot copy them (another system)."""
        self.handle.flush()
        at = piece.start
        try:
            while at < piece.stop:
                sent = os.sendfile(self.handle.fileno(), piece.fd, at, piece.stop - at)
                if sent <= 0:
                    raise OSError(errno.EIO, f"a copied file ends before byte {piece.stop}")
                at += sent
        except (OSError, AttributeError) as error:
            if at > piece.start or (isinstance(error, OSError) and error.errno == errno.EIO):
                raise
            super().copy(piece)  # nothing copied: no sendfile between these files
        finally:
            self.handle.seek(0, os.SEEK_END)  # where the kernel left the file's offset

    def finish(self) -> None:
        self.handle.close()
        os.replace(self.handle.name, self.target)

    def discard(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.handle.close()
        with contextlib.suppress(OSError):
            os.unlink(self.handle.name)


class _Opened(_Sink):
    """A device, a FIFO or a socket: opened and written (never replaced).  Opening a FIFO waits
    for its reader, as a shell's ``>`` does."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.fd: int | None = None

    def write(self, data: bytes) -> None:
        if self.fd is None:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        _write_all(self.fd, data)

    def finish(self) -> None:
        self.write(b"")  # opens it, so an empty output still reaches a FIFO's reader
        self.discard()

    def discard(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)


class _Descriptor(_Sink):
    """A descriptor this process has (``/dev/stdout``, ``/dev/fd/N``): written where it points,
    at its position, as the shell set it up (a file opened with ``>>`` is appended to, not
    truncated by opening it again).  Standard output's closed pipe ends quietly as it does
    without ``-o`` (:class:`OutputClosed`)."""

    def __init__(self, path: Path, fd: int) -> None:
        super().__init__(path)
        self.fd = fd

    def write(self, data: bytes) -> None:
        if self.fd in (1, 2):
            _write_stream(sys.stdout if self.fd == 1 else sys.stderr, data)
        else:
            _write_all(self.fd, data)

    def error(self, error: OSError) -> BaseException:
        if self.fd == 1 and isinstance(error, BrokenPipeError):
            return OutputClosed()
        return super().error(error)


class _Refused(_Sink):
    """An output that cannot be written (an input, a folder, a missing folder): its error is
    raised in its turn, after the outputs before it are in place, as if writing it failed."""

    def __init__(self, path: Path, reason: InputError) -> None:
        super().__init__(path)
        self.reason = reason

    def write(self, data: bytes) -> None:
        raise self.reason

    def finish(self) -> None:
        raise self.reason


def _classify(path: Path) -> tuple[str, Path]:
    """How an output path is written: ``("descriptor", path)``, ``("opened", path)`` (a device,
    FIFO or socket) or ``("replaced", target)`` (a regular file or a new name; ``target`` the
    path with links resolved).  A folder or a path that cannot be looked up (a loop of links)
    is an :class:`InputError`."""
    if _own_descriptor(path) is not None:
        return "descriptor", path
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # a new name (or a link to one); a missing folder fails later
        mode = None
    except OSError as error:
        raise InputError(f"cannot write the output: {error.strerror or error}", path) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError("cannot write the output: it is a folder", path)
    if mode is not None and not stat.S_ISREG(mode):
        return "opened", path
    return "replaced", Path(os.path.realpath(path))


def _sink(path: Path) -> _Sink:
    """The :class:`_Sink` for ``path`` (an :class:`InputError` now if it is an input, a folder
    or in a folder that does not exist)."""
    check_output(path)
    kind, target = _classify(path)
    if kind == "descriptor":
        fd = _own_descriptor(path)
        assert fd is not None
        return _Descriptor(path, fd)
    if kind == "opened":
        return _Opened(path)
    return _Replaced(path, target)


def check_output_early(path: Path | None) -> None:
    """Refuse ``-o`` now (an input, a folder, or in a folder that does not exist) when a command
    writes other files first (``muc``'s report files), so a refused run leaves no file
    behind."""
    if path is None:
        return
    check_output(path)
    kind, target = _classify(path)
    folder = target.parent if str(target.parent) else Path(".")
    if kind == "replaced" and not folder.is_dir():
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


STOP_WAIT = 2.0
"""Seconds a failed or interrupted run waits for the writing thread before removing its
temporary files (a thread blocked opening a FIFO that nobody reads never ends)."""


class OutputFiles:
    """Writes output files, each where its path says (:func:`_classify`, :class:`_Sink`), never
    over an input (:func:`check_output`).  The bytes are written in a background thread while
    the caller makes the next pieces of text (a large report is never held whole).  Leaving the
    ``with`` block waits for the thread; then the first error is an :class:`InputError`, and
    after an error (or an exception in the block: an interrupt, a signal) no file is renamed
    into place and every temporary file is removed."""

    def __init__(self) -> None:
        import queue  # here: a command writing standard output does not import it

        self.pieces: queue.Queue[tuple[_Sink, bytes | FileBytes | None] | None] = queue.Queue(2)
        self.failure: BaseException | None = None
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        self.pending: list[_Sink] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> OutputFiles:
        self.thread.start()
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        try:
            if kind is None:
                self.pieces.put(None)
                self.thread.join()
            else:
                self._stop()
        finally:
            with self.lock:  # a rename in progress ends first; none starts after this
                self.stopped.set()
                pending, self.pending = self.pending, []
            for sink in pending:  # not put in place
                sink.discard()
        if self.failure is not None and kind is None:
            raise self.failure

    def _stop(self) -> None:
        """Tell the thread to stop (without blocking on a full queue) and wait a little."""
        with self.lock:
            self.stopped.set()
        import queue

        with contextlib.suppress(queue.Empty):
            while True:
                self.pieces.get_nowait()
        with contextlib.suppress(queue.Full):
            self.pieces.put_nowait(None)
        self.thread.join(STOP_WAIT)

    def write(self, path: Path, chunks: Iterable[str | bytes | FileBytes]) -> None:
        """Write ``chunks`` (text, or its bytes: :func:`_encoded`, or another file's bytes:
        :meth:`_Sink.copy`) to ``path``.  A path that
        cannot be written (an input, a folder, in a missing folder) fails in its turn, the
        outputs given before it put in place (as they are when writing it fails), and
        ``chunks`` is not read."""
        try:
            sink = _sink(path)
        except InputError as error:
            self.pieces.put((_Refused(path, error), None))
            return
        self.pending.append(sink)
        for chunk in chunks:
            if self.failure is not None:
                break
            self.pieces.put((sink, _encoded(chunk) if isinstance(chunk, str) else chunk))
        self.pieces.put((sink, None))  # put in place

    def _run(self) -> None:
        while (item := self.pieces.get()) is not None:
            sink, data = item
            if self.failure is not None or self.stopped.is_set():
                continue
            try:
                if isinstance(data, bytes):
                    sink.write(data)
                    continue
                if data is not None:
                    sink.copy(data)
                    continue
                with self.lock:
                    if self.stopped.is_set():
                        continue
                    sink.finish()
                    self.pending.remove(sink)
            except OSError as error:
                self.failure = sink.error(error)
            except BaseException as error:  # re-raised by __exit__; the queue is still drained
                self.failure = error


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
    page: Callable[[Result], str] | None = None,
) -> None:
    """Render ``result`` and write it to ``output`` (never an input) or stdout.

    ``page`` renders ``--format html`` (else the plain report page); ``per_doc`` adds the
    per-document rows; ``bootstrap`` adds percentile intervals (:mod:`annoscore.significance`);
    ``strict_input`` refuses (exit 2) a result that needed tolerated input.  JSON and Markdown
    carry the warnings inside; for text and CSV they go to stderr, so the official layout on
    stdout stays byte-for-byte the official script's.
    """
    if output is not None:
        check_output(output)
    elif fmt is OutputFormat.html and is_terminal(sys.stdout):
        raise InputError("--format html writes a page: give -o FILE (e.g. -o report.html)")
    if "annoscore.formats.files" in sys.modules:  # URLs named where their stand-ins are
        from annoscore.formats.files import named_result

        result = named_result(result)
    if strict_input:
        refuse_tolerated(result.warnings)
    if per_doc:
        result = result.shown(documents=True)
    if bootstrap:
        from annoscore.significance import with_intervals

        result = with_intervals(
            result, samples=bootstrap, confidence=confidence, seed=seed, progress=progress
        )
    if fmt is OutputFormat.html and page is not None:
        rendered = page(result)
    elif fmt is OutputFormat.html:
        from annoscore.report.html import render_html

        rendered = render_html(result, command=command_line())
    else:
        rendered = render(result, fmt.value, text)
    write_result(rendered, output)
    if fmt in (OutputFormat.text, OutputFormat.csv):
        for warning in result.warnings:
            tell("warning", str(warning))


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


def write_result(rendered: str, output: Path | None) -> None:
    """Write a command's output to ``output`` (:class:`OutputFiles`) or standard output
    (:func:`write_stdout`), the working indicator cleared first."""
    stop_working_indicator()
    rendered = _named_text(rendered)
    if output is None:
        write_stdout(rendered)
    else:
        write_output(output, rendered)
