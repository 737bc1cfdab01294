"""Entities of tag sequences as seqeval 1.2.2 finds them, in its default and its strict mode.

**Default mode** (seqeval's ``get_entities``): the sentences are joined with one ``O`` between
them and read as one sequence (then a final ``O``).  A tag's prefix is its first character and
its type what follows the first hyphen after it (``B-X``: ``B``, ``X``; a bare ``PER`` reads as
``P``, ``ER``; no type reads as ``_``).  Between the previous tag ``p`` and the current one
``c``, a chunk **ends** after ``p`` when ``p`` is E or S, at B→B, B→S, B→O, I→B, I→S, I→O, or
when the type changes and ``p`` is not O or ``.``; a chunk **starts** at ``c`` when ``c`` is B
or S, at E→E, E→I, S→E, S→I, O→E, O→I, or when the type changes and ``c`` is not O or ``.``
(seqeval keeps conlleval's ``.``: found by the differential test against seqeval 1.2.2, where
formats.md says it has no ``.`` handling).  An entity is (type,
first, last), found where a chunk ends.

**Strict mode** (``mode='strict'`` with a scheme): every tag must carry a prefix the scheme
allows (else an :class:`~annoscore.errors.InputError`; seqeval raises).  Within one sentence
(then an ``O``), an entity starts at a token whose (previous, current) prefixes and type relation
are a start pattern of the scheme, takes the following tokens while they are inside patterns,
and counts only when the token after it closes it by an end pattern; the scan goes on after it
either way.  The patterns (previous, current, types: same, different or any):

========  ==========================================  =====================  ====================
scheme    start                                       inside                 end (last, next)
========  ==========================================  =====================  ====================
IOB1      O→I, I→I diff, B→I, I→B same, B→B same      B→I, I→I same          I→I diff, I→O, I→B,
                                                                             B→O, B→I diff,
                                                                             B→B same
IOE1      O→I, I→I diff, E→I, E→E same                I→I, I→E same          I→I diff, I→O,
                                                                             I→E diff, E→I same,
                                                                             E→E same
IOB2      any→B                                       B→I, I→I same          I→O, I→I diff, I→B,
                                                                             B→O, B→I diff, B→B
IOE2      O→I, O→E, E→I, E→E, I→I diff, I→E diff      I→E, I→I same          E→any
IOBES     any→B, any→S                                B→I, B→E, I→I, I→E     E→any, S→any
                                                      same
BILOU     any→B, any→U                                B→I, B→L, I→I, I→L     L→any, U→any
                                                      same
IO        O→I, I→I diff                               I→I same               I→O, I→I diff
========  ==========================================  =====================  ====================

(IO is annoscore's: seqeval has no IO scheme.)  seqeval's traps stay what they are, named by the
task: IOB2 data read as IOB1 loses each entity's first token (B after O is no IOB1 start), and an
ill-formed sequence (``I-X I-X`` in IOB2) yields no entity: each non-O token outside every entity
is *ill-formed* and counted (:class:`Entities`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING

from annoscore.counts import Counts, Number
from annoscore.formats.bio_tags import (
    Entity,
    _default_entity_arrays,
    _types,
)
from annoscore.metrics.prf import prf, ratio

if TYPE_CHECKING:
    from annoscore.arrays import IntArray


class Scheme(str, Enum):
    """A tagging scheme (seqeval's names, lower case; ``io`` is annoscore's)."""

    iob1 = "iob1"
    iob2 = "iob2"
    ioe1 = "ioe1"
    ioe2 = "ioe2"
    iobes = "iobes"
    bilou = "bilou"
    io = "io"


class Mode(str, Enum):
    """seqeval's modes: ``default`` (``get_entities``, conlleval-like) or ``strict``."""

    default = "default"
    strict = "strict"


