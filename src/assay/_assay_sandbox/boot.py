"""Runs first inside every sandboxed Python process: make the project import from the scratch copy.

Standalone on purpose (stdlib only, no `assay` imports): it runs under the interpreter that runs the
user's tests, which need not have assay installed.

An editable install of the project puts the user's tree on sys.path (a .pth entry) or installs a
meta path finder that maps the package to the user's tree. Both would make the code under test - and
anything a test does with `module.__file__` - point at the user's files. We map such sys.path
entries to the scratch copy, drop editable finders, and put the scratch source roots first.
"""

from __future__ import annotations

import os
import sys


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip(os.sep) + os.sep)


def _env_prefixes() -> list[str]:
    return [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]


def isolate_imports(user_root: str, scratch_root: str, source_roots: list[str]) -> None:
    user_root = os.path.realpath(user_root)
    prefixes = _env_prefixes()
    first = [os.path.normpath(os.path.join(scratch_root, sr)) for sr in source_roots]
    rest = []
    for entry in sys.path:
        real = os.path.realpath(entry or os.getcwd())
        if _under(real, user_root) and not any(_under(real, p) for p in prefixes):
            real = scratch_root + real[len(user_root) :]
        if real not in first and real not in rest:
            rest.append(real)
    sys.path[:] = first + rest
    sys.meta_path[:] = [
        f
        for f in sys.meta_path
        if not (
            type(f).__module__.startswith(("__editable__", "_editable_impl", "editables"))
            or "editable" in type(f).__name__.lower()
        )
    ]
    for name, mod in list(sys.modules.items()):
        real = os.path.realpath(getattr(mod, "__file__", None) or "/nonexistent")
        # a virtualenv inside the project (`.venv/`) holds pytest, the project's dependencies
        # and perhaps assay itself: those are the interpreter's, not the user's tree
        if _under(real, user_root) and not any(_under(real, p) for p in prefixes):
            del sys.modules[name]
    sys.path_importer_cache.clear()


def leaked_modules(user_root: str) -> list[str]:
    """Modules loaded from the user's tree (outside the interpreter's own prefixes); should
    be none."""
    user_root = os.path.realpath(user_root)
    prefixes = _env_prefixes()
    leaked = []
    for name, mod in list(sys.modules.items()):
        path = getattr(mod, "__file__", None)
        if not path:
            continue
        real = os.path.realpath(path)
        if _under(real, user_root) and not any(_under(real, p) for p in prefixes):
            leaked.append(f"{name} ({path})")
    return sorted(leaked)
