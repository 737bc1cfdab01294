"""``annoscore report TASK GOLD SYS [SYS ...] -o report.html``: one HTML report of one or several
systems on one gold standard.

TASK is a registered task name and ``--option NAME=VALUE`` its options, as for ``annoscore
compare`` (whose helpers read the inputs: a pipe or FIFO is read once).  With one system the page
is the one ``--format html`` writes; with several, the first is the baseline and the page holds
the paired tests of ``compare`` (:func:`annoscore.significance.paired_test`) beside each system's
tables (:func:`annoscore.report.html.render_comparison_html`).  ``--no-text`` and
``--max-html-mb`` are the scoring commands' (:mod:`annoscore.cli.common`): without texts the page
has no document text nor frequent text; the budget cuts the document viewer's texts (the page of
several systems holds them once for every system, or beyond the budget gives each system an equal
share of it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from annoscore.cli.common import (
    MaxHtmlOption,
    NoTextOption,
    OutputOption,
    command_line,
    guarded,
    is_terminal,
    progress,
    registered,
    write_result,
)
from annoscore.cli.compare import (
    GoldArgument,
    NamesOption,
    SamplesOption,
    SeedOption,
    TaskArgument,
    TaskOptions,
    TestChoice,
    compared,
    read_once,
    score_systems,
    system_labels,
)
from annoscore.errors import InputError
from annoscore.significance import MAX_SAMPLES

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides
    from annoscore.result import Result
    from annoscore.tasks.registry import Task


def register(app: typer.Typer) -> None:
    @app.command(
        "report",
        epilog="Example: annoscore report pharmaconer-ner gold/ run1/ run2/ -o report.html",
    )
    @guarded
    def report(
        task: TaskArgument,
        gold: GoldArgument,
        systems: Annotated[
            list[Path],
            typer.Argument(help="One or more system outputs; the first is the baseline."),
        ],
        test: Annotated[
            TestChoice,
            typer.Option(
                "--test",
                help="With several systems: bootstrap (paired bootstrap resampling), "
                "randomization (approximate randomization) or t-test (paired t-test), as in "
                "annoscore compare.",
                case_sensitive=False,
            ),
        ] = TestChoice.bootstrap,
        samples: SamplesOption = None,
        bootstrap: Annotated[
            int,
            typer.Option(
                "--bootstrap",
                min=0,
                max=MAX_SAMPLES,
                help="Add each system's percentile confidence intervals from N bootstrap "
                "resamples of the documents (0: none).",
            ),
        ] = 0,
        seed: SeedOption = 12345,
        confidence: Annotated[
            float,
            typer.Option(
                "--confidence",
                min=0.5,
                max=0.999,
                help="Confidence of the intervals (of each score and of each difference).",
            ),
        ] = 0.95,
        names: NamesOption = None,
        option: TaskOptions = None,
        output: OutputOption = None,
        no_text: NoTextOption = False,
        max_html_mb: MaxHtmlOption = 20.0,
    ) -> None:
        """One self-contained HTML report of one or several systems on one gold standard: each
        system's scores, intervals, per-type and per-document tables, and with several systems
        the paired significance tests of compare (the first system is the baseline)."""
        import sys

        from annoscore.report.html import render_comparison_html, render_html
        from annoscore.significance import with_intervals

        entry = registered(task)
        if output is None and is_terminal(sys.stdout):
            raise InputError("annoscore report writes a page: give -o FILE (e.g. -o report.html)")
        labels = system_labels(systems, names)
        with read_once() as once:
            results = score_systems(entry, gold, systems, option, once)
            results = [
                dataclasses.replace(r, warnings=tuple(once.warning(w) for w in r.warnings))
                for r in results
            ]
            if bootstrap:
                results = [
                    with_intervals(
                        r, samples=bootstrap, confidence=confidence, seed=seed, progress=progress
                    )
                    for r in results
                ]
            sides = _span_sides(entry, gold, systems, option, once, results)
            if entry.averages_per_type:  # the pages hold the --per-type content (not compare's)
                shown = [r.shown(types=True, averages=True) for r in results]
            else:
                shown = results
            if len(results) == 1:
                page = render_html(
                    shown[0],
                    command=command_line(),
                    spans=None if sides is None else sides[0],
                    text=not no_text,
                    max_mb=max_html_mb,
                )
            else:
                comparison = compared(results, labels, once, test, samples, seed, confidence)
                buckets = versus = analyses = None
                from annoscore.report.html_spans import systems_note

                if sides is not None:
                    from annoscore.report.html_buckets import bucket_matrices, compare_buckets
                    from annoscore.report.html_span_data import analyse
                    from annoscore.report.html_versus import versus as differing

                    analyses = {
                        label: analyse(s, embed=False)
                        for label, s in zip(labels, sides, strict=True)
                    }
                    versus = differing(analyses, text=not no_text)
                    buckets = compare_buckets(
                        {label: bucket_matrices(a) for label, a in analyses.items()},
                        test=test.value,
                        samples=samples,
                        seed=seed,
                        confidence=confidence,
                    )
                page = render_comparison_html(
                    dict(zip(labels, shown, strict=True)),
                    comparison,
                    command=command_line(),
                    buckets=buckets,
                    versus=versus,
                    text=not no_text,
                    spans=analyses,
                    max_mb=max_html_mb,
                    spans_note=systems_note(labels, sides or []),
                )
        write_result(page, output)  # never over an input


def _span_sides(
    entry: Task,
    gold: Path,
    systems: list[Path],
    option: list[str] | None,
    once: Any,
    results: list[Result],
) -> list[SpanSides] | None:
    """Each system's documents beside the gold's, for the span report (its viewer, its
    buckets): as the task's ``--format html`` reads them (its registration's ``sides``, with
    the ``--option`` values; ``results``: each system's, which some pages check the analysis
    against); ``None`` for a task without them."""
    if entry.sides is None:
        return None
    from annoscore.cli.compare import parse_options, with_paths

    options = with_paths(parse_options(option or [], entry), once)
    read = [
        entry.report_sides(once(gold), once(s), options, r)
        for s, r in zip(systems, results, strict=True)
    ]
    return [sides() for sides in read if sides is not None]
