"""Benchmark: ``annoscore nlpsandbox all`` against nlpsandbox-client 4.3.1's evaluation.

Data (seeded, generated here): ``--notes`` notes (default 20,000) with 30 gold annotations per
category in each of the six categories (3.6 million per file at the default size).  Texts are
drawn from small vocabularies (names, cities, dates, ids, phone numbers, symptoms), so they repeat
as PHI does in real notes; the prediction keeps 80% of the gold (10% with the end moved, 5% with
another type), and adds 10% spurious annotations.

Timed, each as a separate process from the same JSON files (wall time, the process's own CPU
time, user + system, and its peak RSS, measured by a small parent process):

- annoscore: ``annoscore nlpsandbox all --gold G --pred P --format json -o OUT`` (every
  category, files read once);
- official: ``nlpsandboxclient.evaluation``, one evaluator per category as its
  ``evaluate-prediction`` command runs it (each reads both files), all six in one process.

The official evaluation at 20,000 notes takes a long time (tens of minutes), so by default it is
timed on the first ``--official-notes`` notes of the same data (two sizes, files written as the
first N objects of the gold and prediction lists): both commands run on each subset, their counts
are checked equal, and the official time is extrapolated to ``--notes`` by the straight line
through the two sizes, only if the CPU time per note at the two sizes differs by less than 15%
(linear); the output says which figures are measured and which extrapolated.
``--official-notes all`` runs the official on the full files instead (measured, counts checked).

The counts of every metric and category are checked equal (annoscore with ``--quotes official``;
the generated texts have no double quotes, so both quote modes give the same counts).

Run: ``python benchmarks/nlpsandbox.py`` (``--notes 2000 --official-notes all`` for a quick
fully measured run; ``--data DIR`` keeps the generated files for the next run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import installed

SEED = 2021
PER_CATEGORY = 30
CATEGORIES = {
    "date": ("textDateAnnotations", "dateFormat", ["MM/DD/YYYY", "YYYY", ""]),
    "person": ("textPersonNameAnnotations", "personType", ["doctor", "patient"]),
    "location": ("textLocationAnnotations", "locationType", ["city", "state", "hospital", "zip"]),
    "id": ("textIdAnnotations", "idType", ["medical_record", "ssn", "account"]),
    "contact": ("textContactAnnotations", "contactType", ["phone", "email", "fax"]),
    "covid-symptom": ("textCovidSymptomAnnotations", "condition", ["fever", "cough"]),
}
FIRST = ["Jon", "Maria", "David", "Ann", "Wei", "Omar", "Li", "Sara", "O'Neil", "Kim"]
LAST = ["Smith", "Chen", "Garcia", "Nguyen", "Brown", "Khan", "Rossi", "Dr.Lee"]
CITIES = ["Boston, MA", "Seattle", "New York", "St. Louis", "Brigham Hospital", "02115", "WA"]
SYMPTOMS = ["fever", "dry cough", "shortness of breath", "can't smell", "fatigue"]


def _text(category: str, rnd: random.Random) -> str:
    if category == "date":
        return rnd.choice(
            [f"{rnd.randint(1, 12)}/{rnd.randint(1, 28)}/20{rnd.randint(10, 21)}", "Friday"]
        )
    if category == "person":
        return f"{rnd.choice(FIRST)} {rnd.choice(LAST)}" if rnd.random() < 0.6 else rnd.choice(LAST)
    if category == "location":
        return rnd.choice(CITIES)
    if category == "id":
        return f"MRN {rnd.randint(1000, 9999)}-{rnd.randint(10, 99)}"
    if category == "contact":
        return f"({rnd.randint(200, 999)}) 555-{rnd.randint(1000, 9999)}"
    return rnd.choice(SYMPTOMS)


def generate(notes: int) -> tuple[list[Any], list[Any]]:
    rnd = random.Random(SEED)
    gold, pred = [], []
    for n in range(notes):
        g_obj: dict[str, object] = {"annotationSource": {"resourceSource": {"name": f"i2b2/{n}"}}}
        p_obj: dict[str, object] = {"annotationSource": {"resourceSource": {"name": str(n)}}}
        for category, (array, field, types) in CATEGORIES.items():
            g_items, p_items = [], []
            starts = rnd.sample(range(0, 20 * PER_CATEGORY * 6), PER_CATEGORY)
            for start in starts:
                text = _text(category, rnd)
                item: dict[str, Any] = {"start": start, "length": len(text), "text": text,
                                        "confidence": 95.0}  # fmt: skip
                item[field] = rnd.choice(types)
                g_items.append(item)
                roll = rnd.random()
                if roll < 0.8:
                    p = dict(item)
                    if roll < 0.1:
                        p["length"] = max(0, p["length"] + rnd.choice([-3, -1, 1, 2]))
                    elif roll < 0.15:
                        p[field] = rnd.choice(types)
                    p_items.append(p)
                if rnd.random() < 0.1:
                    text = _text(category, rnd)
                    start = rnd.randrange(20 * PER_CATEGORY * 6)
                    p_items.append({"start": start, "length": len(text), "text": text,
                                    "confidence": 50.0, field: rnd.choice(types)})  # fmt: skip
            g_obj[array], p_obj[array] = g_items, p_items
        gold.append(g_obj)
        pred.append(p_obj)
    return gold, pred


def write(folder: Path, gold: list[Any], pred: list[Any]) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    g_path, p_path = folder / "gold.json", folder / "pred.json"
    g_path.write_text(json.dumps(gold))
    p_path.write_text(json.dumps(pred))
    return g_path, p_path


OFFICIAL = """
import json, sys
import nlpsandboxclient.evaluation as e

