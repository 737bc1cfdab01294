"""``annoscore conlleval``: conlleval.pl byte for byte on BIO-tagged CoNLL files."""

from __future__ import annotations

from typing import Annotated

import typer

from annoscore.cli.bio import FILE, SYSTEM, tag_input
from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.conlleval import ConllevalOptions


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
        from annoscore.tasks.registry import get

        path, text = tag_input(file, system)
        if system is not None:
            result = score_conlleval(path, system, options)
        elif text is not None:
            result = score_conlleval_text(text, str(path), options)
        else:
            result = score_conlleval_file(path, options)

        # read again only for --format html
        sides = get("conlleval").report_sides(path, system, options, result, text=text)
        render = render_conlleval_latex if latex else render_conlleval
        out.emit(result.shown(types=True), render, sides)
