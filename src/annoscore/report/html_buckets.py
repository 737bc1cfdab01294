"""Buckets of a span report: the mentions grouped by length (characters) and by how frequent
their type is in the gold, each bucket scored with its interval, and with several systems the
per-bucket difference and its paired test.

A bucket is a subset of the counts: per document, ``tp`` its gold mentions predicted exactly
(same fragments and type: the ``correct`` items of :mod:`annoscore.align.span_errors`), ``fn``
its other gold mentions, ``fp`` its predictions that are not correct; a prediction falls in the
bucket of its own length or type.  So a bucket is a count matrix (documents x ``tp``, ``fp``,
``fn``) and the project's bootstrap and paired tests (:mod:`annoscore.significance`) apply to it
as to any result.  The counts are the strict pairing of the error categories, whatever
``--mode`` the scores used (the note under the table says so).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from annoscore.align.span_errors import CORRECT
from annoscore.report.html_page import escape, fmt_count, fmt_score

LENGTHS = ((1, 3), (4, 6), (7, 10), (11, 20), (21, None))
"""Length buckets in characters (outer bounds), inclusive."""
FREQUENCIES = ("frequent types", "middle types", "rare types", "types not in the gold")


def _length_names() -> list[str]:
    return [f"{a}-{b} characters" if b is not None else f"{a}+ characters" for a, b in LENGTHS]


def bucket_matrices(columns: Any) -> dict[str, dict[str, Any]]:
    """Per kind (``length``, ``frequency``) and bucket name, its count matrix (the analysis's
    ``columns``: document ids, type names, both sides' columns and the mentions' categories)."""
    import numpy as np

    from annoscore.result import CountMatrix

    ids, types, g, p, errors = columns
    n_docs = len(ids)
    g_right = errors.gold_category == CORRECT
    p_right = errors.pred_category == CORRECT

    def length_bucket(side: Any) -> Any:
        size = side.end - side.start
        bucket = np.full(size.shape[0], len(LENGTHS) - 1, dtype=np.int64)
        for k, (_, high) in reversed(list(enumerate(LENGTHS))):
            if high is not None:
                bucket[size <= high] = k
        return bucket

    gold_count = np.bincount(g.kind, minlength=len(types))
    order = np.argsort(-gold_count, kind="stable")
    share = np.cumsum(gold_count[order]) / max(1, int(gold_count.sum()))
    tier = np.empty(len(types), dtype=np.int64)
    tier[order] = np.where(share <= 1 / 3, 0, np.where(share <= 2 / 3, 1, 2))
    tier[order[:1]] = 0  # the most frequent type is frequent even alone past a third
    tier[gold_count == 0] = 3
    kinds = {
        "length": (_length_names(), length_bucket(g), length_bucket(p)),
        "frequency": (list(FREQUENCIES), tier[g.kind], tier[p.kind]),
    }
    out: dict[str, dict[str, Any]] = {}
    for kind, (names, g_bucket, p_bucket) in kinds.items():
        out[kind] = {}
        for b, name in enumerate(names):
            in_g, in_p = g_bucket == b, p_bucket == b
            columns_of = {
                "tp": np.bincount(g.doc[in_g & g_right], minlength=n_docs),
                "fp": np.bincount(p.doc[in_p & ~p_right], minlength=n_docs),
                "fn": np.bincount(g.doc[in_g & ~g_right], minlength=n_docs),
            }
            if not any(int(c.sum()) for c in columns_of.values()):
                continue
            out[kind][name] = CountMatrix.from_columns(ids, columns_of, integer=("tp", "fp", "fn"))
    return out


def bucket_data(
    matrices: Mapping[str, Mapping[str, Any]], bootstrap: tuple[int, float, int | None] | None
) -> dict[str, Any]:
    """The buckets as the page embeds them: per kind, a list of ``[name, counts, scores,
    intervals]`` (``intervals`` ``null`` without ``bootstrap``: samples, confidence, seed)."""
    from annoscore.metrics.prf import prf_scores
    from annoscore.significance import bootstrap_intervals

    out: dict[str, Any] = {}
    for kind, buckets in matrices.items():
        rows = []
        for name, matrix in buckets.items():
            counts = matrix.total()
            scores = prf_scores(counts)
            intervals = None
            if bootstrap is not None:
                samples, confidence, seed = bootstrap
                found = bootstrap_intervals(
                    (matrix, prf_scores), samples=samples, confidence=confidence, seed=seed
                )
                intervals = {k: None if v is None else list(v) for k, v in found.items()}
            tallies = {k: int(counts[k]) for k in ("tp", "fp", "fn")}
            tallies["gold"] = tallies["tp"] + tallies["fn"]
            rows.append([name, tallies, scores, intervals])
        out[kind] = rows
    return out


def _cell(value: Any, path: Sequence[Any], score: bool = True, tag: str = "td") -> str:
    shown = fmt_score(value) if score else fmt_count(value)
    title = "" if value is None else f' title="{escape(repr(value))}"'
    where = escape(json.dumps(list(path)))
    return f'<{tag} class="num" data-bucket-path="{where}"{title}>{shown}</{tag}>'


def bucket_tables(data: Mapping[str, Any], compared: Mapping[str, Any] | None = None) -> str:
    """The bucket tables (``compared``: per kind and bucket, per system the difference to the
    baseline, its interval and p-value, :func:`compare_buckets`)."""
    titles = {"length": "By length", "frequency": "By type frequency in the gold"}
    parts = []
    for kind, rows in data.items():
        with_ci = any(r[3] is not None for r in rows)
        head = "<th>bucket</th>" + "".join(
            f"<th class='num'>{k}</th>" for k in ("gold", "tp", "fp", "fn")
        )
        for k in ("precision", "recall", "f1"):
            head += f"<th class='num'>{k}</th>" + (
                "<th class='num'>interval</th>" if with_ci else ""
            )
        body = []
        for i, (name, counts, scores, intervals) in enumerate(rows):
            cells = f'<td class="name">{escape(name)}</td>'
            cells += "".join(
                _cell(counts[k], [kind, i, 1, k], False) for k in ("gold", "tp", "fp", "fn")
            )
            for k in ("precision", "recall", "f1"):
                cells += _cell(scores[k], [kind, i, 2, k])
                if with_ci:
                    bounds = None if intervals is None else intervals.get(k)
                    if bounds is None:
                        cells += '<td class="num muted">-</td>'
                    else:
                        low = _cell(bounds[0], [kind, i, 3, k, 0], tag="span")
                        high = _cell(bounds[1], [kind, i, 3, k, 1], tag="span")
                        cells += f'<td class="ci">[{low}, {high}]</td>'
            body.append(f"<tr>{cells}</tr>")
        parts.append(
            f"<h3>{escape(titles.get(kind, kind))}</h3><div class='scroll'><table>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        )
    return "".join(parts)


NOTE = (
    "A bucket holds the gold mentions and the predictions of its length (characters, outer "
    "bounds) or of its type's frequency in the gold (the types sorted by gold count: those "
    "reaching the first third of the gold mentions are frequent, the second third middle, the "
    "rest rare). tp: gold mentions predicted exactly (span and type), fn: the other gold "
    "mentions, fp: the predictions not exact; counted with the error categories' strict "
    "pairing whatever --mode the scores used. Intervals (with --bootstrap): percentile "
    "bootstrap over the documents."
)


def compare_buckets(
    systems: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    test: str = "bootstrap",
    samples: int | None = None,
    seed: int | None = 12345,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Per kind and bucket, each system against the first (the baseline): the paired test of
    :func:`annoscore.significance.paired_test` on the bucket's count matrices (``systems``:
    per system, :func:`bucket_matrices`).  Returns per kind a list of ``[bucket, {system:
    comparison}]`` (the JSON of :class:`~annoscore.significance.SystemComparison`; a bucket a
    system lacks is empty for it)."""
    from annoscore.metrics.prf import prf_scores
    from annoscore.result import CountMatrix, Result
    from annoscore.signature import Signature

    names = list(systems)
    baseline = names[0]
    kinds: dict[str, list[str]] = {}
    for matrices in systems.values():
        for kind, found in matrices.items():
            listed = kinds.setdefault(kind, [])
            listed.extend(b for b in found if b not in listed)
    signature = Signature.of("spans-bucket")
    out: dict[str, Any] = {}
    for kind, listed in kinds.items():
        order = _length_names() if kind == "length" else list(FREQUENCIES)
        rows = []
        for bucket in sorted(listed, key=order.index):
            results = {}
            for name in names:
                matrix = systems[name].get(kind, {}).get(bucket)
                if matrix is None:
                    documents = next(
                        m.get(kind, {})[bucket].documents
                        for m in systems.values()
                        if bucket in m.get(kind, {})
                    )
                    matrix = CountMatrix.of({d: _zero() for d in documents})
                results[name] = Result.from_counts("spans-bucket", signature, matrix, prf_scores)
            from annoscore.significance import paired_test

            tested = paired_test(
                results[baseline],
                {n: results[n] for n in names[1:]},
                test=test,
                samples=samples,
                seed=seed,
                confidence=confidence,
                baseline_name=baseline,
            )
            rows.append([bucket, {n: c.to_json_dict() for n, c in tested.systems.items()}])
        out[kind] = rows
    return out


