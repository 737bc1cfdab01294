"""Bootstrap intervals and paired tests against scipy and sacrebleu, on count matrices."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from sacrebleu import metrics as sacrebleu_metrics
from sacrebleu import significance as sacrebleu_significance
from scipy import stats

from annoscore import significance
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.prf import prf_scores
from annoscore.report.significance import json_dict, render_markdown, render_text
from annoscore.result import CountMatrix, Result, Scores
from annoscore.signature import Signature
from annoscore.significance import (
    IncomparableResults,
    bootstrap_intervals,
    paired_test,
    with_intervals,
)

# --- a metric that is a plain mean over documents ------------------------------------------------


def mean_scores(counts: Counts) -> Scores:
    """``mean = value / n``: with n = 1 per document, the plain mean of the documents' values."""
    return {"mean": counts["value"] / counts["n"] if counts["n"] else None}


def test_bootstrap_interval_is_scipy_percentile_on_the_same_draws() -> None:
    # Both draw the index matrix rng.integers(0, n, (samples, n)) from default_rng(seed), so
    # feeding both the same seed feeds them the same resamples: the intervals agree to rounding
    # (sum / n through a matrix product against numpy's mean), not just within Monte Carlo error.
    data = np.random.default_rng(0).gamma(2.0, 3.0, size=73)
    matrix = CountMatrix.from_columns(
        [f"d{i}" for i in range(data.size)], {"value": data, "n": np.ones(data.size)}, ["n"]
    )
    for confidence, seed in ((0.95, 1), (0.9, 12345)):
        ours = bootstrap_intervals(
            matrix, mean_scores, samples=3000, confidence=confidence, seed=seed
        )["mean"]
        theirs = stats.bootstrap(
            (data,),
            np.mean,
            n_resamples=3000,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        assert ours == pytest.approx((theirs.low, theirs.high), rel=1e-12, abs=0)
    pair = bootstrap_intervals((matrix, mean_scores), samples=3000, confidence=0.9, seed=12345)
    assert pair["mean"] == ours


def test_batches_do_not_change_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    data = np.arange(40, dtype=np.float64) % 7
    matrix = CountMatrix.from_columns(
        [f"d{i}" for i in range(40)], {"value": data, "n": np.ones(40)}, ["n"]
    )
    whole = bootstrap_intervals(matrix, mean_scores, samples=500, seed=5)
    monkeypatch.setattr(significance, "BATCH_BYTES", 40 * 32 * 7)  # batches of 7 resamples
    assert bootstrap_intervals(matrix, mean_scores, samples=500, seed=5) == whole


def test_undefined_resamples_are_left_out_and_never_defined_is_none() -> None:
    # document a has n = 0: a resample drawing only a has no mean.
    matrix = CountMatrix.of({"a": Counts(value=5, n=0), "b": Counts(value=2, n=1)})
    scores = significance.resampled_scores(matrix, mean_scores, ["mean"], samples=400, seed=2)
    undefined = np.isnan(scores[:, 0])
    assert 0 < undefined.sum() < 400  # a quarter of the resamples, about
    low, high = np.quantile(scores[~undefined, 0], [0.025, 0.975])
    assert bootstrap_intervals(matrix, mean_scores, samples=400, seed=2) == {
        "mean": (float(low), float(high))
    }
    never = CountMatrix.of({"a": Counts(value=5, n=0)})
    assert bootstrap_intervals(never, mean_scores, samples=50) == {"mean": None}


# --- results --------------------------------------------------------------------------------------


def run(per_doc: dict[str, tuple[int, int, int]], task: str = "demo", **settings: object) -> Result:
    docs = {d: Counts(tp=tp, fp=fp, fn=fn) for d, (tp, fp, fn) in per_doc.items()}
    return Result.from_counts(task, Signature.of(task, **settings), docs, prf_scores)


def random_run(seed: int, documents: int = 80, skill: float = 0.7) -> Result:
    rng = random.Random(seed)
    per_doc = {}
    for d in range(documents):
        gold = rng.randint(0, 12)
        tp = sum(rng.random() < skill for _ in range(gold))
        per_doc[f"doc{d:03d}"] = (tp, rng.randint(0, 3), gold - tp)
    return run(per_doc)


def test_per_type_columns_are_not_resampled() -> None:
    plain = random_run(1)
    typed = Result.from_counts(
        "demo",
        plain.signature,
        {d: c + c.prefixed("type:X:") for d, c in plain.document_counts().items()},
        prf_scores,
    )
    assert bootstrap_intervals(typed, samples=200) == bootstrap_intervals(plain, samples=200)


def test_with_intervals_extends_the_signature() -> None:
    result = random_run(2)
    shown = with_intervals(result, samples=300, confidence=0.9, seed=7)
    assert str(shown.signature).endswith("|task:demo|bootstrap:300|confidence:0.9|seed:7")
    assert shown.intervals == bootstrap_intervals(result, samples=300, confidence=0.9, seed=7)
    for key, (low, high) in shown.intervals.items():  # type: ignore[union-attr]
        assert low <= result.scores[key] <= high  # type: ignore[operator]
    again = with_intervals(shown, samples=100)
    assert str(again.signature).endswith("|task:demo|bootstrap:100|confidence:0.95|seed:12345")
    assert shown.scores == result.scores and shown.counts == result.counts


def test_bad_settings_are_refused() -> None:
    result = random_run(3)
    for bad in ({"samples": 0}, {"confidence": 1.0}, {"confidence": 0.0}):
        with pytest.raises(IncomparableResults):
            bootstrap_intervals(result, **bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_a_system_compared_with_itself_has_p_1_and_an_interval_containing_0(test: str) -> None:
    result = random_run(4)
    comparison = paired_test(result, {"copy": result}, test=test, samples=500)
    row = comparison.systems["copy"]
    for key in result.scores:
        assert row.p_value[key] == 1.0
        low, high = row.interval[key]  # type: ignore[misc]
        assert low <= 0.0 <= high
        assert row.difference[key] == 0.0


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_a_clearly_better_system_is_significant(test: str) -> None:
    weak, strong = random_run(5, skill=0.5), random_run(5, skill=0.95)
    row = paired_test(weak, {"strong": strong}, test=test, samples=999).systems["strong"]
    assert row.p_value["recall"] == pytest.approx(1 / 1000)
    low, _ = row.interval["recall"]  # type: ignore[misc]
    assert row.difference["recall"] > low > 0  # type: ignore[operator]


def test_the_same_seed_gives_the_same_comparison() -> None:
    a, b = random_run(6), random_run(7)
    for test in ("bootstrap", "randomization"):
        first = paired_test(a, {"b": b}, test=test, samples=300, seed=11)
        assert paired_test(a, {"b": b}, test=test, samples=300, seed=11) == first
        other = paired_test(a, {"b": b}, test=test, samples=300, seed=12)
        assert other.systems["b"].interval != first.systems["b"].interval


def test_every_system_gets_the_same_draws() -> None:
    a, b, c = random_run(8), random_run(9), random_run(10)
    alone = paired_test(a, {"b": b}, samples=300)
    together = paired_test(a, {"c": c, "b": b}, samples=300)
    assert together.systems["b"] == alone.systems["b"]


def test_results_of_other_settings_or_tasks_are_refused() -> None:
    strict = run({"d1": (1, 0, 1)}, mode="strict")
    with pytest.raises(ValueError, match="mode: overlap vs strict"):
        paired_test(strict, {"b": run({"d1": (1, 0, 0)}, mode="overlap")})
    with pytest.raises(InputError, match="task other"):
        paired_test(strict, {"b": run({"d1": (1, 0, 0)}, task="other", mode="strict")})
    # the resampling settings of an interval move no point score: still comparable
    shown = with_intervals(run({"d1": (1, 0, 0), "d2": (0, 1, 0)}, mode="strict"), samples=10)
    assert paired_test(strict, {"b": shown}, samples=10).systems["b"].scores["recall"] == 1.0


def test_only_shared_documents_are_compared_aligned_by_id() -> None:
    a = run({"d1": (3, 0, 1), "d2": (1, 1, 2), "d3": (2, 0, 0), "only-a": (5, 0, 0)})
    b = run({"d3": (2, 0, 0), "d2": (2, 0, 1), "d1": (4, 0, 0), "only-b": (0, 0, 9)})
    comparison = paired_test(a, {"b": b}, baseline_name="a", samples=200)
    (warning,) = comparison.warnings
    assert warning.count == 2 and warning.examples == ("only-a", "only-b")
    assert comparison.documents == 3
    assert comparison.systems["a"].scores["recall"] == 6 / 9
    assert comparison.systems["b"].scores["recall"] == 8 / 9
    assert comparison.systems["b"].difference["recall"] == pytest.approx(2 / 9)
    # the same documents in the baseline's order give the same comparison
    b_sorted = run({"d1": (4, 0, 0), "d2": (2, 0, 1), "d3": (2, 0, 0)})
    a_shared = run({"d1": (3, 0, 1), "d2": (1, 1, 2), "d3": (2, 0, 0)})
    plain = paired_test(a_shared, {"b": b_sorted}, baseline_name="a", samples=200)
    assert plain.systems == comparison.systems
    with pytest.raises(IncomparableResults, match="no document"):
        paired_test(run({"x": (1, 0, 0)}), {"b": run({"y": (1, 0, 0)})})


def test_columns_one_system_lacks_read_0() -> None:
    a = Result.from_counts(
        "demo", Signature.of("demo"), {"d1": Counts(tp=1), "d2": Counts(tp=1)}, prf_scores
    )
    b = Result.from_counts(
        "demo", Signature.of("demo"), {"d1": Counts(tp=1, fp=1), "d2": Counts(tp=1)}, prf_scores
    )
    row = paired_test(a, {"b": b}, samples=200).systems["b"]
    assert row.difference["precision"] == pytest.approx(2 / 3 - 1)


def test_comparison_json_shape_and_text_marker() -> None:
    weak, strong = random_run(12, skill=0.5), random_run(12, skill=0.95)
    comparison = paired_test(weak, {"strong": strong}, baseline_name="weak", samples=200)
    data = json_dict(comparison)
    assert list(data) == ["task", "signature", "test", "baseline", "systems", "warnings"]
    assert data["baseline"] == "weak" and data["test"] == "bootstrap"
    assert data["signature"].endswith("|test:bootstrap|samples:200|confidence:0.95|seed:12345")
    assert list(data["systems"]) == ["weak", "strong"]
    for name in ("weak", "strong"):
        assert list(data["systems"][name]) == ["scores", "difference", "interval", "p_value"]
    assert data["systems"]["weak"]["p_value"]["f1"] == 1.0
    assert data["systems"]["weak"]["interval"]["f1"] == [0.0, 0.0]
    low, high = data["systems"]["strong"]["interval"]["f1"]
    assert 0 < low < data["systems"]["strong"]["difference"]["f1"] < high
    text = render_text(comparison)
    strong_rows = [line for line in text.splitlines() if line.startswith("strong")]
    assert len(strong_rows) == 3 and all(line.endswith("*") for line in strong_rows)
    assert "| strong |" in render_markdown(comparison)


# --- sacrebleu's paired tests on BLEU sufficient statistics --------------------------------------


BLEU_METRIC = sacrebleu_metrics.BLEU()
BLEU_STATS = (
    "sys_len",
    "ref_len",
    *(f"match_{n}" for n in range(1, 5)),
    *(f"total_{n}" for n in range(1, 5)),
)


def bleu_scores(counts: Counts) -> Scores:
    """BLEU from summed sentence statistics, by sacrebleu's own computation."""
    return {"bleu": BLEU_METRIC._compute_score_from_stats([counts[k] for k in BLEU_STATS]).score}


def corpus() -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(300)]
    references = [
        " ".join(rng.choice(vocabulary) for _ in range(rng.randint(8, 25))) for _ in range(300)
    ]

    def noisy(rate: float, seed: int) -> list[str]:
        draw = random.Random(seed)
        return [
            " ".join(w if draw.random() > rate else draw.choice(vocabulary) for w in ref.split())
            for ref in references
        ]

    return references, noisy(0.30, 1), noisy(0.29, 2)


def bleu_result(hypotheses: list[str], references: list[str]) -> Result:
    statistics = BLEU_METRIC._extract_corpus_statistics(hypotheses, [references])
    documents = {
        f"s{i}": Counts(dict(zip(BLEU_STATS, row, strict=True))) for i, row in enumerate(statistics)
    }
    return Result.from_counts("bleu", Signature.of("bleu"), documents, bleu_scores)


def sacrebleu_p_value(
    references: list[str], baseline: list[str], system: list[str], test: str, samples: int
) -> Any:
    paired = sacrebleu_significance.PairedTest(
        [("baseline", baseline), ("system", system)],
        {"BLEU": sacrebleu_metrics.BLEU()},
        [references],
        test_type=test,
        n_samples=samples,
    )
    _, results = paired()
    return results["BLEU"][1].p_value


@pytest.mark.parametrize(
    ("test", "sacrebleu_test", "samples"),
    [("bootstrap", "bs", 2000), ("randomization", "ar", 4000)],
)
def test_paired_tests_reproduce_sacrebleu(
    monkeypatch: pytest.MonkeyPatch, test: str, sacrebleu_test: str, samples: int
) -> None:
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    references, baseline, system = corpus()
    a, b = bleu_result(baseline, references), bleu_result(system, references)
    corpus_bleu = BLEU_METRIC.corpus_score(system, [references]).score
    assert b.scores["bleu"] == pytest.approx(corpus_bleu, abs=1e-12)
    expected = sacrebleu_p_value(references, baseline, system, sacrebleu_test, samples)
    assert 0.1 < expected < 0.9  # a case where the tests' conventions would show
    # Independent draws (another seed): the two p-values are estimates of the same number,
    # each with standard error sqrt(p (1 - p) / N); 4 standard errors of their difference.
    ours = paired_test(a, {"b": b}, test=test, samples=samples, seed=2024).systems["b"]
    tolerance = 4 * math.sqrt(2 * expected * (1 - expected) / samples)
    assert ours.p_value["bleu"] == pytest.approx(expected, abs=tolerance)
    # The same seed draws the same resamples (or coin flips) as sacrebleu: the same p-value,
    # but for exact ties, which a >= count includes and sacrebleu's > leaves out.
    same = paired_test(a, {"b": b}, test=test, samples=samples, seed=12345).systems["b"]
    assert same.p_value["bleu"] == pytest.approx(expected, abs=2 / (samples + 1))


def test_bootstrap_intervals_of_a_matrix_need_its_scorer() -> None:
    from annoscore.counts import Counts
    from annoscore.metrics.prf import prf_scores
    from annoscore.result import Result
    from annoscore.signature import Signature

    counts = {f"d{i}": Counts(tp=i % 3, fp=1, fn=i % 2) for i in range(10)}
    result = Result.from_counts("demo", Signature.of("demo"), counts, prf_scores)
    with pytest.raises(TypeError, match=r"^bootstrap_intervals\(matrix, scorer\): the scorer"):
        significance.bootstrap_intervals(result.matrix)
    from_matrix = significance.bootstrap_intervals(result.matrix, prf_scores, samples=20)
    assert from_matrix == significance.bootstrap_intervals(result, samples=20)


def test_a_comparison_renders_in_the_three_formats_and_no_other() -> None:
    from annoscore.report.significance import render, render_json

    weak, strong = random_run(12, skill=0.5), random_run(12, skill=0.95)
    comparison = paired_test(weak, {"strong": strong}, baseline_name="weak", samples=50)
    assert render(comparison, "text") == render_text(comparison)
    assert render(comparison, "json") == render_json(comparison)
    assert render(comparison, "markdown") == render_markdown(comparison)
    with pytest.raises(ValueError, match=r"^unknown format 'csv'; expected text, json or"):
        render(comparison, "csv")
