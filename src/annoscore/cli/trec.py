"""``annoscore trec QRELS RUN``: trec_eval-style MAP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
    emit,
    guarded,
)


def register(app: typer.Typer) -> None:
    @app.command(
        "trec",
        help="MAP of a TREC run against qrels with trec_eval's rules (rank by score, ties by "
        "document id descending; judged queries missing from the run ignored unless -c; ids "
        "compared byte for byte).",
        epilog="Example: annoscore trec qrels.txt run.txt -c --format json",
    )
    @guarded
    def trec(
        qrels: Annotated[
            Path, typer.Argument(help="qrels: query iteration document relevance", dir_okay=False)
        ],
        run: Annotated[
            Path, typer.Argument(help="run: query Q0 document rank score tag", dir_okay=False)
        ],
        complete: Annotated[
            bool,
            typer.Option("-c", "--complete", help="Judged queries missing from the run count 0."),
        ] = False,
        relevance_level: Annotated[
            int,
            typer.Option(
                "-l",
                "--relevance-level",
                help="Minimum relevance of a judged document that counts (1); unjudged "
                "documents, and judgements below 0, never count.",
            ),
        ] = 1,
        max_docs: Annotated[
            int | None,
            typer.Option(
                "-M",
                "--max-docs",
                min=1,
                help="Only the first N ranked documents of each query count (trec_eval -M; "
                "default: all).",
            ),
        ] = None,
        strict_input: StrictInputOption = False,
        per_doc: PerDocOption = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        from annoscore.report.codiesp import render_trec_eval
        from annoscore.tasks.trec import score_trec

        result = score_trec(
            qrels, run, complete=complete, relevance_level=relevance_level, max_docs=max_docs
        )
        emit(
            result,
            fmt,
            output,
            render_trec_eval,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )
