"""Every task annoscore scores, registered once: name -> reader, scorer, score function, layout.

The name is the one in the signature and the JSON ``task`` field, but for ``muc``, which runs
the template task its configuration names and reports that one (``muc-template-element``,
``muc-scenario-template``, ...).  Functions are named as
``"module:function"`` strings and imported on first use (so ``annoscore --help`` imports no
task, no numpy).  The command line, ``annoscore demo``, ``annoscore compare``, the significance
layer and :func:`annoscore.score` all read this table; adding a task is one :func:`register` call
(a test runs every registered task on its sample).

A task's ``score`` function is path-level: ``score(gold, system, **options) -> Result``, with
the data positional and every option keyword-only, official defaults
(:mod:`annoscore.tasks.options` reads and checks options by those functions' annotations).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from annoscore.result import Result


@dataclass(frozen=True, slots=True)
class Sample:
    """Sample data shipped in ``annoscore/samples``: paths relative to it, and options.

    An option whose value is a string starting with ``samples/`` is a path under the samples
    folder.
    """

    gold: str
    system: str
    options: Mapping[str, Any] = field(default_factory=dict)
    title: str = ""


@dataclass(frozen=True, slots=True)
class Task:
    """One scoring task.

    - ``name``: the JSON ``task`` and signature name.
    - ``command``: the words of its ``annoscore`` sub-command (``("pharmaconer", "ner")``).
    - ``score``: ``"module:function"``, ``(gold, system, **options) -> Result``.
    - ``reader``: ``"module:function"`` that reads one side (documentation and the fuzz tests).
    - ``scorer``: ``"module:function"``, the pure ``Counts -> Scores`` function.
    - ``text``: ``"module:function"``, ``Result -> str``: the official text layout, if any.
    - ``signature``: the setting keys its signature records, in order.
    - ``sample``: the built-in sample the demo and the registry test run.
    - ``path_options``: the options that name files (a note:
      :func:`annoscore.tasks.options.check_options` reads every option by its annotation, a
      ``Path`` one as a path, listed here or not).
    """

    name: str
    summary: str
    command: tuple[str, ...]
    score: str
    reader: str
    scorer: str
    signature: tuple[str, ...]
    sample: Sample
    text: str | None = None
    path_options: tuple[str, ...] = ()

    def score_function(self) -> Callable[..., Result]:
        return cast("Callable[..., Result]", load(self.score))

    def scorer_function(self) -> Callable[..., Any]:
        return cast("Callable[..., Any]", load(self.scorer))

    def text_renderer(self) -> Callable[[Result], str] | None:
        if self.text is None:
            return None
        renderer: Callable[[Result], str] = load(self.text)
        return renderer


TASKS: dict[str, Task] = {}


def load(reference: str) -> Any:
    """Import ``"package.module:attribute"`` and return the attribute."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def first_fixed(
    function: Callable[..., Result], first: object, *, name: str, doc: str
) -> Callable[..., Result]:
    """``function`` with its first argument fixed to ``first``, as a task's score function: a
    function named ``name``, documented by ``doc``, whose signature is ``function``'s less its
    first parameter, so that ``help()``, :func:`inspect.signature` and ``annoscore compare
    --option`` see its keyword options (a :func:`functools.partial` shows none of its own
    documentation, a ``**options`` wrapper no options).

    >>> def score(category, gold, pred, *, margin=2):
    ...     return category, gold, pred, margin
    >>> score_date = first_fixed(score, "date", name="score_date", doc="Dates.")
    >>> score_date("g.json", "p.json", margin=3)
    ('date', 'g.json', 'p.json', 3)
    >>> score_date.__name__, score_date.__doc__, str(inspect.signature(score_date))
    ('score_date', 'Dates.', '(gold, pred, *, margin=2)')
    """
    signature = inspect.signature(function)
    rest = list(signature.parameters.values())[1:]

    def fixed(*args: Any, **options: Any) -> Result:
        return function(first, *args, **options)

    fixed.__name__ = fixed.__qualname__ = name
    fixed.__doc__ = doc
    fixed.__module__ = function.__module__
    setattr(fixed, "__signature__", signature.replace(parameters=rest))  # noqa: B010
    return fixed


