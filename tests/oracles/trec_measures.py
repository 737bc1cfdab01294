"""trec_eval's per-query measures, one query at a time in plain Python, from the definitions
(trec_eval's ``-h -m all_trec`` descriptions, checked against trec_eval master's outputs in
``../shared/data/trec`` and, for the measures it exposes, against pytrec-eval-terrier).

A query is given as ``ranking`` (the judgement of each retrieved document in rank order, ``None``
for a document not in the qrels, already cut at ``-M``) and ``judgements`` (every judgement of
the query in the qrels).  Relevant: judged >= max(level, 0); judged non-relevant: judged in
[0, level); a judgement below 0 is neither ("in the pool, unjudged", which only ``infAP``
tells apart from a document not in the qrels).
"""

from __future__ import annotations

import math

MIN_GEO_MEAN = 0.00001
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def per_query(
    ranking: list[int | None], judgements: list[int], level: int = 1, version: str = "master"
) -> dict[str, float | int | str]:
    """Every all_trec measure of one query (``gm_*``: the log of the floored
    value, as the geometric mean adds them), as trec_eval ``version`` computes it: ``9.0.8``
    has its own recall rule for ``iprec_at_recall`` and ``11pt_avg`` (a level x is reached at
    the floor(xR + 0.9)-th relevant document, master's at the floor(xR + 0.5)-th: the nearest)
    and no ``rbp``, ``rbp_resid`` or ``unj``."""
    threshold = max(level, 0)

    def relevant(v: int | None) -> bool:
        return v is not None and v >= threshold

    def nonrelevant(v: int | None) -> bool:
        return v is not None and 0 <= v < threshold

    def gain(v: int | None) -> float:
        return float(v) if v is not None and v > 0 else 0.0

    R = sum(1 for v in judgements if v >= threshold)
    N = sum(1 for v in judgements if 0 <= v < threshold)
    n = len(ranking)
    out: dict[str, float | int | str] = {"num_ret": n, "num_rel": R}
    rel_ret = sum(1 for v in ranking if relevant(v))
    out["num_rel_ret"] = rel_ret

    def rel_at(k: int) -> int:
        return sum(1 for v in ranking[:k] if relevant(v))

    def ratio(a: float, b: float) -> float:
        return a / b if b else 0.0

    hits, total, precisions = 0, 0.0, []
    for k, v in enumerate(ranking, 1):
        if relevant(v):
            hits += 1
            total += hits / k
            precisions.append((hits, hits / k))
    ap = ratio(total, R)
    out["map"] = ap
    out["gm_map"] = math.log(max(ap, MIN_GEO_MEAN))
    out["Rprec"] = ratio(rel_at(R), R)
    above, total = 0, 0.0
    for v in ranking:
        if relevant(v):
            total += 1.0 - min(above, R) / min(N, R) if above else 1.0
        elif nonrelevant(v):
            above += 1
    bpref = ratio(total, R)
    out["bpref"] = bpref
    out["recip_rank"] = next((1 / k for k, v in enumerate(ranking, 1) if relevant(v)), 0.0)
    levels = []
    for j in range(11):
        x = j / 10
        need = max(1, math.floor(x * R + (0.9 if version == "9.0.8" else 0.5)))
        found = [p for count, p in precisions if count >= need]
        levels.append(max(found) if found and R else 0.0)
        out[f"iprec_at_recall_{x:.2f}"] = levels[-1]
    for k in CUTOFFS:
        out[f"P_{k}"] = rel_at(k) / k
    out["relstring"] = "'" + "".join("-" if v is None else str(v) for v in ranking[:10]) + "'"
    for k in CUTOFFS:
        out[f"recall_{k}"] = ratio(rel_at(k), R)
    total = 0.0
    rel_above = nonrel_above = pooled_above = 0
    for k, v in enumerate(ranking, 1):
        if relevant(v):
            if k == 1:
                total += 1.0
            else:
                total += 1.0 / k + (k - 1) / k * (pooled_above / (k - 1)) * (
                    (rel_above + 0.00001) / (rel_above + nonrel_above + 2 * 0.00001)
                )
            rel_above += 1
        elif nonrelevant(v):
            nonrel_above += 1
        if v is not None:
            pooled_above += 1
    out["infAP"] = ratio(total, R)
    out["gm_bpref"] = math.log(max(bpref, MIN_GEO_MEAN))
    for j in range(1, 11):
        x = j / 5
        k = math.ceil(x * R)
        out[f"Rprec_mult_{x:.2f}"] = ratio(rel_at(k), k)
    out["utility"] = float(rel_ret - (n - rel_ret))
    out["11pt_avg"] = sum(levels) / 11
    total, nonrel = 0.0, 0
    for v in ranking:
        if relevant(v):
            total += 1 / math.log2(2 + nonrel)
        else:
            nonrel += 1
    out["binG"] = ratio(total, R)
    # G: past the last positive gain of the ideal ranking, its gain grows by 1 a rank
    best = sorted((gain(v) for v in judgements if gain(v) > 0), reverse=True)
    total, so_far = 0.0, 0.0
    for k, v in enumerate(ranking, 1):
        so_far += gain(v)
        ideal = sum(best[:k]) + max(0, k - len(best))
        if gain(v) > 0:
            total += gain(v) / math.log2(2 + ideal - so_far)
    out["G"] = ratio(total, sum(best))

    dcg = [0.0]
    for k, v in enumerate(ranking, 1):
        dcg.append(dcg[-1] + gain(v) / math.log2(k + 1))
    ideal_gains = sorted((gain(v) for v in judgements), reverse=True)
    idcg = [0.0]
    for k, g in enumerate(ideal_gains, 1):
        idcg.append(idcg[-1] + g / math.log2(k + 1))

    def ndcg_at(k: int) -> float:
        return ratio(dcg[min(k, n)], idcg[min(k, len(ideal_gains))])

    full = ndcg_at(n + len(ideal_gains))
    out["ndcg"] = full
    with_gain = sum(1 for v in judgements if gain(v) > 0)
    total, seen = 0.0, 0
    for k, v in enumerate(ranking, 1):
        if gain(v) > 0:
            total += ndcg_at(k)
            seen += 1
    out["ndcg_rel"] = ratio(total + (with_gain - seen) * full, with_gain)
    # Rndcg: at each R-level (judged documents with a gain of at least each positive gain),
    # and at the number retrieved when it passes the last level by more than one
    positive = sorted({gain(v) for v in judgements if gain(v) > 0}, reverse=True)
    r_levels = [sum(1 for v in judgements if gain(v) >= g) for g in positive]
    if r_levels and n > r_levels[-1] + 1:
        r_levels.append(n)
    out["Rndcg"] = sum(ndcg_at(k) for k in r_levels) / len(r_levels) if r_levels and R else 0.0
    for k in CUTOFFS:
        out[f"ndcg_cut_{k}"] = ndcg_at(k)
    for c in CUTOFFS:
        hits, total = 0, 0.0
        for k, v in enumerate(ranking[:c], 1):
            if relevant(v):
                hits += 1
                total += hits / k
        out[f"map_cut_{c}"] = ratio(total, R)
    for k in CUTOFFS:
        out[f"relative_P_{k}"] = ratio(rel_at(k), min(k, R))
    for k in (1, 5, 10):
        out[f"success_{k}"] = 1.0 if rel_at(k) else 0.0
    precision, recall = ratio(rel_ret, n), ratio(rel_ret, R)
    out["set_P"] = precision
    out["set_relative_P"] = ratio(rel_ret, min(n, R))
    out["set_recall"] = recall
    out["set_map"] = precision * recall
    out["set_F"] = ratio(2 * precision * recall, precision + recall)
    out["num_nonrel_judged_ret"] = sum(1 for v in ranking if nonrelevant(v))
    if version == "9.0.8":
        return out
    p = 0.9
    best = max(judgements, default=0)
    rbp = resid = 0.0
    for k, v in enumerate(ranking, 1):
        weight = (1 - p) * p ** (k - 1)
        if v is None:
            resid += weight
        elif relevant(v) and best > 0:
            rbp += weight * v / best
    out["rbp"] = rbp
    out["rbp_resid"] = resid + p**n
    for k in (5, 10, 20):
        out[f"unj_{k}"] = sum(1 for v in ranking[:k] if v is None) / k
    return out


def running_sums(groups: list[list[float]]) -> list[list[float]]:
    """Each group's running sum, added left to right from its first value (as trec_eval adds a
    query's gains, rank after rank)."""
    out: list[list[float]] = []
    for values in groups:
        sums: list[float] = []
        for value in values:
            sums.append(sums[-1] + value if sums else value)
        out.append(sums)
    return out


def sum_from_zero(values: list[float]) -> float:
    """The values added left to right, starting from 0.0 (a per-query total)."""
    total = 0.0
    for value in values:
        total += value
    return total


def ideal_rankings(
    queries: list[int], values: list[int], gains: dict[int, float]
) -> list[tuple[int, float]]:
    """Every judgement as (query, gain), by query, then gain highest first: a judgement's gain
    is the one ``gains`` gives its value, else its value when above 0, else 0."""

    def gain(value: int) -> float:
        if value in gains:
            return gains[value]
        return float(value) if value > 0 else 0.0

    return sorted(
        ((q, gain(v)) for q, v in zip(queries, values, strict=True)), key=lambda p: (p[0], -p[1])
    )
