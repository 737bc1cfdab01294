"""Confidence intervals and paired significance tests, resampling documents.

Only a :class:`~annoscore.result.Result`'s count matrix and scorer are read: a resampled corpus
is a vector of column sums (per-type columns left out), scored as the corpus is.

**Bootstrap percentile interval** (Efron and Tibshirani 1993, ch. 13), :func:`bootstrap_intervals`:
draw ``samples`` resamples of the n documents with replacement (an index matrix, as
``scipy.stats.bootstrap`` and sacrebleu draw it), turn each row of indices into a weight per
document (how often it was drawn), get every resample's column sums with one matrix product per
batch (weights @ matrix), score each sum.  The interval at confidence C is the (1 - C)/2 and
(1 + C)/2 quantiles of the resampled scores, linear interpolation (numpy's and scipy's default),
i.e. ``scipy.stats.bootstrap(method="percentile")`` on the same draws.

**Paired tests** (:func:`paired_test`), baseline A and system B scored on the same documents:

- *paired bootstrap* (Koehn 2004, in sacrebleu's form): the same resamples for A and B;
  ``d* = score(B*) - score(A*)``; the statistic ``|d*| - mean |d*|`` (the bootstrap distribution
  shifted to the null hypothesis "no difference") is compared with the observed ``|d|``;
- *approximate randomization* (Noreen 1989; Riezler and Maxwell 2005): each trial swaps the two
  systems' rows of a random half of the documents (a fair coin per document) and compares
  ``|score(A') - score(B')|`` with the observed ``|d|``;
- *paired t-test* (what IR papers report for per-query measures such as MAP or nDCG@10): Student's
  t on the per-document scores (``scipy.stats.ttest_rel``), two-sided; its p-value is exact, not
  resampled, and the interval of the difference is the paired bootstrap one, as for
  ``randomization``.

p-value: ``(c + 1) / (N + 1)``, c the number of the N trials whose statistic is **at least** the
observed one (sacrebleu: strictly greater; they differ on exact ties only, and with ``>=`` a
system compared with itself gets p = 1).  The interval of the difference is always the paired
bootstrap percentile interval of ``d*`` (for ``randomization``: from ``interval_samples``
resamples with the same seed, so both tests report the same interval).

**Undefined scores.** A resample (or trial) where a score is undefined (``None``) is left out of
that score's quantiles and p-value, which then count only the defined ones; a score undefined in
every resample has no interval (``None``).  A difference is undefined when either score is.

**Random numbers.** ``numpy.random.default_rng(seed)``; every system gets the same draws (a fresh
generator per call), so adding a system changes no other row.  Draws come in batches
(:data:`BATCH_BYTES`, :data:`BATCH_SAMPLES`; the draws do not depend on them), at most
:data:`MAX_SAMPLES`; a seed is a whole number >= 0 (``None``: a fresh one);
``progress(done, total)`` is told after each batch.
The sums are float64 products (exact for whole counts below 2^53).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.options import MAX_SAMPLES as MAX_SAMPLES  # the most resamples, re-exported
from annoscore.result import TYPE_PREFIX, CountMatrix, Result, Scorer, Scores
from annoscore.score_warnings import ScoreWarning
from annoscore.signature import Signature

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float64]

Interval = tuple[float, float]
Intervals = dict[str, Interval | None]

BATCH_BYTES = 64 * 2**20
"""Working memory of one batch of resamples (index draws, weights), about 64 MB."""

BATCH_SAMPLES = 10_000
"""Resamples in one batch at most (their scores are Python objects until the batch is done)."""


Progress = Callable[[int, int], None]
"""``progress(done, total)``: told after every batch of resamples or trials."""

RESAMPLING_SETTINGS = ("bootstrap", "confidence", "seed")
"""Signature keys :func:`with_intervals` appends; they move no point score, so two results that
differ only in them can still be compared."""

DEFAULT_SEED = 12345
"""sacrebleu's default seed."""


class PairedTestKind(str, Enum):
    """The paired tests, with their default number of trials (sacrebleu's)."""

    bootstrap = "bootstrap"
    randomization = "randomization"
    t_test = "t-test"

    @property
    def default_samples(self) -> int:
        return 10_000 if self is PairedTestKind.randomization else 1000


class IncomparableResults(InputError, ValueError):
    """Results that cannot be compared (other task or settings, no shared document) or
    resampling settings out of range.  An :class:`InputError`, so the command line exits 2."""


# --- resampling ----------------------------------------------------------------------------------


