"""``annoscore are`` tasks 1-4 held to the plain reference of ``tests/oracles/are.py``.

Random cases through the real reader: XML files in a temporary folder (one file per side, or
folders of them), several documents paired by id (chosen independently on each side from an
adversarial pool, so documents exist on one side only) or by position, or a bare root; ids of
entities and tokens in canonical decimal (which the columnar scan reads, up to 18 digits and
past it), or adversarial text (1-40 bytes, multi-byte UTF-8, numeric-looking forms: the checked
parser reads them); files written in the scan's layout or in one it declines (a comment, a
DOCTYPE, single quotes, another attribute order, CRLF, a byte-order mark), so both ways of the
reader run; documents sized past the thresholds (18-digit ids over several documents, where
ids are keyed by rank; token ids that are not ``1..n``; tied overlaps that need the whole
assignment, built in small blocks).  Every few cases a reference is damaged (an unknown id or
token, a missing attribute, an id or mention twice, a start after its end, a pronoun listed
twice, a missing input document, a token id twice, a document id twice): both must then
refuse the input, naming the same file and line.

Counts per document, scores and warnings (code, count, examples) must be equal; integer counts
exactly, sums of fractions to 1e-12 (the reference sums exact fractions).  Every fourth case of
single files is scored from the files' bytes parsed in memory (``count_are_N``), the rest by
path (``score_are_N``).

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest

from annoscore.align import are as align_are
from annoscore.errors import InputError
from annoscore.formats import are_columns
from annoscore.formats.are import AreFile, parse_are
from annoscore.result import Result
from annoscore.tasks import are as tasks_are
from tests.equivalence.ids import id_pool
from tests.oracles import are as oracle

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
CASES = max(1, int(250 * MULTIPLIER))
"""Cases per (task, batch): 4 tasks x 2 batches x 250 = 2,000 by default."""

FORBIDDEN = "\"'<>&\t\n\r"


# --- the model of one case ----------------------------------------------------------------------


@dataclass
class Member:
    id: str | None = None
    start: str | None = None
    end: str | None = None
    pronoun: bool = False


@dataclass
class Document:
    """One document of every side (``None`` where a side does not have it)."""

    key: str | None
    gold: list[list[Member]] | None = None
    system_chains: list[list[Member]] | None = None
    system_pairs: list[tuple[Member, Member]] | None = None
    entities: list[str] | None = None
    listed: list[str] | None = None
    tokens: list[str] | None = None
    in_input: bool = True
    in_gold: bool = True
    in_system: bool = True


@dataclass
class Case:
    task: int
    documents: list[Document] = field(default_factory=list)
    layout: str = "ids"  # ids, positions, root
    damage: str | None = None


def _ids(rng: random.Random, count: int, numeric: bool, long: bool) -> list[str]:
    """Distinct ids: canonical decimals (18 or 19 digits when ``long``), or adversarial text."""
    if numeric:
        if long:  # 18 digits (the scan's most) or 19 (past it: a name)
            digits = rng.choice([18, 19])
            values = [rng.randrange(10 ** (digits - 1), 10**digits) for _ in range(count)]
        else:
            values = rng.sample(range(max(12, 3 * count)), count)
        out = list(dict.fromkeys(str(v) for v in values))
        if rng.random() < 0.2:  # a leading zero: a name, not a number
            out = [("0" + i if rng.random() < 0.3 else i) for i in out]
        return list(dict.fromkeys(out))
    return id_pool(rng, count, forbidden=FORBIDDEN)


def _chains(rng: random.Random, items: list, pronoun_rate: float) -> list[list]:  # type: ignore[type-arg]
    """A random partition of ``items`` into chains (sizes 1 to 4, most of two or more)."""
    items = list(items)
    rng.shuffle(items)
    chains = []
    while items:
        size = min(len(items), rng.choice([1, 2, 2, 3, 3, 4]))
        chains.append(items[:size])
        items = items[size:]
    return chains


def _id_document(
    rng: random.Random, task: int, key: str | None, numeric: bool, long: bool
) -> Document:
    size = rng.randint(0, 12)
    pool = _ids(rng, size + 3, numeric, long)
    entities = pool[:size]
    checked = rng.random() < 0.8
    doc = Document(key, entities=entities if checked else [])
    universe = entities if checked else pool
    marks = rng.random()
    gold_ids = rng.sample(universe, rng.randint(0, len(universe)))
    doc.gold = [
        [Member(id=i, pronoun=rng.random() < marks) for i in chain]
        for chain in _chains(rng, gold_ids, marks)
    ]
    if task == 1:
        if rng.random() < 0.85:
            doc.listed = rng.sample(universe, rng.randint(0, len(universe)))
        pairs = []
        asked = (doc.listed or []) + rng.sample(universe, min(len(universe), 2))
        for p in asked:
            if rng.random() < 0.2 or not universe:
                continue
            a = rng.choice(universe)
            pairs.append((Member(id=p), Member(id=a)))
            if rng.random() < 0.1:  # answered twice
                pairs.append((Member(id=p), Member(id=rng.choice(universe))))
        rng.shuffle(pairs)
        doc.system_pairs = pairs
    else:
        system_ids = rng.sample(universe, rng.randint(0, len(universe)))
        doc.system_chains = [[Member(id=i) for i in chain] for chain in _chains(rng, system_ids, 0)]
    return doc


def _span(rng: random.Random, size: int, long_rate: float = 0.3) -> tuple[int, int]:
    start = rng.randrange(size)
    length = rng.randrange(size) if rng.random() < 0.05 else rng.choice([0, 0, 1, 1, 2, 3])
    return start, min(size - 1, start + length)


def _mention_document(
    rng: random.Random, task: int, key: str | None, numeric: bool, big: bool
) -> Document:
    size = rng.randint(200, 400) if big else rng.randint(1, 16)
    if numeric and rng.random() < 0.8:
        tokens = [str(k) for k in range(1, size + 1)]
    elif numeric:
        tokens = [str(v) for v in rng.sample(range(1, 10 * size + 10), size)]
    else:
        tokens = id_pool(rng, size, forbidden=FORBIDDEN)
        size = len(tokens)
    doc = Document(key, tokens=tokens)

    def member(span: tuple[int, int], pronoun: bool = False) -> Member:
        return Member(start=tokens[span[0]], end=tokens[span[1]], pronoun=pronoun)

    count = rng.randint(0, min(size * 2, 120 if big else 9))
    spans = list(dict.fromkeys(_span(rng, size) for _ in range(count)))
    rate = rng.random()
    gold_pronouns = {s: rng.random() < rate for s in spans}
    chains = _chains(rng, spans, rate)
    doc.gold = [[member(s, gold_pronouns[s]) for s in chain] for chain in chains]
    if task == 3:
        pairs = []
        for s in spans:
            if rng.random() < 0.3:
                continue
            # a pronoun that is partly a gold one, or nowhere
            p = _span(rng, size) if rng.random() < 0.2 else s
            others = [m for chain in chains if s in chain for m in chain if m != s]
            if others and rng.random() < 0.7:
                a = rng.choice(others)
                step = rng.choice([0, 0, 1, -1])
                a = (min(size - 1, max(0, a[0] + step)), a[1])
                a = (min(a), max(a))
            else:
                a = _span(rng, size)
            pairs.append((member(p), member(a)))
            if rng.random() < 0.1:
                pairs.append((member(p), member(_span(rng, size))))
        rng.shuffle(pairs)
        doc.system_pairs = pairs
    else:
        moved = []
        for s in spans:
            if rng.random() < 0.2:
                continue
            moves = rng.choice([(0, 0), (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)])
            low = min(size - 1, max(0, s[0] + moves[0]))
            high = min(size - 1, max(0, s[1] + moves[1]))
            moved.append((min(low, high), max(low, high)))
        moved += [_span(rng, size) for _ in range(rng.randint(0, 3))]
        moved = list(dict.fromkeys(moved))
        doc.system_chains = [[member(s) for s in chain] for chain in _chains(rng, moved, 0)]
    return doc


def make_case(rng: random.Random, task: int) -> Case:
    case = Case(task, layout=rng.choice(["ids", "ids", "ids", "positions", "root"]))
    numeric = rng.random() < 0.6
    long = rng.random() < 0.15
    big = rng.random() < 0.03
    count = 1 if case.layout == "root" else rng.randint(1, 8 if long else 5)
    keys: list[str | None] = [None] * count
    if case.layout == "ids":
        keys = list(id_pool(rng, count, forbidden=FORBIDDEN))
    for key in keys:
        if task in (1, 2):
            doc = _id_document(rng, task, key, numeric, long)
        else:
            doc = _mention_document(rng, task, key, numeric, big)
        if case.layout == "ids":
            side = rng.random()
            doc.in_gold, doc.in_system = side < 0.85, side > 0.15 or side < 0.7
            doc.in_input = doc.in_gold or doc.in_system or rng.random() < 0.3
        case.documents.append(doc)
    return case


DAMAGES = {
    1: ["unknown", "no-id", "twice", "listed-twice", "no-list", "no-input", "document-twice"],
    2: ["unknown", "no-id", "twice", "document-twice", "count"],
    3: ["unknown", "no-start", "backwards", "twice", "no-input", "token-twice", "document-twice"],
    4: ["unknown", "no-start", "backwards", "twice", "no-input", "token-twice", "count"],
}


def damage(rng: random.Random, case: Case) -> None:
    """One reference damaged (the kind chosen at random; some kinds may not apply)."""
    kind = rng.choice(DAMAGES[case.task])
    case.damage = kind
    docs = case.documents
    doc = rng.choice(docs)
    members = [m for chain in (doc.gold or []) for m in chain] + [
        m for chain in (doc.system_chains or []) for m in chain
    ]
    members += [m for pair in (doc.system_pairs or []) for m in pair]
    if kind == "unknown" and members:
        m = rng.choice(members)
        if case.task in (1, 2):
            m.id = "zz-unknown"
        elif rng.random() < 0.5:
            m.start = "zz-unknown"
        else:
            m.end = "zz-unknown"
    elif kind in ("no-id", "no-start") and members:
        m = rng.choice(members)
        m.id = None if kind == "no-id" else m.id
        if kind == "no-start":
            m.start = None
    elif kind == "twice" and members:
        chains = doc.gold or doc.system_chains or []
        if chains and any(chains):
            chain = rng.choice([c for c in chains if c])
            chain.append(Member(chain[0].id, chain[0].start, chain[0].end))
    elif kind == "backwards" and doc.tokens and len(doc.tokens) > 1 and members:
        m = rng.choice(members)
        m.start, m.end = doc.tokens[-1], doc.tokens[0]
    elif kind == "listed-twice" and doc.listed:
        doc.listed.append(doc.listed[0])
    elif kind == "no-list":
        doc.listed = None
        for chain in doc.gold or []:
            for m in chain:
                m.pronoun = False
    elif kind == "no-input" and case.layout == "ids":
        doc.in_input = False
    elif kind == "token-twice" and doc.tokens and len(doc.tokens) > 1:
        doc.tokens.append(doc.tokens[0])
    elif kind == "document-twice" and case.layout == "ids" and len(docs) > 1:
        docs[1].key = docs[0].key
    elif kind == "count" and case.layout == "positions" and len(docs) > 1:
        docs[-1].in_system = False


# --- writing the files --------------------------------------------------------------------------


@dataclass
class Style:
    """How a file is written: ``odd`` layouts are declined by the scan (the checked parser
    reads them)."""

    odd: bool
    quote: str = '"'
    shuffle: bool = False
    newline: str = "\n"
    bom: bool = False
    comment: bool = False
    doctype: bool = False
    declaration: bool = False

    @classmethod
    def draw(cls, rng: random.Random) -> Style:
        odd = rng.random() < 0.35
        style = cls(odd, bom=rng.random() < 0.05, declaration=rng.random() < 0.5)
        if odd:
            trick = rng.choice(["quote", "shuffle", "crlf", "comment", "doctype"])
            style.quote = "'" if trick == "quote" else '"'
            style.shuffle = trick == "shuffle"
            style.newline = "\r\n" if trick == "crlf" else "\n"
            style.comment = trick == "comment"
            style.doctype = trick == "doctype"
        return style

    def tag(
        self, rng: random.Random, name: str, attrs: list[tuple[str, str]], empty: bool = True
    ) -> str:
        if self.shuffle:
            attrs = attrs[::-1]
        text = "".join(f" {k}={self.quote}{v}{self.quote}" for k, v in attrs)
        return f"<{name}{text}{'/' if empty else ''}>"

    def gap(self, rng: random.Random) -> str:
        return rng.choice(["", "", self.newline, " "])


def _member_attrs(m: Member, rng: random.Random, element: str) -> list[tuple[str, str]]:
    attrs = []
    if element == "node" or (element in ("pronoun", "antecedent") and m.start is None):
        if m.id is not None:
            attrs.append(("id", m.id))
    else:
        if m.start is not None:
            attrs.append(("start", m.start))
        if m.end is not None:
            attrs.append(("end", m.end))
    if rng.random() < 0.3:
        attrs.append(("value", rng.choice(["w", "the w", "a > b"])))
    if m.pronoun:
        attrs.append(("type", "pronoun"))
    return attrs


def _body(case: Case, doc: Document, side: str, style: Style, rng: random.Random) -> str:
    parts: list[str] = []
    gap = style.gap
    if side == "input":
        if case.task in (1, 2):
            words = []
            for entity in doc.entities or []:
                words.append(style.tag(rng, "entity", [("id", entity)], empty=False) + "w</entity>")
            parts.append("<text>" + " ".join(words) + " end</text>")
            if doc.listed is not None:
                listed = "".join(
                    gap(rng) + style.tag(rng, "pronoun", [("id", i)]) for i in doc.listed
                )
                parts.append(f"<anaphoric_pronouns>{listed}</anaphoric_pronouns>")
        else:
            tokens = " ".join(style.tag(rng, "node", [("id", t)]) + "w" for t in doc.tokens or [])
            parts.append(f"<text>{tokens}</text>")
        return gap(rng).join(parts)
    element = "node" if case.task in (1, 2) else "mention"
    chains = doc.gold if side == "gold" else doc.system_chains
    if chains is not None:
        for k, chain in enumerate(chains):
            members = "".join(
                gap(rng) + style.tag(rng, element, _member_attrs(m, rng, element)) for m in chain
            )
            parts.append(
                f"{style.tag(rng, 'chain', [('id', f'c{k}')], empty=False)}{members}</chain>"
            )
    if side == "system" and doc.system_pairs is not None:
        for k, (p, a) in enumerate(doc.system_pairs):
            pronoun = style.tag(
                rng, "pronoun", [x for x in _member_attrs(p, rng, "pronoun") if x[0] != "type"]
            )
            antecedent = style.tag(
                rng,
                "antecedent",
                [x for x in _member_attrs(a, rng, "antecedent") if x[0] != "type"],
            )
            parts.append(f'<pair id="p{k}">{gap(rng)}{pronoun}{gap(rng)}{antecedent}</pair>')
    return "".join(gap(rng) + part for part in parts)


def write_side(case: Case, side: str, path: Path, rng: random.Random) -> None:
    style = Style.draw(rng)
    wanted = {"gold": "in_gold", "system": "in_system", "input": "in_input"}[side]
    docs = [d for d in case.documents if getattr(d, wanted)]
    if case.layout == "ids" and side != "gold":
        rng.shuffle(docs)
    text = []
    if style.declaration:
        text.append("<?xml version='1.0' encoding='UTF-8'?>" + style.newline)
    if style.doctype:
        text.append("<!DOCTYPE corpus>" + style.newline)
    text.append("<corpus>")
    if style.comment:
        text.append("<!-- a comment -->")
    if case.layout == "root":
        if docs:
            text.append(_body(case, docs[0], side, style, rng))
    else:
        for doc in docs:
            head = (
                "<document>"
                if doc.key is None
                else style.tag(rng, "document", [("id", doc.key)], empty=False)
            )
            text.append(style.newline + head + _body(case, doc, side, style, rng) + "</document>")
    text.append(style.newline + "</corpus>" + style.newline)
    data = "".join(text).replace("\n", style.newline) if style.newline != "\n" else "".join(text)
    path.write_bytes((b"\xef\xbb\xbf" if style.bom else b"") + data.encode("utf-8"))


def write_case(case: Case, folder: Path, rng: random.Random) -> tuple[Path, Path, Path | None]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for side in ("gold", "system", "input"):
        path = folder / f"{side}.xml"
        write_side(case, side, path, rng)
        paths.append(path)
    source = paths[2] if case.task != 2 or rng.random() < 0.7 else None
    return paths[0], paths[1], source


def write_folders(rng: random.Random, task: int, folder: Path) -> tuple[Path, Path, Path]:
    """Folders of files paired by name, some on one side only."""
    names = [f"f{k}.xml" for k in range(rng.randint(1, 4))]
    for side in ("gold", "system", "input"):
        (folder / side).mkdir(parents=True)
    for name in names:
        case = make_case(rng, task)
        sub = folder / "parts" / name
        gold, system, source = write_case(case, sub, rng)
        where = rng.random()
        if where < 0.85:
            gold.rename(folder / "gold" / name)
        if where > 0.15:
            system.rename(folder / "system" / name)
        if source is not None and (rng.random() < 0.9 or task == 2):
            source.rename(folder / "input" / name)
    return folder / "gold", folder / "system", folder / "input"


# --- comparing ----------------------------------------------------------------------------------


def _same_number(ours: float | None, reference: Fraction | int | None) -> bool:
    if ours is None or reference is None:
        return ours is None and reference is None
    return math.isclose(ours, float(reference), rel_tol=1e-12, abs_tol=1e-12)


def compare(result: Result, outcome: oracle.Outcome, what: str) -> None:
    assert list(result.matrix.documents) == outcome.keys, what
    for d, key in enumerate(outcome.keys):
        row = result.matrix.row(d)
        expected = outcome.counts[key]
        assert list(row) == list(expected), what
        for name, value in expected.items():
            if isinstance(value, Fraction):
                assert _same_number(row[name], value), (what, key, name, row[name], value)
            else:
                assert row[name] == value and isinstance(row[name], int), (what, key, name)
    assert set(result.scores) == set(outcome.scores), what
    for name, score in outcome.scores.items():
        assert _same_number(result.scores[name], score), (what, name, result.scores[name], score)
    ours = sorted((w.code, w.count, w.examples) for w in result.warnings)
    assert ours == sorted(outcome.warnings), what
    explained = result.details.explanations()
    assert [e.key for e in explained] == outcome.keys, what
    for document in explained:
        expected_items = outcome.items[document.key]
        if result.details.task in (1, 3):
            got: list[tuple[object, ...]] = [
                (i.pronoun, i.answer, i.credit, i.reason, i.target, i.overlap)
                for i in document.pronouns
            ]
        else:
            got = [
                (c.side, c.chain, c.members, c.parts, c.part_weights, c.earned, c.possible)
                for c in document.chains
            ]
        assert len(got) == len(expected_items), (what, document.key, got, expected_items)
        for mine, theirs in zip(got, expected_items, strict=True):
            assert _same_item(mine, theirs, result.details.task), (what, document.key, mine, theirs)


def _same_item(mine: tuple[object, ...], theirs: tuple[object, ...], task: int) -> bool:
    """Names and reasons equal, numbers to 1e-12 (task 1's target is not shown: not compared;
    task 3's overlap only beside a target)."""
    if task in (1, 3):
        pronoun, answer, credit, reason, target, overlap = mine
        if (pronoun, answer, reason) != theirs[:2] + theirs[3:4]:
            return False
        if not _same_number(credit, theirs[2]):  # type: ignore[arg-type]
            return False
        if task == 1:
            return True
        if target != theirs[4]:
            return False
        return target is None or _same_number(overlap, theirs[5])  # type: ignore[arg-type]
    side, chain, members, parts, weights, earned, possible = mine
    if (side, chain, members, parts, possible) != (*theirs[:4], theirs[6]):
        return False
    if len(weights) != len(theirs[4]):  # type: ignore[arg-type]
        return False
    numbers = [*zip(weights, theirs[4], strict=True), (earned, theirs[5])]  # type: ignore[call-overload]
    return all(_same_number(a, b) for a, b in numbers)


def in_memory(task: int, gold: Path, system: Path, source: Path | None) -> Result:
    """``count_are_N`` of the three files' bytes, parsed in memory (no path option)."""

    def parsed(path: Path) -> AreFile:
        return parse_are(path, path.read_bytes())

    files = [parsed(gold), parsed(system), None if source is None else parsed(source)]
    count = getattr(tasks_are, f"count_are_{task}")
    result: Result = count(*files[:2], input_file=files[2])
    return result


def run(
    task: int, gold: Path, system: Path, source: Path | None, what: str, memory: bool = False
) -> str:
    """Score both ways and compare; returns ``"error"`` or ``"result"``.  With ``memory``, the
    files are scored as parsed data (``count_are_N``) rather than by path."""
    try:
        expected: oracle.Outcome | oracle.OracleError = oracle.score(task, gold, system, source)
    except oracle.OracleError as error:
        expected = error
    options = getattr(tasks_are, f"Are{task}Options")(input_path=source)
    try:
        if memory:
            result = in_memory(task, gold, system, source)
        else:
            result = getattr(tasks_are, f"score_are_{task}")(gold, system, options)
    except InputError as error:
        assert isinstance(expected, oracle.OracleError), (what, str(error))
        assert (error.path, error.line) == (expected.path, expected.line), (what, str(error))
        return "error"
    assert not isinstance(expected, oracle.OracleError), (what, expected)
    compare(result, expected, what)
    return "result"


@pytest.mark.parametrize("batch", [0, 1])
@pytest.mark.parametrize("task", [1, 2, 3, 4])
def test_are_equals_the_reference_on_random_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: int, batch: int
) -> None:
    rng = random.Random(f"are-{task}-{batch}")
    if batch:  # the assignment's matrix built in blocks of a few cells
        monkeypatch.setattr(align_are, "BLOCK_CELLS", 7)
    scanned = {True: 0, False: 0}
    scan = are_columns.scan_are

    def counted(path: Path, data: bytes) -> object:
        found = scan(path, data)
        scanned[found is not None] += 1
        return found

    monkeypatch.setattr(are_columns, "scan_are", counted)
    outcomes = {"error": 0, "result": 0}
    for k in range(CASES):
        folder = tmp_path / str(k)
        memory = False
        if rng.random() < 0.06:
            gold, system, folders = write_folders(rng, task, folder)
            source: Path | None = folders
            what = f"task {task} case {k} (folders)"
        else:
            case = make_case(rng, task)
            if rng.random() < 0.25:
                damage(rng, case)
            gold, system, source = write_case(case, folder, rng)
            what = f"task {task} case {k} ({case.layout}, damage {case.damage})"
            memory = k % 4 == 3  # every fourth case scored from the files' bytes in memory
            what += " in memory" if memory else ""
        outcomes[run(task, gold, system, source, what, memory)] += 1
    assert outcomes["result"] > CASES // 2 and outcomes["error"] > CASES // 20, outcomes
    assert scanned[True] > CASES // 2 and scanned[False] > CASES // 2, scanned  # both ways ran
