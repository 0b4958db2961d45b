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

from assay.languages.tooling import under

_AUTOTESTS_OFF = re.compile(r"^\s*autotests\s*=\s*false\b", re.M)


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
