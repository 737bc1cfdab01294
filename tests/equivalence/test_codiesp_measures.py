"""CodiEsp D/P's other ranked measures (``--measure``) on random adversarial files: equal to
``annoscore trec -m`` on the same ranked lists written as qrels and run files, and to the plain
per-query reference of ``tests/oracles/trec_measures.py``.

The ranked lists are the plain CodiEsp reference's (``tests/oracles/codiesp.py``,
:func:`ranked_lists`): each document's valid codes in MAP's rank order (file order, or by code
with ``--tie-order code``), the first of repeated codes kept, invalid codes dropped before
ranking, the first ``depth`` kept, the document ids as the MAP script reads them; relevant (and
the only ones judged) its gold codes.  Written out, a document counted in MAP is a query (one
without gold codes judged on one document it never retrieves, with relevance 0, so that trec
keeps it with no relevant document); scores strictly descending; ``-c`` for the documents
counted without a prediction (``--missing-docs zero``).  The files come from the generator of
``test_codiesp.py`` (every option drawn at random) and the measures from a list that holds
every family, cut-offs and parameters included.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.metrics.trec_measures import MeasureSet
from annoscore.tasks.codiesp import RankedOptions, score_codiesp_d, score_codiesp_p
from annoscore.tasks.trec import TrecOptions, score_trec
from tests.equivalence.test_codiesp import ranked_case, ranked_options
from tests.oracles import codiesp as oracle
from tests.oracles.trec_measures import per_query

SCALE = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(300 * SCALE))
BATCH = 50
CHOICES = (
    ("all_trec",),
    ("official",),
    ("P.1,2,3", "recip_rank", "ndcg_cut.1,3,10"),
    ("map", "bpref", "infAP", "Rprec", "gm_bpref", "num_nonrel_judged_ret"),
    ("ndcg.1=3", "Rndcg", "ndcg_rel", "G", "binG"),
    ("utility.1,-2,0.5,0", "rbp.0.5", "unj.1,2", "set_F.0.5", "success.1,2"),
    ("iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,1.5", "map_cut.2", "relative_P.3"),
)


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def trec_files(folder: Path, lists: dict[str, oracle.Ranked]) -> tuple[dict[str, str], bool]:
    """qrels.txt and run.txt of the counted documents' lists (see the module doc); each
    document's query id, and whether some query has no retrieved code."""
    codes: dict[str, str] = {}

    def token(code: str) -> str:
        return codes.setdefault(code, f"c{len(codes)}")

    queries: dict[str, str] = {}
    qrels, run = [], []
    empty = False
    for doc, ranked in lists.items():
        if not ranked.counted:
            continue
        q = queries[doc] = f"q{len(queries)}"
        qrels += [f"{q} 0 {token(c)} 1" for c in sorted(ranked.relevant)]
        if not ranked.relevant:
            qrels.append(f"{q} 0 never-retrieved 0")
        n = len(ranked.codes)
        run += [f"{q} Q0 {token(c)} {k} {n - k} r" for k, c in enumerate(ranked.codes)]
        empty |= not ranked.codes
    (folder / "qrels.txt").write_text("".join(line + "\n" for line in qrels))
    (folder / "run.txt").write_text("".join(line + "\n" for line in run))
    return queries, empty


