"""The NLP Sandbox token level's tokenizer: NLTK's ``TreebankWordTokenizer`` loaded without NLTK's
package (:func:`annoscore.metrics.phi_tokens.treebank_tokenizer`) gives the tokens and spans of
NLTK's normal import; on the standard library's ``re`` (no ``regex`` package) it differs only on
texts that :func:`~annoscore.metrics.phi_tokens.engines_may_differ` flags, which are warned about.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of random texts (default 1: 4,000).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annoscore.metrics import phi_tokens
from annoscore.metrics.phi_tokens import engines_may_differ, treebank_tokenizer

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
         "”", "‘", "’", "…", "–", "—",
         "\x1c", "\x1f", "a\u0301", "\u203f", "²", "½", "\U0001fae8"]  # fmt: skip
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
        text += rng.choice(['"', "'", ".", ".)", '."', " ", "?", "'s ", ".\x1c", "can\u0301not"])
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


@pytest.fixture
def on_stdlib_re() -> Iterator[Any]:
    """A Treebank tokenizer whose rules run on the standard library's ``re`` (what a bundle
    uses), loaded anew; the modules this process had loaded are put back afterwards."""
    kept = {n: m for n, m in sys.modules.items() if n.startswith(phi_tokens._LOADED)}
    try:
        yield phi_tokens._load_treebank(True)()
    finally:
        for name in [n for n in sys.modules if n.startswith(phi_tokens._LOADED)]:
            del sys.modules[name]
        sys.modules.update(kept)


def test_on_re_the_tokens_differ_only_on_texts_flagged_as_doubtful(on_stdlib_re: Any) -> None:
    """Texts that ``re`` cuts otherwise than ``regex`` (NLTK's normal import) are all flagged by
    ``engines_may_differ``, so the warning names every text whose tokens may be unofficial."""
    from nltk.tokenize import TreebankWordTokenizer

    reference = TreebankWordTokenizer()
    rng = random.Random(1129)
    differ = flagged = 0
    for _ in range(CASES):
        text = _text(rng)
        doubtful = engines_may_differ(text)
        flagged += doubtful
        if on_stdlib_re.tokenize(text) != reference.tokenize(text):
            differ += 1
            assert doubtful, repr(text)
    assert differ > 0 and flagged < CASES  # the generator reaches both kinds of text


def test_the_documented_divergence_of_the_two_engines(on_stdlib_re: Any) -> None:
    """U+001C is whitespace for ``re`` (and ``str.split``), not for ``regex``: the final period
    is split off before it only by ``re`` (as NLTK did before it moved to ``regex``)."""
    from nltk.tokenize import TreebankWordTokenizer

    assert on_stdlib_re.tokenize("end.\x1c") == ["end", "."]
    assert TreebankWordTokenizer().tokenize("end.\x1c") == ["end."]
    assert treebank_tokenizer().tokenize("end.\x1c") == ["end."]  # regex installed: official
    assert engines_may_differ("end.\x1c")


def test_a_bundle_s_engine_names_the_doubtful_texts_in_a_warning(tmp_path: Path) -> None:
    """With ``ANNOSCORE_NLTK_ENGINE=re`` (a bundle's launcher), the token level runs on ``re``,
    never imports ``regex``, and warns about the one text whose tokens may be unofficial."""

    def file(name: str, *texts: str) -> Path:
        items = [{"start": 10 * k, "length": len(t), "text": t} for k, t in enumerate(texts)]
        obj = {"annotationSource": {"resourceSource": {"name": "n"}}, "textDateAnnotations": items}
        (tmp_path / name).write_text(json.dumps([obj]))
        return tmp_path / name

    gold = file("g.json", "May 1", "end.\x1c")
    pred = file("p.json", "May 1", "end.\x1c", "June 2")
    script = (
        "import sys, json\n"
        "from annoscore.tasks.nlpsandbox import score_nlpsandbox_date\n"
        "result = score_nlpsandbox_date(sys.argv[1], sys.argv[2])\n"
        "print(json.dumps([str(w) for w in result.warnings]))\n"
        "print('regex' in sys.modules)\n"
    )
    for engine, warned in (("re", True), ("regex", False)):
        env = {**os.environ, "ANNOSCORE_NLTK_ENGINE": engine}
        done = subprocess.run(
            [sys.executable, "-c", script, str(gold), str(pred)],
            capture_output=True, text=True, check=False, timeout=120, env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        warnings, regex_imported = done.stdout.splitlines()
        named = [w for w in json.loads(warnings) if "distinct annotation texts" in w]
        assert named == ([named[0]] if warned else []), warnings
        if warned:
            assert named[0].startswith("1 distinct annotation texts") and "cut with re" in named[0]
        assert regex_imported == ("False" if warned else "True")


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


def test_a_later_run_of_the_process_cuts_no_shape_an_earlier_one_cut(monkeypatch: Any) -> None:
    """Each chunk of notes is a run of its own (a fresh :class:`TokenSpans`): a digit shape one
    run cut is not tokenized again by a later run of the process (the same spans), but a text
    whose quotes were found in it is cut, and counted, in every run; once
    :data:`~annoscore.metrics.phi_tokens.SHAPES_KEPT` shapes are kept, no more are."""
    from annoscore.metrics.phi import Quotes, Tokenizer
    from annoscore.metrics.phi_tokens import TokenSpans

    tokenizer = phi_tokens._loaded()[0]
    cut: list[str] = []
    tokenize = tokenizer.tokenize
    monkeypatch.setattr(
        tokenizer, "tokenize", lambda self, text: [cut.append(text), *tokenize(self, text)][1:]
    )
    # a shape (digits made 0) no run of this process cut yet: letters only
    unique = "Zq" + uuid.uuid4().hex.translate(str.maketrans("0123456789", "ghijklmnop"))
    first = TokenSpans(Tokenizer.treebank, Quotes.fixed)
    assert first(f"{unique} (617) 555-0142") == first(f"{unique} (212) 555-9876")
    assert len(cut) == 1
    later = TokenSpans(Tokenizer.treebank, Quotes.official)
    assert later(f"{unique} (300) 123-4567") == first(f"{unique} (617) 555-0142")
    assert len(cut) == 1  # not tokenized again
    for _ in range(2):
        run = TokenSpans(Tokenizer.treebank, Quotes.fixed)
        assert run(f'"{unique}" X') == (
            (0, 1),
            (1, len(unique)),
            (len(unique) + 1, 1),
            (len(unique) + 3, 1),
        )
        assert run.quote_fixes == 1
    assert len(cut) == 5  # the quoted text: cut in each run (and by span_tokenize)
    monkeypatch.setattr(phi_tokens, "SHAPES_KEPT", len(phi_tokens._loaded()[2]))
    for _ in range(2):
        TokenSpans(Tokenizer.treebank, Quotes.fixed)(f"{unique} more")
    assert len(cut) == 7  # none kept: cut in each run
