"""The ARE XML reader: shapes, layouts, safety (defusedxml) and errors naming file and line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from annoscore.errors import InputError
from annoscore.formats.are import AreFile, parse_are, read_are

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


def shape(f: AreFile) -> list[object]:
    """Everything a reader produces, without lines (to compare the two parsing ways)."""
    out: list[object] = []
    for d in f.documents:
        out.append(
            (
                d.key,
                sorted(d.entities),
                dict(d.tokens),
                [(r.id, r.pronoun) for r in d.listed],
                d.has_list,
                [
                    (
                        p.id,
                        (p.pronoun.id, p.pronoun.start, p.pronoun.end),
                        (p.antecedent.id, p.antecedent.start, p.antecedent.end),
                    )
                    for p in d.pairs
                ],
                [(c.id, [(m.id, m.start, m.end, m.pronoun) for m in c.members]) for c in d.chains],
            )
        )
    return out


def lines(f: AreFile) -> list[int]:
    out = []
    for d in f.documents:
        out.append(d.line)
        out += [p.line for p in d.pairs] + [p.pronoun.line for p in d.pairs]
        out += [c.line for c in d.chains] + [m.line for c in d.chains for m in c.members]
    return out


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
    (doc,) = f.documents
    assert doc.entities == {"1", "2"}
    assert [r.id for r in doc.listed] == ["2"] and doc.has_list
    assert [(p.pronoun.id, p.antecedent.id, p.line) for p in doc.pairs] == [("2", "1", 4)]
    assert [[(m.id, m.pronoun) for m in c.members] for c in doc.chains] == [
        [("1", False), ("2", True)]
    ]
    assert dict(doc.tokens) == {"a": 0, "b": 1}


def test_are_own_shape_and_bare_text_root_both_work(tmp_path: Path) -> None:
    own = read_are(
        write(
            tmp_path,
            '<document><text><entity id="4">x</entity></text><anaphoric_pronouns>'
            '<pronoun id="4"/></anaphoric_pronouns></document>',
        )
    )
    assert own.documents[0].entities == {"4"}
    bare = read_are(write(tmp_path, '<text><node id="1"/>a <node id="2"/>b</text>', "b.xml"))
    assert dict(bare.documents[0].tokens) == {"1": 0, "2": 1}


def test_several_documents_any_case_with_ids(tmp_path: Path) -> None:
    f = read_are(
        write(
            tmp_path,
            '<corpus><DOCUMENT id="d1"><chain><node id="1"/></chain></DOCUMENT>\n'
            '<Document id="d2"><chain><node id="5"/></chain></Document></corpus>',
        )
    )
    assert [d.key for d in f.documents] == ["d1", "d2"]
    assert [d.line for d in f.documents] == [1, 2]


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
    assert [(p.pronoun.id, p.antecedent.id) for p in plain.documents[0].pairs] == [
        (p.pronoun.id, p.antecedent.id) for p in valued.documents[0].pairs
    ]


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
    assert shape(f)[0][6] == [
        ("c1", [("1", None, None, True), ("2", None, None, True), ("3&4", None, None, False)])
    ]


def test_other_encodings_and_doctypes_are_read_the_slow_way(tmp_path: Path) -> None:
    path = tmp_path / "latin.xml"
    path.write_bytes(
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<r><chain id="é"><node id="1"/>'
        "</chain></r>".encode("latin-1")
    )
    assert read_are(path).documents[0].chains[0].id == "é"
    doctype = write(
        tmp_path,
        '<!DOCTYPE r [<!ATTLIST node type CDATA "pronoun">]>\n<r><chain><node id="1"/></chain></r>',
        "d.xml",
    )
    assert read_are(doctype).documents[0].chains[0].members[0].pronoun  # the DTD's default


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


@pytest.mark.parametrize(
    "text",
    [
        '<chain id="r"><node id="1"/>\n<node id="2"/></chain>',
        '<r><chain\n id="c">\n <mention start="1" end="2"/>\n</chain >\n<chain/></r>',
        '<r><chain><node id="1" value="a/> b > c"/><node id="2" value=\'"/>\'/></chain></r>',
    ],
)
def test_fast_and_slow_parsing_agree_on_chain_blocks(tmp_path: Path, text: str) -> None:
    fast = parse_are(tmp_path / "x.xml", text.encode())
    slow = parse_are(tmp_path / "x.xml", text.encode(), fast=False)
    assert (shape(fast), lines(fast)) == (shape(slow), lines(slow))


@pytest.mark.parametrize("seed", range(30))
def test_fast_and_slow_parsing_agree(tmp_path: Path, seed: int) -> None:
    data = _random_file(seed).encode()
    fast = parse_are(tmp_path / "x.xml", data)
    slow = parse_are(tmp_path / "x.xml", data, fast=False)
    assert shape(fast) == shape(slow)
    assert lines(fast) == lines(slow)


# --- the fast way: pinned to the slow way (defusedxml's expat) --------------------------------


def _plain_file(seed: int) -> str:
    """A file of the benchmark's layout (what the fast way reads without falling back)."""
    rnd = random.Random(seed)
    parts = ["<?xml version='1.0' encoding='UTF-8'?>\n<corpus>\n"]
    for d in range(rnd.randint(1, 3)):
        parts.append(f'<document id="d{d}">\n<text>')
        for t in range(rnd.randint(0, 12)):
            word = rnd.choice(["w", "a > b", '"q"', "x\n"])
            if rnd.random() < 0.3:
                parts.append(f'<entity id="e{t}">{word}')
                if rnd.random() < 0.3:
                    parts.append(f'<entity id="f{t}">in</entity>')
                parts.append("</entity> ")
            else:
                parts.append(f'<node id="{t + 1}"/>{word} ')
        parts.append("</text>\n<anaphoric_pronouns>")
        parts += [f'<pronoun id="e{i}"/>\n' for i in range(rnd.randint(0, 3))]
        parts.append("</anaphoric_pronouns>\n")
        for c in range(rnd.randint(0, 4)):
            parts.append(f'<chain id="c{c}">')
            for m in range(rnd.randint(1, 4)):
                typed = ' type="pronoun"' if rnd.random() < 0.3 else ""
                if rnd.random() < 0.5:
                    parts.append(f'<node id="{c}.{m}" value="w"{typed}/>')
                else:
                    parts.append(f'<mention start="{m}" end="{m + 1}"{typed}/>')
                parts.append(rnd.choice(["", "\n", " "]))
            parts.append("</chain>\n")
        for p in range(rnd.randint(0, 3)):
            parts.append(
                f'<pair id="p{p}"><pronoun start="{p}" end="{p}"/>'
                f'{rnd.choice(["", chr(10)])}<antecedent id="{p + 1}"/></pair>\n'
            )
        parts.append("</document>\n")
    parts.append("</corpus>\n")
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


