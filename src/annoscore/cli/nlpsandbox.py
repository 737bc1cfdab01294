"""``annoscore nlpsandbox date|person|location|id|contact|covid-symptom|all --gold G --pred P``.

The flags are :class:`~annoscore.tasks.nlpsandbox.NlpSandboxOptions`' (no heavy import there);
the score function is the registry's, imported (with NLTK) when the command runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.nlpsandbox import NlpSandboxOptions
from annoscore.tasks.registry import get

Gold = Annotated[
    Path, typer.Option("--gold", help="Gold JSON: a list of Annotation objects, one per note.")
]
Pred = Annotated[Path, typer.Option("--pred", help="Prediction JSON, same shape as --gold.")]

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
    @scoring_command
    def command(gold: Gold, pred: Pred, options: NlpSandboxOptions, out: Output) -> None:
        task = get(f"nlpsandbox-{category}")
        result = task.score_function()(gold, pred, options)
        sides = task.report_sides(gold, pred, options, result)  # read only for --format html
        out.emit(result, task.text_renderer(), sides)

    command.__name__ = f"nlpsandbox_{category.replace('-', '_')}"


for _category in ("date", "person", "location", "id", "contact", "covid-symptom", "all"):
    _command(_category)


def register(app: typer.Typer) -> None:
    app.add_typer(nlpsandbox_app, name="nlpsandbox")
