"""The span analysis of the HTML report found through the registry: each span task names the
function that reads its sides again (``Task.sides``, tasks/registry.py), which both its
``--format html`` and ``annoscore report`` call.  PharmaCoNER NER's report page has the span
analysis its ``--format html`` page has, its counts the result's; ``-j 2`` writes the bytes of
``-j 1``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annoscore.report.html_spans import BUCKETS_ID, ERRORS_ID
from annoscore.report.html_versus import VERSUS_ID
from annoscore.samples import SAMPLES
from annoscore.tasks import registry
from tests.report.test_html import _command, element, embedded

SPAN_TASKS = {
    "spans",
    "pharmaconer-ner",
    "conlleval",
    "seqeval",
    "codiesp-x",
    *(name for name in registry.TASKS if name.startswith("nlpsandbox-")),
}
PHARMACONER = SAMPLES / "pharmaconer"
GOLD, SYSTEM = PHARMACONER / "gold/subtrack1/sample", PHARMACONER / "system/subtrack1/sample"


def test_the_span_tasks_register_their_sides() -> None:
    """The tasks whose page has the span analysis, and only they, name a function that exists
    in their own task module."""
    named = {name for name, task in registry.TASKS.items() if task.sides is not None}
    assert named == SPAN_TASKS
    for name in named:
        sides = registry.get(name).sides
        assert sides is not None and sides.startswith("annoscore.tasks.")
        assert callable(registry.load(sides))


def _report_options(name: str) -> list[str]:
    _, _, options = registry.sample_paths(registry.get(name))
    return [item for k, v in options.items() for item in ("--option", f"{k}={v}")]


@pytest.mark.parametrize("name", sorted(SPAN_TASKS))
def test_both_pages_read_the_registered_sides(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """``--format html`` and ``annoscore report`` call the function the registry names (a spy
    in its place sees each call), and nothing else builds the sides; ``spans``, whose command
    scores the documents it read, reads nothing again (the report reads them)."""
    task = registry.get(name)
    assert task.sides is not None
    module, _, attribute = task.sides.partition(":")
    original = registry.load(task.sides)
    calls: list[str] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[3].task)  # the result read with it: the task's
        return original(*args, **kwargs)

    monkeypatch.setattr(f"{module}.{attribute}", spy)
    own = tmp_path / "own.html"
    done = cli(*_command(name), "-f", "html", "-o", own)
    assert done.exit_code == 0, done.output
    assert calls == ([] if name == "spans" else [name])
    gold, system, _ = registry.sample_paths(task)
    out = tmp_path / "report.html"
    done = cli("report", name, gold, system, *_report_options(name), "-o", out)
    assert done.exit_code == 0, done.output
    assert calls[-1:] == [name]
    page, alone = (p.read_text(encoding="utf-8") for p in (out, own))
    assert element(page, ERRORS_ID) == element(alone, ERRORS_ID)


def _agrees(page: str, counts: dict[str, int]) -> None:
    """The analysis' correct mentions are the task's tp, its gold and predicted mentions the
    task's (exact span and type: PharmaCoNER's own match)."""
    errors = element(page, ERRORS_ID)
    categories = errors["categories"]
    kinds = [categories[k % len(categories)] for k in errors["gk"]]
    assert kinds.count("correct") == counts["tp"]
    assert len(errors["gk"]) == counts["tp"] + counts["fn"]
    assert len(errors["pk"]) == counts["tp"] + counts["fp"]


def test_the_pharmaconer_report_analyses_its_spans(cli: Any, tmp_path: Path) -> None:
    """``annoscore report pharmaconer-ner``: one system, the span analysis of ``annoscore
    pharmaconer ner --format html`` (the same JSON elements), its counts the result's; two
    systems, the buckets and the mentions one system finds and the other misses."""
    own = tmp_path / "own.html"
    done = cli("pharmaconer", "ner", GOLD, SYSTEM, "-f", "html", "-o", own)
    assert done.exit_code == 0, done.output
    alone = own.read_text(encoding="utf-8")
    out = tmp_path / "one.html"
    done = cli("report", "pharmaconer-ner", GOLD, SYSTEM, "-o", out)
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    assert element(page, ERRORS_ID) == element(alone, ERRORS_ID)
    counts = embedded(page)["counts"]
    assert (counts["tp"], counts["fp"], counts["fn"]) == (54, 1, 2)
    _agrees(page, counts)
    _agrees(alone, embedded(alone)["counts"])
    many = tmp_path / "many.html"
    args = ["report", "pharmaconer-ner", GOLD, SYSTEM, GOLD, "--names", "run,oracle"]
    done = cli(*args, "--samples", "50", "-o", many)
    assert done.exit_code == 0, done.output
    several = many.read_text(encoding="utf-8")
    assert element(several, BUCKETS_ID)
    versus = element(several, VERSUS_ID)
    assert versus, "no mentions one system finds and the other misses"


def test_the_pharmaconer_options_read_the_sides_as_the_task(cli: Any, tmp_path: Path) -> None:
    """``--option codalab=true``: the report reads the folders as ``--codalab`` does, as the
    command's page does (whose counts are not the analysis': that script's, 52 tp of 56)."""
    for codalab in (False, True):
        flag = ["--codalab"] if codalab else []
        option = ["--option", "codalab=true"] if codalab else []
        own, out = tmp_path / f"own{codalab}.html", tmp_path / f"one{codalab}.html"
        done = cli("pharmaconer", "ner", GOLD, SYSTEM, *flag, "-f", "html", "-o", own)
        assert done.exit_code == 0, done.output
        done = cli("report", "pharmaconer-ner", GOLD, SYSTEM, *option, "-o", out)
        assert done.exit_code == 0, done.output
        page = out.read_text(encoding="utf-8")
        assert element(page, ERRORS_ID) == element(own.read_text(encoding="utf-8"), ERRORS_ID)
        if not codalab:
            _agrees(page, embedded(page)["counts"])


def test_two_jobs_write_the_pharmaconer_page_of_one(
    cli: Any, tmp_path: Path, combined: list[bool]
) -> None:
    """``pharmaconer ner -j 2 --format html`` (the folders cut by file, the chunks combined)
    and ``report pharmaconer-ner`` of the same folders: the bytes of one job, with the
    analysis."""
    pages = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.html"
        done = cli("pharmaconer", "ner", GOLD, SYSTEM, "-j", jobs, "-f", "html", "-o", out)
        assert done.exit_code == 0, done.output
        pages[jobs] = out.read_bytes()
    assert combined and all(combined), "the run with -j 2 was not cut: the test tests nothing"
    assert pages[2] == pages[1]
    page = pages[1].decode("utf-8")
    _agrees(page, embedded(page)["counts"])
