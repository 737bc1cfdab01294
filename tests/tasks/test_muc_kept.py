"""What a MUC process keeps through the chunks of one cut run
(:func:`annoscore.formats.muc_config.kept_per_process`: the named entity reader's shared slots,
the aligners, the report writers; the SGML reader's parsed attributes), held to the plain
reference, objects made afresh for each input: random adversarial corpora (those of
``tests/scale/test_muc_cuts.py``: unpaired documents, texts that differ, undefined attributes,
optional and ALT tags, broken files that raise midway) scored one after the other in one
process inside :func:`~annoscore.formats.files.read_once`, each reusing what the ones before
left, give every layout of the result (JSON with documents, the text report, the score report,
the summaries, the map history, the partitions) and every error as each gives scored alone.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import annoscore
from annoscore.errors import InputError
from annoscore.formats.files import read_once
from tests.scale.test_muc_cuts import (
    NE_CONFIG,
    TEMPLATE_CONFIG,
    _corpus,
    _output_of,
    _template_corpus,
)

TASKS = {
    "ne": "muc-named-entity",
    "co": "muc-coreference",
    "te": "muc-template-element",
    "st": "muc-scenario-template",
}


def _scored(task: str, root: Path, options: dict[str, Any]) -> str:
    suffix = "tpl" if task in ("te", "st") else "sgml"
    try:
        result = annoscore.score(
            TASKS[task], root / f"key.{suffix}", root / f"response.{suffix}", **options
        )
    except InputError as error:
        return f"error: {error}"
    return _output_of(result)


@pytest.mark.parametrize("task", list(TASKS))
def test_objects_kept_through_a_run_give_what_fresh_ones_give(task: str, tmp_path: Path) -> None:
    rng = random.Random(f"muc-kept-{task}")
    config = tmp_path / "muc.config"  # one configuration for every corpus: what is kept is shared
    config.write_text(NE_CONFIG if task == "ne" else TEMPLATE_CONFIG, encoding="utf-8")
    corpora: list[tuple[Path, dict[str, Any]]] = []
    for case in range(12):
        root = tmp_path / str(case)
        root.mkdir()
        if task in ("te", "st"):
            _template_corpus(rng, root, case % 3 != 2)
            options: dict[str, Any] = {"config": config}
            if task == "st":
                options["text_filter"] = rng.choice(["agreement", "relevance"])
        else:
            options = _corpus(rng, root, task, case % 3 != 2)
            if task == "ne":
                options["config"] = config
        corpora.append((root, options))
    alone = [_scored(task, root, options) for root, options in corpora]
    with read_once():  # the chunks of one run in one process: each reuses what came before
        kept = [_scored(task, root, options) for root, options in corpora]
        again = [_scored(task, root, options) for root, options in reversed(corpora)]
    assert kept == alone
    assert again == alone[::-1]
    assert any(a.startswith("error") for a in alone), "no broken corpus raised"
    assert sum(not a.startswith("error") for a in alone) >= 6


def test_a_configuration_is_read_once_a_process_in_a_run(tmp_path: Path) -> None:
    from annoscore.tasks.muc import load_config

    path = tmp_path / "muc.config"
    path.write_text(NE_CONFIG, encoding="utf-8")
    broken = tmp_path / "broken.config"
    broken.write_text(":scoring_task nothing\n", encoding="utf-8")
    assert load_config(path) is not load_config(path)  # outside a run: read each time
    assert load_config(path) == load_config(path)
    with read_once():
        first = load_config(path)
        assert load_config(path) is first and first == load_config(path, "named_entity")
        assert load_config(path, "named_entity") is not first  # another key: --task given
        assert load_config(None, "ne") is load_config(None, "ne")
        for _ in range(2):  # an error each time
            with pytest.raises(InputError):
                load_config(broken)
