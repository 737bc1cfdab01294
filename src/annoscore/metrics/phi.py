"""NLP Sandbox PHI counts: instance level (relax, strict, type, HIPAA) and token level, per note.

The official evaluation (nlpsandbox-client 4.3.1) pools every note into dictionaries keyed by
strings; here each note is counted on its own and the corpus counts are the sums, which give the
official pooled counts because every official key starts with the note id:

- **instance keys** are ``(note, start)``.  Annotations sharing a start collapse, the *last* in
  file order wins (``same_start="last"``, official; ``"first"`` keeps the first).  For each
  prediction key present in the gold:

  - *relax*: TP when ``|length_pred - length_gold| <= relax_margin`` (official 2; the start
    must be equal, so the margin moves only the end);
  - *strict*: TP when the lengths are equal;
  - *type*: TP when the lengths are equal and the type values are equal.  An item without a
    type field never matches (the official NaN); an explicit ``null`` equals ``null``;
  - *hipaa* (locations, never computed officially): as *type*, comparing the HIPAA-PHI flag of
    the location type (:data:`HIPAA_PHI`); an absent, ``null`` or unknown type never matches.

  Then ``fp = pred keys - tp`` and ``fn = gold keys - tp``: a prediction at a gold start that
  fails the condition is both an FP and an FN.  Only the declared ``length`` is compared, not the
  text.
- **token keys** are ``(note, absolute start, token length)``, from *every* annotation (the
  collapsed ones too), de-duplicated; ``tp = |G & S|``, ``fp = |S - G|``, ``fn = |G - S|``.  Each
  annotation's ``text`` is tokenized alone (:class:`TokenSpans`) and a token's offset found with a
  running cursor from the annotation's ``start``.

Additivity: the official string keys ``"<note>-<start>"`` and ``"<note>-<start>-<len>"`` cannot
collide across notes while offsets are non-negative (the two numbers after the last two hyphens
are read back unambiguously).  They can only with ``quotes="official"``, where an annotation at
start 0 that opens with a rewritten ``"`` gets offset -1: note ``n`` at -1 and note ``n-`` at 1
both give ``"n--1-2"``.  annoscore keeps the notes apart there (a test names the case), so per-note
counts always add up.

Scores: :func:`phi_scores` (exact fractions, :func:`annoscore.metrics.prf.prf` rules) and
:func:`official_prf`, the official rounding (P and R to 2 decimals, F1 from the rounded values).

Two ways to count, with equal results (tests pin them on random notes): :func:`note_counts`
counts one note from :class:`PhiItem` objects (the reference); :func:`category_counts` counts
every note of a category at once from integer columns (the tasks' path): each distinct text is
tokenized once (:func:`span_table`, once per digit shape), the (note, start) and (note, start,
length) keys are packed into int64 and compared by sorting (numpy), and the per-note counts are
``bincount`` s of the matches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import repeat
from typing import TYPE_CHECKING, Any, Protocol

from annoscore.counts import Counts, Number
from annoscore.metrics.prf import f_beta, prf_of, ratio

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from nltk.tokenize import TreebankWordTokenizer

    IntArray = npt.NDArray[np.int64]


class PhiItem(Protocol):
    """What the counts read of one annotation (``annoscore.formats.nlpsandbox.PhiAnnotation``)."""

    @property
    def start(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def type(self) -> str | None: ...
    @property
    def typed(self) -> bool: ...


class SameStart(str, Enum):
    """Which annotation a (note, start) key keeps when several share it."""

    last = "last"  # official: a dictionary overwritten in file order
    first = "first"


class Tokenizer(str, Enum):
    """How an annotation's text is cut into tokens."""

    treebank = "treebank"  # official since 4.3.0 (January 2022): NLTK TreebankWordTokenizer
    whitespace = "whitespace"  # official up to 4.2.0: re.split(r"\s+"), offsets += len + 1


class Quotes(str, Enum):
    """Offsets of the quote tokens Treebank rewrites (``"`` -> ````` / ``''``)."""

    fixed = "fixed"  # annoscore: the token is found in the text (NLTK's span_tokenize)
    official = "official"  # the official search fails: offset = cursor - 1, bogus keys


