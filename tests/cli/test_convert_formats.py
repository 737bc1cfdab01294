"""``annoscore convert FROM TO INPUT OUTPUT``: every format to every other, round trips keep
every mention (offsets, types, concept ids where the format holds them), what a format cannot
hold is an error, and ``convert muc-sgml`` still works beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annoscore.cli import app
from annoscore.formats.annotations import read_corpus
from annoscore.formats.writers import write_annotations
from annoscore.model import AnnotatedDocument, Event, Mention, Relation, Span
from annoscore.samples import SAMPLES

TARGETS = [
    "brat",
    "bioc-xml",
    "bioc-json",
    "pubtator",
    "i2b2-xml",
    "prodigy-jsonl",
    "spacy-jsonl",
]
HOLD_IDS = {"brat", "bioc-xml", "bioc-json", "pubtator"}
BRAT = SAMPLES / "pharmaconer/gold/subtrack1/sample"
BIO = SAMPLES / "bio/gold.conll"


def _run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, ["convert", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def _mentions(path: Path, form: str, ids: bool = True) -> set[tuple[object, ...]]:
    corpus = read_corpus(path, form)
    found: set[tuple[object, ...]] = set()
    for doc_id, document in corpus.documents.items():
        concepts = {n.target: n.reference for n in document.normalizations}
        text = document.text or ""
        for m in document.mentions:
            concept = concepts.get(m.id, "") if ids else ""
            fragments = m.span.fragments
            found.add(
                (doc_id, fragments, m.type, concept, " ".join(text[s:e] for s, e in fragments))
            )
    return found


def _output(tmp_path: Path, form: str, name: str) -> Path:
    return tmp_path / (name if form in ("brat", "i2b2-xml") else f"{name}.{form}")


@pytest.mark.parametrize("target", TARGETS)
def test_brat_to_each_format_and_back_keeps_every_mention(tmp_path: Path, target: str) -> None:
    there = _output(tmp_path, target, "there")
    _run("brat", target, BRAT, there)
    back = tmp_path / "back"
    _run(target, "brat", there, back)
    ids = target in HOLD_IDS
    expected = _mentions(BRAT, "brat", ids)
    assert len(expected) > 50
    assert _mentions(there, target, ids) == expected
    assert _mentions(back, "brat", ids) == expected
    first = sorted(p.name for p in BRAT.glob("*.txt"))[0]
    if target != "pubtator":  # PubTator writes line breaks as spaces
        assert (back / first).read_text(encoding="utf-8") == (BRAT / first).read_text(
            encoding="utf-8"
        )


@pytest.mark.parametrize("target", TARGETS)
def test_conll_bio_to_each_format_and_back_is_the_same_reading(tmp_path: Path, target: str) -> None:
    there = _output(tmp_path, target, "there")
    _run("conll-bio", target, BIO, there)
    back = tmp_path / "back.conll"
    _run(target, "conll-bio", there, back)
    expected = _mentions(BIO, "conll-bio", False)
    assert {m[2] for m in expected} == {"PER", "LOC", "ORG", "MISC"}
    assert _mentions(back, "conll-bio", False) == expected
    before = {d.id: d.text for d in read_corpus(BIO, "conll-bio").documents.values()}
    after = {d.id: d.text for d in read_corpus(back, "conll-bio").documents.values()}
    if target != "pubtator":  # PubTator writes line breaks as spaces
        assert after == before


def test_what_a_format_cannot_hold_is_an_error_naming_the_mention(tmp_path: Path) -> None:
    split = AnnotatedDocument(
        "d", (Mention(Span(((0, 2), (3, 5))), "X", "T1", "ab de"),), "ab cd ef"
    )
    for form in ("pubtator", "i2b2-xml", "prodigy-jsonl", "spacy-jsonl", "conll-bio"):
        with pytest.raises(Exception, match="document 'd', mention 'T1'"):
            write_annotations([split], form)
    inside = AnnotatedDocument("d", (Mention(Span.of(1, 2), "X", "T1", "b"),), "ab cd")
    with pytest.raises(Exception, match="not whitespace token boundaries"):
        write_annotations([inside], "conll-bio")
    runner = CliRunner()
    result = runner.invoke(app, ["convert", "brat", "conll-bio", str(BRAT), str(tmp_path / "x")])
    assert result.exit_code == 2 and "CoNLL BIO cannot hold it" in result.output
    assert not (tmp_path / "x").exists()
    result = runner.invoke(app, ["convert", "brat", "nope", str(BRAT), str(tmp_path / "x")])
    assert result.exit_code == 2 and "TO is one of" in result.output


def test_existing_outputs_need_force_and_an_input_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    _run("conll-bio", "bioc-json", BIO, out)
    runner = CliRunner()
    again = runner.invoke(app, ["convert", "conll-bio", "bioc-json", str(BIO), str(out)])
    assert again.exit_code == 2 and "use --force" in again.output
    _run("conll-bio", "bioc-json", BIO, out, "--force")
    assert len(json.loads(out.read_text(encoding="utf-8"))["documents"]) == 2
    same = runner.invoke(app, ["convert", "bioc-json", "bioc-json", str(out), str(out), "--force"])
    assert same.exit_code == 2 and "input file" in same.output


def test_pubtator_writes_line_breaks_as_spaces_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "p.txt"
    output = _run("brat", "pubtator", BRAT, out)
    assert "line breaks or tabs, written as spaces" in output
    assert "\t" not in out.read_text(encoding="utf-8").split("\n", 1)[0]


LINKED = (
    "T1\tDrug 0 7\tAspirin\nT2\tDisease 15 20\tfever\nT3\tDisease 25 29\tpain\n"
    "E1\tTREAT:T1 Theme:T2\nE7\tTREAT:T1 Theme:E1\nR1\tTreats Arg1:T1 Arg2:T2\n"
    "R4\tTreats Arg1:E1 Arg2:T3\n*\tEquiv T2 T3\n#1\tAnnotatorNotes T1\tC0004057\n"
    "N1\tReference T1 UMLS:C0004057\tAspirin\n"
)


def test_brat_to_brat_keeps_relations_events_and_notes(tmp_path: Path) -> None:
    """formats.md: a round trip returns the input's annotations; brat's relations (``R``, and
    ``*`` equivalences), events and notes are written back, each naming what it named."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in/d1.txt").write_text("Aspirin treats fever and pain.\n", encoding="utf-8")
    (tmp_path / "in/d1.ann").write_text(LINKED, encoding="utf-8")
    output = _run("brat", "brat", tmp_path / "in", tmp_path / "out")
    assert "left out" not in output
    before = read_corpus(tmp_path / "in", "brat").documents["d1"]
    after = read_corpus(tmp_path / "out", "brat").documents["d1"]
    assert after.relations == before.relations and len(after.relations) == 3
    assert after.events == before.events and len(after.events) == 2
    assert after.notes == before.notes and after.normalizations == before.normalizations


