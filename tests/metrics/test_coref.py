from __future__ import annotations

import csv
import itertools
import math
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.counts import Counts
from annoscore.formats.conll import read_conll
from annoscore.metrics.coref import (
    METRICS,
    EntityOverlap,
    Partition,
    coref_counts,
    coref_scores,
    muc,
)
from tests.conftest import SHARED_DATA, shared_data

REFERENCE = SHARED_DATA / "coref" / "reference"


def _metric(name: str) -> Callable[[Partition[Any], Partition[Any]], Counts]:
    """One metric's counts of one document, unprefixed (``bcub(key, response)``)."""
    return lambda key, response: coref_counts(key, response, [name]).select(name + "_")


mentions, bcub, ceafm, ceafe, blanc, lea = map(
    _metric, ("mentions", "bcub", "ceafm", "ceafe", "blanc", "lea")
)


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return [{"case": "absent"}]
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def case_files(pair: str) -> tuple[Path, Path]:
    """The key and response of a reference case (``A8``) or a LEA-extra pair (``merge/2-2``)."""
    if "/" in pair:
        folder = shared_data("coref", "reference", "lea-extra", pair.split("/")[0])
        return folder / "key", folder.parent / pair
    match = re.fullmatch(r"([A-Z])(\d+)", pair)
    assert match, pair
    family, number = match.groups()
    base = shared_data("coref", "reference")
    return base / f"TC-{family}.key", base / f"TC-{family}-{number}.response"


def partitions(pair: str) -> tuple[tuple[frozenset[tuple[int, int]], ...], ...]:
    key, response = case_files(pair)
    return read_conll(key).documents[0].entities, read_conll(response).documents[0].entities


# --- conformance with the reference scorer --------------------------------------------------

EXPECTED = _rows(REFERENCE / "expected_testconfig.csv")


@pytest.mark.parametrize(
    "row", EXPECTED, ids=[f"{r.get('case')}-{r.get('metric')}" for r in EXPECTED]
)
def test_reference_expected_triples(row: dict[str, str]) -> None:
    if row["case"] == "absent":
        shared_data("coref", "reference", "expected_testconfig.csv")
    key, response = partitions(row["case"])
    metric = row["metric"]
    scores = coref_scores(coref_counts(key, response, [metric]), [metric])
    delta = sum(
        abs((scores[f"{metric}_{part}"] or 0.0) - float(row[part]))
        for part in ("recall", "precision", "f1")
    )
    assert delta < 1e-4  # the reference harness's own pass rule


def test_all_125_expected_triples_are_present() -> None:
    shared_data("coref", "reference", "expected_testconfig.csv")
    assert len(EXPECTED) == 125
    assert {r["case"] for r in EXPECTED} >= {"A8", "A9", "M3", "M6", "N3", "N6"}


ACTUAL = [
    row
    for path in (REFERENCE / "actual_values.csv", REFERENCE / "lea-extra" / "actual_values.csv")
    for row in _rows(path)
    if row.get("case") == "absent" or row["tool"].startswith("scorer.pl")
]


def _same(ours: float, theirs: float) -> bool:
    """Equal as printed by Perl (15 significant digits): integers exactly, floats to 1e-12."""
    if float(theirs).is_integer() and float(ours).is_integer():
        return ours == theirs
    return math.isclose(ours, theirs, rel_tol=1e-12)


@pytest.mark.parametrize("row", ACTUAL, ids=[f"{r.get('pair')}-{r.get('metric')}" for r in ACTUAL])
def test_reference_raw_counts(row: dict[str, str]) -> None:
    if row.get("case") == "absent":
        shared_data("coref", "reference", "actual_values.csv")
    key, response = partitions(row["pair"])
    metric = row["metric"]
    counts = coref_counts(key, response, [metric])
    prefixes = {"r_num": "recall_num", "r_den": "recall_den"}
    prefixes.update(p_num="precision_num", p_den="precision_den")
    if metric == "blanc":
        sides = [("", f"{metric}_coref_"), ("n_", f"{metric}_noncoref_")]
    else:
        sides = [("", f"{metric}_")]
    for column_prefix, key_prefix in sides:
        for column, name in prefixes.items():
            assert _same(counts[key_prefix + name], float(row[column_prefix + column])), column


def test_reference_raw_counts_cover_scorer_pl_and_lea_rows() -> None:
    shared_data("coref", "reference", "actual_values.csv")
    tools = {r["tool"] for r in ACTUAL}
    assert len(ACTUAL) == 216 + 36 + 462 + 77 and len(tools) == 2


# --- the metrics on hand examples ------------------------------------------------------------


