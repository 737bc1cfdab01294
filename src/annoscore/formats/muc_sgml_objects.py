"""MUC objects of SGML task tags: named entities, coreference markables, brat annotations.

:mod:`annoscore.formats.muc_sgml` reads an SGML task file into documents of tags; this module
turns a document's tags into the objects every MUC task scores (one object model for template
and SGML tasks, as the manual says): :func:`ne_objects` for the named entity task,
:func:`coref_objects` for coreference, and :func:`brat_annotation` writes the tags as brat
annotations for the generic span commands (``annoscore convert``, ``annoscore spans
--from-sgml``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import SgmlDocument, SgmlTag
from annoscore.templates import TemplateDocument, TemplateSlot

OPTIONAL_VALUES = ("OPT", "OPTIONAL")
"""``STATUS`` values that make a key object optional."""


@dataclass(frozen=True, slots=True)
class SgmlSlots:
    """The attribute names the SGML tasks read (``:sgml_*_slot``), upper-case."""

    text: str = "TEXT"
    type: str = "TYPE"
    alt: str = "ALT"
    id: str = "ID"
    ref: str = "REF"
    min: str = "MIN"
    status: str = "STATUS"
    separator: str = "|"


DEFAULT_SLOTS = SgmlSlots()
"""The manual's defaults."""


class SharedSlots:
    """Slot objects shared by the tags of a corpus (pass one to every :func:`ne_objects` /
    :func:`coref_objects` call of a key and response pair): equal slots are one immutable
    object, and so are equal tuples of shared slots, which lets the aligner and the reports
    do the work of equal content once.  A shared object's ``line`` is its first tag's."""

    __slots__ = ("combined", "made", "slots", "tags", "texts", "tuples")

    def __init__(self) -> None:
        self.slots: dict[tuple[str, str], TemplateSlot] = {}
        """By (attribute, value); the TEXT slots by ("", text), COREF ones by ("\\0text", text)
        and MIN ones by ("\\0min", value)."""
        self.tuples: dict[tuple[int, ...], tuple[TemplateSlot, ...]] = {}
        """By the identities of the slots (held by :attr:`slots`)."""
        self.texts: dict[str, TemplateSlot] = {}
        """The named entity TEXT slot of a tag's text as written (newlines not yet made
        spaces): the slot of :attr:`slots` for its flat text."""
        self.combined: dict[tuple[int, int], tuple[TemplateSlot, ...]] = {}
        """The tuple of :attr:`tuples` of a TEXT slot and a tuple of the other slots, by the
        identities of both (held by :attr:`slots` and :attr:`tuples`)."""
        self.tags: dict[
            tuple[int, str, str, bool], tuple[dict[str, str], tuple[TemplateSlot, ...], bool, int]
        ] = {}
        """What :func:`ne_objects` makes of a tag without ``ALT`` (its slots tuple, optional
        mark and ignored attributes), by the identity of its attribute mapping (the reader
        shares equal ones; the entry holds it), its text as written, class and side (keys
        syntax or not)."""
        self.made: dict[
            tuple[str, int, bool],
            tuple[dict[str, str], list[str], bool, tuple[TemplateSlot, ...], int, bool],
        ] = {}
        """What :func:`ne_objects` makes of a tag's attributes whatever its text (its ``ALT``
        values, optional mark, shared tuple of the other slots, ignored attributes, and
        whether its class has a TEXT slot), by its class, the identity of its attribute
        mapping (the entry holds it) and side: made once for the corpus, where it was made
        again in each document a tag's new text came in."""


def flat_text(text: str) -> str:
    """A tag's TEXT fill: its characters with each newline made one space (the manual)."""
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


_MARKUP = re.compile(r"<[/!?]?[A-Za-z][^<>]*>")


def display_text(text: str) -> str:
    r"""A markable's text as the coreference reports show it: other SGML tags inside it removed
    and every whitespace run made one space.

    >>> display_text("Consuela Washington,\n</p>\n<p>  an expert")
    'Consuela Washington, an expert'
    """
    if "<" in text:
        text = _MARKUP.sub(" ", text)
    return " ".join(text.split())


