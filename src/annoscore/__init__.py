"""annoscore: one scorer for NLP annotation campaigns.

Data flows one way: ``formats`` read files into ``model`` objects, ``align`` pairs gold with
predicted items, ``metrics`` turn pairs into additive :class:`~annoscore.counts.Counts` per
document, the counts are summed, and ``report`` renders the scores.  ``tasks`` hold one preset per
official task (listed in :mod:`annoscore.tasks.registry`) and ``cli`` is the thin command line on
top.

The Python API is what the command line calls::

    >>> import annoscore
    >>> from annoscore.samples import SAMPLES
    >>> folder = SAMPLES / "pharmaconer"
    >>> r = annoscore.score("pharmaconer-ner", folder / "gold/subtrack1/sample",
    ...                     folder / "system/subtrack1/sample")
    >>> r.counts["tp"], round(r.scores["f1"], 4)
    (54, 0.973)
    >>> annoscore.list_tasks()["codiesp-d"]
    'CodiEsp-D: ranked ICD-10 diagnosis codes, MAP and micro P/R/F1'

Each task's typed functions and options class are exported too, imported on first use:
``score_<task>(gold, system, options)`` on files, ``count_<task>(gold, system, options)`` on
data in memory, and its options class::

    >>> r = annoscore.count_trec({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.9}},
    ...                          annoscore.TrecOptions(complete=True))
    >>> r.score, r.counts["num_q"]
    (0.5, 1)
"""

from __future__ import annotations

from os import PathLike
from typing import TYPE_CHECKING, Any

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.version import __version__

if TYPE_CHECKING:
    from annoscore.result import Result
    from annoscore.significance import Comparison

    # Every task's typed functions and options class (the registry's, held equal by a test);
    # at run time :func:`__getattr__` imports each on first use.
    from annoscore.tasks.are import (
        Are1Options,
        Are2Options,
        Are3Options,
        Are4Options,
        count_are_1,
        count_are_2,
        count_are_3,
        count_are_4,
        score_are_1,
        score_are_2,
        score_are_3,
        score_are_4,
    )
    from annoscore.tasks.codiesp import (
        ExplainableOptions,
        RankedOptions,
        count_codiesp_d,
        count_codiesp_p,
        count_codiesp_x,
        score_codiesp_d,
        score_codiesp_p,
        score_codiesp_x,
    )
    from annoscore.tasks.conlleval import ConllevalOptions, count_conlleval, score_conlleval
    from annoscore.tasks.coref import CorefOptions, count_coref, score_coref
    from annoscore.tasks.muc import (
        CoreferenceOptions,
        NamedEntityOptions,
        ScenarioOptions,
        TemplateOptions,
        count_muc_coreference,
        count_muc_named_entity,
        count_muc_scenario_template,
        count_muc_template_element,
        count_muc_template_relation,
        score_muc_coreference,
        score_muc_named_entity,
        score_muc_scenario_template,
        score_muc_template_element,
        score_muc_template_relation,
    )
    from annoscore.tasks.nlpsandbox import (
        NlpSandboxOptions,
        count_nlpsandbox_all,
        count_nlpsandbox_contact,
        count_nlpsandbox_covid_symptom,
        count_nlpsandbox_date,
        count_nlpsandbox_id,
        count_nlpsandbox_location,
        count_nlpsandbox_person,
        score_nlpsandbox_all,
        score_nlpsandbox_contact,
        score_nlpsandbox_covid_symptom,
        score_nlpsandbox_date,
        score_nlpsandbox_id,
        score_nlpsandbox_location,
        score_nlpsandbox_person,
    )
    from annoscore.tasks.pharmaconer import (
        IndexingOptions,
        NerOptions,
        count_pharmaconer_indexing,
        count_pharmaconer_ner,
        score_pharmaconer_indexing,
        score_pharmaconer_ner,
    )
    from annoscore.tasks.seqeval import SeqevalOptions, count_seqeval, score_seqeval
    from annoscore.tasks.spans import SpanOptions, count_spans, score_spans
    from annoscore.tasks.trec import TrecOptions, count_trec, score_trec