def default_mode_item_counts(
    names: list[str],
    gold: IntArray,
    guess: IntArray,
    separators: IntArray,
    item_doc: IntArray | None,
    documents: int,
    start: int = 0,
) -> list[Counts]:
    """The counts of each document in seqeval's default mode, of a sequence of items: tokens,
    and at ``separators`` (ascending) items that are not tokens (where seqeval joins sentences
    with an ``O``; their codes are not read).  Item ``i``'s tags are ``names[gold[i]]`` and
    ``names[guess[i]]``; ``item_doc[i]`` its document (``None``: all in document 0).  An entity
    belongs to the document of its first token.  A run of separators reads as one ``O``
    (``O`` then ``O`` ends and starts no chunk).  ``start``: the item where seqeval's sequence
    begins (the separators before it are not read: a file's blank lines before its first
    token; :func:`~annoscore.formats.bio_tags._default_entity_arrays` with ``first``).

    >>> import numpy as np
    >>> c = default_mode_item_counts(
    ...     ["B-X", "I-X", "O"], np.array([0, 1, 0, 0]), np.array([0, 1, 0, 2]),
    ...     np.array([2]), None, 1)
    >>> c[0]["tokens"], c[0]["tp"], c[0]["fn"]
    (3, 1, 1)
    """
    import numpy as np

    n = len(gold)
    token = np.ones(n, dtype=bool)
    token[separators] = False
    kinds = _types(names)
    type_names = list(dict.fromkeys(kinds))
    n_types = len(type_names)
    ends = []
    keys = []
    tables = []
    for column in (gold, guess):
        kind, begin, end = _default_entity_arrays(column, names, start, separators)
        ends.append(end)
        keys.append(kind * (n + 1) + begin)
        tables.append(kind if item_doc is None else item_doc[begin] * n_types + kind)
    # at most one entity of a side ends at a place: a gold entity is found when the predicted
    # one that ends where it ends has its type and begin
    predicted_at = np.full(n + 1, -1, dtype=np.int64)
    predicted_at[ends[1]] = keys[1]
    hit_gold = predicted_at[ends[0]] == keys[0]
    size = documents * n_types
    gold_table = np.bincount(tables[0], minlength=size).reshape(documents, n_types)
    guess_table = np.bincount(tables[1], minlength=size).reshape(documents, n_types)
    hits = np.bincount(tables[0][hit_gold], minlength=size).reshape(documents, n_types)
    same = token & (gold == guess)  # one code per distinct tag: equal codes, equal tags
    if item_doc is None:
        tokens = np.array([n - len(separators)])
        right = np.array([np.count_nonzero(same)])
    else:
        tokens = np.bincount(item_doc[token], minlength=documents)
        right = np.bincount(item_doc[same], minlength=documents)
    return table_counts(tokens, right, gold_table, guess_table, hits, type_names)


def table_counts(
    tokens: IntArray,
    right: IntArray,
    gold_table: IntArray,
    guess_table: IntArray,
    hits: IntArray,
    type_names: Sequence[str],
) -> list[Counts]:
    """The counts of each document ``d`` (seqeval's default mode, conlleval): ``tokens[d]``,
    ``right[d]`` correct tokens, and per type ``type_names[t]`` the entities of gold
    (``gold_table[d, t]``), guessed (``guess_table[d, t]``) and correct (``hits[d, t]``):
    tp = correct, fp = guessed - correct, fn = gold - correct, overall and for each type found
    on either side (``type:NAME:tp``..., in name order)."""
    tokens_of, right_of = tokens.tolist(), right.tolist()
    rows = zip(gold_table.tolist(), guess_table.tolist(), hits.tolist(), strict=True)
    by_name = sorted(range(len(type_names)), key=type_names.__getitem__)
    out = []
    for d, (g, s, h) in enumerate(rows):
        tp = sum(h)
        data: dict[str, Number] = {"tokens": tokens_of[d], "correct_tokens": right_of[d]}
        data.update(tp=tp, fp=sum(s) - tp, fn=sum(g) - tp)
        for t in by_name:
            if g[t] or s[t]:
                data[f"type:{type_names[t]}:tp"] = h[t]
                data[f"type:{type_names[t]}:fp"] = s[t] - h[t]
                data[f"type:{type_names[t]}:fn"] = g[t] - h[t]
        out.append(Counts(data))
    return out


# --- strict mode -----------------------------------------------------------------------------

_ANY, _SAME, _DIFF = "any", "same", "diff"
Pattern = tuple[str, str, str]

_ALLOWED: dict[Scheme, frozenset[str]] = {
    Scheme.iob1: frozenset("IOB"),
    Scheme.ioe1: frozenset("IOE"),
    Scheme.iob2: frozenset("IOB"),
    Scheme.ioe2: frozenset("IOE"),
    Scheme.iobes: frozenset("IOBES"),
    Scheme.bilou: frozenset("BILOU"),
    Scheme.io: frozenset("IO"),
}


def _patterns(text: str) -> frozenset[Pattern]:
    out = []
    for item in text.split():
        a, b, rel = item.split(",")
        out.append((a, b, rel))
    return frozenset(out)


