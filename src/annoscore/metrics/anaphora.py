"""The counts of the Anaphora Resolution Exercise (ARE 2007), tasks 1-4, for every document of a
corpus at once, and the scorers (what each pronoun or chain earned, the text report's items,
is :mod:`annoscore.metrics.anaphora_items`).

The definitions are ``../shared/spec/are.md``'s (binding where the seed leaves a formula open).
Each count function takes the aligned columns of :mod:`annoscore.align.are` and returns one
array per statistic (one value per document: counts are summed over documents before dividing)
and the items that explain them; a corpus score is the scorer of the summed counts.

**Task 1, success rate** = ``credit_sum / pronouns`` (:func:`success_counts`).  For a pronoun
p of the input's list, K its gold chain and a the system's antecedent (the first pair for p in
document order): 0 when p is unresolved, a is not in K, or a = p; otherwise 1 when a is
non-pronominal; when a is pronominal, 0.5 when K has no non-pronominal member, else 1 when
``ok(a)`` and 0.5 when not.  ``ok(x)``: x is not in the list (the system was never asked to
resolve it), or the system resolved x to some y in K, y ≠ x, y not yet visited on this walk,
and y is non-pronominal or ``ok(y)``.  In words: a pronoun-to-pronoun answer earns full credit
only when the system's own answers lead from the antecedent pronoun, inside the right chain, to
a noun phrase of it.

**Task 2**: MUC (Vilain et al. 1995) over entity ids (:func:`muc_counts`): the numbers of
:func:`annoscore.metrics.coref.muc`.

**Overlap**: :func:`annoscore.align.are.overlap` (the seed's measure, with its examples).

**Task 3** (:func:`overlap_counts`): a system pair (p, a) earns credit only when p has exactly
the start and end of a gold pronoun and is the first pair for it; then m* = the member of
K \\ {p} with the largest overlap with a (ties: a non-pronominal member first, then the earliest
start, then the earliest end), and credit = overlap(a, m*), times 1 or 0.5 by the task 1 rule
when m* is pronominal ("resolved x to y" = the first pair for x, and y its antecedent's own m*).
``precision = credit_sum / pairs`` (every system pair), ``recall = credit_sum / pronouns`` (the
gold pronouns whose chain has another mention).

**Task 4** (:func:`fractional_muc_counts`): system mentions aligned one-to-one to gold mentions
maximising the total overlap (:func:`annoscore.align.are.align_mentions`), w(m) the overlap with
the aligned counterpart (0 unaligned), then :func:`annoscore.metrics.coref.weighted_muc` (whose
float sums these are to the last bit).

**Scores** (:func:`success_scores`, :func:`pair_scores`, :func:`link_scores`) follow the one rule
(:mod:`annoscore.metrics.prf`): a ratio with a 0 denominator is ``None``, F1 is 0 when only one
of P and R is defined and ``None`` when both are undefined.

>>> import numpy as np
>>> links(np.array([0, 0, 1]), np.array([3, 1, 2]), 2).tolist()   # (3-1) + (1-1), (2-1)
[2, 1]
"""

from __future__ import annotations

from typing import Any

from annoscore.align.are import ChainColumns, IdChains, IdLinks, MentionPairs, lookup
from annoscore.align.documents import row_keys
from annoscore.counts import Counts
from annoscore.metrics.anaphora_items import (
    NO_CHAIN,
    NO_OVERLAP,
    NOT_GOLD_PRONOUN,
    NOUN_PHRASE,
    OUTSIDE_CHAIN,
    PARTIAL_PRONOUN,
    PRONOUN_NOT_RESOLVED,
    PRONOUN_ONLY_CHAIN,
    PRONOUN_RESOLVED,
    REASON_CODE,
    REPEATED,
    SELF,
    UNLISTED,
    UNRESOLVED,
    ItemPart,
    PronounParts,
)
from annoscore.metrics.prf import f_of, ratio


