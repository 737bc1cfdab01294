"""trec_eval's measures by name: the catalogue of ``all_trec``, ``-m MEASURE[.params]`` read into
a :class:`MeasureSet`, and the scorer of a trec result.

Every measure is a per-query value kept as an additive count, so a corpus figure is a sum over
queries (``scores`` of the summed counts) and intervals, paired tests and ``--per-doc`` work for
all of them:

- ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``: whole counts,
  reported as sums (as trec_eval reports them);
- every other measure ``M`` (``map``, ``P_10``, ``ndcg_cut_10``...): the count ``M_sum`` (its
  per-query values added), ``M = M_sum / num_q``;
- ``gm_map`` and ``gm_bpref``: the count ``M_logsum`` (the sum of ``log(max(value, 0.00001))``),
  ``M = exp(M_logsum / num_q)``, trec_eval's geometric mean.

Undefined: every mean of no query (``num_q`` 0) is ``None``.

>>> chosen = MeasureSet.parse(["P.5,10", "map"])
>>> [m.name for m in chosen.outputs()]
['map', 'P_5', 'P_10']
>>> from annoscore.counts import Counts
>>> trec_scores(Counts(num_q=2, map_sum=1.5, P_5_sum=0.4))
{'map': 0.75, 'P_5': 0.2}
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.records import Fields, Record, set_fields
from annoscore.result import Details

if TYPE_CHECKING:
    from annoscore.metrics.worst_lists import WorstLists

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
MIN_GEO_MEAN = 0.00001
"""The floor of a per-query value in a geometric mean (trec_eval's)."""

# name -> (kind, default parameters); the order is all_trec's, the order of the output
_CATALOGUE: dict[str, tuple[str, tuple[float, ...]]] = {
    "runid": ("runid", ()),
    "num_q": ("num_q", ()),
    "num_ret": ("count", ()),
    "num_rel": ("count", ()),
    "num_rel_ret": ("count", ()),
    "map": ("mean", ()),
    "gm_map": ("geo", ()),
    "Rprec": ("mean", ()),
    "bpref": ("mean", ()),
    "recip_rank": ("mean", ()),
    "iprec_at_recall": ("levels", RECALL_LEVELS),
    "P": ("cutoffs", CUTOFFS),
    "relstring": ("relstring", (10,)),
    "recall": ("cutoffs", CUTOFFS),
    "infAP": ("mean", ()),
    "gm_bpref": ("geo", ()),
    "Rprec_mult": ("levels", tuple(i / 5 for i in range(1, 11))),
    "utility": ("utility", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": ("mean_levels", RECALL_LEVELS),
    "binG": ("mean", ()),
    "G": ("mean", ()),
    "ndcg": ("gains", ()),
    "ndcg_rel": ("gains", ()),
    "Rndcg": ("gains", ()),
    "ndcg_cut": ("cutoffs", CUTOFFS),
    "map_cut": ("cutoffs", CUTOFFS),
    "relative_P": ("cutoffs", CUTOFFS),
    "success": ("cutoffs", (1, 5, 10)),
    "set_P": ("mean", ()),
    "set_relative_P": ("mean", ()),
    "set_recall": ("mean", ()),
    "set_map": ("mean", ()),
    "set_F": ("beta", (1.0,)),
    "num_nonrel_judged_ret": ("count", ()),
    "rbp": ("rbp", (0.9,)),
    "unj": ("cutoffs", (5, 10, 20)),
}
ALL_TREC = tuple(_CATALOGUE)
OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
SETS = {"all_trec": ALL_TREC, "official": OFFICIAL}
MASTER_ONLY = frozenset({"rbp", "unj"})
"""The measures of trec_eval master that release 9.0.8 does not have (``-m all_trec`` there
leaves them out)."""
DEFAULT = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map")


@dataclass(frozen=True, slots=True)
class Output:
    """One line of trec_eval's output: ``name`` as trec_eval prints it (``P_10``), ``measure``
    the family (``P``), ``kind`` (``count``, ``mean``, ``geo``, ``runid``, ``num_q``,
    ``relstring``), ``param`` the cut-off or level it stands for."""

    name: str
    measure: str
    kind: str
    param: float = 0.0

    def __reduce__(self) -> tuple[Any, tuple[str, str, str, float]]:
        """Pickled as its fields, made again once per process (:func:`_output`: a chunk's
        result carries every output of ``all_trec``; a slotted dataclass's own state costs ten
        times more, and the chunks' outputs, the same objects, compare at once when the parent
        joins them)."""
        return _output, (self.name, self.measure, self.kind, self.param)

    @property
    def column(self) -> str:
        """The count that holds it (``P_10_sum``; a whole count under its own name)."""
        if self.kind in ("count", "num_q"):
            return self.name
        if self.kind == "geo":
            return self.name + "_logsum"
        return self.name + "_sum"

    @property
    def per_query(self) -> bool:
        """Whether ``trec_eval -q`` prints it for each query."""
        return self.kind not in ("runid", "num_q", "geo")


_OUTPUTS: dict[tuple[str, str, str, type, str], Output] = {}


def _output(name: str, measure: str, kind: str, param: float) -> Output:
    """The :class:`Output` of these fields, one object for each in a process (an unpickled
    chunk's; keyed by the parameter's type and exact text, so ``10`` and ``10.0``, ``0.0``
    and ``-0.0`` stay apart; at most 4,096 kept).

    >>> _output("P_10", "P", "mean", 10.0) is _output("P_10", "P", "mean", 10.0)
    True
    >>> _output("x", "x", "mean", -0.0) is _output("x", "x", "mean", 0.0)
    False
    """
    key = (name, measure, kind, type(param), repr(param))
    found = _OUTPUTS.get(key)
    if found is None:
        found = Output(name, measure, kind, param)
        if len(_OUTPUTS) < 4096:
            _OUTPUTS[key] = found
    return found


class Measure(Record):
    """A measure chosen, with its parameters (``params``: cut-offs or levels; ``gains``:
    relevance level -> gain for the nDCG family)."""

    __slots__ = ("name", "params", "gains")  # noqa: RUF023 (field order)
    name: str
    params: tuple[float, ...]
    gains: tuple[tuple[int, float], ...]

    def __init__(
        self, name: str, params: tuple[float, ...] = (), gains: tuple[tuple[int, float], ...] = ()
    ) -> None:
        set_fields(self, name=name, params=params, gains=gains)

    @property
    def kind(self) -> str:
        return _CATALOGUE[self.name][0]

    def outputs(self) -> list[Output]:
        kind, name = self.kind, self.name
        if kind == "cutoffs":
            return [Output(f"{name}_{int(k)}", name, "mean", k) for k in self.params]
        if kind == "levels":
            return [Output(f"{name}_{k:.2f}", name, "mean", k) for k in self.params]
        if kind == "rbp":
            return [Output("rbp", name, "mean"), Output("rbp_resid", name, "mean")]
        if kind in ("count", "runid", "num_q", "geo", "relstring"):
            return [Output(name, name, kind)]
        return [Output(name, name, "mean")]

    @property
    def text(self) -> str:
        """The measure as ``-m`` names it, parameters included."""
        if self.gains:
            return f"{self.name}." + ",".join(f"{k}={v:g}" for k, v in self.gains)
        if self.params != _CATALOGUE[self.name][1]:
            return f"{self.name}." + ",".join(f"{p:g}" for p in self.params)
        return self.name


def _numbers(name: str, text: str, whole: bool, flag: str) -> tuple[float, ...]:
    values: list[float] = []
    for part in text.split(","):
        try:
            value = float(int(part)) if whole else float(part)
        except ValueError:
            kind = "whole numbers" if whole else "numbers"
            raise InputError(
                f"{flag} {name}.{text}: expected comma-separated {kind}, not {part!r}"
            ) from None
        if not math.isfinite(value) or (whole and value < 1):
            raise InputError(f"{flag} {name}.{text}: {part!r} is out of range")
        values.append(value)
    return tuple(values)


def _measure(spec: str, flag: str, version: str) -> Measure:
    name, dot, text = spec.partition(".")
    if name not in _CATALOGUE:
        raise InputError(
            f"{flag} {spec}: unknown measure; annoscore computes trec_eval's all_trec measures "
            f"({', '.join(ALL_TREC)}) and the sets "
            "official and all_trec"
        )
    if version == "9.0.8" and name in MASTER_ONLY:
        raise InputError(
            f"{flag} {spec}: {name} is not in trec_eval 9.0.8 (a measure of trec_eval master: "
            "leave out --trec-eval 9.0.8 to compute it)"
        )
    kind, default = _CATALOGUE[name]
    if not dot:
        return Measure(name, default)
    if name == "G":
        raise InputError(
            f"{flag} {spec}: annoscore computes G with its default gains (the relevance levels) "
            "only: trec_eval master's rule past the last positive gain is reproduced for those"
        )
    if kind == "cutoffs" or kind == "relstring":
        values = _numbers(name, text, True, flag)
        return Measure(name, tuple(sorted(set(values))) if kind == "cutoffs" else values[:1])
    if kind in ("levels", "mean_levels"):
        values = tuple(sorted(set(_numbers(name, text, False, flag))))
        return Measure(name, values)
    if kind in ("utility", "beta", "rbp"):
        values = _numbers(name, text, False, flag)
        wanted = len(default)
        if len(values) != wanted:
            raise InputError(f"{flag} {spec}: {name} takes {wanted} number(s)")
        if kind == "rbp" and not 0 < values[0] < 1:
            raise InputError(f"{flag} {spec}: the persistence of rbp is between 0 and 1")
        return Measure(name, values)
    if kind == "gains":
        gains: dict[int, float] = {}
        for part in text.split(","):
            level, _, gain = part.partition("=")
            try:
                gains[int(level)] = float(gain)
            except ValueError:
                raise InputError(
                    f"{flag} {spec}: expected comma-separated level=gain pairs (ndcg.1=0,2=3), "
                    f"not {part!r}"
                ) from None
            if not math.isfinite(gains[int(level)]):  # (no "=": float("") failed)
                raise InputError(f"{flag} {spec}: expected level=gain, not {part!r}")
        return Measure(name, (), tuple(sorted(gains.items())))
    raise InputError(f"{flag} {spec}: {name} takes no parameters")


def _joined(specs: Iterable[str]) -> list[str]:
    """``specs`` with the pieces a split at commas made put back: a piece that does not start
    with a measure's name (``10`` of ``P.5,10``, ``2=3`` of ``ndcg.1=0,2=3``) continues the one
    before it.

    >>> _joined(["P.5", "10", "map", "ndcg.1=0", "2=3"])
    ['P.5,10', 'map', 'ndcg.1=0,2=3']
    """
    out: list[str] = []
    for spec in specs:
        spec = spec.strip()
        name = spec.partition(".")[0]
        if out and name not in _CATALOGUE and name not in SETS:
            out[-1] += "," + spec
        else:
            out.append(spec)
    return out


@dataclass(frozen=True, slots=True)
class MeasureSet:
    """The measures ``-m`` chose (each name at most once: a later ``-m`` of the same measure
    replaces an earlier one), in trec_eval's output order, as trec_eval ``version`` defines
    them (``master``, or ``9.0.8``: its recall rule for ``iprec_at_recall`` and ``11pt_avg``,
    :mod:`annoscore.metrics.ranking_measures`)."""

    measures: tuple[Measure, ...]
    version: str = "master"

    @classmethod
    def parse(cls, specs: Iterable[str], flag: str = "-m", version: str = "master") -> MeasureSet:
        """``-m`` values: measure names with optional ``.params``, or ``official``/``all_trec``
        (``flag``: the option that gave them, as messages name it), of trec_eval ``version``:
        with ``9.0.8``, the sets leave out the measures of master only (:data:`MASTER_ONLY`)
        and naming one is an :class:`InputError`.

        >>> [m.text for m in MeasureSet.parse(["official", "ndcg.1=0,2=3"]).measures][-2:]
        ['P', 'ndcg.1=0,2=3']
        >>> [m.name for m in MeasureSet.parse(["all_trec"], version="9.0.8").measures][-2:]
        ['set_F', 'num_nonrel_judged_ret']
        """
        chosen: dict[str, Measure] = {}
        for spec in _joined(specs):
            if spec in SETS:
                for name in SETS[spec]:
                    if version == "9.0.8" and name in MASTER_ONLY:
                        continue
                    chosen.setdefault(name, Measure(name, _CATALOGUE[name][1]))
                continue
            measure = _measure(spec, flag, version)
            chosen[measure.name] = measure
        ordered = tuple(chosen[n] for n in ALL_TREC if n in chosen)
        if not ordered:
            raise InputError(f"{flag}: no measure chosen")
        return cls(ordered, version)

    def get(self, name: str) -> Measure | None:
        return next((m for m in self.measures if m.name == name), None)

    def outputs(self) -> list[Output]:
        """Every measure's lines, in order, each one object in this process (:func:`_output`):
        the outputs of chunks scored here and of chunks unpickled compare at once when they are
        joined (:func:`annoscore.tasks.trec._joined_details`; 83 chunks of ``all_trec``, 8,100
        field-by-field comparisons otherwise). Made once for the last set asked: a command asks
        for them several times, for each chunk of its input."""
        last = _LAST_OUTPUTS[0]
        if last is None or last[0] is not self:
            made = tuple(
                _output(o.name, o.measure, o.kind, o.param)
                for m in self.measures
                for o in m.outputs()
            )
            last = _LAST_OUTPUTS[0] = (self, made)
        return list(last[1])

    def custom(self) -> str:
        """The parameters that move a number (gains, levels, cut-offs are names of their own):
        the measures with gains, for the signature; empty when none."""
        return ";".join(m.text for m in self.measures if m.gains or m.kind in ("utility", "beta"))


_LAST_OUTPUTS: list[tuple[MeasureSet, tuple[Output, ...]] | None] = [None]
"""The last :class:`MeasureSet` whose outputs were asked for, and its outputs."""


def trec_scores(counts: Counts) -> dict[str, float | None]:
    """The scorer of a trec result: each ``M_sum`` count gives ``M = M_sum / num_q``, each
    ``M_logsum`` gives ``M = exp(M_logsum / num_q)`` (``None`` if ``num_q`` is 0).

    >>> trec_scores(Counts(num_q=2, num_ret=5, gm_map_logsum=math.log(0.25) * 2))
    {'gm_map': 0.25}
    """
    return means(counts, counts.get("num_q", 0))


def means(counts: Counts, queries: float, skip: tuple[str, ...] = ()) -> dict[str, float | None]:
    """The mean of each measure of ``counts`` over ``queries``: ``M_sum`` gives
    ``M = M_sum / queries``, ``M_logsum`` gives ``M = exp(M_logsum / queries)`` (``None`` if
    ``queries`` is 0), in the order of ``counts``; the counts named in ``skip`` are not
    measures.

    >>> means(Counts(ap_sum=1.0, P_5_sum=0.5, queries=2), 2, skip=("ap_sum",))
    {'P_5': 0.25}
    """
    out: dict[str, float | None] = {}
    for key, value in counts.items():
        if key in skip:
            continue
        if key.endswith("_logsum"):
            out[key[: -len("_logsum")]] = math.exp(value / queries) if queries else None
        elif key.endswith("_sum"):
            out[key[: -len("_sum")]] = value / queries if queries else None
    return out


def text_value(output: Output, value: float | int | str | None) -> str:
    """A value as trec_eval prints it: ``%.4f``, whole counts as integers, ``-`` if undefined.

    >>> text_value(Output("map", "map", "mean"), 0.20006)
    '0.2001'
    >>> text_value(Output("num_q", "num_q", "num_q"), 3)
    '3'
    """
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if output.kind in ("count", "num_q"):
        return str(int(value))
    return f"{value:.4f}"


class RankedLists(Fields):
    """Every query's ranked list as trec_eval ranked it (what the HTML report shows of the worst
    queries): per ranked row, in query then rank order, its query's position in ``names`` (the
    order the run's rows give the queries; ``query`` ascending), its row of the run
    (``run.document(row)`` is its id), its relevance (``value``) and whether it is judged; per
    query the number of relevant judgments (``relevant``: relevance at least ``level``)."""

    __slots__ = ("is_judged", "level", "names", "query", "relevant", "rows", "run", "value")
    names: tuple[str, ...]
    query: Any
    rows: Any
    value: Any
    is_judged: Any
    relevant: Any
    level: int
    run: Any

    def query_lists(self, names: Iterable[str], first: int) -> dict[str, Any]:
        """The :class:`~annoscore.metrics.worst_lists.QueryList` of each of ``names`` (queries
        of ``self.names``): its relevant judgments, the relevant documents it ranks, its first
        ``first`` ranks as ``(document, relevance)`` (``None``: not judged)."""
        import numpy as np

        from annoscore.formats.trec import shown
        from annoscore.metrics.worst_lists import QueryList

        position = {name: k for k, name in enumerate(self.names)}
        query = np.asarray(self.query)
        out = {}
        for name in names:
            k = position[name]
            bounds = np.array([k, k + 1], dtype=query.dtype)  # no cast of the column
            lo, hi = np.searchsorted(query, bounds).tolist()
            relevant = self.value[lo:hi] >= self.level
            found = int(np.count_nonzero(relevant & self.is_judged[lo:hi]))
            top = min(hi, lo + first)
            ranked = tuple(
                (shown(self.run.document(int(row))), int(v) if judged else None)
                for row, v, judged in zip(
                    self.rows[lo:top].tolist(),
                    self.value[lo:top].tolist(),
                    self.is_judged[lo:top].tolist(),
                    strict=True,
                )
            )
            out[name] = QueryList(int(self.relevant[k]), found, ranked)
        return out


@dataclass(frozen=True, slots=True)
class TrecDetails(Details):
    """What trec_eval's text layout needs beyond the counts: the run's tag(s), the lines to
    print (in order) and each query's ``relstring`` (in the matrix's query order; empty when
    not chosen); ``ranking``: the ranked lists (for the HTML report)."""

    runid: str
    outputs: tuple[Output, ...]
    relstrings: tuple[str, ...] = ()
    ranking: RankedLists | WorstLists | None = None
