"""The columnar scan of TREC qrels and run files: where each piece's tokens and fields are,
as NumPy arrays, the fast step of :mod:`annoscore.formats.trec`.

- :class:`Words`: the bytes of the padded text as 8-byte words at every byte offset, so the
  first words of every token are one gather;
- :func:`token_bounds` (:func:`by_separators` for a regular piece): the tokens of a piece and
  the rows they make, with the lines that warnings and errors name;
- :func:`equal_runs`, :func:`one_tag`: the query ids (they come grouped) and the run's tag;
- :func:`digit_grid`, :func:`plain_decimals`: the numbers of a field that are plain decimals
  (the reader parses the others, checked, in Python).

Nothing here names a file's line in a message but :func:`token_bounds`' error, which the
reader makes absolute.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError
from annoscore.records import Fields

if TYPE_CHECKING:
    from annoscore.arrays import BoolArray, ByteArray, IntArray, WordArray


KEY_WORDS = 4
"""Words (8 bytes each) of an id held in the columns: ids up to :data:`KEY_BYTES` bytes are
compared as words; longer ones through their bytes
(:func:`annoscore.formats.trec.document_keys`)."""
KEY_BYTES = 8 * KEY_WORDS


class Words:
    """The bytes of a padded buffer (:func:`annoscore.formats.trec._empty_padded`) as
    little-endian 8-byte words at every byte offset: views of the buffer with one unaligned
    block of ``count`` words per offset (a stride of one byte), so the first ``count`` words
    of each token are one gather, whatever the token's alignment (a block of bytes: a gather
    of 16 bytes takes about the time of one of a word, a third of two).  The padding holds
    the words a token's first :data:`KEY_WORDS` words need, however short it is.

    >>> words = Words(bytearray(b"\\nab cdefghijk\\n") + bytes(42))
    >>> import numpy as np
    >>> block = words.words(np.array([1, 4]), 2, np.array([2, 9]))
    >>> block[:, 0].tolist() == [0x6261, 0x6A696867_66656463], block[:, 1].tolist()
    (True, [0, 107])
    """

    def __init__(self, buffer: bytearray) -> None:
        import numpy as np

        self.buffer = buffer
        self.views: dict[int, Any] = {}
        # the mask that keeps a word's first m bytes, for m = 0 to 8
        self.masks = np.array([(1 << (8 * m)) - 1 for m in range(9)], dtype=np.uint64)

    def words(self, start: IntArray, count: int, length: IntArray | int) -> WordArray:
        """Words 0 to ``count - 1`` of the tokens at ``start`` (bytes ``8k`` to ``8k + 8`` of
        each, for word ``k``), an array of ``count`` columns, each masked to the token's
        ``length`` bytes (0 beyond: a word past its end is 0)."""
        import numpy as np

        view = self.views.get(count)
        if view is None:
            view = self.views[count] = np.ndarray(
                (len(self.buffer) - 8 * count + 1,),
                dtype=f"V{8 * count}",
                buffer=self.buffer,
                strides=(1,),
            )
        block: WordArray = view[start].view("<u8").reshape(len(start), count)
        for k in range(count):
            self._keep(block[:, k], length - 8 * k)
        return block

    def _keep(self, word: WordArray, remaining: IntArray | int) -> None:
        """Zero the bytes of ``word`` past its ``remaining`` bytes (0 for none)."""
        import numpy as np

        if isinstance(remaining, int):
            if remaining < 8:
                word &= np.uint64((1 << (8 * max(remaining, 0))) - 1)
            return
        if not len(remaining):
            return
        low, high = int(remaining.min()), int(remaining.max())
        if low >= 8:  # every token has the whole word
            return
        if low == high:  # one length: one mask
            word &= np.uint64((1 << (8 * max(low, 0))) - 1)
            return
        word &= self.masks.take(remaining, mode="clip")  # (one gather; below 0: none kept)


def one_tag(
    buffer: bytearray, words: Words, start: IntArray, length: IntArray
) -> list[bytes] | None:
    """The run's tag when every row's tag (``start``, ``length``: the sixth field) has the
    bytes of the first row's (what a run writer does): the same length, then the same words
    (:class:`Words`, each masked to the tag's bytes, :data:`KEY_WORDS` at a time), a few
    passes over the rows whatever the tag's length; ``None`` otherwise (the caller finds the
    distinct tags)."""
    if not len(start):
        return None
    at, n = int(start[0]), int(length[0])
    if not bool((length == n).all()):
        return None
    for k in range(0, (n + 7) // 8, KEY_WORDS):
        count = min(KEY_WORDS, (n + 7) // 8 - k)
        block = words.words(start + 8 * k if k else start, count, n - 8 * k)
        if not bool((block == block[0]).all()):
            return None
    return [bytes(buffer[at : at + n])]


class Bounds(Fields):
    """The tokens of a piece (``starts``, ``lengths``), the index of each row's first token
    (``None`` when every line has ``columns`` tokens: row ``i`` starts at token
    ``columns * i``), the 1-based line of each row, the number of lines, the blank lines and
    the lines with more fields than ``columns``, and the error of the first line with too few
    (or, for qrels, too many) fields: the rows are then those before it."""

    __slots__ = (
        "blank",
        "columns",
        "error",
        "extra",
        "first_token",
        "lengths",
        "line",
        "lines",
        "starts",
    )
    blank: list[int]
    columns: int
    error: InputError | None
    extra: list[int]
    first_token: IntArray | None
    lengths: IntArray
    line: IntArray
    lines: int
    starts: IntArray

    def field(self, k: int) -> tuple[IntArray, IntArray]:
        """Where field ``k`` of each row starts and its length (each an array of its own: a
        copy of every ``columns``-th token's costs a third of arithmetic on them)."""
        import numpy as np

        if self.first_token is None:
            step = self.columns
            return (
                np.ascontiguousarray(self.starts[k::step]),
                np.ascontiguousarray(self.lengths[k::step]),
            )
        at = self.first_token + k
        return self.starts[at], self.lengths[at]


def token_bounds(
    raw: ByteArray,
    columns: int,
    names: str,
    path: Path,
    controls: int | None = None,
    offset: int = 0,
) -> Bounds:
    """The tokens and rows of ``raw`` (a text between two newlines), ``controls`` of its
    bytes below 32 (counted here when not given); the tokens' starts plus ``offset`` (where
    ``raw`` is in the text).

    A byte is a separator when it is ASCII whitespace (9-13, 32); every other byte, including
    the other control characters, belongs to a token, as in trec_eval.  Three passes over the
    bytes find the boundaries: whether each byte is a separator, where that changes (a token
    starts after a change at an even place and ends at the next), and, unless every line is
    regular (``columns`` tokens separated by spaces), the newlines: the tokens of each line
    are then counted by locating the newlines among the token bounds.  A qrels line has
    exactly ``columns`` tokens, a run line at least ``columns`` (the rest are ignored).
    """
    import numpy as np

    if controls is None:
        controls = int(np.count_nonzero(raw < 32))
    regular = by_separators(raw, columns, controls, offset)
    if regular is not None:
        return regular
    separator = raw <= 32
    bounds = np.flatnonzero(separator[1:] != separator[:-1])
    bounds += 1  # alternately where a token starts and where it ends (exclusive)
    starts, ends = bounds[0::2], bounds[1::2]
    lines = len(starts) // columns
    if (
        len(starts) != columns * lines
        or controls != lines + 1
        or not bool((raw[ends[columns - 1 :: columns]] == 10).all())
    ):
        lines = int(np.count_nonzero(raw == 10)) - 1
        if controls != lines + 1:  # tabs, \r, or control characters that are not whitespace
            whitespace = np.subtract(raw, np.uint8(9), dtype=np.uint8) <= 4
            if np.count_nonzero(whitespace) != controls:
                separator = whitespace | (raw == 32)
                bounds = np.flatnonzero(separator[1:] != separator[:-1])
                bounds += 1
                starts, ends = bounds[0::2], bounds[1::2]
    del separator
    if len(starts) == columns * lines and bool((raw[ends[columns - 1 :: columns]] == 10).all()):
        # every line has ``columns`` tokens, the last one ending at the line's end: the
        # ``lines`` newlines after the tokens are all of the piece's (but its first).  Seen
        # first without counting the newlines: when the control bytes are the piece's first
        # byte and one newline after each ``columns`` tokens, there is no other newline
        return regular_bounds(starts + offset, ends - starts, columns, lines)
    newlines = np.flatnonzero(raw == 10)
    # every token before a newline has both bounds at or before it
    tokens_before = np.searchsorted(bounds, newlines, side="right") // 2
    per_line_count = np.diff(tokens_before)
    exact = columns == 4
    if exact:
        bad = np.flatnonzero((per_line_count != 0) & (per_line_count != columns))
    else:
        bad = np.flatnonzero((per_line_count != 0) & (per_line_count < columns))
    error = None
    if len(bad):  # the lines before the bad one are still read (one of them may be worse)
        at = int(bad[0])
        wanted = f"{columns}" if exact else f"at least {columns}"
        error = InputError(
            f"expected {wanted} whitespace-separated columns ({names}), "
            f"found {int(per_line_count[at])}",
            path,
            at + 1,
        )
        per_line_count = per_line_count[:at]
    rows = np.flatnonzero(per_line_count)
    first_token = tokens_before[rows]
    extra: list[int] = []
    if not exact:
        extra = (np.flatnonzero(per_line_count > columns) + 1).tolist()
    return Bounds(
        starts=starts + offset,
        lengths=ends - starts,
        columns=columns,
        first_token=first_token,
        line=rows + 1,
        lines=lines,
        blank=(np.flatnonzero(per_line_count == 0) + 1).tolist(),
        extra=extra,
        error=error,
    )


def by_separators(raw: ByteArray, columns: int, controls: int, offset: int = 0) -> Bounds | None:
    """:func:`token_bounds` of a piece whose lines are all regular, found from its separator
    bytes alone (one pass, a third of the positions that the tokens' bounds are): every line
    ``columns`` tokens, each separated from the next by one space or tab and the last followed
    by the line's newline, or by ``\\r`` and the newline on every line (Windows line ends),
    and no other byte below 33 (``controls``: the bytes below 32).  The separators are then
    the piece's first newline and ``columns`` per line (one more with ``\\r``), the last a
    newline; a token lies between two of them.  ``None`` for any other piece.

    >>> import numpy as np
    >>> raw = np.frombuffer(b"\\n1 0 d 1\\n2\\t0 ee 0\\n", dtype=np.uint8)
    >>> found = by_separators(raw, 4, 4)
    >>> found.field(2), found.lines
    ((array([ 5, 13]), array([1, 2])), 2)
    >>> crlf = np.frombuffer(b"\\n1 0 d 1\\r\\n2\\t0 ee 0\\r\\n", dtype=np.uint8)
    >>> by_separators(crlf, 4, 6).field(2)
    (array([ 5, 14]), array([1, 2]))
    >>> by_separators(np.frombuffer(b"\\n1 0  d 1\\n", dtype=np.uint8), 4, 2) is None
    True
    """
    import numpy as np

    at = np.flatnonzero(raw <= 32)
    lines, rest = divmod(len(at) - 1, columns)
    if not rest and lines and bool((raw[at[::columns]] == 10).all()):
        # a newline after every columns-th token; other bytes below 32: tabs only
        if controls != lines + 1 and controls != lines + 1 + int(np.count_nonzero(raw == 9)):
            return None
        gaps = at[1:] - at[:-1]
        if int(gaps.min()) < 2:  # two separators together: an empty token between
            return None
        gaps -= 1  # the tokens' lengths
        return regular_bounds(at[:-1] + (offset + 1), gaps, columns, lines)
    return _by_separators_crlf(raw, at, columns, controls, offset)


def _by_separators_crlf(
    raw: ByteArray, at: IntArray, columns: int, controls: int, offset: int
) -> Bounds | None:
    """:func:`by_separators` of a piece whose every line ends with ``\\r\\n``: ``columns + 1``
    separators a line, the ``columns``-th a ``\\r`` and the next a newline right after it;
    tokens start after each line's first ``columns`` separators (the line's start among
    them) and end at the next one."""
    import numpy as np

    lines, rest = divmod(len(at) - 1, columns + 1)
    if rest or not lines:
        return None
    line_ends = at[columns :: columns + 1]  # each line's \\r, the newline after it
    if not (bool((raw[at[:: columns + 1]] == 10).all()) and bool((raw[line_ends] == 13).all())):
        return None
    if not bool((at[columns + 1 :: columns + 1] - line_ends == 1).all()):
        return None
    # other bytes below 32 than the newlines and the \\r before them: tabs only
    ends = 2 * lines + 1
    if controls != ends and controls != ends + int(np.count_nonzero(raw == 9)):
        return None
    starts = at[:-1].reshape(lines, columns + 1)[:, :columns].ravel()
    lengths = at[1:].reshape(lines, columns + 1)[:, :columns].ravel() - starts - 1
    if int(lengths.min()) < 1:  # two separators together: an empty token between
        return None
    return regular_bounds(starts + (offset + 1), lengths, columns, lines)


def regular_bounds(starts: IntArray, lengths: IntArray, columns: int, lines: int) -> Bounds:
    """The bounds of a regular piece: ``lines`` lines of ``columns`` tokens each, nothing
    else (no blank line, no line with more or fewer tokens)."""
    import numpy as np

    return Bounds(
        starts=starts,
        lengths=lengths,
        columns=columns,
        first_token=None,
        line=np.arange(1, lines + 1),
        lines=lines,
        blank=[],
        extra=[],
        error=None,
    )


def id_words(words: Words, start: IntArray, length: IntArray) -> WordArray:
    """The first :data:`KEY_BYTES` bytes of each token as words: as many columns as the longest
    token needs, at most :data:`KEY_WORDS` (at least one)."""
    longest = int(length.max()) if len(length) else 0
    return words.words(start, min(KEY_WORDS, max(1, (longest + 7) // 8)), length)


def equal_runs(
    data: bytearray, words: Words, start: IntArray, length: IntArray
) -> tuple[list[bytes], IntArray]:
    """The token of each run of equal tokens (query ids come grouped) and each row's run.  A
    token equals the one before it when their lengths and words are equal (up to
    :data:`KEY_BYTES` bytes), and the rest of longer ones as bytes; a run's token is made from
    its words (one array of fixed-width bytes, whose NUL padding Python's bytes drop: there
    is no NUL in the text), a longer one from the text."""
    import numpy as np

    block = id_words(words, start, length)
    changed = np.ones(len(start), dtype=bool)
    if len(start) > 1:
        same = length[1:] == length[:-1]
        for word in block.T:
            same &= word[1:] == word[:-1]
        for i in np.flatnonzero(same & (length[1:] > KEY_BYTES)).tolist():
            a, b, n = int(start[i]), int(start[i + 1]), int(length[i])
            same[i] = data[a + KEY_BYTES : a + n] == data[b + KEY_BYTES : b + n]
        np.logical_not(same, out=changed[1:])
    heads = np.flatnonzero(changed)
    # little-endian words: the bytes in order
    tokens: list[bytes] = block[heads].view(f"S{8 * block.shape[1]}").ravel().tolist()
    for i in np.flatnonzero(length[heads] > KEY_BYTES).tolist():
        at = int(start[heads[i]])
        tokens[i] = bytes(data[at : at + int(length[heads[i]])])
    return tokens, np.cumsum(changed) - 1


def digit_grid(words: Words, start: IntArray, length: IntArray) -> Any:
    """Byte ``j`` of every token, for ``j`` below 16 and the longest token: a (width, rows)
    array, 0 beyond a token (there is no NUL in a file)."""
    import numpy as np

    width = min(16, int(length.max()))
    block = words.words(start, 1 if width <= 8 else 2, length)  # (scores such as 12.375: one)
    return block.view(np.uint8)[:, :width].T.copy()


class PlainDecimals(Fields):
    """What :func:`plain_decimals` finds in each token of a field."""

    __slots__ = ("after", "before", "dotted", "mantissa", "negative", "ok")
    ok: BoolArray  # at most 16 bytes: an optional sign, digits and at most one point
    negative: BoolArray  # the first byte is '-'
    mantissa: IntArray  # every digit, in order (16 digits fit in 64 bits)
    before: IntArray  # digits before the point
    after: IntArray  # digits after it
    dotted: BoolArray  # the token holds the point


def plain_decimals(grid: Any, length: IntArray) -> PlainDecimals:
    """The digits of each token of a (width, rows) byte grid (:func:`digit_grid`), one pass
    over its columns: the fields a score (mantissa over a power of ten) and a relevance (the
    integer part) are read from.  ``before`` and ``after`` count the digits on each side of
    the point of a token that is ``ok`` (the others are read in Python).

    >>> import numpy as np
    >>> tokens = [b"-12.5", b"+3", b".25", b"1.2.3", b"7e1"]
    >>> grid = np.array([list(t.ljust(5, b"\\0")) for t in tokens], dtype=np.uint8).T
    >>> found = plain_decimals(grid, np.array([len(t) for t in tokens]))
    >>> found.ok.tolist(), found.mantissa.tolist()
    ([True, True, True, False, False], [125, 3, 25, 123, 71])
    >>> found.before[:3].tolist(), found.after[:3].tolist(), found.dotted[:3].tolist()
    ([2, 1, 0], [1, 0, 2], [True, False, True])
    """
    import numpy as np

    n = len(length)
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.uint8)
    dots = np.zeros(n, dtype=np.uint8)
    point = np.zeros(n, dtype=np.uint8)  # the column of the point (read only with one)
    ok = length <= 16
    for j in range(len(grid)):
        char = grid[j]
        digit = char - np.uint8(48)
        is_digit = digit < 10
        is_dot = char == 46
        allowed = is_digit | is_dot
        allowed |= char == 0
        if j == 0:
            allowed |= (char == 45) | (char == 43)
        ok &= allowed
        digits += is_digit
        dots += is_dot
        if j:  # the columns of the points, added: the column of a token's one point
            point += is_dot.view(np.uint8) * np.uint8(j)
        # times 10 plus the digit where a digit is, else times 1 plus 0 (plain passes: one
        # with ``where=`` takes twice as long, and np.where six times the instructions)
        step = is_digit.view(np.uint8) * np.uint8(9)
        step += np.uint8(1)
        mantissa *= step
        mantissa += digit * is_digit
    dotted = dots == 1
    # with one point and only digits (and a sign) besides, the digits after it end the token
    after = np.where(dotted, length - point.astype(np.int64) - 1, 0)
    before: IntArray = digits.astype(np.int64)
    before -= after
    negative = grid[0] == 45 if len(grid) else np.zeros(n, dtype=bool)
    return PlainDecimals(
        ok=ok & (dots <= 1),
        negative=negative,
        mantissa=mantissa,
        before=before,
        after=after,
        dotted=dotted,
    )
