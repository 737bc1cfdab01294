"""Annotated documents written in each entity format :mod:`annoscore.formats.annotations` reads:
what ``annoscore convert FROM TO INPUT OUTPUT`` writes.

:func:`write_annotations` gives the files to write as ``(name, text)`` pairs: one pair named
``""`` (the output file itself) for the formats that hold a corpus in one file (BioC XML and
JSON, PubTator, Prodigy and spaCy JSONL, CoNLL BIO, NLP Sandbox JSON), one or two files per
document of a folder for brat (``ID.txt``, ``ID.ann``) and i2b2 XML (``ID.xml``).  Offsets,
types, mention ids and concept ids (brat ``N`` lines, BioC's ``identifier`` infon, PubTator's
last column) are kept, so reading the output gives the input's mentions; attributes where the
format holds them (an i2b2 document's labels, its tags without offsets such as
``<ABDOMINAL met="met"/>``, only in i2b2 XML: brat has no attribute of a document;
:func:`write_warnings` names the others); what a format cannot hold is an
:class:`~annoscore.errors.InputError` naming the document and the mention, never a silent loss:

* PubTator: a discontinuous mention, a ``|`` in a document id; a PubTator document is one
  title line, so each line break or tab of the text is written as a space (offsets kept; a
  warning says how many documents);
* i2b2 XML: a discontinuous mention, a type that is not an XML name;
* Prodigy and spaCy JSONL: a discontinuous mention;
* NLP Sandbox JSON (one annotation object per document, :func:`_nlpsandbox`): a discontinuous
  mention, a type that is not a PHI category; it holds no document text (a warning);
* every format but brat and NLP Sandbox JSON: a document without text (a brat ``.ann``
  without its ``.txt``, an NLP Sandbox note);
* CoNLL BIO: a mention that does not start and end on whitespace token boundaries, or that
  overlaps another, a document id with whitespace.  The text read back is the tokens joined
  by one space (sentences by a line break), so offsets move when the input's text has other
  spacing; the mentions' texts and types do not.  Each document gets a ``-DOCSTART- ID O``
  line and three columns (``TOKEN -X- TAG``), one document too, so that its id is read back;
  one document whose id such a line cannot hold (empty, or with white space) is written
  without it, in two columns (read back, it is named after the file; a warning says so).

>>> from annoscore.model import AnnotatedDocument, Mention, Span
>>> doc = AnnotatedDocument("d1", (Mention(Span.of(0, 7), "Chemical", "T1", "Aspirin"),),
...                         "Aspirin works")
>>> write_annotations([doc], "pubtator")
[('', 'd1|t|Aspirin works\\nd1|a|\\nd1\\t0\\t7\\tAspirin\\tChemical\\t-1\\n\\n')]
>>> print(write_annotations([doc], "conll-bio")[0][1], end="")
-DOCSTART- d1 O
<BLANKLINE>
Aspirin -X- B-Chemical
works -X- O

The other formats' submissions are written here too, for the solutions of ``annoscore
codabench init`` (:mod:`annoscore.tasks.solutions`): CodiEsp-X prediction lines
(:func:`codiesp_x_text`), a TREC run (:func:`trec_run_text`), a MUC response template file
(:func:`response_templates_text`) and ARE task 1 and 3 pairs (:func:`are_pairs_text`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from annoscore.code_lists import CodeReference
from annoscore.errors import InputError
from annoscore.formats.nlpsandbox import CATEGORIES, TYPE_ATTRIBUTE
from annoscore.model import AnnotatedDocument, Attribute, Event, Mention, Note, Relation
from annoscore.templates import TemplateDocument, TemplateFill

_BREAKS = "\n\r\t\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_FLAT = str.maketrans(dict.fromkeys(_BREAKS, " "))
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9._-]*\Z")


def write_annotations(documents: Sequence[AnnotatedDocument], form: str) -> list[tuple[str, str]]:
    """The files of ``documents`` in format ``form`` (the module doc; :func:`write_warnings`
    says what the format changed)."""
    if form not in _TEXTLESS:
        for document in documents:
            if document.text is None:
                raise InputError(
                    f"{_where(document)} has no text (a brat .ann without its .txt, or an "
                    f"nlpsandbox-json note): {form} needs it; write brat or nlpsandbox-json"
                )
    if form == "brat":
        return [pair for d in documents for pair in _brat(d)]
    if form == "i2b2-xml":
        return [(f"{_file_name(d)}.xml", _i2b2(d)) for d in documents]
    if form == "bioc-xml":
        return [("", _bioc_xml(documents))]
    if form == "bioc-json":
        return [("", json.dumps(_bioc_json(documents), ensure_ascii=False, indent=1) + "\n")]
    if form == "pubtator":
        return [("", "".join(_pubtator(d) for d in documents))]
    if form in ("prodigy-jsonl", "spacy-jsonl"):
        return [("", "".join(_jsonl(d, form) for d in documents))]
    if form == "conll-bio":
        return [("", _conll(documents))]
    if form == "nlpsandbox-json":
        return [("", json.dumps(_nlpsandbox(documents), ensure_ascii=False, indent=1) + "\n")]
    raise InputError(
        f"cannot write {form}: convert writes brat, bioc-xml, bioc-json, pubtator, "
        "i2b2-xml, prodigy-jsonl, spacy-jsonl, conll-bio and nlpsandbox-json"
    )


def write_warnings(documents: Sequence[AnnotatedDocument], form: str) -> list[str]:
    """What writing ``documents`` as ``form`` changes or leaves out, without losing a mention:
    PubTator's flattened line breaks, attributes the format cannot hold, relations, events and
    notes it does not write (brat writes them, but one that names no id of the file), texts
    nlpsandbox-json cannot hold."""
    warnings = []
    if form == "pubtator":
        changed = [d.id for d in documents if any(c in (d.text or "") for c in _BREAKS)]
        if changed:
            warnings.append(
                f"{len(changed)} document(s) have line breaks or tabs, written as spaces (one "
                f"per character, offsets kept) as a PubTator title line needs "
                f"(e.g. {changed[0]!r})"
            )
    left_out = [(d, a) for d in documents for a in d.attributes if not _holds(form, a)]
    if left_out:
        document, attribute = left_out[0]
        value = "" if attribute.value is None else f"={attribute.value!r}"
        warnings.append(
            f"{len(left_out)} attribute(s) left out: {form} cannot hold them (e.g. "
            f"{attribute.name}{value} of {attribute.target} in {_where(document)})"
        )
    links = [(d, x) for d in documents for x in _links_left_out(d, form)]
    if links:
        document, link = links[0]
        cannot = (
            "names an id that no line of the file defines"
            if form == "brat"
            else (f"{form} cannot hold them")
        )
        warnings.append(
            f"{len(links)} relation(s), event(s) or note(s) left out: {cannot} (e.g. {link} "
            f"in {_where(document)})"
        )
    if form == "conll-bio" and len(documents) == 1 and not _docstart_holds(documents[0]):
        warnings.append(
            f"the document id {documents[0].id!r} is left out: a -DOCSTART- line cannot hold it "
            "(read back, the document is named after the file)"
        )
    if form == "nlpsandbox-json":
        texts = sum(d.text is not None for d in documents)
        if texts:
            warnings.append(
                f"the text of {texts} document(s) left out: an NLP Sandbox annotation file "
                "holds none (the notes are a file of their own)"
            )
    return warnings


_TEXTLESS = frozenset({"brat", "nlpsandbox-json"})
"""The formats that hold mentions without the document's text (a brat ``.ann`` without its
``.txt``; an NLP Sandbox annotation file holds no text at all)."""


def _holds(form: str, attribute: Attribute) -> bool:
    """Whether ``form`` writes ``attribute``: brat any of an annotation whose value is one
    word (or none); i2b2 XML and nlpsandbox-json a mention's subtype (:data:`TYPE_ATTRIBUTE`;
    i2b2 only a value), i2b2 XML a document label too (:func:`_label_tag`)."""
    if form == "brat":  # an A line names the annotation it is of: none of the document
        return attribute.target != "" and (
            attribute.value is None
            or (attribute.value != "" and attribute.value.split() == [attribute.value])
        )
    if form == "i2b2-xml" and attribute.target == "":
        return _label_tag(attribute) is not None
    if attribute.name != TYPE_ATTRIBUTE:
        return False
    return form == "nlpsandbox-json" or (form == "i2b2-xml" and attribute.value is not None)


def _label_tag(attribute: Attribute) -> tuple[str, str | None] | None:
    """The i2b2 tag without offsets a document label is read from (:mod:`~annoscore.formats.
    i2b2`): ``TAG:key`` with a value is ``<TAG key="value"/>`` (``(TAG, key)``), ``TAG``
    without one is ``<TAG/>`` (``(TAG, None)``); ``None`` when it is neither (not XML names)."""
    if attribute.target != "":
        return None
    tag, colon, key = attribute.name.partition(":")
    if not _XML_NAME.match(tag):
        return None
    if not colon:
        return (tag, None) if attribute.value is None else None
    if attribute.value is None or not _XML_NAME.match(key):
        return None
    return tag, key


def _where(document: AnnotatedDocument, mention: Mention | None = None) -> str:
    return f"document {document.id!r}" + (
        f", mention {mention.id or mention.text!r}" if mention else ""
    )


def _file_name(document: AnnotatedDocument) -> str:
    if not document.id or "/" in document.id or document.id in (".", ".."):
        raise InputError(f"{_where(document)}: the id cannot name a file")
    return document.id


def _concepts(document: AnnotatedDocument) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for n in document.normalizations:
        found.setdefault(n.target, []).append(n.reference)
    return found


def _continuous(document: AnnotatedDocument, mention: Mention, form: str) -> tuple[int, int]:
    if len(mention.span.fragments) != 1:
        raise InputError(f"{_where(document, mention)}: {form} cannot hold a discontinuous mention")
    return mention.span.start, mention.span.end


def _brat(document: AnnotatedDocument) -> list[tuple[str, str]]:
    name = _file_name(document)
    lines: list[str] = []
    ids: dict[int, str] = {}
    numbered = _brat_numbered("T", [m.id for m in document.mentions])
    for k, m in enumerate(document.mentions, 1):
        mention_id = numbered[k - 1]
        ids[k] = mention_id
        offsets = ";".join(f"{s} {e}" for s, e in m.span.fragments)
        text = m.text
        if document.text is not None:
            text = " ".join(document.text[s:e] for s, e in m.span.fragments)
        lines.append(f"{mention_id}\t{m.type} {offsets}\t{' '.join(text.split())}")
    renamed = {m.id: ids[k] for k, m in enumerate(document.mentions, 1) if m.id}
    for k, n in enumerate(document.normalizations, 1):
        target = renamed.get(n.target, n.target)
        resource = n.resource or "Reference"
        lines.append(f"N{k}\tReference {target} {resource}:{n.reference}\t{n.text}")
    kept = [a for a in document.attributes if _holds("brat", a)]
    for k, a in enumerate(kept, 1):
        value = "" if a.value is None else f" {a.value}"
        lines.append(f"A{k}\t{a.name} {renamed.get(a.target, a.target)}{value}")
    lines += _brat_links(document, renamed)
    pairs = [(f"{name}.ann", "".join(line + "\n" for line in lines))]
    if document.text is not None:
        pairs.insert(0, (f"{name}.txt", document.text))
    return pairs


def _brat_numbered(prefix: str, ids: Sequence[str]) -> list[str]:
    """brat ids for items whose ids are ``ids``, in order, all distinct: an id that is
    ``prefix`` and a number is kept (its first holder's), any other becomes ``prefix`` and the
    item's place, or the next number no item keeps when that one is taken.

    >>> _brat_numbered("T", ["T2", "x", "T2", "T1"])
    ['T2', 'T3', 'T4', 'T1']
    >>> _brat_numbered("R", ["1", "2"])
    ['R1', 'R2']
    """
    kept: dict[str, int] = {}
    for k, given in enumerate(ids):
        if given.startswith(prefix) and given[len(prefix) :].isdigit():
            kept.setdefault(given, k)
    used = set(kept)
    out: list[str] = []
    for k, given in enumerate(ids):
        if kept.get(given) == k:
            out.append(given)
            continue
        number = k + 1
        while f"{prefix}{number}" in used:
            number += 1
        used.add(f"{prefix}{number}")
        out.append(f"{prefix}{number}")
    return out


def _brat_ids(document: AnnotatedDocument, renamed: dict[str, str]) -> dict[str, str]:
    """Every id a brat link may name, as :func:`_brat` writes it: the mentions' (``renamed``)
    and the events' (:func:`_brat_numbered`)."""
    ids = dict(renamed)
    events = _brat_numbered("E", [e.id for e in document.events])
    ids.update(zip((e.id for e in document.events), events, strict=True))
    return ids


def _brat_links(document: AnnotatedDocument, renamed: dict[str, str]) -> list[str]:
    """A document's relations (``R`` and ``*`` lines), events (``E``) and notes (``#``) as
    brat lines, their targets named as :func:`_brat` names them; one that names an id no line
    of the file defines (a PubTator relation between concept ids) is left out
    (:func:`_links_left_out` counts it)."""
    ids = _brat_ids(document, renamed)
    lines: list[str] = []
    events = _brat_numbered("E", [e.id for e in document.events])
    for e, event_id in zip(document.events, events, strict=True):
        if _names_known(e, ids):
            roles = "".join(f" {role}:{ids[t]}" for role, t in e.arguments)
            lines.append(f"{event_id}\t{e.type}:{ids[e.trigger]}{roles}")
    named = [r for r in document.relations if r.id != "*"]
    relation_ids = dict(
        zip(map(id, named), _brat_numbered("R", [r.id for r in named]), strict=True)
    )
    for r in document.relations:
        if not _names_known(r, ids):
            continue
        if r.id == "*":  # an equivalence: its members, no roles
            lines.append(f"*\t{r.type} {' '.join(ids[t] for _, t in r.arguments)}")
        else:
            roles = " ".join(f"{role}:{ids[t]}" for role, t in r.arguments)
            lines.append(f"{relation_ids[id(r)]}\t{r.type} {roles}")
    for k, n in enumerate(document.notes, 1):
        if _names_known(n, ids):
            lines.append(f"#{k}\t{n.type} {ids[n.target]}\t{n.text}")
    return lines


def _links_left_out(document: AnnotatedDocument, form: str) -> list[str]:
    """The ids of the relations, events and notes of ``document`` that writing it as ``form``
    leaves out: all of them but in brat, where those that name an id no line of the file
    defines (:func:`_brat_links`)."""
    if form != "brat":
        relations = [r.id for r in document.relations]
        return relations + [e.id for e in document.events] + [n.id for n in document.notes]
    ids = _brat_ids(document, {m.id: m.id for m in document.mentions if m.id})
    links: list[Relation | Event | Note] = [*document.events, *document.relations, *document.notes]
    return [x.id for x in links if not _names_known(x, ids)]


def _names_known(link: Relation | Event | Note, ids: Mapping[str, str]) -> bool:
    """Whether every id ``link`` names is one of ``ids``: a relation's arguments, an event's
    trigger and arguments, a note's target (:func:`_brat_links` writes it then)."""
    if isinstance(link, Note):
        return link.target in ids
    trigger = (link.trigger,) if isinstance(link, Event) else ()
    return all(t in ids for t in (*trigger, *(t for _, t in link.arguments)))


def _i2b2(document: AnnotatedDocument) -> str:
    text = document.text or ""
    if "]]>" in text:
        raise InputError(f"{_where(document)}: the text holds ']]>', which CDATA cannot")
    subtypes = {a.target: a.value for a in document.attributes if a.name == "TYPE"}
    tags = []
    for k, m in enumerate(document.mentions):
        start, end = _continuous(document, m, "i2b2-xml")
        if not _XML_NAME.match(m.type):
            raise InputError(f"{_where(document, m)}: type {m.type!r} is not an XML tag name")
        mention_id = m.id or f"P{k}"
        subtype = subtypes.get(mention_id)
        extra = "" if subtype is None else f" TYPE={quoteattr(subtype)}"
        tags.append(
            f'<{m.type} id={quoteattr(mention_id)} start="{start}" end="{end}" '
            f"text={quoteattr(text[start:end])}{extra} />"
        )
    tags += _label_tags(document)
    body = "\n".join(tags)
    return (
        '<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n'
        f"<TEXT><![CDATA[{text}]]></TEXT>\n<TAGS>\n{body}\n</TAGS>\n</deIdi2b2>\n"
    )


def _label_tags(document: AnnotatedDocument) -> list[str]:
    """The document's labels as the tags without offsets they were read from, in order
    (``<ABDOMINAL met="met" />``): a label's key joins the tag before it when the tag is the
    same and does not have the key yet."""
    out: list[tuple[str, dict[str, str]]] = []
    for attribute in document.attributes:
        found = _label_tag(attribute)
        if found is None:
            continue
        tag, key = found
        if key is None or not out or out[-1][0] != tag or key in out[-1][1] or not out[-1][1]:
            out.append((tag, {}))
        if key is not None:
            out[-1][1][key] = attribute.value or ""
    return [
        f"<{tag}{''.join(f' {k}={quoteattr(v)}' for k, v in keys.items())} />" for tag, keys in out
    ]


def _bioc_annotations(document: AnnotatedDocument) -> list[dict[str, Any]]:
    concepts = _concepts(document)
    out = []
    for k, m in enumerate(document.mentions, 1):
        infons = {"type": m.type}
        if m.id in concepts:
            infons["identifier"] = ",".join(concepts[m.id])
        text = m.text
        if document.text is not None:
            text = " ".join(document.text[s:e] for s, e in m.span.fragments)
        out.append(
            {
                "id": m.id or str(k),
                "infons": infons,
                "text": text,
                "locations": [{"offset": s, "length": e - s} for s, e in m.span.fragments],
            }
        )
    return out


def _bioc_json(documents: Sequence[AnnotatedDocument]) -> dict[str, Any]:
    return {
        "source": "annoscore",
        "date": "",
        "key": "",
        "infons": {},
        "documents": [
            {
                "id": d.id,
                "infons": {},
                "passages": [
                    {
                        "offset": 0,
                        "infons": {},
                        "text": d.text or "",
                        "sentences": [],
                        "annotations": _bioc_annotations(d),
                        "relations": [],
                    }
                ],
                "annotations": [],
                "relations": [],
            }
            for d in documents
        ],
    }


def _bioc_xml(documents: Sequence[AnnotatedDocument]) -> str:
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<collection><source>annoscore</source>'
        "<date></date><key></key>"
    ]
    for d in documents:
        parts.append(f"<document><id>{escape(d.id)}</id><passage><offset>0</offset>")
        parts.append(f"<text>{escape(d.text or '')}</text>")
        for a in _bioc_annotations(d):
            infons = "".join(
                f"<infon key={quoteattr(k)}>{escape(v)}</infon>" for k, v in a["infons"].items()
            )
            locations = "".join(
                f'<location offset="{x["offset"]}" length="{x["length"]}"/>' for x in a["locations"]
            )
            parts.append(
                f"<annotation id={quoteattr(a['id'])}>{infons}{locations}"
                f"<text>{escape(a['text'])}</text></annotation>"
            )
        parts.append("</passage></document>")
    parts.append("</collection>\n")
    return "\n".join(parts)


