"""The span analysis of a tag task's HTML report (``conlleval``, ``seqeval``): the chunks (or
entities) each side's tags make, as the documents of :class:`~annoscore.report.html_span_data.
SpanSides`, so that the page shows the error categories, the type confusion, the buckets, the
frequent missed and spurious strings and the document viewer a span task shows.

A CoNLL file holds no text: a document's text is its tokens, one sentence a line, separated by
single spaces (the tokens' own order and spelling), and a chunk's offsets and length in
characters are in that text; its length in tokens is that of the tagged tokens.  The page says
so (:data:`TEXT_NOTE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annoscore.formats.brat_model import AnnFile
from annoscore.report.html_span_data import SpanSides

TEXT_NOTE = (
    "A tag file holds no text: each document's text here is its tokens, one sentence a line, "
    "separated by single spaces, and the offsets and character lengths shown are in that text."
)

NO_TOKENS_NOTE = (
    "The input holds tags without tokens: there is no text to show, the offsets shown are "
    "token positions in each document (a separator between sentences is one), and the "
    "missed and spurious strings are empty."
)


def _texts(
    tokens: Sequence[str], boundary: Sequence[bool], starts: Sequence[int]
) -> tuple[list[str], list[int], list[int], list[int]]:
    """Each document's text (``starts``: its first item), and each item's document, first and
    end character in it (a boundary item: a line end, no characters)."""
    n = len(tokens)
    texts: list[str] = []
    doc_of = [0] * n
    first = [0] * n
    end = [0] * n
    bounds = [*starts, n]
    for d in range(len(starts)):
        pieces: list[str] = []
        size = 0
        fresh = True  # at the start of a line
        for i in range(bounds[d], bounds[d + 1]):
            doc_of[i] = d
            if boundary[i]:
                if not fresh:
                    pieces.append("\n")
                    size += 1
                fresh = True
                first[i] = end[i] = size
                continue
            if not fresh:
                pieces.append(" ")
                size += 1
            first[i] = size
            pieces.append(tokens[i])
            size += len(tokens[i])
            end[i] = size
            fresh = False
        texts.append("".join(pieces))
    return texts, doc_of, first, end


def tag_sides(
    names: Sequence[str],
    starts: Sequence[int],
    tokens: Sequence[str] | None,
    boundary: Sequence[bool],
    lines: Sequence[int],
    paths: tuple[str, str],
    chunks: tuple[tuple[Any, Any, list[str]], tuple[Any, Any, list[str]]],
    note: str = "",
) -> SpanSides:
    """Both sides' chunks as documents: ``names`` and ``starts`` (each document's first item),
    the items' ``tokens``, ``boundary`` flags and file ``lines``, each side's path and chunks
    (first item, last item, type; :func:`annoscore.metrics.conlleval.conlleval_chunks`).  A
    chunk belongs to the document where it starts (cut at its last item); ``note`` (beside
    :data:`TEXT_NOTE`) is shown on the page.  ``tokens`` ``None`` (tags without tokens: a
    JSON list of tag lists): no text, offsets are the items' positions in their document
    (:data:`NO_TOKENS_NOTE`)."""
    starts = list(starts) or [0]
    if tokens is None:
        texts: list[str | None] = [None] * len(starts)
        bounds_all = [*starts, len(boundary)]
        doc_of: list[int] = []
        first: list[int] = []
        end: list[int] = []
        for d in range(len(starts)):
            for i in range(bounds_all[d], bounds_all[d + 1]):
                doc_of.append(d)
                first.append(i - bounds_all[d])
                end.append(i - bounds_all[d] + 1)
        said = NO_TOKENS_NOTE
    else:
        made, doc_of, first, end = _texts(tokens, boundary, starts)
        texts = list(made)
        said = TEXT_NOTE
    bounds = [*starts[1:], len(boundary)]
    sides = []
    for path, (firsts, lasts, types) in zip(paths, chunks, strict=True):
        per_doc: list[list[tuple[int, int, str, int]]] = [[] for _ in names]
        for a, b, kind in zip(firsts.tolist(), lasts.tolist(), types, strict=True):
            d = doc_of[a]
            b = min(b, bounds[d] - 1)
            per_doc[d].append((first[a], max(first[a], end[b]), kind, lines[a]))
        files = {}
        for d, name in enumerate(names):
            rows = per_doc[d]
            text = texts[d]
            files[name] = AnnFile(
                id=name,
                path=path,
                ids=[f"C{k}" for k in range(1, len(rows) + 1)],
                types=[kind for _, _, kind, _ in rows],
                starts=[a for a, _, _, _ in rows],
                ends=[b for _, b, _, _ in rows],
                texts=["" if text is None else text[a:b] for a, b, _, _ in rows],
                lines=[line for _, _, _, line in rows],
                text=text,
            )
        sides.append(files)
    return SpanSides(sides[0], sides[1], " ".join(x for x in (said, note) if x))


def exact_matches(sides: SpanSides) -> dict[str, int]:
    """Per type, the chunks both sides hold with the same span and type (each pair once)."""
    from collections import Counter

    found: Counter[str] = Counter()
    for name, gold in sides.gold.items():
        system = sides.system.get(name)
        if system is None:
            continue
        a = Counter(zip(gold.starts, gold.ends, gold.types, strict=True))
        b = Counter(zip(system.starts, system.ends, system.types, strict=True))
        for (_, _, kind), n in (a & b).items():
            found[kind] += n
    return dict(found)
