"""CodiEsp-D MAP end to end from files: ``annoscore codiesp D`` against pytrec-eval-terrier.

Writes (seeded) DOCS documents x 100 ranked predictions, about 10 of them relevant, as CodiEsp
TSV files (gold, predictions, valid codes), then times in separate processes, each from the same
files and each including its start-up, parsing and dictionary building:

- ``annoscore codiesp D --gold G --pred P --codes C --format json``;
- a script that reads the same files the way the official script does (lower-cased codes,
  duplicates dropped, invalid codes dropped, line order as rank), builds pytrec_eval's qrel and run
  dicts, and evaluates ``map``.

It checks that both MAPs agree (to 1e-9) and prints the median wall and CPU time (user + system)
of ``--rounds`` alternating rounds after one warm-up run each, the peak memory of each process
(``os.wait4``), and the ratios.  Both run with bytecode caches (see ``installed.py``).
Usage::

    python benchmarks/ranking.py            # 100,000 documents (about 340 MB of predictions)
    python benchmarks/ranking.py --docs 10000

The figures are in the README's Speed section.  What bounds it at 100,000 documents (CPU): ~0.2 s
start-up, ~1.1 s reading the 10 million lines (``formats.codiesp_scan._scan_code_rows``: 1 MB chunks
in numpy, ``formats.words`` gathers, codes in an exact table of 64-bit words, each file read
once), ~1.2 s ``metrics.ranked_codes.rank_codes`` (a stable argsort of the 10 million
(document, code) keys alone takes 0.55 s), ~0.15 s indexing (``align.codes``: the codes as
written put on the valid-code vocabulary, per distinct code); at 10,000 documents start-up
(interpreter, numpy, typer: ~0.2 s) is half of the run, so 10x there is out of reach.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from processes import Measured, measured

PEER = r"""
import sys, pytrec_eval
gold, pred, codes = sys.argv[1:4]
valid = set()
with open(codes, encoding="utf-8") as f:
    for line in f:
        valid.add(line.split("\t", 1)[0].strip().lower())
qrel = {}
with open(gold, encoding="utf-8") as f:
    for line in f:
        doc, code = line.rstrip("\n").split("\t")
        qrel.setdefault(doc, {})[code.lower()] = 1
run = {}
with open(pred, encoding="utf-8") as f:
    for line in f:
        doc, code = line.rstrip("\n").split("\t")
        code = code.lower()
        if code not in valid:
            continue
        ranked = run.setdefault(doc, {})
        if code not in ranked:
            ranked[code] = float(-len(ranked))
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"map"})
per_query = evaluator.evaluate(run)
print(sum(v["map"] for v in per_query.values()) / len(per_query))
"""

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def generate(folder: Path, docs: int, per_doc: int = 100, relevant: int = 10) -> None:
    """Gold, predictions and valid codes; ids look like CodiEsp's (25 characters)."""
    rng = random.Random(20200930)
    codes = sorted(
        {
            f"{rng.choice(LETTERS)}{rng.randrange(100):02d}.{rng.randrange(1000)}"
            for _ in range(6000)
        }
    )
    (folder / "codes.tsv").write_text("".join(f"{c}\tes\ten\n" for c in codes), encoding="utf-8")
    with (
        (folder / "gold.tsv").open("w", encoding="utf-8") as gold,
        (folder / "pred.tsv").open("w", encoding="utf-8") as pred,
    ):
        for i in range(docs):
            doc = f"S{i % 10000:04d}-0614200600{i:07d}-{i % 9 + 1}"
            ranked = rng.sample(codes, per_doc)
            answer = ranked[: relevant - 2] + rng.sample(codes, 2)  # 2 gold codes not predicted
            rng.shuffle(ranked)
            gold.write("".join(f"{doc}\t{c}\n" for c in answer))
            pred.write("".join(f"{doc}\t{c}\n" for c in ranked))


def installed_environment() -> dict[str, str]:
    """The timed processes' environment, annoscore's bytecode compiled (``installed.py``)."""
    import installed  # beside this script

    installed.compile_package()
    return dict(os.environ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="Write the data here and keep it.")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="annoscore-ranking-"))
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "pred.tsv").exists():
        print(f"generating {args.docs:,} documents x 100 predictions in {folder} ...", flush=True)
        generate(folder, args.docs)
    gold, pred, codes = (str(folder / n) for n in ("gold.tsv", "pred.tsv", "codes.tsv"))
    ours_cmd = [
        sys.executable,
        "-m",
        "annoscore",
        "codiesp",
        "D",
        "--gold",
        gold,
        "--pred",
        pred,
        "--codes",
        codes,
        "--format",
        "json",
    ]
    peer_cmd = [sys.executable, "-c", PEER, gold, pred, codes]
    environment = installed_environment()
    measured(ours_cmd, env=environment)  # warm-up: bytecode caches, file system cache
    measured(peer_cmd, env=environment)
    runs: dict[str, list[Measured]] = {"ours": [], "peer": []}
    for round_number in range(args.rounds):
        order = ["ours", "peer"] if round_number % 2 == 0 else ["peer", "ours"]
        for name in order:
            runs[name].append(measured(ours_cmd if name == "ours" else peer_cmd, env=environment))
    ours_s = statistics.median(r.seconds for r in runs["ours"])
    ours_cpu = statistics.median(r.cpu for r in runs["ours"])
    peer_s = statistics.median(r.seconds for r in runs["peer"])
    peer_cpu = statistics.median(r.cpu for r in runs["peer"])
    ours_mb, peer_mb = max(r.peak_mb for r in runs["ours"]), max(r.peak_mb for r in runs["peer"])
    ours_map = json.loads(runs["ours"][-1].stdout)["scores"]["map"]
    peer_map = float(runs["peer"][-1].stdout.strip())
    agree = abs(ours_map - peer_map) < 1e-9
    print(
        f"data: {args.docs:,} documents x 100 predictions "
        f"({Path(pred).stat().st_size / 1e6:.0f} MB); median of {args.rounds} alternating rounds"
    )
    print("                      wall s   CPU s  peak MB")
    print(f"annoscore codiesp D  {ours_s:7.2f} {ours_cpu:7.2f} {ours_mb:8.0f}  MAP {ours_map:.10f}")
    print(f"pytrec-eval-terrier  {peer_s:7.2f} {peer_cpu:7.2f} {peer_mb:8.0f}  MAP {peer_map:.10f}")
    print(
        f"MAPs agree: {agree}; annoscore is {peer_s / ours_s:.1f}x faster end to end "
        f"(wall), {peer_cpu / ours_cpu:.1f}x (CPU)"
    )
    if not args.keep:
        shutil.rmtree(folder)
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
