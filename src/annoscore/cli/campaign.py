"""Submissions as participants upload them: unpacked, cleaned, checked whole, scored.

What ``annoscore validate``, ``annoscore codabench score`` and ``annoscore collect`` share
(``../shared/spec/campaign.md``):

- :func:`prepare` copies a submission (a folder, a zip, a file) into a private folder, leaving
  out archive litter (``__MACOSX/``, ``._*``, ``.DS_Store``, ``Thumbs.db``), unpacks a zip found
  alone inside it and steps into a single top folder, each a note shown to the participant;
- :func:`gold_input` finds the gold standard in a reference folder the same way;
- :func:`check` scores the copy and, on each :class:`~annoscore.errors.InputError` in the
  submission, records it (file and line as uploaded), removes the line (or the file) from the
  copy and scores again, so that every problem is found at once, not only the first; with
  ``strict`` (``validate``), it also names what the scoring tolerates with a warning
  (:mod:`annoscore.cli.campaign_audit`).

Nothing here imports Typer: the commands are in :mod:`annoscore.cli.validate`,
:mod:`annoscore.cli.codabench` and :mod:`annoscore.cli.collect`.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from annoscore.cli.common import registered
from annoscore.errors import InputError
from annoscore.result import Result
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.registry import Task

LITTER_FOLDERS = frozenset({"__MACOSX"})
LITTER_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
MAX_PROBLEMS = 100
"""Problems reported at most by one :func:`check` (each costs one more scoring of the copy)."""
WHOLE_FILE_SUFFIXES = frozenset({".json", ".xml", ".sgml", ".sgm", ".tpl"})
"""Formats whose lines are not records: after an error the whole file is set aside."""
SUBMISSION_WARNINGS = ("documents.system-only", "documents.gold-only")
"""Warning codes about the submission's documents (unknown, missing): problems for
``validate``, warnings for the scoring program."""


def is_litter(name: str) -> bool:
    """Whether a file or folder name is archive litter.

    >>> [is_litter(n) for n in ("__MACOSX", "._a.ann", ".DS_Store", "a.ann")]
    [True, True, True, False]
    """
    return name in LITTER_FOLDERS or name in LITTER_FILES or name.startswith("._")


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a submission: where (file as uploaded, line) and what."""

    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return self.message if where is None else f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "message": self.message}


@dataclass
class Prepared:
    """A submission copied and cleaned: ``path`` is what the task reads (a file or a folder),
    ``notes`` what was tolerated, ``shown`` the copy's paths back to names as uploaded."""

    path: Path
    copy_root: Path
    label: str
    notes: list[str] = field(default_factory=list)
    lines: dict[Path, list[int]] = field(default_factory=dict)
    single: Path | None = None

    def shown(self, text: str) -> str:
        """``text`` with the private copy's paths as the participant named them."""
        if self.single is not None:
            text = text.replace(str(self.single), self.label)
        return text.replace(str(self.copy_root), self.label)

    def line(self, path: Path | str, line: int) -> int:
        """Line ``line`` of the copy's file ``path`` numbered as uploaded (:func:`check` may
        have removed lines of it)."""
        numbers = self.lines.get(Path(path))
        return numbers[line - 1] if numbers is not None and 1 <= line <= len(numbers) else line

    def renumbered(self, text: str) -> str:
        """``text`` with ``FILE:LINE`` of a file whose lines :func:`check` removed numbered as
        uploaded (``FILE`` the copy's path or the file's name)."""
        for path in self.lines:
            for name in dict.fromkeys((str(path), path.name)):
                pattern = re.compile(re.escape(name) + r":(\d+)\b")

                def original(match: re.Match[str], path: Path = path) -> str:
                    fixed = self.line(path, int(match.group(1)))
                    return f"{match.group(0).rpartition(':')[0]}:{fixed}"

                text = pattern.sub(original, text)
        return text

    def warning(self, warning: ScoreWarning) -> ScoreWarning:
        """``warning`` naming files and lines as uploaded."""
        return warning.renamed(lambda text: self.shown(self.renumbered(text)))


def _safe_members(archive: zipfile.ZipFile, path: Path) -> list[zipfile.ZipInfo]:
    members = []
    for info in archive.infolist():
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if info.filename.startswith(("/", "\\")) or ".." in parts or ":" in info.filename[:3]:
            raise InputError(f"the archive holds a member outside itself: {info.filename!r}", path)
        members.append(info)
    return members


