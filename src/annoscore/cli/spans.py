"""``annoscore spans GOLD SYSTEM --mode ...``: generic span scoring of brat files or folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import OutputFormat, PerTypeOption, cyclic_gc_paused, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.spans import (
    SpanOptions,
    read_span_documents,
    score_span_documents,
    score_spans,
    span_sides_of,
)

HELP = """Score predicted spans against gold spans (brat .ann files or folders of them, BioC XML
or JSON, PubTator, i2b2 XML, Prodigy or spaCy JSONL, CoNLL BIO: --gold-format, --system-format,
recognised when left out), in one of six modes (--mode).  Matching is one-to-one, optimal
and independent of the input order.
"""

EPILOG = (
    "Examples: annoscore spans gold/ system/ --mode overlap --min-overlap 0.5 --per-type  |  "
    "annoscore spans gold/ system/ --mode semeval --format json  |  "
    "annoscore spans gold.ann system.ann --mode relaxed --tolerance 2 --per-doc"
)


def register(app: typer.Typer) -> None:
    @app.command("spans", help=HELP, epilog=EPILOG)
    @guarded
    @scoring_command
    def spans(
        gold: Annotated[
            Path, typer.Argument(help="Gold file (brat .ann or another format), or a brat folder.")
        ],
        system: Annotated[
            Path,
            typer.Argument(help="System file (brat .ann or another format), or a brat folder."),
        ],
        options: SpanOptions,
        out: Output,
        per_type: PerTypeOption = False,
    ) -> None:
        with cyclic_gc_paused():
            if out.format is not OutputFormat.html:  # cut by --jobs, --dask (annoscore.scale)
                out.emit(score_spans(gold, system, options).shown(types=per_type))
                return
            gold_docs, system_docs, read = read_span_documents(gold, system, options)
            result = score_span_documents(gold_docs, system_docs, read, options)
            # the page's analysis: the documents scored (not read again)
            out.emit(
                result.shown(types=per_type), spans=lambda: span_sides_of(gold_docs, system_docs)
            )
