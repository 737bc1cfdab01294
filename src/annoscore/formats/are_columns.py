"""The columnar scan of ARE XML files: a file of a usual layout into :class:`AreFile` columns
with NumPy, or ``None`` (the checked parser reads it).

:func:`scan_are` reads a file of one of the shapes the ARE tasks exchange (an input with token
nodes, an input with entities and the pronoun list, chains of ids or of mentions, pairs of ids
or of mentions), as one root element holding ``<document id="...">`` elements (or being the
only document), into the checked parser's columns without an object per element.  It declines
(``None``) every file it cannot prove well-formed and of a known shape, and every file the
checked parser would refuse.  How it proves well-formedness, at C level, on the bytes:

- the characters, the encoding and the references (:func:`_checked_bytes`): UTF-8 (or ASCII when
  declared), no CDATA section end, no carriage return but before a line feed, only the five
  predefined and valid character references, so nothing can expand and nothing outside the file
  is read;
- the root is a bare ``<name>`` and its end tag is followed by white space only, so there is
  no DOCTYPE, comment, processing instruction or namespace before or after it;
- the whole body between the root's start and end tags is what the shape's grammar
  (:data:`_BODIES`) accepts: well-formed XML where every tag is written
  ``<name attr="value" .../>`` with the attributes in a fixed order, separated by one space,
  values in double quotes without ``<``; elements nested as the shape says (chains of members,
  pairs of one pronoun and one antecedent, a ``<text>`` of words and token nodes, or of words
  and non-nested entities, then the pronoun list); only white space between elements; no
  control character XML forbids, no ``<!`` (not even a comment) and no ``<?`` anywhere.  One
  regular expression with possessive repeats matches it at once (:func:`_grammar`), except for
  a file of tokens (a million ``<node id="N"/>`` tags, which the expression would walk one by
  one): that is proved with arrays (:func:`_proved_tokens`, a test pins it to the expression);
- the columns are then taken from the positions of the ``<`` bytes (NumPy): each tag's kind is
  its first bytes, its values start at a fixed offset and end at the next ``"``, which the
  grammar has already proved.

Ids, token ids, starts and ends must each be written in canonical decimal (``"0"`` or digits not
starting with ``0``, at most 18 of them): their codes are their values, as the checked parser
gives them (:func:`annoscore.formats.are.codes`).  A file with any other id is declined.
``value`` attributes are matched but never read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "g.xml"
>>> data = (b'<r><chain id="c1"><node id="4" value="x"/>'
...         b'<node id="62" type="pronoun"/></chain></r>')
>>> f = scan_are(path, data)
>>> f.members.id.tolist(), f.pronominal.tolist(), f.chain_sizes.tolist()
([4, 62], [False, True], [2])
>>> scan_are(path, data.replace(b'"4"', b'"e4"')) is None   # the checked parser reads it
True
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from annoscore.formats.are import ABSENT, BOM, AreFile, Refs, Source, repeated_token
from annoscore.formats.files import is_xml_character

_S = "[ \t\r\n]*+"
_CONTROL = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f"
"""The control characters XML forbids: no class below matches them, so the grammar refuses them
anywhere in the body."""
_I = f'[^"<&\t\n\r{_CONTROL}]*+'
"""An id as written: no quote, ``<``, reference, tab or line end (so XML keeps it as is)."""
_V = f'[^"<{_CONTROL}]*+'
"""A ``value`` (never read)."""
_W = f"[^<{_CONTROL}]*+"
"""Words between tags."""
_VALUE = f'(?: value="{_V}")?+'
_PRONOUN = '(?: type="pronoun")?+'

_TOKENS = f'{_S}<text>(?:{_W}<node id="{_I}"/>)*+{_W}</text>'
_ENTITIES = (
    f'{_S}<text>(?:{_W}<entity id="{_I}">{_W}</entity>)*+{_W}</text>'
    f'(?:{_S}<anaphoric_pronouns>(?:{_S}<pronoun id="{_I}"{_VALUE}/>)*+{_S}</anaphoric_pronouns>)?+'
)
_ID_MEMBER = f'<node id="{_I}"{_VALUE}{_PRONOUN}/>'
_SPAN_MEMBER = f'<mention start="{_I}" end="{_I}"{_VALUE}{_PRONOUN}/>'
_ID_PART = f'id="{_I}"{_VALUE}/>'
_SPAN_PART = f'start="{_I}" end="{_I}"{_VALUE}/>'


def _chains(member: str) -> str:
    return f'(?:{_S}<chain(?: id="{_I}")?+>(?:{_S}{member})*+{_S}</chain>)*+'


def _pairs(part: str) -> str:
    return f'(?:{_S}<pair(?: id="{_I}")?+>{_S}<pronoun {part}{_S}<antecedent {part}{_S}</pair>)*+'


_BODIES = {
    "tokens": _TOKENS,
    "entities": _ENTITIES,
    "id-chains": _chains(_ID_MEMBER),
    "span-chains": _chains(_SPAN_MEMBER),
    "id-pairs": _pairs(_ID_PART),
    "span-pairs": _pairs(_SPAN_PART),
}


def _grammar(kind: str, documents: bool) -> re.Pattern[bytes]:
    """The body of a root holding documents, or of a root that is the only document, for one
    shape (compiled when first needed: a run reads two or three shapes of the six)."""
    key = (kind, documents)
    pattern = _COMPILED.get(key)
    if pattern is None:
        body = _BODIES[kind]
        text = (
            f'(?:{_S}<document(?: id="{_I}")?+>{body}{_S}</document>)*+{_S}'
            if documents
            else f"{body}{_S}"
        )
        pattern = _COMPILED[key] = re.compile(text.encode())
    return pattern


_COMPILED: dict[tuple[str, bool], re.Pattern[bytes]] = {}

_ROOT = re.compile(f"{_S}<([A-Za-z_][A-Za-z0-9_.-]*+)>".encode())
_CLOSE = re.compile(f"</([A-Za-z_][A-Za-z0-9_.-]*+)>{_S}".encode())
_DOCUMENT_KEY = re.compile(f'<document( id="({_I})")?>'.encode())
_LEAF = re.compile(b"<(mention |node |pronoun start=|pronoun id=|entity |anaphoric_pronouns>)")
_DECLARATION = re.compile(
    b"<\\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:\"1\\.0\"|'1\\.0')"
    b'(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"([A-Za-z][A-Za-z0-9._\\-]*)"|'
    b"'([A-Za-z][A-Za-z0-9._\\-]*)'))?"
    b"(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(?:\"(?:yes|no)\"|'(?:yes|no)'))?[ \t\r\n]*\\?>"
)
_REFERENCE = re.compile(rb"&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);")
_PRONOUN_MARK = b' type="pronoun"/>'

_LT, _QUOTE, _SLASH = 60, 34, 47


def _checked_bytes(data: bytes) -> int | None:
    """Where the body starts (after a byte-order mark and the XML declaration) when the bytes
    pass the checks of the module doc that the grammar does not make itself, else ``None``.

    The grammar (every byte of the body is in one of its classes or literals, none of which
    holds a control character, ``<!``, ``<?`` or an attribute but its own) and the root's and
    the end's patterns (``<name>``, white space) refuse the rest: a DOCTYPE, a comment, a
    processing instruction, a namespace declaration, a control character.
    """
    body = 0
    if not data.isascii():
        if b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data:
            return None
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if data.startswith(b"\xef\xbb\xbf"):
            body = 3
    if data.startswith(b"<?xml", body):
        declared = _DECLARATION.match(data, body)
        if declared is None:
            return None
        encoding = (declared.group(1) or declared.group(2) or b"utf-8").lower()
        if encoding not in (b"utf-8", b"us-ascii") or (
            encoding == b"us-ascii" and not data.isascii()
        ):
            return None
        body = declared.end()
    if (b"]" in data and b"]]>" in data) or (
        b"\r" in data and data.count(b"\r") != data.count(b"\r\n")
    ):
        return None
    if b"&" in data:
        references = _REFERENCE.findall(data)
        if len(references) != data.count(b"&"):
            return None
        for name in references:
            if name.startswith(b"#"):
                hexadecimal = name.startswith(b"#x")
                digits = name[2 if hexadecimal else 1 :].lstrip(b"0") or b"0"
                if len(digits) > 7:  # beyond any character (and never a 5,000-digit int)
                    return None
                if not is_xml_character(int(digits, 16 if hexadecimal else 10)):
                    return None
    return body


def _kind(data: bytes, start: int, end: int) -> str:
    """The shape, from the first element that tells (the grammar then checks every one)."""
    leaf = _LEAF.search(data, start, end)
    if leaf is None:
        return "tokens" if data.find(b"<text>", start, end) >= 0 else "empty"
    found = leaf.group(1)
    if found == b"node ":
        return "tokens" if data.find(b"<text>", start, leaf.start()) >= 0 else "id-chains"
    return {
        b"mention ": "span-chains",
        b"pronoun start=": "span-pairs",
        b"pronoun id=": "id-pairs",
    }.get(found, "entities")


def _numbers(array: Any, starts: Any) -> tuple[Any, Any] | None:
    """The canonical decimal numbers starting at ``starts``, each ended by a ``"``: their
    values and where each ends (at its quote); ``None`` when one is not canonical (empty, a
    byte that is not a digit, a leading zero, more than 18 digits).

    >>> import numpy as np
    >>> array = np.frombuffer(b'"12" "0" "7"', dtype=np.uint8)
    >>> [column.tolist() for column in _numbers(array, np.array([1, 6, 10]))]
    [[12, 0, 7], [3, 7, 11]]
    >>> _numbers(np.frombuffer(b'"01"', dtype=np.uint8), np.array([1])) is None
    True
    """
    import numpy as np

    count = len(starts)
    values = np.zeros(count, dtype=np.int64)
    ends = np.full(count, -1, dtype=np.int64)
    going = np.ones(count, dtype=bool)
    if not count:
        return values, ends
    last = len(array) - 1
    clamp = int(starts.max()) + 19 > last  # an ended number reads on: past the end?
    for digits in range(19):
        found = array[np.minimum(starts + digits, last) if clamp else starts + digits]
        stop = found == _QUOTE
        stop &= going
        if stop.any():
            if digits == 0:
                return None  # an empty id
            ends[stop] = starts[stop] + digits
            going &= ~stop
            if not going.any():
                return values, ends
        digit = found - np.uint8(48)
        digit[~going] = 0
        if (digit > 9).any() or (digits == 1 and ((array[starts] == 48) & going).any()):
            return None  # not a digit, or a leading zero
        np.multiply(values, 10, out=values, where=going)
        values += digit
    return None  # too long


class _Tags:
    """The tags of a body: positions of their ``<``, and the byte after each."""

    def __init__(self, array: Any, start: int, end: int) -> None:
        import numpy as np

        self.array = array
        self.at = np.flatnonzero(array[start:end] == _LT) + start
        self.first = array[self.at + 1]

    def named(self, first: str, second: str | None = None) -> Any:
        """Indexes (into ``at``) of the tags whose first bytes are ``<first[second]``."""
        import numpy as np

        chosen = np.flatnonzero(self.first == ord(first))
        if second is not None:
            chosen = chosen[self.array[self.at[chosen] + 2] == ord(second)]
        return chosen

    def closing(self, letter: str) -> Any:
        """Positions of the closing tags ``</letter...``."""
        return self.at[self.named("/", letter)]


_NODE_HEAD = b'<node id="'
_TEXT = "\x00"
"""Stands for the content of a ``<text>`` in the skeleton of a file of tokens (no file byte is
a NUL)."""
_TOKEN_SKELETON = {
    documents: re.compile(
        (
            f'(?:{_S}<document(?: id="{_I}")?+>{_S}<text>{_TEXT}</text>{_S}</document>)*+{_S}'
            if documents
            else f"{_S}<text>{_TEXT}</text>{_S}"
        ).encode()
    )
    for documents in (True, False)
}


def _proved_tokens(
    data: bytes, array: Any, start: int, end: int, tags: _Tags, documents: bool
) -> Any:
    """The token ids of a file of tokens when its body is what the grammar of that shape
    accepts, else ``None``: the same proof, with arrays (a file of tokens is mostly ``<node
    id="N"/>`` tags, one per token, which a regular expression walks one by one).

    - no control character XML forbids in the body (every byte below 32 is a tab or a line end);
    - every tag whose name starts with ``n`` is ``<node id="N"/>``, N canonical decimal;
    - the other tags, with what lies between them, make the skeleton the grammar allows
      (documents of one ``<text>`` each, white space between), a ``<text>``'s content standing
      for itself: words (no ``<``, no control character) and the node tags just proved.
    """
    import numpy as np

    low = np.flatnonzero(array[start:end] < 32)
    if len(low) and not np.isin(array[low + start], (9, 10, 13)).all():
        return None
    nodes = tags.at[tags.named("n")]
    for offset in range(1, len(_NODE_HEAD)):
        if (array[nodes + offset] != _NODE_HEAD[offset]).any():
            return None
    found = _numbers(array, nodes + len(_NODE_HEAD))
    if found is None:
        return None
    values, quotes = found
    if len(quotes) and (
        (array[quotes + 1] != _SLASH).any() or (array[quotes + 2] != ord(">")).any()
    ):
        return None
    skeleton = []
    previous = start
    inside_text = False
    for at in tags.at[tags.first != ord("n")].tolist():
        skeleton.append(_TEXT.encode() if inside_text else data[previous:at])
        closing = data.find(b">", at, end)
        if closing < 0:
            return None
        previous = closing + 1
        skeleton.append(data[at:previous])
        inside_text = data.startswith(b"<text>", at)
    skeleton.append(data[previous:end])
    if _TOKEN_SKELETON[documents].fullmatch(b"".join(skeleton)) is None:
        return None
    return values


def _document_key(data: bytes, at: int) -> str | None:
    """The ``id`` of the ``<document`` tag at ``at`` (the grammar has proved its form)."""
    match = _DOCUMENT_KEY.match(data, at)
    assert match is not None
    return match.group(2).decode() if match.group(1) else None


def _refs(count: int, **given: Any) -> Refs:
    """References with the given columns, every other one absent."""
    import numpy as np

    return Refs(*(given.get(name, np.full(count, ABSENT, dtype=np.int64)) for name in Refs._fields))


def scan_are(path: Path, data: bytes) -> AreFile | None:
    """The columns of a file's bytes, or ``None`` when the file is not of a shape this scan
    proves well-formed (see the module doc)."""
    import numpy as np

    body = _checked_bytes(data)
    if body is None:
        return None
    root = _ROOT.match(data, body)
    if root is None:
        return None
    start = root.end()
    end = data.rfind(b"</")
    close = _CLOSE.fullmatch(data, end)
    if end < start or close is None or close.group(1) != root.group(1):
        return None
    kind = _kind(data, start, end)
    documents = data.find(b"<document", start, end) >= 0
    array = np.frombuffer(data, dtype=np.uint8)
    if kind != "tokens" and (
        _grammar("id-chains" if kind == "empty" else kind, documents).fullmatch(data, start, end)
        is None
    ):
        return None
    tags = _Tags(array, start, end)
    token_ids = None
    if kind == "tokens":
        token_ids = _proved_tokens(data, array, start, end, tags, documents)
        if token_ids is None:
            return None
    if documents:
        keys = tuple(_document_key(data, at) for at in tags.at[tags.named("d")].tolist())
        document_closes = tags.closing("d")
    else:
        keys = (None,)
        document_closes = np.array([end], dtype=np.int64)
    count = len(keys)

    def per_document(positions: Any) -> Any:
        """The number of items (sorted positions) in each document."""
        return np.diff(np.searchsorted(positions, document_closes), prepend=0)

    nothing = np.zeros(count, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    found: dict[str, Any] = {
        "token_sizes": nothing,
        "tokens": empty,
        "entity_sizes": nothing,
        "entities": empty,
        "listed_sizes": nothing,
        "listed": empty,
        "chain_counts": nothing,
        "chain_sizes": empty,
        "members": _refs(0),
        "pronominal": np.zeros(0, dtype=bool),
        "pair_counts": nothing,
        "pronouns": _refs(0),
        "antecedents": _refs(0),
    }
    has_list = (False,) * count
    if kind == "tokens":
        sizes = per_document(tags.at[tags.named("n")])
        if _numbered(token_ids, sizes) is None and repeated_token(token_ids, sizes) is not None:
            return None  # a token id twice: the checked parser says where
        found["token_sizes"], found["tokens"] = sizes, token_ids
    elif kind == "entities":
        entities = tags.at[tags.named("e")]
        listed = tags.at[tags.named("p")]
        entity_ids = _numbers(array, entities + 12)  # <entity id="
        listed_ids = _numbers(array, listed + 13)  # <pronoun id="
        if entity_ids is None or listed_ids is None:
            return None
        found["entity_sizes"], found["entities"] = per_document(entities), entity_ids[0]
        found["listed_sizes"], found["listed"] = per_document(listed), listed_ids[0]
        has_list = tuple(n > 0 for n in per_document(tags.at[tags.named("a")]).tolist())
    elif kind in ("id-chains", "span-chains", "empty"):
        chain_closes = tags.closing("c")
        member_tags = tags.named("m" if kind == "span-chains" else "n")
        members = tags.at[member_tags]
        found["chain_counts"] = per_document(chain_closes)
        found["chain_sizes"] = np.diff(np.searchsorted(members, chain_closes), prepend=0)
        if kind == "span-chains":
            first = _numbers(array, members + 16)  # <mention start="
            last = None if first is None else _numbers(array, first[1] + 7)  # " end="
            if first is None or last is None:
                return None
            found["members"] = _refs(len(members), start=first[0], end=last[0])
        else:
            ids = _numbers(array, members + 10)  # <node id="
            if ids is None:
                return None
            found["members"] = _refs(len(members), id=ids[0])
        found["pronominal"] = _marked(array, tags.at[member_tags + 1])
    else:
        pronouns = tags.at[tags.named("p", "r")]
        antecedents = tags.at[tags.named("a")]
        found["pair_counts"] = per_document(pronouns)
        if kind == "span-pairs":
            parts = []
            for tag_at, offset in ((pronouns, 16), (antecedents, 19)):  # <pronoun start="
                first = _numbers(array, tag_at + offset)
                last = None if first is None else _numbers(array, first[1] + 7)
                if first is None or last is None:
                    return None
                parts.append(_refs(len(tag_at), start=first[0], end=last[0]))
        else:
            parts = []
            for tag_at, offset in ((pronouns, 13), (antecedents, 16)):  # <pronoun id="
                ids = _numbers(array, tag_at + offset)
                if ids is None:
                    return None
                parts.append(_refs(len(tag_at), id=ids[0]))
        found["pronouns"], found["antecedents"] = parts
    return AreFile(
        path=path,
        keys=keys,
        has_list=has_list,
        names=(),
        bom=data.startswith(BOM),
        source=Source(data, None),
        **found,
    )


def _numbered(tokens: Any, sizes: Any) -> Any:
    """``sizes`` when every document's token ids are ``1``, ``2``, ... in text order, else
    ``None``."""
    import numpy as np

    expected = np.arange(1, len(tokens) + 1) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return sizes if np.array_equal(tokens, expected) else None


def _marked(array: Any, following: Any) -> Any:
    """Whether each member tag (given the position of the tag after it) ends with
    `` type="pronoun"/>``: its last bytes before the white space that precedes the next tag
    (the grammar has proved that only white space, no other byte below 33, is there)."""
    import numpy as np

    last = following - 1
    space = np.flatnonzero(array[last] <= 32)
    while len(space):
        last[space] -= 1
        space = space[array[last[space]] <= 32]
    width = len(_PRONOUN_MARK)
    at = last - (width - 1)  # where the mark would start
    marked = np.flatnonzero(array[at + 2] == _PRONOUN_MARK[2])  # its "y" first, then the rest
    window = array[at[marked][:, None] + np.arange(width)]
    marked = marked[(window == np.frombuffer(_PRONOUN_MARK, dtype=np.uint8)).all(axis=1)]
    found = np.zeros(len(last), dtype=bool)
    found[marked] = True
    return found
