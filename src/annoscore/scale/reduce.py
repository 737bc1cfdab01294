"""The reduce: the chunks' count rows stacked in document order, their warnings pooled.

:func:`combine` rebuilds one run's result of folder chunks, :func:`combine_lines` of chunks of
single files, kept only when the cut was exact (:func:`exact_cut`: no document in two chunks);
what the whole derives from its matrix (:data:`DERIVED_CODES`) is made again once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annoscore.arrays import IntArray
    from annoscore.options import TaskOptions
    from annoscore.result import CountMatrix, Result
    from annoscore.score_warnings import ScoreWarning

from annoscore.result import MACRO_DOC, Scores
from annoscore.scale.chunks import UNKNOWN_SIDE, Details, Finish, NotExact, Part, Pooled, Seen

DERIVED_CODES = frozenset({"undefined", "average.left-out"})
"""Warnings a result derives from its whole matrix: dropped from the chunks, made again once."""


def _sent(result: Result, carry: bool = True, lists: bool = False) -> Result:
    """``result`` as a chunk sends it: no warnings (sent apart), and of what it cached only
    every document's scores (computed in the worker, in parallel: :func:`_carry_documents`),
    unless ``carry`` is false (then nothing: a large corpus's parts would hold about five
    times the memory of their count rows; the whole's scores are computed when asked, and
    ``macro_doc`` of columns when the view shows the averages, not the documents); a
    ranked task's lists only for its worst queries, and only when ``lists`` (a report is
    written: :func:`annoscore.metrics.worst_lists.for_chunk`)."""
    from annoscore.metrics.worst_lists import for_chunk
    from annoscore.result import Names

    kept = {k: v for k, v in result._cache.items() if k == "documents" and carry}
    view = result.view
    if "documents" not in kept and view.averages and not view.documents:
        kept[MACRO_PART] = _macro_part(result)  # the parent's macro_doc of them (_macro_doc)
    # the names as one string (:class:`Names`): the parent unpickles one object, not one a
    # document, and makes the strings only if it shows them
    matrix = replace(result.matrix, documents=Names.of(result.matrix.documents))
    return for_chunk(replace(result, matrix=matrix, warnings=(), _cache=kept), lists)


MACRO_PART = "macro_doc_part"
"""What a chunk sends of its documents' scores when it does not send them whole: their keys,
values (float64, a row per document) and where they are defined (:func:`_macro_part`)."""


def _macro_part(result: Result) -> tuple[tuple[str, ...], Any, Any] | None:
    """The documents' scores of a chunk as columns (computed in the worker, in parallel):
    ``None`` unless every document has the same keys, each a float or ``None``.  Documents of
    equal counts are scored once (:meth:`~annoscore.result.Result.document_units`: the scorer
    depends on the counts alone) and their rows copied: brat 20,000 documents of 50 spans,
    10 chunks, a unit scored for every document took 0.17-0.19 s of 2.2 s of CPU, scored once
    per distinct row 0.03 s (the reference, every document scored, is
    :func:`_macro_part_of_documents`; ``tests/equivalence/test_macro_part.py`` holds the two
    equal).  Documents named twice: every document scored, as :attr:`Result.documents` has
    them."""
    import numpy as np

    names, (units, at) = result.document_units()
    if not names:
        return None
    if len(set(names)) != len(names):  # a name's unit would be its last document's
        return _macro_part_of_documents(result)
    # (the last unit is None: the place of a document the matrix lacks, none here)
    columns = _score_columns([unit.scores for unit in units[:-1] if unit is not None])
    if columns is None:
        return None
    keys, values, defined = columns
    index = np.asarray(at, dtype=np.int64)
    return keys, values[index], defined[index]


def _macro_part_of_documents(result: Result) -> tuple[tuple[str, ...], Any, Any] | None:
    """:func:`_macro_part` the plain way: every document's scores (:attr:`Result.documents`),
    row after row."""
    units = result.documents
    return _score_columns([unit.scores for unit in units.values()]) if units else None


def _score_columns(scores: Sequence[Scores]) -> tuple[tuple[str, ...], Any, Any] | None:
    """``scores`` (at least one) as columns: the keys, the values (0.0 where undefined) and
    where they are defined; ``None`` unless each has the keys of the first, each a float or
    ``None``."""
    import numpy as np

    keys = tuple(scores[0])
    values = np.zeros((len(scores), len(keys)), dtype=np.float64)
    defined = np.zeros((len(scores), len(keys)), dtype=bool)
    for row, one in enumerate(scores):
        if tuple(one) != keys:
            return None
        for column, value in enumerate(one.values()):
            if value is not None:
                if type(value) is not float:
                    return None
                values[row, column] = value
                defined[row, column] = True
    return keys, values, defined


def _macro_doc(
    parts: Sequence[Result], order: Sequence[int] | IntArray | None
) -> tuple[dict[str, float | None], dict[str, int]] | None:
    """``macro_doc`` and the documents each score leaves out (in the order the notes of one
    run name them), from the chunks' columns (:func:`_macro_part`), float for float what
    :func:`~annoscore.result.macro_average` makes of every document's scores: each mean the
    sum of the defined values added one after the other in document order, from 0.0
    (``np.add.accumulate`` adds sequentially), divided by their number."""
    import numpy as np

    found: list[tuple[tuple[str, ...], Any, Any]] = []
    for part in parts:
        columns = part._cache.get(MACRO_PART)
        if columns is None:
            return None
        found.append(columns)
    if not found:
        return None
    keys = found[0][0]
    if any(f[0] != keys for f in found):
        return None
    values = np.concatenate([f[1] for f in found])
    defined = np.concatenate([f[2] for f in found])
    if order is not None:
        index = np.asarray(order, dtype=np.int64)
        values, defined = values[index], defined[index]
    means: dict[str, float | None] = {}
    firsts: list[tuple[int, int, str, int]] = []
    for column, key in enumerate(keys):
        given = values[defined[:, column], column]
        total = float(np.add.accumulate(np.concatenate(([0.0], given)))[-1])
        means[key] = total / len(given) if len(given) else None
        missing = ~defined[:, column]
        if missing.any():
            firsts.append((int(np.argmax(missing)), column, key, int(missing.sum())))
    left_out = {key: n for _, _, key, n in sorted(firsts)}
    return means, left_out


def _carry_documents(result: Result, parts: Sequence[Result], order: IntArray | None) -> None:
    """Give ``result`` (the chunks' rows stacked, in ``order`` when given) the per-document
    scores its chunks computed, when every chunk computed them on the same columns as the
    stacked matrix (then each row and each score is the same: the same counts, the same
    scorer); otherwise ``macro_doc`` and its notes from the columns they sent
    (:func:`_macro_doc`), the documents' scores computed again only when asked."""
    names, integer = result.matrix.names, result.matrix.integer
    if parts and any("documents" not in r._cache for r in parts):
        # a document's scores are of its columns but the per-type ones (Result.documents)
        plain = _plain_columns(result.matrix.names, result.matrix.integer)
        rows = sum(len(r.matrix.documents) for r in parts)
        # each layout of columns once (trec's 82 chunks of 93 columns: 0.02 -> 0.001 s of the
        # parent's time after the last chunk)
        layouts = dict.fromkeys((r.matrix.names, r.matrix.integer) for r in parts)
        if rows == len(result.matrix.documents) and all(
            _plain_columns(*layout) == plain for layout in layouts
        ):
            macro = _macro_doc(parts, order)
            if macro is not None:
                result._cache[MACRO_DOC] = macro
        return
    if not parts or any(r.matrix.names != names or r.matrix.integer != integer for r in parts):
        return
    units = [unit for r in parts for unit in r._cache["documents"].items()]
    if order is not None:
        units = list(map(units.__getitem__, order.tolist()))
    if len(units) != len(result.matrix.documents) or any(
        a != b for a, (b, _) in zip(result.matrix.documents, units, strict=True)
    ):
        return
    result._cache["documents"] = dict(units)


def _plain_columns(names: Sequence[str], integer: Sequence[bool]) -> list[tuple[str, bool]]:
    """The columns (name, whether integer) of a matrix's ``names`` and ``integer`` but the
    per-type ones."""
    from annoscore.result import TYPE_PREFIX

    pairs = zip(names, integer, strict=True)
    return [(name, whole) for name, whole in pairs if not name.startswith(TYPE_PREFIX)]


# --- the reduce -------------------------------------------------------------------------------


def stack(matrices: Sequence[CountMatrix]) -> CountMatrix:
    """The rows of ``matrices`` one after the other; columns in first-seen order (a chunk
    without a column reads 0 there, as :meth:`CountMatrix.of` reads a missing key)."""
    import numpy as np

    from annoscore.result import CountMatrix, Names

    column: dict[str, int] = {}
    whole: dict[str, bool] = {}
    # each layout of columns once (the chunks of a corpus share one: trec's 82 chunks of 93
    # columns, 0.02 s of the parent's time after the last chunk when each was read)
    layouts = dict.fromkeys((m.names, m.integer) for m in matrices)
    for names, integers in layouts:
        for name, integer in zip(names, integers, strict=True):
            column.setdefault(name, len(column))
            whole[name] = whole.get(name, True) and integer
    places = {names: [column[n] for n in names] for names, _ in layouts}
    rows = sum(len(m.documents) for m in matrices)
    values = np.zeros((rows, len(column)), dtype=np.float64)
    at = 0
    for m in matrices:
        where = places[m.names]
        if where == list(range(len(where))):  # the first columns in order: a slice is faster
            values[at : at + len(m.documents), : len(where)] = m.values
        else:
            values[at : at + len(m.documents), where] = m.values
        at += len(m.documents)
    documents = Names.chained([m.documents for m in matrices])  # the chunks' (_sent): joined
    return CountMatrix(documents, tuple(column), values, tuple(whole[n] for n in column))


class RowStack:
    """:func:`stack` of matrices given one at a time, as the chunks come back: each one's rows
    copied at once into one array, so that the parent stacks while the workers count (a
    corpus's rows stacked after the last chunk, CodiEsp D 10^6 documents: 0.03-0.16 s of the
    parent's CPU, all of it serial).  The array is sized from the rows per byte of the chunks
    so far (``sizes``: each chunk's bytes, in order; unwritten rows are never touched, so a
    generous guess costs no memory), grown when short.  Only matrices of one set of columns,
    in one order: another layout makes :meth:`matrix` ``None`` (then :func:`stack`).

    >>> from annoscore.result import CountMatrix
    >>> import numpy as np
    >>> rows = RowStack([10, 10, 10])
    >>> for n in range(3):
    ...     rows.add(CountMatrix(("a", "b")[:n], ("tp",), np.ones((n, 1)) * n, (True,)))
    >>> m = rows.matrix()
    >>> tuple(m.documents), m.values.tolist(), m.integer
    (('a', 'a', 'b'), [[1.0], [2.0], [2.0]], (True,))
    """

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = [max(0, s) for s in sizes]
        self.added = 0  # matrices added
        self.rows = 0
        self.documents: list[Sequence[str]] = []
        self.names: tuple[str, ...] | None = None
        self.integer: tuple[bool, ...] = ()
        self.values: Any = None
        self.broken = False

    def add(self, matrix: CountMatrix) -> None:
        """Add the rows of the next chunk's ``matrix``."""
        import numpy as np

        self.added += 1
        if self.broken:
            return
        if self.names is None:
            self.names, self.integer = matrix.names, matrix.integer
        elif matrix.names != self.names:
            self.broken, self.values = True, None  # another layout: stack() at the end
            return
        else:
            self.integer = tuple(a and b for a, b in zip(self.integer, matrix.integer, strict=True))
        end = self.rows + len(matrix.documents)
        if self.values is None or end > len(self.values):
            # the rows of the whole at the rate so far and a quarter more (at most 256 times
            # the rows so far), at least twice the rows held
            done = max(1, sum(self.sizes[: self.added]))
            guess = min(end * max(1, sum(self.sizes)) // done * 5 // 4, 256 * end) + 1024
            held = 0 if self.values is None else len(self.values)
            grown = np.empty((max(guess, 2 * held), len(self.names)), dtype=np.float64)
            if self.rows:
                grown[: self.rows] = self.values[: self.rows]
            self.values = grown
        self.values[self.rows : end] = matrix.values
        self.rows = end
        self.documents.append(matrix.documents)

    def matrix(self) -> CountMatrix | None:
        """The stacked matrix (``None``: matrices of several layouts, or none)."""
        from annoscore.result import CountMatrix, Names

        if self.broken or self.names is None:
            return None
        values = self.values[: self.rows]
        return CountMatrix(Names.chained(self.documents), self.names, values, self.integer)


def merge_in_order(
    lists: Sequence[Sequence[tuple[int, ScoreWarning]]], order: Sequence[str] = ("*",)
) -> list[ScoreWarning]:
    """The chunks' warnings merged by code and message as one run over every document merges
    them.  A task emits its warnings in groups (``order``: codes, or code prefixes ending in
    ``.``, ``"*"`` for every other code), each group over every document before the next; a
    reader reports the gold side before the system side; inside that, in document order.  Each
    warning comes with its side (``0`` gold, ``1`` system, ``2`` none: :func:`_sided`), so a
    merged warning stands at (its group, side, first chunk and place), and its examples are
    pooled in that order.

    >>> from annoscore.result import ScoreWarning as W
    >>> a, b, c = W("late", "{count} a"), W("early", "{count} b"), W("x", "{count} c")
    >>> [w.code for w in merge_in_order([[(2, c), (2, a)], [(2, b), (2, a)]], ("early", "*",
    ...                                                                        "late"))]
    ['early', 'x', 'late']
    """
    from annoscore.score_warnings import merge_warnings

    items = sorted(
        ((_group(w.code, order), side, c, n), w)
        for c, chunk in enumerate(lists)
        for n, (side, w) in enumerate(chunk)
    )
    return list(merge_warnings(w for _, w in items))


def _group(code: str, order: Sequence[str]) -> int:
    """The place of a warning's ``code`` among the groups of ``order`` (:func:`merge_in_order`).

    >>> _group("documents.gold-only", ("documents.", "*")), _group("x", ("documents.", "*"))
    (0, 1)
    """
    for n, name in enumerate(order):
        if code == name or (name.endswith(".") and code.startswith(name)):
            return n
    return order.index("*") if "*" in order else len(order)


def combine(
    task: str, options: TaskOptions, parts: Sequence[Part], order: Sequence[str] = ("*",)
) -> Result | None:
    """One result of the chunks' results: rows stacked in order, warnings pooled, then what
    the whole corpus derives (corpus counts, scores, undefined and macro-average notes) made
    once by :meth:`~annoscore.tasks.registry.Task.result`; the first chunk's view, headline,
    details and extra fields kept (a task whose details are not additive is not cut).

    ``None`` when the order of the warnings in one run cannot be known: an example names a file
    both sides hold (``a.ann:4``: one run reports the gold side's reading before the system
    side's); the caller then scores the input in one run (rare: tolerated input)."""
    from annoscore.tasks.registry import get

    first = parts[0].result
    assert first is not None
    if any(side == UNKNOWN_SIDE for part in parts for side, _ in part.warnings):
        return None  # where one run quotes it among the others cannot be known: one run
    if _repeated_examples(parts):
        return None  # pooling would drop the repeats one run may quote: one run
    warnings = merge_in_order(
        [[(side, w) for side, w in p.warnings if w.code not in DERIVED_CODES] for p in parts],
        order,
    )
    result = get(task).result(
        options,
        stack([p.result.matrix for p in parts if p.result is not None]),
        warnings=warnings,
        details=first.details,
        extra=first.extra,
        undefined=first.undefined,
    )
    result = replace(result, headline=first.headline, signature=first.signature)
    _carry_documents(result, [p.result for p in parts if p.result is not None], None)
    view = first.view
    return result.shown(documents=view.documents, types=view.types, averages=view.averages)


def _repeated_examples(parts: Sequence[Part]) -> bool:
    """Whether an example is quoted twice by the chunks' warnings of one code (in one warning
    or in two): pooling examples keeps one of each (:meth:`ScoreWarning.merged`), where one
    run may quote both (``a.ann:2`` of gold and of the system, named by file name).

    >>> from annoscore.result import ScoreWarning as W
    >>> def part(*examples): return Part(None, ((2, W("x", "{count}", 1, examples)),))
    >>> _repeated_examples([part("a:1", "b:1"), part("c:1")])
    False
    >>> _repeated_examples([part("a:1"), part("a:1")]), _repeated_examples([part("a:1", "a:1")])
    (True, True)
    """
    seen: set[tuple[str, str]] = set()
    for part in parts:
        for _, warning in part.warnings:
            for example in warning.examples:
                key = (warning.code, example)
                if key in seen:
                    return True
                seen.add(key)
    return False


def unread(part: Part) -> bool:
    """Whether a chunk of lines raised an error or was read otherwise than in the whole file
    (:func:`unusable`, its warnings aside: a task that pools them)."""
    return part.result is None


def unusable(part: Part) -> bool:
    """Whether a chunk of lines cannot be part of a cut result: it raised an error, its reader
    said it reads otherwise than the whole file, or it warned (these tasks' warnings are made
    from the whole corpus).  The first such chunk ends the map: the input is then scored in
    one run, and the chunks after it are not scored for nothing."""
    return part.result is None or any(w.code not in DERIVED_CODES for _, w in part.warnings)


class GoldIds:
    """The gold ids of chunks of lines given one at a time, as they come back (while the
    workers read the next ones), and whether they are distinct: what :func:`exact_cut` asks of
    chunks whose system ids are their gold ids (the usual chunk), then not asked after the last
    chunk (100,000 PubTator documents: about 0.02 s of the parent's CPU).  While each chunk's
    ids come in increasing order, all after the chunk's before, they are distinct and no set is
    made (CodiEsp D, 10^6 documents in 35 chunks: the set of every id took 0.3 s of the
    parent's CPU as the chunks came back and 0.06 s to free after the last, on a loaded
    machine); the first chunk out of that order makes the set of every id so far.

    >>> ids = GoldIds()
    >>> for gold in ("ab", "", "cd"):
    ...     ids.add(Part(None, (), (Seen.of(gold), Seen.of(gold))))
    >>> ids.distinct, ids.ids, ids.add(Part(None, (), (Seen.of("e"), Seen.of("a")))), ids.distinct
    (True, set(), None, True)
    >>> ids.add(Part(None, (), (Seen.of("fb"), Seen.of("fb")))); ids.distinct, len(ids.ids)
    (False, 6)
    """

    def __init__(self) -> None:
        self.ids: set[bytes] = set()
        self.count = 0  # the ids in the set (with their repeats)
        self.ordered: list[Seen] | None = []
        """The chunks' ids while they come in increasing order (``None``: in the set)."""

    def add(self, part: Part) -> None:
        if part.seen is None or not part.seen[0].count:
            return
        gold = part.seen[0]
        if self.ordered is not None:
            if gold.ordered and (not self.ordered or self.ordered[-1].last < gold.first):
                self.ordered.append(gold)
                return
            before, self.ordered = self.ordered, None
            for seen in before:
                self._collect(seen)
        self._collect(gold)

    def _collect(self, seen: Seen) -> None:
        ids = seen.joined.split(b"\n")
        self.ids.update(ids)
        self.count += len(ids)

    @property
    def distinct(self) -> bool:
        return self.ordered is not None or len(self.ids) == self.count


def exact_cut(parts: Sequence[Part], gold_ids: GoldIds | None = None) -> bool:
    """Whether the chunks of lines hold every document whole: no document in two chunks of one
    side, none in one chunk of gold and another of the system; and every chunk read.  When
    every chunk's ids came in increasing order, their first and last ids may settle it (chunk
    n's system ids lie strictly between the gold ids of chunks n-1 and n+1); otherwise the sets
    of ids are compared.  ``gold_ids``: the gold ids of ``parts``, collected as they came
    (:class:`GoldIds`).

    >>> r = object()
    >>> def part(gold, system): return Part(r, (), (Seen.of(gold), Seen.of(system)))
    >>> exact_cut([part("ab", "az"), part("cd", "c")])
    True
    >>> exact_cut([part("ba", "a"), part("cd", "b")])
    False
    >>> exact_cut([part("ab", "a"), part("cd", "b")])
    False
    >>> b, c, d = part("ba", "ba"), part("ca", "ca"), part("dc", "dc")
    >>> exact_cut([b, d]), exact_cut([b, c])
    (True, False)
    >>> exact_cut([part("a", ""), part("", "b")]), exact_cut([part("a", "b"), part("", "")])
    (False, True)
    """
    seen = [part.seen for part in parts]
    if any(part.result is None for part in parts) or any(s is None for s in seen):
        return False
    sides = [(s[0], s[1]) for s in seen if s is not None]
    if sum(g.count for g, _ in sides) == 1 == sum(p.count for _, p in sides) and not any(
        g.count == 1 == p.count for g, p in sides
    ):  # one document a side, in two chunks: one run pairs them whatever their ids
        # (:func:`~annoscore.align.documents.paired_files`; Prodigy lines left out, say)
        return False
    if all(g.ordered and p.ordered for g, p in sides) and _ordered_exact(sides):
        return True
    if all(p.joined == g.joined and p.count == g.count for g, p in sides):
        # every chunk's system ids are its gold ids (the usual chunk): exact when no id is in
        # two chunks, seen in one set of every id (not a set a chunk, then their union: 100,000
        # PubTator documents, 0.061 -> 0.023 s of the parent's time after the last chunk;
        # collected as the chunks came back: none)
        if gold_ids is not None:
            return gold_ids.distinct
        every = b"\n".join(g.joined for g, _ in sides if g.count).split(b"\n")
        return len(frozenset(every)) == len(every)
    gold = [g.ids() for g, _ in sides]
    # a chunk whose system ids are its gold ids, in one order (the usual case), has one set
    system = [
        ids if (p.joined, p.count) == (g.joined, g.count) else p.ids()
        for ids, (g, p) in zip(gold, sides, strict=True)
    ]
    every_gold = frozenset().union(*gold)
    same = all(s is g for s, g in zip(system, gold, strict=True))
    every_system = every_gold if same else frozenset().union(*system)
    if len(every_gold) != sum(map(len, gold)) or len(every_system) != sum(map(len, system)):
        return False  # a document in two chunks of one side
    # a system document of chunk n that gold holds is in gold's chunk n
    return all(s.difference(g).isdisjoint(every_gold) for g, s in zip(gold, system, strict=True))


def _ordered_exact(sides: Sequence[tuple[Seen, Seen]]) -> bool:
    """Whether the first and last ids of chunks whose ids each came in increasing order show
    the cut exact (``False``: they do not show it; the sets may)."""
    for side in (0, 1):
        found = [s[side] for s in sides if s[side].count]
        if any(a.last >= b.first for a, b in itertools.pairwise(found)):
            return False
    for n, (_, system) in enumerate(sides):
        if not system.count:
            continue
        before = [g for g, _ in sides[:n] if g.count]
        after = [g for g, _ in sides[n + 1 :] if g.count]
        if (before and system.first <= before[-1].last) or (
            after and system.last >= after[0].first
        ):
            return False
    return True


def _by_bytes(names: Sequence[str]) -> list[int]:
    """The positions of ``names`` in the order of their UTF-8 bytes (a lone surrogate as
    ``?``), stable: the strings themselves compared when none holds a surrogate (code points
    order as their UTF-8 bytes; the encoding is then not made per name).

    >>> _by_bytes(["b", chr(0xFF61), "a", chr(0x1F600), "a"]), _by_bytes([chr(0xD800), "@", "?"])
    ([2, 4, 0, 1, 3], [0, 2, 1])
    """
    names = tuple(names)  # its items fetched in C (a chunk's Names: one method call each)
    try:
        "".join(names).encode("utf-8")
    except UnicodeEncodeError:
        return sorted(range(len(names)), key=lambda i: names[i].encode("utf-8", "replace"))
    return sorted(range(len(names)), key=names.__getitem__)


def combine_lines(
    task: str,
    options: TaskOptions,
    parts: Sequence[Part],
    order: str = "gold-first",
    details: Details | None = None,
    finish: Finish | None = None,
    pooled: Pooled | None = None,
    stacked: CountMatrix | None = None,
    gold_ids: GoldIds | None = None,
) -> Result | None:
    """One result of the chunks of lines (:func:`combine`), its rows in the order of one run
    (``order``; ``stacked``, ``gold_ids``: the parts' matrices stacked and gold ids collected
    already, :class:`RowStack`, :class:`GoldIds`); ``None``
    when the cut was not exact (:func:`exact_cut`), a chunk warned
    (these tasks' warnings are made from the whole corpus) unless ``pooled`` makes one run's
    warnings of theirs (``None`` from it: not exact either), or ``finish`` (the fields a task
    derives from the whole's counts, made again) found the chunks' results unlike."""
    import numpy as np

    from annoscore.result import CountMatrix
    from annoscore.tasks.registry import get

    if not exact_cut(parts, gold_ids):
        return None
    warnings: Any = ()
    if pooled is not None:
        warnings = pooled(
            options,
            [[w for _, w in p.warnings if w.code not in DERIVED_CODES] for p in parts],
            [p.kept for p in parts],
        )
        if warnings is None:
            return None
    elif any(w.code not in DERIVED_CODES for part in parts for _, w in part.warnings):
        return None
    results = [part.result for part in parts if part.result is not None]
    first = results[0]
    whole = stack([r.matrix for r in results]) if stacked is None else stacked
    names = whole.documents
    permutation: list[int] | range
    if order == "sorted":
        permutation = _by_bytes(names)
    elif all(
        part.seen is not None and len(result.matrix.documents) == part.seen[0].count
        for part, result in zip(parts, results, strict=True)
    ):  # every row a gold document: the chunks' rows are in gold order already
        permutation = range(len(names))
    else:
        gold_rows: list[int] = []
        other_rows: list[int] = []
        at = 0
        for part, result in zip(parts, results, strict=True):
            golden = part.seen[0].ids() if part.seen is not None else frozenset()
            for k, name in enumerate(result.matrix.documents):
                key = name.encode("utf-8", "surrogatepass")
                (gold_rows if key in golden else other_rows).append(at + k)
            at += len(result.matrix.documents)
        permutation = gold_rows + other_rows
    index = None if isinstance(permutation, range) else np.asarray(permutation, dtype=np.int64)
    if index is not None and np.array_equal(index, np.arange(len(index))):
        index = None  # the rows in order already
    if index is not None:
        whole = CountMatrix(
            tuple(map(tuple(names).__getitem__, permutation)),
            whole.names,
            whole.values[index],
            whole.integer,
        )
    try:
        merged = (
            first.details if details is None else details([r.details for r in results], permutation)
        )
    except NotExact:
        return None
    from annoscore.metrics.worst_lists import joined

    merged = joined(merged, [r.details for r in results])
    result = get(task).result(
        options,
        whole,
        warnings=warnings,
        details=merged,
        extra=first.extra,
        undefined=first.undefined,
    )
    result = replace(result, headline=first.headline, signature=first.signature)
    if finish is not None:
        finished = finish(result, results)
        if finished is None:
            return None
        result = finished
    _carry_documents(result, results, index)
    view = first.view
    return result.shown(documents=view.documents, types=view.types, averages=view.averages)
