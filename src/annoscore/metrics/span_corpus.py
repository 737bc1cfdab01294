"""A corpus of gold and predicted mentions, counted in any generic span mode.

:class:`SpanCorpus` gathers the mentions of many documents as columns (from mention objects, or
from a reader's entity columns without building an object per entity) and counts them with the
array path (:mod:`annoscore.metrics.span_tables`), documents with a discontinuous mention with
the mention path (:mod:`annoscore.metrics.spans`).  :func:`count_span_documents` pairs two sides'
documents and counts them: what the ``spans`` task and PharmaCoNER's span modes both score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any, Literal, Protocol, TypeVar, cast

import numpy as np

from annoscore.align.documents import Rule, differing_texts, pair_documents, text_warnings
from annoscore.align.span_arrays import Array, SpanArrays
from annoscore.align.span_modes import Duplicates, MatchOptions, SpanMode
from annoscore.errors import InputError
from annoscore.formats.brat import AnnFile, reader_warnings
from annoscore.metrics.span_tables import (
    CountTable,
    exact_table,
    in_runs,
    keys_fit,
    matched_table,
    semeval_table,
    token_table,
)
from annoscore.metrics.spans import PRF_NAMES, SEMEVAL_NAMES, mode_counts, semeval_counts, type_key
from annoscore.model import AnnotatedDocument, Mention
from annoscore.records import Record, set_fields
from annoscore.result import CountMatrix
from annoscore.score_warnings import ScoreWarning, merge_warnings


class EntityBlockArrays(Protocol):
    """Entities of many documents as arrays (a reader's, say ``formats.brat_model.EntityBlock``):
    ``starts``, ``ends``, ``type_codes`` (positions in ``type_names``), one row per entity."""

    starts: Array
    ends: Array
    type_codes: Array
    type_names: list[str]


class BlockRows(Protocol):
    """Rows ``lo:hi`` of a block: one document side's entities (continuous ones only)."""

    block: EntityBlockArrays
    lo: int
    hi: int


def _ranges(lo: Array, hi: Array) -> Array:
    """The positions ``lo[k]:hi[k]`` of every ``k``, one after another.

    >>> _ranges(np.array([5, 0, 9]), np.array([7, 0, 10])).tolist()
    [5, 6, 9]
    """
    sizes = hi - lo
    total = int(sizes.sum())
    firsts = np.cumsum(sizes) - sizes
    return np.repeat(lo - firsts, sizes) + np.arange(total, dtype=np.int64)


def _block_columns(
    all_rows: Sequence[BlockRows], type_number: defaultdict[str, int]
) -> tuple[Array, Array, Array, Array]:
    """Document, start, end and type-number columns of documents that are all rows of one
    reader's block (no Python code per entity)."""
    block = all_rows[0].block
    lo = np.fromiter(map(attrgetter("lo"), all_rows), dtype=np.int64, count=len(all_rows))
    hi = np.fromiter(map(attrgetter("hi"), all_rows), dtype=np.int64, count=len(all_rows))
    source = _ranges(lo, hi)
    doc = np.repeat(np.arange(len(all_rows), dtype=np.int64), hi - lo)
    numbers = np.array([type_number[t] for t in block.type_names], dtype=np.int64)
    return doc, block.starts[source], block.ends[source], numbers[block.type_codes[source]]


class EntityColumns(Protocol):
    """One document side's entities as columns: what :meth:`SpanCorpus.from_columns` reads."""

    @property
    def types(self) -> Sequence[str]: ...

    @property
    def starts(self) -> Sequence[int]: ...

    @property
    def ends(self) -> Sequence[int]: ...

    @property
    def has_discontinuous(self) -> bool: ...

    def mentions(self) -> Sequence[Mention]: ...


_START_END_LABEL = itemgetter("start", "end", "label")
_FRAGMENTS = attrgetter("span.fragments")
_TYPE = attrgetter("type")
_FIRST, _SECOND, _LAST = itemgetter(0), itemgetter(1), itemgetter(-1)
_DICT_ROW = np.dtype([("start", np.int64), ("end", np.int64), ("label", object)])


SideColumns = tuple[Array, Array, Array, Array]
"""One side of a corpus as columns: document, start, end and first-seen type number per row."""

Side = TypeVar("Side")


def _first_seen_numbering() -> defaultdict[Any, int]:
    """An empty mapping that numbers each key on its first lookup: 0, 1, 2, ... (one dict
    operation per lookup, no Python-level branch).

    >>> numbers = _first_seen_numbering()
    >>> [numbers[t] for t in ("PER", "LOC", "PER")], list(numbers)
    ([0, 1, 0], ['PER', 'LOC'])
    """
    numbering: defaultdict[Any, int] = defaultdict()
    numbering.default_factory = numbering.__len__
    return numbering


def _ranked_by_name(labels: list[str]) -> tuple[tuple[str, ...], Array]:
    """The labels sorted by name, and for each first-seen number (a position in ``labels``) its
    rank in that order.

    >>> types, rank = _ranked_by_name(["PER", "LOC", "ORG"])
    >>> types, rank.tolist()
    (('LOC', 'ORG', 'PER'), [2, 0, 1])
    """
    by_name = sorted(range(len(labels)), key=labels.__getitem__)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[by_name] = np.arange(len(labels), dtype=np.int64)
    return tuple(labels[i] for i in by_name), rank


def _mention_columns(
    side: Sequence[Sequence[Mention]], type_number: defaultdict[str, int], on_mention_path: Array
) -> SideColumns:
    """The columns of one side's mentions (``side[d]``: document ``d``'s).  A discontinuous
    mention's start and end are its first and last fragment's, and its document is marked in
    ``on_mention_path`` (the columns do not describe it)."""
    n_docs = on_mention_path.shape[0]
    sizes = np.fromiter(map(len, side), dtype=np.int64, count=n_docs)
    mentions = list(chain.from_iterable(side))
    n = len(mentions)
    fragments = list(map(_FRAGMENTS, mentions))
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
    first_seen = np.fromiter(
        map(type_number.__getitem__, map(_TYPE, mentions)), dtype=np.int64, count=n
    )
    # two numbers per fragment: exactly 2n when every mention is continuous
    bounds = np.fromiter(chain.from_iterable(chain.from_iterable(fragments)), np.int64)
    if bounds.shape[0] == 2 * n:
        starts, ends = bounds[0::2].copy(), bounds[1::2].copy()
    else:
        pieces = np.fromiter(map(len, fragments), dtype=np.int64, count=n)
        starts = np.fromiter(map(_FIRST, map(_FIRST, fragments)), dtype=np.int64, count=n)
        ends = np.fromiter(map(_SECOND, map(_LAST, fragments)), dtype=np.int64, count=n)
        on_mention_path[doc[pieces > 1]] = True
    return doc, starts, ends, first_seen


def _entity_columns(
    side: Sequence[EntityColumns], type_number: defaultdict[str, int], on_mention_path: Array
) -> SideColumns:
    """The columns of one side's entity columns (``side[d]``: document ``d``'s).  Documents
    that are rows of a reader's block are copied from its arrays (no Python code per entity);
    a document with a discontinuous entity is marked in ``on_mention_path``."""
    n_docs = on_mention_path.shape[0]
    for d, c in enumerate(side):  # its rows hold outer bounds only
        if c.has_discontinuous:
            on_mention_path[d] = True
    found: list[BlockRows | None] = [getattr(c, "rows", None) for c in side]
    block_rows = [r for r in found if r is not None]
    if n_docs and len(block_rows) == n_docs and len({id(r.block) for r in block_rows}) == 1:
        return _block_columns(block_rows, type_number)  # one reader's block
    sizes = np.fromiter((len(c.types) for c in side), dtype=np.int64, count=n_docs)
    n = int(sizes.sum())
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
    firsts = np.cumsum(sizes) - sizes
    starts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    first_seen = np.empty(n, dtype=np.int64)
    in_block: dict[int, tuple[BlockRows, list[int]]] = {}
    listed = []
    for d, c in enumerate(side):
        rows = getattr(c, "rows", None)
        if rows is not None:
            in_block.setdefault(id(rows.block), (rows, []))[1].append(d)
        else:
            listed.append(d)
    for some_rows, docs in in_block.values():  # a reader's arrays: no Python per entity
        block = some_rows.block
        ranges = [side[d].rows for d in docs]  # type: ignore[attr-defined]
        source = _ranges(np.array([r.lo for r in ranges]), np.array([r.hi for r in ranges]))
        target = _ranges(firsts[docs], firsts[docs] + sizes[docs])
        starts[target] = block.starts[source]
        ends[target] = block.ends[source]
        numbers = np.array([type_number[t] for t in block.type_names], dtype=np.int64)
        first_seen[target] = numbers[block.type_codes[source]]
    if listed:
        target = _ranges(firsts[listed], firsts[listed] + sizes[listed])
        count = target.shape[0]
        starts[target] = np.fromiter(
            chain.from_iterable(side[d].starts for d in listed), np.int64, count
        )
        ends[target] = np.fromiter(
            chain.from_iterable(side[d].ends for d in listed), np.int64, count
        )
        first_seen[target] = np.fromiter(
            map(type_number.__getitem__, chain.from_iterable(side[d].types for d in listed)),
            np.int64,
            count,
        )
    return doc, starts, ends, first_seen


def entity_columns(
    gold: Sequence[EntityColumns], pred: Sequence[EntityColumns]
) -> tuple[tuple[str, ...], SideColumns, SideColumns, Array]:
    """Both sides' entities as columns (document, start, end, type rank: the ranks ordered as
    the type names, which come first), rows of a document together and in its order, and which
    documents have a discontinuous entity (their rows hold outer bounds).  What a report needs
    of a corpus, without building a mention object per entity.

    >>> from annoscore.model import Span
    >>> from annoscore.formats.brat_model import AnnFile
    >>> a = AnnFile.of(AnnotatedDocument("a", (Mention(Span.of(0, 5), "PER"),)))
    >>> types, g, p, discontinuous = entity_columns([a], [a])
    >>> types, [c.tolist() for c in g], discontinuous.tolist()
    (('PER',), [[0], [0], [5], [0]], [False])
    """
    type_number = _first_seen_numbering()
    discontinuous = np.zeros(len(gold), dtype=bool)
    sides = [_entity_columns(side, type_number, discontinuous) for side in (gold, pred)]
    types, rank = _ranked_by_name(list(type_number))
    g, p = ((doc, starts, ends, rank[first]) for doc, starts, ends, first in sides)
    return types, g, p, discontinuous


class SpanCorpus(Record):
    """Gold and predicted mentions of many documents, ready to be counted in any mode.

    Continuous mentions go to the array path.  A document with a discontinuous mention (on
    either side) is scored by the mention path, and so is every document when the packed
    integer keys of the array path would not fit in 64 bits (offsets beyond ~10^8).
    """

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "doc_ids",
        "types",
        "gold",
        "pred",
        "by_mentions",
        "texts",
    )
    doc_ids: tuple[str, ...]
    types: tuple[str, ...]
    gold: SpanArrays
    pred: SpanArrays
    by_mentions: dict[int, tuple[tuple[Mention, ...], tuple[Mention, ...]]]
    texts: tuple[str | None, ...]

    def __init__(
        self,
        doc_ids: tuple[str, ...],
        types: tuple[str, ...],
        gold: SpanArrays,
        pred: SpanArrays,
        by_mentions: dict[int, tuple[tuple[Mention, ...], tuple[Mention, ...]]],
        texts: tuple[str | None, ...],
    ) -> None:
        set_fields(
            self,
            doc_ids=doc_ids,
            types=types,
            gold=gold,
            pred=pred,
            by_mentions=by_mentions,
            texts=texts,
        )

    @classmethod
    def from_mentions(
        cls,
        doc_ids: Sequence[str],
        gold: Sequence[Sequence[Mention]],
        pred: Sequence[Sequence[Mention]],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """``gold[d]`` and ``pred[d]`` are document ``doc_ids[d]``'s mentions."""
        return cls._of_sides(
            doc_ids,
            (gold, pred),
            _mention_columns,
            texts,
            lambda d: (tuple(gold[d]), tuple(pred[d])),
        )

    @classmethod
    def from_columns(
        cls,
        doc_ids: Sequence[str],
        gold: Sequence[EntityColumns],
        pred: Sequence[EntityColumns],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """``gold[d]`` and ``pred[d]`` are document ``doc_ids[d]``'s entities as columns (a
        reader's :class:`~annoscore.formats.brat.AnnFile`, say): the same corpus as
        :meth:`from_mentions` without building a mention object per entity.  A document with
        a discontinuous entity builds its mentions and takes the mention path."""
        return cls._of_sides(
            doc_ids,
            (gold, pred),
            _entity_columns,
            texts,
            lambda d: (tuple(gold[d].mentions()), tuple(pred[d].mentions())),
        )

    @classmethod
    def _of_sides(
        cls,
        doc_ids: Sequence[str],
        sides: tuple[Side, Side],
        side_columns: Callable[[Side, defaultdict[str, int], Array], SideColumns],
        texts: Sequence[str | None] | None,
        mentions: Callable[[int], tuple[tuple[Mention, ...], tuple[Mention, ...]]],
    ) -> SpanCorpus:
        """The corpus of the gold and predicted ``sides``, each turned into columns by
        ``side_columns`` (which numbers the types in first-seen order, gold first, and marks
        the documents that need the mention path).  Types are then ranked by name; every
        document goes to the mention path (``mentions(d)``) when the packed keys of the array
        path would not fit (:func:`~annoscore.metrics.span_tables.keys_fit`)."""
        n_docs = len(doc_ids)
        type_number = _first_seen_numbering()
        on_mention_path = np.zeros(n_docs, dtype=bool)
        columns = [side_columns(side, type_number, on_mention_path) for side in sides]
        max_end = max(int(ends.max(initial=0)) for _, _, ends, _ in columns)
        types, rank = _ranked_by_name(list(type_number))
        if not keys_fit(n_docs, max_end, len(types)):
            on_mention_path[:] = True
        by_mentions = {d: mentions(d) for d in np.flatnonzero(on_mention_path).tolist()}
        arrays = []
        for doc, starts, ends, first_seen in columns:
            keep = ~on_mention_path[doc]
            arrays.append(
                SpanArrays.build(doc[keep], starts[keep], ends[keep], rank[first_seen[keep]])
            )
        text_list = tuple(texts) if texts is not None else (None,) * n_docs
        return cls(tuple(doc_ids), types, arrays[0], arrays[1], by_mentions, text_list)

    @classmethod
    def from_dicts(
        cls,
        gold: Sequence[Sequence[dict[str, Any]]],
        pred: Sequence[Sequence[dict[str, Any]]],
        texts: Sequence[str | None] | None = None,
    ) -> SpanCorpus:
        """Continuous spans as nervaluate's dicts (``label``, ``start``, ``end`` half-open).

        Documents are numbered ``"0"``, ``"1"``, ...; ``gold`` and ``pred`` are aligned by index.
        """
        if len(gold) != len(pred):
            raise ValueError("gold and pred need the same number of documents")
        type_number = _first_seen_numbering()
        columns = []
        for side in (gold, pred):
            sizes = np.fromiter(map(len, side), dtype=np.int64, count=len(side))
            n = int(sizes.sum())
            # one pass over the dicts (they are scattered in memory: each visit is a cache miss)
            rows = np.fromiter(
                map(_START_END_LABEL, chain.from_iterable(side)), dtype=_DICT_ROW, count=n
            )
            first_seen = np.fromiter(
                map(type_number.__getitem__, rows["label"]), dtype=np.int64, count=n
            )
            columns.append((sizes, rows["start"], rows["end"], first_seen))
        labels = list(type_number)
        if not all(isinstance(label, str) for label in labels):
            raise ValueError("every label must be a string")
        types, rank = _ranked_by_name(labels)
        arrays = []
        for sizes, starts, ends, first_seen in columns:
            if starts.size and (starts.min() < 0 or (ends < starts).any()):
                raise ValueError("every span needs 0 <= start <= end")
            doc = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
            arrays.append(SpanArrays.build(doc, starts, ends, rank[first_seen]))
        max_end = max(int(arrays[0].end.max(initial=0)), int(arrays[1].end.max(initial=0)))
        if not keys_fit(len(gold), max_end, len(labels)):
            raise ValueError("offsets too large for the array path; use from_mentions")
        text_list = tuple(texts) if texts is not None else (None,) * len(gold)
        ids = tuple(str(d) for d in range(len(gold)))
        return cls(ids, types, arrays[0], arrays[1], {}, text_list)

    def deduplicated(self) -> tuple[SpanCorpus, int]:
        """The corpus with identical mentions (same fragments and type) collapsed per document
        and side, and how many were dropped."""
        gold, dropped_gold = self.gold.unique()
        pred, dropped_pred = self.pred.unique()
        by_mentions = {}
        dropped = dropped_gold + dropped_pred
        for d, (g, p) in self.by_mentions.items():
            g_set, p_set = tuple(dict.fromkeys(g)), tuple(dict.fromkeys(p))
            dropped += len(g) - len(g_set) + len(p) - len(p_set)
            by_mentions[d] = (g_set, p_set)
        corpus = SpanCorpus(self.doc_ids, self.types, gold, pred, by_mentions, self.texts)
        return corpus, dropped

    def table(self, mode: SpanMode, options: MatchOptions | None = None) -> CountTable:
        """Count every document in ``mode`` (``token`` needs ``texts``)."""
        options = options or MatchOptions()
        n_docs, n_types = len(self.doc_ids), len(self.types)
        gold, pred = self.gold, self.pred
        if mode in ("strict", "exact"):
            values = in_runs(
                gold,
                pred,
                n_docs,
                lambda g, p, n: exact_table(g, p, n, n_types, typed=mode == "strict"),
            )
        elif mode in ("overlap", "relaxed"):
            kind = cast(Literal["overlap", "relaxed"], mode)
            values = in_runs(
                gold, pred, n_docs, lambda g, p, n: matched_table(g, p, kind, options, n, n_types)
            )
        elif mode == "semeval":
            values = in_runs(
                gold, pred, n_docs, lambda g, p, n: semeval_table(g, p, options, n, n_types)
            )
        elif mode == "token":
            missing = [self.doc_ids[d] for d, t in enumerate(self.texts) if t is None]
            if missing:
                raise ValueError(f"token mode needs the text of document {missing[0]}")
            values = token_table(gold, pred, [t or "" for t in self.texts], n_types)
        else:
            raise ValueError(f"unknown mode {mode!r}")
        names = SEMEVAL_NAMES if mode == "semeval" else PRF_NAMES
        type_id = {name: i for i, name in enumerate(self.types)}
        for d, (g, p) in self.by_mentions.items():
            if mode == "semeval":
                counts = semeval_counts(g, p, options)
            else:
                counts = mode_counts(g, p, mode, options, self.texts[d])
            for name in {m.type for m in (*g, *p)}:
                for k, stat in enumerate(names):
                    values[d, type_id[name], k] = counts[type_key(name, stat)]
        return CountTable(names, self.types, values)


SpanDocument = AnnotatedDocument | AnnFile
"""A document side: the model object (Python callers) or a reader's columns (the command)."""


def count_span_documents(
    gold_docs: Mapping[str, SpanDocument],
    system_docs: Mapping[str, SpanDocument],
    mode: SpanMode,
    match: MatchOptions,
    pairing: tuple[Rule, Rule],
    duplicates: Duplicates,
) -> tuple[CountMatrix, list[ScoreWarning | str]]:
    """The count matrix of the documents of two sides (documents x statistics, per-type
    columns included) and the warnings of pairing, reading and duplicates.

    ``pairing``: the rule of a gold-only and of a system-only document
    (:func:`~annoscore.align.documents.pair_documents`); ``duplicates``: identical mentions of
    one document and side each counted, or collapsed to one (a warning names how many either
    way).  ``token`` mode needs each document's text (the gold document's, else the system's).
    Offsets are compared as given; a paired document whose two sides carry texts that differ
    (:func:`~annoscore.align.documents.texts_differ_at`) is named in a last warning,
    ``spans.text-differs``.
    """
    mode, duplicates = SpanMode(mode), Duplicates(duplicates)
    paired = pair_documents(
        gold_docs, system_docs, gold_only=pairing[0], system_only=pairing[1], sort=True
    )
    doc_ids = list(paired.scored)
    warnings: list[ScoreWarning | str] = [*paired.warnings()]
    empty = AnnotatedDocument("", ())
    gold_list = [gold_docs.get(d, empty) for d in doc_ids]
    pred_list = [system_docs.get(d, empty) for d in doc_ids]
    texts: list[str | None] = []
    unequal: list[tuple[str, SpanDocument, SpanDocument]] = []  # both texts, not equal
    for doc_id, g, p in zip(doc_ids, gold_list, pred_list, strict=True):
        text, other = g.text, p.text
        if text is None:
            text = other
        elif other is not None and other != text:  # lengths, then characters: never a hash
            unequal.append((doc_id, g, p))
        if mode is SpanMode.token and text is None:
            raise InputError(
                "token mode needs the document text, which neither side has (brat: put the "
                ".txt beside the gold .ann; an nlpsandbox-json note holds none)",
                g.path or p.path or None,
                document=doc_id,
            )
        texts.append(text)
    models = [d for d in (*gold_list, *pred_list) if isinstance(d, AnnotatedDocument)]
    warnings.extend(reader_warnings(models))
    warnings.extend(
        merge_warnings(
            w for d in (*gold_list, *pred_list) if isinstance(d, AnnFile) for w in d.warnings
        )
    )
    if len(models) == len(gold_list) + len(pred_list):  # model objects: the mention columns
        corpus = SpanCorpus.from_mentions(
            doc_ids,
            [g.mentions for g in models[: len(gold_list)]],
            [p.mentions for p in models[len(gold_list) :]],
            texts,
        )
    else:  # a reader's columns (a document object among them as columns): no mention built
        gold_columns = [g if isinstance(g, AnnFile) else AnnFile.of(g) for g in gold_list]
        pred_columns = [p if isinstance(p, AnnFile) else AnnFile.of(p) for p in pred_list]
        corpus = SpanCorpus.from_columns(doc_ids, gold_columns, pred_columns, texts)
    deduplicated, repeated = corpus.deduplicated()
    if repeated:
        fate = (
            "each scored"
            if duplicates is Duplicates.count
            else "collapsed to one (--duplicates collapse)"
        )
        warnings.append(
            ScoreWarning(
                "spans.duplicates",
                "{count} mention(s) repeat another with the same span and type in the same "
                f"document and side: {fate}",
                repeated,
            )
        )
    if duplicates is Duplicates.collapse:
        corpus = deduplicated
    warnings += text_warnings(differing_texts(unequal))
    return corpus.table(mode, match).matrix(corpus.doc_ids), warnings
