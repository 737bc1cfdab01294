"""The documentation's tables are generated from the code, and held equal to it.

- ``README.md``: each options class of a registered task (several tasks may share one), between
  ``<!-- options: CLASS -->`` and ``<!-- /options -->``, is
  :func:`annoscore.options.markdown_table` of it;
- ``docs/architecture.md``: the task table, between ``<!-- tasks -->`` and ``<!-- /tasks -->``,
  is :func:`annoscore.tasks.registry.markdown_table`.

``ANNOSCORE_WRITE_DOCS=1 pytest tests/test_docs.py`` rewrites the blocks that exist.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from annoscore.options import markdown_table
from annoscore.tasks.registry import TASKS, load
from annoscore.tasks.registry import markdown_table as task_table

ROOT = Path(__file__).resolve().parents[1]
WRITE = bool(os.environ.get("ANNOSCORE_WRITE_DOCS"))


def _block(text: str, opening: str, closing: str) -> re.Match[str] | None:
    return re.search(rf"({re.escape(opening)}\n)(.*?)({re.escape(closing)})", text, re.S)


def _check(path: Path, opening: str, closing: str, expected: str) -> None:
    text = path.read_text(encoding="utf-8")
    found = _block(text, opening, closing)
    assert found is not None, f"{path.name} has no {opening} ... {closing} block"
    if found.group(2) != expected and WRITE:
        text = text[: found.start(2)] + expected + text[found.end(2) :]
        path.write_text(text, encoding="utf-8")
        return
    assert found.group(2) == expected, f"{path.name}: {opening} differs from the code:\n{expected}"


OPTIONS_CLASSES = sorted({t.options for t in TASKS.values()})


@pytest.mark.parametrize("options", OPTIONS_CLASSES)
def test_the_readme_shows_each_tasks_options_as_declared(options: str) -> None:
    table = markdown_table(load(options))
    name = options.rpartition(":")[2]
    _check(ROOT / "README.md", f"<!-- options: {name} -->", "<!-- /options -->", table)


def test_the_architecture_document_shows_the_registry() -> None:
    _check(ROOT / "docs" / "architecture.md", "<!-- tasks -->", "<!-- /tasks -->", task_table())


def test_the_architecture_documents_task_example_is_a_working_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "Adding a task" block of docs/architecture.md, run as written: registered, scored
    through ``annoscore.score`` with its options, its signature derived, bad input named."""
    import doctest
    import importlib
    import sys

    import annoscore
    from annoscore.errors import InputError

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Adding a task", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "labels_task.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("labels_task")
        gold, system = tmp_path / "gold.tsv", tmp_path / "system.tsv"
        gold.write_text("d1\tA\nd1\tb\nd2\tc\n", encoding="utf-8")
        system.write_text("d1\ta\nd1\tb\nd3\tc\n", encoding="utf-8")
        plain = annoscore.score("labels", gold, system)
        assert plain.counts["tp"] == 1 and plain.counts["fp"] == 2 and plain.counts["fn"] == 2
        lowered = annoscore.score("labels", gold, system, lowercase="yes")
        assert lowered.counts["tp"] == 2
        assert str(lowered.signature).endswith("|task:labels|lowercase:yes")
        assert lowered.score == lowered.scores["f1"]
        failures, tried = doctest.testmod(module)
        assert (failures, tried) == (0, 1)
        system.write_text("d1\ta\nno tab here\n", encoding="utf-8")
        with pytest.raises(InputError, match=r"system\.tsv:2: expected"):
            annoscore.score("labels", gold, system)
    finally:
        TASKS.pop("labels", None)
        sys.modules.pop("labels_task", None)
