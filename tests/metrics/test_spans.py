"""Span counts: attribution to types, the SemEval tallies, and the array path == mention path."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.span_modes import MatchOptions
from annoscore.counts import Counts
from annoscore.metrics import span_tables
from annoscore.metrics import spans as metrics_spans
from annoscore.metrics.span_corpus import SpanCorpus
from annoscore.metrics.spans import (
    mode_counts,
    semeval_counts,
    semeval_scores,
    span_scores,
    type_key,
)
from annoscore.model import Mention, Span

MODES = ("strict", "exact", "overlap", "relaxed", "token", "semeval")


def m(start: int, end: int, type_: str = "X") -> Mention:
    return Mention(Span.of(start, end), type_)


def counts_of(
    gold: list[Mention], pred: list[Mention], mode: str, text: str, **kw: object
) -> Counts:
    options = MatchOptions(**kw)  # type: ignore[arg-type]
    if mode == "semeval":
        return semeval_counts(gold, pred, options)
    return mode_counts(gold, pred, mode, options, text)  # type: ignore[arg-type]


def test_semeval_four_schemes_worked_example() -> None:
    # 1 exact; 2 wrong type, same bounds; 3 same type, overlapping; 4 wrong type, overlapping;
    # 5 missing; 6 spurious (the SemEval-2013 table of outcomes)
    gold = [m(0, 5, "PER"), m(10, 15, "PER"), m(20, 30, "LOC"), m(40, 50, "ORG"), m(60, 65, "PER")]
    pred = [m(0, 5, "PER"), m(10, 15, "LOC"), m(22, 30, "LOC"), m(40, 45, "PER"), m(70, 75, "ORG")]
    c = semeval_counts(gold, pred)
    row = {
        s: tuple(c[f"{s}_{k}"] for k in ("cor", "inc", "par", "mis", "spu"))
        for s in ("strict", "exact", "partial", "type")
    }
    assert row == {
        "strict": (1, 3, 0, 1, 1),
        "exact": (2, 2, 0, 1, 1),
        "partial": (2, 0, 2, 1, 1),
        "type": (2, 2, 0, 1, 1),
    }
    scores = semeval_scores(c)
    assert scores["partial_precision"] == pytest.approx(3 / 5)  # (COR + PAR/2) / ACT
    assert scores["strict_recall"] == pytest.approx(1 / 5)
    # matched pairs count under the gold type, spurious under the predicted type
    assert c[type_key("ORG", "type_inc")] == 1 and c[type_key("ORG", "type_spu")] == 1
    assert c[type_key("PER", "strict_mis")] == 1


def test_overlap_wrong_type_is_fn_of_gold_type_and_fp_of_predicted_type() -> None:
    c = mode_counts([m(0, 5, "A")], [m(0, 5, "B")], "overlap")
    assert c == Counts({"tp": 0, "fp": 1, "fn": 1, "type:A:fn": 1, "type:B:fp": 1})


def test_exact_mode_credits_a_wrong_type_pair_to_the_gold_type() -> None:
    c = mode_counts([m(0, 5, "A")], [m(0, 5, "B")], "exact")
    assert c == Counts({"tp": 1, "type:A:tp": 1})


def test_token_mode_counts_each_typed_token_once() -> None:
    text = "the acute renal failure"
    gold = [m(4, 23, "D")]
    pred = [m(4, 9, "D"), m(4, 15, "D"), m(16, 23, "S")]
    c = mode_counts(gold, pred, "token", text=text)
    assert (c["tp"], c["fp"], c["fn"]) == (2, 1, 1)
    with pytest.raises(ValueError, match="text"):
        mode_counts(gold, pred, "token")


def test_span_scores_undefined_is_none_in_either_kind_of_counts() -> None:
    assert span_scores(Counts()) == {"precision": None, "recall": None, "f1": None}
    empty_semeval = span_scores(Counts(dict.fromkeys(metrics_spans.SEMEVAL_NAMES, 0)))
    assert len(empty_semeval) == 12 and set(empty_semeval.values()) == {None}


@pytest.mark.parametrize("mode", MODES)
def test_perfect_prediction_scores_one(mode: str) -> None:
    gold = [m(0, 3, "A"), m(4, 9, "B"), Mention(Span(((10, 12), (14, 16))), "A")]
    text = "abc defgh ij kl mn"
    c = counts_of(gold, list(reversed(gold)), mode, text)
    scores = span_scores(c)
    assert set(scores) == set(
        semeval_scores(c) if mode == "semeval" else ("precision", "recall", "f1")
    )
    assert set(scores.values()) == {1.0}


def _mentions(draw: st.DrawFn, n_max: int, discontinuous: bool) -> list[Mention]:
    out = []
    for _ in range(draw(st.integers(0, n_max))):
        start = draw(st.integers(0, 30))
        end = start + draw(st.integers(0, 6))
        fragments = [(start, end)]
        if discontinuous and draw(st.integers(0, 9)) == 0:
            fragments.append((end + 2, end + 2 + draw(st.integers(1, 4))))
        out.append(Mention(Span(tuple(fragments)), draw(st.sampled_from("AB"))))
    return out


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[list[Mention]], list[list[Mention]], list[str]]:
    n_docs = draw(st.integers(1, 4))
    discontinuous = draw(st.booleans())
    gold = [_mentions(draw, 7, discontinuous) for _ in range(n_docs)]
    pred = [_mentions(draw, 7, discontinuous) for _ in range(n_docs)]
    texts = [draw(st.text(alphabet="ab \n\u00a0", min_size=0, max_size=45)) for _ in gold]
    return gold, pred, texts


options_strategy = st.builds(
    MatchOptions,
    min_overlap=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
    overlap_basis=st.sampled_from(["gold", "predicted", "shorter", "longer", "union"]),
    tolerance=st.integers(0, 3),
)


@settings(max_examples=150, deadline=None)
@given(corpora(), options_strategy)
def test_array_path_equals_mention_path(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]], options: MatchOptions
) -> None:
    gold, pred, texts = corpus
    span_corpus = SpanCorpus.from_mentions([str(i) for i in range(len(gold))], gold, pred, texts)
    for mode in MODES:
        table = span_corpus.table(mode, options)  # type: ignore[arg-type]
        for d in range(len(gold)):
            expected = (
                semeval_counts(gold[d], pred[d], options)
                if mode == "semeval"
                else mode_counts(gold[d], pred[d], mode, options, texts[d])  # type: ignore[arg-type]
            )
            assert table.document(d) == expected, (mode, d)
        # the sum of per-document counts is the corpus count
        assert (
            Counts.total(
                Counts({k: v for k, v in table.document(d).items() if ":" not in k})
                for d in range(len(gold))
            )
            == table.corpus()
        )


@settings(max_examples=80, deadline=None)
@given(corpora(), options_strategy, st.randoms(use_true_random=False))
def test_shuffling_mentions_changes_nothing(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]],
    options: MatchOptions,
    rnd: random.Random,
) -> None:
    gold, pred, texts = corpus
    for mode in MODES:
        before = [
            counts_of(g, p, mode, t, **_kw(options))
            for g, p, t in zip(gold, pred, texts, strict=True)
        ]
        for g, p in zip(gold, pred, strict=True):
            rnd.shuffle(g)
            rnd.shuffle(p)
        after = [
            counts_of(g, p, mode, t, **_kw(options))
            for g, p, t in zip(gold, pred, texts, strict=True)
        ]
        assert before == after


def _kw(options: MatchOptions) -> dict[str, object]:
    return {
        "min_overlap": options.min_overlap,
        "overlap_basis": options.overlap_basis,
        "tolerance": options.tolerance,
    }


@settings(max_examples=80, deadline=None)
@given(corpora())
def test_scores_stay_between_zero_and_one(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]],
) -> None:
    gold, pred, texts = corpus
    for mode in MODES:
        for g, p, t in zip(gold, pred, texts, strict=True):
            c = counts_of(g, p, mode, t)
            scores = span_scores(c)
            assert all(v is None or 0.0 <= v <= 1.0 for v in scores.values())


def test_documents_with_discontinuous_mentions_take_the_mention_path() -> None:
    gap = Mention(Span(((0, 2), (4, 6))), "A")
    corpus = SpanCorpus.from_mentions(["a", "b"], [[gap], [m(0, 3)]], [[gap], [m(0, 3)]])
    assert set(corpus.by_mentions) == {0}
    assert len(corpus.gold) == 1
    assert corpus.table("strict").corpus() == Counts(tp=2, fp=0, fn=0)


def test_from_dicts_uses_half_open_ends_and_checks_them() -> None:
    corpus = SpanCorpus.from_dicts(
        [[{"label": "A", "start": 0, "end": 4}]], [[{"label": "A", "start": 0, "end": 4}]]
    )
    assert corpus.table("strict").corpus() == Counts(tp=1, fp=0, fn=0)
    with pytest.raises(ValueError, match="start <= end"):
        SpanCorpus.from_dicts([[{"label": "A", "start": 5, "end": 4}]], [[]])


@settings(max_examples=60, deadline=None)
@given(corpora(), options_strategy)
def test_from_dicts_equals_from_mentions(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]], options: MatchOptions
) -> None:
    gold, pred, texts = corpus

    def continuous(side: list[list[Mention]]) -> list[list[Mention]]:
        return [[x for x in doc if not x.span.is_discontinuous] for doc in side]

    def dicts(side: list[list[Mention]]) -> list[list[dict[str, object]]]:
        return [
            [{"label": x.type, "start": x.span.start, "end": x.span.end} for x in doc]
            for doc in side
        ]

    gold, pred = continuous(gold), continuous(pred)
    ids = [str(i) for i in range(len(gold))]
    from_mentions = SpanCorpus.from_mentions(ids, gold, pred, texts)
    from_dicts = SpanCorpus.from_dicts(dicts(gold), dicts(pred), texts)
    assert from_dicts.types == from_mentions.types
    for mode in MODES:
        expected = from_mentions.table(mode, options)  # type: ignore[arg-type]
        assert (from_dicts.table(mode, options).values == expected.values).all(), mode  # type: ignore[arg-type]


def test_from_dicts_numbers_types_by_name_not_by_first_appearance() -> None:
    corpus = SpanCorpus.from_dicts(
        [[{"label": "Zeta", "start": 0, "end": 2}, {"label": "Alpha", "start": 3, "end": 5}]],
        [[{"label": "Mu", "start": 3, "end": 5}]],
    )
    assert corpus.types == ("Alpha", "Mu", "Zeta")
    assert corpus.gold.type.tolist() == [2, 0]
    counts = corpus.table("exact").document(0)
    assert counts[type_key("Alpha", "tp")] == 1 and counts[type_key("Zeta", "fn")] == 1


def test_from_dicts_rejects_labels_that_are_not_strings() -> None:
    with pytest.raises(ValueError, match="label"):
        SpanCorpus.from_dicts([[{"label": 3, "start": 0, "end": 4}]], [[]])


def test_offsets_too_large_for_packed_keys_take_the_mention_path() -> None:
    far = 3 * 10**9
    gold = [[m(far, far + 5, "A")], [m(0, 2, "B")]]
    pred = [[m(far, far + 5, "A"), m(far + 1, far + 5, "A")], [m(0, 2, "A")]]
    corpus = SpanCorpus.from_mentions(["a", "b"], gold, pred)
    assert set(corpus.by_mentions) == {0, 1} and len(corpus.gold) == 0
    assert corpus.table("strict").corpus() == Counts(tp=1, fp=2, fn=1)
    assert corpus.table("semeval").corpus()["type_inc"] == 1


@settings(max_examples=40, deadline=None)
@given(corpora(), options_strategy, st.integers(1, 60))
def test_counting_in_small_runs_of_documents_equals_one_run(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]],
    options: MatchOptions,
    chunk: int,
) -> None:
    gold, pred, texts = corpus
    span_corpus = SpanCorpus.from_mentions([str(i) for i in range(len(gold))], gold, pred, texts)
    for mode in MODES:
        whole = span_corpus.table(mode, options).values  # type: ignore[arg-type]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(span_tables, "TOKEN_CHUNK_CHARS", chunk)
            patch.setattr(span_tables, "ROW_CHUNK", max(chunk // 4, 1))
            assert (span_corpus.table(mode, options).values == whole).all(), mode  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(corpora(), options_strategy)
def test_hopcroft_karp_counts_equal_the_optimal_matching_counts(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]], options: MatchOptions
) -> None:
    gold, pred, texts = corpus
    span_corpus = SpanCorpus.from_mentions([str(i) for i in range(len(gold))], gold, pred, texts)
    for mode in ("overlap", "relaxed"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(span_tables, "CARDINALITY_THRESHOLD", -1)
            table = span_corpus.table(mode, options)  # type: ignore[arg-type]
        for d in range(len(gold)):
            expected = mode_counts(gold[d], pred[d], mode, options)  # type: ignore[arg-type]
            assert table.document(d) == expected, (mode, d)


def test_a_dense_chain_of_overlaps_is_counted_by_cardinality() -> None:
    # every prediction overlaps two gold spans: one long ambiguous component per document
    gold = [[m(10 * k, 10 * k + 8) for k in range(40)] for _ in range(3)]
    pred = [[m(10 * k + 5, 10 * k + 13) for k in range(40)] for _ in range(3)]
    span_corpus = SpanCorpus.from_mentions(["a", "b", "c"], gold, pred)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(span_tables, "CARDINALITY_THRESHOLD", 10)
        fast = span_corpus.table("overlap").corpus()
    assert fast == span_corpus.table("overlap").corpus() == Counts(tp=120, fp=0, fn=0)


# --- dense clusters (issue 15, item 7) -------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(corpora(), options_strategy)
def test_dense_cluster_methods_give_the_ordinary_counts(
    corpus: tuple[list[list[Mention]], list[list[Mention]], list[str]],
    options: MatchOptions,
) -> None:
    """With the density thresholds at 0 every cluster takes the dense-cluster methods: overlap
    and relaxed give the same counts (per type too); SemEval the same corpus counts (its
    per-type split may differ only where closeness breaks a tie)."""
    from annoscore.align import span_dense as align_spans

    gold, pred, texts = corpus
    gold = [[x for x in doc if not x.span.is_discontinuous] for doc in gold]
    pred = [[x for x in doc if not x.span.is_discontinuous] for doc in pred]
    span_corpus = SpanCorpus.from_mentions([str(i) for i in range(len(gold))], gold, pred, texts)
    ordinary = {
        mode: span_corpus.table(mode, options) for mode in ("overlap", "relaxed", "semeval")
    }
    saved = (align_spans.DENSE_DOC_PAIRS, align_spans.DENSE_CELLS)
    align_spans.DENSE_DOC_PAIRS, align_spans.DENSE_CELLS = -1, 0
    try:
        dense = {mode: span_corpus.table(mode, options) for mode in ordinary}
    finally:
        align_spans.DENSE_DOC_PAIRS, align_spans.DENSE_CELLS = saved
    for mode in ("overlap", "relaxed"):
        assert (dense[mode].values == ordinary[mode].values).all(), mode
    assert dense["semeval"].corpus() == ordinary["semeval"].corpus()


def test_greedy_overlap_matching_is_maximum() -> None:
    from annoscore.align.span_dense import greedy_overlap_matching

    # gold [0,10) overlaps both predictions, gold [12,20) only the second: the greedy must
    # leave the second prediction to the later gold
    pairs = greedy_overlap_matching([0, 12], [10, 20], [2, 8], [5, 15])
    assert sorted(pairs) == [(0, 0), (1, 1)]


def test_ten_thousand_mutually_overlapping_spans_in_every_mode() -> None:
    import time

    n = 5000  # 5,000 gold and 5,000 predicted spans, all nested around one point
    gold = [m(k, 2 * n + 1 - k, "AB"[k % 2]) for k in range(1, n + 1)]
    pred = [m(k, 2 * n + 2 - k, "AB"[k % 3 % 2]) for k in range(1, n + 1)]
    text = "x" * (2 * n + 2)
    corpus = SpanCorpus.from_mentions(["d"], [gold], [pred], [text])
    for mode in ("strict", "exact", "overlap", "relaxed", "token", "semeval"):
        began = time.perf_counter()
        table = corpus.table(mode, MatchOptions(tolerance=2))  # type: ignore[arg-type]
        assert time.perf_counter() - began < 5.0, mode
        counts = table.corpus()
        if mode == "overlap":  # every gold overlaps every prediction: min(G, P) per type
            types = ([x.type for x in gold], [x.type for x in pred])
            assert counts["tp"] == sum(
                min(g.count(t), p.count(t)) for t in "AB" for g, p in [types]
            )
        if mode == "semeval":
            assert counts["type_cor"] + counts["type_inc"] == n  # everything pairs up


def test_semeval_scores_are_the_tally_arithmetic() -> None:
    from annoscore.metrics.prf import f_beta
    from annoscore.metrics.tallies import Tally

    rnd = random.Random(5)
    for _ in range(2000):
        values = {
            f"{scheme}_{kind}": rnd.choice([0, 0, 1, 2, 3, 7, 40])
            for scheme in ("strict", "exact", "partial", "type")
            for kind in ("cor", "inc", "par", "mis", "spu")
        }
        prefix = rnd.choice(["", "type:Drug:"])
        counts = Counts({prefix + k: v for k, v in values.items()})
        scores = metrics_spans.semeval_scores(counts, prefix)
        for scheme in ("strict", "exact", "partial", "type"):
            tally = Tally(*(values[f"{scheme}_{k}"] for k in ("cor", "par", "inc", "mis", "spu")))
            f1 = f_beta(tally.precision, tally.recall)
            if f1 is None and tally.pos + tally.act > 0:
                f1 = 0.0
            expected = (tally.precision, tally.recall, f1)
            got = tuple(scores[f"{scheme}_{k}"] for k in ("precision", "recall", "f1"))
            assert got == expected
