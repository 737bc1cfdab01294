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

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from annoscore.align.documents import pair_documents
from annoscore.align.muc import MucAligner
from annoscore.align.muc_records import DocumentAlignment
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings
from annoscore.formats.muc_config import TASKS, MucConfig, parse_muc_config, read_muc_config
from annoscore.formats.muc_template import read_templates
from annoscore.metrics.muc import all_slots_scores, document_counts
from annoscore.report.muc import MucDetails
from annoscore.result import Result, ScoreWarning
from annoscore.signature import Signature

IE_TASKS = ("template_element", "template_relation", "scenario_template")
SGML_TASKS = ("named_entity", "coreference")
TEXT_FILTER_MODES = ("agreement", "relevance")


TASK_ALIASES = {
    "te": "template_element",
    "tr": "template_relation",
    "st": "scenario_template",
    "ne": "named_entity",
    "co": "coreference",
}
"""Short ``--task`` names."""


def load_config(path: Path | None, task: str | None = None) -> MucConfig:
    """Read a configuration; ``task`` (``--task``) overrides ``:scoring_task``.

    Without a file (``path`` None) the configuration is the manual's defaults for ``task``
    (only the SGML tasks, named entity and coreference, can be scored so).
    """
    normalized = None
    if task is not None:
        normalized = task.lower().replace("-", "_")
        normalized = TASK_ALIASES.get(normalized, normalized)
        if normalized not in TASKS:
            raise InputError(
                f"--task {task!r}: expected one of {', '.join(TASKS)} (or te, tr, st, ne, co)"
            )
    if path is None:
        if normalized not in SGML_TASKS:
            raise InputError(
                "a configuration file is required (only named_entity and coreference have "
                "defaults for every option)"
            )
        return parse_muc_config(f":scoring_task {normalized}\n", Path.cwd() / "(defaults)")
    config = read_muc_config(path)
    if normalized is not None:
        if _family(normalized) != _family(config.scoring_task):
            raise InputError(
                f"--task {task}: this is a {config.scoring_task} configuration; its classes "
                f"and slots cannot score {normalized} (give a {normalized} configuration"
                + (", or none for the manual's defaults)" if normalized in SGML_TASKS else ")"),
                path,
            )
        config = replace(config, scoring_task=normalized)
    return config


def _family(task: str) -> str:
    """Tasks whose configurations are interchangeable: the template tasks share one format
    of classes and slots; named entity and coreference each have their own."""
    return "template" if task in IE_TASKS else task


def score_muc(
    config: MucConfig,
    key_path: Path | None = None,
    response_path: Path | None = None,
    *,
    text_filter: str = "agreement",
) -> Result:
    """Score a response template file against a key template file (TE, TR, ST).

    ``key_path`` and ``response_path`` default to the configuration's ``:key_file`` and
    ``:response_file``.  Every document of either file is scored (a document on one side only
    is all MIS or all SPU, with a warning); ``scores`` are the ALL SLOTS row
    (:func:`annoscore.metrics.muc.all_slots_scores`), ``counts`` its tallies and every object,
    slot and text-filter tally.
    """
    if config.scoring_task in SGML_TASKS:
        raise InputError(
            f":scoring_task {config.scoring_task} is scored from SGML files: use "
            "annoscore.tasks.muc.score_muc_any (or score_muc_ne / score_muc_coref)",
            config.path,
        )
    if text_filter not in TEXT_FILTER_MODES:
        raise InputError(f"text filter {text_filter!r}: expected one of {TEXT_FILTER_MODES}")
    key_path = key_path or config.file("key_file")
    response_path = response_path or config.file("response_file")
    status_slot = config.value("optional_status_slot")
    keys = {d.id: d for d in read_templates(key_path, keys_syntax=True, status_slot=status_slot)}
    rsps = {
        d.id: d
        for d in read_templates(response_path, keys_syntax=config.key2key, status_slot=status_slot)
    }
    aligner = MucAligner(config, text_filter)
    for document in (*keys.values(), *rsps.values()):
        aligner.validate(document)
    pairing = pair_documents(keys, rsps, gold_only="empty", system_only="empty")
    warnings: list[ScoreWarning | str] = [*config.warnings]
    warnings += pairing.warnings(
        "key document(s) have no response object", "response document(s) are not in the key"
    )
    alignments: list[DocumentAlignment] = []
    per_document: dict[str, Counts] = {}
    for doc_id in pairing.scored:
        alignment = aligner.align(doc_id, keys.get(doc_id), rsps.get(doc_id))
        alignments.append(alignment)
        per_document[doc_id] = document_counts(alignment)
    warnings.extend(bom_warnings(key_path, response_path))
    warnings.extend(aligner.warnings)
    removed = sum(v for c in per_document.values() for k, v in c.items() if k.endswith(":rem"))
    if removed:
        warnings.append(
            ScoreWarning(
                "muc.removed-pointers",
                "{count} key pointer fill(s) point to optional objects left unaligned and are "
                "removed from scoring (rem)",
                int(removed),
            )
        )
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
    details = MucDetails(
        config, alignments, key_path, response_path, pairs_scored=aligner.pairs_scored
    )
    return Result.from_counts(
        signature.task,
        signature,
        per_document,
        all_slots_scores,
        warnings=warnings,
        details=details,
    )


