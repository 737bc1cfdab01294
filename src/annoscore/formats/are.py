"""Reading the XML files of the Anaphora Resolution Exercise (ARE 2007), safely.

Every file (input, gold standard, system output) is read into the same shape,
:class:`AreFile`: one or more :class:`AreDocument`, each holding what any of the four tasks
needs, found anywhere below the root in document order (``../shared/spec/are.md``, decision 6):

- ``<entity id="N">`` (tasks 1-2 input): the candidate noun phrases' ids;
- ``<anaphoric_pronouns>`` with ``<pronoun id="N"/>`` (task 1 input): the pronouns to resolve;
- ``<node id="N"/>`` outside a chain (tasks 3-4 input): one token, in text order;
- ``<pair>`` with one ``<pronoun>`` and one ``<antecedent>`` (tasks 1 and 3 output), each
  referring by ``id`` (task 1) or by ``start``/``end`` token ids (task 3);
- ``<chain>`` with ``<node id>`` (tasks 1-2) or ``<mention start end>`` (tasks 3-4) members;
  ``type="pronoun"`` marks a pronominal member.

``value`` attributes are never read: scoring is by ids and positions only (the seed).

Documents (decision 5): the children of the root named ``document`` (any case), or the root
itself when it has none.  A document's ``key`` is its ``id`` attribute, if it has one.

Safety: no user XML is ever read with entity expansion or external entities.  The fast way
(below) reads only files that contain no ``<!`` but comments, so no DOCTYPE and no entity
declaration: the only references it accepts are the five predefined ones and character
references naming a character XML allows, which it replaces itself, so nothing can expand
and nothing outside the file is read (as safe as defusedxml, which refuses the declarations
themselves).  Every other file is read by defusedxml's expat parser, which refuses entity
declarations (billion laughs) and external entities.  Both refusals, malformed XML, and every
structural problem (a ``<pair>`` without a pronoun or antecedent, a ``<pronoun>`` outside a
pair or the list, a chain inside a chain, a token node without an id, a token id twice)
raise :class:`~annoscore.errors.InputError` naming the file, the line and the element.

Speed (the fast way, :func:`_fast_text` and :func:`_scan`): a UTF-8 file without a DOCTYPE,
CDATA section, processing instruction or namespace declaration is read by one regular
expression over its tags, which proves on the way that the file is well-formed: every ``<``
opens a tag, a comment or a block the expression knows (a ``<text>`` of words, token nodes and
nested entities, runs of chains, runs of pairs, a list of pronouns, a run of
``<node id="N"/>`` tokens), tags nest, one root, no attribute twice, no character or reference
XML forbids.  When it cannot prove that, or meets any problem, the file is read the slow way,
whose error is the one reported; so both ways give the same documents and the same errors (a
test compares them on randomly damaged files).  Token ids ``"1"``, ``"2"``, ... ``"n"`` in text
order (checked one by one) share one token map per length.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> path = folder / "g.xml"
>>> _ = path.write_text('<r><chain id="c1"><node id="4" value="x"/>'
...                     '<node id="62" type="pronoun"/></chain></r>')
>>> doc = read_are(path).documents[0]
>>> [[(m.id, m.pronoun) for m in c.members] for c in doc.chains]
[[('4', False), ('62', True)]]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from annoscore.errors import InputError
from annoscore.formats.files import reading


class Ref(NamedTuple):
    """One ``<pronoun>``, ``<antecedent>``, ``<node>`` or ``<mention>``: by id or by span.

    ``id``, ``start`` and ``end`` are the attributes as written (``None`` when absent);
    ``pronoun`` is ``type="pronoun"``; ``line`` and ``element`` locate it for messages.
    (Named tuples: a corpus has hundreds of thousands of them.)
    """

    id: str | None
    start: str | None
    end: str | None
    pronoun: bool
    line: int
    element: str


class Pair(NamedTuple):
    """A system answer ``<pair>``: a pronoun and the antecedent chosen for it."""

    id: str | None
    pronoun: Ref
    antecedent: Ref
    line: int


class Chain(NamedTuple):
    """A ``<chain>``: its members in document order."""

    id: str | None
    members: tuple[Ref, ...]
    line: int


@dataclass(frozen=True, slots=True)
class AreDocument:
    """What one document of an ARE file holds (see the module doc).

    ``tokens`` maps each token node id to its position (0, 1, ... in text order);
    ``has_list`` says whether an ``<anaphoric_pronouns>`` element was present (even empty).
    """

    key: str | None
    line: int
    entities: frozenset[str]
    tokens: Mapping[str, int]
    listed: tuple[Ref, ...]
    has_list: bool
    pairs: tuple[Pair, ...]
    chains: tuple[Chain, ...]


@dataclass(frozen=True, slots=True)
class AreFile:
    """An ARE XML file: its path and its documents in order."""

    path: Path
    documents: tuple[AreDocument, ...]


# --- building documents from a stream of elements --------------------------------------------


def _flag(attrs: Mapping[str, str]) -> bool:
    kind = attrs.get("type")
    return kind is not None and (kind == "pronoun" or kind.strip().lower() == "pronoun")


_NUMBERS: list[str] = []
_NUMBERED: dict[int, Mapping[str, int]] = {}


def _numbered(ids: list[str]) -> Mapping[str, int] | None:
    """The token map of ids ``"1"``, ``"2"``, ... ``"n"`` in text order (the usual layout),
    shared by every document of that length; ``None`` for other ids.  The ids are compared
    one by one (positions still follow the order of the nodes, never id arithmetic)."""
    size = len(ids)
    if not size or ids[0] != "1" or ids[-1] != str(size):
        return None
    if len(_NUMBERS) < size:
        _NUMBERS.extend(str(k) for k in range(len(_NUMBERS) + 1, size + 1))
    if ids != _NUMBERS[:size]:
        return None
    tokens = _NUMBERED.get(size)
    if tokens is None:
        tokens = _NUMBERED[size] = dict(zip(_NUMBERS[:size], range(size), strict=True))
    return tokens


@dataclass(slots=True)
class _DocumentBuilder:
    path: Path
    key: str | None
    line: int
    entities: set[str] = field(default_factory=set)
    token_ids: list[str] = field(default_factory=list)
    token_lines: list[tuple[int, int]] = field(default_factory=list)
    listed: list[Ref] = field(default_factory=list)
    has_list: bool = False
    pairs: list[Pair] = field(default_factory=list)
    chains: list[Chain] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (
            self.entities
            or self.token_ids
            or self.listed
            or self.has_list
            or self.pairs
            or self.chains
        )

    def build(self, locate: Callable[[str, int], int]) -> AreDocument:
        tokens = _numbered(self.token_ids)
        if tokens is None:
            tokens = dict(zip(self.token_ids, range(len(self.token_ids)), strict=False))
        if len(tokens) != len(self.token_ids):
            seen: set[str] = set()
            for index, token in enumerate(self.token_ids):
                if token in seen:
                    raise InputError(
                        f'<node id="{token}">: the token id is used twice in the text '
                        "(token ids must be unique in a document)",
                        self.path,
                        locate(token, index),
                    )
                seen.add(token)
        return AreDocument(
            self.key,
            self.line,
            frozenset(self.entities),
            tokens,
            tuple(self.listed),
            self.has_list,
            tuple(self.pairs),
            tuple(self.chains),
        )


class _Builder:
    """Turns start/end events into documents (the same for both parsing ways)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.depth = 0
        self.root = _DocumentBuilder(path, None, 1)
        self.documents: list[_DocumentBuilder] = []
        self.current = self.root
        self.document_depth = -1
        self.chain: list[Ref] | None = None
        self.chain_head: tuple[str | None, int] = (None, 0)
        self.pair: dict[str, Ref] | None = None
        self.pair_head: tuple[str | None, int] = (None, 0)
        self.in_list = 0

    def _error(self, message: str, line: int) -> InputError:
        return InputError(message, self.path, line)

    def start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        depth = self.depth
        self.depth += 1
        if depth == 0:
            self.root.key = attrs.get("id")
            self.root.line = line
            return
        if depth == 1 and name.lower() == "document":
            self.current = _DocumentBuilder(self.path, attrs.get("id"), line)
            self.documents.append(self.current)
            self.document_depth = self.depth
            return
        handler = _START.get(name)
        if handler is not None:
            handler(self, name, attrs, line)

    def end(self, name: str, line: int) -> None:
        self.depth -= 1
        if self.depth == 0:  # the root element's end
            return
        if self.depth + 1 == self.document_depth and name.lower() == "document":
            self.current = self.root
            self.document_depth = -1
            return
        handler = _END.get(name)
        if handler is not None:
            handler(self, line)

    # element handlers

    def _chain_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is not None:
            raise self._error(
                f"<chain> inside the <chain> of line {self.chain_head[1]}; chains do not nest", line
            )
        if self.pair is not None:
            raise self._error("<chain> inside a <pair>", line)
        self.chain = []
        self.chain_head = (attrs.get("id"), line)

    def _chain_end(self, line: int) -> None:
        assert self.chain is not None
        self.current.chains.append(Chain(self.chain_head[0], tuple(self.chain), self.chain_head[1]))
        self.chain = None

    def _pair_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is not None:
            raise self._error(
                f"<pair> inside the <pair> of line {self.pair_head[1]}; pairs do not nest", line
            )
        if self.chain is not None:
            raise self._error("<pair> inside a <chain>", line)
        self.pair = {}
        self.pair_head = (attrs.get("id"), line)

    def _pair_end(self, line: int) -> None:
        assert self.pair is not None
        pair_id, head = self.pair_head
        for part in ("pronoun", "antecedent"):
            if part not in self.pair:
                raise self._error(
                    f"<pair{_id_text(pair_id)}> has no <{part}>; a pair needs one <pronoun> and "
                    "one <antecedent>",
                    head,
                )
        self.current.pairs.append(
            Pair(pair_id, self.pair["pronoun"], self.pair["antecedent"], head)
        )
        self.pair = None

    def _list_start(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        self.in_list += 1
        self.current.has_list = True

    def _list_end(self, line: int) -> None:
        self.in_list -= 1

    def _ref(self, name: str, attrs: Mapping[str, str], line: int) -> Ref:
        return Ref(attrs.get("id"), attrs.get("start"), attrs.get("end"), _flag(attrs), line, name)

    def _pronoun(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is not None:
            self._pair_part(name, attrs, line)
        elif self.in_list:
            ref = self._ref(name, attrs, line)
            if ref.id is None:
                raise self._error("<pronoun> in <anaphoric_pronouns> has no id attribute", line)
            self.current.listed.append(ref)
        else:
            raise self._error(
                "<pronoun> outside <pair> and <anaphoric_pronouns>; expected it in one of them",
                line,
            )

    def _pair_part(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.pair is None:
            raise self._error(f"<{name}> outside a <pair>", line)
        if name in self.pair:
            raise self._error(
                f"a second <{name}> in the <pair> of line {self.pair_head[1]}; "
                "a pair has one pronoun and one antecedent",
                line,
            )
        self.pair[name] = self._ref(name, attrs, line)

    def _node(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is not None:
            self.chain.append(self._ref(name, attrs, line))
            return
        token = attrs.get("id")
        if token is None:
            raise self._error("<node> outside a chain (a token) has no id attribute", line)
        self.tokens([token], line)

    def tokens(self, ids: list[str], line: int) -> None:
        """Token nodes (ids in text order), the first on ``line``."""
        current = self.current
        current.token_lines.append((len(current.token_ids), line))
        current.token_ids.extend(ids)

    def _mention(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        if self.chain is None:
            raise self._error("<mention> outside a <chain>", line)
        self.chain.append(self._ref(name, attrs, line))

    def _entity(self, name: str, attrs: Mapping[str, str], line: int) -> None:
        entity = attrs.get("id")
        if entity is None:
            raise self._error("<entity> has no id attribute", line)
        self.current.entities.add(entity)

    def finish(self, locate: Callable[[_DocumentBuilder, str, int], int]) -> AreFile:
        if self.documents and not self.root.is_empty():
            raise self._error(
                "elements outside the <document> elements (chains, pairs, tokens or entities "
                "directly under the root); put every one inside a document",
                self.root.line,
            )
        builders = self.documents or [self.root]
        documents = []
        for builder in builders:

            def where(token: str, index: int, b: _DocumentBuilder = builder) -> int:
                return locate(b, token, index)

            documents.append(builder.build(where))
        return AreFile(self.path, tuple(documents))


def _id_text(value: str | None) -> str:
    return "" if value is None else f' id="{value}"'


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


# --- parsing ------------------------------------------------------------------------------------


def _expat(path: Path) -> Any:
    """A defusedxml expat parser: entity declarations and external references raise."""
    from defusedxml.ElementTree import DefusedXMLParser

    class _NoTarget:
        """Receives nothing: the element callbacks are set (or not) by the caller."""

    parser = DefusedXMLParser(target=_NoTarget())
    expat = parser.parser
    expat.DefaultHandlerExpand = None
    expat.ordered_attributes = False
    return expat


def _safe_parse(path: Path, data: bytes, expat: Any) -> None:
    """Run ``expat`` over ``data``; every refusal or syntax error becomes an InputError."""
    from xml.parsers.expat import ExpatError

    from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden

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
    except DTDForbidden:  # pragma: no cover - forbid_dtd is off
        raise InputError("document type declarations are not allowed", path) from None
    except (LookupError, UnicodeError) as error:  # an encoding expat does not know, or bad bytes
        raise InputError(f"cannot decode the XML: {error}", path, expat.CurrentLineNumber) from None
    except DefusedXmlException as error:
        raise InputError(
            f"XML external reference refused ({error}): external entities are not allowed",
            path,
            expat.CurrentLineNumber,
        ) from None


class _NotFast(Exception):
    """The fast way cannot prove the file well-formed, or met a problem: read it the slow way."""


_S = "[ \t\r\n]"
_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_ATTRIBUTE = _NAME + _S + "*=" + _S + r"""*(?:"[^"<]*"|'[^'<]*')"""
_ATTRS = "(?:" + _S + "+" + _ATTRIBUTE + ")*"
_ID = r"""[^"<&\t\n\r]*"""
_MEMBER = "<(?:node|mention)" + _ATTRS + _S + "*/>"
_PART = "<(?:pronoun|antecedent)" + _ATTRS + _S + "*/>"
_RUN = f'<node id="{_ID}"/>[^<]*'
_CHAIN = f"<chain{_ATTRS}{_S}*>(?:[^<]*{_MEMBER})*[^<]*</chain{_S}*>"
_PAIR = f"<pair{_ATTRS}{_S}*>[^<]*{_PART}[^<]*{_PART}[^<]*</pair{_S}*>"
_TAG = re.compile(
    "<(?:"
    f'(?P<run>node id="{_ID}"/>[^<]*(?:{_RUN})*)'
    f"|(?P<text>text(?P<text_head>{_ATTRS}){_S}*>"
    f'(?P<words>[^<]*(?:(?:<node id="{_ID}"/>|<entity{_ATTRS}{_S}*>|</entity{_S}*>)[^<]*)*)'
    f"</text{_S}*>)"
    f"|(?P<chains>chain{_ATTRS}{_S}*>(?:[^<]*{_MEMBER})*[^<]*</chain{_S}*>(?:[^<]*{_CHAIN})*)"
    f"|(?P<pairs>pair{_ATTRS}{_S}*>[^<]*{_PART}[^<]*{_PART}[^<]*</pair{_S}*>(?:[^<]*{_PAIR})*)"
    f"|(?P<list>anaphoric_pronouns(?P<list_head>{_ATTRS}){_S}*>"
    f"(?P<listed>(?:{_S}*<pronoun{_ATTRS}{_S}*/>)*){_S}*</anaphoric_pronouns{_S}*>)"
    f"|(?P<close>/?)(?P<name>{_NAME})(?P<attrs>{_ATTRS}){_S}*(?P<empty>/?)>"
    r"|!--(?:[^-]|-(?!-))*-->"
    ")"
)
_CHAIN_ITEMS = re.compile(f"<chain({_ATTRS}){_S}*>|<(node|mention)({_ATTRS}){_S}*/>")
_PAIR_ITEMS = re.compile(f"<pair({_ATTRS}){_S}*>|<(pronoun|antecedent)({_ATTRS}){_S}*/>")
_LISTED = re.compile(f"<pronoun({_ATTRS}){_S}*/>")
_RUN_ID = re.compile(f'<node id="({_ID})"')
_ENTITY_ID = re.compile(f'<entity id="({_ID})">')
_ENTITY_TAG = re.compile(f"<entity({_ATTRS}){_S}*>")
_ENTITY_MARK = re.compile("<(/?e)ntity")
_ATTR = re.compile(f"""({_NAME}){_S}*={_S}*(?:"([^"]*)"|'([^']*)')""")
_DECLARATION = re.compile(
    f"<\\?xml{_S}+version{_S}*={_S}*(?:\"1\\.0\"|'1\\.0')"
    f"(?:{_S}+encoding{_S}*={_S}*(?:\"(?P<dq>[A-Za-z][A-Za-z0-9._\\-]*)\"|'(?P<sq>[A-Za-z][A-Za-z0-9._\\-]*)'))?"
    f"(?:{_S}+standalone{_S}*={_S}*(?:\"(?:yes|no)\"|'(?:yes|no)'))?{_S}*\\?>"
)
_REFERENCE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_WHITESPACE = str.maketrans("\t\n\r", "   ")
_CONTROL = bytes(range(9)) + b"\x0b\x0c" + bytes(range(14, 32))


def _reference(match: re.Match[str]) -> str:
    name = match.group(1)
    if name.startswith("#x"):
        return chr(int(name[2:], 16))
    if name.startswith("#"):
        return chr(int(name[1:]))
    return _NAMED[name]


def _xml_char(code: int) -> bool:
    """Whether a character reference names a character XML 1.0 allows."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def _attribute_value(raw: str) -> str:
    """An attribute value as XML gives it: line ends and whitespace normalised, references."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n")
    value = raw.translate(_WHITESPACE)
    return _REFERENCE.sub(_reference, value) if "&" in value else value


def _attributes(raw: str) -> dict[str, str]:
    """The attributes of a tag (its text after the name); a name twice is not well-formed."""
    found = _ATTR.findall(raw)
    if "&" in raw or "\t" in raw or "\n" in raw or "\r" in raw:
        attrs = {name: _attribute_value(dq or sq) for name, dq, sq in found}
    else:
        attrs = {name: dq or sq for name, dq, sq in found}
    if len(attrs) != len(found):
        raise _NotFast
    return attrs


def _fast_text(data: bytes) -> tuple[str, int]:
    """The text of a file the fast way may read, and where its body starts (after the XML
    declaration); raises :class:`_NotFast` for anything else.

    The checks are the ones expat would make on the characters: UTF-8 (or ASCII when the
    declaration says so), no character XML forbids, ``&`` only in a predefined or valid
    character reference, no ``<!`` but a comment (so no DOCTYPE and no entity declaration:
    nothing can expand), no processing instruction, no namespace declaration, no bare ``\\r``
    (which expat counts as a line end).
    """
    if len(data.translate(None, _CONTROL)) != len(data):
        raise _NotFast
    if not data.isascii() and (b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data):
        raise _NotFast
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _NotFast from None
    body = 0
    if text.startswith("<?xml"):
        declared = _DECLARATION.match(text)
        if declared is None:
            raise _NotFast
        encoding = (declared.group("dq") or declared.group("sq") or "utf-8").lower()
        if encoding not in ("utf-8", "us-ascii") or (encoding == "us-ascii" and not data.isascii()):
            raise _NotFast
        body = declared.end()
    if data.count(b"?") > 2 * (body > 0) and "<?" in text[body:]:
        raise _NotFast
    if data.count(b"!") and text.count("<!") != text.count("<!--"):
        raise _NotFast
    if data.count(b"]") and "]]>" in text:
        raise _NotFast
    if data.count(b"\r") and text.count("\r") != text.count("\r\n"):
        raise _NotFast
    if b"xmlns" in data:
        raise _NotFast
    if data.count(b"&"):
        references = _REFERENCE.findall(text)
        if len(references) != text.count("&"):
            raise _NotFast
        for name in references:
            if name.startswith("#") and not _xml_char(
                int(name[2:], 16) if name.startswith("#x") else int(name[1:])
            ):
                raise _NotFast
    return text, body


def _balanced(marks: list[str]) -> bool:
    """Whether ``<entity>`` (``e``) and ``</entity>`` (``/e``) marks nest properly."""
    chain = "".join(marks)
    while "e/e" in chain:
        chain = chain.replace("e/e", "")
    return not chain


def _items(
    pattern: re.Pattern[str], region: str, line: int, ends: int
) -> list[tuple[int, str, str, str]]:
    """``(line, head, kind, attributes)`` of the start tags and empty members of a region of
    blocks (chains, pairs) that starts on ``line``, in order; ``ends`` = its end tags."""
    if "\n" not in region:
        return [(line, *found) for found in pattern.findall(region)]
    items = [
        (at, *found)
        for at, text in enumerate(region.split("\n"), line)
        for found in pattern.findall(text)
    ]
    if len(items) + ends != region.count("<"):  # a tag across lines: find each one's line
        items = []
        for match in pattern.finditer(region):
            found = match.group(1, 2, 3)
            items.append((line + region.count("\n", 0, match.start()), *found))
    return items


def _scan(text: str, body: int, builder: _Builder) -> None:
    """Feed the tags of ``text`` (from offset ``body``) to ``builder``, proving on the way that
    the file is well-formed XML (the fast way; see :func:`parse_are`).

    Every ``<`` must open a tag, a comment or one of the blocks below (the count of ``<``
    consumed is checked against the file's), start and end tags must nest (a stack of names),
    there must be one root element with only white space and comments around it, and no tag
    may repeat an attribute.  Blocks read at once, each proved well-formed by its pattern:
    a ``<text>`` of words, token nodes and (nested) entities, a chain of empty members, a pair
    of two empty parts, a list of empty pronouns, a run of ``<node id="N"/>`` tokens.  Anything
    else raises :class:`_NotFast`.
    """
    cache: dict[str, dict[str, str]] = {}
    bases: dict[str, tuple[str | None, str | None, str | None, bool]] = {}
    new = tuple.__new__

    def base_of(raw: str) -> tuple[str | None, str | None, str | None, bool]:
        """A reference's id, start, end and pronoun flag (cached by its attribute text)."""
        attrs = cache.get(raw)
        if attrs is None:
            attrs = cache[raw] = _attributes(raw)
        base = bases[raw] = (attrs.get("id"), attrs.get("start"), attrs.get("end"), _flag(attrs))
        return base

    def inside() -> bool:
        """Whether a block may be read at once: below the root, outside chains and pairs."""
        return builder.depth > 0 and builder.chain is None and builder.pair is None

    stack: list[str] = []
    rooted = False
    line = 1 + text.count("\n", 0, body)
    last = body
    end = body
    consumed = 0
    count = text.count
    for match in _TAG.finditer(text, body):
        offset = match.start()
        if not stack and text[end:offset].strip(" \t\r\n"):
            raise _NotFast  # outside the root: only white space between tags
        line += count("\n", last, offset)
        last = offset
        end = match.end()
        run, chains, pairs, name = match.group("run", "chains", "pairs", "name")
        if name is not None:
            consumed += 1
            close, raw, empty = match.group("close", "attrs", "empty")
            if close:
                if raw or empty or not stack or stack.pop() != name:
                    raise _NotFast
                builder.end(name, line)
                continue
            if not stack:
                if rooted:
                    raise _NotFast  # a second root element
                rooted = True
            if name == "entity" and builder.depth > 0:
                attrs = cache.get(raw)
                if attrs is None:
                    attrs = cache[raw] = _attributes(raw)
                entity = attrs.get("id")
                if entity is not None:
                    builder.current.entities.add(entity)
                    if not empty:
                        builder.depth += 1
                        stack.append(name)
                    continue
            chain = builder.chain
            if empty and chain is not None and (name == "node" or name == "mention"):
                chain.append(new(Ref, (*(bases.get(raw) or base_of(raw)), line, name)))
                continue
            attrs = cache.get(raw)
            if attrs is None:
                attrs = cache[raw] = _attributes(raw)
            builder.start(name, attrs, line)
            if empty:
                builder.end(name, line)
            else:
                stack.append(name)
            continue
        whole = match.group(0)
        consumed += whole.count("<")
        if not stack:
            if whole.startswith("<!--"):
                continue
            raise _NotFast  # a block as the root element: read the slow way
        if run is not None:
            if builder.chain is not None or builder.pair is not None:
                raise _NotFast
            builder.tokens(_RUN_ID.findall(whole), line)
            continue
        if chains is not None:  # chains of empty <node>/<mention> members
            if not inside():
                raise _NotFast
            current_chains = builder.current.chains
            members: list[Ref] | None = None
            chain_id: str | None = None
            chain_line = line
            for at, head, kind, raw in _items(_CHAIN_ITEMS, whole, line, whole.count("</chain")):
                if kind:
                    members.append(new(Ref, (*(bases.get(raw) or base_of(raw)), at, kind)))  # type: ignore[union-attr]
                    continue
                if members is not None:
                    current_chains.append(Chain(chain_id, tuple(members), chain_line))
                chain_id, chain_line, members = (bases.get(head) or base_of(head))[0], at, []
            if members is not None:
                current_chains.append(Chain(chain_id, tuple(members), chain_line))
            continue
        if pairs is not None:  # pairs of two empty parts
            if not inside():
                raise _NotFast
            current_pairs = builder.current.pairs
            answer: dict[str, Ref] = {}
            pair_id: str | None = None
            pair_line = line
            for at, head, kind, raw in _items(_PAIR_ITEMS, whole, line, whole.count("</pair")):
                if not kind:
                    pair_id, pair_line = (bases.get(head) or base_of(head))[0], at
                    answer = {}
                    continue
                if kind in answer:
                    raise _NotFast  # a part twice: the slow way says where
                answer[kind] = new(Ref, (*(bases.get(raw) or base_of(raw)), at, kind))
                if len(answer) == 2:
                    current_pairs.append(
                        Pair(pair_id, answer["pronoun"], answer["antecedent"], pair_line)
                    )
            continue
        if match.group("list") is not None:  # <anaphoric_pronouns> of empty pronouns
            if not inside():
                raise _NotFast
            _attributes(match.group("list_head"))
            listed_text = match.group("listed")
            listed_line = line + count("\n", offset, match.start("listed"))
            multiline = "\n" in listed_text
            listed = builder.current.listed
            for item in _LISTED.finditer(listed_text):
                raw = item.group(1)
                base = bases.get(raw) or base_of(raw)
                if base[0] is None:
                    raise _NotFast  # a pronoun without an id: the slow way says where
                at = (
                    listed_line + listed_text.count("\n", 0, item.start())
                    if multiline
                    else listed_line
                )
                listed.append(new(Ref, (*base, at, "pronoun")))
            builder.current.has_list = True
            continue
        if match.group("text") is not None:  # words, token nodes and entities
            if not inside():
                raise _NotFast
            _attributes(match.group("text_head"))
            words = match.group("words")
            if "<" not in words:
                continue
            if "<node" in words:
                first = words.index("<node")
                builder.tokens(
                    _RUN_ID.findall(words),
                    line + count("\n", offset, match.start("words") + first),
                )
            if "<entity" in words:
                ids = _ENTITY_ID.findall(words)
                if len(ids) != words.count("<entity"):
                    ids = []
                    for raw in _ENTITY_TAG.findall(words):
                        attrs = cache.get(raw)
                        if attrs is None:
                            attrs = cache[raw] = _attributes(raw)
                        if "id" not in attrs:
                            raise _NotFast  # an entity without an id: the slow way says where
                        ids.append(attrs["id"])
                if not _balanced(_ENTITY_MARK.findall(words)):
                    raise _NotFast
                builder.current.entities.update(ids)
            elif "</entity" in words:
                raise _NotFast
            continue
    if stack or not rooted or consumed != count("<", body) or text[end:].strip(" \t\r\n"):
        raise _NotFast


def _slow_parse(path: Path, data: bytes, builder: _Builder) -> None:
    """Feed the elements to ``builder`` from expat's own callbacks (any encoding, DTDs)."""
    expat = _expat(path)

    def start(name: str, attrs: dict[str, str]) -> None:
        builder.start(name, attrs, expat.CurrentLineNumber)

    def end(name: str) -> None:
        builder.end(name, expat.CurrentLineNumber)

    expat.StartElementHandler = start
    expat.EndElementHandler = end
    _safe_parse(path, data, expat)


def _token_locator(text: str | None, data: bytes) -> Callable[[_DocumentBuilder, str, int], int]:
    def locate(builder: _DocumentBuilder, token: str, index: int) -> int:
        start_line = 1
        for first, line in builder.token_lines:
            if first <= index:
                start_line = line
        source = text if text is not None else data.decode("utf-8", "replace")
        lines = source.split("\n")
        pattern = re.compile(r"<node\b[^>]*\bid\s*=\s*[\"']" + re.escape(token) + r"[\"']")
        seen = 0
        for number in range(start_line - 1, len(lines)):
            for _ in pattern.finditer(lines[number]):
                seen += 1
                if seen == 2:
                    return number + 1
        return start_line

    return locate


def parse_are(path: Path, data: bytes, *, fast: bool = True) -> AreFile:
    """Parse the bytes of an ARE XML file (see the module doc); ``fast=False`` forces the slow
    way (the tests compare both ways).

    The fast way (:func:`_fast_text`, :func:`_scan`) reads the tags with regular expressions
    while proving the file well-formed; when it cannot (a DOCTYPE, another encoding, a CDATA
    section, a processing instruction, a layout it does not know) or meets any problem, the
    file is read the slow way: defusedxml's expat checks the whole file (refusing entity
    declarations and external references, and naming the first syntax error), then expat's
    own callbacks feed the same builder, whose errors name the element and its line.
    """
    if fast:
        try:
            text, body = _fast_text(data)
            builder = _Builder(path)
            _scan(text, body, builder)
            return builder.finish(_token_locator(text, data))
        except (_NotFast, InputError):
            pass
    checker = _expat(path)
    _safe_parse(path, data, checker)
    builder = _Builder(path)
    _slow_parse(path, data, builder)
    return builder.finish(_token_locator(None, data))


def read_are(path: Path) -> AreFile:
    """Read one ARE XML file (input, gold or system output) into an :class:`AreFile`."""
    with reading(path):
        data = path.read_bytes()
    return parse_are(path, data)
