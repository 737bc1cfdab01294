"""A plain NLP Sandbox scorer written from ``../shared/spec/nlpsandbox.md``, for the differential
tests: one Python object per annotation, dictionaries and sets keyed as the spec says.

- Reading: the whole file with ``json.loads``; one list of annotations per (note id, category),
  the note id the basename of ``annotationSource.resourceSource.name``, objects of one note id
  pooled in file order; a missing array is empty (and counted); the reader's documented shape
  rules, with its messages (``file: JSON path: what``).
- Instance level: a dictionary per note, start -> annotation, written in file order (the last
  wins; ``same_start="first"`` keeps the first); relax, strict, type and HIPAA conditions on
  each prediction start found in the gold; ``fp = |S| - tp``, ``fn = |G| - tp``.
- Token level: a set per note of (start + offset, length) over every annotation, each ``text``
  tokenized alone by NLTK's ``TreebankWordTokenizer`` and its tokens found with a running cursor
  (``quotes="fixed"``: where a token is not found, NLTK's ``span_tokenize`` offsets, counted), or
  split on whitespace with offsets ``+= len + 1`` (``tokenizer="whitespace"``).
- Scores: P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2tp/(2tp+fp+fn), undefined (``None``) on a zero
  denominator and then named in one warning (design.md's rule); the official rounding: P and R
  rounded to 2 decimals, F1 from the rounded ones, the int 0 on a zero denominator.

Nothing here imports ``annoscore``.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CATEGORY_FIELDS = {
    "date": (("textDateAnnotations",), ("dateFormat",)),
    "person": (("textPersonNameAnnotations",), ("personType",)),
    "location": (
        ("textLocationAnnotations", "textPhysicalAddressAnnotations"),
        ("locationType", "addressType"),
    ),
    "id": (("textIdAnnotations",), ("idType",)),
    "contact": (("textContactAnnotations",), ("contactType",)),
    "covid-symptom": (("textCovidSymptomAnnotations",), ("condition",)),
}
HIPAA_YES = ("city", "organization", "street", "zip")
HIPAA_NO = ("country", "department", "hospital", "location-other", "room", "state", "other")
"""The task page's HIPAA table of address types (nlpsandbox.md); ``other`` is the sandbox's name
for i2b2's LOCATION-OTHER."""
MAX_OFFSET = 2**53 - 1


class OracleError(Exception):
    """The reader's refusal, as its message reads (``file: JSON path: what``)."""


@dataclass(frozen=True)
class Annotation:
    start: int
    length: int
    text: str
    typed: bool  # the item has the category's type field (else the official NaN)
    type: str | None


@dataclass
class File:
    name: str
    note_ids: list[str]
    notes: dict[str, dict[str, list[Annotation]]]  # category -> note -> annotations
    objects: int = 0
    merged: int = 0
    missing: dict[str, int] = field(default_factory=dict)
    mismatched: dict[str, int] = field(default_factory=dict)

    def present(self, category: str) -> bool:
        return self.missing[category] < self.objects


def read(path: Path, categories: list[str] | None = None) -> File:
    """The ``categories`` of one file (default: all), or :class:`OracleError` with the reader's
    message."""
    wanted = {c: CATEGORY_FIELDS[c] for c in categories or CATEGORY_FIELDS}
    raw = path.read_bytes()
    name = str(path)
    try:
        data = json.loads(raw.decode(json.detect_encoding(raw), "surrogatepass"))
    except json.JSONDecodeError as error:
        message = f"not valid JSON: {error.msg} (column {error.colno})"
        raise OracleError(f"{name}:{error.lineno}: {message}") from None
    if not isinstance(data, list):
        kind = type(data).__name__.replace("dict", "object")
        raise OracleError(
            f"{name}: expected a JSON list of annotation objects (one per note), "
            f"found a JSON {kind}"
        )
    out = File(name, [], {c: {} for c in wanted})
    out.missing = dict.fromkeys(wanted, 0)
    out.mismatched = dict.fromkeys(wanted, 0)
    for index, obj in enumerate(data):
        out.objects += 1
        note = _note_id(name, obj, index)
        if note in out.note_ids:
            out.merged += 1
        else:
            out.note_ids.append(note)
        for category, (arrays, type_fields) in wanted.items():
            listed = out.notes[category].setdefault(note, [])
            found = [array for array in arrays if array in obj]
            if not found:
                out.missing[category] += 1
            for array in found:
                where = f"[{index}].{array}"
                for annotation in _annotations(name, obj[array], where, type_fields):
                    listed.append(annotation)
                    if len(annotation.text) != annotation.length:
                        out.mismatched[category] += 1
    return out


