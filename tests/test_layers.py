"""The data flows one way (design.md): a lower layer never imports a higher one.

Layers, low to high: the core (``arrays``, ``counts``, ``errors``, ``signature``, ``result``,
``score_warnings``, the model objects ``model``, ``templates`` and ``code_lists``, ``samples``),
``formats``, ``align``, ``metrics``, ``tasks`` (with ``scale`` and ``distributed``, which run a
task's score function on chunks of its input), ``significance``, ``report``, ``cli``.  Imports
inside functions count too.  One documented exception: a preset (``tasks``) fills the layout
dataclass its report declares (``report.pharmaconer.Layout``, ``report.muc.MucDetails``), so
``tasks`` may import ``report`` modules; ``report`` never imports ``tasks``.  And nothing below
``cli`` switches the garbage collector off.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "annoscore"
LAYERS = {
    "arrays": 0,
    "counts": 0,
    "errors": 0,
    "signature": 0,
    "result": 0,
    "score_warnings": 0,
    "model": 0,
    "templates": 0,
    "code_lists": 0,
    "options": 0,
    "samples": 0,
    "version": 0,
    "formats": 1,
    "align": 2,
    "metrics": 3,
    "tasks": 4,
    "scale": 4,
    "distributed": 4,
    "significance": 5,
    "report": 6,
    "cli": 7,
    "__init__": 7,
    "__main__": 7,
}


def _layer_name(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "annoscore":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return out


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    for module in _imports(path):
        target = _layer_name(module)
        if target is None or target not in LAYERS:
            continue
        assert LAYERS[target] <= LAYERS[own], f"{path.name} ({own}) imports {module} ({target})"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_command_line_touches_the_garbage_collector(path: Path) -> None:
    if path.relative_to(PACKAGE).parts[0] == "cli":
        return
    assert "gc.disable" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_report_reads_no_preset_and_no_preset_reads_another(path: Path) -> None:
    """``report/`` renders what ``metrics/`` declares (a task's ``Details``), never a preset's
    objects; a preset imports no other task family's (shared counting lives in ``metrics/``),
    only the registry and its own family's modules (``tasks/muc`` and ``tasks/muc_sgml``)."""
    parts = path.relative_to(PACKAGE).parts
    family = parts[-1].removesuffix(".py").split("_")[0]
    for module in _imports(path):
        if not module.startswith("annoscore.tasks.") or module == "annoscore.tasks.registry":
            continue
        assert parts[0] != "report", f"{path.name} (report) imports {module}"
        if parts[0] == "tasks":
            other = module.split(".")[2].split("_")[0]
            assert other == family, f"{path.name} imports another preset, {module}"
