from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from annoscore.counts import Counts
from annoscore.metrics.prf import prf_scores
from annoscore.report.generic import MAX_TABLE_WIDTH, render, render_table
from annoscore.result import Result
from annoscore.signature import Signature


def _result(**scores: float | None) -> Result:
    """A result whose scorer gives ``scores`` whatever the counts."""
    return Result.from_counts(
        "t",
        Signature.of("t", mode="x"),
        {"d1": Counts(tp=1, fp=2)},
        lambda counts: dict(scores),
        warnings=["careful"],
    )


def test_json_is_one_object_with_null_for_undefined() -> None:
    data = json.loads(render(_result(precision=0.5, recall=None), "json"))
    assert data == {
        "task": "t",
        "signature": "annoscore:0.1.0|task:t|mode:x",
        "scores": {"precision": 0.5, "recall": None},
        "counts": {"fp": 2, "tp": 1},
        "warnings": ["careful", "undefined (a zero denominator, JSON null): recall"],
    }


def test_json_turns_nan_into_null() -> None:
    assert json.loads(render(_result(f1=float("nan")), "json"))["scores"] == {"f1": None}


def test_csv_leaves_undefined_cells_empty_and_lists_documents() -> None:
    result = Result.from_counts(
        "t", Signature.of("t"), {"d1": Counts(tp=1), "d2": Counts(fp=3, fn=1)}, prf_scores
    )
    assert render(result, "csv").splitlines() == [
        "scope,name,precision,recall,f1,tp,fp,fn",
        "corpus,all,0.25,0.5,0.3333333333333333,1,3,1",
    ]
    lines = render(result.shown(documents=True), "csv").splitlines()
    assert lines[2:] == [
        "document,d1,1.0,1.0,1.0,1,0,0",
        "document,d2,0.0,0.0,0.0,0,3,1",
    ]


def test_markdown_has_the_warnings() -> None:
    text = render(_result(precision=1.0), "markdown")
    assert "| corpus | all | 1.0000 | 1 | 2 |" in text and "- careful" in text


def test_markdown_lists_the_confidence_intervals_under_the_scores() -> None:
    from dataclasses import replace

    result = Result.from_counts(
        "t",
        Signature.of("t", bootstrap=50, confidence=0.9, seed=7),
        {"d1": Counts(tp=1), "d2": Counts(fp=3, fn=1)},
        prf_scores,
    )
    result = replace(result, intervals={"precision": (0.125, 0.5), "recall": None})
    assert render(result, "markdown").splitlines()[5:] == [
        "",
        "90% bootstrap confidence intervals (50 resamples of the documents, seed 7)",
        "",
        "| score | value | low | high |",
        "|---|---:|---:|---:|",
        "| precision | 0.2500 | 0.1250 | 0.5000 |",
        "| recall | 0.5000 | - | - |",
    ]


def test_narrow_table_is_one_block_and_wide_table_splits_by_family() -> None:
    narrow = render_table(_result(precision=1.0, recall=None))
    assert "[other]" not in narrow and "corpus  all      1.0000       -   1   2" in narrow
    wide_scores = {f"{s}_{m}": 0.5 for s in ("alpha", "beta", "gamma") for m in ("p", "r", "f")}
    wide_scores.update({f"extra{i}_x": 0.1 for i in range(4)})
    wide_scores.update({f"long_name_{i}": 0.1 for i in range(6)})
    text = render_table(_result(**wide_scores))
    for family in ("[alpha]", "[beta]", "[gamma]", "[long]", "[other]"):
        assert family in text
    assert all(len(line) <= MAX_TABLE_WIDTH for line in text.splitlines()[2:])


def test_large_json_is_compact_and_small_json_is_indented(monkeypatch: pytest.MonkeyPatch) -> None:
    from annoscore.report import generic

    assert render(_result(precision=1.0), "json").startswith("{\n  ")
    monkeypatch.setattr(generic, "PRETTY_JSON_LIMIT", 10)
    text = render(_result(precision=1.0), "json")
    assert text.count("\n") == 1 and json.loads(text)["scores"] == {"precision": 1.0}