_PATTERNS: dict[Scheme, tuple[frozenset[Pattern], frozenset[Pattern], frozenset[Pattern]]] = {
    Scheme.iob1: (
        _patterns("O,I,any I,I,diff B,I,any I,B,same B,B,same"),
        _patterns("B,I,same I,I,same"),
        _patterns("I,I,diff I,O,any I,B,any B,O,any B,I,diff B,B,same"),
    ),
    Scheme.ioe1: (
        _patterns("O,I,any I,I,diff E,I,any E,E,same"),
        _patterns("I,I,same I,E,same"),
        _patterns("I,I,diff I,O,any I,E,diff E,I,same E,E,same"),
    ),
    Scheme.iob2: (
        _patterns("*,B,any"),
        _patterns("B,I,same I,I,same"),
        _patterns("I,O,any I,I,diff I,B,any B,O,any B,I,diff B,B,any"),
    ),
    Scheme.ioe2: (
        _patterns("O,I,any O,E,any E,I,any E,E,any I,I,diff I,E,diff"),
        _patterns("I,E,same I,I,same"),
        _patterns("E,*,any"),
    ),
    Scheme.iobes: (
        _patterns("*,B,any *,S,any"),
        _patterns("B,I,same B,E,same I,I,same I,E,same"),
        _patterns("S,*,any E,*,any"),
    ),
    Scheme.bilou: (
        _patterns("*,B,any *,U,any"),
        _patterns("B,I,same B,L,same I,I,same I,L,same"),
        _patterns("U,*,any L,*,any"),
    ),
    Scheme.io: (
        _patterns("O,I,any I,I,diff"),
        _patterns("I,I,same"),
        _patterns("I,O,any I,I,diff"),
    ),
}


def strict_parts(tag: str) -> tuple[str, str]:
    """Prefix and type of a tag as seqeval's strict mode reads it (the first character; the
    rest without its surrounding hyphens, or ``_``).

    >>> strict_parts("B-PER"), strict_parts("O"), strict_parts("I-DNA-binding")
    (('B', 'PER'), ('O', '_'), ('I', 'DNA-binding'))
    """
    return tag[0], tag[1:].strip("-") or "_"


def _matches(patterns: frozenset[Pattern], a: tuple[str, str], b: tuple[str, str]) -> bool:
    same = a[1] == b[1]
    for first, second, relation in patterns:
        if (
            (first == "*" or first == a[0])
            and (second == "*" or second == b[0])
            and (relation == _ANY or (relation == _SAME) == same)
        ):
            return True
    return False


class StrictReader:
    """Strict-mode entities of one scheme (the module doc), with its pattern tests cached."""

    __slots__ = ("scheme",)

    def __init__(self, scheme: Scheme) -> None:  # a plain class: no generated code at import
        self.scheme = scheme

    def invalid(self, tag: str) -> bool:
        """Whether ``tag``'s prefix is not one the scheme allows (or the tag is empty)."""
        return not tag or tag[0] not in _ALLOWED[self.scheme]

    def entities(self, sentence: Sequence[str], offset: int = 0) -> tuple[list[Entity], list[int]]:
        """The entities of one sentence (tokens numbered from ``offset``) and the positions in
        the sentence of its non-O tokens that no entity covers (ill-formed).

        >>> StrictReader(Scheme.iob1).entities(["B-X", "I-X"])
        ([('X', 1, 2)], [0])
        >>> StrictReader(Scheme.iob2).entities(["I-X", "I-X", "B-Y", "I-Z"])
        ([('Y', 2, 3)], [0, 1, 3])
        """
        start_patterns, inside_patterns, end_patterns = _PATTERNS[self.scheme]
        tokens = [strict_parts(tag) for tag in sentence]
        tokens.append(("O", "_"))
        out: list[Entity] = []
        covered = [False] * len(sentence)
        i = 0
        previous = ("O", "_")
        while i < len(tokens):
            token = tokens[i]
            if _matches(start_patterns, previous, token):
                end = i + 1
                last = token
                while end < len(tokens) and _matches(inside_patterns, last, tokens[end]):
                    last = tokens[end]
                    end += 1
                if end < len(tokens) and _matches(end_patterns, tokens[end - 1], tokens[end]):
                    out.append((token[1], offset + i, offset + end))
                    covered[i:end] = [True] * (end - i)
                i = end
            else:
                i += 1
            previous = tokens[i - 1]
        loose = [j for j, tag in enumerate(sentence) if not covered[j] and tag[:1] != "O"]
        return out, loose


