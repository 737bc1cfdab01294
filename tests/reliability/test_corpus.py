"""Every case of the bad-input corpus (:mod:`tests.reliability.corpus`) has its reviewed outcome,
and none is an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.corpus import Case, cases, outcome, read_expected

EXPECTED = read_expected()
CASES = list(cases())


def test_the_corpus_is_large_and_every_case_has_a_reviewed_outcome() -> None:
    assert len(CASES) >= 500
    assert {c.name for c in CASES} == set(EXPECTED)
    assert not [name for name, o in EXPECTED.items() if o.startswith("exit1")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_has_its_reviewed_outcome(case: Case, tmp_path: Path) -> None:
    assert outcome(case, tmp_path) == EXPECTED[case.name]
