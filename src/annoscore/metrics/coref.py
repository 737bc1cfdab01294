"""The CoNLL coreference metrics on plain partitions: MUC, B³, CEAFm, CEAFe, BLANC, LEA.

Inputs are two partitions of mention ids, ``key`` and ``response``: sequences of entities, each a
collection of hashable mention ids (CoNLL token spans, MUC markable ids, ARE anaphor ids ...).  A
key mention appears in one key entity, once, and at most once in the response; the two sides may
mention different things (predicted mentions).  A response mention that is no key mention may be
listed more than once (twice in one entity, or in several), as scorer.pl keeps a repeated span
that matches no key mention: each listing then counts as a mention in MUC, B³, CEAF and LEA (its
sizes), and the mention counts once in mention identification and in BLANC's links
(:func:`response_links`).  Every function returns additive per-document
:class:`~annoscore.counts.Counts`; a corpus score is computed from the *sum* of the document counts
(micro average), exactly as the CoNLL reference scorer v8.01 does.

Everything is computed from one *overlap table*: the sizes of the entities and, for every key
entity k and response entity r that share mentions, ``n = |k ∩ r|`` (:class:`EntityOverlap`).
Notation below: K key entities, R response entities, M_K / M_R the mention sets, C(x) = x(x-1)/2.

Counts of a metric are ``recall_num``, ``recall_den``, ``precision_num``, ``precision_den``:

* ``mentions`` (identification): num = |M_K ∩ M_R|, recall den |M_K|, precision den |M_R|
  (distinct mentions).
* ``muc`` (Vilain et al. 1995): num = Σ_k (|k| - |p(k, R)|) = Σ n - #{(k, r): n > 0}, the same for
  recall and precision; recall den Σ_k (|k| - 1), precision den Σ_r (|r| - 1).  Singletons and
  twinless mentions add nothing to the numerator.
* ``bcub`` (B³, no mention manipulation): recall num Σ n²/|k|, den |M_K|; precision num Σ n²/|r|,
  den |M_R|.
* ``ceafm`` / ``ceafe``: g = the one-to-one entity alignment maximising Σ φ(k, g(k));
  φ3 = n (CEAFm: dens |M_K|, |M_R|), φ4 = 2n/(|k|+|r|) (CEAFe: dens |K|, |R|).
* ``lea`` (Moosavi & Strube 2016): links(e) = C(|e|), 1 for a singleton; resolved(k) =
  Σ_r C(n), for a singleton 1 if its mention is a singleton entity of the other side; recall num
  Σ_k |k|·resolved(k)/links(k), den |M_K|; precision symmetric.
* ``blanc`` (Luo et al. 2014, predicted mentions) has two sets of counts, ``coref_*`` and
  ``noncoref_*``: coreference links C_K = Σ C(|k|), C_R = Σ C(|r|), common Σ C(n); non-coreference
  links N_K = C(|M_K|) - C_K, N_R = C(|M_R|) - C_R, common = C(c) - Σ_k C(a_k) - Σ_r C(b_r) + Σ C(n)
  with c = |M_K ∩ M_R|, a_k = Σ_r n, b_r = Σ_k n (pairs of shared mentions in different entities
  on both sides, by inclusion-exclusion).  Linear in the number of mentions: no pair is enumerated.
  With repeated response mentions, C_R and N_R are the distinct links (:func:`response_links`).

Scores (:func:`coref_scores`) follow the one rule (:mod:`annoscore.metrics.prf`): R = num/den is
undefined (``None``) when its denominator is 0, P likewise; F1 = 2PR/(P+R) (0 when P+R = 0) is 0
when one of them is undefined and undefined when both are.  The reference scorer prints 0 for an
undefined score (so MUC is 0 on an all-singleton key even for a perfect response): ``annoscore
coref`` keeps that for its corpus scores and reference layout only.

BLANC (:func:`blanc_rpf`) is a mean over the kinds of links (coreference, non-coreference) the
*key* has links of (the reference's edge rule; both kinds when it has neither): R, P and F are
the means of each kind's R, P and F (**F is the mean of the two F's**, not the harmonic mean of R
and P).  ``conll_f1`` is the mean of the MUC, B³ and CEAFe F1.  In these two means an undefined
part counts 0, as the reference's printed 0 does (a kind of link the response has none of adds
precision 0 to BLANC; a corpus without any MUC link has the CoNLL score (0 + B³ + CEAFe) / 3 that
every CoNLL scorer prints); a mean is undefined only when every part is
(:func:`mean_of_scores`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar, get_args

from annoscore.align.assignment import max_weight_matching
from annoscore.counts import Counts, Number
from annoscore.metrics.prf import f_of, ratio

M = TypeVar("M", bound=Hashable)
Partition = Sequence[Collection[M]]
"""A coreference partition: entities, each a collection of mention ids."""

ScoredMetric = Literal["muc", "bcub", "ceafm", "ceafe", "blanc", "lea"]
"""A coreference metric's name (mention identification aside)."""

