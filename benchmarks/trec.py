"""``annoscore trec`` end to end from files against pytrec-eval-terrier (C++) on the same files.

Writes (seeded) TOPICS topics x 100 retrieved documents and 50 judgments per topic, then times,
in separate processes and alternating runs, ``annoscore trec QRELS RUN --format json`` and a
script that reads the same files with ``pytrec_eval.parse_qrel``/``parse_run`` and evaluates
``map``.  Checks the MAPs agree (1e-9) and prints wall time, peak memory, CPU time (user +
system, the figure that other jobs on the machine disturb least) and the ratio; then,
labelled, the same two in this process (start-up excluded).  annoscore runs from compiled bytecode
as an installed package does (``installed.py``; ``--no-bytecode``: the environment as given)::

    python benchmarks/trec.py                 # 10,000 topics (1,000,000 run lines)
    python benchmarks/trec.py --docs 100000   # 10x
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from operator import attrgetter
from pathlib import Path

import installed
from processes import best, measured

PEER = r"""
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
per = pytrec_eval.RelevanceEvaluator(qrel, {"map"}).evaluate(run)
print(sum(v["map"] for v in per.values()) / len(per))
"""


def generate(folder: Path, topics: int, per_topic: int = 100, judged: int = 50) -> None:
    rng = random.Random(20201231)
    with (folder / "qrels.txt").open("w") as q, (folder / "run.txt").open("w") as r:
        for t in range(topics):
            qid = str(301 + t)
            docs = list(
                dict.fromkeys(f"DOC-{rng.randrange(10**8):08d}" for _ in range(2 * per_topic))
            )
            retrieved = docs[:per_topic]
            q.write(
                "".join(
                    f"{qid} 0 {d} {rng.choice((0, 0, 0, 1, 2))}\n" for d in rng.sample(docs, judged)
                )
            )
            scores = sorted((round(rng.random() * 20, 2) for _ in retrieved), reverse=True)
            r.write(
                "".join(
                    f"{qid} Q0 {d} {i} {s} runA\n"
                    for i, (d, s) in enumerate(zip(retrieved, scores, strict=False), 1)
                )
            )


def in_process(qrels: Path, run: Path, repeat: int) -> tuple[float, float]:
    """Best seconds of ``score_trec`` and of pytrec_eval's parse + evaluate, in this process."""
    import pytrec_eval

    from annoscore.tasks.trec import score_trec

    def peer() -> None:
        with qrels.open() as f:
            judged = pytrec_eval.parse_qrel(f)
        with run.open() as f:
            ranked = pytrec_eval.parse_run(f)
        pytrec_eval.RelevanceEvaluator(judged, {"map"}).evaluate(ranked)

    return best(lambda: score_trec(qrels, run), repeat), best(peer, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=10_000, help="topics")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    folder = Path(tempfile.mkdtemp(prefix="annoscore-trec-"))
    generate(folder, args.docs)
    qrels, run = str(folder / "qrels.txt"), str(folder / "run.txt")
    ours_cmd = [sys.executable, "-m", "annoscore", "trec", qrels, run, "--format", "json"]
    peer_cmd = [sys.executable, "-c", PEER, qrels, run]
    ours, peer = [], []
    for _ in range(args.repeat):  # alternating runs
        ours.append(measured(ours_cmd))
        peer.append(measured(peer_cmd))
    o, p = (min(runs, key=attrgetter("seconds")) for runs in (ours, peer))
    ours_map, peer_map = json.loads(o.stdout)["scores"]["map"], float(p.stdout)
    agree = abs(ours_map - peer_map) < 1e-9
    print(
        f"data: {args.docs:,} topics x 100 retrieved ({Path(run).stat().st_size / 1e6:.0f} MB run)"
    )
    print(
        f"annoscore trec        {o.seconds:6.2f} s  {o.peak_mb:6.0f} MB  MAP {ours_map:.10f}  "
        f"(best of {args.repeat}; CPU {min(m.cpu for m in ours):.2f} s)"
    )
    print(
        f"pytrec-eval-terrier   {p.seconds:6.2f} s  {p.peak_mb:6.0f} MB  MAP {peer_map:.10f}  "
        f"(CPU {min(m.cpu for m in peer):.2f} s)"
    )
    print(
        f"MAPs agree: {agree}; annoscore is {p.seconds / o.seconds:.2f}x "
        "pytrec-eval-terrier end to end"
    )
    ours_in, peer_in = in_process(Path(qrels), Path(run), args.repeat)
    print(
        f"in one process (start-up excluded, reading included): annoscore {ours_in:.2f} s, "
        f"pytrec-eval-terrier {peer_in:.2f} s: {peer_in / ours_in:.2f}x"
    )
    shutil.rmtree(folder)
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
