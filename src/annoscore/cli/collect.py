"""``annoscore collect TEAMS_DIR --task TASK --gold GOLD``: score every team's runs offline.

Biomedical campaigns (CodiEsp, CANTEMIST, MEDDOPROF) collect one zip or folder per team, a
folder per sub-task and up to five numbered runs, and score them offline (campaign.md).  Each
entry of TEAMS_DIR is a team (a folder or a zip; archive litter and a single top folder are
tolerated).  Inside, ``--subtask NAME`` picks the sub-task folder; the runs are the entries whose
name carries a number (``run1``, ``2``, ``team-run3.tsv``), or the team's whole submission when
none does.  The sub-task folder may also sit inside each run (``run1/subtask1/``,
``run2/subtask1/``, as a Codabench submission of sub-tasks holds them): each is then a run,
numbered by the folder above it.  Every run is checked and scored as ``annoscore codabench
score`` does (:func:`annoscore.cli.campaign.check`: what the official script scores with a
warning, which ``annoscore validate`` names as a problem, is scored with the warning); a run with
a problem is listed, not scored.

Several sub-tasks at once: ``--task NAME=TASK`` for each (NAME is the sub-task's folder), the
gold as ``--gold DIR`` holding a folder per sub-task or ``--gold NAME=PATH`` for each, and
``--option [NAME:]OPTION=VALUE``; each sub-task gets its own leaderboard, reports and tests in
``--out/NAME/``.

Written in ``--out``: ``leaderboard.csv``, ``leaderboard.md``, ``leaderboard.tex`` and
``leaderboard.json`` (the runs by headline score, best first), ``runs/TEAM.RUN.json`` (each
run's full result) and ``runs/TEAM.RUN.txt`` (its report, the official layout where the task has
one), and ``significance.md`` / ``significance.json``: the paired test of the best run against
each of the next ``--top`` runs, document by document.  The Markdown leaderboard is also printed.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from annoscore.cli.common import (
    SubtaskOptions,
    fail,
    guarded,
    progress,
    registered,
    tell,
    write_result,
)
from annoscore.cli.writing import write_output
from annoscore.errors import InputError

NUMBERED = re.compile(r"(?:^|run|[-_. ])(\d+)(?:\.[A-Za-z]\w*)*$", re.IGNORECASE)
"""A run's number at the end of its name: ``run1``, ``2``, ``team-run3.tsv``, ``team_4.tsv``
(``subtask1`` is no run)."""


class TestChoice(str, Enum):
    __test__ = False

    bootstrap = "bootstrap"
    randomization = "randomization"


@dataclass
class Run:
    """One run of one team: its result, or the problems that kept it from being scored."""

    team: str
    name: str
    path: Path
    result: Any = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.team}.{self.name}"

    @property
    def headline(self) -> float | None:
        if self.result is None or self.result.headline is None:
            return None
        value = self.result.score
        return None if value is None else float(value)


def _unpacked(entry: Path, work: Path) -> Path:
    from annoscore.cli.campaign import unzip, visible

    if entry.is_file() and zipfile.is_zipfile(entry):
        target = work / f"team-{len(list(work.iterdir()))}"
        unzip(entry, target)
        entry = target
    path = entry
    while path.is_dir():
        entries = visible(path)
        if len(entries) != 1 or not entries[0].is_dir() or NUMBERED.search(entries[0].name):
            break
        path = entries[0]
    return path


def _subtask(folder: Path, name: str) -> list[Path]:
    """The folders named ``name`` (ignoring case) in ``folder`` (or ``folder`` itself), the
    outermost ones."""
    from annoscore.cli.campaign import is_litter

    if folder.name.lower() == name.lower():
        return [folder]
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_dir() or path.name.lower() != name.lower():
            continue
        parts = path.relative_to(folder).parts
        if any(is_litter(part) for part in parts) or any(f in path.parents for f in found):
            continue
        found.append(path)
    return found


def _run_name(name: str) -> str | None:
    """``runN`` for an entry whose name carries run number N (:data:`NUMBERED`), else ``None``."""
    match = NUMBERED.search(name.removesuffix(".zip"))
    return f"run{int(match.group(1))}" if match else None


def _run_above(folder: Path, found: Path) -> str | None:
    """The run a sub-task folder belongs to: the number of the innermost numbered folder
    between the team's ``folder`` and it (``run2/subtask1`` -> ``run2``)."""
    names = map(_run_name, reversed(found.relative_to(folder).parts[:-1]))
    return next((name for name in names if name is not None), None)