def _check_settings(samples: int, confidence: float | None, seed: int | None = None) -> None:
    """Refuse (:class:`IncomparableResults`) a number of resamples, a confidence or a seed out
    of range (``confidence=None``: not checked)."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise IncomparableResults(f"the number of resamples must be a whole number >= 1: {samples}")
    if samples > MAX_SAMPLES:
        raise IncomparableResults(
            f"at most {MAX_SAMPLES:,} resamples or trials (asked: {samples:,}); "
            "more change an interval or a p-value by less than its own Monte Carlo error"
        )
    if confidence is not None and not 0.0 < confidence < 1.0:
        raise IncomparableResults(f"the confidence must be between 0 and 1: {confidence}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise IncomparableResults(f"the seed must be a whole number >= 0: {seed}")


def _plain(matrix: CountMatrix) -> CountMatrix:
    """The matrix without its per-type columns (what the scorer reads)."""
    keep = [k for k, name in enumerate(matrix.names) if not name.startswith(TYPE_PREFIX)]
    if len(keep) == len(matrix.names):
        return matrix
    return CountMatrix(
        matrix.documents,
        tuple(matrix.names[k] for k in keep),
        matrix.values[:, keep],
        tuple(matrix.integer[k] for k in keep),
    )


def _batches(
    samples: int, rows: int, per_row: int, progress: Progress | None = None
) -> Iterator[int]:
    """Batch sizes adding up to ``samples``, each using about :data:`BATCH_BYTES` and at most
    :data:`BATCH_SAMPLES` resamples; ``progress`` is told when each batch is done."""
    size = min(BATCH_SAMPLES, max(1, BATCH_BYTES // max(1, per_row * rows)))
    done = 0
    while done < samples:
        step = min(size, samples - done)
        yield step
        done += step
        if progress is not None:
            progress(done, samples)


def _resample_weights(rng: Any, batch: int, n: int) -> Array:
    """``batch`` bootstrap resamples of ``n`` documents as weights: ``w[s, d]`` = how often
    resample ``s`` drew document ``d`` (from an index matrix ``rng.integers(0, n, (batch, n))``,
    the draws of ``scipy.stats.bootstrap``)."""
    import numpy as np

    drawn = rng.integers(0, n, size=(batch, n))
    drawn += (np.arange(batch, dtype=np.int64) * n)[:, None]
    counts = np.bincount(drawn.ravel(), minlength=batch * n).reshape(batch, n)
    weights: Array = counts.astype(np.float64)
    return weights


def _score_sums(sums: Array, template: CountMatrix, scorer: Scorer, keys: Sequence[str]) -> Array:
    """Score every row of column sums: ``out[s, j]`` = ``scorer(sums[s])[keys[j]]``, NaN where
    undefined."""
    import numpy as np

    nan = math.nan
    rows = []
    for row in sums:
        scores = scorer(template.counts(row))
        rows.append([nan if (v := scores.get(key)) is None else v for key in keys])
    out: Array = np.array(rows, dtype=np.float64).reshape(len(sums), len(keys))
    return out


def _quantiles(values: Array, confidence: float) -> Interval | None:
    """The percentile interval of the defined (non-NaN) ``values``; ``None`` if there is none."""
    import numpy as np

    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return float(low), float(high)


def resampled_scores(
    matrix: CountMatrix,
    scorer: Scorer,
    keys: Sequence[str],
    *,
    samples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    progress: Progress | None = None,
) -> Array:
    """The scores of ``samples`` bootstrap resamples of the documents (rows) of ``matrix``.

    ``out[s, j]`` is ``scorer`` of resample ``s``'s column sums, key ``keys[j]``, NaN where
    undefined.  Per-type columns are left out before resampling.  With no documents every
    resample is empty (all its sums are 0).
    """
    _check_settings(samples, None, seed)
    out: Array = _bootstrap_scores([_plain(matrix)], scorer, keys, samples, seed, progress)[:, 0]
    return out


def bootstrap_intervals(
    source: Result | CountMatrix | tuple[CountMatrix, Scorer],
    scorer: Scorer | None = None,
    *,
    samples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = DEFAULT_SEED,
    progress: Progress | None = None,
) -> Intervals:
    """Percentile bootstrap intervals of every score key, resampling documents.

    ``source`` is a :class:`Result` (its matrix and scorer; keys: its ``scores``) or a
    :class:`CountMatrix` with ``scorer``, or the pair ``(matrix, scorer)`` (keys: those of the
    scorer on the column sums).  The interval is the module doc's percentile interval.
    Undefined: a resample where a score is ``None`` is left out of that key's quantiles; a key
    undefined in every resample maps to ``None``.

    >>> from annoscore.metrics.prf import prf_scores
    >>> from annoscore.counts import Counts
    >>> r = Result.from_counts("demo", Signature.of("demo"),
    ...     {f"d{i}": Counts(tp=i % 3, fp=1, fn=i % 2) for i in range(40)}, prf_scores)
    >>> low, high = bootstrap_intervals(r, samples=200)["f1"]
    >>> low < r.scores["f1"] < high
    True
    """
    _check_settings(samples, confidence, seed)
    if isinstance(source, tuple):
        source, scorer = source
    if isinstance(source, Result):
        matrix, score, keys = source.matrix, source.scorer, list(source.scores)
    else:
        if scorer is None:
            raise TypeError("bootstrap_intervals(matrix, scorer): the scorer is missing")
        matrix, score = source, scorer
        keys = list(score(_plain(matrix).total()))
    scores = resampled_scores(matrix, score, keys, samples=samples, seed=seed, progress=progress)
    return {key: _quantiles(scores[:, j], confidence) for j, key in enumerate(keys)}


def _confidence_and_seed(confidence: float, seed: int | None) -> tuple[tuple[str, str], ...]:
    """The signature settings both :func:`with_intervals` and :func:`paired_test` end with."""
    return ("confidence", f"{confidence:g}"), ("seed", "none" if seed is None else str(seed))


def with_intervals(
    result: Result,
    *,
    samples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = DEFAULT_SEED,
    progress: Progress | None = None,
) -> Result:
    """``result`` with :func:`bootstrap_intervals` attached (``result.intervals``) and its
    signature extended with ``bootstrap:N|confidence:C|seed:S`` (replacing earlier ones).

    >>> from annoscore.metrics.prf import prf_scores
    >>> from annoscore.counts import Counts
    >>> r = Result.from_counts("demo", Signature.of("demo", mode="strict"),
    ...                        {"d1": Counts(tp=2, fp=1), "d2": Counts(tp=1, fn=3)}, prf_scores)
    >>> str(with_intervals(r, samples=50).signature).split("|", 1)[1]
    'task:demo|mode:strict|bootstrap:50|confidence:0.95|seed:12345'
    """
    intervals = bootstrap_intervals(
        result, samples=samples, confidence=confidence, seed=seed, progress=progress
    )
    kept = tuple((k, v) for k, v in result.signature.settings if k not in RESAMPLING_SETTINGS)
    added = (("bootstrap", str(samples)), *_confidence_and_seed(confidence, seed))
    signature = Signature(result.signature.task, kept + added)
    return replace(result, signature=signature, intervals=intervals, _cache={})


# --- paired tests --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemComparison:
    """One system against the baseline, per score key.

    ``scores``: the system's scores on the compared documents; ``difference``: system minus
    baseline; ``interval``: the paired bootstrap percentile interval of the difference;
    ``p_value``: the test's p-value for "no difference" (two-sided).  ``None`` where undefined.
    The baseline's own row is the baseline compared with itself: difference 0, interval
    (0, 0), p-value 1 (what the tests give for two identical systems).
    """

    scores: Scores
    difference: dict[str, float | None]
    interval: dict[str, Interval | None]
    p_value: dict[str, float | None]

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "scores": dict(self.scores),
            "difference": dict(self.difference),
            "interval": {k: (None if v is None else list(v)) for k, v in self.interval.items()},
            "p_value": dict(self.p_value),
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """Several systems against a baseline on the documents all of them scored.

    ``systems`` maps each name to its :class:`SystemComparison`, the baseline first.
    ``documents`` is how many documents were compared, ``keys`` the score keys in order.
    Rendered by :mod:`annoscore.report.significance`.
    """

    task: str
    signature: Signature
    test: PairedTestKind
    baseline: str
    systems: dict[str, SystemComparison]
    warnings: tuple[ScoreWarning, ...]
    documents: int
    keys: tuple[str, ...]


def _comparable(signature: Signature) -> tuple[str, tuple[tuple[str, str], ...]]:
    kept = tuple((k, v) for k, v in signature.settings if k not in RESAMPLING_SETTINGS)
    return signature.task, kept


def _check_signatures(named: Mapping[str, Result]) -> None:
    """Every result must have the baseline's task and settings (resampling settings aside)."""
    (first_name, first), *others = named.items()
    task, settings = _comparable(first.signature)
    for name, result in others:
        other_task, other_settings = _comparable(result.signature)
        if other_task != task:
            raise IncomparableResults(
                f"cannot compare {name!r} (task {other_task}) with {first_name!r} (task {task})"
            )
        if other_settings != settings:
            mine, theirs = dict(settings), dict(other_settings)
            differing = sorted(
                k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k)
            )
            detail = ", ".join(
                f"{k}: {theirs.get(k, 'absent')} vs {mine.get(k, 'absent')}" for k in differing
            )
            raise IncomparableResults(
                f"cannot compare {name!r} with {first_name!r}: settings differ ({detail}); "
                "score both the same way"
            )


