"""Plain reference for BioC XML reading, for ``tests/equivalence/test_bioc.py``: the ``bioc``
package (``../shared/spec/formats.md``: it may cross-check reads) parses the collection, and the
facts annoscore's reader must keep are taken from its objects as the spec states them: each
document's id, and each passage annotation's id, type infon, concept id infon and locations as
document-absolute (offset, length) pairs.
"""

from __future__ import annotations


def plain_bioc_xml_facts(
    text: str, type_infon: str = "type", id_infon: str = "identifier"
) -> list[tuple[str, list[tuple[str, str, str, list[tuple[int, int]]]]]]:
    """``[(document id, [(annotation id, type, concept id, [(offset, length)...])...])...]``
    of the passages' annotations, as the ``bioc`` package reads the collection."""
    from bioc import biocxml

    collection = biocxml.loads(text)
    out = []
    for document in collection.documents:
        found = []
        for passage in document.passages:
            for annotation in passage.annotations:
                found.append(
                    (
                        annotation.id,
                        annotation.infons.get(type_infon) or "",  # empty: None or ""
                        annotation.infons.get(id_infon) or "",
                        sorted((loc.offset, loc.length) for loc in annotation.locations),
                    )
                )
        out.append((document.id, found))
    return out
