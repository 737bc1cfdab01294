"""Pure functions from aligned items to additive counts, and from counts to scores.

Every score function takes counts and returns fractions in [0, 1] (never percent), or ``None``
where the value is undefined (a zero denominator), unless the caller names a ``zero_division``
value, as scikit-learn does.
"""

from annoscore.metrics.prf import PRF, f_beta, prf, ratio
from annoscore.metrics.tallies import Tally

__all__ = ["PRF", "Tally", "f_beta", "prf", "ratio"]
