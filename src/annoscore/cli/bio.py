"""What ``annoscore conlleval`` and ``annoscore seqeval`` share (each command has its own module, so
that neither imports the other's task)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

FILE = Annotated[
    str,
    typer.Argument(
        help="The tag file (- or nothing: standard input): one token per line, the gold tag "
        "then the guessed tag last; or, with SYSTEM, the gold file (tag last).",
        show_default=False,
    ),
]
SYSTEM = Annotated[
    Path | None,
    typer.Argument(
        help="The system's tag file, line for line with FILE (tag last).", dir_okay=False
    ),
]


def tag_input(file: str, system: Path | None) -> tuple[Path, str | None]:
    """FILE's path, and standard input's text when FILE is ``-`` without SYSTEM (the path is then
    ``<stdin>``, which only names it); an fsspec URL is read whole into a local copy
    (:func:`annoscore.formats.files.input_path`)."""
    if file == "-" and system is None:
        from annoscore.formats.files import decode_utf8

        return Path("<stdin>"), decode_utf8(sys.stdin.buffer.read(), Path("<stdin>"))
    if "://" in file:
        from annoscore.formats.files import input_path

        return input_path(file), None
    return Path(file), None
