"""assay: decide, with evidence, whether a unit test is worth keeping."""

__version__ = "0.1.0"
