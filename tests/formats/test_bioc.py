"""BioC XML and JSON read as the ``bioc`` package (test extra) writes and reads them, on random
collections; offsets document-absolute; errors and warnings."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from annoscore.errors import InputError
from annoscore.formats.annotations import OffsetUnit, ReaderOptions
from annoscore.formats.bioc import read_bioc_text

bioc = pytest.importorskip("bioc")
biocxml = pytest.importorskip("bioc.biocxml")
biocjson = pytest.importorskip("bioc.biocjson")

WORDS = ["aspirin", "pain", "héparine", "BRCA1", "tumour", "of", "γ-globulin", "cells", "&", "<b>"]


def _collection(rng: random.Random) -> object:
    collection = bioc.BioCCollection()
    for d in range(rng.randint(1, 4)):
        document = bioc.BioCDocument()
        document.id = f"doc{d}"
        offset = 0
        for _ in range(rng.randint(1, 3)):
            passage = bioc.BioCPassage()
            passage.offset = offset
            passage.text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
            for k in range(rng.randint(0, 4)):
                annotation = bioc.BioCAnnotation()
                annotation.id = f"{d}-{offset}-{k}"
                annotation.infons["type"] = rng.choice(["Chemical", "Disease"])
                if rng.random() < 0.7:
                    annotation.infons["identifier"] = rng.choice(["D001241", "MESH:D1", "-"])
                texts = []
                for _ in range(rng.randint(1, 2)):
                    start = rng.randint(0, len(passage.text) - 1)
                    end = rng.randint(start, len(passage.text))
                    annotation.add_location(bioc.BioCLocation(offset + start, end - start))
                    texts.append(passage.text[start:end])
                locations = sorted((loc.offset, loc.length) for loc in annotation.locations)
                annotation.text = " ".join(
                    passage.text[o - offset : o - offset + n] for o, n in locations
                )
                passage.add_annotation(annotation)
            document.add_passage(passage)
            offset += len(passage.text) + rng.randint(1, 3)
        collection.add_document(document)
    return collection


@pytest.mark.parametrize("form", ["bioc-xml", "bioc-json"])
def test_read_as_the_bioc_package_reads(form: str) -> None:
    rng = random.Random(form)
    for _ in range(40):
        written = _collection(rng)
        text = biocxml.dumps(written) if form == "bioc-xml" else biocjson.dumps(written)
        peer = biocxml.loads(text) if form == "bioc-xml" else biocjson.loads(text)
        ours = read_bioc_text(text, "x", form)
        assert [d.id for d in ours.documents] == [d.id for d in peer.documents]
        for mine, theirs in zip(ours.documents, peer.documents, strict=True):
            assert not mine.warnings
            expected = []
            for passage in theirs.passages:
                assert mine.text is not None
                assert (
                    mine.text[passage.offset : passage.offset + len(passage.text)] == passage.text
                )
                for a in passage.annotations:
                    fragments = tuple(sorted((loc.offset, loc.end) for loc in a.locations))
                    expected.append((a.id, fragments, a.infons["type"], a.text))
            got = [(m.id, m.span.fragments, m.type, m.text) for m in mine.mentions]
            assert got == expected
            ids = {n.target: n.reference for n in mine.normalizations}
            assert ids == {
                a.id: a.infons["identifier"]
                for p in theirs.passages
                for a in p.annotations
                if a.infons.get("identifier")
            }


def _json(text: str, offset: int, length: int, written: str, passage_offset: int = 0) -> str:
    import json

    return json.dumps(
        {
            "documents": [
                {
                    "id": "d",
                    "passages": [
                        {
                            "offset": passage_offset,
                            "text": text,
                            "annotations": [
                                {
                                    "id": "A",
                                    "infons": {"type": "X"},
                                    "text": written,
                                    "locations": [{"offset": offset, "length": length}],
                                }
                            ],
                        }
                    ],
                }
            ]
        }
    )


def test_a_location_past_its_passage_is_an_error_naming_document_and_annotation() -> None:
    with pytest.raises(InputError, match="document 'd', annotation 'A': location 3-9 is past"):
        read_bioc_text(_json("abcdef", 3, 6, "def"), "x", "bioc-json")


def test_annotation_texts_are_checked_and_byte_offsets_detected() -> None:
    warned = read_bioc_text(_json("abcdef", 0, 3, "xyz"), "x", "bioc-json")
    assert "text 'xyz' where the document has 'abc'" in warned.documents[0].warnings[0]
    text = "héparine aspirin x"
    start = len("héparine ".encode())  # 10 bytes, 9 characters
    by_bytes = _json(text, start, 7, "aspirin")
    chars = read_bioc_text(by_bytes, "x", "bioc-json")
    assert chars.documents[0].warnings  # read as characters: the text does not match
    auto = read_bioc_text(by_bytes, "x", "bioc-json", ReaderOptions(offsets="auto"))
    assert auto.documents[0].mentions[0].span.fragments == ((9, 16),)
    assert not auto.documents[0].warnings and "UTF-8 byte" in auto.warnings[0]


def test_auto_reads_bytes_when_the_characters_fall_past_the_text() -> None:
    """Character offsets past the end of the text are no match, though a slice of the text
    there is its end (the annotation's text): bytes are read, not an error for the location."""
    text = "de 中文"  # 5 characters, 9 bytes
    auto = read_bioc_text(_json(text, 0, 9, text), "x", "bioc-json", ReaderOptions(offsets="auto"))
    assert auto.documents[0].mentions[0].span.fragments == ((0, 5),)
    assert "read as bytes (--offsets auto)" in auto.warnings[0]
    with pytest.raises(InputError, match="location 0-9 is past its passage"):
        read_bioc_text(_json(text, 0, 9, text), "x", "bioc-json")


def test_bad_xml_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not well-formed XML"):
        read_bioc_text("<collection><document>", "x.xml", "bioc-xml")
    with pytest.raises(InputError, match="expected a BioC <collection>"):
        read_bioc_text("<root/>", "x.xml", "bioc-xml")
    entity = '<!DOCTYPE c [<!ENTITY e "x">]><collection>&e;</collection>'
    with pytest.raises(InputError, match="XML refused"):
        read_bioc_text(entity, "x.xml", "bioc-xml")


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        ('"x"', "document 'd': \"annotations\"[0] is not an object"),
        (
            '{"id": "a1", "infons": ["type"], "locations": []}',
            "document 'd', annotation 'a1': \"infons\" is not an object",
        ),
        (
            '{"id": "a1", "infons": {}, "locations": [3]}',
            "document 'd': \"locations\"[0] is not an object",
        ),
    ],
)
def test_a_json_node_that_is_not_an_object_is_an_input_error_naming_where(
    annotation: str, message: str
) -> None:
    """Every list of a BioC JSON collection holds objects and ``infons`` is an object: anything
    else is an :class:`InputError` naming the document and the list (it was an internal error,
    ``AttributeError``, exit 1)."""
    text = (
        '{"documents": [{"id": "d", "passages": [{"offset": 0, "text": "abc", '
        f'"annotations": [{annotation}]}}]}}]}}'
    )
    with pytest.raises(InputError) as error:
        read_bioc_text(text, "c.json", "bioc-json")
    assert error.value.message == message


