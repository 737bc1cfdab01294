"""``annoscore demo``: every task family on the sample data shipped inside the package.

Each entry of :data:`DEMOS` is a title and the command line (without ``annoscore``) to run;
``{samples}`` is replaced by the sample folder.  A task family adds its own line here.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from annoscore.samples import SAMPLES

DEMOS: list[tuple[str, str]] = [
    (
        "PharmaCoNER sub-track 1 (NER offsets), official layout",
        "pharmaconer ner {samples}/pharmaconer/gold/subtrack1/sample "
        "{samples}/pharmaconer/system/subtrack1/sample",
    ),
    (
        "PharmaCoNER sub-track 2 (concept indexing), official layout",
        "pharmaconer indexing {samples}/pharmaconer/gold/subtrack2/sample "
        "{samples}/pharmaconer/system/subtrack2/sample",
    ),
    (
        "Generic span scoring, SemEval-2013 schemes, on the PharmaCoNER sample",
        "spans {samples}/pharmaconer/gold/subtrack1/sample "
        "{samples}/pharmaconer/system/subtrack1/sample --mode semeval --per-type",
    ),
    ("CoNLL coreference", "coref {samples}/coref/key.conll {samples}/coref/response.conll"),
    (
        "MUC template element (TE), totals page",
        "muc {samples}/muc/te.config --totals-only --no-files",
    ),
    (
        "CodiEsp-D (ranked ICD-10 codes: MAP and P/R/F1), official layout",
        "codiesp D --gold {samples}/codiesp/gs_D.tsv --pred {samples}/codiesp/pred_D.tsv "
        "--codes {samples}/codiesp/codes-D.tsv",
    ),
]


def register(app: typer.Typer) -> None:
    @app.command(
        "demo",
        help="Run every task family on the built-in sample data and print the results.",
        epilog="Example: annoscore demo --only pharmaconer",
    )
    def demo(
        only: Annotated[
            str | None,
            typer.Option(help="Run only the demos whose command starts with this word."),
        ] = None,
    ) -> None:
        command = typer.main.get_command(app)
        ran = 0
        for title, line in DEMOS:
            args = line.format(samples=SAMPLES).split()
            if only and args[0] != only:
                continue
            print(f"=== {title}\n$ annoscore {line.format(samples='<samples>')}", flush=True)
            try:
                status = command.main(args=args, prog_name="annoscore", standalone_mode=False)
            except typer.Exit as done:
                status = done.exit_code
            if status:
                print(f"annoscore: error: demo {title!r} failed", file=sys.stderr)
                raise typer.Exit(status if isinstance(status, int) else 1)
            sys.stdout.flush()
            print()
            ran += 1
        if ran == 0:
            print(f"annoscore: error: no demo matches {only!r}", file=sys.stderr)
            raise typer.Exit(2)
