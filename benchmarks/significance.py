"""Benchmark: bootstrap intervals and the paired bootstrap on 10,000 documents, beside sacrebleu.

Data (seeded, generated here, in memory: reading is not timed): 10,000 documents, two systems
(a baseline and a slightly better one) over the same gold standard, as count matrices:

- *PharmaCoNER-style*: ``tp``, ``fp``, ``fn`` per document plus ``type:T:tp|fp|fn`` for 10 entity
  types (33 columns); scorer ``annoscore.metrics.prf:prf_scores`` (PharmaCoNER's);
- *coreference*: the numerators and denominators of mentions, MUC, B3, CEAFm, CEAFe, LEA and BLANC
  (32 columns, fractional numerators for B3, CEAFe and LEA); scorer
  ``annoscore.metrics.coref:coref_scores`` (22 scores).

Timed, best of 3 (each a fresh call):

1. ``bootstrap_intervals(result, samples=1000)``: percentile intervals of every score (target:
   under 1 s each);
2. ``paired_test(baseline, {system}, test="bootstrap", samples=1000)``: p-value, difference and
   interval of every score;
3. the peer, sacrebleu's paired bootstrap (``sacrebleu.significance._paired_bs_test``, the
   function behind ``sacrebleu --paired-bs``) on the *same* per-document statistics (a
   duck-typed metric hands sacrebleu the rows of the count matrix and scores their sums with the
   same scorer), for one score (F1, resp. the CoNLL score); sacrebleu indexes a
   (1000 x 10,000 x columns) float32 array and sums it, we multiply a weight matrix.

Both use seed 12345, so they draw the same resamples: the p-values are checked to agree (to
rounding: sacrebleu sums in float32).

Before those, the whole command, a fresh process, files in and report out (best of 3, with its
peak memory): ``annoscore compare pharmaconer-ner GOLD A B --format json`` on a generated
10,000-document brat corpus (4 PharmaCoNER types, about 5 entities per document; A misses 20% of
them, B 19%), beside ``annoscore pharmaconer ner GOLD A --format json`` (reading and scoring one
system) to show what the comparison adds.  sacrebleu has no command for brat files, so this part
has no peer.

Run: ``python benchmarks/significance.py`` (``--docs 100000 --part command``: the commands at 10x
the documents; time and peak memory should grow no faster than the documents).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from annoscore.metrics.coref import coref_scores
from annoscore.metrics.prf import prf_scores
from annoscore.result import CountMatrix, Result, Scorer
from annoscore.signature import Signature
from annoscore.significance import bootstrap_intervals, paired_test

DOCUMENTS = 10_000
"""Documents by default (``--docs``)."""
SAMPLES = 1000
SEED = 12345
TYPES = 10
REPEATS = 3
QUALITY = 0.621


def pharmaconer_matrices(
    rng: np.random.Generator, documents: int
) -> tuple[CountMatrix, CountMatrix]:
    """Per-type tp/fp/fn for two systems: gold items per type ~ Poisson(1.2), recall 0.80 /
    0.802, spurious items per type ~ Poisson(0.25 / 0.249): close, so the p-value is not tiny."""
    ids = [f"doc{d:05d}" for d in range(documents)]
    gold = rng.poisson(1.2, size=(documents, TYPES))
    out = []
    for recall, spurious in ((0.80, 0.25), (0.802, 0.249)):
        tp = rng.binomial(gold, recall)
        fp = rng.poisson(spurious, size=gold.shape)
        fn = gold - tp
        columns: dict[str, Any] = {"tp": tp.sum(1), "fp": fp.sum(1), "fn": fn.sum(1)}
        for t in range(TYPES):
            columns |= {f"type:T{t}:tp": tp[:, t], f"type:T{t}:fp": fp[:, t]}
            columns[f"type:T{t}:fn"] = fn[:, t]
        out.append(CountMatrix.from_columns(ids, columns, columns))
    return out[0], out[1]


CAUGHT = ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea")


def coref_matrices(rng: np.random.Generator, documents: int) -> tuple[CountMatrix, CountMatrix]:
    """Coreference numerators and denominators: per document ~60 key mentions in chains; the
    response's numerators are fractions of the denominators (0.62 / QUALITY on average)."""
    ids = [f"doc{d:05d}" for d in range(documents)]
    key_mentions = rng.poisson(60, documents) + 2
    response_mentions = key_mentions + rng.integers(-5, 6, documents)
    key_entities = np.maximum(1, key_mentions // 3)
    response_entities = np.maximum(1, response_mentions // 3)
    out = []
    for quality in (0.62, QUALITY):
        columns: dict[str, Any] = {}
        integer: list[str] = []
        for metric in CAUGHT:
            if metric in ("ceafe",):
                r_den, p_den = key_entities, response_entities
            elif metric == "muc":
                r_den, p_den = key_mentions - key_entities, response_mentions - response_entities
            else:
                r_den, p_den = key_mentions, response_mentions
            share = np.clip(rng.normal(quality, 0.1, documents), 0, 1)
            num = share * np.minimum(r_den, p_den)
            if metric in ("mentions", "muc", "ceafm"):
                num = np.floor(num)
                integer += [f"{metric}_recall_num", f"{metric}_precision_num"]
            integer += [f"{metric}_recall_den", f"{metric}_precision_den"]
            columns |= {
                f"{metric}_recall_num": num,
                f"{metric}_recall_den": r_den,
                f"{metric}_precision_num": num,
                f"{metric}_precision_den": p_den,
            }
        for part in ("coref", "noncoref"):
            links = key_mentions * (3 if part == "coref" else key_mentions // 2)
            answer = response_mentions * (3 if part == "coref" else response_mentions // 2)
            common = np.floor(np.clip(rng.normal(quality, 0.1, documents), 0, 1) * links)
            for side, den in (("recall", links), ("precision", answer)):
                columns[f"blanc_{part}_{side}_num"] = common
                columns[f"blanc_{part}_{side}_den"] = den
                integer += [f"blanc_{part}_{side}_num", f"blanc_{part}_{side}_den"]
        out.append(CountMatrix.from_columns(ids, columns, integer))
    return out[0], out[1]


class CountsMetric:
    """What sacrebleu's ``_paired_bs_test`` asks of a metric, over count-matrix rows.

    ``_extract_corpus_statistics`` returns the rows of the system named by the hypotheses (a list
    of ``NAME:doc`` strings); a score is ``scorer(counts of the summed row)[key]``.
    """

    class Score:
        def __init__(self, score: float) -> None:
            self.score = score

    def __init__(self, matrices: dict[str, CountMatrix], scorer: Scorer, key: str) -> None:
        self.rows = {name: m.values.tolist() for name, m in matrices.items()}
        self.template = next(iter(matrices.values()))
        self.scorer = scorer
        self.key = key

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> Any:
        return self.rows[hypotheses[0].partition(":")[0]]

    def _compute_score_from_stats(self, stats: Any) -> CountsMetric.Score:
        value = self.scorer(self.template.counts(np.asarray(stats, dtype=np.float64)))[self.key]
        return CountsMetric.Score(0.0 if value is None else value)

    def _aggregate_and_compute(self, stats: Any) -> CountsMetric.Score:
        return self._compute_score_from_stats(np.sum(stats, axis=0))


def _best(function: Callable[[], Any]) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def _plain(matrix: CountMatrix) -> CountMatrix:
    keep = [k for k, n in enumerate(matrix.names) if not n.startswith("type:")]
    return CountMatrix(
        matrix.documents,
        tuple(matrix.names[k] for k in keep),
        matrix.values[:, keep],
        tuple(matrix.integer[k] for k in keep),
    )


def bench(label: str, matrices: tuple[CountMatrix, CountMatrix], scorer: Scorer, key: str) -> None:
    from sacrebleu.significance import Result as SacreResult
    from sacrebleu.significance import _paired_bs_test

    signature = Signature.of(label)
    baseline, system = (Result.from_counts(label, signature, m, scorer) for m in matrices)
    print(
        f"\n{label}: {len(matrices[0].documents):,} documents, {len(matrices[0].names)} columns, "
        f"{len(baseline.scores)} scores, {SAMPLES} resamples"
    )

    seconds, intervals = _best(lambda: bootstrap_intervals(baseline, samples=SAMPLES, seed=SEED))
    low, high = intervals[key]
    verdict = "under 1 s" if seconds < 1 else "OVER 1 s"
    print(
        f"  bootstrap_intervals (every score)         {seconds:7.3f} s   ({verdict}); "
        f"{key} {baseline.scores[key]:.4f} [{low:.4f}, {high:.4f}]"
    )

    ours_seconds, comparison = _best(
        lambda: paired_test(baseline, {"system": system}, samples=SAMPLES, seed=SEED)
    )
    ours_p = comparison.systems["system"].p_value[key]
    print(
        f"  annoscore paired_test (every score)       {ours_seconds:7.3f} s   "
        f"p({key}) = {ours_p:.4f}"
    )

    plain = {"baseline": _plain(matrices[0]), "system": _plain(matrices[1])}
    metric = CountsMetric(plain, scorer, key)
    baseline_stats = metric.rows["baseline"]
    info = {key: (baseline_stats, SacreResult(metric._aggregate_and_compute(baseline_stats).score))}
    hypotheses = [f"system:{d}" for d in range(len(matrices[0].documents))]

    def sacre() -> Any:
        _, results = _paired_bs_test(
            info, "system", hypotheses, None, {key: metric}, n_samples=SAMPLES, seed=SEED
        )
        return results[key].p_value

    sacre_seconds, sacre_p = _best(sacre)
    label = f"sacrebleu _paired_bs_test ({key} only)"
    print(f"  {label:<42}{sacre_seconds:7.3f} s   p({key}) = {sacre_p:.4f}")
    agree = abs(ours_p - sacre_p) <= 2 / (SAMPLES + 1)
    print(
        f"  p-values agree (same draws, to rounding): {'yes' if agree else 'NO'}; "
        f"sacrebleu / annoscore = {sacre_seconds / ours_seconds:.1f}x"
    )
    if not agree:
        raise SystemExit(f"{label}: p-values differ: {ours_p} vs {sacre_p}")


BRAT_TYPES = ("NORMALIZABLES", "PROTEINAS", "NO_NORMALIZABLES", "UNCLEAR")


def write_brat_corpus(root: Path, documents: int) -> tuple[Path, Path, Path]:
    """Gold and two systems as brat folders of ``documents`` documents each."""
    rnd = random.Random(SEED)
    folders = [root / name for name in ("gold", "a", "b")]
    for folder in folders:
        folder.mkdir()
    for d in range(documents):
        words = [f"w{rnd.randrange(1000)}" for _ in range(rnd.randint(40, 120))]
        text = " ".join(words)
        starts = [0]
        for word in words[:-1]:
            starts.append(starts[-1] + len(word) + 1)
        chosen = sorted(rnd.sample(range(len(words)), rnd.randint(1, 9)))
        entities = [
            (rnd.choice(BRAT_TYPES), starts[i], starts[i] + len(words[i]), words[i]) for i in chosen
        ]
        for folder, miss in zip(folders, (0.0, 0.20, 0.19), strict=True):
            kept = [e for e in entities if rnd.random() >= miss]
            lines = [f"T{k}\t{t} {s} {e}\t{w}\n" for k, (t, s, e, w) in enumerate(kept, 1)]
            (folder / f"doc{d:05d}.txt").write_text(text, encoding="utf-8")
            (folder / f"doc{d:05d}.ann").write_text("".join(lines), encoding="utf-8")
    return folders[0], folders[1], folders[2]


def _command_seconds(arguments: list[str]) -> tuple[float, float, str]:
    """Best wall seconds of :data:`REPEATS` runs of ``annoscore ARGUMENTS`` as a separate
    process, its peak memory (MB) and its output (:func:`processes.measured`)."""
    from processes import measured  # beside this script

    exe = shutil.which("annoscore")
    command = [exe] if exe else [sys.executable, "-m", "annoscore"]
    runs = [measured([*command, *arguments]) for _ in range(REPEATS)]
    return min(r.seconds for r in runs), max(r.peak_mb for r in runs), runs[-1].stdout


def bench_command(documents: int) -> None:
    import json

    import installed  # beside this script: time annoscore from bytecode, as installed

    installed.compile_package()
    with tempfile.TemporaryDirectory() as folder:
        gold, a, b = (str(p) for p in write_brat_corpus(Path(folder), documents))
        print(f"whole command, fresh process, {documents:,} brat documents, best of {REPEATS}")
        one, one_mb, _ = _command_seconds(["pharmaconer", "ner", gold, a, "--format", "json"])
        print(f"  annoscore pharmaconer ner GOLD A             {one:7.3f} s {one_mb:6.0f} MB")
        both, both_mb, output = _command_seconds(
            ["compare", "pharmaconer-ner", gold, a, b, "--format", "json"]
        )
        data = json.loads(output)
        row = data["systems"]["b"]
        print(
            f"  annoscore compare pharmaconer-ner GOLD A B   {both:7.3f} s {both_mb:6.0f} MB   "
            f"f1 {row['scores']['f1']:.4f}, difference {row['difference']['f1']:+.4f}, "
            f"p {row['p_value']['f1']:.4f}"
        )
        print(f"  (two scorings, {2 * one:.3f} s, and the comparison)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--docs", type=int, default=DOCUMENTS, help=f"documents (default {DOCUMENTS:,})"
    )
    parser.add_argument(
        "--part",
        choices=("all", "command", "memory"),
        default="all",
        help="the whole commands, the in-memory figures beside sacrebleu, or both (sacrebleu "
        "holds resamples x documents x columns floats: about 13 GB at 100,000 documents)",
    )
    args = parser.parse_args()
    # the commands first, while this process is small: a child's peak memory as the system
    # reports it includes its parent's at the moment it was started
    if args.part in ("all", "command"):
        bench_command(args.docs)
    if args.part == "command":
        return
    rng = np.random.default_rng(2024)
    print("\nIn memory (reading not timed); best of", REPEATS)
    bench("pharmaconer-style", pharmaconer_matrices(rng, args.docs), prf_scores, "f1")
    bench("coreference", coref_matrices(rng, args.docs), coref_scores, "conll_f1")


if __name__ == "__main__":
    main()
