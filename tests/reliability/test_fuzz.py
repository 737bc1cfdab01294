"""Random bytes and random mutations of valid files: every reader and task either scores or
refuses with a one-line input error; never an internal error.

Two fuzzers: one calls the tasks in-process on mutated samples (hypothesis; the examples are
derandomized, the same 200 in every run, so CI cannot fail by chance; run it with more examples
and ``derandomize=False`` when hunting), the other runs the whole command line as processes with
a time and memory limit (:mod:`tests.reliability.fuzz`, seeded: the same cases in every run,
more with ``ANNOSCORE_FUZZ_CASES``, others with ``ANNOSCORE_FUZZ_SEED``).
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.samples import SAMPLES
from annoscore.tasks.registry import TASKS, sample_paths
from tests.reliability.fuzz import FUZZED, MUTATIONS, check, make, pair
from tests.reliability.runner import Runner

FORMATS = [
    *("pharmaconer-ner", "pharmaconer-indexing", "coref", "muc-template-element", "codiesp-d"),
    "codiesp-x",
    *("trec", "nlpsandbox-all", "muc-named-entity", "muc-coreference", "are-1", "are-3"),
]
"""One task per reader (the other tasks share these readers)."""


def _run(task: str, root: Path, change: object) -> None:
    gold, system, options = sample_paths(TASKS[task])
    target = root / "system" / system.name
    if system.is_dir():
        shutil.copytree(system, target)
        victim = sorted(target.iterdir())[0]
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(system, target)
        victim = target
    victim.write_bytes(change(victim.read_bytes()))  # type: ignore[operator]
    try:
        result = TASKS[task].run(gold, target, **options)
        render(result, "json")
    except InputError as error:
        assert "\n" not in str(error).strip()
    except (OSError, OverflowError):
        pass  # the command line maps these to exit 2 with the file named


mutation = st.tuples(
    st.sampled_from(["flip", "insert", "delete", "replace-all"]),
    st.integers(0, 10**6),
    st.binary(min_size=1, max_size=12),
)


def _mutate(kind: str, where: int, payload: bytes):  # type: ignore[no-untyped-def]
    def change(data: bytes) -> bytes:
        if kind == "replace-all" or not data:
            return payload
        at = where % len(data)
        if kind == "flip":
            return data[:at] + bytes([data[at] ^ payload[0]]) + data[at + 1 :]
        if kind == "insert":
            return data[:at] + payload + data[at:]
        return data[:at] + data[at + len(payload) :]

    return change


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(FORMATS), mutation)
def test_mutated_files_never_give_an_internal_error(
    tmp_path_factory: object, task: str, change: tuple[str, int, bytes]
) -> None:
    root = tmp_path_factory.mktemp("fuzz")  # type: ignore[attr-defined]
    _run(task, root, _mutate(*change))


# --- the command line, as processes (tests/reliability/fuzz.py) -------------------------------


FUZZ_SEED = int(os.environ.get("ANNOSCORE_FUZZ_SEED", "25"))
FUZZ_CASES = int(float(os.environ.get("ANNOSCORE_FUZZ_CASES", "1")) * 3 * len(FUZZED))
"""Three cases per command by default (about 10 s on two idle cores); ``ANNOSCORE_FUZZ_CASES``
multiplies it (17 tries every command with every mutation once)."""


def _fuzz(runner: Runner, indices: list[int], samples: Path, root: Path) -> list[str]:
    problems = []
    for index in indices:
        folder = root / f"case{index}"
        folder.mkdir()
        case = make(index, FUZZ_SEED, samples, folder)
        outcome = runner(
            *case.argv, cwd=folder, feeds=case.feeds, fifos=case.fifos, timeout=case.timeout
        )
        problem = check(case, outcome)
        if problem is not None:
            problems.append(f"{case.name}: {problem}")
        shutil.rmtree(folder, ignore_errors=True)
    return problems


def test_every_command_survives_mutated_inputs(tmp_path: Path) -> None:
    """No exit 1, no traceback, no message of more than one line, nothing over 20 s or 1 GB,
    whatever the input (:mod:`tests.reliability.fuzz`).  Two fork servers run the cases on the
    machine's two cores.  Reproduce a failure with ``ANNOSCORE_FUZZ_SEED=S
    ANNOSCORE_FUZZ_ONLY=I pytest tests/reliability/test_fuzz.py``."""
    samples = tmp_path / "samples"
    shutil.copytree(SAMPLES, samples, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    only = os.environ.get("ANNOSCORE_FUZZ_ONLY")
    indices = [int(i) for i in only.split(",")] if only else list(range(FUZZ_CASES))
    with Runner() as first, Runner() as second, ThreadPoolExecutor(2) as pool:
        halves = pool.map(
            _fuzz, [first, second], [indices[0::2], indices[1::2]], [samples] * 2, [tmp_path] * 2
        )
        problems = [p for half in halves for p in half]
    assert not problems, f"seed {FUZZ_SEED}:\n" + "\n".join(problems)


def test_the_fuzzer_tries_every_command_with_every_mutation() -> None:
    """The pairs :func:`pair` gives cover every command and every mutation in the default run,
    and every pair in ``len(FUZZED) * len(MUTATIONS)`` cases."""
    default = {pair(i) for i in range(3 * len(FUZZED))}
    assert {c.name for c, _ in default} == {c.name for c in FUZZED}
    assert {m for _, m in default} == set(MUTATIONS)
    every = {(c.name, m) for c, m in map(pair, range(len(FUZZED) * len(MUTATIONS)))}
    assert len(every) == len(FUZZED) * len(MUTATIONS)
