"""Reading text files and folders with errors a user can act on, by the same rules everywhere.

Rules every reader follows (issue: nothing lost, nothing silently changed):

- Text is UTF-8.  A byte-order mark at the start is removed and reported
  (:func:`without_bom`, the ``formats.bom`` warning); a reader never lets it rename the first
  document or query.
- Lines end at ``\n`` only (:func:`split_lines`); a trailing ``\r`` is dropped.  ``str.splitlines``
  is never used: it also breaks at U+2028, U+0085, form feeds and other characters that are
  ordinary text in these files, and then every line number after them is wrong.
- Numbers are ASCII digits (``isascii() and isdigit()``): Python's ``int()`` accepts
  Arabic-Indic digits, ``1_0`` and surrounding spaces, none of which any official script
  reads as a number.
- A NUL byte is an error naming the line (:func:`check_no_nul`).

Gold and system may be fsspec URLs (``s3://``, ``gs://``, ``file://``, ``memory://``): a URL
is given to the readers as a local *stand-in* path (:func:`stand_in`) that holds nothing until
a run that reads the whole input fetches the URL's bytes there (:func:`fetched`); a chunk reads
its own byte range (:attr:`Cut.url`) or its own files (:func:`local_copy`) through fsspec; the
stand-in's name in an error or a warning is replaced by the URL (:func:`named`).  Every other
input a user names (a list of codes, a configuration and the files it names, the folders and
runs of ``compare``, ``report``, ``validate``, ``collect``, ``codabench`` and ``convert``) takes
a URL the same way, read whole into a local copy by one helper (:func:`input_path`,
:func:`filled`) and removed at the end of the command or call (:func:`url_inputs`).  Outputs are
local files: a URL given for one is refused (:func:`refuse_url_output`).  fsspec is imported
only when a URL is read (:func:`url_fs`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from annoscore.errors import InputError
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

if TYPE_CHECKING:
    from annoscore.result import Result


@contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Turn the operating system's errors while reading ``path`` into :class:`InputError`.

    >>> with reading(Path("no/such/file.tsv")), open("no/such/file.tsv", "rb") as handle:
    ...     data = handle.read()
    Traceback (most recent call last):
    annoscore.errors.InputError: no/such/file.tsv: no such file
    """
    try:
        yield
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a folder, expected a file", path) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", path) from None


def read_text(path: Path) -> str:
    """The file's text, decoded as UTF-8 with line endings kept as they are (offsets count them).

    A missing file, a folder, an unreadable file and bytes that are not UTF-8 are
    :class:`InputError` (the last one names the line and byte).
    """
    cut = cut_of(path)
    if cut is not None:  # a chunk of the file (annoscore.scale)
        return decode_utf8(read_cut(path, cut), path)
    with reading(path):
        data = path.read_bytes()
    return decode_utf8(data, path)


def decode_utf8(data: bytes, path: Path) -> str:
    """``data`` (the bytes of ``path``) decoded as UTF-8; bytes that are not UTF-8 are an
    :class:`InputError` naming the line and byte (:func:`read_text` for bytes already read)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "convert the file to UTF-8",
            path,
            line,
        ) from None


BOM = "\ufeff"


def without_bom(text: str) -> tuple[str, bool]:
    """``text`` without a leading byte-order mark, and whether there was one.

    >>> without_bom("\ufeffS1\ti10")
    ('S1\ti10', True)
    """
    return (text[1:], True) if text.startswith(BOM) else (text, False)


def bom_warning(paths: list[str]) -> ScoreWarning:
    """The warning for files whose byte-order mark was removed (a few named)."""
    return ScoreWarning(
        "formats.bom",
        "{count} file(s) began with a UTF-8 byte-order mark, removed before reading",
        len(paths),
        tuple(paths[:5]),
        tolerated=True,
    )


def bom_warnings(*paths: Path | None) -> list[ScoreWarning]:
    """The byte-order-mark warning for the given files (a folder: its files) that start with
    one, for readers whose parser accepts the mark itself (JSON, XML, SGML); ``[]`` if none.

    Only the first three bytes of each file are read, and only of regular files: a pipe or FIFO
    (``<(zcat gold.json.gz)``) can be read once, by its reader, so its mark goes unreported.
    """
    found = []
    for path in paths:
        if path is None:
            continue
        files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if not file.is_file():
                continue
            with contextlib.suppress(OSError), file.open("rb") as handle:
                if handle.read(3) == b"\xef\xbb\xbf":
                    found.append(str(file))
    return [bom_warning(found)] if found else []


def split_lines(text: str) -> list[str]:
    r"""The lines of ``text``, split at ``\n`` only, a trailing ``\r`` dropped from each.

    >>> split_lines("a\u2028b\r\nc\x0cd")
    ['a\u2028b', 'c\x0cd']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def check_no_nul(text: str, path: Path) -> None:
    """:class:`InputError` naming the line of the first NUL character, if there is one."""
    at = text.find("\x00")
    if at >= 0:
        raise InputError("NUL byte in the text (binary data?)", path, text.count("\n", 0, at) + 1)


