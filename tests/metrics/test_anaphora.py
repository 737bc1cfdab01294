"""ARE credits: every credit case of tasks 1 and 3, task 4's fractional MUC, the seed's sentences
that state a score, the weighted MUC's property (weights 1 = plain MUC) and task 4's columnar
counts held to it, document by document.

The cases are small lists of ids or token positions, scored through the whole command (XML
files written here, then :mod:`annoscore.tasks.are`): the helpers below keep the cases as
readable as the definitions, and the items the checks read are the text report's.  The columnar
check alone calls :func:`~annoscore.metrics.anaphora.fractional_muc_counts` directly."""

from __future__ import annotations

import tempfile
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.are import ChainColumns, overlap
from annoscore.counts import Counts
from annoscore.metrics.anaphora import (
    fractional_muc_counts,
    link_scores,
    pair_scores,
    success_scores,
)
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
    REPEATED,
    SELF,
    UNLISTED,
    UNRESOLVED,
    ChainCredit,
    PronounCredit,
)
from annoscore.metrics.coref import muc, weighted_muc
from annoscore.metrics.prf import f_of
from annoscore.tasks.are import (
    Are1Options,
    Are3Options,
    Are4Options,
    score_are_1,
    score_are_2,
    score_are_3,
    score_are_4,
)

Mention = tuple[int, int]


_CASES: list[Path] = []  # the module's temporary folder (pytest's, removed by pytest)


@pytest.fixture(autouse=True, scope="module")
def _cases_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    _CASES.append(tmp_path_factory.mktemp("are-cases"))
    yield
    _CASES.pop()


def _files(**texts: str) -> dict[str, Path]:
    folder = Path(tempfile.mkdtemp(prefix="case-", dir=_CASES[-1]))
    paths = {}
    for name, text in texts.items():
        paths[name] = folder / f"{name}.xml"
        paths[name].write_text(f"<r>{text}</r>", encoding="utf-8")
    return paths


def _typed(marked: bool) -> str:
    return ' type="pronoun"' if marked else ""


def success_credits(
    listed: Sequence[str],
    chains: Sequence[Collection[str]],
    marked: Collection[str],
    pairs: Sequence[tuple[str, str]],
) -> tuple[Counts, tuple[PronounCredit, ...]]:
    """Task 1 of one document: the list, the gold chains, the ids marked pronominal and the
    system's pairs; every id is an entity of the input."""
    ids = dict.fromkeys(
        [*listed, *(m for c in chains for m in sorted(c)), *(i for p in pairs for i in p)]
    )
    entities = "".join(f'<entity id="{i}">w</entity> ' for i in ids)
    listing = "".join(f'<pronoun id="{i}"/>' for i in listed)
    gold = "".join(
        "<chain>"
        + "".join(f'<node id="{m}"{_typed(m in marked)}/>' for m in sorted(c))
        + "</chain>"
        for c in chains
    )
    system = "".join(f'<pair><pronoun id="{p}"/><antecedent id="{a}"/></pair>' for p, a in pairs)
    paths = _files(
        input=f"<text>{entities}</text><anaphoric_pronouns>{listing}</anaphoric_pronouns>",
        gold=gold,
        system=system,
    )
    result = score_are_1(paths["gold"], paths["system"], Are1Options(input_path=paths["input"]))
    (document,) = result.details.explanations()
    return result.counts, document.pronouns


def _mention(m: Mention, element: str = "mention", marked: bool = False) -> str:
    return f'<{element} start="{m[0] + 1}" end="{m[1] + 1}"{_typed(marked)}/>'


def _size(*groups: Iterable[Mention]) -> int:
    return 1 + max((m[1] for group in groups for m in group), default=0)


def _position(label: object) -> object:
    """A mention's report label (``"1..4"``, ``"6"``) back to token positions."""
    if not isinstance(label, str):
        return label
    first, _, last = label.partition("..")
    return (int(first) - 1, int(last or first) - 1)


