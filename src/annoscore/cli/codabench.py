"""``annoscore codabench init|score|check``: a Codabench competition that scores with annoscore.

How Codabench's compute worker runs a scoring program is in ``../shared/spec/campaign.md``: a
fresh container of the competition's ``docker_image``, working directory ``/app/program``, the
reference data in ``/app/input/ref``, the submission as uploaded in ``/app/input/res``, the
scores expected in ``/app/output/scores.json``; ``$input``, ``$output``, ``$program``... in the
``command`` of ``metadata.yaml`` replaced textually; a non-zero exit marks the submission Failed
(which does not use up an attempt); only keys equal to a leaderboard column's ``key`` are kept.

- ``init`` writes a v2 bundle (:func:`build_bundle`): ``competition.yaml`` (JSON, which YAML
  reads as it is), ``scoring_program/`` (``metadata.yaml``, the launcher ``score.py``, the
  task and options in ``annoscore-bundle.json`` and annoscore with the pure-Python packages it
  imports while scoring vendored in ``vendor/``), ``reference_data/PHASE/``, ``pages/``,
  ``starting_kit/``, ``solutions/PHASE/`` (the gold as the submission that scores best:
  copied, or converted by the task's ``solution`` when the gold is not itself a submission,
  :mod:`annoscore.tasks.solutions`) and ``README.md`` (for the organiser: the layout, the
  compiled packages the image must have, what each solution scores).  The leaderboard's column
  keys are the keys the program writes for the solution.  Only the packages the scoring needs
  are vendored: one it imports only because it is installed is found by scoring again
  without it (:func:`vendor`).
- Sub-tasks (SemEval's rule: one competition for all sub-tasks, one submission format whatever
  subset a team enters): ``init NAME=TASK NAME=TASK ...`` (:func:`build_subtask_bundle`) puts
  each sub-task's gold in ``reference_data/PHASE/NAME/``, its solution in
  ``solutions/PHASE/NAME/``, its sample in the starting kit's ``NAME/`` and its options and
  columns in ``annoscore-bundle.json``'s ``subtasks``; each column key carries the prefix
  ``NAME_`` (``subtask1_f1``).  A submission holds one folder per sub-task entered: one left
  out is no error (its columns are left out of ``scores.json`` and named in the detailed
  results); a malformed one, or a folder that is no sub-task's, fails the submission.
- ``score`` is what the launcher runs (:func:`score_submission`).
- ``check`` checks a bundle (:func:`bundle_problems`) and makes a dry run in the worker's folder
  layout (:func:`dry_run`); for a bundle of sub-tasks, also of each sub-task's solution alone,
  which must fill every column of that sub-task.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.codabench_bundle import build_bundle, build_subtask_bundle
from annoscore.cli.codabench_check import (
    _entered_columns,
    _image_packages,
    _subtask_columns,
    _subtask_golds,
    bundle_problems,
    dry_run,
    site_row,
)
from annoscore.cli.codabench_layout import CONFIG
from annoscore.cli.codabench_score import BundleConfig, score_submission
from annoscore.cli.codabench_vendor import copy_path, zip_folder
from annoscore.cli.common import SubtaskOptions, fail, guarded, tell, write_result

# --- the commands ---------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="A Codabench competition scored by annoscore: init a bundle, score (what the "
        "bundle's program runs), check a bundle.",
        no_args_is_help=True,
    )

    @group.command(
        "init",
        epilog="Sub-tasks: codabench init subtask1=pharmaconer-ner "
        "subtask2=pharmaconer-indexing --gold test=gold/ --option "
        "subtask2:gold_ann=gold/subtask1 --out bundle (gold/ holds a folder per sub-task; or "
        "--gold test:subtask1=DIR per sub-task). A submission then holds one folder per "
        "sub-task entered, any subset; the columns are prefixed (subtask1_f1).",
    )
    @guarded
    def init(
        task: Annotated[
            list[str],
            typer.Argument(
                help="A registered task name; or NAME=TASK for each sub-task of a bundle of "
                "sub-tasks (NAME: its folder in submissions and its column prefix)."
            ),
        ],
        gold: Annotated[
            list[str],
            typer.Option(
                "--gold",
                help="PHASE=DIR (or FILE): a phase's gold standard (with sub-tasks: a folder "
                "holding one folder per sub-task); PHASE:SUBTASK=DIR: one sub-task's.",
            ),
        ],
        out: Annotated[Path, typer.Option("--out", help="The bundle folder to write.")],
        option: SubtaskOptions = None,
        zip_: Annotated[
            bool, typer.Option("--zip", help="Also write BUNDLE.zip, ready to upload.")
        ] = False,
    ) -> None:
        """Write a complete Codabench v2 bundle scoring TASK, e.g. codabench init
        pharmaconer-ner --gold practice=dev/ --gold test=test/ --out bundle --zip."""
        from annoscore.formats.files import input_path  # a URL read into a local copy

        if len(task) == 1 and "=" not in task[0]:
            golds = []
            for item in gold:
                phase, equals, path = item.partition("=")
                if not equals or not phase.strip() or not path:
                    raise fail(f"--gold {item!r}: expected PHASE=DIR")
                golds.append((phase.strip(), input_path(path)))
            if len({p for p, _ in golds}) != len(golds):
                raise fail("--gold: every phase needs its own name")
            notes = build_bundle(task[0], golds, option or [], out)
            named = task[0]
            phases = [p for p, _ in golds]
        else:
            from annoscore.cli.campaign import subtask_arguments, subtask_options

            subtasks = subtask_arguments(task)
            names = [name for name, _ in subtasks]
            by_phase = _subtask_golds(gold, names)
            items = subtask_options(option or [], subtasks)
            notes = build_subtask_bundle(subtasks, by_phase, items, out)
            named = ", ".join(f"{n}={t}" for n, t in subtasks)
            phases = [p for p, _ in by_phase]
        for note in notes:
            tell("warning", note)
        if zip_:
            zip_folder(out, out.with_name(out.name + ".zip"))
        print(f"{out}: bundle for {named}, phases {', '.join(phases)}")

    @group.command("score")
    @guarded
    def score(
        input_dir: Annotated[Path, typer.Argument(help="The input folder (ref/, res/).")] = Path(
            "/app/input"
        ),
        output_dir: Annotated[Path, typer.Argument(help="The output folder.")] = Path(
            "/app/output"
        ),
        config: Annotated[
            Path | None,
            typer.Option("--config", help=f"The bundle's {CONFIG} (default: beside argv[0])."),
        ] = None,
    ) -> None:
        """Score a submission as the bundle's program: scores.json, detailed_results.html,
        result.json; exit 2 with one line on a malformed submission."""
        if config is None:
            config = Path(sys.argv[0]).resolve().parent / CONFIG
        settings = BundleConfig.read(config)
        base = config.parent
        files = sys.modules.get("annoscore.formats.files")
        if files is not None and (url := files.url_of(config)) is not None:
            base = files.input_path(url.rpartition("/")[0])  # the files it names, beside it
        status = score_submission(input_dir, output_dir, settings, base)
        if files is not None and files.url_inputs_given():  # the files name the URLs given
            for path in (output_dir / n for n in ("result.json", "detailed_results.html")):
                if path.is_file():
                    path.write_text(files.named(path.read_text("utf-8")), encoding="utf-8")
        if status:
            raise typer.Exit(status)

    @group.command("check")
    @guarded
    def check_bundle(
        bundle: Annotated[Path, typer.Argument(help="The bundle folder (or its zip).")],
        submission: Annotated[
            Path | None,
            typer.Option("--submission", help="A submission zip (default: each solution)."),
        ] = None,
    ) -> None:
        """Check a bundle against Codabench's rules and make a dry run in the worker's layout."""
        with tempfile.TemporaryDirectory(prefix="annoscore-check-") as work:
            if bundle.is_file():
                unpacked = Path(work) / "bundle"
                with zipfile.ZipFile(bundle) as archive:
                    archive.extractall(unpacked)
                bundle = unpacked
            problems, found = bundle_problems(bundle)
            keys = found.get("keys", [])
            if found:
                data = found["data"]
                runs: list[tuple[Path, int]] = []
                if submission is not None:
                    runs.append((submission, 0))
                else:
                    for solution in data.get("solutions", []) or []:
                        runs.append((bundle / solution["path"], int(solution["tasks"][0])))
                if not runs:
                    tell("warning", "no solution and no --submission: no submission was dry-run")
                for task in data.get("tasks", [])[:1]:
                    for name, users in _image_packages(bundle / task["scoring_program"]).items():
                        needed = f" (needed by {', '.join(users)})" if users else ""
                        tell(
                            "warning",
                            f"the dry runs take {name}{needed} from this environment: the "
                            "image must have it (see the bundle's README.md)",
                        )
                groups = _subtask_columns(bundle, data)
                if groups and submission is None:  # each sub-task alone: partial participation
                    for path, index in list(runs):
                        for name in groups:
                            if (path / name).is_dir():
                                alone = Path(work) / f"{path.name}-{name}-alone"
                                copy_path(path / name, alone / name)
                                runs.append((alone, index))
                for path, index in runs:
                    status, stderr, output = dry_run(bundle, path, Path(work), index)
                    if status != 0:
                        problems.append(
                            f"dry run on {path.name}: exit {status}: {stderr.strip()[-300:]}"
                        )
                        continue
                    trouble, row = site_row(output, keys, [] if groups else None)
                    if groups:
                        trouble += site_row(output, keys, _entered_columns(row, keys, groups))[0]
                    problems += [f"dry run on {path.name}: {t}" for t in trouble]
                    shown = " | ".join(f"{k} {row[k]:.4f}" for k in keys if k in row)
                    print(f"{path.name}: {shown}")
                    shutil.rmtree(output.parent.parent, ignore_errors=True)
                empty = Path(work) / "empty.zip"
                zipfile.ZipFile(empty, "w").close()
                status, stderr, output = dry_run(bundle, empty, Path(work))
                shutil.rmtree(output.parent.parent, ignore_errors=True)
                if status != 2:
                    problems.append(f"an empty submission exits {status}, not 2")
        for problem in problems:
            tell("error", problem)
        if problems:
            raise typer.Exit(2)
        rules = f"{bundle}: the bundle follows Codabench's rules; leaderboard {', '.join(keys)}"
        write_result(rules + "\n", None)  # a URL named as given, not its local copy

    app.add_typer(group, name="codabench")
