"""A signature string records every setting that moves a number.

Two results with the same signature were computed the same way; a result quoted with its signature
can be reproduced.  Format: ``annoscore:VERSION|task:NAME|key:value|...`` with keys in the order the
task declares them, e.g. ``annoscore:0.1.0|task:pharmaconer-ner|codalab:no|missing-docs:ignore``.
Booleans print as ``yes``/``no``; ``None`` prints as ``none``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from annoscore.records import Record, set_fields
from annoscore.version import __version__


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "none"
    return str(value)


class Signature(Record):
    """The task name and its settings, in declaration order."""

    __slots__ = ("task", "settings")  # noqa: RUF023 (the fields' order)
    task: str
    settings: tuple[tuple[str, str], ...]

    def __init__(self, task: str, settings: tuple[tuple[str, str], ...] = ()) -> None:
        set_fields(self, task=task, settings=settings)

    @classmethod
    def of(cls, task: str, **settings: object) -> Signature:
        """Build a signature; keyword names use ``_`` and print with ``-``."""
        return cls(task, tuple((k.replace("_", "-"), _text(v)) for k, v in settings.items()))

    @classmethod
    def of_items(cls, task: str, items: Iterable[tuple[str, object]]) -> Signature:
        """Build a signature from ``(key, value)`` pairs (keys as printed, ``missing-docs``)."""
        return cls(task, tuple((k, _text(v)) for k, v in items))

    def __str__(self) -> str:
        parts = [f"annoscore:{__version__}", f"task:{self.task}"]
        parts.extend(f"{k}:{v}" for k, v in self.settings)
        return "|".join(parts)
