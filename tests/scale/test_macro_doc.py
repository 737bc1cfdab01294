"""``macro_doc`` made in the reduce from the columns the chunks send
(``annoscore.scale.reduce._macro_doc``), so that the parent does not score every document
again: float for float the mean one run makes (``annoscore.result.macro_average`` of every
document's scores, in document order), and the same notes of the documents each score leaves
out, in their order.  Random adversarial values (magnitudes far apart, so that the order of the
additions shows, ``-0.0``, scores undefined in some or all documents), chunk sizes and
orders of the rows; and end to end, PubTator files cut into many chunks.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import annoscore
import annoscore.scale as scale
from annoscore.result import MACRO_DOC
from annoscore.scale.reduce import MACRO_PART, _macro_doc
from tests.scale.test_lines import MULTIPLIER, _same

CASES = max(50, int(400 * MULTIPLIER))


def _value(rng: random.Random) -> float | None:
    roll = rng.random()
    if roll < 0.2:
        return None
    if roll < 0.25:
        return -0.0
    if roll < 0.3:
        return 0.0
    return rng.choice([1.0, 1e16, 1e-16, 3.0]) * rng.random() * rng.choice([1, 1, -1])


def _reference(scores: list[dict[str, float | None]]) -> tuple[dict[str, Any], dict[str, int]]:
    """From the definitions: each mean the defined values added in document order from 0.0,
    over their number; the undefined counted per score, named in the order first met."""
    totals: dict[str, float] = {}
    defined: dict[str, int] = {}
    left_out: dict[str, int] = {}
    for one in scores:
        for key, value in one.items():
            totals.setdefault(key, 0.0)
            defined.setdefault(key, 0)
            if value is None:
                left_out[key] = left_out.get(key, 0) + 1
            else:
                totals[key] += value
                defined[key] += 1
    means = {k: (totals[k] / defined[k] if defined[k] else None) for k in totals}
    return means, left_out


def _part(keys: tuple[str, ...], rows: list[dict[str, float | None]]) -> SimpleNamespace:
    values = np.array(
        [[0.0 if r[k] is None else r[k] for k in keys] for r in rows], dtype=np.float64
    )
    defined = np.array([[r[k] is not None for k in keys] for r in rows], dtype=bool)
    values = values.reshape(len(rows), len(keys))
    return SimpleNamespace(_cache={MACRO_PART: (keys, values, defined.reshape(values.shape))})


def test_macro_doc_of_columns_is_one_runs_float_for_float() -> None:
    rng = random.Random("macro-doc")
    for _ in range(CASES):
        keys = tuple(rng.sample(["precision", "recall", "f1", "a", "b"], rng.randint(1, 5)))
        n = rng.randint(1, 60)
        rows = [{k: _value(rng) for k in keys} for _ in range(n)]
        if rng.random() < 0.1:
            for row in rows:
                row[keys[0]] = None  # undefined everywhere
        cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(5, n - 1)))) if n > 1 else []
        bounds = [0, *cuts, n]
        parts = [_part(keys, rows[a:b]) for a, b in itertools.pairwise(bounds)]
        order = list(range(n))
        if rng.random() < 0.5:
            rng.shuffle(order)
        got = _macro_doc(parts, order)  # type: ignore[arg-type]
        means, left_out = _reference([rows[i] for i in order])
        assert got is not None
        assert list(got[0]) == list(means)
        assert [repr(v) for v in got[0].values()] == [repr(v) for v in means.values()]
        assert list(got[1].items()) == list(left_out.items())


def test_chunks_whose_columns_differ_leave_macro_doc_to_the_documents() -> None:
    rows: list[dict[str, float | None]] = [{"f1": 1.0}]
    one = _part(("f1",), rows)
    other = _part(("precision",), [{"precision": 1.0}])
    assert _macro_doc([one, other], None) is None  # type: ignore[list-item]
    assert _macro_doc([one, SimpleNamespace(_cache={MACRO_PART: None})], None) is None  # type: ignore[list-item]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def test_pubtator_files_in_many_chunks_give_one_runs_averages(
    tmp_path: Path, exact: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # more chunks than carry their documents' scores whole (CARRY_CHUNKS): columns are sent
    monkeypatch.setattr(scale, "CARRY_CHUNKS", 0)
    rng = random.Random("macro-doc-pubtator")
    for case in range(max(2, int(4 * MULTIPLIER))):
        gold, system = tmp_path / f"g{case}.txt", tmp_path / f"s{case}.txt"
        g_lines, s_lines = [], []
        for d in range(rng.randint(20, 80)):
            text = "aspirina dosis de mg el gen BRCA1 oral cada horas"
            g_lines += [f"{d}|t|{text}", f"{d}|a|"]
            s_lines += [f"{d}|t|{text}", f"{d}|a|"]
            for _ in range(rng.randint(0, 4)):  # some documents without spans: undefined
                start = rng.randrange(0, 40)
                end = start + rng.randint(1, 8)
                kind = rng.choice(["Drug", "Gene"])
                g_lines.append(f"{d}\t{start}\t{end}\t{text[start:end]}\t{kind}")
                if rng.random() < 0.7:
                    s_lines.append(f"{d}\t{start}\t{end}\t{text[start:end]}\t{kind}")
            if rng.random() < 0.3:
                s_lines.append(f"{d}\t0\t8\t{text[0:8]}\tDrug")
            g_lines.append("")
            s_lines.append("")
        gold.write_text("\n".join(g_lines) + "\n", encoding="utf-8")
        system.write_text("\n".join(s_lines) + "\n", encoding="utf-8")
        options = {"gold_format": "pubtator", "system_format": "pubtator"}
        exact.clear()
        one = _same("spans", gold, system, 300, **options)
        assert '"macro_doc"' in one and any(exact), (case, exact)
        cut = annoscore.score("spans", gold, system, jobs=2, **options)
        assert MACRO_DOC in cut._cache
        # the parent did not score every document again (it would cache them)
        assert not {"every unit", "shared units", "documents"} & set(cut._cache), case


def test_documents_carried_in_the_order_of_the_index() -> None:
    """The documents' scores the chunks computed are carried into the stacked result in the
    order of the rows' permutation (a NumPy index, ``combine_lines``), or not at all when the
    names do not follow it."""
    from annoscore.scale.reduce import _carry_documents

    def part(*names: str) -> Any:
        matrix = SimpleNamespace(documents=names, names=("tp",), integer=(True,))
        return SimpleNamespace(matrix=matrix, _cache={"documents": {n: n.upper() for n in names}})

    parts = [part("c", "a"), part("b")]
    for order, names, carried in (
        ([1, 2, 0], ("a", "b", "c"), {"a": "A", "b": "B", "c": "C"}),
        ([0, 1, 2], ("c", "a", "b"), {"c": "C", "a": "A", "b": "B"}),
        ([1, 0, 2], ("a", "b", "c"), None),
    ):
        whole = SimpleNamespace(matrix=part(*names).matrix, _cache={})
        _carry_documents(whole, parts, np.asarray(order, dtype=np.int64))  # type: ignore[arg-type]
        got = whole._cache.get("documents")
        assert got == carried and (got is None or list(got) == list(names))


def test_macro_doc_of_columns_only_when_the_chunks_rows_and_columns_are_the_wholes() -> None:
    """The chunks' columns give ``macro_doc`` only when their rows are the whole's, and each
    chunk's columns but the per-type ones are the whole's (a chunk without a column scored its
    documents without it; the whole reads 0 there): otherwise it is left to the documents."""
    from annoscore.scale.reduce import _carry_documents

    def part(names: tuple[str, ...], documents: tuple[str, ...]) -> Any:
        matrix = SimpleNamespace(documents=documents, names=names, integer=(True,) * len(names))
        return SimpleNamespace(
            matrix=matrix, _cache=_part(("f1",), [{"f1": 1.0} for _ in documents])._cache
        )

    columns = ("tp", "fp", "type:A:tp")
    for whole_names, documents, made in (
        (columns, ("a", "b"), True),
        (("tp", "fp", "type:A:tp", "type:B:tp"), ("a", "b"), True),  # a per-type column more
        (("tp", "fp", "fn", "type:A:tp"), ("a", "b"), False),  # a column the chunks lack
        (columns, ("a", "b", "c"), False),  # a row more than the chunks'
    ):
        matrix = SimpleNamespace(
            documents=documents, names=whole_names, integer=(True,) * len(whole_names)
        )
        whole = SimpleNamespace(matrix=matrix, _cache={})
        parts = [part(columns, ("a",)), part(columns, ("b",))]
        _carry_documents(whole, parts, None)  # type: ignore[arg-type]
        assert (MACRO_DOC in whole._cache) == made, (whole_names, documents)


def test_chunks_of_which_some_carry_their_documents_carry_nothing() -> None:
    """When some chunks sent their documents' scores and others their columns, the whole gets
    neither (its documents and ``macro_doc`` are made again when asked)."""
    from annoscore.scale.reduce import _carry_documents

    def matrix(*documents: str) -> Any:
        return SimpleNamespace(documents=documents, names=("tp",), integer=(True,))

    whole = SimpleNamespace(matrix=matrix("a", "b"), _cache={})
    carried = SimpleNamespace(matrix=matrix("a"), _cache={"documents": {"a": "A"}})
    columns = SimpleNamespace(matrix=matrix("b"), _cache=_part(("f1",), [{"f1": 1.0}])._cache)
    for parts in ([carried, columns], [columns, carried]):
        _carry_documents(whole, parts, None)  # type: ignore[arg-type]
        assert whole._cache == {}


def test_documents_not_carried_when_a_column_is_integer_in_a_chunk_only() -> None:
    """A column integer in one chunk and not in another is not integer in the whole: a
    document's counts there print as floats, not as the chunk's integers, so the chunks'
    documents are not carried."""
    from annoscore.scale.reduce import _carry_documents

    def matrix(integer: bool, *documents: str) -> Any:
        return SimpleNamespace(documents=documents, names=("tp",), integer=(integer,))

    for a, b in ((True, False), (False, True), (True, True)):
        whole = SimpleNamespace(matrix=matrix(a and b, "a", "b"), _cache={})
        parts = [
            SimpleNamespace(matrix=matrix(a, "a"), _cache={"documents": {"a": "A"}}),
            SimpleNamespace(matrix=matrix(b, "b"), _cache={"documents": {"b": "B"}}),
        ]
        _carry_documents(whole, parts, None)  # type: ignore[arg-type]
        assert ("documents" in whole._cache) == (a and b)
