"""``annoscore coref KEY RESPONSE``: the CoNLL coreference metrics (reference scorer v8.01)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.common import OutputFormat, fail, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.coref import CorefOptions

if TYPE_CHECKING:
    from annoscore.report.html_coref import CorefSides

EPILOG = (
    "Examples:\n\n"
    "  annoscore coref key.conll response.conll\n\n"
    "  annoscore coref key.conll response.conll --metric muc,bcub,ceafe --format json\n\n"
    "  annoscore coref key.conll response.conll --metric all --format reference  "
    "(diff with: perl scorer.pl all key.conll response.conll none)"
)


class CorefFormat(str, Enum):
    """The common formats plus ``reference``, the reference scorer's totals layout."""

    text = "text"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    html = "html"
    reference = "reference"


def register(app: typer.Typer) -> None:
    @app.command(
        "coref",
        help=(
            "Score CoNLL-2011/2012 coreference output: MUC, B3, CEAFm, CEAFe, BLANC, LEA, "
            "mention identification and the CoNLL score, exactly as reference scorer v8.01 "
            "(LEA: its LEA branch). KEY and RESPONSE are CoNLL files with '#begin document' "
            "blocks; the coreference column is the last one."
        ),
        epilog=EPILOG,
    )
    @guarded
    @scoring_command
    def coref(
        key: Annotated[Path, typer.Argument(help="The key (gold) CoNLL file.", dir_okay=False)],
        response: Annotated[
            Path, typer.Argument(help="The response (system) CoNLL file.", dir_okay=False)
        ],
        options: CorefOptions,
        out: Output,
        format: Annotated[
            CorefFormat,
            typer.Option(
                "--format",
                "-f",
                help=(
                    "text (a table), json, csv, markdown, html, or reference (the reference "
                    "scorer's totals: n / d and truncated percentages, for diffing)."
                ),
                case_sensitive=False,
            ),
        ] = CorefFormat.text,
    ) -> None:
        from annoscore.report.coref import render_reference, render_table
        from annoscore.tasks.coref import score_coref

        if format is CorefFormat.reference:
            if out.per_doc:
                raise fail(
                    "--per-doc has no effect with --format reference (the reference scorer's "
                    "totals); use text, json, csv or markdown"
                )
            out.emit(score_coref(key, response, options), render_reference)
        else:
            shown = out.replaced(format=OutputFormat(format.value))

            def sides() -> CorefSides:  # read again only for --format html
                from annoscore.report.html_coref import CorefSides
                from annoscore.tasks.coref import coref_partitions

                partitions = coref_partitions(key, response, options)
                return CorefSides(partitions, spans=True, metrics=options.metrics)

            shown.emit(score_coref(key, response, options), render_table, coref=sides)
