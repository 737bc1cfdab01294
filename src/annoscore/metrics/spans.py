"""Counts of generic span scoring: tp/fp/fn per mode and the SemEval-2013 tallies, per type.

Keys of a document's :class:`~annoscore.counts.Counts`:

- tp/fp/fn modes: ``tp``, ``fp``, ``fn`` and, for every type seen in the document,
  ``type:NAME:tp`` etc.;
- SemEval: ``{scheme}_{cor,inc,par,mis,spu}`` for the schemes strict, exact, partial and type,
  and ``type:NAME:{scheme}_{...}``.

Attribution to types (so that the per-type counts add up to the overall ones):

- a matched pair counts under the **gold** type (tp, or COR/INC/PAR);
- an unmatched gold mention is a fn (MIS) of its type; an unmatched prediction is a fp (SPU) of
  the **predicted** type.

In ``strict``, ``overlap``, ``relaxed`` and ``token`` mode pairs have one type, so a prediction
with the wrong type is a fp of its type and leaves the gold mention a fn of the gold type.  In
``exact`` mode and the SemEval schemes a pair may join two types: it is credited to the gold type
only, and the predicted type's counts do not see that prediction.

Formulas: P = tp / (tp + fp), R = tp / (tp + fn) (:mod:`annoscore.metrics.prf`); SemEval
P = (COR + PAR/2) / ACT, R = (COR + PAR/2) / POS with POS = COR + INC + PAR + MIS (the gold
mentions) and ACT = COR + INC + PAR + SPU (the predictions) (:mod:`annoscore.metrics.tallies`).

Where each count is made: :func:`mode_counts` / :func:`semeval_counts` here count one document
from its mention objects (a document with a discontinuous mention, or offsets too large for
packed keys), and the ``*_table`` functions of :mod:`annoscore.metrics.span_tables` count the
continuous mentions of a whole corpus at once
(:class:`~annoscore.align.span_arrays.SpanArrays`) into a ``(documents, types, statistics)``
integer array (its ``CountTable``); :class:`annoscore.metrics.span_corpus.SpanCorpus` sends each
document to one of them.  Both are held to the plain reference of ``tests/oracles/spans.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import Literal, cast

from annoscore.align.span_modes import SCHEMES, MatchKind, MatchOptions, SpanMode
from annoscore.align.spans import (
    align_mentions,
    canonical,
    pair_credit,
    token_units,
    whitespace_tokens,
)
from annoscore.counts import Counts, Number
from annoscore.metrics.prf import prf_scores
from annoscore.model import Mention

PRF_NAMES = ("tp", "fp", "fn")
"""The statistics of the tp/fp/fn modes."""

TALLY_KINDS = ("cor", "inc", "par", "mis", "spu")
SEMEVAL_NAMES = tuple(f"{scheme}_{kind}" for scheme in SCHEMES for kind in TALLY_KINDS)
"""The statistics of the SemEval mode, scheme by scheme."""

TYPE_PREFIX = "type:"


def type_key(type_name: str, stat: str) -> str:
    """The Counts key of a per-type statistic: ``type:NAME:stat``."""
    return f"{TYPE_PREFIX}{type_name}:{stat}"


def counts_by_type(per_type: dict[str, dict[str, int]], names: Sequence[str]) -> Counts:
    """The counts of a document from its per-type statistics: each of ``names`` summed over the
    types, then ``type:NAME:stat`` for every type.

    >>> counts_by_type({"PER": {"tp": 2}, "LOC": {"tp": 1, "fn": 1}}, ("tp", "fn"))["tp"]
    3
    """
    values: dict[str, int] = dict.fromkeys(names, 0)
    for type_name, stats in per_type.items():
        for name in names:
            value = stats.get(name, 0)
            values[name] += value
            values[type_key(type_name, name)] = value
    return Counts(values)


def _types_of(*groups: Iterable[Mention]) -> dict[str, dict[str, int]]:
    return {m.type: {} for group in groups for m in group}


def mode_counts(
    gold: Iterable[Mention],
    pred: Iterable[Mention],
    mode: SpanMode,
    options: MatchOptions | None = None,
    text: str | None = None,
) -> Counts:
    """tp/fp/fn of one document in ``mode`` (not ``semeval``: :func:`semeval_counts`;
    ``token`` needs the document ``text``)."""
    gold = list(gold)
    pred = list(pred)
    per_type = _types_of(gold, pred)
    if mode == "token":
        if text is None:
            raise ValueError("token mode needs the document text")
        tokens = whitespace_tokens(text)
        gold_units = token_units(gold, text, tokens)
        pred_units = token_units(pred, text, tokens)
        for units, stat in (
            (gold_units & pred_units, "tp"),
            (gold_units - pred_units, "fn"),
            (pred_units - gold_units, "fp"),
        ):
            for type_name, number in Counter(t for _, _, t in units).items():
                per_type[type_name][stat] = number
        return counts_by_type(per_type, PRF_NAMES)
    alignment = align_mentions(gold, pred, cast(MatchKind, mode), options)
    tally: Counter[tuple[str, str]] = Counter()
    for i, _ in alignment.pairs:
        tally[alignment.gold[i].type, "tp"] += 1
    for m in alignment.unmatched_gold():
        tally[m.type, "fn"] += 1
    for m in alignment.unmatched_pred():
        tally[m.type, "fp"] += 1
    for (type_name, stat), number in tally.items():
        per_type[type_name][stat] = number
    return counts_by_type(per_type, PRF_NAMES)


def semeval_counts(
    gold: Iterable[Mention], pred: Iterable[Mention], options: MatchOptions | None = None
) -> Counts:
    """The SemEval-2013 COR/INC/PAR/MIS/SPU of one document, for each of the four schemes.

    Each scheme has its own optimal matching (see :func:`~annoscore.align.spans.pair_credit`).
    """
    gold = canonical(gold)
    pred = canonical(pred)
    per_type = _types_of(gold, pred)
    tally: Counter[tuple[str, str]] = Counter()
    for scheme in SCHEMES:
        kind: Literal["semeval_strict", "semeval_exact", "semeval_partial", "semeval_type"]
        kind = f"semeval_{scheme}"  # type: ignore[assignment]
        alignment = align_mentions(gold, pred, kind, options)
        for i, j in alignment.pairs:
            g, p = alignment.gold[i], alignment.pred[j]
            credit = pair_credit(kind, g.span.fragments == p.span.fragments, g.type == p.type)
            fate = "cor" if credit == 2 else "par" if credit == 1 else "inc"
            tally[g.type, f"{scheme}_{fate}"] += 1
        for m in alignment.unmatched_gold():
            tally[m.type, f"{scheme}_mis"] += 1
        for m in alignment.unmatched_pred():
            tally[m.type, f"{scheme}_spu"] += 1
    for (type_name, stat), number in tally.items():
        per_type[type_name][stat] = number
    return counts_by_type(per_type, SEMEVAL_NAMES)


_SEMEVAL_KEYS = tuple(
    (scheme, tuple(f"{scheme}_{kind}" for kind in ("cor", "par", "inc", "mis", "spu")))
    for scheme in SCHEMES
)


def semeval_scores(counts: Mapping[str, Number], prefix: str = "") -> dict[str, float | None]:
    """``{scheme}_{precision,recall,f1}`` of the SemEval tallies
    (:class:`~annoscore.metrics.tallies.Tally`: P = (COR + PAR/2) / ACT, R = (COR + PAR/2) /
    POS, F their harmonic mean; F is 0 when one side is empty, ``None`` when both are).

    The arithmetic of :class:`~annoscore.metrics.tallies.Tally` and
    :func:`~annoscore.metrics.prf.f_beta`, written out: this runs once per document.

    >>> semeval_scores(Counts(strict_cor=1, strict_par=1, strict_spu=2))["strict_precision"]
    0.375
    """
    out: dict[str, float | None] = {}
    stored = dict(counts.items())  # plain dict lookups (a missing count is 0)
    for scheme, keys in _SEMEVAL_KEYS:
        if prefix:
            keys = tuple(prefix + key for key in keys)
        cor, par, inc, mis, spu = map(int, map(stored.get, keys, repeat(0)))
        credit = cor + 0.5 * par
        pos = cor + par + inc + mis
        act = cor + par + inc + spu
        precision = credit / act if act else None
        recall = credit / pos if pos else None
        f1: float | None
        if precision is None or recall is None:
            f1 = 0.0 if pos + act > 0 else None
        else:
            f1 = 0.0 if precision + recall == 0 else 2.0 * precision * recall / (precision + recall)
        out[f"{scheme}_precision"] = precision
        out[f"{scheme}_recall"] = recall
        out[f"{scheme}_f1"] = f1
    return out


def span_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """The scorer of every span mode: :func:`~annoscore.metrics.prf.prf_scores` of the
    ``tp``/``fp``/``fn`` modes' counts, :func:`semeval_scores` of the SemEval tallies,
    :func:`~annoscore.metrics.concepts.concept_scores` of the concepts mode's counts (with
    ``ids_tp``, ``ids_fp``, ``ids_fn``; the statistics a count holds say which: every document,
    type and corpus of a SemEval result holds all of :data:`SEMEVAL_NAMES`, and no other; a
    type of a concepts result holds ``tp``, ``fp``, ``fn`` only).

    >>> span_scores(Counts(tp=1, fn=1))["f1"]
    0.6666666666666666
    >>> span_scores(Counts(strict_cor=1, strict_spu=1))["strict_precision"]
    0.5
    """
    if SEMEVAL_NAMES[0] in counts:
        return semeval_scores(counts)
    if "ids_tp" in counts:  # concept scoring: the document id sets too
        from annoscore.metrics.concepts import concept_scores

        return concept_scores(counts)
    return prf_scores(counts)
