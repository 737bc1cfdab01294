"""Additive counts: the one currency every metric pays in.

A metric looks at one document and returns a :class:`Counts` (true positives, tallies, the
numerator and denominator of a recall, ...).  Counts add key by key, so a corpus score is the score
of the sum of its document counts; micro averages, macro averages over documents, bootstrap
resampling and per-document tables all start from the same per-document counts.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView

Number = int | float


class Counts(Mapping[str, Number]):
    """An immutable mapping from a statistic's name to a number, closed under addition.

    A key that is absent reads as 0 (``Counts()["tp"] == 0``), so documents that never saw a
    statistic add cleanly with those that did.  ``sum(list_of_counts)`` works (it starts from 0).

    >>> Counts(tp=2, fp=1) + Counts(tp=1, fn=3)
    Counts(fn=3, fp=1, tp=3)
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Number] | None = None, /, **values: Number) -> None:
        merged: dict[str, Number] = dict(data) if data is not None else {}
        merged.update(values)
        self._data = merged

    def __getitem__(self, key: str) -> Number:
        return self._data.get(key, 0)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    # the stored statistics' views, at C speed (the Mapping defaults go through __getitem__)
    def keys(self) -> KeysView[str]:
        return self._data.keys()

    def values(self) -> ValuesView[Number]:
        return self._data.values()

    def items(self) -> ItemsView[str, Number]:
        return self._data.items()

    def __add__(self, other: object) -> Counts:
        if isinstance(other, int) and other == 0:  # the start value of sum()
            return self
        if not isinstance(other, Counts):
            return NotImplemented
        merged = dict(self._data)
        for key, value in other._data.items():
            merged[key] = merged.get(key, 0) + value
        return Counts(merged)

    __radd__ = __add__

    def __eq__(self, other: object) -> bool:
        """Equal when every statistic is, reading absent keys as 0 (also against a plain dict)."""
        if isinstance(other, Mapping):
            keys = self._data.keys() | other.keys()
            return all(self[k] == other.get(k, 0) for k in keys)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset((k, v) for k, v in self._data.items() if v != 0))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={self._data[k]!r}" for k in sorted(self._data))
        return f"Counts({inner})"

    def prefixed(self, prefix: str) -> Counts:
        """The same counts with every key renamed to ``prefix + key``."""
        return Counts({prefix + k: v for k, v in self._data.items()})

    def select(self, prefix: str) -> Counts:
        """The counts whose key starts with ``prefix``, with the prefix removed."""
        n = len(prefix)
        return Counts({k[n:]: v for k, v in self._data.items() if k.startswith(prefix)})

    def as_dict(self) -> dict[str, Number]:
        """A plain dict, keys sorted, whole floats turned into ints (for JSON)."""
        out: dict[str, Number] = {}
        for key in sorted(self._data):
            value = self._data[key]
            out[key] = int(value) if isinstance(value, float) and value.is_integer() else value
        return out

    @staticmethod
    def total(items: Iterable[Counts]) -> Counts:
        """The sum of many counts, faster than ``sum()`` for long sequences."""
        merged: dict[str, Number] = {}
        for counts in items:
            for key, value in counts._data.items():
                merged[key] = merged.get(key, 0) + value
        return Counts(merged)