def _outcome(path: Path, data: bytes, fast: bool) -> object:
    try:
        parsed = parse_are(path, data, fast=fast)
    except InputError as error:
        return ("error", error.message, error.line)
    return ("file", shape(parsed), lines(parsed))


def test_the_fast_way_reads_plain_files_without_falling_back(tmp_path: Path) -> None:
    from annoscore.formats.are import _Builder, _fast_text, _scan

    for seed in range(20):
        data = _plain_file(seed).encode()
        text, body = _fast_text(data)
        builder = _Builder(tmp_path / "x.xml")
        _scan(text, body, builder)  # raises _NotFast if it had to fall back
        assert _outcome(tmp_path / "x.xml", data, True) == _outcome(tmp_path / "x.xml", data, False)


@pytest.mark.parametrize("seed", range(40))
def test_fast_and_slow_ways_agree_on_damaged_files(tmp_path: Path, seed: int) -> None:
    """Random damage anywhere (malformed XML, unsafe declarations, structural errors): the fast
    way gives exactly the slow way's result or error (message and line)."""
    rnd = random.Random(seed)
    text = _plain_file(seed)
    for _ in range(15):
        at = rnd.randrange(len(text) + 1)
        cut = rnd.choice([0, 0, 1, 3])
        damaged = text[:at] + rnd.choice(MUTATIONS) + text[at + cut :]
        data = damaged.encode("utf-8", "surrogatepass")
        path = tmp_path / "x.xml"
        assert _outcome(path, data, True) == _outcome(path, data, False), damaged


def test_declarations_are_never_read_the_fast_way() -> None:
    """No DOCTYPE, hence no entity declaration, ever reaches the fast way: the only references
    it accepts are the five predefined ones and character references, so nothing can expand
    and nothing outside the file is read."""
    from annoscore.formats.are import _fast_text, _NotFast

    for text in (BILLION_LAUGHS, EXTERNAL_ENTITY, '<r a="&x;"/>', "<r>&#0;</r>"):
        with pytest.raises(_NotFast):
            _fast_text(text.encode())


def test_numbered_token_ids_give_the_same_map_as_any_ids(tmp_path: Path) -> None:
    numbered = read_are(write(tmp_path, '<r><text><node id="1"/>a <node id="2"/>b</text></r>'))
    other = read_are(write(tmp_path, '<r><text><node id="2"/>a <node id="1"/>b</text></r>', "o"))
    assert dict(numbered.documents[0].tokens) == {"1": 0, "2": 1}
    assert dict(other.documents[0].tokens) == {"2": 0, "1": 1}


def test_an_unknown_encoding_in_the_declaration_is_bad_input(tmp_path: Path) -> None:
    """Found by the fuzz test: ``encoding="TTF-8"`` made expat raise LookupError (exit 1)."""
    path = tmp_path / "a.xml"
    path.write_bytes(b'<?xml version="1.0" encoding="TTF-8"?>\n<chains></chains>\n')
    with pytest.raises(InputError, match="cannot decode the XML"):
        read_are(path)