def ne_objects(
    document: SgmlDocument,
    classes: Collection[str],
    defined_slots: dict[str, set[str]],
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    keys_syntax: bool = True,
    shared_slots: SharedSlots | None = None,
) -> tuple[TemplateDocument, int]:
    """The named-entity objects of a document, and how many attributes were ignored.

    Each tag of a class in ``classes`` (upper-case generic identifiers) becomes a
    :class:`~annoscore.templates.TemplateObject` ``<CLASS-DOCNUM-N>`` (N counts per class) with
    ``span`` and ``section``: the TEXT slot holds the tagged text (newlines made spaces) and, in
    keys, each ``ALT`` value as its own alternative; the TYPE slot the ``TYPE`` value; in keys
    ``STATUS="OPT"`` (or ``OPTIONAL``) makes the object optional.  Any other attribute becomes
    a slot when ``defined_slots[class]`` (lower-case slot names) lists it; otherwise it is
    ignored and counted.  In responses ``ALT`` and ``STATUS`` are ordinary attributes.  Slots
    holding the same attribute value, TEXT slots of the same text without ``ALT``, and the
    tuples of such slots are one shared (immutable) object (its ``line`` is the first tag's);
    pass the same :class:`SharedSlots` for every document of a corpus to share them across
    documents.
    """
    from annoscore.templates import TemplateFill, TemplateObject, TemplateSlot

    numbers: dict[str, int] = {}
    objects: list[TemplateObject] = []
    ignored = 0
    wanted = {c.upper() for c in classes}
    # one slot object per attribute value, one TEXT slot per text of tags without ALT, one
    # tuple per combination of those (see SharedSlots)
    sharing = shared_slots if shared_slots is not None else SharedSlots()
    shared, tuples = sharing.slots, sharing.tuples
    alt, status, text_name = slots.alt, slots.status, slots.text.upper()
    defined_upper: dict[str, set[str]] = {}
    # what a tag's attributes make, by class, attribute mapping (the reader shares the
    # mapping of identical attribute texts) and side: ALT values, optional, slots, ignored
    # attributes, whether the class has a TEXT slot (SharedSlots.made)
    made = sharing.made
    separator = slots.separator
    number_text = document.number
    by_text = sharing.texts
    combined = sharing.combined
    prefixes: dict[str, str] = {}
    plain = sharing.tags

    def slots_of(
        name: str, attributes: dict[str, str], raw_text: str, line: int
    ) -> tuple[tuple[TemplateSlot, ...], bool, int]:
        """A tag's slots, whether it is optional, and how many attributes it ignores."""
        parts = made.get((name, id(attributes), keys_syntax))
        if parts is None or parts[0] is not attributes:
            defined = defined_upper.get(name)
            if defined is None:
                lowered = defined_slots.get(name.lower(), set())
                defined = defined_upper[name] = {n.upper() for n in lowered}
            alt_values: list[str] = []
            optional = False
            built: list[TemplateSlot] = []
            not_defined = 0
            for attribute, value in attributes.items():
                if keys_syntax and attribute == alt:
                    alt_values.extend(v for v in value.split(separator) if v.strip())
                    continue
                if attribute == text_name:
                    continue
                if keys_syntax and attribute == status and value.upper() in OPTIONAL_VALUES:
                    optional = True
                if attribute in defined:
                    slot = shared.get((attribute, value))
                    if slot is None:
                        slot = shared[attribute, value] = TemplateSlot(
                            attribute, ((TemplateFill(value, line=line),),)
                        )
                    built.append(slot)
                else:
                    not_defined += 1
            identities = tuple(map(id, built))
            shared_tuple = tuples.get(identities)
            if shared_tuple is None:
                shared_tuple = tuples[identities] = tuple(built)
            parts = made[name, id(attributes), keys_syntax] = (
                attributes,
                alt_values,
                optional,
                shared_tuple,
                not_defined,
                text_name in defined,
            )
        _, alt_values, optional, together, not_defined, text_wanted = parts
        if not text_wanted:
            object_slots = together
        elif alt_values:
            text = flat_text(raw_text)
            alternatives = (
                (TemplateFill(text, line=line),),
                *((TemplateFill(v, line=line),) for v in alt_values),
            )
            object_slots = (TemplateSlot(text_name, alternatives, line=line), *together)
        else:  # every slot is shared: so is the tuple of them
            text_slot = by_text.get(raw_text)
            if text_slot is None:
                text = flat_text(raw_text)
                text_slot = shared.get(("", text))
                if text_slot is None:
                    text_slot = shared["", text] = TemplateSlot(
                        text_name, ((TemplateFill(text, line=line),),), line=line
                    )
                by_text[raw_text] = text_slot
            known_slots = combined.get((id(text_slot), id(together)))
            if known_slots is None:
                identities = (id(text_slot), *map(id, together))
                known_slots = tuples.get(identities)
                if known_slots is None:
                    known_slots = tuples[identities] = (text_slot, *together)
                combined[id(text_slot), id(together)] = known_slots
            object_slots = known_slots
            plain[id(attributes), raw_text, name, keys_syntax] = (
                attributes,
                object_slots,
                optional,
                not_defined,
            )
        return object_slots, optional, not_defined

    for name, attributes, start, end, raw_text, section, line, _ in document.tags:
        if name not in wanted:
            continue
        numbers[name] = number = numbers.get(name, 0) + 1
        one_up = str(number)
        prefix = prefixes.get(name)
        if prefix is None:
            prefix = prefixes[name] = f"{name}-{number_text}-"
        known_plain = plain.get((id(attributes), raw_text, name, keys_syntax))
        if known_plain is not None and known_plain[0] is attributes:  # a tag like one before
            _, object_slots, optional, not_defined = known_plain
        else:
            object_slots, optional, not_defined = slots_of(name, attributes, raw_text, line)
        ignored += not_defined
        objects.append(
            TemplateObject(
                prefix + one_up,
                name,
                number_text,
                one_up,
                object_slots,
                optional,
                line,
                section,
                start,
                end,
            )
        )
    return TemplateDocument(document.number, tuple(objects), document.path), ignored


