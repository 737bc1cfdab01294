"""Bootstrap intervals of the macro averages of an HTML report (``--bootstrap``): by type and by
document, resampling documents as the micro scores' intervals do
(:func:`annoscore.significance.bootstrap_intervals`, the same seed, samples and confidence).

Both are scorers of column sums, so the project's bootstrap applies unchanged: ``macro_type``
scores each type from its ``type:NAME:stat`` columns of a resample's sums and averages them
(:func:`annoscore.result.macro_average`: a type whose score is undefined is left out);
``macro_doc`` sums each document's score and whether it is defined, so a resample's mean is its
sum over its count.  The JSON result holds no macro intervals; the page embeds them as
``<script type="application/json" id="annoscore-macro-intervals">`` (``{average: {score: [low,
high] or null}}``) and every bound shown names its place there (``data-macro-path``).
"""

from __future__ import annotations

from typing import Any

from annoscore.result import Result

MACRO_ID = "annoscore-macro-intervals"
HIDDEN = "typ:"
"""The per-type columns' prefix while resampled (the bootstrap leaves ``type:`` columns out)."""


def macro_intervals(
    result: Result, *, samples: int, confidence: float, seed: int | None
) -> dict[str, dict[str, list[float] | None]]:
    """``macro_type`` (when the task counts types) and ``macro_doc`` intervals of ``result``."""
    import numpy as np

    from annoscore.counts import Counts
    from annoscore.result import TYPE_PREFIX, CountMatrix, macro_average, type_counts
    from annoscore.significance import bootstrap_intervals

    matrix, scorer = result.matrix, result.scorer
    out: dict[str, dict[str, list[float] | None]] = {}

    def shown(found: dict[str, Any]) -> dict[str, list[float] | None]:
        return {k: None if v is None else [float(v[0]), float(v[1])] for k, v in found.items()}

    typed = [k for k, name in enumerate(matrix.names) if name.startswith(TYPE_PREFIX)]
    if result.types and typed:
        names = tuple(HIDDEN + matrix.names[k][len(TYPE_PREFIX) :] for k in typed)
        hidden = CountMatrix(
            matrix.documents,
            names,
            matrix.values[:, typed],
            tuple(matrix.integer[k] for k in typed),
        )

        def macro_type(total: Counts) -> Any:
            back = Counts({TYPE_PREFIX + k[len(HIDDEN) :]: v for k, v in total.items()})
            return macro_average(scorer(c) for c in type_counts(back).values())

        out["macro_type"] = shown(
            bootstrap_intervals(
                (hidden, macro_type), samples=samples, confidence=confidence, seed=seed
            )
        )
    documents = result.documents
    keys = list(dict.fromkeys(k for unit in documents.values() for k in unit.scores))
    columns: dict[str, Any] = {}
    for k in keys:
        values = [unit.scores.get(k) for unit in documents.values()]
        columns[f"sum.{k}"] = np.array([0.0 if v is None else v for v in values], dtype=float)
        columns[f"n.{k}"] = np.array([v is not None for v in values], dtype=float)
    per_doc = CountMatrix.from_columns(list(documents), columns, integer=[f"n.{k}" for k in keys])

    def macro_doc(total: Counts) -> Any:
        return {k: total[f"sum.{k}"] / total[f"n.{k}"] if total[f"n.{k}"] else None for k in keys}

    out["macro_doc"] = shown(
        bootstrap_intervals((per_doc, macro_doc), samples=samples, confidence=confidence, seed=seed)
    )
    return out