def overlap_credits(
    chains: Sequence[Sequence[Mention]],
    pronominal: Collection[Mention],
    pairs: Sequence[tuple[Mention, Mention]],
) -> tuple[Counts, tuple[PronounCredit, ...]]:
    """Task 3 of one document (mentions as token positions; tokens numbered 1, 2, ...); the
    items' mentions as positions again."""
    size = _size(*chains, *pairs)
    tokens = "".join(f'<node id="{t + 1}"/>w ' for t in range(size))
    gold = "".join(
        "<chain>" + "".join(_mention(m, marked=m in pronominal) for m in c) + "</chain>"
        for c in chains
    )
    system = "".join(
        f"<pair>{_mention(p, 'pronoun')}{_mention(a, 'antecedent')}</pair>" for p, a in pairs
    )
    paths = _files(input=f"<text>{tokens}</text>", gold=gold, system=system)
    result = score_are_3(paths["gold"], paths["system"], Are3Options(input_path=paths["input"]))
    (document,) = result.details.explanations()
    items = tuple(
        PronounCredit(
            _position(i.pronoun),
            _position(i.answer),
            i.credit,
            i.reason,
            _position(i.target),
            i.overlap,
        )
        for i in document.pronouns
    )
    return result.counts, items


def _chains_text(chains: Sequence[Sequence[Mention]]) -> str:
    return "".join("<chain>" + "".join(_mention(m) for m in c) + "</chain>" for c in chains)


def fractional_muc(
    gold: Sequence[Sequence[Mention]], system: Sequence[Sequence[Mention]]
) -> tuple[Counts, tuple[ChainCredit, ...]]:
    """Task 4 of one document: its counts and chain items."""
    size = _size(*gold, *system)
    tokens = "".join(f'<node id="{t + 1}"/>w ' for t in range(size))
    paths = _files(
        input=f"<text>{tokens}</text>", gold=_chains_text(gold), system=_chains_text(system)
    )
    result = score_are_4(paths["gold"], paths["system"], Are4Options(input_path=paths["input"]))
    (document,) = result.details.explanations()
    return result.counts, document.chains


def link_credits(
    gold: Sequence[Sequence[str]], system: Sequence[Sequence[str]]
) -> tuple[Counts, tuple[ChainCredit, ...]]:
    """Task 2 of one document: its counts and chain items."""

    def text(chains: Sequence[Sequence[str]]) -> str:
        return "".join(
            "<chain>" + "".join(f'<node id="{m}"/>' for m in c) + "</chain>" for c in chains
        )

    paths = _files(gold=text(gold), system=text(system))
    result = score_are_2(paths["gold"], paths["system"])
    (document,) = result.details.explanations()
    return result.counts, document.chains


# --- task 1: "The Palestinian Authority" (4) ... "it" (62) ... "its" (70) ... "they" (80) ------

CHAIN = [{"4", "62", "70", "80"}]
PRONOUNS = {"62", "70", "80"}


def credits(listed: list[str], pairs: list[tuple[str, str]], chains=CHAIN, marked=PRONOUNS):  # type: ignore[no-untyped-def]
    counts, items = success_credits(listed, chains, marked, pairs)
    return counts, {item.pronoun: (item.credit, item.reason) for item in items[: len(listed)]}


def test_task1_credit_1_noun_phrase() -> None:
    _, got = credits(["62"], [("62", "4")])
    assert got["62"] == (1.0, NOUN_PHRASE)


def test_task1_credit_1_pronoun_resolved_to_a_noun_phrase() -> None:
    _, got = credits(["62", "70"], [("62", "4"), ("70", "62")])
    assert got["70"] == (1.0, PRONOUN_RESOLVED)


