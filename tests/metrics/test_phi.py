"""PHI counts per note: every official quirk, the HIPAA level, tokenizers, official rounding."""

from __future__ import annotations

import random
from typing import Any

import pytest

from annoscore.counts import Counts
from annoscore.formats.nlpsandbox import ABSENT, Numbering, type_numbering
from annoscore.metrics.phi import (
    Quotes,
    SameStart,
    Tokenizer,
    all_scores,
    hipaa_flags,
    official_prf,
    phi_scores,
)
from annoscore.metrics.phi_counts import CategoryTally, Columns, category_counts
from annoscore.metrics.phi_tokens import TokenSpans, span_table
from tests.oracles import nlpsandbox as oracle

TREEBANK = TokenSpans(Tokenizer.treebank, Quotes.fixed)


def A(start: int, length: int, text: str, kind: object, typed: bool) -> tuple[Any, ...]:
    """One annotation: its type value, or ABSENT when ``typed`` is false."""
    return (start, length, text, kind if typed else ABSENT)


def tally(
    gold: list[Any], pred: list[Any], spans: TokenSpans = TREEBANK, **options: Any
) -> CategoryTally:
    """:func:`category_counts` of one note."""
    import numpy as np

    texts, kinds = Numbering(), type_numbering()

    def columns(items: list[Any]) -> Columns:
        rows = [
            (0, start, length, t, k)
            for (start, length, _, _), t, k in zip(
                items,
                texts.number([item[2] for item in items]),
                kinds.number([item[3] for item in items]),
                strict=True,
            )
        ]
        data = np.array(rows, dtype=np.int64).reshape(-1, 5)
        return Columns(*(np.ascontiguousarray(data[:, k]) for k in range(5)))

    g, p = columns(gold), columns(pred)
    hipaa = options.pop("hipaa", False)
    table = span_table(texts.values(), spans)
    flags = hipaa_flags(kinds.values()) if hipaa else None
    return category_counts(g, p, table, 1, hipaa=flags, **options)


def counts(gold: list[Any], pred: list[Any], **options: Any) -> Counts:
    found = tally(gold, pred, options.pop("spans", TREEBANK), **options)
    return Counts({name: int(column[0]) for name, column in found.columns.items()})


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
    found = tally(gold, pred)
    assert found.columns["instance_strict_tp"][0] == 0 and found.overwritten_pred == 1
    assert found.columns["token_strict_tp"][0] == 2  # "Smith" comes from the overwritten one
    first = counts(gold, pred, same_start=SameStart.first)
    assert first["instance_strict_tp"] == 1


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
    c = counts(gold, pred, hipaa=True)
    assert (c["type_tp"], c["type_fp"], c["type_fn"]) == (2, 1, 1)
    # organization is PHI, hospital is not: the flags differ there (the page's "1" does not follow)
    assert (c["hipaa_tp"], c["hipaa_fp"], c["hipaa_fn"]) == (2, 1, 1)
    assert phi_scores(c)["hipaa_f1"] == 2 / 3
    unknown = tally([A(0, 1, "x", "planet", True)], [A(0, 1, "x", "planet", True)], hipaa=True)
    assert unknown.columns["hipaa_tp"][0] == 0 and unknown.columns["type_tp"][0] == 1
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
    assert tally(gold, [], spans=fixed).quote_fixes == 1  # once per annotation
    assert tally(gold, [], spans=official).quote_fixes == 0


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


# --- the columnar counts: pinned to TokenSpans and to the plain reference -----------------------

PIECES = ["Jon", "Smith", "David's", "Boston,", "(617)", "U.S.", "can't", '"Jon"', "''x''", "--"]


def _random_text(rnd: random.Random) -> str:
    words = [
        rnd.choice(PIECES) if rnd.random() < 0.7 else f"{rnd.randrange(10 ** rnd.randint(1, 6))}"
        for _ in range(rnd.randint(0, 4))
    ]
    text = "".join(word + rnd.choice([" ", "  ", "\t", "-", ""]) for word in words)
    return rnd.choice(["", " "]) + text


