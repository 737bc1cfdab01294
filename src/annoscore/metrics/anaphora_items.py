"""What each pronoun or chain of the Anaphora Resolution Exercise earned, and why: the items of
``annoscore are``'s text report, as the counting of :mod:`annoscore.metrics.anaphora` leaves
them, and :class:`AreDetails`, the :class:`~annoscore.result.Details` a task's result carries
(filled by :mod:`annoscore.tasks.are`, read by :mod:`annoscore.report.are`).

- Tasks 1 and 3: one item per pronoun (task 1: every pronoun of the input's list, then every
  ignored pair; task 3: every system pair, then every gold pronoun left unresolved), kept as
  columns in parts (:class:`PronounParts`) and put together only when the report asks.
- Tasks 2 and 4: one item per chain of two or more members, gold chains (recall) then system
  chains (precision), cut by the other side's chains (:func:`chain_items`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from annoscore.result import Details

if TYPE_CHECKING:
    from annoscore.align.are import ChainColumns, IdChains
    from annoscore.align.are_documents import Corpus

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

REASONS = {
    NOUN_PHRASE: "a noun phrase of the pronoun's gold chain",
    PRONOUN_RESOLVED: "a pronoun of the chain that the system resolved to a noun phrase of it",
    PRONOUN_NOT_RESOLVED: "a pronoun of the chain that the system did not resolve to a noun "
    "phrase of it (half)",
    PRONOUN_ONLY_CHAIN: "a pronoun of a chain with no noun phrase (half)",
    OUTSIDE_CHAIN: "not in the pronoun's gold chain",
    SELF: "the pronoun itself",
    UNRESOLVED: "not resolved by the system",
    NO_CHAIN: "the pronoun is in no gold chain or alone in one",
    NO_OVERLAP: "overlaps no other mention of the pronoun's gold chain",
    NOT_GOLD_PRONOUN: "the pronoun is not a gold pronoun (non-referential?)",
    PARTIAL_PRONOUN: "the pronoun only partly matches a gold pronoun",
    REPEATED: "a second answer for this pronoun, ignored (the first counts)",
    UNLISTED: "the pronoun is not in the input's list; ignored",
}
"""Each reason and what it means (the report prints it), numbered by its place here
(:attr:`PronounItems.reason`)."""
REASON_NAMES = tuple(REASONS)
REASON_CODE = {name: number for number, name in enumerate(REASON_NAMES)}
"""Each reason's number (its place in :data:`REASONS`)."""


@dataclass(frozen=True, slots=True)
class PronounItems:
    """What each pronoun (task 1) or each system pair (task 3) earned, and why, as arrays in
    the report's order: by document, then (task 1) each listed pronoun then each ignored pair,
    (task 3) each system pair then each gold pronoun left unresolved.

    ``pronoun``, ``answer`` and ``target`` are ``(n, 2)`` arrays: task 1 an id's code twice,
    task 3 a mention's first and last token positions; ``answered`` and ``targeted`` say
    whether there is an answer (the system's antecedent) and a target (the gold member the
    credit was computed against: task 3's m*, task 1 the answer when it is in the chain);
    ``overlap`` is task 3's overlap(a, m*); ``credit``; ``reason`` numbers :data:`REASONS`.
    """

    document: Any
    pronoun: Any
    answer: Any
    answered: Any
    target: Any
    targeted: Any
    overlap: Any
    credit: Any
    reason: Any


@dataclass(frozen=True, slots=True)
class PronounCredit:
    """One item of :class:`PronounItems`, for display: ``pronoun``, ``answer`` (``None`` when
    unresolved) and ``target`` (``None`` when none) as the report prints them."""

    pronoun: Hashable
    answer: Hashable | None
    credit: float
    reason: str
    target: Hashable | None = None
    overlap: float | None = None


@dataclass(frozen=True, slots=True)
class ItemPart:
    """Some items of :class:`PronounItems` as columns (one value per item), listed before
    they are put together (``pronoun``, ``answer`` and ``target`` as first and last columns;
    a scalar stands for the same value for every item)."""

    document: Any
    pronoun: tuple[Any, Any]
    answer: tuple[Any, Any]
    answered: Any
    target: tuple[Any, Any]
    targeted: Any
    overlap: Any
    credit: Any
    reason: Any


