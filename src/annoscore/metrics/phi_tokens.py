"""NLP Sandbox token level: an annotation text cut into tokens, each with its offset.

The official token level (nlpsandbox-client 4.3.x) tokenizes each annotation's ``text`` alone with
NLTK's ``TreebankWordTokenizer`` and finds each token with a running cursor
(:class:`TokenSpans`); :func:`span_table` does it once per distinct text shape of a run and
lays the spans out flat for :mod:`annoscore.metrics.phi_counts`.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
import threading
import types
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any

from annoscore.metrics.phi import Quotes, Tokenizer

if TYPE_CHECKING:
    from nltk.tokenize import TreebankWordTokenizer

    from annoscore.arrays import IntArray


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


class _StdlibPattern:
    """A :mod:`re` pattern that takes (and ignores) the ``timeout`` keyword of the ``regex``
    package's match methods: what NLTK's ``nltk/redos.py`` calls on the patterns it compiles."""

    __slots__ = ("_compiled",)

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self._compiled = compiled

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._compiled, name)
        if not callable(found):
            return found  # pattern, flags, groups, groupindex

        def untimed(*args: Any, timeout: object = None, **kwargs: Any) -> Any:
            return found(*args, **kwargs)

        return untimed


def _stdlib_regex() -> types.ModuleType:
    """A stand-in for the compiled ``regex`` package with what ``nltk/redos.py`` uses of it
    (``compile``, ``error``), backed by the standard library's :mod:`re`."""
    module = types.ModuleType("regex", "annoscore: the standard library's re as NLTK's engine")
    compile_: Callable[..., _StdlibPattern] = lambda pattern, flags=0: _StdlibPattern(  # noqa: E731
        re.compile(pattern, flags)
    )
    module.__dict__.update(compile=compile_, error=re.error)
    return module


def _package(name: str, folders: list[str]) -> types.ModuleType:
    """An empty package ``name`` whose submodules are found in ``folders``: its
    ``__init__.py`` is not run."""
    module = types.ModuleType(name)
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = folders
    module.__spec__, module.__path__, module.__package__ = spec, folders, name
    return module


_LOADED = "_annoscore_nltk."
"""The prefix under which the loaded NLTK modules stay in ``sys.modules`` (so that the bundle's
vendoring finds them, and ``import nltk`` elsewhere still gets the real package)."""
_LOCK = threading.Lock()
_TREEBANK: list[tuple[Any, bool, dict[str, tuple[tuple[int, int], ...]]]] = []
"""The tokenizer class loaded in this process, whether its rules run on :mod:`re`, and the
spans of the text shapes it has cut (:data:`SHAPES_KEPT`)."""
SHAPES_KEPT = 1 << 16
"""At most this many text shapes' spans are kept for the process's later runs (every chunk of
notes is a run of its own, and the chunks of a corpus mostly repeat each other's shapes: NLP
Sandbox's 5,000 notes, about 110 shapes in each of 22-33 chunks, 12 ms of each chunk's CPU);
beyond, a run's shapes are kept for that run only (:class:`TokenSpans`), so memory stays
bounded whatever the corpus."""


def _ours(name: str, stdlib: bool) -> bool:
    """Whether loading replaces the module ``name`` for its time (``regex``: by the stand-in)."""
    return name == "nltk" or name.startswith("nltk.") or (stdlib and name == "regex")


