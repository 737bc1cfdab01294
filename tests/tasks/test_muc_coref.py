"""MUC coreference: classes, MIN-and-extent alignment, the metrics, and the manual's layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.report.muc import coref_row, partition_file, report_summary, score_report
from annoscore.tasks.muc import CoreferenceOptions, score_muc_coreference
from tests.conftest import shared_data
from tests.helpers import texts

MANUAL_TABLE = """\
                  Key   Rsp
Document No.      Cls   Cls           Recall                  Precision       f

930620083          23    20      25 / 43     58.1        25 / 40     62.5   60.2
930620057           4     5      11 / 15     73.3        11 / 14     78.6   75.9
930560132          11     6      14 / 20     70.0        14 / 16     87.5   77.8
930380019          18    10      50 / 69     72.5        50 / 59     84.7   78.1
930350079           3     2       8 / 11     72.7         8 / 10     80.0   76.2
930220297          34    39     101 / 157    64.3       101 / 133    75.9   69.7
930220050           2     5       1 / 3      33.3         1 / 6      16.7   22.2
930090013           8     2       7 / 17     41.2         7 / 8      87.5   56.0
930050011          10    13      26 / 35     74.3        26 / 31     83.9   78.8
931290244          12     8      11 / 21     52.4        11 / 16     68.8   59.5
931250227          35    26      37 / 85     43.5        37 / 59     62.7   51.4
931110023           5     9      25 / 36     69.4        25 / 33     75.8   72.5
931090230           4     3       8 / 12     66.7         8 / 10     80.0   72.7
931020207          10    10      25 / 41     61.0        25 / 32     78.1   68.5
930900283          16    16      52 / 75     69.3        52 / 66     78.8   73.8
930860108           7     6      20 / 31     64.5        20 / 23     87.0   74.1
930710271           3     4       5 / 8      62.5         5 / 6      83.3   71.4
940460255           3     7      11 / 17     64.7        11 / 14     78.6   71.0
940430215           4     3       4 / 9      44.4         4 / 5      80.0   57.1
940430078           5     6      15 / 19     78.9        15 / 19     78.9   78.9
940410075          13    14      22 / 34     64.7        22 / 32     68.8   66.7
940370255          41    43      72 / 133    54.1        72 / 115    62.6   58.1
940280231          44    50      65 / 126    51.6        65 / 103    63.1   56.8
940270193          22    23      46 / 75     61.3        46 / 69     66.7   63.9
940260231          14    25     102 / 124    82.3       102 / 121    84.3   83.3
940190235          22    21      61 / 78     78.2        61 / 81     75.3   76.7
940120142          31    35     116 / 165    70.3       116 / 146    79.5   74.6
940090210          18    22      33 / 59     55.9        33 / 59     55.9   55.9
940080212           4     3       5 / 7      71.4         5 / 7      71.4   71.4
940050261           9     5      12 / 21     57.1        12 / 12    100.0   72.7

TOTALS:           435   441     990 / 1546   64.0%      990 / 1345   73.6%  68.5%
"""
"""The seed manual's coreference score report, verbatim."""

MANUAL_SUMMARY = """\
Document 930620083
COR "Clinton" "Clinton"
COR "Clinton" "Clinton"
COR "the White House" "White House"
COR "The current briefing room" "The current briefing room"
MIS "allies of the securities exchanges" ""
MIS "securities" ""
MIS "Clinton transition officials" ""
MIS "government" ""
MIS "the committee" ""
SPU "" "Kitty Higgins"
SPU "" "an aide"
SPU "" "Michigan"
OPT "the Clinton camp" ""
OPT "the government" ""
OPT "briefing" ""
"""
"""The seed manual's coreference report summary excerpt, verbatim."""

MANUAL_PARTITION = """\
****************************************************

C 88 116 1 NULL 108 "Washington, an Exchange Ally,"

C 581 609 4 0 39 "Ms. Washington, 44 years old,"
C 741 754 8 4 40 "Ms. Washington"
C 828 830 9 8 43 "her"
C 916 918 12 9 42 "She"
C 961 974 15 12 41 "Ms. Washington"

C 1124 1171 20 15 48 "A graduate of Harvard Law School, Ms. Washington"
C 1257 1259 22 20 49 "She"

M 376 454 0 1 "Consuela Washington, an expert in securities laws,"

****************************************************
"""
"""The seed manual's partition file excerpt (one key class), verbatim."""