class CovidSymptomEvaluation(e.Evaluation):
    evaluation_type = "covid-symptom"
    annotation = "covid_symptom_annotations"
    col = "condition"
    post_path = "textCovidSymptomAnnotations"

seen = {}
def capture(self, tp, fp, fn, level, mode):
    name = {"token": "token_strict", "instance": "instance_" + mode}.get(level, "type")
    seen[self.evaluation_type + ":" + name] = [tp, fp, fn]
e.Evaluation.print_out = capture
classes = [e.DateEvaluation, e.PersonNameEvaluation, e.LocationEvaluation, e.IdEvaluation,
           e.ContactEvaluation, CovidSymptomEvaluation]
for cls in classes:
    ev = cls()
    ev.convert_dict(sys.argv[2], sys.argv[1])
    ev.eval()
print(json.dumps(seen))
"""


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    peak_mb: float
    stdout: str


MEASURE = """
import os, resource, subprocess, sys, time
started = time.perf_counter()
with open(sys.argv[1], "w") as out:
    code = subprocess.run(sys.argv[2:], stdout=out).returncode
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, code)
"""
"""Runs a command from a small process, so that its peak RSS is its own (a child forked from
this benchmark, which holds the generated data, would start with this process's RSS)."""


def _timed(command: list[str]) -> Run:
    """Run ``command``, timing it (wall, own CPU user + system) with its peak RSS."""
    with tempfile.TemporaryDirectory() as scratch:
        stdout = Path(scratch) / "stdout"
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, str(stdout), *command],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu, peak_kb, code = done.stdout.split()
        if int(code):
            raise SystemExit(f"failed ({code}): {' '.join(command)}")
        return Run(float(wall), float(cpu), int(peak_kb) / 1024, stdout.read_text())


def _ours(gold: Path, pred: Path, output: Path) -> list[str]:
    return [sys.executable, "-m", "annoscore", "nlpsandbox", "all", "--gold", str(gold),
            "--pred", str(pred), "--format", "json", "--quotes", "official",
            "-o", str(output)]  # fmt: skip


def _check(ours: dict[str, Any], official: dict[str, list[int]]) -> int:
    counts = ours["counts"]
    for key, (tp, fp, fn) in official.items():
        category, metric = key.split(":")
        if category == "covid-symptom" and metric == "type":
            continue  # 4.3.1 has no covid-symptom evaluator: no official type level
        prefix = f"{category.replace('-', '_')}_{metric}_"
        got = [counts[prefix + s] for s in ("tp", "fp", "fn")]
        assert got == [tp, fp, fn], (key, got, [tp, fp, fn])
    return len(official)


def _median(runs: list[Run]) -> Run:
    middle = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]
    return Run(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        max(r.peak_mb for r in runs),
        middle.stdout,
    )


def _line(label: str, run: Run) -> str:
    return f"{label:<44}{run.wall:9.2f} s wall {run.cpu:9.2f} s CPU {run.peak_mb:8.0f} MB peak"


