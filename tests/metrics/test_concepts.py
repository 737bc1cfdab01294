"""Concept scoring: span + type + id, and document id sets, on PubTator documents."""

from __future__ import annotations

from annoscore.formats.pubtator import read_pubtator_text
from annoscore.metrics.concepts import concept_counts, concept_items, concept_scores

GOLD = (
    "1|t|Aspirin and heparin\n1|a|stop pain.\n"
    "1\t0\t7\tAspirin\tChemical\tD001241\n"
    "1\t12\t19\theparin\tChemical\tD006493|D001241\n"
    "1\t25\t29\tpain\tDisease\t-1\n"
)
SYSTEM = (
    "1|t|Aspirin and heparin\n1|a|stop pain.\n"
    "1\t0\t7\tAspirin\tChemical\tD001241\n"
    "1\t12\t19\theparin\tChemical\tD006493\n"
    "1\t25\t29\tpain\tDisease\tD010146\n"
)


def test_mentions_match_by_span_type_and_each_id() -> None:
    gold = read_pubtator_text(GOLD, "g")[0]
    system = read_pubtator_text(SYSTEM, "s")[0]
    assert len(concept_items(gold)) == 3  # a composite id is two items; -1 is none
    counts = concept_counts(gold, system)
    assert (counts["tp"], counts["fp"], counts["fn"]) == (2, 1, 1)
    # document id sets: gold {D001241, D006493} (Chemical); system adds D010146 (Disease)
    assert (counts["ids_tp"], counts["ids_fp"], counts["ids_fn"]) == (2, 1, 0)
    scores = concept_scores(counts)
    assert scores["ids_recall"] == 1.0 and scores["precision"] == 2 / 3


def test_a_missing_document_counts_as_nothing_annotated() -> None:
    gold = read_pubtator_text(GOLD, "g")[0]
    counts = concept_counts(gold, None)
    assert counts["tp"] == 0 and counts["fn"] == 3 and counts["ids_fn"] == 2
