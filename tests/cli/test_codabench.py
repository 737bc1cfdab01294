"""``annoscore codabench init|score|check``: a bundle per task family, its program run as
Codabench's worker runs it (campaign.md): the bundle unzipped into a temporary ``/app``-like
layout, the ``command`` of ``metadata.yaml`` with its placeholders replaced textually, working
directory ``program/``, a separate process with only the standard library, the vendored code and
numpy and scipy on its path (``python -S``: no site-packages).

Docker is not used here (no image can be pulled); the layout test stands in for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from annoscore.samples import SAMPLES
from tests.conftest import Cli, shared_data
from tests.helpers import built_once

PLACEHOLDERS = {
    "$predictions": "input/res",
    "$program": "program",
    "$hidden": "input/ref",
    "$shared": "shared",
    "$output": "output",
    "$input": "input",
    "$tmp": "output/tmp",
}


def _image_site(folder: Path) -> str:
    """A folder holding numpy and scipy only (what the image has beyond the standard library),
    and a ``regex`` that records its import and fails: the program must not need it."""
    folder.mkdir()
    for name in ("numpy", "scipy"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        package = Path(spec.origin).parent
        (folder / name).symlink_to(package)
        if (package.parent / f"{name}.libs").exists():
            (folder / f"{name}.libs").symlink_to(package.parent / f"{name}.libs")
    (folder / "regex").mkdir()
    (folder / "regex" / "__init__.py").write_text(
        f"open({str(folder / TRIPWIRE)!r}, 'w').close()\n"
        "raise ImportError('regex is not in the image')\n"
    )
    return str(folder)


TRIPWIRE = "regex-was-imported"


def worker(bundle: Path, submission: Path, work: Path, phase: int = 0) -> tuple[int, str, Path]:
    """Run the bundle's program on the zip ``submission`` as the worker does, in an image with
    the standard library, numpy and scipy only; fails if the program imports ``regex``."""
    competition = json.loads((bundle / "competition.yaml").read_text(encoding="utf-8"))
    task = competition["tasks"][phase]
    app = work / "app"
    shutil.copytree(bundle / task["scoring_program"], app / "program")
    shutil.copytree(bundle / task["reference_data"], app / "input" / "ref")
    (app / "input" / "res").mkdir()
    with zipfile.ZipFile(submission) as archive:  # unzipped as uploaded: litter stays
        archive.extractall(app / "input" / "res")
    (app / "output").mkdir()
    (app / "shared").mkdir()
    metadata = (app / "program" / "metadata.yaml").read_text(encoding="utf-8")
    command = next(line for line in metadata.splitlines() if line.startswith("command:"))
    command = command.partition(":")[2].strip()
    for placeholder, where in PLACEHOLDERS.items():
        command = command.replace(placeholder, str(app / where))
    words = shlex.split(command)
    assert words[0] == "python3"
    words[0:1] = [sys.executable, "-S"]
    config = json.loads((app / "program" / "annoscore-bundle.json").read_text(encoding="utf-8"))
    assert config["image"] == {}  # no compiled package beyond numpy and scipy
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": _image_site(work / "site")}
    done = subprocess.run(
        words, cwd=app / "program", env=env, capture_output=True, text=True, timeout=300
    )
    assert not (work / "site" / TRIPWIRE).exists(), f"the program imported regex: {done.stderr}"
    return done.returncode, done.stderr, app / "output"


def _zip(folder_or_file: Path, target: Path, top: str = "", litter: bool = False) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        files = [folder_or_file] if folder_or_file.is_file() else sorted(folder_or_file.iterdir())
        for path in files:
            if path.suffix == ".txt" and any(folder_or_file.glob("*.ann")):
                continue  # brat texts are not part of a submission
            archive.write(path, f"{top}{path.name}")
            if litter:
                archive.writestr(f"__MACOSX/{top}._{path.name}", b"\x00\x05\x16\x07")
        if litter:
            archive.writestr(f"{top}.DS_Store", b"x")
    return target


def _leaderboard_keys(bundle: Path) -> list[str]:
    competition = json.loads((bundle / "competition.yaml").read_text(encoding="utf-8"))
    assert len(competition["leaderboards"]) == 1
    return [c["key"] for c in competition["leaderboards"][0]["columns"]]


RESULT_ELEMENT = re.compile(
    r'<script type="application/json" id="annoscore-result">(.*?)</script>', re.DOTALL
)
ITEM_SECTIONS = ("annoscore-ranked", "annoscore-alignment", "annoscore-coref", "annoscore-spans")
"""The ids of the report's item-level sections, which show the reference data."""


