"""``annoscore spans`` on two BioC files cut into chunks of documents (:mod:`annoscore.scale.
cut_xml`): XML (a ``<collection>`` of ``<document>`` elements) and JSON (a ``documents`` array),
each chunk read between its file's own head and tail.  Random adversarial corpora scored with
``--jobs`` 1, 2 and 3 and with one process scoring small chunks one after the other: identical
bytes (JSON with documents, types and averages), warnings and errors included.

The corpora warn (annotation texts unlike the document's, texts unlike the other side's,
documents on one side only, repeated
mentions, a side without concept ids) and are adversarial: ids from ``tests/equivalence/ids.py``
escaped as XML or JSON writes them; passage texts, comments, CDATA sections and processing
instructions holding ``<document><id>..</id>``, ``</document>``, ``"documents": [`` and a
document's first key; documents without an id (named by their position); sentences, relations
and document-level annotations (the checked parsers); compact or indented; the system in
another order.  They break too: a byte-order mark, a document twice, a location outside its
passage, a tag left open, a JSON syntax error, a key after ``documents`` whose array holds
documents, a comment after ``</collection>``.  Most clean corpora are checked to be really cut.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

import annoscore.scale as scale
from annoscore.scale.cut_xml import split_bioc_json, split_bioc_xml
from tests.scale.test_lines import MULTIPLIER, _chunks_of, _jobs, _output, _same
from tests.scale.test_span_lines import MODES, _documents

CASES = max(3, int(15 * MULTIPLIER))

TRAPS = [
    "<document><id>trap</id><passage><offset>0</offset><text>x</text></passage></document>",
    "</document>\n<document>",
    '"documents": [{"id": "t", "passages": []}',
    '], "x": [{"id": "u", "passages": []}',
]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _passages(
    text: str, mentions: list[Any], split: bool
) -> tuple[list[tuple[int, str, list[Any]]], list[Any]]:
    """The document's passages (offset, text, the mentions inside it) and the mentions left at
    the document's level (crossing the passages)."""
    half = len(text) // 2 if split and len(text) > 3 else len(text)
    pieces = [(0, text[:half])] + ([(half, text[half:])] if half < len(text) else [])
    out: list[tuple[int, str, list[Any]]] = [(o, t, []) for o, t in pieces]
    own = []
    for mention in mentions:
        a, b = mention[0], mention[1]
        for offset, body, held in out:
            if offset <= a and b <= offset + len(body):
                held.append(mention)
                break
        else:
            own.append(mention)
    return out, own


def _xml_annotation(rng: random.Random, k: int, mention: Any, side: int, no_ids: bool) -> str:
    a, b, kind, concept, written = mention
    infons = f'<infon key="type">{escape(kind)}</infon>'
    if concept != "-1" and not (no_ids and side == 1):
        infons += f'<infon key="identifier">{escape(concept)}</infon>'
    name = f"A{k}" if rng.random() < 0.9 else ""
    return (
        f'<annotation id="{name}">{infons}<location offset="{a}" length="{b - a}"/>'
        f"<text>{escape(written)}</text></annotation>"
    )


def _xml_document(
    rng: random.Random, document: dict[str, Any], side: int, clean: bool, no_ids: bool
) -> str:
    mentions = document["sides"][side]
    passages, own = _passages(document["texts"][side], mentions, rng.random() < 0.4)
    name = document["id"]
    head = f"<document><id>{escape(name)}</id>"
    if not clean and rng.random() < 0.05:
        head = "<document>"  # no id: named by its position
    elif rng.random() < 0.1:
        head = f"<document>\n  <id>{escape(name)}</id><infon key='kind'>x</infon>"
    parts = [head]
    k = 0
    for offset, body, held in passages:
        text = escape(body)
        if rng.random() < 0.05:  # a CDATA section holding a document's start: the parser
            text = f"<![CDATA[{body}]]>" if "]]>" not in body else text
        inner = ""
        for mention in held:
            k += 1
            inner += _xml_annotation(rng, k, mention, side, no_ids)
        if rng.random() < 0.05:  # a sentence: the checked parser
            parts.append(
                f"<passage><offset>{offset}</offset><sentence><offset>{offset}</offset>"
                f"<text>{text}</text>{inner}</sentence></passage>"
            )
        else:
            parts.append(
                f"<passage><infon key='section'>t</infon><offset>{offset}</offset>"
                f"<text>{text}</text>{inner}</passage>"
            )
    for mention in own:
        k += 1
        parts.append(_xml_annotation(rng, k, mention, side, no_ids))
    if rng.random() < 0.05:
        parts.append(
            '<relation id="R1"><infon key="type">r</infon><node refid="A1" role="x"/></relation>'
        )
    if rng.random() < 0.1:  # a comment or instruction holding a document
        trap = rng.choice(TRAPS[:2])
        parts.insert(1, rng.choice([f"<!-- {trap} -->", f"<?pi {trap}?>"]))
    joiner = rng.choice(["", "\n", "\n  "])
    return joiner.join(parts) + "</document>"


