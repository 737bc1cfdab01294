"""One preset per official task: which reader, which alignment, which metrics, which quirks.

A preset is short and declarative; logic that grows here belongs in ``align`` or ``metrics``.
"""