def _nlpsandbox(documents: Sequence[AnnotatedDocument]) -> list[dict[str, Any]]:
    """One annotation object per document, named by its id, with every category's array
    (the official evaluation needs them all); each mention's type must be a category, its
    :data:`TYPE_ATTRIBUTE` becomes the category's type field, and ``confidence`` is 100 (the
    schema requires one; the evaluation does not read it)."""
    out = []
    for document in documents:
        arrays: dict[str, list[dict[str, Any]]] = {c.arrays[0]: [] for c in CATEGORIES.values()}
        types = {a.target: a.value for a in document.attributes if a.name == TYPE_ATTRIBUTE}
        for m in document.mentions:
            category = CATEGORIES.get(m.type)
            if category is None:
                raise InputError(
                    f"{_where(document, m)}: type {m.type!r} is not an NLP Sandbox category "
                    f"({', '.join(CATEGORIES)})"
                )
            start, end = _continuous(document, m, "nlpsandbox-json")
            text = m.text if document.text is None else document.text[start:end]
            item: dict[str, Any] = {"start": start, "length": end - start, "text": text}
            if m.id in types:
                item[category.type_fields[0]] = types[m.id]
            item["confidence"] = 100.0
            arrays[category.arrays[0]].append(item)
        out.append({"annotationSource": {"resourceSource": {"name": document.id}}, **arrays})
    return out


