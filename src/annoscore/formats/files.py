"""Reading text files and folders with errors a user can act on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from annoscore.errors import InputError


@contextmanager
def reading(path: Path) -> Iterator[None]:
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
    with reading(path):
        data = path.read_bytes()
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


def list_folder(folder: Path, suffixes: tuple[str, ...], what: str) -> list[Path]:
    """The files in ``folder`` (not recursive) ending in one of ``suffixes``, sorted by name.

    A missing path, a file where a folder was expected and a folder with no such file are
    :class:`InputError`.
    """
    if not folder.exists():
        raise InputError("no such file or folder", folder)
    if not folder.is_dir():
        raise InputError("expected a folder", folder)
    found = sorted(p for p in folder.iterdir() if p.suffix in suffixes and p.is_file())
    if not found:
        raise InputError(f"the folder has no {what} ({' or '.join(suffixes)} files)", folder)
    return found


def column_lines(
    path: Path, columns: int, names: str, separator: str | None = "\t"
) -> list[tuple[int, list[str]]]:
    """The non-blank lines of a file as ``(line number, fields)``, each with ``columns`` fields.

    ``separator`` is a tab by default; ``None`` splits on any run of whitespace (trec_eval's
    files).  A line with another number of fields is an :class:`InputError` naming file, line,
    the count found and the expected ``names``.  A trailing ``\\r`` is ignored.
    """
    kind = "tab-separated" if separator == "\t" else "whitespace-separated"
    out = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split(separator)
        if len(fields) != columns:
            raise InputError(
                f"expected {columns} {kind} columns ({names}), found {len(fields)}", path, number
            )
        out.append((number, fields))
    return out
