"""Chunks of a tag stream as conlleval.pl (2004-01-26) finds and counts them.

Rules (``../shared/spec/formats.md``, observed):

* A tag splits at its **first** hyphen into prefix and type (``B-DNA-binding``: ``B``,
  ``DNA-binding``); a tag without a hyphen is all prefix, with the empty type.
* Between the previous tag ``p`` and the current one ``c``, a chunk **starts** at B→B, I→B, O→B,
  O→I, E→E, E→I, O→E, at any type change when ``c`` is not ``O`` or ``.``, and at ``[`` or ``]``;
  a chunk **ends** (before ``c``) at B→B, B→O, I→B, I→O, E→E, E→I, E→O, at any type change when
  ``p`` is not ``O`` or ``.``, and after ``[`` or ``]``.  ``S`` is not a prefix it knows, and E
  followed by B of the same type neither ends nor starts a chunk (``B-X E-X B-X E-X`` is one
  phrase, ``S-X S-X`` too).
* A chunk is **correct** when gold and guess start it together with the same type, neither
  diverges on the way (one ends and not the other, or the types differ), and both end together
  with the same type.
* A boundary item (blank or ``-X-`` line) reads as ``O`` on both sides: it ends chunks and is not
  a token.  **Accuracy** counts the tokens whose prefix and type both match.
* ``raw`` (``-r``): tags carry no prefix; the outside tag (``-o``) reads as ``O`` and every other
  tag as ``B-tag``.

Counts of one document (:func:`conlleval_counts`): ``tokens``, ``correct_tokens``, ``tp``
(correct chunks), ``fp`` (guessed chunks not correct), ``fn`` (gold chunks not correct), and per
type ``type:NAME:tp`` etc. (gold type for ``fn``, guessed type for ``fp``).  A chunk belongs to
the document where it starts.  Scores (:func:`conlleval_scores`): ``accuracy``, ``precision``,
``recall``, ``f1`` (:mod:`annoscore.metrics.prf`; undefined is ``None``, printed 0.00 by the
official layout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annoscore.counts import Counts
from annoscore.metrics.seqeval import conlleval_scores as conlleval_scores  # its scorer
from annoscore.metrics.seqeval import table_counts
from annoscore.records import Record, set_fields
from annoscore.result import Details

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, IntArray


_STARTS = frozenset(
    {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
)
_ENDS = frozenset(
    {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
)
_UNTYPED = frozenset({"O", "."})
_BRACKETS = frozenset({"[", "]"})


def split_tag(tag: str) -> tuple[str, str]:
    """Prefix and type of a tag, split at its first hyphen (no hyphen: all prefix).

    >>> split_tag("B-DNA-binding"), split_tag("PER"), split_tag("O")
    (('B', 'DNA-binding'), ('PER', ''), ('O', ''))
    """
    prefix, _, kind = tag.partition("-")
    return prefix, kind


def chunk_start(previous: str, previous_type: str, tag: str, kind: str) -> bool:
    """Whether a chunk starts at ``tag`` after ``previous`` (prefixes; the module doc).

    >>> chunk_start("E", "X", "B", "X"), chunk_start("O", "", "S", "X")
    (False, True)
    """
    return (
        (previous, tag) in _STARTS
        or tag in _BRACKETS
        or (tag not in _UNTYPED and previous_type != kind)
    )


def chunk_end(previous: str, previous_type: str, tag: str, kind: str) -> bool:
    """Whether a chunk ends before ``tag``, after ``previous`` (prefixes; the module doc).

    >>> chunk_end("E", "X", "B", "X"), chunk_end("S", "X", "S", "X")
    (False, False)
    """
    return (
        (previous, tag) in _ENDS
        or previous in _BRACKETS
        or (previous not in _UNTYPED and previous_type != kind)
    )


def raw_tag(tag: str, outside: str) -> str:
    """A raw tag (``-r``) as conlleval reads it: the outside tag is ``O``, any other ``B-tag``.

    >>> raw_tag("PER", "O"), raw_tag("NONE", "NONE"), raw_tag("O", "NONE")
    ('B-PER', 'O', 'B-O')
    """
    return "O" if tag == outside else "B-" + tag


@dataclass(frozen=True, slots=True)
class ConllevalDetails(Details):
    """What conlleval's layout needs beyond the counts: which types it saw on the gold side
    and on the guessed side (a type can be in one and not the other), in its own order."""

    gold_types: frozenset[str]
    guessed_types: frozenset[str]


class TagCodes(Record):
    """Both tag columns as small integers: ``gold[i]``, ``guess[i]`` index ``names``, one more
    code (``len(names)``) standing for a boundary item (``O`` on both sides, whatever ``-r``
    and ``-o`` say)."""

    __slots__ = ("gold", "guess", "names")
    gold: IntArray
    guess: IntArray
    names: list[str]

    def __init__(self, gold: IntArray, guess: IntArray, names: list[str]) -> None:
        set_fields(self, gold=gold, guess=guess, names=names)

    @classmethod
    def of(cls, gold: Sequence[str], guess: Sequence[str], boundary: Sequence[bool]) -> TagCodes:
        """The codes of two tag columns (each tag's code found once per distinct string)."""
        import numpy as np

        names = list(dict.fromkeys([*set(gold), *set(guess)]))
        index = {name: k for k, name in enumerate(names)}
        mark = np.asarray(boundary, dtype=bool)
        codes = []
        for column in (gold, guess):
            array = np.fromiter(map(index.__getitem__, column), dtype=np.int64, count=len(column))
            array[mark] = len(names)
            codes.append(array)
        return cls(codes[0], codes[1], names)


def _event_tables(
    parts: list[tuple[str, str]], rule: Callable[[str, str, str, str], bool]
) -> BoolArray:
    import numpy as np

    n = len(parts)
    table = np.zeros((n, n), dtype=bool)
    for a, (p, pt) in enumerate(parts):
        for b, (c, ct) in enumerate(parts):
            table[a, b] = rule(p, pt, c, ct)
    return table


def conlleval_counts(
    gold: Sequence[str],
    guess: Sequence[str],
    boundary: Sequence[bool],
    starts: Sequence[int],
    *,
    raw: bool = False,
    outside: str = "O",
) -> tuple[list[Counts], ConllevalDetails]:
    """The counts of each document of a tag stream (documents start at ``starts``, the first at
    0): conlleval's chunks and tokens (the module doc).

    Vectorised: the start and end decisions of each (previous, current) pair of distinct tags
    are tabled once; conlleval's running "in a correct chunk" flag is, after item ``k``, what
    the last item ``m <= k`` that starts a chunk on both sides with one type (flag on) or that
    ends a chunk on either side or holds two types (flag off) set it to (a start on both sides
    is decided after the end test, so it wins); a correct chunk is counted where the flag was
    on before an item that ends a chunk on both sides (the types are equal then: the flag goes
    off at any type difference), and at the end of the stream.  ``tests/oracles/bio.py`` holds
    the token-by-token reading it is tested against.

    >>> counts, _ = conlleval_counts(["B-X", "E-X", "B-X", "E-X"], ["B-X", "I-X", "I-X", "E-X"],
    ...                              [False] * 4, [0])
    >>> counts[0]["tp"], counts[0]["fp"], counts[0]["fn"]
    (1, 0, 0)
    """
    import numpy as np

    codes = TagCodes.of(gold, guess, boundary)
    parts = [split_tag(raw_tag(t, outside) if raw else t) for t in codes.names] + [("O", "")]
    types = list(dict.fromkeys(kind for _, kind in parts))
    type_of = np.array([types.index(kind) for _, kind in parts], dtype=np.int64)
    prefix_of = np.array([p for p, _ in parts], dtype=object)
    starts_table = _event_tables(parts, chunk_start)
    ends_table = _event_tables(parts, chunk_end)
    n = len(codes.gold)
    first = len(parts) - 1  # before the first item: a boundary (O)
    doc_of = np.zeros(n, dtype=np.int64)
    if len(starts) > 1:
        doc_of[np.asarray(starts[1:], dtype=np.int64)] = 1
        doc_of = np.cumsum(doc_of)
    n_docs = max(1, len(starts))
    g, s = codes.gold, codes.guess
    g_prev = np.concatenate(([first], g[:-1])) if n else g
    s_prev = np.concatenate(([first], s[:-1])) if n else s
    start_g, end_g = starts_table[g_prev, g], ends_table[g_prev, g]
    start_s, end_s = starts_table[s_prev, s], ends_table[s_prev, s]
    type_g, type_s = type_of[g], type_of[s]
    both_start = start_g & start_s & (type_g == type_s)
    event = end_g | end_s | (type_g != type_s)
    marks = np.where(both_start | event, np.arange(n), -1)
    last = np.maximum.accumulate(marks) if n else marks
    on_after = np.zeros(n, dtype=bool)
    seen = last >= 0
    on_after[seen] = both_start[last[seen]]
    on_before = np.concatenate(([False], on_after[:-1])) if n else on_after
    opened_before = np.concatenate(([-1], last[:-1])) if n else last
    hit = on_before & end_g & end_s
    hit_at = np.flatnonzero(hit)
    hit_type = type_of[g_prev[hit_at]]
    hit_doc = doc_of[opened_before[hit_at]]
    if n and on_after[-1]:  # a correct chunk still open at the end of the stream
        hit_type = np.append(hit_type, type_g[-1])
        hit_doc = np.append(hit_doc, doc_of[last[-1]])
    n_types = len(types)

    def table(docs: IntArray, kinds: IntArray) -> IntArray:
        flat = np.bincount(docs * n_types + kinds, minlength=n_docs * n_types)
        return flat.reshape(n_docs, n_types)

    found_gold = table(doc_of[np.flatnonzero(start_g)], type_g[start_g])
    found_guess = table(doc_of[np.flatnonzero(start_s)], type_s[start_s])
    correct = table(hit_doc, hit_type)
    token = ~np.asarray(boundary, dtype=bool) if n else np.zeros(0, dtype=bool)
    prefix_g = prefix_of[g]
    same = token & (type_g == type_s) & (prefix_g == prefix_of[s])
    tokens = np.bincount(doc_of[token], minlength=n_docs)
    right = np.bincount(doc_of[same], minlength=n_docs)
    out = table_counts(tokens, right, found_gold, found_guess, correct, types)
    gold_types = frozenset(types[t] for t in np.flatnonzero(found_gold.sum(axis=0)))
    guessed_types = frozenset(types[t] for t in np.flatnonzero(found_guess.sum(axis=0)))
    return out, ConllevalDetails(gold_types, guessed_types)


def conlleval_chunks(
    tags: Sequence[str], boundary: Sequence[bool], *, raw: bool = False, outside: str = "O"
) -> tuple[IntArray, IntArray, list[str]]:
    """The chunks conlleval finds in one tag column, for the HTML report: each chunk's first
    and last item and its type (its first tag's).  A chunk starts where
    :func:`chunk_start` says and ends before the next item where one ends
    (:func:`chunk_end`) or another starts.  :func:`conlleval_counts` counts these chunks
    (``found``); its correct ones are, on well-formed tags, the chunks both sides hold with
    the same first item, last item and type (the report checks that they agree).

    >>> first, last, types = conlleval_chunks(["B-X", "I-X", "O", "I-Y", "B-Y"], [False] * 5)
    >>> first.tolist(), last.tolist(), types
    ([0, 3, 4], [1, 3, 4], ['X', 'Y', 'Y'])
    """
    import numpy as np

    names = list(dict.fromkeys(tags))
    index = {name: k for k, name in enumerate(names)}
    codes = np.fromiter(map(index.__getitem__, tags), dtype=np.int64, count=len(tags))
    codes[np.asarray(boundary, dtype=bool)] = len(names)  # a boundary item: O
    parts = [split_tag(raw_tag(t, outside) if raw else t) for t in names] + [("O", "")]
    n = codes.shape[0]
    previous = np.concatenate(([len(names)], codes[:-1])) if n else codes
    start = _event_tables(parts, chunk_start)[previous, codes]
    stop = start | _event_tables(parts, chunk_end)[previous, codes]
    first = np.flatnonzero(start)
    stops = np.flatnonzero(stop)
    after = np.searchsorted(stops, first, side="right")
    ends = np.append(stops, n)
    last = ends[after] - 1
    return first, last, [parts[c][1] for c in codes[first].tolist()]
