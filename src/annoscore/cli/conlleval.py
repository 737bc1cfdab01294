"""``annoscore conlleval``: conlleval.pl byte for byte on BIO-tagged CoNLL files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.bio import FILE, SYSTEM, stdin_text, tag_file, tag_report_sides
from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.conlleval import ConllevalOptions

if TYPE_CHECKING:
    from annoscore.report.html_span_data import SpanSides
    from annoscore.result import Result


def conlleval_sides(
    path: Path | None,
    system: Path | None,
    options: ConllevalOptions,
    result: Result,
    text: str | None = None,
) -> SpanSides:
    """The chunks of the HTML report's span analysis, read again as the task read ``path``
    (with ``system``, or alone) or ``text`` (standard input)."""
    from annoscore.metrics.conlleval import conlleval_chunks
    from annoscore.tasks.conlleval import conlleval_tags

    columns, gold, guess, paths = conlleval_tags(path, system, options, text)
    gold_chunks, guess_chunks = (
        conlleval_chunks(tags, columns.boundary, raw=options.raw, outside=options.outside_tag)
        for tags in (gold, guess)
    )
    names = [d.name for d in columns.documents] or [Path(columns.path).name]
    starts = [d.start for d in columns.documents] or [0]
    items = (columns.tokens, columns.boundary, columns.line)
    chunks = (gold_chunks, guess_chunks)
    return tag_report_sides(result, (names, starts), items, paths, chunks, "conlleval")


def register(app: typer.Typer) -> None:
    @app.command(
        "conlleval",
        help="conlleval.pl (2004-01-26) byte for byte: chunk precision, recall and FB1 and "
        "token accuracy of a CoNLL tag file, with every quirk of the script (-DOCSTART- is a "
        "token, -d is a regular expression, S- is no prefix it knows, E- then B- of one type is "
        "one phrase); a warning where its number surprises (CRLF, bare labels, IOBES).",
        epilog="Examples: annoscore conlleval tagged.txt  |  annoscore conlleval -l tagged.txt  "
        "|  annoscore conlleval -r -d '\\t' tagged.tsv  |  annoscore conlleval gold.conll "
        "system.conll --format json --per-doc",
    )
    @guarded
    @scoring_command
    def conlleval(
        options: ConllevalOptions,
        out: Output,
        file: FILE = "-",
        system: SYSTEM = None,
        latex: Annotated[
            bool, typer.Option("-l", "--latex", help="conlleval -l: the LaTeX table.")
        ] = False,
    ) -> None:
        from annoscore.report.conlleval import render_conlleval, render_conlleval_latex
        from annoscore.tasks.conlleval import (
            score_conlleval,
            score_conlleval_file,
            score_conlleval_text,
        )

        text = path = None
        if system is not None:
            path = tag_file(file)
            result = score_conlleval(path, system, options)
        elif file == "-":
            text = stdin_text()
            result = score_conlleval_text(text, "<stdin>", options)
        else:
            path = tag_file(file)
            result = score_conlleval_file(path, options)

        def sides() -> SpanSides:  # read again only for --format html
            return conlleval_sides(path, system, options, result, text)

        render = render_conlleval_latex if latex else render_conlleval
        out.emit(result.shown(types=True), render, sides)
