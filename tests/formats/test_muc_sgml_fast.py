"""The MUC SGML reader's two scanners pinned to each other.

:func:`_scan_sgml` (one regular expression over the task, document and section tags; whole
elements in one step) reads well-formed files and gives up (None) on anything else;
:func:`_parse_sgml` (one step per ``<``) reads every file and names every error.  On random
files, clean and mangled, the fast scanner must give the checked scanner's documents or give up,
and give up only where it should (an error, a comment, a ``<`` inside a tag).
"""

from __future__ import annotations

import random

import pytest

from annoscore.errors import InputError
from annoscore.formats.muc_sgml import SgmlDocument, _parse_sgml, _scan_sgml, parse_sgml

NE = ("ENAMEX", "TIMEX", "NUMEX")
WORDS = ["Acme", "Corp.", "the", "a < b", "x > y", "1993", "<p>", "</p>", "&amp;", "\n", "q'"]
ATTRIBUTES = ["", ' ALT="a|b"', " STATUS=OPT", ' C="*q*"', "\n ID=3", " X='a>b'", ' Y="<i>"']


def _element(rng: random.Random, depth: int) -> str:
    gid = rng.choice([*NE, "enamex", "Timex"])
    quote = rng.choice(['"', "'", ""])
    head = f"<{gid} TYPE={quote}PERSON{quote}{rng.choice(ATTRIBUTES)}{rng.choice(['', ' ', '/'])}>"
    inner = [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
    if depth < 2 and rng.random() < 0.3:
        inner.insert(rng.randint(0, len(inner)), _element(rng, depth + 1))
    close = gid if rng.random() < 0.8 else gid.lower()
    return head + " ".join(inner) + f"</{close}{rng.choice(['', ' '])}>"


def _random_file(rng: random.Random) -> str:
    out = []
    for d in range(rng.randint(1, 5)):
        out.append(f"<DOC>\n<DOCNO> {d}-{rng.randint(0, 9)} </DOCNO>\n")
        for section in ("HL", "TXT", "TRAILER"):
            out.append(f"<{section}>" if rng.random() < 0.9 else f"<{section.lower()}>")
            for _ in range(rng.randint(0, 12)):
                if rng.random() < 0.4:
                    out.append(_element(rng, 0))
                else:
                    out.append(rng.choice(WORDS))
                out.append(rng.choice([" ", "\n", ""]))
            out.append(f"</{section}>\n")
        out.append("</DOC>\n")
    return "".join(out)


def _mangle(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(chars))
        if rng.random() < 0.5:
            del chars[at]
        else:
            chars.insert(at, rng.choice(["<", ">", "/", '"', "'", "=", " ", "\n", "<!--", "é"]))
    return "".join(chars)


def _checked(text: str, sections: tuple[str, ...]) -> list[SgmlDocument] | InputError:
    try:
        return _parse_sgml(text, "f.sgml", NE, "DOC", "DOCNO", sections, "*")
    except InputError as error:
        return error


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_scanner_reads_what_the_checked_one_reads_or_gives_up(seed: int) -> None:
    rng = random.Random(seed)
    fast_read = gave_up = 0
    for round_number in range(80):
        text = _random_file(rng)
        mangled = round_number % 2 == 1
        if mangled:
            text = _mangle(text, rng)
        sections = rng.choice([("HL", "TXT"), ("TXT",), ("DOC", "TXT"), ("TEXT",)])
        expected = _checked(text, sections)
        fast = _scan_sgml(text, "f.sgml", NE, "DOC", "DOCNO", sections, "*")
        if fast is None:
            gave_up += 1
            assert mangled or "<!--" in text, "a clean file must take the fast path"
        else:
            fast_read += 1
            assert not isinstance(expected, InputError), text
            assert fast == expected, text
        # and the public reader is the checked one, errors included
        try:
            outcome: object = parse_sgml(text, "f.sgml", NE, sections=sections)
        except InputError as error:
            outcome = error
        if isinstance(expected, InputError):
            assert isinstance(outcome, InputError) and str(outcome) == str(expected)
        else:
            assert outcome == expected
    assert fast_read and gave_up


def test_the_fast_scanner_gives_up_on_comments_and_tags_inside_tags() -> None:
    base = '<DOC><DOCNO>1</DOCNO><TXT><ENAMEX TYPE="A">x</ENAMEX>{}</TXT></DOC>'
    assert _scan_sgml(base.format(""), "f", NE, "DOC", "DOCNO", ("TXT",), "*") is not None
    for odd in ("<!-- <ENAMEX> -->", '<p title="<ENAMEX>">', "<p", "<ENAMEXé>"):
        text = base.format(odd)
        assert _scan_sgml(text, "f", NE, "DOC", "DOCNO", ("TXT",), "*") is None, odd
        expected = _checked(text, ("TXT",))
        try:
            outcome: object = parse_sgml(text, "f.sgml", NE, sections=("TXT",))
        except InputError as error:
            outcome = error
        assert (
            str(outcome) == str(expected)
            if isinstance(expected, InputError)
            else outcome == expected
        )