def test_task1_credit_half_pronoun_not_resolved_to_a_noun_phrase() -> None:
    _, got = credits(["62", "70"], [("70", "62")])  # 62 unresolved
    assert got["70"] == (0.5, PRONOUN_NOT_RESOLVED)
    _, got = credits(["62", "70"], [("62", "99"), ("70", "62")])  # 62 resolved outside the chain
    assert got["70"] == (0.5, PRONOUN_NOT_RESOLVED)


def test_task1_credit_half_chain_without_noun_phrase() -> None:
    _, got = credits(["62", "70"], [("62", "70")], chains=[{"62", "70"}])
    assert got["62"] == (0.5, PRONOUN_ONLY_CHAIN)


def test_task1_credit_0_outside_the_chain_and_self() -> None:
    _, got = credits(["62", "70"], [("62", "99"), ("70", "70")])
    assert got["62"] == (0.0, OUTSIDE_CHAIN)
    assert got["70"] == (0.0, SELF)


def test_task1_unresolved_pronoun_earns_0_and_is_counted() -> None:
    counts, got = credits(["62", "70"], [("62", "4")])
    assert got["70"] == (0.0, UNRESOLVED)
    assert (counts["unresolved"], counts["pronouns"], counts["credit_sum"]) == (1, 2, 1.0)


def test_decision_1_walk_through_pronouns_to_a_noun_phrase_earns_1() -> None:
    _, got = credits(["62", "70", "80"], [("80", "70"), ("70", "62"), ("62", "4")])
    assert got["80"] == (1.0, PRONOUN_RESOLVED)


def test_decision_1_walk_that_loops_earns_half() -> None:
    _, got = credits(["62", "70", "80"], [("80", "70"), ("70", "62"), ("62", "70")])
    assert got["80"] == (0.5, PRONOUN_NOT_RESOLVED)
    assert got["62"] == (0.5, PRONOUN_NOT_RESOLVED)


def test_decision_1_pronoun_not_in_the_list_counts_as_resolved() -> None:
    _, got = credits(["70"], [("70", "62")])  # 62 pronominal but never asked
    assert got["70"] == (1.0, PRONOUN_RESOLVED)


def test_task1_pronoun_alone_or_chainless_earns_nothing() -> None:
    counts, got = credits(["62", "99"], [("62", "4"), ("99", "4")], chains=[{"62"}, {"4"}])
    assert got["62"] == (0.0, NO_CHAIN) and got["99"] == (0.0, NO_CHAIN)
    assert counts["chainless"] == 2


def test_task1_unlisted_and_repeated_pairs_are_ignored_and_counted() -> None:
    counts, items = success_credits(
        ["62"], CHAIN, PRONOUNS, [("62", "4"), ("62", "99"), ("5", "4")]
    )
    assert counts["credit_sum"] == 1.0
    assert (counts["repeated_pairs"], counts["unlisted_pairs"]) == (1, 1)
    assert [item.reason for item in items[1:]] == [REPEATED, UNLISTED]


# --- task 3 ---------------------------------------------------------------------------------

# positions: 0-3 "the government of Zair", 5 "it", 9-11 "Zair 's government", 13 "It", 16 "they"
GOV, IT, ZGOV, IT2, THEY = (0, 3), (5, 5), (9, 11), (13, 13), (16, 16)


def test_task3_partial_overlap_earns_the_overlap() -> None:
    counts, items = overlap_credits([[GOV, IT]], {IT}, [(IT, (0, 1))])
    assert items[0].credit == 0.5 and items[0].target == GOV and items[0].reason == NOUN_PHRASE
    assert pair_scores(counts) == {"recall": 0.5, "precision": 0.5, "f1": 0.5}


def test_task3_no_shared_position_earns_0() -> None:
    _, items = overlap_credits([[GOV, IT], [ZGOV]], {IT}, [(IT, ZGOV)])
    assert (items[0].credit, items[0].reason) == (0.0, NO_OVERLAP)


