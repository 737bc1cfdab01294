"""Tcl words of a map history node (the manual's nested attribute/value list), written the plain
way, for the tests that hold ``annoscore.report.muc_history.map_history_tcl`` to
``map_history``: mappings as ``{-name value ...}``, lists as ``{item ...}``, a ``None`` value as a
flag attribute, a whole number as its digits, any other value as one Tcl word."""

from __future__ import annotations

import re
from typing import Any

_SPECIAL = re.compile(r"([\s{}\[\]$\"\\;])")


def tcl_word(text: str) -> str:
    """``text`` as it is when it is non-empty and holds no whitespace or special character;
    else in braces when its braces balance and it does not end in a backslash; else each
    special character escaped with a backslash."""
    if text and not _SPECIAL.search(text):
        return text
    depth, balanced = 0, True
    for char in text:
        depth += (char == "{") - (char == "}")
        balanced = balanced and depth >= 0
    if balanced and depth == 0 and not text.endswith("\\"):
        return "{" + text + "}"
    return _SPECIAL.sub(r"\\\1", text)


def to_tcl(value: Any) -> str:
    """The Tcl words of a map history node."""
    if isinstance(value, dict):
        items = ("-" + name + ("" if v is None else " " + to_tcl(v)) for name, v in value.items())
        return "{" + " ".join(items) + "}"
    if isinstance(value, list):
        return "{" + " ".join(to_tcl(v) for v in value) + "}"
    if isinstance(value, int):
        return str(value)
    return tcl_word(str(value))
