"""The ARE counts of every document of a corpus at once, from the columns of
:mod:`annoscore.align.are_columns` (the columnar way of ``annoscore are``).

Same definitions as :mod:`annoscore.metrics.anaphora` (which scores one document and makes the
items a report shows): each function here returns the same counts, per document, as one array
per statistic, to the last bit (floats are summed in the same order), and makes no item.  Tests
pin each to its one-document counterpart on random corpora.

**Tasks 2 and 4, MUC** (Vilain et al. 1995), per document::

    recall_num = precision_num = Σ over parts P of (|P| - 1) x mean w over P
    recall_den = Σ over gold chains k of (|k| - 1),   precision_den likewise over system chains

where a part is a non-empty intersection of a gold chain and a system chain (a member with no
counterpart on the other side makes a part of its own and earns nothing) and w = 1 (task 2) or
the overlap with the aligned counterpart (task 4).  In task 2 the numerator is the well-known
Σ_k (|k| - |p(k)|) summed over the gold chains, i.e. (members shared with the other side) - (parts
with a shared member).

>>> import numpy as np
>>> links(np.array([0, 0, 1]), np.array([3, 1, 2]), 2).tolist()   # (3-1) + (1-1), (2-1)
[2, 1]
"""

from __future__ import annotations

from typing import Any

from annoscore.align.are_columns import ChainColumns, IdColumns, PairColumns

# --- task 1 -------------------------------------------------------------------------------------


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


