"""A plain CoNLL coreference scorer written from ``../shared/spec/coref.md``, for the
differential tests: the reading rules and the reference scorer's edge rules as the spec states
them, and every metric from its definition (sets and pairs enumerated, fractions exact, CEAF by a
dense assignment).

Reading (coref.md, "Decisions" and 1.3): documents from ``#begin document NAME`` (NAME the rest
of the line) to a line holding ``#end document``; the coreference field is the last field of a
non-blank line; blank lines do not count as tokens; in a cell, split antecedents ``(N+M)`` are
dropped, then single-token ``(N)``, then openings ``(N``, then closings ``N)`` (a stack per id);
of two documents with one name, the last.  Repeats (1.4 and the decisions): the entity that
occurs first in the document keeps a span given again; the key loses every repeat; the response
loses the repeats of key spans and keeps the others where they are written.

Metrics (1.5), K key entities, R response entities, per document, then numerators and
denominators summed:

- mentions: R = |key spans ∩ response spans| / |key spans|, P = ... / |response spans| (sets);
- MUC: Σ_k (|k| - |p(k, R)|) / Σ_k (|k| - 1), and symmetrically, p(S, P) the pieces of S cut by
  P plus a piece per element of S in no entity of P;
- B3: Σ_k Σ_r |k ∩ r|² / |k| over Σ |k|, and symmetrically;
- CEAF: the one-to-one alignment maximising Σ φ, φ3 = |k ∩ r| (CEAFm, over Σ |k| and Σ |r|) and
  φ4 = 2 |k ∩ r| / (|k| + |r|) (CEAFe, over |K| and |R|);
- BLANC: coreference links, pairs {u, v} of mentions one entity lists (from two of its
  listings), non-coreference links {u, v} with u listed in one entity and v in another, as sets;
  Rc = |C_K ∩ C_R| / |C_K| ...; the edge rule keyed on the key's links;
- LEA: links(e) = C(|e|, 2), 1 for a singleton; resolved(e) = the pairs of e in one entity of
  the other side (a singleton: 1 when its mention is a singleton there); Σ |e| resolved/links
  over Σ |e|.

An entity is a list: a response span kept as a repeat is listed again, and each listing is a
mention to MUC, B3, CEAF and LEA (``|r|`` counts listings, a listing of a span no key entity holds
is a piece of its own); mentions and BLANC see spans.

Scores follow the one rule (design.md, "One rule for undefined numbers"): R is undefined
(``None``) when its denominator is 0, P likewise, F = 2PR / (P + R) (0 when P + R = 0) is 0 when
one of them is undefined and undefined when both are.  BLANC is the mean over the kinds of links
the key has (both kinds when it has none) of each kind's R, P and F, and ``conll_f1`` the mean of
the MUC, B3 and CEAFe F1; in those means an undefined part counts 0 (the reference's printed 0),
and a mean is undefined when every part is.  :func:`reference_scores` are the scores as the
reference scorer prints them: 0 where undefined.  Nothing here imports annoscore.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

Span = tuple[int, int]
Entity = list[Span]


class OracleError(Exception):
    """Input the reference reading refuses."""


@dataclass
class Document:
    name: str
    line: int  # of its #begin document
    tokens: int = 0
    mentions: list[tuple[str, Span, int]] = field(default_factory=list)  # (id, span, line)
    closed: bool = False


@dataclass
class File:
    """The documents of a file in file order, and the line numbers of what reading tolerated."""

    documents: list[Document]
    bom: bool = False
    outside: list[int] = field(default_factory=list)  # non-blank lines outside documents
    splits: list[int] = field(default_factory=list)  # a line per (N+M) cell part
    unreadable: list[int] = field(default_factory=list)  # cells with other text
    carriage_returns: list[int] = field(default_factory=list)  # lines with a CR not in CRLF

    @property
    def unclosed(self) -> list[int]:
        return [d.line for d in self.documents if not d.closed]

    @property
    def shadowed(self) -> list[int]:
        last = {d.name: d for d in self.documents}
        return [d.line for d in self.documents if last[d.name] is not d]


def read_file(text: str) -> File:
    """A file as the reference reads it (a document left open is read to the end)."""
    out = File([], bom=text.startswith("\ufeff"))
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    out.carriage_returns = [n for n, line in enumerate(text.split("\n"), 1) if "\r" in line]
    documents = out.documents
    current: Document | None = None
    stacks: dict[str, list[tuple[int, int]]] = {}
    opened: list[tuple[int, str, Span, int]] = []  # (opening order, id, span, line)
    order = 0

    def finish(document: Document) -> None:
        if any(stacks.values()):
            raise OracleError(f"document {document.name}: an opening bracket is never closed")
        document.mentions = [(e, span, line) for _, e, span, line in sorted(opened)]
        documents.append(document)

    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip(" \t")
        begin = re.match(r"#[ \t]*begin document (.*)$", stripped)
        if begin:
            if current is not None:
                raise OracleError("#begin document inside an open document")
            current, stacks, opened, order = Document(begin.group(1), number), {}, [], 0
            continue
        if re.search(r"#[ \t]*end document", line):
            if current is None:
                raise OracleError("#end document outside a document")
            current.closed = True
            finish(current)
            current = None
            continue
        if not line.strip(" \t\r"):
            continue
        if current is None:
            out.outside.append(number)
            continue
        token = current.tokens
        current.tokens += 1
        cell = re.split(r"[ \t]+", line.strip(" \t\r"))[-1]
        if cell in ("-", "_"):
            continue
        out.splits += [number] * len(re.findall(r"\([0-9]+\+[0-9]+\)", cell))
        cell = re.sub(r"\([0-9]+\+[0-9]+\)", "", cell)
        for entity in re.findall(r"\(([0-9]+)\)", cell):
            opened.append((order, entity, (token, token), number))
            order += 1
        cell = re.sub(r"\(([0-9]+)\)", "", cell)
        for entity in re.findall(r"\(([0-9]+)", cell):
            stacks.setdefault(entity, []).append((token, order))
            order += 1
            opened.append((order - 1, entity, (-1, -1), number))  # span filled at its closing
        cell = re.sub(r"\(([0-9]+)", "", cell)
        for entity in re.findall(r"([0-9]+)\)", cell):
            if not stacks.get(entity):
                raise OracleError(f"closing bracket of {entity} without an opening")
            start, at = stacks[entity].pop()
            k = next(i for i, o in enumerate(opened) if o[0] == at)
            opened[k] = (at, entity, (start, token), opened[k][3])
        rest = re.sub(r"([0-9]+)\)", "", cell)
        if rest.strip("-_|"):
            out.unreadable.append(number)
    if current is not None:
        finish(current)
    return out


def read(text: str) -> list[Document]:
    """The documents of a file, in file order."""
    return read_file(text).documents


def by_name(documents: list[Document]) -> dict[str, Document]:
    """The last document of each name, in the order the names first occur."""
    out: dict[str, Document] = {}
    for document in documents:
        out[document.name] = document
    return out


@dataclass
class Partition:
    entities: list[Entity]
    removed: list[int]  # lines of the repeats removed
    kept: list[int]  # lines of the repeats kept


def partition(document: Document, removable: set[Span] | None) -> Partition:
    """The entities (first-occurring first), repeats removed (``removable is None``: all)."""
    first: dict[str, int] = {}
    for entity, _, _ in document.mentions:
        first.setdefault(entity, len(first))
    ranked = sorted(document.mentions, key=lambda m: first[m[0]])
    seen: set[Span] = set()
    entities: dict[str, Entity] = {}
    out = Partition([], [], [])
    for entity, span, line in ranked:
        if span in seen:
            if removable is None or span in removable:
                out.removed.append(line)
                continue
            out.kept.append(line)
        seen.add(span)
        entities.setdefault(entity, []).append(span)
    out.entities = list(entities.values())
    return out


# --- the metrics, from their definitions -------------------------------------------------------


def _pieces(entity: Entity, other: list[Entity]) -> int:
    """|p(S, P)|: the parts of the listings of S cut by P, a listing in no entity of P a part."""
    owner = {span: j for j, e in enumerate(other) for span in e}
    parts = set()
    alone = 0
    for span in entity:
        if span in owner:
            parts.add(owner[span])
        else:
            alone += 1
    return len(parts) + alone


def _overlap(k: Entity, r: Entity) -> int:
    """|k ∩ r|: the listings of r that are mentions of k (a key mention is listed once)."""
    keys = set(k)
    return sum(1 for span in r if span in keys)


def _links(entities: list[Entity]) -> tuple[set[tuple[Span, Span]], set[tuple[Span, Span]]]:
    coref: set[tuple[Span, Span]] = set()
    noncoref: set[tuple[Span, Span]] = set()
    for entity in entities:
        for u, v in combinations(entity, 2):
            coref.add((min(u, v), max(u, v)))
    for i, j in combinations(range(len(entities)), 2):
        for u in entities[i]:
            for v in entities[j]:
                noncoref.add((min(u, v), max(u, v)))
    return coref, noncoref


def _ceaf(key: list[Entity], response: list[Entity], phi: Any) -> Fraction:
    if not key or not response:
        return Fraction(0)
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    exact = [[phi(k, r) for r in response] for k in key]
    rows, cols = linear_sum_assignment(np.array(exact, dtype=float), maximize=True)
    return sum((exact[i][j] for i, j in zip(rows, cols, strict=True)), Fraction(0))


def _lea(entities: list[Entity], other: list[Entity]) -> Fraction:
    owner = {span: j for j, e in enumerate(other) for span in e}
    total = Fraction(0)
    for e in entities:
        if len(e) == 1:
            links = 1
            j = owner.get(e[0])
            resolved = int(j is not None and len(other[j]) == 1)
        else:
            links = len(e) * (len(e) - 1) // 2
            resolved = sum(
                1
                for u, v in combinations(e, 2)
                if u in owner and v in owner and owner[u] == owner[v]
            )
        total += Fraction(len(e) * resolved, links)
    return total


def document_counts(key: list[Entity], response: list[Entity]) -> dict[str, Fraction]:
    """Every metric's numerators and denominators for one document."""
    out: dict[str, Fraction] = {}

    def put(metric: str, r_num: Any, r_den: Any, p_num: Any, p_den: Any) -> None:
        for name, value in zip(
            ("recall_num", "recall_den", "precision_num", "precision_den"),
            (r_num, r_den, p_num, p_den),
            strict=True,
        ):
            out[f"{metric}_{name}"] = Fraction(value)

    key_spans = {span for e in key for span in e}
    response_spans = {span for e in response for span in e}
    common = len(key_spans & response_spans)
    put("mentions", common, len(key_spans), common, len(response_spans))
    muc_r = sum(len(k) - _pieces(k, response) for k in key)
    muc_p = sum(len(r) - _pieces(r, key) for r in response)
    put("muc", muc_r, sum(len(k) - 1 for k in key), muc_p, sum(len(r) - 1 for r in response))
    b3_r = sum(Fraction(_overlap(k, r) ** 2, len(k)) for k in key for r in response)
    b3_p = sum(Fraction(_overlap(k, r) ** 2, len(r)) for k in key for r in response)
    size_k, size_r = sum(map(len, key)), sum(map(len, response))
    put("bcub", b3_r, size_k, b3_p, size_r)
    ceafm = _ceaf(key, response, lambda k, r: Fraction(_overlap(k, r)))
    put("ceafm", ceafm, size_k, ceafm, size_r)
    ceafe = _ceaf(key, response, lambda k, r: Fraction(2 * _overlap(k, r), len(k) + len(r)))
    put("ceafe", ceafe, len(key), ceafe, len(response))
    kc, kn = _links(key)
    rc, rn = _links(response)
    put("blanc_coref", len(kc & rc), len(kc), len(kc & rc), len(rc))
    put("blanc_noncoref", len(kn & rn), len(kn), len(kn & rn), len(rn))
    put("lea", _lea(key, response), size_k, _lea(response, key), size_r)
    return out