def test_task3_non_referential_pronoun_counts_in_precision_with_credit_0() -> None:
    counts, items = overlap_credits([[GOV, IT]], {IT}, [(IT, GOV), (THEY, GOV)])
    assert items[1].reason == NOT_GOLD_PRONOUN
    assert (counts["credit_sum"], counts["pairs"], counts["pronouns"]) == (1.0, 2, 1)
    assert counts["nonreferential_pairs"] == 1


def test_task3_pronoun_matched_only_partly_earns_0() -> None:
    counts, items = overlap_credits([[GOV, (5, 6)]], {(5, 6)}, [(IT, GOV)])
    assert (items[0].credit, items[0].reason) == (0.0, PARTIAL_PRONOUN)
    assert counts["partial_pronoun_pairs"] == 1 and counts["unresolved"] == 1


def test_task3_second_pair_for_a_pronoun_earns_0() -> None:
    counts, items = overlap_credits([[GOV, IT]], {IT}, [(IT, (0, 1)), (IT, GOV)])
    assert [i.credit for i in items] == [0.5, 0.0] and items[1].reason == REPEATED
    assert counts["repeated_pairs"] == 1 and counts["pairs"] == 2


def test_task3_pronoun_antecedent_resolved_to_a_noun_phrase_earns_the_overlap() -> None:
    chains = [[GOV, IT, IT2]]
    _, items = overlap_credits(chains, {IT, IT2}, [(IT, (1, 3)), (IT2, IT)])
    assert (items[1].credit, items[1].reason) == (1.0, PRONOUN_RESOLVED)
    _, items = overlap_credits(chains, {IT, IT2}, [(IT2, IT)])  # "it" itself unresolved
    assert (items[0].credit, items[0].reason) == (0.5, PRONOUN_NOT_RESOLVED)


def test_decision_4_pronoun_only_chain_earns_half_at_most() -> None:
    counts, items = overlap_credits([[IT, IT2]], {IT, IT2}, [(IT2, IT)])
    assert (items[0].credit, items[0].reason) == (0.5, PRONOUN_ONLY_CHAIN)
    assert counts["pronouns"] == 2


def test_decision_4_cataphoric_pronoun_counts() -> None:
    counts, items = overlap_credits([[IT, ZGOV]], {IT}, [(IT, ZGOV)])  # antecedent after it
    assert counts["pronouns"] == 1 and items[0].credit == 1.0


def test_decision_4_ties_prefer_a_noun_phrase_then_the_earliest_start() -> None:
    # noun phrases (0, 1), (2, 3) and the pronoun (1, 2) overlap the answer (0, 3) equally
    chains = [[(0, 1), (2, 3), (1, 2), THEY]]
    _, items = overlap_credits(chains, {(1, 2), THEY}, [(THEY, (1, 2))])
    assert items[0].target == (1, 2)  # overlap 1 beats 0.5
    _, items = overlap_credits(chains, {(1, 2), THEY}, [(THEY, (0, 3))])
    assert items[0].target == (0, 1)  # all 0.5: noun phrases first, then the earliest start


# --- task 4 ---------------------------------------------------------------------------------


def test_task4_partial_mention_matches_give_fractional_credit() -> None:
    gold = [[GOV, IT, IT2]]
    system = [[(0, 1), IT, IT2]]
    counts, items = fractional_muc(gold, system)
    mean = (0.5 + 1 + 1) / 3
    assert counts["recall_num"] == counts["precision_num"]
    assert abs(counts["recall_num"] - 2 * mean) < 1e-12
    assert (counts["recall_den"], counts["precision_den"]) == (2, 2)
    assert counts["aligned"] == 3 and items[0].parts == (("1..4", "6", "14"),)
    assert abs(items[0].part_weights[0] - mean) < 1e-12  # 0.5, 1 and 1
    assert abs(sum(i.earned for i in items if i.side == "gold") - counts["recall_num"]) < 1e-12


