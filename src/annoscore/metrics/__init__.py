"""Pure functions from aligned items to additive counts, and from counts to scores.

Every score function takes counts and returns fractions in [0, 1] (never percent), or ``None``
where the value is undefined (a zero denominator), unless the caller names a ``zero_division``
value, as scikit-learn does.  Each is imported from its module (:mod:`annoscore.metrics.prf`,
:mod:`annoscore.metrics.tallies`, ...): the package imports none, so a command imports only the
metrics it scores with (a module's dataclasses cost every command that imports it).
"""
