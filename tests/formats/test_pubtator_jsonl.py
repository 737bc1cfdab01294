"""PubTator and JSONL readers: cross-checked with ``bioc.pubtator`` (test extra) on random
documents, and their errors and warnings."""

from __future__ import annotations

import json
import random

import pytest

from annoscore.errors import InputError
from annoscore.formats.jsonl import read_jsonl_text
from annoscore.formats.pubtator import read_pubtator_text

bioc_pubtator = pytest.importorskip("bioc.pubtator")

WORDS = ["aspirin", "pain", "héparine", "BRCA1", "tumour", "of", "the", "γ-globulin", "cells"]


def _random_pubtator(rng: random.Random, documents: int) -> str:
    out = []
    for d in range(documents):
        pmid = str(1000 + d)
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        abstract = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 20)))
        text = title + " " + abstract
        lines = [f"{pmid}|t|{title}", f"{pmid}|a|{abstract}"]
        for _ in range(rng.randint(0, 6)):
            start = rng.randint(0, len(text) - 1)
            end = rng.randint(start + 1, len(text))
            kind = rng.choice(["Chemical", "Disease", "Gene"])
            concept = rng.choice(["D001241", "D003920|D001241", "MESH:D0000", "C" + str(d)])
            lines.append(f"{pmid}\t{start}\t{end}\t{text[start:end]}\t{kind}\t{concept}")
        if rng.random() < 0.5:
            lines.append(f"{pmid}\tCID\tD001241\tD003920")
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def test_pubtator_reads_as_bioc_pubtator_does() -> None:
    rng = random.Random(3)
    for _ in range(30):
        text = _random_pubtator(rng, rng.randint(1, 5))
        ours = read_pubtator_text(text, "x")
        theirs = bioc_pubtator.loads(text)
        assert [d.id for d in ours] == [d.pmid for d in theirs]
        for mine, peer in zip(ours, theirs, strict=True):
            ids = {n.target: n.reference for n in mine.normalizations}
            assert [
                (m.span.start, m.span.end, m.text, m.type, ids.get(m.id, "")) for m in mine.mentions
            ] == [(a.start, a.end, a.text, a.type, a.id) for a in peer.annotations]
            assert [(r.type, r.arguments[0][1], r.arguments[1][1]) for r in mine.relations] == [
                (r.type, r.id1, r.id2) for r in peer.relations
            ]
            assert not mine.warnings
            body = mine.text or ""
            assert all(body[m.span.start : m.span.end] == m.text for m in mine.mentions)


def test_pubtator_keeps_an_empty_last_column_as_an_annotation() -> None:
    docs = read_pubtator_text("7|t|Ab cd\n7|a|\n7\t0\t2\tAb\tGene\t\n", "x")
    assert [m.type for m in docs[0].mentions] == ["Gene"]
    assert not docs[0].normalizations  # an empty id, like -1, is no id
    assert not docs[0].relations


def test_pubtator_checks_mention_texts_and_offsets() -> None:
    docs = read_pubtator_text("7|t|Ab cd\n7|a|ef\n7\t0\t2\tXY\tGene\t-1\n", "p.txt")
    assert docs[0].warnings == ("p.txt:3: mention 'XY' where the text has 'Ab'",)
    with pytest.raises(InputError, match=r"p\.txt:3: offsets 0-99 outside the text"):
        read_pubtator_text("7|t|Ab cd\n7|a|ef\n7\t0\t99\tXY\tGene\t-1\n", "p.txt")
    with pytest.raises(InputError, match=r"p\.txt:3: offset 'a' is not a whole number"):
        read_pubtator_text("7|t|Ab cd\n7|a|ef\n7\ta\t2\tAb\tGene\n", "p.txt")
    with pytest.raises(InputError, match=r"p\.txt:3: document id '8' inside the block of '7'"):
        read_pubtator_text("7|t|Ab cd\n7|a|ef\n8\t0\t2\tAb\tGene\n", "p.txt")
    with pytest.raises(InputError, match=r"p\.txt:3: 3 tab-separated fields"):
        read_pubtator_text("7|t|Ab cd\n7|a|ef\n7\t0\t2\n", "p.txt")
    with pytest.raises(InputError, match="document '7' again"):
        read_pubtator_text("7|t|Ab\n7|a|x\n\n7|t|Ab\n7|a|x\n", "p.txt")


def _line(**item: object) -> str:
    return json.dumps(item) + "\n"


def test_prodigy_keeps_accepted_answers_and_annotators() -> None:
    text = _line(
        text="Ann met Bo",
        spans=[{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"}],
        answer="accept",
        _input_hash=42,
        _annotator_id="news-alice",
    ) + _line(text="Ann met Bo", spans=[], answer="reject", _input_hash=42)
    corpus = read_jsonl_text(text, "p.jsonl", "prodigy-jsonl")
    assert [d.id for d in corpus.documents] == ["42"] and corpus.skipped == 1
    assert corpus.annotators == {"42": "news-alice"}
    assert [m.text for m in corpus.documents[0].mentions] == ["Ann", "Bo"]
    with pytest.raises(InputError, match=r"p\.jsonl:2: document '42' again"):
        read_jsonl_text(text, "p.jsonl", "prodigy-jsonl", answers=("accept", "reject"))


def test_spacy_jsonl_ents_and_errors() -> None:
    corpus = read_jsonl_text(
        _line(text="Paris is big", ents=[{"start": 0, "end": 5, "label": "GPE"}]),
        "s",
        "spacy-jsonl",
    )
    assert corpus.documents[0].id == "1" and corpus.documents[0].mentions[0].type == "GPE"
    with pytest.raises(InputError, match='s:1: "ents"\\[0\\]: offsets 0-50 outside the text'):
        read_jsonl_text(
            _line(text="Paris", ents=[{"start": 0, "end": 50, "label": "X"}]), "s", "spacy-jsonl"
        )
    with pytest.raises(InputError, match="s:2: not JSON"):
        read_jsonl_text(_line(text="a") + "{oops\n", "s", "spacy-jsonl")
    warned = read_jsonl_text(
        _line(text="Paris", spans=[{"start": 0, "end": 5, "label": "X", "text": "Lyon"}]),
        "p",
        "prodigy-jsonl",
    )
    assert warned.documents[0].warnings == (
        "p:1: \"spans\"[0] text 'Lyon' where the text has 'Paris'",
    )
