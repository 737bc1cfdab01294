"""The columnar way to read ARE XML files: one file of the usual layout into flat columns.

:func:`read_columns` reads a file of one of the shapes the ARE tasks exchange (an input with
token nodes, an input with entities and the pronoun list, chains of ids, chains of mentions,
pairs of ids, pairs of mentions), each as one root element holding ``<document id="...">``
elements (or being the only document itself), and returns its content as flat columns over
the whole file (ids, starts, ends, pronoun marks as lists of strings) with the number of items
of each document and each chain, so that the tasks score whole corpora with C-level list, set
and NumPy operations and never build an object per element.

It is a fast path beside the checked reader (:func:`annoscore.formats.are.read_are`), never a
second definition: it reads only files it can prove well-formed and of a shape it knows, and
returns ``None`` for anything else, so the caller reads that file the checked way (which
produces the error message, naming file, line and element, for every problem).  How it proves
well-formedness, for the whole file at C level:

- the characters, the encoding and the references are checked by
  :func:`annoscore.formats.are._fast_text` (the same checks as the checked reader's fast way):
  no DOCTYPE, no entity declaration, no ``<!`` at all here (not even a comment), no processing
  instruction, no CDATA section, no namespace, only the five predefined and valid character
  references, so nothing can expand and nothing outside the file is read;
- the whole body between the root's start and end tags is matched at once by one regular
  expression with possessive repeats (:data:`_GRAMMAR`) that accepts only well-formed XML of
  the shape: every tag written ``<name attr="value" .../>`` with the attributes in a fixed
  order, separated by one space, values in double quotes without ``<``; elements nested as the
  shape says (chains of members, pairs of one pronoun and one antecedent, a ``<text>`` of words
  and token nodes, or of words and non-nested entities, then the pronoun list); only white
  space between elements;
- the columns are then taken with ``re.findall`` and ``str.split``/``str.count`` over the same
  text, which can only see what the grammar accepted.

Attribute values used as ids contain no ``&``, tab or line end (which XML would rewrite), so
every value is exactly as written.  ``value`` attributes are matched but never read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "g.xml"
>>> _ = path.write_text('<r><chain id="c1"><node id="4" value="x"/>'
...                     '<node id="62" type="pronoun"/></chain></r>')
>>> columns = read_columns(path)
>>> columns.kind, columns.members, columns.marks, columns.chain_sizes
('id-chains', ('4', '62'), ('', ' type="pronoun"'), [2])
>>> read_columns(path.with_name("x.xml")) is None   # not readable this way: the checked way
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from annoscore.formats.are import _fast_text, _NotFast

_S = "[ \t\r\n]*+"
_I = '[^"<&\t\n\r]*+'
"""An id as written: no quote, ``<``, reference, tab or line end (so XML keeps it as is)."""
_V = '[^"<]*+'
"""A ``value`` (never read)."""
_VALUE = f'(?: value="{_V}")?'
_PRONOUN = '(?: type="pronoun")?'

_TOKENS = f'{_S}<text>(?:[^<]*+<node id="{_I}"/>)*+[^<]*+</text>'
_ENTITIES = (
    f'{_S}<text>(?:[^<]*+<entity id="{_I}">[^<]*+</entity>)*+[^<]*+</text>'
    f'(?:{_S}<anaphoric_pronouns>(?:{_S}<pronoun id="{_I}"{_VALUE}/>)*+{_S}</anaphoric_pronouns>)?'
)
_ID_MEMBER = f'<node id="{_I}"{_VALUE}{_PRONOUN}/>'
_SPAN_MEMBER = f'<mention start="{_I}" end="{_I}"{_VALUE}{_PRONOUN}/>'
_ID_PART = f'id="{_I}"{_VALUE}/>'
_SPAN_PART = f'start="{_I}" end="{_I}"{_VALUE}/>'


def _chains(member: str) -> str:
    return f'(?:{_S}<chain(?: id="{_I}")?>(?:{_S}{member})*+{_S}</chain>)*+'


def _pairs(part: str) -> str:
    return f'(?:{_S}<pair(?: id="{_I}")?>{_S}<pronoun {part}{_S}<antecedent {part}{_S}</pair>)*+'


_BODIES = {
    "tokens": _TOKENS,
    "entities": _ENTITIES,
    "id-chains": _chains(_ID_MEMBER),
    "span-chains": _chains(_SPAN_MEMBER),
    "id-pairs": _pairs(_ID_PART),
    "span-pairs": _pairs(_SPAN_PART),
}
_GRAMMAR = {
    kind: (
        re.compile(f'(?:{_S}<document(?: id="{_I}")?>{body}{_S}</document>)*+{_S}'),
        re.compile(f"{body}{_S}"),
    )
    for kind, body in _BODIES.items()
}
"""Per shape: the body of a root holding documents, and the body of a root that is the only
document."""

_ROOT = re.compile(f"{_S}<([A-Za-z_][A-Za-z0-9_.-]*+)>")
_CLOSE = re.compile(f"</([A-Za-z_][A-Za-z0-9_.-]*+)>{_S}")
_DOCUMENT_KEY = re.compile(f'<document( id="({_I})")?>')
_TOKEN_ID = re.compile(f'<node id="({_I})"/>')
_ENTITY_ID = re.compile(f'<entity id="({_I})">')
_LISTED_ID = re.compile(f'<pronoun id="({_I})"{_VALUE}/>')
_ID_MEMBERS = re.compile(f'<node id="({_I})"{_VALUE}( type="pronoun")?/>')
_SPAN_MEMBERS = re.compile(f'<mention start="({_I})" end="({_I})"{_VALUE}( type="pronoun")?/>')
_ID_PAIRS = re.compile(f'<pronoun id="({_I})"{_VALUE}/>{_S}<antecedent id="({_I})"{_VALUE}/>')
_SPAN_PAIRS = re.compile(
    f'<pronoun start="({_I})" end="({_I})"{_VALUE}/>{_S}'
    f'<antecedent start="({_I})" end="({_I})"{_VALUE}/>'
)

PRONOUN_MARK = ' type="pronoun"'
"""How :attr:`ColumnFile.marks` marks a pronominal chain member (else ``""``)."""


@dataclass(slots=True)
class ColumnFile:
    """An ARE file as flat columns (see the module doc).

    ``kind``: ``tokens``, ``entities``, ``id-chains``, ``span-chains``, ``id-pairs``,
    ``span-pairs``, or ``empty`` (documents with nothing in them).  ``keys``: each document's
    ``id`` attribute (``None`` when absent; the root's document has none).  ``sizes``: the
    number of items of each document (tokens, entities, chains or pairs).  Then, as the kind
    has them, over the whole file in document order:

    - ``tokens``: the token ids (kind ``tokens``);
    - ``entities``: the entity ids; ``listed``: the listed pronoun ids, ``listed_sizes`` per
      document and ``has_list`` per document (kind ``entities``);
    - ``chain_sizes``: the members of each chain; ``members`` (ids, or starts), ``ends``
      (kind ``span-chains``) and ``marks`` (:data:`PRONOUN_MARK` or ``""``) per member;
    - ``pairs``: ``(pronoun id, antecedent id)`` or ``(pronoun start, pronoun end, antecedent
      start, antecedent end)`` per pair.
    """

    path: Path
    kind: str
    keys: list[str | None]
    sizes: list[int]
    tokens: list[str]
    entities: list[str]
    listed: list[str]
    listed_sizes: list[int]
    has_list: list[bool]
    chain_sizes: list[int]
    members: Sequence[str]
    ends: Sequence[str]
    marks: Sequence[str]
    pairs: list[tuple[str, ...]]


_LEAF = re.compile("<(mention |node |pronoun start=|pronoun id=|entity |anaphoric_pronouns>)")


def _kind(text: str, start: int, end: int) -> str:
    """The shape, from the first element that tells (the grammar then checks every one)."""
    leaf = _LEAF.search(text, start, end)
    if leaf is None:
        return "tokens" if text.find("<text>", start, end) >= 0 else "empty"
    found = leaf.group(1)
    if found == "node ":
        return "tokens" if text.find("<text>", start, leaf.start()) >= 0 else "id-chains"
    return {
        "mention ": "span-chains",
        "pronoun start=": "span-pairs",
        "pronoun id=": "id-pairs",
    }.get(found, "entities")


def parse_columns(path: Path, data: bytes) -> ColumnFile | None:
    """The columns of a file's bytes, or ``None`` when the file is not of a shape this reader
    proves well-formed (read it with :func:`annoscore.formats.are.parse_are`)."""
    try:
        text, body = _fast_text(data)
    except _NotFast:
        return None
    if "<!" in text:
        return None
    root = _ROOT.match(text, body)
    if root is None:
        return None
    start = root.end()
    end = text.rfind("</")
    close = _CLOSE.fullmatch(text, end)
    if end < start or close is None or close.group(1) != root.group(1):
        return None
    kind = _kind(text, start, end)
    documents = text.find("<document", start, end) >= 0
    grammar = _GRAMMAR["id-chains" if kind == "empty" else kind][0 if documents else 1]
    if grammar.fullmatch(text, start, end) is None:
        return None
    if documents:
        found_keys = _DOCUMENT_KEY.findall(text, start, end)
        keys = [key if present else None for present, key in found_keys]
        pieces = text.split("</document>")[:-1]  # the root's tags hold no item
    else:
        keys = [None]
        pieces = [text]
    columns = ColumnFile(path, kind, keys, [], [], [], [], [], [], [], [], [], [], [])
    if kind == "tokens":
        columns.tokens = _TOKEN_ID.findall(text, start, end)
        columns.sizes = [piece.count("<node ") for piece in pieces]
    elif kind == "entities":
        columns.entities = _ENTITY_ID.findall(text, start, end)
        columns.sizes = [piece.count("<entity ") for piece in pieces]
        columns.listed = _LISTED_ID.findall(text, start, end)
        columns.listed_sizes = [piece.count("<pronoun ") for piece in pieces]
        columns.has_list = ["<anaphoric_pronouns>" in piece for piece in pieces]
    elif kind in ("id-chains", "span-chains", "empty"):
        tag = "<mention " if kind == "span-chains" else "<node "
        columns.sizes = [piece.count("</chain>") for piece in pieces]
        columns.chain_sizes = [chain.count(tag) for chain in text.split("</chain>")[:-1]]
        if kind == "span-chains":
            found = _SPAN_MEMBERS.findall(text, start, end)
            if found:
                starts, ends, marks = zip(*found, strict=True)
                columns.members, columns.ends, columns.marks = starts, ends, marks
        else:
            found = _ID_MEMBERS.findall(text, start, end)
            if found:
                ids, marks = zip(*found, strict=True)
                columns.members, columns.marks = ids, marks
    else:
        columns.pairs = (_SPAN_PAIRS if kind == "span-pairs" else _ID_PAIRS).findall(
            text, start, end
        )
        columns.sizes = [piece.count("</pair>") for piece in pieces]
    return columns


def read_columns(path: Path) -> ColumnFile | None:
    """Read one ARE XML file the columnar way (see the module doc); ``None`` when it cannot
    (a file that does not exist or cannot be read included: the checked reader says why)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return parse_columns(path, data)
