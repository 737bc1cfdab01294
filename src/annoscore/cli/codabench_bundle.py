"""``annoscore codabench init``: the bundle's folders and files (:func:`build_bundle`,
:func:`build_subtask_bundle`): ``competition.yaml``, the scoring program, reference data,
pages, starting kit, solutions and the organiser's ``README.md``."""

from __future__ import annotations

import datetime as dt
import html
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.cli.codabench_layout import COMMAND, CONFIG, IMAGE, LAUNCHER
from annoscore.cli.codabench_score import BundleConfig, column_key, score_submission
from annoscore.cli.codabench_vendor import copy_path, vendor, zip_folder
from annoscore.cli.common import registered
from annoscore.errors import InputError


@dataclass
class _Part:
    """One task of a bundle: the bundle's only task (``name`` is ``None``) or a sub-task, whose
    files live in a folder of its name and whose column keys carry the prefix ``NAME_``."""

    name: str | None
    task: Any
    items: list[str]
    parsed: Any
    config: BundleConfig

    def where(self, folder: Path) -> Path:
        return folder if self.name is None else folder / self.name

    @property
    def prefix(self) -> str:
        return "" if self.name is None else f"{self.name}_"

    @property
    def label(self) -> str:
        return self.task.name if self.name is None else f"{self.name} ({self.task.name})"


def _parts(
    subtasks: list[tuple[str | None, str]], items: dict[str | None, list[str]]
) -> list[_Part]:
    from annoscore.cli.compare import parse_options

    parts = []
    for name, task_name in subtasks:
        task = registered(task_name)
        given = items.get(name, [])
        parts.append(_Part(name, task, given, parse_options(given, task), BundleConfig(task.name)))
    return parts


def _pages(folder: Path, parts: list[_Part], signatures: dict[str | None, str]) -> None:
    from annoscore.options import fields

    folder.mkdir()
    single = parts[0].name is None
    if single:
        task = parts[0].task
        overview = (
            f"# {task.summary}\n\nSubmissions are scored by annoscore with the task "
            f"`{task.name}`: the same code scores locally (`pip install annoscore`) and here.\n"
        )
        layout = (
            "Submit a zip with the same files as the starting kit's sample submission (one "
            "file, or a folder of one file per document, named as the documents)."
        )
        check = f"`annoscore validate {task.name} submission.zip`"
    else:
        listed = "".join(f"- `{p.name}`: {p.task.summary} (`{p.task.name}`)\n" for p in parts)
        overview = (
            f"# {len(parts)} sub-tasks\n\n{listed}\nSubmissions are scored by annoscore, each "
            "sub-task with its task: the same code scores locally (`pip install annoscore`) "
            "and here. A team may enter any of the sub-tasks.\n"
        )
        names = ", ".join(f"`{p.name}/`" for p in parts)
        layout = (
            f"Submit a zip with one folder per sub-task you enter ({names}), each holding "
            "that sub-task's files as in the starting kit's sample submission. You may enter "
            "any subset: a sub-task you leave out is no error, its columns stay empty. A "
            "folder that is no sub-task's fails the submission."
        )
        check = "`annoscore validate TASK FOLDER` on each sub-task's folder"
    (folder / "overview.md").write_text(overview, encoding="utf-8")
    sections = []
    for part in parts:
        task = part.task
        rows = ["| option | value | what it does |", "|---|---|---|"]
        for spec in fields(task.options_class()):
            value = part.config.options.get(
                spec.key, part.config.options.get(spec.name, spec.default)
            )
            shown = getattr(value, "value", value)
            rows.append(f"| `{spec.key}` | `{shown}` | {spec.setting.help} |")
        first = f"`{part.prefix}{task.headline}`" if task.headline else "every score"
        head = "" if single else f"## Sub-task `{part.name}`\n\n"
        which = "The leaderboard's first column is" if single else "Its first column is"
        sections.append(
            f"{head}{task.summary}. {which} {first if not single else f'`{task.headline}`'}.\n\n"
            f"Signature of every score on this site:\n\n    {signatures.get(part.name, '')}\n\n"
            "Options:\n\n" + "\n".join(rows) + "\n\nTo score locally: `annoscore "
            f"validate {task.name} SUBMISSION --gold GOLD` then `annoscore compare` or the "
            "task's command.\n"
        )
    (folder / "evaluation.md").write_text(
        "# Evaluation\n\n" + "\n".join(sections), encoding="utf-8"
    )
    (folder / "data.md").write_text(
        f"# Data and submission format\n\n{layout} A single top folder inside the zip and "
        "archive litter (`__MACOSX/`, `._*`, `.DS_Store`, `Thumbs.db`) are tolerated with a "
        "warning. A malformed submission fails (it does not use up an attempt): its detailed "
        f"results list every problem with file and line. Check before submitting: {check}.\n",
        encoding="utf-8",
    )


