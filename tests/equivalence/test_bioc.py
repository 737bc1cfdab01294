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

Equal: documents, mentions, concept ids, warnings, or the same error.  The columns ``spans``
scores (:class:`~annoscore.formats.bioc.BiocFile`) are held to the model objects too.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats import bioc as reader
from annoscore.formats.brat_model import AnnFile
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


def _read(text: str, form: str, fast: bool, **options: str) -> reader.BiocCorpus | str:
    """The reading (or its error's message) with the fast steps, or with them declined."""
    saved = [
        reader._scan_xml,
        reader._json_block,
        reader._scan_xml_corpus,
        reader._scan_json_corpus,
    ]
    if not fast:
        reader._scan_xml = lambda text, *names: None  # type: ignore[assignment]
        reader._json_block = lambda *arguments: None  # type: ignore[assignment]
        reader._scan_xml_corpus = lambda *arguments: None  # type: ignore[assignment]
        reader._scan_json_corpus = lambda *arguments: None  # type: ignore[assignment]
    try:
        return reader.read_bioc_text(text, "c.xml", form, **options)
    except InputError as error:
        return f"InputError: {error}"
    finally:
        (
            reader._scan_xml,
            reader._json_block,
            reader._scan_xml_corpus,
            reader._scan_json_corpus,
        ) = saved


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
        found = reader._scan_xml(text)
        taken = found is not None
        scanned += taken
        columns += any(isinstance(a, reader._Block) for d in found or [] for a in d.annotations)
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
            and reader._json_block(p.get("annotations"), (0, 0), "type", "identifier") is not None
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
