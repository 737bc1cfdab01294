"""``annoscore coref KEY RESPONSE``: the CoNLL coreference metrics (reference scorer v8.01)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import (
    BootstrapOption,
    ConfidenceOption,
    OutputFormat,
    OutputOption,
    PerDocOption,
    SeedOption,
    StrictInputOption,
    emit,
    fail,
    guarded,
)

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
    def coref(
        key: Annotated[Path, typer.Argument(help="The key (gold) CoNLL file.", dir_okay=False)],
        response: Annotated[
            Path, typer.Argument(help="The response (system) CoNLL file.", dir_okay=False)
        ],
        metric: Annotated[
            list[str] | None,
            typer.Option(
                "--metric",
                "--metrics",
                "-m",
                help=(
                    "muc, bcub, ceafm, ceafe, blanc, lea, conll (= muc+bcub+ceafe) or all "
                    "(default); repeat the option or separate with ',' or '+' (--metrics: the "
                    "Python name, metrics)."
                ),
            ),
        ] = None,
        remove_singletons: Annotated[
            bool,
            typer.Option(
                "--remove-singletons",
                help="Drop one-mention entities from key and response first (coval semantics).",
            ),
        ] = False,
        strict_input: StrictInputOption = False,
        per_doc: PerDocOption = False,
        fmt: Annotated[
            CorefFormat,
            typer.Option(
                "--format",
                "-f",
                help=(
                    "text (a table), json, csv, markdown, or reference (the reference scorer's "
                    "totals: n / d and truncated percentages, for diffing)."
                ),
                case_sensitive=False,
            ),
        ] = CorefFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        from annoscore.report.coref import render_reference, render_table
        from annoscore.tasks.coref import parse_metrics, score_coref

        reference = fmt is CorefFormat.reference
        if reference and per_doc:
            raise fail(
                "--per-doc has no effect with --format reference (the reference scorer's totals); "
                "use text, json, csv or markdown"
            )
        try:
            metrics = parse_metrics(metric or ["all"])
        except ValueError as error:
            raise fail(str(error)) from None
        result = score_coref(key, response, metrics=metrics, remove_singletons=remove_singletons)
        emit(
            result,
            OutputFormat.text if reference else OutputFormat(fmt.value),
            output,
            render_reference if reference else render_table,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )
