"""MUC tallies: the manual's score report pages reproduced row by row from their tallies.

Every row of the manual's scenario-template and named-entity score pages is rebuilt from its
POS..NON counts with the tally formulas and the report's column layout; the manual prints an
undefined percentage as 0, so these rows are rendered with ``undefined="0"``.
"""

from __future__ import annotations

import pytest

from annoscore.align.muc_records import (
    ClassAlignment,
    DocumentAlignment,
    FillPair,
    ObjectPair,
    SlotPair,
)
from annoscore.counts import Counts
from annoscore.formats.muc_config import ClassDef, SlotDef
from annoscore.metrics.muc import document_counts
from annoscore.metrics.tallies import Tally
from annoscore.report.muc import f_measure_lines, score_row

MANUAL_ROWS = [
    "TEXT FILTERI   100   100|  86   0   14|   0    0    0|  86  86   0   0  14  14",
    "template         0     0|   0   0    0|   0    0  100|   0   0   0   0   0   0",
    "succession_e   195   197| 131   0    6|  58   60   13|  67  66  30  30   4  49",
    "in_and_out     256   310| 164   0    6|  86  140   20|  64  53  34  45   4  59",
    "organization   110    72|  51   0    1|  58   20   10|  46  71  53  28   2  61",
    "person         130   138|  90   0    5|  35   43    7|  69  65  27  31   5  48",
    " doc-nr          0     0|   0   0    0|   0    0  100|   0   0   0   0   0   0",
    " content       195   197| 131   0    6|  58   60   51|  67  66  30  30   4  49",
    " comment         0     0|   0   0    0|   0    0   15|   0   0   0   0   0   0",
    " success_org   193   128|  69   0   26|  98   33   15|  36  54  51  26  27  69",
    " post          195   170|  65   0   51|  79   54   35|  33  38  41  32  44  74",
    " in_and_out    251   191|  55   0   25| 171  111   26|  22  29  68  58  31  85",
    " vac_reason    195   197|  63   0   74|  58   60   36|  32  32  30  30  54  75",
    " comment         0     0|   0   0    0|   0    0  273|   0   0   0   0   0   0",
    " io_person     254   304| 126   0   39|  89  139   22|  50  41  35  46  24  68",
    " new_status    256   304| 138   0   32|  86  134   20|  54  45  34  44  19  65",
    " on_the_job    256   310| 107   0   63|  86  140   73|  42  35  34  45  37  73",
    " other_org     168     5|   3   0    2| 163    0   47|   2  60  97   0  40  98",
    " rel_oth_org   172     5|   3   0    2| 167    0   34|   2  60  97   0  40  98",
    " comment         0     0|   0   0    0|   0    0  399|   0   0   0   0   0   0",
    " name          108    69|  28   0   21|  59   20   10|  26  41  55  29  43  78",
    " alias          65    42|  12   0    4|  49   26   16|  18  29  75  62  25  87",
    " descriptor     64     2|   0   0    2|  62    0   50|   0   0  97   0 100 100",
    " type          110    69|  50   0    1|  59   18   12|  45  72  54  26   2  61",
    " locale         41     7|   4   0    3|  34    0    8|  10  57  83   0  43  90",
    " country        41     7|   6   0    1|  34    0    5|  15  86  83   0  14  85",
    " comment         0     0|   0   0    0|   0    0   15|   0   0   0   0   0   0",
    " name          130   138|  82   0   13|  35   43    7|  63  59  27  31  14  53",
    " alias          83    79|  56   0    3|  24   20    5|  67  71  29  25   5  46",
    " title          79    78|  60   0    0|  19   18    5|  76  77  24  23   0  38",
    " comment         0     0|   0   0    0|   0    0    1|   0   0   0   0   0   0",
    "ALL SLOTS     2856  2307|1058   0  368|1430  881 1280|  37  46  50  38  26  72",
    " organizatio   443   444| 405   0   18|  20   21   18|  91  91   5   5   4  13",
    " person        373   371| 364   0    2|   7    5    0|  98  98   2   1   1   4",
    " location      110   122| 109   0    0|   1   13    3|  99  89   1  11   0  11",
    " other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " date          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8",
    " time            0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " money          76    76|  73   0    0|   3    3    0|  96  96   4   4   0   8",
    " percent        17    25|  17   0    0|   0    8    0| 100  68   0  32   0  32",
    " other           0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    "Header         244   256| 233   0    9|   2   14    8|  95  91   1   5   4  10",
    "Body          2016  2044|1906   0   42|  68   96   95|  95  93   3   5   2  10",
    "enamex         926   937| 898   0    0|  28   39   21|  97  96   3   4   0   7",
    "timex          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8",
    "numex           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13",
    " type          926   937| 878   0   20|  28   39   21|  95  94   3   4   2   9",
    " text          926   937| 876   0   22|  28   39   21|  95  93   3   4   2   9",
    " status          0     0|   0   0    0|   0    0   38|   0   0   0   0   0   0",
    " alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " type          111   112| 107   0    0|   4    5    6|  96  96   4   4   0   8",
    " text          111   112|  98   0    9|   4    5   11|  88  88   4   4   8  16",
    " status          0     0|   0   0    0|   0    0    6|   0   0   0   0   0   0",
    " alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " type           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13",
    " text           93   101|  90   0    0|   3   11    0|  97  89   3  11   0  13",
    " status          0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    " alt             0     0|   0   0    0|   0    0    0|   0   0   0   0   0   0",
    "ALL SLOTS     2260  2300|2139   0   51|  70  110  103|  95  93   3   5   2  10",
]


def _tally(row: str) -> Tally:
    counted = row[12:].split("|")[:3]
    numbers = [int(n) for n in " ".join(counted).split()]
    pos, act, cor, par, inc, mis, spu, non = numbers
    tally = Tally(cor, par, inc, mis, spu, non)
    assert (tally.pos, tally.act) == (pos, act), "POS/ACT must follow from the tallies"
    return tally


@pytest.mark.parametrize("row", MANUAL_ROWS)
def test_manual_score_rows_reproduced_from_their_tallies(row: str) -> None:
    assert score_row(row[:12].rstrip(), _tally(row), undefined="0") == row


def test_undefined_percentages_print_a_star_by_default() -> None:
    row = score_row(" doc-nr", Tally(non=100))
    assert row == " doc-nr          0     0|   0   0    0|   0    0  100|   *   *   *   *   *   *"


def test_manual_f_measures_scenario_template_and_named_entity() -> None:
    st_all = Tally(cor=1058, inc=368, mis=1430, spu=881, non=1280)
    assert f_measure_lines(st_all) == [
        "                                                    P&R      2P&R      P&2R",
        "F-MEASURES                                        40.98     43.78     38.53",
    ]
    ne_all = Tally(cor=2139, inc=51, mis=70, spu=110, non=103)
    assert f_measure_lines(ne_all)[1] == (
        "F-MEASURES                                        93.82     93.32     94.31"
    )


def test_f_measures_not_available_when_recall_or_precision_is_undefined() -> None:
    assert f_measure_lines(Tally(mis=3)) == [
        "F-MEASURES not available - Recall or Precision invalid."
    ]


def _slot(status_list: list[str], slot_non: int = 0) -> SlotPair:
    definition = SlotDef("c", "s", "s", True, 1.0, "set")
    return SlotPair(definition, None, None, [FillPair(s) for s in status_list], slot_non)


def test_document_counts_slot_rows_add_up_to_all_slots_and_rem_counts_nothing() -> None:
    cdef = ClassDef("C", "c", True, 0.0)
    pairs = [
        ObjectPair("cor", None, None, [_slot(["cor", "inc", "rem", "uns", "opt"], slot_non=1)]),
        ObjectPair("mis", None, None, [_slot(["mis", "non"])]),
        ObjectPair("spu", None, None, [_slot(["spu"])]),
    ]
    counts = document_counts(DocumentAlignment("1", [ClassAlignment(cdef, pairs)], "inc"))
    assert Tally.from_counts(counts) == Tally(cor=1, inc=1, mis=1, spu=1, non=3)
    assert Tally.from_counts(counts, "slot:c:s:") == Tally.from_counts(counts)
    assert counts["slot:c:s:rem"] == 1
    assert Tally.from_counts(counts, "obj:c:") == Tally(cor=1, mis=1, spu=1)
    assert Tally.from_counts(counts, "text_filter:") == Tally(inc=1)
    assert (counts + counts)["cor"] == 2 and isinstance(counts, Counts)


def test_muc_coreference_scores_blanc_alone_by_its_own_recall_precision_and_f() -> None:
    from annoscore.metrics.coref import coref_counts
    from annoscore.metrics.muc_coref import coreference_scores

    # key links 1-2 1-3 1-4 2-3 2-4 3-4; response's 1-2 4-5: coref R 1/6, P 1/2, no non-links
    counts = coref_counts([{1, 2, 3, 4}], [{1, 2}, {3}, {4, 5}], ["blanc"])
    scores = coreference_scores(counts)
    assert scores["recall"] == pytest.approx(1 / 6) and scores["precision"] == 0.5
    assert scores["f_pr"] == pytest.approx(0.25) and scores["f1"] == scores["blanc_f1"]
    assert scores["f_2pr"] == pytest.approx(1.25 * 0.5 / 6 / (0.25 * 0.5 + 1 / 6))
    assert (scores["blanc_recall"], scores["blanc_precision"]) == (
        scores["recall"],
        scores["precision"],
    )


def test_muc_coreference_metric_names_skip_empty_pieces_and_name_what_is_wrong() -> None:
    from annoscore.errors import InputError
    from annoscore.metrics.muc_coref import parse_metrics

    assert parse_metrics("muc,,LEA,") == ("muc", "lea")
    every = "mentions, muc, bcub, ceafm, ceafe, blanc, lea"
    with pytest.raises(InputError) as caught:
        parse_metrics("muc, nope")
    assert str(caught.value) == f"--metric ' nope': expected some of {every} or all"
    with pytest.raises(InputError) as caught:
        parse_metrics(" , ")
    assert str(caught.value) == f"--metric: name at least one of {every}"
