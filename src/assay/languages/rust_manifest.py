"""Cargo.toml facts the Rust runner and tools need without a TOML round-trip (the user's manifest is
never rewritten, only extended in the scratch copy).

A crate with `autotests = false` builds only the `[[test]]` targets it lists, so a new
`tests/NAME.rs` (a candidate, or generate's `tests/<stem>_assay.rs`) is no target at all; the
scratch copy's manifest gets one more `[[test]]` entry for it."""

from __future__ import annotations

import re
import sys
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from assay.languages.base import WritePlan
from assay.languages.tooling import nearest, under

_AUTOTESTS_OFF = re.compile(r"^\s*autotests\s*=\s*false\b", re.M)
_SECTION = re.compile(r"^\[(\w+)\]\s*$(.*?)(?=^\[|\Z)", re.M | re.S)
_NAME = re.compile(r"^\s*name\s*=\s*[\"']([^\"']+)[\"']", re.M)


def with_test_target(manifest: str, test: str) -> str | None:
    """The manifest with a `[[test]]` target for `test` (crate-relative `tests/NAME.rs`) appended,
    or None when cargo already builds it (auto-discovery on, or already listed)."""
    inner = PurePosixPath(test)
    if inner.parts[:1] != ("tests",) or len(inner.parts) != 2 or inner.suffix != ".rs":
        return None
    try:
        data = tomllib.loads(manifest)
    except tomllib.TOMLDecodeError:
        if not _AUTOTESTS_OFF.search(manifest):
            return None
        data = {"package": {"autotests": False}}
    if (data.get("package") or {}).get("autotests", True) is not False:
        return None
    for target in data.get("test") or []:
        if target.get("name") == inner.stem or target.get("path") == inner.as_posix():
            return None
    entry = f'\n[[test]]\nname = "{inner.stem}"\npath = "{inner.as_posix()}"\n'
    return manifest + ("" if manifest.endswith("\n") else "\n") + entry


def register_test(root: Path, crate: str, rel: str) -> bool:
    """Make the scratch copy at `root` build the test file `rel` (project-relative) as a target of
    `crate`; True when its manifest had to be extended. Only ever called on a scratch copy."""
    manifest = root / crate / "Cargo.toml"
    try:
        text = manifest.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    extended = with_test_target(text, under(crate, rel))
    if extended is None:
        return False
    manifest.write_text(extended, encoding="utf-8")
    return True


def write_plan(root: Path, source_rel: str, n: int = 1) -> WritePlan:
    """An integration test, `tests/<stem>_assay.rs` of the crate: a new file there needs no
    `mod` line in the user's code, and reaches the library by its crate name (only `pub` items,
    as any user of the crate)."""
    crate = nearest(root, source_rel, ("Cargo.toml",)) or "."
    try:
        manifest = (root / crate / "Cargo.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        manifest = ""
    sections = {m.group(1): m.group(2) for m in _SECTION.finditer(manifest)}
    name = next(
        (m.group(1) for key in ("lib", "package") if (m := _NAME.search(sections.get(key, "")))),
        "crate",
    ).replace("-", "_")
    inner = PurePosixPath(under(crate, source_rel))
    parts = list(inner.with_suffix("").parts[1:]) if inner.parts[:1] == ("src",) else []
    if parts and parts[-1] in ("lib", "mod"):
        parts.pop()
    path = "::".join([name, *parts])
    stem = (
        inner.stem if inner.stem not in ("lib", "mod", "main") else (parts[-1] if parts else name)
    )
    suffix = "" if n == 1 else str(n)
    has_lib = (root / crate / "src" / "lib.rs").is_file() or "lib" in sections
    return WritePlan(
        (PurePosixPath(crate) / "tests" / f"{stem}_assay{suffix}.rs").as_posix(),
        "Rust's built-in test harness: #[test] functions "
        "in an integration test (assert!, assert_eq!, "
        '#[should_panic(expected = "...")] for panics; '
        "no dev-dependencies beyond Cargo.toml's)",
        f"an integration test of crate `{name}`: "
        f"`use {path}::{{...}};` (only pub items are reachable)"
        + (
            ""
            if has_lib
            else "; the crate has no library target (src/lib.rs), so tests/ cannot reach its code"
        ),
    )
