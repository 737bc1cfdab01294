"""``annoscore seqeval``: seqeval's entity scores of BIO-tagged tag sequences."""

from __future__ import annotations

import typer

from annoscore.cli.bio import FILE, SYSTEM, tag_input
from annoscore.cli.common import PerTypeOption, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.seqeval import SeqevalOptions


def register(app: typer.Typer) -> None:
    @app.command(
        "seqeval",
        help="seqeval 1.2.2's entity scores of BIO-tagged tokens: default mode (get_entities) "
        "or strict mode with --scheme; support is the gold count; micro, macro and weighted "
        "averages (JSON: 'seqeval'); ill-formed sequences counted and named, never an error.",
        epilog="Examples: annoscore seqeval tagged.txt --format json  |  annoscore seqeval "
        "gold.conll system.conll --mode strict --scheme iob2  |  annoscore seqeval "
        "gold-tags.json pred-tags.json --mode strict --scheme iobes --per-type",
    )
    @guarded
    @scoring_command
    def seqeval(
        options: SeqevalOptions,
        out: Output,
        file: FILE = "-",
        system: SYSTEM = None,
        per_type: PerTypeOption = False,
    ) -> None:
        from annoscore.tasks.registry import get
        from annoscore.tasks.seqeval import score_seqeval, score_seqeval_file

        path, text = tag_input(file, system)
        if system is not None:
            result = score_seqeval(path, system, options)
        else:
            result = score_seqeval_file(path, options, text)

        # read again only for --format html
        sides = get("seqeval").report_sides(path, system, options, result, text=text)
        out.emit(result.shown(types=per_type) if per_type else result, spans=sides)
