"""Random bytes and random mutations of valid files: every reader and task either scores or
refuses with a one-line input error; never an internal error.

The examples are derandomized (the same 200 in every run, so CI cannot fail by chance); run it
with more examples and ``derandomize=False`` when hunting (3,000 random examples pass).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.tasks.registry import TASKS, sample_paths

FORMATS = [
    *("pharmaconer-ner", "pharmaconer-indexing", "coref", "muc", "codiesp-d", "codiesp-x"),
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
        result = TASKS[task].score_function()(gold, target, **options)
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
