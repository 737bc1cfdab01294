"""CodiEsp D/P: the gold and predicted code rows of a corpus on one index of documents and codes.

The reader gives each file's rows with the codes as written (:mod:`annoscore.formats.codiesp`);
:func:`align_ranked` lower-cases them (or not), puts both sides on one code vocabulary (the gold
codes, then the valid codes the gold lacks; a predicted code outside it is -1) and one list of
documents (every gold document, then the predicted ones the gold lacks), and marks which codes
are valid.  Rows read from the seed of the valid codes
(:class:`~annoscore.formats.codiesp_scan.CodeSeed`) take a vocabulary of the same codes in another
order (the valid codes, then the gold's others), made with work per code outside the valid
list only.  Both settings of ``--lowercase`` come from the same rows, read once.

Document ids are compared as text, as the F1 script compares them.  The MAP script's pandas
reads a file in which every id looks like an integer as numbers (``0001`` and ``1`` are one
document there): :func:`numeric_view` gives the rows as it sees them, and ``RankedView.numeric``
the corpus indexed that way (``None`` when no id changes).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annoscore.align.documents import pair_documents
from annoscore.code_lists import CodeRows
from annoscore.formats.codiesp import integer_ids, recode
from annoscore.formats.codiesp_scan import CodeSeed

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, IntArray


EXAMPLES = 5


@dataclass(slots=True)
class RankedCodes:
    """Gold and predicted code rows of a corpus, indexed for
    :func:`annoscore.metrics.ranked_codes.rank_codes`."""

    gold: CodeRows
    pred: CodeRows
    documents: list[str]
    """Gold documents, then predicted documents absent from the gold."""
    pred_global: IntArray
    """Global document index of each predicted document."""
    code_valid: BoolArray
    """Per vocabulary code: in the valid-code list."""
    invalid_gold_rows: int
    invalid_pred_rows: int
    invalid_pred_examples: list[str]


@dataclass(slots=True)
class RankedView:
    """The corpus under one setting of lower-casing: as the F1 script sees it (``data``, ids as
    text) and as the MAP script sees it (``numeric``, ``None`` when that changes no id)."""

    data: RankedCodes
    numeric: RankedCodes | None
    vocabulary: list[str]


def align_ranked(
    gold_written: CodeRows,
    pred_written: CodeRows,
    valid: frozenset[str],
    *,
    lowercase: bool,
    seed: CodeSeed | None = None,
) -> RankedView:
    """Gold and predictions (codes as written) on one index, codes lower-cased when
    ``lowercase``; ``valid`` holds the lower-cased valid codes.  Rows read from ``seed`` (the
    seed of ``valid``, both sides) are put on the vocabulary of the seed's codes and the gold's
    others (:func:`_seeded`): the work is then per code outside the valid list."""

    seeded = _seeded(gold_written, pred_written, valid, lowercase, seed)
    if seeded is not None:
        gold, pred, vocabulary, code_valid, examples = seeded
    else:
        gold, pred, vocabulary, code_valid, examples = _plain(
            gold_written, pred_written, valid, lowercase
        )
    data = _index(gold, pred, code_valid, examples)
    numeric = None
    gold_numbers, pred_numbers = numeric_view(gold), numeric_view(pred)
    if gold_numbers is not None or pred_numbers is not None:
        numeric = _index(gold_numbers or gold, pred_numbers or pred, code_valid, examples)
    return RankedView(data, numeric, vocabulary)


def _plain(
    gold_written: CodeRows, pred_written: CodeRows, valid: frozenset[str], lowercase: bool
) -> tuple[CodeRows, CodeRows, list[str], BoolArray, list[str]]:
    """Both sides recoded (:func:`~annoscore.formats.codiesp.recode`) on the vocabulary of
    the gold's codes, then the valid codes the gold lacks (sorted); which codes are valid; the
    first few distinct invalid predicted codes, in file order."""
    import numpy as np

    gold = recode(gold_written, lowercase=lowercase)
    known = set(gold.codes)
    # the valid codes the gold lacks, sorted: the sorted list made once per list of codes
    # (each chunk of a cut run has the same), filtered here (a sort per chunk cost more)
    vocabulary = [*gold.codes, *itertools.filterfalse(known.__contains__, _sorted_codes(valid))]
    code_valid = np.ones(len(vocabulary), dtype=bool)  # the codes after the gold's are valid
    code_valid[: len(gold.codes)] = np.fromiter(
        map(valid.__contains__, gold.codes), dtype=bool, count=len(gold.codes)
    )
    pred = recode(pred_written, lowercase=lowercase, vocabulary=vocabulary)
    # the first few distinct invalid predicted codes in file order (the written codes are in
    # order of first appearance, each on some row: none is invalid when no row's code is)
    examples: list[str] = []
    if not np.append(code_valid, False)[pred.code].all():  # code -1 (outside) reads False
        read = map(str.lower, pred_written.codes) if lowercase else iter(pred_written.codes)
        for code in itertools.filterfalse(valid.__contains__, read):
            if code not in examples:
                examples.append(code)
                if len(examples) == EXAMPLES:
                    break
    return gold, pred, vocabulary, code_valid, examples


def _seeded(
    gold_written: CodeRows,
    pred_written: CodeRows,
    valid: frozenset[str],
    lowercase: bool,
    seed: CodeSeed | None,
) -> tuple[CodeRows, CodeRows, list[str], BoolArray, list[str]] | None:
    """What :func:`_plain` gives, for rows whose codes both begin with the codes of ``seed``
    (every valid code, sorted, each its own lower-case:
    :class:`~annoscore.formats.codiesp_scan.CodeSeed`), on another vocabulary: the seed's codes,
    then the gold's other codes (lower-cased when ``lowercase``, distinct, in order of first
    appearance; none of them valid, as every valid code is the seed's).  Each side's code ids
    below the seed's size stay as they are: only the codes after them are looked up.  The
    numbers do not depend on the order of the vocabulary (only on which rows share a code).
    ``None`` when the rows do not begin so."""
    if seed is None or (seed.valid is not valid and seed.valid != valid):
        return None
    names = seed.names
    size = len(names)
    if gold_written.codes[:size] != names or pred_written.codes[:size] != names:
        return None
    import numpy as np

    vocabulary = list(names)
    others: dict[str, int] = {}  # a code after the seed's -> its id

    def place(code: str) -> int:
        at = seed.index.get(code)
        if at is None:
            at = others.get(code)
            if at is None:
                at = others[code] = len(vocabulary)
                vocabulary.append(code)
        return at

    gold = _recode_seeded(gold_written, size, lowercase, place)
    code_valid = np.zeros(len(vocabulary), dtype=bool)
    code_valid[:size] = True
    pred = _recode_seeded(
        pred_written, size, lowercase, lambda c: seed.index.get(c, others.get(c, -1))
    )
    gold = gold.replaced(codes=vocabulary)
    pred = pred.replaced(codes=vocabulary)
    # the first few distinct invalid predicted codes in file order: among the codes after the
    # seed's (in order of first appearance), those outside the valid list
    examples: list[str] = []
    after = pred_written.codes[size:]
    for code in map(str.lower, after) if lowercase else after:
        if code not in valid and code not in examples:
            examples.append(code)
            if len(examples) == EXAMPLES:
                break
    return gold, pred, vocabulary, code_valid, examples


def _recode_seeded(
    rows: CodeRows, size: int, lowercase: bool, place: Callable[[str], int]
) -> CodeRows:
    """``rows`` (codes as written, the first ``size`` the seed's) with each code after the
    seed's lower-cased when ``lowercase`` and given the id ``place`` gives it (-1: outside
    the vocabulary, counted in ``unknown``), as :func:`~annoscore.formats.codiesp.recode`
    counts: ``uppercase`` the rows whose code changed once lower-cased; ``codes`` is left to
    the caller."""
    import numpy as np

    written = rows.codes[size:]
    codes = [c.lower() for c in written] if lowercase else written
    remap = [place(c) for c in codes]
    code = rows.code
    if remap != list(range(size, size + len(remap))):
        code = np.concatenate([np.arange(size, dtype=np.int32), np.array(remap, np.int32)])[code]
    uppercase = unknown = 0
    upper = [size + k for k, (c, w) in enumerate(zip(codes, written, strict=True)) if c != w]
    missing = [k for k, r in enumerate(remap) if r < 0]
    if upper or missing:
        per_code = np.bincount(rows.code, minlength=len(rows.codes))
        uppercase = int(per_code[upper].sum())
        unknown = int(per_code[[size + k for k in missing]].sum())
    distinct = list(dict.fromkeys(codes[k] for k in missing))
    return rows.replaced(
        code=code,
        unknown=unknown,
        unknown_distinct=len(distinct),
        unknown_examples=tuple(distinct[:EXAMPLES]),
        uppercase=uppercase,
    )


@functools.lru_cache(maxsize=4)
def _sorted_codes(valid: frozenset[str]) -> list[str]:
    """``valid`` sorted (kept for the next chunks of a run: a frozenset's hash is computed
    once, and the same set is found by identity)."""
    return sorted(valid)


def _index(
    gold: CodeRows, pred: CodeRows, code_valid: BoolArray, examples: list[str]
) -> RankedCodes:
    import numpy as np

    # every gold document, then the predicted ones the gold lacks: MAP's --missing-docs and
    # --extra-docs rules then decide, per document, whether it counts (rank_codes)
    if pred.documents == gold.documents:  # every document on both sides, in one order
        documents = list(gold.documents)
        pred_global = np.arange(len(documents), dtype=np.int64)
    else:
        documents = list(pair_documents(gold.documents, pred.documents).scored)
        index = dict(zip(documents, range(len(documents)), strict=True))
        pred_global = np.fromiter(
            (index[doc] for doc in pred.documents), dtype=np.int64, count=len(pred.documents)
        )
    valid_or_not = np.append(code_valid, False)  # code -1 (not in the vocabulary) reads False
    invalid_pred_rows = len(pred) - int(np.count_nonzero(valid_or_not[pred.code]))
    return RankedCodes(
        gold=gold,
        pred=pred,
        documents=documents,
        pred_global=pred_global,
        code_valid=code_valid,
        invalid_gold_rows=int((~code_valid[gold.code]).sum()),
        invalid_pred_rows=invalid_pred_rows,
        invalid_pred_examples=examples,
    )


def numeric_view(rows: CodeRows) -> CodeRows | None:
    """The rows with their document ids read as pandas reads a numeric column (``0001`` is
    ``1``: :func:`annoscore.formats.codiesp.integer_ids`), or ``None`` when that changes
    nothing."""
    import numpy as np

    ids = integer_ids(rows.documents)
    if ids is None or ids == rows.documents:
        return None
    merged: dict[str, int] = {}
    remap = np.fromiter(
        (merged.setdefault(i, len(merged)) for i in ids), dtype=np.int32, count=len(ids)
    )
    return rows.replaced(documents=list(merged), doc=remap[rows.doc])


@dataclass(slots=True)
class RankedInput:
    """Both sides of a D/P corpus as read (codes as written) and the valid codes: every view
    of the corpus (:meth:`view`) comes from this one reading."""

    gold: CodeRows
    pred: CodeRows
    valid: frozenset[str]
    seed: CodeSeed | None = None
    """The seed the rows were read from, if any (:func:`align_ranked`)."""

    def view(self, *, lowercase: bool) -> RankedView:
        """The corpus with codes lower-cased or as written (:func:`align_ranked`)."""
        return align_ranked(self.gold, self.pred, self.valid, lowercase=lowercase, seed=self.seed)
