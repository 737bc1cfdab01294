"""NLP Sandbox annotation files as documents (``nlpsandbox-json``): read by ``spans`` and
``convert``, written by ``convert``; round trips keep every annotation, what a format cannot
hold is an error or a warning, never a silent loss."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annoscore.cli import app
from annoscore.errors import InputError
from annoscore.formats.annotations import read_annotations, read_corpus
from annoscore.formats.nlpsandbox import CATEGORIES, read_sandbox_documents
from annoscore.formats.writers import write_annotations, write_warnings
from annoscore.model import AnnotatedDocument, Attribute, Mention, Span
from annoscore.samples import SAMPLES
from annoscore.tasks.spans import SpanOptions, score_spans

GOLD = SAMPLES / "nlpsandbox/gold.json"
PRED = SAMPLES / "nlpsandbox/pred.json"

TYPE_VALUES = ["city", "MM/DD/YYYY", "", "two words", None, "ABSENT"]
"""Type values a random item gets (``ABSENT``: no type field)."""


def _random_file(rnd: random.Random, path: Path) -> list[dict[str, object]]:
    """A random annotation file: notes named as paths or bare, several objects of one note,
    overlapping and duplicate annotations, astral and multi-byte texts, every type value."""
    objects = []
    for k in range(rnd.randint(0, 6)):
        note = rnd.choice(["n1", "a/n1", f"notes/n{k}", "ü/é"])
        item: dict[str, object] = {"annotationSource": {"resourceSource": {"name": note}}}
        for category in CATEGORIES.values():
            if rnd.random() < 0.2:
                continue  # a missing array is read as empty
            rows = []
            for _ in range(rnd.randint(0, 4)):
                text = "".join(rnd.choice("ab é😀 ") for _ in range(rnd.randint(0, 5)))
                row: dict[str, object] = {
                    "start": rnd.randint(0, 30),
                    "length": len(text),
                    "text": text,
                    "confidence": 50,
                }
                value = rnd.choice(TYPE_VALUES)
                if value != "ABSENT":
                    row[category.type_fields[0]] = value
                rows.append(row)
            item[rnd.choice(category.arrays)] = rows
        objects.append(item)
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    return objects


def _expected(objects: list[dict[str, object]]) -> dict[str, list[tuple[object, ...]]]:
    """Each note's annotations as (category, start, end, text, type value), categories in
    order, each in file order: from the JSON, written from the format's definition."""
    notes: dict[str, dict[str, list[tuple[object, ...]]]] = {}
    for item in objects:
        name = item["annotationSource"]["resourceSource"]["name"]  # type: ignore[index]
        note = notes.setdefault(name.rsplit("/", 1)[-1], {c: [] for c in CATEGORIES})
        for category in CATEGORIES.values():
            for array in category.arrays:
                for row in item.get(array, []):  # type: ignore[attr-defined]
                    field = next((f for f in category.type_fields if f in row), None)
                    value = row[field] if field else "ABSENT"
                    start, length = row["start"], row["length"]
                    note[category.name].append(
                        (category.name, start, start + length, row["text"], value)
                    )
    return {n: [a for c in CATEGORIES for a in rows[c]] for n, rows in notes.items()}


def _read(documents: list[AnnotatedDocument]) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    for d in documents:
        types = {a.target: a.value for a in d.attributes if a.name == "TYPE"}
        out[d.id] = [
            (m.type, m.span.start, m.span.end, m.text, types.get(m.id, "ABSENT"))
            for m in d.mentions
        ]
    return out


def test_the_sample_reads_as_documents_of_typed_mentions() -> None:
    [first, second] = read_sandbox_documents(GOLD)
    assert first.id == "note-001" and first.text is None
    assert Counter(m.type for m in first.mentions) == {
        "date": 2,
        "person": 2,
        "location": 3,
        "id": 1,
        "contact": 1,
    }
    assert ("T2", "") in [(a.target, a.value) for a in first.attributes]  # dateFormat ""
    assert Attribute("A3", "TYPE", "T5", "city") in first.attributes
    assert second.id == "note-002"


def test_random_files_read_and_written_back_keep_every_annotation(tmp_path: Path) -> None:
    rnd = random.Random(2611)
    for case in range(300):
        path = tmp_path / f"{case}.json"
        objects = _random_file(rnd, path)
        documents = read_annotations(path, "nlpsandbox-json")
        assert _read(documents) == _expected(objects), case
        [(name, text)] = write_annotations(documents, "nlpsandbox-json")
        assert name == ""
        again = tmp_path / f"{case}.again.json"
        again.write_text(text, encoding="utf-8")
        assert _read(read_annotations(again, "nlpsandbox-json")) == _expected(objects), case
        # through brat: every mention kept; the type values brat cannot hold are warned about
        dropped = sum(
            1
            for d in documents
            for a in d.attributes
            if a.value == "" or (a.value is not None and len(a.value.split()) != 1)
        )
        warned = [w for w in write_warnings(documents, "brat") if "attribute(s) left out" in w]
        assert [int(w.split()[0]) for w in warned] == ([dropped] if dropped else []), case