def is_xml_character(code: int) -> bool:
    """Whether the code point ``code`` is a character XML 1.0 allows (its ``Char`` production).

    >>> [is_xml_character(c) for c in (0x9, 0x1F, 0xFFFE, 0x10FFFF)]
    [True, False, False, True]
    """
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


_SELECTED: ContextVar[tuple[Mapping[str, frozenset[str]], bool] | None] = ContextVar(
    "annoscore_selected_files", default=None
)


@contextmanager
def selected_files(selection: Mapping[str, Iterable[str]], listed: bool = False) -> Iterator[None]:
    """Inside the block, :func:`folder_files` of a folder named in ``selection`` (its absolute
    path) sees only the entries named there: a chunk of a folder's documents, read by the same
    reader with the folder's own paths (:mod:`annoscore.scale`).  ``listed``: every name is a
    regular file of the folder (or a link to one), as a listing of it just found, so the
    folder is not listed again (a name gone since is then read, and its reader says why)."""
    chosen = {os.path.abspath(k): frozenset(v) for k, v in selection.items()}
    token = _SELECTED.set((chosen, listed))
    try:
        yield
    finally:
        _SELECTED.reset(token)


def selected_names(folder: Path | str) -> frozenset[str] | None:
    """The names of ``folder`` its readers see inside :func:`selected_files` (``None``: every
    entry of it)."""
    selection = _SELECTED.get()
    return None if selection is None else selection[0].get(os.path.abspath(folder))


@dataclass(slots=True)
class Cut:
    """A byte range ``[start, stop)`` of a file, whole lines, that a reader reads instead of
    the whole file (a chunk of a single-file corpus, :mod:`annoscore.scale`); ``seen``
    receives the document ids the reader found in it, first-seen order."""

    start: int
    stop: int
    seen: list[object] = field(default_factory=list)
    exact: bool = True
    """Cleared by a reader whose reading of the range may differ from its reading of the whole
    file for a reason the ids do not show (:func:`not_exact`)."""
    line: int = 0
    """How many lines of the file come before ``start`` (:func:`first_line`)."""
    url: str | None = None
    """The fsspec URL whose bytes the range is (``None``: the file itself)."""
    head: bytes = b""
    """Bytes read before the range (a file's own start, the context that makes its chunk of
    elements a file of its own: a BioC collection's opening; :mod:`annoscore.scale.cut_xml`)."""
    tail: bytes = b""
    """Bytes read after the range (the file's own end: the collection's closing)."""
    check: Callable[[bytes], bool] | None = None
    """What the range's bytes must pass for its reading to be the whole file's (otherwise
    :attr:`exact` is cleared)."""
    documents: int = 0
    """How many documents a reader that names documents by their position (``-DOCSTART-``
    lines without a name) finds before the range: it names the range's as the whole file does."""


_CUTS: ContextVar[Mapping[str, Cut] | None] = ContextVar("annoscore_cut_files", default=None)