def test_task4_unaligned_mentions_are_parts_of_their_own() -> None:
    gold = [[GOV, IT], [ZGOV, THEY]]
    system = [[GOV, IT, (20, 21)], [ZGOV], [THEY]]
    counts, _ = fractional_muc(gold, system)
    assert counts["recall_num"] == 1.0 and counts["recall_den"] == 2
    assert counts["precision_num"] == 1.0 and counts["precision_den"] == 2
    assert counts["aligned"] == 4


def test_task4_exact_mentions_equal_vilain_muc() -> None:
    gold = [[GOV, IT, IT2], [ZGOV, THEY]]
    system = [[GOV, IT], [IT2, ZGOV, THEY]]
    counts, _ = fractional_muc(gold, system)
    plain = muc(gold, system)
    for key in ("recall_num", "recall_den", "precision_num", "precision_den"):
        assert counts[key] == plain[key]


partitions = st.lists(
    st.lists(st.integers(0, 30), min_size=1, max_size=6, unique=True), max_size=6
).map(lambda chains: _disjoint(chains))


def _disjoint(chains: list[list[int]]) -> list[list[int]]:
    seen: set[int] = set()
    out = []
    for chain in chains:
        kept = [m for m in chain if m not in seen]
        seen.update(kept)
        if kept:
            out.append(kept)
    return out


@settings(max_examples=200, deadline=None)
@given(partitions, partitions)
def test_weighted_muc_with_all_weights_1_is_muc(
    key: list[list[int]], response: list[list[int]]
) -> None:
    plain = muc(key, response)
    ones = {m: 1.0 for chain in key for m in chain}
    assert weighted_muc(key, response) == plain
    assert weighted_muc(key, response, ones) == plain


@settings(max_examples=100, deadline=None)
@given(partitions, partitions)
def test_fractional_muc_on_exact_mentions_is_muc(
    key: list[list[int]], response: list[list[int]]
) -> None:
    gold = [[(m, m) for m in chain] for chain in key]
    system = [[(m, m) for m in chain] for chain in response]
    counts, items = fractional_muc(gold, system)
    plain = muc(gold, system)
    for name in ("recall_num", "recall_den", "precision_num", "precision_den"):
        assert counts[name] == plain[name]
    assert sum(i.earned for i in items if i.side == "system") == plain["precision_num"]


@settings(max_examples=100, deadline=None)
@given(partitions, partitions, st.randoms(use_true_random=False))
def test_weighted_muc_stays_between_0_and_muc(key, response, rnd) -> None:  # type: ignore[no-untyped-def]
    weight = {m: rnd.random() for chain in key for m in chain}
    weighted = weighted_muc(key, response, weight)
    plain = muc(key, response)
    assert 0 <= weighted["recall_num"] <= plain["recall_num"] + 1e-12
    assert weighted["recall_den"] == plain["recall_den"]


@st.composite
def aligned_corpora(draw: st.DrawFn) -> tuple[ChainColumns, ChainColumns, Any, Any, Any, int]:
    """Task 4's input to :func:`fractional_muc_counts`: gold and system chains over 1 to 4
    documents (empty chains too), a one-to-one alignment of some members of each document
    (pairs in any order; members in chain order or shuffled, for large parts and small) and
    its weights, with ties and values that round."""
    documents = draw(st.integers(1, 4))
    chain_sizes = st.lists(st.integers(0, 9), max_size=5)
    sides = []
    for _ in range(2):
        per_document = [draw(chain_sizes) for _ in range(documents)]
        chain_document = np.array(
            [d for d, sizes in enumerate(per_document) for _ in sizes], dtype=np.int64
        )
        sizes = np.array([size for sizes in per_document for size in sizes], dtype=np.int64)
        member_chain = np.repeat(np.arange(len(sizes)), sizes)
        sides.append(
            ChainColumns(chain_document, sizes, member_chain, chain_document[member_chain])
        )
    gold, system = sides
    rows: list[int] = []
    cols: list[int] = []
    for d in range(documents):
        g = np.flatnonzero(gold.member_document == d).tolist()
        s = np.flatnonzero(system.member_document == d).tolist()
        if draw(st.booleans()):  # else chains in order, aligned to make large parts
            g, s = draw(st.permutations(g)), draw(st.permutations(s))
        n = draw(st.integers(0, min(len(g), len(s))))
        rows += g[:n]
        cols += s[:n]
    order = draw(st.permutations(range(len(rows))))
    weight = st.one_of(
        st.sampled_from([0.0, 0.5, 1.0, 1 / 3]), st.floats(0, 1), st.fractions(0, 1).map(float)
    )
    weights = [draw(weight) for _ in rows]
    return (
        gold,
        system,
        np.array([rows[i] for i in order], dtype=np.int64),
        np.array([cols[i] for i in order], dtype=np.int64),
        np.array([weights[i] for i in order], dtype=np.float64),
        documents,
    )


