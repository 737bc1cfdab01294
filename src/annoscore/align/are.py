"""What the ARE metrics compare, over a whole corpus: ids resolved to gold chains and list
places (tasks 1, 2), token ids turned into token positions (tasks 3, 4), and the one-to-one
mention alignment of task 4; every reference checked on the way.

A mention is a pair of token *positions* ``(first, last)``, inclusive: the positions of its start
and end ``<node>`` in the input text (``../shared/spec/are.md``, decision 8: lengths are counted
in the order of the input's nodes, never by id arithmetic).

**Overlap** (the seed's measure)::

    overlap(s1, s2) = |positions shared by s1 and s2| / max(len(s1), len(s2))

lengths in tokens.  "the government of Zair" vs "the government" shares 2 of max(4, 2) tokens:
0.5; "the government of Zair" vs "Zair's government" (another place in the text) shares none: 0,
whatever the words.

>>> overlap((10, 13), (10, 11))      # the government of Zair / the government
0.5
>>> overlap((10, 13), (20, 21))      # the government of Zair / Zair's government
0.0

**The alignment** (decision 9): per document, ``scipy.optimize.linear_sum_assignment`` on cost =
-overlap, gold mentions as rows and system mentions as columns, each in document order (start,
then end); its result, pairs of overlap 0 dropped, is the alignment (:func:`align_mentions`).
Among several optimal alignments that call decides which one, so a document is given to it
whole; only a document whose overlapping pairs are all isolated (each mention overlapping at
most one of the other side), where the optimal alignment is those pairs and no other, is aligned
without it.  A document that needs the assignment and has more than :data:`MAX_CELLS` gold x
system mentions is an input error naming it and its number of overlapping pairs (time and
memory stay bounded).

Checks (every function here): a reference without its attribute, an id that is not an entity of
the input, a token id that is not a node of the input, a start after its end, an id or mention
twice on one side, a pronoun listed twice, a document without its input: the first document with
any of them is handed to :func:`annoscore.align.are_checks.raise_first_error`, which names the
file, the line and the element of the first problem in document order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annoscore.align.are_checks import raise_first_error
from annoscore.align.are_documents import Corpus, Side
from annoscore.align.documents import row_keys
from annoscore.errors import InputError
from annoscore.formats.are import ABSENT

Mention = tuple[int, int]
"""A mention: the positions of its first and last token, inclusive."""

MAX_CELLS = 16_000_000
"""The most gold x system mention pairs of one document given to the assignment (a 4,000 x
4,000 matrix of float64, 128 MB, solved in seconds even when every mention overlaps every
other): beyond, an input error names the document (see the module doc)."""


BLOCK_CELLS = 2_000_000
"""The assignment's matrix is written this many cells at a time (bounded temporaries)."""


def overlap(first: Mention, second: Mention) -> float:
    """The seed's overlap: shared token positions over the longer mention's length (see above)."""
    shared = min(first[1], second[1]) - max(first[0], second[0]) + 1
    if shared <= 0:
        return 0.0
    return shared / max(first[1] - first[0] + 1, second[1] - second[0] + 1)


class Keys:
    """One integer per (document, code) pair, equal exactly when both are, for the codes of the
    given columns: ``document x span + code`` when that fits in 64 bits, else ranks of the
    distinct codes (exact either way; only codes of the given columns may be keyed)."""

    def __init__(self, documents: int, *columns: Any) -> None:
        import numpy as np

        filled = [c for c in columns if len(c)]
        self.values: Any = None
        self.low, self.span = 0, 1
        if not filled:
            return
        low = min(int(c.min()) for c in filled)
        high = max(int(c.max()) for c in filled)
        if max(documents, 1) * (high - low + 1) < 2**62:
            self.low, self.span = low, high - low + 1
        else:
            self.values = np.unique(np.concatenate(filled))
            self.span = len(self.values)

    def __call__(self, documents: Any, codes: Any) -> Any:
        import numpy as np

        if self.values is None:
            return documents * self.span + (codes - self.low)
        return documents * self.span + np.searchsorted(self.values, codes)


