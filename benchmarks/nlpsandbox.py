"""Benchmark: ``annoscore nlpsandbox all`` against nlpsandbox-client 4.3.1's evaluation.

Data (seeded, generated here): ``--notes`` notes (default 20,000) with 30 gold annotations per
category in each of the six categories (3.6 million per file at the default size).  Texts are
drawn from small vocabularies (names, cities, dates, ids, phone numbers, symptoms), so they repeat
as PHI does in real notes; the prediction keeps 80% of the gold (10% with the end moved, 5% with
another type), and adds 10% spurious annotations.

Timed, each as a separate process from the same JSON files, median of ``--runs``:

- annoscore: ``annoscore nlpsandbox all --gold G --pred P --format json`` (every category,
  files read once);
- official: ``nlpsandboxclient.evaluation``, one evaluator per category as its
  ``evaluate-prediction`` command runs it (each reads both files), all six in one process.

The counts of every metric and category are checked equal (annoscore with ``--quotes official``;
the generated texts have no double quotes, so both quote modes give the same counts), then the
ratio is printed.

Run: ``python benchmarks/nlpsandbox.py`` (``--notes 2000`` for a quick run).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def generate(notes: int, folder: Path) -> tuple[Path, Path]:
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
                item = {"start": start, "length": len(text), "text": text, "confidence": 95.0}
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


def _timed(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold, pred = generate(args.notes, Path(tmp))
        size = (gold.stat().st_size + pred.stat().st_size) / 1e6
        print(f"{args.notes} notes x {PER_CATEGORY} annotations x 6 categories ({size:.0f} MB)")
        ours_cmd = [sys.executable, "-m", "annoscore", "nlpsandbox", "all", "--gold", str(gold),
                    "--pred", str(pred), "--format", "json", "--quotes", "official"]  # fmt: skip
        theirs_cmd = [sys.executable, "-c", OFFICIAL, str(gold), str(pred)]
        ours_times, theirs_times = [], []
        for _ in range(args.runs):
            t, ours_out = _timed(ours_cmd)
            ours_times.append(t)
            t, theirs_out = _timed(theirs_cmd)
            theirs_times.append(t)
        counts = json.loads(ours_out)["counts"]
        official = json.loads(theirs_out)
        for key, (tp, fp, fn) in official.items():
            category, metric = key.split(":")
            if category == "covid-symptom" and metric == "type":
                continue  # 4.3.1 has no covid-symptom evaluator: no official type level
            prefix = f"{category.replace('-', '_')}_{metric}_"
            ours = [counts[prefix + s] for s in ("tp", "fp", "fn")]
            assert ours == [tp, fp, fn], (key, ours, [tp, fp, fn])
        a, b = statistics.median(ours_times), statistics.median(theirs_times)
        print(f"counts equal: {len(official)} (category, metric) triples")
        print(f"annoscore nlpsandbox all : {a:8.2f} s")
        print(f"nlpsandbox-client 4.3.1  : {b:8.2f} s")
        print(f"ratio                    : {b / a:8.1f}x faster")


if __name__ == "__main__":
    main()
