"""``annoscore codiesp D|P|X``: CodiEsp (CLEF eHealth 2020) ICD-10 coding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    choice,
    emit,
    guarded,
)

if TYPE_CHECKING:
    pass

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
Lowercase = Annotated[
    bool,
    typer.Option(
        "--lowercase/--no-lowercase",
        help="Lower-case the codes (official since 2020-09-30); --no-lowercase keeps their case "
        "against the lower-cased valid list, as during the 2020 campaign.",
    ),
]
FilterGold = Annotated[
    bool,
    typer.Option(
        "--filter-gold",
        help="Also drop gold codes that are not in the valid list (the official keeps them).",
    ),
]

RANKED_EPILOG = (
    "Example: annoscore codiesp {subtask} --gold gs_{subtask}.tsv --pred pred_{subtask}.tsv "
    "--codes codes-{subtask}.tsv --format json"
)
X_EPILOG = (
    "Example: annoscore codiesp X --gold gs_X.tsv --pred pred_X.tsv --codes-d codes-D.tsv "
    "--codes-p codes-P.tsv --tolerance-mode symmetric"
)


def _ranked(subtask: str) -> Callable[..., None]:
    @guarded
    def command(
        gold: Gold,
        pred: Pred,
        codes: Annotated[
            Path,
            typer.Option(
                "--codes", "-c", help="Valid-code TSV (code in the first column).", dir_okay=False
            ),
        ],
        missing_docs: Annotated[
            str,
            typer.Option(
                "--missing-docs",
                help="A gold document with no valid prediction: ignore = left out of MAP "
                "(official), zero = AP 0.",
                **choice(("ignore", "zero")),
            ),
        ] = "ignore",
        extra_docs: Annotated[
            str,
            typer.Option(
                "--extra-docs",
                help="A predicted document absent from the gold: zero = AP 0 in MAP (official), "
                "ignore = left out of MAP.",
                **choice(("zero", "ignore")),
            ),
        ] = "zero",
        filter_gold: FilterGold = False,
        depth: Annotated[
            int,
            typer.Option(
                "--depth", min=0, help="Ranks kept per document for MAP (official 1000; 0 = all)."
            ),
        ] = 1000,
        lowercase: Lowercase = True,
        tie_order: Annotated[
            str,
            typer.Option(
                "--tie-order",
                help="Rank of a document's predictions in MAP: file = line order (trectools "
                "0.0.42, which the official script pins); code = alphabetical by code "
                "(trectools 0.0.50, other MAPs on the same files).",
                **choice(("file", "code")),
            ),
        ] = "file",
        strict_input: StrictInputOption = False,
        per_doc: PerDocOption = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        from annoscore.report.codiesp import render_ranked
        from annoscore.tasks.codiesp import score_codiesp_ranked

        result = score_codiesp_ranked(
            subtask,
            gold,
            pred,
            codes=codes,
            missing_docs=missing_docs,
            extra_docs=extra_docs,
            filter_gold=filter_gold,
            depth=depth,
            lowercase=lowercase,
            tie_order=tie_order,
        )
        emit(
            result,
            fmt,
            output,
            render_ranked,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )

    command.__doc__ = (
        f"CodiEsp-{subtask}: MAP of the ranked codes (official MAP script) and micro "
        "P/R/F1 (official F1 script)."
    )
    return command


def _explainable() -> Callable[..., None]:
    @guarded
    def command(
        gold: Gold,
        pred: Pred,
        codes_d: Annotated[
            Path, typer.Option("--codes-d", help="Valid D codes TSV.", dir_okay=False)
        ],
        codes_p: Annotated[
            Path, typer.Option("--codes-p", help="Valid P codes TSV.", dir_okay=False)
        ],
        tolerance: Annotated[
            int, typer.Option("--tolerance", min=0, help="Characters of tolerance (official 10).")
        ] = 10,
        tolerance_mode: Annotated[
            str,
            typer.Option(
                "--tolerance-mode",
                help="contain: the prediction contains the reference, overhanging at most "
                "TOLERANCE per side (official); symmetric: each boundary within TOLERANCE.",
                **choice(("contain", "symmetric")),
            ),
        ] = "contain",
        check_label: Annotated[
            bool,
            typer.Option(
                "--check-label", help="The label must match too (the official ignores it)."
            ),
        ] = False,
        filter_gold: FilterGold = False,
        lowercase: Lowercase = True,
        strict_input: StrictInputOption = False,
        per_doc: PerDocOption = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        """CodiEsp-X: micro P/R/F1 of codes whose predicted position matches a reference."""
        from annoscore.report.codiesp import render_explainable
        from annoscore.tasks.codiesp import score_codiesp_x

        result = score_codiesp_x(
            gold,
            pred,
            codes_d=codes_d,
            codes_p=codes_p,
            tolerance=tolerance,
            tolerance_mode=tolerance_mode,
            check_label=check_label,
            filter_gold=filter_gold,
            lowercase=lowercase,
        )
        emit(
            result,
            fmt,
            output,
            render_explainable,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )

    return command


def register(app: typer.Typer) -> None:
    """Add ``annoscore codiesp D|P|X`` to ``app``: a new group each time, so a process that runs
    the command line many times (a test suite, a notebook) does not pile up sub-commands."""
    codiesp_app = typer.Typer(help=HELP, no_args_is_help=True)
    for name in ("D", "P"):
        codiesp_app.command(name, epilog=RANKED_EPILOG.format(subtask=name))(_ranked(name))
        codiesp_app.command(name.lower(), hidden=True)(_ranked(name))
    codiesp_app.command("X", epilog=X_EPILOG)(_explainable())
    codiesp_app.command("x", hidden=True)(_explainable())
    app.add_typer(codiesp_app, name="codiesp")
