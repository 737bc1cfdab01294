"""``annoscore codabench check``: a bundle's problems (:func:`bundle_problems`) and a dry run
of its scoring program in the worker's folder layout (:func:`dry_run`)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from annoscore.cli.codabench_layout import (
    CONFIG,
    IMAGE,
    IMAGES_WITH_PYTHON_311,
    KEY_LENGTH,
    PLACEHOLDERS,
)
from annoscore.cli.codabench_score import BundleConfig
from annoscore.cli.codabench_vendor import copy_path
from annoscore.errors import InputError

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


def dry_run(
    bundle: Path, submission: Path, inside: Path, phase_index: int = 0
) -> tuple[int, str, Path]:
    """Run the bundle's program on ``submission`` (a zip, unzipped as the worker does, or a
    folder) in a new ``/app`` layout in the folder ``inside`` (the caller's temporary folder,
    which removes it); (exit status, stderr, the output folder copy)."""
    import shlex

    data = read_yaml(bundle / "competition.yaml")
    task = data["tasks"][phase_index]
    work = Path(tempfile.mkdtemp(prefix="dry-run-", dir=inside))
    app = work / "app"
    copy_path(bundle / task["scoring_program"], app / "program")
    copy_path(bundle / task["reference_data"], app / "input" / "ref")
    res = app / "input" / "res"
    if submission.is_dir():
        copy_path(submission, res)
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
