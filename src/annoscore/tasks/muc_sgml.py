"""MUC named entity and coreference scoring from SGML files: two presets on the MUC core.

Both read the key and response texts with :mod:`annoscore.formats.muc_sgml` (documents by
``:sgml_DOC_gid``, numbers from ``:sgml_DOCNUM_gid``, sections from ``:doc_sections``), turn the
task's tags into the MUC objects every task shares, and return a :class:`~annoscore.result.Result`
whose ``details`` is the :class:`~annoscore.report.muc.MucDetails` the MUC reports read.

- **Named entity** (:func:`score_muc_ne`): ENAMEX/TIMEX/NUMEX (the ``:class_defs`` names) become
  objects with TYPE and TEXT slots; :class:`~annoscore.align.muc_ne.NeAligner` aligns them (the
  template alignment restricted to overlapping tags); tallies are the template tallies plus the
  SUBTASK and SECT rows (:mod:`annoscore.metrics.muc_ne`).  Scores: the ALL SLOTS row, as for TE.
- **Coreference** (:func:`score_muc_coref`): COREF markables, REF classes, MIN-and-extent
  alignment (:mod:`annoscore.align.muc_coref`), scored by the project's coreference metrics on
  partitions of markable ids (:mod:`annoscore.metrics.muc_coref`; MUC by default).

Key and response texts should be equal outside the task's tags (the manual's caveat).  Where a
document's texts differ, the first differing offset and an excerpt of both are named in a warning
and the objects are scored on the offsets each side counts; ``strict_text=True`` makes it an error.
A document in one file only is scored (all MIS or all SPU) with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings
from annoscore.formats.muc_config import NE_SUBTASK_NAMES, MucConfig
from annoscore.formats.muc_sgml import (
    DEFAULT_SECTIONS,
    SgmlDocument,
    excerpt,
    first_difference,
    read_sgml,
)
from annoscore.formats.muc_sgml_objects import SgmlSlots
from annoscore.result import CountMatrix, Result, ScoreWarning
from annoscore.signature import Signature

NE_TASK = "muc-named-entity"
CO_TASK = "muc-coreference"


_UNPAIRED = (
    "key document(s) have no response document",
    "response document(s) are not in the key",
)
"""What an unpaired document of each side lacks, for :meth:`DocumentPairing.warnings`."""


def sgml_slots(config: MucConfig) -> SgmlSlots:
    """The attribute names of the ``:sgml_*_slot`` options (upper-case)."""
    return SgmlSlots(
        text=config.value("sgml_text_slot").upper(),
        type=config.value("sgml_type_slot").upper(),
        alt=config.value("sgml_alt_slot").upper(),
        id=config.value("sgml_id_slot").upper(),
        ref=config.value("sgml_ref_slot").upper(),
        min=config.value("sgml_min_slot").upper(),
        status="STATUS",
        separator=config.value("sgml_alternative_separator") or "|",
    )


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


def read_task_file(config: MucConfig, path: Path, gids: Sequence[str]) -> dict[str, SgmlDocument]:
    """The documents of an SGML key or response file, read as the configuration says, by number."""
    documents = read_sgml(
        path,
        gids,
        doc_gid=config.value("sgml_doc_gid"),
        docnum_gid=config.value("sgml_docnum_gid"),
        sections=sections_of(config),
        quote_char=config.value("sgml_attribute_quote_char"),
    )
    return {d.number: d for d in documents}


def _common_warnings(
    keys: dict[str, SgmlDocument],
    rsps: dict[str, SgmlDocument],
    scored: Sequence[str],
    response_path: Path,
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
        example = (
            f"document {doc} at offset {at}: key {excerpt(key.text, at)!r}, "
            f"response {excerpt(rsp.text, at)!r}"
        )
        if strict_text:
            raise InputError(
                f"the text differs from the key's outside the tags at offset {at}: key "
                f"{excerpt(key.text, at)!r}, response {excerpt(rsp.text, at)!r} (--strict-text)",
                response_path,
                rsp.line,
                document=doc,
            )
        differing.append(example)
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


def _signature_settings(config: MucConfig) -> dict[str, object]:
    return {
        "scoring_method": config.scoring_method,
        "correct": config.value("stringfill_correct_comparison"),
        "partial": config.value("stringfill_partial_comparison"),
        "premodifiers": len(config.items("premodifiers")),
        "postmodifiers": len(config.items("postmodifiers")),
        "designators": len(config.items("corporate_designators")),
    }


def score_muc_ne(
    config: MucConfig,
    key_path: Path | None = None,
    response_path: Path | None = None,
    *,
    strict_text: bool = False,
) -> Result:
    """Score a named entity response file against its key (see the module docstring).

    Scores are the ALL SLOTS row (``recall``, ``precision``, ``f_pr``, ``f_2pr``, ``f_p2r``,
    error rates); counts every ALL SLOTS, ``obj:``, ``slot:``, ``subtask:`` and ``section:``
    tally.
    """
    from annoscore.align.muc_ne import NeAligner
    from annoscore.align.muc_records import DocumentAlignment
    from annoscore.formats.muc_sgml_objects import SharedSlots, ne_objects
    from annoscore.metrics.muc import all_slots_scores
    from annoscore.metrics.muc_ne import ne_document_counts
    from annoscore.report.muc import MucDetails

    key_path = key_path or config.file("key_file")
    response_path = response_path or config.file("response_file")
    classes = [c.name.upper() for c in config.class_defs]
    keys = read_task_file(config, key_path, classes)
    rsps = read_task_file(config, response_path, classes)
    slots = sgml_slots(config)
    defined = config.slot_names()
    ignored = 0
    shared = SharedSlots()  # equal slots are one object (cheaper to align and report)
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
    warnings += _common_warnings(keys, rsps, pairing.scored, response_path, strict_text)
    if ignored:
        warnings.append(
            ScoreWarning(
                "muc.ignored-attributes",
                "{count} tag attribute(s) that :slot_defs does not define are ignored",
                ignored,
            )
        )
    aligner = NeAligner(config)
    subtasks = subtasks_of(config)
    groups = section_groups(config)
    alignments: list[DocumentAlignment] = []
    per_document: dict[str, Counts] = {}
    for doc in pairing.scored:
        alignment = aligner.align(doc, key_objects.get(doc), rsp_objects.get(doc))
        alignments.append(alignment)
        per_document[doc] = ne_document_counts(alignment, subtasks, groups)
    warnings.extend(aligner.warnings)
    signature = Signature.of(NE_TASK, **_signature_settings(config), alignment="overlap-greedy-f")
    details = MucDetails(
        config,
        alignments,
        key_path,
        response_path,
        pairs_scored=aligner.pairs_scored,
        section_rows=tuple(groups),
        subtasks=subtasks,
    )
    warnings.extend(bom_warnings(key_path, response_path))
    matrix = CountMatrix.of(per_document)
    return Result.from_counts(
        NE_TASK, signature, matrix, all_slots_scores, warnings=warnings, details=details
    )


def parse_metrics(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"muc,bcub"`` -> ``("muc", "bcub")``; ``all`` is every metric; unknown names are an
    error."""
    from annoscore.metrics.coref import METRICS

    names = text.split(",") if isinstance(text, str) else list(text)
    out: list[str] = []
    for raw in names:
        name = raw.strip().lower().replace("b3", "bcub")
        if not name:
            continue
        if name == "all":
            out.extend(m for m in METRICS if m not in out)
            continue
        if name not in METRICS:
            raise InputError(f"--metric {raw!r}: expected some of {', '.join(METRICS)} or all")
        if name not in out:
            out.append(name)
    if not out:
        raise InputError(f"--metric: name at least one of {', '.join(METRICS)}")
    return tuple(out)


