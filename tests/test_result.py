"""The one result shape: counts are the column sums of the per-document matrix, scores the
scorer of the counts, per-document and per-type views derived from the same rows."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from annoscore.counts import Counts
from annoscore.metrics.prf import prf_scores
from annoscore.result import CountMatrix, Names, Result, ScoredUnit, View, macro_average_left_out
from annoscore.signature import Signature

stat = st.sampled_from(["tp", "fp", "fn", "type:A:tp", "type:A:fn", "type:B:fp"])
document = st.dictionaries(stat, st.integers(0, 10**6), max_size=6).map(Counts)
corpus = st.dictionaries(st.text("abc", min_size=1, max_size=4), document, max_size=8)


@given(corpus)
def test_counts_are_column_sums_and_scores_the_scorer_of_them(docs: dict[str, Counts]) -> None:
    result = Result.from_counts("t", Signature.of("t"), docs, prf_scores)
    plain = {k: v for k, v in Counts.total(docs.values()).items() if not k.startswith("type:")}
    assert result.counts == plain
    assert result.scores == prf_scores(result.counts)
    assert list(result.documents) == list(docs)
    assert Counts.total(u.counts for u in result.documents.values()) == result.counts
    for name, unit in result.types.items():
        assert unit.counts == Counts.total(docs.values()).select(f"type:{name}:")
    assert all(isinstance(v, int) for v in result.counts.values())


number = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False), st.booleans())
mixed_corpus = st.one_of(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=4),
        st.dictionaries(stat, number, max_size=6).map(Counts),
        max_size=8,
    ),
    # one layout for every document (the matrix's fast path), ints and floats mixed by column
    st.tuples(st.lists(stat, unique=True, max_size=6), st.integers(0, 8)).flatmap(
        lambda shape: st.lists(
            st.tuples(*(number for _ in shape[0])), min_size=shape[1], max_size=shape[1]
        ).map(
            lambda rows: {
                f"d{i}": Counts(dict(zip(shape[0], r, strict=True))) for i, r in enumerate(rows)
            }
        )
    ),
)


@given(mixed_corpus)
def test_the_matrix_of_counts_is_the_plain_table(docs: dict[str, Counts]) -> None:
    """Columns in first-seen order, 0 where a document lacks one, integer when every value is
    an int: the same as filling the table value by value."""
    names = list(dict.fromkeys(k for c in docs.values() for k in c))
    matrix = CountMatrix.of(docs)
    assert matrix.names == tuple(names)
    assert matrix.values.tolist() == [[float(c[n]) for n in names] for c in docs.values()]
    whole = [all(isinstance(c._data.get(n, 0), int) for c in docs.values()) for n in names]
    assert list(matrix.integer) == whole
    rows = [matrix.row(d) for d in range(len(docs))]
    assert matrix.rows() == rows
    assert [list(r.items()) for r in matrix.rows()] == [list(r.items()) for r in rows]
    plain = [{k: v for k, v in r.items() if not k.startswith("type:")} for r in rows]
    assert [dict(r.items()) for r in matrix.rows(types=False)] == plain


shared_rows = st.lists(  # few distinct rows, repeated; 0.0 beside -0.0, ints beside floats
    st.sampled_from([Counts(tp=1, fn=0), Counts(tp=1, fn=0.0), Counts(tp=1, fn=-0.0), Counts(tp=2),
                     Counts(fp=1, **{"type:A:fp": 1}), Counts(fp=1, **{"type:A:fp": 2}), Counts()]),
    max_size=12,
)  # fmt: skip


def _rendered(scores: dict[str, object]) -> dict[str, str]:
    return {k: repr(v) for k, v in scores.items()}  # -0.0 and 0.0 apart, 1 and 1.0 apart


@given(st.one_of(mixed_corpus, shared_rows.map(lambda r: {f"d{i}": c for i, c in enumerate(r)})),
       st.lists(st.text("abcd0123", max_size=4), max_size=10), st.booleans(),
       st.sampled_from(["mixed", "in order", "reversed", "one name"]), st.booleans(),
       st.booleans())  # fmt: skip
@example({"a": Counts(tp=1, fn=0.0), "b": Counts(tp=1, fn=-0.0), "c": Counts(tp=1, fn=0.0)},
         ["b", "x"], False, "mixed", False, False)  # fmt: skip
@example({"a": Counts(tp=1, fn=2), "b": Counts(tp=2, fn=2), "c": Counts(tp=1, fn=2)},
         [], False, "in order", True, True)  # fmt: skip
@example({"a": Counts(tp=1), "b": Counts(tp=2)}, [], False, "one name", False, True)
def test_units_of_scores_each_document_as_documents_does(
    docs: dict[str, Counts],
    asked: list[str],
    made_first: bool,
    order: str,
    collide: bool,
    as_names: bool,
) -> None:
    """Documents of equal counts share one scoring: each name reads what :attr:`documents`
    gives it, value for value and type for type (None for a name the matrix lacks), whether
    the documents were made before or not, whether the names are the matrix's documents in
    order (no search by name) or not, and whether rows that differ share a hash (``collide``:
    every row hashed by its last column alone) or not, the matrix's documents a tuple or
    :class:`Names` (one string, as a cut run's chunks send them: ``one name``, the names
    joined, is not them)."""
    import annoscore.result as result_module

    def scorer(c: Counts) -> dict[str, object]:
        return {**prf_scores(c), "fn": c.get("fn", 0), "keys": tuple(c)}

    result = Result.from_counts("t", Signature.of("t"), docs, scorer)
    if as_names:
        matrix = dataclasses.replace(result.matrix, documents=Names.of(result.matrix.documents))
        result = dataclasses.replace(result, matrix=matrix, _cache={})
    plain = Result.from_counts("t", Signature.of("t"), docs, scorer).documents
    if made_first:
        assert result.documents == plain
    names = {
        "mixed": [*asked, *docs, *reversed(list(docs))],
        "in order": [f"{name}" for name in docs],
        "reversed": list(reversed(list(docs))),
        "one name": ["\n".join(docs)] if len(docs) > 1 else [],
    }[order]
    kept = result_module._ROW_HASH
    result_module._ROW_HASH = 0 if collide else kept
    try:
        units, at = result.units_of(names)
    finally:
        result_module._ROW_HASH = kept
    _check_units(plain, names, units, at)
    units.insert(0, None)  # the caller's list: the units made once are not changed
    for other in (names, list(reversed(names))):  # the same units, made once, for any names
        _check_units(plain, other, *result.units_of(other))


def _check_units(
    plain: dict[str, ScoredUnit], names: list[str], units: list[ScoredUnit | None], at: list[int]
) -> None:
    assert len(at) == len(names) and units[-1] is None
    for name, k in zip(names, at, strict=True):
        unit = units[k]
        if name not in plain:
            assert unit is None
            continue
        assert unit is not None
        assert _rendered(unit.scores) == _rendered(plain[name].scores)
        assert list(unit.counts.items()) == list(plain[name].counts.items())
        assert [type(v) for v in unit.counts.values()] == [
            type(v) for v in plain[name].counts.values()
        ]


@given(st.one_of(mixed_corpus, shared_rows.map(lambda r: {f"d{i}": c for i, c in enumerate(r)})))
@example({"a": Counts(tp=1, fn=0.0), "b": Counts(tp=1, fn=-0.0), "c": Counts(tp=1, fn=0.0)})
def test_the_json_documents_and_macro_doc_are_the_plain_loops(docs: dict[str, Counts]) -> None:
    """The JSON's documents (one object shared by the documents of equal counts) and
    ``macro_doc`` (each document's scores in document order) are, as JSON text, what one unit
    per document gives."""
    import json

    def scorer(c: Counts) -> dict[str, object]:
        return {**prf_scores(c), "fn": c.get("fn", 0)}

    shown = Result.from_counts("t", Signature.of("t"), docs, scorer).shown(
        documents=True, averages=True
    )
    plain = Result.from_counts("t", Signature.of("t"), docs, scorer).documents
    got = shown.to_dict()
    assert json.dumps(got["documents"]) == json.dumps(
        {doc: unit.to_json_dict() for doc, unit in plain.items()}
    )
    expected = macro_average_left_out(unit.scores for unit in plain.values())[0]
    assert json.dumps(got["averages"]["macro_doc"]) == json.dumps(expected)


@given(corpus)
def test_the_matrix_round_trips_and_selects_rows(docs: dict[str, Counts]) -> None:
    matrix = CountMatrix.of(docs)
    assert [matrix.row(d) for d in range(len(docs))] == list(docs.values())
    ids = list(reversed(matrix.documents))
    assert matrix.aligned(ids).documents == tuple(ids)
    assert matrix.aligned([*ids, "missing"]).row(len(ids)) == Counts()


def test_result_is_frozen_and_views_only_change_rendering() -> None:
    result = Result.from_counts("t", Signature.of("t"), {"a": Counts(tp=1)}, prf_scores)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.scores = {}  # type: ignore[misc]
    shown = result.shown(documents=True, types=True)
    assert shown.view == View(documents=True, types=True) and shown.scores == result.scores


@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=300))
def test_fractions_add_left_to_right_as_the_official_scorers_add(values: list[float]) -> None:
    """The corpus sum of a float column is the running sum, document by document (numpy's
    pairwise ``sum`` would differ in the last bits on a single column)."""
    docs = {f"d{i}": Counts(ap_sum=v) for i, v in enumerate(values)}
    expected = 0.0
    for v in values:
        expected += v
    assert CountMatrix.of(docs).total()["ap_sum"] == expected


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_equal_rows_groups_the_rows_equal_bit_for_bit_in_the_columns_asked(
    seed: int, collide: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:func:`~annoscore.result._equal_rows` of every column or of some (in any order; the
    others, per-type columns, not read), of rows of a few values (0.0 and -0.0 differ, two
    NaNs of other bits differ): each row's kind is that of the rows whose asked columns have
    the same bits, and ``first`` a row of each kind, found by their hashes alone; also when
    rows that differ share a hash (``collide``: the last column asked alone is hashed)."""
    import numpy as np

    import annoscore.result as result_module

    if collide:
        monkeypatch.setattr(result_module, "_ROW_HASH", 0)
    else:  # distinct rows hashed apart: never made unique as bytes (1.7 s for 10^6 rows)
        monkeypatch.setattr(np, "unique", None)
    rng = np.random.default_rng(seed)
    nans = np.array([0x7FF8000000000000, 0x7FF8000000000001], np.uint64).view(np.float64)
    pool = np.array([0.0, -0.0, 1.0, 2.5, 1e300, *nans])
    values = pool[rng.integers(0, len(pool), (300, 5))]
    values[:, 4] = 1.0  # rows that differ in the other columns, alike in the last one
    counts = rng.integers(0, 8, (300, 5)).astype(float)  # each value's bits in its high half
    values[::2] = counts[::2]
    for columns in ([0, 1, 2, 3, 4], [4, 0, 2], [1], [3, 4], []):
        first, inverse = result_module._equal_rows(values, columns)
        bits = values.view(np.uint64)[:, columns]
        kinds = {row.tobytes(): n for n, row in enumerate(bits[first])}
        assert len(kinds) == len(first)  # one row of each kind
        assert [kinds[row.tobytes()] for row in bits] == inverse.tolist()
