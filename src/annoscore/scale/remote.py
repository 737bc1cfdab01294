"""Bytes of an fsspec URL read on demand, so that cuts are planned without fetching a file.

:class:`RemoteBytes` gives the slices and searches the cutters use on a mapped file, reading
growing blocks through fsspec; :func:`_url_size` stats a URL, :func:`_is_folder` says whether a
path or URL is a folder and :func:`_where` names it for a worker.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _url_size(url: str) -> os.stat_result | None:
    """A stand-in for the ``os.stat`` of the file at ``url`` (its size; a regular file or a
    folder), ``None`` when it cannot be read (the one run then says why)."""
    import stat

    from annoscore.formats.files import url_fs

    fs, where = url_fs(url)
    try:
        info = fs.info(where)
    except (OSError, ValueError):
        return None
    kind = stat.S_IFREG if info.get("type") == "file" else stat.S_IFDIR
    return os.stat_result((kind, 0, 0, 0, 0, 0, int(info.get("size") or 0), 0, 0, 0))


def _is_folder(path: Path | str) -> bool:
    """Whether ``path`` (a URL or a URL's stand-in: through fsspec) is a folder."""
    from annoscore.formats.files import url_fs, url_of

    url = url_of(path)
    if url is None:
        return Path(path).is_dir()
    fs, where = url_fs(url)
    try:
        return bool(fs.isdir(where))
    except OSError:
        return False


def _where(path: Path | str) -> str:
    """The URL ``path`` stands for, or ``path`` itself (what a worker is sent)."""
    from annoscore.formats.files import url_of

    return url_of(path) or str(path)


class RemoteBytes:
    """A file read through fsspec as :func:`split_lines` reads a mapped file (its length,
    slices and ``find``): only the bytes searched are read, in windows that grow from 4 KiB to
    1 MiB, none of them kept.

    >>> import io
    >>> data = RemoteBytes(io.BytesIO(b"a\\tx\\nb\\ty\\n"), 8)
    >>> len(data), data.find(b"\\n", 4), data[2:3], data.find(b"z")
    (8, 7, b'x', -1)
    >>> data.rfind(b"\\n"), data.rfind(b"\\n", 0, 7), data.rfind(b"a", 1)
    (7, 3, -1)
    """

    def __init__(self, handle: Any, size: int) -> None:
        self.handle, self.size = handle, size

    @classmethod
    @contextlib.contextmanager
    def opened(cls, url: str, size: int) -> Iterator[RemoteBytes]:
        from annoscore.formats.files import reading, url_fs

        fs, where = url_fs(url)
        with reading(url), fs.open(where, "rb") as handle:
            yield cls(handle, size)

    def __len__(self) -> int:
        return self.size

    def _read(self, start: int, stop: int) -> bytes:
        if stop <= start:
            return b""
        self.handle.seek(start)
        return bytes(self.handle.read(stop - start))

    def __getitem__(self, index: slice) -> bytes:
        start, stop, _ = index.indices(self.size)
        return self._read(start, stop)

    def find(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        end = self.size if end is None else min(end, self.size)
        at, window = max(0, start), 1 << 12
        while at < end:
            stop = min(end, at + window)
            found = self._read(at, min(end, stop + len(sub) - 1)).find(sub)
            if found >= 0:
                return at + found
            at, window = stop, min(window * 2, 1 << 20)
        return -1

    def rfind(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        """The last ``sub`` wholly in ``[start, end)``, read backwards in growing windows."""
        end = self.size if end is None else min(end, self.size)
        start, high, window = max(0, start), end, 1 << 12
        while high > start:
            low = max(start, high - window)
            found = self._read(low, min(end, high + len(sub) - 1)).rfind(sub)
            if found >= 0:
                return low + found
            high, window = low, min(window * 2, 1 << 20)
        return -1
