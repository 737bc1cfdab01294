"""``annoscore codabench score``, what the launcher runs in the worker: one submission (or one
folder per sub-task entered) scored against the phase's reference data, ``scores.json`` with
the leaderboard's keys (:func:`column_key`) and the detailed results page
(:func:`score_submission`)."""

from __future__ import annotations

import hashlib
import html
import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.cli.codabench_layout import KEY_LENGTH, SHORTER
from annoscore.cli.common import registered, tell
from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.result import Result

# --- score ----------------------------------------------------------------------------------


@dataclass
class BundleConfig:
    """``annoscore-bundle.json``: the task, its options (as ``--option`` spells them, path
    options relative to the file's folder), the leaderboard's columns (key written -> score
    key) and the compiled packages the image must provide (name -> the distributions that need
    it; the launcher checks them first).

    A bundle of sub-tasks has no task of its own: ``subtasks`` maps each sub-task's name (its
    folder in the submission and the reference data) to its own configuration, whose column
    keys carry the prefix ``NAME_``; ``columns`` is then every sub-task's, in order."""

    task: str
    options: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
    image: dict[str, list[str]] = field(default_factory=dict)
    subtasks: dict[str, BundleConfig] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> BundleConfig:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            config = cls._from(data, data.get("task", "") if "subtasks" in data else data["task"])
            config.image = {str(k): list(v) for k, v in data.get("image", {}).items()}
            for name, part in dict(data.get("subtasks", {})).items():
                config.subtasks[str(name)] = cls._from(part, part["task"])
            return config
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise InputError(f"not a readable bundle configuration: {error}", path) from None

    @classmethod
    def _from(cls, data: dict[str, Any], task: Any) -> BundleConfig:
        return cls(
            str(task),
            dict(data.get("options", {})),
            list(data.get("paths", [])),
            dict(data.get("columns", {})),
        )

    def _data(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "options": self.options,
            "paths": self.paths,
            "columns": self.columns,
        }

    def write(self, path: Path) -> None:
        if self.subtasks:
            data: dict[str, Any] = {
                "subtasks": {name: part._data() for name, part in self.subtasks.items()},
                "columns": self.columns,
                "image": self.image,
            }
        else:
            data = {**self._data(), "image": self.image}
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def option_items(self, folder: Path) -> list[str]:
        """``NAME=VALUE`` items, path options made absolute against ``folder``."""
        return [f"{k}={folder / v if k in self.paths else v}" for k, v in self.options.items()]


SUBTASK_STYLE = "iframe{width:100%;height:85vh;border:1px solid #ccc}"
"""The sub-tasks' page: each sub-task's report in a frame (its own page: ids and scripts)."""


def _page(title: str, body: str, more_style: str = "") -> str:
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:1em auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}"
        ".bad{color:#a00}"
    ) + more_style
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _items(title: str, items: list[str], cls: str = "", heading: str = "h2") -> str:
    """A titled list (``heading``: ``h3`` inside a report's card; nothing when ``items`` is
    empty), of class ``cls`` when given."""
    if not items:
        return ""
    rows = "".join(f"<li>{html.escape(i)}</li>" for i in items)
    start = f"<ul class='{cls}'>" if cls else "<ul>"
    return f"<{heading}>{html.escape(title)}</{heading}>{start}{rows}</ul>"


def _detailed(path: Path, title: str, body: str, notes: list[str], warnings: list[str]) -> None:
    """Write the detailed results page: ``body``, then the notes and the warnings."""
    page = _page(title, body + _items("Notes", notes) + _items("Warnings", warnings))
    path.write_text(page, encoding="utf-8")


def _cannot_score(
    path: Path, title: str, problems: list[str], notes: list[str], warnings: list[str], say: Any
) -> int:
    """Exit status 2 for a submission that cannot be scored: every problem in the detailed
    results page, the first on stderr."""
    body = _items(f"The submission cannot be scored ({len(problems)} problem(s))", problems, "bad")
    _detailed(path, title, body, notes, warnings)
    more = f" (and {len(problems) - 1} more: see the detailed results)" if problems[1:] else ""
    say("error", f"{problems[0]}{more}")
    return 2


