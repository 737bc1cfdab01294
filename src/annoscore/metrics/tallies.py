"""The MUC tally family, used by the MUC scorer and the SemEval-2013 span schemes.

A *tally* is the fate of one single fill (one slot value, one entity) after alignment:

========  ===================================================================
``cor``   correct: key and response agree
``par``   partially correct (half credit)
``inc``   incorrect: both present, they disagree
``mis``   missing: in the key, not in the response
``spu``   spurious: in the response, not in the key
``non``   non-committal: optional and left empty on both sides (shown, enters no formula)
========  ===================================================================

Derived, as in the MUC scorer's score report (all as fractions here, the report prints percent)::

    POS = COR + PAR + INC + MIS          possible (the key's fills)
    ACT = COR + PAR + INC + SPU          actual (the response's fills)
    REC = (COR + PAR/2) / POS            recall
    PRE = (COR + PAR/2) / ACT            precision
    UND = MIS / POS                      undergeneration
    OVG = SPU / ACT                      overgeneration
    SUB = (INC + PAR/2) / (COR + PAR + INC)                     substitution
    ERR = (INC + PAR/2 + MIS + SPU) / (COR + PAR + INC + MIS + SPU)   error per response fill
    F_beta = (beta^2 + 1) * P * R / (beta^2 * P + R)

The report's three F columns are ``P&R`` (beta = 1), ``2P&R`` (precision twice as important,
beta = 0.5) and ``P&2R`` (recall twice as important, beta = 2); the manual writes them as
``F = 1 / (alpha/P + (1 - alpha)/R)`` with alpha 0.5, 0.8 and 0.2, which is the same thing with
beta^2 = (1 - alpha) / alpha.

A zero denominator makes a value undefined (``None``; the report prints ``*``).  F follows the
one rule (:func:`annoscore.metrics.prf.prf`, with COR + PAR/2 as the true positives): it comes
from the counts and is undefined only when neither side has a fill (POS + ACT = 0), so a response
that fills nothing against a key that has fills has F 0, not undefined (it pulls a macro average
down).  The score report's own rule is kept in the report: it prints "F-MEASURES not available"
whenever P or R is undefined (:func:`annoscore.report.muc.f_measure_lines`).

Worked example from the MUC manual's scenario-template report (ALL SLOTS: POS 2856, ACT 2307,
COR 1058, INC 368, MIS 1430, SPU 881): REC 37.04, PRE 45.86, F-MEASURES 40.98 / 43.78 / 38.53.
"""

from __future__ import annotations

from dataclasses import dataclass

from annoscore.counts import Counts
from annoscore.metrics.prf import prf, ratio

TALLY_NAMES = ("cor", "par", "inc", "mis", "spu", "non")
"""The six primitive tallies, in report order."""

F_MEASURE_BETAS = {"f_pr": 1.0, "f_2pr": 0.5, "f_p2r": 2.0}
"""The score report's F-measure columns (P&R, 2P&R, P&2R) and their beta."""


@dataclass(frozen=True, slots=True)
class Tally:
    """COR PAR INC MIS SPU NON of one slot, object, type or corpus; adds with ``+``."""

    cor: int = 0
    par: int = 0
    inc: int = 0
    mis: int = 0
    spu: int = 0
    non: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.cor + other.cor,
            self.par + other.par,
            self.inc + other.inc,
            self.mis + other.mis,
            self.spu + other.spu,
            self.non + other.non,
        )

    @property
    def pos(self) -> int:
        """Possible: COR + PAR + INC + MIS."""
        return self.cor + self.par + self.inc + self.mis

    @property
    def act(self) -> int:
        """Actual: COR + PAR + INC + SPU."""
        return self.cor + self.par + self.inc + self.spu

    @property
    def recall(self) -> float | None:
        """(COR + PAR/2) / POS."""
        return ratio(self.cor + 0.5 * self.par, self.pos)

    @property
    def precision(self) -> float | None:
        """(COR + PAR/2) / ACT."""
        return ratio(self.cor + 0.5 * self.par, self.act)

    @property
    def undergeneration(self) -> float | None:
        """MIS / POS."""
        return ratio(self.mis, self.pos)

    @property
    def overgeneration(self) -> float | None:
        """SPU / ACT."""
        return ratio(self.spu, self.act)

    @property
    def substitution(self) -> float | None:
        """(INC + PAR/2) / (COR + PAR + INC)."""
        return ratio(self.inc + 0.5 * self.par, self.cor + self.par + self.inc)

    @property
    def error(self) -> float | None:
        """(INC + PAR/2 + MIS + SPU) / (COR + PAR + INC + MIS + SPU)."""
        wrong = self.inc + 0.5 * self.par + self.mis + self.spu
        return ratio(wrong, self.cor + self.par + self.inc + self.mis + self.spu)

    def f_measure(self, beta: float = 1.0) -> float | None:
        """F_beta of :attr:`precision` and :attr:`recall`; where one of them is undefined, 0 if
        either side has a fill, None if neither has (the one rule, see the module docstring).

        >>> Tally(cor=1, mis=1).f_measure(), Tally(mis=2).f_measure(), Tally(non=3).f_measure()
        (0.6666666666666666, 0.0, None)
        """
        credit = self.cor + 0.5 * self.par
        return prf(credit, self.act - credit, self.pos - credit, beta=beta).f1

    def scores(self, prefix: str = "") -> dict[str, float | None]:
        """``recall``, ``precision``, ``f_pr``, ``f_2pr``, ``f_p2r`` and the four error rates."""
        out = {f"{prefix}recall": self.recall, f"{prefix}precision": self.precision}
        for name, beta in F_MEASURE_BETAS.items():
            out[prefix + name] = self.f_measure(beta)
        out.update(
            {
                f"{prefix}undergeneration": self.undergeneration,
                f"{prefix}overgeneration": self.overgeneration,
                f"{prefix}substitution": self.substitution,
                f"{prefix}error": self.error,
            }
        )
        return out

    @classmethod
    def from_counts(cls, counts: Counts, prefix: str = "") -> Tally:
        """Read the six tallies back from ``counts`` (``pos``/``act`` are derived, not read)."""
        return cls(*(int(counts[prefix + name]) for name in TALLY_NAMES))
