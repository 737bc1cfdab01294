"""The columnar scan of CodiEsp D/P files: the reader's fast step, which may decline.

:func:`_scan_code_rows` reads a plain file's rows as the columns that
:func:`annoscore.formats.codiesp.read_code_file` returns, or declines (``None``): the checked
parser (``_parse_code_rows``) then reads the file.

The file is read in chunks of whole lines into one reused buffer (so memory stays small and
the temporary arrays are recycled), and each chunk is cut into fields with NumPy: newline and
tab positions, then each code (1 to 8 ASCII bytes, none of them NUL, so the 64-bit
little-endian word of its bytes is the code: two codes are equal exactly when their words
are) looked up in an exact table of the words seen so far.  Documents are compared word by
word with the previous line (only the lines still equal, over their own length, when a few
documents are much longer than the rest), so only the first line of each run of equal
documents goes through a Python dict.  Work and memory are linear in the bytes read.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.code_lists import CodeRows
from annoscore.formats.files import reading
from annoscore.formats.words import WordReader

if TYPE_CHECKING:
    from annoscore.arrays import Int32Array, IntArray, WordArray


_CHUNK = 1 << 20
_WHITESPACE = bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])
"""ASCII bytes that ``str.strip`` removes: a field beginning with one may be empty to the
parser (``_need``), so the scan declines."""


class _WordTable:
    """An exact map from non-zero 64-bit words to ids, growing as words arrive: open
    addressing with linear probing; the hash only chooses where to look, a word is found only
    where the stored word equals it.  A table may start from a seed's words (:class:`CodeSeed`,
    ids below ``base``, given); the words inserted after take the ids from ``base`` on."""

    _MULTIPLIER = 0x9E3779B97F4A7C15

    def __init__(
        self, seed_words: WordArray | None = None, seed_ids: Int32Array | None = None, base: int = 0
    ) -> None:
        import numpy as np

        self.base = self.count = base
        self._seed_words = np.zeros(0, np.uint64) if seed_words is None else seed_words
        self._seed_ids = np.zeros(0, np.int32) if seed_ids is None else seed_ids
        self._parts: list[WordArray] = [np.zeros(0, dtype=np.uint64)]
        self._allocate(1 << 10)

    def copy(self) -> _WordTable:
        """A table with the same words, to insert others into (this one unchanged)."""
        table = object.__new__(_WordTable)
        table.base, table.count = self.base, self.count
        table._seed_words, table._seed_ids = self._seed_words, self._seed_ids
        table._parts = list(self._parts)
        table.size, table.shift = self.size, self.shift
        table.key, table.id = self.key.copy(), self.id.copy()
        return table

    @property
    def words(self) -> WordArray:
        """Every word inserted (not the seed's), by id (from ``base``)."""
        import numpy as np

        if len(self._parts) > 1:
            self._parts = [np.concatenate(self._parts)]
        return self._parts[0]

    def _allocate(self, size: int) -> None:
        """Empty slots, ``size`` of them doubled until the words counted fill at most a quarter
        (probes stay short), then the seed's words placed."""
        import numpy as np

        while 4 * self.count > size:
            size *= 2
        self.size = size
        self.shift = np.uint64(64 - (size.bit_length() - 1))
        self.key = np.zeros(size, dtype=np.uint64)
        self.id = np.full(size, -1, dtype=np.int32)
        if len(self._seed_words):
            self._place(self._seed_words, self._seed_ids)

    def _slot(self, words: WordArray) -> IntArray:
        import numpy as np

        slot: IntArray = ((words * np.uint64(self._MULTIPLIER)) >> self.shift).astype(np.int64)
        return slot

    def lookup(self, query: WordArray) -> Int32Array:
        """The id of each query word, -1 where it was never inserted."""
        import numpy as np

        mask = self.size - 1
        slot = self._slot(query)
        id_at = self.id[slot]
        found = self.key[slot] == query
        result: Int32Array = np.where(found, id_at, np.int32(-1))
        pending = np.flatnonzero(~found & (id_at >= 0))
        slots = (slot[pending] + 1) & mask
        while len(pending):  # linear probing for the few words that collided
            id_at = self.id[slots]
            found = self.key[slots] == query[pending]
            result[pending[found]] = id_at[found]
            keep = ~found & (id_at >= 0)
            pending, slots = pending[keep], (slots[keep] + 1) & mask
        return result

    def insert(self, words: WordArray) -> None:
        """Give ``words`` (distinct, none of them in the table) the next ids, in order."""
        import numpy as np

        self._parts.append(words)  # joined only when the table grows (doubling) or at the end
        self.count += len(words)
        if 4 * self.count > self.size:  # at most a quarter full: probes stay short
            self._allocate(self.size)
            self._place(self.words, np.arange(self.base, self.count, dtype=np.int32))
        else:
            first = self.count - len(words)
            self._place(words, np.arange(first, self.count, dtype=np.int32))

    def _place(self, words: WordArray, ids: Int32Array) -> None:
        import numpy as np

        mask = self.size - 1
        slot = self._slot(words)
        pending = np.arange(len(words))
        while len(pending):
            at = slot[pending]
            free = self.id[at] < 0
            candidates = pending[free]
            _, first = np.unique(at[free], return_index=True)  # one word per free slot
            won = candidates[first]
            self.key[slot[won]] = words[won]
            self.id[slot[won]] = ids[won]
            placed = np.zeros(len(words), dtype=bool)
            placed[won] = True
            pending = pending[~placed[pending]]
            slot[pending] = (slot[pending] + 1) & mask  # each one's slot is taken now


def _words_text(words: WordArray) -> list[str]:
    """The text of each word (a code of 1 to 8 ASCII bytes, none NUL, little-endian, zeros
    after it), in one conversion: the bytes of each word as an 8-byte string, whose trailing
    NULs NumPy drops, decoded as ASCII.

    >>> import numpy as np
    >>> _words_text(np.array([0x6261, 0x3132333435363738, 0x41], dtype=np.uint64))
    ['ab', '87654321', 'A']
    """
    return list(words.astype("<u8", copy=False).view("S8").astype("U8").tolist())


@dataclass(frozen=True, slots=True, eq=False)
class CodeSeed:
    """The valid codes of a run where a D/P file's reading starts (:func:`read_code_file`'s
    ``seed``, :func:`code_seed`): ``names`` the codes sorted, ``index`` each one's place, and a
    word table of those that fit in a 64-bit word (1 to 8 ASCII bytes, none NUL), so that
    the scan finds a valid code as written without adding it to a table of its own.  Rows
    read from a seed have ``names`` as their first codes (each code's id: its place), then
    the file's other codes in order of first appearance."""

    valid: frozenset[str]
    names: list[str]
    index: dict[str, int]
    table: _WordTable


@functools.lru_cache(maxsize=4)
def code_seed(valid: frozenset[str]) -> CodeSeed | None:
    """The :class:`CodeSeed` of ``valid``, made once per list of codes in a process (each
    chunk of a cut run has the same list: found again by identity); ``None`` when a code is
    not its own lower-case (the readers lower-case the valid codes: a seed's codes must stay
    valid once lower-cased)."""
    import numpy as np

    names = sorted(valid)
    if any(c != c.lower() for c in names):
        return None
    fit = [i for i, c in enumerate(names) if 0 < len(c) <= 8 and c.isascii() and "\0" not in c]
    words = np.array([names[i].encode("ascii") for i in fit], dtype="S8").view("<u8")
    table = _WordTable(words.astype(np.uint64), np.array(fit, dtype=np.int32), len(names))
    index = dict(zip(names, range(len(names)), strict=True))
    return CodeSeed(valid, names, index, table)


class _CodeScan:
    """Accumulates the columns of a file scanned chunk by chunk (from ``seed``'s codes, when
    given)."""

    def __init__(self, seed: CodeSeed | None = None) -> None:
        self.doc_index: dict[str, int] = {}
        self.seed = seed
        self.table = _WordTable() if seed is None else seed.table.copy()
        self.doc_parts: list[Int32Array] = []
        self.code_parts: list[Int32Array] = []

    def chunk(self, buffer: bytearray, size: int) -> bool:
        """Add the complete lines in ``buffer[:size]``; False if they are not plain (the
        parser then reads the file)."""
        import numpy as np

        if not buffer[:size].isascii():
            return False
        for special in (b"\0", b'"'):
            if buffer.find(special, 0, size) >= 0:
                return False
        raw = np.frombuffer(buffer, dtype=np.uint8, count=size)
        newline = np.flatnonzero(raw == 10)
        tab = np.flatnonzero(raw == 9)
        if len(tab) != len(newline):
            return False
        line_start = np.empty_like(newline)
        line_start[0] = 0
        line_start[1:] = newline[:-1] + 1
        # a line's text ends before its \n, and before a \r there: the parser drops one \r
        # before a line's \n (Windows line ends) and keeps any other as text (an empty first
        # line reads raw[-1], the buffer's last \n)
        line_end = newline - (raw[newline - 1] == 13)
        # one tab per line, inside it, with a field on each side
        if not bool(((tab > line_start) & (tab + 1 < line_end)).all()):
            return False
        code_start = tab + 1
        space = np.zeros(256, dtype=bool)
        space[list(_WHITESPACE)] = True
        if bool(space[raw[line_start]].any()) or bool(space[raw[code_start]].any()):
            return False
        code_length = line_end - code_start
        if int(code_length.max()) > 8:
            return False
        words = np.frombuffer(buffer, dtype="<u8")
        self._documents(buffer, words, line_start, tab)
        self._codes(WordReader(words, code_start).word(0, code_length))
        return True

    def _documents(
        self, buffer: bytearray, words: WordArray, line_start: IntArray, tab: IntArray
    ) -> None:
        """Index the document of each line: a line starts a new run unless its document has
        the previous line's length and bytes (compared 8 bytes at a time); the first line of
        each run goes through the dict.

        Comparing word ``k`` of every line costs the number of lines per word; that stays
        within a few times the chunk's bytes unless a few documents are much longer than the
        rest, and then only the lines still equal to the previous one, over their own length,
        are compared (the work is linear in the bytes either way)."""
        import numpy as np

        doc_length = tab - line_start
        rows = len(tab)
        changed = np.empty(rows, dtype=bool)
        changed[0] = True
        np.not_equal(doc_length[1:], doc_length[:-1], out=changed[1:])
        longest = int(doc_length.max())
        if rows * ((longest + 7) // 8) <= 2 * (int(tab[-1]) // 8 + rows):
            reader = WordReader(words, line_start)
            same_length = longest == int(doc_length.min())
            for k in range((longest + 7) // 8):
                word = reader.word(k, longest - 8 * k if same_length else doc_length - 8 * k)
                changed[1:] |= word[1:] != word[:-1]
        else:
            same = np.flatnonzero(~changed)  # lines as long as the previous one
            k = 0
            while len(same):
                remaining = doc_length[same] - 8 * k
                here = WordReader(words, line_start[same] + 8 * k).word(0, remaining)
                there = WordReader(words, line_start[same - 1] + 8 * k).word(0, remaining)
                differ = here != there
                changed[same[differ]] = True
                same = same[~differ & (remaining > 8)]
                k += 1
        heads = np.flatnonzero(changed)
        index = self.doc_index
        run_doc = np.fromiter(
            (
                index.setdefault(buffer[s:e].decode("ascii"), len(index))
                for s, e in zip(line_start[heads].tolist(), tab[heads].tolist(), strict=True)
            ),
            dtype=np.int32,
            count=len(heads),
        )
        self.doc_parts.append(run_doc[np.cumsum(changed) - 1])

    def _codes(self, code_word: WordArray) -> None:
        """Index the code of each line in the table, adding the new ones in order of first
        appearance."""
        import numpy as np

        code = self.table.lookup(code_word)
        new = np.flatnonzero(code < 0)
        if len(new):
            fresh, first = np.unique(code_word[new], return_index=True)
            self.table.insert(fresh[np.argsort(first)])
            code[new] = self.table.lookup(code_word[new])
        self.code_parts.append(code)

    def rows(self, path: Path) -> CodeRows:
        import numpy as np

        codes = _words_text(self.table.words)
        return CodeRows(
            path=path,
            documents=list(self.doc_index),
            codes=codes if self.seed is None else [*self.seed.names, *codes],
            doc=np.concatenate(self.doc_parts),
            code=np.concatenate(self.code_parts),
            lines=None,
        )


def _scan_code_rows(
    handle: io.BufferedIOBase, path: Path, seed: CodeSeed | None = None
) -> CodeRows | None:
    """The rows of a plain D/P file (ASCII, one tab per line, codes of at most 8 bytes, no
    blank line, quote, NUL or field beginning with a space; Windows line ends are plain), read
    in chunks from ``handle``; ``None`` when the file is not plain (the parser reads it, and
    names the line); from ``seed``'s codes when given (:class:`CodeSeed`)."""
    scan = _CodeScan(seed)
    buffer = bytearray(_CHUNK + 16)
    view = memoryview(buffer)
    carry = 0
    with reading(path):
        while True:
            got = handle.readinto(view[carry:_CHUNK])
            end = carry + got
            if got == 0:
                if carry == 0:
                    break
                buffer[carry] = 10  # the last line had no newline
                end = carry + 1
            last = buffer.rfind(b"\n", 0, end)
            if last < 0:
                return None  # a line longer than the buffer
            size = last + 1
            if not scan.chunk(buffer, size):
                return None
            carry = end - size
            buffer[:carry] = buffer[size:end]
            if got == 0:
                break
    if not scan.doc_parts:
        return None
    return scan.rows(path)
