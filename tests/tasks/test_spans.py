"""count_spans and score_spans: conformance on the PharmaCoNER data, document policies,
averages, properties."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.span_modes import SpanMode
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.brat import read_brat
from annoscore.model import AnnotatedDocument, Mention, Span
from annoscore.tasks.spans import SpanOptions, count_spans, score_spans
from tests.conftest import shared_data
from tests.helpers import texts


def doc(doc_id: str, *spans: tuple[int, int, str], text: str | None = None) -> AnnotatedDocument:
    return AnnotatedDocument(doc_id, tuple(Mention(Span.of(s, e), t) for s, e, t in spans), text)


def test_pharmaconer_sample_strict_is_the_official_count() -> None:
    gold = read_brat(shared_data("pharmaconer", "sample", "gold", "subtrack1", "sample"))
    pred = read_brat(shared_data("pharmaconer", "sample", "system", "subtrack1", "sample"))
    result = count_spans(gold, pred, SpanOptions(mode="strict", missing_docs="ignore"))
    assert result.counts == Counts(tp=54, fp=1, fn=2)
    assert round(result.scores["precision"] or 0, 4) == 0.9818
    assert round(result.scores["f1"] or 0, 3) == 0.973
    # the off-by-one span (907-921 against 907-920) matches in overlap and relaxed modes
    assert count_spans(gold, pred, SpanOptions(mode="overlap")).counts == Counts(tp=55, fp=0, fn=1)
    assert count_spans(gold, pred, SpanOptions(mode="relaxed", tolerance=1)).counts == Counts(
        tp=55, fp=0, fn=1
    )


def test_pharmaconer_codalab_strict_without_unclear_removal() -> None:
    base = shared_data("pharmaconer", "codalab", "subtask1", "input")
    gold = read_brat(base / "ref" / "subtask1", check_text=False)
    pred = read_brat(base / "res" / "subtask1", check_text=False)
    result = count_spans(
        gold, pred, SpanOptions(mode="strict", missing_docs="ignore", duplicates="collapse")
    )
    assert result.counts == Counts(tp=1582, fp=233, fn=294)


def test_missing_docs_count_or_ignore_with_a_warning() -> None:
    gold = {"a": doc("a", (0, 3, "X")), "b": doc("b", (0, 3, "X"))}
    pred = {"a": doc("a", (0, 3, "X")), "c": doc("c", (5, 9, "X"))}
    counted = count_spans(gold, pred)
    assert counted.counts == Counts(tp=1, fp=1, fn=1)
    assert any("1 gold document(s)" in w for w in texts(counted))
    assert any("1 system document(s)" in w for w in texts(counted))
    ignored = count_spans(gold, pred, SpanOptions(missing_docs="ignore"))
    assert ignored.counts == Counts(tp=1, fp=0, fn=0)
    assert "missing-docs:ignore" in str(ignored.signature)


def test_duplicates_count_or_collapse_with_a_warning() -> None:
    gold = {"a": doc("a", (0, 3, "X"), (0, 3, "X"))}
    pred = {"a": doc("a", (0, 3, "X"))}
    counted = count_spans(gold, pred)
    assert counted.counts == Counts(tp=1, fp=0, fn=1)
    assert any("1 mention(s) repeat" in w for w in texts(counted))
    collapsed = count_spans(gold, pred, SpanOptions(duplicates="collapse"))
    assert collapsed.counts == Counts(tp=1, fp=0, fn=0)


def test_token_mode_without_text_is_an_input_error_naming_the_document() -> None:
    with pytest.raises(InputError, match="document a: token mode needs the document text"):
        count_spans({"a": doc("a", (0, 3, "X"))}, {"a": doc("a")}, SpanOptions(mode="token"))


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(InputError, match="mode: 'fuzzy' is not one of strict, exact, overlap"):
        SpanOptions(mode="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tolerance": 2}, "--tolerance has no effect with --mode strict (only with relaxed)"),
        (
            {"mode": "relaxed", "min_overlap": 0.5},
            "--min-overlap has no effect with --mode relaxed (only with overlap and semeval)",
        ),
        (
            {"mode": "token", "overlap_basis": "union"},
            "--overlap-of has no effect with --mode token (only with overlap and semeval)",
        ),
        ({"mode": "relaxed", "tolerance": 2**53 + 1}, "is beyond any text"),
    ],
)
def test_an_option_with_no_effect_in_the_mode_is_refused(
    options: dict[str, object], message: str
) -> None:
    """Made, the options record the setting; scoring with them refuses it (it would be
    silently ignored), in memory as from files."""
    chosen = SpanOptions(**options)  # type: ignore[arg-type]
    with pytest.raises(InputError) as refused:
        count_spans({}, {}, chosen)
    assert message in str(refused.value)
    with pytest.raises(InputError):
        score_spans(Path("/nonexistent/gold"), Path("/nonexistent/system"), chosen)


def test_the_signature_records_every_setting_in_every_mode() -> None:
    """Derived from SpanOptions: every setting, in its order, whether the mode reads it or not
    (before issue 26 a mode left out the parameters it does not read)."""
    default = str(SpanOptions().signature("spans")).split("|", 2)[2]
    assert default == (
        "mode:strict|min-overlap:0.0|overlap-basis:gold|tolerance:0|"
        "matching:one-to-one-optimal|duplicates:count|missing-docs:count"
    )
    relaxed = SpanOptions(mode=SpanMode.relaxed, tolerance=2, missing_docs="ignore")
    assert str(relaxed.signature("spans")).split("|", 2)[2] == (
        "mode:relaxed|min-overlap:0.0|overlap-basis:gold|tolerance:2|"
        "matching:one-to-one-optimal|duplicates:count|missing-docs:ignore"
    )
    bioc = SpanOptions(type_infon="kind")  # BioC's infons: in the signature only when set
    assert str(bioc.signature("spans")).endswith("|missing-docs:count|type-infon:kind")


def test_per_type_per_doc_and_macro_averages() -> None:
    gold = {"a": doc("a", (0, 3, "X"), (5, 8, "Y")), "b": doc("b", (0, 3, "X"))}
    pred = {"a": doc("a", (0, 3, "X")), "b": doc("b", (0, 3, "X"), (4, 6, "Y"))}
    result = count_spans(gold, pred)
    assert result.types["X"].scores["f1"] == 1.0
    assert result.types["Y"].counts == Counts(tp=0, fp=1, fn=1)
    assert result.averages["macro_type"]["f1"] == pytest.approx(0.5)
    doc_f1 = [result.documents[d].scores["f1"] for d in ("a", "b")]
    assert result.averages["macro_doc"]["f1"] == pytest.approx(sum(doc_f1) / 2)  # type: ignore[arg-type]
    assert Counts.total(u.counts for u in result.documents.values()) == result.counts


def test_macro_doc_counts_a_document_with_nothing_predicted_as_f1_zero() -> None:
    """design.md: F is undefined only when tp+fp+fn = 0, so a document with gold mentions and
    no prediction scores F 0 and pulls macro_doc down (it used to drop out of the mean)."""
    gold = {"a": doc("a", (0, 3, "X")), "b": doc("b", *[(i * 4, i * 4 + 3, "X") for i in range(5)])}
    pred = {"a": doc("a", (0, 3, "X")), "b": doc("b")}
    result = count_spans(gold, pred)
    assert result.documents["b"].scores == {"precision": None, "recall": 0.0, "f1": 0.0}
    assert result.averages["macro_doc"]["recall"] == 0.5
    assert result.averages["macro_doc"]["f1"] == 0.5
    assert result.averages["macro_doc"]["precision"] == 1.0  # b has no precision: left out


def test_semeval_keys_follow_the_contract() -> None:
    result = count_spans(
        {"a": doc("a", (0, 3, "X"))}, {"a": doc("a", (0, 2, "Y"))}, SpanOptions(mode="semeval")
    )
    assert set(result.scores) == {
        f"{s}_{k}"
        for s in ("strict", "exact", "partial", "type")
        for k in ("precision", "recall", "f1")
    }
    assert set(result.counts) == {
        f"{s}_{k}"
        for s in ("strict", "exact", "partial", "type")
        for k in ("cor", "inc", "par", "mis", "spu")
    }
    assert result.scores["partial_f1"] == 0.5


@st.composite
def corpus(draw: st.DrawFn) -> dict[str, AnnotatedDocument]:
    docs = {}
    for d in range(draw(st.integers(1, 4))):
        spans = []
        for _ in range(draw(st.integers(0, 6))):
            start = draw(st.integers(0, 30))
            spans.append((start, start + draw(st.integers(1, 5)), draw(st.sampled_from("AB"))))
        docs[f"d{d}"] = doc(f"d{d}", *spans, text="w " * 20)
    return docs


@settings(max_examples=40, deadline=None)
@given(corpus(), corpus(), st.randoms(use_true_random=False))
def test_properties_of_every_mode(
    gold: dict[str, AnnotatedDocument], pred: dict[str, AnnotatedDocument], rnd: random.Random
) -> None:
    for mode in SpanMode:
        options = SpanOptions(mode=mode, tolerance=1 if mode is SpanMode.relaxed else 0)
        result = count_spans(gold, pred, options)
        assert all(v is None or 0.0 <= v <= 1.0 for v in result.scores.values())
        assert Counts.total(u.counts for u in result.documents.values()) == result.counts
        perfect = count_spans(gold, gold, SpanOptions(mode=mode))
        assert all(v in (None, 1.0) for v in perfect.scores.values())
        shuffled = {}
        for key in rnd.sample(list(pred), len(pred)):
            mentions = list(pred[key].mentions)
            rnd.shuffle(mentions)
            shuffled[key] = AnnotatedDocument(key, tuple(mentions), pred[key].text)
        assert count_spans(gold, shuffled, options).counts == result.counts


@pytest.mark.parametrize("seed", range(4))
def test_files_read_as_arrays_score_as_the_mention_objects_do(tmp_path: Path, seed: int) -> None:
    """The command's path (a folder read into one block of arrays, no mention object) against
    the model objects of the same files, every mode, on random brat folders."""
    from annoscore.formats.brat import read_brat_corpus

    rnd = random.Random(seed)
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa " * 4
    n_docs = rnd.randint(5, 30)
    for side in ("gold", "system"):
        (tmp_path / side).mkdir()
        for d in range(n_docs):
            lines = []
            for k in range(rnd.randint(0, 15)):
                start = rnd.randint(0, len(text) - 15)
                end = start + rnd.randint(1, 14)
                kind = rnd.choice(["Drug", "Dose", "Gene"])
                if seed % 2 and rnd.random() < 0.05:  # odd seeds: some files take the line path
                    lines.append(f"T{k + 1}\t{kind} {start} {end};{end + 1} {end + 3}\tx")
                else:
                    lines.append(f"T{k + 1}\t{kind} {start} {end}\t{text[start:end]}")
            (tmp_path / side / f"d{d}.ann").write_text("".join(f"{x}\n" for x in lines))
            if side == "gold":
                (tmp_path / side / f"d{d}.txt").write_text(text)
    gold = {k: f.document() for k, f in read_brat_corpus(tmp_path / "gold").files.items()}
    system = {k: f.document() for k, f in read_brat_corpus(tmp_path / "system").files.items()}
    for side in ("gold", "system"):
        read = [f.rows is not None for f in read_brat_corpus(tmp_path / side).files.values()]
        assert all(read) if seed % 2 == 0 else any(read)  # the arrays path is taken
    for mode in SpanMode:
        tolerance = 2 if mode == "relaxed" else 0
        options = SpanOptions(mode=mode, tolerance=tolerance)
        by_arrays = score_spans(tmp_path / "gold", tmp_path / "system", options)
        by_objects = count_spans(gold, system, SpanOptions(mode=mode, tolerance=tolerance))
        assert by_arrays.counts == by_objects.counts
        assert by_arrays.matrix.names == by_objects.matrix.names
        assert (by_arrays.matrix.values == by_objects.matrix.values).all()
