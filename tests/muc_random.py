"""Random MUC named entity files for the property tests that hold a fast path to a plain one.

:func:`ne_files` writes a key and a response in the MUC-6 layout: documents with sections, tags
with a type, some optional (``STATUS="OPT"``) or with alternatives (``ALT``), and a response that
leaves a tag out, changes its type, tags only the first word, adds a tag of another type or
copies it.  :func:`nested_ne_files` writes one ``TXT`` section a document where tags also nest,
cover more text or none, so that some pairs compete.  :class:`NeReader` reads them back into
objects as ``annoscore muc`` does, with and without shared slots.  :func:`without_lines` compares
model objects while ignoring their line numbers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass

from annoscore.formats.muc_config import MucConfig
from annoscore.formats.muc_sgml import SgmlDocument, SgmlMarkup, parse_sgml
from annoscore.formats.muc_sgml_objects import SharedSlots, ne_objects
from annoscore.tasks.muc import load_config
from annoscore.tasks.muc_sgml import sgml_slots
from annoscore.templates import TemplateDocument

TYPES: Mapping[str, tuple[str, ...]] = {
    "ENAMEX": ("PERSON", "ORGANIZATION", "LOCATION"),
    "TIMEX": ("DATE", "TIME"),
    "NUMEX": ("MONEY", "PERCENT"),
}
WORDS = ("Acme", "Bell", "Corp.", "the", "of", "Paris", "May", "1993", "$4", "{x}", "a$b")


@dataclass(frozen=True)
class NeShape:
    """What :func:`ne_files` writes: the sections of a document, how many documents and tags
    per section (inclusive ranges), the document numbers to draw from (None: 0, 1, 2, ...),
    the share of optional tags and of tags with an ``ALT``, and a tag the response may add
    (``<ENAMEX TYPE="OTHER">``, say; None: none)."""

    sections: Sequence[str] = ("HL", "TXT")
    documents: tuple[int, int] = (1, 8)
    tags: tuple[int, int] = (0, 20)
    numbers: Sequence[str] | None = None
    optional: float = 0.1
    alternatives: float = 0.0
    added_tag: str | None = None
    types: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(TYPES))
    words: Sequence[str] = WORDS


def ne_files(rng: random.Random, shape: NeShape = NeShape()) -> tuple[str, str]:
    """A random key and response (see the module docstring)."""
    key: list[str] = []
    rsp: list[str] = []
    count = rng.randint(*shape.documents)
    numbers = rng.sample(shape.numbers, count) if shape.numbers else map(str, range(count))
    gids = sorted(shape.types)
    for number in numbers:
        head = f"<DOC>\n<DOCNO> {number} </DOCNO>\n"
        key.append(head)
        rsp.append(head)
        for section in shape.sections:
            key.append(f"<{section}>")
            rsp.append(f"<{section}>")
            for _ in range(rng.randint(*shape.tags)):
                words = " ".join(rng.choice(shape.words) for _ in range(rng.randint(1, 3)))
                gid = rng.choice(gids)
                kind = rng.choice(shape.types[gid])
                extra = ""
                if rng.random() < shape.alternatives:
                    extra += f' ALT="{words.split()[0]}|{rng.choice(shape.words)}"'
                if rng.random() < shape.optional:
                    extra += ' STATUS="OPT"'
                key.append(f'<{gid} TYPE="{kind}"{extra}>{words}</{gid}> ; ')
                u = rng.random()
                if u < 0.1:
                    rsp.append(f"{words} ; ")
                elif u < 0.3:
                    rsp.append(f'<{gid} TYPE="{rng.choice(shape.types[gid])}">{words}</{gid}> ; ')
                elif u < 0.4 and " " in words:
                    first, rest = words.split(" ", 1)
                    rsp.append(f'<{gid} TYPE="{kind}">{first}</{gid}> {rest} ; ')
                elif u < 0.45 and shape.added_tag is not None:
                    name = shape.added_tag.split()[0].strip("<")
                    rsp.append(f"{shape.added_tag}{words}</{name}> ; ")
                else:
                    rsp.append(f'<{gid} TYPE="{kind}">{words}</{gid}> ; ')
            key.append(f"</{section}>\n")
            rsp.append(f"</{section}>\n")
        key.append("</DOC>\n")
        rsp.append("</DOC>\n")
    return "".join(key), "".join(rsp)


def nested_ne_files(
    rng: random.Random,
    *,
    documents: tuple[int, int] = (3, 8),
    tags: tuple[int, int] = (0, 25),
    types: Mapping[str, tuple[str, ...]] | None = None,
    words: Sequence[str] = ("Acme", "Bank", "of", "May", "the"),
    odd: float = 0.1,
) -> tuple[str, str]:
    """A random key and response whose tags may nest, be empty or cover the next word too (each
    item's text is its words then ``x``); ``odd`` is the share of optional key tags and of key
    tags with an ``ALT``.  Few words and types make most pairs repeat an earlier pair exactly."""
    chosen = types if types is not None else {k: v[:2] for k, v in TYPES.items()}
    gids = sorted(chosen)
    key: list[str] = []
    rsp: list[str] = []
    for d in range(rng.randint(*documents)):
        head = f"<DOC>\n<DOCNO> {d} </DOCNO>\n<TXT>\n"
        key.append(head)
        rsp.append(head)
        for _ in range(rng.randint(*tags)):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 2)))
            gid = rng.choice(gids)
            kind = rng.choice(chosen[gid])
            extra = ' STATUS="OPT"' if rng.random() < odd else ""
            if rng.random() < odd:
                extra += f' ALT="{text.split()[0]}"'
            exact = f'<{gid} TYPE="{kind}"{extra}>{text}</{gid}> x'
            k = rng.choice(
                [
                    *[exact] * 5,
                    f"<{gid}></{gid}>{text} x",  # an empty span
                    f'<{gid} TYPE="{kind}">{text} x</{gid}>',
                    f'<{gid} TYPE="{kind}"><{gid} TYPE="{kind}">{text}</{gid}> x</{gid}>',
                ]
            )
            other = rng.choice(chosen[gid])
            r = rng.choice(
                [
                    exact.replace(extra, ""),
                    exact.replace(extra, ""),
                    f"{text} x",
                    f'<{gid} TYPE="{other}">{text}</{gid}> x',
                    f"<{gid}></{gid}>{text} x",
                    f'<{gid} TYPE="{kind}">{text}</{gid}> <{gid} TYPE="{kind}">x</{gid}>',
                    f'<{gid} TYPE="{kind}"><{gid} TYPE="{other}">{text}</{gid}> x</{gid}>',
                ]
            )
            key.append(k + " ; ")
            rsp.append(r + " ; ")
        key.append("\n</TXT>\n</DOC>\n")
        rsp.append("\n</TXT>\n</DOC>\n")
    return "".join(key), "".join(rsp)


class NeReader:
    """Reads named entity files with ``config`` (default: the manual's NE configuration), as
    ``annoscore muc`` does: the SGML documents, then each document's objects."""

    def __init__(self, config: MucConfig | None = None) -> None:
        self.config = config if config is not None else load_config(None, "ne")
        self.classes = [c.name.upper() for c in self.config.class_defs]
        self.defined = self.config.slot_names()
        self.slots = sgml_slots(self.config)

    def documents(
        self, key_text: str, rsp_text: str, sections: Sequence[str]
    ) -> list[tuple[SgmlDocument, SgmlDocument]]:
        """Each key document (in file order) with the response document of its number."""
        keys = parse_sgml(key_text, "k", self.classes, SgmlMarkup(sections=tuple(sections)))
        rsps = {
            d.number: d
            for d in parse_sgml(rsp_text, "r", self.classes, SgmlMarkup(sections=tuple(sections)))
        }
        return [(key, rsps[key.number]) for key in keys]

    def objects(
        self,
        document: SgmlDocument,
        *,
        keys_syntax: bool = True,
        shared: SharedSlots | None = None,
    ) -> TemplateDocument:
        """The document's objects (:func:`~annoscore.formats.muc_sgml_objects.ne_objects`)."""
        objects, _ = ne_objects(
            document,
            self.classes,
            self.defined,
            slots=self.slots,
            keys_syntax=keys_syntax,
            shared_slots=shared,
        )
        return objects

    def shared_and_plain(
        self, key: SgmlDocument, rsp: SgmlDocument, shared: SharedSlots
    ) -> tuple[TemplateDocument, TemplateDocument, TemplateDocument, TemplateDocument]:
        """The key's and the response's objects read with ``shared`` slots, then the same
        read each on its own (in that order: a shared slot keeps its first tag's line)."""
        return (
            self.objects(key, shared=shared),
            self.objects(rsp, shared=shared),
            self.objects(key),
            self.objects(rsp),
        )


def without_lines(value: object) -> object:
    """A dataclass tree as nested tuples, every ``line`` field left out."""
    if is_dataclass(value) and not isinstance(value, type):
        return tuple(
            (f.name, without_lines(getattr(value, f.name)))
            for f in fields(value)
            if f.name != "line"
        )
    if isinstance(value, tuple | list):
        return tuple(without_lines(v) for v in value)
    return value
