"""The MUC scorer's five tasks, as the manual describes them, each under the name its results carry.

- ``muc-template-element``, ``muc-template-relation``, ``muc-scenario-template`` (TE, TR, ST):
  template files (:mod:`annoscore.formats.muc_template`), aligned by
  :class:`annoscore.align.muc.MucAligner`, tallied by :mod:`annoscore.metrics.muc`;
- ``muc-named-entity`` and ``muc-coreference``: SGML files, counted by
  :mod:`annoscore.tasks.muc_sgml`.

Each task has one function on paths, ``score_muc_<task>(key, response, options)``, and one on
parsed documents, ``count_muc_<task>(key_documents, response_documents, options)``; both count
the same way.  The configuration (:mod:`annoscore.formats.muc_config`, the ``config`` option)
names the classes, slots and string rules: a template task needs one; named entity and
coreference use the manual's defaults without one.  A task scores a configuration of its family
whatever its ``:scoring_task`` says (a TE configuration scores TR, as ``annoscore muc --task tr``
does).  The signature records the options, then the configuration's settings (:func:`_settings`).

Every document of either side is scored (a document on one side only is all MIS or all SPU, with
a warning).  Undefined: a percentage with a zero denominator is ``None`` (the score report's
``*``, JSON ``null``), an F only when neither side has a fill; ``undefined=zero`` shows 0 instead
in the corpus scores and the official layouts (the manual's pages print 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from annoscore.align.documents import pair_documents
from annoscore.align.muc import MucAligner, TextFilter
from annoscore.align.muc_records import DocumentAlignment
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings, once
from annoscore.formats.muc_config import (
    TASKS,
    MucConfig,
    kept_per_process,
    parse_muc_config,
    read_muc_config,
)
from annoscore.formats.muc_sgml import SgmlDocument
from annoscore.formats.muc_template import read_templates
from annoscore.metrics.muc import MucDetails, document_counts
from annoscore.metrics.muc_coref import MetricName, parse_metrics
from annoscore.options import TaskOptions, constant, option
from annoscore.result import Result, Undefined
from annoscore.scale import chunked, counted, keep
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.muc_chunks import (
    SGML_ORDER,
    TEMPLATE_ORDER,
    Kept,
    in_chunk,
    joined_details,
    muc_cut,
    pooled_as,
)
from annoscore.tasks.muc_sgml import (
    by_number,
    count_coreference,
    count_named_entity,
    read_task_file,
    sgml_slots,
    task_gids,
)
from annoscore.tasks.registry import get
from annoscore.templates import TemplateDocument

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides

IE_TASKS = ("template_element", "template_relation", "scenario_template")
SGML_TASKS = ("named_entity", "coreference")

_F = TypeVar("_F", bound=Callable[..., Any])

TASK_ALIASES = {
    "te": "template_element",
    "tr": "template_relation",
    "st": "scenario_template",
    "ne": "named_entity",
    "co": "coreference",
}
"""Short ``--task`` names."""


def task_name(scoring_task: str) -> str:
    """The registered name of a ``:scoring_task`` (``named_entity`` -> ``muc-named-entity``)."""
    return "muc-" + scoring_task.replace("_", "-")


def load_config(path: Path | None, task: str | None = None) -> MucConfig:
    """Read a configuration; ``task`` (``--task``) overrides ``:scoring_task``.

    Without a file (``path`` None) the configuration is the manual's defaults for ``task``
    (only the SGML tasks, named entity and coreference, can be scored so).  In the chunks of
    one cut run (:func:`~annoscore.formats.files.read_once`) it is read once in each process,
    the same object for every chunk (a worker's chunks read the same unchanged file; it
    parsed it again for each, 11 chunks a run, and each object kept through the chunks,
    :func:`~annoscore.formats.muc_config.kept_per_process`, compared it field by field); an
    error is raised each time.
    """
    return once(("annoscore.muc.config", path, task), lambda: _read_config(path, task))


def _read_config(path: Path | None, task: str | None) -> MucConfig:
    """:func:`load_config`, read each time."""
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


# --- options -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MucOptions(TaskOptions):
    """What every MUC task takes."""

    config: Path | None = option(
        None,
        "The scorer's main configuration file (:class_defs, :slot_defs, :premodifiers, ...); "
        "without one, the manual's defaults.",
        moves=False,
        argument=True,
    )
    undefined: Undefined = option(
        Undefined.null,
        "What an undefined percentage (a zero denominator) shows: null (the rule: '*' in the "
        "score report, null in JSON) or zero (0, as on the manual's pages; 0.0 in the JSON "
        "scores); annoscore muc also takes MUC's spellings, '*' and '0'.",
    )


@dataclass(frozen=True, slots=True)
class TemplateOptions(MucOptions):
    """The options of template element and template relation."""

    config: Path | None = option(
        None,
        "The scorer's main configuration file (:class_defs, :slot_defs, :premodifiers, ...).",
        moves=False,
        required=True,
        argument=True,
    )
    text_filter: str = constant("none", "Template element and relation filter no texts.")
    alignment: str = constant(
        "greedy-f-stable",
        "Objects aligned greedily by F, descending, ties in key then response order (decision 2).",
    )


@dataclass(frozen=True, slots=True)
class ScenarioOptions(TemplateOptions):
    """The options of scenario template."""

    text_filter: TextFilter = option(
        TextFilter.agreement,
        "ST text filtering: 'agreement' (the manual: one COR or INC per document) or "
        "'relevance' (MUC-6: COR/MIS/SPU/NON).",
    )


@dataclass(frozen=True, slots=True)
class SgmlOptions(MucOptions):
    """What the two SGML tasks take."""

    strict_text: bool = option(
        False,
        "Named entity and coreference: a response whose text differs from the key's outside "
        "the tags is an error (default: a warning naming the document and offset).",
        moves=False,
    )


@dataclass(frozen=True, slots=True)
class NamedEntityOptions(SgmlOptions):
    """The options of named entity."""

    alignment: str = constant(
        "overlap-greedy-f", "Tags aligned greedily by F among overlapping pairs (decision 15a)."
    )


MetricChoice = Literal[MetricName, "b3", "all"]
"""What ``--metric`` takes: a metric, ``b3`` (``bcub``) or ``all``."""


@dataclass(frozen=True, slots=True)
class CoreferenceOptions(SgmlOptions):
    """The options of coreference."""

    metric: tuple[MetricChoice, ...] = option(
        ("muc",),
        "Coreference: the metrics, comma-separated (muc, bcub, ceafe, ceafm, blanc, lea, "
        "mentions or all); the first gives recall/precision/f1 and the text report.",
    )
    alignment: str = constant(
        "min-extent-longest-first",
        "Markables aligned one to one, longest shared extent first, a response inside the "
        "key's extent and holding its MIN (decision 15b).",
    )
    optional: str = constant(
        "removed-when-unaligned",
        "Optional key markables no response aligns with are removed from their classes.",
    )

    def __post_init__(self) -> None:
        """The metric names checked and normalised (``b3`` is ``bcub``, ``all`` every metric:
        :func:`~annoscore.metrics.muc_coref.parse_metrics`)."""
        TaskOptions.__post_init__(self)
        object.__setattr__(self, "metric", parse_metrics(self.metric))


# --- template tasks ------------------------------------------------------------------------------


def _chunked(task: str) -> Callable[[_F], _F]:
    """A MUC task's score function cut into chunks of documents with more than one job
    (:func:`~annoscore.scale.chunked`; :mod:`annoscore.tasks.muc_chunks`)."""
    cut = chunked(
        task_name(task),
        "lines",
        order="gold-first",
        details=joined_details,
        cut_when=muc_cut(task),
        pooled=pooled_as(SGML_ORDER if task in SGML_TASKS else TEMPLATE_ORDER),
        # the SGML tasks' warnings name no line (their chunks' lines are not counted:
        # annoscore.scale.cut_muc.split_sgml), the template tasks' do
        quotes_lines=task not in SGML_TASKS,
    )

    def decorate(function: _F) -> _F:
        score = cut(function)
        # URLs are fetched whole before the run, with the files a configuration names beside
        # them (annoscore.scale.score_given): a local file is cut, a URL is not
        score.cuts_urls = False  # type: ignore[attr-defined]
        return score

    return decorate


def _settings(config: MucConfig) -> tuple[tuple[str, object], ...]:
    """The configuration's settings that move a number (the signature records them)."""
    if config.scoring_task == "coreference":
        return (("scoring-method", config.scoring_method),)
    return (
        ("scoring-method", config.scoring_method),
        ("correct", config.value("stringfill_correct_comparison")),
        ("partial", config.value("stringfill_partial_comparison")),
        ("premodifiers", len(config.items("premodifiers"))),
        ("postmodifiers", len(config.items("postmodifiers"))),
        ("designators", len(config.items("corporate_designators"))),
    )


