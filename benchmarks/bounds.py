"""The least any Python program must do on the benchmarks' files, against the targets not met.

Four of issue 14's targets are not met: the two MUC readers within 2x of the floor, ``annoscore
trec`` at 3x pytrec-eval-terrier and ``annoscore codiesp D`` at 10x pytrec-eval-terrier fed the
official way.  This script measures how much of each target the least Python work already takes:
on the files the other benchmarks use and in the same run, it times a part of the work that any
reader of those files must do, with nothing built from it, and sets it beside the target.

- MUC templates (target: the reader within 2x the floor): every line split at its first ``:``
  and both sides stripped, into a column of names and a column of values (``str`` methods
  mapped at C speed: no fill parsed, no check, no object);
- MUC SGML (target: the reader within 2x the floor): the text split at its task, document and
  section tags by one regular expression (C speed) and the file offsets of the pieces (NumPy):
  no offsets without the tags, no check, no object;
- trec (target: 3x pytrec-eval-terrier's whole run): a process that starts and imports NumPy,
  plus the positions of every line end and space in the qrels and run files (NumPy, one pass
  each over the bytes; no field converted or looked up);
- codiesp D on 10,000 documents (target: 10x the peer's whole run): the same, over the gold,
  predictions and codes files (line ends and tabs).

The floor is ``readers.floor`` (read, decode, split the lines and their fields), timed beside
each bound with the cyclic garbage collector paused for both (the least either can cost); the
processes are timed with ``processes.measured``; every figure is the best of ``--rounds``.

How to read it: for the MUC readers the least work alone takes most of the 2x, so a reader
written in Python cannot meet it (parsing every fill or tag, the checks and the line numbers for
error messages must all fit in what is left); for trec and codiesp D the figure is the most any
program with this start-up could reach, and the room left is for converting the fields to
columns and scoring, which annoscore does with NumPy in many passes over the columns and a
compiled reader would do in one pass over the bytes.

Run: ``python benchmarks/bounds.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import repeat
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmarks

import numpy as np

import ranking
import readers
import trec
from processes import measured

SGML_TAGS = re.compile(r"<(/?)(ENAMEX|TIMEX|NUMEX|DOC|DOCNO|HL|TXT)\b([^>]*)>")
"""The tags the MUC SGML reader must find in the benchmark's files: task, document, sections."""


def best(rounds: int, call: Callable[[], Any]) -> float:
    """Fastest of ``rounds`` calls, the collector paused."""
    fastest = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        call()
        fastest = min(fastest, time.perf_counter() - started)
        gc.enable()
    return fastest


def template_columns(paths: list[Path]) -> int:
    """Every line split at its first ``:`` into stripped names and values."""
    count = 0
    for path in paths:
        lines = path.read_bytes().decode("utf-8").split("\n")
        heads, _, values = zip(*map(str.partition, lines, repeat(":")), strict=True)
        count += len(list(map(str.strip, heads))) + len(list(map(str.strip, values)))
    return count


def sgml_pieces(paths: list[Path]) -> int:
    """The text split at its task, document and section tags, with the pieces' offsets."""
    count = 0
    for path in paths:
        pieces = SGML_TAGS.split(path.read_bytes().decode("utf-8"))
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        count += int(np.cumsum(lengths)[-1])
    return count


def boundaries(paths: list[Path], separator: int) -> int:
    """The positions of every line end and ``separator`` byte of the files."""
    count = 0
    for path in paths:
        data = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        count += len(np.flatnonzero(data == 10)) + len(np.flatnonzero(data == separator))
    return count


def fastest_process(rounds: int, command: list[str]) -> float:
    return min(measured(command).seconds for _ in range(rounds))


def reader_bound(
    name: str,
    data: Callable[[Path, int], tuple[list[Path], Any, str | None]],
    least: Callable[[list[Path]], int],
    folder: Path,
    rounds: int,
) -> None:
    """The least work on the files ``data`` writes in ``folder``, against the floor."""
    folder.mkdir()
    paths, _, fields = data(folder, 1)
    least(paths)  # warm-up: file system cache
    floor = best(rounds, lambda: readers.floor(paths, fields))
    bound = best(rounds, lambda: least(paths))
    print(
        f"{name:14} least work {bound:6.3f} s, floor {floor:6.3f} s: {bound / floor:4.2f}x the "
        f"floor before any fill or tag is parsed (target: the whole reader <= 2x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rounds = args.rounds
    start_up = [sys.executable, "-c", "import numpy"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name, data, least in (
            ("MUC templates", readers.muc_template_data, template_columns),
            ("MUC SGML", readers.muc_sgml_data, sgml_pieces),
        ):
            reader_bound(name, data, least, folder / name.replace(" ", "-"), rounds)

        (folder / "trec").mkdir()
        trec.generate(folder / "trec", 10_000)
        qrels, run = folder / "trec" / "qrels.txt", folder / "trec" / "run.txt"
        peer = fastest_process(rounds, [sys.executable, "-c", trec.PEER, str(qrels), str(run)])
        started = fastest_process(rounds, start_up)
        fields = best(rounds, lambda: boundaries([qrels, run], 32))
        bound = started + fields
        print(
            f"{'trec':14} least work {bound:6.3f} s (start-up with NumPy {started:.3f} s + "
            f"line and field boundaries {fields:.3f} s), pytrec-eval-terrier {peer:.3f} s: "
            f"{peer / bound:4.2f}x at most before anything is scored (target: >= 3x)"
        )

        (folder / "codiesp").mkdir()
        ranking.generate(folder / "codiesp", 10_000)
        gold, pred, codes = (
            str(folder / "codiesp" / n) for n in ("gold.tsv", "pred.tsv", "codes.tsv")
        )
        peer = fastest_process(rounds, [sys.executable, "-c", ranking.PEER, gold, pred, codes])
        started = fastest_process(rounds, start_up)
        paths = [Path(gold), Path(pred), Path(codes)]
        fields = best(rounds, lambda: boundaries(paths, 9))
        bound = started + fields
        print(
            f"{'codiesp D':14} least work {bound:6.3f} s (start-up with NumPy {started:.3f} s + "
            f"line and field boundaries {fields:.3f} s), the peer {peer:.3f} s on 10,000 "
            f"documents: {peer / bound:4.2f}x at most before anything is scored (target: >= 10x)"
        )


if __name__ == "__main__":
    main()
