"""``annoscore are 1|2|3|4 --gold G.xml --pred P.xml [--input I.xml]``: ARE 2007."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

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
    cyclic_gc_paused,
    emit,
    guarded,
)

HELP = """Score the Anaphora Resolution Exercise (ARE 2007), tasks 1-4, from XML.

Scoring uses element ids and start/end positions only, never the value strings.
Definitions (annoscore is the reference: no official scorer survives):

TASK 1, success rate = sum of credits / pronouns in the input's <anaphoric_pronouns> (without
that list: the gold's type="pronoun" nodes that share a chain with another node). Per pronoun p
(K its gold chain, a the system's antecedent, the first pair for p counts): 0 when p is not
resolved, a is not in K, or a = p; 1 when a is a noun phrase (non-pronominal); when a is a
pronoun: 0.5 when K has no noun phrase, else 1 when the system's own answers lead from a, inside
K, without a loop, to a noun phrase of K (a pronoun outside the list counts as resolved), 0.5
when not.

TASK 2: MUC recall, precision and F1 (Vilain et al. 1995) of the system chains against the gold
chains over entity ids (annoscore coref's MUC function).

OVERLAP (tasks 3, 4) = token positions two mentions share / max(length1, length2), lengths in
tokens counted in the order of the input's <node> elements. "the government of Zair" vs "the
government" = 2/4 = 0.5; vs "Zair's government" (elsewhere in the text) = 0.

TASK 3: a system pair earns credit only if its pronoun has exactly the start and end of a gold
pronoun (type="pronoun") and it is the first pair for it: overlap(a, m*), m* the other member of
the pronoun's gold chain overlapping the antecedent most (ties: a noun phrase, then the earliest
start), times 1 or 0.5 by the task 1 rule when m* is a pronoun. Precision = credits / system
pairs; recall = credits / gold pronouns whose chain has another mention; F1 = 2PR/(P+R).

TASK 4: system mentions aligned one-to-one to gold mentions maximising the total overlap (pairs
with overlap 0 dropped); w(m) = the overlap with the aligned mention (0 unaligned); MUC where each
part P of a chain (its members grouped by the other side's chains) earns (|P| - 1) x mean w over
P. With exact mentions it is Vilain's MUC.

All counts are summed over documents before dividing. A ratio with denominator 0 is null; F1 is 0
when nothing earned credit, null only when both sides are empty."""

EPILOG = (
    "Examples:\n\n"
    "  annoscore are 1 --gold gold.xml --pred run1.xml --input input.xml\n\n"
    "  annoscore are 2 --gold gold/ --pred run1/ --per-doc --format json\n\n"
    "  annoscore are 4 --gold gold.xml --pred run1.xml --input input.xml"
)


class TaskNumber(str, Enum):
    """The four ARE 2007 tasks."""

    one = "1"
    two = "2"
    three = "3"
    four = "4"


def register(app: typer.Typer) -> None:
    @app.command("are", help=HELP, epilog=EPILOG)
    @guarded
    def are(
        task: Annotated[
            TaskNumber,
            typer.Argument(
                help="1: pronouns over entity ids (success rate); 2: chains over entity ids "
                "(MUC); 3: pronouns over token spans (overlap credit); 4: chains over token "
                "spans (fractional MUC)."
            ),
        ],
        gold: Annotated[
            Path,
            typer.Option(
                "--gold", "-g", help="Gold chains: an XML file, or a folder of *.xml files."
            ),
        ],
        pred: Annotated[
            Path,
            typer.Option(
                "--pred",
                "-p",
                help="System output (pairs for tasks 1, 3; chains for 2, 4): file or folder, "
                "paired with --gold by file name, then by document id or position.",
            ),
        ],
        input_path: Annotated[
            Path | None,
            typer.Option(
                "--input",
                "--input-path",
                "-i",
                help="The task input given to systems: required for tasks 1 (the pronouns to "
                "resolve), 3 and 4 (the token nodes); optional for task 2 (checks ids). "
                "(--input-path: the Python name, input_path.)",
            ),
        ] = None,
        per_doc: PerDocOption = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
        strict_input: StrictInputOption = False,
    ) -> None:
        from annoscore.report.are import render_report
        from annoscore.tasks.are import SCORE

        with cyclic_gc_paused():
            result = SCORE[int(task.value)](gold, pred, input_path=input_path)
        emit(
            result,
            fmt,
            output,
            render_report,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
        )