def check(
    folder: Path, settings: oracle.RankedSettings, chosen: tuple[str, ...], case: str
) -> None:
    gold, pred, codes = folder / "gold.tsv", folder / "pred.tsv", folder / "codes.tsv"
    options = ranked_options(codes, settings, chosen)
    result = score_codiesp_d(gold, pred, options)
    measures = MeasureSet.parse(chosen)
    outputs = [o for o in measures.outputs() if o.kind not in ("runid", "num_q", "relstring")]
    # the reference computes the measures with trec_eval's default parameters
    defaults = {m.name for m in measures.measures if m.text == m.name}
    lists, first = oracle.ranked_lists(gold, pred, codes, settings)
    queries, empty = trec_files(folder, lists)
    documents = result.documents
    # where one file's ids read as numbers and the other's do not, two documents of MAP can
    # share the text document that holds their numbers (the sums of both): compared in the
    # corpus only
    holders = [first[doc] for doc, ranked in lists.items() if ranked.counted]
    shared = {name for name in holders if holders.count(name) > 1}
    # the plain reference, one document at a time
    for doc, ranked in lists.items():
        if not ranked.counted or first[doc] in shared:
            continue
        ranking = [1 if c in ranked.relevant else None for c in ranked.codes]
        want = per_query(ranking, [1] * len(ranked.relevant))
        unit = documents[first[doc]]
        for o in outputs:
            if o.measure not in defaults:  # parameters of its own: trec checks it
                continue
            got = unit.counts[o.column] if o.kind in ("count", "geo") else unit.scores[o.name]
            expected = want[o.name]
            assert isinstance(expected, float | int)
            assert close(float(got), float(expected)), (case, doc, o.name, got, expected)
    if not queries:  # no document in MAP: every measure undefined, as MAP
        assert result.scores["map"] is None, case
        assert all(result.scores[o.name] is None for o in outputs if o.kind != "count"), case
        return
    if not (folder / "run.txt").stat().st_size:  # nothing retrieved: trec refuses the run
        return
    trec = score_trec(
        folder / "qrels.txt", folder / "run.txt", TrecOptions(measures=chosen, complete=empty)
    )
    assert result.counts["queries"] == trec.counts["num_q"], case
    for o in outputs:
        if o.kind == "count":
            assert result.counts[o.column] == trec.counts[o.column], (case, o.name)
        else:
            got, want = result.scores[o.name], trec.scores[o.name]
            assert close(got, want), (case, o.name, got, want)
    for doc, q in queries.items():
        if first[doc] in shared:
            continue
        unit, other = documents[first[doc]], trec.documents[q]
        for o in outputs:
            if o.kind == "count":
                assert unit.counts[o.column] == other.counts[o.column], (case, doc, o.name)
            else:
                got, want = unit.scores[o.name], other.scores[o.name]
                assert close(got, want), (case, doc, o.name, got, want)
    # documents left out of MAP have no value, as MAP
    placed = {first[doc] for doc in queries}
    for name, unit in documents.items():
        if name not in placed:
            assert unit.counts["queries"] == 0, (case, name)
            assert all(unit.scores[o.name] is None for o in outputs if o.kind != "count")


@pytest.mark.parametrize("batch", range(max(1, CASES // BATCH)))
def test_measures_equal_trec_and_the_reference(batch: int, tmp_path: Path) -> None:
    for k in range(BATCH):
        seed = 7000 + 1000 * batch + k
        rng = random.Random(seed)
        folder = tmp_path / str(k)
        folder.mkdir()
        settings = ranked_case(rng, folder, "small")
        chosen = rng.choice(CHOICES)
        check(folder, settings, chosen, f"seed {seed} {chosen} {settings}")


def test_without_measures_the_output_is_the_official_one(tmp_path: Path) -> None:
    """No ``--measure``: the signature, scores and counts are those of the official rules;
    with one, the same plus the measure (and the signature names it)."""
    rng = random.Random(5)
    ranked_case(rng, tmp_path, "small")
    gold, pred, codes = tmp_path / "gold.tsv", tmp_path / "pred.tsv", tmp_path / "codes.tsv"
    plain = score_codiesp_p(gold, pred, RankedOptions(codes=codes))
    more = score_codiesp_p(gold, pred, RankedOptions(codes=codes, measures=("P.5", "ndcg")))
    assert "measures" not in str(plain.signature)
    assert str(more.signature) == str(plain.signature) + "|measures:P.5,ndcg"
    assert list(plain.scores) == ["map", "precision", "recall", "f1"]
    assert list(more.scores) == ["map", "P_5", "ndcg", "precision", "recall", "f1"]
    assert {k: more.scores[k] for k in plain.scores} == plain.scores
    assert {k: more.counts[k] for k in plain.counts} == dict(plain.counts)


def test_a_bad_measure_is_named_with_the_option(tmp_path: Path) -> None:
    rng = random.Random(6)
    ranked_case(rng, tmp_path, "small")
    options = RankedOptions(codes=tmp_path / "codes.tsv", measures=("P.x",))
    with pytest.raises(InputError, match=r"^--measure P\.x: expected comma-separated whole"):
        score_codiesp_d(tmp_path / "gold.tsv", tmp_path / "pred.tsv", options)
