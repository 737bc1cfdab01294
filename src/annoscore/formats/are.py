"""Reading the XML files of the Anaphora Resolution Exercise (ARE 2007), safely.

Every file (input, gold standard, system output) is read into one shape, :class:`AreFile`:
flat columns over the file's documents in document order, each holding what any of the four
tasks needs, found anywhere below the root (``../shared/spec/are.md``, decision 6):

- ``<entity id="N">`` (tasks 1-2 input): the candidate noun phrases' ids (``entities``);
- ``<anaphoric_pronouns>`` with ``<pronoun id="N"/>`` (task 1 input): the pronouns to resolve
  (``listed``, and ``has_list``: whether the element is there, even empty);
- ``<node id="N"/>`` outside a chain (tasks 3-4 input): one token, in text order (``tokens``);
- ``<chain>`` with ``<node id>`` (tasks 1-2) or ``<mention start end>`` (tasks 3-4) members
  (``members``), ``type="pronoun"`` marking a pronominal one (``pronominal``);
- ``<pair>`` with one ``<pronoun>`` and one ``<antecedent>`` (tasks 1 and 3 output), each
  referring by ``id`` (task 1) or by ``start``/``end`` token ids (task 3).

``value`` attributes are never read: scoring is by ids and positions only (the seed).

Documents (decision 5): the children of the root named ``document`` (any case), or the root
itself when it has none.  A document's key is its ``id`` attribute, if it has one.

**Ids as integers, exactly.**  Every id, start and end is an integer *code*: an id written in
canonical decimal (``"0"``, or 1 to 18 digits not starting with ``0``) is its value; any other
text is ``-2 - k``, ``k`` its place in the file's ``names``; an absent attribute is
:data:`ABSENT` (-1).  Canonical decimal text and its value determine each other, so two codes
of one file are equal exactly when the texts are (``"01"`` is a name, not 1); the codes of two
files are compared after their names are given corpus-wide codes
(:func:`annoscore.align.are_documents.collect_documents`).  No id is ever converted as a
number beyond 18 digits (a 5,000-digit id is a name).

**One reader, two ways**: :func:`parse_are` first tries the columnar scan
(:func:`annoscore.formats.are_columns.scan_are`), then the checked parser (:func:`_parse_are`,
defusedxml's expat), the same :class:`AreFile`.  Only the checked parser names lines: every
structural problem (a ``<pair>`` without a pronoun or antecedent, a ``<pronoun>`` outside a pair
or the list, a chain inside a chain, a token node without an id, a token id twice in a
document, elements beside the documents), malformed XML and every refused declaration is an
:class:`~annoscore.errors.InputError` naming file, line and element; :meth:`AreFile.lines` runs
it over a file the scan read, for the later checks' messages.  Each file is read once.

Safety: no user XML is read with entity expansion or external entities.  The scan reads only
files without ``<!`` (no DOCTYPE, no declaration), whose only references are the five
predefined ones and character references it checks; everything else goes to defusedxml's
expat parser, which refuses entity declarations (billion laughs) and external entities.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "g.xml"
>>> _ = path.write_text('<r><chain id="c1"><node id="4" value="x"/>'
...                     '<node id="e62" type="pronoun"/></chain></r>')
>>> f = read_are(path)
>>> f.members.id.tolist(), f.pronominal.tolist(), f.names
([4, -2], [False, True], ('e62',))
>>> [f.text(code) for code in f.members.id.tolist()]
['4', 'e62']
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from annoscore.errors import InputError
from annoscore.formats.files import reading

ABSENT = -1
"""The code of an attribute that is not there."""

_CANONICAL = re.compile("0|[1-9][0-9]{0,17}")

BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte-order mark (the readers accept it; a warning names the files)."""


class Refs(NamedTuple):
    """References (chain members, pair pronouns or antecedents) as three code columns: the
    ``id``, ``start`` and ``end`` attributes (:data:`ABSENT` when not written)."""

    id: Any
    start: Any
    end: Any


@dataclass(frozen=True, slots=True)
class Lines:
    """Where each element of a file is, for messages: one line per document, chain, member,
    pair, pair pronoun, pair antecedent and listed pronoun, in file order; ``elements`` names
    each member's element (``node`` or ``mention``)."""

    documents: list[int]
    chains: list[int]
    members: list[int]
    elements: list[str]
    pairs: list[int]
    pronouns: list[int]
    antecedents: list[int]
    listed: list[int]