def unzip(path: Path, target: Path) -> None:
    """Unpack the zip ``path`` into ``target`` (an unreadable archive is an InputError)."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            archive.extractall(target, _safe_members(archive, path))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as error:
        raise InputError(f"not a readable zip archive: {error}", path) from None


def _copy_clean(source: Path, target: Path, litter: list[str], relative: str = "") -> None:
    target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        name = f"{relative}{entry.name}"
        if is_litter(entry.name):
            litter.append(name + ("/" if entry.is_dir() else ""))
        elif entry.is_dir():
            _copy_clean(entry, target / entry.name, litter, name + "/")
        elif entry.is_file():
            shutil.copyfile(entry, target / entry.name)


def visible(folder: Path) -> list[Path]:
    """The entries of ``folder`` that are no archive litter, sorted (none when it is a file)."""
    return sorted(p for p in folder.iterdir() if not is_litter(p.name)) if folder.is_dir() else []


def prepare(
    submission: Path,
    work: Path,
    *,
    one_file: bool,
    label: str | None = None,
    keep: frozenset[str] = frozenset(),
) -> Prepared:
    """Copy ``submission`` into ``work`` and find what the task reads (see the module doc).

    ``one_file``: the task reads one file (the gold standard is one file), so the cleaned
    submission must hold exactly one file.  ``keep``: folder names (lower case) that are never
    taken for a single top folder: the sub-task folders of a bundle of sub-tasks.
    """
    label = label or submission.name or str(submission)
    root = work / "submission"
    litter: list[str] = []
    if not submission.exists():
        raise InputError("no such file or folder", submission)
    if submission.is_dir():
        _copy_clean(submission, root, litter)
    elif zipfile.is_zipfile(submission):
        unpacked = work / "unpacked"
        unzip(submission, unpacked)
        _copy_clean(unpacked, root, litter)
    else:
        root.mkdir(parents=True)
        shutil.copyfile(submission, root / submission.name)
    prepared = Prepared(root, root, label)
    if submission.is_file() and not zipfile.is_zipfile(submission):
        prepared.single = root / submission.name
    path = root
    for _ in range(8):
        entries = visible(path)
        if len(entries) == 1 and entries[0].is_dir() and entries[0].name.lower() not in keep:
            prepared.notes.append(
                f"the submission's files are inside one top folder '{entries[0].name}/'; "
                "it was read as the submission"
            )
            path = entries[0]
        elif len(entries) == 1 and entries[0].suffix.lower() == ".zip" and not one_file:
            inner = entries[0]
            prepared.notes.append(f"a zip inside the submission ('{inner.name}') was unpacked")
            unpacked = inner.with_name(inner.name + ".unpacked")
            unzip(inner, unpacked)
            inner.unlink()
            _strip_litter(unpacked, litter)
            path = unpacked
        else:
            break
    if litter:
        litter.sort(key=lambda name: not name.endswith("/"))  # folders first
        shown = ", ".join(litter[:5]) + (f" and {len(litter) - 5} more" if len(litter) > 5 else "")
        prepared.notes.insert(0, f"archive litter left out: {shown}")
    files = [p for p in path.rglob("*") if p.is_file()]
    if not files:
        raise InputError("the submission is empty: it holds no file", label)
    if one_file:
        if len(files) > 1:
            names = ", ".join(prepared.shown(str(f)) for f in files[:5])
            raise InputError(f"expected one file, found {len(files)}: {names}", label)
        path = files[0]
    prepared.path = path
    return prepared


def _strip_litter(folder: Path, litter: list[str]) -> None:
    for entry in sorted(folder.rglob("*"), reverse=True):
        if is_litter(entry.name) and entry.exists():
            litter.append(entry.name + ("/" if entry.is_dir() else ""))
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def subtask_folders(folder: Path, names: list[str]) -> tuple[dict[str, Path], list[str], list[str]]:
    """The sub-task folders of ``folder`` (a name matched ignoring case, with a note), the
    entries that are no sub-task's folder, and the notes.

    >>> import tempfile
    >>> work = Path(tempfile.mkdtemp())
    >>> for name in ("SubTask1", "other"):
    ...     (work / name).mkdir()
    >>> found, others, notes = subtask_folders(work, ["subtask1", "subtask2"])
    >>> [p.name for p in found.values()], others, notes
    (['SubTask1'], ['other/'], ["the folder 'SubTask1/' was read as the sub-task 'subtask1'"])
    """
    by_case = {name.lower(): name for name in names}
    found: dict[str, Path] = {}
    others: list[str] = []
    notes: list[str] = []
    entries = visible(folder)
    exact = {entry.name for entry in entries if entry.is_dir()}
    for entry in entries:
        name = by_case.get(entry.name.lower()) if entry.is_dir() else None
        if name is None or name in found or (name != entry.name and name in exact):
            others.append(entry.name + ("/" if entry.is_dir() else ""))
            continue
        if name != entry.name:
            notes.append(f"the folder '{entry.name}/' was read as the sub-task '{name}'")
        found[name] = entry
    return {name: found[name] for name in names if name in found}, others, notes


def gold_input(reference: Path) -> Path:
    """What the task reads as gold in a reference folder: the folder, or the one file (or one
    top folder) it holds alone; a file is itself."""
    path = reference
    while path.is_dir():
        entries = visible(path)
        if len(entries) != 1:
            break
        path = entries[0]
    return path


@dataclass
class Checked:
    """What :func:`check` found: the result of the cleaned copy (``None`` when a problem
    outside the submission, in the gold or the options, stopped it), the problems, the notes
    (tolerated), and the warnings of the result."""

    result: Result | None
    problems: list[Problem]
    notes: list[str]
    warnings: list[ScoreWarning]
    stopped: str | None = None
    findings: list[Problem] = field(default_factory=list)
    """Problems only ``validate`` counts (``check(strict=True)``): what scoring tolerates."""

    @property
    def clean(self) -> bool:
        """No problem, no warning about the submission's documents."""
        return (
            not self.problems
            and not self.findings
            and self.result is not None
            and not self.document_warnings
        )

    @property
    def document_warnings(self) -> list[ScoreWarning]:
        """The warnings about the submission's documents (unknown, missing)."""
        return [w for w in self.warnings if w.code in SUBMISSION_WARNINGS]

    @property
    def all_problems(self) -> list[Problem]:
        """The problems, the findings, then the warnings about the submission's documents as
        problems."""
        documents = (Problem(str(w)) for w in self.document_warnings)
        return [*self.problems, *self.findings, *documents]

    def to_dict(self) -> dict[str, Any]:
        others = [w for w in self.warnings if w.code not in SUBMISSION_WARNINGS]
        return {
            "valid": self.clean,
            "problems": [p.to_dict() for p in self.all_problems],
            "notes": self.notes,
            "warnings": [str(w) for w in others],
        }