def _check_report(page: str, result: dict[str, Any], columns: dict[str, str]) -> dict[str, Any]:
    """``page`` is the HTML report of ``result`` (result.json's object): its embedded
    ``annoscore-result`` is that object with the per-document (and per-type) rows the report
    adds; its leaderboard card shows each column's value (``undefined`` where left out), each
    number naming its place in the JSON; no item-level section.  Returns the embedded object."""
    found = RESULT_ELEMENT.findall(page)
    assert len(found) == 1, "the page embeds the result once"
    data: dict[str, Any] = json.loads(found[0])
    assert {k: data[k] for k in result} == result
    assert set(data) - set(result) <= {"documents", "types"}
    assert page.index('id="leaderboard"') < page.index('id="summary"')
    for key, name in columns.items():
        value = result["scores"].get(name)
        if value is None:
            assert (
                f'<td><code>{key}</code></td><td>{name}</td><td class="num neg">undefined' in page
            )
        else:
            path = "[&quot;scores&quot;, &quot;" + name + "&quot;]"
            cell = f'<td><code>{key}</code></td><td>{name}</td><td class="num" data-path="{path}"'
            assert cell in page and f">{value:.4f}</td>" in page, key
    if data.get("types"):
        assert '<section class="card" id="types"><h2>Per type</h2>' in page
        for name in data["types"]:
            assert f">{name}</td>" in page, name
    assert not [i for i in ITEM_SECTIONS if f'id="{i}"' in page]
    return data


