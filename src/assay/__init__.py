"""assay: decide, with evidence, whether a unit test is worth keeping.

Library API, one function per command (see `assay.api`): `verify(paths) -> Report`,
`mutate(paths, tests) -> MutateReport`, `lint(paths) -> LintReport`. Errors are
`assay.errors.AssayError`s.
"""

from __future__ import annotations

from typing import Any

from assay.version import __version__

__all__ = ["__version__", "lint", "mutate", "verify"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `import assay` stays cheap and free of import cycles with the gates.
    if name in ("verify", "mutate", "lint"):
        from assay import api

        return getattr(api, name)
    raise AttributeError(name)
