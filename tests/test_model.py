"""annoscore.model: a span's checks and its brat-like text."""

from __future__ import annotations

import pytest

from annoscore.model import Span


@pytest.mark.parametrize(
    ("fragments", "message"),
    [
        ((), "a span needs at least one fragment"),
        (((3, 2),), "bad fragment 3-2: need 0 <= start <= end"),
        (((0, 2), (-1, 4)), "bad fragment -1-4: need 0 <= start <= end"),
    ],
)
def test_a_span_without_fragments_or_with_a_bad_one_is_refused(
    fragments: tuple[tuple[int, int], ...], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        Span(fragments)
    assert str(caught.value) == message


def test_a_span_reads_as_its_fragments_joined_by_semicolons() -> None:
    assert str(Span(((0, 3), (5, 8)))) == "0 3;5 8"
