"""PubTator files read from the rules of ``formats/pubtator.py``'s module doc, one line at a time,
without the reader's code: what each document holds, or the line of the first error.

A document is a dict: ``id``, ``text`` (title, one space, abstract), ``mentions`` (``(start,
end, type, written, line, concept)``, ``concept`` ``""`` when the 6th column is missing, empty
or ``-1``), ``relations`` (``(type, id1, id2)``) and ``warnings`` (one per mention whose
written text differs from the document text at its offsets).
"""

from __future__ import annotations

from typing import Any


class PubTatorError(Exception):
    """The input is refused; ``line`` is the line the reader must name."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _text_line(line: str) -> tuple[str, str, str] | None:
    """``(pmid, "t" or "a", body)`` of a title or abstract line: the PMID is everything before
    the first ``|`` (at least one character, no tab in it), then ``t|`` or ``a|``."""
    if "|" not in line:
        return None
    pmid, rest = line.split("|", 1)
    if not pmid or "\t" in pmid or rest[:2] not in ("t|", "a|"):
        return None
    return pmid, rest[0], rest[2:]


def plain_pubtator(text: str, path: str) -> list[dict[str, Any]]:
    """The documents of PubTator ``text`` in file order, or :class:`PubTatorError`."""
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip() == "":
            current = None
            continue
        found = _text_line(line)
        if found is not None:
            pmid, kind, body = found
            if current is None or current["id"] != pmid:
                if current is not None and kind == "a" and current["abstract"] is None:
                    raise PubTatorError(number)
                current = {"id": pmid, "line": number, "title": None, "abstract": None}
                current["rows"] = []
                blocks.append(current)
            key = "title" if kind == "t" else "abstract"
            if current[key] is not None:
                raise PubTatorError(number)
            current[key] = body
            continue
        fields = line.split("\t")
        if current is None or fields[0] != current["id"] or len(fields) < 4:
            raise PubTatorError(number)
        current["rows"].append((number, fields))
    documents = []
    first_line: dict[str, int] = {}
    for block in blocks:
        if block["id"] in first_line:
            raise PubTatorError(block["line"])
        first_line[block["id"]] = block["line"]
        title = block["title"] or ""
        body = title if block["abstract"] is None else title + " " + block["abstract"]
        mentions, relations, warnings = [], [], []
        for number, fields in block["rows"]:
            if len(fields) == 4:
                relations.append((fields[1], fields[2], fields[3]))
                continue
            offsets = []
            for value in fields[1:3]:
                if value == "" or any(c not in "0123456789" for c in value):
                    raise PubTatorError(number)
                offsets.append(int(value))
            start, end = offsets
            if end < start or end > len(body):
                raise PubTatorError(number)
            written = fields[3]
            if body[start:end] != written:
                warnings.append(
                    f"{path}:{number}: mention {written!r} where the text has {body[start:end]!r}"
                )
            concept = fields[5] if len(fields) > 5 else ""
            concept = "" if concept == "-1" else concept
            mentions.append((start, end, fields[4], written, number, concept))
        documents.append(
            {
                "id": block["id"],
                "text": body,
                "mentions": mentions,
                "relations": relations,
                "warnings": warnings,
            }
        )
    return documents
