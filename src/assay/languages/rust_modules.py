"""The source files a Rust crate really compiles, read from its `mod` declarations as rustc reads
them: from the crate roots, each `mod name;` to `name.rs` or `name/mod.rs` beside (or under) its
parent, a `#[path = "..."]` to its own file, a module behind a feature the default build does
not enable left out. Walking `src/` instead took files no target compiles and missed files a
`#[path]` puts elsewhere: ryu's tests include `src/s2d.rs` by `#[path]` (the library never
compiles it), and its `#[cfg(feature = "small")]` table was a target whose mutants no test
build could see."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# `#[attr] ... mod name;` (a declaration, not an inline `mod name { ... }`)
_MOD = re.compile(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;")
_PATH = re.compile(r"#\[\s*path\s*=\s*\"([^\"]+)\"\s*\]")
_CFG = re.compile(r"#\[\s*cfg\s*\((.*)\)\s*\]")
_FEATURE = re.compile(r"(not\s*\(\s*)?feature\s*=\s*\"([^\"]+)\"")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _manifest(root: Path, crate: str) -> dict:
    try:
        return tomllib.loads((root / crate / "Cargo.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def library_name(root: Path, crate: str) -> str | None:
    """The name an integration test calls the crate's library by (`[lib] name`, else the
    package's name with `-` as `_`)."""
    manifest = _manifest(root, crate)
    name = (manifest.get("lib") or {}).get("name") or (manifest.get("package") or {}).get("name")
    return name.replace("-", "_") if isinstance(name, str) else None


def dependency_names(root: Path, crate: str) -> set[str]:
    """The crates the manifest depends on (dev-dependencies included), as code names them."""
    manifest = _manifest(root, crate)
    names: set[str] = set()
    for key in ("dependencies", "dev-dependencies"):
        for name, spec in (manifest.get(key) or {}).items():
            real = spec.get("package", name) if isinstance(spec, dict) else name
            names |= {name.replace("-", "_"), str(real).replace("-", "_")}
    return names


def default_features(root: Path, crate: str) -> set[str]:
    """The features `cargo test` enables with no flag: `default` and what it names."""
    table = _manifest(root, crate).get("features") or {}
    out: set[str] = set()
    todo = ["default"]
    while todo:
        name = todo.pop()
        if name in out or name not in table:
            continue
        out.add(name)
        todo += [f for f in table[name] if isinstance(f, str) and "/" not in f]
    return out - {"default"}


def _enabled(attrs: str, features: set[str]) -> bool:
    """False for a `#[cfg(feature = "x")]` (or `not(...)`) the default build does not meet, and
    for `#[cfg(test)]`: an integration test links the library built without it (base64's
    `engine/naive.rs`, a unit tests' helper); any other condition (target) is taken as met."""
    for cfg in _CFG.findall(attrs):
        if cfg.strip() == "test":
            return False
        if "any(" in cfg or "all(" in cfg:
            continue
        for negated, name in _FEATURE.findall(cfg):
            if (name in features) == bool(negated):
                return False
    return True


def declared(root: Path, rel: str, features: set[str], owns_dir: bool) -> list[tuple[str, bool]]:
    """The files the `mod name;` declarations of `rel` (a path from `root`) name, as rustc
    resolves them, each with whether it owns its directory; modules behind a disabled feature
    left out. A crate root, a `mod.rs` and a file a `#[path]` names own their directory (their
    modules sit beside them); `a.rs` declares its modules in `a/`."""
    try:
        text = _COMMENT.sub(" ", (root / rel).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []
    path = PurePosixPath(rel)
    own = path.parent if owns_dir or path.name == "mod.rs" else path.with_suffix("")
    out = []
    for attrs, name in _MOD.findall(text):
        if not _enabled(attrs, features):
            continue
        given = _PATH.search(attrs)
        if given:
            options = [path.parent / given.group(1)]
        else:
            options = [own / f"{name}.rs", own / name / "mod.rs"]
        for option in options:
            normal = os.path.normpath(option.as_posix()).replace(os.sep, "/")
            if (root / normal).is_file():
                out.append((normal, bool(given)))
                break
    return out


def module_files(root: Path, roots: list[str], features: set[str]) -> list[str]:
    """Every file the module trees of `roots` compile (the roots included), in tree order."""
    seen: dict[str, None] = {}
    todo = [(r, True) for r in reversed(roots)]
    while todo:
        rel, owns_dir = todo.pop()
        if rel in seen or not (root / rel).is_file():
            continue
        seen[rel] = None
        todo += reversed(declared(root, rel, features, owns_dir))
    return list(seen)


def crate_roots(root: Path, crate: str, binaries: bool = True) -> list[str]:
    """The library's and (`binaries`) the binaries' root files (cargo's defaults and the
    manifest's `path`s): the code cargo-mutants mutates."""
    base = PurePosixPath(crate)
    manifest = _manifest(root, crate)
    given = [(manifest.get("lib") or {}).get("path"), "src/lib.rs"]
    if binaries:
        given += [b.get("path") for b in manifest.get("bin") or [] if isinstance(b, dict)]
        given += ["src/main.rs"]
    out = [(base / p).as_posix() for p in given if isinstance(p, str)]
    bins = root / crate / "src" / "bin"
    if binaries and bins.is_dir():
        for entry in sorted(bins.iterdir()):
            main = entry / "main.rs" if entry.is_dir() else entry
            if main.suffix == ".rs" and main.is_file():
                out.append(main.relative_to(root).as_posix())
    return [os.path.normpath(r).replace(os.sep, "/") for r in out if (root / r).is_file()]


def crate_files(root: Path, crate: str, binaries: bool = True) -> list[str]:
    """The source files of the crate's library and (`binaries`) binaries under its default
    features."""
    roots = crate_roots(root, crate, binaries)
    return module_files(root, roots, default_features(root, crate))


def included_by_test(root: Path, crate: str, rel: str) -> list[str]:
    """The crate's source files an integration test compiles into itself by `#[path]` (its own
    helper modules under `tests/` left out), with what they declare in turn."""
    features = default_features(root, crate)
    tests = (PurePosixPath(crate) / "tests").as_posix()
    files = module_files(root, [rel], features)[1:]
    return [f for f in files if not f.startswith(f"{tests}/")]