FAMILIES: list[tuple[str, Path, Path, list[str]]] = [
    (
        "pharmaconer-ner",
        SAMPLES / "pharmaconer/gold/subtrack1/sample",
        SAMPLES / "pharmaconer/system/subtrack1/sample",
        [],
    ),
    (
        "pharmaconer-indexing",
        SAMPLES / "pharmaconer/gold/subtrack2/sample",
        SAMPLES / "pharmaconer/system/subtrack2/sample",
        [],
    ),
    (
        "codiesp-d",
        SAMPLES / "codiesp/gs_D.tsv",
        SAMPLES / "codiesp/pred_D.tsv",
        [f"codes={SAMPLES / 'codiesp/codes-D.tsv'}"],
    ),
    ("coref", SAMPLES / "coref/key.conll", SAMPLES / "coref/response.conll", []),
    ("trec", SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt", []),
    ("muc-coreference", SAMPLES / "muc/co.key.sgml", SAMPLES / "muc/co.response.sgml", []),
    (
        "are-2",
        SAMPLES / "are/task1-gold.xml",
        SAMPLES / "are/task2-system.xml",
        [f"input_path={SAMPLES / 'are/task1-input.xml'}"],
    ),
]


class SampleBundles:
    """The bundle of each task built from its sample gold (phase ``dev``), built once per run
    (:func:`tests.helpers.built_once`: the xdist workers share it) when a test first asks for
    it: ``bundles[task]`` is its folder, ``bundles.stderr(task)`` what init printed.  A test
    that changes a bundle copies it."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.built: dict[str, tuple[Path, str]] = {}

    def _get(self, task: str) -> tuple[Path, str]:
        if task not in self.built:
            folder, stderr = built_once(
                self.factory, f"bundle-{task}", lambda root: _sample_bundle(task, root / task)[1]
            )
            self.built[task] = (folder / task, stderr)
        return self.built[task]

    def __getitem__(self, task: str) -> Path:
        return self._get(task)[0]

    def stderr(self, task: str) -> str:
        return self._get(task)[1]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> SampleBundles:
    return SampleBundles(tmp_path_factory)


@pytest.mark.parametrize("task", [f[0] for f in FAMILIES])
def test_the_worker_scores_a_system_with_the_leaderboard_keys(
    task: str, bundles: SampleBundles, tmp_path: Path
) -> None:
    from annoscore.tasks import registry

    _, gold, system, options = next(f for f in FAMILIES if f[0] == task)
    bundle = bundles[task]
    keys = _leaderboard_keys(bundle)
    submission = _zip(system, tmp_path / "submission.zip")
    status, stderr, output = worker(bundle, submission, tmp_path / "run")
    assert status == 0, stderr
    scores = json.loads((output / "scores.json").read_text())
    assert set(scores) <= set(keys) and scores, (scores, keys)
    assert all(isinstance(v, float) for v in scores.values())
    assert not (output / "metadata").exists()
    page = (output / "detailed_results.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    # the same numbers as annoscore itself on the same files
    named = dict(o.split("=", 1) for o in options)
    expected = registry.get(task).run(gold, system, **named).scores
    config = json.loads((bundle / "scoring_program/annoscore-bundle.json").read_text())
    for key, value in scores.items():
        assert value == expected[config["columns"][key]]
    result = json.loads((output / "result.json").read_text())
    assert result["task"] == task
    _check_report(page, result, config["columns"])


@pytest.mark.parametrize("task", ["pharmaconer-ner", "codiesp-d", "coref"])
def test_the_gold_as_a_submission_scores_1_in_a_top_folder_with_litter(
    task: str, bundles: SampleBundles, tmp_path: Path
) -> None:
    _, gold, _, _ = next(f for f in FAMILIES if f[0] == task)
    bundle = bundles[task]
    submission = _zip(gold, tmp_path / "s.zip", top="my-run/", litter=True)
    status, stderr, output = worker(bundle, submission, tmp_path / "run")
    assert status == 0, stderr
    scores = json.loads((output / "scores.json").read_text())
    assert list(scores) == _leaderboard_keys(bundle)  # every column, headline first
    headline = _leaderboard_keys(bundle)[0]
    assert scores[headline] == 1.0
    assert "top folder 'my-run/'" in stderr and "__MACOSX/" in stderr
    page = (output / "detailed_results.html").read_text()
    notes = page.partition("<h3>Notes</h3><ul>")[2].partition("</ul>")[0]
    assert "top folder &#x27;my-run/&#x27;" in notes and "__MACOSX/" in notes
    assert "<h3>Left out" not in page


def test_a_malformed_line_fails_with_one_line_and_every_problem_in_the_details(
    bundles: SampleBundles, tmp_path: Path
) -> None:
    bundle = bundles["codiesp-d"]
    bad = tmp_path / "pred.tsv"
    body = (SAMPLES / "codiesp/pred_D.tsv").read_text(encoding="utf-8")
    bad.write_text("a\tb\tc\n" + body + "only-one-column\n", encoding="utf-8")
    status, stderr, output = worker(bundle, _zip(bad, tmp_path / "bad.zip"), tmp_path / "run")
    assert status == 2
    assert stderr.count("\n") == 1 and "pred.tsv:1:" in stderr and "1 more" in stderr
    assert not (output / "scores.json").exists()
    details = (output / "detailed_results.html").read_text()
    assert "pred.tsv:1:" in details and f"pred.tsv:{len(body.splitlines()) + 2}:" in details


def test_an_empty_zip_fails_cleanly(bundles: SampleBundles, tmp_path: Path) -> None:
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    status, stderr, output = worker(bundles["pharmaconer-ner"], empty, tmp_path / "run")
    assert status == 2 and "the submission is empty" in stderr and "Traceback" not in stderr
    assert not (output / "scores.json").exists()


def test_check_passes_a_built_bundle_and_prints_the_row(cli: Cli, bundles: SampleBundles) -> None:
    result = cli("codabench", "check", bundles["pharmaconer-ner"])
    assert result.exit_code == 0, result.stderr
    assert "dev: f1 1.0000 | precision 1.0000 | recall 1.0000" in result.stdout


def test_check_leaves_no_temporary_folder_even_when_a_dry_run_fails(
    cli: Cli, bundles: SampleBundles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    result = cli("codabench", "check", bundles["pharmaconer-ner"], "--submission", empty)
    assert result.exit_code == 2 and "dry run on empty.zip: exit 2" in result.stderr
    assert list(scratch.iterdir()) == []


def test_check_names_every_broken_rule(cli: Cli, bundles: SampleBundles, tmp_path: Path) -> None:
    bundle = tmp_path / "broken"
    shutil.copytree(bundles["pharmaconer-ner"], bundle)
    path = bundle / "competition.yaml"
    data: dict[str, Any] = json.loads(path.read_text())
    data["docker_image"] = "codalab/codalab-legacy:latest"
    columns = data["leaderboards"][0]["columns"]
    columns.append(dict(columns[0]))  # a repeated key
    columns.append({**columns[0], "key": "k" * 37, "title": "t"})
    data["leaderboards"].append(data["leaderboards"][0])
    path.write_text(json.dumps(data))
    result = cli("codabench", "check", bundle)
    assert result.exit_code == 2
    for expected in (
        "2 leaderboards",
        "not pinned",
        "repeated",
        "1 to 36 characters",
        f"leaderboard column {'k' * 37!r}: not written by the program",
    ):
        assert expected in result.stderr, expected
    (bundle / "scoring_program" / "metadata.yaml").unlink()
    result = cli("codabench", "check", bundle)
    assert result.exit_code == 2 and "no metadata.yaml" in result.stderr


def test_the_pharmaconer_codalab_numbers_come_out_of_the_bundle_unchanged(
    cli: Cli, tmp_path: Path
) -> None:
    for subtask, task, options in (
        ("subtask1", "pharmaconer-ner", ["codalab=true"]),
        ("subtask2", "pharmaconer-indexing", ["codalab=true"]),
    ):
        base = shared_data("pharmaconer", "codalab", subtask)
        args: list[object] = ["codabench", "init", task, "--out", tmp_path / subtask]
        args += ["--gold", f"test={base / 'input' / 'ref' / subtask}"]
        for option in options:
            args += ["--option", option]
        if subtask == "subtask2":
            args += ["--option", f"gold_ann={base / 'input' / 'ref' / 'subtask1'}"]
        built = cli(*args)
        assert built.exit_code == 0, built.stderr
        res = base / "input" / "res"
        submission = tmp_path / f"{subtask}.zip"
        with zipfile.ZipFile(submission, "w") as archive:
            for path in sorted(res.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(res).as_posix())  # top folder kept
        status, stderr, output = worker(tmp_path / subtask, submission, tmp_path / f"run-{subtask}")
        assert status == 0, stderr
        scores = json.loads((output / "scores.json").read_text())
        official = {}
        for line in (base / "output" / "scores.txt").read_text().splitlines():
            name, _, value = line.partition(" : ")
            official[name.lower()] = float(value)
        assert {k: scores[k] for k in ("f1", "precision", "recall")} == official


def test_init_zip_is_a_bundle_check_accepts(cli: Cli, tmp_path: Path) -> None:
    gold = SAMPLES / "trec/qrels.txt"
    built = cli(
        "codabench", "init", "trec", "--gold", f"dev={gold}", "--out", tmp_path / "b", "--zip"
    )
    assert built.exit_code == 0, built.stderr
    assert "no solution" not in built.stderr  # the qrels converted into a run
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        names = archive.namelist()
    assert "competition.yaml" in names and "scoring_program/metadata.yaml" in names
    assert "solutions/dev/run.txt" in names and "README.md" in names
    run = _zip(SAMPLES / "trec/run.txt", tmp_path / "run.zip")
    checked = cli("codabench", "check", tmp_path / "b.zip", "--submission", run)
    assert checked.exit_code == 0, checked.stderr
    assert checked.stdout.startswith("run.zip: map ")


def test_a_submission_with_no_defined_score_fails(bundles: SampleBundles, tmp_path: Path) -> None:
    bundle = bundles["trec"]
    run = tmp_path / "run.txt"
    run.write_text("no-such-query Q0 d1 1 1.0 tag\n")
    status, stderr, output = worker(bundle, _zip(run, tmp_path / "run.zip"), tmp_path / "w")
    assert status == 2 and "no score is defined for this submission: map" in stderr
    assert not (output / "scores.json").exists()  # never an empty row, never NaN
    assert "No score is defined" in (output / "detailed_results.html").read_text()


def test_an_undefined_score_is_left_out_and_named_in_the_report(
    bundles: SampleBundles, tmp_path: Path
) -> None:
    """No entity predicted: each precision is undefined, left out of scores.json, named in the
    report's leaderboard card (value ``undefined`` and in the list left out), recall shown."""
    bundle = bundles["spans"]
    empty = tmp_path / "empty"
    empty.mkdir()
    for path in (SAMPLES / "pharmaconer/system/subtrack1/sample").glob("*.ann"):
        (empty / path.name).write_text("", encoding="utf-8")
    status, stderr, output = worker(bundle, _zip(empty, tmp_path / "e.zip"), tmp_path / "run")
    assert status == 0, stderr
    config = json.loads((bundle / "scoring_program/annoscore-bundle.json").read_text())
    columns: dict[str, str] = config["columns"]
    undefined = [key for key, name in columns.items() if name.endswith("_precision")]
    assert len(undefined) == 4
    scores = json.loads((output / "scores.json").read_text())
    assert list(scores) == [key for key in columns if key not in undefined]
    page = (output / "detailed_results.html").read_text()
    result = json.loads((output / "result.json").read_text())
    _check_report(page, result, columns)
    left = page.partition("<h3>Left out of the leaderboard (undefined)</h3><ul>")[2]
    assert left.partition("</ul>")[0] == "".join(f"<li>{key}</li>" for key in undefined)


# --- every registered task: the solution scores the best its rules allow ------------------------

BEST = re.compile(r"the best (\w+) is ([0-9.]+)")


def _sample_bundle(task: str, out: Path) -> tuple[Path, str]:
    """A bundle of ``task`` built from its sample gold; init's stderr."""
    from typer.testing import CliRunner

    from annoscore.cli import app
    from annoscore.tasks import registry

    gold, _, options = registry.sample_paths(registry.get(task))
    args = ["codabench", "init", task, "--gold", f"dev={gold}", "--out", str(out)]
    for name, value in options.items():
        args += ["--option", f"{name}={value}"]
    done = CliRunner().invoke(app, args, catch_exceptions=False)
    assert done.exit_code == 0, done.stderr
    return out, done.stderr


def _all_tasks() -> list[str]:
    from annoscore.tasks import registry

    return list(registry.TASKS)


@pytest.mark.parametrize("task", _all_tasks())
def test_every_task_s_solution_scores_1_or_the_stated_best_in_the_worker(
    task: str, tmp_path: Path, cli: Cli, bundles: SampleBundles
) -> None:
    from annoscore.tasks import registry

    entry = registry.get(task)
    bundle, stderr = bundles[task], bundles.stderr(task)
    competition = json.loads((bundle / "competition.yaml").read_text(encoding="utf-8"))
    assert [s["path"] for s in competition["solutions"]] == ["solutions/dev"]
    solution = _zip(bundle / "solutions" / "dev", tmp_path / "solution.zip")
    status, err, output = worker(bundle, solution, tmp_path / "run")
    assert status == 0, err
    scores = json.loads((output / "scores.json").read_text())
    readme = (bundle / "README.md").read_text(encoding="utf-8")
    stated = BEST.findall(readme)
    assert stated == BEST.findall(stderr)  # init's notes and the README say the same
    headline = entry.headline if entry.headline in scores else None
    if headline is None:  # nlpsandbox-all, spans in SemEval mode: every score
        # (NLP Sandbox: a person name has no type, and a missing type never equals another)
        below = {k for k, v in scores.items() if v != 1.0}
        assert scores and below <= {f"person_type_{s}" for s in ("precision", "recall", "f1")}
    elif stated:
        assert stated == [(headline, f"{scores[headline]:.4f}".rstrip("0"))]
        assert scores[headline] < 1.0
    else:
        assert scores[headline] == 1.0, (scores, err)
        assert "dev: scores " in readme
    # and annoscore validate finds nothing wrong with it (no problem, no unknown or missing
    # document)
    gold, _, options = registry.sample_paths(entry)
    args: list[object] = ["validate", task, bundle / "solutions" / "dev", "--gold", gold]
    for name, value in options.items():
        args += ["--option", f"{name}={value}"]
    validated = cli(*args)
    assert validated.exit_code == 0, validated.stdout
    if entry.solution is None:  # the gold is copied as it is
        assert sorted(p.name for p in (bundle / "solutions" / "dev").rglob("*.*")) == sorted(
            p.name
            for p in (bundle / "reference_data" / "dev").rglob("*.*")
            if p.suffix != ".txt" or not any(bundle.rglob("*.ann"))
        )


def test_nlpsandbox_needs_no_compiled_package_and_not_nltk_s_package_imports(
    tmp_path: Path, bundles: SampleBundles
) -> None:
    """The token level loads NLTK's Treebank tokenizer alone (phi_tokens.treebank_tokenizer):
    neither ``regex`` nor scikit-learn (which ``import nltk`` pulls in when installed) is
    needed; the program runs with the standard library, numpy, scipy and the vendored code."""
    bundle, stderr = bundles["nlpsandbox-date"], bundles.stderr("nlpsandbox-date")
    config = json.loads((bundle / "scoring_program/annoscore-bundle.json").read_text())
    assert config["image"] == {}
    assert "compiled package" not in stderr and "sklearn" not in stderr
    vendored = {p.name for p in (bundle / "scoring_program" / "vendor").iterdir()}
    assert "nltk" in vendored and not vendored & {"sklearn", "joblib", "threadpoolctl", "regex"}
    assert "compiled package" not in (bundle / "README.md").read_text()
    solution = _zip(bundle / "solutions" / "dev", tmp_path / "solution.zip")
    status, err, output = worker(bundle, solution, tmp_path / "run")  # regex: a tripwire
    assert status == 0, err
    assert json.loads((output / "scores.json").read_text())["token_strict_f1"] == 1.0


def test_a_gold_that_cannot_be_converted_gets_no_solution_and_a_note(
    cli: Cli, tmp_path: Path
) -> None:
    gold = tmp_path / "qrels.txt"
    gold.write_text("q1 0 d1 1\nq1 0 d2\n", encoding="utf-8")  # a line with 3 fields
    built = cli("codabench", "init", "trec", "--gold", f"dev={gold}", "--out", tmp_path / "b")
    assert built.exit_code == 0, built.stderr
    assert "phase dev: no solution: the gold cannot be converted" in built.stderr
    assert "qrels.txt:2" in built.stderr
    assert not (tmp_path / "b" / "solutions").exists()
    assert "- dev: none" in (tmp_path / "b" / "README.md").read_text(encoding="utf-8")


def test_vendor_hides_optional_compiled_packages_at_once_else_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two compiled packages nobody requires: the scoring is tried without both first; when
    that changes the output (one of them is needed after all), each is tried alone, and only
    the one whose absence changes nothing is left out."""
    from annoscore.cli import codabench_vendor

    site = tmp_path / "site"
    packages = {}
    for name in ("optional_ext", "needed_ext", "pure"):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text("")
        if name != "pure":
            (site / name / "core.so").write_bytes(b"")
        packages[name] = site / name
    tried: list[list[str]] = []

    def closure(layout: Path, config: Path, hidden: list[str]) -> Any:
        tried.append(sorted(hidden))
        found = [path for name, path in packages.items() if name not in hidden]
        output = (b"fails",) if "needed_ext" in hidden else (b"same",)
        return codabench_vendor._Closure(found, 0, output)

    monkeypatch.setattr(codabench_vendor, "_closure", closure)
    monkeypatch.setattr(codabench_vendor, "_needed_by", lambda name, found: [])
    program = tmp_path / "program"
    program.mkdir()
    compiled = codabench_vendor.vendor(program, tmp_path / "layout", tmp_path / "config")
    assert tried == [
        [],
        ["needed_ext", "optional_ext"],
        ["optional_ext"],
        ["needed_ext", "optional_ext"],
    ]
    assert compiled == {"needed_ext": []}
    assert (program / "vendor" / "pure" / "__init__.py").exists()
    assert not (program / "vendor" / "optional_ext").exists()
    # every candidate optional: one scoring more, not one per package
    tried.clear()
    monkeypatch.setattr(
        codabench_vendor,
        "_closure",
        lambda layout, config, hidden: (
            tried.append(sorted(hidden))
            or codabench_vendor._Closure(
                [p for n, p in packages.items() if n not in hidden], 0, (b"same",)
            )
        ),
    )
    program2 = tmp_path / "program2"
    program2.mkdir()
    assert codabench_vendor.vendor(program2, tmp_path / "layout", tmp_path / "config") == {}
    assert tried == [[], ["needed_ext", "optional_ext"]]


# --- a bundle of sub-tasks: one submission, a folder per sub-task entered -----------------------

CODALAB_SUBTASKS = ("subtask1", "subtask2")


def _codalab_official(subtask: str) -> dict[str, float]:
    official = {}
    scores = shared_data("pharmaconer", "codalab", subtask, "output", "scores.txt")
    for line in scores.read_text().splitlines():
        name, _, value = line.partition(" : ")
        official[f"{subtask}_{name.lower()}"] = float(value)
    return official


@pytest.fixture(scope="module")
def subtask_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PharmaCoNER's two sub-tracks in one bundle, from the CodaLab data (each sub-task's gold
    given as PHASE:SUBTASK=PATH; an option for both, one for sub-task 2); built once per run."""
    return built_once(tmp_path_factory, "subtasks", _build_subtask_bundle)[0] / "bundle"


def _build_subtask_bundle(root: Path) -> str:
    from typer.testing import CliRunner

    from annoscore.cli import app

    base = shared_data("pharmaconer", "codalab")
    out = root / "bundle"
    args = ["codabench", "init", "subtask1=pharmaconer-ner", "subtask2=pharmaconer-indexing"]
    for subtask in CODALAB_SUBTASKS:
        args += ["--gold", f"test:{subtask}={base / subtask / 'input' / 'ref' / subtask}"]
    args += ["--option", "codalab=true"]
    args += ["--option", f"subtask2:gold_ann={base / 'subtask2' / 'input' / 'ref' / 'subtask1'}"]
    done = CliRunner().invoke(app, [*args, "--out", str(out)], catch_exceptions=False)
    assert done.exit_code == 0, done.stderr
    return ""


def _subtask_zip(target: Path, subtasks: tuple[str, ...], top: str = "", **bad: str) -> Path:
    """A submission with the CodaLab system output of ``subtasks``, each in its folder (inside
    ``top``); ``bad``: a sub-task's first file gets this line first."""
    with zipfile.ZipFile(target, "w") as archive:
        for subtask in subtasks:
            res = shared_data("pharmaconer", "codalab", subtask, "input", "res", subtask)
            for k, path in enumerate(sorted(res.iterdir())):
                data = path.read_bytes()
                if k == 0 and subtask in bad:
                    data = bad[subtask].encode() + data
                archive.writestr(f"{top}{subtask}/{path.name}", data)
                archive.writestr(f"__MACOSX/{top}{subtask}/._{path.name}", b"x")
    return target


FRAME = re.compile(r"<h2 id='subtask-([^']*)'>[^<]*</h2><iframe title='[^']*' srcdoc='([^']*)'>")


def _check_subtask_reports(page: str, output: Path, bundle: Path) -> list[str]:
    """Each sub-task entered has its report in a frame of the page (:func:`_check_report`
    against its part of result.json, its columns); the sub-tasks shown, in order."""
    import html

    result = json.loads((output / "result.json").read_text())
    config = json.loads((bundle / "scoring_program/annoscore-bundle.json").read_text())
    frames = FRAME.findall(page)
    for name, document in frames:
        _check_report(
            html.unescape(document), result["subtasks"][name], config["subtasks"][name]["columns"]
        )
    assert [name for name, _ in frames] == list(result["subtasks"])
    return [name for name, _ in frames]


def test_a_bundle_of_sub_tasks_writes_the_prefixed_keys_and_the_codalab_numbers(
    subtask_bundle: Path, tmp_path: Path
) -> None:
    keys = _leaderboard_keys(subtask_bundle)
    assert keys == [f"subtask{n}_{s}" for n in (1, 2) for s in ("f1", "precision", "recall")]
    config = json.loads((subtask_bundle / "scoring_program/annoscore-bundle.json").read_text())
    assert list(config["subtasks"]) == list(CODALAB_SUBTASKS) and "task" not in config
    assert config["subtasks"]["subtask2"]["options"]["codalab"] == "true"
    assert sorted(p.name for p in (subtask_bundle / "reference_data" / "test").iterdir()) == [
        *CODALAB_SUBTASKS
    ]
    assert sorted(p.name for p in (subtask_bundle / "solutions" / "test").iterdir()) == [
        *CODALAB_SUBTASKS
    ]
    with zipfile.ZipFile(subtask_bundle / "starting_kit" / "sample_submission.zip") as kit:
        assert {n.split("/")[0] for n in kit.namelist()} == set(CODALAB_SUBTASKS)
    submission = _subtask_zip(tmp_path / "s.zip", CODALAB_SUBTASKS, top="team-run1/")
    status, stderr, output = worker(subtask_bundle, submission, tmp_path / "run")
    assert status == 0, stderr
    scores = json.loads((output / "scores.json").read_text())
    assert list(scores) == keys
    assert scores == {**_codalab_official("subtask1"), **_codalab_official("subtask2")}
    assert "top folder 'team-run1/'" in stderr and "__MACOSX/" in stderr
    result = json.loads((output / "result.json").read_text())
    assert [result["subtasks"][s]["task"] for s in CODALAB_SUBTASKS] == [
        "pharmaconer-ner",
        "pharmaconer-indexing",
    ]
    page = (output / "detailed_results.html").read_text()
    assert _check_subtask_reports(page, output, subtask_bundle) == list(CODALAB_SUBTASKS)
    for key, value in scores.items():
        assert f"<td><code>{key}</code></td><td>{key.partition('_')[2]}</td><td>{value:.4f}" in page


def test_a_team_may_enter_a_subset_of_the_sub_tasks(subtask_bundle: Path, tmp_path: Path) -> None:
    """Only sub-task 2, inside a top folder: its columns only; sub-task 1 named as not entered
    (the single folder 'subtask2/' is not taken for a top folder to step into)."""
    for top in ("", "my-team/"):
        submission = _subtask_zip(tmp_path / f"s{len(top)}.zip", ("subtask2",), top=top)
        status, stderr, output = worker(subtask_bundle, submission, tmp_path / f"run{len(top)}")
        assert status == 0, stderr
        scores = json.loads((output / "scores.json").read_text())
        assert scores == _codalab_official("subtask2")
        details = (output / "detailed_results.html").read_text()
        assert "Sub-tasks not entered" in details and "subtask1: subtask1_f1" in details
        assert _check_subtask_reports(details, output, subtask_bundle) == ["subtask2"]
        assert "<td>subtask1</td><td><code>subtask1_f1</code></td><td>f1</td><td>not entered" in (
            details
        )
        assert "sub-task(s) not entered: subtask1" in stderr


SMALL = {
    "ner": (
        "pharmaconer-ner",
        SAMPLES / "pharmaconer/gold/subtrack1/sample",
        SAMPLES / "pharmaconer/system/subtrack1/sample",
    ),
    "diag": ("codiesp-d", SAMPLES / "codiesp/gs_D.tsv", SAMPLES / "codiesp/pred_D.tsv"),
}
"""A small bundle of sub-tasks from the samples: a brat folder and a one-file gold."""


@pytest.fixture(scope="module")
def small_subtask_bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The bundle of :data:`SMALL` (``--gold PHASE=DIR`` with a folder per sub-task, an option
    of one sub-task) and init's stdout; built once per run."""
    root, stdout = built_once(tmp_path_factory, "small", _build_small_subtask_bundle)
    return root / "b", stdout


def _build_small_subtask_bundle(root: Path) -> str:
    from typer.testing import CliRunner

    from annoscore.cli import app

    gold = root / "gold"
    for name, (_, path, _) in SMALL.items():
        _copy_gold(path, gold / name)
    args = ["codabench", "init", *(f"{n}={t}" for n, (t, _, _) in SMALL.items())]
    args += ["--gold", f"dev={gold}", "--option", f"diag:codes={SAMPLES / 'codiesp/codes-D.tsv'}"]
    done = CliRunner().invoke(app, [*args, "--out", str(root / "b")], catch_exceptions=False)
    assert done.exit_code == 0, done.stderr
    return done.stdout


def _copy_gold(path: Path, target: Path) -> None:
    if path.is_dir():
        shutil.copytree(path, target)
    else:
        target.mkdir(parents=True)
        shutil.copyfile(path, target / path.name)


def _small_zip(target: Path, names: tuple[str, ...] = ("ner", "diag"), **bad: str) -> Path:
    """A submission of the sample systems of ``names``, each in its folder; ``bad``: a
    sub-task's first file gets this line first."""
    with zipfile.ZipFile(target, "w") as archive:
        for name in names:
            system = SMALL[name][2]
            files = sorted(system.glob("*.ann")) if system.is_dir() else [system]
            for k, path in enumerate(files):
                data = path.read_bytes()
                if k == 0 and name in bad:
                    data = bad[name].encode() + data
                archive.writestr(f"{name}/{path.name}", data)
    return target


def test_a_malformed_sub_task_or_a_stray_folder_fails_with_one_line(
    small_subtask_bundle: tuple[Path, str], tmp_path: Path
) -> None:
    bundle = small_subtask_bundle[0]
    bad = _small_zip(tmp_path / "bad.zip", ner="T1\tDRUG 1 x\tbad\n")
    status, stderr, output = worker(bundle, bad, tmp_path / "bad")
    assert status == 2 and "Traceback" not in stderr
    error = [line for line in stderr.splitlines() if line.startswith("annoscore: error")]
    assert len(error) == 1 and error[0].startswith("annoscore: error: ner/")
    assert ":1: bad offsets" in error[0]
    assert not (output / "scores.json").exists()
    stray = tmp_path / "stray.zip"
    with zipfile.ZipFile(stray, "w") as archive:
        archive.writestr("ner/", "")  # entered, but holds no file
        archive.writestr("subtask3/a.ann", "")
    status, stderr, output = worker(bundle, stray, tmp_path / "stray")
    assert status == 2
    assert stderr.endswith(
        "annoscore: error: 'subtask3/' is no sub-task's folder (expected ner, diag)"
        " (and 1 more: see the detailed results)\n"
    )
    assert "ner: the submission is empty" in (output / "detailed_results.html").read_text()
    loose = tmp_path / "loose.zip"
    with zipfile.ZipFile(loose, "w") as archive:
        archive.writestr("a.ann", "T1\tDRUG 0 1\tx\n")
    status, stderr, _ = worker(bundle, loose, tmp_path / "loose")
    assert status == 2 and "no sub-task folder (expected ner, diag): it holds a.ann" in stderr
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    status, stderr, _ = worker(bundle, empty, tmp_path / "empty")
    assert status == 2 and "the submission is empty" in stderr


def test_check_verifies_a_bundle_of_sub_tasks_and_each_sub_task_alone(
    cli: Cli, small_subtask_bundle: tuple[Path, str]
) -> None:
    result = cli("codabench", "check", small_subtask_bundle[0])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("dev: ner_f1 1.0000 | ner_precision 1.0000 | ner_recall 1.0000")
    assert "| diag_map 1.0000 |" in lines[0]
    assert lines[1].startswith("dev-ner-alone: ner_f1 1.0000 |") and "diag" not in lines[1]
    assert lines[2].startswith("dev-diag-alone: diag_map 1.0000 |") and "ner" not in lines[2]


def test_check_finds_a_sub_task_column_its_program_does_not_write(
    cli: Cli, small_subtask_bundle: tuple[Path, str], tmp_path: Path
) -> None:
    bundle = tmp_path / "broken"
    shutil.copytree(small_subtask_bundle[0], bundle)
    path = bundle / "scoring_program" / "annoscore-bundle.json"
    config = json.loads(path.read_text())
    del config["subtasks"]["diag"]["columns"]["diag_recall"]  # no longer written
    path.write_text(json.dumps(config))
    alone = _small_zip(tmp_path / "alone.zip", ("diag",))  # one dry run, not each alone
    result = cli("codabench", "check", bundle, "--submission", alone)
    assert result.exit_code == 2
    assert "leaderboard column 'diag_recall': not written by the program" in result.stderr


def test_init_with_a_folder_per_sub_task_and_its_syntax_errors(
    cli: Cli, small_subtask_bundle: tuple[Path, str], tmp_path: Path
) -> None:
    bundle, stdout = small_subtask_bundle
    assert "bundle for ner=pharmaconer-ner, diag=codiesp-d, phases dev" in stdout
    assert _leaderboard_keys(bundle)[:5] == [
        "ner_f1", "ner_precision", "ner_recall", "diag_map", "diag_precision",
    ]  # fmt: skip
    config = json.loads((bundle / "scoring_program/annoscore-bundle.json").read_text())
    assert config["subtasks"]["diag"]["options"] == {"codes": "data/diag/codes.tsv"}
    assert (bundle / "scoring_program/data/diag/codes.tsv").is_file()
    assert (bundle / "reference_data/dev/diag/gs_D.tsv").is_file()
    assert not any((bundle / "solutions/dev/ner").glob("*.txt"))  # brat texts left out
    gold = bundle / "reference_data" / "dev"
    base = ["codabench", "init", "ner=pharmaconer-ner", "diag=codiesp-d"]
    for args, message in (
        (["--gold", f"dev={gold / 'ner'}"], "phase 'dev' has no gold standard for"),
        (["--gold", f"dev:other={gold}"], "no sub-task 'other'"),
        (["--gold", f"dev={gold}", "--option", "x:codes=a"], "no sub-task 'x'"),
        (["--gold", f"dev={gold}", "--option", "nothing=1"], "no sub-task's task has the option"),
    ):
        done = cli(*base, *args, "--out", tmp_path / "x")
        assert done.exit_code == 2 and message in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1
    done = cli("codabench", "init", "a=trec", "a=trec", "--gold", "d=x", "--out", tmp_path / "y")
    assert done.exit_code == 2 and "sub-task 'a' is named twice" in done.stderr
    shown = cli("codabench", "init", "--help")
    assert "subtask1=pharmaconer-ner" in " ".join(shown.stdout.split())


# --- the detailed results in a browser ----------------------------------------------------------


def test_the_detailed_results_load_in_a_browser_with_every_number_the_json_s(
    browser: Any,
    bundles: SampleBundles,
    small_subtask_bundle: tuple[Path, str],
    tmp_path: Path,
) -> None:
    """The report of one task (per-type table, leaderboard card) loads with no console error
    and no request, each number shown (the leaderboard's too) the embedded JSON's; the page of
    sub-tasks loads each sub-task's report in its frame, with no error either."""
    from tests.report.browser import at, check_number, open_report

    bundle = bundles["pharmaconer-ner"]
    system = _zip(SAMPLES / "pharmaconer/system/subtrack1/sample", tmp_path / "s.zip")
    status, stderr, output = worker(bundle, system, tmp_path / "one")
    assert status == 0, stderr
    opened = open_report(browser, output / "detailed_results.html")
    try:
        data = opened.data()
        numbers = opened.numbers()
        shown = [n for n in numbers if n[0][0] == "scores"]
        assert len(shown) >= 2 * len(_leaderboard_keys(bundle))  # the card's and the table's
        for path, text, title in numbers:
            check_number(at(data, path), text, title)
        assert opened.page.is_visible("#leaderboard-columns") and opened.page.is_visible("#types")
        assert opened.errors == []
    finally:
        opened.page.close()
    submission = _small_zip(tmp_path / "both.zip")
    status, stderr, output = worker(small_subtask_bundle[0], submission, tmp_path / "both")
    assert status == 0, stderr
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((output / "detailed_results.html").resolve().as_uri())
        frames = [f for f in page.frames if f != page.main_frame]
        assert len(frames) == len(SMALL)
        for frame in frames:
            frame.wait_for_selector("html[data-ready='1']", timeout=10_000)
            assert frame.eval_on_selector("#annoscore-result", "e => e.textContent")
        assert errors == []
    finally:
        page.close()
