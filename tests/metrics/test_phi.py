"""PHI counts per note: every official quirk, the HIPAA level, tokenizers, official rounding."""

from __future__ import annotations

from annoscore.counts import Counts
from annoscore.formats.nlpsandbox import PhiAnnotation as A
from annoscore.metrics.phi import (
    Quotes,
    SameStart,
    Tokenizer,
    TokenSpans,
    all_scores,
    note_counts,
    official_prf,
    phi_scores,
)

TREEBANK = TokenSpans(Tokenizer.treebank, Quotes.fixed)


def counts(gold: list[A], pred: list[A], **options: object) -> Counts:
    spans = options.pop("spans", TREEBANK)
    return note_counts(gold, pred, spans, **options).counts  # type: ignore[arg-type]


def test_relax_needs_the_same_start_and_a_length_within_the_margin() -> None:
    gold = [A(10, 9, "Jon Smith", None, False)]
    assert counts(gold, [A(10, 7, "Jon Smi", None, False)])["instance_relax_tp"] == 1
    assert counts(gold, [A(10, 6, "Jon Sm", None, False)])["instance_relax_tp"] == 0
    assert counts(gold, [A(11, 9, "on Smith ", None, False)])["instance_relax_tp"] == 0
    assert counts(gold, [A(10, 6, "Jon Sm", None, False)], relax_margin=3)["instance_relax_tp"] == 1


def test_a_failed_match_at_a_gold_start_is_both_a_false_positive_and_a_false_negative() -> None:
    c = counts([A(10, 9, "Jon Smith", None, False)], [A(10, 3, "Jon", None, False)])
    assert (c["instance_strict_tp"], c["instance_strict_fp"], c["instance_strict_fn"]) == (0, 1, 1)


def test_last_annotation_at_a_start_wins_but_every_annotation_gives_tokens() -> None:
    gold = [A(10, 9, "Jon Smith", None, False)]
    pred = [A(10, 9, "Jon Smith", None, False), A(10, 3, "Jon", None, False)]
    tally = note_counts(gold, pred, TREEBANK)
    assert tally.counts["instance_strict_tp"] == 0 and tally.overwritten_pred == 1
    assert tally.counts["token_strict_tp"] == 2  # "Smith" comes from the overwritten one
    first = note_counts(gold, pred, TREEBANK, same_start=SameStart.first)
    assert first.counts["instance_strict_tp"] == 1


def test_absent_type_never_matches_but_null_matches_null() -> None:
    absent = counts([A(0, 3, "May", None, False)], [A(0, 3, "May", None, False)])
    null = counts([A(0, 3, "May", None, True)], [A(0, 3, "May", None, True)])
    empty = counts([A(0, 3, "May", "", True)], [A(0, 3, "May", "", True)])
    assert (absent["type_tp"], null["type_tp"], empty["type_tp"]) == (0, 1, 1)
    assert absent["instance_strict_tp"] == 1


def test_hipaa_compares_the_phi_flag_of_the_location_type() -> None:
    # the task page's example: hospital/organization, country/country, zip/zip
    gold = [A(0, 4, "EHMS", "organization", True), A(5, 4, "U.S.", "country", True)]
    gold.append(A(10, 5, "98110", "zip", True))
    pred = [A(0, 4, "EHMS", "hospital", True), A(5, 4, "U.S.", "country", True)]
    pred.append(A(10, 5, "98110", "zip", True))
    tally = note_counts(gold, pred, TREEBANK, hipaa=True)
    c = tally.counts
    assert (c["type_tp"], c["type_fp"], c["type_fn"]) == (2, 1, 1)
    # organization is PHI, hospital is not: the flags differ there (the page's "1" does not follow)
    assert (c["hipaa_tp"], c["hipaa_fp"], c["hipaa_fn"]) == (2, 1, 1)
    assert phi_scores(c)["hipaa_f1"] == 2 / 3
    unknown = note_counts(
        [A(0, 1, "x", "planet", True)], [A(0, 1, "x", "planet", True)], TREEBANK, hipaa=True
    )
    assert unknown.counts["hipaa_tp"] == 0 and unknown.counts["type_tp"] == 1
    assert unknown.unknown_hipaa == 2


def test_treebank_tokens_split_punctuation_and_clitics() -> None:
    assert TREEBANK("Boston, MA") == ((0, 6), (6, 1), (8, 2))
    assert TREEBANK("(617) 555-1234") == ((0, 1), (1, 3), (4, 1), (6, 8))
    assert TREEBANK("U.S.") == ((0, 3), (3, 1))


def test_rewritten_double_quotes_official_offsets_or_fixed() -> None:
    fixed = TokenSpans(Tokenizer.treebank, Quotes.fixed)
    official = TokenSpans(Tokenizer.treebank, Quotes.official)
    gold = [A(10, 7, '"Jon" X', None, False)]
    assert counts(gold, [], spans=official)["token_strict_fn"] == 4  # 2 of them bogus
    assert counts(gold, [], spans=fixed)["token_strict_fn"] == 4
    assert official('"Jon" X')[0] == (-1, 2) and fixed('"Jon" X')[0] == (0, 1)
    assert fixed.quote_fixes == 2 and official.quote_fixes == 0  # once per text scored


def test_whitespace_tokenizer_quirks() -> None:
    spans = TokenSpans(Tokenizer.whitespace, Quotes.fixed)
    assert spans("David's  home") == ((0, 7), (8, 4))  # two spaces shift "home" by one
    assert spans(" Jon") == ((0, 0), (1, 3))  # leading whitespace: an empty token


def test_official_rounding_takes_f1_from_the_rounded_values() -> None:
    assert official_prf(1, 12, 0) == (0.15, 0.08, 1.0)
    f1, precision, recall = official_prf(0, 0, 0)
    assert (f1, precision, recall) == (0, 0, 0) and isinstance(f1, int)


def test_all_scores_prefix_by_category() -> None:
    scores = all_scores(Counts({"location_instance_relax_tp": 1, "location_hipaa_tp": 1}))
    assert scores["location_hipaa_f1"] == 1.0
    assert "date_instance_relax_f1" not in scores
