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

Safety: the XML is parsed by defusedxml's expat parser, which refuses entity declarations
(billion laughs) and external entities; both, malformed XML, and every structural problem
(a ``<pair>`` without a pronoun or antecedent, a ``<pronoun>`` outside a pair or the list, a
chain inside a chain, a token node without an id, a token id twice) raise
:class:`~annoscore.errors.InputError` naming the file, the line and the element.

Speed: defusedxml's expat first checks the whole file at C speed (no Python call per
element).  A UTF-8 file without a document type declaration is then read by a regular
expression over its tags, which the check has proved well-formed (comments, CDATA sections and
processing instructions are skipped; character references in attributes are replaced and
whitespace normalised as XML prescribes); runs of plain ``<node id="N"/>`` token markers are
read in bulk.  Any other file (a DOCTYPE, another encoding) is read by expat's own element
callbacks.  Both ways give the same documents (a test compares them).

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
    except DefusedXmlException as error:
        raise InputError(
            f"XML external reference refused ({error}): external entities are not allowed",
            path,
            expat.CurrentLineNumber,
        ) from None


_ATTRIBUTE = r"""[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*')"""
_MEMBER = r"<(?:node|mention)(?:\s+" + _ATTRIBUTE + r")*\s*/>"
_PART = r"<(?:pronoun|antecedent)(?:\s+" + _ATTRIBUTE + r")*\s*/>"
_TAG = re.compile(
    r"<(?:"
    r"""(?P<run>node\s+id="[^"&<\s]*"\s*/>[^<]*(?:<node\s+id="[^"&<\s]*"\s*/>[^<]*)*)"""
    r"|(?P<block>chain(?P<head>(?:\s+" + _ATTRIBUTE + r")*)\s*>"
    r"(?P<body>(?:\s*" + _MEMBER + r")*)\s*</chain\s*>)"
    r"|(?P<pair>pair(?P<pair_head>(?:\s+" + _ATTRIBUTE + r")*)\s*>"
    r"(?P<parts>\s*" + _PART + r"\s*" + _PART + r")\s*</pair\s*>)"
    r"|(?P<close>/?)(?P<name>[^\s/>!?]+)"
    r"(?P<attrs>(?:\s+" + _ATTRIBUTE + r")*)\s*(?P<empty>/?)>"
    r"|!--.*?-->|\?.*?\?>|!\[CDATA\[.*?\]\]>"
    r")",
    re.S,
)
_PARTS = re.compile(r"<(pronoun|antecedent)((?:\s+" + _ATTRIBUTE + r")*)\s*/>")
_MEMBERS = re.compile(r"<(node|mention)((?:\s+" + _ATTRIBUTE + r")*)\s*/>")
_RUN_ID = re.compile(r'<node\s+id="([^"]*)"')
_ATTR = re.compile(r"""([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_REFERENCE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_WHITESPACE = str.maketrans("\t\n\r", "   ")


def _reference(match: re.Match[str]) -> str:
    name = match.group(1)
    if name.startswith("#x"):
        return chr(int(name[2:], 16))
    if name.startswith("#"):
        return chr(int(name[1:]))
    return _NAMED[name]


def _attribute_value(raw: str) -> str:
    """An attribute value as XML gives it: line ends and whitespace normalised, references."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n")
    value = raw.translate(_WHITESPACE)
    return _REFERENCE.sub(_reference, value) if "&" in value else value


def _attributes(raw: str) -> dict[str, str]:
    found = _ATTR.findall(raw)
    if "&" in raw or "\t" in raw or "\n" in raw or "\r" in raw:
        return {name: _attribute_value(dq or sq) for name, dq, sq in found}
    return {name: dq or sq for name, dq, sq in found}


