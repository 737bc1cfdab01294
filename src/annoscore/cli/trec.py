"""``annoscore trec QRELS RUN``: trec_eval-style MAP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.trec import TrecOptions


def register(app: typer.Typer) -> None:
    @app.command(
        "trec",
        help="MAP of a TREC run against qrels with trec_eval's rules (rank by score, ties by "
        "document id descending; judged queries missing from the run ignored unless -c; ids "
        "compared byte for byte).",
        epilog="Example: annoscore trec qrels.txt run.txt -c --format json",
    )
    @guarded
    @scoring_command
    def trec(
        qrels: Annotated[
            Path, typer.Argument(help="qrels: query iteration document relevance", dir_okay=False)
        ],
        run: Annotated[
            Path, typer.Argument(help="run: query Q0 document rank score tag", dir_okay=False)
        ],
        options: TrecOptions,
        out: Output,
    ) -> None:
        from annoscore.report.trec import render_trec_eval
        from annoscore.tasks.trec import score_trec

        out.emit(score_trec(qrels, run, options), render_trec_eval)