def test_a_relation_whose_infons_are_not_an_object_is_an_input_error() -> None:
    text = (
        '{"documents": [{"id": "d", "passages": [{"offset": 0, "text": "abc", '
        '"relations": [{"id": "r1", "infons": 3, "nodes": []}]}]}]}'
    )
    with pytest.raises(InputError, match="relation 'r1': \"infons\" is not an object"):
        read_bioc_text(text, "c.json", "bioc-json")


XML_LINES = """<?xml version="1.0"?>
<collection><source/><date/><key/>
<document><id>d1</id>
<passage><offset>{passage}</offset><text>Aspirin helps</text>
<annotation id="A1"><infon key="type">C</infon><location offset="0" length="7"/>
<text>Aspirin</text></annotation>
<annotation id="A2"><infon key="type">C</infon>
<location {location}/><text>helps</text></annotation>
</passage></document>{more}
</collection>
"""


@pytest.mark.parametrize("offsets", ["chars", "utf8-bytes", "auto"])
def test_xml_value_errors_name_the_line(offsets: OffsetUnit) -> None:
    """A location not a whole number, missing or past its passage, a passage offset not a
    number, a document twice: the error names file and line (the checked parse's), whichever
    step met it."""
    good = 'offset="8" length="5"'
    second = "\n<document><id>d1</id><passage><offset>0</offset><text>x</text></passage></document>"
    cases = (
        ({"location": 'offset="x" length="5"'}, 7, "annotation 'A2' offset 'x' is not a whole"),
        ({"location": 'length="5"'}, 7, "annotation 'A2' offset '' is not a whole number"),
        ({"location": 'offset="8" length="-5"'}, 7, "annotation 'A2' length '-5' is not a whole"),
        ({"location": 'offset="20" length="5"'}, 7, "annotation 'A2': "),
        ({"passage": "z"}, 4, "passage offset 'z' is not a whole number"),
        ({"more": second}, 10, "document 'd1' appears twice"),
    )
    _errors_name_their_lines(XML_LINES, "bioc-xml", good, cases, offsets)