Score = Fraction | None


def _rpf(counts: dict[str, Fraction], metric: str) -> tuple[Score, Score, Score]:
    def ratio(num: Fraction, den: Fraction) -> Score:
        return num / den if den else None

    r = ratio(counts[f"{metric}_recall_num"], counts[f"{metric}_recall_den"])
    p = ratio(counts[f"{metric}_precision_num"], counts[f"{metric}_precision_den"])
    if r is None or p is None:
        return r, p, (None if r is None and p is None else Fraction(0))
    return r, p, (2 * r * p / (r + p) if r + p else Fraction(0))


def _mean(parts: list[Score]) -> Score:
    if all(part is None for part in parts):
        return None
    return sum((part or Fraction(0) for part in parts), Fraction(0)) / len(parts)


def scores(counts: dict[str, Fraction]) -> dict[str, float | None]:
    """R, P, F1 of every metric from (summed) counts, ``None`` where undefined."""
    out: dict[str, Score] = {}
    for metric in ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea"):
        for part, value in zip(("recall", "precision", "f1"), _rpf(counts, metric), strict=True):
            out[f"{metric}_{part}"] = value
    kinds = [
        _rpf(counts, f"blanc_{kind}")
        for kind in ("coref", "noncoref")
        if counts[f"blanc_{kind}_recall_den"] > 0
    ] or [_rpf(counts, "blanc_coref"), _rpf(counts, "blanc_noncoref")]
    for k, part in enumerate(("recall", "precision", "f1")):
        out[f"blanc_{part}"] = _mean([scores[k] for scores in kinds])
    out["conll_f1"] = _mean([out["muc_f1"], out["bcub_f1"], out["ceafe_f1"]])
    return {name: None if value is None else float(value) for name, value in out.items()}


