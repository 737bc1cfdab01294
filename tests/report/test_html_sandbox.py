"""The span analysis of ``annoscore nlpsandbox CATEGORY --format html`` (cli/nlpsandbox.py): the
annotations of the category (every category for ``all``) by exact span, the notes' texts where
``--notes`` gives them, the page saying what it compares and lacks, and where its correct
annotations are not instance_strict's; in Chromium with no error; ``-j 2`` writes the bytes of
``-j 1``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.report.html_spans import ERRORS_ID
from annoscore.samples import SAMPLES
from tests.report.browser import open_report
from tests.report.test_html import element, embedded

SANDBOX = SAMPLES / "nlpsandbox"
SAMPLE = ("--gold", SANDBOX / "gold.json", "--pred", SANDBOX / "pred.json")


def _errors(page: str) -> Any:
    return element(page, ERRORS_ID)


def _page(cli: Any, out: Path, category: str, *args: Any) -> str:
    done = cli("nlpsandbox", category, *args, "-f", "html", "-o", out)
    assert done.exit_code == 0, done.output
    return out.read_text(encoding="utf-8")


def _correct(errors: Any) -> dict[str, int]:
    categories, names = errors["categories"], errors["typenames"]
    found: dict[str, int] = {}
    for k in errors["gk"]:
        if categories[k % len(categories)] == "correct":
            name = names[k // len(categories)]
            found[name] = found.get(name, 0) + 1
    return found


@pytest.mark.parametrize("category", ["date", "location", "all"])
def test_the_page_analyses_the_annotations(cli: Any, tmp_path: Path, category: str) -> None:
    page = _page(cli, tmp_path / "p.html", category, *SAMPLE)
    expected = cli.json("nlpsandbox", category, *SAMPLE, "--per-doc")
    assert embedded(page) == expected  # the JSON of --format json, unchanged
    errors = _errors(page)
    counts = expected["counts"]
    if category == "all":
        assert set(errors["typenames"]) == set(expected["categories"])
        for name, n in _correct(errors).items():
            assert n == counts[name.replace("-", "_") + "_instance_strict_tp"]
    else:
        assert errors["typenames"] == [category]
        assert _correct(errors).get(category, 0) == counts["instance_strict_tp"]
        assert len(errors["gk"]) == counts["instance_strict_tp"] + counts["instance_strict_fn"]
    assert "No note texts (give --notes)" in page and "instance_strict counts" not in page
    assert errors["t"] == [None] * len(errors["docs"])


def _note(tmp_path: Path, gold: list[Any], pred: list[Any], text: str) -> tuple[Any, ...]:
    def objects(items: list[Any]) -> list[Any]:
        return [{"annotationSource": {"resourceSource": {"name": "notes/n1"}}, **items[0]}]

    (tmp_path / "gold.json").write_text(json.dumps(objects(gold)), encoding="utf-8")
    (tmp_path / "pred.json").write_text(json.dumps(objects(pred)), encoding="utf-8")
    notes = [{"identifier": "n1", "text": text}]
    (tmp_path / "notes.json").write_text(json.dumps(notes), encoding="utf-8")
    return ("--gold", tmp_path / "gold.json", "--pred", tmp_path / "pred.json")


TEXT = "Seen on 03/14/2019 by Dr. Chen <script>x</script> in Boston."


def _item(text: str, **extra: Any) -> dict[str, Any]:
    start = TEXT.index(text)
    return {"start": start, "length": len(text), "text": text, **extra}


def test_the_notes_give_the_texts(cli: Any, tmp_path: Path) -> None:
    gold = [
        {
            "textDateAnnotations": [_item("03/14/2019")],
            "textPersonNameAnnotations": [_item("Dr. Chen")],
        }
    ]
    pred = [{"textDateAnnotations": [_item("03/14/2019")], "textLocationAnnotations": []}]
    args = _note(tmp_path, gold, pred, TEXT)
    page = _page(cli, tmp_path / "p.html", "all", *args, "--notes", tmp_path / "notes.json")
    errors = _errors(page)
    assert errors["t"] == [TEXT] and "No note texts" not in page
    assert "<script>x</script>" not in page  # the text is escaped in the embedded data
    assert _correct(errors) == {"date": 1}


def test_several_annotations_at_one_start_are_said(cli: Any, tmp_path: Path) -> None:
    """Two dates at one start on both sides: both correct by span, one for instance_strict
    (it keeps the last annotation at a start)."""
    dates = [_item("03/14/2019"), _item("03/14")]
    args = _note(tmp_path, [{"textDateAnnotations": dates}], [{"textDateAnnotations": dates}], TEXT)
    page = _page(cli, tmp_path / "p.html", "date", *args)
    assert "Here 2 date annotations are correct by span, where instance_strict counts 1" in page


def test_the_pages_load_in_a_browser(cli: Any, browser: Any, tmp_path: Path) -> None:
    for category in ("date", "all"):
        out = tmp_path / f"{category}.html"
        _page(cli, out, category, *SAMPLE)
        opened = open_report(browser, out)
        try:
            assert opened.errors == []
            assert opened.page.eval_on_selector_all("#errors tbody tr", "rs => rs.length") >= 1
            assert opened.page.eval_on_selector("#vpos", "e => e.textContent")
            assert opened.errors == []
        finally:
            opened.page.close()


def _corpus(folder: Path, seed: int, notes: int = 40) -> tuple[Any, ...]:
    rng = random.Random(seed)
    sides: list[list[Any]] = [[], []]
    for k in range(notes):
        for side in sides:
            dates = [
                {"start": s, "length": rng.choice((4, 5, 10)), "text": "x" * 4}
                for s in sorted(rng.sample(range(0, 200, 12), rng.randrange(1, 5)))
            ]
            for d in dates:
                d["text"] = "x" * d["length"]
            side.append(
                {
                    "annotationSource": {"resourceSource": {"name": f"notes/n{k:03d}"}},
                    "textDateAnnotations": dates,
                }
            )
    (folder / "gold.json").write_text(json.dumps(sides[0], indent=1), encoding="utf-8")
    (folder / "pred.json").write_text(json.dumps(sides[1], indent=1), encoding="utf-8")
    return ("--gold", folder / "gold.json", "--pred", folder / "pred.json")


@pytest.mark.parametrize("category", ["date", "all"])
def test_two_jobs_write_the_page_of_one(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool], category: str
) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    args = _corpus(tmp_path, 3)
    pages = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.html"
        done = cli("nlpsandbox", category, *args, "-j", jobs, "-f", "html", "-o", out)
        assert done.exit_code == 0, done.output
        pages[jobs] = out.read_bytes()
    assert exact and all(exact), "the run with -j 2 was not cut: the test tests nothing"
    assert pages[2] == pages[1]
    assert f'id="{ERRORS_ID}"'.encode() in pages[1]
