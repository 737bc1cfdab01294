"""i2b2/n2c2 XML (2014 de-identification and risk factors; 2018 track 1 criteria), read through
defusedxml: one document per file.

::

    <deIdi2b2>
      <TEXT><![CDATA[Record date: 2067-05-03 ...]]></TEXT>
      <TAGS>
        <DATE id="P0" start="13" end="23" text="2067-05-03" TYPE="DATE" comment=""/>
        <ABDOMINAL met="not met"/>
      </TAGS>
    </deIdi2b2>

Rules (``../shared/spec/formats.md``, "Decisions for annoscore"):

* The text is the ``TEXT`` element's content; ``start`` and ``end`` count its characters, end
  exclusive.
* A tag under ``TAGS`` with ``start`` and ``end`` is a mention whose type is the tag's name
  (``DATE``, ``NAME``, ``DIABETES``...); its other attributes (``TYPE``, ``time``,
  ``indicator``, ``comment``) are kept as attributes of the mention.  A risk-factor parent's
  children with offsets are mentions too.
* A tag without offsets is a **document label** (2018 track 1 ``<ABDOMINAL met="met"/>``, a
  risk-factor parent): an attribute of the document (target ``""``), one per attribute.
* Each mention's ``text`` is checked against the text at its offsets (a warning naming both
  strings); offsets that are not whole numbers, out of order or past the text are an
  :class:`~annoscore.errors.InputError` naming the tag and its line; so is XML without
  ``TEXT``.

>>> doc = read_i2b2_text('<deIdi2b2><TEXT><![CDATA[Seen 2067-05-03.]]></TEXT><TAGS>'
...                      '<DATE id="P0" start="5" end="15" text="2067-05-03" TYPE="DATE"/>'
...                      '</TAGS></deIdi2b2>', "note1.xml")
>>> [(m.span.start, m.span.end, m.type, m.text) for m in doc.mentions]
[(5, 15, 'DATE', '2067-05-03')]
"""

from __future__ import annotations

from pathlib import Path

from annoscore.errors import InputError
from annoscore.formats.files import read_text
from annoscore.model import AnnotatedDocument, Attribute, Mention, Span


def read_i2b2(path: Path) -> AnnotatedDocument:
    """The document of an i2b2 XML file, named by the file's stem (:func:`read_i2b2_text`)."""
    return read_i2b2_text(read_text(path), str(path))


def _whole(value: str | None, what: str, path: str, line: int | None = None) -> int:
    text = (value or "").strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"{what}: {value!r} is not a whole number", path, line)
    return int(text)


def read_i2b2_text(text: str, path: str) -> AnnotatedDocument:
    """The document of i2b2 XML ``text`` (the module doc gives the rules); ``path`` names it
    (its stem is the document id)."""
    from xml.etree.ElementTree import Element

    from annoscore.formats.bioc_xml import parse_xml

    lines: dict[int, int] = {}  # where each element starts, for the errors
    root = parse_xml(text, path, lines)
    body_node = root.find("TEXT")
    if body_node is None:
        raise InputError(f"no <TEXT> element under <{root.tag}>", path, lines[id(root)])
    body = body_node.text or ""
    mentions: list[Mention] = []
    attributes: list[Attribute] = []
    warnings: list[str] = []
    tags = root.find("TAGS")

    def visit(node: Element, k: int) -> int:
        for tag in node:
            k += 1
            name = tag.get("id") or f"{tag.tag}{k}"
            where = f"<{tag.tag} id={name!r}>"
            if tag.get("start") is not None or tag.get("end") is not None:
                line = lines[id(tag)]
                start = _whole(tag.get("start"), f"{where} start", path, line)
                end = _whole(tag.get("end"), f"{where} end", path, line)
                if end < start or end > len(body):
                    raise InputError(
                        f"{where}: offsets {start}-{end} out of order or past the text "
                        f"({len(body)} characters)",
                        path,
                        line,
                    )
                written = tag.get("text")
                if written is not None and written != body[start:end]:
                    warnings.append(
                        f"{path}: {where} text {written!r} where the text has {body[start:end]!r}"
                    )
                mentions.append(Mention(Span.of(start, end), tag.tag, name, body[start:end], 0))
                for key, value in tag.attrib.items():
                    if key not in ("id", "start", "end", "text"):
                        attributes.append(Attribute(f"A{len(attributes) + 1}", key, name, value))
            else:
                for key, value in tag.attrib.items():
                    attributes.append(
                        Attribute(f"A{len(attributes) + 1}", f"{tag.tag}:{key}", "", value)
                    )
                if not tag.attrib:
                    attributes.append(Attribute(f"A{len(attributes) + 1}", tag.tag, "", None))
            k = visit(tag, k)
        return k

    if tags is not None:
        visit(tags, 0)
    return AnnotatedDocument(
        Path(path).stem,
        tuple(mentions),
        body,
        attributes=tuple(attributes),
        path=path,
        warnings=tuple(warnings),
    )
