"""BioC's fast steps held to the checked parsers and to a plain reference, on random collections.

XML: the regular-expression scan (:func:`annoscore.formats.bioc._scan_xml`) against the checked
parse (defusedxml and ElementTree: the scan declined), against the ``bioc`` package's reading and
against a reference written from the definitions over ``xml.dom.minidom``
(``tests/oracles/bioc.py``).  The generator writes what the scan must read (entities and
character references, astral characters, attributes in either quoting and order, white space
and line ends between elements, several locations, passages at offsets, annotations of a
document, annotation texts that differ from the document's, locations past their passage, bad
offsets) and what it must decline (CDATA, comments, processing instructions, document types
with declarations, undeclared entities, sentences, relations, other attributes and elements,
malformed XML).  JSON: the columnar step of a passage (:func:`annoscore.formats.bioc._json_block`)
against the checked walk and the reference, on collections with offsets as numbers, strings,
floats, negatives and booleans, infons of every JSON type, missing fields.

The corpus scans (the first step: a whole XML or JSON file of the common layout read in
columns, :func:`annoscore.formats.bioc._scan_xml_corpus` and ``_scan_json_corpus``) against
the checked steps (every fast step declined) and the reference, on files of that layout and
their near misses: several passages (out of order, overlapping), ids empty, repeated or with
references, type and concept infons absent, repeated, in either order, beside others, other
infon names (one holding ``&``, two the same), locations past their passage, texts that
differ, the bioc package's JSON members and the shortest, JSON members given twice, escaped
names, numbers of other forms, either ``ensure_ascii``, indentation, other offset units, and
one syntax error or unusual construct now and then.

Equal: documents, mentions, concept ids, warnings, or the same error.  The columns ``spans``
scores (:class:`~annoscore.formats.bioc.BiocFile`) are held to the model objects too.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats import bioc as reader
from annoscore.formats import bioc_corpus, bioc_json, bioc_tree, bioc_xml
from annoscore.formats.annotations import ReaderOptions
from annoscore.formats.brat_model import AnnFile, FileRows
from tests.equivalence.ids import id_pool
from tests.oracles.bioc import plain_bioc_read, plain_bioc_xml_facts

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 600 * SCALE
WORDS = ["Aspirin", "héparine", "<b>", "a&b", "BRCA1", "tumour", "中文", "x\ty", "😀", "'q\"", ">"]
DECLINED = (
    "cdata",
    "comment",
    "pi",
    "entity",
    "undeclared",
    "sentence",
    "relation",
    "attribute",
    "element",
    "namespace",
    "malformed",
    "bad-char",
)


def _escape(rng: random.Random, text: str, attribute: bool = False) -> str:
    """``text`` as XML character data (or an attribute value in double quotes): ``&``, ``<``
    (and ``"``) always escaped, other characters sometimes as references."""
    out = []
    for char in text:
        r = rng.random()
        if char == "&":
            out.append(rng.choice(["&amp;", "&#38;", "&#x26;"]))
        elif char == "<":
            out.append(rng.choice(["&lt;", "&#60;", "&#x3C;"]))
        elif char == '"' and attribute:
            out.append(rng.choice(["&quot;", "&#34;"]))
        elif char in "\t\n" and attribute:
            out.append(f"&#{ord(char)};")  # kept: a literal one becomes a space
        elif r < 0.05:
            out.append(f"&#{ord(char)};")
        elif r < 0.1:
            out.append(f"&#x{ord(char):x};")
        elif char == ">" and r < 0.3:
            out.append("&gt;")
        elif char == "'" and r < 0.3:
            out.append("&apos;")
        else:
            out.append(char)
    return "".join(out)


def _attribute(rng: random.Random, name: str, value: str) -> str:
    space = rng.choice(["", " ", "\n  "])
    return f' {name}{space}={space}"{_escape(rng, value, attribute=True)}"'


def _collection(rng: random.Random, case: int) -> tuple[str, set[str], bool]:
    """A BioC XML collection, the features it holds that the scan declines (empty: the scan
    should read it), and whether a document has annotations of its own."""
    pool = id_pool(rng, 8, forbidden="\t\n\r")
    wanted = {rng.choice(DECLINED)} if rng.random() < 0.25 else set()
    between = rng.choice(["", "", "\n", "\n  ", "\r\n\t"])
    common = rng.random() < 0.5  # the layout the scan reads in columns
    has_own = False
    documents = []
    for d in range(rng.randint(0, 4) if case % 50 else 150):
        passages = []
        offset = rng.choice([0, 0, 3])
        own = []
        for _ in range(rng.randint(1, 3)):
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
            if rng.random() < 0.05:
                body = ""
            if common:  # a passage text the scan reads as it is
                body = body.replace("&", "").replace("<", "")
            annotations = []
            for k in range(rng.randint(0, 4)):
                locations = []
                start = end = 0
                for _ in range(1 if common or rng.random() < 0.8 else rng.choice([0, 2, 3])):
                    start = rng.randint(0, len(body))
                    end = rng.randint(start, len(body) + (rng.random() < 0.02))
                    off, length = str(offset + start), str(end - start)
                    if rng.random() < 0.02:
                        off = rng.choice(["-1", "x", " 4", "1.0", "٣"])
                    pair = [("offset", off), ("length", length)]
                    if not common and rng.random() < 0.3:
                        pair.reverse()
                    attrs = "".join(_attribute(rng, n, v) for n, v in pair)
                    if common:
                        attrs = f' offset="{off}" length="{length}"'
                    locations.append(f"<location{attrs}/>")
                infons = []
                for key, values in (
                    ("type", ["Chemical", "Gène", "", "a&b"]),
                    ("identifier", pool),
                ):
                    if rng.random() < 0.85:
                        infons.append((key, rng.choice(values)))
                if rng.random() < 0.1:
                    infons.append((rng.choice(["type", "other", "identifier"]), rng.choice(pool)))
                if common:
                    infons = infons[:2]
                    infon_xml = "".join(
                        f'<infon key="{key}">{_escape(rng, value)}</infon>{between}'
                        for key, value in infons
                    )
                else:
                    infon_xml = "".join(
                        f"<infon{_attribute(rng, 'key', key)}>{_escape(rng, value)}</infon>"
                        if value or rng.random() < 0.5
                        else f"<infon{_attribute(rng, 'key', key)}/>"
                        for key, value in infons
                    )
                written = body[start:end] if rng.random() < 0.9 else rng.choice(["other", ""])
                if len(locations) > 1:
                    written = rng.choice([written, "x y"])
                text_xml = (
                    f"<text>{_escape(rng, written)}</text>" if written or common else "<text/>"
                )
                ann_id = f"{rng.choice(pool)}{len(passages)}.{k}" if rng.random() < 0.95 else ""
                head = (
                    f'<annotation id="{_escape(rng, ann_id, attribute=True)}">'
                    if common
                    else "<annotation"
                    + (_attribute(rng, "id", ann_id) if ann_id or rng.random() < 0.5 else "")
                    + ">"
                )
                element = (
                    f"{head}{between}{infon_xml}{between.join(locations)}{between}{text_xml}"
                    f"{between}</annotation>"
                )
                if rng.random() < 0.05:
                    own.append(element)
                    has_own = True
                else:
                    annotations.append(element)
            text_xml = f"<text>{body if common else _escape(rng, body)}</text>"
            inner = [f"<offset>{offset}</offset>", text_xml, *annotations]
            if not common and rng.random() < 0.2:
                rng.shuffle(inner)
            if not common and rng.random() < 0.1:
                inner.insert(0, f"<infon{_attribute(rng, 'key', 'section')}>title</infon>")
            passages.append(f"<passage>{between}{between.join(inner)}{between}</passage>")
            offset += len(body) + rng.randint(0, 3)
        name = _escape(rng, f"{rng.choice(pool)}{d}") if rng.random() < 0.97 else ""
        documents.append(
            f"<document>{between}<id>{name}</id>{between}{between.join(passages)}"
            f"{between.join(own)}{between}</document>"
        )
    head = rng.choice(
        [
            "",
            "<?xml version='1.0' encoding='UTF-8'?>",
            '<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n',
            "<?xml version='1.0'?><!DOCTYPE collection SYSTEM 'BioC.dtd'>",
        ]
    )
    xml = (
        f"{head}<collection>{between}<source>PubMed &amp; co</source>{between}<date/>"
        f"{between}<key>k</key>{between}{between.join(documents)}{between}</collection>{between}"
    )
    return _declined(rng, xml, wanted), wanted, has_own


def _declined(rng: random.Random, xml: str, wanted: set[str]) -> str:
    """``xml`` with the feature in ``wanted`` the scan declines."""
    if not wanted:
        return xml
    (feature,) = wanted
    edits = {
        "cdata": ("<text>", "<text><![CDATA[a<b]]>"),
        "comment": ("</document>", "<!-- c --></document>"),
        "pi": ("<collection>", "<?pi x?><collection>"),
        "entity": ("<collection>", "<!DOCTYPE collection [<!ENTITY e 'x'>]><collection>"),
        "undeclared": ("</source>", "&nbsp;</source>"),
        "sentence": (
            "</passage>",
            "<sentence><offset>0</offset><text>s</text></sentence></passage>",
        ),
        "relation": (
            "</document>",
            "<relation id='R1'><node refid='a' role='x'/></relation></document>",
        ),
        "attribute": ("<annotation", "<annotation lang='en'"),
        "element": ("</passage>", "<extra/></passage>"),
        "namespace": ("<collection>", "<collection xmlns='urn:x'>"),
        "malformed": ("</passage>", "</pasage>"),
        "bad-char": ("</key>", "\x01</key>"),
    }
    old, new = edits[feature]
    if old not in xml or (feature == "entity" and "<!DOCTYPE" in xml):
        wanted.clear()
        return xml
    at = rng.choice([i for i in range(len(xml)) if xml.startswith(old, i)][:20])
    return xml[:at] + new + xml[at + len(old) :]


FAST_STEPS = (
    (bioc_xml, "_scan_xml"),
    (bioc_json, "_json_block"),
    (reader, "_scan_xml_corpus"),
    (reader, "_scan_json_corpus"),
)
"""The fast steps, each in the module that calls it (declining one elsewhere would not)."""


def _read(text: str, form: str, fast: bool, **options: str) -> reader.BiocCorpus | str:
    """The reading (or its error's message) with the fast steps, or with them declined."""
    saved = [getattr(module, name) for module, name in FAST_STEPS]  # each must exist there
    if not fast:
        for module, name in FAST_STEPS:
            setattr(module, name, lambda *arguments: None)
    try:
        return reader.read_bioc_text(text, "c.xml", form, ReaderOptions(**options))  # type: ignore[arg-type]
    except InputError as error:
        return f"InputError: {error}"
    finally:
        for (module, name), step in zip(FAST_STEPS, saved, strict=True):
            setattr(module, name, step)


def _facts(corpus: reader.BiocCorpus) -> tuple[list[tuple[object, ...]], list[str]]:
    """What the plain reference gives, from the reader's documents."""
    out = []
    for d in corpus.documents:
        mentions = [(m.span.fragments, m.type, m.id, m.text) for m in d.mentions]
        concepts = [(n.target, n.reference) for n in d.normalizations]
        out.append((d.id, d.text, mentions, concepts, list(d.warnings)))
    return out, corpus.warnings


def _columns_agree(text: str, form: str, corpus: reader.BiocCorpus) -> None:
    """The columns ``spans`` scores hold what the model objects hold."""
    files, _ = reader.read_bioc_columns(text, "c.xml", form)
    for file, document in zip(files, corpus.documents, strict=True):
        assert isinstance(file, AnnFile)
        assert file.document() == document
        of = AnnFile.of(document)
        assert (list(file.ids), list(file.types), list(file.starts), list(file.ends)) == (
            list(of.ids),
            list(of.types),
            list(of.starts),
            list(of.ends),
        )
        assert file.entity_fragments() == of.entity_fragments()
        assert list(file.texts) == list(of.texts)


def test_the_xml_scan_is_the_checked_parse_and_the_plain_reference() -> None:
    rng = random.Random("bioc-xml-scan")
    scanned = declined = errors = warned = compared = columns = 0
    for case in range(CASES):
        text, wanted, has_own = _collection(rng, case)
        found = bioc_xml._scan_xml(text)
        taken = found is not None
        scanned += taken
        columns += any(isinstance(a, bioc_tree._Block) for d in found or [] for a in d.annotations)
        if wanted and wanted != {"malformed"}:
            assert not taken, (case, wanted)
            declined += 1
        expected = _read(text, "bioc-xml", fast=False)
        got = _read(text, "bioc-xml", fast=True)
        assert got == expected, case
        plain = plain_bioc_read(text, "bioc-xml", "c.xml")
        if isinstance(got, str):
            errors += 1
            assert plain == "error" or "xmlns" in text, (case, got)  # minidom reads no namespace
            continue
        assert plain != "error", case
        if wanted & {"sentence", "relation", "cdata"}:
            continue  # the reference reads no sentences (a CDATA text is read alike)
        assert _facts(got) == plain, case
        warned += any(d.warnings for d in got.documents)
        _columns_agree(text, "bioc-xml", got)
        if "<!DOCTYPE" not in text:
            facts = [
                (
                    d.id,
                    [
                        (
                            m.id,
                            m.type,
                            next((n.reference for n in d.normalizations if n.target == m.id), ""),
                            sorted((s, e - s) for s, e in m.span.fragments),
                        )
                        for m in d.mentions
                    ],
                )
                for d in got.documents
            ]
            if has_own:
                continue  # an annotation of a document: the bioc package does not read it
            try:  # the bioc package needs every id attribute and infon key
                package = plain_bioc_xml_facts(text)
            except KeyError:
                continue
            placed = [(d, [a for a in found if a[3]]) for d, found in package]
            unnamed = [  # an annotation without an id is named by its position
                (d or str(n), [(a[0] or f"A{k}", *a[1:]) for k, a in enumerate(found, 1)])
                for n, (d, found) in enumerate(package, 1)
            ]
            assert facts == placed or facts == [
                (d, [a for a in found if a[3]]) for d, found in unnamed
            ], case
            compared += 1
    assert scanned > CASES // 2 and declined > CASES // 10  # the generator hits both steps
    assert errors > CASES // 50 and warned > CASES // 20, (errors, warned)
    assert compared > CASES // 10 and columns > CASES // 5, (compared, columns)


def _json_collection(rng: random.Random, case: int) -> str:
    pool = id_pool(rng, 8)
    odd = rng.random() < 0.3  # values the columnar step declines somewhere

    def number(value: int) -> object:
        if odd and rng.random() < 0.05:
            return rng.choice([str(value), f" {value}", float(value), -1, True, None, "x"])
        return value

    documents = []
    for d in range(rng.randint(0, 4) if case % 50 else 150):
        passages: list[dict[str, Any]] = []
        offset = 0
        for _ in range(rng.randint(1, 3)):
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
            annotations = []
            for k in range(rng.randint(0, 4)):
                start = rng.randint(0, len(body))
                end = rng.randint(start, len(body) + (rng.random() < 0.02))
                locations = [{"offset": number(offset + start), "length": number(end - start)}]
                if odd and rng.random() < 0.1:
                    locations = locations * rng.choice([0, 2])
                infons: dict[str, Any] = {"type": rng.choice(["Chemical", "Gène", ""])}
                if rng.random() < 0.7:
                    infons["identifier"] = rng.choice(pool)
                if odd and rng.random() < 0.1:
                    infons["type"] = rng.choice([None, 5, 1.5, True, ["x"]])
                annotation: dict[str, Any] = {
                    "id": f"{rng.choice(pool)}{len(passages)}.{k}",
                    "infons": infons,
                    "text": body[start:end] if rng.random() < 0.9 else "other",
                    "locations": locations,
                }
                if odd and rng.random() < 0.1:
                    del annotation[rng.choice(["id", "infons", "text"])]
                if odd and rng.random() < 0.05:
                    annotation["id"] = rng.choice([7, None])
                annotations.append(annotation)
            passages.append({"offset": offset, "text": body, "annotations": annotations})
            offset += len(body) + rng.randint(0, 3)
        documents.append({"id": f"{rng.choice(pool)}{d}", "passages": passages})
    return json.dumps({"source": "", "documents": documents}, ensure_ascii=rng.random() < 0.5)


def test_the_json_columns_are_the_checked_walk_and_the_plain_reference() -> None:
    rng = random.Random("bioc-json-columns")
    blocks = errors = 0
    for case in range(CASES):
        text = _json_collection(rng, case)
        expected = _read(text, "bioc-json", fast=False)
        got = _read(text, "bioc-json", fast=True)
        assert got == expected, case
        plain = plain_bioc_read(text, "bioc-json", "c.xml")
        if isinstance(got, str):
            assert plain == "error", (case, got)
            errors += 1
            continue
        blocks += any(
            isinstance(p, dict)
            and bioc_json._json_block(p.get("annotations"), (0, 0), "type", "identifier")
            is not None
            for doc in json.loads(text)["documents"]
            for p in doc["passages"]
        )
        assert _facts(got) == plain, case
        _columns_agree(text, "bioc-json", got)
    assert blocks > CASES // 2 and errors > CASES // 50, (blocks, errors)


@pytest.mark.parametrize("offsets", ["utf8-bytes", "auto"])
def test_other_offset_units_read_the_columns_one_by_one(offsets: str) -> None:
    rng = random.Random(offsets)
    for case in range(CASES // 10):
        text = _json_collection(rng, case)
        assert _read(text, "bioc-json", True, offsets=offsets) == _read(
            text, "bioc-json", False, offsets=offsets
        ), case
        xml, *_ = _collection(rng, case)
        assert _read(xml, "bioc-xml", True, offsets=offsets) == _read(
            xml, "bioc-xml", False, offsets=offsets
        ), case


# --- the corpus scans: whole files of the common layout, and their near misses ---------------

_SENTENCES_OR_RELATIONS = r'<sentence>|<relation|"nodes"|"sentences"\s*:\s*\[\s*\{'
INFON_NAMES = [("type", "identifier"), ("NCBI Gene", "MeSH"), ("kind", "kind"), ("a&b", "id")]


def _xml_value(rng: random.Random, text: str) -> str:
    """``text`` as XML character data, sometimes with references."""
    return (
        _escape(rng, text)
        if rng.random() < 0.3
        else text.replace("&", "&amp;").replace("<", "&lt;")
    )


def _common_xml(rng: random.Random, case: int) -> tuple[str, str, str, str]:
    """A BioC XML collection in the layout the corpus scan reads, with one of its near misses
    now and then (what the scan must decline, or read with the same errors and warnings as the
    checked steps), the infon names and the offset units to read it with."""
    pool = id_pool(rng, 8, forbidden="\t\n\r")
    type_infon, id_infon = rng.choice(INFON_NAMES) if rng.random() < 0.2 else INFON_NAMES[0]
    sp = rng.choice(["", "", "\n", " ", "\r\n  "])
    edge = 0.0 if rng.random() < 0.5 else 1.0  # half the files without any near miss
    documents = []
    for d in range(rng.randint(0, 5) if case % 40 else 120):
        passages = []
        offset = rng.choice([0, 0, 0, 2])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            body = " ".join(
                rng.choice(WORDS) for _ in range(rng.randint(0 if rng.random() < 0.05 else 1, 8))
            )
            annotations = []
            for k in range(rng.randint(0, 5)):
                start = rng.randint(0, len(body))
                end = rng.randint(start, len(body))
                at, length = offset + start, end - start
                r = rng.random()
                if r < 0.02 * edge:
                    at = offset - 1 if offset else offset + len(body) + 1  # outside its passage
                elif r < 0.04 * edge:
                    length += 1
                written = body[start:end]
                r = rng.random()
                if r < 0.04:
                    written = rng.choice(["other", "", "a&b"])
                infons = []
                if rng.random() < 0.9:
                    infons.append((type_infon, rng.choice(["Chemical", "Gène", "", "a&b", "x<y"])))
                if rng.random() < 0.6:
                    infons.append((id_infon, rng.choice(pool)))
                if rng.random() < 0.1:
                    infons.append(
                        (
                            rng.choice(["other", "NCBI Homologene", "typ&#101;", type_infon]),
                            rng.choice(pool),
                        )
                    )
                if rng.random() < 0.1:
                    infons.append((rng.choice([type_infon, id_infon]), rng.choice(pool)))
                rng.shuffle(infons)
                infon_xml = "".join(
                    f'<infon key="{key}">{_xml_value(rng, value)}</infon>{sp}'
                    if rng.random() < 1 - 0.03 * edge
                    else f'<infon key="{key}"/>'
                    for key, value in infons
                )
                name = (
                    rng.choice(
                        [
                            "",
                            f"{rng.choice(pool)}{len(passages)}.{k}",
                            f"T{k}",
                            "a&amp;b",
                            "a&#9;b",
                            "a\tb",
                        ]
                    )
                    if rng.random() < 0.2
                    else f"{rng.choice(pool)}{d}.{len(passages)}.{k}"
                )
                name = (
                    name.replace("&", "&amp;")
                    if "&" in name and not name.endswith(("amp;b", "9;b"))
                    else name
                )
                name = name.replace('"', "&quot;").replace("<", "&lt;")
                location = f'<location offset="{at}" length="{length}"/>'
                if rng.random() < 0.02 * edge:
                    location = rng.choice(
                        [location * 2, f"<location length='{length}' offset='{at}'/>", ""]
                    )
                annotations.append(
                    f'<annotation id="{name}">{sp}{infon_xml}{location}{sp}'
                    f"<text>{_xml_value(rng, written)}</text>{sp}</annotation>"
                )
            infon = (
                f'<infon key="type">{rng.choice(["title", "a&amp;b"])}</infon>{sp}'
                if rng.random() < 0.3
                else ""
            )
            passages.append(
                f"<passage>{sp}{infon}<offset>{offset}</offset>{sp}"
                f"<text>{_xml_value(rng, body)}</text>{sp}{sp.join(annotations)}{sp}</passage>"
            )
            offset += len(body) + rng.choice([1, 1, 0, 5, -1 if len(body) and edge else 0])
        if rng.random() < 0.2:
            rng.shuffle(passages)
        name = rng.choice(pool) + str(d) if rng.random() < 0.95 else rng.choice(["", "1", "2"])
        infon = '<infon key="journal">J</infon>' if rng.random() < 0.2 else ""
        documents.append(
            f"<document>{sp}<id>{_xml_value(rng, name)}</id>{sp}{infon}"
            f"{sp.join(passages)}{sp}</document>"
        )
    head = rng.choice(
        [
            "",
            "<?xml version='1.0' encoding='UTF-8'?>",
            '<?xml version="1.0"?>\n<!DOCTYPE collection SYSTEM "BioC.dtd">',
        ]
    )
    xml = (
        f"{head}<collection>{sp}<source>PubTator &amp; co</source><date/>{sp}<key>k</key>{sp}"
        f"{sp.join(documents)}{sp}</collection>{sp}"
    )
    r = rng.random()
    if r < 0.16 * edge:  # one near miss in the syntax
        old, new = rng.choice(
            [
                ("</text>", "\x01</text>"),
                ("</text>", "&#1;</text>"),
                ("</text>", "&nbsp;</text>"),
                ("</text>", "]]></text>"),
                ("</collection>", "</collection><x/>"),
                ("<annotation ", "<annotation  "),
                ("</annotation>", "</annotation >"),
                ("<passage>", "<passage lang='en'>"),
                (
                    "</document>",
                    "<annotation id='x'><location offset='0' length='0'/></annotation></document>",
                ),
                ("</passage>", "<sentence><offset>0</offset><text>s</text></sentence></passage>"),
                ("</document>", "<relation id='R1'/></document>"),
                ("</id>", "</id><id>again</id>"),
            ]
        )
        if old in xml:
            at = rng.choice([i for i in range(len(xml)) if xml.startswith(old, i)][:20])
            xml = xml[:at] + new + xml[at + len(old) :]
    offsets = rng.choice(["chars"] * 6 + ["auto", "utf8-bytes"])
    return xml, type_infon, id_infon, offsets


def _common_json(rng: random.Random, case: int) -> tuple[str, str, str, str]:
    """A BioC JSON collection in the layout the corpus scan reads (in the ``bioc`` package's
    order of members or the shortest one), with near misses now and then, the infon names and
    the offset units to read it with."""
    pool = id_pool(rng, 8)
    type_infon, id_infon = rng.choice(INFON_NAMES) if rng.random() < 0.2 else INFON_NAMES[0]
    full = rng.random() < 0.5  # every member the bioc package writes
    edge = 0.0 if rng.random() < 0.5 else 1.0  # half the files without any near miss

    def odd(value: object, *others: object) -> object:
        return rng.choice(others) if rng.random() < 0.02 * edge else value

    documents = []
    for d in range(rng.randint(0, 5) if case % 40 else 120):
        passages = []
        offset = rng.choice([0, 0, 0, 2])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            body = " ".join(
                rng.choice(WORDS) for _ in range(rng.randint(0 if rng.random() < 0.05 else 1, 8))
            )
            annotations = []
            for k in range(rng.randint(0, 5)):
                start = rng.randint(0, len(body))
                end = rng.randint(start, len(body) + (rng.random() < 0.02 * edge))
                location: dict[str, Any] = {
                    "offset": odd(offset + start, -1, 1.0, "3", True, None, 10**17),
                    "length": odd(end - start, -1, 2.5, "1", False),
                }
                if rng.random() < 0.02 * edge:
                    location = rng.choice(
                        [
                            {"length": end - start, "offset": offset + start},
                            {"offset": offset + start},
                            {**location, "x": 1},
                        ]
                    )
                infons: dict[str, Any] = {}
                if rng.random() < 0.9:
                    infons[type_infon] = odd(
                        rng.choice(["Chemical", "Gène", "", 'a"b\\c']), None, 5, ["x"]
                    )
                if rng.random() < 0.6:
                    infons[id_infon] = odd(rng.choice(pool), None, 7)
                if rng.random() < 0.1 * edge:
                    infons[rng.choice(["other", "NCBI Homologene", "valid"])] = rng.choice(
                        [True, None, 1.5, "x"]
                    )
                annotation: dict[str, Any] = {
                    "id": odd(
                        "" if rng.random() < 0.03 else f"{rng.choice(pool)}{d}.{len(passages)}.{k}",
                        "",
                        7,
                        None,
                    ),
                    "infons": odd(infons, {}, [], None),
                    "text": odd(body[start:end] if rng.random() < 0.95 else "other", "", None),
                    "locations": odd([location], [], [location, location]),
                }
                if rng.random() < 0.03 * edge:
                    del annotation[rng.choice(["id", "infons", "text", "locations"])]
                annotations.append(annotation)
            passage: dict[str, Any] = {"offset": odd(offset, -1, "2", 1.5)}
            if full:
                passage = {"bioctype": "BioCPassage", **passage, "infons": {"type": "title"}}
            passage["text"] = odd(body, None)
            if full:
                passage["sentences"] = odd([], [{"offset": 0, "text": "s"}])
            passage["annotations"] = annotations
            if full:
                passage["relations"] = odd([], [{"id": "R1", "nodes": []}])
            if rng.random() < 0.02 * edge:
                del passage[rng.choice(["offset", "text"])]
            passages.append(passage)
            offset += len(body) + rng.choice([1, 1, 0, 5, -1 if len(body) and edge else 0])
        if rng.random() < 0.2:
            rng.shuffle(passages)
        document: dict[str, Any] = {"id": odd(rng.choice(pool) + str(d), "", "1", 5, None)}
        if full:
            document = {"bioctype": "BioCDocument", **document, "infons": {}}
        document["passages"] = passages
        if full:
            document["annotations"] = odd([], [annotations[0] if annotations else {}])
            document["relations"] = []
        documents.append(document)
    collection: dict[str, Any] = {"documents": documents}
    if full:
        collection = {"source": "PubTator", "date": "", "key": "", "infons": {}, **collection}
    text = json.dumps(
        collection,
        ensure_ascii=rng.random() < 0.5,
        indent=rng.choice([None, None, 1]),
        separators=rng.choice([None, (",", ":")]),
        sort_keys=rng.random() < 0.05 * edge,
    )
    r = rng.random()
    if r < 0.2 * edge:  # one near miss in the syntax, or a member given twice
        old, new = rng.choice(
            [
                ('"text"', '"text": "x", "text"'),
                ('"infons"', '"infons": {"identifier": "D1"}, "infons"'),
                ('"locations"', '"locations": [{"offset": 0, "length": 0}], "locations"'),
                ('"annotations"', '"annotations": [], "annotations"'),
                ('"relations"', '"annotations": [], "relations"'),
                ('"id"', '"id": "again", "id"'),
                ('"offset"', '"offset": 1, "offset"'),
                ('"type"', '"\\u0074ype"'),
                ('"type"', '"type": "x", "type"'),
                ("}", ",}"),
                ("]", ",]"),
                (", ", " "),
                ('"text": "', '"text": "\t'),
                ('"documents"', '"documents": [], "documents"'),
                ("[", "[ \n"),
                ('"passages"', '"x": {"y": 1}, "passages"'),
                ('"locations"', '"note": [1], "locations"'),
            ]
        )
        if old in text:
            at = rng.choice([i for i in range(len(text)) if text.startswith(old, i)][:20])
            text = text[:at] + new + text[at + len(old) :]
    if rng.random() < 0.04 * edge:
        text = rng.choice(["\ufeff", " \n", ""]) + text + rng.choice([" \n", "x", "}"])
    offsets = rng.choice(["chars"] * 6 + ["auto", "utf8-bytes"])
    return text, type_infon, id_infon, offsets


@pytest.mark.parametrize("form", ["bioc-xml", "bioc-json"])
def test_the_corpus_scans_are_the_checked_steps_and_the_plain_reference(form: str) -> None:
    """Whole files the corpus scans read (:func:`~annoscore.formats.bioc._scan_xml_corpus`,
    :func:`~annoscore.formats.bioc._scan_json_corpus`) and their near misses: the same
    documents, columns, warnings or error as with every fast step declined, and as the plain
    reference."""
    rng = random.Random(f"corpus-{form}")
    scan = reader._scan_xml_corpus if form == "bioc-xml" else reader._scan_json_corpus
    taken = declined = errors = warned = several = unnamed = concepts = 0
    for case in range(CASES):
        make = _common_xml if form == "bioc-xml" else _common_json
        text, type_infon, id_infon, offsets = make(rng, case)
        names = {"type_infon": type_infon, "id_infon": id_infon}
        files = None  # other units: one annotation at a time, never the corpus scan
        if offsets != "utf8-bytes":
            files = scan(text, "c.xml", type_infon, id_infon, offsets == "auto")
        got = _read(text, form, True, offsets=offsets, **names)
        expected = _read(text, form, False, offsets=offsets, **names)
        assert got == expected, case
        if files is None:
            declined += 1
        else:
            taken += 1
            assert not isinstance(got, str), case  # the scan takes no file in error
            assert [f.document() for f in files] == got.documents, case
            warned += any(f.sentences for f in files)
            several += any(
                len(f.text or "") > len(f.texts) and " " * 3 in (f.text or "") for f in files
            )
            unnamed += any(i.startswith("A") for f in files for i in f.ids)
            concepts += any(f.concepts for f in files)
            if offsets == "chars":
                columns, _ = reader.read_bioc_columns(text, "c.xml", form, ReaderOptions(**names))
                assert list(map(_every_field, columns)) == list(map(_every_field, files)), case
                checked = _checked_columns(text, form, names)
                assert list(map(_every_field, files)) == list(map(_every_field, checked)), case
                _rows_agree(files)
        if isinstance(got, str):
            errors += 1
        if offsets != "chars" or re.search(_SENTENCES_OR_RELATIONS, text):
            continue  # the reference reads no sentences or relations
        try:
            plain = plain_bioc_read(text, form, "c.xml", type_infon, id_infon)
        except (AttributeError, KeyError, TypeError):
            continue  # the reference reads no JSON of other types (the checked steps refuse it)
        if isinstance(got, str):
            assert plain == "error" or form == "bioc-json", (case, got)
        elif plain != "error":
            assert _facts(got) == plain, case
    assert taken > CASES // 3 and declined > CASES // 20, (taken, declined)
    assert errors > CASES // 50 and warned > CASES // 20, (errors, warned)
    assert unnamed > CASES // 100 and concepts > CASES // 5, (unnamed, concepts)


def _every_field(file: AnnFile) -> tuple[object, ...]:
    """Every field of a document as columns but its rows (their block is the reading's), the
    columns as lists."""
    return tuple(
        list(value) if isinstance(value, list) else value
        for value in (
            getattr(file, f.name) for f in dataclasses.fields(reader.BiocFile) if f.name != "rows"
        )
    )


def _checked_columns(text: str, form: str, names: dict[str, str]) -> list[reader.BiocFile]:
    """The columns the checked steps give (the corpus scans declined)."""
    saved = reader._scan_xml_corpus, reader._scan_json_corpus
    reader._scan_xml_corpus = reader._scan_json_corpus = lambda *arguments: None
    try:
        return reader.read_bioc_columns(text, "c.xml", form, ReaderOptions(**names))[0]
    finally:
        reader._scan_xml_corpus, reader._scan_json_corpus = saved


def _rows_agree(files: list[reader.BiocFile]) -> None:
    """Each document's rows of the reading's block are its types, starts and ends."""
    for file in files:
        assert isinstance(file.rows, FileRows)
        block, lo, hi = file.rows
        assert block.starts[lo:hi].tolist() == list(file.starts)
        assert block.ends[lo:hi].tolist() == list(file.ends)
        assert [block.type_names[c] for c in block.type_codes[lo:hi]] == list(file.types)


def test_a_scanned_document_gives_every_field() -> None:
    """A document of a corpus scan sets some fields when read and makes the others on first
    use: every field of :class:`~annoscore.formats.bioc.BiocFile` is one or the other."""
    xml = (
        "<collection><document><id>d</id><passage><offset>0</offset><text>ab</text>"
        '<annotation id="A"><infon key="type">T</infon><infon key="identifier">C</infon>'
        '<location offset="0" length="1"/><text>a</text></annotation></passage></document>'
        "</collection>"
    )
    (file,) = reader._scan_xml_corpus(xml, "c.xml", "type", "identifier") or []
    set_when_read = {"id", "path", "text", "rows", "fragments", "warnings", "id_infon"}
    fields = {f.name for f in dataclasses.fields(reader.BiocFile)}
    assert fields == set_when_read | {"sentences"} | bioc_corpus._CorpusFile.LAZY
    assert file.concepts == [(1, "A", "C", "a")] and file.lines is None
    assert file.document() == reader.read_bioc_text(xml, "c.xml", "bioc-xml").documents[0]


def test_the_corpus_scans_read_what_bioc_writers_write() -> None:
    """Collections written by the ``bioc`` package (XML, and JSON indented or not) and by
    ``annoscore convert`` are read by the corpus scans, as the checked steps read them."""
    import bioc
    from bioc import biocjson, biocxml

    from annoscore.formats import writers
    from annoscore.model import AnnotatedDocument, Mention, Normalization, Span

    collection = bioc.BioCCollection()
    collection.source, collection.key = "PubTator", "BioC.key"
    title, abstract = "Aspirin & heparin in Ωmega cells", "Tumour <b> pain"
    for d in range(3):
        document = bioc.BioCDocument()
        document.id, document.infons["journal"] = f"PMID{d}", "J & K"
        parts = []
        for offset, text, kind in ((0, title, "title"), (len(title) + 1, abstract, "abstract")):
            passage = bioc.BioCPassage()
            passage.offset, passage.text, passage.infons["type"] = offset, text, kind
            parts.append(passage)
            document.add_passage(passage)
        body = f"{title} {abstract}"
        for k, (passage, start, end) in enumerate(
            [(parts[0], 0, 7), (parts[0], 10, 17), (parts[1], len(title) + 1, len(title) + 7)]
        ):
            annotation = bioc.BioCAnnotation()
            annotation.id, annotation.text = str(k), body[start:end]
            annotation.infons.update({"identifier": f"MESH:D{k}", "type": "Chemical"})
            annotation.add_location(bioc.BioCLocation(start, end - start))
            passage.add_annotation(annotation)
        collection.add_document(document)
    models = [
        AnnotatedDocument(
            f"d{k}",
            (Mention(Span.of(0, 7), "Chem", "T1", "Aspirin"), Mention(Span.of(8, 13), "Dis")),
            "Aspirin helps & more",
            normalizations=(Normalization("N1", "Reference", "T1", "MeSH", "D1", "Aspirin"),),
        )
        for k in range(3)
    ]
    written = [
        ("bioc-xml", biocxml.dumps(collection)),
        ("bioc-json", biocjson.dumps(collection)),
        ("bioc-json", biocjson.dumps(collection, indent=2)),
        ("bioc-xml", writers._bioc_xml(models)),
        ("bioc-json", json.dumps(writers._bioc_json(models))),
    ]
    for form, text in written:
        scan = reader._scan_xml_corpus if form == "bioc-xml" else reader._scan_json_corpus
        files = scan(text, "c.xml", "type", "identifier")
        assert files is not None, (form, text[:200])
        expected = _read(text, form, fast=False)
        assert not isinstance(expected, str)
        assert [f.document() for f in files] == expected.documents
        assert any(f.concepts for f in files)


def test_a_declined_file_is_one_pass() -> None:
    """The first character the corpus scans cannot read ends their pass: the rest of the file
    is one row (a file they decline costs one pass, not a row per character)."""
    sentence = "<sentence><offset>0</offset><text>" + "x " * 500 + "</text></sentence>"
    xml = f"<document><id>a</id><passage><offset>0</offset>{sentence}</passage></document>"
    assert len(bioc_corpus._xml_rows("type", "identifier").findall(xml * 50)) == 2
    passage = '{"offset": 0, "text": "x", "sentences": [{"offset": 0}], "annotations": []}'
    text = f'{{"id": "a", "passages": [{passage}]}}, ' * 50
    assert len(bioc_corpus._json_rows("type", "identifier").findall(text)) == 2


REFUSED = re.compile(f"[{bioc_xml._NOT_XML}]")
"""What XML 1.0 refuses, written from its definition (the plain reference of ``_refused``)."""


def test_the_characters_xml_refuses_are_found_in_every_piece() -> None:
    """``bioc_corpus._refused`` (NumPy on the bytes, a piece at a time) finds a character XML
    refuses where the plain search does: anywhere in a text longer than several pieces, at a
    piece's edge, among allowed tabs, line ends and multi-byte characters, a lone surrogate."""
    rng = random.Random("refused")
    alphabet = ["a", " ", "\t", "\n", "\r", "é", "😀", "\x7f", "\x85"]
    odd = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1f", "\ud800", "\ufffe", "\uffff"]
    piece = bioc_corpus._PIECE
    found = 0
    for case in range(CASES):
        if case % 20 == 0:  # past several pieces, one character maybe at a piece's edge
            size = piece * rng.randint(1, 3) + rng.randint(-2, 2)
            chars = ["a"] * size
            if rng.random() < 0.7:
                at = min(rng.choice([piece - 1, piece, size - 1, rng.randrange(size)]), size - 1)
                chars[at] = rng.choice([*odd[:7], "\t", "\n"])
        else:
            chars = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
            if rng.random() < 0.4:
                chars.insert(rng.randint(0, len(chars)), rng.choice(odd))
        text = "".join(chars)
        expected = REFUSED.search(text) is not None
        assert bioc_corpus._refused(text) == expected, (case, text[:80])
        found += expected
    assert CASES // 5 <= found <= CASES - CASES // 5


def _plain_bodies(pieces: list[list[tuple[int, str]]]) -> list[str] | None:
    """Each document's text from its passages (offset, text), one passage at a time: sorted
    by offset (as written when equal), the gaps spaces; ``None`` when two overlap."""
    bodies = []
    for passages in pieces:
        text = ""
        for offset, body in sorted(passages, key=lambda passage: passage[0]):
            if offset < len(text):
                return None
            text += " " * (offset - len(text)) + body
        bodies.append(text)
    return bodies


def test_the_corpus_scans_document_texts_are_the_plain_joins() -> None:
    """:func:`~annoscore.formats.bioc_corpus._bodies` (every document's passages at once, in
    NumPy) against a join one passage at a time, on random documents of passages in any order,
    at equal offsets, empty, touching, far apart or overlapping."""
    import numpy as np

    rng = random.Random("bodies")
    overlapped = 0
    for case in range(CASES):
        pieces = [
            [
                (rng.choice([0, 1, 2, 3, 5, 8, 40]), rng.choice(["", "a", "bc", "中文😀", "x y"]))
                for _ in range(rng.choice([0, 1, 1, 2, 3, 4]))
            ]
            for _ in range(rng.randint(1, 5))
        ]
        flat = [p for passages in pieces for p in passages]
        texts = [t for _, t in flat]
        got = bioc_corpus._bodies(
            np.array([o for o, _ in flat], dtype=np.int64),
            np.array(list(map(len, texts)), dtype=np.int64),
            texts,
            np.array([d for d, ps in enumerate(pieces) for _ in ps], dtype=np.int64),
            list(map(len, pieces)),
        )
        expected = _plain_bodies(pieces)
        assert got == expected, case
        overlapped += expected is None
    assert 0 < overlapped < CASES