METRICS: tuple[str, ...] = get_args(Literal["mentions", ScoredMetric])
"""Every metric name, in the order the reports show them."""

CONLL_METRICS: tuple[str, ...] = ("muc", "bcub", "ceafe")
"""The three metrics whose F1 the CoNLL score averages."""


def _sum(terms: list[float]) -> float:
    """Float terms added smallest first: a fixed order, so the last bits never depend on the
    order of the input (the reference adds in Perl hash order, which varies between runs)."""
    terms.sort()
    total = 0.0
    for term in terms:
        total += term
    return total


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def key_owners(key: Partition[M]) -> tuple[dict[M, int], list[int]]:
    """Which key entity each mention is in (entities numbered in order, empty ones skipped) and
    the size of each numbered entity.

    Raises ``ValueError`` if a mention appears twice in the key.

    >>> key_owners([{"a", "b"}, set(), {"c"}])[1]
    [2, 1]
    """
    owner: dict[M, int] = {}
    key_sizes: list[int] = []
    for entity in key:
        if not entity:
            continue
        index = len(key_sizes)
        for mention in entity:
            if owner.setdefault(mention, index) != index:
                raise ValueError(f"mention {mention!r} is in two key entities")
        key_sizes.append(len(entity))
    if sum(key_sizes) != len(owner):
        raise ValueError("a key entity lists a mention twice")
    return owner, key_sizes


LINK_BUDGET = 10_000_000
"""The most (group, group) checks :func:`response_links` makes for one document's repeated
response mentions before it refuses (``ValueError``); no real response comes near it."""


@dataclass(frozen=True, slots=True)
class EntityOverlap:
    """The key x response overlap table of one document: all any metric needs.

    ``key_sizes[i]`` = |k_i|, ``response_sizes[j]`` = |r_j| and ``shared[(i, j)]`` = |k_i ∩ r_j|
    for the pairs that share at least one mention.  Empty entities are dropped.

    A response entity may list a mention that is no key mention more than once, and several
    response entities may list it (scorer.pl keeps such repeats): ``response_sizes`` count every
    listing (MUC, B3, CEAF and LEA see a mention per listing), ``response_distinct`` counts the
    distinct response mentions and ``response_links`` the distinct (coreference,
    non-coreference) links of the response (:func:`response_links`), which mention
    identification and BLANC use; ``response_links`` is ``None`` without repeats (the links are
    then the sizes' pairs).
    """

    key_sizes: tuple[int, ...]
    response_sizes: tuple[int, ...]
    shared: dict[tuple[int, int], int]
    response_distinct: int
    response_links: tuple[int, int] | None = None

    @classmethod
    def of(cls, key: Partition[M], response: Partition[M]) -> EntityOverlap:
        """Build the table in one pass over the mentions.

        Raises ``ValueError`` if a mention appears twice in the key, or a key mention twice in
        the response (remove those repeats first).
        """
        owner, key_sizes = key_owners(key)
        response_sizes: list[int] = []
        shared: dict[tuple[int, int], int] = {}
        seen: dict[M, int] = {}
        repeated: dict[M, list[int]] = {}
        for entity in response:
            if not entity:
                continue
            index = len(response_sizes)
            size = 0
            for mention in entity:
                size += 1
                first = seen.get(mention)
                if first is None:
                    seen[mention] = index
                    k = owner.get(mention)
                    if k is not None:
                        shared[(k, index)] = shared.get((k, index), 0) + 1
                elif mention in owner:
                    raise ValueError(f"key mention {mention!r} is twice in the response")
                else:
                    repeated.setdefault(mention, [first]).append(index)
            response_sizes.append(size)
        links = response_links(response_sizes, repeated) if repeated else None
        return cls(tuple(key_sizes), tuple(response_sizes), shared, len(seen), links)

    @property
    def common(self) -> int:
        """|M_K ∩ M_R|, the mentions present on both sides."""
        return sum(self.shared.values())

    @property
    def distinct_response(self) -> int:
        """|M_R|, the distinct response mentions (a repeat counted once)."""
        return self.response_distinct