def score_muc_files(
    key: Path,
    response: Path,
    *,
    config: Path,
    task: str | None = None,
    text_filter: str = "agreement",
) -> Result:
    """:func:`score_muc` from paths: the configuration file names the classes, slots and rules
    (a named entity or coreference configuration is scored by :func:`score_muc_any`).

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_files(muc / "key.synthetic.tpl", muc / "response.synthetic.tpl",
    ...                     config=muc / "te.config")
    >>> r.counts["cor"], r.counts["pos"], round(r.scores["f_pr"], 4)
    (12, 17, 0.7273)
    """
    return score_muc_any(load_config(config, task), key, response, text_filter=text_filter)


def score_muc_any(
    config: MucConfig,
    key_path: Path | None = None,
    response_path: Path | None = None,
    *,
    text_filter: str = "agreement",
    metrics: str | Sequence[str] = "muc",
    strict_text: bool = False,
) -> Result:
    """Score any of the five MUC tasks, as the configuration's ``:scoring_task`` says.

    ``text_filter`` applies to ST, ``metrics`` to coreference, ``strict_text`` to the SGML tasks
    (:mod:`annoscore.tasks.muc_sgml`).
    """
    if config.scoring_task == "named_entity":
        from annoscore.tasks.muc_sgml import score_muc_ne

        return score_muc_ne(config, key_path, response_path, strict_text=strict_text)
    if config.scoring_task == "coreference":
        from annoscore.tasks.muc_sgml import score_muc_coref

        return score_muc_coref(
            config, key_path, response_path, metrics=metrics, strict_text=strict_text
        )
    return score_muc(config, key_path, response_path, text_filter=text_filter)


def score_muc_ne_files(
    key: Path,
    response: Path,
    *,
    config: Path | None = None,
    strict_text: bool = False,
) -> Result:
    """Named entity scoring from paths; without ``config`` the manual's defaults (ENAMEX, TIMEX,
    NUMEX with TYPE and TEXT scored).

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_ne_files(muc / "ne.key.sgml", muc / "ne.response.sgml",
    ...                        config=muc / "ne.config")
    >>> r.counts["pos"], r.counts["act"], r.counts["cor"]
    (38, 36, 27)
    """
    cfg = load_config(config, None if config is not None else "named_entity")
    if cfg.scoring_task != "named_entity":
        raise InputError(f":scoring_task is {cfg.scoring_task}, not named_entity", cfg.path)
    from annoscore.tasks.muc_sgml import score_muc_ne

    return score_muc_ne(cfg, key, response, strict_text=strict_text)


def score_muc_coref_files(
    key: Path,
    response: Path,
    *,
    config: Path | None = None,
    metric: str | Sequence[str] = "muc",
    strict_text: bool = False,
) -> Result:
    """Coreference scoring from paths; without ``config`` the manual's defaults (COREF tags with
    ID, REF, MIN, STATUS).  ``metric``: ``muc`` (default) or a comma list of
    :data:`annoscore.metrics.coref.METRICS`.

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_coref_files(muc / "co.key.sgml", muc / "co.response.sgml")
    >>> r.counts["muc_recall_num"], r.counts["muc_recall_den"], round(r.scores["f1"], 4)
    (1, 3, 0.3333)
    """
    cfg = load_config(config, None if config is not None else "coreference")
    if cfg.scoring_task != "coreference":
        raise InputError(f":scoring_task is {cfg.scoring_task}, not coreference", cfg.path)
    from annoscore.tasks.muc_sgml import score_muc_coref

    return score_muc_coref(cfg, key, response, metrics=metric, strict_text=strict_text)
