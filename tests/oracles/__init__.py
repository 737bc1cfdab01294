"""Plain references, written from the definitions, that the fast paths of ``src/`` are held to.

Nothing in ``src/`` imports these: they are slow on purpose (a Python object per item, the
formula as the spec states it) and serve only the differential tests of ``tests/equivalence/``.
"""
