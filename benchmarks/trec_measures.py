"""``annoscore trec -m all_trec`` end to end against pytrec-eval-terrier on the same files.

Writes (seeded, as ``trec.py`` does) QUERIES queries x 100 retrieved documents and 50 judgements
per query, then times once each, in separate processes (start-up, reading and scoring included):

- ``annoscore trec QRELS RUN -m all_trec --format json``;
- a script that reads the same files with ``pytrec_eval.parse_qrel``/``parse_run`` and evaluates
  every measure pytrec_eval exposes that annoscore computes too (all of ``all_trec`` but
  ``relstring``, which is text; annoscore computes ``rbp`` and ``unj`` on top, which
  pytrec_eval lacks).

It checks that the means of ``map``, ``P_10``, ``ndcg_cut_10``, ``bpref`` and ``recip_rank``
agree (1e-9) and prints wall and CPU time (user + system), peak memory and the ratio; with
``--rounds N``, the medians of N alternating rounds (the machine is shared: compare CPU)::

    python benchmarks/trec_measures.py                   # 10,000 and 100,000 queries
    python benchmarks/trec_measures.py --queries 10000 --rounds 5

Figures (2 cores): quiet, 10,000 queries 0.64 s wall / 0.71 s CPU against 1.58 / 1.68 s
(2.47x wall, 2.38x CPU), 100,000 queries 3.01x wall.  Measured on a loaded machine (load 7-12,
CPU time comparable, wall not), after the reader's changes of issue 30's second pass (one word
per number field when it fits, the tag field compared as words, regular pieces seen without
counting their newlines): 10,000 queries 0.82 s CPU (median of 15, alternating) against 0.84 s
before (paired difference: median 0.02 s, mean 0.04 s); pytrec-eval-terrier 1.6-1.8 s CPU;
100,000 queries 5.4 s CPU against 6.5 s before (one run each) and 17.8-19.6 s.

Where the time goes at 10,000 queries (quiet): start-up 0.13-0.15 s (NumPy's import alone is
75 ms; typer; annoscore's own modules about 25 ms, most of it dataclass creation), reading
0.25 s (``formats.trec``: per 512 KiB piece the token bounds, the query runs, the document
words, the scores), the join 0.06 s (``align.trec.judge``: a stable sort of the 1.5 million
keys is 30 ms), the measures 0.11 s (``metrics.ranking_measures``), the rest (the chunks'
reduce, JSON) a few tens of ms.  3x at 10,000 queries needs about 0.53 s wall.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import installed
from processes import Measured, annoscore_command, measured
from trec import generate

PEER = r"""
import json, sys, pytrec_eval
with open(sys.argv[1]) as f: qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
measures = set(pytrec_eval.supported_measures) - {"relstring", "runid"}
per = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
names = ("map", "P_10", "ndcg_cut_10", "bpref", "recip_rank")
print(json.dumps({n: sum(v[n] for v in per.values()) / len(per) for n in names}))
"""
CHECKED = ("map", "P_10", "ndcg_cut_10", "bpref", "recip_rank")


def _median(runs: list[Measured]) -> Measured:
    return Measured(
        statistics.median(r.seconds for r in runs),
        statistics.median(r.cpu for r in runs),
        max(r.peak_mb for r in runs),
        runs[-1].stdout,
    )


def one(queries: int, rounds: int = 1) -> bool:
    folder = Path(tempfile.mkdtemp(prefix="annoscore-trec-measures-"))
    try:
        generate(folder, queries)
        qrels, run = str(folder / "qrels.txt"), str(folder / "run.txt")
        ours_cmd = [*annoscore_command(), "trec", qrels, run, "-m", "all_trec"]
        commands = {
            "ours": [*ours_cmd, "--format", "json"],
            "peer": [sys.executable, "-c", PEER, qrels, run],
        }
        runs: dict[str, list[Measured]] = {"ours": [], "peer": []}
        for round_number in range(rounds):
            for name in ("ours", "peer") if round_number % 2 == 0 else ("peer", "ours"):
                runs[name].append(measured(commands[name]))
        ours, peer = _median(runs["ours"]), _median(runs["peer"])
        scores = json.loads(ours.stdout)["scores"]
        theirs = json.loads(peer.stdout)
        agree = all(abs(scores[n] - theirs[n]) < 1e-9 for n in CHECKED)
        size = Path(run).stat().st_size / 1e6
        print(
            f"{queries:,} queries x 100 retrieved ({size:.0f} MB run), -m all_trec"
            + (f", median of {rounds} alternating rounds:" if rounds > 1 else ":")
        )
        print(
            f"  annoscore trec       {ours.seconds:6.2f} s wall  {ours.cpu:6.2f} s CPU  "
            f"{ours.peak_mb:6.0f} MB"
        )
        print(
            f"  pytrec-eval-terrier  {peer.seconds:6.2f} s wall  {peer.cpu:6.2f} s CPU  "
            f"{peer.peak_mb:6.0f} MB"
        )
        print(
            f"  means agree ({', '.join(CHECKED)}): {agree}; annoscore is "
            f"{peer.seconds / ours.seconds:.2f}x pytrec-eval-terrier (wall), "
            f"{peer.cpu / ours.cpu:.2f}x (CPU)"
        )
        return agree
    finally:
        shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, action="append", help="default: 10000, 100000")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds (median)")
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    results = [one(n, args.rounds) for n in args.queries or [10_000, 100_000]]
    if not all(results):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
