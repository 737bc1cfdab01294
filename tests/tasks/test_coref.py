from __future__ import annotations

import csv
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll import read_conll
from annoscore.report.coref import (
    blanc_lines,
    perl_number,
    reference_line,
    render_reference,
    render_table,
    truncated_percent,
)
from annoscore.result import Result
from annoscore.samples import SAMPLES
from annoscore.tasks.coref import CHOSEN, CorefOptions, count_coref, score_coref
from tests.conftest import shared_data
from tests.helpers import texts
from tests.metrics.test_coref import case_files

Score = Callable[..., Result]


def conll(*documents: tuple[str, list[str]]) -> str:
    out = []
    for name, cells in documents:
        out.append(f"#begin document {name}")
        out += [f"d 0 {i} w {c}" for i, c in enumerate(cells)]
        out.append("#end document")
    return "\n".join(out) + "\n"


def _score_texts(folder: Path, key: str, response: str, **options: Any) -> Result:
    """Score two texts written as ``k.conll`` and ``r.conll`` in ``folder``."""
    (folder / "k.conll").write_text(key, encoding="utf-8")
    (folder / "r.conll").write_text(response, encoding="utf-8")
    return score_coref(folder / "k.conll", folder / "r.conll", CorefOptions(**options))


@pytest.fixture
def score(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Score:
    """Score two texts in the working directory, so warnings name ``k.conll`` and ``r.conll``."""
    monkeypatch.chdir(tmp_path)
    return lambda key, response, **options: _score_texts(Path(), key, response, **options)


def test_metrics_option_reads_names_groups_and_separators() -> None:
    assert CorefOptions().metrics == CHOSEN == ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
    assert CorefOptions(metrics=("all",)).metrics == CHOSEN
    assert CorefOptions(metrics=()).metrics == CHOSEN
    assert CorefOptions(metrics=("muc+bcub", "ceafe")).metrics == ("muc", "bcub", "ceafe")
    assert CorefOptions(metrics="ceafe,muc+bcub").metrics == ("muc", "bcub", "ceafe")
    assert CorefOptions(metrics=("conll",)).metrics == ("muc", "bcub", "ceafe")
    assert CorefOptions(metrics=("BLANC",)).metrics == ("blanc",)
    with pytest.raises(InputError, match="'x' is not one of muc, bcub,"):
        CorefOptions(metrics=("muc,x",))


def test_signature_is_todays_string() -> None:
    assert str(CorefOptions().signature("coref")).endswith(
        "|task:coref|reference:8.01|metrics:muc+bcub+ceafm+ceafe+blanc+lea|singletons:kept"
        "|duplicates:scorer.pl|blanc-edge:key"
    )
    chosen = CorefOptions(metrics=("lea", "conll"), singletons="removed").signature("coref")
    assert "|metrics:muc+bcub+ceafe+lea|singletons:removed|" in str(chosen)
    with pytest.raises(InputError, match="singletons"):
        CorefOptions(singletons="dropped")  # type: ignore[arg-type]


def test_documents_paired_by_name_missing_and_extra(score: Score) -> None:
    key = conll(("a", ["(1", "1)", "(1)"]), ("b", ["(2)", "(2)"]))
    result = score(key, conll(("a", ["(1", "1)", "(1)"]), ("c", ["(3)"])))
    assert set(result.documents) == {"a", "b"}
    assert (
        "1 key document(s) are missing from the response and are scored as if the other side "
        "were empty (e.g. b)" in texts(result)
    )
    assert (
        "1 response document(s) are not in the key and are left out of the score (e.g. c)"
        in texts(result)
    )
    # b is scored against an empty response: it adds to the recall denominators
    assert result.counts["muc_recall_den"] == 2 and result.counts["muc_recall_num"] == 1
    assert result.documents["b"].scores["muc_recall"] == 0.0


def test_per_document_counts_sum_to_corpus_counts(score: Score) -> None:
    key = conll(("a", ["(1", "1)", "(1)"]), ("b", ["(2)", "(3)", "(2)"]))
    result = score(key, conll(("a", ["(1)", "-", "(1)"]), ("b", ["(2)", "(2)", "(2)"])))
    assert Counts.total(u.counts for u in result.documents.values()) == result.counts


def test_token_count_mismatch_is_input_error(score: Score) -> None:
    with pytest.raises(InputError) as caught:
        score(conll(("a", ["(1)", "-"])), conll(("a", ["(1)"])))
    error = caught.value
    assert error.path == "r.conll" and error.line == 1 and error.document == "a"
    assert "1 token lines in the response but 2 in the key (k.conll:1)" in error.message


def test_remove_singletons_coval_semantics(score: Score) -> None:
    key = conll(("a", ["(1", "1)", "(1)", "(2)"]))
    response = conll(("a", ["(1", "1)", "(1)", "-"]))
    kept = score(key, response)
    removed = score(key, response, singletons="removed")
    assert kept.scores["mentions_recall"] == pytest.approx(2 / 3)
    assert removed.scores["mentions_recall"] == 1.0 and removed.scores["bcub_f1"] == 1.0
    assert "singletons:removed" in str(removed.signature)


def test_undefined_scores_are_the_reference_zero_in_the_corpus_only(score: Score) -> None:
    """A key and a response without any MUC link: MUC is undefined; the corpus scores show the
    reference scorer's 0, named in the warning; the document's scores keep it undefined."""
    key = conll(("a", ["(1)", "(2)"]), ("b", ["(1", "1)", "(1)"]))
    response = conll(("a", ["(1)", "(2)"]), ("b", ["(1", "1)", "(2)"]))
    result = score(key, response, metrics=("muc",))
    assert result.documents["a"].scores["muc_f1"] is None
    assert result.documents["b"].scores["muc_recall"] == 0.0
    assert result.documents["b"].scores["muc_precision"] is None
    assert result.scores["muc_precision"] == 0.0 and result.scores["muc_f1"] == 0.0
    assert texts(result) == [
        "undefined (a zero denominator): muc_precision; shown as 0.0, the official rule"
    ]
    averages = result.shown(averages=True)
    assert averages.averages["macro_doc"]["muc_f1"] == 0.0  # b's F1; a is left out
    assert any("macro_doc leaves out the documents" in w for w in texts(averages))


def test_conll_f1_needs_muc_bcub_ceafe(score: Score) -> None:
    key = conll(("a", ["(1", "1)", "(1)"]))
    assert "conll_f1" in score(key, key).scores
    assert score(key, key).score == 1.0
    chosen = score(key, key, metrics=("muc",))
    assert "conll_f1" not in chosen.scores and chosen.score is None
    parts = ("recall", "precision", "f1")
    assert set(chosen.scores) == {f"{m}_{p}" for m in ("mentions", "muc") for p in parts}


def test_perl_number_and_truncated_percent() -> None:
    assert perl_number(6.0) == "6" and perl_number(1.8) == "1.8"
    assert perl_number(7 / 3) == "2.33333333333333"
    assert truncated_percent(0.698963) == "69.89"  # truncated, not rounded (coval prints 69.90)
    assert truncated_percent(0.749898) == "74.98"
    assert truncated_percent(1.0) == "100" and truncated_percent(0.0) == "0"


# Lines where Perl's sum of B3 terms (in hash order, which varies between runs) differs from ours
# in the 15th significant digit; the numbers are still compared to 1e-12 (raw counts test).
FLOAT_ORDER_ROWS = {
    ("boundary_with_singletons/single_entity", "bcub"),
    ("boundary_with_singletons/single_entity+extra_mentions", "bcub"),
    ("boundary_with_singletons/single_entity+missed_mentions", "bcub"),
    ("correct_links/80-incorrect_links_included.response", "bcub"),
}


def test_reference_layout_reproduces_printed_lines() -> None:
    base = shared_data("coref", "reference")
    checked = 0
    results = {}
    for path in (base / "actual_values.csv", base / "lea-extra" / "actual_values.csv"):
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if not row["tool"].startswith("scorer.pl"):
                    continue
                pair, metric = row["pair"], row["metric"]
                if pair not in results:
                    key, response = case_files(pair)
                    results[pair] = score_coref(key, response).counts
                counts = results[pair]
                if metric == "blanc":
                    line = " || ".join(blanc_lines(counts))
                elif metric == "mentions":
                    line = reference_line("Identification of Mentions", counts, "mentions_")
                else:
                    line = reference_line("Coreference", counts, f"{metric}_")
                if (pair, metric) in FLOAT_ORDER_ROWS:
                    ours = [float(x) for x in re.findall(r"[\d.]+", line)]
                    theirs = [float(x) for x in re.findall(r"[\d.]+", row["printed_line"])]
                    assert ours == pytest.approx(theirs, rel=1e-12, abs=0.011)
                else:
                    assert line == row["printed_line"], pair
                checked += 1
    assert checked == 216 + 36 + 462 + 77


def test_reference_layout_blocks() -> None:
    key, response = case_files("A4")
    result = score_coref(key, response, CorefOptions(metrics="muc+blanc"))
    text = render_reference(result)
    assert text.count("====== TOTALS =======") == 2
    assert "METRIC muc:" in text and "METRIC blanc:" in text and "METRIC bcub:" not in text
    assert "Coreference: Recall: (1 / 3) 33.33%\tPrecision: (1 / 3) 33.33%\tF1: 33.33%" in text
    assert "BLANC: Recall: (0.352272727272727 / 1) 35.22%" in text


def test_table_layout() -> None:
    key, response = case_files("A4")
    result = score_coref(key, response)
    text = render_table(result.shown(documents=True))
    assert "(LuoTestCase); " not in render_table(result)
    assert "CoNLL score (mean of MUC, B3, CEAFe F1): 47.67" in text
    assert re.search(r"MUC\s+33\.33\s+33\.33\s+33\.33", text)
    assert "(LuoTestCase); " in text  # the per-document table


def test_document_order_in_the_files_changes_nothing(score: Score) -> None:
    a, b = ("a", ["(1", "1)", "(1)", "(2)"]), ("b", ["(2)", "(3)", "(2)", "-"])
    a_response, b_response = ("a", ["(1", "1)", "(5)", "(5)"]), ("b", ["(2)", "(2)", "(2)", "-"])
    one = score(conll(a, b), conll(a_response, b_response))
    two = score(conll(b, a), conll(b_response, a_response))
    assert one.counts == two.counts and one.scores == two.scores


# --- scorer.pl's behaviours on odd input (issue 13) ------------------------------------------


def _codes(result: object) -> dict[str, object]:
    return {w.code: w for w in result.warnings}  # type: ignore[attr-defined]


def test_repeated_span_is_kept_in_the_entity_that_occurs_first(score: Score) -> None:
    key = conll(("a", ["(7)", "(7", "-", "7)"]))
    # response entity 3 occurs first (token 0); on token 1 entity 1's bracket comes first
    result = score(key, conll(("a", ["(3)", "(1(3", "-", "3)1)"])))
    assert result.scores["muc_f1"] == 1.0 and result.scores["bcub_f1"] == 1.0
    warning = _codes(result)["coref.response_repeat"]
    assert warning.count == 1 and warning.examples == ("r.conll:3",)  # type: ignore[attr-defined]
    # the bracket-first reading (entity 1 keeps the span) would give MUC recall 0
    assert result.counts["muc_recall_num"] == 1


def test_repeat_matching_no_key_mention_is_kept_and_counted(score: Score) -> None:
    key = conll(("a", ["(1)", "(1)", "-", "-"]))
    # (2, 2) is twice in the response (entities 2 and 3) and not in the key: both stay;
    # (0, 0) is repeated in entity 4 and is a key mention: removed
    result = score(key, conll(("a", ["(1)|(4)", "(1)", "(2)|(3)", "-"])))
    counts = result.counts
    # (2, 2) is one more mention for B3, CEAF and LEA: (0,0), (1,1), (2,2), (2,2) again
    assert counts["bcub_precision_den"] == 4 and counts["ceafm_precision_den"] == 4
    assert counts["lea_precision_den"] == 4 and counts["ceafe_precision_den"] == 3
    # and the same mention for mention identification and BLANC: 3 mentions, 1 coreference
    # link, non-coreference links {00,22} {11,22} {22,22} (entities 2 and 3 list it both)
    assert counts["mentions_precision_den"] == 3
    assert counts["blanc_coref_precision_den"] == 1
    assert counts["blanc_noncoref_precision_den"] == 3
    assert counts["mentions_precision_num"] == 2 and result.scores["muc_f1"] == 1.0
    warnings = _codes(result)
    kept = warnings["coref.response_repeat_kept"]
    assert kept.count == 1 and kept.examples == ("r.conll:4",)  # type: ignore[attr-defined]
    assert warnings["coref.response_repeat"].examples == ("r.conll:2",)  # type: ignore[attr-defined]
    assert all(w.tolerated for w in result.warnings if w.code.startswith("coref.response"))


def test_key_repeats_are_removed_with_a_warning(score: Score) -> None:
    key = conll(("a", ["(1)|(2)", "(1)", "(2)"]))
    result = score(key, key)
    assert result.counts["mentions_recall_den"] == 3 and result.scores["ceafm_f1"] == 1.0
    warning = _codes(result)["coref.key_repeat"]
    assert warning.examples == ("k.conll:2",)  # type: ignore[attr-defined]


def test_two_key_documents_with_one_name_the_last_is_scored(score: Score) -> None:
    key = conll(("a", ["(1)", "(1)"]), ("a", ["(1)", "-"]))
    result = score(key, conll(("a", ["(1)", "-"])))
    assert list(result.documents) == ["a"]
    assert result.counts["mentions_recall_den"] == 1 and result.scores["mentions_f1"] == 1.0
    warning = _codes(result)["coref.repeated_document"]
    assert warning.examples == ("k.conll:1",) and warning.tolerated  # type: ignore[attr-defined]


def test_response_without_end_document_is_scored(score: Score) -> None:
    text = conll(("a", ["(1", "1)", "(1)"]))
    result = score(text, text.replace("#end document\n", ""))
    assert result.scores["muc_f1"] == 1.0
    warning = _codes(result)["coref.unclosed_document"]
    assert warning.examples == ("r.conll:1",)  # type: ignore[attr-defined]


@pytest.mark.parametrize("body", ["", "d 0 0 w (1)\n"])
def test_response_without_documents_scores_every_key_document_against_nothing(
    score: Score, body: str
) -> None:
    result = score(conll(("a", ["(1", "1)", "(1)"]), ("b", ["(2)", "(2)"])), body)
    assert list(result.documents) == ["a", "b"]
    assert result.counts["mentions_recall_den"] == 4 and result.counts["mentions_recall_num"] == 0
    assert result.counts["muc_recall_den"] == 2 and result.scores["conll_f1"] == 0.0
    warning = _codes(result)["coref.empty_response"]
    assert warning.count == 2 and warning.examples == ("r.conll:1",)  # type: ignore[attr-defined]
    assert not any("missing from the response" in w for w in texts(result))


def test_key_without_documents_is_an_error(score: Score) -> None:
    with pytest.raises(InputError, match="no '#begin document' line") as caught:
        score("x (1)\n", conll(("a", ["(1)"])))
    assert caught.value.path == "k.conll"


PIECES = [
    "#begin document a\n",
    "#end document\n",
    "#begin document b\n",
    "d 0 w ",
    "(1",
    "1)",
    "(2)",
    "|",
    "-",
    "_",
    "\n",
    " ",
    "\t",
    "(1+2)",
    "\ufeff",
    "\r\n",
    "\u2028",
    "x",
    "(٣)",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40), st.lists(st.sampled_from(PIECES), max_size=40)
)
def test_random_input_is_scored_or_an_input_error(key: list[str], response: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        try:
            _score_texts(Path(folder), "".join(key), "".join(response))
        except InputError as error:
            assert error.path is not None and error.message
            assert Path(error.path).name in ("k.conll", "r.conll")


# --- count_coref: partitions in memory --------------------------------------------------------


def _entities(path: Path) -> dict[str, list[list[tuple[int, int]]]]:
    return {d.name: [list(e) for e in d.entities] for d in read_conll(path).documents}


def test_count_coref_is_score_coref_on_the_same_partitions() -> None:
    key, response = SAMPLES / "coref/key.conll", SAMPLES / "coref/response.conll"
    options = CorefOptions(metrics="conll+lea", singletons="removed")
    by_file = score_coref(key, response, options)
    in_memory = count_coref(_entities(key), _entities(response), options)
    assert in_memory.document_counts() == by_file.document_counts()
    assert in_memory.scores == by_file.scores and in_memory.signature == by_file.signature
    assert in_memory.score == by_file.score


def test_count_coref_applies_the_repeat_rules_and_names_documents() -> None:
    key = {"d": [[(0, 0), (1, 1)], [(0, 0)]], "e": [[(0, 0)]]}  # (0, 0) twice: the first keeps it
    response = {
        "d": [[(0, 0), (1, 1)], [(1, 1)], [(5, 5)], [(5, 5), (6, 6)]],
        "x": [[(0, 0)]],
    }
    result = count_coref(key, response)
    found = {w.code: (w.count, w.examples) for w in result.warnings}
    assert found == {
        "documents.gold-only": (1, ("e",)),
        "documents.system-only": (1, ("x",)),
        "coref.key_repeat": (1, ("d",)),
        "coref.response_repeat": (1, ("d",)),  # (1, 1), a key mention
        "coref.response_repeat_kept": (1, ("d",)),  # (5, 5), no key mention
    }
    counts = result.document_counts()["d"]
    assert counts["mentions_recall_den"] == 2 and counts["mentions_precision_den"] == 4
    assert counts["bcub_precision_den"] == 5  # (5, 5) is listed twice


@pytest.mark.parametrize("mention", [(0,), (0, "1"), 3, (0, 1, 2), (True, 1)])
def test_count_coref_refuses_a_mention_that_is_no_token_span(mention: object) -> None:
    with pytest.raises(InputError, match=r"document d: a mention is a \(first token"):
        count_coref({"d": [[(0, 0), mention]]}, {})  # type: ignore[list-item]


def test_count_coref_takes_lists_for_spans_and_needs_a_key() -> None:
    result = count_coref({"d": [[[0, 0], [2, 3]]]}, {"d": [[(0, 0), (2, 3)]]})
    assert result.scores["muc_f1"] == 1.0
    with pytest.raises(InputError, match="the key has no document"):
        count_coref({}, {"d": [[(0, 0)]]})
