"""NLP Sandbox PHI metrics: the definitions, the settings that move a number, and the scores.

The official evaluation (nlpsandbox-client 4.3.1) pools every note into dictionaries keyed by
strings; annoscore counts each note on its own and the corpus counts are the sums, which give the
official pooled counts because every official key starts with the note id:

- **instance keys** are ``(note, start)``.  Annotations sharing a start collapse, the *last* in
  file order wins (``same_start="last"``, official; ``"first"`` keeps the first).  For each
  prediction key present in the gold:

  - *relax*: TP when ``|length_pred - length_gold| <= relax_margin`` (official 2; the start
    must be equal, so the margin moves only the end);
  - *strict*: TP when the lengths are equal;
  - *type*: TP when the lengths are equal and the type values are equal.  An item without a
    type field never matches (the official NaN); an explicit ``null`` equals ``null``;
  - *hipaa* (locations, never computed officially): as *type*, comparing the HIPAA-PHI flag of
    the location type (:data:`HIPAA_PHI`); an absent, ``null`` or unknown type never matches.

  Then ``fp = pred keys - tp`` and ``fn = gold keys - tp``: a prediction at a gold start that
  fails the condition is both an FP and an FN.  Only the declared ``length`` is compared, not the
  text.
- **token keys** are ``(note, absolute start, token length)``, from *every* annotation (the
  collapsed ones too), de-duplicated; ``tp = |G & S|``, ``fp = |S - G|``, ``fn = |G - S|``.  Each
  annotation's ``text`` is tokenized alone and a token's offset found with a running cursor from
  the annotation's ``start`` (:class:`annoscore.metrics.phi_tokens.TokenSpans`).

Additivity: the official string keys ``"<note>-<start>"`` and ``"<note>-<start>-<len>"`` cannot
collide across notes while offsets are non-negative (the two numbers after the last two hyphens
are read back unambiguously).  They can only with ``quotes="official"``, where an annotation at
start 0 that opens with a rewritten ``"`` gets offset -1: note ``n`` at -1 and note ``n-`` at 1
both give ``"n--1-2"``.  annoscore keeps the notes apart there (a test names the case), so per-note
counts always add up.

:mod:`annoscore.metrics.phi_tokens` tokenizes, :mod:`annoscore.metrics.phi_counts` counts, and
this module scores: :func:`phi_scores` (exact fractions, :func:`annoscore.metrics.prf.prf`) and
:func:`official_prf` (P and R rounded to 2 decimals, F1 from the rounded values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from annoscore.counts import Number
from annoscore.metrics.prf import f_beta, prf, prf_of

if TYPE_CHECKING:
    from annoscore.arrays import IntArray


class SameStart(str, Enum):
    """Which annotation a (note, start) key keeps when several share it."""

    last = "last"  # official: a dictionary overwritten in file order
    first = "first"


class Tokenizer(str, Enum):
    """How an annotation's text is cut into tokens."""

    treebank = "treebank"  # official since 4.3.0 (January 2022): NLTK TreebankWordTokenizer
    whitespace = "whitespace"  # official up to 4.2.0: re.split(r"\s+"), offsets += len + 1


class Quotes(str, Enum):
    """Offsets of the quote tokens Treebank rewrites (``"`` -> ````` / ``''``)."""

    fixed = "fixed"  # annoscore: the token is found in the text (NLTK's span_tokenize)
    official = "official"  # the official search fails: offset = cursor - 1, bogus keys


HIPAA_PHI: dict[str, bool] = {
    "city": True,
    "organization": True,
    "street": True,
    "zip": True,
    "country": False,
    "department": False,
    "hospital": False,
    "other": False,
    "location-other": False,
    "room": False,
    "state": False,
}
"""Location type -> HIPAA-PHI, from the task page's table (matched case-insensitively)."""

INSTANCE_METRICS = ("instance_relax", "instance_strict", "token_strict", "type")
"""The four official metrics, in the official evaluation order except that token comes last."""

CATEGORY_PREFIXES = ("date", "person", "location", "id", "contact", "covid_symptom")
"""Count-key prefixes of the categories in ``annoscore nlpsandbox all`` (official order)."""


