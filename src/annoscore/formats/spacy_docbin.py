"""spaCy's binary DocBin (``.spacy``) into annotated documents: read only when spaCy is installed
(the optional extra ``annoscore[spacy]``), and imported only when a DocBin is read.

A DocBin holds token attribute arrays and a string table, not text with offsets: spaCy itself
rebuilds each ``Doc`` (:meth:`spacy.tokens.DocBin.get_docs` with an empty vocabulary), and each
entity (``doc.ents``) becomes a mention at its character offsets (``start_char``, ``end_char``,
end exclusive) with its label as type; ``doc.text`` is the document text, so a mention's text is
the text at its offsets.  A document's id is its ``user_data["id"]`` (kept when the DocBin was
made with ``store_user_data=True``), else its number in the file (``1``, ``2``, ...).  Span
groups (``doc.spans``) are not read.

Errors (:class:`~annoscore.errors.InputError` naming the file): spaCy not installed (how to install
it), bytes that are not a DocBin, a document id given twice.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from annoscore.errors import InputError
from annoscore.formats.files import reading
from annoscore.model import AnnotatedDocument, Mention, Span

INSTALL = "pip install 'annoscore[spacy]'"
"""How to install what reading a DocBin needs."""


def _spacy(path: Path) -> tuple[Any, Any]:
    """spaCy's ``DocBin`` and ``Vocab`` classes, or an :class:`InputError` saying how to
    install spaCy."""
    try:
        tokens = importlib.import_module("spacy.tokens")
        vocab = importlib.import_module("spacy.vocab")
    except ImportError:
        raise InputError(
            f"reading spaCy's DocBin (.spacy) needs spaCy, which is not installed: {INSTALL} "
            "(or write the documents with Doc.to_json as spacy-jsonl)",
            path,
        ) from None
    return tokens.DocBin, vocab.Vocab


def read_docbin(path: Path) -> list[AnnotatedDocument]:
    """The documents of the DocBin file at ``path`` (the module doc gives the rules)."""
    doc_bin_class, vocab_class = _spacy(path)
    with reading(path):
        data = path.read_bytes()
    try:
        docs = list(doc_bin_class().from_bytes(data).get_docs(vocab_class()))
    except Exception as error:  # zlib, msgpack or spaCy's own errors: not a DocBin
        raise InputError(f"not a spaCy DocBin ({type(error).__name__}: {error})", path) from None
    out: list[AnnotatedDocument] = []
    seen: dict[str, int] = {}
    for number, doc in enumerate(docs, 1):
        given = doc.user_data.get("id") if isinstance(doc.user_data, dict) else None
        name = str(given) if given not in (None, "") else str(number)
        if name in seen:
            raise InputError(
                f"document {name!r} again (document {number}; first: document {seen[name]})", path
            )
        seen[name] = number
        mentions = tuple(
            Mention(Span.of(ent.start_char, ent.end_char), ent.label_, f"T{k}", ent.text, 0)
            for k, ent in enumerate(doc.ents, 1)
        )
        out.append(AnnotatedDocument(name, mentions, doc.text, path=f"{path}#{number}"))
    return out