def test_muc_paper_example() -> None:
    # Vilain et al.: key {ABCD}, response {AB}{CD}: recall 2/3, precision 2/2
    counts = muc([{"A", "B", "C", "D"}], [{"A", "B"}, {"C", "D"}])
    assert counts == Counts(recall_num=2, recall_den=3, precision_num=2, precision_den=2)


def test_zero_denominator_is_undefined() -> None:
    # TC-N1: an all-singleton key has no MUC link: MUC is undefined (the reference prints 0,
    # which is the task's corpus rule, not the metric's); B3 gives 1
    key = [{1}, {2}, {3}]
    scores = coref_scores(coref_counts(key, key))
    assert scores["muc_recall"] is scores["muc_precision"] is scores["muc_f1"] is None
    assert scores["bcub_f1"] == scores["ceafe_f1"] == scores["lea_f1"] == 1.0
    # the CoNLL score counts the undefined MUC F1 as 0, as every CoNLL scorer prints it
    assert scores["conll_f1"] == pytest.approx(2 / 3)


def test_one_side_empty_gives_f1_zero_and_the_other_side_undefined() -> None:
    scores = coref_scores(coref_counts([{1, 2}, {3}], []))
    assert scores["muc_recall"] == 0.0 and scores["muc_precision"] is None
    assert scores["muc_f1"] == 0.0 and scores["bcub_f1"] == 0.0 and scores["conll_f1"] == 0.0
    assert scores["blanc_recall"] == 0.0 and scores["blanc_precision"] is None
    scores = coref_scores(coref_counts([], [{1, 2}]))
    assert scores["muc_recall"] is None and scores["muc_precision"] == scores["muc_f1"] == 0.0
    # the key has no link at all: BLANC's recall is undefined, its precision 0
    assert scores["blanc_recall"] is None and scores["blanc_precision"] == 0.0
    assert scores["blanc_f1"] == 0.0
    assert set(coref_scores(coref_counts([], [])).values()) == {None}


def test_blanc_kind_the_response_lacks_adds_precision_zero() -> None:
    # the key has both kinds of links, the response only non-coreference ones: Pc is
    # undefined and counts 0 in BLANC's mean, as the reference computes it
    key = [{1, 2}, {3}]
    response = [{1}, {2}, {3}]
    scores = coref_scores(coref_counts(key, response, ["blanc"]), ["blanc"])
    # non-coreference: key {1-3, 2-3}, response {1-2, 1-3, 2-3}: R 1, P 2/3, F 4/5
    assert scores["blanc_recall"] == pytest.approx((0 + 1) / 2)
    assert scores["blanc_precision"] == pytest.approx((0 + 2 / 3) / 2)
    assert scores["blanc_f1"] == pytest.approx((0 + 4 / 5) / 2)


def test_blanc_edge_rule_keyed_on_key() -> None:
    # TC-M3: the key is one entity (no non-coreference links), the response has both kinds;
    # the reference scores only the coreference links (corefud halves them).
    key = [set("abcdef")]
    response = [set("ab"), set("cde"), set("f")]
    counts = blanc(key, response)
    assert counts["noncoref_recall_den"] == 0 and counts["noncoref_precision_den"] > 0
    scores = coref_scores(counts.prefixed("blanc_"), ["blanc"])
    assert scores["blanc_recall"] == pytest.approx(4 / 15)
    assert scores["blanc_precision"] == 1.0


def test_blanc_f_is_mean_of_the_two_f() -> None:
    key = [{1, 2}, {3}]
    response = [{1}, {2, 3}]
    scores = coref_scores(coref_counts(key, response, ["blanc"]), ["blanc"])
    # coreference: 0 of 1 key link found (F 0); non-coreference: key {1-3, 2-3}, response
    # {1-2, 1-3}: 1 common -> R 1/2, P 1/2, F 1/2; BLANC F = (0 + 1/2) / 2
    assert scores["blanc_f1"] == pytest.approx(0.25)
    assert scores["blanc_recall"] == pytest.approx(0.25)


def test_lea_singleton_self_link() -> None:
    counts = lea([{1}, {2, 3}], [{1}, {2}, {3}])
    # key {1} resolved (its mention is a response singleton), {2,3} not: recall 1/3
    assert counts["recall_num"] == 1 and counts["recall_den"] == 3
    # response singletons {1} resolved, {2}, {3} are not singletons in the key: precision 1/3
    assert counts["precision_num"] == 1 and counts["precision_den"] == 3


