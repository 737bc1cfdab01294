"""PharmaCoNER conformance: every official number of shared/README.md, to the last digit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.align.span_modes import SpanMode
from annoscore.errors import InputError
from annoscore.model import AnnotatedDocument, Mention, Note, Span
from annoscore.report.pharmaconer import render_codalab, render_official
from annoscore.result import Undefined
from annoscore.tasks.pharmaconer import (
    IndexingOptions,
    NerOptions,
    count_pharmaconer_indexing,
    count_pharmaconer_ner,
    score_pharmaconer_indexing,
    score_pharmaconer_ner,
)
from tests.conftest import shared_data
from tests.helpers import texts


def _sample(track: str, side: str) -> Path:
    return shared_data("pharmaconer", "sample", side, track, "sample")


def _codalab(task: str, side: str, track: str) -> Path:
    return shared_data("pharmaconer", "codalab", task, "input", side, track)


def test_sample_ner_official_numbers() -> None:
    result = score_pharmaconer_ner(_sample("subtrack1", "gold"), _sample("subtrack1", "system"))
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (54, 1, 2)
    text = render_official(result)
    assert "Total (15 docs)                    Precision      0.9818" in text
    assert "Recall         0.9643" in text and "F1             0.973 " in text


def test_sample_indexing_is_perfect() -> None:
    result = score_pharmaconer_indexing(
        _sample("subtrack2", "gold"), _sample("subtrack2", "system")
    )
    assert result.scores == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_sample_verbose_first_document() -> None:
    result = score_pharmaconer_ner(_sample("subtrack1", "gold"), _sample("subtrack1", "system"))
    first = min(result.documents)
    scores = result.documents[first].scores
    assert [f"{scores[k]:.4}" for k in ("precision", "recall", "f1")] == ["0.5", "0.3333", "0.4"]


def test_codalab_subtask1_without_codalab_rules_keeps_unclear() -> None:
    result = score_pharmaconer_ner(
        _codalab("subtask1", "ref", "subtask1"), _codalab("subtask1", "res", "subtask1")
    )
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1582, 233, 294)
    assert [f"{result.scores[k]:.4}" for k in ("precision", "recall", "f1")] == [
        "0.8716",
        "0.8433",
        "0.8572",
    ]


def test_codalab_removes_unclear_from_gold_and_system() -> None:
    result = score_pharmaconer_ner(
        _codalab("subtask1", "ref", "subtask1"),
        _codalab("subtask1", "res", "subtask1"),
        NerOptions(codalab=True),
    )
    expected = shared_data("pharmaconer", "codalab", "subtask1", "output", "scores.txt")
    assert render_codalab(result) == expected.read_text()
    assert result.scores["f1"] == 0.8575365114356572
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1556, 231, 286)
    assert any("UNCLEAR entities removed" in w for w in texts(result))


def test_codalab_indexing_drops_gold_codes_of_unclear_only_mentions() -> None:
    gold, system = _codalab("subtask2", "ref", "subtask2"), _codalab("subtask2", "res", "subtask2")
    plain = score_pharmaconer_indexing(gold, system)
    assert plain.scores == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    result = score_pharmaconer_indexing(
        gold,
        system,
        IndexingOptions(codalab=True, gold_ann=_codalab("subtask2", "ref", "subtask1")),
    )
    expected = shared_data("pharmaconer", "codalab", "subtask2", "output", "scores.txt")
    assert render_codalab(result) == expected.read_text()
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (2775, 68, 0)
    assert any("68 gold code(s)" in w for w in texts(result))


def test_codalab_indexing_needs_gold_ann(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--gold-ann"):
        score_pharmaconer_indexing(tmp_path, tmp_path, IndexingOptions(codalab=True))


def _write(folder: Path, name: str, content: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(content)


def _one_document(tmp_path: Path, gold_ann: str, system_ann: str) -> tuple[Path, Path]:
    """A gold and a system folder (``gold``, ``run``) holding one ``a.ann`` each."""
    gold, system = tmp_path / "gold", tmp_path / "run"
    _write(gold, "a.ann", gold_ann)
    _write(system, "a.ann", system_ann)
    return gold, system


def test_missing_docs_official_scores_gold_only_documents_and_leaves_system_only_out(
    tmp_path: Path,
) -> None:
    gold, system = tmp_path / "gold", tmp_path / "run"
    _write(gold, "a.ann", "T1\tDRUG 0 5\tx\n")
    _write(gold, "b.ann", "T1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\n")
    _write(system, "a.ann", "T1\tDRUG 0 5\tx\n")
    _write(system, "c.ann", "T1\tDRUG 0 5\tx\n")
    official = score_pharmaconer_ner(gold, system)  # the plain script: b's two entities are missed
    assert _counts(official) == (1, 0, 2) and official.counts["documents"] == 2
    assert str(official.signature).endswith("|missing-docs:official|undefined:zero")
    said = texts(official)
    assert any("1 gold document(s) have no system file and are scored as if" in w for w in said)
    assert any("1 system document(s) have no gold file and are left out" in w for w in said)
    assert "Total (2 docs)" in render_official(official)
    codalab = score_pharmaconer_ner(
        gold, system, NerOptions(codalab=True)
    )  # the CodaLab scorer: both left out
    assert _counts(codalab) == (1, 0, 0) and codalab.counts["documents"] == 1
    ignored = score_pharmaconer_ner(gold, system, NerOptions(missing_docs="ignore"))
    assert _counts(ignored) == (1, 0, 0) and ignored.counts["documents"] == 1
    counted = score_pharmaconer_ner(gold, system, NerOptions(missing_docs="count"))
    assert _counts(counted) == (1, 1, 2) and counted.counts["documents"] == 3
    assert str(counted.signature).endswith("|missing-docs:count|undefined:zero")
    with pytest.raises(InputError, match="missing_docs: 'zero' is not one of official, ignore"):
        NerOptions(missing_docs="zero")  # type: ignore[arg-type]


def test_indexing_pairs_documents_as_the_script(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t1\n")
    _write(tmp_path / "g", "b.tsv", "b\t1\nb\t2\n")
    _write(tmp_path / "s", "a.tsv", "a\t1\n")
    _write(tmp_path / "s", "c.tsv", "c\t1\n")
    official = score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")
    assert _counts(official) == (1, 0, 2) and official.counts["documents"] == 2
    _write(tmp_path / "ann", "a.ann", "T1\tX 0 1\ta\n")
    _write(tmp_path / "ann", "b.ann", "T1\tX 0 1\ta\n")
    codalab = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s", IndexingOptions(codalab=True, gold_ann=tmp_path / "ann")
    )
    assert _counts(codalab) == (1, 0, 0) and codalab.counts["documents"] == 1


def test_discontinuous_entities_match_only_identical_fragments(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path,
        "T1\tDRUG 0 5;10 15\tx\nT2\tDRUG 20 25;30 35\tx\n",
        "T1\tDRUG 0 5;10 15\tx\nT2\tDRUG 20 35\tx\n",
    )
    result = score_pharmaconer_ner(gold, system)
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1, 1, 1)


def test_undefined_zero_is_official_and_null_is_honest(tmp_path: Path) -> None:
    gold, system = _one_document(tmp_path, "", "")
    official = score_pharmaconer_ner(gold, system)
    assert official.scores == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    nulls = score_pharmaconer_ner(gold, system, NerOptions(undefined=Undefined.null))
    assert nulls.scores == {"precision": None, "recall": None, "f1": None}
    for result in (official, nulls):  # named either way, by the one generic warning
        (warning,) = result.warnings
        assert warning.code == "undefined" and "precision, recall, f1" in str(warning)
        # the rule holds below the corpus scores: the document has no score
        assert result.documents["a"].scores == nulls.scores
    assert "shown as 0.0" in str(official.warnings[0])
    # the official layout prints what the script prints, per document too
    verbose = render_official(official, verbose=True)
    assert verbose.count("0.0 ") == 6 and "-" not in verbose.replace("-" * 60, "")
    assert render_official(nulls, verbose=True).count("- ") == 6


def test_sample_macro_doc_leaves_the_empty_document_out() -> None:
    """Issue 26: the sample's document with no entity on either side has no score, so
    ``macro_doc`` leaves it out (F1 0.957, not 0.893 as when it counted 0) and says so; the
    official corpus scores are unchanged."""
    result = score_pharmaconer_ner(
        _sample("subtrack1", "gold"), _sample("subtrack1", "system")
    ).shown(averages=True)
    assert round(result.averages["macro_doc"]["f1"] or 0, 3) == 0.957
    assert round(result.scores["f1"] or 0, 3) == 0.973
    empty = [d for d, unit in result.documents.items() if unit.scores["f1"] is None]
    assert len(empty) == 1 and result.documents[empty[0]].counts["tp"] == 0
    (left_out,) = [w for w in result.warnings if w.code == "average.left-out"]
    assert "f1 of 1 (of 15)" in str(left_out)


def test_per_type_counts_sum_to_total_and_macro_averages(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path, "T1\tDRUG 0 5\tx\nT2\tPROT 6 9\ty\n", "T1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\n"
    )
    result = score_pharmaconer_ner(gold, system)
    assert result.types["DRUG"].counts == {"tp": 1, "fp": 1, "fn": 0}
    assert result.types["PROT"].counts == {"tp": 0, "fp": 0, "fn": 1}
    assert result.averages["macro_type"]["recall"] == pytest.approx(0.5)


def test_file_mode_pairs_the_two_files_whatever_their_names(tmp_path: Path) -> None:
    _write(tmp_path, "gold.ann", "T1\tDRUG 0 5\tx\n")
    _write(tmp_path / "run1", "other.ann", "T1\tDRUG 0 5\tx\n")
    result = score_pharmaconer_ner(tmp_path / "gold.ann", tmp_path / "run1" / "other.ann")
    assert result.scores["f1"] == 1.0
    assert render_official(result).startswith("\n\nReport (SYSTEM: run1):\n")


def test_file_and_folder_cannot_be_mixed(tmp_path: Path) -> None:
    _write(tmp_path, "gold.ann", "")
    with pytest.raises(InputError, match="both be files or both be folders"):
        score_pharmaconer_ner(tmp_path / "gold.ann", tmp_path)


def test_blank_lines_in_indexing_tsv_are_ignored_and_bad_columns_are_errors(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t1\n\na\t2\n\n")
    _write(tmp_path / "s", "a.tsv", "a\t1\n")
    assert score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s").counts["fn"] == 1
    _write(tmp_path / "s", "a.tsv", "a\t1\textra\n")
    with pytest.raises(InputError, match=r"a.tsv:1: expected 2 tab-separated columns"):
        score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")


def test_indexing_docid_mismatch_is_kept_with_a_warning(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t1\n")
    _write(tmp_path / "s", "a.tsv", "zzz\t1\n")
    result = score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")
    assert result.scores["f1"] == 1.0
    assert any("name another document" in w for w in texts(result))


entity = st.tuples(st.sampled_from(["DRUG", "PROT"]), st.integers(0, 30), st.integers(1, 5))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(entity, max_size=6), min_size=1, max_size=4), st.randoms())
def test_properties_perfect_shuffled_and_additive(
    tmp_path_factory: pytest.TempPathFactory,
    docs: list[list[tuple[str, int, int]]],
    rnd: random.Random,
) -> None:
    root = tmp_path_factory.mktemp("prop")
    for i, doc in enumerate(docs):
        lines = [f"T{j}\t{t} {s} {s + n}\tx\n" for j, (t, s, n) in enumerate(doc)]
        predicted = [*lines[: max(0, len(lines) - 1)], "T99\tDRUG 100 104\tz\n"]
        _write(root / "gold", f"d{i}.ann", "".join(lines))
        _write(root / "same", f"d{i}.ann", "".join(lines))
        _write(root / "pred", f"d{i}.ann", "".join(predicted))
        rnd.shuffle(predicted)
        _write(root / "shuf", f"d{i}.ann", "".join(predicted))
    perfect = score_pharmaconer_ner(root / "gold", root / "same")
    if perfect.counts["tp"]:
        assert perfect.scores == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    result = score_pharmaconer_ner(root / "gold", root / "pred")
    shuffled = score_pharmaconer_ner(root / "gold", root / "shuf")
    assert result.scores == shuffled.scores and result.counts == shuffled.counts
    summed = {k: sum(u.counts[k] for u in result.documents.values()) for k in ("tp", "fp", "fn")}
    assert summed == {k: result.counts[k] for k in ("tp", "fp", "fn")}
    for value in result.scores.values():
        assert value is not None and 0.0 <= value <= 1.0


def test_span_modes_on_pharmaconer_input() -> None:
    gold, system = _sample("subtrack1", "gold"), _sample("subtrack1", "system")
    strict = score_pharmaconer_ner(gold, system)
    assert "|mode:strict|" in str(strict.signature)
    exact = score_pharmaconer_ner(gold, system, NerOptions(mode="exact"))
    assert exact.counts == strict.counts  # no wrong-type entity in the sample
    # the one span off by one character at its end (907-921 vs 907-920) matches when relaxed
    for relaxed in (
        score_pharmaconer_ner(gold, system, NerOptions(mode="overlap")),
        score_pharmaconer_ner(gold, system, NerOptions(mode="relaxed", tolerance=1)),
    ):
        assert (relaxed.counts["tp"], relaxed.counts["fp"], relaxed.counts["fn"]) == (55, 0, 1)
        assert "|codalab:no|mode:" in str(relaxed.signature)
        assert str(relaxed.signature).endswith("|undefined:zero")
    assert (
        score_pharmaconer_ner(gold, system, NerOptions(mode="relaxed", tolerance=0)).counts["tp"]
        == 54
    )


def test_the_signature_records_every_setting_in_every_mode() -> None:
    """Derived from NerOptions: every setting in its order, the official strict mode included
    (before issue 26 it recorded only codalab, mode, missing-docs and undefined)."""
    default = str(NerOptions().signature("pharmaconer-ner")).split("|", 2)[2]
    assert default == (
        "codalab:no|mode:strict|min-overlap:0.0|overlap-basis:gold|tolerance:0|"
        "matching:one-to-one-optimal|duplicates:collapse|missing-docs:official|undefined:zero"
    )
    indexing = str(IndexingOptions(codalab=True, gold_ann=Path("notes")).signature("x"))
    assert indexing.split("|", 2)[2] == "codalab:yes|missing-docs:official|undefined:zero"


def test_span_modes_keep_codalab_rules_and_verbose_layout() -> None:
    gold, system = _codalab("subtask1", "ref", "subtask1"), _codalab("subtask1", "res", "subtask1")
    strict = score_pharmaconer_ner(gold, system, NerOptions(codalab=True, mode="exact"))
    assert strict.counts["tp"] >= 1556 and strict.counts["documents"] == 250
    assert len(strict.documents) == 250 and not strict.view.documents
    assert render_official(strict).count("Total (250 docs)") == 1


@pytest.mark.parametrize("mode", ["fuzzy", "token", SpanMode.semeval])
def test_a_mode_pharmaconer_does_not_offer_is_an_input_error(mode: str) -> None:
    with pytest.raises(
        InputError, match=r"mode: '.*' is not one of strict, exact, overlap, relaxed"
    ):
        NerOptions(mode=mode)  # type: ignore[arg-type]


def test_counts_of_documents_in_memory_as_of_their_files(tmp_path: Path) -> None:
    """count_pharmaconer_ner on the brat model's documents, on reader columns and on plain
    mention lists gives what score_pharmaconer_ner gives on the files."""
    from annoscore.formats.brat import read_brat, read_brat_corpus

    gold_path, system_path = _sample("subtrack1", "gold"), _sample("subtrack1", "system")
    for options in (NerOptions(), NerOptions(codalab=True), NerOptions(mode=SpanMode.overlap)):
        files = score_pharmaconer_ner(gold_path, system_path, options)
        gold, system = read_brat(gold_path), read_brat(system_path, check_text=False)
        columns = read_brat_corpus(gold_path).files
        mentions = {d: list(doc.mentions) for d, doc in system.items()}
        for in_memory in (
            count_pharmaconer_ner(gold, system, options),
            count_pharmaconer_ner(columns, mentions, options),
        ):
            assert in_memory.to_dict() == files.to_dict()
            assert in_memory.document_counts() == files.document_counts()


def test_indexing_counts_code_sets_in_memory() -> None:
    gold = {"a": ["111", "222"], "b": ["333"]}
    system = {"a": {"111"}, "c": ["999"]}
    result = count_pharmaconer_indexing(gold, system)
    assert _counts(result) == (1, 0, 2) and result.counts["documents"] == 2  # as the script
    with pytest.raises(InputError, match="gold_notes"):
        count_pharmaconer_indexing(gold, system, options=IndexingOptions(codalab=True))
    unclear = (Mention(Span.of(0, 3), "UNCLEAR", "T1"),)
    linked = {
        "a": AnnotatedDocument("a", unclear, notes=(Note("#1", "AnnotatorNotes", "T1", "222"),))
    }
    codalab = count_pharmaconer_indexing(gold, system, linked, IndexingOptions(codalab=True))
    assert _counts(codalab) == (1, 0, 0)  # 222 dropped (UNCLEAR only); b and c left out
    assert _codes(codalab) == {
        "documents.gold-only": 1,
        "documents.system-only": 1,
        "pharmaconer.unclear-codes": 1,
    }


# --- the official script's edge behaviours (issue 13) and bad input (issue 15) ---------------


def _counts(result: object) -> tuple[int, int, int]:
    counts = result.counts  # type: ignore[attr-defined]
    return (counts["tp"], counts["fp"], counts["fn"])


def _codes(result: object) -> dict[str, int]:
    return {w.code: w.count for w in result.warnings}  # type: ignore[attr-defined]


def test_lines_the_script_cannot_split_are_skipped_with_a_warning(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path,
        "T1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\nT3\tDRUG 10 12\tz\n",
        "T1\tDRUG 0 5\tx\nT2 DRUG 6 9\ty\nT3\tDRUG\t10 12\tz\n",
    )
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (1, 0, 2)
    (warning,) = [w for w in result.warnings if w.code == "pharmaconer.unsplittable"]
    assert warning.count == 2 and warning.examples == ("a.ann:2", "a.ann:3")
    assert "skipped, as the official script skips them" in warning.message
    with pytest.raises(InputError, match=r"a\.ann:2: "):
        score_pharmaconer_ner(gold, system, NerOptions(strict_input=True))


def test_indented_lines_are_read_and_reversed_offsets_compared_as_written(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path, "T1\tDRUG 0 5\tx\nT2\tDRUG 10 8\ty\n", "   T1\tDRUG 0 5\tx\nT2\tDRUG 10 8\ty\n"
    )
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (2, 0, 0)
    assert _codes(result) == {"pharmaconer.indented": 1, "pharmaconer.reversed": 2}
    with pytest.raises(InputError, match=r"a\.ann:2: offsets 10 8 cannot be compared"):
        score_pharmaconer_ner(gold, system, NerOptions(mode="overlap"))


def test_an_entity_line_beginning_with_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path, "T1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\n", "\ufeffT1\tDRUG 0 5\tx\nT2\tDRUG 6 9\ty\n"
    )
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (1, 0, 1)  # the official number drops it
    assert _codes(result) == {"pharmaconer.bom-line": 1}


def test_non_ascii_digits_are_read_as_int_reads_them_with_a_warning(tmp_path: Path) -> None:
    gold, system = _one_document(tmp_path, "T1\tDRUG 0 5\tx\n", "T1\tDRUG \u0660 \u0665\tx\n")
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (1, 0, 0)
    assert _codes(result) == {"pharmaconer.number": 1}


def test_huge_offsets_are_an_input_error(tmp_path: Path) -> None:
    gold, system = _one_document(tmp_path, "T1\tDRUG 0 5\tx\n", "T1\tDRUG 0 " + "9" * 40 + "\tx\n")
    with pytest.raises(InputError, match=r"a\.ann:1: offset 9+ is beyond any text"):
        score_pharmaconer_ner(gold, system)


def test_discontinuous_entities_are_read_with_a_warning(tmp_path: Path) -> None:
    gold, system = _one_document(tmp_path, "T1\tDRUG 0 5;10 15\tx\n", "T1\tDRUG 0 5;10 15\tx\n")
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (1, 0, 0)
    assert _codes(result) == {"pharmaconer.discontinuous": 2}


def test_repeated_entities_count_once_with_a_warning(tmp_path: Path) -> None:
    gold, system = _one_document(
        tmp_path,
        "T1\tDRUG 0 5\tx\nT2\tDRUG 0 5\tx\n",
        "T1\tDRUG 0 5\tx\nT2\tDRUG 0 5\tx\nT3\tDRUG 0 5\tx\n",
    )
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (1, 0, 0)
    (warning,) = result.warnings
    assert warning.code == "pharmaconer.duplicates" and warning.count == 3
    with pytest.raises(InputError, match=r"a\.ann:2: entity repeats line 1"):
        score_pharmaconer_ner(gold, system, NerOptions(strict_input=True))


def test_the_plain_script_reads_every_file_of_the_system_folder(tmp_path: Path) -> None:
    gold, system = tmp_path / "gold", tmp_path / "run"
    _write(gold, "a.ann", "T1\tDRUG 0 5\tx\n")
    _write(gold, "b.ann", "T1\tDRUG 0 5\tx\n")
    _write(system, "a.ANN", "T1\tDRUG 0 5\tx\n")
    _write(system, "b", "T1\tDRUG 0 5\tx\n")
    result = score_pharmaconer_ner(gold, system)
    assert _counts(result) == (2, 0, 0) and result.counts["documents"] == 2
    assert _codes(result) == {"pharmaconer.non-ann-files": 2}


def test_no_scored_document_still_reports_zero_counts(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.ann", "T1\tDRUG 0 5\tx\n")
    _write(tmp_path / "s", "b.ann", "T1\tDRUG 0 5\tx\n")
    ner = score_pharmaconer_ner(tmp_path / "g", tmp_path / "s", NerOptions(missing_docs="ignore"))
    assert ner.counts.as_dict() == {"documents": 0, "fn": 0, "fp": 0, "tp": 0}
    official = score_pharmaconer_ner(
        tmp_path / "g", tmp_path / "s"
    )  # the gold document, all missed
    assert official.counts.as_dict() == {"documents": 1, "fn": 1, "fp": 0, "tp": 0}
    _write(tmp_path / "gi", "a.tsv", "a\t1\n")
    _write(tmp_path / "si", "b.tsv", "b\t1\n")
    indexing = score_pharmaconer_indexing(
        tmp_path / "gi", tmp_path / "si", IndexingOptions(missing_docs="ignore")
    )
    assert indexing.counts.as_dict() == {"documents": 0, "fn": 0, "fp": 0, "tp": 0}


def test_options_with_no_effect_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--tolerance has no effect with --mode strict"):
        score_pharmaconer_ner(tmp_path, tmp_path, NerOptions(tolerance=2))
    with pytest.raises(InputError, match="--min-overlap has no effect with --mode relaxed"):
        score_pharmaconer_ner(tmp_path, tmp_path, NerOptions(mode="relaxed", min_overlap=0.5))
    with pytest.raises(InputError, match="--gold-ann has no effect without --codalab"):
        score_pharmaconer_indexing(tmp_path, tmp_path, IndexingOptions(gold_ann=tmp_path))


def test_indexing_codes_are_compared_as_written(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t111\na\t222\n")
    _write(tmp_path / "s", "a.tsv", "a\t 111\na\t222\n")
    result = score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")
    assert _counts(result) == (1, 1, 1)
    assert _codes(result) == {"pharmaconer.code-whitespace": 1}


def test_indexing_strips_a_lines_trailing_whitespace_as_the_script(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t111\na\t222\na\t333\n")
    _write(tmp_path / "s", "a.tsv", "a\t 111\na\t222   \na\t333\u2028\t\r\n")
    result = score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")
    assert _counts(result) == (2, 1, 1)  # '222   ' is '222', ' 111' is not '111'
    assert _codes(result) == {
        "pharmaconer.code-whitespace": 1,
        "pharmaconer.trailing-whitespace": 2,
    }
    (trailing,) = [w for w in result.warnings if w.code == "pharmaconer.trailing-whitespace"]
    assert trailing.examples == ("a.tsv:2", "a.tsv:3")
    _write(tmp_path / "s", "a.tsv", "a\t111\na\t222   \n")
    with pytest.raises(InputError, match=r"a\.tsv:2: the line ends in whitespace"):
        score_pharmaconer_indexing(
            tmp_path / "g", tmp_path / "s", IndexingOptions(strict_input=True, missing_docs="count")
        )


def test_codalab_filters_a_row_by_the_notes_of_the_document_it_names(tmp_path: Path) -> None:
    _write(tmp_path / "ann", "a.ann", "T1\tUNCLEAR 0 5\tx\n#1\tAnnotatorNotes T1\t111\n")
    _write(tmp_path / "ann", "b.ann", "T1\tDRUG 0 5\tx\n#1\tAnnotatorNotes T1\t111\n")
    _write(tmp_path / "g", "b.tsv", "a\t111\nb\t222\n")  # row 1 names a: a's notes drop 111
    _write(tmp_path / "s", "b.tsv", "b\t222\n")
    result = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s", IndexingOptions(codalab=True, gold_ann=tmp_path / "ann")
    )
    assert _counts(result) == (1, 0, 0)
    assert _codes(result) == {
        "pharmaconer.other-document": 1,
        "pharmaconer.unclear-codes": 1,
        "pharmaconer.unclear-other-document": 1,
    }
    plain = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s"
    )  # the plain script keeps the code
    assert _counts(plain) == (1, 0, 1)


def test_indexing_duplicates_and_blank_lines_are_warned_or_refused(tmp_path: Path) -> None:
    _write(tmp_path / "g", "a.tsv", "a\t1\na\t1\n\na\t2\n")
    _write(tmp_path / "s", "a.tsv", "a\t1\n")
    result = score_pharmaconer_indexing(tmp_path / "g", tmp_path / "s")
    assert _counts(result) == (1, 0, 1)
    assert _codes(result) == {"pharmaconer.duplicate-code": 1, "pharmaconer.blank-line": 1}
    with pytest.raises(InputError, match=r"a\.tsv:2: code '1' repeats line 1"):
        score_pharmaconer_indexing(
            tmp_path / "g", tmp_path / "s", IndexingOptions(strict_input=True)
        )


def test_codalab_drops_a_code_only_when_all_its_mentions_are_unclear(tmp_path: Path) -> None:
    ann = (
        "T1\tUNCLEAR 0 5\tx\nT2\tNORMALIZABLES 6 9\ty\nT3\tUNCLEAR 10 12\tz\n"
        "#1\tAnnotatorNotes T1\t111\n"  # 111: UNCLEAR only -> dropped
        "#2\tAnnotatorNotes T2\t222\n#3\tAnnotatorNotes T3\t222\n"  # 222: one clear -> kept
        "#4\tAnnotatorNotes T9\t444\n"  # 444: links no entity of the file
    )
    _write(tmp_path / "ann", "a.ann", ann)
    _write(tmp_path / "g", "a.tsv", "a\t111\na\t222\na\t333\na\t444\n")  # 333: no link -> kept
    _write(tmp_path / "s", "a.tsv", "a\t222\n")
    result = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s", IndexingOptions(codalab=True, gold_ann=tmp_path / "ann")
    )
    assert _counts(result) == (1, 0, 2)
    assert _codes(result) == {"pharmaconer.unclear-codes": 1}


def test_codalab_filter_applies_only_to_rows_naming_their_document(tmp_path: Path) -> None:
    _write(tmp_path / "ann", "a.ann", "T1\tUNCLEAR 0 5\tx\n#1\tAnnotatorNotes T1\t111\n")
    _write(tmp_path / "g", "a.tsv", "other\t111\n")
    _write(tmp_path / "s", "a.tsv", "a\t999\n")
    result = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s", IndexingOptions(codalab=True, gold_ann=tmp_path / "ann")
    )
    assert _counts(result) == (0, 1, 1)  # the gold code is kept
    assert _codes(result) == {"pharmaconer.other-document": 1}


def test_indexing_byte_order_mark_is_part_of_the_first_document_id(tmp_path: Path) -> None:
    _write(tmp_path / "ann", "a.ann", "T1\tUNCLEAR 0 5\tx\n#1\tAnnotatorNotes T1\t111\n")
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "a.tsv").write_text("\ufeffa\t111\n", encoding="utf-8")
    _write(tmp_path / "s", "a.tsv", "a\t111\n")
    result = score_pharmaconer_indexing(
        tmp_path / "g", tmp_path / "s", IndexingOptions(codalab=True, gold_ann=tmp_path / "ann")
    )
    assert _counts(result) == (1, 0, 0)  # the row names '\ufeffa': the filter leaves it
    assert _codes(result) == {"pharmaconer.bom": 1, "pharmaconer.other-document": 1}
