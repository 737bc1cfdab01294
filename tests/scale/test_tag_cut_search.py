"""The parent's searches of the tag file cutter (:mod:`annoscore.scale.cut_tags`), held to
plain references on random bytes: the start of a line by its number and the number of a
line by its start (:class:`annoscore.scale.cut_lines._Lines`: the newlines of blocks counted by
NumPy, blocks of 1 MB or, here, of a few bytes) against the line starts listed one by one, and
the ``-DOCSTART-`` lines of a range
(:func:`annoscore.scale.cut_tags.docstart_lines`: the word searched, its line's start checked)
against the multi-line pattern that defines them.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies
the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
import re

import pytest

from annoscore.scale import cut_lines
from annoscore.scale.cut_lines import _Lines
from annoscore.scale.cut_tags import docstart_lines

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(20, int(400 * MULTIPLIER))

_DEFINED = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?-DOCSTART-(?=[ \t\r\n]|\Z)")
"""A ``-DOCSTART-`` line: the word at a line's start (after a byte-order mark, maybe), then a
blank, a line end or the end of the range."""

PIECES = (b"\n", b"\n\n", b"x", b"ab ", b" ", b"\t", b"\r", b"-", b"-DOCSTART-",
          b"\xef\xbb\xbf", b"-DOCSTART", b"DOCSTART-", b"O\n", b"B-PER I-PER\n")  # fmt: skip


def _bytes(rng: random.Random, large: bool) -> bytes:
    pieces = rng.randrange(0, 40_000 if large else 60)
    return b"".join(rng.choice(PIECES) for _ in range(pieces))


def _line_starts(data: bytes) -> list[int]:
    """Where each line begins (a newline that ends the data begins none)."""
    return [0] + [i + 1 for i, byte in enumerate(data) if byte == 10 and i + 1 < len(data)]


def test_line_starts_by_number_and_numbers_by_start(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2031)
    for case in range(CASES):
        large = case % 8 == 0
        blocks = [4096, 1 << 20] if large else [1, 2, 3, 7, 64, 1 << 20]
        monkeypatch.setattr(cut_lines, "_BLOCK", rng.choice(blocks))
        data = _bytes(rng, large)
        if not data:
            continue
        starts = _line_starts(data)
        lines = _Lines(data)
        asked = sorted(rng.randrange(1, len(starts) + 4) for _ in range(rng.randrange(1, 8)))
        if rng.random() < 0.25:
            asked.reverse()  # asked backwards: counted again from the start
        for line in asked:
            if rng.random() < 0.5:  # a line's number by its start, in between
                n = rng.randrange(len(starts))
                assert lines.number(starts[n]) == n + 1, (case, starts[n])
            expected = starts[line - 1] if line <= len(starts) else -1
            assert lines.start(line) == expected, (case, line)


def test_docstart_lines_of_a_range() -> None:
    rng = random.Random(2032)
    for case in range(CASES):
        data = _bytes(rng, large=case % 8 == 0)
        for _ in range(4):
            start = rng.randrange(0, len(data) + 1)
            stop = rng.randrange(start, len(data) + 1)
            expected = len(_DEFINED.findall(data, start, stop))
            assert docstart_lines(data, start, stop) == expected, (case, start, stop)
