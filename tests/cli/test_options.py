"""Every option of every registered task, through every entry point.

For each task of :data:`annoscore.tasks.registry.TASKS` and each option of its options class
(:func:`annoscore.options.fields`): the task's own sub-command has a flag of its Python name
(or the positional argument of that name) with the declared range, and one value other than
the default gives the same JSON through the sub-command, :func:`annoscore.score` and
``annoscore compare --option``; a value the option does not take is one clear error naming it.
Everything is derived from the registry and the options classes, so a task added later is
covered (or fails here until its value is described below).
"""

from __future__ import annotations

import functools
import json
import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer

import annoscore
from annoscore.align.span_modes import READ_BY
from annoscore.cli import app
from annoscore.options import OptionField, fields
from annoscore.report.generic import render
from annoscore.samples import SAMPLES
from annoscore.tasks.registry import TASKS, Task, sample_paths
from tests.conftest import Cli

NAMES = list(TASKS)
SUBTRACK1 = SAMPLES / "pharmaconer" / "gold" / "subtrack1" / "sample"


def written(path: Path, content: str) -> Path:
    path.write_text(content, encoding="utf-8")
    return path


PATHS: dict[str, Any] = {
    "gold_ann": lambda folder: SUBTRACK1,
    "notes": lambda folder: written(
        folder / "notes.json", '[{"identifier": "0", "text": "On 11/21/2019 Dr.Smith"}]'
    ),
    "config": lambda folder: written(
        folder / "co.config", ":scoring_task coreference\n:scoring_method key2key\n"
    ),
}
"""A file for a path option the task's sample does not set (made in a folder)."""

OPEN_NAMES = {"measures": ("P.5,10", "recip_rank")}
"""A value of each names option with no declared names and none by default."""
TEXTS = {"delimiter": " +", "outside_tag": "X", "type_infon": "kind", "id_infon": "MESH"}
"""A value of a text option that the task's sample reads as well."""

REQUIRES: dict[str, dict[str, Any]] = {
    "gold_ann": {"codalab": True},
    "pharmaconer-indexing/codalab": {"gold_ann": SUBTRACK1},
}
"""Options that only take effect (else exit 2) with others set, besides the span modes'
parameters (:data:`READ_BY`)."""

READ_FROM = {"config"}
"""Files whose settings the signature records as read from them (a MUC configuration's
``scoring-method``), though the option itself moves no number."""


def options(task: Task) -> dict[str, OptionField]:
    """The task's options (its fixed settings left out)."""
    return {f.name: f for f in fields(task.options_class()) if not f.setting.fixed}


def refusing(spec: OptionField) -> bool:
    """A switch that moves no number refuses input (``strict_input``, ``strict_text``): the
    sample may then be an error, through every entry point alike."""
    return spec.kind == "bool" and not spec.setting.moves


@functools.cache
def subcommand(words: tuple[str, ...]) -> Any:
    """The Click command of ``annoscore WORDS`` (as Typer builds it)."""
    command: Any = typer.main.get_command(app)
    for word in words:
        command = command.get_command(command.context_class(command), word)
        assert command is not None, words
    return command


def parameter(task: Task, option: str) -> Any:
    """The sub-command's parameter that sets ``option`` (``None`` if none does)."""
    return next((p for p in subcommand(task.command).params if p.name == option), None)


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


def other_value(task: Task, spec: OptionField, folder: Path) -> Any:
    """A value of the option other than its default (a file it needs is made in ``folder``)."""
    default = spec.default
    if spec.kind == "bool":
        return not default
    if spec.kind == "choice":
        return next(c for c in spec.choices if c != text(default))
    if spec.kind == "names":  # the first name alone, or one more
        if not default and not spec.choices:  # open names, none by default
            return OPEN_NAMES[spec.name]
        return default[:1] if len(default) > 1 else (*default, spec.choices[-1])
    if spec.kind == "int":
        return 2 if default is None else default + 1
    if spec.kind == "float":
        return 0.5 if default == 0 else default / 2
    if spec.kind == "text":
        return TEXTS[spec.name]
    assert spec.kind == "path", f"{task.name}: which value of {spec.name} to test?"
    sample = sample_paths(task)[2]
    return sample[spec.name] if spec.name in sample else PATHS[spec.name](folder)


def cases() -> list[tuple[str, str]]:
    return [
        (name, option)
        for name, task in TASKS.items()
        for option, spec in options(task).items()
        if not spec.setting.required  # a required option (a code list) is in every call already
    ]


def settings(task: Task, option: str, value: Any) -> dict[str, Any]:
    """The sample's options, what ``option`` needs, and ``option=value``."""
    given = dict(sample_paths(task)[2])
    declared = options(task)
    needs = dict(REQUIRES.get(f"{task.name}/{option}", REQUIRES.get(option, {})))
    if option in READ_BY and "mode" in declared:
        modes = [m.value for m in READ_BY[option]]
        if text(given.get("mode", declared["mode"].default)) not in modes:
            needs["mode"] = next(m for m in modes if m in declared["mode"].choices)
    given.update({name: v for name, v in needs.items() if name in declared})
    given[option] = value
    return given


