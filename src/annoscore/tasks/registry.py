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
from collections.abc import Callable, Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides
    from annoscore.counts import Counts
    from annoscore.options import TaskOptions
    from annoscore.result import CountMatrix, Details, Result, Undefined
    from annoscore.score_warnings import ScoreWarning


class Sample(Record):
    """Sample data shipped in ``annoscore/samples``: paths relative to it, and options.

    An option whose value is a string starting with ``samples/`` is a path under the samples
    folder.
    """

    __slots__ = ("gold", "system", "options", "title")  # noqa: RUF023 (field order)
    gold: str
    system: str
    options: Mapping[str, Any]
    title: str

    def __init__(
        self, gold: str, system: str, options: Mapping[str, Any] | None = None, title: str = ""
    ) -> None:
        set_fields(
            self, gold=gold, system=system, options={} if options is None else options, title=title
        )


class Task(Record):
    """One scoring task (see the module doc).

    - ``options``: ``"module:Class"``, a :class:`~annoscore.options.TaskOptions` subclass;
    - ``score``: ``"module:function"``, ``(gold, system, options) -> Result``;
    - ``scorer``: ``"module:function"``, the pure ``Counts -> Scores`` function (the rule for
      undefined numbers: ``None``);
    - ``headline``: the key of the score a leaderboard shows (:attr:`Result.score`);
    - ``text``: ``"module:function"``, ``Result -> str``: the official text layout, if any;
    - ``solution``: ``"module:function"``, ``(gold, folder, options) -> notes``: writes the gold
      standard as the submission that scores best (:mod:`annoscore.tasks.solutions`), for a
      task whose gold is not itself one (``None``: the gold is a perfect submission);
    - ``sides``: ``"module:function"``, ``(gold, system, options, result) -> SpanSides``: both
      sides' documents read again as the task read them, for the span analysis of the HTML
      report (``--format html``, ``annoscore report``; ``None``: the task's page has none);
    - ``averages_per_type``: the macro averages come with the per-type rows (``--per-type``
      shows both, and so does the report: PharmaCoNER NER); else as the result shows them.
    """

    __slots__ = (  # noqa: RUF023 (the order of the fields)
        "name",
        "summary",
        "options",
        "score",
        "scorer",
        "headline",
        "sample",
        "text",
        "solution",
        "sides",
        "averages_per_type",
    )
    name: str
    summary: str
    options: str
    score: str
    scorer: str
    headline: str | None
    sample: Sample
    text: str | None
    solution: str | None
    sides: str | None
    averages_per_type: bool

    def __init__(
        self,
        name: str,
        summary: str,
        options: str,
        score: str,
        scorer: str,
        headline: str | None,
        sample: Sample,
        text: str | None = None,
        solution: str | None = None,
        sides: str | None = None,
        averages_per_type: bool = False,
    ) -> None:
        set_fields(
            self,
            name=name,
            summary=summary,
            options=options,
            score=score,
            scorer=scorer,
            headline=headline,
            sample=sample,
            text=text,
            solution=solution,
            sides=sides,
            averages_per_type=averages_per_type,
        )

    @property
    def command(self) -> tuple[str, ...]:
        """The words of its sub-command: ``pharmaconer-ner`` is ``annoscore pharmaconer ner``,
        ``codiesp-d`` is ``annoscore codiesp D``; the MUC tasks share ``annoscore muc`` (its
        configuration or ``--task`` chooses)."""
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

        return tuple(f.key for f in fields(self.options_class()) if f.setting.moves)

    @property
    def count(self) -> str:
        """``"module:count_<task>"``: the function scoring data in memory, beside the score
        function of the same name (``score_trec``, ``count_trec``)."""
        module, _, function = self.score.partition(":")
        return f"{module}:{function.replace('score_', 'count_', 1)}"

    def score_function(self) -> Any:
        return load(self.score)

    def scorer_function(self) -> Any:
        return load(self.scorer)

    def text_renderer(self) -> Any:
        return None if self.text is None else load(self.text)

    def write_solution(self, gold: Path, target: Path, options: TaskOptions) -> list[str] | None:
        """Write the gold standard ``gold`` as the submission that scores best into the folder
        ``target``; the reasons its score is below 1.0 (``None``: no conversion, the gold is a
        perfect submission as it is)."""
        if self.solution is None:
            return None
        return cast("list[str]", load(self.solution)(gold, target, options))

    def report_sides(
        self,
        gold: Path | None,
        system: Path | None,
        options: TaskOptions,
        result: Result,
        **read: Any,
    ) -> Callable[[], SpanSides] | None:
        """Both sides' documents for the HTML report's span analysis (:attr:`sides`; ``read``:
        what else its function takes, a tag file's standard input), read only when the
        returned function is called (a page is asked for); ``None``: the task has none."""
        if self.sides is None:
            return None
        sides = self.sides
        return lambda: cast("SpanSides", load(sides)(gold, system, options, result, **read))

    def run(self, gold: str | PathLike[str], system: str | PathLike[str], **options: Any) -> Result:
        """Score with options given by name, as Python values or the command line's text
        (:meth:`~annoscore.options.TaskOptions.from_values`)."""
        return self.score_with(Path(gold), Path(system), self.parse_options(options))

    def parse_options(self, values: Mapping[str, Any], *, cli: bool = False) -> TaskOptions:
        """The task's options of ``values`` (by Python name; with ``cli``, as ``annoscore
        compare --option`` spells them), checked.  A file option given as an fsspec URL is
        read into a local copy (:func:`~annoscore.formats.files.input_path`)."""
        if any(isinstance(v, str) and "://" in v for v in values.values()):
            from annoscore.formats.files import input_path
            from annoscore.options import fields

            paths = {f.name for f in fields(self.options_class()) if f.kind == "path"}
            values = {
                k: input_path(v) if isinstance(v, str) and k.replace("-", "_") in paths else v
                for k, v in values.items()
            }
        return self.options_class().from_values(values, task=self.name, cli=cli)

    def score_with(self, gold: Path, system: Path, options: TaskOptions) -> Result:
        """Score with options made by :meth:`parse_options`."""
        return cast("Result", self.score_function()(gold, system, options))

    def result(
        self,
        options: TaskOptions,
        per_document: Mapping[str, Counts] | CountMatrix,
        *,
        read: Iterable[tuple[str, object]] = (),
        warnings: Iterable[ScoreWarning | str] = (),
        details: Details | None = None,
        extra: Mapping[str, Any] | None = None,
        undefined: Undefined | None = None,
    ) -> Result:
        """The task's :class:`~annoscore.result.Result` of per-document counts: its signature
        from ``options`` (and ``read``, settings read from the data), its scorer and headline;
        ``undefined``: what the corpus scores show where undefined (the options' ``undefined``
        when they have one, else the rule).  With ``options.strict_input``, a warning about
        tolerated input is an :class:`~annoscore.errors.InputError` instead (every entry point
        refuses it alike)."""
        from annoscore.result import Result, Undefined
        from annoscore.score_warnings import refuse_tolerated

        warnings = list(warnings)
        if options.strict_input:
            refuse_tolerated(w for w in warnings if not isinstance(w, str))
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