def test_a_length_that_is_not_the_texts_is_a_warning_naming_note_and_place(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.json"
    path.write_text(
        json.dumps(
            [
                {
                    "annotationSource": {"resourceSource": {"name": "x/n9"}},
                    "textDateAnnotations": [{"start": 4, "length": 3, "text": "May 2"}],
                }
            ]
        ),
        encoding="utf-8",
    )
    [document] = read_annotations(path, "nlpsandbox-json")
    assert document.mentions[0].span == Span.of(4, 7)
    assert document.warnings == (
        f"{path}: note 'n9': date 'May 2' at 4 has length 3, not its text's 5 "
        "(the span is start + length)",
    )
    result = score_spans(path, path, SpanOptions(gold_format="nlpsandbox-json"))
    assert any("has length 3" in str(w) for w in result.warnings)


def test_spans_scores_nlpsandbox_files_as_a_plain_count_does() -> None:
    result = score_spans(GOLD, PRED, SpanOptions())
    gold = Counter(
        (d.id, m.type, m.span.start, m.span.end)
        for d in read_sandbox_documents(GOLD)
        for m in d.mentions
    )
    pred = Counter(
        (d.id, m.type, m.span.start, m.span.end)
        for d in read_sandbox_documents(PRED)
        for m in d.mentions
    )
    tp = sum((gold & pred).values())
    assert result.counts.as_dict() == {
        "tp": tp,
        "fp": sum(pred.values()) - tp,
        "fn": sum(gold.values()) - tp,
    }
    assert "read as nlpsandbox-json (recognised from a JSON list)" in str(result.warnings[0])
    with pytest.raises(InputError, match="token mode needs the document text"):
        score_spans(GOLD, PRED, SpanOptions(mode="token"))


def _cli(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["convert", *map(str, args)])
    return result.exit_code, result.output


def test_convert_to_brat_and_back_keeps_every_annotation(tmp_path: Path) -> None:
    code, output = _cli("nlpsandbox-json", "brat", GOLD, tmp_path / "b")
    assert code == 0, output
    assert "1 attribute(s) left out: brat cannot hold them (e.g. TYPE='' of T2" in output
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["note-001.ann", "note-002.ann"]
    assert "A2\tTYPE T5 city\n" in (tmp_path / "b/note-001.ann").read_text(encoding="utf-8")
    code, output = _cli("brat", "nlpsandbox-json", tmp_path / "b", tmp_path / "back.json")
    assert code == 0, output
    before, after = (
        _read(read_sandbox_documents(GOLD)),
        _read(read_sandbox_documents(tmp_path / "back.json")),
    )
    lost = {("note-001", 1)}  # the date of note-001 whose dateFormat is "" (brat cannot hold it)
    for note, rows in before.items():
        for k, row in enumerate(rows):
            expected = (*row[:4], "ABSENT") if (note, k) in lost else row
            assert after[note][k] == expected
    written = json.loads((tmp_path / "back.json").read_text(encoding="utf-8"))
    assert set(written[0]) == {"annotationSource", *(c.arrays[0] for c in CATEGORIES.values())}
    assert written[0]["textDateAnnotations"][0]["confidence"] == 100.0


def test_what_nlpsandbox_json_cannot_hold_is_an_error_or_a_warning(tmp_path: Path) -> None:
    code, output = _cli("nlpsandbox-json", "pubtator", GOLD, tmp_path / "p.txt")
    assert code == 2 and "document 'note-001' has no text" in output
    assert not (tmp_path / "p.txt").exists()
    typed = AnnotatedDocument("d", (Mention(Span.of(0, 3), "Drug", "T1", "abc"),), "abc")
    with pytest.raises(InputError, match="type 'Drug' is not an NLP Sandbox category"):
        write_annotations([typed], "nlpsandbox-json")
    split = AnnotatedDocument("d", (Mention(Span(((0, 1), (2, 3))), "date", "T1", "a c"),), "abc")
    with pytest.raises(InputError, match="cannot hold a discontinuous mention"):
        write_annotations([split], "nlpsandbox-json")
    dated = AnnotatedDocument("d", (Mention(Span.of(0, 3), "date", "T1", "abc"),), "abc")
    assert write_warnings([dated], "nlpsandbox-json") == [
        "the text of 1 document(s) left out: an NLP Sandbox annotation file holds none (the "
        "notes are a file of their own)"
    ]


def test_brat_attributes_are_written_or_named_in_a_warning(tmp_path: Path) -> None:
    document = AnnotatedDocument(
        "d",
        (Mention(Span.of(0, 3), "location", "T1", "abc"),),
        "abc",
        attributes=(
            Attribute("A1", "TYPE", "T1", "city"),
            Attribute("A2", "Negated", "T1"),
            Attribute("A3", "Note", "T1", "two words"),
        ),
    )
    files = dict(write_annotations([document], "brat"))
    assert files["d.ann"].splitlines()[1:] == ["A1\tTYPE T1 city", "A2\tNegated T1"]
    assert write_warnings([document], "brat") == [
        "1 attribute(s) left out: brat cannot hold them (e.g. Note='two words' of T1 in "
        "document 'd')"
    ]
    assert write_warnings([document], "pubtator")[0].startswith("3 attribute(s) left out")
    (tmp_path / "d.txt").write_text("abc", encoding="utf-8")
    (tmp_path / "d.ann").write_text(files["d.ann"], encoding="utf-8")
    [back] = read_corpus(tmp_path, "brat").documents.values()
    assert back.attributes == document.attributes[:2]