def test_a_warning_never_copies_unbounded_input() -> None:
    from annoscore.score_warnings import EXAMPLE_LENGTH, MESSAGE_LENGTH, ScoreWarning

    huge = "x" * 5_000_000
    text = str(ScoreWarning("t", f"entity text {huge} differs", 1, (huge, huge + "y")))
    # the message, two capped examples and the " (e.g. ", ", " and ")" around them
    assert len(text) == MESSAGE_LENGTH + 2 * EXAMPLE_LENGTH + len(" (e.g. , )")
    assert text.endswith("xxy)")  # an example keeps its end (a location's line number)


_leaf = st.one_of(
    st.floats(),  # NaN, infinities, -0.0
    st.integers(-(10**20), 10**20),
    st.none(),
    st.booleans(),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "nan", "x"]),
    st.text(max_size=5),
)
_json_like = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.sampled_from(["NaN", "a", "Infinity", "é"]), inner, max_size=4),
    ),
    max_leaves=20,
)


@given(_json_like, st.sampled_from([0, 40, 10**6]))
@example(float("inf"), 10**6)
@example({"a": (1.0, float("-inf")), "b": "Infinity"}, 0)
def test_json_text_is_the_walked_data_dumped(data: object, limit: int) -> None:
    """Dumped first without the walk that makes non-finite floats null, the text is the walked
    data's, byte for byte, indented or compact, whatever the strings hold."""
    import json

    from annoscore.report import generic

    walked = generic.json_safe(data)
    compact = json.dumps(walked, ensure_ascii=False)
    plain = compact if len(compact) > limit else json.dumps(walked, indent=2, ensure_ascii=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "PRETTY_JSON_LIMIT", limit)
        assert generic.json_text(data) == plain + "\n"


_names = st.text(
    st.sampled_from(["a", "é", '"', "\\", "\n", "\0", "\u2028", "\U0001f600", "x"]), max_size=4
)


@given(
    st.dictionaries(
        st.one_of(_names, st.just("\0documents\0")), st.integers(0, 5), min_size=1, max_size=12
    ),
    st.sampled_from([0, 10**6]),
    st.booleans(),
    st.sampled_from([1, 3, 10_000]),
)
@example({"\0documents\0": 1, "b": 1}, 0, True, 1)
@example({"a": 3, "b": 3}, 0, False, 1)
@example({"a": 1, "b": 1, "c": 1, "d": 2}, 0, False, 1)
def test_json_of_shared_documents_is_the_plain_dump(
    documents: dict[str, int], limit: int, marker_in_data: bool, block: int
) -> None:
    """The documents' objects written once each (documents of equal counts share one) and put
    into the text of the rest give the plain dump, byte for byte: names with quotes, escapes,
    control and non-BMP characters, the marker itself as a name or in the rest, undefined
    and non-finite scores (3: NaN, 4: infinity), indented or compact."""
    from annoscore.report import generic

    def scorer(counts: Counts) -> dict[str, float | None]:
        tp = counts["tp"]
        return {"x": {3: float("nan"), 4: float("inf"), 0: None}.get(tp, tp / 10)}

    per_document = {name: Counts(tp=tp, fp=1) for name, tp in documents.items()}
    result = Result.from_counts("t", Signature.of("t"), per_document, scorer, warnings=["w"])
    shown = result.shown(documents=True)
    if marker_in_data:  # (a warning's text has its control characters escaped)
        shown = shown.with_extra(note="\0documents\0")
    taken: list[object] = []
    fast = generic._compact_with_shared_documents

    def spy(data: dict[str, object], docs: dict[str, object]) -> object:
        taken.append(fast(data, docs))
        return taken[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "PRETTY_JSON_LIMIT", limit)
        patch.setattr(generic, "_SHARED_DOCUMENTS", 0)
        patch.setattr(generic, "_BLOCK", block)  # (documents written a block at a time)
        patch.setattr(generic, "_compact_with_shared_documents", spy)
        plain = generic.json_text(shown.to_dict())
        assert generic.render_json(shown) == plain
    assert len(taken) == 1
    raw = json.dumps(shown.to_dict())  # (the names have no N or I)
    shared = 2 * len(set(documents.values())) <= len(documents)  # (equal counts, one object)
    clean = shared and not marker_in_data and "NaN" not in raw and "Infinity" not in raw
    assert (taken[0] is not None) == clean  # the shared way unless it must not be