@settings(max_examples=300, deadline=None)
@given(aligned_corpora())
def test_fractional_muc_counts_are_weighted_muc_of_each_document_to_the_bit(
    corpus: tuple[ChainColumns, ChainColumns, Any, Any, Any, int],
) -> None:
    """Task 4's columnar counts are :func:`weighted_muc` of each document, float for float: an
    aligned pair is one mention weighing its overlap, an unaligned member a mention of its
    side alone."""
    gold, system, rows, cols, weights, documents = corpus
    counts = fractional_muc_counts(gold, system, rows, cols, weights, documents)
    gold_id: dict[int, object] = {i: ("gold", i) for i in range(len(gold.member_chain))}
    system_id: dict[int, object] = {j: ("system", j) for j in range(len(system.member_chain))}
    weight: dict[object, float] = {}
    for i, j, w in zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True):
        gold_id[i] = system_id[j] = ("aligned", i)
        weight["aligned", i] = w

    def partition(side: ChainColumns, ids: dict[int, object], d: int) -> list[set[object]]:
        return [
            {ids[m] for m in np.flatnonzero(side.member_chain == c).tolist()}
            for c in np.flatnonzero(side.chain_document == d).tolist()
        ]

    for d in range(documents):
        key, response = partition(gold, gold_id, d), partition(system, system_id, d)
        expected = weighted_muc(key, response, weight)
        for name in ("recall_num", "recall_den", "precision_num", "precision_den"):
            assert counts[name][d] == expected[name], (d, name)
        assert counts["aligned"][d] == sum(1 for i in rows.tolist() if gold.member_document[i] == d)


def test_chain_credits_explain_the_muc_counts() -> None:
    counts, items = link_credits([["4", "62", "70"], ["5", "6"]], [["4", "62"], ["70", "5", "6"]])
    assert sum(i.earned for i in items if i.side == "gold") == counts["recall_num"]
    assert sum(i.earned for i in items if i.side == "system") == counts["precision_num"]
    assert [i.parts for i in items if i.side == "gold"] == [(("4", "62"), ("70",)), (("5", "6"),)]
    assert link_credits([["a"]], [["a"]])[1] == ()


# --- the seed's sentences that state a score --------------------------------------------------


def test_seed_overlap_of_the_government_of_zair_and_the_government_is_half() -> None:
    # "the overlap between the government of Zair and the government is 0.5"
    assert overlap((10, 13), (10, 11)) == 0.5


def test_seed_overlap_of_the_government_of_zair_and_zairs_government_is_0() -> None:
    # "the overlap between the government of Zair and Zair's government is 0"
    assert overlap((10, 13), (20, 22)) == 0.0


def test_seed_success_rate_is_correctly_resolved_over_pronouns_to_resolve() -> None:
    # "success rate is calculated as the ratio between the number of pronouns correctly resolved
    # divided to the total number of pronouns to be resolved"
    counts, _ = credits(["62", "70", "80"], [("62", "4"), ("70", "4")])
    assert success_scores(counts) == {"success_rate": 2 / 3}


