"""Code a project carries of another project's: a vendored copy is not the project's own code.

A test of the project reaches it the way it reaches an installed dependency (jsonpath-ng 1.17
ships PLY 3.11 as `jsonpath_ng/_ply/`, and every parse runs through its lexer and parser), so no
test file is held to its mutants: test_filter_query_operands.py, 74 exact tests of filter
queries, was rejected at gate 4 for PLY's `lexoptimize` flag and its logger. Two signs, each
one a vendored copy keeps: a directory named as vendoring tools name theirs (`_vendor`,
`third_party`, ...), or a package below the project's own top level that declares a
`__version__` of its own, one the project's metadata and top-level packages do not declare."""

from __future__ import annotations

import ast
import configparser
import contextlib
import re
from collections.abc import Iterable
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

VENDOR_DIRS = frozenset(
    {
        "_vendor",
        "vendor",
        "_vendored",
        "vendored",
        "_third_party",
        "third_party",
        "thirdparty",
        "_extern",
        "extern",
        "_externals",
        "externals",
    }
)


def vendored(root: Path, modules: dict[str, str]) -> dict[str, str]:
    """Project-relative path of each vendored module -> why (`modules`: dotted name -> path)."""
    found: dict[str, str] = {}
    for rel in modules.values():
        parts = Path(rel).parts[:-1]
        if named := next((p for p in parts if p in VENDOR_DIRS), None):
            found[rel] = f"under a `{named}/` directory"
    own = _own_versions(root, modules)
    for name, rel in modules.items():
        if _outermost(name, modules) == name or rel in found:
            continue
        version = _declared_version(root / rel)
        if version is None or version in own:
            continue
        is_package = rel.endswith("__init__.py")
        if not is_package and not _defines_code(root / rel):
            continue  # a version file (`pkg/_version.py`) of the project's own
        why = f"{rel} declares a version of its own, {version}"
        prefix = name + "."
        for other, other_rel in modules.items():
            if other == name or (is_package and other.startswith(prefix)):
                found.setdefault(other_rel, why)
    return found


def _own_versions(root: Path, modules: dict[str, str]) -> set[str]:
    """The versions the project declares: its metadata's and its top-level modules'."""
    found = {v for rel in _top_level(modules) if (v := _declared_version(root / rel))}
    with contextlib.suppress(OSError, tomllib.TOMLDecodeError, AttributeError):
        version = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        found.add(str(version.get("project", {}).get("version", "")))
    with contextlib.suppress(OSError, configparser.Error):
        cfg = configparser.ConfigParser(interpolation=None)
        cfg.read(root / "setup.cfg", encoding="utf-8")
        found.add(cfg.get("metadata", "version", fallback=""))
    for meta in ("PKG-INFO", "setup.py"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = (root / meta).read_text(encoding="utf-8")
            if m := re.search(r"^Version: *(\S+)|\bversion\s*=\s*['\"]([^'\"]+)['\"]", text, re.M):
                found.add(m.group(1) or m.group(2))
    found.discard("")
    return found


def _top_level(modules: dict[str, str]) -> Iterable[str]:
    return (rel for name, rel in modules.items() if _outermost(name, modules) == name)


def _outermost(name: str, modules: dict[str, str]) -> str:
    """The outermost regular package (or module) `name` is in: below namespace packages, which
    have no module (`google.cloud.storage`'s own `__version__` is the project's)."""
    parts = name.split(".")
    return next(
        (".".join(parts[:n]) for n in range(1, len(parts)) if ".".join(parts[:n]) in modules),
        name,
    )


def _declared_version(path: Path) -> str | None:
    """A module's `__version__ = "..."` at its top level, if it assigns a literal (only a module
    that names it is parsed: every module of the project is asked)."""
    tree = _parse(path, "__version__")
    for node in tree.body if tree else ():
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def _defines_code(path: Path) -> bool:
    tree = _parse(path)
    return tree is not None and any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in tree.body
    )


def _parse(path: Path, needs: str = "") -> ast.Module | None:
    try:
        text = path.read_text(encoding="utf-8")
        return ast.parse(text) if needs in text else None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
