"""Two installs of annoscore, before and after a change, on the same machine in one run: each
README command end to end (a separate process, files in, report out), the two alternating,
median wall time, CPU time and peak memory of each, and the CPU ratio after/before.

    python benchmarks/installs.py --generate DATA             # once: the generated files
    python benchmarks/installs.py DATA OLD/bin/annoscore NEW/bin/annoscore [--rounds 5] [--only muc]

Compile both installs to bytecode first (an editable install on a machine that sets
``PYTHONDONTWRITEBYTECODE`` compiles every module it imports in every process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import are
import coref
import muc
import ranking
import spans
import trec
from processes import measured

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def cases(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    gen = GENERATE
    if gen:
        (root / "spans").mkdir()
        spans.write_brat(root / "spans", 4000, 50, 13)
    g, s = root / "spans" / "gold", root / "spans" / "system"
    out["spans strict, 4,000 docs"] = ["spans", str(g), str(s), "-f", "json"]
    out["spans semeval, 4,000 docs"] = ["spans", str(g), str(s), "--mode", "semeval", "-f", "json"]
    ref = SHARED / "pharmaconer" / "codalab" / "subtask1" / "input" / "ref" / "subtask1"
    res = SHARED / "pharmaconer" / "codalab" / "subtask1" / "input" / "res" / "subtask1"
    if ref.exists():
        out["pharmaconer ner --codalab, 250 docs"] = [
            "pharmaconer",
            "ner",
            str(ref),
            str(res),
            "--codalab",
        ]
    if gen:
        (root / "rank").mkdir()
        ranking.generate(root / "rank", 100_000)
    files = sorted((root / "rank").iterdir())
    names = {p.name: p for p in files}
    out["codiesp D, 100,000 docs"] = [
        "codiesp",
        "D",
        "--gold",
        str(names["gold.tsv"]),
        "--pred",
        str(names["pred.tsv"]),
        "--codes",
        str(names["codes.tsv"]),
        "-f",
        "json",
    ]
    if gen:
        (root / "trec").mkdir()
        trec.generate(root / "trec", 10_000)
    out["trec, 10,000 topics"] = [
        "trec",
        str(root / "trec" / "qrels.txt"),
        str(root / "trec" / "run.txt"),
        "-f",
        "json",
    ]
    if gen:
        (root / "coref").mkdir(exist_ok=True)
        coref.generate(root / "coref", 348)
    key, response = root / "coref" / "key.conll", root / "coref" / "response.conll"
    out["coref, 348 docs"] = ["coref", str(key), str(response), "-f", "json"]
    if gen:
        (root / "are").mkdir(exist_ok=True)
        are.generate(root / "are", 1000)
    paths = {p.stem: p for p in (root / "are").iterdir()}
    for task in ("1", "2", "3", "4"):
        out[f"are {task}, 1,000 docs"] = are._command(paths, task)[3:]
    for task in ("ne", "co"):
        folder = root / f"muc-{task}"
        if gen:
            folder.mkdir()
            muc.write_sgml(folder, task, 1000, 100 if task == "ne" else 60)
        out[f"muc {task}, 1,000 docs, all reports"] = [
            "muc",
            str(folder / "muc.config"),
            "@" + str(folder),
        ]
    return out


GENERATE = False


def main() -> None:
    global GENERATE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("old", nargs="?")
    parser.add_argument("new", nargs="?")
    parser.add_argument("--generate", action="store_true", help="write the files into DATA")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="the commands whose label holds this text")
    args = parser.parse_args()
    root, OLD, NEW, ROUNDS = args.data, args.old, args.new, args.rounds
    args_only = args.only
    if args.generate:
        GENERATE = True
        root.mkdir(parents=True)
        cases(root)
        return
    if OLD is None or NEW is None:
        parser.error("give the two annoscore executables")
    if True:
        commands = cases(root)
        head = f"{'before wall/cpu/MB':>26} {'after wall/cpu/MB':>26} {'after/before cpu':>8}"
        print(f"{'command':40} {head}")
        for label, args in commands.items():
            if args_only not in label:
                continue
            runs: dict[str, list[Any]] = {OLD: [], NEW: []}
            for _ in range(ROUNDS):
                for exe in (OLD, NEW):
                    if args[-1].startswith("@"):  # muc: the configuration names files in its folder
                        runs[exe].append(
                            measured([exe, *args[:-1], "-o", "scores"], cwd=Path(args[-1][1:]))
                        )
                    else:
                        runs[exe].append(measured([exe, *args, "-o", str(root / "out.txt")]))

            def med(rs: list[Any]) -> tuple[float, float, float]:
                return (
                    statistics.median(r.seconds for r in rs),
                    statistics.median(r.cpu for r in rs),
                    statistics.median(r.peak_mb for r in rs),
                )

            b, a = med(runs[OLD]), med(runs[NEW])
            before = f"{b[0]:8.2f}s {b[1]:6.2f}s {b[2]:7.0f}MB"
            after = f"{a[0]:8.2f}s {a[1]:6.2f}s {a[2]:7.0f}MB"
            print(f"{label:40} {before} {after} {a[1] / b[1]:7.2f}", flush=True)


main()