def _shared_documents(named: Mapping[str, Result]) -> tuple[list[str], list[ScoreWarning]]:
    """The documents every result scored (in the baseline's order), and a warning counting the
    others."""
    results = list(named.values())
    sets = [set(r.matrix.documents) for r in results]
    shared = set.intersection(*sets)
    common = [d for d in results[0].matrix.documents if d in shared]
    left_out = sorted(set.union(*sets) - shared)
    warnings = []
    if left_out:
        warnings.append(
            ScoreWarning(
                "documents-not-shared",
                "{count} documents are not scored by every system and are left out of the "
                "comparison",
                len(left_out),
                tuple(left_out[:5]),
            )
        )
    if not common:
        raise IncomparableResults("no document is scored by every system: nothing to compare")
    return common, warnings


def _stacked(named: Mapping[str, Result], documents: Sequence[str]) -> list[CountMatrix]:
    """Every result's plain columns, rows aligned to ``documents``, columns to their union."""
    import numpy as np

    plains = [_plain(r.matrix).aligned(documents) for r in named.values()]
    names: dict[str, bool] = {}
    for m in plains:
        for name, whole in zip(m.names, m.integer, strict=True):
            names[name] = names.get(name, True) and whole
    union = tuple(names)
    integer = tuple(names.values())
    out = []
    for m in plains:
        if m.names == union:
            out.append(CountMatrix(m.documents, union, m.values, integer))
            continue
        values = np.zeros((len(documents), len(union)))
        position = {name: k for k, name in enumerate(union)}
        for k, name in enumerate(m.names):
            values[:, position[name]] = m.values[:, k]
        out.append(CountMatrix(m.documents, union, values, integer))
    return out


