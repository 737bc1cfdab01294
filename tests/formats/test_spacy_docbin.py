"""spaCy's DocBin reader (:mod:`annoscore.formats.spacy_docbin`), on DocBins that spaCy itself
writes (spaCy is in the test extra; for users it is the optional extra ``annoscore[spacy]``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from annoscore.errors import InputError
from annoscore.formats.annotations import detect_format, read_annotations
from annoscore.formats.spacy_docbin import read_docbin
from annoscore.tasks.spans import SpanOptions, score_spans


def _docbin(path: Path, docs: list[tuple[str | None, str, list[tuple[int, int, str]]]]) -> Path:
    """A DocBin of ``(id, text, entities as character offsets)``, as spaCy writes it."""
    nlp = spacy.blank("en")
    doc_bin = DocBin(store_user_data=True)
    for name, text, entities in docs:
        doc = nlp.make_doc(text)
        spans = [doc.char_span(s, e, label=label) for s, e, label in entities]
        assert None not in spans  # entities on token boundaries
        doc.ents = [span for span in spans if span is not None]
        if name is not None:
            doc.user_data["id"] = name
        doc_bin.add(doc)
    doc_bin.to_disk(path)
    return path


def test_entities_become_mentions_at_their_character_offsets(tmp_path: Path) -> None:
    path = _docbin(
        tmp_path / "corpus.spacy",
        [
            ("d1", "Ann Lee met Bo in Paris.", [(0, 7, "PER"), (12, 14, "PER"), (18, 23, "LOC")]),
            (None, "Nothing here.", []),
            ("d3", "Café au lait", [(0, 4, "FOOD")]),
        ],
    )
    assert detect_format(path) == ("spacy-docbin", "a .spacy file")
    docs = read_docbin(path)
    assert [d.id for d in docs] == ["d1", "2", "d3"]
    assert [(m.span.start, m.span.end, m.type, m.text) for m in docs[0].mentions] == [
        (0, 7, "PER", "Ann Lee"),
        (12, 14, "PER", "Bo"),
        (18, 23, "LOC", "Paris"),
    ]
    assert docs[0].text == "Ann Lee met Bo in Paris."
    assert [(m.span.start, m.span.end, m.text) for m in docs[2].mentions] == [(0, 4, "Café")]
    assert read_annotations(path) == docs


def test_spans_scores_a_docbin_against_spacy_jsonl(tmp_path: Path) -> None:
    import json

    gold = _docbin(tmp_path / "gold.spacy", [("a", "Ann met Bo", [(0, 3, "PER"), (8, 10, "PER")])])
    system = tmp_path / "system.jsonl"
    item = {"id": "a", "text": "Ann met Bo", "ents": [{"start": 0, "end": 3, "label": "PER"}]}
    system.write_text(json.dumps(item) + "\n", encoding="utf-8")
    result = score_spans(gold, system, SpanOptions(system_format="spacy-jsonl"))
    assert result.counts.as_dict() == {"fn": 1, "fp": 0, "tp": 1}


def test_without_spacy_the_error_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _docbin(tmp_path / "corpus.spacy", [("d1", "Ann", [(0, 3, "PER")])])
    monkeypatch.setitem(sys.modules, "spacy.tokens", None)  # import spacy.tokens: ImportError
    with pytest.raises(InputError) as raised:
        read_docbin(path)
    assert "pip install 'annoscore[spacy]'" in str(raised.value)
    assert str(path) in str(raised.value)


def test_bytes_that_are_not_a_docbin_and_ids_given_twice(tmp_path: Path) -> None:
    bad = tmp_path / "bad.spacy"
    bad.write_bytes(b"not zlib at all")
    with pytest.raises(InputError, match="not a spaCy DocBin"):
        read_docbin(bad)
    twice = _docbin(tmp_path / "twice.spacy", [("x", "a", []), ("x", "b", [])])
    with pytest.raises(InputError, match="document 'x' again"):
        read_docbin(twice)


def test_the_command_reads_spacy_only_for_a_docbin(tmp_path: Path) -> None:
    """``annoscore spans`` on brat files never imports spaCy (it is imported when asked)."""
    import subprocess

    from annoscore.samples import SAMPLES

    folder = SAMPLES / "pharmaconer"
    code = (
        "import sys\n"
        "from annoscore.cli import main\n"
        f"sys.argv = ['annoscore', 'spans', {str(folder / 'gold/subtrack1/sample')!r}, "
        f"{str(folder / 'system/subtrack1/sample')!r}, '-o', {str(tmp_path / 'out.txt')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('spacy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().endswith("False"), done.stdout + done.stderr