def _fail(name: str, where: str, what: str) -> OracleError:
    return OracleError(f"{name}: {where}: {what}")


def _note_id(name: str, obj: Any, index: int) -> str:
    if not isinstance(obj, dict):
        raise _fail(name, f"[{index}]", "expected an annotation object")
    node: Any = obj
    path = f"[{index}]"
    for key in ("annotationSource", "resourceSource"):  # the two objects around the name
        node = node.get(key)
        path += "." + key
        if not isinstance(node, dict):
            raise _fail(name, path, "expected an object")
    where = path + ".name"
    value = node.get("name")
    if not isinstance(value, str):
        raise _fail(name, where, "expected a string (the note name)")
    surrogates = [c for c in value if "\ud800" <= c <= "\udfff"]
    if surrogates:
        what = f"not Unicode text: a lone surrogate {surrogates[0]!a} (the note id is printed)"
        raise _fail(name, where, what)
    if not posixpath.basename(value):
        raise _fail(name, where, f"the note id (basename of {value!r}) is empty")
    return posixpath.basename(value)


def _annotations(name: str, array: Any, where: str, type_fields: tuple[str, ...]) -> list[Any]:
    if not isinstance(array, list):
        raise _fail(name, where, "expected a list of annotations")
    out = []
    for k, item in enumerate(array):
        at = f"{where}[{k}]"
        if not isinstance(item, dict):
            raise _fail(name, at, "expected an annotation object")
        for key in ("start", "length"):
            value = item.get(key)
            if type(value) is not int or value < 0:
                raise _fail(name, f"{at}.{key}", "expected a non-negative integer")
        for key in ("start", "length"):
            if item[key] > MAX_OFFSET:
                raise _fail(name, f"{at}.{key}", f"expected an offset up to {MAX_OFFSET}")
        if not isinstance(item.get("text"), str):
            raise _fail(name, f"{at}.text", "expected a string")
        typed, kind = False, None
        for type_field in type_fields:
            if type_field in item:
                typed, kind = True, item[type_field]
                if kind is not None and not isinstance(kind, str):
                    raise _fail(name, f"{at}.{type_field}", "expected a string or null")
                break
        out.append(Annotation(item["start"], item["length"], item["text"], typed, kind))
    return out


# --- tokens --------------------------------------------------------------------------------


_MEMO: dict[tuple[str, str, str], tuple[list[tuple[int, int]], bool]] = {}
"""Tokens by (tokenizer, quotes, exact text), kept between runs (NLTK is slow)."""


class Tokens:
    """(offset, length) of each token of a text, and how many texts needed their quotes fixed."""

    def __init__(self, tokenizer: str = "treebank", quotes: str = "fixed") -> None:
        from nltk.tokenize import TreebankWordTokenizer

        self.treebank = TreebankWordTokenizer()
        self.tokenizer = tokenizer
        self.quotes = quotes
        self.fixed = 0

    def __call__(self, text: str) -> list[tuple[int, int]]:
        key = (self.tokenizer, self.quotes, text)
        if key not in _MEMO:
            _MEMO[key] = self._cut(text)
        spans, fixed = _MEMO[key]
        self.fixed += fixed
        return spans

    def _cut(self, text: str) -> tuple[list[tuple[int, int]], bool]:
        if self.tokenizer == "whitespace":
            spans, offset = [], 0
            for token in re.split(r"\s+", text):
                spans.append((offset, len(token)))
                offset += len(token) + 1
            return spans, False
        spans, cursor, lost = [], 0, False
        for token in self.treebank.tokenize(text):
            at = text[cursor:].find(token) + cursor  # the official search (-1 when not found)
            lost = lost or at < cursor
            spans.append((at, len(token)))
            cursor = at + len(token)
        if lost and self.quotes == "fixed":
            try:
                aligned = [(s, e - s) for s, e in self.treebank.span_tokenize(text)]
            except ValueError:
                return spans, False
            return aligned, True
        return spans, False