def _by_id(documents: Iterable[TemplateDocument], side: str) -> dict[str, TemplateDocument]:
    out: dict[str, TemplateDocument] = {}
    for document in documents:
        if document.id in out:
            raise InputError(f"{side} document {document.id} is given twice", document.path or None)
        out[document.id] = document
    return out


def _templates(
    config: MucConfig,
    key_documents: Iterable[TemplateDocument],
    response_documents: Iterable[TemplateDocument],
    options: TemplateOptions,
    file_warnings: Sequence[ScoreWarning] = (),
) -> Result:
    """Align and tally template documents (TE, TR, ST) into the task's result."""
    keys = _by_id(key_documents, "key")
    rsps = _by_id(response_documents, "response")
    text_filter = (
        options.text_filter if isinstance(options, ScenarioOptions) else TextFilter.agreement
    )
    # its string codes kept through a worker's chunks, as one run keeps them for every document
    aligner = kept_per_process(
        f"template aligner {text_filter}", config, lambda: MucAligner(config, text_filter)
    )
    aligner.restarted()
    for document in keys.values():
        aligner.validate(document)
    in_keys = len(aligner.warnings)  # a dangling pointer's warning of each key document first
    for document in rsps.values():
        aligner.validate(document)
    dangling = [
        (k < in_keys, w) for k, w in enumerate(aligner.warnings) if isinstance(w, ScoreWarning)
    ]
    pairing = pair_documents(keys, rsps, gold_only="empty", system_only="empty")
    warnings: list[ScoreWarning | str] = [*config.warnings]
    warnings += pairing.warnings(
        "key document(s) have no response object", "response document(s) are not in the key"
    )
    warnings += file_warnings
    alignments: list[DocumentAlignment] = []
    per_document: dict[str, Counts] = {}
    notes: list[tuple[bool, str]] = []  # each document's own notes, and whether key has it
    for doc_id in counted(pairing.scored):  # a progress line on a terminal
        before = len(aligner.warnings)
        alignment = aligner.align(doc_id, keys.get(doc_id), rsps.get(doc_id))
        alignments.append(alignment)
        per_document[doc_id] = document_counts(alignment)
        if len(aligner.warnings) > before:
            own = aligner.warnings[before:]
            notes += ((doc_id in keys, w) for w in own if isinstance(w, str))
    warnings.extend(aligner.warnings)
    keep(Kept(len(config.warnings), tuple(notes), tuple(dangling)))  # annoscore.scale
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
    details = in_chunk(MucDetails(config, alignments, pairs_scored=aligner.pairs_scored))
    return get(task_name(config.scoring_task)).result(
        options, per_document, read=_settings(config), warnings=warnings, details=details
    )