def _zero() -> Any:
    from annoscore.counts import Counts

    return Counts(tp=0, fp=0, fn=0)


def comparison_tables(data: Mapping[str, Any], names: Sequence[str]) -> str:
    """Per kind, one row per bucket: each system's F1 and, beside the baseline, the difference,
    its interval and p-value (bold below 0.05); every number names its place in ``data``
    (``data-bucket-path``)."""
    titles = {"length": "By length", "frequency": "By type frequency in the gold"}
    parts = []
    for kind, rows in data.items():
        head = "<th>bucket</th>" + "".join(
            f"<th class='num'>{escape(n)} f1</th>"
            + (
                ""
                if i == 0
                else "<th class='num'>difference</th><th>interval</th><th class='num'>p</th>"
            )
            for i, n in enumerate(names)
        )
        body = []
        for r, (bucket, systems) in enumerate(rows):
            cells = f'<td class="name">{escape(bucket)}</td>'
            for i, n in enumerate(names):
                entry = systems.get(n, {})
                path = [kind, r, 1, n]
                cells += _cell(entry.get("scores", {}).get("f1"), [*path, "scores", "f1"])
                if i == 0:
                    continue
                cells += _cell(entry["difference"].get("f1"), [*path, "difference", "f1"])
                bounds = entry["interval"].get("f1")
                if bounds is None:
                    cells += '<td class="muted">-</td>'
                else:
                    low = _cell(bounds[0], [*path, "interval", "f1", 0], tag="span")
                    high = _cell(bounds[1], [*path, "interval", "f1", 1], tag="span")
                    cells += f'<td class="ci">[{low}, {high}]</td>'
                p = entry["p_value"].get("f1")
                cell = _cell(p, [*path, "p_value", "f1"])
                if p is not None and p < 0.05:
                    cell = cell.replace('class="num"', 'class="num sig"', 1)
                cells += cell
            body.append(f"<tr>{cells}</tr>")
        parts.append(
            f"<h3>{escape(titles.get(kind, kind))}</h3><div class='scroll'><table>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        )
    return "".join(parts)