# --- counting --------------------------------------------------------------------------------


def entity_counts(gold: set[Entity], guess: set[Entity]) -> Counts:
    """tp, fp, fn of two entity sets, overall and per type (``type:NAME:tp``...).

    >>> entity_counts({("X", 0, 1), ("Y", 2, 3)}, {("X", 0, 1), ("X", 2, 3)})["type:X:fp"]
    1
    """
    hits = gold & guess
    data: dict[str, Number] = {
        "tp": len(hits),
        "fp": len(guess) - len(hits),
        "fn": len(gold) - len(hits),
    }
    per: dict[str, list[int]] = {}
    for kind, *_ in gold:
        per.setdefault(kind, [0, 0, 0])[2] += 1
    for kind, *_ in guess:
        per.setdefault(kind, [0, 0, 0])[1] += 1
    for kind, *_ in hits:
        row = per[kind]
        row[0] += 1
        row[1] -= 1
        row[2] -= 1
    for kind in sorted(per):
        tp, fp, fn = per[kind]
        data[f"type:{kind}:tp"] = tp
        data[f"type:{kind}:fp"] = fp
        data[f"type:{kind}:fn"] = fn
    return Counts(data)


def classification_report(
    per_type: dict[str, tuple[int, int, int]],
) -> dict[str, dict[str, float | None]]:
    """seqeval's ``classification_report(output_dict=True)`` of per-type (tp, fp, fn): per type
    and ``micro avg``, ``macro avg``, ``weighted avg`` of ``precision``, ``recall``,
    ``f1-score`` and ``support`` (the gold count); an undefined score is 0.0, as seqeval's
    ``zero_division`` default makes it, but the macro average of no type is ``None`` (seqeval:
    NaN).

    >>> classification_report({"X": (1, 1, 0)})["X"]
    {'precision': 0.5, 'recall': 1.0, 'f1-score': 0.6666666666666666, 'support': 1.0}
    """

    def scores(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        denominator = precision + recall
        f1 = 2 * precision * recall / denominator if denominator else 0.0
        return precision, recall, f1

    out: dict[str, dict[str, float | None]] = {}
    rows = []
    for kind in sorted(per_type):
        tp, fp, fn = per_type[kind]
        p, r, f = scores(tp, fp, fn)
        support = tp + fn
        rows.append((p, r, f, support))
        out[kind] = {"precision": p, "recall": r, "f1-score": f, "support": float(support)}
    all_tp, all_fp, all_fn = (sum(v[k] for v in per_type.values()) for k in range(3))
    total = float(all_tp + all_fn)
    p, r, f = scores(all_tp, all_fp, all_fn)
    out["micro avg"] = {"precision": p, "recall": r, "f1-score": f, "support": total}
    macro: Sequence[float | None] = [None, None, None]
    weighted: Sequence[float] = [0.0, 0.0, 0.0]
    if rows:
        import numpy as np

        table = np.array([row[:3] for row in rows], dtype=np.float64)
        weights = np.array([row[3] for row in rows], dtype=np.float64)
        macro = table.mean(axis=0).tolist()
        if weights.sum():
            weighted = np.average(table, axis=0, weights=weights).tolist()
    for name, values in (("macro avg", macro), ("weighted avg", weighted)):
        out[name] = {
            "precision": values[0],
            "recall": values[1],
            "f1-score": values[2],
            "support": total,
        }
    return out


def conlleval_scores(counts: Counts) -> dict[str, float | None]:
    """``accuracy`` (correct tokens / tokens), ``precision``, ``recall``, ``f1`` of the
    chunks; ``None`` where undefined.  Counts without ``tokens`` (a type's) have no accuracy.
    The scorer of ``annoscore conlleval`` and ``annoscore seqeval`` (here, so that seqeval's
    result does not import conlleval's counting).

    >>> conlleval_scores(Counts(tokens=4, correct_tokens=3, tp=1, fp=1, fn=0))
    {'accuracy': 0.75, 'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    >>> conlleval_scores(Counts(tp=1, fn=1))
    {'precision': 1.0, 'recall': 0.5, 'f1': 0.6666666666666666}
    """
    scores = prf(counts["tp"], counts["fp"], counts["fn"]).as_dict()
    if "tokens" not in counts:
        return scores
    return {"accuracy": ratio(counts["correct_tokens"], counts["tokens"]), **scores}
