"""Generic span scoring: annoscore (all modes in one run) against nervaluate on the same data.

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
- annoscore documents: the same six modes through :func:`score_spans` from ``AnnotatedDocument``
  objects (the path the command uses after reading brat files; building the objects is not
  timed).

Each round times every tool once, after a garbage collection, on the same in-memory data; the
agreement checks run every round.  The table shows the medians over the rounds and each round's
ratio is printed too.

Run: ``python benchmarks/spans.py [--docs 10000] [--spans 50] [--seed 13] [--rounds 3]``
(about 1.5 minutes with 3 rounds).

Latest figures (2 CPUs shared with other jobs, load average ~1-1.5; 3 rounds): nervaluate
median 18.6 s, annoscore arrays 0.85 s (21.9x; rounds 19.8x-22.1x), ``score_spans`` 2.8 s
(6.6x).  Where annoscore's time goes: about 60% is ``from_dicts`` reading the ~950,000 dicts
(memory-bound: the predictions are shuffled within each document, so nearly every dict visit
misses the cache); the six modes together take about 0.3 s (strict 0.02, exact 0.04,
overlap 0.04, relaxed 0.03, token 0.09, semeval 0.05).  On this data no candidate pair is
ambiguous; on data where predictions overlap several gold spans, overlap and relaxed mode count
the ambiguous remainder with Hopcroft-Karp, while SemEval solves each ambiguous component
exactly and is much slower (seconds per 100,000 ambiguous pairs).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
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
    from annoscore.align.span_modes import CORPUS_MODES
    from annoscore.align.spans import MatchOptions
    from annoscore.metrics.spans import SpanCorpus, scorer_of
    from annoscore.result import Result
    from annoscore.signature import Signature

    stages: dict[str, float] = {}
    began = time.perf_counter()
    corpus = SpanCorpus.from_dicts(gold, pred, texts)
    stages["from_dicts"] = time.perf_counter() - began
    options = MatchOptions(tolerance=2)
    results: dict[str, Any] = {}
    for mode in CORPUS_MODES:
        mode_began = time.perf_counter()
        table = corpus.table(mode, options)
        results[mode] = Result.from_counts(
            "spans", Signature.of("spans", mode=mode), table.matrix(corpus.doc_ids), scorer_of(mode)
        )
        stages[mode] = time.perf_counter() - mode_began
    return time.perf_counter() - began, results, stages


def time_annoscore_documents(
    gold: list[list[dict[str, Any]]], pred: list[list[dict[str, Any]]], texts: list[str]
) -> tuple[float, dict[str, Any]]:
    from annoscore.align.span_modes import CORPUS_MODES
    from annoscore.model import AnnotatedDocument, Mention, Span
    from annoscore.tasks.spans import score_spans

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
        mode: score_spans(gold_docs, pred_docs, mode=mode, tolerance=2) for mode in CORPUS_MODES
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of (annoscore, nervaluate); medians shown"
    )
    args = parser.parse_args()

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
            + f"), score_spans {documents_time:.2f} s"
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
        f"| annoscore `score_spans` (AnnotatedDocuments) | same 6 modes | {documents:.2f} | "
        f"{peer / documents:.1f}x |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
