"""``annoscore codiesp D|P|X``: CodiEsp (CLEF eHealth 2020) ICD-10 coding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.codiesp import ExplainableOptions, RankedOptions

HELP = (
    "CodiEsp (CLEF eHealth 2020): D and P ranked codes (MAP and P/R/F1), X explainable "
    "coding (codes with text references)."
)

Gold = Annotated[Path, typer.Option("--gold", "-g", help="Gold TSV (no header).", dir_okay=False)]
Pred = Annotated[
    Path,
    typer.Option(
        "--pred", "-p", help="Predictions TSV (no header; line order is the rank).", dir_okay=False
    ),
]

RANKED_HELP = (
    "CodiEsp-{subtask}: MAP of the ranked codes (official MAP script) and micro P/R/F1 "
    "(official F1 script)."
)
RANKED_EPILOG = (
    "Example: annoscore codiesp {subtask} --gold gs_{subtask}.tsv --pred pred_{subtask}.tsv "
    "--codes codes-{subtask}.tsv --format json"
)
X_HELP = "CodiEsp-X: micro P/R/F1 of codes whose predicted position matches a reference."
X_EPILOG = (
    "Example: annoscore codiesp X --gold gs_X.tsv --pred pred_X.tsv --codes-d codes-D.tsv "
    "--codes-p codes-P.tsv --tolerance-mode symmetric"
)


def _ranked(task: str) -> Callable[..., None]:
    @guarded
    @scoring_command
    def command(gold: Gold, pred: Pred, options: RankedOptions, out: Output) -> None:
        from annoscore.report.codiesp import ranked_pieces
        from annoscore.tasks.registry import get

        out.emit(get(task).score_function()(gold, pred, options), ranked_pieces)

    return command


@guarded
@scoring_command
def _explainable(gold: Gold, pred: Pred, options: ExplainableOptions, out: Output) -> None:
    from annoscore.report.codiesp import explainable_pieces
    from annoscore.tasks.codiesp import score_codiesp_x
    from annoscore.tasks.registry import get

    result = score_codiesp_x(gold, pred, options)
    sides = get("codiesp-x").report_sides(gold, pred, options, result)  # only for a page
    out.emit(result, explainable_pieces, sides)


def register(app: typer.Typer) -> None:
    """Add ``annoscore codiesp D|P|X`` to ``app``: a new group each time, so a process that runs
    the command line many times (a test suite, a notebook) does not pile up sub-commands."""
    codiesp_app = typer.Typer(help=HELP, no_args_is_help=True)
    for name in ("D", "P"):
        command = _ranked(f"codiesp-{name.lower()}")
        text, epilog = RANKED_HELP.format(subtask=name), RANKED_EPILOG.format(subtask=name)
        codiesp_app.command(name, help=text, epilog=epilog)(command)
        codiesp_app.command(name.lower(), help=text, hidden=True)(command)
    codiesp_app.command("X", help=X_HELP, epilog=X_EPILOG)(_explainable)
    codiesp_app.command("x", help=X_HELP, hidden=True)(_explainable)
    app.add_typer(codiesp_app, name="codiesp")
