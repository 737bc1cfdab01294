"""Every option of every registered task, through every entry point.

For each task of :data:`annoscore.tasks.registry.TASKS` and each keyword option of its score
function: the task's own sub-command has a flag for it, and one value other than the default
gives the same JSON through the sub-command, :func:`annoscore.score` and (its signature and
scores) ``annoscore compare --option``; a value the option does not take is one clear error
naming it.  Everything is derived from the registry and the sub-commands' own parameters, so a
task added later is covered (or fails here until its options are described below).
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer

import annoscore
from annoscore.cli import app
from annoscore.report.generic import render
from annoscore.samples import SAMPLES
from annoscore.tasks.options import BOUNDS, OptionSpec, option_specs
from annoscore.tasks.registry import TASKS, Task, sample_paths
from tests.conftest import Cli

NAMES = list(TASKS)

ALIASES = {"overlap_basis": "overlap_of", "metrics": "metric"}
"""Score-function option -> the sub-command parameter that sets it, where their names differ
(``annoscore spans --overlap-of``, ``annoscore coref --metric``)."""

CLI_EXTRA: dict[str, tuple[str, ...]] = {
    "muc-template-element": ("--no-files",),
    "muc-template-relation": ("--no-files", "--task", "tr"),
    "muc-scenario-template": ("--no-files", "--task", "st"),
    "muc-named-entity": ("--no-files", "--task", "named_entity"),
    "muc-coreference": ("--no-files", "--task", "coreference"),
}
"""Sub-command arguments a task needs besides its data and options: the MUC tasks share
``annoscore muc`` (which the configuration or --task selects) and write no report files here."""

SUBTRACK1 = SAMPLES / "pharmaconer" / "gold" / "subtrack1" / "sample"


def written(path: Path, content: str) -> Path:
    path.write_text(content, encoding="utf-8")
    return path


OTHER: dict[str, Any] = {
    "coref/metrics": ("muc", "bcub"),
    "muc-scenario-template/text_filter": "relevance",
    "muc-coreference/metric": ("bcub", "muc"),
    "trec/max_docs": 2,
    "pharmaconer-indexing/gold_ann": SUBTRACK1,
    "muc-coreference/config": lambda folder: written(
        folder / "co.config", ":scoring_task coreference\n:scoring_method key2key\n"
    ),
    **{
        f"nlpsandbox-{category}/notes": lambda folder: written(
            folder / "notes.json", '[{"identifier": "0", "text": "On 11/21/2019 Dr.Smith"}]'
        )
        for category in ("date", "person", "location", "id", "contact", "covid-symptom", "all")
    },
}
"""A value other than the default for the options :func:`other_value` cannot choose by kind
(``TASK/option``); a function makes it in a folder."""

REQUIRES: dict[str, dict[str, Any]] = {
    "min_overlap": {"mode": "overlap"},
    "overlap_basis": {"mode": "overlap", "min_overlap": 0.5},
    "tolerance": {"mode": "relaxed"},  # in the tasks that have a mode
    "gold_ann": {"codalab": True},
    "pharmaconer-indexing/codalab": {"gold_ann": SUBTRACK1},
}
"""Options that only take effect (else exit 2) with others set."""

SAME_SIGNATURE = {
    "strict_input": "refuses tolerated input, changes no number",
    "strict_text": "refuses a text mismatch, changes no number",
    "task": "'te' is the sample configuration's own task",
    "text_filter": "applies to scenario templates only; the sample is template elements",
    "notes": "checks the annotation texts against the notes, changes no number",
}
"""Options whose tested value leaves the signature as the defaults give it, and why; every
other option's value must change the signature."""

MAY_REFUSE = {"strict_input", "strict_text"}
"""Options that may make the sample an error (exit 2): then every entry point refuses it."""


def subcommand(task: Task) -> tuple[Any, list[str]]:
    """The task's own sub-command (a Click command, as Typer builds it) and the command words
    that are its arguments (``are 1``)."""
    return _subcommand(task.command)


