"""assay's version, in a module of its own so that any layer can read it without importing the
package's public surface (`assay/__init__.py` re-exports it)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("assay")
# running from a source tree that was never installed
except (
    PackageNotFoundError  # pragma: no cover
):
    __version__ = "0.0.0"
