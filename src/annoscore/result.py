"""What every task returns: one shape, built by one constructor from per-document counts.

A task counts each document (:class:`~annoscore.counts.Counts`), names the pure function that turns
counts into scores (its *scorer*), and calls :meth:`Result.from_counts`.  The result keeps

- ``matrix``: a dense :class:`CountMatrix`, documents x named additive statistics (per-type
  columns ``type:NAME:stat`` included), always present whatever is rendered;
- ``counts``: the corpus counts, which are the column sums of the matrix (per-type columns left
  out: they are in :attr:`Result.types`);
- ``scores``: ``scorer(counts)``, the micro scores;
- ``warnings``: structured :class:`~annoscore.score_warnings.ScoreWarning` items, rendered to
  sentences by ``report/``.

Everything else is derived from the matrix: per-document scores, per-type scores, macro averages,
bootstrap intervals and paired tests (:mod:`annoscore.significance`).  The JSON contract is
:meth:`Result.to_dict`.

>>> from annoscore.metrics.prf import prf_scores
>>> r = Result.from_counts("demo", Signature.of("demo"),
...                        {"d1": Counts(tp=2, fp=1), "d2": Counts(tp=1, fn=3)}, prf_scores)
>>> r.counts.as_dict()
{'fn': 3, 'fp': 1, 'tp': 3}
>>> r.scores["f1"]
0.6
>>> r.documents["d2"].scores["recall"]
0.25
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from itertools import repeat
from typing import TYPE_CHECKING, Any, overload

from annoscore.counts import Counts, Number
from annoscore.records import Record, set_fields
from annoscore.score_warnings import ScoreWarning, merge_warnings, note
from annoscore.signature import Signature

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float64]
    Indices = npt.NDArray[np.intp]

Scores = dict[str, float | None]
Scorer = Callable[[Counts], Scores]
"""A pure function from additive counts to named scores (``None`` where undefined)."""

TYPE_PREFIX = "type:"
"""Per-type statistics are named ``type:NAME:stat`` (``type:Drug:tp``)."""


class Undefined(str, Enum):
    """What the corpus ``scores`` and the official layouts show where a score is undefined:
    ``null`` (the rule: ``None``) or ``zero`` (``0.0``, as the official PharmaCoNER script and
    the reference coreference scorer print it).  Per-document and per-type scores, macro
    averages, intervals and tests always use the rule (:mod:`annoscore.metrics.prf`).
    """

    null = "null"
    zero = "zero"


class Details:
    """What a task's official text layout needs beyond the counts (a PharmaCoNER layout, a MUC
    score report's pages, the ARE items): each task family declares its subclass in its
    ``metrics`` module, so ``tasks`` fill it and ``report`` reads it without importing each
    other."""

    __slots__ = ()


class Names(Sequence[str]):
    """Document names held as one string, joined by newlines (no name holds one), made into
    strings only when one is read: what a chunk of a cut run sends of its names (one string
    to unpickle, not one object per document) and what the reduce joins (:meth:`joined`), so
    that a cut run's parent makes no string per document unless it shows one.  Joined names
    keep their parts and join them only when their text is read (CodiEsp D, 10^6 documents:
    the matrix's names and the details' gold documents, two 17 MB strings the parent joined
    after the last chunk, and a JSON report reads neither).

    >>> names = Names.of(("b", "a", ""))
    >>> len(names), names[1], list(names), names == ("b", "a", ""), names[-2:]
    (3, 'a', ['b', 'a', ''], True, ('a', ''))
    >>> joined = Names.joined([names, Names.of(()), Names.of(["c"])])
    >>> joined.text, len(joined), tuple(joined)
    ('b\\na\\n\\nc', 4, ('b', 'a', '', 'c'))
    >>> Names.of(["a\\nb"])  # a name holding a newline: kept as it is
    ['a\\nb']
    """

    __slots__ = ("_items", "_parts", "_text", "size")

    def __init__(self, text: str | None, size: int, parts: tuple[Names, ...] = ()) -> None:
        self._text = text
        self.size = size
        self._items: tuple[str, ...] | None = None
        self._parts = parts

    @property
    def text(self) -> str:
        """The names joined by newlines (the parts' texts joined now, the first time)."""
        if self._text is None:
            self._text = "\n".join(p.text for p in self._parts)
            self._parts = ()
        return self._text

    @classmethod
    def of(cls, names: Sequence[str]) -> Sequence[str]:
        """``names`` as :class:`Names`, or unchanged when a name holds a newline."""
        if isinstance(names, Names):
            return names
        text = "\n".join(names)
        if text.count("\n") != max(len(names) - 1, 0):
            return names
        return cls(text, len(names))

    @classmethod
    def joined(cls, parts: Sequence[Names]) -> Names:
        """The names of ``parts`` one after the other (their strings joined when read, none
        made)."""
        return cls(None, sum(p.size for p in parts), tuple(p for p in parts if p.size))

    @classmethod
    def chained(cls, parts: Sequence[Sequence[str]]) -> Sequence[str]:
        """The names of ``parts`` one after the other: :meth:`joined` when every part is
        :class:`Names` (the chunks of a cut run sent them so), else a tuple of them.

        >>> Names.chained([Names.of(["a"]), Names.of(["b", "c"])])
        Names(('a', 'b', 'c'))
        >>> Names.chained([Names.of(["a"]), ("b",)])
        ('a', 'b')
        """
        sent = [p for p in parts if isinstance(p, Names)]
        if len(sent) == len(parts):
            return cls.joined(sent)
        return tuple(name for part in parts for name in part)

    def _all(self) -> tuple[str, ...]:
        if self._items is None:
            self._items = tuple(self.text.split("\n")) if self.size else ()
        return self._items

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self._all()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names):
            return self.size == other.size and self.text == other.text
        if isinstance(other, tuple):
            return self._all() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"Names({self._all()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Names, (self.text, self.size))


