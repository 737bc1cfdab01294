"""Every entity format by name or recognised, and BIO tags as spans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.annotations import bio_documents, detect_format, read_annotations
from annoscore.samples import SAMPLES


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_each_format_is_recognised_and_read(tmp_path: Path) -> None:
    bioc = _write(
        tmp_path,
        "c.xml",
        "<collection><document><id>d</id><passage><offset>0</offset><text>Ab cd</text>"
        '<annotation id="1"><infon key="type">X</infon><location offset="0" length="2"/>'
        "<text>Ab</text></annotation></passage></document></collection>",
    )
    pubtator = _write(tmp_path, "p.txt", "7|t|Ab cd\n7|a|ef\n7\t0\t2\tAb\tX\t-1\n")
    i2b2 = _write(
        tmp_path,
        "n.xml",
        '<root><TEXT>Ab cd</TEXT><TAGS><X id="P0" start="0" end="2"/></TAGS></root>',
    )
    prodigy = _write(
        tmp_path,
        "p.jsonl",
        json.dumps({"text": "Ab cd", "spans": [{"start": 0, "end": 2, "label": "X"}]}),
    )
    spacy = _write(
        tmp_path,
        "s.jsonl",
        json.dumps({"text": "Ab cd", "ents": [{"start": 0, "end": 2, "label": "X"}]}),
    )
    bio = _write(tmp_path, "t.conll", "Ab B-X\ncd O\n")
    expected = {
        bioc: "bioc-xml",
        pubtator: "pubtator",
        i2b2: "i2b2-xml",
        prodigy: "prodigy-jsonl",
        spacy: "spacy-jsonl",
        bio: "conll-bio",
    }
    for path, form in expected.items():
        assert detect_format(path)[0] == form
        documents = read_annotations(path)
        assert [(m.span.start, m.span.end, m.type) for m in documents[0].mentions] == [(0, 2, "X")]
        assert documents[0].text is not None and documents[0].text.startswith("Ab")
    brat = SAMPLES / "pharmaconer/gold/subtrack1/sample"
    assert detect_format(brat)[0] == "brat" and read_annotations(brat)
    with pytest.raises(InputError, match="unknown format 'x'"):
        read_annotations(bio, "x")


def test_bio_tags_become_character_spans_per_document() -> None:
    documents = bio_documents(SAMPLES / "bio/gold.conll")
    assert [d.id for d in documents] == ["doc1", "doc2"]
    first = documents[0]
    assert first.text is not None
    for mention in first.mentions:
        assert first.text[mention.span.start : mention.span.end] == mention.text
    assert [(m.type, m.text) for m in first.mentions] == [
        ("PER", "John Smith"),
        ("LOC", "New York"),
        ("ORG", "Acme Corp"),
    ]
