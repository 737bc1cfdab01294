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

import datetime as dt
import hashlib
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from annoscore.cli.common import fail, guarded, registered, tell, write_result
from annoscore.errors import InputError

IMAGE = "codalab/codalab-legacy:py312"
"""The pinned image: Python 3.12, numpy 1.26, scipy 1.11, PyYAML (campaign.md)."""
IMAGES_WITH_PYTHON_311 = frozenset({IMAGE})
"""Images known to run Python 3.11 or later."""
CONFIG = "annoscore-bundle.json"
COMMAND = "python3 $program/score.py $input $output"
KEY_LENGTH = 36
"""Codabench's limit on a column's key and title."""
PLACEHOLDERS = {
    "$predictions": "/app/input/res",
    "$program": "/app/program",
    "$hidden": "/app/input/ref",
    "$shared": "/app/shared",
    "$output": "/app/output",
    "$input": "/app/input",
    "$tmp": "/app/output/tmp",
}
"""The worker's legacy placeholders (longest first where one begins another)."""
IMAGE_PROVIDES = frozenset({"numpy", "scipy", "numpy.libs", "scipy.libs", "yaml", "_yaml"})
SHORTER = {"precision": "p", "recall": "r", "instance": "inst", "strict": "st", "relax": "rl"}

LAUNCHER = '''"""Codabench scoring program: annoscore {version}, vendored (task, options: {config}).

Run as the worker runs it: python3 score.py INPUT OUTPUT (defaults /app/input /app/output).
"""

import os
import sys

if sys.version_info < (3, 11):
    sys.stderr.write("annoscore needs Python 3.11 or later; this image has %s\\n" % sys.version)
    sys.exit(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vendor"))
os.environ["ANNOSCORE_NLTK_ENGINE"] = "re"  # NLTK's rules on the stdlib's re: no regex package
sys.dont_write_bytecode = True

import importlib.util  # noqa: E402
import json  # noqa: E402

with open(os.path.join(HERE, "{config}"), encoding="utf-8") as config:
    image = json.load(config).get("image", {{}})
missing = [name for name in image if importlib.util.find_spec(name) is None]
if missing:
    needs = ", ".join(
        name + (" (needed by " + ", ".join(image[name]) + ")" if image[name] else "")
        for name in missing
    )
    sys.stderr.write("annoscore: error: the image lacks the compiled package(s) %s\\n" % needs)
    sys.exit(1)

from annoscore.cli import main  # noqa: E402

folders = sys.argv[1:3] or ["/app/input", "/app/output"]
main(["codabench", "score", *folders, "--config", os.path.join(HERE, "{config}")])
'''


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


