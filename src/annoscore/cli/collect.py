"""``annoscore collect TEAMS_DIR --task TASK --gold GOLD``: score every team's runs offline.

Biomedical campaigns (CodiEsp, CANTEMIST, MEDDOPROF) collect one zip or folder per team, a
folder per sub-task and up to five numbered runs, and score them offline (campaign.md).  Each
entry of TEAMS_DIR is a team (a folder or a zip; archive litter and a single top folder are
tolerated).  Inside, ``--subtask NAME`` picks the sub-task folder; the runs are the entries whose
name carries a number (``run1``, ``2``, ``team-run3.tsv``), or the team's whole submission when
none does.  Every run is checked and scored as ``annoscore validate`` does
(:mod:`annoscore.cli.campaign`); a run with a problem is listed, not scored.

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

from annoscore.cli.common import fail, guarded, progress, tell, write_output, write_result
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
    from annoscore.cli.campaign import is_litter, unzip

    if entry.is_file() and zipfile.is_zipfile(entry):
        target = work / f"team-{len(list(work.iterdir()))}"
        unzip(entry, target)
        entry = target
    path = entry
    while path.is_dir():
        visible = [p for p in path.iterdir() if not is_litter(p.name)]
        if len(visible) != 1 or not visible[0].is_dir() or NUMBERED.search(visible[0].name):
            break
        path = visible[0]
    return path


def _subtask(folder: Path, name: str) -> Path | None:
    from annoscore.cli.campaign import is_litter

    if folder.name.lower() == name.lower():
        return folder
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and path.name.lower() == name.lower() and not is_litter(path.name):
            return path
    return None


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
        if subtask is not None:
            found = _subtask(folder, subtask) if folder.is_dir() else None
            if found is None:
                tell("warning", f"team {team}: no sub-task folder {subtask!r}: not in this table")
                continue
            folder = found
        entries = (
            sorted(p for p in folder.iterdir() if not is_litter(p.name)) if folder.is_dir() else []
        )
        numbered = [
            p
            for p in entries
            if NUMBERED.search(p.name.removesuffix(".zip"))
            and (p.is_file() if one_file else (p.is_dir() or p.suffix.lower() == ".zip"))
        ]
        if entries and numbered == entries:
            seen: set[str] = set()
            for path in numbered:
                match = NUMBERED.search(path.name.removesuffix(".zip"))
                name = f"run{int(match.group(1))}" if match else path.name
                if name in seen:
                    name = path.name
                seen.add(name)
                runs.append(Run(team, name, path))
        else:
            runs.append(Run(team, "run1", folder))
    return runs


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


def _keys(runs: list[Run]) -> list[str]:
    keys: list[str] = []
    for run in runs:
        if run.result is not None:
            for key in run.result.scores:
                if key not in keys:
                    keys.append(key)
    return keys


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def leaderboard_rows(runs: list[Run]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: rank, team, run, every score, status."""
    keys = _keys(runs)
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


def register(app: typer.Typer) -> None:
    @app.command("collect")
    @guarded
    def collect(
        teams_dir: Annotated[
            Path, typer.Argument(help="A folder with one zip or folder per team.")
        ],
        task: Annotated[str, typer.Option("--task", help="A registered task name.")],
        gold: Annotated[Path, typer.Option("--gold", help="The gold standard.")],
        option: Annotated[
            list[str] | None, typer.Option("--option", help="A task option NAME=VALUE.")
        ] = None,
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
        from annoscore.cli.compare import parse_options
        from annoscore.report.generic import render as render_result
        from annoscore.report.generic import render_json
        from annoscore.report.significance import render as render_comparison
        from annoscore.significance import paired_test
        from annoscore.tasks import registry

        try:
            entry = registry.get(task)
        except KeyError as error:
            raise fail(str(error.args[0])) from None
        options = parse_options(option or [], entry)
        if not gold.exists():
            raise InputError("no such file or folder", gold)
        with tempfile.TemporaryDirectory(prefix="annoscore-collect-") as work:
            unpacked = Path(work) / "teams"
            unpacked.mkdir()
            runs = find_runs(teams_dir, unpacked, subtask, gold.is_file())
            if not runs:
                raise InputError("no team found", teams_dir)
            scoring = Path(work) / "runs"
            scoring.mkdir()
            score_runs(runs, entry, gold, options, scoring)
        if all(run.result is None for run in runs):
            for run in runs:
                tell("error", f"{run.label}: {run.problems[0]}")
            raise fail("no run could be scored")
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
                write_output(
                    out / "runs" / f"{run.label}.txt", render_result(run.result, "text", text)
                )
            else:
                write_output(out / "runs" / f"{run.label}.txt", "\n".join(run.problems) + "\n")
        best = [run for run in ranked(runs) if run.headline is not None][: top + 1]
        if len(best) >= 2:
            comparison = paired_test(
                best[0].result,
                {run.label: run.result for run in best[1:]},
                test=test.value,
                samples=samples,
                seed=seed,
                baseline_name=best[0].label,
                progress=progress,
            )
            write_output(out / "significance.md", render_comparison(comparison, "markdown"))
            write_output(out / "significance.json", render_comparison(comparison, "json"))
        shutil.rmtree(out / "runs" / "__pycache__", ignore_errors=True)
        write_result(markdown, None)
        for run in runs:
            if run.result is None:
                tell("warning", f"{run.label} not scored: {run.problems[0]}")
