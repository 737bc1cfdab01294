"""MUC template files: the manual's key and response records, alternatives, optional marks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.muc_template import parse_templates, read_templates
from annoscore.templates import TemplateFill

MANUAL_RESPONSE = """<ORGANIZATION-9303020074-1> :=
    ORG_NAME: "Evergreen Information Technologies Inc."
    ORG_ALIAS: "Evergreen Information Technologies"
               "Evergreen"
               "Evergreen Information"
    ORG_LEADER: <PERSON-9303020074-57>
    ORG_TYPE: COMPANY
"""

MANUAL_KEY = """<ORGANIZATION-9303020074-1> :=
    ORG_NAME: "Evergreen Information Technologies Inc."
    ORG_TYPE: /COMPANY
    ORG_ALIAS:  "Evergreen Information Technologies"
                "Evergreen"
                "Evergreen Information"
               /"Evergreen"
                "Evergreen Information"
    ORG_LEADER: <PERSON-9303020074-57>
    OBJ_STATUS: OPTIONAL
"""


def key(text: str) -> list:  # type: ignore[type-arg]
    return parse_templates(text, Path("key.tpl"), keys_syntax=True)


def test_manual_key_record_alternatives_optional_slot_and_optional_object() -> None:
    [document] = key(MANUAL_KEY)
    assert document.id == "9303020074"
    [obj] = document.objects
    assert (obj.id, obj.class_name, obj.document, obj.number) == (
        "ORGANIZATION-9303020074-1",
        "ORGANIZATION",
        "9303020074",
        "1",
    )
    assert obj.optional
    assert obj.slot("OBJ_STATUS") is None  # the status slot marks, it is not scored
    org_type = obj.slot("org_type")
    assert org_type is not None and org_type.optional
    assert [f.text for f in org_type.alternatives[0]] == ["COMPANY"]
    alias = obj.slot("ORG_ALIAS")
    assert alias is not None and not alias.optional
    assert [[f.text for f in alt] for alt in alias.alternatives] == [
        ["Evergreen Information Technologies", "Evergreen", "Evergreen Information"],
        ["Evergreen", "Evergreen Information"],
    ]
    leader = obj.slot("ORG_LEADER")
    assert leader is not None
    assert leader.alternatives == ((TemplateFill("PERSON-9303020074-57", True, line=9),),)


def test_manual_response_record() -> None:
    [document] = parse_templates(MANUAL_RESPONSE, Path("r.tpl"), keys_syntax=False)
    [obj] = document.objects
    assert not obj.optional
    assert [s.name for s in obj.slots] == ["ORG_NAME", "ORG_ALIAS", "ORG_LEADER", "ORG_TYPE"]
    alias = obj.slot("ORG_ALIAS")
    assert alias is not None and len(alias.alternatives) == 1 and len(alias.fills) == 3


def test_bracketed_minimum_string_in_keys_only() -> None:
    text = '<O-1-1> :=\n    D: "a [maker] of widgets"\n'
    fill = key(text)[0].objects[0].slots[0].fills[0]
    assert (fill.text, fill.minimum) == ("a maker of widgets", "maker")
    response = parse_templates(text, Path("r"), keys_syntax=False)
    assert response[0].objects[0].slots[0].fills[0].text == "a [maker] of widgets"


def test_unquoted_words_are_one_fill_each_and_quotes_keep_blanks() -> None:
    text = "<O-1-1> :=\n    LOC: Springfield CITY 'New York'\n    EMPTY:\n"
    obj = key(text)[0].objects[0]
    loc = obj.slot("LOC")
    assert loc is not None and [f.text for f in loc.fills] == ["Springfield", "CITY", "New York"]
    empty = obj.slot("EMPTY")
    assert empty is not None and empty.is_empty


def test_comments_blank_lines_and_documents_in_file_order() -> None:
    text = "; a comment\n<A-2-1> :=\n  S: x\n\n# another\n<A-2-2> :=\n<A-1-1> :=\n  S: y\n"
    docs = key(text)
    assert [d.id for d in docs] == ["2", "1"]
    assert [o.id for o in docs[0].objects] == ["A-2-1", "A-2-2"]


def test_synthetic_shared_key_reads() -> None:
    from tests.conftest import shared_data

    docs = read_templates(shared_data("muc", "te", "key.synthetic.tpl"), keys_syntax=True)
    [doc] = docs
    org2 = doc.objects[2]
    assert org2.optional
    descriptor = org2.slot("ORG_DESCRIPTOR")
    assert descriptor is not None and descriptor.optional


@pytest.mark.parametrize(
    ("text", "keys_syntax", "line", "message"),
    [
        ("  S: x\n", True, 1, "before the first object"),
        ('<A-1-1> :=\n  S: "open\n', True, 2, "unclosed"),
        ("<A-1-1> :=\n  S: x\n     /y\n", False, 3, "only allowed in keys"),
        ("<A-1-1> :=\n  OBJ_STATUS: OPTIONAL\n", False, 2, "only keys mark"),
        ("<A-1-1> :=\n  OBJ_STATUS: MAYBE\n", True, 2, "OPTIONAL or OPT"),
        ("<BAD> :=\n", True, 1, "bad object id"),
        ("<A-1-1> :=\n  S: x\n  S: y\n", True, 3, "twice"),
        ("<A-1-1> :=\n<A-1-1> :=\n", True, 2, "defined twice"),
        ("<A-1-1> :=\n<A-2-1> :=\n<A-1-2> :=\n", True, 3, "contiguous"),
        ("<A-1-1> :=\nS x\n", True, 2, "expected"),
        ('<A-1-1> :=\n  S: "a [b] [c]"\n', True, 2, "one [minimum]"),
        ("<A-1-1> :=\n  S: <B-1-1\n", True, 2, "unclosed '<'"),
        ("<A-1-1> :=\n  S: <B-1>\n", True, 2, "bad object id"),
        ("<A-1-1> :=\n  S:x\n", True, 2, "expected"),
        ("<A-1-1> :=\n  S: x\n  s: y\n", False, 3, "twice"),
        ("<A-1-1> :=\n  S: x\nT y\n", True, 3, "expected"),
    ],
)
def test_errors_name_file_and_line(text: str, keys_syntax: bool, line: int, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_templates(text, Path("f.tpl"), keys_syntax=keys_syntax)
    assert (caught.value.path, caught.value.line) == ("f.tpl", line)
    assert message in caught.value.message


fill_texts = st.one_of(
    st.text(alphabet="aZ .,'[]/<>-", max_size=10).map(lambda s: f'"{s}"'),
    st.text(alphabet='aZ .,"[]/<>-', max_size=10).map(lambda s: f"'{s}'"),
    st.text(alphabet="aZ.,[]/>-1", min_size=1, max_size=8).filter(lambda s: s[0].isalpha()),
    st.text(alphabet="AB-1 ", max_size=8).map(lambda s: f"<{s}>"),
)


@settings(max_examples=200, deadline=None)
@given(fill=fill_texts, keys_syntax=st.booleans(), indent=st.sampled_from(["", " ", "\t  "]))
def test_a_fill_on_the_slot_line_reads_as_on_a_continuation_line(
    fill: str, keys_syntax: bool, indent: str
) -> None:
    """The reader's fast path (one plain fill on the slot line) and its general path (fills on
    continuation lines) agree on every fill, and on errors."""

    def read(text: str) -> list[tuple[str, bool, str | None]] | str:
        try:
            [document] = parse_templates(text, Path("f.tpl"), keys_syntax=keys_syntax)
        except InputError as error:
            return error.message
        [obj] = document.objects
        [slot] = obj.slots
        assert not slot.optional and len(slot.alternatives) == 1
        return [(f.text, f.is_pointer, f.minimum) for f in slot.alternatives[0]]

    same_line = read(f"<A-1-1> :=\n{indent}S: {fill}\n")
    next_line = read(f"<A-1-1> :=\n{indent}S:\n   {fill}\n")
    assert same_line == next_line
