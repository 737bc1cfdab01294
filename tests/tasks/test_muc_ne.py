"""MUC named entity: SGML reading, overlap alignment, tallies, the score page and summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.muc import MucDetails
from annoscore.report.muc import report_summary, score_page, score_report
from annoscore.samples import sample_path
from annoscore.tasks.muc import NamedEntityOptions, load_config, score_muc_named_entity
from tests.helpers import texts

MANUAL_PAGE = """\
------------------------------------------------------------------------------
               POS   ACT| COR PAR INC | MIS  SPU  NON| REC PRE UND OVG SUB ERR
------------------------+-------------+--------------+------------------------
SUBTASK SCORES          |             |              |{blanks}
enamex                  |             |              |
 organizatio   443   444| 405   0   18|  20   21   18|  91  91   5   5   4  13
 person        373   371| 364   0    2|   7    5    0|  98  98   2   1   1   4
 location      110   122| 109   0    0|   1   13    3|  99  89   1  11   0  11
 other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
timex                   |             |              |
 date          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8
 time            0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
 other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
numex                   |             |              |
 money          76    76|  73   0    0|   3    3    0|  96  96   4   4   0   8
 percent        17    25|  17   0    0|   0    8    0| 100  68   0  32   0  32
 other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
------------------------+-------------+--------------+------------------------
SECT SCORES             |             |              |
Header         244   256| 233   0    9|   2   14    8|  95  91   1   5   4  10
Body          2016  2044|1906   0   42|  68   96   95|  95  93   3   5   2  10
------------------------+-------------+--------------+------------------------
OBJ SCORES              |             |              |
enamex         926   937| 898   0    0|  28   39   21|  97  96   3   4   0   7
timex          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8
numex           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13
------------------------+-------------+--------------+------------------------
SLOT SCORES             |             |              |
enamex                  |             |              |
 type          926   937| 878   0   20|  28   39   21|  95  94   3   4   2   9
 text          926   937| 876   0   22|  28   39   21|  95  93   3   4   2   9
 status          0     0|   0   0    0|   0    0   38|   0   0   0   0   0   0
 alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
timex                   |             |              |
 type          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8
 text          111   112|  98   0    9|   4    5   11|  88  88   4   4   8  16
 status          0     0|   0   0    0|   0    0    6|   0   0   0   0   0   0
 alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
numex                   |             |              |
 type           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13
 text           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13
 status          0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
 alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0
------------------------+-------------+--------------+------------------------
ALL SLOTS     2260  2300|2139   0   51|  70  110  103|  95  93   3   5   2  10
                                                    P&R      2P&R      P&2R
