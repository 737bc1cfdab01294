"""``annoscore spans GOLD SYSTEM --mode ...``: generic span scoring of brat files or folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.align.span_modes import CORPUS_MODES, DUPLICATE_POLICIES, OVERLAP_BASES
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
    cyclic_gc_paused,
    emit,
    guarded,
)

HELP = """Score predicted spans against gold spans (brat .ann files, or folders of them).

Modes: strict (same fragments and type), exact (same fragments, any type), overlap (same type,
shared characters; --min-overlap), relaxed (same type, start and end each within --tolerance),
token (whitespace tokens of the .txt), semeval (SemEval-2013 strict/exact/partial/type with
COR/INC/PAR/MIS/SPU).  Matching is one-to-one, optimal and independent of the input order.
"""

EPILOG = (
    "Examples: annoscore spans gold/ system/ --mode overlap --min-overlap 0.5 --per-type  |  "
    "annoscore spans gold/ system/ --mode semeval --format json  |  "
    "annoscore spans gold.ann system.ann --mode relaxed --tolerance 2 --per-doc"
)


def register(app: typer.Typer) -> None:
    @app.command("spans", help=HELP, epilog=EPILOG)
    @guarded
    def spans(
        gold: Annotated[Path, typer.Argument(help="Gold brat .ann file, or a folder of them.")],
        system: Annotated[Path, typer.Argument(help="System brat .ann file, or a folder of them.")],
        mode: Annotated[
            str, typer.Option("--mode", "-m", help="How spans match.", **choice(CORPUS_MODES))
        ] = "strict",
        min_overlap: Annotated[
            float,
            typer.Option(
                "--min-overlap",
                min=0.0,
                max=1.0,
                help="overlap/semeval: the shared characters must be at least this fraction "
                "(0..1) of the --overlap-of length; any shared character if 0 (other modes: "
                "exit 2).",
            ),
        ] = 0.0,
        overlap_of: Annotated[
            str,
            typer.Option(
                "--overlap-of",
                "--overlap-basis",
                help="What --min-overlap is a fraction of: the gold span, the predicted one, "
                "the shorter, the longer, or their union (Jaccard); --overlap-basis is its "
                "Python name (overlap_basis).",
                **choice(OVERLAP_BASES),
            ),
        ] = "gold",
        tolerance: Annotated[
            int,
            typer.Option(
                "--tolerance",
                min=0,
                help="relaxed: characters start and end may each be off (other modes: exit 2, "
                "it would have no effect).",
            ),
        ] = 0,
        strict_input: StrictInputOption = False,
        per_type: Annotated[
            bool, typer.Option("--per-type", help="Add per-type scores and counts.")
        ] = False,
        per_doc: PerDocOption = False,
        missing_docs: Annotated[
            str,
            typer.Option(
                "--missing-docs",
                help="count: a document on one side only is scored against nothing (its "
                "mentions are missed or spurious); ignore: score only documents on both sides.",
                **choice(("count", "ignore")),
            ),
        ] = "count",
        duplicates: Annotated[
            str,
            typer.Option(
                "--duplicates",
                help="count: identical mentions (same span and type) each count; "
                "collapse: keep one.",
                **choice(DUPLICATE_POLICIES),
            ),
        ] = "count",
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        from annoscore.tasks.spans import score_span_files

        with cyclic_gc_paused():
            result = score_span_files(
                gold,
                system,
                mode=mode,  # type: ignore[arg-type]
                min_overlap=min_overlap,
                overlap_basis=overlap_of,  # type: ignore[arg-type]
                tolerance=tolerance,
                missing_docs=missing_docs,
                duplicates=duplicates,  # type: ignore[arg-type]
                strict_input=strict_input,
            )
            emit(
                result.shown(types=per_type),
                fmt,
                output,
                per_doc=per_doc,
                bootstrap=bootstrap,
                confidence=confidence,
                seed=seed,
                strict_input=strict_input,
            )