def _pubtator(document: AnnotatedDocument) -> str:
    text = (document.text or "").translate(_FLAT)
    if any(c in document.id for c in "|" + _BREAKS) or not document.id:
        raise InputError(f"{_where(document)}: a PubTator id cannot be empty or hold '|'")
    concepts = _concepts(document)
    lines = [f"{document.id}|t|{text}", f"{document.id}|a|"]
    for m in document.mentions:
        start, end = _continuous(document, m, "pubtator")
        concept = "|".join(concepts.get(m.id, [])) or "-1"
        lines.append(f"{document.id}\t{start}\t{end}\t{text[start:end]}\t{m.type}\t{concept}")
    return "\n".join(lines) + "\n\n"


def _jsonl(document: AnnotatedDocument, form: str) -> str:
    items = []
    for m in document.mentions:
        start, end = _continuous(document, m, form)
        items.append({"start": start, "end": end, "label": m.type})
    text = document.text or ""
    if form == "prodigy-jsonl":
        item: dict[str, Any] = {
            "text": text,
            "meta": {"id": document.id},
            "spans": items,
            "answer": "accept",
        }
    else:
        item = {"id": document.id, "text": text, "ents": items}
    return json.dumps(item, ensure_ascii=False) + "\n"


def _docstart_holds(document: AnnotatedDocument) -> bool:
    """Whether a ``-DOCSTART- ID O`` line can hold the document's id (one word)."""
    return bool(document.id) and document.id.split() == [document.id]


