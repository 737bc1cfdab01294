"""``exact_cut`` (whether chunks of lines hold every document whole) against a plain reference
on random chunks whose ids often collide: its shortcuts (first and last ids of ordered chunks,
one set of every id when each chunk's system ids are its gold ids) say what the reference says."""

from __future__ import annotations

import random

import pytest

from annoscore.scale.chunks import Part, Seen
from annoscore.scale.reduce import GoldIds, exact_cut

IDS = ("", "a", "b", "c", "ab", "b\u00e9", "1", "2", "10", "9", "\U0001f600")


def reference(chunks: list[tuple[list[str], list[str]]]) -> bool:
    """No document in two chunks of one side, and a system document that gold holds in the
    chunk where gold holds it."""
    gold_chunk: dict[str, int] = {}
    for side in (0, 1):
        where: dict[str, int] = {}
        for n, chunk in enumerate(chunks):
            for name in set(chunk[side]):
                if name in where:
                    return False
                where[name] = n
        if side == 0:
            gold_chunk = where
    return all(
        gold_chunk.get(name, n) == n for n, (_, system) in enumerate(chunks) for name in system
    )


def random_chunks(rng: random.Random) -> list[tuple[list[str], list[str]]]:
    pool = rng.sample(IDS, rng.randint(1, len(IDS)))
    chunks = []
    for _ in range(rng.randint(1, 5)):
        gold = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.5:
            gold = sorted(set(gold))  # in order: the first and last ids may settle it
        roll = rng.random()
        if roll < 0.5:
            system = list(gold)  # the usual chunk: the same ids in the same order
        elif roll < 0.7:
            system = list(reversed(gold))
        else:
            system = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        chunks.append((gold, system))
    return chunks


@pytest.mark.parametrize("seed", range(40))
def test_exact_cut_says_what_the_reference_says(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        chunks = random_chunks(rng)
        parts = [Part(object(), (), (Seen.of(g), Seen.of(s))) for g, s in chunks]  # type: ignore[arg-type]
        assert exact_cut(parts) == reference(chunks), chunks
        # the gold ids collected one chunk at a time, as they come back: the same answer
        gold_ids = GoldIds()
        for part in parts:
            gold_ids.add(part)
        assert exact_cut(parts, gold_ids) == reference(chunks), chunks
