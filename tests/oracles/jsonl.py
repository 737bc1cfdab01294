"""Prodigy and spaCy JSON Lines read from the rules of ``formats/jsonl.py``'s module doc, one
line at a time, without the reader's code: what each kept document holds, or the line of the
first error.

A document is a dict: ``id``, ``text``, ``path`` (``file:line``), ``mentions`` (``(start, end,
label, text at the offsets, line)``) and ``warnings`` (one per span whose own ``text`` string
differs from the document text at its offsets); with the number of lines left out.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any


class JsonlError(Exception):
    """The input is refused; ``line`` is the line the reader must name."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _whole(value: Any) -> bool:
    return type(value) is int


def plain_jsonl(
    text: str, path: str, form: str, answers: Collection[str] = ("accept",)
) -> tuple[list[dict[str, Any]], int]:
    """The kept documents of JSONL ``text`` in file order and the lines left out, or
    :class:`JsonlError`."""
    key = "spans" if form == "prodigy-jsonl" else "ents"
    documents: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    left_out = 0
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip() == "":
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise JsonlError(number) from None
        if type(item) is not dict:
            raise JsonlError(number)
        if form == "prodigy-jsonl" and item.get("answer", "accept") not in answers:
            left_out += 1
            continue
        body = item.get("text")
        if type(body) is not str:
            raise JsonlError(number)
        name = str(number)
        meta = item.get("meta")
        meta_id = meta.get("id") if type(meta) is dict else None
        for candidate in (item.get("id"), meta_id, item.get("_input_hash")):
            if candidate is not None and candidate != "":
                name = str(candidate)
                break
        if name in first_line:
            raise JsonlError(number)
        first_line[name] = number
        spans = item.get(key) or []
        if type(spans) is not list:
            raise JsonlError(number)
        mentions, warnings = [], []
        for k, span in enumerate(spans):
            if type(span) is not dict:
                raise JsonlError(number)
            start, end = span.get("start"), span.get("end")
            if not (_whole(start) and _whole(end)):
                raise JsonlError(number)
            if start < 0 or end < start or end > len(body):
                raise JsonlError(number)
            label = span.get("label")
            if type(label) is not str or label == "":
                raise JsonlError(number)
            written = span.get("text")
            if type(written) is str and written != body[start:end]:
                warnings.append(
                    f'{path}:{number}: "{key}"[{k}] text {written!r} where the text has '
                    f"{body[start:end]!r}"
                )
            mentions.append((start, end, label, body[start:end], number))
        documents.append(
            {
                "id": name,
                "text": body,
                "path": f"{path}:{number}",
                "mentions": mentions,
                "warnings": warnings,
            }
        )
    return documents, left_out
