"""The warnings of ``annoscore trec`` on chunks of its qrels and run files, pooled as one run
makes them (:mod:`annoscore.scale`; the files are cut at query boundaries by
:func:`~annoscore.scale.split_lines`).

One run's warnings, in order (before :meth:`~annoscore.result.Result.from_counts` merges those
of one code and message, and adds the undefined-score notes the reduce makes again): the qrels
reader's (a byte-order mark, comment lines, lines that are not UTF-8, blank lines, decimal
relevances), the run reader's (the same, extra fields for decimal relevances), the queries of
the run without judgments, the judged queries not in the run, the duplicate judgments and the
queries 9.0.8 gives ``nan`` (``-J``).

Pooled from the chunks (each keeps its warnings by group, :class:`Kept`): the readers' warnings
but for ids that are not UTF-8 (counts added, the first lines in file order: the chunks' in
order, capped by :meth:`~annoscore.score_warnings.ScoreWarning.merged`; their lines numbered as in
the whole file, :func:`~annoscore.formats.files.first_line`), a byte-order mark (of the first chunk
only), the queries without judgments (counts added, the first five in the run's order: each
chunk's first five are enough), the duplicate judgments and the ``nan`` queries (counts added,
the first examples in file order). The judged queries not in the run are warned of with a MAP
of the whole corpus: the input is then scored in one run, as it is when a chunk warns of
anything else (ids that are not UTF-8: one run orders the queries by their bytes, the reduce by
their names, which show such bytes as ``\\x`` escapes).  No cut falls at a comment line (one
that begins with ``#``: ``comments`` of :func:`~annoscore.scale.chunked`); one among the lines
of a query may still make the chunks not exact (the run's cut found at a later line of the
query): the input is then scored in one run too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.records import Record, set_fields
from annoscore.score_warnings import ScoreWarning, merge_warnings, warned_as_kept

READER = ("formats.bom", "trec.comment-line", "trec.blank-line")
"""The codes of a file's reader warnings that are pooled, in the reader's order (then
:data:`LAST`; between the comment lines and the blank lines the reader warns of ids that are
not UTF-8, not pooled: the reduce orders the queries by their names, which show such bytes as
``\\x`` escapes, where one run orders them by their bytes)."""

LAST = ("trec.decimal-relevance", "trec.extra-fields")
"""The reader's last warning: the qrels', the run's."""

AFTER = ("trec.duplicate-judgments", "trec.nan-in-9.0.8")
"""The pooled warnings after the queries without judgments, in one run's order."""

SHOWN = 5
"""How many queries without judgments the warning names."""


def unjudged_text(count: int, examples: Sequence[str]) -> str:
    """The note on ``count`` queries of the run without judgments (``examples``: the first
    few, in the run's order).

    >>> unjudged_text(2, ["q9", "q7"])
    '2 queries of the run have no judgments and are ignored, as trec_eval does (e.g. q9, q7)'
    """
    return (
        f"{count} queries of the run have no judgments and are ignored, as trec_eval does "
        f"(e.g. {', '.join(examples[:SHOWN])})"
    )


class Kept(Record):
    """What a chunk keeps (:func:`annoscore.scale.keep`): its qrels' and its run's reader
    warnings, its other warnings in one run's order, and its queries without judgments (how
    many, the first :data:`SHOWN` in the run's order)."""

    __slots__ = ("qrels", "run", "after", "unjudged")  # noqa: RUF023 (the order of the fields)
    qrels: tuple[ScoreWarning, ...]
    run: tuple[ScoreWarning, ...]
    after: tuple[ScoreWarning | str, ...]
    unjudged: tuple[int, tuple[str, ...]]

    def __init__(
        self,
        qrels: tuple[ScoreWarning, ...],
        run: tuple[ScoreWarning, ...],
        after: tuple[ScoreWarning | str, ...],
        unjudged: tuple[int, tuple[str, ...]],
    ) -> None:
        set_fields(self, qrels=qrels, run=run, after=after, unjudged=unjudged)


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """trec's warnings as one run makes them, from its chunks' (``warned``, in chunk order)
    and each chunk's :class:`Kept` (``kept``), as CodiEsp's are made
    (:func:`annoscore.tasks.codiesp_chunks.pooled`); ``None`` when they cannot be (the module
    doc)."""
    if not any(warned):  # no chunk warned: nothing to pool
        return []
    chunks: list[Kept] = []
    for items, warnings in zip(kept, warned, strict=True):
        if len(items) != 1 or not isinstance(items[0], Kept):
            return None
        chunk = items[0]
        if not warned_as_kept((*chunk.qrels, *chunk.run, *chunk.after), warnings):
            return None
        chunks.append(chunk)
    out: list[ScoreWarning | str] = []
    for side, last in (("qrels", LAST[0]), ("run", LAST[1])):
        said = [(c, w) for c, chunk in enumerate(chunks) for w in getattr(chunk, side)]
        if any(w.code not in (*READER, last) or (w.code == READER[0] and c) for c, w in said):
            return None
        for code in (*READER, last):
            joined = _joined([w for _, w in said if w.code == code])
            if joined is None:
                return None
            out += joined
    count, examples = 0, list[str]()
    after: list[ScoreWarning] = []
    for chunk in chunks:
        text = unjudged_text(*chunk.unjudged) if chunk.unjudged[0] else None
        for warning in chunk.after:
            if isinstance(warning, str):
                if warning != text:  # the judged queries not in the run: a whole-corpus MAP
                    return None
            elif warning.code in AFTER:
                after.append(warning)
            else:
                return None
        count += chunk.unjudged[0]
        examples += chunk.unjudged[1]
    if count:
        out.append(unjudged_text(count, examples))
    for code in AFTER:
        joined = _joined([w for w in after if w.code == code])
        if joined is None:
            return None
        out += joined
    return out


def _joined(warnings: Sequence[ScoreWarning]) -> list[ScoreWarning] | None:
    """The warnings of one code as one (counts added, examples in order, capped:
    :func:`~annoscore.score_warnings.merge_warnings`), none when there are none; ``None`` when their
    messages differ."""
    merged = merge_warnings(warnings)
    return None if len(merged) > 1 else list(merged)