HIPAA_PHI: dict[str, bool] = {
    "city": True,
    "organization": True,
    "street": True,
    "zip": True,
    "country": False,
    "department": False,
    "hospital": False,
    "other": False,
    "location-other": False,
    "room": False,
    "state": False,
}
"""Location type -> HIPAA-PHI, from the task page's table (matched case-insensitively)."""

INSTANCE_METRICS = ("instance_relax", "instance_strict", "token_strict", "type")
"""The four official metrics, in the official evaluation order except that token comes last."""

CATEGORY_PREFIXES = ("date", "person", "location", "id", "contact", "covid_symptom")
"""Count-key prefixes of the categories in ``annoscore nlpsandbox all`` (official order)."""


def hipaa_flag(item: PhiItem) -> bool | None:
    """The HIPAA-PHI flag of a location's type, ``None`` when absent, null or unknown.

    >>> from types import SimpleNamespace as A
    >>> hipaa_flag(A(type="City", typed=True)), hipaa_flag(A(type="room", typed=True))
    (True, False)
    >>> hipaa_flag(A(type="planet", typed=True)) is None
    True
    """
    if not item.typed or item.type is None:
        return None
    return HIPAA_PHI.get(item.type.lower())


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


class TokenSpans:
    """Token offsets and lengths of an annotation text, cached per text shape.

    The cache key is the text with every ASCII digit made ``0``: Treebank's rules refer to digits
    only through the classes ``\\d``/``[0-9]`` and drop only whitespace, so two texts that differ
    in digits only get the same token offsets (``"(617) 555-0142"`` and ``"(212) 555-9876"``).
    Texts whose tokens are not all found (rewritten quotes) are never shared.

    ``treebank``: the tokens of NLTK's ``TreebankWordTokenizer().tokenize(text)``, each found with
    ``text.find(token, cursor)``, the cursor then moved to the token's end.  Treebank rewrites
    ``"`` as ````` or ``''``, which the search cannot find: with ``quotes="official"`` the offset
    is then ``cursor - 1`` (the official arithmetic, bogus keys); with ``quotes="fixed"`` the text
    is aligned by NLTK's own ``span_tokenize``, which maps the quotes back, and the text is counted
    in :attr:`quote_fixes`.

    ``whitespace``: ``re.split(r"\\s+", text)``, offsets ``0, len(t0) + 1, ...``: several
    whitespace characters in a row shift the later offsets, and leading (trailing) whitespace
    gives an empty token of length 0 first (last).

    >>> spans = TokenSpans(Tokenizer.treebank, Quotes.fixed)
    >>> spans("David's home")
    ((0, 5), (5, 2), (8, 4))
    >>> spans('"Jon" X'), spans.quote_fixes
    (((0, 1), (1, 3), (4, 1), (6, 1)), 1)
    >>> spans("(617) 555-0142") == spans("(212) 555-9876") == ((0, 1), (1, 3), (4, 1), (6, 8))
    True
    >>> TokenSpans(Tokenizer.treebank, Quotes.official)('"Jon" X')
    ((-1, 2), (1, 3), (3, 2), (6, 1))
    >>> TokenSpans(Tokenizer.whitespace, Quotes.fixed)(" a  b")
    ((0, 0), (1, 1), (3, 1))
    """

    def __init__(self, tokenizer: Tokenizer, quotes: Quotes) -> None:
        self.tokenizer = tokenizer
        self.quotes = quotes
        self.quote_fixes = 0
        self._cache: dict[str, tuple[tuple[int, int], ...]] = {}
        self._treebank: TreebankWordTokenizer | None = None
        self._whitespace = re.compile(r"\s+")

    def __call__(self, text: str) -> tuple[tuple[int, int], ...]:
        return self.spans_of(text)[0]

    def spans_of(self, text: str) -> tuple[tuple[tuple[int, int], ...], bool]:
        """The (offset, length) of each token, and whether every text of its shape has them."""
        whitespace = self.tokenizer is Tokenizer.whitespace
        key = text if whitespace else text.translate(_DIGITS_TO_ZERO)  # see the class doc
        spans = self._cache.get(key)
        if spans is None:
            if self.tokenizer is Tokenizer.whitespace:
                spans = self._split(text)
            else:
                spans, lost = self._tokenize(text)
                if lost:  # quote offsets: computed for this text only, never shared
                    return spans, False
            self._cache[key] = spans
        return spans, True

    def _split(self, text: str) -> tuple[tuple[int, int], ...]:
        spans = []
        offset = 0
        for token in self._whitespace.split(text):
            spans.append((offset, len(token)))
            offset += len(token) + 1
        return tuple(spans)

    def _tokenize(self, text: str) -> tuple[tuple[tuple[int, int], ...], bool]:
        if self._treebank is None:
            from nltk.tokenize import TreebankWordTokenizer  # slow import: only when used

            self._treebank = TreebankWordTokenizer()
        tokens = self._treebank.tokenize(text)
        spans = []
        cursor = 0
        lost = False
        for token in tokens:
            at = text.find(token, cursor)
            if at < 0:
                lost = True
                at = cursor - 1  # the official search: -1 relative to the cursor
            spans.append((at, len(token)))
            cursor = at + len(token)
        if lost and self.quotes is Quotes.fixed:
            try:
                aligned = tuple((s, e - s) for s, e in self._treebank.span_tokenize(text))
            except ValueError:  # NLTK cannot align it either: keep the official offsets
                return tuple(spans), lost
            self.quote_fixes += 1
            return aligned, lost
        return tuple(spans), lost