def response_links(sizes: Sequence[int], repeated: Mapping[M, Sequence[int]]) -> tuple[int, int]:
    """The distinct (coreference, non-coreference) links of a response whose entities list some
    mentions more than once: entity ``j`` has ``sizes[j]`` listings, and ``repeated[m]`` names the
    entity of each listing of a mention listed two or more times.

    A link is an unordered pair of mentions {u, v}: a coreference link when one entity lists
    both (from two of its listings), a non-coreference link when one entity lists u and another
    v.  A pair is counted once however many entities give it, and u = v is a link too (a mention
    listed twice in one entity is a coreference link with itself; listed in two entities, a
    non-coreference link with itself), as links between listings that carry one mention id
    are.  Without repeats this is Σ C(|r|) and C(|M_R|) - Σ C(|r|).

    Counted from the listings, with no pair enumerated, except the pairs of mentions that are
    each listed in several entities: those are counted per group of mentions listed in the same
    entities, and ``ValueError`` is raised past :data:`LINK_BUDGET` group checks.

    >>> response_links([2, 2], {})  # no repeats: C(2) + C(2) and C(4) - 2
    (2, 4)
    >>> response_links([2, 2], {"x": [0, 1]})  # {x, a} and {x, b}; {x, x}, {x, b}, {a, x}, {a, b}
    (2, 4)
    >>> response_links([3], {"x": [0, 0]})  # [x, x, a]: {x, x} and {x, a}
    (2, 0)
    """
    alone = list(sizes)  # per entity: the distinct mentions listed in it and in no other
    in_several = [0] * len(sizes)  # per entity: the mentions listed in it and in others
    distinct = sum(sizes)
    self_coref = self_noncoref = 0
    groups: dict[frozenset[int], int] = {}
    for entities in repeated.values():
        distinct -= len(entities) - 1
        where = frozenset(entities)
        for j in entities:
            alone[j] -= 1
        if len(where) == 1:
            alone[entities[0]] += 1
            self_coref += 1
            continue
        self_noncoref += 1
        self_coref += len(entities) > len(where)
        for j in where:
            in_several[j] += 1
        groups[where] = groups.get(where, 0) + 1
    alone_pairs = sum(_pairs(a) for a in alone)
    mixed = sum(a * b for a, b in zip(alone, in_several, strict=True))
    coref = self_coref + alone_pairs + mixed + _pairs_sharing_an_entity(groups)
    return coref, self_noncoref + _pairs(distinct) - alone_pairs


def _pairs_sharing_an_entity(groups: Mapping[frozenset[int], int]) -> int:
    """Pairs of mentions listed in several entities that share an entity, ``groups`` giving how
    many mentions are listed in exactly each set of entities."""
    names = list(groups)
    sizes = list(groups.values())
    by_entity: dict[int, list[int]] = {}
    for g, where in enumerate(names):
        for j in where:
            by_entity.setdefault(j, []).append(g)
    total = sum(_pairs(n) for n in sizes)
    checks = 0
    for g, where in enumerate(names):
        partners: set[int] = set()
        for j in where:
            checks += len(by_entity[j])
            partners.update(by_entity[j])
        if checks > LINK_BUDGET:
            raise ValueError(
                f"{sum(sizes)} response mentions that match no key mention are each listed in "
                f"several entities ({len(names)} different sets of entities): counting their "
                f"BLANC links would take more than {LINK_BUDGET:,} steps"
            )
        total += sizes[g] * sum(sizes[h] for h in partners if h > g)
    return total


