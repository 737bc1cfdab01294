"""Read-only records as plain classes: what a frozen dataclass is, without its start-up cost.

A ``@dataclass`` compiles its generated methods when its module is imported (about 4 million
instructions a class, ~0.7 ms): the classes on every command's path are :class:`Record`
subclasses instead, their fields named by ``__slots__`` (in order: repr, equality, hash,
pickling) and set once by the subclass's own ``__init__`` through :func:`set_fields`.  A record is
copied with changes by :meth:`Record.replaced`; a class that others copy with
:func:`dataclasses.replace` stays a dataclass.

>>> class Point(Record):
...     __slots__ = ("x", "y")
...     x: int
...     y: int
...
...     def __init__(self, x: int, y: int = 0) -> None:
...         set_fields(self, x=x, y=y)
>>> Point(1) == Point(1, 0) != Point(2), Point(1)
(True, Point(x=1, y=0))
>>> Point(1).replaced(y=3)
Point(x=1, y=3)
>>> Point(1).x = 2
Traceback (most recent call last):
...
AttributeError: Point is read-only: cannot set x
"""

from __future__ import annotations

from typing import Any, Self, dataclass_transform


class Record:
    """A record of read-only fields named by ``__slots__`` (see the module doc): equal and
    hashed by value, pickled by its fields."""

    __slots__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot delete {name}")

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def replaced(self, **changes: Any) -> Self:
        """A copy with the fields that ``changes`` names set to its values (what
        :func:`dataclasses.replace` is to a dataclass; the subclass's ``__init__`` takes every
        field by its name)."""
        return type(self)(**dict(zip(self.__slots__, self._fields(), strict=True)) | changes)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self._fields()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"


def set_fields(record: Record, **values: Any) -> None:
    """Set the fields of ``record`` (in its ``__init__``: they are read-only after)."""
    for name, value in values.items():
        object.__setattr__(record, name, value)


@dataclass_transform(kw_only_default=True)
class Fields:
    """Fields named by ``__slots__`` (and annotated on the class), each given by keyword once:
    for a class that one function fills and another reads, with no repr, equality or pickling
    by value of its own (a :class:`Record` has them).  Type checkers read the annotations as a
    keyword-only ``__init__`` (``dataclass_transform``: each call checked, nothing compiled at
    import); a field left out or one not declared is a ``TypeError``.

    >>> class Piece(Fields):
    ...     __slots__ = ("start", "end")
    ...     start: int
    ...     end: int
    >>> Piece(start=1, end=4).end
    4
    >>> Piece(start=1)
    Traceback (most recent call last):
    ...
    TypeError: Piece takes start, end by keyword; given start
    """

    __slots__: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        if len(values) != len(self.__slots__) or not values.keys() <= set(self.__slots__):
            raise TypeError(
                f"{type(self).__name__} takes {', '.join(self.__slots__)} by keyword;"
                f" given {', '.join(values)}"
            )
        for name, value in values.items():
            setattr(self, name, value)