@dataclass(frozen=True, slots=True)
class CountMatrix:
    """Documents x named additive statistics: ``values[d, k]`` is ``names[k]`` of ``documents[d]``.

    ``integer[k]`` says whether column ``k`` holds whole numbers (counts of items, read back as
    ``int``) or sums of fractions (average precision, B3 numerators: ``float``).  Values are
    float64, exact for whole numbers below 2^53.
    """

    documents: Sequence[str]
    names: tuple[str, ...]
    values: Array
    integer: tuple[bool, ...]

    @classmethod
    def of(cls, per_document: Mapping[str, Counts]) -> CountMatrix:
        """The matrix of a mapping document id -> counts (columns in first-seen order; a
        document without a column reads 0 there).  A column is integer when every value in it
        is an ``int``.

        >>> m = CountMatrix.of({"a": Counts(tp=1, ap=0.5), "b": Counts(tp=2, fn=1)})
        >>> m.names, m.integer, m.values.tolist()
        (('tp', 'ap', 'fn'), (True, False, True), [[1.0, 0.5, 0.0], [2.0, 0.0, 1.0]])
        """
        import numpy as np

        # the rows grouped by layout (the same keys in the same order: most documents of a
        # corpus share one or a few), each group one array conversion
        layouts: dict[tuple[str, ...], tuple[list[int], list[list[Number]]]] = {}
        column: dict[str, int] = {}
        for d, counts in enumerate(per_document.values()):
            keys = tuple(counts.keys())
            layout = layouts.get(keys)
            if layout is None:
                layout = layouts[keys] = ([], [])
                for key in keys:
                    column.setdefault(key, len(column))
            layout[0].append(d)
            layout[1].append(list(counts.values()))
        values = np.zeros((len(per_document), len(column)), dtype=np.float64)
        whole = [True] * len(column)
        for keys, (documents, rows) in layouts.items():
            if not keys:
                continue
            block = np.array(rows)
            if block.dtype.kind not in "iu":  # some floats: which columns hold only ints
                for kinds in {tuple(map(type, row)) for row in rows}:
                    for key, kind in zip(keys, kinds, strict=True):
                        if not issubclass(kind, int):
                            whole[column[key]] = False
            values[np.ix_(documents, [column[key] for key in keys])] = block.astype(np.float64)
        return cls(tuple(per_document), tuple(column), values, tuple(whole))

    @classmethod
    def from_columns(
        cls, documents: Sequence[str], columns: Mapping[str, Any], integer: Iterable[str] = ()
    ) -> CountMatrix:
        """A matrix from one array per statistic (each of length ``len(documents)``)."""
        import numpy as np

        whole = set(integer)
        values = np.empty((len(documents), len(columns)), dtype=np.float64)
        for k, column in enumerate(columns.values()):
            values[:, k] = column
        return cls(tuple(documents), tuple(columns), values, tuple(n in whole for n in columns))

    def counts(self, sums: Any) -> Counts:
        """Counts of a vector of column sums (one resample's, say), or of one row."""
        pairs = zip(self.names, self.integer, sums.tolist(), strict=True)
        return Counts({n: int(v) if w else v for n, w, v in pairs})

    def row(self, d: int) -> Counts:
        """Document ``d``'s counts (every column)."""
        return self.counts(self.values[d])

    def rows(self, types: bool = True) -> list[Counts]:
        """Every document's counts, in order (without the ``type:`` columns unless ``types``):
        the same as :meth:`row` for each, converted in one pass.

        >>> m = CountMatrix.of({"a": Counts(tp=1, **{"type:X:tp": 1}), "b": Counts(tp=2)})
        >>> m.rows(types=False)
        [Counts(tp=1), Counts(tp=2)]
        """
        kept = [k for k, name in enumerate(self.names) if types or not _is_type_key(name)]
        names = [self.names[k] for k in kept]
        whole = [self.integer[k] for k in kept]
        table = self.values[:, kept].tolist()
        if all(whole):
            return [Counts(dict(zip(names, map(int, row), strict=True))) for row in table]
        return [
            Counts({n: int(v) if w else v for n, w, v in zip(names, whole, row, strict=True)})
            for row in table
        ]

    def total(self) -> Counts:
        """The column sums (every column), summed document by document in order."""
        import numpy as np

        if not len(self.values):
            return self.counts(np.zeros(len(self.names), dtype=np.float64))
        # columns of whole numbers sum exactly in any order (below 2^53): all at once
        # (einsum's sum down the columns: 0.004 s for 10^6 rows, where ``sum(axis=0)`` took
        # 0.02 s of the parent's time after the last chunk); a column of fractions by a
        # running sum (cumsum is sequential), so they add left to right as the official
        # scorers add them, column by column (a cumsum down the rows of the whole matrix is
        # several times slower)
        sums = np.einsum("ij->j", self.values)
        for k in np.flatnonzero(~np.asarray(self.integer, dtype=bool)).tolist():
            sums[k] = np.cumsum(self.values[:, k])[-1]
        return self.counts(sums)

    def aligned(self, documents: Sequence[str]) -> CountMatrix:
        """The rows of ``documents`` in that order (a document this matrix lacks reads 0)."""
        import numpy as np

        position = {doc: d for d, doc in enumerate(self.documents)}
        values = np.zeros((len(documents), len(self.names)), dtype=np.float64)
        for d, doc in enumerate(documents):
            at = position.get(doc)
            if at is not None:
                values[d] = self.values[at]
        return CountMatrix(tuple(documents), self.names, values, self.integer)

    def with_column(self, name: str, value: float) -> CountMatrix:
        """The matrix with one more whole-number column holding ``value`` for every document
        (``documents`` = 1, say)."""
        import numpy as np

        column = np.full((len(self.documents), 1), value, dtype=np.float64)
        values = np.hstack([self.values, column])
        return CountMatrix(self.documents, (*self.names, name), values, (*self.integer, True))


