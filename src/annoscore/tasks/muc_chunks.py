"""MUC named entity and coreference on chunks of their two SGML files, made one run's result.

The files are cut before ``<DOC>`` tags (:func:`~annoscore.scale.cut_muc.split_sgml`); each chunk
is read, aligned and counted by the task's own score function; the reduce stacks the count rows
in one run's document order and makes one run's details and warnings of the chunks':

- details (:func:`joined_details`): the :class:`~annoscore.metrics.muc.MucDetails` of one run
  are every scored document's alignment in scoring order (the key's documents in file order,
  then the response's others), its pairs scored summed: the chunks' alignments are put in the
  order of the stacked rows, one alignment a row;
- warnings (:func:`pooled`): one run gives the configuration's notes, then the unpaired
  documents of each side, the texts that differ, the tags outside every section, the ignored
  attributes, the key markables without their MIN in the text and the REF alternatives (each a
  count with the first five places in document order), then the byte-order marks of the two
  files.  The configuration's notes and the byte-order marks are the same in every chunk (the
  first chunk's are kept); the others are counts added and examples joined in chunk order (the
  documents' order), the first five kept.  A note that is not the configuration's (a document's
  own) or a warning of another kind makes the input be scored in one run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from annoscore.result import EXAMPLES_SHOWN, ScoreWarning
from annoscore.scale import NotExact, Splitter, current

POOLED = (
    "documents.gold-only",
    "documents.system-only",
    "muc.text-differs",
    "muc.outside-sections",
    "muc.ignored-attributes",
    "muc.min-not-in-text",
    "muc.ref-alternatives",
)
"""The warnings that add up over documents, in one run's order."""

SAME = ("note", "formats.bom")
"""The warnings every chunk gives alike: the configuration's notes (first), the files'
byte-order marks (last)."""


def sgml_cut(task: str) -> Any:
    """The ``cut_when`` of a MUC SGML task (``named_entity`` or ``coreference``): the files cut
    before the documents' tags the configuration names, with more than one job in force (one
    job reads the files whole, as it always did: the details hold every document anyway)."""

    def cut_when(gold: Path, system: Path, options: Any) -> Splitter | None:
        import functools

        from annoscore.errors import InputError
        from annoscore.scale.cut_muc import split_sgml
        from annoscore.tasks.muc import load_config

        if current().serial:
            return None
        try:
            config = load_config(options.config, task)
        except InputError:  # one run reports it
            return None
        return functools.partial(
            split_sgml,
            doc_gid=config.value("sgml_doc_gid"),
            docnum_gid=config.value("sgml_docnum_gid"),
        )

    return cut_when


def joined_details(details: Sequence[Any], order: Sequence[int]) -> Any:
    """One run's :class:`~annoscore.metrics.muc.MucDetails` of the chunks' (in chunk order),
    their alignments put in the stacked rows' ``order`` (one a row); :class:`NotExact` when
    they are not one a row."""
    from annoscore.metrics.muc import MucDetails

    first = details[0]
    if not all(isinstance(d, MucDetails) for d in details):
        raise NotExact
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
        documents=[documents[k] for k in order],
        pairs_scored=sum(d.pairs_scored for d in details),
        coref=coref,
    )


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (``warned``, in chunk order); ``None`` when they
    cannot be pooled (the module doc)."""
    del options, kept
    same = [[w for w in chunk if w.code in SAME] for chunk in warned]
    if any(s != same[0] for s in same):
        return None  # a note of a document's own, or a mark of one chunk only
    added: dict[str, ScoreWarning] = {}
    for chunk in warned:
        for warning in chunk:
            if warning.code in SAME:
                continue
            if warning.code not in POOLED:
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
    notes = [w for w in same[0] if w.code == "note"]
    marks = [w for w in same[0] if w.code != "note"]
    middle = [added[code] for code in POOLED if code in added]
    return [*notes, *middle, *marks]
