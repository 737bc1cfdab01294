"""The MUC configuration reader: the manual's option format, defaults and errors naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.muc_config import parse_muc_config, read_muc_config
from annoscore.samples import sample_path

BASE = """:scoring_task template_element
:class_defs
\t  "enamex\tenamex\tscored\t0"
       "timex timex scored 0"
:slot_defs
\t  "enamex\ttext\ttext\tscored\t\t4\tstring"
\t  "enamex\ttype\ttype\tscored\t\t4\tset"

\t  "timex\tstatus\tstatus\tunscored\t4\tset"
\t  "timex\talt\talt\tunscored\t4\tanything"
"""


def parse(text: str) -> object:
    return parse_muc_config(text, Path("/cfg/te.config"))


def test_manual_class_and_slot_defs_with_tabs_blank_lines_and_continuation() -> None:
    config = parse_muc_config(BASE, Path("/cfg/te.config"))
    assert [c.name for c in config.class_defs] == ["enamex", "timex"]
    assert config.class_defs[0].scored and config.class_defs[0].threshold == 0
    slots = config.slot_defs
    assert [(s.class_name, s.name, s.kind, s.scored, s.weight) for s in slots] == [
        ("enamex", "text", "string", True, 4.0),
        ("enamex", "type", "set", True, 4.0),
        ("timex", "status", "set", False, 4.0),
        ("timex", "alt", "pointer", False, 4.0),  # the manual: not set/string -> pointer
    ]
    assert slots[0].line == 6


def test_defaults_are_the_manuals() -> None:
    config = parse_muc_config(BASE, Path("/cfg/te.config"))
    assert config.value("stringfill_correct_comparison") == "CLEAN"
    assert config.value("stringfill_partial_comparison") == "NONE"
    assert config.scoring_method == "key2response"
    assert config.value("template_name") == "TEMPLATE"
    assert config.value("content_name") == "content"
    assert config.value("report_field_separator") == "|"
    assert not config.flag("dump_map_history")
    assert config.file("key_file") == Path("/cfg/keys")
    assert config.items("premodifiers") == ()


def test_lists_quotes_and_base_directory() -> None:
    text = BASE + (
        ':premodifiers a an "the"\n:corporate_designators "S A DE C V" corp\n'
        ":muc_base_directory data\n:key_file k.tpl\n:response_file /abs/r.tpl\n"
        ":dump_map_history yes\n:SCORING_METHOD key2key\n"
    )
    config = parse_muc_config(text, Path("/cfg/te.config"))
    assert config.items("premodifiers") == ("a", "an", "the")
    assert config.items("corporate_designators") == ("S A DE C V", "corp")
    assert config.file("key_file") == Path("/cfg/data/k.tpl")
    assert config.file("response_file") == Path("/abs/r.tpl")
    assert config.flag("dump_map_history")
    assert config.key2key


def test_option_given_twice_keeps_the_later_value_with_a_warning() -> None:
    config = parse_muc_config(BASE + ":key_file a\n:key_file b\n", Path("c"))
    assert config.value("key_file") == "b"
    assert any("given again" in w for w in config.warnings)


@pytest.mark.parametrize(
    ("extra", "line", "message"),
    [
        (":no_such_option 1\n", 11, "unknown option :no_such_option"),
        (":key_file a b\n", 11, "exactly one value"),
        (':premodifiers "the\n', 11, "unclosed"),
        (":scoring_method both\n", 11, "key2response"),
        (":stringfill_partial_comparison HALF\n", 11, "NONE"),
    ],
)
def test_bad_options_name_the_line(extra: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_muc_config(BASE + extra, Path("te.config"))
    assert caught.value.line == line
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"te.config:{line}:")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (':class_defs "a a scored"\n', "4 tokens"),
        (':class_defs "a a maybe 0"\n', "scored"),
        (':class_defs "a a scored x"\n', "number"),
        (':class_defs "a a scored 0"\n:slot_defs "a b c scored 1"\n', "6 tokens"),
        (':class_defs "a a scored 0"\n:slot_defs "z b c scored 1 set"\n', "does not define"),
        ("stray text\n", "expected an option"),
    ],
)
def test_malformed_definitions_are_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_muc_config(":scoring_task template_element\n" + text, Path("c"))


def test_required_options() -> None:
    with pytest.raises(InputError, match="scoring_task is required"):
        parse_muc_config(':class_defs "a a scored 0"\n', Path("c"))
    with pytest.raises(InputError, match="slot_defs is required"):
        parse_muc_config(
            ':scoring_task te\n:class_defs "a a scored 0"\n'.replace("te\n", "template_element\n"),
            Path("c"),
        )


def test_the_shipped_sample_configuration_reads() -> None:
    config = read_muc_config(sample_path("muc", "te.config"))
    assert config.scoring_task == "template_element"
    assert [c.name for c in config.class_defs] == ["ORGANIZATION", "PERSON", "TEMPLATE"]
    assert config.file("key_file").name == "key.synthetic.tpl"


def _plain_values(line: str) -> list[str] | None:
    """The manual's value rule, character by character: values are separated by blanks
    (``str.isspace``); one opened by a quote runs to the same quote on the line and keeps its
    blanks; a value not opened by a quote runs to the next blank.  ``None``: a quote not
    closed on the line."""
    values: list[str] = []
    i = 0
    while i < len(line):
        if line[i].isspace():
            i += 1
        elif line[i] in "\"'":
            end = line.find(line[i], i + 1)
            if end < 0:
                return None
            values.append(line[i + 1 : end])
            i = end + 1
        else:
            start = i
            while i < len(line) and not line[i].isspace():
                i += 1
            values.append(line[start:i])
    return values


@given(st.text(alphabet="ab\"' \t\x0b\x0c\x1c\x85\xa0\u2003\u3000é", max_size=24))
@settings(max_examples=400, deadline=None)
def test_a_value_line_splits_as_the_plain_rule_says(line: str) -> None:
    """Any line of values (quotes of both kinds, unclosed or inside a value, Unicode blanks):
    the values read, or the unclosed quote's error naming the line, are the plain rule's."""
    text = f"{BASE}:premodifiers\n\t{line}\n"
    expected = _plain_values(line)
    if expected is None:
        with pytest.raises(InputError, match=r"unclosed . quote") as error:
            parse(text)
        assert error.value.line == text.count("\n")
    else:
        config = parse_muc_config(text, Path("/cfg/te.config"))
        assert list(config.items("premodifiers")) == expected
