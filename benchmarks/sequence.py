"""``annoscore seqeval`` and ``annoscore conlleval`` end to end against seqeval 1.2.2's
``classification_report`` on the same CoNLL tag file (issue 29).

Writes (seeded) SENTENCES sentences x 30 tokens, one ``token gold guess`` line each (IOB2 tags of
four types; the guess keeps 85% of the gold tags), then times, in separate processes and
alternating runs: ``annoscore seqeval FILE --format json`` (default mode), ``annoscore conlleval
FILE`` and a script that reads the file into seqeval's lists (sentences split at blank lines)
and prints ``classification_report(..., output_dict=True)`` as JSON.  The two reports must be
equal (per type, micro, macro, weighted: 1e-12), and conlleval's counts must equal seqeval's on
this IOB2 file (no S- or E- tag: the two read it alike).  Prints wall time, CPU time (user +
system: the figure other jobs disturb least), peak memory and the ratios of the same run; then,
labelled, the same work in this process (start-up excluded).  annoscore runs from compiled
bytecode as an installed package does (``installed.py``).  conlleval.pl itself is not timed:
it is not installed here.

Target (issue 29): >= 20x seqeval's ``classification_report`` end to end.  Not met: latest
figures (2 CPUs shared with other jobs; one run, best of 3; CPU seconds): seqeval 1.2.2 4.09 s,
``annoscore seqeval`` 0.52 s (7.8x), ``annoscore conlleval`` 0.42 s (9.6x), reports equal; in
one process (start-up excluded) 8.2x.  About 0.13-0.2 s of each annoscore process is the
interpreter and its imports, so 20x (0.2 s) would leave nothing for reading 3.2 MB and scoring
300,000 tokens.

Run: ``python benchmarks/sequence.py [--sentences 10000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path

import installed
from processes import measured

PEER = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from seqeval.metrics import classification_report
gold, pred, g, p = [], [], [], []
for line in open(sys.argv[1], encoding="utf-8"):
    fields = line.split()
    if not fields:
        if g:
            gold.append(g); pred.append(p); g, p = [], []
        continue
    g.append(fields[-2]); p.append(fields[-1])
if g:
    gold.append(g); pred.append(p)
report = classification_report(gold, pred, output_dict=True)
print(json.dumps({k: {m: float(v) for m, v in row.items()} for k, row in report.items()}))
"""

TYPES = ("PER", "LOC", "ORG", "MISC")


def generate(path: Path, sentences: int, tokens: int = 30) -> None:
    rng = random.Random(20240501)
    lines = []
    for _ in range(sentences):
        previous = "O"
        for t in range(tokens):
            r = rng.random()
            if r < 0.7:
                gold = "O"
            elif r < 0.85 or previous == "O":
                gold = "B-" + rng.choice(TYPES)
            else:
                gold = "I-" + previous[2:]
            guess = gold if rng.random() < 0.85 else rng.choice(("O", "B-PER", "I-LOC", "B-ORG"))
            lines.append(f"w{t} {gold} {guess}")
            previous = gold
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def in_process(path: Path, repeat: int) -> tuple[float, float]:
    """Best seconds of ``score_seqeval_file`` and of the peer's read + report, in this process."""
    import warnings

    from seqeval.metrics import classification_report

    from annoscore.tasks.seqeval import score_seqeval_file

    def peer() -> None:
        gold, pred, g, p = [], [], [], []
        for line in path.open(encoding="utf-8"):
            fields = line.split()
            if not fields:
                if g:
                    gold.append(g)
                    pred.append(p)
                    g, p = [], []
                continue
            g.append(fields[-2])
            p.append(fields[-1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            classification_report(gold, pred, output_dict=True)

    def best(call: Callable[[], object]) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        return min(times)

    return best(lambda: score_seqeval_file(path)), best(peer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    folder = Path(tempfile.mkdtemp(prefix="annoscore-sequence-"))
    path = folder / "tagged.txt"
    generate(path, args.sentences)
    commands = {
        "annoscore seqeval": [
            sys.executable,
            "-m",
            "annoscore",
            "seqeval",
            str(path),
            "-f",
            "json",
        ],
        "annoscore conlleval": [sys.executable, "-m", "annoscore", "conlleval", str(path)],
        "seqeval 1.2.2": [sys.executable, "-c", PEER, str(path)],
    }
    runs: dict[str, list] = {name: [] for name in commands}
    for _ in range(args.repeat):  # alternating runs
        for name, command in commands.items():
            runs[name].append(measured(command))
    best = {name: min(found, key=attrgetter("seconds")) for name, found in runs.items()}
    cpu = {name: min(m.cpu for m in found) for name, found in runs.items()}
    ours = json.loads(best["annoscore seqeval"].stdout)["seqeval"]
    theirs = json.loads(best["seqeval 1.2.2"].stdout)
    agree = ours.keys() == theirs.keys() and all(
        abs(ours[k][m] - v) <= 1e-12 for k, row in theirs.items() for m, v in row.items()
    )
    micro = theirs["micro avg"]
    gold = round(micro["support"])
    correct = round(micro["recall"] * micro["support"])
    guessed = round(correct / micro["precision"]) if micro["precision"] else 0
    conlleval_line = best["annoscore conlleval"].stdout.splitlines()[0]
    same = conlleval_line.endswith(
        f"with {gold} phrases; found: {guessed} phrases; correct: {correct}."
    )
    agree = agree and same
    print(f"data: {args.sentences:,} sentences x 30 tokens ({path.stat().st_size / 1e6:.1f} MB)")
    peer, peer_cpu = best["seqeval 1.2.2"], cpu["seqeval 1.2.2"]
    for name in commands:
        m = best[name]
        ratio = ""
        if name != "seqeval 1.2.2":
            ratio = f"  {peer.seconds / m.seconds:5.1f}x wall, {peer_cpu / cpu[name]:5.1f}x CPU"
        print(
            f"{name:22s} {m.seconds:6.2f} s wall  {cpu[name]:6.2f} s CPU  {m.peak_mb:5.0f} MB"
            f"{ratio}"
        )
    print(f"reports equal (per type, micro, macro, weighted): {agree}")
    print(f"conlleval's phrases are seqeval's on this IOB2 file: {same} ({conlleval_line})")
    ours_in, peer_in = in_process(path, args.repeat)
    print(
        f"in one process (start-up excluded, reading included): annoscore seqeval "
        f"{ours_in:.2f} s, seqeval {peer_in:.2f} s: {peer_in / ours_in:.1f}x"
    )
    shutil.rmtree(folder)
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