def treebank_tokenizer() -> TreebankWordTokenizer:
    """NLTK's own ``TreebankWordTokenizer`` (its module file, its rules), loaded without NLTK's
    package and, where need be, without the compiled ``regex`` package, so that a Codabench image
    with only the standard library, numpy and scipy can score the token level.

    ``import nltk`` runs ``nltk/__init__.py`` (and ``nltk/tokenize/__init__.py``), which imports
    much of NLTK, ``regex`` among it, and scikit-learn when installed.  Here only
    ``nltk/tokenize/treebank.py`` and what it imports (``nltk/redos.py``, ``tokenize/api.py``,
    ``tokenize/destructive.py``, ``tokenize/util.py``, ``internals.py``, ``pathsec.py``,
    ``termsec.py``) are imported, under empty stand-ins of the packages ``nltk`` and
    ``nltk.tokenize``.  ``nltk/redos.py`` compiles the rules with ``regex`` where it is
    installed: the tokens are then those of NLTK's normal import, the official ones
    (``tests/metrics/test_phi_tokens.py`` pins them on random texts).  Without ``regex`` (or with
    :data:`ENGINE` set to ``re``, as a bundle's launcher sets it) they are compiled by the
    standard library's :mod:`re` (:func:`_stdlib_regex`; ``regex``'s per-match timeout guards
    against caller-supplied patterns, which the fixed Treebank rules are not).  The two engines
    class a few characters differently: ``\\s`` (U+001C to U+001F are whitespace for :mod:`re`
    and ``str.split``, not for ``regex``), ``\\d`` (digits newer than this Python's Unicode
    database) and ``\\b`` next to marks and other characters only ``regex`` counts as word
    characters (``cannot`` + U+0301); texts holding such characters are named in a warning
    (:func:`engines_may_differ`).  ``sys.modules`` is restored afterwards; the modules loaded
    stay there under the prefix ``_annoscore_nltk.``.

    >>> treebank_tokenizer().tokenize("I can't go (today).")
    ['I', 'ca', "n't", 'go', '(', 'today', ')', '.']
    >>> "_annoscore_nltk.nltk.tokenize.treebank" in sys.modules
    True
    """
    return _loaded()[0]()


def _loaded() -> tuple[Any, bool, dict[str, tuple[tuple[int, int], ...]]]:
    """The tokenizer class loaded in this process (loaded on first use), whether its rules
    run on :mod:`re`, and the spans of the shapes it cut (:data:`_TREEBANK`)."""
    with _LOCK:
        if not _TREEBANK:
            stdlib = stdlib_engine()
            _TREEBANK.append((_load_treebank(stdlib), stdlib, {}))
        return _TREEBANK[0]


ENGINE = "ANNOSCORE_NLTK_ENGINE"
"""The environment variable that chooses the engine NLTK's rules run on: ``re``, the standard
library's, even where the ``regex`` package is installed (what a Codabench bundle's launcher
sets: its image has no ``regex``); unset, ``regex`` where it can be imported, as NLTK does."""


def stdlib_engine() -> bool:
    """Whether :func:`treebank_tokenizer` runs NLTK's rules on the standard library's :mod:`re`
    (``regex`` is not installed, or :data:`ENGINE` says ``re``) rather than on ``regex``."""
    if os.environ.get(ENGINE) == "re":
        return True
    try:
        return importlib.util.find_spec("regex") is None
    except (ImportError, ValueError):  # blocked, or a module without a spec
        return True


_OTHER_WHITESPACE = re.compile("[\x1c-\x1f]")


def engines_may_differ(text: str) -> bool:
    """Whether :mod:`re` and ``regex`` may class a character of ``text`` differently, so that
    NLTK's rules may cut it differently on the two engines: U+001C to U+001F (whitespace for
    :mod:`re` only), and any non-ASCII character that is not a letter or a space separator
    (marks and connectors beside ``\\b``, digits or letters newer than this Python's Unicode
    database, which it sees as unassigned).  Letters and spaces are classed alike by both.

    >>> engines_may_differ("Boston, MA 02118"), engines_may_differ("Zoë Müller")
    (False, False)
    >>> engines_may_differ("end.\x1c"), engines_may_differ("cannot\u0301")
    (True, True)
    """
    if _OTHER_WHITESPACE.search(text):
        return True
    if text.isascii():
        return False
    return any(ord(c) > 127 and unicodedata.category(c)[0] not in "LZ" for c in text)


def _load_treebank(stdlib: bool) -> Any:
    spec = importlib.util.find_spec("nltk")  # finds the folder, runs nothing
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the NLP Sandbox token level needs NLTK", name="nltk")
    folders = list(spec.submodule_search_locations)
    saved = {name: module for name, module in sys.modules.items() if _ours(name, stdlib)}
    for name in saved:
        del sys.modules[name]
    try:
        if stdlib:
            sys.modules["regex"] = _stdlib_regex()
        sys.modules["nltk"] = _package("nltk", folders)
        sys.modules["nltk.tokenize"] = _package(
            "nltk.tokenize", [os.path.join(folder, "tokenize") for folder in folders]
        )
        treebank = importlib.import_module("nltk.tokenize.treebank")
        loaded = {
            name: module
            for name, module in sys.modules.items()
            if name.startswith("nltk.") and getattr(module, "__file__", None)
        }
    finally:
        for name in [name for name in sys.modules if _ours(name, stdlib)]:
            del sys.modules[name]
        sys.modules.update(saved)
    for name, module in loaded.items():
        sys.modules[_LOADED + name] = module
    return treebank.TreebankWordTokenizer