def score_muc_coref(
    config: MucConfig,
    key_path: Path | None = None,
    response_path: Path | None = None,
    *,
    metrics: str | Sequence[str] = "muc",
    strict_text: bool = False,
) -> Result:
    """Score a coreference response file against its key (see the module docstring).

    Scores: ``recall``, ``precision``, ``f_pr``, ``f_2pr``, ``f_p2r`` (and the metric's own
    ``f1``) of the first chosen metric (MUC by default, None where undefined) and
    ``{metric}_recall`` ... of each (:mod:`annoscore.metrics.muc_coref`).
    """
    from annoscore.align.muc_coref import align_coref
    from annoscore.formats.muc_sgml_objects import SharedSlots, coref_objects
    from annoscore.metrics.muc_coref import coref_document_counts, coreference_scores
    from annoscore.report.muc import MucDetails

    chosen = parse_metrics(metrics)
    key_path = key_path or config.file("key_file")
    response_path = response_path or config.file("response_file")
    class_def = config.class_defs[0]
    gid = class_def.name.upper()
    keys = read_task_file(config, key_path, [gid])
    rsps = read_task_file(config, response_path, [gid])
    slots = sgml_slots(config)
    shared = SharedSlots()  # equal slots are one object (cheaper to align and report)
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
    warnings += _common_warnings(keys, rsps, pairing.scored, response_path, strict_text)
    alignments = []
    per_document: dict[str, Counts] = {}
    for doc in pairing.scored:
        alignment = align_coref(doc, key_objects.get(doc), rsp_objects.get(doc), slots, class_def)
        alignments.append(alignment)
        per_document[doc] = coref_document_counts(alignment, chosen)
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
    signature = Signature.of(
        CO_TASK,
        scoring_method=config.scoring_method,
        metric=",".join(chosen),
        alignment="min-extent-longest-first",
        optional="removed-when-unaligned",
    )
    details = MucDetails(
        config,
        [a.record for a in alignments],
        key_path,
        response_path,
        coref=alignments,
    )
    warnings.extend(bom_warnings(key_path, response_path))
    return Result.from_counts(
        CO_TASK, signature, per_document, coreference_scores, warnings=warnings, details=details
    )
