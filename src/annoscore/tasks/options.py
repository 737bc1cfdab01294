"""A task's options, read and checked by its score function's annotations.

:func:`annoscore.score` and ``annoscore compare --option`` take a task's keyword options by the
names of its score function (:mod:`annoscore.tasks.registry`), as Python values or as the
command line's text (``true``/``no``, ``3``, ``0.5``, a path, ``a,b`` for a list, ``none``, an
enum or ``Literal`` value in any case).  Both read them here, one way: :func:`option_specs` tells
from each parameter's annotation and default what it takes, :func:`convert_option` reads one
value, :func:`check_options` all of them (every name known, every required option given).  A
value the option does not take is an :class:`InputError` naming the option, never a Python
error from deep in the scorer.
"""

from __future__ import annotations

import inspect
import math
import numbers
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.tasks.registry import Task


_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})

BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "depth": (0, None),
    "max_docs": (1, None),
    "tolerance": (0, None),
    "min_overlap": (0.0, 1.0),
    "relax_margin": (0, None),
}
"""The range of a numeric option, by name, in every task that has it: the range its
sub-command's flag takes (``--depth``, ``--tolerance``, ``--min-overlap``, ``--relax-margin``;
a test holds them equal), which :func:`annoscore.score` and ``annoscore compare --option`` check
too."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """What one keyword option of a task's score function takes, read from its annotation (and
    its default): ``kind`` is ``bool``, ``int``, ``float``, ``path``, ``choice`` (an enum or a
    ``Literal``: ``choices``), ``names`` (a sequence of names), ``text`` or ``any``;
    ``nullable`` when ``None`` is one of its values."""

    name: str
    kind: str
    default: Any = inspect.Parameter.empty
    choices: tuple[str, ...] = ()
    enum: type[Enum] | None = None
    nullable: bool = False
    low: float | None = None
    high: float | None = None

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


def _annotation(function: Callable[..., Any], parameter: inspect.Parameter) -> Any:
    """The parameter's annotation as an object (a string one is evaluated in the function's
    module); ``None`` when it cannot be."""
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        module = sys.modules.get(function.__module__)
        try:
            return eval(annotation, dict(vars(module)) if module else {})
        except Exception:  # a name only imported for type checking
            return None
    return annotation


def _spec(name: str, annotation: Any, default: Any) -> OptionSpec:
    members: tuple[Any, ...] = (annotation,)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = typing.get_args(annotation)
    nullable = type(None) in members or default is None
    members = tuple(m for m in members if m is not type(None) and m is not None)
    enum = next((m for m in members if isinstance(m, type) and issubclass(m, Enum)), None)
    if enum is None and isinstance(default, Enum):
        enum = type(default)
    if enum is not None:
        choices = tuple(str(member.value) for member in enum)
        return OptionSpec(name, "choice", default, choices, enum, nullable)
    for member in members:
        if typing.get_origin(member) is typing.Literal:
            choices = tuple(str(c) for c in typing.get_args(member))
            return OptionSpec(name, "choice", default, choices, None, nullable)
    simple = [m for m in members if isinstance(m, type)]
    for kind, python in (("bool", bool), ("int", int), ("float", float), ("path", Path)):
        if python in simple or (not members and type(default) is python):
            return OptionSpec(name, kind, default, nullable=nullable)
    for member in members:
        origin = typing.get_origin(member) or member
        if isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str:
            return OptionSpec(name, "names", default, nullable=nullable)
    if not members and isinstance(default, tuple | list):
        return OptionSpec(name, "names", default, nullable=nullable)
    if str in simple or (not members and isinstance(default, str)):
        return OptionSpec(name, "text", default, nullable=nullable)
    return OptionSpec(name, "any", default, nullable=nullable)


def option_specs(task: Task) -> dict[str, OptionSpec]:
    """Every keyword option of ``task``'s score function, by name, in signature order."""
    function = task.score_function()
    specs = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            spec = _spec(name, _annotation(function, parameter), parameter.default)
            if spec.kind in ("int", "float") and name in BOUNDS:
                low, high = BOUNDS[name]
                spec = replace(spec, low=low, high=high)
            specs[name] = spec
    return specs


def convert_option(spec: OptionSpec, value: Any, label: str) -> Any:
    """``value`` as the option takes it, from a Python value or from text as the command line
    gives it (``true``/``no``, ``3``, ``0.5``, a path, ``a,b`` for names, ``none``, an enum or
    ``Literal`` value in any case); :class:`InputError` naming ``label`` (the option as the
    caller spells it) when it is not one of the option's values.

    >>> convert_option(OptionSpec("depth", "int", 1000, nullable=True), "none", "depth")
    >>> convert_option(OptionSpec("depth", "int", 1000), "x", "--option depth")
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
        python: type[int] | type[float] = int if kind == "int" else float
        number: int | float | None = None
        if isinstance(value, bool):
            number = None
        elif isinstance(value, numbers.Integral):
            number = int(value)
        elif isinstance(value, numbers.Real) and kind == "float":
            number = float(value)
        elif text is not None:
            try:
                number = python(text)
            except ValueError:
                number = None
        if number is None or (isinstance(number, float) and not math.isfinite(number)):
            what = "an integer" if kind == "int" else "a number"
            raise InputError(f"{label}: expected {what}, not {value!r}")
        low, high = spec.low, spec.high
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
    if kind == "path":
        if isinstance(value, str | PathLike) and str(value):
            return Path(value)
        raise InputError(f"{label}: expected a path, not {value!r}")
    if kind == "choice":
        if spec.enum is not None and isinstance(value, spec.enum):
            return value
        if text is not None:
            for choice in spec.choices:
                if choice.lower() == text.lower():
                    return spec.enum(choice) if spec.enum is not None else choice
        raise InputError(f"{label}: {value!r} is not one of {', '.join(spec.choices)}")
    if kind == "names":
        if text is not None:
            return tuple(part.strip() for part in text.split(",") if part.strip())
        if isinstance(value, Sequence) and all(isinstance(part, str) for part in value):
            return tuple(value)
        raise InputError(f"{label}: expected comma-separated names, not {value!r}")
    if kind == "text" and not isinstance(value, str):
        raise InputError(f"{label}: expected text, not {value!r}")
    return value


def check_options(task: Task, options: Mapping[str, Any], *, cli: bool = False) -> dict[str, Any]:
    """``options`` (by score-function name) converted by :func:`convert_option`, every name
    known and every required option given, else :class:`InputError` naming the option: as
    ``--option missing-docs`` with ``cli`` (``annoscore compare``), as ``missing_docs``
    otherwise (:func:`annoscore.score`)."""
    specs = option_specs(task)

    def spelled(name: str) -> str:
        return name.replace("_", "-") if cli else name

    prefix = "--option " if cli else ""
    out: dict[str, Any] = {}
    for name, value in options.items():
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(spelled(k) for k in specs) or "none"
            raise InputError(
                f"{prefix}{spelled(name)}: unknown option; this task ({task.name}) takes {known}"
            )
        out[name] = convert_option(spec, value, prefix + spelled(name))
    missing = [name for name, spec in specs.items() if spec.required and name not in out]
    if missing:
        needed = " ".join(f"{prefix}{spelled(name)}=VALUE" for name in missing)
        raise InputError(f"this task ({task.name}) needs {needed}")
    return out
