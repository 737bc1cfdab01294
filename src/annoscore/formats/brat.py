"""brat standoff (``.ann``) files and folders of them: the one brat reader.

One annotation per line, fields separated by tabs::

    T1<TAB>Drug 10 20;25 30<TAB>aspirin tablets     entity; fragments separated by ';'
    N1<TAB>Reference T1 SNOMED:387458008<TAB>aspirin  normalisation
    A1<TAB>Negated T1        M1<TAB>Confidence T2 High    attribute (binary or valued)
    R1<TAB>Dose Arg1:T1 Arg2:T2                            relation
    *<TAB>Equiv T1 T2                                      equivalence set
    E1<TAB>Treat:T3 Theme:T1                               event
    #1<TAB>AnnotatorNotes T1<TAB>387458008                 note

Two readings of the same files (``dialect``):

``"brat"`` (the generic commands, :func:`read_ann_file`): blank lines are skipped and any other
malformed line is an :class:`InputError` naming file and line: an empty id, offsets that are not
ASCII digits (``int()`` would take Arabic-Indic digits or ``1_0``), a fragment with ``end <=
start`` (zero-length or reversed), offsets above :data:`MAX_OFFSET`, a NUL byte, a normalisation,
attribute, relation, equivalence, event or note that refers to an id no annotation of the file
has.  Tolerated, each with a warning naming file and line: a UTF-8 byte-order mark (removed), an
entity whose text follows the offsets after a space instead of a tab (``T1<TAB>Drug 10 17
aspirin``: read as text), a repeated annotation id, and an entity text that differs from the
``.txt`` at its offsets (fragments joined by one space, brat's convention).

``"pharmaconer"`` (the PharmaCoNER presets): entity lines are read as the official script reads
them.  It strips each line, takes the lines that then begin with ``T``, splits them at tabs and
reads ``TYPE START END`` from the second field with Python's ``int()``.  So, each tolerated line
a warning naming file and line (``strict_input=True`` makes it an :class:`InputError`):

- a ``T`` line it cannot split (a space instead of the tab after the id, a tab between the type
  and the offsets, fewer than three words) is skipped, as the script skips it with its
  "ERROR!" message;
- an indented line is read; a line beginning with a byte-order mark is dropped (the script
  does not recognise it as an entity);
- offsets ``int()`` reads but that are not plain ASCII digits (``+5``, Arabic-Indic digits),
  reversed offsets (``10 8``) and zero-length spans are kept as written and compared as
  written;
- a discontinuous entity (``10 20;25 30``) is read (the script stops with an error on it);
- text after the offsets on the same field (a space instead of the tab) is read as the text;
- a non-entity line the generic reading rejects is ignored, as the script ignores it.

Offsets that even ``int()`` cannot read stop the official script: an :class:`InputError`.

Offsets count characters of the ``.txt`` exactly as stored (``\\r\\n`` counts two).  Lines end at
``\\n`` only (a trailing ``\\r`` is dropped): U+2028 or a form feed inside a text is text.

Every file is read with one ``os.read``, then by the columnar scan
(:mod:`~annoscore.formats.brat_scan`) or, where it declines, the checked parser
(:mod:`~annoscore.formats.brat_lines`), into one shape (:mod:`~annoscore.formats.brat_model`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import is_not
from pathlib import Path
from typing import Any, cast

from annoscore.errors import InputError
from annoscore.formats.brat_lines import parse_lines
from annoscore.formats.brat_model import (
    MAX_OFFSET,
    AnnFile,
    Dialect,
    EntityBlock,
    FileRows,
    Fragments,
    place,
    tolerated_warning,
)
from annoscore.formats.brat_scan import scan_files
from annoscore.formats.files import folder_files, name_stem, read_text
from annoscore.model import AnnotatedDocument
from annoscore.records import Record, set_fields
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning, merge_warnings

__all__ = [
    "MAX_OFFSET",
    "AnnFile",
    "BratCorpus",
    "Dialect",
    "EntityBlock",
    "FileRows",
    "Fragments",
    "parse_ann_file",
    "place",
    "read_ann_file",
    "read_brat",
    "read_brat_corpus",
    "reader_warnings",
    "tolerated_warning",
]

Each = Callable[[Sequence[Any]], Iterable[Any]]
"""How a reader goes through the files it parses one after the other: given by the caller
(a task's progress line on a terminal: :func:`annoscore.scale.files_read`), the files given
back in order, each once; the reader knows nothing of it."""


def _file_bytes(path: str) -> bytes | None:
    """The bytes of a file, or ``None`` if it cannot be read (the parser then says why).
    ``os.read`` into one buffer: about twice as fast as ``open().read()`` for the many small
    files of a brat folder."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(handle, 1 << 16)
        if len(data) < 1 << 16:
            return data
        pieces = [data]
        while data:
            data = os.read(handle, 1 << 20)
            pieces.append(data)
        return b"".join(pieces)
    except OSError:
        return None
    finally:
        os.close(handle)


def _decoded(data: bytes | str | None, path: str) -> str:
    """``data`` as text; bytes that cannot be read or decoded are an :class:`InputError`
    naming the file (and line) (:func:`~annoscore.formats.files.read_text`)."""
    if isinstance(data, str):
        return data
    if data is not None:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return read_text(Path(path))  # raises, naming the file (and line)


def _utf8(data: bytes | str | None) -> bytes | None:
    """A file's content as the scan reads it: text encoded (``None`` for lone surrogates,
    which only the parser reads)."""
    if not isinstance(data, str):
        return data
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError:
        return None


def _read_files(
    paths: Sequence[str],
    doc_ids: Sequence[str],
    contents: Sequence[bytes | str | None],
    texts: Sequence[bytes | str | None],
    text_paths: Sequence[str | None],
    dialect: Dialect,
    strict_input: bool,
    each: Each | None = None,
) -> list[AnnFile]:
    """Files of one reading: the scan first, the parser for every file it declines; every
    file's entities are rows of one :class:`EntityBlock`.  ``contents`` are the files' bytes
    (or text, or ``None`` when unreadable), ``texts`` their ``.txt`` (``None``: no check);
    ``each``: how the files are gone through (:data:`Each`)."""
    block = EntityBlock()
    # a folder's files are bytes (or None): their lists as they are, without a step per file
    as_bytes: list[bytes | None] = (
        list(map(_utf8, contents))
        if str in set(map(type, contents))
        else cast("list[bytes | None]", list(contents))
    )
    text_bytes: list[bytes | None] = (
        [t.encode("utf-8", "surrogatepass") if isinstance(t, str) else t for t in texts]
        if str in set(map(type, texts))
        else cast("list[bytes | None]", list(texts))
    )
    checks = list(map(is_not, texts, repeat(None)))
    scanned = scan_files(as_bytes, text_bytes, checks, paths, doc_ids, block)
    out = []
    for k, file in enumerate(scanned if each is None else each(scanned)):
        if file is None:  # the checked parser, the only step that names a line
            text = texts[k]
            checked = None if text is None else _decoded(text, text_paths[k] or paths[k])
            content = _decoded(contents[k], paths[k])
            file = parse_lines(content, paths[k], doc_ids[k], dialect, strict_input, checked)
            first = block.add_lists(file.starts, file.ends, file.types)
            file.rows = FileRows(block, first, first + len(file))
        out.append(file)
    return out


def parse_ann_file(
    content: str,
    path: Path | str,
    doc_id: str | None = None,
    text: str | None = None,
    *,
    dialect: Dialect = "brat",
    strict_input: bool = False,
) -> AnnFile:
    """Parse an ``.ann`` file's content into columns; ``text`` is the document text to check
    offsets against (see the module doc for ``dialect`` and ``strict_input``)."""
    name = os.fspath(path)
    doc_id = doc_id if doc_id is not None else os.path.splitext(os.path.basename(name))[0]
    return _read_files([name], [doc_id], [content], [text], [None], dialect, strict_input)[0]


def _text_of(name: str, text_path: Path | None) -> tuple[bytes | None, str | None]:
    """The bytes of the ``.txt`` that checks ``name`` (``text_path``, else the one beside it)
    and its path; ``(None, None)`` when there is none beside it, an :class:`InputError` when
    ``text_path`` cannot be read."""
    if text_path is not None:
        candidate = os.fspath(text_path)
    elif name.endswith(".ann"):
        candidate = name[:-4] + ".txt"
    else:
        candidate = os.path.splitext(name)[0] + ".txt"
    data = _file_bytes(candidate)
    if data is None:
        if text_path is not None:
            raise InputError("no such text file", text_path)
        return None, None
    return data, candidate


def read_ann_file(
    path: Path | str,
    text_path: Path | None = None,
    *,
    check_text: bool = True,
    dialect: Dialect = "brat",
    strict_input: bool = False,
    doc_id: str | None = None,
) -> AnnFile:
    """Read one ``.ann`` file; the ``.txt`` beside it (or ``text_path``) checks the offsets."""
    name = os.fspath(path)
    text, text_name = _text_of(name, text_path) if check_text else (None, None)
    if doc_id is None:
        doc_id = os.path.splitext(os.path.basename(name))[0]
    return _read_files(
        [name], [doc_id], [_file_bytes(name)], [text], [text_name], dialect, strict_input
    )[0]


class BratCorpus(Record):
    """The ``.ann`` files of a path, by document id, and the warnings of reading them."""

    __slots__ = ("files", "warnings")
    files: dict[str, AnnFile]
    warnings: tuple[ScoreWarning, ...]

    def __init__(self, files: dict[str, AnnFile], warnings: tuple[ScoreWarning, ...] = ()) -> None:
        set_fields(self, files=files, warnings=warnings)

    def all_warnings(self) -> list[ScoreWarning]:
        """The folder's warnings and every file's, merged by kind."""
        return list(
            merge_warnings([*self.warnings, *(w for f in self.files.values() for w in f.warnings)])
        )


def _subfolders_with_ann(folder: Path, shown: int = 3) -> str:
    """A hint for a folder with no ``.ann`` file: its subfolders that hold some (a corpus such
    as PharmaCoNER's keeps its documents one level down, ``gold/subtrack1/sample``).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "sample").mkdir()
    >>> _ = (root / "sample" / "a.ann").write_text("")
    >>> _subfolders_with_ann(root)
    '; its subfolder sample has some: give that folder'
    >>> _subfolders_with_ann(root / "sample")
    ''
    """
    try:
        found = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.is_dir() and any(n.endswith(".ann") for n in os.listdir(entry.path))
        )
    except OSError:
        return ""
    if not found:
        return ""
    if len(found) == 1:
        return f"; its subfolder {found[0]} has some: give that folder"
    return f"; its subfolders {', '.join(found[:shown])} have some: give one of them"


