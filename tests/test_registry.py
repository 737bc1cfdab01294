"""Every registered task runs on its sample, and every result has the one shape.

For every task: the JSON ``counts`` are the sum of the per-document counts, the scores are the
task's scorer of that sum, the signature records the registered keys, the result is frozen, and
``annoscore.score`` and the registry agree.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from typing import Any

import pytest

import annoscore
from annoscore.options import fields
from annoscore.report.generic import render
from annoscore.result import Result
from annoscore.tasks.registry import TASKS, get, sample_paths


@pytest.fixture(scope="module")
def sample_results() -> dict[str, Result]:
    out = {}
    for name, task in TASKS.items():
        gold, system, options = sample_paths(task)
        out[name] = task.run(gold, system, **options)
    return out


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_runs_on_its_sample_with_the_one_result_shape(
    name: str, sample_results: dict[str, Result]
) -> None:
    task, result = TASKS[name], sample_results[name]
    assert result.task.startswith(name.split("-")[0])
    assert result.matrix.documents, "the sample has at least one document"
    # the corpus counts are the column sums of the per-document counts
    data = json.loads(render(result.shown(documents=True), "json"))
    summed: dict[str, float] = {}
    for unit in data["documents"].values():
        for key, value in unit["counts"].items():
            summed[key] = summed.get(key, 0) + value
    assert set(data["counts"]) == {k for k in summed if summed[k] or k in data["counts"]}
    assert all(_close(summed.get(k, 0), v) for k, v in data["counts"].items())
    # the scores are the scorer of the sum, for every task
    assert result.scores == result.scorer(result.counts)
    # the signature records the registered settings, in order
    keys = [k for k, _ in result.signature.settings]
    omitted = {f.key for f in fields(task.options_class()) if f.setting.omitted_at_default}
    assert [k for k in keys if k in task.signature] == [
        k for k in task.signature if k not in omitted or k in keys
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.task = "other"  # type: ignore[misc]
    assert task.text_renderer() is None or task.text_renderer()(result)  # type: ignore[misc]


DEFAULT_MODE_SAMPLES = [
    name for name, task in TASKS.items() if task.sample.options.get("mode") in (None, "strict")
]
"""Tasks whose sample runs with the default settings (the spans sample runs SemEval, whose
scorer the result itself names)."""


@pytest.mark.parametrize("name", DEFAULT_MODE_SAMPLES)
def test_the_registered_scorer_scores_the_sample(
    name: str, sample_results: dict[str, Result]
) -> None:
    task, result = TASKS[name], sample_results[name]
    assert task.scorer_function()(result.counts) == result.scores


def test_annoscore_score_is_what_the_registry_runs(sample_results: dict[str, Result]) -> None:
    gold, system, options = sample_paths(get("codiesp-d"))
    result = annoscore.score("codiesp-d", str(gold), str(system), codes=str(options["codes"]))
    assert result.to_dict() == sample_results["codiesp-d"].to_dict()
    with pytest.raises(KeyError, match="unknown task 'nope'"):
        annoscore.score("nope", gold, system)
    assert set(annoscore.list_tasks()) == set(TASKS)


@pytest.mark.parametrize("name", list(TASKS))
def test_every_score_function_takes_data_and_its_options_object(name: str) -> None:
    """The registry's contract, which :func:`annoscore.score`, ``annoscore compare --option``
    and ``help()`` read: ``score(gold, system, options)``, the options an instance of the task's
    options class (with its official defaults when left out), and the sample's options among
    that class's fields."""
    task = TASKS[name]
    function = task.score_function()
    parameters = list(inspect.signature(function).parameters.values())
    assert [p.kind for p in parameters] == [inspect.Parameter.POSITIONAL_OR_KEYWORD] * 3
    assert parameters[2].default == task.options_class()()
    names = {f.name for f in dataclasses.fields(task.options_class())}
    assert set(task.sample.options) <= names
    assert function.__doc__ and function.__name__ == "score_" + name.replace("-", "_")


def test_registering_a_name_twice_is_refused() -> None:
    from annoscore.tasks.registry import register

    with pytest.raises(ValueError, match="registered twice"):
        register(TASKS["trec"])
