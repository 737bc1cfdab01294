"""annoscore: one scorer for NLP annotation campaigns.

Data flows one way: ``formats`` read files into ``model`` objects, ``align`` pairs gold with
predicted items, ``metrics`` turn pairs into additive :class:`~annoscore.counts.Counts` per
document, the counts are summed, and ``report`` renders the scores.  ``tasks`` hold one preset per
official task and ``cli`` is the thin command line on top.
"""

from annoscore.counts import Counts
from annoscore.errors import InputError

__version__ = "0.1.0"

__all__ = ["Counts", "InputError", "__version__"]
