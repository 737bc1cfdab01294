"""Time ``annoscore pharmaconer ner --codalab`` end to end on the CodaLab test data (250 documents).

Target (issue 2): under one second, interpreter start-up included.  Each run is a fresh process,
exactly as a user would type it; the script prints the median and the slowest of five runs, and
checks the output against the official ``scores.txt``.

    python benchmarks/pharmaconer.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import installed

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "pharmaconer" / "codalab" / "subtask1"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    if not DATA.exists():
        print(f"conformance data not found at {DATA}", file=sys.stderr)
        return 2
    exe = shutil.which("annoscore")
    command = [exe] if exe else [sys.executable, "-m", "annoscore"]
    command += [
        "pharmaconer",
        "ner",
        str(DATA / "input" / "ref" / "subtask1"),
        str(DATA / "input" / "res" / "subtask1"),
        "--codalab",
    ]
    expected = (DATA / "output" / "scores.txt").read_text()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - start)
        if done.stdout != expected:
            print("output differs from the official scores.txt:\n" + done.stdout, file=sys.stderr)
            return 1
    median, worst = statistics.median(times), max(times)
    print(f"pharmaconer ner --codalab, 250 documents, {args.runs} fresh processes")
    print(f"  median {median:.3f} s, slowest {worst:.3f} s (target < 1 s); output == scores.txt")
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
