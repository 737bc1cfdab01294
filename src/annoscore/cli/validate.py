"""``annoscore validate TASK SUBMISSION [--gold GOLD]``: every problem of a submission at once.

The submission (a folder, a zip, a file; a zip or a single top folder inside it and archive
litter are tolerated, each named) is scored against the gold standard; each unreadable line,
unknown or missing document, offset beyond the text or code outside the valid list is named with
its file and line as uploaded (:mod:`annoscore.cli.campaign`).  Exit 0 when the submission would
score cleanly, 2 otherwise.  Without ``--gold``, the task's built-in sample gold is used, which
checks the format only when the submission is about the sample's documents.
"""

from __future__ import annotations

import json
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import OutputOption, guarded, registered, tell, write_result


class ValidateFormat(str, Enum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    @app.command(
        "validate",
        epilog="Example: annoscore validate coref response.conll --gold key.conll --format json",
    )
    @guarded
    def validate(
        task: Annotated[str, typer.Argument(help="A registered task name, e.g. codiesp-d.")],
        submission: Annotated[
            Path, typer.Argument(help="The submission: a folder, a zip or a file.")
        ],
        gold: Annotated[
            Path | None,
            typer.Option("--gold", help="The gold standard (a file or folder, as the task reads)."),
        ] = None,
        option: Annotated[
            list[str] | None, typer.Option("--option", help="A task option NAME=VALUE (repeat it).")
        ] = None,
        fmt: Annotated[
            ValidateFormat,
            typer.Option("--format", "-f", help="text or json.", case_sensitive=False),
        ] = ValidateFormat.text,
        output: OutputOption = None,
    ) -> None:
        """Check a submission against a task: every problem at once, each with file and line;
        exit 0 when it would score cleanly, 2 otherwise."""
        from annoscore.cli.campaign import check, prepare
        from annoscore.cli.compare import parse_options
        from annoscore.tasks import registry

        entry = registered(task)
        options = parse_options(option or [], entry)
        if gold is None:
            gold = registry.sample_paths(entry)[0]
        with tempfile.TemporaryDirectory(prefix="annoscore-validate-") as work:
            prepared = prepare(
                submission, Path(work), one_file=gold.is_file(), label=str(submission)
            )
            checked = check(entry, gold, prepared, options, strict=True)
            report = checked.to_dict()
        report = {"task": entry.name, "submission": str(submission), **report}
        if checked.result is not None:
            report["scores"] = dict(checked.result.scores)
        if fmt is ValidateFormat.json:
            write_result(json.dumps(report, indent=2, ensure_ascii=False) + "\n", output)
        else:
            problems = checked.all_problems
            lines = [f"{p}" for p in problems]
            lines += [f"warning: {w}" for w in report["warnings"]]
            lines += [f"note: {n}" for n in checked.notes]
            verdict = "valid" if checked.clean else "NOT valid"
            lines.append(f"{submission}: {verdict} for {entry.name} ({len(problems)} problem(s))")
            write_result("\n".join(lines) + "\n", output)
        if not checked.clean:
            if fmt is ValidateFormat.json:
                tell("error", f"{submission}: not valid for {entry.name}")
            raise typer.Exit(2)
