"""MUC SGML key and response files cut before ``<DOC>`` tags found in the bytes.

A MUC task file (:mod:`annoscore.formats.muc_sgml`) holds its documents as ``<DOC> ... </DOC>``
elements (the configuration's ``:sgml_DOC_gid``), each numbered by its ``<DOCNO>`` section
(``:sgml_DOCNUM_gid``).  :func:`split_sgml` cuts two such files with two searches, the shape
of every cutter: the gold boundary (the first ``<DOC>`` tag after an even share of the key,
and its ``<DOCNO>`` element as written) and the system's start of the same document (the
same ``<DOCNO>`` element in the response, after the cut before, and the ``<DOC>`` tag that
opens it).  Only the bytes around each cut are read (``mmap``).

A cut is made only before a ``<`` that a reading of the whole file may see in its first state
(outside every document, tag and comment); when it is not, the chunk before it ends inside a
document, a comment or a tag, which its reader reports as an error, and the input is scored in
one run (:func:`~annoscore.scale.score_lines`).  A chunk that starts in that first state reads
its documents as the whole file does (their offsets count from their own ``<DOC>``); that no
document is in two chunks, on either side, is checked by the document numbers the readers
found (:func:`~annoscore.scale.reduce.exact_cut`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annoscore.scale import cut_lines
from annoscore.scale.chunks import LineChunk
from annoscore.scale.cut_lines import numbered

MUC_MIN_BYTES = 2 << 20
"""MUC files smaller than this (key and response together) are read in one run; larger ones
are cut (a MUC document costs some 50 times the CPU of a CodiEsp one per byte: aligning,
tallying and writing its reports; 1,000 template documents of 50 objects, 8.7 MB, take 3 s)."""

Boundary = Callable[[Any, int], "tuple[int, bytes] | None"]
"""The gold boundary search: the first document start at or after an offset, and the key that
finds the same document in the system (``None``: none)."""

Find = Callable[[Any, bytes, int], int]
"""The system search: the start of the document of a key after an offset (-1: not found)."""


def split_pair(
    gold: Path, system: Path, parts: int, boundary: Boundary, find: Find
) -> list[LineChunk] | None:
    """Two MUC files cut as every pair of single files is
    (:func:`~annoscore.scale.cut_lines.split_pair`, from :data:`MUC_MIN_BYTES` together), with
    ``boundary`` as the gold search and ``find`` as the system's; the chunks not numbered by
    the lines before them (:func:`~annoscore.scale.cut_lines.numbered` does that, a pass over
    the bytes before the last cut, for the tasks whose warnings name lines).  ``None`` when
    the files are too small to cut or no cut is found.

    With more than one worker in the run (:func:`~annoscore.scale.run.current`), the chunks
    shrink towards the end (:func:`~annoscore.scale.cut_lines.targets`): the workers then end
    together, where with even shares one of them scored the last chunk alone while the other
    waited (a worker slowed by another process on the machine: named entity, 1,000
    documents in four chunks, ended 0.4-3.6 s apart)."""
    from annoscore.scale.run import current

    def searches(gold_data: Any, system_data: Any) -> Any:
        def gold_next(at: int, low: int) -> tuple[int, int, bytes] | None:
            found = boundary(gold_data, at)
            return None if found is None else (found[0], found[0] + 1, found[1])

        def system_find(key: bytes, after: int, near: int) -> int:
            return find(system_data, key, after)

        return ((0, len(gold_data)), (0, len(system_data))), gold_next, system_find

    workers = current().workers
    cut = cut_lines.split_pair(gold, system, parts, searches, least=MUC_MIN_BYTES, workers=workers)
    return None if cut is None else list(cut[0])


def _tag(name: str, closing: bool = False) -> re.Pattern[bytes]:
    """A tag of generic identifier ``name`` (any case; not a longer name's start)."""
    slash = b"/" if closing else b""
    return re.compile(b"<" + slash + re.escape(name.encode()) + rb"(?![\w.\-])", re.IGNORECASE)


class SgmlDocuments:
    """The two searches of MUC SGML files whose documents are ``doc_gid`` elements numbered by
    their ``docnum_gid`` section (:func:`split_sgml`); a document's key is its number's element
    as written, ``<DOCNO> 12-3 </DOCNO>``: equal bytes, equal numbers."""

    def __init__(self, doc_gid: str = "DOC", docnum_gid: str = "DOCNO") -> None:
        self.open = _tag(doc_gid)
        self.close = _tag(doc_gid, closing=True)
        self.number = _tag(docnum_gid)
        self.number_close = _tag(docnum_gid, closing=True)

    def _number_of(self, data: Any, start: int) -> tuple[int, bytes] | None:
        """The number element of the document whose tag is at ``start``: where it begins and
        its bytes (``None``: none before the document's end, or too far to look).  Searched
        in the mapping itself, the first :data:`LOOK` bytes from ``start`` (no copy of them)."""
        window = min(len(data), start + LOOK)
        end = self.close.search(data, start + 1, window)
        limit = window if end is None else end.start()
        opened = self.number.search(data, start + 1, limit)
        if opened is None or self.open.search(data, start + 1, opened.start()) is not None:
            return None  # none, or another document's (this tag is in a comment, a tag)
        closed = self.number_close.search(data, opened.end(), limit)
        if closed is None:
            return None
        stop = int(data.find(b">", closed.end(), limit))
        if stop < 0:
            return None
        return opened.start(), bytes(data[opened.start() : stop + 1])

    def boundary(self, data: Any, at: int) -> tuple[int, bytes] | None:
        """The first document tag at or after ``at`` that has a number, and its number's
        element (the first few tags only)."""
        for _ in range(16):
            found = self.open.search(data, at)
            if found is None:
                return None
            number = self._number_of(data, found.start())
            if number is not None and not _in_comment(data, found.start()):
                return found.start(), number[1]
            at = found.end()
        return None

    def find(self, data: Any, key: bytes, after: int) -> int:
        """The start of the system document after ``after`` whose number element is ``key``:
        the element's first hits, each the number of the last document tag before it (within
        :data:`LOOK` bytes: sought in the last 64 KB first, where a document's tag is)."""
        at = after
        for _ in range(16):
            hit = int(data.find(key, at))
            if hit < 0:
                return -1
            tag = None
            for begin in (max(after, hit - (1 << 16)), max(after, hit - LOOK)):
                for tag in self.open.finditer(data, begin, hit):  # noqa: B007 (the last one)
                    pass
                if tag is not None:  # the last tag of the nearer bytes is the last of all
                    break
            if tag is not None and tag.start() > after:
                number = self._number_of(data, tag.start())
                if number is not None and number[0] == hit:
                    return tag.start()
            at = hit + 1
        return -1


LOOK = 1 << 20
"""How far a cut looks from a document's tag for its number, and back from a number for
its document's tag (bytes)."""


def _in_comment(data: Any, at: int) -> bool:
    """Whether ``at`` seems to be inside a comment (one opened in the 64 KB before it and not
    closed before it): a cut there would not be kept, so another is sought."""
    opened = int(data.rfind(b"<!--", max(0, at - (1 << 16)), at))
    return opened >= 0 and int(data.find(b"-->", opened + 4, at)) < 0


_HEADER = re.compile(rb"^[ \t]*<([^<>\s]*)>[ \t]*:=[ \t]*\r?$", re.MULTILINE)
"""A template file's object header line, ``<CLASS-DOCNUM-N> :=`` (its id: group 1)."""
_OBJECT_ID = re.compile(rb"([^\s<>\-]+)-([^\s<>]+)-([^\s<>\-]+)")
"""An object id: class, document, number (the reader's rule, on bytes)."""


def _document_of(header: re.Match[bytes]) -> bytes | None:
    found = _OBJECT_ID.fullmatch(header.group(1))
    return None if found is None else found.group(2)


def template_boundary(data: Any, at: int) -> tuple[int, bytes] | None:
    """The first header line after ``at`` whose document is not the one of the header before
    it (the first object of a document; its objects are contiguous), and that document."""
    previous = None
    for _ in range(4096):
        header = _HEADER.search(data, at)
        if header is None:
            return None
        document = _document_of(header)
        if previous is not None and document is not None and document != previous:
            return header.start(), document
        previous = document
        at = header.end()
    return None


def template_find(data: Any, key: bytes, after: int) -> int:
    """The start of the first header line after ``after`` whose document is ``key`` (the first
    hits of ``-key-``, each hit's line read)."""
    at = after
    needle = b"-" + key + b"-"
    for _ in range(64):
        hit = int(data.find(needle, at))
        if hit < 0:
            return -1
        start = int(data.rfind(b"\n", 0, hit)) + 1
        header = _HEADER.match(data, start)
        if start > after and header is not None and _document_of(header) == key:
            return start
        at = hit + 1
    return -1


def split_templates(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """A MUC key and response template file cut before the header line of a document's first
    object (a line that starts an object in any reading of the file: fills do not span lines),
    the chunks numbered by the lines before them (their warnings quote lines)."""
    chunks = split_pair(gold, system, parts, template_boundary, template_find)
    return None if chunks is None else numbered(chunks)


def split_sgml(
    gold: Path, system: Path, parts: int, doc_gid: str = "DOC", docnum_gid: str = "DOCNO"
) -> list[LineChunk] | None:
    """A MUC SGML key and response cut before their documents' tags (the module doc), their
    lines not counted: the SGML reader numbers a chunk's lines from its start, and what the
    chunks of named entity and coreference tell beside their counts never names a line (their
    warnings name documents and offsets in a document; an error, which names one, makes the
    input be scored in one run).  Counting them cost the parent, before it forked the
    workers, a pass over both files (named entity, 250 documents, 5.9 MB: 29M instructions
    of its 808M)."""
    documents = SgmlDocuments(doc_gid, docnum_gid)
    return split_pair(gold, system, parts, documents.boundary, documents.find)
