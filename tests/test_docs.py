"""The documentation's tables are generated from the code, and held equal to it.

- ``README.md``: each registered task's options, between ``<!-- options: TASK -->`` and
  ``<!-- /options -->``, are :func:`annoscore.options.markdown_table` of its options class;
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
from annoscore.tasks.registry import TASKS
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


@pytest.mark.parametrize("name", [n for n, t in TASKS.items() if t.legacy is None])
def test_the_readme_shows_each_tasks_options_as_declared(name: str) -> None:
    table = markdown_table(TASKS[name].options_class())
    _check(ROOT / "README.md", f"<!-- options: {name} -->", "<!-- /options -->", table)


def test_the_architecture_document_shows_the_registry() -> None:
    _check(ROOT / "docs" / "architecture.md", "<!-- tasks -->", "<!-- /tasks -->", task_table())