def test_brat_ids_written_are_distinct_whatever_ids_the_input_gave(tmp_path: Path) -> None:
    """Ids of another format (BioC's, any text) become brat ids by their place, never one that
    another item keeps: the file reads back, each link naming what it named."""
    mentions = (
        Mention(Span.of(0, 7), "Drug", "x"),
        Mention(Span.of(15, 20), "Disease", "T1"),
        Mention(Span.of(25, 29), "Disease", "T1"),
    )
    relations = (
        Relation("rel", "Treats", (("Arg1", "x"), ("Arg2", "T1"))),
        Relation("R1", "Treats", (("Arg1", "x"), ("Arg2", "T1"))),
    )
    events = (Event("e", "TREAT", "x", (("Theme", "T1"),)), Event("E1", "TREAT", "x", ()))
    text = "Aspirin treats fever and pain.\n"
    document = AnnotatedDocument("d1", mentions, text, relations=relations, events=events)
    (tmp_path / "out").mkdir()
    for name, content in write_annotations([document], "brat"):
        (tmp_path / "out" / name).write_text(content, encoding="utf-8")
    back = read_corpus(tmp_path / "out", "brat").documents["d1"]
    assert [m.id for m in back.mentions] == ["T2", "T1", "T3"]
    assert [r.id for r in back.relations] == ["R2", "R1"]
    assert [e.id for e in back.events] == ["E2", "E1"]
    assert back.relations[0].arguments == (("Arg1", "T2"), ("Arg2", "T3"))


