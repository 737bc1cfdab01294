"""The shapes of annotated text: spans, mentions and one document's standoff annotations.

Readers in :mod:`annoscore.formats` build these; aligners and metrics consume them.  All are frozen
(immutable, hashable) dataclasses.  Offsets are character offsets into the document text, spans are
half-open ``[start, end)``.  The other families have their own modules, so that a command imports
only its own: MUC templates in :mod:`annoscore.templates`, CodiEsp code lists in
:mod:`annoscore.code_lists` (each dataclass costs about 4 million instructions at import).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """One or more half-open character fragments, sorted, e.g. brat's ``10 20;25 30``.

    A continuous span has one fragment.  ``start`` is the first fragment's start and ``end`` the
    last fragment's end.
    """

    fragments: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not self.fragments:
            raise ValueError("a span needs at least one fragment")
        for start, end in self.fragments:
            if start < 0 or end < start:
                raise ValueError(f"bad fragment {start}-{end}: need 0 <= start <= end")

    @classmethod
    def of(cls, start: int, end: int) -> Span:
        """A continuous span ``[start, end)``."""
        return cls(((start, end),))

    @property
    def start(self) -> int:
        return self.fragments[0][0]

    @property
    def end(self) -> int:
        return self.fragments[-1][1]

    @property
    def length(self) -> int:
        """Characters covered (the gaps of a discontinuous span do not count)."""
        return sum(end - start for start, end in self.fragments)

    @property
    def is_discontinuous(self) -> bool:
        return len(self.fragments) > 1

    def overlap(self, other: Span) -> int:
        """Characters covered by both spans (0 when they only touch)."""
        total = 0
        for a_start, a_end in self.fragments:
            for b_start, b_end in other.fragments:
                total += max(0, min(a_end, b_end) - max(a_start, b_start))
        return total

    def __str__(self) -> str:
        return ";".join(f"{s} {e}" for s, e in self.fragments)


@dataclass(frozen=True, slots=True)
class Mention:
    """A typed span: an entity, a PHI mention, a markable.

    Equality and hashing use the span and the type only; the id, text and source line are
    carried along for reports and error messages.
    """

    span: Span
    type: str
    id: str = field(default="", compare=False)
    text: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Normalization:
    """brat ``N`` line: ``N1<TAB>Reference T1 Wikipedia:534366<TAB>Barack Obama``."""

    id: str
    type: str
    target: str
    resource: str
    reference: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Attribute:
    """brat ``A``/``M`` line: a binary (``value is None``) or multi-valued attribute."""

    id: str
    name: str
    target: str
    value: str | None = None


@dataclass(frozen=True, slots=True)
class Relation:
    """brat ``R`` line (``R1<TAB>Origin Arg1:T3 Arg2:T4``) or ``*`` equivalence line."""

    id: str
    type: str
    arguments: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Event:
    """brat ``E`` line: ``E1<TAB>MARRY:T2 Arg1:T1 Arg2:T3``."""

    id: str
    type: str
    trigger: str
    arguments: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Note:
    """brat ``#`` line: ``#1<TAB>AnnotatorNotes T1<TAB>free text`` (PharmaCoNER puts codes here)."""

    id: str
    type: str
    target: str
    text: str


@dataclass(frozen=True, slots=True)
class AnnotatedDocument:
    """One document's standoff annotations (a brat ``.ann`` file and, if found, its ``.txt``)."""

    id: str
    mentions: tuple[Mention, ...]
    text: str | None = None
    normalizations: tuple[Normalization, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    notes: tuple[Note, ...] = ()
    path: str = ""
    warnings: tuple[str, ...] = ()


def first_difference(key: str, response: str) -> int | None:
    """The first offset where two document texts differ (None when equal): the length of
    their longest common prefix, found by bisection on slices (string comparisons in C).

    >>> first_difference("abc", "abd"), first_difference("ab", "abc"), first_difference("a", "a")
    (2, 2, None)
    """
    if key == response:
        return None
    n = min(len(key), len(response))
    low, high = 0, n
    while low < high:  # the longest common prefix, by bisection on slices
        mid = (low + high + 1) // 2
        if key[:mid] == response[:mid]:
            low = mid
        else:
            high = mid - 1
    return low