def _conll(documents: Sequence[AnnotatedDocument]) -> str:
    lines: list[str] = []
    docstart = len(documents) > 1 or all(map(_docstart_holds, documents))
    for document in documents:
        text = document.text or ""
        if docstart:
            if not _docstart_holds(document):
                raise InputError(f"{_where(document)}: a -DOCSTART- line cannot hold this id")
            lines += [f"-DOCSTART- {document.id} O", ""]
        tags: dict[int, str] = {}
        tokens = [(t.start(), t.end()) for t in re.finditer(r"\S+", text)]
        starts = {s: i for i, (s, _) in enumerate(tokens)}
        ends = {e: i for i, (_, e) in enumerate(tokens)}
        for m in sorted(document.mentions, key=lambda m: (m.span.start, m.span.end)):
            start, end = _continuous(document, m, "conll-bio")
            if start not in starts or end not in ends or " " in m.type:
                raise InputError(
                    f"{_where(document, m)}: offsets {start}-{end} are not whitespace token "
                    "boundaries (or the type has a space): CoNLL BIO cannot hold it"
                )
            first, last = starts[start], ends[end]
            if any(i in tags for i in range(first, last + 1)):
                raise InputError(f"{_where(document, m)}: overlaps another mention")
            for i in range(first, last + 1):
                tags[i] = ("B-" if i == first else "I-") + m.type
        previous_end = 0
        for i, (s, e) in enumerate(tokens):
            if i and "\n" in text[previous_end:s]:
                lines.append("")
            filler = " -X-" if docstart else ""
            lines.append(f"{text[s:e]}{filler} {tags.get(i, 'O')}")
            previous_end = e
        if not docstart:
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


