"""The command-line contract of ``shared/spec/cli.md``, for every invocation of its table.

Each scoring command (every row of the table, ``annoscore muc`` with template, named entity and
coreference inputs, ``coref``, ``are 1..4``, ``trec`` and every ``spans`` mode) runs on the
built-in samples, copied once into a temporary folder so no test can touch the package's files:

- ``--format text|json|csv|markdown``: JSON is one object on stdout with the table's score keys,
  scores fractions or null, counts numbers; CSV one header and rows of its width; Markdown a table;
- ``--per-doc``: a ``documents`` object in JSON whose counts add up to the corpus counts, and the
  documents shown in every other format (text included);
- ``-o FILE``: the output there and nothing on stdout; an input as ``-o`` refused with a one-line
  exit 2 and the input unchanged; ``-o`` into a missing folder a one-line exit 2;
- bad input (missing, empty, a folder, binary, a malformed line) and bad flag values: exit 2 and
  one line on stderr naming the file, never a traceback, never exit 1.

The commands run through :func:`annoscore.cli.main`, the console script, so usage errors are
checked as users see them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from annoscore.cli import main
from annoscore.samples import SAMPLES
from tests.reliability.commands import BY_NAME, COMMANDS, IDS, NER, Command

FRACTIONAL_COUNTS = ("ap_sum", "credit_sum", "_num")
"""Counts that are sums of fractions by definition (MAP's AP sum, ARE credits, B3/CEAF/ARE
numerators): additive, but not integers (style.md: "MAP is additive (ap_sum, queries)")."""


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the samples: outputs aimed at inputs can only ever touch this copy."""
    target = tmp_path_factory.mktemp("contract") / "samples"
    shutil.copytree(SAMPLES, target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return target


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Run the console script in-process: exit status, stdout, stderr."""

    def invoke(*args: object) -> Run:
        try:
            main([str(a) for a in args])
            status = 0
        except SystemExit as done:
            status = done.code if isinstance(done.code, int) else 0
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return invoke


def scored(result: Run) -> Run:
    assert result.status == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def one_line_error(result: Run, *names: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr that names one of ``names``."""
    assert result.status == 2, (result.status, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("annoscore: error: "), lines[0]
    if names:
        assert any(n in lines[0] for n in names), (names, lines[0])
    return lines[0]


def json_of(result: Run) -> dict[str, Any]:
    data = json.loads(scored(result).stdout)  # the whole of stdout is one JSON value
    assert isinstance(data, dict)
    return data


def check_counts(counts: dict[str, Any]) -> None:
    for name, value in counts.items():
        assert isinstance(value, int | float) and not isinstance(value, bool), (name, value)
        if not any(part in name for part in FRACTIONAL_COUNTS):
            assert isinstance(value, int), f"count {name} = {value!r} is not an integer"


def check_scores(scores: dict[str, Any]) -> None:
    for name, value in scores.items():
        assert value is None or isinstance(value, float), (name, value)
        if value is not None:
            assert 0.0 <= value <= 1.0 + 1e-12, f"score {name} = {value} is not a fraction"


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_json_is_one_object_with_the_tables_keys(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    data = json_of(run(*command.args(root), "--format", "json"))
    assert {"task", "signature", "scores", "counts", "warnings"} <= data.keys()
    assert isinstance(data["task"], str) and isinstance(data["signature"], str)
    assert set(command.scores) <= data["scores"].keys()
    assert set(command.counts) <= data["counts"].keys()
    check_scores(data["scores"])
    check_counts(data["counts"])
    assert all(isinstance(w, str) and "\n" not in w for w in data["warnings"])
    assert "documents" not in data  # only with --per-doc


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_scores_are_unrounded_fractions_in_every_format(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    """CSV carries the JSON numbers exactly; Markdown shows the same fractions (not percent)."""
    scores = json_of(run(*command.args(root), "--format", "json"))["scores"]
    rows = list(csv.DictReader(io.StringIO(scored(run(*command.args(root), "-f", "csv")).stdout)))
    corpus = rows[0]
    assert (corpus["scope"], corpus["name"]) == ("corpus", "all")
    for key, value in scores.items():
        assert corpus[key] == ("" if value is None else repr(value)), key
    markdown = scored(run(*command.args(root), "-f", "markdown")).stdout
    body = next(line for line in markdown.splitlines() if line.startswith("| corpus | all |"))
    shown = [c.strip() for c in body.strip("|").split("|")]
    header = next(line for line in markdown.splitlines() if line.startswith("| scope |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    for key, value in scores.items():
        cell = shown[columns.index(key)]
        assert cell == ("" if value is None else f"{value:.4f}"), key


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_csv_has_one_header_and_rows_of_its_width(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    for extra in ((), ("--per-doc",)):
        text = scored(run(*command.args(root), *extra, "--format", "csv")).stdout
        rows = list(csv.reader(io.StringIO(text)))
        header = rows[0]
        assert header[:2] == ["scope", "name"] and len(set(header)) == len(header)
        assert set(command.scores) <= set(header)
        assert all(len(r) == len(header) for r in rows[1:])
        assert header not in rows[1:]
        if extra:
            assert any(r[0] == "document" for r in rows[1:])


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_markdown_is_a_table(command: Command, root: Path, run: Callable[..., Run]) -> None:
    text = scored(run(*command.args(root), "--format", "markdown")).stdout
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table) >= 3
    width = table[0].count("|")
    assert set(table[1].replace("|", "").replace(":", "")) == {"-"}
    assert all(line.endswith("|") for line in table)
    assert all(line.replace("\\|", "").count("|") == width for line in table)


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_text_is_the_default_and_prints_something(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    default = scored(run(*command.args(root)))
    assert default.stdout.strip()
    assert scored(run(*command.args(root), "--format", "text")).stdout == default.stdout
    assert scored(run(*command.args(root), "--format", "TEXT")).stdout == default.stdout


# --------------------------------------------------------------------------- --per-doc


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_per_doc_json_documents_add_up_to_the_corpus(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    data = json_of(run(*command.args(root), "--per-doc", "--format", "json"))
    documents = data["documents"]
    assert isinstance(documents, dict) and documents
    totals: dict[str, float] = {}
    for doc_id, unit in documents.items():
        assert isinstance(doc_id, str)
        assert {"scores", "counts"} <= unit.keys()
        check_scores(unit["scores"])
        check_counts(unit["counts"])
        for name, value in unit["counts"].items():
            totals[name] = totals.get(name, 0) + value
    for name, value in data["counts"].items():
        assert math.isclose(totals.get(name, 0), value, abs_tol=1e-9), name
    plain = json_of(run(*command.args(root), "--format", "json"))
    assert plain["scores"] == data["scores"] and plain["counts"] == data["counts"]


@pytest.mark.parametrize("fmt", ["text", "csv", "markdown"])
@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_per_doc_shows_the_documents_in_every_format(
    command: Command, fmt: str, root: Path, run: Callable[..., Run]
) -> None:
    """``--per-doc`` is never silently ignored: the first document id appears in the output
    (in text below or instead of the official layout's totals, which stay as they are)."""
    documents = json_of(run(*command.args(root), "--per-doc", "--format", "json"))["documents"]
    shown = scored(run(*command.args(root), "--per-doc", "--format", fmt)).stdout
    first = sorted(documents)[0]
    assert first in shown, f"--per-doc --format {fmt} does not show document {first!r}"


def test_trec_per_doc_text_is_trec_eval_q(root: Path, run: Callable[..., Run]) -> None:
    """trec_eval -q's per-query lines first, then the unchanged summary lines."""
    args = BY_NAME["trec"].args(root)
    summary = scored(run(*args)).stdout
    per_query = scored(run(*args, "--per-doc")).stdout
    assert per_query.endswith(summary)
    lines = per_query[: -len(summary)].splitlines()
    assert lines[:4] == [
        "num_ret               \tq1\t3",
        "num_rel               \tq1\t2",
        "num_rel_ret           \tq1\t2",
        "map                   \tq1\t0.5833",
    ]
    assert len(lines) == 4 * 3  # q1, q2, q3 (q4 is judged but not in the run: left out)


@pytest.mark.parametrize("name", ["pharmaconer-ner", "pharmaconer-ner-codalab"])
def test_pharmaconer_per_type_text_shows_the_types(
    name: str, root: Path, run: Callable[..., Run]
) -> None:
    """``--per-type`` is not silently dropped by the official layouts: the type rows follow."""
    args = BY_NAME[name].args(root)
    official = scored(run(*args)).stdout
    typed = scored(run(*args, "--per-type")).stdout
    assert typed.startswith(official)  # the official layout stays byte-for-byte above
    assert "PROTEINAS" in typed[len(official) :] and "macro_type" in typed[len(official) :]


def test_pharmaconer_per_doc_text_is_the_verbose_layout(
    root: Path, run: Callable[..., Run]
) -> None:
    args = BY_NAME["pharmaconer-ner"].args(root)
    assert scored(run(*args, "--per-doc")).stdout == scored(run(*args, "--verbose")).stdout


# --------------------------------------------------------------------------- -o FILE


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown"])
@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_output_file_gets_the_output_and_stdout_nothing(
    command: Command, fmt: str, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    target = tmp_path / f"out.{fmt}"
    expected = scored(run(*command.args(root), "--format", fmt)).stdout
    written = scored(run(*command.args(root), "--format", fmt, "-o", target))
    assert written.stdout == ""
    assert target.read_text(encoding="utf-8") == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temporary left


def _input_files(command: Command, root: Path) -> list[Path]:
    files = []
    for relative in command.inputs:
        path = root / relative
        files.append(min(p for p in path.iterdir() if p.is_file()) if path.is_dir() else path)
    return files


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_output_over_an_input_is_refused_and_the_input_kept(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    for target in _input_files(command, root):
        before = target.read_bytes()
        for fmt in ("text", "json"):
            result = run(*command.args(root), "--format", fmt, "-o", target)
            one_line_error(result, target.name)
            assert target.read_bytes() == before, f"{target} was overwritten"


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_output_into_a_missing_folder_is_one_line(
    command: Command, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    target = tmp_path / "no" / "such" / "folder" / "out.json"
    one_line_error(run(*command.args(root), "-o", target), "out.json")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_output_that_is_a_folder_is_one_line(
    command: Command, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    one_line_error(run(*command.args(root), "-o", tmp_path))


# --------------------------------------------------------------------------- bad input

BINARY = bytes(range(256)) * 8


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe" + BINARY)
    (tmp_path / "folder").mkdir()
    (tmp_path / "nul.txt").write_bytes(b"abc\x00def\n")
    return {
        "missing": tmp_path / "missing.txt",
        "folder": tmp_path / "folder",
        "binary": tmp_path / "binary.bin",
        "nul": tmp_path / "nul.txt",
        "empty": tmp_path / "empty.txt",
    }


CASES = [(c, i) for c in COMMANDS for i in range(len(c.inputs))]


@pytest.mark.parametrize(
    ("command", "index"), CASES, ids=[f"{c.name}-{c.inputs[i]}" for c, i in CASES]
)
def test_bad_input_files_are_one_line_exit_2(
    command: Command, index: int, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    """Missing, a folder, binary, NUL bytes: exit 2 and one line; an empty file is scored or
    refused the same way, never exit 1 or a traceback."""
    for kind, path in _bad_inputs(tmp_path).items():
        result = run(*command.args(root, {index: path}))
        assert "Traceback" not in result.stderr, (kind, result.stderr)
        if kind == "empty" and result.status == 0:
            continue
        if kind == "folder":  # a folder of nothing, or a folder where a file goes
            one_line_error(result)
            continue
        one_line_error(result, path.name)


MALFORMED: dict[str, tuple[int, str]] = {
    # command: (input index, a line that cannot be read)
    "codiesp-D": (1, "only-one-column\n"),
    "codiesp-X": (0, "S1\tDIAGNOSTICO\tcode\n"),
    "trec": (1, "q1 Q0 d1 1 not-a-number run\n"),
    "nlpsandbox-date": (0, '[{"annotationSource": 1}]\n'),
    "coref": (1, "#begin document (x); part 000\nx 0 0 w (1\n#end document\n"),
    "muc-te-files": (1, "<TEMPLATE-1-1> :=\n this is not a slot\n"),
    "are-2": (1, "<doc><a></doc>\n"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_line_names_file_and_line(
    name: str, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    index, content = MALFORMED[name]
    bad = tmp_path / f"bad-{Path(BY_NAME[name].inputs[index]).name}"
    bad.write_text("\n" * 2 + content, encoding="utf-8")  # the bad line is not line 1
    line = one_line_error(run(*BY_NAME[name].args(root, {index: bad})), bad.name)
    assert f"{bad.name}:" in line, line


def test_malformed_brat_line_in_a_folder_names_file_and_line(
    root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    system = tmp_path / "system"
    shutil.copytree(root / NER[1], system)
    victim = min(system.glob("*.ann"))
    victim.write_text(victim.read_text(encoding="utf-8") + "no tab here at all\n", "utf-8")
    lines = len(victim.read_text(encoding="utf-8").splitlines())
    for mode in ("strict", "semeval", "token"):
        line = one_line_error(run("spans", root / NER[0], system, "--mode", mode), victim.name)
        assert f"{victim.name}:{lines}:" in line


def test_pharmaconer_warns_about_a_file_whose_every_line_is_skipped(
    root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    """A system file written with spaces instead of tabs has no readable entity line: every
    line is skipped as the official script skips it, and the user must be told."""
    gold = min((root / NER[0]).glob("*.ann"))
    system = tmp_path / gold.name
    system.write_text("T1 PROTEINAS 0 5 abcde\n", encoding="utf-8")
    data = json_of(run("pharmaconer", "ner", gold, system, "--format", "json"))
    assert any(f"{system.name}:1" in w for w in data["warnings"]), data["warnings"]


# --------------------------------------------------------------------------- usage errors

BAD_FLAGS: list[tuple[str, tuple[str, ...], str]] = [
    ("trec", ("--format", "xml"), "--format"),
    ("spans-strict", ("--mode", "fuzzy"), "--mode"),
    ("spans-strict", ("--tolerance", "2"), "--tolerance"),
    ("spans-overlap", ("--overlap-of", "nothing"), "--overlap-of"),
    ("coref", ("--metric", "bleu"), "bleu"),
    ("muc-co", ("--metric", "bleu"), "bleu"),
    ("muc-te", ("--task", "xx"), "xx"),
    ("muc-te", ("--undefined", "?"), "--undefined"),
    ("pharmaconer-ner", ("--undefined", "nan"), "--undefined"),
    ("codiesp-D", ("--depth", "-1"), "--depth"),
    ("trec", ("--no-such-flag",), "--no-such-flag"),
    ("trec", ("--bootstrap", "x"), "--bootstrap"),
    ("coref", ("--confidence", "2"), "--confidence"),
]


@pytest.mark.parametrize(
    ("name", "extra", "named"), BAD_FLAGS, ids=[f"{n}{''.join(e)}" for n, e, _ in BAD_FLAGS]
)
def test_bad_flag_value_is_one_line_exit_2(
    name: str, extra: tuple[str, ...], named: str, root: Path, run: Callable[..., Run]
) -> None:
    one_line_error(run(*BY_NAME[name].args(root), *extra), named)


@pytest.mark.parametrize(
    "words",
    [
        ("are", "5", "--gold", "g.xml", "--pred", "p.xml"),
        ("nlpsandbox", "phone", "--gold", "g.json", "--pred", "p.json"),
        ("codiesp", "Q", "--gold", "g.tsv", "--pred", "p.tsv"),
        ("pharmaconer", "ner", "only-one-argument"),
    ],
)
def test_bad_sub_command_is_one_line_exit_2(
    words: tuple[str, ...], run: Callable[..., Run]
) -> None:
    one_line_error(run(*words))


def test_running_the_command_line_again_does_not_pile_up_sub_commands() -> None:
    """``register`` once per run: a process that runs ``main`` many times (this file does
    several hundred) got four more CodiEsp commands each time, and every run got slower."""
    import typer

    from annoscore.cli import codiesp

    for _ in range(3):
        holder = typer.Typer()
        codiesp.register(holder)
    (group,) = holder.registered_groups
    assert group.typer_instance is not None
    names = [c.name for c in group.typer_instance.registered_commands]
    assert sorted(names) == ["D", "P", "X", "d", "p", "x"]


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_csv_keeps_the_confidence_intervals(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    """``--bootstrap`` intervals are in JSON, text and Markdown; CSV had silently dropped them."""
    args = (*command.args(root), "--bootstrap", "20")
    intervals = json_of(run(*args, "--format", "json"))["intervals"]
    assert intervals
    rows = list(csv.DictReader(io.StringIO(scored(run(*args, "--format", "csv")).stdout)))
    corpus = rows[0]
    for key, bounds in intervals.items():
        low, high = ("", "") if bounds is None else (repr(bounds[0]), repr(bounds[1]))
        assert (corpus[f"{key}_low"], corpus[f"{key}_high"]) == (low, high), key
    assert all(r[f"{k}_low"] == "" for r in rows[1:] for k in intervals)


@pytest.mark.parametrize("name", ["trec", "muc-co"])
def test_output_files_get_the_usual_permissions(
    name: str, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    """An output is readable as any new file is (0o666 less the umask), and one that is
    replaced keeps its mode: written through a private temporary file, every output was 0o600."""
    mask = os.umask(0o022)
    try:
        new, old = tmp_path / "new.txt", tmp_path / "old.txt"
        old.write_text("previous run\n", encoding="utf-8")
        old.chmod(0o640)
        extra = ("--partitions", tmp_path / "partitions.txt") if name == "muc-co" else ()
        scored(run(*BY_NAME[name].args(root), "-o", new, *extra))
        scored(run(*BY_NAME[name].args(root), "-o", old))
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        assert stat.S_IMODE(old.stat().st_mode) == 0o640
        if extra:
            assert stat.S_IMODE((tmp_path / "partitions.txt").stat().st_mode) == 0o644
    finally:
        os.umask(mask)


def test_every_path_of_a_list_argument_is_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``guarded`` records the paths of a list argument (``compare``'s systems) as inputs too,
    so :func:`check_output` refuses to write over any of them."""
    import typer

    from annoscore.cli.common import guarded
    from annoscore.cli.writing import check_output

    @guarded
    def command(*, gold: Path, systems: list[Path], output: Path) -> None:
        check_output(output)

    gold, first, second = (tmp_path / n for n in ("gold", "a", "b"))
    command(gold=gold, systems=[first, second], output=tmp_path / "out")  # not an input: fine
    for target in (gold, first, second):
        with pytest.raises(typer.Exit) as stopped:
            command(gold=gold, systems=[first, second], output=target)
        assert stopped.value.exit_code == 2
        assert "refusing to write the output" in capsys.readouterr().err


@pytest.mark.parametrize("which", ["gold", "system"])
def test_compare_refuses_to_write_over_an_input(
    which: str, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    qrels, runs = tmp_path / "qrels.txt", [tmp_path / "a.txt", tmp_path / "b.txt"]
    shutil.copy(root / "trec/qrels.txt", qrels)
    for path in runs:
        shutil.copy(root / "trec/run.txt", path)
    target = qrels if which == "gold" else runs[0]
    before = target.read_bytes()
    result = run("compare", "trec", qrels, *runs, "-o", target)
    assert target.read_bytes() == before, f"compare -o overwrote its input {target.name}"
    one_line_error(result, target.name)


@pytest.mark.parametrize("bad", ["input", "missing folder"])
def test_muc_refused_output_leaves_no_report_file(
    bad: str, root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    """``-o`` is checked before the configured report files are written: a refused run (exit 2)
    used to leave the partition file (or summary, map history) behind."""
    command = BY_NAME["muc-co"]
    partitions = tmp_path / "partitions.txt"
    target = root / command.inputs[0] if bad == "input" else tmp_path / "no" / "out.txt"
    before = (root / command.inputs[0]).read_bytes()
    one_line_error(run(*command.args(root), "--partitions", partitions, "-o", target))
    assert not partitions.exists()
    assert (root / command.inputs[0]).read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_csv_counts_are_the_json_counts(
    command: Command, root: Path, run: Callable[..., Run]
) -> None:
    """CSV is for machines: a fractional count (``ap_sum``, B3 numerators, ARE credits) is
    written exactly, as the scores are, not rounded to 4 decimals."""
    counts = json_of(run(*command.args(root), "--format", "json"))["counts"]
    text = scored(run(*command.args(root), "--format", "csv")).stdout
    corpus = next(csv.DictReader(io.StringIO(text)))
    for key, value in counts.items():
        assert float(corpus[key]) == value, (key, corpus[key], value)


MUC_IGNORED = [
    ("muc-te", ("--metric", "bcub"), "--metric"),
    ("muc-ne", ("--metric", "bcub"), "--metric"),
    ("muc-te", ("--partitions", "{tmp}/partitions.txt"), "--partitions"),
    ("muc-ne", ("--partitions", "{tmp}/partitions.txt"), "--partitions"),
    ("muc-te", ("--strict-text",), "--strict-text"),
]


@pytest.mark.parametrize(
    ("name", "extra", "flag"), MUC_IGNORED, ids=[f"{n}{e[0]}" for n, e, _ in MUC_IGNORED]
)
def test_muc_refuses_an_option_its_task_does_not_read(
    name: str,
    extra: tuple[str, ...],
    flag: str,
    root: Path,
    tmp_path: Path,
    run: Callable[..., Run],
) -> None:
    """``--metric`` and ``--partitions`` (coreference) and ``--strict-text`` (the SGML tasks)
    were silently ignored by the other tasks: exit 0, the number not what was asked, no
    partition file.  Now one line and exit 2, as ``spans --tolerance`` outside relaxed mode."""
    words = [w.format(tmp=tmp_path) for w in extra]
    one_line_error(run(*BY_NAME[name].args(root), *words), flag)
    assert not (tmp_path / "partitions.txt").exists()


def test_muc_coreference_takes_those_options(
    root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    partitions = tmp_path / "partitions.txt"
    args = (*BY_NAME["muc-co"].args(root), "--metric", "bcub", "--strict-text")
    data = json_of(run(*args, "--partitions", partitions, "--format", "json"))
    assert "bcub_f1" in data["scores"] and partitions.read_text(encoding="utf-8")
    assert (
        "recall"
        in json_of(run(*BY_NAME["muc-ne"].args(root), "--strict-text", "-f", "json"))["scores"]
    )


def test_muc_unpaired_document_warning_is_a_sentence(
    root: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    """An empty key: the warning read '1 response document and are scored as if the other
    side were empty'."""
    empty = tmp_path / "empty.sgml"
    empty.write_text("", encoding="utf-8")
    data = json_of(run(*BY_NAME["muc-co"].args(root, {0: empty}), "--format", "json"))
    unpaired = [w for w in data["warnings"] if "as if the other side were empty" in w]
    assert unpaired and not any(" document and are " in w for w in unpaired), unpaired
