"""A plain reference for ``annoscore are`` tasks 1-4, written from ``../shared/spec/are.md``.

Slow on purpose: one Python object per element, the formula as the spec states it, exact
fractions for every credit and overlap (the alignment of task 4 is the spec's own call,
``scipy.optimize.linear_sum_assignment`` on cost = -overlap over the whole document).  It reads
the XML with the standard library's expat (the test files are its own, safe), pairs documents
(decision 5), checks references in the order ``annoscore.align.are_checks`` documents, and
returns per-document counts, scores and warnings, or raises :class:`OracleError` naming the file
and line of the first problem.  Nothing in ``src/`` is imported.
"""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path


class OracleError(Exception):
    """An input error: the file and the line (``None``: the file as a whole)."""

    def __init__(self, path: Path | str | None, line: int | None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(f"{self.path}:{self.line}")


@dataclass
class Ref:
    id: str | None
    start: str | None
    end: str | None
    pronoun: bool
    line: int
    element: str


@dataclass
class Doc:
    key: str | None
    line: int
    entities: list[str] = field(default_factory=list)
    tokens: list[tuple[str, int]] = field(default_factory=list)
    listed: list[Ref] = field(default_factory=list)
    has_list: bool = False
    chains: list[tuple[int, list[Ref]]] = field(default_factory=list)
    pairs: list[tuple[int, Ref, Ref]] = field(default_factory=list)


@dataclass
class File:
    path: Path
    docs: list[Doc]
    bom: bool


# --- reading ----------------------------------------------------------------------------------


def read(path: Path) -> File:
    """The documents of an ARE file (decision 6: elements anywhere below the root; documents
    are the root's children named ``document``, any case, else the root)."""
    data = path.read_bytes()
    parser = xml.parsers.expat.ParserCreate()
    root = Doc(None, 1)
    docs: list[Doc] = []
    state: dict[str, object] = {"depth": 0, "doc": root, "chain": None, "pair": None, "list": 0}

    def start(name: str, attrs: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        depth = state["depth"]
        assert isinstance(depth, int)
        state["depth"] = depth + 1
        if depth == 0:
            root.key, root.line = attrs.get("id"), line
            return
        if depth == 1 and name.lower() == "document":
            state["doc"] = Doc(attrs.get("id"), line)
            docs.append(state["doc"])  # type: ignore[arg-type]
            return
        doc = state["doc"]
        assert isinstance(doc, Doc)
        kind = attrs.get("type")
        ref = Ref(
            attrs.get("id"),
            attrs.get("start"),
            attrs.get("end"),
            kind is not None and kind.strip().lower() == "pronoun",
            line,
            name,
        )
        if name == "chain":
            state["chain"] = []
            doc.chains.append((line, state["chain"]))  # type: ignore[arg-type]
        elif name == "pair":
            state["pair"] = {"line": line}
        elif name == "anaphoric_pronouns":
            state["list"] = 1
            doc.has_list = True
        elif name in ("pronoun", "antecedent") and state["pair"] is not None:
            state["pair"][name] = ref  # type: ignore[index]
        elif name == "pronoun":
            doc.listed.append(ref)
        elif name in ("node", "mention") and state["chain"] is not None:
            state["chain"].append(ref)  # type: ignore[attr-defined]
        elif name == "node":
            assert ref.id is not None
            doc.tokens.append((ref.id, line))
        elif name == "entity":
            assert ref.id is not None
            doc.entities.append(ref.id)

    def end(name: str) -> None:
        depth = state["depth"]
        assert isinstance(depth, int)
        state["depth"] = depth - 1
        if depth - 1 == 1 and name.lower() == "document":
            state["doc"] = root
        elif name == "chain":
            state["chain"] = None
        elif name == "pair":
            pair = state["pair"]
            assert isinstance(pair, dict)
            doc = state["doc"]
            assert isinstance(doc, Doc)
            doc.pairs.append((pair["line"], pair["pronoun"], pair["antecedent"]))
            state["pair"] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.Parse(data, True)
    result = docs or [root]
    for doc in result:  # a token id twice in a document: an error at the second
        seen: set[str] = set()
        for token, line in doc.tokens:
            if token in seen:
                raise OracleError(path, line)
            seen.add(token)
    return File(path, result, data.startswith(b"\xef\xbb\xbf"))


# --- pairing (decision 5) ---------------------------------------------------------------------


@dataclass
class Scored:
    key: str
    gold: tuple[File, Doc] | None
    system: tuple[File, Doc] | None
    input: tuple[File, Doc] | None


Warnings = list[tuple[str, int, tuple[str, ...]]]


def _pair_within(
    files: list[File | None], prefix: str | None
) -> list[tuple[str, list[tuple[File, Doc] | None]]]:
    present = [f for f in files if f is not None]
    by_id = all(d.key is not None for f in present for d in f.docs)
    sides = []
    for f in files:
        found: dict[str, tuple[File, Doc]] = {}
        if f is not None:
            for position, doc in enumerate(f.docs, start=1):
                key = doc.key if by_id and doc.key is not None else str(position)
                if key in found:
                    raise OracleError(f.path, doc.line)
                found[key] = (f, doc)
        sides.append(found)
    if not by_id and len({len(f.docs) for f in present}) > 1:
        raise OracleError(present[0].path, None)
    keys = list(dict.fromkeys([*sides[0], *sides[1]]))
    out = []
    for key in keys:
        name = key if prefix is None else (prefix if len(keys) == 1 else f"{prefix}/{key}")
        out.append((name, [side.get(key) for side in sides]))
    return out


def pair(
    gold: Path, system: Path, source: Path | None, needs_input: bool
) -> tuple[list[Scored], Warnings, list[File]]:
    """The scored documents, the pairing warnings and the files read (gold, system, input)."""
    warnings: Warnings = []
    if gold.is_dir():
        sides = []
        for folder in (gold, system, source):
            found = {} if folder is None else {p.name: p for p in sorted(folder.glob("*.xml"))}
            if folder is not None and not found:
                raise OracleError(folder, None)  # a folder without one file to read
            sides.append(found)
        names = sorted(sides[0]) + sorted(n for n in sides[1] if n not in sides[0])
        gold_files = [n for n in sorted(sides[0]) if n not in sides[1]]
        system_files = [n for n in sorted(sides[1]) if n not in sides[0]]
        if gold_files:
            warnings.append(("documents.gold-only", len(gold_files), tuple(gold_files[:5])))
        if system_files:
            warnings.append(("documents.system-only", len(system_files), tuple(system_files[:5])))
        unused = [n for n in sorted(sides[2]) if n not in names]
        if unused:
            warnings.append(("are.input-only", len(unused), tuple(unused[:5])))
        triples: list[tuple[str | None, list[File | None]]] = [
            (Path(n).stem, [read(side[n]) if n in side else None for side in sides]) for n in names
        ]
    else:
        triples = [(None, [read(gold), read(system), None if source is None else read(source)])]
    scored: list[Scored] = []
    gold_only: list[str] = []
    system_only: list[str] = []
    unscorable: list[str] = []
    for prefix, files in triples:
        gold_file_read = files[0] is not None
        system_file_read = files[1] is not None
        for key, (g, s, i) in _pair_within(files, prefix):
            if g is None:
                if s is None:
                    continue  # an input document alone: nothing to score
                if needs_input and i is None:
                    unscorable.append(key)  # no gold, no input: nothing to check it against
                    continue
                if gold_file_read:
                    system_only.append(key)
            elif s is None and system_file_read:
                gold_only.append(key)
            scored.append(Scored(key, g, s, i))
    for code, keys in (
        ("documents.gold-only", gold_only),
        ("are.system-only-no-input", unscorable),
        ("documents.system-only", system_only),
    ):
        if keys:
            warnings.append((code, len(keys), tuple(keys[:5])))
    read_files = [f for side in range(3) for _, fs in triples if (f := fs[side]) is not None]
    return scored, warnings, read_files


# --- checks -------------------------------------------------------------------------------------


def _known(source: tuple[File, Doc] | None) -> set[str] | None:
    if source is None or not source[1].entities:
        return None
    return set(source[1].entities) | {r.id for r in source[1].listed if r.id is not None}


def _check_id(path: Path, ref: Ref, known: set[str] | None) -> str:
    if ref.id is None or (known is not None and ref.id not in known):
        raise OracleError(path, ref.line)
    return ref.id


def _id_side(
    side: tuple[File, Doc] | None, known: set[str] | None
) -> tuple[list[list[str]], set[str]]:
    """A side's chains of ids (checked) and its ``type="pronoun"`` members."""
    if side is None:
        return [], set()
    f, doc = side
    seen: set[str] = set()
    chains, marked = [], set()
    for _, members in doc.chains:
        chain = []
        for ref in members:
            value = _check_id(f.path, ref, known)
            if value in seen:
                raise OracleError(f.path, ref.line)
            seen.add(value)
            chain.append(value)
            if ref.pronoun:
                marked.add(value)
        chains.append(chain)
    return chains, marked


def _positions(source: tuple[File, Doc]) -> dict[str, int]:
    return {token: k for k, (token, _) in enumerate(source[1].tokens)}


def _mention(path: Path, ref: Ref, tokens: dict[str, int]) -> tuple[int, int]:
    if ref.start is None or ref.end is None:
        raise OracleError(path, ref.line)
    if ref.start not in tokens or ref.end not in tokens:
        raise OracleError(path, ref.line)
    first, last = tokens[ref.start], tokens[ref.end]
    if first > last:
        raise OracleError(path, ref.line)
    return first, last


Mention = tuple[int, int]


def _mention_side(
    side: tuple[File, Doc] | None, tokens: dict[str, int]
) -> tuple[list[list[Mention]], set[Mention]]:
    if side is None:
        return [], set()
    f, doc = side
    seen: set[Mention] = set()
    chains, marked = [], set()
    for _, members in doc.chains:
        chain = []
        for ref in members:
            mention = _mention(f.path, ref, tokens)
            if mention in seen:
                raise OracleError(f.path, ref.line)
            seen.add(mention)
            chain.append(mention)
            if ref.pronoun:
                marked.add(mention)
        chains.append(chain)
    return chains, marked


# --- the four tasks -------------------------------------------------------------------------------


def overlap(a: Mention, b: Mention) -> Fraction:
    """Shared token positions / the longer mention's length (the seed's overlap)."""
    shared = min(a[1], b[1]) - max(a[0], b[0]) + 1
    if shared <= 0:
        return Fraction(0)
    return Fraction(shared, max(a[1] - a[0] + 1, b[1] - b[0] + 1))


def _walk_ok(x, chain, pronominal, asked, answers, visited) -> bool:  # type: ignore[no-untyped-def]
    """``ok(x)`` of decision 1."""
    while True:
        if x not in asked:
            return True
        y = answers.get(x)
        if y is None or y not in chain or y == x or y in visited:
            return False
        if y not in pronominal:
            return True
        visited.add(y)
        x = y


Item = tuple[object, ...]
"""What the report shows of one pronoun (tasks 1, 3: pronoun, answer, credit, reason, target,
overlap) or one chain (tasks 2, 4: side, chain, members, parts, part weights, earned,
possible), names as the report prints them."""


def task1(doc: Scored) -> tuple[dict[str, Fraction | int], bool, bool, list[Item]]:
    """Decision 1 and 3: counts of one document, whether its list came from the gold, whether
    its ids went unchecked, and the items (each listed pronoun, then each ignored pair)."""
    if doc.input is None:
        where = doc.gold or doc.system
        assert where is not None
        raise OracleError(where[0].path, where[1].line)
    source = doc.input
    known = _known(source)
    chains, marked = _id_side(doc.gold, known)
    _id_side(doc.system, known)
    pairs = []
    if doc.system is not None:
        for _, pronoun_ref, antecedent_ref in doc.system[1].pairs:
            path = doc.system[0].path
            pairs.append(
                (_check_id(path, pronoun_ref, known), _check_id(path, antecedent_ref, known))
            )
    if source[1].has_list:
        listed: list[str] = []
        for ref in source[1].listed:
            assert ref.id is not None
            if ref.id in listed:
                raise OracleError(source[0].path, ref.line)
            listed.append(ref.id)
    else:
        if doc.gold is None or not any(r.pronoun for _, c in doc.gold[1].chains for r in c):
            raise OracleError(source[0].path, source[1].line)
        listed = [m for chain in chains if len(chain) > 1 for m in chain if m in marked]
    pronominal = marked | set(listed)
    chain_of = {m: chain for chain in chains for m in chain}
    answers: dict[str, str] = {}
    counts: dict[str, Fraction | int] = {
        "credit_sum": Fraction(0),
        "pronouns": len(listed),
        "unlisted_pairs": 0,
        "repeated_pairs": 0,
        "full": 0,
        "half": 0,
        "zero": 0,
        "unresolved": 0,
        "chainless": 0,
    }
    ignored: list[Item] = []
    for p, a in pairs:
        if p not in listed:
            counts["unlisted_pairs"] += 1
            ignored.append((p, a, Fraction(0), "unlisted", None, None))
        elif p in answers:
            counts["repeated_pairs"] += 1
            ignored.append((p, a, Fraction(0), "repeated", None, None))
        else:
            answers[p] = a
    items: list[Item] = []
    for p in listed:
        chain = chain_of.get(p)
        answer = answers.get(p)
        if chain is None or len(chain) < 2:
            counts["chainless"] += 1
        if answer is None:
            counts["unresolved"] += 1
            credit, reason = Fraction(0), "unresolved"
        elif chain is None or len(chain) < 2:
            credit, reason = Fraction(0), "no-chain"
        elif answer == p:
            credit, reason = Fraction(0), "self"
        elif answer not in chain:
            credit, reason = Fraction(0), "outside-chain"
        elif answer not in pronominal:
            credit, reason = Fraction(1), "noun-phrase"
        elif all(m in pronominal for m in chain):
            credit, reason = Fraction(1, 2), "pronoun-only-chain"
        elif _walk_ok(answer, chain, pronominal, set(listed), answers, {p, answer}):
            credit, reason = Fraction(1), "pronoun-resolved"
        else:
            credit, reason = Fraction(1, 2), "pronoun-not-resolved"
        counts["full" if credit == 1 else "half" if credit else "zero"] += 1
        counts["credit_sum"] += credit
        items.append((p, answer, credit, reason, None, None))
    return counts, not source[1].has_list, known is None, items + ignored


def _muc_side(key: list[list[object]], response: list[list[object]]) -> tuple[int, int]:
    """Vilain's MUC recall numerator and denominator of ``key`` against ``response``."""
    owner = {m: k for k, chain in enumerate(response) for m in chain}
    numerator = denominator = 0
    for chain in key:
        parts = {owner.get(m, ("alone", m)) for m in chain}
        numerator += len(chain) - len(parts)
        denominator += max(len(chain) - 1, 0)
    return numerator, denominator


def _chain_items(
    gold: list[list[object]],
    system: list[list[object]],
    other: dict[tuple[str, object], int],
    weight: dict[tuple[str, object], Fraction],
    name: dict[str, object],
) -> list[Item]:
    """Each chain of two or more members, gold then system, cut into parts by the other side's
    chains (a member without counterpart alone), with the mean weight of each part."""
    items: list[Item] = []
    for side, chains in (("gold", gold), ("system", system)):
        label = name[side]
        for index, chain in enumerate(chains):
            if len(chain) < 2:
                continue
            parts: dict[object, list[object]] = {}
            for m in chain:
                parts.setdefault(other.get((side, m), ("alone", m)), []).append(m)
            means = [
                sum((weight.get((side, m), Fraction(1)) for m in part), Fraction(0)) / len(part)
                for part in parts.values()
            ]
            earned = sum(
                (
                    (len(p) - 1) * w
                    for p, w in zip(parts.values(), means, strict=True)
                    if len(p) > 1
                ),
                Fraction(0),
            )
            items.append(
                (
                    side,
                    index,
                    tuple(label(m) for m in chain),  # type: ignore[operator]
                    tuple(tuple(label(m) for m in p) for p in parts.values()),  # type: ignore[operator]
                    tuple(means),
                    earned,
                    len(chain) - 1,
                )
            )
    return items


def task2(doc: Scored) -> tuple[dict[str, Fraction | int], bool, list[Item]]:
    known = _known(doc.input)
    gold, _ = _id_side(doc.gold, known)
    system, _ = _id_side(doc.system, known)
    recall = _muc_side(gold, system)  # type: ignore[arg-type]
    precision = _muc_side(system, gold)  # type: ignore[arg-type]
    counts: dict[str, Fraction | int] = {
        "recall_num": recall[0],
        "recall_den": recall[1],
        "precision_num": precision[0],
        "precision_den": precision[1],
    }
    other: dict[tuple[str, object], int] = {}
    for side, others in (("gold", system), ("system", gold)):
        for k, chain in enumerate(others):
            for m in chain:
                other[(side, m)] = k
    items = _chain_items(gold, system, other, {}, {"gold": str, "system": str})  # type: ignore[arg-type]
    return counts, doc.input is not None and known is None, items


def _needs_input(doc: Scored) -> tuple[File, Doc]:
    if doc.input is None:
        where = doc.gold or doc.system
        assert where is not None
        raise OracleError(where[0].path, where[1].line)
    return doc.input


def _labels(source: tuple[File, Doc]) -> Callable[[Mention | None], str | None]:
    names = [token for token, _ in source[1].tokens]

    def label(m: Mention | None) -> str | None:
        if m is None:
            return None
        return names[m[0]] if m[0] == m[1] else f"{names[m[0]]}..{names[m[1]]}"

    return label


def task3(doc: Scored) -> tuple[dict[str, Fraction | int], list[Item]]:
    """Decision 4: the counts and the items (each system pair, then each gold pronoun left
    unresolved)."""
    label = _labels(_needs_input(doc))
    tokens = _positions(_needs_input(doc))
    chains, pronouns = _mention_side(doc.gold, tokens)
    _mention_side(doc.system, tokens)
    pairs = []
    if doc.system is not None:
        for _, pronoun_ref, antecedent_ref in doc.system[1].pairs:
            path = doc.system[0].path
            pairs.append(
                (_mention(path, pronoun_ref, tokens), _mention(path, antecedent_ref, tokens))
            )
    chain_of = {m: chain for chain in chains for m in chain}
    covered = {k for first, last in pronouns for k in range(first, last + 1)}

    def best(p: Mention, a: Mention) -> tuple[Mention | None, Fraction]:
        found, key = None, None
        for m in chain_of[p]:
            if m == p or overlap(a, m) == 0:
                continue
            candidate = (-overlap(a, m), m in pronouns, m[0], m[1])
            if key is None or candidate < key:
                found, key = m, candidate
        return found, (Fraction(0) if key is None else -key[0])

    first_pair: dict[Mention, Mention] = {}
    for p, a in pairs:
        if p in pronouns and p not in first_pair:
            first_pair[p] = a
    resolved_to = {p: t for p, a in first_pair.items() if (t := best(p, a)[0]) is not None}
    counts: dict[str, Fraction | int] = {
        "credit_sum": Fraction(0),
        "pairs": len(pairs),
        "pronouns": 0,
        "unresolved": 0,
        "nonreferential_pairs": 0,
        "partial_pronoun_pairs": 0,
        "repeated_pairs": 0,
    }
    credited: set[Mention] = set()
    items: list[Item] = []
    zero = Fraction(0)
    for p, a in pairs:
        shown = (label(p), label(a))
        if p not in pronouns:
            if any(k in covered for k in range(p[0], p[1] + 1)):
                counts["partial_pronoun_pairs"] += 1
                items.append((*shown, zero, "partial-pronoun", None, None))
            else:
                counts["nonreferential_pairs"] += 1
                items.append((*shown, zero, "not-gold-pronoun", None, None))
            continue
        if p in credited:
            counts["repeated_pairs"] += 1
            items.append((*shown, zero, "repeated", None, None))
            continue
        credited.add(p)
        chain = chain_of[p]
        target, value = best(p, a)
        if len(chain) < 2:
            credit, reason = zero, "no-chain"
        elif target is None:
            credit, reason = zero, "no-overlap"
        elif target not in pronouns:
            credit, reason = value, "noun-phrase"
        elif all(m in pronouns for m in chain):
            credit, reason = value / 2, "pronoun-only-chain"
        elif _walk_ok(target, chain, pronouns, pronouns, resolved_to, {p, target}):
            credit, reason = value, "pronoun-resolved"
        else:
            credit, reason = value / 2, "pronoun-not-resolved"
        counts["credit_sum"] += credit
        shown_target = label(target)
        items.append((*shown, credit, reason, shown_target, value if target else None))
    for chain in chains:
        for p in chain:
            if p in pronouns and len(chain) > 1:
                counts["pronouns"] += 1
                counts["unresolved"] += p not in first_pair
                if p not in first_pair:
                    items.append((label(p), None, zero, "unresolved", None, None))
    return counts, items


def align(gold: list[Mention], system: list[Mention]) -> list[tuple[Mention, Mention]]:
    """Decision 9: ``linear_sum_assignment`` on cost = -overlap, gold rows and system columns
    each in document order (start, then end), pairs of overlap 0 dropped."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    rows, cols = sorted(gold), sorted(system)
    if not rows or not cols:
        return []
    matrix = np.array([[float(overlap(g, s)) for s in cols] for g in rows])
    chosen = linear_sum_assignment(-matrix)
    return [(rows[i], cols[j]) for i, j in zip(*chosen, strict=True) if matrix[i, j] > 0]


def _fractional(
    chains: list[list[Mention]], other_chain: dict[Mention, int], weight: dict[Mention, Fraction]
) -> tuple[Fraction, int]:
    """Σ over chains of Σ over parts P of (|P| - 1) x mean w over P, and Σ (|k| - 1)."""
    earned, possible = Fraction(0), 0
    for chain in chains:
        parts: dict[object, list[Mention]] = {}
        for m in chain:
            parts.setdefault(other_chain.get(m, ("alone", m)), []).append(m)
        for part in parts.values():
            if len(part) > 1:
                earned += (len(part) - 1) * sum((weight[m] for m in part), Fraction(0)) / len(part)
        possible += max(len(chain) - 1, 0)
    return earned, possible


def task4(doc: Scored) -> tuple[dict[str, Fraction | int], list[Item]]:
    label = _labels(_needs_input(doc))
    tokens = _positions(_needs_input(doc))
    gold, _ = _mention_side(doc.gold, tokens)
    system, _ = _mention_side(doc.system, tokens)
    gold_mentions = [m for c in gold for m in c]
    system_mentions = [m for c in system for m in c]
    aligned = align(gold_mentions, system_mentions)
    gold_chain = {m: k for k, c in enumerate(gold) for m in c}
    system_chain = {m: k for k, c in enumerate(system) for m in c}
    gold_other = {g: system_chain[s] for g, s in aligned}
    system_other = {s: gold_chain[g] for g, s in aligned}
    gold_weight = {g: overlap(g, s) for g, s in aligned}
    system_weight = {s: overlap(g, s) for g, s in aligned}
    recall = _fractional(gold, gold_other, gold_weight)
    precision = _fractional(system, system_other, system_weight)
    counts: dict[str, Fraction | int] = {
        "recall_num": recall[0],
        "recall_den": recall[1],
        "precision_num": precision[0],
        "precision_den": precision[1],
        "aligned": len(aligned),
        "gold_mentions": len(gold_mentions),
        "system_mentions": len(system_mentions),
    }
    other = {("gold", m): k for m, k in gold_other.items()}
    other.update({("system", m): k for m, k in system_other.items()})
    weight = {("gold", m): w for m, w in gold_weight.items()}
    weight.update({("system", m): w for m, w in system_weight.items()})
    items = _chain_items(gold, system, other, weight, {"gold": label, "system": label})  # type: ignore[arg-type]
    return counts, items


# --- scores and warnings (decision 7) ------------------------------------------------------------


def _ratio(numerator: Fraction | int, denominator: Fraction | int) -> Fraction | None:
    return None if denominator == 0 else Fraction(numerator) / Fraction(denominator)


def _f1(precision: Fraction | None, recall: Fraction | None) -> Fraction | None:
    if precision is None and recall is None:
        return None
    if precision is None or recall is None or precision + recall == 0:
        return Fraction(0)
    return 2 * precision * recall / (precision + recall)


def scores(task: int, total: dict[str, Fraction | int]) -> dict[str, Fraction | None]:
    def get(name: str) -> Fraction | int:
        return total.get(name, 0)

    if task == 1:
        return {"success_rate": _ratio(get("credit_sum"), get("pronouns"))}
    if task == 3:
        recall, precision = (
            _ratio(get("credit_sum"), get("pronouns")),
            _ratio(get("credit_sum"), get("pairs")),
        )
    else:
        recall = _ratio(get("recall_num"), get("recall_den"))
        precision = _ratio(get("precision_num"), get("precision_den"))
    return {"recall": recall, "precision": precision, "f1": _f1(precision, recall)}


COUNT_WARNINGS = {
    1: ("unresolved", "unlisted_pairs", "repeated_pairs", "chainless"),
    3: ("unresolved", "nonreferential_pairs", "partial_pronoun_pairs", "repeated_pairs"),
}


@dataclass
class Outcome:
    keys: list[str]
    counts: dict[str, dict[str, Fraction | int]]
    scores: dict[str, Fraction | None]
    warnings: Warnings
    items: dict[str, list[Item]]


def score(task: int, gold: Path, system: Path, source: Path | None) -> Outcome:
    """The whole command: pairing, checks, counts per document, scores and warnings."""
    if task != 2 and source is None:
        raise OracleError(None, None)
    documents, warnings, files = pair(gold, system, source, needs_input=task != 2)
    counts: dict[str, dict[str, Fraction | int]] = {}
    items: dict[str, list[Item]] = {}
    derived = unchecked = 0
    for doc in documents:
        if task == 1:
            counts[doc.key], from_gold, blind, items[doc.key] = task1(doc)
            derived += from_gold
            unchecked += blind
        elif task == 2:
            counts[doc.key], blind, items[doc.key] = task2(doc)
            unchecked += blind
        elif task == 3:
            counts[doc.key], items[doc.key] = task3(doc)
        else:
            counts[doc.key], items[doc.key] = task4(doc)
    total: dict[str, Fraction | int] = {}
    for values in counts.values():
        for name, value in values.items():
            total[name] = total.get(name, 0) + value
    for name in COUNT_WARNINGS.get(task, ()):
        if total.get(name, 0):
            warnings.append((f"are.{name.replace('_', '-')}", int(total[name]), ()))
    if derived:
        warnings.append(("are.list-from-gold", derived, ()))
    if unchecked:
        warnings.append(("are.ids-unchecked", unchecked, ()))
    boms = [str(f.path) for f in files if f.bom]
    if boms:
        warnings.append(("formats.bom", len(boms), tuple(boms[:5])))
    found = scores(task, total)
    if any(value is None for value in found.values()):  # one warning names them all
        warnings.append(("undefined", 1, ()))
    return Outcome([d.key for d in documents], counts, found, warnings, items)
