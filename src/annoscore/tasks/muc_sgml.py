"""MUC named entity and coreference from SGML documents: the counting behind two MUC tasks.

:mod:`annoscore.tasks.muc` scores both (``score_muc_named_entity``, ``score_muc_coreference`` and
their ``count_`` twins on parsed documents); this module reads the files as the configuration says
(:func:`read_task_file`: documents by ``:sgml_DOC_gid``, numbers from ``:sgml_DOCNUM_gid``,
sections from ``:doc_sections``), turns the task's tags into the MUC objects every task shares,
aligns and counts each document, and gives the per-document counts, the warnings and the
:class:`~annoscore.metrics.muc.MucDetails` the MUC reports read (:class:`Counted`).

- **Named entity** (:func:`count_named_entity`): ENAMEX/TIMEX/NUMEX (the ``:class_defs`` names)
  become objects with TYPE and TEXT slots; :class:`~annoscore.align.muc_ne.NeAligner` aligns them
  (the template alignment restricted to overlapping tags); tallies are the template tallies plus
  the SUBTASK and SECT rows (:mod:`annoscore.metrics.muc_ne`).
- **Coreference** (:func:`count_coreference`): COREF markables, REF classes, MIN-and-extent
  alignment (:mod:`annoscore.align.muc_coref`), counted by the project's coreference metrics on
  partitions of markable ids (:mod:`annoscore.metrics.muc_coref`; MUC by default).

Key and response texts should be equal outside the task's tags (the manual's caveat).  Where a
document's texts differ, the first differing offset and an excerpt of both are named in a warning
and the objects are scored on the offsets each side counts; ``strict_text=True`` makes it an error.
A document in one file only is scored (all MIS or all SPU) with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.muc_config import NE_SUBTASK_NAMES, MucConfig, kept_per_process
from annoscore.formats.muc_sgml import (
    DEFAULT_SECTIONS,
    SgmlDocument,
    SgmlMarkup,
    excerpt,
    read_sgml,
)
from annoscore.formats.muc_sgml_objects import SgmlSlots
from annoscore.metrics.muc import MucDetails
from annoscore.model import first_difference
from annoscore.scale import counted
from annoscore.score_warnings import ScoreWarning


class Counted(NamedTuple):
    """A MUC task's counts before they become a result: each document's counts (in scoring
    order), the warnings so far and what the reports need."""

    per_document: dict[str, Counts]
    warnings: list[ScoreWarning | str]
    details: MucDetails


_UNPAIRED = ("key document(s) have no response document", "response document(s) are not in the key")
"""What an unpaired document of each side lacks, for :meth:`DocumentPairing.warnings`."""


def sgml_slots(config: MucConfig) -> SgmlSlots:
    """The attribute names of the ``:sgml_*_slot`` options (upper-case)."""
    named = ("text", "type", "alt", "id", "ref", "min")
    slots = {name: config.value(f"sgml_{name}_slot").upper() for name in named}
    return SgmlSlots(**slots, separator=config.value("sgml_alternative_separator") or "|")


def section_groups(config: MucConfig) -> dict[str, list[str]]:
    """SECT SCORES rows: ``:doc_section_groups`` ("Name SECTION ..."), else each section."""
    groups: dict[str, list[str]] = {}
    for value in config.items("doc_section_groups"):
        tokens = value.split()
        if len(tokens) < 2:
            raise InputError(
                f":doc_section_groups entry {value!r} needs a group name and at least one section",
                config.path,
            )
        groups[tokens[0]] = tokens[1:]
    if groups:
        return groups
    return {s: [s] for s in sections_of(config)}


def sections_of(config: MucConfig) -> list[str]:
    """The sections parsed: ``:doc_sections`` (the manual's default list when not given) and
    every section a group names."""
    sections = list(config.items("doc_sections")) or list(DEFAULT_SECTIONS)
    for value in config.items("doc_section_groups"):
        for name in value.split()[1:]:
            if name.upper() not in {s.upper() for s in sections}:
                sections.append(name)
    return sections


def sgml_markup(config: MucConfig) -> SgmlMarkup:
    """How the configuration says its SGML task files are marked up: ``:sgml_DOC_gid``,
    ``:sgml_DOCNUM_gid``, the sections parsed (:func:`sections_of`) and
    ``:sgml_attribute_quote_char``."""
    return SgmlMarkup(
        config.value("sgml_doc_gid"),
        config.value("sgml_docnum_gid"),
        tuple(sections_of(config)),
        config.value("sgml_attribute_quote_char"),
    )


def subtasks_of(config: MucConfig) -> tuple[tuple[str, str, str], ...]:
    """``:ne_subtask_names`` as (class, slot, value) (:data:`NE_SUBTASK_NAMES` by default)."""
    out = []
    for value in config.items("ne_subtask_names") or NE_SUBTASK_NAMES:
        tokens = value.split()
        if len(tokens) != 3:
            raise InputError(
                f":ne_subtask_names entry {value!r} needs 3 tokens: object type, slot, value",
                config.path,
            )
        out.append((tokens[0], tokens[1], tokens[2]))
    return tuple(out)


def task_gids(config: MucConfig) -> list[str]:
    """The generic identifiers of the task's tags, upper-case: every ``:class_defs`` name (named
    entity), the first one (coreference)."""
    names = [c.name.upper() for c in config.class_defs]
    return names[:1] if config.scoring_task == "coreference" else names


def read_task_file(config: MucConfig, path: Path, gids: Sequence[str]) -> dict[str, SgmlDocument]:
    """The documents of an SGML key or response file, read as the configuration says, by number
    (``gids``: :func:`task_gids`)."""
    documents = read_sgml(path, gids, sgml_markup(config))
    return {d.number: d for d in documents}


def by_number(documents: Sequence[SgmlDocument], side: str) -> dict[str, SgmlDocument]:
    """Parsed documents by number; a number given twice is an :class:`InputError` (as
    :func:`~annoscore.formats.muc_sgml.read_sgml` refuses it in one file)."""
    out: dict[str, SgmlDocument] = {}
    for document in documents:
        if document.number in out:
            raise InputError(
                f"{side} document number {document.number} is given twice",
                document.path or None,
                document.line,
            )
        out[document.number] = document
    return out


def _common_warnings(
    keys: Mapping[str, SgmlDocument],
    rsps: Mapping[str, SgmlDocument],
    scored: Sequence[str],
    strict_text: bool,
) -> list[ScoreWarning]:
    """Text differences (or the ``strict_text`` error) and tags outside every section."""
    warnings: list[ScoreWarning] = []
    differing: list[str] = []
    for doc in scored:
        key, rsp = keys.get(doc), rsps.get(doc)
        if key is None or rsp is None:
            continue
        at = first_difference(key.text, rsp.text)
        if at is None:
            continue
        both = f"at offset {at}: key {excerpt(key.text, at)!r}, response {excerpt(rsp.text, at)!r}"
        if strict_text:
            raise InputError(
                f"the text differs from the key's outside the tags {both} (--strict-text)",
                rsp.path or None,
                rsp.line,
                document=doc,
            )
        differing.append(f"document {doc} {both}")
    if differing:
        warnings.append(
            ScoreWarning(
                "muc.text-differs",
                "{count} document(s) whose response text differs from the key's outside the "
                "tags (the manual's caveat); their tags are scored on the offsets each side "
                "counts",
                len(differing),
                tuple(differing[:5]),
            )
        )
    outside = sum(d.outside for d in (*keys.values(), *rsps.values()))
    if outside:
        warnings.append(
            ScoreWarning(
                "muc.outside-sections",
                "{count} task tag(s) outside every :doc_sections section are not scored",
                outside,
            )
        )
    return warnings


def count_named_entity(
    config: MucConfig,
    keys: Mapping[str, SgmlDocument],
    rsps: Mapping[str, SgmlDocument],
    *,
    strict_text: bool = False,
) -> Counted:
    """Align and count named entity documents (by number; see the module docstring): every
    ALL SLOTS, ``obj:``, ``slot:``, ``subtask:`` and ``section:`` tally of each document."""
    from annoscore.align.muc_ne import NeAligner
    from annoscore.align.muc_records import DocumentAlignment
    from annoscore.formats.muc_sgml_objects import SharedSlots, ne_objects
    from annoscore.metrics.muc_ne import ne_document_counts

    classes = [c.name.upper() for c in config.class_defs]
    slots = sgml_slots(config)
    defined = config.slot_names()
    ignored = 0
    # equal slots are one object (cheaper to align and report), kept through a worker's chunks
    shared = kept_per_process("named entity slots", config, SharedSlots)
    key_objects = {}
    for doc, document in keys.items():
        key_objects[doc], n = ne_objects(
            document, classes, defined, slots=slots, shared_slots=shared
        )
        ignored += n
    rsp_objects = {}
    for doc, document in rsps.items():
        rsp_objects[doc], n = ne_objects(
            document, classes, defined, slots=slots, keys_syntax=config.key2key, shared_slots=shared
        )
        ignored += n
    pairing = pair_documents(keys, rsps, gold_only="empty", system_only="empty")
    warnings: list[ScoreWarning | str] = [*config.warnings]
    warnings += pairing.warnings(*_UNPAIRED)
    warnings += _common_warnings(keys, rsps, pairing.scored, strict_text)
    if ignored:
        warnings.append(
            ScoreWarning(
                "muc.ignored-attributes",
                "{count} tag attribute(s) that :slot_defs does not define are ignored",
                ignored,
            )
        )
    aligner = kept_per_process("named entity aligner", config, lambda: NeAligner(config))
    aligner.restarted()
    subtasks = subtasks_of(config)
    groups = section_groups(config)
    alignments: list[DocumentAlignment] = []
    per_document: dict[str, Counts] = {}
    for doc in counted(pairing.scored):  # a progress line on a terminal
        alignment = aligner.align(doc, key_objects.get(doc), rsp_objects.get(doc))
        alignments.append(alignment)
        per_document[doc] = ne_document_counts(alignment, subtasks, groups)
    warnings.extend(aligner.warnings)
    details = MucDetails(
        config,
        alignments,
        pairs_scored=aligner.pairs_scored,
        section_rows=tuple(groups),
        subtasks=subtasks,
    )
    return Counted(per_document, warnings, details)


def count_coreference(
    config: MucConfig,
    keys: Mapping[str, SgmlDocument],
    rsps: Mapping[str, SgmlDocument],
    *,
    metrics: Sequence[str] = ("muc",),
    strict_text: bool = False,
) -> Counted:
    """Align and count coreference documents (by number; see the module docstring): each chosen
    metric's numerators and denominators (:mod:`annoscore.metrics.muc_coref`), the class and
    markable counts."""
    from annoscore.align.muc_coref import align_coref
    from annoscore.formats.muc_sgml_objects import SharedSlots, coref_objects
    from annoscore.metrics.muc_coref import coref_document_counts

    class_def = config.class_defs[0]
    gid = class_def.name.upper()
    slots = sgml_slots(config)
    # equal slots are one object (cheaper to align and report), kept through a worker's chunks
    shared = kept_per_process("coreference slots", config, SharedSlots)
    key_objects = {
        d: coref_objects(doc, gid, slots=slots, shared_slots=shared) for d, doc in keys.items()
    }
    rsp_objects = {
        d: coref_objects(doc, gid, slots=slots, keys_syntax=config.key2key, shared_slots=shared)
        for d, doc in rsps.items()
    }
    pairing = pair_documents(keys, rsps, gold_only="empty", system_only="empty")
    warnings: list[ScoreWarning | str] = [*config.warnings]
    warnings += pairing.warnings(*_UNPAIRED)
    warnings += _common_warnings(keys, rsps, pairing.scored, strict_text)
    alignments = []
    per_document: dict[str, Counts] = {}
    for doc in counted(pairing.scored):  # a progress line on a terminal
        alignment = align_coref(doc, key_objects.get(doc), rsp_objects.get(doc), slots, class_def)
        alignments.append(alignment)
        per_document[doc] = coref_document_counts(alignment, metrics)
    missing_min = [m for a in alignments for m in a.min_not_in_text]
    if missing_min:
        warnings.append(
            ScoreWarning(
                "muc.min-not-in-text",
                "{count} key markable(s) whose MIN string does not occur in their text; they "
                "align only with a response markable of the same extent",
                len(missing_min),
                tuple(f"ID={m.id} MIN={m.mins[0]!r} text={m.text!r}" for m in missing_min[:5]),
            )
        )
    extra_refs = sum(a.extra_refs for a in alignments)
    if extra_refs:
        warnings.append(
            ScoreWarning(
                "muc.ref-alternatives",
                "{count} REF alternative(s) after the first are ignored (a markable links to "
                "its first REF)",
                extra_refs,
            )
        )
    details = MucDetails(config, [a.record for a in alignments], coref=alignments)
    return Counted(per_document, warnings, details)