@functools.cache
def _subcommand(command_words: tuple[str, ...]) -> tuple[Any, list[str]]:
    command: Any = typer.main.get_command(app)
    words = list(command_words)
    while words and hasattr(command, "get_command"):
        found = command.get_command(command.context_class(command), words.pop(0))
        assert found is not None, command_words
        command = found
    return command, words


def parameter(task: Task, option: str) -> Any:
    """The sub-command's parameter that sets ``option`` (``None`` if none does)."""
    command, _ = subcommand(task)
    wanted = ALIASES.get(option, option)
    return next((p for p in command.params if p.name == wanted), None)


def flag_choices(param: Any) -> tuple[str, ...]:
    """The values a sub-command's choice flag takes (a Click choice or a ``[a|b]`` metavar)."""
    choices = getattr(param.type, "choices", None)
    if choices:
        return tuple(str(getattr(c, "value", c)) for c in choices)
    metavar = getattr(param, "metavar", None) or ""
    match = re.fullmatch(r"[\[<]([^\]>]+)[\]>]", metavar)
    return tuple(match.group(1).split("|")) if match else ()


def text(value: Any) -> str:
    """A value as ``--option NAME=VALUE`` spells it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple | list):
        return ",".join(value)
    return str(value)


def other_value(task: Task, spec: OptionSpec, folder: Path) -> Any:
    """A value of the option other than its default, one its sub-command takes too (a file it
    needs is made in ``folder``)."""
    if f"{task.name}/{spec.name}" in OTHER:
        value = OTHER[f"{task.name}/{spec.name}"]
        return value(folder) if callable(value) else value
    default = spec.default
    if spec.kind == "bool":
        return not default
    if spec.kind in ("choice", "text"):
        param = parameter(task, spec.name)
        choices = flag_choices(param) if param is not None else spec.choices
        assert choices, f"{task.name}: say in OTHER which value of {spec.name} to test"
        return next(c for c in choices if c != text(default))
    if spec.kind == "int":
        return default + 1
    if spec.kind == "float":
        return 0.5 if default == 0 else default / 2
    if spec.kind == "path" and not spec.required:
        sample = sample_paths(task)[2]
        assert spec.name in sample, f"{task.name}: say in OTHER which {spec.name} to test"
        return sample[spec.name]
    raise AssertionError(f"{task.name}: say in OTHER which value of {spec.name} to test")


def cases() -> list[tuple[str, str]]:
    return [
        (name, option)
        for name, task in TASKS.items()
        for option, spec in option_specs(task).items()
        if not spec.required  # a required option (a code list) is in every call already
    ]


def settings(task: Task, option: str, value: Any) -> dict[str, Any]:
    """The sample's options, what ``option`` needs, and ``option=value``."""
    options = dict(sample_paths(task)[2])
    specs = option_specs(task)
    needs = REQUIRES.get(f"{task.name}/{option}", REQUIRES.get(option, {}))
    for name, needed in needs.items():
        if name in specs:
            options[name] = needed
    options[option] = value
    return options


def cli_args(task: Task, options: dict[str, Any]) -> list[Any]:
    """The sub-command line scoring the task's sample with ``options``."""
    command, _ = subcommand(task)
    gold, system, _ = sample_paths(task)
    names = {p.name for p in command.params}
    args: list[Any] = [*task.command, *CLI_EXTRA.get(task.name, ())]
    if {"gold", "pred"} <= names:
        args += ["--gold", gold, "--pred", system]
    elif {"key", "response"} <= names and "config" in names:  # annoscore muc
        args += ["--key", gold, "--response", system]
    else:
        args += [gold, system]
    specs = option_specs(task)
    for name, value in options.items():
        param = parameter(task, name)
        assert param is not None, (task.name, name)
        if value is None or (name in specs and value == specs[name].default):
            continue
        if param.param_type_name == "argument":
            args.append(value)
        elif getattr(param, "is_flag", False):
            args.append(param.opts[0] if value else param.secondary_opts[0])
        elif isinstance(value, tuple):
            args += [param.opts[0], ",".join(value)]
        else:
            args += [param.opts[0], text(value)]
    return args


