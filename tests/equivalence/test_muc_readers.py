"""The MUC readers' scans held to their checked parsers (and the SGML one to its first version).

One reader per format (../shared/spec/design.md, "Fast paths"): ``_scan_templates`` and
``_scan_sgml`` read the common files or decline (None); ``_parse_templates`` and ``_parse_sgml``
read every file and name the first error.  On random files, clean and mangled, with the rare
syntax and the adversarial ids of :mod:`tests.equivalence.ids` mixed in anywhere:

- the scan gives the checked parser's documents (every line and column included) or declines,
  and declines only where it should (a clean SGML file is always scanned);
- the public reader gives the checked parser's documents or the same first error;
- the SGML checked parser gives the documents or the error of the reader as first written
  (tests/oracles/muc_sgml.py).

Both scans are reached and both decline in every run (checked).  Neither reader gives warnings
(the tasks derive theirs from the documents), so equal documents are equal warnings.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import (
    SgmlDocument,
    SgmlMarkup,
    _parse_sgml,
    _scan_sgml,
    parse_sgml,
)
from annoscore.formats.muc_template import _parse_templates, _scan_templates, parse_templates
from tests.equivalence.ids import id_pool
from tests.oracles.muc_sgml import reference_parse

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))

Outcome = object
"""Documents, or (message, path, line) of the error."""


def _outcome(read: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    """``read(*args, **kwargs)``, or the error it raises as (message, path, line)."""
    try:
        return read(*args, **kwargs)
    except InputError as error:
        return ("error", error.message, error.path, error.line)


def _sgml(read: Callable[..., list[SgmlDocument]], *args: Any, **kwargs: Any) -> Outcome:
    """:func:`_outcome` of an SGML reader, its documents as tuples."""
    return _outcome(lambda: _documents(read(*args, **kwargs)))


# --------------------------------------------------------------------------- templates

blanks = st.sampled_from(["", " ", "  ", "\t", "    ", " \t"])
COMMON_FILLS = ['"a b"', '"Evergreen Inc."', "'q r'", "COMPANY", "<A-1-1>", "<ORG-2-x-3>", ">x"]
RARE_FILLS = [
    *("OPTIONAL", "OPT", "opt", "MAYBE", "<B-1>", "<A--1>", "<>", "<A-1-1", "<A-1-1 >", "x/y"),
    *('"a [b] c"', '"[b]"', '"a [b] [c]"', '"a ]b["', "a[b]", '""', "''", "'[b]'", "'a]'"),
    *("/COMPANY", "/", '/"a"', "Z\u00fcrich", '"open', "'x'y", "'open", "a\u00a0b", "\u00e9"),
    *('ab"', "x'", "w<", '"a"b', "<A-1-1>x", "'a''b'", '"\u00e9 \u00e8"'),
    *('"a\u2028b"', '"a\x85b"', '"a\x0cb"', '"a\rb"', "a\u2028b", '"\u00a0"', '"a\x1cb"'),
]
common_fills = st.sampled_from(COMMON_FILLS)
rare_fills = st.one_of(
    st.sampled_from(RARE_FILLS),
    st.text(alphabet="aZ .,'\"[]/<>-1\u00e9\u2028\r\x0b", max_size=6).map(lambda s: f'"{s}"'),
    st.text(alphabet='aZ .,"[]/<>-1\u00e9\u2028', max_size=6).map(lambda s: f"'{s}'"),
)
any_fills = st.sampled_from(COMMON_FILLS + RARE_FILLS) | rare_fills
names = st.sampled_from(["S", "T", "s", "ORG_NAME", "N.x-y", "t\u00e9"])
status_lines = st.sampled_from(
    ["  OBJ_STATUS: OPTIONAL", "  obj_status: OPT", "  OBJ_STATUS:", "  OBJ_STATUS: MAYBE"]
)
document_ids = st.sampled_from(["1", "93-1", "2"]) | st.integers(0, 10**6).map(
    lambda seed: id_pool(random.Random(seed), 1, forbidden="<> \t\n\r")[0]
)


@st.composite
def fills(draw: st.DrawFn) -> str:
    return draw(rare_fills if draw(st.integers(0, 11)) == 0 else common_fills)


@st.composite
def header_lines(draw: st.DrawFn, document: str, number: int) -> str:
    if draw(st.integers(0, 29)) == 0:  # malformed, unusual, or an order error
        return draw(
            st.sampled_from(
                [
                    "<BAD> :=",
                    "<A-1-1>",
                    "<A-1-1> := x",
                    "\u00a0<A-9-9> :=",
                    "<A-1-1-1>:=",
                    "<P-1-1> :=",
                ]
            )
        )
    cls = draw(st.sampled_from(["A", "ORG", "P", "\u00c4"]))
    indent = draw(st.sampled_from(["", "", " ", "\t", "\u00a0", "\u2028"]))
    return f"{indent}<{cls}-{document}-{number}>{draw(blanks)}:={draw(blanks)}"


@st.composite
def slot_lines(draw: st.DrawFn, name: str) -> str:
    values = (
        draw(st.lists(fills(), max_size=2)) if draw(st.integers(0, 4)) == 0 else [draw(fills())]
    )
    gap = draw(st.sampled_from(["", " ", " ", "\t", "  "]))
    return f"{draw(blanks)}{name}:{gap}{' '.join(values)}{draw(blanks)}"


@st.composite
def other_lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 15))
    if kind < 10:  # a continuation line, perhaps an alternative
        alternative = "/" if kind >= 6 else ""
        return "     " + alternative + " ".join(draw(st.lists(fills(), min_size=1, max_size=2)))
    if kind < 15:
        return draw(st.sampled_from(["", "   ", "; a comment", "# another", "\t", "\x0c"]))
    return draw(st.sampled_from(["x y", "S x", "<A-1-1>"]))


@st.composite
def template_files(draw: st.DrawFn) -> tuple[str, bool]:
    """Mostly well-formed objects (unique ids, documents in runs, slots unique), anything else
    sprinkled; lines end in \\n or \\r\\n, and now and then in a character that is text
    (a lone \\r, \\v, U+2028, U+0085)."""
    keys_syntax = draw(st.booleans())
    lines: list[str] = []
    documents = [draw(document_ids) for _ in range(3)]
    document = 0
    for number in range(1, draw(st.integers(0, 6)) + 1):
        if draw(st.integers(0, 3)) == 0:  # the next document, or rarely back to the first
            document = 0 if draw(st.integers(0, 9)) == 0 else min(document + 1, 2)
        lines.append(draw(header_lines(documents[document], number)))
        slots = draw(st.lists(names, max_size=4, unique_by=str.lower))
        if draw(st.integers(0, 19)) == 0:
            slots.append(draw(names))  # perhaps a repeated slot
        for name in slots:
            lines.append(draw(slot_lines(name)))
            if draw(st.integers(0, 7)) == 0:  # a continuation line, a comment, a blank line
                lines.append(draw(other_lines()))
        if draw(st.integers(0, 5 if keys_syntax else 40)) == 0:
            lines.append(draw(status_lines))
    if lines and draw(st.integers(0, 19)) == 0:  # a stray line anywhere, even before a header
        lines.insert(draw(st.integers(0, len(lines))), draw(slot_lines("S") | other_lines()))
    breaks = [draw(st.sampled_from(["\n"] * 4 + ["\r\n"]))] * len(lines)
    if lines and draw(st.integers(0, 9)) == 0:
        breaks[draw(st.integers(0, len(lines) - 1))] = draw(
            st.sampled_from(["\r", "\r\r\n", "\x0b", "\u2028", "\x85\n", "\x1c\n"])
        )
    text = "".join(line + end for line, end in zip(lines, breaks, strict=True))
    return (text[:-1] if text and draw(st.integers(0, 4)) == 0 else text), keys_syntax


TEMPLATE_PATHS: Counter[str] = Counter()


def _check_templates(text: str, keys_syntax: bool) -> None:
    path = Path("f.tpl")
    checked = _outcome(_parse_templates, text, path, keys_syntax, "OBJ_STATUS")
    public = _outcome(parse_templates, text, path, keys_syntax=keys_syntax)
    assert public == checked
    if "\x00" in text:
        return
    scanned = _scan_templates(text, path, "OBJ_STATUS")
    TEMPLATE_PATHS["declined" if scanned is None else "read"] += 1
    if scanned is not None:
        assert scanned == checked


@settings(max_examples=500 * SCALE, deadline=None)
@given(file=template_files())
def test_template_scan_reads_what_the_parser_reads_or_declines(file: tuple[str, bool]) -> None:
    _check_templates(*file)


@settings(max_examples=100 * SCALE, deadline=None)
@given(file=template_files())
def test_template_crlf_reads_as_lf(file: tuple[str, bool]) -> None:
    text, keys_syntax = file
    unix = text.replace("\r", "")
    path = Path("f.tpl")
    crlf = unix.replace("\n", "\r\n")
    assert _outcome(parse_templates, crlf, path, keys_syntax=keys_syntax) == _outcome(
        _parse_templates, unix, path, keys_syntax, "OBJ_STATUS"
    )


@settings(max_examples=300 * SCALE, deadline=None)
@given(
    objects=st.lists(
        st.lists(st.tuples(st.sampled_from(["", " ", "\t"]), any_fills), max_size=3),
        max_size=3,
    ),
    keys_syntax=st.booleans(),
)
def test_any_fill_on_a_slot_line(objects: list[list[tuple[str, str]]], keys_syntax: bool) -> None:
    """Well-formed objects whose slots hold one fill each, common or rare (the first error, if
    any, comes from a fill)."""
    lines: list[str] = []
    for number, values in enumerate(objects, start=1):
        lines.append(f"<A-1-{number}> :=")
        lines.extend(f"  S{slot}:{gap}{value}" for slot, (gap, value) in enumerate(values))
    _check_templates("\n".join(lines), keys_syntax)


@pytest.mark.parametrize("fill", COMMON_FILLS + RARE_FILLS)
@pytest.mark.parametrize("keys_syntax", [True, False])
def test_every_listed_fill_alone_on_a_slot_line(fill: str, keys_syntax: bool) -> None:
    for gap in ("", " ", "\t"):
        _check_templates(f"<A-1-1> :=\n  S:{gap}{fill}\n  T: x\n", keys_syntax)


@pytest.mark.parametrize("uncommon_every", [0, 3, 40])
def test_long_files_read_the_same_scanned_or_parsed(uncommon_every: int) -> None:
    """3,000 objects: all common lines (scanned), or some objects with continuation lines and
    unquoted multi-word fills (the whole file parsed); the parser's documents either way."""
    lines: list[str] = []
    for number in range(1, 3001):
        lines += [f"<ORG-{number // 20}-{number}> :=", '    ORG_NAME: "Acme Corp."']
        lines += ["    ORG_TYPE: COMPANY", f"    LEADER: <PER-{number // 20}-1>"]
        if uncommon_every and number % uncommon_every == 0:
            lines += [
                '    ORG_ALIAS: "Acme"',
                '               "Acme Widget"',
                "    ORG_LOCALE: A B",
            ]
    text = "\n".join(lines) + "\n"
    scanned = _scan_templates(text, Path("f.tpl"), "OBJ_STATUS")
    assert (scanned is None) == bool(uncommon_every)
    documents = parse_templates(text, Path("f.tpl"), keys_syntax=False)
    assert documents == _parse_templates(text, Path("f.tpl"), False, "OBJ_STATUS")
    assert sum(len(d.objects) for d in documents) == 3000
    assert documents[-1].objects[-1].slots[-1].fills[0].line == len(lines)


