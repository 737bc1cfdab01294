"""Errors a user can cause with their data or their command line.

Everything a user can put in a file ends as an :class:`InputError` (the command line maps it to
exit status 2 and a one-line message); anything else is a bug in annoscore.
"""

from __future__ import annotations

from os import PathLike, fspath


class InputError(Exception):
    """A problem with user input: a file, a line in it, and what is wrong.

    ``str(error)`` reads ``path:line: message`` (or ``path: document D: message`` when a document
    is named), the form compilers use, so editors can jump to the place.
    """

    def __init__(
        self,
        message: str,
        path: str | PathLike[str] | None = None,
        line: int | None = None,
        *,
        document: str | None = None,
    ) -> None:
        self.message = message
        self.path = fspath(path) if path is not None else None
        self.line = line
        self.document = document
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path if self.line is None else f"{self.path}:{self.line}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.document is not None:
            where.append(f"document {self.document}")
        return ": ".join([*where, self.message])