def _is_type_key(name: str) -> bool:
    return name.startswith(TYPE_PREFIX)


def _plain(counts: Counts) -> Counts:
    return Counts({k: v for k, v in counts.items() if not _is_type_key(k)})


def type_counts(counts: Counts) -> dict[str, Counts]:
    """Per-type counts of ``type:NAME:stat`` keys, keyed by type name (sorted)."""
    out: dict[str, dict[str, Number]] = {}
    for key, value in counts.items():
        if _is_type_key(key):
            name, _, stat = key[len(TYPE_PREFIX) :].rpartition(":")
            out.setdefault(name, {})[stat] = value
    return {name: Counts(out[name]) for name in sorted(out)}


class ScoredUnit(Record):
    """Scores and counts of one document or one type."""

    __slots__ = ("scores", "counts")  # noqa: RUF023 (the order of the fields)
    scores: Scores
    counts: Counts

    def __init__(self, scores: Scores, counts: Counts) -> None:
        set_fields(self, scores=scores, counts=counts)

    def to_json_dict(self) -> dict[str, Any]:
        return {"scores": dict(self.scores), "counts": self.counts.as_dict()}


SharedUnits = tuple[list[ScoredUnit | None], list[int]]
"""Units shared by the documents of equal counts, and each document's place among them
(:meth:`Result.units_of`: ``units[at[k]]`` is document ``k``'s; ``units[-1]`` is ``None``)."""