class Index:
    """Keys ready to be found, many at a time: a table indexed by the key when their range is
    about as long as they are (the usual case: a document's ids are numbered), else the keys
    sorted (``order`` sorts them, stably).  Exact either way."""

    def __init__(self, keys: Any) -> None:
        import numpy as np

        self.size = len(keys)
        self.table: Any = None
        self.low = 0
        if self.size:
            low, high = int(keys.min()), int(keys.max())
            if high - low < 4 * self.size + 1024:
                self.low = low
                self.table = np.full(high - low + 1, -1, dtype=np.int64)
                # the first of equal keys wins: written last
                self.table[keys[::-1] - low] = np.arange(self.size - 1, -1, -1)
                self.keys = keys
                return
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    def find(self, wanted: Any) -> Any:
        """For each wanted key, the index of an equal key (the first), or -1."""
        import numpy as np

        if not self.size:
            return np.full(len(wanted), -1, dtype=np.int64)
        if self.table is not None:
            at = wanted - self.low
            inside = (at >= 0) & (at < len(self.table))
            return np.where(inside, self.table[np.where(inside, at, 0)], -1)
        at = np.minimum(np.searchsorted(self.keys, wanted), self.size - 1)
        return np.where(self.keys[at] == wanted, self.order[at], -1)

    def contains(self, wanted: Any) -> Any:
        """Whether each wanted key is one of the keys."""
        found: Any = self.find(wanted) >= 0
        return found

    def repeated(self) -> Any:
        """Whether each key equals an earlier one."""
        import numpy as np

        if self.table is not None:
            first: Any = self.table[self.keys - self.low] != np.arange(self.size)
            return first
        repeated = np.zeros(self.size, dtype=bool)
        repeated[self.order[1:][self.keys[1:] == self.keys[:-1]]] = True
        return repeated


def lookup(keys: Any, wanted: Any) -> Any:
    """For each wanted key, the index of the equal key in ``keys`` (distinct), or -1."""
    return Index(keys).find(wanted)


def _repeated(keys: Any) -> Any:
    """Whether each key equals an earlier one (in the given order); sorted once, stably only
    when some key is twice."""
    import numpy as np

    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return np.zeros(len(keys), dtype=bool)
    return Index(keys).repeated()


def _flag(bad: Any, documents: Any, where: Any) -> None:
    """Mark ``bad`` the documents of the items where ``where``."""
    bad[documents[where]] = True


def _check(corpus: Corpus, bad: Any, task: int) -> None:
    """Raise the first error of the first bad document (the checks name it)."""
    import numpy as np

    if bad.any():
        raise_first_error(corpus, int(np.flatnonzero(bad)[0]), task)
        raise AssertionError("a document was found bad but no error was named")  # pragma: no cover


# --- tasks 1 and 2: ids ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChainColumns:
    """One side's chains over a corpus, as arrays.

    ``chain_document``: the document of each chain; ``sizes``: the members of each chain;
    ``member_chain``: the chain of each member; ``member_document``: the document of each
    member.  Tasks 3 and 4 add ``first`` and ``last``: each member's token positions
    (inclusive).
    """

    chain_document: Any
    sizes: Any
    member_chain: Any
    member_document: Any
    first: Any = None
    last: Any = None


def chain_columns(side: Side, first: Any = None, last: Any = None) -> ChainColumns:
    """The chain arrays of a side (see :class:`ChainColumns`)."""
    return ChainColumns(
        side.chain_document, side.chain_sizes, side.member_chain, side.member_document, first, last
    )