# --- counts --------------------------------------------------------------------------------


def _keyed(annotations: list[Annotation], same_start: str) -> dict[int, Annotation]:
    out: dict[int, Annotation] = {}
    for a in annotations:
        if same_start == "last" or a.start not in out:
            out[a.start] = a
    return out


def _flag(a: Annotation) -> bool | None:
    if not a.typed or a.type is None:
        return None
    kind = a.type.lower()
    if kind in HIPAA_YES:
        return True
    if kind in HIPAA_NO:
        return False
    return None  # not in the table


@dataclass
class Quirks:
    overwritten: dict[str, int] = field(default_factory=lambda: {"gold": 0, "pred": 0})
    unknown_hipaa: int = 0


def note_counts(
    gold: list[Annotation],
    pred: list[Annotation],
    tokens: Tokens,
    quirks: Quirks,
    *,
    hipaa: bool,
    same_start: str = "last",
    relax_margin: int = 2,
) -> dict[str, int]:
    g, s = _keyed(gold, same_start), _keyed(pred, same_start)
    quirks.overwritten["gold"] += len(gold) - len(g)
    quirks.overwritten["pred"] += len(pred) - len(s)
    tp = Counter[str]()
    for start, p in s.items():
        if start not in g:
            continue
        q = g[start]
        if abs(p.length - q.length) <= relax_margin:
            tp["instance_relax"] += 1
        if p.length == q.length:
            tp["instance_strict"] += 1
            if p.typed and q.typed and p.type == q.type:
                tp["type"] += 1
            if hipaa and _flag(q) is not None and _flag(q) == _flag(p):
                tp["hipaa"] += 1
    if hipaa:
        quirks.unknown_hipaa += sum(
            1 for a in [*g.values(), *s.values()] if a.typed and _flag(a) is None
        )
    out = {}
    names = ["instance_relax", "instance_strict", "type"] + (["hipaa"] if hipaa else [])
    for name in names:
        out[f"{name}_tp"] = tp[name]
        out[f"{name}_fp"] = len(s) - tp[name]
        out[f"{name}_fn"] = len(g) - tp[name]
    g_tokens = {(a.start + o, n) for a in gold for o, n in tokens(a.text)}
    s_tokens = {(a.start + o, n) for a in pred for o, n in tokens(a.text)}
    out["token_strict_tp"] = len(g_tokens & s_tokens)
    out["token_strict_fp"] = len(s_tokens - g_tokens)
    out["token_strict_fn"] = len(g_tokens - s_tokens)
    return out


# --- scores --------------------------------------------------------------------------------


def scores(counts: dict[str, int], prefix: str = "") -> dict[str, float | None]:
    """Exact P, R, F1 of each metric of ``counts`` (``None`` where undefined)."""
    out: dict[str, float | None] = {}
    metrics = ["instance_relax", "instance_strict", "token_strict", "type"]
    if f"{prefix}hipaa_tp" in counts:
        metrics.append("hipaa")
    for metric in metrics:
        tp, fp, fn = (counts[f"{prefix}{metric}_{k}"] for k in ("tp", "fp", "fn"))
        out[f"{prefix}{metric}_precision"] = tp / (tp + fp) if tp + fp else None
        out[f"{prefix}{metric}_recall"] = tp / (tp + fn) if tp + fn else None
        out[f"{prefix}{metric}_f1"] = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return out


def official(tp: int, fp: int, fn: int) -> tuple[Any, Any, Any]:
    """(F1, P, R) as the official ``print_out`` rounds them."""
    p: Any = 0 if tp + fp == 0 else round(tp / (tp + fp), 2)
    r: Any = 0 if tp + fn == 0 else round(tp / (tp + fn), 2)
    if p + r == 0:
        return 0, p, r
    return round(2 * ((p * r) / (p + r)), 2), p, r


def leaderboard(counts: dict[str, int], category: str, prefix: str = "") -> dict[str, Any]:
    out = {}
    for metric in ("instance_relax", "instance_strict", "token_strict"):
        f1, p, r = official(*(counts[f"{prefix}{metric}_{k}"] for k in ("tp", "fp", "fn")))
        out.update(
            {
                f"location_F1_{metric}": f1,
                f"location_precision_{metric}": p,
                f"location_recall_{metric}": r,
            }
        )
    if category not in ("date", "person"):
        f1, p, r = official(*(counts[f"{prefix}type_{k}"] for k in ("tp", "fp", "fn")))
        out.update(type_F1=f1, type_precision=p, type_recall=r)
    return out


