"""Generic span scoring, written from the definitions (``align/spans.py``'s module doc,
``metrics/spans.py``'s attribution rules, the README), one document and one mention at a time.

A mention is ``(type, fragments)``.  Counts of one document, by type, ``{type: {stat: n}}``:

- ``strict``: pairs are identical fragments of one type; tp of a type = the sum over its distinct
  spans of ``min(#gold, #predicted)``.
- ``exact``: pairs are identical fragments; within a span, same-type pairs first, then the
  leftover gold and predicted mentions, each in type order, paired one to one.
- ``overlap`` / ``relaxed``: pairs are of one type; a maximum matching of the candidate pairs
  (augmenting paths), per type: overlap needs a shared character (or identical fragments) and
  ``shared / basis >= min_overlap``; relaxed needs both outer bounds within ``tolerance``.
- ``token``: the typed whitespace tokens (``str.isspace``) each mention shares a character with,
  as sets.
- SemEval (four schemes): candidates of any type as in overlap; a matching with the most
  credit (COR 2, PAR 1, INC 0), then the most pairs, then the largest sum of closeness (the
  overlap fraction); a pair counts under the gold type, a missed gold mention (MIS) under its
  type, a spurious prediction (SPU) under its type.  Which of several equally good matchings is
  chosen is the implementation's: :func:`semeval_outcomes` lists the per-type tallies of every
  optimal one (small documents), :func:`semeval_totals` the totals, which every optimal matching
  shares.

Matched pairs count under the gold type (tp), an unmatched gold mention is a fn of its type, an
unmatched prediction a fp of its type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

Fragments = tuple[tuple[int, int], ...]
Mention = tuple[str, Fragments]
Table = dict[str, dict[str, int]]

SCHEMES = ("strict", "exact", "partial", "type")
TALLY = ("cor", "inc", "par", "mis", "spu")


def _length(fragments: Fragments) -> int:
    return sum(e - s for s, e in fragments)


def shared(a: Fragments, b: Fragments) -> int:
    """Characters both cover."""
    return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


def overlap_fraction(gold: Fragments, pred: Fragments, basis: str) -> Fraction:
    if gold == pred:
        return Fraction(1)
    common = shared(gold, pred)
    if common == 0:
        return Fraction(0)
    g, p = _length(gold), _length(pred)
    denominator = {
        "gold": g,
        "predicted": p,
        "shorter": min(g, p),
        "longer": max(g, p),
        "union": g + p - common,
    }[basis]
    return Fraction(common, denominator)


def is_overlap_candidate(gold: Fragments, pred: Fragments, min_overlap: float, basis: str) -> bool:
    fraction = overlap_fraction(gold, pred, basis)
    return fraction > 0 and fraction >= Fraction(min_overlap)


def is_relaxed_candidate(gold: Fragments, pred: Fragments, tolerance: int) -> bool:
    return abs(gold[0][0] - pred[0][0]) <= tolerance and abs(gold[-1][1] - pred[-1][1]) <= tolerance


def _add(table: Table, type_name: str, stat: str, n: int = 1) -> None:
    if n:
        table.setdefault(type_name, {})
        table[type_name][stat] = table[type_name].get(stat, 0) + n


def max_matching(n_gold: int, n_pred: int, edge: Callable[[tuple[int, int]], bool]) -> list[int]:
    """A maximum matching (augmenting paths): the partner of each predicted mention or -1."""
    partner = [-1] * n_pred
    adjacency = [[j for j in range(n_pred) if edge((i, j))] for i in range(n_gold)]

    def augment(i: int, visited: set[int]) -> bool:
        for j in adjacency[i]:
            if j in visited:
                continue
            visited.add(j)
            if partner[j] < 0 or augment(partner[j], visited):
                partner[j] = i
                return True
        return False

    for i in range(n_gold):
        augment(i, set())
    return partner


def mode_table(
    mode: str,
    gold: Sequence[Mention],
    pred: Sequence[Mention],
    *,
    min_overlap: float = 0.0,
    basis: str = "gold",
    tolerance: int = 0,
    text: str | None = None,
) -> Table:
    """tp/fp/fn by type of one document in ``mode`` (not SemEval)."""
    table: Table = {}
    if mode == "token":
        assert text is not None
        g_units, p_units = token_units(gold, text), token_units(pred, text)
        for units, stat in (
            (g_units & p_units, "tp"),
            (g_units - p_units, "fn"),
            (p_units - g_units, "fp"),
        ):
            for _, _, type_name in units:
                _add(table, type_name, stat)
        return table
    if mode in ("strict", "exact"):
        by_span: dict[Fragments, tuple[list[str], list[str]]] = {}
        for type_name, fragments in gold:
            by_span.setdefault(fragments, ([], []))[0].append(type_name)
        for type_name, fragments in pred:
            by_span.setdefault(fragments, ([], []))[1].append(type_name)
        for g_types, p_types in by_span.values():
            g_count, p_count = Counter(g_types), Counter(p_types)
            same = {t: min(g_count[t], p_count[t]) for t in g_count}
            for t, n in same.items():
                _add(table, t, "tp", n)
            g_left = sorted((g_count - Counter(same)).elements())
            p_left = sorted((p_count - Counter(same)).elements())
            if mode == "exact":
                k = min(len(g_left), len(p_left))
                for t in g_left[:k]:
                    _add(table, t, "tp")
                g_left, p_left = g_left[k:], p_left[k:]
            for t in g_left:
                _add(table, t, "fn")
            for t in p_left:
                _add(table, t, "fp")
        return table
    for type_name in sorted({t for t, _ in (*gold, *pred)}):
        g = [f for t, f in gold if t == type_name]
        p = [f for t, f in pred if t == type_name]
        if mode == "overlap":
            edges = {
                (i, j)
                for i in range(len(g))
                for j in range(len(p))
                if is_overlap_candidate(g[i], p[j], min_overlap, basis)
            }
        else:
            edges = {
                (i, j)
                for i in range(len(g))
                for j in range(len(p))
                if is_relaxed_candidate(g[i], p[j], tolerance)
            }
        partner = max_matching(len(g), len(p), edges.__contains__)
        matched = sum(1 for x in partner if x >= 0)
        _add(table, type_name, "tp", matched)
        _add(table, type_name, "fn", len(g) - matched)
        _add(table, type_name, "fp", len(p) - matched)
    return table


def tokens(text: str) -> list[tuple[int, int]]:
    """Maximal runs of characters that are not whitespace (``str.isspace``)."""
    out, start = [], None
    for k, char in enumerate(text):
        if char.isspace():
            if start is not None:
                out.append((start, k))
                start = None
        elif start is None:
            start = k
    if start is not None:
        out.append((start, len(text)))
    return out


def token_units(mentions: Sequence[Mention], text: str) -> set[tuple[int, int, str]]:
    found = set()
    spans = tokens(text)
    for type_name, fragments in mentions:
        for s, e in fragments:
            if s >= e:
                continue
            for a, b in spans:
                if a < e and s < b:
                    found.add((a, b, type_name))
    return found


def _credit(scheme: str, gold: Mention, pred: Mention) -> int:
    """COR (2) when the scheme's condition holds, else PAR (1) under partial, INC (0)."""
    same_bounds = gold[1] == pred[1]
    same_type = gold[0] == pred[0]
    correct = {
        "strict": same_bounds and same_type,
        "exact": same_bounds,
        "partial": same_bounds,
        "type": same_type,
    }
    if correct[scheme]:
        return 2
    return 1 if scheme == "partial" else 0


