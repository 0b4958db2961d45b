"""The source files a Go or Rust test file tests (gate 4 mutates them): those of its package or
crate that define a name the test file uses, as Java's `sources_under_test` does by class names.
Without them gate 4 skipped every Go and Rust file ("no target"), so a test that asserts almost
nothing was accepted."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from assay.languages.rust_modules import (
    crate_files,
    dependency_names,
    included_by_test,
    library_name,
)
from assay.languages.tooling import nearest, under

_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
# top-level Go declarations: funcs and methods, types, single vars and consts
_GO_DECL = re.compile(r"^(?:func(?:\s*\([^)]*\))?|type|var|const)\s+([A-Za-z_]\w*)", re.M)
# the receiver type of a Go method: a test using a type tests its methods in other files too
# (`sort.Sort(err)` runs `Error.Less` in sort.go, a name the test never writes)
_GO_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*([A-Za-z_]\w*)", re.M)
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.M)
# `import "p"`, `import x "p"` and `import ( ... )` blocks; the paths in them
_GO_IMPORTS = re.compile(r"^import\s*(\([^)]*\)|[\w.]*\s*\"[^\"]+\")", re.M)
_GO_PATH = re.compile(r"\"([^\"]+)\"")
# Rust items reachable from an integration test: `pub` ones, methods inside impls included
_RUST_ITEM = re.compile(
    r"^([ \t]*)pub(?:\([^)]*\))?\s+(?:(?:const|async|unsafe|extern\s+\"\w+\")\s+)*"
    r"(?:fn|struct|enum|trait|type|const|static|union)\s+([A-Za-z_]\w*)",
    re.M,
)
# what names nothing in a test's code: comments and string literals
_RUST_NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\])'|\"(?:\\.|[^\"\\])*\"", re.S)
_RUST_CALLED = re.compile(r"(?:\.|::)\s*([A-Za-z_]\w*)\s*(?:::<[^>]*>)?\s*\(")
LIMIT = 30


def _defining(root: Path, files: list[str], source: str, *declared: re.Pattern[str]) -> list[str]:
    """The files among `files` that declare a name `source` uses (by any of `declared`)."""
    words = set(_WORD.findall(source))
    return [
        rel
        for rel, text in _texts(root, files)
        if any(words & set(pattern.findall(text)) for pattern in declared)
    ]


def _texts(root: Path, files: list[str]) -> Iterator[tuple[str, str]]:
    """Each readable file among `files` with its text."""
    for rel in files:
        try:
            yield rel, (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def go_sources(root: Path, source: str, rel: str) -> list[str]:
    """A Go test file's package (its directory, `_test.go` files left out) and the packages of
    its own module it imports: the files declaring a name the test uses or a method of a type it
    uses, else all of its own package's. Gate 4 then counts only the functions the tests run
    (`mutation.tools.go.executed`). xrash/smetrics keeps its tests in `tests/`, a package that
    imports the module's root: gate 4 had mutated only `tests/testcases.go` (a table) and said
    "measured nothing" of tests that call `smetrics.Hamming`."""
    directory = PurePosixPath(rel).parent
    files = _go_files(root, directory)
    own = _defining(root, files, source, _GO_DECL, _GO_RECEIVER)
    imported = [
        found
        for package in _go_imported(root, source, rel)
        if package != directory
        for found in _defining(root, _go_files(root, package), source, _GO_DECL, _GO_RECEIVER)
    ]
    return (own + imported or files)[:LIMIT]


def _go_files(root: Path, directory: PurePosixPath) -> list[str]:
    try:
        names = sorted(os.listdir(root / directory))
    except OSError:
        return []
    return [
        (directory / n).as_posix()
        for n in names
        if n.endswith(".go") and not n.endswith("_test.go") and (root / directory / n).is_file()
    ]


def _go_imported(root: Path, source: str, rel: str) -> list[PurePosixPath]:
    """The directories of the packages of the test's own module that it imports."""
    module = nearest(root, rel, ("go.mod",))
    if module is None:
        return []
    try:
        gomod = (root / module / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if (declared := _GO_MODULE.search(gomod)) is None:
        return []
    path = declared.group(1)
    found = []
    for block in _GO_IMPORTS.findall(source):
        for imported in _GO_PATH.findall(block):
            if imported == path or imported.startswith(path + "/"):
                found.append(PurePosixPath(module) / imported[len(path) :].lstrip("/"))
    return found


def _rust_named(root: Path, files: list[str], code: str) -> list[str]:
    """The `files` declaring a `pub` item the test's `code` names. A method (an indented item)
    counts only where the test calls or names it as one: textwrap's tests/indent.rs says "ported
    over from python" in a comment, and `Word::from` in src/core.rs made core.rs a target,
    rejected at 0 %."""
    called = set(_RUST_CALLED.findall(code))
    words = set(_WORD.findall(code))
    found = []
    for rel, text in _texts(root, files):
        names = {
            m.group(2)
            for m in _RUST_ITEM.finditer(text)
            if not m.group(1) or m.group(2) in called  # top level, or a method it calls
        }
        if names & words:
            found.append(rel)
    return found


def rust_sources(root: Path, source: str, rel: str) -> list[str]:
    """A Rust test file's code: a file under `src/` tests itself (its `#[cfg(test)]` module); an
    integration test, the crate's source files declaring a `pub` item it names, among those the
    library compiles and those the test compiles into itself by `#[path]`
    (`rust_modules`), else the crate root (`src/lib.rs`)."""
    crate = nearest(root, rel, ("Cargo.toml",)) or "."
    if PurePosixPath(under(crate, rel)).parts[:1] == ("src",):
        # a root of re-exports (urlencoding's src/lib.rs: `mod enc; pub use enc::encode;` and
        # the tests) has no code of its own: gate 4 passed it with no mutant measured. Its tests
        # then test the files declaring what they name, as an integration test does
        own, _, tests = _RUST_NOISE.sub(" ", source).partition("#[cfg(test)]")
        if not tests or re.search(r"\bfn\s+\w+", own):
            return [rel]
        behind = [f for f in crate_files(root, crate, False) if f != rel]
        return [rel, *_rust_named(root, behind, tests)][:LIMIT]
    included = included_by_test(root, crate, rel)
    lib = (PurePosixPath(crate) / "src/lib.rs").as_posix()
    code = _RUST_NOISE.sub(" ", source)
    name = library_name(root, crate)
    # a test of another crate that never names this one: indoc's tests/test_unindent.rs tests
    # the `unindent` crate (a dev-dependency), and indoc's own src/unindent.rs, a copy of it, was
    # its target (rejected at 0 %)
    elsewhere = bool(name) and not re.search(rf"\b{re.escape(name or '')}\b", code)
    elsewhere = elsewhere and any(
        re.search(rf"\b{re.escape(d)}\s*::", code) for d in dependency_names(root, crate)
    )
    files = included if elsewhere else sorted({*included, *crate_files(root, crate, False)})
    found = _rust_named(root, files, code)
    if elsewhere:
        return found[:LIMIT]
    return (found or ([lib] if (root / lib).is_file() else []))[:LIMIT]
