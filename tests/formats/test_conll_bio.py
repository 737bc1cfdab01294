"""CoNLL tag files read as conlleval.pl reads them (formats/conll_bio.py)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.conll_bio import perl_split, read_tag_text
from annoscore.tasks.conlleval import count_conlleval

PATTERNS = [" ", "\\t", " +", "\\s+", "\\|", "|", "x*", "[ \\t]", "a|", " *", "b?"]


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_perl_split_is_perls_split() -> None:
    rng = random.Random(7)
    cases = []
    for _ in range(2000):
        text = "".join(rng.choice("ab x\t|") for _ in range(rng.randint(0, 9)))
        cases.append((rng.choice(PATTERNS), text))
    program = (
        "use JSON::PP; while (<STDIN>) { chomp; my ($p, $s) = @{decode_json($_)}; "
        "my @f = split(/$p/, $s); print encode_json(\\@f), qq(\\n); }"
    )
    lines = "\n".join(json.dumps(c) for c in cases) + "\n"
    done = subprocess.run(
        ["perl", "-e", program], input=lines, capture_output=True, text=True, check=True
    )
    for (pattern, text), perl in zip(cases, done.stdout.splitlines(), strict=True):
        assert perl_split(re.compile(pattern), text) == json.loads(perl), (pattern, text)


def test_the_first_line_fixes_the_number_of_fields() -> None:
    with pytest.raises(InputError, match=r"x:3: unexpected number of features: 2 \(3\)"):
        read_tag_text("a B O\n\nb O\n", "x")


def test_blank_lines_and_x_lines_are_boundaries_docstart_a_token_and_a_document() -> None:
    text = "\n-DOCSTART- d1 O O\na NN B-X O\n-X- - O O\n   \n-DOCSTART- -X- O O\nb NN O O\n"
    tags = read_tag_text(text, "x")
    assert tags.boundary == [True, False, False, True, True, False, False]
    assert [(d.name, d.start) for d in tags.documents] == [("d1", 0), ("2", 5)]
    assert tags.columns[0][2] == "B-X" and tags.columns[1][2] == "O"


def test_a_file_without_docstart_is_one_document_named_by_the_file() -> None:
    tags = read_tag_text("a B-X B-X\n", "folder/run.txt")
    assert [d.name for d in tags.documents] == ["run.txt"]


def test_document_ids_are_unique_and_leading_tokens_are_document_0() -> None:
    with pytest.raises(InputError, match="x:2: document id 'd' is used again"):
        read_tag_text("-DOCSTART- d O O\n-DOCSTART- d O O\n", "x")
    tags = read_tag_text("a NN O O\n-DOCSTART- d O O\n", "x")
    assert [d.name for d in tags.documents] == ["0", "d"]


def test_a_bad_delimiter_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not a regular expression"):
        read_tag_text("a O O\n", "x", delimiter="(")


TAG = st.sampled_from(["O", "B-X", "I-X", "B-Y", "I-Y", "E-X", "S-Y", "I-DNA-b"])
SENTENCES = st.lists(st.lists(TAG, min_size=1, max_size=8), min_size=1, max_size=6)
"""Prefixed tags only: a bare label (``PER``) opens a phrase of the empty type that an ``O``
does not close, so even a perfect guess can lose it (conlleval's rules)."""


@settings(max_examples=200, deadline=None)
@given(SENTENCES)
def test_a_perfect_guess_scores_one_and_scores_stay_in_range(gold: list[list[str]]) -> None:
    result = count_conlleval(gold, gold)
    assert result.scores["accuracy"] == 1.0
    assert result.counts["fp"] == 0 and result.counts["fn"] == 0
    assert result.scores["f1"] in (None, 1.0)


@settings(max_examples=200, deadline=None)
@given(SENTENCES, st.randoms(use_true_random=False))
def test_scores_stay_in_range_and_per_type_counts_add_up(
    gold: list[list[str]], rng: random.Random
) -> None:
    guess = [
        [t if rng.random() < 0.6 else rng.choice(["O", "B-X", "I-Y", "S-Y"]) for t in s]
        for s in gold
    ]
    result = count_conlleval(gold, guess)
    for value in result.scores.values():
        assert value is None or 0.0 <= value <= 1.0
    for stat in ("tp", "fp", "fn"):
        assert sum(u.counts[stat] for u in result.types.values()) == result.counts[stat]