def _fate(credit: int) -> str:
    return {2: "cor", 1: "par", 0: "inc"}[credit]


def _semeval_edges(
    gold: Sequence[Mention], pred: Sequence[Mention], min_overlap: float, basis: str
) -> dict[tuple[int, int], Fraction]:
    return {
        (i, j): overlap_fraction(g[1], p[1], basis)
        for i, g in enumerate(gold)
        for j, p in enumerate(pred)
        if is_overlap_candidate(g[1], p[1], min_overlap, basis)
    }


def semeval_outcomes(
    gold: Sequence[Mention],
    pred: Sequence[Mention],
    min_overlap: float = 0.0,
    basis: str = "gold",
    *,
    closeness: bool = True,
) -> dict[str, set[frozenset[tuple[str, str, int]]]]:
    """For each scheme, the per-type tallies ``frozenset{(type, stat, n)}`` of every optimal
    matching (most credit, then most pairs, then, with ``closeness``, the largest sum of
    overlap fractions).  Exhaustive: for small documents only."""
    edges = _semeval_edges(gold, pred, min_overlap, basis)
    return {scheme: _optimal_outcomes(scheme, gold, pred, edges, closeness) for scheme in SCHEMES}


Outcome = frozenset[tuple[str, str, int]]


def _outcome(
    scheme: str, gold: Sequence[Mention], pred: Sequence[Mention], pairs: list[tuple[int, int]]
) -> Outcome:
    """The per-type tallies ``{(type, stat, n)}`` of one matching."""
    table: Table = {}
    for a, b in pairs:
        _add(table, gold[a][0], f"{scheme}_{_fate(_credit(scheme, gold[a], pred[b]))}")
    matched_gold, matched_pred = {a for a, _ in pairs}, {b for _, b in pairs}
    for a, g in enumerate(gold):
        if a not in matched_gold:
            _add(table, g[0], f"{scheme}_mis")
    for b, p in enumerate(pred):
        if b not in matched_pred:
            _add(table, p[0], f"{scheme}_spu")
    return frozenset((t, k, n) for t, stats in table.items() for k, n in stats.items())


