"""The MUC tasks on chunks of their two files, made one run's result.

Template files (TE, TR, ST) are cut before the header of a document's first object
(:func:`~annoscore.scale.cut_muc.split_templates`), SGML files (named entity, coreference)
before ``<DOC>`` tags (:func:`~annoscore.scale.cut_muc.split_sgml`); each chunk is read,
aligned and counted by the task's own score function, its lines numbered as in the whole file;
the reduce stacks the count rows in one run's document order and makes one run's details and
warnings of the chunks':

- details (:func:`joined_details`): the :class:`~annoscore.metrics.muc.MucDetails` of one run
  are every scored document's alignment in scoring order (the key's documents in file order,
  then the response's others), its pairs scored summed: the chunks' alignments are put in the
  order of the stacked rows, one alignment a row (or, with the chunks writing their reports,
  :func:`rendering`, the texts of their files, one a row);
- warnings (:func:`pooled_as`): one run gives the configuration's notes first, then, for named
  entity and coreference, the unpaired documents of each side, the texts that differ, the tags
  outside every section, the ignored attributes, the key markables without their MIN in the
  text, the REF alternatives (each a count with the first five places in document order) and
  the byte-order marks of the two files (:data:`SGML_ORDER`); for the template tasks, the
  unpaired documents, the byte-order marks, the dangling pointers (one warning a document,
  the key's then the response's, merged), the documents' own notes (the key's documents', then
  the response's others) and the removed pointers (:data:`TEMPLATE_ORDER`).  The
  configuration's notes and the byte-order marks are the same in every chunk (the first
  chunk's are kept); the others are counts added and examples joined in chunk order (the
  documents' order), the first five kept.  What a chunk keeps (:class:`Kept`) says which notes
  are the configuration's and which a document's; a note or a warning of another kind makes
  the input be scored in one run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from annoscore.scale import NotExact, Splitter, current, keeping
from annoscore.scale.chunks import Pooled
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning, merge_warnings

if TYPE_CHECKING:
    from annoscore.metrics.muc import MucDetails

DOCUMENT_NOTES = "note:document"
"""Where the documents' own notes stand in one run's order (``document 12: more than one
TEMPLATE object ...``): the key's documents' first, then the response's others, in file order
(one run's scoring order)."""

SGML_ORDER = (
    "documents.gold-only",
    "documents.system-only",
    "muc.text-differs",
    "muc.outside-sections",
    "muc.ignored-attributes",
    "muc.min-not-in-text",
    "muc.ref-alternatives",
    "formats.bom",
)
"""The warnings of named entity and coreference after the configuration's notes, in one run's
order."""

DANGLING = "muc.dangling-pointers"
"""A template document's pointers to objects its file does not have: one warning a document,
merged as one run merges them (the key's documents', then the response's)."""

TEMPLATE_ORDER = (
    "documents.gold-only",
    "documents.system-only",
    "formats.bom",
    DANGLING,
    DOCUMENT_NOTES,
    "muc.removed-pointers",
)
"""The same of the template tasks, the documents' notes and dangling pointers among them."""

SAME = "formats.bom"
"""The warning every chunk gives alike (the files' byte-order marks)."""


def _uncut(gold: Path, system: Path, parts: int) -> None:
    """The splitter of an input read whole."""
    del gold, system, parts


def muc_cut(task: str) -> Any:
    """The ``cut_when`` of a MUC task: template files cut before a document's first object
    (:func:`~annoscore.scale.cut_muc.split_templates`), SGML files before the documents' tags
    the configuration names (:func:`~annoscore.scale.cut_muc.split_sgml`), with more than one
    job in force and the chunks writing their documents' reports (:func:`rendering`:
    ``annoscore muc``); otherwise the files are read whole."""

    def cut_when(gold: Path, system: Path, options: Any) -> Splitter | None:
        import functools

        from annoscore.errors import InputError
        from annoscore.scale.cut_muc import split_sgml, split_templates
        from annoscore.tasks.muc import SGML_TASKS, load_config

        if current().serial or _RENDER.get() is None:
            # one job reads the files whole, as it always did; so does a run whose chunks
            # would send their alignments (the API: the parent's unpickling of them and its
            # writing of every report cost more than the cut saves, 0.6-0.7x); None would let
            # the input be cut as a file of lines
            return _uncut
        _chunk_modules(task)
        if task not in SGML_TASKS:
            return split_templates
        try:
            config = load_config(options.config, task)
        except InputError:  # one run reports it
            return _uncut
        return functools.partial(
            split_sgml,
            doc_gid=config.value("sgml_doc_gid"),
            docnum_gid=config.value("sgml_docnum_gid"),
        )

    return cut_when


def _chunk_modules(task: str) -> None:
    """Import what a chunk of ``task`` imports when it is scored (named entity: its aligner
    and tallies; every task: the lists a chunk's part keeps,
    :func:`annoscore.metrics.worst_lists.for_chunk`) in this process, before its workers are
    forked from it: each worker imported them on its first chunk, and this process the
    latter again for the reduce (named entity, 250 documents, two jobs: 11M instructions in
    each worker)."""
    import annoscore.metrics.worst_lists

    if task == "named_entity":
        import annoscore.align.muc_ne
        import annoscore.metrics.muc_ne  # noqa: F401


Render = Callable[["MucDetails"], "Mapping[str, Iterable[str]]"]
"""How a chunk writes its reports: each kind's text per document (:func:`rendering`)."""

_RENDER: ContextVar[tuple[Render, str] | None] = ContextVar("annoscore_muc_render", default=None)
"""The chunks' :data:`Render` and the folder where they leave the texts."""


@contextlib.contextmanager
def rendering(render: Render) -> Iterator[None]:
    """Inside the block, each chunk of a MUC task cut over processes forked from this one
    (``--jobs N``) writes its reports per document in its worker with ``render`` (the command
    line gives :func:`annoscore.report.muc.rendered`, the reports it writes) into a file of a
    folder made here (in ``/dev/shm`` when there is one) and sends that file's name instead
    of its alignments (:attr:`~annoscore.metrics.muc.MucDetails.rendered`,
    :class:`~annoscore.scale.spool.Spooled`): the parent then copies the texts' bytes as
    they are, no string unpickled, joined or encoded.  The files are the parent's once
    received (opened, their names removed); the folder and what a chunk not used left in it
    are removed on leaving the block.  Outside it (the API, whose details hold the
    alignments) the input is not cut (:func:`muc_cut`); Dask workers, which do not inherit
    it, send their alignments, joined in one run's order (:func:`joined_details`)."""
    import shutil
    import tempfile

    from annoscore.scale.spool import spool_folder

    try:
        folder = tempfile.mkdtemp(prefix="annoscore-muc-", dir=spool_folder())
    except OSError:  # no folder for the texts: the input is read whole (muc_cut)
        yield
        return
    token = _RENDER.set((render, folder))
    try:
        yield
    finally:
        _RENDER.reset(token)
        shutil.rmtree(folder, ignore_errors=True)


def in_chunk(details: MucDetails) -> MucDetails:
    """``details`` as a chunk sends them: written per document (:func:`rendering`) in a chunk
    of a run that asked for it, the texts in a file of the run's folder, else as they are."""
    from annoscore.metrics.muc import Rendered
    from annoscore.scale.spool import Spooled

    given = _RENDER.get()
    if given is None or not keeping():
        return details
    render, folder = given
    try:
        texts = Spooled.written(folder, render(details))
    except OSError:  # the folder cannot take them (full): the chunk sends its alignments,
        return details  # joined as the API's are, or beside chunks' texts not (one run)
    return replace(
        details, documents=(), coref=None if details.coref is None else [], rendered=Rendered(texts)
    )


def joined_details(details: Sequence[Any], order: Sequence[int]) -> Any:
    """One run's :class:`~annoscore.metrics.muc.MucDetails` of the chunks' (in chunk order),
    their alignments (or the texts written per document) put in the stacked rows' ``order``
    (one a row); :class:`NotExact` when they are not one a row."""
    from annoscore.metrics.muc import MucDetails, Rendered
    from annoscore.scale.spool import Spooled

    first = details[0]
    if not all(isinstance(d, MucDetails) for d in details):
        raise NotExact
    if any((d.rendered is None) != (first.rendered is None) for d in details):
        raise NotExact
    if first.rendered is not None:
        texts: dict[str, Spooled] = {}
        for kind in first.rendered.texts:
            parts: list[Spooled] = []
            for d in details:
                given = d.rendered.texts.get(kind) if d.rendered is not None else None
                if given is None:
                    raise NotExact
                parts.append(given)
            if sum(map(len, parts)) != len(order):
                raise NotExact
            texts[kind] = Spooled.joined(parts, None if _kept(order) else order)
        return replace(
            first,
            pairs_scored=sum(d.pairs_scored for d in details),
            rendered=Rendered(texts),
        )
    documents = [a for d in details for a in d.documents]
    if len(documents) != len(order):
        raise NotExact
    coref = None
    if first.coref is not None:
        if any(d.coref is None for d in details):
            raise NotExact
        coref = [a for d in details for a in d.coref]
        coref = [coref[k] for k in order]
    return replace(
        first,
        documents=documents if _kept(order) else [documents[k] for k in order],
        pairs_scored=sum(d.pairs_scored for d in details),
        coref=coref,
    )


def _kept(order: Sequence[int]) -> bool:
    """Whether ``order`` keeps the rows where they are."""
    return isinstance(order, range) and order == range(len(order))


class Kept(NamedTuple):
    """What a chunk of a MUC task keeps for the pooling of its warnings (:func:`pooled_as`)."""

    configured: int
    """How many notes of the configuration come first."""
    notes: tuple[tuple[bool, str], ...] = ()
    """A template task's documents' own notes, each with whether the key holds the document."""
    dangling: tuple[tuple[bool, ScoreWarning], ...] = ()
    """A template task's dangling pointers' warnings, one a document, each with whether it is
    the key's (one run merges the key's, then the response's)."""


def pooled_as(order: Sequence[str]) -> Pooled:
    """The ``pooled`` of a MUC task whose warnings after the configuration's notes come in
    ``order`` (the module doc)."""

    def pooled(
        options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
    ) -> list[ScoreWarning | str] | None:
        """One run's warnings of the chunks' (``warned``, in chunk order; ``kept``: each
        chunk's :class:`Kept`); ``None`` when they cannot be pooled."""
        del options
        if not kept or any(len(k) != 1 or not isinstance(k[0], Kept) for k in kept):
            return None
        counted: list[Kept] = [k[0] for k in kept]
        notes = [[w for w in chunk if w.code == "note"] for chunk in warned]
        same = [[w for w in chunk if w.code == SAME] for chunk in warned]
        configured = notes[0][: counted[0].configured]
        ordered: tuple[list[str], list[str]] = ([], [])  # the documents' notes: key's, others
        dangling: tuple[list[ScoreWarning], list[ScoreWarning]] = ([], [])
        for chunk, held in zip(notes, counted, strict=True):
            if chunk[: held.configured] != configured:
                return None  # not the configuration's notes
            if [w.message for w in chunk[held.configured :]] != [t for _, t in held.notes]:
                return None  # a note of a document's own the task did not keep
            for in_key, text in held.notes:
                ordered[0 if in_key else 1].append(text)
            for in_key, pointers in held.dangling:
                dangling[0 if in_key else 1].append(pointers)
        if any(s != same[0] for s in same):
            return None
        added: dict[str, ScoreWarning] = {}
        for given in warned:
            for warning in given:
                if warning.code in ("note", SAME, DANGLING):
                    continue
                if warning.code not in order:
                    return None
                before = added.get(warning.code)
                if before is None:
                    added[warning.code] = warning
                elif before.message != warning.message:
                    return None
                else:
                    examples = (*before.examples, *warning.examples)[:EXAMPLES_SHOWN]
                    added[warning.code] = replace(
                        before, count=before.count + warning.count, examples=examples
                    )
        if same[0]:
            added[SAME] = same[0][0]
        if dangling[0] or dangling[1]:
            added.update((w.code, w) for w in merge_warnings([*dangling[0], *dangling[1]]))
        if any(code not in order for code in added) or (
            DOCUMENT_NOTES not in order and any(ordered)
        ):
            return None
        out: list[ScoreWarning | str] = [*configured]
        for code in order:
            if code == DOCUMENT_NOTES:
                out += [*ordered[0], *ordered[1]]
            elif code in added:
                out.append(added[code])
        return out

    return pooled
