"""Start-up: ``annoscore --help`` and a sub-command's help, as separate processes.

Every timing a user feels includes interpreter start-up and imports, so ``annoscore --help`` must
stay under 150 ms (issue: read at the speed of the disk).  The root command group imports no
command module (``annoscore.cli.COMMANDS`` names them; a module is imported when its command
runs), and no command imports numpy, scipy or nltk before it needs them.

Run: ``python benchmarks/startup.py [--runs 10]``.  Prints the median and the fastest of the runs
for bare Python, ``annoscore --help``, ``annoscore spans --help`` and ``annoscore trec`` on the
sample files, and the ratio to the 150 ms target.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import installed

TARGET = 0.150


def timed(args: list[str], runs: int) -> tuple[float, float]:
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        seconds.append(time.perf_counter() - began)
    return statistics.median(seconds), min(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    runs = args.runs
    installed.compile_package(bytecode=not args.no_bytecode)
    samples = Path(__file__).resolve().parents[1] / "src" / "annoscore" / "samples"
    python = sys.executable
    rows = {
        "python -c pass": [python, "-c", "pass"],
        "annoscore --help": [python, "-m", "annoscore", "--help"],
        "annoscore spans --help": [python, "-m", "annoscore", "spans", "--help"],
        "annoscore trec (sample)": [
            *(python, "-m", "annoscore", "trec"),
            *(str(samples / "trec/qrels.txt"), str(samples / "trec/run.txt")),
        ],
    }
    print(f"python {sys.version.split()[0]} ({python}), {runs} runs each")
    for name, args in rows.items():
        median, fastest = timed(args, runs)
        print(f"  {name:<26} median {median * 1000:6.1f} ms   fastest {fastest * 1000:6.1f} ms")
        if name == "annoscore --help":
            verdict = "met" if median < TARGET else "NOT met"
            print(f"  {'':<26} target {TARGET * 1000:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