def _observed(result: Result, matrix: CountMatrix, keys: Sequence[str]) -> Scores:
    """The result's scores on the compared documents (its own when none was left out)."""
    if set(matrix.documents) == set(result.matrix.documents):
        scores = result.scores
    else:
        scores = result.scorer(matrix.total())
    return {key: scores.get(key) for key in keys}


def _bootstrap_scores(
    matrices: Sequence[CountMatrix],
    scorer: Scorer,
    keys: Sequence[str],
    samples: int,
    seed: Any,
    progress: Progress | None = None,
) -> Array:
    """``out[s, i, j]``: key ``j`` of system ``i`` on paired bootstrap resample ``s`` (the same
    documents drawn for every system; one product per batch for all of them).  With no documents
    every resample is empty (all its sums are 0)."""
    import numpy as np

    n, k, m = len(matrices[0].documents), len(matrices[0].names), len(matrices)
    stacked = np.concatenate([x.values for x in matrices], axis=1)  # n x (m k)
    rng = np.random.default_rng(seed)
    parts = []
    for batch in _batches(samples, n, 32, progress):
        weights = _resample_weights(rng, batch, n) if n else np.zeros((batch, 0))
        sums = (weights @ stacked).reshape(batch * m, k)
        parts.append(_score_sums(sums, matrices[0], scorer, keys).reshape(batch, m, len(keys)))
    out: Array = np.concatenate(parts)
    return out