# --- submissions of the other formats (the solutions of ``annoscore codabench init``) ---------


def _quoted_field(text: str) -> str:
    """A CodiEsp TSV field as pandas reads it back: quoted only when it must be."""
    if text[:1] == '"' or any(c in text for c in "\t\n\r"):
        return '"' + text.replace('"', '""') + '"'
    return text


def codiesp_x_text(references: Sequence[CodeReference]) -> str:
    r"""CodiEsp-X prediction lines (``clinical_case, position, label, code``) of ``references``,
    each at its ``start end``.

    >>> codiesp_x_text([CodeReference("S1", "DIAGNOSTICO", "n20.0", 10, 24, 1)])
    'S1\t10 24\tDIAGNOSTICO\tn20.0\n'
    """
    return "".join(
        f"{_quoted_field(r.document)}\t{r.start} {r.end}\t{_quoted_field(r.label)}\t"
        f"{_quoted_field(r.code)}\n"
        for r in references
    )


def trec_run_text(rankings: Sequence[tuple[bytes, Sequence[bytes]]], tag: bytes = b"gold") -> bytes:
    """A TREC run (``query Q0 document rank score tag``) ranking each query's documents in the
    order given, scores falling from the number of documents to 1 (trec_eval ranks by score).

    >>> print(trec_run_text([(b"q1", [b"d3", b"d1"])]).decode(), end="")
    q1 Q0 d3 1 2 gold
    q1 Q0 d1 2 1 gold
    """
    lines = [
        b"%s Q0 %s %d %d %s\n" % (query, document, rank, len(documents) + 1 - rank, tag)
        for query, documents in rankings
        for rank, document in enumerate(documents, start=1)
    ]
    return b"".join(lines)