def cli_args(task: Task, given: dict[str, Any]) -> list[Any]:
    """The sub-command line scoring the task's sample with ``given`` options."""
    command = subcommand(task.command)
    gold, system, _ = sample_paths(task)
    names = {p.name for p in command.params}
    args: list[Any] = list(task.command)
    if {"gold", "pred"} <= names:
        args += ["--gold", gold, "--pred", system]
    elif {"key", "response", "task"} <= names:  # annoscore muc: --task chooses, no report files
        task_name = task.name.removeprefix("muc-").replace("-", "_")
        args += ["--key", gold, "--response", system, "--task", task_name, "--no-files"]
    else:
        args += [gold, system]
    declared = options(task)
    for name, value in given.items():
        param = parameter(task, name)
        assert param is not None, (task.name, name)
        if value is None or value == declared[name].default:
            continue
        if param.param_type_name == "argument":
            args.append(value)
        elif getattr(param, "is_flag", False):
            args.append(param.opts[0] if value else param.secondary_opts[0])
        else:
            args += [param.opts[0], text(value)]
    return args


def api_json(task: Task, given: dict[str, Any]) -> dict[str, Any]:
    gold, system, _ = sample_paths(task)
    data: dict[str, Any] = json.loads(
        render(annoscore.score(task.name, gold, system, **given), "json")
    )
    return data


def compare_args(task: Task, given: dict[str, Any]) -> list[Any]:
    gold, system, _ = sample_paths(task)
    args: list[Any] = ["compare", task.name, gold, system, system, "--samples", 20]
    for name, value in given.items():
        args += ["--option", f"{name.replace('_', '-')}={text(value)}"]
    return args


COMPARE_TAIL = "|test:bootstrap|samples:20|confidence:0.95|seed:12345"


# --- the sub-command's flags are the declared options ----------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_a_flag_of_its_python_name_with_its_range(name: str) -> None:
    """``annoscore.score(..., overlap_basis="shorter")`` is ``--overlap-basis shorter``: each
    option's Python name, ``-`` for ``_``, is one of its flag's names (beside an older one), or
    the option is the command's positional argument of that name (``muc CONFIG``); a number's
    range is the declared one, so no entry point takes a number another refuses."""
    task = TASKS[name]
    assert subcommand(task.command).help
    for option, spec in options(task).items():
        param = parameter(task, option)
        assert param is not None, f"{name}: {option} has no flag in {task.command}"
        if param.param_type_name == "argument":
            assert param.name == option
        else:
            assert "--" + option.replace("_", "-") in param.opts, (option, param.opts)
        if spec.kind in ("int", "float"):
            low, high = getattr(param.type, "min", None), getattr(param.type, "max", None)
            assert (low, high) == (spec.setting.low, spec.setting.high), (name, option)


# --- one value other than the default, three entry points, one answer ------------------------


@pytest.mark.parametrize(("name", "option"), cases())
def test_an_option_reaches_the_same_json_through_every_entry_point(
    cli: Cli, tmp_path: Path, name: str, option: str
) -> None:
    task = TASKS[name]
    spec = options(task)[option]
    value = other_value(task, spec, tmp_path)
    given = settings(task, option, value)

    done = cli(*cli_args(task, given), "--format", "json")
    if refusing(spec) and done.exit_code == 2:  # the sample has what it refuses
        gold, system, _ = sample_paths(task)
        with pytest.raises(annoscore.InputError) as raised:
            annoscore.score(name, gold, system, **given)
        assert done.stderr == f"annoscore: error: {raised.value}\n"
        refused = cli(*compare_args(task, given))
        assert refused.exit_code == 2 and refused.stderr == done.stderr
        return
    assert done.exit_code == 0, done.output
    by_cli = json.loads(done.stdout)
    assert api_json(task, given) == by_cli

    by_compare = cli.json(*compare_args(task, given))
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    for system in by_compare["systems"].values():
        assert system["scores"] == by_cli["scores"]

    try:
        default = api_json(task, {**given, option: spec.default})["signature"]
    except annoscore.InputError:  # the option goes with another (gold_ann with codalab)
        default = None
    if spec.setting.moves:  # else the sample's own settings
        default = default or api_json(task, dict(sample_paths(task)[2]))["signature"]
        assert by_cli["signature"] != default, f"{option}={value!r} is not recorded"
    else:
        assert f"|{spec.key}:" not in by_cli["signature"]
        assert default in (None, by_cli["signature"]) or option in READ_FROM


