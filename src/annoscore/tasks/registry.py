"""Every task annoscore scores, registered once; everything else about a task is derived.

A :class:`Task` keeps the task's name (the one in the signature and the JSON ``task`` field),
a summary, its options class (:mod:`annoscore.options`), its path-level score function, its
scorer (the pure ``Counts -> Scores`` function), its headline score, its official text layout
and its sample.  Derived from those: the sub-command (:attr:`Task.command`), the signature's
keys (:attr:`Task.signature`), the command line's flags, :func:`annoscore.score`, ``annoscore
compare --option`` and the README's option tables.  Functions and classes are named as
``"module:attribute"`` strings imported on first use, so ``annoscore --help`` imports no task and
no NumPy.  Adding a task is: a reader in ``formats/``, a count function, an options class and one
:func:`register` call (``docs/architecture.md`` walks through it; a test runs every registered
task on its sample).

A task's score function is ``score(gold, system, options) -> Result``; inside, it builds its
result with :meth:`Task.result`, which takes the signature from the options and the scorer and
headline from here.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from annoscore.counts import Counts
    from annoscore.options import TaskOptions
    from annoscore.result import CountMatrix, Result, ScoreWarning, Undefined


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
    """One scoring task (see the module doc).

    - ``options``: ``"module:Class"``, a :class:`~annoscore.options.TaskOptions` subclass;
    - ``score``: ``"module:function"``, ``(gold, system, options) -> Result``;
    - ``scorer``: ``"module:function"``, the pure ``Counts -> Scores`` function (the rule for
      undefined numbers: ``None``);
    - ``headline``: the key of the score a leaderboard shows (:attr:`Result.score`);
    - ``text``: ``"module:function"``, ``Result -> str``: the official text layout, if any.
    """

    name: str
    summary: str
    options: str
    score: str
    scorer: str
    headline: str
    sample: Sample
    text: str | None = None

    @property
    def legacy(self) -> Legacy | None:
        """Transitional: a task not yet declared with an options class (removed when every task
        is)."""
        return LEGACY.get(self.name)

    @property
    def command(self) -> tuple[str, ...]:
        """The words of its sub-command: ``pharmaconer-ner`` is ``annoscore pharmaconer ner``,
        ``codiesp-d`` is ``annoscore codiesp D``; the MUC tasks share ``annoscore muc`` (its
        configuration or ``--task`` chooses)."""
        if self.legacy is not None:
            return self.legacy.command
        family, _, rest = self.name.partition("-")
        if family == "muc" or not rest:
            return (family,)
        return (family, rest.upper() if family == "codiesp" else rest)

    def options_class(self) -> type[TaskOptions]:
        return cast("type[TaskOptions]", load(self.options))

    @property
    def signature(self) -> tuple[str, ...]:
        """The keys its signature records from its options, in order (settings read from the
        data, a MUC configuration's, come after them)."""
        from annoscore.options import fields

        if self.legacy is not None:
            return self.legacy.signature
        return tuple(f.key for f in fields(self.options_class()) if f.setting.moves)

    def score_function(self) -> Any:
        return load(self.score)

    def scorer_function(self) -> Any:
        return load(self.scorer)

    def text_renderer(self) -> Any:
        return None if self.text is None else load(self.text)

    def run(self, gold: str | PathLike[str], system: str | PathLike[str], **options: Any) -> Result:
        """Score with options given by name, as Python values or the command line's text
        (:meth:`~annoscore.options.TaskOptions.from_values`)."""
        return self.score_with(Path(gold), Path(system), self.parse_options(options))

    def parse_options(self, values: Mapping[str, Any], *, cli: bool = False) -> Any:
        """The task's options of ``values`` (by Python name; with ``cli``, as ``annoscore
        compare --option`` spells them), checked."""
        if self.legacy is not None:
            from annoscore.tasks.options import check_options

            return check_options(self, {k.replace("-", "_"): v for k, v in values.items()}, cli=cli)
        return self.options_class().from_values(values, task=self.name, cli=cli)

    def score_with(self, gold: Path, system: Path, options: Any) -> Result:
        """Score with options made by :meth:`parse_options`."""
        if self.legacy is not None:
            return cast("Result", self.score_function()(gold, system, **options))
        return cast("Result", self.score_function()(gold, system, options))

    def result(
        self,
        options: TaskOptions,
        per_document: Mapping[str, Counts] | CountMatrix,
        *,
        read: Iterable[tuple[str, object]] = (),
        warnings: Iterable[ScoreWarning | str] = (),
        details: Any = None,
        extra: Mapping[str, Any] | None = None,
        undefined: Undefined | None = None,
    ) -> Result:
        """The task's :class:`~annoscore.result.Result` of per-document counts: its signature
        from ``options`` (and ``read``, settings read from the data), its scorer and headline;
        ``undefined``: what the corpus scores show where undefined (the options' ``undefined``
        when they have one, else the rule)."""
        from annoscore.result import Result, Undefined

        if undefined is None:
            undefined = Undefined(getattr(options, "undefined", Undefined.null))
        return Result.from_counts(
            self.name,
            options.signature(self.name, *read),
            per_document,
            self.scorer_function(),
            warnings=warnings,
            details=details,
            extra=extra,
            headline=self.headline,
            undefined=undefined,
        )


@dataclass(frozen=True, slots=True)
class Legacy:
    """Transitional: what a task not yet declared with an options class keeps by hand."""

    command: tuple[str, ...]
    signature: tuple[str, ...]


LEGACY: dict[str, Legacy] = {}
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


def legacy_task(
    *,
    command: tuple[str, ...],
    signature: tuple[str, ...],
    reader: str = "",
    path_options: tuple[str, ...] = (),
    **fields: Any,
) -> Task:
    """Transitional: a task declared the old way (its options as its score function's
    keywords, command and signature by hand)."""
    task = Task(options="", headline="", **fields)
    LEGACY[task.name] = Legacy(command, signature)
    return task


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


def markdown_table() -> str:
    """Every registered task as a Markdown table (name, command, options class, score
    function, scorer, headline, summary): ``docs/architecture.md`` shows it, and a test holds
    the two equal."""
    rows = [
        "| task | command | options | score function | scorer | headline | what it scores |",
        "|---|---|---|---|---|---|---|",
    ]
    for task in TASKS.values():
        rows.append(
            f"| `{task.name}` | `annoscore {' '.join(task.command)}` "
            f"| `{task.options.rpartition(':')[2] or '-'}` | `{task.score.rpartition(':')[2]}` "
            f"| `{task.scorer.rpartition(':')[2]}` | `{task.headline or '-'}` | {task.summary} |"
        )
    return "\n".join(rows) + "\n"


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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
        options="annoscore.tasks.trec:TrecOptions",
        score="annoscore.tasks.trec:score_trec",
        scorer="annoscore.metrics.ranking:map_scores",
        headline="map",
        sample=Sample("trec/qrels.txt", "trec/run.txt", title="trec_eval-style MAP"),
        text="annoscore.report.codiesp:render_trec_eval",
    )
)
register(
    Task(
        name="conlleval",
        summary="conlleval.pl on CoNLL tag files: chunk P/R/F1 and token accuracy, every quirk",
        options="annoscore.tasks.conlleval:ConllevalOptions",
        score="annoscore.tasks.conlleval:score_conlleval",
        scorer="annoscore.metrics.conlleval:conlleval_scores",
        headline="f1",
        sample=Sample("bio/gold.conll", "bio/system.conll", title="conlleval.pl layout"),
        text="annoscore.report.conlleval:render_conlleval",
    )
)
register(
    Task(
        name="seqeval",
        summary="seqeval's entity scores of tag sequences: default mode, or strict per scheme",
        options="annoscore.tasks.seqeval:SeqevalOptions",
        score="annoscore.tasks.seqeval:score_seqeval",
        scorer="annoscore.metrics.conlleval:conlleval_scores",
        headline="f1",
        sample=Sample("bio/gold.conll", "bio/system.conll", title="seqeval, default mode"),
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
        legacy_task(
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
    legacy_task(
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
    legacy_task(
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
    legacy_task(
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
        legacy_task(
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
