"""A plain reference for CodiEsp D, P and X, written from spec/codiesp.md's definitions (and the
README's rules for what the official scripts leave open), for ``tests/equivalence``.

Nothing here calls annoscore: files are read with ``str.split``, documents and codes are Python
strings in dicts and sets, MAP is a loop over ranks.  The warnings are the sentences annoscore
promises, built from this module's own numbers.

Definitions used (codiesp.md, 1.1-1.3 and "Decisions for annoscore"):

- Reading: UTF-8, lines split at ``\\n`` (a trailing ``\\r`` dropped), lines of only whitespace
  skipped, fields split at tabs.  Codes lower-cased with ``str.lower`` (``--lowercase``); the
  valid list is the lower-cased first column of its lines.
- D/P P/R/F1 (the F1 script; ids as text): predictions with a code outside the valid list are
  dropped; Pred_Pos = distinct (doc, code) predictions, GS_Pos = distinct gold pairs (only valid
  codes with ``--filter-gold``), TP = pairs in both.  P = TP/Pred_Pos, R = TP/GS_Pos,
  F1 = 2PR/(P+R) when both are defined, 0 when P+R = 0; when P or R is undefined (0/0), F1 is 0
  if anything is predicted or in the gold, else undefined (design.md's one rule).
- Undefined scores of the corpus are ``None`` and named in one warning (code ``undefined``).
- D/P MAP (the MAP script; a file whose ids all look like integers has them read as numbers):
  per document the valid predictions in file order (``--tie-order code``: by code), the first of
  each repeated code kept, ranks renumbered 1..n, the first ``depth`` kept;
  AP = sum of P@k over the relevant ranks / distinct gold codes.  A document counts in MAP when
  it has gold codes and a valid prediction; with ``--extra-docs zero`` (official) also a
  predicted document without gold codes (AP 0); with ``--missing-docs zero`` also a gold document
  without a valid prediction (AP 0).  MAP = sum of AP / documents counted.
- X: Pred_Pos and GS_Pos as above over (doc, code) (positions ignored); a pair is a TP when a
  predicted position [ps, pe] and a gold reference [gs, ge] of it satisfy
  0 <= gs - ps <= tol and 0 <= pe - ge <= tol (``contain``) or |gs - ps| <= tol and
  |pe - ge| <= tol (``symmetric``); with ``--check-label`` the two labels must be equal.
  A position is ``start end`` or ``s1 e1;s2 e2...`` read as first start to last end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

Warning = tuple[str, str, tuple[str, ...]]
"""A warning as compared: its code, its sentence (count filled in), its examples."""


# --- reading ---------------------------------------------------------------------------------


def lines_of(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of the non-blank lines."""
    text = path.read_bytes().decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    out = []
    for number, line in enumerate(parts, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip():
            out.append((number, line.split("\t")))
    return out


def valid_codes(*paths: Path) -> set[str]:
    return {
        fields[0].lower() for path in paths for _, fields in lines_of(path) if fields[0].strip()
    }


def as_number(doc: str) -> str | None:
    """The integer an id reads as (surrounding spaces, a sign, ASCII digits), written shortest."""
    token = doc.strip(" ")
    negative = token.startswith("-")
    if token[:1] in "+-" and token:
        token = token[1:]
    if not token or not all("0" <= c <= "9" for c in token):
        return None
    digits = token.lstrip("0") or "0"
    return "-" + digits if negative and digits != "0" else digits


def numbers_of(docs: list[str]) -> dict[str, str] | None:
    """Each id's number when every id of the file reads as one, else ``None``."""
    numbers = {doc: as_number(doc) for doc in docs}
    if any(n is None for n in numbers.values()):
        return None
    return {doc: n for doc, n in numbers.items() if n is not None}


def fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def ratio(a: float, b: float) -> float | None:
    return None if b == 0 else a / b


def prf(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    p, r = ratio(tp, tp + fp), ratio(tp, tp + fn)
    if p is None or r is None:
        f = None if tp + fp + fn == 0 else 0.0
    else:
        f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"precision": p, "recall": r, "f1": f}


def undefined(scores: dict[str, float | None]) -> list[Warning]:
    """The warning naming the undefined scores of the corpus, if any."""
    names = [k for k, v in scores.items() if v is None]
    if not names:
        return []
    return [("undefined", f"undefined (a zero denominator, JSON null): {', '.join(names)}", ())]


# --- D and P ---------------------------------------------------------------------------------


@dataclass
class RankedSettings:
    missing_docs: str = "ignore"  # ignore | zero
    extra_docs: str = "zero"  # zero | ignore
    filter_gold: bool = False
    depth: int | None = 1000
    lowercase: bool = True
    tie_order: str = "file"  # file | code


@dataclass
class RankedOutcome:
    scores: dict[str, float | None]
    counts: dict[str, float]
    documents: dict[str, dict[str, float]]
    warnings: list[Warning] = field(default_factory=list)
    numeric: bool = False


@dataclass
class _Side:
    rows: list[tuple[int, str, str]]  # (line, doc, code as written)
    docs: list[str]  # in order of first appearance


def _side(path: Path) -> _Side:
    rows = [(n, f[0], f[1]) for n, f in lines_of(path)]
    return _Side(rows, list(dict.fromkeys(doc for _, doc, _ in rows)))


@dataclass
class Ranked:
    """One document's ranked list as MAP sees it: its valid codes in rank order, the first
    ``depth``; its relevant (gold) codes; whether it counts in MAP; the codes cut off."""

    codes: list[str]
    relevant: set[str]
    counted: bool
    beyond: int


def _ranked(
    gold: list[tuple[str, str]],
    pred: list[tuple[str, str]],
    valid: set[str],
    s: RankedSettings,
) -> dict[str, Ranked]:
    """Every document's ranked list, of (doc, code) rows already lower-cased (or not) and
    renamed (numbers or text)."""
    relevant: dict[str, set[str]] = {}
    for doc, code in gold:
        relevant.setdefault(doc, set())
        if not s.filter_gold or code in valid:
            relevant[doc].add(code)
    ranked: dict[str, list[str]] = {}
    for doc, code in pred:
        codes = ranked.setdefault(doc, [])
        if code in valid and code not in codes:
            codes.append(code)
    out: dict[str, Ranked] = {}
    for doc in dict.fromkeys([*relevant, *ranked]):
        codes = ranked.get(doc, [])
        if s.tie_order == "code":
            codes = sorted(codes)
        depth = len(codes) if s.depth is None else s.depth
        wanted = relevant.get(doc, set())
        in_gold, has_pred = bool(wanted), bool(codes)
        counted = (
            (in_gold and has_pred)
            or (s.extra_docs == "zero" and has_pred and not in_gold)
            or (s.missing_docs == "zero" and in_gold and not has_pred)
        )
        out[doc] = Ranked(codes[:depth], wanted, counted, max(len(codes) - depth, 0))
    return out


def _map(
    gold: list[tuple[str, str]],
    pred: list[tuple[str, str]],
    valid: set[str],
    s: RankedSettings,
) -> tuple[dict[str, float], dict[str, bool], dict[str, int]]:
    """AP, counted and number of ranked codes beyond the depth per document, of (doc, code)
    rows already lower-cased (or not) and renamed (numbers or text)."""
    ap: dict[str, float] = {}
    counted: dict[str, bool] = {}
    beyond: dict[str, int] = {}
    for doc, r in _ranked(gold, pred, valid, s).items():
        total, hits = 0.0, 0
        for k, code in enumerate(r.codes, start=1):
            if code in r.relevant:
                hits += 1
                total += hits / k
        ap[doc] = total / len(r.relevant) if r.relevant and r.counted else 0.0
        counted[doc], beyond[doc] = r.counted, r.beyond
    return ap, counted, beyond


def ranked_lists(
    gold_path: Path, pred_path: Path, codes_path: Path, s: RankedSettings
) -> tuple[dict[str, Ranked], dict[str, str]]:
    """The ranked list of every document as MAP ranks it (ids as the MAP script reads them)
    and, for each of those ids, the first document id (gold first, then predicted) that reads
    as it: where annoscore puts its per-document numbers."""
    valid = valid_codes(codes_path)
    gold, pred = _side(gold_path), _side(pred_path)

    def low(code: str) -> str:
        return code.lower() if s.lowercase else code

    gn = numbers_of(gold.docs) or {d: d for d in gold.docs}
    pn = numbers_of(pred.docs) or {d: d for d in pred.docs}
    first: dict[str, str] = {}
    for names, docs in ((gn, gold.docs), (pn, pred.docs)):
        for doc in docs:
            first.setdefault(names[doc], doc)
    lists = _ranked(
        [(gn[d], low(c)) for _, d, c in gold.rows],
        [(pn[d], low(c)) for _, d, c in pred.rows],
        valid,
        s,
    )
    return lists, first


def _mean(ap: dict[str, float], counted: dict[str, bool]) -> float | None:
    used = [ap[d] for d in ap if counted[d]]
    return ratio(math.fsum(used), len(used))


@dataclass
class _Numbers:
    """Everything counted once under one setting."""

    g: list[tuple[str, str]]  # gold (doc, code) rows, codes cased
    p: list[tuple[str, str]]  # predicted rows
    per_doc: dict[str, dict[str, int]]  # tp/fp/fn per document, ids as text
    ap: dict[str, float]  # ids as text
    counted: dict[str, bool]
    beyond: dict[str, int]
    numeric: bool  # the MAP script reads some id as another number
    map_ap: dict[str, float]  # ids as the MAP script reads them
    map_counted: dict[str, bool]
    # what follows them, filled in once by __post_init__
    prf: dict[str, float | None] = field(init=False)
    as_text: float | None = field(init=False)  # the MAP of the ids as text
    map: float | None = field(init=False)  # the MAP as the MAP script reads the ids
    ap_sum: float = field(init=False)
    queries: int = field(init=False)

    def __post_init__(self) -> None:
        tp = fp = fn = 0
        for counts in self.per_doc.values():
            tp, fp, fn = tp + counts["tp"], fp + counts["fp"], fn + counts["fn"]
        self.prf = prf(tp, fp, fn)
        self.as_text = _mean(self.ap, self.counted)
        self.map = _mean(self.map_ap, self.map_counted)
        used = [self.map_ap[d] for d in self.map_ap if self.map_counted[d]]
        self.ap_sum = math.fsum(used)
        self.queries = len(used)


def _numbers(gold: _Side, pred: _Side, valid: set[str], s: RankedSettings) -> _Numbers:
    def low(code: str) -> str:
        return code.lower() if s.lowercase else code

    g = [(doc, low(code)) for _, doc, code in gold.rows]
    p = [(doc, low(code)) for _, doc, code in pred.rows]
    gold_pairs = {(d, c) for d, c in g if not s.filter_gold or c in valid}
    pred_pairs = {(d, c) for d, c in p if c in valid}
    per_doc = {d: {"tp": 0, "fp": 0, "fn": 0} for d in dict.fromkeys([*gold.docs, *pred.docs])}
    for d, c in pred_pairs:
        per_doc[d]["tp" if (d, c) in gold_pairs else "fp"] += 1
    for d, _ in gold_pairs - pred_pairs:
        per_doc[d]["fn"] += 1
    ap, counted, beyond = _map(g, p, valid, s)
    gold_numbers, pred_numbers = numbers_of(gold.docs), numbers_of(pred.docs)
    numeric = any(
        k != v for numbers in (gold_numbers, pred_numbers) for k, v in (numbers or {}).items()
    )
    map_ap, map_counted = ap, counted
    if numeric:
        gn = gold_numbers or {d: d for d in gold.docs}
        pn = pred_numbers or {d: d for d in pred.docs}
        map_ap, map_counted, _ = _map(
            [(gn[d], c) for d, c in g], [(pn[d], c) for d, c in p], valid, s
        )
    return _Numbers(g, p, per_doc, ap, counted, beyond, numeric, map_ap, map_counted)


def score_ranked(
    gold_path: Path, pred_path: Path, codes_path: Path, s: RankedSettings
) -> RankedOutcome:
    """Scores, counts, per-document counts and warnings of D/P."""
    valid = valid_codes(codes_path)
    gold, pred = _side(gold_path), _side(pred_path)
    n = _numbers(gold, pred, valid, s)
    scores = {"map": n.map, **n.prf}
    documents: dict[str, dict[str, float]] = {}
    for doc, c in n.per_doc.items():
        documents[doc] = dict(c)
        if not n.numeric:
            documents[doc]["ap_sum"] = n.ap[doc] if n.counted[doc] else 0.0
            documents[doc]["queries"] = int(n.counted[doc])
    counts: dict[str, float] = {
        k: sum(c[k] for c in n.per_doc.values()) for k in ("tp", "fp", "fn")
    }
    counts["queries"] = n.queries
    counts["ap_sum"] = n.ap_sum
    warnings = _ranked_warnings(gold_path, pred_path, gold, pred, valid, s, n)
    return RankedOutcome(scores, counts, documents, warnings, n.numeric)


def _ranked_warnings(
    gold_path: Path,
    pred_path: Path,
    gold: _Side,
    pred: _Side,
    valid: set[str],
    s: RankedSettings,
    n: _Numbers,
) -> list[Warning]:
    out: list[Warning] = []
    note = "note"
    g, p = n.g, n.p
    as_text, queries, ap_sum = n.as_text, n.queries, n.ap_sum
    if n.numeric and as_text != n.map:
        renamed = []
        for side in (gold, pred):
            numbers = numbers_of(side.docs) or {}
            renamed += [f"{d} is {n}" for d, n in numbers.items() if d != n]
        out.append(
            (
                "codiesp.numeric-ids",
                f"{len(renamed)} document id(s) look like integers and the MAP script (pandas) "
                "reads them as numbers, so ids such as 0001 and 1 are one document there; "
                "MAP follows it, P/R/F1 compare the ids as text as the F1 script does; "
                f"MAP with the ids as text would be {fmt(as_text)}",
                tuple(renamed[:5]),
            )
        )
    empty = not pred.rows
    if empty:
        out.append(
            (
                "codiesp.empty-predictions",
                "the prediction file has no line (the official MAP script crashes on it, the F1 "
                "script prints nan|0.0|nan)",
                (str(pred_path),),
            )
        )
    has_pred = {d for d, c in p if c in valid}
    missing = sum(1 for d in gold.docs if d not in has_pred)
    extra_docs = [d for d in pred.docs if d not in set(gold.docs)]
    extra_with_pred = sum(1 for d in extra_docs if d in has_pred)
    if missing:
        if s.missing_docs == "ignore":
            alt = ratio(ap_sum, queries + missing)
            text = (
                f"{missing} gold documents have no valid prediction and are left out of MAP, "
                f"as the official script does; MAP would be {fmt(alt)} if they counted as 0 "
                "(--missing-docs zero)"
            )
        else:
            alt = ratio(ap_sum, queries - missing)
            text = (
                f"{missing} gold documents have no valid prediction and count as AP 0 "
                f"(--missing-docs zero); the official script leaves them out: MAP {fmt(alt)}"
            )
        out.append((note, text, ()))
    if extra_docs:
        text = (
            f"{len(extra_docs)} predicted documents are not in the gold standard; their "
            "predictions count as false positives"
        )
        if extra_with_pred and s.extra_docs == "zero":
            alt = ratio(ap_sum, queries - extra_with_pred)
            text += (
                f", and {extra_with_pred} of them count as AP 0 in MAP as the official script "
                f"does (MAP would be {fmt(alt)} with --extra-docs ignore)"
            )
        elif extra_with_pred:
            alt = ratio(ap_sum, queries + extra_with_pred)
            text += (
                f"; {extra_with_pred} of them are left out of MAP (--extra-docs ignore); the "
                f"official script counts them as AP 0: MAP {fmt(alt)}"
            )
        out.append((note, text, ()))
    invalid_pred = [c for _, c in p if c not in valid]
    if invalid_pred:
        examples = list(dict.fromkeys(invalid_pred))[:5]
        out.append(
            (
                note,
                f"{len(invalid_pred)} predicted codes are not in the valid-code list and were "
                f"dropped before ranking, as the official script does (e.g. {', '.join(examples)})",
                (),
            )
        )
    invalid_gold = sum(1 for _, c in g if c not in valid)
    if invalid_gold:
        other = _numbers(gold, pred, valid, replace(s, filter_gold=not s.filter_gold))
        alt_text, alt_f1 = other.as_text, other.prf["f1"]
        state = (
            "still count as relevant, as the official script does"
            if not s.filter_gold
            else "were dropped (--filter-gold); the official script keeps them"
        )
        out.append(
            (
                note,
                f"{invalid_gold} gold lines have a code that is not in the valid-code list "
                f"and {state}; {'with' if not s.filter_gold else 'without'} --filter-gold MAP "
                f"would be {fmt(alt_text)} and F1 {fmt(alt_f1)}",
                (),
            )
        )
    beyond = sum(1 for k in n.beyond.values() if k > 0)
    if beyond:
        alt_text = _numbers(gold, pred, valid, replace(s, depth=None)).as_text
        out.append(
            (
                note,
                f"{beyond} documents have more than {s.depth} valid predictions; MAP ignores "
                "the ranks beyond (the official trectools depth); without the cut-off MAP "
                f"would be {fmt(alt_text)}",
                (),
            )
        )
    seen: set[tuple[str, str]] = set()
    duplicates: list[int] = []
    for (line, doc, _), (_, code) in zip(pred.rows, p, strict=True):
        if code in valid:
            if (doc, code) in seen:
                duplicates.append(line)
            seen.add((doc, code))
    if duplicates:
        out.append(
            (
                "codiesp.duplicate-predictions",
                f"{len(duplicates)} duplicate predictions (same document and code) were "
                "dropped, keeping the first, as the official script does",
                tuple(f"{pred_path}:{n}" for n in duplicates[:5]),
            )
        )
    seen, duplicates = set(), []
    for (line, doc, _), (_, code) in zip(gold.rows, g, strict=True):
        if not s.filter_gold or code in valid:
            if (doc, code) in seen:
                duplicates.append(line)
            seen.add((doc, code))
    if duplicates:
        out.append(
            (
                "codiesp.duplicate-gold",
                f"{len(duplicates)} gold lines repeat a (document, code) pair of an earlier "
                "line and count once, as in the official scripts (a code with several "
                "references in the text)",
                tuple(f"{gold_path}:{n}" for n in duplicates[:5]),
            )
        )
    out += _ranked_lowercase(gold, pred, valid, s, invalid_pred)
    return out + undefined({"map": n.map, **n.prf})


def _ranked_lowercase(
    gold: _Side, pred: _Side, valid: set[str], s: RankedSettings, invalid_pred: list[str]
) -> list[Warning]:
    upper_pred = sum(1 for _, _, c in pred.rows if c != c.lower()) if s.lowercase else 0
    upper_gold = sum(1 for _, _, c in gold.rows if c != c.lower()) if s.lowercase else 0
    if s.lowercase and not upper_pred + upper_gold:
        return []
    if not s.lowercase and not (invalid_pred or any(c != c.lower() for _, _, c in gold.rows)):
        return []
    other = _numbers(gold, pred, valid, replace(s, lowercase=not s.lowercase))
    this = _numbers(gold, pred, valid, s)
    alt = (other.map, other.prf["f1"])
    moved = alt != (this.map, this.prf["f1"])
    effect = f"MAP {fmt(alt[0])} and F1 {fmt(alt[1])}"
    if s.lowercase:
        text = (
            f"{upper_pred + upper_gold} codes ({upper_pred} predicted, {upper_gold} gold) had "
            "upper-case letters and were lower-cased, as the official script does since "
            "2020-09-30"
        )
        if moved:
            text += f"; with their case kept (--no-lowercase, the 2020 campaign): {effect}"
        return [("note", text, ())]
    if not moved:
        return []
    return [
        (
            "note",
            "codes keep their case (--no-lowercase, the 2020 campaign), so upper-case codes miss "
            "the lower-cased valid list and the gold; the official script lower-cases them since "
            f"2020-09-30: {effect}",
            (),
        )
    ]


# --- X ---------------------------------------------------------------------------------------


@dataclass
class XSettings:
    tolerance: int = 10
    mode: str = "contain"  # contain | symmetric
    check_label: bool = False
    filter_gold: bool = False
    lowercase: bool = True


@dataclass
class Ref:
    line: int
    doc: str
    label: str
    code: str
    start: int
    end: int


def position(text: str) -> tuple[int, int]:
    parts = [p.split() for p in text.split(";")]
    return int(parts[0][0]), int(parts[-1][1])


def _x_refs(path: Path, gold: bool) -> list[Ref]:
    out = []
    for n, f in lines_of(path):
        if gold:
            doc, label, code, _, pos = f
        else:
            doc, pos, label, code = f
        out.append(Ref(n, doc, label, code, *position(pos)))
    return out


def _matches(g: Ref, p: Ref, s: XSettings) -> bool:
    a, b = g.start - p.start, p.end - g.end
    if s.mode == "contain":
        ok = 0 <= a <= s.tolerance and 0 <= b <= s.tolerance
    else:
        ok = abs(a) <= s.tolerance and abs(b) <= s.tolerance
    return ok and (not s.check_label or g.label == p.label)


def _x_counts(
    gold: list[Ref], pred: list[Ref], valid: set[str], s: XSettings
) -> dict[str, dict[str, int]]:
    """Per document tp/fp/fn; ``pred`` are the valid predictions (codes already cased)."""
    references: dict[tuple[str, str], list[Ref]] = {}
    for g in gold:
        if not s.filter_gold or g.code in valid:
            references.setdefault((g.doc, g.code), []).append(g)
    positions: dict[tuple[str, str], list[Ref]] = {}
    for p in pred:
        positions.setdefault((p.doc, p.code), []).append(p)
    out: dict[str, dict[str, int]] = {}
    for pair in {*references, *positions}:
        counts = out.setdefault(pair[0], {"tp": 0, "fp": 0, "fn": 0})
        found = any(
            _matches(g, p, s) for g in references.get(pair, []) for p in positions.get(pair, [])
        )
        if found:
            counts["tp"] += 1
            continue
        if pair in positions:
            counts["fp"] += 1
        if pair in references:
            counts["fn"] += 1
    return out


def _x_total(per_doc: dict[str, dict[str, int]]) -> dict[str, float | None]:
    return prf(*(sum(c[k] for c in per_doc.values()) for k in ("tp", "fp", "fn")))


def score_explainable(
    gold_path: Path, pred_path: Path, codes_d: Path, codes_p: Path, s: XSettings
) -> tuple[dict[str, float | None], dict[str, int], dict[str, dict[str, int]], list[Warning]]:
    """Scores, counts, per-document counts and warnings of X."""
    valid = valid_codes(codes_d) | valid_codes(codes_p)
    gold_written, pred_written = _x_refs(gold_path, True), _x_refs(pred_path, False)

    def cased(refs: list[Ref], lowercase: bool) -> list[Ref]:
        return [replace(r, code=r.code.lower()) if lowercase else r for r in refs]

    gold, pred_all = cased(gold_written, s.lowercase), cased(pred_written, s.lowercase)
    pred = [p for p in pred_all if p.code in valid]
    per_doc = _x_counts(gold, pred, valid, s)
    documents = {
        d: per_doc.get(d, {"tp": 0, "fp": 0, "fn": 0})
        for d in dict.fromkeys([*(g.doc for g in gold), *(p.doc for p in pred_all)])
    }
    scores = _x_total(per_doc)
    counts = {k: sum(c[k] for c in documents.values()) for k in ("tp", "fp", "fn")}
    out: list[Warning] = []
    for path, refs, what, rule, code in (
        (gold_path, gold, "gold references", "one reference is enough", "references"),
        (pred_path, pred, "valid predictions", "however many positions", "predictions"),
    ):
        seen: set[tuple[str, str]] = set()
        repeated = []
        for r in refs:
            if (r.doc, r.code) in seen:
                repeated.append(r.line)
            seen.add((r.doc, r.code))
        if repeated:
            out.append(
                (
                    f"codiesp.collapsed-{code}",
                    f"{len(repeated)} {what} repeat the (document, code) pair of an earlier "
                    f"line; the pair counts once, as in the official script ({rule})",
                    tuple(f"{path}:{n}" for n in repeated[:5]),
                )
            )
    if not pred_all:
        out.append(
            (
                "codiesp.empty-predictions",
                "the prediction file has no line (the official script crashes on it)",
                (str(pred_path),),
            )
        )

    def f1_with(**changes: object) -> float | None:
        return _x_total(_x_counts(gold, pred, valid, replace(s, **changes)))["f1"]  # type: ignore[arg-type]

    invalid = [p.code for p in pred_all if p.code not in valid]
    if invalid:
        out.append(
            (
                "note",
                f"{len(invalid)} predicted codes are not in the valid-code lists and were "
                "dropped, as the official script does (e.g. "
                f"{', '.join(list(dict.fromkeys(invalid))[:5])})",
                (),
            )
        )
    invalid_gold = sum(1 for g in gold if g.code not in valid)
    if invalid_gold:
        state = (
            "still count, as the official script does"
            if not s.filter_gold
            else "were dropped (--filter-gold); the official script keeps them"
        )
        out.append(
            (
                "note",
                f"{invalid_gold} gold references have a code that is not in the valid-code "
                f"lists and {state}; F1 would be {fmt(f1_with(filter_gold=not s.filter_gold))}",
                (),
            )
        )
    if s.mode == "contain":
        symmetric = f1_with(mode="symmetric")
        if symmetric != scores["f1"]:
            out.append(
                (
                    "note",
                    "some predictions start late or end early within the tolerance and are not "
                    "credited (the official one-sided rule); --tolerance-mode symmetric would "
                    f"give F1 {fmt(symmetric)}",
                    (),
                )
            )
    exact = f1_with(tolerance=0)
    if s.tolerance and exact != scores["f1"]:
        out.append(
            (
                "note",
                f"some true positives rely on the {s.tolerance}-character tolerance; exact "
                f"positions (--tolerance 0) would give F1 {fmt(exact)}",
                (),
            )
        )
    labelled = f1_with(check_label=not s.check_label)
    if labelled != scores["f1"]:
        out.append(
            (
                "note",
                "some true positives have a label that differs from the gold reference; "
                + (
                    f"the label is ignored as the official script does (--check-label: F1 "
                    f"{fmt(labelled)})"
                    if not s.check_label
                    else "--check-label requires it; the official script ignores it: "
                    f"F1 {fmt(labelled)}"
                ),
                (),
            )
        )
    if scores["precision"] is None and pred_all:
        out.append(
            (
                "note",
                "no valid prediction: the official script crashes on it ('not enough values to "
                "unpack')",
                (),
            )
        )
    upper_gold = len([r for r in gold_written if r.code.lower() != r.code])
    upper_pred = len([r for r in pred_written if r.code.lower() != r.code])
    if upper_gold > 0 or upper_pred > 0:
        other_gold = gold_written if s.lowercase else cased(gold_written, True)
        other_pred = pred_written if s.lowercase else cased(pred_written, True)
        alt = _x_total(_x_counts(other_gold, [p for p in other_pred if p.code in valid], valid, s))
        named = (("P", "precision"), ("R", "recall"), ("F1", "f1"))
        moved = [key for _, key in named if alt[key] != scores[key]] != []
        effect = ", ".join(f"{label} {fmt(alt[key])}" for label, key in named)
        if s.lowercase:
            parts = [
                f"{upper_gold + upper_pred} codes ({upper_pred} predicted, {upper_gold} gold)",
                "had upper-case letters and were lower-cased, as the official script does",
                "since 2020-09-30",
            ]
            if moved:
                parts[-1] += "; with their case kept (--no-lowercase, the 2020 campaign and"
                parts.append(f"the README's numbers): {effect}")
            out.append(("note", " ".join(parts), ()))
        elif moved:
            out.append(
                (
                    "note",
                    "codes keep their case (--no-lowercase, the 2020 campaign), so upper-case "
                    "codes miss the lower-cased valid lists and the gold; the official script "
                    f"lower-cases them since 2020-09-30: {effect}",
                    (),
                )
            )
    return scores, counts, documents, out + undefined(scores)