def _score_templates(task: str, key: Path, response: Path, options: TemplateOptions) -> Result:
    config = load_config(options.config, task)
    status_slot = config.value("optional_status_slot")
    keys = read_templates(Path(key), keys_syntax=True, status_slot=status_slot)
    rsps = read_templates(Path(response), keys_syntax=config.key2key, status_slot=status_slot)
    return _templates(config, keys, rsps, options, bom_warnings(Path(key), Path(response)))


@_chunked("template_element")
def score_muc_template_element(
    key: Path, response: Path, options: TemplateOptions = TemplateOptions()
) -> Result:
    """Template element (TE): a response template file against a key template file, as the
    configuration (``options.config``, required) defines classes, slots and string rules.

    Counts: per document, the fate of every single fill (COR PAR INC MIS SPU NON) of every slot
    (``slot:CLASS:SLOT:*``), object (``obj:CLASS:*``) and their sum, the ALL SLOTS row (``cor``
    ... ``non``, ``pos`` = COR + PAR + INC + MIS, ``act`` = COR + PAR + INC + SPU).  Scores, of
    ALL SLOTS: ``recall`` (COR + PAR/2) / POS, ``precision`` (COR + PAR/2) / ACT, ``f_pr``,
    ``f_2pr``, ``f_p2r`` (F with beta 1, 0.5, 2) and the error rates
    (:mod:`annoscore.metrics.tallies`).  Undefined: a ratio with a zero denominator; F only when
    POS + ACT = 0.  Settings that move the number come from the configuration
    (``:stringfill_correct_comparison`` CLEAN, ``:stringfill_partial_comparison`` NONE, the
    modifier lists, weights and thresholds).

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_template_element(muc / "key.synthetic.tpl", muc / "response.synthetic.tpl",
    ...                                TemplateOptions(config=muc / "te.config"))
    >>> r.task, r.counts["cor"], r.counts["pos"], round(r.score, 4)
    ('muc-template-element', 12, 17, 0.7273)
    """
    return _score_templates("template_element", key, response, options)


