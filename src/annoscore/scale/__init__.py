"""Scoring on every core or on a Dask cluster: a map over chunks of documents, then one reduce.

A task's counts are additive per document, so scoring a corpus is a *map* (read, align and
count one chunk of its documents) and a *reduce* (stack the chunks' count rows in document
order, pool their warnings).  There is one path: the chunk function is the task's own score
function, run on a chunk of the input, in this process (``jobs=1``), in worker processes
(``jobs=N``) or on Dask workers (:mod:`annoscore.distributed`); the reduce rebuilds the result
with :meth:`~annoscore.tasks.registry.Task.result` from the stacked rows, so everything derived
from the whole corpus (the corpus counts, the undefined-score and macro-average notes) is
computed once, from every document, as without chunks.

How a task's input is cut is declared by decorating its score function with :func:`chunked`:

- ``"folders"``: two folders of one file per document (brat) are cut by document (file stem):
  a worker runs the score function on the two folders themselves, their readers seeing only the
  chunk's files (:func:`~annoscore.formats.files.selected_files`), so each worker reads its own
  files and the paths in warnings and errors are the folders' own.  Two files, or folders with
  entries the reader would skip or warn about by folder, are one chunk; so are folders whose
  files sorted by name are not in the order of their stems (``a-b.ann`` < ``a.ann``).  The
  chunks' warnings are pooled in the order of one run (by side, or in document order for the
  groups a task names ``interleaved``); a chunk with an error, warnings quoting an example
  twice, or an example naming a file both sides hold, leave the input to one run.  A chunk
  holds at most :data:`~annoscore.scale.folders.FOLDER_CHUNK_DOCUMENTS` documents, and folders
  of more are cut with ``jobs=1`` too, their chunks scored one after the other in this process
  (the first that cannot be used ends them: one run then).

- ``"json"``: two files each one JSON array of objects (NLP Sandbox: a note's annotations)
  are cut at top-level elements found in the bytes (:func:`split_json`), each chunk read as
  an array of its own, and combined as chunks of lines (below): kept only when every
  document is in one chunk and no chunk raised or warned.

- ``"lines"``: two single files of lines whose first field is the document id (CodiEsp TSV,
  trec qrels and run) are cut at document boundaries found in the bytes (:func:`split_lines`):
  the parent reads a few lines around each cut, never the corpus; a worker reads its own byte
  ranges (:func:`~annoscore.formats.files.cut_files`) with the task's own reader, which
  records the ids it found.  The cut is kept only when it is exact: no document is in two
  chunks (on either side: an input whose lines of one document are not adjacent is scored in
  one run, their order kept, never regrouped), no chunk raised an error and no chunk warned,
  unless the task pools its warnings (CodiEsp and trec: ``pooled``, below; those it cannot
  pool, made from the whole corpus, still leave the input to one run).  The
  first chunk that raised, warned or was read otherwise ends the map (:func:`unusable`): the
  chunks after it are not scored, so a warned input costs the chunks up to it plus one run.
  A file of more than :data:`LINE_CHUNK_BYTES` of gold is cut with ``jobs=1`` too: its chunks
  are scored one after the other in this process, so that memory holds one chunk and the
  count rows, not the corpus.

- The same with another way to find documents in the bytes (``cut_when``): JSON Lines of
  ``spans`` (one document a line, the system's line found by the document's id:
  :func:`split_json_lines`) and CoNLL coreference files (documents begun by ``#begin document
  NAME``: :func:`split_marked`), BioC XML and JSON of ``spans`` (each chunk read between the
  file's own head and tail: :mod:`~annoscore.scale.cut_xml`) and the tag files of
  ``conlleval`` (before ``-DOCSTART-`` lines: :mod:`~annoscore.scale.cut_tags`).  A task
  that knows how its warnings add up (``pooled``: ``spans``, ``coref``, ``conlleval``,
  CodiEsp D, P and X: :mod:`~annoscore.tasks.codiesp_chunks`, trec:
  :mod:`~annoscore.tasks.trec_chunks`) keeps
  a chunk that warned and makes one run's warnings of the chunks' (counts added, examples in
  document order, capped as one run caps them); the chunks' lines are then numbered as in the
  whole file (:func:`numbered`, counted only for the chunks that warned, which are scored
  again with them).

A task not decorated, or an input that cannot be cut, is one chunk: ``jobs`` does not change
what it computes, only where.

Gold and system may be fsspec URLs (:func:`score_given`; ``s3://``, ``gs://``, ``file://``,
``memory://``): the parent plans the cuts from a few lines read through fsspec
(:class:`RemoteBytes`) or from a listing, and each worker reads its own byte ranges or its own
files; an input read whole (a task not decorated, a cut not kept) is fetched in this process.
A chunk of a URL's bytes is read through a stand-in path of its own: its warnings and what it
keeps for their pooling name the URL where they name the stand-in, as one run's do
(:func:`~annoscore.formats.files.named`), before they are pooled.

``jobs - 1`` workers are forked from this process (no pickling of the corpus), started as
soon as the chunks are planned (folders: before, each importing what a chunk needs while this
process lists the folders; the chunks' names then sent), and send back count rows and
warnings; this process scores the chunks no worker has begun while it waits
(:meth:`Run._forked`).  On a terminal (not in a pipe or under ``CI``) a run by chunks
shows a progress line on standard error (documents done, rate, time left; :class:`Progress`),
as the text of the command line's spinner; a run not cut tells the spinner the same line as
its task counts its documents one after the other (:func:`counted`: MUC templates, named
entity and coreference, ``spans --mode concepts``, ``coref``), and the files of a brat
folder as its reader parses them (:func:`files_read`: ``spans`` in one run).

Whether to cut is decided by the run in force (:func:`using`): ``annoscore ... --jobs N``,
``annoscore.score(..., jobs=N)`` and :func:`annoscore.distributed.score` set it.  ``jobs=1``
(the default) calls the score function on the whole input directly, except for a file of lines
larger than :data:`LINE_CHUNK_BYTES` and folders of more than
:data:`~annoscore.scale.folders.FOLDER_CHUNK_DOCUMENTS` documents (above).

>>> resolve_jobs(0) >= 1, resolve_jobs(3)
(True, 3)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.options import TaskOptions
    from annoscore.result import Result
    from annoscore.scale.chunks import Details, Finish, Pooled
    from annoscore.scale.cut_json import JsonDocuments
    from annoscore.tasks.registry import Task

# what every task's score function uses at import or on every call (a file of lines is looked
# at by split_lines even in one job); folders, the reduce and JSON cuts are imported on use
from annoscore.scale.chunks import LineChunk, NotExact, Part, Seen, Splitter
from annoscore.scale.cut_lines import LINE_CHUNKS_PER_WORKER, numbered, split_lines, targets
from annoscore.scale.remote import RemoteBytes, _is_folder
from annoscore.scale.run import (
    _RUN,
    _SERIAL,
    Progress,
    Run,
    counted,
    current,
    files_read,
    resolve_jobs,
    reuse_freed_memory,
    scaled,
    using,
)

__all__ = [
    "LineChunk",
    "NotExact",
    "Part",
    "Progress",
    "RemoteBytes",
    "Run",
    "Seen",
    "Splitter",
    "chunked",
    "counted",
    "current",
    "files_read",
    "keep",
    "keeping",
    "numbered",
    "resolve_jobs",
    "reuse_freed_memory",
    "scaled",
    "score_given",
    "score_line_chunk",
    "score_lines",
    "split_lines",
    "targets",
    "using",
]
"""The names the tasks, the command line and :mod:`annoscore.distributed` use; the constants
that size the chunks are read in :mod:`annoscore.scale.cut_lines` only.  The cutters of
folders (:mod:`~annoscore.scale.folders`) and of JSON (:mod:`~annoscore.scale.cut_json`) and
the reduce (:mod:`~annoscore.scale.reduce`) are imported from their modules where used."""

F = TypeVar("F", bound=Callable[..., Any])


def chunked(
    task: str,
    how: str = "folders",
    warnings: Sequence[str] = ("*",),
    *,
    separators: bytes = b"\t",
    comments: bytes = b"",
    order: str = "gold-first",
    details: Details | None = None,
    lines_when: Callable[[Path, Path, Any], bytes | None] | None = None,
    suffix: str = ".ann",
    interleaved: Callable[[Any], Sequence[str]] | None = None,
    folders_when: Callable[[Path, Path, Any], bool] | None = None,
    finish: Finish | None = None,
    elements: JsonDocuments | None = None,
    cut_when: Callable[[Path, Path, Any], Splitter | None] | None = None,
    pooled: Pooled | None = None,
    scores: str | None = None,
    quotes_lines: bool = True,
) -> Callable[[F], F]:
    """Declare how ``task``'s score function ``(gold, system, options) -> Result`` is cut (see
    the module doc): ``"folders"``, with the order of its warnings' groups
    (:func:`merge_in_order`); or ``"lines"``, with the bytes that end a line's first field
    (``separators``; a line that begins with ``comments`` is never cut at: trec's ``#``),
    the order of the documents of one run (``order``: ``"gold-first"``, gold's first-seen
    order then the others', or ``"sorted"``, by the ids' bytes) and how the chunks'
    ``details`` make the whole's (``finish``: its ``extra`` fields).  ``"json"``:
    two files each a JSON array of objects (``elements``), cut at top-level elements
    (:func:`split_json`) and combined as chunks of lines.  A ``"folders"`` task may cut two files as
    ``"lines"`` too: ``lines_when(gold, system, options)`` gives the separators when they are
    files of lines (``None`` otherwise), or ``cut_when(gold, system, options)`` the function
    that cuts them (:data:`Splitter`: files whose documents are not found by a first field);
    ``pooled`` makes one run's warnings of the chunks' (without it, a chunk that warned makes
    the input be scored in one run; ``quotes_lines=False``: its warnings never quote a line,
    so the chunks that warned are not scored again with their lines counted).  Folders are cut
    so that each chunk has a file ending in ``suffix`` on both sides, and only when
    ``folders_when(gold, system, options)`` (if given) holds; ``interleaved(options)`` names the
    groups of ``warnings`` whose examples one run lists in document order, a document's gold
    and system files together
    (:func:`score_folder_chunk`).  With a run of more than one job in force, it scores the
    chunks of its input by the same function and combines them; otherwise, and when the
    input cannot be cut, it is called as it is.  ``scores``: the ``module:name`` of the function a
    chunk of lines runs when it is not the task's score function (conlleval's one file)."""
    if how not in ("folders", "lines", "json"):
        raise ValueError(f"unknown way to cut an input: {how!r}")
    if order not in ("gold-first", "sorted"):
        raise ValueError(f"unknown order of documents: {order!r}")
    if (how == "json") != (elements is not None):
        raise ValueError("a JSON array is cut by its elements (and only it)")

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def score(gold: Path, system: Path, options: Any = None) -> Result:
            run = _RUN.get()
            if options is None:
                options = get_options(task)
            cuts_lines = how in ("lines", "json") or lines_when is not None or cut_when is not None
            combined: Result | None = None
            if (
                how == "folders"
                and _is_folder(gold)
                and _is_folder(system)
                and (folders_when is None or folders_when(gold, system, options))
            ):
                from annoscore.scale.folders import _FolderCut, folder_parts
                from annoscore.scale.reduce import combine

                how_cut = _FolderCut(
                    tuple(warnings),
                    tuple(interleaved(options)) if interleaved is not None else (),
                    suffix,
                )
                parts = folder_parts(run, task, options, gold, system, how_cut)
                if parts is not None and all(p.result is not None for p in parts if p.seen is None):
                    kept = [p for p in parts if p.result is not None]
                    combined = combine(task, options, kept, warnings) if kept else None
            elif cuts_lines:
                # one process: chunks of LINE_CHUNK_BYTES scored one after the other, so that
                # no more than one chunk is held at a time
                parts_wanted = 1 if run.serial else run.workers * LINE_CHUNKS_PER_WORKER
                splitter = None if cut_when is None else cut_when(gold, system, options)
                lines = None
                if splitter is not None:
                    lines = splitter(Path(gold), Path(system), parts_wanted)
                elif elements is not None:
                    from annoscore.scale.cut_json import split_json

                    lines = split_json(Path(gold), Path(system), parts_wanted, elements)
                elif cut_by := _separators(separators, lines_when, gold, system, options):
                    lines = split_lines(
                        Path(gold), Path(system), parts_wanted, cut_by, run.workers, comments
                    )
                if lines is not None:
                    combined = score_lines(
                        task,
                        options,
                        run,
                        lines,
                        order,
                        details,
                        finish,
                        pooled,
                        scores,
                        quotes_lines,
                    )
            if combined is None:  # not cut, or not exactly: one run
                return _one_run(function, gold, system, options)
            return combined

        score.cuts_urls = True  # type: ignore[attr-defined]
        return score  # type: ignore[return-value]

    return decorate


def _separators(
    separators: bytes,
    lines_when: Callable[[Path, Path, Any], bytes | None] | None,
    gold: Path,
    system: Path,
    options: Any,
) -> bytes | None:
    return separators if lines_when is None else lines_when(gold, system, options)


def _one_run(function: Callable[..., Result], gold: Path, system: Path, options: Any) -> Result:
    """``function`` on the whole input; a URL's stand-in filled first, through fsspec, and named
    in the warnings and errors (:func:`~annoscore.formats.files.fetched`)."""
    from annoscore.formats.files import fetched, named_result, url_of

    if url_of(gold) is None and url_of(system) is None:
        return function(gold, system, options)
    with fetched(gold, system):
        return named_result(function(gold, system, options))


def score_given(
    task: str, gold: str | PathLike[str], system: str | PathLike[str], **options: Any
) -> Result:
    """``task`` run on ``gold`` and ``system`` (:meth:`~annoscore.tasks.registry.Task.run`),
    either of them an fsspec URL (``s3://``, ``gs://``, ``file://``, ``memory://``): given to
    the task as a stand-in path (:func:`~annoscore.formats.files.given`), read through fsspec
    in chunks by the workers when the task cuts its input (:func:`chunked`), otherwise whole
    in this process; the warnings and errors name the URL.  ``annoscore.score`` and
    :func:`annoscore.distributed.score` call it.  An option naming a file (``codes=...``)
    may be a URL too: read whole, in this process, before the run."""
    from annoscore.formats.files import is_url, named_error, named_result
    from annoscore.tasks.registry import get

    chosen = get(task)
    if any(is_url(v) for v in options.values()):  # a file option's URL: read whole, named
        from annoscore.formats.files import url_inputs

        with url_inputs():
            try:
                return named_result(_score_given(chosen, gold, system, options))
            except InputError as error:
                raise named_error(error) from None
    return _score_given(chosen, gold, system, options)


def _score_given(
    chosen: Task, gold: str | PathLike[str], system: str | PathLike[str], options: dict[str, Any]
) -> Result:
    from annoscore.formats.files import fetched, forget, given, is_url, named_error, named_result

    if not (is_url(gold) or is_url(system)):
        return chosen.run(gold, system, **options)
    gold, system = given(gold), given(system)
    cuts = getattr(chosen.score_function(), "cuts_urls", False)
    try:
        with fetched(*(() if cuts else (gold, system))):
            return named_result(chosen.run(gold, system, **options))
    except InputError as error:
        raise named_error(error) from None
    finally:
        forget(gold, system)


def get_options(task: str) -> TaskOptions:
    from annoscore.tasks.registry import get

    return get(task).options_class()()


def score_line_chunk(
    task: str,
    chunk: LineChunk,
    options: TaskOptions,
    carry: bool = True,
    lists: bool = False,
    scores: str | None = None,
) -> Part:
    """The chunk function of ``"lines"`` tasks: ``task``'s score function (undecorated) on the
    two files, their readers reading only the chunk's ranges
    (:func:`~annoscore.formats.files.cut_files`) and recording the ids found there.  An error
    in a chunk, or a reader's word that the chunk may read otherwise than the whole file
    (:func:`~annoscore.formats.files.not_exact`), gives a part without a result (the input is
    then scored in one run, which reports the error as one run does).  A URL's range is read
    through a stand-in path of the chunk's own, named as the URL in the chunk's warnings and
    in what it keeps (:func:`keep`), as one run names its stand-in
    (:func:`~annoscore.formats.files.named_items`).  Runs in a worker (or in this process)."""
    from annoscore.formats.files import (
        Cut,
        cut_files,
        is_url,
        named_items,
        named_warning,
        stand_in,
    )
    from annoscore.scale.reduce import _sent
    from annoscore.tasks.registry import get

    if scores is None:
        function = get(task).score_function()
    else:  # another function than the task's (module:name)
        import importlib

        module, _, name = scores.partition(":")
        function = getattr(importlib.import_module(module), name)
    function = getattr(function, "__wrapped__", function)
    gold = Cut(*chunk.gold_range, line=max(0, chunk.gold_line))
    system = Cut(*chunk.system_range, line=max(0, chunk.system_line))
    if chunk.gold == chunk.system:  # one file holds both sides: one range, one reading
        system = gold
    for cut, wrap in ((gold, chunk.gold_wrap), (system, chunk.system_wrap)):
        if wrap is not None:  # the file's own start and end around the range
            cut.head, cut.tail, cut.check = wrap.head, wrap.tail, wrap.check
            cut.documents = wrap.documents
    # a URL: its stand-in is read, its range through fsspec (Cut.url)
    gold.url, system.url = (u if is_url(u) else None for u in (chunk.gold, chunk.system))
    paths = tuple(
        stand_in(p, register=False) if is_url(p) else Path(p) for p in (chunk.gold, chunk.system)
    )
    token = _RUN.set(_SERIAL)
    kept: list[Any] = []
    keeping = _KEPT.set(kept)
    try:
        with cut_files({str(paths[0]): gold, str(paths[1]): system}):
            result: Result = function(*paths, options)
    except InputError:
        return Part(None, ())
    finally:
        _KEPT.reset(keeping)
        _RUN.reset(token)
    if not (gold.exact and system.exact):  # a reader says the chunk reads otherwise
        return Part(None, ())
    warnings = result.warnings
    names = {str(p): cut.url for p, cut in zip(paths, (gold, system), strict=True) if cut.url}
    if names:  # the chunk's own stand-ins named as their URLs, as one run names its own
        warnings = tuple(named_warning(w, names) for w in warnings)
        kept = [named_items(item, names) for item in kept]
    seen_gold = Seen.of(gold.seen)
    # the same ids on both sides (the usual chunk): one object, made once and sent once (the
    # pickle's memo: its bytes once)
    seen = seen_gold, seen_gold if system.seen == gold.seen else Seen.of(system.seen)
    return Part(_sent(result, carry, lists), tuple((2, w) for w in warnings), seen, tuple(kept))


_KEPT: ContextVar[list[Any] | None] = ContextVar("annoscore_kept", default=None)
"""What the task's score function keeps of a chunk of lines for the pooling of its warnings
(:func:`keep`); ``None`` outside a chunk."""


def keeping() -> bool:
    """Whether a chunk of lines is being scored (then :func:`keep` keeps)."""
    return _KEPT.get() is not None


def keep(item: Any) -> None:
    """Keep ``item`` with the part of the chunk of lines being scored (:attr:`Part.kept`):
    what a task's ``pooled`` needs to make one run's warnings of the chunks' (nothing outside
    a chunk)."""
    kept = _KEPT.get()
    if kept is not None:
        kept.append(item)


def _line_part(
    task: str, options: TaskOptions, lists: bool, carry: bool, scores: str | None, chunk: LineChunk
) -> Part:
    return score_line_chunk(task, chunk, options, carry, lists, scores)


CARRY_CHUNKS = 16
"""Chunks of lines send their documents' scores (when the run asks: :attr:`Run.documents`)
when the input has at most this many chunks (:func:`_sent`): beyond, the memory of the parts
would grow with the corpus five times faster than its count rows."""


def score_lines(
    task: str,
    options: TaskOptions,
    run: Run,
    lines: Sequence[LineChunk],
    order: str = "gold-first",
    details: Details | None = None,
    finish: Finish | None = None,
    pooled: Pooled | None = None,
    scores: str | None = None,
    quotes_lines: bool = True,
) -> Result | None:
    """The result of the chunks of lines ``lines`` scored by ``run`` (:func:`combine_lines`),
    or ``None`` when the cut is not exact or a chunk is :func:`unusable` (then the chunks after
    it are not scored: the input is scored in one run); with ``pooled``, a chunk that warned
    is used (its warnings pooled), one that raised is not."""
    from annoscore.formats.files import read_once
    from annoscore.scale.reduce import (
        DERIVED_CODES,
        GoldIds,
        RowStack,
        combine_lines,
        unread,
        unusable,
    )

    carry = run.documents and len(lines) <= CARRY_CHUNKS
    score = functools.partial(_line_part, task, options, run.lists, carry, scores)
    if run.own_process and len(lines) > 1:
        reuse_freed_memory()
    # the rows stacked and the gold ids collected as the chunks come back, while the workers
    # count the next ones
    rows, gold_ids = RowStack([_size(c) for c in lines]), GoldIds()
    collected: GoldIds | None = gold_ids
    stops = unusable if pooled is None else unread

    def until(part: Part) -> bool:
        if stops(part):
            return True
        assert part.result is not None
        rows.add(part.result.matrix)
        gold_ids.add(part)
        return False

    with read_once():  # what every chunk reads alike, once in each process (forked inside)
        parts = run.map(score, lines, until=until)
        if len(parts) < len(lines):
            return None
        if pooled is not None and quotes_lines and _numbers_lines(lines[-1]):
            # the chunks numbered their lines from 1: those that warned (quoting lines,
            # maybe) are scored again with the lines before them counted (only then: a pass
            # over the bytes up to the last of them)
            again = [
                k
                for k, part in enumerate(parts)
                if k and any(w.code not in DERIVED_CODES for _, w in part.warnings)
            ]
            if again:
                counted = numbered(lines[: again[-1] + 1])
                redone = run.map(score, [counted[k] for k in again], until=unread)
                if len(redone) < len(again):
                    return None
                parts = list(parts)
                for k, part in zip(again, redone, strict=True):
                    parts[k] = part
                # parts replaced: their rows stacked and their ids read anew
                rows.broken, collected = True, None
    return combine_lines(
        task, options, parts, order, details, finish, pooled, rows.matrix(), collected
    )


def _numbers_lines(chunk: LineChunk) -> bool:
    """Whether ``chunk``'s reader numbers its lines from 1, where the whole file's reader
    numbers them from the lines before its range (not counted: ``gold_line`` -1).  A chunk
    read between its file's head and tail (``gold_wrap``: BioC) numbers none
    (:func:`~annoscore.scale.cut_xml._wrapped`)."""
    return chunk.gold_line < 0 and chunk.gold_wrap is None


def _size(chunk: LineChunk) -> int:
    """The bytes of ``chunk``'s two ranges."""
    return sum(stop - start for start, stop in (chunk.gold_range, chunk.system_range))
