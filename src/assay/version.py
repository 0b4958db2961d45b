"""assay's version, in a module of its own so that any layer can read it without importing the
package's public surface (`assay/__init__.py` re-exports it)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

# the one place the version is written (pyproject.toml's `[tool.hatch.version]` reads it): asking
# the installed metadata for it imported `importlib.metadata`, ~0.05 s CPU of every command's start
__version__ = "0.2.0"

# the files whose content decides a verdict: assay's code, its sandboxed helpers, the plans it runs
CODE_SUFFIXES = (".py", ".mjs", ".java", ".json", ".toml")


@functools.lru_cache(maxsize=1)
def build() -> str:
    """The version and a digest of assay's own code: cached verdicts and mutant results are keyed
    by it, so an install whose code changed without a new version (a checkout, `pip install -e`)
    judges again, as a new release does."""
    return f"{__version__}+{code_digest(Path(__file__).parent)}"


def code_digest(root: Path) -> str:
    """A digest of the names, sizes and modification times of the code files under `root` (caches
    left out): an edit changes it; stat costs half of reading its 6 MB on every run."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
            st = path.stat()
            h.update(
                f"{path.relative_to(root).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode()
            )
    return h.hexdigest()[:16]
