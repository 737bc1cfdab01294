"""``annoscore compare``: paired tests of systems on the PharmaCoNER sample, through the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

from annoscore.samples import SAMPLES
from tests.conftest import Cli

TASK = "pharmaconer-ner"
GOLD = SAMPLES / "pharmaconer" / "gold" / "subtrack1" / "sample"
SYSTEM = SAMPLES / "pharmaconer" / "system" / "subtrack1" / "sample"


def degraded_copy(tmp_path: Path) -> Path:
    """The gold sample with the first entity of every document removed: a system that misses
    one entity in each of the 14 documents that have one."""
    folder = tmp_path / "degraded"
    shutil.copytree(GOLD, folder)
    for ann in folder.glob("*.ann"):
        lines = ann.read_text(encoding="utf-8").splitlines(keepends=True)
        first = next((i for i, line in enumerate(lines) if line.startswith("T")), None)
        if first is not None:
            del lines[first]
        ann.write_text("".join(lines), encoding="utf-8")
    return folder


def test_a_perfect_system_is_significantly_better(cli: Cli, tmp_path: Path) -> None:
    degraded = degraded_copy(tmp_path)
    for test in ("bootstrap", "randomization"):
        data = cli.json("compare", TASK, GOLD, degraded, GOLD, "--test", test, "--samples", 2000)
        assert data["task"] == TASK and data["test"] == test
        assert data["baseline"] == "degraded"
        assert list(data["systems"]) == ["degraded", "sample"]  # folder names
        perfect = data["systems"]["sample"]
        assert perfect["scores"]["f1"] == 1.0
        baseline_f1 = data["systems"]["degraded"]["scores"]["f1"]
        assert perfect["difference"]["f1"] == 1.0 - baseline_f1 > 0
        low, high = perfect["interval"]["f1"]
        assert 0 < low < perfect["difference"]["f1"] <= high
        assert perfect["p_value"]["f1"] < 0.05
        assert perfect["p_value"]["recall"] < 0.05
        # no spurious entity on either side: the same precision, 1.0, and p = 1
        assert perfect["difference"]["precision"] == 0.0 and perfect["p_value"]["precision"] == 1
        assert data["systems"]["degraded"]["p_value"]["f1"] == 1.0


def test_the_sample_system_errs_in_one_document_only_so_nothing_is_significant(cli: Cli) -> None:
    # All the sample system's errors are in one of the 15 documents.  Swapping that document
    # between the two systems leaves |difference| as it is, so every randomization trial is as
    # extreme as the observation: p = 1 exactly; the bootstrap cannot call it significant either.
    args = ("compare", TASK, GOLD, SYSTEM, GOLD, "--names", "system,gold")
    randomization = cli.json(*args, "--test", "randomization", "--samples", 500)
    assert randomization["systems"]["gold"]["p_value"] == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }
    bootstrap = cli.json(*args)
    assert bootstrap["systems"]["gold"]["p_value"]["f1"] > 0.05
    assert bootstrap["signature"].endswith(
        "|task:pharmaconer-ner|codalab:no|mode:strict|min-overlap:0.0|overlap-basis:gold|"
        "tolerance:0|matching:one-to-one-optimal|duplicates:collapse|missing-docs:official|"
        "undefined:zero|test:bootstrap|samples:1000|confidence:0.95|seed:12345"
    )


def test_text_marks_significant_rows_and_writes_files(cli: Cli, tmp_path: Path) -> None:
    degraded = degraded_copy(tmp_path)
    done = cli("compare", TASK, GOLD, degraded, GOLD, "--names", "minus-one,perfect")
    assert done.exit_code == 0, done.output
    perfect = [line for line in done.stdout.splitlines() if line.startswith("perfect")]
    assert [line.endswith("*") for line in perfect] == [False, True, True]  # precision: p = 1
    assert "baseline minus-one" in done.stdout
    out = tmp_path / "comparison.md"
    done = cli("compare", TASK, GOLD, degraded, GOLD, "-f", "markdown", "-o", out)
    assert done.exit_code == 0 and done.stdout == ""
    assert "| sample |" in out.read_text(encoding="utf-8")


def test_seed_and_options_reach_the_signature(cli: Cli) -> None:
    args = ("compare", TASK, GOLD, SYSTEM, GOLD, "--samples", 300)
    first = cli.json(*args, "--seed", 7, "--confidence", 0.9, "--option", "mode=exact")
    assert "|mode:exact|" in first["signature"]
    assert first["signature"].endswith("|samples:300|confidence:0.9|seed:7")
    assert cli.json(*args, "--seed", 7, "--confidence", 0.9, "--option", "mode=exact") == first
    other = cli.json(*args, "--option", "missing-docs=count", "--option", "codalab=false")
    assert "|codalab:no|mode:strict|" in other["signature"]
    assert "|missing-docs:count|undefined:zero|" in other["signature"]


def test_options_reach_the_nlpsandbox_category_tasks(cli: Cli) -> None:
    """The NLP Sandbox category tasks share one options class: compare sees its options (they
    once took ``**options``, and compare knew none of them)."""
    folder = SAMPLES / "nlpsandbox"
    gold, pred = folder / "gold.json", folder / "pred.json"
    args = ("compare", "nlpsandbox-date", gold, pred, pred, "--samples", 50)
    data = cli.json(*args, "--option", "tokenizer=whitespace")
    assert "tokenizer:whitespace" in data["signature"]
    done = cli(*args, "--option", "bogus=1")
    assert done.exit_code == 2
    assert "takes strict-input, tokenizer, quotes, same-start, relax-margin, notes" in done.stderr


def test_documents_missing_from_a_system_are_left_out_with_a_warning(
    cli: Cli, tmp_path: Path
) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(SYSTEM, partial)
    for path in partial.glob("S0004-06142005000700014-1.*"):
        path.unlink()
    # the plain script would score the missing document as all missed: leave it out instead
    ignore = ("--option", "missing-docs=ignore")
    data = cli.json("compare", TASK, GOLD, SYSTEM, partial, "--samples", 100, *ignore)
    assert data["warnings"][0] == (
        "1 documents are not scored by every system and are left out of the comparison "
        "(e.g. S0004-06142005000700014-1)"
    )
    assert data["warnings"][1].startswith("partial: 1 gold document")  # the task's own warning
    assert data["systems"]["partial"]["difference"]["f1"] == 0.0


def test_bad_usage_exits_2_with_one_line(cli: Cli, tmp_path: Path) -> None:
    cases = [
        (("compare", "no-such-task", GOLD, SYSTEM, GOLD), "unknown task 'no-such-task'"),
        (("compare", TASK, GOLD, SYSTEM), "at least two systems"),
        (("compare", TASK, GOLD, SYSTEM, GOLD, "--names", "a"), "--names gives 1 names"),
        (("compare", TASK, GOLD, SYSTEM, GOLD, "--names", "a,a"), "its own non-empty name"),
        (("compare", TASK, GOLD, SYSTEM, GOLD, "--option", "bogus=1"), "unknown option"),
        (("compare", TASK, GOLD, SYSTEM, GOLD, "--option", "mode"), "NAME=VALUE"),
        (
            ("compare", TASK, GOLD, SYSTEM, GOLD, "--option", "missing-docs=maybe"),
            "not one of official, ignore",
        ),
        (("compare", TASK, GOLD, SYSTEM, GOLD, "--confidence", 1.5), "between 0 and 1"),
        (("compare", TASK, GOLD, SYSTEM, tmp_path / "nope"), "nope"),
    ]
    for args, message in cases:
        done = cli(*args)
        assert done.exit_code == 2, (args, done.output)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (args, done.stderr)


def test_an_input_read_once_is_named_as_given(tmp_path: Path) -> None:
    """``compare`` scores the gold once per system: a pipe or FIFO is copied once, and errors
    and warnings name the path as given, never the private copy."""
    import os
    import threading

    from annoscore.cli.compare import read_once
    from annoscore.errors import InputError
    from annoscore.score_warnings import ScoreWarning

    fifo = tmp_path / "gold.fifo"
    os.mkfifo(fifo)
    regular = tmp_path / "gold.tsv"
    regular.write_text("x\n", encoding="utf-8")
    with read_once() as once:
        assert once(regular) == regular and once(tmp_path) == tmp_path  # read where they are
        writer = threading.Thread(target=fifo.write_bytes, args=(b"q1 0 d1 1\n",))
        writer.start()  # writes once, when the FIFO is opened for reading
        copy = once(fifo)
        writer.join()
        assert copy != fifo and copy.read_bytes() == b"q1 0 d1 1\n"
        assert once(fifo) == copy  # the second system gets the same copy
        error = once.error(InputError("expected 4 columns", copy, 1))
        assert str(error) == f"{fifo}:1: expected 4 columns"
        warning = once.warning(ScoreWarning("x", f"{copy} is odd", 1, (f"{copy}:1",)))
        assert warning.message == f"{fifo} is odd" and warning.examples == (f"{fifo}:1",)
        folder = copy.parent.parent
    assert not folder.exists()  # the copies are removed