def _randomization_statistics(
    matrices: Sequence[CountMatrix],
    scorer: Scorer,
    keys: Sequence[str],
    samples: int,
    seed: Any,
    progress: Progress | None = None,
) -> Array:
    """``out[t, i, j]``: ``|score(A') - score(B')|`` of key ``j`` on trial ``t`` for system
    ``i`` (1..m-1) against the baseline (0), where A' takes the baseline's rows of the documents
    a fair coin picked and system i's rows of the others, and B' the rest.  Both pseudo-systems
    of every pair come from one product per batch: ``[mask; 1 - mask] @ [all systems]``."""
    import numpy as np

    n, k, m = len(matrices[0].documents), len(matrices[0].names), len(matrices)
    stacked = np.concatenate([x.values for x in matrices], axis=1)  # n x (m k)
    rng = np.random.default_rng(seed)
    parts = []
    for batch in _batches(samples, n, 24, progress):
        mask = rng.integers(2, size=(batch, n), dtype=bool)
        picks = np.concatenate([mask, ~mask]).astype(np.float64)  # (2 batch) x n
        sums = (picks @ stacked).reshape(2, batch, m, k)
        kept, swapped = sums[0], sums[1]  # baseline rows where the coin said so / elsewhere
        # A' = kept baseline + swapped system i; B' = swapped baseline + kept system i
        first = kept[:, :1, :] + swapped[:, 1:, :]
        second = swapped[:, :1, :] + kept[:, 1:, :]
        pairs = np.concatenate([first, second], axis=1).reshape(batch * 2 * (m - 1), k)
        scored = _score_sums(pairs, matrices[0], scorer, keys).reshape(batch, 2, m - 1, len(keys))
        parts.append(np.abs(scored[:, 0] - scored[:, 1]))
    out: Array = np.concatenate(parts)
    return out


def _p_value(statistics: Array, observed: float) -> float | None:
    """``(c + 1) / (N + 1)``, c = #{defined statistics >= observed}, N = #defined."""
    import numpy as np

    defined = statistics[~np.isnan(statistics)]
    if defined.size == 0:
        return None
    at_least = int(np.count_nonzero(defined >= observed))
    return (at_least + 1) / (defined.size + 1)


def _bootstrap_p_value(differences: Array, observed: float) -> float | None:
    """sacrebleu's paired bootstrap p: ``|d*| - mean |d*|`` against the observed ``|d|``."""
    import numpy as np

    magnitude = np.abs(differences[~np.isnan(differences)])
    if magnitude.size == 0:
        return None
    return _p_value(magnitude - magnitude.mean(), observed)


def _t_test_p_values(
    matrices: Sequence[CountMatrix], scorer: Scorer, keys: Sequence[str]
) -> list[list[float | None]]:
    """The two-sided p-value of the paired t-test (Student; ``scipy.stats.ttest_rel``) of each
    system's per-document scores against the baseline's, per key, on the documents where both
    are defined: t = mean(d) / (sd(d) / sqrt(n)), n - 1 degrees of freedom.  ``None`` with
    fewer than two such documents; 1.0 when every difference is 0 (no evidence of one)."""
    import numpy as np
    from scipy import stats

    base = _score_sums(matrices[0].values, matrices[0], scorer, keys)  # documents x keys
    out: list[list[float | None]] = []
    for matrix in matrices[1:]:
        other = _score_sums(matrix.values, matrix, scorer, keys)
        row: list[float | None] = []
        for j in range(len(keys)):
            both = ~np.isnan(base[:, j]) & ~np.isnan(other[:, j])
            d = other[both, j] - base[both, j]
            if len(d) < 2:
                row.append(None)
            elif not np.any(d != d[0]):
                row.append(1.0 if d[0] == 0 else 0.0)
            else:
                row.append(float(stats.ttest_rel(other[both, j], base[both, j]).pvalue))
        out.append(row)
    return out