# --- a whole run ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What ``annoscore nlpsandbox`` must give: counts per note and in all, scores, the official
    leaderboard values, and the warnings as (code, count, examples)."""

    per_note: dict[str, dict[str, int]]
    counts: dict[str, int]
    scores: dict[str, float | None]
    leaderboard: dict[str, dict[str, Any]]
    warnings: Counter[tuple[str, int, tuple[str, ...]]]


def score(
    gold_path: Path,
    pred_path: Path,
    category: str | None = None,
    *,
    tokenizer: str = "treebank",
    quotes: str = "fixed",
    same_start: str = "last",
    relax_margin: int = 2,
) -> Outcome:
    """One category (``category``) or every category present in either file (``None``)."""
    wanted = None if category is None else [category]
    gold, pred = read(gold_path, wanted), read(pred_path, wanted)
    if category is None:
        categories = [c for c in CATEGORY_FIELDS if gold.present(c) or pred.present(c)]
        if not categories:
            raise OracleError("no PHI annotation array (textDateAnnotations, ...) in either file")
    else:
        categories = [category]
    notes = list(dict.fromkeys(gold.note_ids + pred.note_ids))
    tokens = Tokens(tokenizer, quotes)
    quirks = Quirks()
    per_note: dict[str, dict[str, int]] = {note: {} for note in notes}
    board = {}
    for c in categories:
        prefix = "" if category else c.replace("-", "_") + "_"
        for note in notes:
            counted = note_counts(
                gold.notes[c].get(note, []),
                pred.notes[c].get(note, []),
                tokens,
                quirks,
                hipaa=c == "location",
                same_start=same_start,
                relax_margin=relax_margin,
            )
            per_note[note].update({prefix + k: v for k, v in counted.items()})
    counts: dict[str, int] = {}
    for c in categories:  # every key, 0 when there is no note at all
        prefix = "" if category else c.replace("-", "_") + "_"
        empty = note_counts([], [], tokens, Quirks(), hipaa=c == "location")
        counts.update((prefix + k, 0) for k in empty)
    for counted in per_note.values():
        for k, v in counted.items():
            counts[k] += v
    all_scores: dict[str, float | None] = {}
    for c in categories:
        prefix = "" if category else c.replace("-", "_") + "_"
        all_scores.update(scores(counts, prefix))
        board[c] = leaderboard(counts, c, prefix)
    warnings = _warnings(gold, pred, categories, quirks, tokens)
    if None in all_scores.values():  # design.md: every undefined score is named in a warning
        warnings["undefined", 1, ()] += 1
    return Outcome(per_note, counts, all_scores, board, warnings)


def _warnings(
    gold: File, pred: File, categories: list[str], quirks: Quirks, tokens: Tokens
) -> Counter[tuple[str, int, tuple[str, ...]]]:
    out: Counter[tuple[str, int, tuple[str, ...]]] = Counter()
    for side, file in (("gold", gold), ("pred", pred)):
        if quirks.overwritten[side]:
            out["same-start", quirks.overwritten[side], ()] += 1
        if file.merged:
            out["merged-notes", file.merged, ()] += 1
        for c in categories:
            if file.missing[c]:
                out["missing-array", file.missing[c], ()] += 1
            if file.mismatched[c]:
                out["length-mismatch", file.mismatched[c], ()] += 1
    only_pred = [n for n in pred.note_ids if n not in gold.note_ids]
    if only_pred:
        out["prediction-only-notes", len(only_pred), tuple(only_pred[:5])] += 1
    only_gold = [n for n in gold.note_ids if n not in pred.note_ids]
    if only_gold:
        out["gold-only-notes", len(only_gold), tuple(only_gold[:5])] += 1
    if quirks.unknown_hipaa:
        out["unknown-location-type", quirks.unknown_hipaa, ()] += 1
    if tokens.fixed:
        out["quote-offsets", tokens.fixed, ()] += 1
    return out
