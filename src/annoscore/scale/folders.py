"""Folder inputs cut by file: planning the chunks, scoring one, the sides of its warnings.

Two folders of one file per document are cut by file stem (:func:`split_folders`; a listing
through fsspec for URLs); a worker scores its chunk on the folders themselves with the readers
seeing only the chunk's files (:func:`score_folder_chunk`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.options import TaskOptions
    from annoscore.result import Result, ScoreWarning

from annoscore.scale.chunks import UNKNOWN_SIDE, FolderChunk, Part, Seen
from annoscore.scale.reduce import _group, _sent
from annoscore.scale.remote import _is_folder, _where
from annoscore.scale.run import _RUN, _SERIAL

# --- cutting the input -----------------------------------------------------------------------


def _listing(folder: Path | str) -> dict[str, list[str]] | None:
    """The regular files of ``folder`` by stem, or ``None`` when cutting it could change what
    its reader reports (any entry that is not a plain regular file).  A URL is listed through
    fsspec (:func:`_url_listing`)."""
    from annoscore.formats.files import url_of

    by_stem: dict[str, list[str]] = {}
    url = url_of(folder)
    if url is not None:
        return _url_listing(url)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        try:
            if not entry.is_file():  # a folder, a special file, a link leading nowhere
                return None
        except OSError:
            return None
        stem = os.path.splitext(entry.name)[0]
        by_stem.setdefault(stem, []).append(entry.name)
    return by_stem


def _url_listing(url: str) -> dict[str, list[str]] | None:
    """:func:`_listing` of the folder at ``url``, listed through fsspec."""
    from annoscore.formats.files import url_fs

    fs, where = url_fs(url)
    by_stem: dict[str, list[str]] = {}
    try:
        entries = fs.ls(where, detail=True)
    except OSError:
        return None
    for entry in entries:
        if entry.get("type") != "file":
            return None
        name = str(entry["name"]).rstrip("/").rpartition("/")[2]
        by_stem.setdefault(os.path.splitext(name)[0], []).append(name)
    return by_stem


def split_folders(
    gold: Path | str, system: Path | str, parts: int, suffix: str = ".ann"
) -> list[FolderChunk] | None:
    """Two folders cut into at most ``parts`` chunks of whole documents (a document is a file
    stem, every file of that stem on both sides goes with it), in the sorted order of the
    stems, each chunk with a file ending in ``suffix`` on both sides; ``None`` when they are
    not two plain folders, hold fewer than two documents, or the chunks' order is not the
    order of each folder's sorted file names (:func:`_in_name_order`).  A URL (a string) is
    listed through fsspec."""
    if parts < 2 or not (_is_folder(gold) and _is_folder(system)):
        return None
    gold_files, system_files = _listing(gold), _listing(system)
    if not gold_files or not system_files:
        return None
    stems = sorted(gold_files.keys() | system_files.keys())
    if len(stems) < 2:
        return None
    size = -(-len(stems) // min(parts, len(stems)))
    groups: list[list[str]] = [[]]
    sides = [False, False]
    for stem in stems:
        group = groups[-1]
        group.append(stem)
        sides[0] = sides[0] or _has_suffix(gold_files.get(stem, ()), suffix)
        sides[1] = sides[1] or _has_suffix(system_files.get(stem, ()), suffix)
        if len(group) >= size and all(sides):
            groups.append([])
            sides = [False, False]
    if not groups[-1]:
        groups.pop()
    elif len(groups) > 1:  # a side without a file would be read as an empty folder
        groups[-2].extend(groups.pop())
    if len(groups) < 2:
        return None
    chunks = [
        FolderChunk(
            _where(gold),
            _where(system),
            tuple(name for s in group for name in gold_files.get(s, ())),
            tuple(name for s in group for name in system_files.get(s, ())),
        )
        for group in groups
    ]
    return chunks if _in_name_order(chunks) else None


def _has_suffix(names: Sequence[str], suffix: str) -> bool:
    return any(n.endswith(suffix) for n in names)


def _in_name_order(chunks: Sequence[FolderChunk]) -> bool:
    """Whether every file name of each side's chunk comes before those of the chunks after it
    (a reader lists a folder's files sorted by name, and one run quotes them in that order;
    stems and names may sort otherwise: ``a-b.ann`` < ``a.ann`` but ``a`` < ``a-b``).

    >>> def chunk(*names): return FolderChunk("g", "s", names, names)
    >>> _in_name_order([chunk("a.ann", "a.txt"), chunk("b.ann")])
    True
    >>> _in_name_order([chunk("a.ann"), chunk("a-b.ann")])
    False
    """
    for side in (0, 1):
        last: str | None = None
        for chunk in chunks:
            names = chunk.gold_names if side == 0 else chunk.system_names
            if not names:
                continue
            if last is not None and min(names) <= last:
                return False
            last = max(names)
    return True


def _side(example: str, chunk: FolderChunk) -> int:
    """0 (gold) or 1 (system) when ``example`` names a file of one side only (its path, or its
    name before a ``:``), :data:`UNKNOWN_SIDE` when the name is on both sides, 2 when it names
    no file of the chunk."""
    prefixes = sorted(
        ((os.path.join(folder, ""), side) for side, folder in ((0, chunk.gold), (1, chunk.system))),
        key=lambda item: -len(item[0]),  # the longer first: one folder may hold the other
    )
    for prefix, side in prefixes:
        if example.startswith(prefix):
            return side
    name = example.partition(":")[0]
    in_gold, in_system = name in chunk.gold_names, name in chunk.system_names
    if in_gold and in_system:
        return UNKNOWN_SIDE
    return 0 if in_gold else 1 if in_system else 2


def _sided(warning: ScoreWarning, chunk: FolderChunk) -> list[tuple[int, ScoreWarning]]:
    """``warning`` cut by the side its examples name (a reader quotes the files it tolerated):
    (0, gold examples), (1, system examples), (2, examples naming no file), (UNKNOWN_SIDE, ...);
    the count goes with the first part (counts only add)."""
    examples: dict[int, list[str]] = {}
    for example in warning.examples:
        examples.setdefault(_side(example, chunk), []).append(example)
    parts = sorted(examples.items())
    if len(parts) <= 1:
        return [(parts[0][0] if parts else 2, warning)]
    return [
        (side, replace(warning, examples=tuple(found), count=warning.count if n == 0 else 0))
        for n, (side, found) in enumerate(parts)
    ]


def score_folder_chunk(
    task: str,
    chunk: FolderChunk,
    options: TaskOptions,
    order: Sequence[str] = ("*",),
    interleaved: Sequence[str] = (),
) -> Part:
    """The chunk function of ``"folders"`` tasks: ``task``'s score function (undecorated) on
    the two folders, their readers seeing only the chunk's files
    (:func:`~annoscore.formats.files.selected_files`), so paths in warnings and errors are the
    folders' own (a URL's chunk: its own files copied through fsspec, named as the URL's).
    Its warnings go by side (:func:`_sided`), except those of the groups of ``order`` named in
    ``interleaved``, which one run lists in document order whatever their side (side 2, not
    split).  An error gives a part without a result: the input is then scored in one run,
    which names the error one run names (another chunk, or the other side of an earlier
    chunk, may hold the one it meets first).  Runs in a worker (or in this process)."""
    from annoscore.formats.files import is_url, local_copy, named_warning, selected_files
    from annoscore.tasks.registry import get

    function = get(task).score_function()
    function = getattr(function, "__wrapped__", function)
    same = chunk.gold == chunk.system or (
        not is_url(chunk.gold) and os.path.abspath(chunk.gold) == os.path.abspath(chunk.system)
    )
    names: dict[str, str] = {}
    token = _RUN.set(_SERIAL)
    try:
        with contextlib.ExitStack() as stack:
            gold, system = chunk.gold, chunk.system
            for side, (url, wanted) in enumerate(
                [(chunk.gold, chunk.gold_names), (chunk.system, chunk.system_names)][: 2 - same]
            ):
                if is_url(url):  # the chunk's own files, read through fsspec
                    wanted = (*chunk.gold_names, *chunk.system_names) if same else wanted
                    local, named = stack.enter_context(local_copy(url, wanted))
                    names.update(named)
                    gold, system = (str(local), system) if side == 0 else (gold, str(local))
            system = gold if same else system
            selection = {gold: chunk.gold_names, system: chunk.system_names}
            if same:
                selection = {gold: (*chunk.gold_names, *chunk.system_names)}
            with selected_files(selection):
                result: Result = function(Path(gold), Path(system), options)
    except InputError:
        return Part(None, ())
    finally:
        _RUN.reset(token)
    groups = {order.index(name) for name in interleaved}
    return Part(
        _sent(result),
        tuple(
            item
            for w in map(named_warning, result.warnings, itertools.repeat(names))
            for item in ([(2, w)] if _group(w.code, order) in groups else _sided(w, chunk))
        ),
    )


_PLANS: dict[tuple[object, ...], list[FolderChunk] | None] = {}
"""The folder plans a worker made (a worker scores several shares of one plan)."""


@dataclass(frozen=True, slots=True)
class _FolderCut:
    """How a task's folders are cut and its chunks' warnings sided (:func:`chunked`)."""

    order: tuple[str, ...] = ("*",)
    interleaved: tuple[str, ...] = ()
    suffix: str = ".ann"


def _folder_share(
    task: str,
    options: TaskOptions,
    gold: str,
    system: str,
    how: _FolderCut,
    share: tuple[Any, ...],
) -> Part:
    """Share ``k`` of ``n`` of two folders (:func:`split_folders`, planned once in each worker):
    its part; a part without a result when the folders cannot be cut (then every share says
    so), and an empty part (``seen`` set) when the plan has fewer chunks than shares."""
    k, n = share[:2]
    from annoscore.formats.files import is_url

    try:
        key: tuple[object, ...] = (
            (gold, system, n, how.suffix, *share[2:])  # URLs: planned once per worker and map
            if is_url(gold) or is_url(system)
            else (
                gold,
                system,
                n,
                how.suffix,
                os.stat(gold).st_mtime_ns,
                os.stat(system).st_mtime_ns,
            )
        )
    except OSError:
        return Part(None, ())
    if key not in _PLANS:
        _PLANS.clear()
        sides = [p if is_url(p) else Path(p) for p in (gold, system)]
        _PLANS[key] = split_folders(sides[0], sides[1], n, how.suffix)
    plan = _PLANS[key]
    if plan is None:
        return Part(None, ())
    if k >= len(plan):
        return Part(None, (), (Seen.of([]), Seen.of([])))  # nothing to score in this share
    return score_folder_chunk(task, plan[k], options, how.order, how.interleaved)