STATS = ("recall_num", "recall_den", "precision_num", "precision_den")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_shared_sample_gives_one_third() -> None:
    """../shared/data/muc/coref: key chains {Acme, it, the company's} {Jane Q. Doe, The new
    executive} (optional "She" unaligned, removed); response chains {Acme, it, executive}
    {Jane Q. Doe, the company's}: recall = precision = 1/3."""
    folder = shared_data("muc", "coref")
    result = score_muc_coreference(
        folder / "key.synthetic.sgml", folder / "response.synthetic.sgml"
    )
    c = result.counts
    assert [c["muc_" + s] for s in STATS] == [1, 3, 1, 3]
    assert result.scores["recall"] == result.scores["precision"] == pytest.approx(1 / 3)
    assert round(100 * result.scores["f1"], 1) == 33.3  # type: ignore[operator]
    assert (c["markables:cor"], c["markables:mis"], c["markables:spu"], c["markables:opt"]) == (
        5,
        0,
        0,
        1,
    )
    assert (c["key_classes"], c["response_classes"]) == (2, 2)


def test_other_metrics_on_the_same_partitions() -> None:
    folder = shared_data("muc", "coref")
    result = score_muc_coreference(
        folder / "key.synthetic.sgml",
        folder / "response.synthetic.sgml",
        CoreferenceOptions(metric=("muc", "bcub", "ceafe")),
    )
    s = result.scores
    # B3: key {1,2,5} {3,4}; response {1,2,4} {3,5}: recall = (2*2/3 + 1/3 + 1/2 + 1/2) / 5
    assert s["bcub_recall"] == pytest.approx((4 / 3 + 1 / 3 + 1 / 2 + 1 / 2) / 5)
    # CEAFe: phi4(k1, r1) = 2*2/6, phi4(k2, r2) = 2*1/4 (the better of the two matchings)
    assert s["ceafe_f1"] == pytest.approx((2 * 2 / 6 + 2 * 1 / 4) / 2)
    assert s["conll_f1"] == pytest.approx((s["muc_f1"] + s["bcub_f1"] + s["ceafe_f1"]) / 3)
    assert s["recall"] == s["muc_recall"]
    first_bcub = score_muc_coreference(
        folder / "key.synthetic.sgml",
        folder / "response.synthetic.sgml",
        CoreferenceOptions(metric=("bcub",)),
    )
    assert first_bcub.scores["recall"] == pytest.approx(s["bcub_recall"])
    assert "2.67 / 5" in score_report(first_bcub)


def manual_rows() -> dict[str, Counts]:
    rows: dict[str, Counts] = {}
    for line in MANUAL_TABLE.splitlines():
        fields = line.split()
        if not fields or not fields[0].isdigit():
            continue
        doc, key, rsp, r_num, _, r_den, _, p_num, _, p_den = fields[:10]
        rows[doc] = Counts(
            key_classes=int(key),
            response_classes=int(rsp),
            muc_recall_num=int(r_num),
            muc_recall_den=int(r_den),
            muc_precision_num=int(p_num),
            muc_precision_den=int(p_den),
        )
    return rows


def test_manual_coreference_table_is_rebuilt_from_its_counts() -> None:
    """Every percentage and F in the manual's table (30 documents and TOTALS) follows from the
    class counts and the fractions; the layout is the manual's."""
    from annoscore.metrics.muc_coref import coreference_scores
    from annoscore.report.muc import coref_score_report
    from annoscore.result import Result
    from annoscore.signature import Signature

    rows = manual_rows()
    assert len(rows) == 30
    result = Result.from_counts(
        "muc-coreference", Signature.of("muc-coreference"), rows, coreference_scores
    )
    assert coref_score_report(result) == MANUAL_TABLE
    assert round(100 * result.scores["f1"], 1) == 68.5  # type: ignore[operator]
    assert coref_row("940050261", rows["940050261"]).endswith("12 / 12    100.0   72.7")


SUMMARY_KEY = """<DOC>
<DOCNO> 930620083 </DOCNO>
<TEXT>
<COREF ID="1">Clinton</COREF> told <COREF ID="2">allies of the <COREF ID="3">securities</COREF> \
exchanges</COREF> that <COREF ID="5" REF="1">Clinton</COREF> and <COREF ID="6" REF="1" \
STATUS="OPT">the Clinton camp</COREF> would brief <COREF ID="7" REF="2">Clinton transition \
officials</COREF> at <COREF ID="4" MIN="White House">the White House</COREF>, where \
<COREF ID="8">government</COREF> lawyers, <COREF ID="9" REF="7">the committee</COREF> and \
<COREF ID="12" REF="8" STATUS="OPT">the government</COREF> agreed. <COREF ID="10" MIN="room">\
The current <COREF ID="11" STATUS="OPT">briefing</COREF> room</COREF> is small, said Kitty \
Higgins, an aide from Michigan.
</TEXT>
</DOC>
"""
SUMMARY_RESPONSE = """<DOC>
<DOCNO> 930620083 </DOCNO>
<TEXT>
<COREF ID="1">Clinton</COREF> told allies of the securities exchanges that <COREF ID="3" \
REF="1">Clinton</COREF> and the Clinton camp would brief Clinton transition officials at the \
<COREF ID="2">White House</COREF>, where government lawyers, the committee and the government \
agreed. <COREF ID="4" REF="2">The current briefing room</COREF> is small, said <COREF ID="5">\
Kitty Higgins</COREF>, <COREF ID="6" REF="5">an aide</COREF> from <COREF ID="7">Michigan\
</COREF>.
</TEXT>
</DOC>
"""