@dataclass(frozen=True, slots=True)
class NoteTally:
    """One note's counts and what the official quirks did there."""

    counts: Counts
    overwritten_gold: int = 0
    overwritten_pred: int = 0
    unknown_hipaa: int = 0


def _keyed(items: Sequence[PhiItem], same_start: SameStart) -> dict[int, PhiItem]:
    keyed: dict[int, PhiItem] = {}
    if same_start is SameStart.last:
        for item in items:
            keyed[item.start] = item
    else:
        for item in items:
            keyed.setdefault(item.start, item)
    return keyed


def _tokens(items: Sequence[PhiItem], spans: TokenSpans) -> set[tuple[int, int]]:
    keys = set()
    for item in items:
        start = item.start
        for offset, length in spans(item.text):
            keys.add((start + offset, length))
    return keys


def note_counts(
    gold: Sequence[PhiItem],
    pred: Sequence[PhiItem],
    spans: TokenSpans,
    *,
    relax_margin: int = 2,
    same_start: SameStart = SameStart.last,
    hipaa: bool = False,
) -> NoteTally:
    """The counts of one note: ``{metric}_{tp,fp,fn}`` for the metrics in the module doc.

    >>> from annoscore.formats.nlpsandbox import PhiAnnotation as A
    >>> gold = [A(10, 9, "Jon Smith", "patient", True), A(30, 6, "Boston", None, False)]
    >>> pred = [A(10, 3, "Jon", "patient", True), A(30, 7, "Boston,", None, False)]
    >>> tally = note_counts(gold, pred, TokenSpans(Tokenizer.treebank, Quotes.fixed))
    >>> {k: v for k, v in tally.counts.items() if k.startswith(("instance", "token"))}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'instance_relax_tp': 1, 'instance_relax_fp': 1, 'instance_relax_fn': 1,
     'instance_strict_tp': 0, 'instance_strict_fp': 2, 'instance_strict_fn': 2,
     'token_strict_tp': 2, 'token_strict_fp': 1, 'token_strict_fn': 1}
    """
    g = _keyed(gold, same_start)
    s = _keyed(pred, same_start)
    relax = strict = typed = phi = unknown = 0
    for start, p in s.items():
        q = g.get(start)
        if q is None:
            continue
        difference = abs(p.length - q.length)
        if difference <= relax_margin:
            relax += 1
        if difference == 0:
            strict += 1
            if p.typed and q.typed and p.type == q.type:
                typed += 1
            if hipaa:
                flag = hipaa_flag(q)
                if flag is not None and flag == hipaa_flag(p):
                    phi += 1
    if hipaa:
        unknown = sum(
            1 for item in (*g.values(), *s.values()) if item.typed and hipaa_flag(item) is None
        )
    g_tokens = _tokens(gold, spans)
    s_tokens = _tokens(pred, spans)
    token_tp = len(g_tokens & s_tokens)
    n_g, n_s = len(g), len(s)
    data: dict[str, Number] = {}
    tps = [("instance_relax", relax), ("instance_strict", strict), ("type", typed)]
    if hipaa:
        tps.append(("hipaa", phi))
    for name, tp in tps:
        data[f"{name}_tp"] = tp
        data[f"{name}_fp"] = n_s - tp
        data[f"{name}_fn"] = n_g - tp
    data["token_strict_tp"] = token_tp
    data["token_strict_fp"] = len(s_tokens) - token_tp
    data["token_strict_fn"] = len(g_tokens) - token_tp
    return NoteTally(Counts(data), len(gold) - n_g, len(pred) - n_s, unknown)


