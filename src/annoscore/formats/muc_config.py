"""The MUC scorer's main configuration file (the seed manual, "Main Configuration File Format").

Format: an option is a line starting with ``:`` and its name (``:scoring_task``); its values follow
on the same line and on the next lines until the next option, separated by blanks; a value with
blanks is quoted with ``"`` or ``'``.  Blank lines and lines starting with ``;`` or ``#`` are
ignored.  Option names match case-insensitively.  Example::

    :scoring_task template_element
    :class_defs
        "organization   organization  scored  0"
        "person         person        scored  0"
    :slot_defs
        "organization  org_name  name  scored  100  string"
    :key_file keys.tpl

Decisions (../shared/spec/muc.md, decision 1 and 14): an unknown option, a missing value, a
malformed ``:class_defs``/``:slot_defs`` entry, a negative map weight or a bad choice is an
:class:`InputError` naming the line; an option given twice keeps the later value with a warning;
relative file names resolve against ``:muc_base_directory`` when given, else against the
configuration file's folder.  Lines and NUL bytes follow :mod:`annoscore.formats.files`.
Defaults are the manual's; the manual gives no default for ``:optional_status_slot``, annoscore
uses ``OBJ_STATUS`` (the slot of the manual's key example).  For ``named_entity`` and
``coreference`` a configuration without ``:class_defs`` and ``:slot_defs`` gets
:data:`DEFAULT_DEFS` (the manual's NE example); ``:ne_subtask_names`` defaults to
:data:`NE_SUBTASK_NAMES`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from annoscore.errors import InputError
from annoscore.formats.files import (
    check_no_nul,
    given,
    once,
    read_text,
    reading_once,
    split_lines,
    url_of,
)

_T = TypeVar("_T")

TASKS = (
    "template_element",
    "template_relation",
    "scenario_template",
    "named_entity",
    "coreference",
)
"""The manual's ``:scoring_task`` values (``-`` is accepted for ``_``)."""

COMPARISONS = ("ORIG", "STRAIGHTENED", "CLEAN")
"""``:stringfill_correct_comparison`` values; the partial one also accepts ``NONE``."""

_SINGLE = {
    "content_name": "content",
    "dump_map_history": "no",
    "key_file": "keys",
    "map_history_file": "map_history",
    "muc_base_directory": "",
    "optional_status_slot": "OBJ_STATUS",
    "partition_file": "partitions",
    "report_field_separator": "|",
    "report_summary_file": "report_summary",
    "response_file": "responses",
    "score_report_file": "scores",
    "scoring_method": "key2response",
    "scoring_task": "",
    "sgml_alt_slot": "ALT",
    "sgml_docnum_gid": "DOCNO",
    "sgml_doc_gid": "DOC",
    "sgml_id_slot": "ID",
    "sgml_min_slot": "MIN",
    "sgml_ref_slot": "REF",
    "sgml_text_slot": "TEXT",
    "sgml_type_slot": "TYPE",
    "sgml_alternative_separator": "|",
    "sgml_attribute_quote_char": "*",
    "stringfill_correct_comparison": "CLEAN",
    "stringfill_partial_comparison": "NONE",
    "template_name": "TEMPLATE",
    "text_file": "texts",
    "use_ie_report_summary": "no",
}
"""Options taking one value, with the manual's defaults."""

_LISTS = (
    "class_defs",
    "slot_defs",
    "premodifiers",
    "postmodifiers",
    "corporate_designators",
    "equatable_objects",
    "doc_sections",
    "doc_section_groups",
    "ne_subtask_names",
)
"""Options taking a list of values (an empty list is allowed for all but the first two)."""

NE_SUBTASK_NAMES = (
    "enamex type organization",
    "enamex type person",
    "enamex type location",
    "enamex type other",
    "timex type date",
    "timex type time",
    "timex type other",
    "numex type money",
    "numex type percent",
    "numex type other",
)
"""Default ``:ne_subtask_names`` ("object type, slot, fill value"): the rows of the manual's
named entity score report (its option list lost the values; the report shows them)."""