def _template_fill(fill: TemplateFill) -> str:
    if fill.is_pointer:
        return f"<{fill.text}>"
    if '"' not in fill.text:
        return f'"{fill.text}"'
    if "'" not in fill.text:
        return f"'{fill.text}'"
    raise InputError(f"the fill {fill.text!r} holds both quote characters: no template can hold it")


def response_templates_text(documents: Sequence[TemplateDocument]) -> str:
    """A MUC response template file of ``documents``: every object's header and slots, each
    slot's one multi-fill (strings quoted, pointers in angle brackets, one fill per line).
    What only keys hold (alternatives, an optional slot or object, a minimum string) is an
    :class:`~annoscore.errors.InputError` naming the object and slot, never dropped silently.

    >>> from annoscore.templates import TemplateObject, TemplateSlot
    >>> slot = TemplateSlot("PER_NAME", ((TemplateFill("Jane Doe"),),))
    >>> o = TemplateObject("PERSON-1-1", "PERSON", "1", "1", (slot,))
    >>> print(response_templates_text([TemplateDocument("1", (o,))]), end="")
    <PERSON-1-1> :=
        PER_NAME: "Jane Doe"
    """
    lines: list[str] = []
    for document in documents:
        for obj in document.objects:
            if obj.optional:
                raise InputError(f"<{obj.id}> is optional: only keys mark objects optional")
            lines.append(f"<{obj.id}> :=")
            for slot in obj.slots:
                where = f"<{obj.id}> {slot.name}"
                if slot.optional or len(slot.alternatives) != 1:
                    raise InputError(f"{where}: alternatives and optional slots are key syntax")
                fills = slot.alternatives[0]
                if any(f.minimum is not None for f in fills):
                    raise InputError(f"{where}: a [minimum] string is key syntax")
                head = f"    {slot.name}:"
                lines.append(f"{head} {_template_fill(fills[0])}" if fills else head)
                pad = " " * (len(head) + 1)
                lines += [pad + _template_fill(f) for f in fills[1:]]
    return "".join(line + "\n" for line in lines)


