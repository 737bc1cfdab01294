"""``annoscore conlleval`` and ``annoscore seqeval``: entity scores of BIO-tagged CoNLL files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.conlleval import ConllevalOptions
from annoscore.tasks.seqeval import SeqevalOptions

_FILE = Annotated[
    str,
    typer.Argument(
        help="The tag file (- or nothing: standard input): one token per line, the gold tag "
        "then the guessed tag last; or, with SYSTEM, the gold file (tag last).",
        show_default=False,
    ),
]
_SYSTEM = Annotated[
    Path | None,
    typer.Argument(
        help="The system's tag file, line for line with FILE (tag last).", dir_okay=False
    ),
]


def _stdin_text() -> str:
    from annoscore.formats.files import decode_utf8

    return decode_utf8(sys.stdin.buffer.read(), Path("<stdin>"))


def register(app: typer.Typer) -> None:
    @app.command(
        "conlleval",
        help="conlleval.pl (2004-01-26) byte for byte: chunk precision, recall and FB1 and "
        "token accuracy of a CoNLL tag file, with every quirk of the script (-DOCSTART- is a "
        "token, -d is a regular expression, S- is no prefix it knows, E- then B- of one type is "
        "one phrase); a warning where its number surprises (CRLF, bare labels, IOBES).",
        epilog="Examples: annoscore conlleval tagged.txt  |  annoscore conlleval -l tagged.txt  "
        "|  annoscore conlleval -r -d '\\t' tagged.tsv  |  annoscore conlleval gold.conll "
        "system.conll --format json --per-doc",
    )
    @guarded
    @scoring_command
    def conlleval(
        options: ConllevalOptions,
        out: Output,
        file: _FILE = "-",
        system: _SYSTEM = None,
        latex: Annotated[
            bool, typer.Option("-l", "--latex", help="conlleval -l: the LaTeX table.")
        ] = False,
    ) -> None:
        from annoscore.report.conlleval import render_conlleval, render_conlleval_latex
        from annoscore.tasks.conlleval import (
            score_conlleval,
            score_conlleval_file,
            score_conlleval_text,
        )

        if system is not None:
            result = score_conlleval(Path(file), system, options)
        elif file == "-":
            result = score_conlleval_text(_stdin_text(), "<stdin>", options)
        else:
            result = score_conlleval_file(Path(file), options)
        out.emit(result.shown(types=True), render_conlleval_latex if latex else render_conlleval)

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
        file: _FILE = "-",
        system: _SYSTEM = None,
        per_type: Annotated[
            bool, typer.Option("--per-type", help="Add per-type scores and counts.")
        ] = False,
    ) -> None:
        from annoscore.tasks.seqeval import score_seqeval, score_seqeval_file

        if system is not None:
            result = score_seqeval(Path(file), system, options)
        elif file == "-":
            import tempfile

            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "stdin.txt"
                path.write_text(_stdin_text(), encoding="utf-8")
                result = score_seqeval_file(path, options)
        else:
            result = score_seqeval_file(Path(file), options)
        out.emit(result.shown(types=per_type) if per_type else result)