@dataclass(frozen=True, slots=True)
class PronounParts:
    """The items of tasks 1 and 3 in parts, put together in document order (stably) when the
    report asks (:meth:`items`): counting never pays for them."""

    parts: tuple[ItemPart, ...]

    def items(self) -> PronounItems:
        import numpy as np

        def column(values: list[Any], dtype: Any) -> Any:
            sizes = [len(part.document) for part in self.parts]
            return np.concatenate(
                [
                    np.broadcast_to(np.asarray(v, dtype=dtype), (n,))
                    for v, n in zip(values, sizes, strict=True)
                ]
            )

        def rows(pairs: list[tuple[Any, Any]]) -> Any:
            first = column([p[0] for p in pairs], np.int64)
            last = column([p[1] for p in pairs], np.int64)
            return np.stack([first, last], axis=1)

        parts = self.parts
        document = column([p.document for p in parts], np.int64)
        order = np.argsort(document, kind="stable")
        return PronounItems(
            document[order],
            rows([p.pronoun for p in parts])[order],
            rows([p.answer for p in parts])[order],
            column([p.answered for p in parts], bool)[order],
            rows([p.target for p in parts])[order],
            column([p.targeted for p in parts], bool)[order],
            column([p.overlap for p in parts], np.float64)[order],
            column([p.credit for p in parts], np.float64)[order],
            column([p.reason for p in parts], np.int8)[order],
        )


@dataclass(frozen=True, slots=True)
class ChainCredit:
    """One chain of one side cut by the other side's chains (tasks 2 and 4).

    ``side`` is ``"gold"`` (recall) or ``"system"`` (precision); ``chain`` its place among the
    document's chains of that side; ``members`` in document order; ``parts`` the members
    grouped by the other side's chain they went to (a member with no counterpart is a part of
    its own); ``part_weights`` the mean w of each part (1 in task 2); ``earned`` = Σ (|P| - 1)
    x mean w over the parts of two or more, ``possible`` = |chain| - 1.
    """

    side: str
    chain: int
    members: tuple[Hashable, ...]
    parts: tuple[tuple[Hashable, ...], ...]
    part_weights: tuple[float, ...]
    earned: float
    possible: int


@dataclass(frozen=True, slots=True)
class ChainLinks:
    """What the chain items of tasks 2 and 4 are made of: both sides' chains, each member's
    counterpart's chain on the other side (``gold_other``, ``system_other``; ``-1``: none) and
    each member's weight (``gold_weight``, ``system_weight``: the overlap with its aligned
    counterpart in task 4, else 1)."""

    gold: ChainColumns
    system: ChainColumns
    gold_other: Any
    system_other: Any
    gold_weight: Any
    system_weight: Any


def id_chain_links(chains: IdChains) -> ChainLinks:
    """Task 2's :class:`ChainLinks`: members are matched by id, each pair of weight 1."""
    import numpy as np

    matched = np.flatnonzero(chains.match >= 0)  # ids are distinct on each side: one to one
    rows = chains.match_member[matched]
    return aligned_chain_links(chains.gold, chains.system, rows, matched, 1.0)


def aligned_chain_links(
    gold: ChainColumns, system: ChainColumns, rows: Any, cols: Any, weights: Any
) -> ChainLinks:
    """Task 4's :class:`ChainLinks`: members are matched by the alignment."""
    import numpy as np

    gold_other = np.full(len(gold.member_chain), -1, dtype=np.int64)
    system_other = np.full(len(system.member_chain), -1, dtype=np.int64)
    gold_weight = np.ones(len(gold.member_chain))
    system_weight = np.ones(len(system.member_chain))
    gold_other[rows] = system.member_chain[cols]
    system_other[cols] = gold.member_chain[rows]
    gold_weight[rows] = weights
    system_weight[cols] = weights
    return ChainLinks(gold, system, gold_other, system_other, gold_weight, system_weight)


def chain_items(chains: ChainLinks, document: int) -> tuple[ChainCredit, ...]:
    """Every chain of two or more members of one document, of both sides (gold first), cut by
    the other side's chains, with what it earned; Σ ``earned`` over a side's items is that
    side's numerator (a test checks it).  Members are given as their places in the side's
    member columns."""
    import numpy as np

    items: list[ChainCredit] = []
    for side, columns, other, weight in (
        ("gold", chains.gold, chains.gold_other, chains.gold_weight),
        ("system", chains.system, chains.system_other, chains.system_weight),
    ):
        in_document = np.flatnonzero(columns.chain_document == document).tolist()
        starts = (np.cumsum(columns.sizes) - columns.sizes).tolist()
        sizes = columns.sizes.tolist()
        for index, chain in enumerate(in_document):
            if sizes[chain] < 2:
                continue
            members = list(range(starts[chain], starts[chain] + sizes[chain]))
            grouped: dict[object, list[int]] = {}
            for m in members:
                owner = int(other[m])
                grouped.setdefault(owner if owner >= 0 else ("alone", m), []).append(m)
            parts: tuple[tuple[Hashable, ...], ...] = tuple(
                tuple(part) for part in grouped.values()
            )
            means = tuple(
                sum(float(weight[m]) for m in part) / len(part) for part in grouped.values()
            )
            earned = sum(
                (len(p) - 1) * mean for p, mean in zip(parts, means, strict=True) if len(p) > 1
            )
            items.append(
                ChainCredit(side, index, tuple(members), parts, means, earned, len(members) - 1)
            )
    return tuple(items)


