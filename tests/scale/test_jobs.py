"""``--jobs N`` and ``annoscore.score(..., jobs=N)``: the same output as one job, byte for byte.

Every registered task on its sample (JSON with documents, types and averages, and the official
text layout) with 1, 2 and 3 jobs; random brat folders (every span mode; one-sided documents,
duplicates, byte-order marks, missing texts, texts that differ between the sides, names with
dots) with 1, 2 and 3 jobs, checked to
be really cut into chunks; errors inside a chunk name the original file.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of random corpora (default 1).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore
from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.result import Result
from annoscore.scale import Run, using
from annoscore.scale.folders import split_folders
from annoscore.tasks.registry import TASKS, sample_paths
from tests.conftest import Cli

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(10 * MULTIPLIER))


def _bytes(result: Result, text: Any = None) -> str:
    shown = result.shown(documents=True, types=True, averages=True)
    out = render(shown, "json")
    if text is not None:
        out += text(result)
    return out


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_gives_the_same_bytes_with_1_2_and_3_jobs_on_its_sample(name: str) -> None:
    task = TASKS[name]
    gold, system, options = sample_paths(task)
    outputs = [
        _bytes(annoscore.score(name, gold, system, jobs=jobs, **options), task.text_renderer())
        for jobs in (1, 2, 3)
    ]
    assert outputs[1] == outputs[0]
    assert outputs[2] == outputs[0]


def test_the_command_line_gives_the_same_bytes_with_jobs(cli: Cli) -> None:
    gold, system, _ = sample_paths(TASKS["spans"])
    for args in (
        ("spans", gold, system, "--mode", "semeval", "--per-doc", "--per-type"),
        ("pharmaconer", "ner", gold, system, "--per-doc"),
    ):
        one = cli(*args, "--format", "json", "--jobs", "1")
        assert one.exit_code == 0, one.output
        for jobs in ("2", "3", "0"):
            other = cli(*args, "--format", "json", "--jobs", jobs)
            assert other.exit_code == 0
            assert other.stdout == one.stdout
        text = [cli(*args, "-j", jobs).stdout for jobs in ("1", "2")]
        assert text[0] == text[1]


def test_a_negative_jobs_is_refused(cli: Cli) -> None:
    gold, system, _ = sample_paths(TASKS["spans"])
    assert cli("spans", gold, system, "--jobs", "-1").exit_code == 2
    with pytest.raises(InputError):
        annoscore.score("spans", gold, system, jobs=-1)


# --- random brat folders ---------------------------------------------------------------------

TYPES = ("Drug", "Gene", "Dose")
MODES: list[dict[str, Any]] = [
    {"mode": "strict"},
    {"mode": "exact"},
    {"mode": "overlap", "min_overlap": 0.5},
    {"mode": "relaxed", "tolerance": 2},
    {"mode": "token"},
    {"mode": "semeval"},
    {"mode": "strict", "duplicates": "collapse", "missing_docs": "ignore"},
    {"mode": "concepts"},  # folders: one run (its warning of no concept id is the corpus's)
]


def _text(rng: random.Random) -> str:
    words = ["aspirina", "dosis", "de", "ácido", "mg", "el", "gen", "BRCA1", "x", "ñu"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(3, 30)))


def _mentions(rng: random.Random, text: str, n: int) -> list[tuple[int, int, str]]:
    out = []
    for _ in range(n):
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randint(1, 12))
        out.append((start, end, rng.choice(TYPES)))
    if out and rng.random() < 0.2:
        out.append(out[0])  # a duplicate
    return out


def _write(folder: Path, stem: str, text: str, mentions: list[tuple[int, int, str]],
           rng: random.Random, with_text: bool) -> None:  # fmt: skip
    lines = [f"T{n}\t{kind} {s} {e}\t{text[s:e]}" for n, (s, e, kind) in enumerate(mentions, 1)]
    if lines and rng.random() < 0.03:  # tolerated input the readers warn about
        quirk = rng.randrange(4)
        if quirk == 0:
            lines.append(lines[0])  # a repeated id
        elif quirk == 1:
            lines.append(f"T99\tDrug 1 {len(text) + 3}\tzz")  # past the end of the text
        elif quirk == 2:
            lines.append("T98\tGene 0 1\tnot the text")  # a text differing from the .txt
        else:  # the text separated from the offsets by a space
            lines.append(f"T97\tDose 0 1 {text[0:1]}")
    if lines and rng.random() < 0.2:  # a concept id (--mode concepts), in some documents only
        lines.append(f"N1\tReference T1 db:{rng.randint(1, 3)}\t{text[0:1]}")
    body = "\n".join(lines) + ("\n" if lines else "")
    bom = "\ufeff" if rng.random() < 0.05 else ""
    (folder / f"{stem}.ann").write_text(bom + body, encoding="utf-8")
    if with_text:
        (folder / f"{stem}.txt").write_text(text, encoding="utf-8")


def _other_text(rng: random.Random, text: str) -> str:
    """``text`` with a line end after it (the same offsets: no warning), a space made two
    (every later offset moves: ``spans.text-differs``) or a word more at its end (a warning)."""
    roll = rng.random()
    at = text.find(" ", rng.randrange(len(text)))
    if roll < 0.4:
        return text + "\n"
    if roll < 0.8 and at >= 0:
        return text[:at] + "  " + text[at + 1 :]
    return text + " x"


def _corpus(rng: random.Random, root: Path) -> tuple[Path, Path]:
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    for n in range(rng.randint(2, 40)):
        stem = rng.choice(["doc", "S0004-0614", "a.b", "ü"]) + f"-{n:03d}"
        text = _text(rng)
        g = _mentions(rng, text, rng.randint(0, 6))
        p = [m for m in g if rng.random() < 0.7] + _mentions(rng, text, rng.randint(0, 3))
        side = rng.random()
        if side > 0.1:
            _write(gold, stem, text, g, rng, True)
        if side < 0.9:
            other = _other_text(rng, text) if rng.random() < 0.2 else text  # its own .txt
            _write(system, stem, other, p, rng, rng.random() < 0.8)
    for folder in (gold, system):  # a side without documents is an error, not a test here
        if not any(folder.glob("*.ann")):
            _write(folder, "zz-last", "x y", [], rng, True)
    return gold, system


def _inline(self: Run, function: Any, items: Any, ready: Any = None) -> list[Any]:
    return [function(item) for item in (items() if callable(items) else items)]


@pytest.mark.parametrize("seed", range(CASES))
def test_random_brat_folders_cut_and_combined_give_the_same_bytes(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cut and the reduce, the chunks scored in this process (fast: many cases)."""
    monkeypatch.setattr(Run, "map", _inline)
    _same_bytes_with_jobs(seed, tmp_path, (1, 3))