def _choose(conditions: list[tuple[Any, str]], size: int) -> Any:
    """The reason of each item: the first condition that holds (one must)."""
    import numpy as np

    reason = np.full(size, -1, dtype=np.int8)
    for holds, name in conditions:
        reason[(reason < 0) & holds] = REASON_CODE[name]
    assert not (reason < 0).any()
    return reason


# --- task 1 -----------------------------------------------------------------------------------


def _walk_status(successor: Any, status: Any) -> Any:
    """Settle the undecided members (status 0) by following ``successor``: each takes its
    successor's status (1 true, 2 false) once that is known; a cycle stays undecided and is
    false.  Returns whether each member's status is true."""
    pending = (status == 0).nonzero()[0]
    while len(pending):
        found = status[successor[pending]]
        known = found != 0
        if not known.any():
            break  # cycles
        status[pending[known]] = found[known]
        pending = pending[~known]
    return status == 1


def success_counts(ids: IdLinks, documents: int) -> tuple[dict[str, Any], PronounParts]:
    """Task 1: each document's counts (the credit rule: the module doc) and the items.

    A listed pronoun whose gold chain is missing or has one member (``chainless``) earns 0.
    ``ok`` is decided for every member at once, by a walk along the first answers that ends at a
    non-pronominal member (a cycle never does).  Pairs for an unlisted pronoun
    (``unlisted_pairs``) and later pairs for a listed one (``repeated_pairs``) are ignored.
    Counts: ``credit_sum``, ``pronouns``, ``unlisted_pairs``, ``repeated_pairs``, ``full``,
    ``half``, ``zero``, ``unresolved``, ``chainless``.
    """
    import numpy as np

    # every per-member and per-place array ends with a sentinel, which index -1 ("none") reads
    listed_count = len(ids.listed_document)
    members = len(ids.member_chain)
    chain = np.append(ids.member_chain, len(ids.chain_sizes))
    chain_sizes = np.append(ids.chain_sizes, 0)
    pronominal = np.append(ids.member_pronominal, False)
    member_listed = np.append(ids.member_listed, -1)

    # the first answer of each listed pronoun
    asked = ids.pair_listed >= 0
    answered_pairs = np.flatnonzero(asked)
    places, first_of = np.unique(ids.pair_listed[answered_pairs], return_index=True)
    first = answered_pairs[first_of]
    answer = np.full(listed_count + 1, -1, dtype=np.int64)  # a's gold member, -1: none
    has_answer = np.zeros(listed_count + 1, dtype=bool)
    self_answer = np.zeros(listed_count + 1, dtype=bool)
    answer_code = np.full(listed_count, -1, dtype=np.int64)
    answer[places] = ids.pair_antecedent[first]
    has_answer[places] = True
    self_answer[places] = ids.pair_self[first]
    answer_code[places] = ids.pair_antecedent_code[first]
    repeated = asked.copy()
    repeated[first] = False

    # the walk: each member's first answer, when it is another member of its chain
    member_answer = answer[member_listed]
    valid = (
        has_answer[member_listed]
        & (member_answer >= 0)
        & (chain[member_answer] == chain)
        & (member_answer != np.arange(members + 1))
    )
    status = np.full(members + 1, 2, dtype=np.int8)  # 1 ok, 2 not ok, 0 undecided
    status[member_listed < 0] = 1  # not listed: ok
    listed_valid = (member_listed >= 0) & valid
    status[listed_valid] = np.where(pronominal[member_answer[listed_valid]], 0, 1)
    ok = _walk_status(np.where(valid, member_answer, members), status)

    # each listed pronoun's credit and reason
    member = ids.listed_member
    size = chain_sizes[chain[member]]
    alone = size < 2
    target = answer[:listed_count]
    resolved = has_answer[:listed_count]
    inside = (target >= 0) & (chain[target] == chain[member])
    pronominal_count = np.bincount(
        chain[:members][ids.member_pronominal], minlength=len(chain_sizes)
    )
    only_pronouns = pronominal_count[chain[member]] == size
    scored = resolved & ~alone & inside & ~self_answer[:listed_count]
    full = scored & (~pronominal[target] | (~only_pronouns & ok[target]))
    half = scored & ~full
    credit = np.where(full, 1.0, np.where(half, 0.5, 0.0))

    def per_document(where: Any, mask: Any) -> Any:
        return np.bincount(where[mask], minlength=documents)

    listed_document = ids.listed_document
    counts = {
        "credit_sum": np.bincount(listed_document, weights=credit, minlength=documents),
        "pronouns": np.bincount(listed_document, minlength=documents),
        "unlisted_pairs": per_document(ids.pair_document, ~asked),
        "repeated_pairs": per_document(ids.pair_document, repeated),
        "full": per_document(listed_document, full),
        "half": per_document(listed_document, half),
        "zero": per_document(listed_document, ~full & ~half),
        "unresolved": per_document(listed_document, ~resolved),
        "chainless": per_document(listed_document, alone),
    }
    reason = _choose(
        [
            (~resolved, UNRESOLVED),
            (alone, NO_CHAIN),
            (self_answer[:listed_count], SELF),
            (~inside, OUTSIDE_CHAIN),
            (~pronominal[target], NOUN_PHRASE),
            (only_pronouns, PRONOUN_ONLY_CHAIN),
            (full, PRONOUN_RESOLVED),
            (half, PRONOUN_NOT_RESOLVED),
        ],
        listed_count,
    )
    ignored = np.flatnonzero(~asked | repeated)
    ignored_pronoun = ids.pair_pronoun[ignored]
    ignored_answer = ids.pair_antecedent_code[ignored]
    items = PronounParts(
        (
            ItemPart(
                listed_document,
                (ids.listed_code, ids.listed_code),
                (answer_code, answer_code),
                resolved,
                (answer_code, answer_code),
                resolved & inside,
                np.nan,
                credit,
                reason,
            ),
            ItemPart(
                ids.pair_document[ignored],
                (ignored_pronoun, ignored_pronoun),
                (ignored_answer, ignored_answer),
                True,
                (ignored_answer, ignored_answer),
                False,
                np.nan,
                0.0,
                np.where(asked[ignored], REASON_CODE[REPEATED], REASON_CODE[UNLISTED]),
            ),
        )
    )
    return counts, items


