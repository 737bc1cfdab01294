"""The ARE XML reader: shapes, layouts, safety (defusedxml) and errors naming file and line."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats.are import ABSENT, AreFile, _parse_are, parse_are, read_are
from annoscore.formats.are_columns import scan_are

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<document><chain><node id="1" value="&lol4;"/><node id="2"/></chain></document>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE document [
 <!ENTITY secret SYSTEM "file:///etc/passwd">
]>
<document><chain><node id="1" value="&secret;"/><node id="2"/></chain></document>
"""


def write(tmp_path: Path, text: str, name: str = "f.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


COLUMNS = (
    "keys",
    "has_list",
    "token_sizes",
    "tokens",
    "entity_sizes",
    "entities",
    "listed_sizes",
    "listed",
    "chain_counts",
    "chain_sizes",
    "members",
    "pronominal",
    "pair_counts",
    "pronouns",
    "antecedents",
)


def _plain(value: object) -> object:
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # Refs
        return tuple(_plain(column) for column in value)
    return value.tolist() if hasattr(value, "tolist") else value


def shape(f: AreFile) -> list[object]:
    """Everything a reader produces, codes written out as text (to compare the two ways)."""
    out: list[object] = []
    for name in COLUMNS:
        value = _plain(getattr(f, name))
        if name in ("tokens", "entities", "listed"):
            value = [f.text(code) for code in value]  # type: ignore[attr-defined]
        elif name in ("members", "pronouns", "antecedents"):
            value = [[None if c == ABSENT else f.text(c) for c in col] for col in value]  # type: ignore[attr-defined]
        out.append((name, value))
    return out


def texts(f: AreFile, column: object) -> list[str | None]:
    return [None if c == ABSENT else f.text(c) for c in _plain(column)]  # type: ignore[attr-defined]


def test_reads_chains_pairs_list_entities_and_tokens(tmp_path: Path) -> None:
    f = read_are(
        write(
            tmp_path,
            '<r>\n<text><entity id="1">The PA</entity> said <entity id="2">it</entity></text>\n'
            '<anaphoric_pronouns><pronoun id="2" value="it"/></anaphoric_pronouns>\n'
            '<pair id="p1"><pronoun id="2"/><antecedent id="1"/></pair>\n'
            '<chain id="c1"><node id="1"/><node id="2" type="pronoun"/></chain>\n'
            '<text><node id="a"/>The <node id="b"/>PA</text>\n</r>',
        )
    )
    assert f.keys == (None,) and f.has_list == (True,)
    assert texts(f, f.entities) == ["1", "2"] and texts(f, f.listed) == ["2"]
    assert (texts(f, f.pronouns.id), texts(f, f.antecedents.id)) == (["2"], ["1"])
    assert f.lines().pairs == [4] and f.lines().pronouns == [4]
    assert f.chain_sizes.tolist() == [2] and texts(f, f.members.id) == ["1", "2"]
    assert f.pronominal.tolist() == [False, True]
    assert texts(f, f.tokens) == ["a", "b"] and texts(f, f.members.start) == [None, None]


def test_are_own_shape_and_bare_text_root_both_work(tmp_path: Path) -> None:
    own = read_are(
        write(
            tmp_path,
            '<document><text><entity id="4">x</entity></text><anaphoric_pronouns>'
            '<pronoun id="4"/></anaphoric_pronouns></document>',
        )
    )
    assert texts(own, own.entities) == ["4"]
    bare = read_are(write(tmp_path, '<text><node id="1"/>a <node id="2"/>b</text>', "b.xml"))
    assert texts(bare, bare.tokens) == ["1", "2"]


def test_several_documents_any_case_with_ids(tmp_path: Path) -> None:
    f = read_are(
        write(
            tmp_path,
            '<corpus><DOCUMENT id="d1"><chain><node id="1"/></chain></DOCUMENT>\n'
            '<Document id="d2"><chain><node id="5"/></chain></Document></corpus>',
        )
    )
    assert f.keys == ("d1", "d2")
    assert f.lines().documents == [1, 2]
    assert f.chain_counts.tolist() == [1, 1]


def test_elements_outside_documents_are_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '<corpus>\n<chain><node id="1"/></chain>\n<document><chain/></document></corpus>',
    )
    with pytest.raises(InputError, match="outside the <document>"):
        read_are(path)


def test_value_attributes_are_never_read(tmp_path: Path) -> None:
    plain = read_are(write(tmp_path, '<r><pair><pronoun id="62"/><antecedent id="4"/></pair></r>'))
    valued = read_are(
        write(
            tmp_path,
            '<r><pair id="p6"><pronoun id="62" value=" it"/>'
            '<antecedent id="4" value=" the Palestinian Authority"/></pair></r>',
            "v.xml",
        )
    )
    assert shape(plain) == shape(valued)