def _counts(r_num: Number, r_den: Number, p_num: Number, p_den: Number) -> Counts:
    return Counts(recall_num=r_num, recall_den=r_den, precision_num=p_num, precision_den=p_den)


def mentions_of(table: EntityOverlap) -> Counts:
    """Mention identification: exact matches over key mentions and over distinct response
    mentions."""
    common = table.common
    return _counts(common, sum(table.key_sizes), common, table.distinct_response)


def muc_of(table: EntityOverlap) -> Counts:
    """MUC link counts (see the module doc)."""
    num = table.common - len(table.shared)
    return _counts(
        num,
        sum(table.key_sizes) - len(table.key_sizes),
        num,
        sum(table.response_sizes) - len(table.response_sizes),
    )


def bcub_of(table: EntityOverlap) -> Counts:
    """B³ counts: per mention credit summed (float numerators)."""
    ks, rs = table.key_sizes, table.response_sizes
    r_terms = []
    p_terms = []
    for (k, r), n in table.shared.items():
        square = n * n
        r_terms.append(square / ks[k])
        p_terms.append(square / rs[r])
    return _counts(_sum(r_terms), sum(ks), _sum(p_terms), sum(rs))


def _ceaf_num(table: EntityOverlap, entity_based: bool) -> float:
    ks, rs = table.key_sizes, table.response_sizes
    if entity_based:
        edges = [(k, r, 2 * n / (ks[k] + rs[r])) for (k, r), n in table.shared.items()]
    else:
        edges = [(k, r, float(n)) for (k, r), n in table.shared.items()]
    weight = {(k, r): w for k, r, w in edges}
    return _sum([weight[pair] for pair in max_weight_matching(edges)])


def ceafm_of(table: EntityOverlap) -> Counts:
    """Mention-based CEAF (φ3): aligned overlap over key and response mention counts."""
    num = _ceaf_num(table, entity_based=False)
    return _counts(num, sum(table.key_sizes), num, sum(table.response_sizes))


def ceafe_of(table: EntityOverlap) -> Counts:
    """Entity-based CEAF (φ4): aligned similarity over key and response entity counts."""
    num = _ceaf_num(table, entity_based=True)
    return _counts(num, len(table.key_sizes), num, len(table.response_sizes))


def blanc_of(table: EntityOverlap) -> Counts:
    """BLANC link counts: ``coref_*`` and ``noncoref_*`` numerators and denominators."""
    ks, rs = table.key_sizes, table.response_sizes
    key_coref = sum(_pairs(s) for s in ks)
    if table.response_links is None:
        response_coref = sum(_pairs(s) for s in rs)
        response_noncoref = _pairs(sum(rs)) - response_coref
    else:
        response_coref, response_noncoref = table.response_links
    common_coref = 0
    key_common: dict[int, int] = {}
    response_common: dict[int, int] = {}
    for (k, r), n in table.shared.items():
        common_coref += _pairs(n)
        key_common[k] = key_common.get(k, 0) + n
        response_common[r] = response_common.get(r, 0) + n
    common_noncoref = (
        _pairs(sum(key_common.values()))
        - sum(_pairs(a) for a in key_common.values())
        - sum(_pairs(b) for b in response_common.values())
        + common_coref
    )
    key_noncoref = _pairs(sum(ks)) - key_coref
    return _counts(common_coref, key_coref, common_coref, response_coref).prefixed(
        "coref_"
    ) + _counts(common_noncoref, key_noncoref, common_noncoref, response_noncoref).prefixed(
        "noncoref_"
    )


