"""Scoring a MUC configuration in the tests as ``annoscore muc CONFIG`` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annoscore.result import Result
from annoscore.tasks.muc import load_config, task_name
from annoscore.tasks.registry import get


def score_configured(
    config: Path | None,
    key: Path | None = None,
    response: Path | None = None,
    *,
    task: str | None = None,
    **options: Any,
) -> Result:
    """The task the configuration's ``:scoring_task`` (or ``task``, as ``--task``) names, on its
    ``:key_file`` and ``:response_file`` unless ``key`` and ``response`` are given, with
    ``options`` (the task's options class's fields)."""
    loaded = load_config(config, task)
    scored = get(task_name(loaded.scoring_task))
    chosen = scored.options_class()(config=config, **options)
    key = key if key is not None else loaded.file("key_file")
    response = response if response is not None else loaded.file("response_file")
    return scored.score_with(Path(key), Path(response), chosen)
