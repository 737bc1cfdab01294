"""The Python API: every task's typed functions and options class are exported by ``annoscore``,
as its registry entry names them, documented, and imported only when asked for."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import annoscore
from annoscore.tasks.registry import TASKS, load

INIT = Path(annoscore.__file__)
EXPORTS = annoscore.typed_exports()


def type_checking_imports() -> dict[str, str]:
    """``name -> "module:name"`` of the ``if TYPE_CHECKING:`` imports of ``annoscore/__init__``
    that are not the core's."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                module = getattr(statement, "module", None) or ""
                if isinstance(statement, ast.ImportFrom) and module.startswith("annoscore.tasks."):
                    for alias in statement.names:
                        found[alias.name] = f"{module}:{alias.name}"
    return found


def test_the_typed_imports_are_the_registrys() -> None:
    """What type checkers see (the TYPE_CHECKING block) is what ``__getattr__`` gives."""
    assert type_checking_imports() == EXPORTS
    assert set(EXPORTS) <= set(annoscore.__all__)
    assert set(EXPORTS) <= set(dir(annoscore))


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_each_export_is_the_registered_object_and_documented(name: str) -> None:
    exported = getattr(annoscore, name)
    assert exported is load(EXPORTS[name])
    doc = inspect.getdoc(exported) or ""
    assert doc, f"{name} has no docstring"
    if name.startswith(("score_", "count_")):
        assert ">>>" in doc, f"{name} has no example in its docstring"
        parameters = list(inspect.signature(exported).parameters)
        assert parameters[-1] == "options", f"{name}({', '.join(parameters)})"


def test_every_declared_task_has_a_count_function() -> None:
    for task in TASKS.values():
        assert callable(load(task.count)), task.name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="score_nothing"):
        annoscore.score_nothing  # noqa: B018
    assert not hasattr(annoscore, "count_nothing")


def test_importing_annoscore_imports_no_task() -> None:
    """The exports are lazy: ``import annoscore`` (and so ``annoscore --help``) loads no task
    module and no NumPy."""
    code = (
        "import sys, annoscore; "
        "print(sorted(m for m in sys.modules if m.startswith('annoscore.tasks.') "
        "or m == 'numpy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
