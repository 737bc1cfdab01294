"""``annoscore spans`` on every entity format: named (``--gold-format``) or recognised, both
sides in any of them, the same counts as the same mentions in brat; bad input names file and
line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annoscore.cli import app
from annoscore.errors import InputError
from annoscore.tasks.spans import SpanOptions, score_spans

TEXT = "Aspirin eases pain in BRCA1 cells"
# gold: Aspirin/Chemical, pain/Disease, BRCA1/Gene; system: Aspirin/Chemical, pain/Gene,
# BRCA1 cells/Gene -> strict: tp 1, fp 2, fn 2; exact: tp 2.
GOLD = [(0, 7, "Chemical"), (14, 18, "Disease"), (22, 27, "Gene")]
SYSTEM = [(0, 7, "Chemical"), (14, 18, "Gene"), (22, 33, "Gene")]


def _brat(folder: Path, name: str, spans: list[tuple[int, int, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"T{k}\t{t} {s} {e}\t{TEXT[s:e]}" for k, (s, e, t) in enumerate(spans, 1)]
    (folder / f"{name}.txt").write_text(TEXT, encoding="utf-8")
    path = folder / f"{name}.ann"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _bioc_xml(spans: list[tuple[int, int, str]]) -> str:
    notes = "".join(
        f'<annotation id="{k}"><infon key="type">{t}</infon>'
        f'<location offset="{s}" length="{e - s}"/><text>{TEXT[s:e]}</text></annotation>'
        for k, (s, e, t) in enumerate(spans, 1)
    )
    return (
        "<?xml version='1.0' encoding='utf-8'?><collection><source>t</source><date/><key/>"
        f"<document><id>d1</id><passage><offset>0</offset><text>{TEXT}</text>{notes}"
        "</passage></document></collection>"
    )


def _bioc_json(spans: list[tuple[int, int, str]]) -> str:
    notes = [
        {
            "id": str(k),
            "infons": {"type": t},
            "text": TEXT[s:e],
            "locations": [{"offset": s, "length": e - s}],
        }
        for k, (s, e, t) in enumerate(spans, 1)
    ]
    passage = {"offset": 0, "infons": {}, "text": TEXT, "annotations": notes}
    return json.dumps({"source": "t", "documents": [{"id": "d1", "passages": [passage]}]})


def _pubtator(spans: list[tuple[int, int, str]]) -> str:
    lines = [f"d1|t|{TEXT}", "d1|a|"]
    lines += [f"d1\t{s}\t{e}\t{TEXT[s:e]}\t{t}\t-1" for s, e, t in spans]
    return "\n".join(lines) + "\n"


def _i2b2(spans: list[tuple[int, int, str]]) -> str:
    tags = "".join(
        f'<{t} id="P{k}" start="{s}" end="{e}" text="{TEXT[s:e]}" TYPE="{t}"/>'
        for k, (s, e, t) in enumerate(spans)
    )
    return f"<root><TEXT><![CDATA[{TEXT}]]></TEXT><TAGS>{tags}</TAGS></root>"


def _prodigy(spans: list[tuple[int, int, str]]) -> str:
    items = [{"start": s, "end": e, "label": t} for s, e, t in spans]
    return json.dumps({"text": TEXT, "meta": {"id": "d1"}, "spans": items, "answer": "accept"})


def _spacy(spans: list[tuple[int, int, str]]) -> str:
    items = [{"start": s, "end": e, "label": t} for s, e, t in spans]
    return json.dumps({"text": TEXT, "ents": items, "id": "d1"})


def _conll(spans: list[tuple[int, int, str]]) -> str:
    lines, at = [], 0
    for token in TEXT.split(" "):
        start, end = at, at + len(token)
        at = end + 1
        tag = "O"
        for s, e, t in spans:
            if s == start:
                tag = f"B-{t}"
            elif s < start and end <= e:
                tag = f"I-{t}"
        lines.append(f"{token} {tag}")
    return "\n".join(lines) + "\n"


WRITERS = {
    "bioc-xml": (_bioc_xml, "c.xml"),
    "bioc-json": (_bioc_json, "c.json"),
    "pubtator": (_pubtator, "p.txt"),
    "i2b2-xml": (_i2b2, "d1.xml"),  # its document id is the file name
    "prodigy-jsonl": (_prodigy, "p.jsonl"),
    "spacy-jsonl": (_spacy, "s.jsonl"),
    "conll-bio": (_conll, "t.conll"),
}


def _write(folder: Path, form: str, spans: list[tuple[int, int, str]]) -> Path:
    writer, name = WRITERS[form]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(writer(spans), encoding="utf-8")
    return path


@pytest.mark.parametrize("form", sorted(WRITERS))
def test_each_format_scores_as_its_mentions_do_in_brat(tmp_path: Path, form: str) -> None:
    gold = _write(tmp_path / "gold", form, GOLD)
    system = _write(tmp_path / "system", form, SYSTEM)
    brat = score_spans(_brat(tmp_path / "bg", "d1", GOLD), _brat(tmp_path / "bs", "d1", SYSTEM))
    assert brat.counts.as_dict() == {"tp": 1, "fp": 2, "fn": 2}
    for named in (None, form):
        options = SpanOptions(gold_format=named, system_format=named)
        result = score_spans(gold, system, options)
        assert result.counts.as_dict() == brat.counts.as_dict()
        recognised = [str(w) for w in result.warnings if "read as" in str(w)]
        assert len(recognised) == (2 if named is None else 0)
        assert all(f"read as {form}" in w for w in recognised)
    exact = score_spans(gold, system, SpanOptions(mode="exact"))
    assert exact.counts.as_dict() == {"tp": 2, "fp": 1, "fn": 1}


@pytest.mark.parametrize("form", sorted(WRITERS))
def test_either_side_may_be_brat_or_another_format(tmp_path: Path, form: str) -> None:
    gold = _brat(tmp_path / "gold", "d1", GOLD)
    system = _write(tmp_path / "system", form, SYSTEM)
    assert score_spans(gold, system).counts.as_dict() == {"tp": 1, "fp": 2, "fn": 2}
    if form != "conll-bio":  # a CoNLL file's document is named after the file, not d1
        folder = score_spans(gold.parent, system, SpanOptions(system_format=form))
        assert folder.counts.as_dict() == {"tp": 1, "fp": 2, "fn": 2}


def test_a_format_named_wrongly_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    system = _write(tmp_path, "conll-bio", SYSTEM)
    gold = _write(tmp_path, "pubtator", GOLD)
    with pytest.raises(InputError) as error:
        score_spans(gold, system, SpanOptions(system_format="pubtator"))
    assert str(error.value).startswith(f"{system}:1: ")
    with pytest.raises(InputError, match="not valid JSON") as error:
        score_spans(gold, system, SpanOptions(system_format="nlpsandbox-json"))
    assert str(error.value).startswith(f"{system}:1: ")


def test_bad_input_in_each_format_exits_2_naming_the_place(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g", "pubtator", GOLD)
    bad = {
        "p.txt": (_pubtator(SYSTEM).replace("\t14\t18\t", "\t14\t99\t"), ":4: offsets 14-99"),
        "s.jsonl": (_spacy(SYSTEM) + "\n{oops\n", ":2: not JSON"),
        "t.conll": ("John B-PER\nSmith I-PER I-PER\n", ":2: "),
        "c.xml": (_bioc_xml(SYSTEM).replace('length="4"', 'length="400"'), "past its passage"),
    }
    runner = CliRunner()
    for name, (text, where) in bad.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        run = runner.invoke(app, ["spans", str(gold), str(path)])
        assert run.exit_code == 2, (name, run.output)
        assert str(path) in run.output and where in run.output, (name, run.output)


def test_the_command_line_takes_the_format_flags(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g", "bioc-json", GOLD)
    system = _write(tmp_path / "s", "prodigy-jsonl", SYSTEM)
    runner = CliRunner()
    run = runner.invoke(
        app,
        [
            "spans",
            str(gold),
            str(system),
            "--gold-format",
            "bioc-json",
            "--system-format",
            "prodigy-jsonl",
            "--format",
            "json",
        ],
    )
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["counts"] == {"tp": 1, "fp": 2, "fn": 2}
    wrong = runner.invoke(app, ["spans", str(gold), str(system), "--gold-format", "x"])
    assert wrong.exit_code == 2


# --- texts that differ between the sides (spans.text-differs) ---------------------------------

# three documents as a CoNLL BIO file rebuilds them (tokens joined by one space, a line end
# between sentences), and as their .txt files hold them
REBUILT = {
    "d1": "John Smith lives\nin Paris .",
    "d2": "Aspirin works well",
    "d3": "BRCA1 is a gene",
}
TAGS = {
    "d1": ["B-PER", "I-PER", "O", None, "O", "B-LOC", "O"],
    "d2": ["B-Chemical", "O", "O"],
    "d3": ["B-Gene", "O", "O", "O"],
}


def _tagged_conll(path: Path) -> Path:
    """The documents of :data:`REBUILT` as one CoNLL BIO file (``None``: a sentence break)."""
    lines = []
    for doc, text in REBUILT.items():
        lines += [f"-DOCSTART- {doc} O", ""]
        tokens = iter(text.split())
        for tag in TAGS[doc]:
            lines.append("" if tag is None else f"{next(tokens)} X {tag}")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _brat_folder(folder: Path, texts: dict[str, str]) -> Path:
    """The gold mentions of :data:`REBUILT` as brat files with the given .txt texts (each
    mention's offsets found in its own .txt)."""
    folder.mkdir(parents=True, exist_ok=True)
    mentions = {"d1": [("John", "PER"), ("Paris", "LOC")], "d2": [("Aspirin", "Chemical")],
                "d3": [("BRCA1", "Gene")]}  # fmt: skip
    for doc, text in texts.items():
        lines = []
        for k, (word, kind) in enumerate(mentions[doc], 1):
            start = text.index(word)
            end = text.index("Smith") + 5 if word == "John" else start + len(word)
            lines.append(f"T{k}\t{kind} {start} {end}\t{text[start:end]}")
        (folder / f"{doc}.txt").write_text(text, encoding="utf-8")
        (folder / f"{doc}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _differs(result: object) -> list[object]:
    return [w for w in result.warnings if getattr(w, "code", None) == "spans.text-differs"]  # type: ignore[attr-defined]


def test_a_text_that_differs_in_whitespace_from_the_txt_is_named(tmp_path: Path) -> None:
    """The audit's case: a brat folder whose .txt files put two spaces (or a line end and an
    indent) where the CoNLL file's rebuilt text has one space.  Every later offset is shifted,
    so the mentions after it match nothing: the counts are those of the offsets as given, and
    a warning names each such document and both files."""
    texts = {
        "d1": "John  Smith lives\nin Paris .\n",  # two spaces: every later offset moves
        "d2": "Aspirin works well\n",  # a line end more: the same offsets
        "d3": "BRCA1\n  is a gene\n",  # a line end and an indent after the mention
    }
    gold = _brat_folder(tmp_path / "gold", texts)
    system = _tagged_conll(tmp_path / "system.conll")
    options = SpanOptions(system_format="conll-bio")
    result = score_spans(gold, system, options)
    # d1: John Smith (0-11 in the .txt, 0-10 rebuilt) and Paris moved: 2 fn, 2 fp
    assert result.counts.as_dict() == {"tp": 2, "fp": 2, "fn": 2}
    (warning,) = _differs(result)
    assert warning.count == 2  # type: ignore[attr-defined]
    assert warning.examples == (  # type: ignore[attr-defined]
        "document d1, offset 5: gold d1.txt ' Smith lives', system system.conll 'Smith lives\\n'",
        "document d3, offset 6: gold d3.txt '  is a gene\\n', system system.conll 'is a gene'",
    )
    assert not warning.tolerated  # type: ignore[attr-defined]
    # the gold side as the CoNLL file, the other way round: named alike, the number unchanged
    swapped = score_spans(system, gold, SpanOptions(gold_format="conll-bio"))
    assert swapped.counts.as_dict() == {"tp": 2, "fp": 2, "fn": 2}
    assert [w.examples[0][:22] for w in _differs(swapped)] == ["document d1, offset 5:"]  # type: ignore[attr-defined]
    runner = CliRunner()
    for strict in ([], ["--strict-input"]):  # data, not tolerated input: as brat.text-mismatch
        run = runner.invoke(
            app, ["spans", str(gold), str(system), "--system-format", "conll-bio", *strict]
        )
        assert run.exit_code == 0, run.output
        assert "2 paired document(s) carry a different text on each side" in run.stderr


def test_texts_that_agree_offset_by_offset_give_no_warning(tmp_path: Path) -> None:
    """A .txt that breaks lines where the rebuilt text has a space, or ends with a line end,
    points every offset at the same characters: no warning, and every mention matches; nor
    does a side without a text (a brat .ann without its .txt) warn."""
    texts = {doc: "\n".join(text.rsplit(" ", 1)) + "\n" for doc, text in REBUILT.items()}
    gold = _brat_folder(tmp_path / "gold", texts)
    system = _tagged_conll(tmp_path / "system.conll")
    result = score_spans(gold, system, SpanOptions(system_format="conll-bio"))
    assert result.counts.as_dict() == {"tp": 4, "fp": 0, "fn": 0}
    assert _differs(result) == []
    same = score_spans(gold, _brat_folder(tmp_path / "copy", texts))  # identical .txt files
    assert same.counts.as_dict() == {"tp": 4, "fp": 0, "fn": 0} and same.warnings == ()
    untexted = _brat_folder(tmp_path / "untexted", {"d1": "John  Smith lives in Paris ."})
    (untexted / "d1.txt").unlink()
    assert _differs(score_spans(untexted, system, SpanOptions(system_format="conll-bio"))) == []
    for mode in ("token", "concepts"):  # every mode compares the texts alike
        options = SpanOptions(system_format="conll-bio", mode=mode)  # type: ignore[arg-type]
        assert _differs(score_spans(gold, system, options)) == []


@pytest.mark.parametrize("mode", ["strict", "concepts"])
def test_a_format_with_its_own_text_is_compared_too(tmp_path: Path, mode: str) -> None:
    """JSON Lines (and BioC, PubTator) carry the document text: a JSONL text with two spaces
    where the .txt has one is named; the PubTator text (title, a space, an empty abstract)
    agrees with the .txt."""
    gold = _brat(tmp_path / "gold", "d1", GOLD).parent
    doubled = _prodigy(SYSTEM).replace("Aspirin eases", "Aspirin  eases")
    (tmp_path / "p.jsonl").write_text(doubled, encoding="utf-8")
    options = SpanOptions(system_format="prodigy-jsonl", mode=mode)  # type: ignore[arg-type]
    (warning,) = _differs(score_spans(gold, tmp_path / "p.jsonl", options))
    assert warning.examples == (  # type: ignore[attr-defined]
        "document d1, offset 8: gold d1.txt 'eases pain i', system p.jsonl:1 ' eases pain '",
    )
    pubtator = _write(tmp_path / "s", "pubtator", SYSTEM)
    options = SpanOptions(system_format="pubtator", mode=mode)  # type: ignore[arg-type]
    assert _differs(score_spans(gold, pubtator, options)) == []