def test_ceaf_uses_the_optimal_alignment() -> None:
    key = [{1, 2, 3}, {4, 5}]
    response = [{1, 2, 4, 5}, {3}]
    assert ceafm(key, response)["recall_num"] == 3  # {45}->{1245} (2) + {123}->{3} (1)
    assert ceafe(key, response)["recall_num"] == pytest.approx(2 * 2 / 6 + 2 * 1 / 4)


def test_mentions_and_bcub_with_twinless_mentions() -> None:
    key = [{1, 2}]
    response = [{2, 9}]
    assert mentions(key, response) == Counts(
        recall_num=1, recall_den=2, precision_num=1, precision_den=2
    )
    assert bcub(key, response)["recall_num"] == pytest.approx(0.5)


def test_duplicate_mentions_are_rejected() -> None:
    with pytest.raises(ValueError, match="two key entities"):
        EntityOverlap.of([{1}, {1, 2}], [])
    with pytest.raises(ValueError, match="key mention 1 is twice in the response"):
        EntityOverlap.of([{1}], [{1}, {1}])
    with pytest.raises(ValueError, match="key mention 1 is twice in the response"):
        EntityOverlap.of([{1}], [[1, 1]])
    with pytest.raises(ValueError, match="twice"):
        EntityOverlap.of([[1, 1]], [])
    with pytest.raises(ValueError, match="unknown coreference metric"):
        coref_counts([], [], ["nope"])


def test_a_repeated_twinless_mention_is_one_mention_to_identification_and_blanc() -> None:
    """scorer.pl keeps a repeated response mention that is no key mention: each listing is a
    mention for MUC, B3, CEAF and LEA, the mention is one mention (and its links distinct
    links) for mention identification and BLANC."""
    key = [{1, 2}, {3}]
    response = [[1, 9], [9, 2, 3], [9, 9]]
    table = EntityOverlap.of(key, response)
    assert table.response_sizes == (2, 3, 2) and table.distinct_response == 4
    assert mentions(key, response)["precision_den"] == 4
    assert bcub(key, response)["precision_den"] == 7
    # coreference links {1,9} {9,2} {9,3} {2,3} {9,9}; non-coreference links, the pairs
    # across entities as a set: {1,9} {1,2} {1,3} {9,9} {2,9} {3,9}
    links = blanc(key, response)
    assert links["coref_precision_den"] == 5
    assert links["noncoref_precision_den"] == 6
    with pytest.raises(ValueError, match="key mention 2 is twice"):
        EntityOverlap.of(key, [[2], [2, 9]])


# --- properties ------------------------------------------------------------------------------

mention_ids = st.integers(0, 30)
partitions_st = st.lists(st.frozensets(mention_ids, min_size=1, max_size=6), max_size=8).map(
    lambda entities: _disjoint(entities)
)


def _disjoint(entities: list[frozenset[int]]) -> list[frozenset[int]]:
    seen: set[int] = set()
    out = []
    for entity in entities:
        kept = entity - seen
        seen |= kept
        if kept:
            out.append(frozenset(kept))
    return out


def _brute_force_blanc(key: list[frozenset[int]], response: list[frozenset[int]]) -> Counts:
    def links(partition: list[frozenset[int]]) -> tuple[set[frozenset[int]], set[frozenset[int]]]:
        owner = {m: i for i, e in enumerate(partition) for m in e}
        coref, noncoref = set(), set()
        for a, b in itertools.combinations(sorted(owner), 2):
            (coref if owner[a] == owner[b] else noncoref).add(frozenset((a, b)))
        return coref, noncoref

    kc, kn = links(key)
    rc, rn = links(response)
    return Counts(
        coref_recall_num=len(kc & rc),
        coref_recall_den=len(kc),
        coref_precision_num=len(kc & rc),
        coref_precision_den=len(rc),
        noncoref_recall_num=len(kn & rn),
        noncoref_recall_den=len(kn),
        noncoref_precision_num=len(kn & rn),
        noncoref_precision_den=len(rn),
    )


@given(partitions_st, partitions_st)
def test_blanc_link_arithmetic_equals_pair_enumeration(
    key: list[frozenset[int]], response: list[frozenset[int]]
) -> None:
    assert blanc(key, response) == _brute_force_blanc(key, response)


@given(partitions_st)
def test_perfect_response_scores_one(key: list[frozenset[int]]) -> None:
    counts = coref_counts(key, key)
    scores = coref_scores(counts)
    for name in METRICS:
        denominators = [v for k, v in counts.items() if k.startswith(name) and k.endswith("_den")]
        if denominators and all(denominators) and name != "blanc":
            assert scores[f"{name}_f1"] == pytest.approx(1.0)
    if counts["blanc_coref_recall_den"] or counts["blanc_noncoref_recall_den"]:
        assert scores["blanc_f1"] == pytest.approx(1.0)


