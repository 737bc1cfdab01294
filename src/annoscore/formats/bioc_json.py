"""BioC JSON into documents (:func:`_json_documents`): ``json.loads`` and a checked walk over its
objects, a passage's annotations read as columns (:func:`_json_block`) when they are plain."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from operator import itemgetter, methodcaller
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.bioc_tree import _Annotation, _Block, _Document, _whole


def _scan_json(
    documents: list[Any],
    type_infon: str,
    id_infon: str,
    locate: Callable[[int, object], int | None] | None = None,
) -> list[_Document] | None:
    """The fast step of BioC JSON: the whole collection in columns (each column one pass over
    every passage or annotation of the file) when every document is an object of passages and
    nothing else, every passage an object of a whole-number offset, a text and annotations
    (no sentences, no relations), every annotation as :func:`_json_annotations` takes it;
    ``None`` to decline (the checked walk reads the file, and names what is wrong)."""
    if not documents:
        return []
    if _types(documents) != {dict}:
        return None
    if any([d.get("annotations") or d.get("relations") for d in documents]):
        return None
    groups = [d.get("passages") or [] for d in documents]
    if _types(groups) != {list}:
        return None
    passages = [p for group in groups for p in group]
    if not passages:
        return [_Document(str(d.get("id") or k), locate, k) for k, d in enumerate(documents, 1)]
    if _types(passages) != {dict}:
        return None
    if any([p.get("sentences") or p.get("relations") for p in passages]):
        return None
    offsets = [p.get("offset", 0) for p in passages]
    texts = [p.get("text") for p in passages]
    if _types(offsets) != {int} or min(offsets) < 0 or _types(texts) != {str}:
        return None
    held = [p.get("annotations") or [] for p in passages]
    if _types(held) != {list}:
        return None
    columns = _json_annotations([a for group in held for a in group], type_infon, id_infon)
    if columns is None:
        return None
    ids, types, concepts, starts, lengths, texts_ = columns
    out = []
    p = a = 0  # the first passage and annotation of the document
    for k, (node, group) in enumerate(zip(documents, groups, strict=True), 1):
        document = _Document(str(node.get("id") or k), locate, k)
        for q in range(p, p + len(group)):
            body = texts[q]
            offset = offsets[q]
            document.pieces.append((offset, body))
            n = a + len(held[q])
            document.annotations.append(
                _Block(
                    (offset, len(body)),
                    ids[a:n],
                    types[a:n],
                    concepts[a:n],
                    starts[a:n],
                    lengths[a:n],
                    texts_[a:n],
                )
            )
            a = n
        p += len(group)
        out.append(document)
    return out


def _json_annotations(
    annotations: list[Any], type_infon: str, id_infon: str
) -> tuple[Sequence[Any], ...] | None:
    """Annotations as the columns of a :class:`_Block` (ids, types, concepts, starts, lengths,
    texts) when each is an object with an id, infons (an object), a text (a string) and one
    location of whole numbers; ``None`` to decline.  Each column is one pass of C code."""
    if not annotations:
        return (), (), (), (), (), ()
    if _types(annotations) != {dict}:
        return None
    try:
        locations = list(map(_LOCATIONS, annotations))
        if _types(locations) != {list} or set(map(len, locations)) != {1}:
            return None
        first = list(map(_FIRST, locations))
        if _types(first) != {dict}:
            return None
        starts = list(map(_OFFSET, first))
        lengths = list(map(_LENGTH, first))
        infons = list(map(_INFONS, annotations))
        texts = list(map(_TEXT, annotations))
        ids = list(map(_ID, annotations))
    except KeyError:
        return None
    if _types(starts) != {int} or _types(lengths) != {int} or min(starts) < 0 or min(lengths) < 0:
        return None
    if _types(infons) != {dict} or _types(texts) != {str}:
        return None
    return (
        ids if _types(ids) == {str} else list(map(str, ids)),
        _strings(list(map(methodcaller("get", type_infon), infons))),
        _strings(list(map(methodcaller("get", id_infon), infons))),
        starts,
        lengths,
        texts,
    )


_LOCATIONS, _INFONS, _TEXT, _ID = map(itemgetter, ("locations", "infons", "text", "id"))
_FIRST, _OFFSET, _LENGTH = itemgetter(0), itemgetter("offset"), itemgetter("length")


def _types(values: list[Any]) -> set[type]:
    return set(map(type, values))


def _strings(values: list[Any]) -> Sequence[str]:
    """Infon values as strings (``None``, or no such infon: empty)."""
    if _types(values) == {str}:
        return values
    return ["" if v is None else v if type(v) is str else str(v) for v in values]


def _json_block(
    annotations: Any, holder: tuple[int, int], type_infon: str, id_infon: str
) -> _Block | None:
    """The fast step of one JSON passage the collection's step declined: its annotations in
    columns (:func:`_json_annotations`), or ``None``."""
    if type(annotations) is not list:
        return None
    columns = _json_annotations(annotations, type_infon, id_infon)
    return None if columns is None else _Block(holder, *columns)


def _json_documents(text: str, path: str, type_infon: str, id_infon: str) -> Iterator[_Document]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON ({error.msg})", path, error.lineno) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("documents"), list):
        raise InputError('expected a BioC JSON collection (an object with "documents")', path)
    locate = partial(json_line, text)
    scanned = _scan_json(data["documents"], type_infon, id_infon, locate)
    if scanned is not None:
        yield from scanned
        return

    def items(node: Any, key: str, where: str) -> list[Any]:
        value = node.get(key) or [] if isinstance(node, Mapping) else None
        if not isinstance(value, list):
            raise InputError(f'{where}: "{key}" is not a list', path)
        for n, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise InputError(f'{where}: "{key}"[{n}] is not an object', path)
        return value

    def infons_of(node: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        value = node.get("infons") or {}
        if not isinstance(value, Mapping):
            raise InputError(f'{where}: "infons" is not an object', path)
        return value

    def infons(node: Mapping[str, Any], where: str) -> dict[str, str]:
        value = infons_of(node, where)
        return {str(k): "" if v is None else str(v) for k, v in value.items()}

    def annotations(node: Any, holder: tuple[int, int] | None, where: str) -> list[_Annotation]:
        # infons stay as written (their values are made strings where they are read), so are
        # locations (a whole number stays one; anything else is made a string and checked)
        out: list[_Annotation] = []
        for a in items(node, "annotations", where):
            value = infons_of(a, f"{where}, annotation {a.get('id', '')!r}")
            out.append(
                (
                    str(a.get("id", "")),
                    value,
                    [
                        (loc.get("offset", ""), loc.get("length", ""))
                        for loc in items(a, "locations", where)
                    ],
                    a.get("text") or "",
                    holder,
                )
            )
        return out

    def relations(node: Any, where: str) -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
        return [
            (
                str(r.get("id", "")),
                infons(r, f"{where}, relation {r.get('id', '')!r}"),
                [
                    (str(n.get("role", "")), str(n.get("refid", "")))
                    for n in items(r, "nodes", where)
                ],
            )
            for r in items(node, "relations", where)
        ]

    for k, node in enumerate(data["documents"], 1):
        if not isinstance(node, Mapping):
            raise InputError(f"documents[{k - 1}] is not an object", path, locate(k, None))
        document = _Document(str(node.get("id") or k), locate, k)
        where = f"document {document.id!r}"
        try:
            for passage in items(node, "passages", where):
                offset = _whole(str(passage.get("offset", 0)), document.id, "passage offset", path)
                body = passage.get("text")
                sentences = items(passage, "sentences", where)
                if body is not None:
                    document.pieces.append((offset, body))
                    held = (offset, len(body))
                    block = _json_block(passage.get("annotations"), held, type_infon, id_infon)
                    if block is not None:
                        document.annotations.append(block)
                    else:
                        document.annotations.extend(annotations(passage, held, where))
                for sentence in sentences:
                    s_offset = _whole(
                        str(sentence.get("offset", 0)), document.id, "sentence offset", path
                    )
                    s_text = sentence.get("text") or ""
                    if body is None:
                        document.pieces.append((s_offset, s_text))
                    document.annotations.extend(
                        annotations(sentence, (s_offset, len(s_text)), where)
                    )
                    document.relations.extend(relations(sentence, where))
                if body is None and not sentences:
                    document.annotations.extend(annotations(passage, (offset, 0), where))
                document.relations.extend(relations(passage, where))
            document.annotations.extend(annotations(node, None, where))
            document.relations.extend(relations(node, where))
        except InputError as error:
            raise document.placed(error) from None
        yield document


# --- the line of an error: found when asked, the reading does not note places ----------------


def json_line(text: str, number: int, annotation: object = None) -> int | None:
    """The line of BioC JSON ``text`` where document ``number`` (from 1) begins, or where its
    ``annotation`` does (an annotation as read: its id comes first; the first annotation of the
    document with that id, passages and their sentences before the document's own); ``None``
    where it is not found.  Only errors ask, so the file is parsed again here.

    >>> text = '{"documents": [\\n {"id": "a"},\\n {"id": "b", "passages": [{"offset": 0,\\n'
    >>> text += '  "annotations": [{"id": "T1"},\\n  {"id": "T2"}]}]}]}'
    >>> json_line(text, 2), json_line(text, 2, ("T2", {}, [], "", None)), json_line(text, 3)
    (3, 5, None)
    """
    steps: list[str | int] = ["documents", number - 1]
    if isinstance(annotation, tuple) and annotation:
        try:
            document = json.loads(text)["documents"][number - 1]
        except (ValueError, LookupError, TypeError):
            return None
        inner = _annotation_steps(document, str(annotation[0]))
        if inner is not None:
            steps += inner
    at = _json_at(text, steps)
    return None if at is None else text.count("\n", 0, at) + 1


def _annotation_steps(document: Any, name: str) -> list[str | int] | None:
    """Where in ``document`` (a parsed BioC JSON document) the first annotation with id
    ``name`` is, as keys and positions; ``None`` if nowhere."""

    def among(node: Any, steps: list[str | int]) -> list[str | int] | None:
        held = node.get("annotations") if isinstance(node, Mapping) else None
        for n, item in enumerate(held if isinstance(held, list) else []):
            if isinstance(item, Mapping) and str(item.get("id", "")) == name:
                return [*steps, "annotations", n]
        return None

    passages = document.get("passages") if isinstance(document, Mapping) else None
    for p, passage in enumerate(passages if isinstance(passages, list) else []):
        found = among(passage, ["passages", p])
        sentences = passage.get("sentences") if isinstance(passage, Mapping) else None
        for s, sentence in enumerate(sentences if isinstance(sentences, list) else []):
            found = found or among(sentence, ["passages", p, "sentences", s])
        if found:
            return found
    return among(document, [])


_SPACE = re.compile(r"[ \t\n\r]*")


def _json_at(text: str, steps: Sequence[str | int]) -> int | None:
    """The offset in ``text`` (JSON that ``json.loads`` reads) of the value reached by
    ``steps`` (an object's key, the last where it repeats, as ``json.loads`` keeps; an array's
    position); ``None`` where a step finds nothing.

    >>> text = '{"a": [1, {"b": 2}], "a": [3, {"b": 4}]}'
    >>> text[_json_at(text, ["a", 1, "b"])], _json_at(text, ["a", 2]), _json_at(text, [0])
    ('4', None, None)
    """
    decode = json.JSONDecoder().raw_decode

    def skip(at: int) -> int:
        found = _SPACE.match(text, at)
        return at if found is None else found.end()

    at = skip(0)
    for step in steps:
        opening = text[at : at + 1]
        if opening not in "{[" or (opening == "{") != isinstance(step, str):
            return None
        at, found, position = skip(at + 1), None, 0
        while text[at : at + 1] not in ("}", "]", ""):
            if opening == "{":
                key, at = decode(text, at)
                at = skip(skip(at) + 1)  # past the colon
                if key == step:
                    found = at
            elif position == step:
                found = at
            _, at = decode(text, at)
            at, position = skip(at), position + 1
            if text[at : at + 1] == ",":
                at = skip(at + 1)
        if found is None:
            return None
        at = found
    return at