def test_relations_a_format_does_not_write_are_named_in_a_warning(tmp_path: Path) -> None:
    """Never a silent loss: PubTator has no events or notes here, BioC's writer no relations;
    a PubTator relation names concept ids, which no brat line defines."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in/d1.txt").write_text("Aspirin treats fever and pain.\n", encoding="utf-8")
    (tmp_path / "in/d1.ann").write_text(LINKED, encoding="utf-8")
    output = _run("brat", "bioc-json", tmp_path / "in", tmp_path / "d.json")
    assert "6 relation(s), event(s) or note(s) left out: bioc-json cannot hold them" in output
    pubtator = tmp_path / "p.txt"
    pubtator.write_text(
        "1|t|Aspirin treats fever.\n1\t0\t7\tAspirin\tChemical\tD001241\n"
        "1\t15\t20\tfever\tDisease\tD005334\n1\tCID\tD001241\tD005334\n\n",
        encoding="utf-8",
    )
    output = _run("pubtator", "brat", pubtator, tmp_path / "b")
    assert "1 relation(s), event(s) or note(s) left out: names an id that no line" in output
    assert "R1" not in (tmp_path / "b/1.ann").read_text(encoding="utf-8")


def test_muc_sgml_conversion_is_still_a_sub_command() -> None:
    result = CliRunner().invoke(app, ["convert", "muc-sgml", "--help"])
    assert result.exit_code == 0 and "--out" in result.output


def test_one_document_written_as_conll_bio_keeps_its_id(tmp_path: Path) -> None:
    """A -DOCSTART- line holds the id of one document too, so a round trip keeps it; an id
    such a line cannot hold is left out with a warning (read back: the file's name)."""
    source = tmp_path / "brat"
    source.mkdir()
    (source / "doc7.txt").write_text("Aspirin helps here\n", encoding="utf-8")
    (source / "doc7.ann").write_text("T1\tChem 0 7\tAspirin\n", encoding="utf-8")
    _run("brat", "conll-bio", source, tmp_path / "one.conll")
    written = (tmp_path / "one.conll").read_text(encoding="utf-8")
    assert written == "-DOCSTART- doc7 O\n\nAspirin -X- B-Chem\nhelps -X- O\nhere -X- O\n"
    _run("conll-bio", "brat", tmp_path / "one.conll", tmp_path / "back")
    assert _mentions(tmp_path / "back", "brat") == _mentions(source, "brat")
    assert sorted(p.name for p in (tmp_path / "back").iterdir()) == ["doc7.ann", "doc7.txt"]
    spaced = tmp_path / "spaced"
    spaced.mkdir()
    (spaced / "my doc.txt").write_text("Aspirin helps\n", encoding="utf-8")
    (spaced / "my doc.ann").write_text("T1\tChem 0 7\tAspirin\n", encoding="utf-8")
    said = _run("brat", "conll-bio", spaced, tmp_path / "spaced.conll")
    assert "the document id 'my doc' is left out: a -DOCSTART- line cannot hold it" in said
    assert (tmp_path / "spaced.conll").read_text(encoding="utf-8") == "Aspirin B-Chem\nhelps O\n"


I2B2_LABELS = """<PatientMatching>
<TEXT><![CDATA[Seen 2067-05-03.]]></TEXT>
<TAGS>
<DATE id="P0" start="5" end="15" text="2067-05-03" TYPE="DATE"/>
<ABDOMINAL met="met"/>
<ADVANCED-CAD met="not met"/>
<DIABETES time="before"><DIABETES id="D1" start="0" end="4" text="Seen"/></DIABETES>
<DIABETES time="after"/>
<SMOKER/>
<X a="1" b="2"/>
</TAGS></PatientMatching>
"""


def _labels(path: Path) -> list[tuple[str, str | None]]:
    (document,) = read_corpus(path, "i2b2-xml").documents.values()
    return [(a.name, a.value) for a in document.attributes if a.target == ""]


def test_i2b2_document_labels_are_kept_by_i2b2_and_left_out_of_brat(tmp_path: Path) -> None:
    """2018 track 1 criteria (tags without offsets) are written back as such by i2b2 XML; brat
    has no attribute of a document: they are left out with the warning, and the brat written
    is read back (an A line without its annotation was written, then refused)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n1.xml").write_text(I2B2_LABELS, encoding="utf-8")
    _run("i2b2-xml", "i2b2-xml", notes, tmp_path / "again")
    assert (
        _labels(tmp_path / "again")
        == _labels(notes)
        == [
            ("ABDOMINAL:met", "met"),
            ("ADVANCED-CAD:met", "not met"),
            ("DIABETES:time", "before"),
            ("DIABETES:time", "after"),
            ("SMOKER", None),
            ("X:a", "1"),
            ("X:b", "2"),
        ]
    )
    assert _mentions(tmp_path / "again", "i2b2-xml") == _mentions(notes, "i2b2-xml")
    said = _run("i2b2-xml", "brat", notes, tmp_path / "brat")
    assert "7 attribute(s) left out: brat cannot hold them" in said
    ann = (tmp_path / "brat" / "n1.ann").read_text(encoding="utf-8")
    assert ann == "T1\tDATE 5 15\t2067-05-03\nT2\tDIABETES 0 4\tSeen\nA1\tTYPE T1 DATE\n"
    _run("brat", "i2b2-xml", tmp_path / "brat", tmp_path / "round")
    assert _mentions(tmp_path / "round", "i2b2-xml") == _mentions(notes, "i2b2-xml")