def _metrics(counts: Mapping[str, Number], prefix: str) -> list[str]:
    names = list(INSTANCE_METRICS)
    if f"{prefix}hipaa_tp" in counts:
        names.append("hipaa")
    return names


def phi_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """``{metric}_{precision,recall,f1}`` of one category's counts (exact, ``prf`` rules).

    ``hipaa_*`` too when the counts have ``hipaa_tp`` (locations).

    >>> phi_scores({"instance_relax_tp": 3, "instance_relax_fp": 1})["instance_relax_precision"]
    0.75
    """
    scores: dict[str, float | None] = {}
    for name in _metrics(counts, ""):
        scores.update(prf_of(counts, f"{name}_").as_dict(f"{name}_"))
    return scores


def all_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """:func:`phi_scores` of every category present, keys prefixed ``{category}_``.

    A category is present when its ``{category}_instance_relax_tp`` count is.

    >>> sorted(all_scores({"id_instance_relax_tp": 1, "id_instance_relax_fn": 1}))[:3]
    ['id_instance_relax_f1', 'id_instance_relax_precision', 'id_instance_relax_recall']
    """
    scores: dict[str, float | None] = {}
    for category in CATEGORY_PREFIXES:
        prefix = f"{category}_"
        if f"{prefix}instance_relax_tp" not in counts:
            continue
        for name in _metrics(counts, prefix):
            scores.update(prf_of(counts, f"{prefix}{name}_").as_dict(f"{prefix}{name}_"))
    return scores


Official = int | float


def official_prf(tp: Number, fp: Number, fn: Number) -> tuple[Official, Official, Official]:
    """The official (F1, precision, recall): P and R rounded to 2 decimals, F1 from the rounded.

    ``P = round(tp / (tp + fp), 2)`` and ``R = round(tp / (tp + fn), 2)``, the int ``0`` when the
    denominator is 0; ``F1 = round(2 P R / (P + R), 2)``, the int ``0`` when ``P + R = 0``.

    >>> official_prf(1, 12, 0)       # the exact F1 would round to 0.14
    (0.15, 0.08, 1.0)
    >>> official_prf(0, 0, 0), official_prf(0, 1, 1)
    ((0, 0, 0), (0, 0.0, 0.0))
    """
    precision: Official = 0 if tp + fp == 0 else round(ratio(tp, tp + fp) or 0.0, 2)
    recall: Official = 0 if tp + fn == 0 else round(ratio(tp, tp + fn) or 0.0, 2)
    if precision + recall == 0:
        return 0, precision, recall
    return round(f_beta(float(precision), float(recall)) or 0.0, 2), precision, recall


OFFICIAL_TYPE_NAN = frozenset({"date", "person"})
"""Categories whose type P/R/F1 the official ``eval()`` returns as NaN (hard-wired)."""


