"""assay: decide, with evidence, whether a unit test is worth keeping.

Library API: `assay.verify(paths, settings=None, ...) -> Report` (see assay.pipeline).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "verify"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `import assay` stays cheap and free of import cycles with the gates.
    if name == "verify":
        from assay.pipeline import verify

        return verify
    raise AttributeError(name)