def _named_runs(team: str, named: list[tuple[Path, str | None, str]]) -> list[Run]:
    """The runs at the paths of ``(path, name, fallback)``, each named ``name``, or
    ``fallback`` where it has none or an earlier run has it already."""
    runs: list[Run] = []
    seen: set[str] = set()
    for path, name, fallback in named:
        name = fallback if name is None or name in seen else name
        seen.add(name)
        runs.append(Run(team, name, path))
    return runs


def find_runs(teams_dir: Path, work: Path, subtask: str | None, one_file: bool) -> list[Run]:
    """Every team's runs (see the module doc); ``one_file``: a run is one file (else a
    folder or a zip)."""
    from annoscore.cli.campaign import is_litter

    if not teams_dir.is_dir():
        raise InputError("expected a folder with one zip or folder per team", teams_dir)
    runs: list[Run] = []
    for entry in sorted(teams_dir.iterdir()):
        if is_litter(entry.name) or entry.name.startswith("."):
            continue
        team = entry.name.removesuffix(".zip")
        folder = _unpacked(entry, work)
        if subtask is None:
            runs += _team_runs(team, folder, one_file)
            continue
        found = _subtask(folder, subtask) if folder.is_dir() else []
        if not found:
            tell("warning", f"team {team}: no sub-task folder {subtask!r}: not in this table")
            continue
        named = [(path, _run_above(folder, path)) for path in found]
        if len(found) == 1 and named[0][1] is None:
            runs += _team_runs(team, found[0], one_file)
            continue
        runs += _named_runs(team, [(p, run, p.relative_to(folder).as_posix()) for p, run in named])
    return runs


def _team_runs(team: str, folder: Path, one_file: bool) -> list[Run]:
    """A team's runs in ``folder``: its numbered entries, or the whole folder."""
    from annoscore.cli.campaign import visible

    entries = visible(folder)
    numbered = [
        p
        for p in entries
        if _run_name(p.name)
        and (p.is_file() if one_file else (p.is_dir() or p.suffix.lower() == ".zip"))
    ]
    if not entries or numbered != entries:
        return [Run(team, "run1", folder)]
    return _named_runs(team, [(p, _run_name(p.name), p.name) for p in numbered])


def score_runs(runs: list[Run], task: Any, gold: Path, options: Any, work: Path) -> None:
    """Check and score every run in place."""
    from annoscore.cli.campaign import check, prepare

    for index, run in enumerate(runs):
        folder = work / f"run-{index}"
        folder.mkdir()
        try:
            prepared = prepare(run.path, folder, one_file=gold.is_file(), label=run.label)
        except InputError as error:
            run.problems.append(str(error))
            continue
        checked = check(task, gold, prepared, options)
        run.notes = list(checked.notes) + [str(w) for w in checked.warnings]
        if checked.result is None:
            run.problems = [str(p) for p in checked.problems]
        else:
            run.result = checked.result
        progress(index + 1, len(runs))


