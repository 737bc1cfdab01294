"""What BioC's readers share: a document as read (:class:`_Document`, its annotations as tuples
or a passage's :class:`_Block` of columns), a scan's :class:`_Decline`, the errors and warnings
of a location, and :class:`BiocFile`, one document as the columns ``spans`` scores."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.brat_model import AnnFile
from annoscore.model import AnnotatedDocument, Mention, Normalization, Span

_Annotation = tuple[Any, Any, list[tuple[Any, Any]], Any, "tuple[int, int] | None"]
"""One annotation as read: (id, infons (a mapping), locations ((offset, length) as written),
text, the (offset, length) of its passage or sentence, ``None`` for a document's own)."""


@dataclass(slots=True)
class _Block:
    """The annotations of one passage in columns (the fast steps' shape): each has one
    location, given as whole numbers; ``types`` and ``concepts`` are the values of the
    ``type_infon`` and ``id_infon`` infons (empty when absent)."""

    holder: tuple[int, int] | None
    ids: Sequence[str]
    types: Sequence[str]
    concepts: Sequence[str]
    starts: Sequence[int]
    lengths: Sequence[int]
    texts: Sequence[str]

    def annotations(self, type_infon: str, id_infon: str) -> list[_Annotation]:
        """The same annotations one by one, as the checked parsers give them."""
        return [
            (i, {type_infon: t} | ({id_infon: c} if c else {}), [(s, n)], x, self.holder)
            for i, t, c, s, n, x in zip(
                self.ids,
                self.types,
                self.concepts,
                self.starts,
                self.lengths,
                self.texts,
                strict=True,
            )
        ]


class _Document:
    """One document as read: its id, its passages' (offset, text), its annotations in order
    (one by one, or a passage's in columns) and its relations; when the checked XML parse
    read it for the place of an error, the line of its ``<document>`` and those of its
    annotations (by the tuple's ``id``); a JSON document, how to find them
    (:func:`~annoscore.formats.bioc_json.json_line`)."""

    __slots__ = ("annotations", "id", "line", "lines", "locate", "number", "pieces", "relations")

    def __init__(
        self, id: str, locate: Callable[[int, object], int | None] | None = None, number: int = 0
    ) -> None:
        self.id = id
        self.pieces: list[tuple[int, str]] = []
        self.annotations: list[_Annotation | _Block] = []
        self.relations: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = []
        self.line: int | None = None
        self.lines: dict[int, int] = {}
        self.locate = locate
        self.number = number

    def placed(self, error: InputError, annotation: object = None) -> InputError:
        """``error`` naming the line of ``annotation`` (else of the document) when it names
        none and the line is known: XML's as the checked parse noted them, JSON's found when
        asked (``locate``: from the document's ``number`` and an annotation, or ``None``, to its
        line or its document's)."""
        if error.line is not None:
            return error
        line = self.lines.get(id(annotation), self.line)
        if line is None and self.locate is not None:
            line = self.locate(self.number, annotation)
        if line is None:
            return error
        return InputError(error.message, error.path, line, document=error.document)


# --- the two syntaxes into one tree ----------------------------------------------------------


class _Decline(Exception):
    """The scan met something it is not sure of: the checked parser reads the file."""


def json_array_items(data: bytes) -> bool:
    """Whether ``data`` between brackets is a JSON array: values separated by commas, none
    leaving the array it is cut from (the check of a chunk of a BioC JSON file's documents,
    :func:`~annoscore.scale.cut_xml.split_bioc_json`).

    >>> json_array_items(b'{"id": "a"}, {"id": "b"}'), json_array_items(b'{"id": "a"}], "x": [{}')
    (True, False)
    """
    import json

    try:
        json.loads(b"[" + data + b"]")
    except (ValueError, RecursionError):
        return False
    return True


def _whole(value: str, document: str, what: str, path: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"document {document!r}: {what} {value!r} is not a whole number", path)
    return int(text)


def _number(value: Any, document: str, what: str, path: str) -> int:
    """A location's offset or length as written (a JSON whole number, or a string)."""
    if type(value) is int and value >= 0:
        return value
    return _whole(str(value), document, what, path)


def _infon(infons: Mapping[str, Any], key: str) -> str:
    value = infons.get(key)
    return "" if value is None else str(value)


def _past(
    document: _Document, name: str, fragments: Sequence[tuple[int, int]], body: str, path: str
) -> InputError:
    return InputError(
        f"document {document.id!r}, annotation {name!r}: location "
        f"{';'.join(f'{s}-{e}' for s, e in fragments)} is past its passage "
        f"(or the document text, {len(body)} characters)",
        path,
    )


def _differs(
    document: _Document,
    name: str,
    written: Any,
    fragments: Sequence[tuple[int, int]],
    body: str,
    path: str,
) -> str:
    found = " ".join(body[s:e] for s, e in fragments)
    return (
        f"{path}: document {document.id!r}, annotation {name!r}: text "
        f"{written!r} where the document has {found!r}"
    )


@dataclass(slots=True)
class BiocFile(AnnFile):
    """One BioC document as columns (:class:`~annoscore.formats.brat_model.AnnFile`), its
    concept ids and warnings kept apart until :meth:`document` builds the model objects.

    ``normalizations`` stays empty here: the concept ids are ``concepts`` (position, mention
    id, id, text); ``sentences`` are the reader's warnings (a document's text checks), as
    sentences.
    """

    concepts: list[tuple[int, str, str, Any]] = field(default_factory=list)
    id_infon: str = "identifier"
    sentences: tuple[str, ...] = ()

    def document(self) -> AnnotatedDocument:
        """The document as the model holds it: a :class:`Mention` per annotation (fragments
        sorted), a ``Reference`` :class:`Normalization` per concept id."""
        return AnnotatedDocument(
            self.id,
            tuple(
                Mention(Span(f), t, i, x, 0)
                for f, t, i, x in zip(
                    self.entity_fragments(), self.types, self.ids, self.texts, strict=True
                )
            ),
            self.text,
            normalizations=tuple(
                Normalization(f"N{k}", "Reference", name, self.id_infon, concept, written)
                for k, name, concept, written in self.concepts
            ),
            relations=self.relations,
            path=self.path,
            warnings=self.sentences,
        )
