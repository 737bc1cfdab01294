"""``annoscore compare TASK GOLD SYS_A SYS_B [SYS_C ...]``: paired significance tests.

The first system is the baseline; each other one is compared with it document by document
(:func:`annoscore.significance.paired_test`).  TASK is a registered task name
(``annoscore.tasks.registry``); ``--option NAME=VALUE`` passes its options.

The gold standard is scored once per system; an input that can be read only once (a pipe, a
FIFO: ``<(zcat gold.tsv.gz)``) is read once into a private temporary copy first
(:func:`read_once`), and messages name it as given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from annoscore.cli.common import (
    OutputOption,
    fail,
    guarded,
    progress,
    registered,
    tell,
    write_result,
)
from annoscore.errors import InputError
from annoscore.significance import MAX_SAMPLES, Comparison, paired_test

if TYPE_CHECKING:
    from annoscore.result import Result
    from annoscore.score_warnings import ScoreWarning
    from annoscore.tasks.registry import Task


class CompareFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class TestChoice(str, Enum):
    """The command-line face of :class:`annoscore.significance.PairedTestKind` (same values;
    declared here so that ``annoscore --help`` imports no numpy)."""

    __test__ = False  # not a pytest class

    bootstrap = "bootstrap"
    randomization = "randomization"
    t_test = "t-test"


TaskArgument = Annotated[
    str,
    typer.Argument(
        help="A registered task name, e.g. pharmaconer-ner, spans, codiesp-d, coref "
        "(an unknown name lists them all)."
    ),
]
GoldArgument = Annotated[Path, typer.Argument(help="The gold standard, as the task reads it.")]
SamplesOption = Annotated[
    int | None,
    typer.Option(
        "--samples",
        min=1,
        max=MAX_SAMPLES,
        help="Resamples (bootstrap, default 1000) or trials (randomization, 10000).",
    ),
]
SeedOption = Annotated[
    int, typer.Option("--seed", min=0, help="Random seed (a whole number >= 0).")
]
NamesOption = Annotated[
    str | None,
    typer.Option("--names", help="Comma-separated system names (default: file or folder names)."),
]
TaskOptions = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="A task option NAME=VALUE (repeat it), named as the task's score function names "
        "it (an unknown NAME lists them); VALUE is true/false, a number, a path, a choice, a,b "
        "for a list or none, e.g. --option missing-docs=count.",
    ),
]
"""The parameters ``compare`` and ``report`` share (declared once)."""


def system_names(paths: list[Path]) -> list[str]:
    """Names of the systems: the file or folder names, with as many parent folders as it takes
    to tell them apart (``gold/x/sample``, ``system/x/sample``); ``#2``... if paths repeat.

    >>> system_names([Path("runs/a.tsv"), Path("runs/b.tsv")])
    ['a.tsv', 'b.tsv']
    >>> system_names([Path("gold/t1/sample"), Path("system/t1/sample")])
    ['gold/t1/sample', 'system/t1/sample']
    >>> system_names([Path("run"), Path("run")])
    ['run', 'run#2']
    """
    parts = [p.parts or (str(p),) for p in paths]
    for depth in range(1, max(len(x) for x in parts) + 1):
        names = ["/".join(x[-depth:]) for x in parts]
        if len(set(names)) == len(names):
            return names
    names = [p.name or str(p) for p in paths]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def parse_options(items: list[str], task: Task) -> Any:
    """``NAME=VALUE`` items as the task's options (``-`` or ``_`` in NAME), each read as
    :func:`annoscore.score` reads a string (:mod:`annoscore.options`)."""
    options: dict[str, str] = {}
    for item in items:
        name, equals, value = item.partition("=")
        key = name.strip()
        if not equals or not key:
            raise InputError(f"--option {item!r}: expected NAME=VALUE")
        options[key] = value
    return task.parse_options(options, cli=True)


def with_paths(options: Any, change: Callable[[Path], Path]) -> Any:
    """``options`` (:func:`parse_options`') with every path option passed through ``change``."""
    changed = {
        name: change(value)
        for name in (f.name for f in dataclasses.fields(options) if f.init)
        if isinstance(value := getattr(options, name), Path)
    }
    return dataclasses.replace(options, **changed)


class ReadOnce:
    """Copies of the inputs that cannot be read twice, and the way back to their names."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.copies: dict[str, Path] = {}  # the path as given -> its copy
        self.names: dict[str, str] = {}  # the copy -> the path as given

    def __call__(self, path: Path) -> Path:
        """``path``, or its copy if it is a pipe, FIFO or device (read once, here)."""
        try:
            mode = os.stat(path).st_mode
        except OSError:  # missing, unreadable: the task says so, naming it
            return path
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return path
        given = str(path)
        if given not in self.copies:
            copy = self.folder / str(len(self.copies)) / (path.name or "input")
            copy.parent.mkdir()
            try:
                with open(path, "rb") as source, open(copy, "wb") as target:
                    shutil.copyfileobj(source, target)
            except OSError as error:
                raise InputError(f"cannot read: {error.strerror or error}", path) from None
            self.copies[given] = copy
            self.names[str(copy)] = given
        return self.copies[given]

    def named(self, text: str) -> str:
        """``text`` with every copy's path replaced by the path given."""
        from annoscore.formats.files import named

        return named(text, self.names)

    def error(self, error: InputError) -> InputError:
        """``error`` naming the input as given."""
        from annoscore.formats.files import named_error

        return named_error(error, self.names) if self.names else error

    def warning(self, warning: ScoreWarning) -> ScoreWarning:
        """``warning`` naming the inputs as given."""
        return warning.renamed(self.named) if self.names else warning


@contextlib.contextmanager
def read_once() -> Iterator[ReadOnce]:
    """A :class:`ReadOnce` whose copies live in a private temporary folder, removed on leaving
    (an interrupt included)."""
    folder = tempfile.mkdtemp(prefix="annoscore-compare-")
    try:
        yield ReadOnce(Path(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def system_labels(systems: list[Path], names: str | None) -> list[str]:
    """The systems' names: ``--names`` (comma-separated) or their file or folder names; a
    count that differs from the systems', a repeated or an empty name is a usage error."""
    labels = [n.strip() for n in names.split(",")] if names is not None else None
    if labels is None:  # a URL's local copy named by the URL's own folders
        files = sys.modules.get("annoscore.formats.files")
        labels = system_names([Path(files.url_of(p) or p) if files else p for p in systems])
    if len(labels) != len(systems):
        raise fail(f"--names gives {len(labels)} names for {len(systems)} systems")
    if len(set(labels)) != len(labels) or not all(labels):
        raise fail("--names: every system needs its own non-empty name")
    return labels


def score_systems(
    entry: Task, gold: Path, systems: list[Path], option: list[str] | None, once: ReadOnce
) -> list[Result]:
    """Each system scored by ``entry`` against ``gold`` with the ``--option`` values, every
    input read once (an error names the input as given)."""
    options = parse_options(option or [], entry)
    try:
        read = with_paths(options, once)
        return [entry.score_with(once(gold), once(system), read) for system in systems]
    except InputError as error:
        raise once.error(error) from None


def compared(
    results: list[Result],
    labels: list[str],
    once: ReadOnce,
    test: TestChoice,
    samples: int | None,
    seed: int,
    confidence: float,
) -> Comparison:
    """The paired test of each system against the first (the baseline), its warnings naming
    the inputs as given."""
    comparison = paired_test(
        results[0],
        dict(zip(labels[1:], results[1:], strict=True)),
        test=test.value,
        samples=samples,
        seed=seed,
        confidence=confidence,
        baseline_name=labels[0],
        progress=progress,
    )
    return dataclasses.replace(
        comparison, warnings=tuple(once.warning(w) for w in comparison.warnings)
    )


def register(app: typer.Typer) -> None:
    @app.command(
        "compare",
        epilog="Example: annoscore compare pharmaconer-ner gold/ run1/ run2/ --test randomization",
    )
    @guarded
    def compare(
        task: TaskArgument,
        gold: GoldArgument,
        systems: Annotated[
            list[Path],
            typer.Argument(help="Two or more system outputs; the first is the baseline."),
        ],
        test: Annotated[
            TestChoice,
            typer.Option(
                "--test",
                help="bootstrap: paired bootstrap resampling (Koehn 2004); randomization: "
                "approximate randomization (Riezler and Maxwell 2005); t-test: paired t-test "
                "on the per-document (per-query) scores.",
                case_sensitive=False,
            ),
        ] = TestChoice.bootstrap,
        samples: SamplesOption = None,
        seed: SeedOption = 12345,
        confidence: Annotated[
            float,
            typer.Option(
                "--confidence", help="Confidence of the difference's interval (0 < C < 1)."
            ),
        ] = 0.95,
        names: NamesOption = None,
        option: TaskOptions = None,
        fmt: Annotated[
            CompareFormat,
            typer.Option("--format", "-f", help="text, json or markdown.", case_sensitive=False),
        ] = CompareFormat.text,
        output: OutputOption = None,
    ) -> None:
        """Paired significance tests of two or more systems on the same gold standard, per
        score: the difference with the baseline (the first system), its bootstrap interval and
        the p-value, on the documents every system scored."""
        from annoscore.report.significance import render

        entry = registered(task)
        if len(systems) < 2:
            raise fail("compare needs at least two systems (the first is the baseline)")
        labels = system_labels(systems, names)
        with read_once() as once:
            results = score_systems(entry, gold, systems, option, once)
            comparison = compared(results, labels, once, test, samples, seed, confidence)
        write_result(render(comparison, fmt.value), output)  # never over an input
        if fmt is CompareFormat.text:
            for warning in comparison.warnings:
                tell("warning", str(warning))