@pytest.mark.parametrize(("name", "option"), cases())
def test_the_api_reads_a_string_as_compare_does(tmp_path: Path, name: str, option: str) -> None:
    """``annoscore.score(..., name="value")`` (a value as text, e.g. from a configuration
    file) is ``annoscore.score(..., name=value)``: ``codalab="no"`` is False, not a true
    string."""
    task = TASKS[name]
    spec = options(task)[option]
    given = settings(task, option, other_value(task, spec, tmp_path))
    as_text = {key: text(v) for key, v in given.items()}

    def outcome(values: dict[str, Any]) -> Any:
        try:
            return api_json(task, values)
        except annoscore.InputError as error:  # strict_input on a sample it refuses
            assert refusing(spec)
            return str(error)

    assert outcome(as_text) == outcome(given)


@pytest.mark.parametrize("name", NAMES)
def test_compare_scores_every_task_on_its_sample(cli: Cli, name: str) -> None:
    task = TASKS[name]
    given = dict(sample_paths(task)[2])
    by_compare = cli.json(*compare_args(task, given))
    by_cli = cli.json(*cli_args(task, given))
    assert by_compare["task"] == by_cli["task"] == name
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    assert list(by_compare["systems"]) and all(
        s["scores"] == by_cli["scores"] for s in by_compare["systems"].values()
    )


NULLABLE = [
    (name, option)
    for name, task in TASKS.items()
    for option, spec in options(task).items()
    if spec.nullable and not spec.setting.required
]


@pytest.mark.parametrize(("name", "option"), NULLABLE)
def test_none_is_a_value_of_every_option_that_takes_none(cli: Cli, name: str, option: str) -> None:
    task = TASKS[name]
    given = {**sample_paths(task)[2], option: None}
    by_api = api_json(task, given)
    by_compare = cli.json(*compare_args(task, given))
    assert by_compare["signature"] == by_api["signature"] + COMPARE_TAIL


def test_depth_none_is_no_cut_as_depth_0_on_the_command_line(cli: Cli) -> None:
    """``--option depth=none`` once reached the scorer as the string 'none' (exit 1, a
    TypeError); ``annoscore codiesp D --depth 0`` is the command line's 'no cut'."""
    task = TASKS["codiesp-d"]
    given = settings(task, "depth", None)
    by_compare = cli.json(*compare_args(task, given))
    by_cli = cli.json(*cli_args(task, settings(task, "depth", 0)))
    assert "|depth:none|" in by_cli["signature"]
    assert by_compare["signature"] == by_cli["signature"] + COMPARE_TAIL
    assert api_json(task, given) == by_cli


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
    """A string once failed as a path with AttributeError ('str' has no read_bytes)."""
    for name, task in TASKS.items():
        _, _, given = sample_paths(task)
        as_strings = {k: str(v) if isinstance(v, Path) else v for k, v in given.items()}
        assert api_json(task, as_strings) == api_json(task, given), name


# --- a bad value: one clear error, naming the option -----------------------------------------


def bad_values(spec: OptionField) -> list[str]:
    """Values the option does not take, one beyond each end of a number's range included."""
    low, high = spec.setting.low, spec.setting.high
    beyond = [f"{low - 1:g}"] if low is not None else []
    beyond += [f"{high + 1:g}"] if high is not None else []
    if spec.kind == "bool":
        return ["maybe"]
    if spec.kind == "int":
        return ["x", "2.5", *beyond]
    if spec.kind == "float":
        return ["x", "inf", *beyond]
    if spec.kind in ("choice", "names"):
        return ["bogus"]
    return []  # a path or text: any string is one (an unreadable file is the data's error)


BAD = [
    (name, option, value)
    for name, task in TASKS.items()
    for option, spec in options(task).items()
    for value in bad_values(spec)
]


def names_option(message: str, option: str) -> bool:
    def plain(s: str) -> str:
        return re.sub(r"[-_ ]", "", s.lower())

    return plain(option) in plain(message)


@pytest.mark.parametrize(("name", "option", "value"), BAD)
def test_a_bad_value_is_one_clear_error_naming_the_option(
    cli: Cli, name: str, option: str, value: str
) -> None:
    task = TASKS[name]
    given = settings(task, option, value)
    gold, system, _ = sample_paths(task)
    with pytest.raises(annoscore.InputError) as raised:
        annoscore.score(name, gold, system, **given)
    assert names_option(str(raised.value), option), str(raised.value)

    done = cli(*compare_args(task, given))
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("annoscore: error: "), done.stderr
    assert names_option(lines[0], option), lines[0]


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_or_missing_option_is_an_input_error(name: str) -> None:
    task = TASKS[name]
    gold, system, given = sample_paths(task)
    with pytest.raises(annoscore.InputError, match="bogus: unknown option; this task"):
        annoscore.score(name, gold, system, bogus=1, **given)
    for option in [o for o, spec in options(task).items() if spec.setting.required]:
        others = {k: v for k, v in given.items() if k != option}
        with pytest.raises(annoscore.InputError, match=rf"\({name}\) needs {option}=VALUE$"):
            annoscore.score(name, gold, system, **others)


def test_the_option_example_in_compare_help_is_an_option_value(cli: Cli) -> None:
    """The ``--option`` help once gave ``missing-docs=empty``, a value no task takes."""
    option = next(p for p in subcommand(("compare",)).params if p.name == "option")
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
