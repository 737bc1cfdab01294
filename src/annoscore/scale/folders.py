"""Folder inputs cut by file: planning the chunks, scoring one, the sides of its warnings.

Two folders of one file per document are cut by file stem (:func:`split_folders`; a listing
through fsspec for URLs); a worker scores its chunk on the folders themselves with the readers
seeing only the chunk's files (:func:`score_folder_chunk`).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import operator
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.formats.files import is_url

if TYPE_CHECKING:
    from annoscore.options import TaskOptions
    from annoscore.result import Result
    from annoscore.score_warnings import ScoreWarning

from annoscore.scale.chunks import UNKNOWN_SIDE, FolderChunk, Part, Seen
from annoscore.scale.cut_lines import targets
from annoscore.scale.reduce import _group, _sent
from annoscore.scale.remote import _is_folder, _where
from annoscore.scale.run import _RUN, _SERIAL, CHUNKS_PER_WORKER, Run

# --- cutting the input -----------------------------------------------------------------------


def _listing(folder: Path | str) -> list[str] | None:
    """The names of the regular files of ``folder``, sorted, or ``None`` when cutting it
    could change what its reader reports (any entry that is not a regular file, or a link to
    one).  A URL is listed through fsspec."""
    from annoscore.formats.files import url_fs, url_of

    url = url_of(folder)
    try:
        if url is not None:
            fs, where = url_fs(url)
            listed = fs.ls(where, detail=True)
            if any(entry.get("type") != "file" for entry in listed):
                return None
            return sorted(str(entry["name"]).rstrip("/").rpartition("/")[2] for entry in listed)
        with os.scandir(folder) as scan:
            entries = list(scan)
        # the kind the folder listing gives (no system call), except for links
        if not all(map(os.DirEntry.is_file, entries)):  # a folder, a FIFO, a broken link
            return None
    except OSError:
        return None
    return sorted(map(operator.attrgetter("name"), entries))


def split_folders(
    gold: Path | str,
    system: Path | str,
    parts: int,
    suffix: str = ".ann",
    workers: int = 1,
    most: int | None = None,
) -> list[FolderChunk] | None:
    """Two folders cut into at most ``parts`` chunks of whole documents (a document is a file
    stem, every file of that stem on both sides goes with it), in the sorted order of the
    stems, about as many stems in each (with more than one of ``workers``, more chunks, none
    larger, that shrink towards the end: :func:`~annoscore.scale.cut_lines.targets`; the
    processes then end together, where with even shares one of them scored the last chunk
    alone while the other waited), each chunk with a file ending in ``suffix`` on both
    sides (a chunk grows until it has them; the last is joined to the one before when it
    has not); ``None`` when they are not two plain folders, hold fewer than two documents,
    or a folder's names sorted are not in the order of their stems (``a-b.ann`` < ``a.ann``
    but ``a`` < ``a-b``: a reader lists a folder's files sorted by name, and one run quotes
    them in that order).  Each chunk's names of a side are then a slice of its sorted names.
    A URL (a string) is listed through fsspec.  ``most``: the most documents in a chunk
    (more chunks than ``parts`` when they would hold more; one process: even shares of at
    most ``most``, :data:`FOLDER_CHUNK_DOCUMENTS`, ``None`` when one chunk holds them all).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for name in ("g/a.ann", "g/a.txt", "g/b.ann", "g/c.ann", "s/a.ann", "s/b.txt", "s/c.ann"):
    ...     (root / name).parent.mkdir(exist_ok=True)
    ...     (root / name).touch()
    >>> [(c.gold_names, c.system_names) for c in split_folders(root / "g", root / "s", 3)]
    [(('a.ann', 'a.txt'), ('a.ann',)), (('b.ann', 'c.ann'), ('b.txt', 'c.ann'))]
    >>> (root / "g/a-b.ann").touch()  # a-b.ann < a.ann, but a < a-b
    >>> split_folders(root / "g", root / "s", 3) is None
    True
    """
    from annoscore.formats.files import name_stem

    if (parts < 2 and most is None) or not (_is_folder(gold) and _is_folder(system)):
        return None
    sides: list[tuple[list[str], list[str]]] = []  # names, their stems
    for folder in (gold, system):
        names = _listing(folder)
        if not names:
            return None
        stems = list(map(name_stem, names))
        if stems != sorted(stems):
            return None
        sides.append((names, stems))
    # the two sorted lists merged (one merge of two runs), each stem once
    every = [stem for stem, _ in itertools.groupby(sorted(sides[0][1] + sides[1][1]))]
    count = len(every)
    if count < 2:
        return None
    parts = min(parts, count)
    even = -(-count // parts)
    ends = targets(count, parts, workers, even if most is None else min(even, most))
    bounds = [0]  # the index in ``every`` where each chunk begins, then the end
    while bounds[-1] < count:
        begin = bounds[-1]
        end = max(begin + 1, ends[len(bounds) - 1] if len(bounds) <= len(ends) else count)
        for names, stems in sides:  # grown to hold a suffixed file of this side
            found = _first_suffixed(names, stems, every[begin], suffix)
            end = max(end, bisect.bisect_left(every, found) + 1 if found is not None else count + 1)
        if end > count:  # a side without a file would be read as an empty folder
            if len(bounds) > 1:
                bounds.pop()
            end = count
        bounds.append(end)
    if len(bounds) < 3:
        return None
    where = _where(gold), _where(system)
    cuts = [
        [bisect.bisect_left(stems, every[k]) for k in bounds[:-1]] + [len(names)]
        for names, stems in sides
    ]
    return [
        FolderChunk(*where, tuple(sides[0][0][g:g_end]), tuple(sides[1][0][s:s_end]))
        for g, g_end, s, s_end in zip(cuts[0], cuts[0][1:], cuts[1], cuts[1][1:], strict=False)
    ]


def _first_suffixed(names: list[str], stems: list[str], stem: str, suffix: str) -> str | None:
    """The first of ``stems`` (sorted, those of ``names``) from ``stem`` on whose name ends in
    ``suffix``; ``None`` when none does.  :func:`split_folders` asks from the start of each
    chunk, past the one before's end, so each name is looked at about once (a list of the
    suffixed stems made first cost 51M instructions at 20,000 documents).

    >>> _first_suffixed(["a.ann", "b.txt", "c.txt", "c.ann"], ["a", "b", "c", "c"], "b", ".ann")
    'c'
    >>> _first_suffixed(["a.ann", "b.txt"], ["a", "b"], "b", ".ann") is None
    True
    """
    for at in range(bisect.bisect_left(stems, stem), len(names)):
        if names[at].endswith(suffix):
            return stems[at]
    return None


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
    documents: bool = True,
) -> Part:
    """The chunk function of ``"folders"`` tasks: ``task``'s score function (undecorated) on
    the two folders, their readers seeing only the chunk's files
    (:func:`~annoscore.formats.files.selected_files`), so paths in warnings and errors are the
    folders' own (a URL's chunk: its own files copied through fsspec, named as the URL's).
    Its warnings go by side (:func:`_sided`), except those of the groups of ``order`` named in
    ``interleaved``, which one run lists in document order whatever their side (side 2, not
    split).  ``documents``: the result sends every document's scores (:attr:`Run.documents`;
    else the columns of ``macro_doc``).  An error gives a part without a result: the input
    is then scored in one run, which names the error one run names (another chunk, or the
    other side of an earlier chunk, may hold the one it meets first).  Runs in a worker (or
    in this process)."""
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
            with selected_files(selection, listed=True):  # every name a file: not listed again
                result: Result = function(Path(gold), Path(system), options)
    except InputError:
        return Part(None, ())
    finally:
        _RUN.reset(token)
    groups = {order.index(name) for name in interleaved}
    return Part(
        _sent(result, documents),
        tuple(
            item
            for w in map(named_warning, result.warnings, itertools.repeat(names))
            for item in ([(2, w)] if _group(w.code, order) in groups else _sided(w, chunk))
        ),
    )


FOLDER_CHUNKS_PER_PROCESS = 4
"""How many chunks of folders each process of a forked run scores (the command's process and
its workers take the next chunk none has begun: smaller chunks end the processes closer
together)."""

FOLDER_CHUNK_DOCUMENTS = 2000
"""The most documents in a chunk of folders (:func:`split_folders`' ``most``).  Folders of more
are cut with one process too, their chunks scored one after the other, so that memory holds one
chunk and the count rows, not the corpus, and a terminal shows the run's progress (brat, 60,000
documents of 50 spans: one run 1.14 GB, by chunks 122 MB, in the same time, 4.7-4.9 s)."""


def folder_parts(
    run: Run,
    task: str,
    options: TaskOptions,
    gold: Path | str,
    system: Path | str,
    how: _FolderCut,
) -> list[Part] | None:
    """The parts of two folders scored in ``run``'s processes: listed and cut once, here
    (:func:`split_folders`), while the forked workers import what a chunk imports
    (:func:`_brat_modules`; :meth:`~annoscore.scale.run.Run.map` of a plan), the chunks then
    sent to them; ``None`` when they cannot be cut (one run then).  On Dask each worker
    lists the folders and takes its shares (:func:`_folder_share`: a chunk's names are not
    sent)."""
    where = _where(gold), _where(system)
    how = replace(how, documents=run.documents)
    if run.client is None:
        gold_side, system_side = (p if is_url(p) else Path(p) for p in where)
        score = functools.partial(_scored_chunk, task, options, how)
        if run.serial:  # large folders only, one chunk after the other; an error: one run
            cut = split_folders(gold_side, system_side, 1, how.suffix, most=FOLDER_CHUNK_DOCUMENTS)
            if cut is None:
                return None
            found = run.map(score, cut, until=lambda part: part.result is None)
            return found if len(found) == len(cut) else None

        def chunks() -> list[FolderChunk]:  # none: one run
            parts = run.workers * FOLDER_CHUNKS_PER_PROCESS
            return (
                split_folders(
                    gold_side, system_side, parts, how.suffix, run.workers, FOLDER_CHUNK_DOCUMENTS
                )
                or []
            )

        return run.map(score, chunks, ready=_brat_modules if how.suffix == ".ann" else None) or None
    shares = run.workers * CHUNKS_PER_WORKER
    plan = (os.urandom(8),) if where != (str(gold), str(system)) else ()
    return run.map(
        functools.partial(_folder_share, task, options, *where, how),
        [(k, shares, *plan) for k in range(shares)],
    )


def _brat_modules() -> None:
    """What a chunk of brat files imports to count its spans and send its result (NumPy
    among them), imported by each worker while the command's process plans the chunks."""
    import annoscore.metrics.span_corpus
    import annoscore.metrics.worst_lists  # noqa: F401


def _scored_chunk(task: str, options: TaskOptions, how: _FolderCut, chunk: FolderChunk) -> Part:
    return score_folder_chunk(task, chunk, options, how.order, how.interleaved, how.documents)


_PLANS: dict[tuple[object, ...], list[FolderChunk] | None] = {}
"""The folder plans a worker made (a worker scores several shares of one plan)."""


@dataclass(frozen=True, slots=True)
class _FolderCut:
    """How a task's folders are cut and its chunks' warnings sided (:func:`chunked`)."""

    order: tuple[str, ...] = ("*",)
    interleaved: tuple[str, ...] = ()
    suffix: str = ".ann"
    documents: bool = True
    """The chunks send every document's scores (:attr:`Run.documents`)."""


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
    return score_folder_chunk(task, plan[k], options, how.order, how.interleaved, how.documents)