def test_both_template_paths_were_taken() -> None:
    """Runs after the tests above (file order): the scan read some files, declined others."""
    if not TEMPLATE_PATHS:
        pytest.skip("run with the generated-file tests above")  # a lone -k selection
    assert TEMPLATE_PATHS["read"] and TEMPLATE_PATHS["declined"]


# --------------------------------------------------------------------------- SGML

NE = ("ENAMEX", "TIMEX", "NUMEX")
WORDS = [
    *("Acme", "Corp.", "the", "a < b", "x > y", "1993", "<p>", "</p>", "&amp;", "\n", "q'"),
    *("\u2028", "\u00e9t\u00e9", "\r\n", "\x0c", "<!-- c -->", "x <y>"),
]
ATTRIBUTES = ["", ' ALT="a|b"', " STATUS=OPT", ' C="*q*"', "\n ID=3", " X='a>b'", ' Y="<i>"']
ATTRIBUTES += [" n.s:x-1 = v", " _Z", ' E=""']


def _element(rng: random.Random, depth: int, values: list[str]) -> str:
    gid = rng.choice([*NE, "enamex", "Timex"])
    quote = rng.choice(['"', "'", ""])
    kind = rng.choice(["PERSON", *values]) if quote else "PERSON"
    head = f"<{gid} TYPE={quote}{kind}{quote}{rng.choice(ATTRIBUTES)}{rng.choice(['', ' ', '/'])}>"
    inner = [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
    if depth < 2 and rng.random() < 0.3:
        inner.insert(rng.randint(0, len(inner)), _element(rng, depth + 1, values))
    close = gid if rng.random() < 0.8 else gid.lower()
    return head + " ".join(inner) + f"</{close}{rng.choice(['', ' '])}>"


def _random_sgml(rng: random.Random) -> str:
    values = id_pool(rng, 4, forbidden="\"'<>&*|")
    out = []
    for d in range(rng.randint(1, 5)):
        number = rng.choice([f"{d}-{rng.randint(0, 9)}", f"{d}\u0663", f"{d} {rng.choice(values)}"])
        out.append(f"<DOC>\n<DOCNO> {number} </DOCNO>\n")
        for section in ("HL", "TXT", "TRAILER"):
            out.append(f"<{section}>" if rng.random() < 0.9 else f"<{section.lower()}>")
            for _ in range(rng.randint(0, 12)):
                if rng.random() < 0.4:
                    out.append(_element(rng, 0, values))
                else:
                    out.append(rng.choice(WORDS))
                out.append(rng.choice([" ", "\n", ""]))
            out.append(f"</{section}>\n")
        out.append("</DOC>\n")
    return "".join(out)


def _mangle(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 5)):
        at = rng.randrange(len(chars))
        if rng.random() < 0.5:
            del chars[at]
        else:
            chars.insert(
                at, rng.choice(["<", ">", "/", '"', "'", "=", " ", "\n", "<!--", "\u00e9"])
            )
    return "".join(chars)


