"""The ``annoscore`` command: one sub-command per task family, each a thin shell over a task.

Each module in this package has ``register(app)``; this module builds the app and adds them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from annoscore import __version__

app = typer.Typer(
    name="annoscore",
    help=(
        "Score NLP annotation output against a gold standard, reproducing the official numbers "
        "of PharmaCoNER, CodiEsp, the MUC scorer (TE/TR/ST) and the CoNLL coreference reference "
        "scorer, plus generic span scoring and trec_eval-style MAP.\n\n"
        "Every command takes --format text|json|csv|markdown and -o FILE. "
        "Run 'annoscore demo' to see every task on built-in sample data."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"annoscore {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """annoscore: the official numbers, explained, fast."""


def _register_all() -> None:
    from annoscore.cli import codiesp, coref, demo, muc, pharmaconer, spans, trec

    for module in (pharmaconer, coref, spans, muc, codiesp, trec, demo):
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point."""
    app()