def test_manual_coreference_summary_is_reproduced(tmp_path: Path) -> None:
    """The manual's report summary excerpt, line for line, from files written for it: MIN
    alignment ("White House" inside "the White House"), nested markables, optional ones."""
    result = score_muc_coreference(
        write(tmp_path / "key.sgml", SUMMARY_KEY), write(tmp_path / "rsp.sgml", SUMMARY_RESPONSE)
    )
    assert report_summary(result) == MANUAL_SUMMARY
    c = result.counts
    assert (c["markables:cor"], c["markables:mis"], c["markables:spu"], c["markables:opt"]) == (
        4,
        5,
        3,
        3,
    )
    # key classes after removing the 3 optional markables: {1,5} {2,7,9} {3} {4} {8} {10};
    # response {1,3} {2,4} {5,6} {7}: recall (1 + 0 + 0) / (1 + 2 + 0 + 0 + 0 + 0) = 1/3;
    # precision: {1,3} -> 1, {2,4} -> 0 (two key classes), {5,6} -> 0 (spurious): 1/3
    assert [c["muc_" + s] for s in STATS] == [1, 3, 1, 3]
    assert (c["key_classes"], c["response_classes"]) == (6, 4)


# the manual's partition excerpt: (start, key id, key REF, response id, response REF, text)
PARTITION_MARKABLES = [
    (88, "1", None, "108", None, "Washington, an Exchange Ally,"),
    (376, "0", "1", None, None, "Consuela Washington, an expert in securities laws,"),
    (581, "4", "0", "39", None, "Ms. Washington, 44 years old,"),
    (741, "8", "4", "40", "39", "Ms. Washington"),
    (828, "9", "8", "43", "40", "her"),
    (916, "12", "9", "42", "43", "She"),
    (961, "15", "12", "41", "42", "Ms. Washington"),
    (1124, "20", "15", "48", None, "A graduate of Harvard Law School, Ms. Washington"),
    (1257, "22", "20", "49", "48", "She"),
]


def partition_files(tmp_path: Path) -> tuple[Path, Path]:
    """A document whose markables sit at the offsets of the manual's excerpt.  The missing
    markable spans 79 characters (376-454) for a 51-character text: its text runs over a
    paragraph break (``</p> <p>``, other tags count as text), which the partition file shows
    as one space."""
    head = "\n<DOCNO> 930620083 </DOCNO>\n<TEXT>\n"
    key, rsp = [head], [head]
    at = len(head)
    for start, key_id, key_ref, rsp_id, rsp_ref, text in PARTITION_MARKABLES:
        filler = ("the story goes on " * 80)[: start - at]
        key.append(filler)
        rsp.append(filler)
        if key_id == "0":
            text = (
                "Consuela Washington, an expert in" + "\n</p>" + " " * 21 + "<p>\nsecurities laws,"
            )
        ref = f' REF="{key_ref}"' if key_ref else ""
        key.append(f'<COREF ID="{key_id}"{ref}>{text}</COREF>')
        if rsp_id is None:
            rsp.append(text)
        else:
            ref = f' REF="{rsp_ref}"' if rsp_ref else ""
            rsp.append(f'<COREF ID="{rsp_id}"{ref}>{text}</COREF>')
        at = start + len(text)
    tail = "\n</TEXT>\n</DOC>\n"
    return (
        write(tmp_path / "key.sgml", "<DOC>" + "".join(key) + tail),
        write(tmp_path / "rsp.sgml", "<DOC>" + "".join(rsp) + tail),
    )


def test_manual_partition_excerpt_is_reproduced(tmp_path: Path) -> None:
    key, rsp = partition_files(tmp_path)
    result = score_muc_coreference(key, rsp)
    text = partition_file(result.details)
    assert MANUAL_PARTITION in text
    lines = text.splitlines()
    assert lines[0] == "Document 930620083"
    # the response classes follow, between '=' lines, with the key ids
    assert "=" * 52 in lines
    assert 'C 741 754 40 39 8 "Ms. Washington"' in lines
    # recall: the one key class of 9 falls into 3 response parts and 1 missing: 9 - 4 = 5 of 8
    c = result.counts
    assert [c["muc_" + s] for s in STATS] == [5, 8, 5, 5]