def test_seed_0_when_not_resolved_to_an_entity_of_the_chain() -> None:
    # "0: the pronoun is not correctly resolved to an entity from the coreferential chain"
    _, got = credits(["62"], [("62", "99")])
    assert got["62"][0] == 0.0


def test_seed_half_when_the_antecedent_pronoun_is_not_resolved_to_a_correct_np() -> None:
    # "0.5: a pronoun from the coreferential chain is selected as antecedent, but the program
    # failed to resolve this pronoun to a correct NP"
    _, got = credits(["62", "70"], [("70", "62"), ("62", "99")])
    assert got["70"][0] == 0.5


def test_seed_1_when_resolved_to_an_entity_of_the_chain_with_a_noun_phrase() -> None:
    # "1: the pronoun is correctly resolved to an entity from the chain. If a pronoun is selected
    # as antecedent, then there is at least one antecedent in the co-reference chain which is
    # non-pronominal."
    _, got = credits(["62", "70"], [("62", "4"), ("70", "62")])
    assert got == {"62": (1.0, NOUN_PHRASE), "70": (1.0, PRONOUN_RESOLVED)}


def test_seed_task3_pronoun_to_pronoun_1_with_a_noun_phrase_half_without() -> None:
    # "if a pronoun is resolved to another pronoun the score is 1 if there is at least one
    # antecedent in the co-reference chain which is non-pronominal, and 0.5 if there is no
    # non-pronominal element in the chain or one of the pronouns in the chain is not correctly
    # resolved"
    _, with_np = overlap_credits([[GOV, IT, IT2]], {IT, IT2}, [(IT, GOV), (IT2, IT)])
    _, without_np = overlap_credits([[IT, IT2]], {IT, IT2}, [(IT2, IT)])
    _, unresolved = overlap_credits([[GOV, IT, IT2]], {IT, IT2}, [(IT2, IT)])
    assert (with_np[1].credit, without_np[0].credit, unresolved[0].credit) == (1.0, 0.5, 0.5)


def test_seed_task2_is_vilain_muc() -> None:
    # "Task 2 ... precision, recall and f-measure ... the MUC scores as defined in (Vilain et.
    # al., 1995)": key {A B C D}, response {A B} {C D}: recall 2/3, precision 1
    counts, _ = link_credits([["A", "B", "C", "D"]], [["A", "B"], ["C", "D"]])
    assert link_scores(counts) == {"recall": 2 / 3, "precision": 1.0, "f1": 0.8}


def test_seed_task4_pairs_compared_by_the_overlap_of_their_elements() -> None:
    # "when a pair is compared, the overlap between its elements is calculated"
    counts, _ = fractional_muc([[GOV, IT]], [[(0, 1), IT]])
    assert counts["recall_num"] == (2 - 1) * (0.5 + 1.0) / 2


# --- scores, edge cases -------------------------------------------------------------------------


def test_decision_7_undefined_values_and_f1() -> None:
    assert pair_scores(Counts(pronouns=3)) == {"recall": 0.0, "precision": None, "f1": 0.0}
    assert link_scores(Counts()) == {"recall": None, "precision": None, "f1": None}
    assert success_scores(Counts()) == {"success_rate": None}
    assert f_of(0.0, 0.0) == 0.0


def test_alignment_is_order_invariant() -> None:
    gold = [[(0, 3), (5, 5)], [(9, 11)]]
    system = [[(0, 1), (2, 3)], [(5, 5), (9, 10)]]
    counts, items = fractional_muc(gold, system)
    shuffled = fractional_muc([gold[1], gold[0][::-1]], [system[1][::-1], system[0]])
    assert counts == shuffled[0]
    assert sorted(i.earned for i in items) == sorted(i.earned for i in shuffled[1])
