"""Writing a command's output: standard output and output files, never over an input.

Every write is checked: a short write is continued, an error raised, never a truncated output
with exit 0 (:func:`write_stdout`).  Output files are written in a background thread, each put
in place when the run succeeds (:class:`OutputFiles`).  The inputs of the running command are
recorded (by :func:`annoscore.cli.common.guarded`, more with :func:`add_inputs`) and no output
is written over one (:func:`check_output`).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import select
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.scale.spool import FileBytes

_inputs: contextvars.ContextVar[tuple[Path, ...]] = contextvars.ContextVar(
    "annoscore_inputs", default=()
)


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


STDOUT_PIECE_CHARS = 1 << 20
"""Characters of the pieces of a text given in pieces that standard output takes in one write
(:func:`write_stdout`)."""


def write_stdout(chunks: str | Iterable[str]) -> None:
    """Write text to standard output, checking every write: the reader closing the pipe is
    :class:`OutputClosed` (a quiet end), any other error (a full disk) an :class:`InputError`
    "cannot write standard output: ..." (exit 2), never a truncated output with exit 0.  Text
    given in pieces is written :data:`STDOUT_PIECE_CHARS` at a time, a smaller text at once, as
    one string is: a reader that stops early (``| head -3``) gets a small output whole, the run
    ending as it did before it was made in pieces (exit 0, its warnings printed after it)."""
    try:
        for chunk in [chunks] if isinstance(chunks, str) else _gathered(chunks):
            _write_stream(sys.stdout, _encoded(chunk))
    except BrokenPipeError:
        raise OutputClosed from None
    except OSError as error:
        raise InputError(f"cannot write standard output: {error.strerror or error}") from None


def _gathered(pieces: Iterable[str]) -> Iterator[str]:
    """``pieces`` joined into texts of at least :data:`STDOUT_PIECE_CHARS` characters (the last
    one shorter), in order.

    >>> list(_gathered(["a", "b", "c"]))
    ['abc']
    """
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= STDOUT_PIECE_CHARS:
            yield "".join(held)
            held.clear()
            size = 0
    if held:
        yield "".join(held)


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


HANDED_BYTES = 32 << 20
"""Bytes of an output file (:class:`_Replaced`) written between two hand-overs to the disk
(:meth:`_Replaced._hand_over`): a smaller output is never handed over before it is renamed."""


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
        # the bytes handed to the disk so far (:meth:`_hand_over`); none for a new file
        self.handed = 0 if os.path.exists(target) else None

    def write(self, data: bytes) -> None:
        self.handle.write(data)
        self._hand_over()

    def _hand_over(self) -> None:
        """Once :data:`HANDED_BYTES` more are written, have the kernel start writing them to
        the disk (``posix_fadvise``'s ``DONTNEED``: their write-back begun, not waited for,
        and the pages it has written already dropped from the cache; no byte of the file
        changes), when it replaces a file.  Without it the whole output was written back when
        renamed over the older one (ext4's ``auto_da_alloc``: CodiEsp D's layout of 10^6
        documents, 222 MB, 0.2-0.9 s at the end of the run, the process waiting); so, as it is
        written, while the rest is made.  A new file is left to the kernel (renamed, it is
        written back later, by the kernel's threads).  Advice only: where it cannot be given,
        nothing."""
        written = self.handle.tell()
        if self.handed is None or written - self.handed < HANDED_BYTES:
            return
        self.handle.flush()
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: no posix_fadvise
            os.posix_fadvise(
                self.handle.fileno(), self.handed, written - self.handed, os.POSIX_FADV_DONTNEED
            )
        self.handed = written

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
        self._hand_over()

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


def write_output(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, in order) to ``path`` (one file of :class:`OutputFiles`)."""
    with OutputFiles() as files:
        files.write(path, [text] if isinstance(text, str) else text)


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
