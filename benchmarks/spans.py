"""Generic span scoring: annoscore (all modes) against nervaluate, from files and in memory.

Three parts (``--part files|dense|memory|all``):

- **files** (end to end, what a user runs): the data below written as brat files (gold ``.ann``
  with its ``.txt``, system ``.ann``; 4,000 documents by default), then whole processes, files
  in, report out, alternating: ``python -m annoscore spans GOLD SYSTEM --mode M -f json -o OUT``
  for every mode, against nervaluate fed by a plain brat reader (a loop that splits lines and
  fields, in the same interpreter), after one warm-up run of each.  Wall and CPU seconds (user +
  system; medians of the rounds), peak memory of each process (``os.wait4``) and the ratios;
  the SemEval counts and strict tp/fp/fn are checked against nervaluate's every round.
- **dense** (issue 15, item 7): one document of 5,000 gold and 5,000 predicted spans that all
  overlap each other (nested around one point), and a chain of sliding spans; every mode as a
  whole process (goal: under 5 s and 1 GB each).
- **memory** (in-memory figure, labelled as such): the comparison below from Python lists.

Data (seeded, generated here): 10,000 documents x 50 gold spans of 4 types, spans 2-12
characters long separated by gaps of 6-20 characters; each document has a text of random words
(for token mode).  Predictions, per gold span:

    70% exact copy          8% wrong type             8% shifted boundary, same type
     4% shifted + wrong type    10% missing
    plus 5 spurious spans per document in the gaps (touching no gold span).

A shifted boundary moves the start and/or the end by 1-2 characters and stays inside its gap, so
every prediction overlaps at most one gold span and every gold span at most one prediction.
On such data the matching is unique: nervaluate's greedy, order-dependent matching and
annoscore's one-to-one optimal matching pair the same spans, so the SemEval counts (COR, INC, PAR,
MIS, SPU of the strict, exact, partial and type schemes) must be identical, and annoscore's
``strict`` mode tp/fp/fn must equal nervaluate's strict COR / ACT-COR / POS-COR.  The benchmark
asserts all of that.  (Per-type numbers are not compared: nervaluate scores each type by
filtering both sides to that type, annoscore attributes a wrong-type pair to the gold type.)
nervaluate's ends are inclusive, so it is given ``end - 1``.

Timed, from the same Python lists of ``{"label", "start", "end"}`` dicts:

- nervaluate 1.2: ``Evaluator(gold, pred, tags, loader="dict").evaluate()`` (its four schemes,
  overall and per type);
- annoscore arrays: ``SpanCorpus.from_dicts`` then strict, exact, overlap, relaxed (+-2), token
  and semeval counts with micro, macro-by-type and macro-by-document scores and per-type tables;
- annoscore documents: the same six modes through :func:`count_spans` from ``AnnotatedDocument``
  objects (the path the command uses after reading brat files; building the objects is not
  timed).

Each round times every tool once, after a garbage collection, on the same in-memory data; the
agreement checks run every round.  The table shows the medians over the rounds and each round's
ratio is printed too.

Run: ``python benchmarks/spans.py [--part all] [--docs N] [--spans 50] [--seed 13]
[--rounds 3] [--dense 5000]``; ``--docs`` x10 shows how time and memory grow.

Latest figures (2 CPUs shared with other engineers' jobs; whole processes with bytecode caches,
see ``installed.py``):

- files, 4,000 documents x 50 spans, 3 rounds, medians (wall / CPU): nervaluate + plain reader
  6.90 s / 6.63 s (312 MB); ``annoscore spans`` strict 0.53 / 0.51 s (13.1x / 12.9x), exact
  0.53 / 0.52 (13.1x / 12.6x), overlap 0.55 / 0.55 (12.6x / 12.1x), relaxed 0.58 / 0.57
  (11.9x / 11.6x), token 0.66 / 0.56 (10.4x / 11.9x), semeval 0.68 / 0.68 (10.1x / 9.7x);
  110-116 MB.  Where a strict run's ~0.5 s goes (CPU): ~0.1 s interpreter and ``site``, ~0.1 s
  imports (numpy, typer), ~0.23 s reading 8,000 ``.ann`` and 4,000 ``.txt`` files (about 0.06 s
  of it system calls), ~0.06 s scoring, ~0.04 s averages and JSON (semeval: ~0.16 s, the
  per-document rows of ``Result.documents``).
- files, 40,000 documents (10x), 1 round: nervaluate 73.1 s / 2,979 MB; annoscore 5.1-7.0 s
  (10.5x-14.3x wall, 11.8x-16.5x CPU), 943 MB: time and memory per document flat or better.
- dense: 5,000 + 5,000 spans nested around one point, every mode 0.6-1.0 s except token
  2.3 s / 585 MB (each span touches up to 5,000 tokens); a chain of sliding spans 0.2-0.7 s;
  all under 5 s and 1 GB.
- memory, 10,000 documents, 1 round at load 5: nervaluate 57.5 s, annoscore arrays 1.09 s
  (52.7x).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TYPES = ("Chemical", "Disease", "Gene", "Species")
WORDS = ("alpha", "beta", "gamma", "delta", "x", "y2", "kappa", "omega", "mu", "nu")


def generate(
    n_docs: int, n_spans: int, seed: int
) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]], list[str]]:
    rnd = random.Random(seed)
    gold_docs: list[list[dict[str, Any]]] = []
    pred_docs: list[list[dict[str, Any]]] = []
    texts: list[str] = []
    for _ in range(n_docs):
        gold: list[dict[str, Any]] = []
        pred: list[dict[str, Any]] = []
        gaps: list[tuple[int, int]] = []
        position = rnd.randint(6, 20)
        for _ in range(n_spans):
            start, end = position, position + rnd.randint(2, 12)
            label = rnd.choice(TYPES)
            gold.append({"label": label, "start": start, "end": end})
            gap = rnd.randint(6, 20)
            gaps.append((end, end + gap))
            position = end + gap
            other = rnd.choice([t for t in TYPES if t != label])
            fate = rnd.random()
            if fate < 0.70:
                pred.append({"label": label, "start": start, "end": end})
            elif fate < 0.78:
                pred.append({"label": other, "start": start, "end": end})
            elif fate < 0.90:
                s = start + rnd.choice((-2, -1, 0, 1))
                e = end + rnd.choice((-1, 0, 1, 2))
                if (s, e) == (start, end):
                    e += 1
                e = max(e, s + 1)  # never a zero-length span (an input error in files)
                pred.append({"label": label if fate < 0.86 else other, "start": s, "end": e})
            # else: missing
        for gap_start, gap_end in rnd.sample(gaps, 5):  # spurious, inside a gap, clear of shifts
            s = gap_start + 3
            if gap_end - 3 - s >= 1:
                pred.append({"label": rnd.choice(TYPES), "start": s, "end": s + 1})
        rnd.shuffle(pred)
        length = position + 10
        words: list[str] = []
        size = 0
        while size < length:
            word = rnd.choice(WORDS)
            words.append(word)
            size += len(word) + 1
        texts.append(" ".join(words)[:length])
        gold_docs.append(gold)
        pred_docs.append(pred)
    return gold_docs, pred_docs, texts


def inclusive(docs: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    return [[{**e, "end": e["end"] - 1} for e in doc] for doc in docs]


def time_annoscore_arrays(
    gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]], texts: list[str]
) -> tuple[float, dict[str, Any], dict[str, float]]:
    """Total seconds (conversion included), the results, and the seconds of each stage."""
    from annoscore.align.span_modes import MatchOptions, SpanMode
    from annoscore.metrics.span_corpus import SpanCorpus
    from annoscore.metrics.spans import span_scores
    from annoscore.result import Result
    from annoscore.signature import Signature

    stages: dict[str, float] = {}
    began = time.perf_counter()
    corpus = SpanCorpus.from_dicts(gold, pred, texts)
    stages["from_dicts"] = time.perf_counter() - began
    options = MatchOptions(tolerance=2)
    results: dict[str, Any] = {}
    for mode in SpanMode:
        mode_began = time.perf_counter()
        table = corpus.table(mode, options)
        results[mode] = Result.from_counts(
            "spans", Signature.of("spans", mode=mode), table.matrix(corpus.doc_ids), span_scores
        )
        stages[mode] = time.perf_counter() - mode_began
    return time.perf_counter() - began, results, stages


def time_annoscore_documents(
    gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]], texts: list[str]
) -> tuple[float, dict[str, Any]]:
    from annoscore.align.span_modes import SpanMode
    from annoscore.model import AnnotatedDocument, Mention, Span
    from annoscore.tasks.spans import SpanOptions, count_spans

    def documents(side: list[list[dict[str, Any]]]) -> dict[str, AnnotatedDocument]:
        return {
            str(d): AnnotatedDocument(
                str(d),
                tuple(Mention(Span.of(e["start"], e["end"]), e["label"]) for e in doc),
                text=texts[d],
            )
            for d, doc in enumerate(side)
        }

    gold_docs, pred_docs = documents(gold), documents(pred)
    began = time.perf_counter()
    results: dict[str, Any] = {
        mode: count_spans(
            gold_docs,
            pred_docs,
            SpanOptions(mode=mode, tolerance=2 if mode is SpanMode.relaxed else 0),
        )
        for mode in SpanMode
    }
    return time.perf_counter() - began, results


def time_nervaluate(
    gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]]
) -> tuple[float, dict[str, Any]]:
    from nervaluate import Evaluator

    gold_inc, pred_inc = inclusive(gold), inclusive(pred)
    began = time.perf_counter()
    results = Evaluator(gold_inc, pred_inc, tags=list(TYPES), loader="dict").evaluate()
    return time.perf_counter() - began, results


def check_agreement(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """The shared numbers; returns the lines compared (raises on a difference)."""
    overall = theirs["overall"]
    counts = ours["semeval"].counts
    lines = []
    names = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
    for scheme, peer in names.items():
        result = overall[peer]
        theirs_row = (
            result.correct,
            result.incorrect,
            result.partial,
            result.missed,
            result.spurious,
        )
        ours_row = tuple(int(counts[f"{scheme}_{k}"]) for k in ("cor", "inc", "par", "mis", "spu"))
        if ours_row != theirs_row:
            raise AssertionError(f"{scheme}: annoscore {ours_row} != nervaluate {theirs_row}")
        if abs(ours["semeval"].scores[f"{scheme}_f1"] - result.f1) > 1e-12:
            raise AssertionError(f"{scheme} F1 differs")
        lines.append(f"  {scheme:8} COR/INC/PAR/MIS/SPU {ours_row} agree")
    strict = overall["strict"]
    tp_fp_fn = (strict.correct, strict.actual - strict.correct, strict.possible - strict.correct)
    ours_strict = tuple(int(ours["strict"].counts[k]) for k in ("tp", "fp", "fn"))
    if ours_strict != tp_fp_fn:
        raise AssertionError(f"strict tp/fp/fn {ours_strict} != nervaluate {tp_fp_fn}")
    lines.append(f"  strict mode tp/fp/fn {ours_strict} agree with nervaluate strict")
    return lines


def in_memory(args: argparse.Namespace) -> int:
    """The in-memory comparison (see the module doc), on ``args.docs`` documents."""
    gold, pred, texts = generate(args.docs, args.spans, args.seed)
    n_pred = sum(len(d) for d in pred)
    print(
        f"data: {args.docs} documents, {args.docs * args.spans} gold spans, {n_pred} predicted "
        f"(seed {args.seed}); {args.rounds} round(s), each timing every tool once"
    )
    import numpy  # imported before timing, as in any program using annoscore

    arrays_times: list[float] = []
    documents_times: list[float] = []
    peer_times: list[float] = []
    for round_number in range(args.rounds):
        gc.collect()  # every tool starts from the same heap: only the data is alive
        arrays_time, ours, stages = time_annoscore_arrays(gold, pred, texts)
        gc.collect()
        documents_time, ours_docs = time_annoscore_documents(gold, pred, texts)
        for mode, result in ours.items():
            if result.counts != ours_docs[mode].counts:
                raise AssertionError(f"{mode}: arrays and documents paths differ")
        del ours_docs
        gc.collect()
        peer_time, theirs = time_nervaluate(gold, pred)
        lines = check_agreement(ours, theirs)  # every round: raises on a difference
        if round_number == 0:
            for line in lines:
                print(line)
            print(
                "  micro F1: "
                + ", ".join(f"{m} {ours[m].scores.get('f1')}" for m in ours if m != "semeval")
            )
        del ours, theirs
        arrays_times.append(arrays_time)
        documents_times.append(documents_time)
        peer_times.append(peer_time)
        print(
            f"  round {round_number + 1}: nervaluate {peer_time:.2f} s, annoscore arrays "
            f"{arrays_time:.2f} s ({peer_time / arrays_time:.1f}x; "
            + ", ".join(f"{k} {v:.3f}" for k, v in stages.items())
            + f"), count_spans {documents_time:.2f} s"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"  python {platform.python_version()}, numpy {numpy.__version__}, "
        f"{os.cpu_count()} CPUs, load average {load:.2f} at the end"
    )
    peer, arrays, documents = (
        statistics.median(times) for times in (peer_times, arrays_times, documents_times)
    )
    print()
    print("| tool | what | seconds (median) | nervaluate / tool |")
    print("|---|---|---:|---:|")
    print(f"| nervaluate 1.2 | 4 schemes, overall + per type | {peer:.2f} | 1.0 |")
    print(
        f"| annoscore (arrays from the same dicts) | 6 modes (strict, exact, overlap, relaxed, "
        f"token, semeval), micro + macro + per type | {arrays:.2f} | {peer / arrays:.1f}x |"
    )
    print(
        f"| annoscore `count_spans` (AnnotatedDocuments) | same 6 modes | {documents:.2f} | "
        f"{peer / documents:.1f}x |"
    )
    return 0


# ------------------------------------------------------------------- end to end, from files

PEER_SCRIPT = """
import json, os, sys
from nervaluate import Evaluator