def _report(
    result: Result,
    columns: dict[str, str],
    shown: dict[str, float],
    lists: list[tuple[str, list[str]]],
) -> str:
    """The detailed results of a scored submission: the HTML report of ``result``
    (:func:`annoscore.report.html.render_html`, texts left out) with a first card: each
    leaderboard column and its value (``undefined`` where ``scores.json`` leaves it out), then
    ``lists`` (left out, notes, warnings shown to the participant).

    The report's item-level sections (worst queries and their judged documents, gold codes
    never predicted, MUC key fills, coreference entities) come from ``result.details`` and show
    the reference data: they are left out (the page is shown to participants)."""
    import dataclasses

    from annoscore.report.html import render_html
    from annoscore.report.html_page import escape, number_cell

    rows = "".join(
        f"<tr><td><code>{escape(key)}</code></td><td>{escape(name)}</td>"
        + (
            number_cell(shown[key], ["scores", name])
            if key in shown
            else '<td class="num neg">undefined</td>'
        )
        + "</tr>"
        for key, name in columns.items()
    )
    table = (
        '<table id="leaderboard-columns"><tr><th>column</th><th>score</th>'
        f'<th class="num">value</th></tr>{rows}</table>'
    )
    card = table + "".join(_items(title, items, heading="h3") for title, items in lists)
    bare = dataclasses.replace(result, details=None, _cache={})
    return render_html(bare, text=False, first=[("leaderboard", "Leaderboard", card)])


def leaderboard_scores(scores: dict[str, Any], columns: dict[str, str]) -> dict[str, float]:
    """The flat ``scores.json``: each column's score when it is a finite number (an undefined
    score is left out).

    >>> leaderboard_scores({"f1": 0.5, "precision": None}, {"f1": "f1", "p": "precision"})
    {'f1': 0.5}
    """
    out: dict[str, float] = {}
    for key, name in columns.items():
        value = scores.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if math.isfinite(value):
            out[key] = float(value)
    return out


