"""What the map sends and gets back: chunks of two inputs and each chunk's part of the result.

A :class:`FolderChunk` names some files of two folders, a :class:`LineChunk` byte ranges of two
single files; a :class:`Part` is what scoring one chunk gave (its result, its warnings with
their sides, the document ids its readers saw as :class:`Seen`, what the task kept).  The
callables a task declares to :func:`annoscore.scale.chunked` (:data:`Details`,
:data:`Finish`, :data:`Pooled`, :data:`Splitter`) are typed here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from annoscore.result import Result
    from annoscore.score_warnings import ScoreWarning


class FolderChunk(Record):
    """Some documents of two folders: the file names of each side to link."""

    __slots__ = ("gold", "system", "gold_names", "system_names")  # noqa: RUF023 (field order)
    gold: str
    system: str
    gold_names: tuple[str, ...]
    system_names: tuple[str, ...]

    def __init__(
        self, gold: str, system: str, gold_names: tuple[str, ...], system_names: tuple[str, ...]
    ) -> None:
        set_fields(self, gold=gold, system=system, gold_names=gold_names, system_names=system_names)


class Seen(Record):
    """The distinct document ids a reader found in a chunk of one side, as bytes: the first
    and the last, whether they came in strictly increasing order, how many, and all of them
    joined by newlines (no id of a file of lines holds one; read only when the order does not
    settle the question, as unpickling a set of a million ids costs more than sending bytes).

    >>> Seen.of(["b", "a", "b"])
    Seen(first=b'b', last=b'a', ordered=False, count=2, joined=b'b\\na')
    >>> sorted(Seen.of([b"x", b"y"]).ids()), Seen.of([]).ids()
    ([b'x', b'y'], frozenset())
    """

    __slots__ = ("first", "last", "ordered", "count", "joined")  # noqa: RUF023 (field order)
    first: bytes
    last: bytes
    ordered: bool
    count: int
    joined: bytes

    def __init__(self, first: bytes, last: bytes, ordered: bool, count: int, joined: bytes) -> None:
        set_fields(self, first=first, last=last, ordered=ordered, count=count, joined=joined)

    @classmethod
    def of(cls, ids: Sequence[object]) -> Seen:
        distinct = list(dict.fromkeys(ids))
        if set(map(type, distinct)) <= {str}:
            # strings as they are: UTF-8 (surrogates passed) orders bytes as code points, so
            # the order is the bytes' order, and the ids are encoded once, joined
            texts: list[str] = distinct  # type: ignore[assignment]
            ordered = texts == sorted(texts)  # distinct: sorted is strictly increasing
            joined = "\n".join(texts).encode("utf-8", "surrogatepass")
            first, last = (_utf8(texts[0]), _utf8(texts[-1])) if texts else (b"", b"")
            return cls(first, last, ordered, len(texts), joined)
        keys = [
            k if isinstance(k, bytes) else str(k).encode("utf-8", "surrogatepass") for k in distinct
        ]
        ordered = all(a < b for a, b in itertools.pairwise(keys))
        first, last = (keys[0], keys[-1]) if keys else (b"", b"")
        return cls(first, last, ordered, len(keys), b"\n".join(keys))

    def ids(self) -> frozenset[bytes]:
        return frozenset(self.joined.split(b"\n")) if self.count else frozenset()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class Part(Record):
    """A chunk's result, and its warnings each with its side (:func:`_sided`); ``seen``: the
    document ids the readers found in a chunk of lines (gold's, system's); ``kept``: what the
    task's score function kept of a chunk of lines (:func:`keep`)."""

    __slots__ = ("result", "warnings", "seen", "kept")  # noqa: RUF023 (field order)
    result: Result | None
    warnings: tuple[tuple[int, ScoreWarning], ...]
    seen: tuple[Seen, Seen] | None
    kept: tuple[Any, ...]

    def __init__(
        self,
        result: Result | None,
        warnings: tuple[tuple[int, ScoreWarning], ...],
        seen: tuple[Seen, Seen] | None = None,
        kept: tuple[Any, ...] = (),
    ) -> None:
        set_fields(self, result=result, warnings=warnings, seen=seen, kept=kept)


Details = Callable[[Sequence[Any], Sequence[int]], Any]
"""How a task's details of the chunks make the details of the whole, given the order of the
rows (the stacked rows' positions; ``None``: the first chunk's); raises :class:`NotExact` when
they cannot."""


Finish = Callable[["Result", Sequence["Result"]], "Result | None"]
"""What a task derives from the whole's counts (its ``extra`` fields), made again on the
combined result given the chunks' results; ``None`` when they cannot make one run's."""


class NotExact(Exception):
    """The chunks' results cannot make the result of one run exactly: score in one run."""


Pooled = Callable[[Any, Sequence[Sequence["ScoreWarning"]], Sequence[tuple[Any, ...]]], Any]
"""How a task makes the warnings of one run (``list[ScoreWarning | str]``, in its order, before
what the whole derives) of its chunks of lines' warnings (the :data:`DERIVED_CODES` left out)
and what each chunk kept (:func:`keep`), given the options; ``None`` when it cannot."""

Splitter = Callable[[Path, Path, int], "list[LineChunk] | None"]
"""How two single files are cut into chunks (at most about ``parts``; ``None``: not cut)."""


@dataclass(frozen=True, slots=True)
class LineChunk:
    """Byte ranges ``[start, stop)`` of two files, whole lines: some documents of each."""

    gold: str
    system: str
    gold_range: tuple[int, int]
    system_range: tuple[int, int]
    gold_line: int = -1
    """Lines of the gold file before the range (-1: not counted; :func:`numbered`)."""
    system_line: int = -1
    gold_wrap: Wrap | None = None
    """What a reader of the gold range reads around it (a single file of elements inside one
    root: :mod:`annoscore.scale.cut_xml`); ``None``: nothing."""
    system_wrap: Wrap | None = None


class Wrap(Record):
    """The bytes read before and after a chunk's range (the file's own start and end), a check
    the range's bytes must pass (a module-level function: chunks are pickled), and how many
    documents named by position come before it (``documents``:
    :attr:`~annoscore.formats.files.Cut.documents`)."""

    __slots__ = ("head", "tail", "check", "documents")  # noqa: RUF023 (field order)
    head: bytes
    tail: bytes
    check: Callable[[bytes], bool] | None
    documents: int

    def __init__(
        self,
        head: bytes,
        tail: bytes,
        check: Callable[[bytes], bool] | None = None,
        documents: int = 0,
    ) -> None:
        set_fields(self, head=head, tail=tail, check=check, documents=documents)


UNKNOWN_SIDE = -1
"""The side of an example naming a file that both folders of a chunk hold (``a.ann:4``)."""
