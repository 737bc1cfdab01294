"""Single files whose documents lie inside one root, cut at document boundaries: BioC XML (a
``<collection>`` of ``<document>`` elements) and BioC JSON (an object whose ``documents`` array
holds them).

A chunk is a byte range of whole documents, read as a file of its own: the file's own start
before its first document (the *head*: XML declaration, ``<collection>``, ``<source>``...; the
JSON object up to ``"documents": [``) and its own end after its last (the *tail*:
``</collection>``; ``]}``) around the range (:class:`~annoscore.scale.chunks.Wrap`,
:attr:`~annoscore.formats.files.Cut.head`).  The parent reads the head, the tail and a few
documents around each cut, never the corpus.

Why a chunk can never hold part of a document and be used (the cut is exact by construction):

- XML.  The parent checks that the head followed by the tail is well-formed (so after the head
  the parser is in the collection's content, its only open element), and that the tail is
  ``</collection>`` and white space only.  A chunk read without an error is well-formed, so
  after the head and its range the parser is back in the collection's content, the only open
  element (``</collection>`` closes the root, in no comment, CDATA section, processing
  instruction or tag; XML allows one root): each range is a run of whole children of the
  collection, and the whole file's documents are the chunks' documents in order.  A cut
  inside a comment, CDATA section or tag leaves a chunk that is not well-formed: its reader
  raises, and the input is scored in one run.
- JSON.  The parent checks that the head followed by the tail is one object whose
  ``documents`` is the empty array, and that the tail is ``]``, ``}`` and white space; each
  chunk checks that its range, between brackets, is a JSON array
  (:func:`~annoscore.formats.bioc_tree.json_array_items`): a run of whole values of the
  ``documents`` array, none leaving it; the BioC reader's corpus scan, when it reads the
  chunk, shows it on the way (:func:`~annoscore.formats.bioc.read_bioc_files`: no second
  parse).  Otherwise the chunk is not exact, and the input is scored in one run.

Either way the ids the readers found show every document in one chunk on each side
(:func:`~annoscore.scale.reduce.exact_cut`), and a document that has no id, named by its
position, would be named otherwise in a chunk after the first (:func:`unnamed_documents`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from annoscore.scale.chunks import LineChunk, Wrap
from annoscore.scale.cut_json import JsonDocuments, split_json
from annoscore.scale.cut_lines import sought_near, split_pair

HEAD_BYTES = 1 << 20
"""A file whose first document starts later than this is not cut (its head is read by every
chunk)."""

_XML_SPACE = b" \t\r\n"

# --- BioC XML --------------------------------------------------------------------------------

_XML_FIRST = re.compile(rb"<document[ \t\r\n/>]")
_XML_DOCUMENT = re.compile(rb"<document>[ \t\r\n]*<id>([^<]+)</id>")
"""A document whose first child is its id (the documents a cut may begin with)."""
_XML_END = re.compile(rb"</collection[ \t\r\n]*>[ \t\r\n]*\Z")


def _xml_frame(data: Any) -> tuple[int, int] | None:
    """Where the documents of a BioC XML file lie: from its first ``<document`` (in the first
    :data:`HEAD_BYTES`) to its closing ``</collection>`` (nothing but white space after it);
    ``None`` when it is not so, or when the head followed by the tail is not a well-formed
    collection (the head ends inside a comment, a tag, a DTD...)."""
    first = _XML_FIRST.search(bytes(data[:HEAD_BYTES]))
    if first is None:
        return None
    end = _XML_END.search(data, max(first.start(), len(data) - 4096))
    if end is None:
        return None
    if not _collection(bytes(data[: first.start()]) + bytes(data[end.start() :])):
        return None
    return first.start(), end.start()


def _collection(data: bytes) -> bool:
    """Whether ``data`` is a well-formed XML document whose root is ``collection``, read as
    the BioC reader reads it (UTF-8 text, defusedxml).

    >>> _collection(b"<collection><source/></collection>"), _collection(b"<collection><!--")
    (True, False)
    """
    from defusedxml.ElementTree import fromstring

    try:
        return bool(fromstring(data.decode("utf-8")).tag == "collection")
    except Exception:  # anything the parser refuses: not cut
        return False


def _after_document(data: Any, start: int, low: int) -> bool:
    """Whether only white space lies between a ``</document>`` and ``start`` (a document
    start that follows another, as a real one does: a cut is sought at such starts only)."""
    before = bytes(data[max(low, start - 256) : start]).rstrip(_XML_SPACE)
    return before.endswith(b"</document>")


def _xml_document_of(data: Any, key: bytes, after: int, end: int) -> int:
    """The start of the first ``<document>`` after ``after`` (before ``end``) whose first
    child is ``<id>key</id>`` (-1: none among the first hits of the id)."""
    needle = b"<id>" + key + b"</id>"
    at = after
    for _ in range(16):
        hit = int(data.find(needle, at, end))
        if hit < 0:
            return -1
        start = int(data.rfind(b"<document>", after, hit))
        found = _XML_DOCUMENT.match(data, start) if start > after else None
        if (
            found is not None
            and found.end() == hit + len(needle)
            and _after_document(data, start, after)
        ):
            return start
        at = hit + 1
    return -1


def split_bioc_xml(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """Two BioC XML files cut before ``<document>`` elements (the module doc;
    :func:`~annoscore.scale.cut_lines.split_pair`): at gold documents that follow another and
    begin with their id, the system's at the document of the same id.  ``None`` also when the
    files are not collections of documents as :func:`_xml_frame` finds them."""

    def searches(gold_data: Any, system_data: Any) -> Any:
        frames = _xml_frame(gold_data), _xml_frame(system_data)
        if frames[0] is None or frames[1] is None:
            return None
        gold_end, system_end = frames[0][1], frames[1][1]

        def document(at: int, low: int) -> tuple[int, int, bytes | None] | None:
            found = _XML_DOCUMENT.search(gold_data, at, gold_end)
            if found is None:
                return None
            start = found.start()
            following = _after_document(gold_data, start, low)
            return start, found.end(), found.group(1) if following else None

        def same(key: bytes, after: int, near: int) -> int:
            def found(low: int, high: int) -> int:
                return _xml_document_of(system_data, key, low, high)

            # near first: from ``after``, each cut read the system's file from the cut before
            return sought_near(found, after, near, system_end)

        return frames, document, same

    cut = split_pair(gold, system, parts, searches)
    return None if cut is None else _wrapped(cut[0], None)


# --- BioC JSON -------------------------------------------------------------------------------

_JSON_DOCUMENTS = re.compile(rb'"documents"[ \t\n\r]*:[ \t\n\r]*\[')
_JSON_END = re.compile(rb"\][ \t\n\r]*\}[ \t\n\r]*\Z")


def _bioc_json_array(data: Any) -> tuple[int, int] | None:
    """Where the elements of a BioC JSON file's ``documents`` array lie: after its ``[`` (in
    the first :data:`HEAD_BYTES`) and before the file's final ``]`` (``}`` and white space
    after it); ``None`` when the file is not so, or when the head followed by the tail is not
    one UTF-8 JSON object whose ``documents`` is the empty array.

    >>> _bioc_json_array(b'{"source": "x", "documents": [{"id": "1"}]}\\n')
    (30, 41)
    >>> _bioc_json_array(b'{"infons": {"documents": [{"id": "1"}]}}')

    A key after ``documents`` whose value ends in ``]`` is not seen here (the array found
    ends at the last ``]``): the chunks' check finds it
    (:func:`~annoscore.formats.bioc_tree.json_array_items`).
    """
    head = bytes(data[:HEAD_BYTES])
    if json.detect_encoding(head) != "utf-8":
        return None
    found = _JSON_DOCUMENTS.search(head)
    if found is None:
        return None
    end = _JSON_END.search(data, max(found.end(), len(data) - 4096))
    if end is None:
        return None
    try:
        frame = json.loads(head[: found.end()] + bytes(data[end.start() :]))
    except (ValueError, RecursionError):
        return None
    if not isinstance(frame, dict) or frame.get("documents") != []:
        return None
    return found.end(), end.start()


def _bioc_json_document(value: Any) -> str | None:
    """The id of a decoded element that is a BioC document (an object with passages) named by
    its own id (``None``: not one, or named by its position)."""
    if not isinstance(value, dict) or "passages" not in value:
        return None
    key = value.get("id")
    return key if isinstance(key, str) and key else None


BIOC_DOCUMENTS = JsonDocuments(
    ("id", "infons", "passages", "annotations", "relations"), _bioc_json_document
)
"""How BioC JSON holds its documents: objects of the ``documents`` array, beginning with one
of their keys (a nested object beginning so is decoded and found not to be one)."""


def split_bioc_json(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """Two BioC JSON files cut into at most ``parts`` chunks (more for a large gold file) at
    elements of their ``documents`` arrays (:func:`~annoscore.scale.cut_json.split_json` inside
    :func:`_bioc_json_array`), each read between the file's own head and tail and checked to
    be whole values of the array (:func:`~annoscore.formats.bioc_tree.json_array_items`; the
    module doc)."""
    from annoscore.formats.bioc_tree import json_array_items

    chunks = split_json(gold, system, parts, BIOC_DOCUMENTS, _bioc_json_array)
    return None if chunks is None else _wrapped(chunks, json_array_items)


# --- both ------------------------------------------------------------------------------------


def _wrapped(chunks: Sequence[LineChunk], check: Callable[[bytes], bool] | None) -> list[LineChunk]:
    """``chunks`` (ranges from the first document to the last) each read between its file's
    head (the bytes before the first range) and tail (after the last).  Their lines are not
    counted: a chunk's reader reads the head before its range, so it could not number the
    range's lines as the whole file does, and the BioC readers number none (their errors name
    a line, but a chunk that raised is not used; their warnings name documents and
    annotations).  Counted, they were a pass over both files here, before any worker began
    (40,000 documents of BioC JSON: 0.15 s of 0.35 s of the parent's CPU before the fork)."""
    heads, tails = [], []
    for name, first, last in (
        (chunks[0].gold, chunks[0].gold_range[0], chunks[-1].gold_range[1]),
        (chunks[0].system, chunks[0].system_range[0], chunks[-1].system_range[1]),
    ):
        with open(name, "rb") as handle:
            heads.append(handle.read(first))
            handle.seek(last)
            tails.append(handle.read())
    gold_wrap = Wrap(heads[0], tails[0], check)
    system_wrap = Wrap(heads[1], tails[1], check)
    return [replace(c, gold_wrap=gold_wrap, system_wrap=system_wrap) for c in chunks]


def unnamed_documents(path: Path, ids: Iterable[str]) -> None:
    """Say that a chunk after the first of a BioC file may read otherwise than the whole file
    when one of its documents may be named by its position (``str(k)`` for the ``k``-th, a
    document without an id: :mod:`annoscore.formats.bioc`), which in the whole file is
    another (:func:`~annoscore.formats.files.not_exact`; nothing outside such a chunk)."""
    from annoscore.formats.files import cut_of, not_exact

    cut = cut_of(path)
    if cut is None or not cut.head or cut.start <= len(cut.head):
        return
    if any(key == str(k) for k, key in enumerate(ids, 1)):
        not_exact(path)