def test_ids_are_exact_codes_canonical_decimals_or_names(tmp_path: Path) -> None:
    """``"1"`` is 1, ``"01"`` and 19 digits are names; a 5,000-digit id is a name too (never
    converted to a number)."""
    long = "9" * 5000
    f = read_are(
        write(
            tmp_path,
            f'<r><chain><node id="1"/><node id="01"/><node id="{"1" * 18}"/>'
            f'<node id="{"1" * 19}"/><node id="{long}"/><node id="0"/></chain></r>',
        )
    )
    codes = f.members.id.tolist()
    assert codes[0] == 1 and codes[2] == int("1" * 18) and codes[5] == 0
    assert [f.text(c) for c in codes] == ["1", "01", "1" * 18, "1" * 19, long, "0"]
    assert len(set(codes)) == 6 and f.names == ("01", "1" * 19, long)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("<r>\n<chain>\n<node id='1'>\n</chain></r>", 4, "not well-formed"),
        ("", 1, "not well-formed"),
        ("<r>\n<pair>\n<pronoun id='1'/>\n</pair></r>", 2, "has no <antecedent>"),
        ("<r>\n<pair id='p3'><antecedent id='1'/></pair></r>", 2, 'pair id="p3"> has no <pronoun>'),
        ("<r>\n<pronoun id='1'/></r>", 2, "outside <pair>"),
        ("<r>\n<antecedent id='1'/></r>", 2, "outside a <pair>"),
        ("<r><chain>\n<chain/></chain></r>", 2, "do not nest"),
        ("<r><pair>\n<pair/></pair></r>", 2, "do not nest"),
        (
            "<r><pair><pronoun id='1'/>\n<pronoun id='2'/><antecedent id='3'/></pair></r>",
            2,
            "second",
        ),
        ("<r>\n<text><node/></text></r>", 2, "no id"),
        ("<r>\n<mention start='1' end='1'/></r>", 2, "outside a <chain>"),
        ("<r>\n<entity>x</entity></r>", 2, "no id"),
        ("<r><anaphoric_pronouns>\n<pronoun/></anaphoric_pronouns></r>", 2, "no id"),
    ],
)
def test_bad_input_names_file_line_and_element(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as error:
        read_are(path)
    assert error.value.path == str(path)
    assert error.value.line == line
    assert words in error.value.message


def test_token_id_twice_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, '<r><text>\n<node id="1"/>a <node id="2"/>b\n<node id="1"/>c</text></r>')
    with pytest.raises(InputError, match="used twice") as error:
        read_are(path)
    assert error.value.line == 3


def test_billion_laughs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="entity declaration") as error:
        read_are(write(tmp_path, BILLION_LAUGHS))
    assert error.value.line is not None and error.value.line <= 4


def test_external_entity_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="entity declaration"):
        read_are(write(tmp_path, EXTERNAL_ENTITY))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_are(tmp_path / "absent.xml")


def test_xml_details_comments_cdata_quotes_references(tmp_path: Path) -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- <chain><node id="x"/></chain> -->\n'
        "<r><![CDATA[<chain><node id='y'/></chain>]]>\n"
        "<chain id='c&#49;' ><node id = '1' type='pronoun' value='a > b'/>"
        '<node id="&#50;" type="PRONOUN"/><node\n id="3&amp;4"/></chain>'
        "<?pi <chain/> ?></r>"
    )
    f = read_are(write(tmp_path, text))
    assert f.chain_sizes.tolist() == [3]
    assert texts(f, f.members.id) == ["1", "2", "3&4"]
    assert f.pronominal.tolist() == [True, True, False]


def test_other_encodings_and_doctypes_are_read_by_the_checked_parser(tmp_path: Path) -> None:
    path = tmp_path / "latin.xml"
    path.write_bytes(
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<r><chain id="é"><node id="é1"/>'
        "</chain></r>".encode("latin-1")
    )
    f = read_are(path)
    assert texts(f, f.members.id) == ["é1"]
    doctype = write(
        tmp_path,
        '<!DOCTYPE r [<!ATTLIST node type CDATA "pronoun">]>\n<r><chain><node id="1"/></chain></r>',
        "d.xml",
    )
    assert read_are(doctype).pronominal.tolist() == [True]  # the DTD's default