def ranked(runs: list[Run]) -> list[Run]:
    """The runs by headline, best first; undefined and unscored runs last (stable)."""
    return sorted(runs, key=lambda r: (r.headline is None, -(r.headline or 0.0)))


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def leaderboard_rows(runs: list[Run]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: rank, team, run, every score, status."""
    keys = list(dict.fromkeys(k for r in runs if r.result is not None for k in r.result.scores))
    header = ["rank", "team", "run", *keys, "status"]
    rows = []
    for rank, run in enumerate(ranked(runs), 1):
        scores = run.result.scores if run.result is not None else {}
        status = "scored" if run.result is not None else f"not scored: {run.problems[0]}"
        if len(run.problems) > 1:
            status += f" (and {len(run.problems) - 1} more)"
        shown = str(rank) if run.result is not None else ""
        rows.append([shown, run.team, run.name, *(_cell(scores.get(k)) for k in keys), status])
    return header, rows


def render_csv(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([["" if c == "-" else c for c in row] for row in rows])
    return buffer.getvalue()


def render_markdown(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (``|`` in a cell escaped).

    >>> print(render_markdown(["a", "b"], [["1", "x|y"]]), end="")
    | a | b |
    |---|---|
    | 1 | x\\|y |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped.

    >>> latex_escape("team_1 & 50%")
    'team\\_1 \\& 50\\%'
    """
    return "".join(LATEX_SPECIAL.get(c, c) for c in text)


def render_latex(header: list[str], rows: list[list[str]]) -> str:
    """A ``tabular`` (booktabs rules); the status column is left out (see the CSV)."""
    header, rows = header[:-1], [row[:-1] for row in rows]
    spec = "rll" + "r" * (len(header) - 3)
    lines = [
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in rows]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


@dataclass
class Settings:
    """How ``collect`` compares the runs: the paired test, its samples and seed, how many
    runs below the best."""

    test: TestChoice
    samples: int | None
    seed: int
    top: int


def collect_one(
    teams_dir: Path,
    entry: Any,
    gold: Path,
    options: Any,
    subtask: str | None,
    out: Path,
    settings: Settings,
) -> tuple[str, list[Run]]:
    """Score every team's runs of one task (one sub-task) and write its leaderboard, reports
    and tests in ``out``; the Markdown leaderboard and the runs (none scored: nothing
    written)."""
    from annoscore.report.generic import render as render_result
    from annoscore.report.generic import render_json
    from annoscore.report.significance import render as render_comparison
    from annoscore.significance import paired_test

    if not gold.exists():
        raise InputError("no such file or folder", gold)
    with tempfile.TemporaryDirectory(prefix="annoscore-collect-") as work:
        unpacked = Path(work) / "teams"
        unpacked.mkdir()
        runs = find_runs(teams_dir, unpacked, subtask, gold.is_file())
        if not runs:
            return "", []
        scoring = Path(work) / "runs"
        scoring.mkdir()
        score_runs(runs, entry, gold, options, scoring)
    if all(run.result is None for run in runs):
        return "", runs
    (out / "runs").mkdir(parents=True, exist_ok=True)
    header, rows = leaderboard_rows(runs)
    write_output(out / "leaderboard.csv", render_csv(header, rows))
    markdown = render_markdown(header, rows)
    write_output(out / "leaderboard.md", markdown)
    write_output(out / "leaderboard.tex", render_latex(header, rows))
    board = [
        {
            "team": run.team,
            "run": run.name,
            "scores": None if run.result is None else dict(run.result.scores),
            "problems": run.problems,
            "warnings": run.notes,
        }
        for run in ranked(runs)
    ]
    write_output(
        out / "leaderboard.json",
        json.dumps({"task": entry.name, "runs": board}, indent=2, ensure_ascii=False) + "\n",
    )
    text = entry.text_renderer()
    for run in runs:
        if run.result is not None:
            write_output(out / "runs" / f"{run.label}.json", render_json(run.result))
            write_output(out / "runs" / f"{run.label}.txt", render_result(run.result, "text", text))
        else:
            write_output(out / "runs" / f"{run.label}.txt", "\n".join(run.problems) + "\n")
    best = [run for run in ranked(runs) if run.headline is not None][: settings.top + 1]
    if len(best) >= 2:
        comparison = paired_test(
            best[0].result,
            {run.label: run.result for run in best[1:]},
            test=settings.test.value,
            samples=settings.samples,
            seed=settings.seed,
            baseline_name=best[0].label,
            progress=progress,
        )
        write_output(out / "significance.md", render_comparison(comparison, "markdown"))
        write_output(out / "significance.json", render_comparison(comparison, "json"))
    shutil.rmtree(out / "runs" / "__pycache__", ignore_errors=True)
    return markdown, runs


def _subtask_golds(items: list[str], names: list[str]) -> dict[str, Path]:
    """``--gold DIR`` (a folder per sub-task) or ``--gold NAME=PATH`` items: each sub-task's."""
    from annoscore.cli.campaign import subtask_folders
    from annoscore.formats.files import input_path  # a URL read into a local copy

    if len(items) == 1 and "=" not in items[0]:
        folder = input_path(items[0])
        if not folder.is_dir():
            raise InputError("expected a folder holding one folder per sub-task", folder)
        found, _, _ = subtask_folders(folder, names)
    else:
        found = {}
        for item in items:
            name, equals, path = (part.strip() for part in item.partition("="))
            if not equals or name not in names or not path or name in found:
                raise InputError(
                    f"--gold {item!r}: expected one DIR holding a folder per sub-task, or "
                    f"NAME=PATH once for each sub-task ({', '.join(names)})"
                )
            found[name] = input_path(path)
    lacking = [name for name in names if name not in found]
    if lacking:
        raise InputError(f"--gold: no gold standard for the sub-task(s) {', '.join(lacking)}")
    return {name: found[name] for name in names}


def register(app: typer.Typer) -> None:
    @app.command(
        "collect",
        epilog="Sub-tasks: collect teams/ --task subtask1=pharmaconer-ner --task "
        "subtask2=pharmaconer-indexing --gold gold/ --option subtask2:gold_ann=gold/subtask1 "
        "--out results/ (gold/ holds a folder per sub-task, or --gold NAME=PATH each): one "
        "leaderboard per sub-task in results/NAME/.",
    )
    @guarded
    def collect(
        teams_dir: Annotated[
            Path, typer.Argument(help="A folder with one zip or folder per team.")
        ],
        task: Annotated[
            list[str],
            typer.Option(
                "--task",
                help="A registered task name; or NAME=TASK for each sub-task (NAME: its "
                "folder in the teams' runs).",
            ),
        ],
        gold: Annotated[
            list[str],
            typer.Option(
                "--gold",
                help="The gold standard (with sub-tasks: a folder holding one folder per "
                "sub-task, or NAME=PATH for each).",
            ),
        ],
        option: SubtaskOptions = None,
        subtask: Annotated[
            str | None,
            typer.Option("--subtask", help="The sub-task folder to read in each team's runs."),
        ] = None,
        out: Annotated[
            Path, typer.Option("--out", help="The folder for the leaderboard and reports.")
        ] = Path("collected"),
        top: Annotated[
            int,
            typer.Option("--top", min=0, help="Paired tests: the best run against the next N."),
        ] = 4,
        test: Annotated[
            TestChoice, typer.Option("--test", help="bootstrap or randomization.")
        ] = TestChoice.bootstrap,
        samples: Annotated[
            int | None, typer.Option("--samples", min=1, help="Resamples or trials.")
        ] = None,
        seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed.")] = 12345,
    ) -> None:
        """Score every team's runs: the leaderboard (CSV, Markdown, LaTeX, JSON), a report per
        run, and the paired tests between the top runs; e.g. collect submissions/ --task
        codiesp-d --gold gs_D.tsv --option codes=codes.tsv --subtask codiesp-d --out results/."""
        from annoscore.cli.campaign import subtask_arguments, subtask_options
        from annoscore.cli.compare import parse_options
        from annoscore.formats.files import input_path

        settings = Settings(test, samples, seed, top)
        single = len(task) == 1 and "=" not in task[0]
        if single:
            if len(gold) != 1:
                raise fail("--gold: one gold standard for one task")
            jobs = [(subtask, task[0], input_path(gold[0]), option or [], out)]
        else:
            if subtask is not None:
                raise fail("--subtask: with sub-tasks, each --task NAME=TASK names its folder")
            subtasks = subtask_arguments(task)
            golds = _subtask_golds(gold, [name for name, _ in subtasks])
            items = subtask_options(option or [], subtasks)
            jobs = [(n, t, golds[n], items[n], out / n) for n, t in subtasks]
        prepared = []
        for name, task_name, gold_path, items_of, folder in jobs:
            entry = registered(task_name)
            prepared.append((name, entry, gold_path, parse_options(items_of, entry), folder))
        shown: list[str] = []
        later: list[str] = []
        failed: list[str] = []
        for name, entry, gold_path, options, folder in prepared:
            markdown, runs = collect_one(
                teams_dir, entry, gold_path, options, name, folder, settings
            )
            if not runs:
                if single:
                    raise InputError("no team found", teams_dir)
                tell("warning", f"sub-task {name}: no team entered it: no leaderboard")
                continue
            if not markdown:
                for run in runs:
                    tell("error", f"{run.label}: {run.problems[0]}")
                if single:
                    raise fail("no run could be scored")
                failed.append(str(name))
                continue
            shown.append(markdown if single else f"## {name} ({entry.name})\n\n{markdown}")
            later += [f"{r.label} not scored: {r.problems[0]}" for r in runs if r.result is None]
        if shown:
            write_result("\n".join(shown), None)
        for warning in later:
            tell("warning", warning)
        if failed:
            raise fail(f"no run could be scored for the sub-task(s) {', '.join(failed)}")
        if not shown:
            raise InputError("no team entered any sub-task", teams_dir)