@pytest.mark.parametrize("seed", range(100, 100 + max(1, CASES // 5)))
def test_random_brat_folders_give_the_same_bytes_with_1_2_and_3_worker_processes(
    seed: int, tmp_path: Path
) -> None:
    _same_bytes_with_jobs(seed, tmp_path, (1, 2, 3))


def _same_bytes_with_jobs(seed: int, tmp_path: Path, jobs_list: tuple[int, ...]) -> None:
    rng = random.Random(seed)
    gold, system = _corpus(rng, tmp_path)
    # cut unless too few documents are on both sides (then one chunk, the same bytes)
    assert split_folders(gold, system, 4) is not None or len(list(gold.glob("*.ann"))) < 4
    for options in MODES:
        outputs = []
        for jobs in jobs_list:
            try:
                result = annoscore.score("spans", gold, system, jobs=jobs, **options)
            except InputError as error:
                outputs.append(f"error: {error}")
            else:
                outputs.append(_bytes(result))
        for other in outputs[1:]:
            assert other == outputs[0], options


def test_an_error_in_a_chunk_names_the_original_file(tmp_path: Path) -> None:
    rng = random.Random(7)
    gold, system = _corpus(rng, tmp_path)
    bad = sorted(system.glob("*.ann"))[-1]
    bad.write_text("T1\tDrug 4 x\tno\n", encoding="utf-8")
    messages = []
    for jobs in (1, 2):
        with pytest.raises(InputError) as caught:
            annoscore.score("spans", gold, system, jobs=jobs)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert str(bad) in messages[1]


def test_folders_with_entries_a_reader_warns_about_are_one_chunk(tmp_path: Path) -> None:
    gold, system = _corpus(random.Random(3), tmp_path)
    (gold / "sub").mkdir()
    assert split_folders(gold, system, 4) is None
    one = _bytes(annoscore.score("spans", gold, system))
    assert _bytes(annoscore.score("spans", gold, system, jobs=2)) == one


def test_the_cut_keeps_every_file_of_a_document_together(tmp_path: Path) -> None:
    gold, system = _corpus(random.Random(11), tmp_path)
    plan = split_folders(gold, system, 5)
    assert plan is not None
    seen: list[str] = []
    for chunk in plan:
        stems = {os.path.splitext(n)[0] for n in (*chunk.gold_names, *chunk.system_names)}
        assert not stems & set(seen)
        seen.extend(sorted(stems))
    assert seen == sorted(seen)
    names = {n for c in plan for n in c.gold_names}
    assert names == set(os.listdir(gold))


def test_the_run_in_force_is_restored(tmp_path: Path) -> None:
    from annoscore.scale import current

    with using(2) as run:
        assert current() is run
    assert current().serial
    assert json.loads("1") == 1


def test_a_corpus_without_tolerated_input_is_scored_by_chunks(
    tmp_path: Path, combined: list[bool]
) -> None:
    """The cut-and-combine path runs (no fallback to one run) when no example names a file
    both sides hold, and gives one run's bytes."""
    gold, system = _corpus(random.Random(2), tmp_path)
    one = _bytes(annoscore.score("spans", gold, system, mode="semeval"))
    assert _bytes(annoscore.score("spans", gold, system, mode="semeval", jobs=2)) == one
    assert combined == [True]


def test_texts_that_differ_are_pooled_from_the_chunks(tmp_path: Path, combined: list[bool]) -> None:
    """Paired documents whose .txt files differ (``spans.text-differs``) in several chunks:
    counted and named as one run names them (the first examples in order of the ids), the
    chunks combined (no fallback to one run)."""
    gold, system = tmp_path / "gold", tmp_path / "system"
    gold.mkdir()
    system.mkdir()
    for n in range(12):
        text = f"aspirina {n % 10} dosis de gen"
        other = text.replace(" ", "  ", 1) if n % 2 else text.replace(" ", "\n", 1)
        for folder, written, lines in (
            (gold, text, "T1\tDrug 0 8\taspirina\nT2\tDose 11 16\tdosis\n"),
            (system, other, "T1\tDrug 0 8\taspirina\n"),
        ):
            (folder / f"doc-{n:02d}.ann").write_text(lines, encoding="utf-8")
            (folder / f"doc-{n:02d}.txt").write_text(written, encoding="utf-8")
    for mode in ("strict", "concepts"):
        one = annoscore.score("spans", gold, system, mode=mode)
        (warning,) = [w for w in one.warnings if w.code == "spans.text-differs"]
        assert warning.count == 6 and len(warning.examples) == 5
        assert warning.examples[0].startswith("document doc-01, offset 9: gold ")
        assert _bytes(annoscore.score("spans", gold, system, mode=mode, jobs=2)) == _bytes(one)
    assert combined == [True]  # concepts: folders in one run (its no-concept-id warning)


@pytest.mark.parametrize("seed", range(200, 200 + max(1, CASES // 2)))
def test_chunks_of_a_run_that_shows_no_document_send_only_the_columns_of_macro_doc(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose output shows no document (``Run.documents`` false: the command line
    without ``--per-doc``) gets no document's scores from its chunks, only the columns
    ``macro_doc`` is made of, and gives one run's bytes, the documents shown or not."""
    import annoscore.scale.reduce as reduce
    from annoscore.scale import score_given

    monkeypatch.setattr(Run, "map", _inline)
    sent: list[bool] = []
    original = reduce.combine

    def spying(task: str, options: Any, parts: Any, *rest: Any) -> Result | None:
        sent.extend("documents" in p.result._cache for p in parts if p.result is not None)
        return original(task, options, parts, *rest)

    monkeypatch.setattr(reduce, "combine", spying)
    gold, system = _corpus(random.Random(seed), tmp_path)
    for options in MODES:
        try:
            one = annoscore.score("spans", gold, system, **options)
        except InputError:
            continue
        with using(3, documents=False):
            cut = score_given("spans", gold, system, **options)
        for view in ({"averages": True}, {"documents": True, "types": True, "averages": True}):
            assert render(cut.shown(**view), "json") == render(one.shown(**view), "json")
    assert sent and not any(sent)


# --- large folders cut with one process ------------------------------------------------------


@pytest.mark.parametrize("seed", range(300, 300 + CASES))
def test_random_brat_folders_cut_with_one_process_give_the_bytes_of_one_run(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, combined: list[bool]
) -> None:
    """Folders of more than ``FOLDER_CHUNK_DOCUMENTS`` documents are scored chunk by chunk
    with one process too (memory holds one chunk; a terminal shows the progress): the same
    bytes as one run of the whole, with every mode, warning and error."""
    import annoscore.scale.folders as folders

    rng = random.Random(seed)
    gold, system = _corpus(rng, tmp_path)
    for options in MODES:
        outputs = []
        for most in (1 << 40, rng.randint(1, 4)):
            monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", most)
            try:
                result = annoscore.score("spans", gold, system, **options)
            except InputError as error:
                outputs.append(f"error: {error}")
            else:
                outputs.append(_bytes(result))
        assert outputs[1] == outputs[0], options
    # cut (then combined, or left to one run) unless no cut could be made
    assert combined or split_folders(gold, system, 1, most=1) is None


def test_one_process_cuts_only_folders_larger_than_a_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, combined: list[bool]
) -> None:
    import annoscore.scale.folders as folders

    gold, system = _corpus(random.Random(2), tmp_path)
    stems = {p.name.split(".")[0] for p in (*gold.iterdir(), *system.iterdir())}
    monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", len(stems))
    one = _bytes(annoscore.score("spans", gold, system, mode="semeval"))
    assert combined == []  # one chunk would hold them all: one run, no plan
    monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", 3)
    assert _bytes(annoscore.score("spans", gold, system, mode="semeval")) == one
    assert combined == [True]
    plan = split_folders(gold, system, 1, most=3)
    assert plan is not None and len(plan) >= len(stems) // 3


def test_an_error_in_a_chunk_of_one_process_stops_the_chunks_and_names_one_runs_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunks after one that failed are not scored; the whole, scored in one run, names
    the error one run names."""
    import annoscore.scale.folders as folders

    gold, system = _corpus(random.Random(7), tmp_path)
    bad = sorted(system.glob("*.ann"))[0]
    bad.write_text("T1\tDrug 4 x\tno\n", encoding="utf-8")
    with pytest.raises(InputError) as whole:
        annoscore.score("spans", gold, system)
    scored: list[object] = []
    original = folders._scored_chunk

    def counting(*args: Any) -> Any:
        scored.append(args[-1])
        return original(*args)

    monkeypatch.setattr(folders, "_scored_chunk", counting)
    monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", 2)
    with pytest.raises(InputError) as cut:
        annoscore.score("spans", gold, system)
    assert str(cut.value) == str(whole.value) and str(bad) in str(cut.value)
    assert scored and len(scored) < len(split_folders(gold, system, 1, most=2) or ())


def test_concepts_mode_scores_folders_in_one_run_whatever_the_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, combined: list[bool]
) -> None:
    """A side's warning that it carries no concept id is of the whole corpus: folders cut into
    chunks warned where a chunk had none and one run of every document did not (and placed it
    before the readers' warnings), so ``concepts`` mode scores folders in one run."""
    import annoscore.scale.folders as folders

    for side in ("gold", "system"):
        (tmp_path / side).mkdir()
        for n in range(6):
            ann = "T1\tDrug 0 1\ta\n" + ("N1\tReference T1 db:123\ta\n" if n == 0 else "")
            (tmp_path / side / f"d{n}.ann").write_text(ann, encoding="utf-8")
            (tmp_path / side / f"d{n}.txt").write_text("a b c", encoding="utf-8")
    (tmp_path / "gold" / "d3.ann").write_text("\ufeffT1\tDrug 0 1\ta\n", encoding="utf-8")
    gold, system = tmp_path / "gold", tmp_path / "system"
    one = annoscore.score("spans", gold, system, mode="concepts")
    assert [w.code for w in one.warnings if w.code.startswith("spans.no-concept")] == []
    monkeypatch.setattr(folders, "FOLDER_CHUNK_DOCUMENTS", 1)
    for jobs in (1, 2, 3):
        assert _bytes(annoscore.score("spans", gold, system, mode="concepts", jobs=jobs)) == (
            _bytes(one)
        )
    assert combined == []  # never cut
    assert _bytes(annoscore.score("spans", gold, system, jobs=2)) == _bytes(
        annoscore.score("spans", gold, system)
    )
    assert combined == [True, True]  # other modes are (one job too: chunks of one document)
