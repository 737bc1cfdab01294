"""Whitespace tokens of many texts at once, for token mode on the array path: the tokens are
what ``str.split`` finds (:data:`~annoscore.align.spans.WHITESPACE_CODEPOINTS`), and
:class:`TokenIndex` tells which tokens each row of :class:`~annoscore.align.span_arrays.SpanArrays`
touches with two look-ups.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annoscore.align.span_arrays import Array, SpanArrays
from annoscore.align.spans import WHITESPACE_CODEPOINTS
from annoscore.records import Record, set_fields


def _joined_space(texts: Sequence[str]) -> tuple[Array, Array]:
    """Whether each character of the texts joined by ``"\\n"`` is whitespace, and the offsets.

    ``offsets[d]`` is where text ``d`` begins in the joined text; ``offsets[-1]`` is the joined
    length + 1.  Whitespace is what ``str.isspace`` says
    (:data:`~annoscore.align.spans.WHITESPACE_CODEPOINTS`).
    """
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    if texts:
        offsets[1:] = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
        offsets[1:] += np.arange(1, len(texts) + 1, dtype=np.int64)
    joined = "\n".join(texts)
    if joined.isascii():  # one byte per character; ASCII whitespace is 9-13 and 28-32
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        low = codes <= 32
        space: Array = low & ((codes >= 28) | ((codes >= 9) & (codes <= 13)))
        return space, offsets
    table = np.zeros(0x3002, dtype=bool)
    table[list(WHITESPACE_CODEPOINTS)] = True
    wide = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    return table[np.minimum(wide, 0x3001)], offsets


class TokenIndex(Record):
    """The whitespace tokens of many texts joined by ``"\\n"``, indexed by character.

    ``started[p]`` is the number of tokens that start at or before joined position ``p`` and
    ``inside[p]`` whether ``p`` is part of a token; whitespace positions are added at the end
    so that ``offsets[-1]`` (one past the final separator) is a valid position.
    Tokens are numbered in joined order, so the tokens of document ``d`` are the numbers from
    ``first_token[d]`` to ``first_token[d + 1] - 1``.
    """

    __slots__ = ("offsets", "started", "inside", "first_token")  # noqa: RUF023 (the fields' order)
    offsets: Array
    started: Array
    inside: Array
    first_token: Array

    def __init__(self, offsets: Array, started: Array, inside: Array, first_token: Array) -> None:
        set_fields(self, offsets=offsets, started=started, inside=inside, first_token=first_token)

    @classmethod
    def of(cls, texts: Sequence[str]) -> TokenIndex:
        space, offsets = _joined_space(texts)
        inside = np.zeros(space.shape[0] + 2, dtype=np.int8)
        np.logical_not(space, out=inside[: space.shape[0]], casting="unsafe")
        begins = np.empty_like(inside)
        begins[0] = inside[0]
        np.greater(inside[1:], inside[:-1], out=begins[1:], casting="unsafe")
        wide = np.int32 if inside.shape[0] < 2**31 else np.int64
        started = np.cumsum(begins, dtype=wide)
        first_token = (started[offsets] - inside[offsets]).astype(np.int64)
        return cls(offsets, started, inside, first_token)

    def touched(self, rows: SpanArrays) -> tuple[Array, Array]:
        """``[first, last)``: the numbers of the tokens each row shares a character with.

        A row's offsets are clipped to its document's text; an empty row touches nothing.
        """
        limit = self.offsets[rows.doc + 1] - 1  # the separator after the document's text
        base = self.offsets[rows.doc]
        low = np.minimum(base + rows.start, limit)
        high = np.minimum(base + rows.end, limit)
        # tokens ending at or before ``low`` / starting before ``high``
        first = self.started[low] - self.inside[low]
        last = np.where(high > low, self.started[np.maximum(high - 1, 0)], first)
        return first.astype(np.int64), last.astype(np.int64)

    def document_of(self, tokens: Array) -> Array:
        """The document of each token number of a **sorted** array."""
        bounds = np.searchsorted(tokens, self.first_token[:-1], side="left")
        sizes = np.diff(bounds, append=tokens.shape[0])
        result: Array = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
        return result
