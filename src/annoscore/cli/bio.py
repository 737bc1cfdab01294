"""What ``annoscore conlleval`` and ``annoscore seqeval`` share (each command has its own module, so
that neither imports the other's task)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from annoscore.report.html_span_data import SpanSides
    from annoscore.result import Result

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


def tag_file(file: str) -> Path:
    """The path of FILE (not ``-``): an fsspec URL read whole into a local copy
    (:func:`annoscore.formats.files.input_path`)."""
    if "://" in file:
        from annoscore.formats.files import input_path

        return input_path(file)
    return Path(file)


def stdin_text() -> str:
    from annoscore.formats.files import decode_utf8

    return decode_utf8(sys.stdin.buffer.read(), Path("<stdin>"))


def tag_report_sides(
    result: Result,
    documents: tuple[Sequence[str], Sequence[int]],
    items: tuple[Sequence[str] | None, Sequence[bool], Sequence[int]],
    paths: tuple[str, str],
    chunks: tuple[tuple[Any, Any, list[str]], tuple[Any, Any, list[str]]],
    what: str,
) -> SpanSides:
    """The documents of a tag task's HTML report (:func:`annoscore.report.html_tags.
    tag_sides`): ``chunks``, each side's (first item, last item, type), in the ``documents``
    (names, first items) of the ``items`` (tokens, boundary flags, lines).  Where the chunks
    both sides hold with one span and type are not the task's correct ones per type
    (conlleval on ill-formed tags), the page says so."""
    from annoscore.report.html_tags import exact_matches, tag_sides

    (names, starts), (tokens, boundary, lines) = documents, items
    sides = tag_sides(names, starts, tokens, boundary, lines, paths, chunks)
    correct = {
        kind: int(tp) for kind, unit in result.types.items() if (tp := unit.counts.get("tp"))
    }
    same = exact_matches(sides)
    if same == correct:
        return sides
    note = (
        f"Here the chunks both sides hold with one span and type ({sum(same.values())}) are "
        f"not {what}'s correct ones ({sum(correct.values())}) type by type: the categories "
        f"below are by span and type, the scores {what}'s."
    )
    return dataclasses.replace(sides, note=f"{sides.note} {note}")
