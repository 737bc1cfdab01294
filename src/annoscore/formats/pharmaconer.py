"""PharmaCoNER concept-indexing files: one TSV per document, lines ``DOCID<TAB>CODE``.

Codes (SNOMED-CT ids) are kept as strings and form a set per document.  Blank lines are ignored
(the official script crashes on them); a line without exactly two columns is an
:class:`InputError`.  A first column that differs from the file name is counted and warned about
but the code is kept, as the official script does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import list_folder, read_text


@dataclass(frozen=True, slots=True)
class CodeSet:
    """The concept codes of one document, and where they were read from."""

    id: str
    codes: frozenset[str]
    path: str = ""
    warnings: tuple[str, ...] = ()


def parse_code_tsv(content: str, path: Path, doc_id: str | None = None) -> CodeSet:
    """Parse one indexing TSV; ``doc_id`` defaults to the file stem."""
    doc_id = doc_id if doc_id is not None else path.stem
    codes: set[str] = set()
    mismatched = 0
    first_mismatch = ""
    for number, raw in enumerate(content.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) != 2 or not columns[1].strip():
            raise InputError(
                f"expected 2 tab-separated columns DOCID<TAB>CODE, found {len(columns)}: "
                f"{line[:60]!r}",
                path,
                number,
            )
        if columns[0].strip() != doc_id:
            if not mismatched:
                first_mismatch = f"line {number} names {columns[0].strip()!r}"
            mismatched += 1
        codes.add(columns[1].strip())
    warnings: tuple[str, ...] = ()
    if mismatched:
        warnings = (
            f"{path}: {mismatched} line(s) name another document than {doc_id!r} "
            f"({first_mismatch}); their codes are kept, as the official script does",
        )
    return CodeSet(doc_id, frozenset(codes), str(path), warnings)


def read_code_tsv(path: Path) -> dict[str, CodeSet]:
    """One ``.tsv`` file, or every ``.tsv`` in a folder, keyed by document id (file stem)."""
    files = [path] if path.is_file() else list_folder(path, (".tsv",), "concept-indexing files")
    return {f.stem: parse_code_tsv(read_text(f), f) for f in files}
