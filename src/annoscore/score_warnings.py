"""Warnings: what a scorer dropped, changed, tolerated or could not define, counted.

A task's reader, aligner and counts say what they did not take as it was with a
:class:`ScoreWarning` (a code, a sentence with ``{count}``, a few examples); warnings of one code
and message from several files or chunks add up (:func:`merge_warnings`), and ``str(warning)`` is
the one line a user reads (:func:`one_line`: nothing in it can end or rewrite a terminal line).
``--strict-input`` refuses the ones marked ``tolerated`` (:func:`refuse_tolerated`).

>>> w = ScoreWarning("brat.skip", "{count} lines were skipped", 1, ("a.ann:4",))
>>> str(w.merged(ScoreWarning("brat.skip", "{count} lines were skipped", 2, ("b.ann:9",))))
'3 lines were skipped (e.g. a.ann:4, b.ann:9)'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from annoscore.errors import InputError

EXAMPLES_SHOWN = 5
"""How many examples a warning quotes at most."""


EXAMPLE_LENGTH = 120
"""How many characters of one example a warning quotes at most (:func:`_example`)."""


MESSAGE_LENGTH = 400
"""How many characters of a warning's sentence are shown at most (examples are capped too)."""


_LINE_BREAKERS = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (*range(0x09), *range(0x0A, 0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029)
}
_LINE_BREAKERS |= {ord("\n"): "\\n", ord("\r"): "\\r"}


def one_line(text: str) -> str:
    r"""``text`` with every character that could end or rewrite a terminal line escaped as
    Python writes it (``\n``, ``\r``, ``\x1b``, ``\x85``, ``\u2028``...): control characters
    but the tab, C1 controls and the Unicode line and paragraph separators.  A message quotes
    file names and excerpts of the input; escaped, it stays one line (cli.md) and cannot move
    the cursor.  Other text, backslashes included, is kept, so escaping twice changes nothing.

    >>> one_line("gold\nfile.tsv: line\r1\u2028x\x1b[2J")
    'gold\\nfile.tsv: line\\r1\\u2028x\\x1b[2J'
    >>> one_line(one_line("a\rb")) == one_line("a\rb") == "a\\rb"
    True
    """
    return text.translate(_LINE_BREAKERS)


def _example(text: str) -> str:
    """An example capped at :data:`EXAMPLE_LENGTH` characters by cutting its middle, so that a
    location keeps its file name and line (``/a/long/path/.../gold.ann:12``).

    >>> _example("/tmp/" + "x" * 200 + "/qrels.txt:2")[-20:]
    'xxxxxxxx/qrels.txt:2'
    >>> len(_example("y" * 500)) == EXAMPLE_LENGTH
    True
    """
    if len(text) <= EXAMPLE_LENGTH:
        return text
    head = (EXAMPLE_LENGTH - 3) // 2
    return text[:head] + "..." + text[len(text) - (EXAMPLE_LENGTH - 3 - head) :]


@dataclass(frozen=True, slots=True)
class ScoreWarning:
    """Something the scorer dropped, changed, tolerated or could not define, counted.

    ``message`` is a sentence; ``{count}`` in it stands for ``count``, so two warnings with the
    same ``code`` (from two parts of a corpus) add up (:meth:`merged`).  ``examples`` are a few
    of the items concerned; ``alternative`` the scores without the quirk, where known.
    ``str(warning)`` is the sentence a user reads.

    ``tolerated`` marks input the scorer skipped, changed or tolerated to reproduce an official
    number (a malformed line, a byte-order mark, a duplicate): ``--strict-input`` turns those
    into exit 2.  Warnings about the data itself (unpaired documents, undefined scores) are not.
    """

    code: str
    message: str
    count: int = 1
    examples: tuple[str, ...] = ()
    alternative: Mapping[str, float | None] | None = None
    tolerated: bool = False

    def __str__(self) -> str:
        """The warning as one sentence on one line (:func:`one_line`): its message with the
        count, then a few (capped) examples.

        >>> str(ScoreWarning("x", "{count} lines were skipped", 3, ("a.ann:4", "b.ann:9")))
        '3 lines were skipped (e.g. a.ann:4, b.ann:9)'
        """
        text = self.message.replace("{count}", str(self.count))
        if len(text) > MESSAGE_LENGTH:  # a message that quotes input never copies it whole
            text = text[: MESSAGE_LENGTH - 3] + "..."
        if self.examples:
            text += f" (e.g. {', '.join(_example(e) for e in self.examples)})"
        return one_line(text)

    def merged(self, other: ScoreWarning) -> ScoreWarning:
        """The two warnings of one ``code`` as one: counts added, examples pooled (capped)."""
        examples = tuple(dict.fromkeys((*self.examples, *other.examples)))[:EXAMPLES_SHOWN]
        return replace(self, count=self.count + other.count, examples=examples, alternative=None)

    def renamed(self, name: Callable[[str], str]) -> ScoreWarning:
        """This warning with ``name`` applied to its message and to each example (files and
        lines named as the user gave them: ``compare``'s copies, a campaign's uploads)."""
        return replace(self, message=name(self.message), examples=tuple(map(name, self.examples)))


def refuse_tolerated(warnings: Iterable[ScoreWarning]) -> None:
    """``--strict-input``: an :class:`InputError` naming the first warning about input that was
    tolerated to reproduce an official script (and how many more), if any.

    >>> refuse_tolerated([ScoreWarning("bom", "a byte-order mark was removed", tolerated=True)])
    Traceback (most recent call last):
    ...
    annoscore.errors.InputError: --strict-input: a byte-order mark was removed
    """
    tolerated = [w for w in warnings if w.tolerated]
    if tolerated:
        more = f" (and {len(tolerated) - 1} more)" if len(tolerated) > 1 else ""
        raise InputError(f"--strict-input: {tolerated[0]}{more}")


def note(message: str, code: str = "note") -> ScoreWarning:
    """A warning that is one finished sentence (no count to add up)."""
    return ScoreWarning(code, message)


def merge_warnings(items: Iterable[ScoreWarning]) -> tuple[ScoreWarning, ...]:
    """Warnings with the same code and message template merged, in first-seen order."""
    merged: dict[tuple[str, str], ScoreWarning] = {}
    for item in items:
        key = (item.code, item.message)
        merged[key] = merged[key].merged(item) if key in merged else item
    return tuple(merged.values())


def warned_as_kept(kept: Iterable[ScoreWarning | str], warnings: Sequence[ScoreWarning]) -> bool:
    """Whether ``warnings`` (a chunk's, :mod:`annoscore.scale`) are what the warnings it kept
    by group for their pooling (``kept``: a string a :func:`note`) make, merged as one run
    merges them (:func:`merge_warnings`): when not, a warning was not kept by group and its
    pooling is not known (the input is then scored in one run).

    >>> w = ScoreWarning("x.dup", "{n} duplicates", 1, ("a:1",))
    >>> warned_as_kept([w, "a note", w], [w.merged(w), note("a note")])
    True
    >>> warned_as_kept([w, w], [w]), warned_as_kept([w], [w, note("a note")])
    (False, False)
    """
    made = merge_warnings(w if isinstance(w, ScoreWarning) else note(w) for w in kept)
    return made == tuple(warnings)
