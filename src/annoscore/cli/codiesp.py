"""``annoscore codiesp D|P|X``: CodiEsp (CLEF eHealth 2020) ICD-10 coding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.codiesp import ExplainableOptions, RankedOptions

if TYPE_CHECKING:
    from annoscore.code_lists import CodeReference
    from annoscore.report.html_span_data import SpanSides

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
        from annoscore.report.codiesp import render_ranked
        from annoscore.tasks.registry import get

        out.emit(get(task).score_function()(gold, pred, options), render_ranked)

    return command


@guarded
@scoring_command
def _explainable(gold: Gold, pred: Pred, options: ExplainableOptions, out: Output) -> None:
    from annoscore.report.codiesp import render_explainable
    from annoscore.tasks.codiesp import score_codiesp_x

    def sides() -> SpanSides:  # read again only for --format html
        return codiesp_x_sides(gold, pred, options)

    out.emit(score_codiesp_x(gold, pred, options), render_explainable, sides)


X_NOTE = (
    "CodiEsp-X counts (document, code) pairs: a gold code is found when a prediction of that "
    "code has a position matching one of its references (--tolerance, --tolerance-mode), "
    "however many references it has. The analysis below is of the references themselves, "
    "typed by their label (DIAGNOSTICO, PROCEDIMIENTO): correct means the same position "
    "(first start, last end) and label, codes are not compared, so its counts are not the "
    "scores' tp, fp and fn. The files hold no text: the viewer shows offsets; the strings "
    "listed are the gold references' texts, predictions have none. Predictions of a code in "
    "neither valid list are left out, as the task leaves them out."
)


def codiesp_x_sides(gold: Path, pred: Path, options: ExplainableOptions) -> SpanSides:
    """Both X files' references as documents for the HTML report (:data:`X_NOTE` says what
    the analysis compares and lacks)."""
    from annoscore.formats.brat_model import AnnFile
    from annoscore.formats.codiesp import (
        read_gold_reference_file,
        read_predicted_reference_file,
        read_valid_code_file,
    )
    from annoscore.report.html_span_data import SpanSides

    valid = frozenset[str]().union(
        *(read_valid_code_file(p).codes for p in (options.codes_d, options.codes_p) if p)
    )
    lowercase = options.lowercase
    gold_refs = read_gold_reference_file(gold, lowercase=lowercase).references
    pred_refs = read_predicted_reference_file(pred, lowercase=lowercase, allow_empty=True)
    kept = [r for r in pred_refs.references if r.code in valid]  # as the task keeps them
    if options.filter_gold:
        gold_refs = [r for r in gold_refs if r.code in valid]
    ids = list(dict.fromkeys([*(r.document for r in gold_refs), *(r.document for r in kept)]))

    def documents(refs: list[CodeReference], path: Path) -> dict[str, AnnFile]:
        by_doc: dict[str, list[CodeReference]] = {d: [] for d in ids}
        for r in refs:
            by_doc[r.document].append(r)
        return {
            d: AnnFile(
                id=d,
                path=str(path),
                ids=[f"{r.code}@{r.line}" for r in rows],
                types=[r.label for r in rows],
                starts=[min(r.start, r.end) for r in rows],
                ends=[max(r.start, r.end) for r in rows],
                texts=[r.text for r in rows],
                lines=[r.line for r in rows],
            )
            for d, rows in by_doc.items()
        }

    return SpanSides(documents(gold_refs, gold), documents(kept, pred), X_NOTE)


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