def paired_test(
    baseline: Result,
    systems: Mapping[str, Result],
    *,
    test: PairedTestKind | str = PairedTestKind.bootstrap,
    samples: int | None = None,
    seed: int | None = DEFAULT_SEED,
    confidence: float = 0.95,
    baseline_name: str = "baseline",
    interval_samples: int = 1000,
    progress: Progress | None = None,
) -> Comparison:
    """Compare each of ``systems`` with ``baseline``, document by document (see the module doc).

    - Results must come from the same task with the same settings (their signatures, resampling
      settings aside); otherwise :class:`IncomparableResults` (a ``ValueError`` and an
      ``InputError``).
    - Only documents every result scored are compared, rows aligned by document id; a warning
      counts the others.
    - ``test``: ``bootstrap`` (paired bootstrap, ``samples`` resamples, default 1000),
      ``randomization`` (approximate randomization, ``samples`` trials, default 10,000) or
      ``t-test`` (paired t-test on the per-document scores, its p-value exact); the interval of
      the last two from ``interval_samples`` bootstrap resamples.
    - Per score key: the difference (system - baseline), its paired bootstrap percentile
      interval at ``confidence`` and the two-sided p-value ``(c + 1) / (N + 1)``.
    - ``progress(done, total)`` is told after every batch (resamples, then trials).

    >>> from annoscore.metrics.prf import prf_scores
    >>> from annoscore.counts import Counts
    >>> def run(hits):
    ...     docs = {f"d{i}": Counts(tp=h, fn=1 - h) for i, h in enumerate(hits)}
    ...     return Result.from_counts("demo", Signature.of("demo"), docs, prf_scores)
    >>> weak, strong = run([i % 2 for i in range(60)]), run([1] * 60)
    >>> c = paired_test(weak, {"strong": strong, "same": weak}, baseline_name="weak")
    >>> c.systems["strong"].difference["recall"], c.systems["strong"].p_value["recall"] < 0.01
    (0.5, True)
    >>> c.systems["same"].p_value["recall"], c.systems["same"].interval["recall"]
    (1.0, (0.0, 0.0))
    """
    import numpy as np

    kind = PairedTestKind(test)
    trials = kind.default_samples if samples is None else samples
    _check_settings(trials, confidence, seed)
    _check_settings(interval_samples, confidence, seed)
    if baseline_name in systems:
        raise IncomparableResults(f"the baseline's name {baseline_name!r} is also a system's")
    if not systems:
        raise IncomparableResults("nothing to compare: give at least one system")
    named = {baseline_name: baseline, **systems}
    _check_signatures(named)
    documents, warnings = _shared_documents(named)
    for name, result in named.items():
        for warning in result.warnings:
            warnings.append(replace(warning, message=f"{name}: {warning.message}"))
    matrices = _stacked(named, documents)
    keys = list(dict.fromkeys(k for r in named.values() for k in r.scores))
    scorer = baseline.scorer
    observed = [_observed(r, m, keys) for r, m in zip(named.values(), matrices, strict=True)]

    boot = _bootstrap_scores(
        matrices,
        scorer,
        keys,
        trials if kind is PairedTestKind.bootstrap else interval_samples,
        seed,
        progress,
    )
    differences = boot[:, 1:, :] - boot[:, :1, :]
    statistics = None
    if kind is PairedTestKind.randomization:
        statistics = _randomization_statistics(matrices, scorer, keys, trials, seed, progress)
    t_p_values = _t_test_p_values(matrices, scorer, keys) if kind is PairedTestKind.t_test else None

    rows: dict[str, SystemComparison] = {
        baseline_name: SystemComparison(
            observed[0],
            {k: (None if v is None else 0.0) for k, v in observed[0].items()},
            {k: (None if v is None else (0.0, 0.0)) for k, v in observed[0].items()},
            {k: (None if v is None else 1.0) for k, v in observed[0].items()},
        )
    }
    undefined: dict[str, int] = {}
    for i, name in enumerate(systems, start=1):
        difference: dict[str, float | None] = {}
        interval: dict[str, Interval | None] = {}
        p_value: dict[str, float | None] = {}
        for j, key in enumerate(keys):
            base, value = observed[0][key], observed[i][key]
            d = None if base is None or value is None else value - base
            difference[key] = d
            draws = differences[:, i - 1, j]
            missing = int(np.count_nonzero(np.isnan(draws)))
            if missing:
                undefined[f"{name}: {key}"] = missing
            interval[key] = None if d is None else _quantiles(draws, confidence)
            if d is None:
                p_value[key] = None
            elif t_p_values is not None:
                p_value[key] = t_p_values[i - 1][j]
            elif statistics is None:
                p_value[key] = _bootstrap_p_value(draws, abs(d))
            else:
                p_value[key] = _p_value(statistics[:, i - 1, j], abs(d))
        rows[name] = SystemComparison(observed[i], difference, interval, p_value)
    if undefined:
        warnings.append(
            ScoreWarning(
                "undefined-in-resamples",
                "{count} resampled scores were undefined and are left out of their intervals "
                "and p-values",
                sum(undefined.values()),
                tuple(f"{k} ({v})" for k, v in list(undefined.items())[:5]),
            )
        )

    task, settings = _comparable(baseline.signature)
    added: list[tuple[str, str]] = [("test", kind.value), ("samples", str(trials))]
    if kind is not PairedTestKind.bootstrap:
        added.append(("bootstrap", str(interval_samples)))
    added += _confidence_and_seed(confidence, seed)
    return Comparison(
        task=baseline.task,
        signature=Signature(task, settings + tuple(added)),
        test=kind,
        baseline=baseline_name,
        systems=rows,
        warnings=tuple(warnings),
        documents=len(documents),
        keys=tuple(keys),
    )
