"""The normalized forms shared by every StringRules of the same rules (one process)."""

from __future__ import annotations

import random

import pytest

from annoscore.align import muc_strings
from annoscore.align.muc_strings import StringRules

WORDS = ["the", "a", "Acme", "corp", "Inc.", "S", "A", "DE", "C", "V", ",", ".", "x", "Ltd"]
RULES = [
    (["the", "a"], [".", ","], ["corp", "inc", "s a de c v"]),
    (["the"], ["."], ["corp"]),
    ([], [], []),
    (["a"], [","], ["ltd", "s a"]),
]


@pytest.mark.parametrize("most", [3, 1 << 16])
def test_shared_forms_are_each_rules_own(monkeypatch: pytest.MonkeyPatch, most: int) -> None:
    """Whatever instances of whichever rules normalized before, and however often the shared
    forms are forgotten (``most``), each form is the one a fresh instance of its own rules
    makes by cleaning its text anew."""
    monkeypatch.setattr(muc_strings, "_NORMALIZED", {})
    monkeypatch.setattr(muc_strings, "NORMALIZED_MOST", most)
    rng = random.Random(5)
    for _ in range(3000):
        pre, post, designators = rng.choice(RULES)
        rules = StringRules(pre, post, designators)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5)))
        mode = rng.choice(["CLEAN", "ORIG", "STRAIGHTENED"])
        expected = {
            "ORIG": text,
            "STRAIGHTENED": " ".join(text.split()),
            "CLEAN": StringRules(pre, post, designators)._clean(text),
        }[mode]
        assert rules.normalize(text, mode) == expected, (pre, post, designators, text, mode)
        assert len(rules._cache) <= most
    assert len(muc_strings._NORMALIZED) == len(RULES)