@_chunked("template_relation")
def score_muc_template_relation(
    key: Path, response: Path, options: TemplateOptions = TemplateOptions()
) -> Result:
    """Template relation (TR): as :func:`score_muc_template_element` (the same counts, scores
    and settings); relations are objects whose slots point to other objects, aligned after
    them (a pointer fill is correct when its key and response targets are aligned together).
    Undefined: as there.

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_template_relation(muc / "key.synthetic.tpl", muc / "response.synthetic.tpl",
    ...                                 TemplateOptions(config=muc / "te.config"))
    >>> r.task, r.counts["act"], round(r.scores["precision"], 4)
    ('muc-template-relation', 16, 0.75)
    """
    return _score_templates("template_relation", key, response, options)


@_chunked("scenario_template")
def score_muc_scenario_template(
    key: Path, response: Path, options: ScenarioOptions = ScenarioOptions()
) -> Result:
    """Scenario template (ST): as :func:`score_muc_template_element`, plus the TEXT FILTERING
    row (``text_filter:*``): a document is relevant when its first template's content slot is
    filled.  ``text_filter`` (official: ``agreement``) counts one COR when key and response
    agree on relevance, else one INC; ``relevance`` counts COR, MIS, SPU or NON (MUC-6).  The
    row is shown, not added into ALL SLOTS.  Undefined: as in template element.

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_scenario_template(muc / "key.synthetic.tpl", muc / "response.synthetic.tpl",
    ...                                 ScenarioOptions(config=muc / "te.config"))
    >>> r.counts["text_filter:cor"], r.counts["text_filter:inc"]
    (1, 0)
    """
    return _score_templates("scenario_template", key, response, options)