def read(folder):  # a plain brat reader: entity lines, tab fields, 'TYPE START END'
    docs = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ann"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            entities = []
            for line in handle.read().split("\\n"):
                if line.startswith("T"):
                    label, start, end = line.split("\\t")[1].split(" ")
                    entities.append({"label": label, "start": int(start), "end": int(end) - 1})
        docs[name[:-4]] = entities
    return docs

gold, pred = read(sys.argv[1]), read(sys.argv[2])
ids = sorted(set(gold) | set(pred))
tags = sorted({e["label"] for d in (*gold.values(), *pred.values()) for e in d})
overall = Evaluator(
    [gold.get(i, []) for i in ids], [pred.get(i, []) for i in ids], tags=tags, loader="dict"
).evaluate()["overall"]
out = {k: [v.correct, v.incorrect, v.partial, v.missed, v.spurious] for k, v in overall.items()}
with open(sys.argv[3], "w") as handle:
    json.dump(out, handle)
"""


def write_brat(folder: Path, n_docs: int, n_spans: int, seed: int) -> tuple[Path, Path]:
    """The generated corpus as brat files: ``gold/*.ann`` with their ``.txt``, ``system/*.ann``."""
    gold_docs, pred_docs, texts = generate(n_docs, n_spans, seed)
    for side, docs in (("gold", gold_docs), ("system", pred_docs)):
        (folder / side).mkdir()
        for d, doc in enumerate(docs):
            text = texts[d]
            lines = [
                f"T{k}\t{e['label']} {e['start']} {e['end']}\t{text[e['start'] : e['end']]}\n"
                for k, e in enumerate(doc, start=1)
            ]
            (folder / side / f"doc{d:06d}.ann").write_text("".join(lines), encoding="utf-8")
            if side == "gold":
                (folder / side / f"doc{d:06d}.txt").write_text(text, encoding="utf-8")
    return folder / "gold", folder / "system"


def run(
    command: list[str], environment: dict[str, str] | None = None
) -> tuple[float, float, float]:
    """Seconds (wall), CPU seconds (user + system) and peak resident megabytes of one process
    (:func:`processes.measured`; its output goes to the file the command names)."""
    from processes import measured  # beside this script

    done = measured(command, env=environment)
    return done.seconds, done.cpu, done.peak_mb


def annoscore_command(gold: Path, system: Path, mode: str, out: Path) -> list[str]:
    command = [sys.executable, "-m", "annoscore", "spans", str(gold), str(system)]
    command += ["--mode", mode, "-f", "json", "-o", str(out)]
    return command + (["--tolerance", "2"] if mode == "relaxed" else [])


def end_to_end(args: argparse.Namespace) -> int:
    """Whole processes from the same files: every mode of ``annoscore spans`` against
    nervaluate fed by a plain brat reader, alternating, medians of ``args.rounds`` rounds."""
    from annoscore.align.span_modes import SpanMode

    # concepts compares concept ids, which brat files without N lines do not carry
    modes = [m.value for m in SpanMode if m is not SpanMode.concepts]

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        gold, system = write_brat(folder, args.docs, args.spans, args.seed)
        size = sum(p.stat().st_size for p in folder.rglob("*")) / 1e6
        peer_script = folder / "peer.py"
        peer_script.write_text(PEER_SCRIPT, encoding="utf-8")
        print(
            f"end to end: {args.docs} brat documents x {args.spans} gold spans ({size:.0f} MB: "
            f"gold .ann + .txt, system .ann); {args.rounds} round(s), whole processes, "
            "alternating; python started directly"
        )
        times: dict[str, list[float]] = {m: [] for m in (*modes, "peer")}
        cpu: dict[str, list[float]] = {m: [] for m in times}
        memory: dict[str, float] = dict.fromkeys(times, 0.0)
        environment = installed_environment()

        def command_of(name: str) -> list[str]:
            out = folder / f"{name}.json"
            if name == "peer":
                return [sys.executable, str(peer_script), str(gold), str(system), str(out)]
            return annoscore_command(gold, system, name, out)

        for name in ("peer", "strict"):  # warm-up: bytecode caches, file system cache
            run(command_of(name), environment)
        for round_number in range(args.rounds):
            order = ["peer", *modes]
            if round_number % 2:
                order.reverse()
            for name in order:
                elapsed, seconds, peak = run(command_of(name), environment)
                times[name].append(elapsed)
                cpu[name].append(seconds)
                memory[name] = max(memory[name], peak)
            ours = json.loads((folder / "semeval.json").read_text())["counts"]
            theirs = json.loads((folder / "peer.json").read_text())
            names = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
            for scheme, peer_name in names.items():
                row = [ours[f"{scheme}_{k}"] for k in ("cor", "inc", "par", "mis", "spu")]
                if row != theirs[peer_name]:
                    raise AssertionError(
                        f"{scheme}: annoscore {row} != nervaluate {theirs[peer_name]}"
                    )
            strict = json.loads((folder / "strict.json").read_text())["counts"]
            cor, inc, par, mis, spu = theirs["strict"]
            if [strict["tp"], strict["fp"], strict["fn"]] != [
                cor,
                inc + par + spu,
                inc + par + mis,
            ]:
                raise AssertionError("strict tp/fp/fn differ from nervaluate's strict scheme")
            print(
                f"  round {round_number + 1}: "
                + ", ".join(f"{n} {times[n][-1]:.2f} s" for n in order)
                + "; SemEval counts and strict tp/fp/fn agree with nervaluate"
            )
    peer = statistics.median(times["peer"])
    peer_cpu = statistics.median(cpu["peer"])
    print()
    print(
        f"| command ({args.docs} docs x {args.spans} spans, files in, report out) "
        "| wall s (median) | CPU s (median) | peak MB | nervaluate + reader / annoscore "
        "(wall) | (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| nervaluate 1.2 + plain brat reader (4 schemes) | {peer:.2f} | {peer_cpu:.2f} "
        f"| {memory['peer']:.0f} | 1.0 | 1.0 |"
    )
    for mode in modes:
        ours_s = statistics.median(times[mode])
        ours_cpu = statistics.median(cpu[mode])
        extra = " --tolerance 2" if mode == "relaxed" else ""
        print(
            f"| `annoscore spans --mode {mode}{extra} -f json` | {ours_s:.2f} | {ours_cpu:.2f} | "
            f"{memory[mode]:.0f} | {peer / ours_s:.1f}x | {peer_cpu / ours_cpu:.1f}x |"
        )
    return 0


# --------------------------------------------------------------------- dense overlaps


def dense(args: argparse.Namespace) -> int:
    """Issue 15, item 7: one document of ``args.dense`` gold and as many predicted spans, all
    nested around one point (every gold span overlaps every prediction), two types; then a
    chain of sliding spans (each overlapping ~200 others).  Every mode as a whole process:
    seconds and peak memory (goal: under 5 s and 1 GB)."""
    from annoscore.align.span_modes import SpanMode

    # concepts compares concept ids, which brat files without N lines do not carry
    modes = [m.value for m in SpanMode if m is not SpanMode.concepts]

    n = args.dense
    shapes = {
        "nested": (
            [(k, 2 * n + 1 - k, "AB"[k % 2]) for k in range(1, n + 1)],
            [(k, 2 * n + 2 - k, "AB"[k % 3 % 2]) for k in range(1, n + 1)],
        ),
        "chain": (
            [(k, k + 100, "AB"[k % 2]) for k in range(n)],
            [(k + 1, k + 101, "AB"[k % 3 % 2]) for k in range(n)],
        ),
    }
    worst = (0.0, 0.0)
    print(f"dense overlaps: one document, {n} gold + {n} predicted spans (= {2 * n} spans)")
    print("| shape | mode | seconds | peak MB |")
    print("|---|---|---:|---:|")
    for shape, (gold_rows, pred_rows) in shapes.items():
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            text = "x " * (2 * n + 120)
            for side, rows in (("gold", gold_rows), ("system", pred_rows)):
                (folder / side).mkdir()
                lines = [f"T{i}\t{t} {s} {e}\t{text[s:e]}\n" for i, (s, e, t) in enumerate(rows, 1)]
                (folder / side / "d.ann").write_text("".join(lines), encoding="utf-8")
            (folder / "gold" / "d.txt").write_text(text, encoding="utf-8")
            for mode in modes:
                command = annoscore_command(
                    folder / "gold", folder / "system", mode, folder / "out.json"
                )
                elapsed, _, peak = run(command)
                worst = (max(worst[0], elapsed), max(worst[1], peak))
                print(f"| {shape} | {mode} | {elapsed:.2f} | {peak:.0f} |")
    print(f"slowest {worst[0]:.2f} s, largest {worst[1]:.0f} MB (goal: < 5 s and < 1 GB)")
    return 0 if worst[0] < 5 and worst[1] < 1024 else 1


def installed_environment() -> dict[str, str]:
    """The timed processes' environment, annoscore's bytecode compiled (``installed.py``)."""
    import installed  # beside this script

    installed.compile_package()
    return dict(os.environ)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("files", "memory", "dense", "all"), default="all")
    parser.add_argument(
        "--docs",
        type=int,
        default=None,
        help="documents (default: files 4,000, memory 10,000); x10 to see how time and memory grow",
    )
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--dense", type=int, default=5000, help="gold (and predicted) spans of the dense document"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of (annoscore, nervaluate); medians shown"
    )
    args = parser.parse_args()
    status = 0
    if args.part in ("files", "all"):
        status |= end_to_end(argparse.Namespace(**{**vars(args), "docs": args.docs or 4000}))
        print()
    if args.part in ("dense", "all"):
        status |= dense(args)
        print()
    if args.part in ("memory", "all"):
        status |= in_memory(argparse.Namespace(**{**vars(args), "docs": args.docs or 10_000}))
    return status


if __name__ == "__main__":
    sys.exit(main())
