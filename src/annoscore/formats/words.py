"""Fields of a byte buffer as little-endian 64-bit words, for vectorised readers.

A token of ``n`` bytes at offset ``s`` is read as ``ceil(n / 8)`` words (the bytes beyond the
token masked to 0), gathered from the buffer's aligned words with two shifts, so a whole column
of tokens becomes a few uint64 arrays: equal tokens have equal words, and a hash or an
equality test over a column costs a few NumPy passes instead of one Python object per line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annoscore.arrays import IntArray, WordArray


def masks() -> WordArray:
    """``masks()[k]`` keeps the low ``k`` bytes of a word (k = 0..8)."""
    import numpy as np

    return np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


class WordReader:
    """Little-endian 8-byte words at arbitrary byte offsets of a zero-padded buffer."""

    def __init__(self, words: WordArray, position: IntArray) -> None:
        import numpy as np

        self.words = words
        self.base = position >> 3
        shift = ((position & 7) * 8).astype(np.uint64)
        self.low_shift = shift
        self.high_shift = np.uint64(63) - shift
        self.masks = masks()
        self.previous: WordArray | None = None

    def word(self, k: int, remaining: IntArray | int) -> WordArray:
        """The ``k``-th word after each position, masked to ``remaining`` bytes.

        Call with k = 0, 1, 2, ... in turn: each aligned word is gathered once.
        """
        import numpy as np

        last = len(self.words) - 1  # a short token near the end has no word k: clip, then mask
        if self.previous is not None:
            low = self.previous
        else:
            low = self.words[np.minimum(self.base + k, last)]
        high = self.words[np.minimum(self.base + (k + 1), last)]
        self.previous = high
        result: WordArray = low >> self.low_shift
        shifted = high << self.high_shift
        shifted <<= np.uint64(1)
        result |= shifted
        if isinstance(remaining, int):
            if remaining < 8:
                result &= self.masks[max(remaining, 0)]
        else:
            result &= self.masks[np.minimum(np.maximum(remaining, 0), 8)]
        return result
