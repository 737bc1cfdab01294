"""A chunk's document names sent as one string (:class:`annoscore.result.Names`): the same
sequence as the names, pickled as one object, joined by the reduce without making a string per
document, made into strings only when one is read.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies
the number of random cases (default 40)."""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.result import Names
from annoscore.scale.reduce import stack
from tests.equivalence.ids import id_pool

CASES = max(1, int(40 * float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))))


@pytest.mark.parametrize("seed", range(CASES))
def test_names_are_the_names(seed: int) -> None:
    rng = random.Random(seed)
    pool = [*id_pool(rng, 30), "", "\udcff", "é"]
    parts = [[rng.choice(pool) for _ in range(rng.randrange(4))] for _ in range(rng.randrange(5))]
    sent = [Names(chr(10).join(p), len(p)) for p in parts]
    for names, part in zip(sent, parts, strict=True):
        assert Names.of(part) == names and isinstance(Names.of(part), Names)
        back = pickle.loads(pickle.dumps(names, pickle.HIGHEST_PROTOCOL))
        assert isinstance(back, Names) and back._items is None  # one string: nothing made
        assert len(back) == len(part) and back == tuple(part) and list(back) == part
        assert [back[k] for k in range(-len(part), len(part))] == part + part
    joined = Names.joined(sent)
    every = tuple(name for part in parts for name in part)
    assert joined._text is None  # joined when read, not before
    assert len(joined) == len(every) and joined == every and hash(joined) == hash(every)
    # joined again (of joined names, read or not): the text of the names one after the other
    fresh = Names.joined(sent)
    twice = Names.joined([fresh, joined, *sent[:1]])
    assert twice.text == chr(10).join([*every, *every, *parts[0]] if parts else [])
    assert twice == Names.of([*every, *every, *(parts[0] if parts else [])])
    assert pickle.loads(pickle.dumps(fresh)) == every and fresh.text == joined.text


def test_a_name_with_a_newline_is_kept_as_it_is() -> None:
    names = ("a", "b\nc")
    assert Names.of(names) is names


def test_stack_joins_names_and_keeps_others() -> None:
    import numpy as np

    from annoscore.result import CountMatrix

    def matrix(documents: tuple[str, ...] | Names) -> CountMatrix:
        return CountMatrix(documents, ("tp",), np.ones((len(documents), 1)), (True,))

    names = stack([matrix(Names("a\nb", 2)), matrix(Names("c", 1))]).documents
    assert isinstance(names, Names) and names._items is None and names == ("a", "b", "c")
    mixed = stack([matrix(Names("a\nb", 2)), matrix(("c",))]).documents
    assert mixed == ("a", "b", "c") and isinstance(mixed, tuple)


def test_a_cut_run_makes_no_string_per_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CodiEsp D cut in chunks, documents not shown: the whole's names and gold documents stay
    one string; shown, they are the names of one run."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 200)
    gold, pred, codes = tmp_path / "g.tsv", tmp_path / "p.tsv", tmp_path / "codes.tsv"
    codes.write_text("a\nb\nc\n", encoding="utf-8")
    gold.write_text("".join(f"S{d}\ta\nS{d}\tb\n" for d in range(60)), encoding="utf-8")
    pred.write_text("".join(f"S{d}\tc\nS{d}\ta\n" for d in range(60)), encoding="utf-8")
    one = annoscore.score("codiesp-d", gold, pred, codes=codes)
    cut = annoscore.score("codiesp-d", gold, pred, codes=codes, jobs=2)
    for names in (cut.matrix.documents, cut.details.gold_documents):  # type: ignore[union-attr]
        assert isinstance(names, Names) and names._items is None
    assert cut.matrix.documents == tuple(one.matrix.documents)
    assert cut.details == one.details
    shown = dict(cut.shown(documents=True).to_dict())
    assert shown == dict(one.shown(documents=True).to_dict())


@pytest.mark.parametrize("extra", [False, True])
def test_a_chunk_sends_its_names_once_when_every_document_is_a_gold_one(
    tmp_path: Path, extra: bool
) -> None:
    """CodiEsp D's gold documents are the matrix's names when every document of a chunk is a
    gold one: one object in the chunk's pickle (its text once); with a predicted document the
    gold lacks, two lists, each its own; the same names as one run's either way."""
    from annoscore.scale.chunks import LineChunk
    from annoscore.tasks.codiesp import RankedOptions, score_codiesp_d

    gold, pred, codes = tmp_path / "g.tsv", tmp_path / "p.tsv", tmp_path / "codes.tsv"
    codes.write_text("a\nb\nc\n", encoding="utf-8")
    gold.write_text("".join(f"S{d}\ta\n" for d in range(50)), encoding="utf-8")
    pred.write_text("".join(f"S{d}\tc\n" for d in range(50 + extra)), encoding="utf-8")
    options = RankedOptions(codes=codes)
    chunk = LineChunk(str(gold), str(pred), (0, gold.stat().st_size), (0, pred.stat().st_size))
    data = pickle.dumps(scale.score_line_chunk("codiesp-d", chunk, options), 5)
    back = pickle.loads(data).result
    one = score_codiesp_d(gold, pred, options)
    gold_documents = back.details.gold_documents
    assert (gold_documents is back.matrix.documents) is not extra
    # the names (once, or the gold's and every document's), and the ids the readers saw (one
    # object for the two sides when they saw the same, Seen)
    assert data.count(b"S17\nS18") == (4 if extra else 2)
    assert tuple(back.matrix.documents) == tuple(one.matrix.documents)
    assert tuple(gold_documents) == tuple(one.details.gold_documents)  # type: ignore[union-attr]
    assert len(gold_documents) == 50 and len(back.matrix.documents) == 50 + extra
