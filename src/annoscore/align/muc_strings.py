"""MUC string-fill and set-fill comparison (../shared/spec/muc.md, decisions 4 and 12).

Normalization by mode (``:stringfill_correct_comparison`` / ``:stringfill_partial_comparison``):

``ORIG``
    the fill as read (quotes removed), case-sensitive.
``STRAIGHTENED``
    leading and trailing whitespace trimmed, inner runs of whitespace made one space.
``CLEAN`` (the default)
    lower-cased; every postmodifier string replaced by a space (the longest first, ties in the
    configuration's order); straightened; premodifier tokens removed from the start, repeatedly,
    the longest matching sequence first (``"the a x"`` -> ``"x"``); every corporate designator
    removed where it occurs as a whole-token sequence, from the left, the longest first
    (``"S A DE C V"``); straightened again.

Two string fills match under a mode when their normalized forms are equal, or when the key has a
``[minimum]`` part and the normalized response contains the normalized minimum and lies inside the
normalized key, both as whole-token sequences.  Set fills match case-insensitively, uncleaned.

A pair is COR when it matches under the correct mode, PAR when it does not but matches under the
partial mode (only if that is not ``NONE``), INC otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

from annoscore.templates import TemplateFill


def _tokens(values: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    out = {tuple(v.lower().split()) for v in values}
    out.discard(())
    return tuple(sorted(out, key=lambda t: (-len(t), t)))


def _contains(outer: str, inner: str) -> bool:
    """``inner`` occurs in ``outer`` as a whole-token sequence."""
    return f" {inner} " in f" {outer} "


NORMALIZED_MOST = 1 << 16
"""The most normalized forms remembered for one set of rules (:data:`_NORMALIZED`): once
there are more, they are forgotten and made again as needed (what a process keeps after a
run stays a few megabytes)."""

_NORMALIZED: dict[tuple[object, ...], dict[tuple[str, str], str]] = {}
"""The normalized forms of this process by rules (premodifiers, postmodifiers, designators:
all a form depends on, with its text and mode), shared by every :class:`StringRules` of the
same rules: the aligner's and the map history's of one run, and those of the chunks a worker
of ``--jobs N`` scores one after another (each chunk otherwise cleaned its documents' strings
anew: 2.5 times the cleanings of one run over four chunks of 250 template documents)."""


class StringRules:
    """The configured premodifiers, postmodifiers, corporate designators and comparison modes.

    Normalized forms are cached per (text, mode) and shared by every instance of the same
    rules (:data:`_NORMALIZED`): each string is cleaned once however many pairs it takes part
    in.

    >>> a = StringRules(["the"], ["."], ["corp"])
    >>> a.normalize("The  Acme Corp.", "CLEAN"), a.normalize("The  Acme Corp.", "STRAIGHTENED")
    ('acme', 'The Acme Corp.')
    >>> StringRules(["the"], ["."], ["corp"])._cache is a._cache, StringRules()._cache is a._cache
    (True, False)
    """

    __slots__ = ("_cache", "correct", "designators", "partial", "postmodifiers", "premodifiers")

    def __init__(
        self,
        premodifiers: Iterable[str] = (),
        postmodifiers: Iterable[str] = (),
        corporate_designators: Iterable[str] = (),
        correct: str = "CLEAN",
        partial: str = "NONE",
    ) -> None:
        self.premodifiers = _tokens(premodifiers)
        # longest first, ties in the configuration's order (a set's order would vary by run)
        self.postmodifiers = tuple(
            sorted(dict.fromkeys(p.lower() for p in postmodifiers if p), key=len, reverse=True)
        )
        self.designators = _tokens(corporate_designators)
        self.correct = correct.upper()
        self.partial = partial.upper()
        rules = (self.premodifiers, self.postmodifiers, self.designators)
        self._cache = _NORMALIZED.setdefault(rules, {})

    def normalize(self, text: str, mode: str) -> str:
        """``text`` as compared under ``mode`` (see the module docstring)."""
        key = (text, mode)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if mode == "ORIG":
            result = text
        elif mode == "STRAIGHTENED":
            result = " ".join(text.split())
        else:
            result = self._clean(text)
        cache = self._cache
        if len(cache) >= NORMALIZED_MOST:
            cache.clear()
        cache[key] = result
        return result

    def _clean(self, text: str) -> str:
        lowered = text.lower()
        for post in self.postmodifiers:
            lowered = lowered.replace(post, " ")
        tokens = lowered.split()
        changed = True
        while changed and tokens:
            changed = False
            for pre in self.premodifiers:
                if tuple(tokens[: len(pre)]) == pre:
                    tokens = tokens[len(pre) :]
                    changed = True
                    break
        if self.designators and tokens:
            kept: list[str] = []
            i = 0
            while i < len(tokens):
                for designator in self.designators:
                    if tuple(tokens[i : i + len(designator)]) == designator:
                        i += len(designator)
                        break
                else:
                    kept.append(tokens[i])
                    i += 1
            tokens = kept
        return " ".join(tokens)

    def strings_match(self, key: TemplateFill, response: TemplateFill, mode: str) -> bool:
        """Do two string fills match under ``mode`` (equal, or within a key's minimum)?"""
        k = self.normalize(key.text, mode)
        r = self.normalize(response.text, mode)
        if k == r:
            return True
        if key.minimum is not None:
            m = self.normalize(key.minimum, mode)
            if _contains(r, m) and _contains(k, r):
                return True
        if response.minimum is not None:  # key2key: the other side is a key too
            m = self.normalize(response.minimum, mode)
            if _contains(k, m) and _contains(r, k):
                return True
        return False

    def compare_strings(self, key: TemplateFill, response: TemplateFill) -> str:
        """``cor``, ``par`` or ``inc`` for two string fills."""
        if self.strings_match(key, response, self.correct):
            return "cor"
        if self.partial != "NONE" and self.strings_match(key, response, self.partial):
            return "par"
        return "inc"

    @staticmethod
    def compare_sets(key: TemplateFill, response: TemplateFill) -> str:
        """``cor`` or ``inc`` for two set fills (case-insensitive equality)."""
        return "cor" if key.text.lower() == response.text.lower() else "inc"