# --- tasks 2 and 4 -----------------------------------------------------------------------------


def links(chain_document: Any, sizes: Any, documents: int) -> Any:
    """Σ (|chain| - 1) over each document's non-empty chains (MUC's denominators); an empty
    chain adds nothing."""
    import numpy as np

    return np.bincount(
        chain_document, weights=np.maximum(sizes - 1, 0), minlength=documents
    ).astype(np.int64)


def muc_counts(chains: IdChains, documents: int) -> dict[str, Any]:
    """Task 2: MUC counts of each document (see the module doc).

    Numerator = members shared - parts with a shared member (counted per (gold chain, system
    chain) pair), ``chains.match`` giving each system member's gold chain (``-1``: none).
    """
    import numpy as np

    gold, system, match = chains.gold, chains.system, chains.match
    hit = match >= 0
    system_chain = system.member_chain
    common = np.bincount(system.chain_document[system_chain[hit]], minlength=documents)
    width = max(len(system.sizes), 1)
    shared_pairs = np.unique(match[hit] * width + system_chain[hit])
    shared = np.bincount(gold.chain_document[shared_pairs // width], minlength=documents)
    return _muc(gold, system, common - shared, documents)


def _muc(
    gold: ChainColumns, system: ChainColumns, numerator: Any, documents: int
) -> dict[str, Any]:
    """MUC's four counts: the numerator both ratios share, the gold's and the system's links."""
    return {
        "recall_num": numerator,
        "recall_den": links(gold.chain_document, gold.sizes, documents),
        "precision_num": numerator,
        "precision_den": links(system.chain_document, system.sizes, documents),
    }


def fractional_muc_counts(
    gold: ChainColumns, system: ChainColumns, rows: Any, cols: Any, weights: Any, documents: int
) -> dict[str, Any]:
    """Task 4: the fractional MUC counts of each document (see the module doc), from the
    alignment ``(rows, cols, weights)`` (gold member, system member, overlap); plus
    ``aligned``, ``gold_mentions``, ``system_mentions``.

    A part is (gold chain, system chain) of aligned pairs; it earns (n - 1) x mean w, n > 1
    (an unaligned member earns nothing).  Sums are taken in the order of
    :func:`annoscore.metrics.coref.weighted_muc` (smallest first), so the floats are its own.
    """
    import numpy as np

    system_chains = max(len(system.sizes), 1)
    part = gold.member_chain[rows] * system_chains + system.member_chain[cols]
    order = np.lexsort((weights, part))
    part_codes, part_index, part_sizes = np.unique(
        part[order], return_inverse=True, return_counts=True
    )
    part_sums = np.bincount(part_index, weights=weights[order])
    several = part_sizes > 1
    n = part_sizes[several].astype(np.float64)
    terms = (n - 1) * part_sums[several] / n
    term_document = gold.chain_document[part_codes[several] // system_chains]
    order = np.lexsort((terms, term_document))
    numerator = np.bincount(term_document[order], weights=terms[order], minlength=documents)
    return {
        **_muc(gold, system, numerator, documents),
        "aligned": np.bincount(gold.member_document[rows], minlength=documents),
        "gold_mentions": np.bincount(gold.member_document, minlength=documents),
        "system_mentions": np.bincount(system.member_document, minlength=documents),
    }


# --- task 3 -------------------------------------------------------------------------------------


def _segments(counts: Any) -> Any:
    """For items repeated ``counts`` times, each copy's rank in its run: ``[0, 1, 0, 1, 2]``
    for counts ``[2, 3]``."""
    import numpy as np

    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _reaches_noun_phrase(successor: Any, pronominal: Any) -> Any:
    """For every member: following ``successor`` (``-1``: none) from it through pronominal
    members, does the path reach a non-pronominal member?  A path that ends at a member
    without successor, or goes round a cycle, does not (task 1's walk, for every start at once:
    a non-pronominal member is never among the visited, and the first pair's pronoun p leads
    back to its own target, so meeting p is a cycle)."""
    import numpy as np

    size = len(successor)
    status = np.zeros(size, dtype=np.int8)  # 0 unknown, 1 reaches, 2 does not
    has = successor >= 0
    status[~has] = 2
    target = np.where(has, successor, 0)
    status[has & ~pronominal[target]] = 1
    return _walk_status(target, status)


def overlap_counts(
    gold: ChainColumns, pronoun: Any, pairs: MentionPairs, documents: int
) -> tuple[dict[str, Any], PronounParts]:
    """Task 3: each document's counts (the credit rule: the module doc) and the items.

    ``pronoun``: whether each gold member is marked pronominal (the gold pronouns; mentions are
    distinct on each side).  A system pair p -> a whose p is no gold pronoun counts in
    ``partial_pronoun_pairs`` when it shares a token with one, else in ``nonreferential_pairs``;
    a later pair for the same gold pronoun in ``repeated_pairs``; all earn 0, as does a first
    pair whose a overlaps no member.  ``unresolved`` = the gold pronouns of ``pronouns`` no pair
    answers; ``credit_sum`` is summed in pair order.
    """
    import numpy as np

    members = len(gold.first)
    chain_size = gold.sizes[gold.member_chain]
    chain_start = np.cumsum(gold.sizes) - gold.sizes

    # the gold member each pair's pronoun is, if any (gold mentions are distinct)
    (gold_keys, pair_keys), _ = row_keys(
        (gold.member_document, gold.first, gold.last),
        (pairs.document, pairs.pronoun_first, pairs.pronoun_last),
    )
    member = lookup(gold_keys, pair_keys)
    found = member >= 0
    gold_pronoun = found & pronoun[np.maximum(member, 0)] if members else found

    # not a gold pronoun: partly on one, or not at all (positions of one document)
    width = int(max(gold.last.max(initial=0), pairs.pronoun_last.max(initial=0))) + 2
    pronoun_members = np.flatnonzero(pronoun)
    starts = gold.member_document[pronoun_members] * width + gold.first[pronoun_members]
    by_start = np.argsort(starts, kind="stable")
    sorted_starts = starts[by_start]
    reach = np.maximum.accumulate(
        (gold.member_document[pronoun_members] * width + gold.last[pronoun_members])[by_start]
    )
    other = ~gold_pronoun
    before = np.searchsorted(sorted_starts, pairs.document * width + pairs.pronoun_last, "right")
    partial = np.zeros(len(pairs.document), dtype=bool)
    if len(sorted_starts):
        partial = other & (before > 0)
        partial &= reach[np.maximum(before - 1, 0)] >= pairs.document * width + pairs.pronoun_first

    # the first pair of each gold pronoun; later ones are repeated
    answered = np.flatnonzero(gold_pronoun)
    _, first_of = np.unique(member[answered], return_index=True)
    first = answered[first_of]
    repeated = gold_pronoun.copy()
    repeated[first] = False

    # m*: each first pair's best overlapping member of its pronoun's chain
    p_member = member[first]
    p_chain = gold.member_chain[p_member]
    copies = gold.sizes[p_chain]
    candidate_pair = np.repeat(np.arange(len(first)), copies)
    candidate = np.repeat(chain_start[p_chain], copies) + _segments(copies)
    keep = candidate != p_member[candidate_pair]
    candidate_pair, candidate = candidate_pair[keep], candidate[keep]
    a_first = pairs.antecedent_first[first][candidate_pair]
    a_last = pairs.antecedent_last[first][candidate_pair]
    shared = np.minimum(a_last, gold.last[candidate]) - np.maximum(a_first, gold.first[candidate])
    keep = shared >= 0
    candidate_pair, candidate = candidate_pair[keep], candidate[keep]
    longest = np.maximum(a_last[keep] - a_first[keep], gold.last[candidate] - gold.first[candidate])
    value = (shared[keep] + 1) / (longest + 1)
    best = np.lexsort(
        (gold.last[candidate], gold.first[candidate], pronoun[candidate], -value, candidate_pair)
    )
    chosen, at_best = np.unique(candidate_pair[best], return_index=True)
    target = np.full(len(first), -1, dtype=np.int64)
    target_value = np.zeros(len(first), dtype=np.float64)
    target[chosen] = candidate[best[at_best]]
    target_value[chosen] = value[best[at_best]]

    # the walk, for every target at once
    successor = np.full(members, -1, dtype=np.int64)
    successor[p_member] = target
    reaches = _reaches_noun_phrase(successor, pronoun)
    pronominal_in_chain = np.bincount(gold.member_chain[pronoun_members], minlength=len(gold.sizes))
    only_pronouns = pronominal_in_chain[p_chain] == gold.sizes[p_chain]
    hit = target >= 0
    safe = np.maximum(target, 0)
    alone = copies < 2
    whole = hit & (~pronoun[safe] | (~only_pronouns & reaches[safe]))
    credit = np.where(whole, target_value, 0.5 * target_value)
    credit[~hit | alone] = 0.0
    credits = np.zeros(len(pairs.document), dtype=np.float64)
    credits[first] = credit

    recall = pronoun & (chain_size > 1)
    resolved = np.zeros(members, dtype=bool)
    resolved[p_member] = True

    def per_document(where: Any, mask: Any) -> Any:
        return np.bincount(where[mask], minlength=documents)

    counts = {
        "credit_sum": np.bincount(pairs.document, weights=credits, minlength=documents),
        "pairs": np.bincount(pairs.document, minlength=documents),
        "pronouns": per_document(gold.member_document, recall),
        "unresolved": per_document(gold.member_document, recall & ~resolved),
        "nonreferential_pairs": per_document(pairs.document, other & ~partial),
        "partial_pronoun_pairs": per_document(pairs.document, partial),
        "repeated_pairs": per_document(pairs.document, repeated),
    }

    # the items: every pair, then every gold pronoun left unresolved
    pair_count = len(pairs.document)
    reason = np.full(pair_count, REASON_CODE[NOT_GOLD_PRONOUN], dtype=np.int8)
    reason[partial] = REASON_CODE[PARTIAL_PRONOUN]
    reason[repeated] = REASON_CODE[REPEATED]
    reason[first] = _choose(
        [
            (alone, NO_CHAIN),
            (~hit, NO_OVERLAP),
            (~pronoun[safe], NOUN_PHRASE),
            (only_pronouns, PRONOUN_ONLY_CHAIN),
            (whole, PRONOUN_RESOLVED),
            (~whole, PRONOUN_NOT_RESOLVED),
        ],
        len(first),
    )
    targeted = np.zeros(pair_count, dtype=bool)
    targeted[first] = hit
    target_of = np.zeros(pair_count, dtype=np.int64)
    target_of[first] = safe
    overlap = np.full(pair_count, np.nan)
    overlap[first] = target_value
    left = np.flatnonzero(recall & ~resolved)
    left_first, left_last = gold.first[left], gold.last[left]
    target_rows = (gold.first[target_of], gold.last[target_of]) if members else (0, 0)
    items = PronounParts(
        (
            ItemPart(
                pairs.document,
                (pairs.pronoun_first, pairs.pronoun_last),
                (pairs.antecedent_first, pairs.antecedent_last),
                True,
                target_rows,
                targeted,
                overlap,
                credits,
                reason,
            ),
            ItemPart(
                gold.member_document[left],
                (left_first, left_last),
                (left_first, left_last),
                False,
                (left_first, left_last),
                False,
                np.nan,
                0.0,
                REASON_CODE[UNRESOLVED],
            ),
        )
    )
    return counts, items


# --- scorers ----------------------------------------------------------------------------------


def success_scores(counts: Counts) -> dict[str, float | None]:
    """Task 1: ``success_rate = credit_sum / pronouns`` (``None`` with no pronoun to resolve)."""
    return {"success_rate": ratio(counts["credit_sum"], counts["pronouns"])}


def pair_scores(counts: Counts) -> dict[str, float | None]:
    """Task 3: recall = credit_sum / pronouns, precision = credit_sum / pairs, F1 (:func:`f_of`).

    >>> pair_scores(Counts(credit_sum=1.5, pairs=3, pronouns=2))
    {'recall': 0.75, 'precision': 0.5, 'f1': 0.6}
    """
    recall = ratio(counts["credit_sum"], counts["pronouns"])
    precision = ratio(counts["credit_sum"], counts["pairs"])
    return {"recall": recall, "precision": precision, "f1": f_of(precision, recall)}


def link_scores(counts: Counts) -> dict[str, float | None]:
    """Tasks 2 and 4: recall = recall_num / recall_den, precision likewise, F1 (:func:`f_of`).

    >>> link_scores(Counts(recall_num=1, recall_den=2, precision_num=1, precision_den=1))
    {'recall': 0.5, 'precision': 1.0, 'f1': 0.6666666666666666}
    """
    recall = ratio(counts["recall_num"], counts["recall_den"])
    precision = ratio(counts["precision_num"], counts["precision_den"])
    return {"recall": recall, "precision": precision, "f1": f_of(precision, recall)}
