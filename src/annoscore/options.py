"""A task's options, declared once: one frozen dataclass whose fields carry their metadata.

Every task names one subclass of :class:`TaskOptions`.  Each field is an option: its name (the
Python keyword; the flag is the name with ``-`` for ``_``), its type (``bool``, ``int``,
``float``, ``str``, ``Path``, an ``Enum``, a ``Literal``, ``tuple[str, ...]`` for a list of
names, or any of them ``| None``), its official default, and an :func:`option` record: the help
text, other flags, the range of a number, and whether it moves a number (then it is part of the
signature).  Everything else is derived from that one declaration:

- the signature (:meth:`TaskOptions.signature`: the settings that move a number, in order);
- the command line's flags (``annoscore.cli.options`` builds them from :func:`fields`);
- :func:`annoscore.score` and ``annoscore compare --option NAME=VALUE``, which read values as
  Python values or as the command line's text (:meth:`TaskOptions.from_values`);
- the README's option tables (:func:`markdown_table`).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Example(TaskOptions):
...     depth: int | None = option(1000, "Ranks kept per query.", low=0)
...     lowercase: bool = option(True, "Lower-case the codes.")
>>> opts = Example.from_values({"depth": "none", "lowercase": "no"})
>>> opts
Example(strict_input=False, depth=None, lowercase=False)
>>> str(opts.signature("demo"))
'annoscore:0.1.0|task:demo|depth:none|lowercase:no'
>>> Example.from_values({"depth": -1})
Traceback (most recent call last):
...
annoscore.errors.InputError: depth: expected at least 0, not -1
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

from annoscore.errors import InputError
from annoscore.records import Record, set_fields
from annoscore.signature import Signature

T = TypeVar("T")
O = TypeVar("O", bound="TaskOptions")  # noqa: E741

_KEY = "annoscore"
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})

MAX_SAMPLES = 1_000_000
"""The most resamples or trials one call of :mod:`annoscore.significance` draws: a million take
5 to 40 seconds (one call of the scorer each), far more than a percentile interval or a p-value
needs (sacrebleu draws 1,000 and 10,000); ``--bootstrap 10**12`` would run for weeks and fill
the memory.  Here, so that the command line's ``--bootstrap`` knows it without importing that
module."""


class Setting(Record):
    """What an option is besides its name, type and default (see :func:`option`).

    >>> Setting("Ranks kept.", low=0)
    Setting(help='Ranks kept.', flags=(), moves=True, low=0, high=None, panel=None, \
required=False, fixed=False, argument=False, omitted_at_default=False)
    """

    __slots__ = (  # noqa: RUF023 (the order of the fields: repr, equality)
        "help",
        "flags",
        "moves",
        "low",
        "high",
        "panel",
        "required",
        "fixed",
        "argument",
        "omitted_at_default",
    )
    help: str
    flags: tuple[str, ...]
    moves: bool
    low: float | None
    high: float | None
    panel: str | None
    required: bool
    fixed: bool
    argument: bool
    omitted_at_default: bool

    def __init__(
        self,
        help: str,
        flags: tuple[str, ...] = (),
        moves: bool = True,
        low: float | None = None,
        high: float | None = None,
        panel: str | None = None,
        required: bool = False,
        fixed: bool = False,
        argument: bool = False,
        omitted_at_default: bool = False,
    ) -> None:
        set_fields(
            self,
            help=help,
            flags=flags,
            moves=moves,
            low=low,
            high=high,
            panel=panel,
            required=required,
            fixed=fixed,
            argument=argument,
            omitted_at_default=omitted_at_default,
        )


def option(
    default: T,
    help: str,
    *,
    flags: tuple[str, ...] = (),
    moves: bool = True,
    low: float | None = None,
    high: float | None = None,
    panel: str | None = None,
    required: bool = False,
    argument: bool = False,
    omitted_at_default: bool = False,
) -> T:
    """One option of a task: a dataclass field with its official ``default`` and its metadata.

    - ``help``: one sentence or two for ``--help`` and the README (say what the official value
      is when it matters);
    - ``flags``: the command line's flags when not just ``--name-with-dashes`` (the first one
      is the main one: ``("-c", "--complete")``; a switch ``("--lowercase/--no-lowercase",)``);
    - ``moves``: the option moves a number, so it is part of the signature (an option that only
      checks or warns does not);
    - ``low``, ``high``: the range of a number, inclusive;
    - ``required``: the task cannot score without it (a file it reads: ``default`` is
      ``None``, and the command line asks for the flag);
    - ``argument``: the command line takes it as a positional argument that the command
      declares itself (``annoscore muc CONFIG``), not as a flag;
    - ``omitted_at_default``: an option that moves a number is left out of the signature while
      it has its default (one that adds numbers and leaves the others as they are: the
      signature of a run without it stays the one it was).
    """
    setting = Setting(
        help,
        flags,
        moves,
        low,
        high,
        panel,
        required,
        argument=argument,
        omitted_at_default=omitted_at_default,
    )
    field: T = dataclasses.field(default=default, metadata={_KEY: setting})
    return field


def constant(value: T, help: str) -> T:
    """A setting of a task that is not an option (it cannot be changed) but that the signature
    records, in its place among the options: how matching is done, which reference a scorer
    follows (``matching:one-to-one-optimal``, ``reference:8.01``)."""
    setting = Setting(help, moves=True, fixed=True)
    field: T = dataclasses.field(default=value, init=False, metadata={_KEY: setting})
    return field


class OptionField(Record):
    """One option of an options class, as :func:`fields` gives it: ``kind`` is ``bool``,
    ``int``, ``float``, ``path``, ``choice`` (an ``Enum``: ``enum``, or a ``Literal``, of text
    or of some members of one ``Enum``: ``enum`` then too), ``names`` (a tuple of names) or
    ``text``; ``choices`` the values a ``choice`` takes, as text (for ``names`` of a
    ``tuple[Literal[...], ...]``, the names it takes)."""

    __slots__ = (  # noqa: RUF023 (the order of the fields: repr, equality)
        "name",
        "annotation",
        "kind",
        "default",
        "setting",
        "nullable",
        "choices",
        "enum",
    )
    name: str
    annotation: Any
    kind: str
    default: Any
    setting: Setting
    nullable: bool
    choices: tuple[str, ...]
    enum: type[Enum] | None

    def __init__(
        self,
        name: str,
        annotation: Any,
        kind: str,
        default: Any,
        setting: Setting,
        nullable: bool = False,
        choices: tuple[str, ...] = (),
        enum: type[Enum] | None = None,
    ) -> None:
        set_fields(
            self,
            name=name,
            annotation=annotation,
            kind=kind,
            default=default,
            setting=setting,
            nullable=nullable,
            choices=choices,
            enum=enum,
        )

    @property
    def flag(self) -> str:
        """The option as the command line spells it (``--missing-docs``)."""
        return "--" + self.name.replace("_", "-")

    @property
    def key(self) -> str:
        """The option as the signature spells it (``missing-docs``)."""
        return self.name.replace("_", "-")


def _members(annotation: Any) -> tuple[Any, ...]:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return typing.get_args(annotation)
    return (annotation,)


def _field(name: str, annotation: Any, default: Any, setting: Setting) -> OptionField:
    members = _members(annotation)
    nullable = type(None) in members
    plain = [m for m in members if m is not type(None)]

    def made(kind: str, choices: Iterable[Any] = (), enum: type[Enum] | None = None) -> OptionField:
        listed = tuple(str(c) for c in choices)
        return OptionField(name, annotation, kind, default, setting, nullable, listed, enum)

    for member in plain:
        if isinstance(member, type) and issubclass(member, Enum):
            return made("choice", (m.value for m in member), member)
        if typing.get_origin(member) is typing.Literal:
            args = typing.get_args(member)
            if all(isinstance(a, Enum) for a in args):  # some members of one Enum
                return made("choice", (a.value for a in args), type(args[0]))
            return made("choice", args)
    for kind, python in (("bool", bool), ("int", int), ("float", float), ("path", Path)):
        if python in plain:
            return made(kind)
    for member in plain:
        if typing.get_origin(member) is tuple:
            item = (typing.get_args(member) or (str,))[0]
            return made(
                "names", typing.get_args(item) if typing.get_origin(item) is typing.Literal else ()
            )
    if str in plain:
        return made("text")
    raise TypeError(f"option {name}: unsupported type {annotation!r}")


_FIELDS: dict[type, tuple[OptionField, ...]] = {}


def fields(cls: type[TaskOptions] | type[RunOptions]) -> tuple[OptionField, ...]:
    """The options of ``cls`` in declaration order (the base class's ``strict_input`` first)."""
    known = _FIELDS.get(cls)
    if known is None:
        hints = typing.get_type_hints(cls)
        known = tuple(
            _field(f.name, hints[f.name], f.default, f.metadata[_KEY])
            for f in dataclasses.fields(cls)
        )
        _FIELDS[cls] = known
    return known


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """The options every task takes; a task's options class adds its own fields.

    ``strict_input`` does not move a number: it turns every input the official reading
    tolerates (and warns of) into an error naming file and line.
    """

    strict_input: bool = option(
        False,
        "Refuse (exit 2) input the official script would skip, change or tolerate, instead of "
        "scoring it with a warning.",
        moves=False,
    )

    def __post_init__(self) -> None:
        """Every value checked and normalised as :func:`convert` reads it (an enum's value as
        text becomes the member, a number out of range is an :class:`InputError`), so an
        options object made directly is as safe as one read from the command line."""
        for spec in fields(type(self)):
            if spec.setting.fixed:
                continue
            value = getattr(self, spec.name)
            checked = convert(spec, value, spec.name)
            if checked is not value:
                object.__setattr__(self, spec.name, checked)

    def signature(self, task: str, *read: tuple[str, object]) -> Signature:
        """The settings of ``self`` that move a number, in declaration order (constants
        included; one ``omitted_at_default`` only when it is not at its default), then
        ``read``: settings read from the data (a MUC configuration's).

        >>> str(TaskOptions().signature("x", ("scoring-method", "key2key")))
        'annoscore:0.1.0|task:x|scoring-method:key2key'
        """
        items = [
            (f.key, getattr(self, f.name))
            for f in fields(type(self))
            if f.setting.moves
            and not (f.setting.omitted_at_default and getattr(self, f.name) == f.default)
        ]
        return Signature.of_items(task, [*items, *read])

    @classmethod
    def from_values(
        cls: type[O], values: Mapping[str, Any], *, task: str = "", cli: bool = False
    ) -> O:
        """The options of ``values`` (by Python name; with ``cli``, as ``--option`` names with
        ``-`` or ``_``), each read by :func:`convert` and the others left at their defaults;
        :class:`InputError` naming an unknown option or a value it does not take."""
        by_name = {f.name: f for f in fields(cls)}
        prefix = "--option " if cli else ""
        where = f" ({task})" if task else ""
        out: dict[str, Any] = {}
        for name, value in values.items():
            key = name.replace("-", "_") if cli else name
            found = by_name.get(key)
            if found is None or found.setting.fixed:
                spelled = [
                    f.key if cli else f.name for f in by_name.values() if not f.setting.fixed
                ]
                raise InputError(
                    f"{prefix}{name}: unknown option; this task{where} takes " + ", ".join(spelled)
                )
            out[key] = convert(found, value, prefix + (found.key if cli else found.name))
        missing = [
            f.key if cli else f.name
            for f in by_name.values()
            if f.setting.required and out.get(f.name, f.default) is None
        ]
        if missing:
            needed = " ".join(f"{prefix}{name}=VALUE" for name in missing)
            raise InputError(f"this task{where} needs {needed}")
        return cls(**out)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Where a run scores, for every task alike (:mod:`annoscore.scale`): they never move a
    number (the output is the same whatever they say), so no signature records them.

    >>> RunOptions(jobs="2")
    RunOptions(jobs=2, dask=None)
    """

    jobs: int = option(
        1,
        "Score chunks of the documents in N worker processes (0: every core); the output is the "
        "same as with 1.",
        flags=("--jobs", "-j"),
        moves=False,
        low=0,
        panel="Scale",
    )
    dask: str | None = option(
        None,
        "Score the chunks on the dask.distributed scheduler at ADDRESS ('local': a two-worker "
        "LocalCluster on this machine); needs the extra annoscore[dask].",
        moves=False,
        panel="Scale",
    )

    def __post_init__(self) -> None:
        for spec in fields(type(self)):
            checked = convert(spec, getattr(self, spec.name), spec.name)
            object.__setattr__(self, spec.name, checked)


def convert(spec: OptionField, value: Any, label: str) -> Any:
    """``value`` as the option takes it, from a Python value or from text as the command line
    gives it (``true``/``no``, ``3``, ``0.5``, a path, ``a,b`` for names, ``none``, an enum or
    ``Literal`` value in any case); :class:`InputError` naming ``label`` otherwise.

    >>> spec = _field("depth", int | None, 1000, Setting("", low=0))
    >>> convert(spec, "none", "depth"), convert(spec, "7", "depth")
    (None, 7)
    >>> convert(spec, "x", "--option depth")
    Traceback (most recent call last):
    ...
    annoscore.errors.InputError: --option depth: expected an integer, not 'x'
    """
    text = value.strip() if isinstance(value, str) else None
    if value is None or (text is not None and text.lower() == "none" and spec.nullable):
        if spec.nullable:
            return None
        raise InputError(f"{label}: a value is needed, not None")
    kind = spec.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if text is not None and text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise InputError(f"{label}: expected true or false, not {value!r}")
    if kind in ("int", "float"):
        return _number(spec, value, text, label)
    if kind == "path":
        if isinstance(value, str | PathLike) and str(value):
            return Path(value)
        raise InputError(f"{label}: expected a path, not {value!r}")
    if kind == "choice":
        if spec.enum is not None and isinstance(value, spec.enum):
            if str(value.value) in spec.choices:
                return value
            raise InputError(f"{label}: {value.value!r} is not one of {', '.join(spec.choices)}")
        if text is not None:
            for choice in spec.choices:
                if choice.lower() == text.lower():
                    return spec.enum(choice) if spec.enum is not None else choice
        raise InputError(f"{label}: {value!r} is not one of {', '.join(spec.choices)}")
    if kind == "names":
        if text is not None:
            names = tuple(part.strip() for part in text.split(",") if part.strip())
        elif isinstance(value, Sequence) and all(isinstance(part, str) for part in value):
            names = tuple(value)
        else:
            raise InputError(f"{label}: expected comma-separated names, not {value!r}")
        return _listed(spec, names, label) if spec.choices else names
    if not isinstance(value, str):
        raise InputError(f"{label}: expected text, not {value!r}")
    return value


def _listed(spec: OptionField, names: tuple[str, ...], label: str) -> tuple[str, ...]:
    """Names from a declared list (``tuple[Literal[...], ...]``), in any case, joined with
    ``,`` or ``+`` (``muc+bcub``), spelled as declared.

    >>> spec = _field("metrics", tuple[typing.Literal["muc", "bcub"], ...], (), Setting(""))
    >>> convert(spec, "MUC+bcub", "metrics"), convert(spec, ["bcub"], "metrics")
    (('muc', 'bcub'), ('bcub',))
    >>> convert(spec, "muc,x", "--option metrics")
    Traceback (most recent call last):
    ...
    annoscore.errors.InputError: --option metrics: 'x' is not one of muc, bcub
    """
    by_text = {choice.lower(): choice for choice in spec.choices}
    listed = [part.strip() for item in names for part in re.split("[,+]", item)]
    for name in listed:
        if name and name.lower() not in by_text:
            raise InputError(f"{label}: {name!r} is not one of {', '.join(spec.choices)}")
    return tuple(by_text[name.lower()] for name in listed if name)


def _number(spec: OptionField, value: Any, text: str | None, label: str) -> int | float:
    python: type[int] | type[float] = int if spec.kind == "int" else float
    number: int | float | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, numbers.Real) and spec.kind == "float":
        number = float(value)
    elif text is not None:
        try:
            number = python(text)
        except ValueError:
            number = None
    if number is None or (isinstance(number, float) and not math.isfinite(number)):
        what = "an integer" if spec.kind == "int" else "a number"
        raise InputError(f"{label}: expected {what}, not {value!r}")
    low, high = spec.setting.low, spec.setting.high
    if (low is not None and number < low) or (high is not None and number > high):
        span = (
            f"at most {high:g}"
            if low is None
            else f"at least {low:g}"
            if high is None
            else f"{low:g} to {high:g}"
        )
        raise InputError(f"{label}: expected {span}, not {number!r}")
    return python(number)


def _shown_flag(flag: str) -> str:
    """``--remove-singletons=removed`` (a switch setting a choice) as the command line reads it."""
    switch, _, value = flag.partition("=")
    return f"`{switch}` (= {value})" if value else f"`{flag}`"


def _shown_default(spec: OptionField) -> str:
    value = spec.default
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):  # none chosen: all, or none for an option that adds some
        return ",".join(value) or ("none" if spec.setting.omitted_at_default else "all")
    return "none" if value is None else str(value)


def markdown_table(cls: type[TaskOptions]) -> str:
    """The options of ``cls`` as a Markdown table (flags, values, default, whether the
    signature records it, what it does): what the README shows for each task.  The options
    every task shares (``--strict-input``) and the fixed settings are left out.

    >>> print(markdown_table(TaskOptions))
    | option | values | default | signature | what it does |
    |---|---|---|---|---|
    <BLANKLINE>
    """
    shared = {f.name for f in dataclasses.fields(TaskOptions)}
    rows = ["| option | values | default | signature | what it does |", "|---|---|---|---|---|"]
    for spec in fields(cls):
        if spec.name in shared or spec.setting.fixed:
            continue
        flags = ", ".join(_shown_flag(flag) for flag in (spec.setting.flags or (spec.flag,)))
        if spec.kind == "bool" and not spec.setting.flags and spec.default is True:
            flags += f", `--no-{spec.flag[2:]}`"
        if spec.setting.argument:
            flags = f"`{spec.name.upper()}` (argument)"
        values = {
            "bool": "switch",
            "int": "integer",
            "float": "number",
            "path": "path",
            "names": "names, comma-separated",
            "text": "text",
        }.get(spec.kind, " \\| ".join(spec.choices))
        low, high = spec.setting.low, spec.setting.high
        if spec.kind in ("int", "float") and (low, high) != (None, None):
            bounds = ("" if b is None else f"{b:g}" for b in (low, high))
            values += " ({}..{})".format(*bounds)
        if spec.nullable and spec.kind != "path" and spec.default is not None:
            values += " or none (Python, `--option`)"
        default = "required" if spec.setting.required else f"`{_shown_default(spec)}`"
        moves = "yes" if spec.setting.moves else "no"
        if spec.setting.moves and spec.setting.omitted_at_default:
            moves = "when set"
        text = " ".join(spec.setting.help.split()).replace("|", "\\|")
        rows.append(f"| {flags} | {values} | {default} | {moves} | {text} |")
    return "\n".join(rows) + "\n"
