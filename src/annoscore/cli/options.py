"""A scoring command's flags, built from the task's options class and the common output switches.

A family module writes its command with two special parameters, ``options`` (annotated with the
task's :class:`~annoscore.options.TaskOptions` class) and ``out`` (:class:`Output`)::

    @app.command("trec")
    @guarded
    @scoring_command
    def trec(qrels: Qrels, run: Run, options: TrecOptions, out: Output) -> None:
        out.emit(score_trec(qrels, run, options), render_trec_eval)

:func:`scoring_command` replaces ``options`` by one flag per option (all from the declaration)
and ``out`` by the flags every scoring command shares (``--format``, ``-o``, ``--per-doc``,
``--bootstrap``, ``--confidence``, ``--seed``; ``--jobs`` and ``--dask`` from
:class:`~annoscore.options.RunOptions`, which set the run of :mod:`annoscore.scale`).

A flag ``--flag=VALUE`` in a choice option's ``flags`` is a switch that sets it to VALUE
(``--remove-singletons=removed``).  A command may declare a common output parameter itself
(``format`` with a choice of its own: ``annoscore coref -f reference``): it replaces the common
one, and :class:`Output` keeps that field's default for the command to set.

A command that serves several tasks and learns which from its input (``annoscore muc CONFIG``:
the configuration or ``--task`` chooses) annotates ``options`` as ``Annotated[Choice, AOptions,
BOptions, ...]``: it gets one flag per option of any of the classes and a :class:`Choice`, whose
:meth:`Choice.of` makes the chosen class's options (an option of another class given with a
value other than its default is an error naming its flag).  An option the command takes as a
parameter of its own (``muc``'s positional ``CONFIG``) gets no flag: the command passes it to
:meth:`Choice.of`.
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from annoscore.cli.common import (
    BootstrapOption,
    ConfidenceOption,
    FormatOption,
    MaxHtmlOption,
    NoTextOption,
    OutputFormat,
    OutputOption,
    PathOrUrl,
    PerDocOption,
    SeedOption,
    choice,
    command_line,
    fetched_inputs,
    is_terminal,
    progress,
    tell,
    url_arguments,
    write_result,
)
from annoscore.cli.writing import check_output
from annoscore.errors import InputError
from annoscore.options import OptionField, RunOptions, TaskOptions, fields
from annoscore.records import Record, set_fields
from annoscore.report.generic import TextRenderer, render_pieces
from annoscore.result import Result
from annoscore.score_warnings import refuse_tolerated

if typing.TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides
    from annoscore.report.html_coref import CorefSides

O = typing.TypeVar("O", bound=TaskOptions)  # noqa: E741


class Output(Record):
    """The output switches every scoring command shares, and ``strict_input`` from the
    options (it decides whether a result that needed tolerated input is refused)."""

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "format",
        "output",
        "per_doc",
        "bootstrap",
        "confidence",
        "seed",
        "strict_input",
        "no_text",
        "max_html_mb",
    )
    format: OutputFormat
    output: Path | None
    per_doc: bool
    bootstrap: int
    confidence: float
    seed: int
    strict_input: bool
    no_text: bool
    max_html_mb: float

    def __init__(
        self,
        format: OutputFormat = OutputFormat.text,
        output: Path | None = None,
        per_doc: bool = False,
        bootstrap: int = 0,
        confidence: float = 0.95,
        seed: int = 12345,
        strict_input: bool = False,
        no_text: bool = False,
        max_html_mb: float = 20.0,
    ) -> None:
        set_fields(
            self,
            format=format,
            output=output,
            per_doc=per_doc,
            bootstrap=bootstrap,
            confidence=confidence,
            seed=seed,
            strict_input=strict_input,
            no_text=no_text,
            max_html_mb=max_html_mb,
        )

    def emit(
        self,
        result: Result,
        text: TextRenderer | None = None,
        spans: Callable[[], SpanSides] | None = None,
        coref: Callable[[], CorefSides] | None = None,
    ) -> None:
        """Render ``result`` and write it to ``output`` (never an input) or stdout; ``text``: the
        official layout for ``--format text``; ``spans`` and ``coref``: a task's documents or
        partitions, read only for ``--format html`` (the page's error analysis and viewer).

        ``per_doc`` adds the per-document rows; ``bootstrap`` adds percentile intervals
        (:mod:`annoscore.significance`); ``strict_input`` refuses (exit 2) a result that needed
        tolerated input.  JSON and Markdown carry the warnings inside; for text and CSV they go
        to stderr, so the official layout on stdout stays byte-for-byte the official script's.
        """
        fmt, output = self.format, self.output
        if output is not None:
            check_output(output)
        elif fmt is OutputFormat.html and is_terminal(sys.stdout):
            raise InputError("--format html writes a page: give -o FILE (e.g. -o report.html)")
        if "annoscore.formats.files" in sys.modules:  # URLs named where their stand-ins are
            from annoscore.formats.files import named_result

            result = named_result(result)
        if self.strict_input:
            refuse_tolerated(result.warnings)
        if self.per_doc:
            result = result.shown(documents=True)
        if self.bootstrap:
            from annoscore.significance import with_intervals

            result = with_intervals(
                result,
                samples=self.bootstrap,
                confidence=self.confidence,
                seed=self.seed,
                progress=progress,
            )
        rendered: str | Iterable[str]
        if fmt is OutputFormat.html:
            from annoscore.report.html import render_html

            rendered = render_html(
                result,
                command=command_line(),
                spans=None if spans is None else spans(),
                text=not self.no_text,
                max_mb=self.max_html_mb,
                coref=None if coref is None else coref(),
            )
        else:
            rendered = render_pieces(result, fmt.value, text)  # pieces: written as made
        write_result(rendered, output)
        if fmt in (OutputFormat.text, OutputFormat.csv):
            for warning in result.warnings:
                tell("warning", str(warning))


_OUTPUT: list[tuple[str, Any, Any]] = [
    ("per_doc", PerDocOption, False),
    ("format", FormatOption, OutputFormat.text),
    ("output", OutputOption, None),
    ("bootstrap", BootstrapOption, 0),
    ("confidence", ConfidenceOption, 0.95),
    ("seed", SeedOption, 12345),
    ("no_text", NoTextOption, False),
    ("max_html_mb", MaxHtmlOption, 20.0),
]


def _switches(spec: OptionField) -> list[tuple[str, str, str]]:
    """A choice option's ``--flag=VALUE`` flags: (parameter name, flag, VALUE)."""
    found = [flag.partition("=") for flag in spec.setting.flags if "=" in flag]
    return [(f"{spec.name}__{n}", flag, value) for n, (flag, _, value) in enumerate(found)]


def _flag_parameter(spec: OptionField) -> inspect.Parameter:
    setting = spec.setting
    flags = tuple(flag for flag in setting.flags if "=" not in flag) or (spec.flag,)
    if spec.kind == "bool" and not setting.flags and spec.default is True:
        flags = (f"{spec.flag}/--no-{spec.flag[2:]}",)
    extra: dict[str, Any] = {}
    annotation: Any = spec.annotation
    default: Any = spec.default
    if spec.kind in ("int", "float"):
        if setting.low is not None:
            extra["min"] = setting.low
        if setting.high is not None:
            extra["max"] = setting.high
    elif spec.kind == "choice":
        if spec.enum is not None and len(spec.choices) == len(spec.enum):
            annotation = spec.enum | None if spec.nullable else spec.enum
            extra["case_sensitive"] = False
        else:  # a Literal: of text, or of some members of an Enum (given by their values)
            annotation = str | None if spec.nullable else str
            extra.update(choice(spec.choices))
            default = default.value if isinstance(default, Enum) else default
    elif spec.kind == "names":
        annotation = list[str] | None
    elif spec.kind == "path":  # a file the option names: a URL too, read whole (guarded)
        annotation = Path | None if spec.nullable else Path
        extra["path_type"] = PathOrUrl
    if setting.panel:
        extra["rich_help_panel"] = setting.panel
    if isinstance(default, tuple) or (spec.kind == "choice" and spec.enum is None):
        default = None if spec.kind == "names" else default
    if setting.required:
        default = inspect.Parameter.empty
    option = typer.Option(*flags, help=" ".join(setting.help.split()), **extra)
    return inspect.Parameter(
        spec.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[annotation, option],
    )


def _option_value(spec: OptionField, values: dict[str, Any]) -> Any:
    value = values.pop(spec.name)
    for name, _, chosen in _switches(spec):
        if values.pop(name):
            value = chosen
    if spec.kind == "names":
        if not value:
            return spec.default
        return tuple(part.strip() for item in value for part in item.split(",") if part.strip())
    return value


class Choice:
    """The option flags of a command serving several options classes, before the command knows
    which task it scores (see the module doc): ``values`` by option name.  A plain class: a
    dataclass's generated code would cost every command's start-up (this module is on each
    scoring command's path)."""

    __slots__ = ("classes", "specs", "values")

    def __init__(
        self,
        values: dict[str, Any],
        specs: tuple[OptionField, ...],
        classes: tuple[type[TaskOptions], ...],
    ) -> None:
        self.values = values
        self.specs = specs
        self.classes = classes

    def of(self, cls: type[O], task: str, **own: Any) -> O:
        """The options of ``cls`` (one of :attr:`classes`) from the flags and ``own`` (options
        the command read itself); an :class:`InputError` naming a flag given with a value other
        than its default that ``cls`` does not take (``task`` says what was chosen)."""
        takes = {f.name for f in fields(cls) if not f.setting.fixed}
        for spec in self.specs:
            if spec.name not in takes and self.values[spec.name] != spec.default:
                flag = spec.setting.flags[0] if spec.setting.flags else spec.flag
                others = [
                    f"{c.__module__}:{c.__qualname__}"
                    for c in self.classes
                    if spec.name in {f.name for f in fields(c) if not f.setting.fixed}
                ]
                raise InputError(
                    f"{flag} has no effect with {task} (only with {' and '.join(_tasks(others))})"
                )
        given = {name: value for name, value in self.values.items() if name in takes}
        return cls(**given, **own)


def _tasks(classes: list[str]) -> list[str]:
    """The registered tasks whose options class is one of ``classes`` (``"module:Class"``)."""
    from annoscore.tasks.registry import TASKS

    return [t.name for t in TASKS.values() if t.options in classes] or classes


def _cuts_urls(classes: tuple[type[TaskOptions], ...]) -> bool:
    """Whether every task of the options ``classes`` reads URLs in chunks itself
    (:func:`annoscore.scale.chunked`: the command then reads none whole)."""
    from annoscore.tasks.registry import TASKS

    names = {f"{c.__module__}:{c.__qualname__}" for c in classes}
    tasks = [t for t in TASKS.values() if t.options in names]
    return bool(tasks) and all(getattr(t.score_function(), "cuts_urls", False) for t in tasks)


def scoring_command(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` as a Typer command whose ``options`` parameter is the flags of its options
    class (or classes: :class:`Choice`) and whose ``out`` parameter is the common output flags
    (see the module doc)."""
    hints = typing.get_type_hints(function, include_extras=True)
    signature = inspect.signature(function)
    hint = hints["options"]
    choosing = typing.get_origin(hint) is Annotated and typing.get_args(hint)[0] is Choice
    classes: tuple[type[TaskOptions], ...] = typing.get_args(hint)[1:] if choosing else (hint,)
    own_parameters = set(signature.parameters) if choosing else set()
    specs: list[OptionField] = []
    for options_class in classes:
        known = {s.name for s in specs} | own_parameters
        specs.extend(
            s for s in fields(options_class) if not s.setting.fixed and s.name not in known
        )
    own = [s for s in specs if s.name != "strict_input"]
    parameters: list[inspect.Parameter] = []
    common = [(name, a, d) for name, a, d in _OUTPUT if name not in signature.parameters]
    run_specs = fields(RunOptions)
    for parameter in signature.parameters.values():
        if parameter.name == "options":
            for spec in own:
                parameters.append(_flag_parameter(spec))
                parameters.extend(
                    inspect.Parameter(
                        name,
                        inspect.Parameter.KEYWORD_ONLY,
                        default=False,
                        annotation=Annotated[
                            bool, typer.Option(flag, help=f"The same as {spec.flag} {value}.")
                        ],
                    )
                    for name, flag, value in _switches(spec)
                )
        elif parameter.name == "out":
            parameters.extend(
                inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a)
                for name, a, d in common
            )
            parameters.extend(_flag_parameter(spec) for spec in run_specs)
        else:  # a path argument may be an fsspec URL
            annotation = url_arguments(hints[parameter.name])
            parameters.append(parameter.replace(annotation=annotation))
    strict = next(s for s in specs if s.name == "strict_input")
    parameters.append(_flag_parameter(strict))
    parameters.sort(key=lambda p: p.kind)  # positional arguments first, as Python requires

    @functools.wraps(function)
    def command(**values: Any) -> None:
        given = {s.name: _option_value(s, values) for s in specs}
        chosen: TaskOptions | Choice = (
            Choice(given, tuple(specs), classes) if choosing else classes[0](**given)
        )
        out = Output(
            **{name: values.pop(name) for name, _, _ in common}, strict_input=given["strict_input"]
        )
        run = RunOptions(**{spec.name: values.pop(spec.name) for spec in run_specs})
        lists = out.format is OutputFormat.html  # a report: chunks keep their worst lists
        serial = run.jobs == 1 and run.dask is None and not lists
        # URLs read whole here unless the task reads them in chunks (a report reads them whole)
        with fetched_inputs(values.values(), lambda: not lists and _cuts_urls(classes)):
            if serial and "annoscore.scale" not in sys.modules:
                # one process, no report and no run set before (the run module is not even
                # imported): the serial run is the one in force, and the command starts faster
                function(options=chosen, out=out, **values)
                return
            from annoscore.scale import scaled

            # the documents' scores sent back by the chunks only when shown
            with scaled(run.jobs, run.dask, lists, documents=lists or out.per_doc):
                function(options=chosen, out=out, **values)

    # the arguments it reads itself (a URL cut by its task), not read whole first (guarded)
    command.lazy_urls = frozenset(  # type: ignore[attr-defined]
        p.name for p in signature.parameters.values() if p.name not in ("options", "out")
    )
    command.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    del command.__wrapped__  # Typer reads the signature above, not the function's
    return command