@dataclass(frozen=True, slots=True)
class IdLinks:
    """Task 1's documents as arrays, ids resolved to gold members and list places.

    Gold members (in file order): ``member_chain``, ``chain_sizes``, ``member_pronominal``
    (marked ``type="pronoun"`` or listed) and ``member_listed`` (the member's place in the
    list, ``-1``: not listed).  Listed pronouns (in list order): ``listed_document``,
    ``listed_code`` and ``listed_member`` (the gold member with its id, ``-1``: none).  System
    pairs (in document order): ``pair_document``, ``pair_listed`` (the pronoun's place in the
    list, ``-1``: not listed), ``pair_antecedent`` (the gold member with the antecedent's id,
    ``-1``: none), ``pair_self`` (the antecedent is the pronoun), and the codes of both.
    ``derived``: documents whose list was taken from the gold (no ``<anaphoric_pronouns>``);
    ``unchecked``: documents whose input marks no entity (ids not checked).
    """

    member_chain: Any
    chain_sizes: Any
    member_pronominal: Any
    member_listed: Any
    listed_document: Any
    listed_code: Any
    listed_member: Any
    pair_document: Any
    pair_listed: Any
    pair_antecedent: Any
    pair_self: Any
    pair_pronoun: Any
    pair_antecedent_code: Any
    derived: int
    unchecked: int


def _id_checks(
    corpus: Corpus, keys: Keys, bad: Any, sides: Sequence[Side]
) -> tuple[Index, Any, list[tuple[Any, Index]]]:
    """Flag the documents whose chains (on ``sides``) have a member without an id, an id the
    input does not know, or an id twice; returns the input's known keys (entities and listed
    pronouns), which documents check ids, and each side's member keys (as they are, and ready
    to be found)."""
    import numpy as np

    source = corpus.input
    count = len(corpus.documents)
    checked = source.present & (source.entity_sizes > 0)
    documents = np.arange(count)
    known = Index(
        np.concatenate(
            [
                keys(np.repeat(documents, source.entity_sizes), source.entities),
                keys(np.repeat(documents, source.listed_sizes), source.listed),
            ]
        )
    )
    found = []
    for side in sides:
        member_document = side.member_document
        ids = side.members.id
        _flag(bad, member_document, ids == ABSENT)
        member_keys = keys(member_document, ids)
        side_keys = Index(member_keys)
        found.append((member_keys, side_keys))
        _flag(bad, member_document, checked[member_document] & ~known.contains(member_keys))
        _flag(bad, member_document, side_keys.repeated())
    return known, checked, found


def id_links(corpus: Corpus) -> IdLinks:
    """Task 1: the list, the gold chains and the system pairs of every document, their ids
    resolved (see :class:`IdLinks`), every reference checked (see the module doc).

    The pronouns to resolve are the input's ``<anaphoric_pronouns>``; a document whose input has
    none takes the gold's ``type="pronoun"`` members of chains of two or more (none marked: an
    input error).
    """
    import numpy as np

    gold, system, source = corpus.gold, corpus.system, corpus.input
    count = len(corpus.documents)
    documents = np.arange(count)
    pair_document = system.pair_document
    pronouns, antecedents = system.pronouns.id, system.antecedents.id
    keys = Keys(
        count,
        gold.members.id,
        system.members.id,
        pronouns,
        antecedents,
        source.entities,
        source.listed,
    )
    bad = ~source.present
    known, checked, ((gold_keys, member_keys), _) = _id_checks(corpus, keys, bad, (gold, system))
    pair_keys = []
    for ids in (pronouns, antecedents):
        _flag(bad, pair_document, ids == ABSENT)
        pair_keys.append(keys(pair_document, ids))
        _flag(bad, pair_document, checked[pair_document] & ~known.contains(pair_keys[-1]))
    source_listed_document = np.repeat(documents, source.listed_sizes)
    source_listed = Index(keys(source_listed_document, source.listed))
    _flag(bad, source_listed_document, source_listed.repeated())
    member_document = gold.member_document
    marks = np.bincount(member_document[gold.pronominal], minlength=count) > 0
    bad |= ~source.has_list & ~marks
    _check(corpus, bad, 1)

    # the pronouns to resolve: the input's list, else the gold's marked members of chains of 2+
    derive = ~source.has_list
    member_chain = gold.member_chain
    derived = derive[member_document] & gold.pronominal & (gold.chain_sizes[member_chain] > 1)
    listed_document, listed_code = source_listed_document, source.listed
    listed = source_listed
    if derived.any():
        listed_document = np.concatenate([listed_document, member_document[derived]])
        listed_code = np.concatenate([listed_code, gold.members.id[derived]])
        order = np.argsort(listed_document, kind="stable")
        listed_document, listed_code = listed_document[order], listed_code[order]
        listed = Index(keys(listed_document, listed_code))
    member_listed = listed.find(gold_keys)
    return IdLinks(
        member_chain=member_chain,
        chain_sizes=gold.chain_sizes,
        member_pronominal=gold.pronominal | (member_listed >= 0),
        member_listed=member_listed,
        listed_document=listed_document,
        listed_code=listed_code,
        listed_member=member_keys.find(keys(listed_document, listed_code)),
        pair_document=pair_document,
        pair_listed=listed.find(pair_keys[0]),
        pair_antecedent=member_keys.find(pair_keys[1]),
        pair_self=pronouns == antecedents,
        pair_pronoun=pronouns,
        pair_antecedent_code=antecedents,
        derived=int(derive.sum()),
        unchecked=int((source.present & (source.entity_sizes == 0)).sum()),
    )