def _page(title: str, body: str) -> str:
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:1em auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}"
        ".bad{color:#a00}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _items(title: str, items: list[str], cls: str = "") -> str:
    if not items:
        return ""
    rows = "".join(f"<li>{html.escape(i)}</li>" for i in items)
    return f"<h2>{html.escape(title)}</h2><ul class='{cls}'>{rows}</ul>"


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
    ``scores.json``, ``detailed_results.html`` and ``result.json`` in ``output_dir``.  Returns
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
        problems = [str(p) for p in checked.problems]
        body = _items(
            f"The submission cannot be scored ({len(problems)} problem(s))", problems, "bad"
        )
        body += _items("Notes", checked.notes) + _items("Warnings", warnings)
        detailed.write_text(_page(title, body), encoding="utf-8")
        more = (
            f" (and {len(problems) - 1} more: see the detailed results)"
            if len(problems) > 1
            else ""
        )
        say("error", f"{problems[0] if problems else checked.stopped}{more}")
        return 2
    result = checked.result
    for warning in warnings:
        say("warning", warning)
    columns = config.columns or {k: k for k in result.scores}
    written = leaderboard_scores(dict(result.scores), columns)
    left_out = [k for k in columns if k not in written]
    if not written:  # nothing a leaderboard can show: fail, do not write an empty row
        body = _items("No score is defined for this submission", left_out, "bad")
        body += _items("Notes", checked.notes) + _items("Warnings", warnings)
        detailed.write_text(_page(title, body), encoding="utf-8")
        say("error", f"no score is defined for this submission: {', '.join(left_out)}")
        return 2
    (output_dir / "scores.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    (output_dir / "result.json").write_text(render_json(result), encoding="utf-8")
    rows = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{html.escape(n)}</td>"
        f"<td>{'undefined' if k not in written else f'{written[k]:.4f}'}</td></tr>"
        for k, n in columns.items()
    )
    counts = ", ".join(f"{k} {v}" for k, v in result.counts.as_dict().items())
    body = (
        f"<p>Signature: <code>{html.escape(str(result.signature))}</code></p>"
        f"<table><tr><th>column</th><th>score</th><th>value</th></tr>{rows}</table>"
        f"<p>Counts: {html.escape(counts)}</p>"
    )
    if left_out:
        body += _items("Left out of the leaderboard (undefined)", left_out, "bad")
    body += _items("Notes", checked.notes) + _items("Warnings", warnings)
    detailed.write_text(_page(title, body), encoding="utf-8")
    return 0


def _step_in(folder: Path, keep: frozenset[str]) -> Path:
    """``folder``, or the single top folder (not named in ``keep``) it holds alone."""
    from annoscore.cli.campaign import is_litter

    for _ in range(8):
        entries = [p for p in folder.iterdir() if not is_litter(p.name)]
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
    from annoscore.result import Result

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
        body = _items(
            f"The submission cannot be scored ({len(problems)} problem(s))", problems, "bad"
        )
        body += _items("Notes", notes) + _items("Warnings", warnings)
        detailed.write_text(_page(title, body), encoding="utf-8")
        more = f" (and {len(problems) - 1} more: see the detailed results)" if problems[1:] else ""
        say("error", f"{problems[0]}{more}")
        return 2
    for warning in warnings:
        say("warning", warning)
    missing = [name for name in names if name not in results]
    if missing:
        say("warning", f"sub-task(s) not entered: {', '.join(missing)} (no score for them)")
    written: dict[str, float] = {}
    body = ""
    left_out: list[str] = []
    for name, part in config.subtasks.items():
        result = results.get(name)
        columns = part.columns or {
            column_key(f"{name}_{k}"): k for k in (result.scores if result else {})
        }
        if result is None:
            continue
        mine = leaderboard_scores(dict(result.scores), columns)
        written.update(mine)
        left_out += [k for k in columns if k not in mine]
        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td>{html.escape(n)}</td>"
            f"<td>{'undefined' if k not in mine else f'{mine[k]:.4f}'}</td></tr>"
            for k, n in columns.items()
        )
        counts = ", ".join(f"{k} {v}" for k, v in result.counts.as_dict().items())
        body += (
            f"<h2>{html.escape(name)} ({html.escape(part.task)})</h2>"
            f"<p>Signature: <code>{html.escape(str(result.signature))}</code></p>"
            f"<table><tr><th>column</th><th>score</th><th>value</th></tr>{rows}</table>"
            f"<p>Counts: {html.escape(counts)}</p>"
        )
    if not written:
        body = _items("No score is defined for this submission", left_out, "bad")
        body += _items("Notes", notes) + _items("Warnings", warnings)
        detailed.write_text(_page(title, body), encoding="utf-8")
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
    body += _items("Sub-tasks not entered (their columns are left out)", absent)
    if left_out:
        body += _items("Left out of the leaderboard (undefined)", left_out, "bad")
    body += _items("Notes", notes) + _items("Warnings", warnings)
    detailed.write_text(_page(title, body), encoding="utf-8")
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


