"""Adversarial identifiers for the differential tests of ``tests/equivalence/``.

Fast paths compare ids as machine words, hashes or fixed-width columns; the ids here are built
to break exactly that: 1 to 40 bytes (across every 8-byte word boundary), multi-byte UTF-8, long
shared prefixes, ids that differ only in their last byte, numeric-looking ids (``7``, ``007``,
``+7``, ``7.0``, ``-0``), and the two sides of a case choosing their ids independently from one
pool, so that one side may hold only short ids and the other long ones.

>>> import random
>>> pool = id_pool(random.Random(1), 30)
>>> len(pool) == len(set(pool)) and all(1 <= len(i.encode()) <= 40 for i in pool)
True
"""

from __future__ import annotations

import random
import string

ASCII = string.ascii_letters + string.digits + "-_.:"
WIDE = "éßøΩжд中文字😀"
NUMERIC_FORMS = ("{n}", "0{n}", "00{n}", "+{n}", "-{n}", "{n}.0", "{n}e0", " {n}")
# byte lengths that sit on a word boundary, one short of it and one past it
EDGE_LENGTHS = (1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 39, 40)


def _fit(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes, never inside a character."""
    while len(text.encode()) > max_bytes:
        text = text[:-1]
    return text


def random_id(
    rng: random.Random, *, max_bytes: int = 40, forbidden: str = "", wide: bool = True
) -> str:
    """One id of 1 to ``max_bytes`` UTF-8 bytes: ASCII, or with multi-byte characters, at an
    edge length (a word boundary) half the time."""
    target = rng.choice(EDGE_LENGTHS) if rng.random() < 0.5 else rng.randint(1, max_bytes)
    target = min(target, max_bytes)
    alphabet = [c for c in ASCII if c not in forbidden]
    wide_chars = [c for c in WIDE if c not in forbidden] if wide else []
    out = ""
    while len(out.encode()) < target:
        if wide_chars and rng.random() < 0.2:
            out += rng.choice(wide_chars)
        else:
            out += rng.choice(alphabet)
    out = _fit(out, target)
    return out or rng.choice(alphabet)


def id_pool(
    rng: random.Random,
    size: int,
    *,
    max_bytes: int = 40,
    forbidden: str = "",
    wide: bool = True,
    numeric: bool = True,
) -> list[str]:
    """``size`` distinct ids built to look alike: random ids, ids sharing a long prefix,
    variants of one id differing only in the last byte, numeric-looking forms of one number
    (``numeric``), and prefixes of one another (``abcdefgh`` and ``abcdefghi``).

    ``forbidden`` characters never occur (a format's separators); ``wide``: multi-byte UTF-8.
    """
    pool: dict[str, None] = {}
    alphabet = [c for c in ASCII if c not in forbidden]

    def add(candidate: str) -> None:
        candidate = _fit(candidate, max_bytes)
        if candidate and not any(c in forbidden for c in candidate):
            pool[candidate] = None

    attempts = 0
    while len(pool) < size and attempts < 100 * size:
        attempts += 1
        kind = rng.random()
        base = random_id(rng, max_bytes=max_bytes, forbidden=forbidden, wide=wide)
        if kind < 0.3:
            add(base)
        elif kind < 0.5 and len(base.encode()) >= 2:  # differ in the last byte only
            stem = base[:-1]
            for c in rng.sample(alphabet, min(3, len(alphabet))):
                add(stem + c)
        elif kind < 0.7:  # prefixes of one another, across word boundaries
            for cut in sorted({rng.randint(1, len(base)) for _ in range(3)}):
                add(base[:cut])
            add(base)
        elif kind < 0.85:  # a long shared prefix, different tails
            prefix = base[: max(1, len(base) - 3)]
            for _ in range(3):
                add(prefix + random_id(rng, max_bytes=4, forbidden=forbidden, wide=wide))
        elif numeric:
            n = rng.choice((0, 1, 7, 10, 42, rng.randrange(10**6)))
            for form in rng.sample(NUMERIC_FORMS, 3):
                add(form.format(n=n))
        else:
            add(base)
    return list(pool)[:size]


def choose(rng: random.Random, pool: list[str], k: int, *, repeats: bool = True) -> list[str]:
    """``k`` ids of ``pool`` chosen independently (with repeats when ``repeats``)."""
    if repeats:
        return [rng.choice(pool) for _ in range(k)]
    return rng.sample(pool, min(k, len(pool)))


def split_sides(rng: random.Random, pool: list[str]) -> tuple[list[str], list[str]]:
    """Two overlapping subsets of ``pool`` (documents or queries of the gold and the system
    side): some shared, some on one side only, either possibly empty."""
    gold, system = [], []
    for item in pool:
        r = rng.random()
        if r < 0.6:
            gold.append(item)
            system.append(item)
        elif r < 0.8:
            gold.append(item)
        else:
            system.append(item)
    return gold, system