def test_min_rules_and_one_to_one_alignment(tmp_path: Path) -> None:
    key = (
        '<DOC><DOCNO>1</DOCNO><TEXT><COREF ID="1" MIN="Bank">the Big Bank</COREF> and '
        '<COREF ID="2" REF="1" MIN="nowhere">its unit</COREF>.</TEXT></DOC>\n'
    )
    rsp = (
        '<DOC><DOCNO>1</DOCNO><TEXT>the <COREF ID="a">Big <COREF ID="b" REF="a">Bank</COREF>'
        '</COREF> and its <COREF ID="c" REF="a">unit</COREF>.</TEXT></DOC>\n'
    )
    result = score_muc_coreference(write(tmp_path / "k", key), write(tmp_path / "r", rsp))
    alignment = result.details.coref[0]
    # "Big Bank" (8 characters) is taken before "Bank"; "unit" lacks the exact extent that a
    # key whose MIN is not in its text needs
    assert alignment.key_to_response == {"1": "a"}
    assert (result.counts["markables:mis"], result.counts["markables:spu"]) == (1, 2)
    (warning,) = texts(result)
    assert "MIN string does not occur in their text" in warning and "nowhere" in warning


def test_strict_text_and_missing_ref(tmp_path: Path) -> None:
    from annoscore.errors import InputError

    key = '<DOC><DOCNO>1</DOCNO><TEXT><COREF ID="1">A</COREF> b</TEXT></DOC>\n'
    rsp = '<DOC><DOCNO>1</DOCNO><TEXT><COREF ID="1">A</COREF> c</TEXT></DOC>\n'
    k, r = write(tmp_path / "k", key), write(tmp_path / "r", rsp)
    assert "offset 2" in texts(score_muc_coreference(k, r))[0]
    with pytest.raises(InputError, match="--strict-text"):
        score_muc_coreference(k, r, CoreferenceOptions(strict_text=True))
    write(tmp_path / "r", rsp.replace('ID="1">', 'ID="1" REF="7">'))
    with pytest.raises(InputError, match=r"r:1: column 28: REF='7' names no markable"):
        score_muc_coreference(k, r)


def test_f_is_0_not_undefined_when_only_the_response_has_links() -> None:
    """Key markables all alone (no key link: recall undefined) and a response that links two of
    them: precision 0, F 0 by the one rule (before: undefined), the TOTALS line ``*`` for
    recall and F as the manual's table prints them; in-memory documents, and a number given
    twice refused."""
    from annoscore.formats.muc_sgml import parse_sgml
    from annoscore.report.muc import coref_score_report
    from annoscore.tasks.muc import count_muc_coreference

    def doc(text: str) -> list:  # type: ignore[type-arg]
        return parse_sgml(f"<DOC><DOCNO>4</DOCNO><TEXT>{text}</TEXT></DOC>", "x", {"COREF"})

    key = doc('<COREF ID="1">Ann</COREF> met <COREF ID="2">Bob</COREF>')
    rsp = doc('<COREF ID="1">Ann</COREF> met <COREF ID="2" REF="1">Bob</COREF>')
    result = count_muc_coreference(key, rsp)
    s = result.scores
    assert (s["recall"], s["precision"], s["f_pr"], s["f1"]) == (None, 0.0, 0.0, 0.0)
    totals = coref_score_report(result).splitlines()[-1]
    assert totals.startswith("TOTALS:") and totals.endswith(
        "0 / 0         *%        0 / 1       0.0%     *%"
    )
    with pytest.raises(InputError, match="key document number 4 is given twice"):
        count_muc_coreference(key + key, rsp)


def test_the_metric_names_are_the_coreference_metrics() -> None:
    """``--metric`` declares its names as a ``Literal`` (the options' choices): they are the
    coreference metrics, in their order; each scores alone."""
    import typing

    from annoscore.metrics.coref import METRICS
    from annoscore.metrics.muc_coref import MetricName
    from annoscore.options import fields

    assert typing.get_args(MetricName) == METRICS
    (metric,) = [f for f in fields(CoreferenceOptions) if f.name == "metric"]
    assert metric.kind == "names" and metric.choices == (*METRICS, "b3", "all")
    assert CoreferenceOptions(metric=("B3", "all")).metric == ("bcub", *METRICS[:2], *METRICS[3:])