def count_muc_template_element(
    key_documents: Iterable[TemplateDocument],
    response_documents: Iterable[TemplateDocument],
    options: TemplateOptions = TemplateOptions(),
) -> Result:
    """:func:`score_muc_template_element` of parsed documents
    (:func:`~annoscore.formats.muc_template.parse_templates`: keys with ``keys_syntax=True``,
    responses with it only for ``:scoring_method key2key``; both with the configuration's
    ``:optional_status_slot``).

    >>> from annoscore.formats.muc_template import parse_templates
    >>> from annoscore.samples import SAMPLES
    >>> key = parse_templates('<PERSON-1-1> :=\\n    PER_NAME: "Ann Smith"\\n',
    ...                       Path("key.tpl"), keys_syntax=True)
    >>> rsp = parse_templates('<PERSON-1-7> :=\\n    PER_NAME: "Ann Smith"\\n'
    ...                       '    PER_TITLE: "Dr."\\n', Path("rsp.tpl"), keys_syntax=False)
    >>> r = count_muc_template_element(key, rsp, TemplateOptions(config=SAMPLES / "muc/te.config"))
    >>> r.counts["cor"], r.counts["spu"], r.scores["recall"], r.scores["precision"]
    (1, 1, 1.0, 0.5)
    """
    config = load_config(options.config, "template_element")
    return _templates(config, key_documents, response_documents, options)


def count_muc_template_relation(
    key_documents: Iterable[TemplateDocument],
    response_documents: Iterable[TemplateDocument],
    options: TemplateOptions = TemplateOptions(),
) -> Result:
    """:func:`score_muc_template_relation` of parsed documents (as
    :func:`count_muc_template_element` takes them).

    >>> from annoscore.formats.muc_template import parse_templates
    >>> from annoscore.samples import SAMPLES
    >>> key = parse_templates('<ORGANIZATION-1-1> :=\\n    ORG_NAME: "Acme"\\n',
    ...                       Path("key.tpl"), keys_syntax=True)
    >>> r = count_muc_template_relation(key, [], TemplateOptions(config=SAMPLES / "muc/te.config"))
    >>> r.counts["mis"], r.scores["recall"], r.scores["precision"], r.scores["f_pr"]
    (1, 0.0, None, 0.0)
    """
    config = load_config(options.config, "template_relation")
    return _templates(config, key_documents, response_documents, options)


def count_muc_scenario_template(
    key_documents: Iterable[TemplateDocument],
    response_documents: Iterable[TemplateDocument],
    options: ScenarioOptions = ScenarioOptions(),
) -> Result:
    """:func:`score_muc_scenario_template` of parsed documents (as
    :func:`count_muc_template_element` takes them).

    >>> from annoscore.formats.muc_template import parse_templates
    >>> from annoscore.samples import SAMPLES
    >>> key = parse_templates('<TEMPLATE-1-1> :=\\n    CONTENT: <PERSON-1-1>\\n'
    ...                       '<PERSON-1-1> :=\\n    PER_NAME: "Ann"\\n',
    ...                       Path("key.tpl"), keys_syntax=True)
    >>> options = ScenarioOptions(config=SAMPLES / "muc/te.config", text_filter="relevance")
    >>> count_muc_scenario_template(key, [], options).counts["text_filter:mis"]
    1
    """
    config = load_config(options.config, "scenario_template")
    return _templates(config, key_documents, response_documents, options)


# --- SGML tasks ----------------------------------------------------------------------------------


def _sgml(
    task: str,
    key: Path | Sequence[SgmlDocument],
    response: Path | Sequence[SgmlDocument],
    options: NamedEntityOptions | CoreferenceOptions,
) -> Result:
    """Read (files) or number (parsed documents) both sides, count and build the result."""
    config = load_config(options.config, task)
    file_warnings: Sequence[ScoreWarning] = ()
    if isinstance(key, Path) and isinstance(response, Path):
        gids = task_gids(config)
        keys, rsps = read_task_file(config, key, gids), read_task_file(config, response, gids)
        file_warnings = bom_warnings(key, response)
    else:
        assert not isinstance(key, Path) and not isinstance(response, Path)
        keys, rsps = by_number(key, "key"), by_number(response, "response")
    keep(Kept(len(config.warnings)))  # a chunk's notes of its configuration (annoscore.scale)
    strict = options.strict_text
    counted = (
        count_coreference(config, keys, rsps, metrics=options.metric, strict_text=strict)
        if isinstance(options, CoreferenceOptions)
        else count_named_entity(config, keys, rsps, strict_text=strict)
    )
    return get(task_name(config.scoring_task)).result(
        options,
        counted.per_document,
        read=_settings(config),
        warnings=[*counted.warnings, *file_warnings],
        details=in_chunk(counted.details),
    )


