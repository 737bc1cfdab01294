"""``annoscore demo``: every registered task on the sample data shipped inside the package.

The list comes from :mod:`annoscore.tasks.registry`: each task's sample (gold, system, options)
is scored through the same path-level function the command line and :func:`annoscore.score`
call, and printed in the task's text layout.  Paths are passed as values, never split from a
command string, so an installation under a folder with spaces works.
"""

from __future__ import annotations

from typing import Annotated

import typer

from annoscore.cli.common import guarded, stop_working_indicator, tell
from annoscore.cli.writing import write_stdout


def register(app: typer.Typer) -> None:
    @app.command(
        "demo",
        help="Score every registered task on the built-in sample data and print the results.",
        epilog="Example: annoscore demo --only pharmaconer",
    )
    @guarded
    def demo(
        only: Annotated[
            str | None,
            typer.Option(
                help="Run only the tasks whose name starts with this (e.g. pharmaconer, coref)."
            ),
        ] = None,
    ) -> None:
        from annoscore.errors import InputError
        from annoscore.report.generic import render_table
        from annoscore.tasks.registry import TASKS, sample_paths

        ran = 0
        for name, task in TASKS.items():
            if only and not name.startswith(only.lower()):
                continue
            gold, system, options = sample_paths(task)
            arguments = [
                repr(name),
                f"<samples>/{task.sample.gold}",
                f"<samples>/{task.sample.system}",
                *(f"{k}={_shown(task.sample.options[k], v)}" for k, v in options.items()),
            ]
            command = " ".join(task.command)
            stop_working_indicator()
            write_stdout(
                f"=== {task.sample.title or task.summary}\n"
                f"$ annoscore {command} ...   # annoscore.score({', '.join(arguments)})\n"
            )
            try:
                result = task.run(gold, system, **options)
            except InputError as error:
                raise InputError(f"demo {name!r} failed: {error}") from None
            renderer = task.text_renderer() or render_table
            write_stdout(renderer(result))
            for warning in result.warnings:
                tell("warning", str(warning))
            write_stdout("\n")
            ran += 1
        if ran == 0:
            raise InputError(f"no task name starts with {only!r}")


def _shown(registered: object, value: object) -> str:
    """An option of the ``annoscore.score(...)`` line: a sample path as ``<samples>/...``, like
    the gold and system paths beside it; any other value as Python writes it."""
    if isinstance(registered, str) and registered.startswith("samples/"):
        return "<samples>/" + registered.removeprefix("samples/")
    return repr(getattr(value, "name", value))