def _optimal_outcomes(
    scheme: str,
    gold: Sequence[Mention],
    pred: Sequence[Mention],
    edges: dict[tuple[int, int], Fraction],
    closeness: bool,
) -> set[Outcome]:
    """Every matching of the candidate ``edges``, enumerated; the outcomes of the best."""
    best: tuple[int, int, Fraction] | None = None
    found: set[Outcome] = set()
    stack: list[tuple[int, frozenset[int], list[tuple[int, int]]]] = [(0, frozenset(), [])]
    while stack:
        i, used, pairs = stack.pop()
        if i == len(gold):
            credit = sum(_credit(scheme, gold[a], pred[b]) for a, b in pairs)
            close = sum((edges[a, b] for a, b in pairs), Fraction(0)) if closeness else 0
            value = (credit, len(pairs), Fraction(close))
            if best is None or value > best:
                best, found = value, {_outcome(scheme, gold, pred, pairs)}
            elif value == best:
                found.add(_outcome(scheme, gold, pred, pairs))
            continue
        stack.append((i + 1, used, pairs))
        for j in range(len(pred)):
            if j not in used and (i, j) in edges:
                stack.append((i + 1, used | {j}, [*pairs, (i, j)]))
    return found


def _max_weight(n_gold: int, n_pred: int, weight: dict[tuple[int, int], int]) -> int:
    """The largest total weight of a one-to-one matching (weights > 0), by augmenting paths:
    from the empty matching, flip the alternating path (from a free gold mention to a free
    prediction) of the largest gain, found by Bellman-Ford relaxation, while that gain is
    positive.  The matching after k flips has the largest weight among those of k pairs, and
    that largest weight is concave in k, so the first gain that is not positive ends it."""
    gold_partner = [-1] * n_gold
    pred_partner = [-1] * n_pred
    total = 0
    while True:
        # best gain of an alternating path from a free gold mention to each node
        gold_gain: list[int | None] = [None] * n_gold
        for i in range(n_gold):
            if gold_partner[i] < 0:
                gold_gain[i] = 0
        pred_gain: list[int | None] = [None] * n_pred
        came_from = [-1] * n_pred  # the gold mention a prediction is reached from
        changed = True
        while changed:
            changed = False
            for (i, j), w in weight.items():  # an unmatched pair may be added
                start = gold_gain[i]
                if start is None or gold_partner[i] == j:
                    continue
                reached = pred_gain[j]
                if reached is None or start + w > reached:
                    pred_gain[j] = start + w
                    came_from[j] = i
                    changed = True
            for j in range(n_pred):  # a matched pair may be taken out
                i = pred_partner[j]
                reached = pred_gain[j]
                if i < 0 or reached is None:
                    continue
                before = gold_gain[i]
                if before is None or reached - weight[i, j] > before:
                    gold_gain[i] = reached - weight[i, j]
                    changed = True
        best_gain = 0
        best_end = -1
        for j in range(n_pred):
            gain = pred_gain[j]
            if pred_partner[j] < 0 and gain is not None and gain > best_gain:
                best_gain = gain
                best_end = j
        if best_end < 0:
            return total
        total += best_gain
        j = best_end
        while j >= 0:  # flip the path, from its end back to its free gold mention
            i = came_from[j]
            given_up = gold_partner[i]
            gold_partner[i] = j
            pred_partner[j] = i
            j = given_up