def _read_folder_files(
    paths: Sequence[str],
    stems: Sequence[str],
    text_names: Sequence[str | None],
    dialect: Dialect,
    strict_input: bool,
    each: Each | None = None,
) -> list[AnnFile]:
    """The files ``paths`` of a folder (``text_names``: their ``.txt`` files, where the folder
    has one); a ``.txt`` that cannot be read checks nothing."""
    texts = [None if t is None else _file_bytes(t) for t in text_names]
    named = [t if data is not None else None for t, data in zip(text_names, texts, strict=True)]
    contents = [_file_bytes(name) for name in paths]
    return _read_files(paths, stems, contents, texts, named, dialect, strict_input, each)


def _stems_and_texts(
    folder: Path, paths: list[str], text_files: set[str], check_text: bool, every_file: bool
) -> tuple[list[str], list[str], list[str | None]]:
    """Each of a folder's ``paths``: its document id (its name's stem), the paths that do not
    end in ``.ann`` (``every_file``), and each file's ``.txt`` where ``check_text`` and the
    folder has one (``text_files``).  Names that all end in ``.ann`` after something other
    than dots (what a folder of brat files holds): in passes over the names."""
    within = len(os.path.join(folder, ""))  # each path is the folder's joined with a name
    if not every_file:
        stems = [name[within:-4] for name in paths]  # each name ends in .ann
        if all(map(str.strip, stems, repeat("."))):  # else name_stem keeps some whole
            if not check_text:
                return stems, [], [None] * len(paths)
            texts = [name[:-4] + ".txt" for name in paths]
            return stems, [], [t if t in text_files else None for t in texts]
    stems, others = [], []
    text_names: list[str | None] = []
    for name in paths:
        stem = name_stem(name[within:])
        extension = name[within + len(stem) :]
        stems.append(stem)
        if every_file and extension != ".ann":
            others.append(name)
        text_name = name[:-4] + ".txt" if extension == ".ann" and check_text else None
        text_names.append(text_name if text_name in text_files else None)
    return stems, others, text_names