@_chunked("named_entity")
def score_muc_named_entity(
    key: Path, response: Path, options: NamedEntityOptions = NamedEntityOptions()
) -> Result:
    """Named entity (NE): the ENAMEX, TIMEX and NUMEX tags of a response SGML file against its
    key, each tag an object with TYPE and TEXT slots, tags aligned only where their spans
    overlap; without ``options.config`` the manual's defaults.

    Counts and scores: those of :func:`score_muc_template_element`, plus the SUBTASK rows
    (``subtask:CLASS:SLOT:VALUE:*``, ``:ne_subtask_names``) and the SECT rows (``section:NAME:*``,
    ``:doc_sections`` or ``:doc_section_groups``).  Undefined: as there.  Settings that move
    the number: the configuration's (official string comparison CLEAN; TEXT is correct only on
    the exact extent or an ALT alternative).  ``strict_text``: a response text that differs from
    the key's outside the tags is an error, not a warning.

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_named_entity(muc / "ne.key.sgml", muc / "ne.response.sgml",
    ...                            NamedEntityOptions(config=muc / "ne.config"))
    >>> r.counts["pos"], r.counts["act"], r.counts["cor"]
    (38, 36, 27)
    """
    return _sgml("named_entity", Path(key), Path(response), options)


def count_muc_named_entity(
    key_documents: Sequence[SgmlDocument],
    response_documents: Sequence[SgmlDocument],
    options: NamedEntityOptions = NamedEntityOptions(),
) -> Result:
    """:func:`score_muc_named_entity` of parsed documents
    (:func:`~annoscore.formats.muc_sgml.parse_sgml` with the configuration's tags and sections).

    >>> from annoscore.formats.muc_sgml import parse_sgml
    >>> def doc(text): return parse_sgml(f"<DOC><DOCNO>1</DOCNO><TEXT>{text}</TEXT></DOC>",
    ...                                  "x.sgml", {"ENAMEX", "TIMEX", "NUMEX"})
    >>> r = count_muc_named_entity(doc('<ENAMEX TYPE="PERSON">Ann</ENAMEX> met Bob'),
    ...                            doc('<ENAMEX TYPE="ORGANIZATION">Ann</ENAMEX> met Bob'))
    >>> r.counts["cor"], r.counts["inc"], r.scores["f_pr"]
    (1, 1, 0.5)
    """
    return _sgml("named_entity", key_documents, response_documents, options)


NE_NOTE = (
    "MUC named entity aligns a response tag with a key tag whose extent overlaps it and "
    "scores their TYPE and TEXT apart (TEXT is correct on the key's extent or an ALT "
    'alternative; an optional key tag, STATUS="OPT", counts nothing when missed). The '
    "analysis below is of the tags themselves, typed by their TYPE value (else their class): "
    "correct means the same extent and TYPE, so its counts are not the score report's."
)
"""What the page of ``muc-named-entity`` says of its span analysis (:func:`ne_sides`)."""