def _scan(text: str, builder: _Builder) -> None:
    """Feed the tags of well-formed, DTD-free ``text`` to ``builder`` (the fast way)."""
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

    line = 1
    last = 0
    count = text.count
    for match in _TAG.finditer(text):
        offset = match.start()
        line += count("\n", last, offset)
        last = offset
        run, block, pair, close, name, raw, empty = match.group(
            "run", "block", "pair", "close", "name", "attrs", "empty"
        )
        if name == "entity" and not close and builder.depth > 0:
            attrs = cache.get(raw)
            if attrs is None:
                attrs = cache[raw] = _attributes(raw)
            entity = attrs.get("id")
            if entity is not None:
                builder.current.entities.add(entity)
                builder.depth += 0 if empty else 1
                continue
        if pair is not None:  # a pair of two empty parts: read at once
            builder.start("pair", _attributes(match.group("pair_head")), line)
            parts = match.group("parts")
            parts_line = line + count("\n", offset, match.start("parts"))
            answer = builder.pair
            multiline = "\n" in parts
            for part in _PARTS.finditer(parts):
                at = parts_line + parts.count("\n", 0, part.start()) if multiline else parts_line
                kind, raw = part.group(1, 2)
                if answer is None or kind in answer:  # the root is a pair, or a part twice
                    builder.start(kind, _attributes(raw), at)
                    builder.end(kind, at)
                else:
                    answer[kind] = new(Ref, (*(bases.get(raw) or base_of(raw)), at, kind))
            builder.end("pair", line + count("\n", offset, match.end()))
            continue
        if block is not None:  # a chain of empty <node>/<mention> members: read at once
            head = match.group("head")
            body = match.group("body")
            body_line = line + count("\n", offset, match.start("body"))
            if builder.chain is None and builder.pair is None and builder.depth > 0:
                members: list[Ref] = []
                if "\n" in body:
                    for member in _MEMBERS.finditer(body):
                        kind, raw = member.group(1, 2)
                        at = body_line + body.count("\n", 0, member.start())
                        members.append(new(Ref, (*(bases.get(raw) or base_of(raw)), at, kind)))
                else:
                    members = [
                        new(Ref, (*(bases.get(raw) or base_of(raw)), body_line, kind))
                        for kind, raw in _MEMBERS.findall(body)
                    ]
                chain_id = (bases.get(head) or base_of(head))[0]
                builder.current.chains.append(Chain(chain_id, tuple(members), line))
                continue
            builder.start("chain", _attributes(head), line)
            chain = builder.chain
            if chain is None:  # the root element is a chain: its members are what start() says
                for member in _MEMBERS.finditer(body):
                    at = body_line + body.count("\n", 0, member.start())
                    builder.start(member.group(1), _attributes(member.group(2)), at)
                    builder.end(member.group(1), at)
            elif "\n" in body:
                for member in _MEMBERS.finditer(body):
                    kind, raw = member.group(1, 2)
                    at = body_line + body.count("\n", 0, member.start())
                    chain.append(new(Ref, (*(bases.get(raw) or base_of(raw)), at, kind)))
            else:
                for kind, raw in _MEMBERS.findall(body):
                    chain.append(new(Ref, (*(bases.get(raw) or base_of(raw)), body_line, kind)))
            builder.end("chain", line + count("\n", offset, match.end()))
            continue
        if run is not None:
            run = match.group(0)  # with its first "<"
            if builder.chain is not None:  # chain members, one by one (with their lines)
                for node in _RUN_ID.finditer(run):
                    at = line + run.count("\n", 0, node.start())
                    builder.start("node", {"id": node.group(1)}, at)
                    builder.end("node", at)
            else:
                builder.tokens(_RUN_ID.findall(run), line)
            continue
        if name is None:  # comment, processing instruction, CDATA
            continue
        if close:
            builder.end(name, line)
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


def _fast_text(data: bytes, seen: Mapping[str, object]) -> str | None:
    """The file as text when the fast way may read it (UTF-8, no DOCTYPE), else ``None``."""
    if seen["doctype"] or seen["encoding"] not in (None, "utf-8", "us-ascii"):
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


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
    """Parse the bytes of an ARE XML file (see the module doc); ``fast=False`` forces expat's
    callbacks (the tests compare both ways)."""
    checker = _expat(path)
    seen: dict[str, object] = {"doctype": False, "encoding": None}

    def doctype(*_: object) -> None:
        seen["doctype"] = True

    def declaration(version: str | None, encoding: str | None, standalone: int) -> None:
        seen["encoding"] = encoding.lower() if encoding else None

    checker.StartDoctypeDeclHandler = doctype
    checker.XmlDeclHandler = declaration
    _safe_parse(path, data, checker)
    builder = _Builder(path)
    text = _fast_text(data, seen) if fast else None
    if text is not None:
        _scan(text, builder)
    else:
        _slow_parse(path, data, builder)
    return builder.finish(_token_locator(text, data))


def read_are(path: Path) -> AreFile:
    """Read one ARE XML file (input, gold or system output) into an :class:`AreFile`."""
    with reading(path):
        data = path.read_bytes()
    return parse_are(path, data)