def _lea_side(
    sizes: tuple[int, ...], other: tuple[int, ...], shared: Iterable[tuple[int, int, int]]
) -> float:
    """Σ_e |e|·resolved(e)/links(e) for the entities ``sizes`` against the ``other`` side."""
    resolved: dict[int, int] = {}
    for e, o, n in shared:
        if sizes[e] == 1:
            if other[o] == 1:
                resolved[e] = 1
        else:
            resolved[e] = resolved.get(e, 0) + _pairs(n)
    terms = []
    for e, links_resolved in resolved.items():
        size = sizes[e]
        terms.append(size * (links_resolved / (_pairs(size) if size > 1 else 1)))
    return _sum(terms)


def lea_of(table: EntityOverlap) -> Counts:
    """LEA counts (link-based entity-aware; float numerators)."""
    ks, rs = table.key_sizes, table.response_sizes
    triples = [(k, r, n) for (k, r), n in table.shared.items()]
    r_num = _lea_side(ks, rs, triples)
    p_num = _lea_side(rs, ks, [(r, k, n) for k, r, n in triples])
    return _counts(r_num, sum(ks), p_num, sum(rs))


_OF = {
    "mentions": mentions_of,
    "muc": muc_of,
    "bcub": bcub_of,
    "ceafm": ceafm_of,
    "ceafe": ceafe_of,
    "blanc": blanc_of,
    "lea": lea_of,
}


def muc(key: Partition[M], response: Partition[M]) -> Counts:
    """MUC counts of one document (the other metrics: :func:`coref_counts`)."""
    return muc_of(EntityOverlap.of(key, response))


def weighted_muc(
    key: Partition[M], response: Partition[M], weight: Mapping[M, float] | None = None
) -> Counts:
    """MUC with fractional credit: :func:`muc` where each shared mention weighs ``weight[m]``.

    For a key entity k, the response entities cut k into parts P = k ∩ r (a mention the
    response lacks is a part of its own); a part earns (|P| - 1) x mean of the weights over P
    instead of |P| - 1.  So::

        num = Σ_(k, r) (n - 1) · (Σ_{m ∈ k ∩ r} weight[m]) / n,    n = |k ∩ r| > 0

    the same for recall and precision (a part is the same set seen from either side); the
    denominators are MUC's, Σ_k (|k| - 1) and Σ_r (|r| - 1).  A mention missing from ``weight``
    (or ``weight=None``) weighs 1, so with every weight 1 this *is* :func:`muc` (a property test
    shows it on random partitions).  ARE task 4 (``../shared/spec/are.md``) uses it with
    ``weight[m]`` = the overlap of a mention with its aligned counterpart.

    Undefined: nothing here divides; scorers apply their own rule to a 0 denominator.

    >>> key = [{"a", "b", "c"}]
    >>> weighted_muc(key, [{"a", "b", "c"}], {"a": 1.0, "b": 0.5, "c": 0.75})["recall_num"]
    1.5
    >>> weighted_muc(key, [{"a", "b"}, {"c"}]) == muc(key, [{"a", "b"}, {"c"}])
    True
    """
    owner, key_sizes = key_owners(key)
    response_sizes: list[int] = []
    parts: dict[tuple[int, int], list[float]] = {}
    seen: set[M] = set()
    for entity in response:
        if not entity:
            continue
        index = len(response_sizes)
        for mention in entity:
            if mention in seen:
                raise ValueError(f"mention {mention!r} is twice in the response")
            seen.add(mention)
            k = owner.get(mention)
            if k is not None:
                w = 1.0 if weight is None else weight.get(mention, 1.0)
                parts.setdefault((k, index), []).append(w)
        response_sizes.append(len(entity))
    terms = [(len(ws) - 1) * _sum(ws) / len(ws) for ws in parts.values() if len(ws) > 1]
    num = _sum(terms)
    return _counts(
        num, sum(key_sizes) - len(key_sizes), num, sum(response_sizes) - len(response_sizes)
    )


