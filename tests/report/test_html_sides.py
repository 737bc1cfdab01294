"""The span analysis of the HTML report found through the registry: each span task names the
function that reads its sides again (``Task.sides``, tasks/registry.py), which both its
``--format html`` and ``annoscore report`` call.  PharmaCoNER NER's report page has the span
analysis its ``--format html`` page has, its counts the result's; MUC NE's pages have one of
its tags; ``-j 2`` writes the bytes of ``-j 1``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annoscore.report.html_spans import BUCKETS_ID, ERRORS_ID
from annoscore.report.html_versus import VERSUS_ID
from annoscore.samples import SAMPLES
from annoscore.scale import cut_lines, cut_muc
from annoscore.tasks import registry
from tests.report.browser import open_report
from tests.report.test_html import _command, element, embedded

SPAN_TASKS = {
    "spans",
    "pharmaconer-ner",
    "conlleval",
    "seqeval",
    "codiesp-x",
    "muc-named-entity",
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
    assert embedded(page) == embedded(alone)  # the macro averages too (Task.averages_per_type)
    assert embedded(page)["averages"]["macro_doc"]["f1"] == pytest.approx(0.9571428571)
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
    command's page does: UNCLEAR entities left out of the analysis as of the counts (52 tp of
    56 with the CodaLab rule, 54 without), and the page says so."""
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
        counts = embedded(page)["counts"]
        assert counts["tp"] == (52 if codalab else 54)
        _agrees(page, counts)
        assert ("UNCLEAR entities are left out" in page) == codalab


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


MUC = SAMPLES / "muc"


def test_the_muc_named_entity_pages_analyse_its_tags(cli: Any, tmp_path: Path) -> None:
    """``annoscore muc ne.config --format html`` and ``annoscore report muc-named-entity``: the
    analysis of every task tag (the key's 20, one of them optional; the response's 18, the
    objects the score report counts), with the texts the offsets count, and the page saying
    how it differs from MUC's alignment; an exact match is one MUC counts correct."""
    own = tmp_path / "own.html"
    done = cli("muc", MUC / "ne.config", "--no-files", "-f", "html", "-o", own)
    assert done.exit_code == 0, done.output
    alone = own.read_text(encoding="utf-8")
    expected = cli.json("muc", MUC / "ne.config", "--no-files", "--per-doc")
    assert embedded(alone) == expected  # the JSON of --format json, unchanged
    errors = element(alone, ERRORS_ID)
    counts = expected["counts"]
    classes = ("enamex", "timex", "numex")
    assert len(errors["pk"]) == sum(counts[f"obj:{c}:act"] for c in classes) == 18
    optional_missed = 1  # <ENAMEX TYPE="ORGANIZATION" STATUS="OPT">Acme</ENAMEX>
    assert len(errors["gk"]) == sum(counts[f"obj:{c}:pos"] for c in classes) + optional_missed
    categories = errors["categories"]
    correct = [categories[k % len(categories)] for k in errors["gk"]].count("correct")
    assert 0 < correct <= sum(counts[f"obj:{c}:cor"] for c in classes)
    assert "PERSON" in errors["typenames"] and "Jane Doe" in errors["t"][0]
    assert "MUC named entity aligns a response tag" in alone
    out = tmp_path / "report.html"
    config = ["--option", f"config={MUC / 'ne.config'}"]
    done = cli("report", "muc-named-entity", MUC / "ne.key.sgml", MUC / "ne.response.sgml",
               *config, "-o", out)  # fmt: skip
    assert done.exit_code == 0, done.output
    assert element(out.read_text(encoding="utf-8"), ERRORS_ID) == errors
    many = tmp_path / "many.html"
    args = [MUC / "ne.key.sgml", MUC / "ne.response.sgml", MUC / "ne.key.sgml"]
    done = cli("report", "muc-named-entity", *args, *config, "--samples", "50", "-o", many)
    assert done.exit_code == 0, done.output
    several = many.read_text(encoding="utf-8")
    assert element(several, BUCKETS_ID) and element(several, VERSUS_ID)