def coref_objects(
    document: SgmlDocument,
    gid: str = "COREF",
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    keys_syntax: bool = True,
    shared_slots: SharedSlots | None = None,
) -> TemplateDocument:
    """The coreference markables of a document as objects ``<COREF-DOCNUM-ID>``.

    Slots: TEXT (the markable's text as :func:`display_text` shows it), MIN (key alternatives
    split on ``:sgml_alternative_separator``), REF (a pointer to ``<COREF-DOCNUM-REF>``), TYPE
    and any other attribute as written.  Errors (file, line, column): a markable without ID, an
    ID used twice in the document, a REF to an ID the document does not have.  Slots of equal
    content other than REF are one shared (immutable) object (its ``line`` is the first
    tag's); pass the same :class:`SharedSlots` for every document of a corpus to share them
    across documents.
    """
    from annoscore.templates import TemplateFill, TemplateObject

    objects: list[TemplateObject] = []
    seen: dict[str, SgmlTag] = {}
    shared = (shared_slots if shared_slots is not None else SharedSlots()).slots
    name = gid.upper()
    id_name, ref_name, min_name, text_name = slots.id, slots.ref, slots.min, slots.text
    status_name, separator = slots.status, slots.separator
    number = document.number
    markables = [t for t in document.tags if t.name == name]
    for tag in markables:
        ident = tag.attributes.get(id_name, "").strip()
        if not ident:
            raise InputError(
                f"column {tag.column}: <{tag.name}> has no {id_name} attribute",
                document.path,
                tag.line,
            )
        if ident in seen:
            first = seen[ident]
            raise InputError(
                f"column {tag.column}: {id_name}={ident!r} is used again in document "
                f"{number} (first on line {first.line}, column {first.column})",
                document.path,
                tag.line,
            )
        seen[ident] = tag
    for tag in markables:
        line = tag.line
        attributes = tag.attributes
        ident = attributes[id_name].strip()
        text_slot = shared.get(("\0text", tag.text))
        if text_slot is None:
            text_slot = shared["\0text", tag.text] = TemplateSlot(
                text_name, ((TemplateFill(display_text(tag.text), line=line),),)
            )
        built = [text_slot]
        optional = False
        for attribute, value in attributes.items():
            if attribute in (id_name, text_name):
                continue
            if attribute == ref_name:
                if separator in value:
                    refs = [v.strip() for v in value.split(separator) if v.strip()]
                else:
                    refs = [value.strip()] if value.strip() else []
                for ref in refs:
                    if ref not in seen:
                        raise InputError(
                            f"column {tag.column}: {ref_name}={ref!r} names no markable "
                            f"{id_name} of document {number}",
                            document.path,
                            line,
                        )
                fills = tuple(
                    TemplateFill(f"{name}-{number}-{ref}", is_pointer=True, line=line)
                    for ref in refs
                )
                built.append(TemplateSlot(attribute, (fills,), line=line))
                continue
            if attribute == min_name and keys_syntax:
                slot = shared.get(("\0min", value))
                if slot is None:
                    alternatives = tuple(
                        (TemplateFill(flat_text(v), line=line),)
                        for v in value.split(separator)
                        if v.strip()
                    )
                    slot = shared["\0min", value] = TemplateSlot(
                        attribute, alternatives or ((),), line=line
                    )
                built.append(slot)
                continue
            if attribute == status_name and keys_syntax and value.upper() in OPTIONAL_VALUES:
                optional = True
            slot = shared.get((attribute, value))
            if slot is None:
                slot = shared[attribute, value] = TemplateSlot(
                    attribute, ((TemplateFill(flat_text(value), line=line),),)
                )
            built.append(slot)
        objects.append(
            TemplateObject(
                f"{name}-{number}-{ident}",
                name,
                number,
                ident,
                tuple(built),
                optional,
                line,
                tag.section,
                tag.start,
                tag.end,
            )
        )
    return TemplateDocument(number, tuple(objects), document.path)