class Source:
    """Where :meth:`AreFile.lines` finds a file's lines: the checked parser's ``lines``; or,
    for a file the scan read, its bytes (``data``), or for a regular file nothing but its size
    and modification time (``stamp``): it is read again only if an error must name a line."""

    __slots__ = ("data", "lines", "stamp")

    def __init__(self, data: bytes | None, lines: Lines | None) -> None:
        self.data = data
        self.lines = lines
        self.stamp: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ItemColumns:
    """The item columns of ARE documents, shared by a file (:class:`AreFile`) and a side of a
    corpus (:class:`annoscore.align.are_documents.Side`)."""

    token_sizes: Any
    tokens: Any
    entity_sizes: Any
    entities: Any
    listed_sizes: Any
    listed: Any
    chain_counts: Any
    chain_sizes: Any
    members: Refs
    pronominal: Any
    pair_counts: Any
    pronouns: Refs
    antecedents: Refs


@dataclass(frozen=True, slots=True, eq=False)
class AreFile(ItemColumns):
    """An ARE XML file as columns (see the module doc).

    Per document (in file order): ``keys`` (``id`` attributes), ``has_list``, and the number of
    items of each kind: ``token_sizes``, ``entity_sizes``, ``listed_sizes``, ``chain_counts``,
    ``pair_counts``.  Per item, over the whole file in document order (NumPy ``int64`` codes):
    ``tokens``, ``entities``, ``listed``; ``chain_sizes`` (members per chain), ``members``
    (:class:`Refs`) and ``pronominal`` (``bool``); ``pronouns`` and ``antecedents`` (one per
    pair).  ``names``: the texts of the codes below -1; ``bom``: the file began with a UTF-8
    byte-order mark.
    """

    path: Path
    keys: tuple[str | None, ...]
    has_list: tuple[bool, ...]
    names: tuple[str, ...]
    bom: bool
    source: Source = field(repr=False)

    def text(self, code: int) -> str:
        """The text of a code as written in the file."""
        return str(code) if code >= 0 else self.names[-2 - code]

    def lines(self) -> Lines:
        """The line of every element (the checked parser's; run once when first asked, over
        the bytes kept or, for a regular file, read again: an error if it changed since)."""
        source = self.source
        if source.lines is None:
            data = source.data
            if data is None:
                with reading(self.path):
                    now = self.path.stat()
                    data = self.path.read_bytes()
                if (len(data), now.st_mtime_ns) != source.stamp:
                    raise InputError(
                        "the file changed while annoscore was reading it; score it again", self.path
                    )
            source.lines = _parse_are(self.path, data).source.lines
            source.data = None
        assert source.lines is not None
        return source.lines


def codes(names: list[str]) -> Callable[[str | None], int]:
    """The code of an attribute's text (see the module doc); new names are appended to
    ``names``.

    >>> code = codes(names := [])
    >>> [code("7"), code("07"), code(None), code("x"), code("07")], names
    ([7, -2, -1, -3, -2], ['07', 'x'])
    """
    cache: dict[str, int] = {}

    def code(value: str | None) -> int:
        if value is None:
            return ABSENT
        found = cache.get(value)
        if found is None:
            if _CANONICAL.fullmatch(value):
                found = int(value)
            else:
                found = -2 - len(names)
                names.append(value)
            cache[value] = found
        return found

    return code


def _flag(attrs: Mapping[str, str]) -> bool:
    kind = attrs.get("type")
    return kind is not None and (kind == "pronoun" or kind.strip().lower() == "pronoun")


def _id_text(value: str | None) -> str:
    return "" if value is None else f' id="{value}"'