@contextmanager
def cut_files(cuts: Mapping[str, Cut]) -> Iterator[None]:
    """Inside the block, a reader that honours cuts (:func:`cut_of`) reads only the range of a
    file named in ``cuts`` (by absolute path)."""
    token = _CUTS.set({os.path.abspath(k): v for k, v in cuts.items()})
    try:
        yield
    finally:
        _CUTS.reset(token)


def cut_of(path: Path) -> Cut | None:
    """The range of ``path`` to read inside :func:`cut_files`, or ``None`` (the whole file)."""
    cuts = _CUTS.get()
    return None if cuts is None else cuts.get(os.path.abspath(path))


def first_line(path: Path | str) -> int:
    """The number in the whole file of the first line a reader reads of ``path``: 1, or the
    line at which its cut begins (a reader that numbers lines from it names the lines of a
    chunk as a reading of the whole file does)."""
    cut = cut_of(Path(path))
    return 1 if cut is None else cut.line + 1


def read_cut(path: Path, cut: Cut) -> bytes:
    """The bytes of ``cut`` of ``path``, read with ``pread`` (nothing else of the file); of its
    URL through fsspec when it has one; between its :attr:`~Cut.head` and :attr:`~Cut.tail`,
    checked by its :attr:`~Cut.check`."""
    if cut.url is not None:
        fs, where = url_fs(cut.url)
        with reading(cut.url):
            data = bytes(fs.cat_file(where, cut.start, cut.stop))
    else:
        parts: list[bytes] = []
        with reading(path):
            handle = os.open(path, os.O_RDONLY)
            try:
                at = cut.start
                while at < cut.stop:
                    part = os.pread(handle, min(cut.stop - at, 1 << 24), at)
                    if not part:
                        break
                    parts.append(part)
                    at += len(part)
            finally:
                os.close(handle)
        data = b"".join(parts)
    if cut.check is not None and not cut.check(data):
        cut.exact = False
    return cut.head + data + cut.tail if cut.head or cut.tail else data


def not_exact(path: Path) -> None:
    """Say that the reading of the cut of ``path`` may differ from a reading of the whole
    file (a property of the whole file decides how it is read): the chunks are then not used,
    and the corpus is scored in one run (nothing outside a cut)."""
    cut = cut_of(path)
    if cut is not None:
        cut.exact = False


_ONCE: ContextVar[dict[tuple[object, ...], Any] | None] = ContextVar(
    "annoscore_read_once", default=None
)
_T = TypeVar("_T")


@contextmanager
def read_once() -> Iterator[None]:
    """Inside the block (the chunks of one cut run, :mod:`annoscore.scale`), what is read by
    :func:`once` is read once in each process: every chunk reads the same unchanged file (a
    list of valid codes), not each chunk again."""
    token = _ONCE.set({})
    try:
        yield
    finally:
        _ONCE.reset(token)


def reading_once() -> bool:
    """Whether this is inside :func:`read_once` (the chunks of one cut run)."""
    return _ONCE.get() is not None


def once(key: tuple[object, ...], read: Callable[[], _T]) -> _T:
    """``read()``, or inside :func:`read_once` the value it gave for ``key`` before; an error
    is raised each time.  Its users never change what the value says: a value read from a file
    stays as read; a cache (a dict or list that its one user fills, keyed by everything its
    entries depend on) may only grow by what would be computed anew, so no chunk can tell
    whether another ran before it in the same process (MUC's
    :func:`~annoscore.formats.muc_config.kept_per_process` and parsed SGML attributes)."""
    memo = _ONCE.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    return memo[key]  # type: ignore[no-any-return]


def saw(path: Path, ids: Iterable[object]) -> None:
    """Record the document ids a reader found in a cut of ``path`` (nothing outside a cut)."""
    cut = cut_of(path)
    if cut is not None:
        cut.seen.extend(ids)


def name_stem(name: str) -> str:
    """``os.path.splitext(name)[0]`` of a file's name (without folder), in a third of its time:
    the name before its last dot, unless only dots come before it (no extension then).

    >>> [name_stem(n) for n in ("a.ann", "a.b.ann", ".ann", "..ann", ".a.ann", "a", "a.", "...")]
    ['a', 'a.b', '.ann', '..ann', '.a', 'a', 'a', '...']
    """
    head = name.rpartition(".")[0]
    return head if head.strip(".") else name