# ------------------------------------------------------------------ brat export
def _fragments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` split at line breaks (brat's convention for multi-line entities),
    empty pieces dropped."""
    out: list[tuple[int, int]] = []
    at = start
    for piece in text[start:end].split("\n"):
        if piece:
            out.append((at, at + len(piece)))
        at += len(piece) + 1
    return out or [(start, end)]


def brat_annotation(
    document: SgmlDocument,
    gids: Collection[str],
    *,
    slots: SgmlSlots = DEFAULT_SLOTS,
    coreference: bool = False,
) -> str:
    """The brat ``.ann`` text of a document's task tags, offsets into :attr:`SgmlDocument.text`
    (the document with the task's tags removed, written as the ``.txt``).

    Named entity: one ``T`` line per tag, typed by its TYPE attribute (the tag name if it has
    none).  Coreference: one ``T`` line of type ``COREF`` per markable and one ``*`` equivalence
    line (``Coreference``) per REF class of two or more.  ALT, STATUS and MIN have no brat
    counterpart and are left out.  A tag that spans lines becomes a discontinuous entity, one
    fragment per line, its text the fragments joined by one space (brat's convention).

    >>> from annoscore.formats.muc_sgml import SgmlMarkup, parse_sgml
    >>> doc = parse_sgml('<DOC><DOCNO>1</DOCNO><TEXT><ENAMEX TYPE="PERSON">Ann\\nLee</ENAMEX>'
    ...                  '</TEXT></DOC>', "k", {"ENAMEX"}, SgmlMarkup(sections=("TEXT",)))[0]
    >>> print(brat_annotation(doc, {"ENAMEX"}), end="")  # doctest: +NORMALIZE_WHITESPACE
    T1 PERSON 22 25;26 29 Ann Lee
    """
    wanted = {g.upper() for g in gids}
    lines: list[str] = []
    ids: dict[str, str] = {}
    refs: list[tuple[str, str]] = []
    number = 0
    for tag in document.tags:
        if tag.name not in wanted:
            continue
        number += 1
        label = "COREF" if coreference else tag.attributes.get(slots.type, tag.name)
        fragments = _fragments(document.text, tag.start, tag.end)
        where = ";".join(f"{a} {b}" for a, b in fragments)
        text = " ".join(document.text[a:b] for a, b in fragments)
        lines.append(f"T{number}\t{label} {where}\t{text}")
        if coreference:
            ident = tag.attributes.get(slots.id, "").strip()
            if ident:
                ids[ident] = f"T{number}"
            ref = tag.attributes.get(slots.ref, "").split(slots.separator)[0].strip()
            if ident and ref:
                refs.append((ident, ref))
    if coreference and refs:
        names = list(ids.values())
        for members in ref_classes(list(ids), refs):
            if len(members) > 1:
                lines.append("*\tCoreference " + " ".join(names[k] for k in members))
    return "".join(line + "\n" for line in lines)


def ref_classes(ids: Sequence[str], refs: Iterable[tuple[str, str]]) -> list[list[int]]:
    """The REF closure: the classes of ``ids`` when each link ``(id, ref)`` joins its two ids
    (a link to an id not in ``ids`` joins nothing), as positions in ``ids``, each class in
    order, the classes in the order of their first member.

    >>> ref_classes(["1", "2", "3", "4"], [("3", "1"), ("4", "9"), ("2", "4")])
    [[0, 2], [1, 3]]
    """
    parent = {i: i for i in ids}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ident, ref in refs:
        if ref in parent:
            a, b = root(ident), root(ref)
            if a != b:
                parent[max(a, b)] = min(a, b)
    classes: dict[str, list[int]] = {}
    for k, ident in enumerate(ids):
        classes.setdefault(root(ident), []).append(k)
    return list(classes.values())