@dataclass(frozen=True, slots=True)
class IdChains:
    """Task 2: both sides' chains, and for each system member the gold member holding the same
    id in the same document (``match_member``, ``-1``: none) and its chain (``match``);
    ``unchecked``: documents whose input marks no entity."""

    gold: ChainColumns
    system: ChainColumns
    match: Any
    match_member: Any
    unchecked: int


def id_chains(corpus: Corpus) -> IdChains:
    """Task 2: both sides' chains of ids matched (see :class:`IdChains`), every id checked
    against the input's entities where the input marks some."""
    import numpy as np

    gold, system, source = corpus.gold, corpus.system, corpus.input
    count = len(corpus.documents)
    keys = Keys(count, gold.members.id, system.members.id, source.entities, source.listed)
    bad = np.zeros(count, dtype=bool)
    _, _, ((_, gold_keys), (system_keys, _)) = _id_checks(corpus, keys, bad, (gold, system))
    _check(corpus, bad, 2)
    gold_columns, system_columns = chain_columns(gold), chain_columns(system)
    found = gold_keys.find(system_keys)
    match = np.append(gold_columns.member_chain, -1)[found]  # -1 reads the sentinel
    unchecked = int((source.present & (source.entity_sizes == 0)).sum())
    return IdChains(gold_columns, system_columns, match, found, unchecked)


# --- tasks 3 and 4: token positions -----------------------------------------------------------


class TokenPositions:
    """Token ids to positions (0-based, in the order of each document's input nodes)."""

    def __init__(self, source: Side, keys: Keys) -> None:
        import numpy as np

        self.sizes = source.token_sizes
        self.starts = source.token_starts
        expected = np.arange(1, len(source.tokens) + 1) - np.repeat(self.starts, self.sizes)
        self.numbered = bool(np.array_equal(source.tokens, expected))  # ids 1, 2, ... n
        self.keys = keys
        self.index: Index | None = None
        if not self.numbered:
            documents = np.repeat(np.arange(len(self.sizes)), self.sizes)
            self.index = Index(keys(documents, source.tokens))

    def __call__(self, documents: Any, codes: Any) -> Any:
        """Each code's position in its document's tokens, or -1 (not a token there)."""
        import numpy as np

        if self.index is None:
            inside = (codes >= 1) & (codes <= self.sizes[documents])
            return np.where(inside, codes - 1, -1)
        found = self.index.find(self.keys(documents, codes))
        return np.where(found >= 0, found - self.starts[documents], -1)