DEFAULT_DEFS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "named_entity": (
        ("enamex enamex scored 0", "timex timex scored 0", "numex numex scored 0"),
        tuple(
            f"{cls} {slot} {slot} {scored} 4 {kind}"
            for cls in ("enamex", "timex", "numex")
            for slot, scored, kind in (
                ("type", "scored", "set"),
                ("text", "scored", "string"),
                ("status", "unscored", "set"),
                ("alt", "unscored", "string"),
            )
        ),
    ),
    "coreference": (("coref coref scored 0",), ("coref text text scored 4 string",)),
}
"""``:class_defs`` and ``:slot_defs`` used when an SGML task's configuration gives neither: the
manual's named entity example (slots in the order of its score report) and one COREF class."""


def _exactly(written: Fraction | None, value: float) -> Fraction:
    """The decimal as written, or the float's own value when none was written."""
    return written if written is not None else Fraction(value)


@dataclass(frozen=True, slots=True)
class ClassDef:
    """One ``:class_defs`` entry: ``"name  report-name  scored|unscored  map-threshold"``.

    ``exact_threshold`` is the threshold as written (a decimal read exactly; the float's own
    value when none is given), which decides a weighted score that lies at the threshold.
    """

    name: str
    report_name: str
    scored: bool
    threshold: float
    line: int = 0
    exact_threshold: Fraction | None = None

    @property
    def threshold_value(self) -> Fraction:
        """The threshold, exactly."""
        return _exactly(self.exact_threshold, self.threshold)


@dataclass(frozen=True, slots=True)
class SlotDef:
    """One ``:slot_defs`` entry: ``"class  slot  report-name  scored|unscored  weight  type"``.

    ``kind`` is ``set``, ``string`` or ``pointer`` (the manual: anything but set/string is a
    pointer slot).  ``exact_weight`` is the weight as written (a decimal read exactly; the
    float's own value when none is given).
    """

    class_name: str
    name: str
    report_name: str
    scored: bool
    weight: float
    kind: str
    line: int = 0
    exact_weight: Fraction | None = None

    @property
    def weight_value(self) -> Fraction:
        """The map weight, exactly."""
        return _exactly(self.exact_weight, self.weight)


