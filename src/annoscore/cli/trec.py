"""``annoscore trec QRELS RUN``: trec_eval's measures, with its rules and its text layout."""

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
        help="trec_eval's measures of a TREC run against qrels, with its rules (rank by score, "
        "ties by document id descending; judged queries missing from the run ignored unless "
        "-c; ids compared byte for byte) and its text layout (-m MEASURE, -m all_trec, -q).",
        epilog="Example: annoscore trec qrels.txt run.txt -m all_trec -c --format json",
    )
    @guarded
    @scoring_command
    def trec(
        qrels: Annotated[
            Path, typer.Argument(help="qrels: query iteration document relevance", dir_okay=False)
        ],
        run: Annotated[
            Path,
            typer.Argument(
                help="run: query Q0 document rank score tag ('-': standard input)", dir_okay=False
            ),
        ],
        options: TrecOptions,
        out: Output,
        per_query: Annotated[
            bool, typer.Option("-q", help="Per-query lines first, as trec_eval -q (--per-doc).")
        ] = False,
    ) -> None:
        from annoscore.report.trec import render_trec_eval
        from annoscore.tasks.trec import score_trec

        if per_query:
            out = out.replaced(per_doc=True)
        out.emit(score_trec(qrels, run, options), render_trec_eval)
