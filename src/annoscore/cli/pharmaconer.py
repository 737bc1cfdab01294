"""``annoscore pharmaconer ner|indexing GOLD SYSTEM``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from annoscore.cli.common import (
    BootstrapOption,
    ConfidenceOption,
    FormatOption,
    OutputFormat,
    OutputOption,
    PerDocOption,
    SeedOption,
    StrictInputOption,
    choice,
    emit,
    guarded,
)
from annoscore.report.pharmaconer import render_codalab, render_official
from annoscore.result import Result
from annoscore.tasks.pharmaconer import NER_MODES, Undefined, score_indexing, score_ner

Gold = Annotated[Path, typer.Argument(help="Gold .ann/.tsv file, or a folder of them.")]
System = Annotated[Path, typer.Argument(help="System file or folder (same kind as GOLD).")]
Codalab = Annotated[
    bool,
    typer.Option(
        "--codalab",
        help="Test-phase CodaLab rules (UNCLEAR removed) and its scores.txt layout.",
    ),
]
Missing = Annotated[
    str,
    typer.Option(
        "--missing-docs",
        help="official: as the script (plain: a gold document without a system file counts "
        "its items as missed, a system document without gold is left out; --codalab: both "
        "left out); ignore: both left out; count: both count all their items as missed or "
        "spurious.",
        **choice(("official", "ignore", "count")),
    ),
]
Verbose = Annotated[
    bool, typer.Option("--verbose", "-v", help="Add the per-document blocks to the text report.")
]
UndefinedOption = Annotated[
    Undefined,
    typer.Option(
        "--undefined",
        help="A score with a zero denominator reads 'zero' (official: 0.0) or 'null'.",
        case_sensitive=False,
    ),
]

pharmaconer_app = typer.Typer(
    help="PharmaCoNER (BioNLP OST 2019): sub-track 1 NER offsets, sub-track 2 concept indexing.",
    no_args_is_help=True,
)


def _emit(
    result: Result,
    fmt: OutputFormat,
    output: Path | None,
    codalab: bool,
    verbose: bool,
    **switches: Any,
) -> None:  # switches: per_doc, bootstrap, confidence, seed, strict_input
    def text(r: Result) -> str:
        return render_codalab(r) if codalab else render_official(r, verbose)

    emit(result, fmt, output, text, **switches)


@pharmaconer_app.command(
    "ner",
    epilog="Example: annoscore pharmaconer ner gold/subtrack1 system/subtrack1 --per-type",
)
@guarded
def ner(
    gold: Gold,
    system: System,
    codalab: Codalab = False,
    missing_docs: Missing = "official",
    per_type: Annotated[
        bool, typer.Option("--per-type", help="Add per-type scores and macro averages.")
    ] = False,
    per_doc: PerDocOption = False,
    verbose: Verbose = False,
    undefined: UndefinedOption = Undefined.zero,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="strict (official): same type and offsets; exact: same offsets, any type; "
            "overlap: same type, overlapping; relaxed: same type, start and end within "
            "--tolerance.",
            **choice(NER_MODES),
        ),
    ] = "strict",
    min_overlap: Annotated[
        float,
        typer.Option(
            "--min-overlap",
            min=0.0,
            max=1.0,
            help="overlap: shared fraction of the gold span (other modes: exit 2).",
        ),
    ] = 0.0,
    tolerance: Annotated[
        int,
        typer.Option(
            "--tolerance",
            min=0,
            help="relaxed: characters off at each end (other modes: exit 2, no effect).",
        ),
    ] = 0,
    strict_input: StrictInputOption = False,
    fmt: FormatOption = OutputFormat.text,
    output: OutputOption = None,
    bootstrap: BootstrapOption = 0,
    confidence: ConfidenceOption = 0.95,
    seed: SeedOption = 12345,
) -> None:
    """Sub-track 1: exact (type, start, end) entity matching over brat files, micro P/R/F1."""
    result = score_ner(
        gold,
        system,
        codalab=codalab,
        missing_docs=missing_docs,
        undefined=undefined,
        mode=mode,
        min_overlap=min_overlap,
        tolerance=tolerance,
        strict_input=strict_input,
    )
    _emit(
        result.shown(types=per_type, averages=per_type),
        fmt,
        output,
        codalab,
        verbose,
        per_doc=per_doc,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
        strict_input=strict_input,
    )


@pharmaconer_app.command(
    "indexing",
    epilog="Example: annoscore pharmaconer indexing ref/subtask2 res/subtask2 --codalab "
    "--gold-ann ref/subtask1",
)
@guarded
def indexing(
    gold: Gold,
    system: System,
    codalab: Codalab = False,
    gold_ann: Annotated[
        Path | None,
        typer.Option(
            "--gold-ann",
            help="With --codalab: the gold sub-track 1 .ann folder linking codes to mentions "
            "(without --codalab: exit 2, it would have no effect).",
        ),
    ] = None,
    missing_docs: Missing = "official",
    per_doc: PerDocOption = False,
    verbose: Verbose = False,
    undefined: UndefinedOption = Undefined.zero,
    strict_input: StrictInputOption = False,
    fmt: FormatOption = OutputFormat.text,
    output: OutputOption = None,
    bootstrap: BootstrapOption = 0,
    confidence: ConfidenceOption = 0.95,
    seed: SeedOption = 12345,
) -> None:
    """Sub-track 2: the set of SNOMED-CT codes per document (TSV), micro P/R/F1."""
    result = score_indexing(
        gold,
        system,
        codalab=codalab,
        gold_ann=gold_ann,
        missing_docs=missing_docs,
        undefined=undefined,
        strict_input=strict_input,
    )
    _emit(
        result,
        fmt,
        output,
        codalab,
        verbose,
        per_doc=per_doc,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
        strict_input=strict_input,
    )


def register(app: typer.Typer) -> None:
    app.add_typer(pharmaconer_app, name="pharmaconer")