def _xml(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    documents = _documents(rng, clean)
    for document in documents:
        if rng.random() < 0.1:  # a text holding a document's start, escaped
            trap = " " + rng.choice(TRAPS)
            document["texts"] = tuple(text + trap for text in document["texts"])
    no_ids = rng.random() < 0.2
    for side, name in enumerate(("gold.xml", "system.xml")):
        blocks = [
            _xml_document(rng, d, side, clean, no_ids)
            for d in documents
            if d["sides"][side] is not None
        ]
        if not clean and rng.random() < 0.3:
            rng.shuffle(blocks)
        if not clean and rng.random() < 0.05 and blocks:
            blocks.append(blocks[0])  # a document twice: an error
        if not clean and rng.random() < 0.05 and blocks:  # outside its passage: an error
            blocks[-1] = blocks[-1].replace('length="', 'length="9999', 1)
        if not clean and rng.random() < 0.05 and len(blocks) > 2:  # a tag left open
            blocks[len(blocks) // 2] = blocks[len(blocks) // 2].replace("</document>", "", 1)
        if rng.random() < 0.1 and blocks:  # something else between documents
            blocks.insert(rng.randrange(len(blocks)), "<!-- </document><document> -->")
        head = rng.choice(["", '<?xml version="1.0" encoding="UTF-8"?>\n'])
        if rng.random() < 0.5:
            head += '<!DOCTYPE collection SYSTEM "BioC.dtd">\n'
        head += "<collection><source>PubTator</source><date>2024</date><key>BioC.key</key>"
        if rng.random() < 0.3:
            head += "<infon key='c'>v</infon>"
        joiner = rng.choice(["", "\n"])
        text = head + joiner + joiner.join(blocks) + joiner + "</collection>\n"
        if not clean:
            roll = rng.random()
            if roll < 0.05:
                text = "\ufeff" + text
            elif roll < 0.1:
                text = text.replace("\n", "\r\n")
            elif roll < 0.15:
                text += "<!-- after the root -->\n"
        (root / name).write_text(text, encoding="utf-8")
    return {"gold_format": "bioc-xml", "system_format": "bioc-xml"}


def _json_annotation(rng: random.Random, k: int, mention: Any, side: int, no_ids: bool) -> Any:
    a, b, kind, concept, written = mention
    infons = {"type": kind}
    if concept != "-1" and not (no_ids and side == 1):
        infons["identifier"] = concept
    item = {"id": f"A{k}", "infons": infons, "text": written,
            "locations": [{"offset": a, "length": b - a}]}  # fmt: skip
    return dict(reversed(list(item.items()))) if rng.random() < 0.3 else item


def _json_document(
    rng: random.Random, document: dict[str, Any], side: int, clean: bool, no_ids: bool
) -> Any:
    mentions = document["sides"][side]
    passages, own = _passages(document["texts"][side], mentions, rng.random() < 0.4)
    k = 0
    out = []
    for offset, body, held in passages:
        items = []
        for mention in held:
            k += 1
            items.append(_json_annotation(rng, k, mention, side, no_ids))
        passage: dict[str, Any] = {"infons": {"type": "t"}, "offset": offset, "text": body,
                                   "annotations": items}  # fmt: skip
        if rng.random() < 0.05:  # a sentence: the checked walk
            passage = {"offset": offset, "sentences": [
                {"offset": offset, "text": body, "annotations": items}]}  # fmt: skip
        out.append(passage)
    annotations = []
    for mention in own:
        k += 1
        annotations.append(_json_annotation(rng, k, mention, side, no_ids))
    item: dict[str, Any] = {"id": document["id"], "infons": {}, "passages": out,
                            "annotations": annotations, "relations": []}  # fmt: skip
    if not clean and rng.random() < 0.05:
        item["id"] = rng.choice([None, "", 0])  # no id: named by its position
    if rng.random() < 0.1:  # a nested object that begins as a document
        item["infons"]["x"] = rng.choice(TRAPS)
    keys = list(item)
    if rng.random() < 0.3:
        rng.shuffle(keys)
    return {key: item[key] for key in keys}


def _bioc_json(rng: random.Random, root: Path, clean: bool) -> dict[str, Any]:
    documents = _documents(rng, clean)
    for document in documents:
        if rng.random() < 0.1:
            trap = " " + rng.choice(TRAPS)
            document["texts"] = tuple(text + trap for text in document["texts"])
    no_ids = rng.random() < 0.2
    indent = rng.choice([None, None, 1])
    ascii_only = rng.random() < 0.5
    for side, name in enumerate(("gold.json", "system.json")):
        items = [
            _json_document(rng, d, side, clean, no_ids)
            for d in documents
            if d["sides"][side] is not None
        ]
        if not clean and rng.random() < 0.3:
            rng.shuffle(items)
        if not clean and rng.random() < 0.05 and items:
            items.append(items[0])  # a document twice: an error
        collection: dict[str, Any] = {"source": "PubTator", "date": "", "key": "BioC.key",
                                      "infons": {}, "documents": items}  # fmt: skip
        if rng.random() < 0.2:
            collection = {"documents": items, **{k: v for k, v in collection.items()
                                                 if k != "documents"}}  # fmt: skip
        if not clean and rng.random() < 0.1 and items:  # documents-like objects after it
            other = {**documents[0], "sides": [[], []]}
            collection["later"] = [_json_document(rng, other, side, True, no_ids)]
        text = json.dumps(collection, indent=indent, ensure_ascii=ascii_only)
        if not clean:
            roll = rng.random()
            if roll < 0.05:
                text = "\ufeff" + text
            elif roll < 0.1:  # a syntax error inside a document
                at = text.rfind('"offset"')
                text = text[:at] + "," + text[at:] if at > 0 else text
            elif roll < 0.15:  # a location outside its passage: an error
                text = text.replace('"length": ', '"length": 999', 1)
        (root / name).write_text(text + "\n", encoding="utf-8")
    return {"gold_format": "bioc-json", "system_format": "bioc-json"}


WRITERS = {"bioc-xml": (_xml, "xml"), "bioc-json": (_bioc_json, "json")}


@pytest.mark.parametrize("form", list(WRITERS))
def test_random_bioc_files_give_the_same_bytes_warnings_included(
    form: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"bioc-cuts-{form}")
    writer, suffix = WRITERS[form]
    kept = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0  # clean: may warn, never breaks
        options = writer(rng, root, clean)
        if rng.random() < 0.3:  # recognised by each chunk (a warning each, pooled)
            options = {}
        options.update(rng.choice(MODES))
        gold, system = root / f"gold.{suffix}", root / f"system.{suffix}"
        exact.clear()
        one = _same(
            "spans", gold, system, rng.choice([150, 400, 1500]), jobs=_jobs(case), **options
        )
        if clean:
            assert not one.startswith("error"), one
            clean_total += 1
            kept += bool(exact) and all(exact)
    assert kept >= clean_total // 2, (kept, clean_total)


def _collection(ids: list[str], text: str) -> str:
    documents = "".join(
        f"<document><id>{escape(d)}</id><passage><offset>0</offset><text>{escape(text)}</text>"
        f'<annotation id="A1"><infon key="type">Chem</infon><location offset="0" length="7"/>'
        f"<text>Aspirin</text></annotation></passage></document>\n"
        for d in ids
    )
    return f'<?xml version="1.0"?>\n<collection><source/><date/><key/>\n{documents}</collection>\n'


def test_a_cut_never_falls_inside_a_bioc_xml_document(tmp_path: Path) -> None:
    # passage texts (escaped), a CDATA section and a comment hold a document's start and end:
    # the middle byte falls inside a document; every chunk is whole documents between the
    # file's own head and tail, and reads as a collection of its own
    text = "Aspirin </document><document><id>x</id> " * 4
    xml = _collection([f"d{k}" for k in range(12)], text)
    xml = xml.replace("<id>d5</id>", "<id>d5</id><!-- </document><document><id>y</id> -->")
    xml = xml.replace("<text>Aspirin &lt;", "<text><![CDATA[Aspirin </document>]]>&lt;", 1)
    (tmp_path / "g.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "s.xml").write_text(xml, encoding="utf-8")
    chunks = split_bioc_xml(tmp_path / "g.xml", tmp_path / "s.xml", 4)
    assert chunks is not None and len(chunks) == 4
    data = xml.encode()
    from defusedxml.ElementTree import fromstring

    found = []
    for chunk in chunks:
        assert chunk.gold_wrap is not None
        piece = data[chunk.gold_range[0] : chunk.gold_range[1]]
        assert piece.startswith(b"<document><id>") and piece.rstrip().endswith(b"</document>")
        root = fromstring((chunk.gold_wrap.head + piece + chunk.gold_wrap.tail).decode())
        found += [d.findtext("id") for d in root.findall("document")]
        assert chunk.gold_range == chunk.system_range
    assert found == [f"d{k}" for k in range(12)]
    options = {"gold_format": "bioc-xml", "system_format": "bioc-xml"}
    one = _same("spans", tmp_path / "g.xml", tmp_path / "s.xml", 300, **options)
    assert '"d11"' in one


def test_a_bioc_xml_collection_without_documents_is_not_cut(tmp_path: Path) -> None:
    """A collection with no ``<document`` in its head: no cut, and one run's output."""
    empty = _collection([], "x").replace("<key/>", "<key/>" + "<!-- pad -->" * 60)
    (tmp_path / "g.xml").write_text(empty, encoding="utf-8")
    (tmp_path / "s.xml").write_text(_collection(["d1", "d2"], "Aspirin"), encoding="utf-8")
    assert split_bioc_xml(tmp_path / "g.xml", tmp_path / "s.xml", 3) is None
    assert split_bioc_xml(tmp_path / "s.xml", tmp_path / "g.xml", 3) is None
    options = {"gold_format": "bioc-xml", "system_format": "bioc-xml"}
    _same("spans", tmp_path / "g.xml", tmp_path / "s.xml", 300, **options)


def test_a_cut_at_a_document_inside_a_comment_is_never_kept(
    tmp_path: Path, exact: list[bool]
) -> None:
    # a commented-out run of documents looks like documents in the bytes: a chunk beginning
    # inside the comment is not a well-formed collection, so the input is scored in one run
    fake = "".join(
        f"</document>\n<document><id>f{k}</id><passage><offset>0</offset><text>Aspirin</text>"
        "</passage>"
        for k in range(40)
    )
    gold = _collection(["a", "b"], "Aspirin").replace("<id>b</id>", f"<id>b</id><!-- {fake} -->")
    (tmp_path / "g.xml").write_text(gold, encoding="utf-8")
    (tmp_path / "s.xml").write_text(_collection(["a", "f20", "b"], "Aspirin"), "utf-8")
    chunks = split_bioc_xml(tmp_path / "g.xml", tmp_path / "s.xml", 2)
    assert chunks is not None and len(chunks) == 2  # cut at the commented "f20"
    options = {"gold_format": "bioc-xml", "system_format": "bioc-xml"}
    exact.clear()
    one = _same("spans", tmp_path / "g.xml", tmp_path / "s.xml", 200, **options)
    assert '"tp": 2' in one and "have no gold file" in one
    exact.clear()
    assert _output("spans", tmp_path / "g.xml", tmp_path / "s.xml", 2, **options) == one
    assert exact == [False]  # the first chunk ends inside the comment: not well-formed


def test_a_key_after_the_documents_array_is_never_read_as_documents(
    tmp_path: Path, exact: list[bool]
) -> None:
    # {"documents": [...], "later": [...]}: the file's last "]" closes "later", whose
    # document-like objects one run ignores; the chunks that hold them say they are not exact
    def doc(name: str) -> dict[str, Any]:
        passage = {"offset": 0, "text": "Aspirin", "annotations": [
            {"id": "A1", "infons": {"type": "Chem"}, "text": "Aspirin",
             "locations": [{"offset": 0, "length": 7}]}]}  # fmt: skip
        return {"id": name, "passages": [passage]}

    collection = {"source": "", "documents": [doc(f"d{k}") for k in range(8)],
                  "later": [doc(f"z{k}") for k in range(8)]}  # fmt: skip
    text = json.dumps(collection, indent=1)
    (tmp_path / "g.json").write_text(text, encoding="utf-8")
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    chunks = split_bioc_json(tmp_path / "g.json", tmp_path / "s.json", 4)
    assert chunks is not None and len(chunks) == 4  # the frame alone cannot tell
    options = {"gold_format": "bioc-json", "system_format": "bioc-json"}
    exact.clear()
    one = _same("spans", tmp_path / "g.json", tmp_path / "s.json", 300, **options)
    assert '"z0"' not in one and '"d7"' in one
    assert exact and not any(exact)


def test_documents_named_by_their_position_are_named_as_in_the_whole_file(
    tmp_path: Path, exact: list[bool]
) -> None:
    xml = _collection([f"d{k}" for k in range(20)], "Aspirin")
    for k in (3, 11, 17):  # no id: the k+1-th document is named "k+1"
        xml = xml.replace(f"<id>d{k}</id>", "")
    (tmp_path / "g.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "s.xml").write_text(xml.replace("Chem", "Gene", 5), encoding="utf-8")
    options = {"gold_format": "bioc-xml", "system_format": "bioc-xml"}
    exact.clear()
    one = _same("spans", tmp_path / "g.xml", tmp_path / "s.xml", 300, **options)
    assert '"12": {' in one and '"18": {' in one
    assert exact and not all(exact)


def test_clean_bioc_files_are_cut_and_the_system_found_by_id(
    tmp_path: Path, exact: list[bool]
) -> None:
    gold = _collection([f"d{k}" for k in range(30)], "Aspirin works")
    system = _collection(["new", *(f"d{k}" for k in range(30) if k % 7)], "Aspirin works")
    (tmp_path / "g.xml").write_text(gold, encoding="utf-8")
    (tmp_path / "s.xml").write_text(system.replace("Chem", "Gene", 3), encoding="utf-8")
    chunks = split_bioc_xml(tmp_path / "g.xml", tmp_path / "s.xml", 4)
    assert chunks is not None and len(chunks) >= 2
    data = (tmp_path / "g.xml").read_bytes(), (tmp_path / "s.xml").read_bytes()
    for chunk in chunks[1:]:
        first = [side[r[0] :].split(b"</id>")[0] for side, r in
                 zip(data, (chunk.gold_range, chunk.system_range), strict=True)]  # fmt: skip
        assert first[0] == first[1]
    options = {"gold_format": "bioc-xml", "system_format": "bioc-xml"}
    with _chunks_of(len(gold) // 5):
        exact.clear()
        _output("spans", tmp_path / "g.xml", tmp_path / "s.xml", 2, **options)
    assert exact and all(exact)
    one = _same("spans", tmp_path / "g.xml", tmp_path / "s.xml", 500, **options)
    assert "have no gold file" in one and "have no system file" in one


def test_files_whose_format_is_recognised_are_cut_and_say_so_once(
    tmp_path: Path, exact: list[bool]
) -> None:
    xml = _collection([f"d{k}" for k in range(20)], "Aspirin")
    (tmp_path / "g.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "s.xml").write_text(xml.replace("Chem", "Gene", 4), encoding="utf-8")
    lines = [json.dumps({"id": f"d{k}", "text": "Aspirin", "spans": [
        {"start": 0, "end": 7, "label": "Chem"}]}) for k in range(20)]  # fmt: skip
    (tmp_path / "g.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "s.jsonl").write_text("\n".join(lines[3:]) + "\n", encoding="utf-8")
    for gold, system, form in (("g.xml", "s.xml", "bioc-xml"), ("g.jsonl", "s.jsonl", "prodigy")):
        exact.clear()
        one = _same("spans", tmp_path / gold, tmp_path / system, 300)
        assert exact and all(exact)
        assert one.count(f"read as {form}") == 2, one


RANGE_TRAPS = [
    '], "x": [',
    "]}, {",
    ",",
    ", {}",
    "}",
    '{"id": "t", "passages": []}',
    "] , [",
    "]",
    "[",
    " \n",
]


def test_a_bioc_json_chunk_is_whole_documents_as_the_check_says(tmp_path: Path) -> None:
    """A chunk of a BioC JSON file, its range of the ``documents`` array cut anywhere or
    spliced with brackets, commas and keys: the reader (whose corpus scan, when it reads the
    chunk, stands for the check that the range is whole values of the array,
    :func:`~annoscore.formats.bioc._json_chunk`) says the chunk is exact exactly when the
    check (:func:`~annoscore.formats.bioc_tree.json_array_items`, a parse of the range) says
    so, and reads the same columns, warnings or error as the reader of the whole text."""
    from annoscore.errors import InputError
    from annoscore.formats import bioc
    from annoscore.formats.annotations import ReaderOptions
    from annoscore.formats.bioc_tree import json_array_items
    from annoscore.formats.files import Cut, cut_files
    from annoscore.scale.cut_xml import _bioc_json_array
    from tests.equivalence.test_bioc import _common_json, _every_field

    rng = random.Random("bioc-json-chunks")
    exact = scanned = 0
    for case in range(40 * CASES):
        text, type_infon, id_infon, offsets = _common_json(rng, case)
        data = text.encode("utf-8")
        frame = _bioc_json_array(data)
        if frame is None:
            continue
        head, whole, tail = data[: frame[0]], data[frame[0] : frame[1]], data[frame[1] :]
        cuts = sorted(rng.randrange(len(whole) + 1) for _ in range(2))
        part = rng.choice([whole, whole, whole[cuts[0] : cuts[1]], whole[cuts[0] :]])
        for _ in range(rng.choice([0, 0, 1, 2])):  # something spliced in
            at = rng.randrange(len(part) + 1)
            part = part[:at] + rng.choice(RANGE_TRAPS).encode() + part[at:]
        try:
            part.decode("utf-8")
        except UnicodeDecodeError:
            continue  # cut inside a character (no cut does: it is between documents)
        path = tmp_path / "c.json"
        path.write_bytes(head + part + tail)
        cut = Cut(len(head), len(head) + len(part), head=head, tail=tail, check=json_array_items)
        names = ReaderOptions(type_infon, id_infon, offsets)
        got: Any
        try:
            with cut_files({str(path): cut}):
                files, warnings = bioc.read_bioc_files(path, "bioc-json", names)
            got = (list(map(_every_field, files)), warnings)
        except InputError as error:
            got = str(error)
        assert cut.check is json_array_items, case
        assert cut.exact == json_array_items(part), case
        expected: Any
        try:
            files, warnings = bioc.read_bioc_columns(
                (head + part + tail).decode(), str(path), "bioc-json", names
            )
            expected = (list(map(_every_field, files)), warnings)
        except InputError as error:
            expected = str(error)
        assert got == expected, case
        exact += cut.exact
        scanned += cut.exact and not isinstance(got, str)
    assert 0 < exact < 40 * CASES and scanned > 0


def _first_ids(chunks: list[Any], gold: Path, system: Path, form: str) -> list[tuple[Any, Any]]:
    """The id of the document each chunk after the first begins with, on each side."""
    from annoscore.scale.cut_json import _element_document
    from annoscore.scale.cut_xml import _XML_DOCUMENT, BIOC_DOCUMENTS

    data = gold.read_bytes(), system.read_bytes()

    def first(side: bytes, at: int) -> Any:
        if form == "bioc-xml":
            found = _XML_DOCUMENT.match(side, at)
            return None if found is None else found.group(1)
        return _element_document(side, at + side[at:].index(b"{"), BIOC_DOCUMENTS)

    return [
        (first(data[0], c.gold_range[0]), first(data[1], c.system_range[0])) for c in chunks[1:]
    ]


def _from_after(find: Any, after: int, near: int, end: int) -> int:
    return int(find(after, end))  # the plain search: from the cut before


@pytest.mark.parametrize("form", list(WRITERS))
def test_the_system_cut_sought_near_its_place_begins_at_the_gold_cut_document(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system's cut of each gold cut is sought in windows around where the rate of the
    chunk before puts it (:func:`~annoscore.scale.cut_lines.sought_near`), here windows of a
    few bytes, and against the plain search from the cut before on the same random corpora:
    each system chunk begins at the document of its gold chunk's, the cuts are those of the
    plain search on most clean corpora, and the output is one run's."""
    rng = random.Random(f"bioc-near-{form}")
    writer, suffix = WRITERS[form]
    split = split_bioc_xml if form == "bioc-xml" else split_bioc_json
    same_cuts = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 3 != 0
        options = writer(rng, root, clean)
        options.update(rng.choice(MODES))
        gold, system = root / f"gold.{suffix}", root / f"system.{suffix}"
        monkeypatch.setattr(scale.cut_lines, "_NEAR_BYTES", rng.choice([1, 8, 64, 512]))
        parts = rng.choice([3, 6, 12])
        near = split(gold, system, parts)
        with monkeypatch.context() as plain:
            for module in (scale.cut_xml, scale.cut_json):
                plain.setattr(module, "sought_near", _from_after)
            from_before = split(gold, system, parts)
        for chunks in (near, from_before):
            if chunks is not None:
                assert all(g == s for g, s in _first_ids(chunks, gold, system, form)), case
        if clean:
            clean_total += 1
            same_cuts += near == from_before and near is not None
        _same("spans", gold, system, rng.choice([150, 400]), jobs=_jobs(case), **options)
    assert same_cuts >= clean_total // 2, (same_cuts, clean_total)


@pytest.mark.parametrize("form", list(WRITERS))
def test_the_lines_of_bioc_chunks_are_not_counted(
    form: str, tmp_path: Path, exact: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a chunk of BioC is read after its file's head and its readers name no line: the parent
    # counts no line before the workers start, and the chunks that warned (a text unlike the
    # document's) are not scored again with their lines counted; the output is one run's
    def counted(path: str, offsets: Any) -> list[int]:
        raise AssertionError(f"the lines of {path} were counted")

    monkeypatch.setattr(scale.cut_lines, "_lines_before", counted)
    rng = random.Random(f"bioc-lines-{form}")
    writer, suffix = WRITERS[form]
    warned = 0
    for case in range(2 * CASES):
        root = tmp_path / str(case)
        root.mkdir()
        options = writer(rng, root, True)
        exact.clear()
        one = _same("spans", root / f"gold.{suffix}", root / f"system.{suffix}", **options)
        warned += bool(exact) and all(exact) and "where the document has" in one
    assert warned, "no cut run warned"


def _in_units(documents: list[dict[str, Any]], unit: str) -> list[dict[str, Any]]:
    """``documents`` with their mentions' offsets in ``unit`` (``chars`` or ``bytes``: UTF-8)."""

    def place(text: str, at: int) -> int:
        return at if unit == "chars" else len(text[:at].encode("utf-8"))

    return [
        {
            **d,
            "sides": [
                None
                if side is None
                else [(place(text, a), place(text, b), *rest) for a, b, *rest in side]
                for side, text in zip(d["sides"], d["texts"], strict=True)
            ],
        }
        for d in documents
    ]


def _passages_in(unit: str, split: bool) -> Any:
    """:func:`_passages` with the offsets of passages and mentions in ``unit`` (and never a
    second passage unless ``split``)."""

    def size(text: str) -> int:
        return len(text) if unit == "chars" else len(text.encode("utf-8"))

    def passages(
        text: str, mentions: list[Any], halves: bool
    ) -> tuple[list[tuple[int, str, list[Any]]], list[Any]]:
        half = len(text) // 2 if split and halves and len(text) > 3 else len(text)
        pieces = [(0, text[:half])] + (
            [(size(text[:half]), text[half:])] if half < len(text) else []
        )
        out: list[tuple[int, str, list[Any]]] = [(o, t, []) for o, t in pieces]
        own = []
        for mention in mentions:
            for offset, body, held in out:
                if offset <= mention[0] and mention[1] <= offset + size(body):
                    held.append(mention)
                    break
            else:
                own.append(mention)
        return out, own

    return passages


def _without_auto_notes(output: str) -> tuple[Any, str]:
    """A run's JSON less the warnings of ``--offsets auto`` (documents read as bytes), and the
    text after it."""
    shown, end = json.JSONDecoder().raw_decode(output)
    if "warnings" in shown:
        shown["warnings"] = [w for w in shown["warnings"] if "(--offsets auto)" not in str(w)]
    return shown, output[end:]


@pytest.mark.parametrize("form", list(WRITERS))
def test_byte_offsets_reach_every_path(
    form: str, tmp_path: Path, exact: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--offsets utf8-bytes`` and ``auto`` on random corpora whose offsets count UTF-8 bytes
    (texts with ``ñ`` and ``中文``): one run, ``--jobs`` 2 and 3 and small chunks give the same
    bytes, and they are those of the same corpus written in characters and read as characters
    (a path reading characters would differ, as the default reading of the bytes does).  With
    ``utf8-bytes``, a document's second passage, when it is split, starts at its offset in
    bytes too."""
    import tests.scale.test_bioc_cuts as here

    make = here._documents
    rng = random.Random(f"bioc-bytes-{form}")
    writer, suffix = WRITERS[form]
    differ = cut = 0
    for case in range(CASES):
        offsets = rng.choice(["utf8-bytes", "auto"])
        documents = make(rng, True)
        if offsets == "auto":  # auto reads bytes only when every text matches at them
            for d in documents:
                for side, text in zip(d["sides"], d["texts"], strict=True):
                    if side is not None:
                        side[:] = [(a, b, k, c, text[a:b]) for a, b, k, c, _ in side]
        seed = rng.random()
        paths = {}
        for unit in ("chars", "bytes"):
            root = tmp_path / str(case) / unit
            root.mkdir(parents=True)
            monkeypatch.setattr(
                here, "_documents", lambda r, c, d=documents, u=unit: _in_units(d, u)
            )
            # auto: one passage (a second one at a byte offset read as characters, spaces
            # before it, may match too: auto then reads characters, as it says)
            monkeypatch.setattr(here, "_passages", _passages_in(unit, offsets == "utf8-bytes"))
            options = writer(random.Random(seed), root, True)
            paths[unit] = (root / f"gold.{suffix}", root / f"system.{suffix}")
        options.update(rng.choice(MODES))
        exact.clear()
        one = _same("spans", *paths["bytes"], rng.choice([150, 400, 1500]), jobs=_jobs(case),
                    offsets=offsets, **options)  # fmt: skip
        cut += offsets == "utf8-bytes" and bool(exact) and all(exact)
        reference = _output("spans", *paths["chars"], 1, **options)
        assert not reference.startswith("error"), reference
        chars_dir, bytes_dir = str(paths["chars"][0].parent), str(paths["bytes"][0].parent)
        same = one.replace(bytes_dir, chars_dir).replace(f"|offsets:{offsets}", "")
        assert _without_auto_notes(same) == _without_auto_notes(reference), (case, offsets)
        default = _output("spans", *paths["bytes"], 1, **options).replace(bytes_dir, chars_dir)
        differ += default != reference
    assert differ >= CASES // 2 and cut > 0, (differ, cut)


def _named_infons(ids: list[str], kinds: dict[str, str], form: str) -> str:
    """A BioC file whose annotations name their type by the infon ``kind`` and their concept id
    by ``MESH`` (the ``type`` infon says ``Drug`` in every one): ``kinds`` by document id."""
    if form == "bioc-json":
        documents = [
            {"id": d, "passages": [{"offset": 0, "text": "Aspirin works", "annotations": [
                {"id": "A1", "infons": {"type": "Drug", "kind": kinds[d], "MESH": "D1"},
                 "locations": [{"offset": 0, "length": 7}], "text": "Aspirin"}]}]}
            for d in ids
        ]  # fmt: skip
        return json.dumps({"source": "", "date": "", "key": "", "documents": documents})
    xml = _collection(ids, "Aspirin works")
    for d in ids:
        xml = xml.replace(
            f'<id>{d}</id><passage><offset>0</offset><text>Aspirin works</text><annotation id="A1">'
            '<infon key="type">Chem</infon>',
            f'<id>{d}</id><passage><offset>0</offset><text>Aspirin works</text><annotation id="A1">'
            f'<infon key="type">Drug</infon><infon key="kind">{kinds[d]}</infon>'
            '<infon key="MESH">D1</infon>',
        )
    return xml


@pytest.mark.parametrize("form", ["bioc-xml", "bioc-json"])
def test_reader_options_on_the_command_line_reach_each_chunk(
    form: str, tmp_path: Path, exact: list[bool]
) -> None:
    """``--type-infon``, ``--id-infon`` (BioC) and ``--answers`` (Prodigy JSONL) given on the
    command line reach the reader of each chunk of ``--jobs 2`` (one
    :class:`~annoscore.formats.annotations.ReaderOptions` from :class:`~annoscore.tasks.spans.
    SpanOptions`): the counts are those of the infons and answers named, as in one run."""
    from typer.testing import CliRunner

    from annoscore.cli import app

    ids = [f"d{k}" for k in range(20)]
    suffix = "xml" if form == "bioc-xml" else "json"
    gold, system = tmp_path / f"g.{suffix}", tmp_path / f"s.{suffix}"
    gold.write_text(_named_infons(ids, dict.fromkeys(ids, "Chem"), form), encoding="utf-8")
    kinds = {d: "Gene" if k % 5 == 0 else "Chem" for k, d in enumerate(ids)}  # 4 of 20 differ
    system.write_text(_named_infons(ids, kinds, form), encoding="utf-8")
    lines = [json.dumps({"id": d, "text": "Aspirin", "answer": "reject" if k < 5 else "accept",
                         "spans": [{"start": 0, "end": 7, "label": "Chem"}]})
             for k, d in enumerate(ids)]  # fmt: skip
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(
        {"id": d, "text": "Aspirin", "spans": [{"start": 0, "end": 7, "label": "Chem"}]}) + "\n"
        for d in ids), encoding="utf-8")  # fmt: skip
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    runner = CliRunner()
    infons = ["--type-infon", "kind", "--id-infon", "MESH", "--mode", "concepts"]
    for files, flags, expected in (
        ((gold, system), infons, {"tp": 16, "fp": 4, "fn": 4, "ids_tp": 16}),
        ((gold, system), ["--mode", "concepts"], {"tp": 0, "fp": 0, "fn": 0, "ids_tp": 0}),
        ((tmp_path / "g.jsonl", tmp_path / "s.jsonl"), ["--answers", "accept,reject"], {"tp": 20}),
        ((tmp_path / "g.jsonl", tmp_path / "s.jsonl"), [], {"tp": 15, "fn": 5}),
    ):
        shown = []
        for jobs in ("1", "2"):
            with _chunks_of(len(files[0].read_bytes()) // 5):
                exact.clear()
                args = ["spans", *map(str, files), *flags, "--jobs", jobs, "-f", "json"]
                done = runner.invoke(app, args)
            assert done.exit_code == 0, done.output
            assert jobs == "1" or (exact and all(exact)), (flags, exact)  # really cut
            counts = json.loads(done.stdout)["counts"]
            assert {k: counts.get(k, 0) for k in expected} == expected, (flags, counts)
            shown.append(done.stdout)
        assert shown[0] == shown[1], flags


def test_an_error_in_a_cut_bioc_json_file_names_its_line_with_any_jobs(
    cli: Any, tmp_path: Path, exact: list[bool]
) -> None:
    """A location past its passage in the 25th of 30 documents (one a line): the chunk that
    meets it is not used, and the one run names the file and the annotation's line, with one
    job and with two, as without a cut."""
    lines = [
        f'{{"id": "d{k}", "passages": [{{"offset": 0, "text": "Aspirin", "annotations": '
        f'[{{"id": "A{k}", "infons": {{"type": "C"}}, "text": "Aspirin", '
        f'"locations": [{{"offset": {40 if k == 24 else 0}, "length": 7}}]}}]}}]}}'
        for k in range(30)
    ]
    text = '{"documents": [\n' + ",\n".join(lines) + "\n]}\n"
    (tmp_path / "g.json").write_text(text, encoding="utf-8")
    (tmp_path / "s.json").write_text(text.replace(": 40,", ": 0,"), encoding="utf-8")
    said = "g.json:26: document 'd24', annotation 'A24': location 40-47 is past its passage"
    for jobs in ("1", "2"):
        with _chunks_of(len(text) // 6):
            exact.clear()
            done = cli("spans", tmp_path / "g.json", tmp_path / "s.json", "--jobs", jobs)
        assert done.exit_code == 2 and said in done.stderr, (jobs, done.stderr)
        assert exact == [False], jobs  # cut into chunks, one of which raised: scored in one run