def are_pairs_text(
    documents: Sequence[tuple[str | None, Sequence[tuple[Mapping[str, str], Mapping[str, str]]]]],
) -> str:
    """An ARE task 1 or 3 output: per document (its ``id``, or ``None``), the ``<pair>``
    elements of (pronoun, antecedent) attributes (``id``, or ``start`` and ``end``).

    >>> print(are_pairs_text([("d", [({"id": "2"}, {"id": "1"})])]), end="")
    <?xml version="1.0" encoding="UTF-8"?>
    <documents>
    <document id="d">
    <pair id="p1"><pronoun id="2"/><antecedent id="1"/></pair>
    </document>
    </documents>
    """

    def element(name: str, attributes: Mapping[str, str]) -> str:
        shown = "".join(f" {k}={quoteattr(v)}" for k, v in attributes.items())
        return f"<{name}{shown}/>"

    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<documents>"]
    for key, pairs in documents:
        lines.append("<document>" if key is None else f"<document id={quoteattr(key)}>")
        for number, (pronoun, antecedent) in enumerate(pairs, start=1):
            lines.append(
                f'<pair id="p{number}">{element("pronoun", pronoun)}'
                f"{element('antecedent', antecedent)}</pair>"
            )
        lines.append("</document>")
    lines.append("</documents>")
    return "\n".join(lines) + "\n"