def _documents(documents: list[SgmlDocument]) -> list[object]:
    return [(d.number, d.text, d.tags, d.line, d.path, d.outside) for d in documents]


@pytest.mark.parametrize("seed", range(8))
def test_sgml_scan_parser_and_first_version_agree(seed: int) -> None:
    rng = random.Random(seed)
    paths: Counter[str] = Counter()
    for round_number in range(100 * SCALE):
        text = _random_sgml(rng)
        mangled = round_number % 2 == 1
        if mangled:
            text = _mangle(text, rng)
        sections = rng.choice([("HL", "TXT"), ("TXT",), ("DOC", "TXT"), ("TEXT",), ("hl", "Txt")])
        checked = _sgml(_parse_sgml, text, "f.sgml", NE, SgmlMarkup(sections=sections))
        first = _sgml(reference_parse, text, "f.sgml", NE, sections=sections)
        public = _sgml(parse_sgml, text, "f.sgml", NE, SgmlMarkup(sections=sections))
        assert checked == first, text
        assert public == checked, text
        scanned = _scan_sgml(text, "f.sgml", NE, SgmlMarkup(sections=sections))
        if scanned is None:
            paths["declined"] += 1
            assert mangled or "<!--" in text or "<y>" in text, "a clean file must be scanned"
        else:
            paths["read"] += 1
            assert _documents(scanned) == checked, text
    assert paths["read"] and paths["declined"]