def _mention_checks(
    positions: TokenPositions, bad: Any, documents: Any, refs: Any
) -> tuple[Any, Any]:
    """The positions of references (``-1`` where unknown), flagging the documents of a missing
    start or end, an unknown token, or a start after its end."""
    first = positions(documents, refs.start)
    last = positions(documents, refs.end)
    _flag(bad, documents, (first < 0) | (last < 0) | (first > last))
    return first, last


def _positions(corpus: Corpus, task: int) -> tuple[TokenPositions, Any, Any, Any]:
    """The token map, the checks of both sides' chains, and their positions."""
    gold, system, source = corpus.gold, corpus.system, corpus.input
    count = len(corpus.documents)
    columns = [source.tokens, gold.members.start, gold.members.end]
    columns += [system.members.start, system.members.end]
    if task == 3:
        columns += [*system.pronouns[1:], *system.antecedents[1:]]
    positions = TokenPositions(source, Keys(count, *columns))
    bad = ~source.present
    found = []
    tokens = int(source.token_sizes.sum())
    for side in (gold, system):
        member_document = side.member_document
        first, last = _mention_checks(positions, bad, member_document, side.members)
        _flag(bad, member_document, _twice(positions, member_document, first, last, tokens))
        found.append((first, last))
    return positions, bad, found[0], found[1]


def _twice(positions: TokenPositions, documents: Any, first: Any, last: Any, tokens: int) -> Any:
    """Whether each mention (known tokens) is an earlier one again: only mentions that share
    their first token with another are compared (counted per corpus-wide position)."""
    import numpy as np

    repeated = np.zeros(len(first), dtype=bool)
    known = np.flatnonzero(first >= 0)
    if len(known) < 2:
        return repeated
    start = positions.starts[documents[known]] + first[known]
    shared = np.bincount(start, minlength=tokens)[start] > 1
    if shared.any():
        some = known[shared]
        repeated[some] = _repeated(row_keys((documents[some], first[some], last[some]))[0][0])
    return repeated


@dataclass(frozen=True, slots=True)
class MentionPairs:
    """Task 3's system pairs as arrays: each pair's document, and its pronoun's and
    antecedent's first and last token positions."""

    document: Any
    pronoun_first: Any
    pronoun_last: Any
    antecedent_first: Any
    antecedent_last: Any


@dataclass(frozen=True, slots=True)
class MentionChains:
    """Tasks 3 and 4: both sides' chains with token positions, task 3's system pairs, and where
    each document's tokens begin among all the input's (``starts``; ``tokens`` in all): a
    position plus its document's start is unique over the corpus."""

    gold: ChainColumns
    system: ChainColumns
    pairs: MentionPairs | None
    starts: Any
    tokens: int


def mention_chains(corpus: Corpus, task: int) -> MentionChains:
    """Tasks 3 and 4: every mention turned into token positions (see the module doc), every
    reference checked; task 3 adds the system pairs."""

    positions, bad, gold_positions, system_positions = _positions(corpus, task)
    pairs = None
    system = corpus.system
    if task == 3:
        pair_document = system.pair_document
        parts = [
            _mention_checks(positions, bad, pair_document, refs)
            for refs in (system.pronouns, system.antecedents)
        ]
        pairs = MentionPairs(pair_document, *parts[0], *parts[1])
    _check(corpus, bad, task)
    return MentionChains(
        chain_columns(corpus.gold, *gold_positions),
        chain_columns(system, *system_positions),
        pairs,
        corpus.input.token_starts,
        int(corpus.input.token_sizes.sum()),
    )


# --- task 4: the alignment --------------------------------------------------------------------


def overlaps(gold: ChainColumns, system: ChainColumns, rows: Any, cols: Any) -> Any:
    """The overlap of gold mentions ``rows`` with system mentions ``cols`` (overlapping)."""
    import numpy as np

    shared = np.minimum(gold.last[rows], system.last[cols]) - np.maximum(
        gold.first[rows], system.first[cols]
    )
    longest = np.maximum(gold.last[rows] - gold.first[rows], system.last[cols] - system.first[cols])
    return (shared + 1) / (longest + 1)