def _both(folder: Path, gold: Path, pred: Path, runs: int, label: str) -> tuple[Run, Run]:
    """Both commands on one pair of files, counts checked equal; median of ``runs``."""
    ours_runs, theirs_runs = [], []
    for _ in range(runs):
        ours_runs.append(_timed(_ours(gold, pred, folder / "ours.json")))
        theirs_runs.append(_timed([sys.executable, "-c", OFFICIAL, str(gold), str(pred)]))
    ours, theirs = _median(ours_runs), _median(theirs_runs)
    checked = _check(json.loads((folder / "ours.json").read_text()), json.loads(theirs.stdout))
    print(_line(f"annoscore nlpsandbox all, {label}", ours))
    print(_line(f"nlpsandbox-client 4.3.1, {label}", theirs))
    print(f"  counts equal: {checked} (category, metric) triples; ratio "
          f"{theirs.wall / ours.wall:.1f}x wall, {theirs.cpu / ours.cpu:.1f}x CPU")  # fmt: skip
    return ours, theirs


def _extrapolated(root: Path, full: Path, notes: int, subsets: list[int], runs: int) -> None:
    """Both commands on the two subsets (measured, counts checked), annoscore on the full files,
    and the official extrapolated to the full size where its time per note is linear."""
    timed = []
    for n in subsets:
        folder = root / f"{notes}-first-{n}"
        if not (folder / "gold.json").exists():
            gold_list, pred_list = generate(notes)
            write(folder, gold_list[:n], pred_list[:n])
            del gold_list, pred_list
        timed.append(_both(folder, folder / "gold.json", folder / "pred.json", runs,
                           f"first {n} notes")[1])  # fmt: skip
    gold, pred = full / "gold.json", full / "pred.json"
    ours = _median([_timed(_ours(gold, pred, full / "ours.json")) for _ in range(runs)])
    print(_line(f"annoscore nlpsandbox all, {notes} notes", ours))
    (a, small), (b, large) = zip(subsets, timed, strict=True)
    estimate = {}
    for what in ("cpu", "wall"):
        t_a, t_b = getattr(small, what), getattr(large, what)
        spread = abs(t_b / b - t_a / a) / max(t_b / b, t_a / a)
        linear = spread < 0.15
        print(f"official {what} per note: {t_a / a * 1e3:.1f} ms at {a}, "
              f"{t_b / b * 1e3:.1f} ms at {b} notes: "
              f"{'linear' if linear else 'NOT linear'} ({spread:.0%} apart)")  # fmt: skip
        if linear:
            estimate[what] = t_a + (t_b - t_a) / (b - a) * (notes - a)
    if not estimate:
        print("no extrapolation: run with --official-notes all")
    for what, value in estimate.items():
        measured = getattr(ours, what)
        print(f"nlpsandbox-client 4.3.1, {notes} notes, EXTRAPOLATED {what}: {value:.0f} s "
              f"(line through the two measured sizes); ratio {value / measured:.1f}x "
              f"(annoscore measured: {measured:.2f} s)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", "--docs", type=int, default=20_000, help="notes (10x: 200000)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--official-notes",
        default="1000,2000",
        help="two subset sizes (first N notes) to time the official on and extrapolate, "
        "or 'all' to run it on the full files",
    )
    parser.add_argument("--data", type=Path, help="keep the generated files in this folder")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    subsets = (
        [] if args.official_notes == "all" else sorted(map(int, args.official_notes.split(",")))
    )
    if subsets and (len(subsets) != 2 or subsets[1] > args.notes or subsets[0] == subsets[1]):
        parser.error("--official-notes: two different sizes up to --notes, or 'all'")
    with tempfile.TemporaryDirectory() as scratch:
        root = args.data or Path(scratch)
        full = root / str(args.notes)
        if not (full / "gold.json").exists() or not (full / "pred.json").exists():
            gold_list, pred_list = generate(args.notes)
            write(full, gold_list, pred_list)
            for n in subsets:
                write(root / f"{args.notes}-first-{n}", gold_list[:n], pred_list[:n])
            del gold_list, pred_list
        gold, pred = full / "gold.json", full / "pred.json"
        size = (gold.stat().st_size + pred.stat().st_size) / 1e6
        print(f"{args.notes} notes x {PER_CATEGORY} annotations x 6 categories ({size:.0f} MB), "
              f"median of {args.runs} run(s); CPU = the process's user + system time")  # fmt: skip
        if subsets:
            _extrapolated(root, full, args.notes, subsets, args.runs)
        else:
            _both(full, gold, pred, args.runs, f"{args.notes} notes")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores: above ~1, wall times "
          "include waiting for a core; CPU times do not)")  # fmt: skip


if __name__ == "__main__":
    main()