def _remove_line(prepared: Prepared, path: Path, line: int) -> int | None:
    """Remove line ``line`` (as the copy now numbers it) from the copy; its number as
    uploaded, or ``None`` if the file has no such line."""
    data = path.read_bytes()
    rows = data.splitlines(keepends=True)
    numbers = prepared.lines.setdefault(path, list(range(1, len(rows) + 1)))
    if not 1 <= line <= len(rows) or len(numbers) != len(rows):
        return None
    original = numbers.pop(line - 1)
    del rows[line - 1]
    path.write_bytes(b"".join(rows))
    return original


def check(
    task: Task,
    gold: Path,
    prepared: Prepared,
    options: Any,
    *,
    limit: int = MAX_PROBLEMS,
    strict: bool = False,
) -> Checked:
    """Score the cleaned copy, collecting every problem (see the module doc).  ``strict``
    (``validate``, campaign.md: what the scoring program scores with a warning is a problem
    there): each line of the submission that the official reading tolerates (read with
    ``strict_input``, as long as what it refuses is a line of the submission), and the findings of
    :func:`annoscore.cli.campaign_audit.audit`; the result only when there is none."""
    problems: list[Problem] = []
    # strict: each line of the submission that the official reading tolerates is refused, with
    # its file and line (``strict_input``), until a refusal is not a line of the submission
    scoring = replace(options, strict_input=True) if strict else options
    for _ in range(limit + 2):
        try:
            result = task.score_with(gold, prepared.path, scoring)
        except InputError as error:
            where = Path(error.path) if error.path is not None else None
            message = prepared.shown(error.message)
            if error.document is not None:
                message = f"document {error.document}: {message}"
            inside = where is not None and where.resolve().is_relative_to(
                prepared.copy_root.resolve()
            )
            if scoring is not options and (not inside or error.line is None):
                # the gold's tolerated input, or tolerated input that is no line (a file, a
                # byte-order mark): read the rest as the scoring program reads it
                scoring = options
                continue
            if where is None or not inside:
                named = error.path if where is None else prepared.shown(str(where))
                problems.append(Problem(message, named, error.line))
                return Checked(None, problems, prepared.notes, [], stopped=str(problems[-1]))
            shown = prepared.shown(str(where))
            if len(problems) >= limit:
                problems.append(Problem(f"more problems not shown (the first {limit} are)"))
                return Checked(None, problems, prepared.notes, [], stopped="too many problems")
            line = error.line
            whole = where.suffix.lower() in WHOLE_FILE_SUFFIXES or not where.is_file()
            if line is not None and not whole:
                original = _remove_line(prepared, where, line)
                if original is not None:
                    problems.append(Problem(message, shown, original))
                    continue
            if line is not None:
                line = prepared.line(where, line)
            problems.append(Problem(message, shown, line))
            if where.is_file() and where != prepared.path:
                where.unlink()  # set the file aside, keep looking at the others
                continue
            return Checked(None, problems, prepared.notes, [], stopped=str(problems[-1]))
        warnings = [prepared.warning(w) for w in result.warnings]
        findings: list[Problem] = []
        if strict:
            from annoscore.cli.campaign_audit import audit

            findings = audit(task, gold, prepared, options, max(limit - len(problems), 0))
        kept = None if problems or findings else result
        return Checked(kept, problems, prepared.notes, warnings, findings=findings)
    return Checked(None, problems, prepared.notes, [], stopped="too many problems")


SUBTASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,29}")
"""A sub-task's name: a folder name and a column-key prefix (at most 30 characters)."""


def subtask_arguments(items: list[str]) -> list[tuple[str, str]]:
    """``NAME=TASK`` arguments as (name, task), each name valid and distinct (ignoring case).

    >>> subtask_arguments(["subtask1=pharmaconer-ner", "subtask2=pharmaconer-indexing"])
    [('subtask1', 'pharmaconer-ner'), ('subtask2', 'pharmaconer-indexing')]
    """
    out: list[tuple[str, str]] = []
    for item in items:
        name, equals, task = (part.strip() for part in item.partition("="))
        if not equals or not name or not task:
            raise InputError(f"{item!r}: expected one TASK, or NAME=TASK for each sub-task")
        if not SUBTASK_NAME.fullmatch(name):
            raise InputError(
                f"sub-task name {name!r}: letters, digits, '_', '-', '.' (at most 30, "
                "beginning with a letter or digit)"
            )
        if name.lower() in (n.lower() for n, _ in out):
            raise InputError(f"sub-task {name!r} is named twice")
        out.append((name, task))
    return out


def subtask_options(items: list[str], subtasks: list[tuple[str, str]]) -> dict[str, list[str]]:
    """``--option SUBTASK:NAME=VALUE`` (one sub-task's) or ``NAME=VALUE`` (every sub-task whose
    task has the option NAME) as each sub-task's ``NAME=VALUE`` items.

    >>> subtask_options(["codalab=true", "b:gold_ann=x"],
    ...                 [("a", "pharmaconer-ner"), ("b", "pharmaconer-indexing")])
    {'a': ['codalab=true'], 'b': ['codalab=true', 'gold_ann=x']}
    """
    from annoscore.options import fields

    out: dict[str, list[str]] = {name: [] for name, _ in subtasks}
    for item in items:
        where, equals, value = item.partition("=")
        subtask, colon, option = where.partition(":")
        if not equals:
            raise InputError(f"--option {item!r}: expected [SUBTASK:]NAME=VALUE")
        if colon:
            if subtask.strip() not in out:
                known = ", ".join(out)
                raise InputError(f"--option {item!r}: no sub-task {subtask.strip()!r} ({known})")
            out[subtask.strip()].append(f"{option}={value}")
            continue
        wanted = where.strip().replace("-", "_")
        takers = []
        for name, task_name in subtasks:
            task = registered(task_name)
            declared = {
                n.replace("-", "_")
                for spec in fields(task.options_class())
                for n in (spec.name, spec.key)
            }
            if wanted in declared:
                takers.append(name)
        if not takers:
            raise InputError(f"--option {item!r}: no sub-task's task has the option {where!r}")
        for name in takers:
            out[name].append(item)
    return out
