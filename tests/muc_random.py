"""Random MUC named entity files for the property tests that hold a fast path to a plain one.

:func:`ne_files` writes a key and a response in the MUC-6 layout: documents with sections, tags
with a type, some optional (``STATUS="OPT"``) or with alternatives (``ALT``), and a response that
leaves a tag out, changes its type, tags only the first word, adds a tag of another type or
copies it.  :func:`without_lines` compares model objects while ignoring their line numbers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass

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
