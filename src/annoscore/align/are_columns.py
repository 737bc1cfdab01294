"""The ARE alignments over whole corpora of columns (the columnar way of ``annoscore are``).

:mod:`annoscore.formats.are_columns` reads a file of the usual layout into flat columns; this
module pairs the three files' documents and, inside each document, the items the metrics
compare: ids to chains (tasks 1, 2), token ids to token positions (tasks 3, 4), system members
to the gold chain holding the same id (task 2), and the one-to-one mention alignment of task 4
(:func:`annoscore.align.are.align_mentions`, over the corpus with NumPy).  It makes no object per
element.

Every function returns ``None`` at the first thing it does not handle (documents it cannot pair
by position, an id the input does not know, an id or mention twice, a token that is not one of
the input, a start after its end): the caller then scores the task the checked way
(:mod:`annoscore.tasks.are`), which says what is wrong, naming file, line and element.  So this
module never decides an error, and both ways give the same numbers (tests compare them on random
corpora).

>>> import numpy as np
>>> token_positions(np.array([1, 3]), np.array([3, 3])).tolist()   # token "k" is position k - 1
[0, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from annoscore.formats.are_columns import ColumnFile, read_columns

ID_CHAINS = ("id-chains", "empty")
SPAN_CHAINS = ("span-chains", "empty")
ID_PAIRS = ("id-pairs", "empty")
SPAN_PAIRS = ("span-pairs", "empty")
"""The column kinds each side of a task accepts (a file of documents with nothing in them is
``empty``)."""


@dataclass(frozen=True, slots=True)
class ColumnCorpus:
    """The three files as columns, and the names of their documents (paired by position)."""

    keys: list[str]
    gold: ColumnFile
    system: ColumnFile
    input: ColumnFile | None


def pair_files(
    gold: Path, system: Path, input_path: Path | None, kinds: tuple[tuple[str, ...], ...]
) -> ColumnCorpus | None:
    """The three files as columns when each is one file of the expected kind and they hold
    the same documents (by id when every one has one, else by position), in the same order;
    ``None`` otherwise (folders, other layouts, documents to pair otherwise)."""
    paths = (gold, system, input_path)
    if any(path is not None and path.is_dir() for path in paths):
        return None
    files: list[ColumnFile | None] = []
    for path, allowed in zip(paths, kinds, strict=True):
        if path is None:
            files.append(None)
            continue
        columns = read_columns(path)
        if columns is None or columns.kind not in allowed:
            return None
        files.append(columns)
    present = [f for f in files if f is not None]
    count = len(present[0].keys)
    if not count or any(len(f.keys) != count for f in present):
        return None
    if all(key is not None for f in present for key in f.keys):
        keys = cast("list[str]", present[0].keys)
        if len(set(keys)) != count or any(f.keys != keys for f in present):
            return None
    else:
        keys = [str(position) for position in range(1, count + 1)]
    gold_columns, system_columns, input_columns = files
    assert gold_columns is not None and system_columns is not None
    return ColumnCorpus(keys, gold_columns, system_columns, input_columns)


_LARGEST = 2**62
"""Integer codes combining a document and ids or positions stay below this (int64)."""


# --- tasks 1 and 2: ids ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IdColumns:
    """Task 1's documents as arrays, ids resolved to gold members and list places.

    Gold members (in file order): ``member_chain``, ``chain_sizes``, ``member_pronominal``
    (marked ``type="pronoun"`` or listed) and ``member_listed`` (the member's place in the
    list, ``-1``: not listed).  Listed pronouns (in list order): ``listed_document`` and
    ``listed_member`` (the gold member with its id, ``-1``: none).  System pairs (in document
    order): ``pair_document``, ``pair_listed`` (the pronoun's place in the list, ``-1``: not
    listed), ``pair_antecedent`` (the gold member with the antecedent's id, ``-1``: none) and
    ``pair_self`` (the antecedent is the pronoun).
    """

    member_chain: Any
    chain_sizes: Any
    member_pronominal: Any
    member_listed: Any
    listed_document: Any
    listed_member: Any
    pair_document: Any
    pair_listed: Any
    pair_antecedent: Any
    pair_self: Any


def _lookup(sorted_keys: Any, order: Any, wanted: Any) -> Any:
    """For each wanted key, its index (``order[k]`` of the sorted key that equals it), or -1."""
    import numpy as np

    if not len(sorted_keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == wanted, order[at], -1)


def _sorted_unique(keys: Any) -> tuple[Any, Any] | None:
    """``(sorted keys, order)`` when no key is twice, else ``None``."""
    import numpy as np

    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    if (ordered[1:] == ordered[:-1]).any():
        return None
    return ordered, order


def id_columns(corpus: ColumnCorpus) -> IdColumns | None:
    """Task 1: the list, the gold chains and the system pairs of every document, their ids
    resolved (see :class:`IdColumns`).

    ``None`` (the checked way) when an input document lists no pronouns or marks no entity (the
    list is then derived from the gold, the ids unchecked), a pronoun is listed twice, an id is
    twice in the gold chains, or a gold or pair id is not an entity of the input.
    """
    import numpy as np

    source, gold, system = corpus.input, corpus.gold, corpus.system
    if source is None or not all(source.has_list) or 0 in source.sizes:
        return None
    documents = np.arange(len(corpus.keys))
    chains = chain_columns(gold)
    pair_document = np.repeat(documents, system.sizes)
    pronouns, antecedents = system.pair_columns or (gold.member_ids[:0], gold.member_ids[:0])
    ids = (source.entity_ids, source.listed_ids, gold.member_ids, pronouns, antecedents)
    width = 1 + max(int(column.max(initial=0)) for column in ids)
    if width * len(corpus.keys) >= _LARGEST:
        return None  # keys would not fit in 64 bits
    listed_document = np.repeat(documents, source.listed_sizes)
    listed = _sorted_unique(listed_document * width + source.listed_ids)
    members = _sorted_unique(chains.member_document * width + gold.member_ids)
    if listed is None or members is None:
        return None  # a pronoun listed twice, an id twice in the gold chains
    entities = np.repeat(documents, source.sizes) * width + source.entity_ids
    known = np.concatenate([entities, listed[0]])
    pronoun_keys = pair_document * width + pronouns
    antecedent_keys = pair_document * width + antecedents
    if not (
        np.isin(members[0], known).all()
        and np.isin(pronoun_keys, known).all()
        and np.isin(antecedent_keys, known).all()
    ):
        return None
    member_keys = chains.member_document * width + gold.member_ids
    member_listed = _lookup(*listed, member_keys)
    return IdColumns(
        member_chain=chains.member_chain,
        chain_sizes=chains.sizes,
        member_pronominal=gold.pronoun | (member_listed >= 0),
        member_listed=member_listed,
        listed_document=listed_document,
        listed_member=_lookup(*members, listed_document * width + source.listed_ids),
        pair_document=pair_document,
        pair_listed=_lookup(*listed, pronoun_keys),
        pair_antecedent=_lookup(*members, antecedent_keys),
        pair_self=pronouns == antecedents,
    )


@dataclass(frozen=True, slots=True)
class ChainColumns:
    """One side's chains over a corpus, as arrays.

    ``chain_document``: the document of each chain; ``sizes``: the members of each chain;
    ``member_chain``: the chain of each member; ``member_document``: the document of each
    member.  Task 4 adds ``first`` and ``last``: each member's token positions (inclusive).
    """

    chain_document: Any
    sizes: Any
    member_chain: Any
    member_document: Any
    first: Any = None
    last: Any = None


def chain_columns(f: ColumnFile) -> ChainColumns:
    """The chain arrays of a file of chains (see :class:`ChainColumns`)."""
    import numpy as np

    chain_document = np.repeat(np.arange(len(f.sizes)), f.sizes)
    sizes = np.array(f.chain_sizes, dtype=np.int64)
    member_chain = np.repeat(np.arange(len(sizes)), sizes)
    return ChainColumns(chain_document, sizes, member_chain, chain_document[member_chain])


def _document_keys(documents: Any, ids: Any, width: int) -> Any:
    """One integer per (document, id): ``document x width + id`` (``width`` > every id)."""
    return documents * width + ids


def id_chain_matches(corpus: ColumnCorpus) -> tuple[ChainColumns, ChainColumns, Any] | None:
    """Task 2: both sides' chains and, for each system member, the gold chain that holds the
    same id in the same document (``-1`` when none).

    ``None`` (the checked way) when an id is twice on one side, or (with an input) an input
    document marks no entity or an id is not one of its entities.
    """
    import numpy as np

    gold, system = chain_columns(corpus.gold), chain_columns(corpus.system)
    source = corpus.input
    ids = [corpus.gold.member_ids, corpus.system.member_ids]
    if source is not None:
        ids += [source.entity_ids, source.listed_ids]
    width = 1 + max((int(column.max(initial=0)) for column in ids), default=0)
    if width * len(corpus.keys) >= _LARGEST:
        return None  # keys would not fit in 64 bits
    gold_keys = _document_keys(gold.member_document, corpus.gold.member_ids, width)
    system_keys = _document_keys(system.member_document, corpus.system.member_ids, width)
    gold_order = np.argsort(gold_keys, kind="stable")
    sorted_gold = gold_keys[gold_order]
    sorted_system = np.sort(system_keys)
    if (sorted_gold[1:] == sorted_gold[:-1]).any() or (
        sorted_system[1:] == sorted_system[:-1]
    ).any():
        return None  # an id twice on one side
    if source is not None:
        if 0 in source.sizes:
            return None  # unchecked ids: the checked way
        documents = np.arange(len(corpus.keys))
        known = np.concatenate(
            [
                _document_keys(np.repeat(documents, source.sizes), source.entity_ids, width),
                _document_keys(np.repeat(documents, source.listed_sizes), source.listed_ids, width),
            ]
        )
        if not (np.isin(sorted_gold, known).all() and np.isin(sorted_system, known).all()):
            return None
    at = np.minimum(np.searchsorted(sorted_gold, system_keys), max(len(sorted_gold) - 1, 0))
    if len(sorted_gold):
        found = sorted_gold[at] == system_keys
        match = np.where(found, gold.member_chain[gold_order[at]], -1)
    else:
        match = np.full(len(system_keys), -1, dtype=np.int64)
    return gold, system, match


# --- tasks 3 and 4: token positions -----------------------------------------------------------


def numbered_tokens(f: ColumnFile) -> Any:
    """Each document's number of tokens when every document's token ids are ``"1"``, ``"2"``,
    ... in text order (an array), else ``None``."""
    import numpy as np

    sizes = np.array(f.sizes, dtype=np.int64)
    width = int(sizes.max(initial=0)) + 1
    if len(sizes) * width * width >= _LARGEST:
        return None  # (document, first, last) codes would not fit in 64 bits
    expected = np.arange(1, len(f.token_ids) + 1) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    if not np.array_equal(f.token_ids, expected):
        return None
    return sizes


def token_positions(written: Any, limits: Any) -> Any:
    """The positions (0-based) of numbered token ids (``k`` is token ``k - 1``), or ``None``
    when one is not a token of its document (``limits``: each item's document's token count).

    >>> import numpy as np
    >>> token_positions(np.array([1, 3]), np.array([3, 3])).tolist()
    [0, 2]
    >>> token_positions(np.array([1, 4]), np.array([3, 3])) is None
    True
    """
    positions = written - 1
    if len(positions) and ((positions < 0).any() or (positions >= limits).any()):
        return None
    return positions


def mention_positions(starts: Any, ends: Any, limits: Any) -> tuple[Any, Any] | None:
    """First and last token positions of mentions; ``None`` on any unknown token or a start
    after its end."""
    first = token_positions(starts, limits)
    last = token_positions(ends, limits)
    if first is None or last is None or (first > last).any():
        return None
    return first, last


def mention_chains(f: ColumnFile, tokens: Any) -> ChainColumns | None:
    """A side's chains of mentions with their token positions (``tokens``: each document's
    token count); ``None`` on a token the input lacks or a start after its end."""
    columns = chain_columns(f)
    found = mention_positions(f.member_ids, f.member_ends, tokens[columns.member_document])
    if found is None:
        return None
    first, last = found
    return ChainColumns(
        columns.chain_document,
        columns.sizes,
        columns.member_chain,
        columns.member_document,
        first,
        last,
    )


def distinct_mentions(side: ChainColumns, width: int) -> bool:
    """Whether no mention is twice on the side (in one document); ``width`` > any position."""
    import numpy as np

    code = np.sort((side.member_document * width + side.first) * width + side.last)
    return not (code[1:] == code[:-1]).any()


@dataclass(frozen=True, slots=True)
class PairColumns:
    """Task 3's system pairs as arrays: each pair's document, and its pronoun's and
    antecedent's first and last token positions."""

    document: Any
    pronoun_first: Any
    pronoun_last: Any
    antecedent_first: Any
    antecedent_last: Any


