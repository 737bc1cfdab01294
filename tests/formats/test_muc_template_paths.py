"""The MUC template reader's column path against its line reader, on generated files.

``parse_templates`` reads the common lines (headers, one-fill slot lines, blank lines) column by
column and hands every other object to the line reader; ``parse_templates_by_line`` reads every
line with the line reader.  They must give equal documents (every line number included) or the
same first error (message, file, line) on any file, with the rare syntax (``/`` alternatives and
optional slots, ``[minimum]`` strings, multi-line fills, comments, status slots) and errors
mixed in anywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.muc_template import parse_templates, parse_templates_by_line
from annoscore.model import TemplateDocument

blanks = st.sampled_from(["", " ", "  ", "\t", "    ", " \t"])
COMMON_FILLS = ['"a b"', '"Evergreen Inc."', "'q r'", "COMPANY", "<A-1-1>", "<ORG-2-x-3>", ">x"]
RARE_FILLS = [
    *("OPTIONAL", "OPT", "opt", "MAYBE", "<B-1>", "<A--1>", "<>", "<A-1-1", "<A-1-1 >", "x/y"),
    *('"a [b] c"', '"[b]"', '"a [b] [c]"', '"a ]b["', "a[b]", '""', "''", "'[b]'", "'a]'"),
    *("/COMPANY", "/", '/"a"', "Z\u00fcrich", '"open', "'x'y", "'open", "a\u00a0b", "\u00e9"),
    *('ab"', "x'", "w<", '"a"b', "<A-1-1>x", "'a''b'", '"\u00e9 \u00e8"'),
]
common_fills = st.sampled_from(COMMON_FILLS)
rare_fills = st.one_of(
    st.sampled_from(RARE_FILLS),
    st.text(alphabet="aZ .,'\"[]/<>-1\u00e9", max_size=6).map(lambda s: f'"{s}"'),
    st.text(alphabet='aZ .,"[]/<>-1\u00e9', max_size=6).map(lambda s: f"'{s}'"),
)
any_fills = st.sampled_from(COMMON_FILLS + RARE_FILLS) | rare_fills
names = st.sampled_from(["S", "T", "s", "ORG_NAME", "N.x-y", "t\u00e9"])
status_lines = st.sampled_from(
    ["  OBJ_STATUS: OPTIONAL", "  obj_status: OPT", "  OBJ_STATUS:", "  OBJ_STATUS: MAYBE"]
)


@st.composite
def fills(draw: st.DrawFn) -> str:
    return draw(rare_fills if draw(st.integers(0, 11)) == 0 else common_fills)


@st.composite
def header_lines(draw: st.DrawFn, document: str, number: int) -> str:
    if draw(st.integers(0, 29)) == 0:  # malformed, unusual, or an order error
        return draw(
            st.sampled_from(
                [
                    "<BAD> :=",
                    "<A-1-1>",
                    "<A-1-1> := x",
                    "\u00a0<A-9-9> :=",
                    "<A-1-1-1>:=",
                    "<P-1-1> :=",
                ]
            )
        )
    cls = draw(st.sampled_from(["A", "ORG", "P", "\u00c4"]))  # a non-ASCII one: line reader
    indent = draw(st.sampled_from(["", "", " ", "\t", "\u00a0"]))  # NBSP: the line reader's
    return f"{indent}<{cls}-{document}-{number}>{draw(blanks)}:={draw(blanks)}"


@st.composite
def slot_lines(draw: st.DrawFn, name: str) -> str:
    values = (
        draw(st.lists(fills(), max_size=2)) if draw(st.integers(0, 4)) == 0 else [draw(fills())]
    )
    gap = draw(st.sampled_from(["", " ", " ", "\t", "  "]))
    return f"{draw(blanks)}{name}:{gap}{' '.join(values)}{draw(blanks)}"


@st.composite
def other_lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 15))
    if kind < 10:  # a continuation line, perhaps an alternative
        alternative = "/" if kind >= 6 else ""
        return "     " + alternative + " ".join(draw(st.lists(fills(), min_size=1, max_size=2)))
    if kind < 15:
        return draw(st.sampled_from(["", "   ", "; a comment", "# another", "\t"]))
    return draw(st.sampled_from(["x y", "S x", "<A-1-1>"]))


@st.composite
def template_files(draw: st.DrawFn) -> tuple[str, bool]:
    """Mostly well-formed objects (unique ids, documents in runs, slots unique), anything else
    sprinkled;
    lines end in \\n, or \\r\\n, and now and then at another line break."""
    keys_syntax = draw(st.booleans())
    lines: list[str] = []
    documents = ["1", "93-1", "2"]
    document = 0
    for number in range(1, draw(st.integers(0, 6)) + 1):
        if draw(st.integers(0, 3)) == 0:  # the next document, or rarely back to the first
            document = 0 if draw(st.integers(0, 9)) == 0 else min(document + 1, 2)
        lines.append(draw(header_lines(documents[document], number)))
        slots = draw(st.lists(names, max_size=4, unique_by=str.lower))
        if draw(st.integers(0, 19)) == 0:
            slots.append(draw(names))  # perhaps a repeated slot
        for name in slots:
            lines.append(draw(slot_lines(name)))
            if draw(st.integers(0, 7)) == 0:  # a continuation line, a comment, a blank line
                lines.append(draw(other_lines()))
        if draw(st.integers(0, 5 if keys_syntax else 40)) == 0:
            lines.append(draw(status_lines))
    if lines and draw(st.integers(0, 19)) == 0:  # a stray line anywhere, even before a header
        lines.insert(draw(st.integers(0, len(lines))), draw(slot_lines("S") | other_lines()))
    breaks = [draw(st.sampled_from(["\n"] * 4 + ["\r\n"]))] * len(lines)
    if lines and draw(st.integers(0, 9)) == 0:
        breaks[draw(st.integers(0, len(lines) - 1))] = draw(
            st.sampled_from(["\r", "\r\r\n", "\x0b", "\u2028"])
        )
    text = "".join(line + end for line, end in zip(lines, breaks, strict=True))
    return (text[:-1] if text and draw(st.integers(0, 4)) == 0 else text), keys_syntax


def read(
    parse: object, text: str, keys_syntax: bool
) -> list[TemplateDocument] | tuple[str, str | None, int | None]:
    assert parse in (parse_templates, parse_templates_by_line)
    try:
        if parse is parse_templates:
            return parse_templates(text, Path("f.tpl"), keys_syntax=keys_syntax)
        return parse_templates_by_line(text, Path("f.tpl"), keys_syntax=keys_syntax)
    except InputError as error:
        return error.message, error.path, error.line


@settings(max_examples=250, deadline=None)
@given(file=template_files())
def test_column_path_equals_line_reader(file: tuple[str, bool]) -> None:
    text, keys_syntax = file
    assert read(parse_templates, text, keys_syntax) == read(
        parse_templates_by_line, text, keys_syntax
    )


@settings(max_examples=60, deadline=None)
@given(file=template_files())
def test_crlf_reads_as_lf(file: tuple[str, bool]) -> None:
    text, keys_syntax = file
    unix = text.replace("\r", "")
    assert read(parse_templates, unix.replace("\n", "\r\n"), keys_syntax) == read(
        parse_templates_by_line, unix, keys_syntax
    )


@settings(max_examples=200, deadline=None)
@given(
    objects=st.lists(
        st.lists(st.tuples(st.sampled_from(["", " ", "\t"]), any_fills), max_size=3),
        max_size=3,
    ),
    keys_syntax=st.booleans(),
)
def test_any_fill_on_a_slot_line(objects: list[list[tuple[str, str]]], keys_syntax: bool) -> None:
    """Well-formed objects whose slots hold one fill each, common or rare (the first error, if
    any, comes from a fill)."""
    lines: list[str] = []
    for number, values in enumerate(objects, start=1):
        lines.append(f"<A-1-{number}> :=")
        lines.extend(f"  S{slot}:{gap}{value}" for slot, (gap, value) in enumerate(values))
    text = "\n".join(lines)
    assert read(parse_templates, text, keys_syntax) == read(
        parse_templates_by_line, text, keys_syntax
    )


@pytest.mark.parametrize("fill", COMMON_FILLS + RARE_FILLS)
@pytest.mark.parametrize("keys_syntax", [True, False])
def test_every_listed_fill_alone_on_a_slot_line(fill: str, keys_syntax: bool) -> None:
    for gap in ("", " ", "\t"):
        text = f"<A-1-1> :=\n  S:{gap}{fill}\n  T: x\n"
        assert read(parse_templates, text, keys_syntax) == read(
            parse_templates_by_line, text, keys_syntax
        )


def test_common_objects_around_a_rare_one_keep_their_lines() -> None:
    """A file of common objects with one multi-line key slot in the middle: the rare object
    goes to the line reader, the others keep their columns and every line number."""
    text = (
        '<A-1-1> :=\n  S: x\n\n<A-1-2> :=\n  S: "a"\n     /"b"\n  OBJ_STATUS: OPT\n'
        "<A-2-1> :=\n  S: <A-1-1>\n  T:\n"
    )
    documents = parse_templates(text, Path("f.tpl"), keys_syntax=True)
    assert documents == parse_templates_by_line(text, Path("f.tpl"), keys_syntax=True)
    first, second = documents
    assert [(o.id, o.line, o.optional) for o in first.objects] == [
        ("A-1-1", 1, False),
        ("A-1-2", 4, True),
    ]
    rare = first.objects[1].slots[0]
    assert [[f.text for f in a] for a in rare.alternatives] == [["a"], ["b"]]
    pointer_slot, empty_slot = second.objects[0].slots
    assert pointer_slot.fills[0].is_pointer and pointer_slot.fills[0].line == 9
    assert empty_slot.alternatives == ((),) and empty_slot.line == 10


@pytest.mark.parametrize("uncommon_every", [0, 3, 40])
def test_long_files_read_the_same_on_either_path(uncommon_every: int) -> None:
    """A text longer than the sample goes to the column path or (many objects with uncommon
    lines) to the line reader alone; the result is the line reader's either way."""
    lines: list[str] = []
    for number in range(1, 3001):
        lines += [f"<ORG-{number // 20}-{number}> :=", '    ORG_NAME: "Acme Corp."']
        lines += ["    ORG_TYPE: COMPANY", f"    LEADER: <PER-{number // 20}-1>"]
        if uncommon_every and number % uncommon_every == 0:
            lines += [
                '    ORG_ALIAS: "Acme"',
                '               "Acme Widget"',
                "    ORG_LOCALE: A B",
            ]
    text = "\n".join(lines) + "\n"
    documents = parse_templates(text, Path("f.tpl"), keys_syntax=False)
    assert documents == parse_templates_by_line(text, Path("f.tpl"), keys_syntax=False)
    assert sum(len(d.objects) for d in documents) == 3000
    assert documents[-1].objects[-1].slots[-1].fills[0].line == len(lines)


def test_a_lone_carriage_return_before_crlf_is_two_line_breaks() -> None:
    text = "<A-1-1> :=\r\r\n  S: x\r\n  T: <B-1>\r\n"
    with pytest.raises(InputError) as caught:
        parse_templates(text, Path("f.tpl"), keys_syntax=True)
    assert caught.value.line == 4
    assert read(parse_templates, text, True) == read(parse_templates_by_line, text, True)


def test_an_uncommon_first_header_keeps_its_slots() -> None:
    """The first header is the line reader's (a non-ASCII id): its slots are not counted as
    the next object's (the corpus's Arabic-digit document number)."""
    text = (
        '<T-\u0669\u0669-1> :=\n  A: x\n  B: y\n<P-1-1> :=\n  N: "Jane"\n<P-1-2> :=\n'
        '  N: "John"\n  T: <P-1-1>\n'
    )
    documents = parse_templates(text, Path("f.tpl"), keys_syntax=True)
    assert documents == parse_templates_by_line(text, Path("f.tpl"), keys_syntax=True)
    assert [[s.name for s in o.slots] for d in documents for o in d.objects] == [
        ["A", "B"],
        ["N"],
        ["N", "T"],
    ]
