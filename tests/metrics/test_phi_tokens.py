"""The NLP Sandbox token level's tokenizer: NLTK's ``TreebankWordTokenizer`` loaded without the
compiled ``regex`` package (:func:`annoscore.metrics.phi_tokens.treebank_tokenizer`) gives the
tokens and spans of NLTK's normal import.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of random texts (default 1: 4,000).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap

from annoscore.metrics.phi_tokens import treebank_tokenizer

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 4000 * SCALE

WORDS = [
    "David", "Boston", "MA", "U.S.", "Dr.", "O'Neil", "Jon", "home", "the", "a", "pain",
    "can't", "cannot", "CANNOT", "won't", "I'm", "they'll", "we're", "you've", "he'd", "She's",
    "isn't", "DON'T", "gonna", "Gonna", "gotta", "wanna", "lemme", "gimme", "d'ye", "'tis",
    "'Twas", "more'n", "dogs'", "rock'n'roll", "e-mail", "x--y", "--", "...", "etc.", "No.",
    "café", "Zürich", "naïve", "Ñandú", "straße", "東京", "Москва", "ΑΒΓ", "İstanbul",
]  # fmt: skip
NUMBERS = ["617", "555-0142", "(617)", "1,000", "3.14", "10:30", "2021-01-02", "12/31", "1st",
           "$5", "50%", "#3", "@home", "&c", "0", "1e-3", "+1", "٣"]  # fmt: skip
MARKS = [",", ".", ";", ":", "!", "?", "'", "''", '"', "``", "`", "(", ")", "[", "]", "{", "}",
         "<", ">", "-", "--", "...", "@", "#", "$", "%", "&", "*", "/", "\\", "«", "»", "“",
         "”", "‘", "’", "…", "–", "—"]  # fmt: skip
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\xa0", "\u2003", "\u3000", ""]


def _text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 12)):
        kind = rng.random()
        if kind < 0.5:
            parts.append(rng.choice(WORDS))
        elif kind < 0.7:
            parts.append(rng.choice(NUMBERS))
        else:
            parts.append(rng.choice(MARKS))
        parts.append(rng.choice(SPACES))
    text = "".join(parts)
    if rng.random() < 0.2:
        text = rng.choice(['"', "'", "(", " ", "``"]) + text
    if rng.random() < 0.2:
        text += rng.choice(['"', "'", ".", ".)", '."', " ", "?", "'s "])
    return text


def test_the_loaded_tokenizer_equals_nltk_s_normal_import_on_random_texts() -> None:
    from nltk.tokenize import TreebankWordTokenizer  # the normal import: nltk/__init__, regex

    reference = TreebankWordTokenizer()
    loaded = treebank_tokenizer()
    assert type(loaded) is not TreebankWordTokenizer  # a copy, not the normal import
    rng = random.Random(20261129)
    aligned = 0
    for _ in range(CASES):
        text = _text(rng)
        assert loaded.tokenize(text) == reference.tokenize(text), repr(text)
        try:
            spans = list(reference.span_tokenize(text))
        except ValueError:
            spans = None
        if spans is None:
            try:
                list(loaded.span_tokenize(text))
            except ValueError:
                continue
            raise AssertionError(f"span_tokenize aligns {text!r}, NLTK's cannot")
        assert list(loaded.span_tokenize(text)) == spans, repr(text)
        aligned += 1
    assert aligned > CASES // 2  # most texts align: the spans are compared, not skipped


def test_the_documented_divergence_of_the_two_engines() -> None:
    """U+001C is whitespace for ``re`` (and ``str.split``), not for ``regex``: the final period
    is split off before it only by ``re`` (as NLTK did before it moved to ``regex``)."""
    from nltk.tokenize import TreebankWordTokenizer

    assert treebank_tokenizer().tokenize("end.\x1c") == ["end", "."]
    assert TreebankWordTokenizer().tokenize("end.\x1c") == ["end."]


def test_the_token_level_imports_neither_regex_nor_nltk_s_package() -> None:
    """In a fresh interpreter where importing ``regex`` fails: the tokens come, and neither
    ``regex``, ``nltk/__init__.py`` nor ``nltk/tokenize/__init__.py`` was imported; a later
    ``import nltk`` gets the real package."""
    script = textwrap.dedent(
        """
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in ("regex", "sklearn"):
                    raise ImportError(f"{name} imported")
                return None

        sys.meta_path.insert(0, Block())
        from annoscore.metrics.phi import Quotes, Tokenizer
        from annoscore.metrics.phi_tokens import TokenSpans
        spans = TokenSpans(Tokenizer.treebank, Quotes.fixed)
        print(spans('"Jon" can\\'t (617) 555-0142.'))
        print(sorted(n for n in sys.modules if n in ("nltk", "nltk.tokenize", "regex")))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    spans = "(0, 1), (1, 3), (4, 1), (6, 2), (8, 3), (12, 1), (13, 3), (16, 1), (18, 8), (26, 1)"
    assert first == f"({spans})"
    assert second == "[]"