def mention_pairs(f: ColumnFile, tokens: Any) -> PairColumns | None:
    """The system pairs of mentions with their token positions; ``None`` on a token the input
    lacks or a start after its end."""
    import numpy as np

    document = np.repeat(np.arange(len(f.sizes)), f.sizes)
    limits = tokens[document]
    if not f.pair_columns:
        empty = np.zeros(0, dtype=np.int64)
        return PairColumns(document, empty, empty, empty, empty)
    pronoun_start, pronoun_end, antecedent_start, antecedent_end = f.pair_columns
    pronouns = mention_positions(pronoun_start, pronoun_end, limits)
    antecedents = mention_positions(antecedent_start, antecedent_end, limits)
    if pronouns is None or antecedents is None:
        return None
    return PairColumns(document, *pronouns, *antecedents)


# --- task 4: the alignment ----------------------------------------------------------------------


def overlapping_pairs(gold: ChainColumns, system: ChainColumns, width: int) -> Any:
    """Every (gold mention, system mention, overlap) of one document with overlap > 0, over
    the corpus: :func:`annoscore.align.are.overlapping_pairs`' sweep, with arrays.

    ``width`` is more than any token position; overlap = shared positions / longer length.
    """
    import numpy as np

    order = np.lexsort((system.first, system.member_document))
    sorted_keys = system.member_document[order] * width + system.first[order]
    reach = int((system.last - system.first).max(initial=0))
    low = np.searchsorted(sorted_keys, gold.member_document * width + gold.first - reach, "left")
    high = np.searchsorted(sorted_keys, gold.member_document * width + gold.last, "right")
    counts = high - low
    rows = np.repeat(np.arange(len(gold.first)), counts)
    steps = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = order[np.repeat(low, counts) + steps]
    keep = (system.member_document[cols] == gold.member_document[rows]) & (
        system.last[cols] >= gold.first[rows]
    )
    rows, cols = rows[keep], cols[keep]
    return rows, cols, overlaps(gold, system, rows, cols)


