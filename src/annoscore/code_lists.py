"""CodiEsp code lists: the rows of a D/P file as columns, and the text references of CodiEsp-X.

:mod:`annoscore.formats.codiesp` builds these; the code aligners and metrics consume them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from annoscore.arrays import Int32Array, IntArray


class CodeRows(Record):
    """The rows of a D/P file as columns, in file order.

    ``documents`` lists the distinct document ids in order of first appearance and ``doc[i]``
    indexes it.  ``code[i]`` indexes ``codes`` (the vocabulary passed to
    :func:`annoscore.formats.codiesp.read_code_rows`, or the distinct codes of the file when
    none was passed); it is -1 for a code outside the vocabulary.  ``unknown`` counts those
    rows, ``unknown_distinct`` their distinct codes, and ``unknown_examples`` shows a few.
    ``lines[i]`` is the 1-based line number of row ``i``.
    """

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "path",
        "documents",
        "codes",
        "doc",
        "code",
        "lines",
        "unknown",
        "unknown_distinct",
        "unknown_examples",
        "uppercase",
    )
    path: Path
    documents: list[str]
    codes: list[str]
    doc: Int32Array
    code: Int32Array
    lines: IntArray | None
    """None when row ``i`` is line ``i + 1`` (no blank line)."""
    unknown: int
    unknown_distinct: int
    unknown_examples: tuple[str, ...]
    uppercase: int
    """Rows whose code had upper-case letters before lower-casing."""

    def __init__(
        self,
        path: Path,
        documents: list[str],
        codes: list[str],
        doc: Int32Array,
        code: Int32Array,
        lines: IntArray | None,
        unknown: int = 0,
        unknown_distinct: int = 0,
        unknown_examples: tuple[str, ...] = (),
        uppercase: int = 0,
    ) -> None:
        set_fields(
            self,
            path=path,
            documents=documents,
            codes=codes,
            doc=doc,
            code=code,
            lines=lines,
            unknown=unknown,
            unknown_distinct=unknown_distinct,
            unknown_examples=unknown_examples,
            uppercase=uppercase,
        )

    def __len__(self) -> int:
        return len(self.doc)


@dataclass(frozen=True, slots=True)
class CodeReference:
    """One CodiEsp-X line: a code in a document, supported by the text at ``[start, end]``."""

    document: str
    label: str
    code: str
    start: int
    end: int
    line: int
    text: str = ""
