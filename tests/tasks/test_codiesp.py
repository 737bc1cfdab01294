"""CodiEsp D/P and X: official numbers, the spec's verified edge cases, each quirk, properties."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annoscore.align.documents import MissingDocs
from annoscore.code_lists import CodeReference
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.result import Result
from annoscore.tasks.codiesp import (
    ExplainableOptions,
    RankedOptions,
    TieOrder,
    ToleranceMode,
    count_codiesp_d,
    count_codiesp_p,
    count_codiesp_x,
    score_codiesp_d,
    score_codiesp_p,
    score_codiesp_x,
)
from tests.conftest import shared_data
from tests.helpers import texts


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def abc(tmp_path: Path) -> tuple[Path, Path]:
    """Gold {D1: a, b; D2: c} and valid codes a, b, c, d (the spec's edge cases)."""
    gold = write(tmp_path, "gold.tsv", ["D1\ta", "D1\tb", "D2\tc"])
    codes = write(tmp_path, "codes.tsv", ["a", "b", "c", "d"])
    return gold, codes


def ranked(tmp_path: Path, abc: tuple[Path, Path], pred: list[str], **options: object):  # type: ignore[no-untyped-def]
    gold, codes = abc
    path = write(tmp_path, "pred.tsv", pred)
    return score_codiesp_d(gold, path, RankedOptions(codes=codes, **options))  # type: ignore[arg-type]


# --- conformance -----------------------------------------------------------------------------


def test_toy_d_official_numbers() -> None:
    toy = shared_data("codiesp", "toy")
    codes = shared_data("codiesp", "codes-D.tsv")
    result = score_codiesp_d(toy / "gs_D.tsv", toy / "pred_D.tsv", RankedOptions(codes=codes))
    assert round(result.scores["map"] or 0, 3) == 0.444
    assert result.scores["map"] == pytest.approx((5 / 9 + 1 / 3) / 2)
    assert [round(result.scores[k] or 0, 3) for k in ("precision", "recall", "f1")] == [
        0.444,
        0.4,
        0.421,
    ]
    docs = result.documents
    assert docs is not None
    assert docs["S0004-06142006000900013-1"].scores["map"] == pytest.approx(5 / 9)
    assert docs["S1130-05582003000600004-2"].scores["map"] == pytest.approx(1 / 3)
    assert docs["S0210-48062005000700013-1"].scores["map"] is None  # left out of MAP
    s0004 = docs["S0004-06142006000900013-1"].scores
    assert [round(s0004[k] or 0, 3) for k in ("precision", "recall", "f1")] == [0.4, 0.667, 0.5]
    assert any("left out of MAP" in w for w in texts(result))


def test_toy_x_official_numbers() -> None:
    toy = shared_data("codiesp", "toy")
    d, p = shared_data("codiesp", "codes-D.tsv"), shared_data("codiesp", "codes-P.tsv")
    result = score_codiesp_x(
        toy / "gs_X.tsv", toy / "pred_X.tsv", ExplainableOptions(codes_d=d, codes_p=p)
    )
    assert result.counts["tp"] == 7
    assert [result.scores[k] for k in ("precision", "recall", "f1")] == pytest.approx([7 / 13] * 3)
    doc = result.documents["S1889-836X2016000100006-1"].scores
    assert doc["precision"] == pytest.approx(7 / 11) and doc["recall"] == pytest.approx(7 / 11)


def test_lowercase_quirk_reproduces_the_2020_readme() -> None:
    toy = shared_data("codiesp", "toy")
    d, p = shared_data("codiesp", "codes-D.tsv"), shared_data("codiesp", "codes-P.tsv")
    options = ExplainableOptions(codes_d=d, codes_p=p, lowercase=False)
    result = score_codiesp_x(toy / "gs_X.tsv", toy / "pred_X.tsv", options)
    assert [round(result.scores[k] or 0, 3) for k in ("precision", "recall", "f1")] == [
        0.636,
        0.538,
        0.583,
    ]


def test_sample_gold_against_itself_scores_one(tmp_path: Path) -> None:
    sample = shared_data("codiesp", "sample")
    gold = sample / "sample_annotations_D.tsv"
    codes = write_codes_from(gold, tmp_path)
    result = score_codiesp_d(gold, gold, RankedOptions(codes=codes))
    assert result.scores == {"map": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}


def write_codes_from(gold: Path, folder: Path) -> Path:
    codes = {line.split("\t")[1].strip().lower() for line in gold.read_text().splitlines()}
    path = folder / "codes.tsv"
    path.write_text("\n".join(sorted(codes)) + "\n")
    return path


# --- the spec's verified edge cases ----------------------------------------------------------


def test_edge_case_map_0_292(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    result = ranked(tmp_path, abc, ["D1\td", "D3\ta", "D1\tA", "D1\tb", "D1\ta"])
    assert round(result.scores["map"], 3) == 0.292
    assert result.documents["D1"].scores["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert result.documents["D3"].scores["map"] == 0.0
    assert result.counts["queries"] == 2


def test_edge_case_map_0_583(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    result = ranked(tmp_path, abc, ["D1\td", "D1\tA", "D1\tb"])
    assert round(result.scores["map"], 3) == 0.583


def test_every_prediction_invalid_gives_null_not_a_crash(
    tmp_path: Path, abc: tuple[Path, Path]
) -> None:
    result = ranked(tmp_path, abc, ["D1\tzz", "D2\tyy"])
    assert result.scores["map"] is None and result.scores["precision"] is None
    # the official F1 script prints nan|0.0|nan; the rule: precision undefined, recall and F1 0
    # (gold codes and nothing found)
    assert result.scores["recall"] == 0.0 and result.scores["f1"] == 0.0
    [undefined] = [w for w in result.warnings if w.code == "undefined"]
    assert "map, precision" in str(undefined)
    assert any("2 predicted codes are not in the valid-code list" in w for w in texts(result))


def test_x_edge_case(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", ["D1\tDIAGNOSTICO\ta\tx\t10 20", "D2\tDIAGNOSTICO\tb\ty\t5 9"])
    pred = write(
        tmp_path,
        "p.tsv",
        ["D1\t11 20\tDIAGNOSTICO\ta", "D2\t0 19\tDIAGNOSTICO\tb", "D2\t0 19\tDIAGNOSTICO\tc"],
    )
    codes = write(tmp_path, "c.tsv", ["a", "b", "c"])
    result = score_codiesp_x(gold, pred, ExplainableOptions(codes_d=codes, codes_p=codes))
    assert [round(result.scores[k] or 0, 3) for k in ("precision", "recall", "f1")] == [
        0.333,
        0.5,
        0.4,
    ]
    docs = result.documents
    assert docs is not None
    # the official prints nan for D1 (a bug); the right values are 0
    assert docs["D1"].scores == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    d2 = docs["D2"].scores
    assert [round(d2[k] or 0, 3) for k in ("precision", "recall", "f1")] == [0.5, 1.0, 0.667]
    assert any("symmetric would give F1" in w for w in texts(result))


# --- quirks, each a named option -------------------------------------------------------------


def test_missing_docs_zero(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    official = ranked(tmp_path, abc, ["D1\td", "D1\tA", "D1\tb"])
    zero = ranked(tmp_path, abc, ["D1\td", "D1\tA", "D1\tb"], missing_docs=MissingDocs.zero)
    assert zero.scores["map"] == pytest.approx(official.scores["map"] / 2)
    assert any(f"{zero.scores['map']:.4f}" in w for w in texts(official))


def test_extra_docs_ignore(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    pred = ["D1\td", "D3\ta", "D1\tA", "D1\tb", "D1\ta"]
    official = ranked(tmp_path, abc, pred)
    ignore = ranked(tmp_path, abc, pred, extra_docs=MissingDocs.ignore)
    assert ignore.scores["map"] == pytest.approx(0.5833333333)
    assert ignore.scores["precision"] == official.scores["precision"]  # still false positives
    assert any(f"{ignore.scores['map']:.4f}" in w for w in texts(official))


def test_filter_gold(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    gold, codes = abc
    gold = write(tmp_path, "gold2.tsv", ["D1\ta", "D1\tb", "D1\tq99", "D2\tc"])
    pred = write(tmp_path, "pred.tsv", ["D1\ta", "D2\tc"])
    official = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    filtered = score_codiesp_d(gold, pred, RankedOptions(codes=codes, filter_gold=True))
    assert official.scores["map"] == pytest.approx((1 / 3 + 1) / 2)
    assert filtered.scores["map"] == pytest.approx((1 / 2 + 1) / 2)
    assert official.counts["fn"] == 2 and filtered.counts["fn"] == 1
    assert any(f"{filtered.scores['map']:.4f}" in w for w in texts(official))


def test_depth_cutoff_1000(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    gold, _ = abc
    many = [f"x{i}" for i in range(1000)]
    codes = write(tmp_path, "codes2.tsv", ["a", "b", "c", *many])
    pred = write(tmp_path, "pred.tsv", [f"D1\t{c}" for c in [*many, "a"]])
    official = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    assert official.scores["map"] == 0.0  # 'a' is at rank 1001
    assert official.scores["recall"] == pytest.approx(1 / 3)  # the F1 script has no cut-off
    everything = score_codiesp_d(gold, pred, RankedOptions(codes=codes, depth=None))
    assert everything.scores["map"] == pytest.approx(1 / 1001 / 2)
    assert any("more than 1000 valid predictions" in w for w in texts(official))


def test_duplicates_keep_the_first_and_leave_no_gap(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    result = ranked(tmp_path, abc, ["D1\ta", "D1\tA", "D1\tzz", "D1\tb"])
    assert result.scores["map"] == 1.0
    assert any("1 duplicate predictions" in w for w in texts(result))


def test_interleaved_documents_keep_file_order(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    result = ranked(tmp_path, abc, ["D1\td", "D2\tc", "D1\tb", "D2\td", "D1\ta"])
    assert result.documents["D1"].scores["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert result.documents["D2"].scores["map"] == 1.0


def test_tolerance_modes_and_check_label(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", ["D1\tDIAGNOSTICO\ta\tx\t10 20"])
    codes = write(tmp_path, "c.tsv", ["a"])

    def f1(pred_line: str, **options: object) -> float | None:
        pred = write(tmp_path, "p.tsv", [pred_line])
        opts = ExplainableOptions(codes_d=codes, codes_p=codes, **options)  # type: ignore[arg-type]
        return score_codiesp_x(gold, pred, opts).scores["f1"]

    assert f1("D1\t0 30\tDIAGNOSTICO\ta") == 1.0  # overhang 10 on both sides
    assert f1("D1\t0 31\tDIAGNOSTICO\ta") == 0.0
    assert f1("D1\t11 20\tDIAGNOSTICO\ta") == 0.0  # one-sided: starts late
    assert f1("D1\t11 20\tDIAGNOSTICO\ta", tolerance_mode=ToleranceMode.symmetric) == 1.0
    assert f1("D1\t9 20\tDIAGNOSTICO\ta", tolerance=0) == 0.0
    assert f1("D1\t10 20\tPROCEDIMIENTO\ta") == 1.0  # label ignored
    assert f1("D1\t10 20\tPROCEDIMIENTO\ta", check_label=True) == 0.0


def test_one_reference_is_enough(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", ["D1\tL\ta\tx\t10 20", "D1\tL\ta\ty\t100 120"])
    pred = write(tmp_path, "p.tsv", ["D1\t100 120\tL\ta", "D1\t500 501\tL\ta"])
    codes = write(tmp_path, "c.tsv", ["a"])
    result = score_codiesp_x(gold, pred, ExplainableOptions(codes_d=codes, codes_p=codes))
    assert result.counts == Counts(tp=1, fp=0, fn=0)


# --- properties ------------------------------------------------------------------------------

documents = st.dictionaries(
    st.sampled_from([f"S{i:03d}" for i in range(8)]),
    st.tuples(
        st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=5, unique=True),
        st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=8),
    ),
    min_size=1,
    max_size=6,
)


def on_random_documents(test: Callable[..., None]) -> Callable[..., None]:
    """Run the property test ``test(tmp_path, docs, rnd)`` on 40 examples of ``documents`` and a
    seeded ``random.Random``; the examples share ``tmp_path`` (each writes its files anew)."""
    examples = settings(
        max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    return examples(given(documents, st.randoms(use_true_random=False))(test))


@on_random_documents
def test_ranked_properties(
    tmp_path: Path, docs: dict[str, tuple[list[str], list[str]]], rnd: random.Random
) -> None:
    codes = write(tmp_path, "codes.tsv", list("abcdefgh"))
    gold_lines = [f"{d}\t{c}" for d, (g, _) in docs.items() for c in g]
    gold = write(tmp_path, "gold.tsv", gold_lines)
    perfect = score_codiesp_d(gold, gold, RankedOptions(codes=codes))
    assert perfect.scores == {"map": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}

    blocks = [[f"{d}\t{c}" for c in p] for d, (_, p) in docs.items()]
    pred = write(tmp_path, "pred.tsv", [line for block in blocks for line in block])
    result = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    for value in result.scores.values():
        assert value is None or 0.0 <= value <= 1.0
    total = Counts.total(unit.counts for unit in result.documents.values())
    assert set(total) == set(result.counts)
    assert all(total[k] == pytest.approx(result.counts[k]) for k in result.counts)
    rnd.shuffle(blocks)
    shuffled_gold = gold_lines[:]
    rnd.shuffle(shuffled_gold)
    gold2 = write(tmp_path, "gold2.tsv", shuffled_gold)
    pred2 = write(tmp_path, "pred2.tsv", [line for block in blocks for line in block])
    again = score_codiesp_d(gold2, pred2, RankedOptions(codes=codes))
    assert again.scores == pytest.approx(result.scores)


@on_random_documents
def test_explainable_properties(
    tmp_path: Path, docs: dict[str, tuple[list[str], list[str]]], rnd: random.Random
) -> None:
    codes = write(tmp_path, "codes.tsv", list("abcdefghij"))
    gold_lines = [
        f"{d}\tL\t{c}\tt\t{10 * i} {10 * i + 5}"
        for d, (g, _) in docs.items()
        for i, c in enumerate(g)
    ]
    gold = write(tmp_path, "gold.tsv", gold_lines)
    perfect_lines = [
        f"{d}\t{10 * i} {10 * i + 5}\tL\t{c}" for d, (g, _) in docs.items() for i, c in enumerate(g)
    ]
    perfect = score_codiesp_x(
        gold,
        write(tmp_path, "p.tsv", perfect_lines),
        ExplainableOptions(codes_d=codes, codes_p=codes),
    )
    assert perfect.scores == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    pred_lines = [
        f"{d}\t{3 * i} {3 * i + 12}\tL\t{c}" for d, (_, p) in docs.items() for i, c in enumerate(p)
    ]
    result = score_codiesp_x(
        gold, write(tmp_path, "q.tsv", pred_lines), ExplainableOptions(codes_d=codes, codes_p=codes)
    )
    for value in result.scores.values():
        assert value is None or 0.0 <= value <= 1.0
    assert Counts.total(u.counts for u in result.documents.values()) == result.counts
    rnd.shuffle(pred_lines)
    rnd.shuffle(gold_lines)
    again = score_codiesp_x(
        write(tmp_path, "g2.tsv", gold_lines),
        write(tmp_path, "q2.tsv", pred_lines),
        ExplainableOptions(codes_d=codes, codes_p=codes),
    )
    assert again.scores == result.scores


# --- issue 13 and 15: edge behaviours of the official scripts --------------------------------


def test_byte_order_mark_and_quotes_do_not_rename(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    gold, codes = abc
    pred = tmp_path / "pred.tsv"
    pred.write_text('\ufeff"D1"\t"a"\nD1\tb\n', encoding="utf-8")
    result = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    assert result.documents["D1"].scores["map"] == 1.0
    assert {w.code for w in result.warnings} >= {"formats.bom", "codiesp.quotes"}


def test_numeric_ids_each_script_its_own_number(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", ["0001\ta", "0001\tb"])
    pred = write(tmp_path, "p.tsv", ["1\ta", "1\tb"])
    codes = write(tmp_path, "c.tsv", ["a", "b"])
    result = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    # MAP script: 0001 and 1 are the number 1, one document, AP 1
    assert result.scores["map"] == 1.0
    # F1 script: '0001' and '1' are different documents, nothing found
    assert result.counts["tp"] == 0 and result.scores["recall"] == 0.0
    [warning] = [w for w in result.warnings if w.code == "codiesp.numeric-ids"]
    assert warning.tolerated and "MAP with the ids as text would be 0.0000" in warning.message
    # the same ids on both sides: no disagreement
    same = score_codiesp_d(gold, gold, RankedOptions(codes=codes))
    assert not [w for w in same.warnings if w.code == "codiesp.numeric-ids"]


def test_empty_prediction_file(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    gold, codes = abc
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    result = score_codiesp_d(gold, empty, RankedOptions(codes=codes))
    assert result.scores["map"] is None and result.scores["precision"] is None
    assert result.scores["recall"] == 0.0 and result.scores["f1"] == 0.0  # official nan|0.0|nan
    assert {"codiesp.empty-predictions", "undefined"} <= {w.code for w in result.warnings}


def test_tie_order_trectools_0_0_42_and_0_0_50(tmp_path: Path) -> None:
    # observed: trectools 0.0.42 keeps file order (c, a, b: AP 1/2), 0.0.50 sorts by code
    # (a, b, c: AP 1)
    gold = write(tmp_path, "g.tsv", ["D1\ta"])
    pred = write(tmp_path, "p.tsv", ["D1\tc", "D1\ta", "D1\tb"])
    codes = write(tmp_path, "c.tsv", ["a", "b", "c"])
    assert score_codiesp_d(gold, pred, RankedOptions(codes=codes)).scores["map"] == 0.5
    by_code = score_codiesp_d(gold, pred, RankedOptions(codes=codes, tie_order=TieOrder.code))
    assert by_code.scores["map"] == 1.0 and "tie-order:code" in str(by_code.signature)


def test_duplicates_are_counted_with_lines(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    _, codes = abc
    gold = write(tmp_path, "g2.tsv", ["D1\ta", "D1\tb", "D1\ta"])
    pred = write(tmp_path, "p2.tsv", ["D1\ta", "D1\ta", "D1\tb"])
    result = score_codiesp_d(gold, pred, RankedOptions(codes=codes))
    by_code = {w.code: w for w in result.warnings}
    assert by_code["codiesp.duplicate-gold"].examples == (f"{gold}:3",)
    assert by_code["codiesp.duplicate-predictions"].examples == (f"{pred}:2",)
    assert by_code["codiesp.duplicate-predictions"].tolerated


def test_x_collapsed_pairs_are_counted(tmp_path: Path) -> None:
    gold = write(tmp_path, "g.tsv", ["D1\tL\ta\tx\t10 20", "D1\tL\ta\ty\t30 40"])
    pred = write(tmp_path, "p.tsv", ["D1\t10 20\tL\ta", "D1\t30 40\tL\ta"])
    codes = write(tmp_path, "c.tsv", ["a"])
    result = score_codiesp_x(gold, pred, ExplainableOptions(codes_d=codes, codes_p=codes))
    assert result.counts == Counts(tp=1, fp=0, fn=0)
    codes_seen = {w.code: w for w in result.warnings}
    assert codes_seen["codiesp.collapsed-references"].examples == (f"{gold}:2",)
    assert codes_seen["codiesp.collapsed-predictions"].examples == (f"{pred}:2",)


def test_huge_depth_is_no_overflow(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    result = ranked(tmp_path, abc, ["D1\ta"], depth=10**30)
    assert result.scores["map"] == 0.5


# --- options, declared once ------------------------------------------------------------------


def test_depth_0_is_no_cut_with_one_signature() -> None:
    assert RankedOptions(depth=0) == RankedOptions(depth=None)
    assert "|depth:none|" in str(RankedOptions(depth=0).signature("codiesp-d"))


def test_missing_docs_offers_ignore_and_zero_only() -> None:
    """``MissingDocs`` is declared once (``align.documents``); CodiEsp offers two of its three
    members, so ``count`` is refused however it is given."""
    chosen = RankedOptions.from_values({"codes": "c.tsv", "missing_docs": "ZERO"})
    assert chosen.missing_docs is MissingDocs.zero
    for value in ("count", MissingDocs.count):
        with pytest.raises(InputError, match="missing_docs: 'count' is not one of ignore, zero"):
            RankedOptions(missing_docs=value)  # type: ignore[arg-type]


def test_the_code_lists_are_required(tmp_path: Path, abc: tuple[Path, Path]) -> None:
    gold, codes = abc
    with pytest.raises(InputError, match="codiesp-d needs the option codes"):
        score_codiesp_d(gold, gold)
    with pytest.raises(InputError, match="codiesp-x needs the option codes_d"):
        score_codiesp_x(gold, gold, ExplainableOptions(codes_p=codes))
    with pytest.raises(InputError, match="needs codes_d=VALUE codes_p=VALUE"):
        ExplainableOptions.from_values({"tolerance": 3}, task="codiesp-x")


# --- the API on data in memory ---------------------------------------------------------------

DOCS = ["S1", "S2", "007", "7", "s1", "S10"]
CODES = ["a", "A", "b", "c1", "C1", "d.5", "e", "zz"]


def without_paths(result: Result, *paths: tuple[Path, str]) -> tuple[object, ...]:
    """What two results must share: everything, with each file's path in the warnings replaced
    by the name the in-memory data goes by."""
    warnings = []
    for w in result.warnings:
        text = str(w)
        for path, name in paths:
            text = text.replace(str(path), name)
        warnings.append((w.code, text))
    return (
        str(result.signature),
        result.scores,
        result.counts,
        result.document_counts(),
        warnings,
        result.details,
    )


def random_ranked(rng: random.Random) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Gold and predictions as dicts: ids that read as one number (007, 7), upper-case codes,
    repeated codes, documents on one side only, documents with no code."""
    docs = rng.sample(DOCS, rng.randint(1, len(DOCS)))
    gold = {d: rng.sample(CODES, rng.randint(0, 4)) for d in docs if rng.random() < 0.8}
    gold[docs[0]] = gold.get(docs[0]) or ["a"]
    pred = {d: [rng.choice(CODES) for _ in range(rng.randint(0, 6))] for d in docs}
    return gold, pred


def test_count_d_and_p_are_score_d_and_p_on_the_same_lines(tmp_path: Path) -> None:
    codes = write(tmp_path, "codes.tsv", ["A", "b", "c1", "d.5", "e"])
    for seed in range(200):
        rng = random.Random(seed)
        gold, pred = random_ranked(rng)
        gold_path = write(tmp_path, "g.tsv", [f"{d}\t{c}" for d, cs in gold.items() for c in cs])
        pred_path = write(tmp_path, "p.tsv", [f"{d}\t{c}" for d, cs in pred.items() for c in cs])
        options = RankedOptions(
            codes=codes,
            missing_docs=rng.choice([MissingDocs.ignore, MissingDocs.zero]),
            filter_gold=rng.random() < 0.3,
            depth=rng.choice([1000, 1, 2, None]),
            lowercase=rng.random() < 0.8,
            tie_order=rng.choice(list(TieOrder)),
        )
        paths = ((gold_path, "<gold>"), (pred_path, "<predictions>"))
        for score, count in (
            (score_codiesp_d, count_codiesp_d),
            (score_codiesp_p, count_codiesp_p),
        ):
            from_files = without_paths(score(gold_path, pred_path, options), *paths)
            in_memory = count(gold, pred, options=options)
            given = count(gold, pred, ["A", "b", "c1", "d.5", "e"], options)
            assert without_paths(in_memory) == from_files, seed
            assert without_paths(given) == from_files, seed


def references(rng: random.Random, n: int) -> list[CodeReference]:
    """``n`` random X references, on lines 1 to ``n``."""
    out = []
    for line in range(1, n + 1):
        start = rng.randint(0, 40)
        end = start + rng.randint(0, 12)
        doc, code = rng.choice(DOCS[:3]), rng.choice(CODES)
        label = rng.choice(("DIAGNOSTICO", "PROCEDIMIENTO"))
        out.append(CodeReference(doc, label, code, start, end, line, "t"))
    return out


def test_count_x_is_score_x_on_the_same_lines(tmp_path: Path) -> None:
    codes_d = write(tmp_path, "d.tsv", ["a", "B"])
    codes_p = write(tmp_path, "p.tsv", ["c1", "zz"])
    for seed in range(200):
        rng = random.Random(seed)
        gold, pred = references(rng, rng.randint(1, 6)), references(rng, rng.randint(0, 8))
        gold_path = write(
            tmp_path,
            "g.tsv",
            [f"{r.document}\t{r.label}\t{r.code}\tt\t{r.start} {r.end}" for r in gold],
        )
        pred_path = write(
            tmp_path,
            "q.tsv",
            [f"{r.document}\t{r.start} {r.end}\t{r.label}\t{r.code}" for r in pred],
        )
        options = ExplainableOptions(
            codes_d=codes_d,
            codes_p=codes_p,
            tolerance=rng.choice([10, 0, 3]),
            tolerance_mode=rng.choice(list(ToleranceMode)),
            check_label=rng.random() < 0.3,
            filter_gold=rng.random() < 0.3,
            lowercase=rng.random() < 0.8,
        )
        paths = ((gold_path, "<gold>"), (pred_path, "<predictions>"))
        from_files = without_paths(score_codiesp_x(gold_path, pred_path, options), *paths)
        assert without_paths(count_codiesp_x(gold, pred, options=options)) == from_files, seed
        given = count_codiesp_x(gold, pred, ["a", "B", "c1", "zz"], options)
        assert without_paths(given) == from_files, seed


def test_data_in_memory_that_no_file_could_hold_is_refused() -> None:
    valid = ["a"]
    with pytest.raises(InputError, match="expected a list of codes, not text"):
        count_codiesp_d({"D1": "a"}, {}, valid=valid)
    with pytest.raises(InputError, match="code '' is not a non-blank string"):
        count_codiesp_d({"D1": [""]}, {}, valid=valid)
    with pytest.raises(InputError, match="the gold codes are empty"):
        count_codiesp_d({"D1": []}, {"D1": ["a"]}, valid=valid)
    with pytest.raises(InputError, match="not one string"):
        count_codiesp_d({"D1": ["a"]}, {}, valid="a")
    with pytest.raises(InputError, match="expected codes as strings, not 1"):
        count_codiesp_d({"D1": ["a"]}, {}, valid=[1])  # type: ignore[list-item]
    with pytest.raises(InputError, match="the valid-code list is empty"):
        count_codiesp_x(references(random.Random(1), 2), [], valid=[" "])
    with pytest.raises(InputError, match="codiesp-d needs the option codes"):
        count_codiesp_d({"D1": ["a"]}, {})
    with pytest.raises(InputError, match="the gold references are empty"):
        count_codiesp_x([], [], valid=valid)
