"""``annoscore muc`` against the plain reference of tests/oracles/muc.py, on random inputs.

Every case goes through a task's function on paths (the configuration reader, the template or
SGML reader, the aligner with its short cuts, the tallies, the scorer) or, every other case, its
function on the documents the reader gives (``count_muc_*``), and through the reference, which
takes the readers' documents and computes the greedy-by-F mapping, the tallies COR PAR INC MIS
SPU NON and (coreference) the MUC recall and precision of Vilain et al. from the spec's
definitions.  Per-document counts, the corpus scores and the warnings (code and count; the
``undefined`` warning where a corpus score is undefined) must be equal.  The generators
(tests/equivalence/muc_cases.py) are built to take and to skip each short cut; each test also
checks that the run reached every one of them.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import inspect
import os
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from annoscore.align.muc_mapping import ClassMapping
from annoscore.align.muc_ne import NeAligner
from annoscore.errors import InputError
from annoscore.formats import muc_template
from annoscore.formats.muc_config import MucConfig, parse_muc_config
from annoscore.formats.muc_template import read_templates
from annoscore.result import Result
from annoscore.tasks import muc
from annoscore.tasks.muc_sgml import read_task_file
from tests.equivalence.muc_cases import Case, co_case, ne_case, template_case
from tests.oracles import muc as oracle

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))


def _config(folder: Path, case: Case) -> tuple[MucConfig, Path]:
    path = folder / "muc.config"
    path.write_text(case.config, encoding="utf-8")
    return parse_muc_config(case.config, path), path


def _write(folder: Path, case: Case, suffix: str) -> tuple[Path, Path]:
    key, rsp = folder / f"key.{suffix}", folder / f"response.{suffix}"
    for path, text in ((key, case.key), (rsp, case.response)):
        path.unlink(missing_ok=True)  # a new file: truncating one flushes it to disk (slow)
        path.write_bytes(text.encode())
    return key, rsp


def _nonzero(counts: Any) -> dict[str, int]:
    return {k: int(v) for k, v in counts.items() if v}


def _warnings(result: Result) -> Counter[tuple[str, int]]:
    return Counter((w.code, w.count) for w in result.warnings)


def _same_scores(result: Result, expected: dict[str, Fraction | None]) -> None:
    for name, theirs in expected.items():
        ours = result.scores[name]
        if theirs is None:
            assert ours is None, name
        else:
            assert ours is not None and abs(ours - float(theirs)) <= 1e-12, name


def _compare(
    result: Result,
    per_document: dict[str, dict[str, int]],
    warnings: Counter[tuple[str, int]],
    scores: Callable[[dict[str, int]], dict[str, Fraction | None]],
) -> None:
    ours = {doc: _nonzero(c) for doc, c in result.document_counts().items()}
    assert ours == per_document
    expected = scores(oracle.total(per_document))
    _same_scores(result, expected)
    if any(value is None for value in expected.values()):
        warnings = warnings + Counter({("undefined", 1): 1})
    assert _warnings(result) == warnings


class Spy:
    """Counts the calls of some methods (and what some return) while a test runs."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    @contextmanager
    def on(
        self, owner: Any, name: str, label: Callable[[Any], str] | None = None
    ) -> Iterator[None]:
        original = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            out = original(*args, **kwargs)
            self.calls[name if label is None else f"{name}:{label(out)}"] += 1
            return out

        static = isinstance(inspect.getattr_static(owner, name), staticmethod)
        with mock.patch.object(owner, name, staticmethod(wrapper) if static else wrapper):
            yield


# --------------------------------------------------------------------------- templates


def test_template_tasks_equal_the_reference(tmp_path: Path) -> None:
    rng = random.Random(2024)
    spy = Spy()
    refused = 0
    with (
        spy.on(muc_template, "_scan_templates", lambda out: "declined" if out is None else "read"),
        spy.on(ClassMapping, "_exceeds", lambda out: str(out)),
        spy.on(ClassMapping, "_sharing_pairs"),
    ):
        for number in range(600 * SCALE):
            case = template_case(rng)
            config, config_path = _config(tmp_path, case)
            key_path, rsp_path = _write(tmp_path, case, "tpl")
            name = config.scoring_task
            options: muc.TemplateOptions = (
                muc.ScenarioOptions(config=config_path, text_filter=case.text_filter)
                if name == "scenario_template"
                else muc.TemplateOptions(config=config_path)
            )
            status = config.value("optional_status_slot")
            try:
                keys = read_templates(key_path, keys_syntax=True, status_slot=status)
                rsps = read_templates(rsp_path, keys_syntax=config.key2key, status_slot=status)
                function = getattr(muc, f"{'count' if number % 2 else 'score'}_muc_{name}")
                result = (
                    function(keys, rsps, options)
                    if number % 2
                    else function(key_path, rsp_path, options)
                )
            except InputError:
                refused += 1
                continue
            per_document, warnings = oracle.template_reference(config, keys, rsps, case.text_filter)
            _compare(result, per_document, warnings, oracle.tally_scores)
    # every path was taken: the reader's scan and its parser, pruned and unpruned classes,
    # weighted scores decided exactly at the threshold both ways
    assert spy.calls["_scan_templates:read"] and spy.calls["_scan_templates:declined"]
    assert spy.calls["_sharing_pairs"]
    assert spy.calls["_exceeds:True"] and spy.calls["_exceeds:False"]
    assert refused < 70 * SCALE  # few generated files are malformed