class TokenSpans:
    """Token offsets and lengths of an annotation text, cached per text shape.

    The cache key is the text with every ASCII digit made ``0``: Treebank's rules refer to digits
    only through the classes ``\\d``/``[0-9]`` and drop only whitespace, so two texts that differ
    in digits only get the same token offsets (``"(617) 555-0142"`` and ``"(212) 555-9876"``).
    Texts whose tokens are not all found (rewritten quotes) are never shared.

    ``treebank``: the tokens of NLTK's ``TreebankWordTokenizer().tokenize(text)``, each found with
    ``text.find(token, cursor)``, the cursor then moved to the token's end.  Treebank rewrites
    ``"`` as ````` or ``''``, which the search cannot find: with ``quotes="official"`` the offset
    is then ``cursor - 1`` (the official arithmetic, bogus keys); with ``quotes="fixed"`` the text
    is aligned by NLTK's own ``span_tokenize``, which maps the quotes back, and the text is counted
    in :attr:`quote_fixes`.  Where the rules run on :mod:`re` (:func:`stdlib_engine`), the texts
    that engine may cut otherwise than ``regex`` (:func:`engines_may_differ`) are kept in
    :attr:`engine_doubts`, for a warning.

    ``whitespace``: ``re.split(r"\\s+", text)``, offsets ``0, len(t0) + 1, ...``: several
    whitespace characters in a row shift the later offsets, and leading (trailing) whitespace
    gives an empty token of length 0 first (last).

    >>> spans = TokenSpans(Tokenizer.treebank, Quotes.fixed)
    >>> spans("David's home")
    ((0, 5), (5, 2), (8, 4))
    >>> spans('"Jon" X'), spans.quote_fixes
    (((0, 1), (1, 3), (4, 1), (6, 1)), 1)
    >>> spans("(617) 555-0142") == spans("(212) 555-9876") == ((0, 1), (1, 3), (4, 1), (6, 8))
    True
    >>> TokenSpans(Tokenizer.treebank, Quotes.official)('"Jon" X')
    ((-1, 2), (1, 3), (3, 2), (6, 1))
    >>> TokenSpans(Tokenizer.whitespace, Quotes.fixed)(" a  b")
    ((0, 0), (1, 1), (3, 1))
    """

    def __init__(self, tokenizer: Tokenizer, quotes: Quotes) -> None:
        self.tokenizer = tokenizer
        self.quotes = quotes
        self.quote_fixes = 0
        self.engine_doubts: set[str] = set()
        self._cache: dict[str, tuple[tuple[int, int], ...]] = {}
        self._treebank: TreebankWordTokenizer | None = None
        self._stdlib = False
        self._shapes: dict[str, tuple[tuple[int, int], ...]] = {}
        self._whitespace = re.compile(r"\s+")

    def __call__(self, text: str) -> tuple[tuple[int, int], ...]:
        return self.spans_of(text)[0]

    def spans_of(self, text: str) -> tuple[tuple[tuple[int, int], ...], bool]:
        """The (offset, length) of each token, and whether every text of its shape has them."""
        whitespace = self.tokenizer is Tokenizer.whitespace
        key = text if whitespace else text.translate(_DIGITS_TO_ZERO)  # see the class doc
        spans = self._cache.get(key)
        if spans is None:
            if self.tokenizer is Tokenizer.whitespace:
                spans = self._split(text)
            else:
                spans, lost = self._cut(text, key)
                if lost:  # quote offsets: computed for this text only, never shared
                    return spans, False
            self._cache[key] = spans
        return spans, True

    def _split(self, text: str) -> tuple[tuple[int, int], ...]:
        spans = []
        offset = 0
        for token in self._whitespace.split(text):
            spans.append((offset, len(token)))
            offset += len(token) + 1
        return tuple(spans)

    def _cut(self, text: str, shape: str) -> tuple[tuple[tuple[int, int], ...], bool]:
        """:meth:`_tokenize` of ``text``, or the spans an earlier run of this process found for
        its ``shape`` (:data:`SHAPES_KEPT`: the texts whose tokens were all found)."""
        if self._treebank is None:
            tokenizer, self._stdlib, self._shapes = _loaded()  # loaded only when used
            self._treebank = tokenizer()
        if self._stdlib and engines_may_differ(text):  # cut now or before, by the same rules
            self.engine_doubts.add(text)
        known = self._shapes.get(shape)
        if known is None:
            spans, lost = self._tokenize(text)
            if not lost and len(self._shapes) < SHAPES_KEPT:
                self._shapes[shape] = spans
            return spans, lost
        return known, False

    def _tokenize(self, text: str) -> tuple[tuple[tuple[int, int], ...], bool]:
        assert self._treebank is not None  # loaded by _cut
        tokens = self._treebank.tokenize(text)
        spans = []
        cursor = 0
        lost = False
        for token in tokens:
            at = text.find(token, cursor)
            if at < 0:
                lost = True
                at = cursor - 1  # the official search: -1 relative to the cursor
            spans.append((at, len(token)))
            cursor = at + len(token)
        if lost and self.quotes is Quotes.fixed:
            try:
                aligned = tuple((s, e - s) for s, e in self._treebank.span_tokenize(text))
            except ValueError:  # NLTK cannot align it either: keep the official offsets
                return tuple(spans), lost
            self.quote_fixes += 1
            return aligned, lost
        return tuple(spans), lost