def _errors_name_their_lines(
    template: str,
    form: str,
    good: str,
    cases: Sequence[tuple[dict[str, str], int, str]],
    offsets: OffsetUnit,
) -> None:
    """Each case's ``template`` (its fields over a good location, a passage at 0 and nothing
    more) raises an error naming its line and holding its message."""
    for fields, line, message in cases:
        text = template.format(**{"passage": "0", "location": good, "more": ""} | fields)
        with pytest.raises(InputError) as raised:
            read_bioc_text(text, "c", form, ReaderOptions(offsets=offsets))
        assert raised.value.line == line, (fields, raised.value)
        assert message in str(raised.value), raised.value


JSON_LINES = """{{"documents": [
 {{"id": "d0", "passages": [{{"offset": 0, "text": "x"}}]}},
 {{"id": "d1", "passages": [{{"offset": {passage}, "text": "Aspirin helps",
   "annotations": [
    {{"id": "A1", "infons": {{"type": "C"}}, "text": "Aspirin",
     "locations": [{{"offset": 0, "length": 7}}]}},
    {{"id": "A2", "infons": {{"type": "C"}}, "text": "helps",
     "locations": [{{{location}}}]}}]}}]}}{more}
]}}
"""


@pytest.mark.parametrize("offsets", ["chars", "utf8-bytes", "auto"])
def test_json_value_errors_name_the_line(offsets: OffsetUnit) -> None:
    """BioC JSON as BioC XML: a location not a whole number, missing or past its passage (the
    annotation's line), a passage offset not a number, a document twice, a walk's error, a
    document not an object (the document's line): the error names file and line, found
    again in the text (the reading notes no place)."""
    good = '"offset": 8, "length": 5'
    second = ',\n {"id": "d1", "passages": []}'
    cases = (
        ({"location": '"offset": "x", "length": 5'}, 7, "annotation 'A2' offset 'x' is not"),
        ({"location": '"length": 5'}, 7, "annotation 'A2' offset '' is not a whole number"),
        ({"location": '"offset": 8, "length": -5'}, 7, "annotation 'A2' length '-5' is not"),
        ({"location": '"offset": 20, "length": 5'}, 7, "annotation 'A2': "),
        ({"passage": '"z"'}, 3, "passage offset 'z' is not a whole number"),
        ({"more": second}, 9, "document 'd1' appears twice"),
        ({"more": ',\n {"id": "d2", "passages": 3}'}, 9, '"passages" is not a list'),
        ({"more": ",\n 7"}, 9, "documents[2] is not an object"),
    )
    _errors_name_their_lines(JSON_LINES, "bioc-json", good, cases, offsets)


def test_byte_offsets_count_the_passages_bytes_too() -> None:
    """A title and an abstract whose offsets count UTF-8 bytes (the abstract at the title's
    bytes + 1): the abstract's annotations are read where the bytes say, in the text that the
    passages make at their byte offsets (one space between them, not one per byte more)."""
    title, abstract = "Ñu café", "aspirin works"  # the title: 7 characters, 9 bytes

    def xml(at: int) -> str:
        return (
            "<collection><source/><date/><key/><document><id>d</id>"
            f"<passage><offset>0</offset><text>{title}</text></passage>"
            f"<passage><offset>{at}</offset><text>{abstract}</text>"
            '<annotation id="A1"><infon key="type">C</infon>'
            f'<location offset="{at}" length="7"/><text>aspirin</text></annotation>'
            "</passage></document></collection>"
        )

    chars = read_bioc_text(xml(8), "x", "bioc-xml").documents[0]
    by_bytes = read_bioc_text(
        xml(10), "x", "bioc-xml", ReaderOptions(offsets="utf8-bytes")
    ).documents[0]
    assert by_bytes.text == chars.text == "Ñu café aspirin works"
    assert by_bytes.mentions == chars.mentions and not by_bytes.warnings
    with pytest.raises(InputError, match=r"offset 8 overlaps the one before it \(which ends at 9"):
        read_bioc_text(xml(8), "x", "bioc-xml", ReaderOptions(offsets="utf8-bytes"))