# --------------------------------------------------------------------------- named entities


def test_named_entity_equals_the_reference(tmp_path: Path) -> None:
    rng = random.Random(2025)
    spy = Spy()
    with (
        spy.on(NeAligner, "_composed_pair", lambda out: type(out).__name__),
        spy.on(NeAligner, "_align_isolated"),
        spy.on(NeAligner, "_align_rest"),
        spy.on(ClassMapping, "_exceeds", lambda out: str(out)),
    ):
        for number in range(400 * SCALE):
            case = ne_case(rng)
            config, config_path = _config(tmp_path, case)
            key_path, rsp_path = _write(tmp_path, case, "sgml")
            options = muc.NamedEntityOptions(config=config_path)
            classes = [c.name.upper() for c in config.class_defs]
            keys = list(read_task_file(config, key_path, classes).values())
            rsps = list(read_task_file(config, rsp_path, classes).values())
            result = (
                muc.count_muc_named_entity(keys, rsps, options)
                if number % 2
                else muc.score_muc_named_entity(key_path, rsp_path, options)
            )
            plain_keys = oracle.sgml_documents(config, key_path, classes)
            plain_rsps = oracle.sgml_documents(config, rsp_path, classes)
            per_document, warnings = oracle.ne_reference(config, plain_keys, plain_rsps)
            _compare(result, per_document, warnings, oracle.tally_scores)
    # the isolated-pair short cut: pairs composed from slot records (aligned or not), pairs
    # it leaves to the full comparison, pairs that compete (the general greedy path)
    assert spy.calls["_composed_pair:ObjectPair"] and spy.calls["_composed_pair:bool"]
    assert spy.calls["_composed_pair:NoneType"] and spy.calls["_align_isolated"]
    assert spy.calls["_align_rest"]


def test_named_entity_pairs_seen_before_reuse_their_record_exactly(tmp_path: Path) -> None:
    """Every document twice in one corpus: the second copy's isolated pairs aligned before take
    the first copy's records (neither codes nor F computed again: fewer pairs composed than
    twice those of one copy); counts equal the reference's."""
    rng = random.Random(7)
    reused = 0
    for _ in range(60 * SCALE):
        case = ne_case(rng)
        config, config_path = _config(tmp_path, case)
        composed = []
        for copies in (1, 2):
            again = Case(
                case.config,
                case.key + case.key.replace("<DOCNO> ", "<DOCNO> 1000") * (copies - 1),
                case.response + case.response.replace("<DOCNO> ", "<DOCNO> 1000") * (copies - 1),
            )
            key_path, rsp_path = _write(tmp_path, again, "sgml")
            spy = Spy()
            with spy.on(NeAligner, "_composed_pair"):
                result = muc.score_muc_named_entity(
                    key_path, rsp_path, muc.NamedEntityOptions(config=config_path)
                )
            composed.append(spy.calls["_composed_pair"])
            classes = [c.name.upper() for c in config.class_defs]
            keys = oracle.sgml_documents(config, key_path, classes)
            rsps = oracle.sgml_documents(config, rsp_path, classes)
            per_document, warnings = oracle.ne_reference(config, keys, rsps)
            _compare(result, per_document, warnings, oracle.tally_scores)
        reused += composed[1] < 2 * composed[0]
    assert reused > 10 * SCALE


# --------------------------------------------------------------------------- coreference


def test_coreference_equals_the_reference(tmp_path: Path) -> None:
    rng = random.Random(2026)
    refused = 0
    for number in range(600 * SCALE):
        case = co_case(rng)
        config, config_path = _config(tmp_path, case)
        key_path, rsp_path = _write(tmp_path, case, "sgml")
        options = muc.CoreferenceOptions(config=config_path)
        gid = [config.class_defs[0].name.upper()]
        keys = list(read_task_file(config, key_path, gid).values())
        rsps = list(read_task_file(config, rsp_path, gid).values())

        scored: Callable[[], Result] = (
            partial(muc.count_muc_coreference, keys, rsps, options)
            if number % 2
            else partial(muc.score_muc_coreference, key_path, rsp_path, options)
        )
        plain_keys = oracle.sgml_documents(config, key_path, gid)
        plain_rsps = oracle.sgml_documents(config, rsp_path, gid)
        try:
            expected = oracle.coref_reference(config, plain_keys, plain_rsps)
        except ValueError:
            with pytest.raises(InputError):
                scored()
            refused += 1
            continue
        result = scored()
        per_document, warnings = expected
        _compare(result, per_document, warnings, oracle.coref_scores)
    assert refused < 60 * SCALE
