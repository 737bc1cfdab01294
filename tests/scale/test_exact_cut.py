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


@pytest.mark.parametrize("seed", range(20))
def test_gold_ids_distinct_says_what_a_set_of_every_id_says(seed: int) -> None:
    """``GoldIds.distinct`` against the set of every gold id, on random chunks often in order
    (no set made: each chunk's ids increasing, after the chunk's before) and often not."""
    rng = random.Random(seed)
    for _ in range(200):
        chunks = random_chunks(rng)
        if rng.random() < 0.5:  # every id in order, some chunks then out of it
            every = sorted({name for gold, _ in chunks for name in gold})
            at = 0
            for n, (_, system) in enumerate(chunks):
                take = rng.randint(0, len(every) - at)
                chunks[n] = (every[at : at + take], system)
                at += take - (rng.random() < 0.2)  # sometimes one id again
                at = max(0, at)
        gold_ids = GoldIds()
        for gold, system in chunks:
            gold_ids.add(Part(object(), (), (Seen.of(gold), Seen.of(system))))  # type: ignore[arg-type]
        names = [name for gold, _ in chunks for name in dict.fromkeys(gold)]
        assert gold_ids.distinct == (len(set(names)) == len(names)), chunks


def test_gold_ids_in_order_make_no_set() -> None:
    """Chunks of ids in increasing order (a corpus sorted by id, CodiEsp's) make no set of
    their ids: their order shows them distinct."""
    gold_ids = GoldIds()
    for start in range(0, 1000, 100):
        seen = Seen.of([f"doc{n:04d}" for n in range(start, start + 100)])
        gold_ids.add(Part(object(), (), (seen, seen)))  # type: ignore[arg-type]
    assert gold_ids.distinct and not gold_ids.ids


@pytest.mark.parametrize(
    "chunks",
    [
        # a chunk without gold ids between: the system's "a" is still after gold's chunk of "a"
        [(["a", "b"], []), ([], []), ([], ["a"])],
        [(["a"], ["a"]), ([], []), ([], ["a"])],
        [([], ["b"]), ([], []), (["b", "c"], [])],
        [(["a"], []), ([], []), (["c"], ["b"])],
    ],
)
def test_exact_cut_of_chunks_without_gold_ids_between(
    chunks: list[tuple[list[str], list[str]]],
) -> None:
    parts = [Part(object(), (), (Seen.of(g), Seen.of(s))) for g, s in chunks]  # type: ignore[arg-type]
    assert exact_cut(parts) == reference(chunks), chunks
