"""``annoscore are 1|2|3|4 --gold G.xml --pred P.xml [--input I.xml]``: ARE 2007.

One sub-command per task; each one's flags are its options class's
(:mod:`annoscore.tasks.are`) and the common output switches (:mod:`annoscore.cli.options`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import cyclic_gc_paused, guarded
from annoscore.cli.options import Output, scoring_command
from annoscore.options import TaskOptions
from annoscore.report.are import render_report
from annoscore.result import Result
from annoscore.tasks.are import (
    Are1Options,
    Are2Options,
    Are3Options,
    Are4Options,
    score_are_1,
    score_are_2,
    score_are_3,
    score_are_4,
)

INTRO = """Score the Anaphora Resolution Exercise (ARE 2007), tasks 1-4, from XML.

Scoring uses element ids and start/end positions only, never the value strings.
Definitions (annoscore is the reference: no official scorer survives):"""

TASK_1 = """TASK 1, success rate = sum of credits / pronouns in the input's <anaphoric_pronouns>
(without that list: the gold's type="pronoun" nodes that share a chain with another node). Per
pronoun p (K its gold chain, a the system's antecedent, the first pair for p counts): 0 when p is
not resolved, a is not in K, or a = p; 1 when a is a noun phrase (non-pronominal); when a is a
pronoun: 0.5 when K has no noun phrase, else 1 when the system's own answers lead from a, inside K,
without a loop, to a noun phrase of K (a pronoun outside the list counts as resolved), 0.5 when
not."""

TASK_2 = """TASK 2: MUC recall, precision and F1 (Vilain et al. 1995) of the system chains against
the gold chains over entity ids (annoscore coref's MUC function)."""

OVERLAP = """OVERLAP (tasks 3, 4) = token positions two mentions share / max(length1, length2),
lengths in tokens counted in the order of the input's <node> elements. "the government of Zair" vs
"the government" = 2/4 = 0.5; vs "Zair's government" (elsewhere in the text) = 0."""

TASK_3 = """TASK 3: a system pair earns credit only if its pronoun has exactly the start and end of
a gold pronoun (type="pronoun") and it is the first pair for it: overlap(a, m*), m* the other member
of the pronoun's gold chain overlapping the antecedent most (ties: a noun phrase, then the earliest
start), times 1 or 0.5 by the task 1 rule when m* is a pronoun. Precision = credits / system pairs;
recall = credits / gold pronouns whose chain has another mention; F1 = 2PR/(P+R)."""

TASK_4 = """TASK 4: system mentions aligned one-to-one to gold mentions maximising the total overlap
(pairs with overlap 0 dropped); w(m) = the overlap with the aligned mention (0 unaligned); MUC where
each part P of a chain (its members grouped by the other side's chains) earns (|P| - 1) x mean w
over P. With exact mentions it is Vilain's MUC."""

SUMS = """All counts are summed over documents before dividing. A ratio with denominator 0 is null;
F1 is 0 when nothing earned credit, null only when both sides are empty."""

HELP = "\n\n".join((INTRO, TASK_1, TASK_2, OVERLAP, TASK_3, TASK_4, SUMS))

EPILOG = (
    "Examples:\n\n"
    "  annoscore are 1 --gold gold.xml --pred run1.xml --input input.xml\n\n"
    "  annoscore are 2 --gold gold/ --pred run1/ --per-doc --format json\n\n"
    "  annoscore are 4 --gold gold.xml --pred run1.xml --input input.xml"
)

Gold = Annotated[
    Path, typer.Option("--gold", "-g", help="Gold chains: an XML file, or a folder of *.xml files.")
]
Pred = Annotated[
    Path,
    typer.Option(
        "--pred",
        "-p",
        help="System output (pairs for tasks 1, 3; chains for 2, 4): file or folder, paired "
        "with --gold by file name, then by document id or position.",
    ),
]


def _command(options_class: type[TaskOptions], score: Callable[..., Result]) -> Callable[..., None]:
    """The sub-command of one task: its flags are ``options_class``'s (:func:`scoring_command`
    reads the annotation of ``options``)."""

    def command(gold: Gold, pred: Pred, options: TaskOptions, out: Output) -> None:
        with cyclic_gc_paused():
            result = score(gold, pred, options)
        out.emit(result, render_report)

    command.__annotations__ = {**command.__annotations__, "options": options_class}
    return scoring_command(command)


SUBCOMMANDS = (
    ("1", "Pronoun resolution over entity ids: success rate.", (TASK_1,), Are1Options, score_are_1),
    ("2", "Coreference chains over entity ids: MUC.", (TASK_2,), Are2Options, score_are_2),
    ("3", "Pronoun resolution over token spans: overlap credit P/R/F1.", (OVERLAP, TASK_3),
     Are3Options, score_are_3),
    ("4", "Coreference chains over token spans: fractional-credit MUC.", (OVERLAP, TASK_4),
     Are4Options, score_are_4),
)  # fmt: skip
"""Each sub-command: its name, summary, definitions (for --help), options class, score function."""


def register(app: typer.Typer) -> None:
    are = typer.Typer(help=HELP, epilog=EPILOG, no_args_is_help=True)
    for number, summary, definitions, options_class, score in SUBCOMMANDS:
        example = "--gold gold.xml --pred run1.xml --input input.xml"
        if number == "2":
            example = "--gold gold/ --pred run1/ --per-doc --format json"
        are.command(
            number,
            help="\n\n".join((summary, *definitions, SUMS)),
            epilog=f"Example: annoscore are {number} {example}",
        )(guarded(_command(options_class, score)))
    app.add_typer(are, name="are")