F-MEASURES                                        93.82     93.32     94.31"""
MANUAL_PAGE = MANUAL_PAGE.replace("{blanks}", " " * 24)
"""The named entity score page of the seed manual ("Named Entity Score Report"), verbatim (its
SUBTASK SCORES line ends in 24 blanks, kept out of this source file)."""

TALLIES = ("pos", "act", "cor", "par", "inc", "mis", "spu", "non")


def sample_result():  # type: ignore[no-untyped-def]
    return score_muc_named_entity(
        sample_path("muc", "ne.key.sgml"),
        sample_path("muc", "ne.response.sgml"),
        NamedEntityOptions(config=sample_path("muc", "ne.config")),
    )


def row(counts: Counts, prefix: str) -> tuple[int, ...]:
    return tuple(int(counts[prefix + name]) for name in TALLIES)


def test_sample_tallies_derived_by_hand() -> None:
    """ne.key.sgml / ne.response.sgml, two MUC-6 documents (HL, DD, TXT; nested ENAMEX;
    ALT and STATUS=OPT).  Document 1: Acme (HL) cor/cor; Jane Doe (HL) tagged ORGANIZATION:
    type inc, text cor; the DD date cor/cor; Acme Widget Corp., Springfield cor/cor; "Jane"
    for "Jane Doe": type cor, text inc; John Roe missed; "March" matches ALT of "in March"
    (main alternative NON); $4.5 million cor/cor; "up 12%" for "12%": type cor, text inc;
    fiscal 1992 cor/cor (ALT NON); optional "Acme" untagged: NON (and its STATUS fill NON);
    "New York" LOCATION inside "New York Stock Exchange" ORGANIZATION agrees in nothing, so it
    does not align: key MIS/MIS, response SPU/SPU; "The company" SPU/SPU.  Document 2: the DD
    date missed; "yesterday" DATE inside "yesterday afternoon" TIME agrees in nothing: MIS and
    SPU; the nested Springfield / Springfield Savings Bank, Shelbyville Trust, $20 million and
    Mary Major cor/cor.
    """
    result = sample_result()
    c = result.counts
    assert row(c, "") == (38, 36, 27, 0, 3, 8, 6, 5)
    assert row(c, "obj:enamex:") == (11, 11, 9, 0, 0, 2, 2, 1)
    assert row(c, "slot:enamex:type:") == (11, 11, 8, 0, 1, 2, 2, 1)
    assert row(c, "slot:enamex:text:") == (11, 11, 8, 0, 1, 2, 2, 1)
    assert row(c, "slot:enamex:status:") == (0, 0, 0, 0, 0, 0, 0, 1)
    assert row(c, "slot:timex:text:") == (5, 4, 3, 0, 0, 2, 1, 2)
    assert row(c, "slot:numex:text:") == (3, 3, 2, 0, 1, 0, 0, 0)
    assert row(c, "subtask:enamex:type:organization:") == (5, 5, 4, 0, 0, 1, 1, 1)
    assert row(c, "subtask:enamex:type:person:") == (4, 3, 2, 0, 1, 1, 0, 0)
    assert row(c, "subtask:enamex:type:location:") == (2, 3, 2, 0, 0, 0, 1, 0)
    assert row(c, "subtask:timex:type:date:") == (4, 4, 3, 0, 0, 1, 1, 0)
    assert row(c, "subtask:timex:type:time:") == (1, 0, 0, 0, 0, 1, 0, 0)
    assert row(c, "section:Header:") == (8, 6, 5, 0, 1, 2, 0, 0)
    assert row(c, "section:Body:") == (30, 30, 22, 0, 2, 6, 6, 5)
    docs = result.document_counts()
    assert row(docs["9301010001"], "") == (24, 24, 17, 0, 3, 4, 4, 5)
    assert row(docs["9301010002"], "") == (14, 12, 10, 0, 0, 4, 2, 0)
    assert round(100 * result.scores["f_pr"], 2) == 72.97
    assert result.warnings == ()


def manual_counts() -> Counts:
    """The tallies printed on the manual's page, under annoscore's count names."""
    values: dict[str, int] = {}
    part = cls = ""
    for line in MANUAL_PAGE.splitlines():
        label = line[:12].strip()
        if "SCORES" in line[:24]:
            part = line.split()[0]
            continue
        numbers = line[12:].replace("|", " ").split()
        if len(numbers) < 8 or not numbers[0].isdigit():
            if line[:1].isalpha() and "|" in line:
                cls = label
            continue
        if label == "ALL SLOTS":
            prefix = ""
        elif part == "SUBTASK":
            value = {"organizatio": "organization"}.get(label, label)
            prefix = f"subtask:{cls}:type:{value}:"
        elif part == "SECT":
            prefix = f"section:{label}:"
        elif part == "OBJ":
            prefix = f"obj:{label}:"
        else:
            prefix = f"slot:{cls}:{label}:"
        for name, number in zip(TALLIES, numbers[:8], strict=True):
            values[prefix + name] = int(number)
    return Counts(values)


def test_manual_named_entity_page_is_rebuilt_from_its_counts(tmp_path: Path) -> None:
    """Every percentage and F-measure on the manual's page follows from its tallies with the
    report's rounding, and the layout is the manual's, line for line (undefined rows print 0
    there, hence ``undefined="0"``)."""
    config_path = tmp_path / "ne.config"
    config_path.write_text(
        ':scoring_task named_entity\n:doc_section_groups "Header HL DD" "Body TXT"\n'
    )
    config = load_config(config_path)
    from annoscore.tasks.muc_sgml import section_groups, subtasks_of

    details = MucDetails(
        config,
        [],
        section_rows=tuple(section_groups(config)),
        subtasks=subtasks_of(config),
    )
    counts = manual_counts()
    assert counts["pos"] == 2260 and counts["subtask:numex:type:percent:act"] == 25
    assert "\n".join(score_page(details, counts, undefined="0")) == MANUAL_PAGE


MANUAL_SUMMARY_LINES = [
    'ENAMEX     cor  cor  PERSON       PERSON       "Consuela Washington"          '
    '                   "Consuela Washington"',
    'TIMEX      cor  cor  DATE         DATE         "01/19/93"                     '
    '                   "01/19/93"',
    'ENAMEX     mis  mis  PERSON                    "Washington"                   '
    '                   ""',
    'ENAMEX     spu  spu               ORGANIZATION ""                             '
    '                   "Exchange"',
    'ENAMEX     spu  spu               ORGANIZATION ""                             '
    '                   "Old Executive Office"',
]


def test_manual_named_entity_summary_lines_are_reproduced(tmp_path: Path) -> None:
    """Five lines of the manual's NE report summary, from key and response files written to
    give them (the manual's two ``cor inc`` lines pair tags at different places, which the
    overlap rule does not allow)."""
    key = (
        '<DOC>\n<DOCNO> 930620083 </DOCNO>\n<DD> <TIMEX TYPE="DATE">01/19/93</TIMEX> </DD>\n'
        '<TEXT>\n<ENAMEX TYPE="PERSON">Consuela Washington</ENAMEX>, an Exchange ally, '
        'met <ENAMEX TYPE="PERSON">Washington</ENAMEX> staff at the Old Executive Office.'
        "\n</TEXT>\n</DOC>\n"
    )
    response = (
        '<DOC>\n<DOCNO> 930620083 </DOCNO>\n<DD> <TIMEX TYPE="DATE">01/19/93</TIMEX> </DD>\n'
        '<TEXT>\n<ENAMEX TYPE="PERSON">Consuela Washington</ENAMEX>, an '
        '<ENAMEX TYPE="ORGANIZATION">Exchange</ENAMEX> ally, met Washington staff at the '
        '<ENAMEX TYPE="ORGANIZATION">Old Executive Office</ENAMEX>.\n</TEXT>\n</DOC>\n'
    )
    (tmp_path / "key.sgml").write_text(key)
    (tmp_path / "rsp.sgml").write_text(response)
    result = score_muc_named_entity(tmp_path / "key.sgml", tmp_path / "rsp.sgml")
    lines = report_summary(result).splitlines()
    assert lines[:4] == [
        "-" * 105,
        "Document 930620083",
        "TAG        TYPE TEXT KEY_TYPE     RSP_TYPE     KEY_TEXT"
        "                                          RSP_TEXT",
        "-" * 105,
    ]
    assert lines[4:] == MANUAL_SUMMARY_LINES


def ne_files(tmp_path: Path, key_body: str, response_body: str) -> tuple[Path, Path]:
    template = "<DOC>\n<DOCNO> 1 </DOCNO>\n<TEXT>\n{}\n</TEXT>\n</DOC>\n"
    (tmp_path / "k.sgml").write_text(template.format(key_body))
    (tmp_path / "r.sgml").write_text(template.format(response_body))
    return tmp_path / "k.sgml", tmp_path / "r.sgml"


def test_touching_spans_do_not_overlap_and_a_partial_overlap_aligns(tmp_path: Path) -> None:
    key, rsp = ne_files(
        tmp_path,
        '<ENAMEX TYPE="PERSON">Ann</ENAMEX><ENAMEX TYPE="PERSON">Lee</ENAMEX> and '
        '<ENAMEX TYPE="PERSON">Bo Diddley</ENAMEX>',
        'Ann<ENAMEX TYPE="PERSON">Lee</ENAMEX> and <ENAMEX TYPE="PERSON">Bo</ENAMEX> Diddley',
    )
    counts = score_muc_named_entity(key, rsp).counts
    # Lee cor/cor; Ann (touching Lee) MIS/MIS; "Bo" inside "Bo Diddley": type cor, text inc
    assert row(counts, "slot:enamex:type:") == (3, 2, 2, 0, 0, 1, 0, 0)
    assert row(counts, "slot:enamex:text:") == (3, 2, 1, 0, 1, 1, 0, 0)


def test_text_differences_warn_or_fail_with_strict_text(tmp_path: Path) -> None:
    key, rsp = ne_files(
        tmp_path,
        'A <ENAMEX TYPE="PERSON">Lee</ENAMEX> spoke.',
        'An <ENAMEX TYPE="PERSON">Lee</ENAMEX> spoke.',
    )
    result = score_muc_named_entity(key, rsp)
    (warning,) = texts(result)
    assert "1 document(s) whose response text differs" in warning
    assert "document 1 at offset 28" in warning
    # scored on each side's own offsets: Lee is at 29-32 in the key, 30-33 in the response;
    # the spans still overlap, so the tags align
    assert row(result.counts, "") == (2, 2, 2, 0, 0, 0, 0, 0)
    with pytest.raises(InputError, match=r"r.sgml:1: document 1: the text differs .* offset 28"):
        score_muc_named_entity(key, rsp, NamedEntityOptions(strict_text=True))


def test_documents_on_one_side_and_tags_outside_sections(tmp_path: Path) -> None:
    (tmp_path / "k.sgml").write_text(
        '<DOC><DOCNO>1</DOCNO><TEXT><ENAMEX TYPE="PERSON">A</ENAMEX></TEXT></DOC>\n'
        '<DOC><DOCNO>2</DOCNO><SLUG><ENAMEX TYPE="PERSON">B</ENAMEX></SLUG></DOC>\n'
    )
    (tmp_path / "r.sgml").write_text(
        '<DOC><DOCNO>3</DOCNO><TEXT><ENAMEX TYPE="PERSON">C</ENAMEX></TEXT></DOC>\n'
    )
    (tmp_path / "ne.config").write_text(":scoring_task named_entity\n:doc_sections TEXT\n")
    result = score_muc_named_entity(
        tmp_path / "k.sgml", tmp_path / "r.sgml", NamedEntityOptions(config=tmp_path / "ne.config")
    )
    assert row(result.counts, "") == (2, 2, 0, 0, 0, 2, 2, 0)
    joined = " ".join(texts(result))
    assert "outside every :doc_sections section" in joined
    assert "key document" in joined and "response document" in joined


def test_score_report_has_document_pages_and_the_named_entity_parts() -> None:
    report = score_report(sample_result())
    pages = report.split("\f\n")
    assert [p.splitlines()[0] for p in pages] == [
        "Document 9301010001",
        "Document 9301010002",
        "TOTAL SCORES (2 documents)",
    ]
    assert "SUBTASK SCORES" in pages[0] and "SECT SCORES" in pages[2]
    assert (
        "Header           8     6|   5   0    1|   2    0    0|  63  83  25   0  17  38"
        in (pages[2])
    )


def test_subtask_names_must_have_three_tokens(tmp_path: Path) -> None:
    config = tmp_path / "ne.config"
    config.write_text(':scoring_task named_entity\n:ne_subtask_names "enamex type"\n')
    key, rsp = ne_files(tmp_path, "x", "x")
    with pytest.raises(InputError, match="needs 3 tokens"):
        score_muc_named_entity(key, rsp, NamedEntityOptions(config=config))


def test_map_history_has_offsets_and_sections_in_both_forms() -> None:
    from annoscore.report.muc_history import map_history, map_history_tcl
    from tests.oracles.tcl import to_tcl

    result = sample_result()
    history = map_history(result.details)
    assert "{\n" + "".join(to_tcl(doc) + "\n" for doc in history) + "}\n" == map_history_tcl(
        result.details
    )
    first = history[0]["class_pairs"][0]["obj_pairs"][0]
    assert first["key_obj_id"] == "ENAMEX-9301010001-1"
    assert first["doc_section"] == "HL"
    assert first["key_obj_end_offset"] - first["key_obj_start_offset"] == len("Acme Widget Corp.")