def success_count_columns(ids: IdColumns, documents: int) -> dict[str, Any]:
    """Task 1: the counts of :func:`annoscore.metrics.anaphora.success_credits` for every
    document at once, with arrays (same definition, same counts).

    Per listed pronoun p (K its gold chain, a the antecedent of the first pair for p): 0 when
    unresolved, when K is missing or has one member (``chainless``), a = p or a is not in K; 1
    when a is non-pronominal; when a is pronominal, 0.5 when every member of K is, else 1 when
    ``ok(a)`` and 0.5 when not.  ``ok(x)``: x is not listed, or x's own first answer y is in K,
    y != x, and y is non-pronominal or ``ok(y)``, with no member met twice (p included): for
    every member at once, a walk along the first answers that ends at a non-pronominal member
    (a cycle never does).  Pairs for an unlisted pronoun (``unlisted_pairs``) and later pairs
    for a listed one (``repeated_pairs``) are ignored.

    >>> import numpy as np
    >>> from annoscore.align.are_columns import IdColumns
    >>> ids = IdColumns(                                # K = [4, 62, 70], 62 and 70 listed
    ...     member_chain=np.array([0, 0, 0]), chain_sizes=np.array([3]),
    ...     member_pronominal=np.array([False, True, True]), member_listed=np.array([-1, 0, 1]),
    ...     listed_document=np.array([0, 0]), listed_member=np.array([1, 2]),
    ...     pair_document=np.array([0]), pair_listed=np.array([1]),   # 70 -> 62 only
    ...     pair_antecedent=np.array([1]), pair_self=np.array([False]))
    >>> counts = success_count_columns(ids, 1)
    >>> [float(counts[k][0]) for k in ("credit_sum", "half", "unresolved")]
    [0.5, 1.0, 1.0]
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
    answered = np.flatnonzero(asked)
    places, first_of = np.unique(ids.pair_listed[answered], return_index=True)
    first = answered[first_of]
    answer = np.full(listed_count + 1, -1, dtype=np.int64)  # a's gold member, -1: none
    has_answer = np.zeros(listed_count + 1, dtype=bool)
    self_answer = np.zeros(listed_count + 1, dtype=bool)
    answer[places] = ids.pair_antecedent[first]
    has_answer[places] = True
    self_answer[places] = ids.pair_self[first]
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

    # each listed pronoun's credit
    member = ids.listed_member
    size = chain_sizes[chain[member]]
    alone = size < 2
    target = answer[:listed_count]
    scored = (
        has_answer[:listed_count]
        & ~alone
        & (target >= 0)
        & (chain[target] == chain[member])
        & ~self_answer[:listed_count]
    )
    pronominal_count = np.bincount(
        chain[:members][ids.member_pronominal], minlength=len(chain_sizes)
    )
    only_pronouns = pronominal_count[chain[member]] == size
    full = scored & (~pronominal[target] | (~only_pronouns & ok[target]))
    half = scored & ~full
    credit = np.where(full, 1.0, np.where(half, 0.5, 0.0))

    def per_document(where: Any, mask: Any) -> Any:
        return np.bincount(where[mask], minlength=documents)

    listed_document = ids.listed_document
    return {
        "credit_sum": np.bincount(listed_document, weights=credit, minlength=documents),
        "pronouns": np.bincount(listed_document, minlength=documents),
        "unlisted_pairs": per_document(ids.pair_document, ~asked),
        "repeated_pairs": per_document(ids.pair_document, repeated),
        "full": per_document(listed_document, full),
        "half": per_document(listed_document, half),
        "zero": per_document(listed_document, ~full & ~half),
        "unresolved": per_document(listed_document, ~has_answer[:listed_count]),
        "chainless": per_document(listed_document, alone),
    }


# --- tasks 2 and 4 -----------------------------------------------------------------------------


def links(chain_document: Any, sizes: Any, documents: int) -> Any:
    """Σ (|chain| - 1) over each document's non-empty chains (MUC's denominators); an empty
    chain adds nothing."""
    import numpy as np

    return np.bincount(
        chain_document, weights=np.maximum(sizes - 1, 0), minlength=documents
    ).astype(np.int64)


def muc_columns(
    gold: ChainColumns, system: ChainColumns, match: Any, documents: int
) -> dict[str, Any]:
    """Task 2: MUC counts of each document (see the module doc).

    ``match``: for each system member, the gold chain holding the same id (``-1``: none).
    Numerator = members shared - parts with a shared member (counted per (gold chain, system
    chain) pair).

    >>> import numpy as np
    >>> from annoscore.align.are_columns import ChainColumns
    >>> one = np.zeros(3, dtype=np.int64)
    >>> gold = ChainColumns(np.array([0]), np.array([3]), one, one)
    >>> system = ChainColumns(np.array([0, 0]), np.array([2, 1]), np.array([0, 0, 1]), one)
    >>> counts = muc_columns(gold, system, np.array([0, 0, 0]), 1)
    >>> [int(counts[k][0]) for k in ("recall_num", "recall_den", "precision_den")]
    [1, 2, 1]
    """
    import numpy as np

    hit = match >= 0
    system_chain = system.member_chain
    common = np.bincount(system.chain_document[system_chain[hit]], minlength=documents)
    width = max(len(system.sizes), 1)
    shared_pairs = np.unique(match[hit] * width + system_chain[hit])
    shared = np.bincount(gold.chain_document[shared_pairs // width], minlength=documents)
    numerator = common - shared
    return {
        "recall_num": numerator,
        "recall_den": links(gold.chain_document, gold.sizes, documents),
        "precision_num": numerator,
        "precision_den": links(system.chain_document, system.sizes, documents),
    }


def fractional_muc_columns(
    gold: ChainColumns,
    system: ChainColumns,
    rows: Any,
    cols: Any,
    weights: Any,
    documents: int,
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
        "recall_num": numerator,
        "recall_den": links(gold.chain_document, gold.sizes, documents),
        "precision_num": numerator,
        "precision_den": links(system.chain_document, system.sizes, documents),
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


def overlap_count_columns(
    gold: ChainColumns, pronoun: Any, pairs: PairColumns, width: int, documents: int
) -> dict[str, Any] | None:
    """Task 3: :func:`annoscore.metrics.anaphora.overlap_credits`' counts of every document at
    once, with arrays (same definitions, same float sums); ``None`` when a mention is twice in
    a document's gold chains (the checked way says where).

    ``pronoun``: whether each gold member is marked pronominal; ``width`` > every token
    position.  Per system pair p -> a, in document order:

    - p not a gold pronoun: ``partial_pronoun_pairs`` when it shares a token with one, else
      ``nonreferential_pairs``; a later pair for the same gold pronoun: ``repeated_pairs``;
      all earn 0;
    - the first pair for a gold pronoun: m* = the member of its chain (not p) with the largest
      overlap with a (ties: non-pronominal, earliest start, earliest end); credit =
      overlap(a, m*) when m* is non-pronominal, or when the chain has a non-pronominal member
      and the first pairs lead from m*, member to member (each pronoun's m*), to one; half of it
      otherwise; 0 when nothing overlaps.

    ``pronouns`` = gold pronouns whose chain has another member; ``unresolved`` = those no pair
    answers; ``credit_sum`` summed in pair order.

    >>> import numpy as np
    >>> from annoscore.align.are_columns import ChainColumns, PairColumns
    >>> zero = np.zeros(2, dtype=np.int64)   # one chain: "the government of Zair" ... "it"
    >>> gold = ChainColumns(zero[:1], np.array([2]), zero, zero, np.array([0, 8]),
    ...                     np.array([3, 8]))
    >>> one = np.zeros(1, dtype=np.int64)
    >>> pairs = PairColumns(one, one + 8, one + 8, one, one + 1)   # it -> the government
    >>> counts = overlap_count_columns(gold, np.array([False, True]), pairs, 9, 1)
    >>> [float(counts[k][0]) for k in ("credit_sum", "pairs", "pronouns")]
    [0.5, 1.0, 1.0]
    """
    import numpy as np

    if documents * width * width >= 2**62:
        return None
    members = len(gold.first)
    codes = (gold.member_document * width + gold.first) * width + gold.last
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    if (sorted_codes[1:] == sorted_codes[:-1]).any():
        return None
    chain_size = gold.sizes[gold.member_chain]
    chain_start = np.cumsum(gold.sizes) - gold.sizes

    # the gold member each pair's pronoun is, if any
    wanted = (pairs.document * width + pairs.pronoun_first) * width + pairs.pronoun_last
    at = np.minimum(np.searchsorted(sorted_codes, wanted), max(members - 1, 0))
    found = sorted_codes[at] == wanted if members else np.zeros(len(wanted), dtype=bool)
    member = np.where(found, order[at] if members else 0, -1)
    gold_pronoun = found & pronoun[np.maximum(member, 0)] if members else found

    # not a gold pronoun: partly on one, or not at all
    pronoun_members = np.flatnonzero(pronoun)
    starts = gold.member_document[pronoun_members] * width + gold.first[pronoun_members]
    by_start = np.argsort(starts, kind="stable")
    sorted_starts = starts[by_start]
    reach = np.maximum.accumulate(
        (gold.member_document[pronoun_members] * width + gold.last[pronoun_members])[by_start]
    )
    other = ~gold_pronoun
    before = np.searchsorted(sorted_starts, pairs.document * width + pairs.pronoun_last, "right")
    partial = np.zeros(len(wanted), dtype=bool)
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
    whole = hit & (~pronoun[safe] | (~only_pronouns & reaches[safe]))
    credit = np.where(whole, target_value, 0.5 * target_value)
    credit[~hit | (copies < 2)] = 0.0
    credits = np.zeros(len(wanted), dtype=np.float64)
    credits[first] = credit

    recall = pronoun & (chain_size > 1)
    resolved = np.zeros(members, dtype=bool)
    resolved[p_member] = True

    def per_document(where: Any, mask: Any) -> Any:
        return np.bincount(where[mask], minlength=documents)

    return {
        "credit_sum": np.bincount(pairs.document, weights=credits, minlength=documents),
        "pairs": np.bincount(pairs.document, minlength=documents),
        "pronouns": per_document(gold.member_document, recall),
        "unresolved": per_document(gold.member_document, recall & ~resolved),
        "nonreferential_pairs": per_document(pairs.document, other & ~partial),
        "partial_pronoun_pairs": per_document(pairs.document, partial),
        "repeated_pairs": per_document(pairs.document, repeated),
    }
