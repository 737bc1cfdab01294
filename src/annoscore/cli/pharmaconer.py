"""``annoscore pharmaconer ner|indexing GOLD SYSTEM``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.common import OutputFormat, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.report.pharmaconer import render_codalab, render_official
from annoscore.result import Result
from annoscore.tasks.pharmaconer import (
    IndexingOptions,
    NerOptions,
    score_pharmaconer_indexing,
    score_pharmaconer_ner,
)

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides

Gold = Annotated[Path, typer.Argument(help="Gold .ann/.tsv file, or a folder of them.")]
System = Annotated[Path, typer.Argument(help="System file or folder (same kind as GOLD).")]
Verbose = Annotated[
    bool, typer.Option("--verbose", "-v", help="Add the per-document blocks to the text report.")
]

pharmaconer_app = typer.Typer(
    help="PharmaCoNER (BioNLP OST 2019): sub-track 1 NER offsets, sub-track 2 concept indexing.",
    no_args_is_help=True,
)


def _emit(
    out: Output,
    result: Result,
    codalab: bool,
    verbose: bool,
    spans: Callable[[], SpanSides] | None = None,
) -> None:
    """``result`` in the layout of the script it follows: the CodaLab ``scores.txt`` or the
    plain script's report (``verbose``: with its per-document blocks); ``spans``: the
    documents for the HTML report's viewer."""
    if codalab:
        out.emit(result, render_codalab, spans)
    else:
        out.emit(result, lambda shown: render_official(shown, verbose), spans)


@pharmaconer_app.command(
    "ner", epilog="Example: annoscore pharmaconer ner gold/subtrack1 system/subtrack1 --per-type"
)
@guarded
@scoring_command
def ner(
    gold: Gold,
    system: System,
    options: NerOptions,
    out: Output,
    per_type: Annotated[
        bool, typer.Option("--per-type", help="Add per-type scores and macro averages.")
    ] = False,
    verbose: Verbose = False,
) -> None:
    """Sub-track 1: exact (type, start, end) entity matching over brat files, micro P/R/F1."""
    from annoscore.tasks.registry import get

    task = get("pharmaconer-ner")
    result = score_pharmaconer_ner(gold, system, options)
    sides = task.report_sides(gold, system, options, result)  # for a page
    full = per_type or out.format is OutputFormat.html  # the page holds the --per-type content
    shown = result.shown(types=full, averages=full and task.averages_per_type)
    _emit(out, shown, options.codalab, verbose, sides)


@pharmaconer_app.command(
    "indexing",
    epilog="Example: annoscore pharmaconer indexing ref/subtask2 res/subtask2 --codalab "
    "--gold-ann ref/subtask1",
)
@guarded
@scoring_command
def indexing(
    gold: Gold, system: System, options: IndexingOptions, out: Output, verbose: Verbose = False
) -> None:
    """Sub-track 2: the set of SNOMED-CT codes per document (TSV), micro P/R/F1."""
    _emit(out, score_pharmaconer_indexing(gold, system, options), options.codalab, verbose)


def register(app: typer.Typer) -> None:
    app.add_typer(pharmaconer_app, name="pharmaconer")