def api_json(task: Task, options: dict[str, Any]) -> dict[str, Any]:
    gold, system, _ = sample_paths(task)
    data: dict[str, Any] = json.loads(
        render(annoscore.score(task.name, gold, system, **options), "json")
    )
    return data


def compare_args(task: Task, options: dict[str, Any]) -> list[Any]:
    gold, system, _ = sample_paths(task)
    items = [f"{name.replace('_', '-')}={text(value)}" for name, value in options.items()]
    args: list[Any] = ["compare", task.name, gold, system, system, "--samples", 20]
    for item in items:
        args += ["--option", item]
    return args


COMPARE_TAIL = "|test:bootstrap|samples:20|confidence:0.95|seed:12345"


# --- (1) every option has a flag in the task's own sub-command ------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_a_flag_of_the_tasks_own_subcommand(name: str) -> None:
    task = TASKS[name]
    command, _ = subcommand(task)
    for option in option_specs(task):
        assert parameter(task, option) is not None, (
            f"{name}: option {option} has no flag in 'annoscore {' '.join(task.command)}'"
        )
    assert command.help


@pytest.mark.parametrize("name", NAMES)
def test_numeric_ranges_are_the_subcommands_own(name: str) -> None:
    """:data:`BOUNDS` (checked by ``annoscore.score`` and ``compare``) are the sub-command's
    ranges, so no entry point takes a number another refuses."""
    task = TASKS[name]
    for option, spec in option_specs(task).items():
        if spec.kind not in ("int", "float"):
            continue
        param = parameter(task, option)
        assert param is not None
        low = getattr(param.type, "min", None)
        high = getattr(param.type, "max", None)
        assert BOUNDS.get(option, (None, None)) == (low, high), (name, option)


# --- (1)-(3) one value other than the default, three entry points, one answer --------------


@pytest.mark.parametrize(("name", "option"), cases())
def test_an_option_reaches_the_same_json_through_every_entry_point(
    cli: Cli, tmp_path: Path, name: str, option: str
) -> None:
    task = TASKS[name]
    spec = option_specs(task)[option]
    value = other_value(task, spec, tmp_path)
    options = settings(task, option, value)

    done = cli(*cli_args(task, options), "--format", "json")
    if option in MAY_REFUSE and done.exit_code == 2:  # the sample has what it refuses
        gold, system, _ = sample_paths(task)
        with pytest.raises(annoscore.InputError) as raised:
            annoscore.score(name, gold, system, **options)
        assert done.stderr == f"annoscore: error: {raised.value}\n"
        refused = cli(*compare_args(task, options))
        assert refused.exit_code == 2 and refused.stderr == done.stderr
        return
    assert done.exit_code == 0, done.output
    by_cli = json.loads(done.stdout)
    by_api = api_json(task, options)
    assert by_api == by_cli

    by_compare = cli.json(*compare_args(task, options))
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    for system in by_compare["systems"].values():
        assert system["scores"] == by_cli["scores"]

    try:
        default_signature = api_json(task, settings(task, option, spec.default))["signature"]
    except annoscore.InputError:  # the option goes with another: the sample's own settings
        default_signature = api_json(task, dict(sample_paths(task)[2]))["signature"]
    if option in SAME_SIGNATURE:
        assert by_cli["signature"] == default_signature
    else:
        assert by_cli["signature"] != default_signature, f"{option}={value!r} is not recorded"


@pytest.mark.parametrize(("name", "option"), cases())
def test_the_api_reads_a_string_as_compare_does(tmp_path: Path, name: str, option: str) -> None:
    """``annoscore.score(..., name="value")`` (a value as text, e.g. from a configuration
    file) is ``annoscore.score(..., name=value)``: ``codalab="no"`` is False, not a true
    string."""
    task = TASKS[name]
    value = other_value(task, option_specs(task)[option], tmp_path)
    options = settings(task, option, value)
    as_text = {key: text(v) if v is not None else v for key, v in options.items()}

    def outcome(given: dict[str, Any]) -> Any:
        try:
            return api_json(task, given)
        except annoscore.InputError as error:  # strict_input on a sample it refuses
            assert option in MAY_REFUSE
            return str(error)

    assert outcome(as_text) == outcome(options)