@pytest.mark.parametrize(
    ("tokenizer", "quotes"),
    [
        (Tokenizer.treebank, Quotes.fixed),
        (Tokenizer.treebank, Quotes.official),
        (Tokenizer.whitespace, Quotes.fixed),
    ],
)
def test_span_table_gives_every_texts_spans(tokenizer: Tokenizer, quotes: Quotes) -> None:
    rnd = random.Random(5)
    texts = list(dict.fromkeys(_random_text(rnd) for _ in range(600)))
    table = span_table(texts, TokenSpans(tokenizer, quotes))
    reference = TokenSpans(tokenizer, quotes)
    for k, text in enumerate(texts):
        e = table.entry[k]
        rows = range(table.first[e], table.first[e] + table.size[e])
        got = tuple((int(table.offset[r]), int(table.length[r])) for r in rows)
        fixes = reference.quote_fixes
        assert got == reference(text), text
        assert table.fixed[e] == reference.quote_fixes - fixes
    assert quotes is Quotes.official or tokenizer is Tokenizer.whitespace or table.fixed.any()


def _random_side(rnd: random.Random, notes: int, texts: list[str], far: bool) -> list[Any]:
    rows = []
    for _ in range(rnd.randrange(80)):
        start = rnd.randrange(40) + (rnd.choice([0, 2**53 - 99]) if far else 0)
        rows.append((rnd.randrange(notes), start, rnd.randrange(8), rnd.randrange(len(texts))))
    return [(*row, rnd.randrange(6)) for row in rows]  # kind 0: absent, 1: null


KIND_VALUES = [None, None, "city", "zip", "room", "planet"]  # kind numbers 0..5


def _annotations(rows: list[Any], texts: list[str]) -> dict[int, list[oracle.Annotation]]:
    notes: dict[int, list[oracle.Annotation]] = {}
    for note, start, length, text, kind in rows:
        annotation = oracle.Annotation(start, length, texts[text], kind != 0, KIND_VALUES[kind])
        notes.setdefault(note, []).append(annotation)
    return notes


def _columns(rows: list[Any]) -> Columns:
    import numpy as np

    data = np.array(rows, dtype=np.int64).reshape(-1, 5)
    return Columns(*(np.ascontiguousarray(data[:, k]) for k in range(5)))


@pytest.mark.parametrize("seed", range(40))
def test_category_counts_are_the_plain_counts_of_every_note(seed: int) -> None:
    rnd = random.Random(seed)
    texts = list(dict.fromkeys(_random_text(rnd) for _ in range(30)))
    far = seed % 4 == 3  # starts near 2**53: keys that do not fit one int64 (the other paths)
    notes = rnd.choice([100, 600]) if far else rnd.randint(1, 6)
    gold, pred = _random_side(rnd, notes, texts, far), _random_side(rnd, notes, texts, far)
    options = {
        "relax_margin": rnd.choice([0, 2, 3]),
        "same_start": rnd.choice(list(SameStart)),
    }
    quotes = rnd.choice(list(Quotes))
    tokenizer = rnd.choice(list(Tokenizer))
    table = span_table(texts, TokenSpans(tokenizer, quotes))
    found = category_counts(
        _columns(gold),
        _columns(pred),
        table,
        notes,
        hipaa=hipaa_flags(KIND_VALUES),
        **options,  # type: ignore[arg-type]
    )
    tokens = oracle.Tokens(tokenizer.value, quotes.value)
    quirks = oracle.Quirks()
    g_notes, p_notes = _annotations(gold, texts), _annotations(pred, texts)
    for note in range(notes):
        expected = oracle.note_counts(
            g_notes.get(note, []),
            p_notes.get(note, []),
            tokens,
            quirks,
            hipaa=True,
            same_start=options["same_start"].value,  # type: ignore[attr-defined]
            relax_margin=options["relax_margin"],  # type: ignore[arg-type]
        )
        got = {name: int(column[note]) for name, column in found.columns.items()}
        assert got == expected, note
    assert [found.overwritten_gold, found.overwritten_pred] == list(quirks.overwritten.values())
    assert found.unknown_hipaa == quirks.unknown_hipaa
    assert found.quote_fixes == tokens.fixed