def _random_file(seed: int) -> str:
    rnd = random.Random(seed)
    parts = ["<?xml version='1.0'?>\n<corpus>\n"]
    for d in range(rnd.randint(1, 3)):
        parts.append(f'<document id="d{d}">\n<text>\n')
        for t in range(rnd.randint(0, 30)):
            quote = rnd.choice(['"', "'"]) if rnd.random() < 0.2 else '"'
            extra = ' value="w"' if rnd.random() < 0.1 else ""
            parts.append(f"<node id={quote}{d}-{t}{quote}{extra}/>w{t}")
            parts.append(rnd.choice([" ", "\n", " <!-- c --> ", " &amp; "]))
            if rnd.random() < 0.1:
                parts.append(f'<entity id="e{t}">x</entity>')
        parts.append("</text>\n<anaphoric_pronouns>")
        parts += [f'<pronoun id="e{i}"/>' for i in range(rnd.randint(0, 3))]
        parts.append("</anaphoric_pronouns>\n")
        for c in range(rnd.randint(0, 4)):
            parts.append(f'<chain id="c{c}">\n')
            for m in range(rnd.randint(1, 4)):
                kind = rnd.choice(["node", "mention"])
                typed = ' type="pronoun"' if rnd.random() < 0.3 else ""
                if kind == "node":
                    parts.append(f'<node id="{c}.{m}"{typed}/>\n')
                else:
                    parts.append(f'<mention start="{m}" end="{m + 1}"{typed}/>')
            parts.append("</chain>\n")
        for p in range(rnd.randint(0, 3)):
            parts.append(
                f'<pair id="p{p}">\n<pronoun start="{p}" end="{p}"/>'
                f'<antecedent id="{p + 1}"/></pair>\n'
            )
        parts.append("</document>\n")
    parts.append("</corpus>\n")
    return "".join(parts)


@pytest.mark.parametrize("seed", range(30))
def test_lines_name_each_element(tmp_path: Path, seed: int) -> None:
    """The lines the checked parser records are where each element is written."""
    data = _random_file(seed)
    f = _parse_are(tmp_path / "x.xml", data.encode())
    lines = data.split("\n")
    found = f.lines()
    for line, element in zip(found.members, found.elements, strict=True):
        assert f"<{element}" in lines[line - 1]
    for line in found.pairs:
        assert "<pair" in lines[line - 1]
    for line in found.chains:
        assert "<chain" in lines[line - 1]
    assert len(found.documents) == len(f.keys)


# --- the scan: pinned to the checked parser ----------------------------------------------------


KINDS = ("tokens", "entities", "id-chains", "span-chains", "id-pairs", "span-pairs")


def _plain_file(seed: int, kind: str | None = None) -> str:
    """A file of one of the layouts the scan reads (canonical decimal ids, the attributes in
    their order, double quotes), with random white space, values, marks and documents."""
    rnd = random.Random(seed)
    kind = kind or rnd.choice(KINDS)
    space = ["", "", " ", "\n", "\n  "]
    parts = ["<?xml version='1.0' encoding='UTF-8'?>\n" if rnd.random() < 0.5 else ""]
    parts.append("<corpus>")
    documents = rnd.random() < 0.7
    for d in range(rnd.randint(1, 3) if documents else 1):
        if documents:
            parts.append(
                rnd.choice(space)
                + (f'<document id="d{d}">' if rnd.random() < 0.8 else "<document>")
            )

        def number() -> str:
            return str(rnd.choice([0, 1, 7, 42, rnd.randrange(10**6), 10**17 + rnd.randrange(10)]))

        def value() -> str:
            return rnd.choice(["", ' value="w"', ' value="a > b"', ' value="&amp; x"'])

        if kind == "tokens":
            words = [
                f'<node id="{t + 1}"/>' + rnd.choice(["w", "a b", "x\n"]) + " "
                for t in range(rnd.randint(0, 12))
            ]
            parts.append("<text>" + "".join(words) + "</text>")
        elif kind == "entities":
            words = [
                f'<entity id="{number()}">w</entity> x{rnd.choice(space)}'
                for _ in range(rnd.randint(0, 6))
            ]
            parts.append("<text>" + "".join(words) + "</text>")
            if rnd.random() < 0.8:
                listed = "".join(
                    rnd.choice(space) + f'<pronoun id="{number()}"{value()}/>'
                    for _ in range(rnd.randint(0, 3))
                )
                parts.append(
                    rnd.choice(space) + f"<anaphoric_pronouns>{listed}</anaphoric_pronouns>"
                )
        elif kind in ("id-chains", "span-chains"):
            for c in range(rnd.randint(0, 4)):
                head = f'<chain id="c{c}">' if rnd.random() < 0.8 else "<chain>"
                members = []
                for _ in range(rnd.randint(0, 4)):
                    typed = ' type="pronoun"' if rnd.random() < 0.3 else ""
                    if kind == "id-chains":
                        members.append(f'<node id="{number()}"{value()}{typed}/>')
                    else:
                        members.append(
                            f'<mention start="{number()}" end="{number()}"{value()}{typed}/>'
                        )
                parts.append(
                    rnd.choice(space)
                    + head
                    + "".join(rnd.choice(space) + m for m in members)
                    + "</chain>"
                )
        else:
            for p in range(rnd.randint(0, 3)):
                if kind == "id-pairs":
                    pronoun, antecedent = f'id="{number()}"', f'id="{number()}"'
                else:
                    pronoun = f'start="{number()}" end="{number()}"'
                    antecedent = f'start="{number()}" end="{number()}"'
                parts.append(
                    rnd.choice(space) + f'<pair id="p{p}"><pronoun {pronoun}{value()}/>'
                    f"{rnd.choice(space)}<antecedent {antecedent}{value()}/></pair>"
                )
        if documents:
            parts.append(rnd.choice(space) + "</document>")
    parts.append(rnd.choice(space) + "</corpus>\n")
    return "".join(parts)


