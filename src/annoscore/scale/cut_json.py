"""Single JSON files cut at document boundaries: arrays of objects, JSON Lines, marked files.

:func:`split_json` cuts two JSON arrays at top-level elements, :func:`split_json_lines` two
JSON Lines files (the system's line found by the document's id), :func:`split_marked` two
files whose documents begin with a marker line (CoNLL ``#begin document``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.scale.chunks import LineChunk
from annoscore.scale.cut_lines import _Lines, numbered, sought_near, split_pair

# --- single files of JSON arrays -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JsonDocuments:
    """How a task's JSON files hold their documents: a top-level array of objects, one a
    document (or a part of one), whose first key is one of ``first_keys``; ``document`` gives
    the document id of a decoded element (``None``: it cannot say)."""

    first_keys: tuple[str, ...]
    document: Callable[[Any], str | None]


_JSON_SPACE = b" \t\n\r"


def _element_pattern(keys: Sequence[str]) -> re.Pattern[bytes]:
    """A comma, then the start of an object whose first key is one of ``keys`` (group 1): in
    valid JSON never inside a string (a quote there is escaped), maybe nested (a chunk that
    is not a run of whole top-level elements does not parse)."""
    names = b"|".join(re.escape(k.encode()) for k in keys)
    return re.compile(rb',[ \t\n\r]*(\{[ \t\n\r]*"(?:' + names + rb')"[ \t\n\r]*:)')


def _json_array_span(data: Any) -> tuple[int, int] | None:
    r"""Where the elements of a UTF-8 file holding one JSON array lie: after its ``[`` (and a
    byte-order mark, spaces) and before its final ``]`` (spaces after it); ``None`` when the
    file is not so (another encoding, anything else around the array).

    >>> _json_array_span(b'\xef\xbb\xbf [{"a": 1}] \n'), _json_array_span(b'{"a": [1]}')
    ((5, 13), None)
    """
    import json

    head = bytes(data[:4096])
    if json.detect_encoding(head) not in ("utf-8", "utf-8-sig"):
        return None
    start = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    start += len(head[start:]) - len(head[start:].lstrip(_JSON_SPACE))
    if head[start : start + 1] != b"[":
        return None
    tail_from = max(start + 1, len(data) - 4096)
    tail = bytes(data[tail_from:]).rstrip(_JSON_SPACE)
    if not tail.endswith(b"]"):
        return None
    return start + 1, tail_from + len(tail) - 1


def _element_document(data: Any, start: int, elements: JsonDocuments) -> str | None:
    """The document id of the JSON value at ``start`` (read in growing windows; ``None`` when
    it does not decode, is too large or names none)."""
    import json

    decoder = json.JSONDecoder()
    size = 1 << 16
    while True:
        text = bytes(data[start : start + size]).decode("utf-8", "replace")
        try:
            value, _ = decoder.raw_decode(text)
        except (ValueError, RecursionError):
            if start + size >= len(data) or size >= 1 << 26:
                return None
            size *= 4
            continue
        return elements.document(value)


def _element_before(data: Any, pattern: re.Pattern[bytes], at: int, low: int) -> Any:
    """The last element start (:func:`_element_pattern`) between ``low`` and ``at``."""
    window = 1 << 16
    while True:
        begin = max(low, at - window)
        found = None
        for found in pattern.finditer(data, begin, at):  # noqa: B007 (the last one is kept)
            pass
        if found is not None or begin == low:
            return found
        window *= 4


def _find_element(
    data: Any,
    document: str,
    pattern: re.Pattern[bytes],
    elements: JsonDocuments,
    low: int,
    high: int,
) -> tuple[int, int] | None:
    """The comma before, and the start of, the first element after ``low`` (before ``high``)
    whose document is ``document``: found by its id as JSON writes it (escaped or not) closing
    a string, or after a ``/`` (the id may be a path's last part), each hit's element decoded
    and checked."""
    import json

    forms = dict.fromkeys(
        (json.dumps(document)[1:-1], json.dumps(document, ensure_ascii=False)[1:-1])
    )
    for form in forms:
        raw = form.encode("utf-8", "surrogatepass")
        for needle in (b'"' + raw + b'"', b"/" + raw + b'"'):
            at = low
            for _ in range(4):
                hit = data.find(needle, at, high)
                if hit < 0:
                    break
                found = _element_before(data, pattern, hit, low)
                if (
                    found is not None
                    and found.start(1) > low
                    and _element_document(data, found.start(1), elements) == document
                ):
                    return found.start(), found.start(1)
                at = hit + 1
    return None


def split_json(
    gold: Path,
    system: Path,
    parts: int,
    elements: JsonDocuments,
    array: Callable[[Any], tuple[int, int] | None] | None = None,
) -> list[LineChunk] | None:
    """Two files each one JSON array of objects (:class:`JsonDocuments`) cut at top-level
    elements (:func:`_element_pattern`; :func:`~annoscore.scale.cut_lines.split_pair`), the
    system's at the element of the gold one's document.  A chunk is the bytes between two cuts
    without the comma, read as an array of its own (``[`` and ``]`` around it); only the
    elements at the cuts are decoded here.  ``None`` also when a file is not one UTF-8 array of
    objects.  Exact when each chunk parses as an array (whole top-level elements) and the ids
    its reader found show every document in one chunk (:func:`combine_lines`).  ``array``
    finds where the elements lie in a file whose array is not the whole of it (default:
    :func:`_json_array_span`); with more than one worker in the run, chunks that shrink towards
    the end (:func:`~annoscore.scale.cut_lines.split_pair`'s default)."""
    pattern = _element_pattern(elements.first_keys)
    span = _json_array_span if array is None else array

    def searches(gold_data: Any, system_data: Any) -> Any:
        frames = span(gold_data), span(system_data)
        if frames[0] is None or frames[1] is None:
            return None
        gold_end, system_end = frames[0][1], frames[1][1]

        def element(at: int, low: int) -> tuple[int, int, str | None] | None:
            found = pattern.search(gold_data, at, gold_end)
            if found is None:
                return None
            start = found.start(1)
            return start, start + 1, _element_document(gold_data, start, elements)

        def same(document: str, after: int, near: int) -> int:
            def found(low: int, high: int) -> int:
                where = _find_element(system_data, document, pattern, elements, low, high)
                return -1 if where is None else where[1]

            # near first: from ``after``, each cut read the system's file from the cut before
            return sought_near(found, after, near, system_end)

        return frames, element, same

    # a range ends at the comma before the next one's element (only white space between)
    cut = split_pair(gold, system, parts, searches, lambda data, at: data.rfind(b",", 0, at))
    return None if cut is None else cut[0]


def _json_id(data: Any, start: int) -> tuple[str | None, bool] | None:
    """The document id of the JSON Lines line at ``start`` of ``data`` and whether it is the
    document's own (``(None, False)``: none, the document is named by its line number);
    ``None`` for a blank line or one that is not a JSON object."""
    import json

    from annoscore.formats.jsonl import explicit_id

    end = data.find(b"\n", start)
    line = bytes(data[start : len(data) if end < 0 else end])
    if not line.strip():
        return None
    try:
        item = json.loads(line)
        if not isinstance(item, dict):
            return None
        found = explicit_id(item)
    except ValueError:  # not JSON (a "meta" that is not an object names no id: explicit_id)
        return None
    return found, found is not None


def split_json_lines(gold: Path, system: Path, parts: int) -> list[LineChunk] | None:
    """Two JSON Lines files of one document a line (:mod:`annoscore.formats.jsonl`) cut before
    lines (:func:`~annoscore.scale.cut_lines.split_pair`): the system's cut at the line of the
    gold line's document id (its JSON spellings searched, each hit's line parsed); a document
    without an id is named by its line number, so the system's line of that number.  The lines
    before each range are counted (:func:`numbered`): a chunk numbers its lines, and the
    documents named by them, as the whole file does.  Exact when the ids the chunks' readers
    found say so (:func:`exact_cut`)."""

    def searches(gold_data: Any, system_data: Any) -> Any:
        size = len(gold_data)
        gold_lines, system_lines = _Lines(gold_data), _Lines(system_data)

        def line(at: int, low: int) -> tuple[int, int, tuple[str | None, int] | None] | None:
            newline = gold_data.find(b"\n", at - 1)
            if newline < 0 or newline + 1 >= size:
                return None
            start = newline + 1
            found = _json_id(gold_data, start)
            if found is None:
                return start, start + 1, None
            key, own = found
            if own and key is not None:
                return start, start + 1, (key, 0)
            return start, start + 1, (None, gold_lines.number(start))  # named by its line

        def same(document: tuple[str | None, int], after: int, near: int) -> int:
            key, number = document
            if key is not None:
                return _json_line_of(system_data, key, after)
            where = system_lines.start(number)  # the system's line of that number, named so too
            if where < 0 or _json_id(system_data, where) != (None, False):
                return -1
            return where

        return ((0, size), (0, len(system_data))), line, same

    cut = split_pair(gold, system, parts, searches)
    return None if cut is None else numbered(cut[0])


def _json_line_of(data: Any, key: str, after: int) -> int:
    """The start of the line after ``after`` of the JSON Lines ``data`` whose document's own
    id is ``key`` (-1: not found among the first hits of its JSON spellings)."""
    import json

    spellings = dict.fromkeys(
        [json.dumps(key).encode(), json.dumps(key, ensure_ascii=False).encode()]
    )
    if key.lstrip("-").isdigit():
        spellings[key.encode()] = None  # an id given as a number (Prodigy's _input_hash)
    for spelling in spellings:
        at = after
        for _ in range(64):
            at = int(data.find(spelling, at))
            if at < 0:
                break
            start = int(data.rfind(b"\n", 0, at)) + 1
            if start > after and _json_id(data, start) == (key, True):
                return start
            at += 1
    return -1


def split_marked(
    gold: Path,
    system: Path,
    parts: int,
    word: bytes,
    key_of: Callable[[bytes], bytes | None],
) -> list[LineChunk] | None:
    """Two files whose documents each begin at a marked line (``key_of(line)``: the document's
    key, ``None`` for another line; every such line holds ``word`` followed by the key, as
    ``#begin document NAME`` does) cut before such lines, the system's at the marked line of
    the gold one's key (:func:`~annoscore.scale.cut_lines.split_pair`).  Exact when the ids the
    chunks' readers found (:func:`exact_cut`) and what the chunks say (a task's ``pooled``)
    say so; their lines are counted only when a chunk warned (:func:`score_lines`)."""

    def searches(gold_data: Any, system_data: Any) -> Any:
        def marked(at: int, low: int) -> tuple[int, int, bytes] | None:
            return _marked_line(gold_data, word, key_of, at)

        def same(key: bytes, after: int, near: int) -> int:
            where = after
            while (hit := _marked_line(system_data, word + key, key_of, where)) is not None:
                where = hit[1]
                if hit[2] == key and hit[0] > after:
                    return hit[0]
            return -1

        return ((0, len(gold_data)), (0, len(system_data))), marked, same

    cut = split_pair(gold, system, parts, searches)
    return None if cut is None else cut[0]


def _marked_line(
    data: Any, word: bytes, key_of: Callable[[bytes], bytes | None], at: int
) -> tuple[int, int, bytes] | None:
    """The first marked line (``key_of`` gives its key) holding ``word`` after ``at``: its
    start, its end and its key (``None``: none among the first hits)."""
    for _ in range(64):
        hit = int(data.find(word, at))
        if hit < 0:
            return None
        start = int(data.rfind(b"\n", 0, hit)) + 1
        end = int(data.find(b"\n", hit))
        end = len(data) if end < 0 else end
        key = key_of(bytes(data[start:end]))
        if key is not None:
            return start, end, key
        at = end
    return None