# --- every value kind through compare, none included ---------------------------------------


@pytest.mark.parametrize(
    "name", [n for n in NAMES if n.split("-")[0] not in ("are", "muc", "spans")]
)
def test_compare_scores_every_task_on_its_sample(cli: Cli, name: str) -> None:
    task = TASKS[name]
    options = dict(sample_paths(task)[2])
    by_compare = cli.json(*compare_args(task, options))
    by_cli = cli.json(*cli_args(task, options))
    assert by_compare["task"] == by_cli["task"]
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    assert list(by_compare["systems"]) and all(
        s["scores"] == by_cli["scores"] for s in by_compare["systems"].values()
    )


NULLABLE = [
    (name, option)
    for name, task in TASKS.items()
    for option, spec in option_specs(task).items()
    if spec.nullable
]


@pytest.mark.parametrize(("name", "option"), NULLABLE)
def test_none_is_a_value_of_every_option_that_takes_none(cli: Cli, name: str, option: str) -> None:
    task = TASKS[name]
    options = {**sample_paths(task)[2], option: None}
    by_api = api_json(task, options)
    by_compare = cli.json(*compare_args(task, options))
    assert by_compare["signature"] == by_api["signature"] + COMPARE_TAIL


def test_depth_none_is_no_cut_as_depth_0_on_the_command_line(cli: Cli) -> None:
    """``--option depth=none`` once reached the scorer as the string 'none' (exit 1, a
    TypeError); ``annoscore codiesp D --depth 0`` is the command line's 'no cut'."""
    task = TASKS["codiesp-d"]
    options = settings(task, "depth", None)
    by_compare = cli.json(*compare_args(task, options))
    by_cli = cli.json(*cli_args(task, settings(task, "depth", 0)), "--depth", 0)
    assert "|depth:none|" in by_cli["signature"]
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    assert api_json(task, options) == by_cli


def test_lists_are_read_as_the_subcommand_reads_them(cli: Cli) -> None:
    """``coref --metric`` takes groups (``conll``) in any order; ``--option metrics=`` and
    ``annoscore.score(metrics=[...])`` once passed the names through unread: 'conll' was an
    internal error and ['bcub', 'muc'] a signature the command line never gives."""
    task = TASKS["coref"]
    key, response, _ = sample_paths(task)
    for spelled, listed in (("conll", ["conll"]), ("bcub,muc", ["bcub", "muc"])):
        by_cli = cli.json("coref", key, response, "--metric", spelled)
        assert api_json(task, {"metrics": listed}) == by_cli
        by_compare = cli.json(*compare_args(task, {"metrics": spelled}))
        assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    with pytest.raises(annoscore.InputError, match="metrics: 'x' is not one of muc,"):
        annoscore.score("coref", key, response, metrics=["muc", "x"])


def test_a_path_option_may_be_a_string_in_every_task() -> None:
    """``config`` of muc-named-entity is a path the registry does not list in
    ``path_options``: a string once failed with AttributeError ('str' has no read_bytes)."""
    for name, task in TASKS.items():
        _, _, options = sample_paths(task)
        as_strings = {k: str(v) if isinstance(v, Path) else v for k, v in options.items()}
        assert api_json(task, as_strings) == api_json(task, options), name


# --- a bad value: one clear error, naming the option ---------------------------------------


def bad_values(spec: OptionSpec) -> list[str]:
    kind = spec.kind
    if kind == "bool":
        return ["maybe"]
    if kind == "int":
        return ["x", "2.5", *(["-1"] if spec.low == 0 else [])]
    if kind == "float":
        return ["x", "inf", *(["2"] if spec.high == 1 else [])]
    if kind in ("choice", "names", "text"):
        return ["bogus"]
    return []  # a path: any string is one (a missing file is the data's error)


BAD = [
    (name, option, value)
    for name, task in TASKS.items()
    for option, spec in option_specs(task).items()
    for value in bad_values(spec)
]