def leaderboard(counts: Mapping[str, Number], category: str, prefix: str = "") -> dict[str, Any]:
    """The controller's flattened keys of one category, official rounding, NaN ones dropped.

    ``location_{F1,precision,recall}_{instance_relax,instance_strict,token_strict}`` (``location``
    is the official name of the offset-based metrics, whatever the category) and
    ``type_{F1,precision,recall}`` except for date and person, which the official reports as NaN.

    >>> board = leaderboard({"token_strict_tp": 4, "token_strict_fn": 2}, "location")
    >>> board["location_F1_token_strict"], board["location_recall_token_strict"]
    (0.8, 0.67)
    """
    out: dict[str, Any] = {}
    for name in ("instance_relax", "instance_strict", "token_strict"):
        f1, p, r = official_prf(*(counts.get(f"{prefix}{name}_{k}", 0) for k in ("tp", "fp", "fn")))
        out[f"location_F1_{name}"] = f1
        out[f"location_precision_{name}"] = p
        out[f"location_recall_{name}"] = r
    if category not in OFFICIAL_TYPE_NAN:
        f1, p, r = official_prf(*(counts.get(f"{prefix}type_{k}", 0) for k in ("tp", "fp", "fn")))
        out.update(type_F1=f1, type_precision=p, type_recall=r)
    return out


# --- the columnar counts (the fast path the tasks use) -----------------------------------------


@dataclass(frozen=True, slots=True)
class SpanTable:
    """Token spans of numbered texts, flat: text ``t``'s tokens are rows ``first[e]`` to
    ``first[e] + size[e] - 1`` of ``offset``/``length`` where ``e = entry[t]``.

    Texts of one digit shape share an entry (see :class:`TokenSpans`); ``fixed[e]`` is 1 when the
    entry's text had its rewritten quotes found in the text (``quotes="fixed"``).
    """

    entry: IntArray
    first: IntArray
    size: IntArray
    offset: IntArray
    length: IntArray
    fixed: IntArray


def span_table(texts: Sequence[str], spans: TokenSpans) -> SpanTable:
    """The :class:`SpanTable` of ``texts``: each distinct digit shape is tokenized once.

    Equal to calling ``spans(text)`` on every text (a test pins it on random texts).

    >>> table = span_table(["Boston, MA", "(617) 555-0142", "(212) 555-9876"],
    ...                    TokenSpans(Tokenizer.treebank, Quotes.fixed))
    >>> table.entry.tolist(), table.size.tolist()
    ([0, 1, 1], [3, 4])
    >>> table.offset.tolist(), table.length.tolist()
    ([0, 6, 8, 0, 1, 4, 6], [6, 1, 2, 1, 3, 1, 8])
    """
    import numpy as np

    if spans.tokenizer is Tokenizer.whitespace:
        shapes: Sequence[str] = texts
    else:
        shapes = list(map(str.translate, texts, repeat(_DIGITS_TO_ZERO)))
    example = dict(zip(shapes, texts, strict=True))  # a text of each shape (the last one)
    entry_of_shape: dict[str, int] = {}
    cut: list[tuple[tuple[int, int], ...]] = []
    fixed: list[int] = []
    counted = spans.quote_fixes
    for shape, text in example.items():
        found, shared = spans.spans_of(text)
        if shared:
            entry_of_shape[shape] = len(cut)
            cut.append(found)
            fixed.append(0)
    spans.quote_fixes = counted  # the caller counts the fixes per annotation (``fixed``)
    entries = list(map(entry_of_shape.get, shapes))
    if len(entry_of_shape) < len(example):
        for k, text in enumerate(texts):
            if entries[k] is None:  # tokens not all found: this text's own offsets
                entries[k] = len(cut)
                cut.append(spans.spans_of(text)[0])
                fixed.append(spans.quote_fixes - counted)
                spans.quote_fixes = counted
    size = np.fromiter(map(len, cut), dtype=np.int64, count=len(cut))
    flat = np.array([pair for one in cut for pair in one], dtype=np.int64).reshape(-1, 2)
    return SpanTable(
        entry=np.array(entries, dtype=np.int64).reshape(-1),
        first=np.cumsum(size) - size,
        size=size,
        offset=np.ascontiguousarray(flat[:, 0]),
        length=np.ascontiguousarray(flat[:, 1]),
        fixed=np.array(fixed, dtype=np.int64),
    )


