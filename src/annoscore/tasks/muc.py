"""MUC information-extraction scoring (TE, TR, ST) from a configuration file, as the manual says.

Preset: the configuration (:mod:`annoscore.formats.muc_config`) names the task, the classes and
slots, the string rules and the files; :mod:`annoscore.formats.muc_template` reads key and
response; :class:`annoscore.align.muc.MucAligner` aligns each document; the tallies
(:mod:`annoscore.metrics.muc`) are summed over documents.  The result's scores are the ALL SLOTS
row (``recall``, ``precision``, ``f_pr``, ``f_2pr``, ``f_p2r`` and the error rates), its counts
that row's tallies plus every object, slot and text-filter tally.

Named options (official default first):

``text_filter="agreement"``
    ST TEXT FILTERING counts each document once: COR when key and response agree on relevance,
    INC when not (the manual's report: POS = ACT = documents).  ``"relevance"`` is the MUC-6
    scorer's four-way count: COR both relevant, MIS key only, SPU response only, NON neither.

A document in only one of the files is scored (all MIS or all SPU) with a warning.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from annoscore.align.muc import DocumentAlignment, MucAligner
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.muc_config import MucConfig, read_muc_config
from annoscore.formats.muc_template import read_templates
from annoscore.metrics.muc import document_counts, tally_of
from annoscore.model import TemplateDocument
from annoscore.result import Result, ScoredUnit
from annoscore.signature import Signature

IE_TASKS = ("template_element", "template_relation", "scenario_template")
TEXT_FILTER_MODES = ("agreement", "relevance")


@dataclass(slots=True)
class MucDetails:
    """What the official layouts need beyond scores and counts."""

    config: MucConfig
    documents: list[DocumentAlignment]
    document_counts: dict[str, Counts]
    key_path: Path
    response_path: Path
    outputs: dict[str, Path] = field(default_factory=dict)
    pairs_scored: int = 0
    """Candidate key/response pairs scored during alignment (see :mod:`annoscore.align.muc`)."""


def load_config(path: Path, task: str | None = None) -> MucConfig:
    """Read a configuration; ``task`` (``--task``) overrides ``:scoring_task``."""
    config = read_muc_config(path)
    if task is not None:
        normalized = task.lower().replace("-", "_")
        aliases = {"te": "template_element", "tr": "template_relation", "st": "scenario_template"}
        normalized = aliases.get(normalized, normalized)
        if normalized not in IE_TASKS:
            raise InputError(
                f"--task {task!r}: expected one of {', '.join(IE_TASKS)} (or te, tr, st)"
            )
        config = replace(config, scoring_task=normalized)
    if config.scoring_task not in IE_TASKS:
        raise InputError(
            f":scoring_task {config.scoring_task} is scored from SGML files, which annoscore "
            f"does not read yet; this command scores {', '.join(IE_TASKS)}",
            path,
        )
    return config


def _pair_documents(
    keys: list[TemplateDocument], rsps: list[TemplateDocument], warnings: list[str]
) -> list[tuple[str, TemplateDocument | None, TemplateDocument | None]]:
    by_id = {d.id: d for d in rsps}
    key_ids = {d.id for d in keys}
    out: list[tuple[str, TemplateDocument | None, TemplateDocument | None]] = [
        (d.id, d, by_id.get(d.id)) for d in keys
    ]
    only_key = [d.id for d in keys if d.id not in by_id]
    only_rsp = [d for d in rsps if d.id not in key_ids]
    out.extend((d.id, None, d) for d in only_rsp)
    if only_key:
        warnings.append(
            f"{len(only_key)} key document(s) have no response object and are scored as all "
            f"missing: {', '.join(only_key[:5])}{' ...' if len(only_key) > 5 else ''}"
        )
    if only_rsp:
        names = [d.id for d in only_rsp]
        warnings.append(
            f"{len(names)} response document(s) are not in the key and are scored as all "
            f"spurious: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}"
        )
    return out


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while reading and aligning.

    Reading and aligning build millions of small objects (fills, slots, objects, alignment
    records) that hold no reference cycles, so reference counting frees every one of them; the
    cyclic collector finds nothing, yet each of its full passes walks every live object again
    (measured on ``benchmarks/muc.py``: reading takes twice as long with it running, and the
    first collection after the pause walks every record again).  ``annoscore muc`` keeps it
    paused until the reports are written and the records released, so the collector never
    walks them.  Memory is unchanged.  The collector's previous state is restored on exit, even
    on an error; a pause the caller already made is left alone.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def score_muc(
    config: MucConfig,
    key_path: Path | None = None,
    response_path: Path | None = None,
    *,
    text_filter: str = "agreement",
    per_doc: bool = False,
) -> Result:
    """Score a response template file against a key template file (TE, TR, ST)."""
    with cyclic_gc_paused():
        return _score_muc(config, key_path, response_path, text_filter, per_doc)


def _score_muc(
    config: MucConfig,
    key_path: Path | None,
    response_path: Path | None,
    text_filter: str,
    per_doc: bool,
) -> Result:
    if text_filter not in TEXT_FILTER_MODES:
        raise InputError(f"text filter {text_filter!r}: expected one of {TEXT_FILTER_MODES}")
    key_path = key_path or config.file("key_file")
    response_path = response_path or config.file("response_file")
    status_slot = config.value("optional_status_slot")
    keys = read_templates(key_path, keys_syntax=True, status_slot=status_slot)
    rsps = read_templates(response_path, keys_syntax=config.key2key, status_slot=status_slot)
    aligner = MucAligner(config, text_filter)
    for document in (*keys, *rsps):
        aligner.validate(document)
    warnings = list(config.warnings)
    alignments: list[DocumentAlignment] = []
    per_document: dict[str, Counts] = {}
    for doc_id, key, rsp in _pair_documents(keys, rsps, warnings):
        alignment = aligner.align(doc_id, key, rsp)
        alignments.append(alignment)
        per_document[doc_id] = document_counts(alignment)
    warnings.extend(aligner.warnings)
    total = Counts.total(per_document.values())
    removed = sum(v for k, v in total.items() if k.endswith(":rem"))
    if removed:
        warnings.append(
            f"{removed} key pointer fill(s) point to optional objects left unaligned and are "
            "removed from scoring (rem)"
        )
    all_slots = tally_of(total)
    signature = Signature.of(
        f"muc-{config.scoring_task.replace('_', '-')}",
        scoring_method=config.scoring_method,
        correct=config.value("stringfill_correct_comparison"),
        partial=config.value("stringfill_partial_comparison"),
        premodifiers=len(config.items("premodifiers")),
        postmodifiers=len(config.items("postmodifiers")),
        designators=len(config.items("corporate_designators")),
        text_filter=text_filter if config.scoring_task == "scenario_template" else "none",
        alignment="greedy-f-stable",
    )
    documents = None
    if per_doc:
        documents = {doc: ScoredUnit(tally_of(c).scores(), c) for doc, c in per_document.items()}
    details = MucDetails(
        config,
        alignments,
        per_document,
        key_path,
        response_path,
        pairs_scored=aligner.pairs_scored,
    )
    return Result(
        task=signature.task,
        signature=signature,
        scores=all_slots.scores(),
        counts=total,
        warnings=warnings,
        documents=documents,
        details=details,
    )