# With every task's typed exports (held equal to the registry by a test).
__all__ = [
    "Are1Options",
    "Are2Options",
    "Are3Options",
    "Are4Options",
    "ConllevalOptions",
    "CorefOptions",
    "CoreferenceOptions",
    "Counts",
    "ExplainableOptions",
    "IndexingOptions",
    "InputError",
    "NamedEntityOptions",
    "NerOptions",
    "NlpSandboxOptions",
    "RankedOptions",
    "ScenarioOptions",
    "SeqevalOptions",
    "SpanOptions",
    "TemplateOptions",
    "TrecOptions",
    "__version__",
    "bootstrap",
    "count_are_1",
    "count_are_2",
    "count_are_3",
    "count_are_4",
    "count_codiesp_d",
    "count_codiesp_p",
    "count_codiesp_x",
    "count_conlleval",
    "count_coref",
    "count_muc_coreference",
    "count_muc_named_entity",
    "count_muc_scenario_template",
    "count_muc_template_element",
    "count_muc_template_relation",
    "count_nlpsandbox_all",
    "count_nlpsandbox_contact",
    "count_nlpsandbox_covid_symptom",
    "count_nlpsandbox_date",
    "count_nlpsandbox_id",
    "count_nlpsandbox_location",
    "count_nlpsandbox_person",
    "count_pharmaconer_indexing",
    "count_pharmaconer_ner",
    "count_seqeval",
    "count_spans",
    "count_trec",
    "list_tasks",
    "paired_test",
    "score",
    "score_are_1",
    "score_are_2",
    "score_are_3",
    "score_are_4",
    "score_codiesp_d",
    "score_codiesp_p",
    "score_codiesp_x",
    "score_conlleval",
    "score_coref",
    "score_muc_coreference",
    "score_muc_named_entity",
    "score_muc_scenario_template",
    "score_muc_template_element",
    "score_muc_template_relation",
    "score_nlpsandbox_all",
    "score_nlpsandbox_contact",
    "score_nlpsandbox_covid_symptom",
    "score_nlpsandbox_date",
    "score_nlpsandbox_id",
    "score_nlpsandbox_location",
    "score_nlpsandbox_person",
    "score_pharmaconer_indexing",
    "score_pharmaconer_ner",
    "score_seqeval",
    "score_spans",
    "score_trec",
]


def typed_exports() -> dict[str, str]:
    """Every task's score and count functions and options class, by name: ``"module:name"``
    (:attr:`Task.score <annoscore.tasks.registry.Task.score>`, ``count``, ``options``)."""
    from annoscore.tasks.registry import TASKS

    exports: dict[str, str] = {}
    for task in TASKS.values():
        for target in (task.score, task.count, task.options):
            exports[target.rpartition(":")[2]] = target
    return exports


def __getattr__(name: str) -> Any:
    target = typed_exports().get(name) if not name.startswith("__") else None
    if target is None:
        raise AttributeError(f"module 'annoscore' has no attribute {name!r}")
    from annoscore.tasks.registry import load

    return load(target)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(typed_exports()))


def list_tasks() -> dict[str, str]:
    """Every registered task name with its one-line summary."""
    from annoscore.tasks.registry import TASKS

    return {name: task.summary for name, task in TASKS.items()}


def score(
    task: str,
    /,
    gold: str | PathLike[str],
    system: str | PathLike[str],
    *,
    jobs: int = 1,
    **options: Any,
) -> Result:
    """Score ``system`` against ``gold`` with a registered ``task`` (see :func:`list_tasks`).

    ``options`` are the task's keyword options (official defaults when left out), e.g.
    ``codalab=True`` for ``pharmaconer-ner``, ``codes="codes-D.tsv"`` for ``codiesp-d``,
    ``config="te.config"`` for ``muc``; a string option naming a path is read as one, and a
    string is read as ``annoscore compare --option`` reads it (``"whitespace"`` for an enum,
    ``"no"`` for a switch, ``"none"``).  An unknown option, a missing one or a value the option
    does not take is an :class:`InputError` naming it; an unknown task a ``KeyError``.  ``task``
    is positional-only, so an option named ``task`` (``muc``'s) is the option.

    ``jobs``: score chunks of the documents in that many worker processes (0: every core;
    :mod:`annoscore.scale`); the result is the same as with 1.  ``gold`` and ``system`` may be
    fsspec URLs (``s3://``, ``gs://``, ``file://``, ``memory://``; the extra
    ``annoscore[dask]``): :func:`annoscore.scale.score_given`; so may an option naming a file
    (``codes="s3://bucket/codes-D.tsv"``), read whole before the run.
    """
    from annoscore.scale import score_given, using

    with using(jobs):
        return score_given(task, gold, system, **options)


def bootstrap(
    result: Result, *, samples: int = 1000, confidence: float = 0.95, seed: int | None = 12345
) -> Result:
    """``result`` with percentile confidence intervals of every score (``result.intervals``),
    from ``samples`` bootstrap resamples of its documents (:mod:`annoscore.significance`)."""
    from annoscore.significance import with_intervals

    return with_intervals(result, samples=samples, confidence=confidence, seed=seed)


def paired_test(baseline: Result, systems: dict[str, Result], **options: Any) -> Comparison:
    """Paired significance tests of each system against ``baseline`` over their documents
    (:func:`annoscore.significance.paired_test`: ``test="bootstrap"|"randomization"``)."""
    from annoscore.significance import paired_test as run

    return run(baseline, systems, **options)