def ne_sides(
    key: Path, response: Path, options: NamedEntityOptions, result: Result | None = None
) -> SpanSides:
    """Both files' task tags (ENAMEX, TIMEX, NUMEX: the configuration's classes) as documents
    for the HTML report (the registration's ``sides``), read again as
    :func:`score_muc_named_entity` reads them (its configuration; the documents it scores,
    with their texts, tags removed), typed by their TYPE attribute (``:sgml_type_slot``);
    :data:`NE_NOTE` says what the analysis compares (``result`` is not read)."""
    from annoscore.align.span_sides import SpanSides
    from annoscore.formats.brat_model import AnnFile

    config = load_config(options.config, "named_entity")
    gids = task_gids(config)
    keys, rsps = read_task_file(config, key, gids), read_task_file(config, response, gids)
    scored = pair_documents(keys, rsps, gold_only="empty", system_only="empty").scored
    kind = sgml_slots(config).type  # the TYPE attribute (:sgml_type_slot)

    def documents(side: dict[str, SgmlDocument], path: Path) -> dict[str, AnnFile]:
        out = {}
        for doc in scored:
            document = side.get(doc)
            tags = () if document is None else document.tags
            out[doc] = AnnFile(
                id=doc,
                path=str(path),
                ids=[f"{t.name}{k}" for k, t in enumerate(tags, 1)],
                types=[t.attributes.get(kind) or t.name for t in tags],
                starts=[t.start for t in tags],
                ends=[t.end for t in tags],
                texts=[t.text for t in tags],
                lines=[t.line for t in tags],
                text=None if document is None else document.text,
            )
        return out

    return SpanSides(documents(keys, key), documents(rsps, response), NE_NOTE)


@_chunked("coreference")
def score_muc_coreference(
    key: Path, response: Path, options: CoreferenceOptions = CoreferenceOptions()
) -> Result:
    """Coreference (CO): the COREF markables of a response SGML file against its key; key
    classes by REF closure; a response markable aligns with a key markable when it lies inside
    the key's extent and holds its MIN (one to one, longest first); unaligned optional key
    markables are removed; without ``options.config`` the manual's defaults.

    Counts: each metric's ``{metric}_recall_num``, ``_den``, ``{metric}_precision_num``,
    ``_den`` (MUC, Vilain et al. 1995: R = sum over key classes S of (|S| - |p(S)|) / (|S| - 1),
    P the same with the sides swapped), ``key_classes``, ``response_classes`` and
    ``markables:cor|mis|spu|opt``.  Scores of the first metric (``metric``, official ``muc``):
    ``recall``, ``precision``, ``f_pr``, ``f_2pr``, ``f_p2r``, ``f1``; then ``{metric}_recall``
    ... of each (:mod:`annoscore.metrics.muc_coref`).  Undefined: R or P with a zero
    denominator; F only when both are.

    >>> from annoscore.samples import SAMPLES
    >>> muc = SAMPLES / "muc"
    >>> r = score_muc_coreference(muc / "co.key.sgml", muc / "co.response.sgml")
    >>> r.counts["muc_recall_num"], r.counts["muc_recall_den"], round(r.score, 4)
    (1, 3, 0.3333)
    """
    return _sgml("coreference", Path(key), Path(response), options)


def count_muc_coreference(
    key_documents: Sequence[SgmlDocument],
    response_documents: Sequence[SgmlDocument],
    options: CoreferenceOptions = CoreferenceOptions(),
) -> Result:
    """:func:`score_muc_coreference` of parsed documents
    (:func:`~annoscore.formats.muc_sgml.parse_sgml` with the configuration's tags and sections).

    >>> from annoscore.formats.muc_sgml import parse_sgml
    >>> def doc(text): return parse_sgml(f"<DOC><DOCNO>1</DOCNO><TEXT>{text}</TEXT></DOC>",
    ...                                  "x.sgml", {"COREF"})
    >>> key = doc('<COREF ID="1">Ann</COREF> said <COREF ID="2" REF="1">she</COREF> left')
    >>> r = count_muc_coreference(key, doc('<COREF ID="1">Ann</COREF> said she left'))
    >>> r.counts["muc_recall_num"], r.counts["muc_recall_den"], r.scores["recall"]
    (0, 1, 0.0)
    """
    return _sgml("coreference", key_documents, response_documents, options)