def hipaa_flags(values: Sequence[object]) -> IntArray:
    """Per type number (the type values in number order): 1 HIPAA PHI, 0 not PHI, -1 absent,
    null or unknown (never matches).

    >>> hipaa_flags([None, "City", "room", "planet"]).tolist()
    [-1, 1, 0, -1]
    """
    import numpy as np

    flags = [
        -1 if not isinstance(v, str) else {True: 1, False: 0, None: -1}[HIPAA_PHI.get(v.lower())]
        for v in values
    ]
    return np.array(flags, dtype=np.int64)


def phi_scores(counts: Mapping[str, Number], prefix: str = "") -> dict[str, float | None]:
    """``{metric}_{precision,recall,f1}`` of one category's counts (exact, ``prf`` rules), of
    the keys that start with ``prefix`` (keys of the scores too).

    ``hipaa_*`` too when the counts have ``hipaa_tp`` (locations).

    >>> phi_scores({"instance_relax_tp": 3, "instance_relax_fp": 1})["instance_relax_precision"]
    0.75
    """
    scores: dict[str, float | None] = {}
    hipaa = ("hipaa",) if f"{prefix}hipaa_tp" in counts else ()
    for name in INSTANCE_METRICS + hipaa:
        scores.update(prf_of(counts, f"{prefix}{name}_").as_dict(f"{prefix}{name}_"))
    return scores


def all_scores(counts: Mapping[str, Number]) -> dict[str, float | None]:
    """:func:`phi_scores` of every category present, keys prefixed ``{category}_``.

    A category is present when its ``{category}_instance_relax_tp`` count is.

    >>> sorted(all_scores({"id_instance_relax_tp": 1, "id_instance_relax_fn": 1}))[:3]
    ['id_instance_relax_f1', 'id_instance_relax_precision', 'id_instance_relax_recall']
    """
    scores: dict[str, float | None] = {}
    for category in CATEGORY_PREFIXES:
        if f"{category}_instance_relax_tp" in counts:
            scores.update(phi_scores(counts, f"{category}_"))
    return scores


Official = int | float


def official_prf(tp: Number, fp: Number, fn: Number) -> tuple[Official, Official, Official]:
    """The official (F1, precision, recall): P and R of :func:`annoscore.metrics.prf.prf` (the
    rule) rounded to 2 decimals, F1 the harmonic mean of the rounded values, rounded.

    Where the rule leaves P or R undefined the official prints the int ``0``, and F1 is the int
    ``0`` when the rounded P + R is 0.

    >>> official_prf(1, 12, 0)       # the exact F1 would round to 0.14
    (0.15, 0.08, 1.0)
    >>> official_prf(0, 0, 0), official_prf(0, 1, 1)
    ((0, 0, 0), (0, 0.0, 0.0))
    """
    exact = prf(tp, fp, fn)
    precision: Official = 0 if exact.precision is None else round(exact.precision, 2)
    recall: Official = 0 if exact.recall is None else round(exact.recall, 2)
    if precision + recall == 0:
        return 0, precision, recall
    return round(f_beta(float(precision), float(recall)) or 0.0, 2), precision, recall


OFFICIAL_TYPE_NAN = frozenset({"date", "person"})
"""Categories whose type P/R/F1 the official ``eval()`` returns as NaN (hard-wired)."""


def leaderboard(counts: Mapping[str, Number], category: str, prefix: str = "") -> dict[str, Any]:
    """The controller's flattened keys of one category, official rounding, NaN ones dropped.

    ``location_{F1,precision,recall}_{instance_relax,instance_strict,token_strict}`` (``location``
    is the official name of the offset-based metrics, whatever the category) and
    ``type_{F1,precision,recall}`` except for date and person, which the official reports as NaN.

    >>> board = leaderboard({"token_strict_tp": 4, "token_strict_fn": 2}, "location")
    >>> board["location_F1_token_strict"], board["location_recall_token_strict"]
    (0.8, 0.67)
    """
    out: dict[str, Any] = {}
    for name in ("instance_relax", "instance_strict", "token_strict"):
        f1, p, r = official_prf(*(counts.get(f"{prefix}{name}_{k}", 0) for k in ("tp", "fp", "fn")))
        out[f"location_F1_{name}"] = f1
        out[f"location_precision_{name}"] = p
        out[f"location_recall_{name}"] = r
    if category not in OFFICIAL_TYPE_NAN:
        f1, p, r = official_prf(*(counts.get(f"{prefix}type_{k}", 0) for k in ("tp", "fp", "fn")))
        out.update(type_F1=f1, type_precision=p, type_recall=r)
    return out