MUTATIONS = [
    "<",
    ">",
    "&",
    "&foo;",
    "&#0;",
    "&#65;",
    "\r",
    "\x01",
    "]]>",
    "</chain>",
    "<chain>",
    "</entity>",
    "<entity id='z'>",
    '<node id="1" id="2"/>',
    '<pair><pronoun id="1"/></pair>',
    '<pronoun id="9"/>',
    "<!DOCTYPE r>",
    '<!ENTITY x "y">',
    "<?pi x?>",
    "<!-- c -->",
    "<![CDATA[x]]>",
    ' xmlns="u"',
    "<a:b/>",
    "<r/>",
    "\u00e9",
    "\ufffe",
    '"',
    "=",
    " ",
    "",
]


def _outcome(path: Path, data: bytes) -> object:
    """The checked parser's result or error."""
    try:
        parsed = _parse_are(path, data)
    except InputError as error:
        return ("error", error.message, error.line)
    return ("file", shape(parsed), parsed.lines())


def test_the_scan_reads_plain_files_as_the_checked_parser_does(tmp_path: Path) -> None:
    for seed in range(120):
        data = _plain_file(seed, KINDS[seed % len(KINDS)]).encode()
        scanned = scan_are(tmp_path / "x.xml", data)
        assert scanned is not None, seed
        assert ("file", shape(scanned), scanned.lines()) == _outcome(tmp_path / "x.xml", data)
        assert parse_are(tmp_path / "x.xml", data).source.lines is None  # the scan read it


@pytest.mark.parametrize("seed", range(40))
def test_the_scan_agrees_with_the_checked_parser_on_damaged_files(
    tmp_path: Path, seed: int
) -> None:
    """Random damage anywhere (malformed XML, unsafe declarations, structural errors): what the
    scan accepts, the checked parser reads to the same columns; the rest it declines."""
    rnd = random.Random(seed)
    text = _plain_file(seed, KINDS[seed % len(KINDS)])
    path = tmp_path / "x.xml"
    for _ in range(25):
        at = rnd.randrange(len(text) + 1)
        cut = rnd.choice([0, 0, 1, 3])
        damaged = text[:at] + rnd.choice(MUTATIONS) + text[at + cut :]
        data = damaged.encode("utf-8", "surrogatepass")
        scanned = scan_are(path, data)
        if scanned is not None:
            assert _outcome(path, data) == ("file", shape(scanned), scanned.lines()), damaged


def test_declarations_are_never_read_by_the_scan(tmp_path: Path) -> None:
    """No DOCTYPE, hence no entity declaration, ever reaches the scan: the only references
    it accepts are the five predefined ones and character references, so nothing can expand
    and nothing outside the file is read."""
    for text in (BILLION_LAUGHS, EXTERNAL_ENTITY, '<r a="&x;"/>', "<r>&#0;</r>"):
        assert scan_are(tmp_path / "x.xml", text.encode()) is None


def test_a_character_reference_of_5000_digits_is_bad_input(tmp_path: Path) -> None:
    """Found by the reliability audit: the scan converted the reference to a number (Python's
    4,300-digit limit: exit 1); it declines it and the checked parser names file and line."""
    path = write(tmp_path, f'<r>\n<chain><node id="1" value="&#{"9" * 5000};"/></chain></r>')
    assert scan_are(path, path.read_bytes()) is None
    with pytest.raises(InputError, match="not well-formed") as error:
        read_are(path)
    assert (error.value.path, error.value.line) == (str(path), 2)


