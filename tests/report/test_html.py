"""The HTML report without a browser: the embedded JSON is the JSON output, text is escaped,
the command line writes it for every scoring command (tests/report/test_html_browser.py opens
the pages in Chromium)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from annoscore.counts import Counts
from annoscore.metrics.prf import prf_scores
from annoscore.report.generic import render, render_json
from annoscore.report.html import render_html, report_view
from annoscore.report.html_page import RESULT_ID, embedded_json
from annoscore.result import Result
from annoscore.signature import Signature
from annoscore.significance import with_intervals
from annoscore.tasks import registry

EMBEDDED = re.compile(
    r'<script type="application/json" id="' + RESULT_ID + r'">(.*?)</script>', re.S
)


def embedded(page: str) -> Any:
    """The JSON object a page embeds (there is exactly one)."""
    found = EMBEDDED.findall(page)
    assert len(found) == 1
    return json.loads(found[0])


def element(page: str, name: str) -> Any:
    """The JSON a page holds in its ``<script type="application/json">`` element ``name`` (the
    viewer's data, the error lists: :data:`annoscore.report.html_spans.ERRORS_ID`)."""
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', page, re.S)
    assert found is not None, f"no {name}"
    return json.loads(found.group(1))


def sample_result(name: str) -> Result:
    task = registry.get(name)
    gold, system, options = registry.sample_paths(task)
    return task.run(gold, system, **options)


@pytest.mark.parametrize("name", sorted(registry.TASKS))
def test_the_page_embeds_the_json_of_per_doc_and_per_type(name: str) -> None:
    result = sample_result(name)
    page = render_html(result)
    assert embedded(page) == json.loads(render_json(report_view(result)))
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")


def test_no_network_and_no_framework() -> None:
    page = render_html(sample_result("spans"))
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page and "@import" not in page


def _hostile() -> Result:
    name = "</script><script>window.pwned=1</script>&amp;<b>"
    return Result.from_counts(
        "t",
        Signature.of("t"),
        {name: Counts(tp=1, fn=1), "plain": Counts(tp=2, fp=1)},
        prf_scores,
        warnings=["a warning quoting </script><i>x</i> & more"],
        headline="f1",
    )


def test_markup_in_the_input_cannot_end_the_json_or_open_a_tag() -> None:
    page = render_html(_hostile())
    assert page.count("</script>") == 2  # the JSON element's and the script's own
    assert "<b>" not in page and "<i>" not in page
    assert "&lt;/script&gt;&lt;i&gt;x&lt;/i&gt; &amp; more" in page
    data = embedded(page)
    assert "</script><script>window.pwned=1</script>&amp;<b>" in data["documents"]
    assert data["warnings"][0] == "a warning quoting </script><i>x</i> & more"


def test_embedded_json_escapes_every_less_than_sign() -> None:
    text = embedded_json({"a": "<!-- <script> </script>", "b": "\u2028"}, "x")
    inside = text[len('<script type="application/json" id="x">') : -len("</script>")]
    assert "<" not in inside
    assert json.loads(inside) == {"a": "<!-- <script> </script>", "b": "\u2028"}


def test_intervals_are_shown_with_the_scores() -> None:
    result = with_intervals(sample_result("pharmaconer-ner"), samples=50, seed=1)
    page = render_html(result)
    data = embedded(page)
    assert set(data["intervals"]) == {"precision", "recall", "f1"}
    low = data["intervals"]["f1"][0]
    assert 'data-path="[&quot;intervals&quot;, &quot;f1&quot;, &quot;0&quot;]"' in page
    assert f">{low:.4f}<" in page
    assert "50 resamples of the documents, seed 1" in page


def test_render_knows_html() -> None:
    result = sample_result("trec")
    assert embedded(render(result, "html")) == embedded(render_html(result))


def _command(name: str) -> list[str]:
    """The command line scoring ``name``'s sample (as tests/cli derive it from the registry)."""
    task = registry.get(name)
    gold, system, options = registry.sample_paths(task)
    family = list(task.command)
    if family[0] == "muc":
        config = options.get("config")
        if config is not None:
            return ["muc", str(config)]
        return ["muc", "--task", "coreference", "--key", str(gold), "--response", str(system)]
    flags: list[str] = []
    if family[0] == "are":
        return [
            *family,
            "--gold",
            str(gold),
            "--pred",
            str(system),
            "--input",
            str(options["input_path"]),
        ]
    if family[0] in ("codiesp", "nlpsandbox"):
        positional = ["--gold", str(gold), "--pred", str(system)]
    else:
        positional = [str(gold), str(system)]
    for key, value in options.items():
        flags += [f"--{key.replace('_', '-')}", str(value)]
    return [*family, *positional, *flags]


@pytest.mark.parametrize(
    "name",
    [
        "spans",
        "coref",
        "trec",
        "pharmaconer-ner",
        "pharmaconer-indexing",
        "codiesp-d",
        "codiesp-x",
        "nlpsandbox-date",
        "are-1",
        "are-4",
        "muc-template-element",
        "muc-named-entity",
        "muc-coreference",
    ],
)
def test_every_scoring_command_writes_the_page(cli: Any, tmp_path: Path, name: str) -> None:
    """The page embeds what ``--format json --per-doc --per-type`` prints, with or without
    ``--per-type`` (a command without it: the page adds the types it counts)."""
    args = _command(name)
    out = tmp_path / "r.html"
    per_type = ["--per-type"] if name in ("spans", "pharmaconer-ner") else []
    expected = cli.json(*args, "--per-doc", *per_type)
    for asked in [[], per_type] if per_type else [[]]:
        done = cli(*args, *asked, "--format", "html", "-o", out)
        assert done.exit_code == 0, done.output
        data = embedded(out.read_text(encoding="utf-8"))
        if not per_type:
            assert "types" not in expected
            data.pop("types", None)
        assert data == expected, asked


def test_html_to_a_terminal_is_refused_with_a_hint(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annoscore.cli.options.is_terminal", lambda stream: True)
    done = cli(*_command("trec"), "--format", "html")
    assert done.exit_code == 2
    assert "give -o FILE" in done.stderr and "\n" not in done.stderr.strip()


def test_report_of_one_system_is_the_format_html_page(cli: Any, tmp_path: Path) -> None:
    task = registry.get("spans")
    gold, system, _ = registry.sample_paths(task)
    out = tmp_path / "one.html"
    done = cli("report", "spans", gold, system, "--option", "mode=semeval", "-o", out)
    assert done.exit_code == 0, done.output
    expected = cli.json(*_command("spans"), "--per-doc")
    data = embedded(out.read_text(encoding="utf-8"))
    data.pop("types")
    assert data == expected


def test_report_of_several_systems_holds_compare_and_each_system(cli: Any, tmp_path: Path) -> None:
    gold, system, _ = registry.sample_paths(registry.get("pharmaconer-ner"))
    out = tmp_path / "many.html"
    args = ["pharmaconer-ner", gold, system, gold, "--names", "run,oracle"]
    done = cli("report", *args, "--samples", "200", "-o", out)
    assert done.exit_code == 0, done.output
    data = embedded(out.read_text(encoding="utf-8"))
    compared = json.loads(cli("compare", *args, "--samples", "200", "-f", "json").stdout)
    assert data["comparison"] == compared
    assert set(data["systems"]) == {"run", "oracle"}
    # each system's object is what its command prints with --per-doc --per-type (PharmaCoNER
    # NER's --per-type adds the macro averages: Task.averages_per_type)
    own = cli.json("pharmaconer", "ner", gold, system, "--per-doc", "--per-type")
    assert data["systems"]["run"] == own
    assert own["averages"]["macro_doc"]["f1"] == pytest.approx(0.9571428571)
    assert data["systems"]["oracle"]["scores"]["f1"] == 1.0
    assert data["systems"]["oracle"]["averages"]["macro_type"]["f1"] == 1.0


def test_report_refuses_bad_names_and_unknown_tasks(cli: Any, tmp_path: Path) -> None:
    gold, system, _ = registry.sample_paths(registry.get("trec"))
    out = tmp_path / "x.html"
    done = cli("report", "trec", gold, system, system, "--names", "a", "-o", out)
    assert done.exit_code == 2 and "--names gives 1 names for 2 systems" in done.stderr
    done = cli("report", "no-such-task", gold, system, "-o", out)
    assert done.exit_code == 2
    assert not out.exists()


def test_spans_in_another_format_writes_the_page_without_the_viewer(tmp_path: Path) -> None:
    """The document viewer reads brat; a PubTator (or BioC, ...) input gets the page without
    it, with the same embedded result as ``--format json``."""
    from typer.testing import CliRunner

    from annoscore.cli import app
    from annoscore.samples import SAMPLES

    runner = CliRunner()
    converted = tmp_path / "gold.pubtator"
    gold = SAMPLES / "pharmaconer/gold/subtrack1/sample"
    assert (
        runner.invoke(app, ["convert", "brat", "pubtator", str(gold), str(converted)]).exit_code
        == 0
    )
    page = tmp_path / "report.html"
    done = runner.invoke(
        app, ["spans", str(converted), str(converted), "-f", "html", "-o", str(page)]
    )
    assert done.exit_code == 0, done.output
    shown = embedded(page.read_text(encoding="utf-8"))
    plain = runner.invoke(app, ["spans", str(converted), str(converted), "-f", "json", "--per-doc"])
    assert (
        shown["scores"]
        == json.loads(plain.stdout)["scores"]
        == {
            "precision": 1.0,
            "recall": 1.0,
            "f1": 1.0,
        }
    )
