"""CodiEsp-D MAP end to end from files: ``annoscore codiesp D`` against pytrec-eval-terrier.

Writes (seeded) DOCS documents x 100 ranked predictions, about 10 of them relevant, as CodiEsp
TSV files (gold, predictions, valid codes), then times in separate processes, each from the same
files and each including its start-up, parsing and dictionary building:

- ``annoscore codiesp D --gold G --pred P --codes C --format json``;
- a script that reads the same files the way the official script does (lower-cased codes,
  duplicates dropped, invalid codes dropped, line order as rank), builds pytrec_eval's qrel and run
  dicts, and evaluates ``map``.

It checks that both MAPs agree (to 1e-9) and prints wall time, peak memory (``/usr/bin/time -v``
when present, else ``resource``), and the ratio.  Usage::

    python benchmarks/ranking.py            # 100,000 documents (about 340 MB of predictions)
    python benchmarks/ranking.py --docs 10000
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def timed(command: list[str]) -> tuple[float, float, str]:
    """(seconds, peak MB, stdout) of a subprocess."""
    time_tool = shutil.which("time") or (
        "/usr/bin/time" if Path("/usr/bin/time").exists() else None
    )
    full = [time_tool, "-v", *command] if time_tool else command
    start = time.perf_counter()
    done = subprocess.run(full, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr}")
    peak = float("nan")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if found:
        peak = int(found.group(1)) / 1024
    return seconds, peak, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="Write the data here and keep it.")
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
    ours_s, ours_mb, ours_out = timed(ours_cmd)
    peer_s, peer_mb, peer_out = timed([sys.executable, "-c", PEER, gold, pred, codes])
    ours_map = json.loads(ours_out)["scores"]["map"]
    peer_map = float(peer_out.strip())
    agree = abs(ours_map - peer_map) < 1e-9
    print(
        f"data: {args.docs:,} documents x 100 predictions "
        f"({Path(pred).stat().st_size / 1e6:.0f} MB)"
    )
    print(f"annoscore codiesp D   {ours_s:7.2f} s  {ours_mb:7.0f} MB  MAP {ours_map:.10f}")
    print(f"pytrec-eval-terrier   {peer_s:7.2f} s  {peer_mb:7.0f} MB  MAP {peer_map:.10f}")
    print(f"MAPs agree: {agree}; annoscore is {peer_s / ours_s:.1f}x faster end to end")
    if not args.keep:
        shutil.rmtree(folder)
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
