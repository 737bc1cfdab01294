"""``annoscore spans GOLD SYSTEM --mode ...``: generic span scoring of brat files or folders."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from annoscore.align.documents import MissingDocs
from annoscore.cli.common import (
    FormatOption,
    OutputFormat,
    OutputOption,
    PerDocOption,
    emit,
    guarded,
)


class Mode(str, Enum):
    strict = "strict"
    exact = "exact"
    overlap = "overlap"
    relaxed = "relaxed"
    token = "token"
    semeval = "semeval"


class Basis(str, Enum):
    gold = "gold"
    predicted = "predicted"
    shorter = "shorter"
    longer = "longer"
    union = "union"


class DuplicatesPolicy(Enum):
    count = "count"
    collapse = "collapse"


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
            Mode, typer.Option("--mode", "-m", help="How spans match.", case_sensitive=False)
        ] = Mode.strict,
        min_overlap: Annotated[
            float,
            typer.Option(
                "--min-overlap",
                min=0.0,
                max=1.0,
                help="overlap/semeval: the shared characters must be at least this fraction "
                "(0..1) of the --overlap-of length; any shared character if 0.",
            ),
        ] = 0.0,
        overlap_of: Annotated[
            Basis,
            typer.Option(
                "--overlap-of",
                help="What --min-overlap is a fraction of: the gold span, the predicted one, "
                "the shorter, the longer, or their union (Jaccard).",
                case_sensitive=False,
            ),
        ] = Basis.gold,
        tolerance: Annotated[
            int,
            typer.Option(
                "--tolerance",
                min=0,
                help="relaxed: characters start and end may each be off.",
            ),
        ] = 0,
        per_type: Annotated[
            bool, typer.Option("--per-type", help="Add per-type scores and counts.")
        ] = False,
        per_doc: PerDocOption = False,
        missing_docs: Annotated[
            MissingDocs,
            typer.Option(
                "--missing-docs",
                help="count: a document on one side only is scored against nothing (its "
                "mentions are missed or spurious); ignore: score only documents on both sides.",
                case_sensitive=False,
            ),
        ] = MissingDocs.count,
        duplicates: Annotated[
            DuplicatesPolicy,
            typer.Option(
                "--duplicates",
                help="count: identical mentions (same span and type) each count; "
                "collapse: keep one.",
                case_sensitive=False,
            ),
        ] = DuplicatesPolicy.count,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
    ) -> None:
        from annoscore.formats.brat import read_brat
        from annoscore.tasks.spans import score_spans

        gold_docs = read_brat(gold)
        system_docs = read_brat(system)
        if gold.is_file() and system.is_file():  # two files: one document, whatever their names
            system_docs = {next(iter(gold_docs)): next(iter(system_docs.values()))}
        result = score_spans(
            gold_docs,
            system_docs,
            mode=mode.value,
            min_overlap=min_overlap,
            overlap_basis=overlap_of.value,
            tolerance=tolerance,
            per_doc=per_doc,
            per_type=per_type,
            missing_docs=missing_docs,
            duplicates=duplicates.value,
        )
        emit(result, fmt, output)
