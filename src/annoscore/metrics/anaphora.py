"""The credit functions of the Anaphora Resolution Exercise (ARE 2007), tasks 1-4.

The definitions are ``../shared/spec/are.md``'s (binding where the seed leaves a formula open).
Every function scores ONE document and returns additive :class:`~annoscore.counts.Counts` plus
the items a report shows (what the system chose for each pronoun or chain, and what it earned);
a corpus score is the scorer of the summed counts.

**Task 1, success rate** = ``credit_sum / pronouns`` (:func:`success_credits`).  For a pronoun
p of the input's list, K its gold chain and a the system's antecedent (the first pair for p in
document order): 0 when p is unresolved, a is not in K, or a = p; otherwise 1 when a is
non-pronominal; when a is pronominal, 0.5 when K has no non-pronominal member, else 1 when
``ok(a)`` and 0.5 when not.  ``ok(x)``: x is not in the list (the system was never asked to
resolve it), or the system resolved x to some y in K, y ≠ x, y not yet visited on this walk,
and y is non-pronominal or ``ok(y)``.  In words: a pronoun-to-pronoun answer earns full credit
only when the system's own answers lead from the antecedent pronoun, inside the right chain, to
a noun phrase of it.

**Task 2**: MUC (Vilain et al. 1995) over entity ids: :func:`annoscore.metrics.coref.muc` itself.

**Overlap** (:func:`annoscore.align.are.overlap`, the seed's measure) = token positions two
mentions share / max(len1, len2), lengths in tokens of the input: "the government of Zair" vs
"the government" = 2/4 = 0.5; vs "Zair's government" (elsewhere in the text) = 0.

**Task 3** (:func:`overlap_credits`): a system pair (p, a) earns credit only when p has exactly
the start and end of a gold pronoun and is the first pair for it; then m* = the member of
K \\ {p} with the largest overlap with a (ties: a non-pronominal member first, then the earliest
start, then the earliest end), and credit = overlap(a, m*), times 1 or 0.5 by the task 1 rule
when m* is pronominal ("resolved x to y" = the first pair for x, and y its antecedent's own m*).
``precision = credit_sum / pairs`` (every system pair), ``recall = credit_sum / pronouns`` (the
gold pronouns whose chain has another mention).

**Task 4** (:func:`fractional_muc`): system mentions aligned one-to-one to gold mentions
maximising the total overlap (:func:`annoscore.align.are.align_mentions`); w(m) = the overlap
with the aligned counterpart (0 unaligned); then MUC with fractional credit, each part P of a
chain earning (|P| - 1) x mean of w over P (:func:`annoscore.metrics.coref.weighted_muc`).  With
every w = 1 it is Vilain's MUC.

**Scores** (:func:`success_scores`, :func:`pair_scores`, :func:`link_scores`): a ratio with a 0
denominator is ``None``; F1 = 2PR/(P+R) from the summed counts, 0 when P + R = 0 or when only
one of P and R is defined (nothing could earn credit), ``None`` only when both are undefined.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from annoscore.counts import Counts
from annoscore.metrics.prf import ratio

if TYPE_CHECKING:
    from annoscore.align.are import Mention

I = TypeVar("I", bound=Hashable)  # noqa: E741 - an entity id

# reasons an item earned what it earned (the report explains each)
NOUN_PHRASE = "noun-phrase"
PRONOUN_RESOLVED = "pronoun-resolved"
PRONOUN_NOT_RESOLVED = "pronoun-not-resolved"
PRONOUN_ONLY_CHAIN = "pronoun-only-chain"
OUTSIDE_CHAIN = "outside-chain"
SELF = "self"
UNRESOLVED = "unresolved"
NO_CHAIN = "no-chain"
NO_OVERLAP = "no-overlap"
NOT_GOLD_PRONOUN = "not-gold-pronoun"
PARTIAL_PRONOUN = "partial-pronoun"
REPEATED = "repeated"
UNLISTED = "unlisted"


@dataclass(frozen=True, slots=True)
class PronounCredit:
    """What one pronoun (task 1) or one system pair (task 3) earned, and why.

    ``pronoun``: the pronoun (an id, or a mention); ``answer``: the system's antecedent
    (``None`` when unresolved); ``target``: the gold member the credit was computed against
    (task 3's m*; task 1: the answer itself when it is in the chain); ``overlap``: task 3's
    overlap(a, m*); ``credit`` and ``reason`` (one of this module's reason constants).
    """

    pronoun: Hashable
    answer: Hashable | None
    credit: float
    reason: str
    target: Hashable | None = None
    overlap: float | None = None


@dataclass(frozen=True, slots=True)
class ChainCredit:
    """One chain of one side cut by the other side's chains (tasks 2 and 4).

    ``side`` is ``"gold"`` (recall) or ``"system"`` (precision); ``members`` in document
    order; ``parts`` the members grouped by the other side's chain they went to (a member with
    no counterpart is a part of its own); ``part_weights`` the mean w of each part (1 in task
    2); ``earned`` = Σ (|P| - 1) x mean w, ``possible`` = |chain| - 1.
    """

    side: str
    chain: int
    members: tuple[Hashable, ...]
    parts: tuple[tuple[Hashable, ...], ...]
    part_weights: tuple[float, ...]
    earned: float
    possible: int


# --- task 1 -----------------------------------------------------------------------------------


def first_answers(
    pairs: Sequence[tuple[I, I]], wanted: Collection[I]
) -> tuple[dict[I, I], list[PronounCredit]]:
    """The first answer for each wanted pronoun, and the pairs ignored.

    Returns ``(answers, ignored)``: pairs whose pronoun is not wanted (reason ``unlisted``), and
    later pairs for a pronoun already answered (``repeated``), are ignored (decision 3); each
    ignored pair is an item with credit 0 for the report.
    """
    answers: dict[I, I] = {}
    ignored: list[PronounCredit] = []
    for pronoun, antecedent in pairs:
        if pronoun not in wanted:
            ignored.append(PronounCredit(pronoun, antecedent, 0.0, UNLISTED))
        elif pronoun in answers:
            ignored.append(PronounCredit(pronoun, antecedent, 0.0, REPEATED))
        else:
            answers[pronoun] = antecedent
    return answers, ignored


def _walk_ok(
    start: I,
    chain: Collection[I],
    pronominal: Collection[I],
    asked: Collection[I],
    answers: Mapping[I, I],
    visited: set[I],
) -> bool:
    """``ok(start)`` of task 1 (see the module doc), iteratively."""
    x = start
    while True:
        if x not in asked:
            return True
        y = answers.get(x)
        if y is None or y not in chain or y == x or y in visited:
            return False
        if y not in pronominal:
            return True
        visited.add(y)
        x = y


def success_credits(
    listed: Sequence[I],
    gold_chains: Sequence[Collection[I]],
    pronominal: Collection[I],
    pairs: Sequence[tuple[I, I]],
) -> tuple[Counts, tuple[PronounCredit, ...]]:
    """Task 1 credits of one document (see the module doc).

    ``listed``: the pronouns to resolve (the input's list); ``gold_chains``: the gold chains of
    entity ids; ``pronominal``: the ids marked pronominal; ``pairs``: the system's (pronoun,
    antecedent) pairs in document order.  Items: one per listed pronoun, then one per ignored
    pair.  Counts: ``credit_sum`` (float), ``pronouns``
    (= len(listed)), ``full``, ``half``, ``zero``, ``unresolved``, ``chainless`` (listed pronouns
    in no gold chain or alone in one), ``unlisted_pairs``, ``repeated_pairs``.

    >>> chains = [{"4", "62", "70"}]
    >>> counts, items = success_credits(["62", "70"], chains, {"62", "70"},
    ...                                 [("62", "4"), ("70", "62")])
    >>> counts["credit_sum"], [item.credit for item in items]
    (2.0, [1.0, 1.0])
    >>> counts, items = success_credits(["62", "70"], chains, {"62", "70"}, [("70", "62")])
    >>> [(item.credit, item.reason) for item in items]
    [(0.0, 'unresolved'), (0.5, 'pronoun-not-resolved')]
    """
    chain_of: dict[I, Collection[I]] = {}
    for gold_chain in gold_chains:
        for member in gold_chain:
            chain_of[member] = gold_chain
    asked = set(listed)
    answers, ignored = first_answers(pairs, asked)
    items = []
    tally = {"full": 0, "half": 0, "zero": 0, "unresolved": 0, "chainless": 0}
    total = 0.0
    for pronoun in listed:
        chain = chain_of.get(pronoun)
        answer = answers.get(pronoun)
        if chain is None or len(chain) < 2:
            tally["chainless"] += 1
        if answer is None:
            credit, reason = 0.0, UNRESOLVED
            tally["unresolved"] += 1
        elif chain is None or len(chain) < 2:
            credit, reason = 0.0, NO_CHAIN
        elif answer == pronoun:
            credit, reason = 0.0, SELF
        elif answer not in chain:
            credit, reason = 0.0, OUTSIDE_CHAIN
        elif answer not in pronominal:
            credit, reason = 1.0, NOUN_PHRASE
        elif all(member in pronominal for member in chain):
            credit, reason = 0.5, PRONOUN_ONLY_CHAIN
        elif _walk_ok(answer, chain, pronominal, asked, answers, {pronoun, answer}):
            credit, reason = 1.0, PRONOUN_RESOLVED
        else:
            credit, reason = 0.5, PRONOUN_NOT_RESOLVED
        tally["full" if credit == 1 else "half" if credit == 0.5 else "zero"] += 1
        total += credit
        target = answer if chain is not None and answer in chain else None
        items.append(PronounCredit(pronoun, answer, credit, reason, target))
    counts = Counts(
        credit_sum=total,
        pronouns=len(listed),
        unlisted_pairs=sum(1 for item in ignored if item.reason == UNLISTED),
        repeated_pairs=sum(1 for item in ignored if item.reason == REPEATED),
        **tally,
    )
    return counts, (*items, *ignored)


# --- task 3 -----------------------------------------------------------------------------------


def _best_member(
    antecedent: Mention,
    candidates: Sequence[Mention],
    pronominal: Collection[Mention],
    overlap: Callable[[Mention, Mention], float],
) -> tuple[Mention | None, float]:
    """m*: the candidate with the largest overlap (> 0) with ``antecedent`` (ties: see doc)."""
    best: Mention | None = None
    best_key: tuple[float, bool, int, int] | None = None
    for member in candidates:
        value = overlap(antecedent, member)
        if value <= 0:
            continue
        key = (-value, member in pronominal, member[0], member[1])
        if best_key is None or key < best_key:
            best, best_key = member, key
    return best, (0.0 if best_key is None else -best_key[0])


def overlap_credits(
    gold_chains: Sequence[Sequence[Mention]],
    pronominal: Collection[Mention],
    pairs: Sequence[tuple[Mention, Mention]],
) -> tuple[Counts, tuple[PronounCredit, ...]]:
    """Task 3 credits of one document (see the module doc); mentions are token positions.

    ``gold_chains``: the gold chains of mentions; ``pronominal``: the gold mentions marked
    pronominal (the gold pronouns); ``pairs``: the system's (pronoun, antecedent) pairs in
    document order.  One item per system pair, then one per gold pronoun left unresolved.
    Counts: ``credit_sum``, ``pairs`` (precision denominator), ``pronouns`` (recall
    denominator), ``unresolved`` (of those, the ones no pair answers), ``nonreferential_pairs``
    (pronoun overlapping no gold pronoun), ``partial_pronoun_pairs`` (overlapping one, not
    exactly), ``repeated_pairs``.

    >>> chains = [[(0, 3), (8, 8)]]                     # "the government of Zair" ... "it"
    >>> counts, items = overlap_credits(chains, {(8, 8)}, [((8, 8), (0, 1))])
    >>> counts["credit_sum"], counts["pairs"], counts["pronouns"]
    (0.5, 1, 1)
    """
    from annoscore.align.are import overlap

    chain_of: dict[Mention, int] = {}
    for index, chain in enumerate(gold_chains):
        for member in chain:
            chain_of[member] = index
    gold_pronouns = [m for chain in gold_chains for m in chain if m in pronominal]
    covered: set[int] = set()
    for first, last in gold_pronouns:
        covered.update(range(first, last + 1))
    first_pair: dict[Mention, Mention] = {}
    for pronoun, antecedent in pairs:
        if pronoun in pronominal and pronoun in chain_of and pronoun not in first_pair:
            first_pair[pronoun] = antecedent
    targets: dict[Mention, tuple[Mention | None, float]] = {}
    for pronoun, antecedent in first_pair.items():
        others = [m for m in gold_chains[chain_of[pronoun]] if m != pronoun]
        targets[pronoun] = _best_member(antecedent, others, pronominal, overlap)
    resolved_to = {p: target for p, (target, _) in targets.items() if target is not None}

    items: list[PronounCredit] = []
    tally = {"nonreferential_pairs": 0, "partial_pronoun_pairs": 0, "repeated_pairs": 0}
    total = 0.0
    credited: set[Mention] = set()
    for pronoun, antecedent in pairs:
        if pronoun not in pronominal or pronoun not in chain_of:
            partial = any(p in covered for p in range(pronoun[0], pronoun[1] + 1))
            reason = PARTIAL_PRONOUN if partial else NOT_GOLD_PRONOUN
            tally["partial_pronoun_pairs" if partial else "nonreferential_pairs"] += 1
            items.append(PronounCredit(pronoun, antecedent, 0.0, reason))
            continue
        if pronoun in credited:
            tally["repeated_pairs"] += 1
            items.append(PronounCredit(pronoun, antecedent, 0.0, REPEATED))
            continue
        credited.add(pronoun)
        chain = gold_chains[chain_of[pronoun]]
        target, value = targets[pronoun]
        if len(chain) < 2:
            credit, reason = 0.0, NO_CHAIN
        elif target is None:
            credit, reason = 0.0, NO_OVERLAP
        elif target not in pronominal:
            credit, reason = value, NOUN_PHRASE
        elif all(member in pronominal for member in chain):
            credit, reason = 0.5 * value, PRONOUN_ONLY_CHAIN
        elif _walk_ok(target, chain, pronominal, pronominal, resolved_to, {pronoun, target}):
            credit, reason = value, PRONOUN_RESOLVED
        else:
            credit, reason = 0.5 * value, PRONOUN_NOT_RESOLVED
        total += credit
        items.append(PronounCredit(pronoun, antecedent, credit, reason, target, value))
    recall_pronouns = [p for p in gold_pronouns if len(gold_chains[chain_of[p]]) > 1]
    unresolved = [p for p in recall_pronouns if p not in first_pair]
    items.extend(PronounCredit(p, None, 0.0, UNRESOLVED) for p in unresolved)
    counts = Counts(
        credit_sum=total,
        pairs=len(pairs),
        pronouns=len(recall_pronouns),
        unresolved=len(unresolved),
        **tally,
    )
    return counts, tuple(items)


# --- tasks 2 and 4 ------------------------------------------------------------------------------


def chain_credits(
    gold_chains: Sequence[Sequence[I]],
    system_chains: Sequence[Sequence[I]],
    weight: Mapping[I, float] | None = None,
    system_names: Mapping[I, Hashable] | None = None,
) -> tuple[ChainCredit, ...]:
    """Every chain of both sides cut by the other side's chains, with what it earned.

    The items explain the (weighted) MUC counts: Σ ``earned`` over the gold items is the recall
    numerator, over the system items the precision numerator (a test checks it).  Singleton
    chains are left out (they can earn nothing and add nothing to a denominator).
    ``system_names`` renames the members of the system items for display (task 4 scores
    system mentions under their gold counterparts' names and shows them under their own).
    """
    items: list[ChainCredit] = []
    for side, chains, others in (
        ("gold", gold_chains, system_chains),
        ("system", system_chains, gold_chains),
    ):
        owner = {member: index for index, chain in enumerate(others) for member in chain}
        for index, chain in enumerate(chains):
            if len(chain) < 2:
                continue
            grouped: dict[object, list[I]] = {}
            for member in chain:
                grouped.setdefault(owner.get(member, ("alone", member)), []).append(member)
            parts = tuple(tuple(part) for part in grouped.values())
            means = tuple(
                1.0 if weight is None else sum(weight.get(m, 1.0) for m in p) / len(p)
                for p in parts
            )
            earned = sum(
                (len(p) - 1) * mean for p, mean in zip(parts, means, strict=True) if len(p) > 1
            )
            members: tuple[Hashable, ...] = tuple(chain)
            shown_parts: tuple[tuple[Hashable, ...], ...] = parts
            if side == "system" and system_names is not None:
                members = tuple(system_names.get(m, m) for m in chain)
                shown_parts = tuple(tuple(system_names.get(m, m) for m in p) for p in parts)
            items.append(
                ChainCredit(side, index, members, shown_parts, means, earned, len(chain) - 1)
            )
    return tuple(items)


@dataclass(frozen=True, slots=True)
class ChainPartitions:
    """What :func:`chain_credits` needs, kept so that the items are made only when shown."""

    gold: Sequence[Sequence[Hashable]]
    system: Sequence[Sequence[Hashable]]
    weight: Mapping[Hashable, float] | None = None
    system_names: Mapping[Hashable, Hashable] | None = None

    def items(self) -> tuple[ChainCredit, ...]:
        """The chain items (:func:`chain_credits`)."""
        return chain_credits(self.gold, self.system, self.weight, self.system_names)


def link_credits(
    gold_chains: Sequence[Sequence[I]], system_chains: Sequence[Sequence[I]]
) -> tuple[Counts, ChainPartitions]:
    """Task 2: MUC counts (:func:`annoscore.metrics.coref.muc`) and the chains to explain them.

    >>> counts, _ = link_credits([["4", "62", "70"]], [["4", "62"], ["70"]])
    >>> counts["recall_num"], counts["recall_den"], counts["precision_den"]
    (1, 2, 1)
    """
    from annoscore.metrics.coref import muc

    return muc(gold_chains, system_chains), ChainPartitions(gold_chains, system_chains)


@dataclass(frozen=True, slots=True)
class MentionAlignment:
    """Task 4's alignment of one document: ``pairs`` (gold index, system index, overlap)."""

    pairs: tuple[tuple[int, int, float], ...]


def fractional_muc(
    gold_chains: Sequence[Sequence[Mention]], system_chains: Sequence[Sequence[Mention]]
) -> tuple[Counts, ChainPartitions, MentionAlignment]:
    """Task 4: align mentions, then MUC with fractional credit (see the module doc).

    Mentions are token positions; every mention, singletons included, takes part in the
    alignment.  Counts ``recall_num``, ``recall_den``, ``precision_num``, ``precision_den`` (the
    numerators are float), ``aligned`` (pairs made), ``gold_mentions``, ``system_mentions``.

    >>> gold = [[(0, 3), (8, 8)]]                       # the government of Zair ... it
    >>> counts, _, _ = fractional_muc(gold, [[(0, 1), (8, 8)]])
    >>> counts["recall_num"], counts["recall_den"]     # (2 - 1) x mean(0.5, 1)
    (0.75, 1)
    """
    from annoscore.align.are import align_mentions, overlap
    from annoscore.metrics.coref import weighted_muc

    gold = [m for chain in gold_chains for m in chain]
    system = [m for chain in system_chains for m in chain]
    matched = align_mentions(gold, system)
    weight: dict[Hashable, float] = {}
    renamed: dict[Mention, Hashable] = {}
    shown: dict[Hashable, Hashable] = {}
    pairs = []
    for i, j in matched:
        value = overlap(gold[i], system[j])
        weight[gold[i]] = value
        renamed[system[j]] = gold[i]
        shown[gold[i]] = system[j]
        pairs.append((i, j, value))
    # an aligned system mention is scored under its gold counterpart's name, an unaligned one
    # under ("system", mention), which no gold mention has
    response: list[list[Hashable]] = []
    for chain in system_chains:
        names = []
        for m in chain:
            name = renamed.get(m)
            if name is None:
                name = ("system", m)
                shown[name] = m
            names.append(name)
        response.append(names)
    key: list[list[Hashable]] = [list(chain) for chain in gold_chains]
    counts = weighted_muc(key, response, weight) + Counts(
        aligned=len(matched), gold_mentions=len(gold), system_mentions=len(system)
    )
    explained = ChainPartitions(key, response, weight, shown)
    return counts, explained, MentionAlignment(tuple(pairs))


# --- scorers ----------------------------------------------------------------------------------


def are_f1(precision: float | None, recall: float | None) -> float | None:
    """F1 = 2PR/(P+R); 0 when P + R = 0 or only one is defined; ``None`` when neither is.

    >>> are_f1(0.5, 1.0), are_f1(None, 0.0), are_f1(None, None)
    (0.6666666666666666, 0.0, None)
    """
    if precision is None and recall is None:
        return None
    if precision is None or recall is None or precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def success_scores(counts: Counts) -> dict[str, float | None]:
    """Task 1: ``success_rate = credit_sum / pronouns`` (``None`` with no pronoun to resolve)."""
    return {"success_rate": ratio(counts["credit_sum"], counts["pronouns"])}


def pair_scores(counts: Counts) -> dict[str, float | None]:
    """Task 3: recall = credit_sum / pronouns, precision = credit_sum / pairs, F1 (:func:`are_f1`).

    >>> pair_scores(Counts(credit_sum=1.5, pairs=3, pronouns=2))
    {'recall': 0.75, 'precision': 0.5, 'f1': 0.6}
    """
    recall = ratio(counts["credit_sum"], counts["pronouns"])
    precision = ratio(counts["credit_sum"], counts["pairs"])
    return {"recall": recall, "precision": precision, "f1": are_f1(precision, recall)}


def link_scores(counts: Counts) -> dict[str, float | None]:
    """Tasks 2 and 4: recall = recall_num / recall_den, precision likewise, F1 (:func:`are_f1`).

    >>> link_scores(Counts(recall_num=1, recall_den=2, precision_num=1, precision_den=1))
    {'recall': 0.5, 'precision': 1.0, 'f1': 0.6666666666666666}
    """
    recall = ratio(counts["recall_num"], counts["recall_den"])
    precision = ratio(counts["precision_num"], counts["precision_den"])
    return {"recall": recall, "precision": precision, "f1": are_f1(precision, recall)}