@dataclass(frozen=True, slots=True)
class MucConfig:
    """A parsed configuration; names of classes and slots are kept as written."""

    path: Path
    scoring_task: str
    class_defs: tuple[ClassDef, ...]
    slot_defs: tuple[SlotDef, ...]
    values: dict[str, str] = field(default_factory=dict)
    lists: dict[str, tuple[str, ...]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = ()

    def value(self, option: str) -> str:
        """A single-valued option (its default when not given)."""
        return self.values.get(option, _SINGLE[option])

    def items(self, option: str) -> tuple[str, ...]:
        """A list-valued option (empty when not given)."""
        return self.lists.get(option, ())

    def flag(self, option: str) -> bool:
        """The manual's yes/no options: "no" (any case) is off, anything else on."""
        return self.value(option).lower() != "no"

    @property
    def scoring_method(self) -> str:
        return self.value("scoring_method").lower()

    @property
    def key2key(self) -> bool:
        return self.scoring_method == "key2key"

    def file(self, option: str) -> Path:
        """A file option resolved against ``:muc_base_directory`` or the configuration's folder;
        of a configuration read from a URL, a relative name is resolved against the URL (the
        stand-in of that URL, not yet read: :func:`~annoscore.formats.files.given`)."""
        name = Path(self.value(option))
        if name.is_absolute():
            return name
        base = self.value("muc_base_directory")
        url = url_of(self.path)
        if url is not None and not (base and Path(base).is_absolute()):
            relative = "/".join(part for part in (base.strip("/"), str(name)) if part)
            return given(url.rpartition("/")[0] + "/" + relative)
        folder = self.path.parent
        if base:
            base_path = Path(base)
            folder = base_path if base_path.is_absolute() else folder / base_path
        return folder / name

    def slots_of(self, class_name: str) -> tuple[SlotDef, ...]:
        wanted = class_name.lower()
        return tuple(s for s in self.slot_defs if s.class_name.lower() == wanted)

    def slot_names(self) -> dict[str, set[str]]:
        """Each class's slot names, lower-case, by lower-case class name."""
        return {
            c.name.lower(): {s.name.lower() for s in self.slots_of(c.name)} for c in self.class_defs
        }


_VALUE = re.compile(r"\"([^\"]*)\"|'([^']*)'|([\"'])|\S+")
"""A value: quoted (group 1 or 2, its quotes dropped), an unclosed quote (group 3), or a run
of non-blanks."""


def _tokenize(text: str, path: Path, line: int) -> list[str]:
    """Blank-separated values; quoted ones keep their blanks; an unclosed quote is an error."""
    values: list[str] = []
    for match in _VALUE.finditer(text):
        double, single, unclosed = match.groups()
        if unclosed is not None:
            raise InputError(f"unclosed {unclosed} quote; close it on the same line", path, line)
        values.append(double if double is not None else single if single is not None else match[0])
    return values


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number as the configuration writes it: ASCII digits, an optional point and exponent."""


def _number(token: str, what: str, path: Path, line: int) -> tuple[float, Fraction]:
    """A finite decimal number, as a float and exactly (``nan``, ``inf``, ``1_0`` and non-ASCII
    digits, which ``float()`` accepts, are refused)."""
    if _DECIMAL.fullmatch(token) is None or len(token) > 100:
        raise InputError(f"{what} must be a decimal number, got {token[:40]!r}", path, line)
    value = float(token)
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {token[:40]!r}", path, line)
    return value, Fraction(token)


def _scored(token: str, path: Path, line: int) -> bool:
    lowered = token.lower()
    if lowered not in ("scored", "unscored"):
        raise InputError(f"expected 'scored' or 'unscored', got {token!r}", path, line)
    return lowered == "scored"


def _class_def(value: str, path: Path, line: int) -> ClassDef:
    tokens = value.split()
    if len(tokens) != 4:
        raise InputError(
            f"a :class_defs entry has 4 tokens (name, report name, scored|unscored, map "
            f"threshold), got {len(tokens)} in {value!r}",
            path,
            line,
        )
    name, report, scored, threshold = tokens
    number, exact = _number(threshold, "the map threshold", path, line)
    return ClassDef(name, report, _scored(scored, path, line), number, line, exact)


def _slot_def(value: str, path: Path, line: int) -> SlotDef:
    tokens = value.split()
    if len(tokens) != 6:
        raise InputError(
            f"a :slot_defs entry has 6 tokens (class, slot, report name, scored|unscored, map "
            f"weight, set|string|pointer), got {len(tokens)} in {value!r}",
            path,
            line,
        )
    class_name, name, report, scored, weight, kind = tokens
    kind = kind.lower()
    if kind not in ("set", "string"):
        kind = "pointer"
    map_weight, exact = _number(weight, "the map weight", path, line)
    if exact < 0:
        raise InputError(
            f"the map weight of slot {name!r} is negative ({weight}): a weight is 0 or more "
            "(a negative one would make agreeing in that slot count against aligning)",
            path,
            line,
        )
    scored_slot = _scored(scored, path, line)
    return SlotDef(class_name, name, report, scored_slot, map_weight, kind, line, exact)


def parse_muc_config(text: str, path: Path) -> MucConfig:
    """Parse the text of a configuration file (see the module docstring)."""
    check_no_nul(text, path)
    entries: list[tuple[str, int, list[tuple[str, int]]]] = []
    for number, raw in enumerate(split_lines(text), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in ";#":
            continue
        if raw.startswith(":"):
            head = raw[1:].split(maxsplit=1)
            name = head[0].lower() if head and not raw[1].isspace() else ""
            rest = head[1] if len(head) > 1 else ""
            if not name:
                raise InputError("an option name must follow ':' immediately", path, number)
            tokens = [(v, number) for v in _tokenize(rest, path, number)]
            entries.append((name, number, tokens))
        elif not entries or not raw[:1].isspace():
            raise InputError(
                f"expected an option line starting with ':' (or an indented value line), "
                f"got {stripped[:40]!r}",
                path,
                number,
            )
        else:
            entries[-1][2].extend((v, number) for v in _tokenize(raw, path, number))

    values: dict[str, str] = {}
    lists: dict[str, list[tuple[str, int]]] = {}
    given: set[str] = set()
    warnings: list[str] = []
    for name, number, items in entries:
        if name in _SINGLE:
            if len(items) != 1:
                raise InputError(
                    f":{name} takes exactly one value, got {len(items)}"
                    + (" (quote a value that contains blanks)" if items else ""),
                    path,
                    number,
                )
            if name in values:
                warnings.append(f"{path}:{number}: :{name} given again; the later value is used")
            values[name] = items[0][0]
        elif name in _LISTS:
            lists.setdefault(name, []).extend(items)
        else:
            known = ", ".join(sorted([*_SINGLE, *_LISTS]))
            raise InputError(f"unknown option :{name} (known options: {known})", path, number)
        given.add(name)

    task = values.get("scoring_task", "").lower().replace("-", "_")
    if not task:
        raise InputError(":scoring_task is required (one of " + ", ".join(TASKS) + ")", path)
    if task not in TASKS:
        raise InputError(
            f":scoring_task {task!r} is not one of {', '.join(TASKS)}",
            path,
            next(n for name, n, _ in entries if name == "scoring_task"),
        )
    values["scoring_task"] = task
    _check_choice(values, entries, "scoring_method", ("key2response", "key2key"), path)
    _check_choice(values, entries, "stringfill_correct_comparison", COMPARISONS, path)
    _check_choice(values, entries, "stringfill_partial_comparison", (*COMPARISONS, "NONE"), path)

    if task in DEFAULT_DEFS and not lists.get("class_defs") and not lists.get("slot_defs"):
        classes, slots = DEFAULT_DEFS[task]
        lists["class_defs"] = [(v, 0) for v in classes]
        lists["slot_defs"] = [(v, 0) for v in slots]
    if "class_defs" not in lists or not lists["class_defs"]:
        raise InputError(':class_defs is required (one "name report scored threshold" each)', path)
    class_defs = tuple(_class_def(v, path, n) for v, n in lists["class_defs"])
    if "slot_defs" not in lists or not lists["slot_defs"]:
        raise InputError(":slot_defs is required (one entry of 6 tokens per slot)", path)
    seen: dict[str, int] = {}
    for cdef in class_defs:
        if cdef.name.lower() in seen:
            raise InputError(
                f"class {cdef.name!r} is defined twice (first on line {seen[cdef.name.lower()]})",
                path,
                cdef.line,
            )
        seen[cdef.name.lower()] = cdef.line
    slot_defs = tuple(_slot_def(v, path, n) for v, n in lists["slot_defs"])
    seen_slots: set[tuple[str, str]] = set()
    for sdef in slot_defs:
        if sdef.class_name.lower() not in seen:
            raise InputError(
                f"slot {sdef.name!r} belongs to class {sdef.class_name!r}, which :class_defs "
                "does not define",
                path,
                sdef.line,
            )
        pair = (sdef.class_name.lower(), sdef.name.lower())
        if pair in seen_slots:
            raise InputError(
                f"slot {sdef.name!r} of {sdef.class_name!r} is defined twice", path, sdef.line
            )
        seen_slots.add(pair)
    return MucConfig(
        path=path,
        scoring_task=task,
        class_defs=class_defs,
        slot_defs=slot_defs,
        values=values,
        lists={k: tuple(v for v, _ in items) for k, items in lists.items()},
        given=frozenset(given),
        warnings=tuple(warnings),
    )


def _check_choice(
    values: dict[str, str],
    entries: list[tuple[str, int, list[tuple[str, int]]]],
    option: str,
    choices: tuple[str, ...],
    path: Path,
) -> None:
    if option not in values:
        return
    value = values[option]
    matched = next((c for c in choices if c.lower() == value.lower()), None)
    if matched is None:
        line = next(n for name, n, _ in reversed(entries) if name == option)
        raise InputError(f":{option} {value!r} is not one of {', '.join(choices)}", path, line)
    values[option] = matched


def read_muc_config(path: Path) -> MucConfig:
    """Read and parse a configuration file."""
    return parse_muc_config(read_text(path), path)


def once_per_run(key: tuple[object, ...], make: Callable[[], _T]) -> _T:
    """:func:`~annoscore.formats.files.once` (``make()``, or the value made before in the chunks
    of one cut run: :func:`~annoscore.formats.files.read_once`); inside a cut run the value is
    also held here past the run (:data:`HELD_PAST_RUN`), until a later cut run's value for
    ``key`` replaces it.

    A MUC cut run (``annoscore muc --jobs N``: only the command line cuts a MUC input,
    :func:`annoscore.tasks.muc_chunks.muc_cut`) keeps large caches in each process (the
    named entity slots, the aligner's codes and records, the reports' lines: ~10^5 objects).
    Freed at the run's end, the command's process freed them after the last chunk came back,
    alone, while the workers had nothing left to do (named entity, 1,000 documents: 0.04-0.05
    s of its CPU); held, they are never freed, the command ending without its interpreter's
    shutdown (:func:`annoscore.cli.main`), and a worker's are its own.

    >>> from annoscore.formats.files import read_once
    >>> with read_once():
    ...     made = once_per_run(("doctest",), list)
    ...     made is once_per_run(("doctest",), list)
    True
    >>> HELD_PAST_RUN.pop(("doctest",)) is made
    True
    >>> once_per_run(("doctest",), list) is once_per_run(("doctest",), list)
    False
    >>> ("doctest",) in HELD_PAST_RUN
    False
    """
    value = once(key, make)
    if reading_once():
        HELD_PAST_RUN[key] = value
    return value


HELD_PAST_RUN: dict[tuple[object, ...], Any] = {}
"""The values :func:`once_per_run` made in the last cut run, by key."""


KEPT_PER_PROCESS = 4
"""At most this many configurations' objects of one kind are kept by a process through a
run (:func:`kept_per_process`; a run has one configuration)."""


def kept_per_process(kind: str, config: MucConfig, make: Callable[[], _T]) -> _T:
    """``make()``; in the chunks of one cut run (inside
    :func:`~annoscore.formats.files.read_once`), the object of ``kind`` made before in this
    process for an equal configuration, kept through the run: a worker's chunks share it.

    For what remembers work by content (the named entity reader's shared slots, an aligner's
    codes and records, a report writer's lines): each is valid for any document of its
    configuration, and one run (one job) keeps it for all of them, so a worker that keeps it
    through its chunks does what one run does for some of the documents, instead of the work
    of every chunk again (named entity, two jobs: 20% of the calls of the alignment and the
    reports).  The configuration is compared whole (``==``, never a hash); at most
    :data:`KEPT_PER_PROCESS` are kept a kind, and nothing outside a run.

    >>> config = parse_muc_config(":scoring_task named_entity\\n", Path("ne.config"))
    >>> kept_per_process("list", config, list) is kept_per_process("list", config, list)
    False
    >>> from annoscore.formats.files import read_once
    >>> with read_once():
    ...     kept_per_process("list", config, list) is kept_per_process("list", config, list)
    True
    """
    made: list[tuple[MucConfig, Any]] = once_per_run(("annoscore.muc.kept", kind), list)
    for known, value in made:
        if known == config:
            return value  # type: ignore[no-any-return]
    value = make()
    if len(made) < KEPT_PER_PROCESS:
        made.append((config, value))
    return value
