"""Time ``annoscore pharmaconer ner --codalab`` end to end on the CodaLab test data (250 documents).

Target (issue 2): under one second, interpreter start-up included.  Each run is a fresh process,
exactly as a user would type it; the script prints the median and the slowest of five runs, and
checks the output against the official ``scores.txt``.

    python benchmarks/pharmaconer.py [--runs 5]
    python benchmarks/pharmaconer.py --docs 2500   # 10x: each document copied 10 times

``--docs N`` (a multiple of 250) copies every document N / 250 times under new names (gold and
system alike): the counts grow N / 250 times and the micro scores stay what they were, so the
output must still equal ``scores.txt``; the time per document should stay flat.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import installed
from processes import measured

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "pharmaconer" / "codalab" / "subtask1"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--docs", type=int, default=250, help="documents: a multiple of the 250 CodaLab ones"
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    if not DATA.exists():
        print(f"conformance data not found at {DATA}", file=sys.stderr)
        return 2
    if args.docs < 250 or args.docs % 250:
        parser.error("--docs must be a multiple of 250")
    with tempfile.TemporaryDirectory() as scratch:
        ref, res = DATA / "input" / "ref" / "subtask1", DATA / "input" / "res" / "subtask1"
        if args.docs != 250:
            ref, res = (
                replicate(ref, Path(scratch) / "ref", args.docs // 250),
                replicate(res, Path(scratch) / "res", args.docs // 250),
            )
        return timed(ref, res, args.docs, args.runs)


def replicate(folder: Path, into: Path, copies: int) -> Path:
    """``into`` holding ``copies`` copies of every file of ``folder`` (``NAME-k.ann``, ...)."""
    into.mkdir(parents=True)
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        for k in range(copies):
            (into / f"{path.stem}-{k}{path.suffix}").write_bytes(data)
    return into


def timed(ref: Path, res: Path, documents: int, runs: int) -> int:
    """Time ``runs`` fresh processes of the command on ``ref`` and ``res`` (wall seconds and
    peak memory, :func:`processes.measured`); 1 if an output differs from the official
    ``scores.txt`` or, on the 250 CodaLab documents themselves, a run takes a second or more."""
    exe = shutil.which("annoscore")
    command = [exe] if exe else [sys.executable, "-m", "annoscore"]
    command += ["pharmaconer", "ner", str(ref), str(res), "--codalab"]
    expected = (DATA / "output" / "scores.txt").read_text()
    times, peak = [], 0.0
    for _ in range(runs):
        run = measured(command)
        times.append(run.seconds)
        peak = max(peak, run.peak_mb)
        if run.stdout != expected:
            print(f"output differs from the official scores.txt:\n{run.stdout}", file=sys.stderr)
            return 1
    median, worst = statistics.median(times), max(times)
    print(f"pharmaconer ner --codalab, {documents:,} documents, {runs} fresh processes")
    print(
        f"  median {median:.3f} s ({1000 * median / documents:.2f} ms per document), slowest "
        f"{worst:.3f} s, peak {peak:.0f} MB; output == scores.txt"
        + (" (target: under 1 s)" if documents == 250 else "")
    )
    return 0 if documents != 250 or worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