@dataclass(frozen=True, slots=True)
class SpanTable:
    """Token spans of numbered texts, flat: text ``t``'s tokens are rows ``first[e]`` to
    ``first[e] + size[e] - 1`` of ``offset``/``length`` where ``e = entry[t]``.

    Texts of one digit shape share an entry (see :class:`TokenSpans`); ``fixed[e]`` is 1 when the
    entry's text had its rewritten quotes found in the text (``quotes="fixed"``).
    """

    entry: IntArray
    first: IntArray
    size: IntArray
    offset: IntArray
    length: IntArray
    fixed: IntArray


def span_table(texts: Sequence[str], spans: TokenSpans) -> SpanTable:
    """The :class:`SpanTable` of ``texts``: each distinct digit shape is tokenized once.

    Equal to calling ``spans(text)`` on every text (a test pins it on random texts).

    >>> table = span_table(["Boston, MA", "(617) 555-0142", "(212) 555-9876"],
    ...                    TokenSpans(Tokenizer.treebank, Quotes.fixed))
    >>> table.entry.tolist(), table.size.tolist()
    ([0, 1, 1], [3, 4])
    >>> table.offset.tolist(), table.length.tolist()
    ([0, 6, 8, 0, 1, 4, 6], [6, 1, 2, 1, 3, 1, 8])
    """
    import numpy as np

    if spans.tokenizer is Tokenizer.whitespace:
        shapes: Sequence[str] = texts
    else:
        shapes = list(map(str.translate, texts, repeat(_DIGITS_TO_ZERO)))
    example = dict(zip(shapes, texts, strict=True))  # a text of each shape (the last one)
    entry_of_shape: dict[str, int] = {}
    cut: list[tuple[tuple[int, int], ...]] = []
    fixed: list[int] = []
    counted = spans.quote_fixes
    for shape, text in example.items():
        found, shared = spans.spans_of(text)
        if shared:
            entry_of_shape[shape] = len(cut)
            cut.append(found)
            fixed.append(0)
    spans.quote_fixes = counted  # the caller counts the fixes per annotation (``fixed``)
    entries = list(map(entry_of_shape.get, shapes))
    if len(entry_of_shape) < len(example):
        for k, text in enumerate(texts):
            if entries[k] is None:  # tokens not all found: this text's own offsets
                entries[k] = len(cut)
                cut.append(spans.spans_of(text)[0])
                fixed.append(spans.quote_fixes - counted)
                spans.quote_fixes = counted
    size = np.fromiter(map(len, cut), dtype=np.int64, count=len(cut))
    flat = np.array([pair for one in cut for pair in one], dtype=np.int64).reshape(-1, 2)
    return SpanTable(
        entry=np.array(entries, dtype=np.int64).reshape(-1),
        first=np.cumsum(size) - size,
        size=size,
        offset=np.ascontiguousarray(flat[:, 0]),
        length=np.ascontiguousarray(flat[:, 1]),
        fixed=np.array(fixed, dtype=np.int64),
    )