def reference_scores(counts: dict[str, Fraction]) -> dict[str, float]:
    """:func:`scores` as the reference scorer prints them: 0 where undefined."""
    return {name: value or 0.0 for name, value in scores(counts).items()}


@dataclass
class Outcome:
    per_document: dict[str, dict[str, Fraction]]
    counts: dict[str, Fraction]
    scores: dict[str, float | None]  # the rule's: None where undefined
    repeats: dict[str, list[int]]  # key removed, response removed, response kept: lines
    key_only: list[str]
    response_only: list[str]
    files: tuple[File, File]


def score(key_text: str, response_text: str, *, remove_singletons: bool = False) -> Outcome:
    key_file, response_file = read_file(key_text), read_file(response_text)
    keys = by_name(key_file.documents)
    responses = by_name(response_file.documents)
    if not keys:
        raise OracleError("the key has no document")
    per_document = {}
    repeats: dict[str, list[int]] = {"key": [], "removed": [], "kept": []}
    for name, document in keys.items():
        key = partition(document, None)
        repeats["key"] += key.removed
        response = Partition([], [], [])
        if name in responses:
            if responses[name].tokens != document.tokens:
                raise OracleError(f"document {name}: token lines differ")
            spans = {span for e in key.entities for span in e}
            response = partition(responses[name], spans)
            repeats["removed"] += response.removed
            repeats["kept"] += response.kept
        k_entities, r_entities = key.entities, response.entities
        if remove_singletons:
            k_entities = [e for e in k_entities if len(e) > 1]
            r_entities = [e for e in r_entities if len(e) > 1]
        per_document[name] = document_counts(k_entities, r_entities)
    counts = {name: Fraction(0) for name in next(iter(per_document.values()))}
    for counted in per_document.values():
        for name, value in counted.items():
            counts[name] += value
    return Outcome(
        per_document,
        counts,
        scores(counts),
        repeats,
        [n for n in keys if n not in responses],
        [n for n in responses if n not in keys],
        (key_file, response_file),
    )
