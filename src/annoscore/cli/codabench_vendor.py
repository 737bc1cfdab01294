"""annoscore and the pure-Python packages it imports while scoring, copied into a bundle's
``vendor/`` (:func:`vendor`): only those a scoring run needs, found by scoring again with each
candidate hidden; the compiled ones the image must provide are named, not copied."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from annoscore.cli.codabench_layout import IMAGE_PROVIDES
from annoscore.errors import InputError


def copy_path(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def zip_folder(folder: Path, target: Path) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())


CLOSURE = r"""
import json, os, sys
hidden = {h for h in os.environ.get("ANNOSCORE_HIDDEN", "").split(",") if h}


class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
from annoscore.cli import main
for extra in ("rich", "shellingham"):
    try:
        __import__(extra)
    except ImportError:
        pass
status = 0
try:
    main(sys.argv[1:-1])
except SystemExit as exit:
    status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
entries = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)},
                 key=len, reverse=True)
standard = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {"__main__"}
found = set()
for name, module in list(sys.modules.items()):
    if name.partition(".")[0] in standard or name.startswith("_sysconfigdata"):
        continue  # by name, not by folder: site-packages may lie inside the stdlib's folder
    path = getattr(module, "__file__", None)
    if not path:
        continue
    path = os.path.realpath(path)
    for entry in entries:
        if path.startswith(entry + os.sep):
            top = path[len(entry) + 1:].split(os.sep)[0]
            found.add(os.path.join(entry, top))
            break
with open(sys.argv[-1], "w") as out:
    json.dump({"found": sorted(found), "status": status}, out)
"""
"""Scores ``layout`` as the bundle's program would, with the top-level packages named in
``ANNOSCORE_HIDDEN`` made unimportable, and lists the folders and files of the packages
imported and the exit status."""


@dataclass(frozen=True)
class _Closure:
    """One scoring by :data:`CLOSURE`: the packages imported, the exit status and the output
    (``scores.json`` and ``result.json``, to compare two runs)."""

    found: list[Path]
    status: int
    output: tuple[bytes, ...]


def _closure(layout: Path, config: Path, hidden: list[str]) -> _Closure:
    with tempfile.TemporaryDirectory(prefix="annoscore-vendor-") as work:
        listing = Path(work) / "modules.json"
        output = Path(work) / "output"
        command = [sys.executable, "-c", CLOSURE, "codabench", "score", str(layout), str(output)]
        command += ["--config", str(config), str(listing)]
        env = {**os.environ, "ANNOSCORE_HIDDEN": ",".join(hidden), "ANNOSCORE_NLTK_ENGINE": "re"}
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if not listing.exists():
            raise InputError(f"cannot find what the scoring program imports: {done.stderr[-500:]}")
        data = json.loads(listing.read_text())
        files = [output / name for name in ("scores.json", "result.json")]
        written = tuple(f.read_bytes() if f.exists() else b"" for f in files)
        return _Closure([Path(p) for p in data["found"]], int(data["status"]), written)


def _is_compiled(source: Path) -> bool:
    if source.suffix in (".so", ".pyd"):
        return True
    return source.is_dir() and (any(source.rglob("*.so")) or any(source.rglob("*.pyd")))


def _needed_by(name: str, found: list[Path]) -> list[str]:
    """The distributions among ``found`` (top-level packages) that require the distribution of
    the top-level package ``name`` (not as an extra)."""
    import importlib.metadata as metadata

    owners = metadata.packages_distributions()
    wanted = {d.lower() for d in owners.get(name, [name])}
    out: list[str] = []
    for source in found:
        for dist in owners.get(source.name.removesuffix(".py"), []):
            try:
                requires = metadata.requires(dist) or []
            except metadata.PackageNotFoundError:
                continue
            for requirement in requires:
                required = re.split(r"[\s\[<>=!~;(]", requirement, maxsplit=1)[0].lower()
                if required in wanted and "extra ==" not in requirement and dist not in out:
                    out.append(dist)
    return out


def vendor(program: Path, layout: Path, config: Path) -> dict[str, list[str]]:
    """Copy annoscore and the packages a scoring of ``layout`` (``ref/``, ``res/``) imports into
    ``program/vendor`` (numpy and scipy are the image's); the compiled packages the scoring
    needs that cannot be copied (the image must provide them), each with the distributions that
    require it.

    A compiled package that the scoring imports only because it is there (nltk imports
    scikit-learn when it is installed) is not needed: unless an imported package requires it
    (not as an extra), the scoring is run again with it hidden, and when the exit status and
    the output are the same, it is left out, with whatever only it imported."""
    import annoscore

    target = program / "vendor"
    target.mkdir()
    copy_path(Path(annoscore.__file__).parent, target / "annoscore")

    def skipped(source: Path) -> bool:
        name = source.name
        return name.startswith(("annoscore", "_distutils_hack")) or name in IMAGE_PROVIDES

    def maybe_optional(source: Path, found: list[Path]) -> bool:
        """Compiled and not required by a package of ``found``: maybe imported only if there."""
        return not skipped(source) and _is_compiled(source) and not _needed_by(source.name, found)

    first = _closure(layout, config, [])
    hidden: list[str] = []
    found = first.found
    candidates = [source for source in first.found if maybe_optional(source, found)]
    if len(candidates) > 1:  # all at once first: one more scoring where every one is optional
        again = _closure(layout, config, [source.name for source in candidates])
        if (again.status, again.output) == (first.status, first.output):
            return _copied(target, again.found, skipped)
    for source in first.found:  # else one at a time (hiding one may free another)
        if not maybe_optional(source, found):
            continue  # required by a package still imported: no need to try without it
        again = _closure(layout, config, [*hidden, source.name])
        if (again.status, again.output) == (first.status, first.output):
            hidden.append(source.name)
            found = again.found  # the closure with every optional package so far hidden
    return _copied(target, found, skipped)


def _copied(
    target: Path, found: list[Path], skipped: Callable[[Path], bool]
) -> dict[str, list[str]]:
    """Copy the pure-Python packages of ``found`` into ``target``; the compiled ones, each with
    the distributions that require it."""
    compiled: dict[str, list[str]] = {}
    for source in found:
        if skipped(source):
            continue
        if _is_compiled(source):
            compiled[source.name] = _needed_by(source.name, found)
            continue
        if source.is_dir() and source.name.endswith((".dist-info", ".egg-info")):
            continue
        copy_path(source, target / source.name)
    return compiled