def register(task: Task) -> Task:
    """Add ``task`` to :data:`TASKS` (a name may be registered once)."""
    if task.name in TASKS:
        raise ValueError(f"task {task.name!r} is registered twice")
    TASKS[task.name] = task
    return task


def get(name: str) -> Task:
    """The task registered as ``name``; ``KeyError`` naming the known ones otherwise."""
    try:
        return TASKS[name]
    except KeyError:
        known = ", ".join(sorted(TASKS))
        raise KeyError(f"unknown task {name!r}; expected one of {known}") from None


def sample_paths(task: Task) -> tuple[Path, Path, dict[str, Any]]:
    """The task's sample gold, system and options, with sample paths made absolute."""
    from annoscore.samples import SAMPLES

    def resolve(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("samples/"):
            return SAMPLES / value.removeprefix("samples/")
        return value

    options = {k: resolve(v) for k, v in task.sample.options.items()}
    return SAMPLES / task.sample.gold, SAMPLES / task.sample.system, options


# --- the tasks ---------------------------------------------------------------------------------

_PRF = "annoscore.metrics.prf:prf_scores"

register(
    Task(
        name="pharmaconer-ner",
        summary="PharmaCoNER sub-track 1: entity offsets in brat files, micro P/R/F1",
        command=("pharmaconer", "ner"),
        score="annoscore.tasks.pharmaconer:score_ner",
        reader="annoscore.formats.brat:read_brat",
        scorer="annoscore.metrics.prf:prf_zero_scores",
        signature=("codalab", "mode", "missing-docs", "undefined"),
        sample=Sample(
            "pharmaconer/gold/subtrack1/sample",
            "pharmaconer/system/subtrack1/sample",
            title="PharmaCoNER sub-track 1 (NER offsets), official layout",
        ),
        text="annoscore.report.pharmaconer:render_official",
    )
)
register(
    Task(
        name="pharmaconer-indexing",
        summary="PharmaCoNER sub-track 2: concept codes per document (TSV), micro P/R/F1",
        command=("pharmaconer", "indexing"),
        score="annoscore.tasks.pharmaconer:score_indexing",
        reader="annoscore.formats.pharmaconer:read_code_tsv",
        scorer="annoscore.metrics.prf:prf_zero_scores",
        signature=("codalab", "missing-docs", "undefined"),
        sample=Sample(
            "pharmaconer/gold/subtrack2/sample",
            "pharmaconer/system/subtrack2/sample",
            title="PharmaCoNER sub-track 2 (concept indexing), official layout",
        ),
        text="annoscore.report.pharmaconer:render_official",
        path_options=("gold_ann",),
    )
)
register(
    Task(
        name="spans",
        summary="generic span scoring of brat files: strict, exact, overlap, relaxed, token, "
        "SemEval-2013",
        command=("spans",),
        score="annoscore.tasks.spans:score_span_files",
        reader="annoscore.formats.brat:read_brat",
        scorer="annoscore.metrics.spans:prf_scores",
        signature=("mode", "matching", "duplicates", "missing-docs"),
        sample=Sample(
            "pharmaconer/gold/subtrack1/sample",
            "pharmaconer/system/subtrack1/sample",
            {"mode": "semeval"},
            title="Generic span scoring, SemEval-2013 schemes, on the PharmaCoNER sample",
        ),
    )
)
register(
    Task(
        name="coref",
        summary="CoNLL-2011/2012 coreference: MUC, B3, CEAFm, CEAFe, BLANC, LEA, CoNLL score",
        command=("coref",),
        score="annoscore.tasks.coref:score_coref",
        reader="annoscore.formats.conll:read_conll",
        scorer="annoscore.metrics.coref:coref_scores",
        signature=("reference", "metrics", "singletons", "duplicates", "blanc-edge"),
        sample=Sample("coref/key.conll", "coref/response.conll", title="CoNLL coreference"),
        text="annoscore.report.coref:render_table",
    )
)
register(
    Task(
        name="muc",
        summary="MUC scorer, template tasks (TE, TR, ST) from a configuration file",
        command=("muc",),
        score="annoscore.tasks.muc:score_muc_files",
        reader="annoscore.formats.muc_template:read_templates",
        scorer="annoscore.metrics.muc:all_slots_scores",
        signature=(
            "scoring-method",
            "correct",
            "partial",
            "premodifiers",
            "postmodifiers",
            "designators",
            "text-filter",
            "alignment",
        ),
        sample=Sample(
            "muc/key.synthetic.tpl",
            "muc/response.synthetic.tpl",
            {"config": "samples/muc/te.config"},
            title="MUC template element (TE), totals page",
        ),
        text="annoscore.report.muc:render_totals",
        path_options=("config",),
    )
)
register(
    Task(
        name="codiesp-d",
        summary="CodiEsp-D: ranked ICD-10 diagnosis codes, MAP and micro P/R/F1",
        command=("codiesp", "D"),
        score="annoscore.tasks.codiesp:score_codiesp_d",
        reader="annoscore.formats.codiesp:read_code_rows",
        scorer="annoscore.metrics.codiesp:ranked_scores",
        signature=("missing-docs", "extra-docs", "filter-gold", "depth", "lowercase", "tie-order"),
        sample=Sample(
            "codiesp/gs_D.tsv",
            "codiesp/pred_D.tsv",
            {"codes": "samples/codiesp/codes-D.tsv"},
            title="CodiEsp-D (ranked ICD-10 codes: MAP and P/R/F1), official layout",
        ),
        text="annoscore.report.codiesp:render_ranked",
        path_options=("codes",),
    )
)
register(
    Task(
        name="codiesp-p",
        summary="CodiEsp-P: ranked ICD-10 procedure codes, MAP and micro P/R/F1",
        command=("codiesp", "P"),
        score="annoscore.tasks.codiesp:score_codiesp_p",
        reader="annoscore.formats.codiesp:read_code_rows",
        scorer="annoscore.metrics.codiesp:ranked_scores",
        signature=("missing-docs", "extra-docs", "filter-gold", "depth", "lowercase", "tie-order"),
        sample=Sample(
            "codiesp/gs_P.tsv",
            "codiesp/pred_P.tsv",
            {"codes": "samples/codiesp/codes-P.tsv"},
            title="CodiEsp-P (ranked ICD-10 procedure codes)",
        ),
        text="annoscore.report.codiesp:render_ranked",
        path_options=("codes",),
    )
)
register(
    Task(
        name="codiesp-x",
        summary="CodiEsp-X: codes with text references, micro P/R/F1",
        command=("codiesp", "X"),
        score="annoscore.tasks.codiesp:score_codiesp_x",
        reader="annoscore.formats.codiesp:read_gold_references",
        scorer="annoscore.metrics.codiesp:set_scores",
        signature=("tolerance", "tolerance-mode", "check-label", "filter-gold", "lowercase"),
        sample=Sample(
            "codiesp/gs_X.tsv",
            "codiesp/pred_X.tsv",
            {"codes_d": "samples/codiesp/codes-D.tsv", "codes_p": "samples/codiesp/codes-P.tsv"},
            title="CodiEsp-X (codes with text references)",
        ),
        text="annoscore.report.codiesp:render_explainable",
        path_options=("codes_d", "codes_p"),
    )
)
register(
    Task(
        name="trec",
        summary="trec_eval-style MAP of a TREC run against qrels",
        command=("trec",),
        score="annoscore.tasks.trec:score_trec",
        reader="annoscore.formats.trec:read_run",
        scorer="annoscore.metrics.ranking:map_scores",
        signature=("complete", "relevance-level", "max-docs"),
        sample=Sample("trec/qrels.txt", "trec/run.txt", title="trec_eval-style MAP"),
        text="annoscore.report.codiesp:render_trec_eval",
    )
)
for _category, _what in (
    ("date", "dates (type: dateFormat)"),
    ("person", "person names (type: personType)"),
    ("location", "locations (type: locationType/addressType; HIPAA-PHI flag)"),
    ("id", "ids (type: idType)"),
    ("contact", "contacts (type: contactType)"),
    ("covid-symptom", "COVID symptoms (type: condition)"),
):
    register(
        Task(
            name=f"nlpsandbox-{_category}",
            summary=f"NLP Sandbox PHI {_what}: instance relax/strict, token strict, type",
            command=("nlpsandbox", _category),
            score=f"annoscore.tasks.nlpsandbox:score_{_category.replace('-', '_')}",
            reader="annoscore.formats.nlpsandbox:read_sandbox",
            scorer="annoscore.metrics.phi:phi_scores",
            signature=("tokenizer", "quotes", "same-start", "relax-margin"),
            sample=Sample(
                "nlpsandbox/gold.json",
                "nlpsandbox/pred.json",
                title=f"NLP Sandbox {_category} (official four tables)",
            ),
            text="annoscore.report.nlpsandbox:render_official",
        )
    )
register(
    Task(
        name="nlpsandbox-all",
        summary="NLP Sandbox PHI, every category present, one read; leaderboard keys in JSON",
        command=("nlpsandbox", "all"),
        score="annoscore.tasks.nlpsandbox:score_all",
        reader="annoscore.formats.nlpsandbox:read_sandbox",
        scorer="annoscore.metrics.phi:all_scores",
        signature=("tokenizer", "quotes", "same-start", "relax-margin"),
        sample=Sample(
            "nlpsandbox/gold.json",
            "nlpsandbox/pred.json",
            title="NLP Sandbox, every PHI category",
        ),
        text="annoscore.report.nlpsandbox:render_official",
    )
)
register(
    Task(
        name="muc-named-entity",
        summary="MUC scorer, named entity (ENAMEX/TIMEX/NUMEX in SGML), ALL SLOTS P/R/F",
        command=("muc",),
        score="annoscore.tasks.muc:score_muc_ne_files",
        reader="annoscore.formats.muc_sgml:read_sgml",
        scorer="annoscore.metrics.muc:all_slots_scores",
        signature=(
            "scoring-method",
            "correct",
            "partial",
            "premodifiers",
            "postmodifiers",
            "designators",
            "alignment",
        ),
        sample=Sample(
            "muc/ne.key.sgml",
            "muc/ne.response.sgml",
            {"config": "samples/muc/ne.config"},
            title="MUC named entity (NE), totals page",
        ),
        text="annoscore.report.muc:render_totals",
    )
)
register(
    Task(
        name="muc-coreference",
        summary="MUC scorer, coreference (COREF in SGML), Vilain et al. recall/precision",
        command=("muc",),
        score="annoscore.tasks.muc:score_muc_coref_files",
        reader="annoscore.formats.muc_sgml:read_sgml",
        scorer="annoscore.metrics.muc_coref:coreference_scores",
        signature=("scoring-method", "metric", "alignment", "optional"),
        sample=Sample(
            "muc/co.key.sgml",
            "muc/co.response.sgml",
            title="MUC coreference (CO), score table",
        ),
        text="annoscore.report.muc:coref_score_report",
    )
)
for _number, _summary, _system, _input, _scorer in (
    ("1", "ARE 2007 task 1: pronoun resolution over entity ids, success rate",
     "are/task1-system.xml", "samples/are/task1-input.xml", "success_scores"),
    ("2", "ARE 2007 task 2: coreference chains over entity ids, MUC",
     "are/task2-system.xml", "samples/are/task1-input.xml", "link_scores"),
    ("3", "ARE 2007 task 3: pronoun resolution over token spans, overlap credit P/R/F1",
     "are/task3-system.xml", "samples/are/task3-input.xml", "pair_scores"),
    ("4", "ARE 2007 task 4: coreference chains over token spans, fractional-credit MUC",
     "are/task4-system.xml", "samples/are/task3-input.xml", "link_scores"),
):  # fmt: skip
    register(
        Task(
            name=f"are-{_number}",
            summary=_summary,
            command=("are", _number),
            score=f"annoscore.tasks.are:score_are_{_number}",
            reader="annoscore.formats.are:read_are",
            scorer=f"annoscore.metrics.anaphora:{_scorer}",
            signature={
                "1": ("credit",),
                "2": ("metric",),
                "3": ("credit", "overlap"),
                "4": ("overlap", "alignment"),
            }[_number],
            sample=Sample(
                "are/task1-gold.xml" if _number in "12" else "are/task3-gold.xml",
                _system,
                {"input_path": _input},
                title=_summary,
            ),
            text="annoscore.report.are:render_report",
            path_options=("input_path",),
        )
    )