def score_submission(
    input_dir: Path, output_dir: Path, config: BundleConfig, base: Path, *, quiet: bool = False
) -> int:
    """Score ``input_dir/res`` against ``input_dir/ref`` as the bundle's task; write
    ``scores.json``, ``detailed_results.html`` (first "Scoring...", then the report:
    :func:`_report`) and ``result.json`` in ``output_dir``.  Returns
    the exit status: 0 scored, 2 a malformed submission (one line on stderr; every problem in
    the detailed results)."""
    from annoscore.cli.campaign import check, gold_input, prepare
    from annoscore.cli.compare import parse_options
    from annoscore.report.generic import render_json

    if config.subtasks:
        return _score_subtasks(input_dir, output_dir, config, base, quiet=quiet)
    output_dir.mkdir(parents=True, exist_ok=True)
    detailed = output_dir / "detailed_results.html"
    title = f"annoscore {config.task}"
    detailed.write_text(_page(title, "<p>Scoring...</p>"), encoding="utf-8")
    task = registered(config.task)
    options = parse_options(config.option_items(base), task)
    reference, submission = input_dir / "ref", input_dir / "res"
    if not reference.is_dir():
        raise InputError("no reference data (expected a folder 'ref')", input_dir)
    gold = gold_input(reference)
    with tempfile.TemporaryDirectory(prefix="annoscore-codabench-") as work:
        prepared = prepare(submission, Path(work), one_file=gold.is_file(), label="submission")
        checked = check(task, gold, prepared, options)
    say = (lambda kind, text: None) if quiet else tell
    for note in checked.notes:
        say("warning", note)
    warnings = [str(w) for w in checked.warnings]
    if checked.result is None:
        problems = [str(p) for p in checked.problems] or [str(checked.stopped)]
        return _cannot_score(detailed, title, problems, checked.notes, warnings, say)
    result = checked.result
    for warning in warnings:
        say("warning", warning)
    columns = config.columns or {k: k for k in result.scores}
    written = leaderboard_scores(dict(result.scores), columns)
    left_out = [k for k in columns if k not in written]
    if not written:  # nothing a leaderboard can show: fail, do not write an empty row
        body = _items("No score is defined for this submission", left_out, "bad")
        _detailed(detailed, title, body, checked.notes, warnings)
        say("error", f"no score is defined for this submission: {', '.join(left_out)}")
        return 2
    (output_dir / "scores.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    (output_dir / "result.json").write_text(render_json(result), encoding="utf-8")
    lists = [("Left out of the leaderboard (undefined)", left_out), ("Notes", checked.notes)]
    lists.append(("Warnings", warnings))
    detailed.write_text(_report(result, columns, written, lists), encoding="utf-8")
    return 0


def _step_in(folder: Path, keep: frozenset[str]) -> Path:
    """``folder``, or the single top folder (not named in ``keep``) it holds alone."""
    from annoscore.cli.campaign import visible

    for _ in range(8):
        entries = visible(folder)
        if len(entries) != 1 or not entries[0].is_dir() or entries[0].name.lower() in keep:
            break
        folder = entries[0]
    return folder


def _score_subtasks(
    input_dir: Path, output_dir: Path, config: BundleConfig, base: Path, *, quiet: bool
) -> int:
    """:func:`score_submission` for a bundle of sub-tasks: the submission holds one folder per
    sub-task a team enters (any subset); each is checked and scored as its task.  A sub-task
    not entered is no error: its columns are left out of ``scores.json`` and named in the
    detailed results; a problem in any folder, or a folder that is no sub-task, fails the
    submission (exit 2, one line; every problem in the detailed results)."""
    from annoscore.cli.campaign import check, gold_input, prepare, subtask_folders
    from annoscore.cli.compare import parse_options
    from annoscore.report.generic import render_json

    names = list(config.subtasks)
    keep = frozenset(name.lower() for name in names)
    output_dir.mkdir(parents=True, exist_ok=True)
    detailed = output_dir / "detailed_results.html"
    title = "annoscore " + ", ".join(f"{n} ({c.task})" for n, c in config.subtasks.items())
    detailed.write_text(_page(title, "<p>Scoring...</p>"), encoding="utf-8")
    reference, submission = input_dir / "ref", input_dir / "res"
    if not reference.is_dir():
        raise InputError("no reference data (expected a folder 'ref')", input_dir)
    golds, _, _ = subtask_folders(_step_in(reference, keep), names)
    if len(golds) < len(names):
        lacking = ", ".join(n for n in names if n not in golds)
        raise InputError(f"no reference data for the sub-task(s) {lacking}", reference)
    say = (lambda kind, text: None) if quiet else tell
    problems: list[str] = []
    notes: list[str] = []
    warnings: list[str] = []
    results: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="annoscore-codabench-") as work:
        top = prepare(submission, Path(work) / "all", one_file=False, label="submission", keep=keep)
        notes += top.notes
        entered, others, found = subtask_folders(top.path, names)
        notes += found
        expected = ", ".join(names)
        if not entered:
            held = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if others[5:] else "")
            problems.append(
                f"the submission holds no sub-task folder (expected {expected}): it holds {held}"
            )
        else:
            problems += [f"'{o}' is no sub-task's folder (expected {expected})" for o in others]
        for index, (name, folder) in enumerate(entered.items()):
            part = config.subtasks[name]
            task = registered(part.task)
            options = parse_options(part.option_items(base), task)
            gold = gold_input(golds[name])
            try:
                prepared = prepare(
                    folder, Path(work) / f"part-{index}", one_file=gold.is_file(), label=name
                )
            except InputError as error:
                problems.append(str(error))
                continue
            checked = check(task, gold, prepared, options)
            notes += [f"{name}: {note}" for note in checked.notes]
            warnings += [f"{name}: {warning}" for warning in checked.warnings]
            if checked.result is None:
                problems += [str(p) for p in checked.problems] or [str(checked.stopped)]
            else:
                results[name] = checked.result
    for note in notes:
        say("warning", note)
    if problems:
        return _cannot_score(detailed, title, problems, notes, warnings, say)
    for warning in warnings:
        say("warning", warning)
    missing = [name for name in names if name not in results]
    if missing:
        say("warning", f"sub-task(s) not entered: {', '.join(missing)} (no score for them)")
    written: dict[str, float] = {}
    rows = ""
    reports = ""
    left_out: list[str] = []
    for name, part in config.subtasks.items():
        result = results.get(name)
        columns = part.columns or {
            column_key(f"{name}_{k}"): k for k in (result.scores if result else {})
        }
        mine = {} if result is None else leaderboard_scores(dict(result.scores), columns)
        for key, score in columns.items():
            shown = "undefined" if key not in mine else f"{mine[key]:.4f}"
            shown = "not entered" if result is None else shown
            rows += (
                f"<tr><td>{html.escape(name)}</td><td><code>{html.escape(key)}</code></td>"
                f"<td>{html.escape(score)}</td><td>{shown}</td></tr>"
            )
        if result is None:
            continue
        written.update(mine)
        undefined = [k for k in columns if k not in mine]
        left_out += undefined
        own = f"{name}: "
        lists = [("Left out of the leaderboard (undefined)", undefined)]
        lists.append(("Notes", [n for n in notes if n.startswith(own)]))
        lists.append(("Warnings", [w for w in warnings if w.startswith(own)]))
        page = _report(result, columns, mine, lists)
        reports += (
            f"<h2 id='subtask-{html.escape(name)}'>{html.escape(name)} "
            f"({html.escape(part.task)})</h2><iframe title='{html.escape(name)}' "
            f"srcdoc='{html.escape(page)}'></iframe>"
        )
    if not written:
        body = _items("No score is defined for this submission", left_out, "bad")
        _detailed(detailed, title, body, notes, warnings)
        say("error", f"no score is defined for this submission: {', '.join(left_out)}")
        return 2
    absent = [
        f"{name}: {', '.join(config.subtasks[name].columns) or 'every column'}" for name in missing
    ]
    (output_dir / "scores.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    full = {"subtasks": {name: json.loads(render_json(r)) for name, r in results.items()}}
    (output_dir / "result.json").write_text(
        json.dumps(full, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    body = (
        "<table id='leaderboard-columns'><tr><th>sub-task</th><th>column</th><th>score</th>"
        f"<th>value</th></tr>{rows}</table>"
    )
    body += _items("Sub-tasks not entered (their columns are left out)", absent)
    if left_out:
        body += _items("Left out of the leaderboard (undefined)", left_out, "bad")
    body += _items("Notes", notes) + _items("Warnings", warnings)
    body += "<p>Each sub-task entered: its report (texts left out).</p>" + reports
    page = _page(title, body, SUBTASK_STYLE)
    detailed.write_text(page, encoding="utf-8")
    return 0


# --- init -----------------------------------------------------------------------------------


def column_key(name: str) -> str:
    """A leaderboard key of at most 36 characters for the score ``name``.

    >>> column_key("f1")
    'f1'
    >>> column_key("covid_symptom_instance_relax_precision")
    'covid_symptom_inst_rl_p'
    """
    if len(name) <= KEY_LENGTH:
        return name
    parts = [SHORTER.get(p, p) for p in name.split("_")]
    short = "_".join(parts)
    if len(short) > KEY_LENGTH:
        digest = hashlib.sha1(name.encode()).hexdigest()[:6]
        short = f"{short[: KEY_LENGTH - 7]}_{digest}"
    return short