class _Positions:
    """One side's mentions as corpus-wide token positions (``first``, ``last``: a position plus
    its document's first token), counted per position in arrays as long as the input (no
    sort): ``starting_before[k]`` mentions start before position k, ``ending_before[k]`` end
    before it; ``by_start`` lists the mentions by their first position where no two start at
    the same one (mentions starting at ``k`` are listed from ``starting_before[k]`` on)."""

    def __init__(self, side: ChainColumns, starts: Any, tokens: int) -> None:
        import numpy as np

        kind = np.int32 if tokens < 2**31 - 1 else np.int64  # half the memory, most corpora
        base = starts[side.member_document]
        self.first = base + side.first
        self.last = base + side.last
        self.starting_before = _before(self.first, tokens, kind)
        self.ending_before = _before(self.last, tokens, kind)
        self.by_start = np.zeros(len(self.first), dtype=np.int64)
        self.by_start[self.starting_before[self.first]] = np.arange(len(self.first))

    def overlapping(self, first: Any, last: Any) -> Any:
        """How many of these mentions each mention ``(first, last)`` overlaps: those starting
        at or before its last position, less those ending before its first (mentions of other
        documents are in both counts or in neither)."""
        counted: Any = self.starting_before[last + 1] - self.ending_before[first]
        return counted

    def starting_in(self, low: Any, high: Any) -> tuple[Any, Any]:
        """For ranges of positions ``[low, high]``: which hold exactly one start of these
        mentions, and that mention (meaningful where it is one)."""
        import numpy as np

        begin = self.starting_before[low]
        one = self.starting_before[high + 1] - begin == 1
        return one, self.by_start[np.minimum(begin, len(self.by_start) - 1)]


def _before(positions: Any, tokens: int, kind: Any) -> Any:
    """``found[k]``: how many positions are below k, for k = 0 .. tokens."""
    import numpy as np

    found = np.zeros(tokens + 1, dtype=kind)
    np.cumsum(np.bincount(positions, minlength=tokens), out=found[1:])
    return found


def align_mentions(mentions: MentionChains, keys: Sequence[str]) -> tuple[Any, Any, Any]:
    """Task 4's alignment of every document (see the module doc): ``(gold members, system
    members, overlaps)`` of the aligned pairs.

    A document whose mentions each overlap at most one of the other side is aligned at once:
    for a gold mention, the system mention starting inside it, or the one it starts inside
    (counts of mentions per position say which, without a sort).  Every other document goes
    whole to :func:`_assigned`.

    >>> import numpy as np
    >>> def side(first, last):
    ...     zero = np.zeros(len(first), dtype=np.int64)
    ...     return ChainColumns(zero[:1], np.array([len(first)]), zero, zero,
    ...                         np.array(first), np.array(last))
    >>> found = align_mentions(MentionChains(side([0, 5], [3, 5]), side([0, 5, 2], [1, 5, 3]),
    ...                                      None, np.array([0]), 6), ["d"])
    >>> [array.tolist() for array in found]
    [[0, 1], [0, 1], [0.5, 1.0]]
    """
    import numpy as np

    gold, system = mentions.gold, mentions.system
    count = len(keys)
    if not len(gold.first) or not len(system.first):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    gold_at = _Positions(gold, mentions.starts, mentions.tokens)
    system_at = _Positions(system, mentions.starts, mentions.tokens)
    gold_degree = system_at.overlapping(gold_at.first, gold_at.last)
    system_degree = gold_at.overlapping(system_at.first, system_at.last)
    several = np.zeros(count, dtype=bool)
    _flag(several, gold.member_document, gold_degree > 1)
    _flag(several, system.member_document, system_degree > 1)

    # documents of isolated pairs: each overlapping pair is aligned (no two mentions of a side
    # start at a position inside a mention of the other: it would overlap both)
    gold_in = np.flatnonzero((gold_degree == 1) & ~several[gold.member_document])
    system_in = np.flatnonzero((system_degree == 1) & ~several[system.member_document])
    # a system mention starting inside the gold one
    inside, found = system_at.starting_in(gold_at.first[gold_in], gold_at.last[gold_in])
    rows = [gold_in[inside]]
    cols = [found[inside]]
    # a gold mention starting inside the system one, after its start
    inside, found = gold_at.starting_in(system_at.first[system_in] + 1, system_at.last[system_in])
    rows.append(found[inside])
    cols.append(system_in[inside])

    # the other documents: the assignment over the whole document (members are in document
    # order: each document's are a range)
    dense = np.flatnonzero(several)
    if len(dense):
        gold_bounds = np.searchsorted(gold.member_document, np.append(dense, dense + 1))
        system_bounds = np.searchsorted(system.member_document, np.append(dense, dense + 1))
        for k, d in enumerate(dense.tolist()):
            chosen = _assigned(
                gold,
                system,
                np.arange(gold_bounds[k], gold_bounds[k + len(dense)]),
                np.arange(system_bounds[k], system_bounds[k + len(dense)]),
                int(gold_degree[gold_bounds[k] : gold_bounds[k + len(dense)]].sum()),
                keys[d],
            )
            rows.append(chosen[0])
            cols.append(chosen[1])
    found_rows, found_cols = np.concatenate(rows), np.concatenate(cols)
    return found_rows, found_cols, overlaps(gold, system, found_rows, found_cols)