def semeval_totals(
    gold: Sequence[Mention], pred: Sequence[Mention], min_overlap: float = 0.0, basis: str = "gold"
) -> dict[str, int]:
    """The document's SemEval tallies (no types): the most credit, then the most pairs, which
    every optimal matching shares (COR, PAR and INC follow from credit and pairs)."""
    edges = _semeval_edges(gold, pred, min_overlap, basis)
    out: dict[str, int] = {}
    big = len(gold) + len(pred) + 1
    for scheme in SCHEMES:
        weight = {e: big * _credit(scheme, gold[e[0]], pred[e[1]]) + 1 for e in edges}
        total = _max_weight(len(gold), len(pred), weight)
        credit, pairs = divmod(total, big)
        if scheme == "partial":
            cor, par, inc = credit - pairs, 2 * pairs - credit, 0
        else:
            cor, par, inc = credit // 2, 0, pairs - credit // 2
        out[f"{scheme}_cor"], out[f"{scheme}_par"], out[f"{scheme}_inc"] = cor, par, inc
        out[f"{scheme}_mis"] = len(gold) - pairs
        out[f"{scheme}_spu"] = len(pred) - pairs
    return out


def prf(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    """P, R, F1 with the one rule for undefined numbers (design.md)."""
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fn + fp) if tp + fp + fn else None
    return {"precision": precision, "recall": recall, "f1": f1}


def semeval_scores(totals: dict[str, int]) -> dict[str, float | None]:
    """P = (COR + PAR/2) / ACT, R = (COR + PAR/2) / POS, F their harmonic mean (0 when one side
    is empty, undefined when both are)."""
    out: dict[str, float | None] = {}
    for scheme in SCHEMES:
        cor, inc, par, mis, spu = (totals.get(f"{scheme}_{k}", 0) for k in TALLY)
        pos, act = cor + inc + par + mis, cor + inc + par + spu
        credit = cor + par / 2
        precision = credit / act if act else None
        recall = credit / pos if pos else None
        if precision is None or recall is None:
            f1 = 0.0 if pos + act else None
        else:
            f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        out[f"{scheme}_precision"], out[f"{scheme}_recall"], out[f"{scheme}_f1"] = (
            precision,
            recall,
            f1,
        )
    return out


def plain_corpus_counts(
    mode: str, gold_docs: Sequence[dict[str, Any]], system_docs: Sequence[dict[str, Any]]
) -> dict[str, int]:
    """tp/fp/fn of a corpus in ``mode`` from plain readings (documents as dicts with ``id``,
    ``text`` and ``mentions`` of ``(start, end, type, ...)``), documents paired by id; two
    files of one document each are that one document, whatever their ids."""
    gold_by_id = {d["id"]: d for d in gold_docs}
    system_by_id = {d["id"]: d for d in system_docs}
    if len(gold_by_id) == 1 and len(system_by_id) == 1:  # two files: one document
        (only,) = gold_by_id
        system_by_id = {only: next(iter(system_by_id.values()))}

    def mentions(doc: dict[str, Any] | None) -> list[tuple[str, Any]]:
        return [(m[2], ((m[0], m[1]),)) for m in (doc or {}).get("mentions", [])]

    totals = {"tp": 0, "fp": 0, "fn": 0}
    for doc_id in gold_by_id.keys() | system_by_id.keys():
        g, p = gold_by_id.get(doc_id), system_by_id.get(doc_id)
        body = (g or p or {}).get("text")
        for row in mode_table(mode, mentions(g), mentions(p), text=body).values():
            for stat in totals:
                totals[stat] += row.get(stat, 0)
    return totals
