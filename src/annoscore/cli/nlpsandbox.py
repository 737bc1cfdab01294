"""``annoscore nlpsandbox date|person|location|id|contact|covid-symptom|all --gold G --pred P``.

The flags are :class:`~annoscore.tasks.nlpsandbox.NlpSandboxOptions`' (no heavy import there);
the score function is the registry's, imported (with NLTK) when the command runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from annoscore.cli.common import guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.tasks.nlpsandbox import NlpSandboxOptions
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.report.html_span_data import SpanSides

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

        def sides() -> SpanSides:  # read again only for --format html
            return sandbox_sides(gold, pred, options, category, result)

        out.emit(result, task.text_renderer(), sides)

    command.__name__ = f"nlpsandbox_{category.replace('-', '_')}"


for _category in ("date", "person", "location", "id", "contact", "covid-symptom", "all"):
    _command(_category)


SPAN_NOTE = (
    "The categories below are by exact span and category: a prediction is correct where it "
    "has a gold annotation's start, length and category (instance_strict's match); the "
    "relaxed, token and type keys of the scores match otherwise, and the type values "
    "(dateFormat, locationType...) are not compared here."
)


def sandbox_sides(
    gold: Path, pred: Path, options: NlpSandboxOptions, category: str, result: Any
) -> SpanSides:
    """Both files' notes as documents for the HTML report (``category``'s annotations, or
    every category's for ``all``), with their texts where ``--notes`` gives them; the page
    says what the analysis compares, what it lacks without the notes, and where its correct
    annotations are not instance_strict's true positives (several annotations at one start)."""
    import dataclasses
    from collections import Counter

    from annoscore.formats.brat_model import AnnFile
    from annoscore.formats.nlpsandbox import read_notes, read_sandbox_documents
    from annoscore.report.html_span_data import SpanSides

    notes = read_notes(options.notes) if options.notes is not None else {}

    def documents(path: Path) -> dict[str, AnnFile]:
        out = {}
        for doc in read_sandbox_documents(path):
            mentions = tuple(m for m in doc.mentions if category in ("all", m.type))
            shown = dataclasses.replace(doc, mentions=mentions, text=notes.get(doc.id))
            out[doc.id] = AnnFile.of(shown)
        return out

    sides = SpanSides(documents(gold), documents(pred))
    said = [SPAN_NOTE]
    if not notes:
        said.append(
            "No note texts (give --notes): the viewer shows offsets, and the strings listed "
            "are the annotations' own texts."
        )
    same: Counter[str] = Counter()
    for note, found in sides.gold.items():
        other = sides.system.get(note)
        if other is not None:
            a = Counter(zip(found.starts, found.ends, found.types, strict=True))
            b = Counter(zip(other.starts, other.ends, other.types, strict=True))
            for (_, _, kind), n in (a & b).items():
                same[kind] += n
    counts = result.counts
    for kind in sorted(
        {t for f in (*sides.gold.values(), *sides.system.values()) for t in f.types}
    ):
        prefix = "" if category != "all" else kind.replace("-", "_") + "_"
        key = f"{prefix}instance_strict_tp"
        if key in counts and int(counts[key]) != same[kind]:
            said.append(
                f"Here {same[kind]} {kind} annotations are correct by span, where "
                f"instance_strict counts {int(counts[key])} (several annotations at one start "
                "count once there: --same-start)."
            )
    return dataclasses.replace(sides, note=" ".join(said))


def register(app: typer.Typer) -> None:
    app.add_typer(nlpsandbox_app, name="nlpsandbox")