def _assigned(
    gold: ChainColumns, system: ChainColumns, rows: Any, cols: Any, pairs: int, key: str
) -> tuple[Any, Any]:
    """``linear_sum_assignment`` on one document (decision 9): its aligned (gold member,
    system member) pairs, overlap 0 dropped; ``rows`` and ``cols`` its members, ``pairs`` its
    overlapping pairs (for the message when it is too large)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    rows = rows[np.lexsort((gold.last[rows], gold.first[rows]))]
    cols = cols[np.lexsort((system.last[cols], system.first[cols]))]
    cells = len(rows) * len(cols)
    if cells > MAX_CELLS:
        raise InputError(
            f"{len(rows)} gold and {len(cols)} system mentions with {pairs} overlapping pairs, "
            "some mentions overlapping several: the optimal one-to-one alignment "
            "(linear_sum_assignment over every gold x system mention pair, are.md decision 9) "
            f"is refused above {MAX_CELLS:,} such pairs (time and memory bound)",
            document=key,
        )
    # scipy solves the rectangular problem with no more rows than columns (it transposes
    # otherwise): written so here, the matrix is never copied; the result is the same
    transpose = len(rows) > len(cols)
    outer, inner = (system, gold) if transpose else (gold, system)
    outer_rows, inner_cols = (cols, rows) if transpose else (rows, cols)
    cost = np.empty((len(outer_rows), len(inner_cols)), dtype=np.float64)
    inner_first, inner_last = inner.first[inner_cols], inner.last[inner_cols]
    inner_length = inner_last - inner_first
    step = max(1, BLOCK_CELLS // max(len(inner_cols), 1))
    for start in range(0, len(outer_rows), step):
        part = outer_rows[start : start + step]
        first = outer.first[part][:, None]
        last = outer.last[part][:, None]
        shared = np.minimum(last, inner_last) - np.maximum(first, inner_first)
        longest = np.maximum(last - first, inner_length)
        block = cost[start : start + step]
        np.divide(-(shared + 1), longest + 1, out=block)
        block[shared < 0] = 0.0
    assigned_rows, assigned_cols = linear_sum_assignment(cost)
    kept = cost[assigned_rows, assigned_cols] < 0
    outer_found = outer_rows[assigned_rows[kept]]
    inner_found = inner_cols[assigned_cols[kept]]
    return (inner_found, outer_found) if transpose else (outer_found, inner_found)