def read_brat_corpus(
    path: Path,
    *,
    check_text: bool = True,
    dialect: Dialect = "brat",
    strict_input: bool = False,
    every_file: bool = False,
    each: Each | None = None,
) -> BratCorpus:
    """One ``.ann`` file, or the ``.ann`` files of a folder (``every_file``: every regular
    file, read as brat whatever its name, as the official PharmaCoNER script reads a system
    folder; files of the same name without extension are one document), keyed by document id
    (the file name without its extension).  ``each``: how a folder's files are gone through
    as they are parsed (:data:`Each`: the caller's progress line).

    A missing path, and a folder with nothing to read, are :class:`InputError`.
    """
    try:
        kind = os.stat(path).st_mode
    except OSError:
        raise InputError("no such file or folder", path) from None
    if not stat.S_ISDIR(kind):
        if path.suffix != ".ann" and not every_file:
            raise InputError("expected a brat .ann file or a folder of them", path)
        if not stat.S_ISREG(kind):
            raise InputError("not a regular file (a FIFO or a device?)", path)
        single = read_ann_file(
            path, check_text=check_text, dialect=dialect, strict_input=strict_input
        )
        return BratCorpus({single.id: single})
    text_files: set[str] = set()
    paths, skipped = folder_files(path, every_file=every_file, texts=text_files)
    if not paths:
        raise InputError(
            "the folder has no brat annotations (.ann files)" + _subfolders_with_ann(path), path
        )
    stems, others, text_names = _stems_and_texts(path, paths, text_files, check_text, every_file)
    if others and strict_input:  # the files before the first such one may name an error first
        first = paths.index(others[0])
        _read_folder_files(paths[:first], stems, text_names, dialect, strict_input)
        raise InputError(
            "not a .ann file (the official script reads it as brat; --strict-input refuses it)",
            others[0],
        )
    read = _read_folder_files(paths, stems, text_names, dialect, strict_input, each)
    files = dict(zip(stems, read, strict=True))
    if len(files) < len(stems):  # files of one stem (every_file): one document
        files = {}
        for stem, file in zip(stems, read, strict=True):
            files[stem] = files[stem].merged(file) if stem in files else file
    warnings = [skipped] if skipped else []
    if others:
        warnings.append(
            ScoreWarning(
                "pharmaconer.non-ann-files",
                "{count} file(s) of the system folder do not end in .ann and were read as brat, "
                "as the official script reads every file of the folder",
                len(others),
                tuple(others[:EXAMPLES_SHOWN]),
                tolerated=True,
            )
        )
    return BratCorpus(files, tuple(warnings))


def read_brat(path: Path, *, check_text: bool = True) -> dict[str, AnnotatedDocument]:
    """One ``.ann`` file, or every ``.ann`` in a folder, keyed by document id (file stem), as
    :class:`~annoscore.model.AnnotatedDocument` objects (generic rules)."""
    corpus = read_brat_corpus(path, check_text=check_text)
    return {doc_id: file.document() for doc_id, file in corpus.files.items()}


def reader_warnings(documents: Iterable[AnnotatedDocument], limit: int = 3) -> list[str]:
    """The readers' warnings of many documents: the first ``limit`` in full, then their count.

    A corpus with a systematic oddity (every file of a submission separating the text with a
    space, say) would otherwise bury the other warnings under hundreds of lines.
    """
    found = [w for doc in documents for w in doc.warnings]
    if len(found) > limit:
        return [*found[:limit], f"... and {len(found) - limit} more such reader warnings"]
    return found