def pronoun_credits(items: PronounItems, document: int, label: Any) -> tuple[PronounCredit, ...]:
    """The items of one document for display; ``label(document, pair)`` names an id or a
    mention (a row of ``items.pronoun``)."""
    import numpy as np

    return tuple(
        PronounCredit(
            label(document, items.pronoun[k]),
            label(document, items.answer[k]) if items.answered[k] else None,
            float(items.credit[k]),
            REASON_NAMES[int(items.reason[k])],
            label(document, items.target[k]) if items.targeted[k] else None,
            None if np.isnan(items.overlap[k]) else float(items.overlap[k]),
        )
        for k in np.flatnonzero(items.document == document).tolist()
    )


@dataclass(frozen=True, slots=True)
class Labels:
    """How the report names an id or a mention of a document: an id by its text; a mention
    (token positions) by its token ids, ``start..end`` (one id for one token).  ``names`` are
    the texts of the corpus' codes below -1; ``tokens`` and ``token_starts`` the input's token
    codes and where each document's begin (``None``: ids)."""

    names: tuple[str, ...]
    tokens: Any = None
    token_starts: Any = None

    @classmethod
    def of_ids(cls, corpus: Corpus) -> Labels:
        return cls(corpus.names)

    @classmethod
    def of_mentions(cls, corpus: Corpus) -> Labels:
        return cls(corpus.names, corpus.input.tokens, corpus.input.token_starts)

    def text(self, code: int) -> str:
        return str(code) if code >= 0 else self.names[-2 - code]

    def __call__(self, document: int, item: Any) -> str:
        """The label of a row ``(code, code)`` or ``(first, last)`` of ``document``."""
        first, last = int(item[0]), int(item[1])
        if self.tokens is None:
            return self.text(first)
        base = int(self.token_starts[document])
        start = self.text(int(self.tokens[base + first]))
        return start if first == last else f"{start}..{self.text(int(self.tokens[base + last]))}"


@dataclass(frozen=True, slots=True)
class DocumentExplanation:
    """One document's items, as the report prints them: ``pronouns`` (tasks 1, 3) or
    ``chains`` (tasks 2, 4, members named by their labels)."""

    key: str
    pronouns: tuple[PronounCredit, ...]
    chains: tuple[ChainCredit, ...]


@dataclass(frozen=True, slots=True)
class AreDetails(Details):
    """What the text report needs beyond scores and counts: the ``task`` (1 to 4), the
    documents' ``keys``, the ``labels``, and the data its items are made of when it asks
    (:meth:`explanations`): the pronoun items of tasks 1 and 3, or the chains of tasks 2 and 4
    with the rows that name each gold and system member (``gold_rows``, ``system_rows``)."""

    task: int
    keys: tuple[str, ...]
    labels: Labels
    pronouns: PronounParts | None = None
    chains: ChainLinks | None = None
    gold_rows: Any = None
    system_rows: Any = None

    def explanations(self) -> tuple[DocumentExplanation, ...]:
        """The items of every document (see the module doc)."""
        out = []
        items = None if self.pronouns is None else self.pronouns.items()
        for document, key in enumerate(self.keys):
            pronouns: tuple[PronounCredit, ...] = ()
            chains: tuple[ChainCredit, ...] = ()
            if items is not None:
                pronouns = pronoun_credits(items, document, self.labels)
            if self.chains is not None:
                chains = tuple(
                    self._named(item, document) for item in chain_items(self.chains, document)
                )
            out.append(DocumentExplanation(key, pronouns, chains))
        return tuple(out)

    def _named(self, item: ChainCredit, document: int) -> ChainCredit:
        rows = self.gold_rows if item.side == "gold" else self.system_rows

        def name(member: Hashable) -> str:
            return self.labels(document, rows[int(member)])  # type: ignore[call-overload]

        return replace(
            item,
            members=tuple(name(m) for m in item.members),
            parts=tuple(tuple(name(m) for m in part) for part in item.parts),
        )