def names_option(message: str, option: str) -> bool:
    def plain(s: str) -> str:
        return re.sub(r"[-_ ]", "", s.lower())

    return plain(option) in plain(message) or plain(ALIASES.get(option, "")) in plain(message)


@pytest.mark.parametrize(("name", "option", "value"), BAD)
def test_a_bad_value_is_one_clear_error_naming_the_option(
    cli: Cli, name: str, option: str, value: str
) -> None:
    task = TASKS[name]
    options = settings(task, option, value)
    gold, system, _ = sample_paths(task)
    with pytest.raises(annoscore.InputError) as raised:
        annoscore.score(name, gold, system, **options)
    assert names_option(str(raised.value), option), str(raised.value)

    done = cli(*compare_args(task, options))
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("annoscore: error: "), done.stderr
    assert names_option(lines[0], option), lines[0]


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_or_missing_option_is_an_input_error(name: str) -> None:
    task = TASKS[name]
    gold, system, options = sample_paths(task)
    with pytest.raises(annoscore.InputError, match="bogus: unknown option; this task"):
        annoscore.score(name, gold, system, bogus=1, **options)
    required = [o for o, spec in option_specs(task).items() if spec.required]
    if required:
        with pytest.raises(annoscore.InputError, match=f"needs {required[0]}=VALUE"):
            annoscore.score(name, gold, system)


def test_the_score_function_signature_is_what_the_specs_read() -> None:
    """The option specs come from the signature: nothing else is a keyword option."""
    for task in TASKS.values():
        parameters = inspect.signature(task.score_function()).parameters.values()
        keyword = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        assert list(option_specs(task)) == keyword


def test_the_option_example_in_compare_help_is_an_option_value(cli: Cli) -> None:
    """The ``--option`` help once gave ``missing-docs=empty``, a value no task takes."""
    command: Any = typer.main.get_command(app)
    compare = command.get_command(command.context_class(command), "compare")
    option = next(p for p in compare.params if p.name == "option")
    example = re.search(r"e\.g\. --option (\S+?)\.?$", option.help)
    assert example is not None, option.help
    task = TASKS["pharmaconer-ner"]  # the task of the command's own example
    gold, system, _ = sample_paths(task)
    data = cli.json("compare", task.name, gold, system, system, "--option", example.group(1))
    name, _, value = example.group(1).partition("=")
    assert f"|{name}:{value}|" in data["signature"]


def test_the_api_checks_python_values_by_kind() -> None:
    """A number of any integer type is an integer (numpy's too); a bool is not a number, a
    float not an integer; an enum option takes its member or its value in any case."""
    import numpy as np

    qrels, run, _ = sample_paths(TASKS["trec"])
    two = annoscore.score("trec", qrels, run, relevance_level=np.int64(2))
    assert two.signature == annoscore.score("trec", qrels, run, relevance_level=2).signature
    for wrong in (True, 2.5, "two"):
        with pytest.raises(annoscore.InputError, match="relevance_level: expected an integer"):
            annoscore.score("trec", qrels, run, relevance_level=wrong)
    with pytest.raises(annoscore.InputError, match="complete: expected true or false, not 1"):
        annoscore.score("trec", qrels, run, complete=1)
    gold, pred, _ = sample_paths(TASKS["nlpsandbox-date"])
    member = annoscore.score("nlpsandbox-date", gold, pred, tokenizer="WhiteSpace")
    assert "|tokenizer:whitespace|" in str(member.signature)


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_also_a_flag_of_its_python_name(name: str) -> None:
    """``annoscore.score(..., overlap_basis="shorter")`` is ``--overlap-basis shorter``: each
    option's Python name, ``-`` for ``_``, is one of its flag's names (beside an older one), or
    the option is the command's positional argument of that name (``muc CONFIG``)."""
    task = TASKS[name]
    for option in option_specs(task):
        param = parameter(task, option)
        assert param is not None, option
        if param.param_type_name == "argument":
            assert param.name == option
        else:
            assert "--" + option.replace("_", "-") in param.opts, (option, param.opts)
