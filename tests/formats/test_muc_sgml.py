"""The MUC SGML reader: documents, offsets, sections, attributes, objects and every error."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import SgmlMarkup, parse_sgml, read_sgml
from annoscore.formats.muc_sgml_objects import coref_objects, display_text, ne_objects
from annoscore.model import first_difference

NE = {"ENAMEX", "TIMEX", "NUMEX"}
SECTIONS = ("HL", "DD", "TXT")

MUC6 = """<DOC>
<DOCID> wsj93_001.0001 </DOCID>
<DOCNO> 930101-0001. </DOCNO>
<HL> <ENAMEX TYPE="ORGANIZATION">Acme</ENAMEX> Names Chief </HL>
<DD> <TIMEX TYPE=DATE>01/04/93</TIMEX> </DD>
<TXT>
<p>
<ENAMEX TYPE='ORGANIZATION'><ENAMEX TYPE="LOCATION">Springfield</ENAMEX> Savings
Bank</ENAMEX> earned <NUMEX TYPE="MONEY" ALT="$4.5 million|4.5 million">about $4.5 million</NUMEX>.
<HL><ENAMEX TYPE="PERSON" STATUS="OPT">Doe</ENAMEX></HL> said <ENAMEX TYPE="ORGANIZATION" \
COMMENT="the *big* one">it</ENAMEX>.
</p>
</TXT>
<TRAILER> <ENAMEX TYPE="PERSON">Ignored</ENAMEX> </TRAILER>
</DOC>
<DOC><DOCNO>2</DOCNO><TXT>x</TXT></DOC>
"""


def parse(text: str) -> list:  # type: ignore[type-arg]
    return parse_sgml(text, "k.sgml", NE, SgmlMarkup(sections=SECTIONS))


def test_documents_numbers_and_offsets_without_task_tags() -> None:
    docs = parse(MUC6)
    assert [d.number for d in docs] == ["9301010001", "2"]
    doc = docs[0]
    # other tags (<DOCID>, <HL>, <p>) count; the task's tags do not
    for tag in doc.tags:
        assert doc.text[tag.start : tag.end] == tag.text
    names = [(t.name, t.text, t.section) for t in doc.tags]
    assert names == [
        ("ENAMEX", "Acme", "HL"),
        ("TIMEX", "01/04/93", "DD"),
        ("ENAMEX", "Springfield Savings\nBank", "TXT"),  # outer first at the same start
        ("ENAMEX", "Springfield", "TXT"),
        ("NUMEX", "about $4.5 million", "TXT"),
        ("ENAMEX", "Doe", "HL"),  # innermost section wins
        ("ENAMEX", "it", "TXT"),
    ]
    assert doc.outside == 1  # the TRAILER tag is in no configured section
    assert doc.text.startswith("\n<DOCID> wsj93_001.0001 </DOCID>")
    assert doc.tags[0].start == doc.text.index("Acme")


def test_attributes_quoted_unquoted_and_quote_char() -> None:
    tags = parse(MUC6)[0].tags
    assert tags[1].attributes == {"TYPE": "DATE"}
    assert tags[2].attributes == {"TYPE": "ORGANIZATION"}
    assert tags[6].attributes["COMMENT"] == 'the "big" one'
    assert (tags[0].line, tags[0].column) == (4, 6)


def test_ne_objects_alt_status_and_text() -> None:
    doc = parse(MUC6)[0]
    defined = {c: {"type", "text", "status", "alt"} for c in ("enamex", "timex", "numex")}
    built, ignored = ne_objects(doc, ("ENAMEX", "TIMEX", "NUMEX"), defined)
    assert ignored == 1  # COMMENT has no slot
    ids = [o.id for o in built.objects]
    assert ids[:3] == ["ENAMEX-9301010001-1", "TIMEX-9301010001-1", "ENAMEX-9301010001-2"]
    bank = built.objects[2]
    assert bank.slot("TEXT").alternatives[0][0].text == "Springfield Savings Bank"  # type: ignore[union-attr]
    money = built.objects[4]
    texts = [a[0].text for a in money.slot("TEXT").alternatives]  # type: ignore[union-attr]
    assert texts == ["about $4.5 million", "$4.5 million", "4.5 million"]
    assert built.objects[5].optional and not built.objects[0].optional
    rsp, _ = ne_objects(doc, ("ENAMEX", "TIMEX", "NUMEX"), defined, keys_syntax=False)
    assert len(rsp.objects[4].slot("TEXT").alternatives) == 1  # type: ignore[union-attr]
    assert not rsp.objects[5].optional


COREF = """<DOC><DOCNO> 77 </DOCNO><TEXT>
<COREF ID="1" MIN="Acme">Acme Corp.</COREF> said <COREF ID="2" REF="1">it</COREF>
<COREF ID="3" REF="9">x</COREF>
</TEXT></DOC>"""


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("<DOC><DOCNO>1</DOCNO><TEXT>\n<ENAMEX TYPE=X>a\n</TEXT></DOC>", 3, "line 2, column 1"),
        ("<DOC><DOCNO>1</DOCNO><TEXT>\na</ENAMEX></TEXT></DOC>", 2, "without an open"),
        (
            "<DOC><DOCNO>1</DOCNO><TEXT>\n<ENAMEX><NUMEX>a</ENAMEX></NUMEX></TEXT></DOC>",
            2,
            "tags must nest",
        ),
        ("<DOC><DOCNO>1</DOCNO><TEXT><ENAMEX>a</TEXT></DOC>\n<DOC>b</ENAMEX></DOC>", 1, "closed"),
        ("<DOC><TEXT>\nno number\n</TEXT>\n</DOC>", 4, "has no <DOCNO>"),
        ("<DOC><DOCNO> none </DOCNO></DOC>", 1, "has no digit"),
        ("<DOC><DOCNO>1</DOCNO><TEXT>a\n\n</DOC>", 3, "section <TEXT>"),
        ('<DOC><DOCNO>1</DOCNO>\n<ENAMEX TYPE="X" a</DOC>', 2, "not closed by '>'"),
        ("<ENAMEX>a</ENAMEX>", 1, "outside a <DOC>"),
        ("<DOC><DOCNO>1</DOCNO>\n<TEXT>a", 2, "not closed by </DOC>"),
    ],
)
def test_malformed_markup_names_file_line_and_column(text: str, line: int, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_sgml(text, "bad.sgml", NE, SgmlMarkup(sections=("TEXT",)))
    message = str(caught.value)
    assert message.startswith(f"bad.sgml:{line}: column ")
    assert fragment in message


def test_coref_objects_and_their_errors() -> None:
    doc = parse_sgml(
        COREF.replace(' REF="9"', ""), "c.sgml", {"COREF"}, SgmlMarkup(sections=("TEXT",))
    )[0]
    built = coref_objects(doc)
    first, second, _ = built.objects
    assert first.id == "COREF-77-1" and first.slot("MIN").fills[0].text == "Acme"  # type: ignore[union-attr]
    assert second.slot("REF").fills[0].text == "COREF-77-1"  # type: ignore[union-attr]
    assert second.slot("REF").fills[0].is_pointer  # type: ignore[union-attr]
    missing = parse_sgml(COREF, "c.sgml", {"COREF"}, SgmlMarkup(sections=("TEXT",)))[0]
    with pytest.raises(InputError, match=r"c.sgml:3: column 1: REF='9' names no markable"):
        coref_objects(missing)
    twice = COREF.replace('ID="3" REF="9"', 'ID="2"')
    with pytest.raises(InputError, match=r"c.sgml:3: column 1: ID='2' is used again"):
        coref_objects(parse_sgml(twice, "c.sgml", {"COREF"}, SgmlMarkup(sections=("TEXT",)))[0])
    no_id = COREF.replace('ID="3" REF="9"', 'TYPE="IDENT"')
    with pytest.raises(InputError, match=r"has no ID attribute"):
        coref_objects(parse_sgml(no_id, "c.sgml", {"COREF"}, SgmlMarkup(sections=("TEXT",)))[0])


def test_duplicate_document_numbers_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "k.sgml"
    path.write_text("<DOC><DOCNO>1</DOCNO></DOC>\n<DOC><DOCNO>-1-</DOCNO></DOC>\n")
    with pytest.raises(InputError, match=r"k.sgml:2: document number 1 is used again"):
        read_sgml(path, NE)


def test_lone_angle_brackets_and_comments_are_text() -> None:
    text = "<DOC><DOCNO>5</DOCNO><TEXT>a < b <!-- <ENAMEX> --> <ENAMEX>c</ENAMEX></TEXT></DOC>"
    doc = parse_sgml(text, "k", NE, SgmlMarkup(sections=("TEXT",)))[0]
    assert [t.text for t in doc.tags] == ["c"]
    assert "a < b <!-- <ENAMEX> -->" in doc.text


def test_helpers() -> None:
    assert first_difference("same", "same") is None
    assert first_difference("abcdef", "abcxef") == 3
    assert display_text("a\n</p>\n<p> b") == "a b"


def test_mangled_markup_is_read_or_refused_never_a_crash() -> None:
    """Random deletions and insertions of markup characters in real task files: each result
    is documents or an InputError (file, line, column), never another exception."""
    import random

    from annoscore.samples import sample_path

    base = (
        sample_path("muc", "ne.key.sgml").read_text()
        + sample_path("muc", "co.key.sgml").read_text()
    )
    rng = random.Random(3)
    read = refused = 0
    for _ in range(400):
        chars = list(base)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(chars))
            if rng.random() < 0.5:
                del chars[at]
            else:
                chars.insert(at, rng.choice("<>/\"'= \nDOCENAMEXCOREF|*"))
        try:
            documents = parse_sgml(
                "".join(chars), "f", {*NE, "COREF"}, SgmlMarkup(sections=(*SECTIONS, "TEXT"))
            )
            for document in documents:
                ne_objects(document, NE, {"enamex": {"type", "text"}})
                coref_objects(document)
            read += 1
        except InputError as error:
            assert str(error).startswith("f:")
            refused += 1
    assert read and refused