def folder_files(
    folder: Path, suffix: str = ".ann", every_file: bool = False, texts: set[str] | None = None
) -> tuple[list[str], ScoreWarning | None]:
    """The files of ``folder`` to read (those ending in ``suffix``, or every regular file),
    sorted by name, and a warning counting the entries skipped that look like them:
    sub-folders, FIFOs and other special files, links that lead nowhere or loop, and names
    ending in ``suffix`` in another case (``.ANN``).  Nothing is opened but the folder.
    ``texts``, if given, receives the paths of the folder's ``.txt`` files."""
    selection, listed = _SELECTED.get() or ({}, False)
    names = selection.get(os.path.abspath(folder)) if selection else None
    if names is not None and listed:
        # its entries are known to be regular files or links to them (selected_files): the
        # same answer, made of the names alone, without listing the folder or asking any
        # file's kind
        listing = _regular_files(os.fspath(folder), list(names), suffix, every_file, texts)
        return _found(*listing, suffix)
    regular: list[str] = []  # the names of regular files, or of links to them
    skipped: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError as error:
        raise InputError(f"cannot read the folder: {error.strerror}", folder) from None
    if names is not None:
        entries = [entry for entry in entries if entry.name in names]
    for entry in entries:
        name = entry.name
        wanted = name.endswith(suffix)
        looks = wanted or every_file or name.lower().endswith(suffix)
        try:
            # the kind the folder listing gives (no system call), except for links
            is_file = entry.is_file()
            is_dir = not is_file and entry.is_dir()
            if entry.is_symlink():
                os.stat(entry.path)  # a link that leads nowhere or loops raises here
        except OSError:
            if looks:
                skipped.append(f"{entry.path} (a link that leads nowhere)")
            continue
        if is_file:
            regular.append(name)
        elif is_dir:
            skipped.append(f"{entry.path} (a sub-folder: folders are not read recursively)")
        elif looks:
            skipped.append(f"{entry.path} (not a regular file)")
    chosen, skipped_files = _regular_files(os.fspath(folder), regular, suffix, every_file, texts)
    return _found(chosen, skipped + skipped_files, suffix)


def _regular_files(
    folder: str, names: list[str], suffix: str, every_file: bool, texts: set[str] | None
) -> tuple[list[str], list[str]]:
    """What :func:`folder_files` does with the regular files ``names`` of ``folder``, in
    passes over the names (one chunk of a folder lists thousands): the paths chosen (those
    ending in ``suffix``, or all with ``every_file``) and those skipped with a note (only
    their case differs), unsorted; the ``.txt`` files noted in ``texts``."""
    within = os.path.join(folder, "")  # a name has no separator: joined as os.path.join does
    if texts is not None:
        texts.update([within + name for name in names if name.endswith(".txt")])
    if every_file:
        return [within + name for name in names], []
    chosen = [within + name for name in names if name.endswith(suffix)]
    skipped = []
    if len(chosen) < len(names):  # names ending in the suffix in another case: skipped
        skipped = [
            f"{within + name} (not '{suffix}': the extension is case-sensitive)"
            for name in names
            if not name.endswith(suffix) and name.lower().endswith(suffix)
        ]
    return chosen, skipped


def _found(
    chosen: list[str], skipped: list[str], suffix: str
) -> tuple[list[str], ScoreWarning | None]:
    """:func:`folder_files`'s answer: the files ``chosen``, sorted, and a warning counting the
    entries ``skipped``."""
    chosen.sort()
    warning = None
    if skipped:
        skipped.sort()
        warning = ScoreWarning(
            "formats.skipped-entries",
            "{count} folder entr(ies) were not read: sub-folders, special files (FIFOs), "
            f"links that lead nowhere or loop, names ending in {suffix.upper()}",
            len(skipped),
            tuple(skipped[:EXAMPLES_SHOWN]),
        )
    return chosen, warning


