"""The span analysis of the tag tasks' pages (``conlleval``, ``seqeval``; align/span_sides.py):
the chunks shown are those the task counts (its correct ones are those both sides hold with one
span and type, on random well-formed tags), the page says its text is made of the tokens (and
where the chunks disagree with the task's correct ones), it loads in Chromium with no error, and
``--jobs 2`` writes the bytes of ``--jobs 1``."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.align.span_sides import NO_TOKENS_NOTE, TEXT_NOTE
from annoscore.cli import app
from annoscore.metrics.conlleval import conlleval_chunks, conlleval_counts
from annoscore.report.html_spans import ERRORS_ID
from annoscore.samples import SAMPLES
from tests.report.browser import open_report
from tests.report.test_html import element, embedded

BIO = SAMPLES / "bio"


def _random_tags(rng: random.Random, n: int, alphabet: list[str]) -> list[str]:
    return [rng.choice(alphabet) for _ in range(n)]


@pytest.mark.parametrize(
    "alphabet",
    [
        ["O", "B-X", "I-X", "B-Y", "I-Y"],
        ["O", "B-X", "I-X", "E-X", "S-X", "B-Y", "I-Y", "E-Y", "S-Y"],
    ],
)
def test_the_chunks_shown_are_those_conlleval_counts(alphabet: list[str]) -> None:
    rng = random.Random(23)
    for _ in range(1500):
        n = rng.randrange(1, 30)
        boundary = [rng.random() < 0.1 for _ in range(n)]
        gold = [
            "O" if b else t for b, t in zip(boundary, _random_tags(rng, n, alphabet), strict=True)
        ]
        guess = [
            "O" if b else t for b, t in zip(boundary, _random_tags(rng, n, alphabet), strict=True)
        ]
        counts = conlleval_counts(gold, guess, boundary, [0])[0][0]
        sides = []
        for tags in (gold, guess):
            first, last, types = conlleval_chunks(tags, boundary)
            sides.append(Counter(zip(first.tolist(), last.tolist(), types, strict=True)))
        both = sides[0] & sides[1]
        for kind in {t for side in sides for _, _, t in side}:
            hits = sum(v for (_, _, t), v in both.items() if t == kind)
            assert counts[f"type:{kind}:tp"] == hits, (gold, guess)
            found = [sum(v for (_, _, t), v in side.items() if t == kind) for side in sides]
            assert counts[f"type:{kind}:fn"] == found[0] - hits
            assert counts[f"type:{kind}:fp"] == found[1] - hits


def _conlleval_page(
    cli: Any, out: Path, *args: Any, stdin: str | None = None, command: str = "conlleval"
) -> str:
    argv = [str(a) for a in (command, *args, "-f", "html", "-o", out)]
    done = cli.runner.invoke(app, argv, input=stdin, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return out.read_text(encoding="utf-8")


def test_the_conlleval_page_analyses_its_chunks(cli: Any, tmp_path: Path) -> None:
    page = _conlleval_page(cli, tmp_path / "two.html", BIO / "gold.conll", BIO / "system.conll")
    expected = cli.json("conlleval", BIO / "gold.conll", BIO / "system.conll", "--per-doc")
    assert embedded(page) == expected  # the JSON of --format json, unchanged
    errors = element(page, ERRORS_ID)
    assert errors["docs"] == ["doc1", "doc2"]
    assert errors["t"][0].startswith("-DOCSTART-\nJohn Smith lives in New York .\n")
    kinds = [k % len(errors["categories"]) for k in errors["gk"]]
    correct = sum(1 for k in kinds if errors["categories"][k] == "correct")
    assert correct == expected["counts"]["tp"]
    assert len(errors["gk"]) == expected["counts"]["tp"] + expected["counts"]["fn"]
    assert len(errors["pk"]) == expected["counts"]["tp"] + expected["counts"]["fp"]
    assert page.count(TEXT_NOTE.replace("'", "&#x27;")) == 2  # the errors and the viewer
    one = _conlleval_page(cli, tmp_path / "one.html", BIO / "tagged.txt")
    text = (BIO / "tagged.txt").read_text(encoding="utf-8")
    piped = _conlleval_page(cli, tmp_path / "piped.html", stdin=text)
    assert element(piped, ERRORS_ID) == element(one, ERRORS_ID)
    assert element(one, ERRORS_ID)["gk"]


def test_chunks_conlleval_does_not_count_as_correct_are_said(cli: Any, tmp_path: Path) -> None:
    """``E`` then ``[`` on both sides: two chunks each, both the same, and one correct chunk
    for conlleval (its running flag): the page says the two disagree."""
    tagged = tmp_path / "odd.txt"
    tagged.write_text("a E E\nb [ [\n", encoding="utf-8")
    page = _conlleval_page(cli, tmp_path / "odd.html", tagged)
    assert "are not conlleval&#x27;s correct ones (1) type by type" in page
    clean = _conlleval_page(cli, tmp_path / "clean.html", BIO / "tagged.txt")
    assert "type by type" not in clean


def test_the_tag_pages_load_in_a_browser(cli: Any, browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "two.html"
    _conlleval_page(cli, out, BIO / "gold.conll", BIO / "system.conll")
    opened = open_report(browser, out)
    try:
        assert opened.errors == []
        shown = opened.page.eval_on_selector("#vtext", "e => e.textContent")
        assert "John Smith lives in New York" in shown
        rows = opened.page.eval_on_selector_all("#errors tbody tr", "rs => rs.length")
        assert rows >= 1
        assert opened.errors == []
    finally:
        opened.page.close()


def _tag_files(folder: Path, seed: int, documents: int = 40) -> tuple[Path, Path]:
    rng = random.Random(seed)
    alphabet = ["O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG"]
    gold, system = [], []
    for _ in range(documents):
        gold.append("-DOCSTART- O")
        system.append("-DOCSTART- O")
        for _ in range(rng.randrange(1, 4)):
            gold.append("")
            system.append("")
            for k in range(rng.randrange(1, 9)):
                gold.append(f"w{k} {rng.choice(alphabet)}")
                system.append(f"w{k} {rng.choice(alphabet)}")
        gold.append("")
        system.append("")
    (folder / "gold.conll").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (folder / "system.conll").write_text("\n".join(system) + "\n", encoding="utf-8")
    return folder / "gold.conll", folder / "system.conll"


@pytest.mark.parametrize("command", [["conlleval"], ["seqeval"], ["seqeval", "--mode", "strict"]])
def test_two_jobs_write_the_page_of_one(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool], command: list[str]
) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    gold, system = _tag_files(tmp_path, 5)
    pages = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.html"
        done = cli(*command, gold, system, "-j", jobs, "-f", "html", "-o", out)
        assert done.exit_code == 0, done.output
        pages[jobs] = out.read_bytes()
    assert exact and all(exact), "the run with -j 2 was not cut: the test tests nothing"
    assert pages[2] == pages[1]
    assert f'id="{ERRORS_ID}"'.encode() in pages[1]


def _agrees(page: str, expected: dict[str, Any]) -> None:
    """The analysis' correct mentions are the task's tp, its gold and predicted mentions the
    task's, with no note of a difference."""
    errors = element(page, ERRORS_ID)
    categories = errors["categories"]
    kinds = [categories[k % len(categories)] for k in errors["gk"]]
    counts = expected["counts"]
    assert kinds.count("correct") == counts["tp"]
    assert len(errors["gk"]) == counts["tp"] + counts["fn"]
    assert len(errors["pk"]) == counts["tp"] + counts["fp"]
    assert "type by type" not in page


IOBES = ["O", "B-X", "I-X", "E-X", "S-X", "B-Y", "I-Y", "E-Y", "S-Y", "I-X"]
IOB = ["O", "O", "B-X", "I-X", "B-Y", "I-Y"]


@pytest.mark.parametrize(
    ("options", "alphabet"),
    [
        ([], IOBES),
        (["--mode", "strict", "--scheme", "iob2"], IOB),
        (["--mode", "strict", "--scheme", "iobes"], IOBES),
    ],
)
def test_the_seqeval_page_analyses_its_entities(
    cli: Any, tmp_path: Path, options: list[str], alphabet: list[str]
) -> None:
    rng = random.Random(7)
    for case in range(6):
        lines = []
        for _ in range(rng.randrange(1, 12)):
            for k in range(rng.randrange(1, 10)):
                lines.append(f"w{k} {rng.choice(alphabet)} {rng.choice(alphabet)}")
            lines.append("")
        tagged = tmp_path / f"t{case}.txt"
        tagged.write_text("\n".join(lines), encoding="utf-8")
        page = _conlleval_page(cli, tmp_path / f"p{case}.html", tagged, *options, command="seqeval")
        expected = cli.json("seqeval", tagged, *options, "--per-doc", "--per-type")
        assert embedded(page) == expected  # the JSON of --format json, unchanged
        _agrees(page, expected)
        assert "w0" in element(page, ERRORS_ID)["t"][0]


def test_seqeval_pages_of_two_files_json_and_stdin(cli: Any, tmp_path: Path) -> None:
    files = (BIO / "gold.conll", BIO / "system.conll")
    page = _conlleval_page(cli, tmp_path / "two.html", *files, command="seqeval")
    _agrees(page, cli.json("seqeval", *files, "--per-doc"))
    assert element(page, ERRORS_ID)["docs"] == ["doc1", "doc2"]
    tags = (BIO / "gold-tags.json", BIO / "pred-tags.json")
    page = _conlleval_page(cli, tmp_path / "json.html", *tags, command="seqeval")
    _agrees(page, cli.json("seqeval", *tags, "--per-doc"))
    assert page.count(NO_TOKENS_NOTE) == 2 and TEXT_NOTE.replace("'", "&#x27;") not in page
    assert element(page, ERRORS_ID)["t"] == [None]
    one = _conlleval_page(cli, tmp_path / "one.html", BIO / "tagged.txt", command="seqeval")
    text = (BIO / "tagged.txt").read_text(encoding="utf-8")
    piped = _conlleval_page(cli, tmp_path / "piped.html", stdin=text, command="seqeval")
    assert element(piped, ERRORS_ID) == element(one, ERRORS_ID)


def test_the_seqeval_pages_load_in_a_browser(cli: Any, browser: Any, tmp_path: Path) -> None:
    for name, files in (
        ("conll", (BIO / "gold.conll", BIO / "system.conll")),
        ("json", (BIO / "gold-tags.json", BIO / "pred-tags.json")),
    ):
        out = tmp_path / f"{name}.html"
        _conlleval_page(cli, out, *files, command="seqeval")
        opened = open_report(browser, out)
        try:
            assert opened.errors == []
            assert opened.page.eval_on_selector_all("#errors tbody tr", "rs => rs.length") >= 1
            shown = opened.page.eval_on_selector("#vtext", "e => e.textContent")
            assert ("John Smith" in shown) == (name == "conll")
            assert opened.errors == []
        finally:
            opened.page.close()


def test_one_file_with_documents_is_read_as_the_task_reads_it(cli: Any, tmp_path: Path) -> None:
    """``-DOCSTART-`` lines of conlleval's layout (``-DOCSTART- -X- O O``): the words are read
    with the tag columns the task reads, so the documents are the task's (read with another
    column, ``O`` would name each document, twice)."""
    lines = []
    for d in range(3):
        lines += ["-DOCSTART- -X- O O", "", f"w{d} NN B-X B-X", "v NN I-X O", ""]
    tagged = tmp_path / "docs.txt"
    tagged.write_text("\n".join(lines), encoding="utf-8")
    expected = cli.json("seqeval", tagged, "--per-doc", "--per-type")
    for name, stdin, args in (("file", None, [tagged]), ("stdin", "\n".join(lines), [])):
        page = _conlleval_page(
            cli, tmp_path / f"{name}.html", *args, stdin=stdin, command="seqeval"
        )
        errors = element(page, ERRORS_ID)
        assert errors["docs"] == list(expected["documents"])
        assert [t.split()[0] for t in errors["t"]] == ["w0", "w1", "w2"]  # no -DOCSTART-
        _agrees(page, expected)


def test_two_jobs_write_the_page_of_one_file(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """One file in conlleval's layout, with ``-DOCSTART-`` documents: cut for both tasks."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    gold, system = _tag_files(tmp_path, 6)
    joined = [
        f"{g} {s.rsplit(' ', 1)[-1]}" if g.strip() else g
        for g, s in zip(
            gold.read_text(encoding="utf-8").split("\n"),
            system.read_text(encoding="utf-8").split("\n"),
            strict=True,
        )
    ]
    tagged = tmp_path / "tagged.txt"
    tagged.write_text("\n".join(joined), encoding="utf-8")
    for command in ("conlleval", "seqeval"):
        pages = {}
        for jobs in (1, 2):
            out = tmp_path / f"{command}{jobs}.html"
            done = cli(command, tagged, "-j", jobs, "-f", "html", "-o", out)
            assert done.exit_code == 0, done.output
            pages[jobs] = out.read_bytes()
        assert exact and all(exact), f"{command} with -j 2 was not cut: the test tests nothing"
        exact.clear()
        assert pages[2] == pages[1]
        assert f'id="{ERRORS_ID}"'.encode() in pages[1]