@dataclass(frozen=True, slots=True)
class Columns:
    """One side of one category, one row per annotation in file order (int64 arrays).

    ``note`` is the document number, ``text`` the text's number in the :class:`SpanTable`,
    ``kind`` the type value's number: 0 for no type field (never matches), 1 for ``null``
    (equals ``null``), then the strings.
    """

    note: IntArray
    start: IntArray
    length: IntArray
    text: IntArray
    kind: IntArray


@dataclass(frozen=True, slots=True)
class CategoryTally:
    """Per-document counts of one category (``{metric}_{tp,fp,fn}`` -> array) and its quirks."""

    columns: dict[str, IntArray]
    overwritten_gold: int
    overwritten_pred: int
    unknown_hipaa: int
    quote_fixes: int


def hipaa_flags(values: Sequence[object]) -> IntArray:
    """Per type number: 1 HIPAA PHI, 0 not PHI, -1 absent, null or unknown (never matches).

    >>> hipaa_flags([None, "City", "room", "planet"]).tolist()
    [-1, 1, 0, -1]
    """
    import numpy as np

    flags = [
        -1 if not isinstance(v, str) else {True: 1, False: 0, None: -1}[HIPAA_PHI.get(v.lower())]
        for v in values
    ]
    return np.array(flags, dtype=np.int64)


def _packed(*columns: tuple[IntArray, IntArray]) -> tuple[IntArray, IntArray, Any]:
    """Keys of the rows ``(c0, c1, ...)`` of both sides: equal keys iff equal rows.

    Each argument is one column as (gold part, prediction part).  Keys are mixed-radix numbers
    (column 0 most significant) when they fit in 62 bits, else row numbers from ``np.unique``;
    the returned function maps keys back to column 0 (the document).
    """
    import numpy as np

    lows, spans = [], []
    for g, p in columns:
        both = [part for part in (g, p) if len(part)]
        low = min(int(part.min()) for part in both) if both else 0
        high = max(int(part.max()) for part in both) if both else 0
        lows.append(low)
        spans.append(high - low + 1)
    weights = [1] * len(columns)
    for k in range(len(columns) - 2, -1, -1):
        weights[k] = weights[k + 1] * spans[k + 1]
    if weights[0] * spans[0] < 2**62:
        keys = []
        for side in (0, 1):
            key = np.zeros(len(columns[0][side]), dtype=np.int64)
            for column, low, weight in zip(columns, lows, weights, strict=True):
                key += (column[side] - low) * weight
            keys.append(key)
        w0, low0 = weights[0], lows[0]
        return keys[0], keys[1], lambda k: k // w0 + low0
    rows = np.stack([np.concatenate(pair) for pair in columns], axis=1)
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)  # a sort (rows, not hash)
    inverse = inverse.reshape(-1).astype(np.int64)
    n_gold = len(columns[0][0])
    return inverse[:n_gold], inverse[n_gold:], lambda k: unique[k, 0]


def _kept(keys: IntArray, same_start: SameStart) -> IntArray:
    """Row numbers of the annotation each distinct key keeps, in key order.

    ``same_start`` last: the last row of each key (the official overwriting), first: the first.
    Sorts ``key * n + row`` (one plain sort) when it fits in 63 bits, else a stable argsort.
    """
    import numpy as np

    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if (int(keys.max()) + 1) * n < 2**63:
        combined = np.sort(keys * n + np.arange(n, dtype=np.int64))
        key, row = np.divmod(combined, n)
    else:
        order = np.argsort(keys, kind="stable")
        key, row = keys[order], order
    change = key[1:] != key[:-1]
    if same_start is SameStart.first:
        return row[np.concatenate(([True], change))]
    return row[np.concatenate((change, [True]))]