class _Builder:
    """Turns expat's start and end events into the columns of an :class:`AreFile`.

    Every item is appended to file-wide lists in document order; ``offsets`` records where
    each document starts in each of them.  The first structural error is kept (``error``) and
    raised after expat has read the whole file, so that a syntax error anywhere wins, as a
    parser that checks the whole file first would report it.
    """

    def __init__(self, path: Path, bom: bool) -> None:
        self.path = path
        self.bom = bom
        self.names: list[str] = []
        self.code = codes(self.names)
        self.error: InputError | None = None
        self.depth = 0
        self.root_key: str | None = None
        self.root_line = 1
        self.keys: list[str | None] = []
        self.document_lines: list[int] = []
        self.has_list: list[bool] = []
        self.offsets: list[tuple[int, ...]] = []
        self.in_document = False
        self.root_items = False
        self.document_depth = -1
        self.tokens: list[int] = []
        self.token_lines: list[int] = []
        self.entities: list[int] = []
        self.listed: list[int] = []
        self.listed_lines: list[int] = []
        self.root_has_list = False
        self.chain_lines: list[int] = []
        self.chain_sizes: list[int] = []
        self.member_columns: tuple[list[int], list[int], list[int]] = ([], [], [])
        self.pronominal: list[bool] = []
        self.member_lines: list[int] = []
        self.elements: list[str] = []
        self.pair_lines: list[int] = []
        self.part_columns: dict[str, tuple[list[int], list[int], list[int], list[int]]] = {
            "pronoun": ([], [], [], []),
            "antecedent": ([], [], [], []),
        }
        self.chain: int | None = None  # the line of the open chain
        self.pair: tuple[str | None, int, dict[str, tuple[int, int, int, int]]] | None = None
        self.in_list = 0

    def _fail(self, message: str, line: int) -> None:
        if self.error is None:
            self.error = InputError(message, self.path, line)

    def _lengths(self) -> tuple[int, ...]:
        return (
            len(self.tokens),
            len(self.entities),
            len(self.listed),
            len(self.chain_sizes),
            len(self.pair_lines),
        )

    def _item(self) -> None:
        """An item is added: beside the documents (the root's own) unless inside one."""
        if not self.in_document:
            self.root_items = True

    def start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        depth = self.depth
        self.depth += 1
        if self.error is not None:
            return
        if depth == 0:
            self.root_key = attrs.get("id")
            self.root_line = line
            return
        if depth == 1 and name.lower() == "document":
            self.keys.append(attrs.get("id"))
            self.document_lines.append(line)
            self.has_list.append(False)
            self.offsets.append(self._lengths())
            self.in_document = True
            self.document_depth = self.depth
            return
        handler = _START.get(name)
        if handler is not None:
            handler(self, name, attrs, line)

    def end(self, name: str, line: int) -> None:
        self.depth -= 1
        if self.error is not None or self.depth == 0:
            return
        if self.depth + 1 == self.document_depth and name.lower() == "document":
            self.in_document = False
            self.document_depth = -1
            return
        handler = _END.get(name)
        if handler is not None:
            handler(self, line)

    # element handlers

    def _chain_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is not None:
            self._fail(f"<chain> inside the <chain> of line {self.chain}; chains do not nest", line)
        elif self.pair is not None:
            self._fail("<chain> inside a <pair>", line)
        else:
            self._item()
            self.chain = line
            self.chain_lines.append(line)
            self.chain_sizes.append(0)

    def _chain_end(self, line: int) -> None:
        self.chain = None

    def _pair_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is not None:
            self._fail(f"<pair> inside the <pair> of line {self.pair[1]}; pairs do not nest", line)
        elif self.chain is not None:
            self._fail("<pair> inside a <chain>", line)
        else:
            self.pair = (attrs.get("id"), line, {})

    def _pair_end(self, line: int) -> None:
        assert self.pair is not None
        pair_id, head, parts = self.pair
        for part in ("pronoun", "antecedent"):
            if part not in parts:
                self._fail(
                    f"<pair{_id_text(pair_id)}> has no <{part}>; a pair needs one <pronoun> and "
                    "one <antecedent>",
                    head,
                )
                return
        self._item()
        self.pair_lines.append(head)
        for part, values in parts.items():
            for column, value in zip(self.part_columns[part], values, strict=True):
                column.append(value)
        self.pair = None

    def _list_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        self.in_list += 1
        if self.in_document:
            self.has_list[-1] = True
        else:
            self.root_has_list = True

    def _list_end(self, line: int) -> None:
        self.in_list -= 1

    def _pronoun(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is not None:
            self._pair_part(name, attrs, line)
        elif self.in_list:
            value = attrs.get("id")
            if value is None:
                self._fail("<pronoun> in <anaphoric_pronouns> has no id attribute", line)
                return
            self._item()
            self.listed.append(self.code(value))
            self.listed_lines.append(line)
        else:
            self._fail(
                "<pronoun> outside <pair> and <anaphoric_pronouns>; expected it in one of them",
                line,
            )

    def _pair_part(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is None:
            self._fail(f"<{name}> outside a <pair>", line)
            return
        parts = self.pair[2]
        if name in parts:
            self._fail(
                f"a second <{name}> in the <pair> of line {self.pair[1]}; "
                "a pair has one pronoun and one antecedent",
                line,
            )
            return
        code = self.code
        parts[name] = (
            code(attrs.get("id")),
            code(attrs.get("start")),
            code(attrs.get("end")),
            line,
        )

    def _member(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        ids, starts, ends = self.member_columns
        code = self.code
        ids.append(code(attrs.get("id")))
        starts.append(code(attrs.get("start")))
        ends.append(code(attrs.get("end")))
        self.pronominal.append(_flag(attrs))
        self.member_lines.append(line)
        self.elements.append(name)
        self.chain_sizes[-1] += 1

    def _node(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is not None:
            self._member(name, attrs, line)
            return
        token = attrs.get("id")
        if token is None:
            self._fail("<node> outside a chain (a token) has no id attribute", line)
            return
        self._item()
        self.tokens.append(self.code(token))
        self.token_lines.append(line)

    def _mention(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is None:
            self._fail("<mention> outside a <chain>", line)
        else:
            self._member(name, attrs, line)

    def _entity(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        entity = attrs.get("id")
        if entity is None:
            self._fail("<entity> has no id attribute", line)
            return
        self._item()
        self.entities.append(self.code(entity))

    def finish(self) -> AreFile:
        """The file's columns; the first structural error, if any, is raised."""
        import numpy as np

        if self.error is not None:
            raise self.error
        if self.keys and (self.root_items or self.root_has_list):
            raise InputError(
                "elements outside the <document> elements (chains, pairs, tokens or entities "
                "directly under the root); put every one inside a document",
                self.path,
                self.root_line,
            )
        if not self.keys:  # the root is the only document
            self.keys, self.document_lines = [self.root_key], [self.root_line]
            self.has_list, self.offsets = [self.root_has_list], [(0,) * 5]
        ends = self._lengths()
        sizes = np.diff(np.array([*self.offsets, ends], dtype=np.int64), axis=0).T

        def column(values: list[int]) -> Any:
            return np.array(values, dtype=np.int64)

        tokens = column(self.tokens)
        self._check_tokens(tokens, sizes[0])
        pronouns = self.part_columns["pronoun"]
        antecedents = self.part_columns["antecedent"]
        lines = Lines(
            self.document_lines,
            self.chain_lines,
            self.member_lines,
            self.elements,
            self.pair_lines,
            pronouns[3],
            antecedents[3],
            self.listed_lines,
        )
        return AreFile(
            path=self.path,
            keys=tuple(self.keys),
            has_list=tuple(self.has_list),
            token_sizes=sizes[0],
            tokens=tokens,
            entity_sizes=sizes[1],
            entities=column(self.entities),
            listed_sizes=sizes[2],
            listed=column(self.listed),
            chain_counts=sizes[3],
            chain_sizes=column(self.chain_sizes),
            members=Refs(*(column(c) for c in self.member_columns)),
            pronominal=np.array(self.pronominal, dtype=bool),
            pair_counts=sizes[4],
            pronouns=Refs(*(column(c) for c in pronouns[:3])),
            antecedents=Refs(*(column(c) for c in antecedents[:3])),
            names=tuple(self.names),
            bom=self.bom,
            source=Source(None, lines),
        )

    def _check_tokens(self, tokens: Any, sizes: Any) -> None:
        """A token id twice in one document: the error names the second one's line."""
        at = repeated_token(tokens, sizes)
        if at is not None:
            raise InputError(
                f'<node id="{self._text(int(tokens[at]))}">: the token id is used twice in the '
                "text (token ids must be unique in a document)",
                self.path,
                self.token_lines[at],
            )

    def _text(self, code: int) -> str:
        return str(code) if code >= 0 else self.names[-2 - code]


def repeated_token(tokens: Any, sizes: Any) -> int | None:
    """The first token (in file order) whose id is already a token of its document, or
    ``None``: both ways of reading refuse such a file (the scan by declining it).

    >>> import numpy as np
    >>> repeated_token(np.array([1, 2, 1, 1]), np.array([2, 2])), repeated_token(
    ...     np.array([1, 2, 2, 1]), np.array([2, 2]))
    (3, None)
    """
    import numpy as np

    if len(tokens) < 2:
        return None
    document = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((tokens, document))  # stable: equal ids in file order
    same = (tokens[order][1:] == tokens[order][:-1]) & (document[order][1:] == document[order][:-1])
    if not same.any():
        return None
    return int(order[1:][same].min())


_START: dict[str, Callable[[_Builder, str, Mapping[str, str], int], None]] = {
    "chain": _Builder._chain_start,
    "pair": _Builder._pair_start,
    "anaphoric_pronouns": _Builder._list_start,
    "pronoun": _Builder._pronoun,
    "antecedent": _Builder._pair_part,
    "node": _Builder._node,
    "mention": _Builder._mention,
    "entity": _Builder._entity,
}
_END: dict[str, Callable[[_Builder, int], None]] = {
    "chain": _Builder._chain_end,
    "pair": _Builder._pair_end,
    "anaphoric_pronouns": _Builder._list_end,
}


# --- the checked parser -------------------------------------------------------------------------


def _expat() -> Any:
    """A defusedxml expat parser: entity declarations and external references raise."""
    from defusedxml.ElementTree import DefusedXMLParser

    class _NoTarget:
        """Receives nothing: the element callbacks are set by the caller."""

    parser = DefusedXMLParser(target=_NoTarget())
    expat = parser.parser
    expat.DefaultHandlerExpand = None
    expat.ordered_attributes = False
    return expat


def _parse_are(path: Path, data: bytes) -> AreFile:
    """Parse an ARE XML file with defusedxml's expat (any encoding, DTDs), naming the line of
    every problem: malformed XML, refused declarations (entity declarations, which can expand
    without bound or read other files; external references), then the first structural
    problem (see :class:`_Builder`)."""
    from xml.parsers.expat import ExpatError

    from defusedxml import DefusedXmlException, EntitiesForbidden

    builder = _Builder(path, data.startswith(BOM))
    expat = _expat()

    def start(name: str, attrs: dict[str, str]) -> None:
        builder.start(name, attrs, expat.CurrentLineNumber)

    def end(name: str) -> None:
        builder.end(name, expat.CurrentLineNumber)

    expat.StartElementHandler = start
    expat.EndElementHandler = end
    try:
        expat.Parse(data, True)
    except ExpatError as error:
        message = str(error).split(": line", 1)[0]
        raise InputError(
            f"not well-formed XML: {message} (column {error.offset + 1})", path, error.lineno
        ) from None
    except EntitiesForbidden as error:
        raise InputError(
            f"XML entity declaration <!ENTITY {error.name} ...> refused: entity declarations "
            "(which can expand without bound or read other files) are not allowed",
            path,
            expat.CurrentLineNumber,
        ) from None
    except (LookupError, UnicodeError) as error:  # an encoding expat does not know, or bad bytes
        raise InputError(f"cannot decode the XML: {error}", path, expat.CurrentLineNumber) from None
    except DefusedXmlException as error:
        raise InputError(
            f"XML external reference refused ({error}): external entities are not allowed",
            path,
            expat.CurrentLineNumber,
        ) from None
    return builder.finish()


def parse_are(path: Path, data: bytes) -> AreFile:
    """The :class:`AreFile` of a file's bytes: the columnar scan when it reads them, else the
    checked parser (see the module doc); ``path`` names the file in messages."""
    from annoscore.formats.are_columns import scan_are

    found = scan_are(path, data)
    return _parse_are(path, data) if found is None else found


def read_are(path: Path) -> AreFile:
    """Read one ARE XML file (input, gold or system output), once, into an :class:`AreFile`.

    The bytes of a file the scan read are kept for :meth:`AreFile.lines` only when the file
    cannot be read again (a pipe); a regular file is read again if an error must name a line.
    """
    with reading(path):
        before = path.stat()
        data = path.read_bytes()
    found = parse_are(path, data)
    source = found.source
    if source.data is not None and stat.S_ISREG(before.st_mode) and before.st_size == len(data):
        source.data, source.stamp = None, (len(data), before.st_mtime_ns)
    return found