def overlaps(gold: ChainColumns, system: ChainColumns, rows: Any, cols: Any) -> Any:
    """The overlap of gold mentions ``rows`` with system mentions ``cols`` (overlapping)."""
    import numpy as np

    shared = np.minimum(gold.last[rows], system.last[cols]) - np.maximum(
        gold.first[rows], system.first[cols]
    )
    longest = np.maximum(gold.last[rows] - gold.first[rows], system.last[cols] - system.first[cols])
    return (shared + 1) / (longest + 1)


def align_mention_columns(
    gold: ChainColumns, system: ChainColumns, width: int
) -> tuple[Any, Any, Any]:
    """:func:`annoscore.align.are.align_mentions` over the corpus: ``(gold rows, system
    columns, overlaps)`` of the aligned pairs.

    A pair of mentions that overlap only each other is matched at once; each document's other
    pairs go to the project's optimal assignment, keyed by the mentions (so the choice among
    optimal alignments is the checked way's).
    """
    import numpy as np

    from annoscore.align.assignment import max_weight_matching

    rows, cols, weights = overlapping_pairs(gold, system, width)
    gold_first, gold_last = gold.first, gold.last
    system_first, system_last = system.first, system.last
    alone = (np.bincount(rows, minlength=len(gold_first))[rows] == 1) & (
        np.bincount(cols, minlength=len(system_first))[cols] == 1
    )
    matched_rows, matched_cols = [rows[alone]], [cols[alone]]
    rest = ~alone
    if rest.any():
        rest_rows, rest_cols, rest_weights = rows[rest], cols[rest], weights[rest]
        rest_documents = gold.member_document[rest_rows]
        for d in np.unique(rest_documents).tolist():
            inside = rest_documents == d
            edge_rows, edge_cols = rest_rows[inside].tolist(), rest_cols[inside].tolist()
            gold_of = {(gold_first[i], gold_last[i]): i for i in edge_rows}
            system_of = {(system_first[j], system_last[j]): j for j in edge_cols}
            chosen = max_weight_matching(
                (
                    (int(gold_first[i]), int(gold_last[i])),
                    (int(system_first[j]), int(system_last[j])),
                    w,
                )
                for i, j, w in zip(edge_rows, edge_cols, rest_weights[inside].tolist(), strict=True)
            )
            matched_rows.append(np.array([gold_of[g] for g, _ in chosen], dtype=np.int64))
            matched_cols.append(np.array([system_of[s] for _, s in chosen], dtype=np.int64))
    found_rows = np.concatenate(matched_rows)
    found_cols = np.concatenate(matched_cols)
    return found_rows, found_cols, overlaps(gold, system, found_rows, found_cols)
