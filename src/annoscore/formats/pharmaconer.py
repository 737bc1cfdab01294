"""PharmaCoNER concept-indexing files: one TSV per document, lines ``DOCID<TAB>CODE``.

Read as the official script reads them, each tolerated line a warning naming file and line
(``strict_input=True`` makes it an :class:`InputError`):

- A line's trailing whitespace is removed (``"222   "`` is ``"222"``), as the official script
  removes it (warned); only the line ending (``\\n``, ``\\r\\n``) goes without a word.
- Codes (SNOMED-CT ids) are otherwise strings **compared as written**: ``" 111"`` and ``"111"``
  are two codes (a code with whitespace left in it is warned about).
- A document is a **set** of codes: a code repeated in a file counts once (warned).
- A first column that differs from the file name is counted and warned about but the code is
  kept, as the official script does; :attr:`CodeSet.named` keeps which document each row named
  (the CodaLab UNCLEAR filter looks a row's code up in the notes of the document it names).  A
  byte-order mark is part of the first row's document id for the official script, so that row
  names another document.
- A blank line is ignored (the official script crashes on it).
- A line without exactly two columns is an :class:`InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.brat import place
from annoscore.formats.files import BOM, check_no_nul, folder_files, read_text, split_lines
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

_TOLERATED: dict[str, str] = {
    "pharmaconer.blank-line": "{count} blank line(s) in indexing files ignored "
    "(the official script stops with an error on them)",
    "pharmaconer.other-document": "{count} indexing line(s) name another document than their "
    "file; their codes are kept, as the official script does (the CodaLab UNCLEAR filter looks "
    "them up in the notes of the document they name)",
    "pharmaconer.duplicate-code": "{count} code(s) repeat an earlier line of the same file and "
    "count once (a set, as the official script)",
    "pharmaconer.trailing-whitespace": "{count} indexing line(s) end in whitespace, removed as "
    "the official script removes it ('222   ' is '222')",
    "pharmaconer.code-whitespace": "{count} code(s) begin with whitespace and are compared "
    "as written, as the official script does (' 111' is not '111')",
    "pharmaconer.bom": "{count} indexing file(s) begin with a UTF-8 byte-order mark: read as "
    "part of the first document id, as the official script reads it",
}


@dataclass(frozen=True, slots=True)
class CodeSet:
    """The concept codes of one document, and where they were read from.

    ``codes`` are every code of the file; ``named`` the codes by the document id their rows
    name (the file's own id for the usual row).
    """

    id: str
    codes: frozenset[str]
    path: str = ""
    warnings: tuple[ScoreWarning, ...] = ()
    named: Mapping[str, frozenset[str]] = field(default_factory=dict)


def parse_code_tsv(content: str, path: Path, *, strict_input: bool = False) -> CodeSet:
    """Parse one indexing TSV, the document of the file's stem."""
    doc_id = path.stem
    check_no_nul(content, path)
    codes: dict[str, int] = {}
    named: dict[str, set[str]] = {}
    seen: dict[str, list[str]] = {}

    def tolerate(code: str, number: int, what: str) -> None:
        if strict_input:
            raise InputError(f"{what} (--strict-input refuses it)", path, number)
        seen.setdefault(code, []).append(place(path, number))

    if content.startswith(BOM):
        tolerate("pharmaconer.bom", 1, "the file begins with a UTF-8 byte-order mark")
    for number, line in enumerate(split_lines(content), start=1):
        if not line.strip():
            tolerate("pharmaconer.blank-line", number, "blank line")
            continue
        kept = line.rstrip()
        if kept != line:
            tolerate(
                "pharmaconer.trailing-whitespace",
                number,
                f"the line ends in whitespace: {line[-60:]!r}",
            )
        columns = kept.split("\t")
        if len(columns) != 2 or not columns[1].strip():
            raise InputError(
                f"expected 2 tab-separated columns DOCID<TAB>CODE, found {len(columns)}: "
                f"{line[:60]!r}",
                path,
                number,
            )
        name, code = columns
        if name != doc_id:
            tolerate("pharmaconer.other-document", number, f"the line names {name[:30]!r}")
        named.setdefault(name, set()).add(code)
        if code != code.strip():
            tolerate("pharmaconer.code-whitespace", number, f"code {code!r} has whitespace")
        if code in codes:
            tolerate(
                "pharmaconer.duplicate-code",
                number,
                f"code {code[:30]!r} repeats line {codes[code]}",
            )
        else:
            codes[code] = number
    warnings = tuple(
        ScoreWarning(
            code, _TOLERATED[code], len(places), tuple(places[:EXAMPLES_SHOWN]), tolerated=True
        )
        for code, places in seen.items()
    )
    frozen = {name: frozenset(found) for name, found in named.items()}
    return CodeSet(doc_id, frozenset(codes), str(path), warnings, frozen)


def read_code_tsvs(
    path: Path, *, strict_input: bool = False
) -> tuple[dict[str, CodeSet], list[ScoreWarning]]:
    """One ``.tsv`` file, or every ``.tsv`` in a folder, keyed by document id (file stem); and
    the warning of the folder entries skipped (:func:`~annoscore.formats.files.folder_files`)."""
    if not path.exists():
        raise InputError("no such file or folder", path)
    skipped = None
    if path.is_dir():
        names, skipped = folder_files(path, ".tsv")
        if not names:
            raise InputError("the folder has no concept-indexing files (.tsv files)", path)
        files = [Path(name) for name in names]
    else:
        files = [path]
    codes = {f.stem: parse_code_tsv(read_text(f), f, strict_input=strict_input) for f in files}
    return codes, [skipped] if skipped else []
