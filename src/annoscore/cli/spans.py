"""``annoscore spans GOLD SYSTEM --mode ...``: generic span scoring of brat files or folders."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.common import cyclic_gc_paused, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.spans import SpanOptions, score_spans

if TYPE_CHECKING:
    from annoscore.report.html_spans import SpanSides

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
        per_type: Annotated[
            bool, typer.Option("--per-type", help="Add per-type scores and counts.")
        ] = False,
    ) -> None:
        def sides() -> SpanSides:  # read again only for --format html
            from annoscore.report.html_spans import read_sides

            return read_sides(gold, system, strict_input=options.strict_input)

        def brat(path: Path, given: str | None) -> bool:
            from annoscore.formats.annotations import detect_format

            return (given or detect_format(path)[0]) == "brat"

        # the document viewer reads brat (other formats: the page without it)
        viewer = (
            sides
            if brat(gold, options.gold_format) and brat(system, options.system_format)
            else None
        )
        with cyclic_gc_paused():
            out.emit(score_spans(gold, system, options).shown(types=per_type), spans=viewer)
