"""The package version (one place; ``annoscore.__version__`` and signatures read it)."""

__version__ = "0.1.0"
