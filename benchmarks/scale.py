"""Scale (issue 31): ``--jobs`` speed-up, time per document and peak memory as the corpus grows,
and the same run on a two-worker Dask ``LocalCluster``; whole processes, files in, JSON out.

Data (seeded, generated here, in a temporary folder): brat folders of N documents (gold ``.ann``
with its ``.txt``, system ``.ann``), ``--spans`` gold spans per document of 4 types; predictions
copy 80% of the gold spans, shift 10% by one character, drop 10% and add 2 spurious spans.

For each size, alternating in rounds: ``python -m annoscore spans GOLD SYSTEM --mode M -f json
-o OUT`` with ``--jobs 1``, ``--jobs 2`` (and ``--dask local`` with ``--dask``).  Reported: wall
seconds (median of the rounds), CPU seconds (user + system of the process and of the worker
processes it waited for, ``os.wait4``), peak resident memory (``ru_maxrss`` of ``os.wait4``: the
largest of the process and its reaped workers; Dask's workers are not its children and are not
counted), microseconds per document, the ``--jobs 2`` speed-up (wall of 1 / wall of 2), and
whether every output is byte-identical to ``--jobs 1``'s (asserted).

    python benchmarks/scale.py --documents 2000 20000 --rounds 3 [--dask] [--mode strict]

Only ``spans`` on folders is cut into chunks today (:mod:`annoscore.scale`); other tasks run as
one chunk whatever ``--jobs`` says, so they are not timed here.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TYPES = ("Drug", "Gene", "Dose", "Route")
WORDS = ("aspirina", "dosis", "de", "mg", "el", "gen", "BRCA1", "oral", "cada", "horas")


def write_corpus(root: Path, documents: int, spans: int, seed: int = 31) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    for d in range(documents):
        words = [rng.choice(WORDS) for _ in range(spans * 3)]
        text = " ".join(words)
        starts, at = [], 0
        for w in words:
            starts.append(at)
            at += len(w) + 1
        g_lines, p_lines = [], []
        for n in range(spans):
            k = 3 * n + 1
            s, e, kind = starts[k], starts[k] + len(words[k]), rng.choice(TYPES)
            g_lines.append(f"T{n + 1}\t{kind} {s} {e}\t{text[s:e]}")
            roll = rng.random()
            if roll < 0.8:
                p_lines.append(f"T{n + 1}\t{kind} {s} {e}\t{text[s:e]}")
            elif roll < 0.9:
                p_lines.append(f"T{n + 1}\t{kind} {s} {e - 1}\t{text[s : e - 1]}")
        for m in range(2):
            k = 3 * rng.randrange(spans)
            s, e = starts[k], starts[k] + len(words[k])
            p_lines.append(f"T{spans + m + 1}\t{rng.choice(TYPES)} {s} {e}\t{text[s:e]}")
        name = f"doc{d:08d}"
        (gold / f"{name}.ann").write_text("\n".join(g_lines) + "\n", encoding="utf-8")
        (gold / f"{name}.txt").write_text(text, encoding="utf-8")
        (system / f"{name}.ann").write_text("\n".join(p_lines) + "\n", encoding="utf-8")
    return gold, system


def run(args: list[str], out: Path) -> tuple[float, float, float, bytes]:
    """Wall and CPU seconds, peak memory (MB) and the output of one whole process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "annoscore", *args, "-f", "json", "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read() if process.stderr else b""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"annoscore failed ({process.returncode}): {stderr.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", default="strict")
    parser.add_argument("--dask", action="store_true", help="also --dask local")
    options = parser.parse_args()
    settings = [("--jobs 1", ["--jobs", "1"]), ("--jobs 2", ["--jobs", "2"])]
    if options.dask:
        settings.append(("--dask local", ["--dask", "local"]))
    print(f"cores: {len(os.sched_getaffinity(0))}; {options.spans} gold spans per document; "
          f"mode {options.mode}; medians of {options.rounds} rounds")  # fmt: skip
    print("| documents | run | wall s | CPU s | peak MB | us/doc (wall) | speed-up vs --jobs 1 |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for documents in options.documents:
        with tempfile.TemporaryDirectory(prefix="annoscore-scale-") as folder:
            root = Path(folder)
            gold, system = write_corpus(root, documents, options.spans)
            base = ["spans", str(gold), str(system), "--mode", options.mode]
            figures: dict[str, list[tuple[float, float, float]]] = {n: [] for n, _ in settings}
            reference: bytes | None = None
            run([*base, "--jobs", "1"], root / "warm.json")  # page cache and imports warm
            for _ in range(options.rounds):
                for name, extra in settings:
                    wall, cpu, peak, output = run([*base, *extra], root / "out.json")
                    if reference is None:
                        reference = output
                    assert output == reference, f"{name} differs from --jobs 1"
                    figures[name].append((wall, cpu, peak))
            one = statistics.median(w for w, _, _ in figures["--jobs 1"])
            for name, _ in settings:
                wall = statistics.median(w for w, _, _ in figures[name])
                cpu = statistics.median(c for _, c, _ in figures[name])
                peak = max(p for _, _, p in figures[name])
                print(
                    f"| {documents:,} | {name} | {wall:.2f} | {cpu:.2f} | {peak:.0f} "
                    f"| {wall / documents * 1e6:.0f} | {one / wall:.2f}x |"
                )


if __name__ == "__main__":
    main()
