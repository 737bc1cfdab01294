"""``annoscore are``: a test per finding of issues 24 and 25 (each fixed).

- An input given as a pipe (``<(cat FILE)``, a FIFO) was read twice (the columnar reader, then
  the checked one or the byte-order-mark check): the second read was empty.  Every input is
  now read once.
- A character reference of 5,000 digits was converted to a number by the columnar reader
  (Python's 4,300-digit limit: exit 1); ids and token ids of 5,000 digits are names.
- ``are 4`` on one document of 6,000 / 12,000 / 24,000 mentions a side took 3 s / 13 s / 56 s
  and up to 4.5 GB: now bounded (isolated overlaps aligned directly; the assignment limited to
  :data:`annoscore.align.are.MAX_CELLS` gold x system pairs, beyond which an error names the
  document and its overlapping pairs).
- The alignment of task 4 broke ties between optimal alignments component by component, not as
  decision 9's ``linear_sum_assignment`` over the document does: another fractional MUC.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from annoscore.samples import SAMPLES

ARE = SAMPLES / "are"
RUNS = {
    "1": ("task1-gold.xml", "task1-system.xml", "task1-input.xml"),
    "2": ("task1-gold.xml", "task2-system.xml", "task1-input.xml"),
    "3": ("task3-gold.xml", "task3-system.xml", "task3-input.xml"),
    "4": ("task3-gold.xml", "task4-system.xml", "task3-input.xml"),
}


def annoscore(*args: object, pass_fds: tuple[int, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "annoscore", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        pass_fds=pass_fds,
    )


def _feed(path: Path, data: bytes) -> threading.Thread:
    """Write ``data`` into the FIFO ``path`` once a reader opens it (then close it)."""

    def write() -> None:
        with path.open("wb") as fifo:
            fifo.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("task", sorted(RUNS))
def test_every_input_given_as_a_fifo_is_read_once(tmp_path: Path, task: str) -> None:
    names = RUNS[task]
    expected = annoscore(
        "are", task, "-g", ARE / names[0], "-p", ARE / names[1], "-i", ARE / names[2], "-f", "json"
    )
    assert expected.returncode == 0, expected.stderr
    fifos = []
    threads = []
    for side, name in zip(("gold", "pred", "input"), names, strict=True):
        fifo = tmp_path / side
        os.mkfifo(fifo)
        data = (ARE / name).read_bytes()
        if side == "pred":
            data = b"\xef\xbb\xbf" + data  # its warning must not read the pipe again
        threads.append(_feed(fifo, data))
        fifos.append(fifo)
    done = annoscore("are", task, "-g", fifos[0], "-p", fifos[1], "-i", fifos[2], "-f", "json")
    assert done.returncode == 0, done.stderr
    for thread in threads:
        thread.join(timeout=5)
    got, wanted = json.loads(done.stdout), json.loads(expected.stdout)
    assert got["scores"] == wanted["scores"] and got["counts"] == wanted["counts"]
    assert got["warnings"][:-1] == wanted["warnings"]
    assert "byte-order mark" in got["warnings"][-1]


def test_an_input_given_as_process_substitution_is_read_once(tmp_path: Path) -> None:
    """``annoscore are 2 --gold <(cat GOLD) ...``: the shell passes a ``/dev/fd/N`` pipe."""
    read_end, write_end = os.pipe()
    data = (ARE / "task1-gold.xml").read_bytes()

    def write() -> None:
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    done = annoscore(
        "are",
        "2",
        "-g",
        f"/dev/fd/{read_end}",
        "-p",
        ARE / "task2-system.xml",
        "-f",
        "json",
        pass_fds=(read_end,),
    )
    os.close(read_end)
    thread.join(timeout=5)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["recall_den"] == 4


def test_a_character_reference_of_5000_digits_is_exit_2_naming_file_and_line(
    tmp_path: Path,
) -> None:
    gold = tmp_path / "g.xml"
    gold.write_text(
        f'<r>\n<chain><node id="1" value="&#{"9" * 5000};"/><node id="2"/></chain></r>',
        encoding="utf-8",
    )
    done = annoscore("are", "2", "-g", gold, "-p", gold)
    assert done.returncode == 2
    assert done.stderr.startswith(f"annoscore: error: {gold}:2: not well-formed XML")
    assert done.stderr.count("\n") == 1


def test_ids_and_token_ids_of_5000_digits_are_names(tmp_path: Path) -> None:
    long = "7" * 5000
    chains = tmp_path / "c.xml"
    chains.write_text(f'<r><chain><node id="{long}"/><node id="2"/></chain></r>', "utf-8")
    done = annoscore("are", "2", "-g", chains, "-p", chains, "-f", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"]["f1"] == 1.0
    source = tmp_path / "i.xml"
    source.write_text(f'<r><text><node id="1"/>a <node id="{long}"/>b</text></r>', "utf-8")
    mentions = tmp_path / "m.xml"
    mentions.write_text(
        f'<r><chain><mention start="1" end="{long}"/><mention start="{long}" end="{long}"/>'
        "</chain></r>",
        "utf-8",
    )
    done = annoscore("are", "4", "-g", mentions, "-p", mentions, "-i", source, "-f", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"]["f1"] == 1.0
    unknown = tmp_path / "u.xml"
    unknown.write_text(f'<r><chain>\n<mention start="1" end="{long}8"/></chain></r>', "utf-8")
    done = annoscore("are", "4", "-g", unknown, "-p", mentions, "-i", source)
    assert done.returncode == 2
    assert done.stderr.startswith(f"annoscore: error: {unknown}:2: <mention end=")


def _document(folder: Path, mentions: int, seed: int, spread: int = 2) -> tuple[Path, Path, Path]:
    """One document of ``mentions`` random mentions (1-5 tokens) a side over ``spread`` x as
    many tokens, in chains of 1-5 (the issue's scale runs)."""
    rnd = random.Random(seed)
    tokens = spread * mentions

    def chains() -> str:
        found: set[tuple[int, int]] = set()
        while len(found) < mentions:
            start = rnd.randrange(tokens)
            found.add((start, min(tokens - 1, start + rnd.randrange(5))))
        ordered = list(found)
        rnd.shuffle(ordered)
        out = []
        while ordered:
            size = rnd.randint(1, 5)
            chain, ordered = ordered[:size], ordered[size:]
            out.append(
                "<chain>"
                + "".join(f'<mention start="{a + 1}" end="{b + 1}"/>' for a, b in chain)
                + "</chain>\n"
            )
        return "<r>" + "".join(out) + "</r>"

    paths = (folder / "g.xml", folder / "s.xml", folder / "i.xml")
    paths[0].write_text(chains(), "utf-8")
    paths[1].write_text(chains(), "utf-8")
    paths[2].write_text(
        "<r><text>" + " ".join(f'<node id="{t + 1}"/>w' for t in range(tokens)) + "</text></r>",
        "utf-8",
    )
    return paths


@pytest.mark.parametrize("mentions", [6_000, 24_000])
def test_are_4_on_a_document_too_large_for_the_assignment_exits_2_quickly(
    tmp_path: Path, mentions: int
) -> None:
    gold, system, source = _document(tmp_path, mentions, mentions)
    started = time.monotonic()
    done = annoscore("are", "4", "-g", gold, "-p", system, "-i", source)
    assert time.monotonic() - started < 20
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        f"annoscore: error: document 1: {mentions} gold and {mentions} system mentions with "
    )
    assert "overlapping pairs" in done.stderr and "16,000,000" in done.stderr


