"""BioC XML's fast scan (the standard library's C parser when the document declares no document
type, :func:`annoscore.formats.bioc._scan_xml`) held to the checked parse (defusedxml) and to
the ``bioc`` package's reading (``tests/oracles/bioc.py``), on random collections: adversarial
ids (``tests/equivalence/ids.py``), multi-byte text, escaped characters, CDATA, comments,
processing instructions, document type declarations (with and without entities), malformed XML,
documents with several passages, discontinuous locations, locations past their passage.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from xml.sax.saxutils import escape, quoteattr

import pytest

from annoscore.errors import InputError
from annoscore.formats import bioc as reader
from tests.equivalence.ids import id_pool
from tests.oracles.bioc import plain_bioc_xml_facts

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 150 * SCALE
WORDS = ["Aspirin", "héparine", "<b>", "a&b", "BRCA1", "tumour", "中文", "x\ty", "😀", "]]>"]


def _text(rng: random.Random, body: str) -> str:
    """``body`` as element content: escaped, or in a CDATA section when it allows one."""
    if "]]>" not in body and rng.random() < 0.2:
        return f"<![CDATA[{body}]]>"
    return escape(body)


def _collection(rng: random.Random, case: int) -> tuple[str, bool]:
    """A BioC XML collection, and whether it is meant to be well-formed and accepted."""
    pool = id_pool(rng, 8, forbidden="<>&\"'\t\n\r ")
    documents = []
    for d in range(rng.randint(0, 4) if case % 30 else 200):
        passages = []
        offset = 0
        for _ in range(rng.randint(1, 3)):
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
            annotations = []
            for k in range(rng.randint(0, 4)):
                locations = []
                for _ in range(1 if rng.random() < 0.8 else 2):
                    start = rng.randint(0, len(body))
                    end = rng.randint(start, len(body) + (rng.random() < 0.03))
                    locations.append(
                        f"<location offset='{offset + start}' length='{end - start}'/>"
                    )
                infons = (
                    f"<infon key='type'>{_text(rng, rng.choice(['Chemical', 'Gène', '']))}</infon>"
                )
                if rng.random() < 0.7:
                    infons += f"<infon key='identifier'>{escape(rng.choice(pool))}</infon>"
                written = body[start:end] if rng.random() < 0.9 else "other"
                annotations.append(
                    f"<annotation id={quoteattr(f'{rng.choice(pool)}{len(passages)}.{k}')}>{infons}"
                    f"{''.join(locations)}<text>{_text(rng, written)}</text></annotation>"
                )
            comment = "<!-- a comment -->" if rng.random() < 0.1 else ""
            passages.append(
                f"<passage><offset>{offset}</offset>{comment}<text>{_text(rng, body)}</text>"
                f"{''.join(annotations)}</passage>"
            )
            offset += len(body) + rng.randint(1, 3)
        name = escape(f"{rng.choice(pool)}{d}")
        documents.append(f"<document><id>{name}</id>{''.join(passages)}</document>")
    head = ""
    good = True
    r = rng.random()
    if r < 0.05:
        head = "<!DOCTYPE collection SYSTEM 'BioC.dtd'>"
    elif r < 0.08:
        head = "<!DOCTYPE collection [<!ENTITY e 'x'>]>"
        good = False
    elif r < 0.1:
        head = "<?xml-stylesheet type='text/xsl' href='x.xsl'?>"
    xml = f"<?xml version='1.0' encoding='UTF-8'?>{head}<collection><source/><date/><key/>"
    xml += "".join(documents) + "</collection>"
    if "</passage>" in xml and rng.random() < 0.03:
        xml = xml.replace("</passage>", "</pasage>", 1)
        good = False
    return xml, good


def _checked(text: str, **options: str) -> reader.BiocCorpus:
    """The reading with the scan declined: the checked parse alone."""
    scan = reader._scan_xml
    reader._scan_xml = lambda text: None  # type: ignore[assignment]
    try:
        return reader.read_bioc_text(text, "c.xml", "bioc-xml", **options)
    finally:
        reader._scan_xml = scan


def test_the_xml_scan_is_the_checked_parse_and_the_bioc_packages_reading() -> None:
    rng = random.Random("bioc-xml-scan")
    scanned = 0
    for case in range(CASES):
        text, good = _collection(rng, case)
        scanned += reader._scan_xml(text) is not None
        try:
            expected = _checked(text)
        except InputError as error:
            with pytest.raises(InputError) as raised:
                reader.read_bioc_text(text, "c.xml", "bioc-xml")
            assert str(raised.value) == str(error), case
            continue
        assert good or "<!DOCTYPE" in text, case
        got = reader.read_bioc_text(text, "c.xml", "bioc-xml")
        assert got == expected, case
        if "<!DOCTYPE" in text:
            continue
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
        assert facts == plain_bioc_xml_facts(text), case
    assert scanned > CASES // 2  # the generator hits the scan