def _copies(source: Path, target: Path, n: int) -> Path:
    """``source``'s documents ``n`` times, numbered apart (a corpus large enough to cut)."""
    text = source.read_text(encoding="utf-8")
    copies = [text.replace("<DOCNO> 9301", f"<DOCNO> {k}9301") for k in range(n)]
    target.write_text("".join(copies), encoding="utf-8")
    return target


def test_two_jobs_write_the_muc_named_entity_page_of_one(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    """A page reads the alignments: ``annoscore muc`` reads its files whole then, with any
    number of jobs (tasks/muc_chunks.py), and the analysis is of the whole files."""
    monkeypatch.setattr(cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(cut_muc, "MUC_MIN_BYTES", 0)
    key = _copies(MUC / "ne.key.sgml", tmp_path / "key.sgml", 6)
    response = _copies(MUC / "ne.response.sgml", tmp_path / "response.sgml", 6)
    args = ["muc", MUC / "ne.config", "--key", key, "--response", response, "--no-files"]
    pages = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.html"
        done = cli(*args, "-j", jobs, "-f", "html", "-o", out)
        assert done.exit_code == 0, done.output
        pages[jobs] = out.read_bytes()
    assert not exact
    assert pages[2] == pages[1]
    errors = element(pages[1].decode("utf-8"), ERRORS_ID)
    assert len(errors["docs"]) == 12 and len(errors["pk"]) == 6 * 18


def test_the_type_of_a_muc_tag_is_the_configured_attribute(cli: Any, tmp_path: Path) -> None:
    """``:sgml_type_slot KIND``: the analysis types a tag by its KIND attribute, as the task's
    TYPE slot reads it."""
    config = tmp_path / "ne.config"
    config.write_text(
        (MUC / "ne.config").read_text(encoding="utf-8") + ":sgml_type_slot KIND\n",
        encoding="utf-8",
    )
    documents = '<DOC><DOCNO>1</DOCNO><TXT><ENAMEX KIND="{}">Ann</ENAMEX> met <ENAMEX KIND="PERSON">Bob</ENAMEX></TXT></DOC>\n'  # noqa: E501
    key, response = tmp_path / "key.sgml", tmp_path / "response.sgml"
    key.write_text(documents.format("PERSON"), encoding="utf-8")
    response.write_text(documents.format("ORGANIZATION"), encoding="utf-8")
    out = tmp_path / "ne.html"
    args = ["--key", key, "--response", response, "--no-files"]
    done = cli("muc", config, *args, "-f", "html", "-o", out)
    assert done.exit_code == 0, done.output
    errors = element(out.read_text(encoding="utf-8"), ERRORS_ID)
    categories = errors["categories"]
    assert [categories[k % len(categories)] for k in errors["gk"]] == ["type", "correct"]
    assert sorted(errors["typenames"]) == ["ORGANIZATION", "PERSON"]
    assert errors["t"] == ["<DOCNO>1</DOCNO><TXT>Ann met Bob</TXT>"]  # the task tags removed


def test_the_new_pages_load_in_a_browser(cli: Any, browser: Any, tmp_path: Path) -> None:
    """The pages that gained the analysis (MUC named entity's, the PharmaCoNER report of one
    and of two systems) load with no console error, the errors table and the viewer filled."""
    pages = [tmp_path / name for name in ("ne.html", "one.html", "many.html")]
    runs = [
        ("muc", MUC / "ne.config", "--no-files", "-f", "html", "-o", pages[0]),
        ("report", "pharmaconer-ner", GOLD, SYSTEM, "-o", pages[1]),
        ("report", "pharmaconer-ner", GOLD, SYSTEM, GOLD, "--samples", "30", "-o", pages[2]),
    ]
    for run in runs:
        done = cli(*run)
        assert done.exit_code == 0, done.output
    for page in pages:
        opened = open_report(browser, page)
        try:
            assert opened.errors == []
            if page.name != "many.html":  # the page of several systems has no viewer
                rows = opened.page.eval_on_selector_all("#errors tbody tr", "rs => rs.length")
                assert rows >= 1
                assert opened.page.eval_on_selector("#vpos", "e => e.textContent")
            assert opened.errors == []
        finally:
            opened.page.close()