def _chains(chains: list[list[tuple[int, int]]]) -> str:
    return (
        "<r>"
        + "".join(
            "<chain>"
            + "".join(f'<mention start="{a + 1}" end="{b + 1}"/>' for a, b in chain)
            + "</chain>"
            for chain in chains
        )
        + "</r>"
    )


def _tokens(count: int) -> str:
    return "<r><text>" + " ".join(f'<node id="{t + 1}"/>w' for t in range(count)) + "</text></r>"


def test_are_4_on_a_large_document_of_isolated_overlaps_needs_no_assignment(
    tmp_path: Path,
) -> None:
    """50,000 mentions a side in one document, each overlapping one of the other side: aligned
    directly (overlap 0.5 each), in seconds."""
    gold = [[(6 * j, 6 * j), (6 * j + 3, 6 * j + 3)] for j in range(25_000)]
    system = [[(a, a + 1), (b, b + 1)] for (a, _), (b, _) in gold]
    (tmp_path / "g.xml").write_text(_chains(gold), "utf-8")
    (tmp_path / "s.xml").write_text(_chains(system), "utf-8")
    (tmp_path / "i.xml").write_text(_tokens(150_000), "utf-8")
    started = time.monotonic()
    done = annoscore(
        "are",
        "4",
        "-g",
        tmp_path / "g.xml",
        "-p",
        tmp_path / "s.xml",
        "-i",
        tmp_path / "i.xml",
        "-f",
        "json",
    )
    assert time.monotonic() - started < 20
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["counts"]["aligned"] == 50_000 and found["scores"]["f1"] == 0.5


def test_are_4_breaks_ties_between_optimal_alignments_as_decision_9_does(tmp_path: Path) -> None:
    """Gold chain (1,1) (1,2) (0,0), system chain (2,2) (1,2) (token positions): aligning
    (1,1)-(1,2) and (1,2)-(2,2) (0.5 + 0.5) or (1,2)-(1,2) (1) is equally good; decision 9's
    ``linear_sum_assignment`` over the document takes the second, so the gold chain's members go
    to one system member and earn 0 (the old component-wise matching took the first: 0.5)."""
    gold, system = [(1, 1), (1, 2), (0, 0)], [(2, 2), (1, 2)]
    rows, cols = sorted(gold), sorted(system)
    overlaps = np.zeros((len(rows), len(cols)))
    for i, g in enumerate(rows):
        for j, s in enumerate(cols):
            shared = min(g[1], s[1]) - max(g[0], s[0]) + 1
            overlaps[i, j] = max(shared, 0) / max(g[1] - g[0] + 1, s[1] - s[0] + 1)
    assigned = zip(*linear_sum_assignment(-overlaps), strict=True)
    chosen = {(rows[i], cols[j]) for i, j in assigned if overlaps[i, j] > 0}
    assert chosen == {((1, 2), (1, 2))}
    (tmp_path / "g.xml").write_text(_chains([gold]), "utf-8")
    (tmp_path / "s.xml").write_text(_chains([system]), "utf-8")
    (tmp_path / "i.xml").write_text(_tokens(3), "utf-8")
    done = annoscore(
        "are",
        "4",
        "-g",
        tmp_path / "g.xml",
        "-p",
        tmp_path / "s.xml",
        "-i",
        tmp_path / "i.xml",
        "-f",
        "json",
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)["counts"]
    assert (counts["recall_num"], counts["aligned"]) == (0.0, 1)
