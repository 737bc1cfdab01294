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

from collections.abc import Sequence
from dataclasses import dataclass

from annoscore.counts import Counts, Number
from annoscore.metrics.prf import prf, ratio
from annoscore.result import Details

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

    >>> counts, _ = conlleval_counts(["B-X", "E-X", "B-X", "E-X"], ["B-X", "I-X", "I-X", "E-X"],
    ...                              [False] * 4, [0])
    >>> counts[0]["tp"], counts[0]["fp"], counts[0]["fn"]
    (1, 0, 0)
    """
    parts: dict[str, tuple[str, str]] = {}
    pairs: dict[tuple[str, str], tuple[bool, bool]] = {}

    def parse(tag: str) -> tuple[str, str]:
        found = parts.get(tag)
        if found is None:
            found = parts[tag] = split_tag(raw_tag(tag, outside) if raw else tag)
        return found

    def events(previous: str, tag: str) -> tuple[bool, bool]:
        found = pairs.get((previous, tag))
        if found is None:
            (p, pt), (c, ct) = parse(previous), parse(tag)
            found = pairs[(previous, tag)] = (chunk_start(p, pt, c, ct), chunk_end(p, pt, c, ct))
        return found

    n_docs = len(starts)
    tokens = [0] * n_docs
    right = [0] * n_docs
    found_gold: list[dict[str, int]] = [{} for _ in range(n_docs)]
    found_guess: list[dict[str, int]] = [{} for _ in range(n_docs)]
    correct: list[dict[str, int]] = [{} for _ in range(n_docs)]
    boundary_tag = "\0O"  # a boundary reads as O on both sides, whatever -r and -o say
    parts[boundary_tag] = ("O", "")
    previous_gold = previous_guess = boundary_tag
    in_correct = False
    correct_doc = 0
    doc = 0
    next_start = starts[1] if n_docs > 1 else -1
    for i, (g, s, b) in enumerate(zip(gold, guess, boundary, strict=True)):
        if i == next_start:
            doc += 1
            next_start = starts[doc + 1] if doc + 1 < n_docs else -1
        if b:
            g = s = boundary_tag
        start_gold, end_gold = events(previous_gold, g)
        start_guess, end_guess = events(previous_guess, s)
        gold_tag, gold_type = parse(g)
        guess_tag, guess_type = parse(s)
        if in_correct:
            if end_gold and end_guess and parse(previous_gold)[1] == parse(previous_guess)[1]:
                in_correct = False
                kind = parse(previous_gold)[1]
                table = correct[correct_doc]
                table[kind] = table.get(kind, 0) + 1
            elif end_gold != end_guess or guess_type != gold_type:
                in_correct = False
        if start_gold and start_guess and guess_type == gold_type:
            in_correct = True
            correct_doc = doc
        if start_gold:
            table = found_gold[doc]
            table[gold_type] = table.get(gold_type, 0) + 1
        if start_guess:
            table = found_guess[doc]
            table[guess_type] = table.get(guess_type, 0) + 1
        if not b:
            tokens[doc] += 1
            if gold_tag == guess_tag and gold_type == guess_type:
                right[doc] += 1
        previous_gold, previous_guess = g, s
    if in_correct:
        kind = parse(previous_gold)[1]
        table = correct[correct_doc]
        table[kind] = table.get(kind, 0) + 1
    out = []
    gold_types: set[str] = set()
    guessed_types: set[str] = set()
    for d in range(n_docs):
        gold_types.update(found_gold[d])
        guessed_types.update(found_guess[d])
        out.append(_document_counts(tokens[d], right[d], found_gold[d], found_guess[d], correct[d]))
    return out, ConllevalDetails(frozenset(gold_types), frozenset(guessed_types))


def _document_counts(
    tokens: int,
    right: int,
    found_gold: dict[str, int],
    found_guess: dict[str, int],
    correct: dict[str, int],
) -> Counts:
    tp = sum(correct.values())
    data: dict[str, Number] = {
        "tokens": tokens,
        "correct_tokens": right,
        "tp": tp,
        "fp": sum(found_guess.values()) - tp,
        "fn": sum(found_gold.values()) - tp,
    }
    for kind in sorted(found_gold.keys() | found_guess.keys()):
        hit = correct.get(kind, 0)
        data[f"type:{kind}:tp"] = hit
        data[f"type:{kind}:fp"] = found_guess.get(kind, 0) - hit
        data[f"type:{kind}:fn"] = found_gold.get(kind, 0) - hit
    return Counts(data)


def conlleval_scores(counts: Counts) -> dict[str, float | None]:
    """``accuracy`` (correct tokens / tokens), ``precision``, ``recall``, ``f1`` of the
    chunks; ``None`` where undefined.  Counts without ``tokens`` (a type's) have no accuracy.

    >>> conlleval_scores(Counts(tokens=4, correct_tokens=3, tp=1, fp=1, fn=0))
    {'accuracy': 0.75, 'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    >>> conlleval_scores(Counts(tp=1, fn=1))
    {'precision': 1.0, 'recall': 0.5, 'f1': 0.6666666666666666}
    """
    scores = prf(counts["tp"], counts["fp"], counts["fn"]).as_dict()
    if "tokens" not in counts:
        return scores
    return {"accuracy": ratio(counts["correct_tokens"], counts["tokens"]), **scores}