@given(partitions_st, partitions_st)
def test_scores_stay_in_unit_interval(
    key: list[frozenset[int]], response: list[frozenset[int]]
) -> None:
    for value in coref_scores(coref_counts(key, response)).values():
        assert value is None or -1e-12 <= value <= 1 + 1e-12


@given(partitions_st, partitions_st)
def test_undefined_exactly_where_a_denominator_is_zero(
    key: list[frozenset[int]], response: list[frozenset[int]]
) -> None:
    """The one rule: R undefined when its denominator is 0, P likewise, F only when both are."""
    counts = coref_counts(key, response)
    scores = coref_scores(counts)
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea"):
        no_key = counts[f"{name}_recall_den"] == 0
        no_response = counts[f"{name}_precision_den"] == 0
        assert (scores[f"{name}_recall"] is None) == no_key
        assert (scores[f"{name}_precision"] is None) == no_response
        assert (scores[f"{name}_f1"] is None) == (no_key and no_response)
    key_links = counts["blanc_coref_recall_den"] + counts["blanc_noncoref_recall_den"]
    response_links = counts["blanc_coref_precision_den"] + counts["blanc_noncoref_precision_den"]
    assert (scores["blanc_recall"] is None) == (key_links == 0)
    assert (scores["blanc_f1"] is None) == (key_links == response_links == 0)


@given(partitions_st, partitions_st, st.randoms(use_true_random=False))
def test_shuffling_entities_and_mentions_changes_nothing(
    key: list[frozenset[int]], response: list[frozenset[int]], rnd: random.Random
) -> None:
    def shuffled(partition: list[frozenset[int]]) -> list[list[int]]:
        out = [rnd.sample(sorted(e), len(e)) for e in partition]
        rnd.shuffle(out)
        return out

    assert coref_counts(shuffled(key), shuffled(response)) == coref_counts(key, response)


@settings(max_examples=50)
@given(st.lists(st.tuples(partitions_st, partitions_st), min_size=1, max_size=5))
def test_corpus_counts_are_the_sum_of_document_counts(
    documents: list[tuple[list[frozenset[int]], list[frozenset[int]]]],
) -> None:
    # documents are disjoint: tag each mention with its document number
    def tagged(i: int, partition: list[frozenset[int]]) -> list[frozenset[tuple[int, int]]]:
        return [frozenset((i, m) for m in e) for e in partition]

    per_document = [coref_counts(tagged(i, k), tagged(i, r)) for i, (k, r) in enumerate(documents)]
    # MUC, B3, CEAF, LEA and mentions decompose over disjoint documents; BLANC's
    # non-coreference links do not (pairs across documents), hence scored per document.
    whole_key = [e for i, (k, _) in enumerate(documents) for e in tagged(i, k)]
    whole_response = [e for i, (_, r) in enumerate(documents) for e in tagged(i, r)]
    whole = coref_counts(whole_key, whole_response, [m for m in METRICS if m != "blanc"])
    summed = Counts.total(per_document)
    for name, value in whole.items():
        assert summed[name] == pytest.approx(value)


def test_blanc_is_linear_in_mentions() -> None:
    # 60,000 mentions: enumerating the 1.8e9 mention pairs would take minutes
    key = [frozenset(range(i, i + 6)) for i in range(0, 60_000, 6)]
    response = [frozenset(range(i, i + 4)) for i in range(2, 60_002, 4)]
    started = time.perf_counter()
    counts = blanc(key, response)
    assert time.perf_counter() - started < 5.0
    assert counts["coref_recall_den"] == 10_000 * 15
    assert counts["noncoref_recall_den"] == 60_000 * 59_999 // 2 - 10_000 * 15


def test_an_empty_response_entity_is_dropped() -> None:
    key, response = [{1, 2, 3}], [{1, 2}, {3, 4}]
    with_empty = EntityOverlap.of(key, [set(), response[0], set(), response[1]])
    assert with_empty == EntityOverlap.of(key, response)
    assert with_empty.response_sizes == (2, 2) and with_empty.distinct_response == 4
    assert coref_counts(key, [set(), *response], list(METRICS)) == coref_counts(
        key, response, list(METRICS)
    )


def test_weighted_muc_refuses_a_mention_twice_in_the_response() -> None:
    from annoscore.metrics.coref import weighted_muc

    with pytest.raises(ValueError, match=r"^mention 2 is twice in the response$"):
        weighted_muc([{1, 2}], [{1, 2}, {2, 3}])
