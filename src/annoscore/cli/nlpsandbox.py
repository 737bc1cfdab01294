"""``annoscore nlpsandbox date|person|location|id|contact|covid-symptom|all --gold G --pred P``.

The task module (and NLTK) is imported inside the commands, so ``annoscore --help`` stays fast;
the choices are the enums of :mod:`annoscore.metrics.phi` (no heavy import there).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
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
    emit,
    guarded,
)
from annoscore.metrics.phi import Quotes, SameStart, Tokenizer

if TYPE_CHECKING:
    from annoscore.result import Result

Gold = Annotated[
    Path, typer.Option("--gold", help="Gold JSON: a list of Annotation objects, one per note.")
]
Pred = Annotated[Path, typer.Option("--pred", help="Prediction JSON, same shape as --gold.")]
TokenizerOption = Annotated[
    Tokenizer,
    typer.Option(
        "--tokenizer",
        help="treebank: NLTK TreebankWordTokenizer (official since 4.3.0, 2022); whitespace: "
        "the pre-2022 client (re.split on whitespace, offsets += len + 1).",
        case_sensitive=False,
    ),
]
QuotesOption = Annotated[
    Quotes,
    typer.Option(
        "--quotes",
        help="Treebank rewrites \" as `` or '', which the official offset search cannot find. "
        "fixed (default): find the quote in the text; official: the official bogus offsets.",
        case_sensitive=False,
    ),
]
SameStartOption = Annotated[
    SameStart,
    typer.Option(
        "--same-start",
        help="Several annotations at one (note, start): the instance level keeps the last "
        "(official) or the first.",
        case_sensitive=False,
    ),
]
RelaxOption = Annotated[
    int,
    typer.Option(
        "--relax-margin",
        min=0,
        help="instance relax: same start and |length difference| <= this (official 2).",
    ),
]
NotesOption = Annotated[
    Path | None,
    typer.Option(
        "--notes",
        help="The notes (a JSON array of NLP Sandbox Note objects, identifier and text, or "
        '{"notes": [...]}): every annotation\'s text is checked against its note at its '
        "offsets and each difference is a warning; no number moves.",
        dir_okay=False,
    ),
]

_HELP = (
    "NLP Sandbox PHI de-identification (nlpsandbox-client 4.3.1 evaluation). Notes are paired by "
    "the basename of annotationSource.resourceSource.name. Keys: instance_relax_* (same start, "
    "length within 2), instance_strict_* (same start and length), token_strict_* (Treebank "
    "tokens of each annotation text, same start and length), type_* (same start, length and "
    "type value: dateFormat, personType, locationType/addressType, idType, contactType, "
    "condition; an absent type never matches; for date and person the official reports NaN, "
    "annoscore computes it), and for location hipaa_* (same start and length, and the same "
    "HIPAA-PHI flag of the location type: city, organization, street, zip are PHI; country, "
    "department, hospital, other, room, state are not; never computed officially). JSON scores "
    "are exact fractions (null when undefined); --format text prints the official tables with the "
    "official rounding (P, R to 2 decimals, F1 from the rounded values)."
)

nlpsandbox_app = typer.Typer(help=_HELP, no_args_is_help=True)


def _command(category: str) -> None:
    """Register ``annoscore nlpsandbox CATEGORY`` (``all``: every category, read once)."""
    summary = (
        "Every category present in either file, read once; JSON keys prefixed by category, "
        "plus the leaderboard's flattened keys per category."
        if category == "all"
        else f"The {category} category: instance relax/strict, token strict, type"
        + (", hipaa." if category == "location" else ".")
    )

    @nlpsandbox_app.command(
        category,
        help=summary,
        epilog=f"Example: annoscore nlpsandbox {category} --gold gold.json --pred pred.json",
    )
    @guarded
    def command(
        gold: Gold,
        pred: Pred,
        tokenizer: TokenizerOption = Tokenizer.treebank,
        quotes: QuotesOption = Quotes.fixed,
        same_start: SameStartOption = SameStart.last,
        relax_margin: RelaxOption = 2,
        notes: NotesOption = None,
        per_doc: PerDocOption = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
        strict_input: StrictInputOption = False,
    ) -> None:
        from annoscore.report.nlpsandbox import render_official
        from annoscore.tasks.nlpsandbox import score_all, score_category

        score: Callable[..., Result] = (
            score_all if category == "all" else partial(score_category, category)
        )
        result = score(
            gold,
            pred,
            tokenizer=tokenizer,
            quotes=quotes,
            same_start=same_start,
            relax_margin=relax_margin,
            notes=notes,
        )
        emit(
            result,
            fmt,
            output,
            render_official,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )

    command.__name__ = f"nlpsandbox_{category.replace('-', '_')}"


for _category in ("date", "person", "location", "id", "contact", "covid-symptom", "all"):
    _command(_category)


def register(app: typer.Typer) -> None:
    app.add_typer(nlpsandbox_app, name="nlpsandbox")