TASKS: dict[str, Task] = {}


def load(reference: str) -> Any:
    """Import ``"package.module:attribute"`` and return the attribute."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


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

for _number, _task, _what, _title in (
    ("1", "ner", "entity offsets in brat files", "NER offsets"),
    ("2", "indexing", "concept codes per document (TSV)", "concept indexing"),
):
    register(
        Task(
            name=f"pharmaconer-{_task}",
            summary=f"PharmaCoNER sub-track {_number}: {_what}, micro P/R/F1",
            options=f"annoscore.tasks.pharmaconer:{_task.capitalize()}Options",
            score=f"annoscore.tasks.pharmaconer:score_pharmaconer_{_task}",
            scorer=_PRF,
            headline="f1",
            sample=Sample(
                f"pharmaconer/gold/subtrack{_number}/sample",
                f"pharmaconer/system/subtrack{_number}/sample",
                title=f"PharmaCoNER sub-track {_number} ({_title}), official layout",
            ),
            text="annoscore.report.pharmaconer:render_official",
            sides="annoscore.tasks.pharmaconer:pharmaconer_ner_sides" if _task == "ner" else None,
            averages_per_type=_task == "ner",
        )
    )
register(
    Task(
        name="spans",
        summary="generic span scoring of brat files: strict, exact, overlap, relaxed, token, "
        "SemEval-2013",
        options="annoscore.tasks.spans:SpanOptions",
        score="annoscore.tasks.spans:score_spans",
        scorer="annoscore.metrics.spans:span_scores",
        headline="f1",
        sample=Sample(
            "pharmaconer/gold/subtrack1/sample",
            "pharmaconer/system/subtrack1/sample",
            {"mode": "semeval"},
            title="Generic span scoring, SemEval-2013 schemes, on the PharmaCoNER sample",
        ),
        sides="annoscore.tasks.spans:spans_sides",
    )
)
register(
    Task(
        name="coref",
        summary="CoNLL-2011/2012 coreference: MUC, B3, CEAFm, CEAFe, BLANC, LEA, CoNLL score",
        options="annoscore.tasks.coref:CorefOptions",
        score="annoscore.tasks.coref:score_coref",
        scorer="annoscore.metrics.coref:coref_scores",
        headline="conll_f1",
        sample=Sample("coref/key.conll", "coref/response.conll", title="CoNLL coreference"),
        text="annoscore.report.coref:render_table",
    )
)
for _task, _summary, _options in (
    ("template-element", "template element (TE)", "TemplateOptions"),
    ("template-relation", "template relation (TR)", "TemplateOptions"),
    ("scenario-template", "scenario template (ST)", "ScenarioOptions"),
):
    register(
        Task(
            name=f"muc-{_task}",
            summary=f"MUC scorer, {_summary}: template files and a configuration, ALL SLOTS P/R/F",
            options=f"annoscore.tasks.muc:{_options}",
            score=f"annoscore.tasks.muc:score_muc_{_task.replace('-', '_')}",
            scorer="annoscore.metrics.muc:all_slots_scores",
            headline="f_pr",
            sample=Sample(
                "muc/key.synthetic.tpl",
                "muc/response.synthetic.tpl",
                {"config": "samples/muc/te.config"},
                title=f"MUC {_summary}, totals page",
            ),
            text="annoscore.report.muc:render_totals",
            solution="annoscore.tasks.solutions:muc_template_solution",
        )
    )
for _letter, _what, _title in (
    ("D", "diagnosis", "CodiEsp-D (ranked ICD-10 codes: MAP and P/R/F1), official layout"),
    ("P", "procedure", "CodiEsp-P (ranked ICD-10 procedure codes)"),
):
    register(
        Task(
            name=f"codiesp-{_letter.lower()}",
            summary=f"CodiEsp-{_letter}: ranked ICD-10 {_what} codes, MAP and micro P/R/F1",
            options="annoscore.tasks.codiesp:RankedOptions",
            score=f"annoscore.tasks.codiesp:score_codiesp_{_letter.lower()}",
            scorer="annoscore.metrics.codiesp:ranked_scores",
            headline="map",
            sample=Sample(
                f"codiesp/gs_{_letter}.tsv",
                f"codiesp/pred_{_letter}.tsv",
                {"codes": f"samples/codiesp/codes-{_letter}.tsv"},
                title=_title,
            ),
            text="annoscore.report.codiesp:render_ranked",
        )
    )
register(
    Task(
        name="codiesp-x",
        summary="CodiEsp-X: codes with text references, micro P/R/F1",
        options="annoscore.tasks.codiesp:ExplainableOptions",
        score="annoscore.tasks.codiesp:score_codiesp_x",
        scorer="annoscore.metrics.prf:prf_scores",
        headline="f1",
        sample=Sample(
            "codiesp/gs_X.tsv",
            "codiesp/pred_X.tsv",
            {"codes_d": "samples/codiesp/codes-D.tsv", "codes_p": "samples/codiesp/codes-P.tsv"},
            title="CodiEsp-X (codes with text references)",
        ),
        text="annoscore.report.codiesp:render_explainable",
        solution="annoscore.tasks.solutions:codiesp_x_solution",
        sides="annoscore.tasks.codiesp:codiesp_x_sides",
    )
)
register(
    Task(
        name="trec",
        summary="trec_eval's measures (MAP by default, -m all_trec) of a TREC run against qrels",
        options="annoscore.tasks.trec:TrecOptions",
        score="annoscore.tasks.trec:score_trec",
        scorer="annoscore.metrics.trec_measures:trec_scores",
        headline="map",
        sample=Sample("trec/qrels.txt", "trec/run.txt", title="trec_eval-style MAP"),
        text="annoscore.report.trec:render_trec_eval",
        solution="annoscore.tasks.solutions:trec_solution",
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
        sides="annoscore.tasks.conlleval:conlleval_sides",
    )
)
register(
    Task(
        name="seqeval",
        summary="seqeval's entity scores of tag sequences: default mode, or strict per scheme",
        options="annoscore.tasks.seqeval:SeqevalOptions",
        score="annoscore.tasks.seqeval:score_seqeval",
        scorer="annoscore.metrics.seqeval:conlleval_scores",
        headline="f1",
        sample=Sample("bio/gold.conll", "bio/system.conll", title="seqeval, default mode"),
        sides="annoscore.tasks.seqeval:seqeval_sides",
    )
)
for _category, _what in (
    ("date", "dates (type: dateFormat)"),
    ("person", "person names (type: personType)"),
    ("location", "locations (type: locationType/addressType; HIPAA-PHI flag)"),
    ("id", "ids (type: idType)"),
    ("contact", "contacts (type: contactType)"),
    ("covid-symptom", "COVID symptoms (type: condition)"),
    ("all", ""),
):
    _all = _category == "all"
    register(
        Task(
            name=f"nlpsandbox-{_category}",
            summary="NLP Sandbox PHI, every category present, one read; leaderboard keys in JSON"
            if _all
            else f"NLP Sandbox PHI {_what}: instance relax/strict, token strict, type",
            options="annoscore.tasks.nlpsandbox:NlpSandboxOptions",
            score=f"annoscore.tasks.nlpsandbox:score_nlpsandbox_{_category.replace('-', '_')}",
            scorer=f"annoscore.metrics.phi:{'all_scores' if _all else 'phi_scores'}",
            headline=None if _all else "token_strict_f1",  # all: one per category, none pooled
            sample=Sample(
                "nlpsandbox/gold.json",
                "nlpsandbox/pred.json",
                title="NLP Sandbox, every PHI category"
                if _all
                else f"NLP Sandbox {_category} (official four tables)",
            ),
            text="annoscore.report.nlpsandbox:render_official",
            sides="annoscore.tasks.nlpsandbox:nlpsandbox_sides",
        )
    )
register(
    Task(
        name="muc-named-entity",
        summary="MUC scorer, named entity (ENAMEX/TIMEX/NUMEX in SGML), ALL SLOTS P/R/F",
        options="annoscore.tasks.muc:NamedEntityOptions",
        score="annoscore.tasks.muc:score_muc_named_entity",
        scorer="annoscore.metrics.muc:all_slots_scores",
        headline="f_pr",
        sample=Sample(
            "muc/ne.key.sgml",
            "muc/ne.response.sgml",
            {"config": "samples/muc/ne.config"},
            title="MUC named entity (NE), totals page",
        ),
        text="annoscore.report.muc:render_totals",
        sides="annoscore.tasks.muc:ne_sides",
    )
)
register(
    Task(
        name="muc-coreference",
        summary="MUC scorer, coreference (COREF in SGML), Vilain et al. recall/precision",
        options="annoscore.tasks.muc:CoreferenceOptions",
        score="annoscore.tasks.muc:score_muc_coreference",
        scorer="annoscore.metrics.muc_coref:coreference_scores",
        headline="f1",
        sample=Sample(
            "muc/co.key.sgml",
            "muc/co.response.sgml",
            title="MUC coreference (CO), score table",
        ),
        text="annoscore.report.muc:coref_score_report",
    )
)
for _number, _summary, _system, _input, _scorer, _headline in (
    ("1", "ARE 2007 task 1: pronoun resolution over entity ids, success rate",
     "are/task1-system.xml", "samples/are/task1-input.xml", "success_scores", "success_rate"),
    ("2", "ARE 2007 task 2: coreference chains over entity ids, MUC",
     "are/task2-system.xml", "samples/are/task1-input.xml", "link_scores", "f1"),
    ("3", "ARE 2007 task 3: pronoun resolution over token spans, overlap credit P/R/F1",
     "are/task3-system.xml", "samples/are/task3-input.xml", "pair_scores", "f1"),
    ("4", "ARE 2007 task 4: coreference chains over token spans, fractional-credit MUC",
     "are/task4-system.xml", "samples/are/task3-input.xml", "link_scores", "f1"),
):  # fmt: skip
    register(
        Task(
            name=f"are-{_number}",
            summary=_summary,
            options=f"annoscore.tasks.are:Are{_number}Options",
            score=f"annoscore.tasks.are:score_are_{_number}",
            scorer=f"annoscore.metrics.anaphora:{_scorer}",
            headline=_headline,
            sample=Sample(
                "are/task1-gold.xml" if _number in "12" else "are/task3-gold.xml",
                _system,
                {"input_path": _input},
                title=_summary,
            ),
            text="annoscore.report.are:render_report",
            solution=f"annoscore.tasks.solutions:are_{_number}_solution"
            if _number in "13"
            else None,
        )
    )