def list_folder_with_warnings(
    folder: Path, suffixes: tuple[str, ...], what: str
) -> tuple[list[Path], list[ScoreWarning]]:
    """The files in ``folder`` ending in one of ``suffixes``, sorted by name, and the warnings
    of :func:`folder_files` for each suffix.  A missing path, a file where a folder was
    expected and a folder with no such file are :class:`InputError`."""
    if not folder.exists():
        raise InputError("no such file or folder", folder)
    if not folder.is_dir():
        raise InputError("expected a folder", folder)
    found: list[Path] = []
    warnings: list[ScoreWarning] = []
    for suffix in suffixes:
        names, skipped = folder_files(folder, suffix)
        found += [Path(name) for name in names]
        warnings += [skipped] if skipped is not None else []
    if not found:
        raise InputError(f"the folder has no {what} ({' or '.join(suffixes)} files)", folder)
    return sorted(found), warnings


# --- fsspec URLs -----------------------------------------------------------------------------

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")

EXTRA = "pip install 'annoscore[dask]'"


def is_url(path: object) -> bool:
    """Whether ``path`` is a string with a URL scheme (``memory://x``; a ``Path`` never is).

    >>> is_url("s3://bucket/gold.tsv"), is_url("gold.tsv"), is_url(Path("file:///gold"))
    (True, False, False)
    """
    return isinstance(path, str) and _URL.match(path) is not None