def build_bundle(
    task_name: str,
    golds: list[tuple[str, Path]],
    option_items: list[str],
    out: Path,
) -> list[str]:
    """Write the bundle of one task (see the module doc); the warnings for the organiser."""
    parts = _parts([(None, task_name)], {None: option_items})
    return _build(parts, [(phase, {None: gold}) for phase, gold in golds], out)


def build_subtask_bundle(
    subtasks: list[tuple[str, str]],
    golds: list[tuple[str, dict[str, Path]]],
    option_items: dict[str, list[str]],
    out: Path,
) -> list[str]:
    """Write the bundle of several sub-tasks, ``(name, task)`` each, scored from one submission
    holding a folder per sub-task entered; ``golds``: each phase's gold per sub-task;
    ``option_items``: each sub-task's options.  The warnings for the organiser."""
    items: dict[str | None, list[str]] = {name: list(v) for name, v in option_items.items()}
    parts = _parts(list(subtasks), items)
    return _build(parts, [(phase, dict(paths)) for phase, paths in golds], out)


def _build(parts: list[_Part], golds: list[tuple[str, dict[Any, Path]]], out: Path) -> list[str]:
    from annoscore.cli.campaign import gold_input
    from annoscore.options import fields
    from annoscore.tasks import registry

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("the bundle folder exists and is not empty", out)
    single = parts[0].name is None
    notes: list[str] = []
    out.mkdir(parents=True, exist_ok=True)
    program = out / "scoring_program"
    program.mkdir()
    if single:
        config = parts[0].config
    else:
        config = BundleConfig("", subtasks={str(p.name): p.config for p in parts})
    for part in parts:
        for spec in fields(part.task.options_class()):
            value = getattr(part.parsed, spec.name)
            given = any(
                i.partition("=")[0].strip().replace("-", "_") == spec.name for i in part.items
            )
            if not given:
                continue
            if spec.kind == "path" and value is not None:
                stored = part.where(Path("data")) / f"{spec.key}{Path(value).suffix}"
                copy_path(Path(value), program / stored)
                part.config.options[spec.key] = stored.as_posix()
                part.config.paths.append(spec.key)
            else:
                part.config.options[spec.key] = _option_text(value)
    for phase, paths in golds:
        for part in parts:
            gold = paths[part.name]
            if not gold.exists():
                raise InputError("no such file or folder", gold)
            target = part.where(out / "reference_data" / phase)
            if gold.is_dir():
                copy_path(gold, target)
            else:
                copy_path(gold, target / gold.name)
    config.write(program / CONFIG)
    # the gold as a submission: the leaderboard's keys are what the program writes for it
    columns: dict[str | None, dict[str, str]] = {part.name: {} for part in parts}
    signatures: dict[str | None, str] = {}
    solved: list[str] = []
    solved_parts: dict[str, list[_Part]] = {}
    solution_notes: dict[str, list[str]] = {}
    below: dict[str, dict[str | None, float]] = {}  # a gold that scores below 1.0 (its rules)
    for phase, _ in golds:
        solution = out / "solutions" / phase
        made: list[_Part] = []
        for part in parts:
            where = f"phase {phase}" + ("" if single else f", sub-task {part.name}")
            target = part.where(solution)
            try:
                converted = part.task.write_solution(
                    gold_input(part.where(out / "reference_data" / phase)), target, part.parsed
                )
            except InputError as error:
                notes.append(f"{where}: no solution: the gold cannot be converted ({error})")
                shutil.rmtree(target, ignore_errors=True)
                continue
            if converted is None:  # the gold is itself a perfect submission
                copy_path(part.where(out / "reference_data" / phase), target)
                _without_texts(target)
            else:
                shown = [n if single else f"{part.name}: {n}" for n in converted]
                solution_notes.setdefault(phase, []).extend(shown)
                notes += [f"{where}: the solution's best score: {n}" for n in converted]
            made.append(part)
        if not made:
            shutil.rmtree(solution, ignore_errors=True)
            continue
        with tempfile.TemporaryDirectory(prefix="annoscore-init-") as work:
            layout = Path(work) / "input"
            copy_path(out / "reference_data" / phase, layout / "ref")
            copy_path(solution, layout / "res")
            status = score_submission(layout, Path(work) / "output", config, program, quiet=True)
            if status != 0:
                page = (Path(work) / "output" / "detailed_results.html").read_text("utf-8")
                first = html.unescape(page.partition("<li>")[2].partition("</li>")[0])
                notes.append(
                    f"phase {phase}: the gold standard is not a valid submission ({first}); "
                    "no solution is written for it"
                )
                shutil.rmtree(solution)
                continue
            result = json.loads((Path(work) / "output" / "result.json").read_text(encoding="utf-8"))
        solved.append(phase)
        solved_parts[phase] = made
        for part in made:
            scored = result if single else result["subtasks"][part.name]
            signatures.setdefault(part.name, str(scored["signature"]))
            headline_name = part.task.headline
            _add_columns(columns[part.name], headline_name, scored["scores"], part.prefix)
            headline = scored["scores"].get(headline_name) if headline_name else None
            if headline is not None and headline != 1.0 and not part.task.solution:
                below.setdefault(phase, {})[part.name] = headline
                where = f"phase {phase}" + ("" if single else f", sub-task {part.name}")
                notes.append(
                    f"{where}: the gold standard as a submission scores {headline_name} = "
                    f"{headline}, not 1.0 (an official rule of the task's settings)"
                )
    for part in parts:
        if not columns[part.name]:  # the columns of the task's sample
            gold, system, sample_options = registry.sample_paths(part.task)
            scored_sample = part.task.run(gold, system, **sample_options)
            _add_columns(
                columns[part.name], part.task.headline, dict(scored_sample.scores), part.prefix
            )
            signatures[part.name] = str(part.parsed.signature(part.task.name))
        part.config.columns = columns[part.name]
    if not single:
        config.columns = {k: v for part in parts for k, v in part.config.columns.items()}
        if len(config.columns) != sum(len(part.config.columns) for part in parts):
            raise InputError("two sub-tasks' scores shorten to the same leaderboard key")
    config.write(program / CONFIG)
    (program / "metadata.yaml").write_text(f"command: {COMMAND}\n", encoding="utf-8")
    from annoscore import __version__

    (program / "score.py").write_text(
        LAUNCHER.format(version=__version__, config=CONFIG), encoding="utf-8"
    )
    compiled = _vendor_parts(program, out, parts, solved_parts, solved)
    config.image = compiled
    config.write(program / CONFIG)
    for name, users in compiled.items():
        needed = f" (needed by {', '.join(users)})" if users else ""
        notes.append(
            f"{name}{needed} is a compiled package the scoring imports: the image must have it"
        )
    _readme(out, parts, golds, solution_notes, below, compiled)
    _pages(out / "pages", parts, signatures)
    kit = out / "starting_kit"
    kit.mkdir()
    with tempfile.TemporaryDirectory(prefix="annoscore-kit-") as work:
        kit_folder = Path(work) / "submission"
        for part in parts:
            _, sample, _ = registry.sample_paths(part.task)
            target = part.where(kit_folder)
            copy_path(sample, target if sample.is_dir() else target / sample.name)
        _without_texts(kit_folder)
        zip_folder(kit_folder, kit / "sample_submission.zip")
    if single:
        kit_text = (
            f"# Starting kit for {parts[0].task.name}\n\n`sample_submission.zip` shows the "
            "submission format (annoscore's sample data, not this competition's documents). "
            f"Check a submission with `annoscore validate {parts[0].task.name} submission.zip "
            "--gold GOLD`."
        )
    else:
        kit_text = (
            "# Starting kit\n\n`sample_submission.zip` shows the submission format: one folder "
            "per sub-task entered ("
            + ", ".join(f"`{p.name}/`: {p.task.name}" for p in parts)
            + "), each with annoscore's sample data, not this competition's documents. Check a "
            "sub-task's folder with `annoscore validate TASK FOLDER --gold GOLD`."
        )
    (kit / "README.md").write_text(kit_text + "\n", encoding="utf-8")
    competition = _competition(parts, golds, config.columns, solved)
    (out / "competition.yaml").write_text(
        json.dumps(competition, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return notes


def _vendor_parts(
    program: Path,
    out: Path,
    parts: list[_Part],
    solved_parts: dict[str, list[_Part]],
    solved: list[str],
) -> dict[str, list[str]]:
    """:func:`vendor` on a scoring that runs every part: the first solved phase's solution, and
    for a part it lacks (or when no phase is solved) the task's sample."""
    from annoscore.tasks import registry

    made = {part.name for part in solved_parts[solved[0]]} if solved else set()
    with tempfile.TemporaryDirectory(prefix="annoscore-init-") as work:
        layout = Path(work) / "input"
        if solved and len(made) == len(parts):
            copy_path(out / "reference_data" / solved[0], layout / "ref")
            copy_path(out / "solutions" / solved[0], layout / "res")
            return vendor(program, layout, program / CONFIG)
        configs: dict[str, BundleConfig] = {}
        for part in parts:
            if part.name in made:
                copy_path(
                    part.where(out / "reference_data" / solved[0]), part.where(layout / "ref")
                )
                copy_path(part.where(out / "solutions" / solved[0]), part.where(layout / "res"))
                items = dict(i.split("=", 1) for i in part.config.option_items(program))
            else:
                gold, system, sample_options = registry.sample_paths(part.task)
                ref, res = part.where(layout / "ref"), part.where(layout / "res")
                copy_path(gold, ref if gold.is_dir() else ref / gold.name)
                copy_path(system, res if system.is_dir() else res / system.name)
                items = {k: str(v) for k, v in sample_options.items()}
            configs[str(part.name)] = BundleConfig(
                part.task.name, items, [], dict(part.config.columns)
            )
        if parts[0].name is None:
            sample_config = configs["None"]
        else:
            sample_config = BundleConfig("", subtasks=configs)
        sample_config.write(Path(work) / CONFIG)
        return vendor(program, layout, Path(work) / CONFIG)


def _readme(
    out: Path,
    parts: list[_Part],
    golds: list[tuple[str, dict[Any, Path]]],
    solution_notes: dict[str, list[str]],
    below: dict[str, dict[str | None, float]],
    compiled: dict[str, list[str]],
) -> None:
    """The bundle's ``README.md``, for the organiser: what is where, what the image must have,
    what each solution scores (``below``: a headline below 1.0 under the task's rules)."""
    single = parts[0].name is None
    converted = [
        f"`{part.task.solution}`" + ("" if single else f" for {part.name}")
        for part in parts
        if part.task.solution
    ]
    if single:
        task = parts[0].task
        lines = [
            f"# Codabench bundle: annoscore {task.name}",
            "",
            f"{task.summary}. Check it before uploading: `annoscore codabench check {out.name}`.",
        ]
    else:
        lines = [
            "# Codabench bundle: annoscore, " + ", ".join(p.label for p in parts),
            "",
            f"{len(parts)} sub-tasks in one competition, one submission format whatever subset "
            f"a team enters. Check it before uploading: `annoscore codabench check {out.name}`.",
        ]
    sub = "" if single else "SUBTASK/"
    lines += [
        "",
        "- `competition.yaml`: the competition (v2), one leaderboard whose column keys are the "
        "keys the program writes;",
        "- `scoring_program/`: `metadata.yaml` (the command), `score.py` (the launcher), "
        f"`{CONFIG}` (task, options, columns) and `vendor/` (annoscore and the pure-Python "
        "packages the scoring imports);",
        f"- `reference_data/PHASE/{sub}`: each phase's gold standard"
        + ("" if single else ", a folder per sub-task")
        + ";",
        f"- `solutions/PHASE/{sub}`: each phase's gold standard as the submission that scores "
        "best"
        + (
            f" (converted by {', '.join(converted)}: the gold is not itself a submission)"
            if converted
            else ""
        )
        + ";",
        "- `pages/` and `starting_kit/`: what participants read and a sample submission.",
    ]
    if not single:
        lines += [
            "",
            "## Sub-tasks",
            "",
            "A submission holds one folder per sub-task the team enters, named as below; any "
            "subset is a valid submission (the columns of a sub-task left out stay empty in its "
            "row). A folder that is no sub-task's, or a problem in any folder, fails the "
            "submission. Each sub-task's column keys carry its name as a prefix.",
            "",
        ]
        for part in parts:
            keys = ", ".join(f"`{k}`" for k in part.config.columns)
            lines.append(f"- `{part.name}/`: {part.task.name} ({part.task.summary}): {keys}.")
    lines += [
        "",
        "## The image",
        "",
        f"The program needs Python 3.11 or later, numpy and scipy: `{IMAGE}` has them.",
    ]
    if compiled:
        needs = ", ".join(
            f"`{name}`" + (f" (needed by {', '.join(users)})" if users else "")
            for name, users in compiled.items()
        )
        lines += [
            "",
            f"It also needs the compiled package(s) {needs}, which cannot be vendored (a "
            f"compiled package is built for one Python and platform), and `{IMAGE}` is not "
            "known to have them: use an image that does (for example one built from it with "
            "`pip install` of them) as `docker_image`. Without them the program fails at once "
            "with one line naming them.",
        ]
    lines += ["", "## Solutions", ""]
    for phase, _ in golds:
        found = solution_notes.get(phase, [])
        if not (out / "solutions" / phase).exists():
            lines.append(f"- {phase}: none (the gold standard is not a valid submission).")
        elif found:
            lines.append(f"- {phase}: {'; '.join(found)} (the task's official rules).")
        else:
            entered = [p for p in parts if p.where(out / "solutions" / phase).exists()]
            best = []
            for part in entered:
                score = below.get(phase, {}).get(part.name)
                if not part.task.headline:
                    best.append("every score 1.0" if single else f"every {part.name} score 1.0")
                elif score is None:
                    best.append(f"{part.prefix}{part.task.headline} 1.0")
                else:
                    best.append(
                        f"{part.prefix}{part.task.headline} = {score} (an official rule of the "
                        "task's settings)"
                    )
            lines.append(f"- {phase}: scores {', '.join(best)}.")
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _add_columns(
    columns: dict[str, str], headline: str | None, scores: dict[str, Any], prefix: str = ""
) -> None:
    """The defined ``scores`` as leaderboard columns (key -> score), the headline first; each
    key carries ``prefix`` (a sub-task's ``NAME_``)."""
    names = [k for k, v in scores.items() if v is not None]
    if headline in names:
        names.remove(headline)
        names.insert(0, headline)
    for name in names:
        key = column_key(f"{prefix}{name}")
        if key in columns and columns[key] != name:
            raise InputError(f"two scores shorten to the same leaderboard key {key!r}")
        columns[key] = name


def _without_texts(folder: Path) -> None:
    """A brat gold folder as a submission: the ``.ann`` files without the ``.txt`` texts (in
    each sub-task's folder on its own)."""
    folders = [folder]
    if not any(folder.glob("*.ann")):
        folders = [f for f in folder.iterdir() if f.is_dir()] if folder.is_dir() else []
    for each in folders:
        if any(each.rglob("*.ann")):
            for text in each.rglob("*.txt"):
                text.unlink()


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(str(getattr(v, "value", v)) for v in value) or "none"
    return str(getattr(value, "value", value))


def _competition(
    parts: list[_Part], golds: list[tuple[str, Any]], columns: dict[str, str], solved: list[str]
) -> dict[str, Any]:
    today = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    fmt = "%Y-%m-%d %H:%M:%S"
    if parts[0].name is None:
        name, summary = parts[0].task.name, parts[0].task.summary
    else:
        name = ", ".join(f"{p.name}: {p.task.name}" for p in parts)
        summary = "; ".join(f"{p.name}: {p.task.summary}" for p in parts)
    phases = []
    for index, (phase, _) in enumerate(golds):
        start = today + dt.timedelta(days=30 * index)
        entry: dict[str, Any] = {
            "index": index,
            "name": phase,
            "description": f"Phase {phase}: scored by annoscore ({name}).",
            "start": start.strftime(fmt),
            "tasks": [index],
            "max_submissions": 100,
            "max_submissions_per_day": 5,
            "execution_time_limit": 600,
            "starting_kit": "starting_kit",
            "auto_migrate_to_this_phase": False,
        }
        if index + 1 < len(golds):
            entry["end"] = (today + dt.timedelta(days=30 * index + 29)).strftime(fmt)
        phases.append(entry)
    return {
        "version": 2,
        "title": f"annoscore: {summary}"[:200],
        "description": f"Scored by annoscore ({name}).",
        "docker_image": IMAGE,
        "enable_detailed_results": True,
        "pages": [
            {"title": "Overview", "file": "pages/overview.md"},
            {"title": "Evaluation", "file": "pages/evaluation.md"},
            {"title": "Data and submission format", "file": "pages/data.md"},
        ],
        "phases": phases,
        "tasks": [
            {
                "index": index,
                "name": f"{name} {phase}",
                "description": f"{summary} ({phase})",
                "scoring_program": "scoring_program",
                "reference_data": f"reference_data/{phase}",
            }
            for index, (phase, _) in enumerate(golds)
        ],
        "solutions": [
            {"index": index, "path": f"solutions/{phase}", "tasks": [index]}
            for index, (phase, _) in enumerate(golds)
            if phase in solved
        ],
        "leaderboards": [
            {
                "index": 0,
                "title": "Results",
                "key": "main",
                "columns": [
                    {
                        "title": key,
                        "key": key,
                        "index": index,
                        "sorting": "desc",
                        "precision": 4,
                    }
                    for index, key in enumerate(columns)
                ],
            }
        ],
    }