_ROW_HASH = 0x9E3779B97F4A7C15
"""The multiplier of :func:`_equal_rows`'s hash of a row's bits (any odd number is exact: a
collision is found and the rows compared as bytes)."""


_FOLDED_ROWS = 1 << 16
"""Rows of :func:`_equal_rows`'s key folded at a time."""


def _equal_rows(values: Array, columns: list[int]) -> tuple[Indices, Indices]:
    """The rows of ``values`` (its ``columns``) equal bit for bit (0.0 and -0.0 differ, as they
    print): a row of each kind (``first``), and each row's kind (``first[inverse[d]]`` is a
    row equal to row ``d``).  Each row hashed to one 64-bit number (a fold, a multiply and an
    exclusive or a column, on the bits), the numbers sorted and made unique, each row's found
    among them by a binary search, and every row checked equal to the row chosen for its hash;
    rows that differ under one hash are made unique as opaque bytes instead (10^6 rows of 5
    columns: 0.1 s of CPU, 1.7 s as bytes).  Without the fold rows of small counts often
    shared a hash (165 of 200 random matrices of 200 rows of 5 counts of 0-7; CodiEsp D's
    10^6 rows with counts of 0-7, 3,366 kinds: 2.49 G instructions and 0.64-0.81 s of CPU,
    with it 0.48 G and 0.17-0.19 s; the benchmark's 22 kinds: 0.32 G and 0.09 s without,
    0.34 G and 0.10-0.11 s with).

    >>> import numpy as np
    >>> first, inverse = _equal_rows(np.array([[1.0, 0.0], [1.0, -0.0], [1.0, 0.0]]), [0, 1])
    >>> len(first), sorted(first.tolist()) in ([0, 1], [1, 2])
    (2, True)
    >>> inverse.tolist()[0] == inverse.tolist()[2] != inverse.tolist()[1]
    True
    >>> [len(a) for a in _equal_rows(np.zeros((0, 2)), [0, 1])]
    [0, 0]
    """
    import numpy as np

    bits = [values[:, k].view(np.uint64) for k in columns]
    key = np.zeros(len(values), np.uint64)
    for column in bits:
        # the key's high half folded onto its low half before it is multiplied: a count's
        # bits are its high ones (1.0 is 0x3ff0 then zeros), which a product only carries up,
        # off the key (so rows of small counts shared hashes, and were made unique as bytes);
        # a block of rows at a time (no copy of the key: 10^6 rows, 8 MB more at the peak)
        for start in range(0, len(key), _FOLDED_ROWS):
            part = key[start : start + _FOLDED_ROWS]
            part ^= part >> np.uint64(32)
        key *= np.uint64(_ROW_HASH)
        key ^= column
    # sorted, not stable-sorted (np.unique's return_index): 10^6 rows, 0.025 s of CPU, not 0.073
    ordered = np.sort(key)
    new = np.ones(len(ordered), bool)
    new[1:] = ordered[1:] != ordered[:-1]
    kinds = ordered[new]
    inverse = np.searchsorted(kinds, key)
    first = np.empty(len(kinds), np.int64)
    first[inverse] = np.arange(len(key))  # a row of each hash (which one: any, checked below)
    chosen = first[inverse]
    if all(np.array_equal(column[chosen], column) for column in bits):
        return first, inverse
    rows = np.ascontiguousarray(values[:, columns])
    keys = rows.view(np.dtype((np.void, rows.itemsize * len(columns)))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _same_names(names: Sequence[str], documents: Sequence[str]) -> bool:
    """Whether ``names`` are ``documents``, one for one in order (one comparison in C; for
    :class:`Names` not yet split, ``names`` joined by newlines against its text: as many
    names, none holding a newline, and the same text, so the same names).

    >>> names = Names.of(["a", "b"])
    >>> _same_names(["a", "b"], names), _same_names(["b", "a"], names), names._items is None
    (True, False, True)
    """
    if len(names) != len(documents):
        return False
    if isinstance(documents, Names) and documents._items is None:
        return "\n".join(names) == documents.text
    return list(names) == list(documents)


MACRO_DOC = "macro_doc"
"""A result's cached ``macro_doc`` and the documents each score leaves out
(:func:`macro_average_left_out`): made once (:attr:`Result.averages`), or by chunks of its input
(:func:`annoscore.scale.reduce._macro_doc`; float for float :func:`macro_average` of its
documents' scores), so that its documents are not scored again."""


def macro_average(per_unit: Iterable[Mapping[str, float | None]]) -> Scores:
    """Mean of each score over the units where it is defined (``None`` if it is nowhere).

    - **micro** (``Result.scores``): add the counts of every unit, then score the sum.
    - **macro**: score every unit on its own, then take the plain mean.  By type
      (``macro_type``) rare types weigh as much as frequent ones; by document (``macro_doc``)
      short documents as much as long ones.  A unit whose score is undefined is left out of that
      score's mean.

    >>> macro_average([{"f1": 1.0}, {"f1": 0.0}, {"f1": None}])
    {'f1': 0.5}
    """
    return macro_average_left_out(per_unit)[0]


def macro_average_left_out(
    per_unit: Iterable[Mapping[str, float | None]],
) -> tuple[Scores, dict[str, int]]:
    """:func:`macro_average` and how many units each score leaves out (undefined there), in
    the order each score is first found undefined.

    >>> macro_average_left_out([{"f1": 1.0, "p": None}, {"f1": None, "p": None}])
    ({'f1': 1.0, 'p': None}, {'p': 2, 'f1': 1})
    """
    totals: dict[str, float] = {}
    defined: dict[str, int] = {}
    left_out: dict[str, int] = {}
    for scores in per_unit:
        for key, value in scores.items():
            totals.setdefault(key, 0.0)
            defined.setdefault(key, 0)
            if value is not None:
                totals[key] += value
                defined[key] += 1
            else:
                left_out[key] = left_out.get(key, 0) + 1
    return {k: (totals[k] / defined[k] if defined[k] else None) for k in totals}, left_out


class View(Record):
    """What a rendering shows beyond the corpus row (output switches, not in the signature)."""

    __slots__ = ("documents", "types", "averages")  # noqa: RUF023 (the order of the fields)
    documents: bool
    types: bool
    averages: bool

    def __init__(
        self, documents: bool = False, types: bool = False, averages: bool = False
    ) -> None:
        set_fields(self, documents=documents, types=types, averages=averages)

    def shown(self, **switches: bool) -> View:
        """The same view with ``switches`` changed (``documents=True``...)."""
        return View(**{**dict(zip(self.__slots__, self._fields(), strict=True)), **switches})


CORPUS_VIEW = View()
"""The corpus row only (a result's view unless a switch asks for more)."""


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of scoring one system against one gold standard (see the module doc).

    Build it with :meth:`from_counts`; ``counts`` and ``scores`` are then the column sums of
    ``matrix`` and ``scorer`` of them, for every task.
    """

    task: str
    signature: Signature
    matrix: CountMatrix
    scorer: Scorer
    scores: Scores
    counts: Counts
    warnings: tuple[ScoreWarning, ...] = ()
    view: View = CORPUS_VIEW
    details: Details | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    intervals: Mapping[str, tuple[float, float] | None] | None = None
    headline: str | None = None
    undefined: Undefined = Undefined.null
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_counts(
        cls,
        task: str,
        signature: Signature,
        per_document: Mapping[str, Counts] | CountMatrix,
        scorer: Scorer,
        *,
        warnings: Iterable[ScoreWarning | str] = (),
        view: View = CORPUS_VIEW,
        details: Details | None = None,
        extra: Mapping[str, Any] | None = None,
        headline: str | None = None,
        undefined: Undefined = Undefined.null,
    ) -> Result:
        """The one constructor: per-document counts (or their matrix) and the task's scorer.

        ``scorer`` follows the rule (``None`` where undefined); ``undefined`` says what the
        corpus ``scores`` show there (:class:`Undefined`), and every undefined corpus score is
        named in a warning.  ``headline`` is the key of :attr:`score`.
        """
        matrix = (
            per_document if isinstance(per_document, CountMatrix) else CountMatrix.of(per_document)
        )
        counts = _plain(matrix.total())
        scores = scorer(counts)
        names = ", ".join(key for key, value in scores.items() if value is None)
        notes: list[ScoreWarning | str] = []
        if names and undefined is Undefined.zero:
            scores = {k: (0.0 if v is None else v) for k, v in scores.items()}
            shown = f"{names}; shown as 0.0, the official rule"
            notes.append(ScoreWarning("undefined", f"undefined (a zero denominator): {shown}"))
        elif names:
            notes.append(
                ScoreWarning("undefined", f"undefined (a zero denominator, JSON null): {names}")
            )
        return cls(
            task=task,
            signature=signature,
            matrix=matrix,
            scorer=scorer,
            scores=scores,
            counts=counts,
            warnings=merge_warnings(
                w if isinstance(w, ScoreWarning) else note(w) for w in (*warnings, *notes)
            ),
            view=view,
            details=details,
            extra=dict(extra or {}),
            headline=headline,
            undefined=undefined,
        )

    @property
    def score(self) -> float | None:
        """The headline score (the one a leaderboard shows: ``f1``, ``map``, ``conll_f1``...).

        >>> from annoscore.metrics.prf import prf_scores
        >>> Result.from_counts("x", Signature.of("x"), {"d": Counts(tp=1, fn=1)}, prf_scores,
        ...                    headline="f1").score
        0.6666666666666666
        """
        if self.headline is None:
            raise ValueError(f"task {self.task!r} names no headline score")
        return self.scores.get(self.headline)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of cli.md: ``task``, ``signature``, ``scores``, ``counts``,
        ``warnings``, and ``intervals``, ``averages``, ``types``, ``documents`` when the view
        asks (what ``--format json`` prints, before non-finite numbers become ``null``)."""
        out: dict[str, Any] = {
            "task": self.task,
            "signature": str(self.signature),
            "scores": dict(self.scores),
            "counts": self.counts.as_dict(),
            "warnings": [str(w) for w in self.warnings],
        }
        if self.intervals is not None:
            out["intervals"] = {
                k: (None if v is None else list(v)) for k, v in self.intervals.items()
            }
        if self.view.averages:
            out["averages"] = self.averages
        if self.view.types:
            out["types"] = {k: v.to_json_dict() for k, v in self.types.items()}
        if self.view.documents:
            names, (units, at) = self.document_units()
            shared = [unit.to_json_dict() for unit in units if unit is not None]  # (None: last)
            # documents of equal counts share one object (the same text; 10^6 CodiEsp D
            # documents: 36.8 s of CPU and 2.26 GB with one per document, 14.2 s and 0.74 GB)
            out["documents"] = dict(zip(names, map(shared.__getitem__, at), strict=True))
        out.update(self.extra)
        return out

    def document_units(self) -> tuple[list[str], SharedUnits]:
        """Every document of the matrix, in its order, and their :meth:`units_of` (made once:
        the JSON's documents, ``macro_doc`` and the tables of documents read them)."""
        if "every unit" not in self._cache:
            names = list(self.matrix.documents)
            self._cache["every unit"] = names, self.units_of(names)
        every: tuple[list[str], SharedUnits] = self._cache["every unit"]
        return every

    def shown(self, **switches: bool) -> Result:
        """The same result rendered with other :class:`View` switches (``documents=True``...).

        Showing the macro averages adds a warning for each average that leaves units out (where
        a unit's score is undefined, it does not count in the mean)."""
        view = self.view.shown(**switches)
        warnings = self.warnings
        if view.averages and not self.view.averages:
            warnings = merge_warnings((*warnings, *self._average_notes()))
        # the cached documents and types depend on the counts and the scorer, not on the view
        return replace(self, view=view, warnings=warnings, _cache=dict(self._cache))

    def _average_notes(self) -> list[ScoreWarning]:
        notes = []
        for average in self.averages:
            what = "types" if average == "macro_type" else "documents"
            if average == "macro_doc":  # kept by :attr:`averages`
                left_out, size = self._cache[MACRO_DOC][1], len(self.matrix.documents)
            else:
                left_out = macro_average_left_out(u.scores for u in self.types.values())[1]
                size = len(self.types)
            if left_out:
                parts = ", ".join(f"{key} of {n}" for key, n in left_out.items())
                notes.append(
                    ScoreWarning(
                        "average.left-out",
                        f"{average} leaves out the {what} where a score is undefined: {parts} "
                        f"(of {size})",
                    )
                )
        return notes

    def with_extra(self, **items: Any) -> Result:
        """The same result with more JSON fields (a MUC map history, say)."""
        return replace(self, extra={**self.extra, **items}, _cache=dict(self._cache))

    @property
    def documents(self) -> dict[str, ScoredUnit]:
        """Every document's scores and counts (per-type columns left out), in matrix order."""
        if "documents" not in self._cache:
            rows = self.matrix.rows(types=False)
            self._cache["documents"] = {
                doc: ScoredUnit(self.scorer(counts), counts)
                for doc, counts in zip(self.matrix.documents, rows, strict=True)
            }
        documents: dict[str, ScoredUnit] = self._cache["documents"]
        return documents

    def units_of(self, names: Sequence[str]) -> SharedUnits:
        """The scores and counts of each of ``names`` as :attr:`documents` has them, without
        scoring every document: ``units[at[k]]`` is ``names[k]``'s (``at[k]`` is -1 and
        ``units[-1]`` is ``None`` for a document the matrix lacks).  Documents whose counts are
        equal bit for bit (every column but the per-type ones) are scored once and share a
        unit, to be read and not changed: what a layout listing every document reads
        (CodiEsp D's per-document tables of 10^6 benchmark documents, 22 distinct rows: with
        a unit, a ``Counts`` and a scoring per document the run took 24 s and 1.9 GB, 9 s and
        1.0 GB so).

        >>> docs = {"a": Counts(tp=1), "b": Counts(tp=2), "c": Counts(tp=1)}
        >>> r = Result.from_counts("t", Signature.of("t"), docs, lambda c: {"tp": c["tp"]})
        >>> units, at = r.units_of(["c", "x", "b", "a"])
        >>> [units[k] and units[k].scores for k in at], at[0] == at[3]
        ([{'tp': 1}, None, {'tp': 2}, {'tp': 1}], True)
        """
        import numpy as np

        matrix = self.matrix
        plain = [k for k, name in enumerate(matrix.names) if not _is_type_key(name)]
        if "documents" in self._cache or not plain or not len(matrix.documents):
            made = self.documents  # made already, or nothing to share
            units: list[ScoredUnit | None] = [*made.values(), None]
            position = {doc: d for d, doc in enumerate(made)}
            return units, [position.get(name, -1) for name in names]
        if "shared units" not in self._cache:  # made once (--per-doc's table reads them too)
            first, inverse = _equal_rows(matrix.values, plain)
            shared = CountMatrix(  # read for its rows only: no names (no Names split)
                ("",) * len(first),
                tuple(matrix.names[k] for k in plain),
                matrix.values[first][:, plain],
                tuple(matrix.integer[k] for k in plain),
            )
            made_units = [ScoredUnit(self.scorer(counts), counts) for counts in shared.rows()]
            self._cache["shared units"] = [*made_units, None], inverse
        units, inverse = list(self._cache["shared units"][0]), self._cache["shared units"][1]
        if _same_names(names, matrix.documents):  # the usual: every document, in order
            return units, inverse.tolist()
        position = {doc: d for d, doc in enumerate(matrix.documents)}
        rows = np.fromiter(map(position.get, names, repeat(-1)), np.int64, len(names))
        # -1 (a document the matrix lacks) picks the last unit: None
        at = np.where(rows >= 0, inverse[rows], -1)
        return units, at.tolist()

    def document_counts(self) -> dict[str, Counts]:
        """Every document's counts (all columns, per-type ones included)."""
        return dict(zip(self.matrix.documents, self.matrix.rows(), strict=True))

    @property
    def types(self) -> dict[str, ScoredUnit]:
        """Each type's corpus scores and counts (from the ``type:NAME:stat`` columns)."""
        if "types" not in self._cache:
            self._cache["types"] = {
                name: ScoredUnit(self.scorer(counts), counts)
                for name, counts in type_counts(self.matrix.total()).items()
            }
        types: dict[str, ScoredUnit] = self._cache["types"]
        return types

    @property
    def averages(self) -> dict[str, Scores]:
        """``macro_type`` (when the task counts types) and ``macro_doc``.  ``macro_doc`` and
        the documents it leaves out are kept once made (a pass over every document's scores),
        or were made from the chunks' columns (:mod:`annoscore.scale.reduce`)."""
        out: dict[str, Scores] = {}
        if self.types:
            out["macro_type"] = macro_average(u.scores for u in self.types.values())
        if MACRO_DOC not in self._cache:  # each document's scores in order (the same floats)
            _, (units, at) = self.document_units()
            scores = [u.scores if u is not None else {} for u in units]
            self._cache[MACRO_DOC] = macro_average_left_out(map(scores.__getitem__, at))
        out["macro_doc"] = dict(self._cache[MACRO_DOC][0])
        return out