def url_fs(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` and the path in it, fsspec imported here; without the
    extra, or for a scheme fsspec cannot read, an :class:`InputError` naming the URL.  s3 and gs
    take their credentials from fsspec's own configuration (s3fs, gcsfs: environment variables,
    ``~/.aws``, ``~/.config/fsspec``), as any fsspec program does."""
    try:
        fsspec: Any = importlib.import_module("fsspec")
    except ImportError:
        raise InputError(f"reading a URL needs the optional extra: {EXTRA}", url) from None
    try:
        fs, where = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as error:  # an unknown scheme, its package missing
        raise InputError(f"cannot read the URL: {' '.join(str(error).split())}", url) from None
    return fs, str(where)


_STAND_INS: dict[str, str] = {}
"""Local stand-in paths (:func:`stand_in`) and the URLs they stand for, in this process."""


def stand_in(url: str, register: bool = True) -> Path:
    """A new local path standing for ``url`` (its last name kept, in a temporary folder not yet
    made): readers are given it, :func:`fetched` fills it, :func:`named` names the URL (unless
    not ``register``: a chunk's, read by its cut, whose words are not shown)."""
    name = url.rstrip("/").rpartition("/")[2] or "input"
    folder = tempfile.mkdtemp(prefix="annoscore-url-", dir=os.path.realpath(tempfile.gettempdir()))
    os.rmdir(folder)  # made by fetched() when it is read whole
    local = os.path.join(folder, name)
    if register:
        _STAND_INS[local] = url.rstrip("/") if is_url(url.rstrip("/")) else url
    return Path(local)


def forget(*paths: str | os.PathLike[str]) -> None:
    """Forget the stand-ins among ``paths`` (their run is over)."""
    for path in paths:
        _STAND_INS.pop(os.fspath(path), None)


def given(path: str | os.PathLike[str]) -> Path:
    """``path`` as a ``Path``; a URL as its :func:`stand_in` (a ``Path`` would lose its
    ``//``)."""
    return stand_in(path) if isinstance(path, str) and is_url(path) else Path(path)


def url_of(path: object) -> str | None:
    """The URL ``path`` is or stands for (``None``: a local path)."""
    if is_url(path):
        return str(path)
    return _STAND_INS.get(os.fspath(path)) if isinstance(path, str | os.PathLike) else None


def url_inputs_given() -> bool:
    """Whether a URL is read in this process (a stand-in is known: :func:`named` has work)."""
    return bool(_STAND_INS)


def named(text: str, names: Mapping[str, str] | None = None) -> str:
    """``text`` with each local stand-in (``names``: these local paths) replaced by its URL."""
    for local, url in list((_STAND_INS if names is None else names).items()):
        if local in text:
            text = text.replace(local, url)
    return text


def named_error(error: InputError, names: Mapping[str, str] | None = None) -> InputError:
    """``error`` naming URLs where it names their stand-ins (:func:`named`)."""
    path = None if error.path is None else named(error.path, names)
    return InputError(named(error.message, names), path, error.line, document=error.document)


def named_warning(warning: ScoreWarning, names: Mapping[str, str] | None = None) -> ScoreWarning:
    """``warning`` naming URLs where it names their stand-ins (:func:`named`)."""
    from dataclasses import replace

    examples = tuple(named(e, names) for e in warning.examples)
    return replace(warning, message=named(warning.message, names), examples=examples)


def named_items(item: Any, names: Mapping[str, str]) -> Any:
    """``item`` (what a chunk keeps for the pooling of its warnings: strings, warnings, and
    tuples, lists, dicts, records and dataclasses of them) with its strings :func:`named` by
    ``names`` (a chunk's stand-ins for URLs) and its warnings by :func:`named_warning`; any
    other object as it is.

    >>> names = {"/tmp/x/g.tsv": "s3://b/g.tsv"}
    >>> warning = ScoreWarning("w", "read /tmp/x/g.tsv", 2, ("/tmp/x/g.tsv:3",))
    >>> kept = named_items(("/tmp/x/g.tsv", [warning], {"n": "/tmp/x/g.tsv:1"}, 4), names)
    >>> kept[0], kept[1][0].message, kept[1][0].examples, kept[2], kept[3]
    ('s3://b/g.tsv', 'read s3://b/g.tsv', ('s3://b/g.tsv:3',), {'n': 's3://b/g.tsv:1'}, 4)
    """
    import dataclasses

    from annoscore.records import Record

    if isinstance(item, str):
        return named(item, names)
    if isinstance(item, ScoreWarning):
        return named_warning(item, names)
    fields: Any
    if type(item) in (tuple, list):
        fields = [named_items(x, names) for x in item]
        same = all(a is b for a, b in zip(fields, item, strict=True))
        return item if same else type(item)(fields)
    if type(item) is dict:
        return {named_items(k, names): named_items(v, names) for k, v in item.items()}
    if isinstance(item, Record) or (isinstance(item, tuple) and hasattr(item, "_fields")):
        # a record or a named tuple: made again of its fields in order (a record's pickling)
        values = item._fields() if isinstance(item, Record) else tuple(item)
        fields = [named_items(x, names) for x in values]
        same = all(a is b for a, b in zip(fields, values, strict=True))
        return item if same else type(item)(*fields)
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        fields = {
            f.name: named_items(getattr(item, f.name), names)
            for f in dataclasses.fields(item)
            if f.init
        }
        if all(v is getattr(item, k) for k, v in fields.items()):
            return item
        return dataclasses.replace(item, **fields)
    return item


def named_result(result: Result) -> Result:
    """``result`` whose warnings name URLs where they name their stand-ins (:func:`named`)."""
    if not _STAND_INS:
        return result
    from dataclasses import replace

    warnings = tuple(named_warning(w) for w in result.warnings)
    return result if warnings == result.warnings else replace(result, warnings=warnings)


def _copy(fs: Any, where: str, local: str, names: Iterable[str] | None = None) -> None:
    """The file or folder ``where`` of ``fs`` copied to ``local`` (a folder: the files
    ``names`` in it, or everything in it); nothing when it does not exist (a reader then says
    so, naming the URL)."""
    if not fs.exists(where):
        return
    if not fs.isdir(where):
        fs.get_file(where, local)
        return
    os.makedirs(local, exist_ok=True)
    if names is not None:
        for name in names:
            fs.get_file(f"{where.rstrip('/')}/{name}", os.path.join(local, name))
        return
    root = where.rstrip("/")
    for found, info in sorted(fs.find(where, withdirs=True, detail=True).items()):
        target = os.path.join(local, *found[len(root) :].strip("/").split("/"))
        if info.get("type") == "directory":
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fs.get_file(found, target)


@contextmanager
def fetched(*paths: str | os.PathLike[str] | None) -> Iterator[None]:
    """Inside the block, each stand-in among ``paths`` (:func:`stand_in`) holds its URL's bytes
    (a file, or a folder with everything in it), read through fsspec and removed at the end;
    an :class:`InputError` raised inside names the URLs, not the stand-ins."""
    made: list[str] = []
    try:
        for path in paths:
            local = None if path is None else os.fspath(path)
            url = None if local is None else _STAND_INS.get(local)
            if local is None or url is None or os.path.lexists(os.path.dirname(local)):
                continue
            fs, where = url_fs(url)
            os.makedirs(os.path.dirname(local))
            made.append(os.path.dirname(local))
            with reading(url):
                _copy(fs, where, local)
        yield
    except InputError as error:
        raise named_error(error) from None
    finally:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


_SCOPE: ContextVar[list[str] | None] = ContextVar("annoscore_url_inputs", default=None)


@contextmanager
def url_inputs() -> Iterator[None]:
    """Inside the block (a command, a call of :func:`annoscore.score`), the URLs read whole by
    :func:`filled` and :func:`input_path` stay in their local copies; at the end the copies are
    removed and their stand-ins forgotten.  A copy made outside such a block is removed when
    the process ends."""
    made: list[str] = []
    token = _SCOPE.set(made)
    try:
        yield
    finally:
        _SCOPE.reset(token)
        _remove(made)


def _remove(made: list[str]) -> None:
    for local in made:
        shutil.rmtree(os.path.dirname(local), ignore_errors=True)
        _STAND_INS.pop(local, None)
    made.clear()


def filled(path: Path) -> Path:
    """``path``; a stand-in (:func:`stand_in`) first filled with its URL's bytes (a file, or a
    folder with everything in it), read whole through fsspec now: an input every process reads
    whole (a file an option names, a command's input that is not cut).  The copy lives until
    the end of the enclosing :func:`url_inputs` block.  A URL that cannot be read is an
    :class:`InputError` naming it."""
    local = os.fspath(path)
    url = _STAND_INS.get(local)
    if url is None or os.path.lexists(os.path.dirname(local)):
        return path
    fs, where = url_fs(url)
    os.makedirs(os.path.dirname(local))
    scope = _SCOPE.get()
    if scope is None:  # no command or call around: removed at exit
        scope = []
        import atexit

        atexit.register(_remove, scope)
    scope.append(local)
    with reading(url):
        _copy(fs, where, local)
    return path


def input_path(value: str | os.PathLike[str]) -> Path:
    """The local path a reader is given for an input a user named, read whole: a ``Path``; an
    fsspec URL (``s3://``, ``memory://``, ...) read now into a local copy that names the URL in
    errors and warnings (:func:`given`, :func:`filled`).  The one way every command and option
    that names an input file takes a URL; fsspec is imported only for a URL.

    >>> input_path("codes.tsv")
    PosixPath('codes.tsv')
    """
    return filled(given(value))


def refuse_url_output(path: str | os.PathLike[str]) -> None:
    """:class:`InputError` for an output path that is a URL (or a stand-in for one): outputs are
    local files, so that the rules every output keeps (never over an input, never over
    ``/dev/null`` or a special file) can be checked."""
    url = url_of(path)
    if url is not None:
        raise InputError(
            "cannot write to a URL: outputs are local files (write one and copy it, e.g. "
            "with fsspec or the cloud's own tool)",
            url,
        )


@contextmanager
def local_copy(url: str, names: Iterable[str]) -> Iterator[tuple[Path, dict[str, str]]]:
    """The files ``names`` of the folder ``url`` copied into a new temporary folder of the same
    name (a chunk's own files, :mod:`annoscore.scale`), removed at the end; with the mapping
    of :func:`named` from that folder to ``url``."""
    fs, where = url_fs(url)
    base = tempfile.mkdtemp(prefix="annoscore-url-", dir=os.path.realpath(tempfile.gettempdir()))
    local = os.path.join(base, url.rstrip("/").rpartition("/")[2] or "input")
    try:
        with reading(url):
            _copy(fs, where, local, names)
        yield Path(local), {local: url.rstrip("/")}
    finally:
        shutil.rmtree(base, ignore_errors=True)