def _copy(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def _zip_folder(folder: Path, target: Path, *, top: str | None = None) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                name = path.relative_to(folder).as_posix()
                archive.write(path, f"{top}/{name}" if top else name)


CLOSURE = r"""
import json, os, sys
hidden = {h for h in os.environ.get("ANNOSCORE_HIDDEN", "").split(",") if h}


class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
from annoscore.cli import main
for extra in ("rich", "shellingham"):
    try:
        __import__(extra)
    except ImportError:
        pass
status = 0
try:
    main(sys.argv[1:-1])
except SystemExit as exit:
    status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
entries = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)},
                 key=len, reverse=True)
standard = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {"__main__"}
found = set()
for name, module in list(sys.modules.items()):
    if name.partition(".")[0] in standard or name.startswith("_sysconfigdata"):
        continue  # by name, not by folder: site-packages may lie inside the stdlib's folder
    path = getattr(module, "__file__", None)
    if not path:
        continue
    path = os.path.realpath(path)
    for entry in entries:
        if path.startswith(entry + os.sep):
            top = path[len(entry) + 1:].split(os.sep)[0]
            found.add(os.path.join(entry, top))
            break
with open(sys.argv[-1], "w") as out:
    json.dump({"found": sorted(found), "status": status}, out)
"""
"""Scores ``layout`` as the bundle's program would, with the top-level packages named in
``ANNOSCORE_HIDDEN`` made unimportable, and lists the folders and files of the packages
imported and the exit status."""


@dataclass(frozen=True)
class _Closure:
    """One scoring by :data:`CLOSURE`: the packages imported, the exit status and the output
    (``scores.json`` and ``result.json``, to compare two runs)."""

    found: list[Path]
    status: int
    output: tuple[bytes, ...]


def _closure(layout: Path, config: Path, hidden: list[str]) -> _Closure:
    with tempfile.TemporaryDirectory(prefix="annoscore-vendor-") as work:
        listing = Path(work) / "modules.json"
        output = Path(work) / "output"
        command = [sys.executable, "-c", CLOSURE, "codabench", "score", str(layout), str(output)]
        command += ["--config", str(config), str(listing)]
        env = {**os.environ, "ANNOSCORE_HIDDEN": ",".join(hidden), "ANNOSCORE_NLTK_ENGINE": "re"}
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if not listing.exists():
            raise InputError(f"cannot find what the scoring program imports: {done.stderr[-500:]}")
        data = json.loads(listing.read_text())
        files = [output / name for name in ("scores.json", "result.json")]
        written = tuple(f.read_bytes() if f.exists() else b"" for f in files)
        return _Closure([Path(p) for p in data["found"]], int(data["status"]), written)


def _is_compiled(source: Path) -> bool:
    if source.suffix in (".so", ".pyd"):
        return True
    return source.is_dir() and (any(source.rglob("*.so")) or any(source.rglob("*.pyd")))


def _needed_by(name: str, found: list[Path]) -> list[str]:
    """The distributions among ``found`` (top-level packages) that require the distribution of
    the top-level package ``name`` (not as an extra)."""
    import importlib.metadata as metadata

    owners = metadata.packages_distributions()
    wanted = {d.lower() for d in owners.get(name, [name])}
    out: list[str] = []
    for source in found:
        for dist in owners.get(source.name.removesuffix(".py"), []):
            try:
                requires = metadata.requires(dist) or []
            except metadata.PackageNotFoundError:
                continue
            for requirement in requires:
                required = re.split(r"[\s\[<>=!~;(]", requirement, maxsplit=1)[0].lower()
                if required in wanted and "extra ==" not in requirement and dist not in out:
                    out.append(dist)
    return out


def vendor(program: Path, layout: Path, config: Path) -> dict[str, list[str]]:
    """Copy annoscore and the packages a scoring of ``layout`` (``ref/``, ``res/``) imports into
    ``program/vendor`` (numpy and scipy are the image's); the compiled packages the scoring
    needs that cannot be copied (the image must provide them), each with the distributions that
    require it.

    A compiled package that the scoring imports only because it is there (nltk imports
    scikit-learn when it is installed) is not needed: unless an imported package requires it
    (not as an extra), the scoring is run again with it hidden, and when the exit status and
    the output are the same, it is left out, with whatever only it imported."""
    import annoscore

    target = program / "vendor"
    target.mkdir()
    _copy(Path(annoscore.__file__).parent, target / "annoscore")

    def skipped(source: Path) -> bool:
        name = source.name
        return name.startswith(("annoscore", "_distutils_hack")) or name in IMAGE_PROVIDES

    def maybe_optional(source: Path, found: list[Path]) -> bool:
        """Compiled and not required by a package of ``found``: maybe imported only if there."""
        return not skipped(source) and _is_compiled(source) and not _needed_by(source.name, found)

    first = _closure(layout, config, [])
    hidden: list[str] = []
    found = first.found
    candidates = [source for source in first.found if maybe_optional(source, found)]
    if len(candidates) > 1:  # all at once first: one more scoring where every one is optional
        again = _closure(layout, config, [source.name for source in candidates])
        if (again.status, again.output) == (first.status, first.output):
            return _copied(target, again.found, skipped)
    for source in first.found:  # else one at a time (hiding one may free another)
        if not maybe_optional(source, found):
            continue  # required by a package still imported: no need to try without it
        again = _closure(layout, config, [*hidden, source.name])
        if (again.status, again.output) == (first.status, first.output):
            hidden.append(source.name)
            found = again.found  # the closure with every optional package so far hidden
    return _copied(target, found, skipped)


def _copied(
    target: Path, found: list[Path], skipped: Callable[[Path], bool]
) -> dict[str, list[str]]:
    """Copy the pure-Python packages of ``found`` into ``target``; the compiled ones, each with
    the distributions that require it."""
    compiled: dict[str, list[str]] = {}
    for source in found:
        if skipped(source):
            continue
        if _is_compiled(source):
            compiled[source.name] = _needed_by(source.name, found)
            continue
        if source.is_dir() and source.name.endswith((".dist-info", ".egg-info")):
            continue
        _copy(source, target / source.name)
    return compiled


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
    else:
        listed = "".join(f"- `{p.name}`: {p.task.summary} (`{p.task.name}`)\n" for p in parts)
        overview = (
            f"# {len(parts)} sub-tasks\n\n{listed}\nSubmissions are scored by annoscore, each "
            "sub-task with its task: the same code scores locally (`pip install annoscore`) "
            "and here. A team may enter any of the sub-tasks.\n"
        )
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
    if single:
        task = parts[0].task
        layout = (
            "Submit a zip with the same files as the starting kit's sample submission (one "
            "file, or a folder of one file per document, named as the documents)."
        )
        check = f"`annoscore validate {task.name} submission.zip`"
    else:
        names = ", ".join(f"`{p.name}/`" for p in parts)
        layout = (
            f"Submit a zip with one folder per sub-task you enter ({names}), each holding "
            "that sub-task's files as in the starting kit's sample submission. You may enter "
            "any subset: a sub-task you leave out is no error, its columns stay empty. A "
            "folder that is no sub-task's fails the submission."
        )
        check = "`annoscore validate TASK FOLDER` on each sub-task's folder"
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
                _copy(Path(value), program / stored)
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
                _copy(gold, target)
            else:
                _copy(gold, target / gold.name)
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
                _copy(part.where(out / "reference_data" / phase), target)
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
            _copy(out / "reference_data" / phase, layout / "ref")
            _copy(solution, layout / "res")
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
            _copy(sample, target if sample.is_dir() else target / sample.name)
        _without_texts(kit_folder)
        _zip_folder(kit_folder, kit / "sample_submission.zip")
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
            _copy(out / "reference_data" / solved[0], layout / "ref")
            _copy(out / "solutions" / solved[0], layout / "res")
            return vendor(program, layout, program / CONFIG)
        configs: dict[str, BundleConfig] = {}
        for part in parts:
            if part.name in made:
                _copy(part.where(out / "reference_data" / solved[0]), part.where(layout / "ref"))
                _copy(part.where(out / "solutions" / solved[0]), part.where(layout / "res"))
                items = dict(i.split("=", 1) for i in part.config.option_items(program))
            else:
                gold, system, sample_options = registry.sample_paths(part.task)
                ref, res = part.where(layout / "ref"), part.where(layout / "res")
                _copy(gold, ref if gold.is_dir() else ref / gold.name)
                _copy(system, res if system.is_dir() else res / system.name)
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


# --- check ----------------------------------------------------------------------------------


def read_yaml(path: Path) -> Any:
    """``competition.yaml`` or ``metadata.yaml``: JSON (what ``init`` writes), else YAML when
    PyYAML is installed, else the ``key: value`` lines of a flat mapping."""
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        flat = {}
        for line in text.splitlines():
            key, colon, value = line.partition(":")
            if colon and key.strip() and not line.startswith((" ", "#", "-")):
                flat[key.strip()] = value.strip()
        return flat
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InputError(f"not valid YAML: {error}", path) from None


def bundle_problems(bundle: Path) -> tuple[list[str], dict[str, Any]]:
    """The rules of campaign.md a bundle breaks, and its competition.yaml."""
    problems: list[str] = []
    path = bundle / "competition.yaml"
    if not path.is_file():
        return [f"{path}: missing"], {}
    data = read_yaml(path)
    if not isinstance(data, dict):
        return [f"{path}: not a mapping"], {}
    if data.get("version") != 2:
        problems.append("competition.yaml: 'version: 2' expected")
    if "leaderboard" in data:
        problems.append("competition.yaml: 'leaderboard' must be plural: 'leaderboards'")
    boards = data.get("leaderboards")
    if not isinstance(boards, list) or not boards:
        problems.append("competition.yaml: no 'leaderboards' list")
        boards = []
    elif len(boards) > 1:
        problems.append(
            f"competition.yaml: {len(boards)} leaderboards; every phase uses the first only"
        )
    keys: list[str] = []
    for board in boards[:1]:
        for column in board.get("columns", []) or []:
            key, title = str(column.get("key", "")), str(column.get("title", ""))
            if key in keys:
                problems.append(f"competition.yaml: column key {key!r} repeated")
            keys.append(key)
            for what, value in (("key", key), ("title", title)):
                if len(value) > KEY_LENGTH or not value:
                    problems.append(
                        f"competition.yaml: column {what} {value!r}: 1 to 36 characters"
                    )
    image = str(data.get("docker_image", ""))
    if ":" not in image.rpartition("/")[2] or image.endswith(":latest"):
        problems.append(f"competition.yaml: docker_image {image!r} is not pinned to a tag")
    elif image not in IMAGES_WITH_PYTHON_311:
        problems.append(
            f"competition.yaml: docker_image {image!r} is not known to run Python 3.11+ "
            f"(use {IMAGE})"
        )
    for task in data.get("tasks", []) or []:
        program = bundle / str(task.get("scoring_program", ""))
        if not any((program / name).is_file() for name in ("metadata.yaml", "metadata")):
            problems.append(f"task {task.get('index')}: no metadata.yaml at {program}'s root")
    reference = {
        hashlib.sha256(p.read_bytes()).hexdigest()
        for task in data.get("tasks", []) or []
        for p in (bundle / str(task.get("reference_data", ""))).rglob("*")
        if p.is_file()
    }
    for phase in data.get("phases", []) or []:
        public = phase.get("public_data")
        if public:
            for p in (bundle / str(public)).rglob("*"):
                if p.is_file() and hashlib.sha256(p.read_bytes()).hexdigest() in reference:
                    problems.append(f"phase {phase.get('name')}: public data {p} is reference data")
    return problems, {"data": data, "keys": keys}


def _python_path(folder: Path, image: tuple[str, ...] = ()) -> str:
    """A folder with links to numpy and scipy only (what the image provides beyond the
    standard library), and to the compiled packages ``image`` the bundle says the image must
    have, taken from this environment."""
    import importlib.util

    for name in ("numpy", "scipy", *image):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        package = Path(spec.origin)
        if package.name.startswith("__init__."):
            package = package.parent
        (folder / (name if package.is_dir() else package.name)).symlink_to(package)
        libs = package.parent / f"{name}.libs"
        if libs.exists():
            (folder / libs.name).symlink_to(libs)
    return str(folder)


def _image_packages(program: Path) -> dict[str, list[str]]:
    """The compiled packages a bundle's program says the image must have."""
    path = program / CONFIG
    return BundleConfig.read(path).image if path.exists() else {}


def substitute(command: str, app: Path) -> str:
    """The worker's placeholder substitution, with ``/app`` at ``app``."""
    for placeholder, value in PLACEHOLDERS.items():
        command = command.replace(placeholder, str(app) + value.removeprefix("/app"))
    return command


def dry_run(bundle: Path, submission: Path, phase_index: int = 0) -> tuple[int, str, Path]:
    """Run the bundle's program on ``submission`` (a zip, unzipped as the worker does, or a
    folder) in a temporary ``/app`` layout; (exit status, stderr, the output folder copy)."""
    import shlex

    data = read_yaml(bundle / "competition.yaml")
    task = data["tasks"][phase_index]
    work = Path(tempfile.mkdtemp(prefix="annoscore-dry-run-"))
    app = work / "app"
    _copy(bundle / task["scoring_program"], app / "program")
    _copy(bundle / task["reference_data"], app / "input" / "ref")
    res = app / "input" / "res"
    if submission.is_dir():
        _copy(submission, res)
    else:
        res.mkdir(parents=True)
        with zipfile.ZipFile(submission) as archive:
            archive.extractall(res)
    (app / "output").mkdir()
    (app / "shared").mkdir()
    metadata = app / "program" / "metadata.yaml"
    if not metadata.exists():
        metadata = app / "program" / "metadata"
    if not metadata.exists():
        return 2, "no metadata.yaml at the program's root: the worker cannot run it", app / "output"
    command = substitute(str(read_yaml(metadata)["command"]), app)
    words = shlex.split(command)
    if words and words[0] in ("python", "python3"):
        words[0:1] = [sys.executable, "-S"]
    paths = work / "image-site"
    paths.mkdir()
    image = tuple(_image_packages(app / "program"))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": _python_path(paths, image)}
    done = subprocess.run(
        words,
        cwd=app / "program",
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=float(data["phases"][phase_index].get("execution_time_limit", 600)),
    )
    return done.returncode, done.stderr, app / "output"


def site_row(
    output: Path, keys: list[str], required: list[str] | None = None
) -> tuple[list[str], dict[str, float]]:
    """Read ``scores.json`` as the site does: problems, and the row it would show;
    ``required``: the columns it must fill (default: every one)."""
    path = output / "scores.json"
    problems: list[str] = []
    if (output / "metadata").exists():
        problems.append("the program wrote output/metadata, which the worker writes itself")
    if not path.exists():
        return [*problems, "no scores.json written"], {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        return [*problems, f"scores.json is not JSON: {error}"], {}
    if not isinstance(data, dict):
        return [*problems, "scores.json is not a flat object"], {}
    row: dict[str, float] = {}
    for key, value in data.items():
        if key not in keys:
            problems.append(f"scores.json key {key!r} is no leaderboard column: dropped")
        elif isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"scores.json {key!r}: {value!r} is not a number")
        elif not math.isfinite(value):
            problems.append(f"scores.json {key!r}: {value!r} is not finite")
        else:
            row[key] = float(value)
    for key in keys if required is None else required:
        if key not in data:
            problems.append(f"leaderboard column {key!r}: not written by the program")
    return problems, row


def _subtask_columns(bundle: Path, data: dict[str, Any]) -> dict[str, list[str]]:
    """A bundle of sub-tasks' column keys per sub-task (empty for a bundle of one task)."""
    tasks = data.get("tasks", []) or []
    path = bundle / str(tasks[0].get("scoring_program", "")) / CONFIG if tasks else None
    if path is None or not path.is_file():
        return {}
    config = BundleConfig.read(path)
    return {name: list(part.columns) for name, part in config.subtasks.items()}


def _entered_columns(
    row: dict[str, float], keys: list[str], groups: dict[str, list[str]]
) -> list[str]:
    """The columns a submission of sub-tasks must fill: those of every sub-task it scored, and
    any column of no sub-task (which none can fill).

    >>> _entered_columns({"a_f1": 1.0}, ["a_f1", "a_p", "b_f1", "x"], {"a": ["a_f1", "a_p"],
    ...                  "b": ["b_f1"]})
    ['a_f1', 'a_p', 'x']
    """
    grouped = {key for group in groups.values() for key in group}
    entered = {key for group in groups.values() if any(k in row for k in group) for key in group}
    return [key for key in keys if key in entered or key not in grouped]


def _subtask_golds(items: list[str], names: list[str]) -> list[tuple[str, dict[str, Path]]]:
    """``--gold PHASE=DIR`` (a folder per sub-task in DIR) or ``PHASE:SUBTASK=PATH`` items as
    each phase's gold per sub-task, every sub-task given in every phase."""
    from annoscore.cli.campaign import subtask_folders
    from annoscore.formats.files import input_path  # a URL read into a local copy

    phases: dict[str, dict[str, Path]] = {}
    for item in items:
        where, equals, path = item.partition("=")
        phase, colon, name = (part.strip() for part in where.partition(":"))
        if not equals or not phase or not path or (colon and not name):
            raise InputError(f"--gold {item!r}: expected PHASE=DIR or PHASE:SUBTASK=PATH")
        given = phases.setdefault(phase, {})
        if colon:
            if name not in names:
                raise InputError(f"--gold {item!r}: no sub-task {name!r} ({', '.join(names)})")
            found = {name: input_path(path)}
        else:
            folder = input_path(path)
            if not folder.is_dir():
                raise InputError(
                    "expected a folder holding one folder per sub-task "
                    f"({', '.join(names)}), or PHASE:SUBTASK=PATH",
                    path,
                )
            found, _, _ = subtask_folders(folder, names)
        for name, gold in found.items():
            if name in given:
                raise InputError(f"--gold: phase {phase!r} gives sub-task {name!r} twice")
            given[name] = gold
    for phase, given in phases.items():
        lacking = [name for name in names if name not in given]
        if lacking:
            raise InputError(
                f"--gold: phase {phase!r} has no gold standard for {', '.join(lacking)} (a "
                "folder of that name in its DIR, or PHASE:SUBTASK=PATH)"
            )
    if not phases:
        raise InputError("--gold: no phase")
    return [(phase, {name: given[name] for name in names}) for phase, given in phases.items()]


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
        option: Annotated[
            list[str] | None,
            typer.Option(
                "--option",
                help="A task option NAME=VALUE (with sub-tasks: SUBTASK:NAME=VALUE, or "
                "NAME=VALUE for every sub-task whose task has it).",
            ),
        ] = None,
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
            _zip_folder(out, out.with_name(out.name + ".zip"))
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
                                _copy(path / name, alone / name)
                                runs.append((alone, index))
                for path, index in runs:
                    status, stderr, output = dry_run(bundle, path, index)
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
                status, stderr, output = dry_run(bundle, empty)
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