def _distinct(keys: IntArray) -> IntArray:
    """The distinct keys, sorted (a plain sort: ``np.unique`` hashes, slowly on big arrays)."""
    import numpy as np

    ordered = np.sort(keys)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _common(left: IntArray, right: IntArray) -> tuple[IntArray, IntArray]:
    """Positions ``(i, j)`` with ``left[i] == right[j]``, both sorted and distinct."""
    import numpy as np

    at = np.searchsorted(left, right)
    inside = at < len(left)
    found = np.zeros(len(right), dtype=bool)
    found[inside] = left[at[inside]] == right[inside]
    return at[found], np.flatnonzero(found)


def _token_rows(side: Columns, table: SpanTable) -> tuple[IntArray, IntArray, IntArray]:
    """(document, absolute start, length) of every token of every annotation of ``side``."""
    import numpy as np

    entry = table.entry[side.text]
    size = table.size[entry]
    total = int(size.sum())
    row = np.repeat(table.first[entry] - (np.cumsum(size) - size), size) + np.arange(total)
    start = np.repeat(side.start, size) + table.offset[row]
    return np.repeat(side.note, size), start, table.length[row]


def category_counts(
    gold: Columns,
    pred: Columns,
    table: SpanTable,
    documents: int,
    *,
    relax_margin: int = 2,
    same_start: SameStart = SameStart.last,
    hipaa: IntArray | None = None,
) -> CategoryTally:
    """Per-document counts of one category, all notes at once: :func:`note_counts` of each note.

    ``hipaa`` (per type number, from :func:`hipaa_flags`) adds the ``hipaa_*`` level.  A test
    pins every count to :func:`note_counts` on random notes.
    """
    import numpy as np

    def per_document(notes: IntArray) -> IntArray:
        return np.bincount(notes, minlength=documents).astype(np.int64)

    g_keys, p_keys, _ = _packed((gold.note, pred.note), (gold.start, pred.start))
    g_rows, p_rows = _kept(g_keys, same_start), _kept(p_keys, same_start)
    gi, pi = _common(g_keys[g_rows], p_keys[p_rows])
    g_at, p_at = g_rows[gi], p_rows[pi]
    note = gold.note[g_at]
    difference = np.abs(pred.length[p_at] - gold.length[g_at])
    strict = difference == 0
    g_kind, p_kind = gold.kind[g_at], pred.kind[p_at]
    tps = {
        "instance_relax": difference <= relax_margin,
        "instance_strict": strict,
        "type": strict & (g_kind == p_kind) & (g_kind != 0),
    }
    unknown = 0
    if hipaa is not None:
        g_flag = hipaa[g_kind]
        tps["hipaa"] = strict & (g_flag >= 0) & (g_flag == hipaa[p_kind])
        for side, rows in ((gold, g_rows), (pred, p_rows)):
            kinds = side.kind[rows]
            unknown += int(np.count_nonzero((kinds != 0) & (hipaa[kinds] < 0)))
    n_gold, n_pred = per_document(gold.note[g_rows]), per_document(pred.note[p_rows])
    columns: dict[str, IntArray] = {}
    for name, matched in tps.items():
        tp = per_document(note[matched])
        columns[f"{name}_tp"] = tp
        columns[f"{name}_fp"] = n_pred - tp
        columns[f"{name}_fn"] = n_gold - tp
    g_token, p_token = _token_rows(gold, table), _token_rows(pred, table)
    g_keys, p_keys, document_of = _packed(*zip(g_token, p_token, strict=True))
    g_keys, p_keys = _distinct(g_keys), _distinct(p_keys)
    both = p_keys[_common(g_keys, p_keys)[1]]
    tp = per_document(document_of(both))
    columns["token_strict_tp"] = tp
    columns["token_strict_fp"] = per_document(document_of(p_keys)) - tp
    columns["token_strict_fn"] = per_document(document_of(g_keys)) - tp
    fixes = int(table.fixed[table.entry[gold.text]].sum()) + int(
        table.fixed[table.entry[pred.text]].sum()
    )
    return CategoryTally(
        columns, len(gold.note) - len(g_rows), len(pred.note) - len(p_rows), unknown, fixes
    )
