"""``annoscore report spans`` on inputs other than brat folders (PubTator, BioC, JSONL), and
``annoscore report`` on conlleval, seqeval and the NLP Sandbox tasks: the page of one system
holds the span analysis the task's ``--format html`` writes for them, and the page of several
systems compares their buckets and right/wrong mentions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from annoscore.report.html_spans import BUCKETS_ID, ERRORS_ID
from annoscore.report.html_versus import VERSUS_ID
from annoscore.samples import SAMPLES
from tests.report.browser import open_report

GOLD = """\
d1|t|Aspirin and ibuprofen
d1|a|The left ventricle was normal.
d1\t0\t7\tAspirin\tDrug\tC1
d1\t12\t21\tibuprofen\tDrug\tC2
d1\t26\t44\tleft ventricle\tAnatomy\tC3

d2|t|Beta blockers
d2|a|stopped daily
d2\t0\t13\tBeta blockers\tDrug\tC4
"""

SYSTEM = """\
d1|t|Aspirin and ibuprofen
d1|a|The left ventricle was normal.
d1\t0\t7\tAspirin\tDrug\tC1
d1\t12\t21\tibuprofen\tGene\tC2
d1\t31\t44\tventricle\tAnatomy\tC3

d2|t|Beta blockers
d2|a|stopped daily
d2\t0\t4\tBeta\tDrug\tC4
d2\t22\t27\tdaily\tDose\tC5
"""


def _element(page: Path, name: str) -> str:
    found = re.search(
        rf'<script type="application/json" id="{name}">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.S,
    )
    assert found is not None, f"no {name} in {page.name}"
    return found.group(1)


def _inputs(cli: Any, folder: Path, form: str) -> tuple[Path, Path]:
    """The handmade PubTator pair, converted to ``form`` where it is another."""
    paths = []
    for name, content in (("gold", GOLD), ("system", SYSTEM)):
        source = folder / f"{name}.pubtator"
        source.write_text(content, encoding="utf-8")
        if form == "pubtator":
            paths.append(source)
            continue
        target = folder / f"{name}.{form}"
        done = cli("convert", "pubtator", form, source, target)
        assert done.exit_code == 0, done.output
        paths.append(target)
    return paths[0], paths[1]


@pytest.mark.parametrize("form", ["pubtator", "bioc-xml", "spacy-jsonl"])
def test_the_report_of_one_system_analyses_spans_of_any_format(
    cli: Any, tmp_path: Path, form: str
) -> None:
    gold, system = _inputs(cli, tmp_path, form)
    own = tmp_path / "own.html"
    done = cli("spans", gold, system, "-f", "html", "-o", own)
    assert done.exit_code == 0, done.output
    out = tmp_path / "report.html"
    done = cli("report", "spans", gold, system, "-o", out)
    assert done.exit_code == 0, done.output
    errors = _element(out, ERRORS_ID)
    assert errors == _element(own, ERRORS_ID)
    assert _element(out, BUCKETS_ID) == _element(own, BUCKETS_ID)
    assert '"ventricle"' in errors or "ventricle" in errors  # the texts are there
    page = out.read_text(encoding="utf-8")
    assert "Error categories per type" in page and 'id="confusion"' in page


def test_a_format_option_reads_the_sides_as_the_task_does(cli: Any, tmp_path: Path) -> None:
    gold, system = _inputs(cli, tmp_path, "pubtator")
    own = tmp_path / "own.html"
    done = cli("spans", gold, system, "--gold-format", "pubtator", "-f", "html", "-o", own)
    assert done.exit_code == 0, done.output
    out = tmp_path / "report.html"
    done = cli("report", "spans", gold, system, "--option", "gold_format=pubtator", "-o", out)
    assert done.exit_code == 0, done.output
    assert _element(out, ERRORS_ID) == _element(own, ERRORS_ID)


def test_the_report_of_several_systems_compares_them(
    cli: Any, browser: Any, tmp_path: Path
) -> None:
    gold, system = _inputs(cli, tmp_path, "bioc-xml")
    out = tmp_path / "many.html"
    done = cli("report", "spans", gold, system, gold, "--samples", "50", "-o", out)
    assert done.exit_code == 0, done.output
    assert _element(out, BUCKETS_ID)
    versus = _element(out, VERSUS_ID)
    assert "ibuprofen" in versus
    opened = open_report(browser, out)
    try:
        assert opened.errors == []
        assert opened.page.eval_on_selector_all("#buckets table", "es => es.length") > 0
    finally:
        opened.page.close()
    one = tmp_path / "one.html"
    assert cli("report", "spans", gold, system, "-o", one).exit_code == 0
    opened = open_report(browser, one)
    try:
        assert opened.errors == []
        assert (
            opened.page.eval_on_selector("#vpos", "e => e.textContent") == "2 errors"
        )  # the first document's
    finally:
        opened.page.close()


BIO = SAMPLES / "bio"
SANDBOX = SAMPLES / "nlpsandbox"
CODIESP = SAMPLES / "codiesp"


@pytest.mark.parametrize(
    ("task", "own", "files"),
    [
        ("conlleval", ["conlleval"], (BIO / "gold.conll", BIO / "system.conll")),
        ("seqeval", ["seqeval"], (BIO / "gold.conll", BIO / "system.conll")),
        ("seqeval", ["seqeval"], (BIO / "gold-tags.json", BIO / "pred-tags.json")),
        ("nlpsandbox-date", ["nlpsandbox", "date"], (SANDBOX / "gold.json", SANDBOX / "pred.json")),
        ("nlpsandbox-all", ["nlpsandbox", "all"], (SANDBOX / "gold.json", SANDBOX / "pred.json")),
        ("codiesp-x", ["codiesp", "X"], (CODIESP / "gs_X.tsv", CODIESP / "pred_X.tsv")),
    ],
)
def test_the_report_command_analyses_the_tag_and_sandbox_tasks(
    cli: Any, browser: Any, tmp_path: Path, task: str, own: list[str], files: tuple[Path, Path]
) -> None:
    """``annoscore report`` on these tasks: the page of one system holds the analysis their
    ``--format html`` page holds, that of several the buckets and right/wrong mentions."""
    gold, system = files
    alone = tmp_path / "own.html"
    named = own[0] in ("nlpsandbox", "codiesp")
    paths = ["--gold", gold, "--pred", system] if named else [gold, system]
    codes = [CODIESP / "codes-D.tsv", CODIESP / "codes-P.tsv"] if own[0] == "codiesp" else []
    flags = ["--codes-d", codes[0], "--codes-p", codes[1]] if codes else []
    options = (
        ["--option", f"codes_d={codes[0]}", "--option", f"codes_p={codes[1]}"] if codes else []
    )
    done = cli(*own, *paths, *flags, "-f", "html", "-o", alone)
    assert done.exit_code == 0, done.output
    out = tmp_path / "one.html"
    done = cli("report", task, gold, system, *options, "-o", out)
    assert done.exit_code == 0, done.output
    assert _element(out, ERRORS_ID) == _element(alone, ERRORS_ID)
    many = tmp_path / "many.html"
    several = ["report", task, gold, system, system, *options, "--names", "a,b"]
    done = cli(*several, "--samples", "50", "-o", many)
    assert done.exit_code == 0, done.output
    assert _element(many, BUCKETS_ID) and _element(many, VERSUS_ID)
    for page in (out, many):
        opened = open_report(browser, page)
        try:
            assert opened.errors == []
        finally:
            opened.page.close()