def test_sgml_scan_declines_on_comments_and_tags_inside_tags() -> None:
    base = '<DOC><DOCNO>1</DOCNO><TXT><ENAMEX TYPE="A">x</ENAMEX>{}</TXT></DOC>'
    assert _scan_sgml(base.format(""), "f", NE, SgmlMarkup(sections=("TXT",))) is not None
    for odd in ("<!-- <ENAMEX> -->", '<p title="<ENAMEX>">', "<p", "<ENAMEX\u00e9>"):
        text = base.format(odd)
        assert _scan_sgml(text, "f", NE, SgmlMarkup(sections=("TXT",))) is None, odd
        checked = _sgml(_parse_sgml, text, "f", NE, SgmlMarkup(sections=("TXT",)))
        assert _sgml(parse_sgml, text, "f", NE, SgmlMarkup(sections=("TXT",))) == checked


def test_sgml_reader_equals_the_first_version_on_the_samples() -> None:
    from annoscore.samples import sample_path

    for name, gids in (("ne.key.sgml", NE), ("co.key.sgml", ("COREF",))):
        text = sample_path("muc", name).read_text()
        sections = ("HL", "DD", "TXT", "TEXT")
        assert parse_sgml(text, "s", gids, SgmlMarkup(sections=sections)) == reference_parse(
            text, "s", gids, sections=sections
        )


def test_equal_attribute_texts_share_one_read_only_mapping() -> None:
    text = '<DOC><DOCNO>1</DOCNO><TXT><ENAMEX TYPE="A">x</ENAMEX> <ENAMEX TYPE="A">y</ENAMEX>'
    text += '<ENAMEX TYPE="B">z</ENAMEX></TXT></DOC>'
    for read in (_scan_sgml, _parse_sgml):
        documents = read(text, "k", NE, SgmlMarkup(sections=("TXT",)))
        assert documents is not None
        first, second, third = documents[0].tags
        assert first.attributes is second.attributes
        assert third.attributes == {"TYPE": "B"}
        assert (first.line, first.column, third.column) == (1, 27, 82)
