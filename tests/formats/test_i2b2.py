"""i2b2/n2c2 XML: mentions with offsets into TEXT, document labels, checks."""

from __future__ import annotations

import pytest

from annoscore.errors import InputError
from annoscore.formats.i2b2 import read_i2b2_text

NOTE = """<?xml version="1.0" encoding="UTF-8" ?>
<deIdi2b2>
<TEXT><![CDATA[Record date: 2067-05-03
Dr. Ann Lee saw the patient.]]></TEXT>
<TAGS>
<DATE id="P0" start="13" end="23" text="2067-05-03" TYPE="DATE" comment="" />
<NAME id="P1" start="28" end="35" text="Ann Lee" TYPE="DOCTOR" comment="" />
<DIABETES time="before DCT" indicator="mention">
<DIABETES id="DIABETES0" start="44" end="51" text="patient" time="before DCT" indicator="mention"/>
</DIABETES>
<ABDOMINAL met="not met" />
</TAGS>
</deIdi2b2>
"""


def test_mentions_attributes_and_document_labels() -> None:
    doc = read_i2b2_text(NOTE, "folder/100-01.xml")
    assert doc.id == "100-01"
    assert [(m.id, m.type, m.text) for m in doc.mentions] == [
        ("P0", "DATE", "2067-05-03"),
        ("P1", "NAME", "Ann Lee"),
        ("DIABETES0", "DIABETES", "patient"),
    ]
    subtype = {(a.target, a.name): a.value for a in doc.attributes}
    assert subtype[("P1", "TYPE")] == "DOCTOR"
    assert subtype[("", "ABDOMINAL:met")] == "not met"
    assert subtype[("", "DIABETES:time")] == "before DCT"
    assert not doc.warnings


def test_texts_are_checked_and_offsets_refused_past_the_text() -> None:
    doc = read_i2b2_text(NOTE.replace('text="Ann Lee"', 'text="Ann Le"'), "n.xml")
    assert doc.warnings == ("n.xml: <NAME id='P1'> text 'Ann Le' where the text has 'Ann Lee'",)
    with pytest.raises(InputError, match="<NAME id='P1'>: offsets 28-999 out of order or past"):
        read_i2b2_text(NOTE.replace('end="35"', 'end="999"'), "n.xml")
    with pytest.raises(InputError, match="<DATE id='P0'> start: 'x' is not a whole number"):
        read_i2b2_text(NOTE.replace('start="13"', 'start="x"'), "n.xml")
    with pytest.raises(InputError, match="no <TEXT> element"):
        read_i2b2_text("<deIdi2b2><TAGS/></deIdi2b2>", "n.xml")


def test_value_errors_name_the_line_of_the_tag() -> None:
    note = (
        "<deIdi2b2>\n<TEXT><![CDATA[Seen 2067-05-03.\nagain]]></TEXT>\n<TAGS>\n"
        '<DATE id="P0" start="5" end="15" text="2067-05-03" TYPE="DATE"/>\n'
        '<DATE id="P1" {} TYPE="DATE"/>\n</TAGS></deIdi2b2>\n'
    )
    for attributes, message in (
        ('start="x" end="15"', "note.xml:6: <DATE id='P1'> start: 'x' is not a whole number"),
        ('end="15"', "note.xml:6: <DATE id='P1'> start: None is not a whole number"),
        ('start="5" end="99"', "note.xml:6: <DATE id='P1'>: offsets 5-99 out of order or past"),
    ):
        with pytest.raises(InputError) as raised:
            read_i2b2_text(note.format(attributes), "note.xml")
        assert str(raised.value).startswith(message), raised.value
    with pytest.raises(InputError, match=r"^note\.xml:2: no <TEXT> element under <deIdi2b2>"):
        read_i2b2_text("\n<deIdi2b2><TAGS/></deIdi2b2>", "note.xml")