def test_token_ids_in_any_order_are_read_by_the_scan(tmp_path: Path) -> None:
    numbered = read_are(write(tmp_path, '<r><text><node id="1"/>a <node id="2"/>b</text></r>'))
    other = read_are(write(tmp_path, '<r><text><node id="2"/>a <node id="1"/>b</text></r>', "o"))
    assert numbered.tokens.tolist() == [1, 2] and other.tokens.tolist() == [2, 1]
    assert other.source.lines is None  # scanned
    twice = write(tmp_path, '<r><text>\n<node id="2"/>a <node id="1"/>b\n<node id="2"/></text></r>')
    assert scan_are(twice, twice.read_bytes()) is None  # the checked parser says where
    with pytest.raises(InputError, match="used twice") as error:
        read_are(twice)
    assert error.value.line == 3


def test_an_unknown_encoding_in_the_declaration_is_bad_input(tmp_path: Path) -> None:
    """Found by the fuzz test: ``encoding="TTF-8"`` made expat raise LookupError (exit 1)."""
    path = tmp_path / "a.xml"
    path.write_bytes(b'<?xml version="1.0" encoding="TTF-8"?>\n<chains></chains>\n')
    with pytest.raises(InputError, match="cannot decode the XML"):
        read_are(path)


def test_files_of_tokens_are_read_only_when_their_grammar_accepts_them(tmp_path: Path) -> None:
    """A file of tokens is proved with arrays, not with its regular expression: whatever the
    arrays accept, the expression (the shape's definition) accepts too, damaged or not, and the
    checked parser reads it to the same columns."""
    import re

    from annoscore.formats.are_columns import _BODIES, _S

    path = tmp_path / "i.xml"
    grammars = [
        re.compile(
            f'(?:{_S}<document(?: id="[^"<&\t\n\r]*+")?>{_BODIES["tokens"]}{_S}</document>)*+{_S}'
        ),
        re.compile(f"{_BODIES['tokens']}{_S}"),
    ]
    edits = ["<", '"', " ", "/>", "<x/>", '<node id="1"/>', "</text>", "<text>", "\x01", "0"]
    edits += ["<document>", "</document>", "<node id='1'/>", '<node  id="1"/>', "a", ">"]
    accepted = 0
    for seed in range(20):
        rnd = random.Random(400 + seed)
        text = _plain_file(400 + seed, "tokens")
        assert scan_are(path, text.encode()) is not None
        accepted += _damaged_tokens(rnd, text, path, grammars, edits)
    assert accepted > 40


def _damaged_tokens(
    rnd: random.Random, text: str, path: Path, grammars: list[Any], edits: list[str]
) -> int:
    accepted = 0
    for _ in range(60):
        at = rnd.randrange(len(text) + 1)
        damaged = text[:at] + rnd.choice(edits) + text[at + rnd.randrange(3) :]
        scanned = scan_are(path, damaged.encode())
        if scanned is None:
            continue
        accepted += 1
        body = damaged[damaged.index("<corpus>") + 8 : damaged.rindex("</")]
        assert any(g.fullmatch(body) for g in grammars), damaged
        assert _outcome(path, damaged.encode()) == ("file", shape(scanned), scanned.lines())
    return accepted


@pytest.mark.parametrize("insert", ["\x01", "\x1f", "<!-- c -->", "<?pi x?>"])
def test_control_characters_comments_and_instructions_go_to_the_checked_parser(
    tmp_path: Path, insert: str
) -> None:
    for seed, kind in enumerate(KINDS):
        text = _plain_file(seed, kind)
        at = text.index(">", text.index("<corpus")) + 1
        assert scan_are(tmp_path / "x.xml", (text[:at] + insert + text[at:]).encode()) is None
    doctype = "<!DOCTYPE corpus>\n" + _plain_file(0, "tokens")
    assert scan_are(tmp_path / "x.xml", doctype.encode()) is None


def test_a_regular_file_the_scan_read_is_read_again_only_to_name_a_line(tmp_path: Path) -> None:
    """Its bytes are not kept (memory as the scan alone); a file changed in between is an
    error, not a wrong line."""
    path = write(tmp_path, '<r>\n<chain><node id="1"/>\n<node id="2"/></chain></r>')
    f = read_are(path)
    assert f.source.lines is None and f.source.data is None
    assert f.lines().members == [2, 3]
    again = read_are(path)
    path.write_text('<r>\n\n<chain><node id="1"/><node id="2"/></chain></r>', encoding="utf-8")
    with pytest.raises(InputError, match="changed while annoscore was reading it"):
        again.lines()