def coref_counts(
    key: Partition[M], response: Partition[M], metrics: Iterable[str] = METRICS
) -> Counts:
    """The counts of several metrics for one document, keys prefixed ``{metric}_``.

    The overlap table is built once.  Unknown metric names raise ``ValueError``.
    """
    table = EntityOverlap.of(key, response)
    total = Counts()
    for name in metrics:
        if name not in _OF:
            raise ValueError(f"unknown coreference metric {name!r}; expected one of {METRICS}")
        total = total + _OF[name](table).prefixed(name + "_")
    return total


def metrics_in(counts: Counts) -> tuple[str, ...]:
    """The metrics whose counts are in ``counts``, in the order of :data:`METRICS`.

    >>> metrics_in(coref_counts([{1, 2}], [{1, 2}], ["muc", "blanc"]))
    ('muc', 'blanc')
    """
    return tuple(
        name
        for name in METRICS
        if ("blanc_coref_recall_den" if name == "blanc" else f"{name}_recall_den") in counts
    )


Score = float | None


def rpf(counts: Counts, prefix: str = "") -> tuple[Score, Score, Score]:
    """Recall, precision and F1 from ``{prefix}recall_num`` ... by the rule (module doc).

    >>> rpf(Counts(recall_num=0, recall_den=0, precision_num=0, precision_den=3))
    (None, 0.0, 0.0)
    """
    recall = ratio(counts[prefix + "recall_num"], counts[prefix + "recall_den"])
    precision = ratio(counts[prefix + "precision_num"], counts[prefix + "precision_den"])
    return recall, precision, f_of(precision, recall)


def mean_of_scores(values: Sequence[Score]) -> Score:
    """The mean of the parts of BLANC or of the CoNLL score: an undefined part counts 0, as the
    reference's printed 0 does; undefined only when every part is.

    >>> mean_of_scores([None, 1.0, 1.0]), mean_of_scores([None, None])
    (0.6666666666666666, None)
    """
    if all(value is None for value in values):
        return None
    return sum(0.0 if value is None else value for value in values) / len(values)


def blanc_rpf(counts: Counts, prefix: str = "") -> tuple[Score, Score, Score]:
    """BLANC R, P, F from (summed) link counts, with the edge rule keyed on the key's links
    (module doc).

    >>> c = Counts(coref_recall_num=1, coref_recall_den=1, coref_precision_num=1,
    ...            coref_precision_den=1, noncoref_recall_num=0, noncoref_recall_den=2,
    ...            noncoref_precision_num=0, noncoref_precision_den=0)
    >>> blanc_rpf(c)  # the response has no non-coreference link: its precision counts 0
    (0.5, 0.5, 0.5)
    """
    coref = rpf(counts, prefix + "coref_")
    noncoref = rpf(counts, prefix + "noncoref_")
    kinds = [
        scores
        for scores, kind in ((coref, "coref_"), (noncoref, "noncoref_"))
        if counts[prefix + kind + "recall_den"] > 0
    ] or [coref, noncoref]
    recall, precision, f1 = (mean_of_scores(values) for values in zip(*kinds, strict=True))
    return recall, precision, f1


def coref_scores(counts: Counts, metrics: Iterable[str] | None = None) -> dict[str, Score]:
    """``{metric}_{recall,precision,f1}`` from ``{metric}_``-prefixed counts, and ``conll_f1``,
    each ``None`` where undefined (module doc).

    ``metrics``: the metrics scored (by default those whose counts are in ``counts``,
    :func:`metrics_in`); ``conll_f1`` is there when MUC, B³ and CEAFe all are.

    >>> coref_scores(coref_counts([{1}, {2}], [{1}, {2}], ["muc"]))
    {'muc_recall': None, 'muc_precision': None, 'muc_f1': None}
    """
    chosen = metrics_in(counts) if metrics is None else tuple(metrics)
    scores: dict[str, Score] = {}
    for name in chosen:
        values = blanc_rpf(counts, "blanc_") if name == "blanc" else rpf(counts, name + "_")
        for part, value in zip(("recall", "precision", "f1"), values, strict=True):
            scores[f"{name}_{part}"] = value
    if all(name in chosen for name in CONLL_METRICS):
        scores["conll_f1"] = mean_of_scores([scores[f"{name}_f1"] for name in CONLL_METRICS])
    return scores
